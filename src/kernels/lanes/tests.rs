//! Every lane kernel on every implementation of the lane operations this machine runs, against
//! the reference crates (md-5, sha1, sha2): the model at each tier's lane count everywhere, the
//! intrinsics where the CPU has them.

use super::md5::{Md5, MD5};
use super::model::Model;
use super::multi::{self, LaneHash, LaneTier, StepState, Variant};
#[cfg(target_arch = "aarch64")]
use super::neon::NeonX16;
use super::sha1::{Sha1, SHA1};
use super::sha2::{Sha256, Sha512, SHA224, SHA256, SHA384, SHA512};
#[cfg(target_arch = "x86_64")]
use super::{
    avx2::{Avx2x16, Avx2x4},
    avx512::{Avx512x16, Avx512x8},
};
use super::{table, Lanes};
use crate::kernels::engine::Pull;
use crate::kernels::table::Slices;
use crate::kernels::test_data::{data, Random};
use crate::kernels::Digest;
use std::io;

/// The lane algorithms, each with its reference.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Which {
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
}

const ALL: [Which; 6] = [
    Which::Md5,
    Which::Sha1,
    Which::Sha224,
    Which::Sha256,
    Which::Sha384,
    Which::Sha512,
];

fn reference(which: Which, message: &[u8]) -> Digest {
    use sha2::Digest as _;
    match which {
        Which::Md5 => Digest::from_slice(&::md5::Md5::digest(message)),
        Which::Sha1 => Digest::from_slice(&sha1::Sha1::digest(message)),
        Which::Sha224 => Digest::from_slice(&sha2::Sha224::digest(message)),
        Which::Sha256 => Digest::from_slice(&sha2::Sha256::digest(message)),
        Which::Sha384 => Digest::from_slice(&sha2::Sha384::digest(message)),
        Which::Sha512 => Digest::from_slice(&sha2::Sha512::digest(message)),
    }
}

/// One way of running the lane kernels: a name for messages and the three operations.
trait Tier {
    fn name(&self) -> String;
    /// The algorithms it runs: all, or those of 32-bit lanes.
    fn algorithms(&self) -> Vec<Which>;
    fn lanes(&self, which: Which) -> usize;
    fn many(&self, which: Which, messages: &[&[u8]]) -> Vec<Digest>;
    /// Messages pulled as the lanes reach them, as files are.
    fn pulled(&self, which: Which, source: &dyn Pull) -> Vec<io::Result<Digest>>;
    /// Pieces of equal whole-block length, then equal tails: the digests.
    fn stepped(&self, which: Which, pieces: &[Vec<&[u8]>], tails: &[&[u8]]) -> Vec<Digest>;
}

/// One of the lane tiers' entry points, run on a token for one compression function.
trait Operation {
    type Output;
    fn run<H: LaneHash, T: LaneTier<Word = H::Word>>(
        self,
        token: T,
        variant: &Variant<H::Word>,
    ) -> Self::Output;
}

struct Many<'a, 'm>(&'a [&'m [u8]]);

impl Operation for Many<'_, '_> {
    type Output = Vec<Digest>;
    fn run<H: LaneHash, T: LaneTier<Word = H::Word>>(
        self,
        token: T,
        variant: &Variant<H::Word>,
    ) -> Vec<Digest> {
        token.digest_many::<H>(variant, self.0)
    }
}

struct Pulled<'a>(&'a dyn Pull);

impl Operation for Pulled<'_> {
    type Output = Vec<io::Result<Digest>>;
    fn run<H: LaneHash, T: LaneTier<Word = H::Word>>(
        self,
        token: T,
        variant: &Variant<H::Word>,
    ) -> Vec<io::Result<Digest>> {
        token.pull_many::<H>(variant, self.0)
    }
}

struct Stepped<'a, 'm> {
    pieces: &'a [Vec<&'m [u8]>],
    tails: &'a [&'m [u8]],
}

impl Operation for Stepped<'_, '_> {
    type Output = Vec<Digest>;
    fn run<H: LaneHash, T: LaneTier<Word = H::Word>>(
        self,
        token: T,
        variant: &Variant<H::Word>,
    ) -> Vec<Digest> {
        let mut state = StepState::new(variant);
        for step in self.pieces {
            token.step::<H>(&mut state, step);
        }
        token.finish::<H>(&state, variant, self.tails)
    }
}

