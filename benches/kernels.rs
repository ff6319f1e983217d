//! Every algorithm's kernel by input size, one-shot (a new hasher, the input, the digest), the
//! way fasthash hashes a file once it is in memory. `cargo bench --bench kernels`.
//!
//! The kernel each algorithm takes here is printed first (`fasthash --bench` prints the same);
//! run with `FASTHASH_KERNEL=portable` (or another kernel) to measure a forced one. The
//! `*_side_by_side` benches hash 32 messages in one call, as fasthash does for many files.

use divan::counter::BytesCount;
use divan::Bencher;
use fasthash::kernels::table;
use fasthash::kernels::{hash, hash_many, Algorithm, Hasher};

const SIZES: &[usize] = &[16, 64, 1024, 4096, 64 * 1024, 1024 * 1024];

fn main() {
    for algorithm in Algorithm::all() {
        eprintln!(
            "{:<10} {}",
            algorithm.name(),
            table::chosen(algorithm).label()
        );
    }
    divan::main();
}

fn input(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761) as u8)
        .collect()
}

fn one_shot(bencher: Bencher, algorithm: Algorithm, len: usize) {
    let data = input(len);
    bencher
        .counter(BytesCount::new(len))
        .bench(|| hash(algorithm, divan::black_box(&data)));
}

macro_rules! algorithm_benches {
    ($($name:ident => $algorithm:expr),* $(,)?) => {
        $(
            #[divan::bench(args = SIZES)]
            fn $name(bencher: Bencher, len: usize) {
                one_shot(bencher, $algorithm, len);
            }
        )*
    };
}

algorithm_benches! {
    sha256 => Algorithm::Sha256,
    sha224 => Algorithm::Sha224,
    sha384 => Algorithm::Sha384,
    sha512 => Algorithm::Sha512,
    sha1 => Algorithm::Sha1,
    md5 => Algorithm::Md5,
    blake3 => Algorithm::Blake3,
    xxh64 => Algorithm::Xxh64,
    xxh3 => Algorithm::Xxh3,
    xxh128 => Algorithm::Xxh128,
    crc32 => Algorithm::Crc32,
    crc32c => Algorithm::Crc32c,
    crc64nvme => Algorithm::Crc64Nvme,
}

/// Streaming in 4 KiB updates (what a pipe or a small read buffer gives the hasher), 1 MiB in
/// all: the cost of the update boundary per algorithm.
#[divan::bench(args = [Algorithm::Sha256, Algorithm::Blake3, Algorithm::Xxh3, Algorithm::Crc64Nvme])]
fn streamed_4k_updates(bencher: Bencher, algorithm: Algorithm) {
    let data = input(1024 * 1024);
    bencher.counter(BytesCount::new(data.len())).bench(|| {
        let mut hasher = Hasher::new(algorithm);
        for piece in data.chunks(4096) {
            hasher.update(divan::black_box(piece));
        }
        hasher.finalize()
    });
}

/// 32 messages of `len` bytes each in one call, as fasthash hands a lane engine many files:
/// AVX-512 runs 16 of them side by side (SHA-512: 8), AVX2 8 (MD5); an engine without lanes
/// hashes them one after another.
fn side_by_side(bencher: Bencher, algorithm: Algorithm, len: usize) {
    let data = input(32 * len);
    let messages: Vec<&[u8]> = data.chunks(len).collect();
    bencher
        .counter(BytesCount::new(32 * len))
        .bench(|| hash_many(algorithm, divan::black_box(&messages)));
}

#[divan::bench(args = [4096, 256 * 1024])]
fn md5_side_by_side(bencher: Bencher, len: usize) {
    side_by_side(bencher, Algorithm::Md5, len);
}

#[divan::bench(args = [4096, 256 * 1024])]
fn sha1_side_by_side(bencher: Bencher, len: usize) {
    side_by_side(bencher, Algorithm::Sha1, len);
}

#[divan::bench(args = [4096, 256 * 1024])]
fn sha256_side_by_side(bencher: Bencher, len: usize) {
    side_by_side(bencher, Algorithm::Sha256, len);
}

#[divan::bench(args = [4096, 256 * 1024])]
fn sha512_side_by_side(bencher: Bencher, len: usize) {
    side_by_side(bencher, Algorithm::Sha512, len);
}
