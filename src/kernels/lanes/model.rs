//! The lane operations on plain arrays: the model every vector implementation must agree
//! with. It is written for clarity, not speed; the tests run every lane kernel on it, on every
//! machine, with the lane counts of each vector implementation.
//!
//! Each operation stays out of line (`#[inline(never)]`): the kernels unroll every round, and
//! with the model's loops inlined into them the test build spent many minutes optimising code
//! whose only job is to be right.

use super::{Lanes, Word};
use std::marker::PhantomData;

/// `N` lanes of `W`, as an array.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Model<W, const N: usize>(PhantomData<W>);

impl<W, const N: usize> Model<W, N> {
    pub(crate) const fn new() -> Self {
        Model(PhantomData)
    }
}

impl<W: Word, const N: usize> Lanes for Model<W, N> {
    type Word = W;
    type Vector = [W; N];
    const LANES: usize = N;

    #[inline(never)]
    fn splat(self, word: W) -> [W; N] {
        [word; N]
    }

    #[inline(never)]
    fn add(self, a: [W; N], b: [W; N]) -> [W; N] {
        std::array::from_fn(|i| a[i].wrapping_add(b[i]))
    }

    #[inline(never)]
    fn xor(self, a: [W; N], b: [W; N]) -> [W; N] {
        std::array::from_fn(|i| a[i].xor(b[i]))
    }

    /// The function is rebuilt from its truth table, minterm by minterm, so no truth table
    /// is trusted to mean what a kernel's comment says.
    #[inline(never)]
    fn ternary<const TABLE: i32>(self, a: [W; N], b: [W; N], c: [W; N]) -> [W; N] {
        std::array::from_fn(|i| {
            let mut result = W::zero();
            for index in 0..8 {
                if TABLE & (1 << index) == 0 {
                    continue;
                }
                let pick = |word: W, bit: i32| if index & bit != 0 { word } else { word.not() };
                let minterm = pick(a[i], 4).and(pick(b[i], 2)).and(pick(c[i], 1));
                result = result.or(minterm);
            }
            result
        })
    }

    #[inline(never)]
    fn rotate_left<const BITS: i32>(self, a: [W; N]) -> [W; N] {
        a.map(|w| w.rotate_left(BITS as u32))
    }

    #[inline(never)]
    fn rotate_right<const BITS: i32>(self, a: [W; N]) -> [W; N] {
        a.map(|w| w.rotate_right(BITS as u32))
    }

    #[inline(never)]
    fn shift_right<const BITS: u32>(self, a: [W; N]) -> [W; N] {
        a.map(|w| w.shift_right(BITS))
    }

    fn load_words(self, words: &[W]) -> [W; N] {
        std::array::from_fn(|i| words[i])
    }

    fn store_words(self, vector: [W; N], out: &mut [W]) {
        out[..N].copy_from_slice(&vector);
    }

    unsafe fn load_blocks(self, blocks: &[*const u8], big_endian: bool) -> [[W; N]; 16] {
        assert_eq!(blocks.len(), N);
        std::array::from_fn(|word| {
            std::array::from_fn(|lane| {
                // SAFETY: the caller's 16 words from each pointer.
                let bytes = unsafe {
                    std::slice::from_raw_parts(blocks[lane].add(word * W::BYTES), W::BYTES)
                };
                W::from_bytes(bytes, big_endian)
            })
        })
    }
}
