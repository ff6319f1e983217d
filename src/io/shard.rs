//! `--shard K/N`: the K-th of N disjoint parts of a run's inputs, cut the same way on every
//! machine, so that N machines hash a tree together and `--merge` puts their manifests back
//! into the one a single run writes.
//!
//! The cut is made from the expanded, sorted walk and the files' sizes alone: consecutive runs
//! of inputs holding about equal bytes, so that the shards' lines, concatenated in shard
//! order, are the single run's lines in the single run's order. Each shard manifest starts
//! with a comment line (`# fasthash shard K/N FINGERPRINT`; coreutils and `--check` skip lines
//! that start with `#`) whose fingerprint covers the whole listing, the sizes, N and the line
//! format, so `--merge` can refuse shards of different runs instead of merging them wrongly.

use super::walk::Task;
use super::Input;
use std::fmt;

/// One part of N, numbered from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// Parses `K/N` with 1 <= K <= N <= 4294967295 (a shard's number is 32 bits, in the header
    /// line too); the message gives the bound, so that a count past it is not left a puzzle.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let invalid = || {
            format!(
                "'{text}' is not a shard K/N with 1 <= K <= N <= {} (1/4 to 4/4)",
                u32::MAX
            )
        };
        let (index, count) = text.split_once('/').ok_or_else(invalid)?;
        let number = |s: &str| {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            s.parse::<u32>().ok()
        };
        match (number(index), number(count)) {
            (Some(index), Some(count)) if index >= 1 && index <= count => {
                Ok(Shard { index, count })
            }
            _ => Err(invalid()),
        }
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Opening a file costs about as much as reading a few KiB of it: counting it in the weights
/// keeps a shard of many small files from getting far more of them than the others.
const COST_OF_A_FILE: u64 = 4096;

/// The tasks of `shard`, in order, and the fingerprint of the whole run (the same on every
/// machine) that its header line carries (`format::shard_header`). `format` names what decides
/// the lines' bytes (algorithms and line style), so shards written differently have different
/// fingerprints.
pub fn select(tasks: Vec<Task>, shard: Shard, format: &str) -> (Vec<Task>, String) {
    let sizes: Vec<u64> = tasks.iter().map(size_of).collect();
    let mut fingerprint = blake3::Hasher::new();
    fingerprint.update(format!("{}\0{format}\0", shard.count).as_bytes());
    for (task, size) in tasks.iter().zip(&sizes) {
        let name = task.name_bytes();
        fingerprint.update(&(name.len() as u64).to_le_bytes());
        fingerprint.update(name);
        fingerprint.update(&size.to_le_bytes());
    }
    let fingerprint = fingerprint.finalize().to_hex();
    let weights: Vec<u64> = sizes.iter().map(|size| size + COST_OF_A_FILE).collect();
    let parts = assign(&weights, shard.count);
    let chosen = tasks
        .into_iter()
        .zip(parts)
        .filter(|(_, part)| *part == shard.index - 1)
        .map(|(task, _)| task)
        .collect();
    (chosen, fingerprint[..32].to_string())
}

/// The size a task is weighed by: a file's length as its metadata tells it (what a walk
/// knows without reading), 0 for what cannot be read or is not a file.
fn size_of(task: &Task) -> u64 {
    match task {
        Task::Hash(Input::Path(path)) => super::long_paths::metadata(path).map_or(0, |m| m.len()),
        _ => 0,
    }
}

/// Which part (from 0) each weight falls in: a weight goes to the part its middle lies in,
/// when the whole is cut into `count` equal lengths. Parts are consecutive and in order; a
/// weight larger than a part can leave the next one empty.
fn assign(weights: &[u64], count: u32) -> Vec<u32> {
    let total: u128 = weights.iter().map(|&w| u128::from(w)).sum();
    let mut before: u128 = 0;
    weights
        .iter()
        .map(|&weight| {
            let middle = 2 * before + u128::from(weight);
            before += u128::from(weight);
            if total == 0 {
                return 0;
            }
            // floor(middle / 2 / total * count), in integers.
            let part = middle * u128::from(count) / (2 * total);
            part.min(u128::from(count) - 1) as u32
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_from_one() {
        assert_eq!(Shard::parse("3/7"), Ok(Shard { index: 3, count: 7 }));
        for bad in [
            "0/4", "5/4", "1/0", "-1/4", "+1/4", "1/", "/4", "14", "1/4/2", " 1/4",
        ] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        let most = Shard::parse("4294967295/4294967295");
        assert_eq!(most.map(|shard| shard.count), Ok(u32::MAX));
        let past = Shard::parse("1/4294967296").unwrap_err();
        assert!(past.contains("N <= 4294967295"), "{past}");
    }

    #[test]
    fn parts_are_consecutive_cover_everything_and_hold_about_equal_weight() {
        let weights: Vec<u64> = (0..1000u64).map(|i| (i * 7919) % 100_000).collect();
        for count in [1, 2, 7, 64] {
            let parts = assign(&weights, count);
            assert!(parts.windows(2).all(|w| w[0] <= w[1]), "{count}");
            assert_eq!(parts[0], 0);
            assert_eq!(*parts.last().unwrap(), count - 1);
            let total: u64 = weights.iter().sum();
            for part in 0..count {
                let held: u64 = weights
                    .iter()
                    .zip(&parts)
                    .filter(|(_, p)| **p == part)
                    .map(|(w, _)| w)
                    .sum();
                // Within the largest single weight of an equal share.
                let share = total / u64::from(count);
                assert!(
                    held.abs_diff(share) <= 100_000,
                    "{count} {part} {held} {share}"
                );
            }
        }
        assert_eq!(assign(&[0, 0, 0], 4), [0, 0, 0]);
        assert!(assign(&[], 3).is_empty());
    }
}
