//! Preferences by CPU: where the fastest engine differs between CPUs that have the same
//! features, one row for a maker and family (and models) says which engine to take there, and
//! the figures that say why. The table's order ([`super::table::select`]) is right everywhere
//! else. A row applies only where its engines run, so a row for an AVX-512 engine on a family
//! that has CPUs with and without AVX-512 changes nothing on those without.
//!
//! A row is a claim about speed: `fasthash --bench` checks it on the machine it runs on, and
//! warns when the engine in use is more than 10% slower than another there.

use super::algorithm::Algorithm;
use super::detect::{CpuId, Kernel, Vendor};

/// One preference: on CPUs of `vendor`, `family` and one of `models`, `algorithms` run on
/// `engine`, and a message alone on `alone`'s single-stream code when it is given.
#[derive(Debug)]
pub struct Preference {
    /// Its name in `--list-kernels` and `--debug`.
    pub name: &'static str,
    pub algorithms: &'static [Algorithm],
    pub vendor: Vendor,
    pub family: u32,
    /// Ranges of models, both ends included, as `/proc/cpuinfo` numbers them.
    pub models: &'static [(u32, u32)],
    /// The engine to take (its lanes, if it has any, still hash files side by side).
    pub engine: Kernel,
    /// The engine whose single-stream code takes a file alone, when not `engine`'s own.
    pub alone: Option<Kernel>,
    /// The measurements it rests on, and where they are written down.
    pub evidence: &'static str,
}

impl Preference {
    /// Whether it speaks of `algorithm` on `cpu`.
    pub fn covers(&self, algorithm: Algorithm, cpu: &CpuId) -> bool {
        self.algorithms.contains(&algorithm)
            && cpu.vendor == self.vendor
            && cpu.family == self.family
            && self
                .models
                .iter()
                .any(|&(first, last)| (first..=last).contains(&cpu.model))
    }

    /// What it does, in a few words: "avx512, a file alone on bmi".
    pub fn choice(&self) -> String {
        match self.alone {
            Some(alone) => format!("{}, a file alone on {}", self.engine.name(), alone.name()),
            None => self.engine.name().to_string(),
        }
    }
}

/// AMD's Zen 4 models of family 25 (19h): Genoa (10h to 1Fh), Raphael and Phoenix (60h to
/// 7Fh), Bergamo and Siena (A0h to AFh). The other models of family 25 are Zen 3, without
/// AVX-512.
const ZEN4_MODELS: &[(u32, u32)] = &[(0x10, 0x1F), (0x60, 0x7F), (0xA0, 0xAF)];

/// AMD's Zen 3 models of family 25: Milan and Chagall (00h to 0Fh), Vermeer (20h to 2Fh),
/// Rembrandt and Cezanne (40h to 5Fh).
const ZEN3_MODELS: &[(u32, u32)] = &[(0x00, 0x0F), (0x20, 0x2F), (0x40, 0x5F)];

/// AMD's Zen 5 models of family 26 (1Ah), as Linux names them: Turin and Strix Point (00h to
/// 2Fh), Granite Ridge (40h to 4Fh), Krackan and Strix Halo (60h to 7Fh). Family 26's other
/// models are Zen 6, not measured.
const ZEN5_MODELS: &[(u32, u32)] = &[(0x00, 0x2F), (0x40, 0x4F), (0x60, 0x7F)];

