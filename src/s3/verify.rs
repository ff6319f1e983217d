//! `--verify-s3 HEAD.json FILE` and `--verify-s3 s3://BUCKET/KEY FILE`: a local file against
//! what S3 reports for the object. The JSON is what `aws s3api head-object --checksum-mode
//! ENABLED` prints (checksum fields at the top, a composite value with its `-N`,
//! `ContentLength`, `ETag` in quotes, `PartsCount` with `--part-number`) or `aws s3api
//! get-object-attributes` (`Checksum: {...}`, `ObjectParts`, `ObjectSize`, an unquoted `ETag`);
//! an `s3://` URL is asked with HeadObject itself (`client`), whose headers say the same.
//!
//! A multipart value depends on the part size, which S3 does not report: it is taken from the
//! first part's size when S3 gives it (HeadObject with a part number, ObjectParts), else tried
//! among the sizes that give the reported number of parts (the AWS clients' 8 MiB-doubling
//! size first, then whole MiB), at most [`MAX_TRIES`] of them. When the cut is known (a
//! single upload, or parts of a known size), every value S3 reported is computed in one read
//! of the file.

use super::format::{
    write_field_line, write_verify_error_json, write_verify_json, write_verify_line, Compared,
    Field, FieldCheck, FieldResult, ValuesFrom,
};
use super::location::S3Location;
use super::parts::part_count;
use super::reported::{parse_reported, split_part_count, Reported};
use super::rules::{client_part_size, Upload, MIB, MIN_PART_SIZE};
use super::values::{compute, compute_all, S3Checksum};
use crate::error::{Error, ExitStatus};
use crate::format::messages::Message;
use crate::format::status::{FileStatus, Report};
use crate::io::long_paths;
use crate::io::read::{hash_file, ReadOptions};
use crate::io::settings::RunSettings;
use crate::kernels::{Algorithm, Digest, S3ChecksumType};
use crate::report::{Counts, Reporter};
use serde_json::Value;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// `--verify-s3 JSON FILE` or `--verify-s3 s3://BUCKET/KEY FILE`, as the command line asks.
#[derive(Debug)]
pub struct VerifyS3 {
    /// Where S3's values come from.
    pub source: Source,
    pub file: PathBuf,
    /// A line a field, or with `--json` the verdict as one JSON object.
    pub report: Report,
    pub run: RunSettings,
}

/// What S3 reported, as a file of its JSON or as the object to ask.
#[derive(Debug)]
pub enum Source {
    Json(PathBuf),
    Object {
        location: S3Location,
        /// `--endpoint-url`, when given (else the AWS CLI's own settings decide).
        endpoint: Option<String>,
    },
}

const MAX_TRIES: usize = 8;

/// Part sizes that cut `size` bytes into exactly `count` parts, likeliest first.
pub(crate) fn candidate_part_sizes(size: u64, count: u64, listed: &[u64]) -> Vec<u64> {
    fn push(candidates: &mut Vec<u64>, size: u64, count: u64, p: u64) {
        if p > 0 && part_count(size, p) == count && !candidates.contains(&p) {
            candidates.push(p);
        }
    }
    let mut candidates = Vec::new();
    if let Some(&first) = listed.first() {
        push(&mut candidates, size, count, first);
    }
    if count <= 1 {
        push(&mut candidates, size, count, size.max(MIN_PART_SIZE));
        return candidates;
    }
    push(&mut candidates, size, count, client_part_size(size));
    let smallest = size.div_ceil(count).max(MIN_PART_SIZE);
    let mut p = smallest.div_ceil(MIB) * MIB;
    while part_count(size, p) == count && candidates.len() < MAX_TRIES {
        push(&mut candidates, size, count, p);
        p += MIB;
    }
    push(&mut candidates, size, count, smallest);
    candidates.truncate(MAX_TRIES);
    candidates
}

