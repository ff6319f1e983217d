//! `--check`: verify manifests, with the lines, messages, stops and exit codes of the program
//! fasthash runs as: coreutils' (and fasthash's), b3sum's or xxhsum's (`CheckDialect`).
//!
//! One loop for all of them. Each manifest is read as a stream, line by line (`io::lines`),
//! each line parsed by the dialect's parser (`format::manifest`), the files of the lines at
//! hand hashed in parallel, and the results reported in manifest order (`NAME: OK`,
//! `NAME: FAILED`, ..., written by `format::status`), then the dialect's summary after each
//! manifest (coreutils' warnings in its fixed order, xxhsum's counts) or at the end (b3sum's
//! one warning), worded by `format::messages`. What ends a run early differs too: a failed
//! write to standard output (for xxhsum, only the manifest), and [`Fatal`] failures of b3sum
//! and xxhsum. With `--json` each status is an object, and one summary object ends the run in
//! place of the warnings.

use crate::dropin::CheckDialect;
use crate::error::{Error, ExitStatus};
use crate::format::manifest::{
    parse_b3sum_line, parse_xxhsum_line, Entry, Line, LineParser, ParseOptions, Retag,
};
use crate::format::messages::Message;
use crate::format::status::{
    write_b3sum_verdict, write_improper_json, write_status, write_summary_json,
    write_xxhsum_nothing_verified, write_xxhsum_summary, write_xxhsum_unopened,
    write_xxhsum_verdict, FileStatus, Listed, ManifestSummary, Report, Summary,
};
use crate::io::batch::{hash_inputs, one_by_one};
use crate::io::lines::{LineReader, LineTooLong};
use crate::io::open::{open_ahead, Ahead};
use crate::io::parallel::{for_each_ordered, must_run_in_order};
use crate::io::read::{feed_reader, hash_input, ReadOptions};
use crate::io::settings::RunSettings;
use crate::io::walk::Filter;
use crate::io::Input;
use crate::kernels::table;
use crate::kernels::{Algorithm, Digest, Hasher};
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
    /// Lines, or with `--json` the statuses and the summary as JSON objects, one a line.
    pub report: Report,
    pub run: RunSettings,
    /// b3sum's `--seek`: BLAKE3 lines are compared with the output from this byte on.
    pub blake3_seek: u64,
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
    /// `--verify-s3` of a tree: objects S3 gives nothing to compare with (not in
    /// [`Tally::counts`], which a check's and an audit's summaries write).
    pub cannot_verify: u64,
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
        self.cannot_verify += other.cannot_verify;
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
            FileStatus::CannotVerify(_) => &mut self.cannot_verify,
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
    let mut manifests: Vec<ManifestCheck> = Vec::new();
    // One parser for the run: what coreutils remembers from one manifest to the next, it does.
    let mut parser = DialectParser::new(check);
    let mut stopped = None;
    for manifest in &check.manifests {
        let mut checked = ManifestCheck {
            name: manifest.name_bytes().to_vec(),
            tally: Tally::default(),
            error: None,
        };
        match check_manifest(check, manifest, &mut parser, &mut checked, out, reporter) {
            Ok(()) => manifests.push(checked),
            // xxhsum gives up on a manifest whose status line it could not write, not the run.
            Err(Stop::Output(e)) if matches!(check.dialect, CheckDialect::Xxhsum { .. }) => {
                checked.error = Some(crate::error::os_error_text(&e));
                manifests.push(checked);
            }
            Err(stop) => {
                if let Stop::Fatal(_) = stop {
                    manifests.push(checked);
                }
                stopped = Some(stop);
                break;
            }
        }
    }
    let tally = Tally::total(manifests.iter().map(|m| &m.tally));
    let status = match stopped {
        Some(Stop::Output(e)) => reporter.output_failed(e, ExitStatus::Failure),
        // The fatal message comes after every status line before it.
        Some(Stop::Fatal(fatal)) => match out.flush() {
            Ok(()) => {
                reporter.say(&fatal.message());
                ExitStatus::Failure
            }
            Err(e) => reporter.output_failed(e, ExitStatus::Failure),
        },
        None => conclude(check, &manifests, tally, out, reporter),
    };
    Checked { status, tally }
}

