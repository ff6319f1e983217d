//! The S3 outputs: `VALUE  NAME` lines, `x-amz-checksum-*` header lines, ETag lines, preset
//! lines, and one JSON object a line; and `--verify-s3`'s verdict, as lines or one object.

use super::values::S3Checksum;
use crate::format::escape::{escape_name, needs_escape};
use crate::format::json::{insert_name, typed, write_object};
use crate::format::quote::quote_name;
use crate::format::status::{file_object, FileStatus};
use crate::kernels::{Algorithm, S3ChecksumType};
use serde_json::{Map, Value};
use std::io::{self, Write};

/// Which S3 text a run prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum S3Format {
    /// `--s3`: `VALUE  NAME` (`VALUE ETAG  NAME` with `--etag`).
    Value { with_etag: bool },
    /// `--etag` alone: `"ETAG"  NAME`.
    Etag,
    /// `--s3-header`: `x-amz-checksum-ALGO: VALUE`, then `ETag: "ETAG"` with `--etag`.
    Header,
    /// `--s3-preset`: `ALGORITHM TYPE VALUE "ETAG"  NAME`.
    Preset,
    /// `--json`.
    Json,
}

/// Writes `fields` then the name, in GNU layout: a name with a backslash, newline or carriage
/// return is escaped and the line starts with `\`, as coreutils writes it; `-z` ends the line
/// with NUL and leaves the name alone; no name with `--no-names`.
pub(crate) fn write_fields_line(
    out: &mut impl Write,
    fields: &str,
    name: &[u8],
    with_name: bool,
    zero_terminated: bool,
) -> io::Result<()> {
    let terminator = crate::format::line_end(zero_terminated);
    if !with_name {
        out.write_all(fields.as_bytes())?;
        return out.write_all(&[terminator]);
    }
    let escape = !zero_terminated && needs_escape(name);
    if escape {
        out.write_all(b"\\")?;
    }
    out.write_all(fields.as_bytes())?;
    out.write_all(b"  ")?;
    if escape {
        out.write_all(&escape_name(name))?;
    } else {
        out.write_all(name)?;
    }
    out.write_all(&[terminator])
}

/// Every algorithm's result for one file, in order, in the chosen format. Header lines give
/// the ETag, which is the file's and not an algorithm's, once: after every checksum header.
pub(crate) fn write_s3_results(
    out: &mut impl Write,
    format: S3Format,
    results: &[S3Checksum],
    name: &[u8],
    with_name: bool,
    zero_terminated: bool,
) -> io::Result<()> {
    for result in results {
        write_s3(out, format, result, name, with_name, zero_terminated)?;
    }
    // `--etag` asked for it too: the header S3 sends it in.
    match results.last().and_then(|result| result.etag.as_deref()) {
        Some(etag) if format == S3Format::Header => {
            write_fields_line(out, &format!("ETag: {etag}"), name, false, zero_terminated)
        }
        _ => Ok(()),
    }
}

/// One result in the chosen format; a header line without the ETag, which
/// [`write_s3_results`] adds once after a file's checksum headers.
fn write_s3(
    out: &mut impl Write,
    format: S3Format,
    result: &S3Checksum,
    name: &[u8],
    with_name: bool,
    zero_terminated: bool,
) -> io::Result<()> {
    let etag = result.etag.as_deref().unwrap_or("");
    match format {
        S3Format::Value { with_etag: false } => {
            write_fields_line(out, &result.value(), name, with_name, zero_terminated)
        }
        S3Format::Value { with_etag: true } => write_fields_line(
            out,
            &format!("{} {etag}", result.value()),
            name,
            with_name,
            zero_terminated,
        ),
        S3Format::Etag => write_fields_line(out, etag, name, with_name, zero_terminated),
        S3Format::Header => {
            let header = result
                .algorithm
                .info()
                .s3_header
                .unwrap_or("x-amz-checksum");
            write_fields_line(
                out,
                &format!("{header}: {}", result.value()),
                name,
                false,
                zero_terminated,
            )
        }
        S3Format::Preset => write_fields_line(
            out,
            &format!(
                "{} {} {} {etag}",
                result.algorithm.info().s3_name.unwrap_or(""),
                result.checksum_type.s3_name(),
                result.value()
            ),
            name,
            with_name,
            zero_terminated,
        ),
        S3Format::Json => write_object(out, json(result, name)),
    }
}

