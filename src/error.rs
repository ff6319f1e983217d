//! The one error type, the exit codes, and how a message is rendered.
//!
//! Per-file failures are values, counted and reported in input order; they never end the run
//! early. Usage errors end it before any work starts. They are worded in one place,
//! `format::messages`, which renders every message.

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
    /// S3 could not be asked, or refused: where (an `s3://` URL), and why.
    S3 {
        location: String,
        failure: S3Failure,
    },
}

/// Why a request to S3 failed, in the kinds a user acts on differently (`format::messages`
/// words each in one line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum S3Failure {
    /// No credentials anywhere the AWS CLI looks; the SDK's reason.
    NoCredentials(String),
    /// Credentials that S3 does not know or whose signature it refuses: S3's error code.
    BadCredentials(String),
    /// HTTP 403 for credentials S3 accepted.
    AccessDenied,
    NoSuchBucket,
    NoSuchKey,
    /// The bucket is in another region than the one asked (S3's `x-amz-bucket-region`).
    WrongRegion(Option<String>),
    /// No answer from the endpoint: which endpoint, and the reason from the connection.
    Unreachable {
        endpoint: String,
        reason: String,
    },
    /// Any other refusal or failure, in S3's or the SDK's words.
    Other(String),
    /// This fasthash was built without the cargo feature `s3`.
    NotBuiltIn,
}

impl Error {
    pub fn usage(message: impl Into<String>) -> Error {
        Error::Usage {
            message: message.into(),
            try_help: true,
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

impl std::error::Error for Error {}
