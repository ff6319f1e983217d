//! XXH3-64 and XXH3-128 with AVX2 and AVX-512 kernels chosen at run time.
//!
//! xxhash-rust picks its vector width when it is compiled, so a portable x86-64 build runs its
//! SSE2 loop on every CPU: 24.8 GB/s on 1 MiB on the reference machine against 34 GB/s for
//! `xxhsum -b`. This module keeps xxhash-rust for inputs of up to 240 bytes (a different,
//! scalar algorithm) and as the reference it is tested against, and runs the long-input loop
//! (the 64-byte stripes and the scramble after each 1 KiB block, spec section "Long inputs")
//! on 256- or 512-bit registers.
//!
//! The two kernels differ only in that loop and the last stripe ([`StripeLoop`], in `avx2.rs`
//! and `avx512.rs`); the streaming buffer and the merges into the 64- and 128-bit hashes are
//! shared.
//!
//! Only the default secret and seed 0 are needed: that is what xxhsum and Amazon S3 use.

/// The loop over whole stripes, the same in every kernel: the stripes that finish the block
/// under way, whole blocks, then the stripes of a last, partial block, with a scramble after
/// each block's sixteenth stripe. `$sum` is the kernel's accumulators; the kernel's module
/// has `add_stripes`, `add_block` and `scramble` over them. Gives the accumulators and the
/// position in the block after the last stripe.
macro_rules! stripes_in_blocks {
    ($sum:expr, $input:expr, $stripe:expr) => {{
        let (mut sum, mut stripe) = ($sum, $stripe);
        let (mut stripes, _) = $input.as_chunks::<STRIPE>();
        if stripe != 0 {
            let (now, later) = stripes.split_at(stripes.len().min(STRIPES_PER_BLOCK - stripe));
            sum = add_stripes(sum, now, stripe);
            stripes = later;
            stripe += now.len();
            if stripe == STRIPES_PER_BLOCK {
                sum = scramble(sum);
                stripe = 0;
            }
        }
        let (blocks, tail) = stripes.as_chunks::<STRIPES_PER_BLOCK>();
        for block in blocks {
            sum = scramble(add_block(sum, block));
        }
        (add_stripes(sum, tail, stripe), stripe + tail.len())
    }};
}

mod avx2;
mod avx512;

const STRIPE: usize = 64;
const STRIPES_PER_BLOCK: usize = 16;
const MID_SIZE_MAX: u64 = 240;
const SECRET_LEN: usize = 192;
const SCRAMBLE_SECRET: usize = SECRET_LEN - STRIPE;
const LAST_STRIPE_SECRET: usize = SECRET_LEN - STRIPE - 7;
const MERGE_SECRET_LOW: usize = 11;
const MERGE_SECRET_HIGH: usize = SECRET_LEN - STRIPE - 11;

const PRIME32_1: u64 = 0x9E37_79B1;
const PRIME32_2: u64 = 0x85EB_CA77;
const PRIME32_3: u64 = 0xC2B2_AE3D;
const PRIME64_1: u64 = 0x9E37_79B1_85EB_CA87;
const PRIME64_2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const PRIME64_3: u64 = 0x1656_67B1_9E37_79F9;
const PRIME64_4: u64 = 0x85EB_CA77_C2B2_AE63;
const PRIME64_5: u64 = 0x27D4_EB2F_1656_67C5;

const INITIAL_ACC: [u64; 8] = [
    PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3, PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1,
];

/// The specification's default secret (`XXH3_kSecret`).
static SECRET: [u8; SECRET_LEN] = [
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
];

fn read_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// One kernel's loop over whole stripes: all that differs between the kernels.
///
/// A value is a token that the CPU runs the loop: [`StripeLoop::detect`] is the only way to
/// get one, which is what makes [`StripeLoop::stripes`] safe to call.
pub trait StripeLoop: Copy {
    /// The token, or None when this CPU cannot run the loop.
    fn detect() -> Option<Self>;

    /// Hashes whole stripes into the accumulators, scrambling after each block's sixteenth
    /// stripe. `stripe` is the position in the current block of `input`'s first stripe; the
    /// position after the last one is returned.
    fn stripes(self, acc: &mut [u64; 8], input: &[u8], stripe: usize) -> usize;

    /// Adds the input's final stripe, which has a secret of its own and no scramble after it.
    fn last_stripe(self, acc: &mut [u64; 8], data: &[u8; STRIPE]);
}