/// A tier's tokens: `narrow` for the 32-bit lanes (MD5, SHA-1, SHA-224/256) and, where the
/// tier has them, `wide` for the 64-bit lanes (SHA-384/512).
struct Tokens<N, W> {
    label: &'static str,
    narrow: N,
    wide: Option<W>,
}

/// The wide token type of a tier with 32-bit lanes only (NEON): never made.
#[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
type NoWide = Model<u64, 1>;

impl<N: LaneTier<Word = u32>, W: LaneTier<Word = u64>> Tokens<N, W> {
    /// The tier, where this CPU runs it; `wide` says whether it has 64-bit lanes.
    fn make(label: &'static str, wide: bool) -> Option<Box<dyn Tier>> {
        let narrow = N::make()?;
        let wide = if wide { Some(W::make()?) } else { None };
        Some(Box::new(Tokens {
            label,
            narrow,
            wide,
        }))
    }

    /// `operation` on the token and kernel of `which`.
    fn run<O: Operation>(&self, which: Which, operation: O) -> O::Output {
        let wide = || {
            self.wide
                .unwrap_or_else(|| unreachable!("{} lanes are 32-bit", self.label))
        };
        match which {
            Which::Md5 => operation.run::<Md5, _>(self.narrow, &MD5),
            Which::Sha1 => operation.run::<Sha1, _>(self.narrow, &SHA1),
            Which::Sha224 => operation.run::<Sha256, _>(self.narrow, &SHA224),
            Which::Sha256 => operation.run::<Sha256, _>(self.narrow, &SHA256),
            Which::Sha384 => operation.run::<Sha512, _>(wide(), &SHA384),
            Which::Sha512 => operation.run::<Sha512, _>(wide(), &SHA512),
        }
    }
}

impl<N: LaneTier<Word = u32>, W: LaneTier<Word = u64>> Tier for Tokens<N, W> {
    fn name(&self) -> String {
        match self.wide {
            Some(_) => format!("{} ({} × u32, {} × u64)", self.label, N::LANES, W::LANES),
            None => format!("{} ({} × u32)", self.label, N::LANES),
        }
    }

    fn algorithms(&self) -> Vec<Which> {
        match self.wide {
            Some(_) => ALL.to_vec(),
            None => LANES32.to_vec(),
        }
    }

    fn lanes(&self, which: Which) -> usize {
        if matches!(which, Which::Sha384 | Which::Sha512) {
            W::LANES
        } else {
            N::LANES
        }
    }

    fn many(&self, which: Which, messages: &[&[u8]]) -> Vec<Digest> {
        self.run(which, Many(messages))
    }

    fn pulled(&self, which: Which, source: &dyn Pull) -> Vec<io::Result<Digest>> {
        self.run(which, Pulled(source))
    }

    fn stepped(&self, which: Which, pieces: &[Vec<&[u8]>], tails: &[&[u8]]) -> Vec<Digest> {
        self.run(which, Stepped { pieces, tails })
    }
}

const LANES32: [Which; 4] = [Which::Md5, Which::Sha1, Which::Sha224, Which::Sha256];

/// The tiers to test here, with the algorithms each runs. The model runs at the lane counts
/// of every vector tier (16 lanes of u32, 8 and 4 of u64), whatever this CPU has, and at 8 of
/// u32 as well: the scheduling at another width.
fn tiers() -> Vec<(Box<dyn Tier>, Vec<Which>)> {
    let made = [
        (
            Tokens::<Model<u32, 16>, Model<u64, 8>>::make("model", true),
            "",
        ),
        (
            Tokens::<Model<u32, 8>, Model<u64, 4>>::make("model", true),
            "",
        ),
        #[cfg(target_arch = "x86_64")]
        (
            Tokens::<Avx512x16, Avx512x8>::make("AVX-512", true),
            "AVX-512 lanes not run: this CPU lacks AVX-512F/BW",
        ),
        #[cfg(target_arch = "x86_64")]
        (
            Tokens::<Avx2x16, Avx2x4>::make("AVX2", true),
            "AVX2 lanes not run: this CPU lacks AVX2",
        ),
        #[cfg(target_arch = "aarch64")]
        (
            Tokens::<NeonX16, NoWide>::make("NEON", false),
            "NEON lanes not run: this CPU lacks NEON",
        ),
    ];
    let mut tiers = Vec::new();
    for (tier, not_run) in made {
        match tier {
            Some(tier) => {
                eprintln!("lane tier run: {}", tier.name());
                let algorithms = tier.algorithms();
                tiers.push((tier, algorithms));
            }
            None => eprintln!("{not_run}"),
        }
    }
    tiers
}

