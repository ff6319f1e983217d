//! `--check`: verify manifests with coreutils' lines, messages and exit codes.
//!
//! Each manifest is read as a stream, line by line (`io::lines`, `format::manifest`), the files
//! of the lines at hand hashed in parallel, and the results reported in manifest order
//! (`NAME: OK`, `NAME: FAILED`, `NAME: FAILED open or read`, written by `format::status`), then
//! the summary warnings in coreutils' fixed order (`format::messages`).

use crate::config::{Check, CheckDialect, CheckOptions};
use crate::error::{Error, ExitStatus};
use crate::format::manifest::{parse_b3sum_line, Entry, Line, LineParser, ParseOptions};
use crate::format::messages::Message;
use crate::format::status::{write_b3sum_verdict, write_verdict, Verdict};
use crate::io::parallel::{for_each_ordered, must_run_in_order};
use crate::io::read::{hash_input, hash_inputs, ReadOptions};
use crate::io::Input;
use crate::kernels::engine;
use crate::kernels::{Algorithm, Digest};
use crate::report::Reporter;
use std::ffi::OsStr;
use std::io::{self, Write};
use std::ops::ControlFlow;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

pub fn run(check: &Check, out: &mut (impl Write + Send), reporter: &Reporter) -> ExitStatus {
    if check.dialect == CheckDialect::B3sum {
        return run_b3sum(check, out, reporter);
    }
    // --stats names each of these, in this order, even when none had it.
    reporter.count(|counts| STATUSES.iter().for_each(|word| counts.status(word, 0)));
    let mut all_verified = true;
    for manifest in &check.manifests {
        match check_manifest(check, manifest, out, reporter) {
            Ok(verified) => all_verified &= verified,
            Err(e) => return reporter.output_failed(e, ExitStatus::Failure),
        }
    }
    verified_status(out.flush(), all_verified, reporter)
}

/// The exit status of a verification once its output is written: success only when everything
/// verified and the output went out.
pub(crate) fn verified_status(
    written: io::Result<()>,
    verified: bool,
    reporter: &Reporter,
) -> ExitStatus {
    match written {
        Ok(()) if verified => ExitStatus::Success,
        Ok(()) => ExitStatus::Failure,
        Err(e) => reporter.output_failed(e, ExitStatus::Failure),
    }
}

/// What `--stats` counts of the files a check lists (a missing file is one that could not be
/// read because it is not there).
const STATUSES: [&str; 4] = ["OK", "FAILED", "missing", "unreadable"];

/// Counts kept for one manifest, as coreutils keeps them.
#[derive(Default)]
struct Tally {
    properly_formatted: bool,
    improperly_formatted: u64,
    unreadable: u64,
    mismatched: u64,
    matched_any: bool,
}

/// What the worker hands back for one manifest line.
enum Outcome {
    NotChecked,
    /// The algorithm the file matched under (the line's, or one of its fallbacks), `None`
    /// when it matched under none, or why it could not be read.
    Verified(io::Result<Option<Algorithm>>),
}

/// Hashes the named file and compares, under the line's algorithm and then, only on a
/// mismatch, under each of its fallbacks in turn: the algorithm that matched, if any.
pub(crate) fn verify(
    entry: &Entry,
    input: &Input,
    options: &ReadOptions,
) -> io::Result<Option<Algorithm>> {
    let digest: Digest = hash_input(input, entry.algorithm, options)?;
    if digest == entry.expected {
        return Ok(Some(entry.algorithm));
    }
    verify_fallbacks(entry, input, options)
}

/// After a mismatch under the line's algorithm: the first of its fallbacks the file matches.
fn verify_fallbacks(
    entry: &Entry,
    input: &Input,
    options: &ReadOptions,
) -> io::Result<Option<Algorithm>> {
    for &algorithm in entry.fallbacks {
        let digest: Digest = hash_input(input, algorithm, options)?;
        if digest == entry.expected {
            return Ok(Some(algorithm));
        }
    }
    Ok(None)
}

/// The most lines hashed side by side before their results are written: what the manifest
/// reader holds at once (it never waits for more) bounds a batch too, so memory stays bounded
/// on an endless manifest.
const BATCH_LINES: usize = 4096;

