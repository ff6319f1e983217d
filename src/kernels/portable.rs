//! The portable engines: plain code that needs nothing beyond the architecture's baseline.
//!
//! They are what `FASTHASH_KERNEL=portable` runs, what every other engine is tested against
//! and self-checked against at first use, and what a CPU with nothing else falls back on. The
//! crates of the fast engines pick SHA-NI or AVX2 by themselves and cannot be told not to, so
//! these are separate code: our SHA-2, MD5 and BLAKE3, sha1_smol, the crc crate's tables, and
//! xxhash-rust (whose SIMD width is fixed when it is compiled: SSE2 or NEON, the baselines of
//! x86-64 and AArch64).

use super::crates::RustCrypto;
use super::engine::{always, Engine, Split, Streaming};
use super::sums::{self, WithSize};
use super::{blake3_portable, crc, md5, sha2_portable, Algorithm, Digest, Kernel};

/// Implements [`Streaming`] for a hash state `$type` with an `update` of its own; `$digest` is
/// the digest's bytes from the boxed state `$state`.
macro_rules! streaming {
    ($type:ty: $state:ident => $digest:expr) => {
        impl Streaming for $type {
            fn update(&mut self, data: &[u8]) {
                <$type>::update(self, data);
            }
            fn finalize(self: Box<Self>) -> Digest {
                let $state = self;
                Digest::from_slice(&$digest)
            }
        }
    };
}

streaming!(sha2_portable::sha256::Sha256Family: state => (*state).finalize());
streaming!(sha2_portable::sha512::Sha512Family: state => (*state).finalize());
streaming!(sha1_smol::Sha1: state => state.digest().bytes());
streaming!(blake3_portable::Blake3: state => blake3_portable::Blake3::finalize(&state));
// xxHash's canonical form, which xxhsum prints, is big-endian.
streaming!(xxhash_rust::xxh32::Xxh32: state => state.digest().to_be_bytes());
streaming!(xxhash_rust::xxh64::Xxh64: state => state.digest().to_be_bytes());

impl<B: md5::Blocks + Send> Streaming for md5::Md5State<B> {
    fn update(&mut self, data: &[u8]) {
        md5::Md5State::update(self, data)
    }
    fn finalize(self: Box<Self>) -> Digest {
        Digest::from_slice(&(*self).finalize())
    }
}

/// An XXH3 state that gives both the 64- and the 128-bit hash: xxhash-rust's, or ours on a
/// wider stripe loop (`xxh3`).
pub(super) trait Xxh3State: Send {
    fn update(&mut self, data: &[u8]);
    fn digest64(&self) -> u64;
    fn digest128(&self) -> u128;
}

impl Xxh3State for xxhash_rust::xxh3::Xxh3 {
    fn update(&mut self, data: &[u8]) {
        xxhash_rust::xxh3::Xxh3::update(self, data)
    }
    fn digest64(&self) -> u64 {
        self.digest()
    }
    fn digest128(&self) -> u128 {
        xxhash_rust::xxh3::Xxh3::digest128(self)
    }
}

/// An XXH3 state finished as XXH3-64 or XXH3-128 (`WIDE`), big-endian as xxhsum prints it.
pub(super) struct Xxh3<S, const WIDE: bool>(pub(super) S);

impl<S: Xxh3State, const WIDE: bool> Streaming for Xxh3<S, WIDE> {
    fn update(&mut self, data: &[u8]) {
        self.0.update(data)
    }
    fn finalize(self: Box<Self>) -> Digest {
        if WIDE {
            Digest::from_slice(&self.0.digest128().to_be_bytes())
        } else {
            Digest::from_slice(&self.0.digest64().to_be_bytes())
        }
    }
}

impl Streaming for crc::Crc {
    fn update(&mut self, data: &[u8]) {
        crc::Crc::update(self, data)
    }
    fn finalize(self: Box<Self>) -> Digest {
        crc::Crc::finalize(*self)
    }
}

