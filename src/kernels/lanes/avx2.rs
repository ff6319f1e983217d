//! The lane operations on AVX2: sixteen 32-bit lanes in two YMM registers ([`Avx2x16`]: MD5),
//! or four 64-bit lanes in one ([`Avx2x4`]: SHA-384/512).
//!
//! Why two registers for MD5: a step is a chain of six dependent operations of one cycle each,
//! and one register's chain leaves the vector pipes idle most of the time; a second register
//! of other lanes, independent, fills them (Intel's `md5_x8x2` multi-buffer code does the
//! same). On AMD Zen 3, `fasthash --bench -a md5` at 32 x 4 KiB: 2.23 GB/s with eight lanes
//! in one register, 3.60 with sixteen in two; 2,000 files of 256 KiB on one thread, 1.22x.
//!
//! AVX2 has no ternary-logic instruction and no rotate: the truth tables the kernels use
//! ([`super::table`]) get their shortest AND/OR/XOR forms (a table nobody uses falls back to
//! the model's sum of minterms, folded at compile time), and a rotate is two shifts and an OR.
//! As in `avx512`, the methods inline into one `#[target_feature(enable = "avx2")]` function
//! per entry point, and the token exists only where the CPU has AVX2.

use super::{table, Lanes};
use std::arch::x86_64::*;

/// Sixteen `u32` lanes in two YMM registers: lanes `8r..8r + 8` in register `r`. Exists only
/// on a CPU with AVX2.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2x16(());

impl Avx2x16 {
    pub(crate) fn new() -> Option<Avx2x16> {
        is_x86_feature_detected!("avx2").then_some(Avx2x16(()))
    }
}

/// Two registers of eight `u32` lanes.
type Pair = [__m256i; 2];

/// Four `u64` lanes. Exists only on a CPU with AVX2.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2x4(());

impl Avx2x4 {
    pub(crate) fn new() -> Option<Avx2x4> {
        is_x86_feature_detected!("avx2").then_some(Avx2x4(()))
    }
}

/// The truth table `TABLE` of `a`, `b` and `c`, bit by bit, in its shortest AND/OR/XOR form
/// where a kernel uses it; any other by its sum of minterms, folded at compile time. The
/// same for every lane width: the operations are bitwise.
#[inline(always)]
fn ternary<const TABLE: i32>(a: __m256i, b: __m256i, c: __m256i) -> __m256i {
    // SAFETY: AVX2, which every caller's token proves.
    unsafe {
        match TABLE {
            table::CHOOSE => _mm256_xor_si256(c, _mm256_and_si256(a, _mm256_xor_si256(b, c))),
            table::CHOOSE_BY_C => {
                _mm256_or_si256(_mm256_and_si256(a, c), _mm256_andnot_si256(c, b))
            }
            table::XOR3 => _mm256_xor_si256(_mm256_xor_si256(a, b), c),
            table::MD5_I => {
                let not_c = _mm256_xor_si256(c, _mm256_set1_epi32(-1));
                _mm256_xor_si256(b, _mm256_or_si256(a, not_c))
            }
            table::MAJORITY => _mm256_or_si256(
                _mm256_and_si256(a, b),
                _mm256_and_si256(c, _mm256_or_si256(a, b)),
            ),
            _ => {
                let ones = _mm256_set1_epi32(-1);
                let mut result = _mm256_setzero_si256();
                for index in 0..8 {
                    if TABLE & (1 << index) == 0 {
                        continue;
                    }
                    let pick = |v, bit: i32| {
                        if index & bit != 0 {
                            v
                        } else {
                            _mm256_xor_si256(v, ones)
                        }
                    };
                    let minterm =
                        _mm256_and_si256(_mm256_and_si256(pick(a, 4), pick(b, 2)), pick(c, 1));
                    result = _mm256_or_si256(result, minterm);
                }
                result
            }
        }
    }
}

