//! The progress bar: on standard error, only when it is a terminal (or `--progress` says so),
//! and only once the work has run for a second, so quick runs and pipelines never see it.
//! Totals come from a second, cheap walk on its own thread (sizes only), so the bar knows what
//! is left while the hashing walk is still going; lines on standard output are written with
//! the bar lifted, so the two never mix on one terminal line. The line itself is made by
//! `format::progress`.
//!
//! The bar is erased (line cleared, cursor at column 0) whenever the run ends: normally, when
//! output fails (the driver finishes the bar before it reports), and on Ctrl-C or SIGTERM,
//! whose handler cannot take locks: it sees through [`ON_SCREEN`] whether a bar is there and
//! erases it with one `write(2)` ([`erase_before_exit`]).

use super::read::BYTES_HASHED;
use super::walk::{expand, Task, WalkOptions};
use super::Input;
use crate::format::progress::{bar, BarState, ERASE};
use std::io::IsTerminal;
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// `--progress`, `--no-progress`, or neither.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ProgressChoice {
    /// When standard error is a terminal and the work lasts over a second.
    #[default]
    Auto,
    /// At once, wherever standard error goes (80 columns where it is not a terminal).
    Always,
    Never,
}

const DELAY: Duration = Duration::from_secs(1);
const TICK: Duration = Duration::from_millis(100);
/// The width drawn to when standard error has none (`--progress` into a pipe or a file).
const DEFAULT_COLUMNS: usize = 80;

/// Some bytes of the bar may be on the terminal: set before a line is written, cleared once
/// the erasure is out. Read by the signal handler.
static ON_SCREEN: AtomicBool = AtomicBool::new(false);
/// A bar write is under way on some thread; the handler waits (briefly) for it to end, so its
/// erasure comes after, not before, the line.
static DRAWING: AtomicBool = AtomicBool::new(false);
/// The process is exiting on a signal: no more drawing.
static EXITING: AtomicBool = AtomicBool::new(false);

/// Erases the bar, if one is on screen, before the process `_exit`s on a signal. Only atomics,
/// `poll(2)` as a sleep and `write(2)`: async-signal-safe. It may interrupt the very thread
/// that is drawing, so the wait for that write is bounded (100 ms).
pub(crate) fn erase_before_exit() {
    EXITING.store(true, Ordering::SeqCst);
    for _ in 0..100 {
        if !DRAWING.load(Ordering::SeqCst) {
            break;
        }
        // SAFETY: poll with no descriptors only sleeps for 1 ms; it is async-signal-safe.
        unsafe { libc::poll(std::ptr::null_mut(), 0, 1) };
    }
    if ON_SCREEN.swap(false, Ordering::SeqCst) {
        // SAFETY: ERASE is a static byte string valid for its length; write(2) is
        // async-signal-safe. A failure leaves nothing to do: the process is exiting.
        unsafe { libc::write(2, ERASE.as_ptr().cast(), ERASE.len()) };
    }
}

/// Writes bar bytes to descriptor 2 whole, raw, so nothing is left in a buffer when the
/// handler erases: a line (`erases` false) or the erasure. Nothing is written once the process
/// is exiting on a signal. `false` when standard error failed (or the process is exiting).
fn draw(bytes: &[u8], erases: bool) -> bool {
    DRAWING.store(true, Ordering::SeqCst);
    let exiting = EXITING.load(Ordering::SeqCst);
    if !exiting && !erases {
        // Before the write: a signal during it must find the bar to erase.
        ON_SCREEN.store(true, Ordering::SeqCst);
    }
    let written = !exiting && write_all_raw(bytes);
    if written && erases {
        ON_SCREEN.store(false, Ordering::SeqCst);
    }
    DRAWING.store(false, Ordering::SeqCst);
    written
}

fn write_all_raw(mut rest: &[u8]) -> bool {
    while !rest.is_empty() {
        // SAFETY: `rest` is valid for reads of `rest.len()` bytes during the call.
        let written = unsafe { libc::write(2, rest.as_ptr().cast(), rest.len()) };
        if written > 0 {
            rest = &rest[written as usize..];
        } else if written == 0
            || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
        {
            return false;
        }
    }
    true
}

#[derive(Default)]
struct Counts {
    total_bytes: AtomicU64,
    total_files: AtomicU64,
    /// The totals are final: the walk is over and every file had a size.
    counting_done: AtomicBool,
    done_files: AtomicU64,
    finished: AtomicBool,
    /// The file most recently handed to a worker (see [`Progress::hashing`]).
    current: Mutex<Vec<u8>>,
}

/// What is on the terminal: whether the bar is drawn, and its last line (to put it back after
/// output at once, without waiting for the next tick). One lock for every bar write.
#[derive(Default)]
struct Screen {
    shown: bool,
    /// Standard error failed: draw no more.
    broken: bool,
    line: Vec<u8>,
}

impl Screen {
    fn put(&mut self, line: Vec<u8>) {
        if self.broken {
            return;
        }
        self.broken = !draw(&line, false);
        self.shown = !self.broken;
        self.line = line;
    }

    fn lift(&mut self) {
        if self.shown {
            self.broken |= !draw(ERASE, true);
            self.shown = false;
        }
    }
}

pub struct Progress {
    active: Option<Active>,
}

struct Active {
    screen: Arc<Mutex<Screen>>,
    counts: Arc<Counts>,
    threads: Vec<JoinHandle<()>>,
}

