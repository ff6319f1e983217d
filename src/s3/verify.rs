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
use super::values::compute;
use crate::config::Config;
use crate::error::{Error, ExitStatus};
use crate::format::quote::quote_name;
use crate::io::read::hash_file;
use crate::io::Input;
use crate::kernels::{Algorithm, S3ChecksumType};
use crate::report::Reporter;
use serde_json::Value;
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

const MAX_TRIES: usize = 8;

/// What the JSON says about the object.
#[derive(Debug, Default, PartialEq)]
pub struct Reported {
    pub checksums: Vec<(Algorithm, String)>,
    pub checksum_type: Option<String>,
    pub size: Option<u64>,
    pub etag: Option<String>,
    pub parts_count: Option<u64>,
    pub part_sizes: Vec<u64>,
}

/// Reads the fields fasthash can check from head-object or get-object-attributes output.
pub fn parse_reported(json: &Value) -> Result<Reported, String> {
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
pub fn candidate_part_sizes(size: u64, count: u64, listed: &[u64]) -> Vec<u64> {
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

pub fn run(config: &Config, out: &mut impl Write, reporter: &Reporter) -> ExitStatus {
    let (Some(json_path), Some(Input::Path(file))) = (&config.verify_s3, config.inputs.first())
    else {
        reporter.error(&Error::usage("--verify-s3 needs the JSON and a file"));
        return ExitStatus::Usage;
    };
    let json_name = json_path.as_os_str().as_encoded_bytes();
    let text = match std::fs::read(json_path) {
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
            let mut message = quote_name(json_name);
            message.extend_from_slice(format!(": not S3 object JSON: {reason}").as_bytes());
            reporter.message(&message);
            return ExitStatus::Usage;
        }
    };
    match verify(file, &reported, config, out) {
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
    config: &Config,
    out: &mut impl Write,
) -> io::Result<bool> {
    let size = std::fs::metadata(path)?.len();
    let mut failed = false;
    let mut verified = 0;
    if let Some(expected) = reported.size {
        if expected == size {
            writeln!(out, "ContentLength: OK")?;
            verified += 1;
        } else {
            writeln!(out, "ContentLength: FAILED (S3: {expected}, file: {size})")?;
            failed = true;
        }
    }
    let mut known_part_size = None;
    for (algorithm, value) in &reported.checksums {
        let field = format!("Checksum{}", algorithm.info().s3_name.unwrap_or(""));
        let (base, suffix_count) = match value.rsplit_once('-') {
            Some((base, count)) if count.bytes().all(|b| b.is_ascii_digit()) => {
                (base, count.parse::<u64>().ok())
            }
            _ => (value.as_str(), None),
        };
        let composite_count = suffix_count.or_else(|| {
            (reported.checksum_type.as_deref() == Some("COMPOSITE"))
                .then_some(reported.parts_count)
                .flatten()
        });
        match composite_count {
            None if reported.checksum_type.as_deref() == Some("COMPOSITE") => {
                writeln!(out, "{field}: cannot verify (COMPOSITE, but no part count)")?;
            }
            None => {
                let digest = hash_file(File::open(path)?, *algorithm, &config.read)?;
                if digest.to_base64() == base {
                    writeln!(out, "{field}: OK")?;
                    verified += 1;
                } else {
                    writeln!(
                        out,
                        "{field}: FAILED (S3: {value}, computed: {})",
                        digest.to_base64()
                    )?;
                    failed = true;
                }
            }
            Some(count) => {
                let candidates = candidate_part_sizes(size, count, &reported.part_sizes);
                let mut matched = None;
                for &part_size in &candidates {
                    let upload = Upload::Multipart {
                        part_size,
                        checksum_type: S3ChecksumType::Composite,
                    };
                    let result =
                        compute(File::open(path)?, *algorithm, upload, false, &config.read)?;
                    if result.digest.to_base64() == base {
                        matched = Some(part_size);
                        break;
                    }
                }
                match matched {
                    Some(part_size) => {
                        known_part_size = Some(part_size);
                        verified += 1;
                        writeln!(
                            out,
                            "{field}: OK (COMPOSITE, {count} parts of {part_size} bytes)"
                        )?;
                    }
                    None => {
                        failed = true;
                        writeln!(
                            out,
                            "{field}: FAILED (S3: {value}; no part size giving {count} parts \
                             matches; tried {})",
                            list(&candidates)
                        )?;
                    }
                }
            }
        }
    }
    if let Some(etag) = &reported.etag {
        match etag.rsplit_once('-') {
            Some((_, count)) if count.bytes().all(|b| b.is_ascii_digit()) => {
                let count: u64 = count.parse().unwrap_or(0);
                let mut candidates = candidate_part_sizes(size, count, &reported.part_sizes);
                if let Some(p) = known_part_size {
                    candidates.retain(|&c| c != p);
                    candidates.insert(0, p);
                }
                let mut matched = None;
                for &part_size in &candidates {
                    let upload = Upload::Multipart {
                        part_size,
                        checksum_type: S3ChecksumType::Composite,
                    };
                    let result = compute(
                        File::open(path)?,
                        Algorithm::Md5,
                        upload,
                        true,
                        &config.read,
                    )?;
                    if result.etag.as_deref().map(|e| e.trim_matches('"')) == Some(etag.as_str()) {
                        matched = Some(part_size);
                        break;
                    }
                }
                match matched {
                    Some(part_size) => {
                        verified += 1;
                        writeln!(out, "ETag: OK (multipart, parts of {part_size} bytes)")?;
                    }
                    None => {
                        failed = true;
                        writeln!(
                            out,
                            "ETag: FAILED (S3: \"{etag}\"; no part size giving {count} parts \
                             matches; tried {})",
                            list(&candidates)
                        )?;
                    }
                }
            }
            _ if etag.len() == 32 && etag.bytes().all(|b| b.is_ascii_hexdigit()) => {
                let md5 = hash_file(File::open(path)?, Algorithm::Md5, &config.read)?;
                if md5.to_hex() == etag.to_ascii_lowercase() {
                    verified += 1;
                    writeln!(out, "ETag: OK")?;
                } else {
                    failed = true;
                    writeln!(
                        out,
                        "ETag: FAILED (S3: \"{etag}\", computed: \"{}\")",
                        md5.to_hex()
                    )?;
                }
            }
            _ => writeln!(
                out,
                "ETag: cannot verify (not an MD5 ETag: encrypted with SSE-KMS or SSE-C?)"
            )?,
        }
    }
    let ok = !failed && verified > 0;
    let verdict = if ok { "OK" } else { "FAILED" };
    let mut name = quote_name(path.as_os_str().as_encoded_bytes());
    name.extend_from_slice(format!(": {verdict}\n").as_bytes());
    out.write_all(&name)?;
    out.flush()?;
    Ok(ok)
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
