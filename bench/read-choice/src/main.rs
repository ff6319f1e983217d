//! Reads every file under a directory whole, one of three ways, and says how long it took.
//!
//! The question it answers (issue 30): with the reads taken off the hashing threads, should
//! they be issued by a pool of blocking reader threads or by io_uring? Each mode does the work
//! fasthash's reader does per file (open, look at the metadata, read everything, close) and
//! nothing else; the bytes are only glanced at, so the figures are the read path's alone.
//!
//! Usage: read-choice MODE DIR [--depth D] [--chunk BYTES] [--ahead BYTES] [--threads T]
//!        [--no-statx]
//!
//! - `pool`: D threads take files from a shared counter: open, fstat, pread until the size
//!   fstat gave, close. Files larger than one chunk are read a chunk at a time, with
//!   `POSIX_FADV_WILLNEED` kept `--ahead` bytes in front of the reads.
//! - `uring`: one thread and one ring; D reads in flight. Each new file is one linked chain,
//!   statx → openat (into a direct descriptor) → read, handed to the kernel with the other
//!   chains of the same round in one `io_uring_enter`. A file whose first chunk came back
//!   full gets more reads (several in flight on the same file), then a close.
//! - `uring-pool`: T threads (default: one per CPU), each with its own ring of depth D.
//!
//! Where io_uring is refused (seccomp, `kernel.io_uring_disabled`), the uring modes say why on
//! standard error and run `pool` instead, as fasthash would have to.

use io_uring::{opcode, squeue, types, IoUring};
use std::collections::VecDeque;
use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Pool,
    Uring,
    UringPool,
}

#[derive(Clone, Copy)]
struct Options {
    depth: usize,
    chunk: usize,
    ahead: u64,
    threads: usize,
    statx: bool,
}

/// What the readers of one run add up to.
#[derive(Default)]
struct Totals {
    files: u64,
    bytes: u64,
    errors: u64,
    /// Folded into the output so the reads cannot be dropped as unused.
    xor: u64,
}

impl Totals {
    fn add(&mut self, other: &Totals) {
        self.files += other.files;
        self.bytes += other.bytes;
        self.errors += other.errors;
        self.xor ^= other.xor;
    }
}

/// One 8-byte word per 4 KiB page: enough that every page read is used, cheap enough that
/// the figures stay the reads' and not a checksum's.
fn glance(bytes: &[u8]) -> u64 {
    bytes
        .chunks(4096)
        .map(|page| {
            let mut word = [0u8; 8];
            let n = page.len().min(8);
            word[..n].copy_from_slice(&page[..n]);
            u64::from_le_bytes(word)
        })
        .fold(0, |acc, w| acc ^ w)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: read-choice pool|uring|uring-pool DIR [--depth D] [--chunk BYTES] \
                 [--ahead BYTES] [--threads T] [--no-statx]";
    let (Some(mode), Some(dir)) = (args.first(), args.get(1)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let mode = match mode.as_str() {
        "pool" => Mode::Pool,
        "uring" => Mode::Uring,
        "uring-pool" => Mode::UringPool,
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    let mut options = Options {
        depth: 32,
        chunk: 1 << 20,
        // fasthash asks for the first 8 MiB of a large file when it opens it.
        ahead: 8 << 20,
        threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
        statx: true,
    };
    let mut rest = args[2..].iter();
    while let Some(flag) = rest.next() {
        let mut value = || -> u64 {
            rest.next()
                .and_then(|v| parse_size(v))
                .unwrap_or_else(|| {
                    eprintln!("{flag} needs a number (K, M, G suffixes allowed)\n{usage}");
                    std::process::exit(2)
                })
        };
        match flag.as_str() {
            "--depth" => options.depth = value().max(1) as usize,
            "--chunk" => options.chunk = value().max(4096) as usize,
            "--ahead" => options.ahead = value(),
            "--threads" => options.threads = value().max(1) as usize,
            "--no-statx" => options.statx = false,
            _ => {
                eprintln!("{usage}");
                std::process::exit(2);
            }
        }
    }
    // chunk lengths go into a u32 SQE field.
    options.chunk = options.chunk.min(1 << 30);

    // Gathered before the clock starts, from directory entries only: no stat, so a cold run
    // still finds every inode cold and each mode pays for its own metadata.
    let mut paths = Vec::new();
    if let Err(error) = walk(Path::new(dir), &mut paths) {
        eprintln!("{dir}: {error}");
        std::process::exit(1);
    }
    paths.sort();
    let files: Vec<CString> = paths
        .iter()
        .map(|p| CString::new(p.as_os_str().as_bytes()).expect("no NUL in a path"))
        .collect();

    let before = cpu_times();
    let start = Instant::now();
    let (ran, totals) = run(mode, &files, options);
    let elapsed = start.elapsed().as_secs_f64();
    let after = cpu_times();
    let (user, sys) = (after.0 - before.0, after.1 - before.1);
    println!(
        "mode={ran} depth={} chunk={} statx={} files={} bytes={} errors={} elapsed={:.3}s \
         files/s={:.0} MB/s={:.0} user={:.3}s sys={:.3}s cpu/file={:.1}us xor={:x}",
        options.depth,
        options.chunk,
        options.statx,
        totals.files,
        totals.bytes,
        totals.errors,
        elapsed,
        totals.files as f64 / elapsed,
        totals.bytes as f64 / elapsed / 1e6,
        user,
        sys,
        (user + sys) / totals.files.max(1) as f64 * 1e6,
        totals.xor
    );
    if totals.errors > 0 {
        std::process::exit(1);
    }
}

fn parse_size(text: &str) -> Option<u64> {
    let (digits, shift) = match text.as_bytes().last()? {
        b'K' | b'k' => (&text[..text.len() - 1], 10),
        b'M' | b'm' => (&text[..text.len() - 1], 20),
        b'G' | b'g' => (&text[..text.len() - 1], 30),
        _ => (text, 0),
    };
    digits.parse::<u64>().ok().map(|n| n << shift)
}

/// Regular files under `dir`, told apart by the directory entry's type.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    let meta = std::fs::symlink_metadata(dir)?;
    if meta.is_file() {
        out.push(dir.to_path_buf());
        return Ok(());
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(&entry.path(), out)?;
        } else if kind.is_file() {
            out.push(entry.path());
        }
    }
    Ok(())
}

