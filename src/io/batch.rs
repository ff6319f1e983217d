//! The hash stage for a batch of inputs: those the engine's lanes can take are hashed side by
//! side (sixteen at a time on AVX-512 for MD5, SHA-1 and SHA-256), the others one by one on
//! the pool through [`super::read`]; results come back in the batch's order, kept in
//! `--cache`. The way in is [`hash_inputs`] (and, for several algorithms over one read,
//! [`super::multi`], from the same parts).
//!
//! The lanes' files from [`MAP_BESIDE_FROM`] up, on one thread, are mapped into an [`Arena`]
//! that is unmapped once a batch, so the lanes hash the page cache in place while they
//! compute.

use super::mapped::Arena;
use super::open::{Ahead, Opened};
use super::read::{
    cached, changed, changed_error, count, fault_error, hash_file_as_opened, hash_input,
    hash_input_with, is_small, small_size, Hashing, MmapChoice, ReadOptions,
};
use super::Input;
use crate::kernels::engine;
use crate::kernels::table;
use crate::kernels::{Algorithm, Digest};
use std::cell::Cell;
use std::fs::{File, Metadata};
use std::io;

/// Hashes several inputs, in order: regular files under [`MAP_THRESHOLD`] that keep the
/// engine's lanes busy ([`crate::kernels::engine::Engine::side_by_side`]) are hashed side by
/// side (sixteen at a time on AVX-512 for MD5, SHA-1 and SHA-256), each from the bytes the open
/// stage read or read a window at a time as its lane reaches it; everything else one by one on
/// the pool, exactly as [`hash_input`]. `ahead` is what the open stage did for each input.
pub(crate) fn hash_inputs(
    inputs: &[&Input],
    mut ahead: Ahead,
    algorithm: Algorithm,
    options: &ReadOptions,
) -> Vec<io::Result<Digest>> {
    if let Some(results) = in_order(inputs, &mut ahead, &algorithm, options) {
        return results;
    }
    // Every path opened once, with the state of those small enough for the lanes; which of
    // those keep the engine's lanes busy decides what goes to them. The others are hashed the
    // usual way, each on its own, on every core, beside the lanes.
    let engine = table::chosen(algorithm);
    let Batch {
        mut results,
        states,
        opened,
        mut alone,
    } = open_batch(inputs, &mut ahead, &algorithm, engine.lanes.is_some());
    let small_lengths: Vec<usize> = opened
        .iter()
        .filter_map(|(_, _, small)| small.as_ref().map(|before| before.len() as usize))
        .collect();
    let (together, lanes) = engine.onto_checked_lanes(&small_lengths);
    let mut together = together.into_iter();
    let on = where_to_hash(|| bytes_known(&opened, &alone));
    let shortest_mapped = shortest_mapped_beside(options, on);
    let mut arena = ARENA.with(|arena| arena.take());
    let mut side_by_side = Vec::new();
    for (index, source, small) in opened {
        match small.filter(|_| together.next() == Some(true)) {
            Some(before) => {
                let mapped = match &source {
                    Source::File { file, .. } => shortest_mapped
                        .filter(|&shortest| before.len() >= shortest)
                        .and_then(|_| arena.get_or_insert_with(Arena::new).map(file, before.len())),
                    Source::Bytes(_) => None,
                };
                side_by_side.push(LaneFile {
                    index,
                    source,
                    before,
                    mapped,
                });
            }
            None => alone.push((index, Some(source))),
        }
    }
    let files = Files {
        files: side_by_side,
        arena: arena.as_ref(),
    };
    let (pulled, hashed) = join_on(
        on,
        || match lanes {
            Some(lanes) if !files.files.is_empty() => (lanes.pull)(&files),
            _ => Vec::new(),
        },
        |on| hash_each(alone, inputs, &algorithm, options, on),
    );
    for (position, (lane_file, result)) in files.files.iter().zip(pulled).enumerate() {
        results[lane_file.index] = Some(match result {
            Ok(digest) => match files.fault_while_mapped(position) {
                Some(error) => Err(error),
                None => lane_file.unchanged().map(|()| digest),
            },
            // Shorter than its size said (a file that shrank, one in /sys): the usual way,
            // from the start.
            Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => {
                hash_input(inputs[lane_file.index], algorithm, options)
            }
            Err(error) => Err(error),
        });
    }
    drop(files);
    if let Some(mut arena) = arena {
        arena.clear();
        ARENA.with(|cell| cell.set(Some(arena)));
    }
    finish_batch(results, hashed, &states, &algorithm)
}

