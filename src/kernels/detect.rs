//! CPU capabilities, detected once; the names of kernels; what `FASTHASH_KERNEL` forces.
//!
//! Which engine each algorithm runs is decided in `engine`, from these capabilities: a pure
//! selection tested on made-up CPUs, overridden by `FASTHASH_KERNEL` (for bug reports and
//! tests), made once per algorithm on first use.

use super::{engine, Algorithm};
use crate::error::Error;
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
    /// BMI1 and BMI2 (`andn`, `rorx`): the scalar rounds of our one-stream SHA-512.
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
    /// fasthash's own AVX2 code: XXH3's loop, and MD5 of eight files side by side.
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
}

impl Kernel {
    /// Every kernel, for parsing names.
    const ALL: [Kernel; 9] = [
        Kernel::Portable,
        Kernel::ShaExtensions,
        Kernel::RingAssembly,
        Kernel::Blake3Simd,
        Kernel::Avx2,
        Kernel::Avx512,
        Kernel::Neon,
        Kernel::CarrylessMultiply,
        Kernel::Vpclmulqdq,
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
        }
    }

    fn from_name(name: &str) -> Option<Kernel> {
        Kernel::ALL
            .into_iter()
            .find(|kernel| kernel.name().eq_ignore_ascii_case(name))
    }
}

/// What `FASTHASH_KERNEL` forces: a kernel for some algorithms.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Forced(Vec<(Algorithm, Kernel)>);

impl Forced {
    pub fn get(&self, algorithm: Algorithm) -> Option<Kernel> {
        self.0
            .iter()
            .rev()
            .find(|(a, _)| *a == algorithm)
            .map(|(_, kernel)| *kernel)
    }
}

/// Parses `FASTHASH_KERNEL`: comma-separated `KERNEL` (every algorithm that has that kernel)
/// or `ALGORITHM=KERNEL` entries. A kernel this CPU cannot run is an error, not a silent
/// fallback: a test or a bug report that forces a path must get that path.
pub fn parse_forced(value: &str, caps: &Capabilities) -> Result<Forced, String> {
    let mut forced = Vec::new();
    for entry in value.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let (algorithms, kernel_name): (Vec<Algorithm>, &str) = match entry.split_once('=') {
            Some((name, kernel)) => {
                let algorithm = Algorithm::from_name(name.trim()).ok_or_else(|| {
                    format!(
                        "unknown algorithm '{}' in '{entry}' (valid: {})",
                        name.trim(),
                        Algorithm::names_list()
                    )
                })?;
                (vec![algorithm], kernel.trim())
            }
            None => (Algorithm::all().collect(), entry),
        };
        let known = Kernel::ALL.map(Kernel::name).join(", ");
        let kernel = Kernel::from_name(kernel_name)
            .ok_or_else(|| format!("unknown kernel '{kernel_name}' (kernels: {known})"))?;
        let having: Vec<&engine::Engine> = algorithms
            .into_iter()
            .filter_map(|a| engine::find(a, kernel))
            .collect();
        if having.is_empty() {
            return Err(format!(
                "'{entry}': no such kernel for that algorithm (see --list-kernels)"
            ));
        }
        if let Some(lacking) = having.iter().find(|engine| !(engine.runs_on)(caps)) {
            return Err(format!(
                "kernel '{}' needs {}, which this CPU lacks",
                kernel.name(),
                lacking.needs
            ));
        }
        forced.extend(having.into_iter().map(|engine| (engine.algorithm, kernel)));
    }
    Ok(Forced(forced))
}

/// The environment variable that forces kernels.
pub const FORCE_VARIABLE: &str = "FASTHASH_KERNEL";

