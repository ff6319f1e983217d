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
