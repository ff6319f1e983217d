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
//! - The 13 GB/s of populating is for a page cache in large folios. In 4 KiB pages the helper
//!   pays for every page, and a copy out of the page cache costs less than its work: the first
//!   windows of a file in the page cache are fed both ways and timed ([`super::source`]).

use super::mapped::Mapping;
use super::prefetch::FeedChoice;
use super::read::{count, MmapChoice, ReadOptions};
use super::source::{read_range, SourceChoice, Way, TRIAL};
use crate::kernels::engine::Split;
use crate::kernels::table;
use crate::kernels::{crc_combine, Algorithm, Digest, Hasher};
use std::fs::File;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The unit of populating, hashing and releasing a mapping.
pub const WINDOW: usize = 8 * 1024 * 1024;
const _: () = assert!(WINDOW.is_multiple_of(super::prefetch::STRETCH));

/// Hashes a mapped file by the best path its engine allows.
pub fn hash_mapping(
    mapping: &Mapping,
    file: &File,
    algorithm: Algorithm,
    options: &ReadOptions,
) -> Digest {
    match table::chosen(algorithm).split {
        Split::CrcCombine if options.split_files => crc_in_parallel(mapping, algorithm),
        Split::Blake3Tree if options.split_files => blake3_in_parallel(mapping),
        // `--mmap` asked for the mapping: no reads instead.
        _ => {
            let mapped_only = options.mmap == MmapChoice::Always;
            hash_with_populating_helper(mapping, file, mapped_only, algorithm)
        }
    }
}

fn windows(len: usize) -> impl Iterator<Item = Range<usize>> {
    (0..len.div_ceil(WINDOW)).map(move |i| i * WINDOW..((i + 1) * WINDOW).min(len))
}

/// One hashing thread, fed by a helper that populates windows ahead of it and releases them
/// behind it.
fn hash_with_populating_helper(
    mapping: &Mapping,
    file: &File,
    mapped_only: bool,
    algorithm: Algorithm,
) -> Digest {
    let mut hasher = Hasher::new(algorithm);
    feed_mapping(mapping, file, mapped_only, |window| hasher.update(window));
    hasher.finalize()
}

/// Hands a mapped file to `consume` a window at a time, in order, on this thread, while a
/// helper populates windows ahead of it and releases them behind it. A few windows at the
/// start are read through `file` instead, timed against mapped ones, and where reading is the
/// faster the rest is read ([`super::source`]), unless `mapped_only` (`--mmap`). Stops early
/// when the file lost a page (it shrank, or the device failed; the caller reports it).
pub(crate) fn feed_mapping(
    mapping: &Mapping,
    file: &File,
    mapped_only: bool,
    consume: impl FnMut(&[u8]),
) {
    // Timed only where the trial's windows are in the page cache: cold, both ways wait for the
    // device, and the windows read would go without the helper's requests ahead of them.
    let in_memory = TRIAL
        .iter()
        .all(|&(index, _)| mapping.is_resident(((index + 1) * WINDOW).min(mapping.len()) - 1));
    let source = match in_memory && !mapped_only {
        true => SourceChoice::new(mapping.len()),
        false => SourceChoice::mapped(),
    };
    feed_mapping_choosing(mapping, file, source, consume);
}

