//! Read-only file mappings that survive a page that cannot be read: the file shrinking under
//! them, or the device failing.
//!
//! Touching a page of a mapping that the kernel cannot fill raises SIGBUS, which would kill
//! the process: a page past the end of a file that another program truncated while fasthash
//! hashes it, or a page the device failed to read (a bad sector, a network file system's
//! error). Neither may do that. Every mapping is registered in a fixed table; a SIGBUS handler
//! that finds the faulting address in the table maps a page of zeros over the missing page,
//! marks the mapping with that page's offset and returns, so the hash completes (on wrong
//! bytes) and the caller, seeing the mark, reports the file instead of printing that hash: as
//! changed, or with the device's error (`read::fault_error` tells which). A fault outside
//! every registered mapping is handed back to the handler that was there before (Rust's
//! stack-overflow reporter).

use std::fs::File;
use std::io;
use std::os::unix::io::AsRawFd;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::sync::Once;

/// How many mappings may be live at once; a mapping asked for beyond that is refused and the
/// caller reads the file instead. Room for every file of a few threads' [`Arena`]s beside the
/// large files.
const SLOTS: usize = 256;

struct Slot {
    start: AtomicUsize,
    end: AtomicUsize,
    /// The offset of the first page that could not be read, or [`NO_FAULT`].
    fault: AtomicUsize,
}

/// A slot's `fault` while every page read so far was there.
const NO_FAULT: usize = usize::MAX;

#[allow(clippy::declare_interior_mutable_const)]
const EMPTY_SLOT: Slot = Slot {
    start: AtomicUsize::new(0),
    end: AtomicUsize::new(0),
    fault: AtomicUsize::new(NO_FAULT),
};

static REGISTRY: [Slot; SLOTS] = [EMPTY_SLOT; SLOTS];
static PREVIOUS_ACTION: AtomicPtr<libc::sigaction> = AtomicPtr::new(ptr::null_mut());
static INSTALL: Once = Once::new();
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// A read-only, private mapping of a whole file.
pub struct Mapping {
    ptr: *mut u8,
    len: usize,
    slot: usize,
}

