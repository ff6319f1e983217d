//! Several algorithms over one read (`-a md5,sha256`, `--json`, S3's values with the ETag):
//! each input is read once, and every algorithm hashes the same bytes.
//!
//! - A large file is mapped (or read) once; each window or buffer goes to every algorithm's
//!   hasher, the hashers side by side on the pool when one file may use several threads.
//! - A batch of small files is read whole into memory, one read each, and each algorithm then
//!   hashes the whole batch, side by side in its lanes where its engine has them (as the one
//!   algorithm path does with the files it pulls).
//! - Standard input and pipes stream once through every hasher.
//!
//! One algorithm alone keeps its own paths in `read` (lanes pulling files, a large CRC or
//! BLAKE3 split on every core).

use super::batch::{
    bytes_known, finish_batch, hash_each, in_order, join_on, open_batch, where_to_hash, Batch, On,
    Source,
};
use super::cache::Cache;
use super::large::feed_mapping;
use super::mapped::Mapping;
use super::open::Ahead;
use super::read::{changed, changed_error, count, feed_reader, Hashing, MmapChoice, ReadOptions};
use super::Input;
use crate::kernels::{table, Algorithm, Digest, Hasher};
use std::fs::{File, Metadata};
use std::io::{self, Read};

/// What one read gave: the bytes read, and a digest per algorithm, in the algorithms' order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Hashed {
    pub size: u64,
    pub digests: Vec<Digest>,
}

/// Every algorithm of a list over one read of each input.
pub(crate) struct Several<'a> {
    algorithms: &'a [Algorithm],
    /// Whether the hashers of one file may run side by side on the pool (not under `-j 1`).
    parallel: bool,
}

impl<'a> Several<'a> {
    pub(crate) fn new(algorithms: &'a [Algorithm], options: &ReadOptions) -> Several<'a> {
        Several {
            algorithms,
            parallel: options.split_files,
        }
    }

    fn hashers(&self) -> Hashers {
        Hashers {
            hashers: self.algorithms.iter().map(|&a| Hasher::new(a)).collect(),
            parallel: self.parallel,
            size: 0,
        }
    }

    /// How many inputs a batch holds: enough for the widest lanes among the algorithms to be
    /// kept busy; one when none has lanes (nothing is gained by holding files in memory).
    pub(crate) fn batch_size(&self) -> usize {
        self.algorithms
            .iter()
            .map(|&a| table::chosen(a).batch_size())
            .max()
            .unwrap_or(1)
    }
}

/// A streaming state for each algorithm, fed the same bytes.
struct Hashers {
    hashers: Vec<Hasher>,
    parallel: bool,
    size: u64,
}

/// Below this, handing the hashers to the pool costs more than it saves.
const PARALLEL_FROM: usize = 64 * 1024;

impl Hashers {
    fn update(&mut self, bytes: &[u8]) {
        use rayon::prelude::*;
        self.size += bytes.len() as u64;
        if self.parallel && bytes.len() >= PARALLEL_FROM {
            self.hashers
                .par_iter_mut()
                .for_each(|hasher| hasher.update(bytes));
        } else {
            for hasher in &mut self.hashers {
                hasher.update(bytes);
            }
        }
    }

    fn finalize(self) -> Hashed {
        Hashed {
            size: self.size,
            digests: self.hashers.into_iter().map(Hasher::finalize).collect(),
        }
    }
}

impl Hashing for Several<'_> {
    type Output = Hashed;

    fn reader(&self, reader: impl Read) -> io::Result<Hashed> {
        let mut hashers = self.hashers();
        feed_reader(reader, |bytes| hashers.update(bytes))?;
        Ok(hashers.finalize())
    }

    fn buffer(&self, bytes: &[u8]) -> Hashed {
        Hashed {
            size: bytes.len() as u64,
            digests: self
                .algorithms
                .iter()
                .map(|&a| crate::kernels::hash(a, bytes))
                .collect(),
        }
    }

    fn mapping(&self, mapping: &Mapping, file: &File, options: &ReadOptions) -> Hashed {
        let mut hashers = self.hashers();
        let mapped_only = options.mmap == MmapChoice::Always;
        feed_mapping(mapping, file, mapped_only, |window| hashers.update(window));
        hashers.finalize()
    }

    fn cached(&self, cache: &Cache, state: &Metadata) -> Option<Hashed> {
        Some(Hashed {
            size: state.len(),
            digests: cache.lookup_all(state, self.algorithms)?,
        })
    }

