//! The progress bar, run by `indicatif`: on standard error, only when it is a terminal (or
//! `--progress` says so), and only once the work has run for a second, so quick runs and
//! pipelines never see it. indicatif's thread redraws it; lines on standard output are written
//! with the bar lifted (indicatif's `suspend`), so the two never mix on one terminal line.
//! Totals come from a second, cheap walk on its own thread (sizes only), so the bar knows what
//! is left while the hashing walk is still going. The line and its bytes are made by
//! `format::progress`.
//!
//! The bar is erased (line cleared, cursor at column 0) whenever the run ends: normally, when
//! output fails (the driver finishes the bar before it reports), and on Ctrl-C or SIGTERM,
//! whose thread erases it through [`erase_before_exit`].

use super::read::BYTES_HASHED;
use super::walk::{expand, Task, WalkOptions};
use super::Input;
use crate::format::progress::{redraw, style, BarState, ERASE};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, TermLike};
use std::io::{IsTerminal, Write};
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
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
const DEFAULT_COLUMNS: u16 = 80;

/// The bar of the run under way, for the thread that ends the run on a signal.
static RUNNING: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Erases the bar, if one is on screen, and keeps it off: the process is about to `_exit` on
/// a signal. Waits for a draw, or a line written with the bar lifted, that is under way.
pub(crate) fn erase_before_exit() {
    let bar = lock(&RUNNING).clone();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
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

pub struct Progress {
    active: Option<Active>,
}

struct Active {
    bar: ProgressBar,
    counts: Arc<Counts>,
    counter: JoinHandle<()>,
}

impl Progress {
    pub fn start(choice: ProgressChoice, inputs: &[Input], walk: &WalkOptions) -> Progress {
        let wanted = match choice {
            ProgressChoice::Never => false,
            ProgressChoice::Always => true,
            ProgressChoice::Auto => std::io::stderr().is_terminal(),
        };
        // Standard input has no size to count; a bar over it would only guess. Where the
        // system may refuse threads the bar, which needs two of its own (its counting walk
        // and indicatif's ticks, a thread that panics if refused), is left out.
        if !wanted || inputs.contains(&Input::Stdin) || super::parallel::threads_are_scarce() {
            return Progress { active: None };
        }
        let counts = Arc::new(Counts::default());
        let Some(counter) = count_totals(Arc::clone(&counts), inputs.to_vec(), walk.clone()) else {
            return Progress { active: None };
        };
        // Asked for by name, the bar shows at once; otherwise only work over a second gets one.
        let delay = if choice == ProgressChoice::Always {
            Duration::ZERO
        } else {
            DELAY
        };
        // The bar's clock starts here, not in its thread: on a busy machine the workers may
        // hash a good part of the input before a new thread first runs.
        let terminal = Stderr::showing_from(Instant::now() + delay);
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::term_like(terminal))
            .with_style(style(where_the_run_is(Arc::clone(&counts))));
        // Known to the signal thread before the first draw.
        *lock(&RUNNING) = Some(bar.clone());
        bar.enable_steady_tick(TICK);
        Progress {
            active: Some(Active {
                bar,
                counts,
                counter,
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
        let mut current = lock(&active.counts.current);
        current.clear();
        current.extend_from_slice(path.as_os_str().as_bytes());
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
    pub fn write<W: Write>(
        &self,
        out: &mut W,
        write: impl FnOnce(&mut W) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        match &self.active {
            None => write(out),
            Some(active) => active.bar.suspend(|| write(out).and_then(|()| out.flush())),
        }
    }

    /// Stops the bar and erases it.
    pub fn finish(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        let Some(active) = self.active.take() else {
            return;
        };
        // Unwinding, indicatif draws nothing, and its lock may be poisoned (a panic while a
        // line was written with the bar lifted): a second panic would abort.
        if !std::thread::panicking() {
            active.bar.finish_and_clear();
        }
        // Only now: a signal until then still finds the bar to erase.
        lock(&RUNNING).take();
        active.counts.finished.store(true, Ordering::Relaxed);
        let _ = active.counter.join();
    }
}

/// Every way out of a run erases the bar, an early return included.
impl Drop for Progress {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The walk that counts what there is to hash, sizes only, on a thread of its own; None when
/// no thread could be had.
fn count_totals(
    counts: Arc<Counts>,
    inputs: Vec<Input>,
    walk: WalkOptions,
) -> Option<JoinHandle<()>> {
    let spawned = std::thread::Builder::new().spawn(move || {
        // A pipe or a device has no size to add: the total is then only a lower bound, and
        // stays marked as still counted.
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
    });
    spawned.ok()
}

/// Where the run is each time indicatif draws the bar: the bytes since the bar started (the
/// readers count them, see `read::BYTES_HASHED`), the counts, and the time indicatif keeps.
fn where_the_run_is(
    counts: Arc<Counts>,
) -> impl Fn(&ProgressState) -> BarState + Send + Sync + Clone + 'static {
    let bytes_before = BYTES_HASHED.load(Ordering::Relaxed);
    move |progress| {
        let current = lock(&counts.current).clone();
        BarState {
            done_bytes: BYTES_HASHED.load(Ordering::Relaxed) - bytes_before,
            total_bytes: counts.total_bytes.load(Ordering::Relaxed),
            done_files: counts.done_files.load(Ordering::Relaxed),
            total_files: counts.total_files.load(Ordering::Relaxed),
            counting: !counts.counting_done.load(Ordering::Relaxed),
            seconds: progress.elapsed().as_secs_f64(),
            current: (!current.is_empty()).then_some(current),
            columns: usize::from(columns()),
        }
    }
}

/// Standard error as indicatif draws on it. indicatif's own terminal would hide the bar where
/// standard error is not a terminal, or where `TERM` is unset or `dumb`, which `--progress`
/// overrides; and it draws with a blank moment (clear, then write) and pads the line to the
/// last column. Here each draw reaches the terminal as one write ([`redraw`]), and nothing
/// shows before `shows_from`.
#[derive(Debug)]
struct Stderr {
    shows_from: Instant,
    screen: Mutex<Screen>,
}

#[derive(Debug, Default)]
struct Screen {
    /// What indicatif wrote since its last flush: the line, or nothing to erase it.
    pending: String,
    /// The bar is on the terminal.
    shown: bool,
    /// Standard error failed: draw no more.
    broken: bool,
}

impl Stderr {
    fn showing_from(shows_from: Instant) -> Box<Stderr> {
        Box::new(Stderr {
            shows_from,
            screen: Mutex::default(),
        })
    }
}

impl TermLike for Stderr {
    fn width(&self) -> u16 {
        columns()
    }

    // The bar is one line: indicatif moves the cursor only over the lines above a bar's last.
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }

    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }

    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }

    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }

    fn write_line(&self, text: &str) -> std::io::Result<()> {
        self.write_str(text)?;
        self.write_str("\n")
    }

    fn write_str(&self, text: &str) -> std::io::Result<()> {
        lock(&self.screen).pending.push_str(text);
        Ok(())
    }

    // The flush that follows redraws or erases the whole line in one write.
    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }

    fn flush(&self) -> std::io::Result<()> {
        let mut screen = lock(&self.screen);
        let pending = std::mem::take(&mut screen.pending);
        if screen.broken {
            return Ok(());
        }
        // indicatif's padding to the last column: `redraw` erases what a longer line left.
        let line = pending.trim_end_matches(' ');
        let bytes = if !line.is_empty() && Instant::now() >= self.shows_from {
            redraw(line)
        } else if line.is_empty() && screen.shown {
            ERASE.to_vec()
        } else {
            // Too early for a bar, or none on screen to erase.
            return Ok(());
        };
        let written = std::io::stderr().write_all(&bytes);
        screen.broken = written.is_err();
        screen.shown = !line.is_empty() && !screen.broken;
        written
    }
}

/// Standard error's width in columns, asked each time the bar is drawn (the terminal may be
/// resized); [`DEFAULT_COLUMNS`] when it is not a terminal.
fn columns() -> u16 {
    // SAFETY: TIOCGWINSZ writes one `winsize` into the zeroed value it is given.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    // SAFETY: as above; the call touches nothing else.
    let got = unsafe { libc::ioctl(2, libc::TIOCGWINSZ, &mut size) };
    if got == 0 && size.ws_col > 0 {
        size.ws_col
    } else {
        DEFAULT_COLUMNS
    }
}

/// The bar's locks guard no invariant a panic could break: a poisoned one is used as it is.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
