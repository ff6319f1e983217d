//! `--check MANIFEST --tree DIR`: is DIR what the manifests describe? Every listed file is
//! verified as `--check` verifies it, and DIR is walked (with `-r`'s rules and filters) for the
//! files no manifest lists. A listed file that is gone is `MISSING`, an unlisted one `NEW`,
//! and a new file whose digest is a missing file's is that file `MOVED`, so one rename is one
//! line, not two. Lines come in manifest order, then the new files in walk order; a summary
//! on standard error counts each kind; any NEW, MISSING, MOVED or FAILED fails the run.

use crate::check::{Check, Checked, Tally};
use crate::error::Error;
use crate::format::manifest::{Entry, Line, LineParser, ParseOptions};
use crate::format::messages::Message;
use crate::format::status::{
    write_status, write_summary_json, FileStatus as Status, Listed, ManifestSummary, Report,
    Summary,
};
use crate::io::read::hash_input;
use crate::io::walk::{expand, listed_input, Task, WalkOptions};
use crate::io::Input;
use crate::kernels::{Algorithm, Digest};
use crate::report::Reporter;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// `--check --tree DIR`, as the command line asks: the tree, and the check of its manifests.
#[derive(Debug)]
pub struct Audit {
    pub tree: PathBuf,
    /// `-L`: follow links met in the tree (its files are filtered by `check.filter`).
    pub follow_links: bool,
    pub check: Check,
}

/// A manifest line that names a file: the entry, and where it was read.
struct Listing {
    entry: Entry,
    /// Which of the manifests, and the line's number in it.
    manifest: usize,
    line: usize,
}

/// Audits the tree against the manifests.
pub fn run(audit: &Audit, out: &mut (impl Write + Send), reporter: &Reporter) -> Checked {
    let check = &audit.check;
    let tree = audit.tree.as_path();
    let tree_name = tree.as_os_str().as_bytes();
    // Per manifest: what its lines came to (its improper lines, its files' statuses).
    let mut per_manifest = vec![Tally::default(); check.manifests.len()];
    if let Err(source) = tree_is_a_directory(tree) {
        let reason = crate::error::os_error_text(&source);
        reporter.error(&Error::Input {
            name: tree_name.to_vec(),
            source,
        });
        let tree = Some((tree_name, Some(reason)));
        return ended_early(audit, out, reporter, &per_manifest, None, tree);
    }
    let listings = match read_listings(audit, &mut per_manifest) {
        Ok(listings) => listings,
        Err((index, source)) => {
            let reason = crate::error::os_error_text(&source);
            reporter.error(&Error::Input {
                name: check.manifests[index].name_bytes().to_vec(),
                source,
            });
            let failed = Some((index, reason));
            return ended_early(audit, out, reporter, &per_manifest, failed, None);
        }
    };
    let (new_files, walk_failures) = unlisted_files(audit, &listings);
    let listed_results = verify_listed(audit, &listings);
    let (mut moved_to, unlisted) = find_moved(audit, &listings, &listed_results, new_files);

    // Listed files in manifest order (a moved one where it was listed), then the new ones.
    let mut report: Vec<Reported> = Vec::new();
    for (index, (listing, (status, algorithm))) in listings.iter().zip(listed_results).enumerate() {
        let place = |algorithm| Listed {
            manifest: check.manifests[listing.manifest].name_bytes(),
            line: listing.line,
            algorithm,
        };
        let from = || listing.entry.name.clone();
        let (name, status, listed) = match moved_to.remove(&index) {
            Some((to, matched)) => (to, Status::Moved { from: from() }, place(matched)),
            None => (from(), status, place(algorithm)),
        };
        per_manifest[listing.manifest].count(&status);
        report.push((name, status, Some(listed)));
    }
    let mut tally = Tally::total(&per_manifest);
    for name in unlisted {
        tally.count(&Status::New);
        report.push((name, Status::New, None));
    }
    let all_good = walk_failures.is_empty()
        && !(check.options.strict && tally.improper > 0)
        && report.iter().all(|(_, status, _)| *status == Status::Ok);
    let written = write_report(audit, out, reporter, &walk_failures, &report).and_then(|()| {
        if check.options.status {
            return Ok(());
        }
        let summary = Summary {
            verified: all_good,
            tally,
            manifests: manifest_summaries(audit, &per_manifest, None),
            tree: Some((tree_name, None)),
            cannot_verify: None,
        };
        write_summary(audit, out, reporter, &summary)
    });
    let status =
        crate::check::verified_status(written.and_then(|()| out.flush()), all_good, reporter);
    Checked { status, tally }
}

