//! Status lines on standard output: `--check`'s `NAME: OK` as coreutils, b3sum and xxhsum
//! write them (and xxhsum's summary, which it writes there too), and the audit's; and with `--json`, the objects of a check or an audit (one a file, one a
//! malformed line under `--warn`, one summary; `docs/json.md`). They end in a newline whatever
//! `-z` says: coreutils ends its check lines so, and an audit's lines are read by people and
//! line-based tools.

use super::escape::{escape_name, needs_escape};
use super::json::{insert_name, typed, write_object};
use super::quote::quote_name;
use crate::check::Tally;
use crate::kernels::Algorithm;
use serde_json::{Map, Value};
use std::io::{self, Write};

/// `NAME: STATUS` (an audit's `NAME: MOVED from OLD`), the name quoted as coreutils 9.11 and
/// later quote it: shell quoting where the name needs it (`'a\b': OK`, `'a'$'\n''b': OK`), as
/// in its diagnostics. (9.4 to 9.10 wrote `\a\\b: OK`; 9.1 to 9.3 escaped only names holding
/// a newline.)
fn write_verdict(out: &mut impl Write, name: &[u8], status: &FileStatus) -> io::Result<()> {
    out.write_all(&quote_name(name))?;
    out.write_all(b": ")?;
    out.write_all(status.word().as_bytes())?;
    match status {
        FileStatus::Moved { from } => {
            out.write_all(b" from ")?;
            out.write_all(&quote_name(from))?;
        }
        FileStatus::CannotVerify(reason) => write!(out, " ({reason})")?,
        _ => {}
    }
    out.write_all(b"\n")
}

/// `b3sum -c`'s line for one file: the name as b3sum shows it, and `OK`, `FAILED`, or
/// `FAILED (REASON)` for a file it could not read.
pub fn write_b3sum_verdict(
    out: &mut impl Write,
    shown: &str,
    verdict: Result<bool, &io::Error>,
) -> io::Result<()> {
    match verdict {
        Ok(true) => writeln!(out, "{shown}: OK"),
        Ok(false) => writeln!(out, "{shown}: FAILED"),
        Err(error) => writeln!(out, "{shown}: FAILED ({error})"),
    }
}

/// `xxhsum -c`'s line for one file it read: the name escaped as its digest lines escape it
/// (with a leading `\` when escaped), then `OK` or `FAILED`.
pub fn write_xxhsum_verdict(out: &mut impl Write, name: &[u8], matched: bool) -> io::Result<()> {
    if needs_escape(name) {
        out.write_all(b"\\")?;
    }
    out.write_all(&escape_name(name))?;
    out.write_all(if matched { b": OK\n" } else { b": FAILED\n" })
}

/// `xxhsum -c`'s line for a listed file it could not open: where it is listed, the name as
/// listed, and the system's reason.
pub fn write_xxhsum_unopened(
    out: &mut impl Write,
    manifest: &[u8],
    line_number: usize,
    name: &[u8],
    reason: &str,
) -> io::Result<()> {
    out.write_all(manifest)?;
    write!(out, ":{line_number}: Could not open or read '")?;
    out.write_all(name)?;
    writeln!(out, "': {reason}.")
}

/// `xxhsum -c`'s counts after a manifest that listed files (`tally`): one line for each kind
/// of failure it met.
pub fn write_xxhsum_summary(out: &mut impl Write, tally: &Tally) -> io::Result<()> {
    let counts = [
        (
            tally.improper,
            "line is",
            "lines are",
            "improperly formatted",
        ),
        (
            tally.unreadable,
            "listed file",
            "listed files",
            "could not be read",
        ),
        (
            tally.failed,
            "computed checksum",
            "computed checksums",
            "did NOT match",
        ),
    ];
    for (count, one, many, what) in counts {
        if count > 0 {
            let kind = if count == 1 { one } else { many };
            writeln!(out, "{count} {kind} {what}")?;
        }
    }
    Ok(())
}

/// `xxhsum -c --ignore-missing`'s line for a manifest none of whose files was there.
pub fn write_xxhsum_nothing_verified(out: &mut impl Write, manifest: &[u8]) -> io::Result<()> {
    out.write_all(manifest)?;
    writeln!(out, ": no file was verified")
}

/// What a check or an audit found of one file (a check finds only the first three).
#[derive(Debug, PartialEq, Eq)]
pub enum FileStatus {
    Ok,
    Failed,
    /// Listed, and there, but it could not be read: the system's reason.
    Unreadable(String),
    Missing,
    /// Listed under another name, which is gone; the digest matches.
    Moved {
        from: Vec<u8>,
    },
    New,
    /// `--verify-s3` of a tree: S3 gives no value the file can be compared with (an ETag of
    /// SSE-KMS, no checksum), or could not be asked about the object: why.
    CannotVerify(String),
}

impl FileStatus {
    /// The word of the text line, as coreutils writes it for the kinds it has.
    fn word(&self) -> &'static str {
        match self {
            FileStatus::Unreadable(_) => "FAILED open or read",
            FileStatus::CannotVerify(_) => "cannot verify",
            other => other.json_word(),
        }
    }

    /// The `status` of a JSON object: one upper-case word a kind, so a consumer can match
    /// it whole (coreutils' `FAILED open or read` would start like `FAILED`).
    fn json_word(&self) -> &'static str {
        match self {
            FileStatus::Ok => "OK",
            FileStatus::Failed => "FAILED",
            FileStatus::Unreadable(_) => "UNREADABLE",
            FileStatus::Missing => "MISSING",
            FileStatus::Moved { .. } => "MOVED",
            FileStatus::New => "NEW",
            FileStatus::CannotVerify(_) => "CANNOT_VERIFY",
        }
    }
}

