//! The candidate crates for each algorithm, one thread, in-memory buffers of 64 B, 4 KiB and
//! 1 MiB, median of 7 batches, GB/s. `cargo run --release` here; ARCHITECTURE.md's "Kernel
//! crates, chosen by measurement" quotes one run. fasthash's own MD5 kernel is measured from its source file.
#[path = "../../../src/kernels/md5.rs"]
#[allow(dead_code)]
mod ours;
use std::hint::black_box;
use std::time::Instant;

fn rate(len: usize, f: &dyn Fn(&[u8]) -> u64) -> f64 {
    let data: Vec<u8> = (0..len).map(|i| (i as u32).wrapping_mul(2654435761) as u8).collect();
    let mut iters = 1u64;
    loop {
        let t = Instant::now();
        for _ in 0..iters { black_box(f(black_box(&data))); }
        if t.elapsed().as_secs_f64() > 0.05 { break; }
        iters *= 2;
    }
    let mut rates: Vec<f64> = (0..7).map(|_| {
        let t = Instant::now();
        for _ in 0..iters { black_box(f(black_box(&data))); }
        len as f64 * iters as f64 / t.elapsed().as_secs_f64() / 1e9
    }).collect();
    rates.sort_by(f64::total_cmp);
    rates[3]
}

fn main() {
    use sha2::Digest;
    let cands: Vec<(&str, Box<dyn Fn(&[u8]) -> u64>)> = vec![
        ("xxh3 xxhash-rust", Box::new(|d| xxhash_rust::xxh3::xxh3_64(d))),
        ("xxh3 twox-hash", Box::new(|d| twox_hash::XxHash3_64::oneshot(d))),
        ("xxh128 xxhash-rust", Box::new(|d| xxhash_rust::xxh3::xxh3_128(d) as u64)),
        ("xxh128 twox-hash", Box::new(|d| twox_hash::XxHash3_128::oneshot(d) as u64)),
        ("xxh64 xxhash-rust", Box::new(|d| xxhash_rust::xxh64::xxh64(d, 0))),
        ("xxh64 twox-hash", Box::new(|d| twox_hash::XxHash64::oneshot(0, d))),
        ("sha256 sha2", Box::new(|d| sha2::Sha256::digest(d)[0] as u64)),
        ("sha256 ring", Box::new(|d| ring::digest::digest(&ring::digest::SHA256, d).as_ref()[0] as u64)),
        ("sha512 sha2", Box::new(|d| sha2::Sha512::digest(d)[0] as u64)),
        ("sha512 ring", Box::new(|d| ring::digest::digest(&ring::digest::SHA512, d).as_ref()[0] as u64)),
        ("sha384 ring", Box::new(|d| ring::digest::digest(&ring::digest::SHA384, d).as_ref()[0] as u64)),
        ("sha1 sha1", Box::new(|d| sha1::Sha1::digest(d)[0] as u64)),
        ("sha1 ring", Box::new(|d| ring::digest::digest(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY, d).as_ref()[0] as u64)),
        ("md5 md-5", Box::new(|d| md5::Md5::digest(d)[0] as u64)),
        ("md5 md5", Box::new(|d| md5_crate::compute(d).0[0] as u64)),
        ("md5 ours", Box::new(|d| ours::digest(d)[0] as u64)),
        ("md5 md-5 again", Box::new(|d| md5::Md5::digest(d)[0] as u64)),
        ("md5 ours again", Box::new(|d| ours::digest(d)[0] as u64)),
    ];
    // Outputs agree (first bytes / values) between crates:
    let probe = vec![7u8; 100_003];
    assert_eq!(xxhash_rust::xxh3::xxh3_64(&probe), twox_hash::XxHash3_64::oneshot(&probe));
    assert_eq!(xxhash_rust::xxh3::xxh3_128(&probe), twox_hash::XxHash3_128::oneshot(&probe));
    assert_eq!(xxhash_rust::xxh64::xxh64(&probe, 0), twox_hash::XxHash64::oneshot(0, &probe));
    assert_eq!(sha2::Sha512::digest(&probe).as_slice(), ring::digest::digest(&ring::digest::SHA512, &probe).as_ref());
    println!("{:<22} {:>8} {:>8} {:>8}", "candidate", "64 B", "4 KiB", "1 MiB");
    for (name, f) in &cands {
        println!("{:<22} {:>8.2} {:>8.2} {:>8.2}", name, rate(64, f.as_ref()), rate(4096, f.as_ref()), rate(1 << 20, f.as_ref()));
    }
}
