//! The lane operations on AVX-512: sixteen 32-bit lanes or eight 64-bit lanes in a ZMM register.
//!
//! Each operation is one instruction (reviewed against Intel's intrinsics guide): `vpaddd`/
//! `vpaddq`, `vpxord`, `vpternlogd`/`vpternlogq` (any function of three inputs), `vprold`/
//! `vprord`/`vprorq` (AVX-512 rotates in one instruction, where AVX2 needs three), `vpsrld`/
//! `vpsrlq`. Loading is sixteen (eight) unaligned loads, a byte shuffle for big-endian words
//! (`vpshufb`, AVX-512BW), and a transpose of unpacks and 128-bit lane shuffles.
//!
//! The methods are `#[inline(always)]` and not `#[target_feature]` themselves: they are inlined
//! into the one `#[target_feature(enable = "avx512f,avx512bw")]` function of each entry point
//! (see `multi`), which is what lets the intrinsics inline there. The tokens can only be made
//! where the CPU has AVX-512F and AVX-512BW, which is what makes the `unsafe` calls sound.

use super::Lanes;
use std::arch::x86_64::*;

/// Sixteen `u32` lanes. Exists only on a CPU with AVX-512F and AVX-512BW.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512x16(());

/// Eight `u64` lanes. Exists only on a CPU with AVX-512F and AVX-512BW.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512x8(());

/// What the tokens need of the CPU.
pub(crate) fn available() -> bool {
    is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw")
}

impl Avx512x16 {
    pub(crate) fn new() -> Option<Avx512x16> {
        available().then_some(Avx512x16(()))
    }
}

impl Avx512x8 {
    pub(crate) fn new() -> Option<Avx512x8> {
        available().then_some(Avx512x8(()))
    }
}

/// The 128-bit lanes of four vectors, transposed: result `j` holds lane `j` of each input.
#[inline(always)]
fn transpose_128_bit_lanes(v: [__m512i; 4]) -> [__m512i; 4] {
    // SAFETY: AVX-512F, which every caller's token proves.
    unsafe {
        let x0 = _mm512_shuffle_i32x4::<0x44>(v[0], v[1]);
        let x1 = _mm512_shuffle_i32x4::<0xEE>(v[0], v[1]);
        let x2 = _mm512_shuffle_i32x4::<0x44>(v[2], v[3]);
        let x3 = _mm512_shuffle_i32x4::<0xEE>(v[2], v[3]);
        [
            _mm512_shuffle_i32x4::<0x88>(x0, x2),
            _mm512_shuffle_i32x4::<0xDD>(x0, x2),
            _mm512_shuffle_i32x4::<0x88>(x1, x3),
            _mm512_shuffle_i32x4::<0xDD>(x1, x3),
        ]
    }
}

/// `value`, hidden from the optimiser. A round constant that the compiler sees as a constant is
/// added last in every sum it is part of (LLVM's reassociation moves constants outward to fold
/// them), which puts that add on the round's critical path: MD5's `a + F + K + M` became
/// `((a + M) + F) + K`, five dependent operations a step instead of four. An opaque value is
/// summed like any other early operand, off the chain. Costs nothing: no instruction.
///
/// # Safety
/// The CPU has AVX-512F.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn opaque(mut value: __m512i) -> __m512i {
    // SAFETY: an empty template: the register is left as it is.
    unsafe {
        std::arch::asm!("/* {0} */", inout(zmm_reg) value, options(pure, nomem, nostack, preserves_flags));
    }
    value
}

impl Lanes for Avx512x16 {
    type Word = u32;
    type Vector = __m512i;
    const LANES: usize = 16;

    #[inline(always)]
    fn splat(self, word: u32) -> __m512i {
        // SAFETY (every method): the token exists only where AVX-512F and BW are present.
        unsafe { opaque(_mm512_set1_epi32(word as i32)) }
    }

    #[inline(always)]
    fn add(self, a: __m512i, b: __m512i) -> __m512i {
        unsafe { _mm512_add_epi32(a, b) }
    }

    #[inline(always)]
    fn xor(self, a: __m512i, b: __m512i) -> __m512i {
        unsafe { _mm512_xor_si512(a, b) }
    }

    #[inline(always)]
    fn ternary<const TABLE: i32>(self, a: __m512i, b: __m512i, c: __m512i) -> __m512i {
        unsafe { _mm512_ternarylogic_epi32::<TABLE>(a, b, c) }
    }

    #[inline(always)]
    fn rotate_left<const BITS: i32>(self, a: __m512i) -> __m512i {
        unsafe { _mm512_rol_epi32::<BITS>(a) }
    }

    #[inline(always)]
    fn rotate_right<const BITS: i32>(self, a: __m512i) -> __m512i {
        unsafe { _mm512_ror_epi32::<BITS>(a) }
    }

    #[inline(always)]
    fn shift_right<const BITS: u32>(self, a: __m512i) -> __m512i {
        unsafe { _mm512_srli_epi32::<BITS>(a) }
    }

    #[inline(always)]
    fn load_words(self, words: &[u32]) -> __m512i {
        assert!(words.len() >= 16);
        // SAFETY: 16 words are readable, checked above.
        unsafe { _mm512_loadu_si512(words.as_ptr().cast()) }
    }

    #[inline(always)]
    fn store_words(self, vector: __m512i, out: &mut [u32]) {
        assert!(out.len() >= 16);
        // SAFETY: 16 words are writable, checked above.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), vector) }
    }

