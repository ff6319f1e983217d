//! Every text that goes in or out: digest lines (GNU untagged, BSD tagged), name escaping,
//! the quoting of names in messages, and manifest parsing for `--check`.
//!
//! Formatters write to a `&mut impl Write` and never print on their own, so each one is tested
//! on a buffer.

pub mod escape;
pub mod kernels;
pub mod line;
pub mod manifest;
pub mod messages;
pub mod quote;
pub mod status;

pub use line::{DigestEncoding, LineStyle};
