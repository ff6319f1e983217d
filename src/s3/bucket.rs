//! `--verify-s3 s3://BUCKET/PREFIX/ DIR`: is what landed under the prefix what DIR holds? The
//! key of a file is the prefix and its path under DIR, with `/`. Each object with a file is
//! verified as `--verify-s3` verifies one (`verify`), in the audit's words: `OK`, `FAILED`,
//! `MISSING` (an object with no file), `NEW` (a file with no object), `cannot verify` (S3
//! gives nothing to compare with: an ETag of SSE-KMS, no value at all). Lines come in key
//! order, then the new files in walk order; a summary names the bucket where the audit names
//! its manifest. Any line but `OK` fails the run.
//!
//! The objects are listed (ListObjectsV2, a page a request), then HeadObject requests stay in
//! flight on the client's runtime while the answers already in are hashed on rayon's pool.

use super::client::Client;
use super::format::{write_tree_file_json, FieldCheck};
use super::location::S3Location;
use crate::audit::{tree_is_a_directory, write_lines, TreeLine};
use crate::check::Tally;
use crate::error::{Error, ExitStatus};
use crate::format::messages::Message;
use crate::format::status::{
    write_status, write_summary_json, FileStatus, ManifestSummary, Report, Summary,
};
use crate::io::progress::{Progress, ProgressChoice};
use crate::io::settings::RunSettings;
use crate::io::walk::{expand, Filter, Task, WalkOptions};
use crate::io::Input;
use crate::report::Reporter;
use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// `--verify-s3 s3://BUCKET/PREFIX/ DIR`, as the command line asks.
#[derive(Debug)]
pub struct VerifyBucket {
    /// The bucket and the prefix (empty, or ending in `/`).
    pub location: S3Location,
    /// `--endpoint-url`, when given.
    pub endpoint: Option<String>,
    pub tree: PathBuf,
    /// `--exclude`/`--include`: files left out of the walk, objects whose file would be.
    pub filter: Filter,
    /// `-L`: follow symbolic links met in the tree.
    pub follow_links: bool,
    /// `--ignore-missing`: objects with no file are passed over.
    pub ignore_missing: bool,
    /// Lines, or with `--json` the audit's objects.
    pub report: Report,
    /// The bar, on a terminal, while objects are verified.
    pub progress: ProgressChoice,
    pub run: RunSettings,
}

/// One object of the listing, paired with the file its key names.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Paired {
    pub key: String,
    pub file: PathBuf,
    /// Whether the walk found the file.
    pub present: bool,
}

/// One line of the report.
struct Line {
    name: Vec<u8>,
    status: FileStatus,
    /// The object's URL (none for a new file).
    object: Option<String>,
    fields: Vec<FieldCheck>,
}

/// Verifies the tree against the objects; the status and the tally, for `--stats`.
pub fn run(
    request: &VerifyBucket,
    out: &mut impl Write,
    reporter: &Reporter,
) -> (ExitStatus, Tally) {
    let tree_name = request.tree.as_os_str().as_bytes();
    if let Err(source) = tree_is_a_directory(&request.tree) {
        let name = tree_name.to_vec();
        reporter.error(&Error::Input { name, source });
        return (ExitStatus::Failure, Tally::default());
    }
    let (files, walk_failures) = walk(request);
    let objects = match objects_verified(request, &files) {
        Ok(objects) => objects,
        Err(error) => {
            reporter.error(&error);
            return (ExitStatus::Failure, Tally::default());
        }
    };
    let listed: HashSet<&[u8]> = objects.iter().map(|line| line.name.as_slice()).collect();
    let new_files: Vec<Line> = files
        .iter()
        .filter(|(name, _)| !listed.contains(name.as_os_str().as_bytes()))
        .map(|(name, _)| Line {
            name: name.as_os_str().as_bytes().to_vec(),
            status: FileStatus::New,
            object: None,
            fields: Vec::new(),
        })
        .collect();
    let report: Vec<Line> = objects.into_iter().chain(new_files).collect();
    let mut tally = Tally::default();
    for line in &report {
        tally.count(&line.status);
    }
    let all_good = walk_failures.is_empty() && report.iter().all(|l| l.status == FileStatus::Ok);
    let written = write_report(request, out, reporter, &walk_failures, &report)
        .and_then(|()| write_summary(request, out, reporter, &tally, all_good));
    let status =
        crate::check::verified_status(written.and_then(|()| out.flush()), all_good, reporter);
    (status, tally)
}

/// The files of the tree (with `-r`'s rules and the filters), each with its key when it has
/// one (a name that is not UTF-8 cannot be a key), and the walk's failures.
fn walk(request: &VerifyBucket) -> (Vec<(PathBuf, Option<String>)>, Vec<Error>) {
    let mut failures = Vec::new();
    let files = expand(
        vec![Input::Path(request.tree.clone())],
        walk_options(request),
    )
    .filter_map(|task| match task {
        Task::Hash(Input::Path(path)) => {
            let key = key_of(&request.location.key, &request.tree, &path);
            Some((path, key))
        }
        Task::Fail { name, error } => {
            failures.push(Error::Input {
                name,
                source: error,
            });
            None
        }
        _ => None,
    })
    .collect();
    (files, failures)
}