/// `a` rotated left by `bits` (0 to 32): two shifts and an OR. Only ever called with a
/// constant, so the shift counts fold.
#[inline(always)]
fn rotate_left_by(a: __m256i, bits: i32) -> __m256i {
    // SAFETY: AVX2, which every caller's token proves.
    unsafe {
        _mm256_or_si256(
            _mm256_sll_epi32(a, _mm_cvtsi32_si128(bits)),
            _mm256_srl_epi32(a, _mm_cvtsi32_si128(32 - bits)),
        )
    }
}

impl Lanes for Avx2x16 {
    type Word = u32;
    type Vector = Pair;
    const LANES: usize = 16;

    // SAFETY (every method): the token exists only where AVX2 is present. Each method does
    // the same to both registers, written out, so that the two chains interleave.

    #[inline(always)]
    fn splat(self, word: u32) -> Pair {
        [unsafe { _mm256_set1_epi32(word as i32) }; 2]
    }

    #[inline(always)]
    fn add(self, a: Pair, b: Pair) -> Pair {
        unsafe { [_mm256_add_epi32(a[0], b[0]), _mm256_add_epi32(a[1], b[1])] }
    }

    #[inline(always)]
    fn xor(self, a: Pair, b: Pair) -> Pair {
        unsafe { [_mm256_xor_si256(a[0], b[0]), _mm256_xor_si256(a[1], b[1])] }
    }

    #[inline(always)]
    fn ternary<const TABLE: i32>(self, a: Pair, b: Pair, c: Pair) -> Pair {
        [
            ternary::<TABLE>(a[0], b[0], c[0]),
            ternary::<TABLE>(a[1], b[1], c[1]),
        ]
    }

    #[inline(always)]
    fn rotate_left<const BITS: i32>(self, a: Pair) -> Pair {
        [rotate_left_by(a[0], BITS), rotate_left_by(a[1], BITS)]
    }

    #[inline(always)]
    fn rotate_right<const BITS: i32>(self, a: Pair) -> Pair {
        [
            rotate_left_by(a[0], 32 - BITS),
            rotate_left_by(a[1], 32 - BITS),
        ]
    }

    #[inline(always)]
    fn shift_right<const BITS: u32>(self, a: Pair) -> Pair {
        let count = unsafe { _mm_cvtsi32_si128(BITS as i32) };
        unsafe { [_mm256_srl_epi32(a[0], count), _mm256_srl_epi32(a[1], count)] }
    }

    #[inline(always)]
    fn load_words(self, words: &[u32]) -> Pair {
        assert!(words.len() >= Self::LANES);
        // SAFETY: sixteen words are readable, checked above.
        unsafe {
            [
                _mm256_loadu_si256(words.as_ptr().cast()),
                _mm256_loadu_si256(words.as_ptr().add(8).cast()),
            ]
        }
    }

    #[inline(always)]
    fn store_words(self, vector: Pair, out: &mut [u32]) {
        assert!(out.len() >= Self::LANES);
        // SAFETY: sixteen words are writable, checked above.
        unsafe {
            _mm256_storeu_si256(out.as_mut_ptr().cast(), vector[0]);
            _mm256_storeu_si256(out.as_mut_ptr().add(8).cast(), vector[1]);
        }
    }

    #[inline(always)]
    unsafe fn load_blocks(self, blocks: &[*const u8], big_endian: bool) -> [Pair; 16] {
        assert_eq!(blocks.len(), 16);
        // SAFETY: each pointer starts a 64-byte block (the caller's contract); AVX2.
        let (low, high) = unsafe {
            (
                transpose_eight_blocks(&blocks[..8], big_endian),
                transpose_eight_blocks(&blocks[8..], big_endian),
            )
        };
        let mut words = [[low[0]; 2]; 16];
        for (word, pair) in words.iter_mut().enumerate() {
            *pair = [low[word], high[word]];
        }
        words
    }
}

