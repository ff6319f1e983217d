//! Messages onto lanes: the scheduling and padding every lane kernel shares.
//!
//! MD5, SHA-1 and SHA-2 all pad a message the same way: the bytes, 0x80, zeros, and the length
//! in bits in the last two words of the last block (little-endian for MD5, big-endian for SHA).
//! So a lane reads its message's whole blocks in place and its last one or two blocks from a
//! small padded copy of the tail; when a lane's message ends its state is read out and the
//! next waiting message starts in that lane. Idle lanes hash a block of zeros nobody reads.
//!
//! Messages come whole, in memory, or are pulled (files): then each lane reads its message
//! [`WINDOW`] bytes at a time into a window of its own just before hashing them, so what the
//! read copied is still in the core's cache when the lanes load it.

use super::{Lanes, Word, MAX_LANES};
use crate::kernels::engine::Pull;
use crate::kernels::Digest;
use std::cell::RefCell;
use std::convert::Infallible;
use std::io;

/// How much of its message a pulling lane reads at once: a whole number of blocks of every
/// lane algorithm, and small enough that every lane's window (1 MiB for sixteen lanes) stays in
/// a core's L2 cache between the read and the hash. Reading each file whole first sent 8 MiB a
/// batch out to memory and back.
pub(crate) const WINDOW: usize = crate::kernels::engine::PULL_WINDOW;

/// An algorithm whose compression function runs on lanes.
pub(crate) trait LaneHash {
    type Word: Word;
    /// Words and the length field are big-endian (SHA) or little-endian (MD5).
    const BIG_ENDIAN: bool;
    /// One block of sixteen words, for every lane: `state` updated in place.
    fn compress<L: Lanes<Word = Self::Word>>(
        ops: L,
        state: &mut [L::Vector; 8],
        block: &[L::Vector; 16],
    );
}

/// What tells apart the members of a family sharing a compression function (SHA-224 and
/// SHA-256, SHA-384 and SHA-512): the initial state and how much of the final state is output.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Variant<W> {
    pub initial: [W; 8],
    pub digest_len: usize,
}

const fn block_len<W: Word>() -> usize {
    16 * W::BYTES
}

/// One message's place in a lane: whole blocks come from the message itself (in memory, or
/// pulled into the lane's window), the padded tail from `tail`.
struct Lane<'a> {
    message: usize,
    /// The message's whole blocks in memory; None when they are pulled.
    data: Option<&'a [u8]>,
    tail: [u8; 256],
    whole_blocks: usize,
    total_blocks: usize,
    next_block: usize,
    /// Pulled messages: the blocks `window_first..window_end` are in the lane's window.
    window_first: usize,
    window_end: usize,
}

