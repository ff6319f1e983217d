//! SHA-384/512 of one message: scalar rounds in assembly, the message schedule on AVX-512.
//!
//! A SHA-512 round is one serial chain through `e` (Σ1, Ch, two adds) and one through `a` (Σ0,
//! Maj, adds), about 25 integer operations. Compiled from Rust, on a message schedule computed
//! beforehand, the rounds alone ran at 0.84 GB/s on a Xeon with AVX-512: no faster than ring's
//! assembly, which is 10% behind OpenSSL's AVX2+BMI2 path. Written here with BMI2's `rorx` and
//! the sums ordered so that each chain is four operations long a round (see [`round!`]), they
//! run at 1.04. What is left is the message schedule (σ0, σ1 and three adds for each of the 64
//! later words), which computed apart cost a quarter of the time. So it is computed for four
//! blocks at once, one per 128-bit lane of a ZMM register, with `vprorq` for the rotates and
//! `vpternlogq` for each three-way xor, and for the *next* four blocks while the rounds of
//! these four run: the core has ports to spare beside the rounds' chains, and the schedule's
//! operations fill them.
//!
//! Measured on that Xeon (one core, 1 MiB, GB/s, one run): 0.90 against 0.87 for `openssl
//! speed -evp sha512` and 0.79 for ring; one 1 GiB file, 1.15x `openssl dgst -sha512`. The
//! same scheme on 256-bit registers (two blocks a group) measured 0.79 with AVX2 alone: no
//! faster than ring, which therefore stays on CPUs without AVX-512.
//!
//! x86-64 only, on CPUs with AVX-512F, BW and VL, BMI1 and BMI2: [`with_avx512`] leaves the
//! portable block function in place elsewhere. The buffering and padding are the portable
//! kernel's (`sha2_portable`); the sha2 crate is the tests' reference.

use super::sha2_portable::sha512::{Sha512Family, K};
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

/// W + K of a group's blocks, interleaved by pairs of words as the schedule makes them: words
/// `t` and `t + 1` (`t` even) of block `k` are at `t * GROUP + 2 * k`. Left uninitialised
/// and used only through raw pointers: [`start`] and [`step`] write every word before the
/// rounds read it.
#[repr(align(64))]
struct Schedule(std::mem::MaybeUninit<[u64; 80 * GROUP]>);

const BLOCK: usize = 128;

/// One round, for the caller's names of the eight variables (renamed from round to round,
/// never moved): updates `d` and `h` in place, reading W + K at byte `$at` of `$wk`.
///
/// The `e` chain: Ch is `((f ^ g) & e) ^ g`, with `f ^ g` ready before `e`; `d` gets `h + W +
/// K` before `e` is known, then Ch, then Σ1(e), so the new `e` is four operations after the
/// old one. The `a` chain: Maj is `(a & (b ^ c)) + (b & c)` (the two never share a bit), with
/// both parts of `b` and `c` ready early, so `a` meets one `and` and Σ0 on its way to the new
/// `a` (in `h`). With three temporaries and the schedule's address that is twelve registers,
/// of the thirteen general registers an `asm!` block may be given. Tried and slower, rounds
/// alone: Maj from `b ^ c` carried over from the round before (one `mov` less: 4% slower), and
/// that with three adds on the `e` chain instead of four (22 operations, but both chains five
/// long: 10% slower).
macro_rules! round {
    ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident,
     $wk:ident, $at:expr) => {
        // SAFETY: reads the 8 bytes at `$wk + $at`, inside the caller's schedule; writes only
        // registers named as outputs.
        unsafe {
            core::arch::asm!(
                "add {h}, qword ptr [{wk} + {at}]",
                "mov {t1}, {b}",
                "and {t1}, {c}",
                "add {d}, {h}",
                "add {h}, {t1}",
                "mov {t1}, {f}",
                "xor {t1}, {g}",
                "rorx {t0}, {e}, 41",
                "rorx {t2}, {e}, 18",
                "and {t1}, {e}",
                "xor {t0}, {t2}",
                "rorx {t2}, {e}, 14",
                "xor {t1}, {g}",
                "xor {t0}, {t2}",
                "add {d}, {t1}",
                "add {h}, {t1}",
                "add {d}, {t0}",
                "add {h}, {t0}",
                "mov {t1}, {b}",
                "xor {t1}, {c}",
                "and {t1}, {a}",
                "rorx {t0}, {a}, 39",
                "rorx {t2}, {a}, 34",
                "add {h}, {t1}",
                "xor {t0}, {t2}",
                "rorx {t2}, {a}, 28",
                "xor {t0}, {t2}",
                "add {h}, {t0}",
                a = in(reg) $a, b = in(reg) $b, c = in(reg) $c, e = in(reg) $e,
                f = in(reg) $f, g = in(reg) $g, d = inout(reg) $d, h = inout(reg) $h,
                t0 = out(reg) _, t1 = out(reg) _, t2 = out(reg) _,
                wk = in(reg) $wk, at = const $at,
                options(pure, readonly, nostack),
            );
        }
    };
}

