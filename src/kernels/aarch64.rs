//! fasthash's own Arm (AArch64) engines, where the crates leave speed behind: hashes of many
//! messages side by side in NEON lanes (`lanes::neon`).
//!
//! - MD5 has no Arm instruction and is one serial chain per message; sixteen files side by
//!   side in NEON lanes beat the scalar code on every Arm core (on paper about 5x on
//!   Neoverse N1; see docs/GUIDE.md, Arm (AArch64)).
//! - SHA-1 and SHA-256 run on the Armv8 SHA instructions through the sha1 and sha2 crates
//!   wherever the CPU has them (every Graviton, Ampere Altra, Apple): one stream there is
//!   faster than sixteen NEON lanes share. The lanes are chosen only on cores without those
//!   instructions (Cortex-A72 as in the Raspberry Pi 4, some Cortex-A53 and A55 parts), where
//!   the crates fall back to scalar code.
//!
//! Everything else on Arm is the crates': SHA-384/512 on ring (its SHA512-instruction path
//! where the CPU has one), BLAKE3's NEON, crc-fast's PMULL folding, and XXH3's NEON loop,
//! which xxhash-rust compiles in unconditionally because NEON is part of every AArch64 CPU.

use super::crates::sha_extensions;
use super::detect::Capabilities;
use super::engine::{always, Engine};
use super::lanes::neon::NeonX16;
use super::lanes::{
    self, lane_engine, md5::Md5 as Md5Lanes, rust_crypto_lane_engine, sha1::Sha1 as Sha1Lanes, sha2,
};
use super::{md5, Algorithm, Digest, Kernel};

fn neon(caps: &Capabilities) -> bool {
    caps.neon
}

/// The NEON SHA lanes are worth choosing only where the SHA instructions are missing.
fn without_sha_instructions(caps: &Capabilities) -> bool {
    !sha_extensions(caps)
}

/// SHA-1 or SHA-224/256 sixteen files side by side in NEON lanes; a message alone on the sha1
/// or sha2 crate.
macro_rules! sha_neon {
    ($algorithm:expr, alone: $krate:ident::$state:ident, lanes: $hash:ty, $variant:expr) => {
        rust_crypto_lane_engine!(
            $algorithm, Kernel::Neon, runs_on: neon, preferred_on: without_sha_instructions,
            needs: "NEON", side_by_side: "NEON: 16 files side by side", alone: $krate::$state,
            lanes: 16 x NeonX16, $hash, $variant
        )
    };
}

pub(super) static ENGINES: &[Engine] = &[
    lane_engine!(
        Algorithm::Md5, Kernel::Neon, runs_on: neon, preferred_on: always, needs: "NEON",
        describe: |_| "fasthash, NEON: 16 files side by side (one alone: scalar)".into(),
        streaming: || Box::new(md5::Md5::new()),
        one_shot: |data| Digest::from_slice(&md5::digest(data)),
        lanes: 16 x NeonX16, Md5Lanes, lanes::md5::MD5
    ),
    sha_neon!(Algorithm::Sha256, alone: sha2::Sha256, lanes: sha2::Sha256, sha2::SHA256),
    sha_neon!(Algorithm::Sha224, alone: sha2::Sha224, lanes: sha2::Sha256, sha2::SHA224),
    sha_neon!(Algorithm::Sha1, alone: sha1::Sha1, lanes: Sha1Lanes, lanes::sha1::SHA1),
];
