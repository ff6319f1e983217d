//! The engine table: one [`Engine`] per (algorithm, kernel), the one place that says what an
//! implementation needs of the CPU, how to stream, hash at once or hash many messages side by
//! side with it, and how a large file may be split across threads for it.
//!
//! Each module that owns code lists its own engines (`portable`, `crates`, `x86_64`,
//! `aarch64`); the table is their concatenation, fastest first. Choosing is three steps, as
//! in crc-fast:
//! detect the CPU once ([`Capabilities::get`]), select purely ([`select`], tested on made-up
//! CPUs), and cache the choice per algorithm ([`chosen`]), which also runs the engine's
//! self-check the first time: an engine that disagrees with the portable one on a few known
//! messages is reported once and replaced by the portable engine, so a kernel that misbehaves
//! on some CPU can never print a wrong digest.

use super::detect::{self, Capabilities, Kernel};
use super::{Algorithm, Digest};
use std::sync::OnceLock;

/// A streaming hash state of one engine.
pub trait Streaming: Send {
    fn update(&mut self, data: &[u8]);
    fn finalize(self: Box<Self>) -> Digest;
}

/// Several messages of equal length hashed side by side as they are read in step (the parts
/// of an S3 multipart upload): pieces of whole blocks, then each message's last bytes.
pub trait Stepped: Send {
    /// One piece of each message; every piece the same length, a multiple of 128 bytes (a
    /// whole number of blocks of every lane algorithm).
    fn update(&mut self, pieces: &[&[u8]]);
    /// The digests, after each message's last bytes `tails[i]` (all the same length).
    fn finish(self: Box<Self>, tails: &[&[u8]]) -> Vec<Digest>;
}

/// Messages a lane engine reads piece by piece as its lanes reach them (files, read as they are
/// hashed, so each piece is still in cache when it is hashed). Pieces are at most
/// [`PULL_WINDOW`] bytes, and a message no longer than that is read in one call. A message
/// that is in memory already (a mapped file) is hashed in place instead.
pub trait Pull {
    /// How many messages.
    fn count(&self) -> usize;
    /// Message `index`'s length in bytes.
    fn len(&self, index: usize) -> u64;
    /// Message `index` whole, when it is in memory: then it is never read.
    fn whole(&self, _index: usize) -> Option<&[u8]> {
        None
    }
    /// Fills `out` with bytes `at..at + out.len()` of message `index`.
    fn read(&self, index: usize, at: u64, out: &mut [u8]) -> std::io::Result<()>;
}

/// The most a lane engine asks a [`Pull`] for at once.
pub const PULL_WINDOW: usize = super::lanes::multi::WINDOW;

/// How an engine hashes several messages side by side.
#[derive(Clone, Copy, Debug)]
pub struct Lanes {
    /// How many messages it hashes at once.
    pub width: usize,
    /// Whole messages, any number, any lengths: the digests in order.
    pub many: fn(&[&[u8]]) -> Vec<Digest>,
    /// Up to `width` messages fed in step.
    pub stepped: fn() -> Box<dyn Stepped>,
    /// Whole messages pulled as the lanes reach them, any number, any lengths: the digests in
    /// order, or the error of a message whose read failed.
    pub pull: fn(&dyn Pull) -> Vec<std::io::Result<Digest>>,
}

/// How one large file may be hashed on several threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// One thread, in order.
    Whole,
    /// Windows on every core, their CRCs combined in order.
    CrcCombine,
    /// BLAKE3's own tree, on every core (the blake3 crate's rayon path, as b3sum does).
    Blake3Tree,
}

/// One implementation of one algorithm.
pub struct Engine {
    pub algorithm: Algorithm,
    pub kernel: Kernel,
    /// Whether a CPU with these capabilities can run it.
    pub runs_on: fn(&Capabilities) -> bool,
    /// Whether it is the one to choose on such a CPU when nothing earlier in the table is
    /// (only where a faster path exists that the table cannot see, as crc-fast's own 512-bit
    /// folding beside our 256-bit one); `runs_on` is checked too.
    pub preferred_on: fn(&Capabilities) -> bool,
    /// What it needs, for messages: "AVX-512F and AVX-512BW".
    pub needs: &'static str,
    /// Where its code comes from, and what a crate that chooses inside picks on such a CPU.
    pub describe: fn(&Capabilities) -> String,
    pub streaming: fn() -> Box<dyn Streaming>,
    pub one_shot: fn(&[u8]) -> Digest,
    pub lanes: Option<Lanes>,
    pub split: Split,
}

