//! Read-only file mappings that survive the file shrinking under them.
//!
//! Touching a page of a mapping past the end of its file raises SIGBUS, which would kill the
//! process: another program truncating a file while fasthash hashes it must not do that. Every
//! mapping is registered in a fixed table; a SIGBUS handler that finds the faulting address in
//! the table maps a page of zeros over the missing page, marks the mapping as truncated and
//! returns, so the hash completes (on wrong bytes) and the caller, seeing the mark, reports the
//! file as changed instead of printing that hash. A fault outside every registered mapping is
//! handed back to the handler that was there before (Rust's stack-overflow reporter).

use std::fs::File;
use std::io;
use std::os::unix::io::AsRawFd;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::sync::Once;

/// How many mappings may be live at once; a mapping asked for beyond that is refused and the
/// caller reads the file instead.
const SLOTS: usize = 64;

struct Slot {
    start: AtomicUsize,
    end: AtomicUsize,
    truncated: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)]
const EMPTY_SLOT: Slot = Slot {
    start: AtomicUsize::new(0),
    end: AtomicUsize::new(0),
    truncated: AtomicBool::new(false),
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
    /// guarded slot is free or the handler could not be installed: the caller reads instead.
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
            let error = io::Error::last_os_error();
            REGISTRY[slot].start.store(0, Ordering::Release);
            return Err(error);
        }
        let entry = &REGISTRY[slot];
        entry.truncated.store(false, Ordering::Relaxed);
        entry.end.store(ptr as usize + len, Ordering::Relaxed);
        entry.start.store(ptr as usize, Ordering::Release);
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

    /// Whether a page was missing when read: the file shrank while mapped.
    pub fn was_truncated(&self) -> bool {
        REGISTRY[self.slot].truncated.load(Ordering::Acquire)
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

    pub fn advise_sequential(&self) {
        self.advise(0..self.len, libc::MADV_SEQUENTIAL);
    }

    fn advise(&self, range: std::ops::Range<usize>, advice: libc::c_int) {
        let page = page_size();
        let start = range.start / page * page;
        let end = range.end.min(self.len);
        if start >= end {
            return;
        }
        // SAFETY: the range lies inside our own mapping; these advices never make the
        // mapping's contents differ from the file's (DONTNEED on a private, never-written
        // mapping only drops page-table entries, and reading refaults from the file).
        unsafe {
            libc::madvise(self.ptr.add(start).cast(), end - start, advice);
        }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        let entry = &REGISTRY[self.slot];
        entry.start.store(0, Ordering::Release);
        entry.end.store(0, Ordering::Release);
        // SAFETY: unmapping exactly the region mapped in `new`, which no view outlives
        // (`bytes` borrows `self`).
        unsafe {
            libc::munmap(self.ptr.cast(), self.len);
        }
    }
}

// Linux 5.14; older kernels answer EINVAL and the pages fault in as they are read.
const MADV_POPULATE_READ: libc::c_int = 22;

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
                entry.truncated.store(true, Ordering::Release);
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
