//! The one error type, the exit codes, and how a message is rendered.
//!
//! Per-file failures are values, counted and reported in input order; they never end the run
//! early. Usage errors end it before any work starts.

use crate::format::quote::quote_name;
use std::io;

/// Exit codes, as coreutils and b3sum use them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExitStatus {
    Success = 0,
    /// A mismatch, an unreadable input, or a write error.
    Failure = 1,
    /// The command line was wrong (`fasthash` and b3sum; coreutils' own names use 1).
    Usage = 2,
}

/// How messages name files and describe errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageStyle {
    /// coreutils: the name quoted as `quotef` does, the C library's error text.
    Coreutils,
    /// b3sum: the name as lossy UTF-8, Rust's error text with its `(os error N)`.
    B3sum,
}

#[derive(Debug)]
pub enum Error {
    /// A wrong command line: the message, and whether to add the "Try --help" line.
    Usage { message: String, try_help: bool },
    /// An input that could not be opened or read.
    Input { name: Vec<u8>, source: io::Error },
    /// An input that was read but cannot be used: what is wrong with it, in words.
    Invalid { name: Vec<u8>, reason: String },
    /// Standard output failed for another reason than a closed pipe.
    Write(io::Error),
}

impl Error {
    pub fn usage(message: impl Into<String>) -> Error {
        Error::Usage {
            message: message.into(),
            try_help: true,
        }
    }

    /// The text after `PROGRAM: `, without a trailing newline.
    pub fn render(&self, style: MessageStyle) -> Vec<u8> {
        match self {
            Error::Usage { message, .. } => message.clone().into_bytes(),
            Error::Input { name, source } if style == MessageStyle::B3sum => {
                format!("{}: {source}", String::from_utf8_lossy(name)).into_bytes()
            }
            Error::Input { name, source } => {
                let mut text = quote_name(name);
                text.extend_from_slice(b": ");
                text.extend_from_slice(os_error_text(source).as_bytes());
                text
            }
            Error::Invalid { name, reason } if style == MessageStyle::B3sum => {
                format!("{}: {reason}", String::from_utf8_lossy(name)).into_bytes()
            }
            Error::Invalid { name, reason } => {
                let mut text = quote_name(name);
                text.extend_from_slice(b": ");
                text.extend_from_slice(reason.as_bytes());
                text
            }
            Error::Write(source) => format!("write error: {}", os_error_text(source)).into_bytes(),
        }
    }
}

/// The C library's text for an I/O error (`No such file or directory`), as coreutils prints it,
/// without Rust's ` (os error 2)` suffix.
pub fn os_error_text(error: &io::Error) -> String {
    let text = error.to_string();
    match text.rfind(" (os error ") {
        Some(cut) if error.raw_os_error().is_some() => text[..cut].to_string(),
        _ => text,
    }
}

/// As the reporter renders it for fasthash (what follows `fasthash: `), so that clap can carry
/// an [`Error`] from a value parser back to `config` as the source of its own error.
impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&String::from_utf8_lossy(
            &self.render(MessageStyle::Coreutils),
        ))
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_errors_lose_the_rust_suffix_and_names_are_quoted() {
        let error = Error::Input {
            name: b"a b".to_vec(),
            source: io::Error::from_raw_os_error(libc::ENOENT),
        };
        assert_eq!(
            error.render(MessageStyle::Coreutils),
            b"'a b': No such file or directory"
        );
        assert_eq!(
            error.render(MessageStyle::B3sum),
            b"a b: No such file or directory (os error 2)"
        );
        let error = Error::Write(io::Error::from_raw_os_error(libc::ENOSPC));
        assert_eq!(
            error.render(MessageStyle::Coreutils),
            b"write error: No space left on device"
        );
    }
}
