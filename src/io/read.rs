//! The read stage: one input through a hasher, by the fastest path its kind and size allow.
//! The way in is [`hash_file_with`] for an open file ([`hash_input_with`] for an input not
//! yet opened); a batch of inputs comes through [`super::batch`], and a mapped large file goes
//! on to [`super::large`].
//!
//! Measured on the reference machine (2 cores, hot page cache, 1 GiB file; `cargo bench
//! --bench read` and `bench/peers.sh` reproduce them):
//! - `read(2)` into a 256 KiB buffer copies at about 6.7 GB/s on one core (`cat` manages the
//!   same), and the copy and the hash add up: XXH3 that way runs at 4.2 to 4.9 GB/s. The
//!   buffer is 64 KiB now ([`READ_BUFFER_SIZE`] says why).
//! - Files from [`MAP_THRESHOLD`] up are mapped, and hashed from the mapping without a copy
//!   ([`super::large`] has the figures), or read where timing says that is faster
//!   ([`super::source`]). Under it they are read: a mapping's set-up and
//!   tear-down cost more than a few buffer copies there (the lanes' files, hashed side by
//!   side, are the exception: [`super::batch`]).
//!
//! Never mapped: standard input, pipes, devices, sockets, and files that report size 0
//! (`/proc` files have content but no size). A file that changes while it is hashed (another
//! size or mtime afterwards, or pages gone under a mapping) is reported, never printed.

use super::cache::Cache;
use super::large::hash_mapping;
/// A large mapped file is hashed window by window, or split across cores by windows.
pub use super::large::WINDOW as MAPPED_WINDOW;
use super::mapped::Mapping;
use super::Input;
use crate::kernels::{Algorithm, Digest, Hasher};
use std::cell::Cell;
use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// What one `read(2)` asks for. 64 KiB, as xxhsum reads: the copy's source and destination
/// then stay in a core's L2 (512 KiB on Zen 3) and the hash reads the buffer from there. With
/// 256 KiB, on a Zen 3 with 2,000 files of 256 KiB hot, the kernel's copy took 378 ms of
/// system time against 150 with 64 KiB (XXH3; SHA-256 335 against 151), in one run.
const READ_BUFFER_SIZE: usize = 64 * 1024;

/// Files from this size up are mapped when `--mmap` is left to fasthash.
pub const MAP_THRESHOLD: u64 = 4 * 1024 * 1024;

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
    buffer.resize(READ_BUFFER_SIZE + READ_BUFFER_ALIGN, 0);
    let result = work(aligned(&mut buffer));
    READ_BUFFER.set(buffer);
    result
}

/// Where the kernel's copy out of the page cache lands. `malloc` gives 16 bytes of alignment,
/// and a copy (`rep movsb`) into a destination off a cache line costs more: 2,000 files of 256
/// KiB in the page cache read into a buffer 16 bytes past a page took 139.8 ms of CPU against
/// 135.7 on the page and 134.8 on a cache line (XXH3, Intel Xeon, 2 cores, medians of 31
/// alternated runs of a C read loop).
const READ_BUFFER_ALIGN: usize = 4096;

/// The [`READ_BUFFER_SIZE`] bytes of `buffer` that start on a page.
fn aligned(buffer: &mut [u8]) -> &mut [u8] {
    let start = buffer.as_ptr().align_offset(READ_BUFFER_ALIGN);
    &mut buffer[start..start + READ_BUFFER_SIZE]
}

/// The message for a file whose size or contents moved while it was hashed (tar's words).
pub fn changed_error() -> io::Error {
    io::Error::other("file changed as we read it")
}

/// The error of the first page of a mapped file that could not be read, if any. `fault` is
/// the mapping's mark as it comes ([`Mapping::fault`], [`Arena::fault`]), so that every
/// caller asks in one step: the file shrank under the mapping, or the device failed to give
/// the page. A read(2) of that page tells which: where the device fails, the kernel's own
/// error (EIO from a bad sector or a network file system, as coreutils reports it); where the
/// file ends before it now, or the page reads now, the file changed as it was read.
///
/// [`Arena::fault`]: super::mapped::Arena::fault
pub(crate) fn fault_error(file: &File, fault: Option<u64>) -> Option<io::Error> {
    use std::os::unix::fs::FileExt;
    let at = fault?;
    loop {
        match file.read_at(&mut [0u8; 1], at) {
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Some(error),
            Ok(_) => return Some(changed_error()),
        }
    }
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
    /// A mapped file (`file`, which it maps, is there to read it instead where that is faster).
    fn mapping(&self, mapping: &Mapping, file: &File, options: &ReadOptions) -> Self::Output;
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

    fn mapping(&self, mapping: &Mapping, file: &File, options: &ReadOptions) -> Digest {
        hash_mapping(mapping, file, *self, options)
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
                return hash_file_with(&super::long_paths::open_file(path)?, hashing, options);
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
        return hash_file_with(&file, hashing, options);
    };
    let before = file.metadata()?;
    let output = hash_file_with(&file, hashing, options)?;
    hashing.remember(cache, &before, &output);
    Ok(output)
}

