//! fasthash's own x86-64 engines, where a crate leaves speed behind: hashes of many messages
//! side by side in AVX-512 and AVX2 lanes (`lanes`), XXH3's loop on 256-bit registers chosen
//! at run time (`xxh3`), and CRC folding on 256-bit VPCLMULQDQ (`crc_fold`).
//!
//! A lane engine hashes several files at once; a message alone (one large file, standard
//! input) goes to the best single-stream code, named in its description.

use super::detect::Capabilities;
use super::engine::{always, Engine, Split, Streaming};
use super::lanes::avx2::{Avx2x16, Avx2x4};
use super::lanes::avx512::{Avx512x16, Avx512x8};
use super::lanes::{
    self, lane_engine, md5::Md5 as Md5Lanes, rust_crypto_lane_engine, sha1::Sha1 as Sha1Lanes, sha2,
};
use super::portable::{Xxh3, Xxh3State};
use super::sha2_portable::sha512::{sha384, sha512};
use super::{
    crc, crc_fold, md5, md5_avx512, md5_bmi, sha512_avx2, sha512_avx512, xxh3, Algorithm, Digest,
    Kernel,
};

/// Our AVX-512 tier: the lane kernels need F and BW (the byte shuffle that loads SHA's
/// big-endian words), MD5 of one stream VL (ternary logic on XMM registers).
fn avx512(caps: &Capabilities) -> bool {
    caps.avx512f && caps.avx512bw && caps.avx512vl
}

const AVX512_NEEDS: &str = "AVX-512F, BW and VL";

/// With AVX-512, crc-fast folds 512 bits at a time with VPCLMULQDQ itself; our 256-bit kernel
/// is for the CPUs where it does not (this is what crc-fast tests before that path).
fn crc_fast_has_avx512(caps: &Capabilities) -> bool {
    caps.avx512f && caps.avx512vl && caps.vpclmulqdq
}

macro_rules! vpclmulqdq {
    ($algorithm:expr) => {
        Engine {
            algorithm: $algorithm,
            kernel: Kernel::Vpclmulqdq,
            runs_on: |caps| caps.vpclmulqdq && caps.pclmulqdq && caps.avx2,
            preferred_on: |caps| !crc_fast_has_avx512(caps),
            needs: "VPCLMULQDQ with AVX2",
            describe: |_| "fasthash, 256-bit VPCLMULQDQ folding".into(),
            streaming: || match crc::Crc::wide($algorithm) {
                Some(state) => Box::new(state),
                None => Box::new(crc::Crc::folding($algorithm)),
            },
            one_shot: |data| match crc_fold::CrcFold::new($algorithm) {
                Some(mut state) => {
                    state.update(data);
                    crc::crc_to_digest($algorithm, state.finalize())
                }
                None => crc::checksum($algorithm, data),
            },
            lanes: None,
            split: Split::CrcCombine,
        }
    };
}

impl<K: xxh3::StripeLoop + Send> Xxh3State for xxh3::Xxh3Wide<K> {
    fn update(&mut self, data: &[u8]) {
        xxh3::Xxh3Wide::update(self, data)
    }
    fn digest64(&self) -> u64 {
        xxh3::Xxh3Wide::digest64(self)
    }
    fn digest128(&self) -> u128 {
        xxh3::Xxh3Wide::digest128(self)
    }
}

/// XXH3-64 (`wide` false) or XXH3-128 on one of our stripe loops; inputs of up to 240 bytes
/// (another, scalar algorithm) go to xxhash-rust inside the one-shot calls.
macro_rules! xxh3 {
    ($algorithm:expr, $wide:literal, $kernel:expr, $loop:ty, $runs_on:expr, $needs:literal) => {
        Engine {
            algorithm: $algorithm,
            kernel: $kernel,
            runs_on: $runs_on,
            preferred_on: always,
            needs: $needs,
            describe: |_| format!("fasthash, {}", $needs),
            streaming: || match xxh3::Xxh3Wide::<$loop>::new() {
                Some(state) => Box::new(Xxh3::<_, $wide>(state)),
                None => (super::portable::engine($algorithm).streaming)(),
            },
            one_shot: |data| {
                let digest = if $wide {
                    xxh3::one_shot128::<$loop>(data)
                        .map(|value| Digest::from_slice(&value.to_be_bytes()))
                } else {
                    xxh3::one_shot64::<$loop>(data)
                        .map(|value| Digest::from_slice(&value.to_be_bytes()))
                };
                digest.unwrap_or_else(|| super::portable::engine($algorithm).hash(data))
            },
            lanes: None,
            split: Split::Whole,
        }
    };
}

