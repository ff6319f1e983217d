//! Everything that touches files, in the order one run meets them: naming inputs (`walk`: `-r`,
//! filters, name lists), opening and reading them ahead on reader threads within a descriptor
//! budget (`open`, `descriptors`), hashing them on the hashing threads (`batch` for a batch,
//! `read` for one input, `large` for a mapped large file, `mapped` for the mappings, `multi`
//! for several algorithms over one read), results handed back in input order (`parallel`,
//! which runs the stages), and the progress bar (`progress`).
//!
//! How a file is read, and why (figures from the reference machine, 2 cores, hot page cache,
//! 1 GiB file; `read.rs` and `large.rs` have the details and `cargo bench --bench read`
//! reproduces them):
//! - up to 64 KiB, by a reader, in one read from the page cache (`preadv2`, `RWF_NOWAIT`),
//!   or, for a file not there, a second once its batch's reads are all asked for; closed at
//!   once: the hashing thread gets its bytes; larger files are opened by a reader, and those under 4 MiB asked of the device
//!   at once (`POSIX_FADV_WILLNEED`) unless their last byte is in the page cache; a mapped one is left to the kernel's readahead (asking
//!   ahead there measured slower on a cold disk);
//! - under 4 MiB, `read(2)` into a 64 KiB per-thread buffer; a file that fits is read in one
//!   call and hashed from the buffer (four system calls a file in all); where an engine has
//!   lanes and a batch keeps them busy, each lane pulls its file 64 KiB at a time into a window
//!   of its own instead (`pread`, one call for a file of up to 64 KiB), or from 128 KiB on one
//!   thread is mapped into the lanes' arena (`mapped::Arena`) and hashed in place;
//! - from 4 MiB, a guarded mapping: a helper thread populates 8 MiB windows ahead
//!   (`MADV_POPULATE_READ`, about 13 GB/s, no copy) and drops them behind (`MADV_DONTNEED`),
//!   so XXH3 runs at 8.5 GB/s where read-then-hash managed 4.2 to 4.9 and `cat` reads 6.7;
//!   the hashing thread asks the CPU for the bytes a few pieces ahead where timing the file
//!   both ways shows that pays (`prefetch`: SHA-256 of a 1 GiB file in 4 KiB pages 1.3x);
//! - CRCs: 8 MiB windows on every core, combined; BLAKE3: its rayon tree, 128 MiB at a time;
//! - never mapped: standard input, pipes, devices, and size-0 files such as those in `/proc`.

pub(crate) mod batch;
pub mod cache;
pub(crate) mod descriptors;
pub(crate) mod large;
pub mod lines;
pub mod long_paths;
pub mod mapped;
pub mod memory;
pub mod multi;
pub(crate) mod open;
pub mod parallel;
pub(crate) mod prefetch;
pub mod progress;
pub mod read;
pub mod settings;
pub mod shard;
pub(crate) mod source;
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

/// What a file that is not a regular one is, in a few words ("a FIFO"), for the messages
/// that refuse it.
pub(crate) fn file_kind(metadata: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let kind = metadata.file_type();
    match () {
        _ if kind.is_dir() => "a directory",
        _ if kind.is_char_device() => "a character device",
        _ if kind.is_block_device() => "a block device",
        _ if kind.is_fifo() => "a FIFO",
        _ if kind.is_socket() => "a socket",
        _ => "another kind of file",
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

static STDIN_CLOSED_AT_START: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);
static STDIN_WANTED_WHILE_CLOSED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Records that descriptor 0 was closed when the process started (`<&-`), for the same reason
/// as [`note_stdout_closed_at_start`]: a closed standard input must be an error, as in
/// coreutils, never the digest of the empty `/dev/null` the runtime put in its place.
pub fn note_stdin_closed_at_start() {
    STDIN_CLOSED_AT_START.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Standard input, locked; `EBADF` when the caller closed it (`<&-`). Every read of standard
/// input goes through here.
pub fn stdin() -> std::io::Result<std::io::StdinLock<'static>> {
    if STDIN_CLOSED_AT_START.load(std::sync::atomic::Ordering::Relaxed) {
        STDIN_WANTED_WHILE_CLOSED.store(true, std::sync::atomic::Ordering::Relaxed);
        return Err(std::io::Error::from_raw_os_error(libc::EBADF));
    }
    Ok(std::io::stdin().lock())
}

/// All of an input's bytes at once (a name list, a b3sum checkfile).
pub fn read_all(input: &Input) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut data = Vec::new();
    match input {
        Input::Stdin => stdin()?.read_to_end(&mut data)?,
        Input::Path(path) => long_paths::open_file(path)?.read_to_end(&mut data)?,
    };
    Ok(data)
}

