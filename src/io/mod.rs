//! Everything that touches files: naming inputs (`walk`: `-r`, filters, name lists), reading
//! them (`read`, `mapped`), hashing many of them in parallel with results handed back in input
//! order (`parallel`), and the progress bar (`progress`).
//!
//! How a file is read, and why (figures from the reference machine, 2 cores, hot page cache,
//! 1 GiB file; `read.rs` has the details and `cargo bench --bench read` reproduces them):
//! - under 4 MiB, `read(2)` into a 256 KiB per-thread buffer; a file that fits is read in one
//!   call and hashed from the buffer (four system calls a file in all);
//! - from 4 MiB, a guarded mapping: a helper thread populates 8 MiB windows ahead
//!   (`MADV_POPULATE_READ`, about 13 GB/s, no copy) and drops them behind (`MADV_DONTNEED`),
//!   so XXH3 runs at 8.5 GB/s where read-then-hash managed 4.2 to 4.9 and `cat` reads 6.7;
//! - CRCs: 8 MiB windows on every core, combined; BLAKE3: its rayon tree, 512 MiB at a time;
//! - never mapped: standard input, pipes, devices, and size-0 files such as those in `/proc`.

pub mod mapped;
pub mod parallel;
pub mod parts;
pub mod progress;
pub mod read;
pub mod walk;

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

/// One thing to hash, named as the user named it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// `-`, or no file at all.
    Stdin,
    Path(PathBuf),
}

impl Input {
    pub fn from_arg(arg: OsString) -> Input {
        if arg == "-" {
            Input::Stdin
        } else {
            Input::Path(PathBuf::from(arg))
        }
    }

    /// The name as printed in digest lines and messages: the bytes the user gave.
    pub fn name_bytes(&self) -> &[u8] {
        match self {
            Input::Stdin => b"-",
            Input::Path(path) => OsStr::as_bytes(path.as_os_str()),
        }
    }
}

static STDOUT_CLOSED_AT_START: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Records that descriptor 1 was closed when the process started. Rust's runtime reopens a
/// closed descriptor 1 on `/dev/null` before `main`, so only code that runs earlier (an ELF
/// constructor in `main.rs`) can see it; coreutils reports such a stdout as a write error.
pub fn note_stdout_closed_at_start() {
    STDOUT_CLOSED_AT_START.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Standard output as a plain descriptor writer that reports a stdout closed by the caller
/// (`>&-`) as `EBADF`, where `std::io::stdout()` would write to `/dev/null` in silence.
pub struct RawStdout;

impl std::io::Write for RawStdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if STDOUT_CLOSED_AT_START.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(std::io::Error::from_raw_os_error(libc::EBADF));
        }
        // SAFETY: `buf` is valid for reads of `buf.len()` bytes for the duration of the call,
        // and the kernel checks descriptor 1 itself (EBADF when it is closed).
        let written = unsafe { libc::write(1, buf.as_ptr().cast(), buf.len()) };
        if written < 0 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(written as usize)
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