/// A batch of at most this many bytes, met on a thread outside the pool (the caller's, in a
/// run of a few files named), is hashed on that thread, lanes included: starting the pool's
/// threads for it costs more than the hashing. `fasthash -a md5` of two files of two bytes
/// took 1.42 to 1.51 ms of CPU and 1.66 to 1.73 ms in all, against 1.62 to 1.71 and 1.91 to
/// 2.03 on the pool (Intel Xeon, 2 cores, three alternated `perf stat` runs of 200). A tool
/// that follows the process's own thread alone (`strace` without `-f`, as coreutils'
/// tests/cksum/cksum-c.sh injects a read error) then sees every read.
const FEW_BYTES: u64 = 256 * 1024;

/// Where a batch's files are hashed: on the pool, or on this thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum On {
    Pool,
    ThisThread,
}

/// [`On::ThisThread`] on a thread that is not the pool's, for a batch of `bytes` (asked only
/// there; None: not known) at most [`FEW_BYTES`].
pub(crate) fn where_to_hash(bytes: impl FnOnce() -> Option<u64>) -> On {
    if rayon::current_thread_index().is_some() {
        return On::Pool;
    }
    match bytes() {
        Some(bytes) if bytes <= FEW_BYTES => On::ThisThread,
        _ => On::Pool,
    }
}

/// `a` and `b`, side by side on the pool or one after the other on this thread.
pub(crate) fn join_on<A: Send, B: Send>(
    on: On,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce(On) -> B + Send,
) -> (A, B) {
    match on {
        On::Pool => rayon::join(a, || b(On::Pool)),
        On::ThisThread => (a(), b(On::ThisThread)),
    }
}

/// The bytes of a batch's files where every one is a regular file (read whole, or open: its
/// state as opened, else asked now); None where one is not (a FIFO, standard input).
pub(crate) fn bytes_known(
    opened: &[(usize, Source, Option<Metadata>)],
    alone: &[(usize, Option<Source>)],
) -> Option<u64> {
    let opened = opened.iter().map(|(_, source, small)| match source {
        Source::Bytes(bytes) => Some(bytes.len() as u64),
        Source::File { file, before } => {
            let size = |state: &Metadata| state.is_file().then_some(state.len());
            match small.as_ref().or(before.as_ref()) {
                Some(state) => size(state),
                None => size(&file.metadata().ok()?),
            }
        }
    });
    // What is alone before the lanes choose is what is not a path.
    opened.chain(alone.iter().map(|_| None)).sum()
}

/// A batch of one input, or one that names standard input (read once, in order: a list that
/// names it stays sequential), hashed one input after the other; None for any other batch.
pub(crate) fn in_order<H: Hashing>(
    inputs: &[&Input],
    ahead: &mut Ahead,
    hashing: &H,
    options: &ReadOptions,
) -> Option<Vec<io::Result<H::Output>>> {
    let sequential = inputs.len() <= 1 || inputs.iter().any(|input| **input == Input::Stdin);
    sequential.then(|| one_by_one(inputs, ahead, hashing, options))
}

/// Inputs hashed one after the other on this thread, each from what the open stage did for it
/// (`ahead`) where it did something, else opened here.
pub(crate) fn one_by_one<H: Hashing>(
    inputs: &[&Input],
    ahead: &mut Ahead,
    hashing: &H,
    options: &ReadOptions,
) -> Vec<io::Result<H::Output>> {
    inputs
        .iter()
        .enumerate()
        .map(|(index, input)| match ahead.take(index) {
            Some(opened) => hash_opened_ahead(opened?, hashing, options),
            None => hash_input_with(input, hashing, options),
        })
        .collect()
}

/// One input the open stage opened or read: hashed from its bytes, or read from its file.
fn hash_opened_ahead<H: Hashing>(
    opened: Opened,
    hashing: &H,
    options: &ReadOptions,
) -> io::Result<H::Output> {
    match opened {
        Opened::Read { bytes, .. } => Ok(hash_bytes(&bytes, hashing)),
        Opened::Open { file, before } => hash_file_as_opened(&file, before, hashing, options),
    }
}

/// A whole file read in one call: there was no "while" for it to change during.
fn hash_bytes<H: Hashing>(bytes: &[u8], hashing: &H) -> H::Output {
    count(bytes.len());
    hashing.buffer(bytes)
}

/// Where a file of a batch is read from.
pub(crate) enum Source {
    /// Open: read by the hashing thread (or mapped); its state when opened, where known.
    File {
        file: File,
        before: Option<Metadata>,
    },
    /// Read whole by the open stage.
    Bytes(Vec<u8>),
}

