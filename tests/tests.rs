//! The integration tests: one crate, linked once, with a module per area (the layout of
//! ripgrep's tests). `common` runs fasthash and its peers and holds the known answers.

mod common;

mod audit;
mod b3sum;
mod cache;
mod check;
mod check_stream;
mod cksum;
mod cli;
mod compat;
mod errors;
mod generated;
mod hostile;
mod json;
mod kernels;
mod known_answers;
mod manifest_props;
mod multi;
mod options;
mod paths;
mod pipeline;
mod progress;
mod readme;
mod s3;
mod s3_bucket;
mod shards;
mod xxhsum;
