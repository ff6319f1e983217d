//! CRC-32/ISO-HDLC, CRC-32/ISCSI and CRC-64/NVME folded 256 bits at a time with VPCLMULQDQ
//! on AVX2 registers.
//!
//! crc-fast takes its VPCLMULQDQ path only on CPUs with AVX-512; a CPU with VPCLMULQDQ and AVX2
//! but no AVX-512 (AMD Zen 3, Intel Alder Lake's cores, or a VM that hides AVX-512) gets its
//! 128-bit PCLMULQDQ loop. This kernel folds four 256-bit accumulators (128 bytes a round) and
//! leaves the last bytes to a byte-wise table, so it needs no Barrett reduction. crc-fast and
//! the crc crate's tables are the references it is tested against.
//!
//! The arithmetic, for all three (they are reflected): 16 bytes loaded little-endian put the
//! message's first bit in bit 0, so bit i of a 128-bit register is the coefficient of
//! x^(127-i). For a register S = H·x^64 + L (H in the low quadword), S·x^D is congruent to
//! H·(x^(D+64) mod P) plus L·(x^D mod P). A carry-less product of two quadwords in this bit
//! order comes out multiplied by x, so the constants are x^(D+63) mod P and x^(D-1) mod P,
//! bit-reversed.

use super::Algorithm;
use std::arch::x86_64::*;
use std::sync::OnceLock;

/// 256-bit accumulators: four chains cover VPCLMULQDQ's latency (eight measured the same).
const ACCUMULATORS: usize = 4;
/// Bytes folded per round.
const ROUND: usize = 32 * ACCUMULATORS;
/// 128-bit lanes in the accumulators.
const LANES: usize = 2 * ACCUMULATORS;
/// Shorter updates go to the table alone.
const MIN_FOLD: usize = 16;

/// What one CRC needs: its reflected polynomial, a byte table and the folding constants.
pub struct Params {
    width: u32,
    /// Slice-by-8 tables: `tables[k][b]` is byte b followed by k zero bytes.
    tables: Box<[[u64; 256]; 8]>,
    /// (x^(D+63) mod P, x^(D-1) mod P) bit-reversed, for D = 8·ROUND (a round).
    fold_round: [u64; 2],
    /// The same for D = 128·k, k = 1..LANES: a 128-bit lane k lanes before the last.
    fold_lanes: [[u64; 2]; LANES - 1],
}

fn params(algorithm: Algorithm) -> &'static Params {
    static CRC32: OnceLock<Params> = OnceLock::new();
    static CRC32C: OnceLock<Params> = OnceLock::new();
    static CRC64NVME: OnceLock<Params> = OnceLock::new();
    match algorithm {
        Algorithm::Crc32 => CRC32.get_or_init(|| Params::new(32, 0x04C1_1DB7)),
        Algorithm::Crc32c => CRC32C.get_or_init(|| Params::new(32, 0x1EDC_6F41)),
        Algorithm::Crc64Nvme => CRC64NVME.get_or_init(|| Params::new(64, 0xAD93_D235_94C9_3659)),
        other => unreachable!("{other} is not a CRC"),
    }
}

impl Params {
    /// `poly` in the catalogue's normal form, without the x^width term.
    fn new(width: u32, poly: u64) -> Params {
        let reflected_poly = poly.reverse_bits() >> (64 - width);
        let mut tables = Box::new([[0u64; 256]; 8]);
        for byte in 0..256 {
            let mut crc = byte as u64;
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ reflected_poly
                } else {
                    crc >> 1
                };
            }
            tables[0][byte] = crc;
        }
        for k in 1..8 {
            for byte in 0..256 {
                let previous = tables[k - 1][byte];
                tables[k][byte] = (previous >> 8) ^ tables[0][(previous & 0xFF) as usize];
            }
        }
        // x^n mod P, in the normal bit order (bit d is the coefficient of x^d).
        let x_pow_mod = |n: u32| -> u64 {
            let top = 1u128 << width;
            let full = top | u128::from(poly);
            let mut r: u128 = 1;
            for _ in 0..n {
                r <<= 1;
                if r & top != 0 {
                    r ^= full;
                }
            }
            r as u64
        };
        // Bit d of x^n mod P goes to bit 63 - d, the quadword order described above.
        let pair = |distance: u32| {
            [
                x_pow_mod(distance + 63).reverse_bits(),
                x_pow_mod(distance - 1).reverse_bits(),
            ]
        };
        Params {
            width,
            tables,
            fold_round: pair(8 * ROUND as u32),
            fold_lanes: std::array::from_fn(|k| pair(128 * (k as u32 + 1))),
        }
    }

    /// Table update of a reflected register, eight bytes a step (slice-by-8).
    fn table_update(&self, mut crc: u64, data: &[u8]) -> u64 {
        let mut words = data.chunks_exact(8);
        for word in &mut words {
            let x = crc ^ u64::from_le_bytes(word.try_into().expect("8 bytes"));
            crc = (0..8).fold(0, |sum, i| {
                sum ^ self.tables[7 - i][((x >> (8 * i)) & 0xFF) as usize]
            });
        }
        for &byte in words.remainder() {
            crc = self.tables[0][((crc ^ u64::from(byte)) & 0xFF) as usize] ^ (crc >> 8);
        }
        crc
    }
}

/// The streaming state: the reflected register, before the final XOR.
pub struct CrcFold {
    params: &'static Params,
    register: u64,
}

