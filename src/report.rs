//! Where messages go: `PROGRAM: message` on standard error, written after whatever standard
//! output holds so far, so the two streams interleave in input order on a terminal.

use crate::cli::Personality;
use crate::error::{Error, MessageStyle};
use std::io::{self, Write};

pub struct Reporter {
    program: String,
    style: MessageStyle,
}

impl Reporter {
    pub fn new(personality: Personality, program: String) -> Reporter {
        let style = match personality {
            Personality::B3sum => MessageStyle::B3sum,
            _ => MessageStyle::Coreutils,
        };
        Reporter { program, style }
    }

    pub fn program(&self) -> &str {
        &self.program
    }

    /// Prints `PROGRAM: TEXT` on standard error. A failing standard error cannot be reported
    /// anywhere, so its errors are dropped.
    pub fn message(&self, text: &[u8]) {
        let mut stderr = io::stderr().lock();
        let _ = stderr.write_all(self.program.as_bytes());
        let _ = stderr.write_all(b": ");
        let _ = stderr.write_all(text);
        let _ = stderr.write_all(b"\n");
    }

    pub fn error(&self, error: &Error) {
        self.message(&error.render(self.style));
    }

    /// A message placed after what `out` holds so far (see `error_after`).
    pub fn message_after(&self, out: &mut impl Write, text: &[u8]) -> io::Result<()> {
        let flushed = out.flush();
        self.message(text);
        flushed
    }

    /// Flushes `out` first so the message lands after the lines before it. The flush's own
    /// error is returned: it belongs to standard output.
    pub fn error_after(&self, out: &mut impl Write, error: &Error) -> io::Result<()> {
        let flushed = out.flush();
        self.error(error);
        flushed
    }
}
