//! The open stage: a batch's files opened, looked at and read (or asked of the device) by a
//! reader, ahead of the hashing threads ([`super::parallel`] runs it).
//!
//! On a cold disk or a network file system every open, `fstat` and read waits on the device;
//! with many readers each waiting on its own batch, that many requests are in flight while the
//! hashing threads hash what is already in memory. In the page cache the same calls cost what
//! they cost the hashing threads before: they only moved.
//!
//! - A regular file of up to [`READ_WHOLE`] bytes is read whole here, in one `pread`, and
//!   closed: the hashing threads get its bytes.
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

/// Files up to this size are read whole by the reader: one `pread`, as the lanes read a file of
/// up to one window.
pub(crate) const READ_WHOLE: u64 = crate::kernels::engine::PULL_WINDOW as u64;

/// A file as the reader left it for the hashing threads.
#[derive(Debug)]
pub(crate) enum Opened {
    /// Read whole in one call, and closed: its bytes and its state when opened.
    Read { bytes: Vec<u8>, before: Metadata },
    /// Open, to be read by the hashing thread.
    Open(File),
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
pub(crate) fn open_ahead(inputs: &[&Input], mmap: MmapChoice) -> Ahead {
    if super::cache::active().is_some() {
        return Ahead::nothing(inputs.len());
    }
    let paths = inputs
        .iter()
        .filter(|input| matches!(input, Input::Path(_)))
        .count();
    let mut permits = Permits::take(paths);
    let files = inputs
        .iter()
        .map(|input| match input {
            Input::Stdin => None,
            Input::Path(path) => Some(open_one(path, mmap, &mut permits)),
        })
        .collect();
    Ahead {
        files,
        _permits: Some(permits),
    }
}

/// Opens one file and reads it whole when it is small. Only a failed open is an `Err`: what
/// fails after it is left to the hashing thread, which meets it again as a read failure, so a
/// check can tell a file that did not open from one that could not be read (xxhsum stops at
/// the second).
fn open_one(path: &Path, mmap: MmapChoice, permits: &mut Permits) -> io::Result<Opened> {
    let file = long_paths::open_file(path)?;
    let Ok(before) = file.metadata() else {
        return Ok(Opened::Open(file));
    };
    let len = before.len();
    if !before.is_file() || len == 0 {
        return Ok(Opened::Open(file));
    }
    // `--mmap` maps every file: none is read here.
    if len <= READ_WHOLE && mmap != MmapChoice::Always {
        if let Ok(Some(bytes)) = read_whole(&file, len) {
            drop(file);
            // Closed: its descriptor is free for the next file.
            drop(permits.one());
            return Ok(Opened::Read { bytes, before });
        }
        return Ok(Opened::Open(file));
    }
    // A file to be mapped is read by the kernel's own readahead as it is hashed, in order:
    // asking for it here as well measured slower on a cold disk (its requests cut across
    // the readahead's larger ones).
    if len < MAP_THRESHOLD {
        ask_ahead(&file, 0, len);
    }
    Ok(Opened::Open(file))
}

/// A file's bytes in one `pread` from its start; None when that gave fewer than its size said
/// (a file that shrank, one in `/sys`): the hashing thread reads it the long way. The file's
/// offset stays at its start either way.
fn read_whole(file: &File, len: u64) -> io::Result<Option<Vec<u8>>> {
    let mut bytes = vec![0; len as usize];
    let read = loop {
        match file.read_at(&mut bytes, 0) {
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            result => break result?,
        }
    };
    Ok((read == bytes.len()).then_some(bytes))
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
        assert!(matches!(ahead.take(2), Some(Ok(Opened::Open(_)))));
        assert!(matches!(ahead.take(3), Some(Ok(Opened::Open(_)))));
        let missing = ahead.take(4).unwrap().unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        assert!(ahead.take(0).is_none(), "taken once");
    }

    #[test]
    fn with_mmap_every_file_stays_open_to_be_mapped() {
        let small = file_of(100);
        let input = Input::Path(small.path().to_path_buf());
        let mut ahead = open_ahead(&[&input], MmapChoice::Always);
        assert!(matches!(ahead.take(0), Some(Ok(Opened::Open(_)))));
    }
}
