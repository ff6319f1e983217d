//! `fasthash --bench`: every engine this CPU runs, the one in use marked, and its single-thread
//! throughput on in-memory buffers, so a user can see what fasthash does on their machine and
//! what each engine gains over the one it replaces.
//!
//! Each figure is the median of several timed samples, each sample a batch of whole one-shot
//! hashes (a new hasher, the buffer, the digest), the same work `fasthash FILE` does per file
//! once the bytes are in memory; the last column hashes 32 buffers of 4 KiB in one call, as
//! fasthash hands many small files to an engine that hashes them side by side. GB/s are 10^9
//! bytes a second, as `openssl speed` counts.

use crate::format::bench::Table;
use crate::kernels::detect::Capabilities;
use crate::kernels::engine::Engine;
use crate::kernels::table;
use crate::kernels::Algorithm;
use std::hint::black_box;
use std::io::{self, Write};
use std::time::{Duration, Instant};

/// Buffer sizes measured.
pub const SIZES: &[usize] = &[64, 4096, 1 << 20];

/// The side-by-side column: this many buffers of [`MANY_SIZE`] bytes in one call.
const MANY: usize = 32;
const MANY_SIZE: usize = 4096;

/// `--seconds` when not given.
pub const DEFAULT_SECONDS: f64 = 3.0;

const SAMPLES: usize = 5;

#[derive(Clone, Debug, PartialEq)]
pub struct BenchOptions {
    /// Total time to spend measuring, spread evenly over every algorithm and size.
    pub seconds: f64,
    /// Algorithms to measure; empty means all.
    pub algorithms: Vec<Algorithm>,
}

/// One measured row: an engine, and GB/s per size in [`SIZES`] order, then side by side.
pub struct BenchRow {
    pub engine: &'static Engine,
    pub gigabytes_per_second: Vec<f64>,
}

/// Measures and prints the table; returns the write error, if any.
pub fn run(options: &BenchOptions, out: &mut impl Write) -> io::Result<()> {
    let algorithms: Vec<Algorithm> = if options.algorithms.is_empty() {
        Algorithm::all().collect()
    } else {
        options.algorithms.clone()
    };
    let engines: Vec<&'static Engine> = algorithms
        .iter()
        .flat_map(|&algorithm| table::of(algorithm).filter(|engine| engine.runs_here()))
        .collect();
    let cells = (engines.len() * (SIZES.len() + 1)).max(1);
    let per_sample = Duration::from_secs_f64(options.seconds / (cells * SAMPLES) as f64);

    let labels: Vec<String> = engines.iter().map(|engine| engine.label()).collect();
    let table = Table::new(
        SIZES,
        (MANY, MANY_SIZE),
        SAMPLES,
        labels.iter().map(String::as_str),
    );
    table.write_head(
        out,
        &Capabilities::cpu_model(),
        &Capabilities::get().names(),
    )?;

    let longest = SIZES.iter().copied().max().unwrap_or(0);
    let buffer = pattern(longest.max(MANY * MANY_SIZE));
    for (engine, label) in engines.into_iter().zip(&labels) {
        let row = measure(engine, &buffer, per_sample);
        table.write_row(
            out,
            engine.algorithm.name(),
            std::ptr::eq(engine, table::chosen(engine.algorithm)),
            label,
            &row.gigabytes_per_second,
        )?;
    }
    Ok(())
}

/// Measures one engine at every size in [`SIZES`], then side by side.
pub fn measure(engine: &'static Engine, buffer: &[u8], per_sample: Duration) -> BenchRow {
    let mut gigabytes_per_second: Vec<f64> = SIZES
        .iter()
        .map(|&size| {
            let data = &buffer[..size];
            throughput(size, per_sample, || {
                black_box(engine.hash(black_box(data)));
            })
        })
        .collect();
    let messages: Vec<&[u8]> = buffer[..MANY * MANY_SIZE].chunks(MANY_SIZE).collect();
    gigabytes_per_second.push(throughput(MANY * MANY_SIZE, per_sample, || {
        black_box(engine.hash_many(black_box(&messages)));
    }));
    BenchRow {
        engine,
        gigabytes_per_second,
    }
}

/// Median GB/s of [`SAMPLES`] batches of `work`, each about `per_sample`, `work` hashing
/// `bytes` bytes each time.
fn throughput(bytes: usize, per_sample: Duration, mut work: impl FnMut()) -> f64 {
    // Warm up (page in the buffer, wake the vector units), and size the batches from it.
    let mut iterations: u64 = 1;
    loop {
        let elapsed = time_batch(&mut work, iterations);
        if elapsed >= per_sample / 4 || iterations >= 1 << 40 {
            let per_hash = elapsed.as_secs_f64() / iterations as f64;
            iterations = ((per_sample.as_secs_f64() / per_hash.max(1e-12)) as u64).max(1);
            break;
        }
        iterations *= 2;
    }
    let mut rates: Vec<f64> = (0..SAMPLES)
        .map(|_| {
            let elapsed = time_batch(&mut work, iterations).as_secs_f64();
            (bytes as f64 * iterations as f64) / elapsed.max(1e-12) / 1e9
        })
        .collect();
    rates.sort_by(f64::total_cmp);
    rates[rates.len() / 2]
}

fn time_batch(work: &mut impl FnMut(), iterations: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..iterations {
        work();
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
        let engines = [Algorithm::Crc32c, Algorithm::Sha256]
            .into_iter()
            .flat_map(|a| table::of(a).filter(|e| e.runs_here()))
            .count();
        assert_eq!(rows.len(), engines, "{text}");
        // One engine of each is marked as the one in use.
        assert_eq!(
            rows.iter().filter(|row| row.contains(" * ")).count(),
            2,
            "{text}"
        );
        for row in rows {
            let rates: Vec<f64> = row
                .split_whitespace()
                .rev()
                .take(SIZES.len() + 1)
                .map(|field| field.parse().unwrap())
                .collect();
            assert!(rates.iter().all(|&r| r > 0.0 && r.is_finite()), "{row}");
        }
    }
}
