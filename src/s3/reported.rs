//! What S3 says about an object: HeadObject's response headers, or the JSON the AWS CLI
//! prints of HeadObject or GetObjectAttributes, read into one [`Reported`]; and what that tells
//! of how the object was cut into parts. The client fills it from the headers, and `verify`
//! checks a file against it.

use super::parts::part_count;
use super::rules::{MAX_PARTS, MORE_PARTS_THAN_S3_MAKES};
use crate::kernels::Algorithm;
use serde_json::Value;

/// Why a value of parts of several sizes is not computed: fasthash cuts a file into parts of
/// one size (the last one smaller), as every common client uploads.
const PARTS_DIFFER: &str = "the parts differ in size: S3's first part does not cut the file \
                            into its number of parts";

/// What S3 says about the object (in its JSON, or in HeadObject's headers).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Reported {
    pub checksums: Vec<(Algorithm, String)>,
    pub checksum_type: Option<String>,
    pub size: Option<u64>,
    /// Without its quotes.
    pub etag: Option<String>,
    pub parts_count: Option<u64>,
    /// The sizes of the parts listed, from the first (HeadObject of part 1 gives one).
    pub part_sizes: Vec<u64>,
    /// Why the ETag is no MD5 when S3 says the object is encrypted so (SSE-KMS, SSE-C).
    pub etag_not_md5: Option<&'static str>,
}

impl Reported {
    /// The number of parts: a value's `-N` (or the ETag's), else `PartsCount`.
    pub(crate) fn part_count(&self) -> Option<u64> {
        let values = self.checksums.iter().map(|(_, value)| value.as_str());
        values
            .chain(self.etag.as_deref())
            .filter_map(|value| Some(split_part_count(value)?.1))
            .next()
            .or(self.parts_count)
    }

    /// How the object was cut, when S3 says enough to know: `Some(None)` for one upload of
    /// the whole file, `Some(Some(size))` for parts of that size (the last one smaller). None
    /// where its parts could not be checked ([`Reported::parts_unverifiable`]).
    pub(crate) fn known_cut(&self, size: u64) -> Option<Option<u64>> {
        let Some(count) = self.part_count() else {
            return Some(None);
        };
        if self.parts_unverifiable(size, count).is_some() {
            return None;
        }
        self.part_sizes.first().map(|&first| Some(first))
    }

    /// Why a value of `count` parts cannot be checked against a `size`-byte file, if it
    /// cannot: more parts than S3 makes (a value that was not S3's, whose parts would each be
    /// hashed and kept), or S3's first part does not cut the file into that many.
    pub(crate) fn parts_unverifiable(&self, size: u64, count: u64) -> Option<&'static str> {
        if count > MAX_PARTS {
            return Some(MORE_PARTS_THAN_S3_MAKES);
        }
        self.parts_differ(size, count).then_some(PARTS_DIFFER)
    }

    /// The parts are not all of the first one's size (the last one aside): S3 gave the first
    /// part's size, and it does not cut the file into the reported number of parts.
    fn parts_differ(&self, size: u64, count: u64) -> bool {
        self.part_sizes
            .first()
            .is_some_and(|&first| !cuts(size, first, count))
    }
}

/// Whether parts of `part_size` bytes cut a `size`-byte file into `count` parts. An empty
/// part cuts only an empty file: parts of no bytes would leave the file's bytes unread, and a
/// value S3 reported of empty parts would pass for the file's.
fn cuts(size: u64, part_size: u64, count: u64) -> bool {
    (part_size > 0 || size == 0) && part_count(size, part_size) == count
}

/// What a number S3 reports counts: the least it may be, and its name in messages.
#[derive(Clone, Copy)]
enum Count {
    Bytes,
    Parts,
}

impl Count {
    fn least(self) -> u64 {
        match self {
            Count::Bytes => 0,
            Count::Parts => 1,
        }
    }

    /// What the number should be, in words.
    fn describe(self) -> String {
        let what = match self {
            Count::Bytes => "a size in bytes",
            Count::Parts => "a number of parts",
        };
        let (least, most) = (self.least(), u64::MAX);
        format!("{what} (a whole number from {least} to {most})")
    }

    /// Why `shown`, what `field` holds, cannot be used.
    fn invalid(self, field: &str, shown: &str) -> String {
        format!("{field}: {shown} is not {}", self.describe())
    }

