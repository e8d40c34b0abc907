//! The TypeScript types of the settings, generated from their one declaration: what a user's
//! editor shows for `toMatchVisual`'s options and `.sightline/config.json`. The text is committed
//! as `playwright-fixtures/options.d.ts`; a test fails when it drifts from [`options_dts`].

use super::{Animations, Caret, Clip, KEYS, Scale, ShardMode, Source};
use crate::layout::BaselineLayout;

/// A Rust type as a user writes it in TypeScript.
pub trait TsType {
    const TS: &'static str;
}

impl TsType for f64 {
    const TS: &'static str = "number";
}

impl TsType for bool {
    const TS: &'static str = "boolean";
}

impl TsType for String {
    const TS: &'static str = "string";
}

impl TsType for Vec<String> {
    const TS: &'static str = "string[]";
}

impl TsType for Animations {
    const TS: &'static str = "'disabled' | 'allow'";
}

impl TsType for Caret {
    const TS: &'static str = "'hide' | 'initial'";
}

impl TsType for Scale {
    const TS: &'static str = "'css' | 'device'";
}

impl TsType for ShardMode {
    const TS: &'static str = "'compare' | 'capture-only'";
}

impl TsType for Clip {
    const TS: &'static str = "{ x: number; y: number; width: number; height: number }";
}

impl TsType for BaselineLayout {
    const TS: &'static str = "string";
}

/// `playwright-fixtures/options.d.ts`: the options of a `toMatchVisual` call, the keys of
/// `.sightline/config.json`, and the settings a call resolves to.
pub fn options_dts() -> String {
    let mut out = String::from(
        "// Generated from crates/core/src/config/mod.rs (the one declaration of the settings): do not edit.\n\
         // `cargo test -p sightline-core typescript` checks it; SIGHTLINE_WRITE_TYPES=1 rewrites it.\n\
         import type { Locator } from '@playwright/test';\n",
    );
    interface(
        &mut out,
        "Options of one `toMatchVisual` call; each overrides `.sightline/config.json` for this call.",
        "ToMatchVisualOptions",
        KEYS.iter().filter(|k| k.sources.contains(&Source::Call)).map(|k| (k, true, k.ts)),
    );
    interface(
        &mut out,
        "`.sightline/config.json`: every key optional, with the defaults below.",
        "SightlineConfig",
        KEYS.iter().filter(|k| k.sources.contains(&Source::File)).map(|k| (k, true, file_ts(k.ts))),
    );
    interface(
        &mut out,
        "The settings one call resolves to: the defaults, Playwright's `expect.toHaveScreenshot`, \
         the config file and the call, lowest first.",
        "ResolvedSettings",
        KEYS.iter().map(|k| (k, k.optional && k.name != "styleProperties", resolved_ts(k.name, k.ts))),
    );
    out
}

/// The config file holds JSON: selectors, not Locators.
fn file_ts(ts: &'static str) -> &'static str {
    if ts == "Array<Locator | string>" { "string[]" } else { ts }
}

/// Resolved, every list is a list and every selector a string.
fn resolved_ts(name: &str, ts: &'static str) -> &'static str {
    match name {
        "mask" | "stylePath" => "string[]",
        _ => ts,
    }
}

fn interface<'a>(
    out: &mut String,
    doc: &str,
    name: &str,
    fields: impl Iterator<Item = (&'a super::Key, bool, &'a str)>,
) {
    out.push_str(&format!("\n/** {doc} */\nexport interface {name} {{\n"));
    for (key, optional, ts) in fields {
        let lines: Vec<&str> = key.doc.lines().map(str::trim).collect();
        if let [line] = lines.as_slice() {
            out.push_str(&format!("  /** {line} */\n"));
        } else {
            out.push_str("  /**\n");
            for line in lines {
                out.push_str(&format!("   * {line}\n"));
            }
            out.push_str("   */\n");
        }
        out.push_str(&format!("  {}{}: {ts};\n", key.name, if optional { "?" } else { "" }));
    }
    out.push_str("}\n");
}
