//! Asking the CPU for a mapped file's next bytes before the hasher reaches them (a software
//! prefetch), where that pays: the large-file path times stretches of the file both ways, at
//! its start and again further along, and keeps the faster ([`FeedChoice`]).
//!
//! Why: a file's pages in the page cache sit wherever the kernel found room, often 4 KiB at a
//! time, and the CPU's own prefetchers follow a stream only within a page. A hash whose rounds
//! form one chain (SHA-256, SHA-1, MD5, XXH32, XXH64) keeps few loads in flight on its own, and
//! then waits on memory for much of each page. `read(2)` hides this (the kernel's copy keeps
//! many loads in flight, and the hasher reads the copy from its cache), which is how OpenSSL
//! and xxhsum went faster than fasthash on a hot 1 GiB file. Measured on an Intel Xeon (family
//! 6 model 167, 2 cores under KVM), 1 GiB in the page cache, medians of 3, alternated, every
//! stretch fed one way (no timing):
//!
//! | hash | whole | 16 KiB pieces, two ahead asked for |
//! |---|---|---|
//! | XXH32 | 667 ms | 238 |
//! | XXH64 | 230 | 177 |
//! | SHA-1 | 1,044 | 631 |
//! | SHA-256 | 892 | 668 |
//! | MD5 | 1,363 | 1,177 |
//! | SHA-512 | 1,198 | 1,290 (slower) |
//! | BLAKE2b | 998 | 1,017 (slower) |
//! | sysv | 140 | 151 (slower) |
//! | XXH3 | 107 | 116 (slower) |
//!
//! Cutting stretches into pieces alone changed nothing (SHA-512 1,200, XXH3 106): the cost is the
//! prefetch itself, where the hash's own loads already kept the memory busy. Which hashes gain
//! depends on the CPU's prefetchers and on how the file's pages lie (one file's stretches
//! differed along it), so nothing here is a table: each large file is timed both ways, more
//! than once. The hashes that run fast whole are left whole ([`WHOLE_FAST_ENOUGH`]), a switch
//! to prefetching needs two probes, and the stretches between probes go to the hasher in one
//! call, as before (2 MiB calls had cost a one-thread CRC64 5%). Hot, same file, hyperfine
//! medians of 11 against the code before: SHA-1 831 against 668 ms, XXH32 534 against 236;
//! XXH3 90.4 against 90.3, sysv 108.8 against 106.0, CRC64 on one thread 89.4 against 90.8.

use std::time::{Duration, Instant};

/// The bytes handed to the hasher at a time when prefetching.
const PIECE: usize = 16 * 1024;

/// How many pieces ahead of the one hashed are asked for: far enough that they arrive first,
/// near enough to stay in the core's cache (32 to 48 KiB ahead).
const PIECES_AHEAD: usize = 2;

/// The unit of timing: each stretch of a file is fed one way, whole or prefetched. Small
/// enough that a file from 12 MiB is timed, large enough to take a millisecond at SHA-256's
/// speed and 0.2 ms at XXH3's, well above the clock's resolution.
pub(crate) const STRETCH: usize = 2 * 1024 * 1024;

/// The stretches timed at the start of each round, in this order (true: prefetched), so that
/// a drift in the machine's speed falls on both ways. Each way keeps its fastest stretch: a
/// stretch slowed by something else (the hypervisor taking the core, an interrupt) is not
/// counted against its way.
const PROBED: [bool; 6] = [false, true, true, false, false, true];

/// The stretches from one probe's start to the next one's, at first. The choice is made anew
/// because a file's pages differ along it (some in large folios, which the CPU's prefetchers
/// follow, some in 4 KiB pages); each probe that agrees with the one before doubles the
/// distance to the next, so that a file that does not change costs few probes (five in a 1
/// GiB file), each with three stretches fed the slower way.
const FIRST_GAP: usize = 32;

/// A stretch fed whole at this speed or faster (6 GB/s) ends the probe's prefetched part:
/// there, what prefetching gained was less than what probing it cost. XXH3, sysv and a CRC on
/// one thread ran at 8 to 16 GB/s whole and 10 to 60% slower prefetched, with a few stretches
/// the other way; over a 1 GiB file, probing cost them 2 to 3%. XXH64, at 4.7 GB/s whole,
/// still gains (12%).
const WHOLE_FAST_ENOUGH: u64 = 6_000_000_000;

