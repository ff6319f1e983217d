//! The legacy checksums of `cksum` and `sum`, whose lines print the input's size beside the
//! checksum: the POSIX CRC (`cksum`), CRC-32/ISO-HDLC as `cksum -a crc32b` prints it, and the
//! BSD and System V `sum` checksums. Each state counts the bytes it is given, and its digest is
//! the checksum big-endian followed by that count as a big-endian u64
//! ([`super::sum_and_size`] splits them).

use super::engine::Streaming;
use super::{Algorithm, Digest};
use crc_fast::CrcAlgorithm;

/// A checksum that needs the input's size: the value it ends with, given the size.
pub(super) trait SizedSum: Send {
    fn update(&mut self, data: &[u8]);
    /// The checksum, big-endian, in as many bytes as the algorithm has.
    fn value(self, size: u64) -> Vec<u8>;
}

/// A [`SizedSum`] with its byte count.
pub(super) struct WithSize<S> {
    sum: S,
    size: u64,
}

impl<S> WithSize<S> {
    pub(super) fn new(sum: S) -> WithSize<S> {
        WithSize { sum, size: 0 }
    }
}

impl<S: SizedSum> Streaming for WithSize<S> {
    fn update(&mut self, data: &[u8]) {
        self.size += data.len() as u64;
        self.sum.update(data);
    }
    fn finalize(self: Box<Self>) -> Digest {
        let mut bytes = self.sum.value(self.size);
        bytes.extend_from_slice(&self.size.to_be_bytes());
        Digest::from_slice(&bytes)
    }
}

/// The crc crate's slice-by-16 tables for CRC-32/CKSUM and CRC-32/ISO-HDLC: the portable
/// kernels, and what crc-fast is checked against.
static CKSUM_TABLES: crc::Crc<u32, crc::Table<16>> =
    crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_CKSUM);
static ISO_HDLC_TABLES: crc::Crc<u32, crc::Table<16>> =
    crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISO_HDLC);

/// A CRC-32 state on either kernel.
// The whole state sits in a Box inside `Hasher`, so the size of the largest variant is moot.
#[allow(clippy::large_enum_variant)]
enum Crc32State {
    Tables(crc::Digest<'static, u32, crc::Table<16>>),
    Folding(crc_fast::Digest),
}

impl Crc32State {
    fn update(&mut self, data: &[u8]) {
        match self {
            Crc32State::Tables(digest) => digest.update(data),
            Crc32State::Folding(digest) => digest.update(data),
        }
    }
    fn finalize(self) -> u32 {
        match self {
            Crc32State::Tables(digest) => digest.finalize(),
            Crc32State::Folding(digest) => digest.finalize() as u32,
        }
    }
}

/// The CRC-32 checksums of the legacy algorithms:
/// - [`Algorithm::Crc`], POSIX `cksum`: CRC-32/CKSUM over the data and then over its length,
///   least significant byte first, in as few bytes as it takes (none for an empty input);
/// - [`Algorithm::Crc32b`], CRC-32/ISO-HDLC (zlib's), for `cksum -a crc32b`.
pub(super) struct Crc32Sum {
    algorithm: Algorithm,
    state: Crc32State,
}

impl Crc32Sum {
    /// The crc crate's table kernel.
    pub(super) fn tables(algorithm: Algorithm) -> Crc32Sum {
        let tables = match algorithm {
            Algorithm::Crc => &CKSUM_TABLES,
            Algorithm::Crc32b => &ISO_HDLC_TABLES,
            other => unreachable!("{other} is not a legacy CRC"),
        };
        Crc32Sum {
            algorithm,
            state: Crc32State::Tables(tables.digest()),
        }
    }

