//! Every algorithm fasthash knows: the one table of names, tags, lengths, untagged readings and
//! S3 headers. Nothing outside `kernels` matches on algorithm names: the CLI, the formatters
//! and `--check` all look an algorithm up in [`ALGORITHMS`].

use super::digest::Digest;
use std::borrow::Cow;
use std::fmt;

/// The algorithms fasthash computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    Sha256,
    Sha224,
    Sha384,
    Sha512,
    Sha1,
    Md5,
    Blake3,
    Xxh64,
    Xxh32,
    Xxh3,
    Xxh128,
    Crc32,
    Crc32c,
    Crc64Nvme,
    /// BLAKE2b with a digest of this many bytes (1 to 64; b2sum's default is 64). Each length
    /// is its own function: the length is hashed in, so BLAKE2b-256 is not a truncated
    /// BLAKE2b-512.
    Blake2b(u8),
    Sha3_224,
    Sha3_256,
    Sha3_384,
    Sha3_512,
    Sm3,
    /// cksum's own CRC (POSIX: CRC-32/CKSUM over the data, then over the length).
    Crc,
    /// CRC-32/ISO-HDLC as `cksum -a crc32b` prints it: with the size.
    Crc32b,
    /// The BSD `sum` checksum (16 bits, rotate and add).
    Bsd,
    /// The System V `sum` checksum (16 bits, the byte sum folded).
    Sysv,
}

/// What the rest of the program needs to know about an algorithm.
#[derive(Debug)]
pub struct AlgorithmInfo {
    pub algorithm: Algorithm,
    /// The canonical `-a` name, as printed in help and messages.
    pub name: &'static str,
    /// Other accepted `-a` names (matched case-insensitively), Amazon S3's names among them.
    pub aliases: &'static [&'static str],
    /// The tag of BSD-style lines: `TAG (NAME) = DIGEST`.
    pub bsd_tag: &'static str,
    /// Digest length in bytes (BLAKE2b's row: its longest, the default).
    pub digest_len: usize,
    /// The legacy checksums of cksum and sum: the digest is the checksum then the input's
    /// size (see [`sum_and_size`]), printed in decimal beside the size, never checked.
    pub with_size: bool,
    /// How a digest with no tag (`DIGEST  NAME`) may be read as this algorithm: each digest
    /// length in bytes it is tried at, and its rank among that length's readings (0 is tried
    /// first; a line passes if the file matches under any of them). BLAKE2b is read at its
    /// two usual lengths, as its 32- and 64-byte members.
    pub untagged: &'static [(usize, u8)],
    /// Amazon S3's name (`ChecksumAlgorithm`), when S3 accepts the algorithm.
    pub s3_name: Option<&'static str>,
    /// The `x-amz-checksum-*` header, when S3 accepts the algorithm.
    pub s3_header: Option<&'static str>,
    /// The checksum types S3 accepts for a multipart upload with this algorithm.
    pub s3_multipart: &'static [S3ChecksumType],
    /// The names cksum's `-a` gives it, each with the tag cksum's `-c` knows its lines by.
    pub cksum: &'static [CksumName],
    /// The coreutils program that prints it by default (`md5sum`, ..., `b2sum`, `cksum` for its
    /// CRC, `sum` for the BSD checksum).
    pub coreutils_program: Option<&'static str>,
}

/// One name of cksum's `-a`.
#[derive(Debug)]
pub struct CksumName {
    pub name: &'static str,
    /// The tag of its lines, which `--check --warn` also calls the algorithm by.
    pub tag: &'static str,
    /// Its place in cksum's list of names (in `--help` and in the error for an unknown name).
    pub rank: u8,
    /// It names the row's family (`sha2`, `sha3`): `-l` picks the member
    /// ([`Algorithm::with_length`]), the row's algorithm being the one `-c` starts from.
    pub family: bool,
}

/// A name of cksum's `-a` that names the row's algorithm alone.
const fn cksum(name: &'static str, tag: &'static str, rank: u8) -> CksumName {
    CksumName {
        name,
        tag,
        rank,
        family: false,
    }
}

