//! Status lines on standard output: `--check`'s `NAME: OK` as coreutils and b3sum write them,
//! and the audit's, as text or JSON. They end in a newline whatever `-z` says: coreutils ends
//! its check lines so, and an audit's lines are read by people and line-based tools.

use super::quote::quote_name;
use std::io::{self, Write};

/// What `--check` says of one listed file, in coreutils' words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Ok,
    Failed,
    Unreadable,
}

impl Verdict {
    fn word(self) -> &'static str {
        match self {
            Verdict::Ok => "OK",
            Verdict::Failed => "FAILED",
            Verdict::Unreadable => "FAILED open or read",
        }
    }
}

/// `NAME: STATUS`, the name quoted as coreutils 9.11 and later quote it: shell quoting where
/// the name needs it (`'a\b': OK`, `'a'$'\n''b': OK`), as in its diagnostics. (9.4 to 9.10
/// wrote `\a\\b: OK`; 9.1 to 9.3 escaped only names holding a newline.)
pub fn write_verdict(out: &mut impl Write, name: &[u8], verdict: Verdict) -> io::Result<()> {
    out.write_all(&quote_name(name))?;
    out.write_all(b": ")?;
    out.write_all(verdict.word().as_bytes())?;
    out.write_all(b"\n")
}

/// `b3sum -c`'s line for one file: the name as b3sum shows it, and `OK`, `FAILED`, or
/// `FAILED (REASON)` for a file it could not read.
pub fn write_b3sum_verdict(
    out: &mut impl Write,
    shown: &str,
    verdict: Result<bool, &io::Error>,
) -> io::Result<()> {
    match verdict {
        Ok(true) => writeln!(out, "{shown}: OK"),
        Ok(false) => writeln!(out, "{shown}: FAILED"),
        Err(error) => writeln!(out, "{shown}: FAILED ({error})"),
    }
}

/// What an audit found of one file.
#[derive(Debug, PartialEq, Eq)]
pub enum AuditStatus {
    Ok,
    Failed,
    /// Listed, and there, but it could not be read.
    Unreadable(String),
    Missing,
    /// Listed under another name, which is gone; the digest matches.
    Moved {
        from: Vec<u8>,
    },
    New,
}

impl AuditStatus {
    pub fn word(&self) -> &'static str {
        match self {
            AuditStatus::Ok => "OK",
            AuditStatus::Failed => "FAILED",
            AuditStatus::Unreadable(_) => "FAILED open or read",
            AuditStatus::Missing => "MISSING",
            AuditStatus::Moved { .. } => "MOVED",
            AuditStatus::New => "NEW",
        }
    }
}

/// One audit line: `NAME: STATUS` (`NAME: MOVED from OLD`), or with `json` an object.
pub fn write_audit_status(
    out: &mut impl Write,
    name: &[u8],
    status: &AuditStatus,
    json: bool,
) -> io::Result<()> {
    if json {
        let mut object = serde_json::Map::new();
        insert_name(&mut object, "name", name);
        object.insert("status".into(), status.word().into());
        match status {
            AuditStatus::Moved { from } => insert_name(&mut object, "from", from),
            AuditStatus::Unreadable(reason) => {
                object.insert("error".into(), reason.clone().into());
            }
            _ => {}
        }
        serde_json::to_writer(&mut *out, &serde_json::Value::Object(object))?;
        return out.write_all(b"\n");
    }
    out.write_all(&quote_name(name))?;
    out.write_all(b": ")?;
    out.write_all(status.word().as_bytes())?;
    if let AuditStatus::Moved { from } = status {
        out.write_all(b" from ")?;
        out.write_all(&quote_name(from))?;
    }
    out.write_all(b"\n")
}

/// A name in JSON: as text, and exactly in `KEY_base64` when it is not UTF-8.
fn insert_name(object: &mut serde_json::Map<String, serde_json::Value>, key: &str, name: &[u8]) {
    use base64::Engine as _;
    object.insert(
        key.into(),
        String::from_utf8_lossy(name).into_owned().into(),
    );
    if std::str::from_utf8(name).is_err() {
        object.insert(
            format!("{key}_base64"),
            base64::engine::general_purpose::STANDARD
                .encode(name)
                .into(),
        );
    }
}