impl Progress {
    pub fn start(choice: ProgressChoice, inputs: &[Input], walk: &WalkOptions) -> Progress {
        let wanted = match choice {
            ProgressChoice::Never => false,
            ProgressChoice::Always => true,
            ProgressChoice::Auto => std::io::stderr().is_terminal(),
        };
        // Standard input has no size to count; a bar over it would only guess.
        if !wanted || inputs.contains(&Input::Stdin) {
            return Progress { active: None };
        }
        let counts = Arc::new(Counts::default());
        let screen = Arc::new(Mutex::new(Screen::default()));
        let counter = {
            let counts = Arc::clone(&counts);
            let inputs = inputs.to_vec();
            let walk = walk.clone();
            std::thread::spawn(move || {
                // A pipe or a device has no size to add: the total is then only a lower bound,
                // and stays marked as still counted.
                let mut without_size = false;
                for task in expand(inputs, walk) {
                    if counts.finished.load(Ordering::Relaxed) {
                        break;
                    }
                    if let Task::Hash(Input::Path(path)) = task {
                        let size = match crate::io::long_paths::metadata(&path) {
                            Ok(m) if m.is_file() => m.len(),
                            Ok(_) => {
                                without_size = true;
                                0
                            }
                            // It will fail when hashed, and be counted then as done.
                            Err(_) => 0,
                        };
                        counts.total_bytes.fetch_add(size, Ordering::Relaxed);
                        counts.total_files.fetch_add(1, Ordering::Relaxed);
                    }
                }
                counts.counting_done.store(!without_size, Ordering::Relaxed);
            })
        };
        // Asked for by name, the bar shows at once; otherwise only work over a second gets one.
        let delay = if choice == ProgressChoice::Always {
            Duration::ZERO
        } else {
            DELAY
        };
        // Taken here, not in the thread: on a busy machine the workers may hash a good part of
        // the input before a new thread first runs.
        let started = Instant::now();
        let bytes_before = BYTES_HASHED.load(Ordering::Relaxed);
        let ticker = {
            let counts = Arc::clone(&counts);
            let screen = Arc::clone(&screen);
            std::thread::spawn(move || loop {
                std::thread::park_timeout(TICK);
                if counts.finished.load(Ordering::Relaxed) {
                    break;
                }
                if started.elapsed() < delay {
                    continue;
                }
                let current = counts.current.lock().map(|c| c.clone()).unwrap_or_default();
                let state = BarState {
                    done_bytes: BYTES_HASHED.load(Ordering::Relaxed) - bytes_before,
                    total_bytes: counts.total_bytes.load(Ordering::Relaxed),
                    done_files: counts.done_files.load(Ordering::Relaxed),
                    total_files: counts.total_files.load(Ordering::Relaxed),
                    counting: !counts.counting_done.load(Ordering::Relaxed),
                    seconds: started.elapsed().as_secs_f64(),
                    current: (!current.is_empty()).then_some(&current[..]),
                };
                let line = bar(&state, columns());
                if let Ok(mut screen) = screen.lock() {
                    screen.put(line);
                }
            })
        };
        Progress {
            active: Some(Active {
                screen,
                counts,
                threads: vec![counter, ticker],
            }),
        }
    }

    /// Names the file the bar shows: called by a worker as it takes a batch of inputs, with
    /// the first of them. So the bar names the file most recently started, which on a big
    /// file is the one the time goes to (a batch of small files is over in a blink), and it
    /// costs one short lock a batch rather than a look at every file's size.
    pub fn hashing(&self, inputs: &[&Input]) {
        let Some(active) = &self.active else { return };
        let Some(Input::Path(path)) = inputs.first() else {
            return;
        };
        if let Ok(mut current) = active.counts.current.lock() {
            current.clear();
            current.extend_from_slice(path.as_os_str().as_bytes());
        }
    }

    /// Counts a finished task (called in output order by the writer).
    pub fn file_done(&self, task: &Task) {
        let Some(active) = &self.active else { return };
        if let Task::Hash(_) = task {
            active.counts.done_files.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Runs `write` on `out` with the bar lifted off the terminal, flushing `out` before the
    /// bar comes back so a line never shares the terminal with it.
    pub fn write<W: std::io::Write>(
        &self,
        out: &mut W,
        write: impl FnOnce(&mut W) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let Some(active) = &self.active else {
            return write(out);
        };
        let Ok(mut screen) = active.screen.lock() else {
            return write(out);
        };
        let was_shown = screen.shown;
        screen.lift();
        let written = write(out).and_then(|()| out.flush());
        if was_shown {
            let line = std::mem::take(&mut screen.line);
            screen.put(line);
        }
        written
    }

    /// Stops the bar and erases it.
    pub fn finish(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        let Some(active) = self.active.take() else {
            return;
        };
        active.counts.finished.store(true, Ordering::Relaxed);
        for thread in active.threads {
            thread.thread().unpark();
            let _ = thread.join();
        }
        if let Ok(mut screen) = active.screen.lock() {
            screen.lift();
        };
    }
}

/// Every way out of a run erases the bar, an early return included.
impl Drop for Progress {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Standard error's width in columns, asked each time the bar is drawn (the terminal may be
/// resized); [`DEFAULT_COLUMNS`] when it is not a terminal.
fn columns() -> usize {
    // SAFETY: TIOCGWINSZ writes one `winsize` into the zeroed value it is given.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    // SAFETY: as above; the call touches nothing else.
    let got = unsafe { libc::ioctl(2, libc::TIOCGWINSZ, &mut size) };
    if got == 0 && size.ws_col > 0 {
        usize::from(size.ws_col)
    } else {
        DEFAULT_COLUMNS
    }
}
