//! Integration tests of the engine against real files.
//!
//! - `design`: compare_designs on Chromium-rendered pages, one alteration per dimension
//! - `corpus`: locating the shared corpora (ignored when absent, a failure under CI)
//! - `pixelmatch_conformance`: the 12 pixelmatch 7.2 fixtures, exact counts and diff bytes
//! - `compare_evidence`: regions, shift and shape on generated pages
//! - `compare_once`: a failing snapshot compared once, its diff image copied into the report
//! - `atomic_writes`: artifact, baseline and results.json writes cut off by a full disk or a kill
//! - `artifact_files`: capture artifacts written and read as files, against a corpus PNG
//! - `snapshot_verdicts`: status and the one-line verdict for one planted change each
//! - `playwright_comparators`: Playwright's image-tools fixtures through the perceptual and pixelmatch tests

mod artifact_files;
mod atomic_writes;
mod compare_evidence;
mod compare_once;
mod corpus;
mod design;
mod pixelmatch_conformance;
mod playwright_comparators;
mod snapshot_verdicts;
