//! SHA-384/512 of one message on x86-64: the scalar rounds in assembly with BMI2's `rorx`, fed
//! by a message schedule computed on vector registers for a group of blocks at a time, one
//! group ahead, between the rounds of the group before. The kernels differ only in the vector
//! registers the schedule runs on (`sha512_avx512`: four blocks a ZMM register, `sha512_avx2`:
//! two a YMM register) and in which of the two round forms below they run; the rounds, the
//! layout of the schedule and the order of the work are here. (`sha512_avx2` gives every pair
//! of whole blocks to `sha512_pairs`, the same scheme written as one assembly function, and
//! keeps this code for a last block alone.)
//!
//! A SHA-512 round is one serial chain through `e` (Σ1, Ch, two adds) and one through `a` (Σ0,
//! Maj, adds). How fast it can go depends on the core, so there are two forms:
//!
//! - [`short_chains!`]: each chain four operations long a round, at the price of 25 integer
//!   operations (the sums that reach both `d` and `h` are added to each). On a Xeon with
//!   AVX-512 (Sapphire Rapids, five integer ports) the rounds alone ran at 1.04 GB/s.
//! - [`fewer_operations!`]: 22 operations, Maj from `b ^ c` carried over from the round before
//!   (the round before's `a ^ b`), and the new `e` five operations after the old one. On AMD
//!   Zen 3 four integer ports execute both forms, and the count of operations is what bounds a
//!   round: with the AVX2 schedule this form ran at 0.66 GB/s where the short chains ran at
//!   0.60 (best of fifteen samples each, one run, 1 MiB). On the Xeon the carried Maj was 4%
//!   slower in the short-chain form, and the 22-operation form 10% slower.
//!
//! The schedule is `W[t] + K[t]` for every round, in memory (a [`Schedule`]), for `GROUP`
//! blocks, interleaved by pairs of words as the vector registers make them: words `t` and
//! `t + 1` (`t` even) of block `k` are at `t * GROUP + 2 * k`.

use std::mem::MaybeUninit;

pub(super) const BLOCK: usize = 128;

/// W + K of a group's blocks (see the module comment), left uninitialised and used only through
/// raw pointers: a [`Scheduler`] writes every word before the rounds read it.
#[repr(align(64))]
pub(super) struct Schedule<const GROUP: usize>(MaybeUninit<[[u64; 80]; GROUP]>);

/// How a kernel computes the message schedule of `GROUP` blocks on its vector registers.
///
/// Every method is `#[inline(always)]` and not `#[target_feature]` itself: inlined into the
/// kernel's `#[target_feature]` function, its intrinsics inline there too.
pub(super) trait Scheduler<const GROUP: usize> {
    /// The schedule's last sixteen words of each block, in vector registers.
    type Window;

    fn window() -> Self::Window;

    /// Loads a group's blocks into `window` and stores their first sixteen W + K.
    ///
    /// # Safety
    ///
    /// `out` is a [`Schedule`]'s first word, and the CPU has the kernel's features.
    unsafe fn start(window: &mut Self::Window, group: [&[u8; BLOCK]; GROUP], out: *mut u64);

    /// A lone group's words 16 to 23, before its rounds.
    ///
    /// # Safety
    ///
    /// As for [`Scheduler::start`], and the window is the one `start` filled.
    unsafe fn own_first(window: &mut Self::Window, out: *mut u64);

    /// A lone group's words `24 + 8 * slot` to `31 + 8 * slot` (`slot` below 7), in slot `slot`
    /// of its first block's rounds: at least eight rounds ahead of the rounds that read them.
    ///
    /// # Safety
    ///
    /// As for [`Scheduler::own_first`].
    unsafe fn own(window: &mut Self::Window, out: *mut u64, slot: usize);
}

/// A [`Scheduler`] that also computes the next group's schedule between this group's rounds,
/// for messages of more than one group ([`compress_blocks`]).
pub(super) trait SchedulesAhead<const GROUP: usize>: Scheduler<GROUP> {
    /// Words 16 to 79 of the group after this one: their share in the `i`th eight rounds (`i`
    /// below 8) of block `block` of this group, after [`Scheduler::start`] in the first.
    /// `i` is a constant where this inlines.
    ///
    /// # Safety
    ///
    /// As for [`Scheduler::own_first`], and this group has `GROUP` blocks.
    unsafe fn ahead(window: &mut Self::Window, out: *mut u64, block: usize, i: usize);
}