    /// A number of the AWS CLI's JSON: a whole number written as one (not `5.0`, `1e3` or
    /// `"5"`), within `u64` and not below the least; else why it cannot be used.
    fn of_json(self, field: &str, value: &Value) -> Result<u64, String> {
        let number = value.as_u64().filter(|&n| n >= self.least());
        number.ok_or_else(|| self.invalid(field, &value.to_string()))
    }

    /// A number written in a header or after a value's `-`: decimal digits only (no sign),
    /// within `u64` and not below the least.
    fn of_text(self, text: &str) -> Option<u64> {
        let digits = !text.is_empty() && all_digits(text);
        let number = digits.then(|| text.parse::<u64>().ok()).flatten();
        number.filter(|&n| n >= self.least())
    }

    /// [`Count::of_text`] of a header's value, else why it cannot be used.
    fn of_header(self, header: &str, text: &str) -> Result<u64, String> {
        self.of_text(text)
            .ok_or_else(|| self.invalid(header, &format!("{text:?}")))
    }
}

/// `value`, which S3 reported in `field`, when its `-N` part count (if it has one) is a number
/// of parts; else why it cannot be used.
fn with_valid_part_count(field: &str, value: &str) -> Result<String, String> {
    match part_count_digits(value) {
        Some((_, digits)) if Count::Parts.of_text(digits).is_none() => Err(format!(
            "{field}: {value:?}: its part count {digits:?} is not {}",
            Count::Parts.describe()
        )),
        _ => Ok(value.to_string()),
    }
}

fn all_digits(text: &str) -> bool {
    text.bytes().all(|b| b.is_ascii_digit())
}

/// Why an object's ETag is not the MD5 S3 makes it of, from how S3 says it is encrypted:
/// `x-amz-server-side-encryption` (`ServerSideEncryption`) and whether a customer key
/// (SSE-C) was used.
pub(crate) fn etag_not_md5(encryption: Option<&str>, customer_key: bool) -> Option<&'static str> {
    if customer_key {
        return Some("encrypted with a customer key (SSE-C): its ETag is not an MD5");
    }
    encryption
        .filter(|sse| sse.starts_with("aws:kms"))
        .map(|_| "encrypted with SSE-KMS: its ETag is not an MD5")
}

/// What HeadObject's response headers say (`x-amz-checksum-*`, `x-amz-checksum-type`,
/// `Content-Length`, `ETag`, `x-amz-mp-parts-count`, encryption). Read from the headers
/// rather than the SDK's fields, so that every algorithm of fasthash's table is found,
/// whichever algorithms the SDK's model knows. A size, a count or a part count that is not
/// one is an `Err` naming the header.
// Read only by the client, which a build without the feature `s3` lacks.
#[cfg_attr(not(feature = "s3"), allow(dead_code))]
pub(crate) fn reported_from_headers<'a>(
    headers: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<Reported, String> {
    let mut reported = Reported::default();
    let (mut encryption, mut customer_key) = (None, false);
    for (name, value) in headers {
        let name = name.to_ascii_lowercase();
        match name.as_str() {
            "x-amz-checksum-type" => reported.checksum_type = Some(value.to_string()),
            "content-length" => reported.size = Some(Count::Bytes.of_header(&name, value)?),
            "etag" => {
                let etag = value.trim_matches('"');
                reported.etag = Some(with_valid_part_count("ETag", etag)?);
            }
            "x-amz-mp-parts-count" => {
                reported.parts_count = Some(Count::Parts.of_header(&name, value)?);
            }
            "x-amz-server-side-encryption" => encryption = Some(value.to_string()),
            "x-amz-server-side-encryption-customer-algorithm" => customer_key = true,
            _ => {
                if let Some(algorithm) = Algorithm::from_s3_header(&name) {
                    let value = with_valid_part_count(&name, value)?;
                    reported.checksums.push((algorithm, value));
                }
            }
        }
    }
    reported.etag_not_md5 = etag_not_md5(encryption.as_deref(), customer_key);
    Ok(reported)
}

