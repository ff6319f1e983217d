//! What hashing writes for each file, chosen once from the command line (`config`) and
//! written by one `match` ([`Output::write_record`]): digest lines, cksum's and sum's legacy
//! lines, cksum's raw bytes, or a JSON object.

use super::hash_json::write_hash_object;
use super::line::{write_digest_line, write_sum_line, DigestEncoding, LineStyle, SumStyle};
use crate::kernels::{Algorithm, Digest};
use std::io::{self, Write};

/// The shape of a hashing run's output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// Digest lines, a line per algorithm: GNU untagged, BSD tagged, b3sum's or xxhsum's.
    Lines(LineStyle),
    /// cksum's and sum's legacy checksums, in decimal beside the size (one algorithm: a
    /// legacy checksum is never one of several).
    Sums(SumStyle),
    /// cksum's `--raw`: the digest's bytes alone, no name, no line end (one file).
    Raw,
    /// `--json`: one object a file, its size and every algorithm's digest so encoded.
    Json(DigestEncoding),
}

impl Output {
    /// Writes what one file's digests print as: for lines, each the line a run with that
    /// algorithm alone prints, in order.
    pub fn write_record<'a>(
        &self,
        out: &mut impl Write,
        name: &[u8],
        size: u64,
        digests: impl IntoIterator<Item = (Algorithm, &'a Digest)>,
    ) -> io::Result<()> {
        match self {
            Output::Lines(style) => digests.into_iter().try_for_each(|(algorithm, digest)| {
                write_digest_line(out, style, algorithm, digest, name)
            }),
            Output::Sums(style) => digests.into_iter().try_for_each(|(algorithm, digest)| {
                write_sum_line(out, style, algorithm, digest, name)
            }),
            Output::Raw => digests
                .into_iter()
                .try_for_each(|(algorithm, digest)| write_raw(out, algorithm, digest)),
            Output::Json(encoding) => write_hash_object(out, name, size, digests, *encoding),
        }
    }

    /// Whether a record needs the file's size beside its digests (the JSON object has it; a
    /// legacy checksum carries its own).
    pub fn needs_size(&self) -> bool {
        matches!(self, Output::Json(_))
    }

    /// The byte standard output's records end in (`--stats` and the shard header too).
    pub fn line_end(&self) -> u8 {
        match self {
            Output::Lines(style) => style.terminator(),
            Output::Sums(style) => super::line_end(style.zero_terminated),
            // JSON refuses -z, and raw bytes end in nothing.
            Output::Raw | Output::Json(_) => b'\n',
        }
    }
}

/// A digest's bytes as cksum `--raw` writes them: a legacy checksum's value alone, big-endian,
/// without the size the digest carries.
fn write_raw(out: &mut impl Write, algorithm: Algorithm, digest: &Digest) -> io::Result<()> {
    let bytes = digest.as_bytes();
    let value = match algorithm.info().with_size {
        true => &bytes[..bytes.len() - 8],
        false => bytes,
    };
    out.write_all(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::hash;

    fn record(output: Output, algorithm: Algorithm) -> Vec<u8> {
        let digest = hash(algorithm, b"abc");
        let mut out = Vec::new();
        output
            .write_record(&mut out, b"f", 3, [(algorithm, &digest)])
            .unwrap();
        out
    }

    #[test]
    fn each_output_writes_its_own_record() {
        let lines = record(Output::Lines(LineStyle::default()), Algorithm::Md5);
        assert_eq!(lines, b"900150983cd24fb0d6963f7d28e17f72  f\n");
        let sums = SumStyle {
            with_names: true,
            zero_terminated: false,
        };
        // cksum's CRC of "abc" and its size, as `printf abc | cksum` prints them.
        assert_eq!(
            record(Output::Sums(sums), Algorithm::Crc),
            b"1219131554 3 f\n"
        );
        assert_eq!(
            record(Output::Raw, Algorithm::Crc),
            1219131554u32.to_be_bytes()
        );
        let md5_raw = record(Output::Raw, Algorithm::Md5);
        assert_eq!(md5_raw, hash(Algorithm::Md5, b"abc").as_bytes());
        let json = record(Output::Json(DigestEncoding::Hex), Algorithm::Md5);
        let object: serde_json::Value = serde_json::from_slice(&json).unwrap();
        assert_eq!(object["size"], 3);
        assert_eq!(object["digests"]["md5"], "900150983cd24fb0d6963f7d28e17f72");
    }

    #[test]
    fn only_json_needs_the_size_and_only_lines_and_sums_end_as_told() {
        let zero = LineStyle {
            zero_terminated: true,
            ..LineStyle::default()
        };
        assert_eq!(Output::Lines(zero).line_end(), b'\0');
        assert!(Output::Json(DigestEncoding::Base64).needs_size());
        assert!(!Output::Lines(zero).needs_size());
        assert_eq!(Output::Raw.line_end(), b'\n');
    }
}