/// Returns the status and, for `--stats`, the file counted (failed when it could not be read).
pub fn run(request: &VerifyS3, out: &mut impl Write, reporter: &Reporter) -> (ExitStatus, Counts) {
    let file = &request.file;
    let url;
    let source = match &request.source {
        Source::Json(path) => ValuesFrom::S3Json(path.as_os_str().as_encoded_bytes()),
        Source::Object { location, .. } => {
            url = location.to_string();
            ValuesFrom::Object(&url)
        }
    };
    let reported = match reported(request, reporter) {
        Ok(reported) => reported,
        Err(status) => return (status, Counts::default()),
    };
    let compared = Compared {
        file: file.as_os_str().as_encoded_bytes(),
        source,
    };
    let json = request.report == Report::Json;
    // Text lines go out a field at a time, as each is checked; the JSON object at the end.
    let verified = verify(file, &reported, &request.run.read, |field| {
        if json {
            Ok(())
        } else {
            write_field_line(out, field)
        }
    });
    let mut counts = Counts::default();
    counts.file(matches!(verified, Err(Failure::Read(_))));
    let written = match &verified {
        Ok(verdict) if json => {
            write_verify_json(out, &compared, verdict.size, &verdict.fields, verdict.ok())
        }
        Ok(verdict) => write_verify_line(out, compared.file, verdict.ok()),
        Err(Failure::Read(source)) if json => {
            write_verify_error_json(out, &compared, &crate::error::os_error_text(source))
        }
        Err(_) => Ok(()),
    };
    let written = written.and_then(|()| out.flush());
    let status = match verified {
        Ok(verdict) => match written {
            Ok(()) if verdict.ok() => ExitStatus::Success,
            Ok(()) => ExitStatus::Failure,
            Err(e) => reporter.output_failed(e, ExitStatus::Failure),
        },
        Err(Failure::Read(source)) => {
            reporter.error(&Error::Input {
                name: compared.file.to_vec(),
                source,
            });
            ExitStatus::Failure
        }
        Err(Failure::Write(e)) => reporter.output_failed(e, ExitStatus::Failure),
    };
    (status, counts)
}

/// What S3 reported: the JSON read and parsed, or the object asked. A failure is reported
/// here; its status comes back: 2 for JSON that cannot be used (as for a wrong command line),
/// 1 when S3 could not be asked.
fn reported(request: &VerifyS3, reporter: &Reporter) -> Result<Reported, ExitStatus> {
    let json_path = match &request.source {
        Source::Json(path) => path,
        Source::Object { location, endpoint } => {
            return ask_s3(location, endpoint.as_deref()).map_err(|error| {
                reporter.error(&error);
                ExitStatus::Failure
            })
        }
    };
    let json_name = json_path.as_os_str().as_encoded_bytes();
    let text = long_paths::read(json_path).map_err(|source| {
        reporter.error(&Error::Input {
            name: json_name.to_vec(),
            source,
        });
        ExitStatus::Usage
    })?;
    // Windows PowerShell 5's `Out-File -Encoding utf8` (and Notepad before Windows 10's 1903)
    // save the AWS CLI's output with a UTF-8 byte-order mark first; RFC 8259 lets a parser
    // ignore it, and serde_json does not. (UTF-16, PowerShell 5's default, stays refused.)
    let json = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&text);
    serde_json::from_slice::<Value>(json)
        .map_err(|e| e.to_string())
        .and_then(|json| parse_reported(&json))
        .map_err(|reason| {
            reporter.say(&Message::NotS3Json {
                name: json_name,
                reason: &reason,
            });
            ExitStatus::Usage
        })
}

/// HeadObject of the object (and of its first part, for a multipart one).
fn ask_s3(location: &S3Location, endpoint: Option<&str>) -> Result<Reported, Error> {
    let client = super::client::Client::connect(location, endpoint)?;
    client
        .block_on(client.api().head_object(location))
        .map_err(|failure| location.error(failure))
}

/// Why a verification stopped: the file could not be read, or a field's line not written.
enum Failure {
    Read(io::Error),
    Write(io::Error),
}

/// Every field compared, and the size of the file.
pub(crate) struct Verdict {
    pub size: u64,
    pub fields: Vec<FieldCheck>,
}

impl Verdict {
    /// True when every field that could be checked matched and at least one value of the
    /// content did (a size alone verifies nothing).
    pub(crate) fn ok(&self) -> bool {
        let matched = |f: &FieldCheck| {
            matches!(f.result, FieldResult::Matched { .. }) && f.field != Field::ContentLength
        };
        let failed = |f: &FieldCheck| {
            matches!(
                f.result,
                FieldResult::Differs { .. } | FieldResult::NoPartSize { .. }
            )
        };
        !self.fields.iter().any(failed) && self.fields.iter().any(matched)
    }