/// A one-shot call through the streaming state, for engines that have no other.
pub(super) fn through_streaming(engine: fn() -> Box<dyn Streaming>, data: &[u8]) -> Digest {
    let mut state = engine();
    state.update(data);
    state.finalize()
}

/// The vectors xxhash-rust's XXH3 loop was compiled for: each architecture's baseline, which
/// every CPU of that architecture has, so choosing when compiling loses nothing.
const XXH3_VECTORS: &str = if cfg!(target_arch = "x86_64") {
    "xxhash-rust crate, SSE2 (x86-64's baseline, fixed when compiled)"
} else if cfg!(all(target_arch = "aarch64", target_feature = "neon")) {
    "xxhash-rust crate, NEON (AArch64's baseline, fixed when compiled)"
} else {
    "xxhash-rust crate, scalar"
};

/// A portable engine: from a streaming state (whose one-shot call goes through that state),
/// or from a streaming constructor and a one-shot call of its own.
macro_rules! portable {
    ($algorithm:expr, $describe:expr, state: $state:expr, $split:expr) => {
        portable!(
            $algorithm,
            $describe,
            || Box::new($state),
            |data| through_streaming(|| Box::new($state), data),
            $split
        )
    };
    ($algorithm:expr, $describe:expr, $streaming:expr, $one_shot:expr, $split:expr) => {
        Engine {
            algorithm: $algorithm,
            kernel: Kernel::Portable,
            runs_on: always,
            preferred_on: always,
            needs: "nothing",
            describe: |_| $describe.into(),
            streaming: $streaming,
            one_shot: $one_shot,
            lanes: None,
            split: $split,
        }
    };
}

/// A portable engine on a RustCrypto hash, which has no code but plain Rust.
macro_rules! rust_crypto {
    ($algorithm:expr, $describe:expr, $hash:ty) => {
        portable!(
            $algorithm,
            $describe,
            || Box::new(RustCrypto(<$hash as sha2::Digest>::new())),
            |data| Digest::from_slice(&<$hash as sha2::Digest>::digest(data)),
            Split::Whole
        )
    };
}

/// A portable engine on xxhash-rust's XXH3-64 (`$wide` false) or XXH3-128, whose one-shot
/// call is `$one_shot`.
macro_rules! xxh3 {
    ($algorithm:expr, $wide:literal, $one_shot:ident) => {
        portable!(
            $algorithm,
            XXH3_VECTORS,
            || Box::new(Xxh3::<_, $wide>(xxhash_rust::xxh3::Xxh3::new())),
            |data| Digest::from_slice(&xxhash_rust::xxh3::$one_shot(data).to_be_bytes()),
            Split::Whole
        )
    };
}

/// A portable engine on xxhash-rust's XXH32 or XXH64 (`$module::$state`, and the one-shot
/// `$module::$module`), seed 0.
macro_rules! xxhash {
    ($algorithm:expr, $module:ident::$state:ident) => {
        portable!(
            $algorithm,
            "xxhash-rust crate, scalar",
            || Box::new(xxhash_rust::$module::$state::new(0)),
            |data| Digest::from_slice(&xxhash_rust::$module::$module(data, 0).to_be_bytes()),
            Split::Whole
        )
    };
}

/// `algorithm`'s portable engine (every row of the algorithm table has one here), for a
/// faster engine to fall back on without going through the table above it.
pub(super) fn engine(algorithm: Algorithm) -> &'static Engine {
    ENGINES
        .iter()
        .find(|engine| engine.algorithm == algorithm)
        .expect("every algorithm has a portable engine")
}

