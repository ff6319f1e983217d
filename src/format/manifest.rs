//! Parsing manifest lines for `--check`, from bytes, with no I/O.
//!
//! The grammar is coreutils' (`split_3` and `bsd_split_3` in `digest.c`): optional leading
//! blanks, an optional `\` that marks an escaped name, then either a BSD line
//! `TAG[ ](NAME)[ ]=[ ]DIGEST` (the name ends at the last `)`), or a GNU line
//! `DIGEST<blank>[ |*]NAME`. Under its own name fasthash also reads what other tools write:
//! any algorithm's tag in one manifest, xxhsum's `_LE` tags and `XXH3_` prefix, base64
//! digests, a UTF-8 byte-order mark, and untagged lines whose algorithm is told by the
//! digest's length.

use super::escape::unescape_name;
use crate::kernels::{Algorithm, Digest, ALGORITHMS};
use base64::engine::{general_purpose, DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine as _;
use std::sync::OnceLock;

/// Standard base64, read as coreutils reads it: the unused low bits of the last character need
/// not be zero (such a digest is well formed, but matches nothing: cksum compares the text).
const LENIENT_BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
);

/// What a manifest line may hold, resolved from the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    /// `-a`, or the drop-in name's algorithm: only its lines are proper.
    pub algorithm: Option<Algorithm>,
    /// fasthash's own extensions (see the module comment); off for the coreutils names.
    pub extensions: bool,
    /// The manifest is standard input, so a line naming `-` cannot be checked.
    pub manifest_is_stdin: bool,
    /// `b2sum -c`, `cksum -c -a sha2|sha3|blake2b` without `-l`: each line's length (its tag's,
    /// or its digest's) picks the member of `algorithm`'s family.
    pub any_length: bool,
    /// Digests in base64 as well as hex: fasthash's and cksum's. md5sum, sha*sum and b2sum read
    /// hex only (coreutils' `valid_digits` and the length count before it, in `src/cksum.c`,
    /// read base64 only `#if HASH_ALGO_CKSUM`); without `extensions`, it makes these cksum's
    /// rules, tags and lengths included (`LineParser::is_cksum`).
    pub base64: bool,
    /// Each manifest of a run picks its own layout (see [`LineParser::next_manifest`]):
    /// fasthash's choice. Under the coreutils names the first choice holds for the whole run.
    pub layout_per_manifest: bool,
}

/// One checkable line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub algorithm: Algorithm,
    pub expected: Digest,
    /// The file name, unescaped: raw bytes.
    pub name: Vec<u8>,
    /// The other readings of an untagged digest's length, tried in order when `algorithm`
    /// does not match (see [`readings_of_length`]).
    pub fallbacks: &'static [Algorithm],
}

/// What one line turned out to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// Empty, or a `#` comment: not counted at all.
    Skip,
    Entry(Entry),
    /// Not a checksum line this run can read.
    Improper,
}

/// Reads lines one after another; coreutils keeps state across lines (whether the manifest
/// uses the single-blank "reversed" layout, and cksum's current algorithm), and so does this.
pub struct LineParser {
    options: ParseOptions,
    single_blank_layout: Option<bool>,
    /// The algorithm `--warn` names in "improperly formatted ALGORITHM checksum line".
    type_name: Option<&'static str>,
    retag: Retag,
    /// Under `cksum -a sha2`, the tag (`SHA256`...) that every later line must carry.
    narrowed: Option<&'static str>,
}

/// How `cksum -c` changes its current algorithm as it meets tagged lines. cksum keeps one
/// algorithm in a global: without `-a`, each line whose tag it knows (other than the legacy
/// checksums' `BSD`, `SYSV`, `CRC`, `CRC32B`) makes it that line's algorithm, even when the
/// rest of the line turns out malformed, and the next malformed line is reported under it;
/// with `-a sha2`, the first `SHA224`..`SHA512` tag makes it that member for good, so later
/// lines of another member, or tagged `SHA2-NNN`, are no longer read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Retag {
    Never,
    EveryTag,
    Sha2Family,
}

/// The cksum tag `s` starts with (the tags of cksum's `-a` names, in the algorithm table): up to 7 characters ended by a blank, `-`, `(` or the end.
fn cksum_tag_at(s: &[u8]) -> Option<&'static str> {
    let end = s
        .iter()
        .position(|&b| matches!(b, b' ' | b'\t' | b'-' | b'(' | 0))
        .unwrap_or(s.len());
    if end > 7 {
        return None;
    }
    crate::kernels::cksum_names()
        .iter()
        .map(|(name, _)| name.tag)
        .find(|tag| tag.as_bytes() == &s[..end])
}

/// How untagged digests are read by length, when nothing else says which algorithm: first the
/// common meaning of each length (sha256sum, sha512sum, sha1sum, md5sum, sha224sum, sha384sum,
/// xxhsum's default for 16 digits, the zlib CRC32 for 8), then every other algorithm of that
/// length, tried in turn when the ones before do not match, so that fasthash verifies every
/// manifest it writes, whatever the algorithm, without `-a`. A line then passes if the file
/// matches under any of its length's algorithms: for an MD5 manifest that includes XXH128,
/// which is not cryptographic, so `-a md5` (or a tagged line) is what pins a line to MD5 alone.
///
/// The algorithms an untagged digest of `digest_len` bytes is read as, in the order they are
/// tried (each row's `untagged` in the algorithm table); empty for a length that has no reading.
pub fn readings_of_length(digest_len: usize) -> &'static [Algorithm] {
    static BY_LENGTH: OnceLock<Vec<(usize, Vec<Algorithm>)>> = OnceLock::new();
    BY_LENGTH
        .get_or_init(readings_by_length)
        .iter()
        .find(|(len, _)| *len == digest_len)
        .map_or(&[], |(_, readings)| readings.as_slice())
}

fn readings_by_length() -> Vec<(usize, Vec<Algorithm>)> {
    let mut ranked: Vec<(usize, u8, Algorithm)> = ALGORITHMS
        .iter()
        .flat_map(|info| {
            info.untagged.iter().map(|&(len, rank)| {
                let member = info.algorithm.with_length(len).unwrap_or(info.algorithm);
                (len, rank, member)
            })
        })
        .collect();
    ranked.sort_by_key(|&(len, rank, _)| (len, rank));
    let mut by_length: Vec<(usize, Vec<Algorithm>)> = Vec::new();
    for (len, _, algorithm) in ranked {
        match by_length.last_mut() {
            Some((last, readings)) if *last == len => readings.push(algorithm),
            _ => by_length.push((len, vec![algorithm])),
        }
    }
    by_length
}

