//! Hashes of many messages side by side, one message to a vector lane, written once over a
//! small set of lane operations ([`Lanes`]).
//!
//! MD5, SHA-1 and SHA-2 are each one serial chain per message, so one core cannot hash one
//! message faster than that chain allows; sixteen independent chains in the 32-bit lanes of a
//! ZMM register fill the vector units instead (Intel's multi-buffer model). Each algorithm's
//! compression function is written once, generic over [`Lanes`], and runs on:
//! - [`model::Model`], plain arrays: it runs in every test on every machine, so the kernels
//!   are tested where the CPU has no vector unit of that width;
//! - `avx512::Avx512x16` / `avx512::Avx512x8`, where each operation is an intrinsic or two,
//!   and everything is inlined into one `#[target_feature]` function per entry point;
//! - `avx2::Avx2x16`, the same kernels sixteen lanes wide in two YMM registers on AVX2;
//! - `neon::NeonX16`, sixteen lanes in four NEON registers on Arm.
//!
//! [`multi`] schedules messages onto lanes (a lane whose message ends takes the next one, so a
//! tree of mixed sizes keeps the lanes busy) and pads each message's tail, for all algorithms.

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512;
pub(crate) mod md5;
pub(crate) mod model;
pub(crate) mod multi;
#[cfg(target_arch = "aarch64")]
pub(crate) mod neon;
pub(crate) mod sha1;
// On Arm there are no SHA-384/512 lanes: scalar code with native 64-bit rotates is about as
// fast as two 64-bit NEON lanes (see docs/GUIDE.md, Arm (AArch64)).
#[cfg_attr(
    target_arch = "aarch64",
    allow(
        dead_code,
        reason = "the 64-bit lane kernel runs on x86-64 and in tests"
    )
)]
pub(crate) mod sha2;

use crate::kernels::engine::{Pull, Stepped};
use crate::kernels::Digest;
use multi::{LaneHash, LaneTier, StepState, Variant};
use std::fmt::Debug;

/// The most lanes any implementation has.
pub(crate) const MAX_LANES: usize = 16;

/// A lane's word: `u32` (MD5, SHA-1, SHA-256) or `u64` (SHA-512).
pub(crate) trait Word: Copy + Default + Eq + Debug + Send + Sync + 'static {
    const BYTES: usize;
    fn wrapping_add(self, other: Self) -> Self;
    fn rotate_left(self, bits: u32) -> Self;
    fn rotate_right(self, bits: u32) -> Self;
    fn shift_right(self, bits: u32) -> Self;
    /// Bitwise, for the model of the ternary-logic operation.
    fn and(self, other: Self) -> Self;
    fn or(self, other: Self) -> Self;
    fn xor(self, other: Self) -> Self;
    fn not(self) -> Self;
    fn zero() -> Self;
    fn from_bytes(bytes: &[u8], big_endian: bool) -> Self;
    fn put_bytes(self, out: &mut [u8], big_endian: bool);
}

macro_rules! impl_word {
    ($word:ty) => {
        impl Word for $word {
            const BYTES: usize = std::mem::size_of::<$word>();
            #[inline(always)]
            fn wrapping_add(self, other: Self) -> Self {
                <$word>::wrapping_add(self, other)
            }
            #[inline(always)]
            fn rotate_left(self, bits: u32) -> Self {
                <$word>::rotate_left(self, bits)
            }
            #[inline(always)]
            fn rotate_right(self, bits: u32) -> Self {
                <$word>::rotate_right(self, bits)
            }
            #[inline(always)]
            fn shift_right(self, bits: u32) -> Self {
                self >> bits
            }
            #[inline(always)]
            fn and(self, other: Self) -> Self {
                self & other
            }
            #[inline(always)]
            fn or(self, other: Self) -> Self {
                self | other
            }
            #[inline(always)]
            fn xor(self, other: Self) -> Self {
                self ^ other
            }
            #[inline(always)]
            fn not(self) -> Self {
                !self
            }
            #[inline(always)]
            fn zero() -> Self {
                0
            }
            #[inline(always)]
            fn from_bytes(bytes: &[u8], big_endian: bool) -> Self {
                let bytes = bytes[..Self::BYTES].try_into().expect("a word's bytes");
                if big_endian {
                    <$word>::from_be_bytes(bytes)
                } else {
                    <$word>::from_le_bytes(bytes)
                }
            }
            #[inline(always)]
            fn put_bytes(self, out: &mut [u8], big_endian: bool) {
                let bytes = if big_endian {
                    self.to_be_bytes()
                } else {
                    self.to_le_bytes()
                };
                out[..Self::BYTES].copy_from_slice(&bytes);
            }
        }
    };
}
impl_word!(u32);
impl_word!(u64);

