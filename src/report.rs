//! Where messages go: `PROGRAM: message` on standard error, written after whatever standard
//! output holds so far, so the two streams interleave in input order on a terminal.

use crate::cli::{Invocation, Personality};
use crate::error::{Error, MessageStyle};
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

static STDERR_FAILED: AtomicBool = AtomicBool::new(false);

/// Writes `text` to standard error in one piece. A failing standard error cannot be reported
/// anywhere, but it is remembered: coreutils checks standard error as it exits, and a run that
/// could not deliver a diagnostic (`2>/dev/full`) exits 1, however well it went otherwise.
pub fn write_stderr(text: &[u8]) {
    if io::stderr().lock().write_all(text).is_err() {
        STDERR_FAILED.store(true, Ordering::Relaxed);
    }
}

/// Whether some write to standard error failed (see [`write_stderr`]).
pub fn stderr_failed() -> bool {
    STDERR_FAILED.load(Ordering::Relaxed)
}

pub struct Reporter {
    program: String,
    style: MessageStyle,
}

impl Reporter {
    pub fn new(invocation: &Invocation) -> Reporter {
        let program = invocation.program.clone();
        let style = match invocation.personality {
            Personality::B3sum => MessageStyle::B3sum,
            _ => MessageStyle::Coreutils,
        };
        Reporter { program, style }
    }

    pub fn program(&self) -> &str {
        &self.program
    }

    /// Prints `PROGRAM: TEXT` on standard error (a failure is remembered: [`stderr_failed`]).
    pub fn message(&self, text: &[u8]) {
        let mut line = Vec::with_capacity(self.program.len() + text.len() + 3);
        line.extend_from_slice(self.program.as_bytes());
        line.extend_from_slice(b": ");
        line.extend_from_slice(text);
        line.push(b'\n');
        write_stderr(&line);
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
