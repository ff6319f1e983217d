//! SHA-384/512 of one message: scalar rounds in assembly, the message schedule on AVX-512.
//!
//! A SHA-512 round is one serial chain through `e` (Σ1, Ch, two adds) and one through `a` (Σ0,
//! Maj, adds), about 25 integer operations. Compiled from Rust, on a message schedule computed
//! beforehand, the rounds alone ran at 0.84 GB/s on a Xeon with AVX-512: no faster than ring's
//! assembly, which is 10% behind OpenSSL's AVX2+BMI2 path. Written here with BMI2's `rorx` and
//! the sums ordered so that each chain is four operations long a round (the short-chain form
//! of `sha512_rounds`, which this kernel shares with `sha512_avx2`), they run at 1.04. What is left is the message schedule (σ0, σ1 and three adds for each of the 64
//! later words), which computed apart cost a quarter of the time. So it is computed for four
//! blocks at once, one per 128-bit lane of a ZMM register, with `vprorq` for the rotates and
//! `vpternlogq` for each three-way xor, and for the *next* four blocks while the rounds of
//! these four run: the core has ports to spare beside the rounds' chains, and the schedule's
//! operations fill them.
//!
//! Measured on that Xeon (one core, 1 MiB, GB/s, one run): 0.90 against 0.87 for `openssl
//! speed -evp sha512` and 0.79 for ring; one 1 GiB file, 1.15x `openssl dgst -sha512`. That
//! was with each block's ten groups of eight rounds in a loop, which left the window indexed
//! at run time, on the stack, and the state spilled around each step: written out
//! (`sha512_rounds::rounds`), the window stays in registers, and on an Intel Xeon (family 6
//! model 167) one stream went from 1.04x to 1.13x to 1.15x OpenSSL at 1 MiB and from 1.08x
//! to 1.19x at 4 KiB (`bench/openssl-pair`, the two in one process). The
//! same scheme on 256-bit registers (two blocks a group) measured 0.79 with AVX2 alone there,
//! no faster than ring; on AMD Zen 3, where ring is slower, it is `sha512_avx2`.
//!
//! x86-64 only, on CPUs with AVX-512F, BW and VL, BMI1 and BMI2: [`with_avx512`] leaves the
//! portable block function in place elsewhere. The buffering and padding are the portable
//! kernel's (`sha2_portable`); the sha2 crate is the tests' reference.

use super::sha2_portable::sha512::{Sha512Family, K};
use super::sha512_rounds::{self, Scheduler, SchedulesAhead, BLOCK};
use std::arch::x86_64::*;

/// `state` hashing its whole blocks here, or left on the portable block function where the
/// CPU lacks what this kernel needs. The engine table chooses this kernel only where the CPU
/// has it (`x86_64.rs`); this check is what makes [`hash_blocks`] sound to hand out.
pub(super) fn with_avx512(state: Sha512Family) -> Sha512Family {
    match supported() {
        true => state.with_blocks(hash_blocks),
        false => state,
    }
}

fn supported() -> bool {
    is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512vl")
        && is_x86_feature_detected!("bmi1")
        && is_x86_feature_detected!("bmi2")
}

/// Private, and handed out only by [`with_avx512`], after [`supported`].
fn hash_blocks(state: &mut [u64; 8], blocks: &[u8]) {
    // SAFETY: this function is reachable only through `with_avx512`, which checked the CPU.
    unsafe { compress_blocks(state, blocks) }
}

/// Blocks whose schedule is computed together: one per 128-bit lane of a ZMM register.
const GROUP: usize = 4;

/// The schedule on ZMM registers.
struct Avx512;

/// The schedule's last sixteen words, by pairs: `words[i]` holds words `2i` and `2i + 1` of
/// the window (mod 8), of each block in its own 128-bit lane.
type Window = [__m512i; 8];

impl Scheduler<GROUP> for Avx512 {
    type Window = Window;

    #[inline(always)]
    fn window() -> Window {
        // SAFETY: only called from `compress_blocks`, whose CPU has AVX-512F.
        unsafe { [_mm512_setzero_si512(); 8] }
    }

    #[inline(always)]
    unsafe fn start(window: &mut Window, group: [&[u8; BLOCK]; GROUP], out: *mut u64) {
        // Each 64-bit word's bytes reversed: SHA-512 words are big-endian.
        let swap = _mm512_set_epi64(
            0x0809_0a0b_0c0d_0e0f,
            0x0001_0203_0405_0607,
            0x0809_0a0b_0c0d_0e0f,
            0x0001_0203_0405_0607,
            0x0809_0a0b_0c0d_0e0f,
            0x0001_0203_0405_0607,
            0x0809_0a0b_0c0d_0e0f,
            0x0001_0203_0405_0607,
        );
        for (pair, words) in window.iter_mut().enumerate() {
            // SAFETY: 16-byte unaligned loads at `16 * pair` (< 128) of 128-byte blocks.
            let load = |block: &[u8; BLOCK]| unsafe {
                _mm_loadu_si128(block[16 * pair..].as_ptr().cast())
            };
            let mut lanes = _mm512_castsi128_si512(load(group[0]));
            lanes = _mm512_inserti32x4::<1>(lanes, load(group[1]));
            lanes = _mm512_inserti32x4::<2>(lanes, load(group[2]));
            lanes = _mm512_inserti32x4::<3>(lanes, load(group[3]));
            *words = _mm512_shuffle_epi8(lanes, swap);
            // SAFETY: as the caller promised.
            unsafe { store(out, 2 * pair, *words) };
        }
    }

