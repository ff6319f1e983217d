//! Deterministic inputs for the kernels' unit tests, so a failure reproduces.

/// A small deterministic generator (xorshift64*).
pub(crate) struct Random(pub(crate) u64);

impl Random {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub(crate) fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }
}

/// `len` pseudo-random bytes.
pub(crate) fn data(len: usize) -> Vec<u8> {
    let mut random = Random(0x9E37_79B9_7F4A_7C15);
    (0..len).map(|_| random.next() as u8).collect()
}

/// Prefixes of [`data`]: every length from 0 to 4161 (a few blocks of every algorithm, ending
/// at every offset within one), then 3 MiB and a few bytes, for a kernel checked against its
/// reference crate.
pub(crate) fn each_length_to_4161_and_3_mib(mut check: impl FnMut(&[u8])) {
    let data = data(3 * 1024 * 1024 + 7);
    for len in (0..=4161).chain([data.len()]) {
        check(&data[..len]);
    }
}

// The checks every one-stream kernel of ours (x86-64 only) passes against its reference crate.
// `hash` feeds a fresh state the pieces given, in order, and returns its digest.

/// Every length to 4161, each from a start that moves through 64 alignments, in one piece and
/// in two.
#[cfg(target_arch = "x86_64")]
pub(crate) fn every_length_in_one_and_two_pieces(
    hash: impl Fn(&[&[u8]]) -> Vec<u8>,
    expected: impl Fn(&[u8]) -> Vec<u8>,
) {
    let data = data(4161 + 64);
    for len in 0..=4161 {
        let offset = (len * 7) % 64;
        let input = &data[offset..offset + len];
        let expected = expected(input);
        assert_eq!(hash(&[input]), expected, "{len} at {offset}");
        let (first, second) = input.split_at((len * 5) / 9);
        assert_eq!(
            hash(&[first, second]),
            expected,
            "{len} at {offset}, in two"
        );
    }
}

/// Random inputs, of up to two blocks of `block` bytes, up to seventeen, and up to 20,000
/// bytes, cut at 1 to 8 random points, so some pieces are empty and some end and start
/// mid-block. `hash` and `expected` are also given the round, to vary what they hash with.
#[cfg(target_arch = "x86_64")]
pub(crate) fn random_cuts(
    block: usize,
    hash: impl Fn(usize, &[&[u8]]) -> Vec<u8>,
    expected: impl Fn(usize, &[u8]) -> Vec<u8>,
) {
    let mut random = Random(0x2545_f491_4f6c_dd1d);
    for round in 0..400 {
        let len = match round % 4 {
            0 => random.below(2 * block + 2),
            1 => random.below(17 * block),
            _ => random.below(20_000),
        };
        let input: Vec<u8> = (0..len).map(|_| random.next() as u8).collect();
        let mut cuts: Vec<usize> = (0..1 + random.below(8))
            .map(|_| random.below(len + 1))
            .collect();
        cuts.sort_unstable();
        let pieces: Vec<&[u8]> = [0]
            .iter()
            .chain(&cuts)
            .zip(cuts.iter().chain([&len]))
            .map(|(&start, &end)| &input[start..end])
            .collect();
        assert_eq!(
            hash(round, &pieces),
            expected(round, &input),
            "{len} cut at {cuts:?}"
        );
    }
}

/// 33 MiB and 13 bytes, in one piece and in pieces of 1 MiB and 7 bytes.
#[cfg(target_arch = "x86_64")]
pub(crate) fn thirty_three_mebibytes(
    hash: impl Fn(&[&[u8]]) -> Vec<u8>,
    expected: impl Fn(&[u8]) -> Vec<u8>,
) {
    let data = data(33 * 1024 * 1024 + 13);
    let expected = expected(&data);
    assert_eq!(hash(&[&data]), expected);
    let pieces: Vec<&[u8]> = data.chunks(1024 * 1024 + 7).collect();
    assert_eq!(hash(&pieces), expected, "in pieces");
}

/// True when a test of an engine can run here; otherwise says on the test's output that it
/// skipped and why, so a run without the hardware is not mistaken for a pass. (Only x86-64
/// has engines that need more than the architecture's baseline and are tested this way.)
#[cfg(target_arch = "x86_64")]
pub(crate) fn runs_here(supported: bool, needs: &str) -> bool {
    if !supported {
        eprintln!("skipped: needs {needs}, which this CPU lacks");
    }
    supported
}
