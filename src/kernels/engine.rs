//! What an engine is: one [`Engine`] per (algorithm, kernel), the one place that says what an
//! implementation needs of the CPU, how to stream, hash at once or hash many messages side by
//! side with it, and how a large file may be split across threads for it. Each module that
//! owns code lists its own engines (`portable`, `crates`, `x86_64`, `aarch64`); `table` joins
//! them and chooses among them.

use super::algorithm::Algorithm;
use super::detect::{Capabilities, Kernel};
use super::digest::Digest;

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

/// The most a lane engine asks a [`Pull`] for at once: the lanes' window (`lanes::multi`), a
/// whole number of blocks of every lane algorithm and small enough to stay in a core's L2.
pub const PULL_WINDOW: usize = 64 * 1024;

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
    /// Its lanes as the table gives them: their width sizes batches; they are run only as
    /// [`super::table::checked_lanes`] returns them, after their self-check.
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
    /// ([`Engine::side_by_side`]) once the lanes have passed their self-check, the others one
    /// by one on the single-stream code.
    pub fn hash_many(&'static self, messages: &[&[u8]]) -> Vec<Digest> {
        let lengths: Vec<usize> = messages.iter().map(|message| message.len()).collect();
        let (together, lanes) = self.onto_checked_lanes(&lengths);
        let mut digests: Vec<Option<Digest>> = vec![None; messages.len()];
        if let Some(lanes) = lanes {
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

    /// [`Engine::side_by_side`], and the lanes to run those on. The lanes' self-check
    /// ([`super::table::checked_lanes`]) runs only once some message would go to them; lanes
    /// that fail it take none.
    pub fn onto_checked_lanes(&'static self, lengths: &[usize]) -> (Vec<bool>, Option<Lanes>) {
        let mut together = self.side_by_side(lengths);
        let lanes = together
            .contains(&true)
            .then(|| super::table::checked_lanes(self))
            .flatten();
        if lanes.is_none() {
            together.fill(false);
        }
        (together, lanes)
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

/// A streaming hasher for one algorithm, on one engine.
pub struct Hasher(Box<dyn Streaming>);

impl Hasher {
    pub(crate) fn from_engine(state: Box<dyn Streaming>) -> Hasher {
        Hasher(state)
    }

    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data)
    }

    pub fn finalize(self) -> Digest {
        self.0.finalize()
    }
}
