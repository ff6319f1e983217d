//! The AWS clients whose uploads `--s3-preset` predicts: the algorithm each uses, and how it
//! uploads a file of a given size.

use super::rules::{client_part_size, Upload, CLIENT_CHUNK};
use crate::kernels::{Algorithm, S3ChecksumType};

/// The clients whose uploads `--s3-preset` predicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preset {
    /// AWS CLI v2, 2.23.0 and later: CRC64NVME, FULL_OBJECT.
    AwsCliV2,
    /// AWS CLI v1: CRC32, COMPOSITE from the threshold up.
    AwsCliV1,
    /// boto3's `upload_file`: as the AWS CLI v1.
    Boto3,
}

impl Preset {
    pub(crate) fn from_name(name: &str) -> Option<Preset> {
        match name {
            "aws-cli-v2" => Some(Preset::AwsCliV2),
            "aws-cli-v1" => Some(Preset::AwsCliV1),
            "boto3" => Some(Preset::Boto3),
            _ => None,
        }
    }

    pub(crate) fn algorithm(self) -> Algorithm {
        match self {
            Preset::AwsCliV2 => Algorithm::Crc64Nvme,
            Preset::AwsCliV1 | Preset::Boto3 => Algorithm::Crc32,
        }
    }

    /// How this client uploads a `size`-byte file: whole below 8 MiB, in parts from 8 MiB
    /// (a file of exactly 8 MiB is a one-part upload).
    pub(crate) fn upload(self, size: u64) -> Upload {
        if size < CLIENT_CHUNK {
            return Upload::Single;
        }
        let checksum_type = match self {
            Preset::AwsCliV2 => S3ChecksumType::FullObject,
            Preset::AwsCliV1 | Preset::Boto3 => S3ChecksumType::Composite,
        };
        Upload::Multipart {
            part_size: client_part_size(size),
            checksum_type,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::s3::rules::MIB;

    #[test]
    fn presets_follow_the_clients() {
        assert_eq!(Preset::Boto3.upload(8 * MIB - 1), Upload::Single);
        assert_eq!(
            Preset::Boto3.upload(8 * MIB),
            Upload::Multipart {
                part_size: 8 * MIB,
                checksum_type: S3ChecksumType::Composite
            }
        );
        assert_eq!(
            Preset::AwsCliV2.upload(100 * MIB),
            Upload::Multipart {
                part_size: 8 * MIB,
                checksum_type: S3ChecksumType::FullObject
            }
        );
        assert_eq!(Preset::AwsCliV1.algorithm(), Algorithm::Crc32);
        assert_eq!(Preset::AwsCliV2.algorithm(), Algorithm::Crc64Nvme);
    }
}
