//! `--merge FILE...`: shard manifests (`--shard K/N`) put back together into the manifest a
//! single run writes, byte for byte: their lines concatenated in shard order, without their
//! first and last lines. Shards of different runs, a shard given twice, a missing shard, and
//! one whose lines are not those its run wrote (cut short, changed: its last line counts them
//! and gives their XXH3) are refused before anything is written, so a merge either is the
//! single run's manifest or is nothing.

use crate::error::{Error, ExitStatus};
use crate::format::shard_header::{checked_lines, parse_header};
use crate::io::settings::RunSettings;
use crate::io::shard::Shard;
use crate::io::Input;
use crate::report::Reporter;
use std::io::Write;

/// `--merge FILE...`, as the command line asks: the shard manifests, in the order given.
#[derive(Debug)]
pub struct Merge {
    pub shards: Vec<Input>,
    pub run: RunSettings,
}

/// One shard manifest as read.
struct ShardFile {
    name: Vec<u8>,
    shard: Shard,
    fingerprint: String,
    data: Vec<u8>,
    /// Where its lines are: after the header, before the last line.
    lines: std::ops::Range<usize>,
}

pub fn run(merge: &Merge, out: &mut impl Write, reporter: &Reporter) -> ExitStatus {
    let mut shards = Vec::new();
    for input in &merge.shards {
        let name = input.name_bytes().to_vec();
        let failed = |reason: String| Error::Invalid {
            name: name.clone(),
            reason,
        };
        let data = match crate::io::read_all(input) {
            Ok(data) => data,
            Err(source) => {
                reporter.error(&Error::Input { name, source });
                return ExitStatus::Failure;
            }
        };
        let Some((shard, fingerprint, lines_start)) = parse_header(&data) else {
            reporter.error(&failed(
                "not a shard manifest: it does not start with the '# fasthash shard K/N' line \
                 that --shard writes"
                    .into(),
            ));
            return ExitStatus::Failure;
        };
        let terminator = data[lines_start - 1];
        let lines_end = match checked_lines(&data[lines_start..], terminator, shard) {
            Ok(lines) => lines_start + lines.len(),
            Err(reason) => {
                reporter.error(&failed(reason));
                return ExitStatus::Failure;
            }
        };
        shards.push(ShardFile {
            name,
            shard,
            fingerprint,
            data,
            lines: lines_start..lines_end,
        });
    }
    match order(&mut shards) {
        Ok(()) => {}
        Err(error) => {
            reporter.error(&error);
            return ExitStatus::Failure;
        }
    }
    let written = shards
        .iter()
        .try_for_each(|shard| out.write_all(&shard.data[shard.lines.clone()]))
        .and_then(|()| out.flush());
    match written {
        Ok(()) => ExitStatus::Success,
        Err(e) => reporter.output_failed(e, ExitStatus::Success),
    }
}

/// Sorts the shards into shard order, after checking that they are every shard of one run,
/// each once.
fn order(shards: &mut [ShardFile]) -> Result<(), Error> {
    let refuse = |shard: &ShardFile, reason: String| Error::Invalid {
        name: shard.name.clone(),
        reason,
    };
    let Some(first) = shards.first() else {
        return Err(Error::usage("--merge needs the shard manifests to merge"));
    };
    for shard in shards.iter() {
        if shard.shard.count != first.shard.count {
            return Err(refuse(
                shard,
                format!(
                    "shard {} does not belong with {} (shard {}): they cut the work in \
                     different numbers of parts",
                    shard.shard,
                    shown(&first.name),
                    first.shard
                ),
            ));
        }
        if shard.fingerprint != first.fingerprint {
            return Err(refuse(
                shard,
                format!(
                    "shard {} was cut from another run than {} (shard {}): the files, their \
                     sizes, the operands, the algorithm or the line format differ",
                    shard.shard,
                    shown(&first.name),
                    first.shard
                ),
            ));
        }
    }
    let count = first.shard.count;
    shards.sort_by_key(|shard| shard.shard.index);
    for pair in shards.windows(2) {
        if pair[0].shard.index == pair[1].shard.index {
            return Err(refuse(
                &pair[1],
                format!(
                    "shard {} overlaps {}, which is shard {} too",
                    pair[1].shard,
                    shown(&pair[0].name),
                    pair[0].shard
                ),
            ));
        }
    }
    let present: Vec<u32> = shards.iter().map(|shard| shard.shard.index).collect();
    match missing_shards(&present, count) {
        Some(message) => Err(Error::usage(format!("--merge: {message}; nothing written"))),
        None => Ok(()),
    }
}

/// The most missing shards a message names one by one; the rest are counted.
const MISSING_NAMED: usize = 10;

/// Which of shards 1 to `count` are missing from `present` (sorted, none twice), in words: the
/// first [`MISSING_NAMED`] named and the rest counted, so that a run cut into four billion
/// shards gets a line, not gigabytes. None when every shard is there.
fn missing_shards(present: &[u32], count: u32) -> Option<String> {
    let total = u64::from(count) - present.len() as u64;
    if total == 0 {
        return None;
    }
    let mut present = present.iter().peekable();
    let named: Vec<String> = (1..=count)
        .filter(|index| match present.peek() {
            Some(&&next) if next == *index => {
                present.next();
                false
            }
            _ => true,
        })
        .take(MISSING_NAMED)
        .map(|index| format!("{index}/{count}"))
        .collect();
    let more = total - named.len() as u64;
    let more = match more {
        0 => String::new(),
        _ => format!(" and {more} more"),
    };
    let plural = if total == 1 { "" } else { "s" };
    Some(format!("missing shard{plural} {}{more}", named.join(", ")))
}

/// A name inside a message, quoted as names are everywhere else.
fn shown(name: &[u8]) -> String {
    String::from_utf8_lossy(&crate::format::quote::quote_name(name)).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_shards_are_named_up_to_ten_and_the_rest_counted() {
        assert_eq!(missing_shards(&[1, 2, 3], 3), None);
        assert_eq!(
            missing_shards(&[1, 3], 3).as_deref(),
            Some("missing shard 2/3")
        );
        assert_eq!(
            missing_shards(&[2], 4).as_deref(),
            Some("missing shards 1/4, 3/4, 4/4")
        );
        // A run cut into the most shards there can be, one of them given: a line, at once.
        let most = u32::MAX;
        assert_eq!(
            missing_shards(&[3], most).as_deref(),
            Some(
                "missing shards 1/4294967295, 2/4294967295, 4/4294967295, 5/4294967295, \
                 6/4294967295, 7/4294967295, 8/4294967295, 9/4294967295, 10/4294967295, \
                 11/4294967295 and 4294967284 more"
            )
        );
    }
}
