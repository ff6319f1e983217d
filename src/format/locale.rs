//! The locale's character set, read once from the environment as coreutils reads it: it decides
//! which bytes of a name are printable in a message (`format::quote`) and which quotation marks
//! surround an option's argument (`‘12’` or `'12'`).
//!
//! coreutils starts with `setlocale (LC_ALL, "")`: `LC_ALL`, then `LC_CTYPE`, then `LANG`, the
//! first that is set and not empty naming the locale. When any category names a locale that is
//! not installed the call fails as a whole and the program stays in the C locale, whose charset
//! is ASCII: bytes above 0x7F are not printable there. gnulib's quotearg then asks the C
//! library, byte by byte (`isprint`) in a single-byte locale, character by character
//! (`mbrtowc`, `iswprint`) in a multibyte one; and its `gettext_quote` picks `‘’` when
//! `locale_charset ()` is UTF-8.
//!
//! The same question is put to the C library here, through `newlocale`, which reads the
//! environment as `setlocale` does and fails as it fails, without changing the process's own
//! locale (other threads may be running).

use std::sync::OnceLock;

/// The character set messages are written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Charset {
    /// A UTF-8 locale (`C.UTF-8`, `en_US.UTF-8`...): valid printable UTF-8 is printable.
    Utf8,
    /// The C locale, or another that is not UTF-8: only printable ASCII is printable.
    SingleByte,
}

/// The locale's charset, read from the environment on first use and kept for the run.
pub fn charset() -> Charset {
    static CHARSET: OnceLock<Charset> = OnceLock::new();
    *CHARSET.get_or_init(charset_from_environment)
}

/// What `nl_langinfo (CODESET)` says after `setlocale (LC_ALL, "")`, asked without changing the
/// process's locale.
fn charset_from_environment() -> Charset {
    // SAFETY: the locale name is a valid NUL-terminated string, and a null base asks for a new
    // locale object; newlocale only reads the environment.
    let locale = unsafe { libc::newlocale(libc::LC_ALL_MASK, c"".as_ptr(), std::ptr::null_mut()) };
    if locale.is_null() {
        // Some category names a locale that is not installed: coreutils stays in C.
        return Charset::SingleByte;
    }
    // SAFETY: `locale` is a valid locale object until freelocale below; nl_langinfo_l returns
    // a NUL-terminated string owned by it, read before it is freed.
    let utf8 = unsafe {
        let codeset = libc::nl_langinfo_l(libc::CODESET, locale);
        let utf8 = !codeset.is_null() && is_utf8_name(std::ffi::CStr::from_ptr(codeset).to_bytes());
        libc::freelocale(locale);
        utf8
    };
    if utf8 {
        Charset::Utf8
    } else {
        Charset::SingleByte
    }
}

/// `UTF-8` in any case, and the `utf8` spelling of locale names.
fn is_utf8_name(codeset: &[u8]) -> bool {
    codeset.eq_ignore_ascii_case(b"UTF-8") || codeset.eq_ignore_ascii_case(b"utf8")
}

#[cfg(test)]
mod tests {
    use super::is_utf8_name;

    #[test]
    fn utf8_is_recognised_in_its_spellings_only() {
        for name in [&b"UTF-8"[..], b"utf-8", b"utf8", b"UTF8"] {
            assert!(is_utf8_name(name), "{}", String::from_utf8_lossy(name));
        }
        for name in [&b"ANSI_X3.4-1968"[..], b"ISO-8859-1", b"UTF-16", b""] {
            assert!(!is_utf8_name(name), "{}", String::from_utf8_lossy(name));
        }
    }
}
