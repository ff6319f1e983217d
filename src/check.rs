//! `--check`: verify manifests with coreutils' lines, messages and exit codes.
//!
//! Each manifest is read as a stream, line by line (`io::lines`, `format::manifest`), the files
//! of the lines at hand hashed in parallel, and the results reported in manifest order
//! (`NAME: OK`, `NAME: FAILED`, `NAME: FAILED open or read`, written by `format::status`), then
//! the summary warnings in coreutils' fixed order (`format::messages`). With `--json` each
//! status is an object, and one summary object ends the run in place of the warnings.

use crate::dropin::CheckDialect;
use crate::error::{Error, ExitStatus};
use crate::format::manifest::{parse_b3sum_line, Entry, Line, LineParser, ParseOptions, Retag};
use crate::format::messages::Message;
use crate::format::status::{
    write_b3sum_verdict, write_improper_json, write_status, write_summary_json, FileStatus, Listed,
    ManifestSummary, Summary,
};
use crate::io::open::{open_ahead, Ahead};
use crate::io::parallel::{for_each_ordered, must_run_in_order};
use crate::io::read::{hash_input, hash_inputs, ReadOptions};
use crate::io::settings::RunSettings;
use crate::io::walk::Filter;
use crate::io::Input;
use crate::kernels::table;
use crate::kernels::{Algorithm, Digest};
use crate::report::Reporter;
use std::ffi::OsStr;
use std::io::{self, Write};
use std::ops::ControlFlow;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

#[derive(Debug)]
pub struct Check {
    pub manifests: Vec<Input>,
    /// Set by `-a` or by the drop-in name; `None` lets each line decide.
    pub algorithm: Option<Algorithm>,
    pub options: CheckOptions,
    pub dialect: CheckDialect,
    /// `-z`: manifest lines end with NUL.
    pub zero_terminated: bool,
    /// `b2sum -c` and `cksum -c` without `-l`: each line's length picks the family's member.
    pub any_length: bool,
    /// The algorithm `--check --warn` names in its malformed-line message, and how cksum
    /// changes it line by line.
    pub type_name: Option<&'static str>,
    pub retag: Retag,
    /// Digests may be written in base64: under fasthash's name and cksum's, not md5sum's,
    /// sha*sum's or b2sum's (coreutils builds only cksum to read them).
    pub base64_digests: bool,
    /// `--exclude`/`--include`: the listed files to check.
    pub filter: Filter,
    /// `--json`: the statuses and the summary as JSON objects, one a line.
    pub json: bool,
    pub run: RunSettings,
}

impl Check {
    /// How the run's manifest lines are read: by coreutils' rules under its names, with
    /// fasthash's extensions under fasthash's (`format::manifest`).
    pub(crate) fn parse_options(&self) -> ParseOptions {
        let fasthash = self.dialect == CheckDialect::Fasthash;
        ParseOptions {
            algorithm: self.algorithm,
            extensions: fasthash,
            manifest_is_stdin: false,
            any_length: self.any_length,
            base64: self.base64_digests,
            layout_per_manifest: fasthash,
        }
    }
}

/// `--check` options, with coreutils' meanings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckOptions {
    pub ignore_missing: bool,
    pub quiet: bool,
    pub status: bool,
    pub strict: bool,
    pub warn: bool,
}

/// What a check or an audit counted over the whole run (and, in a check, in each manifest):
/// one number a kind of file or manifest line. The summaries (coreutils' warnings, the audit's
/// line, the JSON summary object) are written from it, and the run returns it, so whatever
/// else reports on a run reads the same numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub ok: u64,
    /// Read, and the digest differs.
    pub failed: u64,
    /// Could not be opened or read.
    pub unreadable: u64,
    /// Listed and not there: passed over by a check's `--ignore-missing` (without it a missing
    /// file is unreadable), `MISSING` in an audit.
    pub missing: u64,
    /// An audit's renamed files.
    pub moved: u64,
    /// An audit's files that no manifest lists.
    pub new: u64,
    /// Manifest lines that are not checksum lines.
    pub improper: u64,
}

impl Tally {
    /// Each count with its name in the JSON summary, in the order of the audit's summary.
    pub fn counts(&self) -> [(&'static str, u64); 7] {
        [
            ("ok", self.ok),
            ("failed", self.failed),
            ("unreadable", self.unreadable),
            ("missing", self.missing),
            ("moved", self.moved),
            ("new", self.new),
            ("improper", self.improper),
        ]
    }

    /// The sum of `tallies`.
    pub(crate) fn total<'a>(tallies: impl IntoIterator<Item = &'a Tally>) -> Tally {
        let mut total = Tally::default();
        for tally in tallies {
            total.add(tally);
        }
        total
    }

