//! The progress bar: on standard error, only when it is a terminal (or `--progress`), and only
//! once the work has run for a second, so quick runs and pipelines never see it. Totals come
//! from a second, cheap walk on its own thread (sizes only), so the bar knows what is left
//! while the hashing walk is still going; lines on standard output are written with the bar
//! lifted, so the two never mix on one terminal line.

use super::read::BYTES_HASHED;
use super::walk::{expand, Task, WalkOptions};
use super::Input;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// `--progress`, `--no-progress`, or neither.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ProgressChoice {
    /// When standard error is a terminal and the work lasts over a second.
    #[default]
    Auto,
    /// At once, on a terminal (indicatif draws nothing elsewhere).
    Always,
    Never,
}

const DELAY: Duration = Duration::from_secs(1);
const TICK: Duration = Duration::from_millis(100);

#[derive(Default)]
struct Counts {
    total_bytes: AtomicU64,
    total_files: AtomicU64,
    counting_done: AtomicBool,
    done_files: AtomicU64,
    finished: AtomicBool,
}

pub struct Progress {
    active: Option<Active>,
}

struct Active {
    bar: ProgressBar,
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
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:30.cyan/blue} {bytes}/{total_bytes} {msg} {binary_bytes_per_sec} ETA {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        let counter = {
            let counts = Arc::clone(&counts);
            let inputs = inputs.to_vec();
            let walk = walk.clone();
            std::thread::spawn(move || {
                for task in expand(inputs, walk) {
                    if counts.finished.load(Ordering::Relaxed) {
                        break;
                    }
                    if let Task::Hash(Input::Path(path)) = task {
                        let size = crate::io::long_paths::metadata(&path)
                            .map(|m| m.len())
                            .unwrap_or(0);
                        counts.total_bytes.fetch_add(size, Ordering::Relaxed);
                        counts.total_files.fetch_add(1, Ordering::Relaxed);
                    }
                }
                counts.counting_done.store(true, Ordering::Relaxed);
            })
        };
        // Asked for by name, the bar shows at once; otherwise only work over a second gets one.
        let delay = if choice == ProgressChoice::Always {
            Duration::ZERO
        } else {
            DELAY
        };
        let ticker = {
            let counts = Arc::clone(&counts);
            let bar = bar.clone();
            std::thread::spawn(move || {
                let started = Instant::now();
                let mut shown = false;
                while !counts.finished.load(Ordering::Relaxed) {
                    std::thread::sleep(TICK);
                    if !shown && started.elapsed() >= delay {
                        bar.set_draw_target(ProgressDrawTarget::stderr());
                        shown = true;
                    }
                    bar.set_length(counts.total_bytes.load(Ordering::Relaxed));
                    bar.set_position(BYTES_HASHED.load(Ordering::Relaxed));
                    let counted = if counts.counting_done.load(Ordering::Relaxed) {
                        ""
                    } else {
                        "+"
                    };
                    bar.set_message(format!(
                        "{}/{}{counted} files",
                        counts.done_files.load(Ordering::Relaxed),
                        counts.total_files.load(Ordering::Relaxed)
                    ));
                }
            })
        };
        Progress {
            active: Some(Active {
                bar,
                counts,
                threads: vec![counter, ticker],
            }),
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
        match &self.active {
            Some(active) => active.bar.suspend(|| {
                write(out)?;
                out.flush()
            }),
            None => write(out),
        }
    }

    pub fn finish(self) {
        if let Some(active) = self.active {
            active.counts.finished.store(true, Ordering::Relaxed);
            for thread in active.threads {
                let _ = thread.join();
            }
            active.bar.finish_and_clear();
        }
    }
}
