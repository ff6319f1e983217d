//! GNU coreutils' escaping of file names in digest lines.
//!
//! A name holding a backslash, newline or carriage return is written with `\\`, `\n`, `\r`, and
//! the whole line starts with a backslash so that `--check` knows to unescape it. With `-z` lines
//! end with NUL and names are written as they are.

use std::borrow::Cow;

/// Whether a name needs coreutils' escaping in newline-terminated output.
pub fn needs_escape(name: &[u8]) -> bool {
    name.iter().any(|&b| matches!(b, b'\\' | b'\n' | b'\r'))
}

/// The escaped form of a name (unchanged when nothing needs escaping).
pub fn escape_name(name: &[u8]) -> Cow<'_, [u8]> {
    if !needs_escape(name) {
        return Cow::Borrowed(name);
    }
    let mut out = Vec::with_capacity(name.len() + 8);
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
    Cow::Owned(out)
}

/// Reverses [`escape_name`]: `None` when the text holds an escape coreutils never writes
/// (a lone trailing backslash, or a backslash before anything but `\`, `n` or `r`).
pub fn unescape_name(escaped: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(escaped.len());
    let mut bytes = escaped.iter();
    while let Some(&b) = bytes.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match bytes.next() {
            Some(b'\\') => out.push(b'\\'),
            Some(b'n') => out.push(b'\n'),
            Some(b'r') => out.push(b'\r'),
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_are_borrowed_unchanged() {
        assert!(matches!(escape_name(b"a b-c"), Cow::Borrowed(b"a b-c")));
        assert!(!needs_escape(b"\xff\xfe name"));
    }

    #[test]
    fn backslash_newline_and_carriage_return_are_escaped() {
        assert_eq!(&*escape_name(b"a\\b\nc\rd"), b"a\\\\b\\nc\\rd");
    }

    #[test]
    fn unescape_reverses_escape() {
        for name in [&b"a\\b\nc\rd"[..], b"\\\\\n", b"plain", b""] {
            assert_eq!(unescape_name(&escape_name(name)).as_deref(), Some(name));
        }
    }

    #[test]
    fn unescape_rejects_escapes_coreutils_never_writes() {
        assert_eq!(unescape_name(b"a\\"), None);
        assert_eq!(unescape_name(b"a\\tb"), None);
    }
}