    pub(crate) fn add(&mut self, other: &Tally) {
        self.ok += other.ok;
        self.failed += other.failed;
        self.unreadable += other.unreadable;
        self.missing += other.missing;
        self.moved += other.moved;
        self.new += other.new;
        self.improper += other.improper;
    }

    /// Counts one file's status.
    pub(crate) fn count(&mut self, status: &FileStatus) {
        *match status {
            FileStatus::Ok => &mut self.ok,
            FileStatus::Failed => &mut self.failed,
            FileStatus::Unreadable(_) => &mut self.unreadable,
            FileStatus::Missing => &mut self.missing,
            FileStatus::Moved { .. } => &mut self.moved,
            FileStatus::New => &mut self.new,
        } += 1;
    }

    /// Whether some line named a file: what coreutils calls a properly formatted line.
    fn any_listed(&self) -> bool {
        self.ok + self.failed + self.unreadable + self.missing + self.moved > 0
    }
}

/// How a check or an audit ended: its exit status, and what it counted.
#[derive(Debug)]
pub struct Checked {
    pub status: ExitStatus,
    pub tally: Tally,
}

pub fn run(check: &Check, out: &mut (impl Write + Send), reporter: &Reporter) -> Checked {
    if check.dialect == CheckDialect::B3sum {
        return run_b3sum(check, out, reporter);
    }
    let mut manifests: Vec<ManifestCheck> = Vec::new();
    let total = |manifests: &[ManifestCheck]| Tally::total(manifests.iter().map(|m| &m.tally));
    // One parser for the run: what coreutils remembers from one manifest to the next, it does.
    let mut parser =
        LineParser::new(check.parse_options()).with_type_name(check.type_name, check.retag);
    for manifest in &check.manifests {
        match check_manifest(check, manifest, &mut parser, out, reporter) {
            Ok(checked) => manifests.push(checked),
            Err(e) => {
                let status = reporter.output_failed(e, ExitStatus::Failure);
                let tally = total(&manifests);
                return Checked { status, tally };
            }
        }
    }
    let tally = total(&manifests);
    let verified = manifests.iter().all(|m| m.verified(&check.options));
    let written = if check.json && !check.options.status {
        let summary = Summary {
            verified,
            tally,
            manifests: manifests
                .iter()
                .map(|m| m.summary(&check.options))
                .collect(),
            tree: None,
        };
        write_summary_json(out, &summary)
    } else {
        Ok(())
    };
    let status = verified_status(written.and_then(|()| out.flush()), verified, reporter);
    Checked { status, tally }
}

/// One manifest checked: its name as given (`-` for standard input), its counts, and why it
/// could not be read to its end, if it could not.
struct ManifestCheck {
    name: Vec<u8>,
    tally: Tally,
    error: Option<String>,
}

/// coreutils' failures of a manifest read to its end that are not a file's: each fails the
/// check and has its own warning.
struct NothingChecked {
    /// `no properly formatted checksum lines found`: no line named a file.
    no_proper_lines: bool,
    /// `no file was verified`: under `--ignore-missing`, every file named was missing.
    no_file_verified: bool,
}

impl ManifestCheck {
    /// coreutils' verdict on a manifest: everything it lists verified, and it listed something.
    fn verified(&self, options: &CheckOptions) -> bool {
        let tally = &self.tally;
        let nothing = self.nothing_checked(options);
        self.error.is_none()
            && !nothing.no_proper_lines
            && !nothing.no_file_verified
            && tally.failed == 0
            && tally.unreadable == 0
            && (!options.strict || tally.improper == 0)
    }

    /// Which of [`NothingChecked`]'s failures the manifest has: neither when it could not be
    /// read, as its read error is reported instead.
    fn nothing_checked(&self, options: &CheckOptions) -> NothingChecked {
        let read = self.error.is_none();
        let listed = self.tally.any_listed();
        NothingChecked {
            no_proper_lines: read && !listed,
            no_file_verified: read && listed && options.ignore_missing && self.tally.ok == 0,
        }
    }

    fn summary(&self, options: &CheckOptions) -> ManifestSummary<'_> {
        let nothing = self.nothing_checked(options);
        ManifestSummary {
            name: &self.name,
            tally: self.tally,
            error: self.error.clone(),
            no_proper_lines: nothing.no_proper_lines,
            no_file_verified: nothing.no_file_verified,
        }
    }
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