/// For engines preferred wherever they run.
pub(crate) fn always(_: &Capabilities) -> bool {
    true
}

impl Engine {
    /// A streaming state on this engine.
    pub fn hasher(&self) -> super::Hasher {
        super::Hasher::from_engine((self.streaming)())
    }

    /// A whole message at once.
    pub fn hash(&self, data: &[u8]) -> Digest {
        (self.one_shot)(data)
    }

    /// Several whole messages: side by side those that keep the lanes busy
    /// ([`Engine::side_by_side`]), the others one by one on the single-stream code.
    pub fn hash_many(&self, messages: &[&[u8]]) -> Vec<Digest> {
        let lengths: Vec<usize> = messages.iter().map(|message| message.len()).collect();
        let together = self.side_by_side(&lengths);
        let mut digests: Vec<Option<Digest>> = vec![None; messages.len()];
        if let Some(lanes) = self.lanes.filter(|_| together.contains(&true)) {
            let (indices, lane_messages): (Vec<usize>, Vec<&[u8]>) = messages
                .iter()
                .enumerate()
                .filter(|(index, _)| together[*index])
                .map(|(index, message)| (index, *message))
                .unzip();
            for (index, digest) in indices.into_iter().zip((lanes.many)(&lane_messages)) {
                digests[index] = Some(digest);
            }
        }
        digests
            .into_iter()
            .zip(messages)
            .map(|(digest, message)| digest.unwrap_or_else(|| self.hash(message)))
            .collect()
    }

    /// Which of a batch of messages (given by their lengths) to hash side by side: none
    /// without lanes; otherwise all but the longest ones that would be left alone in a lane at
    /// the end (a message longer than the batch's total over the lane count), and none if what
    /// remains fills fewer than half the lanes, because a lane alone runs at a fraction of the
    /// single-stream code (a sixteenth of 3.9 GB/s for SHA-256, against 2.0 for SHA-NI). The
    /// others are worth more on their own, each on its own core. Applied to what it chose, it
    /// chooses all of it again.
    pub fn side_by_side(&self, lengths: &[usize]) -> Vec<bool> {
        let Some(lanes) = self.lanes else {
            return vec![false; lengths.len()];
        };
        let mut together = vec![true; lengths.len()];
        let mut order: Vec<usize> = (0..lengths.len()).collect();
        order.sort_by_key(|&index| std::cmp::Reverse(lengths[index]));
        let mut total: usize = lengths.iter().sum();
        let mut count = lengths.len();
        for index in order {
            if lengths[index].saturating_mul(lanes.width) <= total {
                break;
            }
            together[index] = false;
            total -= lengths[index];
            count -= 1;
        }
        if 2 * count < lanes.width {
            together.fill(false);
        }
        together
    }

    /// How many messages to hand [`Engine::hash_many`] at once: two lanes' worth, so a lane
    /// that finishes early finds another message waiting; one without lanes.
    pub fn batch_size(&self) -> usize {
        self.lanes.map_or(1, |lanes| 2 * lanes.width)
    }

    /// Whether this CPU runs it.
    pub fn runs_here(&self) -> bool {
        (self.runs_on)(&Capabilities::get())
    }

    /// "name (where it comes from)", for `--debug` and `fasthash --bench`.
    pub fn label(&self) -> String {
        format!(
            "{} ({})",
            self.kernel.name(),
            (self.describe)(&Capabilities::get())
        )
    }
}

/// Every engine, fastest first within each algorithm.
pub fn all() -> impl Iterator<Item = &'static Engine> {
    #[cfg(target_arch = "x86_64")]
    let ours = super::x86_64::ENGINES;
    #[cfg(target_arch = "aarch64")]
    let ours = super::aarch64::ENGINES;
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let ours: &[Engine] = &[];
    ours.iter()
        .chain(super::crates::ENGINES)
        .chain(super::portable::ENGINES)
}

/// An algorithm's engines, fastest first.
pub fn of(algorithm: Algorithm) -> impl Iterator<Item = &'static Engine> {
    all()
        .filter(move |engine| engine.algorithm == algorithm)
        .chain(super::blake2b::shorter(algorithm))
}

