//! The first and last lines of a `--shard K/N` manifest, written and read back by `--merge`:
//! `# fasthash shard K/N FINGERPRINT`, and ` -a md5,sha256` after it for a run of several
//! algorithms; and, once every line is out, `# fasthash shard K/N end LINES XXH3`: how many
//! lines the run wrote between the two and the XXH3 of their bytes, so that a shard cut short
//! (an interrupted run, a full disk) or changed since is never merged. `--check` and coreutils
//! read both as comments.

use crate::io::shard::Shard;
use crate::kernels::{Algorithm, Hasher};
use std::io::{self, Write};

const HEADER_PREFIX: &str = "# fasthash shard ";

/// Before the algorithms a header of several names.
const ALGORITHMS_PREFIX: &str = "-a ";

/// The header line, without its terminator. `several` names the algorithms of a run of
/// several (`md5,sha256`), so that a reader knows each file has a line per algorithm; a run of
/// one keeps the header it always had.
pub(crate) fn header(shard: Shard, fingerprint: &str, several: Option<&str>) -> String {
    match several {
        Some(algorithms) => {
            format!("{HEADER_PREFIX}{shard} {fingerprint} {ALGORITHMS_PREFIX}{algorithms}")
        }
        None => format!("{HEADER_PREFIX}{shard} {fingerprint}"),
    }
}

/// A shard manifest's first line, read back: which shard, of which run, and where the lines
/// start. None when `data` does not start with one.
pub(crate) fn parse_header(data: &[u8]) -> Option<(Shard, String, usize)> {
    let end = data.iter().position(|&b| b == b'\n' || b == b'\0')?;
    let line = std::str::from_utf8(&data[..end]).ok()?;
    let rest = line.strip_prefix(HEADER_PREFIX)?;
    let (shard, fingerprint) = rest.split_once(' ')?;
    // A run of several algorithms names them after the fingerprint (which covers them too).
    let (fingerprint, algorithms) = match fingerprint.split_once(' ') {
        Some((fingerprint, named)) => (fingerprint, Some(named.strip_prefix(ALGORITHMS_PREFIX)?)),
        None => (fingerprint, None),
    };
    if algorithms.is_some_and(|list| list.is_empty() || list.contains(' ')) {
        return None;
    }
    let shard = Shard::parse(shard).ok()?;
    if fingerprint.len() != 32 || !fingerprint.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some((shard, fingerprint.to_string(), end + 1))
}

/// The last line's words after the shard.
const TRAILER_WORD: &str = " end ";

/// The last line, without its terminator: the lines written after the header (`lines`
/// terminators) and the XXH3 of their bytes.
pub(crate) fn trailer(shard: Shard, lines: u64, xxh3: &str) -> String {
    format!("{HEADER_PREFIX}{shard}{TRAILER_WORD}{lines} {xxh3}")
}

/// A shard manifest's last line, read back (without its terminator): which shard, how many
/// lines and the XXH3 of their bytes.
pub(crate) fn parse_trailer(line: &[u8]) -> Option<(Shard, u64, String)> {
    let line = std::str::from_utf8(line).ok()?;
    let (shard, rest) = line.strip_prefix(HEADER_PREFIX)?.split_once(TRAILER_WORD)?;
    let (lines, xxh3) = rest.split_once(' ')?;
    if xxh3.len() != 16 || !xxh3.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let lines = lines
        .parse()
        .ok()
        .filter(|_| lines.bytes().all(|b| b.is_ascii_digit()))?;
    Some((Shard::parse(shard).ok()?, lines, xxh3.to_string()))
}

/// Standard output under `--shard`: what passes through after the header is tallied, its
/// terminators and the XXH3 of its bytes, for the last line ([`Tallied::finish`]). Without
/// `--shard`, bytes only pass through.
pub(crate) struct Tallied<'a, W: Write> {
    inner: &'a mut W,
    /// The shard and its lines' terminator, the lines so far and their XXH3.
    tally: Option<(Shard, u8, u64, Hasher)>,
}

impl<'a, W: Write> Tallied<'a, W> {
    pub(crate) fn new(inner: &'a mut W, shard: Option<(Shard, u8)>) -> Tallied<'a, W> {
        Tallied {
            inner,
            tally: shard
                .map(|(shard, terminator)| (shard, terminator, 0, Hasher::new(Algorithm::Xxh3))),
        }
    }

    /// Writes the last line of a shard manifest (nothing without `--shard`), then flushes.
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        if let Some((shard, terminator, lines, hasher)) = self.tally.take() {
            let mut line = trailer(shard, lines, &hasher.finalize().to_hex()).into_bytes();
            line.push(terminator);
            self.inner.write_all(&line)?;
        }
        self.inner.flush()
    }
}