/// The JSON object for one file (its name as [`insert_name`] puts every name).
fn json(result: &S3Checksum, name: &[u8]) -> Map<String, Value> {
    let info = result.algorithm.info();
    let mut object = Map::new();
    insert_name(&mut object, "name", name);
    object.insert("size".into(), result.size.into());
    object.insert("algorithm".into(), info.s3_name.into());
    object.insert("digest".into(), result.digest.to_hex().into());
    object.insert("s3_header".into(), info.s3_header.into());
    object.insert("s3_value".into(), result.value().into());
    object.insert(
        "checksum_type".into(),
        result.checksum_type.s3_name().into(),
    );
    if let Some(parts) = &result.parts {
        object.insert("part_size".into(), parts.part_size.into());
        object.insert("part_count".into(), parts.digests.len().into());
        let values = parts.digests.iter().map(|d| Value::from(d.to_base64()));
        object.insert("part_values".into(), values.collect());
    }
    if let Some(etag) = &result.etag {
        object.insert("etag".into(), etag.clone().into());
    }
    object
}

/// One field of S3's JSON that `--verify-s3` compared with the file, and what it found.
#[derive(Debug)]
pub(crate) struct FieldCheck {
    pub field: Field,
    /// The value as S3 reported it (an ETag without its quotes).
    pub expected: String,
    pub result: FieldResult,
}

/// Which field, and how it was compared.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Field {
    ContentLength,
    /// A checksum: of the whole file (`FULL_OBJECT`, no part count), or `COMPOSITE` of
    /// `part_count` parts (`None` when S3 gave no count).
    Checksum {
        algorithm: Algorithm,
        checksum_type: S3ChecksumType,
        part_count: Option<u64>,
    },
    /// The ETag: the MD5 of the file, or with a part count the MD5 of the parts' MD5s.
    Etag {
        part_count: Option<u64>,
    },
}

/// What the comparison of one field came to.
#[derive(Debug)]
pub(crate) enum FieldResult {
    /// The file gives the value; `part_size` is the part size it was found with, for a
    /// value of parts.
    Matched {
        computed: String,
        part_size: Option<u64>,
    },
    /// The file gives another value.
    Differs { computed: String },
    /// A value of parts that none of the part sizes giving its count reproduces.
    NoPartSize { tried: Vec<u64> },
    /// The value cannot be computed from the file: why.
    CannotVerify(&'static str),
}

impl FieldCheck {
    /// The field's name in S3's JSON.
    fn name(&self) -> String {
        match &self.field {
            Field::ContentLength => "ContentLength".into(),
            Field::Checksum { algorithm, .. } => {
                format!("Checksum{}", algorithm.info().s3_name.unwrap_or(""))
            }
            Field::Etag { .. } => "ETag".into(),
        }
    }

    /// A value of this field as the text line shows it: an ETag in its quotes.
    fn shown(&self, value: &str) -> String {
        match self.field {
            Field::Etag { .. } => format!("\"{value}\""),
            _ => value.to_string(),
        }
    }

    fn status(&self) -> &'static str {
        match self.result {
            FieldResult::Matched { .. } => "OK",
            FieldResult::Differs { .. } | FieldResult::NoPartSize { .. } => "FAILED",
            FieldResult::CannotVerify(_) => "CANNOT_VERIFY",
        }
    }
}

/// `--verify-s3`'s text line for one field: `FIELD: OK` (with the parts it matched in),
/// `FIELD: FAILED (S3: VALUE, computed: VALUE)`, or `FIELD: cannot verify (REASON)`.
pub(crate) fn write_field_line(out: &mut impl Write, check: &FieldCheck) -> io::Result<()> {
    let field = check.name();
    let expected = check.shown(&check.expected);
    let part_count = match check.field {
        Field::Checksum { part_count, .. } | Field::Etag { part_count } => part_count,
        Field::ContentLength => None,
    };
    match &check.result {
        FieldResult::Matched { part_size, .. } => {
            let detail = match (&check.field, part_size, part_count) {
                (Field::Checksum { .. }, Some(size), Some(count)) => {
                    format!(" (COMPOSITE, {count} parts of {size} bytes)")
                }
                (Field::Etag { .. }, Some(size), _) => {
                    format!(" (multipart, parts of {size} bytes)")
                }
                _ => String::new(),
            };
            writeln!(out, "{field}: OK{detail}")
        }
        FieldResult::Differs { computed } => {
            let label = match check.field {
                Field::ContentLength => "file",
                _ => "computed",
            };
            let computed = check.shown(computed);
            writeln!(out, "{field}: FAILED (S3: {expected}, {label}: {computed})")
        }
        FieldResult::NoPartSize { tried } => {
            let count = part_count.unwrap_or(0);
            let tried = if tried.is_empty() {
                "none".to_string()
            } else {
                let sizes: Vec<String> = tried.iter().map(u64::to_string).collect();
                sizes.join(", ")
            };
            writeln!(
                out,
                "{field}: FAILED (S3: {expected}; no part size giving {count} parts matches; \
                 tried {tried})"
            )
        }
        FieldResult::CannotVerify(reason) => writeln!(out, "{field}: cannot verify ({reason})"),
    }
}

