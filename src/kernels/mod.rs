//! Every algorithm fasthash knows: the one table of names, tags, lengths and S3 headers, and the
//! streaming `Hasher` that runs each algorithm's kernel.
//!
//! Nothing outside this module matches on algorithm names: the CLI, the formatters and `--check`
//! all look an algorithm up in [`ALGORITHMS`].

mod blake3_portable;
mod crc;
#[cfg(target_arch = "x86_64")]
mod crc_fold;
pub mod detect;
mod digest;
mod md5;
#[cfg(target_arch = "x86_64")]
pub mod md5_lanes;
mod sha2_portable;
#[cfg(target_arch = "x86_64")]
mod xxh3;

pub use self::crc::combine as crc_combine;
pub use self::crc::crc_to_digest as crc_digest;
pub use detect::Kernel;
pub use digest::Digest;

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
    Xxh3,
    Xxh128,
    Crc32,
    Crc32c,
    Crc64Nvme,
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
    /// Digest length in bytes.
    pub digest_len: usize,
    /// Amazon S3's name (`ChecksumAlgorithm`), when S3 accepts the algorithm.
    pub s3_name: Option<&'static str>,
    /// The `x-amz-checksum-*` header, when S3 accepts the algorithm.
    pub s3_header: Option<&'static str>,
    /// The checksum types S3 accepts for a multipart upload with this algorithm.
    pub s3_multipart: &'static [S3ChecksumType],
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

/// The single table of algorithms. Order is the order of help texts and of digest-length
/// preference in `--check` (the first algorithm of a given length wins an untagged line).
pub static ALGORITHMS: &[AlgorithmInfo] = &[
    AlgorithmInfo {
        algorithm: Algorithm::Sha256,
        name: "sha256",
        aliases: &["sha-256", "sha2-256"],
        bsd_tag: "SHA256",
        digest_len: 32,
        s3_name: Some("SHA256"),
        s3_header: Some("x-amz-checksum-sha256"),
        s3_multipart: COMPOSITE_ONLY,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Sha512,
        name: "sha512",
        aliases: &["sha-512", "sha2-512"],
        bsd_tag: "SHA512",
        digest_len: 64,
        s3_name: Some("SHA512"),
        s3_header: Some("x-amz-checksum-sha512"),
        s3_multipart: COMPOSITE_ONLY,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Sha1,
        name: "sha1",
        aliases: &["sha-1"],
        bsd_tag: "SHA1",
        digest_len: 20,
        s3_name: Some("SHA1"),
        s3_header: Some("x-amz-checksum-sha1"),
        s3_multipart: COMPOSITE_ONLY,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Md5,
        name: "md5",
        aliases: &[],
        bsd_tag: "MD5",
        digest_len: 16,
        s3_name: Some("MD5"),
        s3_header: Some("x-amz-checksum-md5"),
        s3_multipart: COMPOSITE_ONLY,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Sha384,
        name: "sha384",
        aliases: &["sha-384", "sha2-384"],
        bsd_tag: "SHA384",
        digest_len: 48,
        s3_name: None,
        s3_header: None,
        s3_multipart: &[],
    },
    AlgorithmInfo {
        algorithm: Algorithm::Sha224,
        name: "sha224",
        aliases: &["sha-224", "sha2-224"],
        bsd_tag: "SHA224",
        digest_len: 28,
        s3_name: None,
        s3_header: None,
        s3_multipart: &[],
    },
    AlgorithmInfo {
        algorithm: Algorithm::Blake3,
        name: "blake3",
        aliases: &["b3"],
        bsd_tag: "BLAKE3",
        digest_len: 32,
        s3_name: None,
        s3_header: None,
        s3_multipart: &[],
    },
    AlgorithmInfo {
        algorithm: Algorithm::Xxh3,
        name: "xxh3",
        aliases: &["xxhash3", "xxh3-64", "xxh3_64"],
        bsd_tag: "XXH3",
        digest_len: 8,
        s3_name: Some("XXHASH3"),
        s3_header: Some("x-amz-checksum-xxhash3"),
        s3_multipart: COMPOSITE_ONLY,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Xxh128,
        name: "xxh128",
        aliases: &["xxhash128", "xxh3-128", "xxh3_128"],
        bsd_tag: "XXH128",
        digest_len: 16,
        s3_name: Some("XXHASH128"),
        s3_header: Some("x-amz-checksum-xxhash128"),
        s3_multipart: COMPOSITE_ONLY,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Xxh64,
        name: "xxh64",
        aliases: &["xxhash64"],
        bsd_tag: "XXH64",
        digest_len: 8,
        s3_name: Some("XXHASH64"),
        s3_header: Some("x-amz-checksum-xxhash64"),
        s3_multipart: COMPOSITE_ONLY,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Crc64Nvme,
        name: "crc64nvme",
        aliases: &["crc64-nvme", "crc64"],
        bsd_tag: "CRC64NVME",
        digest_len: 8,
        s3_name: Some("CRC64NVME"),
        s3_header: Some("x-amz-checksum-crc64nvme"),
        s3_multipart: &[S3ChecksumType::FullObject],
    },
    AlgorithmInfo {
        algorithm: Algorithm::Crc32,
        name: "crc32",
        aliases: &["crc32b", "crc-32"],
        bsd_tag: "CRC32",
        digest_len: 4,
        s3_name: Some("CRC32"),
        s3_header: Some("x-amz-checksum-crc32"),
        s3_multipart: CRC_TYPES,
    },
    AlgorithmInfo {
        algorithm: Algorithm::Crc32c,
        name: "crc32c",
        aliases: &["crc-32c"],
        bsd_tag: "CRC32C",
        digest_len: 4,
        s3_name: Some("CRC32C"),
        s3_header: Some("x-amz-checksum-crc32c"),
        s3_multipart: CRC_TYPES,
    },
];

