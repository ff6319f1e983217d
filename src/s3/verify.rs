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

use super::parts::part_count;
use super::rules::{client_part_size, Upload, MIB, MIN_PART_SIZE};
use super::values::{compute, S3Checksum};
use crate::config::VerifyS3;
use crate::error::{Error, ExitStatus};
use crate::format::messages::Message;
use crate::format::quote::quote_name;
use crate::io::long_paths;
use crate::io::read::{hash_file, ReadOptions};
use crate::kernels::{Algorithm, Digest, S3ChecksumType};
use crate::report::Reporter;
use serde_json::Value;
use std::io::{self, Write};
use std::path::Path;

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

pub fn run(request: &VerifyS3, out: &mut impl Write, reporter: &Reporter) -> ExitStatus {
    let (json_path, file) = (&request.json, &request.file);
    let json_name = json_path.as_os_str().as_encoded_bytes();
    let text = match long_paths::read(json_path) {
        Ok(text) => text,
        Err(source) => {
            reporter.error(&Error::Input {
                name: json_name.to_vec(),
                source,
            });
            return ExitStatus::Usage;
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
            return ExitStatus::Usage;
        }
    };
    let verified = verify(file, &reported, &request.run.read, out);
    reporter.count(|counts| counts.file(verified.is_err()));
    match verified {
        Ok(true) => ExitStatus::Success,
        Ok(false) => ExitStatus::Failure,
        Err(source) => {
            let _ = out.flush();
            reporter.error(&Error::Input {
                name: file.as_os_str().as_encoded_bytes().to_vec(),
                source,
            });
            ExitStatus::Failure
        }
    }
}

/// Prints a verdict a field and a last line for the file; true when every field that could
/// be checked matched and at least one was.
fn verify(
    path: &Path,
    reported: &Reported,
    read: &ReadOptions,
    out: &mut impl Write,
) -> io::Result<bool> {
    let local = LocalFile {
        path,
        size: long_paths::metadata(path)?.len(),
        read,
    };
    let mut tally = Tally::default();
    if let Some(expected) = reported.size {
        let outcome = if expected == local.size {
            Outcome::Ok(String::new())
        } else {
            Outcome::Failed(format!("S3: {expected}, file: {}", local.size))
        };
        tally.write(out, "ContentLength", outcome)?;
    }
    // The part size a COMPOSITE checksum matched with: the ETag's parts are the same.
    let mut known_part_size = None;
    for (algorithm, value) in &reported.checksums {
        let field = format!("Checksum{}", algorithm.info().s3_name.unwrap_or(""));
        let (outcome, part_size) = check_checksum(&local, reported, *algorithm, value)?;
        known_part_size = part_size.or(known_part_size);
        tally.write(out, &field, outcome)?;
    }
    if let Some(etag) = &reported.etag {
        let outcome = check_etag(&local, reported, etag, known_part_size)?;
        tally.write(out, "ETag", outcome)?;
    }
    let ok = tally.failed == 0 && tally.verified > 0;
    let verdict = if ok { "OK" } else { "FAILED" };
    let mut name = quote_name(path.as_os_str().as_encoded_bytes());
    name.extend_from_slice(format!(": {verdict}\n").as_bytes());
    out.write_all(&name)?;
    out.flush()?;
    Ok(ok)
}

/// What the check of one field came to; the text is what follows `OK` (with its leading
/// space), or what goes in the parentheses after `FAILED` or `cannot verify`.
enum Outcome {
    Ok(String),
    Failed(String),
    CannotVerify(String),
}

/// The fields checked so far: how many matched, how many did not.
#[derive(Default)]
struct Tally {
    verified: usize,
    failed: usize,
}

