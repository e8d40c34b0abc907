//! End-to-end tests of the `sightline` binary on real files.
//!
//! - `diff_command`: `sightline diff` exit codes, JSON evidence, diff images, bad input
//! - `review_commands`: `approve`, `list`, `explain`, `report` on a project a run left behind
//! - `faults`: `approve` killed at any moment, a full disk, a file where a folder belongs

mod diff_command;
mod faults;
mod review_commands;
mod support;