/// A kernel: its token, made by [`StripeLoop::detect`] where the CPU has `$feature`, and its
/// stripe loop `$stripes`, compiled for that feature.
macro_rules! stripe_loop {
    ($(#[$doc:meta])* $token:ident, $feature:tt, $stripes:path, $last:path) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $token(());

        impl StripeLoop for $token {
            fn detect() -> Option<Self> {
                is_x86_feature_detected!($feature).then_some($token(()))
            }

            fn stripes(self, acc: &mut [u64; 8], input: &[u8], stripe: usize) -> usize {
                // SAFETY: a token exists only once `detect` found the feature.
                unsafe { $stripes(acc, input, stripe) }
            }

            fn last_stripe(self, acc: &mut [u64; 8], data: &[u8; STRIPE]) {
                // SAFETY: as in `stripes`.
                unsafe { $last(acc, data) }
            }
        }
    };
}

stripe_loop!(
    /// The AVX2 kernel.
    Avx2,
    "avx2",
    avx2::stripes_avx2,
    avx2::last_stripe_avx2
);
stripe_loop!(
    /// The AVX-512 kernel; it needs AVX-512F only.
    Avx512,
    "avx512f",
    avx512::stripes_avx512,
    avx512::last_stripe_avx512
);

fn avalanche(mut h: u64) -> u64 {
    h ^= h >> 37;
    h = h.wrapping_mul(0x1656_6791_9E37_79F9);
    h ^ (h >> 32)
}

fn merge(acc: &[u64; 8], secret: usize, start: u64) -> u64 {
    let mut result = start;
    for i in 0..4 {
        let a = acc[2 * i] ^ read_u64(&SECRET, secret + 16 * i);
        let b = acc[2 * i + 1] ^ read_u64(&SECRET, secret + 16 * i + 8);
        let product = u128::from(a) * u128::from(b);
        result = result.wrapping_add(product as u64 ^ (product >> 64) as u64);
    }
    avalanche(result)
}

/// XXH3-64 of a long input from the accumulators after its last stripe.
fn long64(acc: &[u64; 8], len: u64) -> u64 {
    merge(acc, MERGE_SECRET_LOW, len.wrapping_mul(PRIME64_1))
}

/// XXH3-128 of a long input from the accumulators after its last stripe.
fn long128(acc: &[u64; 8], len: u64) -> u128 {
    let low = long64(acc, len);
    let high = merge(acc, MERGE_SECRET_HIGH, !len.wrapping_mul(PRIME64_2));
    (u128::from(high) << 64) | u128::from(low)
}

/// The accumulators after every stripe of a whole long input, the last one included, without
/// a streaming state.
fn one_shot_acc(kernel: impl StripeLoop, data: &[u8]) -> [u64; 8] {
    debug_assert!(data.len() as u64 > MID_SIZE_MAX);
    let mut acc = INITIAL_ACC;
    let hashed = (data.len() - 1) / STRIPE * STRIPE;
    kernel.stripes(&mut acc, &data[..hashed], 0);
    let (_, last) = data.as_rchunks::<STRIPE>();
    kernel.last_stripe(&mut acc, &last[last.len() - 1]);
    acc
}

/// One-shot XXH3 on the kernel `K`, any length: xxhash-rust's `short` up to 240 bytes, else
/// `long` of the accumulators; None when the CPU cannot run `K`.
#[inline(always)]
fn one_shot<K: StripeLoop, T>(
    data: &[u8],
    short: impl Fn(&[u8]) -> T,
    long: impl Fn(&[u64; 8], u64) -> T,
) -> Option<T> {
    let kernel = K::detect()?;
    Some(if data.len() as u64 <= MID_SIZE_MAX {
        short(data)
    } else {
        long(&one_shot_acc(kernel, data), data.len() as u64)
    })
}

/// One-shot XXH3-64 on the kernel `K`, any length; None when the CPU cannot run `K`.
pub fn one_shot64<K: StripeLoop>(data: &[u8]) -> Option<u64> {
    one_shot::<K, _>(data, xxhash_rust::xxh3::xxh3_64, long64)
}

/// One-shot XXH3-128 on the kernel `K`, any length; None when the CPU cannot run `K`.
pub fn one_shot128<K: StripeLoop>(data: &[u8]) -> Option<u128> {
    one_shot::<K, _>(data, xxhash_rust::xxh3::xxh3_128, long128)
}

/// Streaming XXH3 on the kernel `K`; one state gives both the 64- and the 128-bit hash.
#[derive(Clone)]
pub struct Xxh3Wide<K> {
    kernel: K,
    acc: [u64; 8],
    /// Input not yet hashed: all of it while the total is at most 240 bytes (the short
    /// algorithms need it whole), afterwards 1 to 64 bytes, because the final stripe is hashed
    /// differently and must be kept back until the input ends.
    buffer: [u8; 256],
    buffered: usize,
    /// The 64 bytes just before `buffer`, for a final stripe that straddles the two.
    history: [u8; STRIPE],
    stripe: usize,
    total: u64,
}

impl<K: StripeLoop> Xxh3Wide<K> {
    /// A new state, or None when the CPU cannot run the kernel.
    pub fn new() -> Option<Self> {
        K::detect().map(|kernel| Xxh3Wide {
            kernel,
            acc: INITIAL_ACC,
            buffer: [0; 256],
            buffered: 0,
            history: [0; STRIPE],
            stripe: 0,
            total: 0,
        })
    }

    fn stripes(&mut self, input: &[u8]) {
        self.stripe = self.kernel.stripes(&mut self.acc, input, self.stripe);
    }

    pub fn update(&mut self, mut data: &[u8]) {
        self.total += data.len() as u64;
        if self.total <= MID_SIZE_MAX {
            self.buffer[self.buffered..self.buffered + data.len()].copy_from_slice(data);
            self.buffered += data.len();
            return;
        }
        if self.buffered > 0 {
            let take = data.len().min(self.buffer.len() - self.buffered);
            self.buffer[self.buffered..self.buffered + take].copy_from_slice(&data[..take]);
            self.buffered += take;
            data = &data[take..];
            // Keep at least one byte back unless more input follows in `data`.
            let stripes = if data.is_empty() {
                (self.buffered - 1) / STRIPE
            } else {
                self.buffered / STRIPE
            };
            if stripes > 0 {
                let hashed = stripes * STRIPE;
                let buffer = self.buffer;
                self.stripes(&buffer[..hashed]);
                self.history
                    .copy_from_slice(&buffer[hashed - STRIPE..hashed]);
                self.buffer.copy_within(hashed..self.buffered, 0);
                self.buffered -= hashed;
            }
            if data.is_empty() {
                return;
            }
        }
        let hashed = (data.len() - 1) / STRIPE * STRIPE;
        if hashed > 0 {
            self.stripes(&data[..hashed]);
            self.history.copy_from_slice(&data[hashed - STRIPE..hashed]);
        }
        let rest = &data[hashed..];
        self.buffer[..rest.len()].copy_from_slice(rest);
        self.buffered = rest.len();
    }

    /// The accumulators after the last stripe, for a long input.
    fn final_acc(&self) -> [u64; 8] {
        let mut last = [0u8; STRIPE];
        let from_history = STRIPE - self.buffered;
        last[..from_history].copy_from_slice(&self.history[self.buffered..]);
        last[from_history..].copy_from_slice(&self.buffer[..self.buffered]);
        let mut acc = self.acc;
        self.kernel.last_stripe(&mut acc, &last);
        acc
    }

    pub fn digest64(&self) -> u64 {
        if self.total <= MID_SIZE_MAX {
            return xxhash_rust::xxh3::xxh3_64(&self.buffer[..self.buffered]);
        }
        long64(&self.final_acc(), self.total)
    }

    pub fn digest128(&self) -> u128 {
        if self.total <= MID_SIZE_MAX {
            return xxhash_rust::xxh3::xxh3_128(&self.buffer[..self.buffered]);
        }
        long128(&self.final_acc(), self.total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xxhash_rust::xxh3::{xxh3_128, xxh3_64, Xxh3};

    /// SplitMix64: reproducible inputs and split points without a dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }

        fn below(&mut self, bound: usize) -> usize {
            (self.next() % bound as u64) as usize
        }

        fn bytes(&mut self, len: usize) -> Vec<u8> {
            (0..len).map(|_| self.next() as u8).collect()
        }
    }

    /// The 64- and the 128-bit hash of one input.
    type Digests = (u64, u128);

    /// One kernel's entry points, so every test runs on each kernel the CPU has.
    struct Kernel {
        name: &'static str,
        hash64: fn(&[u8]) -> Option<u64>,
        hash128: fn(&[u8]) -> Option<u128>,
        stream: fn(&[&[u8]]) -> Option<Digests>,
    }

    fn stream<K: StripeLoop>(chunks: &[&[u8]]) -> Option<Digests> {
        let mut state = Xxh3Wide::<K>::new()?;
        for chunk in chunks {
            state.update(chunk);
        }
        Some((state.digest64(), state.digest128()))
    }

    const KERNELS: [Kernel; 2] = [
        Kernel {
            name: "AVX2",
            hash64: one_shot64::<Avx2>,
            hash128: one_shot128::<Avx2>,
            stream: stream::<Avx2>,
        },
        Kernel {
            name: "AVX-512",
            hash64: one_shot64::<Avx512>,
            hash128: one_shot128::<Avx512>,
            stream: stream::<Avx512>,
        },
    ];

    /// The kernels this CPU runs, saying which ran and which were skipped.
    fn kernels(test: &'static str) -> impl Iterator<Item = &'static Kernel> {
        KERNELS.iter().filter(move |kernel| {
            let runs = (kernel.hash64)(&[]).is_some();
            let verdict = if runs {
                "ran"
            } else {
                "skipped: not on this CPU"
            };
            eprintln!("{test}: {} path {verdict}", kernel.name);
            runs
        })
    }

    /// Hashes `chunks` on `kernel`, one-shot over their concatenation and streaming, and
    /// checks every result against xxhash-rust's one-shot and streaming hashes.
    fn check(kernel: &Kernel, chunks: &[&[u8]], what: &str) {
        let whole = chunks.concat();
        let (expected64, expected128) = (xxh3_64(&whole), xxh3_128(&whole));
        let mut reference = Xxh3::new();
        for chunk in chunks {
            reference.update(chunk);
        }
        assert_eq!(
            reference.digest(),
            expected64,
            "xxhash-rust streaming, {what}"
        );
        assert_eq!(
            reference.digest128(),
            expected128,
            "xxhash-rust streaming, {what}"
        );
        let name = kernel.name;
        assert_eq!(
            (kernel.hash64)(&whole),
            Some(expected64),
            "{name} one-shot, {what}"
        );
        assert_eq!(
            (kernel.hash128)(&whole),
            Some(expected128),
            "{name} one-shot, {what}"
        );
        let streamed = (kernel.stream)(chunks);
        assert_eq!(
            streamed,
            Some((expected64, expected128)),
            "{name} streaming, {what}"
        );
    }

    #[test]
    fn every_length_at_shifting_offsets() {
        let data = Rng(1).bytes(4161 + 64);
        for kernel in kernels("every_length_at_shifting_offsets") {
            for len in 0..=4161 {
                for offset in [0, 1 + len % 63] {
                    let input = &data[offset..offset + len];
                    check(kernel, &[input], &format!("{len} bytes at offset {offset}"));
                }
            }
        }
    }

    #[test]
    fn streaming_with_random_splits() {
        let mut rng = Rng(2);
        for kernel in kernels("streaming_with_random_splits") {
            for round in 0..400 {
                let len = rng.below(20 * 1024 + 1);
                let data = rng.bytes(len);
                let mut cuts: Vec<usize> =
                    (0..1 + rng.below(8)).map(|_| rng.below(len + 1)).collect();
                cuts.extend([0, len]);
                cuts.sort_unstable();
                let mut chunks: Vec<&[u8]> = cuts.windows(2).map(|w| &data[w[0]..w[1]]).collect();
                // Repeated cut points give empty updates only by chance.
                if round % 3 == 0 {
                    chunks.insert(rng.below(chunks.len() + 1), &[]);
                }
                check(
                    kernel,
                    &chunks,
                    &format!("{len} bytes in {} updates", chunks.len()),
                );
            }
        }
    }

    #[test]
    fn one_byte_at_a_time_across_the_edges() {
        // 240: the long algorithm starts; 1024 and 1088: the first scramble, and the first
        // stripe after it.
        let data = Rng(3).bytes(1024 + 2 * STRIPE + 40);
        for kernel in kernels("one_byte_at_a_time_across_the_edges") {
            let chunks: Vec<&[u8]> = data.chunks(1).collect();
            for len in 200..=data.len() {
                check(
                    kernel,
                    &chunks[..len],
                    &format!("{len} bytes one at a time"),
                );
            }
        }
    }

    #[test]
    fn large_inputs() {
        let mut rng = Rng(4);
        let data = rng.bytes(33 * 1024 * 1024 + 13);
        for kernel in kernels("large_inputs") {
            for len in [1024 * 1024 + 1, 8 * 1024 * 1024 - 5, 33 * 1024 * 1024 + 13] {
                let input = &data[..len];
                // Odd-sized updates, so block and buffer boundaries fall everywhere.
                let chunks: Vec<&[u8]> = input.chunks(65_536 + 3 + rng.below(64)).collect();
                check(kernel, &chunks, &format!("{len} bytes"));
            }
        }
    }
}
