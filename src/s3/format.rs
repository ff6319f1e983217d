//! The S3 outputs: `VALUE  NAME` lines, `x-amz-checksum-*` header lines, ETag lines, preset
//! lines, and one JSON object a line.

use super::values::S3Checksum;
use crate::format::escape::{escape_name, needs_escape};
use base64::Engine as _;
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

/// One result in the chosen format.
pub(crate) fn write_s3(
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
            )?;
            // `--etag` asked for it too: the header S3 sends it in.
            match &result.etag {
                Some(etag) => {
                    write_fields_line(out, &format!("ETag: {etag}"), name, false, zero_terminated)
                }
                None => Ok(()),
            }
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
        S3Format::Json => {
            let mut line = serde_json::to_vec(&json(result, name))?;
            line.push(b'\n');
            out.write_all(&line)
        }
    }
}

/// The JSON object for one file. A name that is not UTF-8 is given lossily in `name` and
/// exactly, base64-encoded, in `name_base64`.
pub(crate) fn json(result: &S3Checksum, name: &[u8]) -> serde_json::Value {
    let info = result.algorithm.info();
    let mut object = serde_json::json!({
        "name": String::from_utf8_lossy(name),
        "size": result.size,
        "algorithm": info.s3_name,
        "digest": result.digest.to_hex(),
        "s3_header": info.s3_header,
        "s3_value": result.value(),
        "checksum_type": result.checksum_type.s3_name(),
    });
    let map = object
        .as_object_mut()
        .expect("json! of an object literal is an object");
    if std::str::from_utf8(name).is_err() {
        map.insert(
            "name_base64".into(),
            base64::engine::general_purpose::STANDARD
                .encode(name)
                .into(),
        );
    }
    if let Some(parts) = &result.parts {
        map.insert("part_size".into(), parts.part_size.into());
        map.insert("part_count".into(), parts.digests.len().into());
        map.insert(
            "part_values".into(),
            parts
                .digests
                .iter()
                .map(|d| serde_json::Value::from(d.to_base64()))
                .collect(),
        );
    }
    if let Some(etag) = &result.etag {
        map.insert("etag".into(), etag.clone().into());
    }
    object
}
