//! One digest line: GNU untagged (`DIGEST  NAME`, `DIGEST *NAME`) or BSD tagged
//! (`TAG (NAME) = DIGEST`), hex or base64, newline or NUL terminated.

use super::escape::{escape_name, needs_escape};
use crate::kernels::{Algorithm, Digest};
use std::io::{self, Write};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DigestEncoding {
    Hex,
    Base64,
}

impl DigestEncoding {
    pub fn encode(self, digest: &Digest) -> String {
        match self {
            DigestEncoding::Hex => digest.to_hex(),
            DigestEncoding::Base64 => digest.to_base64(),
        }
    }
}

/// How digest lines are written; resolved once from the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineStyle {
    /// BSD style `TAG (NAME) = DIGEST`.
    pub tagged: bool,
    /// `DIGEST *NAME` (untagged only).
    pub binary: bool,
    /// `-z`: lines end with NUL and names are not escaped.
    pub zero_terminated: bool,
    pub encoding: DigestEncoding,
    /// False for `--no-names`: the digest alone.
    pub with_names: bool,
    pub dialect: LineDialect,
}

/// Whose lines these are, where the programs differ beyond the options they share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineDialect {
    /// coreutils' (and fasthash's): names as bytes, GNU escaping.
    Gnu,
    /// b3sum's: names through a lossy UTF-8 conversion, then GNU escaping.
    B3sum,
    /// xxhsum's: `XXH3_` before untagged XXH3 digests; with `--little-endian`, digests in
    /// little-endian byte order and `_LE` after tags.
    Xxhsum { little_endian: bool },
}

impl Default for LineStyle {
    fn default() -> Self {
        LineStyle {
            tagged: false,
            binary: false,
            zero_terminated: false,
            encoding: DigestEncoding::Hex,
            with_names: true,
            dialect: LineDialect::Gnu,
        }
    }
}

impl LineStyle {
    pub(crate) fn terminator(&self) -> u8 {
        super::line_end(self.zero_terminated)
    }
}

/// How a legacy checksum's line ends, and whether it names the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SumStyle {
    /// cksum and sum name the file only when files were named on the command line.
    pub with_names: bool,
    pub zero_terminated: bool,
}

/// Writes one line for `name` (raw bytes) hashed with `algorithm`, a digest that is not a
/// legacy checksum (those are [`write_sum_line`]'s).
pub fn write_digest_line(
    out: &mut impl Write,
    style: &LineStyle,
    algorithm: Algorithm,
    digest: &Digest,
    name: &[u8],
) -> io::Result<()> {
    let little_endian = style.dialect
        == LineDialect::Xxhsum {
            little_endian: true,
        };
    let encoded = if little_endian {
        let mut reversed = digest.as_bytes().to_vec();
        reversed.reverse();
        style.encoding.encode(&Digest::from_slice(&reversed))
    } else {
        style.encoding.encode(digest)
    };
    if !style.with_names {
        out.write_all(encoded.as_bytes())?;
        return out.write_all(&[style.terminator()]);
    }
    let lossy;
    let name = if style.dialect == LineDialect::B3sum {
        lossy = String::from_utf8_lossy(name);
        lossy.as_bytes()
    } else {
        name
    };
    let escape = !style.zero_terminated && needs_escape(name);
    let shown_name = if escape {
        escape_name(name)
    } else {
        name.into()
    };
    if escape {
        out.write_all(b"\\")?;
    }
    if style.tagged {
        out.write_all(algorithm.bsd_tag().as_bytes())?;
        if little_endian {
            out.write_all(b"_LE")?;
        }
        out.write_all(b" (")?;
        out.write_all(&shown_name)?;
        out.write_all(b") = ")?;
        out.write_all(encoded.as_bytes())?;
    } else {
        if algorithm == Algorithm::Xxh3 && matches!(style.dialect, LineDialect::Xxhsum { .. }) {
            out.write_all(b"XXH3_")?;
        }
        out.write_all(encoded.as_bytes())?;
        out.write_all(if style.binary { b" *" } else { b"  " })?;
        out.write_all(&shown_name)?;
    }
    out.write_all(&[style.terminator()])
}