/// Checks one manifest as it is read; `Ok(true)` when everything it lists verified. An `Err`
/// is a failure to write standard output, which ends the run at once, as coreutils ends it.
///
/// Each batch is the lines the reader holds without waiting for more; their files are hashed
/// side by side and reported in manifest order, and standard output is flushed before the
/// reader waits again, so every line's status is out before the next line is needed.
fn check_manifest(
    check: &Check,
    manifest: &Input,
    out: &mut (impl Write + Send),
    reporter: &Reporter,
) -> io::Result<bool> {
    let manifest_name: &[u8] = match manifest {
        Input::Stdin => b"standard input",
        Input::Path(path) => path.as_os_str().as_bytes(),
    };
    // coreutils reports a failed read of a manifest without the system's reason.
    let read_error = Message::ManifestReadError {
        manifest: manifest_name,
    };
    let extensions = check.dialect == CheckDialect::Fasthash;
    let terminator = crate::format::line_end(check.zero_terminated);
    let mut lines = match crate::io::line_reader(manifest, terminator, extensions) {
        Ok(lines) => lines,
        Err(_) if *manifest == Input::Stdin => {
            reporter.say_after(out, &read_error)?;
            return Ok(false);
        }
        Err(source) => {
            let error = Error::Input {
                name: manifest.name_bytes().to_vec(),
                source,
            };
            reporter.error_after(out, &error)?;
            return Ok(false);
        }
    };
    let mut parser = LineParser::new(ParseOptions {
        algorithm: check.algorithm,
        extensions,
        manifest_is_stdin: *manifest == Input::Stdin,
        any_length: check.any_length,
    })
    .with_type_name(check.type_name, check.retag);

    let mut tally = Tally::default();
    let mut line_number = 0;
    let mut batch: Vec<Item> = Vec::new();
    loop {
        if !lines.has_buffered_line() {
            out.flush()?;
        }
        match lines.read_line() {
            Ok(Some(text)) => batch.extend(item(check, &mut parser, &mut line_number, text)),
            Ok(None) => break,
            Err(_) => {
                reporter.say_after(out, &read_error)?;
                return Ok(false);
            }
        }
        while batch.len() < BATCH_LINES {
            let Some(text) = lines.buffered_line() else {
                break;
            };
            batch.extend(item(check, &mut parser, &mut line_number, text));
        }
        check_batch(check, manifest_name, &batch, &mut tally, out, reporter)?;
        batch.clear();
    }
    report_summary(check, manifest_name, &tally, out, reporter)?;

    let options = &check.options;
    Ok(tally.properly_formatted
        && tally.mismatched == 0
        && tally.unreadable == 0
        && (!options.strict || tally.improperly_formatted == 0)
        && (!options.ignore_missing || tally.matched_any))
}

/// Parses the next manifest line: the line to check or report, or `None` for one that does not
/// count (empty, a comment, or a file the walk filters leave out).
fn item(
    check: &Check,
    parser: &mut LineParser,
    line_number: &mut usize,
    text: &[u8],
) -> Option<Item> {
    *line_number += 1;
    let line = parser.parse(text);
    let target = match &line {
        Line::Entry(entry) => Some(Input::from_arg(OsStr::from_bytes(&entry.name).into())),
        Line::Skip => return None,
        Line::Improper => None,
    };
    if let Some(Input::Path(path)) = &target {
        if !check.filter.selects_listed(path) {
            return None;
        }
    }
    Some(Item {
        line_number: *line_number,
        line,
        target,
        type_name: parser.type_name(),
    })
}

