//! Every engine this CPU can run, forced, against the portable engine of the same algorithm:
//! every length 0..=4161 at shifting offsets, streamed with random split points, large inputs,
//! and many messages side by side. The portable engines are separate code (our SHA-2, MD5 and
//! BLAKE3, sha1_smol, the crc crate's tables, xxhash-rust), and the known-answer tests check
//! them in CI's portable pass. The lane kernels' own tests (every lane count on the portable
//! model of the lane operations, against md-5, sha1 and sha2) are unit tests of the library.

use crate::common;

use common::{fasthash, program, random_bytes, text, SplitMix64};
use fasthash::kernels::detect::{self, Capabilities};
use fasthash::kernels::engine::Engine;
use fasthash::kernels::table;
use fasthash::kernels::{Algorithm, Digest, Hasher, Kernel};

/// Input bytes, the same on every run so failures reproduce; every test compares engines with
/// each other, so no answer depends on these exact bytes.
fn data(len: usize) -> Vec<u8> {
    random_bytes(len, 0x9E37_79B9_7F4A_7C15)
}

fn digest(engine: &Engine, pieces: &[&[u8]]) -> Digest {
    let mut hasher = engine.hasher();
    for piece in pieces {
        hasher.update(piece);
    }
    hasher.finalize()
}

/// The portable engine's digest of a whole message.
fn portable(algorithm: Algorithm, message: &[u8]) -> Digest {
    table::portable(algorithm).hash(message)
}

/// Splits `input` at `cuts` random points (some of them repeated, giving empty updates).
fn split<'a>(input: &'a [u8], random: &mut SplitMix64, cuts: usize) -> Vec<&'a [u8]> {
    let mut points: Vec<usize> = (0..cuts).map(|_| random.below(input.len() + 1)).collect();
    points.sort_unstable();
    let mut pieces = Vec::new();
    let mut start = 0;
    for point in points.into_iter().chain([input.len()]) {
        pieces.push(&input[start..point]);
        start = point;
    }
    pieces
}

/// The engines besides portable that this CPU runs.
fn fast_engines() -> Vec<&'static Engine> {
    table::all()
        .filter(|engine| engine.kernel != Kernel::Portable && engine.runs_here())
        .collect()
}