/// One round in the short-chain form, for the caller's names of the eight variables (renamed
/// from round to round, never moved): updates `d` and `h` in place, reading W + K at byte
/// `$at` of `$wk`. `$carry_in` and `$carry_out` are the other form's and are left alone.
///
/// The `e` chain: Ch is `((f ^ g) & e) ^ g`, with `f ^ g` ready before `e`; `d` gets `h + W +
/// K` before `e` is known, then Ch, then Σ1(e), so the new `e` is four operations after the
/// old one. The `a` chain: Maj is `(a & (b ^ c)) + (b & c)` (the two never share a bit), with
/// both parts of `b` and `c` ready early, so `a` meets one `and` and Σ0 on its way to the new
/// `a` (in `h`). With three temporaries and the schedule's address that is twelve registers,
/// of the thirteen general registers an `asm!` block may be given.
macro_rules! short_chains {
    ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident,
     $carry_in:ident, $carry_out:ident, $wk:ident, $at:expr) => {
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

/// One round in the form with fewer operations, named as for [`short_chains!`]; besides, it
/// reads `b ^ c` from `$carry_in` (which it uses up) and leaves `a ^ b`, the next round's
/// `b ^ c`, in `$carry_out`.
///
/// `h` gets W + K, Ch as `(!e & g) + (e & f)` (the two never share a bit; BMI1's `andn`), then
/// the sum of Σ1(e), and is T1: `d` gets it. Maj is `((a ^ b) & (b ^ c)) ^ b`, so `c` is never
/// read. `$carry_out` serves as a temporary until it takes `a ^ b`, `$carry_in` once Maj is
/// added: one temporary of its own, so that with the variable the round does not read (`c`)
/// and the caller's loop counter everything stays in the thirteen registers.
macro_rules! fewer_operations {
    ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident,
     $carry_in:ident, $carry_out:ident, $wk:ident, $at:expr) => {
        // SAFETY: reads the 8 bytes at `$wk + $at`, inside the caller's schedule; writes only
        // registers named as outputs.
        unsafe {
            core::arch::asm!(
                "add {h}, qword ptr [{wk} + {at}]",
                "rorx {q}, {e}, 14",
                "rorx {t0}, {e}, 18",
                "xor {q}, {t0}",
                "andn {t0}, {e}, {g}",
                "add {h}, {t0}",
                "rorx {t0}, {e}, 41",
                "xor {q}, {t0}",
                "mov {t0}, {f}",
                "and {t0}, {e}",
                "add {q}, {t0}",
                "add {h}, {q}",
                "add {d}, {h}",
                "mov {q}, {a}",
                "xor {q}, {b}",
                "and {p}, {q}",
                "xor {p}, {b}",
                "add {h}, {p}",
                "rorx {t0}, {a}, 28",
                "rorx {p}, {a}, 34",
                "xor {t0}, {p}",
                "rorx {p}, {a}, 39",
                "xor {t0}, {p}",
                "add {h}, {t0}",
                a = in(reg) $a, b = in(reg) $b, e = in(reg) $e,
                f = in(reg) $f, g = in(reg) $g, d = inout(reg) $d, h = inout(reg) $h,
                p = inout(reg) $carry_in => _, q = out(reg) $carry_out,
                t0 = out(reg) _,
                wk = in(reg) $wk, at = const $at,
                options(pure, readonly, nostack),
            );
        }
    };
}

