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
    /// Parses `K/N` with 1 <= K <= N.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let invalid = || format!("'{text}' is not a shard K/N with 1 <= K <= N (1/4 to 4/4)");
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

/// The tasks of `shard`, in order, and the header line its manifest starts with (without its
/// terminator). `format` names what decides the lines' bytes (algorithms and line style), so
/// shards written differently have different fingerprints. `several` names the algorithms of a
/// run of several (`md5,sha256`), which the header then names after the fingerprint, so that
/// a reader knows each file has a line per algorithm; a run of one keeps the header it had.
pub fn select(
    tasks: Vec<Task>,
    shard: Shard,
    format: &str,
    several: Option<&str>,
) -> (Vec<Task>, String) {
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
    let mut header = header(shard, &fingerprint[..32]);
    if let Some(algorithms) = several {
        header.push_str(&format!(" {ALGORITHMS_PREFIX}{algorithms}"));
    }
    (chosen, header)
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

const HEADER_PREFIX: &str = "# fasthash shard ";

/// Before the algorithms a header of several names.
const ALGORITHMS_PREFIX: &str = "-a ";

fn header(shard: Shard, fingerprint: &str) -> String {
    format!("{HEADER_PREFIX}{shard} {fingerprint}")
}

/// A shard manifest's first line, read back: which shard, of which run, and where the lines
/// start. None when `data` does not start with one.
pub fn parse_header(data: &[u8]) -> Option<(Shard, String, usize)> {
    let end = data.iter().position(|&b| b == b'\n' || b == b'\0')?;
    let line = std::str::from_utf8(&data[..end]).ok()?;
    let rest = line.strip_prefix(HEADER_PREFIX)?;
    let (shard, fingerprint) = rest.split_once(' ')?;
    // A run of several algorithms names them after the fingerprint (which covers them too).
    let (fingerprint, algorithms) = match fingerprint.split_once(' ') {
        Some((fingerprint, named)) => (fingerprint, Some(named.strip_prefix(ALGORITHMS_PREFIX)?)),
        None => (fingerprint, None),
    };
    if algorithms.is_some_and(|list| list.is_empty() || list.contains(' ')) {
        return None;
    }
    let shard = Shard::parse(shard).ok()?;
    if fingerprint.len() != 32 || !fingerprint.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some((shard, fingerprint.to_string(), end + 1))
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

    #[test]
    fn a_header_reads_back() {
        let line = header(Shard { index: 2, count: 5 }, &"ab".repeat(16));
        let data = format!("{line}\nrest");
        let (shard, fingerprint, start) = parse_header(data.as_bytes()).unwrap();
        assert_eq!(shard, Shard { index: 2, count: 5 });
        assert_eq!(fingerprint, "ab".repeat(16));
        assert_eq!(&data.as_bytes()[start..], b"rest");
        assert!(parse_header(b"# fasthash shard 2/5 short\n").is_none());
        let several = format!("{line} -a md5,sha256\nrest");
        let (_, fingerprint, start) = parse_header(several.as_bytes()).unwrap();
        assert_eq!(fingerprint, "ab".repeat(16));
        assert_eq!(&several.as_bytes()[start..], b"rest");
        for bad in [" -a\n", " -a \n", " md5\n", " -a md5 sha1\n"] {
            assert!(
                parse_header(format!("{line}{bad}").as_bytes()).is_none(),
                "{bad}"
            );
        }
        assert!(parse_header(b"0123  name\n").is_none());
    }
}