/// How S3 checksums a multipart upload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum S3ChecksumType {
    /// The checksum of the whole object, as for a single upload (the CRCs only).
    FullObject,
    /// The checksum of the parts' checksums, with `-N` for N parts.
    Composite,
}

impl S3ChecksumType {
    /// S3's name (`ChecksumType`).
    pub fn s3_name(self) -> &'static str {
        match self {
            S3ChecksumType::FullObject => "FULL_OBJECT",
            S3ChecksumType::Composite => "COMPOSITE",
        }
    }
}

const COMPOSITE_ONLY: &[S3ChecksumType] = &[S3ChecksumType::Composite];
const CRC_TYPES: &[S3ChecksumType] = &[S3ChecksumType::FullObject, S3ChecksumType::Composite];

/// The single table of algorithms. Its order is the order of help texts, `--list-kernels` and
/// `--debug`; how an untagged digest is read is each row's `untagged`.
pub static ALGORITHMS: &[AlgorithmInfo] = ROWS;

/// How many rows [`ALGORITHMS`] has.
pub(crate) const ALGORITHM_COUNT: usize = ROWS.len();

const ROWS: &[AlgorithmInfo] = &[
    AlgorithmInfo {
        algorithm: Algorithm::Sha256,
        name: "sha256",
        aliases: &["sha-256", "sha2-256"],
        bsd_tag: "SHA256",
        digest_len: 32,
        with_size: false,
        untagged: &[(32, 0)],
        s3_name: Some("SHA256"),
        s3_header: Some("x-amz-checksum-sha256"),
        s3_multipart: COMPOSITE_ONLY,
        cksum: &[
            cksum("sha256", "SHA256", 7),
            CksumName {
                name: "sha2",
                tag: "SHA2",
                rank: 10,
                family: true,
            },
        ],
        coreutils_program: Some("sha256sum"),
    },
    AlgorithmInfo {
        algorithm: Algorithm::Sha512,
        name: "sha512",
        aliases: &["sha-512", "sha2-512"],
        bsd_tag: "SHA512",
        digest_len: 64,
        with_size: false,
        untagged: &[(64, 0)],
        s3_name: Some("SHA512"),
        s3_header: Some("x-amz-checksum-sha512"),
        s3_multipart: COMPOSITE_ONLY,
        cksum: &[cksum("sha512", "SHA512", 9)],
        coreutils_program: Some("sha512sum"),
    },
    AlgorithmInfo {
        algorithm: Algorithm::Sha1,
        name: "sha1",
        aliases: &["sha-1"],
        bsd_tag: "SHA1",
        digest_len: 20,
        with_size: false,
        untagged: &[(20, 0)],
        s3_name: Some("SHA1"),
        s3_header: Some("x-amz-checksum-sha1"),
        s3_multipart: COMPOSITE_ONLY,
        cksum: &[cksum("sha1", "SHA1", 5)],
        coreutils_program: Some("sha1sum"),
    },
    AlgorithmInfo {
        algorithm: Algorithm::Md5,
        name: "md5",
        aliases: &[],
        bsd_tag: "MD5",
        digest_len: 16,
        with_size: false,
        untagged: &[(16, 0)],
        s3_name: Some("MD5"),
        s3_header: Some("x-amz-checksum-md5"),
        s3_multipart: COMPOSITE_ONLY,
        cksum: &[cksum("md5", "MD5", 4)],
        coreutils_program: Some("md5sum"),
    },
    AlgorithmInfo {
        algorithm: Algorithm::Sha384,
        name: "sha384",
        aliases: &["sha-384", "sha2-384"],
        bsd_tag: "SHA384",
        digest_len: 48,
        with_size: false,
        untagged: &[(48, 0)],
        s3_name: None,
        s3_header: None,
        s3_multipart: &[],
        cksum: &[cksum("sha384", "SHA384", 8)],
        coreutils_program: Some("sha384sum"),
    },
    AlgorithmInfo {
        algorithm: Algorithm::Sha224,
        name: "sha224",
        aliases: &["sha-224", "sha2-224"],
        bsd_tag: "SHA224",
        digest_len: 28,
        with_size: false,
        untagged: &[(28, 0)],
        s3_name: None,
        s3_header: None,
        s3_multipart: &[],
        cksum: &[cksum("sha224", "SHA224", 6)],
        coreutils_program: Some("sha224sum"),
    },
    AlgorithmInfo {
        algorithm: Algorithm::Blake3,
        name: "blake3",
        aliases: &["b3"],
        bsd_tag: "BLAKE3",
        digest_len: 32,
        with_size: false,
        untagged: &[(32, 1)],
        s3_name: None,
        s3_header: None,
        s3_multipart: &[],
        cksum: &[],
        coreutils_program: None,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Xxh3,
        name: "xxh3",
        aliases: &["xxhash3", "xxh3-64", "xxh3_64"],
        bsd_tag: "XXH3",
        digest_len: 8,
        with_size: false,
        untagged: &[(8, 1)],
        s3_name: Some("XXHASH3"),
        s3_header: Some("x-amz-checksum-xxhash3"),
        s3_multipart: COMPOSITE_ONLY,
        cksum: &[],
        coreutils_program: None,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Xxh128,
        name: "xxh128",
        aliases: &["xxhash128", "xxh3-128", "xxh3_128"],
        bsd_tag: "XXH128",
        digest_len: 16,
        with_size: false,
        untagged: &[(16, 1)],
        s3_name: Some("XXHASH128"),
        s3_header: Some("x-amz-checksum-xxhash128"),
        s3_multipart: COMPOSITE_ONLY,
        cksum: &[],
        coreutils_program: None,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Xxh64,
        name: "xxh64",
        aliases: &["xxhash64"],
        bsd_tag: "XXH64",
        digest_len: 8,
        with_size: false,
        untagged: &[(8, 0)],
        s3_name: Some("XXHASH64"),
        s3_header: Some("x-amz-checksum-xxhash64"),
        s3_multipart: COMPOSITE_ONLY,
        cksum: &[],
        coreutils_program: None,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Xxh32,
        name: "xxh32",
        aliases: &["xxhash32"],
        bsd_tag: "XXH32",
        digest_len: 4,
        with_size: false,
        untagged: &[(4, 2)],
        s3_name: None,
        s3_header: None,
        s3_multipart: &[],
        cksum: &[],
        coreutils_program: None,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Crc64Nvme,
        name: "crc64nvme",
        aliases: &["crc64-nvme", "crc64"],
        bsd_tag: "CRC64NVME",
        digest_len: 8,
        with_size: false,
        untagged: &[(8, 2)],
        s3_name: Some("CRC64NVME"),
        s3_header: Some("x-amz-checksum-crc64nvme"),
        s3_multipart: &[S3ChecksumType::FullObject],
        cksum: &[],
        coreutils_program: None,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Crc32,
        name: "crc32",
        aliases: &["crc-32"],
        bsd_tag: "CRC32",
        digest_len: 4,
        with_size: false,
        untagged: &[(4, 0)],
        s3_name: Some("CRC32"),
        s3_header: Some("x-amz-checksum-crc32"),
        s3_multipart: CRC_TYPES,
        cksum: &[],
        coreutils_program: None,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Crc32c,
        name: "crc32c",
        aliases: &["crc-32c"],
        bsd_tag: "CRC32C",
        digest_len: 4,
        with_size: false,
        untagged: &[(4, 1)],
        s3_name: Some("CRC32C"),
        s3_header: Some("x-amz-checksum-crc32c"),
        s3_multipart: CRC_TYPES,
        cksum: &[],
        coreutils_program: None,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Blake2b(64),
        name: "blake2b",
        aliases: &["blake2b-512", "blake2", "b2"],
        bsd_tag: "BLAKE2b",
        digest_len: 64,
        with_size: false,
        untagged: &[(32, 2), (64, 1)],
        s3_name: None,
        s3_header: None,
        s3_multipart: &[],
        cksum: &[cksum("blake2b", "BLAKE2b", 12)],
        coreutils_program: Some("b2sum"),
    },
    AlgorithmInfo {
        algorithm: Algorithm::Sha3_256,
        name: "sha3-256",
        aliases: &["sha3_256"],
        bsd_tag: "SHA3-256",
        digest_len: 32,
        with_size: false,
        untagged: &[(32, 3)],
        s3_name: None,
        s3_header: None,
        s3_multipart: &[],
        cksum: &[CksumName {
            name: "sha3",
            tag: "SHA3",
            rank: 11,
            family: true,
        }],
        coreutils_program: None,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Sha3_512,
        name: "sha3-512",
        aliases: &["sha3_512"],
        bsd_tag: "SHA3-512",
        digest_len: 64,
        with_size: false,
        untagged: &[(64, 2)],
        s3_name: None,
        s3_header: None,
        s3_multipart: &[],
        cksum: &[],
        coreutils_program: None,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Sha3_384,
        name: "sha3-384",
        aliases: &["sha3_384"],
        bsd_tag: "SHA3-384",
        digest_len: 48,
        with_size: false,
        untagged: &[(48, 1)],
        s3_name: None,
        s3_header: None,
        s3_multipart: &[],
        cksum: &[],
        coreutils_program: None,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Sha3_224,
        name: "sha3-224",
        aliases: &["sha3_224"],
        bsd_tag: "SHA3-224",
        digest_len: 28,
        with_size: false,
        untagged: &[(28, 1)],
        s3_name: None,
        s3_header: None,
        s3_multipart: &[],
        cksum: &[],
        coreutils_program: None,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Sm3,
        name: "sm3",
        aliases: &[],
        bsd_tag: "SM3",
        digest_len: 32,
        with_size: false,
        untagged: &[(32, 4)],
        s3_name: None,
        s3_header: None,
        s3_multipart: &[],
        cksum: &[cksum("sm3", "SM3", 13)],
        coreutils_program: None,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Crc,
        name: "crc",
        aliases: &["cksum"],
        bsd_tag: "CRC",
        digest_len: 4 + 8,
        with_size: true,
        untagged: &[],
        s3_name: None,
        s3_header: None,
        s3_multipart: &[],
        cksum: &[cksum("crc", "CRC", 2)],
        coreutils_program: Some("cksum"),
    },
    AlgorithmInfo {
        algorithm: Algorithm::Crc32b,
        name: "crc32b",
        aliases: &[],
        bsd_tag: "CRC32B",
        digest_len: 4 + 8,
        with_size: true,
        untagged: &[],
        s3_name: None,
        s3_header: None,
        s3_multipart: &[],
        cksum: &[cksum("crc32b", "CRC32B", 3)],
        coreutils_program: None,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Bsd,
        name: "bsd",
        aliases: &["sum"],
        bsd_tag: "BSD",
        digest_len: 2 + 8,
        with_size: true,
        untagged: &[],
        s3_name: None,
        s3_header: None,
        s3_multipart: &[],
        cksum: &[cksum("bsd", "BSD", 0)],
        coreutils_program: Some("sum"),
    },
    AlgorithmInfo {
        algorithm: Algorithm::Sysv,
        name: "sysv",
        aliases: &[],
        bsd_tag: "SYSV",
        digest_len: 2 + 8,
        with_size: true,
        untagged: &[],
        s3_name: None,
        s3_header: None,
        s3_multipart: &[],
        cksum: &[cksum("sysv", "SYSV", 1)],
        coreutils_program: None,
    },
];