#[test]
fn this_machine_runs_the_kernels_it_should() {
    // A guard against testing nothing: on x86-64 with SHA-NI, AVX2 and PCLMULQDQ (the machines
    // this project is measured on) every fast kernel must be exercised.
    let caps = Capabilities::get();
    let kernels: Vec<(Algorithm, Kernel)> = fast_engines()
        .into_iter()
        .map(|engine| (engine.algorithm, engine.kernel))
        .collect();
    eprintln!("fast engines run here: {kernels:?}");
    if caps.avx512f && caps.avx512bw && cfg!(target_arch = "x86_64") {
        for algorithm in [
            Algorithm::Md5,
            Algorithm::Sha1,
            Algorithm::Sha224,
            Algorithm::Sha256,
            Algorithm::Sha384,
            Algorithm::Sha512,
        ] {
            // SHA-384/512's engine needs BMI1/BMI2 too, which a hypervisor may hide.
            let needs_bmi = matches!(algorithm, Algorithm::Sha384 | Algorithm::Sha512);
            if needs_bmi && !(caps.bmi1 && caps.bmi2) {
                continue;
            }
            assert!(
                kernels.contains(&(algorithm, Kernel::Avx512)),
                "{algorithm}"
            );
        }
    } else {
        eprintln!("AVX-512 engines not run: this CPU lacks AVX-512F/BW");
    }
    if caps.sha_ni && caps.avx2 && caps.pclmulqdq && cfg!(target_arch = "x86_64") {
        for expected in [
            (Algorithm::Sha256, Kernel::ShaExtensions),
            (Algorithm::Sha1, Kernel::ShaExtensions),
            (Algorithm::Sha512, Kernel::RingAssembly),
            (Algorithm::Sha384, Kernel::RingAssembly),
            (Algorithm::Blake3, Kernel::Blake3Simd),
            (Algorithm::Xxh3, Kernel::Avx2),
            (Algorithm::Xxh128, Kernel::Avx2),
            (Algorithm::Crc64Nvme, Kernel::CarrylessMultiply),
        ] {
            assert!(kernels.contains(&expected), "{expected:?} not run");
        }
        if caps.vpclmulqdq {
            assert!(kernels.contains(&(Algorithm::Crc32c, Kernel::Vpclmulqdq)));
            assert!(kernels.contains(&(Algorithm::Crc32c, Kernel::CarrylessMultiply)));
        }
        assert!(kernels.contains(&(Algorithm::Md5, Kernel::Avx2)));
        // SHA-1 and SHA-224/256 side by side in AVX2 lanes (chosen where SHA-NI is missing).
        for algorithm in [Algorithm::Sha1, Algorithm::Sha224, Algorithm::Sha256] {
            assert!(kernels.contains(&(algorithm, Kernel::Avx2)), "{algorithm}");
        }
        // SHA-384/512 of one stream on our rounds with an AVX2 schedule, where BMI1 and BMI2
        // are not hidden.
        // MD5 of one stream in BMI1 assembly, forced alone (the AVX2 lanes' one stream too).
        if caps.bmi1 {
            assert!(kernels.contains(&(Algorithm::Md5, Kernel::Bmi)));
        }
        if caps.bmi1 && caps.bmi2 {
            assert!(kernels.contains(&(Algorithm::Sha512, Kernel::Avx2)));
            assert!(kernels.contains(&(Algorithm::Sha384, Kernel::Avx2)));
        }
    }
    // On Arm (under qemu in CI, with `-cpu max` and `-cpu cortex-a53`): the NEON lanes, and
    // the crates' SHA and PMULL paths wherever the CPU has those instructions.
    if caps.neon && cfg!(target_arch = "aarch64") {
        for algorithm in [
            Algorithm::Md5,
            Algorithm::Sha1,
            Algorithm::Sha224,
            Algorithm::Sha256,
        ] {
            assert!(kernels.contains(&(algorithm, Kernel::Neon)), "{algorithm}");
        }
        if caps.arm_sha2 {
            assert!(kernels.contains(&(Algorithm::Sha256, Kernel::ShaExtensions)));
            assert!(kernels.contains(&(Algorithm::Sha1, Kernel::ShaExtensions)));
        }
        if caps.arm_pmull {
            assert!(kernels.contains(&(Algorithm::Crc64Nvme, Kernel::CarrylessMultiply)));
        }
        assert!(kernels.contains(&(Algorithm::Blake3, Kernel::Blake3Simd)));
    }
    for algorithm in Algorithm::all() {
        assert!(table::portable(algorithm).runs_here());
    }
}

#[test]
fn every_length_to_4161_at_shifting_offsets() {
    let source = data(4161 + 64);
    for engine in fast_engines() {
        let (algorithm, kernel) = (engine.algorithm, engine.kernel);
        for len in 0..=4161 {
            let offset = (len * 7 + 3) % 64;
            let input = &source[offset..offset + len];
            let expected = portable(algorithm, input);
            assert_eq!(
                digest(engine, &[input]),
                expected,
                "{algorithm} on {kernel:?}, length {len}, offset {offset}"
            );
            assert_eq!(
                engine.hash(input),
                expected,
                "{algorithm} on {kernel:?} one-shot, length {len}, offset {offset}"
            );
        }
    }
}

#[test]
fn random_split_points_of_streaming_updates() {
    let source = data(20_000);
    let mut random = SplitMix64(42);
    for engine in fast_engines() {
        let (algorithm, kernel) = (engine.algorithm, engine.kernel);
        for round in 0..300 {
            let len = if round % 3 == 0 {
                random.below(600)
            } else {
                random.below(source.len())
            };
            let offset = random.below(source.len() - len + 1);
            let input = &source[offset..offset + len];
            let cuts = 1 + random.below(8);
            let pieces = split(input, &mut random, cuts);
            let expected = portable(algorithm, input);
            assert_eq!(
                digest(engine, &pieces),
                expected,
                "{algorithm} on {kernel:?}, length {len}, pieces {:?}",
                pieces.iter().map(|p| p.len()).collect::<Vec<_>>()
            );
            // The portable engine streams correctly too.
            assert_eq!(digest(table::portable(algorithm), &pieces), expected);
        }
    }
}

