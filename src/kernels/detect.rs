//! CPU capabilities, detected once; the kernels each algorithm has; which one runs.
//!
//! [`select`] is a pure function of an algorithm and a capability set, so it is tested on
//! made-up CPUs. `FASTHASH_KERNEL` overrides it (for bug reports and tests), and the choice for
//! every algorithm is made once, on first use.
//!
//! Some kernels come from crates that pick their own instruction set inside (sha1/sha2 through
//! `cpufeatures`, ring, blake3, crc-fast). fasthash offers such a crate's path only when the CPU
//! has what that path needs, so what `--list-kernels` says is what runs; the portable kernels
//! are separate code that uses no extension, which is what lets `FASTHASH_KERNEL=portable`
//! really avoid them.

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
    /// crc-fast's folding with carry-less multiplication (PCLMULQDQ, or PMULL on Arm).
    CarrylessMultiply,
    /// fasthash's CRC folding on 256-bit VPCLMULQDQ with AVX2.
    Vpclmulqdq,
}

impl Kernel {
    /// Every kernel, for parsing names.
    const ALL: [Kernel; 7] = [
        Kernel::Portable,
        Kernel::ShaExtensions,
        Kernel::RingAssembly,
        Kernel::Blake3Simd,
        Kernel::Avx2,
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
            Kernel::CarrylessMultiply => "clmul",
            Kernel::Vpclmulqdq => "vpclmulqdq",
        }
    }

    fn from_name(name: &str) -> Option<Kernel> {
        Kernel::ALL
            .into_iter()
            .find(|kernel| kernel.name().eq_ignore_ascii_case(name))
    }

    /// Whether a CPU with `caps` can run this kernel (for the algorithms that have it).
    pub fn runs_on(self, caps: &Capabilities) -> bool {
        match self {
            Kernel::Portable | Kernel::RingAssembly => true,
            // What the sha1/sha2 crates test before they take their SHA-NI path.
            Kernel::ShaExtensions => {
                (caps.sha_ni && caps.sse2 && caps.ssse3 && caps.sse41) || caps.arm_sha2
            }
            Kernel::Blake3Simd => caps.sse2 || caps.neon,
            Kernel::Avx2 => cfg!(target_arch = "x86_64") && caps.avx2,
            // crc-fast's x86 folding needs SSE4.1 beside PCLMULQDQ; on Arm, PMULL comes with AES.
            Kernel::CarrylessMultiply => (caps.pclmulqdq && caps.sse41) || caps.arm_pmull,
            Kernel::Vpclmulqdq => {
                cfg!(target_arch = "x86_64") && caps.vpclmulqdq && caps.pclmulqdq && caps.avx2
            }
        }
    }

    /// What the kernel needs, for messages.
    pub fn needs(self) -> &'static str {
        match self {
            Kernel::Portable | Kernel::RingAssembly => "nothing",
            Kernel::ShaExtensions => "SHA-NI with SSSE3 and SSE4.1, or Armv8 SHA2",
            Kernel::Blake3Simd => "SSE2 or NEON",
            Kernel::Avx2 => "AVX2 on x86-64",
            Kernel::CarrylessMultiply => "PCLMULQDQ with SSE4.1, or Armv8 PMULL",
            Kernel::Vpclmulqdq => "VPCLMULQDQ with AVX2 on x86-64",
        }
    }
}

/// An algorithm's kernels, fastest first.
pub fn kernels(algorithm: Algorithm) -> &'static [Kernel] {
    use Kernel::*;
    match algorithm {
        Algorithm::Sha256 | Algorithm::Sha224 | Algorithm::Sha1 => &[ShaExtensions, Portable],
        Algorithm::Sha512 | Algorithm::Sha384 => &[RingAssembly, Portable],
        Algorithm::Blake3 => &[Blake3Simd, Portable],
        Algorithm::Xxh3 | Algorithm::Xxh128 => &[Avx2, Portable],
        // MD5 is one serial chain: AVX2 helps only by hashing several files at once.
        Algorithm::Md5 => &[Avx2, Portable],
        Algorithm::Crc32 | Algorithm::Crc32c | Algorithm::Crc64Nvme => {
            &[Vpclmulqdq, CarrylessMultiply, Portable]
        }
        // Already at memory speed in plain code.
        Algorithm::Xxh64 => &[Portable],
    }
}

/// The kernel `algorithm` runs on a CPU with `caps` when nothing is forced: the fastest it can.
pub fn select(algorithm: Algorithm, caps: &Capabilities) -> Kernel {
    kernels(algorithm)
        .iter()
        .copied()
        .filter(|kernel| !(*kernel == Kernel::Vpclmulqdq && crc_fast_has_avx512(caps)))
        .find(|kernel| kernel.runs_on(caps))
        .unwrap_or(Kernel::Portable)
}

/// With AVX-512, crc-fast folds 512 bits at a time with VPCLMULQDQ itself; our 256-bit kernel
/// is for the CPUs where it does not (this is what crc-fast tests before that path).
fn crc_fast_has_avx512(caps: &Capabilities) -> bool {
    caps.avx512f && caps.avx512vl && caps.vpclmulqdq
}

