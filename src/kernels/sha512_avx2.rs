//! SHA-384/512 of one message on CPUs with AVX2 and BMI2 but no AVX-512. Every pair of whole
//! blocks goes to `sha512_pairs`, one assembly function; a last block alone runs here: the
//! rounds of `sha512_rounds` in their form with fewer operations, the message schedule on YMM
//! registers.
//!
//! The scheme of `sha512_avx512` on 256-bit registers: the schedule of two blocks at once, one
//! per 128-bit lane. AVX2 has no 64-bit rotate and no three-way xor, so σ0 and σ1 take shifts
//! and xors (a rotate by 8 is one byte shuffle); on the vector ports that is still far less
//! than the rounds' integer work. On a Xeon with AVX-512 this code (before `sha512_pairs`)
//! measured 0.79 GB/s, no faster than ring there. On AMD Zen 3 (EPYC, 2 cores shared with
//! other work, one thread, 1 MiB) ring's assembly is slower, and this kernel is faster than
//! it: `bench/results/amd-epyc-zen3.md` has the figures.
//!
//! How the work is spread mattered when this code hashed every block: two steps of the
//! schedule (four words of each block) after the fourth round of every eight, with the window
//! of the last sixteen words kept in registers, each step's place in it fixed at compile time
//! (a step in every slot of four rounds, or a window indexed at run time, was a tenth slower).
//! Now only a last block alone comes here, with its schedule made between its own first rounds
//! (`Scheduler::own`, through `sha512_rounds::compress_group`); pairs never need the next
//! group's steps (`SchedulesAhead`), so this kernel has none.
//!
//! x86-64 only, on CPUs with AVX2, BMI1 and BMI2: [`with_avx2`] leaves the portable block
//! function in place elsewhere. The buffering and padding are the portable kernel's
//! (`sha2_portable`); the sha2 crate is the tests' reference, for both paths (lengths of one
//! block to many pairs).

use super::sha2_portable::sha512::{Sha512Family, K};
use super::sha512_pairs::pairs_in_assembly;
use super::sha512_rounds::{self, Scheduler, BLOCK};
use std::arch::x86_64::*;

/// `state` hashing its whole blocks here, or left on the portable block function where the
/// CPU lacks what this kernel needs. The engine table chooses this kernel only where the CPU
/// has it (`x86_64.rs`); this check is what makes [`hash_blocks`] sound to hand out.
pub(super) fn with_avx2(state: Sha512Family) -> Sha512Family {
    match supported() {
        true => state.with_blocks(hash_blocks),
        false => state,
    }
}

fn supported() -> bool {
    is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("bmi1")
        && is_x86_feature_detected!("bmi2")
}

/// Private, and handed out only by [`with_avx2`], after [`supported`].
fn hash_blocks(state: &mut [u64; 8], blocks: &[u8]) {
    let pairs = blocks.len() / (2 * BLOCK);
    if pairs > 0 {
        // SAFETY: this function is reachable only through `with_avx2`, which checked the CPU;
        // the state is eight words and `blocks` holds `pairs` pairs of whole blocks.
        unsafe { pairs_in_assembly(state.as_mut_ptr(), blocks.as_ptr(), pairs) };
    }
    // A last block alone (or none), and a shorter rest the caller keeps.
    let rest = &blocks[pairs * 2 * BLOCK..];
    // SAFETY: as above; `rest` holds less than a pair.
    unsafe { compress_group(state, rest) }
}

/// Blocks whose schedule is computed together: one per 128-bit lane of a YMM register.
const GROUP: usize = 2;

/// The schedule on YMM registers.
struct Avx2;

/// The schedule's last sixteen words, by pairs: `words[i]` holds words `2i` and `2i + 1` of
/// the window (mod 8), of each block in its own 128-bit lane.
type Window = [__m256i; 8];

/// The steps from `$t`: each `place at offset` is step `$t + offset`, which replaces the
/// words at that place of the window. Each place a constant, so the window stays in registers.
macro_rules! steps {
    ($window:expr, $out:expr, $t:expr, [$($place:literal at $offset:literal),+]) => {{
        // SAFETY: as the caller of the method using this promised.
        $(unsafe { step::<$place>($window, $out, $t + $offset) };)+
    }};
}

impl Scheduler<GROUP> for Avx2 {
    type Window = Window;

    #[inline(always)]
    fn window() -> Window {
        // SAFETY: only called from `compress_blocks`, whose CPU has AVX2.
        unsafe { [_mm256_setzero_si256(); 8] }
    }

    #[inline(always)]
    unsafe fn start(window: &mut Window, group: [&[u8; BLOCK]; GROUP], out: *mut u64) {
        // Each 64-bit word's bytes reversed: SHA-512 words are big-endian.
        let swap = _mm256_set_epi64x(
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
            let lanes = _mm256_inserti128_si256::<1>(
                _mm256_castsi128_si256(load(group[0])),
                load(group[1]),
            );
            *words = _mm256_shuffle_epi8(lanes, swap);
            // SAFETY: as the caller promised.
            unsafe { store(out, 2 * pair, *words) };
        }
    }