// SAFETY: the mapping is read-only memory owned by this value; sharing `&[u8]` views of it
// between threads is as safe as sharing any immutable buffer.
unsafe impl Send for Mapping {}
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Maps `len` bytes of `file` (its size when opened; `len` > 0). `Ok(None)` when no
    /// guarded slot is free, the handler could not be installed, or the file cannot be mapped:
    /// the caller reads instead. A mapping reads nothing, so its failure says nothing of the
    /// file's bytes: no address space left (`ulimit -v`, ENOMEM), or a file system that does
    /// not map (sysfs, ENODEV, where `--mmap` had reported readable files as unreadable).
    pub fn new(file: &File, len: u64) -> io::Result<Option<Mapping>> {
        if !install_handler() {
            return Ok(None);
        }
        let len = usize::try_from(len).map_err(|_| io::Error::from_raw_os_error(libc::EFBIG))?;
        let Some(slot) = claim_slot() else {
            return Ok(None);
        };
        // SAFETY: a fresh private read-only mapping chosen by the kernel; nothing aliases it.
        let ptr = unsafe {
            libc::mmap(
                ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            REGISTRY[slot].start.store(0, Ordering::Release);
            return Ok(None);
        }
        register(slot, ptr as usize, len);
        Ok(Some(Mapping {
            ptr: ptr.cast(),
            len,
            slot,
        }))
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` is a live mapping of `len` readable bytes until `drop`; pages past the
        // end of a shrunken file read as zeros through the SIGBUS handler.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    /// The offset of the first page that could not be read (it reads as zeros): the file
    /// shrank while mapped, or the device failed to give it.
    pub fn fault(&self) -> Option<u64> {
        fault(self.slot)
    }

    /// Records that the file could not be read from `offset` on, where it was read through a
    /// descriptor rather than the mapping (it shrank, or the device failed): reported as a
    /// fault of the mapping is, unless a fault came first.
    pub(crate) fn mark_fault(&self, offset: usize) {
        let _ = REGISTRY[self.slot].fault.compare_exchange(
            NO_FAULT,
            offset,
            Ordering::AcqRel,
            Ordering::Relaxed,
        );
    }

    /// Whether the page holding byte `offset` is in memory (`mincore`): for a file, in the
    /// page cache. False where it cannot be told.
    pub(crate) fn is_resident(&self, offset: usize) -> bool {
        if offset >= self.len {
            return false;
        }
        let page = page_size();
        let start = (self.ptr as usize + offset) & !(page - 1);
        let mut state = 0u8;
        // SAFETY: one page inside our own live mapping; `state` has room for its one byte.
        let done = unsafe { libc::mincore(start as *mut libc::c_void, 1, &mut state) };
        done == 0 && state & 1 == 1
    }

    /// Asks the kernel to fill the page tables for `range` now (`MADV_POPULATE_READ`), so the
    /// hashing thread does not stop at every page. Errors are ignored: the pages still fault in
    /// when touched.
    pub fn populate(&self, range: std::ops::Range<usize>) {
        self.advise(range, MADV_POPULATE_READ);
    }

    /// Drops the page-table entries of `range` once it is hashed, so resident memory stays
    /// bounded and the final unmap has little left to tear down.
    pub fn release(&self, range: std::ops::Range<usize>) {
        self.advise(range, libc::MADV_DONTNEED);
    }

    /// Asks the kernel to start reading `range` into the page cache (`MADV_WILLNEED`) and
    /// returns without waiting; advice only, errors change nothing.
    pub fn will_need(&self, range: std::ops::Range<usize>) {
        self.advise(range, libc::MADV_WILLNEED);
    }

    pub fn advise_sequential(&self) {
        self.advise(0..self.len, libc::MADV_SEQUENTIAL);
    }

    fn advise(&self, range: std::ops::Range<usize>, advice: libc::c_int) {
        advise(
            self.ptr as usize,
            range.start..range.end.min(self.len),
            advice,
        );
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        unregister(self.slot);
        // SAFETY: unmapping exactly the region mapped in `new`, which no view outlives
        // (`bytes` borrows `self`).
        unsafe {
            libc::munmap(self.ptr.cast(), self.len);
        }
    }
}

// Linux 5.14; older kernels answer EINVAL and the pages fault in as they are read.
const MADV_POPULATE_READ: libc::c_int = 22;

/// Gives `advice` for the pages of `range` (from a page boundary down) of the read-only,
/// private file mapping at `start`; errors are ignored (a page the advice could not fill
/// faults in when touched).
fn advise(start: usize, range: std::ops::Range<usize>, advice: libc::c_int) {
    let page = page_size();
    let from = range.start / page * page;
    if from >= range.end {
        return;
    }
    // SAFETY: the callers' ranges lie inside their own mappings; these advices never make a
    // mapping's contents differ from the file's (DONTNEED on a private, never-written mapping
    // only drops page-table entries, and reading refaults from the file).
    unsafe {
        libc::madvise(
            (start + from) as *mut libc::c_void,
            range.end - from,
            advice,
        );
    }
}

/// The page size, read once; the signal handler reads it from here without a system call.
static PAGE: AtomicUsize = AtomicUsize::new(0);

fn page_size() -> usize {
    match PAGE.load(Ordering::Relaxed) {
        0 => {
            // SAFETY: sysconf has no preconditions.
            let size = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
                .ok()
                .filter(|&s| s > 0)
                .unwrap_or(4096);
            PAGE.store(size, Ordering::Relaxed);
            size
        }
        size => size,
    }
}

fn claim_slot() -> Option<usize> {
    // A slot is free while its start is 0; claiming stores a placeholder that no real address
    // has (1) until the mapping exists.
    (0..SLOTS).find(|&i| {
        REGISTRY[i]
            .start
            .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    })
}

/// Slot `slot`'s fault, as a file offset.
fn fault(slot: usize) -> Option<u64> {
    match REGISTRY[slot].fault.load(Ordering::Acquire) {
        NO_FAULT => None,
        offset => Some(offset as u64),
    }
}

/// Makes a claimed slot describe the mapping of `len` bytes at `start`, with no fault yet.
fn register(slot: usize, start: usize, len: usize) {
    let entry = &REGISTRY[slot];
    entry.fault.store(NO_FAULT, Ordering::Relaxed);
    entry.end.store(start + len, Ordering::Relaxed);
    entry.start.store(start, Ordering::Release);
}

/// Frees a slot, before its mapping goes.
fn unregister(slot: usize) {
    let entry = &REGISTRY[slot];
    entry.start.store(0, Ordering::Release);
    entry.end.store(0, Ordering::Release);
}

fn install_handler() -> bool {
    INSTALL.call_once(|| {
        page_size();
        // SAFETY: sigaction with a zeroed struct, our handler and SA_SIGINFO; the previous
        // action is kept (leaked, for the process's lifetime) so foreign faults go back to it.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigbus as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            let previous = Box::into_raw(Box::new(std::mem::zeroed::<libc::sigaction>()));
            if libc::sigaction(libc::SIGBUS, &action, previous) == 0 {
                PREVIOUS_ACTION.store(previous, Ordering::Release);
                INSTALLED.store(true, Ordering::Release);
            } else {
                drop(Box::from_raw(previous));
            }
        }
    });
    INSTALLED.load(Ordering::Acquire)
}

/// Runs on the faulting thread. Only async-signal-safe work: atomics, `mmap`, `sigaction`.
extern "C" fn on_sigbus(
    _signal: libc::c_int,
    info: *mut libc::siginfo_t,
    _context: *mut libc::c_void,
) {
    // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers; si_addr is the
    // faulting address for SIGBUS.
    let address = unsafe { (*info).si_addr() } as usize;
    let page = match PAGE.load(Ordering::Relaxed) {
        0 => 4096,
        size => size,
    };
    for entry in REGISTRY.iter() {
        let start = entry.start.load(Ordering::Acquire);
        let end = entry.end.load(Ordering::Acquire);
        if start > 1 && address >= start && address < end {
            let page_start = address & !(page - 1);
            // SAFETY: replaces one page inside our own registered mapping with zeros, so the
            // faulting read can complete; the region stays ours and is unmapped in `drop`.
            let replaced = unsafe {
                libc::mmap(
                    page_start as *mut libc::c_void,
                    page,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if replaced != libc::MAP_FAILED {
                // The first fault is the one reported; a lock-free atomic is safe here.
                let _ = entry.fault.compare_exchange(
                    NO_FAULT,
                    page_start.max(start) - start,
                    Ordering::AcqRel,
                    Ordering::Relaxed,
                );
                return;
            }
            break;
        }
    }
    // Not ours (or we could not repair it): restore the previous action and return; the
    // instruction faults again and the previous handler, or the default action, takes it.
    let previous = PREVIOUS_ACTION.load(Ordering::Acquire);
    // SAFETY: `previous` was filled by sigaction in `install_handler` and is never freed.
    unsafe {
        if previous.is_null() {
            let mut default: libc::sigaction = std::mem::zeroed();
            default.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(libc::SIGBUS, &default, ptr::null_mut());
        } else {
            libc::sigaction(libc::SIGBUS, previous, ptr::null_mut());
        }
    }
}

/// Small files mapped one after the other into one stretch of address space reserved up front,
/// and all unmapped at once by [`Arena::clear`].
///
/// Unmapping is what costs with several threads, as under `--mmap`: each `munmap` makes every
/// other core that runs the process flush its TLB (an interrupt to each, measured at a fifth
/// of the time of hashing 256 KiB files on two cores when each file was unmapped on its own:
/// MD5 106 ms, against 77 for this arena and 84 for reading). Replacing the whole stretch by
/// one reserved, empty mapping is one such flush a batch. On one thread a [`Mapping`] a file
/// would do as well (108 against 110 ms); the arena is the one path for both. Each file's pages
/// are filled in as it is mapped (`MADV_POPULATE_READ`), with no fault per page while hashing.
/// Each file is registered as [`Mapping`]s are, so a file that shrinks while mapped is
/// reported the same way.
pub(crate) struct Arena {
    /// The reserved stretch: `FILES` places of `MAX_FILE` bytes; 0 when none could be made.
    base: usize,
    /// The files mapped since the last clear, in their places: (registry slot, length).
    files: Vec<(usize, usize)>,
}

impl Arena {
    /// The longest file an arena takes.
    pub(crate) const MAX_FILE: usize = 4 * 1024 * 1024;
    /// How many files it holds between clears: a batch of the widest lanes.
    pub(crate) const FILES: usize = 32;

    /// An arena with its address space reserved (none taken when reserving fails: then every
    /// `map` declines and the files are read).
    pub(crate) fn new() -> Arena {
        // SAFETY: a fresh anonymous mapping with no access, placed by the kernel; NORESERVE:
        // it only holds address space.
        let base = unsafe {
            libc::mmap(
                ptr::null_mut(),
                Self::MAX_FILE * Self::FILES,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        Arena {
            base: if base == libc::MAP_FAILED {
                0
            } else {
                base as usize
            },
            files: Vec::new(),
        }
    }

    /// Maps the first `len` bytes of `file` (its size when opened, 0 < `len` <= `MAX_FILE`) in
    /// the next place: its index for [`Arena::bytes`], or None when the arena is full or could
    /// not map it (the caller reads the file instead).
    pub(crate) fn map(&mut self, file: &File, len: u64) -> Option<usize> {
        let len = usize::try_from(len).ok()?;
        if self.base == 0
            || len == 0
            || len > Self::MAX_FILE
            || self.files.len() == Self::FILES
            || !install_handler()
        {
            return None;
        }
        let slot = claim_slot()?;
        let at = self.base + self.files.len() * Self::MAX_FILE;
        // SAFETY: replaces part of our own reserved stretch (MAP_FIXED inside it), which
        // nothing else uses; the place is past every file mapped since the last clear.
        let ptr = unsafe {
            libc::mmap(
                at as *mut libc::c_void,
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_FIXED,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            REGISTRY[slot].start.store(0, Ordering::Release);
            // A failed MAP_FIXED may have unmapped the place; reserve it again.
            self.reserve(at, Self::MAX_FILE);
            return None;
        }
        register(slot, at, len);
        // Not by MAP_POPULATE: where the device fails a page, Linux's populating mmap retried
        // the read for ever (a FUSE file with a bad sector hung the run in `mmap`), where
        // MADV_POPULATE_READ gives up at once, and the page, touched, raises the SIGBUS that
        // reports it.
        advise(at, 0..len, MADV_POPULATE_READ);
        self.files.push((slot, len));
        Some(self.files.len() - 1)
    }

    /// File `index`'s bytes; pages that could not be read (past the end of a file that
    /// shrank, or failed by the device) read as zeros, and [`Arena::fault`] says so.
    pub(crate) fn bytes(&self, index: usize) -> &[u8] {
        let (_, len) = self.files[index];
        // SAFETY: place `index` holds a live read-only mapping of `len` bytes until `clear`,
        // which takes `&mut self` and so outlives every view.
        unsafe {
            std::slice::from_raw_parts((self.base + index * Self::MAX_FILE) as *const u8, len)
        }
    }

    /// The offset of the first page of file `index` that could not be read, as
    /// [`Mapping::fault`].
    pub(crate) fn fault(&self, index: usize) -> Option<u64> {
        fault(self.files[index].0)
    }

    /// Unmaps every file at once, leaving the stretch reserved for the next batch.
    pub(crate) fn clear(&mut self) {
        if self.files.is_empty() {
            return;
        }
        // Through the last place used: places past it hold nothing.
        let used = self.files.len() * Self::MAX_FILE;
        for (slot, _) in self.files.drain(..) {
            unregister(slot);
        }
        self.reserve(self.base, used);
    }

    /// Makes `len` bytes from `at` reserved and empty again; gives the arena up if it cannot.
    fn reserve(&mut self, at: usize, len: usize) {
        // SAFETY: `at..at + len` lies inside our own stretch, whose files are no longer viewed.
        let ptr = unsafe {
            libc::mmap(
                at as *mut libc::c_void,
                len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            // SAFETY: the whole stretch is ours; nothing views it.
            unsafe {
                libc::munmap(self.base as *mut libc::c_void, Self::MAX_FILE * Self::FILES);
            }
            self.base = 0;
        }
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        self.clear();
        if self.base != 0 {
            // SAFETY: the whole stretch is ours and `clear` left no file in it.
            unsafe {
                libc::munmap(self.base as *mut libc::c_void, Self::MAX_FILE * Self::FILES);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_of(bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(bytes).unwrap();
        file
    }

    fn pattern(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31) ^ seed)
            .collect()
    }

    #[test]
    fn an_arena_maps_files_in_turn_until_full_and_again_after_clearing() {
        let mut arena = Arena::new();
        let contents: Vec<Vec<u8>> = (0..Arena::FILES + 1)
            .map(|i| pattern(1 + i * 7919, i as u8))
            .collect();
        let files: Vec<_> = contents.iter().map(|c| file_of(c)).collect();
        for round in 0..2 {
            let places: Vec<Option<usize>> = files
                .iter()
                .zip(&contents)
                .map(|(file, content)| arena.map(file.as_file(), content.len() as u64))
                .collect();
            assert!(
                places[..Arena::FILES].iter().all(Option::is_some),
                "round {round}"
            );
            assert_eq!(
                places[Arena::FILES],
                None,
                "round {round}: a full arena declines"
            );
            for (place, content) in places.iter().zip(&contents).take(Arena::FILES) {
                let place = place.unwrap();
                assert_eq!(arena.bytes(place), &content[..]);
                assert_eq!(arena.fault(place), None);
            }
            arena.clear();
        }
        let big = file_of(&[1]);
        assert_eq!(arena.map(big.as_file(), Arena::MAX_FILE as u64 + 1), None);
        assert_eq!(arena.map(big.as_file(), 0), None);
    }

    #[test]
    fn residency_follows_the_page_cache() {
        let temp = file_of(&pattern(64 * 1024, 7));
        let file = File::open(temp.path()).unwrap();
        let mapping = Mapping::new(&file, 64 * 1024).unwrap().unwrap();
        assert!(!mapping.is_resident(64 * 1024), "past the end");
        // Just written: in the page cache.
        assert!(mapping.is_resident(0) && mapping.is_resident(64 * 1024 - 1));
        // Written back and dropped, the pages leave it, where the file system lets them go
        // (tmpfs keeps them: there is nowhere else they are).
        temp.as_file().sync_all().unwrap();
        // SAFETY: advice on our own open descriptor.
        unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        if mapping.is_resident(0) {
            eprintln!("skipped: this file system kept the dropped pages in memory");
            return;
        }
        assert!(mapping.bytes()[..4096] == pattern(64 * 1024, 7)[..4096]);
        assert!(mapping.is_resident(0), "read back in");
    }

    #[test]
    fn a_file_that_shrinks_in_an_arena_reads_as_zeros_and_is_marked() {
        let page = page_size();
        let content = pattern(3 * page, 5);
        let file = file_of(&content);
        let other = file_of(&content);
        let mut arena = Arena::new();
        let shrunk = arena.map(file.as_file(), content.len() as u64).unwrap();
        let kept = arena.map(other.as_file(), content.len() as u64).unwrap();
        file.as_file().set_len(page as u64).unwrap();
        let bytes = arena.bytes(shrunk);
        // Read every byte, as a hash does: pages past the new end fault and are replaced.
        let past_end: usize = bytes[page..].iter().map(|&b| b as usize).sum();
        assert_eq!(&bytes[..page], &content[..page]);
        assert_eq!(past_end, 0);
        // Marked at the first page past the new end, the first that could not be read.
        assert_eq!(arena.fault(shrunk), Some(page as u64));
        assert_eq!(arena.bytes(kept), &content[..]);
        assert_eq!(arena.fault(kept), None);
        arena.clear();
        let again = arena.map(other.as_file(), content.len() as u64).unwrap();
        assert_eq!(arena.fault(again), None, "the mark goes with the clear");
    }
}