/// An input opened to be read line by line (a manifest): `Err` when it cannot be opened.
pub fn line_reader(
    input: &Input,
    terminator: u8,
    strip_bom: bool,
) -> std::io::Result<lines::LineReader<Box<dyn std::io::Read>>> {
    let source: Box<dyn std::io::Read> = match input {
        Input::Stdin => {
            // Taken as `stdin()` would be: a closed standard input fails here, and is noted.
            drop(stdin()?);
            Box::new(RawStdin)
        }
        Input::Path(path) => Box::new(long_paths::open_file(path)?),
    };
    Ok(lines::LineReader::new(source, terminator, strip_bom))
}

/// Standard input as a plain descriptor reader, holding no lock: a manifest read from it
/// leaves `stdin()` free for a line that names standard input, whose hash, on a hashing
/// thread, then reads what the manifest's reader has not taken (at the end of a short
/// manifest, nothing), as xxhsum does. With `stdin()`'s lock held by the manifest's reader,
/// that hash waited for it forever.
struct RawStdin;

impl std::io::Read for RawStdin {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            // SAFETY: `buf` is valid for writes of `buf.len()` bytes for the duration of the
            // call, and the kernel checks descriptor 0 itself.
            let read = unsafe { libc::read(0, buf.as_mut_ptr().cast(), buf.len()) };
            if read >= 0 {
                return Ok(read as usize);
            }
            let error = std::io::Error::last_os_error();
            if error.kind() != std::io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }
}

/// Whether something tried to read a standard input that was closed: coreutils then also
/// fails its closing of standard input at exit (`standard input: Bad file descriptor`).
pub fn stdin_was_wanted_while_closed() -> bool {
    STDIN_WANTED_WHILE_CLOSED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Standard output as a plain descriptor writer that reports a stdout closed by the caller
/// (`>&-`) as `EBADF`, where `std::io::stdout()` would write to `/dev/null` in silence.
pub struct RawStdout;

impl std::io::Write for RawStdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if STDOUT_CLOSED_AT_START.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(std::io::Error::from_raw_os_error(libc::EBADF));
        }
        Descriptor(1).write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A descriptor written with `write(2)` alone: no buffer, no lock, no allocation (what running
/// out of memory writes its message with).
pub(crate) struct Descriptor(pub(crate) libc::c_int);

impl std::io::Write for Descriptor {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // SAFETY: `buf` is valid for reads of `buf.len()` bytes for the duration of the call,
        // and the kernel checks the descriptor itself (EBADF when it is closed).
        let written = unsafe { libc::write(self.0, buf.as_ptr().cast(), buf.len()) };
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

/// Buffered output that only ever hands whole lines to the system: when the buffer fills, it
/// writes up to the last line end and keeps the rest. An interrupted run (Ctrl-C) or a reader
/// that stops early therefore never sees half a line. `flush` writes everything; callers flush
/// between lines only.
pub struct WholeLines<W: std::io::Write> {
    inner: W,
    buffer: Vec<u8>,
    terminator: u8,
}

const WHOLE_LINES_CAPACITY: usize = 64 * 1024;

/// Held while a run of whole lines is written: the thread that ends the run on a signal takes
/// it before it exits, so the exit never cuts a write (a write to a pipe can stop after part
/// of it went through) and no write starts after.
static WHOLE_LINES_WRITE: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Ctrl-C (SIGINT) and SIGTERM end the run at once, with the status a shell gives a process
/// killed by them (130, 143) but by a normal exit: nothing half-done is flushed, the progress
/// bar is erased, and standard output, written only in whole lines (a write under way is
/// finished first), never ends in half a line. Both signals are blocked in every thread and
/// taken by a thread of their own, which, unlike a signal handler, may wait on locks. Called
/// first thing in `main`: threads started later inherit the blocked signals.
pub fn exit_cleanly_on_interrupt() {
    let signals = interrupting_signals();
    // SAFETY: changes this thread's signal mask only; the old mask is not asked for.
    unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &signals, std::ptr::null_mut()) };
    if !start_signal_waiter() {
        // With no thread to take them, the signals' own action (killed by them) beats none.
        // SAFETY: as above.
        unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &signals, std::ptr::null_mut()) };
    }
}

/// SIGINT and SIGTERM.
fn interrupting_signals() -> libc::sigset_t {
    // SAFETY: a sigset_t is plain data; sigemptyset and sigaddset fill the one they are given.
    unsafe {
        let mut signals: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut signals);
        libc::sigaddset(&mut signals, libc::SIGINT);
        libc::sigaddset(&mut signals, libc::SIGTERM);
        signals
    }
}