    #[inline(always)]
    unsafe fn own_first(window: &mut Window, out: *mut u64) {
        steps!(window, out, 16, [0 at 0, 1 at 2, 2 at 4, 3 at 6]);
    }

    /// Four steps from `t = 24 + 8 * slot`, at place `(t / 2) % 8`: 4 for even slots, 0 odd.
    #[inline(always)]
    unsafe fn own(window: &mut Window, out: *mut u64, slot: usize) {
        let t = 24 + 8 * slot;
        if slot.is_multiple_of(2) {
            steps!(window, out, t, [4 at 0, 5 at 2, 6 at 4, 7 at 6]);
        } else {
            steps!(window, out, t, [0 at 0, 1 at 2, 2 at 4, 3 at 6]);
        }
    }
}

// `store` and `step` are `#[inline(always)]` and not `#[target_feature]` themselves, as the
// `Scheduler` methods that call them: each may be called only from `compress_blocks`.

/// Stores words `t` and `t + 1` of both blocks, plus K.
///
/// # Safety
///
/// `out` is a schedule's first word, `t` is even and below 80, and the CPU has AVX2.
#[inline(always)]
unsafe fn store(out: *mut u64, t: usize, words: __m256i) {
    // SAFETY: a 16-byte unaligned load of K[t..t + 2] (t + 1 < 80).
    let k = unsafe { _mm_loadu_si128(K[t..t + 2].as_ptr().cast()) };
    let sum = _mm256_add_epi64(words, _mm256_broadcastsi128_si256(k));
    // SAFETY: a 32-byte store at word `t * GROUP`, at most 78 * 2 + 4 <= 160 words in, in a
    // schedule aligned to 64 bytes, so the store is aligned too.
    unsafe { _mm256_store_si256(out.add(t * GROUP).cast(), sum) };
}

/// Words `t` and `t + 1` (`t` even, 16 to 78) of both blocks, which replace words `t - 16` and
/// `t - 15` at place `OLDEST` (`(t / 2) % 8`) of the window:
/// `W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16]`.
///
/// # Safety
///
/// As for [`store`].
#[inline(always)]
unsafe fn step<const OLDEST: usize>(window: &mut Window, out: *mut u64, t: usize) {
    debug_assert_eq!((t / 2) % 8, OLDEST);
    let at = |back: usize| window[(OLDEST + back) % 8];
    // Words t-15 and t-14, and t-7 and t-6, straddle two registers.
    let w15 = _mm256_alignr_epi8::<8>(at(1), at(0));
    let w7 = _mm256_alignr_epi8::<8>(at(5), at(4));
    let w2 = at(7);
    // A rotate by 8 is a byte shuffle within each word.
    let rotate8 = _mm256_set_epi64x(
        0x080f_0e0d_0c0b_0a09,
        0x0007_0605_0403_0201,
        0x080f_0e0d_0c0b_0a09,
        0x0007_0605_0403_0201,
    );
    // σ0(x) = ror 1 ^ ror 8 ^ shr 7; σ1(x) = ror 19 ^ ror 61 ^ shr 6.
    let sigma0 = _mm256_xor_si256(
        _mm256_xor_si256(_mm256_srli_epi64::<1>(w15), _mm256_slli_epi64::<63>(w15)),
        _mm256_xor_si256(
            _mm256_shuffle_epi8(w15, rotate8),
            _mm256_srli_epi64::<7>(w15),
        ),
    );
    let sigma1 = _mm256_xor_si256(
        _mm256_xor_si256(
            _mm256_xor_si256(_mm256_srli_epi64::<19>(w2), _mm256_slli_epi64::<45>(w2)),
            _mm256_xor_si256(_mm256_srli_epi64::<61>(w2), _mm256_slli_epi64::<3>(w2)),
        ),
        _mm256_srli_epi64::<6>(w2),
    );
    let words = _mm256_add_epi64(
        _mm256_add_epi64(at(0), sigma0),
        _mm256_add_epi64(w7, sigma1),
    );
    window[OLDEST] = words;
    // SAFETY: as the caller promised.
    unsafe { store(out, t, words) };
}

/// Hashes the whole 128-byte blocks of `blocks`, one or two of them, into `state` (a shorter
/// rest is ignored), the rounds in their form with fewer operations (see `sha512_rounds`).
///
/// # Safety
///
/// The CPU must have AVX2, BMI1 and BMI2.
#[target_feature(enable = "avx2,bmi1,bmi2")]
unsafe fn compress_group(state: &mut [u64; 8], blocks: &[u8]) {
    // SAFETY: this function's features are the ones the rounds and `Avx2` need.
    unsafe { sha512_rounds::compress_group::<GROUP, true, Avx2>(state, blocks) }
}

#[cfg(test)]
sha512_rounds::kernel_tests!(with_avx2, supported(), "AVX2 with BMI1 and BMI2");
