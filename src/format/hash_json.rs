//! `--json` when hashing: one JSON object a line for each file,
//! `{"name": ..., "size": N, "digests": {"md5": "...", "sha256": "..."}}`, the digests keyed by
//! the algorithms' `-a` names in the order given, encoded as the lines would be (hex, or
//! base64 with `--base64`). `docs/json.md` (`## Hashing`) describes it.
//!
//! A name that is not UTF-8 cannot be a JSON string as it is: `name` holds it with the
//! invalid bytes replaced, and `name_escaped` (only then) holds it quoted as coreutils quotes
//! names (`format::quote`), which gives every byte back.

use super::quote::quote_name_lossless;
use super::DigestEncoding;
use crate::kernels::{Algorithm, Digest};
use std::io::{self, Write};

/// Writes the object of one file, and its newline.
pub(crate) fn write_hash_object<'a>(
    out: &mut impl Write,
    name: &[u8],
    size: u64,
    digests: impl IntoIterator<Item = (Algorithm, &'a Digest)>,
    encoding: DigestEncoding,
) -> io::Result<()> {
    let string = |text: &str| serde_json::to_string(text).map_err(io::Error::other);
    let mut line = format!("{{\"name\":{}", string(&String::from_utf8_lossy(name))?);
    if std::str::from_utf8(name).is_err() {
        line.push_str(&format!(
            ",\"name_escaped\":{}",
            string(&quote_name_lossless(name))?
        ));
    }
    line.push_str(&format!(",\"size\":{size},\"digests\":{{"));
    for (index, (algorithm, digest)) in digests.into_iter().enumerate() {
        if index > 0 {
            line.push(',');
        }
        line.push_str(&format!(
            "{}:{}",
            string(&algorithm.to_string())?,
            string(&encoding.encode(digest))?
        ));
    }
    line.push_str("}}\n");
    out.write_all(line.as_bytes())
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
    fn one_object_with_every_digest_in_order() {
        let json = object(b"a \"b\"\n", DigestEncoding::Hex);
        assert_eq!(json["name"], "a \"b\"\n");
        assert!(json.get("name_escaped").is_none());
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
    fn a_name_that_is_not_utf8_is_also_given_escaped() {
        let json = object(b"a\xffb", DigestEncoding::Hex);
        assert_eq!(json["name"], "a\u{fffd}b");
        assert_eq!(json["name_escaped"], "'a'$'\\377''b'");
    }
}
