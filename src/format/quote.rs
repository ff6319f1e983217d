//! The quoting of file names inside messages, as coreutils' `quotef` (gnulib's quotearg with the
//! shell-escape style, colons quoted too) does it, so that `fasthash: 'a b': No such file or
//! directory` reads exactly like `sha256sum`'s message.
//!
//! The rules, observed on coreutils and in gnulib: a name made only of safe characters is
//! printed as it is; otherwise it goes in single quotes, a `'` inside becomes `'\''`, and bytes
//! that cannot be printed are written as `$'\ooo'` (or `\n`, `\t`...) segments. A name whose only
//! trouble is a single quote (with spaces and other harmless characters) goes in double quotes.

/// The name as coreutils would show it in a diagnostic.
pub fn quote_name(name: &[u8]) -> Vec<u8> {
    if name.is_empty() {
        return b"''".to_vec();
    }
    let chars = decode(name);
    let needs_quotes = chars.iter().enumerate().any(|(i, c)| match *c {
        Char::Byte(b) => is_shell_special(b) || (i == 0 && matches!(b, b'#' | b'~')),
        Char::Printable(_) => false,
        Char::Unprintable(_) => true,
    });
    if !needs_quotes {
        return name.to_vec();
    }
    let has_single_quote = chars.iter().any(|c| matches!(c, Char::Byte(b'\'')));
    let double_quote_safe = chars.iter().all(|c| match *c {
        Char::Byte(b) => !is_special_inside_double_quotes(b),
        Char::Printable(_) => true,
        Char::Unprintable(_) => false,
    });
    if has_single_quote && double_quote_safe {
        let mut out = Vec::with_capacity(name.len() + 2);
        out.push(b'"');
        out.extend_from_slice(name);
        out.push(b'"');
        return out;
    }

    let mut out = Vec::with_capacity(name.len() + 8);
    out.push(b'\'');
    let mut in_dollar_quote = false;
    for c in &chars {
        match *c {
            Char::Unprintable(bytes) => {
                if !in_dollar_quote {
                    out.extend_from_slice(b"'$'");
                    in_dollar_quote = true;
                }
                for &b in bytes {
                    push_c_escape(&mut out, b);
                }
            }
            Char::Byte(b) => {
                if in_dollar_quote {
                    out.extend_from_slice(b"''");
                    in_dollar_quote = false;
                }
                if b == b'\'' {
                    out.extend_from_slice(b"'\\''");
                } else {
                    out.push(b);
                }
            }
            Char::Printable(bytes) => {
                if in_dollar_quote {
                    out.extend_from_slice(b"''");
                    in_dollar_quote = false;
                }
                out.extend_from_slice(bytes);
            }
        }
    }
    out.push(b'\'');
    out
}

/// The name quoted for a message, as text (invalid UTF-8 cannot survive quoting: it is escaped).
pub fn quote_name_lossless(name: &[u8]) -> String {
    // quote_name escapes every byte that is not part of valid printable UTF-8, so this is exact.
    String::from_utf8_lossy(&quote_name(name)).into_owned()
}

enum Char<'a> {
    /// A printable ASCII byte.
    Byte(u8),
    /// A printable multibyte UTF-8 character.
    Printable(&'a [u8]),
    /// A control character, DEL, a C1 control or bytes that are not valid UTF-8.
    Unprintable(&'a [u8]),
}

fn decode(name: &[u8]) -> Vec<Char<'_>> {
    let mut chars = Vec::with_capacity(name.len());
    let mut rest = name;
    while let Some(&first) = rest.first() {
        if first < 0x80 {
            if first < 0x20 || first == 0x7f {
                chars.push(Char::Unprintable(&rest[..1]));
            } else {
                chars.push(Char::Byte(first));
            }
            rest = &rest[1..];
            continue;
        }
        let width = utf8_width(first);
        let candidate = &rest[..width.min(rest.len())];
        match std::str::from_utf8(candidate) {
            Ok(s) if width > 0 => {
                let c = s.chars().next().unwrap_or('\u{fffd}');
                if c.is_control() {
                    chars.push(Char::Unprintable(candidate));
                } else {
                    chars.push(Char::Printable(candidate));
                }
                rest = &rest[candidate.len()..];
            }
            _ => {
                chars.push(Char::Unprintable(&rest[..1]));
                rest = &rest[1..];
            }
        }
    }
    chars
}

fn utf8_width(first: u8) -> usize {
    match first {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => 0,
    }
}

fn is_shell_special(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'!'
            | b'"'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b';'
            | b'<'
            | b'='
            | b'>'
            | b'?'
            | b'['
            | b'\\'
            | b'^'
            | b'`'
            | b'|'
            | b':'
    )
}

fn is_special_inside_double_quotes(b: u8) -> bool {
    matches!(
        b,
        b'!' | b'"'
            | b'$'
            | b'&'
            | b'('
            | b')'
            | b'*'
            | b';'
            | b'<'
            | b'='
            | b'>'
            | b'?'
            | b'['
            | b'\\'
            | b'^'
            | b'`'
            | b'|'
    )
}

fn push_c_escape(out: &mut Vec<u8>, b: u8) {
    let letter = match b {
        0x07 => Some(b'a'),
        0x08 => Some(b'b'),
        0x0c => Some(b'f'),
        b'\n' => Some(b'n'),
        b'\r' => Some(b'r'),
        b'\t' => Some(b't'),
        0x0b => Some(b'v'),
        _ => None,
    };
    out.push(b'\\');
    match letter {
        Some(l) => out.push(l),
        None => {
            out.push(b'0' + (b >> 6));
            out.push(b'0' + ((b >> 3) & 7));
            out.push(b'0' + (b & 7));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::quote_name;

    fn q(name: &[u8]) -> String {
        String::from_utf8(quote_name(name)).unwrap()
    }

    // Expected values observed from GNU coreutils 9.1's `sha256sum -- NAME` on a missing file.
    #[test]
    fn matches_coreutils_quotef() {
        assert_eq!(q(b"plain"), "plain");
        assert_eq!(q(b"a b"), "'a b'");
        assert_eq!(q(b"a:b"), "'a:b'");
        assert_eq!(q(b"it's"), "\"it's\"");
        assert_eq!(q(b"a'b c"), "\"a'b c\"");
        assert_eq!(q(b"a\\b"), "'a\\b'");
        assert_eq!(q(b"a\nb"), "'a'$'\\n''b'");
        assert_eq!(q(b"a\tb"), "'a'$'\\t''b'");
        assert_eq!(q(b"\xff\xfe"), "''$'\\377\\376'");
        assert_eq!(q("é".as_bytes()), "é");
        assert_eq!(q("é b".as_bytes()), "'é b'");
        assert_eq!(q(b"#x"), "'#x'");
        assert_eq!(q(b"x#"), "x#");
        assert_eq!(q(b"~x"), "'~x'");
        assert_eq!(q(b"a=b"), "'a=b'");
        assert_eq!(q(b"a{b}"), "a{b}");
        assert_eq!(q(b"a]"), "a]");
        assert_eq!(q(b"a["), "'a['");
        assert_eq!(q(b"-x"), "-x");
        assert_eq!(q(b""), "''");
        assert_eq!(q(b"a\x01b"), "'a'$'\\001''b'");
        assert_eq!(q(b"a'b$"), "'a'\\''b$'");
        assert_eq!(q(b"a\x80b"), "'a'$'\\200''b'");
        assert_eq!(q(b"\x7f"), "''$'\\177'");
        assert_eq!(q(b"a?"), "'a?'");
    }
}
