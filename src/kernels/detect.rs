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
    /// Who made the CPU and which family and model it is: the key of the preferences
    /// (`preference`), where the fastest engine differs between CPUs with the same features.
    pub cpu: CpuId,
}

/// A CPU's maker.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Vendor {
    Intel,
    Amd,
    /// Any other maker, or a CPU that does not say (every Arm core, here).
    #[default]
    Other,
}

/// An x86 CPU's maker, family and model, as CPUID gives them and `/proc/cpuinfo` prints them
/// ("cpu family", "model"): the family with its extension added, the model with its extension
/// on top (families 6 and 15 and above). AMD Zen 3 and Zen 4 are family 25 (19h), Zen 5 26.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuId {
    pub vendor: Vendor,
    pub family: u32,
    pub model: u32,
}

impl CpuId {
    /// Reads CPUID leaves 0 and 1.
    #[cfg(target_arch = "x86_64")]
    fn detect() -> CpuId {
        use std::arch::x86_64::__cpuid;
        // CPUID exists on every x86-64 CPU.
        #[allow(
            unused_unsafe,
            reason = "__cpuid is safe in newer Rust, unsafe in older"
        )]
        let (leaf0, leaf1) = unsafe { (__cpuid(0), __cpuid(1)) };
        let mut maker = [0u8; 12];
        for (bytes, register) in maker.chunks_mut(4).zip([leaf0.ebx, leaf0.edx, leaf0.ecx]) {
            bytes.copy_from_slice(&register.to_le_bytes());
        }
        let vendor = match &maker {
            b"GenuineIntel" => Vendor::Intel,
            b"AuthenticAMD" => Vendor::Amd,
            _ => Vendor::Other,
        };
        if leaf0.eax < 1 {
            return CpuId {
                vendor,
                ..CpuId::default()
            };
        }
        CpuId::from_signature(vendor, leaf1.eax)
    }

    /// Family and model from CPUID leaf 1's EAX (the processor signature).
    #[cfg(any(target_arch = "x86_64", test))]
    pub(crate) fn from_signature(vendor: Vendor, eax: u32) -> CpuId {
        let base_family = (eax >> 8) & 0xF;
        let base_model = (eax >> 4) & 0xF;
        let family = if base_family == 0xF {
            base_family + ((eax >> 20) & 0xFF)
        } else {
            base_family
        };
        let model = if base_family == 0x6 || base_family == 0xF {
            (((eax >> 16) & 0xF) << 4) | base_model
        } else {
            base_model
        };
        CpuId {
            vendor,
            family,
            model,
        }
    }
}

impl std::fmt::Display for CpuId {
    /// "AMD family 25 model 1", as `/proc/cpuinfo` numbers them; nothing for an unknown CPU.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.vendor {
            Vendor::Intel => write!(f, "Intel ")?,
            Vendor::Amd => write!(f, "AMD ")?,
            Vendor::Other if self.family == 0 => return Ok(()),
            Vendor::Other => {}
        }
        write!(f, "family {} model {}", self.family, self.model)
    }
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
            cpu: CpuId::detect(),
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

    /// The model name, and maker, family and model where CPUID gives them: "AMD EPYC (AMD
    /// family 25 model 1)". A virtual machine often shows only "AMD EPYC", the same for Zen 3
    /// and Zen 4; the family and model tell them apart.
    pub fn cpu_name() -> String {
        let id = Capabilities::get().cpu.to_string();
        if id.is_empty() {
            Capabilities::cpu_model()
        } else {
            format!("{} ({id})", Capabilities::cpu_model())
        }
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
