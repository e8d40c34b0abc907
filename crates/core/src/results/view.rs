//! The sentences a run's results say beyond their snapshots' own verdicts — how many of each,
//! what part of the suite they cover, why there are none — worded once here and rendered by every
//! front-end (the reporter, `sightline compare / merge / report`, the HTML report, the MCP tools).

use super::{Results, ShardPosition, Summary};
use crate::batch::{ShardManifest, list_captures};
use crate::config::ShardMode;
use crate::store::ProjectStore;

impl Summary {
    /// `N snapshots — p passed, c changed, n new[, w written], m missing`: the run summary line of
    /// the reporter and `sightline compare / merge / report`.
    pub fn line(&self) -> String {
        self.line_from("")
    }

    /// [`Summary::line`] of snapshots that came `from` somewhere, e.g. ` from 2 shards`.
    pub fn line_from(&self, from: &str) -> String {
        format!("{}{from} — {}", self.snapshots(), self.counts())
    }

    /// `1 snapshot`, `3 snapshots`.
    fn snapshots(&self) -> String {
        format!("{} snapshot{}", self.total, if self.total == 1 { "" } else { "s" })
    }

    /// `N snapshots — c changed, n new, p passed (a auto-passed)[, w written by an update run];
    /// m missing baselines.`: the counts for a reader who acts on changes first (the MCP answers).
    pub fn attention_line(&self) -> String {
        let written =
            if self.written > 0 { format!(", {} written by an update run", self.written) } else { String::new() };
        format!(
            "{} — {}{} changed, {} new, {} passed ({} auto-passed){written}; {} missing {}.",
            self.snapshots(),
            match self.error {
                0 => String::new(),
                n => format!("{n} not compared (a damaged file), "),
            },
            self.changed,
            self.new,
            self.passed,
            self.auto_passed,
            self.missing,
            if self.missing == 1 { "baseline" } else { "baselines" }
        )
    }
}

impl Results {
    /// What part of the suite these results cover, when not all of it: one shard's slice, or a
    /// run that left tests out (then only known-gone baselines are reported missing).
    pub fn scope_note(&self) -> Option<String> {
        match self.run.shard {
            Some(ShardPosition { current, total }) => Some(format!(
                "Partial results: shard {current}/{total} compared only its slice ({} snapshots). The job that \
                 merges every shard (npx sightline merge) produces the full report; only it can tell missing baselines.",
                self.snapshots.len()
            )),
            None if self.run.filtered => Some(super::FILTERED_RUN_NOTE.to_string()),
            None => None,
        }
    }
}

/// Why `store`'s project has no results at `results` (relative to the root): a capture-only
/// shard, a comparing shard, captures not compared yet, or no run at all — and what to do.
pub fn why_no_results(store: &ProjectStore, results: &str) -> String {
    let captures = list_captures(&store.temp_root()).map_or(0, |c| c.len());
    // An unreadable manifest tells nothing about the run: answered as if there were none.
    let manifest = ShardManifest::read(store).ok().flatten();
    let captures_text = match captures {
        1 => "1 capture is".to_string(),
        n => format!("{n} captures are"),
    };
    match manifest {
        Some(m) if m.mode == ShardMode::CaptureOnly => format!(
            "No results at {results} because this is capture-only shard {}/{}. {captures_text} in .sightline/temp/, \
             but no comparison ran here — a shard sees only its slice of the suite. The job that merges every \
             shard produces the report (npx sightline compare --captures <each shard's .sightline/temp>).",
            m.current, m.total
        ),
        Some(m) => format!(
            "No results at {results}: this is comparing shard {}/{}, and it wrote no partial results ({captures_text} \
             in .sightline/temp/). A shard sees only its slice of the suite; the job that merges every shard \
             (npx sightline merge <each shard's .sightline/temp>) produces the full report.",
            m.current, m.total
        ),
        None if captures > 0 => format!(
            "No results at {results} yet: {captures_text} in .sightline/temp/, but no comparison ran. Compare them \
             with `npx sightline compare` (it writes {results} and the HTML report), then ask again."
        ),
        None => format!(
            "No results at {results}: the tests have not run here yet (no captures in .sightline/temp/). Run the \
             Playwright tests with the sightline reporter (npx playwright test), then ask again."
        ),
    }
}