/// Where a kernel's code comes from and, for crates that choose inside, what they choose on a
/// CPU with `caps`.
pub fn describe(algorithm: Algorithm, kernel: Kernel, caps: &Capabilities) -> String {
    match (kernel, algorithm) {
        (Kernel::Portable, Algorithm::Md5) => "fasthash, short-chain scalar".into(),
        (Kernel::Portable, Algorithm::Sha1) => "sha1_smol crate, scalar".into(),
        (Kernel::Portable, Algorithm::Xxh64) => "xxhash-rust crate, scalar".into(),
        (Kernel::Portable, Algorithm::Xxh3 | Algorithm::Xxh128) => {
            // xxhash-rust picks its vectors at compile time; SSE2 is x86-64's baseline.
            let path = if cfg!(target_feature = "avx2") {
                "AVX2"
            } else if cfg!(target_feature = "sse2") {
                "SSE2"
            } else if cfg!(target_feature = "neon") {
                "NEON"
            } else {
                "scalar"
            };
            format!("xxhash-rust crate, {path} fixed at build time")
        }
        (Kernel::Portable, Algorithm::Crc32 | Algorithm::Crc32c | Algorithm::Crc64Nvme) => {
            "crc crate, 16 tables".into()
        }
        (Kernel::Portable, _) => "fasthash, scalar".into(),
        (Kernel::ShaExtensions, _) => {
            let path = if caps.sha_ni { "SHA-NI" } else { "Armv8 SHA" };
            let krate = if algorithm == Algorithm::Sha1 {
                "sha1"
            } else {
                "sha2"
            };
            format!("{krate} crate, {path}")
        }
        // ring does not say which of its paths it takes.
        (Kernel::RingAssembly, _) => "ring crate, assembly chosen by ring".into(),
        (Kernel::Blake3Simd, _) => {
            let path = if caps.avx512f && caps.avx512vl {
                "AVX-512"
            } else if caps.avx2 {
                "AVX2"
            } else if caps.sse41 {
                "SSE4.1"
            } else if caps.sse2 {
                "SSE2"
            } else {
                "NEON"
            };
            format!("blake3 crate, {path}")
        }
        (Kernel::Avx2, Algorithm::Md5) => {
            "fasthash, AVX2: 8 files side by side (one stream alone: scalar)".into()
        }
        (Kernel::Avx2, _) => "fasthash, AVX2".into(),
        (Kernel::Vpclmulqdq, _) => "fasthash, 256-bit VPCLMULQDQ folding".into(),
        (Kernel::CarrylessMultiply, _) => {
            format!(
                "crc-fast crate, {}",
                super::crc::calculator_target(algorithm)
            )
        }
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
        let having: Vec<Algorithm> = algorithms
            .into_iter()
            .filter(|a| kernels(*a).contains(&kernel))
            .collect();
        if having.is_empty() {
            return Err(format!(
                "'{entry}': no such kernel for that algorithm (see --list-kernels)"
            ));
        }
        if !kernel.runs_on(caps) {
            return Err(format!(
                "kernel '{}' needs {}, which this CPU lacks",
                kernel.name(),
                kernel.needs()
            ));
        }
        forced.extend(having.into_iter().map(|a| (a, kernel)));
    }
    Ok(Forced(forced))
}

/// The environment variable that forces kernels.
pub const FORCE_VARIABLE: &str = "FASTHASH_KERNEL";

/// `FASTHASH_KERNEL` as parsed, once; an error when it names something impossible.
pub fn forced() -> &'static Result<Forced, String> {
    static FORCED: OnceLock<Result<Forced, String>> = OnceLock::new();
    FORCED.get_or_init(|| match std::env::var(FORCE_VARIABLE) {
        Ok(value) => parse_forced(&value, &Capabilities::get())
            .map_err(|reason| format!("{FORCE_VARIABLE}={value}: {reason}")),
        Err(std::env::VarError::NotPresent) => Ok(Forced::default()),
        Err(std::env::VarError::NotUnicode(_)) => {
            Err(format!("{FORCE_VARIABLE} is not valid UTF-8"))
        }
    })
}

/// The kernel `algorithm` runs in this process: forced, or else selected for this CPU. An
/// invalid `FASTHASH_KERNEL` is reported by the CLI before any hashing; here it counts as unset.
pub fn chosen(algorithm: Algorithm) -> Kernel {
    static CHOSEN: OnceLock<Vec<Kernel>> = OnceLock::new();
    let table = CHOSEN.get_or_init(|| {
        let caps = Capabilities::get();
        let forced = forced().as_ref().ok();
        // Indexed by discriminant, which runs 0..count in declaration order.
        let mut table = vec![Kernel::Portable; Algorithm::all().count()];
        for a in Algorithm::all() {
            table[a as usize] = forced
                .and_then(|f| f.get(a))
                .unwrap_or_else(|| select(a, &caps));
        }
        table
    });
    table[algorithm as usize]
}