/// A BSD tag, with xxhsum's little-endian variants (`XXH64_LE`...).
fn lookup_tag(tag: &[u8]) -> Option<(Algorithm, bool)> {
    if let Some(base) = tag.strip_suffix(b"_LE") {
        return ALGORITHMS
            .iter()
            .find(|info| info.bsd_tag.as_bytes() == base && info.bsd_tag.starts_with("XXH"))
            .map(|info| (info.algorithm, true));
    }
    // cksum's legacy checksums have tags in its tables but no checkable lines.
    std::str::from_utf8(tag)
        .ok()
        .and_then(Algorithm::from_bsd_tag)
        .filter(|algorithm| !algorithm.info().with_size)
        .map(|algorithm| (algorithm, false))
}

/// A tag as coreutils reads it (`split_3`): the program's own tag (`own`), or without one any
/// of cksum's `-a` names' tags but the legacy checksums' (`BSD`, `SYSV`, `CRC`, `CRC32B`,
/// which have no checkable lines); then, where lengths vary (`lengths`), a `-` and a length,
/// read as C's `strtoimax` reads it in base 0 (`BLAKE2b-0x100` is `BLAKE2b-256`, a leading
/// 0 is octal).
fn coreutils_tag(text: &[u8], own: Option<&str>, lengths: bool) -> Option<Algorithm> {
    let (base, length) = match text.iter().position(|&b| b == b'-') {
        Some(dash) if lengths => (&text[..dash], Some(c_integer(&text[dash + 1..])?)),
        Some(_) => return None,
        None => (text, None),
    };
    let base = std::str::from_utf8(base).ok()?;
    let known = match own {
        Some(own) => own == base,
        None => crate::kernels::cksum_names()
            .iter()
            .any(|(name, _)| name.tag == base),
    };
    if !known {
        return None;
    }
    let algorithm = match length {
        Some(bits) => Algorithm::from_bsd_tag(&format!("{base}-{bits}"))?,
        None => Algorithm::from_bsd_tag(base)?,
    };
    (!algorithm.info().with_size).then_some(algorithm)
}

/// An unsigned number as C's `strtoimax(text, &end, 0)` reads it, where all of `text` must
/// be taken: decimal, `0x` hex or a leading-`0` octal, starting with a digit (no sign, no
/// blank); None past the signed 64-bit range, as `xstrtoimax` refuses it.
fn c_integer(text: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(text).ok()?;
    if !text.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let (digits, radix) = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => (hex, 16),
        None if text.len() > 1 && text.starts_with('0') => (&text[1..], 8),
        None => (text, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix)
        .ok()
        .filter(|&value| value <= i64::MAX as u64)
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn is_digest_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'='
}

/// Decodes a digest written in hex (either case) or standard base64 to exactly `len` bytes.
pub fn decode_digest(text: &[u8], len: usize) -> Option<Digest> {
    decode_hex_digest(text, len).or_else(|| decode_base64_digest(text, len))
}

/// Decodes a digest written in hex (either case) to exactly `len` bytes.
pub(crate) fn decode_hex_digest(text: &[u8], len: usize) -> Option<Digest> {
    if text.len() == len * 2 && text.iter().all(u8::is_ascii_hexdigit) {
        let bytes: Vec<u8> = text
            .chunks(2)
            .map(|pair| (hex_value(pair[0]) << 4) | hex_value(pair[1]))
            .collect();
        return Some(Digest::from_slice(&bytes));
    }
    None
}

/// Decodes a digest written in standard base64 to exactly `len` bytes.
fn decode_base64_digest(text: &[u8], len: usize) -> Option<Digest> {
    if text.len() == len.div_ceil(3) * 4 {
        let bytes = LENIENT_BASE64.decode(text).ok()?;
        if bytes.len() == len {
            if general_purpose::STANDARD.encode(&bytes).as_bytes() != text {
                // Not the encoding of any digest: an empty one, which no file's equals.
                return Some(Digest::from_slice(&[]));
            }
            return Some(Digest::from_slice(&bytes));
        }
    }
    None
}

fn hex_value(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        _ => b - b'A' + 10,
    }
}

/// The byte length a digest text stands for, hex first, then (if `base64`) base64.
fn digest_text_len(text: &[u8], base64: bool) -> Option<usize> {
    if !text.is_empty() && text.len().is_multiple_of(2) && text.iter().all(u8::is_ascii_hexdigit) {
        return Some(text.len() / 2);
    }
    if base64 && !text.is_empty() && text.len().is_multiple_of(4) {
        let decoded = LENIENT_BASE64.decode(text).ok()?;
        return Some(decoded.len());
    }
    None
}

impl LineParser {
    pub fn new(options: ParseOptions) -> LineParser {
        LineParser {
            options,
            single_blank_layout: None,
            type_name: options.algorithm.map(|a| a.info().bsd_tag),
            retag: Retag::Never,
            narrowed: None,
        }
    }

    /// Names malformed lines as cksum (or md5sum...) does: `type_name` at first, changed as
    /// `retag` says.
    pub fn with_type_name(mut self, type_name: Option<&'static str>, retag: Retag) -> LineParser {
        self.type_name = type_name;
        self.retag = retag;
        self
    }

    /// Readies the parser for the next manifest of the run (`manifest_is_stdin`: that one is
    /// standard input). coreutils decides the single-blank layout once, at the first untagged
    /// line of the run, and holds it over every manifest after (`bsd_reversed`, a static of
    /// `src/cksum.c` that nothing resets), as it holds cksum's algorithm; fasthash lets each
    /// manifest decide, with `layout_per_manifest` (docs/check.md says why).
    pub fn next_manifest(&mut self, manifest_is_stdin: bool) {
        self.options.manifest_is_stdin = manifest_is_stdin;
        if self.options.layout_per_manifest {
            self.single_blank_layout = None;
        }
    }

