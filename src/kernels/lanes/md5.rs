//! MD5 compression on lanes (RFC 1321, section 3.4): one word of each lane's message in each
//! vector. Each round function is one ternary-logic operation and each rotate one operation
//! where the vector unit has them (AVX-512), so a step is six vector operations.

use super::multi::{LaneHash, Variant};
use super::{table, Lanes};
use crate::kernels::md5::{INITIAL as INITIAL4, K};

pub(crate) struct Md5;

pub(crate) const MD5: Variant<u32> = Variant {
    initial: INITIAL,
    digest_len: 16,
};

/// The initial state; the last four words are unused.
pub(crate) const INITIAL: [u32; 8] = [
    INITIAL4[0],
    INITIAL4[1],
    INITIAL4[2],
    INITIAL4[3],
    0,
    0,
    0,
    0,
];

impl LaneHash for Md5 {
    type Word = u32;
    const BIG_ENDIAN: bool = false;

    #[inline(always)]
    fn compress<L: Lanes<Word = u32>>(ops: L, state: &mut [L::Vector; 8], m: &[L::Vector; 16]) {
        let [mut a, mut b, mut c, mut d, ..] = *state;
        // a = b + rotl(a + f(b, c, d) + K[i] + M[g], s)
        macro_rules! step {
            ($table:expr, $a:ident, $b:ident, $c:ident, $d:ident, $i:expr, $g:expr, $s:literal) => {{
                let word_and_constant = ops.add(m[$g], ops.splat(K[$i]));
                let sum = ops.add(
                    ops.add($a, word_and_constant),
                    ops.ternary::<{ $table }>($b, $c, $d),
                );
                $a = ops.add($b, ops.rotate_left::<$s>(sum));
            }};
        }
        // Four steps from step i, the message word of step j being g(j) % 16.
        macro_rules! four_steps {
            ($table:expr, $i:expr, $g:expr, [$s0:literal, $s1:literal, $s2:literal, $s3:literal]) => {{
                let i: usize = $i;
                let g = $g;
                step!($table, a, b, c, d, i, g(i) % 16, $s0);
                step!($table, d, a, b, c, i + 1, g(i + 1) % 16, $s1);
                step!($table, c, d, a, b, i + 2, g(i + 2) % 16, $s2);
                step!($table, b, c, d, a, i + 3, g(i + 3) % 16, $s3);
            }};
        }
        macro_rules! round {
            ($table:expr, $first:expr, $g:expr, $shifts:tt) => {{
                four_steps!($table, $first, $g, $shifts);
                four_steps!($table, $first + 4, $g, $shifts);
                four_steps!($table, $first + 8, $g, $shifts);
                four_steps!($table, $first + 12, $g, $shifts);
            }};
        }
        round!(table::CHOOSE, 0, |i: usize| i, [7, 12, 17, 22]);
        round!(table::CHOOSE_BY_C, 16, |i: usize| 5 * i + 1, [5, 9, 14, 20]);
        round!(table::XOR3, 32, |i: usize| 3 * i + 5, [4, 11, 16, 23]);
        round!(table::MD5_I, 48, |i: usize| 7 * i, [6, 10, 15, 21]);
        for (word, add) in state.iter_mut().zip([a, b, c, d]) {
            *word = ops.add(*word, add);
        }
    }
}
