//! Where messages go: `PROGRAM: message` on standard error, written after whatever standard
//! output holds so far, so the two streams interleave in input order on a terminal.

use crate::error::Error;
use std::io::{self, Write};

pub struct Reporter {
    program: &'static str,
}

impl Reporter {
    pub fn new(program: &'static str) -> Reporter {
        Reporter { program }
    }

    pub fn program(&self) -> &'static str {
        self.program
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
        self.message(&error.render());
    }

    /// Flushes `out` first so the message lands after the lines before it. The flush's own
    /// error is returned: it belongs to standard output.
    pub fn error_after(&self, out: &mut impl Write, error: &Error) -> io::Result<()> {
        let flushed = out.flush();
        self.error(error);
        flushed
    }
}
