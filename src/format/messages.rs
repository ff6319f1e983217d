//! Every diagnostic's words. Modes hand a [`Message`] of values to the reporter, which puts
//! `PROGRAM: ` before the text rendered here and a newline after it; nothing else builds a
//! message's text.

use super::quote::quote_name;
use crate::error::{Error, MessageStyle};
use crate::io::cache::Ignored;
use crate::kernels::Algorithm;
use crate::report::{Counts, Verified};
use std::io;
use std::path::Path;

pub enum Message<'a> {
    /// A failure with its file name, or a usage or write error.
    Error(&'a Error),
    /// `--check --warn`: a line that is not a checksum line.
    ImproperLine {
        manifest: &'a [u8],
        line_number: usize,
        /// The algorithm coreutils names there (`MD5`), if the program names one.
        algorithm: Option<&'a str>,
    },
    /// A manifest that failed while read; coreutils gives no reason.
    ManifestReadError {
        manifest: &'a [u8],
    },
    /// `--check --debug`: an untagged line that matched under another algorithm of its length.
    MatchedAs {
        name: &'a [u8],
        matched: Algorithm,
        listed: Algorithm,
    },
    NoProperLines {
        manifest: &'a [u8],
    },
    /// The summary of a manifest's check: how many lines or files of one kind.
    Improper(u64),
    Unreadable(u64),
    Mismatched(u64),
    /// `--ignore-missing` and nothing was there to verify.
    NoFileVerified {
        manifest: &'a [u8],
    },
    /// `b3sum -c`: a line it cannot read, in b3sum's words (`format::manifest`).
    B3sumLine(&'a str),
    /// `b3sum -c`: its one warning, counting every kind of failure.
    B3sumFailures(u64),
    /// A file and what happened to it, in words: a directory passed over without `-r`, an
    /// audited file that could not be read.
    Named {
        name: &'a [u8],
        reason: &'a str,
    },
    /// `--verify-s3`: JSON that is not what S3 prints for an object.
    NotS3Json {
        name: &'a [u8],
        reason: &'a str,
    },
    /// The audit's closing line: the first manifest, the tree, and a count of each status.
    AuditSummary {
        manifest: &'a [u8],
        tree: &'a [u8],
        counts: &'a [(&'a str, u64)],
        /// Manifest lines that were not checksum lines.
        improper: u64,
    },
    /// `--cache`: a cache file that could not be used.
    CacheIgnored {
        path: &'a Path,
        ignored: &'a Ignored,
    },
    /// `--cache --debug`: how many files the cache answered for, and how many were hashed.
    CacheCounts {
        path: &'a Path,
        hits: u64,
        misses: u64,
    },
    CacheNotWritten {
        path: &'a Path,
        error: &'a io::Error,
    },
    /// `--debug`: an `--exclude` or `--include` pattern that matched no file or directory.
    FilterMatchedNothing {
        option: &'a str,
        pattern: &'a str,
    },
    /// `--debug`: the kernel an algorithm runs on (`format::kernels::debug_line`).
    Kernel(Algorithm),
    /// coreutils closes a standard input it read, and fails on one that was closed.
    ClosedStandardInput,
    /// `--stats`: what the run did, and how fast.
    Stats {
        counts: &'a Counts,
        /// Bytes hashed (files taken from `--cache` add none).
        bytes: u64,
        seconds: f64,
    },
}

