//! `fasthash --bench`: every engine this CPU runs, the one in use marked, and its single-thread
//! throughput on in-memory buffers, so a user can see what fasthash does on their machine and
//! what each engine gains over the one it replaces.
//!
//! Each figure is the median of several timed samples, each sample a batch of whole one-shot
//! hashes (a new hasher, the buffer, the digest), the same work `fasthash FILE` does per file
//! once the bytes are in memory; the last column hashes 32 buffers of 4 KiB in one call, as
//! fasthash hands many small files to an engine that hashes them side by side. GB/s are 10^9
//! bytes a second, as `openssl speed` counts.

use crate::format::bench::{Slower, SlowerAt, Table};
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
        .flat_map(|&algorithm| measured(algorithm))
        .collect();
    let cells = (engines.len() * (SIZES.len() + 1)).max(1);
    let per_sample = Duration::from_secs_f64(options.seconds / (cells * SAMPLES) as f64);

    let labels: Vec<String> = engines.iter().map(|engine| label(engine)).collect();
    let table = Table::new(
        SIZES,
        (MANY, MANY_SIZE),
        SAMPLES,
        labels.iter().map(String::as_str),
    );
    table.write_head(out, &Capabilities::cpu_name(), &Capabilities::get().names())?;

    let longest = SIZES.iter().copied().max().unwrap_or(0);
    let buffer = pattern(longest.max(MANY * MANY_SIZE));
    let mut rows = Vec::with_capacity(engines.len());
    for (engine, label) in engines.into_iter().zip(&labels) {
        let row = measure(engine, &buffer, per_sample);
        table.write_row(
            out,
            engine.algorithm.name(),
            std::ptr::eq(engine, table::chosen(engine.algorithm)),
            label,
            &row.gigabytes_per_second,
        )?;
        rows.push(row);
    }
    for algorithm in algorithms {
        let of_algorithm: Vec<&BenchRow> = rows
            .iter()
            .filter(|row| row.engine.algorithm == algorithm)
            .collect();
        if let Some(slower) = confirmed(&of_algorithm, &buffer, per_sample) {
            table.write_slower(out, &slower)?;
        }
    }
    Ok(())
}

/// The engines of `algorithm` this CPU runs, and the one in use where a preference made it of
/// two (a lane engine with another's code for a file alone), so that a preference is measured
/// against the engines it passed over.
fn measured(algorithm: Algorithm) -> impl Iterator<Item = &'static Engine> {
    let choice = table::choice(algorithm);
    let made_of_two = choice.alone.map(|_| table::chosen(algorithm));
    table::of(algorithm)
        .filter(|engine| engine.runs_here())
        .chain(made_of_two)
}

/// The choice that made `engine` of two engines, when it is that one.
fn made_of_two(engine: &Engine) -> Option<table::Choice> {
    let choice = table::choice(engine.algorithm);
    (choice.alone.is_some() && std::ptr::eq(engine, table::chosen(engine.algorithm)))
        .then_some(choice)
}

/// An engine's name in the table and the warning: its kernel's, or "avx512+bmi" for one made
/// of two.
fn name(engine: &Engine) -> String {
    made_of_two(engine).map_or_else(|| engine.kernel.name().to_string(), |choice| choice.name())
}

/// [`name`] and where the code comes from.
fn label(engine: &Engine) -> String {
    match made_of_two(engine) {
        Some(choice) => format!(
            "{} (a file alone on {}; {})",
            choice.name(),
            choice.alone.map_or("", |alone| alone.kernel.name()),
            choice.rule.describe()
        ),
        None => engine.label(),
    }
}

/// How much faster another engine must measure, in a column that counts, before `--bench`
/// says the engine in use is the wrong choice on this CPU: more than noise between medians.
pub(crate) const TOLERANCE: f64 = 1.10;

/// The columns a choice is judged on: one stream at 4 KiB and 1 MiB, and side by side. At
/// 64 B every engine measures mostly the cost of a call, and files that small are few.
const JUDGED: [usize; 3] = [1, 2, 3];

/// The engine in use among one algorithm's `rows` and the fastest other engine, where that one
/// is more than [`TOLERANCE`] times faster in some [`JUDGED`] column: each such column with
/// both figures. `None` when the engine in use is within it everywhere (or was not measured).
pub(crate) fn slower_than_another(rows: &[&BenchRow]) -> Option<Slower> {
    let used = rows
        .iter()
        .find(|row| std::ptr::eq(row.engine, table::chosen(row.engine.algorithm)))?;
    let rate = |row: &BenchRow, column: usize| row.gigabytes_per_second[column];
    // The other engine that beats the one in use by the largest factor in any judged column.
    let (faster, _) = rows
        .iter()
        .filter(|row| !std::ptr::eq(row.engine, used.engine))
        .map(|row| {
            let gain = JUDGED
                .iter()
                .map(|&column| rate(row, column) / rate(used, column).max(1e-12))
                .fold(0.0, f64::max);
            (row, gain)
        })
        .filter(|&(_, gain)| gain > TOLERANCE)
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    let columns = JUDGED
        .iter()
        .filter(|&&column| rate(faster, column) > TOLERANCE * rate(used, column))
        .map(|&column| SlowerAt {
            column_label: column_label(column),
            used: rate(used, column),
            faster: rate(faster, column),
        })
        .collect();
    Some(Slower {
        tolerance: TOLERANCE,
        algorithm: used.engine.algorithm.name(),
        used: name(used.engine),
        faster: name(faster.engine),
        columns,
    })
}

