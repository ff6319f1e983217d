//! Known answers shipped in `tests/vectors/` (and `../shared/vectors/` when it is there), and
//! the inputs their specifications define.

use super::repo_path;
use std::path::{Path, PathBuf};

/// One known answer: algorithm name as `kat.tsv` spells it, message, expected lowercase hex.
#[derive(Debug, Clone)]
pub struct KnownAnswer {
    pub algo: String,
    pub params: String,
    pub message: Vec<u8>,
    pub expected_hex: String,
    pub origin: String,
}

/// The bytes a hex string spells.
pub fn decode_hex(hex: &str) -> Vec<u8> {
    assert!(hex.len().is_multiple_of(2), "odd hex length in {hex:.40}");
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex digit"))
        .collect()
}

/// Bytes as lowercase hex, as the tools print digests.
pub fn encode_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// xxHash's sanity buffer (tests/sanity_test.c, fillTestBuffer).
pub fn xxh_sanity_buffer(len: usize) -> Vec<u8> {
    const PRIME32: u64 = 2654435761;
    const PRIME64: u64 = 11400714785074694797;
    let mut byte_gen = PRIME32;
    (0..len)
        .map(|_| {
            let b = (byte_gen >> 56) as u8;
            byte_gen = byte_gen.wrapping_mul(PRIME64);
            b
        })
        .collect()
}

/// BLAKE3's test input: byte i = i mod 251.
pub fn blake3_input(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

/// Parses a NIST CAVP `.rsp` file (byte-oriented): `Len` in bits, `Msg`, `MD`.
/// `Len = 0` comes with `Msg = 00`, which means the empty message.
pub fn parse_rsp(path: &Path, algo: &str) -> Vec<KnownAnswer> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut answers = Vec::new();
    let mut len_bits: Option<usize> = None;
    let mut message: Option<Vec<u8>> = None;
    for line in text.lines() {
        let line = line.trim();
        if let Some(v) = line.strip_prefix("Len = ") {
            len_bits = Some(v.parse().expect("Len"));
        } else if let Some(v) = line.strip_prefix("Msg = ") {
            let bits = len_bits.expect("Len before Msg");
            let bytes = decode_hex(v);
            message = Some(bytes[..bits / 8].to_vec());
        } else if let Some(v) = line.strip_prefix("MD = ") {
            answers.push(KnownAnswer {
                algo: algo.to_string(),
                params: String::new(),
                message: message.take().expect("Msg before MD"),
                expected_hex: v.to_lowercase(),
                origin: format!("{} Len={}", path.display(), len_bits.unwrap_or(0)),
            });
        }
    }
    answers
}

/// RFC 1321's MD5 of `message`, in lowercase hex, from `tests/vectors/md5/rfc-1321.txt`.
pub fn rfc_1321_md5(message: &[u8]) -> String {
    parse_rsp(&repo_path("tests/vectors/md5/rfc-1321.txt"), "md5")
        .into_iter()
        .find(|answer| answer.message == message)
        .unwrap_or_else(|| panic!("RFC 1321 has no MD5 of {message:?}"))
        .expected_hex
}

/// Parses `kat.tsv` rows: `algo[;params] <TAB> input <TAB> expected_hex`.
pub fn parse_kat_tsv(path: &Path) -> Vec<KnownAnswer> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut answers = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(
            fields.len(),
            3,
            "{}:{}: three fields",
            path.display(),
            number + 1
        );
        let (algo, params) = match fields[0].split_once(';') {
            Some((a, p)) => (a, p),
            None => (fields[0], ""),
        };
        let message = if let Some(n) = fields[1].strip_prefix("@xxhsanity:") {
            xxh_sanity_buffer(n.parse().expect("length"))
        } else if let Some(n) = fields[1].strip_prefix("@blake3:") {
            blake3_input(n.parse().expect("length"))
        } else {
            decode_hex(fields[1])
        };
        answers.push(KnownAnswer {
            algo: algo.to_string(),
            params: params.to_string(),
            message,
            expected_hex: fields[2].to_lowercase(),
            origin: format!("{}:{}", path.display(), number + 1),
        });
    }
    answers
}