/// A line of cksum's and sum's legacy checksums, in decimal beside the size, as they print
/// them: `CRC SIZE NAME` (cksum), `CHECKSUM BLOCKS NAME` with 1 KiB blocks, the checksum in
/// five digits and the blocks in a field of five (BSD `sum`), `CHECKSUM BLOCKS NAME` with
/// 512-byte blocks (System V). Blocks are rounded up. The name is printed as it is, never
/// escaped, and only when files were named on the command line (`with_names`).
pub(crate) fn write_sum_line(
    out: &mut impl Write,
    style: &SumStyle,
    algorithm: Algorithm,
    digest: &Digest,
    name: &[u8],
) -> io::Result<()> {
    let (value, size) = crate::kernels::sum_and_size(digest);
    let text = match algorithm {
        Algorithm::Bsd => format!("{value:05} {:>5}", size.div_ceil(1024)),
        Algorithm::Sysv => format!("{value} {}", size.div_ceil(512)),
        _ => format!("{value} {size}"),
    };
    out.write_all(text.as_bytes())?;
    if style.with_names {
        out.write_all(b" ")?;
        out.write_all(name)?;
    }
    out.write_all(&[super::line_end(style.zero_terminated)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::hash;

    fn line(style: LineStyle, name: &[u8]) -> Vec<u8> {
        let digest = hash(Algorithm::Md5, b"");
        let mut out = Vec::new();
        write_digest_line(&mut out, &style, Algorithm::Md5, &digest, name).unwrap();
        out
    }

    const EMPTY_MD5: &str = "d41d8cd98f00b204e9800998ecf8427e";

    #[test]
    fn untagged_text_and_binary() {
        let text = line(LineStyle::default(), b"f");
        assert_eq!(text, format!("{EMPTY_MD5}  f\n").into_bytes());
        let binary = LineStyle {
            binary: true,
            ..LineStyle::default()
        };
        assert_eq!(line(binary, b"f"), format!("{EMPTY_MD5} *f\n").into_bytes());
    }

    #[test]
    fn tagged_escaped_name_gets_leading_backslash() {
        let tagged = LineStyle {
            tagged: true,
            ..LineStyle::default()
        };
        assert_eq!(
            line(tagged, b"a\nb"),
            format!("\\MD5 (a\\nb) = {EMPTY_MD5}\n").into_bytes()
        );
    }

    #[test]
    fn zero_terminated_names_are_not_escaped() {
        let zero = LineStyle {
            zero_terminated: true,
            ..LineStyle::default()
        };
        assert_eq!(
            line(zero, b"a\nb"),
            format!("{EMPTY_MD5}  a\nb\0").into_bytes()
        );
    }

    #[test]
    fn base64_and_no_names() {
        let style = LineStyle {
            encoding: DigestEncoding::Base64,
            with_names: false,
            ..LineStyle::default()
        };
        assert_eq!(line(style, b"f"), b"1B2M2Y8AsgTpgAmY7PhCfg==\n");
    }

    #[test]
    fn lossy_names_replace_invalid_utf8() {
        let style = LineStyle {
            dialect: LineDialect::B3sum,
            ..LineStyle::default()
        };
        assert_eq!(
            line(style, b"\xff"),
            format!("{EMPTY_MD5}  \u{fffd}\n").into_bytes()
        );
    }

    #[test]
    fn xxhsum_lines_mark_xxh3_and_little_endian() {
        let digest = hash(Algorithm::Xxh3, b"");
        let xxhsum = |little_endian, tagged| {
            let style = LineStyle {
                tagged,
                dialect: LineDialect::Xxhsum { little_endian },
                ..LineStyle::default()
            };
            let mut out = Vec::new();
            write_digest_line(&mut out, &style, Algorithm::Xxh3, &digest, b"a\nb").unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(xxhsum(false, false), "\\XXH3_2d06800538d394c2  a\\nb\n");
        assert_eq!(xxhsum(true, false), "\\XXH3_c294d3380580062d  a\\nb\n");
        assert_eq!(xxhsum(true, true), "\\XXH3_LE (a\\nb) = c294d3380580062d\n");
    }
}
