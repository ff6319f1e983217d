//! The lane operations on Arm NEON: sixteen 32-bit lanes in four 128-bit registers.
//!
//! Why four registers and not one: on Arm cores a NEON add, shift or select has a latency of
//! two cycles or more, and an MD5 step is a chain of five such operations, so one register
//! of four lanes leaves the vector pipes idle most of the time. Four independent registers
//! per "vector" give each pipe work while a chain waits (Neoverse N1 has two NEON pipes,
//! V1 and V2 four). On paper, per 64-byte MD5 block of each lane, that is about 1 cycle a
//! byte on N1 against about 5 for scalar MD5; see docs/GUIDE.md, Arm (AArch64).
//!
//! NEON has no three-input logic, but its bit select (`BSL`) is exactly MD5's F and G and
//! SHA's Ch, and Maj and MD5's I take two instructions. A rotate is a shift left and a
//! shift-right-and-insert (`SRI`), one instruction for 16 bits (`REV32` on halfwords).
//! NEON is part of every AArch64 CPU that runs Linux, so the token exists wherever the
//! detection says so, which on such a CPU is always.

use super::{table, Lanes};
use std::arch::aarch64::*;

/// Sixteen `u32` lanes in four NEON registers. Exists only on a CPU with NEON.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NeonX16(());

impl NeonX16 {
    pub(crate) fn new() -> Option<NeonX16> {
        std::arch::is_aarch64_feature_detected!("neon").then_some(NeonX16(()))
    }
}

/// Four registers of four lanes: lanes `4r..4r + 4` in register `r`.
type Quad = [uint32x4_t; 4];

/// `$body` on each register of one or more quads, written out register by register (no
/// closures, so nothing stands between the intrinsics and the kernel they inline into).
macro_rules! each {
    (|$($v:ident),+| $body:expr) => {
        [
            each!(@ 0; $($v),+; $body),
            each!(@ 1; $($v),+; $body),
            each!(@ 2; $($v),+; $body),
            each!(@ 3; $($v),+; $body),
        ]
    };
    (@ $register:literal; $($v:ident),+; $body:expr) => {{
        $(let $v = $v[$register];)+
        $body
    }};
}

/// `x` rotated left by `BITS`, for a `BITS` known at compile time: the shift amounts of the
/// NEON instructions are immediates, so each rotate the kernels use gets its own arm and the
/// match folds away.
#[inline(always)]
fn rotate_left<const BITS: i32>(x: uint32x4_t) -> uint32x4_t {
    macro_rules! by {
        ($($left:literal / $right:literal),*) => {
            // SAFETY: NEON is baseline on AArch64.
            unsafe {
                match BITS {
                    16 => vreinterpretq_u32_u16(vrev32q_u16(vreinterpretq_u16_u32(x))),
                    $($left => vsriq_n_u32::<$right>(vshlq_n_u32::<$left>(x), x),)*
                    _ => x,
                }
            }
        };
    }
    by!(
        1 / 31,
        2 / 30,
        3 / 29,
        4 / 28,
        5 / 27,
        6 / 26,
        7 / 25,
        8 / 24,
        9 / 23,
        10 / 22,
        11 / 21,
        12 / 20,
        13 / 19,
        14 / 18,
        15 / 17,
        17 / 15,
        18 / 14,
        19 / 13,
        20 / 12,
        21 / 11,
        22 / 10,
        23 / 9,
        24 / 8,
        25 / 7,
        26 / 6,
        27 / 5,
        28 / 4,
        29 / 3,
        30 / 2,
        31 / 1
    )
}

impl Lanes for NeonX16 {
    type Word = u32;
    type Vector = Quad;
    const LANES: usize = 16;

    // SAFETY (every method): NEON is baseline on AArch64, and the token exists only where it
    // was detected.

    #[inline(always)]
    fn splat(self, word: u32) -> Quad {
        [unsafe { vdupq_n_u32(word) }; 4]
    }

    #[inline(always)]
    fn add(self, a: Quad, b: Quad) -> Quad {
        each!(|a, b| unsafe { vaddq_u32(a, b) })
    }

    #[inline(always)]
    fn xor(self, a: Quad, b: Quad) -> Quad {
        each!(|a, b| unsafe { veorq_u32(a, b) })
    }

    #[inline(always)]
    fn ternary<const TABLE: i32>(self, a: Quad, b: Quad, c: Quad) -> Quad {
        each!(|a, b, c| unsafe {
            match TABLE {
                // BSL(mask, x, y) = mask ? x : y, bit by bit.
                table::CHOOSE => vbslq_u32(a, b, c),
                table::CHOOSE_BY_C => vbslq_u32(c, a, b),
                table::XOR3 => veorq_u32(veorq_u32(a, b), c),
                // ORN(a, c) = a | !c.
                table::MD5_I => veorq_u32(b, vornq_u32(a, c)),
                // Where a and b differ, c decides; where they agree, either.
                table::MAJORITY => vbslq_u32(veorq_u32(a, b), c, a),
                _ => {
                    let mut result = vdupq_n_u32(0);
                    for index in 0..8 {
                        if TABLE & (1 << index) == 0 {
                            continue;
                        }
                        let pick = |v, bit: i32| if index & bit != 0 { v } else { vmvnq_u32(v) };
                        let minterm = vandq_u32(vandq_u32(pick(a, 4), pick(b, 2)), pick(c, 1));
                        result = vorrq_u32(result, minterm);
                    }
                    result
                }
            }
        })
    }