/// The engine of `algorithm` on `kernel`, if it has one.
pub fn find(algorithm: Algorithm, kernel: Kernel) -> Option<&'static Engine> {
    of(algorithm).find(|engine| engine.kernel == kernel)
}

/// The algorithm's portable engine: plain code that needs nothing of the CPU.
pub fn portable(algorithm: Algorithm) -> &'static Engine {
    find(algorithm, Kernel::Portable).expect("every algorithm has a portable engine")
}

/// The engine `algorithm` runs on a CPU with `caps` when nothing is forced: the first one in
/// the table that runs there and is preferred there.
pub fn select(algorithm: Algorithm, caps: &Capabilities) -> &'static Engine {
    of(algorithm)
        .find(|engine| (engine.runs_on)(caps) && (engine.preferred_on)(caps))
        .unwrap_or_else(|| portable(algorithm))
}

/// The engine `algorithm` runs on in this process: forced by `FASTHASH_KERNEL`, or selected
/// for this CPU; in either case checked once, on first use, against the portable engine. An
/// invalid `FASTHASH_KERNEL` is reported by the CLI before any hashing; here it counts as unset.
pub fn chosen(algorithm: Algorithm) -> &'static Engine {
    static CHOSEN: [OnceLock<&'static Engine>; super::ALGORITHM_COUNT] =
        [const { OnceLock::new() }; super::ALGORITHM_COUNT];
    // Each BLAKE2b length has one engine, the portable one: nothing to choose or check.
    if let Some(engine) = super::blake2b::shorter(algorithm) {
        return engine;
    }
    CHOSEN[algorithm.index()].get_or_init(|| {
        let caps = Capabilities::get();
        let wanted = detect::forced()
            .ok()
            .and_then(|forced| forced.get(algorithm))
            .and_then(|kernel| find(algorithm, kernel))
            .filter(|engine| (engine.runs_on)(&caps))
            .unwrap_or_else(|| select(algorithm, &caps));
        checked(wanted, &mut |message| warn(&message))
    })
}

/// Whether `algorithm`'s engine is the one `FASTHASH_KERNEL` asked for, for `--debug`.
pub fn forced(algorithm: Algorithm) -> bool {
    matches!(detect::forced(), Ok(forced) if forced.get(algorithm) == Some(chosen(algorithm).kernel))
}

/// Where the engine table's one warning (a failed self-check) goes. The program installs it,
/// knowing its own name and how it writes messages; the kernels write nothing themselves.
type WarningSink = Box<dyn Fn(&str) + Send + Sync>;
static WARNING_SINK: OnceLock<WarningSink> = OnceLock::new();

/// Sends the engine table's warnings to `sink` (the first sink set stays).
pub fn set_warning_sink(sink: impl Fn(&str) + Send + Sync + 'static) {
    let _ = WARNING_SINK.set(Box::new(sink));
}

fn warn(message: &str) {
    if let Some(sink) = WARNING_SINK.get() {
        sink(message);
    }
}

