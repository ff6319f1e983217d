//! Every lane kernel on every implementation of the lane operations this machine runs, against
//! the reference crates (md-5, sha1, sha2): the model at each tier's lane count everywhere, the
//! intrinsics where the CPU has them.

use super::md5::{Md5, MD5};
use super::model::Model;
use super::multi::{self, LaneHash, StepState, Variant};
use super::sha1::{Sha1, SHA1};
use super::sha2::{Sha256, Sha512, SHA224, SHA256, SHA384, SHA512};
use super::{table, Lanes};
use crate::kernels::engine::{Pull, Slices};
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
    fn lanes(&self, which: Which) -> usize;
    fn many(&self, which: Which, messages: &[&[u8]]) -> Vec<Digest>;
    /// Messages pulled as the lanes reach them, as files are.
    fn pulled(&self, which: Which, source: &mut dyn Pull) -> Vec<io::Result<Digest>>;
    /// Pieces of equal whole-block length, then equal tails: the digests.
    fn stepped(&self, which: Which, pieces: &[Vec<&[u8]>], tails: &[&[u8]]) -> Vec<Digest>;
}

fn stepped_on<H: LaneHash, L: Lanes<Word = H::Word>>(
    ops: L,
    variant: &Variant<H::Word>,
    pieces: &[Vec<&[u8]>],
    tails: &[&[u8]],
) -> Vec<Digest> {
    let mut state = StepState::new(variant);
    for step in pieces {
        multi::step::<H, L>(ops, &mut state, step);
    }
    multi::finish::<H, L>(ops, &state, variant, tails)
}

/// The model, with `N32` lanes of u32 and `N64` of u64.
struct ModelTier<const N32: usize, const N64: usize>;

impl<const N32: usize, const N64: usize> Tier for ModelTier<N32, N64> {
    fn name(&self) -> String {
        format!("model ({N32} × u32, {N64} × u64)")
    }

    fn lanes(&self, which: Which) -> usize {
        if matches!(which, Which::Sha384 | Which::Sha512) {
            N64
        } else {
            N32
        }
    }

    fn many(&self, which: Which, messages: &[&[u8]]) -> Vec<Digest> {
        let (m32, m64) = (Model::<u32, N32>::new(), Model::<u64, N64>::new());
        match which {
            Which::Md5 => multi::digest_many::<Md5, _>(m32, &MD5, messages),
            Which::Sha1 => multi::digest_many::<Sha1, _>(m32, &SHA1, messages),
            Which::Sha224 => multi::digest_many::<Sha256, _>(m32, &SHA224, messages),
            Which::Sha256 => multi::digest_many::<Sha256, _>(m32, &SHA256, messages),
            Which::Sha384 => multi::digest_many::<Sha512, _>(m64, &SHA384, messages),
            Which::Sha512 => multi::digest_many::<Sha512, _>(m64, &SHA512, messages),
        }
    }

    fn pulled(&self, which: Which, source: &mut dyn Pull) -> Vec<io::Result<Digest>> {
        let (m32, m64) = (Model::<u32, N32>::new(), Model::<u64, N64>::new());
        match which {
            Which::Md5 => multi::pull_many::<Md5, _>(m32, &MD5, source),
            Which::Sha1 => multi::pull_many::<Sha1, _>(m32, &SHA1, source),
            Which::Sha224 => multi::pull_many::<Sha256, _>(m32, &SHA224, source),
            Which::Sha256 => multi::pull_many::<Sha256, _>(m32, &SHA256, source),
            Which::Sha384 => multi::pull_many::<Sha512, _>(m64, &SHA384, source),
            Which::Sha512 => multi::pull_many::<Sha512, _>(m64, &SHA512, source),
        }
    }

