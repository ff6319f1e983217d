//! Hashing a file as S3 sees a multipart upload: each part hashed on its own (rayon, one task
//! a part, reading its range with `pread`), optionally with its MD5 for the ETag in the same
//! pass. Memory stays at one buffer a thread whatever the part size, or eight when the part
//! MD5s run side by side (eight parts read in step into AVX2 lanes).

#[cfg(target_arch = "x86_64")]
use crate::kernels::{detect, Kernel};
use crate::kernels::{Algorithm, Digest, Hasher};
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

const BUFFER: usize = 1024 * 1024;

/// One part's checksum, and its MD5 when asked for.
pub struct PartDigest {
    pub digest: Digest,
    pub md5: Option<Digest>,
    pub len: u64,
}

/// The parts of a `size`-byte file cut every `part_size` bytes (an empty file is one empty
/// part), each hashed with `algorithm` (and MD5 when `with_md5`), in part order.
pub fn hash_parts(
    file: &File,
    size: u64,
    part_size: u64,
    algorithm: Algorithm,
    with_md5: bool,
) -> io::Result<Vec<PartDigest>> {
    use rayon::prelude::*;
    let count = part_count(size, part_size);
    #[cfg(target_arch = "x86_64")]
    if let Some(group) = md5_group_size(count, with_md5) {
        let groups: Vec<u64> = (0..count).step_by(group).collect();
        let hashed: Vec<Vec<PartDigest>> = groups
            .into_par_iter()
            .map(|first| {
                let parts = first..(first + group as u64).min(count);
                hash_group(file, parts, size, part_size, algorithm)
            })
            .collect::<io::Result<_>>()?;
        return Ok(hashed.into_iter().flatten().collect());
    }
    (0..count)
        .into_par_iter()
        .map(|index| {
            let (start, end) = part_range(index, size, part_size);
            hash_range(file, start, end, algorithm, with_md5)
        })
        .collect()
}

/// Where part `index` starts and ends.
fn part_range(index: u64, size: u64, part_size: u64) -> (u64, u64) {
    let start = index * part_size;
    (start, (start + part_size).min(size))
}

/// How many parts a task hashes in step, when MD5 lanes pay: at least four busy, and a group
/// for every thread.
#[cfg(target_arch = "x86_64")]
fn md5_group_size(count: u64, with_md5: bool) -> Option<usize> {
    if !with_md5 || detect::chosen(Algorithm::Md5) != Kernel::Avx2 {
        return None;
    }
    let per_thread = count / rayon::current_num_threads().max(1) as u64;
    (per_thread >= 4).then(|| per_thread.min(8) as usize)
}

/// Parts read in step, their MD5s in AVX2 lanes; a group with a part shorter than the others
/// (the last one) hashes its parts one by one.
#[cfg(target_arch = "x86_64")]
fn hash_group(
    file: &File,
    parts: std::ops::Range<u64>,
    size: u64,
    part_size: u64,
    algorithm: Algorithm,
) -> io::Result<Vec<PartDigest>> {
    use crate::kernels::md5_lanes::Md5Lanes;
    let ranges: Vec<(u64, u64)> = parts
        .map(|index| part_range(index, size, part_size))
        .collect();
    let lanes = Md5Lanes::new().filter(|_| ranges.len() <= Md5Lanes::LANES);
    let (Some(mut lanes), true) = (lanes, ranges.iter().all(|(s, e)| e - s == part_size)) else {
        return ranges
            .iter()
            .map(|&(start, end)| hash_range(file, start, end, algorithm, true))
            .collect();
    };
    let mut hashers: Vec<Hasher> = ranges.iter().map(|_| Hasher::new(algorithm)).collect();
    let mut buffers: Vec<Vec<u8>> = ranges
        .iter()
        .map(|_| vec![0u8; BUFFER.min(part_size as usize)])
        .collect();
    let mut tails: Vec<Vec<u8>> = vec![Vec::new(); ranges.len()];
    let mut offset = 0u64;
    while offset < part_size {
        // BUFFER is whole blocks, so only the last piece can end in a partial block.
        let want = BUFFER.min((part_size - offset) as usize);
        for ((buffer, hasher), &(start, _)) in buffers.iter_mut().zip(&mut hashers).zip(&ranges) {
            file.read_exact_at(&mut buffer[..want], start + offset)
                .map_err(|e| match e.kind() {
                    io::ErrorKind::UnexpectedEof => super::read::changed_error(),
                    _ => e,
                })?;
            hasher.update(&buffer[..want]);
        }
        let whole = want / 64 * 64;
        let pieces: Vec<&[u8]> = buffers.iter().map(|buffer| &buffer[..whole]).collect();
        lanes.update(&pieces);
        for (tail, buffer) in tails.iter_mut().zip(&buffers) {
            tail.clear();
            tail.extend_from_slice(&buffer[whole..want]);
        }
        offset += want as u64;
    }
    Ok(hashers
        .into_iter()
        .zip(tails)
        .enumerate()
        .map(|(lane, (hasher, tail))| PartDigest {
            digest: hasher.finalize(),
            md5: Some(Digest::from_slice(&lanes.finalize(lane, &tail))),
            len: part_size,
        })
        .collect())
}

/// How many parts a `size`-byte object has when cut every `part_size` bytes.
pub fn part_count(size: u64, part_size: u64) -> u64 {
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
    algorithm: Algorithm,
    with_md5: bool,
) -> io::Result<PartDigest> {
    let mut hasher = Hasher::new(algorithm);
    let mut md5 = with_md5.then(|| Hasher::new(Algorithm::Md5));
    let mut buffer = vec![0u8; BUFFER.min((end - start) as usize).max(1)];
    let mut at = start;
    while at < end {
        let want = ((end - at) as usize).min(buffer.len());
        let read = match file.read_at(&mut buffer[..want], at) {
            Ok(0) => return Err(super::read::changed_error()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buffer[..read]);
        if let Some(md5) = md5.as_mut() {
            md5.update(&buffer[..read]);
        }
        at += read as u64;
    }
    Ok(PartDigest {
        digest: hasher.finalize(),
        md5: md5.map(Hasher::finalize),
        len: end - start,
    })
}
