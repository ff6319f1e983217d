//! Everything that touches files: naming inputs, reading them, and hashing many of them in
//! parallel with results handed back in input order.

pub mod parallel;
pub mod read;

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

/// One thing to hash, named as the user named it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// `-`, or no file at all.
    Stdin,
    Path(PathBuf),
}

impl Input {
    pub fn from_arg(arg: OsString) -> Input {
        if arg == "-" {
            Input::Stdin
        } else {
            Input::Path(PathBuf::from(arg))
        }
    }

    /// The name as printed in digest lines and messages: the bytes the user gave.
    pub fn name_bytes(&self) -> &[u8] {
        match self {
            Input::Stdin => b"-",
            Input::Path(path) => OsStr::as_bytes(path.as_os_str()),
        }
    }
}
