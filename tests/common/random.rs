//! The one pseudo-random generator of the integration tests: seeded, so a failure reproduces,
//! and the generator the bundled S3 known answers were computed with, so their inputs stay
//! byte for byte what they were.

/// SplitMix64: a 64-bit state stepped by a constant and mixed on the way out.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0, so an empty range needs no special case).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// `len` bytes: the little-endian bytes of successive outputs.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len + 8);
        while out.len() < len {
            out.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        out.truncate(len);
        out
    }
}

/// `len` bytes from a generator seeded with `seed`.
pub fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    SplitMix64(seed).bytes(len)
}
