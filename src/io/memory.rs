//! Running out of memory ends the run as coreutils' `xalloc_die` ends it: `PROGRAM: memory
//! exhausted` on standard error and status 1. Rust's own handler prints `memory allocation of
//! N bytes failed` and aborts (SIGABRT: status 134, and a core dump where they are kept); a run
//! of `-r` over 20,000 files under `ulimit -v 20000` ended that way.
//!
//! The C library's allocations fail apart from Rust's: `opendir` returns `ENOMEM` when its
//! buffer cannot be had, and the walk, told so of a directory, ends the run the same way
//! ([`exit_if_exhausted`]) instead of reporting a readable directory as unreadable.
//!
//! Before `main`, Rust's runtime maps a signal stack for the main thread, and aborts when it
//! cannot: a band of about 20 KiB of `ulimit -v`, just below what a run needs, ended there.
//! `main.rs` asks [`exit_unless_room_for_the_runtime`] first, from an `.init_array` entry.
//!
//! `main` installs [`ExitWhenExhausted`] as the global allocator. std's fallible allocations
//! (`try_reserve`, which `read_to_end` uses) then end the run the same way instead of returning
//! an error: memory that cannot be had is the run's failure, not one file's.

use crate::format::messages::MEMORY_EXHAUSTED;
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::sync::OnceLock;

/// The name the message goes under: the program's, once `main.rs` has it.
static PROGRAM: OnceLock<&'static [u8]> = OnceLock::new();

/// Sets the name `PROGRAM: memory exhausted` is written under (fasthash's until then): the
/// bytes of `argv[0]`, or the program's own name, which live as long as the process.
pub fn name_the_program(program: &'static [u8]) {
    let _ = PROGRAM.set(program);
}

/// Ends the run as out of memory unless the address space, where `ulimit -v` limits it, has
/// room for what Rust's runtime maps before `main`: its signal stack for the main thread (a
/// few pages) and the first allocations. A mapping of [`ROOM_FOR_THE_RUNTIME`] is made and
/// dropped to tell. Allocates nothing: it runs before the runtime.
pub fn exit_unless_room_for_the_runtime() {
    let limited = super::descriptors::resource_limit(super::descriptors::Resource::AddressSpace)
        .is_some_and(|limit| limit.rlim_cur != libc::RLIM_INFINITY);
    if !limited {
        return;
    }
    // SAFETY: a new private anonymous mapping, touched by nothing, unmapped at once.
    unsafe {
        let room = libc::mmap(
            std::ptr::null_mut(),
            ROOM_FOR_THE_RUNTIME,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        );
        if room == libc::MAP_FAILED {
            exhausted();
        }
        libc::munmap(room, ROOM_FOR_THE_RUNTIME);
    }
}

/// Room for the runtime's start: its first allocation grows the C library's heap by 132 KiB
/// (128 KiB of padding, as glibc grows it), then its signal stack takes `SIGSTKSZ` and a guard
/// page (16 KiB on an Intel Xeon with AVX-512). With 64 KiB here, the signal stack still
/// failed after the heap had grown.
const ROOM_FOR_THE_RUNTIME: usize = 256 * 1024;

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
    let program = PROGRAM.get().copied().unwrap_or(b"fasthash");
    for part in [program, b": ", MEMORY_EXHAUSTED.as_bytes(), b"\n"] {
        // A message that cannot be written changes nothing: the run ends the same.
        let _ = super::Descriptor(2).write_all(part);
    }
    // SAFETY: ends the process; nothing of ours runs after it.
    unsafe { libc::_exit(1) }
}
