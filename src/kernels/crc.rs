//! The CRC family (CRC-32/ISO-HDLC, CRC-32/ISCSI, CRC-64/NVME): crc-fast folds with
//! PCLMULQDQ/VPCLMULQDQ (PMULL on Arm), chosen at run time, and combines CRCs of adjacent pieces;
//! the crc crate's tables are the portable kernel.

use super::{Algorithm, Digest};
use crc_fast::CrcAlgorithm;

pub struct Crc {
    algorithm: Algorithm,
    state: State,
}

// The whole `Crc` sits in a Box inside `Hasher`, so the size of the largest variant is moot.
#[allow(clippy::large_enum_variant)]
enum State {
    Folding(crc_fast::Digest),
    #[cfg(target_arch = "x86_64")]
    Wide(super::crc_fold::CrcFold),
    Table32(::crc::Digest<'static, u32, ::crc::Table<16>>),
    Table64(::crc::Digest<'static, u64, ::crc::Table<16>>),
}

// The crc crate's slice-by-16 tables: the portable kernel, and a second implementation for
// crc-fast to be checked against.
static CRC32_TABLES: ::crc::Crc<u32, ::crc::Table<16>> =
    ::crc::Crc::<u32, ::crc::Table<16>>::new(&::crc::CRC_32_ISO_HDLC);
static CRC32C_TABLES: ::crc::Crc<u32, ::crc::Table<16>> =
    ::crc::Crc::<u32, ::crc::Table<16>>::new(&::crc::CRC_32_ISCSI);
static CRC64NVME_TABLES: ::crc::Crc<u64, ::crc::Table<16>> =
    ::crc::Crc::<u64, ::crc::Table<16>>::new(&::crc::CRC_64_NVME);

fn crc_fast_algorithm(algorithm: Algorithm) -> CrcAlgorithm {
    match algorithm {
        Algorithm::Crc32 => CrcAlgorithm::Crc32IsoHdlc,
        Algorithm::Crc32c => CrcAlgorithm::Crc32Iscsi,
        Algorithm::Crc64Nvme => CrcAlgorithm::Crc64Nvme,
        other => unreachable!("{other} is not a CRC"),
    }
}

impl Crc {
    /// crc-fast's folding kernel.
    pub fn folding(algorithm: Algorithm) -> Crc {
        Crc {
            algorithm,
            state: State::Folding(crc_fast::Digest::new(crc_fast_algorithm(algorithm))),
        }
    }

    /// Our 256-bit VPCLMULQDQ kernel; None when the CPU lacks it.
    #[cfg(target_arch = "x86_64")]
    pub fn wide(algorithm: Algorithm) -> Option<Crc> {
        Some(Crc {
            algorithm,
            state: State::Wide(super::crc_fold::CrcFold::new(algorithm)?),
        })
    }

    /// The crc crate's table kernel.
    pub fn tables(algorithm: Algorithm) -> Crc {
        let state = match algorithm {
            Algorithm::Crc32 => State::Table32(CRC32_TABLES.digest()),
            Algorithm::Crc32c => State::Table32(CRC32C_TABLES.digest()),
            Algorithm::Crc64Nvme => State::Table64(CRC64NVME_TABLES.digest()),
            other => unreachable!("{other} is not a CRC"),
        };
        Crc { algorithm, state }
    }

    pub fn update(&mut self, data: &[u8]) {
        match &mut self.state {
            State::Folding(digest) => digest.update(data),
            #[cfg(target_arch = "x86_64")]
            State::Wide(state) => state.update(data),
            State::Table32(digest) => digest.update(data),
            State::Table64(digest) => digest.update(data),
        }
    }

    pub fn finalize(self) -> Digest {
        let crc = match self.state {
            State::Folding(digest) => digest.finalize(),
            #[cfg(target_arch = "x86_64")]
            State::Wide(state) => state.finalize(),
            State::Table32(digest) => u64::from(digest.finalize()),
            State::Table64(digest) => digest.finalize(),
        };
        crc_to_digest(self.algorithm, crc)
    }
}

/// The CRC as a big-endian integer of the algorithm's width: what people print and S3 encodes.
pub fn crc_to_digest(algorithm: Algorithm, crc: u64) -> Digest {
    match algorithm {
        Algorithm::Crc64Nvme => Digest::from_slice(&crc.to_be_bytes()),
        _ => Digest::from_slice(&(crc as u32).to_be_bytes()),
    }
}

/// The CRC of `a || b` from `crc(a)`, `crc(b)` and `b`'s length: how a CRC is split across threads
/// and how S3 builds a FULL_OBJECT checksum from parts.
pub fn combine(algorithm: Algorithm, crc_a: u64, crc_b: u64, len_b: u64) -> u64 {
    crc_fast::checksum_combine(crc_fast_algorithm(algorithm), crc_a, crc_b, len_b)
}

/// crc-fast's name for the path it runs on this CPU (e.g. `x86_64-avx512-vpclmulqdq`).
pub fn calculator_target(algorithm: Algorithm) -> String {
    crc_fast::get_calculator_target(crc_fast_algorithm(algorithm))
}

/// A whole buffer's CRC in one call, on crc-fast.
pub fn checksum(algorithm: Algorithm, data: &[u8]) -> Digest {
    crc_to_digest(
        algorithm,
        crc_fast::checksum(crc_fast_algorithm(algorithm), data),
    )
}
