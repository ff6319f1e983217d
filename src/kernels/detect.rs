//! CPU capabilities, detected once, and the kernel each algorithm runs on this CPU.
//!
//! Every kernel fasthash uses today comes from a crate that picks its own path at run time
//! (sha2 and sha1 through `cpufeatures`, blake3 through its `Platform::detect`, crc-fast through
//! its arch ops). [`kernel_name`] mirrors those crates' own tests, so `fasthash bench` and
//! `--version` say what actually runs. xxhash-rust is the exception: it chooses SSE2, AVX2 or
//! AVX-512 at compile time only, so a portable build runs its SSE2 path whatever the CPU has.

use super::Algorithm;
use std::sync::OnceLock;

/// The instruction-set extensions the kernels care about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Capabilities {
    pub sse2: bool,
    pub ssse3: bool,
    pub sse41: bool,
    pub sse42: bool,
    pub pclmulqdq: bool,
    pub sha_ni: bool,
    pub avx2: bool,
    pub avx512f: bool,
    pub avx512vl: bool,
    pub avx512bw: bool,
    pub vpclmulqdq: bool,
    pub neon: bool,
    pub arm_sha2: bool,
    pub arm_sha512: bool,
    pub arm_crc: bool,
    pub arm_pmull: bool,
}

impl Capabilities {
    /// This CPU's capabilities, detected on first use.
    pub fn get() -> Capabilities {
        static DETECTED: OnceLock<Capabilities> = OnceLock::new();
        *DETECTED.get_or_init(Capabilities::detect)
    }

    #[cfg(target_arch = "x86_64")]
    fn detect() -> Capabilities {
        Capabilities {
            sse2: is_x86_feature_detected!("sse2"),
            ssse3: is_x86_feature_detected!("ssse3"),
            sse41: is_x86_feature_detected!("sse4.1"),
            sse42: is_x86_feature_detected!("sse4.2"),
            pclmulqdq: is_x86_feature_detected!("pclmulqdq"),
            sha_ni: is_x86_feature_detected!("sha"),
            avx2: is_x86_feature_detected!("avx2"),
            avx512f: is_x86_feature_detected!("avx512f"),
            avx512vl: is_x86_feature_detected!("avx512vl"),
            avx512bw: is_x86_feature_detected!("avx512bw"),
            vpclmulqdq: is_x86_feature_detected!("vpclmulqdq"),
            ..Capabilities::default()
        }
    }

    #[cfg(target_arch = "aarch64")]
    fn detect() -> Capabilities {
        use std::arch::is_aarch64_feature_detected;
        Capabilities {
            neon: is_aarch64_feature_detected!("neon"),
            arm_sha2: is_aarch64_feature_detected!("sha2"),
            arm_sha512: is_aarch64_feature_detected!("sha3"),
            arm_crc: is_aarch64_feature_detected!("crc"),
            arm_pmull: is_aarch64_feature_detected!("aes"),
            ..Capabilities::default()
        }
    }

    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    fn detect() -> Capabilities {
        Capabilities::default()
    }

    /// The detected features by their usual names, for `--version` and reports.
    pub fn names(&self) -> Vec<&'static str> {
        [
            (self.sse2, "sse2"),
            (self.ssse3, "ssse3"),
            (self.sse41, "sse4.1"),
            (self.sse42, "sse4.2"),
            (self.pclmulqdq, "pclmulqdq"),
            (self.sha_ni, "sha-ni"),
            (self.avx2, "avx2"),
            (self.avx512f, "avx512f"),
            (self.avx512vl, "avx512vl"),
            (self.avx512bw, "avx512bw"),
            (self.vpclmulqdq, "vpclmulqdq"),
            (self.neon, "neon"),
            (self.arm_sha2, "sha2"),
            (self.arm_sha512, "sha512"),
            (self.arm_crc, "crc"),
            (self.arm_pmull, "pmull"),
        ]
        .into_iter()
        .filter_map(|(present, name)| present.then_some(name))
        .collect()
    }
}

/// The kernel `algorithm` runs on a CPU with `caps`, as "crate: path".
pub fn select(algorithm: Algorithm, caps: &Capabilities) -> String {
    let x86_sha_ni = caps.sha_ni && caps.sse2 && caps.ssse3 && caps.sse41;
    match algorithm {
        Algorithm::Sha256 | Algorithm::Sha224 => {
            if x86_sha_ni {
                "sha2: SHA-NI".into()
            } else if caps.arm_sha2 {
                "sha2: ARMv8 SHA2".into()
            } else {
                "sha2: portable".into()
            }
        }
        // ring picks among its assembly paths itself and does not say which.
        Algorithm::Sha512 | Algorithm::Sha384 => "ring: assembly, chosen at run time".into(),
        Algorithm::Sha1 => {
            if x86_sha_ni {
                "sha1: SHA-NI".into()
            } else if caps.arm_sha2 {
                "sha1: ARMv8 SHA1".into()
            } else {
                "sha1: portable".into()
            }
        }
        Algorithm::Md5 => "fasthash: short-chain scalar".into(),
        Algorithm::Blake3 => {
            let path = if caps.avx512f && caps.avx512vl {
                "AVX-512"
            } else if caps.avx2 {
                "AVX2"
            } else if caps.sse41 {
                "SSE4.1"
            } else if caps.sse2 {
                "SSE2"
            } else if caps.neon {
                "NEON"
            } else {
                "portable"
            };
            format!("blake3: {path}")
        }
        Algorithm::Xxh64 => "xxhash-rust: scalar".into(),
        Algorithm::Xxh3 | Algorithm::Xxh128 => {
            let path = if cfg!(target_feature = "avx512f") {
                "AVX-512"
            } else if cfg!(target_feature = "avx2") {
                "AVX2"
            } else if cfg!(target_feature = "sse2") {
                "SSE2"
            } else if cfg!(target_feature = "neon") {
                "NEON"
            } else {
                "scalar"
            };
            format!("xxhash-rust: {path} (fixed at build time)")
        }
        Algorithm::Crc32 | Algorithm::Crc32c | Algorithm::Crc64Nvme => {
            format!("crc-fast: {}", super::crc::calculator_target(algorithm))
        }
    }
}

/// The kernel `algorithm` runs on this CPU.
pub fn kernel_name(algorithm: Algorithm) -> String {
    select(algorithm, &Capabilities::get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha_ni_needs_its_companions() {
        let mut caps = Capabilities {
            sha_ni: true,
            ..Capabilities::default()
        };
        assert_eq!(select(Algorithm::Sha256, &caps), "sha2: portable");
        caps.sse2 = true;
        caps.ssse3 = true;
        caps.sse41 = true;
        assert_eq!(select(Algorithm::Sha256, &caps), "sha2: SHA-NI");
        assert_eq!(select(Algorithm::Sha1, &caps), "sha1: SHA-NI");
    }

    #[test]
    fn blake3_prefers_the_widest_vectors() {
        let mut caps = Capabilities {
            sse2: true,
            sse41: true,
            avx2: true,
            avx512f: true,
            ..Capabilities::default()
        };
        assert_eq!(select(Algorithm::Blake3, &caps), "blake3: AVX2");
        caps.avx512vl = true;
        assert_eq!(select(Algorithm::Blake3, &caps), "blake3: AVX-512");
    }

    #[test]
    fn this_cpu_has_a_kernel_for_every_algorithm() {
        for algorithm in Algorithm::all() {
            assert!(!kernel_name(algorithm).is_empty());
        }
    }
}