/// `messages` side by side on `tier`, in memory and pulled, against the reference.
fn check(tier: &dyn Tier, which: Which, messages: &[&[u8]], what: &str) {
    check_in_memory(tier, which, messages, what);
    let pulled = tier.pulled(which, &Slices(messages));
    assert_eq!(pulled.len(), messages.len());
    for (index, (message, digest)) in messages.iter().zip(&pulled).enumerate() {
        assert_eq!(
            digest.as_ref().ok(),
            Some(&reference(which, message)),
            "{which:?} on {}, {what}, pulled: message {index} of {}, length {}",
            tier.name(),
            messages.len(),
            message.len()
        );
    }
}

fn check_in_memory(tier: &dyn Tier, which: Which, messages: &[&[u8]], what: &str) {
    let digests = tier.many(which, messages);
    assert_eq!(digests.len(), messages.len());
    for (index, (message, digest)) in messages.iter().zip(&digests).enumerate() {
        assert_eq!(
            *digest,
            reference(which, message),
            "{which:?} on {}, {what}: message {index} of {}, length {}",
            tier.name(),
            messages.len(),
            message.len()
        );
    }
}

/// Messages pulled as files are, where some reads fail: at a message's start (its last bytes
/// are read first) or in a later window; and some given whole in memory, as mapped files are,
/// which must then never be read.
struct Failing<'a> {
    messages: &'a [&'a [u8]],
    /// Message index: the offset from which its reads fail.
    fail_from: Vec<Option<u64>>,
    /// Message index: whether it is given whole.
    whole: Vec<bool>,
}

impl Pull for Failing<'_> {
    fn count(&self) -> usize {
        self.messages.len()
    }
    fn len(&self, index: usize) -> u64 {
        self.messages[index].len() as u64
    }
    fn whole(&self, index: usize) -> Option<&[u8]> {
        self.whole[index].then_some(self.messages[index])
    }
    fn read(&self, index: usize, at: u64, out: &mut [u8]) -> io::Result<()> {
        if self.whole[index] {
            return Err(io::Error::other(format!(
                "message {index} read, not used whole"
            )));
        }
        if self.fail_from[index].is_some_and(|from| at + out.len() as u64 > from) {
            return Err(io::Error::other(format!("message {index} fails")));
        }
        Slices(self.messages).read(index, at, out)
    }
}

/// Pulled messages across several windows (lengths on each side of the window's multiples),
/// with some reads failing and some messages given whole: those that fail get their own error,
/// every other message its digest, whatever lane it shared the vectors with.
#[test]
fn pulled_messages_across_windows_and_failed_reads() {
    let window = multi::WINDOW;
    let source = data(3 * window + 4096);
    let mut random = Random(11);
    let lengths = [
        window - 1,
        window,
        window + 1,
        2 * window - 64,
        2 * window + 65,
        3 * window + 127,
        1,
        0,
        130,
    ];
    for (tier, algorithms) in tiers() {
        let model = tier.name().starts_with("model");
        for &which in &algorithms {
            // The model is slow: one round of the lengths there, several on the vectors.
            let count = if model {
                lengths.len()
            } else {
                3 * tier.lanes(which)
            };
            let messages: Vec<&[u8]> = (0..count)
                .map(|i| {
                    let len = lengths[i % lengths.len()];
                    let offset = random.below(source.len() - len + 1);
                    &source[offset..offset + len]
                })
                .collect();
            check(tier.as_ref(), which, &messages, "across windows");
            let fail_from: Vec<Option<u64>> = messages
                .iter()
                .enumerate()
                // Every third message that has a byte to read fails from one of its bytes on.
                .map(|(i, message)| {
                    (i % 3 == 0 && !message.is_empty()).then(|| random.below(message.len()) as u64)
                })
                .collect();
            let failing = Failing {
                messages: &messages,
                fail_from: fail_from.clone(),
                // Every third message from the second on, none of which fail.
                whole: (0..messages.len()).map(|i| i % 3 == 1).collect(),
            };
            let pulled = tier.pulled(which, &failing);
            assert_eq!(pulled.len(), messages.len());
            for (index, ((message, digest), fails)) in
                messages.iter().zip(&pulled).zip(&fail_from).enumerate()
            {
                let what = format!(
                    "{which:?} on {}: message {index}, length {}",
                    tier.name(),
                    message.len()
                );
                match (fails, digest) {
                    (Some(_), Err(error)) => {
                        assert_eq!(
                            error.to_string(),
                            format!("message {index} fails"),
                            "{what}"
                        )
                    }
                    (Some(_), Ok(_)) => panic!("{what}: a failed read gave a digest"),
                    (None, digest) => {
                        assert_eq!(
                            digest.as_ref().ok(),
                            Some(&reference(which, message)),
                            "{what}"
                        )
                    }
                }
            }
        }
    }
}

