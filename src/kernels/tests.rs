//! Selection on made-up CPUs and what `FASTHASH_KERNEL` may force: the engine table seen
//! from outside, as `--list-kernels` and the CLI see it.

use super::algorithm::{Algorithm, ALGORITHM_COUNT};
use super::detect::{Capabilities, CpuId, Kernel, Vendor};
use super::preference::Preference;
use super::table::{self, parse_forced, select, select_with, Choice, Forced, Rule};
use super::test_data;

fn x86_baseline() -> Capabilities {
    Capabilities {
        sse2: true,
        ..Capabilities::default()
    }
}

fn kernel(algorithm: Algorithm, caps: &Capabilities) -> Kernel {
    select(algorithm, caps).engine.kernel
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
    assert_eq!(count, ALGORITHM_COUNT);
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
    // MD5 of one stream in BMI1 assembly, without AVX2 (AMD's Piledriver and Jaguar cores).
    let bmi1 = Capabilities { bmi1: true, ..caps };
    assert_eq!(
        kernel(Algorithm::Md5, &bmi1),
        ours(Kernel::Bmi, Kernel::Portable)
    );
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
    assert_eq!(caps, x86_with_avx2_and_vpclmulqdq());
}

/// The x86-64 baseline with AVX2, SSE4.1, PCLMULQDQ and VPCLMULQDQ, and no BMI.
fn x86_with_avx2_and_vpclmulqdq() -> Capabilities {
    Capabilities {
        avx2: true,
        pclmulqdq: true,
        sse41: true,
        vpclmulqdq: true,
        ..x86_baseline()
    }
}

