//! The AVX2 stripe loop: two YMM registers hold the eight accumulators. The same shape as the
//! AVX-512 loop (`avx512.rs`), each operation on two halves.

use super::{LAST_STRIPE_SECRET, PRIME32_1, SCRAMBLE_SECRET, SECRET, STRIPE, STRIPES_PER_BLOCK};
use std::arch::x86_64::*;

/// The eight accumulators, or eight sums: words 0 to 3 and 4 to 7.
#[derive(Clone, Copy)]
struct Halves([__m256i; 2]);

impl Halves {
    #[inline]
    #[target_feature(enable = "avx2")]
    fn zero() -> Halves {
        Halves([_mm256_setzero_si256(); 2])
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn load(bytes: &[u8; STRIPE]) -> Halves {
        // SAFETY: reads the 64 bytes of `bytes`; the loads have no alignment requirement.
        unsafe {
            Halves([
                _mm256_loadu_si256(bytes.as_ptr().cast()),
                _mm256_loadu_si256(bytes.as_ptr().add(32).cast()),
            ])
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn load_acc(acc: &[u64; 8]) -> Halves {
        // SAFETY: `acc` is 64 bytes, and a byte array has no alignment requirement.
        Halves::load(unsafe { &*acc.as_ptr().cast::<[u8; STRIPE]>() })
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn store(self, bytes: &mut [u64; 8]) {
        // SAFETY: writes the 64 bytes of `bytes`; the stores have no alignment requirement.
        unsafe {
            _mm256_storeu_si256(bytes.as_mut_ptr().cast(), self.0[0]);
            _mm256_storeu_si256(bytes.as_mut_ptr().add(4).cast(), self.0[1]);
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn map(self, f: impl Fn(__m256i) -> __m256i) -> Halves {
        Halves([f(self.0[0]), f(self.0[1])])
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn zip(self, other: Halves, f: impl Fn(__m256i, __m256i) -> __m256i) -> Halves {
        Halves([f(self.0[0], other.0[0]), f(self.0[1], other.0[1])])
    }
}

/// The secret at `offset`, 64 bytes.
fn secret(offset: usize) -> &'static [u8; STRIPE] {
    SECRET[offset..offset + STRIPE]
        .try_into()
        .expect("64 bytes")
}

/// What the stripes since the last scramble add to the accumulators.
///
/// Each input word also goes to the neighbouring accumulator (`acc[i ^ 1] += input[i]`).
/// Between scrambles the accumulators only add, so the input words are summed where they are
/// and the sums are swapped once, as in the AVX-512 loop: two shuffles fewer per stripe.
struct Sums {
    products: Halves,
    inputs: Halves,
}

impl Sums {
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new() -> Sums {
        Sums {
            products: Halves::zero(),
            inputs: Halves::zero(),
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn add(&mut self, data: &[u8; STRIPE], key: &[u8; STRIPE]) {
        let data = Halves::load(data);
        let data_key = data.zip(Halves::load(key), |d, k| _mm256_xor_si256(d, k));
        // (low 32 bits) * (high 32 bits) of each 64-bit word.
        let products =
            data_key.map(|dk| _mm256_mul_epu32(dk, _mm256_shuffle_epi32::<0b00_11_00_01>(dk)));
        self.products = self.products.zip(products, |a, b| _mm256_add_epi64(a, b));
        self.inputs = self.inputs.zip(data, |a, b| _mm256_add_epi64(a, b));
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn add_to(self, acc: Halves) -> Halves {
        let swapped = self
            .inputs
            .map(|i| _mm256_shuffle_epi32::<0b01_00_11_10>(i));
        let sums = self.products.zip(swapped, |p, s| _mm256_add_epi64(p, s));
        acc.zip(sums, |a, s| _mm256_add_epi64(a, s))
    }
}

/// Adds stripes that lie in one block, the first at `position`.
#[inline]
#[target_feature(enable = "avx2")]
fn add_stripes(acc: Halves, stripes: &[[u8; STRIPE]], position: usize) -> Halves {
    let mut sums = Sums::new();
    for (data, position) in stripes.iter().zip(position..) {
        sums.add(data, secret(8 * position));
    }
    sums.add_to(acc)
}

/// Adds a whole block, written out stripe by stripe so that the secrets' offsets are constants.
#[inline]
#[target_feature(enable = "avx2")]
fn add_block(acc: Halves, block: &[[u8; STRIPE]; STRIPES_PER_BLOCK]) -> Halves {
    let mut sums = Sums::new();
    macro_rules! stripes {
        ($($position:literal)*) => { $(sums.add(&block[$position], secret(8 * $position));)* };
    }
    stripes!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    sums.add_to(acc)
}

#[inline]
#[target_feature(enable = "avx2")]
fn scramble(acc: Halves) -> Halves {
    let key = Halves::load(secret(SCRAMBLE_SECRET));
    let prime = _mm256_set1_epi32(PRIME32_1 as i32);
    acc.zip(key, |acc, key| {
        let mixed = _mm256_xor_si256(_mm256_xor_si256(acc, _mm256_srli_epi64::<47>(acc)), key);
        // A 64-bit by 32-bit product from two 32-bit ones: AVX2 has no 64-bit multiply.
        let low = _mm256_mul_epu32(mixed, prime);
        let high = _mm256_mul_epu32(_mm256_srli_epi64::<32>(mixed), prime);
        _mm256_add_epi64(low, _mm256_slli_epi64::<32>(high))
    })
}

/// The AVX2 stripe loop; see [`super::StripeLoop::stripes`].
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn stripes_avx2(acc: &mut [u64; 8], input: &[u8], stripe: usize) -> usize {
    debug_assert!(input.len().is_multiple_of(STRIPE) && stripe < STRIPES_PER_BLOCK);
    let sum = Halves::load_acc(acc);
    let (sum, stripe) = stripes_in_blocks!(sum, input, stripe);
    sum.store(acc);
    stripe
}

/// The input's final stripe, with its own secret; see [`super::StripeLoop::last_stripe`].
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn last_stripe_avx2(acc: &mut [u64; 8], data: &[u8; STRIPE]) {
    let sum = Halves::load_acc(acc);
    let mut sums = Sums::new();
    sums.add(data, secret(LAST_STRIPE_SECRET));
    sums.add_to(sum).store(acc);
}
