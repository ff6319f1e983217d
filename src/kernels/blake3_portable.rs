//! BLAKE3 written from its specification (sections 2.1-2.6) in plain Rust, for the `portable`
//! kernel: the blake3 crate picks SSE2 to AVX-512 by itself and cannot be told not to. Slow on
//! purpose (one block at a time, no SIMD); the official test vectors and the crate check it.

const IV: [u32; 8] = [
    0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
];
const MESSAGE_PERMUTATION: [usize; 16] = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];
const BLOCK_LEN: usize = 64;
const CHUNK_LEN: usize = 1024;
const CHUNK_START: u32 = 1;
const CHUNK_END: u32 = 2;
const PARENT: u32 = 4;
const ROOT: u32 = 8;

fn quarter_round(state: &mut [u32; 16], [a, b, c, d]: [usize; 4], x: u32, y: u32) {
    state[a] = state[a].wrapping_add(state[b]).wrapping_add(x);
    state[d] = (state[d] ^ state[a]).rotate_right(16);
    state[c] = state[c].wrapping_add(state[d]);
    state[b] = (state[b] ^ state[c]).rotate_right(12);
    state[a] = state[a].wrapping_add(state[b]).wrapping_add(y);
    state[d] = (state[d] ^ state[a]).rotate_right(8);
    state[c] = state[c].wrapping_add(state[d]);
    state[b] = (state[b] ^ state[c]).rotate_right(7);
}

fn compress(
    chaining_value: &[u32; 8],
    block: &[u32; 16],
    counter: u64,
    block_len: u32,
    flags: u32,
) -> [u32; 16] {
    let mut state = [0u32; 16];
    state[..8].copy_from_slice(chaining_value);
    state[8..12].copy_from_slice(&IV[..4]);
    state[12] = counter as u32;
    state[13] = (counter >> 32) as u32;
    state[14] = block_len;
    state[15] = flags;
    let mut message = *block;
    for round in 0..7 {
        let m = &message;
        quarter_round(&mut state, [0, 4, 8, 12], m[0], m[1]);
        quarter_round(&mut state, [1, 5, 9, 13], m[2], m[3]);
        quarter_round(&mut state, [2, 6, 10, 14], m[4], m[5]);
        quarter_round(&mut state, [3, 7, 11, 15], m[6], m[7]);
        quarter_round(&mut state, [0, 5, 10, 15], m[8], m[9]);
        quarter_round(&mut state, [1, 6, 11, 12], m[10], m[11]);
        quarter_round(&mut state, [2, 7, 8, 13], m[12], m[13]);
        quarter_round(&mut state, [3, 4, 9, 14], m[14], m[15]);
        if round < 6 {
            message = std::array::from_fn(|i| message[MESSAGE_PERMUTATION[i]]);
        }
    }
    for i in 0..8 {
        state[i] ^= state[i + 8];
        state[i + 8] ^= chaining_value[i];
    }
    state
}

fn words(block: &[u8; BLOCK_LEN]) -> [u32; 16] {
    std::array::from_fn(|i| u32::from_le_bytes(block[4 * i..4 * i + 4].try_into().unwrap()))
}

fn first_eight(words: [u32; 16]) -> [u32; 8] {
    std::array::from_fn(|i| words[i])
}

/// What a node needs to become either a chaining value or the root.
struct Output {
    chaining_value: [u32; 8],
    block: [u32; 16],
    counter: u64,
    block_len: u32,
    flags: u32,
}

impl Output {
    fn chaining_value(&self) -> [u32; 8] {
        first_eight(compress(
            &self.chaining_value,
            &self.block,
            self.counter,
            self.block_len,
            self.flags,
        ))
    }

    /// The default 32-byte hash: the first output block's first half.
    fn root_hash(&self) -> [u8; 32] {
        let words = compress(
            &self.chaining_value,
            &self.block,
            0,
            self.block_len,
            self.flags | ROOT,
        );
        let mut out = [0u8; 32];
        for (bytes, word) in out.chunks_exact_mut(4).zip(words) {
            bytes.copy_from_slice(&word.to_le_bytes());
        }
        out
    }
}