/// BLAKE3's official vectors: the default-mode 32-byte hash of each input length.
pub fn parse_blake3_json(path: &Path) -> Vec<KnownAnswer> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    json["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|case| {
            let len = case["input_len"].as_u64().expect("input_len") as usize;
            let hash = case["hash"].as_str().expect("hash");
            KnownAnswer {
                algo: "blake3".to_string(),
                params: String::new(),
                message: blake3_input(len),
                expected_hex: hash[..64].to_string(),
                origin: format!("{} input_len={len}", path.display()),
            }
        })
        .collect()
}

/// Maps `kat.tsv`'s algorithm names to fasthash's `-a` names.
pub fn fasthash_name(kat_algo: &str) -> Option<&'static str> {
    Some(match kat_algo {
        "sha1" => "sha1",
        "sha224" => "sha224",
        "sha256" => "sha256",
        "sha384" => "sha384",
        "sha512" => "sha512",
        "md5" => "md5",
        "blake3" => "blake3",
        "sha3-224" => "sha3-224",
        "sha3-256" => "sha3-256",
        "sha3-384" => "sha3-384",
        "sha3-512" => "sha3-512",
        "sm3" => "sm3",
        "blake2b" => "blake2b",
        "xxh32" => "xxh32",
        "xxh64" => "xxh64",
        "xxh3-64" => "xxh3",
        "xxh3-128" => "xxh128",
        "crc32" => "crc32",
        "crc32c" => "crc32c",
        "crc64-nvme" => "crc64nvme",
        _ => return None,
    })
}

/// Every known answer shipped in `tests/vectors/`, default mode only.
pub fn bundled_known_answers() -> Vec<KnownAnswer> {
    let mut all = Vec::new();
    for (file, algo) in [
        ("SHA1ShortMsg", "sha1"),
        ("SHA1LongMsg", "sha1"),
        ("SHA224ShortMsg", "sha224"),
        ("SHA224LongMsg", "sha224"),
        ("SHA256ShortMsg", "sha256"),
        ("SHA256LongMsg", "sha256"),
        ("SHA384ShortMsg", "sha384"),
        ("SHA384LongMsg", "sha384"),
        ("SHA512ShortMsg", "sha512"),
        ("SHA512LongMsg", "sha512"),
        ("SHA3_224ShortMsg", "sha3-224"),
        ("SHA3_256ShortMsg", "sha3-256"),
        ("SHA3_384ShortMsg", "sha3-384"),
        ("SHA3_512ShortMsg", "sha3-512"),
    ] {
        all.extend(parse_rsp(
            &repo_path(&format!("tests/vectors/nist-cavp/{file}.rsp")),
            algo,
        ));
    }
    all.extend(parse_rsp(
        &repo_path("tests/vectors/md5/rfc-1321.txt"),
        "md5",
    ));
    all.extend(parse_rsp(&repo_path("tests/vectors/sm3/oscca.txt"), "sm3"));
    all.extend(parse_rsp(
        &repo_path("tests/vectors/blake2/blake2b.txt"),
        "blake2b",
    ));
    all.extend(parse_blake3_json(&repo_path(
        "tests/vectors/blake3/test_vectors.json",
    )));
    all.extend(parse_kat_tsv(&repo_path(
        "tests/vectors/xxhash/default-seed.tsv",
    )));
    all.extend(parse_kat_tsv(&repo_path("tests/vectors/crc/kat.tsv")));
    all
}

/// The shared vectors folder beside the repository, when it is there.
pub fn shared_vectors() -> Option<PathBuf> {
    let path = repo_path("../shared/vectors");
    path.join("kat.tsv").is_file().then_some(path)
}