/// `engine` if it passes its self-check, else the portable engine, after one warning.
fn checked(engine: &'static Engine, warn: &mut dyn FnMut(String)) -> &'static Engine {
    let portable = portable(engine.algorithm);
    if std::ptr::eq(engine, portable) || self_check(engine, portable) {
        return engine;
    }
    warn(format!(
        "kernel {} for {} failed its self-check; using portable",
        engine.kernel.name(),
        engine.algorithm
    ));
    portable
}

/// The lengths the self-check hashes: each side of the block edges of every algorithm (64 and
/// 128 bytes, the 55/56 and 111/112 padding edges, XXH3's 240-byte and 1 KiB edges), of mixed
/// lengths, so lanes end at different blocks (and, repeated past the lane count, are refilled).
const SELF_CHECK_LENGTHS: [usize; 20] = [
    0, 1, 3, 55, 56, 63, 64, 65, 111, 112, 127, 128, 129, 240, 241, 1023, 1024, 1025, 2111, 4099,
];

/// Messages in memory, pulled as files are: for the self-check and the tests.
pub(crate) struct Slices<'a>(pub &'a [&'a [u8]]);

impl Pull for Slices<'_> {
    fn count(&self) -> usize {
        self.0.len()
    }
    fn len(&self, index: usize) -> u64 {
        self.0[index].len() as u64
    }
    fn read(&self, index: usize, at: u64, out: &mut [u8]) -> std::io::Result<()> {
        let at = at as usize;
        out.copy_from_slice(&self.0[index][at..at + out.len()]);
        Ok(())
    }
}

/// Whether `engine` gives the reference engine's digests on the self-check's messages, through
/// each of its paths: one-shot, streaming in uneven pieces, many side by side (in memory and
/// pulled), and in step.
/// About 12 KB of hashing: microseconds on a fast engine, tens of them on a portable reference.
pub(crate) fn self_check(engine: &Engine, reference: &Engine) -> bool {
    let source: Vec<u8> = (0..4200u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    // At odd offsets too, so no engine relies on aligned input.
    let messages: Vec<&[u8]> = SELF_CHECK_LENGTHS
        .iter()
        .enumerate()
        .map(|(index, &len)| &source[index % 7..index % 7 + len])
        .collect();
    let expected: Vec<Digest> = messages.iter().map(|m| reference.hash(m)).collect();
    for (message, want) in messages.iter().zip(&expected) {
        if engine.hash(message) != *want {
            return false;
        }
        let mut hasher = engine.hasher();
        let (first, rest) = message.split_at(message.len() / 3);
        hasher.update(first);
        hasher.update(&[]);
        hasher.update(rest);
        if hasher.finalize() != *want {
            return false;
        }
    }
    let Some(lanes) = engine.lanes else {
        return true;
    };
    // More messages than the engine has lanes, so lanes are refilled.
    let count = messages.len() + lanes.width;
    let many: Vec<&[u8]> = messages.iter().copied().cycle().take(count).collect();
    let many_expected: Vec<Digest> = expected.iter().copied().cycle().take(count).collect();
    if (lanes.many)(&many) != many_expected {
        return false;
    }
    // The same messages pulled piece by piece, as files are.
    let pulled = (lanes.pull)(&Slices(&many));
    if pulled.len() != count
        || pulled
            .iter()
            .zip(&many_expected)
            .any(|(got, want)| got.as_ref().ok() != Some(want))
    {
        return false;
    }
    // In step: as many messages as there are lanes, three blocks of 128 bytes and a tail.
    let count = lanes.width;
    let stepped: Vec<&[u8]> = (0..count)
        .map(|i| &source[i * 7..i * 7 + 3 * 128 + 45])
        .collect();
    let mut state = (lanes.stepped)();
    state.update(&stepped.iter().map(|m| &m[..256]).collect::<Vec<_>>());
    state.update(&stepped.iter().map(|m| &m[256..384]).collect::<Vec<_>>());
    let digests = state.finish(&stepped.iter().map(|m| &m[384..]).collect::<Vec<_>>());
    digests
        == stepped
            .iter()
            .map(|m| reference.hash(m))
            .collect::<Vec<_>>()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An engine of `$kernel` for `$algorithm` that runs the portable engine's code: each
    /// engine below makes one of its paths wrong on purpose.
    macro_rules! portable_as {
        ($algorithm:expr, $kernel:expr) => {
            Engine {
                algorithm: $algorithm,
                kernel: $kernel,
                runs_on: always,
                preferred_on: always,
                needs: "nothing",
                describe: |_| "wrong on purpose".into(),
                streaming: || (portable($algorithm).streaming)(),
                one_shot: |data| portable($algorithm).hash(data),
                lanes: None,
                split: Split::Whole,
            }
        };
    }

    /// A SHA-256 engine made wrong on purpose: its one-shot path flips a bit of one digest.
    static WRONG_ONE_SHOT: Engine = Engine {
        one_shot: |data| {
            let digest = portable(Algorithm::Sha256).hash(data);
            if data.len() != 1024 {
                return digest;
            }
            let mut bytes = digest.as_bytes().to_vec();
            bytes[5] ^= 0x10;
            Digest::from_slice(&bytes)
        },
        ..portable_as!(Algorithm::Sha256, Kernel::ShaExtensions)
    };

    /// An MD5 engine whose side-by-side path drops the last message's last byte.
    static WRONG_LANES: Engine = Engine {
        lanes: Some(Lanes {
            width: 4,
            many: |messages| {
                let mut digests: Vec<Digest> = messages
                    .iter()
                    .map(|m| portable(Algorithm::Md5).hash(m))
                    .collect();
                if let (Some(last), Some(message)) = (digests.last_mut(), messages.last()) {
                    *last =
                        portable(Algorithm::Md5).hash(&message[..message.len().saturating_sub(1)]);
                }
                digests
            },
            stepped: || unreachable!("the many-at-once check fails first"),
            pull: |_| unreachable!("the many-at-once check fails first"),
        }),
        ..portable_as!(Algorithm::Md5, Kernel::Avx512)
    };

    /// An MD5 engine right in memory, whose pulled path reads each message one byte short.
    static WRONG_PULL: Engine = Engine {
        lanes: Some(Lanes {
            width: 4,
            many: |messages| {
                messages
                    .iter()
                    .map(|m| portable(Algorithm::Md5).hash(m))
                    .collect()
            },
            stepped: || unreachable!("the pulled check fails first"),
            pull: |source| {
                (0..source.count())
                    .map(|index| {
                        let mut message = vec![0; source.len(index).saturating_sub(1) as usize];
                        source.read(index, 0, &mut message)?;
                        Ok(portable(Algorithm::Md5).hash(&message))
                    })
                    .collect()
            },
        }),
        ..WRONG_LANES
    };

    #[test]
    fn an_engine_that_fails_its_self_check_is_replaced_by_portable_with_one_warning() {
        for wrong in [&WRONG_ONE_SHOT, &WRONG_LANES, &WRONG_PULL] {
            let mut warnings = Vec::new();
            let engine = checked(wrong, &mut |message| warnings.push(message));
            assert!(std::ptr::eq(engine, portable(wrong.algorithm)));
            assert_eq!(
                warnings,
                [format!(
                    "kernel {} for {} failed its self-check; using portable",
                    wrong.kernel.name(),
                    wrong.algorithm
                )]
            );
        }
    }

    #[test]
    fn every_engine_this_cpu_runs_passes_its_self_check() {
        for engine in all().filter(|engine| engine.runs_here()) {
            let mut warnings = Vec::new();
            let kept = checked(engine, &mut |message| warnings.push(message));
            assert!(std::ptr::eq(kept, engine), "{}", engine.label());
            assert!(warnings.is_empty(), "{warnings:?}");
        }
    }

    #[test]
    fn only_messages_that_keep_the_lanes_busy_go_side_by_side() {
        let lanes = Engine {
            lanes: Some(Lanes {
                width: 16,
                many: |_| unreachable!("not hashed here"),
                stepped: || unreachable!("not hashed here"),
                pull: |_| unreachable!("not hashed here"),
            }),
            ..WRONG_ONE_SHOT
        };
        // A large file among many small ones goes alone; the small ones fill the lanes.
        let mut mixed = vec![4096; 40];
        mixed.push(3_900_000);
        let split = lanes.side_by_side(&mixed);
        assert_eq!(split.iter().filter(|&&t| t).count(), 40);
        assert!(!split[40]);
        // Equal files that fill the lanes go side by side; half as many (break-even at best)
        // and two files go one by one, on every core.
        assert!(lanes.side_by_side(&[262_144; 32]).iter().all(|&t| t));
        assert!(lanes.side_by_side(&[262_144; 16]).iter().all(|&t| t));
        assert!(lanes.side_by_side(&[262_144; 8]).iter().all(|&t| !t));
        assert!(lanes.side_by_side(&[3_000_000; 2]).iter().all(|&t| !t));
        assert!(lanes.side_by_side(&[]).is_empty());
        assert!(WRONG_ONE_SHOT.side_by_side(&[4096; 40]).iter().all(|&t| !t));
    }

    #[test]
    fn every_algorithm_has_one_portable_engine_and_each_pair_is_listed_once() {
        for algorithm in Algorithm::all() {
            let kernels: Vec<Kernel> = of(algorithm).map(|engine| engine.kernel).collect();
            assert_eq!(kernels.last(), Some(&Kernel::Portable), "{algorithm}");
            for (index, kernel) in kernels.iter().enumerate() {
                assert!(
                    !kernels[index + 1..].contains(kernel),
                    "{algorithm}: {kernel:?} twice"
                );
            }
            let portable = portable(algorithm);
            assert!((portable.runs_on)(&Capabilities::default()));
            assert!(portable.lanes.is_none());
        }
    }
}
