//! End-to-end tests of the `sightline` binary on real files.
//!
//! - `bad_input`: the bad-input matrix of the review commands (exit 2, a clear message, no change)
//! - `check_command`: `sightline check` on a served page in real Chromium: `--focus`, unreachable
//! - `confined_writes`: `compare` refuses a symbolic link out of the project (or out of a report
//!   folder configured outside it), naming the link, and changes nothing out there
//! - `damaged_files`: `compare` with a damaged baseline or capture: that snapshot `error`, the
//!   rest compared, results and report written, exit 2; approving replaces a damaged baseline
//! - `design_commands`: `compare-designs` and `compare-motion` on the core's Chromium fixtures
//! - `diff_command`: `sightline diff` exit codes, JSON evidence, diff images, every option, bad input
//! - `extract_frames`: `extract-frames` on a recording made with ffmpeg: manifest and pixels;
//!   scripts, playlists and URLs refused by their bytes; symlinks; the deadline
//! - `faults`: `approve` killed at any moment, a full disk, a file where a folder belongs
//! - `merge_command`: `merge` of compare-mode shard folders against the unsharded run
//! - `review_commands`: `approve`, `list`, `explain`, `report` on a project a run left behind
//! - `worker_protocol`: every method of the browser worker on a served page in real Chromium,
//!   each answer read strictly into the core's protocol types

mod bad_input;
mod check_command;
mod confined_writes;
mod damaged_files;
mod design_commands;
mod diff_command;
mod extract_frames;
mod faults;
mod merge_command;
mod review_commands;
mod support;
mod worker_protocol;