#[test]
fn byte_at_a_time_across_block_boundaries() {
    let source = data(2100);
    for engine in fast_engines() {
        let (algorithm, kernel) = (engine.algorithm, engine.kernel);
        for len in [
            239, 240, 241, 1023, 1024, 1025, 1087, 1088, 1089, 2048, 2049, 2100,
        ] {
            let input = &source[..len];
            let bytes: Vec<&[u8]> = input.chunks(1).collect();
            assert_eq!(
                digest(engine, &bytes),
                portable(algorithm, input),
                "{algorithm} on {kernel:?}, length {len}, one byte at a time"
            );
        }
    }
}

#[test]
fn large_inputs() {
    let source = data(33 * 1024 * 1024 + 13);
    let mut random = SplitMix64(7);
    for engine in fast_engines() {
        let (algorithm, kernel) = (engine.algorithm, engine.kernel);
        for len in [1024 * 1024 + 1, 8 * 1024 * 1024 - 5, source.len()] {
            let input = &source[..len];
            let pieces = split(input, &mut random, 5);
            assert_eq!(
                digest(engine, &pieces),
                portable(algorithm, input),
                "{algorithm} on {kernel:?}, length {len}"
            );
        }
    }
}

#[test]
fn one_shot_matches_streaming_on_the_chosen_kernel() {
    let source = data(5000);
    for algorithm in Algorithm::all() {
        for len in [0, 1, 64, 240, 241, 1024, 4999] {
            let input = &source[..len];
            let mut hasher = Hasher::new(algorithm);
            hasher.update(input);
            assert_eq!(
                fasthash::kernels::hash(algorithm, input),
                hasher.finalize(),
                "{algorithm}, length {len}"
            );
        }
    }
}

#[test]
fn forcing_each_kernel_through_the_environment_changes_the_path_not_the_sum() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data");
    // Large enough to take every kernel's bulk path and the parallel split of big files.
    std::fs::write(&file, data(5 * 1024 * 1024 + 77)).unwrap();
    for algorithm in Algorithm::all() {
        let portable = fasthash(dir.path())
            .env(detect::FORCE_VARIABLE, "portable")
            .args(["--debug", "-a", algorithm.name()])
            .arg(&file)
            .output();
        assert!(portable.status.success());
        let stderr = text(&portable.stderr);
        assert!(
            stderr.contains(&format!("{}: kernel portable", algorithm.name())),
            "{stderr}"
        );
        for engine in table::of(algorithm).filter(|engine| engine.runs_here()) {
            let kernel = engine.kernel;
            let forced = format!("{}={}", algorithm.name(), kernel.name());
            let output = fasthash(dir.path())
                .env(detect::FORCE_VARIABLE, &forced)
                .args(["--debug", "-a", algorithm.name()])
                .arg(&file)
                .output();
            assert!(output.status.success(), "{forced}");
            assert_eq!(output.stdout, portable.stdout, "{forced}");
            let stderr = text(&output.stderr);
            assert!(
                stderr.contains(&format!("kernel {} (", kernel.name())),
                "{forced}: {stderr}"
            );
        }
    }
}

#[test]
fn an_impossible_kernel_is_a_usage_error_naming_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data");
    std::fs::write(&file, b"abc").unwrap();
    for (value, reason) in [
        ("avx-512", "unknown kernel 'avx-512'"),
        ("md5=clmul", "no such kernel"),
        ("nosuch=portable", "unknown algorithm 'nosuch'"),
    ] {
        let output = fasthash(dir.path())
            .env(detect::FORCE_VARIABLE, value)
            .args(["-a", "sha256"])
            .arg(&file)
            .output();
        assert_eq!(output.status.code(), Some(2), "{value}");
        assert!(output.stdout.is_empty());
        let stderr = text(&output.stderr);
        assert!(stderr.contains(reason), "{value}: {stderr}");
        assert!(
            stderr.contains(&format!("FASTHASH_KERNEL={value}")),
            "{stderr}"
        );
    }
    // A kernel this CPU lacks is refused the same way.
    for (algorithm, kernel) in [(Algorithm::Xxh3, "avx2"), (Algorithm::Md5, "avx512")] {
        let engine = table::of(algorithm).find(|engine| engine.kernel.name() == kernel);
        if engine.is_some_and(|engine| !engine.runs_here()) {
            let output = fasthash(dir.path())
                .env(detect::FORCE_VARIABLE, kernel)
                .args(["-a", algorithm.name()])
                .arg(&file)
                .output();
            assert_eq!(output.status.code(), Some(2), "{algorithm} on {kernel}");
        }
    }
}