/// What `--cache` has for the file at `path` in the state one stat(2) finds it in: the file
/// is not even opened.
pub(crate) fn cached<H: Hashing>(cache: &Cache, path: &Path, hashing: &H) -> Option<H::Output> {
    hashing.cached(cache, &super::long_paths::metadata(path).ok()?)
}

/// An opened file's state when it is a regular file under [`MAP_THRESHOLD`] that the lanes
/// may take (read, or mapped into their arena); None for anything to be hashed the usual way:
/// not a regular file, empty (as /proc files claim to be), or large.
///
/// Asked of the file here, not taken from the open stage's `fstat`: that one may be a batch or
/// more older, and the lanes map `len` bytes and compare the file after reading with this
/// state ([`LaneFile::unchanged`]), so a file written between the open stage and its hashing
/// would fail as changed while read instead of being hashed as it is now.
pub(crate) fn small_size(file: &File) -> io::Result<Option<Metadata>> {
    Ok(is_small(file.metadata()?))
}

/// [`small_size`] from a file's state already known.
pub(crate) fn is_small(metadata: Metadata) -> Option<Metadata> {
    let small = metadata.is_file() && metadata.len() > 0 && metadata.len() < MAP_THRESHOLD;
    small.then_some(metadata)
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
    hash_file_with(&file, &algorithm, options)
}

/// [`hash_file`] into what `hashing` makes of one read.
pub(crate) fn hash_file_with<H: Hashing>(
    file: &File,
    hashing: &H,
    options: &ReadOptions,
) -> io::Result<H::Output> {
    hash_file_as_opened(file, None, hashing, options)
}

/// [`hash_file_with`] for a file whose state when opened (`before`) may be known: then the
/// file is not asked again, and a change since is reported as one while it was hashed.
pub(crate) fn hash_file_as_opened<H: Hashing>(
    file: &File,
    before: Option<Metadata>,
    hashing: &H,
    options: &ReadOptions,
) -> io::Result<H::Output> {
    let before = match before {
        Some(before) => before,
        None => file.metadata()?,
    };
    if before.is_dir() {
        return Err(directory_error(file));
    }
    if !before.is_file() || before.len() == 0 {
        return hashing.reader(file);
    }
    let len = before.len();
    let output = match options
        .mmap
        .maps(len)
        .then(|| Mapping::new(file, len))
        .transpose()?
        .flatten()
    {
        Some(mapping) => {
            let output = hashing.mapping(&mapping, file, options);
            if let Some(error) = fault_error(file, mapping.fault()) {
                return Err(error);
            }
            output
        }
        None => {
            if let Some(output) = in_one_read(file, len, |bytes| hashing.buffer(bytes))? {
                // One read(2) took the whole file: there was no "while" to change during.
                return Ok(output);
            }
            hashing.reader(file)?
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

/// Whether a file changed between two looks at it: another size, modification time or status
/// change time. The last is what a rewrite cannot hide: `touch -d` puts an old modification
/// time back on a file written in place, but every write (and the `touch` itself) moves the
/// change time, which no call can set. Like tar, this also takes a `chmod` during the read
/// for a change.
pub(crate) fn changed(before: &Metadata, after: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    let state = |m: &Metadata| {
        (
            m.len(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
        )
    };
    state(before) != state(after)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A file written in place whose modification time is then put back (`touch -d`, restore
    /// tools) keeps its size and mtime; its change time moved, and tells.
    #[test]
    fn a_rewrite_with_its_modification_time_put_back_is_a_change() {
        use std::io::Write;
        use std::os::unix::fs::MetadataExt;
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(b"old contents").unwrap();
        let old_time =
            std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_577_836_800);
        file.as_file().set_modified(old_time).unwrap();
        let before = file.as_file().metadata().unwrap();
        assert!(!changed(&before, &file.as_file().metadata().unwrap()));
        // The change time has a resolution of a clock tick: wait until a write must move it.
        let ctime = |m: &Metadata| (m.ctime(), m.ctime_nsec());
        while ctime(&file.as_file().metadata().unwrap()) == ctime(&before) {
            std::fs::write(file.path(), b"new contents").unwrap();
            file.as_file().set_modified(old_time).unwrap();
        }
        let after = file.as_file().metadata().unwrap();
        assert_eq!(
            (after.len(), after.modified().unwrap()),
            (before.len(), old_time)
        );
        assert!(changed(&before, &after));
    }

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

    /// The kernel copies into the buffer from a page boundary, and every byte lent is usable:
    /// the first lending, and a nested one that gets a buffer of its own.
    #[test]
    fn the_read_buffer_lent_starts_on_a_page() {
        let starts_on_a_page = |buffer: &mut [u8]| {
            assert_eq!(buffer.len(), READ_BUFFER_SIZE);
            assert_eq!(buffer.as_ptr() as usize % READ_BUFFER_ALIGN, 0);
            buffer.fill(0xa5);
        };
        with_read_buffer(|outer| {
            starts_on_a_page(outer);
            with_read_buffer(starts_on_a_page);
        });
        with_read_buffer(starts_on_a_page);
    }
}
