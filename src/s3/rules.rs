//! S3's rules for uploads: what an upload is (whole, or parts of one size), the limits on
//! parts, the part size the AWS clients choose, and the sizes users type for `--part-size`.

use super::parts::part_count;
use crate::kernels::S3ChecksumType;

pub(crate) const MIB: u64 = 1024 * 1024;
pub(crate) const MIN_PART_SIZE: u64 = 5 * MIB;
pub(crate) const MAX_PART_SIZE: u64 = 5 * 1024 * MIB;
pub(crate) const MAX_PARTS: u64 = 10_000;
/// Why a value of more than [`MAX_PARTS`] parts is not checked: it was not S3's.
pub(crate) const MORE_PARTS_THAN_S3_MAKES: &str = "more than the 10,000 parts S3 makes";
/// The multipart threshold and first part size of the AWS CLI and boto3.
pub(crate) const CLIENT_CHUNK: u64 = 8 * MIB;

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

/// The clients' part size: 8 MiB, doubled while there would be more than 10,000 parts, then
/// kept within S3's 5 MiB to 5 GiB.
pub(crate) fn client_part_size(size: u64) -> u64 {
    let mut part_size = CLIENT_CHUNK;
    while part_count(size, part_size) > MAX_PARTS && part_size < MAX_PART_SIZE {
        part_size *= 2;
    }
    part_size.clamp(MIN_PART_SIZE, MAX_PART_SIZE)
}

/// Parses a size: digits, optionally followed by K, M, G, T (or KB, KiB, MB, MiB...), all
/// powers of 1024 as the AWS CLI reads `multipart_chunksize`.
pub(crate) fn parse_size(text: &str) -> Result<u64, String> {
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
pub(crate) fn part_limits_error(size: u64, part_size: u64) -> Option<String> {
    if !(MIN_PART_SIZE..=MAX_PART_SIZE).contains(&part_size) {
        return Some(format!(
            "part size {part_size} is outside S3's limits (5 MiB to 5 GiB a part)"
        ));
    }
    let limit = format!("S3 takes at most {MAX_PARTS} parts");
    more_parts_than(size, part_size, MAX_PARTS, &limit)
}

/// The most parts a file is cut into even with `--no-part-limits`: every part's values are
/// kept until the object's are made from them (a few hundred bytes a part), so parts of a few
/// bytes would take memory in proportion to the file, and abort on a large one. A hundred
/// times S3's own limit.
pub(crate) const MOST_PARTS_WITHOUT_LIMITS: u64 = 100 * MAX_PARTS;

/// Why a file cannot be cut into parts of `part_size` bytes even with `--no-part-limits`.
pub(crate) fn too_many_parts_error(size: u64, part_size: u64) -> Option<String> {
    let limit = format!(
        "fasthash cuts a file into at most {MOST_PARTS_WITHOUT_LIMITS} parts, even with \
         --no-part-limits"
    );
    more_parts_than(size, part_size, MOST_PARTS_WITHOUT_LIMITS, &limit)
}

/// Why `size` bytes in parts of `part_size` are too many when they are more than `most`: the
/// count, the `limit` in words, and the smallest part size that would do.
fn more_parts_than(size: u64, part_size: u64, most: u64, limit: &str) -> Option<String> {
    let count = part_count(size, part_size);
    (count > most).then(|| {
        format!(
            "{count} parts of {part_size} bytes; {limit} (use a part size of at least {})",
            size.div_ceil(most)
        )
    })
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
    fn parts_without_limits_stop_at_a_million() {
        assert!(too_many_parts_error(MOST_PARTS_WITHOUT_LIMITS, 1).is_none());
        assert!(too_many_parts_error(MOST_PARTS_WITHOUT_LIMITS + 1, 1).is_some());
        assert!(too_many_parts_error(20 * MIB, 1024).is_none());
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

    #[test]
    fn the_reason_for_too_many_parts_names_the_limit() {
        let limit = crate::format::units::count(MAX_PARTS);
        assert!(
            MORE_PARTS_THAN_S3_MAKES.contains(&format!(" {limit} ")),
            "{MORE_PARTS_THAN_S3_MAKES} does not say {limit}"
        );
    }
}
