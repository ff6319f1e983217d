//! SHA-256 (and SHA-224) and SHA-512 (and SHA-384) compression on lanes (FIPS 180-4,
//! section 6.2.2 and 6.4.2): one word of each lane's message in each vector.
//!
//! Each Σ and σ is three rotates (or two and a shift) joined by one three-way XOR, and Ch and
//! Maj are one ternary-logic operation each: about 17 vector operations a round, against
//! about 30 scalar instructions a round for one message. The rounds are unrolled eight at a
//! time with the working variables renamed instead of moved.

use super::multi::{LaneHash, Variant};
use super::{table, Lanes};
use crate::kernels::sha2_portable::{sha256, sha512};

macro_rules! sha2_lanes {
    (
        $name:ident, $word:ty, $rounds:expr, $k:expr,
        big_sigma0: ($a0:expr, $a1:expr, $a2:expr),
        big_sigma1: ($b0:expr, $b1:expr, $b2:expr),
        small_sigma0: ($c0:expr, $c1:expr, $c2:expr),
        small_sigma1: ($d0:expr, $d1:expr, $d2:expr),
        groups_of_eight_rounds: [$($group:expr),*]
    ) => {
        pub(crate) struct $name;

        impl LaneHash for $name {
            type Word = $word;
            const BIG_ENDIAN: bool = true;

            #[inline(always)]
            fn compress<L: Lanes<Word = $word>>(
                ops: L,
                state: &mut [L::Vector; 8],
                block: &[L::Vector; 16],
            ) {
                // Each Σ and σ: rotates right by `$r0` and `$r1`, then a rotate (Σ) or a shift
                // (σ) by `$n`, joined by one three-way XOR. Macros, not closures: a closure
                // may be compiled out of line, without the tier's target features, and then
                // every intrinsic in it is a call (AVX2's three-instruction rotates made
                // LLVM leave them out of line, and SHA-512 on four AVX2 lanes 12 times slower).
                macro_rules! sigma {
                    ($x:expr, $r0:expr, $r1:expr, $last:ident::<$n:tt>) => {{
                        let x = $x;
                        ops.ternary::<{ table::XOR3 }>(
                            ops.rotate_right::<$r0>(x),
                            ops.rotate_right::<$r1>(x),
                            ops.$last::<$n>(x),
                        )
                    }};
                }
                macro_rules! big_sigma0 {
                    ($x:expr) => { sigma!($x, $a0, $a1, rotate_right::<$a2>) };
                }
                macro_rules! big_sigma1 {
                    ($x:expr) => { sigma!($x, $b0, $b1, rotate_right::<$b2>) };
                }
                macro_rules! small_sigma0 {
                    ($x:expr) => { sigma!($x, $c0, $c1, shift_right::<$c2>) };
                }
                macro_rules! small_sigma1 {
                    ($x:expr) => { sigma!($x, $d0, $d1, shift_right::<$d2>) };
                }
                const K: [$word; $rounds] = $k;
                // The schedule's last sixteen words, w[t % 16] for round t.
                let mut w = *block;
                let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;

                // Round t with the working variables named as at its start; `h` leaves as
                // the new `a` and `d` as the new `e`, so the next round renames instead.
                macro_rules! round {
                    ($a:ident, $b:ident, $c:ident, $d:ident,
                     $e:ident, $f:ident, $g:ident, $h:ident, $t:expr) => {{
                        let t: usize = $t;
                        if t >= 16 {
                            let next = ops.add(
                                ops.add(small_sigma1!(w[(t + 14) % 16]), w[(t + 9) % 16]),
                                ops.add(small_sigma0!(w[(t + 1) % 16]), w[t % 16]),
                            );
                            w[t % 16] = next;
                        }
                        let word_and_constant = ops.add(w[t % 16], ops.splat(K[t]));
                        let t1 = ops.add(
                            ops.add($h, word_and_constant),
                            ops.add(
                                big_sigma1!($e),
                                ops.ternary::<{ table::CHOOSE }>($e, $f, $g),
                            ),
                        );
                        let t2 = ops.add(
                            big_sigma0!($a),
                            ops.ternary::<{ table::MAJORITY }>($a, $b, $c),
                        );
                        $d = ops.add($d, t1);
                        $h = ops.add(t1, t2);
                    }};
                }
                macro_rules! eight_rounds {
                    ($t:expr) => {{
                        round!(a, b, c, d, e, f, g, h, $t);
                        round!(h, a, b, c, d, e, f, g, $t + 1);
                        round!(g, h, a, b, c, d, e, f, $t + 2);
                        round!(f, g, h, a, b, c, d, e, $t + 3);
                        round!(e, f, g, h, a, b, c, d, $t + 4);
                        round!(d, e, f, g, h, a, b, c, $t + 5);
                        round!(c, d, e, f, g, h, a, b, $t + 6);
                        round!(b, c, d, e, f, g, h, a, $t + 7);
                    }};
                }
                $(eight_rounds!($group);)*
                for (word, add) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
                    *word = ops.add(*word, add);
                }
            }
        }
    };
}

sha2_lanes!(
    Sha256, u32, 64, sha256::K,
    big_sigma0: (2, 13, 22),
    big_sigma1: (6, 11, 25),
    small_sigma0: (7, 18, 3),
    small_sigma1: (17, 19, 10),
    groups_of_eight_rounds: [0, 8, 16, 24, 32, 40, 48, 56]
);

sha2_lanes!(
    Sha512, u64, 80, sha512::K,
    big_sigma0: (28, 34, 39),
    big_sigma1: (14, 18, 41),
    small_sigma0: (1, 8, 7),
    small_sigma1: (19, 61, 6),
    groups_of_eight_rounds: [0, 8, 16, 24, 32, 40, 48, 56, 64, 72]
);

pub(crate) const SHA224: Variant<u32> = Variant {
    initial: sha256::INITIAL_224,
    digest_len: 28,
};
pub(crate) const SHA256: Variant<u32> = Variant {
    initial: sha256::INITIAL_256,
    digest_len: 32,
};
pub(crate) const SHA384: Variant<u64> = Variant {
    initial: sha512::INITIAL_384,
    digest_len: 48,
};
pub(crate) const SHA512: Variant<u64> = Variant {
    initial: sha512::INITIAL_512,
    digest_len: 64,
};
