//! Hashing many inputs on a rayon pool while one writer receives the results in input order.
//!
//! Workers pull items from a (possibly lazy) iterator, so a directory walk feeds the pool as it
//! goes; results that finish early wait in a map until their turn comes, so output is the same
//! whatever the thread count, and starts as soon as the first input is done. Everything runs inside a pool of exactly the
//! requested size, so `-j 1` also keeps a single file's CRC or BLAKE3 on one thread.

use super::Input;
use rayon::iter::{ParallelBridge, ParallelIterator};
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

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
    D: FnMut(usize, I, T) -> ControlFlow<()> + Send,
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

    // No writer thread: whichever worker finishes the next item in order delivers it, and every
    // ready item after it, under one lock. A separate writer woke up once per file, and on
    // 20,000 small files those wake-ups cost more than the hashing.
    let cancelled = AtomicBool::new(false);
    let state = Mutex::new(Reorder {
        pending: BTreeMap::new(),
        next: 0,
        deliver,
    });
    items
        .take_while(|_| !cancelled.load(Ordering::Relaxed))
        .enumerate()
        .par_bridge()
        .for_each(|(index, item)| {
            if cancelled.load(Ordering::Relaxed) {
                return;
            }
            let result = work(&item);
            let mut state = state
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if cancelled.load(Ordering::Relaxed) {
                return;
            }
            state.pending.insert(index, (item, result));
            state.deliver_ready(&cancelled);
        });
}

struct Reorder<I, T, D> {
    /// Results that finished before their turn.
    pending: BTreeMap<usize, (I, T)>,
    next: usize,
    deliver: D,
}

impl<I, T, D: FnMut(usize, I, T) -> ControlFlow<()>> Reorder<I, T, D> {
    fn deliver_ready(&mut self, cancelled: &AtomicBool) {
        while let Some((item, result)) = self.pending.remove(&self.next) {
            if (self.deliver)(self.next, item, result).is_break() {
                cancelled.store(true, Ordering::Relaxed);
                self.pending.clear();
                return;
            }
            self.next += 1;
        }
    }
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
