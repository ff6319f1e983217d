//! `--check MANIFEST --tree DIR`: is DIR what the manifests describe? Every listed file is
//! verified as `--check` verifies it, and DIR is walked (with `-r`'s rules and filters) for the
//! files no manifest lists. A listed file that is gone is `MISSING`, an unlisted one `NEW`,
//! and a new file whose digest is a missing file's is that file `MOVED`, so one rename is one
//! line, not two. Lines come in manifest order, then the new files in walk order; a summary
//! on standard error counts each kind; any NEW, MISSING, MOVED or FAILED fails the run.

use crate::config::Audit;
use crate::error::{Error, ExitStatus};
use crate::format::manifest::{Entry, Line, LineParser, ParseOptions};
use crate::format::messages::Message;
use crate::format::status::{write_audit_status, AuditStatus as Status};
use crate::io::read::hash_input;
use crate::io::walk::{expand, listed_input, Task, WalkOptions};
use crate::io::Input;
use crate::kernels::{Algorithm, Digest};
use crate::report::Reporter;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;

/// Audits the tree against the manifests.
pub fn run(audit: &Audit, out: &mut (impl Write + Send), reporter: &Reporter) -> ExitStatus {
    let tree = audit.tree.as_path();
    if let Err(source) = crate::io::long_paths::metadata(tree).and_then(|m| {
        if m.is_dir() {
            Ok(())
        } else {
            Err(io::Error::from_raw_os_error(libc::ENOTDIR))
        }
    }) {
        reporter.error(&Error::Input {
            name: tree.as_os_str().as_bytes().to_vec(),
            source,
        });
        return ExitStatus::Failure;
    }
    let mut entries: Vec<Entry> = Vec::new();
    let mut improper = 0u64;
    let check = &audit.check;
    let terminator = crate::format::line_end(check.zero_terminated);
    for manifest in &check.manifests {
        // Every entry is kept (the walk is compared against all of them), but not the text.
        let read = crate::io::line_reader(manifest, terminator, true).and_then(|mut lines| {
            let mut parser = LineParser::new(ParseOptions {
                algorithm: check.algorithm,
                extensions: true,
                manifest_is_stdin: *manifest == Input::Stdin,
                any_length: false,
            });
            while let Some(text) = lines.read_line()? {
                match parser.parse(text) {
                    Line::Entry(entry) => entries.push(entry),
                    Line::Improper => improper += 1,
                    Line::Skip => {}
                }
            }
            Ok(())
        });
        if let Err(source) = read {
            reporter.error(&Error::Input {
                name: manifest.name_bytes().to_vec(),
                source,
            });
            return ExitStatus::Failure;
        }
    }

    // The files the manifests do not list, in walk order.
    let listed: HashSet<Vec<u8>> = entries.iter().map(|e| normalized(&e.name)).collect();
    let walk = WalkOptions {
        recursive: true,
        follow_links: audit.follow_links,
        filter: check.filter.clone(),
    };
    let mut walk_failures = Vec::new();
    let new_files: Vec<Vec<u8>> = expand(vec![Input::Path(tree.to_path_buf())], walk)
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

    let listed_results: Vec<Status> = entries
        .par_iter()
        .map(|entry| {
            match crate::check::verify(entry, &listed_input(&entry.name), &check.run.read) {
                Ok(Some(_)) => Status::Ok,
                Ok(None) => Status::Failed,
                Err(e) if e.kind() == io::ErrorKind::NotFound => Status::Missing,
                Err(e) => Status::Unreadable(crate::error::os_error_text(&e)),
            }
        })
        .collect();

    // A new file is a missing one moved when its digest, under one of the missing entry's
    // readings (its algorithm, or an untagged line's other algorithms of that length), is the
    // one listed. Each missing entry explains at most one new file, first come first.
    let mut missing_algorithms: Vec<Algorithm> = Vec::new();
    let mut missing_by_digest: HashMap<(Algorithm, Digest), Vec<usize>> = HashMap::new();
    for (index, (entry, status)) in entries.iter().zip(&listed_results).enumerate().rev() {
        if *status != Status::Missing {
            continue;
        }
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
                    hash_input(&listed_input(name), algorithm, &check.run.read)
                        .ok()
                        .map(|digest| (algorithm, digest))
                })
                .collect()
        })
        .collect();
    let mut moved_to: HashMap<usize, Vec<u8>> = HashMap::new();
    let mut new_statuses: Vec<Status> = Vec::new();
    for (name, digests) in new_files.iter().zip(&new_digests) {
        let source = digests.iter().find_map(|key| {
            let indices = missing_by_digest.get_mut(key)?;
            // An entry listed under several readings may have been taken through another.
            while let Some(index) = indices.pop() {
                if !moved_to.contains_key(&index) {
                    return Some(index);
                }
            }
            None
        });
        match source {
            Some(index) => {
                moved_to.insert(index, name.clone());
                new_statuses.push(Status::Moved {
                    from: entries[index].name.clone(),
                });
            }
            None => new_statuses.push(Status::New),
        }
    }

    let mut counts: Vec<(&'static str, u64)> =
        ["OK", "FAILED", "unreadable", "MISSING", "MOVED", "NEW"]
            .iter()
            .map(|&kind| (kind, 0))
            .collect();
    let mut count = |kind: &str| {
        if let Some(slot) = counts.iter_mut().find(|(k, _)| *k == kind) {
            slot.1 += 1;
        }
    };
    let mut written = Ok(());
    for error in &walk_failures {
        if written.is_ok() {
            written = reporter.error_after(out, error);
        }
    }
    // Listed files in manifest order (a moved one where it was listed), then the new ones.
    let mut report: Vec<(Vec<u8>, Status)> = Vec::new();
    for (index, (entry, status)) in entries.iter().zip(listed_results).enumerate() {
        if let Some(to) = moved_to.get(&index) {
            report.push((
                to.clone(),
                Status::Moved {
                    from: entry.name.clone(),
                },
            ));
        } else {
            report.push((entry.name.clone(), status));
        }
    }
    report.extend(
        new_files
            .into_iter()
            .zip(new_statuses)
            .filter(|(_, status)| *status == Status::New),
    );
    let mut all_good = walk_failures.is_empty() && !(check.options.strict && improper > 0);
    for (name, status) in &report {
        count(match status {
            Status::Unreadable(_) => "unreadable",
            other => other.word(),
        });
        all_good &= *status == Status::Ok;
        if written.is_err() {
            continue;
        }
        if let Status::Unreadable(reason) = status {
            written = reporter.say_after(out, &Message::Named { name, reason });
        }
        if written.is_ok() {
            written = write_status(audit, out, name, status);
        }
    }
    reporter.count(|tally| counts.iter().for_each(|(kind, n)| tally.status(kind, *n)));
    if written.is_ok() && !check.options.status {
        let manifest = check
            .manifests
            .first()
            .map_or(&b"-"[..], |input| input.name_bytes());
        let summary = Message::AuditSummary {
            manifest,
            tree: tree.as_os_str().as_bytes(),
            counts: &counts,
            improper,
        };
        written = reporter.say_after(out, &summary);
    }
    crate::check::verified_status(written.and_then(|()| out.flush()), all_good, reporter)
}

/// One status line; `--quiet` leaves out the OK lines, `--status` every line.
fn write_status(
    audit: &Audit,
    out: &mut impl Write,
    name: &[u8],
    status: &Status,
) -> io::Result<()> {
    let options = &audit.check.options;
    if options.status || (options.quiet && *status == Status::Ok) {
        return Ok(());
    }
    write_audit_status(out, name, status, audit.json)
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