/// User and system CPU seconds of the whole process, io_uring's worker threads included
/// (they belong to the process that owns the ring).
fn cpu_times() -> (f64, f64) {
    // SAFETY: getrusage writes one rusage, which we own.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (secs(usage.ru_utime), secs(usage.ru_stime))
}

fn run(mode: Mode, files: &[CString], options: Options) -> (&'static str, Totals) {
    let next = AtomicUsize::new(0);
    match mode {
        Mode::Pool => ("pool", pool(files, &next, options)),
        Mode::Uring => {
            let mut totals = Totals::default();
            match uring(files, &next, options, &mut totals) {
                Ok(()) => ("uring", totals),
                Err(error) => {
                    report_refused(&error);
                    // A refusal comes from setting the ring up, before any file is taken:
                    // the pool then reads them all. (A later failure of io_uring_enter
                    // would leave the files it had in flight unread, and say so here.)
                    let rest = pool(files, &next, options);
                    totals.add(&rest);
                    ("pool(fallback)", totals)
                }
            }
        }
        Mode::UringPool => {
            let all = Mutex::new(Totals::default());
            let refused = Mutex::new(None);
            std::thread::scope(|scope| {
                for _ in 0..options.threads {
                    scope.spawn(|| {
                        let mut mine = Totals::default();
                        if let Err(error) = uring(files, &next, options, &mut mine) {
                            *refused.lock().unwrap() = Some(error);
                        }
                        all.lock().unwrap().add(&mine);
                    });
                }
            });
            let mut totals = all.into_inner().unwrap();
            match refused.into_inner().unwrap() {
                None => ("uring-pool", totals),
                Some(error) => {
                    report_refused(&error);
                    totals.add(&pool(files, &next, options));
                    ("pool(fallback)", totals)
                }
            }
        }
    }
}

fn report_refused(error: &io::Error) {
    eprintln!(
        "io_uring refused ({error}; errno {}): reading with the thread pool instead",
        error.raw_os_error().unwrap_or(0)
    );
}

fn report(path: &CString, what: &str, error: &io::Error) {
    eprintln!("{}: {what}: {error}", path.to_string_lossy());
}

// ---------------------------------------------------------------------------------------
// pool: blocking calls on D threads, as fasthash's readers make them.

