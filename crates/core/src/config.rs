//! `.sightline/config.json` for the Rust front-ends (CLI, MCP). Every key is optional; unknown
//! keys and wrong types are an error naming the key (01-product.md). The Playwright layer reads
//! the same file with the same rules (playwright-fixtures/config.js).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The settings, with the spec's defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Config {
    pub report_dir: String,
    pub threshold: f64,
    pub antialiasing: bool,
    pub max_diff_pixels: Option<u64>,
    pub max_diff_pixel_ratio: Option<f64>,
    pub noise_auto_pass: bool,
    pub full_page: bool,
    pub mask: Vec<String>,
    pub ignore_selectors: Vec<String>,
    pub mcp_approval_prompt: bool,
    pub style_properties: Option<Vec<String>>,
    pub write_missing_baselines: bool,
    pub shard_mode: ShardMode,
}

/// What a shard does (01-product.md, sharding).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ShardMode {
    /// Compare the slice and keep partial results.
    #[default]
    Compare,
    /// Only capture; the merge job compares.
    CaptureOnly,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            report_dir: "visual-report".into(),
            threshold: 0.1,
            antialiasing: true,
            max_diff_pixels: None,
            max_diff_pixel_ratio: None,
            noise_auto_pass: false,
            full_page: true,
            mask: Vec::new(),
            ignore_selectors: Vec::new(),
            mcp_approval_prompt: true,
            style_properties: None,
            write_missing_baselines: false,
            shard_mode: ShardMode::Compare,
        }
    }
}

/// The keys, as users write them.
const KEYS: [&str; 13] = [
    "reportDir",
    "threshold",
    "antialiasing",
    "maxDiffPixels",
    "maxDiffPixelRatio",
    "noiseAutoPass",
    "fullPage",
    "mask",
    "ignoreSelectors",
    "mcpApprovalPrompt",
    "styleProperties",
    "writeMissingBaselines",
    "shardMode",
];

/// Reads `<root>/.sightline/config.json`; a missing file means all defaults.
pub fn load_config(root: &Path) -> Result<Config> {
    let path = root.join(".sightline").join("config.json");
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let fail = |detail: String| Error::InvalidInput(format!("{}: {detail}", path.display()));
    let value: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| fail(format!("not valid JSON ({e}); fix it or delete it to use the defaults")))?;
    let object = value
        .as_object()
        .ok_or_else(|| fail("expected a JSON object of settings, e.g. {\"threshold\": 0.1}".into()))?;
    // Key by key, so every message names the key at fault.
    for (key, v) in object {
        let single = serde_json::json!({ key: v });
        if let Err(e) = serde_json::from_value::<Config>(single) {
            let e = e.to_string();
            return Err(fail(if e.starts_with("unknown field") {
                format!("unknown key \"{key}\"; known keys are {}", KEYS.join(", "))
            } else {
                format!("\"{key}\" has the wrong type ({e})")
            }));
        }
    }
    let config: Config = serde_json::from_value(value).map_err(|e| fail(e.to_string()))?;
    let bad = |key: &str, want: &str| Err(Error::InvalidInput(format!("{}: \"{key}\" must be {want}", path.display())));
    if !(0.0..=1.0).contains(&config.threshold) {
        return bad("threshold", "a number from 0 to 1");
    }
    if config.max_diff_pixel_ratio.is_some_and(|r| !(0.0..=1.0).contains(&r)) {
        return bad("maxDiffPixelRatio", "a number from 0 to 1");
    }
    if config.report_dir.is_empty() {
        return bad("reportDir", "a folder path string");
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_config(text: &str) -> Result<Config> {
        let root = std::env::temp_dir().join(format!("sightline-config-{}-{}", std::process::id(), text.len()));
        std::fs::create_dir_all(root.join(".sightline")).unwrap();
        std::fs::write(root.join(".sightline/config.json"), text).unwrap();
        let config = load_config(&root);
        let _ = std::fs::remove_dir_all(&root);
        config
    }

    #[test]
    fn config_defaults_and_overrides() {
        assert_eq!(load_config(Path::new("/nonexistent")).unwrap(), Config::default());
        let c = with_config(r#"{"reportDir": "out", "maxDiffPixels": 10, "shardMode": "capture-only"}"#).unwrap();
        assert_eq!((c.report_dir.as_str(), c.max_diff_pixels, c.shard_mode), ("out", Some(10), ShardMode::CaptureOnly));
    }

    #[test]
    fn config_unknown_keys_and_wrong_types_name_the_key() {
        let err = with_config(r#"{"treshold": 0.2}"#).unwrap_err().to_string();
        assert!(err.contains("unknown key \"treshold\"; known keys are reportDir, threshold"), "{err}");
        let err = with_config(r#"{"threshold": "high"}"#).unwrap_err().to_string();
        assert!(err.contains("\"threshold\" has the wrong type (invalid type: string \"high\", expected f64"), "{err}");
        let err = with_config(r#"{"threshold": 3}"#).unwrap_err().to_string();
        assert!(err.contains("\"threshold\" must be a number from 0 to 1"), "{err}");
    }
}
