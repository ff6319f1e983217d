//! Hashing many inputs on a rayon pool while one writer receives the results in input order.
//!
//! Workers send `(index, result)` over a channel; the caller's thread keeps the results that
//! arrive early until their turn comes, so output is the same whatever the thread count, and
//! starts as soon as the first input is done.

use super::Input;
use std::collections::BTreeMap;
use std::io;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

/// Whether a list of inputs must be read in order on one thread: standard input can be read
/// only once, so a list naming it twice runs sequentially, as coreutils reads it.
pub fn must_run_in_order<'a>(inputs: impl IntoIterator<Item = &'a Input>) -> bool {
    inputs.into_iter().filter(|i| **i == Input::Stdin).count() > 1
}

/// Runs `work` on every item, on `threads` threads, and calls `deliver` with each result in
/// item order. `deliver` returning `Break` stops the remaining work early.
pub fn for_each_ordered<I, T, W, D>(items: &[I], threads: usize, work: W, mut deliver: D)
where
    I: Sync,
    T: Send,
    W: Fn(&I) -> T + Sync,
    D: FnMut(usize, T) -> ControlFlow<()>,
{
    let inputs = items;
    if threads <= 1 || inputs.len() <= 1 {
        for (index, input) in inputs.iter().enumerate() {
            if deliver(index, work(input)).is_break() {
                return;
            }
        }
        return;
    }

    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool,
        Err(_) => {
            // Without threads we still hash everything, one input at a time.
            return for_each_ordered(inputs, 1, work, deliver);
        }
    };
    let cancelled = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel::<(usize, T)>();
    std::thread::scope(|scope| {
        let cancelled = &cancelled;
        let work = &work;
        let pool = &pool;
        scope.spawn(move || {
            use rayon::prelude::*;
            pool.install(|| {
                inputs
                    .par_iter()
                    .enumerate()
                    .for_each_with(sender, |sender, (index, input)| {
                        if cancelled.load(Ordering::Relaxed) {
                            return;
                        }
                        let _ = sender.send((index, work(input)));
                    });
            });
        });

        let mut pending = BTreeMap::new();
        let mut next = 0;
        for (index, result) in receiver.iter() {
            pending.insert(index, result);
            while let Some(result) = pending.remove(&next) {
                if deliver(next, result).is_break() {
                    cancelled.store(true, Ordering::Relaxed);
                    return;
                }
                next += 1;
            }
        }
    });
}

/// The number of threads to use when the user did not say.
pub fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// Whether an error on standard output means the reader went away (`| head`).
pub fn is_broken_pipe(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::BrokenPipe
}