    /// crc-fast's folding kernel.
    pub(super) fn folding(algorithm: Algorithm) -> Crc32Sum {
        Crc32Sum {
            algorithm,
            state: Crc32State::Folding(crc_fast::Digest::new(crc_fast_algorithm(algorithm))),
        }
    }
}

/// crc-fast's name for a legacy CRC.
fn crc_fast_algorithm(algorithm: Algorithm) -> CrcAlgorithm {
    match algorithm {
        Algorithm::Crc => CrcAlgorithm::Crc32Cksum,
        Algorithm::Crc32b => CrcAlgorithm::Crc32IsoHdlc,
        other => unreachable!("{other} is not a legacy CRC"),
    }
}

/// crc-fast's name for the path it runs a legacy CRC on, on this CPU.
pub(super) fn calculator_target(algorithm: Algorithm) -> String {
    crc_fast::get_calculator_target(crc_fast_algorithm(algorithm))
}

impl SizedSum for Crc32Sum {
    fn update(&mut self, data: &[u8]) {
        self.state.update(data)
    }
    fn value(mut self, size: u64) -> Vec<u8> {
        if self.algorithm == Algorithm::Crc {
            let length = size.to_le_bytes();
            let significant = length.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
            self.state.update(&length[..significant]);
        }
        self.state.finalize().to_be_bytes().to_vec()
    }
}

/// The BSD checksum: rotate the 16-bit sum right by one, add the byte.
#[derive(Default)]
pub(super) struct Bsd(u16);

impl SizedSum for Bsd {
    fn update(&mut self, data: &[u8]) {
        let mut sum = self.0;
        for &byte in data {
            sum = sum.rotate_right(1).wrapping_add(u16::from(byte));
        }
        self.0 = sum;
    }
    fn value(self, _size: u64) -> Vec<u8> {
        self.0.to_be_bytes().to_vec()
    }
}

/// The System V checksum: the bytes' sum modulo 2^32, folded twice into 16 bits.
#[derive(Default)]
pub(super) struct Sysv(u32);

impl SizedSum for Sysv {
    fn update(&mut self, data: &[u8]) {
        // 256 bytes sum to at most 65,280, which fits a u16: summing blocks of them in u16
        // lanes is a loop the compiler vectorises eight or sixteen bytes at a time (in u32
        // lanes it ran at a third of coreutils' speed). The 32-bit total wraps, as System V's
        // accumulator does.
        for block in data.chunks(256) {
            let partial: u16 = block.iter().map(|&b| u16::from(b)).sum();
            self.0 = self.0.wrapping_add(u32::from(partial));
        }
    }
    fn value(self, _size: u64) -> Vec<u8> {
        let s = self.0;
        let r = (s & 0xffff) + (s >> 16);
        let folded = (r & 0xffff) + (r >> 16);
        (folded as u16).to_be_bytes().to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest_of<S: SizedSum + 'static>(sum: S, data: &[u8]) -> Digest {
        let mut state: Box<dyn Streaming> = Box::new(WithSize::new(sum));
        for piece in data.chunks(7) {
            state.update(piece);
        }
        state.finalize()
    }

    /// The BSD checksum's rotate is right by one within 16 bits: sum(1) of 0x01 0x00 is
    /// 0x8000 after the second rotate.
    #[test]
    fn bsd_rotates_right_within_sixteen_bits() {
        let (value, size) = super::super::sum_and_size(&digest_of(Bsd::default(), &[1, 0]));
        assert_eq!((value, size), (0x8000, 2));
    }

    #[test]
    fn sysv_folds_the_byte_sum() {
        let data = vec![0xffu8; 70_000];
        let s = 0xffu32 * 70_000;
        let r = (s & 0xffff) + (s >> 16);
        let expected = u64::from((r & 0xffff) + (r >> 16));
        let (value, size) = super::super::sum_and_size(&digest_of(Sysv::default(), &data));
        assert_eq!((value, size), (expected, 70_000));
    }

    #[test]
    fn both_crc_kernels_agree_at_every_length_to_4161() {
        let data: Vec<u8> = (0..4161u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
            .collect();
        for len in 0..=data.len() {
            let input = &data[..len];
            for algorithm in [Algorithm::Crc, Algorithm::Crc32b] {
                assert_eq!(
                    digest_of(Crc32Sum::tables(algorithm), input),
                    digest_of(Crc32Sum::folding(algorithm), input),
                    "{algorithm} {len}"
                );
            }
        }
    }
}
