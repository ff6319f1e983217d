//! A large mapped file through a hasher: one hashing thread fed window by window, or, where
//! the engine can split the work (CRC combine, BLAKE3's tree), every core at once. The way in
//! is [`hash_mapping`] ([`feed_mapping`] for several algorithms over one read).
//!
//! Measured on the reference machine (2 cores, hot page cache, 1 GiB file):
//! - A mapping whose page tables are filled by `MADV_POPULATE_READ` costs about 13 GB/s of one
//!   core and copies nothing, so one helper thread populating 8 MiB windows ahead of the hasher
//!   leaves the hasher alone on the other core: XXH3 then runs at the speed it reads page-cache
//!   memory (8.5 GB/s here). The helper also drops each window's page-table entries once
//!   hashed (`MADV_DONTNEED`): resident memory stays at a few windows, and the unmap at the end
//!   (27 ms a GiB when done at once) no longer lands on the hashing thread.
//! - CRCs split: windows are hashed on every core and combined (`crc_combine`), each window
//!   released by the core that hashed it. Populating first did not pay there (155 ms against
//!   133 ms a GiB for CRC32C): both cores are busy already, and faults spread over them.
//!   BLAKE3 splits through its own rayon path (b3sum's), 128 MiB at a time, each group
//!   released while the next is hashed: peak RSS 140 MB on a 1 GiB file (b3sum's: the whole
//!   file), as fast as b3sum; populating each group first cost 15%.
//! - Cold, the kernel's own readahead of the one sequential stream beats any help: a thread
//!   of `readahead(2)` or `pread` ahead of the hasher, on descriptors of its own, or two
//!   populating streams on mappings of their own, each made a cold 1 GiB file slower (XXH3:
//!   0.92 to 1.09 s against 0.46 s with the populating helper; AMD EPYC, virtio disk, medians
//!   of 7, alternated). The helper does ask the kernel to start reading the few windows
//!   after the one it populates (`MADV_WILLNEED`, which does not wait): on an Intel Xeon's
//!   virtio disk, the one stream alone ran unevenly, at half the speed in the median
//!   ([`REQUESTED_AHEAD`]).

use super::mapped::Mapping;
use super::prefetch::FeedChoice;
use super::read::{count, ReadOptions};
use crate::kernels::engine::Split;
use crate::kernels::table;
use crate::kernels::{crc_combine, Algorithm, Digest, Hasher};
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The unit of populating, hashing and releasing a mapping.
pub const WINDOW: usize = 8 * 1024 * 1024;
const _: () = assert!(WINDOW.is_multiple_of(super::prefetch::STRETCH));

/// Hashes a mapped file by the best path its engine allows.
pub fn hash_mapping(mapping: &Mapping, algorithm: Algorithm, options: &ReadOptions) -> Digest {
    match table::chosen(algorithm).split {
        Split::CrcCombine if options.split_files => crc_in_parallel(mapping, algorithm),
        Split::Blake3Tree if options.split_files => blake3_in_parallel(mapping),
        _ => hash_with_populating_helper(mapping, algorithm),
    }
}

fn windows(len: usize) -> impl Iterator<Item = Range<usize>> {
    (0..len.div_ceil(WINDOW)).map(move |i| i * WINDOW..((i + 1) * WINDOW).min(len))
}

/// One hashing thread, fed by a helper that populates windows ahead of it and releases them
/// behind it.
fn hash_with_populating_helper(mapping: &Mapping, algorithm: Algorithm) -> Digest {
    let mut hasher = Hasher::new(algorithm);
    feed_mapping(mapping, |window| hasher.update(window));
    hasher.finalize()
}

