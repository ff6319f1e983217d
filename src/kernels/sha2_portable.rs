//! SHA-224/256 and SHA-384/512 (FIPS 180-4) in plain Rust, for the `portable` kernel.
//!
//! The sha2 crate and ring choose SHA-NI or AVX2 by themselves and cannot be told not to, so
//! `FASTHASH_KERNEL=portable` needs SHA-2 of its own that uses no CPU extension. It is written
//! for clarity, not speed: it is what a bug report can fall back on and what the fast paths are
//! compared with; the NIST vectors check it.

/// Generates a SHA-2 family member: the word type, its block size, round constants and the
/// Σ/σ rotation amounts are what tell SHA-256 and SHA-512 apart.
macro_rules! sha2_family {
    (
        $name:ident, $word:ty, $rounds:expr, $k:expr,
        big_sigma0: ($a0:expr, $a1:expr, $a2:expr),
        big_sigma1: ($b0:expr, $b1:expr, $b2:expr),
        small_sigma0: ($c0:expr, $c1:expr, $c2:expr),
        small_sigma1: ($d0:expr, $d1:expr, $d2:expr)
    ) => {
        #[derive(Clone)]
        pub struct $name {
            state: [$word; 8],
            buffer: [u8; 16 * WORD],
            buffered: usize,
            /// Message length in bytes (SHA-512's 128-bit length field never needs more).
            length: u128,
            digest_len: usize,
            /// Hashes whole blocks into the state: [`compress_blocks`] here, or a faster
            /// kernel that shares this buffering and padding (`sha512_avx512`).
            blocks: fn(&mut [$word; 8], &[u8]),
        }

        const WORD: usize = std::mem::size_of::<$word>();
        const BLOCK: usize = 16 * WORD;
        /// The round constants.
        pub(crate) const K: [$word; $rounds] = $k;

        impl $name {
            pub fn with_initial(state: [$word; 8], digest_len: usize) -> Self {
                $name {
                    state,
                    buffer: [0; BLOCK],
                    buffered: 0,
                    length: 0,
                    digest_len,
                    blocks: compress_blocks,
                }
            }

            /// The same state, hashing its whole blocks with `blocks`.
            #[allow(
                dead_code,
                reason = "only SHA-512, and only on x86-64, has another block function"
            )]
            pub(crate) fn with_blocks(self, blocks: fn(&mut [$word; 8], &[u8])) -> Self {
                $name { blocks, ..self }
            }

            pub fn update(&mut self, mut data: &[u8]) {
                self.length += data.len() as u128;
                if self.buffered > 0 {
                    let take = data.len().min(BLOCK - self.buffered);
                    self.buffer[self.buffered..self.buffered + take].copy_from_slice(&data[..take]);
                    self.buffered += take;
                    data = &data[take..];
                    if self.buffered < BLOCK {
                        return;
                    }
                    let block = self.buffer;
                    (self.blocks)(&mut self.state, &block);
                    self.buffered = 0;
                }
                let whole = data.len() / BLOCK * BLOCK;
                (self.blocks)(&mut self.state, &data[..whole]);
                let rest = &data[whole..];
                self.buffer[..rest.len()].copy_from_slice(rest);
                self.buffered = rest.len();
            }

            pub fn finalize(mut self) -> Vec<u8> {
                let bit_length = self.length * 8;
                let mut tail = [0u8; 2 * BLOCK];
                tail[..self.buffered].copy_from_slice(&self.buffer[..self.buffered]);
                tail[self.buffered] = 0x80;
                // The length field is 2 words wide, big-endian, at the end of the last block.
                let field = 2 * WORD;
                let tail_len = if self.buffered + 1 + field <= BLOCK {
                    BLOCK
                } else {
                    2 * BLOCK
                };
                let length_bytes = bit_length.to_be_bytes();
                tail[tail_len - field..tail_len].copy_from_slice(&length_bytes[16 - field..]);
                (self.blocks)(&mut self.state, &tail[..tail_len]);
                let mut out: Vec<u8> = self.state.iter().flat_map(|w| w.to_be_bytes()).collect();
                out.truncate(self.digest_len);
                out
            }
        }

        /// Hashes `blocks`, a whole number of blocks, into `state`.
        fn compress_blocks(state: &mut [$word; 8], blocks: &[u8]) {
            for block in blocks.chunks_exact(BLOCK) {
                compress(state, block);
            }
        }

        fn compress(state: &mut [$word; 8], block: &[u8]) {
            let mut w = [0 as $word; $rounds];
            for (i, bytes) in block.chunks_exact(WORD).enumerate() {
                w[i] = <$word>::from_be_bytes(bytes.try_into().expect("a whole word"));
            }
            for i in 16..$rounds {
                let s0 =
                    w[i - 15].rotate_right($c0) ^ w[i - 15].rotate_right($c1) ^ (w[i - 15] >> $c2);
                let s1 =
                    w[i - 2].rotate_right($d0) ^ w[i - 2].rotate_right($d1) ^ (w[i - 2] >> $d2);
                w[i] = w[i - 16]
                    .wrapping_add(s0)
                    .wrapping_add(w[i - 7])
                    .wrapping_add(s1);
            }
            let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
            for i in 0..$rounds {
                let sigma1 = e.rotate_right($b0) ^ e.rotate_right($b1) ^ e.rotate_right($b2);
                let choose = (e & f) ^ (!e & g);
                let t1 = h
                    .wrapping_add(sigma1)
                    .wrapping_add(choose)
                    .wrapping_add(K[i])
                    .wrapping_add(w[i]);
                let sigma0 = a.rotate_right($a0) ^ a.rotate_right($a1) ^ a.rotate_right($a2);
                let majority = (a & b) ^ (a & c) ^ (b & c);
                let t2 = sigma0.wrapping_add(majority);
                h = g;
                g = f;
                f = e;
                e = d.wrapping_add(t1);
                d = c;
                c = b;
                b = a;
                a = t1.wrapping_add(t2);
            }
            for (word, add) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
                *word = word.wrapping_add(add);
            }
        }
    };
}

