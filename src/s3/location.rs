//! `s3://BUCKET/KEY` and `s3://BUCKET/PREFIX/`, as the AWS CLI writes them: where in S3
//! `--verify-s3` looks. Parsed whether or not this build can reach S3 (feature `s3`), so a
//! build without it can say why it refuses one.

use crate::error::{Error, S3Failure};
use std::fmt;

/// A bucket and a key (one object) or a prefix (a tree: empty, or ending in `/`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct S3Location {
    pub bucket: String,
    pub key: String,
}

const SCHEME: &str = "s3://";

impl S3Location {
    /// `None` when `text` is not an S3 URL at all (a path to a JSON file); otherwise the
    /// location, or why it is not one.
    pub fn parse(text: &[u8]) -> Option<Result<S3Location, String>> {
        let rest = text.strip_prefix(SCHEME.as_bytes())?;
        let Ok(rest) = std::str::from_utf8(rest) else {
            return Some(Err("an S3 URL is UTF-8 text".into()));
        };
        let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
        // S3's own rules for bucket names (3 to 63 of a-z, 0-9, '.', '-') are for S3 to
        // enforce; an empty name, or one holding what no bucket name can, is a typing slip.
        if bucket.is_empty() || bucket.contains(|c: char| c.is_whitespace() || c == '?') {
            return Some(Err(format!(
                "no bucket in '{SCHEME}{rest}': write s3://BUCKET/KEY or s3://BUCKET/PREFIX/"
            )));
        }
        Some(Ok(S3Location {
            bucket: bucket.to_string(),
            key: key.to_string(),
        }))
    }

    /// A prefix names a tree of objects: the bucket's root, or a key ending in `/` as a
    /// folder of the S3 console does.
    pub fn is_prefix(&self) -> bool {
        self.key.is_empty() || self.key.ends_with('/')
    }

    /// A failure to reach or read this location, as the one error type.
    pub(crate) fn error(&self, failure: S3Failure) -> Error {
        Error::S3 {
            location: self.to_string(),
            failure,
        }
    }

    /// The location of the object at `key` in the same bucket.
    pub fn with_key(&self, key: &str) -> S3Location {
        S3Location {
            bucket: self.bucket.clone(),
            key: key.to_string(),
        }
    }
}

impl fmt::Display for S3Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{SCHEME}{}/{}", self.bucket, self.key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_prefixes_and_paths() {
        let object = S3Location::parse(b"s3://bucket/a/b c.txt")
            .unwrap()
            .unwrap();
        assert_eq!(object.bucket, "bucket");
        assert_eq!(object.key, "a/b c.txt");
        assert!(!object.is_prefix());
        assert_eq!(object.to_string(), "s3://bucket/a/b c.txt");
        let prefix = S3Location::parse(b"s3://bucket/photos/").unwrap().unwrap();
        assert!(prefix.is_prefix());
        let root = S3Location::parse(b"s3://bucket").unwrap().unwrap();
        assert!(root.is_prefix());
        assert_eq!(root.to_string(), "s3://bucket/");
        assert!(S3Location::parse(b"head.json").is_none());
        assert!(S3Location::parse(b"s3:///key").unwrap().is_err());
        assert!(S3Location::parse(b"s3://\xff/key").unwrap().is_err());
    }
}