impl Algorithm {
    /// Every algorithm, in table order.
    pub fn all() -> impl Iterator<Item = Algorithm> {
        ALGORITHMS.iter().map(|info| info.algorithm)
    }

    pub fn info(self) -> &'static AlgorithmInfo {
        &ALGORITHMS[self.index()]
    }

    /// Its row's place in [`ALGORITHMS`]: every BLAKE2b length shares BLAKE2b's row.
    pub(crate) fn index(self) -> usize {
        let row = match self {
            Algorithm::Blake2b(_) => Algorithm::Blake2b(64),
            other => other,
        };
        ALGORITHMS
            .iter()
            .position(|info| info.algorithm == row)
            .expect("every Algorithm has a row in ALGORITHMS")
    }

    /// The member of this algorithm's family with a digest of `bytes` bytes: BLAKE2b of any
    /// length, the four SHA-2 and the four SHA-3 lengths; None for other algorithms.
    pub fn with_length(self, bytes: usize) -> Option<Algorithm> {
        use Algorithm::*;
        let pick = |members: [Algorithm; 4]| members.into_iter().find(|m| m.digest_len() == bytes);
        match self {
            Blake2b(_) => (1..=64).contains(&bytes).then_some(Blake2b(bytes as u8)),
            Sha224 | Sha256 | Sha384 | Sha512 => pick([Sha224, Sha256, Sha384, Sha512]),
            Sha3_224 | Sha3_256 | Sha3_384 | Sha3_512 => {
                pick([Sha3_224, Sha3_256, Sha3_384, Sha3_512])
            }
            _ => None,
        }
    }

    /// BLAKE2b with a digest of `bits` bits, as b2sum's `-l` takes it: a multiple of 8 from 8
    /// to 512.
    pub fn blake2b_bits(bits: u32) -> Option<Algorithm> {
        (bits.is_multiple_of(8) && (8..=512).contains(&bits))
            .then_some(Algorithm::Blake2b((bits / 8) as u8))
    }

    /// The algorithm a coreutils program prints by default (a row's `coreutils_program`), for
    /// tables built at compile time: an unknown name fails the build.
    pub const fn of_coreutils_program(program: &str) -> Algorithm {
        let mut row = 0;
        while row < ROWS.len() {
            if let Some(name) = ROWS[row].coreutils_program {
                if name.len() == program.len() {
                    let (name, program) = (name.as_bytes(), program.as_bytes());
                    let mut at = 0;
                    while at < name.len() && name[at] == program[at] {
                        at += 1;
                    }
                    if at == name.len() {
                        return ROWS[row].algorithm;
                    }
                }
            }
            row += 1;
        }
        panic!("no algorithm has this coreutils program")
    }

    /// Looks up a `-a` name or alias, case-insensitively.
    pub fn from_name(name: &str) -> Option<Algorithm> {
        ALGORITHMS
            .iter()
            .find(|info| {
                info.name.eq_ignore_ascii_case(name)
                    || info.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
            })
            .map(|info| info.algorithm)
    }

    /// Looks up the tag of a BSD-style line (exact, as coreutils does); `BLAKE2b-BITS` names a
    /// shorter BLAKE2b, as b2sum writes it.
    pub fn from_bsd_tag(tag: &str) -> Option<Algorithm> {
        // Digits only: `parse` would also take a sign.
        let bits = |text: &str| -> Option<u32> {
            if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            text.parse().ok()
        };
        if let Some(text) = tag.strip_prefix("BLAKE2b-") {
            return bits(text).and_then(Algorithm::blake2b_bits);
        }
        // cksum 9.11 reads `SHA2-384` as it reads `SHA384`.
        if let Some(text) = tag.strip_prefix("SHA2-") {
            let bytes = bits(text).filter(|b| b % 8 == 0)? / 8;
            return Algorithm::Sha256.with_length(bytes as usize);
        }
        ALGORITHMS
            .iter()
            .find(|info| info.bsd_tag == tag)
            .map(|info| info.algorithm)
    }

    /// Looks up Amazon S3's name for an algorithm (`CRC64NVME`, `XXHASH128`), exactly.
    pub fn from_s3_name(name: &str) -> Option<Algorithm> {
        ALGORITHMS
            .iter()
            .find(|info| info.s3_name == Some(name))
            .map(|info| info.algorithm)
    }

    /// Looks up the algorithm of an `x-amz-checksum-*` header, in any case (HTTP header names
    /// are case-insensitive).
    pub fn from_s3_header(header: &str) -> Option<Algorithm> {
        ALGORITHMS
            .iter()
            .find(|info| {
                info.s3_header
                    .is_some_and(|h| h.eq_ignore_ascii_case(header))
            })
            .map(|info| info.algorithm)
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The tag of BSD-style lines; a BLAKE2b shorter than 512 bits says its length, as b2sum
    /// writes it (`BLAKE2b-256`).
    pub fn bsd_tag(self) -> Cow<'static, str> {
        match self {
            Algorithm::Blake2b(len) if len < 64 => {
                Cow::Owned(format!("{}-{}", self.info().bsd_tag, u32::from(len) * 8))
            }
            _ => Cow::Borrowed(self.info().bsd_tag),
        }
    }

    pub fn digest_len(self) -> usize {
        match self {
            Algorithm::Blake2b(len) => usize::from(len),
            _ => self.info().digest_len,
        }
    }

    /// Valid `-a` names, for usage errors and help.
    pub fn names_list() -> String {
        ALGORITHMS
            .iter()
            .map(|info| info.name)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Algorithm::Blake2b(len) if len < 64 => {
                write!(f, "{}-{}", self.name(), u32::from(len) * 8)
            }
            _ => f.write_str(self.name()),
        }
    }
}