/// One 16-word block of each of eight lanes, transposed: register `w` holds word `w` of every
/// lane's block, read big- or little-endian.
///
/// # Safety
/// `blocks` has eight pointers, each to 64 readable bytes; the CPU has AVX2.
#[inline(always)]
unsafe fn transpose_eight_blocks(blocks: &[*const u8], big_endian: bool) -> [__m256i; 16] {
    // SAFETY: the caller's contract.
    unsafe {
        let swap = _mm256_setr_epi8(
            3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10,
            9, 8, 15, 14, 13, 12,
        );
        let mut words = [_mm256_setzero_si256(); 16];
        for half in 0..2 {
            // Plain loops, not `std::array::from_fn`, whose closures may stay out of line
            // where the intrinsics inside them cannot inline.
            let mut r = [_mm256_setzero_si256(); 8];
            for (row, block) in r.iter_mut().zip(blocks) {
                *row = _mm256_loadu_si256(block.add(32 * half).cast());
                if big_endian {
                    *row = _mm256_shuffle_epi8(*row, swap);
                }
            }
            let mut t = [_mm256_setzero_si256(); 8];
            for (i, t) in t.iter_mut().enumerate() {
                let (x, y) = (r[i / 2 * 2], r[i / 2 * 2 + 1]);
                *t = if i % 2 == 0 {
                    _mm256_unpacklo_epi32(x, y)
                } else {
                    _mm256_unpackhi_epi32(x, y)
                };
            }
            // u[4q + c]: word 4j + c (j the 128-bit lane) of rows 4q..4q+3.
            let mut u = [_mm256_setzero_si256(); 8];
            for (i, u) in u.iter_mut().enumerate() {
                let q = i / 4;
                let (lo, hi) = (t[4 * q + (i % 4) / 2], t[4 * q + 2 + (i % 4) / 2]);
                *u = if i % 2 == 0 {
                    _mm256_unpacklo_epi64(lo, hi)
                } else {
                    _mm256_unpackhi_epi64(lo, hi)
                };
            }
            for c in 0..4 {
                words[8 * half + c] = _mm256_permute2x128_si256::<0x20>(u[c], u[4 + c]);
                words[8 * half + 4 + c] = _mm256_permute2x128_si256::<0x31>(u[c], u[4 + c]);
            }
        }
        words
    }
}

/// The byte order of `_mm256_shuffle_epi8` that rotates each 64-bit lane left by `bytes`:
/// byte i of a lane takes byte (i - bytes) mod 8 of the same lane.
const fn rotation_by_bytes(bytes: i32) -> [i8; 32] {
    let mut order = [0i8; 32];
    let mut index = 0;
    while index < 32 {
        order[index] = (index as i32 / 8 * 8 + (index as i32 % 8 - bytes).rem_euclid(8)) as i8;
        index += 1;
    }
    order
}

/// `a`'s 64-bit lanes rotated by `BITS` (0 to 64), right when `RIGHT`: one byte shuffle where
/// that is a whole number of bytes (SHA-512's σ0 rotates by 8), else two shifts and an OR.
#[inline(always)]
fn rotate_64<const BITS: i32, const RIGHT: bool>(a: __m256i) -> __m256i {
    let left = const {
        if RIGHT {
            64 - BITS
        } else {
            BITS
        }
    };
    // SAFETY: AVX2, which every caller's token proves; the order is 32 readable bytes.
    unsafe {
        if left % 8 == 0 && left % 64 != 0 {
            let order = const { rotation_by_bytes(if RIGHT { 64 - BITS } else { BITS } / 8) };
            return _mm256_shuffle_epi8(a, _mm256_loadu_si256(order.as_ptr().cast()));
        }
        _mm256_or_si256(
            _mm256_sll_epi64(a, _mm_cvtsi32_si128(left)),
            _mm256_srl_epi64(a, _mm_cvtsi32_si128(64 - left)),
        )
    }
}