/// Reads the fields fasthash can check from head-object or get-object-attributes output. A
/// field fasthash reads that holds no value of its kind (a size that is negative, fractional,
/// beyond `u64` or a string; a part count of 0; a checksum that is no string) is an `Err` that
/// names it, never passed over.
pub(crate) fn parse_reported(json: &Value) -> Result<Reported, String> {
    let top = json
        .as_object()
        .ok_or("expected a JSON object, as aws s3api prints")?;
    let mut reported = Reported::default();
    let nested = match top.get("Checksum") {
        Some(Value::Object(nested)) => Some(nested),
        Some(other) => return Err(format!("Checksum: {other} is not an object")),
        None => None,
    };
    for object in [Some(top), nested].into_iter().flatten() {
        for (key, value) in object {
            let Some(name) = key.strip_prefix("Checksum") else {
                continue;
            };
            let algorithm = Algorithm::from_s3_name(name);
            if name != "Type" && algorithm.is_none() {
                continue;
            }
            let text = string_field(key, value)?;
            match algorithm {
                Some(algorithm) => {
                    let text = with_valid_part_count(key, text)?;
                    reported.checksums.push((algorithm, text));
                }
                None => reported.checksum_type = Some(text.to_string()),
            }
        }
    }
    reported.size = first_field(top, "", &["ContentLength", "ObjectSize"])
        .map(|(field, value)| Count::Bytes.of_json(&field, value))
        .transpose()?;
    if let Some(etag) = top.get("ETag") {
        let etag = string_field("ETag", etag)?.trim_matches('"');
        reported.etag = Some(with_valid_part_count("ETag", etag)?);
    }
    read_parts(top, &mut reported)?;
    reported.etag_not_md5 = etag_not_md5(
        top.get("ServerSideEncryption").and_then(Value::as_str),
        top.contains_key("SSECustomerAlgorithm"),
    );
    if reported.checksums.is_empty() && reported.etag.is_none() && reported.size.is_none() {
        return Err("no checksum, ETag or size in it".into());
    }
    Ok(reported)
}

/// The text of a field that holds a string, else why it cannot be used.
fn string_field<'a>(field: &str, value: &'a Value) -> Result<&'a str, String> {
    value
        .as_str()
        .ok_or_else(|| format!("{field}: {value} is not a string"))
}

/// The first of `keys` that `object` (itself at `path`) has: its name in messages, its value.
fn first_field<'a>(
    object: &'a serde_json::Map<String, Value>,
    path: &str,
    keys: &[&str],
) -> Option<(String, &'a Value)> {
    keys.iter()
        .find_map(|&key| Some((format!("{path}{key}"), object.get(key)?)))
}

/// The part count (`PartsCount` of head-object with `--part-number`, `ObjectParts`' count of
/// get-object-attributes) and the sizes of the parts listed.
fn read_parts(top: &serde_json::Map<String, Value>, reported: &mut Reported) -> Result<(), String> {
    let parts = match top.get("ObjectParts") {
        Some(Value::Object(parts)) => Some(parts),
        Some(other) => return Err(format!("ObjectParts: {other} is not an object")),
        None => None,
    };
    let count = first_field(top, "", &["PartsCount"])
        .or_else(|| first_field(parts?, "ObjectParts.", &["TotalPartsCount", "PartsCount"]));
    reported.parts_count = count
        .map(|(field, value)| Count::Parts.of_json(&field, value))
        .transpose()?;
    let listed = match parts.and_then(|parts| parts.get("Parts")) {
        Some(Value::Array(listed)) => listed.as_slice(),
        Some(other) => return Err(format!("ObjectParts.Parts: {other} is not a list")),
        None => &[],
    };
    for (index, part) in listed.iter().enumerate() {
        let field = format!("ObjectParts.Parts[{index}].Size");
        let size = part.get("Size").unwrap_or(&Value::Null);
        reported
            .part_sizes
            .push(Count::Bytes.of_json(&field, size)?);
    }
    Ok(())
}

/// A value's `-N` part count suffix, split off: (value, N). Digits that are no number (values
/// read from S3 have been checked by [`with_valid_part_count`]) are no suffix.
pub(crate) fn split_part_count(value: &str) -> Option<(&str, u64)> {
    let (base, digits) = part_count_digits(value)?;
    Some((base, digits.parse().ok()?))
}

