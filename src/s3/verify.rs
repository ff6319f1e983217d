//! `--verify-s3 HEAD.json FILE`: a local file against what S3 reported for the object, from
//! `aws s3api head-object --checksum-mode ENABLED` (checksum fields at the top, a composite
//! value with its `-N`, `ContentLength`, `ETag` in quotes, `PartsCount` with `--part-number`)
//! or `aws s3api get-object-attributes` (`Checksum: {...}`, `ObjectParts`, `ObjectSize`, an
//! unquoted `ETag`).
//!
//! A multipart value depends on the part size, which S3 does not report: it is taken from the
//! parts' sizes when the JSON lists them, else tried among the sizes that give the reported
//! number of parts (the AWS clients' 8 MiB-doubling size first, then whole MiB), at most
//! [`MAX_TRIES`] of them.

use super::format::{
    write_field_line, write_verify_error_json, write_verify_json, write_verify_line, Compared,
    Field, FieldCheck, FieldResult,
};
use super::parts::part_count;
use super::rules::{client_part_size, Upload, MIB, MIN_PART_SIZE};
use super::values::{compute, S3Checksum};
use crate::error::{Error, ExitStatus};
use crate::format::messages::Message;
use crate::io::long_paths;
use crate::io::read::{hash_file, ReadOptions};
use crate::io::settings::RunSettings;
use crate::kernels::{Algorithm, Digest, S3ChecksumType};
use crate::report::Reporter;
use serde_json::Value;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// `--verify-s3 JSON FILE`, as the command line asks.
#[derive(Debug)]
pub struct VerifyS3 {
    /// The JSON that S3 printed.
    pub json: PathBuf,
    pub file: PathBuf,
    /// `--json`: the verdict as one JSON object.
    pub json_output: bool,
    pub run: RunSettings,
}

const MAX_TRIES: usize = 8;

/// What the JSON says about the object.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Reported {
    pub checksums: Vec<(Algorithm, String)>,
    pub checksum_type: Option<String>,
    pub size: Option<u64>,
    pub etag: Option<String>,
    pub parts_count: Option<u64>,
    pub part_sizes: Vec<u64>,
}

