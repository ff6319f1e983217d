//! `--merge FILE...`: shard manifests (`--shard K/N`) put back together into the manifest a
//! single run writes, byte for byte: their lines concatenated in shard order, without their
//! header lines. Shards of different runs, a shard given twice and a missing shard are refused
//! before anything is written, so a merge either is the single run's manifest or is nothing.

use crate::error::{Error, ExitStatus};
use crate::format::shard_header::parse_header;
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
    lines_start: usize,
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
        shards.push(ShardFile {
            name,
            shard,
            fingerprint,
            data,
            lines_start,
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
        .try_for_each(|shard| out.write_all(&shard.data[shard.lines_start..]))
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
    let missing: Vec<String> = (1..=count)
        .filter(|index| !shards.iter().any(|shard| shard.shard.index == *index))
        .map(|index| format!("{index}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(Error::usage(format!(
            "--merge: missing shard{} {}; nothing written",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", ")
        )));
    }
    Ok(())
}

/// A name inside a message, quoted as names are everywhere else.
fn shown(name: &[u8]) -> String {
    String::from_utf8_lossy(&crate::format::quote::quote_name(name)).into_owned()
}