impl<'a> Lane<'a> {
    /// A message whose whole blocks are `whole_blocks` (in `data`, or to be pulled) and whose
    /// last bytes are `rest`, hashed as the end of a message of `total_len` bytes (more than
    /// its own when the blocks before it were hashed already).
    fn new<H: LaneHash>(
        message: usize,
        data: Option<&'a [u8]>,
        whole_blocks: usize,
        rest: &[u8],
        total_len: u64,
    ) -> Lane<'a> {
        let block = block_len::<H::Word>();
        let length_field = 2 * H::Word::BYTES;
        let mut tail = [0u8; 256];
        tail[..rest.len()].copy_from_slice(rest);
        tail[rest.len()] = 0x80;
        let tail_blocks = if rest.len() < block - length_field {
            1
        } else {
            2
        };
        let end = tail_blocks * block;
        let bits = u128::from(total_len).wrapping_mul(8);
        if H::BIG_ENDIAN {
            tail[end - length_field..end].copy_from_slice(&bits.to_be_bytes()[16 - length_field..]);
        } else {
            tail[end - length_field..end].copy_from_slice(&bits.to_le_bytes()[..length_field]);
        }
        Lane {
            message,
            data,
            tail,
            whole_blocks,
            total_blocks: whole_blocks + tail_blocks,
            next_block: 0,
            window_first: 0,
            window_end: 0,
        }
    }

    /// `data` in memory, hashed as the end of a message of `total_len` bytes.
    fn in_memory<H: LaneHash>(message: usize, data: &'a [u8], total_len: u64) -> Lane<'a> {
        let whole_blocks = data.len() / block_len::<H::Word>();
        let rest = &data[whole_blocks * block_len::<H::Word>()..];
        Lane::new::<H>(message, Some(data), whole_blocks, rest, total_len)
    }

    /// The lane's next block: in the message, in the tail, or in `window` (read from `source`
    /// first when the window has run out). Inlined into the loop over lanes, where it runs
    /// sixteen times a block; reading the next window is out of line.
    #[inline(always)]
    fn block<S: Source<'a>>(
        &mut self,
        block: usize,
        window: &mut Vec<u8>,
        source: &mut S,
    ) -> Result<*const u8, S::Error> {
        if self.next_block >= self.whole_blocks {
            return Ok(self.tail[(self.next_block - self.whole_blocks) * block..].as_ptr());
        }
        if let Some(data) = self.data {
            return Ok(data[self.next_block * block..].as_ptr());
        }
        if self.next_block >= self.window_end {
            self.refill(block, window, source)?;
        }
        Ok(window[(self.next_block - self.window_first) * block..].as_ptr())
    }

    /// Reads the lane's next window of blocks from `source`.
    #[cold]
    #[inline(never)]
    fn refill<S: Source<'a>>(
        &mut self,
        block: usize,
        window: &mut Vec<u8>,
        source: &mut S,
    ) -> Result<(), S::Error> {
        let blocks = (WINDOW / block).min(self.whole_blocks - self.next_block);
        window.resize(WINDOW, 0);
        let at = (self.next_block * block) as u64;
        source.read(self.message, at, &mut window[..blocks * block])?;
        self.window_first = self.next_block;
        self.window_end = self.next_block + blocks;
        Ok(())
    }
}

/// Where [`digest_all`] gets its messages: slices in memory (which cannot fail) or a [`Pull`].
trait Source<'a> {
    type Error;
    fn count(&self) -> usize;
    fn len(&self, index: usize) -> u64;
    /// Message `index` whole, when it is in memory.
    fn in_memory(&self, index: usize) -> Option<&'a [u8]>;
    /// Bytes `at..at + out.len()` of message `index`.
    fn read(&mut self, index: usize, at: u64, out: &mut [u8]) -> Result<(), Self::Error>;
}

struct InMemory<'a>(&'a [&'a [u8]]);

impl<'a> Source<'a> for InMemory<'a> {
    type Error = Infallible;
    fn count(&self) -> usize {
        self.0.len()
    }
    fn len(&self, index: usize) -> u64 {
        self.0[index].len() as u64
    }
    fn in_memory(&self, index: usize) -> Option<&'a [u8]> {
        Some(self.0[index])
    }
    fn read(&mut self, index: usize, at: u64, out: &mut [u8]) -> Result<(), Infallible> {
        // Never called: every message is in memory. Copies as `Slices` does, were it ever.
        let at = at as usize;
        out.copy_from_slice(&self.0[index][at..at + out.len()]);
        Ok(())
    }
}

struct Pulled<'a>(&'a dyn Pull);

impl<'a> Source<'a> for Pulled<'a> {
    type Error = io::Error;
    fn count(&self) -> usize {
        self.0.count()
    }
    fn len(&self, index: usize) -> u64 {
        self.0.len(index)
    }
    fn in_memory(&self, index: usize) -> Option<&'a [u8]> {
        let pull: &'a dyn Pull = self.0;
        pull.whole(index)
    }
    fn read(&mut self, index: usize, at: u64, out: &mut [u8]) -> io::Result<()> {
        self.0.read(index, at, out)
    }
}

/// Every lane's state, as words: `state[word][lane]`.
type Spilled<W> = [[W; MAX_LANES]; 8];

fn digest_of<W: Word>(spilled: &Spilled<W>, lane: usize, big_endian: bool, len: usize) -> Digest {
    let mut bytes = [0u8; 64];
    for (word, chunk) in spilled.iter().zip(bytes.chunks_exact_mut(W::BYTES)) {
        word[lane].put_bytes(chunk, big_endian);
    }
    Digest::from_slice(&bytes[..len])
}

