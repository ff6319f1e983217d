//! Reading one input through a hasher, by the fastest path its kind and size allow.
//!
//! Measured on the reference machine (2 cores, hot page cache, 1 GiB file; `cargo bench
//! --bench read` and `bench/peers.sh` reproduce them):
//! - `read(2)` into a 256 KiB buffer copies at about 6.7 GB/s on one core (`cat` manages the
//!   same), and the copy and the hash add up: XXH3 that way runs at 4.2 to 4.9 GB/s. The
//!   buffer is 64 KiB now ([`READ_BUFFER_SIZE`] says why).
//! - A mapping whose page tables are filled by `MADV_POPULATE_READ` costs about 13 GB/s of one
//!   core and copies nothing, so one helper thread populating 8 MiB windows ahead of the hasher
//!   leaves the hasher alone on the other core: XXH3 then runs at the speed it reads page-cache
//!   memory (8.5 GB/s here). The helper also drops each window's page-table entries once
//!   hashed (`MADV_DONTNEED`): resident memory stays at a few windows, and the unmap at the end
//!   (27 ms a GiB when done at once) no longer lands on the hashing thread.
//! - CRCs split: windows are hashed on every core and combined (`crc_combine`), each window
//!   released by the core that hashed it. Populating first did not pay there (155 ms against
//!   133 ms a GiB for CRC32C): both cores are busy already, and faults spread over them.
//!   BLAKE3 splits through its own rayon path (b3sum's), 128 MiB at a time, released behind:
//!   peak RSS 135 MB on a 1 GiB file, as fast as one call over the whole mapping (413 against
//!   409 ms, b3sum 408); populating each group first cost 15%.
//! - Files under [`MAP_THRESHOLD`] are read: a mapping's set-up and tear-down cost more than a
//!   few buffer copies there. Except those the lanes hash side by side, from
//!   [`MAP_BESIDE_FROM`] on one thread: mapped into an [`Arena`] that is unmapped once
//!   a batch, so the lanes hash the page cache in place while they compute.
//!
//! Never mapped: standard input, pipes, devices, sockets, and files that report size 0
//! (`/proc` files have content but no size). A file that changes while it is hashed (another
//! size or mtime afterwards, or pages gone under a mapping) is reported, never printed.

use super::cache::Cache;
use super::mapped::{Arena, Mapping};
use super::open::{Ahead, Opened};
use super::Input;
use crate::kernels::engine::{self, Split};
use crate::kernels::table;
use crate::kernels::{crc_combine, Algorithm, Digest, Hasher};
use std::cell::Cell;
use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::SystemTime;

/// What one `read(2)` asks for. 64 KiB, as xxhsum reads: the copy's source and destination
/// then stay in a core's L2 (512 KiB on Zen 3) and the hash reads the buffer from there. With
/// 256 KiB, on a Zen 3 with 2,000 files of 256 KiB hot, the kernel's copy took 378 ms of
/// system time against 150 with 64 KiB (XXH3; SHA-256 335 against 151), in one run.
const READ_BUFFER_SIZE: usize = 64 * 1024;

/// Files from this size up are mapped when `--mmap` is left to fasthash.
pub const MAP_THRESHOLD: u64 = 4 * 1024 * 1024;

/// The unit of populating, hashing and releasing a mapping.
const WINDOW: usize = 8 * 1024 * 1024;

/// Whether to map files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MmapChoice {
    /// Map regular files of [`MAP_THRESHOLD`] and more.
    #[default]
    Auto,
    /// Map every regular file with a size (`--mmap`).
    Always,
    /// Never map (`--no-mmap`).
    Never,
}

impl MmapChoice {
    /// Whether a regular file of `len` bytes is mapped whole (a mapping needs a byte).
    pub(crate) fn maps(self, len: u64) -> bool {
        match self {
            MmapChoice::Never => false,
            MmapChoice::Always => len > 0,
            MmapChoice::Auto => len >= MAP_THRESHOLD,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    pub mmap: MmapChoice,
    /// Whether one file may use several threads (CRC and BLAKE3 split a file).
    pub split_files: bool,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            mmap: MmapChoice::Auto,
            split_files: true,
        }
    }
}

/// Bytes hashed so far by this process, for the progress bar (one relaxed add per buffer or
/// window, nothing per byte).
pub static BYTES_HASHED: AtomicU64 = AtomicU64::new(0);

pub(crate) fn count(bytes: usize) {
    BYTES_HASHED.fetch_add(bytes as u64, Ordering::Relaxed);
}