impl Algorithm {
    /// Every algorithm, in table order.
    pub fn all() -> impl Iterator<Item = Algorithm> {
        ALGORITHMS.iter().map(|info| info.algorithm)
    }

    pub fn info(self) -> &'static AlgorithmInfo {
        ALGORITHMS
            .iter()
            .find(|info| info.algorithm == self)
            .expect("every Algorithm has a row in ALGORITHMS")
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

    /// Looks up the tag of a BSD-style line (exact, as coreutils does).
    pub fn from_bsd_tag(tag: &str) -> Option<Algorithm> {
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

    pub fn name(self) -> &'static str {
        self.info().name
    }

    pub fn bsd_tag(self) -> &'static str {
        self.info().bsd_tag
    }

    pub fn digest_len(self) -> usize {
        self.info().digest_len
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
        f.write_str(self.name())
    }
}

/// A streaming hasher for one algorithm, on one kernel.
pub struct Hasher {
    state: State,
}

// Large states (SHA-512, BLAKE3) are boxed so a `Hasher` stays small to move between threads.
enum State {
    Sha224(Box<sha2::Sha224>),
    Sha256(Box<sha2::Sha256>),
    Sha256Portable(Box<sha2_portable::sha256::Sha256Family>),
    // ring's SHA-512 assembly ran 20% faster than sha2's here (0.36 against 0.30 GB/s).
    Sha384(Box<ring::digest::Context>),
    Sha512(Box<ring::digest::Context>),
    Sha512Portable(Box<sha2_portable::sha512::Sha512Family>),
    Sha1(Box<sha1::Sha1>),
    Sha1Portable(Box<sha1_smol::Sha1>),
    Md5(Box<md5::Md5>),
    Blake3(Box<blake3::Hasher>),
    Blake3Portable(Box<blake3_portable::Blake3>),
    Xxh64(Box<xxhash_rust::xxh64::Xxh64>),
    Xxh3(Box<xxhash_rust::xxh3::Xxh3>),
    Xxh128(Box<xxhash_rust::xxh3::Xxh3>),
    #[cfg(target_arch = "x86_64")]
    Xxh3Avx2 {
        state: Box<xxh3::Xxh3Avx2>,
        wide: bool,
    },
    Crc(Box<crc::Crc>),
}

impl Hasher {
    /// A hasher on the kernel chosen for this process (see [`detect::chosen`]).
    pub fn new(algorithm: Algorithm) -> Hasher {
        Hasher::with_kernel(algorithm, detect::chosen(algorithm))
            .or_else(|| Hasher::with_kernel(algorithm, Kernel::Portable))
            .expect("every algorithm has a portable kernel")
    }

