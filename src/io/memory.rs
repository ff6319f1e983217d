//! Running out of memory ends the run as coreutils' `xalloc_die` ends it: `PROGRAM: memory
//! exhausted` on standard error and status 1. Rust's own handler prints `memory allocation of
//! N bytes failed` and aborts (SIGABRT: status 134, and a core dump where they are kept); a run
//! of `-r` over 20,000 files under `ulimit -v 20000` ended that way.
//!
//! The C library's allocations fail apart from Rust's: `opendir` returns `ENOMEM` when its
//! buffer cannot be had, and the walk, told so of a directory, ends the run the same way
//! ([`exit_if_exhausted`]) instead of reporting a readable directory as unreadable.
//!
//! `main` installs [`ExitWhenExhausted`] as the global allocator. std's fallible allocations
//! (`try_reserve`, which `read_to_end` uses) then end the run the same way instead of returning
//! an error: memory that cannot be had is the run's failure, not one file's.

use crate::format::messages::MEMORY_EXHAUSTED;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::OnceLock;

/// The name the message goes under: the program's, once `main` has it.
static PROGRAM: OnceLock<String> = OnceLock::new();

/// Sets the name `PROGRAM: memory exhausted` is written under (fasthash's until then).
pub fn name_the_program(program: &str) {
    let _ = PROGRAM.set(program.to_owned());
}

/// The system's allocator, with an allocation it refuses ending the run.
pub struct ExitWhenExhausted;

// SAFETY: every call goes to `System` with the same arguments; a null pointer it returns ends
// the process instead of being returned.
unsafe impl GlobalAlloc for ExitWhenExhausted {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's guarantees, passed on.
        granted(unsafe { System.alloc(layout) })
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        granted(unsafe { System.alloc_zeroed(layout) })
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above.
        granted(unsafe { System.realloc(block, layout, new_size) })
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(block, layout) }
    }
}

/// Ends the run as out of memory when `error` says memory could not be had (`ENOMEM`).
pub(crate) fn exit_if_exhausted(error: &std::io::Error) {
    if error.raw_os_error() == Some(libc::ENOMEM) {
        exhausted();
    }
}

fn granted(block: *mut u8) -> *mut u8 {
    if block.is_null() {
        exhausted();
    }
    block
}

/// Writes the message and exits at once. Nothing here allocates, and nothing waits for a lock
/// another thread may hold: the message goes to descriptor 2 by `write(2)`, and `_exit` runs no
/// destructors or handlers. Whole lines already written to standard output stay written.
#[cold]
fn exhausted() -> ! {
    let program = PROGRAM.get().map_or("fasthash", String::as_str);
    for part in [
        program.as_bytes(),
        b": ",
        MEMORY_EXHAUSTED.as_bytes(),
        b"\n",
    ] {
        write_to_stderr(part);
    }
    // SAFETY: ends the process; nothing of ours runs after it.
    unsafe { libc::_exit(1) }
}

fn write_to_stderr(mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: writes from a live slice to descriptor 2.
        let written = unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
        match usize::try_from(written) {
            Ok(written) if written > 0 => bytes = &bytes[written..],
            _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
            _ => return,
        }
    }
}