/// Hands a mapped file to `consume` a window at a time, in order, on this thread, while a
/// helper populates windows ahead of it and releases them behind it. Stops early when the
/// file lost a page (it shrank, or the device failed; the caller reports it).
pub(crate) fn feed_mapping(mapping: &Mapping, mut consume: impl FnMut(&[u8])) {
    let bytes = mapping.bytes();
    let window_count = bytes.len().div_ceil(WINDOW);
    if window_count <= 1 {
        count(bytes.len());
        consume(bytes);
        return;
    }
    mapping.advise_sequential();
    // Windows populated so far, and windows hashed so far.
    let populated = AtomicUsize::new(0);
    let hashed = AtomicUsize::new(0);
    let hashing_thread = std::thread::current();
    let mut feed = FeedChoice::new(bytes.len());
    std::thread::scope(|scope| {
        // None: no thread to be had (a limit on threads or address space). The pages then
        // fault in as they are hashed, and this thread releases each window behind it.
        let helper = std::thread::Builder::new()
            .name("populate".into())
            .stack_size(HELPER_STACK)
            .spawn_scoped(scope, || {
                populate_ahead(mapping, &populated, &hashed, &hashing_thread)
            })
            .ok();
        for (index, window) in windows(bytes.len()).enumerate() {
            if let Some(helper) = &helper {
                wait_until_populated(index, &populated, helper, mapping);
            }
            // A file with a page that could not be read (it shrank, or the device failed) is
            // reported whatever the rest holds: stop hashing the zeros that stand in for it
            // (minutes of them on a slow kernel).
            if mapping.fault().is_some() {
                break;
            }
            count(window.len());
            feed.feed(&bytes[window.clone()], &mut consume);
            match &helper {
                Some(helper) => {
                    hashed.store(index + 1, Ordering::Release);
                    helper.thread().unpark();
                }
                None => mapping.release(window),
            }
        }
        // Every window counts as hashed (they are, unless the file shrank): the helper
        // releases what is left and returns.
        if let Some(helper) = &helper {
            hashed.store(window_count, Ordering::Release);
            helper.thread().unpark();
        }
    });
}

/// Waits until the helper has populated window `index`, has stopped, or a page was lost.
fn wait_until_populated(
    index: usize,
    populated: &AtomicUsize,
    helper: &std::thread::ScopedJoinHandle<'_, ()>,
    mapping: &Mapping,
) {
    let mut spins = 0u32;
    while populated.load(Ordering::Acquire) <= index
        && !helper.is_finished()
        && mapping.fault().is_none()
    {
        spins += 1;
        if spins < 64 {
            std::hint::spin_loop();
        } else {
            // Asleep until the helper has populated a window (it unparks this thread), or a
            // millisecond has passed (a truncated file, a helper gone). Cold, a yielding loop
            // here burned a core on `sched_yield` while the device was the limit, and ran
            // slower: XXH3 of a cold 1 GiB file, 598 against 481 ms (medians of 9,
            // alternated; user and system time 0.5 against 0.15 s).
            std::thread::park_timeout(std::time::Duration::from_millis(1));
        }
    }
}

/// The populating helper's stack: it only advises the kernel.
const HELPER_STACK: usize = 64 * 1024;

/// How many windows past the one being populated the kernel is asked to read already
/// (`MADV_WILLNEED`, which starts the reads and returns). Populating alone leaves the device one
/// readahead stream, which a virtual disk serves unevenly. Intel Xeon (family 6 model 167),
/// 2 cores, virtio disk, a cold 1 GiB file, 6 rounds alternated, medians: XXH3 505 ms with 4
/// windows asked ahead, 503 with 2, 1,020 with none (660 to 1,562); SHA-256 761, 812 and 1,317
/// ms (hot: 698). Going to 8 or 16 windows changed nothing. A second run, 7 rounds: SHA-256
/// 784 ms (761 to 831) against 1,550 (796 to 1,888) without; XXH3 498 (478 to 529) against
/// 470 (462 to 1,266): a little slower when the device runs evenly, never twice as slow. Hot,
/// the advice finds the pages in place: XXH3 of the same file in the page cache, 80.2 ms
/// against 80.1 (30 runs).
const REQUESTED_AHEAD: usize = 4;

/// The helper of [`feed_mapping`]: populates each window ahead of the hashing thread, at most
/// eight ahead, and releases those hashed (`hashed` of them) behind it.
fn populate_ahead(
    mapping: &Mapping,
    populated: &AtomicUsize,
    hashed: &AtomicUsize,
    hashing_thread: &std::thread::Thread,
) {
    let len = mapping.len();
    let window_count = len.div_ceil(WINDOW);
    let mut released = 0;
    let release_hashed = |released: &mut usize| {
        let done = hashed.load(Ordering::Acquire);
        if done > *released {
            mapping.release(*released * WINDOW..done * WINDOW);
            *released = done;
        }
        done
    };
    // Windows whose reading the kernel has been asked to start.
    let mut requested = 0;
    for (index, window) in windows(len).enumerate() {
        if mapping.fault().is_some() {
            break;
        }
        // Populating waits for the window's pages; the windows after it are read meanwhile.
        while requested < window_count && requested <= index + REQUESTED_AHEAD {
            mapping.will_need(requested * WINDOW..(requested + 1) * WINDOW);
            requested += 1;
        }
        // Stay a bounded distance ahead, so memory stays bounded on huge files.
        while index >= hashed.load(Ordering::Acquire) + 8 {
            release_hashed(&mut released);
            std::thread::park_timeout(std::time::Duration::from_millis(1));
        }
        mapping.populate(window);
        populated.store(index + 1, Ordering::Release);
        hashing_thread.unpark();
        release_hashed(&mut released);
    }
    while release_hashed(&mut released) < window_count {
        std::thread::park_timeout(std::time::Duration::from_millis(1));
    }
}

