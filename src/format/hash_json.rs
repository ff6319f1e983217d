//! `--json` when hashing: one JSON object a line for each file,
//! `{"name": ..., "size": N, "digests": {"md5": "...", "sha256": "..."}}`, the digests keyed by
//! the algorithms' `-a` names, encoded as the lines would be (hex, or base64 with `--base64`).
//! `docs/json.md` (`## Hashing`) describes it. A name is written as in every other object of
//! fasthash's ([`insert_name`]: `name`, and `name_base64` when it is not UTF-8).

use super::json::{insert_name, write_object};
use super::DigestEncoding;
use crate::kernels::{Algorithm, Digest};
use serde_json::{Map, Value};
use std::io::{self, Write};

/// Writes the object of one file, and its newline.
pub(crate) fn write_hash_object<'a>(
    out: &mut impl Write,
    name: &[u8],
    size: u64,
    digests: impl IntoIterator<Item = (Algorithm, &'a Digest)>,
    encoding: DigestEncoding,
) -> io::Result<()> {
    let mut object = Map::new();
    insert_name(&mut object, "name", name);
    object.insert("size".into(), size.into());
    let digests: Map<String, Value> = digests
        .into_iter()
        .map(|(algorithm, digest)| (algorithm.to_string(), encoding.encode(digest).into()))
        .collect();
    object.insert("digests".into(), digests.into());
    write_object(out, object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::hash;

    fn object(name: &[u8], encoding: DigestEncoding) -> serde_json::Value {
        let md5 = hash(Algorithm::Md5, b"abc");
        let sha1 = hash(Algorithm::Sha1, b"abc");
        let mut out = Vec::new();
        write_hash_object(
            &mut out,
            name,
            3,
            [(Algorithm::Md5, &md5), (Algorithm::Sha1, &sha1)],
            encoding,
        )
        .unwrap();
        assert_eq!(out.last(), Some(&b'\n'));
        serde_json::from_slice(&out).unwrap()
    }

    #[test]
    fn one_object_with_every_digest() {
        let json = object(b"a \"b\"\n", DigestEncoding::Hex);
        assert_eq!(json["name"], "a \"b\"\n");
        assert!(json.get("name_base64").is_none());
        assert_eq!(json["size"], 3);
        assert_eq!(json["digests"]["md5"], "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(
            json["digests"]["sha1"],
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        let base64 = object(b"f", DigestEncoding::Base64);
        assert_eq!(base64["digests"]["md5"], "kAFQmDzST7DWlj99KOF/cg==");
    }

    #[test]
    fn a_name_that_is_not_utf8_is_also_given_exactly() {
        let json = object(b"a\xffb", DigestEncoding::Hex);
        assert_eq!(json["name"], "a\u{fffd}b");
        assert_eq!(json["name_base64"], "Yf9i");
    }
}
