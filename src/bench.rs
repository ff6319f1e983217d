//! `fasthash bench`: each algorithm's kernel on this CPU and its single-thread throughput on
//! in-memory buffers, so a user can see what fasthash does on their machine.
//!
//! Each figure is the median of several timed samples, each sample a batch of whole one-shot
//! hashes (a new hasher, the buffer, the digest), the same work `fasthash FILE` does per file
//! once the bytes are in memory. GB/s are 10^9 bytes a second, as `openssl speed` counts.

use crate::kernels::detect::{kernel_name, Capabilities};
use crate::kernels::{hash, Algorithm};
use std::hint::black_box;
use std::io::{self, Write};
use std::time::{Duration, Instant};

/// Buffer sizes measured, with their labels.
pub const SIZES: &[(usize, &str)] = &[(64, "64 B"), (4096, "4 KiB"), (1 << 20, "1 MiB")];

const SAMPLES: usize = 5;

#[derive(Clone, Debug, PartialEq)]
pub struct BenchOptions {
    /// Total time to spend measuring, spread evenly over every algorithm and size.
    pub seconds: f64,
    /// Algorithms to measure; empty means all.
    pub algorithms: Vec<Algorithm>,
}

/// One measured row: an algorithm, its kernel, and GB/s per size in [`SIZES`] order.
pub struct BenchRow {
    pub algorithm: Algorithm,
    pub kernel: String,
    pub gigabytes_per_second: Vec<f64>,
}

/// Measures and prints the table; returns the write error, if any.
pub fn run(options: &BenchOptions, out: &mut impl Write) -> io::Result<()> {
    let algorithms: Vec<Algorithm> = if options.algorithms.is_empty() {
        Algorithm::all().collect()
    } else {
        options.algorithms.clone()
    };
    let cells = (algorithms.len() * SIZES.len()).max(1);
    let per_sample = Duration::from_secs_f64(options.seconds / (cells * SAMPLES) as f64);

    writeln!(
        out,
        "fasthash {} on {}",
        env!("CARGO_PKG_VERSION"),
        cpu_model().unwrap_or_else(|| std::env::consts::ARCH.to_string())
    )?;
    writeln!(
        out,
        "CPU features: {}",
        Capabilities::get().names().join(" ")
    )?;
    writeln!(
        out,
        "One thread, in-memory buffers, median of {SAMPLES} samples, GB/s (10^9 bytes/s)"
    )?;
    writeln!(out)?;
    let kernel_width = algorithms
        .iter()
        .map(|&a| kernel_name(a).len())
        .max()
        .unwrap_or(6)
        .max(6);
    write!(out, "{:<10} {:<kernel_width$}", "algorithm", "kernel")?;
    for (_, label) in SIZES {
        write!(out, " {label:>8}")?;
    }
    writeln!(out)?;
    out.flush()?;

    let buffer = pattern(SIZES.iter().map(|&(size, _)| size).max().unwrap_or(0));
    for algorithm in algorithms {
        let row = measure(algorithm, &buffer, per_sample);
        write!(
            out,
            "{:<10} {:<kernel_width$}",
            algorithm.name(),
            row.kernel
        )?;
        for rate in &row.gigabytes_per_second {
            // Slow kernels (a forced portable one, a debug build) would print 0.00 otherwise.
            let decimals = if *rate >= 0.1 { 2 } else { 4 };
            write!(out, " {rate:>8.decimals$}")?;
        }
        writeln!(out)?;
        out.flush()?;
    }
    Ok(())
}

/// Measures one algorithm at every size in [`SIZES`].
pub fn measure(algorithm: Algorithm, buffer: &[u8], per_sample: Duration) -> BenchRow {
    let gigabytes_per_second = SIZES
        .iter()
        .map(|&(size, _)| throughput(algorithm, &buffer[..size], per_sample))
        .collect();
    BenchRow {
        algorithm,
        kernel: kernel_name(algorithm),
        gigabytes_per_second,
    }
}

/// Median GB/s of [`SAMPLES`] batches of one-shot hashes of `data`, each about `per_sample`.
fn throughput(algorithm: Algorithm, data: &[u8], per_sample: Duration) -> f64 {
    // Warm up (page in the buffer, wake the vector units), and size the batches from it.
    let mut iterations: u64 = 1;
    loop {
        let elapsed = time_batch(algorithm, data, iterations);
        if elapsed >= per_sample / 4 || iterations >= 1 << 40 {
            let per_hash = elapsed.as_secs_f64() / iterations as f64;
            iterations = ((per_sample.as_secs_f64() / per_hash.max(1e-12)) as u64).max(1);
            break;
        }
        iterations *= 2;
    }
    let mut rates: Vec<f64> = (0..SAMPLES)
        .map(|_| {
            let elapsed = time_batch(algorithm, data, iterations).as_secs_f64();
            (data.len() as f64 * iterations as f64) / elapsed.max(1e-12) / 1e9
        })
        .collect();
    rates.sort_by(f64::total_cmp);
    rates[rates.len() / 2]
}

fn time_batch(algorithm: Algorithm, data: &[u8], iterations: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..iterations {
        black_box(hash(algorithm, black_box(data)));
    }
    start.elapsed()
}

/// Deterministic bytes that no kernel can shortcut (not all zeros).
fn pattern(len: usize) -> Vec<u8> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect()
}

fn cpu_model() -> Option<String> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    cpuinfo
        .lines()
        .find(|line| line.starts_with("model name"))
        .and_then(|line| line.split_once(':'))
        .map(|(_, model)| model.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_a_row_for_each_algorithm_asked() {
        let options = BenchOptions {
            seconds: 0.05,
            algorithms: vec![Algorithm::Crc32c, Algorithm::Sha256],
        };
        let mut out = Vec::new();
        run(&options, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let rows: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("crc32c ") || l.starts_with("sha256 "))
            .collect();
        assert_eq!(rows.len(), 2, "{text}");
        for row in rows {
            let rates: Vec<f64> = row
                .split_whitespace()
                .rev()
                .take(SIZES.len())
                .map(|field| field.parse().unwrap())
                .collect();
            assert!(rates.iter().all(|&r| r > 0.0 && r.is_finite()), "{row}");
        }
    }
}