/// `FASTHASH_KERNEL` as parsed, once; a usage error when it names something impossible.
pub fn forced() -> Result<&'static Forced, Error> {
    // The reason is kept as text: the one parse is shared, each caller gets its own error.
    static FORCED: OnceLock<Result<Forced, String>> = OnceLock::new();
    FORCED
        .get_or_init(|| match std::env::var(FORCE_VARIABLE) {
            Ok(value) => parse_forced(&value, &Capabilities::get())
                .map_err(|reason| format!("{FORCE_VARIABLE}={value}: {reason}")),
            Err(std::env::VarError::NotPresent) => Ok(Forced::default()),
            Err(std::env::VarError::NotUnicode(_)) => {
                Err(format!("{FORCE_VARIABLE} is not valid UTF-8"))
            }
        })
        .as_ref()
        .map_err(|reason| Error::usage(reason.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::engine::select;

    fn x86_baseline() -> Capabilities {
        Capabilities {
            sse2: true,
            ..Capabilities::default()
        }
    }

    fn kernel(algorithm: Algorithm, caps: &Capabilities) -> Kernel {
        select(algorithm, caps).kernel
    }

    /// Our own x86-64 engines exist only on x86-64: elsewhere selection skips them.
    fn ours(kernel: Kernel, otherwise: Kernel) -> Kernel {
        if cfg!(target_arch = "x86_64") {
            kernel
        } else {
            otherwise
        }
    }

    #[test]
    fn algorithms_are_indexed_by_discriminant() {
        let count = Algorithm::all().count();
        assert_eq!(count, crate::kernels::ALGORITHM_COUNT);
        let mut seen = vec![false; count];
        for algorithm in Algorithm::all() {
            assert!(algorithm.index() < count, "{algorithm}");
            seen[algorithm.index()] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn sha_extensions_need_their_companions() {
        let mut caps = Capabilities {
            sha_ni: true,
            ..x86_baseline()
        };
        assert_eq!(kernel(Algorithm::Sha256, &caps), Kernel::Portable);
        caps.ssse3 = true;
        caps.sse41 = true;
        assert_eq!(kernel(Algorithm::Sha256, &caps), Kernel::ShaExtensions);
        assert_eq!(kernel(Algorithm::Sha1, &caps), Kernel::ShaExtensions);
        assert_eq!(kernel(Algorithm::Sha224, &caps), Kernel::ShaExtensions);
        let arm = Capabilities {
            neon: true,
            arm_sha2: true,
            ..Capabilities::default()
        };
        assert_eq!(kernel(Algorithm::Sha256, &arm), Kernel::ShaExtensions);
    }

    #[test]
    fn each_kernel_is_chosen_only_where_it_runs() {
        let bare = Capabilities::default();
        for algorithm in Algorithm::all() {
            // A CPU with nothing (not even SSE2) still has an engine: portable, or ring's.
            let kernel = kernel(algorithm, &bare);
            assert!(
                kernel == Kernel::Portable || kernel == Kernel::RingAssembly,
                "{algorithm}: {kernel:?}"
            );
        }
        let mut caps = x86_baseline();
        assert_eq!(kernel(Algorithm::Xxh3, &caps), Kernel::Portable);
        assert_eq!(kernel(Algorithm::Crc32c, &caps), Kernel::Portable);
        assert_eq!(kernel(Algorithm::Blake3, &caps), Kernel::Blake3Simd);
        caps.avx2 = true;
        caps.pclmulqdq = true;
        assert_eq!(
            kernel(Algorithm::Xxh3, &caps),
            ours(Kernel::Avx2, Kernel::Portable)
        );
        // PCLMULQDQ alone is not enough for crc-fast's x86 path.
        assert_eq!(kernel(Algorithm::Crc32, &caps), Kernel::Portable);
        caps.sse41 = true;
        assert_eq!(kernel(Algorithm::Crc32, &caps), Kernel::CarrylessMultiply);
        caps.vpclmulqdq = true;
        assert_eq!(
            kernel(Algorithm::Crc32, &caps),
            ours(Kernel::Vpclmulqdq, Kernel::CarrylessMultiply)
        );
        assert_eq!(
            kernel(Algorithm::Md5, &caps),
            ours(Kernel::Avx2, Kernel::Portable)
        );
        // With AVX-512, crc-fast's own VPCLMULQDQ path is wider than ours.
        caps.avx512f = true;
        caps.avx512vl = true;
        assert_eq!(
            kernel(Algorithm::Crc64Nvme, &caps),
            Kernel::CarrylessMultiply
        );
        // Our lane engines need AVX-512BW too (the byte shuffle that loads SHA's words).
        assert_eq!(
            kernel(Algorithm::Md5, &caps),
            ours(Kernel::Avx2, Kernel::Portable)
        );
        caps.avx512bw = true;
        // Our SHA-384/512 engine needs BMI1 and BMI2 besides, for the rounds of one stream.
        for algorithm in [Algorithm::Sha512, Algorithm::Sha384] {
            assert_ne!(kernel(algorithm, &caps), Kernel::Avx512, "{algorithm}");
        }
        caps.bmi1 = true;
        caps.bmi2 = true;
        for algorithm in [
            Algorithm::Md5,
            Algorithm::Sha1,
            Algorithm::Sha256,
            Algorithm::Sha224,
            Algorithm::Sha512,
            Algorithm::Sha384,
        ] {
            let expected = ours(
                Kernel::Avx512,
                kernel(
                    algorithm,
                    &Capabilities {
                        avx512bw: false,
                        ..caps
                    },
                ),
            );
            assert_eq!(kernel(algorithm, &caps), expected, "{algorithm}");
        }
        assert_eq!(kernel(Algorithm::Xxh64, &caps), Kernel::Portable);
    }

    /// Arm cores, from one without the crypto extensions (Cortex-A72 in a Raspberry Pi 4) to
    /// Graviton 2 (SHA1/SHA2, PMULL, CRC) and Graviton 3 and 4 (SHA512 too).
    #[test]
    fn arm_cores_get_the_arm_engines() {
        let ours = |kernel: Kernel, otherwise: Kernel| {
            if cfg!(target_arch = "aarch64") {
                kernel
            } else {
                otherwise
            }
        };
        let no_crypto = Capabilities {
            neon: true,
            ..Capabilities::default()
        };
        let graviton2 = Capabilities {
            arm_sha2: true,
            arm_crc: true,
            arm_pmull: true,
            ..no_crypto
        };
        let graviton3 = Capabilities {
            arm_sha512: true,
            ..graviton2
        };
        for caps in [graviton2, graviton3] {
            // MD5 has no instruction: sixteen files side by side in NEON lanes.
            assert_eq!(
                kernel(Algorithm::Md5, &caps),
                ours(Kernel::Neon, Kernel::Portable)
            );
            // One stream on the SHA instructions beats sixteen NEON lanes sharing a core.
            for algorithm in [Algorithm::Sha1, Algorithm::Sha224, Algorithm::Sha256] {
                assert_eq!(kernel(algorithm, &caps), Kernel::ShaExtensions);
            }
            for algorithm in [Algorithm::Crc32, Algorithm::Crc32c, Algorithm::Crc64Nvme] {
                assert_eq!(kernel(algorithm, &caps), Kernel::CarrylessMultiply);
            }
            // ring takes its SHA512-instruction path itself where the CPU has one.
            assert_eq!(kernel(Algorithm::Sha512, &caps), Kernel::RingAssembly);
            assert_eq!(kernel(Algorithm::Blake3, &caps), Kernel::Blake3Simd);
            assert_eq!(kernel(Algorithm::Xxh3, &caps), Kernel::Portable);
        }
        // Without the SHA instructions, SHA-1 and SHA-256 go side by side in NEON lanes too.
        for algorithm in [
            Algorithm::Md5,
            Algorithm::Sha1,
            Algorithm::Sha224,
            Algorithm::Sha256,
        ] {
            assert_eq!(
                kernel(algorithm, &no_crypto),
                ours(Kernel::Neon, Kernel::Portable),
                "{algorithm}"
            );
        }
        assert_eq!(kernel(Algorithm::Crc32c, &no_crypto), Kernel::Portable);
        // No x86 engine is even built for Arm (our 256-bit CRC folding among them).
        if cfg!(target_arch = "aarch64") {
            for engine in engine::all() {
                assert!(
                    !matches!(
                        engine.kernel,
                        Kernel::Avx2 | Kernel::Avx512 | Kernel::Vpclmulqdq
                    ),
                    "{}",
                    engine.label()
                );
            }
        }
    }

    #[test]
    fn forcing_parses_tiers_and_pairs() {
        let caps = Capabilities {
            sse41: true,
            ssse3: true,
            sha_ni: true,
            avx2: true,
            pclmulqdq: true,
            ..x86_baseline()
        };
        let forced = parse_forced("portable", &caps).unwrap();
        for algorithm in Algorithm::all() {
            assert_eq!(forced.get(algorithm), Some(Kernel::Portable));
        }
        let forced = parse_forced(" sha256=portable , CRC32C=Portable,sha-ext", &caps).unwrap();
        // A later entry wins: sha-ext applies to sha256 too.
        assert_eq!(forced.get(Algorithm::Sha256), Some(Kernel::ShaExtensions));
        assert_eq!(forced.get(Algorithm::Crc32c), Some(Kernel::Portable));
        assert_eq!(forced.get(Algorithm::Crc32), None);
        assert_eq!(forced.get(Algorithm::Sha1), Some(Kernel::ShaExtensions));
        assert_eq!(parse_forced("", &caps).unwrap(), Forced::default());
    }

    #[test]
    fn forcing_rejects_what_cannot_run() {
        let caps = x86_baseline();
        let error = parse_forced("sha-ext", &caps).unwrap_err();
        assert!(error.contains("SHA-NI"), "{error}");
        let error = parse_forced("avx-512", &caps).unwrap_err();
        assert!(error.contains("unknown kernel 'avx-512'"), "{error}");
        let error = parse_forced("xxh64=avx2", &caps).unwrap_err();
        assert!(error.contains("no such kernel"), "{error}");
        let error = parse_forced("sha999=portable", &caps).unwrap_err();
        assert!(error.contains("unknown algorithm 'sha999'"), "{error}");
        if cfg!(target_arch = "x86_64") {
            let error = parse_forced("md5=avx512", &caps).unwrap_err();
            assert!(error.contains("AVX-512F, BW and VL"), "{error}");
        }
        if cfg!(target_arch = "aarch64") {
            let error = parse_forced("md5=neon", &Capabilities::default()).unwrap_err();
            assert!(error.contains("needs NEON"), "{error}");
        }
    }

    #[test]
    fn this_cpu_has_an_engine_for_every_algorithm() {
        let caps = Capabilities::get();
        for algorithm in Algorithm::all() {
            assert!((select(algorithm, &caps).runs_on)(&caps));
            assert!(!engine::chosen(algorithm).label().is_empty());
        }
    }
}