    fn stepped(&self, which: Which, pieces: &[Vec<&[u8]>], tails: &[&[u8]]) -> Vec<Digest> {
        let (m32, m64) = (Model::<u32, N32>::new(), Model::<u64, N64>::new());
        match which {
            Which::Md5 => stepped_on::<Md5, _>(m32, &MD5, pieces, tails),
            Which::Sha1 => stepped_on::<Sha1, _>(m32, &SHA1, pieces, tails),
            Which::Sha224 => stepped_on::<Sha256, _>(m32, &SHA224, pieces, tails),
            Which::Sha256 => stepped_on::<Sha256, _>(m32, &SHA256, pieces, tails),
            Which::Sha384 => stepped_on::<Sha512, _>(m64, &SHA384, pieces, tails),
            Which::Sha512 => stepped_on::<Sha512, _>(m64, &SHA512, pieces, tails),
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;
    use crate::kernels::lanes::avx2::Avx2x8;
    use crate::kernels::lanes::avx512::{Avx512x16, Avx512x8};
    use crate::kernels::lanes::multi::LaneTier;

    pub(super) struct Avx512(pub Avx512x16, pub Avx512x8);

    impl Tier for Avx512 {
        fn name(&self) -> String {
            "AVX-512 (16 × u32, 8 × u64)".into()
        }

        fn lanes(&self, which: Which) -> usize {
            if matches!(which, Which::Sha384 | Which::Sha512) {
                8
            } else {
                16
            }
        }

        fn many(&self, which: Which, messages: &[&[u8]]) -> Vec<Digest> {
            let Avx512(x16, x8) = *self;
            match which {
                Which::Md5 => x16.digest_many::<Md5>(&MD5, messages),
                Which::Sha1 => x16.digest_many::<Sha1>(&SHA1, messages),
                Which::Sha224 => x16.digest_many::<Sha256>(&SHA224, messages),
                Which::Sha256 => x16.digest_many::<Sha256>(&SHA256, messages),
                Which::Sha384 => x8.digest_many::<Sha512>(&SHA384, messages),
                Which::Sha512 => x8.digest_many::<Sha512>(&SHA512, messages),
            }
        }

        fn pulled(&self, which: Which, source: &mut dyn Pull) -> Vec<io::Result<Digest>> {
            let Avx512(x16, x8) = *self;
            match which {
                Which::Md5 => x16.pull_many::<Md5>(&MD5, source),
                Which::Sha1 => x16.pull_many::<Sha1>(&SHA1, source),
                Which::Sha224 => x16.pull_many::<Sha256>(&SHA224, source),
                Which::Sha256 => x16.pull_many::<Sha256>(&SHA256, source),
                Which::Sha384 => x8.pull_many::<Sha512>(&SHA384, source),
                Which::Sha512 => x8.pull_many::<Sha512>(&SHA512, source),
            }
        }

        fn stepped(&self, which: Which, pieces: &[Vec<&[u8]>], tails: &[&[u8]]) -> Vec<Digest> {
            let Avx512(x16, x8) = *self;
            macro_rules! run {
                ($token:expr, $h:ty, $variant:expr) => {{
                    let mut state = StepState::new(&$variant);
                    for step in pieces {
                        $token.step::<$h>(&mut state, step);
                    }
                    $token.finish::<$h>(&state, &$variant, tails)
                }};
            }
            match which {
                Which::Md5 => run!(x16, Md5, MD5),
                Which::Sha1 => run!(x16, Sha1, SHA1),
                Which::Sha224 => run!(x16, Sha256, SHA224),
                Which::Sha256 => run!(x16, Sha256, SHA256),
                Which::Sha384 => run!(x8, Sha512, SHA384),
                Which::Sha512 => run!(x8, Sha512, SHA512),
            }
        }
    }

    pub(super) fn avx512() -> Option<Avx512> {
        Some(Avx512(Avx512x16::new()?, Avx512x8::new()?))
    }

    pub(super) fn avx2() -> Option<Lanes32<Avx2x8>> {
        Avx2x8::new().map(|token| Lanes32 {
            token,
            name: "AVX2 (8 × u32)",
        })
    }
}

/// A tier of 32-bit lanes only (AVX2, NEON): MD5, SHA-1 and SHA-224/256.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
struct Lanes32<T> {
    token: T,
    name: &'static str,
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
impl<T: multi::LaneTier<Word = u32>> Tier for Lanes32<T> {
    fn name(&self) -> String {
        self.name.into()
    }

    fn lanes(&self, _: Which) -> usize {
        T::LANES
    }

    fn many(&self, which: Which, messages: &[&[u8]]) -> Vec<Digest> {
        let token = self.token;
        match which {
            Which::Md5 => token.digest_many::<Md5>(&MD5, messages),
            Which::Sha1 => token.digest_many::<Sha1>(&SHA1, messages),
            Which::Sha224 => token.digest_many::<Sha256>(&SHA224, messages),
            Which::Sha256 => token.digest_many::<Sha256>(&SHA256, messages),
            _ => unreachable!("{} lanes are 32-bit", self.name),
        }
    }

    fn pulled(&self, which: Which, source: &mut dyn Pull) -> Vec<io::Result<Digest>> {
        let token = self.token;
        match which {
            Which::Md5 => token.pull_many::<Md5>(&MD5, source),
            Which::Sha1 => token.pull_many::<Sha1>(&SHA1, source),
            Which::Sha224 => token.pull_many::<Sha256>(&SHA224, source),
            Which::Sha256 => token.pull_many::<Sha256>(&SHA256, source),
            _ => unreachable!("{} lanes are 32-bit", self.name),
        }
    }

    fn stepped(&self, which: Which, pieces: &[Vec<&[u8]>], tails: &[&[u8]]) -> Vec<Digest> {
        fn run<H: LaneHash<Word = u32>, T: multi::LaneTier<Word = u32>>(
            token: T,
            variant: &Variant<u32>,
            pieces: &[Vec<&[u8]>],
            tails: &[&[u8]],
        ) -> Vec<Digest> {
            let mut state = StepState::new(variant);
            for step in pieces {
                token.step::<H>(&mut state, step);
            }
            token.finish::<H>(&state, variant, tails)
        }
        match which {
            Which::Md5 => run::<Md5, T>(self.token, &MD5, pieces, tails),
            Which::Sha1 => run::<Sha1, T>(self.token, &SHA1, pieces, tails),
            Which::Sha224 => run::<Sha256, T>(self.token, &SHA224, pieces, tails),
            Which::Sha256 => run::<Sha256, T>(self.token, &SHA256, pieces, tails),
            _ => unreachable!("{} lanes are 32-bit", self.name),
        }
    }
}

#[cfg(target_arch = "aarch64")]
fn neon() -> Option<Lanes32<crate::kernels::lanes::neon::NeonX16>> {
    crate::kernels::lanes::neon::NeonX16::new().map(|token| Lanes32 {
        token,
        name: "NEON (16 × u32)",
    })
}

const LANES32: [Which; 4] = [Which::Md5, Which::Sha1, Which::Sha224, Which::Sha256];

/// The tiers to test here, with the algorithms each runs. The model runs at the lane counts
/// of every vector tier (16 and 8 lanes of u32, 8 and 4 of u64), whatever this CPU has.
fn tiers() -> Vec<(Box<dyn Tier>, Vec<Which>)> {
    // Only x86-64 and AArch64 add vector tiers to the model's.
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        allow(unused_mut)
    )]
    let mut tiers: Vec<(Box<dyn Tier>, Vec<Which>)> = vec![
        (Box::new(ModelTier::<16, 8>), ALL.to_vec()),
        (Box::new(ModelTier::<8, 4>), ALL.to_vec()),
    ];
    #[cfg(target_arch = "x86_64")]
    {
        match x86::avx512() {
            Some(tier) => tiers.push((Box::new(tier), ALL.to_vec())),
            None => eprintln!("AVX-512 lanes not run: this CPU lacks AVX-512F/BW"),
        }
        match x86::avx2() {
            Some(tier) => tiers.push((Box::new(tier), LANES32.to_vec())),
            None => eprintln!("AVX2 lanes not run: this CPU lacks AVX2"),
        }
    }
    #[cfg(target_arch = "aarch64")]
    match neon() {
        Some(tier) => tiers.push((Box::new(tier), LANES32.to_vec())),
        None => eprintln!("NEON lanes not run: this CPU lacks NEON"),
    }
    for (tier, _) in &tiers {
        eprintln!("lane tier run: {}", tier.name());
    }
    tiers
}

/// `messages` side by side on `tier`, in memory and pulled, against the reference.
fn check(tier: &dyn Tier, which: Which, messages: &[&[u8]], what: &str) {
    check_in_memory(tier, which, messages, what);
    let pulled = tier.pulled(which, &mut Slices(messages));
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
/// are read first) or in a later window.
struct Failing<'a> {
    messages: &'a [&'a [u8]],
    /// Message index: the offset from which its reads fail.
    fail_from: Vec<Option<u64>>,
}