    /// What the last line parsed leaves as the algorithm `--warn` names.
    pub fn type_name(&self) -> Option<&'static str> {
        self.type_name
    }

    fn follow_tag(&mut self, rest: &[u8]) {
        let Some(tag) = cksum_tag_at(rest) else {
            return;
        };
        match self.retag {
            Retag::Never => {}
            Retag::EveryTag => {
                if !matches!(tag, "BSD" | "SYSV" | "CRC" | "CRC32B") {
                    self.type_name = Some(tag);
                }
            }
            Retag::Sha2Family => {
                let member = match tag {
                    "SHA224" => Algorithm::Sha224,
                    "SHA256" => Algorithm::Sha256,
                    "SHA384" => Algorithm::Sha384,
                    "SHA512" => Algorithm::Sha512,
                    _ => return,
                };
                self.type_name = Some(tag);
                self.narrowed = Some(tag);
                self.retag = Retag::Never;
                self.options.algorithm = Some(member);
                self.options.any_length = false;
            }
        }
    }

    /// Parses one line, its terminator (and a CR before a newline) already removed.
    pub fn parse(&mut self, line: &[u8]) -> Line {
        if line.is_empty() || line[0] == b'#' {
            return Line::Skip;
        }
        let mut i = line
            .iter()
            .position(|&b| !is_blank(b))
            .unwrap_or(line.len());
        if i == line.len() {
            // Blank characters only: coreutils finds no digest there.
            return Line::Improper;
        }
        let escaped = line[i] == b'\\';
        if escaped {
            i += 1;
        }
        let rest = &line[i..];
        self.follow_tag(rest);

        // A BSD line starts with a known tag followed by `(` or ` (`.
        let tag_end = rest
            .iter()
            .position(|&b| b == b' ' || b == b'(')
            .unwrap_or(rest.len());
        let tag = self.read_tag(&rest[..tag_end]).filter(|_| {
            self.narrowed
                .is_none_or(|t| t.as_bytes() == &rest[..tag_end])
        });
        if let Some((tag_algorithm, little_endian)) = tag {
            let after_tag = &rest[tag_end..];
            let after_tag = after_tag.strip_prefix(b" ").unwrap_or(after_tag);
            let Some(tagged) = after_tag.strip_prefix(b"(") else {
                // No name follows: coreutils reads the line again as an untagged one (a
                // base64 digest may start with a tag's letters).
                return self.parse_untagged(rest, escaped);
            };
            let allowed = match self.options.algorithm {
                Some(forced) => {
                    (forced == tag_algorithm
                        || (self.options.any_length
                            && forced.with_length(tag_algorithm.digest_len())
                                == Some(tag_algorithm)))
                        && !little_endian
                }
                None => self.options.extensions || !little_endian,
            } && (self.options.extensions || !little_endian);
            if !allowed {
                return Line::Improper;
            }
            return self.parse_tagged(tagged, escaped, tag_algorithm, little_endian);
        }
        self.parse_untagged(rest, escaped)
    }

    /// The algorithm a BSD line's tag (`text`, up to the blank or `(` after it) names, and
    /// whether it is one of xxhsum's little-endian `_LE` tags; None for a tag this run does
    /// not read.
    fn read_tag(&self, text: &[u8]) -> Option<(Algorithm, bool)> {
        if self.options.extensions {
            return lookup_tag(text);
        }
        coreutils_tag(text, self.own_tag(), self.reads_variable_lengths())
            .map(|algorithm| (algorithm, false))
    }

    /// The one tag the program reads, where it reads one only: md5sum's `MD5`, b2sum's
    /// `BLAKE2b`, and cksum's with `-a` of an algorithm that is not a family (coreutils'
    /// `DIGEST_TYPE_STRING`). None where cksum reads any of its tags.
    fn own_tag(&self) -> Option<&'static str> {
        match self.options.algorithm {
            Some(algorithm) if !(self.is_cksum() && self.options.any_length) => {
                Some(algorithm.info().bsd_tag)
            }
            _ => None,
        }
    }

    /// Whether the program reads digests of several lengths (b2sum, and cksum whatever its
    /// algorithm): coreutils builds them with a shortest line of three bytes, and with a
    /// length after a tag (`BLAKE2b-256`).
    fn reads_variable_lengths(&self) -> bool {
        self.is_cksum() || !self.options.extensions && self.options.any_length
    }

    /// Whether these are cksum's rules: of the coreutils programs only cksum reads base64, as
    /// one `#if HASH_ALGO_CKSUM` in coreutils' `src/cksum.c` decides both that and its tags.
    fn is_cksum(&self) -> bool {
        !self.options.extensions && self.options.base64
    }

    fn parse_tagged(
        &self,
        s: &[u8],
        escaped: bool,
        algorithm: Algorithm,
        little_endian: bool,
    ) -> Line {
        let Some(close) = s.iter().rposition(|&b| b == b')') else {
            return Line::Improper;
        };
        let Some(name) = self.name(&s[..close], escaped) else {
            return Line::Improper;
        };
        let mut j = close + 1;
        while j < s.len() && is_blank(s[j]) {
            j += 1;
        }
        if j == s.len() || s[j] != b'=' {
            return Line::Improper;
        }
        j += 1;
        while j < s.len() && is_blank(s[j]) {
            j += 1;
        }
        let Some(mut expected) = self.decode(&s[j..], algorithm) else {
            return Line::Improper;
        };
        if little_endian {
            let mut bytes = expected.as_bytes().to_vec();
            bytes.reverse();
            expected = Digest::from_slice(&bytes);
        }
        Line::Entry(Entry {
            algorithm,
            expected,
            name,
            fallbacks: &[],
        })
    }

    fn parse_untagged(&mut self, s: &[u8], escaped: bool) -> Line {
        let (s, prefixed_xxh3) = match s.strip_prefix(b"XXH3_") {
            Some(rest)
                if self.options.extensions
                    && matches!(self.options.algorithm, None | Some(Algorithm::Xxh3)) =>
            {
                (rest, true)
            }
            _ => (s, false),
        };
        let digest_end = s
            .iter()
            .position(|&b| !is_digest_char(b))
            .unwrap_or(s.len());
        let digest_text = &s[..digest_end];
        // The digest must be followed by a blank (a space or a tab, as coreutils' `c_isblank`;
        // not a CR or a form feed) or a NUL, and something after it, except under b2sum and cksum,
        // whose shortest line is three bytes (two digits and a blank): the name is then empty.
        // coreutils 9.11 ends the digest at a NUL as well, and takes it for the blank.
        let nothing_after = digest_end + 1 >= s.len() && !self.reads_variable_lengths();
        if nothing_after
            || digest_end >= s.len()
            || !(is_blank(s[digest_end]) || s[digest_end] == 0)
        {
            return Line::Improper;
        }
        let mut j = digest_end + 1;

        let mut fallbacks: &[Algorithm] = &[];
        let algorithm = if let Some(forced) = self.options.algorithm {
            if self.options.any_length {
                match digest_text_len(digest_text, self.options.base64)
                    .and_then(|len| forced.with_length(len))
                {
                    Some(member) => member,
                    None => return Line::Improper,
                }
            } else {
                forced
            }
        } else if prefixed_xxh3 {
            Algorithm::Xxh3
        } else if !self.options.extensions {
            return Line::Improper;
        } else {
            let Some(len) = digest_text_len(digest_text, self.options.base64) else {
                return Line::Improper;
            };
            let [first, others @ ..] = readings_of_length(len) else {
                return Line::Improper;
            };
            fallbacks = others;
            *first
        };
        let Some(expected) = self.decode(digest_text, algorithm) else {
            return Line::Improper;
        };

        // `DIGEST  NAME` / `DIGEST *NAME`, or the single-blank layout `DIGEST NAME`; coreutils
        // refuses to mix the two in one manifest.
        // One byte left is the name, whatever it is (`DIGEST *` names the file `*`, as in
        // coreutils, and `DIGEST  ` the file ` `).
        let single_blank = s.len() - j <= 1 || (s[j] != b' ' && s[j] != b'*');
        if single_blank {
            if self.single_blank_layout == Some(false) {
                return Line::Improper;
            }
            self.single_blank_layout = Some(true);
        } else if self.single_blank_layout != Some(true) {
            self.single_blank_layout = Some(false);
            j += 1;
        }
        let Some(name) = self.name(&s[j..], escaped) else {
            return Line::Improper;
        };
        Line::Entry(Entry {
            algorithm,
            expected,
            name,
            fallbacks,
        })
    }

    fn decode(&self, text: &[u8], algorithm: Algorithm) -> Option<Digest> {
        if self.options.base64 {
            decode_digest(text, algorithm.digest_len())
        } else {
            decode_hex_digest(text, algorithm.digest_len())
        }
    }

    fn name(&self, raw: &[u8], escaped: bool) -> Option<Vec<u8>> {
        // An escaped name may not hold a NUL (coreutils' `filename_unescape`); another ends at
        // its first NUL, as it does for coreutils (a C string) and for the system.
        if escaped && raw.contains(&0) {
            return None;
        }
        let mut name = if escaped {
            unescape_name(raw)?
        } else {
            raw.to_vec()
        };
        if let Some(nul) = name.iter().position(|&b| b == 0) {
            name.truncate(nul);
        }
        // An empty name (`SHA256 () = ...`, or one starting with a NUL) is taken, as coreutils
        // takes it: a file that cannot be opened.
        if self.options.manifest_is_stdin && name == b"-" {
            return None;
        }
        Some(name)
    }
}