/// One line of the audit's report: the name shown, its status, and where it was listed.
type Reported<'a> = (Vec<u8>, Status, Option<Listed<'a>>);

/// The tree must be a directory that can be read: an audit of anything else is refused.
pub(crate) fn tree_is_a_directory(tree: &Path) -> io::Result<()> {
    let metadata = crate::io::long_paths::metadata(tree)?;
    if metadata.is_dir() {
        Ok(())
    } else {
        Err(io::Error::from_raw_os_error(libc::ENOTDIR))
    }
}

/// Every manifest's entries, in manifest order; each manifest's improper lines are counted in
/// `per_manifest`. A manifest that cannot be read ends the audit: its index and the error.
fn read_listings(
    audit: &Audit,
    per_manifest: &mut [Tally],
) -> Result<Vec<Listing>, (usize, io::Error)> {
    let check = &audit.check;
    let mut listings: Vec<Listing> = Vec::new();
    let terminator = crate::format::line_end(check.zero_terminated);
    for (index, manifest) in check.manifests.iter().enumerate() {
        // Every entry is kept (the walk is compared against all of them), but not the text.
        let read = crate::io::line_reader(manifest, terminator, true).and_then(|mut lines| {
            let mut parser = LineParser::new(ParseOptions {
                algorithm: check.algorithm,
                extensions: true,
                manifest_is_stdin: *manifest == Input::Stdin,
                any_length: false,
                base64: true,
                layout_per_manifest: true,
            });
            let mut line = 0;
            while let Some(text) = lines.read_line()? {
                line += 1;
                match parser.parse(text) {
                    Line::Entry(entry) => listings.push(Listing {
                        entry,
                        manifest: index,
                        line,
                    }),
                    Line::Improper => per_manifest[index].improper += 1,
                    Line::Skip => {}
                }
            }
            Ok(())
        });
        read.map_err(|source| (index, source))?;
    }
    Ok(listings)
}

/// The files of the tree the manifests do not list, in walk order, and the walk's failures.
fn unlisted_files(audit: &Audit, listings: &[Listing]) -> (Vec<Vec<u8>>, Vec<Error>) {
    let listed: HashSet<Vec<u8>> = listings.iter().map(|l| normalized(&l.entry.name)).collect();
    let walk = WalkOptions {
        recursive: true,
        follow_links: audit.follow_links,
        filter: audit.check.filter.clone(),
    };
    let mut walk_failures = Vec::new();
    let new_files: Vec<Vec<u8>> = expand(vec![Input::Path(audit.tree.clone())], walk)
        .filter_map(|task| match task {
            Task::Hash(input) => Some(input.name_bytes().to_vec()),
            Task::Fail { name, error } => {
                walk_failures.push(Error::Input {
                    name,
                    source: error,
                });
                None
            }
            Task::Skip { .. } => None,
        })
        .filter(|name| !listed.contains(&normalized(name)))
        .collect();
    (new_files, walk_failures)
}

/// Each listed file's status, with the algorithm it was verified under.
fn verify_listed(audit: &Audit, listings: &[Listing]) -> Vec<(Status, Algorithm)> {
    let read = &audit.check.run.read;
    listings
        .par_iter()
        .map(|Listing { entry, .. }| {
            let input = listed_input(&entry.name);
            match crate::check::verify(entry, &input, read) {
                Ok(Some(matched)) => (Status::Ok, matched),
                Ok(None) => (Status::Failed, entry.algorithm),
                Err(e) if e.kind() == io::ErrorKind::NotFound => (Status::Missing, entry.algorithm),
                Err(e) => (
                    Status::Unreadable(crate::error::os_error_text(&e)),
                    entry.algorithm,
                ),
            }
        })
        .collect()
}