impl Pull for Failing<'_> {
    fn count(&self) -> usize {
        self.messages.len()
    }
    fn len(&self, index: usize) -> u64 {
        self.messages[index].len() as u64
    }
    fn read(&mut self, index: usize, at: u64, out: &mut [u8]) -> io::Result<()> {
        if self.fail_from[index].is_some_and(|from| at + out.len() as u64 > from) {
            return Err(io::Error::other(format!("message {index} fails")));
        }
        Slices(self.messages).read(index, at, out)
    }
}

/// Pulled messages across several windows (lengths on each side of the window's multiples),
/// with some reads failing: those messages get their own error, every other message its
/// digest, whatever lane it shared the vectors with.
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
            let mut failing = Failing {
                messages: &messages,
                fail_from: fail_from.clone(),
            };
            let pulled = tier.pulled(which, &mut failing);
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
/// cover); the kernels are the same code on every tier.
#[test]
fn a_large_message_among_small_ones() {
    let big = data(33 * 1024 * 1024 + 13);
    let mut messages: Vec<&[u8]> = vec![&big];
    messages.extend((0..20).map(|i| &big[i * 1000..i * 1000 + 64 * i + i]));
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
            check_in_memory(
                tier.as_ref(),
                which,
                &messages,
                "33 MiB + 13 among 20 small",
            );
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
        if let Some(ops) = crate::kernels::lanes::avx2::Avx2x8::new() {
            agrees_with_model::<_, 8>(ops);
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