/// A CRC from windows hashed on every core, combined in order.
fn crc_in_parallel(mapping: &Mapping, algorithm: Algorithm) -> Digest {
    use rayon::prelude::*;
    let bytes = mapping.bytes();
    let pieces: Vec<(Digest, u64)> = windows(bytes.len())
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|window| {
            let mut hasher = Hasher::new(algorithm);
            hasher.update(&bytes[window.clone()]);
            let digest = hasher.finalize();
            count(window.len());
            mapping.release(window.clone());
            (digest, window.len() as u64)
        })
        .collect();
    combine_crcs(algorithm, pieces)
}

/// The CRC of consecutive pieces from each piece's CRC and length, combined in order (0, the
/// CRC of nothing, for no pieces): how a file's windows hashed apart, and S3's FULL_OBJECT
/// parts, make one CRC.
pub(crate) fn combine_crcs(
    algorithm: Algorithm,
    pieces: impl IntoIterator<Item = (Digest, u64)>,
) -> Digest {
    // A CRC digest is the CRC's big-endian bytes.
    let value = |digest: &Digest| {
        digest
            .as_bytes()
            .iter()
            .fold(0u64, |value, &byte| (value << 8) | u64::from(byte))
    };
    let mut pieces = pieces.into_iter();
    let combined = pieces.next().map_or(0, |(first, _)| {
        pieces.fold(value(&first), |crc, (piece, len)| {
            crc_combine(algorithm, crc, value(&piece), len)
        })
    });
    crate::kernels::crc_digest(algorithm, combined)
}

/// BLAKE3's own parallel tree hashing (as b3sum does it), 128 MiB at a time so that pages are
/// released behind it. A group is released while the next is hashed: released in between,
/// by the thread that hashes, the release left the other cores idle. 1 GiB in the page cache,
/// 2 cores, medians of 15 alternated: 278.4 ms released in between, 238.8 released alongside,
/// b3sum 241.7; cold, medians of 11: 625.3, 623.0 and 740.5 ms.
fn blake3_in_parallel(mapping: &Mapping) -> Digest {
    Digest::from_slice(blake3_tree(mapping).finalize().as_bytes())
}

/// A BLAKE3 hasher fed a whole mapped file, for what needs more than its digest (`b3sum --check
/// --seek`'s output from a byte on): split over the cores as [`hash_mapping`] splits BLAKE3
/// where `split` allows, else fed window by window as any other algorithm is.
pub(crate) fn blake3_hasher_of(mapping: &Mapping, split: bool) -> blake3::Hasher {
    if split {
        return blake3_tree(mapping);
    }
    let mut hasher = blake3::Hasher::new();
    feed_mapping(mapping, |window| {
        hasher.update(window);
    });
    hasher
}

/// [`blake3_in_parallel`]'s hashing, the hasher handed back unfinished.
fn blake3_tree(mapping: &Mapping) -> blake3::Hasher {
    const GROUP: usize = 16 * WINDOW;
    let bytes = mapping.bytes();
    let mut hasher = blake3::Hasher::new();
    let mut hashed: Option<Range<usize>> = None;
    let mut start = 0;
    while start < bytes.len() {
        let end = (start + GROUP).min(bytes.len());
        let behind = hashed.take();
        rayon::join(
            || hasher.update_rayon(&bytes[start..end]),
            || {
                if let Some(behind) = behind {
                    mapping.release(behind);
                }
            },
        );
        count(end - start);
        hashed = Some(start..end);
        start = end;
    }
    if let Some(last) = hashed {
        mapping.release(last);
    }
    hasher
}
