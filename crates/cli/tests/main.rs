//! End-to-end tests of the `sightline` binary on real files.
//!
//! - `diff_command`: `sightline diff` exit codes, JSON evidence, diff images, bad input

mod diff_command;
