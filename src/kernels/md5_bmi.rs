//! MD5 of one message in scalar assembly with BMI1, for x86-64 CPUs without AVX-512.
//!
//! MD5 is one serial chain of 64 steps a block, `a = b + rotl(a + F(b, c, d) + K + M, s)`,
//! where only `b` comes from the step before, so its speed is the latency of a step. Written
//! in assembly each step has on its chain only what needs `b`: the message word and the
//! constant (an immediate) are added to `a` first, and so is every part of the round function
//! that does not read `b`: `c ^ d` for F and H, `c & !d` for G (one `andn`: G is
//! `(b & d) + (c & !d)`, the two never share a bit), `!d` for I. That leaves F and I two
//! operations on the chain and G and H one, plus the add, the rotate and the add of `b`: 5, 4,
//! 4 and 5 cycles a step. The portable kernel (`md5.rs`) is written for the same chain, but
//! the compiler schedules it worse; in assembly nothing moves.
//!
//! On AMD Zen 3 (EPYC, one thread, 1 MiB, the machine shared): 0.67 GB/s against 0.54 for the
//! portable kernel and 0.64 for OpenSSL's `MD5` (its scalar assembly), medians of fifteen
//! alternated samples; `bench/results/amd-epyc-zen3.md` has the figures through fasthash.
//!
//! x86-64 only, on CPUs with BMI1: [`new`] and [`digest`] return None elsewhere. The scalar
//! kernel (`md5.rs`) is the fallback, and md-5 the tests' reference.

use super::md5::{Blocks, Md5State, K};

/// The BMI1 block function; made only where the CPU has BMI1.
#[derive(Clone, Copy, Debug)]
pub struct BmiBlocks(());

impl Blocks for BmiBlocks {
    fn blocks(self, state: &mut [u32; 4], blocks: &[u8]) {
        // SAFETY: the token exists only where `supported()` found BMI1.
        unsafe { compress_blocks(state, blocks) }
    }
}

/// MD5 of one stream in this kernel: the scalar kernel's buffering and padding, this block
/// function.
pub type Md5Bmi = Md5State<BmiBlocks>;

/// A new state; None when the CPU lacks BMI1.
pub fn new() -> Option<Md5Bmi> {
    supported().then(|| Md5State::with_blocks(BmiBlocks(())))
}

/// MD5 of a whole buffer; None when the CPU lacks BMI1.
pub fn digest(data: &[u8]) -> Option<[u8; 16]> {
    let mut md5 = new()?;
    md5.update(data);
    Some(md5.finalize())
}

fn supported() -> bool {
    is_x86_feature_detected!("bmi1")
}

/// One step: `a = b + rotl(a + M[$word] + $k + F(b, c, d), $shift)`, with the round function
/// `$function` written as the instructions that compute it into `t` from `b`, `c` and `d`,
/// those that do not read `b` first. 32-bit registers: `{a:e}` names the low half.
macro_rules! step {
    ($a:ident, $b:ident, $c:ident, $d:ident, $block:ident, $word:expr, $k:expr, $shift:expr,
     [$($off_chain:literal),*], [$($on_chain:literal),*]) => {
        // SAFETY: reads the 4 bytes at `$block + 4 * $word` (`$word` < 16) of the caller's
        // 64-byte block; writes only registers named as outputs.
        unsafe {
            core::arch::asm!(
                "add {a:e}, dword ptr [{block} + {at}]",
                "add {a:e}, {k}",
                $($off_chain,)*
                $($on_chain,)*
                "add {a:e}, {t:e}",
                "rol {a:e}, {shift}",
                "add {a:e}, {b:e}",
                a = inout(reg) $a, b = in(reg) $b, c = in(reg) $c, d = in(reg) $d,
                block = in(reg) $block, t = out(reg) _,
                at = const 4 * $word, k = const $k as i32, shift = const $shift,
                options(pure, readonly, nostack),
            );
        }
    };
}

/// F = `d ^ (b & (c ^ d))`.
macro_rules! f {
    ($($args:tt)*) => {
        step!($($args)*, ["mov {t:e}, {c:e}", "xor {t:e}, {d:e}"],
              ["and {t:e}, {b:e}", "xor {t:e}, {d:e}"])
    };
}

/// G = `(b & d) + (c & !d)`: the second part goes to `a` before `b` is known.
macro_rules! g {
    ($($args:tt)*) => {
        step!($($args)*, ["andn {t:e}, {d:e}, {c:e}", "add {a:e}, {t:e}", "mov {t:e}, {d:e}"],
              ["and {t:e}, {b:e}"])
    };
}