/// Every length 0..=4161 in one call, at shifting offsets: lanes end at every block position,
/// and refill constantly with messages of other lengths.
#[test]
fn every_length_to_4161_in_one_call() {
    let source = data(4161 + 64);
    let messages: Vec<&[u8]> = (0..=4161)
        .map(|len| {
            let offset = (len * 7 + 3) % 64;
            &source[offset..offset + len]
        })
        .collect();
    let reversed: Vec<&[u8]> = messages.iter().rev().copied().collect();
    for (tier, algorithms) in tiers() {
        for &which in &algorithms {
            check(tier.as_ref(), which, &messages, "lengths ascending");
            // Pulled once is enough: the pulled path differs only in where blocks come from.
            check_in_memory(tier.as_ref(), which, &reversed, "lengths descending");
        }
    }
}

/// Random batches: from one message to several lanes' worth, of random lengths.
#[test]
fn random_batches_of_mixed_lengths() {
    let source = data(20_000);
    let mut random = Random(7);
    for (tier, algorithms) in tiers() {
        for &which in &algorithms {
            for round in 0..40 {
                let count = 1 + random.below(3 * tier.lanes(which));
                let messages: Vec<&[u8]> = (0..count)
                    .map(|_| {
                        let len = if round % 2 == 0 {
                            random.below(300)
                        } else {
                            random.below(source.len())
                        };
                        let offset = random.below(source.len() - len + 1);
                        &source[offset..offset + len]
                    })
                    .collect();
                check(tier.as_ref(), which, &messages, &format!("round {round}"));
            }
            check(tier.as_ref(), which, &[], "no messages");
        }
    }
}

/// A 33 MiB message among small ones, on each vector tier this CPU has. The model's cost is
/// per block of every lane (minutes under emulation), so it runs this only for algorithms no
/// vector tier here runs, at its narrowest lane count, once per compression function (SHA-224
/// and SHA-384 only differ from SHA-256 and SHA-512 in constants, which the other tests
/// cover), and on 1 MiB + 13: after the small ones end, the long message's lane runs alone
/// block after block, the same loop whether for 16 thousand blocks or half a million. The
/// kernels are the same code on every tier.
#[test]
fn a_large_message_among_small_ones() {
    let big = data(33 * 1024 * 1024 + 13);
    let among_small = |len: usize| {
        let mut messages: Vec<&[u8]> = vec![&big[..len]];
        messages.extend((0..20).map(|i| &big[i * 1000..i * 1000 + 64 * i + i]));
        messages
    };
    let (vector_batch, model_batch) = (among_small(big.len()), among_small(1 << 20 | 13));
    let tiers = tiers();
    let on_vectors: Vec<Which> = tiers
        .iter()
        .filter(|(tier, _)| !tier.name().starts_with("model"))
        .flat_map(|(_, algorithms)| algorithms.iter().copied())
        .collect();
    for (tier, algorithms) in tiers {
        let model = tier.name().starts_with("model");
        if model && !tier.name().starts_with("model (8") {
            continue;
        }
        for &which in &algorithms {
            if model
                && (on_vectors.contains(&which) || matches!(which, Which::Sha224 | Which::Sha384))
            {
                continue;
            }
            let (messages, what) = match model {
                true => (&model_batch, "1 MiB + 13 among 20 small"),
                false => (&vector_batch, "33 MiB + 13 among 20 small"),
            };
            check_in_memory(tier.as_ref(), which, messages, what);
        }
    }
}

