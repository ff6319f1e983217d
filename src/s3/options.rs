//! The S3 options of a command line (`--s3`, `--s3-header`, `--json`, `--etag`,
//! `--part-size`, `--checksum-type`, `--s3-preset`, `--no-part-limits`) resolved into what
//! to compute and print, with S3's own refusals checked before any file is read.

use super::format::S3Format;
use super::presets::Preset;
use super::rules::{part_limits_error, Upload};
use crate::error::Error;
use crate::kernels::{Algorithm, S3ChecksumType};

/// What the S3 options ask for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct S3Options {
    pub format: S3Format,
    /// Each algorithm (in `-a` order, each once) and how its upload is decided: one part size
    /// for all, the checksum type each algorithm's own.
    pub uploads: Vec<(Algorithm, UploadChoice)>,
    pub want_etag: bool,
    /// False with `--no-part-limits`.
    pub part_limits: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UploadChoice {
    Fixed(Upload),
    /// Decided per file by its size.
    Preset(Preset),
}

impl S3Options {
    /// The algorithms, in order.
    pub fn algorithms(&self) -> impl Iterator<Item = Algorithm> + '_ {
        self.uploads.iter().map(|(algorithm, _)| *algorithm)
    }
}

/// The S3 options as typed.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Typed<'a> {
    /// `--s3`.
    pub(crate) s3: bool,
    /// `--s3-header`.
    pub(crate) header: bool,
    pub(crate) etag: bool,
    pub(crate) json: bool,
    pub(crate) part_size: Option<u64>,
    pub(crate) checksum_type: Option<&'a str>,
    /// `--s3-preset`.
    pub(crate) preset: Option<&'a str>,
    pub(crate) no_part_limits: bool,
    /// `-a` was given.
    pub(crate) algorithm_given: bool,
}

/// Resolves the S3 options into what to compute, refusing what S3 would refuse: `None` when
/// none was given. Each of `algorithms` gets its upload (a preset chooses its own algorithm).
/// `hashing` is false in the modes that compute no values (`--check`, `--verify-s3`,
/// `--merge`), which refuse the S3 options. `--json` alone is no S3 option: it is hashing's
/// own JSON then (and the audit's with `--tree`).
pub(crate) fn resolve(
    given: &Typed,
    hashing: bool,
    algorithms: &[Algorithm],
) -> Result<Option<S3Options>, Error> {
    let asked = given.s3
        || given.header
        || given.part_size.is_some()
        || given.checksum_type.is_some()
        || given.etag
        || given.preset.is_some();
    if !asked {
        return Ok(None);
    }
    if !hashing {
        return Err(Error::usage(
            "the S3 options compute values; they do not combine with --check or --verify-s3",
        ));
    }
    let format = if given.json {
        S3Format::Json
    } else if given.header {
        S3Format::Header
    } else if given.preset.is_some() {
        S3Format::Preset
    } else if given.etag && !given.s3 && !given.algorithm_given && given.checksum_type.is_none() {
        // `--etag` alone (with or without --part-size) asks for the ETag only; --s3 or -a
        // asks for the checksum value beside it.
        S3Format::Etag
    } else {
        S3Format::Value {
            with_etag: given.etag,
        }
    };
    if let Some(name) = given.preset {
        let preset = Preset::from_name(name)
            .ok_or_else(|| Error::usage(format!("unknown --s3-preset '{name}'")))?;
        if given.algorithm_given || given.part_size.is_some() || given.checksum_type.is_some() {
            return Err(Error::usage(
                "--s3-preset chooses the algorithm, part size and checksum type itself; \
                 drop -a, --part-size and --checksum-type",
            ));
        }
        let options = S3Options {
            format,
            uploads: vec![(preset.algorithm(), UploadChoice::Preset(preset))],
            want_etag: true,
            part_limits: !given.no_part_limits,
        };
        return Ok(Some(options));
    }
    let uploads = algorithms
        .iter()
        .map(|&algorithm| Ok((algorithm, UploadChoice::Fixed(upload(given, algorithm)?))))
        .collect::<Result<_, Error>>()?;
    Ok(Some(S3Options {
        format,
        uploads,
        want_etag: given.etag,
        part_limits: !given.no_part_limits,
    }))
}

/// How `algorithm`'s value is uploaded: whole, or in parts of `--part-size` as
/// `--checksum-type` (or the algorithm's default type) says, if S3 takes that.
fn upload(given: &Typed, algorithm: Algorithm) -> Result<Upload, Error> {
    let s3_names = || {
        crate::kernels::ALGORITHMS
            .iter()
            .filter(|info| info.s3_name.is_some())
            .map(|info| info.name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let info = algorithm.info();
    if info.s3_name.is_none() {
        return Err(Error::usage(format!(
            "Amazon S3 has no {} checksum; it accepts {}",
            algorithm.name(),
            s3_names()
        )));
    }
    let upload = match given.part_size {
        None => {
            if given.checksum_type.is_some() {
                return Err(Error::usage("--checksum-type needs --part-size"));
            }
            Upload::Single
        }
        Some(part_size) => {
            if !given.no_part_limits {
                // The count limit depends on each file's size and is checked per file.
                if let Some(message) = part_limits_error(0, part_size) {
                    return Err(Error::usage(format!(
                        "{message}; --no-part-limits computes it anyway"
                    )));
                }
            }
            let allowed = info.s3_multipart;
            let checksum_type = match given.checksum_type {
                Some("full-object") => S3ChecksumType::FullObject,
                Some(_) => S3ChecksumType::Composite,
                None if allowed.contains(&S3ChecksumType::Composite) => S3ChecksumType::Composite,
                None => S3ChecksumType::FullObject,
            };
            if !allowed.contains(&checksum_type) {
                let names: Vec<&str> = allowed
                    .iter()
                    .map(|t| match t {
                        S3ChecksumType::FullObject => "full-object",
                        S3ChecksumType::Composite => "composite",
                    })
                    .collect();
                return Err(Error::usage(format!(
                    "S3 takes {} multipart checksums only as {}",
                    info.s3_name.unwrap_or(info.name),
                    names.join(" or ")
                )));
            }
            Upload::Multipart {
                part_size,
                checksum_type,
            }
        }
    };
    Ok(upload)
}
