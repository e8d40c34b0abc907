//! End-to-end tests of the `sightline` binary on real files.
//!
//! - `design_commands`: `compare-designs` and `compare-motion` on the core's Chromium fixtures
//! - `diff_command`: `sightline diff` exit codes, JSON evidence, diff images, bad input
//! - `review_commands`: `approve`, `list`, `explain`, `report` on a project a run left behind

mod design_commands;
mod diff_command;
mod review_commands;