/// `--verify-s3`'s last text line: `FILE: OK` or `FILE: FAILED`.
pub(crate) fn write_verify_line(out: &mut impl Write, file: &[u8], ok: bool) -> io::Result<()> {
    let mut line = quote_name(file);
    line.extend_from_slice(if ok { b": OK\n" } else { b": FAILED\n" });
    out.write_all(&line)
}

/// What `--verify-s3` names in its JSON object: the file, and where S3's values came from.
pub(crate) struct Compared<'a> {
    pub file: &'a [u8],
    pub source: ValuesFrom<'a>,
}

/// Where `--verify-s3` read what S3 reports.
#[derive(Clone, Copy)]
pub(crate) enum ValuesFrom<'a> {
    /// A file of `aws s3api` JSON.
    S3Json(&'a [u8]),
    /// The object itself (`s3://BUCKET/KEY`), asked with HeadObject.
    Object(&'a str),
}

/// `--verify-s3 --json`: the verdict as one object, each field compared in `fields`.
pub(crate) fn write_verify_json(
    out: &mut impl Write,
    compared: &Compared,
    size: u64,
    fields: &[FieldCheck],
    ok: bool,
) -> io::Result<()> {
    let mut object = verify_object(compared, if ok { "OK" } else { "FAILED" });
    object.insert("size".into(), size.into());
    let fields: Vec<Value> = fields.iter().map(field_json).collect();
    object.insert("fields".into(), fields.into());
    write_object(out, object)
}

/// `--verify-s3 --json` for a file that could not be read: the system's reason.
pub(crate) fn write_verify_error_json(
    out: &mut impl Write,
    compared: &Compared,
    reason: &str,
) -> io::Result<()> {
    let mut object = verify_object(compared, "UNREADABLE");
    object.insert("error".into(), reason.into());
    write_object(out, object)
}

fn verify_object(compared: &Compared, status: &str) -> Map<String, Value> {
    let mut object = typed("verify_s3");
    insert_name(&mut object, "name", compared.file);
    match compared.source {
        ValuesFrom::S3Json(path) => insert_name(&mut object, "s3_json", path),
        ValuesFrom::Object(url) => {
            object.insert("object".into(), url.into());
        }
    }
    object.insert("status".into(), status.into());
    object
}

pub(crate) fn field_json(check: &FieldCheck) -> Value {
    let mut object = Map::new();
    object.insert("field".into(), check.name().into());
    object.insert("status".into(), check.status().into());
    // A size is a number, as S3 prints it; the other values are text.
    let value = |text: &str| match check.field {
        Field::ContentLength => text
            .parse::<u64>()
            .map_or_else(|_| text.into(), Value::from),
        _ => Value::from(text),
    };
    object.insert("expected".into(), value(&check.expected));
    match &check.field {
        Field::ContentLength => {}
        Field::Checksum {
            algorithm,
            checksum_type,
            part_count,
        } => {
            object.insert("algorithm".into(), algorithm.to_string().into());
            object.insert("checksum_type".into(), checksum_type.s3_name().into());
            if let Some(count) = part_count {
                object.insert("part_count".into(), (*count).into());
            }
        }
        Field::Etag { part_count } => {
            if let Some(count) = part_count {
                object.insert("part_count".into(), (*count).into());
            }
        }
    }
    match &check.result {
        FieldResult::Matched {
            computed,
            part_size,
        } => {
            object.insert("computed".into(), value(computed));
            if let Some(size) = part_size {
                object.insert("part_size".into(), (*size).into());
            }
        }
        FieldResult::Differs { computed } => {
            object.insert("computed".into(), value(computed));
        }
        FieldResult::NoPartSize { tried } => {
            object.insert("tried_part_sizes".into(), tried.clone().into());
        }
        FieldResult::CannotVerify(reason) => {
            object.insert("reason".into(), (*reason).into());
        }
    }
    Value::Object(object)
}

/// `--verify-s3 s3://BUCKET/PREFIX/ DIR --json`: one file's object in the audit's shape
/// (`"type": "file"`, name, status), with the object's URL where the audit names a manifest
/// line, and each field compared as `--verify-s3` of one object gives it.
pub(crate) fn write_tree_file_json(
    out: &mut impl Write,
    name: &[u8],
    status: &FileStatus,
    object: Option<&str>,
    fields: &[FieldCheck],
) -> io::Result<()> {
    let mut json = file_object(name, status);
    if let Some(url) = object {
        json.insert("object".into(), url.into());
    }
    if !fields.is_empty() {
        json.insert("fields".into(), fields.iter().map(field_json).collect());
    }
    write_object(out, json)
}
