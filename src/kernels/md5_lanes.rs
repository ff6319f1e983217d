//! MD5 of many messages at once: eight messages side by side in the 32-bit lanes of AVX2
//! registers, as in Intel's multi-buffer crypto library.
//!
//! One MD5 is a single serial chain, so one core cannot hash one message faster than the
//! chain's latency allows (0.47 GB/s here). Eight independent chains fill the vector units
//! instead. A lane that finishes its message takes the next one, so messages of different
//! lengths share the lanes until every one is done. The scalar kernel (`md5.rs`) is the
//! reference it is tested against, and what a lone message runs on.

use super::md5::{INITIAL, K};
use std::arch::x86_64::*;

const LANES: usize = 8;
const BLOCK: usize = 64;

/// One message in a lane: its whole blocks come from the message itself, the last one or two
/// (the rest of the message, the 0x80 byte, zeros and the bit length) from `tail`.
struct Lane<'a> {
    message: usize,
    data: &'a [u8],
    tail: [u8; 2 * BLOCK],
    whole_blocks: usize,
    total_blocks: usize,
    next_block: usize,
}

impl<'a> Lane<'a> {
    fn new(message: usize, data: &'a [u8]) -> Lane<'a> {
        let whole_blocks = data.len() / BLOCK;
        let rest = &data[whole_blocks * BLOCK..];
        let mut tail = [0u8; 2 * BLOCK];
        tail[..rest.len()].copy_from_slice(rest);
        tail[rest.len()] = 0x80;
        let tail_blocks = if rest.len() < BLOCK - 8 { 1 } else { 2 };
        let bits = (data.len() as u64).wrapping_mul(8);
        tail[tail_blocks * BLOCK - 8..tail_blocks * BLOCK].copy_from_slice(&bits.to_le_bytes());
        Lane {
            message,
            data,
            tail,
            whole_blocks,
            total_blocks: whole_blocks + tail_blocks,
            next_block: 0,
        }
    }

    fn block(&self) -> *const u8 {
        if self.next_block < self.whole_blocks {
            self.data[self.next_block * BLOCK..].as_ptr()
        } else {
            self.tail[(self.next_block - self.whole_blocks) * BLOCK..].as_ptr()
        }
    }
}

/// The MD5 of every message, in order. None when the CPU lacks AVX2.
pub fn digest_many(messages: &[&[u8]]) -> Option<Vec<[u8; 16]>> {
    if !is_x86_feature_detected!("avx2") {
        return None;
    }
    // SAFETY: AVX2 is present.
    Some(unsafe { digest_many_avx2(messages) })
}

#[target_feature(enable = "avx2")]
unsafe fn digest_many_avx2(messages: &[&[u8]]) -> Vec<[u8; 16]> {
    let mut digests = vec![[0u8; 16]; messages.len()];
    // state[word][lane]: the four MD5 words of each lane's message.
    let mut state = [[0u32; LANES]; 4];
    let mut lanes: [Option<Lane>; LANES] = Default::default();
    let mut waiting = messages.iter().enumerate();
    let idle_block = [0u8; BLOCK];
    loop {
        for (index, slot) in lanes.iter_mut().enumerate() {
            if slot.is_none() {
                if let Some((message, data)) = waiting.next() {
                    *slot = Some(Lane::new(message, data));
                    for (word, initial) in state.iter_mut().zip(INITIAL) {
                        word[index] = initial;
                    }
                }
            }
        }
        if lanes.iter().all(Option::is_none) {
            break;
        }
        // An idle lane hashes zeros into a state nobody reads.
        let blocks: [*const u8; LANES] = std::array::from_fn(|index| {
            lanes[index]
                .as_ref()
                .map_or(idle_block.as_ptr(), |lane| lane.block())
        });
        // SAFETY: every pointer is the start of 64 readable bytes: a whole block inside a
        // message, inside a lane's `tail`, or `idle_block`, all alive across the call.
        unsafe { compress(&mut state, &blocks) };
        for (index, slot) in lanes.iter_mut().enumerate() {
            let Some(lane) = slot else { continue };
            lane.next_block += 1;
            if lane.next_block == lane.total_blocks {
                let digest = &mut digests[lane.message];
                for (bytes, word) in digest.chunks_exact_mut(4).zip(&state) {
                    bytes.copy_from_slice(&word[index].to_le_bytes());
                }
                *slot = None;
            }
        }
    }
    digests
}

/// Eight MD5 streams advanced together, for messages that arrive in equal pieces (the parts
/// of an S3 multipart upload, read in step). Each lane finishes on the scalar kernel.
pub struct Md5Lanes {
    state: [[u32; LANES]; 4],
    length: u64,
}

impl Md5Lanes {
    pub const LANES: usize = LANES;

