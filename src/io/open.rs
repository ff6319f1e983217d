//! The open stage: a batch's files opened, looked at and read (or asked of the device) by a
//! reader, ahead of the hashing threads ([`super::parallel`] runs it).
//!
//! On a cold disk or a network file system every open, `fstat` and read waits on the device;
//! with many readers each waiting on its own batch, that many requests are in flight while the
//! hashing threads hash what is already in memory. In the page cache the same calls cost what
//! they cost the hashing threads before: they only moved.
//!
//! - A regular file of up to [`READ_WHOLE`] bytes is read whole here and closed: the hashing
//!   threads get its bytes. A batch's are read together ([`open_ahead`]'s passes): the
//!   device gets all their requests before the reader waits for the first.
//! - A larger one stays open; one under the mapping threshold is asked of the device at once
//!   (`POSIX_FADV_WILLNEED`, which returns before it arrives): it is in flight while the
//!   hashing threads finish what they hold. A mapped one is left to the kernel's readahead.
//! - Anything else (a directory, a FIFO, a `/proc` file that says it is empty) is only opened.
//!
//! Every file is opened within the descriptor budget ([`super::descriptors`]), a batch's
//! descriptors taken together.

use super::descriptors::Permits;
use super::long_paths;
use super::read::{MmapChoice, MAP_THRESHOLD};
use super::Input;
use std::fs::{File, Metadata};
use std::io;
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

/// Files up to this size are read whole by the reader, in one read where the page cache has
/// them, as the lanes read a file of up to one window.
pub(crate) const READ_WHOLE: u64 = crate::kernels::engine::PULL_WINDOW as u64;

/// A file as the reader left it for the hashing threads.
#[derive(Debug)]
pub(crate) enum Opened {
    /// Read whole in one call, and closed: its bytes and its state when opened.
    Read { bytes: Vec<u8>, before: Metadata },
    /// Open, to be read by the hashing thread; its state when opened, where `fstat` gave it
    /// (the hashing thread then does not ask again).
    Open {
        file: File,
        before: Option<Metadata>,
    },
}

/// A batch's inputs as the open stage left them, in the batch's order (an `Err`: the file did
/// not open): None where nothing was done ahead (standard input, `--cache`, which looks a file up before opening it). Holds the
/// batch's descriptors until dropped.
#[derive(Debug, Default)]
pub(crate) struct Ahead {
    pub(crate) files: Vec<Option<io::Result<Opened>>>,
    /// Held, never read: the batch's descriptors go back to the budget when it is dropped.
    _permits: Option<Permits>,
}

impl Ahead {
    /// Nothing done ahead for `count` inputs: each is opened where it is hashed.
    pub(crate) fn nothing(count: usize) -> Ahead {
        Ahead {
            files: (0..count).map(|_| None).collect(),
            _permits: None,
        }
    }

    /// The inputs at `places` (None: nothing done ahead), taken out as a batch of their own;
    /// the descriptors stay with this one.
    pub(crate) fn part(&mut self, places: impl Iterator<Item = Option<usize>>) -> Ahead {
        Ahead {
            files: places
                .map(|place| place.and_then(|place| self.take(place)))
                .collect(),
            _permits: None,
        }
    }

    /// What was done ahead for input `index`, taken out (None: open it as usual).
    pub(crate) fn take(&mut self, index: usize) -> Option<io::Result<Opened>> {
        self.files.get_mut(index).and_then(Option::take)
    }
}

/// Opens a batch's files, within the descriptor budget, reading the small ones whole.
///
/// In three passes over the batch, so that a cold disk gets the batch's reads together: every
/// file opened; every small one read from the page cache, or its read started there
/// ([`Whole::read_cached`]); then those that were not in memory read, waiting. One reader then
/// waits once for a batch's reads, not once for each of its files, and the batch's requests
/// reach the device together: on a cold tree of 20,000 files of 4 KiB that made the run 1.3
/// to 1.6x faster and cut the system time a file from about 47 to 31 µs (AMD EPYC, 2 cores,
/// virtio disk), where each file's read had cost its reader a sleep and a wake-up of its own.
/// In the page cache it costs nothing: the first pass's read is the only one, as before.
pub(crate) fn open_ahead(inputs: &[&Input], mmap: MmapChoice) -> Ahead {
    if super::cache::active().is_some() {
        return Ahead::nothing(inputs.len());
    }
    let paths = inputs
        .iter()
        .filter(|input| matches!(input, Input::Path(_)))
        .count();
    let mut permits = Permits::take(paths);
    let mut opening: Vec<Option<io::Result<Opening>>> = inputs
        .iter()
        .map(|input| match input {
            Input::Stdin => None,
            Input::Path(path) => Some(open_one(path, mmap)),
        })
        .collect();
    permits.opened();
    for file in opening.iter_mut().flatten().flatten() {
        file.read_from_cache();
    }
    let files = opening
        .into_iter()
        .map(|file| file.map(|file| file.map(|file| file.finish(&mut permits))))
        .collect();
    Ahead {
        files,
        _permits: Some(permits),
    }
}