/// Splits a manifest into lines: on `terminator`, dropping one CR before a newline, and (with
/// fasthash's extensions) a UTF-8 byte-order mark at the very start.
pub fn split_lines(data: &[u8], terminator: u8, strip_bom: bool) -> Vec<&[u8]> {
    let data = if strip_bom {
        data.strip_prefix(b"\xef\xbb\xbf").unwrap_or(data)
    } else {
        data
    };
    let mut lines: Vec<&[u8]> = data.split(|&b| b == terminator).collect();
    if lines.last().is_some_and(|last| last.is_empty()) {
        lines.pop();
    }
    if terminator == b'\n' {
        for line in &mut lines {
            if let Some(stripped) = line.strip_suffix(b"\r") {
                *line = stripped;
            }
        }
    }
    lines
}

/// One line of a b3sum checkfile, read by b3sum's own rules (b3sum 1.8), which are stricter
/// than coreutils': `HASH  NAME` (split at the first two spaces) or `BLAKE3 (NAME) = HASH`
/// (split at the last `) = `), 64 lowercase hex digits, a leading `\` for an escaped name
/// (`\n`, `\r`, `\\` only), and no NUL or U+FFFD in the name.
#[derive(Debug, PartialEq, Eq)]
pub struct B3sumLine {
    /// The name as the line writes it (with the leading `\` if escaped): what status lines show.
    pub shown: String,
    /// The path to hash.
    pub path: String,
    pub expected: Digest,
}

/// Parses one b3sum checkfile line (its line end included or not); the error is b3sum's text.
pub fn parse_b3sum_line(line: &str) -> Result<B3sumLine, &'static str> {
    let line = line.trim_end_matches(['\r', '\n']);
    if line.is_empty() {
        return Err("Empty line");
    }
    let (escaped, rest) = match line.strip_prefix('\\') {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let (hex, name) = if let Some((hex, name)) = rest.split_once("  ") {
        (hex, name)
    } else if let Some((name, hex)) = rest
        .strip_prefix("BLAKE3 (")
        .and_then(|tagged| tagged.rsplit_once(") = "))
    {
        (hex, name)
    } else {
        return Err("Invalid check line format");
    };
    if hex.len() != 64 {
        return Err("Invalid hash length");
    }
    if !hex
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Err("Invalid hex");
    }
    let expected = decode_digest(hex.as_bytes(), 32).ok_or("Invalid hex")?;
    let path = if escaped {
        let mut path = String::with_capacity(name.len());
        let mut chars = name.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                path.push(c);
                continue;
            }
            match chars.next() {
                Some('n') => path.push('\n'),
                Some('r') => path.push('\r'),
                Some('\\') => path.push('\\'),
                _ => return Err("Invalid backslash escape"),
            }
        }
        path
    } else {
        name.to_string()
    };
    if path.is_empty() {
        return Err("empty file path");
    }
    if path.contains('\0') {
        return Err("Null character in path");
    }
    if path.contains('\u{fffd}') {
        return Err("Unicode replacement character in path");
    }
    Ok(B3sumLine {
        shown: if escaped {
            format!("\\{name}")
        } else {
            name.to_string()
        },
        path,
        expected,
    })
}