/// SHA-1 or SHA-224/256 sixteen files side by side on AVX-512; a message alone on the sha1 or
/// sha2 crate.
macro_rules! sha_avx512 {
    ($algorithm:expr, alone: $krate:ident::$state:ident, lanes: $hash:ty, $variant:expr) => {
        rust_crypto_lane_engine!(
            $algorithm, Kernel::Avx512, runs_on: avx512, preferred_on: always, needs: AVX512_NEEDS,
            side_by_side: "AVX-512: 16 files side by side", alone: $krate::$state,
            lanes: 16 x Avx512x16, $hash, $variant
        )
    };
}

/// The AVX2 SHA lanes are worth choosing only where the SHA extensions are missing (Intel's
/// client cores from Haswell to Comet Lake, its Xeons of those years without AVX-512): beside
/// SHA-NI's one stream on every core SHA-256's lose (1.00 GB/s against 1.47 on Zen 3). SHA-1's
/// win on Zen 3, where a preference row takes them.
fn without_sha_extensions(caps: &Capabilities) -> bool {
    !caps.sha_ni
}

/// SHA-1 or SHA-224/256 sixteen files side by side in AVX2 lanes, where the CPU has no SHA
/// extensions; a message alone on the sha1 or sha2 crate.
macro_rules! sha_avx2 {
    ($algorithm:expr, alone: $krate:ident::$state:ident, lanes: $hash:ty, $variant:expr) => {
        rust_crypto_lane_engine!(
            $algorithm, Kernel::Avx2, runs_on: |caps| caps.avx2,
            preferred_on: without_sha_extensions, needs: "AVX2",
            side_by_side: "AVX2: 16 files side by side", alone: $krate::$state,
            lanes: 16 x Avx2x16, $hash, $variant
        )
    };
}

/// SHA-384/512 eight files side by side on AVX-512; a message alone on our rounds with an
/// AVX-512 schedule (`sha512_avx512`), which also needs BMI1 and BMI2. Every CPU with AVX-512
/// has them, but a hypervisor may hide them: then this engine is not chosen, and ring is.
macro_rules! sha512_avx512 {
    ($algorithm:expr, $variant:expr, $portable:expr) => {
        lane_engine!(
            $algorithm, Kernel::Avx512,
            runs_on: |caps| avx512(caps) && caps.bmi1 && caps.bmi2,
            preferred_on: always,
            needs: "AVX-512F, BW and VL, BMI1 and BMI2",
            describe: |_| {
                "fasthash, AVX-512: 8 files side by side (one alone: BMI2 rounds, AVX-512 schedule)"
                    .into()
            },
            streaming: || Box::new(sha512_avx512::with_avx512($portable)),
            // Not `through_streaming`: its boxed state cost 4% at 64 bytes, where this kernel
            // is already behind ring's.
            one_shot: |data| {
                let mut state = sha512_avx512::with_avx512($portable);
                state.update(data);
                Digest::from_slice(&state.finalize())
            },
            lanes: 8 x Avx512x8, sha2::Sha512, $variant
        )
    };
}

/// SHA-384/512 for CPUs without AVX-512: four files side by side in 64-bit AVX2 lanes; a
/// message alone on our rounds with an AVX2 schedule (`sha512_avx2`), on AMD Zen 3 faster
/// than ring (`bench/results/amd-epyc-zen3.md`).
macro_rules! sha512_avx2 {
    ($algorithm:expr, $variant:expr, $portable:expr) => {
        lane_engine!(
            $algorithm, Kernel::Avx2,
            runs_on: |caps| caps.avx2 && caps.bmi1 && caps.bmi2,
            preferred_on: always,
            needs: "AVX2, BMI1 and BMI2",
            describe: |_| {
                "fasthash, AVX2: 4 files side by side (one alone: BMI2 rounds, AVX2 schedule)"
                    .into()
            },
            streaming: || Box::new(sha512_avx2::with_avx2($portable)),
            one_shot: |data| {
                let mut state = sha512_avx2::with_avx2($portable);
                state.update(data);
                Digest::from_slice(&state.finalize())
            },
            lanes: 4 x Avx2x4, sha2::Sha512, $variant
        )
    };
}

