//! Engines from crates that choose their own instruction set inside (sha1/sha2 through
//! `cpufeatures`, ring, blake3, crc-fast). Each is offered only where the CPU has what the
//! crate's fast path needs, so what `--list-kernels` says is what runs.

use super::detect::Capabilities;
use super::engine::{always, Engine, Split, Streaming};
use super::portable::through_streaming;
use super::sums::{self, WithSize};
use super::{crc, Algorithm, Digest, Kernel};

/// A RustCrypto hash (sha1, sha2).
pub(super) struct RustCrypto<D>(pub(super) D);

impl<D: sha2::Digest + Send> Streaming for RustCrypto<D> {
    fn update(&mut self, data: &[u8]) {
        sha2::Digest::update(&mut self.0, data)
    }
    fn finalize(self: Box<Self>) -> Digest {
        Digest::from_slice(&sha2::Digest::finalize(self.0))
    }
}

impl Streaming for ring::digest::Context {
    fn update(&mut self, data: &[u8]) {
        ring::digest::Context::update(self, data)
    }
    fn finalize(self: Box<Self>) -> Digest {
        Digest::from_slice(self.finish().as_ref())
    }
}

impl Streaming for blake3::Hasher {
    fn update(&mut self, data: &[u8]) {
        blake3::Hasher::update(self, data);
    }
    fn finalize(self: Box<Self>) -> Digest {
        Digest::from_slice(blake3::Hasher::finalize(&self).as_bytes())
    }
}

/// What the sha1/sha2 crates test before they take their SHA-NI path; on Arm, the Armv8 SHA
/// instructions.
pub(super) fn sha_extensions(caps: &Capabilities) -> bool {
    (caps.sha_ni && caps.sse2 && caps.ssse3 && caps.sse41) || caps.arm_sha2
}

/// What the sha1/sha2 crates run one stream on here: their SHA-extension path, or scalar code.
/// Lane engines name it for a message alone.
pub(super) fn sha_one_stream(caps: &Capabilities) -> &'static str {
    if sha_extensions(caps) {
        sha_extensions_path(caps)
    } else {
        "scalar"
    }
}

fn sha_extensions_path(caps: &Capabilities) -> &'static str {
    if caps.sha_ni {
        "SHA-NI"
    } else {
        "Armv8 SHA"
    }
}

/// crc-fast's folding: on x86 it needs SSE4.1 beside PCLMULQDQ; on Arm, PMULL comes with AES.
fn carryless_multiply(caps: &Capabilities) -> bool {
    (caps.pclmulqdq && caps.sse41) || caps.arm_pmull
}

fn blake3_path(caps: &Capabilities) -> &'static str {
    if caps.avx512f && caps.avx512vl {
        "AVX-512"
    } else if caps.avx2 {
        "AVX2"
    } else if caps.sse41 {
        "SSE4.1"
    } else if caps.sse2 {
        "SSE2"
    } else {
        "NEON"
    }
}

macro_rules! sha_extensions {
    ($algorithm:expr, $krate:literal, $state:expr, $one_shot:expr) => {
        Engine {
            algorithm: $algorithm,
            kernel: Kernel::ShaExtensions,
            runs_on: sha_extensions,
            preferred_on: always,
            needs: "SHA-NI with SSSE3 and SSE4.1, or Armv8 SHA2",
            describe: |caps| format!("{} crate, {}", $krate, sha_extensions_path(caps)),
            streaming: || Box::new(RustCrypto($state)),
            one_shot: $one_shot,
            lanes: None,
            split: Split::Whole,
        }
    };
}