impl CrcFold {
    /// A new state, or None when the CPU lacks VPCLMULQDQ with AVX2.
    pub fn new(algorithm: Algorithm) -> Option<CrcFold> {
        let usable = is_x86_feature_detected!("vpclmulqdq")
            && is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("pclmulqdq");
        let params = params(algorithm);
        // All three start from all ones.
        usable.then(|| CrcFold {
            params,
            register: u64::MAX >> (64 - params.width),
        })
    }

    pub fn update(&mut self, data: &[u8]) {
        self.register = if data.len() < MIN_FOLD {
            self.params.table_update(self.register, data)
        } else {
            // SAFETY: `new` found VPCLMULQDQ, PCLMULQDQ and AVX2.
            unsafe { fold(self.params, self.register, data) }
        };
    }

    /// The CRC (all three end by inverting every bit).
    pub fn finalize(&self) -> u64 {
        self.register ^ (u64::MAX >> (64 - self.params.width))
    }
}

/// Folds `data` (at least [`MIN_FOLD`] bytes) into `register`: 128-byte rounds on 256-bit
/// registers when there are two or more, then 16 bytes at a time, then the table for the rest.
///
/// # Safety
/// The CPU must have VPCLMULQDQ, PCLMULQDQ and AVX2.
#[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq")]
unsafe fn fold(params: &Params, register: u64, data: &[u8]) -> u64 {
    debug_assert!(data.len() >= MIN_FOLD);
    // Continuing from `register` is hashing with the register XORed into the first bytes.
    let (mut folded, mut at) = if data.len() >= 2 * ROUND {
        // SAFETY: the same features as this function.
        unsafe { fold_rounds(params, register, data) }
    } else {
        // SAFETY: at least 16 bytes.
        let first = unsafe { _mm_loadu_si128(data.as_ptr().cast()) };
        (_mm_xor_si128(first, _mm_set_epi64x(0, register as i64)), 16)
    };
    // Whole 16-byte pieces left: one lane at a time.
    let [high_k, low_k] = params.fold_lanes[0];
    let k = _mm_set_epi64x(low_k as i64, high_k as i64);
    while at + 16 <= data.len() {
        // SAFETY: `at + 16 <= data.len()`.
        let next = unsafe { _mm_loadu_si128(data.as_ptr().add(at).cast()) };
        let high = _mm_clmulepi64_si128::<0x00>(folded, k);
        let low = _mm_clmulepi64_si128::<0x11>(folded, k);
        folded = _mm_xor_si128(next, _mm_xor_si128(high, low));
        at += 16;
    }
    // The folded 16 bytes stand for everything so far; the table finishes from a zero register.
    let mut bytes = [0u8; 16];
    // SAFETY: stores 16 bytes into `bytes`.
    unsafe { _mm_storeu_si128(bytes.as_mut_ptr().cast(), folded) };
    let register = params.table_update(0, &bytes);
    params.table_update(register, &data[at..])
}

/// Folds whole 128-byte rounds of `data` (at least two) on four 256-bit accumulators, then
/// the accumulators into one 128-bit lane; returns it and where the rounds ended.
///
/// # Safety
/// The CPU must have VPCLMULQDQ, PCLMULQDQ and AVX2.
#[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq")]
unsafe fn fold_rounds(params: &Params, register: u64, data: &[u8]) -> (__m128i, usize) {
    // A macro, not a closure, so the load is compiled under the function's features.
    macro_rules! load {
        ($at:expr) => {{
            let at: usize = $at;
            debug_assert!(at + 32 <= data.len());
            // SAFETY: `at + 32 <= data.len()` at every use below.
            unsafe { _mm256_loadu_si256(data.as_ptr().add(at).cast()) }
        }};
    }
    let start = _mm256_set_epi64x(0, 0, 0, register as i64);
    let mut acc: [__m256i; ACCUMULATORS] = std::array::from_fn(|i| load!(32 * i));
    acc[0] = _mm256_xor_si256(acc[0], start);
    let round = _mm256_set_epi64x(
        params.fold_round[1] as i64,
        params.fold_round[0] as i64,
        params.fold_round[1] as i64,
        params.fold_round[0] as i64,
    );
    let mut at = ROUND;
    while at + ROUND <= data.len() {
        for (i, lane) in acc.iter_mut().enumerate() {
            let high = _mm256_clmulepi64_epi128::<0x00>(*lane, round);
            let low = _mm256_clmulepi64_epi128::<0x11>(*lane, round);
            *lane = _mm256_xor_si256(_mm256_xor_si256(high, low), load!(at + 32 * i));
        }
        at += ROUND;
    }
    // The 128-bit lanes, the last one unshifted: fold the others onto it.
    let lanes: [__m128i; LANES] = std::array::from_fn(|i| {
        let pair = acc[i / 2];
        if i % 2 == 0 {
            _mm256_castsi256_si128(pair)
        } else {
            _mm256_extracti128_si256::<1>(pair)
        }
    });
    let mut folded = lanes[LANES - 1];
    for (i, lane) in lanes[..LANES - 1].iter().enumerate() {
        let [high_k, low_k] = params.fold_lanes[LANES - 2 - i];
        let k = _mm_set_epi64x(low_k as i64, high_k as i64);
        let high = _mm_clmulepi64_si128::<0x00>(*lane, k);
        let low = _mm_clmulepi64_si128::<0x11>(*lane, k);
        folded = _mm_xor_si128(folded, _mm_xor_si128(high, low));
    }
    (folded, at)
}
