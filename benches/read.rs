//! The file read paths on a hot page cache: read(2) with several buffer sizes against the
//! mapping paths fasthash chooses between, on a 64 MiB file. `cargo bench --bench read`.
//!
//! XXH3 and CRC64/NVME are fast enough that reading dominates; SHA-256 shows how much of the
//! read cost the mapping path hides behind a slower kernel.

use divan::counter::BytesCount;
use divan::Bencher;
use fasthash::io::read::{hash_file, MmapChoice, ReadOptions};
use fasthash::kernels::{Algorithm, Hasher};
use std::fs::File;
use std::io::Read;
use std::path::PathBuf;
use std::sync::OnceLock;

const FILE_SIZE: usize = 64 * 1024 * 1024;
const ALGORITHMS: &[Algorithm] = &[Algorithm::Xxh3, Algorithm::Crc64Nvme, Algorithm::Sha256];

static PATH: OnceLock<PathBuf> = OnceLock::new();

fn main() {
    divan::main();
    if let Some(path) = PATH.get() {
        let _ = std::fs::remove_file(path);
    }
}

/// A 64 MiB file in the system's temp directory, written once and read into the page cache.
fn data_file() -> &'static PathBuf {
    PATH.get_or_init(|| {
        let path = std::env::temp_dir().join(format!("fasthash-read-bench-{}", std::process::id()));
        let data: Vec<u8> = (0..FILE_SIZE)
            .map(|i| (i as u32).wrapping_mul(2_654_435_761) as u8)
            .collect();
        std::fs::write(&path, &data).expect("write the benchmark file");
        let mut sink = Vec::new();
        File::open(&path)
            .and_then(|mut f| f.read_to_end(&mut sink))
            .expect("warm the cache");
        path
    })
}

#[divan::bench(args = ALGORITHMS, consts = [65536, 262144, 1048576, 4194304])]
fn read_with_buffer<const BUFFER: usize>(bencher: Bencher, algorithm: Algorithm) {
    let path = data_file();
    let mut buffer = vec![0u8; BUFFER];
    bencher.counter(BytesCount::new(FILE_SIZE)).bench_local(|| {
        let mut file = File::open(path).unwrap();
        let mut hasher = Hasher::new(algorithm);
        loop {
            let n = file.read(&mut buffer).unwrap();
            if n == 0 {
                break;
            }
            hasher.update(&buffer[..n]);
        }
        hasher.finalize()
    });
}

fn through_fasthash(bencher: Bencher, algorithm: Algorithm, options: ReadOptions) {
    let path = data_file();
    bencher
        .counter(BytesCount::new(FILE_SIZE))
        .bench_local(|| hash_file(File::open(path).unwrap(), algorithm, &options).unwrap());
}

/// fasthash's read path (one thread: 256 KiB reads, no mapping).
#[divan::bench(args = ALGORITHMS)]
fn fasthash_no_mmap(bencher: Bencher, algorithm: Algorithm) {
    let options = ReadOptions {
        mmap: MmapChoice::Never,
        split_files: false,
    };
    through_fasthash(bencher, algorithm, options);
}

/// fasthash's mapping path on one hashing thread (plus the populating helper).
#[divan::bench(args = ALGORITHMS)]
fn fasthash_mmap(bencher: Bencher, algorithm: Algorithm) {
    let options = ReadOptions {
        mmap: MmapChoice::Always,
        split_files: false,
    };
    through_fasthash(bencher, algorithm, options);
}

/// The mapping path with the file split over rayon's threads (CRCs; others as above).
#[divan::bench(args = ALGORITHMS)]
fn fasthash_mmap_split(bencher: Bencher, algorithm: Algorithm) {
    let options = ReadOptions {
        mmap: MmapChoice::Always,
        split_files: true,
    };
    through_fasthash(bencher, algorithm, options);
}
