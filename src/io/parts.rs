//! Hashing a file as S3 sees a multipart upload: each part hashed on its own (rayon, one task
//! a part, reading its range with `pread`), optionally with its MD5 for the ETag in the same
//! pass. Memory stays at one buffer a thread whatever the part size.

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
    (0..count)
        .into_par_iter()
        .map(|index| {
            let start = index * part_size;
            let end = (start + part_size).min(size);
            hash_range(file, start, end, algorithm, with_md5)
        })
        .collect()
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