    /// A hasher on a given kernel; None when the algorithm has no such kernel or this CPU
    /// cannot run it.
    pub fn with_kernel(algorithm: Algorithm, kernel: Kernel) -> Option<Hasher> {
        use sha2::Digest as _;
        if !detect::usable(algorithm, kernel, &detect::Capabilities::get()) {
            return None;
        }
        let portable = kernel == Kernel::Portable;
        let state = match algorithm {
            Algorithm::Sha224 if portable => {
                State::Sha256Portable(Box::new(sha2_portable::sha256::sha224()))
            }
            Algorithm::Sha224 => State::Sha224(Box::new(sha2::Sha224::new())),
            Algorithm::Sha256 if portable => {
                State::Sha256Portable(Box::new(sha2_portable::sha256::sha256()))
            }
            Algorithm::Sha256 => State::Sha256(Box::new(sha2::Sha256::new())),
            Algorithm::Sha384 if portable => {
                State::Sha512Portable(Box::new(sha2_portable::sha512::sha384()))
            }
            Algorithm::Sha384 => {
                State::Sha384(Box::new(ring::digest::Context::new(&ring::digest::SHA384)))
            }
            Algorithm::Sha512 if portable => {
                State::Sha512Portable(Box::new(sha2_portable::sha512::sha512()))
            }
            Algorithm::Sha512 => {
                State::Sha512(Box::new(ring::digest::Context::new(&ring::digest::SHA512)))
            }
            Algorithm::Sha1 if portable => State::Sha1Portable(Box::default()),
            Algorithm::Sha1 => State::Sha1(Box::new(sha1::Sha1::new())),
            Algorithm::Md5 => State::Md5(Box::default()),
            Algorithm::Blake3 if portable => State::Blake3Portable(Box::default()),
            Algorithm::Blake3 => State::Blake3(Box::new(blake3::Hasher::new())),
            Algorithm::Xxh64 => State::Xxh64(Box::new(xxhash_rust::xxh64::Xxh64::new(0))),
            #[cfg(target_arch = "x86_64")]
            Algorithm::Xxh3 | Algorithm::Xxh128 if kernel == Kernel::Avx2 => State::Xxh3Avx2 {
                state: Box::new(xxh3::Xxh3Avx2::new()?),
                wide: algorithm == Algorithm::Xxh128,
            },
            Algorithm::Xxh3 => State::Xxh3(Box::new(xxhash_rust::xxh3::Xxh3::new())),
            Algorithm::Xxh128 => State::Xxh128(Box::new(xxhash_rust::xxh3::Xxh3::new())),
            Algorithm::Crc32 | Algorithm::Crc32c | Algorithm::Crc64Nvme if portable => {
                State::Crc(Box::new(crc::Crc::tables(algorithm)))
            }
            #[cfg(target_arch = "x86_64")]
            Algorithm::Crc32 | Algorithm::Crc32c | Algorithm::Crc64Nvme
                if kernel == Kernel::Vpclmulqdq =>
            {
                State::Crc(Box::new(crc::Crc::wide(algorithm)?))
            }
            Algorithm::Crc32 | Algorithm::Crc32c | Algorithm::Crc64Nvme => {
                State::Crc(Box::new(crc::Crc::folding(algorithm)))
            }
        };
        Some(Hasher { state })
    }

    pub fn update(&mut self, data: &[u8]) {
        use sha2::Digest as _;
        match &mut self.state {
            State::Sha224(h) => h.update(data),
            State::Sha256(h) => h.update(data),
            State::Sha256Portable(h) => h.update(data),
            State::Sha384(h) | State::Sha512(h) => h.update(data),
            State::Sha512Portable(h) => h.update(data),
            State::Sha1(h) => h.update(data),
            State::Sha1Portable(h) => h.update(data),
            State::Md5(h) => h.update(data),
            State::Blake3(h) => {
                h.update(data);
            }
            State::Blake3Portable(h) => h.update(data),
            State::Xxh64(h) => h.update(data),
            State::Xxh3(h) | State::Xxh128(h) => h.update(data),
            #[cfg(target_arch = "x86_64")]
            State::Xxh3Avx2 { state, .. } => state.update(data),
            State::Crc(h) => h.update(data),
        }
    }