thread_local! {
    static READ_BUFFER: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// Lends `work` this thread's read buffer. The buffer is taken out while lent, not borrowed:
/// `work` may hash on the pool, and a thread waiting there runs other files' jobs, which
/// then find the slot empty and use a buffer of their own instead of finding it in use.
fn with_read_buffer<T>(work: impl FnOnce(&mut [u8]) -> T) -> T {
    let mut buffer = READ_BUFFER.take();
    buffer.resize(READ_BUFFER_SIZE, 0);
    let result = work(&mut buffer);
    READ_BUFFER.set(buffer);
    result
}

/// The message for a file whose size or contents moved while it was hashed (tar's words).
pub fn changed_error() -> io::Error {
    io::Error::other("file changed as we read it")
}

/// What one read of a file is hashed into: one algorithm's digest, or every digest of a list
/// of algorithms (`super::multi`). The read itself (mapping or not, one call or a loop, a file
/// that changed) is decided once, in [`hash_file_with`], for both.
pub(crate) trait Hashing: Sync {
    type Output: Send;
    /// Everything `reader` yields until end of file.
    fn reader(&self, reader: impl Read) -> io::Result<Self::Output>;
    /// A whole file, read into memory.
    fn buffer(&self, bytes: &[u8]) -> Self::Output;
    /// A mapped file.
    fn mapping(&self, mapping: &Mapping, options: &ReadOptions) -> Self::Output;
    /// What `--cache` holds for a file in this state.
    fn cached(&self, cache: &Cache, state: &Metadata) -> Option<Self::Output>;
    /// Keeps `output` in `--cache` under the state the file was opened in.
    fn remember(&self, cache: &Cache, state: &Metadata, output: &Self::Output);
}

impl Hashing for Algorithm {
    type Output = Digest;

    fn reader(&self, reader: impl Read) -> io::Result<Digest> {
        let mut hasher = Hasher::new(*self);
        feed_reader(reader, |bytes| hasher.update(bytes))?;
        Ok(hasher.finalize())
    }

    fn buffer(&self, bytes: &[u8]) -> Digest {
        crate::kernels::hash(*self, bytes)
    }

    fn mapping(&self, mapping: &Mapping, options: &ReadOptions) -> Digest {
        hash_mapping(mapping, *self, options)
    }

    fn cached(&self, cache: &Cache, state: &Metadata) -> Option<Digest> {
        cache.lookup(state, *self)
    }

    fn remember(&self, cache: &Cache, state: &Metadata, digest: &Digest) {
        cache.remember(state, *self, *digest);
    }
}

/// Hashes one input to its digest, or the error that stopped it (open, read, or a change).
pub fn hash_input(
    input: &Input,
    algorithm: Algorithm,
    options: &ReadOptions,
) -> io::Result<Digest> {
    hash_input_with(input, &algorithm, options)
}

/// [`hash_input`] into what `hashing` makes of one read.
pub(crate) fn hash_input_with<H: Hashing>(
    input: &Input,
    hashing: &H,
    options: &ReadOptions,
) -> io::Result<H::Output> {
    match input {
        Input::Stdin => hashing.reader(super::stdin()?),
        Input::Path(path) => {
            let Some(cache) = super::cache::active() else {
                return hash_file_with(super::long_paths::open_file(path)?, hashing, options);
            };
            if let Some(output) = cached(cache, path, hashing) {
                return Ok(output);
            }
            hash_opened(super::long_paths::open_file(path)?, hashing, options)
        }
    }
}

/// Hashes an opened file, kept in `--cache` (when active) under its state as opened, before
/// it is read.
pub(crate) fn hash_opened<H: Hashing>(
    file: File,
    hashing: &H,
    options: &ReadOptions,
) -> io::Result<H::Output> {
    let Some(cache) = super::cache::active() else {
        return hash_file_with(file, hashing, options);
    };
    let before = file.metadata()?;
    let output = hash_file_with(file, hashing, options)?;
    hashing.remember(cache, &before, &output);
    Ok(output)
}

/// What `--cache` has for the file at `path` in the state one stat(2) finds it in: the file
/// is not even opened.
pub(crate) fn cached<H: Hashing>(cache: &Cache, path: &Path, hashing: &H) -> Option<H::Output> {
    hashing.cached(cache, &super::long_paths::metadata(path).ok()?)
}

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
    } = open_batch(inputs, &mut ahead, &algorithm);
    let small_lengths: Vec<usize> = opened
        .iter()
        .filter_map(|(_, _, small)| small.as_ref().map(|before| before.len() as usize))
        .collect();
    let mut together = engine.side_by_side(&small_lengths).into_iter();
    let shortest_mapped = shortest_mapped_beside(options);
    let mut arena = ARENA.with(|arena| arena.take());
    let mut side_by_side = Vec::new();
    for (index, source, small) in opened {
        match small.filter(|_| together.next() == Some(true)) {
            Some(before) => {
                let mapped = match &source {
                    Source::File(file) => shortest_mapped
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
    let (pulled, hashed) = rayon::join(
        || match engine.lanes {
            Some(lanes) if !files.files.is_empty() => (lanes.pull)(&files),
            _ => Vec::new(),
        },
        || hash_each(alone, inputs, &algorithm, options),
    );
    for (position, (lane_file, result)) in files.files.iter().zip(pulled).enumerate() {
        results[lane_file.index] = Some(match result {
            Ok(_) if files.shrank_while_mapped(position) => Err(changed_error()),
            Ok(digest) => lane_file.unchanged().map(|()| digest),
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

/// A batch of one input, or one that names standard input (read once, in order: a list that
/// names it stays sequential), hashed one input after the other; None for any other batch.
pub(crate) fn in_order<H: Hashing>(
    inputs: &[&Input],
    ahead: &mut Ahead,
    hashing: &H,
    options: &ReadOptions,
) -> Option<Vec<io::Result<H::Output>>> {
    let sequential = inputs.len() <= 1 || inputs.iter().any(|input| **input == Input::Stdin);
    sequential.then(|| {
        inputs
            .iter()
            .enumerate()
            .map(|(index, input)| match ahead.take(index) {
                Some(opened) => hash_opened_ahead(opened?, hashing, options),
                None => hash_input_with(input, hashing, options),
            })
            .collect()
    })
}

/// One input the open stage opened or read: hashed from its bytes, or read from its file.
fn hash_opened_ahead<H: Hashing>(
    opened: Opened,
    hashing: &H,
    options: &ReadOptions,
) -> io::Result<H::Output> {
    match opened {
        Opened::Read { bytes, .. } => Ok(hash_bytes(&bytes, hashing)),
        Opened::Open(file) => hash_file_with(file, hashing, options),
    }
}

/// A whole file read in one call: there was no "while" for it to change during.
fn hash_bytes<H: Hashing>(bytes: &[u8], hashing: &H) -> H::Output {
    count(bytes.len());
    hashing.buffer(bytes)
}

/// Where a file of a batch is read from.
pub(crate) enum Source {
    /// Open: read by the hashing thread (or mapped).
    File(File),
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
    /// be read whole or by the lanes ([`small_size`]).
    pub opened: Vec<(usize, Source, Option<Metadata>)>,
    /// Inputs to be hashed the usual way ([`hash_each`]), with their file when it is open:
    /// at first those that are not paths (nothing opened).
    pub alone: Vec<(usize, Option<Source>)>,
}

/// Every path of a batch taken from `--cache`, from what the open stage did (`ahead`), or
/// opened once here.
pub(crate) fn open_batch<H: Hashing>(
    inputs: &[&Input],
    ahead: &mut Ahead,
    hashing: &H,
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
        let opened = match ahead.take(index) {
            Some(Ok(Opened::Read { bytes, before })) => Ok((Source::Bytes(bytes), Some(before))),
            Some(Ok(Opened::Open(file))) => {
                small_size(&file).map(|small| (Source::File(file), small))
            }
            Some(Err(error)) => Err(error),
            None => super::long_paths::open_file(path)
                .and_then(|file| small_size(&file).map(|small| (Source::File(file), small))),
        };
        match opened {
            Ok((source, small)) => {
                if cache.is_some() {
                    let state = match (&small, &source) {
                        (Some(before), _) => Ok(before.clone()),
                        (None, Source::File(file)) => file.metadata(),
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

/// The inputs of a batch hashed one by one on the pool, as [`hash_input_with`] does: each
/// with its place in the batch, and its file when already opened (None: opened here).
pub(crate) fn hash_each<H: Hashing>(
    alone: Vec<(usize, Option<Source>)>,
    inputs: &[&Input],
    hashing: &H,
    options: &ReadOptions,
) -> Vec<(usize, io::Result<H::Output>)> {
    use rayon::prelude::*;
    alone
        .into_par_iter()
        .map(|(index, source)| {
            let result = match source {
                Some(Source::File(file)) => hash_file_with(file, hashing, options),
                Some(Source::Bytes(bytes)) => Ok(hash_bytes(&bytes, hashing)),
                None => hash_input_with(inputs[index], hashing, options),
            };
            (index, result)
        })
        .collect()
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
            Source::File(file) if self.mapped.is_some() || len > engine::PULL_WINDOW as u64 => {
                if changed(&self.before, &file.metadata()?) {
                    return Err(changed_error());
                }
            }
            Source::File(_) | Source::Bytes(_) => {}
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

    /// Whether file `index` was mapped and lost pages while hashed.
    fn shrank_while_mapped(&self, index: usize) -> bool {
        self.mapped(index)
            .is_some_and(|(arena, place)| arena.was_truncated(place))
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
            Source::File(file) => file.read_exact_at(out, at),
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

/// The shortest lane file to map: None to read them all.
fn shortest_mapped_beside(options: &ReadOptions) -> Option<u64> {
    match options.mmap {
        MmapChoice::Never => None,
        MmapChoice::Always => Some(1),
        MmapChoice::Auto => {
            (rayon::current_num_threads() <= MAP_BESIDE_THREADS).then_some(MAP_BESIDE_FROM)
        }
    }
}

thread_local! {
    /// Each thread's arena for the lanes' mapped files, kept from batch to batch.
    static ARENA: Cell<Option<Arena>> = const { Cell::new(None) };
}

/// An opened file's state when it is a regular file under [`MAP_THRESHOLD`] that the lanes
/// may take (read, or mapped into their arena); None for anything to be hashed the usual way:
/// not a regular file, empty (as /proc files claim to be), or large.
///
/// Asked of the file here, not taken from the open stage's `fstat`: that one may be a batch or
/// more older, and the lanes map `len` bytes and compare the file after reading with this
/// state ([`LaneFile::unchanged`]), so a file written between the open stage and its hashing
/// would fail as changed while read instead of being hashed as it is now.
fn small_size(file: &File) -> io::Result<Option<Metadata>> {
    let metadata = file.metadata()?;
    let small = metadata.is_file() && metadata.len() > 0 && metadata.len() < MAP_THRESHOLD;
    Ok(small.then_some(metadata))
}

/// One read(2), retried only when a signal interrupted it.
fn read_once(mut file: &File, buffer: &mut [u8]) -> io::Result<usize> {
    loop {
        match file.read(buffer) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            result => return result,
        }
    }
}

/// Hashes an open file, choosing between reading and mapping.
pub fn hash_file(file: File, algorithm: Algorithm, options: &ReadOptions) -> io::Result<Digest> {
    hash_file_with(file, &algorithm, options)
}

/// [`hash_file`] into what `hashing` makes of one read.
pub(crate) fn hash_file_with<H: Hashing>(
    file: File,
    hashing: &H,
    options: &ReadOptions,
) -> io::Result<H::Output> {
    let before = file.metadata()?;
    if before.is_dir() {
        return Err(directory_error(&file));
    }
    if !before.is_file() || before.len() == 0 {
        return hashing.reader(file);
    }
    let len = before.len();
    let output = match options
        .mmap
        .maps(len)
        .then(|| Mapping::new(&file, len))
        .transpose()
        .or_else(|error| match error.raw_os_error() {
            // No address space for it (`ulimit -v`): the file is read instead.
            Some(libc::ENOMEM) => Ok(None),
            _ => Err(error),
        })?
        .flatten()
    {
        Some(mapping) => {
            let output = hashing.mapping(&mapping, options);
            if mapping.was_truncated() {
                return Err(changed_error());
            }
            output
        }
        None => {
            if let Some(output) = in_one_read(&file, len, |bytes| hashing.buffer(bytes))? {
                // One read(2) took the whole file: there was no "while" to change during.
                return Ok(output);
            }
            hashing.reader(&file)?
        }
    };
    if changed(&before, &file.metadata()?) {
        return Err(changed_error());
    }
    Ok(output)
}

/// The error for a directory opened to be hashed. It is read, as coreutils does, so that the
/// kernel's own error is the one reported: EISDIR, or EIO where the device fails (coreutils'
/// tests/misc/read-errors.sh).
pub(crate) fn directory_error(file: &File) -> io::Error {
    match read_once(file, &mut [0u8; 1]) {
        Err(e) => e,
        Ok(_) => io::Error::from_raw_os_error(libc::EISDIR),
    }
}

/// Whether a file changed between two looks at it: another size or modification time.
pub(crate) fn changed(before: &Metadata, after: &Metadata) -> bool {
    fn mtime(m: &Metadata) -> Option<SystemTime> {
        m.modified().ok()
    }
    before.len() != after.len() || mtime(before) != mtime(after)
}

/// Small files (most of a source tree) cost system calls more than hashing: a file that fits
/// the buffer is read in one call, without the extra call that would only return end of file,
/// and hashed from the buffer. `None` when the file is larger, or the read came back short (a
/// file in /sys, or one that shrank): the caller reads it the long way.
fn in_one_read<T>(
    mut file: &File,
    len: u64,
    hash: impl FnOnce(&[u8]) -> T,
) -> io::Result<Option<T>> {
    if len > READ_BUFFER_SIZE as u64 {
        return Ok(None);
    }
    let len = len as usize;
    with_read_buffer(|buffer| {
        let read = read_once(file, &mut buffer[..len])?;
        if read < len {
            // Rewind what was consumed so the long way starts from the beginning.
            use std::io::Seek;
            file.seek(io::SeekFrom::Start(0))?;
            return Ok(None);
        }
        count(len);
        Ok(Some(hash(&buffer[..len])))
    })
}

/// Hashes everything `reader` yields until end of file.
pub fn hash_reader(reader: impl Read, algorithm: Algorithm) -> io::Result<Digest> {
    algorithm.reader(reader)
}

/// Hands everything `reader` yields until end of file to `consume`, a buffer at a time.
pub(crate) fn feed_reader(mut reader: impl Read, mut consume: impl FnMut(&[u8])) -> io::Result<()> {
    with_read_buffer(|buffer| loop {
        match reader.read(buffer) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                consume(&buffer[..n]);
                count(n);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    })
}

/// Hashes a mapped file by the best path its engine allows.
pub fn hash_mapping(mapping: &Mapping, algorithm: Algorithm, options: &ReadOptions) -> Digest {
    match table::chosen(algorithm).split {
        Split::CrcCombine if options.split_files => crc_in_parallel(mapping, algorithm),
        Split::Blake3Tree if options.split_files => blake3_in_parallel(mapping),
        _ => hash_with_populating_helper(mapping, algorithm),
    }
}

fn windows(len: usize) -> impl Iterator<Item = Range<usize>> {
    (0..len.div_ceil(WINDOW)).map(move |i| i * WINDOW..((i + 1) * WINDOW).min(len))
}

/// One hashing thread, fed by a helper that populates windows ahead of it and releases them
/// behind it.
fn hash_with_populating_helper(mapping: &Mapping, algorithm: Algorithm) -> Digest {
    let mut hasher = Hasher::new(algorithm);
    feed_mapping(mapping, |window| hasher.update(window));
    hasher.finalize()
}

/// Hands a mapped file to `consume` a window at a time, in order, on this thread, while a
/// helper populates windows ahead of it and releases them behind it. Stops early when the
/// file shrank (the caller reports it as changed).
pub(crate) fn feed_mapping(mapping: &Mapping, mut consume: impl FnMut(&[u8])) {
    let bytes = mapping.bytes();
    let window_count = bytes.len().div_ceil(WINDOW);
    if window_count <= 1 {
        count(bytes.len());
        consume(bytes);
        return;
    }
    mapping.advise_sequential();
    // Windows populated so far, and windows hashed so far.
    let populated = AtomicUsize::new(0);
    let hashed = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let helper = std::thread::Builder::new()
            .name("populate".into())
            .stack_size(HELPER_STACK)
            .spawn_scoped(scope, || populate_ahead(mapping, &populated, &hashed));
        let Ok(helper) = helper else {
            // No thread to be had (a limit on threads or address space): the pages fault in
            // as they are hashed, released behind.
            for window in windows(bytes.len()) {
                if mapping.was_truncated() {
                    break;
                }
                count(window.len());
                consume(&bytes[window.clone()]);
                mapping.release(window);
            }
            return;
        };
        for (index, window) in windows(bytes.len()).enumerate() {
            let mut spins = 0u32;
            while populated.load(Ordering::Acquire) <= index
                && !helper.is_finished()
                && !mapping.was_truncated()
            {
                spins += 1;
                if spins < 64 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
            // A file that shrank is reported as changed whatever the rest holds: stop
            // hashing the zeros that stand in for it (minutes of them on a slow kernel).
            if mapping.was_truncated() {
                hashed.store(window_count, Ordering::Release);
                helper.thread().unpark();
                break;
            }
            count(window.len());
            consume(&bytes[window]);
            hashed.store(index + 1, Ordering::Release);
            helper.thread().unpark();
        }
    });
}

/// The populating helper's stack: it only advises the kernel.
const HELPER_STACK: usize = 64 * 1024;

/// The helper of [`feed_mapping`]: populates each window ahead of the hashing thread, at most
/// eight ahead, and releases those hashed (`hashed` of them) behind it.
fn populate_ahead(mapping: &Mapping, populated: &AtomicUsize, hashed: &AtomicUsize) {
    let len = mapping.len();
    let window_count = len.div_ceil(WINDOW);
    let mut released = 0;
    let release_hashed = |released: &mut usize| {
        let done = hashed.load(Ordering::Acquire);
        if done > *released {
            mapping.release(*released * WINDOW..done * WINDOW);
            *released = done;
        }
        done
    };
    for (index, window) in windows(len).enumerate() {
        if mapping.was_truncated() {
            break;
        }
        // Stay a bounded distance ahead, so memory stays bounded on huge files.
        while index >= hashed.load(Ordering::Acquire) + 8 {
            release_hashed(&mut released);
            std::thread::park_timeout(std::time::Duration::from_millis(1));
        }
        mapping.populate(window);
        populated.store(index + 1, Ordering::Release);
        release_hashed(&mut released);
    }
    while release_hashed(&mut released) < window_count {
        std::thread::park_timeout(std::time::Duration::from_millis(1));
    }
}

/// A CRC from windows hashed on every core, combined in order.
fn crc_in_parallel(mapping: &Mapping, algorithm: Algorithm) -> Digest {
    use rayon::prelude::*;
    let bytes = mapping.bytes();
    let pieces: Vec<(Digest, u64)> = windows(bytes.len())
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|window| {
            let mut hasher = Hasher::new(algorithm);
            hasher.update(&bytes[window.clone()]);
            let digest = hasher.finalize();
            count(window.len());
            mapping.release(window.clone());
            (digest, window.len() as u64)
        })
        .collect();
    combine_crcs(algorithm, pieces)
}

/// The CRC of consecutive pieces from each piece's CRC and length, combined in order (0, the
/// CRC of nothing, for no pieces): how a file's windows hashed apart, and S3's FULL_OBJECT
/// parts, make one CRC.
pub(crate) fn combine_crcs(
    algorithm: Algorithm,
    pieces: impl IntoIterator<Item = (Digest, u64)>,
) -> Digest {
    // A CRC digest is the CRC's big-endian bytes.
    let value = |digest: &Digest| {
        digest
            .as_bytes()
            .iter()
            .fold(0u64, |value, &byte| (value << 8) | u64::from(byte))
    };
    let mut pieces = pieces.into_iter();
    let combined = pieces.next().map_or(0, |(first, _)| {
        pieces.fold(value(&first), |crc, (piece, len)| {
            crc_combine(algorithm, crc, value(&piece), len)
        })
    });
    crate::kernels::crc_digest(algorithm, combined)
}

/// BLAKE3's own parallel tree hashing (as b3sum does it), 128 MiB at a time so that pages are
/// released behind it.
fn blake3_in_parallel(mapping: &Mapping) -> Digest {
    const GROUP: usize = 16 * WINDOW;
    let bytes = mapping.bytes();
    let mut hasher = blake3::Hasher::new();
    let mut start = 0;
    while start < bytes.len() {
        let end = (start + GROUP).min(bytes.len());
        hasher.update_rayon(&bytes[start..end]);
        count(end - start);
        mapping.release(start..end);
        start = end;
    }
    Digest::from_slice(hasher.finalize().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread hashing on the pool runs other files' jobs while it waits; one of those
    /// reading a file must not find the thread's buffer in use (it once panicked under qemu).
    #[test]
    fn a_read_inside_a_read_on_the_same_thread_gets_its_own_buffer() {
        let outer: Vec<u8> = (0..200_000u32).map(|i| i as u8).collect();
        let inner: Vec<u8> = (0..150_000u32).map(|i| (i * 7) as u8).collect();
        let (mut outer_seen, mut inner_seen) = (Vec::new(), Vec::new());
        feed_reader(&outer[..], |bytes| {
            if inner_seen.is_empty() {
                feed_reader(&inner[..], |more| inner_seen.extend_from_slice(more)).unwrap();
            }
            outer_seen.extend_from_slice(bytes);
        })
        .unwrap();
        assert_eq!(outer_seen, outer);
        assert_eq!(inner_seen, inner);
    }
}
