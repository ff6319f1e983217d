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
//! depends on the CPU's prefetchers and on how the file's pages lie, so nothing here is a
//! table: each large file is timed both ways. With the timing, in the same hour: XXH32 640 ms
//! against 253, SHA-1 1,026 against 648, SHA-256 900 against 681, XXH64 228 against 201; XXH3
//! 108 against 107, SHA-512 1,210 against 1,225 (the probes' cost).

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
/// GiB file), each with three stretches fed the slower way. The file's first stretch, which
/// may meet a cold start, is not timed.
const FIRST_GAP: usize = 32;

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
}

impl FeedChoice {
    /// The choice for a file of `len` bytes. With no prefetch instruction on this
    /// architecture, or too few stretches to time (the timed ones, one before and one after),
    /// every byte goes whole.
    pub(crate) fn new(len: usize) -> FeedChoice {
        FeedChoice {
            timed: HAS_PREFETCH && len.div_ceil(STRETCH) >= PROBED.len() + 2,
            fed: 0,
            probe_start: 1,
            gap: FIRST_GAP,
            fastest: [Duration::MAX; 2],
            prefetching: None,
        }
    }

    /// Hands the file's next `bytes` to `consume`, whole or in prefetched pieces, stretch by
    /// stretch, timing the probe's stretches. `bytes` is a whole number of stretches but at
    /// the file's end, so that each timed stretch is a full one.
    pub(crate) fn feed(&mut self, bytes: &[u8], consume: &mut impl FnMut(&[u8])) {
        for stretch in bytes.chunks(STRETCH) {
            self.feed_stretch(stretch, consume);
            self.fed += 1;
        }
    }

    fn feed_stretch(&mut self, stretch: &[u8], consume: &mut impl FnMut(&[u8])) {
        let in_probe = self.fed.checked_sub(self.probe_start);
        let probe = in_probe.and_then(|at| PROBED.get(at).copied());
        let (Some(at), Some(prefetch), true) = (in_probe, probe, self.timed) else {
            feed_stretch(stretch, self.prefetching == Some(true), consume);
            return;
        };
        if at == 0 {
            self.fastest = [Duration::MAX; 2];
        }
        let start = Instant::now();
        feed_stretch(stretch, prefetch, consume);
        let way = &mut self.fastest[usize::from(prefetch)];
        *way = (*way).min(start.elapsed());
        if at + 1 == PROBED.len() {
            self.decide();
        }
    }

    /// Ends a probe: keeps the faster way, and sets when the next probe starts.
    fn decide(&mut self) {
        let prefetching = prefetching_pays(self.fastest);
        if self.prefetching == Some(prefetching) {
            self.gap = self.gap.saturating_mul(2);
        } else {
            self.gap = FIRST_GAP;
        }
        self.prefetching = Some(prefetching);
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
        let len = (FIRST_GAP + PROBED.len() + 2) * STRETCH + 5;
        let mut choice = FeedChoice::new(len);
        assert_eq!(choice.timed, HAS_PREFETCH);
        // Windows of several stretches, the last one short.
        feed_all(&mut choice, len, 3 * STRETCH);
        if HAS_PREFETCH {
            assert!(choice.fastest.iter().all(|time| *time < Duration::MAX));
            // Two probes: from stretch 1 and from stretch 1 + FIRST_GAP.
            assert!(choice.probe_start > 1 + FIRST_GAP, "the second probe ended");
        }
        assert_eq!(choice.fed, len.div_ceil(STRETCH));
    }

    #[test]
    fn a_short_file_goes_whole_untimed() {
        let len = (PROBED.len() + 1) * STRETCH;
        let mut choice = FeedChoice::new(len);
        feed_all(&mut choice, len, STRETCH);
        assert!(!choice.prefetching());
        assert_eq!(choice.fastest, [Duration::MAX; 2]);
    }

    #[test]
    fn probes_that_agree_come_ever_further_apart() {
        let mut choice = FeedChoice::new(usize::MAX);
        let ms = Duration::from_millis;
        let mut starts = vec![choice.probe_start];
        for fastest in [
            [ms(10), ms(5)],
            [ms(10), ms(5)],
            [ms(10), ms(5)],
            [ms(5), ms(10)],
        ] {
            choice.fastest = fastest;
            choice.decide();
            starts.push(choice.probe_start);
        }
        let gaps: Vec<usize> = starts.windows(2).map(|pair| pair[1] - pair[0]).collect();
        assert_eq!(gaps, [FIRST_GAP, 2 * FIRST_GAP, 4 * FIRST_GAP, FIRST_GAP]);
        assert!(!choice.prefetching(), "the last probe found whole faster");
    }

    #[test]
    fn prefetching_is_kept_only_when_clearly_faster() {
        let ms = Duration::from_millis;
        assert!(prefetching_pays([ms(100), ms(60)]));
        assert!(!prefetching_pays([ms(100), ms(97)]));
        assert!(!prefetching_pays([ms(100), ms(110)]));
    }
}