impl Lanes for Avx2x4 {
    type Word = u64;
    type Vector = __m256i;
    const LANES: usize = 4;

    #[inline(always)]
    fn splat(self, word: u64) -> __m256i {
        // SAFETY (every method): the token exists only where AVX2 is present.
        unsafe { _mm256_set1_epi64x(word as i64) }
    }

    #[inline(always)]
    fn add(self, a: __m256i, b: __m256i) -> __m256i {
        unsafe { _mm256_add_epi64(a, b) }
    }

    #[inline(always)]
    fn xor(self, a: __m256i, b: __m256i) -> __m256i {
        unsafe { _mm256_xor_si256(a, b) }
    }

    #[inline(always)]
    fn ternary<const TABLE: i32>(self, a: __m256i, b: __m256i, c: __m256i) -> __m256i {
        ternary::<TABLE>(a, b, c)
    }

    #[inline(always)]
    fn rotate_left<const BITS: i32>(self, a: __m256i) -> __m256i {
        rotate_64::<BITS, false>(a)
    }

    #[inline(always)]
    fn rotate_right<const BITS: i32>(self, a: __m256i) -> __m256i {
        rotate_64::<BITS, true>(a)
    }

    #[inline(always)]
    fn shift_right<const BITS: u32>(self, a: __m256i) -> __m256i {
        unsafe { _mm256_srl_epi64(a, _mm_cvtsi32_si128(BITS as i32)) }
    }

    #[inline(always)]
    fn load_words(self, words: &[u64]) -> __m256i {
        assert!(words.len() >= Self::LANES);
        // SAFETY: four words are readable, checked above.
        unsafe { _mm256_loadu_si256(words.as_ptr().cast()) }
    }

    #[inline(always)]
    fn store_words(self, vector: __m256i, out: &mut [u64]) {
        assert!(out.len() >= Self::LANES);
        // SAFETY: four words are writable, checked above.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), vector) }
    }

    #[inline(always)]
    unsafe fn load_blocks(self, blocks: &[*const u8], big_endian: bool) -> [__m256i; 16] {
        assert_eq!(blocks.len(), 4);
        // SAFETY: each pointer starts a 128-byte block (the caller's contract); AVX2.
        unsafe {
            let swap = _mm256_setr_epi8(
                7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15,
                14, 13, 12, 11, 10, 9, 8,
            );
            let mut words = [_mm256_setzero_si256(); 16];
            // Words 4q to 4q + 3 of the four blocks, one YMM a block, transposed 4 x 4.
            for q in 0..4 {
                let mut r = [_mm256_setzero_si256(); 4];
                for (row, block) in r.iter_mut().zip(blocks) {
                    *row = _mm256_loadu_si256(block.add(32 * q).cast());
                    if big_endian {
                        *row = _mm256_shuffle_epi8(*row, swap);
                    }
                }
                // Words 0 and 2 (lo), 1 and 3 (hi) of rows 0, 1 and of rows 2, 3.
                let lo01 = _mm256_unpacklo_epi64(r[0], r[1]);
                let hi01 = _mm256_unpackhi_epi64(r[0], r[1]);
                let lo23 = _mm256_unpacklo_epi64(r[2], r[3]);
                let hi23 = _mm256_unpackhi_epi64(r[2], r[3]);
                words[4 * q] = _mm256_permute2x128_si256::<0x20>(lo01, lo23);
                words[4 * q + 1] = _mm256_permute2x128_si256::<0x20>(hi01, hi23);
                words[4 * q + 2] = _mm256_permute2x128_si256::<0x31>(lo01, lo23);
                words[4 * q + 3] = _mm256_permute2x128_si256::<0x31>(hi01, hi23);
            }
            words
        }
    }
}

super::multi::lane_tier!(Avx2x16, u32, "avx2");
super::multi::lane_tier!(Avx2x4, u64, "avx2");