    #[inline(always)]
    fn rotate_left<const BITS: i32>(self, a: Quad) -> Quad {
        each!(|a| rotate_left::<BITS>(a))
    }

    #[inline(always)]
    fn rotate_right<const BITS: i32>(self, a: Quad) -> Quad {
        // A right rotate by n is a left rotate by 32 - n; the kernels' amounts are 1..=31.
        each!(|a| match BITS {
            1 => rotate_left::<31>(a),
            2 => rotate_left::<30>(a),
            3 => rotate_left::<29>(a),
            4 => rotate_left::<28>(a),
            5 => rotate_left::<27>(a),
            6 => rotate_left::<26>(a),
            7 => rotate_left::<25>(a),
            8 => rotate_left::<24>(a),
            9 => rotate_left::<23>(a),
            10 => rotate_left::<22>(a),
            11 => rotate_left::<21>(a),
            12 => rotate_left::<20>(a),
            13 => rotate_left::<19>(a),
            14 => rotate_left::<18>(a),
            15 => rotate_left::<17>(a),
            16 => rotate_left::<16>(a),
            17 => rotate_left::<15>(a),
            18 => rotate_left::<14>(a),
            19 => rotate_left::<13>(a),
            20 => rotate_left::<12>(a),
            21 => rotate_left::<11>(a),
            22 => rotate_left::<10>(a),
            23 => rotate_left::<9>(a),
            24 => rotate_left::<8>(a),
            25 => rotate_left::<7>(a),
            26 => rotate_left::<6>(a),
            27 => rotate_left::<5>(a),
            28 => rotate_left::<4>(a),
            29 => rotate_left::<3>(a),
            30 => rotate_left::<2>(a),
            31 => rotate_left::<1>(a),
            _ => a,
        })
    }

    #[inline(always)]
    fn shift_right<const BITS: u32>(self, a: Quad) -> Quad {
        // The register form (a negative count shifts right) takes the amount as data, so a
        // const generic can give it; the splat is hoisted out of the rounds.
        each!(|a| unsafe { vshlq_u32(a, vdupq_n_s32(-(BITS as i32))) })
    }

    #[inline(always)]
    fn load_words(self, words: &[u32]) -> Quad {
        assert!(words.len() >= 16);
        // SAFETY: 16 words are readable, checked above.
        unsafe {
            let at = words.as_ptr();
            [
                vld1q_u32(at),
                vld1q_u32(at.add(4)),
                vld1q_u32(at.add(8)),
                vld1q_u32(at.add(12)),
            ]
        }
    }

    #[inline(always)]
    fn store_words(self, vector: Quad, out: &mut [u32]) {
        assert!(out.len() >= 16);
        // SAFETY: 16 words are writable, checked above.
        unsafe {
            let at = out.as_mut_ptr();
            for (register, value) in vector.into_iter().enumerate() {
                vst1q_u32(at.add(4 * register), value);
            }
        }
    }

    #[inline(always)]
    unsafe fn load_blocks(self, blocks: &[*const u8], big_endian: bool) -> [Quad; 16] {
        assert_eq!(blocks.len(), 16);
        let mut words = [[unsafe { vdupq_n_u32(0) }; 4]; 16];
        // Four lanes (one register of every word) at a time, four words at a time: load the
        // same four words of four blocks and transpose the 4 x 4 square.
        for register in 0..4 {
            for chunk in 0..4 {
                // SAFETY: each pointer starts a 64-byte block (the caller's contract).
                unsafe {
                    let mut rows = [vdupq_n_u32(0); 4];
                    for (row, block) in rows.iter_mut().zip(&blocks[4 * register..]) {
                        let bytes = vld1q_u8(block.add(16 * chunk));
                        let bytes = if big_endian { vrev32q_u8(bytes) } else { bytes };
                        *row = vreinterpretq_u32_u8(bytes);
                    }
                    // t0 = (r0[0], r1[0], r0[2], r1[2]), t1 = (r0[1], r1[1], r0[3], r1[3]) ...
                    let t0 = vreinterpretq_u64_u32(vtrn1q_u32(rows[0], rows[1]));
                    let t1 = vreinterpretq_u64_u32(vtrn2q_u32(rows[0], rows[1]));
                    let t2 = vreinterpretq_u64_u32(vtrn1q_u32(rows[2], rows[3]));
                    let t3 = vreinterpretq_u64_u32(vtrn2q_u32(rows[2], rows[3]));
                    // ... then pairs of 64-bit halves give word c of rows 0..4.
                    words[4 * chunk][register] = vreinterpretq_u32_u64(vtrn1q_u64(t0, t2));
                    words[4 * chunk + 1][register] = vreinterpretq_u32_u64(vtrn1q_u64(t1, t3));
                    words[4 * chunk + 2][register] = vreinterpretq_u32_u64(vtrn2q_u64(t0, t2));
                    words[4 * chunk + 3][register] = vreinterpretq_u32_u64(vtrn2q_u64(t1, t3));
                }
            }
        }
        words
    }
}

super::multi::lane_tier!(NeonX16, u32, "neon");