/// Messages fed in equal pieces (the parts of a multipart upload read in step): every lane
/// count from one to full, several piece sizes, every tail length to a block.
#[test]
fn stepped_pieces_then_tails() {
    let source = data(64 * 1024);
    for (tier, algorithms) in tiers() {
        for &which in &algorithms {
            let block = if matches!(which, Which::Sha384 | Which::Sha512) {
                128
            } else {
                64
            };
            for lanes in 1..=tier.lanes(which) {
                for (steps, blocks_per_step) in [(0, 0), (1, 1), (2, 3), (3, 2)] {
                    for tail_len in [
                        0,
                        1,
                        block / 2 - 9,
                        block - 17,
                        block - 16,
                        block - 1,
                        block,
                        2 * block + 5,
                    ] {
                        let per_message = steps * blocks_per_step * block + tail_len;
                        let message = |lane: usize| {
                            let start = lane * 811 % (source.len() - per_message);
                            &source[start..start + per_message]
                        };
                        let pieces: Vec<Vec<&[u8]>> = (0..steps)
                            .map(|step| {
                                (0..lanes)
                                    .map(|lane| {
                                        let at = step * blocks_per_step * block;
                                        &message(lane)[at..at + blocks_per_step * block]
                                    })
                                    .collect()
                            })
                            .collect();
                        let tails: Vec<&[u8]> = (0..lanes)
                            .map(|lane| &message(lane)[per_message - tail_len..])
                            .collect();
                        let digests = tier.stepped(which, &pieces, &tails);
                        assert_eq!(digests.len(), lanes);
                        for (lane, digest) in digests.iter().enumerate() {
                            assert_eq!(
                                *digest,
                                reference(which, message(lane)),
                                "{which:?} on {}: {lanes} lanes, {steps} steps of {blocks_per_step} blocks, tail {tail_len}",
                                tier.name()
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Each named truth table computes the function its name says, on the model (which derives
/// the function from the table bit by bit) and on every vector tier here.
#[test]
fn truth_tables_compute_their_functions() {
    let a = [0xF0F0_F0F0u32, 0x1234_5678, 0, u32::MAX];
    let b = [0xCCCC_CCCCu32, 0x9ABC_DEF0, u32::MAX, 0x0F0F_0F0F];
    let c = [0xAAAA_AAAAu32, 0x0FED_CBA9, 0x5555_5555, 0];
    let expect =
        |f: fn(u32, u32, u32) -> u32| -> [u32; 4] { std::array::from_fn(|i| f(a[i], b[i], c[i])) };
    let ops = Model::<u32, 4>::new();
    assert_eq!(
        ops.ternary::<{ table::CHOOSE }>(a, b, c),
        expect(|a, b, c| (a & b) | (!a & c))
    );
    assert_eq!(
        ops.ternary::<{ table::CHOOSE_BY_C }>(a, b, c),
        expect(|a, b, c| (a & c) | (b & !c))
    );
    assert_eq!(
        ops.ternary::<{ table::XOR3 }>(a, b, c),
        expect(|a, b, c| a ^ b ^ c)
    );
    assert_eq!(
        ops.ternary::<{ table::MD5_I }>(a, b, c),
        expect(|a, b, c| b ^ (a | !c))
    );
    assert_eq!(
        ops.ternary::<{ table::MAJORITY }>(a, b, c),
        expect(|a, b, c| (a & b) | (a & c) | (b & c))
    );
    // Every operation of every vector tier agrees with the model on random words.
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(ops) = crate::kernels::lanes::avx512::Avx512x16::new() {
            agrees_with_model::<_, 16>(ops);
        }
        if let Some(ops) = crate::kernels::lanes::avx512::Avx512x8::new() {
            agrees_with_model::<_, 8>(ops);
        }
        if let Some(ops) = crate::kernels::lanes::avx2::Avx2x16::new() {
            agrees_with_model::<_, 16>(ops);
        }
        if let Some(ops) = crate::kernels::lanes::avx2::Avx2x4::new() {
            agrees_with_model::<_, 4>(ops);
        }
    }
    #[cfg(target_arch = "aarch64")]
    if let Some(ops) = crate::kernels::lanes::neon::NeonX16::new() {
        agrees_with_model::<_, 16>(ops);
    }
}

/// Each operation of `ops` against the model's, on random vectors, including an odd truth
/// table no kernel uses (0x5B), which AVX2 and NEON compute by their generic fallback, and
/// every rotate amount.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn agrees_with_model<L: Lanes, const N: usize>(ops: L)
where
    L::Word: From<u32> + super::Word,
{
    let model = Model::<L::Word, N>::new();
    let mut random = Random(99);
    let mut word = || -> L::Word {
        let high: L::Word = (random.next() as u32).into();
        high
    };
    for _ in 0..50 {
        let x: [L::Word; N] = std::array::from_fn(|_| word());
        let y: [L::Word; N] = std::array::from_fn(|_| word());
        let z: [L::Word; N] = std::array::from_fn(|_| word());
        let (vx, vy, vz) = (ops.load_words(&x), ops.load_words(&y), ops.load_words(&z));
        let out = |v: L::Vector| {
            let mut words = [L::Word::default(); N];
            ops.store_words(v, &mut words);
            words
        };
        assert_eq!(out(ops.add(vx, vy)), model.add(x, y));
        assert_eq!(out(ops.xor(vx, vy)), model.xor(x, y));
        assert_eq!(out(ops.splat(x[0])), model.splat(x[0]));
        macro_rules! shifts {
            ($($bits:literal)*) => {$(
                assert_eq!(out(ops.rotate_left::<$bits>(vx)), model.rotate_left::<$bits>(x));
                assert_eq!(out(ops.rotate_right::<$bits>(vx)), model.rotate_right::<$bits>(x));
                assert_eq!(out(ops.shift_right::<$bits>(vx)), model.shift_right::<$bits>(x));
            )*};
        }
        shifts!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31);
        macro_rules! ternary {
            ($($table:expr),*) => {$(
                assert_eq!(
                    out(ops.ternary::<{ $table }>(vx, vy, vz)),
                    model.ternary::<{ $table }>(x, y, z),
                    "table {:#x}", $table
                );
            )*};
        }
        ternary!(
            table::CHOOSE,
            table::CHOOSE_BY_C,
            table::XOR3,
            table::MD5_I,
            table::MAJORITY,
            0x5B
        );
    }
}

/// A thread's lane windows are kept from call to call and grown only to what a message needs:
/// small messages first, then ones that need more of each window, then ones past it (read a
/// window at a time), then small ones again, pulled in that order on one thread, each call
/// against the reference.
#[test]
fn windows_grown_from_call_to_call_keep_every_digest() {
    let window = multi::WINDOW;
    let source = data(2 * window + 300);
    let rounds: [&[usize]; 4] = [
        &[0, 1, 100, 129],
        &[5_000, window - 1, window, 300],
        &[window + 1, 2 * window + 129, 64],
        &[3, 200],
    ];
    let mut fresh = true;
    for (tier, algorithms) in tiers() {
        // The model is slow, and runs the same window code as the vector tiers.
        if tier.name().starts_with("model") {
            continue;
        }
        for &which in &algorithms {
            for (round, lengths) in rounds.iter().enumerate() {
                // Enough messages to fill every lane and refill some.
                let messages: Vec<&[u8]> = (0..tier.lanes(which) + 3)
                    .map(|i| {
                        let len = lengths[i % lengths.len()];
                        let offset = (i * 61) % (source.len() - len + 1);
                        &source[offset..offset + len]
                    })
                    .collect();
                check(tier.as_ref(), which, &messages, &format!("round {round}"));
                if std::mem::take(&mut fresh) {
                    // The first call on this thread's windows: small messages touch no more of
                    // a window than they fill (a whole window is 16 pages of memory a lane).
                    assert!(multi::longest_window() <= 129, "{}", tier.name());
                }
            }
        }
    }
}