/// The end of a run that read every manifest: coreutils' JSON summary, b3sum's one warning,
/// and the exit status.
fn conclude(
    check: &Check,
    manifests: &[ManifestCheck],
    tally: Tally,
    out: &mut impl Write,
    reporter: &Reporter,
) -> ExitStatus {
    let verified = manifests.iter().all(|m| m.verified(check));
    let written = if check.report == Report::Json && !check.options.status {
        let summary = Summary {
            verified,
            tally,
            manifests: manifests
                .iter()
                .map(|m| m.summary(&check.options))
                .collect(),
            tree: None,
            cannot_verify: None,
        };
        write_summary_json(out, &summary)
    } else {
        Ok(())
    };
    let written = written.and_then(|()| out.flush());
    if written.is_ok() && !verified && check.dialect == CheckDialect::B3sum {
        let failures = tally.failed + tally.unreadable + tally.improper;
        reporter.say(&Message::B3sumFailures(failures));
    }
    verified_status(written, verified, reporter)
}

/// What ends a run before its last manifest is read through.
enum Stop {
    /// Standard output failed.
    Output(io::Error),
    /// The program stops here, as b3sum and xxhsum do on some failures.
    Fatal(Fatal),
}

impl From<io::Error> for Stop {
    fn from(error: io::Error) -> Stop {
        Stop::Output(error)
    }
}

/// A failure that ends b3sum's or xxhsum's check at once, with its one message.
enum Fatal {
    /// b3sum: a checkfile that cannot be opened or read, or a line that is not UTF-8: the
    /// error b3sum's `main` returns, in Rust's words.
    B3sum(String),
    /// xxhsum: a listed file that opened and could not be read (a directory: `fopen` opens it,
    /// `fread` fails): xxhsum exits there, with no status line and no summary.
    XxhsumUnreadable,
}

