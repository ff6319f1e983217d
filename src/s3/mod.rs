//! Amazon S3's checksums: what S3 stores for a file uploaded whole or in parts, what the
//! common clients make it store, and the comparison of a local file with what S3 reports.
//! The rules and their sources: `../shared/S3.md` (copied in `docs/s3.md`).

pub mod format;
pub mod parts;
pub mod verify;

use crate::io::read::{changed_error, hash_file, ReadOptions};
use crate::kernels::{crc_combine, crc_digest, Algorithm, Digest, S3ChecksumType};
use parts::{hash_parts, part_count};
use std::fs::File;
use std::io;

pub const MIB: u64 = 1024 * 1024;
pub const MIN_PART_SIZE: u64 = 5 * MIB;
pub const MAX_PART_SIZE: u64 = 5 * 1024 * MIB;
pub const MAX_PARTS: u64 = 10_000;
/// The multipart threshold and first part size of the AWS CLI and boto3.
pub const CLIENT_CHUNK: u64 = 8 * MIB;

/// How the object is (or will be) uploaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Upload {
    /// One PutObject.
    Single,
    /// Parts of `part_size` bytes (the last may be smaller), checksummed as `checksum_type`.
    Multipart {
        part_size: u64,
        checksum_type: S3ChecksumType,
    },
}

/// The clients whose uploads `--s3-preset` predicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preset {
    /// AWS CLI v2, 2.23.0 and later: CRC64NVME, FULL_OBJECT.
    AwsCliV2,
    /// AWS CLI v1: CRC32, COMPOSITE from the threshold up.
    AwsCliV1,
    /// boto3's `upload_file`: as the AWS CLI v1.
    Boto3,
}

impl Preset {
    pub fn from_name(name: &str) -> Option<Preset> {
        match name {
            "aws-cli-v2" => Some(Preset::AwsCliV2),
            "aws-cli-v1" => Some(Preset::AwsCliV1),
            "boto3" => Some(Preset::Boto3),
            _ => None,
        }
    }

    pub fn algorithm(self) -> Algorithm {
        match self {
            Preset::AwsCliV2 => Algorithm::Crc64Nvme,
            Preset::AwsCliV1 | Preset::Boto3 => Algorithm::Crc32,
        }
    }

    /// How this client uploads a `size`-byte file: whole below 8 MiB, in parts from 8 MiB
    /// (a file of exactly 8 MiB is a one-part upload).
    pub fn upload(self, size: u64) -> Upload {
        if size < CLIENT_CHUNK {
            return Upload::Single;
        }
        let checksum_type = match self {
            Preset::AwsCliV2 => S3ChecksumType::FullObject,
            Preset::AwsCliV1 | Preset::Boto3 => S3ChecksumType::Composite,
        };
        Upload::Multipart {
            part_size: client_part_size(size),
            checksum_type,
        }
    }
}

/// The clients' part size: 8 MiB, doubled while there would be more than 10,000 parts, then
/// kept within S3's 5 MiB to 5 GiB.
pub fn client_part_size(size: u64) -> u64 {
    let mut part_size = CLIENT_CHUNK;
    while part_count(size, part_size) > MAX_PARTS && part_size < MAX_PART_SIZE {
        part_size *= 2;
    }
    part_size.clamp(MIN_PART_SIZE, MAX_PART_SIZE)
}

/// Parses a size: digits, optionally followed by K, M, G, T (or KB, KiB, MB, MiB...), all
/// powers of 1024 as the AWS CLI reads `multipart_chunksize`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let digits_end = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let (digits, unit) = trimmed.split_at(digits_end);
    let invalid = || {
        format!(
            "invalid size '{text}': use bytes, or a number with K, M, G or T (KiB, MiB... \
             powers of 1024), such as 8MiB"
        )
    };
    let number: u64 = digits.parse().map_err(|_| invalid())?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(invalid()),
    };
    number
        .checked_mul(1u64 << shift)
        .filter(|&size| size > 0)
        .ok_or_else(invalid)
}

