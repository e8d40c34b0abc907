//! End-to-end tests of the `sightline` binary on real files.
//!
//! - `bad_input`: the bad-input matrix of the review commands (exit 2, a clear message, no change)
//! - `design_commands`: `compare-designs` and `compare-motion` on the core's Chromium fixtures
//! - `diff_command`: `sightline diff` exit codes, JSON evidence, diff images, bad input
//! - `review_commands`: `approve`, `list`, `explain`, `report` on a project a run left behind
//! - `faults`: `approve` killed at any moment, a full disk, a file where a folder belongs

mod bad_input;
mod design_commands;
mod diff_command;
mod faults;
mod review_commands;
mod support;