impl Fatal {
    fn message(&self) -> Message<'_> {
        match self {
            Fatal::B3sum(reason) => Message::B3sumStopped(reason),
            Fatal::XxhsumUnreadable => Message::XxhsumReadFailed,
        }
    }
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
    /// The program's verdict on a manifest. coreutils': everything it lists verified, and it
    /// listed something; xxhsum's adds that `--ignore-missing` found something; b3sum's: no
    /// line or file failed.
    fn verified(&self, check: &Check) -> bool {
        let options = &check.options;
        let tally = &self.tally;
        let nothing_failed = self.error.is_none() && tally.failed == 0 && tally.unreadable == 0;
        match check.dialect {
            CheckDialect::B3sum => nothing_failed && tally.improper == 0,
            CheckDialect::Xxhsum { .. } => {
                nothing_failed
                    && tally.any_listed()
                    && (!options.strict || tally.improper == 0)
                    && !(options.ignore_missing && tally.ok == 0)
            }
            CheckDialect::Coreutils | CheckDialect::Fasthash => {
                let nothing = self.nothing_checked(options);
                nothing_failed
                    && !nothing.no_proper_lines
                    && !nothing.no_file_verified
                    && (!options.strict || tally.improper == 0)
            }
        }
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

/// A line naming `stdin` in a manifest xxhsum reads from standard input: xxhsum reads both
/// through one buffered stream, so the file it hashes is what follows the line (what it had
/// buffered, then the rest), and its manifest has ended.
fn verify_stream_rest(item: &Item, rest: impl io::Read) -> Outcome {
    let Reading::Listed { entry, .. } = &item.reading else {
        return Outcome::NotChecked;
    };
    let algorithms: Vec<Algorithm> = std::iter::once(entry.algorithm)
        .chain(entry.fallbacks.iter().copied())
        .collect();
    let mut hashers: Vec<Hasher> = algorithms.iter().map(|&a| Hasher::new(a)).collect();
    let read = feed_reader(rest, |bytes| {
        hashers.iter_mut().for_each(|hasher| hasher.update(bytes))
    });
    let result = read.map(|()| {
        let mut digests = hashers.into_iter().map(Hasher::finalize);
        algorithms
            .into_iter()
            .find(|_| digests.next() == Some(entry.expected))
    });
    Outcome::Verified {
        result,
        opened: true,
    }
}

/// The most lines hashed side by side before their results are written: what the manifest
/// reader holds at once (it never waits for more) bounds a batch too, so memory stays bounded
/// on an endless manifest.
const BATCH_LINES: usize = 4096;

/// Checks one manifest as it is read, counting what it finds in `checked`. An `Err` is what
/// ends the run there (for xxhsum, a failed write ends only the manifest).
///
/// Each batch is the lines the reader holds without waiting for more; their files are hashed
/// side by side and reported in manifest order, and standard output is flushed before the
/// reader waits again, so every line's status is out before the next line is needed.
fn check_manifest(
    check: &Check,
    manifest: &Input,
    parser: &mut DialectParser,
    checked: &mut ManifestCheck,
    out: &mut (impl Write + Send),
    reporter: &Reporter,
) -> Result<(), Stop> {
    let manifest_name = message_name(check.dialect, manifest);
    let mut lines = match check.dialect.line_reader(manifest, check.zero_terminated) {
        Ok(lines) => lines,
        Err(source) => {
            let failed = Unreadable::Opening(source);
            return manifest_unreadable(check.dialect, manifest, failed, checked, out, reporter);
        }
    };
    parser.next_manifest(*manifest == Input::Stdin);
    // xxhsum reads a manifest on standard input and a file named `stdin` from one stream.
    let stream_is_shared =
        *manifest == Input::Stdin && matches!(check.dialect, CheckDialect::Xxhsum { .. });
    let names_the_stream = |batch: &[Item]| {
        stream_is_shared
            && batch.last().and_then(|item| item.reading.target()) == Some(&Input::Stdin)
    };
    let mut line_number = 0;
    let mut batch: Vec<Item> = Vec::new();
    loop {
        if !lines.has_buffered_line() {
            out.flush()?;
        }
        // A line that ends the run ends the batch: the lines before it are checked first.
        let mut fatal = match lines.read_line() {
            Ok(Some(text)) => parser.take(check, &mut line_number, text, &mut batch).err(),
            Ok(None) => break,
            // Only xxhsum's lines have a limit: it stops reading the manifest there, which
            // then fails, and goes on to its summary and the next manifest.
            Err(e) if LineTooLong::is(&e) => {
                checked.error = Some(e.to_string());
                let too_long = Message::XxhsumLineTooLong {
                    manifest: manifest_name,
                    line_number: line_number + 1,
                };
                reporter.say_after(out, &too_long)?;
                break;
            }
            // xxhsum reads lines until one fails, as if to the end.
            Err(_) if matches!(check.dialect, CheckDialect::Xxhsum { .. }) => break,
            Err(source) => {
                let failed = Unreadable::Reading(source);
                return manifest_unreadable(
                    check.dialect,
                    manifest,
                    failed,
                    checked,
                    out,
                    reporter,
                );
            }
        };
        while fatal.is_none() && batch.len() < BATCH_LINES && !names_the_stream(&batch) {
            let Some(text) = lines.buffered_line() else {
                break;
            };
            fatal = parser.take(check, &mut line_number, text, &mut batch).err();
        }
        let from_the_stream = names_the_stream(&batch).then(|| batch.pop()).flatten();
        check_batch(check, manifest, &batch, &mut checked.tally, out, reporter)?;
        batch.clear();
        if let Some(item) = from_the_stream {
            // The file is the rest of the stream, which ends the manifest.
            let outcome = verify_stream_rest(&item, lines.rest());
            report_line(
                check,
                manifest,
                &item,
                outcome,
                &mut checked.tally,
                out,
                reporter,
            )?;
        }
        if let Some(fatal) = fatal {
            return Err(Stop::Fatal(fatal));
        }
    }
    report_summary(check, manifest_name, checked, out, reporter)
}

/// A manifest that could not be opened, or read to its end, as each program reports it:
/// coreutils with its name (without the system's reason once reading began), xxhsum with its
/// own words, and the run goes on; b3sum stops there.
fn manifest_unreadable(
    dialect: CheckDialect,
    manifest: &Input,
    failed: Unreadable,
    checked: &mut ManifestCheck,
    out: &mut impl Write,
    reporter: &Reporter,
) -> Result<(), Stop> {
    let (Unreadable::Opening(source) | Unreadable::Reading(source)) = &failed;
    if dialect == CheckDialect::B3sum {
        return Err(Stop::Fatal(Fatal::B3sum(source.to_string())));
    }
    let reason = crate::error::os_error_text(source);
    let name = message_name(dialect, manifest);
    checked.error = Some(reason.clone());
    match (dialect, failed, manifest) {
        (CheckDialect::Xxhsum { .. }, _, _) => {
            let cannot_open = Message::XxhsumCannotOpen {
                manifest: name,
                reason: &reason,
            };
            reporter.say_after(out, &cannot_open)?;
        }
        (_, Unreadable::Opening(source), Input::Path(_)) => {
            let error = Error::Input {
                name: manifest.name_bytes().to_vec(),
                source,
            };
            reporter.error_after(out, &error)?;
        }
        // coreutils reports a failed read of a manifest without the system's reason.
        _ => reporter.say_after(out, &Message::ManifestReadError { manifest: name })?,
    }
    Ok(())
}

/// Why a manifest could not be read: it did not open, or a read failed.
enum Unreadable {
    Opening(io::Error),
    Reading(io::Error),
}

/// A manifest as the program names it in messages: coreutils' `standard input`, xxhsum's
/// `stdin`, else the name as given.
fn message_name(dialect: CheckDialect, manifest: &Input) -> &[u8] {
    match (manifest, dialect) {
        (Input::Stdin, CheckDialect::Xxhsum { .. }) => b"stdin",
        (Input::Stdin, _) => b"standard input",
        (Input::Path(path), _) => path.as_os_str().as_bytes(),
    }
}

impl CheckDialect {
    /// Whether the files of later lines may be opened and read while earlier ones are checked.
    /// Not xxhsum's: it stops at the first listed file that opens and cannot be read, and
    /// opens nothing after it (a FIFO listed later, opened ahead, would block a run that
    /// xxhsum ends), so it checks one line after the other, as it does.
    fn reads_ahead(self) -> bool {
        !matches!(self, CheckDialect::Xxhsum { .. })
    }

    /// The manifest opened to be read line by line, as the program splits it: on NUL under
    /// `-z`; a byte-order mark dropped under fasthash's name; xxhsum keeps a CR before the
    /// newline (it becomes part of the name or the digest), and stops at a line longer than
    /// its buffer.
    fn line_reader(
        self,
        manifest: &Input,
        zero_terminated: bool,
    ) -> io::Result<LineReader<Box<dyn io::Read>>> {
        let terminator = crate::format::line_end(zero_terminated);
        let lines = crate::io::line_reader(manifest, terminator, self == CheckDialect::Fasthash)?;
        Ok(match self {
            CheckDialect::Xxhsum { .. } => lines
                .keeping_carriage_returns()
                .ending_within(crate::dropin::xxhsum::LONGEST_LINE),
            _ => lines,
        })
    }
}

/// The line parser of the run's dialect: coreutils' (with fasthash's extensions under its
/// name), b3sum's or xxhsum's (`format::manifest`).
enum DialectParser {
    Coreutils(LineParser),
    B3sum,
    Xxhsum {
        little_endian: bool,
        /// Under `xxhNNsum`, only that algorithm's lines are read.
        only: Option<Algorithm>,
    },
}

impl DialectParser {
    fn new(check: &Check) -> DialectParser {
        match check.dialect {
            CheckDialect::B3sum => DialectParser::B3sum,
            CheckDialect::Xxhsum { little_endian } => DialectParser::Xxhsum {
                little_endian,
                only: check.algorithm,
            },
            CheckDialect::Coreutils | CheckDialect::Fasthash => DialectParser::Coreutils(
                LineParser::new(check.parse_options()).with_type_name(check.type_name, check.retag),
            ),
        }
    }

    fn next_manifest(&mut self, manifest_is_stdin: bool) {
        if let DialectParser::Coreutils(parser) = self {
            parser.next_manifest(manifest_is_stdin);
        }
    }

    /// Parses the next manifest line into `batch`, unless it does not count (empty, a
    /// comment, or a file the walk filters leave out); `Err` for a line that ends the run.
    fn take(
        &mut self,
        check: &Check,
        line_number: &mut usize,
        text: &[u8],
        batch: &mut Vec<Item>,
    ) -> Result<(), Fatal> {
        *line_number += 1;
        let Some(reading) = self.read(text)? else {
            return Ok(());
        };
        if let Reading::Listed {
            target: Input::Path(path),
            ..
        } = &reading
        {
            if !check.filter.selects_listed(path) {
                return Ok(());
            }
        }
        batch.push(Item {
            line_number: *line_number,
            reading,
            type_name: match self {
                DialectParser::Coreutils(parser) => parser.type_name(),
                _ => None,
            },
        });
        Ok(())
    }

    /// One line as the dialect reads it; None for a line that does not count.
    fn read(&mut self, text: &[u8]) -> Result<Option<Reading>, Fatal> {
        let reading = match self {
            DialectParser::Coreutils(parser) => match parser.parse(text) {
                Line::Skip => return Ok(None),
                Line::Improper => Reading::Improper(None),
                Line::Entry(entry) => {
                    let target = Input::from_arg(OsStr::from_bytes(&entry.name).into());
                    Reading::listed(entry, target)
                }
            },
            DialectParser::B3sum => {
                let Ok(text) = std::str::from_utf8(text) else {
                    return Err(Fatal::B3sum("stream did not contain valid UTF-8".into()));
                };
                match parse_b3sum_line(text) {
                    Err(reason) => Reading::Improper(Some(reason)),
                    Ok(line) => Reading::Listed {
                        // b3sum reads its standard input for a file named `-`, as it hashes.
                        target: Input::from_arg(OsStr::new(&line.path).into()),
                        entry: Entry {
                            algorithm: Algorithm::Blake3,
                            expected: line.expected,
                            name: line.path.into_bytes(),
                            fallbacks: &[],
                        },
                        shown: Some(line.shown),
                    },
                }
            }
            DialectParser::Xxhsum { .. } if text.first() == Some(&b'#') => return Ok(None),
            DialectParser::Xxhsum {
                little_endian,
                only,
            } => match parse_xxhsum_line(text, *little_endian, *only) {
                None => Reading::Improper(None),
                // xxhsum reads its own standard input for a file named `stdin`; `-` is a name.
                Some(entry) => {
                    let target = match entry.name.as_slice() {
                        b"stdin" => Input::Stdin,
                        name => Input::Path(PathBuf::from(OsStr::from_bytes(name))),
                    };
                    Reading::listed(entry, target)
                }
            },
        };
        Ok(Some(reading))
    }
}

/// What a manifest line that counts says.
enum Reading {
    /// A file to verify: the line's entry, the file it names, and, for b3sum, the name as the
    /// line writes it (what its status lines show).
    Listed {
        entry: Entry,
        target: Input,
        shown: Option<String>,
    },
    /// Not a checksum line; b3sum says why.
    Improper(Option<&'static str>),
}

impl Reading {
    fn listed(entry: Entry, target: Input) -> Reading {
        Reading::Listed {
            entry,
            target,
            shown: None,
        }
    }

    fn target(&self) -> Option<&Input> {
        match self {
            Reading::Listed { target, .. } => Some(target),
            Reading::Improper(_) => None,
        }
    }
}

/// One manifest line that counts.
struct Item {
    line_number: usize,
    reading: Reading,
    /// The algorithm a malformed line is reported under (cksum's changes line by line).
    type_name: Option<&'static str>,
}

/// The files a run of lines names, in order.
fn targets(run: &[Item]) -> Vec<&Input> {
    run.iter()
        .filter_map(|item| item.reading.target())
        .collect()
}

/// Verifies a batch of lines, their files hashed side by side, and reports them in order.
fn check_batch(
    check: &Check,
    manifest: &Input,
    items: &[Item],
    tally: &mut Tally,
    out: &mut (impl Write + Send),
    reporter: &Reporter,
) -> Result<(), Stop> {
    // Standard input named twice is read in order; batches run one after another.
    let reads_ahead = check.dialect.reads_ahead();
    let targets_in_order = must_run_in_order(items.iter().filter_map(|i| i.reading.target()));
    // Runs of lines as long as a hashing batch of the first line's algorithm (one line where
    // its engine has no lanes): a run's files of one algorithm go through the lanes together,
    // as `-r` hashes them.
    let batch = items
        .iter()
        .find_map(|item| match &item.reading {
            Reading::Listed { entry, .. } => Some(table::chosen(entry.algorithm).batch_size()),
            Reading::Improper(_) => None,
        })
        .unwrap_or(1);
    // A run's files are held open together: as many as the descriptor budget allows. With
    // standard input named twice, a line at a time: a run hashes its lines an algorithm at a
    // time, which would read standard input for a later line before an earlier one.
    let batch = match reads_ahead && !targets_in_order {
        true => crate::io::descriptors::batch_size(batch),
        false => 1,
    };
    // Lines that make one run have nothing to overlap with: as for files named to be hashed,
    // the run is opened on this thread, without starting a reader.
    let one_run = items.len() <= batch;
    let stages = check
        .run
        .stages(!reads_ahead || targets_in_order || one_run);
    let mut reported = Ok(());
    for_each_ordered(
        items.chunks(batch),
        stages,
        |run| open_ahead(&targets(run), check.run.read.mmap),
        |run, ahead| verify_run(run, ahead, &check.run.read, check.blake3_seek),
        |_, run, outcomes| {
            for (item, outcome) in run.iter().zip(outcomes) {
                let result = report_line(check, manifest, item, outcome, tally, out, reporter);
                if let Err(stop) = result {
                    reported = Err(stop);
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        },
    );
    reported
}

/// What the worker hands back for one manifest line.
enum Outcome {
    NotChecked,
    /// The algorithm the file matched under (the line's, or one of its fallbacks), `None`
    /// when it matched under none, or why it could not be read; and whether it was opened
    /// (xxhsum stops at a file that opened and could not be read).
    Verified {
        result: io::Result<Option<Algorithm>>,
        opened: bool,
    },
}

/// Verifies a run of lines: the files of the lines of each algorithm hashed together (side by
/// side where the engine has lanes); a line that did not match is then tried under its
/// fallbacks one by one, as [`verify`] does. BLAKE3 lines under b3sum's `--seek`
/// (`blake3_seek` above 0) are compared with the output from that byte, one file at a time.
fn verify_run(
    run: &[Item],
    mut ahead: Ahead,
    options: &ReadOptions,
    blake3_seek: u64,
) -> Vec<Outcome> {
    // `ahead` holds the run's targets in order: each line's place among them.
    let places: Vec<Option<usize>> = run
        .iter()
        .scan(0, |next, item| {
            Some(item.reading.target().map(|_| {
                *next += 1;
                *next - 1
            }))
        })
        .collect();
    let mut outcomes: Vec<Option<Outcome>> = run.iter().map(|_| None).collect();
    let mut algorithms: Vec<Algorithm> = Vec::new();
    for item in run {
        if let Reading::Listed { entry, .. } = &item.reading {
            if !algorithms.contains(&entry.algorithm) {
                algorithms.push(entry.algorithm);
            }
        }
    }
    for algorithm in algorithms {
        let lines: Vec<(usize, &Entry, &Input)> = run
            .iter()
            .enumerate()
            .filter_map(|(index, item)| match &item.reading {
                Reading::Listed { entry, target, .. } if entry.algorithm == algorithm => {
                    Some((index, entry, target))
                }
                _ => None,
            })
            .collect();
        let inputs: Vec<&Input> = lines.iter().map(|(_, _, input)| *input).collect();
        // The open stage fails a file only when it could not be opened.
        let unopened: Vec<bool> = lines
            .iter()
            .map(|(index, _, _)| {
                places[*index]
                    .is_some_and(|place| matches!(ahead.files.get(place), Some(Some(Err(_)))))
            })
            .collect();
        let mut opened = ahead.part(lines.iter().map(|(index, _, _)| places[*index]));
        let digests = match algorithm {
            Algorithm::Blake3 if blake3_seek > 0 => {
                let output_at = crate::dropin::b3sum::OutputAt(blake3_seek);
                one_by_one(&inputs, &mut opened, &output_at, options)
            }
            _ => hash_inputs(&inputs, opened, algorithm, options),
        };
        for (((index, entry, input), digest), unopened) in
            lines.into_iter().zip(digests).zip(unopened)
        {
            let result = match digest {
                Ok(digest) if digest == entry.expected => Ok(Some(algorithm)),
                Ok(_) => verify_fallbacks(entry, input, options),
                Err(error) => Err(error),
            };
            outcomes[index] = Some(Outcome::Verified {
                result,
                opened: !unopened,
            });
        }
    }
    outcomes
        .into_iter()
        .map(|outcome| outcome.unwrap_or(Outcome::NotChecked))
        .collect()
}

/// Counts one line and reports it as the program does.
fn report_line(
    check: &Check,
    manifest: &Input,
    item: &Item,
    outcome: Outcome,
    tally: &mut Tally,
    out: &mut impl Write,
    reporter: &Reporter,
) -> Result<(), Stop> {
    let (entry, shown, result, opened) = match (&item.reading, outcome) {
        (Reading::Improper(reason), _) => {
            tally.improper += 1;
            return Ok(report_improper(
                check, manifest, item, *reason, out, reporter,
            )?);
        }
        (Reading::Listed { entry, shown, .. }, Outcome::Verified { result, opened }) => {
            (entry, shown, result, opened)
        }
        (Reading::Listed { .. }, Outcome::NotChecked) => return Ok(()),
    };
    match check.dialect {
        CheckDialect::B3sum => {
            let shown = shown.as_deref().unwrap_or_default();
            Ok(report_b3sum_file(check, shown, result, tally, out)?)
        }
        CheckDialect::Xxhsum { .. } => {
            let listed = (message_name(check.dialect, manifest), item.line_number);
            report_xxhsum_file(check, listed, entry, result, opened, tally, out)
        }
        CheckDialect::Coreutils | CheckDialect::Fasthash => Ok(report_file(
            check, manifest, item, result, tally, out, reporter,
        )?),
    }
}

/// A line that is not a checksum line: reported under `--warn` by coreutils (and as JSON) and
/// xxhsum, always by b3sum, which says why.
fn report_improper(
    check: &Check,
    manifest: &Input,
    item: &Item,
    reason: Option<&str>,
    out: &mut impl Write,
    reporter: &Reporter,
) -> io::Result<()> {
    let manifest_name = message_name(check.dialect, manifest);
    let line_number = item.line_number;
    match (check.dialect, check.options.warn, check.report) {
        (CheckDialect::B3sum, _, _) => {
            reporter.say_after(out, &Message::B3sumLine(reason.unwrap_or_default()))
        }
        (_, false, _) => Ok(()),
        (CheckDialect::Xxhsum { .. }, true, _) => {
            let improper = Message::XxhsumImproperLine {
                manifest: manifest_name,
                line_number,
            };
            reporter.say_after(out, &improper)
        }
        (_, true, Report::Json) => write_improper_json(out, manifest.name_bytes(), line_number),
        (_, true, Report::Lines) => {
            let improper = Message::ImproperLine {
                manifest: manifest_name,
                line_number,
                algorithm: item.type_name,
            };
            reporter.say_after(out, &improper)
        }
    }
}

/// A listed file's status as coreutils reports it (and, with `--json`, as an object).
fn report_file(
    check: &Check,
    manifest: &Input,
    item: &Item,
    result: io::Result<Option<Algorithm>>,
    tally: &mut Tally,
    out: &mut impl Write,
    reporter: &Reporter,
) -> io::Result<()> {
    let Reading::Listed { entry, .. } = &item.reading else {
        return Ok(());
    };
    let options: &CheckOptions = &check.options;
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
    write_status(out, &entry.name, &status, Some(&listed), check.report)
}

/// A listed file's status as b3sum reports it: a file it cannot read is a failure like a
/// mismatch (`NAME: FAILED (REASON)`), and `--quiet` leaves out only the OKs.
fn report_b3sum_file(
    check: &Check,
    shown: &str,
    result: io::Result<Option<Algorithm>>,
    tally: &mut Tally,
    out: &mut impl Write,
) -> io::Result<()> {
    let verdict = result.map(|matched| matched.is_some());
    match &verdict {
        Ok(true) => tally.ok += 1,
        Ok(false) => tally.failed += 1,
        Err(_) => tally.unreadable += 1,
    }
    if check.options.quiet && matches!(verdict, Ok(true)) {
        return Ok(());
    }
    write_b3sum_verdict(out, shown, verdict.as_ref().copied())
}

/// A listed file's status as xxhsum reports it: one it cannot open on standard output, where
/// it is listed (passed over in silence under `--ignore-missing`, whatever the reason); one
/// that opened and cannot be read ends the run.
fn report_xxhsum_file(
    check: &Check,
    (manifest, line_number): (&[u8], usize),
    entry: &Entry,
    result: io::Result<Option<Algorithm>>,
    opened: bool,
    tally: &mut Tally,
    out: &mut impl Write,
) -> Result<(), Stop> {
    let options = &check.options;
    let matched = match result {
        Ok(matched) => matched.is_some(),
        Err(_) if opened => return Err(Stop::Fatal(Fatal::XxhsumUnreadable)),
        Err(_) if options.ignore_missing => {
            tally.missing += 1;
            return Ok(());
        }
        Err(error) => {
            tally.unreadable += 1;
            if options.status {
                return Ok(());
            }
            let reason = crate::error::os_error_text(&error);
            return Ok(write_xxhsum_unopened(
                out,
                manifest,
                line_number,
                &entry.name,
                &reason,
            )?);
        }
    };
    tally.count(if matched {
        &FileStatus::Ok
    } else {
        &FileStatus::Failed
    });
    if options.status || (matched && options.quiet) {
        return Ok(());
    }
    Ok(write_xxhsum_verdict(out, &entry.name, matched)?)
}

/// Whether a file's status is written: `--status` leaves out every one, `--quiet` the OKs.
pub(crate) fn is_shown(options: &CheckOptions, status: &FileStatus) -> bool {
    !(options.status || (options.quiet && *status == FileStatus::Ok))
}

/// What the program says after a manifest: coreutils' warnings or xxhsum's summary (b3sum
/// says nothing until the end of the run).
fn report_summary(
    check: &Check,
    manifest: &[u8],
    checked: &ManifestCheck,
    out: &mut impl Write,
    reporter: &Reporter,
) -> Result<(), Stop> {
    match check.dialect {
        CheckDialect::B3sum => Ok(()),
        CheckDialect::Xxhsum { .. } => {
            report_xxhsum_summary(&check.options, manifest, &checked.tally, out, reporter);
            Ok(())
        }
        CheckDialect::Coreutils | CheckDialect::Fasthash => Ok(report_coreutils_summary(
            check, manifest, checked, out, reporter,
        )?),
    }
}

/// coreutils' warnings after a manifest, in its order. The first is an error, printed even
/// under `--status`, and so with `--json` too; the others are what `--json`'s summary object
/// says instead.
fn report_coreutils_summary(
    check: &Check,
    manifest: &[u8],
    checked: &ManifestCheck,
    out: &mut impl Write,
    reporter: &Reporter,
) -> io::Result<()> {
    let tally = &checked.tally;
    let nothing = checked.nothing_checked(&check.options);
    if nothing.no_proper_lines {
        return reporter.say_after(out, &Message::NoProperLines { manifest });
    }
    if check.options.status || check.report == Report::Json {
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

/// xxhsum's summary after a manifest: a manifest that listed nothing is an error on standard
/// error; the counts go to standard output (not under `--status`), and so does `--ignore-missing`
/// finding nothing, whatever `--status` says. xxhsum does not check these writes.
fn report_xxhsum_summary(
    options: &CheckOptions,
    manifest: &[u8],
    tally: &Tally,
    out: &mut impl Write,
    reporter: &Reporter,
) {
    if !tally.any_listed() {
        let _ = reporter.say_after(out, &Message::XxhsumNoProperLines { manifest });
    } else if !options.status {
        let _ = write_xxhsum_summary(out, tally);
    }
    if options.ignore_missing && tally.ok == 0 {
        let _ = write_xxhsum_nothing_verified(out, manifest);
    }
}
