//! The AVX-512 stripe loop: one ZMM register holds all eight accumulators.

use super::{LAST_STRIPE_SECRET, PRIME32_1, SCRAMBLE_SECRET, SECRET, STRIPE, STRIPES_PER_BLOCK};
use std::arch::x86_64::*;

#[inline]
#[target_feature(enable = "avx512f")]
fn load(bytes: &[u8; STRIPE]) -> __m512i {
    // SAFETY: reads the 64 bytes of `bytes`; the load has no alignment requirement.
    unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) }
}

/// The secret of the stripe at `position` in its block.
fn key(position: usize) -> &'static [u8; STRIPE] {
    SECRET[8 * position..8 * position + STRIPE]
        .try_into()
        .expect("64 bytes")
}

/// What the stripes since the last scramble add to the accumulators.
///
/// Each input word also goes to the neighbouring accumulator (`acc[i ^ 1] += input[i]`).
/// Between scrambles the accumulators only add, so the input words are summed where they are
/// and the sum is swapped once: one shuffle fewer per stripe, which took 1 MiB from 72 to
/// 86 GB/s. The sums are single chains: LLVM reassociates the additions anyway, and two chains
/// per block (odd and even stripes) measured no faster.
struct Sums {
    products: __m512i,
    inputs: __m512i,
}

impl Sums {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn new() -> Sums {
        Sums {
            products: _mm512_setzero_si512(),
            inputs: _mm512_setzero_si512(),
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn add(&mut self, data: &[u8; STRIPE], key: &[u8; STRIPE]) {
        let data = load(data);
        let data_key = _mm512_xor_si512(data, load(key));
        // (low 32 bits) * (high 32 bits) of each 64-bit word.
        let high = _mm512_shuffle_epi32::<0b00_11_00_01>(data_key);
        self.products = _mm512_add_epi64(self.products, _mm512_mul_epu32(data_key, high));
        self.inputs = _mm512_add_epi64(self.inputs, data);
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn add_to(self, acc: __m512i) -> __m512i {
        let swapped = _mm512_shuffle_epi32::<0b01_00_11_10>(self.inputs);
        _mm512_add_epi64(acc, _mm512_add_epi64(self.products, swapped))
    }
}

/// Adds stripes that lie in one block, the first at `position`.
#[inline]
#[target_feature(enable = "avx512f")]
fn add_stripes(acc: __m512i, stripes: &[[u8; STRIPE]], position: usize) -> __m512i {
    let mut sums = Sums::new();
    for (data, position) in stripes.iter().zip(position..) {
        sums.add(data, key(position));
    }
    sums.add_to(acc)
}

/// Adds a whole block. Written out stripe by stripe because LLVM kept the same loop rolled in
/// some builds, and then ran 1 MiB at 56 instead of 86 GB/s; unrolled, the sixteen secrets
/// stay in registers across blocks.
#[inline]
#[target_feature(enable = "avx512f")]
fn add_block(acc: __m512i, block: &[[u8; STRIPE]; STRIPES_PER_BLOCK]) -> __m512i {
    let mut sums = Sums::new();
    macro_rules! stripes {
        ($($position:literal)*) => { $(sums.add(&block[$position], key($position));)* };
    }
    stripes!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    sums.add_to(acc)
}

#[inline]
#[target_feature(enable = "avx512f")]
fn scramble(acc: __m512i) -> __m512i {
    // acc ^ (acc >> 47) ^ key in one instruction.
    let mixed = _mm512_ternarylogic_epi64::<0x96>(
        acc,
        _mm512_srli_epi64::<47>(acc),
        load(key(SCRAMBLE_SECRET / 8)),
    );
    // A 64-bit by 32-bit product from two 32-bit ones: AVX-512F has no 64-bit multiply.
    let prime = _mm512_set1_epi64(PRIME32_1 as i64);
    let low = _mm512_mul_epu32(mixed, prime);
    let high = _mm512_mul_epu32(_mm512_srli_epi64::<32>(mixed), prime);
    _mm512_add_epi64(low, _mm512_slli_epi64::<32>(high))
}

/// The AVX-512 stripe loop; see [`super::StripeLoop::stripes`].
///
/// # Safety
/// The CPU must have AVX-512F.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn stripes_avx512(acc: &mut [u64; 8], input: &[u8], stripe: usize) -> usize {
    debug_assert!(input.len().is_multiple_of(STRIPE) && stripe < STRIPES_PER_BLOCK);
    // SAFETY: `acc` is 64 bytes; the load has no alignment requirement.
    let sum = unsafe { _mm512_loadu_si512(acc.as_ptr().cast()) };
    let (sum, stripe) = stripes_in_blocks!(sum, input, stripe);
    // SAFETY: `acc` is 64 bytes; the store has no alignment requirement.
    unsafe { _mm512_storeu_si512(acc.as_mut_ptr().cast(), sum) };
    stripe
}

/// The input's final stripe, with its own secret; see [`super::StripeLoop::last_stripe`].
///
/// # Safety
/// The CPU must have AVX-512F.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn last_stripe_avx512(acc: &mut [u64; 8], data: &[u8; STRIPE]) {
    let key: &[u8; STRIPE] = SECRET[LAST_STRIPE_SECRET..LAST_STRIPE_SECRET + STRIPE]
        .try_into()
        .expect("64 bytes");
    let mut sums = Sums::new();
    sums.add(data, key);
    // SAFETY: `acc` is 64 bytes; the load and the store have no alignment requirement.
    unsafe {
        let sum = sums.add_to(_mm512_loadu_si512(acc.as_ptr().cast()));
        _mm512_storeu_si512(acc.as_mut_ptr().cast(), sum);
    }
}