/// The stretch at which the first probe starts: after the first window (8 MiB), which meets
/// the populating helper's start.
const FIRST_PROBE: usize = 4;

/// Prefetching is kept only when it was at least this much faster (5%): a tie costs it
/// nothing to lose.
const REQUIRED_GAIN: f64 = 0.95;

/// How a file's bytes reach the hasher: whole, or in pieces with the next ones asked for
/// first. Decided by timing stretches both ways, again and again along the file.
pub(crate) struct FeedChoice {
    /// Whether the file is long enough to time (and the CPU has a prefetch instruction).
    timed: bool,
    /// The stretches fed so far.
    fed: usize,
    /// The stretch at which the next probe starts (or the current one started).
    probe_start: usize,
    /// The stretches from this probe's start to the next one's.
    gap: usize,
    /// The fastest stretch each way in this probe: `[whole, prefetched]`.
    fastest: [Duration; 2],
    /// The last probe's choice: whether stretches outside the probe are prefetched.
    prefetching: Option<bool>,
    /// Whether the probe under way is the second that a switch to prefetching needs.
    confirming: bool,
    /// A whole stretch at least this fast ends the probe's prefetched part
    /// ([`WHOLE_FAST_ENOUGH`]).
    fast_enough: Duration,
}

impl FeedChoice {
    /// The choice for a file of `len` bytes. With no prefetch instruction on this
    /// architecture, or too few stretches for two probes after the first window (a file under
    /// 32 MiB), every byte goes whole.
    pub(crate) fn new(len: usize) -> FeedChoice {
        FeedChoice {
            timed: HAS_PREFETCH && len.div_ceil(STRETCH) >= FIRST_PROBE + 2 * PROBED.len(),
            fed: 0,
            probe_start: FIRST_PROBE,
            gap: FIRST_GAP,
            fastest: [Duration::MAX; 2],
            prefetching: None,
            confirming: false,
            fast_enough: Duration::from_secs_f64(STRETCH as f64 / WHOLE_FAST_ENOUGH as f64),
        }
    }

    /// Hands the file's next `bytes` to `consume`, whole or in prefetched pieces, timing the
    /// probe's stretches one by one; the stretches between probes go in one call, as the
    /// window came. `bytes` is a whole number of stretches but at the file's end, so that each
    /// timed stretch is a full one.
    pub(crate) fn feed(&mut self, mut bytes: &[u8], consume: &mut impl FnMut(&[u8])) {
        while !bytes.is_empty() {
            let until_probe = self.stretches_until_probe();
            let len = if until_probe == 0 {
                STRETCH
            } else {
                until_probe.saturating_mul(STRETCH)
            };
            let (now, rest) = bytes.split_at(len.min(bytes.len()));
            if until_probe == 0 {
                self.feed_probed(now, consume);
            } else {
                feed_stretch(now, self.prefetching == Some(true), consume);
            }
            self.fed += now.len().div_ceil(STRETCH);
            bytes = rest;
        }
    }

    /// How many stretches come before the next probed one: none while a probe is under way,
    /// all of them in a file that is not timed.
    fn stretches_until_probe(&self) -> usize {
        if !self.timed {
            usize::MAX
        } else {
            self.probe_start.saturating_sub(self.fed)
        }
    }

    /// Feeds one stretch of a probe, timed, the way the probe's order says.
    fn feed_probed(&mut self, stretch: &[u8], consume: &mut impl FnMut(&[u8])) {
        let at = self.fed - self.probe_start;
        if at == 0 {
            self.fastest = [Duration::MAX; 2];
        }
        // A hash that runs this fast whole is not waiting on memory: the probe goes on whole.
        let prefetch = PROBED[at] && self.fastest[0] > self.fast_enough;
        let start = Instant::now();
        feed_stretch(stretch, prefetch, consume);
        let way = &mut self.fastest[usize::from(prefetch)];
        *way = (*way).min(start.elapsed());
        if at + 1 == PROBED.len() {
            self.decide();
        }
    }