    /// The verdict in the audit's words: OK, FAILED when a field differs, else why nothing
    /// could be verified.
    pub(crate) fn file_status(&self) -> FileStatus {
        if self.ok() {
            return FileStatus::Ok;
        }
        let differs = |f: &FieldCheck| {
            matches!(
                f.result,
                FieldResult::Differs { .. } | FieldResult::NoPartSize { .. }
            )
        };
        if self.fields.iter().any(differs) {
            return FileStatus::Failed;
        }
        let reason = self.fields.iter().find_map(|f| match f.result {
            FieldResult::CannotVerify(reason) => Some(reason),
            _ => None,
        });
        FileStatus::CannotVerify(
            reason
                .unwrap_or("S3 reports no checksum and no ETag")
                .into(),
        )
    }
}

/// Compares each field S3 reported with the file, handing each result to `checked` as it
/// comes.
fn verify(
    path: &Path,
    reported: &Reported,
    read: &ReadOptions,
    mut checked: impl FnMut(&FieldCheck) -> io::Result<()>,
) -> Result<Verdict, Failure> {
    let mut local = LocalFile {
        path,
        size: regular_file_size(path).map_err(Failure::Read)?,
        read,
        known: Vec::new(),
    };
    local.known = values_in_one_read(&local, reported).map_err(Failure::Read)?;
    let mut fields = Vec::new();
    let mut add = |field: FieldCheck| {
        checked(&field).map_err(Failure::Write)?;
        fields.push(field);
        Ok(())
    };
    if let Some(expected) = reported.size {
        let computed = local.size.to_string();
        let result = if expected == local.size {
            FieldResult::Matched {
                computed,
                part_size: None,
            }
        } else {
            FieldResult::Differs { computed }
        };
        add(FieldCheck {
            field: Field::ContentLength,
            expected: expected.to_string(),
            result,
        })?;
    }
    // The part size a COMPOSITE checksum matched with: the ETag's parts are the same.
    let mut known_part_size = None;
    for (algorithm, value) in &reported.checksums {
        let field = check_checksum(&local, reported, *algorithm, value).map_err(Failure::Read)?;
        if let FieldResult::Matched {
            part_size: Some(size),
            ..
        } = field.result
        {
            known_part_size = Some(size);
        }
        add(field)?;
    }
    if let Some(etag) = &reported.etag {
        add(check_etag(&local, reported, etag, known_part_size).map_err(Failure::Read)?)?;
    }
    Ok(Verdict {
        size: local.size,
        fields,
    })
}

/// The size of the regular file at `path`. Every field is judged by it (the length, the parts'
/// cut), so anything else is refused before a field is: a directory as reading one fails
/// (`Is a directory`), and what has no size of its own (a FIFO, a device) with its kind.
fn regular_file_size(path: &Path) -> io::Result<u64> {
    let metadata = long_paths::metadata(path)?;
    match () {
        _ if metadata.is_file() => Ok(metadata.len()),
        _ if metadata.is_dir() => Err(io::Error::from_raw_os_error(libc::EISDIR)),
        _ => Err(io::Error::other(format!(
            "it is {}, with no size to compare with S3's object",
            crate::io::file_kind(&metadata)
        ))),
    }
}

/// [`verify`] for a file of a tree: the verdict, or why the file could not be read.
pub(crate) fn verify_quietly(
    path: &Path,
    reported: &Reported,
    read: &ReadOptions,
) -> io::Result<Verdict> {
    match verify(path, reported, read, |_| Ok(())) {
        Ok(verdict) => Ok(verdict),
        Err(Failure::Read(error) | Failure::Write(error)) => Err(error),
    }
}

/// The local file compared: the values one read gave when the cut was known, and a read for
/// each other value computed from it.
struct LocalFile<'a> {
    path: &'a Path,
    size: u64,
    read: &'a ReadOptions,
    /// What [`values_in_one_read`] computed.
    known: Vec<S3Checksum>,
}

