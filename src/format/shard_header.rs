//! The first line of a `--shard K/N` manifest, written and read back by `--merge`:
//! `# fasthash shard K/N FINGERPRINT`, and ` -a md5,sha256` after it for a run of several
//! algorithms. `--check` reads it as a comment.

use crate::io::shard::Shard;

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
}