fn pool(files: &[CString], next: &AtomicUsize, options: Options) -> Totals {
    let all = Mutex::new(Totals::default());
    std::thread::scope(|scope| {
        for _ in 0..options.depth {
            scope.spawn(|| {
                let mut mine = Totals::default();
                let mut buffer = vec![0u8; options.chunk];
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = files.get(index) else { break };
                    match read_blocking(path, &mut buffer, options.ahead, &mut mine) {
                        Ok(()) => mine.files += 1,
                        Err((what, error)) => {
                            report(path, what, &error);
                            mine.errors += 1;
                        }
                    }
                }
                all.lock().unwrap().add(&mine);
            });
        }
    });
    all.into_inner().unwrap()
}

fn read_blocking(
    path: &CString,
    buffer: &mut [u8],
    ahead: u64,
    totals: &mut Totals,
) -> Result<(), (&'static str, io::Error)> {
    let file = File::open(std::ffi::OsStr::from_bytes(path.as_bytes())).map_err(|e| ("open", e))?;
    let len = file.metadata().map_err(|e| ("fstat", e))?.len();
    let chunk = buffer.len() as u64;
    // Asked of the device so far: reads a chunk at a time would otherwise wait on each
    // readahead window in turn.
    let mut advised = 0;
    let mut at = 0;
    while at < len {
        if ahead > 0 && len > chunk {
            let want = (at + ahead).min(len);
            while advised < want {
                // Pieces of 1 MiB, as fasthash asks: one call starts at most one window.
                let piece = (1 << 20).min(want - advised);
                // SAFETY: only reads its arguments; the descriptor is open.
                unsafe {
                    libc::posix_fadvise(
                        file.as_raw_fd(),
                        advised as libc::off_t,
                        piece as libc::off_t,
                        libc::POSIX_FADV_WILLNEED,
                    );
                }
                advised += piece;
            }
        }
        let want = chunk.min(len - at) as usize;
        let got = loop {
            match file.read_at(&mut buffer[..want], at) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other.map_err(|e| ("read", e))?,
            }
        };
        if got == 0 {
            break; // shrank since fstat: what is there has been read
        }
        totals.xor ^= glance(&buffer[..got]);
        totals.bytes += got as u64;
        at += got as u64;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// uring: one ring, D reads in flight, many submissions per io_uring_enter.

/// What a completion is for: the kind in the high half of user_data, a slot or buffer number
/// in the low half.
const STATX: u64 = 1;
const OPEN: u64 = 2;
const READ: u64 = 3;
const CLOSE: u64 = 4;

fn tag(kind: u64, index: usize) -> u64 {
    kind << 32 | index as u64
}

/// One file between its open and its close, in a direct-descriptor slot of the same number.
struct Slot {
    file: usize,
    /// statx writes here; read once the first read has completed (linked after it).
    stat: Box<libc::statx>,
    size: Option<u64>,
    /// Next offset not yet asked for.
    next: u64,
    reads: u32,
    /// The chain's first read has completed: the size is known (or not) and the open worked
    /// (or not).
    started: bool,
    opened: bool,
    eof: bool,
    /// The first error (not a cancellation) the file's operations gave.
    error: Option<(&'static str, io::Error)>,
    queued: bool,
    /// The buffer of the chain's read, given back here if the chain fails before it.
    first_buffer: usize,
}

fn ring(depth: usize) -> io::Result<IoUring> {
    // Room for every chain of a full round (3 SQEs a file) without a second enter.
    let entries = (3 * depth).next_power_of_two().max(8) as u32;
    // One thread submits and reaps: the kernel may then run completion work only when we
    // wait, instead of interrupting us for it. Kernels before 6.1 refuse these flags.
    IoUring::builder()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .setup_cqsize(entries * 2)
        .build(entries)
        .or_else(|error| {
            if error.raw_os_error() == Some(libc::EINVAL) {
                IoUring::builder().setup_cqsize(entries * 2).build(entries)
            } else {
                Err(error)
            }
        })
}

fn uring(
    files: &[CString],
    next: &AtomicUsize,
    options: Options,
    totals: &mut Totals,
) -> io::Result<()> {
    let mut ring = ring(options.depth)?;
    // Twice as many slots as reads in flight: a slot stays taken until its close has
    // completed, so an open into it can never meet a close still meant for the old file.
    let slot_count = 2 * options.depth;
    ring.submitter().register_files_sparse(slot_count as u32)?;

    let chunk = options.chunk;
    let mut buffers: Vec<Vec<u8>> = (0..options.depth).map(|_| vec![0u8; chunk]).collect();
    // Per buffer: the slot and offset of the read it holds, and the length asked.
    let mut owner: Vec<(usize, u64, u32)> = vec![(0, 0, 0); options.depth];
    let mut free_buffers: Vec<usize> = (0..options.depth).rev().collect();
    let mut free_slots: Vec<usize> = (0..slot_count).rev().collect();
    let mut slots: Vec<Option<Slot>> = (0..slot_count).map(|_| None).collect();
    // Open files whose reads so far came back full: they get the next free buffers.
    let mut wanting: VecDeque<usize> = VecDeque::new();
    let mut busy = 0usize;
    let mut exhausted = false;
    let statx_mask = libc::STATX_BASIC_STATS;

    loop {
        {
            let mut sq = ring.submission();
            // More reads for files already open, first: finishing them frees their slots.
            while let Some(&s) = wanting.front() {
                if free_buffers.is_empty() || sq.capacity() - sq.len() < 1 {
                    break;
                }
                let slot = slots[s].as_mut().expect("a wanting slot is taken");
                let more = !slot.eof && slot.size.map_or(true, |size| slot.next < size);
                if !more || slot.error.is_some() {
                    slot.queued = false;
                    wanting.pop_front();
                    continue;
                }
                let b = free_buffers.pop().unwrap();
                let len = slot.size.map_or(chunk as u64, |size| (size - slot.next).min(chunk as u64)) as u32;
                owner[b] = (s, slot.next, len);
                let read = opcode::Read::new(types::Fixed(s as u32), buffers[b].as_mut_ptr(), len)
                    .offset(slot.next)
                    .build()
                    .user_data(tag(READ, b));
                slot.next += len as u64;
                slot.reads += 1;
                // SAFETY: the buffer stays allocated and untouched until its CQE.
                unsafe { sq.push(&read).expect("room was checked") };
            }
            // Then new files, each one linked chain.
            while !exhausted
                && !free_buffers.is_empty()
                && !free_slots.is_empty()
                && sq.capacity() - sq.len() >= 3
            {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = files.get(index) else {
                    exhausted = true;
                    break;
                };
                let s = free_slots.pop().unwrap();
                let b = free_buffers.pop().unwrap();
                // SAFETY: statx is plain data; all zeroes is a valid value.
                let mut stat: Box<libc::statx> = Box::new(unsafe { std::mem::zeroed() });
                let stat_ptr: *mut libc::statx = &mut *stat;
                slots[s] = Some(Slot {
                    file: index,
                    stat,
                    size: None,
                    next: chunk as u64,
                    reads: 1,
                    started: false,
                    opened: false,
                    eof: false,
                    error: None,
                    queued: false,
                    first_buffer: b,
                });
                busy += 1;
                owner[b] = (s, 0, chunk as u32);
                // Successes post no completion: one CQE per small file (its read) plus the
                // close's, instead of three or four.
                let linked = squeue::Flags::IO_LINK | squeue::Flags::SKIP_SUCCESS;
                let mut chain = Vec::with_capacity(3);
                if options.statx {
                    chain.push(
                        opcode::Statx::new(
                            types::Fd(libc::AT_FDCWD),
                            path.as_ptr(),
                            stat_ptr.cast::<types::statx>(),
                        )
                        .mask(statx_mask)
                        .flags(libc::AT_STATX_SYNC_AS_STAT)
                        .build()
                        .flags(linked)
                        .user_data(tag(STATX, s)),
                    );
                }
                // A direct descriptor: never in the process's file table, so opening and
                // closing it takes no lock shared with other threads. (O_CLOEXEC would be
                // refused: it means nothing there.)
                chain.push(
                    opcode::OpenAt::new(types::Fd(libc::AT_FDCWD), path.as_ptr())
                        .file_index(Some(
                            types::DestinationSlot::try_from_slot_target(s as u32).unwrap(),
                        ))
                        .flags(libc::O_RDONLY)
                        .build()
                        .flags(linked)
                        .user_data(tag(OPEN, s)),
                );
                // A whole chunk is asked for whatever the size: a shorter answer is the end
                // of the file, a full one means there is more.
                chain.push(
                    opcode::Read::new(types::Fixed(s as u32), buffers[b].as_mut_ptr(), chunk as u32)
                        .offset(0)
                        .build()
                        .user_data(tag(READ, b)),
                );
                // SAFETY: the paths live as long as `files`, the statx buffer and the read
                // buffer until their slot and buffer are given back after the CQEs.
                unsafe { sq.push_multiple(&chain).expect("room was checked") };
            }
        }
        if busy == 0 && exhausted {
            return Ok(());
        }
        // Every SQE of this round in one call, which also waits for the next completion.
        loop {
            match ring.submit_and_wait(1) {
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => break, // reap first
                other => {
                    other?;
                    break;
                }
            }
        }
        let completions: Vec<(u64, i32)> = ring
            .completion()
            .map(|cqe| (cqe.user_data(), cqe.result()))
            .collect();
        let mut closes: Vec<usize> = Vec::new();
        for (data, res) in completions {
            let (kind, index) = (data >> 32, (data & 0xffff_ffff) as usize);
            match kind {
                STATX | OPEN => {
                    // Only failures arrive here (successes are skipped), and a failure of a
                    // request that skips its success also skips the completions of the
                    // requests it cancels: the chain's read will not be heard of. Nothing
                    // was opened; the file is done.
                    let slot = slots[index].as_mut().expect("taken slot");
                    let what = if kind == STATX { "statx" } else { "open" };
                    slot.error = Some((what, io::Error::from_raw_os_error(-res)));
                    free_buffers.push(slot.first_buffer);
                    finish(&mut slots, index, files, totals, &mut free_slots, &mut busy, &mut wanting);
                }
                READ => {
                    let b = index;
                    let (s, at, asked) = owner[b];
                    free_buffers.push(b);
                    let slot = slots[s].as_mut().expect("taken slot");
                    slot.reads -= 1;
                    if !slot.started {
                        slot.started = true;
                        // (Had the statx or the open failed, this read would not have
                        // completed at all: see STATX | OPEN.)
                        slot.opened = true;
                        if options.statx {
                            slot.size = Some(slot.stat.stx_size);
                        }
                    }
                    if res < 0 {
                        if slot.error.is_none() {
                            let what = if res == -libc::ECANCELED { "cancelled" } else { "read" };
                            slot.error = Some((what, io::Error::from_raw_os_error(-res)));
                        }
                    } else {
                        let got = res as usize;
                        totals.xor ^= glance(&buffers[b][..got]);
                        totals.bytes += got as u64;
                        if (got as u32) < asked || slot.size.is_some_and(|size| at + got as u64 >= size) {
                            slot.eof = true;
                        } else if !slot.queued {
                            slot.queued = true;
                            wanting.push_back(s);
                        }
                    }
                    let more = slot.error.is_none()
                        && !slot.eof
                        && slot.size.map_or(true, |size| slot.next < size);
                    if slot.reads == 0 && !more {
                        if slot.opened {
                            closes.push(s);
                        } else {
                            finish(&mut slots, s, files, totals, &mut free_slots, &mut busy, &mut wanting);
                        }
                    }
                }
                CLOSE => {
                    let slot = slots[index].as_mut().expect("taken slot");
                    if res < 0 && slot.error.is_none() {
                        slot.error = Some(("close", io::Error::from_raw_os_error(-res)));
                    }
                    finish(&mut slots, index, files, totals, &mut free_slots, &mut busy, &mut wanting);
                }
                _ => unreachable!("unknown user_data {data:x}"),
            }
        }
        // Closes go out with the next round's chains, in the same enter.
        let mut sq = ring.submission();
        for s in closes {
            let close = opcode::Close::new(types::Fixed(s as u32))
                .build()
                .user_data(tag(CLOSE, s));
            // The ring holds 3 × depth entries and at most depth closes are pending.
            while unsafe { sq.push(&close) }.is_err() {
                drop(sq);
                ring.submit()?;
                sq = ring.submission();
            }
        }
    }
}

fn finish(
    slots: &mut [Option<Slot>],
    s: usize,
    files: &[CString],
    totals: &mut Totals,
    free_slots: &mut Vec<usize>,
    busy: &mut usize,
    wanting: &mut VecDeque<usize>,
) {
    let slot = slots[s].take().expect("taken slot");
    // The slot number is about to name another file: no stale request for more reads.
    if slot.queued {
        wanting.retain(|&w| w != s);
    }
    match slot.error {
        None => totals.files += 1,
        Some((what, error)) => {
            report(&files[slot.file], what, &error);
            totals.errors += 1;
        }
    }
    free_slots.push(s);
    *busy -= 1;
}