/// [`feed_mapping`] with the choice between the mapping and reads made by `source`.
fn feed_mapping_choosing(
    mapping: &Mapping,
    file: &File,
    mut source: SourceChoice,
    mut consume: impl FnMut(&[u8]),
) {
    let bytes = mapping.bytes();
    let window_count = bytes.len().div_ceil(WINDOW);
    if window_count <= 1 {
        count(bytes.len());
        consume(bytes);
        return;
    }
    mapping.advise_sequential();
    let progress = Progress::new(source.trying());
    let hashing_thread = std::thread::current();
    let mut feed = FeedChoice::new(bytes.len());
    std::thread::scope(|scope| {
        // Started at the first mapped window. None: not yet, or no thread to be had (a limit
        // on threads or address space); the pages then fault in as they are hashed, and this
        // thread releases each window behind it.
        let mut helper = None;
        let mut spawned = false;
        for (index, window) in windows(bytes.len()).enumerate() {
            if source.way(index) == Way::Read {
                if index == 0 {
                    // The kernel's readahead of a sequential reader then goes further.
                    super::source::advise_sequential(file);
                }
                if source.reads_from_now() && !progress.stopped.swap(true, Ordering::AcqRel) {
                    // The helper populates no more; the kernel reads ahead of the reads, as
                    // advised at window 0 (asking it as the helper does would cost more than it
                    // saves: 14 ms a GiB of `POSIX_FADV_WILLNEED` over pages already there, on
                    // AMD Zen 5).
                    wake(helper.as_ref());
                }
                let started = Instant::now();
                if !read_range(file, mapping, window.clone(), &mut consume) {
                    break;
                }
                source.record(index, started.elapsed());
            } else {
                if !spawned {
                    spawned = true;
                    let (progress, hashing_thread) = (&progress, &hashing_thread);
                    helper = std::thread::Builder::new()
                        .name("populate".into())
                        .stack_size(HELPER_STACK)
                        .spawn_scoped(scope, move || {
                            populate_ahead(mapping, progress, hashing_thread, index)
                        })
                        .ok();
                }
                if let Some(helper) = &helper {
                    wait_until_populated(index, &progress.populated, helper, mapping);
                }
                // A file with a page that could not be read (it shrank, or the device failed)
                // is reported whatever the rest holds: stop hashing the zeros that stand in
                // for it (minutes of them on a slow kernel).
                if mapping.fault().is_some() {
                    break;
                }
                let hashing = source.trying().then(Instant::now);
                count(window.len());
                feed.feed(&bytes[window.clone()], &mut consume);
                if let Some(hashing) = hashing {
                    source.note_helper(progress.populating(), progress.release_per_window());
                    source.record(index, hashing.elapsed());
                    if !source.trying() {
                        progress.lead.store(LEAD, Ordering::Release);
                    }
                }
            }
            // Counted whether or not a helper runs yet: one started later starts from here.
            progress.hashed.store(index + 1, Ordering::Release);
            match &helper {
                Some(helper) => helper.thread().unpark(),
                None => mapping.release(window),
            }
        }
        // Every window counts as hashed (they are, unless the file shrank): the helper
        // releases what is left and returns.
        progress.hashed.store(window_count, Ordering::Release);
        wake(helper.as_ref());
    });
}

fn wake(helper: Option<&std::thread::ScopedJoinHandle<'_, ()>>) {
    if let Some(helper) = helper {
        helper.thread().unpark();
    }
}

/// How many windows the helper populates ahead of the hashing thread at most, so that memory
/// stays bounded on huge files.
const LEAD: usize = 8;

/// The same while the windows of a trial are fed: the helper then populates only the window
/// to be hashed next, so that each mapped window is timed with its populating, and none runs
/// beside a window read (on AMD Zen 5, 4 KiB folios, a read window took 0.83 to 1.19 ms with
/// the helper populating beside it, 0.64 to 0.70 ms alone).
const LEAD_IN_TRIAL: usize = 1;

/// What the hashing thread and the populating helper of [`feed_mapping`] tell each other.
struct Progress {
    /// How far ahead of the hashing thread the helper may populate: [`LEAD_IN_TRIAL`] while
    /// the ways are timed, then [`LEAD`].
    lead: AtomicUsize,
    /// Windows populated so far.
    populated: AtomicUsize,
    /// Windows hashed so far.
    hashed: AtomicUsize,
    /// Set when the rest of the file is read instead: the helper populates no more.
    stopped: AtomicBool,
    /// The helper's populating of each trial window, in nanoseconds; 0 before it is done.
    populate_nanos: [AtomicU64; TRIAL.len()],
    /// The helper's releasing so far: windows released, and nanoseconds it took.
    released_windows: AtomicUsize,
    release_nanos: AtomicU64,
}

impl Progress {
    fn new(trying: bool) -> Progress {
        Progress {
            lead: AtomicUsize::new(if trying { LEAD_IN_TRIAL } else { LEAD }),
            populated: AtomicUsize::new(0),
            hashed: AtomicUsize::new(0),
            stopped: AtomicBool::new(false),
            populate_nanos: Default::default(),
            released_windows: AtomicUsize::new(0),
            release_nanos: AtomicU64::new(0),
        }
    }

    /// The helper's populating of each trial window so far.
    fn populating(&self) -> [Option<Duration>; TRIAL.len()] {
        std::array::from_fn(
            |place| match self.populate_nanos[place].load(Ordering::Acquire) {
                0 => None,
                nanos => Some(Duration::from_nanos(nanos)),
            },
        )
    }

    /// What releasing a window has cost the helper so far, on average.
    fn release_per_window(&self) -> Option<Duration> {
        let windows = self.released_windows.load(Ordering::Acquire) as u64;
        let nanos = self.release_nanos.load(Ordering::Acquire);
        (windows > 0).then(|| Duration::from_nanos(nanos / windows))
    }

    fn note_release(&self, windows: usize, took: Duration) {
        let nanos = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
        self.release_nanos.fetch_add(nanos, Ordering::AcqRel);
        self.released_windows.fetch_add(windows, Ordering::AcqRel);
    }