/// One line of an xxhsum manifest, read by xxhsum's own rules (xxHash 0.8.3): its algorithm
/// from the tag (see [`read_xxhsum_tag`]) or from an untagged digest's length, the digest
/// read big-endian unless the tag says `_LE` (untagged: unless `little_endian`, xxhsum's
/// `--little-endian`), the name unescaped when the first character that is not a blank is a
/// `\`. None for a line xxhsum calls improperly formatted, and, under `xxhNNsum` (`only`), for
/// a line of another algorithm. The line is a C string to xxhsum: a NUL ends it.
pub fn parse_xxhsum_line(
    line: &[u8],
    little_endian: bool,
    only: Option<Algorithm>,
) -> Option<Entry> {
    let line = &line[..line.iter().position(|&b| b == 0).unwrap_or(line.len())];
    let blanks = line
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    let escaped = line.get(blanks) == Some(&b'\\');
    // xxhsum steps over one character of an escaped line: the backslash, or the first blank
    // before it.
    let line = if escaped { &line[1..] } else { line };
    let first_space = line.iter().position(|&b| b == b' ')?;
    if first_space + 1 >= line.len() {
        return None;
    }
    let (algorithm, digits, reversed, name) = if line[first_space + 1] == b'(' {
        let last_space = line.iter().rposition(|&b| b == b' ')?;
        if last_space < first_space + 5 || &line[last_space - 3..last_space] != b") =" {
            return None;
        }
        let (algorithm, reversed) = read_xxhsum_tag(&line[..first_space]);
        let name = &line[first_space + 2..last_space - 3];
        (algorithm, &line[last_space + 1..], reversed, name)
    } else {
        let digits = &line[..first_space];
        let algorithm = match digits.len() {
            8 => Algorithm::Xxh32,
            21 => Algorithm::Xxh3,
            32 => Algorithm::Xxh128,
            _ => Algorithm::Xxh64,
        };
        // The character after the space may be anything (`*`, a second space).
        let name = line.get(first_space + 2..).unwrap_or_default();
        (algorithm, digits, little_endian, name)
    };
    if only.is_some_and(|only| only != algorithm) {
        return None;
    }
    let digits = match (digits.len(), algorithm) {
        (8, Algorithm::Xxh32)
        | (32, Algorithm::Xxh128)
        | (16, Algorithm::Xxh64 | Algorithm::Xxh3) => digits,
        (21, Algorithm::Xxh3) => digits.strip_prefix(b"XXH3_")?,
        _ => return None,
    };
    let mut expected = decode_hex_digest(digits, digits.len() / 2)?;
    if reversed {
        let mut bytes = expected.as_bytes().to_vec();
        bytes.reverse();
        expected = Digest::from_slice(&bytes);
    }
    let name = if escaped {
        unescape_name(name)?
    } else {
        name.to_vec()
    };
    Some(Entry {
        algorithm,
        expected,
        name,
        fallbacks: &[],
    })
}