#[test]
fn list_kernels_marks_one_kernel_per_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let output = fasthash(dir.path())
        .cpu_kernels()
        .arg("--list-kernels")
        .output();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    for algorithm in Algorithm::all() {
        let used: Vec<&str> = text
            .lines()
            .filter(|line| line.split_whitespace().next() == Some(algorithm.name()))
            .filter(|line| line.split_whitespace().nth(2) == Some("*"))
            .collect();
        assert_eq!(used.len(), 1, "{algorithm}: {text}");
        let chosen = table::select(algorithm, &Capabilities::get());
        assert!(used[0].contains(chosen.engine.kernel.name()), "{}", used[0]);
    }
    // Under the table, each algorithm is named once, on the line of the rule that chose it.
    let rules = text
        .split_once("Why these kernels:\n")
        .expect("the rules under the table")
        .1;
    for algorithm in Algorithm::all() {
        let naming: Vec<&str> = rules
            .lines()
            .filter_map(|line| line.split_once(": "))
            .filter(|(names, _)| names.split(' ').any(|name| name == algorithm.name()))
            .map(|(_, rule)| rule)
            .collect();
        assert_eq!(naming.len(), 1, "{algorithm}: {rules}");
        let rule = table::select(algorithm, &Capabilities::get())
            .rule
            .describe();
        assert!(
            naming[0].starts_with(&rule),
            "{algorithm}: {} against {rule}",
            naming[0]
        );
    }
    let forced = fasthash(dir.path())
        .env(detect::FORCE_VARIABLE, "portable")
        .arg("--list-kernels")
        .output();
    let text = String::from_utf8(forced.stdout).unwrap();
    let used_portable = text
        .lines()
        .filter(|line| line.split_whitespace().nth(1) == Some("portable"))
        .filter(|line| line.split_whitespace().nth(2) == Some("*"))
        .count();
    assert_eq!(used_portable, Algorithm::all().count(), "{text}");
}

/// Engines that hash several messages side by side (lanes), against one message at a time on
/// the portable engine: many lengths in one call, so lanes finish at different blocks and take
/// the next message, and calls of every size from 0 to 40 messages.
#[test]
fn messages_side_by_side_match_one_at_a_time() {
    // Lanes refill at every block position from a few hundred blocks of lengths on; longer
    // messages would only hash more of the same (under qemu, minutes of it).
    let source = data(17_000);
    let mut random = SplitMix64(99);
    for engine in fast_engines() {
        let (algorithm, kernel) = (engine.algorithm, engine.kernel);
        // Lanes that failed their self-check would not run, and the messages would be hashed
        // one by one: these comparisons would then test nothing of them.
        assert_eq!(
            table::checked_lanes(engine).is_some(),
            engine.lanes.is_some(),
            "{algorithm} on {kernel:?}: its lanes failed their self-check"
        );
        for count in 0..=40 {
            for _ in 0..20 {
                let messages: Vec<&[u8]> = (0..count)
                    .map(|_| {
                        let len = match random.below(4) {
                            0 => random.below(130),
                            1 => random.below(4162),
                            _ => random.below(source.len()),
                        };
                        let offset = random.below(source.len() - len + 1);
                        &source[offset..offset + len]
                    })
                    .collect();
                let together = engine.hash_many(&messages);
                assert_eq!(together.len(), messages.len());
                for (message, digest) in messages.iter().zip(together) {
                    assert_eq!(
                        digest,
                        portable(algorithm, message),
                        "{algorithm} on {kernel:?}, {count} messages, length {}",
                        message.len()
                    );
                }
            }
        }
        // Every length 0..=4161 in one call: 4162 messages through the lanes.
        let all: Vec<&[u8]> = (0..=4161)
            .map(|len| &source[len % 64..len % 64 + len])
            .collect();
        let together = engine.hash_many(&all);
        for (message, digest) in all.iter().zip(together) {
            assert_eq!(
                digest,
                portable(algorithm, message),
                "{algorithm} on {kernel:?}"
            );
        }
    }
}