/// Why a file cannot be uploaded in parts of the given size.
pub fn part_limits_error(size: u64, part_size: u64) -> Option<String> {
    if !(MIN_PART_SIZE..=MAX_PART_SIZE).contains(&part_size) {
        return Some(format!(
            "part size {part_size} is outside S3's limits (5 MiB to 5 GiB a part)"
        ));
    }
    let count = part_count(size, part_size);
    (count > MAX_PARTS).then(|| {
        format!(
            "{count} parts of {part_size} bytes; S3 takes at most {MAX_PARTS} parts (use a part \
             size of at least {})",
            size.div_ceil(MAX_PARTS)
        )
    })
}

/// What S3 stores (or reports) for one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct S3Checksum {
    pub algorithm: Algorithm,
    pub size: u64,
    pub checksum_type: S3ChecksumType,
    /// The checksum bytes: of the whole object (FULL_OBJECT) or of the parts' checksums
    /// (COMPOSITE).
    pub digest: Digest,
    /// Parts, when uploaded in parts.
    pub parts: Option<Parts>,
    /// The ETag, with S3's double quotes, when asked for.
    pub etag: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parts {
    pub part_size: u64,
    pub digests: Vec<Digest>,
}

impl S3Checksum {
    /// The header value: base64 of the checksum, and `-N` for a composite of N parts.
    pub fn value(&self) -> String {
        match (&self.parts, self.checksum_type) {
            (Some(parts), S3ChecksumType::Composite) => {
                format!("{}-{}", self.digest.to_base64(), parts.digests.len())
            }
            _ => self.digest.to_base64(),
        }
    }
}

/// Computes what S3 stores for `file` uploaded as `upload`. `want_etag` adds the ETag.
pub fn compute(
    file: File,
    algorithm: Algorithm,
    upload: Upload,
    want_etag: bool,
    read: &ReadOptions,
) -> io::Result<S3Checksum> {
    let before = file.metadata()?;
    if before.is_dir() {
        return Err(io::Error::from_raw_os_error(libc::EISDIR));
    }
    let size = before.len();
    let result = match upload {
        Upload::Single => {
            let digest = hash_file(file.try_clone()?, algorithm, read)?;
            let etag = if !want_etag {
                None
            } else if algorithm == Algorithm::Md5 {
                Some(format!("\"{}\"", digest.to_hex()))
            } else {
                let md5 = hash_file(file.try_clone()?, Algorithm::Md5, read)?;
                Some(format!("\"{}\"", md5.to_hex()))
            };
            S3Checksum {
                algorithm,
                size,
                checksum_type: S3ChecksumType::FullObject,
                digest,
                parts: None,
                etag,
            }
        }
        Upload::Multipart {
            part_size,
            checksum_type,
        } => {
            let parts = hash_parts(&file, size, part_size, algorithm, want_etag)?;
            let digests: Vec<Digest> = parts.iter().map(|p| p.digest).collect();
            let digest = match checksum_type {
                S3ChecksumType::Composite => composite(algorithm, &digests),
                S3ChecksumType::FullObject => {
                    full_object(algorithm, parts.iter().map(|p| (p.digest, p.len)))
                }
            };
            let etag = want_etag.then(|| {
                let md5s: Vec<Digest> = parts.iter().filter_map(|p| p.md5).collect();
                multipart_etag(&md5s)
            });
            S3Checksum {
                algorithm,
                size,
                checksum_type,
                digest,
                parts: Some(Parts { part_size, digests }),
                etag,
            }
        }
    };
    let after = file.metadata()?;
    if after.len() != size || after.modified().ok() != before.modified().ok() {
        return Err(changed_error());
    }
    Ok(result)
}

