//! From a line of a bundled stylesheet to the line of its source file, through the source map the
//! bundler wrote (`/*# sourceMappingURL=app.css.map */`).

use sourcemap::DecodedMap;

/// Largest source map read, in bytes of JSON.
pub const MAX_SOURCE_MAP_BYTES: usize = 16 << 20;

/// A parsed source map.
pub struct SourceMap(DecodedMap);

impl SourceMap {
    /// Parses a source map's JSON; the error says why it cannot be used.
    pub fn parse(text: &str) -> Result<Self, String> {
        if text.len() > MAX_SOURCE_MAP_BYTES {
            return Err(format!("{} bytes, above the limit of {MAX_SOURCE_MAP_BYTES}", text.len()));
        }
        sourcemap::decode_slice(text.as_bytes()).map(Self).map_err(|e| e.to_string())
    }

    /// The source file and its 0-based line and column for a 0-based position of the bundled
    /// stylesheet, when the map covers it.
    pub fn original(&self, line: u32, column: u32) -> Option<(String, u32, u32)> {
        let token = self.0.lookup_token(line, column)?;
        // A token of an earlier line maps the end of something before: not this declaration.
        if token.get_dst_line() != line {
            return None;
        }
        let source = token.get_source()?;
        Some((readable_source(source), token.get_src_line(), token.get_src_col()))
    }
}

/// A source as a person finds it in the project: a bundler's scheme (`webpack:///`) and the
/// leading `./` and `../` of a path relative to the map are left out (`../src/tokens.css` →
/// `src/tokens.css`).
fn readable_source(source: &str) -> String {
    let mut path = source;
    if let Some((scheme, rest)) = path.split_once("://")
        && !scheme.is_empty()
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '+')
        && !matches!(scheme, "http" | "https")
    {
        path = rest.trim_start_matches('/');
    }
    loop {
        let trimmed = path.trim_start_matches("./").trim_start_matches("../");
        if trimmed == path {
            break;
        }
        path = trimmed;
    }
    path.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_a_bundled_line_to_its_source() {
        // `a{color:red}` on line 0 of the bundle came from line 2, column 0 of ../src/a.css;
        // line 1 from line 0 of ../src/b.css ("AAAA;AACA" style mappings written by hand).
        let map =
            r#"{"version":3,"sources":["../src/a.css","webpack:///./src/b.css"],"names":[],"mappings":"AAEA;ACFA"}"#;
        let map = SourceMap::parse(map).unwrap();
        assert_eq!(map.original(0, 0), Some(("src/a.css".into(), 2, 0)));
        assert_eq!(map.original(1, 4), Some(("src/b.css".into(), 0, 0)));
        assert_eq!(map.original(7, 0), None);
    }

    #[test]
    fn a_broken_map_says_why() {
        assert!(SourceMap::parse("{not json").is_err());
    }
}