/// The operations every lane kernel is written in: one vector holds one word of each of
/// [`Lanes::LANES`] messages. An implementation is a value (for the intrinsics, a token that
/// exists only on a CPU that has them), so a kernel cannot be called where it cannot run.
///
/// The constant parameters follow the intrinsics': `TABLE` is the truth table of
/// `vpternlog` (bit `(a << 2) | (b << 1) | c` of `TABLE` is the result for those input bits).
pub(crate) trait Lanes: Copy {
    type Word: Word;
    type Vector: Copy;
    const LANES: usize;

    fn splat(self, word: Self::Word) -> Self::Vector;
    fn add(self, a: Self::Vector, b: Self::Vector) -> Self::Vector;
    fn xor(self, a: Self::Vector, b: Self::Vector) -> Self::Vector;
    /// Any function of three inputs, bit by bit, given by its truth table.
    fn ternary<const TABLE: i32>(
        self,
        a: Self::Vector,
        b: Self::Vector,
        c: Self::Vector,
    ) -> Self::Vector;
    fn rotate_left<const BITS: i32>(self, a: Self::Vector) -> Self::Vector;
    fn rotate_right<const BITS: i32>(self, a: Self::Vector) -> Self::Vector;
    fn shift_right<const BITS: u32>(self, a: Self::Vector) -> Self::Vector;
    /// A vector from `LANES` words, lane `i` from `words[i]`.
    fn load_words(self, words: &[Self::Word]) -> Self::Vector;
    /// The `LANES` words of a vector into `out[..LANES]`.
    fn store_words(self, vector: Self::Vector, out: &mut [Self::Word]);
    /// Loads one 16-word block from each lane's pointer, transposed: vector `w` of the result
    /// holds word `w` of every lane's block, read big- or little-endian.
    ///
    /// # Safety
    /// `blocks` has `LANES` pointers, each to `16 * Word::BYTES` readable bytes.
    unsafe fn load_blocks(self, blocks: &[*const u8], big_endian: bool) -> [Self::Vector; 16];
}

/// An engine table entry that hashes `$width` files side by side on lane tier `$tier` with
/// lane kernel `$hash`, and a message alone through `$streaming` / `$one_shot`.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! lane_engine {
    (
        $algorithm:expr, $kernel:expr, runs_on: $runs_on:expr, preferred_on: $preferred_on:expr,
        needs: $needs:expr, describe: $describe:expr, streaming: $streaming:expr,
        one_shot: $one_shot:expr, lanes: $width:literal x $tier:ty, $hash:ty, $variant:expr
    ) => {
        $crate::kernels::engine::Engine {
            algorithm: $algorithm,
            kernel: $kernel,
            runs_on: $runs_on,
            preferred_on: $preferred_on,
            needs: $needs,
            describe: $describe,
            streaming: $streaming,
            one_shot: $one_shot,
            lanes: Some($crate::kernels::engine::Lanes {
                width: $width,
                many: |messages| $crate::kernels::lanes::many::<$tier, $hash>(&$variant, messages),
                stepped: || $crate::kernels::lanes::in_step::<$tier, $hash>(&$variant),
                pull: |source| $crate::kernels::lanes::pull::<$tier, $hash>(&$variant, source),
            }),
            split: $crate::kernels::engine::Split::Whole,
        }
    };
}
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) use lane_engine;

