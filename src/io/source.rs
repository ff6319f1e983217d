//! Where a large file's windows come from: its mapping, or `pread(2)` into the read buffer. The
//! large-file path ([`super::large::feed_mapping`]) times a few windows each way at the start of
//! the file and keeps the faster ([`SourceChoice`]).
//!
//! Why: a mapping costs the kernel work for every folio of the page cache it maps, and how
//! large a file's folios are depends on the kernel, the file system and the file's history
//! (Linux 6.18's ext4 reads a file read in order into folios of up to 2 MiB; older kernels, and
//! pages read one at a time, give folios of 4 KiB). The same 1 GiB file in the page cache on AMD
//! Zen 5 (family 26 model 2, 2 cores), hyperfine means of 11, XXH3:
//!
//! | page cache | mapped, populated by a helper | `pread` | `xxhsum -H3` |
//! |---|---|---|---|
//! | 2 MiB folios (`cat` after a drop) | 34.6 ms | 51.3 | 54.3 |
//! | 4 KiB folios (read a page at a time) | 128.2 ms | 59.1 | 62.9 |
//!
//! With small folios the helper populating the mapping takes 125 ms of system time a GiB and
//! the hashing thread waits for it; a copy out of the page cache costs less. A hash slower than
//! the populating (SHA-256 here: 2 GB/s) never waits, and the copy would only add to its time:
//! the timing sees that too. Cold, both ways wait for the same device.

use super::mapped::Mapping;
use super::read::feed_reader;
use std::fs::File;
use std::io::{self, Read};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::time::Duration;

/// One of the two ways a window reaches the hasher.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Way {
    Mapped,
    Read,
}

/// The windows timed, in this order: the read ones first, before the populating helper starts,
/// so that nothing populates beside them; then the mapped ones, whose hashing is timed apart
/// from any wait for the helper (the first waits for it to start), the helper timing its own
/// work on them. Each way keeps its faster window, so that one slowed by something else (the
/// hypervisor taking the core) does not count.
pub(crate) const TRIAL: [(usize, Way); 5] = [
    (0, Way::Read),
    (1, Way::Read),
    (2, Way::Mapped),
    (3, Way::Mapped),
    (4, Way::Mapped),
];

/// Smaller files are not timed: they stay mapped.
pub(crate) const TIMED_FROM: usize = 64 * 1024 * 1024;

/// Reading is kept only when its window took at most this share of the mapped window's time:
/// a near tie stays with the mapping, which copies nothing.
const READ_MARGIN: f64 = 0.85;

/// The choice for one file, made after its trial windows.
#[derive(Debug)]
pub(crate) struct SourceChoice {
    timed: bool,
    /// [`READ_MARGIN`], but in tests.
    margin: f64,
    /// The fastest mapped window's hashing, not counting any wait for the helper.
    fastest_mapped: Option<Duration>,
    /// The helper's work on a window (populating it, releasing it once hashed): what a mapped
    /// window costs at least, once the helper's head start is used up.
    helper_per_window: Option<Duration>,
    fastest_read: Option<Duration>,
    decided: Option<Way>,
}

impl SourceChoice {
    /// For a file of `len` bytes.
    pub(crate) fn new(len: usize) -> SourceChoice {
        SourceChoice {
            timed: len >= TIMED_FROM,
            margin: READ_MARGIN,
            fastest_mapped: None,
            helper_per_window: None,
            fastest_read: None,
            decided: None,
        }
    }

    /// No trial: every window mapped.
    pub(crate) fn mapped() -> SourceChoice {
        SourceChoice::new(0)
    }

    /// A choice that keeps reading after the trial whatever the times: for tests of the paths
    /// that follow.
    #[cfg(test)]
    pub(crate) fn preferring_reads(len: usize) -> SourceChoice {
        SourceChoice {
            margin: f64::INFINITY,
            ..SourceChoice::new(len)
        }
    }

    /// Where among the trial windows window `index` is, if it is one: the helper times its
    /// populating of those.
    pub(crate) fn trial_place(index: usize) -> Option<usize> {
        TRIAL.iter().position(|(trial, _)| *trial == index)
    }

    /// Notes what the helper's work on a window costs it: populating each trial window so far
    /// (one place each, `None` for those not populated yet), of which the median counts (a
    /// file's folios can differ along it, and the fastest window may be one of a few large
    /// folios among small ones), and releasing a window once hashed, on average.
    pub(crate) fn note_helper(
        &mut self,
        populating: [Option<Duration>; TRIAL.len()],
        releasing: Option<Duration>,
    ) {
        let mut known: Vec<Duration> = populating.into_iter().flatten().collect();
        known.sort_unstable();
        let median = match known.len() {
            0 => return,
            n if n % 2 == 1 => known[n / 2],
            n => (known[n / 2 - 1] + known[n / 2]) / 2,
        };
        self.helper_per_window = Some(median + releasing.unwrap_or_default());
    }

    /// How window `index` is to be fed.
    pub(crate) fn way(&self, index: usize) -> Way {
        if let Some(way) = self.decided {
            return way;
        }
        match TRIAL.iter().find(|(trial, _)| *trial == index) {
            Some(&(_, way)) if self.timed => way,
            _ => Way::Mapped,
        }
    }

    /// Whether the trial is under way: timed, and not decided yet.
    pub(crate) fn trying(&self) -> bool {
        self.timed && self.decided.is_none()
    }

    /// Whether reading was chosen for the rest of the file.
    pub(crate) fn reads_from_now(&self) -> bool {
        self.decided == Some(Way::Read)
    }