/// The digests of `messages`, in order, computed side by side on `ops`' lanes.
#[inline(always)]
pub(crate) fn digest_many<H: LaneHash, L: Lanes<Word = H::Word>>(
    ops: L,
    variant: &Variant<H::Word>,
    messages: &[&[u8]],
) -> Vec<Digest> {
    digest_all::<H, L, _>(ops, variant, InMemory(messages))
        .into_iter()
        .map(|digest| match digest {
            Ok(digest) => digest,
            Err(never) => match never {},
        })
        .collect()
}

/// The digests of the messages `source` gives, each read as its lane reaches it; a message
/// whose read fails has that error in its place, and the others are not disturbed.
#[inline(always)]
pub(crate) fn pull_many<H: LaneHash, L: Lanes<Word = H::Word>>(
    ops: L,
    variant: &Variant<H::Word>,
    source: &dyn Pull,
) -> Vec<io::Result<Digest>> {
    digest_all::<H, L, _>(ops, variant, Pulled(source))
}

#[inline(always)]
fn digest_all<'a, H: LaneHash, L: Lanes<Word = H::Word>, S: Source<'a>>(
    ops: L,
    variant: &Variant<H::Word>,
    mut source: S,
) -> Vec<Result<Digest, S::Error>> {
    let block = block_len::<H::Word>();
    let idle_block = [0u8; 128];
    let mut digests: Vec<Option<Result<Digest, S::Error>>> =
        (0..source.count()).map(|_| None).collect();
    let mut lanes: [Option<Lane>; MAX_LANES] = Default::default();
    // Kept per thread from call to call: fresh windows each batch of files cost a page fault
    // every 4 KiB of them, more system time than the reads they save.
    let mut windows = WINDOWS.with(|windows| std::mem::take(&mut *windows.borrow_mut()));
    // Longest first: lanes then finish close together, and what runs with lanes idle at the
    // end is the shortest messages, not a large file alone at a sixteenth of the lanes' speed.
    let mut waiting: Vec<usize> = (0..source.count()).collect();
    waiting.sort_by_key(|&index| std::cmp::Reverse(source.len(index)));
    let mut waiting = waiting.into_iter();
    let mut spilled: Spilled<H::Word> = [[H::Word::default(); MAX_LANES]; 8];
    let mut state = [ops.splat(H::Word::default()); 8];
    loop {
        // Start waiting messages in idle lanes; the state goes through memory only then.
        let idle = lanes[..L::LANES].iter().any(Option::is_none);
        if idle && waiting.len() > 0 {
            for (word, vector) in spilled.iter_mut().zip(&state) {
                ops.store_words(*vector, word);
            }
            for (index, (slot, window)) in
                lanes[..L::LANES].iter_mut().zip(&mut windows).enumerate()
            {
                while slot.is_none() {
                    let Some(message) = waiting.next() else {
                        break;
                    };
                    match start::<H, S>(&mut source, message, window) {
                        Ok(lane) => {
                            *slot = Some(lane);
                            for (word, initial) in spilled.iter_mut().zip(variant.initial) {
                                word[index] = initial;
                            }
                        }
                        Err(error) => digests[message] = Some(Err(error)),
                    }
                }
            }
            for (vector, word) in state.iter_mut().zip(&spilled) {
                *vector = ops.load_words(word);
            }
        }
        if lanes.iter().all(Option::is_none) {
            break;
        }
        let mut blocks = [idle_block.as_ptr(); MAX_LANES];
        for ((pointer, slot), window) in blocks.iter_mut().zip(&mut lanes).zip(&mut windows) {
            if let Some(lane) = slot {
                match lane.block(block, window, &mut source) {
                    Ok(block) => *pointer = block,
                    // The lane hashes the idle block for nothing this time; the next waiting
                    // message starts in it.
                    Err(error) => {
                        digests[lane.message] = Some(Err(error));
                        *slot = None;
                    }
                }
            }
        }
        // SAFETY: every pointer starts a whole block: inside a message, inside a lane's window
        // or `tail` (256 bytes, two blocks of at most 128), or `idle_block`, all alive here.
        let words = unsafe { ops.load_blocks(&blocks[..L::LANES], H::BIG_ENDIAN) };
        H::compress(ops, &mut state, &words);
        let mut finished = false;
        for lane in lanes.iter_mut().flatten() {
            lane.next_block += 1;
            finished |= lane.next_block == lane.total_blocks;
        }
        if finished {
            for (word, vector) in spilled.iter_mut().zip(&state) {
                ops.store_words(*vector, word);
            }
            for (index, slot) in lanes[..L::LANES].iter_mut().enumerate() {
                if let Some(lane) = slot.take_if(|lane| lane.next_block == lane.total_blocks) {
                    digests[lane.message] = Some(Ok(digest_of(
                        &spilled,
                        index,
                        H::BIG_ENDIAN,
                        variant.digest_len,
                    )));
                }
            }
        }
    }
    WINDOWS.with(|cell| *cell.borrow_mut() = windows);
    digests
        .into_iter()
        .map(|digest| digest.expect("every message has a result"))
        .collect()
}