impl LocalFile<'_> {
    fn digest(&self, algorithm: Algorithm) -> io::Result<Digest> {
        let whole = self.known.iter().find(|value| {
            value.algorithm == algorithm && value.checksum_type == S3ChecksumType::FullObject
        });
        match whole {
            Some(value) => Ok(value.digest),
            None => hash_file(long_paths::open_file(self.path)?, algorithm, self.read),
        }
    }

    /// The file's MD5 in hex: the single upload's ETag when one read computed it.
    fn md5_hex(&self) -> io::Result<String> {
        let single_etag = self
            .known
            .iter()
            .find_map(|value| value.etag.as_deref().filter(|_| value.parts.is_none()));
        match single_etag {
            Some(etag) => Ok(etag.trim_matches('"').to_string()),
            None => Ok(self.digest(Algorithm::Md5)?.to_hex()),
        }
    }

    /// A COMPOSITE value in parts of `part_size` that one read computed, `relevant` saying
    /// which.
    fn known_in_parts(
        &self,
        part_size: u64,
        relevant: &impl Fn(&S3Checksum) -> bool,
    ) -> Option<&S3Checksum> {
        self.known.iter().find(|value| {
            value.parts.as_ref().map(|parts| parts.part_size) == Some(part_size) && relevant(value)
        })
    }

    /// The first of `candidates` whose COMPOSITE upload in parts of that size gives a value
    /// `matches` accepts, with what it gave.
    fn first_matching_part_size(
        &self,
        candidates: &[u64],
        algorithm: Algorithm,
        want_etag: bool,
        matches: impl Fn(&S3Checksum) -> bool,
    ) -> io::Result<Option<(u64, S3Checksum)>> {
        let relevant = |value: &S3Checksum| match want_etag {
            true => value.etag.is_some(),
            false => {
                value.algorithm == algorithm && value.checksum_type == S3ChecksumType::Composite
            }
        };
        for &part_size in candidates {
            let result = match self.known_in_parts(part_size, &relevant) {
                Some(known) => known.clone(),
                None => {
                    let upload = Upload::Multipart {
                        part_size,
                        checksum_type: S3ChecksumType::Composite,
                    };
                    let file = long_paths::open_file(self.path)?;
                    compute(file, algorithm, upload, want_etag, self.read)?
                }
            };
            if matches(&result) {
                return Ok(Some((part_size, result)));
            }
        }
        Ok(None)
    }
}

/// Every value S3 reported, computed in one read of the file, when S3 says how the object
/// was cut (else nothing: the values are then tried part size after part size).
fn values_in_one_read(local: &LocalFile, reported: &Reported) -> io::Result<Vec<S3Checksum>> {
    let Some(cut) = reported.known_cut(local.size) else {
        return Ok(Vec::new());
    };
    let mut uploads: Vec<(Algorithm, Upload)> = reported
        .checksums
        .iter()
        .filter_map(|(algorithm, value)| {
            let checksum_type = match is_composite(reported, value) {
                true => S3ChecksumType::Composite,
                false => S3ChecksumType::FullObject,
            };
            let upload = match cut {
                None if checksum_type == S3ChecksumType::Composite => return None,
                None => Upload::Single,
                Some(part_size) => Upload::Multipart {
                    part_size,
                    checksum_type,
                },
            };
            // A type S3 does not take for the algorithm is left to the field's own check.
            let takes =
                upload == Upload::Single || algorithm.info().s3_multipart.contains(&checksum_type);
            takes.then_some((*algorithm, upload))
        })
        .collect();
    let want_etag = reported.etag_not_md5.is_none() && reported.etag.is_some();
    if uploads.is_empty() {
        if !want_etag {
            return Ok(Vec::new());
        }
        // The ETag alone: MD5, whose part digests it is made of.
        let upload = match cut {
            None => Upload::Single,
            Some(part_size) => Upload::Multipart {
                part_size,
                checksum_type: S3ChecksumType::Composite,
            },
        };
        uploads.push((Algorithm::Md5, upload));
    }
    let file = long_paths::open_file(local.path)?;
    compute_all(file, &uploads, want_etag, local.read)
}

/// Whether S3's value is COMPOSITE: with a `-N`, or so typed.
fn is_composite(reported: &Reported, value: &str) -> bool {
    split_part_count(value).is_some() || reported.checksum_type.as_deref() == Some("COMPOSITE")
}

