//! Amazon S3's checksums: what S3 stores for a file uploaded whole or in parts, what the
//! common clients make it store, and the comparison of a local file with what S3 reports.
//! The rules and their sources: `../shared/S3.md` (copied in `docs/s3.md`).
//!
//! - `rules`: S3's limits, what an upload is, part sizes (typed and the clients' own);
//! - `presets`: how the AWS CLI and boto3 upload a file of a given size;
//! - `options`: the S3 options of a command line, resolved and checked;
//! - `parts`: cutting a file into parts and hashing each;
//! - `values`: the checksums and ETags S3 stores, from a file or standard input;
//! - `format`: the lines, headers and JSON printed for them;
//! - `reported`: what S3 reports of an object (HeadObject's headers, the AWS CLI's JSON);
//! - `verify`: `--verify-s3`, a file against what S3 reported;
//! - `location`: `s3://BUCKET/KEY` and `s3://BUCKET/PREFIX/`;
//! - `client` (feature `s3`): HeadObject and ListObjectsV2 through the AWS SDK;
//! - `bucket`: `--verify-s3 s3://BUCKET/PREFIX/ DIR`, a tree against the objects under a prefix.

pub mod bucket;
#[cfg(feature = "s3")]
pub(crate) mod client;
// Without the feature, a client that cannot be made: the code that would use one still
// compiles and is tested, and asking S3 ends in one clear refusal.
#[cfg(not(feature = "s3"))]
#[path = "no_client.rs"]
pub(crate) mod client;
pub mod format;
pub mod location;
pub mod options;
pub mod parts;
pub mod presets;
pub(crate) mod reported;
pub mod rules;
pub mod values;
pub mod verify;

pub(crate) use rules::parse_size;
