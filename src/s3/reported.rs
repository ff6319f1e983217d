//! What S3 says about an object: HeadObject's response headers, or the JSON the AWS CLI
//! prints of HeadObject or GetObjectAttributes, read into one [`Reported`]; and what that tells
//! of how the object was cut into parts. The client fills it from the headers, and `verify`
//! checks a file against it.

use super::parts::part_count;
use crate::kernels::Algorithm;
use serde_json::Value;

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
            .filter_map(|value| split_part_count(value)?.1.parse().ok())
            .next()
            .or(self.parts_count)
    }

    /// How the object was cut, when S3 says enough to know: `Some(None)` for one upload of
    /// the whole file, `Some(Some(size))` for parts of that size (the last one smaller).
    pub(crate) fn known_cut(&self, size: u64) -> Option<Option<u64>> {
        match self.part_count() {
            None => Some(None),
            Some(count) => {
                let first = *self.part_sizes.first()?;
                (part_count(size, first) == count).then_some(Some(first))
            }
        }
    }

    /// The parts are not all of the first one's size (the last one aside): S3 gave the first
    /// part's size, and it does not cut the file into the reported number of parts.
    pub(crate) fn parts_differ(&self, size: u64, count: u64) -> bool {
        self.part_sizes
            .first()
            .is_some_and(|&first| part_count(size, first) != count)
    }
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
/// whichever algorithms the SDK's model knows.
// Read only by the client, which a build without the feature `s3` lacks.
#[cfg_attr(not(feature = "s3"), allow(dead_code))]
pub(crate) fn reported_from_headers<'a>(
    headers: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Reported {
    let mut reported = Reported::default();
    let (mut encryption, mut customer_key) = (None, false);
    for (name, value) in headers {
        let name = name.to_ascii_lowercase();
        match name.as_str() {
            "x-amz-checksum-type" => reported.checksum_type = Some(value.to_string()),
            "content-length" => reported.size = value.parse().ok(),
            "etag" => reported.etag = Some(value.trim_matches('"').to_string()),
            "x-amz-mp-parts-count" => reported.parts_count = value.parse().ok(),
            "x-amz-server-side-encryption" => encryption = Some(value.to_string()),
            "x-amz-server-side-encryption-customer-algorithm" => customer_key = true,
            _ => {
                if let Some(algorithm) = Algorithm::from_s3_header(&name) {
                    reported.checksums.push((algorithm, value.to_string()));
                }
            }
        }
    }
    reported.etag_not_md5 = etag_not_md5(encryption.as_deref(), customer_key);
    reported
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
    reported.etag_not_md5 = etag_not_md5(
        top.get("ServerSideEncryption").and_then(Value::as_str),
        top.contains_key("SSECustomerAlgorithm"),
    );
    if reported.checksums.is_empty() && reported.etag.is_none() && reported.size.is_none() {
        return Err("no checksum, ETag or size in it".into());
    }
    Ok(reported)
}

/// A value's `-N` part count suffix, split off: (value, digits).
pub(crate) fn split_part_count(value: &str) -> Option<(&str, &str)> {
    value
        .rsplit_once('-')
        .filter(|(_, count)| count.bytes().all(|b| b.is_ascii_digit()))
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
}
