//! Every text that goes in or out: digest lines (GNU untagged, BSD tagged), name escaping,
//! the quoting of names and arguments in messages (by the locale's charset), and manifest
//! parsing for `--check`.
//!
//! Formatters write to a `&mut impl Write` and never print on their own, so each one is tested
//! on a buffer.

pub(crate) mod bench;
pub mod escape;
pub mod hash_json;
pub(crate) mod json;
pub mod kernels;
pub mod line;
pub mod locale;
pub mod manifest;
pub mod messages;
pub mod output;
pub mod progress;
pub mod quote;
pub(crate) mod shard_header;
pub mod status;
pub mod units;

pub use line::{DigestEncoding, LineDialect, LineStyle, SumStyle};
pub use output::Output;

/// The byte that ends a line, in and out: NUL under `-z` (and in `--files0-from` lists), a
/// newline otherwise. Only status lines (`format::status`) end in a newline whatever `-z` says.
pub fn line_end(zero_terminated: bool) -> u8 {
    if zero_terminated {
        b'\0'
    } else {
        b'\n'
    }
}