/// Many files through the CLI: every side-by-side engine gives the lines the portable engine
/// and the coreutils program give, in order, with failures reported in place among them.
#[test]
fn many_files_side_by_side_match_coreutils() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    std::fs::create_dir(&root).unwrap();
    let source = data(5 * 1024 * 1024 + 100);
    let mut random = SplitMix64(5);
    for i in 0..150 {
        let len = match i % 10 {
            0 => 0,
            1 => 5 * 1024 * 1024 + random.below(100),
            _ => random.below(300_000),
        };
        std::fs::write(root.join(format!("f{i:03}")), &source[..len]).unwrap();
    }
    std::fs::create_dir(root.join("f050-dir")).unwrap();
    let mut names: Vec<String> = (0..150).map(|i| format!("tree/f{i:03}")).collect();
    names.insert(40, "tree/missing".to_string());
    names.insert(70, "tree/f050-dir".to_string());
    let run = |algorithm: Algorithm, kernel: &str| {
        fasthash(dir.path())
            .env(detect::FORCE_VARIABLE, kernel)
            .args(["-a", algorithm.name()])
            .args(&names)
            .output()
    };
    let laned = fast_engines()
        .into_iter()
        .filter(|engine| engine.lanes.is_some());
    let mut manifests = Vec::new();
    for engine in laned {
        let algorithm = engine.algorithm;
        let forced = format!("{algorithm}={}", engine.kernel.name());
        let fast = run(algorithm, &forced);
        let portable = run(algorithm, "portable");
        manifests.push((algorithm, forced.clone(), portable.stdout.clone()));
        assert_eq!(fast.status.code(), Some(1), "{forced}");
        assert_eq!(text(&fast.stdout), text(&portable.stdout), "{forced}");
        assert_eq!(fast.stderr, portable.stderr, "{forced}");
        assert_eq!(text(&fast.stdout).lines().count(), 150);
        let coreutils = format!("{algorithm}sum");
        if let Ok(theirs) = program(&coreutils, dir.path()).args(&names).try_output() {
            assert_eq!(
                text(&fast.stdout),
                text(&theirs.stdout),
                "{forced} against {coreutils}"
            );
        }
    }
    // The same files checked against those manifests after three of them changed (a byte, a
    // truncation, a removal): `--check` hashes its lines side by side too, and must report
    // what the portable engine and coreutils report, line for line.
    let mut changed = std::fs::read(root.join("f003")).unwrap();
    let middle = changed.len() / 2;
    changed[middle] ^= 1;
    std::fs::write(root.join("f003"), changed).unwrap();
    let truncated = std::fs::read(root.join("f007")).unwrap();
    std::fs::write(root.join("f007"), &truncated[..truncated.len() / 2]).unwrap();
    std::fs::remove_file(root.join("f011")).unwrap();
    for (algorithm, forced, manifest) in manifests {
        let sums = dir.path().join(format!("SUMS-{algorithm}"));
        std::fs::write(&sums, manifest).unwrap();
        let check = |kernel: &str| {
            fasthash(dir.path())
                .env(detect::FORCE_VARIABLE, kernel)
                .args(["-a", algorithm.name(), "-c"])
                .arg(&sums)
                .output()
        };
        let fast = check(&forced);
        let portable = check("portable");
        assert_eq!(fast.status.code(), Some(1), "{forced} -c");
        assert_eq!(text(&fast.stdout), text(&portable.stdout), "{forced} -c");
        assert_eq!(fast.stderr, portable.stderr, "{forced} -c");
        let stdout = text(&fast.stdout);
        assert_eq!(stdout.lines().count(), 150, "{forced} -c");
        assert_eq!(stdout.matches(": OK\n").count(), 147, "{forced} -c");
        let coreutils = format!("{algorithm}sum");
        if let Ok(theirs) = program(&coreutils, dir.path())
            .arg("-c")
            .arg(&sums)
            .try_output()
        {
            assert_eq!(
                stdout,
                text(&theirs.stdout),
                "{forced} -c against {coreutils} -c"
            );
        }
    }
}