    /// Notes the populating of window `index`, if it is a trial window (one nanosecond at
    /// least, so that it is not taken for none).
    fn note_populate(&self, index: usize, took: Duration) {
        if let Some(place) = SourceChoice::trial_place(index) {
            let nanos = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX).max(1);
            self.populate_nanos[place].store(nanos, Ordering::Release);
        }
    }
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

/// The helper of [`feed_mapping`]: populates each window from `first` on ahead of the hashing
/// thread, at most `lead` ahead, and releases those hashed (`hashed` of them) behind it.
fn populate_ahead(
    mapping: &Mapping,
    progress: &Progress,
    hashing_thread: &std::thread::Thread,
    first: usize,
) {
    let Progress {
        lead,
        populated,
        hashed,
        stopped,
        ..
    } = progress;
    let len = mapping.len();
    let window_count = len.div_ceil(WINDOW);
    // The windows before `first` were read, not mapped: nothing of them to release.
    let mut released = first;
    let release_hashed = |released: &mut usize| {
        let done = hashed.load(Ordering::Acquire);
        if done > *released {
            let releasing = Instant::now();
            mapping.release(*released * WINDOW..done * WINDOW);
            progress.note_release(done - *released, releasing.elapsed());
            *released = done;
        }
        done
    };
    // Windows whose reading the kernel has been asked to start.
    let mut requested = first;
    for (index, window) in windows(len).enumerate().skip(first) {
        if mapping.fault().is_some() || stopped.load(Ordering::Acquire) {
            break;
        }
        // Populating waits for the window's pages; the windows after it are read meanwhile.
        while requested < window_count && requested <= index + REQUESTED_AHEAD {
            mapping.will_need(requested * WINDOW..(requested + 1) * WINDOW);
            requested += 1;
        }
        // Stay a bounded distance ahead, so memory stays bounded on huge files.
        while index >= hashed.load(Ordering::Acquire) + lead.load(Ordering::Acquire)
            && !stopped.load(Ordering::Acquire)
        {
            release_hashed(&mut released);
            std::thread::park_timeout(std::time::Duration::from_millis(1));
        }
        let populating = Instant::now();
        mapping.populate(window);
        progress.note_populate(index, populating.elapsed());
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
pub(crate) fn blake3_hasher_of(mapping: &Mapping, file: &File, split: bool) -> blake3::Hasher {
    if split {
        return blake3_tree(mapping);
    }
    let mut hasher = blake3::Hasher::new();
    feed_mapping(mapping, file, false, |window| {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A file of `len` bytes that differ from window to window.
    fn file_of(len: usize) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        let bytes: Vec<u8> = (0..len)
            .map(|i| (i % 251) as u8 ^ (i >> 20) as u8)
            .collect();
        file.write_all(&bytes).unwrap();
        file
    }

    /// What `feed_mapping_choosing` hands on, in order, for a file of `len` bytes.
    fn fed(file: &File, len: usize, source: SourceChoice) -> (Vec<u8>, Option<u64>) {
        let mapping = Mapping::new(file, len as u64).unwrap().unwrap();
        let mut out = Vec::with_capacity(len);
        feed_mapping_choosing(&mapping, file, source, |bytes| out.extend_from_slice(bytes));
        (out, mapping.fault())
    }

    #[test]
    fn every_way_of_feeding_hands_on_the_whole_file_in_order() {
        // Ten windows and a part: the trial's windows go both ways, then the rest is read, or
        // stays mapped; a file too small for a trial stays mapped.
        let len = 10 * WINDOW + 12_345;
        let temp = file_of(len);
        let expected = std::fs::read(temp.path()).unwrap();
        let file = File::open(temp.path()).unwrap();
        for (name, source) in [
            ("timed, reads kept", SourceChoice::preferring_reads(len)),
            ("timed, as measured", SourceChoice::new(len)),
            ("untimed", SourceChoice::mapped()),
        ] {
            let (out, fault) = fed(&file, len, source);
            assert_eq!(fault, None, "{name}");
            assert!(out == expected, "{name}: {} bytes handed on", out.len());
        }
    }

    #[test]
    fn a_file_that_shrinks_while_read_is_marked_where_it_ended() {
        let len = 10 * WINDOW;
        let temp = file_of(len);
        let file = File::open(temp.path()).unwrap();
        let mapping = Mapping::new(&file, len as u64).unwrap().unwrap();
        // Cut after the trial, in the part read through the descriptor.
        let cut = 7 * WINDOW + 4096;
        temp.as_file().set_len(cut as u64).unwrap();
        let mut handed = 0;
        let source = SourceChoice::preferring_reads(len);
        feed_mapping_choosing(&mapping, &file, source, |bytes| handed += bytes.len());
        assert_eq!(mapping.fault(), Some(cut as u64));
        assert_eq!(handed, cut);
    }
}