    /// Ends a probe: keeps the faster way, and sets when the next probe starts. A probe that
    /// would start prefetching is confirmed by a second one at once: a probe can be wrong
    /// (the first of a file meets the helper's start; a stretch of 0.2 ms meets an
    /// interrupt), and prefetching where it does not pay costs more than waiting for the
    /// second probe where it does (sysv over a 1 GiB file: a prefetched stretch took 1.2 to
    /// 1.7 times a whole one, and one probe in eight chose it).
    fn decide(&mut self) {
        let pays = prefetching_pays(self.fastest);
        if pays && self.prefetching != Some(true) && !self.confirming {
            self.confirming = true;
            self.probe_start += PROBED.len();
            return;
        }
        self.confirming = false;
        if self.prefetching == Some(pays) {
            self.gap = self.gap.saturating_mul(2);
        } else {
            self.gap = FIRST_GAP;
        }
        self.prefetching = Some(pays);
        self.probe_start += self.gap;
    }

    /// Whether stretches outside the probe are prefetched now.
    #[cfg(test)]
    fn prefetching(&self) -> bool {
        self.prefetching == Some(true)
    }
}

/// Whether the prefetched stretches were enough faster than the whole ones.
fn prefetching_pays([whole, prefetched]: [Duration; 2]) -> bool {
    prefetched.as_secs_f64() < whole.as_secs_f64() * REQUIRED_GAIN
}

fn feed_stretch(stretch: &[u8], prefetch: bool, consume: &mut impl FnMut(&[u8])) {
    if !prefetch {
        consume(stretch);
        return;
    }
    for (index, piece) in stretch.chunks(PIECE).enumerate() {
        let ahead = (index + PIECES_AHEAD) * PIECE;
        if let Some(coming) = stretch.get(ahead..) {
            ask_for(&coming[..coming.len().min(PIECE)]);
        }
        consume(piece);
    }
}

const HAS_PREFETCH: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