/// MD5 of one stream without AVX-512: the BMI1 assembly, or the scalar kernel where a
/// hypervisor hides BMI1.
fn md5_one_stream() -> Box<dyn Streaming> {
    match md5_bmi::new() {
        Some(state) => Box::new(state),
        None => Box::new(md5::Md5::new()),
    }
}

fn md5_one_shot(data: &[u8]) -> Digest {
    Digest::from_slice(&md5_bmi::digest(data).unwrap_or_else(|| md5::digest(data)))
}

pub(super) static ENGINES: &[Engine] = &[
    sha_avx512!(Algorithm::Sha256, alone: sha2::Sha256, lanes: sha2::Sha256, sha2::SHA256),
    sha_avx512!(Algorithm::Sha224, alone: sha2::Sha224, lanes: sha2::Sha256, sha2::SHA224),
    sha512_avx512!(Algorithm::Sha512, sha2::SHA512, sha512()),
    sha512_avx512!(Algorithm::Sha384, sha2::SHA384, sha384()),
    sha512_avx2!(Algorithm::Sha512, sha2::SHA512, sha512()),
    sha512_avx2!(Algorithm::Sha384, sha2::SHA384, sha384()),
    sha_avx512!(Algorithm::Sha1, alone: sha1::Sha1, lanes: Sha1Lanes, lanes::sha1::SHA1),
    sha_avx2!(Algorithm::Sha256, alone: sha2::Sha256, lanes: sha2::Sha256, sha2::SHA256),
    sha_avx2!(Algorithm::Sha224, alone: sha2::Sha224, lanes: sha2::Sha256, sha2::SHA224),
    sha_avx2!(Algorithm::Sha1, alone: sha1::Sha1, lanes: Sha1Lanes, lanes::sha1::SHA1),
    lane_engine!(
        Algorithm::Md5, Kernel::Avx512, runs_on: avx512, preferred_on: always, needs: AVX512_NEEDS,
        describe: |_| {
            "fasthash, AVX-512: 16 files side by side (one alone: ternary logic on XMM)".into()
        },
        streaming: || match md5_avx512::new() {
            Some(state) => Box::new(state),
            None => Box::new(md5::Md5::new()),
        },
        one_shot: |data| {
            Digest::from_slice(&md5_avx512::digest(data).unwrap_or_else(|| md5::digest(data)))
        },
        lanes: 16 x Avx512x16, Md5Lanes, lanes::md5::MD5
    ),
    // MD5 is one serial chain: AVX2 helps only by hashing several files at once; a file alone
    // goes to the BMI1 assembly (every CPU with AVX2 has BMI1, unless a hypervisor hides it).
    lane_engine!(
        Algorithm::Md5, Kernel::Avx2, runs_on: |caps| caps.avx2, preferred_on: always, needs: "AVX2",
        describe: |caps| {
            let alone = if caps.bmi1 { "BMI1 assembly" } else { "scalar" };
            format!("fasthash, AVX2: 16 files side by side (one alone: {alone})")
        },
        streaming: md5_one_stream,
        one_shot: md5_one_shot,
        lanes: 16 x Avx2x16, Md5Lanes, lanes::md5::MD5
    ),
    Engine {
        algorithm: Algorithm::Md5,
        kernel: Kernel::Bmi,
        runs_on: |caps| caps.bmi1,
        preferred_on: always,
        needs: "BMI1",
        describe: |_| "fasthash, scalar assembly with BMI1".into(),
        streaming: md5_one_stream,
        one_shot: md5_one_shot,
        lanes: None,
        split: Split::Whole,
    },
    xxh3!(
        Algorithm::Xxh3,
        false,
        Kernel::Avx512,
        xxh3::Avx512,
        |caps| caps.avx512f,
        "AVX-512F"
    ),
    xxh3!(
        Algorithm::Xxh128,
        true,
        Kernel::Avx512,
        xxh3::Avx512,
        |caps| caps.avx512f,
        "AVX-512F"
    ),
    xxh3!(
        Algorithm::Xxh3,
        false,
        Kernel::Avx2,
        xxh3::Avx2,
        |caps| caps.avx2,
        "AVX2"
    ),
    xxh3!(
        Algorithm::Xxh128,
        true,
        Kernel::Avx2,
        xxh3::Avx2,
        |caps| caps.avx2,
        "AVX2"
    ),
    vpclmulqdq!(Algorithm::Crc64Nvme),
    vpclmulqdq!(Algorithm::Crc32),
    vpclmulqdq!(Algorithm::Crc32c),
];