/// The walk of the tree: `-r`'s, with `-L` and the filters.
fn walk_options(request: &VerifyBucket) -> WalkOptions {
    WalkOptions {
        recursive: true,
        follow_links: request.follow_links,
        filter: request.filter.clone(),
    }
}

/// The key of the file at `path` under `tree`: the prefix, then the path below the tree with
/// `/` between its parts.
fn key_of(prefix: &str, tree: &Path, path: &Path) -> Option<String> {
    let below = path.strip_prefix(tree).ok()?;
    let parts: Option<Vec<&str>> = below.iter().map(|part| part.to_str()).collect();
    Some(format!("{prefix}{}", parts?.join("/")))
}

/// Each listed object with the file its key names: under the tree, the key less the prefix.
/// Objects whose file the filters leave out are left out; with `--ignore-missing`, objects
/// with no file too.
pub(crate) fn pair(
    request: &VerifyBucket,
    listed: &[String],
    files: &[(PathBuf, Option<String>)],
) -> Vec<Paired> {
    let walked: HashMap<&str, &PathBuf> = files
        .iter()
        .filter_map(|(path, key)| Some((key.as_deref()?, path)))
        .collect();
    listed
        .iter()
        .filter_map(|key| {
            let below = key.strip_prefix(&request.location.key)?;
            // The file read is always one the walk found; a key no walked file has (`a//b`,
            // `/etc/x`, `../x`) only names, under the tree, the file that is not there.
            let (file, present) = match walked.get(key.as_str()) {
                Some(path) => ((*path).clone(), true),
                None => (request.tree.join(below.trim_start_matches('/')), false),
            };
            let wanted =
                request.filter.selects_listed(&file) && (present || !request.ignore_missing);
            wanted.then(|| Paired {
                key: key.clone(),
                file,
                present,
            })
        })
        .collect()
}

/// The objects under the prefix, each with its line: verified against its file, or MISSING.
fn objects_verified(
    request: &VerifyBucket,
    files: &[(PathBuf, Option<String>)],
) -> Result<Vec<Line>, Error> {
    let location = &request.location;
    let client = Client::connect(location, request.endpoint.as_deref())?;
    let keys = client
        .block_on(client.api().list(location))
        .map_err(|failure| location.error(failure))?;
    let paired = pair(request, &keys, files);
    let mut verdicts = verify_concurrently(&client, request, &paired).into_iter();
    let lines = paired.into_iter().map(|object| {
        let (status, fields) = match object.present {
            true => verdicts.next().unwrap_or_else(|| {
                let reason = "no answer from the S3 client".to_string();
                (FileStatus::CannotVerify(reason), Vec::new())
            }),
            false => (FileStatus::Missing, Vec::new()),
        };
        Line {
            name: object.file.as_os_str().as_bytes().to_vec(),
            status,
            object: Some(location.with_key(&object.key).to_string()),
            fields,
        }
    });
    Ok(lines.collect())
}

/// The verdict of every object with a file, in order: HeadObject requests in flight on the
/// client's thread, and each answer, as it arrives, hashed and compared on rayon's pool. Where
/// the system refuses that thread (`ulimit -u`), the requests run here first, all of them in
/// flight as before, and their answers are hashed after.
fn verify_concurrently(
    client: &Client,
    request: &VerifyBucket,
    paired: &[Paired],
) -> Vec<(FileStatus, Vec<FieldCheck>)> {
    use rayon::iter::{ParallelBridge, ParallelIterator};
    let present: Vec<&Paired> = paired.iter().filter(|object| object.present).collect();
    let asked = present
        .iter()
        .enumerate()
        .map(|(place, object)| (place, request.location.with_key(&object.key)))
        .collect();
    let (answers, received) = std::sync::mpsc::channel();
    let read = &request.run.read;
    // The bar counts the tree's files and the bytes hashed, and names the file in hand.
    let tree = [Input::Path(request.tree.clone())];
    let progress = Progress::start(request.progress, &tree, &walk_options(request));
    // Taken by whichever thread asks: the client's, or this one if it could not be started.
    let requests = std::sync::Mutex::new(Some((asked, answers)));
    let ask = || {
        let taken = requests
            .lock()
            .ok()
            .and_then(|mut requests| requests.take());
        if let Some((asked, answers)) = taken {
            client.head_all(asked, answers);
        }
    };
    let mut verdicts: Vec<(usize, (FileStatus, Vec<FieldCheck>))> = std::thread::scope(|scope| {
        if std::thread::Builder::new()
            .spawn_scoped(scope, ask)
            .is_err()
        {
            ask();
        }
        received
            .into_iter()
            .par_bridge()
            .filter_map(|(place, head)| {
                let object = present.get(place)?;
                let file = Input::Path(object.file.clone());
                progress.hashing(&[&file]);
                let verdict = match head {
                    Ok(reported) => judge(&object.file, &reported, read),
                    Err(failure) => (
                        FileStatus::CannotVerify(crate::format::messages::s3_failure(&failure)),
                        Vec::new(),
                    ),
                };
                progress.file_done(&Task::Hash(file));
                Some((place, verdict))
            })
            .collect()
    });
    progress.finish();
    verdicts.sort_by_key(|(place, _)| *place);
    verdicts.into_iter().map(|(_, verdict)| verdict).collect()
}