impl Tally {
    /// Prints a field's line and counts it.
    fn write(&mut self, out: &mut impl Write, field: &str, outcome: Outcome) -> io::Result<()> {
        match outcome {
            Outcome::Ok(detail) => {
                self.verified += 1;
                writeln!(out, "{field}: OK{detail}")
            }
            Outcome::Failed(reason) => {
                self.failed += 1;
                writeln!(out, "{field}: FAILED ({reason})")
            }
            Outcome::CannotVerify(reason) => writeln!(out, "{field}: cannot verify ({reason})"),
        }
    }
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
    /// `matches` accepts.
    fn first_matching_part_size(
        &self,
        candidates: &[u64],
        algorithm: Algorithm,
        want_etag: bool,
        matches: impl Fn(&S3Checksum) -> bool,
    ) -> io::Result<Option<u64>> {
        for &part_size in candidates {
            let upload = Upload::Multipart {
                part_size,
                checksum_type: S3ChecksumType::Composite,
            };
            let file = long_paths::open_file(self.path)?;
            if matches(&compute(file, algorithm, upload, want_etag, self.read)?) {
                return Ok(Some(part_size));
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
/// candidates (returned, for the ETag to try first).
fn check_checksum(
    local: &LocalFile,
    reported: &Reported,
    algorithm: Algorithm,
    value: &str,
) -> io::Result<(Outcome, Option<u64>)> {
    let (base, suffix_count) = match split_part_count(value) {
        Some((base, count)) => (base, count.parse::<u64>().ok()),
        None => (value, None),
    };
    let is_composite = reported.checksum_type.as_deref() == Some("COMPOSITE");
    let composite_count = suffix_count.or(reported.parts_count.filter(|_| is_composite));
    let Some(count) = composite_count else {
        if is_composite {
            let reason = "COMPOSITE, but no part count".to_string();
            return Ok((Outcome::CannotVerify(reason), None));
        }
        let computed = local.digest(algorithm)?.to_base64();
        let outcome = if computed == base {
            Outcome::Ok(String::new())
        } else {
            Outcome::Failed(format!("S3: {value}, computed: {computed}"))
        };
        return Ok((outcome, None));
    };
    let candidates = candidate_part_sizes(local.size, count, &reported.part_sizes);
    let matched = local.first_matching_part_size(&candidates, algorithm, false, |result| {
        result.digest.to_base64() == base
    })?;
    let outcome = match matched {
        Some(part_size) => Outcome::Ok(format!(" (COMPOSITE, {count} parts of {part_size} bytes)")),
        None => no_part_size_matches(value, count, &candidates),
    };
    Ok((outcome, matched))
}

/// The ETag: a multipart one (`-N`) with its part size found among the candidates, the one a
/// checksum matched with first; else the MD5 of the file; else (not an MD5) unverifiable.
fn check_etag(
    local: &LocalFile,
    reported: &Reported,
    etag: &str,
    known_part_size: Option<u64>,
) -> io::Result<Outcome> {
    if let Some((_, count)) = split_part_count(etag) {
        let count: u64 = count.parse().unwrap_or(0);
        let mut candidates = candidate_part_sizes(local.size, count, &reported.part_sizes);
        if let Some(known) = known_part_size {
            candidates.retain(|&candidate| candidate != known);
            candidates.insert(0, known);
        }
        let matched =
            local.first_matching_part_size(&candidates, Algorithm::Md5, true, |result| {
                result.etag.as_deref().map(|e| e.trim_matches('"')) == Some(etag)
            })?;
        return Ok(match matched {
            Some(part_size) => Outcome::Ok(format!(" (multipart, parts of {part_size} bytes)")),
            None => no_part_size_matches(&format!("\"{etag}\""), count, &candidates),
        });
    }
    if etag.len() == 32 && etag.bytes().all(|b| b.is_ascii_hexdigit()) {
        let md5 = local.digest(Algorithm::Md5)?.to_hex();
        return Ok(if md5 == etag.to_ascii_lowercase() {
            Outcome::Ok(String::new())
        } else {
            Outcome::Failed(format!("S3: \"{etag}\", computed: \"{md5}\""))
        });
    }
    Ok(Outcome::CannotVerify(
        "not an MD5 ETag: encrypted with SSE-KMS or SSE-C?".into(),
    ))
}

fn no_part_size_matches(s3_value: &str, count: u64, candidates: &[u64]) -> Outcome {
    Outcome::Failed(format!(
        "S3: {s3_value}; no part size giving {count} parts matches; tried {}",
        list(candidates)
    ))
}

fn list(sizes: &[u64]) -> String {
    if sizes.is_empty() {
        return "none".into();
    }
    sizes
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
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