macro_rules! ring {
    ($algorithm:expr, $ring:expr) => {
        Engine {
            algorithm: $algorithm,
            kernel: Kernel::RingAssembly,
            runs_on: always,
            preferred_on: always,
            needs: "nothing",
            // ring does not say which of its paths it takes; on Arm it takes the SHA512
            // instructions where the CPU has them, as detected here.
            describe: |caps| {
                if caps.arm_sha512 {
                    "ring crate, Armv8.2 SHA512 instructions".into()
                } else if caps.neon {
                    "ring crate, scalar assembly".into()
                } else {
                    "ring crate, assembly chosen by ring".into()
                }
            },
            streaming: || Box::new(ring::digest::Context::new(&$ring)),
            one_shot: |data| Digest::from_slice(ring::digest::digest(&$ring, data).as_ref()),
            lanes: None,
            split: Split::Whole,
        }
    };
}

/// crc-fast's folding, for a CRC of the CRC family or (`with size`) a legacy CRC of cksum.
macro_rules! crc_fast {
    (with size $algorithm:expr) => {
        crc_fast!(
            $algorithm,
            sums::calculator_target($algorithm),
            || Box::new(WithSize::new(sums::Crc32Sum::folding($algorithm))),
            |data| {
                through_streaming(
                    || Box::new(WithSize::new(sums::Crc32Sum::folding($algorithm))),
                    data,
                )
            },
            Split::Whole
        )
    };
    ($algorithm:expr) => {
        crc_fast!(
            $algorithm,
            crc::calculator_target($algorithm),
            || Box::new(crc::Crc::folding($algorithm)),
            |data| crc::checksum($algorithm, data),
            Split::CrcCombine
        )
    };
    ($algorithm:expr, $target:expr, $streaming:expr, $one_shot:expr, $split:expr) => {
        Engine {
            algorithm: $algorithm,
            kernel: Kernel::CarrylessMultiply,
            runs_on: carryless_multiply,
            preferred_on: always,
            needs: "PCLMULQDQ with SSE4.1, or Armv8 PMULL",
            describe: |_| format!("crc-fast crate, {}", $target),
            streaming: $streaming,
            one_shot: $one_shot,
            lanes: None,
            split: $split,
        }
    };
}

pub(super) static ENGINES: &[Engine] = &[
    sha_extensions!(
        Algorithm::Sha256,
        "sha2",
        <sha2::Sha256 as sha2::Digest>::new(),
        |data| { Digest::from_slice(&<sha2::Sha256 as sha2::Digest>::digest(data)) }
    ),
    sha_extensions!(
        Algorithm::Sha224,
        "sha2",
        <sha2::Sha224 as sha2::Digest>::new(),
        |data| { Digest::from_slice(&<sha2::Sha224 as sha2::Digest>::digest(data)) }
    ),
    sha_extensions!(
        Algorithm::Sha1,
        "sha1",
        <sha1::Sha1 as sha2::Digest>::new(),
        |data| { Digest::from_slice(&<sha1::Sha1 as sha2::Digest>::digest(data)) }
    ),
    ring!(Algorithm::Sha512, ring::digest::SHA512),
    ring!(Algorithm::Sha384, ring::digest::SHA384),
    Engine {
        algorithm: Algorithm::Blake3,
        kernel: Kernel::Blake3Simd,
        runs_on: |caps| caps.sse2 || caps.neon,
        preferred_on: always,
        needs: "SSE2 or NEON",
        describe: |caps| format!("blake3 crate, {}", blake3_path(caps)),
        streaming: || Box::new(blake3::Hasher::new()),
        one_shot: |data| Digest::from_slice(blake3::hash(data).as_bytes()),
        lanes: None,
        split: Split::Blake3Tree,
    },
    crc_fast!(Algorithm::Crc64Nvme),
    crc_fast!(Algorithm::Crc32),
    crc_fast!(Algorithm::Crc32c),
    crc_fast!(with size Algorithm::Crc),
    crc_fast!(with size Algorithm::Crc32b),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blake3_is_described_by_the_widest_vectors() {
        let mut caps = Capabilities {
            sse2: true,
            sse41: true,
            avx2: true,
            avx512f: true,
            ..Capabilities::default()
        };
        assert_eq!(blake3_path(&caps), "AVX2");
        caps.avx512vl = true;
        assert_eq!(blake3_path(&caps), "AVX-512");
    }
}