/// The 80 rounds of one block, whose W + K are every `GROUP * 2` words from `wk` by pairs;
/// `between(first + i)` runs after the fourth round of each group of eight `i`.
#[inline(always)]
fn rounds(state: &mut [u64; 8], wk: *const u64, first: usize, between: &mut impl FnMut(usize)) {
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
    const PAIR: usize = 16 * GROUP;
    let mut wk = wk;
    for i in 0..10 {
        round!(a, b, c, d, e, f, g, h, wk, 0);
        round!(h, a, b, c, d, e, f, g, wk, 8);
        round!(g, h, a, b, c, d, e, f, wk, PAIR);
        round!(f, g, h, a, b, c, d, e, wk, PAIR + 8);
        between(first + i);
        round!(e, f, g, h, a, b, c, d, wk, 2 * PAIR);
        round!(d, e, f, g, h, a, b, c, wk, 2 * PAIR + 8);
        round!(c, d, e, f, g, h, a, b, wk, 3 * PAIR);
        round!(b, c, d, e, f, g, h, a, wk, 3 * PAIR + 8);
        wk = wk.wrapping_add(8 * GROUP);
    }
    for (word, add) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
        *word = word.wrapping_add(add);
    }
}

// `start`, `store` and `step` are `#[inline(always)]` and not `#[target_feature]` themselves:
// inlined into `compress_blocks`, which has the features, their intrinsics inline there too
// (as target-feature functions of their own, they stayed calls in the tests' build). Each may
// be called only from there.

/// The schedule's last sixteen words, by pairs: `words[i]` holds words `2i` and `2i + 1` of
/// the window (mod 8), of each block in its own 128-bit lane.
type Window = [__m512i; 8];

/// Loads a group's blocks into `window` and stores their first sixteen W + K.
///
/// # Safety
///
/// `out` is a [`Schedule`]'s first word, and the CPU has AVX-512F and BW.
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
        let load =
            |block: &[u8; BLOCK]| unsafe { _mm_loadu_si128(block[16 * pair..].as_ptr().cast()) };
        let mut lanes = _mm512_castsi128_si512(load(group[0]));
        lanes = _mm512_inserti32x4::<1>(lanes, load(group[1]));
        lanes = _mm512_inserti32x4::<2>(lanes, load(group[2]));
        lanes = _mm512_inserti32x4::<3>(lanes, load(group[3]));
        *words = _mm512_shuffle_epi8(lanes, swap);
        // SAFETY: as the caller promised.
        unsafe { store(out, 2 * pair, *words) };
    }
}