impl<W: Write> Write for Tallied<'_, W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(bytes)?;
        if let Some((_, terminator, lines, hasher)) = &mut self.tally {
            let bytes = &bytes[..written];
            *lines += bytes.iter().filter(|&b| b == terminator).count() as u64;
            hasher.update(bytes);
        }
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Where the lines of a shard manifest end and its last line starts, checked: `body` is what
/// follows the header, its lines ended by `terminator`. The lines' bytes, or why they are not
/// what the shard run wrote.
pub(crate) fn checked_lines(body: &[u8], terminator: u8, shard: Shard) -> Result<&[u8], String> {
    let cut_short = || {
        format!(
            "it does not end with the line --shard writes last ('{HEADER_PREFIX}{shard}{TRAILER_WORD}\
             LINES XXH3'): it was cut short, or changed since"
        )
    };
    let ended = body.strip_suffix(&[terminator]).ok_or_else(cut_short)?;
    let last_start = ended
        .iter()
        .rposition(|&b| b == terminator)
        .map_or(0, |at| at + 1);
    let (lines, written_shard, xxh3) = match parse_trailer(&ended[last_start..]) {
        Some((written_shard, count, xxh3)) => (count, written_shard, xxh3),
        None => return Err(cut_short()),
    };
    let body = &body[..last_start];
    let counted = body.iter().filter(|&&b| b == terminator).count() as u64;
    let digest = crate::kernels::hash(Algorithm::Xxh3, body).to_hex();
    if written_shard != shard {
        return Err(cut_short());
    }
    if counted != lines {
        return Err(format!(
            "it holds {counted} lines where its last line says its run wrote {lines}: it was \
             changed or damaged since"
        ));
    }
    if digest != xxh3 {
        return Err(
            "its lines are not the bytes its run wrote (their XXH3 is not the one its \
                    last line gives): it was changed or damaged since"
                .to_string(),
        );
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_reads_back() {
        let line = header(Shard { index: 2, count: 5 }, &"ab".repeat(16), None);
        let data = format!("{line}\nrest");
        let (shard, fingerprint, start) = parse_header(data.as_bytes()).unwrap();
        assert_eq!(shard, Shard { index: 2, count: 5 });
        assert_eq!(fingerprint, "ab".repeat(16));
        assert_eq!(&data.as_bytes()[start..], b"rest");
        assert!(parse_header(b"# fasthash shard 2/5 short\n").is_none());
        let several = header(
            Shard { index: 2, count: 5 },
            &"ab".repeat(16),
            Some("md5,sha256"),
        );
        assert_eq!(several, format!("{line} -a md5,sha256"));
        let several = format!("{several}\nrest");
        let (_, fingerprint, start) = parse_header(several.as_bytes()).unwrap();
        assert_eq!(fingerprint, "ab".repeat(16));
        assert_eq!(&several.as_bytes()[start..], b"rest");
        for bad in [" -a\n", " -a \n", " md5\n", " -a md5 sha1\n"] {
            assert!(
                parse_header(format!("{line}{bad}").as_bytes()).is_none(),
                "{bad}"
            );
        }
        assert!(parse_header(b"0123  name\n").is_none());
    }

    #[test]
    fn a_trailer_reads_back() {
        let shard = Shard { index: 3, count: 4 };
        let line = trailer(shard, 12, "0123456789abcdef");
        assert_eq!(line, "# fasthash shard 3/4 end 12 0123456789abcdef");
        let read = parse_trailer(line.as_bytes()).unwrap();
        assert_eq!(read, (shard, 12, "0123456789abcdef".to_string()));
        for bad in [
            "# fasthash shard 3/4 end 12 0123",
            "# fasthash shard 3/4 end +12 0123456789abcdef",
            "# fasthash shard 3/4 12 0123456789abcdef",
            "# fasthash shard 5/4 end 12 0123456789abcdef",
        ] {
            assert!(parse_trailer(bad.as_bytes()).is_none(), "{bad}");
        }
        // A header is no trailer.
        assert!(parse_trailer(header(shard, &"ab".repeat(16), None).as_bytes()).is_none());
    }
}