    #[inline(always)]
    unsafe fn load_blocks(self, blocks: &[*const u8], big_endian: bool) -> [__m512i; 16] {
        assert_eq!(blocks.len(), 16);
        // SAFETY: each pointer starts a 64-byte block (the caller's contract); AVX-512F/BW.
        unsafe {
            let swap = _mm512_broadcast_i32x4(_mm_setr_epi8(
                3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12,
            ));
            // Plain loops, not `std::array::from_fn`: its closures were left out of line,
            // where the intrinsics inside them could not inline (three times slower).
            let mut rows = [_mm512_setzero_si512(); 16];
            for (row, block) in rows.iter_mut().zip(blocks) {
                *row = _mm512_loadu_si512(block.cast());
                if big_endian {
                    *row = _mm512_shuffle_epi8(*row, swap);
                }
            }
            // Within each 128-bit lane j, after two rounds of unpacking, quarter[g][c] holds
            // word 4j + c of rows 4g..4g+3; the 128-bit lanes then move into place.
            let mut quarter = [[_mm512_setzero_si512(); 4]; 4];
            for (g, quarter) in quarter.iter_mut().enumerate() {
                let r = &rows[4 * g..4 * g + 4];
                let t0 = _mm512_unpacklo_epi32(r[0], r[1]);
                let t1 = _mm512_unpackhi_epi32(r[0], r[1]);
                let t2 = _mm512_unpacklo_epi32(r[2], r[3]);
                let t3 = _mm512_unpackhi_epi32(r[2], r[3]);
                *quarter = [
                    _mm512_unpacklo_epi64(t0, t2),
                    _mm512_unpackhi_epi64(t0, t2),
                    _mm512_unpacklo_epi64(t1, t3),
                    _mm512_unpackhi_epi64(t1, t3),
                ];
            }
            let mut words = [_mm512_setzero_si512(); 16];
            for c in 0..4 {
                let moved = transpose_128_bit_lanes([
                    quarter[0][c],
                    quarter[1][c],
                    quarter[2][c],
                    quarter[3][c],
                ]);
                for (j, vector) in moved.into_iter().enumerate() {
                    words[4 * j + c] = vector;
                }
            }
            words
        }
    }
}

impl Lanes for Avx512x8 {
    type Word = u64;
    type Vector = __m512i;
    const LANES: usize = 8;

    #[inline(always)]
    fn splat(self, word: u64) -> __m512i {
        // SAFETY (every method): the token exists only where AVX-512F and BW are present.
        unsafe { opaque(_mm512_set1_epi64(word as i64)) }
    }

    #[inline(always)]
    fn add(self, a: __m512i, b: __m512i) -> __m512i {
        unsafe { _mm512_add_epi64(a, b) }
    }

    #[inline(always)]
    fn xor(self, a: __m512i, b: __m512i) -> __m512i {
        unsafe { _mm512_xor_si512(a, b) }
    }

    #[inline(always)]
    fn ternary<const TABLE: i32>(self, a: __m512i, b: __m512i, c: __m512i) -> __m512i {
        unsafe { _mm512_ternarylogic_epi64::<TABLE>(a, b, c) }
    }

    #[inline(always)]
    fn rotate_left<const BITS: i32>(self, a: __m512i) -> __m512i {
        unsafe { _mm512_rol_epi64::<BITS>(a) }
    }

    #[inline(always)]
    fn rotate_right<const BITS: i32>(self, a: __m512i) -> __m512i {
        unsafe { _mm512_ror_epi64::<BITS>(a) }
    }

    #[inline(always)]
    fn shift_right<const BITS: u32>(self, a: __m512i) -> __m512i {
        unsafe { _mm512_srli_epi64::<BITS>(a) }
    }

    #[inline(always)]
    fn load_words(self, words: &[u64]) -> __m512i {
        assert!(words.len() >= 8);
        // SAFETY: 8 words are readable, checked above.
        unsafe { _mm512_loadu_si512(words.as_ptr().cast()) }
    }

    #[inline(always)]
    fn store_words(self, vector: __m512i, out: &mut [u64]) {
        assert!(out.len() >= 8);
        // SAFETY: 8 words are writable, checked above.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), vector) }
    }

    #[inline(always)]
    unsafe fn load_blocks(self, blocks: &[*const u8], big_endian: bool) -> [__m512i; 16] {
        assert_eq!(blocks.len(), 8);
        // SAFETY: each pointer starts a 128-byte block (the caller's contract); AVX-512F/BW.
        unsafe {
            let swap = _mm512_broadcast_i32x4(_mm_setr_epi8(
                7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8,
            ));
            let mut words = [_mm512_setzero_si512(); 16];
            for half in 0..2 {
                // Plain loops, as for sixteen lanes.
                let mut rows = [_mm512_setzero_si512(); 8];
                for (row, block) in rows.iter_mut().zip(blocks) {
                    *row = _mm512_loadu_si512(block.add(64 * half).cast());
                    if big_endian {
                        *row = _mm512_shuffle_epi8(*row, swap);
                    }
                }
                // Within each 128-bit lane j, pair[p][c] holds word 2j + c of rows 2p, 2p+1.
                let mut pair = [[_mm512_setzero_si512(); 2]; 4];
                for (p, pair) in pair.iter_mut().enumerate() {
                    *pair = [
                        _mm512_unpacklo_epi64(rows[2 * p], rows[2 * p + 1]),
                        _mm512_unpackhi_epi64(rows[2 * p], rows[2 * p + 1]),
                    ];
                }
                for c in 0..2 {
                    let moved =
                        transpose_128_bit_lanes([pair[0][c], pair[1][c], pair[2][c], pair[3][c]]);
                    for (j, vector) in moved.into_iter().enumerate() {
                        words[8 * half + 2 * j + c] = vector;
                    }
                }
            }
            words
        }
    }
}

super::multi::lane_tier!(Avx512x16, u32, "avx512f,avx512bw");
super::multi::lane_tier!(Avx512x8, u64, "avx512f,avx512bw");
