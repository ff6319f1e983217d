//! Hashing a file as S3 sees a multipart upload: each part hashed on its own by every algorithm
//! asked for (several S3 values, and MD5 for the ETag), all in the same pass. Parts are read
//! with `pread`, so memory stays at one buffer a thread whatever the part size; where the
//! algorithm's engine or MD5's hashes several messages side by side (lanes), a task takes a
//! group of parts in step instead and feeds them to the lanes together: from a mapping of the
//! file, or read into one buffer a part.
//!
//! Why the lanes hash a mapping (guarded as every mapping is) and one part at a time is read:
//! measured on a Xeon with AVX-512 (2 cores, hot page cache, 1 GiB in 8 MiB parts, means of
//! ten), the COMPOSITE SHA-256 value took 165 ms mapped against 213 read, 319 against 415 on
//! one thread, and the CRC64NVME value with the ETag's part MD5s 153 against 163: the copy
//! `pread` makes was a quarter of the time. One part at a time on SHA-NI took 448 ms mapped
//! against 351 read, so that path reads.

use crate::io::mapped::Mapping;
use crate::io::read::{changed_error, fault_error, ReadOptions};
use crate::kernels::engine::{Engine, Stepped};
use crate::kernels::table;
use crate::kernels::{Algorithm, Digest, Hasher};
use std::fs::File;
use std::io;
use std::ops::Range;
use std::os::unix::fs::FileExt;

const BUFFER: usize = 1024 * 1024;

/// What each part of a group read in step contributes to one step. Small enough that a group's
/// pieces (sixteen for the AVX-512 lanes: 1 MiB) stay in the core's L2 cache from the read that
/// copies them to the lanes that hash them; with 1 MiB a part, a group's 16 MiB went out to
/// memory and back in between. On a Xeon with AVX-512, 1 GiB in 8 MiB parts: CPU time for the
/// COMPOSITE SHA-256 value down 11%, for the CRC64NVME value with the ETag's part MD5s 19%.
/// A whole number of blocks of every lane algorithm, as the lanes require.
const STEP_PIECE: usize = 64 * 1024;

/// One part's checksum by each algorithm, in the algorithms' order.
pub(crate) struct PartDigest {
    pub digests: Vec<Digest>,
    pub len: u64,
}

/// Where the parts come from: the file, and its mapping when the lanes hash it in place.
struct Source<'a> {
    file: &'a File,
    mapping: Option<&'a Mapping>,
}

/// The parts of a `size`-byte file cut every `part_size` bytes (an empty file is one empty
/// part), each hashed with every one of `algorithms`, in part order.
pub(crate) fn hash_parts(
    file: &File,
    size: u64,
    part_size: u64,
    algorithms: &[Algorithm],
    read: &ReadOptions,
) -> io::Result<Vec<PartDigest>> {
    use rayon::prelude::*;
    let count = part_count(size, part_size);
    let engines: Vec<&'static Engine> = algorithms.iter().map(|&a| table::chosen(a)).collect();
    if let Some(group) = group_size(count, &engines) {
        let mapping = match read.mmap.maps(size) {
            true => Mapping::new(file, size)?,
            false => None,
        };
        let source = Source {
            file,
            mapping: mapping.as_ref(),
        };
        let groups: Vec<u64> = (0..count).step_by(group).collect();
        let hashed: Vec<Vec<PartDigest>> = groups
            .into_par_iter()
            .map(|first| {
                let parts = first..(first + group as u64).min(count);
                hash_group(&source, parts, size, part_size, &engines)
            })
            .collect::<io::Result<_>>()?;
        crate::io::read::count(size as usize);
        return Ok(hashed.into_iter().flatten().collect());
    }
    let hashed = (0..count)
        .into_par_iter()
        .map(|index| {
            let (start, end) = part_range(index, size, part_size);
            hash_range(file, start, end, algorithms)
        })
        .collect();
    // `--stats` and the bar count what was read, once a file (a part is read once whatever
    // the number of algorithms).
    crate::io::read::count(size as usize);
    hashed
}

/// Where part `index` starts and ends.
fn part_range(index: u64, size: u64, part_size: u64) -> (u64, u64) {
    let start = index * part_size;
    (start, (start + part_size).min(size))
}

/// How many parts a task hashes in step, when lanes pay: the narrowest lane engine's width, at
/// least four parts busy, and a group for every thread.
fn group_size(count: u64, engines: &[&Engine]) -> Option<usize> {
    let width = engines
        .iter()
        .filter_map(|engine| engine.lanes.map(|lanes| lanes.width))
        .min()?;
    let per_thread = count / rayon::current_num_threads().max(1) as u64;
    (per_thread >= 4).then(|| per_thread.min(width as u64) as usize)
}

/// One checksum of every part of a group: side by side in lanes when the engine has them,
/// else one streaming state a part.
enum GroupState {
    Lanes(Box<dyn Stepped>),
    Each(Vec<Hasher>),
}

impl GroupState {
    fn new(engine: &'static Engine, parts: usize) -> GroupState {
        match table::checked_lanes(engine) {
            Some(lanes) if parts <= lanes.width => GroupState::Lanes((lanes.stepped)()),
            _ => GroupState::Each((0..parts).map(|_| engine.hasher()).collect()),
        }
    }

