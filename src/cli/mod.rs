//! Argument parsing and command wiring. No measuring logic lives here.

mod advise;
mod args;
mod baseline;
mod compare;
mod ftp_baseline;
mod lab;
mod measure;
mod report;
mod server_side;
mod size;
mod sweep;
mod targets;

use args::{Cli, Command};
use clap::error::ErrorKind;
use clap::Parser;

/// Exit code for bad input (as clap uses for usage errors).
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit code for a failure during measurement.
pub const EXIT_FAILED: i32 = 1;
/// Exit code after SIGINT/SIGTERM, as a shell reports a process ended by SIGINT.
pub const EXIT_INTERRUPTED: i32 = 130;

/// Why a command ended unsuccessfully: one sentence and an exit code.
#[derive(Debug)]
pub struct Failure {
    pub code: i32,
    pub message: String,
}

impl Failure {
    pub fn bad_input(message: impl Into<String>) -> Failure {
        Failure {
            code: EXIT_BAD_INPUT,
            message: message.into(),
        }
    }

    pub fn failed(message: impl Into<String>) -> Failure {
        Failure {
            code: EXIT_FAILED,
            message: message.into(),
        }
    }

    /// An exit code passed through from a command that has already said why it failed.
    pub fn quiet(code: i32) -> Failure {
        Failure {
            code,
            message: String::new(),
        }
    }
}

/// A result document, typed and as it was; anything else is bad input in one sentence.
fn read_results(
    path: &std::path::Path,
) -> Result<(crate::result::Document, serde_json::Value), Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::bad_input(format!("cannot read {}: {e}.", path.display())))?;
    let not_results = |e: serde_json::Error| {
        Failure::bad_input(format!(
            "{} is not a sharebench result document: {e}.",
            path.display()
        ))
    };
    let value: serde_json::Value = serde_json::from_str(&text).map_err(not_results)?;
    let document = serde_json::from_value(value.clone()).map_err(not_results)?;
    Ok((document, value))
}

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            print!("{e}");
            return 0;
        }
        Err(e) => {
            // clap's first line is the sentence; usage and hints would bury it
            let rendered = e.render().to_string();
            let first = rendered.lines().next().unwrap_or("invalid arguments");
            eprintln!("sharebench: {}", first.trim_start_matches("error: "));
            return EXIT_BAD_INPUT;
        }
    };
    let outcome = match cli.command {
        Command::Run(args) => measure::run(args),
        Command::Matrix(args) => measure::matrix(args),
        Command::Bigdir(args) => measure::bigdir(args),
        Command::Lab { command } => lab::run(command),
        Command::Baseline { command } => baseline::run(command),
        Command::Serve(args) => baseline::serve(args),
        Command::Size(args) => size::run(args),
        Command::Advise(args) => advise::run(args),
        Command::Sweep(args) => sweep::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Report(args) => report::run(args),
    };
    match outcome {
        Ok(()) => 0,
        Err(failure) => {
            if !failure.message.is_empty() {
                eprintln!("sharebench: {}", failure.message);
            }
            failure.code
        }
    }
}