/// Every preference. The first that covers an algorithm on this CPU, and whose engines run
/// here, is taken.
pub static PREFERENCES: &[Preference] = &[
    Preference {
        name: "AMD Zen 3: SHA-1 of many files in AVX2 lanes",
        algorithms: &[Algorithm::Sha1],
        vendor: Vendor::Amd,
        family: 25,
        models: ZEN3_MODELS,
        engine: Kernel::Avx2,
        alone: None,
        evidence: "fasthash --bench -a sha1 on Zen 3 (EPYC, family 25 model 1): 32 x 4 KiB \
                   side by side 2.05 GB/s in sixteen AVX2 lanes against 1.58 on SHA-NI, one \
                   file a core; 2,000 files of 256 KiB 1.19x; a file alone stays on SHA-NI \
                   through the sha1 crate (bench/results/amd-epyc-zen3.md). SHA-256 stays on \
                   SHA-NI there: 1.47 GB/s against 1.00 for its lanes",
    },
    Preference {
        name: "AMD Zen 4: MD5 of one file on scalar code",
        algorithms: &[Algorithm::Md5],
        vendor: Vendor::Amd,
        family: 25,
        models: ZEN4_MODELS,
        engine: Kernel::Avx512,
        alone: Some(Kernel::Bmi),
        evidence: "a file alone on the AVX-512 engine's XMM code took 1.78 s for 1 GiB on Zen 4 \
               against 1.60 s for openssl dgst -md5, a scalar code (0.90x; issue 34); the BMI1 \
               scalar code is 1.03x to 1.22x openssl on Zen 3, whose integer core Zen 4 keeps \
               (bench/results/amd-epyc-zen3.md); sixteen files side by side stay on AVX-512",
    },
    Preference {
        name: "AMD Zen 5: MD5 of one file on scalar code",
        algorithms: &[Algorithm::Md5],
        vendor: Vendor::Amd,
        family: 26,
        models: ZEN5_MODELS,
        engine: Kernel::Avx512,
        alone: Some(Kernel::Bmi),
        evidence: "bench/openssl-pair on Zen 5 (EPYC, family 26 model 2), 15 rounds in one \
               process: a file alone on the AVX-512 engine's XMM code ran at 0.52x OpenSSL's \
               MD5 at 1 MiB (0.46 against 0.89 GB/s) and 0.54x at 4 KiB, where the BMI1 \
               scalar code ran at 1.06x and 1.10x; fasthash --bench there: 0.46 against 0.94 \
               GB/s (bench/results/amd-epyc-zen5.md). Sixteen files side by side stay on \
               AVX-512: 6.40 GB/s against 4.55 in AVX2 lanes. SHA-384/512 alone keep the \
               AVX-512 engine's stream there: 1.02 to 1.04x OpenSSL, the assembly 0.99 to 1.03x",
    },
    Preference {
        name: "AMD Zen 4: SHA-384/512 of one file on the BMI2 assembly",
        algorithms: &[Algorithm::Sha512, Algorithm::Sha384],
        vendor: Vendor::Amd,
        family: 25,
        models: ZEN4_MODELS,
        engine: Kernel::Avx512,
        alone: Some(Kernel::Avx2),
        evidence: "a stream alone on the AVX-512 engine ran at 0.77 GB/s on Zen 4 against 0.865 \
               for openssl speed -evp sha512 (0.89x; issue 34); its rounds take 25 integer \
               operations, the avx2 engine's assembly 22, and on Zen 3, whose four integer \
               ALUs Zen 4 keeps, the same schedule ran 0.60 GB/s with the 25 and 0.65 with \
               the 22; the assembly runs at 0.93 to 0.97x OpenSSL there \
               (bench/results/amd-epyc-zen3.md); eight files side by side stay on AVX-512. \
               Not measured on Zen 4 itself: --bench there warns if the avx512 engine's own \
               stream is more than 10% faster",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The row whose name starts with `start`: tests find their row by name, not by place.
    fn named(start: &str) -> &'static Preference {
        PREFERENCES
            .iter()
            .find(|row| row.name.starts_with(start))
            .expect("a row of that name")
    }

    fn amd(family: u32, model: u32) -> CpuId {
        CpuId {
            vendor: Vendor::Amd,
            family,
            model,
        }
    }

    /// Asserts that the row named `start` covers `algorithm` on every CPU of `covered`, and on
    /// none of `not_covered`, nor `other_algorithm` on the first covered CPU.
    fn assert_covers_only(
        start: &str,
        (algorithm, other_algorithm): (Algorithm, Algorithm),
        covered: &[CpuId],
        not_covered: &[CpuId],
    ) {
        let row = named(start);
        for cpu in covered {
            assert!(row.covers(algorithm, cpu), "{start}: {cpu}");
        }
        for cpu in not_covered {
            assert!(!row.covers(algorithm, cpu), "{start}: {cpu}");
        }
        assert!(!row.covers(other_algorithm, &covered[0]));
    }

    #[test]
    fn the_zen4_row_covers_zen4_models_only() {
        let intel = CpuId {
            vendor: Vendor::Intel,
            ..amd(25, 0x11)
        };
        assert_covers_only(
            "AMD Zen 4: MD5",
            (Algorithm::Md5, Algorithm::Sha256),
            // Genoa 11h, Raphael 61h, Phoenix 74h, Bergamo A0h.
            &[0x11, 0x61, 0x74, 0xA0].map(|model| amd(25, model)),
            // Zen 3 (Milan 01h, Vermeer 21h, Cezanne 50h), Zen 5 (family 26), Intel family 6.
            &[
                amd(25, 0x01),
                amd(25, 0x21),
                amd(25, 0x50),
                amd(26, 0x11),
                intel,
            ],
        );
    }

    #[test]
    fn the_zen3_row_covers_zen3_models_only() {
        assert_covers_only(
            "AMD Zen 3",
            (Algorithm::Sha1, Algorithm::Sha256),
            // Milan 01h, Vermeer 21h, Rembrandt 44h, Cezanne 50h.
            &[0x01, 0x21, 0x44, 0x50].map(|model| amd(25, model)),
            // Zen 4 (Genoa 11h, Raphael 61h, Bergamo A0h), Zen 2 (family 23), Zen 5 (family 26).
            &[
                amd(25, 0x11),
                amd(25, 0x61),
                amd(25, 0xA0),
                amd(23, 0x31),
                amd(26, 0x11),
            ],
        );
    }

    #[test]
    fn the_zen5_row_covers_zen5_models_only() {
        assert_covers_only(
            "AMD Zen 5",
            (Algorithm::Md5, Algorithm::Sha512),
            // Turin 02h and 11h, Strix Point 24h, Granite Ridge 44h, Krackan 60h, Strix Halo 70h.
            &[0x02, 0x11, 0x24, 0x44, 0x60, 0x70].map(|model| amd(26, model)),
            // Family 26's Zen 6 models (50h, 80h, C0h), Zen 4 (family 25 11h), Zen 3.
            &[
                amd(26, 0x50),
                amd(26, 0x80),
                amd(26, 0xC0),
                amd(25, 0x11),
                amd(25, 0x01),
            ],
        );
    }

    #[test]
    fn processor_signatures_decode_as_proc_cpuinfo_prints_them() {
        // EAX of CPUID leaf 1 from known CPUs: family and model as the kernel prints them.
        let cases = [
            (Vendor::Amd, 0x00A0_0F11, 25, 1),     // EPYC 7003, Zen 3
            (Vendor::Amd, 0x00A1_0F11, 25, 0x11),  // EPYC 9004, Zen 4
            (Vendor::Amd, 0x00B0_0F81, 26, 0x08),  // a family 26 part, Zen 5
            (Vendor::Intel, 0x0008_06F8, 6, 0x8F), // Xeon Sapphire Rapids
            (Vendor::Intel, 0x0000_0633, 6, 0x03), // Pentium II: model extension 0
            (Vendor::Other, 0x0001_0543, 5, 0x04), // below family 6 the extension is not read
        ];
        for (vendor, eax, family, model) in cases {
            let cpu = CpuId::from_signature(vendor, eax);
            assert_eq!((cpu.family, cpu.model), (family, model), "{eax:#x}");
        }
        assert_eq!(amd(25, 1).to_string(), "AMD family 25 model 1");
        assert_eq!(CpuId::default().to_string(), "");
    }
}