/// Stores words `t` and `t + 1` of every block, plus K.
///
/// # Safety
///
/// `out` is a [`Schedule`]'s first word, `t` is even and below 80, and the CPU has AVX-512F.
#[inline(always)]
unsafe fn store(out: *mut u64, t: usize, words: __m512i) {
    // SAFETY: a 16-byte unaligned load of K[t..t + 2] (t + 1 < 80).
    let k = unsafe { _mm_loadu_si128(K[t..t + 2].as_ptr().cast()) };
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

/// Hashes the whole 128-byte blocks of `blocks` into `state` (a shorter rest is ignored).
///
/// # Safety
///
/// The CPU must have AVX-512F, BW and VL, BMI1 and BMI2.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,bmi1,bmi2")]
unsafe fn compress_blocks(state: &mut [u64; 8], blocks: &[u8]) {
    let count = blocks.len() / BLOCK;
    if count == 0 {
        return;
    }
    // A group past the end repeats the last block: its schedule is made and never used.
    let block = |index: usize| -> &[u8; BLOCK] {
        let at = index.min(count - 1) * BLOCK;
        blocks[at..at + BLOCK].try_into().expect("a whole block")
    };
    let group = |first: usize| std::array::from_fn(|k| block(first + k));
    let mut schedules = [0; 2].map(|_| Schedule(std::mem::MaybeUninit::uninit()));
    let [first, second] = schedules
        .each_mut()
        .map(|schedule| schedule.0.as_mut_ptr().cast());
    let mut window: Window = [_mm512_setzero_si512(); 8];
    // SAFETY (every call below): `first` and `second` are schedules' first words, and every
    // `t` is even and below 80; the rounds read words of a schedule made in full, or (in the
    // one-group case) made at least eight rounds ahead of them.
    unsafe {
        start(&mut window, group(0), first);
        if count <= GROUP {
            // One group: a message of up to 512 bytes, or the last blocks of one. There is no
            // next group to schedule, so its own schedule goes between its first block's
            // rounds, at least eight rounds ahead of them, where computed whole first it would
            // add half again to a one-block message.
            for t in (16..24).step_by(2) {
                step(&mut window, first, t);
            }
            let mut between = |slot: usize| {
                if slot < 7 {
                    for t in (24 + 8 * slot..32 + 8 * slot).step_by(2) {
                        step(&mut window, first, t);
                    }
                }
            };
            for k in 0..count {
                rounds(state, first.add(2 * k), 10 * k, &mut between);
            }
            return;
        }
        for t in (16..80).step_by(2) {
            step(&mut window, first, t);
        }
        let groups = count.div_ceil(GROUP);
        for index in 0..groups {
            let (now, next) = if index % 2 == 0 {
                (first, second)
            } else {
                (second, first)
            };
            let following = (index + 1 < groups).then(|| group((index + 1) * GROUP));
            // The next group's schedule, a load or a step at a time, between the rounds: 32
            // steps in the first 32 of these 40 slots.
            let mut between = |slot: usize| {
                if let Some(following) = following {
                    if slot == 0 {
                        start(&mut window, following, next);
                    }
                    if slot < 32 {
                        step(&mut window, next, 16 + 2 * slot);
                    }
                }
            };
            for k in 0..GROUP.min(count - index * GROUP) {
                rounds(state, now.add(2 * k), 10 * k, &mut between);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::sha2_portable::sha512::{sha384, sha512};
    use super::*;
    use crate::kernels::test_data;
    use sha2::Digest as _;

    fn expected(data: &[u8]) -> Vec<u8> {
        sha2::Sha512::digest(data).to_vec()
    }

    /// SHA-512, or SHA-384 when `short`, of the pieces in turn.
    fn hash(short: bool, pieces: &[&[u8]]) -> Vec<u8> {
        let family = if short { sha384() } else { sha512() };
        let mut state = with_avx512(family);
        for piece in pieces {
            state.update(piece);
        }
        state.finalize()
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Where the CPU lacks the kernel's instructions this checks the portable block function
    /// that `with_avx512` leaves in place.
    #[test]
    fn fips_180_examples() {
        assert_eq!(
            hex(&hash(false, &[b"abc"])),
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a\
             2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
        );
        assert_eq!(
            hex(&hash(true, &[b"abc"])),
            "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed\
             8086072ba1e7cc2358baeca134c825a7"
        );
    }

    /// Every length to 4161 (groups of one to four blocks, full and partial, and a next group
    /// of every size), in one piece and in two.
    #[test]
    fn every_length_matches_the_sha2_crate() {
        if !test_data::runs_here(supported(), "AVX-512F, BW and VL with BMI1 and BMI2") {
            return;
        }
        test_data::every_length_in_one_and_two_pieces(|pieces| hash(false, pieces), expected);
    }

    /// SHA-384 and SHA-512 in turn.
    #[test]
    fn random_splits_match_the_sha2_crate() {
        if !test_data::runs_here(supported(), "AVX-512F, BW and VL with BMI1 and BMI2") {
            return;
        }
        test_data::random_cuts(
            128,
            |round, pieces| hash(round % 2 == 1, pieces),
            |round, input| match round % 2 {
                1 => sha2::Sha384::digest(input).to_vec(),
                _ => expected(input),
            },
        );
    }

    #[test]
    fn thirty_three_mebibytes_match_the_sha2_crate() {
        if !test_data::runs_here(supported(), "AVX-512F, BW and VL with BMI1 and BMI2") {
            return;
        }
        test_data::thirty_three_mebibytes(|pieces| hash(false, pieces), expected);
    }
}
