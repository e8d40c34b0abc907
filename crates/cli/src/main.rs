//! The `sightline` binary. Parses arguments and hands each subcommand to its module; all the
//! comparing happens in `sightline-core`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod diff;

/// Visual regression evidence for Playwright: pixels, regions, page shift.
#[derive(Parser)]
#[command(name = "sightline", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compare two images (PNG or JPEG), odiff-style. Exit 0 when equal, 1 when different, 2 on bad input.
    Diff(diff::DiffArgs),
}

/// Exit codes shared by every subcommand.
pub mod exit {
    /// No change / success.
    pub const OK: u8 = 0;
    /// Changes found.
    pub const CHANGED: u8 = 1;
    /// Usage or input error.
    pub const BAD_INPUT: u8 = 2;
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Diff(args) => diff::run(&args),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprintln!("sightline: {err:#}");
            ExitCode::from(exit::BAD_INPUT)
        }
    }
}