/// [`slower_than_another`] over `rows`, then each column it names measured again, both
/// engines in turn, sample after sample: a warning stands only where the median of those
/// paired ratios is beyond [`TOLERANCE`]. On a shared machine the load moves between two
/// engines' separate measurements (two engines running the very same one-stream code, MD5's
/// `avx2` and `bmi`, measured 10% apart that way while a build ran beside them); a pair of
/// samples taken together shares it.
fn confirmed(rows: &[&BenchRow], buffer: &[u8], per_sample: Duration) -> Option<Slower> {
    let first = slower_than_another(rows)?;
    let engine_named = |wanted: &str| {
        rows.iter()
            .map(|row| row.engine)
            .find(|engine| name(engine) == wanted)
    };
    let (used, faster) = (engine_named(&first.used)?, engine_named(&first.faster)?);
    let columns: Vec<SlowerAt> = JUDGED
        .iter()
        .filter(|&&column| {
            let label = column_label(column);
            first.columns.iter().any(|at| at.column_label == label)
        })
        .filter_map(|&column| {
            let samples = paired_samples(used, faster, column, buffer, per_sample);
            let paired = Paired::of(&samples);
            (paired.ratio > TOLERANCE).then(|| SlowerAt {
                column_label: column_label(column),
                used: paired.used,
                faster: paired.faster,
            })
        })
        .collect();
    (!columns.is_empty()).then_some(Slower { columns, ..first })
}

/// Rounds of paired samples in [`confirmed`].
const PAIRED_ROUNDS: usize = 2 * SAMPLES + 1;

/// GB/s of `used` and `faster` in column `column` ([`SIZES`], then side by side), a sample of
/// each per round, one after the other in alternating order.
fn paired_samples(
    used: &'static Engine,
    faster: &'static Engine,
    column: usize,
    buffer: &[u8],
    per_sample: Duration,
) -> Vec<(f64, f64)> {
    let input = ColumnInput::new(column, buffer);
    paired(
        input.bytes(),
        per_sample,
        || input.hash_on(used),
        || input.hash_on(faster),
    )
}

/// [`PAIRED_ROUNDS`] rounds of a sample of `used` and one of `faster`, in GB/s of `bytes` a
/// run, the order alternating from round to round.
fn paired(
    bytes: usize,
    per_sample: Duration,
    mut used: impl FnMut(),
    mut faster: impl FnMut(),
) -> Vec<(f64, f64)> {
    let used_iterations = iterations_for(&mut used, per_sample);
    let faster_iterations = iterations_for(&mut faster, per_sample);
    let rate = |elapsed: Duration, iterations: u64| {
        (bytes as f64 * iterations as f64) / elapsed.as_secs_f64().max(1e-12) / 1e9
    };
    (0..PAIRED_ROUNDS)
        .map(|round| {
            let (used_time, faster_time) = if round % 2 == 0 {
                let used_time = time_batch(&mut used, used_iterations);
                (used_time, time_batch(&mut faster, faster_iterations))
            } else {
                let faster_time = time_batch(&mut faster, faster_iterations);
                (time_batch(&mut used, used_iterations), faster_time)
            };
            (
                rate(used_time, used_iterations),
                rate(faster_time, faster_iterations),
            )
        })
        .collect()
}

/// What paired samples say: the median of each engine's, and the median of the per-round
/// ratios (faster over used), which a load that moved between rounds does not sway.
#[derive(Debug)]
struct Paired {
    used: f64,
    faster: f64,
    ratio: f64,
}

impl Paired {
    fn of(samples: &[(f64, f64)]) -> Paired {
        let median = |mut values: Vec<f64>| {
            values.sort_by(f64::total_cmp);
            values.get(values.len() / 2).copied().unwrap_or(0.0)
        };
        Paired {
            used: median(samples.iter().map(|s| s.0).collect()),
            faster: median(samples.iter().map(|s| s.1).collect()),
            ratio: median(samples.iter().map(|s| s.1 / s.0.max(1e-12)).collect()),
        }
    }
}

/// The head of column `column` of the table: a size of [`SIZES`], then side by side.
fn column_label(column: usize) -> String {
    match SIZES.get(column) {
        Some(&size) => crate::format::bench::size_label(size),
        None => format!("{MANY}x{}", crate::format::bench::size_label(MANY_SIZE)),
    }
}

/// Measures one engine at every size in [`SIZES`], then side by side.
pub fn measure(engine: &'static Engine, buffer: &[u8], per_sample: Duration) -> BenchRow {
    let gigabytes_per_second = (0..=SIZES.len())
        .map(|column| {
            let input = ColumnInput::new(column, buffer);
            throughput(input.bytes(), per_sample, || input.hash_on(engine))
        })
        .collect();
    BenchRow {
        engine,
        gigabytes_per_second,
    }
}

