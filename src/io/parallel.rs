//! Hashing many inputs on a rayon pool while one writer receives the results in input order.
//!
//! Workers pull items from a (possibly lazy) iterator, so a directory walk feeds the pool as it
//! goes, and send `(index, item, result)` over a channel; the caller's thread keeps the results
//! that arrive early until their turn comes, so output is the same whatever the thread count,
//! and starts as soon as the first input is done. Everything runs inside a pool of exactly the
//! requested size, so `-j 1` also keeps a single file's CRC or BLAKE3 on one thread.

use super::Input;
use rayon::iter::{ParallelBridge, ParallelIterator};
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

/// Runs `work` on every item, on the global rayon pool (sized by [`configure_threads`]), or on
/// the caller's thread alone when `threads` is 1, and calls `deliver` with each item and its
/// result in item order. `deliver` returning `Break` stops the remaining work early.
pub fn for_each_ordered<I, T, W, D>(
    items: impl Iterator<Item = I> + Send,
    threads: usize,
    work: W,
    mut deliver: D,
) where
    I: Send,
    T: Send,
    W: Fn(&I) -> T + Sync,
    D: FnMut(usize, I, T) -> ControlFlow<()>,
{
    if threads <= 1 {
        for (index, item) in items.enumerate() {
            let result = work(&item);
            if deliver(index, item, result).is_break() {
                return;
            }
        }
        return;
    }

    let cancelled = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel::<(usize, I, T)>();
    std::thread::scope(|scope| {
        let cancelled = &cancelled;
        let work = &work;
        scope.spawn(move || {
            items
                .take_while(|_| !cancelled.load(Ordering::Relaxed))
                .enumerate()
                .par_bridge()
                .for_each_with(sender, |sender, (index, item)| {
                    if cancelled.load(Ordering::Relaxed) {
                        return;
                    }
                    let result = work(&item);
                    let _ = sender.send((index, item, result));
                });
        });

        let mut pending = BTreeMap::new();
        let mut next = 0;
        for (index, item, result) in receiver.iter() {
            pending.insert(index, (item, result));
            while let Some((item, result)) = pending.remove(&next) {
                if deliver(next, item, result).is_break() {
                    cancelled.store(true, Ordering::Relaxed);
                    return;
                }
                next += 1;
            }
        }
    });
}

/// Sizes rayon's global pool to `-j`, so files hashed side by side and the pieces of one split
/// file share the same threads. Called once, before any work.
pub fn configure_threads(threads: usize) {
    // Fails only when the pool already exists (a second run in one process): keep that one.
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build_global();
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