/// Asks the CPU to bring `bytes` into a cache below the first level (the first is kept for
/// what the hasher reads now), a line at a time; a hint that
/// neither faults nor waits.
fn ask_for(bytes: &[u8]) {
    const LINE: usize = 64;
    for offset in (0..bytes.len()).step_by(LINE) {
        let line = bytes[offset..].as_ptr();
        #[cfg(target_arch = "x86_64")]
        // SAFETY: PREFETCHT2 only hints; SSE is part of x86-64's baseline.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T2 }>(line.cast())
        };
        #[cfg(target_arch = "aarch64")]
        // SAFETY: PRFM only hints; it neither faults nor writes.
        unsafe {
            std::arch::asm!("prfm pldl2keep, [{0}]", in(reg) line, options(nostack, readonly, preserves_flags))
        };
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        let _ = line;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `len` bytes in windows of `window` bytes, and checks that every byte reached the
    /// hasher once, in order.
    fn feed_all(choice: &mut FeedChoice, len: usize, window: usize) {
        let bytes: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
        let mut out = Vec::new();
        for window in bytes.chunks(window) {
            choice.feed(window, &mut |piece: &[u8]| out.extend_from_slice(piece));
        }
        assert!(out == bytes, "every byte once, in order");
    }

    #[test]
    fn prefetched_pieces_hand_every_byte_once_in_order() {
        for len in [1, PIECE - 1, PIECE, 3 * PIECE + 17, 8 * PIECE] {
            let mut out = Vec::new();
            let stretch: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let mut pieces = 0;
            feed_stretch(&stretch, true, &mut |piece: &[u8]| {
                pieces += 1;
                assert!(piece.len() <= PIECE);
                out.extend_from_slice(piece);
            });
            assert_eq!(out, stretch);
            assert_eq!(pieces, len.div_ceil(PIECE));
        }
    }

    #[test]
    fn a_file_long_enough_is_timed_both_ways_again_and_again() {
        let len = (FIRST_PROBE + FIRST_GAP + 2 * PROBED.len() + 2) * STRETCH + 5;
        let mut choice = FeedChoice::new(len);
        assert_eq!(choice.timed, HAS_PREFETCH);
        // Every hash slow enough to probe.
        choice.fast_enough = Duration::ZERO;
        // Windows of several stretches, the last one short.
        feed_all(&mut choice, len, 3 * STRETCH);
        if HAS_PREFETCH {
            assert!(choice.fastest.iter().all(|time| *time < Duration::MAX));
            // Two probes ended: the first moved the next one's start by a probe's length at
            // least, the second by FIRST_GAP at least.
            assert!(
                choice.probe_start >= FIRST_PROBE + PROBED.len() + FIRST_GAP,
                "the second probe ended"
            );
        }
        assert_eq!(choice.fed, len.div_ceil(STRETCH));
    }

    /// Where the hash runs fast whole, the probes never feed a stretch prefetched.
    #[test]
    fn a_hash_fast_enough_whole_is_never_fed_prefetched() {
        let len = (FIRST_PROBE + FIRST_GAP + 2 * PROBED.len() + 2) * STRETCH;
        let mut choice = FeedChoice::new(len);
        choice.fast_enough = Duration::MAX;
        let bytes = vec![7u8; len];
        let mut pieces = Vec::new();
        for window in bytes.chunks(4 * STRETCH) {
            choice.feed(window, &mut |piece: &[u8]| pieces.push(piece.len()));
        }
        // Whole stretches, one by one in the probes, several at a time between them; a
        // prefetched one would come in pieces of PIECE.
        assert!(pieces.iter().all(|&len| len % STRETCH == 0), "{pieces:?}");
        assert_eq!(pieces.iter().sum::<usize>(), len);
        assert_eq!(choice.fastest[1], Duration::MAX);
        assert!(!choice.prefetching());
    }

    #[test]
    fn a_short_file_goes_whole_untimed() {
        let len = (FIRST_PROBE + 2 * PROBED.len() - 1) * STRETCH;
        let mut choice = FeedChoice::new(len);
        feed_all(&mut choice, len, STRETCH);
        assert!(!choice.prefetching());
        assert_eq!(choice.fastest, [Duration::MAX; 2]);
    }

    /// Feeds `choice` probes that found these fastest stretches, `[whole, prefetched]`, and
    /// returns the distance from each probe's start to the next one's.
    fn gaps_after(choice: &mut FeedChoice, probes: &[[u64; 2]]) -> Vec<usize> {
        let mut starts = vec![choice.probe_start];
        for &[whole, prefetched] in probes {
            choice.fastest = [whole, prefetched].map(Duration::from_millis);
            choice.decide();
            starts.push(choice.probe_start);
        }
        starts.windows(2).map(|pair| pair[1] - pair[0]).collect()
    }

    #[test]
    fn probes_that_agree_come_ever_further_apart() {
        let mut choice = FeedChoice::new(usize::MAX);
        let faster = [10, 5];
        let slower = [5, 10];
        let gaps = gaps_after(&mut choice, &[faster, faster, faster, faster, slower]);
        // The second probe confirms the first at once.
        let probe = PROBED.len();
        assert_eq!(
            gaps,
            [probe, FIRST_GAP, 2 * FIRST_GAP, 4 * FIRST_GAP, FIRST_GAP]
        );
        assert!(!choice.prefetching(), "the last probe found whole faster");
    }

    #[test]
    fn one_probe_alone_does_not_start_prefetching() {
        let mut choice = FeedChoice::new(usize::MAX);
        gaps_after(&mut choice, &[[10, 5], [5, 10]]);
        assert!(!choice.prefetching());
        gaps_after(&mut choice, &[[10, 5]]);
        assert!(!choice.prefetching(), "not confirmed yet");
        gaps_after(&mut choice, &[[10, 5]]);
        assert!(choice.prefetching());
        // Stopping needs one probe.
        gaps_after(&mut choice, &[[5, 10]]);
        assert!(!choice.prefetching());
    }

    #[test]
    fn prefetching_is_kept_only_when_clearly_faster() {
        let ms = Duration::from_millis;
        assert!(prefetching_pays([ms(100), ms(60)]));
        assert!(!prefetching_pays([ms(100), ms(97)]));
        assert!(!prefetching_pays([ms(100), ms(110)]));
    }
}
