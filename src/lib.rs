//! fasthash: compute and verify checksums, byte-compatible with coreutils, b3sum and xxhsum.
//!
//! `main.rs` parses into a [`config::Config`] and calls [`run`]; algorithms and CPU dispatch
//! live in [`kernels`], reading and parallelism in [`io`], every text in and out in [`format`].

pub mod audit;
pub mod bench;
pub mod check;
pub mod cli;
pub mod config;
pub mod dropin;
pub mod error;
pub mod format;
pub mod generate;
pub mod hash;
pub mod io;
pub mod kernels;
pub mod merge;
pub mod report;
pub mod s3;

use config::{Config, Mode};
use error::ExitStatus;
use report::Reporter;

/// Runs a validated configuration to its exit status.
pub fn run(config: &Config) -> ExitStatus {
    io::parallel::configure_threads(config.threads);
    let reporter = Reporter::new(config.personality, config.program.clone());
    let terminator = if config.style.zero_terminated {
        b'\0'
    } else {
        b'\n'
    };
    if config.debug {
        // Check mode learns its algorithms line by line, so it names them all.
        let algorithms: Vec<_> = match config.algorithm {
            Some(algorithm) => vec![algorithm],
            None => kernels::Algorithm::all().collect(),
        };
        for algorithm in algorithms {
            reporter.message(format::kernels::debug_line(algorithm).as_bytes());
        }
    }
    if let Some(path) = &config.cache {
        if let Some(warning) = io::cache::activate(path) {
            reporter.message(format!("warning: {warning}").as_bytes());
        }
    }
    let mut out = io::WholeLines::new(io::RawStdout, terminator);
    let status = match (config.mode, config.algorithm) {
        (Mode::Hash, Some(algorithm)) => hash::run(config, algorithm, &mut out, &reporter),
        // Config always sets an algorithm for hash mode; without one there is nothing to do.
        (Mode::Hash, None) => ExitStatus::Usage,
        (Mode::Check, _) => check::run(config, &mut out, &reporter),
        (Mode::VerifyS3, _) => s3::verify::run(config, &mut out, &reporter),
        (Mode::Merge, _) => merge::run(config, &mut out, &reporter),
    };
    if let Some(cache) = io::cache::active() {
        if config.debug {
            reporter.message(cache.summary().as_bytes());
        }
        if let Err(e) = cache.save() {
            let path = config.cache.as_deref().unwrap_or(std::path::Path::new(""));
            reporter.message(
                format!("warning: could not write the cache {}: {e}", path.display()).as_bytes(),
            );
        }
    }
    // coreutils closes a standard input it read at exit, and a closed one fails that too.
    if io::stdin_was_wanted_while_closed()
        && matches!(config.personality, cli::Personality::Coreutils { .. })
    {
        reporter.message(b"standard input: Bad file descriptor");
        return ExitStatus::Failure;
    }
    status
}