    fn remember(&self, cache: &Cache, state: &Metadata, hashed: &Hashed) {
        for (&algorithm, &digest) in self.algorithms.iter().zip(&hashed.digests) {
            cache.remember(state, algorithm, digest);
        }
    }
}

/// The most a batch holds in memory at once; the files past it are read the usual way.
const BATCH_MEMORY: u64 = 32 * 1024 * 1024;

/// Hashes several inputs, in order, each read once: small regular files whole into memory and
/// hashed there by every algorithm (in lanes where they pay), everything else one by one on
/// the pool, as [`super::read::hash_input_with`] does.
pub(crate) fn hash_inputs(
    inputs: &[&Input],
    mut ahead: Ahead,
    several: &Several,
    options: &ReadOptions,
) -> Vec<io::Result<Hashed>> {
    if let Some(results) = in_order(inputs, &mut ahead, several, options) {
        return results;
    }
    let Batch {
        mut results,
        mut states,
        opened,
        mut alone,
    } = open_batch(inputs, &mut ahead, several, true);
    let on = where_to_hash(|| bytes_known(&opened, &alone));
    // Small files read whole: their place and their bytes.
    let mut loaded: Vec<(usize, Vec<u8>)> = Vec::new();
    let mut held = 0;
    for (index, source, small) in opened {
        let (file, before) = match source {
            // Read whole by the open stage already (which counts nothing: what is hashed is).
            Source::Bytes(bytes) => {
                count(bytes.len());
                held += bytes.len() as u64;
                loaded.push((index, bytes));
                continue;
            }
            Source::File { file, before } => (file, before),
        };
        // `--mmap`: every file mapped, none read whole.
        match small.filter(|_| held < BATCH_MEMORY && options.mmap != MmapChoice::Always) {
            Some(before) => match read_whole(&file, &before) {
                Ok(Some(bytes)) => {
                    held += bytes.len() as u64;
                    loaded.push((index, bytes));
                }
                // Shorter than its size said (a file that shrank, one in /sys): the usual
                // way, from the start, which keeps it in the cache under its new state.
                Ok(None) => {
                    states[index] = None;
                    alone.push((index, None));
                }
                Err(error) => results[index] = Some(Err(error)),
            },
            None => alone.push((index, Some(Source::File { file, before }))),
        }
    }
    let (from_memory, hashed) = join_on(
        on,
        || hash_loaded(&loaded, several.algorithms, on),
        |on| hash_each(alone, inputs, several, options, on),
    );
    for ((index, _), hashed) in loaded.iter().zip(from_memory) {
        results[*index] = Some(Ok(hashed));
    }
    finish_batch(results, hashed, &states, several)
}

/// A small file's bytes, read once; `None` when it holds fewer than its size said. A file
/// that changed between its size and the end of the read is an error, as everywhere.
fn read_whole(file: &File, before: &Metadata) -> io::Result<Option<Vec<u8>>> {
    use std::os::unix::fs::FileExt;
    let mut bytes = vec![0; before.len() as usize];
    let first = loop {
        match file.read_at(&mut bytes, 0) {
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            result => break result?,
        }
    };
    // As `super::read` does: when one read(2) took the whole file, there was no "while" to
    // change during, and the file is not looked at again.
    if first < bytes.len() {
        match file.read_exact_at(&mut bytes[first..], first as u64) {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(error) => return Err(error),
        }
        if changed(before, &file.metadata()?) {
            return Err(changed_error());
        }
    }
    count(bytes.len());
    Ok(Some(bytes))
}

/// Files in memory hashed by every algorithm, each algorithm over all of them at once (side
/// by side in its lanes where they pay), the algorithms on the pool or all on this thread.
fn hash_loaded(loaded: &[(usize, Vec<u8>)], algorithms: &[Algorithm], on: On) -> Vec<Hashed> {
    use rayon::prelude::*;
    if loaded.is_empty() {
        return Vec::new();
    }
    let messages: Vec<&[u8]> = loaded.iter().map(|(_, bytes)| bytes.as_slice()).collect();
    let hash_all = |&algorithm: &Algorithm| crate::kernels::hash_many(algorithm, &messages);
    let by_algorithm: Vec<Vec<Digest>> = match on {
        On::Pool => algorithms.par_iter().map(hash_all).collect(),
        On::ThisThread => algorithms.iter().map(hash_all).collect(),
    };
    messages
        .iter()
        .enumerate()
        .map(|(index, message)| Hashed {
            size: message.len() as u64,
            digests: by_algorithm.iter().map(|digests| digests[index]).collect(),
        })
        .collect()
}