    /// Notes how long window `index` took, fed the way [`Self::way`] said (a mapped window's
    /// hashing alone, a read window's reading and hashing); after the last trial window,
    /// decides. A mapped window counts as the slower of its hashing and the helper's work on
    /// it ([`Self::note_helper`]): along the file, the hashing thread waits for whichever is
    /// slower.
    pub(crate) fn record(&mut self, index: usize, took: Duration) {
        if !self.timed || self.decided.is_some() {
            return;
        }
        let Some(&(_, way)) = TRIAL.iter().find(|(trial, _)| *trial == index) else {
            return;
        };
        let fastest = match way {
            Way::Mapped => &mut self.fastest_mapped,
            Way::Read => &mut self.fastest_read,
        };
        *fastest = Some(fastest.map_or(took, |before| before.min(took)));
        if index == TRIAL[TRIAL.len() - 1].0 {
            let mapped = match (self.fastest_mapped, self.helper_per_window) {
                (Some(hashing), Some(populating)) => Some(hashing.max(populating)),
                (hashing, _) => hashing,
            };
            self.decided = Some(decide(mapped, self.fastest_read, self.margin));
        }
    }
}

/// The way to keep, from each way's fastest window.
fn decide(mapped: Option<Duration>, read: Option<Duration>, margin: f64) -> Way {
    match (mapped, read) {
        (Some(mapped), Some(read)) if read.as_secs_f64() <= mapped.as_secs_f64() * margin => {
            Way::Read
        }
        _ => Way::Mapped,
    }
}

/// Reads `range` of `file` through its descriptor, a read buffer at a time, handing each to
/// `consume` ([`feed_reader`]'s loop). False when the file ended early or a read failed: that
/// offset is marked on `mapping`, whose caller reports it as it reports a lost page.
pub(crate) fn read_range(
    file: &File,
    mapping: &Mapping,
    range: Range<usize>,
    consume: &mut impl FnMut(&[u8]),
) -> bool {
    let mut reader = RangeReader { file, range };
    let read = feed_reader(&mut reader, consume);
    if read.is_err() || !reader.range.is_empty() {
        mapping.mark_fault(reader.range.start);
        return false;
    }
    true
}

/// What is left of a range of a file, read with `pread` (the descriptor's offset untouched).
struct RangeReader<'a> {
    file: &'a File,
    range: Range<usize>,
}

impl Read for RangeReader<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let want = buffer.len().min(self.range.len());
        if want == 0 {
            return Ok(0);
        }
        let read = self
            .file
            .read_at(&mut buffer[..want], self.range.start as u64)?;
        self.range.start += read;
        Ok(read)
    }
}

/// `POSIX_FADV_SEQUENTIAL` over the whole file: the kernel's readahead then reads further.
pub(crate) fn advise_sequential(file: &File) {
    // SAFETY: advice on our own open descriptor; no memory is passed.
    unsafe {
        libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_SEQUENTIAL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn small_files_stay_mapped_without_a_trial() {
        let choice = SourceChoice::new(TIMED_FROM - 1);
        assert!((0..TRIAL.len() * 2).all(|index| choice.way(index) == Way::Mapped));
        assert_eq!(SourceChoice::new(TIMED_FROM).way(0), Way::Read);
    }

    /// Feeds the trial's windows to `choice`, each taking `read` or `mapped` ms by its way.
    fn trial(choice: &mut SourceChoice, read: u64, mapped: u64) {
        for (index, way) in TRIAL {
            assert!(!choice.reads_from_now());
            assert_eq!(choice.way(index), way);
            choice.record(index, ms(if way == Way::Read { read } else { mapped }));
        }
    }

    #[test]
    fn the_trial_feeds_both_ways_then_keeps_the_faster() {
        let mut choice = SourceChoice::new(1 << 30);
        assert!(choice.trying());
        trial(&mut choice, 5, 10);
        assert!(!choice.trying());
        assert!(choice.reads_from_now());
        assert_eq!(choice.way(TRIAL.len()), Way::Read);
        assert_eq!(choice.way(1000), Way::Read);
    }

    #[test]
    fn a_near_tie_or_a_slower_read_stays_mapped() {
        for (read, mapped) in [(90, 100), (150, 100)] {
            let mut choice = SourceChoice::new(1 << 30);
            trial(&mut choice, read, mapped);
            assert!(!choice.reads_from_now(), "{read} against {mapped}");
            assert_eq!(choice.way(TRIAL.len()), Way::Mapped);
        }
    }

    #[test]
    fn a_mapped_window_costs_at_least_the_helpers_work_on_it() {
        // Hashing a populated window takes 30 ms, reading and hashing one 50; but the helper
        // takes 110 a window: populating 80 (the median of 2, 80 and 100: one window of large
        // folios among small ones) and releasing 30. The mapping would wait for it.
        let mut choice = SourceChoice::new(1 << 30);
        choice.note_helper(
            [Some(ms(80)), Some(ms(100)), None, Some(ms(2)), None],
            Some(ms(30)),
        );
        trial(&mut choice, 50, 30);
        assert!(choice.reads_from_now());
        // The helper at 20 ms a window: hashing is the limit, and the mapping copies nothing.
        let mut choice = SourceChoice::new(1 << 30);
        choice.note_helper([Some(ms(20)); TRIAL.len()], None);
        trial(&mut choice, 50, 30);
        assert!(!choice.reads_from_now());
    }

    #[test]
    fn each_way_keeps_its_fastest_window() {
        // One mapped window slowed by something else does not make reading win.
        let mut choice = SourceChoice::new(1 << 30);
        let mapped = TRIAL.iter().filter(|(_, way)| *way == Way::Mapped);
        let slow = mapped.clone().next().unwrap().0;
        for (index, way) in TRIAL {
            let took = match way {
                Way::Read => 60,
                Way::Mapped if index == slow => 100,
                Way::Mapped => 50,
            };
            choice.record(index, ms(took));
        }
        assert!(!choice.reads_from_now());
    }
}