    /// Pieces of every part, all the same length.
    fn update(&mut self, pieces: &[&[u8]]) {
        match self {
            GroupState::Lanes(stepped) => stepped.update(pieces),
            GroupState::Each(hashers) => {
                for (hasher, piece) in hashers.iter_mut().zip(pieces) {
                    hasher.update(piece);
                }
            }
        }
    }

    /// Every part's digest after its last pieces (any length: the lanes hash whole blocks of
    /// them in step and pad the rest).
    fn finish(self, pieces: &[&[u8]]) -> Vec<Digest> {
        match self {
            GroupState::Lanes(stepped) => stepped.finish(pieces),
            GroupState::Each(hashers) => hashers
                .into_iter()
                .zip(pieces)
                .map(|(mut hasher, piece)| {
                    hasher.update(piece);
                    hasher.finalize()
                })
                .collect(),
        }
    }
}

/// Parts read in step and hashed side by side; a part shorter than the others (the last one)
/// is hashed on its own.
fn hash_group(
    source: &Source,
    parts: Range<u64>,
    size: u64,
    part_size: u64,
    engines: &[&'static Engine],
) -> io::Result<Vec<PartDigest>> {
    let ranges: Vec<(u64, u64)> = parts
        .map(|index| part_range(index, size, part_size))
        .collect();
    let full = ranges
        .iter()
        .take_while(|(s, e)| e - s == part_size)
        .count();
    let mut results = hash_in_step(source, &ranges[..full], part_size, engines)?;
    let algorithms: Vec<Algorithm> = engines.iter().map(|engine| engine.algorithm).collect();
    for &(start, end) in &ranges[full..] {
        results.push(hash_range(source.file, start, end, &algorithms)?);
    }
    Ok(results)
}

/// Parts of exactly `part_size` bytes, taken piece by piece in step: from the mapping, whose
/// pages are dropped once the group is hashed (resident memory stays at the groups in hand,
/// and each core tears down its own), or read.
fn hash_in_step(
    source: &Source,
    ranges: &[(u64, u64)],
    part_size: u64,
    engines: &[&'static Engine],
) -> io::Result<Vec<PartDigest>> {
    if ranges.is_empty() {
        return Ok(Vec::new());
    }
    let mut states: Vec<GroupState> = engines
        .iter()
        .map(|engine| GroupState::new(engine, ranges.len()))
        .collect();
    let mut buffers: Vec<Vec<u8>> = match source.mapping {
        Some(_) => Vec::new(),
        None => ranges
            .iter()
            .map(|_| vec![0u8; STEP_PIECE.min(part_size as usize)])
            .collect(),
    };
    let mut offset = 0u64;
    loop {
        // STEP_PIECE is whole blocks, so only the last piece can end in a partial block.
        let want = STEP_PIECE.min((part_size - offset) as usize);
        let pieces: Vec<&[u8]> = match source.mapping {
            Some(mapping) => ranges
                .iter()
                .map(|&(start, _)| &mapping.bytes()[(start + offset) as usize..][..want])
                .collect(),
            None => {
                for (buffer, &(start, _)) in buffers.iter_mut().zip(ranges) {
                    source
                        .file
                        .read_exact_at(&mut buffer[..want], start + offset)
                        .map_err(|e| match e.kind() {
                            io::ErrorKind::UnexpectedEof => changed_error(),
                            _ => e,
                        })?;
                }
                buffers.iter().map(|buffer| &buffer[..want]).collect()
            }
        };
        offset += want as u64;
        if offset < part_size {
            for state in &mut states {
                state.update(&pieces);
            }
            continue;
        }
        let by_engine: Vec<Vec<Digest>> = states
            .into_iter()
            .map(|state| state.finish(&pieces))
            .collect();
        if let Some(mapping) = source.mapping {
            for &(start, end) in ranges {
                mapping.release(start as usize..end as usize);
            }
            // A page that could not be read (the file shrank, or the device failed) reads as
            // zeros. Every read of the mapping is in a group, so this check after each group
            // is the one that reports it.
            if let Some(error) = fault_error(source.file, mapping.fault()) {
                return Err(error);
            }
        }
        return Ok((0..ranges.len())
            .map(|index| PartDigest {
                digests: by_engine.iter().map(|digests| digests[index]).collect(),
                len: part_size,
            })
            .collect());
    }
}

/// How many parts a `size`-byte object has when cut every `part_size` bytes.
pub(crate) fn part_count(size: u64, part_size: u64) -> u64 {
    if size == 0 {
        1
    } else {
        size.div_ceil(part_size.max(1))
    }
}

fn hash_range(
    file: &File,
    start: u64,
    end: u64,
    algorithms: &[Algorithm],
) -> io::Result<PartDigest> {
    let mut hashers: Vec<Hasher> = algorithms.iter().map(|&a| Hasher::new(a)).collect();
    let mut buffer = vec![0u8; BUFFER.min((end - start) as usize).max(1)];
    let mut at = start;
    while at < end {
        let want = ((end - at) as usize).min(buffer.len());
        let read = match file.read_at(&mut buffer[..want], at) {
            Ok(0) => return Err(changed_error()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        for hasher in &mut hashers {
            hasher.update(&buffer[..read]);
        }
        at += read as u64;
    }
    Ok(PartDigest {
        digests: hashers.into_iter().map(Hasher::finalize).collect(),
        len: end - start,
    })
}
