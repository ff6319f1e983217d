//! Every diagnostic's words. Modes hand a [`Message`] of values to the reporter, which puts
//! `PROGRAM: ` before the text rendered here and a newline after it; nothing else builds a
//! message's text.

use super::quote::quote_name;
use crate::check::Tally;
use crate::error::{Error, MessageStyle, S3Failure};
use crate::io::cache::{Ignored, IgnoredReason};
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
    /// `b3sum -c`: what ended the run (a checkfile that cannot be opened or read, a line that
    /// is not UTF-8), as b3sum's `main` prints the error it returns.
    B3sumStopped(&'a str),
    /// `xxhsum -c --warn`: a line that is not a checksum line (the manifest's own bytes).
    XxhsumImproperLine {
        manifest: &'a [u8],
        line_number: usize,
    },
    /// `xxhsum -c`: a line longer than its line buffer, where it stops reading the manifest.
    XxhsumLineTooLong {
        manifest: &'a [u8],
        line_number: usize,
    },
    XxhsumNoProperLines {
        manifest: &'a [u8],
    },
    /// `xxhsum -c`: a manifest it cannot open.
    XxhsumCannotOpen {
        manifest: &'a [u8],
        reason: &'a str,
    },
    /// `xxhsum -c`: a listed file that opened and could not be read, which ends the run.
    XxhsumReadFailed,
    /// A file and what happened to it, in words: a directory passed over without `-r`, an
    /// audited file that could not be read.
    Named {
        name: &'a [u8],
        reason: &'a str,
    },
    /// `--files0-from`: an empty name at entry `entry` (from 1) of the list, as GNU's
    /// `wc --files0-from` words it.
    EmptyListEntry {
        list: &'a [u8],
        entry: usize,
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
    /// Whether `PROGRAM: ` goes before the text: not before b3sum's closing error or xxhsum's
    /// check messages, which those programs print bare.
    pub fn names_the_program(&self) -> bool {
        !matches!(
            self,
            Message::B3sumStopped(_)
                | Message::XxhsumImproperLine { .. }
                | Message::XxhsumLineTooLong { .. }
                | Message::XxhsumNoProperLines { .. }
                | Message::XxhsumCannotOpen { .. }
                | Message::XxhsumReadFailed
        )
    }

    /// The text after `PROGRAM: `, without the newline.
    pub fn render(&self, style: MessageStyle) -> Vec<u8> {
        match self {
            Message::Error(error) => render_error(error, style),
            Message::ImproperLine {
                manifest,
                line_number,
                algorithm,
            } => improper_line(manifest, *line_number, *algorithm),
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
            Message::B3sumFailures(count) => b3sum_failures(*count),
            Message::B3sumStopped(reason) => format!("Error: {reason}").into_bytes(),
            Message::XxhsumImproperLine {
                manifest,
                line_number,
            } => xxhsum_line_error(
                manifest,
                *line_number,
                "Improperly formatted checksum line.",
            ),
            Message::XxhsumLineTooLong {
                manifest,
                line_number,
            } => xxhsum_line_error(manifest, *line_number, "Line too long."),
            Message::XxhsumNoProperLines { manifest } => xxhsum_no_proper_lines(manifest),
            Message::XxhsumCannotOpen { manifest, reason } => xxhsum_cannot_open(manifest, reason),
            Message::XxhsumReadFailed => {
                b"Error: a failure occurred reading the input file.".to_vec()
            }
            Message::Named { name, reason } => with_name(name, &format!(": {reason}")),
            Message::EmptyListEntry { list, entry } => {
                with_name(list, &format!(":{entry}: invalid zero-length file name"))
            }
            Message::NotS3Json { name, reason } => {
                with_name(name, &format!(": not S3 object JSON: {reason}"))
            }
            Message::AuditSummary {
                manifest,
                tree,
                counts,
                improper,
            } => audit_summary(manifest, tree, counts, *improper),
            Message::CacheIgnored { path, ignored } => cache_ignored(path, ignored),
            Message::CacheCounts { path, hits, misses } => format!(
                "cache {}: {hits} files unchanged, taken from it; {misses} hashed",
                path.display()
            )
            .into_bytes(),
            Message::FilterMatchedNothing { option, pattern } => {
                format!("{option} '{pattern}' matched nothing").into_bytes()
            }
            Message::CacheNotWritten { path, error } => format!(
                "warning: could not write the cache {}: {}",
                path.display(),
                crate::error::os_error_text(error)
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

/// coreutils' `FILE: N: improperly formatted SHA256 checksum line` (the algorithm named only
/// by `cksum -a` and the tagged readings).
fn improper_line(manifest: &[u8], line_number: usize, algorithm: Option<&str>) -> Vec<u8> {
    let kind = algorithm.map_or(String::new(), |name| format!("{name} "));
    with_name(
        manifest,
        &format!(": {line_number}: improperly formatted {kind}checksum line"),
    )
}

/// b3sum's warning after its statuses.
fn b3sum_failures(count: u64) -> Vec<u8> {
    let plural = if count == 1 { "" } else { "s" };
    format!("WARNING: {count} computed checksum{plural} did NOT match").into_bytes()
}

/// xxhsum's words for a manifest line it cannot read or take (`error`), with the manifest's
/// name unquoted, in its own bytes (xxhsum prints the name as given, valid UTF-8 or not).
fn xxhsum_line_error(manifest: &[u8], line_number: usize, error: &str) -> Vec<u8> {
    with_raw_name(manifest, &format!(":{line_number}: Error: {error}"))
}

/// xxhsum's words for a manifest with no line it can read.
fn xxhsum_no_proper_lines(manifest: &[u8]) -> Vec<u8> {
    with_raw_name(
        manifest,
        ": no properly formatted xxHash checksum lines found",
    )
}

/// `name`'s own bytes, then `rest`.
fn with_raw_name(name: &[u8], rest: &str) -> Vec<u8> {
    let mut text = name.to_vec();
    text.extend_from_slice(rest.as_bytes());
    text
}

/// xxhsum's words for a manifest (`-c`) or a file to hash that it cannot open: the name's
/// own bytes, in quotes, then `reason` as the caller ends it (hashing, xxhsum ends it with
/// `. `; checking, it does not). `dropin::xxhsum` writes the hashing one itself, not through
/// the reporter, and adds its newline.
pub(crate) fn xxhsum_cannot_open(name: &[u8], reason: &str) -> Vec<u8> {
    let mut text = b"Error: Could not open '".to_vec();
    text.extend_from_slice(name);
    text.extend_from_slice(format!("': {reason}").as_bytes());
    text
}

/// xxhsum's words for a directory named to hash: its own program name, not the one it was
/// called by, and a space before the end. `dropin::xxhsum` writes it and adds the newline.
pub(crate) fn xxhsum_directory(name: &[u8]) -> Vec<u8> {
    let mut text = b"xxhsum: ".to_vec();
    text.extend_from_slice(name);
    text.extend_from_slice(b": Is a directory ");
    text
}

/// xxhsum's words for a file that opened and could not be read while hashed: the name's own
/// bytes and the reason. `dropin::xxhsum` writes it and adds the newline.
pub(crate) fn xxhsum_unreadable(name: &[u8], reason: &str) -> Vec<u8> {
    let mut text = name.to_vec();
    text.extend_from_slice(format!(": {reason}").as_bytes());
    text
}

/// A quoted name, then the rest of the message.
fn with_name(name: &[u8], rest: &str) -> Vec<u8> {
    let mut text = quote_name(name);
    text.extend_from_slice(rest.as_bytes());
    text
}

/// `'MANIFEST': audit of 'TREE': 3 OK, 1 NEW`, then how many lines were improperly formatted.
fn audit_summary(manifest: &[u8], tree: &[u8], counts: &[(&str, u64)], improper: u64) -> Vec<u8> {
    let mut text = with_name(manifest, ": audit of ");
    text.extend_from_slice(&quote_name(tree));
    let parts: Vec<String> = counts
        .iter()
        .map(|(kind, n)| format!("{n} {kind}"))
        .collect();
    text.extend_from_slice(format!(": {}", parts.join(", ")).as_bytes());
    if improper > 0 {
        text.extend_from_slice(format!(", {improper} improperly formatted").as_bytes());
    }
    text
}

/// A cache file that could not be used, and whether this run rewrites it.
fn cache_ignored(path: &Path, ignored: &Ignored) -> Vec<u8> {
    let reason = match &ignored.reason {
        IgnoredReason::Unreadable(error) => crate::error::os_error_text(error),
        IgnoredReason::Said(reason) => reason.clone(),
    };
    format!(
        "warning: ignoring the cache {}: {reason}{}",
        path.display(),
        if ignored.rewritten {
            "; it will be rewritten"
        } else {
            ""
        }
    )
    .into_bytes()
}

/// What ends a run that ran out of memory, after `PROGRAM: ` (coreutils' `xalloc_die`).
pub const MEMORY_EXHAUSTED: &str = "memory exhausted";

/// The line after a usage error, without the program's prefix: how to learn the right usage.
pub fn try_help(program: &str) -> String {
    format!("Try '{program} --help' for more information.\n")
}

/// The words of an audit's counts, in the order of its summary line (and of
/// [`crate::check::Tally::counts`]), improper lines apart.
const AUDIT_WORDS: [&str; 6] = ["OK", "FAILED", "unreadable", "MISSING", "MOVED", "NEW"];

/// An audit's counts with their words, in the order of its summary line: every count of
/// [`crate::check::Tally::counts`] but the improper lines, which the summary line gives apart.
pub(crate) fn audit_counts(tally: &Tally) -> Vec<(&'static str, u64)> {
    let [ok, failed, unreadable, missing, moved, new, _improper] = tally.counts();
    [ok, failed, unreadable, missing, moved, new]
        .into_iter()
        .zip(AUDIT_WORDS)
        .map(|((_, count), word)| (word, count))
        .collect()
}

/// The counts of `--verify-s3` of a tree with their words, in the order of its summary line:
/// the audit's that apply (no MOVED: an object is where its key says), and the objects that
/// could not be verified.
pub(crate) fn bucket_counts(tally: &Tally) -> Vec<(&'static str, u64)> {
    let mut counts = audit_counts(tally);
    counts.retain(|(word, _)| *word != "MOVED");
    counts.push(("cannot verify", tally.cannot_verify));
    counts
}

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
        Some(Verified::Audit(tally)) => audit_counts(tally),
        Some(Verified::Bucket(tally)) => bucket_counts(tally),
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

/// `-a NAME` for a name the table lacks: the closest name, then every valid one in the
/// table's order.
pub fn unknown_algorithm(name: &str) -> String {
    let known = crate::kernels::ALGORITHMS
        .iter()
        .flat_map(|info| std::iter::once(info.name).chain(info.aliases.iter().copied()));
    with_choices(
        format!("unknown algorithm '{name}'"),
        closest(&name.to_ascii_lowercase(), known),
        "names",
        &Algorithm::names_list(),
    )
}

/// The candidate most like `typed`, if one is like it at all: a Jaro similarity above 0.7,
/// the bar clap sets for its own suggestions, so every "did you mean" reads alike.
fn closest<'a>(typed: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|candidate| (strsim::jaro(typed, candidate), candidate))
        .filter(|(similarity, _)| *similarity > 0.7)
        // The first of equally close candidates: the table's order decides.
        .fold(
            None,
            |best: Option<(f64, &str)>, (similarity, candidate)| match best {
                Some((top, _)) if top >= similarity => best,
                _ => Some((similarity, candidate)),
            },
        )
        .map(|(_, candidate)| candidate)
}

/// `HEAD; did you mean 'X'? Valid NOUN: LIST`, or `HEAD; valid NOUN: LIST` with nothing close.
fn with_choices(head: String, suggestion: Option<&str>, noun: &str, valid: &str) -> String {
    match suggestion {
        Some(close) => format!("{head}; did you mean '{close}'? Valid {noun}: {valid}"),
        None => format!("{head}; valid {noun}: {valid}"),
    }
}

/// A usage error clap found in `fasthash`'s command line, in fasthash's words: one line, without
/// clap's `error:`, tip, usage block and help line (the reporter adds the program's name and
/// main the "Try" line). A misspelt option or value gets the closest right one.
pub fn clap_usage(error: &clap::Error) -> String {
    use clap::error::{ContextKind, ErrorKind};
    let context = |kind: ContextKind| clap_context(error, kind);
    let options = |kind: ContextKind| clap_options(error, kind);
    let option = || options(ContextKind::InvalidArg).unwrap_or_default();
    let value = context(ContextKind::InvalidValue).unwrap_or_default();
    let suggestion =
        context(ContextKind::SuggestedArg).or_else(|| context(ContextKind::SuggestedValue));
    let valid = context(ContextKind::ValidValue).map(|list| list.replace("', '", ", "));
    match error.kind() {
        ErrorKind::UnknownArgument => {
            let arg = context(ContextKind::InvalidArg).unwrap_or_default();
            unknown_option(&arg, suggestion)
        }
        ErrorKind::InvalidValue if value.is_empty() => {
            let head = format!("{} needs a value", option());
            match valid {
                Some(valid) => with_choices(head, None, "values", &valid),
                None => head,
            }
        }
        ErrorKind::InvalidValue => {
            let head = format!("invalid value '{value}' for {}", option());
            match valid {
                Some(valid) => with_choices(head, suggestion.as_deref(), "values", &valid),
                None => head,
            }
        }
        ErrorKind::ValueValidation => refused_value(error, &value, &option()),
        ErrorKind::ArgumentConflict => match options(ContextKind::PriorArg) {
            // clap reports an option given twice as one in conflict with itself.
            Some(prior) if prior == option() => format!("{prior} can be given only once"),
            Some(prior) => format!("{} cannot be combined with {prior}", option()),
            None => format!("{} cannot be combined with the options before it", option()),
        },
        ErrorKind::MissingRequiredArgument => format!("an option given needs {} too", option()),
        ErrorKind::NoEquals => {
            format!("{} takes its value after '=': {}=VALUE", option(), option())
        }
        ErrorKind::TooManyValues => {
            format!("{} takes one value; '{value}' is one too many", option())
        }
        ErrorKind::TooFewValues | ErrorKind::WrongNumberOfValues => format!(
            "{} takes {} values, not {}",
            option(),
            context(ContextKind::ExpectedNumValues)
                .or_else(|| context(ContextKind::MinValues))
                .unwrap_or_default(),
            context(ContextKind::ActualNumValues).unwrap_or_default()
        ),
        // The value comes quoted already (`cli::name_the_value_not_utf8`): its bytes are not
        // text to put between plain marks.
        ErrorKind::InvalidUtf8 if !value.is_empty() => {
            format!("invalid value {value} for {}: not valid UTF-8", option())
        }
        ErrorKind::InvalidUtf8 => "an argument is not valid UTF-8".to_string(),
        // Anything else (none of fasthash's options makes one today): clap's first line,
        // without its `error: `.
        _ => {
            let text = error.render().to_string();
            let first = text.lines().next().unwrap_or_default();
            first.strip_prefix("error: ").unwrap_or(first).to_string()
        }
    }
}

/// A piece of a clap error's context as text; several values are joined by `', '`.
fn clap_context(error: &clap::Error, kind: clap::error::ContextKind) -> Option<String> {
    use clap::error::ContextValue;
    match error.get(kind) {
        Some(ContextValue::String(text)) => Some(text.clone()),
        Some(ContextValue::Strings(texts)) => Some(texts.join("', '")),
        Some(ContextValue::StyledStr(text)) => Some(text.to_string()),
        Some(ContextValue::Number(number)) => Some(number.to_string()),
        _ => None,
    }
}

/// The options a clap error's context names, each quoted, joined by `, `.
///
/// clap names an option with its value's placeholder (`--threads <N>`); the name alone reads
/// better in a sentence. Quoted, as coreutils quotes the option it refuses.
fn clap_options(error: &clap::Error, kind: clap::error::ContextKind) -> Option<String> {
    use clap::error::ContextValue;
    let names: Vec<&str> = match error.get(kind)? {
        ContextValue::String(arg) => vec![arg.as_str()],
        ContextValue::Strings(args) => args.iter().map(String::as_str).collect(),
        _ => return None,
    };
    let names: Vec<String> = names
        .iter()
        .map(|arg| format!("'{}'", arg.split(' ').next().unwrap_or_default()))
        .collect();
    Some(names.join(", "))
}

/// An option fasthash does not have: the closest one, or how to hash a file of that name.
fn unknown_option(arg: &str, suggestion: Option<String>) -> String {
    let mut text = format!("unknown option '{arg}'");
    match suggestion {
        Some(close) => text.push_str(&format!("; did you mean '{close}'?")),
        // Nothing like it: perhaps a file whose name starts with `-` (FILE takes any).
        None => text.push_str(&format!(
            "; a file of that name is hashed with 'fasthash -- {arg}'"
        )),
    }
    text
}

/// A value its parser refused: a parser of ours words its whole refusal; another's reason
/// follows the value.
fn refused_value(error: &clap::Error, value: &str, option: &str) -> String {
    let source = std::error::Error::source(error);
    match source.and_then(|source| source.downcast_ref::<Error>()) {
        Some(ours) => ours.to_string(),
        None => match source {
            Some(reason) => format!("invalid value '{value}' for {option}: {reason}"),
            None => format!("invalid value '{value}' for {option}"),
        },
    }
}

/// An error's text after `PROGRAM: `, without a trailing newline.
fn render_error(error: &Error, style: MessageStyle) -> Vec<u8> {
    match error {
        Error::Usage { message, .. } => message.clone().into_bytes(),
        Error::Input { name, source } if style == MessageStyle::B3sum => {
            format!("{}: {source}", String::from_utf8_lossy(name)).into_bytes()
        }
        Error::Input { name, source } => {
            with_name(name, &format!(": {}", crate::error::os_error_text(source)))
        }
        Error::Invalid { name, reason } if style == MessageStyle::B3sum => {
            format!("{}: {reason}", String::from_utf8_lossy(name)).into_bytes()
        }
        Error::Invalid { name, reason } => with_name(name, &format!(": {reason}")),
        Error::Write(source) => {
            format!("write error: {}", crate::error::os_error_text(source)).into_bytes()
        }
        Error::S3 { location, failure } => {
            with_name(location.as_bytes(), &format!(": {}", s3_failure(failure)))
        }
    }
}

/// Why S3 could not be asked, in one line that says what to do about it.
pub(crate) fn s3_failure(failure: &S3Failure) -> String {
    match failure {
        S3Failure::NoCredentials(reason) => format!(
            "no AWS credentials found ({reason}); set AWS_ACCESS_KEY_ID and \
             AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, as for the AWS CLI"
        ),
        S3Failure::BadCredentials(code) => {
            format!("S3 refused the credentials ({code}): check the access key and secret")
        }
        S3Failure::AccessDenied => "access denied: these credentials may not read it".into(),
        S3Failure::NoSuchBucket => "no such bucket".into(),
        S3Failure::NoSuchKey => "no such key".into(),
        S3Failure::WrongRegion(Some(region)) => {
            format!("the bucket is in region {region}: set AWS_REGION={region}")
        }
        S3Failure::WrongRegion(None) => {
            "the bucket is in another region: set AWS_REGION to its region".into()
        }
        S3Failure::Unreachable { endpoint, reason } => {
            format!("cannot reach {endpoint}: {reason}")
        }
        S3Failure::Other(reason) => reason.clone(),
        S3Failure::NotBuiltIn => "this fasthash was built without S3 access (cargo feature \
                                  's3'); compare with the JSON of 'aws s3api head-object' \
                                  instead: --verify-s3 HEAD.json FILE"
            .into(),
    }
}

/// As the reporter renders it for fasthash (what follows `fasthash: `), so that clap can carry
/// an [`Error`] from a value parser back to `config` as the source of its own error.
impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&String::from_utf8_lossy(&render_error(
            self,
            MessageStyle::Coreutils,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_takes_the_most_alike_and_nothing_unlike() {
        assert_eq!(
            closest("sha265", ["md5", "sha256", "sha512"]),
            Some("sha256")
        );
        assert_eq!(closest("jsno", ["json", "tag"]), Some("json"));
        assert_eq!(closest("qqqq", ["md5", "sha256"]), None);
        // Equally close: the first in the table's order.
        assert_eq!(closest("abcd", ["abcx", "abcy"]), Some("abcx"));
    }

    #[test]
    fn unknown_algorithm_suggests_a_name_or_alias_whatever_its_case() {
        let message = unknown_algorithm("SHA265");
        assert!(
            message.starts_with("unknown algorithm 'SHA265'; did you mean 'sha256'? Valid names: "),
            "{message}"
        );
        assert!(message.ends_with(&Algorithm::names_list()), "{message}");
        assert!(unknown_algorithm("xxhash-64").contains("did you mean 'xxhash64'?"));
    }

    #[test]
    fn os_errors_lose_the_rust_suffix_and_names_are_quoted() {
        let error = Error::Input {
            name: b"a b".to_vec(),
            source: io::Error::from_raw_os_error(libc::ENOENT),
        };
        assert_eq!(
            render_error(&error, MessageStyle::Coreutils),
            b"'a b': No such file or directory"
        );
        assert_eq!(
            render_error(&error, MessageStyle::B3sum),
            b"a b: No such file or directory (os error 2)"
        );
        let error = Error::Write(io::Error::from_raw_os_error(libc::ENOSPC));
        assert_eq!(
            render_error(&error, MessageStyle::Coreutils),
            b"write error: No space left on device"
        );
    }

    /// The cache's warnings give an error in the C library's words, as every other message
    /// does, without Rust's `(os error N)`.
    #[test]
    fn cache_warnings_give_errors_in_the_c_librarys_words() {
        let path = Path::new("sums.cache");
        let denied = io::Error::from_raw_os_error(libc::EACCES);
        let written = Message::CacheNotWritten {
            path,
            error: &denied,
        };
        assert_eq!(
            written.render(MessageStyle::Coreutils),
            b"warning: could not write the cache sums.cache: Permission denied"
        );
        let ignored = Ignored {
            reason: IgnoredReason::Unreadable(io::Error::from_raw_os_error(libc::EISDIR)),
            rewritten: false,
        };
        assert_eq!(
            Message::CacheIgnored {
                path,
                ignored: &ignored
            }
            .render(MessageStyle::Coreutils),
            b"warning: ignoring the cache sums.cache: Is a directory"
        );
    }
}