/// How a check, an audit and `--verify-s3` report each file and their summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Report {
    /// `NAME: OK` lines on standard output, the summary on standard error.
    Lines,
    /// `--json`: an object a file and one for the summary, all on standard output.
    Json,
}

impl Report {
    /// The report `--json` asks for, or the lines.
    pub fn new(json: bool) -> Report {
        if json {
            Report::Json
        } else {
            Report::Lines
        }
    }
}

/// One file's status: the text line (`write_verdict`) or its JSON object
/// (`write_status_json`).
pub fn write_status(
    out: &mut impl Write,
    name: &[u8],
    status: &FileStatus,
    listed: Option<&Listed>,
    report: Report,
) -> io::Result<()> {
    match report {
        Report::Lines => write_verdict(out, name, status),
        Report::Json => write_status_json(out, name, status, listed),
    }
}

/// Where a file's manifest line is, for its JSON object: the manifest, the line's number in
/// it, and the algorithm the file was verified under (the one it matched under, for an
/// untagged line read under several).
#[derive(Clone, Copy, Debug)]
pub struct Listed<'a> {
    pub manifest: &'a [u8],
    pub line: usize,
    pub algorithm: Algorithm,
}

/// The `"type": "file"` object of one file a check or an audit reports on.
fn write_status_json(
    out: &mut impl Write,
    name: &[u8],
    status: &FileStatus,
    listed: Option<&Listed>,
) -> io::Result<()> {
    let mut object = file_object(name, status);
    if let Some(listed) = listed {
        object.insert("algorithm".into(), listed.algorithm.to_string().into());
        insert_name(&mut object, "manifest", listed.manifest);
        object.insert("line".into(), listed.line.into());
    }
    write_object(out, object)
}

/// The start of the `"type": "file"` object of every file a check, an audit or `--verify-s3`
/// of a tree reports on: its name, its status, and what the status adds.
pub(crate) fn file_object(name: &[u8], status: &FileStatus) -> Map<String, Value> {
    let mut object = typed("file");
    insert_name(&mut object, "name", name);
    object.insert("status".into(), status.json_word().into());
    insert_status_detail(&mut object, status);
    object
}

/// What a status adds to a file's object: where a moved file was, why a file could not be
/// read or verified.
fn insert_status_detail(object: &mut Map<String, Value>, status: &FileStatus) {
    match status {
        FileStatus::Moved { from } => insert_name(object, "from", from),
        FileStatus::Unreadable(reason) => {
            object.insert("error".into(), reason.as_str().into());
        }
        FileStatus::CannotVerify(reason) => {
            object.insert("reason".into(), reason.as_str().into());
        }
        _ => {}
    }
}

/// The `"type": "improper"` object of a manifest line that is not a checksum line (`--warn`).
pub fn write_improper_json(out: &mut impl Write, manifest: &[u8], line: usize) -> io::Result<()> {
    let mut object = typed("improper");
    insert_name(&mut object, "manifest", manifest);
    object.insert("line".into(), line.into());
    write_object(out, object)
}

/// One manifest's part of a summary.
#[derive(Debug)]
pub struct ManifestSummary<'a> {
    pub name: &'a [u8],
    pub tally: Tally,
    /// Why the manifest could not be read (to its end), if it could not.
    pub error: Option<String>,
    /// coreutils' `no properly formatted checksum lines found`.
    pub no_proper_lines: bool,
    /// coreutils' `no file was verified` (`--ignore-missing`, and none was there).
    pub no_file_verified: bool,
}

/// What the summary of a check or an audit says.
#[derive(Debug)]
pub struct Summary<'a> {
    /// The run's outcome: true exactly when its exit status is 0, output failures aside.
    pub verified: bool,
    pub tally: Tally,
    pub manifests: Vec<ManifestSummary<'a>>,
    /// The audited tree, and why it could not be audited, if it could not.
    pub tree: Option<(&'a [u8], Option<String>)>,
    /// `--verify-s3` of a tree: its files that could not be verified (the key is only in its
    /// summary).
    pub cannot_verify: Option<u64>,
}

/// The `"type": "summary"` object that ends a check or an audit.
pub fn write_summary_json(out: &mut impl Write, summary: &Summary) -> io::Result<()> {
    let mut object = typed("summary");
    let status = if summary.verified { "OK" } else { "FAILED" };
    object.insert("status".into(), status.into());
    insert_counts(&mut object, &summary.tally);
    if let Some(count) = summary.cannot_verify {
        object.insert("cannot_verify".into(), count.into());
    }
    if let Some((tree, error)) = &summary.tree {
        insert_name(&mut object, "tree", tree);
        if let Some(error) = error {
            object.insert("error".into(), error.as_str().into());
        }
    }
    let manifests: Vec<Value> = summary
        .manifests
        .iter()
        .map(|manifest| {
            let mut entry = Map::new();
            insert_name(&mut entry, "manifest", manifest.name);
            insert_counts(&mut entry, &manifest.tally);
            if let Some(error) = &manifest.error {
                entry.insert("error".into(), error.as_str().into());
            }
            entry.insert("no_proper_lines".into(), manifest.no_proper_lines.into());
            entry.insert("no_file_verified".into(), manifest.no_file_verified.into());
            Value::Object(entry)
        })
        .collect();
    object.insert("manifests".into(), manifests.into());
    write_object(out, object)
}

fn insert_counts(object: &mut Map<String, Value>, tally: &Tally) {
    for (key, count) in tally.counts() {
        object.insert(key.into(), count.into());
    }
}