/// Reads the fields fasthash can check from head-object or get-object-attributes output.
pub(crate) fn parse_reported(json: &Value) -> Result<Reported, String> {
    let top = json
        .as_object()
        .ok_or("expected a JSON object, as aws s3api prints")?;
    let mut reported = Reported::default();
    let nested = top.get("Checksum").and_then(Value::as_object);
    for object in [Some(top), nested].into_iter().flatten() {
        for (key, value) in object {
            let (Some(name), Some(text)) = (key.strip_prefix("Checksum"), value.as_str()) else {
                continue;
            };
            if name == "Type" {
                reported.checksum_type = Some(text.to_string());
            } else if let Some(algorithm) = Algorithm::from_s3_name(name) {
                reported.checksums.push((algorithm, text.to_string()));
            }
        }
    }
    reported.size = top
        .get("ContentLength")
        .or_else(|| top.get("ObjectSize"))
        .and_then(Value::as_u64);
    reported.etag = top
        .get("ETag")
        .and_then(Value::as_str)
        .map(|etag| etag.trim_matches('"').to_string());
    let parts = top.get("ObjectParts");
    reported.parts_count = top
        .get("PartsCount")
        .or_else(|| parts.and_then(|p| p.get("TotalPartsCount")))
        .or_else(|| parts.and_then(|p| p.get("PartsCount")))
        .and_then(Value::as_u64);
    reported.part_sizes = parts
        .and_then(|p| p.get("Parts"))
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|part| part.get("Size").and_then(Value::as_u64))
                .collect()
        })
        .unwrap_or_default();
    if reported.checksums.is_empty() && reported.etag.is_none() && reported.size.is_none() {
        return Err("no checksum, ETag or size in it".into());
    }
    Ok(reported)
}

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
pub fn run(
    request: &VerifyS3,
    out: &mut impl Write,
    reporter: &Reporter,
) -> (ExitStatus, crate::report::Counts) {
    use crate::report::Counts;
    let (json_path, file) = (&request.json, &request.file);
    let json_name = json_path.as_os_str().as_encoded_bytes();
    let text = match long_paths::read(json_path) {
        Ok(text) => text,
        Err(source) => {
            reporter.error(&Error::Input {
                name: json_name.to_vec(),
                source,
            });
            return (ExitStatus::Usage, Counts::default());
        }
    };
    let reported = match serde_json::from_slice::<Value>(&text)
        .map_err(|e| e.to_string())
        .and_then(|json| parse_reported(&json))
    {
        Ok(reported) => reported,
        Err(reason) => {
            reporter.say(&Message::NotS3Json {
                name: json_name,
                reason: &reason,
            });
            return (ExitStatus::Usage, Counts::default());
        }
    };
    let compared = Compared {
        file: file.as_os_str().as_encoded_bytes(),
        s3_json: json_name,
    };
    let json = request.json_output;
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

/// Why a verification stopped: the file could not be read, or a field's line not written.
enum Failure {
    Read(io::Error),
    Write(io::Error),
}

/// Every field compared, and the size of the file.
struct Verdict {
    size: u64,
    fields: Vec<FieldCheck>,
}

impl Verdict {
    /// True when every field that could be checked matched and at least one was.
    fn ok(&self) -> bool {
        let matched = |f: &FieldCheck| matches!(f.result, FieldResult::Matched { .. });
        let failed = |f: &FieldCheck| {
            matches!(
                f.result,
                FieldResult::Differs { .. } | FieldResult::NoPartSize { .. }
            )
        };
        !self.fields.iter().any(failed) && self.fields.iter().any(matched)
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
    let local = LocalFile {
        path,
        size: long_paths::metadata(path).map_err(Failure::Read)?.len(),
        read,
    };
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

/// The local file compared, read again for each value computed from it.
struct LocalFile<'a> {
    path: &'a Path,
    size: u64,
    read: &'a ReadOptions,
}

impl LocalFile<'_> {
    fn digest(&self, algorithm: Algorithm) -> io::Result<Digest> {
        hash_file(long_paths::open_file(self.path)?, algorithm, self.read)
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
        for &part_size in candidates {
            let upload = Upload::Multipart {
                part_size,
                checksum_type: S3ChecksumType::Composite,
            };
            let file = long_paths::open_file(self.path)?;
            let result = compute(file, algorithm, upload, want_etag, self.read)?;
            if matches(&result) {
                return Ok(Some((part_size, result)));
            }
        }
        Ok(None)
    }
}

/// A value's `-N` part count suffix, split off: (value, digits).
fn split_part_count(value: &str) -> Option<(&str, &str)> {
    value
        .rsplit_once('-')
        .filter(|(_, count)| count.bytes().all(|b| b.is_ascii_digit()))
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
    let suffix_count = suffix.and_then(|count| count.parse::<u64>().ok());
    let is_composite = reported.checksum_type.as_deref() == Some("COMPOSITE");
    let composite_count = suffix_count.or(reported.parts_count.filter(|_| is_composite));
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
    if let Some((_, count)) = split_part_count(etag) {
        let count: u64 = count.parse().unwrap_or(0);
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
        let computed = local.digest(Algorithm::Md5)?.to_hex();
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
    fn head_object_and_attributes_shapes() {
        let head: Value = serde_json::from_str(
            r#"{"ContentLength": 12582912, "ETag": "\"9652ce2a95f9a7975d166a608aabbfe1-3\"",
                "ChecksumSHA256": "AnxJgZB36t/Mcuku04a5KLq/FF6RdXVxGWmM9iUyy4c=-3",
                "ChecksumType": "COMPOSITE"}"#,
        )
        .unwrap();
        let reported = parse_reported(&head).unwrap();
        assert_eq!(reported.size, Some(12_582_912));
        assert_eq!(
            reported.etag.as_deref(),
            Some("9652ce2a95f9a7975d166a608aabbfe1-3")
        );
        assert_eq!(reported.checksums.len(), 1);
        assert_eq!(reported.checksums[0].0, Algorithm::Sha256);

        let attributes: Value = serde_json::from_str(
            r#"{"ObjectSize": 12582912, "ETag": "9652ce2a95f9a7975d166a608aabbfe1-3",
                "Checksum": {"ChecksumCRC64NVME": "xhrYsPvF/m0=", "ChecksumType": "FULL_OBJECT"},
                "ObjectParts": {"TotalPartsCount": 3, "Parts": [{"PartNumber": 1, "Size": 5242880}]}}"#,
        )
        .unwrap();
        let reported = parse_reported(&attributes).unwrap();
        assert_eq!(reported.checksum_type.as_deref(), Some("FULL_OBJECT"));
        assert_eq!(reported.parts_count, Some(3));
        assert_eq!(reported.part_sizes, vec![5_242_880]);
        assert!(parse_reported(&serde_json::json!({"Other": 1})).is_err());
        assert!(parse_reported(&serde_json::json!([1, 2])).is_err());
    }

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