/// One file against what S3 reported for its object.
fn judge(
    file: &Path,
    reported: &super::reported::Reported,
    read: &crate::io::read::ReadOptions,
) -> (FileStatus, Vec<FieldCheck>) {
    match super::verify::verify_quietly(file, reported, read) {
        Ok(verdict) => (verdict.file_status(), verdict.fields),
        Err(error) => (
            FileStatus::Unreadable(crate::error::os_error_text(&error)),
            Vec::new(),
        ),
    }
}

/// The walk's failures, then every line, as the audit writes them.
fn write_report(
    request: &VerifyBucket,
    out: &mut impl Write,
    reporter: &Reporter,
    walk_failures: &[Error],
    report: &[Line],
) -> io::Result<()> {
    write_lines(
        out,
        reporter,
        walk_failures,
        report,
        |out, line| match request.report {
            Report::Lines => write_status(out, &line.name, &line.status, None, Report::Lines),
            Report::Json => {
                let object = line.object.as_deref();
                write_tree_file_json(out, &line.name, &line.status, object, &line.fields)
            }
        },
    )
}

impl TreeLine for Line {
    fn name_and_status(&self) -> (&[u8], &FileStatus) {
        (&self.name, &self.status)
    }
}

/// The audit's summary with the bucket in the manifest's place: a JSON object with `--json`,
/// else a line on standard error.
fn write_summary(
    request: &VerifyBucket,
    out: &mut impl Write,
    reporter: &Reporter,
    tally: &Tally,
    verified: bool,
) -> io::Result<()> {
    let url = request.location.to_string();
    let tree = request.tree.as_os_str().as_bytes();
    if request.report == Report::Json {
        let summary = Summary {
            verified,
            tally: *tally,
            manifests: vec![ManifestSummary {
                name: url.as_bytes(),
                tally: *tally,
                error: None,
                no_proper_lines: false,
                no_file_verified: false,
            }],
            tree: Some((tree, None)),
            cannot_verify: Some(tally.cannot_verify),
        };
        return write_summary_json(out, &summary);
    }
    let counts = crate::format::messages::bucket_counts(tally);
    let message = Message::AuditSummary {
        manifest: url.as_bytes(),
        tree,
        counts: &counts,
        improper: 0,
    };
    reporter.say_after(out, &message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(prefix: &str, filter: Filter, ignore_missing: bool) -> VerifyBucket {
        VerifyBucket {
            location: S3Location {
                bucket: "b".into(),
                key: prefix.into(),
            },
            endpoint: None,
            tree: PathBuf::from("dir"),
            filter,
            follow_links: false,
            ignore_missing,
            report: Report::Lines,
            progress: ProgressChoice::Never,
            run: RunSettings {
                threads: 1,
                readers: 1,
                read: crate::io::read::ReadOptions {
                    mmap: crate::io::read::MmapChoice::Auto,
                    split_files: false,
                },
                debug: false,
                cache: None,
                stats: false,
            },
        }
    }

    #[test]
    fn keys_are_the_prefix_and_the_path_below_the_tree() {
        let tree = Path::new("dir");
        assert_eq!(
            key_of("up/", tree, Path::new("dir/a b/ü.txt")).as_deref(),
            Some("up/a b/ü.txt")
        );
        assert_eq!(key_of("", tree, Path::new("dir/x")).as_deref(), Some("x"));
        let not_utf8 = Path::new(std::ffi::OsStr::from_bytes(b"dir/\xff"));
        assert_eq!(key_of("", tree, not_utf8), None);
    }

    #[test]
    fn objects_pair_with_files_and_filters_leave_some_out() {
        let files = vec![(PathBuf::from("dir/a"), Some("p/a".to_string()))];
        let listed = vec!["p/a".to_string(), "p/b.tmp".to_string(), "p/c".to_string()];
        let all = pair(&request("p/", Filter::default(), false), &listed, &files);
        let shown: Vec<(&str, bool)> = all.iter().map(|p| (p.key.as_str(), p.present)).collect();
        assert_eq!(shown, [("p/a", true), ("p/b.tmp", false), ("p/c", false)]);
        assert_eq!(all[1].file, Path::new("dir/b.tmp"));
        let filter = Filter::new(&["*.tmp".to_string()], &[]).unwrap();
        let filtered = pair(&request("p/", filter, false), &listed, &files);
        assert_eq!(filtered.len(), 2);
        let present_only = pair(&request("p/", Filter::default(), true), &listed, &files);
        assert_eq!(present_only.len(), 1);
        // A key that no walked file can have names a file under the tree, never one outside.
        let odd = vec!["p//etc/passwd".to_string(), "p/../x".to_string()];
        let paired = pair(&request("p/", Filter::default(), false), &odd, &files);
        assert_eq!(paired[0].file, Path::new("dir/etc/passwd"));
        assert!(paired.iter().all(|p| !p.present));
    }
}