pub mod sha256 {
    sha2_family!(
        Sha256Family, u32, 64, [
            0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
            0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
            0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
            0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
            0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
            0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
            0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
            0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
            0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
            0xc67178f2,
        ],
        big_sigma0: (2, 13, 22),
        big_sigma1: (6, 11, 25),
        small_sigma0: (7, 18, 3),
        small_sigma1: (17, 19, 10)
    );

    /// The initial state (FIPS 180-4).
    pub(crate) const INITIAL_256: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];

    pub fn sha256() -> Sha256Family {
        Sha256Family::with_initial(INITIAL_256, 32)
    }

    /// The initial state (FIPS 180-4).
    pub(crate) const INITIAL_224: [u32; 8] = [
        0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939, 0xffc00b31, 0x68581511, 0x64f98fa7,
        0xbefa4fa4,
    ];

    pub fn sha224() -> Sha256Family {
        Sha256Family::with_initial(INITIAL_224, 28)
    }
}

pub mod sha512 {
    sha2_family!(
        Sha512Family, u64, 80, [
            0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc,
            0x3956c25bf348b538, 0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118,
            0xd807aa98a3030242, 0x12835b0145706fbe, 0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2,
            0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235, 0xc19bf174cf692694,
            0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
            0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5,
            0x983e5152ee66dfab, 0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4,
            0xc6e00bf33da88fc2, 0xd5a79147930aa725, 0x06ca6351e003826f, 0x142929670a0e6e70,
            0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed, 0x53380d139d95b3df,
            0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
            0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30,
            0xd192e819d6ef5218, 0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8,
            0x19a4c116b8d2d0c8, 0x1e376c085141ab53, 0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8,
            0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373, 0x682e6ff3d6b2b8a3,
            0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
            0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b,
            0xca273eceea26619c, 0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178,
            0x06f067aa72176fba, 0x0a637dc5a2c898a6, 0x113f9804bef90dae, 0x1b710b35131c471b,
            0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc, 0x431d67c49c100d4c,
            0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
        ],
        big_sigma0: (28, 34, 39),
        big_sigma1: (14, 18, 41),
        small_sigma0: (1, 8, 7),
        small_sigma1: (19, 61, 6)
    );

    /// The initial state (FIPS 180-4).
    pub(crate) const INITIAL_512: [u64; 8] = [
        0x6a09e667f3bcc908,
        0xbb67ae8584caa73b,
        0x3c6ef372fe94f82b,
        0xa54ff53a5f1d36f1,
        0x510e527fade682d1,
        0x9b05688c2b3e6c1f,
        0x1f83d9abfb41bd6b,
        0x5be0cd19137e2179,
    ];

    pub fn sha512() -> Sha512Family {
        Sha512Family::with_initial(INITIAL_512, 64)
    }

    /// The initial state (FIPS 180-4).
    pub(crate) const INITIAL_384: [u64; 8] = [
        0xcbbb9d5dc1059ed8,
        0x629a292a367cd507,
        0x9159015a3070dd17,
        0x152fecd8f70e5939,
        0x67332667ffc00b31,
        0x8eb44a8768581511,
        0xdb0c2e0d64f98fa7,
        0x47b5481dbefa4fa4,
    ];

    pub fn sha384() -> Sha512Family {
        Sha512Family::with_initial(INITIAL_384, 48)
    }
}