/// COMPOSITE: the algorithm over the concatenated raw part checksums.
pub fn composite(algorithm: Algorithm, parts: &[Digest]) -> Digest {
    let mut hasher = crate::kernels::Hasher::new(algorithm);
    for part in parts {
        hasher.update(part.as_bytes());
    }
    hasher.finalize()
}

/// FULL_OBJECT from the parts' CRCs and lengths, combined as S3 combines them.
pub fn full_object(algorithm: Algorithm, parts: impl Iterator<Item = (Digest, u64)>) -> Digest {
    let value = |digest: &Digest| {
        digest
            .as_bytes()
            .iter()
            .fold(0u64, |v, &b| (v << 8) | u64::from(b))
    };
    let mut combined: Option<u64> = None;
    for (digest, len) in parts {
        combined = Some(match combined {
            None => value(&digest),
            Some(crc) => crc_combine(algorithm, crc, value(&digest), len),
        });
    }
    crc_digest(algorithm, combined.unwrap_or(0))
}

/// The multipart ETag: MD5 of the concatenated part MD5s, hex, `-N`, in S3's double quotes.
pub fn multipart_etag(part_md5s: &[Digest]) -> String {
    let digest = composite(Algorithm::Md5, part_md5s);
    format!("\"{}-{}\"", digest.to_hex(), part_md5s.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_in_powers_of_1024() {
        assert_eq!(parse_size("5242880"), Ok(5 * MIB));
        assert_eq!(parse_size("5MiB"), Ok(5 * MIB));
        assert_eq!(parse_size("8M"), Ok(8 * MIB));
        assert_eq!(parse_size("8mb"), Ok(8 * MIB));
        assert_eq!(parse_size("1G"), Ok(1024 * MIB));
        assert_eq!(parse_size("64KiB"), Ok(64 * 1024));
        assert!(parse_size("").is_err());
        assert!(parse_size("0").is_err());
        assert!(parse_size("5 MiBs").is_err());
        assert!(parse_size("-5M").is_err());
        assert!(parse_size("99999999999T").is_err());
    }

    #[test]
    fn client_part_size_doubles_past_ten_thousand_parts() {
        assert_eq!(client_part_size(8 * MIB), 8 * MIB);
        assert_eq!(client_part_size(10_000 * 8 * MIB), 8 * MIB);
        assert_eq!(client_part_size(10_000 * 8 * MIB + 1), 16 * MIB);
        assert_eq!(client_part_size(100 * 1024 * MIB), 16 * MIB);
        assert_eq!(client_part_size(5 * 1024 * 1024 * MIB), 1024 * MIB);
    }

    #[test]
    fn presets_follow_the_clients() {
        assert_eq!(Preset::Boto3.upload(8 * MIB - 1), Upload::Single);
        assert_eq!(
            Preset::Boto3.upload(8 * MIB),
            Upload::Multipart {
                part_size: 8 * MIB,
                checksum_type: S3ChecksumType::Composite
            }
        );
        assert_eq!(
            Preset::AwsCliV2.upload(100 * MIB),
            Upload::Multipart {
                part_size: 8 * MIB,
                checksum_type: S3ChecksumType::FullObject
            }
        );
        assert_eq!(Preset::AwsCliV1.algorithm(), Algorithm::Crc32);
        assert_eq!(Preset::AwsCliV2.algorithm(), Algorithm::Crc64Nvme);
    }

    #[test]
    fn part_limits() {
        assert!(part_limits_error(12 * MIB, 5 * MIB).is_none());
        assert!(part_limits_error(12 * MIB, 4 * MIB).is_some());
        assert!(part_limits_error(12 * MIB, 6 * 1024 * MIB).is_some());
        assert!(part_limits_error(10_000 * 5 * MIB, 5 * MIB).is_none());
        let too_many = part_limits_error(10_000 * 5 * MIB + 1, 5 * MIB).unwrap();
        assert!(too_many.contains("10001 parts"), "{too_many}");
    }
}
