//! CPU capabilities, detected once, and the names of kernels.
//!
//! Which engine each algorithm runs is decided in `table`, from these capabilities: a pure
//! selection tested on made-up CPUs, overridden by `FASTHASH_KERNEL` (for bug reports and
//! tests), made once per algorithm on first use.

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
    /// BMI1 and BMI2 (`andn`, `rorx`): the scalar rounds of our one-stream SHA-512, and (BMI1)
    /// of MD5.
    pub bmi1: bool,
    pub bmi2: bool,
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
            bmi1: is_x86_feature_detected!("bmi1"),
            bmi2: is_x86_feature_detected!("bmi2"),
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

    /// The CPU's model name as the kernel reports it, or the architecture's name: every figure
    /// fasthash prints says which CPU it comes from.
    pub fn cpu_model() -> String {
        std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|cpuinfo| {
                cpuinfo
                    .lines()
                    .find(|line| line.starts_with("model name"))
                    .and_then(|line| line.split_once(':'))
                    .map(|(_, model)| model.trim().to_string())
            })
            .unwrap_or_else(|| std::env::consts::ARCH.to_string())
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
            (self.bmi1, "bmi1"),
            (self.bmi2, "bmi2"),
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

/// One implementation of an algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// Plain Rust that needs nothing beyond the architecture's baseline.
    Portable,
    /// The SHA extensions (x86 SHA-NI, Armv8 SHA1/SHA2), through the sha1 and sha2 crates.
    ShaExtensions,
    /// ring's assembly for SHA-384/512 (AVX2, AVX or SSSE3 on x86-64, chosen by ring).
    RingAssembly,
    /// The blake3 crate's vector code (SSE2 to AVX-512, or NEON, chosen by blake3).
    Blake3Simd,
    /// fasthash's own AVX2 code: XXH3's loop, MD5 of eight files side by side, and SHA-384/512
    /// of one stream with an AVX2 message schedule.
    Avx2,
    /// fasthash's own AVX-512 code: MD5, SHA-1 and SHA-256 of sixteen files side by side,
    /// SHA-512 of eight, XXH3's loop on 512-bit registers.
    Avx512,
    /// fasthash's own Arm NEON code: MD5 of sixteen files side by side, and SHA-1 and SHA-256
    /// the same way on cores without the SHA instructions.
    Neon,
    /// crc-fast's folding with carry-less multiplication (PCLMULQDQ, or PMULL on Arm).
    CarrylessMultiply,
    /// fasthash's CRC folding on 256-bit VPCLMULQDQ with AVX2.
    Vpclmulqdq,
    /// fasthash's scalar assembly with BMI1: MD5 of one stream.
    Bmi,
}

impl Kernel {
    /// Every kernel, for parsing names.
    pub(crate) const ALL: [Kernel; 10] = [
        Kernel::Portable,
        Kernel::ShaExtensions,
        Kernel::RingAssembly,
        Kernel::Blake3Simd,
        Kernel::Avx2,
        Kernel::Avx512,
        Kernel::Neon,
        Kernel::CarrylessMultiply,
        Kernel::Vpclmulqdq,
        Kernel::Bmi,
    ];

    /// The name `FASTHASH_KERNEL` and `--list-kernels` use.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            Kernel::ShaExtensions => "sha-ext",
            Kernel::RingAssembly => "ring-asm",
            Kernel::Blake3Simd => "simd",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
            Kernel::Neon => "neon",
            Kernel::CarrylessMultiply => "clmul",
            Kernel::Vpclmulqdq => "vpclmulqdq",
            Kernel::Bmi => "bmi",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<Kernel> {
        Kernel::ALL
            .into_iter()
            .find(|kernel| kernel.name().eq_ignore_ascii_case(name))
    }
}

/// The environment variable that forces kernels.
pub const FORCE_VARIABLE: &str = "FASTHASH_KERNEL";