/// H = `b ^ (c ^ d)`.
macro_rules! h {
    ($($args:tt)*) => {
        step!($($args)*, ["mov {t:e}, {c:e}", "xor {t:e}, {d:e}"], ["xor {t:e}, {b:e}"])
    };
}

/// I = `c ^ (b | !d)`.
macro_rules! i {
    ($($args:tt)*) => {
        step!($($args)*, ["mov {t:e}, {d:e}", "not {t:e}"],
              ["or {t:e}, {b:e}", "xor {t:e}, {c:e}"])
    };
}

/// Four steps of round `$round` from step `$i`, whose message words are `($mul * i + $add) %
/// 16`, with the round's four shifts.
macro_rules! four {
    ($round:ident, $a:ident, $b:ident, $c:ident, $d:ident, $block:ident, $i:expr, $mul:expr,
     $add:expr, $shifts:expr) => {
        $round!(
            $a,
            $b,
            $c,
            $d,
            $block,
            ($mul * $i + $add) % 16,
            K[$i],
            $shifts[0]
        );
        $round!(
            $d,
            $a,
            $b,
            $c,
            $block,
            ($mul * ($i + 1) + $add) % 16,
            K[$i + 1],
            $shifts[1]
        );
        $round!(
            $c,
            $d,
            $a,
            $b,
            $block,
            ($mul * ($i + 2) + $add) % 16,
            K[$i + 2],
            $shifts[2]
        );
        $round!(
            $b,
            $c,
            $d,
            $a,
            $block,
            ($mul * ($i + 3) + $add) % 16,
            K[$i + 3],
            $shifts[3]
        );
    };
}

/// The sixteen steps of one round, from step `$first`.
macro_rules! round {
    ($round:ident, $a:ident, $b:ident, $c:ident, $d:ident, $block:ident, $first:expr,
     $mul:expr, $add:expr, $shifts:expr) => {
        four!($round, $a, $b, $c, $d, $block, $first, $mul, $add, $shifts);
        four!(
            $round,
            $a,
            $b,
            $c,
            $d,
            $block,
            $first + 4,
            $mul,
            $add,
            $shifts
        );
        four!(
            $round,
            $a,
            $b,
            $c,
            $d,
            $block,
            $first + 8,
            $mul,
            $add,
            $shifts
        );
        four!(
            $round,
            $a,
            $b,
            $c,
            $d,
            $block,
            $first + 12,
            $mul,
            $add,
            $shifts
        );
    };
}

/// Hashes the whole 64-byte blocks of `blocks` into `state` (a shorter rest is ignored). The
/// message words are read in place: MD5's are little-endian, as x86 is.
///
/// # Safety
///
/// The CPU must have BMI1.
#[target_feature(enable = "bmi1")]
unsafe fn compress_blocks(state: &mut [u32; 4], blocks: &[u8]) {
    for block in blocks.chunks_exact(64) {
        let block = block.as_ptr();
        let [mut a, mut b, mut c, mut d] = *state;
        round!(f, a, b, c, d, block, 0, 1, 0, [7, 12, 17, 22]);
        round!(g, a, b, c, d, block, 16, 5, 1, [5, 9, 14, 20]);
        round!(h, a, b, c, d, block, 32, 3, 5, [4, 11, 16, 23]);
        round!(i, a, b, c, d, block, 48, 7, 0, [6, 10, 15, 21]);
        for (word, add) in state.iter_mut().zip([a, b, c, d]) {
            *word = word.wrapping_add(add);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::test_data;
    use ::md5::Digest as _;

    fn expected(data: &[u8]) -> Vec<u8> {
        ::md5::Md5::digest(data).to_vec()
    }

    fn hash(pieces: &[&[u8]]) -> Vec<u8> {
        let mut state = new().expect("checked by the caller");
        for piece in pieces {
            state.update(piece);
        }
        state.finalize().to_vec()
    }

    #[test]
    fn every_length_matches_the_md5_crate() {
        if test_data::runs_here(supported(), "BMI1") {
            test_data::every_length_in_one_and_two_pieces(hash, expected);
        }
    }

    #[test]
    fn random_splits_match_the_md5_crate() {
        if test_data::runs_here(supported(), "BMI1") {
            test_data::random_cuts(64, |_, pieces| hash(pieces), |_, input| expected(input));
        }
    }

    #[test]
    fn thirty_three_mebibytes_match_the_md5_crate() {
        if test_data::runs_here(supported(), "BMI1") {
            test_data::thirty_three_mebibytes(hash, expected);
        }
    }
}