/// A moved entry's index, with its new name and the algorithm the new file matched it under.
type MovedTo = HashMap<usize, (Vec<u8>, Algorithm)>;

/// The new files that are missing ones moved: each moved entry's index with its new name and
/// the algorithm the new file matched it under; and the new files that are not (in walk
/// order).
///
/// A new file is a missing one moved when its digest, under one of the missing entry's
/// readings (its algorithm, or an untagged line's other algorithms of that length), is the
/// one listed. Each missing entry explains at most one new file, first come first.
fn find_moved(
    audit: &Audit,
    listings: &[Listing],
    listed_results: &[(Status, Algorithm)],
    new_files: Vec<Vec<u8>>,
) -> (MovedTo, Vec<Vec<u8>>) {
    let mut missing_algorithms: Vec<Algorithm> = Vec::new();
    let mut missing_by_digest: HashMap<(Algorithm, Digest), Vec<usize>> = HashMap::new();
    for (index, (listing, (status, _))) in listings.iter().zip(listed_results).enumerate().rev() {
        if *status != Status::Missing {
            continue;
        }
        let entry = &listing.entry;
        for &algorithm in std::iter::once(&entry.algorithm).chain(entry.fallbacks) {
            if !missing_algorithms.contains(&algorithm) {
                missing_algorithms.push(algorithm);
            }
            missing_by_digest
                .entry((algorithm, entry.expected))
                .or_default()
                .push(index);
        }
    }
    let new_digests: Vec<Vec<(Algorithm, Digest)>> = new_files
        .par_iter()
        .map(|name| {
            missing_algorithms
                .iter()
                .filter_map(|&algorithm| {
                    hash_input(&listed_input(name), algorithm, &audit.check.run.read)
                        .ok()
                        .map(|digest| (algorithm, digest))
                })
                .collect()
        })
        .collect();
    let mut moved_to: MovedTo = HashMap::new();
    let mut unlisted: Vec<Vec<u8>> = Vec::new();
    for (name, digests) in new_files.into_iter().zip(&new_digests) {
        let source = digests.iter().find_map(|key| {
            let indices = missing_by_digest.get_mut(key)?;
            // An entry listed under several readings may have been taken through another.
            while let Some(index) = indices.pop() {
                if !moved_to.contains_key(&index) {
                    return Some((index, key.0));
                }
            }
            None
        });
        match source {
            Some((index, algorithm)) => {
                moved_to.insert(index, (name, algorithm));
            }
            None => unlisted.push(name),
        }
    }
    (moved_to, unlisted)
}

/// The walk's failures, then every status line (an unreadable file's reason on standard error
/// first); the first failed write stops it.
fn write_report(
    audit: &Audit,
    out: &mut impl Write,
    reporter: &Reporter,
    walk_failures: &[Error],
    report: &[Reported],
) -> io::Result<()> {
    write_lines(out, reporter, walk_failures, report, |out, line| {
        let (name, status, listed) = line;
        write_one(audit, out, name, status, listed.as_ref())
    })
}

/// A line of the report of a tree: the name it shows and the status it gives.
pub(crate) trait TreeLine {
    fn name_and_status(&self) -> (&[u8], &Status);
}

impl TreeLine for Reported<'_> {
    fn name_and_status(&self) -> (&[u8], &Status) {
        (&self.0, &self.1)
    }
}

/// The report of a tree compared with what lists its files (manifests, an S3 prefix): the
/// walk's failures, then each line, an unreadable file's reason on standard error before it;
/// the first failed write stops it.
pub(crate) fn write_lines<W: Write, L: TreeLine>(
    out: &mut W,
    reporter: &Reporter,
    walk_failures: &[Error],
    lines: &[L],
    mut write_line: impl FnMut(&mut W, &L) -> io::Result<()>,
) -> io::Result<()> {
    for error in walk_failures {
        reporter.error_after(out, error)?;
    }
    for line in lines {
        if let (name, Status::Unreadable(reason)) = line.name_and_status() {
            reporter.say_after(out, &Message::Named { name, reason })?;
        }
        write_line(out, line)?;
    }
    Ok(())
}