/// The 80 rounds of one block, whose W + K are every `GROUP * 2` words from `wk` by pairs;
/// `between.work(block, i)` runs after the fourth round of each group of eight `i` (0 to 9),
/// with `block` passed through. The ten groups of eight are written out, so that `i` is a
/// constant in each call: what [`Between::work`] does with it (which step of the schedule,
/// which of the window's registers) is then fixed at compile time, and the window stays in
/// registers. Looped, the window was indexed at run time and kept on the stack, and the
/// state's registers were spilled around every call. `FEWER_OPERATIONS` chooses
/// [`fewer_operations!`] over [`short_chains!`].
#[inline(always)]
fn rounds<const GROUP: usize, const FEWER_OPERATIONS: bool>(
    state: &mut [u64; 8],
    wk: *const u64,
    block: usize,
    between: &mut impl Between,
) {
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
    // Only the form with fewer operations reads and writes these.
    let (mut carry, mut other) = (b ^ c, 0u64);
    macro_rules! round {
        ($($args:tt)*) => {
            if FEWER_OPERATIONS {
                fewer_operations!($($args)*);
            } else {
                short_chains!($($args)*);
            }
        };
    }
    // Eight rounds, the `i`th eight: W + K of rounds 8i to 8i + 7 from byte 64 * GROUP * i.
    // (Kept as one round a line: rustfmt would spread each over fourteen.)
    #[rustfmt::skip]
    macro_rules! eight {
        ($i:literal) => {
            round!(a, b, c, d, e, f, g, h, carry, other, wk, 64 * GROUP * $i);
            round!(h, a, b, c, d, e, f, g, other, carry, wk, 64 * GROUP * $i + 8);
            round!(g, h, a, b, c, d, e, f, carry, other, wk, 64 * GROUP * $i + 16 * GROUP);
            round!(f, g, h, a, b, c, d, e, other, carry, wk, 64 * GROUP * $i + 16 * GROUP + 8);
            between.work(block, $i);
            round!(e, f, g, h, a, b, c, d, carry, other, wk, 64 * GROUP * $i + 32 * GROUP);
            round!(d, e, f, g, h, a, b, c, other, carry, wk, 64 * GROUP * $i + 32 * GROUP + 8);
            round!(c, d, e, f, g, h, a, b, carry, other, wk, 64 * GROUP * $i + 48 * GROUP);
            round!(b, c, d, e, f, g, h, a, other, carry, wk, 64 * GROUP * $i + 48 * GROUP + 8);
        };
    }
    eight!(0);
    eight!(1);
    eight!(2);
    eight!(3);
    eight!(4);
    eight!(5);
    eight!(6);
    eight!(7);
    eight!(8);
    eight!(9);
    // The last round's carry is for a round that does not come.
    let _ = (carry, other);
    for (word, add) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
        *word = word.wrapping_add(add);
    }
}

/// The schedule's work done between the rounds ([`rounds`]). A trait with an inlined method
/// rather than a closure: a closure is a function of its own without the kernel's target
/// features, and once the rounds were written out in full the compiler stopped inlining it,
/// leaving every intrinsic in it a call (a fifth of the speed).
trait Between {
    /// The work after the fourth round of the `i`th eight rounds of block `block` of a group.
    fn work(&mut self, block: usize, i: usize);
}

/// Between a group's rounds: the next group's schedule into `next`, where there is a next
/// group (`following`): its loads and first step after block 0's first four rounds, then step
/// `8 * block + i` after each `i`th eight rounds with `i` below 8.
struct Ahead<'a, const GROUP: usize, S: SchedulesAhead<GROUP>> {
    window: &'a mut S::Window,
    next: *mut u64,
    following: Option<[&'a [u8; BLOCK]; GROUP]>,
}

impl<const GROUP: usize, S: SchedulesAhead<GROUP>> Between for Ahead<'_, GROUP, S> {
    #[inline(always)]
    fn work(&mut self, block: usize, i: usize) {
        if let Some(following) = self.following {
            // SAFETY: `next` is a schedule's first word and the CPU has the kernel's features
            // (the promises of `compress_blocks`, the only maker of an `Ahead`); a next group
            // follows only a group of `GROUP` blocks.
            unsafe {
                if block == 0 && i == 0 {
                    S::start(self.window, following, self.next);
                }
                if i < 8 {
                    S::ahead(self.window, self.next, block, i);
                }
            }
        }
    }
}

/// Between a lone group's rounds: its own words 24 to 79, in the first block's rounds.
struct Own<'a, const GROUP: usize, S: Scheduler<GROUP>> {
    window: &'a mut S::Window,
    out: *mut u64,
}

impl<const GROUP: usize, S: Scheduler<GROUP>> Between for Own<'_, GROUP, S> {
    #[inline(always)]
    fn work(&mut self, block: usize, i: usize) {
        if block == 0 && i < 7 {
            // SAFETY: `out` is a schedule's first word, filled to word 23 by `own_first`, and
            // the CPU has the kernel's features (the promises of `compress_group`, the only
            // maker of an `Own`).
            unsafe { S::own(self.window, self.out, i) };
        }
    }
}