/// A batch of paths once looked up in `--cache` and opened.
pub(crate) struct Batch<O> {
    /// Each input's result, where the cache gave it or opening failed.
    pub results: Vec<Option<io::Result<O>>>,
    /// With `--cache`: each opened file's state before it is read, to remember it by.
    pub states: Vec<Option<Metadata>>,
    /// Each opened file: its place, where it is read from, and its state when small enough to
    /// be read whole or by the lanes ([`small_size`]; None as well when not asked for).
    pub opened: Vec<(usize, Source, Option<Metadata>)>,
    /// Inputs to be hashed the usual way ([`hash_each`]), with their file when it is open:
    /// at first those that are not paths (nothing opened).
    pub alone: Vec<(usize, Option<Source>)>,
}

/// Every path of a batch taken from `--cache`, from what the open stage did (`ahead`), or
/// opened once here. `small_wanted`: whether the caller does anything with a small file's
/// state ([`small_size`]); without lanes to take them it would be one `fstat` a file for
/// nothing (2,000 files of 256 KiB: one in four of the run's `statx` calls).
pub(crate) fn open_batch<H: Hashing>(
    inputs: &[&Input],
    ahead: &mut Ahead,
    hashing: &H,
    small_wanted: bool,
) -> Batch<H::Output> {
    let cache = super::cache::active();
    let mut batch = Batch {
        results: inputs.iter().map(|_| None).collect(),
        states: inputs.iter().map(|_| None).collect(),
        opened: Vec::new(),
        alone: Vec::new(),
    };
    for (index, input) in inputs.iter().enumerate() {
        let Input::Path(path) = input else {
            batch.alone.push((index, None));
            continue;
        };
        if let Some(output) = cache.and_then(|cache| cached(cache, path, hashing)) {
            batch.results[index] = Some(Ok(output));
            continue;
        }
        let with_small = |file: File, before: Option<Metadata>| -> io::Result<_> {
            let (before, small) = match (small_wanted, before) {
                (true, Some(before)) => (Some(before.clone()), is_small(before)),
                (true, None) => {
                    let small = small_size(&file)?;
                    (small.clone(), small)
                }
                (false, before) => (before, None),
            };
            Ok((Source::File { file, before }, small))
        };
        let opened = match ahead.take(index) {
            Some(Ok(Opened::Read { bytes, before })) => Ok((Source::Bytes(bytes), Some(before))),
            Some(Ok(Opened::Open { file, before })) => with_small(file, before),
            Some(Err(error)) => Err(error),
            None => super::long_paths::open_file(path).and_then(|file| with_small(file, None)),
        };
        match opened {
            Ok((source, small)) => {
                if cache.is_some() {
                    let state = match (&small, &source) {
                        (Some(before), _) => Ok(before.clone()),
                        (None, Source::File { file, .. }) => file.metadata(),
                        (None, Source::Bytes(_)) => unreachable!("bytes come with their state"),
                    };
                    match state {
                        Ok(before) => batch.states[index] = Some(before),
                        Err(error) => {
                            batch.results[index] = Some(Err(error));
                            continue;
                        }
                    }
                }
                batch.opened.push((index, source, small))
            }
            Err(error) => batch.results[index] = Some(Err(error)),
        }
    }
    batch
}

/// The inputs of a batch hashed one by one, on the pool or on this thread (`on`), as
/// [`hash_input_with`] does: each with its place in the batch, and its file when already
/// opened (None: opened here).
pub(crate) fn hash_each<H: Hashing>(
    alone: Vec<(usize, Option<Source>)>,
    inputs: &[&Input],
    hashing: &H,
    options: &ReadOptions,
    on: On,
) -> Vec<(usize, io::Result<H::Output>)> {
    use rayon::prelude::*;
    let hash_one = |(index, source): (usize, Option<Source>)| {
        let result = match source {
            Some(Source::File { file, before }) => {
                hash_file_as_opened(&file, before, hashing, options)
            }
            Some(Source::Bytes(bytes)) => Ok(hash_bytes(&bytes, hashing)),
            None => hash_input_with(inputs[index], hashing, options),
        };
        (index, result)
    };
    match on {
        On::Pool => alone.into_par_iter().map(hash_one).collect(),
        On::ThisThread => alone.into_iter().map(hash_one).collect(),
    }
}

/// A batch's results in input order, with those of the inputs hashed one by one
/// ([`hash_each`]) put in their places, and what was hashed kept in `--cache`, each under the
/// state its file was opened in (`states`: None where the result came from elsewhere: the
/// cache itself, standard input).
pub(crate) fn finish_batch<H: Hashing>(
    mut results: Vec<Option<io::Result<H::Output>>>,
    hashed_each: Vec<(usize, io::Result<H::Output>)>,
    states: &[Option<Metadata>],
    hashing: &H,
) -> Vec<io::Result<H::Output>> {
    for (index, result) in hashed_each {
        results[index] = Some(result);
    }
    if let Some(cache) = super::cache::active() {
        for (state, result) in states.iter().zip(&results) {
            if let (Some(before), Some(Ok(output))) = (state, result) {
                hashing.remember(cache, before, output);
            }
        }
    }
    results
        .into_iter()
        .map(|result| result.expect("every input has a result"))
        .collect()
}