impl Message<'_> {
    /// The text after `PROGRAM: `, without the newline.
    pub fn render(&self, style: MessageStyle) -> Vec<u8> {
        let with_name = |name: &[u8], rest: &str| {
            let mut text = quote_name(name);
            text.extend_from_slice(rest.as_bytes());
            text
        };
        match self {
            Message::Error(error) => error.render(style),
            Message::ImproperLine {
                manifest,
                line_number,
                algorithm,
            } => {
                let kind = algorithm.map_or(String::new(), |name| format!("{name} "));
                with_name(
                    manifest,
                    &format!(": {line_number}: improperly formatted {kind}checksum line"),
                )
            }
            Message::ManifestReadError { manifest } => with_name(manifest, ": read error"),
            Message::MatchedAs {
                name,
                matched,
                listed,
            } => with_name(
                name,
                &format!(": matched as {}, not {}", matched.name(), listed.name()),
            ),
            Message::NoProperLines { manifest } => {
                with_name(manifest, ": no properly formatted checksum lines found")
            }
            Message::Improper(count) => warning(
                *count,
                "line is improperly formatted",
                "lines are improperly formatted",
            ),
            Message::Unreadable(count) => warning(
                *count,
                "listed file could not be read",
                "listed files could not be read",
            ),
            Message::Mismatched(count) => warning(
                *count,
                "computed checksum did NOT match",
                "computed checksums did NOT match",
            ),
            Message::NoFileVerified { manifest } => with_name(manifest, ": no file was verified"),
            Message::B3sumLine(reason) => reason.as_bytes().to_vec(),
            Message::B3sumFailures(count) => format!(
                "WARNING: {count} computed checksum{} did NOT match",
                if *count == 1 { "" } else { "s" }
            )
            .into_bytes(),
            Message::Named { name, reason } => with_name(name, &format!(": {reason}")),
            Message::NotS3Json { name, reason } => {
                with_name(name, &format!(": not S3 object JSON: {reason}"))
            }
            Message::AuditSummary {
                manifest,
                tree,
                counts,
                improper,
            } => {
                let mut text = with_name(manifest, ": audit of ");
                text.extend_from_slice(&quote_name(tree));
                let parts: Vec<String> = counts
                    .iter()
                    .map(|(kind, n)| format!("{n} {kind}"))
                    .collect();
                text.extend_from_slice(format!(": {}", parts.join(", ")).as_bytes());
                if *improper > 0 {
                    text.extend_from_slice(format!(", {improper} improperly formatted").as_bytes());
                }
                text
            }
            Message::CacheIgnored { path, ignored } => format!(
                "warning: ignoring the cache {}: {}{}",
                path.display(),
                ignored.reason,
                if ignored.rewritten {
                    "; it will be rewritten"
                } else {
                    ""
                }
            )
            .into_bytes(),
            Message::CacheCounts { path, hits, misses } => format!(
                "cache {}: {hits} files unchanged, taken from it; {misses} hashed",
                path.display()
            )
            .into_bytes(),
            Message::FilterMatchedNothing { option, pattern } => {
                format!("{option} '{pattern}' matched nothing").into_bytes()
            }
            Message::CacheNotWritten { path, error } => format!(
                "warning: could not write the cache {}: {error}",
                path.display()
            )
            .into_bytes(),
            Message::Kernel(algorithm) => super::kernels::debug_line(*algorithm).into_bytes(),
            Message::ClosedStandardInput => b"standard input: Bad file descriptor".to_vec(),
            Message::Stats {
                counts,
                bytes,
                seconds,
            } => stats(counts, *bytes, *seconds).into_bytes(),
        }
    }
}

/// The line after a usage error, without the program's prefix: how to learn the right usage.
pub fn try_help(program: &str) -> String {
    format!("Try '{program} --help' for more information.\n")
}

/// The words of an audit's counts, in the order of its summary line (and of
/// [`crate::check::Tally::counts`]), improper lines apart.
pub(crate) const AUDIT_WORDS: [&str; 6] = ["OK", "FAILED", "unreadable", "MISSING", "MOVED", "NEW"];

/// `1,234 files, 5.67 GB in 2.31 s, 2.45 GB/s`, then `, 2 failed` when some could not be read;
/// a check's or an audit's counts after a `;`, every one, in a fixed order: `; 10 OK, 1 FAILED,
/// 0 missing, 1 unreadable` (missing: passed over by `--ignore-missing`), or the audit's.
fn stats(counts: &Counts, bytes: u64, seconds: f64) -> String {
    use super::units;
    let statuses: Vec<(&str, u64)> = match &counts.verified {
        None => Vec::new(),
        Some(Verified::Check(tally)) => vec![
            ("OK", tally.ok),
            ("FAILED", tally.failed),
            ("missing", tally.missing),
            ("unreadable", tally.unreadable),
        ],
        Some(Verified::Audit(tally)) => AUDIT_WORDS
            .iter()
            .zip(tally.counts())
            .map(|(word, (_, n))| (*word, n))
            .collect(),
    };
    let files = match counts.verified {
        None => counts.files,
        Some(_) => statuses.iter().map(|(_, n)| n).sum(),
    };
    let mut text = format!(
        "{} {}, {} in {}, {}",
        units::count(files),
        if files == 1 { "file" } else { "files" },
        units::bytes(bytes),
        units::seconds(seconds),
        units::rate(bytes, seconds)
    );
    if counts.failed > 0 {
        text.push_str(&format!(", {} failed", units::count(counts.failed)));
    }
    let statuses: Vec<String> = statuses
        .iter()
        .map(|(word, n)| format!("{} {word}", units::count(*n)))
        .collect();
    if !statuses.is_empty() {
        text.push_str("; ");
        text.push_str(&statuses.join(", "));
    }
    text
}

/// coreutils' summary warnings: `WARNING: 1 line is ...`, `WARNING: 2 lines are ...`.
fn warning(count: u64, one: &str, many: &str) -> Vec<u8> {
    if count == 1 {
        format!("WARNING: 1 {one}").into_bytes()
    } else {
        format!("WARNING: {count} {many}").into_bytes()
    }
}