fn parent_output(left: [u32; 8], right: [u32; 8]) -> Output {
    let mut block = [0u32; 16];
    block[..8].copy_from_slice(&left);
    block[8..].copy_from_slice(&right);
    Output {
        chaining_value: IV,
        block,
        counter: 0,
        block_len: BLOCK_LEN as u32,
        flags: PARENT,
    }
}

#[derive(Clone)]
struct ChunkState {
    chaining_value: [u32; 8],
    chunk_counter: u64,
    block: [u8; BLOCK_LEN],
    block_len: usize,
    blocks_compressed: usize,
}

impl ChunkState {
    fn new(chunk_counter: u64) -> ChunkState {
        ChunkState {
            chaining_value: IV,
            chunk_counter,
            block: [0; BLOCK_LEN],
            block_len: 0,
            blocks_compressed: 0,
        }
    }

    fn len(&self) -> usize {
        BLOCK_LEN * self.blocks_compressed + self.block_len
    }

    fn start_flag(&self) -> u32 {
        if self.blocks_compressed == 0 {
            CHUNK_START
        } else {
            0
        }
    }

    fn update(&mut self, mut input: &[u8]) {
        while !input.is_empty() {
            // A full block is compressed only once more input arrives: the last block of a
            // chunk carries CHUNK_END.
            if self.block_len == BLOCK_LEN {
                self.chaining_value = first_eight(compress(
                    &self.chaining_value,
                    &words(&self.block),
                    self.chunk_counter,
                    BLOCK_LEN as u32,
                    self.start_flag(),
                ));
                self.blocks_compressed += 1;
                self.block = [0; BLOCK_LEN];
                self.block_len = 0;
            }
            let take = (BLOCK_LEN - self.block_len).min(input.len());
            self.block[self.block_len..self.block_len + take].copy_from_slice(&input[..take]);
            self.block_len += take;
            input = &input[take..];
        }
    }

    fn output(&self) -> Output {
        Output {
            chaining_value: self.chaining_value,
            block: words(&self.block),
            counter: self.chunk_counter,
            block_len: self.block_len as u32,
            flags: self.start_flag() | CHUNK_END,
        }
    }
}

/// The streaming BLAKE3 hasher (default hash mode, 32-byte output).
#[derive(Clone)]
pub struct Blake3 {
    chunk: ChunkState,
    /// Chaining values of complete subtrees, largest first.
    stack: Vec<[u32; 8]>,
}

impl Default for Blake3 {
    fn default() -> Self {
        Blake3 {
            chunk: ChunkState::new(0),
            stack: Vec::new(),
        }
    }
}

impl Blake3 {
    pub fn update(&mut self, mut input: &[u8]) {
        while !input.is_empty() {
            if self.chunk.len() == CHUNK_LEN {
                let mut chaining_value = self.chunk.output().chaining_value();
                let mut total_chunks = self.chunk.chunk_counter + 1;
                // Merge completed subtrees: one per trailing zero bit of the chunk count.
                while total_chunks & 1 == 0 {
                    let left = self.stack.pop().expect("a left subtree per trailing zero");
                    chaining_value = parent_output(left, chaining_value).chaining_value();
                    total_chunks >>= 1;
                }
                self.stack.push(chaining_value);
                self.chunk = ChunkState::new(self.chunk.chunk_counter + 1);
            }
            let take = (CHUNK_LEN - self.chunk.len()).min(input.len());
            self.chunk.update(&input[..take]);
            input = &input[take..];
        }
    }

    pub fn finalize(&self) -> [u8; 32] {
        let mut output = self.chunk.output();
        for left in self.stack.iter().rev() {
            output = parent_output(*left, output.chaining_value());
        }
        output.root_hash()
    }
}