/// A file a batch hashes side by side: its place in the batch, where it is read from, its
/// state when opened, and its place in the arena when mapped.
struct LaneFile {
    index: usize,
    source: Source,
    before: Metadata,
    mapped: Option<usize>,
}

impl LaneFile {
    /// Ok when the file did not change while hashed. Read whole in one call (by the open stage,
    /// or as much as a lane's window holds): there was no "while" to change during. Read in
    /// several, or mapped: it must not have changed in between.
    fn unchanged(&self) -> io::Result<()> {
        let len = self.before.len();
        match &self.source {
            Source::File { file, .. }
                if self.mapped.is_some() || len > engine::PULL_WINDOW as u64 =>
            {
                if changed(&self.before, &file.metadata()?) {
                    return Err(changed_error());
                }
            }
            Source::File { .. } | Source::Bytes(_) => {}
        }
        count(len as usize);
        Ok(())
    }
}

/// The files a batch hashes side by side, pulled by the lanes as they reach them, or hashed in
/// place where mapped or already read.
struct Files<'a> {
    files: Vec<LaneFile>,
    arena: Option<&'a Arena>,
}

impl Files<'_> {
    /// File `index`'s arena and place in it, when it is mapped.
    fn mapped(&self, index: usize) -> Option<(&Arena, usize)> {
        Some((self.arena?, self.files[index].mapped?))
    }

    /// The error for file `index` when it was mapped and a page of it could not be read
    /// while hashed (see [`fault_error`]).
    fn fault_while_mapped(&self, index: usize) -> Option<io::Error> {
        let (arena, place) = self.mapped(index)?;
        match &self.files[index].source {
            Source::File { file, .. } => fault_error(file, arena.fault(place)),
            // Only files are mapped.
            Source::Bytes(_) => None,
        }
    }
}

impl engine::Pull for Files<'_> {
    fn count(&self) -> usize {
        self.files.len()
    }

    fn len(&self, index: usize) -> u64 {
        self.files[index].before.len()
    }

    fn whole(&self, index: usize) -> Option<&[u8]> {
        if let Source::Bytes(bytes) = &self.files[index].source {
            return Some(bytes);
        }
        let (arena, place) = self.mapped(index)?;
        Some(arena.bytes(place))
    }

    fn read(&self, index: usize, at: u64, out: &mut [u8]) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        match &self.files[index].source {
            Source::File { file, .. } => file.read_exact_at(out, at),
            Source::Bytes(bytes) => {
                let at = usize::try_from(at).unwrap_or(usize::MAX);
                let piece = bytes
                    .get(at..)
                    .and_then(|rest| rest.get(..out.len()))
                    .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
                out.copy_from_slice(piece);
                Ok(())
            }
        }
    }
}

/// Files of this size and more are mapped into the lanes (files hashed side by side); each
/// smaller one costs less to read than to map. Measured with MD5 on one thread, hot page
/// cache, mapped against read: 64 KiB files 78 against 92 ms, 128 KiB 60 against 80, 256 KiB
/// 98 against 152 (SHA-1 122 against 181, SHA-256 177 against 233, SHA-512 209 against 243):
/// the hash reads the page cache in place while it computes, where `read(2)` first copied it,
/// in time added to the hash's. On 4 KiB files mapping took 40% longer.
const MAP_BESIDE_FROM: u64 = 128 * 1024;

/// Up to this many threads the lanes' files are mapped. Mapping and unmapping take the
/// process's one address-space lock for writing, so on several threads they queue behind each
/// other where `read(2)` runs on every core at once: on two threads (5% of the samples
/// waiting on that lock) mapping measured from 13% faster (SHA-256) to 6% slower (SHA-512).
const MAP_BESIDE_THREADS: usize = 1;

/// The shortest lane file to map: None to read them all. The lanes run on this thread alone,
/// or beside the pool's others (asking their number starts the pool).
fn shortest_mapped_beside(options: &ReadOptions, on: On) -> Option<u64> {
    let threads = || match on {
        On::ThisThread => 1,
        On::Pool => rayon::current_num_threads(),
    };
    match options.mmap {
        MmapChoice::Never => None,
        MmapChoice::Always => Some(1),
        MmapChoice::Auto => (threads() <= MAP_BESIDE_THREADS).then_some(MAP_BESIDE_FROM),
    }
}

thread_local! {
    /// Each thread's arena for the lanes' mapped files, kept from batch to batch.
    static ARENA: Cell<Option<Arena>> = const { Cell::new(None) };
}
