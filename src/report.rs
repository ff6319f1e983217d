//! Where messages go: `PROGRAM: message` on standard error, written after whatever standard
//! output holds so far, so the two streams interleave in input order on a terminal.

use crate::check::Tally;
use crate::cli::Invocation;
use crate::error::{Error, ExitStatus, MessageStyle};
use crate::format::messages::Message;
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

/// What a run did, for `--stats`'s closing line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Files hashed, or that could not be (hashing, `--verify-s3`).
    pub files: u64,
    /// Of those, the ones that could not be read.
    pub failed: u64,
    /// What a check or an audit tallied, in place of the two above.
    pub verified: Option<Verified>,
}

/// The tally of `--check`, of an audit (`--check --tree`), or of `--verify-s3` of a tree,
/// whose words differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verified {
    Check(Tally),
    Audit(Tally),
    Bucket(Tally),
}

impl Counts {
    /// One file hashed, or one that could not be read.
    pub fn file(&mut self, failed: bool) {
        self.files += 1;
        self.failed += u64::from(failed);
    }

    /// A check's or an audit's counts: its tally alone.
    pub fn verified(tally: Verified) -> Counts {
        Counts {
            verified: Some(tally),
            ..Counts::default()
        }
    }
}

impl Reporter {
    pub fn new(invocation: &Invocation) -> Reporter {
        let program = invocation.program.clone();
        let style = invocation.personality.message_style();
        Reporter { program, style }
    }

    /// Prints `PROGRAM: MESSAGE` (or the bare message, for those printed so:
    /// [`Message::names_the_program`]) on standard error (a failure is remembered:
    /// [`stderr_failed`]).
    pub fn say(&self, message: &Message) {
        let text = message.render(self.style);
        let mut line = Vec::with_capacity(self.program.len() + text.len() + 3);
        if message.names_the_program() {
            line.extend_from_slice(self.program.as_bytes());
            line.extend_from_slice(b": ");
        }
        line.extend_from_slice(&text);
        line.push(b'\n');
        write_stderr(&line);
    }

    /// The one policy for a failed write to standard output, in every mode. A reader that
    /// went away (a closed pipe, `| head -1`) ends the run at once and in silence, as SIGPIPE
    /// ends coreutils, and is no error of fasthash's: the status is `so_far`, what the run had
    /// earned by then (output that went out whole has; a check that stopped before it verified
    /// everything has not). Any other failure (a full disk, a closed descriptor) is reported
    /// as `write error: REASON` and fails the run.
    ///
    /// Where whoever started fasthash had SIGPIPE ignored (`trap '' PIPE`), coreutils is not
    /// ended by it but sees the write fail, and says so: `write error`, exit 1. So does
    /// fasthash then, with the reason (`write error: Broken pipe`), where it had exited 0 in
    /// silence with the output lost.
    pub fn output_failed(&self, error: io::Error, so_far: ExitStatus) -> ExitStatus {
        if reader_went_away(&error) {
            return so_far;
        }
        self.error(&Error::Write(error));
        ExitStatus::Failure
    }

    pub fn error(&self, error: &Error) {
        self.say(&Message::Error(error));
    }

    /// Flushes `out` first so the message lands after the lines before it. The flush's own
    /// error is returned: it belongs to standard output.
    pub fn say_after(&self, out: &mut impl Write, message: &Message) -> io::Result<()> {
        let flushed = out.flush();
        self.say(message);
        flushed
    }

    /// An error placed after what `out` holds so far (see [`Reporter::say_after`]).
    pub fn error_after(&self, out: &mut impl Write, error: &Error) -> io::Result<()> {
        self.say_after(out, &Message::Error(error))
    }
}

/// Whether a failed write to standard output means its reader went away, which ends a run at
/// once and in silence ([`Reporter::output_failed`]): a broken pipe, where SIGPIPE was not
/// ignored.
pub(crate) fn reader_went_away(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::BrokenPipe && !sigpipe_was_ignored()
}

/// Whether SIGPIPE was ignored when the process started. Rust's runtime ignores it before
/// `main` runs, so the disposition inherited from the parent is read earlier still
/// ([`note_sigpipe_at_start`], from `main.rs`'s `.init_array` entry).
fn sigpipe_was_ignored() -> bool {
    SIGPIPE_IGNORED_AT_START.load(Ordering::Relaxed)
}

static SIGPIPE_IGNORED_AT_START: AtomicBool = AtomicBool::new(false);

/// Notes whether SIGPIPE is ignored; called before Rust's runtime starts.
pub fn note_sigpipe_at_start() {
    // SAFETY: sigaction with no new action only reads the current one into `old`, ours.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGPIPE, std::ptr::null(), &mut old) == 0 {
            SIGPIPE_IGNORED_AT_START.store(old.sa_sigaction == libc::SIG_IGN, Ordering::Relaxed);
        }
    }
}