/// A [`lane_engine!`] whose message alone goes to the hash `$krate::$state` of a RustCrypto
/// crate (sha1, sha2), which takes the SHA extensions where the CPU has them.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! rust_crypto_lane_engine {
    (
        $algorithm:expr, $kernel:expr, runs_on: $runs_on:expr, preferred_on: $preferred_on:expr,
        needs: $needs:expr, side_by_side: $side_by_side:literal, alone: $krate:ident::$state:ident,
        lanes: $width:literal x $tier:ty, $hash:ty, $variant:expr
    ) => {
        $crate::kernels::lanes::lane_engine!(
            $algorithm, $kernel, runs_on: $runs_on, preferred_on: $preferred_on, needs: $needs,
            describe: |caps| format!(
                concat!(
                    "fasthash, ", $side_by_side, " (one alone: ", stringify!($krate), " crate, {})"
                ),
                $crate::kernels::crates::sha_one_stream(caps)
            ),
            streaming: || {
                Box::new($crate::kernels::crates::RustCrypto(<::$krate::$state as ::sha2::Digest>::new()))
            },
            one_shot: |data| {
                $crate::kernels::Digest::from_slice(&<::$krate::$state as ::sha2::Digest>::digest(data))
            },
            lanes: $width x $tier, $hash, $variant
        )
    };
}
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) use rust_crypto_lane_engine;

/// The truth tables of the functions the kernels use, named for what they compute.
pub(crate) mod table {
    /// `a ? b : c`: MD5's F, SHA's Ch.
    pub const CHOOSE: i32 = 0xCA;
    /// `c ? a : b`: MD5's G (`(b & d) | (c & !d)` with (a, b, c) = (b, c, d)).
    pub const CHOOSE_BY_C: i32 = 0xE4;
    /// `a ^ b ^ c`: MD5's H, SHA-1's parity, the SHA-2 sigmas.
    pub const XOR3: i32 = 0x96;
    /// `b ^ (a | !c)`: MD5's I.
    pub const MD5_I: i32 = 0x39;
    /// The majority of three: SHA's Maj.
    pub const MAJORITY: i32 = 0xE8;
}

/// `messages` side by side on tier `T`, for an engine's [`crate::kernels::engine::Lanes`].
/// Engines are chosen only where their tier runs; were one called elsewhere anyway, the model
/// gives the same digests, slowly.
pub(crate) fn many<T: LaneTier, H: LaneHash<Word = T::Word>>(
    variant: &Variant<T::Word>,
    messages: &[&[u8]],
) -> Vec<Digest> {
    match T::make() {
        Some(tier) => tier.digest_many::<H>(variant, messages),
        None => model::Model::<T::Word, 4>::new().digest_many::<H>(variant, messages),
    }
}

/// Messages pulled from `source` side by side on tier `T` (or, as in [`many`], on the model).
pub(crate) fn pull<T: LaneTier, H: LaneHash<Word = T::Word>>(
    variant: &Variant<T::Word>,
    source: &dyn Pull,
) -> Vec<std::io::Result<Digest>> {
    match T::make() {
        Some(tier) => tier.pull_many::<H>(variant, source),
        None => model::Model::<T::Word, 4>::new().pull_many::<H>(variant, source),
    }
}

/// Messages fed in step on tier `T` (or, as in [`many`], on the model where `T` cannot run).
pub(crate) fn in_step<T: LaneTier, H: LaneHash<Word = T::Word> + Send + 'static>(
    variant: &'static Variant<T::Word>,
) -> Box<dyn Stepped> {
    Box::new(InStep::<T, H> {
        tier: T::make(),
        state: StepState::new(variant),
        variant,
        hash: std::marker::PhantomData,
    })
}

struct InStep<T: LaneTier, H> {
    tier: Option<T>,
    state: StepState<T::Word>,
    variant: &'static Variant<T::Word>,
    hash: std::marker::PhantomData<fn() -> H>,
}

impl<T: LaneTier, H: LaneHash<Word = T::Word> + Send + 'static> Stepped for InStep<T, H> {
    fn update(&mut self, pieces: &[&[u8]]) {
        match self.tier {
            Some(tier) => tier.step::<H>(&mut self.state, pieces),
            None => model::Model::<T::Word, MAX_LANES>::new().step::<H>(&mut self.state, pieces),
        }
    }

    fn finish(self: Box<Self>, tails: &[&[u8]]) -> Vec<Digest> {
        match self.tier {
            Some(tier) => tier.finish::<H>(&self.state, self.variant, tails),
            None => model::Model::<T::Word, MAX_LANES>::new().finish::<H>(
                &self.state,
                self.variant,
                tails,
            ),
        }
    }
}

#[cfg(test)]
mod tests;