/// A file the reader has opened, on its way to being an [`Opened`].
struct Opening {
    file: File,
    /// The file's state when opened, and its bytes when it is to be read whole.
    small: Option<(Metadata, Whole)>,
    /// The state of one not read whole here, when `fstat` gave it.
    before: Option<Metadata>,
}

/// Opens one file and asks the device for what the hashing thread will read. Only a failed
/// open is an `Err`: what fails after it is left to the hashing thread, which meets it again as
/// a read failure, so a check can tell a file that did not open from one that could not be
/// read (xxhsum stops at the second).
fn open_one(path: &Path, mmap: MmapChoice) -> io::Result<Opening> {
    let file = long_paths::open_file(path)?;
    let mut opening = Opening {
        file,
        small: None,
        before: None,
    };
    let Ok(before) = opening.file.metadata() else {
        return Ok(opening);
    };
    let len = before.len();
    if !before.is_file() || len == 0 {
        opening.before = Some(before);
        return Ok(opening);
    }
    // `--mmap` maps every file: none is read here.
    if len <= READ_WHOLE && mmap != MmapChoice::Always {
        opening.small = Some((before, Whole::new(len)));
        return Ok(opening);
    }
    if len < MAP_THRESHOLD && !IN_PAGE_CACHE.guess(|| end_is_cached(&opening.file, len)) {
        // A file to be mapped is read by the kernel's own readahead as it is hashed, in order:
        // asking for it here as well measured slower on a cold disk (its requests cut across
        // the readahead's larger ones).
        waited_for_device();
        ask_ahead(&opening.file, 0, len);
    }
    opening.before = Some(before);
    Ok(opening)
}

impl Opening {
    /// A small file's bytes, as far as the page cache has them; the device is asked for the
    /// rest without waiting.
    fn read_from_cache(&mut self) {
        if let Some((_, whole)) = &mut self.small {
            whole.read_cached(&self.file);
        }
    }

    /// The file as the hashing threads get it: a small one read whole (waiting for the device
    /// now if it must) and closed, its descriptor given back to the budget.
    fn finish(self, permits: &mut Permits) -> Opened {
        let Some((before, whole)) = self.small else {
            return Opened::Open {
                file: self.file,
                before: self.before,
            };
        };
        match whole.rest(&self.file) {
            Ok(Some(bytes)) => {
                drop(self.file);
                // Closed: its descriptor is free for the next file.
                drop(permits.one());
                Opened::Read { bytes, before }
            }
            // Fewer bytes than its size said (it shrank, or a `/sys` file): read the long way,
            // from a state taken anew.
            _ => Opened::Open {
                file: self.file,
                before: None,
            },
        }
    }
}