/// Hashes the whole 128-byte blocks of `blocks` into `state` (a shorter rest is ignored), the
/// schedule on `S`, the rounds in the form `FEWER_OPERATIONS` chooses: each group's schedule
/// made between the rounds of the group before.
///
/// # Safety
///
/// The CPU has BMI1, BMI2 and what `S` needs; called only from a `#[target_feature]` function
/// that enables them, into which this inlines.
#[inline(always)]
pub(super) unsafe fn compress_blocks<
    const GROUP: usize,
    const FEWER_OPERATIONS: bool,
    S: SchedulesAhead<GROUP>,
>(
    state: &mut [u64; 8],
    blocks: &[u8],
) {
    let count = blocks.len() / BLOCK;
    if count <= GROUP {
        // SAFETY: as the caller promised.
        return unsafe { compress_group::<GROUP, FEWER_OPERATIONS, S>(state, blocks) };
    }
    let mut schedules = [0; 2].map(|_| Schedule::<GROUP>(MaybeUninit::uninit()));
    let [first, second] = schedules
        .each_mut()
        .map(|schedule| schedule.0.as_mut_ptr().cast::<u64>());
    let mut window = S::window();
    // SAFETY (every call below): `first` and `second` are schedules' first words, the caller
    // vouched for the CPU; the rounds read words of a schedule made in full.
    unsafe {
        // Groups come from a function, not a closure: a test build left the closure they
        // came from uninlined, a call that `bench/zmm-check.sh` rightly refuses in a kernel.
        S::start(&mut window, group_from(blocks, count, 0), first);
        S::own_first(&mut window, first);
        // Written out, as in `rounds`: each slot's place in the window fixed at compile time.
        S::own(&mut window, first, 0);
        S::own(&mut window, first, 1);
        S::own(&mut window, first, 2);
        S::own(&mut window, first, 3);
        S::own(&mut window, first, 4);
        S::own(&mut window, first, 5);
        S::own(&mut window, first, 6);
        let groups = count.div_ceil(GROUP);
        for index in 0..groups {
            let (now, next) = if index % 2 == 0 {
                (first, second)
            } else {
                (second, first)
            };
            let following = match index + 1 < groups {
                true => Some(group_from(blocks, count, (index + 1) * GROUP)),
                false => None,
            };
            let mut between = Ahead::<GROUP, S> {
                window: &mut window,
                next,
                following,
            };
            for k in 0..GROUP.min(count - index * GROUP) {
                rounds::<GROUP, FEWER_OPERATIONS>(state, now.add(2 * k), k, &mut between);
            }
        }
    }
}

/// Hashes the whole blocks of `blocks`, at most `GROUP` of them (more are ignored), into
/// `state`: a message of up to `GROUP` blocks, or the last blocks of one. There is no next
/// group to schedule, so this group's own schedule goes between its first block's rounds,
/// where computed whole first it would add half again to a one-block message.
///
/// # Safety
///
/// As for [`compress_blocks`].
#[inline(always)]
pub(super) unsafe fn compress_group<
    const GROUP: usize,
    const FEWER_OPERATIONS: bool,
    S: Scheduler<GROUP>,
>(
    state: &mut [u64; 8],
    blocks: &[u8],
) {
    let count = (blocks.len() / BLOCK).min(GROUP);
    if count == 0 {
        return;
    }
    let mut schedule = Schedule::<GROUP>(MaybeUninit::uninit());
    let out = schedule.0.as_mut_ptr().cast::<u64>();
    let mut window = S::window();
    // SAFETY (every call below): `out` is a schedule's first word, the caller vouched for the
    // CPU; the rounds read words made at least eight rounds ahead of them.
    unsafe {
        S::start(&mut window, group_from(blocks, count, 0), out);
        S::own_first(&mut window, out);
        let mut between = Own::<GROUP, S> {
            window: &mut window,
            out,
        };
        for k in 0..count {
            rounds::<GROUP, FEWER_OPERATIONS>(state, out.add(2 * k), k, &mut between);
        }
    }
}

