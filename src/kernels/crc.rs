//! The CRC family (CRC-32/ISO-HDLC, CRC-32/ISCSI, CRC-64/NVME) through crc-fast, which folds with
//! PCLMULQDQ/VPCLMULQDQ (PMULL on Arm) chosen at run time, and can combine CRCs of adjacent pieces.

use super::{Algorithm, Digest};
use crc_fast::CrcAlgorithm;

pub struct Crc {
    algorithm: Algorithm,
    digest: crc_fast::Digest,
}

fn crc_fast_algorithm(algorithm: Algorithm) -> CrcAlgorithm {
    match algorithm {
        Algorithm::Crc32 => CrcAlgorithm::Crc32IsoHdlc,
        Algorithm::Crc32c => CrcAlgorithm::Crc32Iscsi,
        Algorithm::Crc64Nvme => CrcAlgorithm::Crc64Nvme,
        other => unreachable!("{other} is not a CRC"),
    }
}

impl Crc {
    pub fn new(algorithm: Algorithm) -> Crc {
        Crc {
            algorithm,
            digest: crc_fast::Digest::new(crc_fast_algorithm(algorithm)),
        }
    }

    pub fn update(&mut self, data: &[u8]) {
        self.digest.update(data);
    }

    pub fn finalize(&self) -> Digest {
        crc_to_digest(self.algorithm, self.digest.finalize())
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

/// A whole buffer's CRC in one call.
pub fn checksum(algorithm: Algorithm, data: &[u8]) -> Digest {
    crc_to_digest(
        algorithm,
        crc_fast::checksum(crc_fast_algorithm(algorithm), data),
    )
}
