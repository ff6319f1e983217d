//! What every mode that reads files shares, resolved once from the command line.

use super::parallel::Stages;
use super::read::ReadOptions;
use std::path::PathBuf;

/// What every mode that reads files shares: how they are read, and on how many threads.
#[derive(Clone, Debug)]
pub struct RunSettings {
    pub threads: usize,
    /// `--readers`: files opened and read ahead of the hashing threads at once.
    pub readers: usize,
    pub read: ReadOptions,
    /// `--debug`: name the kernels on standard error before hashing.
    pub debug: bool,
    /// `--cache FILE`: digests remembered across runs.
    pub cache: Option<PathBuf>,
    /// `--stats`: a closing line of counts, bytes, time and rate.
    pub stats: bool,
}

impl RunSettings {
    /// The pipeline's threads: one reader and one hashing thread (all of it on the caller's
    /// thread, item after item) when the inputs must be read in order.
    pub fn stages(&self, in_order: bool) -> Stages {
        match in_order {
            true => Stages {
                threads: 1,
                readers: 1,
            },
            false => Stages {
                threads: self.threads,
                readers: self.readers,
            },
        }
    }
}