/// The `GROUP` blocks from block `first` of `blocks` (`count` whole blocks, at least one); a
/// group past the end repeats the last block: its schedule is made and never used.
///
/// A loop, not `std::array::from_fn`, which a test build also left uninlined.
#[inline(always)]
fn group_from<const GROUP: usize>(
    blocks: &[u8],
    count: usize,
    first: usize,
) -> [&[u8; BLOCK]; GROUP] {
    let mut group = [block_at(blocks, count, first); GROUP];
    for (k, slot) in group.iter_mut().enumerate().skip(1) {
        *slot = block_at(blocks, count, first + k);
    }
    group
}

/// Block `index` of `blocks` (`count` whole blocks), or the last one past them.
#[inline(always)]
fn block_at(blocks: &[u8], count: usize, index: usize) -> &[u8; BLOCK] {
    let at = index.min(count - 1) * BLOCK;
    blocks[at..at + BLOCK].try_into().expect("a whole block")
}

/// A kernel's tests: `$with` puts its block function on a portable state where `$supported`
/// says the CPU has `$needs`; where it does not, the tests say so and check the portable one.
#[cfg(test)]
macro_rules! kernel_tests {
    ($with:ident, $supported:expr, $needs:literal) => {
        mod tests {
            use super::*;
            use crate::kernels::sha512_rounds::checks;

            #[test]
            fn fips_180_examples() {
                checks::fips_180_examples($with);
            }

            #[test]
            fn every_length_matches_the_sha2_crate() {
                checks::every_length($with, $supported, $needs);
            }

            #[test]
            fn random_splits_match_the_sha2_crate() {
                checks::random_splits($with, $supported, $needs);
            }

            #[test]
            fn thirty_three_mebibytes_match_the_sha2_crate() {
                checks::thirty_three_mebibytes($with, $supported, $needs);
            }
        }
    };
}
#[cfg(test)]
pub(super) use kernel_tests;

/// The checks each kernel passes against the sha2 crate, given how it takes over a state
/// (`with`: the portable block function left in place where the CPU lacks the kernel's
/// instructions), whether this CPU runs it and what it needs.
#[cfg(test)]
pub(super) mod checks {
    use crate::kernels::sha2_portable::sha512::{sha384, sha512, Sha512Family};
    use crate::kernels::test_data;
    use sha2::Digest as _;

    type With = fn(Sha512Family) -> Sha512Family;

    fn expected(data: &[u8]) -> Vec<u8> {
        sha2::Sha512::digest(data).to_vec()
    }

    /// SHA-512, or SHA-384 when `short`, of the pieces in turn.
    fn hash(with: With, short: bool, pieces: &[&[u8]]) -> Vec<u8> {
        let family = if short { sha384() } else { sha512() };
        let mut state = with(family);
        for piece in pieces {
            state.update(piece);
        }
        state.finalize()
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    pub(crate) fn fips_180_examples(with: With) {
        assert_eq!(
            hex(&hash(with, false, &[b"abc"])),
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a\
             2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
        );
        assert_eq!(
            hex(&hash(with, true, &[b"abc"])),
            "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed\
             8086072ba1e7cc2358baeca134c825a7"
        );
    }

    /// Every length to 4161 (lone groups of every size, full and partial, and a next group of
    /// every size), in one piece and in two.
    pub(crate) fn every_length(with: With, supported: bool, needs: &str) {
        if test_data::runs_here(supported, needs) {
            test_data::every_length_in_one_and_two_pieces(|p| hash(with, false, p), expected);
        }
    }

    /// SHA-384 and SHA-512 in turn.
    pub(crate) fn random_splits(with: With, supported: bool, needs: &str) {
        if !test_data::runs_here(supported, needs) {
            return;
        }
        test_data::random_cuts(
            128,
            |round, pieces| hash(with, round % 2 == 1, pieces),
            |round, input| match round % 2 {
                1 => sha2::Sha384::digest(input).to_vec(),
                _ => expected(input),
            },
        );
    }

    pub(crate) fn thirty_three_mebibytes(with: With, supported: bool, needs: &str) {
        if test_data::runs_here(supported, needs) {
            test_data::thirty_three_mebibytes(|pieces| hash(with, false, pieces), expected);
        }
    }
}