/// Whether `kernel` is one of `algorithm`'s and runs on a CPU with `caps`.
pub fn usable(algorithm: Algorithm, kernel: Kernel, caps: &Capabilities) -> bool {
    kernels(algorithm).contains(&kernel) && kernel.runs_on(caps)
}

/// The kernel `algorithm` runs in this process, as "name (where it comes from)".
pub fn kernel_name(algorithm: Algorithm) -> String {
    let kernel = chosen(algorithm);
    format!(
        "{} ({})",
        kernel.name(),
        describe(algorithm, kernel, &Capabilities::get())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x86_baseline() -> Capabilities {
        Capabilities {
            sse2: true,
            ..Capabilities::default()
        }
    }

    #[test]
    fn algorithms_are_indexed_by_discriminant() {
        let count = Algorithm::all().count();
        let mut seen = vec![false; count];
        for algorithm in Algorithm::all() {
            assert!((algorithm as usize) < count, "{algorithm}");
            seen[algorithm as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn sha_extensions_need_their_companions() {
        let mut caps = Capabilities {
            sha_ni: true,
            ..x86_baseline()
        };
        assert_eq!(select(Algorithm::Sha256, &caps), Kernel::Portable);
        caps.ssse3 = true;
        caps.sse41 = true;
        assert_eq!(select(Algorithm::Sha256, &caps), Kernel::ShaExtensions);
        assert_eq!(select(Algorithm::Sha1, &caps), Kernel::ShaExtensions);
        assert_eq!(select(Algorithm::Sha224, &caps), Kernel::ShaExtensions);
        let arm = Capabilities {
            neon: true,
            arm_sha2: true,
            ..Capabilities::default()
        };
        assert_eq!(select(Algorithm::Sha256, &arm), Kernel::ShaExtensions);
    }

    #[test]
    fn each_kernel_is_chosen_only_where_it_runs() {
        let bare = Capabilities::default();
        for algorithm in Algorithm::all() {
            // A CPU with nothing (not even SSE2) still has a kernel, except the two that
            // need nothing special.
            let kernel = select(algorithm, &bare);
            assert!(
                kernel == Kernel::Portable || kernel == Kernel::RingAssembly,
                "{algorithm}: {kernel:?}"
            );
        }
        let mut caps = x86_baseline();
        assert_eq!(select(Algorithm::Xxh3, &caps), Kernel::Portable);
        assert_eq!(select(Algorithm::Crc32c, &caps), Kernel::Portable);
        assert_eq!(select(Algorithm::Blake3, &caps), Kernel::Blake3Simd);
        caps.avx2 = true;
        caps.pclmulqdq = true;
        assert_eq!(
            select(Algorithm::Xxh3, &caps),
            if cfg!(target_arch = "x86_64") {
                Kernel::Avx2
            } else {
                Kernel::Portable
            }
        );
        // PCLMULQDQ alone is not enough for crc-fast's x86 path.
        assert_eq!(select(Algorithm::Crc32, &caps), Kernel::Portable);
        caps.sse41 = true;
        assert_eq!(select(Algorithm::Crc32, &caps), Kernel::CarrylessMultiply);
        caps.vpclmulqdq = true;
        let ours = if cfg!(target_arch = "x86_64") {
            Kernel::Vpclmulqdq
        } else {
            Kernel::CarrylessMultiply
        };
        assert_eq!(select(Algorithm::Crc32, &caps), ours);
        // With AVX-512, crc-fast's own VPCLMULQDQ path is wider than ours.
        caps.avx512f = true;
        caps.avx512vl = true;
        assert_eq!(
            select(Algorithm::Crc64Nvme, &caps),
            Kernel::CarrylessMultiply
        );
        assert_eq!(
            select(Algorithm::Md5, &caps),
            if cfg!(target_arch = "x86_64") {
                Kernel::Avx2
            } else {
                Kernel::Portable
            }
        );
        assert_eq!(select(Algorithm::Xxh64, &caps), Kernel::Portable);
    }

    #[test]
    fn blake3_is_described_by_the_widest_vectors() {
        let mut caps = Capabilities {
            sse41: true,
            avx2: true,
            avx512f: true,
            ..x86_baseline()
        };
        let name = |caps: &Capabilities| describe(Algorithm::Blake3, Kernel::Blake3Simd, caps);
        assert_eq!(name(&caps), "blake3 crate, AVX2");
        caps.avx512vl = true;
        assert_eq!(name(&caps), "blake3 crate, AVX-512");
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
        let error = parse_forced("avx512", &caps).unwrap_err();
        assert!(error.contains("unknown kernel 'avx512'"), "{error}");
        let error = parse_forced("xxh64=avx2", &caps).unwrap_err();
        assert!(error.contains("no such kernel"), "{error}");
        let error = parse_forced("sha999=portable", &caps).unwrap_err();
        assert!(error.contains("unknown algorithm 'sha999'"), "{error}");
    }

    #[test]
    fn this_cpu_has_a_kernel_for_every_algorithm() {
        let caps = Capabilities::get();
        for algorithm in Algorithm::all() {
            assert!(select(algorithm, &caps).runs_on(&caps));
            assert!(!kernel_name(algorithm).is_empty());
        }
    }
}