pub(super) static ENGINES: &[Engine] = &[
    portable!(
        Algorithm::Sha256,
        "fasthash, scalar",
        state: sha2_portable::sha256::sha256(),
        Split::Whole
    ),
    portable!(
        Algorithm::Sha224,
        "fasthash, scalar",
        state: sha2_portable::sha256::sha224(),
        Split::Whole
    ),
    portable!(
        Algorithm::Sha512,
        "fasthash, scalar",
        state: sha2_portable::sha512::sha512(),
        Split::Whole
    ),
    portable!(
        Algorithm::Sha384,
        "fasthash, scalar",
        state: sha2_portable::sha512::sha384(),
        Split::Whole
    ),
    portable!(
        Algorithm::Sha1,
        "sha1_smol crate, scalar",
        || Box::new(sha1_smol::Sha1::new()),
        |data| Digest::from_slice(&sha1_smol::Sha1::from(data).digest().bytes()),
        Split::Whole
    ),
    portable!(
        Algorithm::Md5,
        "fasthash, short-chain scalar",
        || Box::new(md5::Md5::new()),
        |data| Digest::from_slice(&md5::digest(data)),
        Split::Whole
    ),
    // The portable BLAKE3 has no tree-parallel form: a forced portable run stays portable.
    portable!(
        Algorithm::Blake3,
        "fasthash, scalar",
        state: blake3_portable::Blake3::default(),
        Split::Whole
    ),
    xxh3!(Algorithm::Xxh3, false, xxh3_64),
    xxh3!(Algorithm::Xxh128, true, xxh3_128),
    // Already at memory speed in plain code: XXH64 has no other engine.
    xxhash!(Algorithm::Xxh64, xxh64::Xxh64),
    // xxhsum -H0 and xxh32sum; plain code, as XXH64.
    xxhash!(Algorithm::Xxh32, xxh32::Xxh32),
    portable!(
        Algorithm::Crc64Nvme,
        "crc crate, 16 tables",
        state: crc::Crc::tables(Algorithm::Crc64Nvme),
        Split::CrcCombine
    ),
    portable!(
        Algorithm::Crc32,
        "crc crate, 16 tables",
        state: crc::Crc::tables(Algorithm::Crc32),
        Split::CrcCombine
    ),
    portable!(
        Algorithm::Crc32c,
        "crc crate, 16 tables",
        state: crc::Crc::tables(Algorithm::Crc32c),
        Split::CrcCombine
    ),
    // Shorter BLAKE2b digests have engines of their own (`blake2b`).
    portable!(
        Algorithm::Blake2b(64),
        "blake2 crate, scalar",
        || Box::new(RustCrypto(<blake2::Blake2b512 as blake2::Digest>::new())),
        |data| Digest::from_slice(&<blake2::Blake2b512 as blake2::Digest>::digest(data)),
        Split::Whole
    ),
    rust_crypto!(Algorithm::Sha3_224, "sha3 crate, scalar", sha3::Sha3_224),
    rust_crypto!(Algorithm::Sha3_256, "sha3 crate, scalar", sha3::Sha3_256),
    rust_crypto!(Algorithm::Sha3_384, "sha3 crate, scalar", sha3::Sha3_384),
    rust_crypto!(Algorithm::Sha3_512, "sha3 crate, scalar", sha3::Sha3_512),
    rust_crypto!(Algorithm::Sm3, "sm3 crate, scalar", sm3::Sm3),
    portable!(
        Algorithm::Crc,
        "crc crate, 16 tables",
        state: WithSize::new(sums::Crc32Sum::tables(Algorithm::Crc)),
        Split::Whole
    ),
    portable!(
        Algorithm::Crc32b,
        "crc crate, 16 tables",
        state: WithSize::new(sums::Crc32Sum::tables(Algorithm::Crc32b)),
        Split::Whole
    ),
    portable!(
        Algorithm::Bsd,
        "fasthash, scalar",
        state: WithSize::new(sums::Bsd::default()),
        Split::Whole
    ),
    portable!(
        Algorithm::Sysv,
        "fasthash, vectorised by the compiler",
        state: WithSize::new(sums::Sysv::default()),
        Split::Whole
    ),
];