/// One checksum field: of the whole file, or COMPOSITE with the part size found among the
/// candidates.
fn check_checksum(
    local: &LocalFile,
    reported: &Reported,
    algorithm: Algorithm,
    value: &str,
) -> io::Result<FieldCheck> {
    let (base, suffix) = match split_part_count(value) {
        Some((base, count)) => (base, Some(count)),
        None => (value, None),
    };
    let is_composite = reported.checksum_type.as_deref() == Some("COMPOSITE");
    let composite_count = suffix.or(reported.parts_count.filter(|_| is_composite));
    let checksum = |checksum_type, part_count, result| FieldCheck {
        field: Field::Checksum {
            algorithm,
            checksum_type,
            part_count,
        },
        expected: value.to_string(),
        result,
    };
    let Some(count) = composite_count else {
        if is_composite {
            let result = FieldResult::CannotVerify("COMPOSITE, but no part count");
            return Ok(checksum(S3ChecksumType::Composite, None, result));
        }
        let computed = local.digest(algorithm)?.to_base64();
        let result = if computed == base {
            FieldResult::Matched {
                computed,
                part_size: None,
            }
        } else {
            FieldResult::Differs { computed }
        };
        return Ok(checksum(S3ChecksumType::FullObject, None, result));
    };
    if let Some(reason) = reported.parts_unverifiable(local.size, count) {
        let result = FieldResult::CannotVerify(reason);
        return Ok(checksum(S3ChecksumType::Composite, Some(count), result));
    }
    let candidates = candidate_part_sizes(local.size, count, &reported.part_sizes);
    let matched = local.first_matching_part_size(&candidates, algorithm, false, |result| {
        result.digest.to_base64() == base
    })?;
    let result = match matched {
        Some((part_size, result)) => FieldResult::Matched {
            // In S3's form: with the `-N` when S3's value has one.
            computed: match suffix {
                Some(_) => result.value(),
                None => result.digest.to_base64(),
            },
            part_size: Some(part_size),
        },
        None => FieldResult::NoPartSize { tried: candidates },
    };
    Ok(checksum(S3ChecksumType::Composite, Some(count), result))
}

/// The ETag: a multipart one (`-N`) with its part size found among the candidates, the one a
/// checksum matched with first; else the MD5 of the file; else (not an MD5) unverifiable.
fn check_etag(
    local: &LocalFile,
    reported: &Reported,
    etag: &str,
    known_part_size: Option<u64>,
) -> io::Result<FieldCheck> {
    let field_check = |part_count, result| FieldCheck {
        field: Field::Etag { part_count },
        expected: etag.to_string(),
        result,
    };
    let count = split_part_count(etag).map(|(_, count)| count);
    if let Some(reason) = reported.etag_not_md5 {
        return Ok(field_check(count, FieldResult::CannotVerify(reason)));
    }
    if let Some(count) = count {
        if let Some(reason) = reported.parts_unverifiable(local.size, count) {
            return Ok(field_check(Some(count), FieldResult::CannotVerify(reason)));
        }
        let mut candidates = candidate_part_sizes(local.size, count, &reported.part_sizes);
        if let Some(known) = known_part_size {
            candidates.retain(|&candidate| candidate != known);
            candidates.insert(0, known);
        }
        fn unquoted(result: &S3Checksum) -> &str {
            result.etag.as_deref().unwrap_or("").trim_matches('"')
        }
        let matched =
            local.first_matching_part_size(&candidates, Algorithm::Md5, true, |result| {
                unquoted(result) == etag
            })?;
        let result = match matched {
            Some((part_size, result)) => FieldResult::Matched {
                computed: unquoted(&result).to_string(),
                part_size: Some(part_size),
            },
            None => FieldResult::NoPartSize { tried: candidates },
        };
        return Ok(field_check(Some(count), result));
    }
    if etag.len() == 32 && etag.bytes().all(|b| b.is_ascii_hexdigit()) {
        let computed = local.md5_hex()?;
        let result = if computed == etag.to_ascii_lowercase() {
            FieldResult::Matched {
                computed,
                part_size: None,
            }
        } else {
            FieldResult::Differs { computed }
        };
        return Ok(field_check(None, result));
    }
    Ok(field_check(
        None,
        FieldResult::CannotVerify("not an MD5 ETag: encrypted with SSE-KMS or SSE-C?"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_sizes_that_give_the_count() {
        let twelve = 12 * MIB;
        assert_eq!(candidate_part_sizes(twelve, 3, &[]), vec![5 * MIB]);
        assert_eq!(candidate_part_sizes(twelve, 2, &[])[0], 8 * MIB);
        assert_eq!(candidate_part_sizes(twelve, 1, &[]), vec![twelve]);
        assert_eq!(candidate_part_sizes(twelve, 3, &[6 * MIB]), vec![5 * MIB]);
        for size in candidate_part_sizes(100 * MIB, 7, &[]) {
            assert_eq!(part_count(100 * MIB, size), 7);
        }
    }
}