/// What one column hashes a run: one buffer of a size of [`SIZES`], or [`MANY`] buffers of
/// [`MANY_SIZE`] in one call.
enum ColumnInput<'a> {
    One(&'a [u8]),
    Many(Vec<&'a [u8]>),
}

impl<'a> ColumnInput<'a> {
    fn new(column: usize, buffer: &'a [u8]) -> ColumnInput<'a> {
        match SIZES.get(column) {
            Some(&size) => ColumnInput::One(&buffer[..size]),
            None => ColumnInput::Many(buffer[..MANY * MANY_SIZE].chunks(MANY_SIZE).collect()),
        }
    }

    fn bytes(&self) -> usize {
        match self {
            ColumnInput::One(data) => data.len(),
            ColumnInput::Many(messages) => messages.iter().map(|m| m.len()).sum(),
        }
    }

    /// One run: the engine's one-shot hash, or its side-by-side hash of every buffer.
    #[inline(always)]
    fn hash_on(&self, engine: &'static Engine) {
        match self {
            ColumnInput::One(data) => drop(black_box(engine.hash(black_box(data)))),
            ColumnInput::Many(messages) => {
                drop(black_box(engine.hash_many(black_box(messages))));
            }
        }
    }
}

/// How many runs of `work` make a batch of about `per_sample`, found by timing ever longer
/// batches (which also pages in the buffer and wakes the vector units).
fn iterations_for(work: &mut impl FnMut(), per_sample: Duration) -> u64 {
    let mut iterations: u64 = 1;
    loop {
        let elapsed = time_batch(work, iterations);
        if elapsed >= per_sample / 4 || iterations >= 1 << 40 {
            let per_hash = elapsed.as_secs_f64() / iterations as f64;
            return ((per_sample.as_secs_f64() / per_hash.max(1e-12)) as u64).max(1);
        }
        iterations *= 2;
    }
}

/// Median GB/s of [`SAMPLES`] batches of `work`, each about `per_sample`, `work` hashing
/// `bytes` bytes each time.
fn throughput(bytes: usize, per_sample: Duration, mut work: impl FnMut()) -> f64 {
    let iterations = iterations_for(&mut work, per_sample);
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

    /// The engine in use and another of the same algorithm, measured at `used` and `other`.
    fn judged(used: [f64; 4], other: [f64; 4]) -> Option<Slower> {
        let chosen = table::chosen(Algorithm::Sha256);
        let another = table::of(Algorithm::Sha256)
            .find(|engine| !std::ptr::eq(*engine, chosen))
            .expect("SHA-256 has more than one engine");
        let rows = [
            BenchRow {
                engine: chosen,
                gigabytes_per_second: used.to_vec(),
            },
            BenchRow {
                engine: another,
                gigabytes_per_second: other.to_vec(),
            },
        ];
        slower_than_another(&[&rows[0], &rows[1]])
    }

    #[test]
    fn another_engine_faster_by_more_than_the_tolerance_is_named_with_its_columns() {
        let slower = judged([1.0, 1.0, 1.0, 1.0], [1.0, 1.05, 1.2, 1.3]).expect("a warning");
        assert_eq!(slower.algorithm, "sha256");
        assert_eq!(slower.used, table::chosen(Algorithm::Sha256).kernel.name());
        assert_ne!(slower.faster, slower.used);
        let columns: Vec<&str> = slower
            .columns
            .iter()
            .map(|c| c.column_label.as_str())
            .collect();
        assert_eq!(columns, ["1 MiB", "32x4 KiB"]);
        assert_eq!(
            (slower.columns[0].used, slower.columns[0].faster),
            (1.0, 1.2)
        );
    }

    #[test]
    fn within_the_tolerance_or_only_at_64_bytes_is_no_warning() {
        assert!(judged([1.0, 1.0, 1.0, 1.0], [1.0, 1.09, 1.05, 1.0]).is_none());
        assert!(judged([1.0, 1.0, 1.0, 1.0], [3.0, 1.0, 0.5, 1.0]).is_none());
        assert!(judged([1.0, 2.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0]).is_none());
    }

    /// Two engines measured under a load that came and went: measured apart, one under it and
    /// one not, they would look twice as far apart as they are; paired, round by round, the
    /// ratio is what each round shows.
    #[test]
    fn paired_samples_judge_by_the_ratio_within_each_round() {
        let rounds = [
            (1.0, 1.04),
            (0.5, 0.53),
            (1.0, 1.05),
            (0.5, 0.52),
            (1.0, 1.06),
        ];
        let paired = Paired::of(&rounds);
        assert_eq!((paired.used, paired.faster), (1.0, 1.04));
        assert!((paired.ratio - 1.05).abs() < 1e-9, "{paired:?}");
        assert!(paired.ratio < TOLERANCE);
        let behind = Paired::of(&[(1.0, 1.3), (0.5, 0.6), (1.0, 1.2)]);
        assert!((behind.ratio - 1.2).abs() < 1e-9, "{behind:?}");
        assert!(behind.ratio > TOLERANCE);
    }
}