    /// None when the CPU lacks AVX2.
    pub fn new() -> Option<Md5Lanes> {
        is_x86_feature_detected!("avx2").then(|| Md5Lanes {
            state: std::array::from_fn(|word| [INITIAL[word]; LANES]),
            length: 0,
        })
    }

    /// Adds one piece to each lane: at most eight pieces, all of the same length, a whole
    /// number of 64-byte blocks.
    pub fn update(&mut self, pieces: &[&[u8]]) {
        assert!(pieces.len() <= LANES);
        let len = pieces.first().map_or(0, |piece| piece.len());
        assert!(len.is_multiple_of(BLOCK) && pieces.iter().all(|piece| piece.len() == len));
        let idle_block = [0u8; BLOCK];
        for at in (0..len).step_by(BLOCK) {
            let blocks: [*const u8; LANES] = std::array::from_fn(|lane| {
                pieces
                    .get(lane)
                    .map_or(idle_block.as_ptr(), |piece| piece[at..].as_ptr())
            });
            // SAFETY: `new` found AVX2; every pointer starts 64 readable bytes.
            unsafe { compress(&mut self.state, &blocks) };
        }
        self.length += len as u64;
    }

    /// Lane `lane`'s MD5 after its last `tail` bytes (fewer than 64 need not be whole blocks).
    pub fn finalize(&self, lane: usize, tail: &[u8]) -> [u8; 16] {
        let state = std::array::from_fn(|word| self.state[word][lane]);
        let mut md5 = super::md5::Md5::resume(state, self.length);
        md5.update(tail);
        md5.finalize()
    }
}

/// Eight 8-word rows in, eight 8-word columns out: column i holds word i of every row.
#[target_feature(enable = "avx2")]
fn transpose(rows: [__m256i; 8]) -> [__m256i; 8] {
    let [r0, r1, r2, r3, r4, r5, r6, r7] = rows;
    let t0 = _mm256_unpacklo_epi32(r0, r1);
    let t1 = _mm256_unpackhi_epi32(r0, r1);
    let t2 = _mm256_unpacklo_epi32(r2, r3);
    let t3 = _mm256_unpackhi_epi32(r2, r3);
    let t4 = _mm256_unpacklo_epi32(r4, r5);
    let t5 = _mm256_unpackhi_epi32(r4, r5);
    let t6 = _mm256_unpacklo_epi32(r6, r7);
    let t7 = _mm256_unpackhi_epi32(r6, r7);
    let u0 = _mm256_unpacklo_epi64(t0, t2);
    let u1 = _mm256_unpackhi_epi64(t0, t2);
    let u2 = _mm256_unpacklo_epi64(t1, t3);
    let u3 = _mm256_unpackhi_epi64(t1, t3);
    let u4 = _mm256_unpacklo_epi64(t4, t6);
    let u5 = _mm256_unpackhi_epi64(t4, t6);
    let u6 = _mm256_unpacklo_epi64(t5, t7);
    let u7 = _mm256_unpackhi_epi64(t5, t7);
    [
        _mm256_permute2x128_si256::<0x20>(u0, u4),
        _mm256_permute2x128_si256::<0x20>(u1, u5),
        _mm256_permute2x128_si256::<0x20>(u2, u6),
        _mm256_permute2x128_si256::<0x20>(u3, u7),
        _mm256_permute2x128_si256::<0x31>(u0, u4),
        _mm256_permute2x128_si256::<0x31>(u1, u5),
        _mm256_permute2x128_si256::<0x31>(u2, u6),
        _mm256_permute2x128_si256::<0x31>(u3, u7),
    ]
}

/// One block of each lane.
///
/// # Safety
/// AVX2 must be present, and each pointer must point to 64 readable bytes.
#[target_feature(enable = "avx2")]
unsafe fn compress(state: &mut [[u32; LANES]; 4], blocks: &[*const u8; LANES]) {
    let mut words = [_mm256_setzero_si256(); 16];
    for half in 0..2 {
        // SAFETY: the caller's 64 bytes per pointer; unaligned loads.
        let rows: [__m256i; 8] = std::array::from_fn(|lane| unsafe {
            _mm256_loadu_si256(blocks[lane].add(32 * half).cast())
        });
        words[8 * half..8 * half + 8].copy_from_slice(&transpose(rows));
    }
    // SAFETY: loads and stores of the four state rows, each 8 u32s.
    let load = |row: &[u32; LANES]| unsafe { _mm256_loadu_si256(row.as_ptr().cast()) };
    let (mut a, mut b, mut c, mut d) = (
        load(&state[0]),
        load(&state[1]),
        load(&state[2]),
        load(&state[3]),
    );
    let (a0, b0, c0, d0) = (a, b, c, d);
    let ones = _mm256_set1_epi32(-1);

    macro_rules! rotate_left {
        ($x:expr, $s:expr) => {{
            let x = $x;
            _mm256_or_si256(
                _mm256_sll_epi32(x, _mm_cvtsi32_si128($s)),
                _mm256_srl_epi32(x, _mm_cvtsi32_si128(32 - $s)),
            )
        }};
    }
    // a = b + rotl(a + f(b, c, d) + K[i] + M[g], s), as in RFC 1321.
    macro_rules! step {
        ($f:ident, $a:ident, $b:ident, $c:ident, $d:ident, $i:expr, $g:expr, $s:expr) => {{
            let (b, c, d) = ($b, $c, $d);
            let word_and_constant = _mm256_add_epi32(words[$g], _mm256_set1_epi32(K[$i] as i32));
            let sum = _mm256_add_epi32(_mm256_add_epi32($a, word_and_constant), $f!(b, c, d));
            $a = _mm256_add_epi32(b, rotate_left!(sum, $s));
        }};
    }
    // The four round functions, as macros so that they are inlined under AVX2.
    macro_rules! f {
        ($b:expr, $c:expr, $d:expr) => {
            _mm256_xor_si256($d, _mm256_and_si256($b, _mm256_xor_si256($c, $d)))
        };
    }
    macro_rules! g {
        ($b:expr, $c:expr, $d:expr) => {
            _mm256_or_si256(_mm256_and_si256($b, $d), _mm256_andnot_si256($d, $c))
        };
    }
    macro_rules! h {
        ($b:expr, $c:expr, $d:expr) => {
            _mm256_xor_si256($b, _mm256_xor_si256($c, $d))
        };
    }
    macro_rules! i {
        ($b:expr, $c:expr, $d:expr) => {
            _mm256_xor_si256($c, _mm256_or_si256($b, _mm256_xor_si256($d, ones)))
        };
    }

    macro_rules! round {
        ($f:ident, $first:expr, $index:expr, $shifts:expr) => {
            for group in 0..4 {
                let base = $first + 4 * group;
                let index = $index;
                step!($f, a, b, c, d, base, index(base) % 16, $shifts[0]);
                step!($f, d, a, b, c, base + 1, index(base + 1) % 16, $shifts[1]);
                step!($f, c, d, a, b, base + 2, index(base + 2) % 16, $shifts[2]);
                step!($f, b, c, d, a, base + 3, index(base + 3) % 16, $shifts[3]);
            }
        };
    }
    round!(f, 0, |i: usize| i, [7, 12, 17, 22]);
    round!(g, 16, |i: usize| 5 * i + 1, [5, 9, 14, 20]);
    round!(h, 32, |i: usize| 3 * i + 5, [4, 11, 16, 23]);
    round!(i, 48, |i: usize| 7 * i, [6, 10, 15, 21]);

    // SAFETY: as for the loads.
    let store = |row: &mut [u32; LANES], value| unsafe {
        _mm256_storeu_si256(row.as_mut_ptr().cast(), value)
    };
    store(&mut state[0], _mm256_add_epi32(a, a0));
    store(&mut state[1], _mm256_add_epi32(b, b0));
    store(&mut state[2], _mm256_add_epi32(c, c0));
    store(&mut state[3], _mm256_add_epi32(d, d0));
}
