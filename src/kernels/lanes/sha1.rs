//! SHA-1 compression on lanes (FIPS 180-4, section 6.1.2): one word of each lane's message in
//! each vector. Each round's function (Ch, parity, Maj) is one ternary-logic operation, and the
//! schedule's four-way XOR is two.

use super::multi::{LaneHash, Variant};
use super::{table, Lanes};

pub(crate) struct Sha1;

/// The initial state (FIPS 180-4, 5.3.1); the last three words are unused.
pub(crate) const INITIAL: [u32; 8] = [
    0x6745_2301,
    0xEFCD_AB89,
    0x98BA_DCFE,
    0x1032_5476,
    0xC3D2_E1F0,
    0,
    0,
    0,
];

pub(crate) const SHA1: Variant<u32> = Variant {
    initial: INITIAL,
    digest_len: 20,
};

const K: [u32; 4] = [0x5A82_7999, 0x6ED9_EBA1, 0x8F1B_BCDC, 0xCA62_C1D6];

impl LaneHash for Sha1 {
    type Word = u32;
    const BIG_ENDIAN: bool = true;

    #[inline(always)]
    fn compress<L: Lanes<Word = u32>>(ops: L, state: &mut [L::Vector; 8], block: &[L::Vector; 16]) {
        // The schedule's last sixteen words, w[t % 16] for round t.
        let mut w = *block;
        let [mut a, mut b, mut c, mut d, mut e, ..] = *state;

        // Round t with the working variables named as at its start: `e` leaves as the new
        // `a`, `b` is rotated in place, and the next round renames instead of moving.
        macro_rules! round {
            ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $t:expr) => {{
                let t: usize = $t;
                if t >= 16 {
                    let mixed = ops.ternary::<{ table::XOR3 }>(
                        w[(t + 13) % 16],
                        w[(t + 8) % 16],
                        w[(t + 2) % 16],
                    );
                    w[t % 16] = ops.rotate_left::<1>(ops.xor(mixed, w[t % 16]));
                }
                let function = match t / 20 {
                    0 => ops.ternary::<{ table::CHOOSE }>($b, $c, $d),
                    2 => ops.ternary::<{ table::MAJORITY }>($b, $c, $d),
                    _ => ops.ternary::<{ table::XOR3 }>($b, $c, $d),
                };
                let word_and_constant = ops.add(w[t % 16], ops.splat(K[t / 20]));
                $e = ops.add(
                    ops.add($e, word_and_constant),
                    ops.add(ops.rotate_left::<5>($a), function),
                );
                $b = ops.rotate_left::<30>($b);
            }};
        }
        macro_rules! five_rounds {
            ($t:expr) => {{
                round!(a, b, c, d, e, $t);
                round!(e, a, b, c, d, $t + 1);
                round!(d, e, a, b, c, $t + 2);
                round!(c, d, e, a, b, $t + 3);
                round!(b, c, d, e, a, $t + 4);
            }};
        }
        five_rounds!(0);
        five_rounds!(5);
        five_rounds!(10);
        five_rounds!(15);
        five_rounds!(20);
        five_rounds!(25);
        five_rounds!(30);
        five_rounds!(35);
        five_rounds!(40);
        five_rounds!(45);
        five_rounds!(50);
        five_rounds!(55);
        five_rounds!(60);
        five_rounds!(65);
        five_rounds!(70);
        five_rounds!(75);
        for (word, add) in state.iter_mut().zip([a, b, c, d, e]) {
            *word = ops.add(*word, add);
        }
    }
}