/// The summary: a JSON object on standard output with `--json`, else a message on standard
/// error naming the first manifest and the tree.
fn write_summary(
    audit: &Audit,
    out: &mut impl Write,
    reporter: &Reporter,
    summary: &Summary,
) -> io::Result<()> {
    if audit.check.report == Report::Json {
        return write_summary_json(out, summary);
    }
    let manifest = audit
        .check
        .manifests
        .first()
        .map_or(&b"-"[..], |input| input.name_bytes());
    let counts = crate::format::messages::audit_counts(&summary.tally);
    let message = Message::AuditSummary {
        manifest,
        tree: audit.tree.as_os_str().as_bytes(),
        counts: &counts,
        improper: summary.tally.improper,
    };
    reporter.say_after(out, &message)
}

/// Each manifest's part of the JSON summary; `failed` is the manifest that could not be read.
fn manifest_summaries<'a>(
    audit: &'a Audit,
    per_manifest: &[Tally],
    failed: Option<(usize, String)>,
) -> Vec<ManifestSummary<'a>> {
    audit
        .check
        .manifests
        .iter()
        .zip(per_manifest)
        .enumerate()
        .map(|(index, (manifest, tally))| ManifestSummary {
            name: manifest.name_bytes(),
            tally: *tally,
            error: failed
                .as_ref()
                .filter(|(at, _)| *at == index)
                .map(|(_, reason)| reason.clone()),
            no_proper_lines: false,
            no_file_verified: false,
        })
        .collect()
}

/// An audit that could not start (the tree or a manifest could not be read), its error on
/// standard error already: with `--json`, the summary object says so too.
fn ended_early(
    audit: &Audit,
    out: &mut impl Write,
    reporter: &Reporter,
    per_manifest: &[Tally],
    failed_manifest: Option<(usize, String)>,
    tree: Option<(&[u8], Option<String>)>,
) -> Checked {
    let tally = Tally::total(per_manifest);
    let written = if audit.check.report == Report::Json && !audit.check.options.status {
        let tree_name = audit.tree.as_os_str().as_bytes();
        let summary = Summary {
            verified: false,
            tally,
            manifests: manifest_summaries(audit, per_manifest, failed_manifest),
            tree: Some(tree.unwrap_or((tree_name, None))),
            cannot_verify: None,
        };
        write_summary_json(out, &summary).and_then(|()| out.flush())
    } else {
        Ok(())
    };
    let status = crate::check::verified_status(written, false, reporter);
    Checked { status, tally }
}

/// One status line; `--quiet` leaves out the OK lines, `--status` every line.
fn write_one(
    audit: &Audit,
    out: &mut impl Write,
    name: &[u8],
    status: &Status,
    listed: Option<&Listed>,
) -> io::Result<()> {
    let options = &audit.check.options;
    if !crate::check::is_shown(options, status) {
        return Ok(());
    }
    write_status(out, name, status, listed, audit.check.report)
}

/// A name as compared between manifest and walk: without `./` steps and repeated slashes, so
/// `./data//a` and `data/a` are one file.
fn normalized(name: &[u8]) -> Vec<u8> {
    let absolute = name.first() == Some(&b'/');
    let parts: Vec<&[u8]> = name
        .split(|&b| b == b'/')
        .filter(|part| !part.is_empty() && *part != b".")
        .collect();
    let mut joined = if absolute { b"/".to_vec() } else { Vec::new() };
    joined.extend_from_slice(&parts.join(&b'/'));
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_compare_without_dot_steps_and_repeated_slashes() {
        assert_eq!(normalized(b"./data//a/./b"), b"data/a/b");
        assert_eq!(normalized(b"data/a/b"), b"data/a/b");
        assert_eq!(normalized(b"/abs//x"), b"/abs/x");
        assert_ne!(normalized(b"data/../x"), normalized(b"x"));
    }
}