thread_local! {
    /// Each lane's window, for pulled messages.
    static WINDOWS: RefCell<[Vec<u8>; MAX_LANES]> = RefCell::new(Default::default());
}

/// The longest of this thread's lane windows, in bytes: what pulling has made of them.
#[cfg(test)]
pub(crate) fn longest_window() -> usize {
    WINDOWS.with(|windows| windows.borrow().iter().map(Vec::len).max().unwrap_or(0))
}

/// Message `message` of `source` in a lane. A pulled message that fits the lane's window is
/// read into it whole, in one read (most files of a tree: one system call each); a longer one
/// has its last bytes read now, into the lane's padded tail, and its blocks as the lane reaches
/// them.
fn start<'a, H: LaneHash, S: Source<'a>>(
    source: &mut S,
    message: usize,
    window: &mut Vec<u8>,
) -> Result<Lane<'a>, S::Error> {
    if let Some(data) = source.in_memory(message) {
        return Ok(Lane::in_memory::<H>(message, data, data.len() as u64));
    }
    let block = block_len::<H::Word>();
    let len = source.len(message);
    let whole_blocks = (len / block as u64) as usize;
    let rest_len = (len % block as u64) as usize;
    if len <= WINDOW as u64 {
        let len = len as usize;
        // Grown to what the message needs, not to a whole window: a thread that only ever
        // pulls small files (and the self-check, which every run with lanes pays) then touches
        // a few KiB of each window instead of 64. Sixteen whole windows are 256 fresh pages: a
        // one-file SHA-256 run had 487 page faults and took 2.07 ms, and has 228 and takes
        // 1.72 ms this way (Intel Xeon, 2 cores, medians of 400; `sha256sum` 0.80 ms).
        if window.len() < len {
            window.resize(len, 0);
        }
        source.read(message, 0, &mut window[..len])?;
        let mut lane = Lane::new::<H>(
            message,
            None,
            whole_blocks,
            &window[len - rest_len..len],
            len as u64,
        );
        lane.window_end = whole_blocks;
        return Ok(lane);
    }
    let mut rest = [0u8; 128];
    let rest = &mut rest[..rest_len];
    source.read(message, (whole_blocks * block) as u64, rest)?;
    Ok(Lane::new::<H>(message, None, whole_blocks, rest, len))
}

/// Up to `LANES` messages of equal length, fed piece by piece as they are read (the parts of
/// an S3 multipart upload, read in step): the lanes' state between pieces, as words.
#[derive(Clone, Debug)]
pub(crate) struct StepState<W: Word> {
    spilled: Spilled<W>,
    length: u64,
}

impl<W: Word> StepState<W> {
    pub(crate) fn new(variant: &Variant<W>) -> StepState<W> {
        StepState {
            spilled: variant.initial.map(|word| [word; MAX_LANES]),
            length: 0,
        }
    }
}

