//! The values S3 stores for an object: its checksum (of the whole object, or COMPOSITE or
//! FULL_OBJECT from its parts) and its ETag, computed from a file uploaded as asked, or from
//! standard input uploaded whole.

use super::options::{S3Options, UploadChoice};
use super::parts::hash_parts;
use super::rules::{part_limits_error, too_many_parts_error, Upload};
use crate::io::large::combine_crcs;
use crate::io::multi::Several;
use crate::io::read::{
    changed, changed_error, directory_error, hash_file_with, Hashing, ReadOptions,
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
    let mut results = compute_all(file, &[(algorithm, upload)], want_etag, read)?;
    Ok(results.remove(0))
}

/// What S3 stores for `file` for each of `uploads` (every one whole, or every one in parts of
/// one size), and the ETag when `want_etag`: one read of the file feeds every algorithm and
/// the ETag's MD5s.
pub(crate) fn compute_all(
    file: File,
    uploads: &[(Algorithm, Upload)],
    want_etag: bool,
    read: &ReadOptions,
) -> io::Result<Vec<S3Checksum>> {
    let before = file.metadata()?;
    if before.is_dir() {
        return Err(directory_error(&file));
    }
    let size = before.len();
    let hashed = with_md5(uploads, want_etag);
    let results = match uploads.first().map(|(_, upload)| *upload) {
        None | Some(Upload::Single) => {
            // The file itself, not a copy of its descriptor (`try_clone`): under a low
            // `ulimit -n` the copy was one descriptor too many (`-j 64` under `ulimit -n 8`
            // lost 414 of 3,000 files to it).
            let digests = match hashed.as_slice() {
                // One algorithm alone keeps its fastest path (a CRC on every core).
                &[algorithm] => vec![hash_file_with(&file, &algorithm, read)?],
                algorithms => hash_file_with(&file, &Several::new(algorithms, read), read)?.digests,
            };
            whole(uploads, &hashed, &digests, size, want_etag)
        }
        Some(Upload::Multipart { part_size, .. }) => {
            let parts = hash_parts(&file, size, part_size, &hashed, read)?;
            let etag = want_etag.then(|| {
                let md5 = position(&hashed, Algorithm::Md5);
                let md5s: Vec<Digest> = parts.iter().map(|p| p.digests[md5]).collect();
                multipart_etag(&md5s)
            });
            uploads
                .iter()
                .enumerate()
                .map(|(index, &(algorithm, upload))| {
                    let checksum_type = match upload {
                        Upload::Multipart { checksum_type, .. } => checksum_type,
                        Upload::Single => S3ChecksumType::FullObject,
                    };
                    let digests: Vec<Digest> = parts.iter().map(|p| p.digests[index]).collect();
                    let digest = match checksum_type {
                        S3ChecksumType::Composite => composite(algorithm, &digests),
                        // The parts' CRCs combined are the CRC of the whole object.
                        S3ChecksumType::FullObject => combine_crcs(
                            algorithm,
                            digests.iter().zip(&parts).map(|(d, p)| (*d, p.len)),
                        ),
                    };
                    S3Checksum {
                        algorithm,
                        size,
                        checksum_type,
                        digest,
                        parts: Some(Parts { part_size, digests }),
                        etag: etag.clone(),
                    }
                })
                .collect()
        }
    };
    // A pipe's times move as it is written: only a regular file can be said to have changed.
    if before.is_file() && changed(&before, &file.metadata()?) {
        return Err(changed_error());
    }
    Ok(results)
}

/// The algorithms one read hashes with: the uploads' own, and MD5 for the ETag when it is not
/// among them.
fn with_md5(uploads: &[(Algorithm, Upload)], want_etag: bool) -> Vec<Algorithm> {
    let mut algorithms: Vec<Algorithm> = uploads.iter().map(|(a, _)| *a).collect();
    if want_etag && !algorithms.contains(&Algorithm::Md5) {
        algorithms.push(Algorithm::Md5);
    }
    algorithms
}

fn position(algorithms: &[Algorithm], algorithm: Algorithm) -> usize {
    algorithms
        .iter()
        .position(|a| *a == algorithm)
        .expect("with_md5 lists MD5 when the ETag is wanted")
}

/// The values of an object uploaded whole, from the digests of `hashed` (the uploads'
/// algorithms first, in order, then MD5 when added for the ETag): the ETag is the MD5 in hex.
fn whole(
    uploads: &[(Algorithm, Upload)],
    hashed: &[Algorithm],
    digests: &[Digest],
    size: u64,
    want_etag: bool,
) -> Vec<S3Checksum> {
    let etag = want_etag.then(|| {
        let md5 = digests[position(hashed, Algorithm::Md5)];
        format!("\"{}\"", md5.to_hex())
    });
    uploads
        .iter()
        .zip(digests)
        .map(|(&(algorithm, _), &digest)| S3Checksum {
            algorithm,
            size,
            checksum_type: S3ChecksumType::FullObject,
            digest,
            parts: None,
            etag: etag.clone(),
        })
        .collect()
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

/// What S3 stores for one input, for each algorithm the options ask for: a file is opened,
/// its upload decided by its size under a preset, and the part limits checked; standard input,
/// read once, can only be a single upload.
pub(crate) fn for_input(
    input: &Input,
    options: &S3Options,
    read: &ReadOptions,
) -> io::Result<Vec<S3Checksum>> {
    let Input::Path(path) = input else {
        // Standard input streams once: a single upload only.
        if options
            .uploads
            .iter()
            .any(|(_, upload)| *upload != UploadChoice::Fixed(Upload::Single))
        {
            return Err(io::Error::other(
                "standard input cannot be cut into parts; save it to a file first",
            ));
        }
        let uploads: Vec<(Algorithm, Upload)> = options
            .algorithms()
            .map(|algorithm| (algorithm, Upload::Single))
            .collect();
        let hashed = with_md5(&uploads, options.want_etag);
        let read_once = Several::new(&hashed, read).reader(crate::io::stdin()?)?;
        return Ok(whole(
            &uploads,
            &hashed,
            &read_once.digests,
            read_once.size,
            options.want_etag,
        ));
    };
    let file = crate::io::long_paths::open_file(path)?;
    let size = file.metadata()?.len();
    let uploads: Vec<(Algorithm, Upload)> = options
        .uploads
        .iter()
        .map(|&(algorithm, choice)| match choice {
            UploadChoice::Fixed(upload) => (algorithm, upload),
            UploadChoice::Preset(preset) => (algorithm, preset.upload(size)),
        })
        .collect();
    if let Some((_, Upload::Multipart { part_size, .. })) = uploads.first() {
        let refused = match options.part_limits {
            true => part_limits_error(size, *part_size),
            false => too_many_parts_error(size, *part_size),
        };
        if let Some(message) = refused {
            return Err(io::Error::other(message));
        }
    }
    compute_all(file, &uploads, options.want_etag, read)
}