    pub fn finalize(self) -> Digest {
        use sha2::Digest as _;
        match self.state {
            State::Sha224(h) => Digest::from_slice(&h.finalize()),
            State::Sha256(h) => Digest::from_slice(&h.finalize()),
            State::Sha256Portable(h) => Digest::from_slice(&h.finalize()),
            State::Sha384(h) | State::Sha512(h) => Digest::from_slice(h.finish().as_ref()),
            State::Sha512Portable(h) => Digest::from_slice(&h.finalize()),
            State::Sha1(h) => Digest::from_slice(&h.finalize()),
            State::Sha1Portable(h) => Digest::from_slice(&h.digest().bytes()),
            State::Md5(h) => Digest::from_slice(&h.finalize()),
            State::Blake3(h) => Digest::from_slice(h.finalize().as_bytes()),
            State::Blake3Portable(h) => Digest::from_slice(&h.finalize()),
            // xxHash's canonical form, which xxhsum prints, is big-endian.
            State::Xxh64(h) => Digest::from_slice(&h.digest().to_be_bytes()),
            State::Xxh3(h) => Digest::from_slice(&h.digest().to_be_bytes()),
            State::Xxh128(h) => Digest::from_slice(&h.digest128().to_be_bytes()),
            #[cfg(target_arch = "x86_64")]
            State::Xxh3Avx2 { state, wide: false } => {
                Digest::from_slice(&state.digest64().to_be_bytes())
            }
            #[cfg(target_arch = "x86_64")]
            State::Xxh3Avx2 { state, wide: true } => {
                Digest::from_slice(&state.digest128().to_be_bytes())
            }
            State::Crc(h) => h.finalize(),
        }
    }
}

/// Hashes a whole buffer at once on the chosen kernel, through each crate's one-shot entry
/// point where there is one: no streaming state to allocate and set up, which is most of the
/// cost for inputs of a few hundred bytes (XXH3 of 16 bytes: 170 ns through the streaming
/// state, a few ns one-shot).
pub fn hash(algorithm: Algorithm, data: &[u8]) -> Digest {
    hash_on(algorithm, detect::chosen(algorithm), data)
}

/// [`hash`] on a given kernel (the tests compare every kernel's one-shot path); a kernel the
/// algorithm lacks, or this CPU cannot run, falls back as [`Hasher::new`] does.
pub fn hash_on(algorithm: Algorithm, kernel: Kernel, data: &[u8]) -> Digest {
    use sha2::Digest as _;
    let kernel = if detect::usable(algorithm, kernel, &detect::Capabilities::get()) {
        kernel
    } else {
        Kernel::Portable
    };
    let fast = kernel != Kernel::Portable;
    match algorithm {
        Algorithm::Sha224 if fast => Digest::from_slice(&sha2::Sha224::digest(data)),
        Algorithm::Sha256 if fast => Digest::from_slice(&sha2::Sha256::digest(data)),
        Algorithm::Sha384 if fast => {
            Digest::from_slice(ring::digest::digest(&ring::digest::SHA384, data).as_ref())
        }
        Algorithm::Sha512 if fast => {
            Digest::from_slice(ring::digest::digest(&ring::digest::SHA512, data).as_ref())
        }
        Algorithm::Sha1 if fast => Digest::from_slice(&sha1::Sha1::digest(data)),
        Algorithm::Md5 => Digest::from_slice(&md5::digest(data)),
        Algorithm::Blake3 if fast => Digest::from_slice(blake3::hash(data).as_bytes()),
        Algorithm::Xxh64 => Digest::from_slice(&xxhash_rust::xxh64::xxh64(data, 0).to_be_bytes()),
        // Up to 240 bytes both kernels run xxhash-rust's short algorithms.
        Algorithm::Xxh3 if kernel == Kernel::Portable || data.len() <= 240 => {
            Digest::from_slice(&xxhash_rust::xxh3::xxh3_64(data).to_be_bytes())
        }
        Algorithm::Xxh128 if kernel == Kernel::Portable || data.len() <= 240 => {
            Digest::from_slice(&xxhash_rust::xxh3::xxh3_128(data).to_be_bytes())
        }
        #[cfg(target_arch = "x86_64")]
        Algorithm::Xxh3 if kernel == Kernel::Avx2 => match xxh3::hash64(data) {
            Some(value) => Digest::from_slice(&value.to_be_bytes()),
            None => Digest::from_slice(&xxhash_rust::xxh3::xxh3_64(data).to_be_bytes()),
        },
        #[cfg(target_arch = "x86_64")]
        Algorithm::Xxh128 if kernel == Kernel::Avx2 => match xxh3::hash128(data) {
            Some(value) => Digest::from_slice(&value.to_be_bytes()),
            None => Digest::from_slice(&xxhash_rust::xxh3::xxh3_128(data).to_be_bytes()),
        },
        Algorithm::Crc32 | Algorithm::Crc32c | Algorithm::Crc64Nvme
            if kernel == Kernel::CarrylessMultiply =>
        {
            crc::checksum(algorithm, data)
        }
        #[cfg(target_arch = "x86_64")]
        Algorithm::Crc32 | Algorithm::Crc32c | Algorithm::Crc64Nvme
            if kernel == Kernel::Vpclmulqdq =>
        {
            match crc_fold::CrcFold::new(algorithm) {
                Some(mut state) => {
                    state.update(data);
                    crc_digest(algorithm, state.finalize())
                }
                None => crc::checksum(algorithm, data),
            }
        }
        _ => {
            let mut hasher =
                Hasher::with_kernel(algorithm, kernel).expect("the kernel was checked above");
            hasher.update(data);
            hasher.finalize()
        }
    }
}