/// The algorithm an xxhsum tag names (the last of `XXH3`, `XXH32`, `XXH64`, `XXH128` it
/// starts with; XXH64 when none), and whether it is little-endian (`_LE` anywhere in it).
fn read_xxhsum_tag(tag: &[u8]) -> (Algorithm, bool) {
    let prefixes = [
        (&b"XXH3"[..], Algorithm::Xxh3),
        (b"XXH32", Algorithm::Xxh32),
        (b"XXH64", Algorithm::Xxh64),
        (b"XXH128", Algorithm::Xxh128),
    ];
    let algorithm = prefixes
        .iter()
        .rev()
        .find(|(prefix, _)| tag.starts_with(prefix))
        .map_or(Algorithm::Xxh64, |&(_, algorithm)| algorithm);
    (algorithm, tag.windows(3).any(|w| w == b"_LE"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untagged_digests_are_read_first_as_the_common_program_of_their_length() {
        use Algorithm::*;
        let expected: [(usize, &[Algorithm]); 8] = [
            (32, &[Sha256, Blake3, Blake2b(32), Sha3_256, Sm3]),
            (64, &[Sha512, Blake2b(64), Sha3_512]),
            (20, &[Sha1]),
            (16, &[Md5, Xxh128]),
            (28, &[Sha224, Sha3_224]),
            (48, &[Sha384, Sha3_384]),
            (8, &[Xxh64, Xxh3, Crc64Nvme]),
            (4, &[Crc32, Crc32c, Xxh32]),
        ];
        for (len, readings) in expected {
            assert_eq!(readings_of_length(len), readings, "{len} bytes");
        }
        // Every reading has the length it is read at, and no other length has any.
        let lengths: Vec<usize> = expected.iter().map(|&(len, _)| len).collect();
        for len in 0..=64 {
            let readings = readings_of_length(len);
            assert!(readings.iter().all(|a| a.digest_len() == len), "{len}");
            assert_eq!(readings.is_empty(), !lengths.contains(&len), "{len}");
        }
    }
    use crate::kernels::hash;

    const OPEN: ParseOptions = ParseOptions {
        any_length: false,
        algorithm: None,
        extensions: true,
        manifest_is_stdin: false,
        base64: true,
        layout_per_manifest: true,
    };

    /// `sha256sum -c`'s rules.
    fn sha256_only() -> ParseOptions {
        ParseOptions {
            any_length: false,
            algorithm: Some(Algorithm::Sha256),
            extensions: false,
            manifest_is_stdin: false,
            base64: false,
            layout_per_manifest: false,
        }
    }

    fn entry(options: ParseOptions, line: &[u8]) -> Entry {
        match LineParser::new(options).parse(line) {
            Line::Entry(entry) => entry,
            other => panic!("{:?}: {other:?}", String::from_utf8_lossy(line)),
        }
    }

    fn outcome(options: ParseOptions, line: &[u8]) -> Line {
        LineParser::new(options).parse(line)
    }

    const H: &str = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

    #[test]
    fn gnu_lines_text_binary_and_single_blank() {
        let e = entry(sha256_only(), format!("{H}  a b").as_bytes());
        assert_eq!(e.name, b"a b");
        assert_eq!(e.expected, hash(Algorithm::Sha256, b"hello"));
        assert_eq!(
            entry(sha256_only(), format!("{H} *f").as_bytes()).name,
            b"f"
        );
        assert_eq!(entry(sha256_only(), format!("{H} f").as_bytes()).name, b"f");
        assert_eq!(
            entry(sha256_only(), format!("{H}\tf").as_bytes()).name,
            b"f"
        );
        assert_eq!(
            entry(
                sha256_only(),
                format!("  {}  f", H.to_uppercase()).as_bytes()
            )
            .name,
            b"f"
        );
    }

    /// Blanks are a space or a tab, as coreutils' `c_isblank`: a CR, a vertical tab or a form
    /// feed is neither the separator nor a leading blank. One byte after the separator is
    /// the name, whatever it is, and an empty tagged name is taken: coreutils reports those
    /// files as not found, where they had been improperly formatted lines.
    #[test]
    fn blanks_and_the_shortest_names_are_coreutils_own() {
        for other in ["\r", "\x0b", "\x0c"] {
            let separated = format!("{H}{other}f");
            assert_eq!(outcome(sha256_only(), separated.as_bytes()), Line::Improper);
            let leading = format!("{other}{H}  f");
            assert_eq!(outcome(sha256_only(), leading.as_bytes()), Line::Improper);
        }
        assert_eq!(
            entry(sha256_only(), format!("\t {H}  f").as_bytes()).name,
            b"f"
        );
        assert_eq!(entry(sha256_only(), format!("{H} *").as_bytes()).name, b"*");
        assert_eq!(entry(sha256_only(), format!("{H}  ").as_bytes()).name, b" ");
        assert_eq!(
            outcome(sha256_only(), format!("{H} ").as_bytes()),
            Line::Improper
        );
        assert_eq!(
            entry(sha256_only(), format!("SHA256 () = {H}").as_bytes()).name,
            b""
        );
    }

    #[test]
    fn single_blank_layout_is_not_mixed_with_the_usual_one() {
        let mut parser = LineParser::new(sha256_only());
        assert!(matches!(
            parser.parse(format!("{H} f").as_bytes()),
            Line::Entry(_)
        ));
        // The name keeps its leading blank, as in coreutils.
        match parser.parse(format!("{H}  g").as_bytes()) {
            Line::Entry(e) => assert_eq!(e.name, b" g"),
            other => panic!("{other:?}"),
        }
        let mut parser = LineParser::new(sha256_only());
        assert!(matches!(
            parser.parse(format!("{H}  f").as_bytes()),
            Line::Entry(_)
        ));
        assert_eq!(parser.parse(format!("{H} g").as_bytes()), Line::Improper);
    }

    #[test]
    fn bsd_lines_and_openssl_spacing() {
        for line in [
            format!("SHA256 (a (b)) = {H}"),
            format!("SHA256(a (b))= {H}"),
            format!("SHA256 (a (b))={H}"),
        ] {
            assert_eq!(entry(sha256_only(), line.as_bytes()).name, b"a (b)");
        }
        assert_eq!(
            outcome(sha256_only(), b"MD5 (f) = 5d41402abc4b2a76b9719d911017c592"),
            Line::Improper
        );
        let md5 = entry(OPEN, b"MD5 (f) = 5d41402abc4b2a76b9719d911017c592");
        assert_eq!(md5.algorithm, Algorithm::Md5);
    }

    #[test]
    fn crc32_tag_is_not_a_prefix_of_crc32c() {
        let crc32c = entry(OPEN, b"CRC32C (f) = c99465aa");
        assert_eq!(crc32c.algorithm, Algorithm::Crc32c);
        let crc32 = entry(OPEN, b"CRC32 (f) = 0d4a1185");
        assert_eq!(crc32.algorithm, Algorithm::Crc32);
    }

    #[test]
    fn escaped_names() {
        let e = entry(sha256_only(), format!("\\{H}  a\\\\b\\nc\\rd").as_bytes());
        assert_eq!(e.name, b"a\\b\nc\rd");
        let e = entry(sha256_only(), format!("\\SHA256 (a\\nb) = {H}").as_bytes());
        assert_eq!(e.name, b"a\nb");
        // Without the leading backslash the name is literal.
        assert_eq!(
            entry(sha256_only(), format!("{H}  a\\nb").as_bytes()).name,
            b"a\\nb"
        );
        assert_eq!(
            outcome(sha256_only(), format!("\\{H}  a\\tb").as_bytes()),
            Line::Improper
        );
    }

    #[test]
    fn comments_empty_and_garbage() {
        assert_eq!(outcome(sha256_only(), b"# comment"), Line::Skip);
        assert_eq!(outcome(sha256_only(), b""), Line::Skip);
        assert_eq!(outcome(sha256_only(), b"garbage"), Line::Improper);
        assert_eq!(outcome(sha256_only(), b"   "), Line::Improper);
        assert_eq!(outcome(sha256_only(), H.as_bytes()), Line::Improper);
        assert_eq!(
            outcome(sha256_only(), format!("{}  f", &H[1..]).as_bytes()),
            Line::Improper
        );
    }

    #[test]
    fn base64_digests_under_fasthash_and_cksum_only() {
        let line = b"LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=  f";
        let fasthash = ParseOptions {
            algorithm: Some(Algorithm::Sha256),
            ..OPEN
        };
        // `cksum -a sha256 -c`: coreutils' rules, and base64.
        let cksum = ParseOptions {
            base64: true,
            ..sha256_only()
        };
        for options in [fasthash, cksum] {
            let e = entry(options, line);
            assert_eq!(e.expected, hash(Algorithm::Sha256, b"hello"));
        }
        // sha256sum reads hex only, as coreutils builds it.
        assert_eq!(outcome(sha256_only(), line), Line::Improper);
        let e = entry(OPEN, b"CRC64NVME (f) = jSnVw/bqjr4=");
        assert_eq!(e.expected, hash(Algorithm::Crc64Nvme, b"hello world"));
    }

    #[test]
    fn the_layout_carries_to_the_next_manifest_under_coreutils_rules_only() {
        let two_blanks = format!("{H}  f");
        let one_blank = format!("{H} f");
        // sha256sum: the first manifest's two-blank layout holds in the second.
        let mut coreutils = LineParser::new(sha256_only());
        assert!(matches!(
            coreutils.parse(two_blanks.as_bytes()),
            Line::Entry(_)
        ));
        coreutils.next_manifest(false);
        assert_eq!(coreutils.parse(one_blank.as_bytes()), Line::Improper);
        // fasthash: each manifest decides.
        let mut fasthash = LineParser::new(OPEN);
        assert!(matches!(
            fasthash.parse(two_blanks.as_bytes()),
            Line::Entry(_)
        ));
        assert_eq!(fasthash.parse(one_blank.as_bytes()), Line::Improper);
        fasthash.next_manifest(false);
        assert_eq!(entry_name(&mut fasthash, &one_blank), b"f");
    }

    fn entry_name(parser: &mut LineParser, line: &str) -> Vec<u8> {
        match parser.parse(line.as_bytes()) {
            Line::Entry(entry) => entry.name,
            other => panic!("{line:?}: {other:?}"),
        }
    }

    #[test]
    fn length_decides_untagged_lines_with_documented_preferences() {
        assert_eq!(
            entry(OPEN, format!("{H}  f").as_bytes()).algorithm,
            Algorithm::Sha256
        );
        let e = entry(OPEN, format!("{H}  f").as_bytes());
        assert_eq!(
            e.fallbacks,
            [
                Algorithm::Blake3,
                Algorithm::Blake2b(32),
                Algorithm::Sha3_256,
                Algorithm::Sm3
            ]
        );
        assert_eq!(
            entry(OPEN, b"5d41402abc4b2a76b9719d911017c592  f").fallbacks,
            [Algorithm::Xxh128]
        );
        let md5 = entry(OPEN, b"5d41402abc4b2a76b9719d911017c592  f");
        assert_eq!(md5.algorithm, Algorithm::Md5);
        let sha1 = entry(OPEN, b"aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d  f");
        assert_eq!(sha1.algorithm, Algorithm::Sha1);
        assert!(sha1.fallbacks.is_empty());
        let xxh64 = entry(OPEN, b"26c7827d889f6da3  f");
        assert_eq!(xxh64.algorithm, Algorithm::Xxh64);
        assert_eq!(xxh64.fallbacks, [Algorithm::Xxh3, Algorithm::Crc64Nvme]);
        let crc = entry(OPEN, b"0d4a1185  f");
        assert_eq!(crc.algorithm, Algorithm::Crc32);
        assert_eq!(crc.fallbacks, [Algorithm::Crc32c, Algorithm::Xxh32]);
        // Every length some algorithm has is read, each of its algorithms exactly once (not
        // cksum's and sum's legacy checksums, which coreutils never checks either).
        for algorithm in Algorithm::all().filter(|a| !a.info().with_size) {
            let readings = readings_of_length(algorithm.digest_len());
            assert_eq!(
                readings.iter().filter(|&&a| a == algorithm).count(),
                1,
                "{algorithm}"
            );
        }
        // The coreutils names never guess.
        let strict = ParseOptions {
            extensions: false,
            ..OPEN
        };
        assert_eq!(
            outcome(strict, format!("{H}  f").as_bytes()),
            Line::Improper
        );
    }

    #[test]
    fn xxhsum_lines_follow_xxhsum_rules() {
        let read = |line: &[u8]| parse_xxhsum_line(line, false, None);
        let reversed = |digest: Digest| {
            let mut bytes = digest.as_bytes().to_vec();
            bytes.reverse();
            Digest::from_slice(&bytes)
        };
        let xxh64 = read(b"26c7827d889f6da3  h").unwrap();
        assert_eq!(
            (xxh64.algorithm, xxh64.expected, xxh64.name),
            (
                Algorithm::Xxh64,
                hash(Algorithm::Xxh64, b"hello"),
                b"h".to_vec()
            )
        );
        // Untagged digests are reversed under --little-endian; a tag's `_LE` decides alone.
        let le = b"a36d9f887d82c726  h";
        assert_eq!(
            read(le).unwrap().expected,
            reversed(hash(Algorithm::Xxh64, b"hello"))
        );
        let little_endian = parse_xxhsum_line(le, true, None).unwrap();
        assert_eq!(little_endian.expected, hash(Algorithm::Xxh64, b"hello"));
        let tagged = parse_xxhsum_line(b"XXH3_LE (h) = fddc625c55e85595", false, None).unwrap();
        assert_eq!(tagged.expected, hash(Algorithm::Xxh3, b"hello"));
        // The character after the space may be anything; a CR stays in the name; a NUL ends
        // the line; a leading backslash (after blanks) unescapes the name.
        assert_eq!(read(b"26c7827d889f6da3 *h\r").unwrap().name, b"h\r");
        assert_eq!(read(b"26c7827d889f6da3  h\0junk").unwrap().name, b"h");
        assert_eq!(read(b"\\26c7827d889f6da3  a\\nb").unwrap().name, b"a\nb");
        // An unknown tag is read as XXH64; `xxhNNsum` reads only its algorithm's lines.
        assert_eq!(
            read(b"ANY (h) = 26c7827d889f6da3").unwrap().algorithm,
            Algorithm::Xxh64
        );
        let only = |line: &[u8]| parse_xxhsum_line(line, false, Some(Algorithm::Xxh3));
        assert!(only(b"26c7827d889f6da3  h").is_none());
        assert!(only(b"XXH3_9555e8555c62dcfd  h").is_some());
        for improper in [
            &b""[..],
            b"26c7827d889f6da3",
            b"26c7827d889f6da3 ",
            b"26c7827d889f6da  h",
            b"XXH64 (h)= 26c7827d889f6da3",
            b"XXH32 (h) = 26c7827d889f6da3",
            b"zz c7827d889f6da3  h",
        ] {
            assert_eq!(
                read(improper),
                None,
                "{:?}",
                String::from_utf8_lossy(improper)
            );
        }
    }

    #[test]
    fn xxhsum_prefix_and_little_endian_tags() {
        let e = entry(OPEN, b"XXH3_9555e8555c62dcfd  h");
        assert_eq!(e.algorithm, Algorithm::Xxh3);
        assert_eq!(e.expected, hash(Algorithm::Xxh3, b"hello"));
        let le = entry(OPEN, b"XXH3_LE (h) = fddc625c55e85595");
        assert_eq!(le.expected, hash(Algorithm::Xxh3, b"hello"));
        let le128 = entry(OPEN, b"XXH128_LE (h) = 1838525eaacf79c77f3e1b07adc1e9b5");
        assert_eq!(le128.expected, hash(Algorithm::Xxh128, b"hello"));
        assert_eq!(
            outcome(sha256_only(), b"XXH3_LE (h) = fddc625c55e85595"),
            Line::Improper
        );
    }

    /// coreutils' `split_3`, `bsd_split_3` and `filename_unescape` (`src/cksum.c`, 9.11): each
    /// program reads its own tag only, cksum the tags of its `-a` names, a length after a tag
    /// as `strtoimax` in base 0 reads it, and no NUL in an escaped name.
    #[test]
    fn tags_lengths_and_names_as_each_coreutils_program_reads_them() {
        let b2sum = ParseOptions {
            algorithm: Some(Algorithm::Blake2b(64)),
            any_length: true,
            ..sha256_only()
        };
        let cksum = ParseOptions {
            algorithm: None,
            base64: true,
            ..sha256_only()
        };
        let cksum_sha256 = ParseOptions {
            base64: true,
            ..sha256_only()
        };
        let b2_256 = hash(Algorithm::Blake2b(32), b"hello");
        let b2_line = |tag: &str| format!("{tag} (f) = {b2_256}");
        for tag in [
            "BLAKE2b-256",
            "BLAKE2b-0x100",
            "BLAKE2b-0X100",
            "BLAKE2b-0400",
        ] {
            for options in [b2sum, cksum] {
                assert_eq!(
                    entry(options, b2_line(tag).as_bytes()).expected,
                    b2_256,
                    "{tag}"
                );
            }
        }
        // 00256 is octal 174, not a multiple of 8; 08 is no octal number; no sign, no blank.
        for tag in [
            "BLAKE2b-00256",
            "BLAKE2b-08",
            "BLAKE2b-+256",
            "BLAKE2b-0x",
            "BLAKE2b-0",
        ] {
            assert_eq!(
                outcome(b2sum, b2_line(tag).as_bytes()),
                Line::Improper,
                "{tag}"
            );
        }
        // `SHA2-256` is cksum's tag, read without `-a`: not sha256sum's, nor `cksum -a sha256`'s.
        let sha2_line = format!("SHA2-256 (f) = {H}");
        assert_eq!(
            entry(cksum, sha2_line.as_bytes()).algorithm,
            Algorithm::Sha256
        );
        for options in [sha256_only(), cksum_sha256] {
            assert_eq!(outcome(options, sha2_line.as_bytes()), Line::Improper);
        }
        assert_eq!(
            outcome(sha256_only(), format!("SHA256-256 (f) = {H}").as_bytes()),
            Line::Improper
        );
        // Tags of fasthash's other algorithms are not cksum's.
        let xxh = format!("XXH64 (f) = {}", hash(Algorithm::Xxh64, b"hello"));
        assert_eq!(outcome(cksum, xxh.as_bytes()), Line::Improper);
        assert!(matches!(outcome(OPEN, xxh.as_bytes()), Line::Entry(_)));
        // b2sum and cksum take a digest and one blank: an empty name. md5sum and the others
        // need a byte more (their shortest line).
        for options in [b2sum, cksum_sha256] {
            let digest = hash(options.algorithm.unwrap(), b"hello");
            assert_eq!(entry(options, format!("{digest} ").as_bytes()).name, b"");
        }
        assert_eq!(
            outcome(sha256_only(), format!("{H} ").as_bytes()),
            Line::Improper
        );
        // A NUL after the digest stands for the blank (9.11: the digest ends at it).
        assert_eq!(
            entry(sha256_only(), format!("{H}\0f").as_bytes()).name,
            b"f"
        );
        // A NUL ends a plain name, and makes an escaped one malformed.
        assert_eq!(
            entry(sha256_only(), format!("{H}  f\0g").as_bytes()).name,
            b"f"
        );
        for line in [format!("\\{H}  f\0g"), format!("\\SHA256 (f\0g) = {H}")] {
            assert_eq!(
                outcome(sha256_only(), line.as_bytes()),
                Line::Improper,
                "{line:?}"
            );
        }
    }

    #[test]
    fn stdin_manifest_cannot_name_stdin() {
        let options = ParseOptions {
            manifest_is_stdin: true,
            ..sha256_only()
        };
        assert_eq!(
            outcome(options, format!("{H}  -").as_bytes()),
            Line::Improper
        );
        assert_eq!(
            entry(sha256_only(), format!("{H}  -").as_bytes()).name,
            b"-"
        );
    }

    #[test]
    fn line_splitting_handles_crlf_bom_and_nul() {
        assert_eq!(
            split_lines(b"a\r\nb\n", b'\n', false),
            vec![&b"a"[..], b"b"]
        );
        assert_eq!(split_lines(b"a\r\r\n", b'\n', false), vec![&b"a\r"[..]]);
        assert_eq!(split_lines(b"\xef\xbb\xbfa", b'\n', true), vec![&b"a"[..]]);
        assert_eq!(
            split_lines(b"\xef\xbb\xbfa", b'\n', false),
            vec![&b"\xef\xbb\xbfa"[..]]
        );
        assert_eq!(
            split_lines(b"a\nb\0c\0", b'\0', false),
            vec![&b"a\nb"[..], b"c"]
        );
    }

    #[test]
    fn b3sum_lines_follow_b3sum_rules() {
        let hex = hash(Algorithm::Blake3, b"a").to_hex();
        let line = parse_b3sum_line(&format!("{hex}  a b\n")).unwrap();
        assert_eq!((line.shown.as_str(), line.path.as_str()), ("a b", "a b"));
        assert_eq!(line.expected, hash(Algorithm::Blake3, b"a"));
        let tagged = parse_b3sum_line(&format!("BLAKE3 (x) = y) = {hex}\r\n")).unwrap();
        assert_eq!(tagged.path, "x) = y");
        let escaped = parse_b3sum_line(&format!("\\{hex}  a\\nb\\\\c")).unwrap();
        assert_eq!(
            (escaped.shown.as_str(), escaped.path.as_str()),
            ("\\a\\nb\\\\c", "a\nb\\c")
        );
        for (line, reason) in [
            (String::new(), "Empty line"),
            ("\n".to_string(), "Empty line"),
            (format!("{hex} a"), "Invalid check line format"),
            (format!("{}  a", hex.to_uppercase()), "Invalid hex"),
            (format!("{}  a", &hex[..62]), "Invalid hash length"),
            (format!("\\{hex}  a\\tb"), "Invalid backslash escape"),
            (format!("\\{hex}  a\\"), "Invalid backslash escape"),
            (
                format!("{hex}  a\u{fffd}"),
                "Unicode replacement character in path",
            ),
            (format!("{hex}  a\0b"), "Null character in path"),
        ] {
            assert_eq!(parse_b3sum_line(&line), Err(reason), "{line:?}");
        }
    }
}