/// A value's `-N` suffix as written, split off: (value, digits), whatever number they make.
fn part_count_digits(value: &str) -> Option<(&str, &str)> {
    value
        .rsplit_once('-')
        .filter(|(_, digits)| all_digits(digits))
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

    /// A first part of no bytes cuts an empty file into its one part, and no other file: its
    /// values would be computed from empty parts, none of the file's bytes read.
    #[test]
    fn parts_of_no_bytes_cut_only_an_empty_file() {
        let reported = |count| Reported {
            parts_count: Some(count),
            part_sizes: vec![0],
            ..Reported::default()
        };
        assert_eq!(reported(6).known_cut(6), None);
        assert!(reported(6).parts_differ(6, 6));
        assert_eq!(reported(1).known_cut(0), Some(Some(0)));
        assert!(!reported(1).parts_differ(0, 1));
    }

    /// A part count above S3's limit was not S3's: no cut is known from it, and the reason says
    /// so, whether or not its first part would cut the file.
    #[test]
    fn more_parts_than_s3_makes_are_not_checked() {
        let reported = |count, first| Reported {
            parts_count: Some(count),
            part_sizes: vec![first],
            ..Reported::default()
        };
        assert_eq!(reported(MAX_PARTS, 1).known_cut(MAX_PARTS), Some(Some(1)));
        assert_eq!(
            reported(MAX_PARTS, 1).parts_unverifiable(MAX_PARTS, MAX_PARTS),
            None
        );
        let over = reported(MAX_PARTS + 1, 1);
        assert_eq!(over.known_cut(MAX_PARTS + 1), None);
        let reason = over.parts_unverifiable(MAX_PARTS + 1, MAX_PARTS + 1);
        assert_eq!(reason, Some(MORE_PARTS_THAN_S3_MAKES));
        let reason = reported(3, 1).parts_unverifiable(12, 3);
        assert_eq!(reason, Some(PARTS_DIFFER));
    }

    /// The reason `parse_reported` gives for the JSON text `json`.
    fn refused(json: &str) -> String {
        let value: Value = serde_json::from_str(json).unwrap();
        match parse_reported(&value) {
            Ok(reported) => panic!("{json} was taken: {reported:?}"),
            Err(reason) => reason,
        }
    }

    /// A field fasthash reads is used as S3 means it or refused with its name and why, never
    /// passed over: sizes and counts that are negative, fractional, beyond `u64`, strings or
    /// null; a part count of 0, in a field or after a value's `-`; checksums that are no
    /// strings.
    #[test]
    fn fields_that_hold_no_value_of_their_kind_are_refused_by_name() {
        let bytes = "is not a size in bytes (a whole number from 0 to 18446744073709551615)";
        let parts = "is not a number of parts (a whole number from 1 to 18446744073709551615)";
        let etag = r#""ETag": "d41d8cd98f00b204e9800998ecf8427e""#;
        // Each member as written in the JSON, and the field and value as the message shows them.
        let huge = "1.8446744073709552e+19";
        for (member, shown, what) in [
            (r#""ContentLength": -5"#, "ContentLength: -5", bytes),
            (
                r#""ContentLength": 18446744073709551616"#,
                &format!("ContentLength: {huge}"),
                bytes,
            ),
            (r#""ContentLength": 5.0"#, "ContentLength: 5.0", bytes),
            (r#""ContentLength": 1e3"#, "ContentLength: 1000.0", bytes),
            (r#""ContentLength": "12""#, r#"ContentLength: "12""#, bytes),
            (r#""ContentLength": null"#, "ContentLength: null", bytes),
            (r#""ObjectSize": -1"#, "ObjectSize: -1", bytes),
            (r#""PartsCount": 0"#, "PartsCount: 0", parts),
            (r#""PartsCount": -3"#, "PartsCount: -3", parts),
            (r#""PartsCount": 2.5"#, "PartsCount: 2.5", parts),
            (r#""PartsCount": "3""#, r#"PartsCount: "3""#, parts),
            (
                r#""ObjectParts": {"TotalPartsCount": 18446744073709551616}"#,
                &format!("ObjectParts.TotalPartsCount: {huge}"),
                parts,
            ),
            (
                r#""ObjectParts": {"PartsCount": 0}"#,
                "ObjectParts.PartsCount: 0",
                parts,
            ),
            (
                r#""ObjectParts": {"TotalPartsCount": 2, "Parts": [{"Size": -1}]}"#,
                "ObjectParts.Parts[0].Size: -1",
                bytes,
            ),
            (
                r#""ObjectParts": {"TotalPartsCount": 2, "Parts": [{"PartNumber": 1}]}"#,
                "ObjectParts.Parts[0].Size: null",
                bytes,
            ),
        ] {
            let json = format!("{{{etag}, {member}}}");
            assert_eq!(refused(&json), format!("{shown} {what}"), "{json}");
        }
        // Part counts after a `-`, and fields of the wrong kind.
        let suffix = |field: &str, value: &str, count: &str| {
            format!("{field}: {value:?}: its part count {count:?} {parts}")
        };
        for (json, expected) in [
            (
                r#"{"ETag": "\"x-99999999999999999999\""}"#,
                suffix("ETag", "x-99999999999999999999", "99999999999999999999"),
            ),
            (r#"{"ETag": "x-0"}"#, suffix("ETag", "x-0", "0")),
            (r#"{"ETag": "x-"}"#, suffix("ETag", "x-", "")),
            (
                r#"{"ChecksumCRC32": "AAAAAA==-0"}"#,
                suffix("ChecksumCRC32", "AAAAAA==-0", "0"),
            ),
            (
                r#"{"ChecksumCRC32": 5}"#,
                "ChecksumCRC32: 5 is not a string".into(),
            ),
            (r#"{"ETag": 5}"#, "ETag: 5 is not a string".into()),
            (
                r#"{"ChecksumType": 1, "ETag": "x"}"#,
                "ChecksumType: 1 is not a string".into(),
            ),
            (
                r#"{"Checksum": "x", "ETag": "x"}"#,
                r#"Checksum: "x" is not an object"#.into(),
            ),
            (
                r#"{"ObjectParts": 7, "ETag": "x"}"#,
                "ObjectParts: 7 is not an object".into(),
            ),
            (
                r#"{"ObjectParts": {"Parts": 5}, "ETag": "x"}"#,
                "ObjectParts.Parts: 5 is not a list".into(),
            ),
        ] {
            assert_eq!(refused(json), expected, "{json}");
        }
        // The largest values are taken, as is an empty object's size.
        let edges = serde_json::json!({
            "ETag": "9652ce2a95f9a7975d166a608aabbfe1-18446744073709551615",
            "ContentLength": 0,
            "ObjectParts": {"TotalPartsCount": 1, "Parts": [{"Size": u64::MAX}]},
        });
        let reported = parse_reported(&edges).unwrap();
        assert_eq!(reported.part_count(), Some(u64::MAX));
        assert_eq!((reported.size, reported.parts_count), (Some(0), Some(1)));
        assert_eq!(reported.part_sizes, [u64::MAX]);
    }

    /// HeadObject's headers are held to the same rules as the JSON.
    #[test]
    fn headers_that_hold_no_value_of_their_kind_are_refused_by_name() {
        let parts = "is not a number of parts (a whole number from 1 to 18446744073709551615)";
        for (name, value, expected) in [
            (
                "Content-Length",
                "-5",
                "content-length: \"-5\" is not a size in bytes",
            ),
            (
                "content-length",
                "18446744073709551616",
                "content-length: \"18446744073709551616\"",
            ),
            ("content-length", "+5", "content-length: \"+5\""),
            (
                "x-amz-mp-parts-count",
                "0",
                "x-amz-mp-parts-count: \"0\" is not a number of parts",
            ),
            ("x-amz-mp-parts-count", "", "x-amz-mp-parts-count: \"\""),
            (
                "ETag",
                "\"x-99999999999999999999\"",
                "ETag: \"x-99999999999999999999\": its part count",
            ),
            (
                "x-amz-checksum-crc32",
                "AAAAAA==-0",
                "x-amz-checksum-crc32: \"AAAAAA==-0\": its",
            ),
        ] {
            let reason = reported_from_headers([(name, value)]).unwrap_err();
            assert!(reason.starts_with(expected), "{name}: {value}: {reason}");
        }
        let reason = reported_from_headers([("x-amz-mp-parts-count", "0")]).unwrap_err();
        assert!(reason.ends_with(parts), "{reason}");
        let reported = reported_from_headers([
            ("Content-Length", "12582912"),
            ("ETag", "\"9652ce2a95f9a7975d166a608aabbfe1-3\""),
            ("x-amz-mp-parts-count", "3"),
        ])
        .unwrap();
        assert_eq!(reported.size, Some(12_582_912));
        assert_eq!(
            (reported.part_count(), reported.parts_count),
            (Some(3), Some(3))
        );
    }
}