thread_local! {
    /// Whether a read of this thread's latest batches had to wait for the device, or could not
    /// ask without waiting: set by the batch's reads, taken by [`batch_waited_for_device`].
    static WAITED_FOR_DEVICE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

pub(crate) fn waited_for_device() {
    WAITED_FOR_DEVICE.set(true);
}

/// Whether a read of the batches opened on this thread since the last call had to wait for the
/// device (or for a file system that cannot say without waiting). False where every small
/// file came whole from the page cache: the reader then did work of the CPU, and another
/// reader would only share the same cores ([`super::parallel`] starts one for reads in flight).
pub(crate) fn batch_waited_for_device() -> bool {
    WAITED_FOR_DEVICE.replace(false)
}

/// The run's files, as the page cache has held them lately ([`Streak`]).
static IN_PAGE_CACHE: Streak = Streak::new();

/// How many files in a row the page cache has held, so that the probe of a file's end
/// ([`end_is_cached`]) can be left out where its answer is all but known: once
/// [`Streak::TRUSTED_AFTER`] files in a row were there, one file in [`Streak::SAMPLE_EVERY`]
/// is asked and the others taken to be there too; the first asked that is not starts the count
/// again, and every file is asked until the streak is back. A hot tree then pays for a probe
/// in one file of 16 (2,000 files of 256 KiB in the page cache: the probes were 6% of the
/// run's system time, 2 to 3% of its time, AMD EPYC Zen 3, 2 cores); a cold one is asked file
/// by file as before. What a wrong guess costs is one file read without being asked for ahead:
/// the hashing thread's own reads wait for the device, as they would with no open stage.
/// Shared by the readers without ordering: two of them racing can only move which file is
/// sampled, never make a file that was asked about count as found.
struct Streak(AtomicU32);

impl Streak {
    const TRUSTED_AFTER: u32 = 16;
    const SAMPLE_EVERY: u32 = 16;

    const fn new() -> Streak {
        Streak(AtomicU32::new(0))
    }

    /// Whether the next file is in the page cache: `probe`'s answer, or the streak's where it
    /// is long enough and this file is not one to be sampled.
    fn guess(&self, probe: impl FnOnce() -> bool) -> bool {
        let streak = self.0.load(Ordering::Relaxed);
        if streak >= Self::TRUSTED_AFTER && !streak.is_multiple_of(Self::SAMPLE_EVERY) {
            self.0.fetch_add(1, Ordering::Relaxed);
            return true;
        }
        let cached = probe();
        match cached {
            true => self.0.fetch_add(1, Ordering::Relaxed),
            false => self.0.swap(0, Ordering::Relaxed),
        };
        cached
    }
}

/// Whether the last byte of a file of `len` bytes is in the page cache, read without waiting
/// for the device: then the file was read or written a moment ago, and asking the device for
/// it would only walk its cached pages (2,000 files of 256 KiB in the page cache: 6 to 11%
/// less system time without). Where it is not, that read has started the device's read of the
/// file's end, and the caller asks for the rest. False where the file system cannot read
/// without waiting.
fn end_is_cached(file: &File, len: u64) -> bool {
    let mut byte = 0u8;
    read_without_waiting(file, std::slice::from_mut(&mut byte), len - 1).is_ok_and(|n| n == 1)
}

/// One `preadv2` with `RWF_NOWAIT` into `buffer` from `at`: what the page cache holds there,
/// or `EAGAIN` once the device's read of it has started (the kernel's readahead, which
/// returns without waiting for it), or `EOPNOTSUPP` where the file system cannot.
fn read_without_waiting(file: &File, buffer: &mut [u8], at: u64) -> io::Result<usize> {
    let iov = libc::iovec {
        iov_base: buffer.as_mut_ptr().cast(),
        iov_len: buffer.len(),
    };
    let offset =
        libc::off_t::try_from(at).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: the iovec points into `buffer`, which outlives the call; the descriptor is open;
    // the kernel writes at most `iov_len` bytes there.
    let read = unsafe { libc::preadv2(file.as_raw_fd(), &iov, 1, offset, libc::RWF_NOWAIT) };
    usize::try_from(read).map_err(|_| io::Error::last_os_error())
}

/// A small file being read whole: its bytes and how many have arrived.
struct Whole {
    bytes: Vec<u8>,
    got: usize,
}

impl Whole {
    fn new(len: u64) -> Whole {
        Whole {
            bytes: vec![0; len as usize],
            got: 0,
        }
    }

    /// What the page cache holds of the file, read without waiting for the device
    /// (`preadv2` with `RWF_NOWAIT`). Where the file is not in memory that call starts the
    /// device's read (the kernel's readahead) and returns: it arrives while the reader opens
    /// and asks for the batch's other files. A file system that cannot read without waiting
    /// (`EOPNOTSUPP`) is asked with `POSIX_FADV_WILLNEED` instead.
    fn read_cached(&mut self, file: &File) {
        while self.got < self.bytes.len() {
            match read_without_waiting(file, &mut self.bytes[self.got..], self.got as u64) {
                Ok(0) => break,
                Ok(read) => self.got += read,
                Err(error) => match error.raw_os_error() {
                    Some(libc::EINTR) => {}
                    Some(libc::EOPNOTSUPP) => {
                        waited_for_device();
                        let left = (self.bytes.len() - self.got) as u64;
                        return ask_ahead(file, self.got as u64, left);
                    }
                    // EAGAIN: on its way from the device. Anything else: met again below.
                    _ => break,
                },
            }
        }
        if self.got < self.bytes.len() {
            waited_for_device();
        }
    }

    /// The rest of the file, waiting for it; None when the file gave fewer bytes than its size
    /// said (a file that shrank, one in `/sys`): the hashing thread reads it the long way. The
    /// file's offset stays at its start either way.
    fn rest(mut self, file: &File) -> io::Result<Option<Vec<u8>>> {
        match file.read_exact_at(&mut self.bytes[self.got..], self.got as u64) {
            Ok(()) => Ok(Some(self.bytes)),
            Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
            Err(error) => Err(error),
        }
    }
}

/// Asks the device for `len` bytes of `file` from `at` now, without waiting for them
/// (`POSIX_FADV_WILLNEED` starts the reads and returns), a piece at a time: the kernel reads
/// at most a readahead window per call. Advice only: an error changes nothing.
pub(crate) fn ask_ahead(file: &File, at: u64, len: u64) {
    const PIECE: u64 = 1024 * 1024;
    let mut start = at;
    while start < at + len {
        let piece = PIECE.min(at + len - start);
        let (Ok(offset), Ok(piece_len)) =
            (libc::off_t::try_from(start), libc::off_t::try_from(piece))
        else {
            return;
        };
        // SAFETY: posix_fadvise only reads its arguments; the descriptor is ours and open.
        unsafe {
            libc::posix_fadvise(
                file.as_raw_fd(),
                offset,
                piece_len,
                libc::POSIX_FADV_WILLNEED,
            );
        }
        start += piece;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_of(len: usize) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
        file.write_all(&bytes).unwrap();
        file
    }

    #[test]
    fn small_files_are_read_whole_and_larger_ones_left_open() {
        let small = file_of(1000);
        let large = file_of(READ_WHOLE as usize + 1);
        let empty = file_of(0);
        let inputs = [
            Input::Path(small.path().to_path_buf()),
            Input::Stdin,
            Input::Path(large.path().to_path_buf()),
            Input::Path(empty.path().to_path_buf()),
            Input::Path("/no/such/file".into()),
        ];
        let refs: Vec<&Input> = inputs.iter().collect();
        let mut ahead = open_ahead(&refs, MmapChoice::Auto);
        match ahead.take(0) {
            Some(Ok(Opened::Read { bytes, before })) => {
                assert_eq!(bytes, std::fs::read(small.path()).unwrap());
                assert_eq!(before.len(), 1000);
            }
            other => panic!("small file: {other:?}"),
        }
        assert!(ahead.take(1).is_none(), "standard input is not read ahead");
        // Left open with the state `fstat` gave, which the hashing thread then does not ask
        // for again.
        for (index, len) in [(2, READ_WHOLE + 1), (3, 0)] {
            match ahead.take(index) {
                Some(Ok(Opened::Open {
                    before: Some(before),
                    ..
                })) => assert_eq!(before.len(), len),
                other => panic!("input {index}: {other:?}"),
            }
        }
        let missing = ahead.take(4).unwrap().unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        assert!(ahead.take(0).is_none(), "taken once");
    }

    #[test]
    fn with_mmap_every_file_stays_open_to_be_mapped() {
        let small = file_of(100);
        let input = Input::Path(small.path().to_path_buf());
        let mut ahead = open_ahead(&[&input], MmapChoice::Always);
        assert!(matches!(ahead.take(0), Some(Ok(Opened::Open { .. }))));
    }

    /// Whether any page of `file` is in the page cache (`mincore` over a mapping of it).
    fn resident(file: &File, len: usize) -> bool {
        // SAFETY: a private read-only mapping of an open file, unmapped before returning;
        // mincore writes one byte per page into `pages`, which has room for every page.
        unsafe {
            let map = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            );
            assert_ne!(map, libc::MAP_FAILED);
            let mut pages = vec![0u8; len.div_ceil(4096)];
            assert_eq!(libc::mincore(map, len, pages.as_mut_ptr()), 0);
            libc::munmap(map, len);
            pages.iter().any(|page| page & 1 != 0)
        }
    }

    /// Files of a batch that are not in the page cache (put out of it with
    /// `POSIX_FADV_DONTNEED`, on the repository's own file system: tmpfs keeps its pages)
    /// come back whole and right, through the pass that waits for the device.
    #[test]
    fn files_out_of_the_page_cache_are_read_whole() {
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let contents: Vec<Vec<u8>> = (0..8)
            .map(|n| (0..1000 + n * 4000).map(|i| (i * 31 + n) as u8).collect())
            .collect();
        let mut paths = Vec::new();
        for (n, bytes) in contents.iter().enumerate() {
            let path = dir.path().join(format!("f{n}"));
            let mut file = File::create(&path).unwrap();
            file.write_all(bytes).unwrap();
            file.sync_all().unwrap();
            // SAFETY: advice on our own open descriptor.
            unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
            paths.push(path);
        }
        let evicted = paths
            .iter()
            .zip(&contents)
            .all(|(path, bytes)| !resident(&File::open(path).unwrap(), bytes.len()));
        if !evicted {
            eprintln!("skipped: this file system kept the files in the page cache");
            return;
        }
        let inputs: Vec<Input> = paths.iter().cloned().map(Input::Path).collect();
        let refs: Vec<&Input> = inputs.iter().collect();
        let mut ahead = open_ahead(&refs, MmapChoice::Auto);
        for (n, bytes) in contents.iter().enumerate() {
            match ahead.take(n) {
                Some(Ok(Opened::Read {
                    bytes: read,
                    before,
                })) => {
                    assert_eq!(&read, bytes, "file {n}");
                    assert_eq!(before.len(), bytes.len() as u64);
                }
                other => panic!("file {n}: {other:?}"),
            }
        }
    }

    /// A larger file is asked of the device only when it is not in the page cache: its last
    /// byte tells.
    #[test]
    fn only_a_file_out_of_the_page_cache_is_asked_for() {
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let path = dir.path().join("f");
        let bytes: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let mut file = File::create(&path).unwrap();
        file.write_all(&bytes).unwrap();
        file.sync_all().unwrap();
        let file = File::open(&path).unwrap();
        if !reads_without_waiting(&file) {
            eprintln!("skipped: this file system refuses RWF_NOWAIT");
            return;
        }
        assert!(end_is_cached(&file, 100_000), "written a moment ago");
        // The probe starts the device's read of what it does not find, and a read the host
        // answers from its own cache can complete before the probe looks again: then the
        // probe rightly finds the byte (it failed CI once). So the file is put out of the
        // page cache up to five times, and the probe must find it missing at least once.
        let mut found_missing = false;
        for _ in 0..5 {
            // SAFETY: advice on our own open descriptor.
            unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
            if resident(&file, 100_000) {
                eprintln!("skipped: this file system kept the file in the page cache");
                return;
            }
            if !end_is_cached(&file, 100_000) {
                found_missing = true;
                break;
            }
        }
        assert!(
            found_missing,
            "put out of the page cache, found there five times"
        );
    }

    /// A file read in pieces: what the page cache gave first, the rest waited for, and a file
    /// that turned out shorter than its size said is left to the hashing thread.
    #[test]
    fn a_whole_file_is_put_together_from_its_pieces() {
        let mut file = tempfile::tempfile_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let bytes: Vec<u8> = (0..10_000u32).map(|i| (i % 253) as u8).collect();
        file.write_all(&bytes).unwrap();
        let mut whole = Whole::new(10_000);
        whole.bytes[..3].copy_from_slice(&bytes[..3]);
        whole.got = 3;
        assert_eq!(whole.rest(&file).unwrap().unwrap(), bytes);
        let mut longer = Whole::new(10_001);
        longer.read_cached(&file);
        if reads_without_waiting(&file) {
            assert_eq!(
                longer.got, 10_000,
                "everything the file has, from the page cache"
            );
        } else {
            eprintln!("skipped: this file system refuses RWF_NOWAIT; the rest is read below");
            assert_eq!(longer.got, 0);
        }
        assert!(
            longer.rest(&file).unwrap().is_none(),
            "one byte short: read the long way"
        );
    }

    /// A streak of files found in the page cache leaves most probes out; the first sampled
    /// file that is not there brings them all back.
    #[test]
    fn a_streak_in_the_page_cache_probes_one_file_in_sixteen_until_one_is_not_there() {
        let streak = Streak::new();
        let probes = std::cell::Cell::new(0);
        let guess = |answer: bool| {
            streak.guess(|| {
                probes.set(probes.get() + 1);
                answer
            })
        };
        for _ in 0..Streak::TRUSTED_AFTER {
            assert!(guess(true));
        }
        assert_eq!(
            probes.get(),
            16,
            "every file asked until the streak is long enough"
        );
        for _ in 0..10 * Streak::SAMPLE_EVERY {
            assert!(guess(true));
        }
        assert_eq!(probes.get(), 16 + 10, "then one in sixteen");
        assert!(!guess(false), "the next one sampled is not there");
        for _ in 0..5 {
            assert!(!guess(false));
        }
        assert_eq!(probes.get(), 16 + 10 + 6, "from then on each is asked");
    }

    /// Whether `file`'s file system reads with `RWF_NOWAIT` (not `EOPNOTSUPP`).
    fn reads_without_waiting(file: &File) -> bool {
        let result = read_without_waiting(file, &mut [0u8], 0);
        !matches!(result, Err(error) if error.raw_os_error() == Some(libc::EOPNOTSUPP))
    }
}
