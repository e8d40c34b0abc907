//! The `sightline` binary. Parses arguments and hands each subcommand to its module; all the
//! comparing happens in `sightline-core`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod design;
mod diff;
mod live;
mod mcp;
mod review;
mod review_server;

/// Visual regression evidence for Playwright: pixels, regions, page shift.
#[derive(Parser)]
#[command(name = "sightline", version, about, propagate_version = true)]
struct Cli {
    #[command(flatten)]
    root: review::RootArg,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compare two images (PNG or JPEG), odiff-style. Exit 0 when equal, 1 when different, 2 on bad input.
    Diff(diff::DiffArgs),
    /// Compare every capture in .sightline/temp (or in shard folders) with the baselines, in
    /// parallel, and write results.json and the HTML report.
    Compare(review::CompareArgs),
    /// Combine the partial results of compare-mode shards into one results.json and report.
    Merge(review::MergeArgs),
    /// Approve snapshots: promote this run's captures to the baselines (a human decision).
    Approve(review::ApproveArgs),
    /// List the approved baselines (name and project).
    List,
    /// List the accepted variants of the baselines (other approved states a capture may match),
    /// or remove one with --remove.
    Variants(review::VariantsArgs),
    /// After a run of the whole suite, list the baselines no test captures any more (with the
    /// test that made each) and, with --yes, delete them. Refused after a filtered, sharded,
    /// interrupted or failed run.
    Prune(review::PruneArgs),
    /// The evidence of one snapshot from the last run; `--json` prints it as data.
    Explain(review::ExplainArgs),
    /// Summarise the last run and point at its report; `--open` opens the HTML report.
    Report(review::ReportArgs),
    /// Review the last run in the browser: a page on 127.0.0.1 (behind a random token in its URL)
    /// where one person approves or rejects each changed snapshot, or a group. Runs until stopped.
    Review(review_server::ReviewArgs),
    /// Open a live page in Chromium and look for visual bugs (overflow, clipped or overlapping
    /// text, broken images, failed fonts, console errors, low contrast, small tap targets).
    /// Exit 0 when none, 1 when issues were found, 2 when the page could not be checked.
    Check(live::CheckArgs),
    /// Score how closely a candidate implements a reference design (layout, color, content,
    /// typography, spacing), from pixels alone. Exit 0 with the scores, 2 on bad input.
    CompareDesigns(design::CompareDesignsArgs),
    /// Compare the motion of two frame sequences (folders of PNGs or comma-separated files).
    /// Exit 0 with the result, 2 on bad input.
    CompareMotion(design::CompareMotionArgs),
    /// Sample frames from a recording (.mp4, .mov, .webm) with ffmpeg into a new read-only folder,
    /// with a manifest of which source frame served each time.
    ExtractFrames(design::ExtractFramesArgs),
    /// Serve the review tools to an AI client over MCP (stdio; logs on stderr).
    Mcp(mcp::McpArgs),
}

/// Exit codes shared by every subcommand.
pub mod exit {
    /// No change / success.
    pub const OK: u8 = 0;
    /// Changes found.
    pub const CHANGED: u8 = 1;
    /// Usage or input error.
    pub const BAD_INPUT: u8 = 2;

    /// The exit code of a run's summary: a damaged file is bad input (after every other
    /// snapshot was compared and the report written), anything to review is a change.
    pub fn for_run(summary: &sightline_core::results::Summary) -> u8 {
        if summary.error > 0 {
            BAD_INPUT
        } else if summary.to_review() > 0 {
            CHANGED
        } else {
            OK
        }
    }
}

/// For commands that decode image after image and then exit (`compare`, `diff`): freed pixel
/// buffers stay in the process for the next image. By default glibc serves a buffer of a few
/// MB with a fresh mmap and gives it back on free, so every image is faulted in page by page
/// again: `sightline compare` over 200 snapshots of 1280×2000 took a million page faults and a
/// third of its CPU time in them, and threads faulting at once contend in the kernel. A fixed
/// mmap threshold (32 MiB, glibc's largest) and no trimming keep those buffers in the heap. The
/// long-running MCP server keeps glibc's defaults, so its memory is returned after a large page.
fn keep_freed_pixel_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes glibc's allocation policy; it is called before any thread
    // is started, and both values are in the range glibc accepts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Diff(args) => {
            keep_freed_pixel_memory();
            diff::run(&args)
        }
        Command::Compare(args) => {
            keep_freed_pixel_memory();
            review::run_compare(&cli.root.root, &args)
        }
        Command::Merge(args) => review::run_merge(&cli.root.root, &args),
        Command::Approve(args) => review::run_approve(&cli.root.root, &args),
        Command::List => review::run_list(&cli.root.root),
        Command::Variants(args) => review::run_variants(&cli.root.root, &args),
        Command::Prune(args) => review::run_prune(&cli.root.root, &args),
        Command::Explain(args) => review::run_explain(&cli.root.root, &args),
        Command::Report(args) => review::run_report(&cli.root.root, &args),
        Command::Review(args) => review_server::run_review(&cli.root.root, &args),
        Command::Check(args) => live::run_check(&cli.root.root, &args),
        Command::CompareDesigns(args) => design::run_compare_designs(&args),
        Command::CompareMotion(args) => design::run_compare_motion(&args),
        Command::ExtractFrames(args) => design::run_extract_frames(&cli.root.root, &args),
        Command::Mcp(args) => mcp::run(&cli.root.root, &args),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprintln!("sightline: {err:#}");
            ExitCode::from(exit::BAD_INPUT)
        }
    }
}
