//! fasthash's one-stream kernels beside OpenSSL's, in one process: each round times one and
//! then the other on the same buffer (the order alternating from round to round), so that a
//! noisy host moves both alike, and reports the median of the per-round ratios. `openssl
//! speed` run as a separate process is the figure issue 34 names; on a shared machine its
//! throughput moved by a third within a minute, which paired rounds in one process do not
//! see. The digests are compared first, on every length the rounds use and on lengths around
//! the block edges.
//!
//! Usage: `cargo run --release -- [ROUNDS]` (default 15).

use fasthash::kernels::{hash, Algorithm};
use std::ffi::{c_int, c_uint, c_void};
use std::time::Instant;

#[allow(non_camel_case_types)]
type EVP_MD = c_void;
#[allow(non_camel_case_types)]
type EVP_MD_CTX = c_void;

extern "C" {
    fn EVP_sha512() -> *const EVP_MD;
    fn EVP_md5() -> *const EVP_MD;
    fn EVP_MD_CTX_new() -> *mut EVP_MD_CTX;
    fn EVP_MD_CTX_free(ctx: *mut EVP_MD_CTX);
    fn EVP_DigestInit_ex(ctx: *mut EVP_MD_CTX, md: *const EVP_MD, engine: *mut c_void) -> c_int;
    fn EVP_DigestUpdate(ctx: *mut EVP_MD_CTX, data: *const c_void, len: usize) -> c_int;
    fn EVP_DigestFinal_ex(ctx: *mut EVP_MD_CTX, out: *mut u8, len: *mut c_uint) -> c_int;
    fn OpenSSL_version(which: c_int) -> *const std::ffi::c_char;
}

/// OpenSSL's digest of `data` through one reused context, as `openssl speed -evp` hashes.
struct OpenSsl {
    ctx: *mut EVP_MD_CTX,
    md: *const EVP_MD,
}

impl OpenSsl {
    fn new(md: *const EVP_MD) -> OpenSsl {
        // SAFETY: EVP_MD_CTX_new has no preconditions; a null result is checked.
        let ctx = unsafe { EVP_MD_CTX_new() };
        assert!(!ctx.is_null(), "EVP_MD_CTX_new failed");
        OpenSsl { ctx, md }
    }

    fn digest(&self, data: &[u8]) -> Vec<u8> {
        let mut out = [0u8; 64];
        let mut len: c_uint = 0;
        // SAFETY: a live context, a digest OpenSSL returned, `data` readable for its length and
        // `out` large enough for any digest here (64 bytes).
        let ok = unsafe {
            EVP_DigestInit_ex(self.ctx, self.md, std::ptr::null_mut()) == 1
                && EVP_DigestUpdate(self.ctx, data.as_ptr().cast(), data.len()) == 1
                && EVP_DigestFinal_ex(self.ctx, out.as_mut_ptr(), &mut len) == 1
        };
        assert!(ok, "OpenSSL's digest failed");
        out[..len as usize].to_vec()
    }
}

impl Drop for OpenSsl {
    fn drop(&mut self) {
        // SAFETY: the context came from EVP_MD_CTX_new and is freed once.
        unsafe { EVP_MD_CTX_free(self.ctx) };
    }
}

/// Bytes a second through `f`, over at least 64 MiB.
fn throughput(data: &[u8], f: &dyn Fn(&[u8]) -> Vec<u8>) -> f64 {
    let repeats = ((64 << 20) / data.len()).max(1);
    let start = Instant::now();
    for _ in 0..repeats {
        std::hint::black_box(f(std::hint::black_box(data)));
    }
    (data.len() * repeats) as f64 / start.elapsed().as_secs_f64()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map_or(15, |n| n.parse().expect("ROUNDS is a number"));
    let data: Vec<u8> = (0..1usize << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    // SAFETY: OpenSSL_version(0) returns a static NUL-terminated string.
    let version = unsafe { std::ffi::CStr::from_ptr(OpenSSL_version(0)) };
    println!("{version:?}; {rounds} rounds a row, medians; ratio = fasthash / OpenSSL per round");
    println!("| algorithm | size | fasthash GB/s | OpenSSL GB/s | median ratio | ratios min-max |");
    println!("|---|---|---|---|---|---|");
    // SAFETY: EVP_sha512 and EVP_md5 take no arguments and return static digests.
    let peers = unsafe {
        [
            (Algorithm::Sha512, EVP_sha512()),
            (Algorithm::Md5, EVP_md5()),
        ]
    };
    for (algorithm, md) in peers {
        let openssl = OpenSsl::new(md);
        let ours = |data: &[u8]| hash(algorithm, data).as_bytes().to_vec();
        let theirs = |data: &[u8]| openssl.digest(data);
        let edges = (0..=520).chain([1000, 4096, 4097, 65_536, 1 << 20]);
        for len in edges {
            assert_eq!(
                ours(&data[..len]),
                theirs(&data[..len]),
                "{algorithm:?}, {len} bytes"
            );
        }
        for size in [4096, 1 << 20] {
            let buffer = &data[..size];
            let (mut ours_rate, mut theirs_rate, mut ratios) = (vec![], vec![], vec![]);
            for round in 0..rounds {
                let (a, b) = if round % 2 == 0 {
                    let a = throughput(buffer, &ours);
                    (a, throughput(buffer, &theirs))
                } else {
                    let b = throughput(buffer, &theirs);
                    (throughput(buffer, &ours), b)
                };
                ours_rate.push(a / 1e9);
                theirs_rate.push(b / 1e9);
                ratios.push(a / b);
            }
            let (low, high) = ratios
                .iter()
                .fold((f64::MAX, 0f64), |(l, h), &r| (l.min(r), h.max(r)));
            let size_text = if size >= 1 << 20 { "1 MiB" } else { "4 KiB" };
            println!(
                "| {} | {size_text} | {:.3} | {:.3} | {:.3} | {low:.3}-{high:.3} |",
                algorithm.name(),
                median(ours_rate),
                median(theirs_rate),
                median(ratios)
            );
        }
    }
}