/// Checks one manifest as it is read, counting what it finds. An `Err` is a failure to write
/// standard output, which ends the run at once, as coreutils ends it.
///
/// Each batch is the lines the reader holds without waiting for more; their files are hashed
/// side by side and reported in manifest order, and standard output is flushed before the
/// reader waits again, so every line's status is out before the next line is needed.
fn check_manifest(
    check: &Check,
    manifest: &Input,
    parser: &mut LineParser,
    out: &mut (impl Write + Send),
    reporter: &Reporter,
) -> io::Result<ManifestCheck> {
    let manifest_name = message_name(manifest);
    // coreutils reports a failed read of a manifest without the system's reason.
    let read_error = Message::ManifestReadError {
        manifest: manifest_name,
    };
    let mut checked = ManifestCheck {
        name: manifest.name_bytes().to_vec(),
        tally: Tally::default(),
        error: None,
    };
    let extensions = check.dialect == CheckDialect::Fasthash;
    let terminator = crate::format::line_end(check.zero_terminated);
    let mut lines = match crate::io::line_reader(manifest, terminator, extensions) {
        Ok(lines) => lines,
        Err(source) => {
            checked.error = Some(crate::error::os_error_text(&source));
            if *manifest == Input::Stdin {
                reporter.say_after(out, &read_error)?;
            } else {
                let error = Error::Input {
                    name: manifest.name_bytes().to_vec(),
                    source,
                };
                reporter.error_after(out, &error)?;
            }
            return Ok(checked);
        }
    };
    parser.next_manifest(*manifest == Input::Stdin);

    let mut line_number = 0;
    let mut batch: Vec<Item> = Vec::new();
    loop {
        if !lines.has_buffered_line() {
            out.flush()?;
        }
        match lines.read_line() {
            Ok(Some(text)) => batch.extend(item(check, parser, &mut line_number, text)),
            Ok(None) => break,
            Err(source) => {
                checked.error = Some(crate::error::os_error_text(&source));
                reporter.say_after(out, &read_error)?;
                return Ok(checked);
            }
        }
        while batch.len() < BATCH_LINES {
            let Some(text) = lines.buffered_line() else {
                break;
            };
            batch.extend(item(check, parser, &mut line_number, text));
        }
        check_batch(check, manifest, &batch, &mut checked.tally, out, reporter)?;
        batch.clear();
    }
    report_summary(check, manifest_name, &checked, out, reporter)?;
    Ok(checked)
}