#[test]
fn our_sha512_rounds_and_the_avx512_tier_are_chosen_only_with_all_they_need() {
    let mut caps = x86_with_avx2_and_vpclmulqdq();
    // SHA-384/512 of one stream: our rounds with an AVX2 schedule need BMI1 and BMI2 too
    // (ring otherwise), as on AMD Zen 3.
    for algorithm in [Algorithm::Sha512, Algorithm::Sha384] {
        assert_eq!(
            kernel(algorithm, &caps),
            Kernel::RingAssembly,
            "{algorithm}"
        );
        let zen3 = Capabilities {
            bmi1: true,
            bmi2: true,
            ..caps
        };
        assert_eq!(
            kernel(algorithm, &zen3),
            ours(Kernel::Avx2, Kernel::RingAssembly),
            "{algorithm}"
        );
        let bmi2_hidden = Capabilities {
            bmi2: false,
            ..zen3
        };
        assert_eq!(kernel(algorithm, &bmi2_hidden), Kernel::RingAssembly);
    }
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
    // Our SHA-384/512 engines need BMI1 and BMI2 besides, for the rounds of one stream.
    for algorithm in [Algorithm::Sha512, Algorithm::Sha384] {
        assert_eq!(
            kernel(algorithm, &caps),
            Kernel::RingAssembly,
            "{algorithm}"
        );
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

/// SHA-1 and SHA-224/256 go side by side in AVX2 lanes where the CPU has no SHA extensions
/// (Intel's client cores from Haswell to Comet Lake); with them, SHA-NI takes every file, but
/// for SHA-1 on Zen 3, whose preference row takes the lanes (a file alone still on SHA-NI).
#[test]
fn sha_goes_to_avx2_lanes_where_the_sha_extensions_are_missing() {
    let haswell = Capabilities {
        ssse3: true,
        sse41: true,
        ..x86_with_avx2_and_vpclmulqdq()
    };
    for algorithm in [Algorithm::Sha1, Algorithm::Sha224, Algorithm::Sha256] {
        assert_eq!(
            kernel(algorithm, &haswell),
            ours(Kernel::Avx2, Kernel::Portable),
            "{algorithm}"
        );
    }
    let with_sha_ni = Capabilities {
        sha_ni: true,
        ..haswell
    };
    let zen3 = Capabilities {
        cpu: CpuId {
            vendor: Vendor::Amd,
            family: 25,
            model: 1,
        },
        ..with_sha_ni
    };
    for caps in [with_sha_ni, zen3] {
        for algorithm in [Algorithm::Sha224, Algorithm::Sha256] {
            assert_eq!(
                kernel(algorithm, &caps),
                Kernel::ShaExtensions,
                "{algorithm}"
            );
        }
    }
    assert_eq!(kernel(Algorithm::Sha1, &with_sha_ni), Kernel::ShaExtensions);
    assert_eq!(
        kernel(Algorithm::Sha1, &zen3),
        ours(Kernel::Avx2, Kernel::ShaExtensions)
    );
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
        for engine in table::all() {
            assert!(
                !matches!(
                    engine.kernel,
                    Kernel::Avx2 | Kernel::Avx512 | Kernel::Vpclmulqdq | Kernel::Bmi
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
        assert!((select(algorithm, &caps).engine.runs_on)(&caps));
        assert!(!table::chosen(algorithm).label().is_empty());
    }
}

/// ring's SHA-384/512 (the engine where BMI1 and BMI2 are hidden, and on Arm); the sha2 crate
/// is its reference, on every length to 4161, streamed with a split point that moves, and on
/// 3 MiB.
#[test]
fn ring_sha512_family_matches_sha2() {
    use sha2::Digest as _;
    test_data::each_length_to_4161_and_3_mib(|input| {
        let len = input.len();
        let split = (len * 7) / 13;
        for (algorithm, expected) in [
            (Algorithm::Sha512, sha2::Sha512::digest(input).to_vec()),
            (Algorithm::Sha384, sha2::Sha384::digest(input).to_vec()),
        ] {
            let ring = table::find(algorithm, Kernel::RingAssembly).expect("ring's engine");
            assert_eq!(ring.hash(input).as_bytes(), expected, "{algorithm} {len}");
            let mut hasher = ring.hasher();
            hasher.update(&input[..split]);
            hasher.update(&input[split..]);
            assert_eq!(
                hasher.finalize().as_bytes(),
                expected,
                "{algorithm} {len} streamed"
            );
        }
    });
}

/// Made-up CPUs for the preferences: a CPU with AVX-512, AVX2 and BMI, of `vendor`, `family`
/// and `model`.
fn avx512_cpu(vendor: Vendor, family: u32, model: u32) -> Capabilities {
    Capabilities {
        avx512f: true,
        avx512bw: true,
        avx512vl: true,
        bmi1: true,
        bmi2: true,
        cpu: CpuId {
            vendor,
            family,
            model,
        },
        ..x86_with_avx2_and_vpclmulqdq()
    }
}

#[test]
fn md5_of_a_file_alone_is_scalar_on_zen4_and_zen5_only() {
    let zen4 = avx512_cpu(Vendor::Amd, 25, 0x11);
    // Turin (02h), Granite Ridge (44h), Strix Halo (70h).
    let zen5s = [0x02, 0x44, 0x70].map(|model| avx512_cpu(Vendor::Amd, 26, model));
    for cpu in std::iter::once(&zen4).chain(&zen5s) {
        let choice = select(Algorithm::Md5, cpu);
        if cfg!(target_arch = "x86_64") {
            assert_eq!(choice.engine.kernel, Kernel::Avx512, "{}", cpu.cpu);
            assert_eq!(choice.alone.map(|alone| alone.kernel), Some(Kernel::Bmi));
            assert!(matches!(choice.rule, Rule::Preferred(_)), "{choice:?}");
            assert_eq!(choice.name(), "avx512+bmi");
        }
    }
    // The same features on Intel Sapphire Rapids, and on family 26's Zen 6 models (50h, 90h),
    // not measured, keep the table's order: AVX-512 for a file alone too. So does every other
    // algorithm on Zen 4.
    for cpu in [
        avx512_cpu(Vendor::Intel, 6, 0x8F),
        avx512_cpu(Vendor::Amd, 26, 0x50),
        avx512_cpu(Vendor::Amd, 26, 0x90),
    ] {
        let choice = select(Algorithm::Md5, &cpu);
        assert!(choice.alone.is_none(), "{}", cpu.cpu);
        assert!(matches!(choice.rule, Rule::TableOrder), "{}", cpu.cpu);
        assert_eq!(choice.engine.kernel, ours(Kernel::Avx512, Kernel::Portable));
    }
    // On Zen 5 every other algorithm keeps the table's order.
    for algorithm in Algorithm::all().filter(|algorithm| *algorithm != Algorithm::Md5) {
        assert!(
            matches!(select(algorithm, &zen5s[0]).rule, Rule::TableOrder),
            "{algorithm}"
        );
    }
    let preferred_on_zen4 = [Algorithm::Md5, Algorithm::Sha512, Algorithm::Sha384];
    for algorithm in Algorithm::all().filter(|algorithm| !preferred_on_zen4.contains(algorithm)) {
        assert!(
            matches!(select(algorithm, &zen4).rule, Rule::TableOrder),
            "{algorithm}"
        );
    }
    // Zen 3 is family 25 too, but has no AVX-512: the row does not apply.
    let zen3 = Capabilities {
        bmi1: true,
        bmi2: true,
        cpu: CpuId {
            vendor: Vendor::Amd,
            family: 25,
            model: 1,
        },
        ..x86_with_avx2_and_vpclmulqdq()
    };
    let choice = select(Algorithm::Md5, &zen3);
    assert!(matches!(choice.rule, Rule::TableOrder) && choice.alone.is_none());
    // Zen 4 with BMI1 hidden by a hypervisor: the preferred code for a file alone cannot run,
    // so the row is passed over and AVX-512 does it all.
    let hidden = Capabilities {
        bmi1: false,
        ..zen4
    };
    let choice = select(Algorithm::Md5, &hidden);
    assert!(matches!(choice.rule, Rule::TableOrder) && choice.alone.is_none());
}

#[test]
fn sha512_of_a_file_alone_is_on_the_bmi2_assembly_on_zen4_only() {
    let zen4 = avx512_cpu(Vendor::Amd, 25, 0x11);
    for algorithm in [Algorithm::Sha512, Algorithm::Sha384] {
        #[cfg(target_arch = "x86_64")]
        {
            let choice = select(algorithm, &zen4);
            assert_eq!(choice.engine.kernel, Kernel::Avx512, "{algorithm}");
            assert_eq!(choice.alone.map(|alone| alone.kernel), Some(Kernel::Avx2));
            assert!(matches!(choice.rule, Rule::Preferred(_)), "{choice:?}");
            assert_eq!(choice.name(), "avx512+avx2");
            // The lanes stay AVX-512's eight; a file alone takes the other engine's stream.
            let runnable = choice.runnable();
            assert_eq!(runnable.lanes.map(|lanes| lanes.width), Some(8));
            // And it hashes, where this CPU runs the assembly.
            let runs = (choice.alone.unwrap().runs_on)(&Capabilities::get());
            if test_data::runs_here(runs, "AVX2, BMI1 and BMI2") {
                let input = test_data::data(9_000);
                let mut stream = (runnable.streaming)();
                stream.update(&input);
                assert_eq!(
                    stream.finalize().as_bytes(),
                    (table::portable(algorithm).one_shot)(&input).as_bytes()
                );
            }
        }
        // Sapphire Rapids and Zen 5 keep the AVX-512 engine's own stream: on Zen 5 it ran at
        // 1.02 to 1.04x OpenSSL, the assembly at 0.99 to 1.03x.
        for cpu in [
            avx512_cpu(Vendor::Intel, 6, 0x8F),
            avx512_cpu(Vendor::Amd, 26, 0x02),
        ] {
            let choice = select(algorithm, &cpu);
            assert!(choice.alone.is_none(), "{}", cpu.cpu);
            assert!(matches!(choice.rule, Rule::TableOrder), "{}", cpu.cpu);
        }
        // Zen 4 with BMI2 hidden by a hypervisor: the assembly cannot run, AVX-512 does it all.
        let hidden = Capabilities {
            bmi2: false,
            ..zen4
        };
        let choice = select(algorithm, &hidden);
        assert!(matches!(choice.rule, Rule::TableOrder) && choice.alone.is_none());
    }
}

/// Made-up preferences on a made-up AMD family 99: the first that applies and whose engines
/// run wins, whatever the table's order.
static MADE_UP: &[Preference] = &[
    // Never applies: its engine needs AVX-512 in these tests.
    Preference {
        name: "needs avx512",
        algorithms: &[Algorithm::Xxh3, Algorithm::Md5],
        vendor: Vendor::Amd,
        family: 99,
        models: &[(0, 255)],
        engine: Kernel::Avx512,
        alone: None,
        evidence: "none: a test",
    },
    Preference {
        name: "xxh3 on portable",
        algorithms: &[Algorithm::Xxh3],
        vendor: Vendor::Amd,
        family: 99,
        models: &[(4, 7)],
        engine: Kernel::Portable,
        alone: None,
        evidence: "none: a test",
    },
    Preference {
        name: "md5 alone on portable",
        algorithms: &[Algorithm::Md5],
        vendor: Vendor::Amd,
        family: 99,
        models: &[(0, 3), (5, 5)],
        engine: Kernel::Avx2,
        alone: Some(Kernel::Portable),
        evidence: "none: a test",
    },
];

#[test]
fn the_first_preference_that_applies_and_runs_is_taken() {
    let cpu = |model| Capabilities {
        bmi1: true,
        cpu: CpuId {
            vendor: Vendor::Amd,
            family: 99,
            model,
        },
        ..x86_with_avx2_and_vpclmulqdq()
    };
    let named = |choice: &Choice| match choice.rule {
        Rule::Preferred(preference) => preference.name,
        _ => "table order",
    };
    // Model 5: both rows apply, each to its own algorithm.
    let xxh3 = select_with(Algorithm::Xxh3, &cpu(5), MADE_UP);
    assert_eq!(named(&xxh3), "xxh3 on portable");
    assert_eq!(xxh3.engine.kernel, Kernel::Portable);
    let md5 = select_with(Algorithm::Md5, &cpu(5), MADE_UP);
    if cfg!(target_arch = "x86_64") {
        assert_eq!(named(&md5), "md5 alone on portable");
        assert_eq!(md5.engine.kernel, Kernel::Avx2);
        assert_eq!(md5.alone.map(|alone| alone.kernel), Some(Kernel::Portable));
    }
    // Model 6: only the XXH3 row; model 9: none. Another family or maker: none.
    assert_eq!(
        named(&select_with(Algorithm::Md5, &cpu(6), MADE_UP)),
        "table order"
    );
    assert_eq!(
        named(&select_with(Algorithm::Xxh3, &cpu(9), MADE_UP)),
        "table order"
    );
    let intel = Capabilities {
        cpu: CpuId {
            vendor: Vendor::Intel,
            ..cpu(5).cpu
        },
        ..cpu(5)
    };
    assert_eq!(
        named(&select_with(Algorithm::Xxh3, &intel, MADE_UP)),
        "table order"
    );
}

/// An engine made of two (a lane engine, another's code for a file alone) gives the portable
/// engine's digests by every path, and runs the code it was made of.
#[test]
fn an_engine_of_two_hashes_with_both() {
    let Some(lanes) =
        table::of(Algorithm::Md5).find(|engine| engine.lanes.is_some() && engine.runs_here())
    else {
        eprintln!("skipped: no MD5 lane engine runs on this CPU");
        return;
    };
    let portable = table::portable(Algorithm::Md5);
    let choice = Choice {
        engine: lanes,
        alone: Some(portable),
        rule: Rule::TableOrder,
    };
    let both = choice.runnable();
    assert_eq!(both.kernel, lanes.kernel);
    assert_eq!(both.one_shot as usize, portable.one_shot as usize);
    assert_eq!(both.streaming as usize, portable.streaming as usize);
    assert_eq!(
        both.lanes.map(|l| l.many as usize),
        lanes.lanes.map(|l| l.many as usize)
    );
    assert!(table::self_check(both, portable));
}

/// Every BLAKE2b length shares one row of the algorithm table, but each has its own engine:
/// the choice made for one length is never the one another length runs.
#[test]
fn each_blake2b_length_runs_at_its_own_length() {
    for bytes in [32, 64, 16, 64, 1, 48] {
        let algorithm = Algorithm::Blake2b(bytes);
        let digest = table::hash(algorithm, b"abc");
        assert_eq!(digest.as_bytes().len(), usize::from(bytes), "{algorithm}");
        assert_eq!(table::choice(algorithm).engine.algorithm, algorithm);
        assert_eq!(table::chosen(algorithm).algorithm, algorithm);
    }
}
