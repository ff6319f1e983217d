//! The values S3 stores for an object: its checksum (of the whole object, or COMPOSITE or
//! FULL_OBJECT from its parts) and its ETag, computed from a file uploaded as asked, or from
//! standard input uploaded whole.

use super::options::{S3Options, UploadChoice};
use super::parts::hash_parts;
use super::rules::{part_limits_error, Upload};
use crate::io::read::{
    changed, changed_error, combine_crcs, directory_error, hash_file, hash_reader, ReadOptions,
};
use crate::io::Input;
use crate::kernels::{Algorithm, Digest, S3ChecksumType};
use std::fs::File;
use std::io;

/// What S3 stores (or reports) for one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct S3Checksum {
    pub algorithm: Algorithm,
    pub size: u64,
    pub checksum_type: S3ChecksumType,
    /// The checksum bytes: of the whole object (FULL_OBJECT) or of the parts' checksums
    /// (COMPOSITE).
    pub digest: Digest,
    /// Parts, when uploaded in parts.
    pub parts: Option<Parts>,
    /// The ETag, with S3's double quotes, when asked for.
    pub etag: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Parts {
    pub part_size: u64,
    pub digests: Vec<Digest>,
}

impl S3Checksum {
    /// The header value: base64 of the checksum, and `-N` for a composite of N parts.
    pub(crate) fn value(&self) -> String {
        match (&self.parts, self.checksum_type) {
            (Some(parts), S3ChecksumType::Composite) => {
                format!("{}-{}", self.digest.to_base64(), parts.digests.len())
            }
            _ => self.digest.to_base64(),
        }
    }
}

/// Computes what S3 stores for `file` uploaded as `upload`. `want_etag` adds the ETag.
pub(crate) fn compute(
    file: File,
    algorithm: Algorithm,
    upload: Upload,
    want_etag: bool,
    read: &ReadOptions,
) -> io::Result<S3Checksum> {
    let before = file.metadata()?;
    if before.is_dir() {
        return Err(directory_error(&file));
    }
    let size = before.len();
    let result = match upload {
        Upload::Single => {
            let digest = hash_file(file.try_clone()?, algorithm, read)?;
            let etag = if !want_etag {
                None
            } else if algorithm == Algorithm::Md5 {
                Some(format!("\"{}\"", digest.to_hex()))
            } else {
                let md5 = hash_file(file.try_clone()?, Algorithm::Md5, read)?;
                Some(format!("\"{}\"", md5.to_hex()))
            };
            S3Checksum {
                algorithm,
                size,
                checksum_type: S3ChecksumType::FullObject,
                digest,
                parts: None,
                etag,
            }
        }
        Upload::Multipart {
            part_size,
            checksum_type,
        } => {
            let parts = hash_parts(&file, size, part_size, algorithm, want_etag)?;
            let digests: Vec<Digest> = parts.iter().map(|p| p.digest).collect();
            let digest = match checksum_type {
                S3ChecksumType::Composite => composite(algorithm, &digests),
                // The parts' CRCs combined are the CRC of the whole object.
                S3ChecksumType::FullObject => {
                    combine_crcs(algorithm, parts.iter().map(|p| (p.digest, p.len)))
                }
            };
            let etag = want_etag.then(|| {
                let md5s: Vec<Digest> = parts.iter().filter_map(|p| p.md5).collect();
                multipart_etag(&md5s)
            });
            S3Checksum {
                algorithm,
                size,
                checksum_type,
                digest,
                parts: Some(Parts { part_size, digests }),
                etag,
            }
        }
    };
    if changed(&before, &file.metadata()?) {
        return Err(changed_error());
    }
    Ok(result)
}

/// COMPOSITE: the algorithm over the concatenated raw part checksums.
pub(crate) fn composite(algorithm: Algorithm, parts: &[Digest]) -> Digest {
    let mut hasher = crate::kernels::Hasher::new(algorithm);
    for part in parts {
        hasher.update(part.as_bytes());
    }
    hasher.finalize()
}

/// The multipart ETag: MD5 of the concatenated part MD5s, hex, `-N`, in S3's double quotes.
pub(crate) fn multipart_etag(part_md5s: &[Digest]) -> String {
    let digest = composite(Algorithm::Md5, part_md5s);
    format!("\"{}-{}\"", digest.to_hex(), part_md5s.len())
}

/// What S3 stores for one input, as the options ask: a file is opened, its upload decided by
/// its size under a preset, and the part limits checked; standard input, read once, can only
/// be a single upload.
pub(crate) fn for_input(
    input: &Input,
    algorithm: Algorithm,
    options: &S3Options,
    read: &ReadOptions,
) -> io::Result<S3Checksum> {
    let Input::Path(path) = input else {
        // Standard input streams once: a single upload only.
        if options.upload != UploadChoice::Fixed(Upload::Single) {
            return Err(io::Error::other(
                "standard input cannot be cut into parts; save it to a file first",
            ));
        }
        let mut counted = Counted {
            inner: crate::io::stdin()?,
            count: 0,
        };
        let digest = hash_reader(&mut counted, algorithm)?;
        return Ok(S3Checksum {
            algorithm,
            size: counted.count,
            checksum_type: S3ChecksumType::FullObject,
            digest,
            parts: None,
            etag: None,
        });
    };
    let file = crate::io::long_paths::open_file(path)?;
    let size = file.metadata()?.len();
    let upload = match options.upload {
        UploadChoice::Fixed(upload) => upload,
        UploadChoice::Preset(preset) => preset.upload(size),
    };
    if let (Upload::Multipart { part_size, .. }, true) = (upload, options.part_limits) {
        if let Some(message) = part_limits_error(size, part_size) {
            return Err(io::Error::other(message));
        }
    }
    compute(file, algorithm, upload, options.want_etag, read)
}

/// A reader that counts what it hands over (the size of standard input).
struct Counted<R> {
    inner: R,
    count: u64,
}

impl<R: io::Read> io::Read for Counted<R> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buffer)?;
        self.count += read as u64;
        Ok(read)
    }
}
