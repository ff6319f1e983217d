//! The ground floor: algorithms, engines and CPU selection, knowing nothing above them.
//!
//! `algorithm` is the one table of algorithms; `engine` says what an engine is; `table` joins
//! every module's engines and chooses one per algorithm ([`table::chosen`]), with the
//! preferences by CPU of `preference`; `detect` reads the CPU. The rest are the engines' code: `portable`, `crates`, `x86_64`, `aarch64`, `lanes`.

#[cfg(target_arch = "aarch64")]
mod aarch64;
mod algorithm;
mod blake2b;
mod blake3_portable;
mod crates;
mod crc;
#[cfg(target_arch = "x86_64")]
mod crc_fold;
pub mod detect;
mod digest;
pub mod engine;
// Lane kernels run on x86-64 (AVX-512, AVX2) and Arm (NEON); elsewhere only their tests use
// them, on the portable model.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64", test))]
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(
        dead_code,
        reason = "no lane engine on this architecture; the tests use the model"
    )
)]
mod lanes;
mod md5;
#[cfg(target_arch = "x86_64")]
mod md5_avx512;
#[cfg(target_arch = "x86_64")]
mod md5_bmi;
mod portable;
pub mod preference;
mod sha2_portable;
#[cfg(target_arch = "x86_64")]
mod sha512_avx2;
#[cfg(target_arch = "x86_64")]
mod sha512_avx512;
#[cfg(target_arch = "x86_64")]
mod sha512_pairs;
#[cfg(target_arch = "x86_64")]
mod sha512_rounds;
mod sums;
pub mod table;
#[cfg(test)]
mod test_data;
#[cfg(test)]
mod tests;
#[cfg(target_arch = "x86_64")]
mod x86_64;
#[cfg(target_arch = "x86_64")]
mod xxh3;

pub(crate) use self::crc::combine as crc_combine;
pub(crate) use self::crc::crc_to_digest as crc_digest;
pub use algorithm::{
    cksum_names, sum_and_size, Algorithm, AlgorithmInfo, CksumName, S3ChecksumType, ALGORITHMS,
};
pub use detect::Kernel;
pub use digest::Digest;
pub use engine::Hasher;
pub use table::{hash, hash_many};