/// S3 multipart ETags, whose part MD5s run side by side when parts are read in step: the same
/// value as the portable kernel and as md-5 over each part, for part sizes that are and are not
/// whole MD5 blocks, with and without a short last part.
#[test]
fn multipart_etags_side_by_side_match_md5_of_part_md5s() {
    use md5::Digest as _;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("object");
    for (size, part_size) in [
        (4_000_000usize, 100_003usize),
        (4_000_000, 65_536),
        (40 * 65_536, 65_536),
        (3 * 1024 * 1024 + 5, 70_001),
    ] {
        let content = data(size);
        std::fs::write(&path, &content).unwrap();
        let part_md5s: Vec<u8> = content
            .chunks(part_size)
            .flat_map(|part| md5::Md5::digest(part).to_vec())
            .collect();
        let md5_of_md5s = common::encode_hex(&md5::Md5::digest(&part_md5s));
        let expected = format!("\"{md5_of_md5s}-{}\"", content.len().div_ceil(part_size));
        for kernel in ["md5=avx512", "md5=avx2", "md5=neon", "portable"] {
            let (_, name) = kernel.split_once('=').unwrap_or(("", "portable"));
            if !table::of(Algorithm::Md5).any(|e| e.kernel.name() == name && e.runs_here()) {
                continue;
            }
            let output = fasthash(dir.path())
                .env(detect::FORCE_VARIABLE, kernel)
                .args(["-a", "md5", "--etag", "--no-part-limits", "--part-size"])
                .arg(part_size.to_string())
                .arg(&path)
                .output();
            assert!(output.status.success(), "{kernel}");
            let text = String::from_utf8(output.stdout).unwrap();
            assert!(
                text.contains(&expected),
                "{kernel}, {size} bytes in parts of {part_size}: {text} lacks {expected}"
            );
        }
    }
}

/// S3 COMPOSITE checksums, whose parts run side by side on lane engines when taken in step: the
/// same value as on the portable engine, for SHA-256, SHA-1 and SHA-512, with and without a
/// short last part, with and without the ETag's MD5s beside them, from a mapping of the file
/// (from 4 MiB, or `--mmap`) or read (`--no-mmap`).
#[test]
fn composite_checksums_side_by_side_match_the_portable_engine() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("object");
    let laned: Vec<&Engine> = fast_engines()
        .into_iter()
        .filter(|engine| engine.lanes.is_some() && engine.algorithm != Algorithm::Md5)
        .collect();
    for (size, part_size) in [
        (4_000_000usize, 100_003usize),
        (40 * 65_536, 65_536),
        (5 * 1_048_576 + 4_099, 65_536),
    ] {
        std::fs::write(&path, data(size)).unwrap();
        for engine in &laned {
            let algorithm = engine.algorithm.name();
            if engine.algorithm.info().s3_name.is_none() {
                continue;
            }
            for (etag, mmap) in [
                (false, None),
                (true, None),
                (true, Some("--mmap")),
                (true, Some("--no-mmap")),
            ] {
                let run = |kernel: &str| {
                    let etag_option: &[&str] = if etag { &["--etag"] } else { &[] };
                    fasthash(dir.path())
                        .env(detect::FORCE_VARIABLE, kernel)
                        .args(["-a", algorithm, "--s3", "--no-part-limits", "--part-size"])
                        .arg(part_size.to_string())
                        .args(etag_option)
                        .args(mmap)
                        .arg(&path)
                        .output()
                };
                let fast = run(&format!("{algorithm}={}", engine.kernel.name()));
                let portable = run("portable");
                assert!(
                    fast.status.success(),
                    "{algorithm}, etag {etag}, {mmap:?}, {size}/{part_size}: {}",
                    String::from_utf8_lossy(&fast.stderr)
                );
                assert_eq!(
                    fast.stdout, portable.stdout,
                    "{algorithm}, etag {etag}, {mmap:?}, {size}/{part_size}"
                );
            }
        }
    }
}

/// The AVX-512 tier's functions in the built binary really run on ZMM registers, with no call
/// left inside them (a lane operation that did not inline would be one): `bench/zmm-check.sh`
/// over the binary these tests run. The release binary is checked the same way by hand.
#[test]
#[cfg(target_arch = "x86_64")]
fn avx512_functions_use_zmm_registers() {
    use common::{repo_path, FASTHASH};
    let repo = repo_path("");
    if program("objdump", &repo)
        .arg("--version")
        .try_output()
        .is_err()
    {
        eprintln!("skipped: the ZMM check needs objdump (binutils)");
        return;
    }
    let output = program("bash", &repo)
        .arg(repo_path("bench/zmm-check.sh"))
        .arg(FASTHASH)
        .output();
    let report = text(&output.stdout);
    eprintln!("{report}{}", text(&output.stderr));
    assert!(output.status.success(), "{report}");
    for entry in [
        "digest_many::run",
        "step::run",
        "finish::run",
        "stripes_avx512",
    ] {
        assert!(report.contains(entry), "{entry} not found: {report}");
    }
    for line in report.lines() {
        assert!(line.contains(" 0 calls to lane operations"), "{line}");
    }
}