/// Verifies a batch of lines, their files hashed side by side, and reports them in order.
fn check_batch(
    check: &Check,
    manifest_name: &[u8],
    items: &[Item],
    tally: &mut Tally,
    out: &mut (impl Write + Send),
    reporter: &Reporter,
) -> io::Result<()> {
    // Standard input named twice is read in order; batches run one after another.
    let threads = if must_run_in_order(items.iter().filter_map(|i| i.target.as_ref())) {
        1
    } else {
        check.run.threads
    };
    // Runs of lines as long as a hashing batch of the first line's algorithm (one line where
    // its engine has no lanes): a run's files of one algorithm go through the lanes together,
    // as `-r` hashes them.
    let batch = items
        .iter()
        .find_map(|item| match &item.line {
            Line::Entry(entry) => Some(engine::chosen(entry.algorithm).batch_size()),
            _ => None,
        })
        .unwrap_or(1);
    let mut write_result = Ok(());
    for_each_ordered(
        items.chunks(batch),
        threads,
        |run| verify_run(run, &check.run.read),
        |_, run, outcomes| {
            for (item, outcome) in run.iter().zip(outcomes) {
                let result = report_line(
                    check,
                    manifest_name,
                    item.line_number,
                    item.type_name,
                    &item.line,
                    outcome,
                    tally,
                    out,
                    reporter,
                );
                if let Err(e) = result {
                    write_result = Err(e);
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        },
    );
    write_result
}

/// Verifies a run of lines: the files of the lines of each algorithm hashed together (side by
/// side where the engine has lanes); a line that did not match is then tried under its
/// fallbacks one by one, as [`verify`] does.
fn verify_run(run: &[Item], options: &ReadOptions) -> Vec<Outcome> {
    let mut outcomes: Vec<Option<Outcome>> = run.iter().map(|_| None).collect();
    let mut algorithms: Vec<Algorithm> = Vec::new();
    for item in run {
        match (&item.line, &item.target) {
            (Line::Entry(entry), Some(_)) if !algorithms.contains(&entry.algorithm) => {
                algorithms.push(entry.algorithm)
            }
            _ => {}
        }
    }
    for algorithm in algorithms {
        let lines: Vec<(usize, &Entry, &Input)> = run
            .iter()
            .enumerate()
            .filter_map(|(index, item)| match (&item.line, &item.target) {
                (Line::Entry(entry), Some(input)) if entry.algorithm == algorithm => {
                    Some((index, entry, input))
                }
                _ => None,
            })
            .collect();
        let inputs: Vec<&Input> = lines.iter().map(|(_, _, input)| *input).collect();
        let digests = hash_inputs(&inputs, algorithm, options);
        for ((index, entry, input), digest) in lines.into_iter().zip(digests) {
            let verdict = match digest {
                Ok(digest) if digest == entry.expected => Ok(Some(algorithm)),
                Ok(_) => verify_fallbacks(entry, input, options),
                Err(error) => Err(error),
            };
            outcomes[index] = Some(Outcome::Verified(verdict));
        }
    }
    outcomes
        .into_iter()
        .map(|outcome| outcome.unwrap_or(Outcome::NotChecked))
        .collect()
}

/// One manifest line that counts: what it says, and the file it names.
struct Item {
    line_number: usize,
    line: Line,
    target: Option<Input>,
    /// The algorithm a malformed line is reported under (cksum's changes line by line).
    type_name: Option<&'static str>,
}

#[allow(clippy::too_many_arguments)]
fn report_line(
    check: &Check,
    manifest_name: &[u8],
    line_number: usize,
    type_name: Option<&'static str>,
    line: &Line,
    outcome: Outcome,
    tally: &mut Tally,
    out: &mut impl Write,
    reporter: &Reporter,
) -> io::Result<()> {
    let options: &CheckOptions = &check.options;
    match (line, outcome) {
        (Line::Improper, _) => {
            tally.improperly_formatted += 1;
            if options.warn {
                let improper = Message::ImproperLine {
                    manifest: manifest_name,
                    line_number,
                    algorithm: type_name,
                };
                reporter.say_after(out, &improper)?;
            }
            Ok(())
        }
        (Line::Entry(entry), Outcome::Verified(result)) => {
            tally.properly_formatted = true;
            reporter.count(|counts| counts.status(stats_status(&result), 1));
            match result {
                Err(e) if options.ignore_missing && e.kind() == io::ErrorKind::NotFound => Ok(()),
                Err(source) => {
                    tally.unreadable += 1;
                    reporter.error_after(
                        out,
                        &Error::Input {
                            name: entry.name.clone(),
                            source,
                        },
                    )?;
                    write_status(out, options, &entry.name, Verdict::Unreadable)
                }
                Ok(Some(matched)) => {
                    tally.matched_any = true;
                    if check.run.debug && matched != entry.algorithm {
                        // Only an untagged line has fallbacks; say which reading matched.
                        let matched_as = Message::MatchedAs {
                            name: &entry.name,
                            matched,
                            listed: entry.algorithm,
                        };
                        reporter.say_after(out, &matched_as)?;
                    }
                    if options.quiet {
                        return Ok(());
                    }
                    write_status(out, options, &entry.name, Verdict::Ok)
                }
                Ok(None) => {
                    tally.mismatched += 1;
                    write_status(out, options, &entry.name, Verdict::Failed)
                }
            }
        }
        (Line::Entry(_), Outcome::NotChecked) | (Line::Skip, _) => Ok(()),
    }
}

/// The word `--stats` counts a verified line under (one of [`STATUSES`]).
fn stats_status(result: &io::Result<Option<Algorithm>>) -> &'static str {
    match result {
        Ok(Some(_)) => "OK",
        Ok(None) => "FAILED",
        Err(e) if e.kind() == io::ErrorKind::NotFound => "missing",
        Err(_) => "unreadable",
    }
}

/// A check line's verdict, unless `--status` keeps them all back.
fn write_status(
    out: &mut impl Write,
    options: &CheckOptions,
    name: &[u8],
    verdict: Verdict,
) -> io::Result<()> {
    if options.status {
        return Ok(());
    }
    write_verdict(out, name, verdict)
}

/// coreutils' warnings after a manifest, in its order.
fn report_summary(
    check: &Check,
    manifest_name: &[u8],
    tally: &Tally,
    out: &mut impl Write,
    reporter: &Reporter,
) -> io::Result<()> {
    let manifest = manifest_name;
    if !tally.properly_formatted {
        return reporter.say_after(out, &Message::NoProperLines { manifest });
    }
    if check.options.status {
        return Ok(());
    }
    let warnings = [
        (tally.improperly_formatted > 0).then_some(Message::Improper(tally.improperly_formatted)),
        (tally.unreadable > 0).then_some(Message::Unreadable(tally.unreadable)),
        (tally.mismatched > 0).then_some(Message::Mismatched(tally.mismatched)),
        (check.options.ignore_missing && !tally.matched_any)
            .then_some(Message::NoFileVerified { manifest }),
    ];
    for warning in warnings.iter().flatten() {
        reporter.say_after(out, warning)?;
    }
    Ok(())
}

/// `b3sum -c`: b3sum's own rules and words (b3sum 1.8), which differ from coreutils' at every
/// turn. Each line is parsed by [`parse_b3sum_line`]; a line that does not parse is reported as
/// `b3sum: REASON` and counts as a failure, like a file that cannot be read (`NAME: FAILED
/// (REASON)`, on stdout) or does not match. One warning at the end counts all of them. A
/// checkfile that cannot be opened, or a line that is not UTF-8, ends the run there with
/// `Error: REASON` and no warning, as b3sum's `main` returning its error does.
fn run_b3sum(check: &Check, out: &mut impl Write, reporter: &Reporter) -> ExitStatus {
    let mut failed: u64 = 0;
    let outcome = check_b3sum_files(check, out, reporter, &mut failed);
    match outcome.and_then(|fatal| out.flush().map(|()| fatal)) {
        Ok(None) if failed == 0 => ExitStatus::Success,
        Ok(None) => {
            reporter.say(&Message::B3sumFailures(failed));
            ExitStatus::Failure
        }
        Ok(Some(fatal)) => {
            crate::report::write_stderr(format!("Error: {fatal}\n").as_bytes());
            ExitStatus::Failure
        }
        Err(e) => reporter.output_failed(e, ExitStatus::Failure),
    }
}

/// The checkfiles of `b3sum -c`, in order, counting failures in `failed`: `Ok(Some(reason))`
/// for an error that ends the run, `Err` for a failed write to standard output.
fn check_b3sum_files(
    check: &Check,
    out: &mut impl Write,
    reporter: &Reporter,
    failed: &mut u64,
) -> io::Result<Option<String>> {
    for checkfile in &check.manifests {
        // Read as a stream, each line checked and its status written before the next is read.
        let mut lines = match crate::io::line_reader(checkfile, b'\n', false) {
            Ok(lines) => lines,
            Err(e) => return Ok(Some(e.to_string())),
        };
        loop {
            if !lines.has_buffered_line() {
                out.flush()?;
            }
            let line = match lines.read_line() {
                Ok(Some(line)) => line,
                Ok(None) => break,
                Err(e) => return Ok(Some(e.to_string())),
            };
            let Ok(line) = std::str::from_utf8(line) else {
                return Ok(Some("stream did not contain valid UTF-8".into()));
            };
            let parsed = match parse_b3sum_line(line) {
                Ok(parsed) => parsed,
                Err(reason) => {
                    *failed += 1;
                    reporter.say_after(out, &Message::B3sumLine(reason))?;
                    continue;
                }
            };
            let input = Input::Path(PathBuf::from(&parsed.path));
            let verdict = hash_input(&input, Algorithm::Blake3, &check.run.read)
                .map(|digest| digest == parsed.expected);
            if verdict.as_ref().is_ok_and(|matched| *matched) {
                if check.options.quiet {
                    continue;
                }
            } else {
                *failed += 1;
            }
            write_b3sum_verdict(out, &parsed.shown, verdict.as_ref().map(|m| *m))?;
        }
    }
    Ok(None)
}