/// Starts the thread that waits for [`interrupting_signals`]; false when it could not be had.
///
/// A bare POSIX thread, not `std::thread`: it runs nothing of ours until a signal comes, and
/// std's start of a thread (its stack-overflow guard, then a malloc arena of its own at its
/// first allocation) was a tenth of a millisecond in every run, a one-file run being 3 ms.
fn start_signal_waiter() -> bool {
    extern "C" fn wait_for_signals(_: *mut libc::c_void) -> *mut libc::c_void {
        // SAFETY: names this thread (in `ps`, `top`, a debugger); the name is a C string.
        unsafe { libc::prctl(libc::PR_SET_NAME, c"signals".as_ptr()) };
        let signals = interrupting_signals();
        loop {
            let mut signal = 0;
            // SAFETY: sigwait reads the set and writes one integer, both ours.
            if unsafe { libc::sigwait(&signals, &mut signal) } == 0 {
                exit_on_signal(signal);
            }
        }
    }
    // Room for erasing the progress bar, the only work it does; reserved, not used, until then.
    const STACK: usize = 256 * 1024;
    // SAFETY: the attributes are initialized before use and destroyed after; the thread runs a
    // function that takes no argument and never returns, detached, so nothing joins it.
    unsafe {
        let mut attributes: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_attr_init(&mut attributes) != 0 {
            return false;
        }
        libc::pthread_attr_setstacksize(&mut attributes, STACK);
        libc::pthread_attr_setdetachstate(&mut attributes, libc::PTHREAD_CREATE_DETACHED);
        let mut thread: libc::pthread_t = std::mem::zeroed();
        let started = libc::pthread_create(
            &mut thread,
            &attributes,
            wait_for_signals,
            std::ptr::null_mut(),
        ) == 0;
        libc::pthread_attr_destroy(&mut attributes);
        started
    }
}

/// Ends the process for `signal`: the progress bar erased, a write of whole lines under way
/// finished, then `_exit`.
fn exit_on_signal(signal: i32) -> ! {
    // Nothing may stop the exit: a panic unwinding out of the signals' thread, a bare one,
    // would abort the process (killed by SIGABRT instead of exiting).
    let _ = std::panic::catch_unwind(progress::erase_before_exit);
    let _no_write_under_way = WHOLE_LINES_WRITE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // SAFETY: _exit ends the process without running anything else.
    unsafe { libc::_exit(128 + signal) }
}

/// Writes `data` whole, which a signal's exit waits for.
fn write_uninterrupted(out: &mut impl std::io::Write, data: &[u8]) -> std::io::Result<()> {
    let _writing = WHOLE_LINES_WRITE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    out.write_all(data)
}

impl<W: std::io::Write> WholeLines<W> {
    pub fn new(inner: W, terminator: u8) -> WholeLines<W> {
        WholeLines {
            inner,
            buffer: Vec::with_capacity(WHOLE_LINES_CAPACITY * 2),
            terminator,
        }
    }
}

impl<W: std::io::Write> std::io::Write for WholeLines<W> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buffer.extend_from_slice(data);
        if self.buffer.len() >= WHOLE_LINES_CAPACITY {
            if let Some(end) = self.buffer.iter().rposition(|&b| b == self.terminator) {
                write_uninterrupted(&mut self.inner, &self.buffer[..=end])?;
                self.buffer.drain(..=end);
            }
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let result = write_uninterrupted(&mut self.inner, &self.buffer);
        self.buffer.clear();
        result?;
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::WholeLines;
    use std::io::Write;

    /// Records each write the wrapped writer receives.
    struct Recorder(Vec<Vec<u8>>);

    impl Write for Recorder {
        fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
            self.0.push(data.to_vec());
            Ok(data.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn only_whole_lines_reach_the_writer_before_flush() {
        let mut out = WholeLines::new(Recorder(Vec::new()), b'\n');
        let line = [b'x'; 999];
        for _ in 0..200 {
            out.write_all(&line[..500]).unwrap();
            out.write_all(&line[500..]).unwrap();
            out.write_all(b"\n").unwrap();
        }
        assert!(!out.inner.0.is_empty());
        for chunk in &out.inner.0 {
            assert_eq!(chunk.last(), Some(&b'\n'));
            assert_eq!(chunk.len() % 1000, 0);
        }
        out.flush().unwrap();
        let total: usize = out.inner.0.iter().map(Vec::len).sum();
        assert_eq!(total, 200 * 1000);
    }
}