/// A manifest as coreutils names it in messages.
fn message_name(manifest: &Input) -> &[u8] {
    match manifest {
        Input::Stdin => b"standard input",
        Input::Path(path) => path.as_os_str().as_bytes(),
    }
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
    manifest: &Input,
    items: &[Item],
    tally: &mut Tally,
    out: &mut (impl Write + Send),
    reporter: &Reporter,
) -> io::Result<()> {
    // Standard input named twice is read in order; batches run one after another.
    let stages = check.run.stages(must_run_in_order(
        items.iter().filter_map(|i| i.target.as_ref()),
    ));
    // Runs of lines as long as a hashing batch of the first line's algorithm (one line where
    // its engine has no lanes): a run's files of one algorithm go through the lanes together,
    // as `-r` hashes them.
    let batch = items
        .iter()
        .find_map(|item| match &item.line {
            Line::Entry(entry) => Some(table::chosen(entry.algorithm).batch_size()),
            _ => None,
        })
        .unwrap_or(1);
    // A run's files are held open together: as many as the descriptor budget allows.
    let batch = crate::io::descriptors::batch_size(batch);
    let mut write_result = Ok(());
    for_each_ordered(
        items.chunks(batch),
        stages,
        |run| open_ahead(&targets(run), check.run.read.mmap),
        |run, ahead| verify_run(run, ahead, &check.run.read),
        |_, run, outcomes| {
            for (item, outcome) in run.iter().zip(outcomes) {
                let result = report_line(check, manifest, item, outcome, tally, out, reporter);
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
fn verify_run(run: &[Item], mut ahead: Ahead, options: &ReadOptions) -> Vec<Outcome> {
    // `ahead` holds the run's targets in order: each line's place among them.
    let places: Vec<Option<usize>> = run
        .iter()
        .scan(0, |next, item| {
            Some(item.target.as_ref().map(|_| {
                *next += 1;
                *next - 1
            }))
        })
        .collect();
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
        let opened = ahead.part(lines.iter().map(|(index, _, _)| places[*index]));
        let digests = hash_inputs(&inputs, opened, algorithm, options);
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

/// The files a run of lines names, in order.
fn targets(run: &[Item]) -> Vec<&Input> {
    run.iter().filter_map(|item| item.target.as_ref()).collect()
}

/// One manifest line that counts: what it says, and the file it names.
struct Item {
    line_number: usize,
    line: Line,
    target: Option<Input>,
    /// The algorithm a malformed line is reported under (cksum's changes line by line).
    type_name: Option<&'static str>,
}

/// Counts one line and reports it: a malformed line under `--warn`, a file's status.
fn report_line(
    check: &Check,
    manifest: &Input,
    item: &Item,
    outcome: Outcome,
    tally: &mut Tally,
    out: &mut impl Write,
    reporter: &Reporter,
) -> io::Result<()> {
    let options: &CheckOptions = &check.options;
    let entry = match (&item.line, outcome) {
        (Line::Improper, _) => {
            tally.improper += 1;
            return match (options.warn, check.json) {
                (false, _) => Ok(()),
                (true, true) => write_improper_json(out, manifest.name_bytes(), item.line_number),
                (true, false) => {
                    let improper = Message::ImproperLine {
                        manifest: message_name(manifest),
                        line_number: item.line_number,
                        algorithm: item.type_name,
                    };
                    reporter.say_after(out, &improper)
                }
            };
        }
        (Line::Entry(entry), Outcome::Verified(result)) => (entry, result),
        (Line::Entry(_), Outcome::NotChecked) | (Line::Skip, _) => return Ok(()),
    };
    let (entry, result) = entry;
    let (status, algorithm) = match result {
        Err(e) if options.ignore_missing && e.kind() == io::ErrorKind::NotFound => {
            tally.missing += 1;
            return Ok(());
        }
        Err(source) => {
            let reason = crate::error::os_error_text(&source);
            let error = Error::Input {
                name: entry.name.clone(),
                source,
            };
            reporter.error_after(out, &error)?;
            (FileStatus::Unreadable(reason), entry.algorithm)
        }
        Ok(Some(matched)) => {
            if check.run.debug && matched != entry.algorithm {
                // Only an untagged line has fallbacks; say which reading matched.
                let matched_as = Message::MatchedAs {
                    name: &entry.name,
                    matched,
                    listed: entry.algorithm,
                };
                reporter.say_after(out, &matched_as)?;
            }
            (FileStatus::Ok, matched)
        }
        Ok(None) => (FileStatus::Failed, entry.algorithm),
    };
    tally.count(&status);
    if !is_shown(options, &status) {
        return Ok(());
    }
    let listed = Listed {
        manifest: manifest.name_bytes(),
        line: item.line_number,
        algorithm,
    };
    write_status(out, &entry.name, &status, Some(&listed), check.json)
}

/// Whether a file's status is written: `--status` leaves out every one, `--quiet` the OKs.
pub(crate) fn is_shown(options: &CheckOptions, status: &FileStatus) -> bool {
    !(options.status || (options.quiet && *status == FileStatus::Ok))
}

/// coreutils' warnings after a manifest, in its order. The first is an error, printed even
/// under `--status`, and so with `--json` too; the others are what `--json`'s summary object
/// says instead.
fn report_summary(
    check: &Check,
    manifest_name: &[u8],
    checked: &ManifestCheck,
    out: &mut impl Write,
    reporter: &Reporter,
) -> io::Result<()> {
    let manifest = manifest_name;
    let tally = &checked.tally;
    let nothing = checked.nothing_checked(&check.options);
    if nothing.no_proper_lines {
        return reporter.say_after(out, &Message::NoProperLines { manifest });
    }
    if check.options.status || check.json {
        return Ok(());
    }
    let warnings = [
        (tally.improper > 0).then_some(Message::Improper(tally.improper)),
        (tally.unreadable > 0).then_some(Message::Unreadable(tally.unreadable)),
        (tally.failed > 0).then_some(Message::Mismatched(tally.failed)),
        nothing
            .no_file_verified
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
fn run_b3sum(check: &Check, out: &mut impl Write, reporter: &Reporter) -> Checked {
    let mut tally = Tally::default();
    let outcome = check_b3sum_files(check, out, reporter, &mut tally);
    let failed = tally.failed + tally.unreadable + tally.improper;
    let status = match outcome.and_then(|fatal| out.flush().map(|()| fatal)) {
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
    };
    Checked { status, tally }
}

/// The checkfiles of `b3sum -c`, in order, counted in `tally`: `Ok(Some(reason))` for an error
/// that ends the run, `Err` for a failed write to standard output.
fn check_b3sum_files(
    check: &Check,
    out: &mut impl Write,
    reporter: &Reporter,
    tally: &mut Tally,
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
                    tally.improper += 1;
                    reporter.say_after(out, &Message::B3sumLine(reason))?;
                    continue;
                }
            };
            let input = Input::Path(PathBuf::from(&parsed.path));
            let verdict = hash_input(&input, Algorithm::Blake3, &check.run.read)
                .map(|digest| digest == parsed.expected);
            match &verdict {
                Ok(true) => tally.ok += 1,
                Ok(false) => tally.failed += 1,
                Err(_) => tally.unreadable += 1,
            }
            if check.options.quiet && verdict.as_ref().is_ok_and(|matched| *matched) {
                continue;
            }
            write_b3sum_verdict(out, &parsed.shown, verdict.as_ref().map(|m| *m))?;
        }
    }
    Ok(None)
}
