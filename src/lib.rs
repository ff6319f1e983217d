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
use format::messages::Message;
use report::{Counts, Reporter, Verified};
use std::io::Write;

/// Sends the kernels' warnings (an engine that failed its self-check) to standard error as
/// `PROGRAM: warning: ...`, under the name the program was called by. `main` calls it first,
/// before anything can choose an engine.
pub fn name_warnings(program: &str) {
    let program = program.to_string();
    kernels::table::set_warning_sink(move |message| {
        report::write_stderr(format!("{program}: warning: {message}\n").as_bytes());
    });
}

/// Runs a validated configuration to its exit status.
pub fn run(config: &Config) -> ExitStatus {
    let reporter = Reporter::new(&config.invocation);
    let line_end = format::line_end;
    match &config.mode {
        Mode::Hash(hash) => run_over_files(
            config,
            &reporter,
            &hash.run,
            hash.output.line_end(),
            |out| hash::run(hash, out, &reporter),
        ),
        Mode::S3Values(values) => run_over_files(
            config,
            &reporter,
            &values.run,
            line_end(values.zero_terminated),
            |out| hash::run_s3(values, out, &reporter),
        ),
        // Status lines and JSON objects end in a newline whatever -z says (`format::status`).
        Mode::Check(check) => run_over_files(config, &reporter, &check.run, b'\n', |out| {
            let checked = check::run(check, out, &reporter);
            (
                checked.status,
                Counts::verified(Verified::Check(checked.tally)),
            )
        }),
        Mode::Audit(audit) => run_over_files(config, &reporter, &audit.check.run, b'\n', |out| {
            let audited = audit::run(audit, out, &reporter);
            (
                audited.status,
                Counts::verified(Verified::Audit(audited.tally)),
            )
        }),
        Mode::VerifyS3(verify) => run_over_files(config, &reporter, &verify.run, b'\n', |out| {
            s3::verify::run(verify, out, &reporter)
        }),
        Mode::VerifyBucket(bucket) => {
            run_over_files(config, &reporter, &bucket.run, b'\n', |out| {
                let (status, tally) = s3::bucket::run(bucket, out, &reporter);
                (status, Counts::verified(Verified::Bucket(tally)))
            })
        }
        Mode::Merge(merge) => run_over_files(config, &reporter, &merge.run, b'\n', |out| {
            (merge::run(merge, out, &reporter), Counts::default())
        }),
        Mode::Bench(options) => {
            let mut stdout = std::io::stdout().lock();
            print_status(&reporter, bench::run(options, &mut stdout))
        }
        // --help and --version as coreutils writes them: a closed stdout is a write error
        // (`>&-`; its tests/misc/io-errors.sh checks it for every program).
        Mode::Print(text) => print_status(&reporter, io::RawStdout.write_all(text.as_bytes())),
        Mode::B3sumExtended(cli) => dropin::b3sum::run(cli),
    }
}

/// What every mode that reads files does around its work: the threads, `--debug`'s kernel
/// lines, the cache loaded before and saved after, and standard output in whole lines ending
/// in `line_end`. `work` returns its status and what it did, for `--stats`.
fn run_over_files(
    config: &Config,
    reporter: &Reporter,
    settings: &io::settings::RunSettings,
    line_end: u8,
    work: impl FnOnce(&mut io::WholeLines<io::RawStdout>) -> (ExitStatus, Counts) + Send,
) -> ExitStatus {
    io::parallel::configure_threads(settings.threads);
    io::descriptors::prepare();
    if settings.debug {
        // Check mode learns its algorithms line by line, so it names them all.
        let algorithms: Vec<_> = config
            .mode
            .algorithms()
            .unwrap_or_else(|| kernels::Algorithm::all().collect());
        for algorithm in algorithms {
            reporter.say(&Message::Kernel(algorithm));
        }
    }
    if let Some(path) = &settings.cache {
        if let Some(ignored) = io::cache::activate(path) {
            reporter.say(&Message::CacheIgnored {
                path,
                ignored: &ignored,
            });
        }
    }
    let started = std::time::Instant::now();
    let bytes_before = io::read::BYTES_HASHED.load(std::sync::atomic::Ordering::Relaxed);
    let (status, counts) =
        io::parallel::in_pool(|| work(&mut io::WholeLines::new(io::RawStdout, line_end)));
    let bytes = io::read::BYTES_HASHED.load(std::sync::atomic::Ordering::Relaxed) - bytes_before;
    let seconds = started.elapsed().as_secs_f64();
    if let (true, Some(filter)) = (settings.debug, config.mode.filter()) {
        for (option, pattern) in filter.unmatched() {
            reporter.say(&Message::FilterMatchedNothing { option, pattern });
        }
    }
    if let (Some(cache), Some(path)) = (io::cache::active(), &settings.cache) {
        if settings.debug {
            let (hits, misses) = cache.counts();
            reporter.say(&Message::CacheCounts { path, hits, misses });
        }
        if let Err(error) = cache.save() {
            reporter.say(&Message::CacheNotWritten {
                path,
                error: &error,
            });
        }
    }
    if settings.stats {
        reporter.say(&Message::Stats {
            counts: &counts,
            bytes,
            seconds,
        });
    }
    // coreutils closes a standard input it read at exit, and a closed one fails that too.
    if io::stdin_was_wanted_while_closed() && config.invocation.personality.is_coreutils() {
        reporter.say(&Message::ClosedStandardInput);
        return ExitStatus::Failure;
    }
    status
}

/// The status of a mode that only prints.
fn print_status(reporter: &Reporter, written: std::io::Result<()>) -> ExitStatus {
    match written {
        Ok(()) => ExitStatus::Success,
        Err(e) => reporter.output_failed(e, ExitStatus::Success),
    }
}