/// Hashes one piece of each message: every piece the same length, a whole number of blocks.
#[inline(always)]
pub(crate) fn step<H: LaneHash, L: Lanes<Word = H::Word>>(
    ops: L,
    step: &mut StepState<H::Word>,
    pieces: &[&[u8]],
) {
    let block = block_len::<H::Word>();
    let len = pieces.first().map_or(0, |piece| piece.len());
    assert!(pieces.len() <= L::LANES);
    assert!(len.is_multiple_of(block) && pieces.iter().all(|piece| piece.len() == len));
    let idle_block = [0u8; 128];
    let mut state = [ops.splat(H::Word::default()); 8];
    for (vector, words) in state.iter_mut().zip(&step.spilled) {
        *vector = ops.load_words(words);
    }
    for at in (0..len).step_by(block) {
        let mut blocks = [idle_block.as_ptr(); MAX_LANES];
        for (pointer, piece) in blocks.iter_mut().zip(pieces) {
            *pointer = piece[at..].as_ptr();
        }
        // SAFETY: each pointer starts a whole block inside a piece, or `idle_block`.
        let words = unsafe { ops.load_blocks(&blocks[..L::LANES], H::BIG_ENDIAN) };
        H::compress(ops, &mut state, &words);
    }
    for (word, vector) in step.spilled.iter_mut().zip(&state) {
        ops.store_words(*vector, word);
    }
    step.length += len as u64;
}

/// Each message's digest after its last bytes `tails[i]` (all the same length; whole blocks of
/// them are hashed in step first).
#[inline(always)]
pub(crate) fn finish<H: LaneHash, L: Lanes<Word = H::Word>>(
    ops: L,
    step: &StepState<H::Word>,
    variant: &Variant<H::Word>,
    tails: &[&[u8]],
) -> Vec<Digest> {
    let block = block_len::<H::Word>();
    let tail_len = tails.first().map_or(0, |tail| tail.len());
    assert!(tails.len() <= L::LANES);
    assert!(tails.iter().all(|tail| tail.len() == tail_len));
    let whole = tail_len / block * block;
    let mut stepped;
    let step = if whole > 0 {
        stepped = step.clone();
        let pieces: Vec<&[u8]> = tails.iter().map(|tail| &tail[..whole]).collect();
        self::step::<H, L>(ops, &mut stepped, &pieces);
        &stepped
    } else {
        step
    };
    let tails: Vec<&[u8]> = tails.iter().map(|tail| &tail[whole..]).collect();
    let tail_len = tail_len - whole;
    let total = step.length + tail_len as u64;
    let lanes: Vec<Lane> = tails
        .iter()
        .enumerate()
        .map(|(index, tail)| Lane::in_memory::<H>(index, tail, total))
        .collect();
    let idle_block = [0u8; 128];
    let mut state = [ops.splat(H::Word::default()); 8];
    for (vector, words) in state.iter_mut().zip(&step.spilled) {
        *vector = ops.load_words(words);
    }
    let tail_blocks = lanes.first().map_or(0, |lane| lane.total_blocks);
    for at in 0..tail_blocks {
        let mut blocks = [idle_block.as_ptr(); MAX_LANES];
        for (pointer, lane) in blocks.iter_mut().zip(&lanes) {
            *pointer = lane.tail[at * block..].as_ptr();
        }
        // SAFETY: each pointer starts a block inside a lane's 256-byte tail, or `idle_block`.
        let words = unsafe { ops.load_blocks(&blocks[..L::LANES], H::BIG_ENDIAN) };
        H::compress(ops, &mut state, &words);
    }
    let mut spilled = step.spilled;
    for (word, vector) in spilled.iter_mut().zip(&state) {
        ops.store_words(*vector, word);
    }
    (0..tails.len())
        .map(|lane| digest_of(&spilled, lane, H::BIG_ENDIAN, variant.digest_len))
        .collect()
}

/// A lane tier: the three operations of [`multi`](self) on one implementation of the lane
/// operations, each compiled for that implementation's instruction set.
pub(crate) trait LaneTier: Lanes + Send + 'static {
    /// The tier's token, where this CPU can run it.
    fn make() -> Option<Self>;
    fn digest_many<H: LaneHash<Word = Self::Word>>(
        self,
        variant: &Variant<Self::Word>,
        messages: &[&[u8]],
    ) -> Vec<Digest>;
    fn pull_many<H: LaneHash<Word = Self::Word>>(
        self,
        variant: &Variant<Self::Word>,
        source: &dyn Pull,
    ) -> Vec<io::Result<Digest>>;
    fn step<H: LaneHash<Word = Self::Word>>(
        self,
        state: &mut StepState<Self::Word>,
        pieces: &[&[u8]],
    );
    fn finish<H: LaneHash<Word = Self::Word>>(
        self,
        state: &StepState<Self::Word>,
        variant: &Variant<Self::Word>,
        tails: &[&[u8]],
    ) -> Vec<Digest>;
}