/// cksum's `-a` names in cksum's order, each with its row's algorithm.
pub fn cksum_names() -> &'static [(&'static CksumName, Algorithm)] {
    static NAMES: std::sync::OnceLock<Vec<(&'static CksumName, Algorithm)>> =
        std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let mut names: Vec<_> = ROWS
            .iter()
            .flat_map(|row| row.cksum.iter().map(|name| (name, row.algorithm)))
            .collect();
        names.sort_by_key(|(name, _)| name.rank);
        names
    })
}

/// A legacy checksum's digest ([`AlgorithmInfo::with_size`]) split into the checksum and the
/// size of the input it was computed over.
pub fn sum_and_size(digest: &Digest) -> (u64, u64) {
    let bytes = digest.as_bytes();
    let (value, size) = bytes.split_at(bytes.len().saturating_sub(8));
    let big_endian = |bytes: &[u8]| bytes.iter().fold(0u64, |n, &b| (n << 8) | u64::from(b));
    (big_endian(value), big_endian(size))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blake2b_lengths_are_named_as_b2sum_names_them() {
        assert_eq!(Algorithm::blake2b_bits(256), Some(Algorithm::Blake2b(32)));
        for bits in [0, 4, 12, 520, 1024] {
            assert_eq!(Algorithm::blake2b_bits(bits), None, "{bits}");
        }
        assert_eq!(Algorithm::Blake2b(32).bsd_tag(), "BLAKE2b-256");
        assert_eq!(Algorithm::Blake2b(64).bsd_tag(), "BLAKE2b");
        assert_eq!(Algorithm::Blake2b(32).digest_len(), 32);
        assert_eq!(Algorithm::Blake2b(32).to_string(), "blake2b-256");
        assert_eq!(
            Algorithm::from_bsd_tag("BLAKE2b-8"),
            Some(Algorithm::Blake2b(1))
        );
        assert_eq!(
            Algorithm::from_bsd_tag("BLAKE2b"),
            Some(Algorithm::Blake2b(64))
        );
        for tag in [
            "BLAKE2b-",
            "BLAKE2b-+256",
            "BLAKE2b-7",
            "BLAKE2b-1024",
            "BLAKE2b-256x",
        ] {
            assert_eq!(Algorithm::from_bsd_tag(tag), None, "{tag}");
        }
        assert_eq!(
            Algorithm::from_name("BLAKE2B"),
            Some(Algorithm::Blake2b(64))
        );
        assert_eq!(
            Algorithm::from_bsd_tag("SHA3-384"),
            Some(Algorithm::Sha3_384)
        );
    }

    #[test]
    fn cksum_names_have_one_place_each_and_their_rows_programs_are_theirs() {
        let ranks: Vec<u8> = cksum_names().iter().map(|(name, _)| name.rank).collect();
        assert_eq!(ranks, (0..ranks.len() as u8).collect::<Vec<_>>());
        let names: Vec<&str> = cksum_names().iter().map(|(name, _)| name.name).collect();
        assert_eq!(
            names,
            [
                "bsd", "sysv", "crc", "crc32b", "md5", "sha1", "sha224", "sha256", "sha384",
                "sha512", "sha2", "sha3", "blake2b", "sm3"
            ]
        );
        assert_eq!(
            Algorithm::of_coreutils_program("b2sum"),
            Algorithm::Blake2b(64)
        );
        assert_eq!(Algorithm::of_coreutils_program("sum"), Algorithm::Bsd);
        assert_eq!(Algorithm::of_coreutils_program("md5sum"), Algorithm::Md5);
    }
}