/// How many inputs [`hash_many`] wants at once: more than one only where the chosen kernel
/// hashes several messages side by side.
pub fn batch_size(algorithm: Algorithm) -> usize {
    if algorithm == Algorithm::Md5 && detect::chosen(algorithm) == Kernel::Avx2 {
        16
    } else {
        1
    }
}

/// Hashes several whole buffers, side by side where the chosen kernel can (MD5 on AVX2).
pub fn hash_many(algorithm: Algorithm, messages: &[&[u8]]) -> Vec<Digest> {
    hash_many_on(algorithm, detect::chosen(algorithm), messages)
}

/// [`hash_many`] on a given kernel (for the tests that compare kernels).
pub fn hash_many_on(algorithm: Algorithm, kernel: Kernel, messages: &[&[u8]]) -> Vec<Digest> {
    #[cfg(target_arch = "x86_64")]
    if algorithm == Algorithm::Md5 && kernel == Kernel::Avx2 && messages.len() > 1 {
        if let Some(digests) = md5_lanes::digest_many(messages) {
            return digests.iter().map(|d| Digest::from_slice(d)).collect();
        }
    }
    messages
        .iter()
        .map(|message| hash_on(algorithm, kernel, message))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SHA-384/512 run on ring; the sha2 crate is their reference, on every length to 4161,
    /// streamed with a split point that moves, and on 3 MiB.
    #[test]
    fn ring_sha512_family_matches_sha2() {
        use sha2::Digest as _;
        let data: Vec<u8> = (0..3 * 1024 * 1024 + 7)
            .map(|i: usize| (i.wrapping_mul(2_654_435_761) >> 7) as u8)
            .collect();
        let mut lengths: Vec<usize> = (0..=4161).collect();
        lengths.push(data.len());
        for len in lengths {
            let input = &data[..len];
            let split = (len * 7) / 13;
            for (algorithm, expected) in [
                (Algorithm::Sha512, sha2::Sha512::digest(input).to_vec()),
                (Algorithm::Sha384, sha2::Sha384::digest(input).to_vec()),
            ] {
                assert_eq!(
                    hash(algorithm, input).as_bytes(),
                    expected,
                    "{algorithm} {len}"
                );
                let mut hasher = Hasher::new(algorithm);
                hasher.update(&input[..split]);
                hasher.update(&input[split..]);
                assert_eq!(
                    hasher.finalize().as_bytes(),
                    expected,
                    "{algorithm} {len} streamed"
                );
            }
        }
    }
}