/// The model needs no instruction set: its tier runs the generic code as it is.
impl<W: Word, const N: usize> LaneTier for super::model::Model<W, N> {
    fn make() -> Option<Self> {
        Some(Self::new())
    }

    fn digest_many<H: LaneHash<Word = W>>(
        self,
        variant: &Variant<W>,
        messages: &[&[u8]],
    ) -> Vec<Digest> {
        digest_many::<H, _>(self, variant, messages)
    }

    fn pull_many<H: LaneHash<Word = W>>(
        self,
        variant: &Variant<W>,
        source: &dyn Pull,
    ) -> Vec<io::Result<Digest>> {
        pull_many::<H, _>(self, variant, source)
    }

    fn step<H: LaneHash<Word = W>>(self, state: &mut StepState<W>, pieces: &[&[u8]]) {
        step::<H, _>(self, state, pieces)
    }

    fn finish<H: LaneHash<Word = W>>(
        self,
        state: &StepState<W>,
        variant: &Variant<W>,
        tails: &[&[u8]],
    ) -> Vec<Digest> {
        finish::<H, _>(self, state, variant, tails)
    }
}

/// Implements [`LaneTier`] for a token of the lane operations: each operation through one
/// function compiled for the tier's instruction set (`$features`), into which the kernel and
/// the lane operations inline.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! lane_tier {
    ($token:ty, $word:ty, $features:literal) => {
        impl $crate::kernels::lanes::multi::LaneTier for $token {
            fn make() -> Option<Self> {
                <$token>::new()
            }

            $crate::kernels::lanes::multi::tier_method!(
                $token, $word, $features,
                fn digest_many(
                    variant: &$crate::kernels::lanes::multi::Variant<$word>,
                    messages: &[&[u8]]
                ) -> Vec<$crate::kernels::Digest>
            );

            $crate::kernels::lanes::multi::tier_method!(
                $token, $word, $features,
                fn pull_many(
                    variant: &$crate::kernels::lanes::multi::Variant<$word>,
                    source: &dyn $crate::kernels::engine::Pull
                ) -> Vec<std::io::Result<$crate::kernels::Digest>>
            );

            $crate::kernels::lanes::multi::tier_method!(
                $token, $word, $features,
                fn step(
                    state: &mut $crate::kernels::lanes::multi::StepState<$word>,
                    pieces: &[&[u8]]
                )
            );

            $crate::kernels::lanes::multi::tier_method!(
                $token, $word, $features,
                fn finish(
                    state: &$crate::kernels::lanes::multi::StepState<$word>,
                    variant: &$crate::kernels::lanes::multi::Variant<$word>,
                    tails: &[&[u8]]
                ) -> Vec<$crate::kernels::Digest>
            );
        }
    };
}
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) use lane_tier;

/// One method of [`lane_tier!`]: this module's function of the same name, called through a
/// function compiled for `$features`. `#[target_feature]` goes on a function, so each method
/// needs its own.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! tier_method {
    (
        $token:ty, $word:ty, $features:literal,
        fn $method:ident($($arg:ident: $type:ty),*) $(-> $output:ty)?
    ) => {
        fn $method<H: $crate::kernels::lanes::multi::LaneHash<Word = $word>>(
            self,
            $($arg: $type),*
        ) $(-> $output)? {
            #[target_feature(enable = $features)]
            fn run<H: $crate::kernels::lanes::multi::LaneHash<Word = $word>>(
                ops: $token,
                $($arg: $type),*
            ) $(-> $output)? {
                $crate::kernels::lanes::multi::$method::<H, _>(ops, $($arg),*)
            }
            // SAFETY: the token exists only where the CPU has `$features`.
            unsafe { run::<H>(self, $($arg),*) }
        }
    };
}
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) use tier_method;
