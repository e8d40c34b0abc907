//! How a record names the page's own files: by their path from the page, not by where the page
//! was served. A suite's app runs on `localhost:3000` on one machine and `127.0.0.1:4173` on
//! another, a `file:` page sits under `/Users/a/site` on one and `/home/ci/site` on another: the
//! same `<img src="hero.png">` must be the same image in both records, or every image reads as
//! "changed content" whenever anything else differs.
//!
//! The rule (record version 3; the collector in `playwright-fixtures/collector-in-page.js` applies the
//! same text rule in the page, and `tests/collector.test.mjs` pins both to the same digests):
//! - an `http:`/`https:` page's origin (scheme, host and port, as its URL spells them) is dropped
//!   from a URL that starts with it: `http://localhost:3000/img/hero.png?v=2` → `/img/hero.png?v=2`;
//! - a `file:` page's folder is dropped from a URL inside it:
//!   `file:///home/ci/site/img/hero.png` → `img/hero.png`;
//! - every other URL (another origin, `data:`, a file outside the page's folder) stays whole.

use std::borrow::Cow;

/// The start a URL of the page's own drops, and how much of it: the origin keeps its `/`.
struct Base<'a> {
    /// The text a URL of the page's own starts with.
    prefix: Cow<'a, str>,
    /// The bytes of `prefix` dropped.
    dropped: usize,
}

fn base(page_url: &str) -> Option<Base<'_>> {
    let scheme_end = ["http://", "https://"].iter().find(|s| page_url.starts_with(**s)).map(|s| s.len());
    if let Some(authority) = scheme_end {
        let end = page_url[authority..].find(['/', '?', '#']).map_or(page_url.len(), |i| authority + i);
        let origin = &page_url[..end];
        return Some(Base { prefix: Cow::Owned(format!("{origin}/")), dropped: origin.len() });
    }
    if page_url.starts_with("file:") {
        let path = &page_url[..page_url.find(['?', '#']).unwrap_or(page_url.len())];
        let folder = &path[..path.rfind('/').map_or(0, |i| i + 1)];
        return (!folder.is_empty()).then_some(Base { prefix: Cow::Borrowed(folder), dropped: folder.len() });
    }
    None
}

/// `url` as a version 3 record names it on the page at `page_url` (the rule above).
pub fn page_relative<'u>(url: &'u str, page_url: &str) -> &'u str {
    match base(page_url) {
        Some(b) if url.starts_with(&*b.prefix) => &url[b.dropped..],
        _ => url,
    }
}

/// A computed value (`url("http://localhost:3000/bg.png")`, a list of them, a gradient) with
/// each `url("…")` of the page's own named as [`page_relative`] names it.
pub fn page_relative_in_css<'v>(value: &'v str, page_url: &str) -> Cow<'v, str> {
    let Some(b) = base(page_url) else { return Cow::Borrowed(value) };
    let needle = format!("url(\"{}", b.prefix);
    if !value.contains(&needle) {
        return Cow::Borrowed(value);
    }
    Cow::Owned(value.replace(&needle, &format!("url(\"{}", &b.prefix[b.dropped..])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_served_pages_own_urls_lose_their_origin_only() {
        let page = "http://localhost:3000/shop/cart?step=2#top";
        assert_eq!(page_relative("http://localhost:3000/img/hero.png?v=2", page), "/img/hero.png?v=2");
        assert_eq!(page_relative("http://localhost:3000/", page), "/");
        // Another port, host or scheme is another origin; a longer port is not this one.
        assert_eq!(page_relative("http://localhost:3001/a.png", page), "http://localhost:3001/a.png");
        assert_eq!(page_relative("http://localhost:30001/a.png", page), "http://localhost:30001/a.png");
        assert_eq!(page_relative("https://localhost:3000/a.png", page), "https://localhost:3000/a.png");
        assert_eq!(page_relative("http://cdn.test/a.png", page), "http://cdn.test/a.png");
        assert_eq!(page_relative("data:image/png;base64,AAAA", page), "data:image/png;base64,AAAA");
        assert_eq!(page_relative("https://shop.test/a.png", "https://shop.test"), "/a.png");
    }

    #[test]
    fn a_file_pages_own_urls_are_named_from_its_folder() {
        let page = "file:///home/ci/site/docs/index.html?x=1#part";
        assert_eq!(page_relative("file:///home/ci/site/docs/img/hero.png", page), "img/hero.png");
        assert_eq!(page_relative("file:///home/ci/site/logo.png", page), "file:///home/ci/site/logo.png");
        assert_eq!(page_relative("about:blank", "about:blank"), "about:blank");
    }

    #[test]
    fn the_same_image_on_two_hosts_is_named_alike() {
        let a = page_relative("http://localhost:3000/img/a.png", "http://localhost:3000/");
        let b = page_relative("http://127.0.0.1:4173/img/a.png", "http://127.0.0.1:4173/index.html");
        assert_eq!(a, b);
        let a = page_relative("file:///Users/a/site/img/a.png", "file:///Users/a/site/index.html");
        let b = page_relative("file:///home/ci/site/img/a.png", "file:///home/ci/site/index.html");
        assert_eq!(a, b);
    }

    #[test]
    fn css_values_name_each_url_of_the_page_alike() {
        let page = "http://localhost:3000/";
        assert_eq!(
            page_relative_in_css(r#"url("http://localhost:3000/a.png"), url("http://cdn.test/b.png")"#, page),
            r#"url("/a.png"), url("http://cdn.test/b.png")"#
        );
        assert_eq!(
            page_relative_in_css(r#"url("file:///s/img/a.png")"#, "file:///s/index.html"),
            r#"url("img/a.png")"#
        );
        assert!(matches!(page_relative_in_css("linear-gradient(red, blue)", page), Cow::Borrowed(_)));
    }
}