    #[inline(always)]
    unsafe fn own_first(window: &mut Window, out: *mut u64) {
        for t in (16..24).step_by(2) {
            // SAFETY: as the caller promised.
            unsafe { step(window, out, t) };
        }
    }

    #[inline(always)]
    unsafe fn own(window: &mut Window, out: *mut u64, slot: usize) {
        for t in (24 + 8 * slot..32 + 8 * slot).step_by(2) {
            // SAFETY: as the caller promised.
            unsafe { step(window, out, t) };
        }
    }
}

impl SchedulesAhead<GROUP> for Avx512 {
    /// Step `8 * block + i` of the 32: in the window's register `i`, known at compile time.
    #[inline(always)]
    unsafe fn ahead(window: &mut Window, out: *mut u64, block: usize, i: usize) {
        // SAFETY: as the caller promised; the step is below 32, as `block` is below 4.
        unsafe { step(window, out, 16 + 2 * (8 * block + i)) };
    }
}

// `store` and `step` are `#[inline(always)]` and not `#[target_feature]` themselves, as the
// `Scheduler` methods that call them: each may be called only from `compress_blocks`.

/// Stores words `t` and `t + 1` of every block, plus K.
///
/// # Safety
///
/// `out` is a schedule's first word, `t` is even and below 80, and the CPU has AVX-512F.
#[inline(always)]
unsafe fn store(out: *mut u64, t: usize, words: __m512i) {
    // SAFETY: a 16-byte unaligned load of K[t..t + 2] (t + 1 < 80, as the caller promised).
    let k = unsafe { _mm_loadu_si128(K.as_ptr().add(t).cast()) };
    let sum = _mm512_add_epi64(words, _mm512_broadcast_i32x4(k));
    // SAFETY: a 64-byte store at word `t * GROUP`, at most 78 * 4 + 8 <= 320 words in.
    unsafe { _mm512_storeu_si512(out.add(t * GROUP).cast(), sum) };
}

/// Words `t` and `t + 1` (`t` even, 16 to 78) of every block:
/// `W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16]`.
///
/// # Safety
///
/// As for [`store`].
#[inline(always)]
unsafe fn step(window: &mut Window, out: *mut u64, t: usize) {
    let oldest = (t / 2) % 8; // words t-16 and t-15, replaced by words t and t+1
    let at = |back: usize| window[(oldest + back) % 8];
    // Words t-15 and t-14, and t-7 and t-6, straddle two registers.
    let w15 = _mm512_alignr_epi8::<8>(at(1), at(0));
    let w7 = _mm512_alignr_epi8::<8>(at(5), at(4));
    let w2 = at(7);
    // 0x96 is the truth table of a ^ b ^ c.
    let sigma0 = _mm512_ternarylogic_epi64::<0x96>(
        _mm512_ror_epi64::<1>(w15),
        _mm512_ror_epi64::<8>(w15),
        _mm512_srli_epi64::<7>(w15),
    );
    let sigma1 = _mm512_ternarylogic_epi64::<0x96>(
        _mm512_ror_epi64::<19>(w2),
        _mm512_ror_epi64::<61>(w2),
        _mm512_srli_epi64::<6>(w2),
    );
    let words = _mm512_add_epi64(
        _mm512_add_epi64(at(0), sigma0),
        _mm512_add_epi64(w7, sigma1),
    );
    window[oldest] = words;
    // SAFETY: as the caller promised.
    unsafe { store(out, t, words) };
}

/// Hashes the whole 128-byte blocks of `blocks` into `state` (a shorter rest is ignored), the
/// rounds in their short-chain form (measured on the Xeon, see `sha512_rounds`).
///
/// # Safety
///
/// The CPU must have AVX-512F, BW and VL, BMI1 and BMI2.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,bmi1,bmi2")]
unsafe fn compress_blocks(state: &mut [u64; 8], blocks: &[u8]) {
    // SAFETY: this function's features are the ones the rounds and `Avx512` need.
    unsafe { sha512_rounds::compress_blocks::<GROUP, false, Avx512>(state, blocks) }
}

#[cfg(test)]
sha512_rounds::kernel_tests!(
    with_avx512,
    supported(),
    "AVX-512F, BW and VL with BMI1 and BMI2"
);
