//! The quoting of file names and option arguments inside messages, as coreutils quotes them
//! through gnulib's quotearg: `quotef` for names (the shell-escape style, colons quoted too), so
//! that `fasthash: 'a b': No such file or directory` reads exactly like `sha256sum`'s message;
//! `quote` for option arguments (the locale style: `invalid length: ‘12’`).
//!
//! The rules for names, observed on coreutils and in gnulib: a name made only of safe characters
//! is printed as it is; otherwise it goes in single quotes, a `'` inside becomes `'\''`, and
//! bytes that cannot be printed are written as `$'\ooo'` (or `\n`, `\t`...) segments. A name
//! whose only trouble is a single quote (with spaces and other harmless characters) goes in
//! double quotes.
//!
//! What can be printed depends on the locale (`format::locale`): in a UTF-8 locale, printable
//! UTF-8 characters; in the C locale, printable ASCII only, so `é` is `''$'\303\251'` there.

use super::locale::{charset, Charset};

/// The name as coreutils would show it in a diagnostic, in the locale of the run.
pub fn quote_name(name: &[u8]) -> Vec<u8> {
    quote_name_in(name, charset())
}

/// The name as coreutils would show it in a diagnostic, in a locale of `charset`.
pub fn quote_name_in(name: &[u8], charset: Charset) -> Vec<u8> {
    if name.is_empty() {
        return b"''".to_vec();
    }
    let chars = decode(name, charset);
    let needs_quotes = chars.clone().enumerate().any(|(i, c)| match c {
        Char::Byte(b) => is_shell_special(b) || (i == 0 && matches!(b, b'#' | b'~')),
        Char::Printable(_) => false,
        Char::Unprintable(_) => true,
    });
    if !needs_quotes {
        return name.to_vec();
    }
    let has_single_quote = chars.clone().any(|c| matches!(c, Char::Byte(b'\'')));
    let double_quote_safe = chars.clone().all(|c| match c {
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
    for c in chars {
        match c {
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

/// An option's argument (or an option, or an algorithm's name) as coreutils' `quote` shows it
/// in a message, in the locale of the run: `‘12’` in a UTF-8 locale, `'12'` otherwise.
pub fn quote_arg(arg: impl AsRef<[u8]>) -> String {
    quote_arg_in(arg.as_ref(), charset())
}

/// gnulib's `locale_quoting_style`, for a locale of `charset` with no translation of its
/// quotation marks (`gettext_quote` in `quotearg.c`): the marks around the argument; inside, a
/// backslash doubled, the closing mark behind a backslash, and what cannot be printed as C
/// escapes (`\n`, `\377`), byte by byte.
pub fn quote_arg_in(arg: &[u8], charset: Charset) -> String {
    let (open, close) = match charset {
        Charset::Utf8 => ("\u{2018}", "\u{2019}"),
        Charset::SingleByte => ("'", "'"),
    };
    let mut out = Vec::with_capacity(arg.len() + 8);
    out.extend_from_slice(open.as_bytes());
    for c in decode(arg, charset) {
        match c {
            Char::Byte(b'\\') => out.extend_from_slice(b"\\\\"),
            Char::Byte(b) => {
                if [b] == close.as_bytes() {
                    out.push(b'\\');
                }
                out.push(b);
            }
            Char::Printable(bytes) => {
                if bytes == close.as_bytes() {
                    out.push(b'\\');
                }
                out.extend_from_slice(bytes);
            }
            Char::Unprintable(bytes) => {
                for &b in bytes {
                    push_c_escape(&mut out, b);
                }
            }
        }
    }
    out.extend_from_slice(close.as_bytes());
    // Every byte that is not part of printable UTF-8 was escaped: this loses nothing.
    String::from_utf8_lossy(&out).into_owned()
}

enum Char<'a> {
    /// A printable ASCII byte.
    Byte(u8),
    /// A printable multibyte UTF-8 character.
    Printable(&'a [u8]),
    /// A control character, DEL, a C1 control, bytes that are not valid UTF-8, and in a
    /// single-byte locale any byte above 0x7F.
    Unprintable(&'a [u8]),
}

/// The characters of `name` as a locale of `charset` reads them: in a single-byte locale
/// (coreutils' C locale) every byte above 0x7F is unprintable on its own. Read as they are
/// asked for, so that a name of any length costs no memory of its own.
fn decode(name: &[u8], charset: Charset) -> Chars<'_> {
    Chars {
        rest: name,
        charset,
    }
}

#[derive(Clone)]
struct Chars<'a> {
    rest: &'a [u8],
    charset: Charset,
}

impl<'a> Iterator for Chars<'a> {
    type Item = Char<'a>;

    fn next(&mut self) -> Option<Char<'a>> {
        let rest = self.rest;
        let &first = rest.first()?;
        if first < 0x80 || self.charset == Charset::SingleByte {
            self.rest = &rest[1..];
            return Some(match first {
                0x20..0x7f => Char::Byte(first),
                _ => Char::Unprintable(&rest[..1]),
            });
        }
        let width = utf8_width(first);
        let candidate = &rest[..width.min(rest.len())];
        match std::str::from_utf8(candidate) {
            Ok(s) if width > 0 => {
                self.rest = &rest[candidate.len()..];
                let c = s.chars().next().unwrap_or('\u{fffd}');
                Some(match c.is_control() {
                    true => Char::Unprintable(candidate),
                    false => Char::Printable(candidate),
                })
            }
            _ => {
                self.rest = &rest[1..];
                Some(Char::Unprintable(&rest[..1]))
            }
        }
    }
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

/// The characters that still need quoting inside double quotes: the shell's special ones
/// but the space, the single quote and the colon, which double quotes make harmless.
fn is_special_inside_double_quotes(b: u8) -> bool {
    is_shell_special(b) && !matches!(b, b' ' | b'\'' | b':')
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
    use super::{quote_arg_in, quote_name_in, Charset};

    fn q(name: &[u8]) -> String {
        String::from_utf8(quote_name_in(name, Charset::Utf8)).unwrap()
    }

    fn q_c(name: &[u8]) -> String {
        String::from_utf8(quote_name_in(name, Charset::SingleByte)).unwrap()
    }

    // Expected values observed from GNU coreutils 9.1's `sha256sum -- NAME` on a missing file,
    // in C.UTF-8.
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

    // In the C locale gnulib's quotearg asks isprint() byte by byte, so every byte above 0x7F
    // is escaped, valid UTF-8 or not (observed from `LC_ALL=C md5sum NAME`, coreutils 9.1).
    #[test]
    fn the_c_locale_escapes_every_byte_above_0x7f() {
        assert_eq!(q_c("é".as_bytes()), "''$'\\303\\251'");
        assert_eq!(q_c("aé b".as_bytes()), "'a'$'\\303\\251'' b'");
        assert_eq!(q_c(b"\xff\xfe"), "''$'\\377\\376'");
        assert_eq!(q_c(b"it's"), "\"it's\"");
        assert_eq!(q_c(b"plain"), "plain");
    }

    // Observed from `b2sum -l ARG f` (coreutils 9.1) in C and in C.UTF-8: gnulib's quote(),
    // locale_quoting_style.
    #[test]
    fn option_arguments_are_quoted_by_the_locale() {
        // The argument, then as quoted in C, then in C.UTF-8.
        let cases: [(&[u8], &str, &str); 4] = [
            (
                "x\n\t\x01\x7fé\u{85}\u{2019}?{#~ z".as_bytes(),
                "'x\\n\\t\\001\\177\\303\\251\\302\\205\\342\\200\\231?{#~ z'",
                "\u{2018}x\\n\\t\\001\\177é\\302\\205\\\u{2019}?{#~ z\u{2019}",
            ),
            (
                b"a\xffb\\c'",
                "'a\\377b\\\\c\\''",
                "\u{2018}a\\377b\\\\c'\u{2019}",
            ),
            (b"12", "'12'", "\u{2018}12\u{2019}"),
            (b"", "''", "\u{2018}\u{2019}"),
        ];
        for (arg, in_c, in_utf8) in cases {
            assert_eq!(quote_arg_in(arg, Charset::SingleByte), in_c);
            assert_eq!(quote_arg_in(arg, Charset::Utf8), in_utf8);
        }
    }
}
