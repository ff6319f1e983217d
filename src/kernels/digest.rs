//! A digest's raw bytes, in canonical order, with the two text encodings every format uses.

use base64::Engine as _;
use std::fmt;

/// Large enough for the longest digest (SHA-512).
const MAX_DIGEST_LEN: usize = 64;

/// Raw digest bytes: the hash output for SHA-2, SHA-1, MD5 and BLAKE3; the big-endian integer
/// for xxHash and the CRCs.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Digest {
    bytes: [u8; MAX_DIGEST_LEN],
    len: u8,
}

impl Digest {
    pub fn from_slice(bytes: &[u8]) -> Digest {
        assert!(bytes.len() <= MAX_DIGEST_LEN, "digest longer than 64 bytes");
        let mut digest = Digest {
            bytes: [0; MAX_DIGEST_LEN],
            len: bytes.len() as u8,
        };
        digest.bytes[..bytes.len()].copy_from_slice(bytes);
        digest
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    /// Lowercase hex, as the coreutils tools print.
    pub fn to_hex(&self) -> String {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(self.len as usize * 2);
        for &b in self.as_bytes() {
            out.push(HEX[(b >> 4) as usize] as char);
            out.push(HEX[(b & 15) as usize] as char);
        }
        out
    }

    /// Standard padded base64, as `cksum --base64` and Amazon S3 write.
    pub fn to_base64(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(self.as_bytes())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({})", self.to_hex())
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}
