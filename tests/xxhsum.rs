//! `xxhsum`, `xxh32sum`, `xxh64sum`, `xxh128sum`, `xxh3sum`: xxHash 0.8.3's behaviour. What the
//! installed xxhsum (0.8.1 in Debian 12) does the same way is compared byte for byte with it;
//! what 0.8.3 changed (escaped names, `XXH3_` digests, its messages) is asserted from its
//! `cli/xxhsum.c`, as cited, with digests from xxHash's own sanity vectors.

use crate::common;

use common::{fasthash, os, os_names, pattern, peer, program, text, write_files};
use std::ffi::OsString;

/// Files with names both releases print the same way (no backslash, newline or CR).
fn files() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let names: [&[u8]; 5] = [b"a", b"with space", b"\xff latin", b"empty", b"big"];
    write_files(dir.path(), &names, |index, name| {
        let len = match name {
            b"empty" => 0,
            b"big" => 2_000_003,
            _ => index * 977 + 3,
        };
        pattern(len, 13, index)
    });
    dir
}

fn names() -> Vec<OsString> {
    os_names(&[b"a", b"with space", b"empty", b"big", b"\xff latin"])
}

#[test]
fn hash_lines_match_the_installed_xxhsum() {
    let Some(xxhsum) = peer("xxhsum") else {
        return;
    };
    let dir = files();
    // 0.8.1 prints XXH3 untagged lines as BSD lines and knows no xxh3sum name; 0.8.3 adds
    // XXH3_ and the name (checked below).
    for (program, args) in [
        ("xxhsum", &[][..]),
        ("xxhsum", &["-H0"]),
        ("xxhsum", &["-H1", "--tag"]),
        ("xxhsum", &["-H2"]),
        ("xxhsum", &["-H128", "--tag"]),
        ("xxhsum", &["-H32", "--little-endian"]),
        ("xxhsum", &["--little-endian", "--tag", "-H2"]),
        ("xxhsum", &["-H3", "--tag"]),
        ("xxh32sum", &[]),
        ("xxh64sum", &["--tag"]),
        ("xxh128sum", &[]),
    ] {
        let args = [os(args), names()].concat();
        // Each name is a link to the installed xxhsum, which reads its name as fasthash does.
        let expected = common::program(&xxhsum, dir.path())
            .called(program)
            .args(&args)
            .stdin(b"from standard input")
            .output();
        let got = fasthash(dir.path())
            .called(program)
            .args(&args)
            .stdin(b"from standard input")
            .output();
        assert_eq!(
            text(&got.stdout),
            text(&expected.stdout),
            "{program} {args:?}"
        );
        assert_eq!(got.stdout, expected.stdout);
        assert_eq!(
            got.status.code(),
            expected.status.code(),
            "{program} {args:?}"
        );
    }
}

#[test]
fn check_mode_matches_the_installed_xxhsum() {
    let Some(xxhsum) = peer("xxhsum") else {
        return;
    };
    let dir = files();
    let mut manifest = Vec::new();
    for args in [&["-H0"][..], &["-H1"], &["-H2", "--tag"], &["-H1", "--tag"]] {
        let written = program(&xxhsum, dir.path())
            .args(args)
            .args(names())
            .stdin(b"")
            .output();
        manifest.extend_from_slice(&written.stdout);
    }
    manifest.extend_from_slice(b"not a checksum line\n0123456789abcdef  missing\n");
    std::fs::write(dir.path().join("SUMS"), &manifest).unwrap();
    std::fs::write(dir.path().join("with space"), b"changed").unwrap();
    for (program, args) in [
        ("xxhsum", &["-c", "SUMS"][..]),
        ("xxhsum", &["--check", "--status", "SUMS"]),
        ("xxhsum", &["-c", "--strict", "SUMS"]),
        ("xxhsum", &["-c", "-w", "SUMS"]),
        // xxhNNsum -c reads only its own algorithm's lines in 0.8.3 (checked below), all in
        // 0.8.1.
        ("xxhsum", &["-c", "nothere"]),
    ] {
        let expected = common::program(&xxhsum, dir.path())
            .called(program)
            .args(args)
            .stdin(b"")
            .output();
        let got = fasthash(dir.path())
            .called(program)
            .args(args)
            .stdin(b"")
            .output();
        let what = format!("{program} {args:?}");
        assert_eq!(text(&got.stdout), text(&expected.stdout), "{what}");
        assert_eq!(text(&got.stderr), text(&expected.stderr), "{what}: stderr");
        assert_eq!(got.status.code(), expected.status.code(), "{what}");
    }
}

/// xxHash's sanity vectors: the digest of the first N bytes of its sanity buffer.
fn sanity(algo: &str, len: usize) -> String {
    common::parse_kat_tsv(&common::repo_path("tests/vectors/xxhash/default-seed.tsv"))
        .into_iter()
        .find(|answer| answer.algo == algo && answer.message.len() == len)
        .unwrap()
        .expected_hex
}

/// What 0.8.3 does that 0.8.1 does not, from its source (cli/xxhsum.c).
#[test]
fn what_xxhsum_0_8_3_does() {
    let dir = tempfile::tempdir().unwrap();
    let name = os_names(&[b"back\\slash\nnew"]).remove(0);
    std::fs::write(dir.path().join(&name), common::xxh_sanity_buffer(2240)).unwrap();
    let run_ours = |program: &str, args: Vec<OsString>| {
        fasthash(dir.path())
            .called(program)
            .args(args)
            .stdin(b"")
            .output()
    };
    let xxh3 = sanity("xxh3-64", 2240);
    // XSUM_printLine_GNU: a leading backslash, the name escaped, XXH3_ before an XXH3 digest.
    let line = run_ours("xxh3sum", vec![name.clone()]);
    assert_eq!(
        text(&line.stdout),
        format!("\\XXH3_{xxh3}  back\\\\slash\\nnew\n")
    );
    // XSUM_printLine_BSD with _LE and the bytes reversed.
    let mut reversed = common::decode_hex(&xxh3);
    reversed.reverse();
    let le = common::encode_hex(&reversed);
    let tagged = run_ours(
        "xxhsum",
        [os(&["-H3", "--tag", "--little-endian"]), vec![name.clone()]].concat(),
    );
    assert_eq!(
        text(&tagged.stdout),
        format!("\\XXH3_LE (back\\\\slash\\nnew) = {le}\n")
    );
    // -c reads both back, unescaping the name; '#' lines are comments (XSUM_getLine).
    std::fs::write(
        dir.path().join("S"),
        [b"# comment\n".to_vec(), line.stdout, tagged.stdout].concat(),
    )
    .unwrap();
    let checked = run_ours("xxhsum", os(&["-c", "S"]));
    assert_eq!(
        text(&checked.stdout),
        "\\back\\\\slash\\nnew: OK\n\\back\\\\slash\\nnew: OK\n"
    );
    // xxh64sum reads only XXH64 lines (the name's algorithm bitmask).
    let restricted = run_ours("xxh64sum", os(&["-c", "S"]));
    assert_eq!(
        text(&restricted.stderr),
        "S: no properly formatted xxHash checksum lines found\n"
    );
    assert_eq!(restricted.status.code(), Some(1));
    // --ignore-missing: missing files are passed over, but a manifest that verified nothing
    // fails ("no file was verified", on standard output: XSUM_checkFile).
    std::fs::write(dir.path().join("M"), b"0123456789abcdef  missing\n").unwrap();
    let nothing = run_ours("xxhsum", os(&["-c", "--ignore-missing", "M"]));
    assert_eq!(text(&nothing.stdout), "M: no file was verified\n");
    assert_eq!(nothing.status.code(), Some(1));
    let some = run_ours("xxhsum", os(&["-c", "--ignore-missing", "S", "M"]));
    assert!(text(&some.stdout).starts_with("\\back\\\\slash\\nnew: OK\n"));
    // XSUM_hashFile's messages: a directory, a file that cannot be opened.
    let errors = run_ours("xxhsum", os(&[".", "missing"]));
    assert_eq!(
        text(&errors.stderr),
        "xxhsum: .: Is a directory \nError: Could not open 'missing': No such file or directory. \n"
    );
    assert_eq!(errors.status.code(), Some(1));
    // Standard input alone is "stdin"; among operands, "-" is a file name (XSUM_hashFile
    // compares the stdin marker by address).
    let stdin = run_ours("xxh32sum", vec![]);
    assert_eq!(
        text(&stdin.stdout),
        format!("{}  stdin\n", sanity("xxh32", 0))
    );
    let dash = run_ours("xxhsum", os(&["-"]));
    assert!(text(&dash.stdout).ends_with("  stdin\n"));
    let among = run_ours("xxhsum", os(&["S", "-"]));
    assert!(text(&among.stderr).contains("Could not open '-'"));
    // The first operand starts the file list: a later "-H0" is a file name.
    let late = run_ours("xxhsum", os(&["missing", "-H0"]));
    assert!(text(&late.stderr).contains("Could not open '-H0'"));
    // Bad usage: "Wrong parameters", exit 1.
    let bad = run_ours("xxhsum", os(&["-H7", "x"]));
    assert!(text(&bad.stderr).starts_with("Wrong parameters\n"));
    assert_eq!(bad.status.code(), Some(1));
    // XXH32 and XXH128 of the same input, against the sanity vectors.
    let xxh32 = run_ours("xxh32sum", vec![name.clone()]);
    assert!(text(&xxh32.stdout).starts_with(&format!("\\{}  ", sanity("xxh32", 2240))));
    let xxh128 = run_ours("xxh128sum", vec![name]);
    assert!(text(&xxh128.stdout).starts_with(&format!("\\{}  ", sanity("xxh3-128", 2240))));
}

/// `xxhsum -c` meeting a listed file that opens but cannot be read (a directory: `fopen`
/// opens it, `fread` fails) stops the whole run: `XSUM_hashStream` in xxHash's
/// `cli/xxhsum.c` (0.8.1 and 0.8.3 alike) logs the error and calls `exit (1)` on `ferror`, so
/// no status line, no summary and no later line or manifest follows.
#[test]
fn check_stops_at_a_listed_directory_as_xxhsum_does() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    std::fs::create_dir(dir.join("d")).unwrap();
    std::fs::write(dir.join("h"), b"hello").unwrap();
    // No digest of these matters: `h` fails either way, `d` is never hashed.
    let zeros = "0".repeat(16);
    let manifest = format!("{zeros}  h\n{zeros}  d\n{zeros}  h\n");
    std::fs::write(dir.join("SUMS"), manifest).unwrap();
    std::fs::write(dir.join("AFTER"), format!("{zeros}  h\n")).unwrap();
    let real = peer("xxhsum");
    for (locale, _) in common::LOCALES {
        for args in [
            &["-c", "SUMS"][..],
            &["-c", "SUMS", "AFTER"],
            &["-c", "-q", "SUMS"],
        ] {
            let run = |binary: &std::path::Path| {
                program(binary, dir)
                    .called("xxhsum")
                    .env("LC_ALL", locale)
                    .args(args)
                    .output()
            };
            let ours = run(std::path::Path::new(common::FASTHASH));
            let what = format!("LC_ALL={locale} xxhsum {args:?}");
            common::assert_output(
                &what,
                &ours,
                "h: FAILED\n",
                "Error: a failure occurred reading the input file.\n",
                1,
            );
            if let Some(real) = &real {
                common::assert_same_output(&what, &ours, &run(real));
            }
        }
    }
}

/// The edges of `xxhsum -c` that its lines, reading and stops decide, each asserted whole: a
/// CR before the newline stays in the name, a manifest that cannot be read is read as if to
/// its end, one that cannot be opened is reported and the next one checked, `stdin` names
/// standard input and `-` a file, `--little-endian` reads untagged digests reversed, `_LE` tags
/// are reversed whatever it says, the four algorithms mix in one manifest, comment lines count
/// in line numbers, and a listed directory stops the run, nothing after it opened.
#[test]
fn check_edges_as_xxhsum_0_8_3_has_them() {
    use xxhash_rust::{xxh3, xxh32::xxh32, xxh64::xxh64};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a"), b"hello\n").unwrap();
    std::fs::write(d.join("-"), b"dash").unwrap();
    std::fs::create_dir(d.join("dir")).unwrap();
    let a64 = format!("{:016x}", xxh64(b"hello\n", 0));
    let a64_le: String = a64
        .as_bytes()
        .chunks(2)
        .rev()
        .map(|pair| String::from_utf8_lossy(pair).into_owned())
        .collect();
    let lines = [
        "# a comment counts as a line\n".to_string(),
        format!("{:08x}  a\n", xxh32(b"hello\n", 0)),
        format!("XXH64 (a) = {a64}\n"),
        format!("XXH64_LE (a) = {a64_le}\n"),
        format!("XXH3_{:016x}  a\n", xxh3::xxh3_64(b"hello\n")),
        format!("XXH128 (a) = {:032x}\n", xxh3::xxh3_128(b"hello\n")),
        format!("{:016x}  -\n", xxh64(b"dash", 0)),
        format!("{:016x}  stdin\n", xxh64(b"piped", 0)),
        format!("{a64}  a\r\n"),
        "not a line\n".to_string(),
    ];
    std::fs::write(d.join("S"), lines.concat()).unwrap();
    std::fs::write(d.join("LE"), format!("{a64_le}  a\n")).unwrap();
    let mut long = format!("{a64}  a\n").repeat(200);
    long.push_str(&format!("{a64}  dir\n"));
    // Never opened: xxhsum has stopped (a FIFO opened ahead would block the run).
    common::make_fifo(d, "fifo");
    long.push_str(&format!("{a64}  fifo\n"));
    long.push_str(&format!("{a64}  a\n").repeat(200));
    std::fs::write(d.join("LONG"), long).unwrap();
    let run = |program: &str, args: &[&str]| {
        fasthash(d)
            .called(program)
            .args(args)
            .stdin(b"piped")
            .output()
    };
    let oks = "a: OK\n".repeat(5);
    common::assert_output(
        "xxhsum -c -w S",
        &run("xxhsum", &["-c", "-w", "S"]),
        &format!(
            "{oks}-: OK\nstdin: OK\nS:9: Could not open or read 'a\r': No such file or \
             directory.\n1 line is improperly formatted\n1 listed file could not be read\n"
        ),
        "S:10: Error: Improperly formatted checksum line.\n",
        1,
    );
    common::assert_output(
        "xxh3sum -c S",
        &run("xxh3sum", &["-c", "S"]),
        "a: OK\n8 lines are improperly formatted\n",
        "",
        0,
    );
    common::assert_output(
        "xxhsum -c --little-endian LE",
        &run("xxhsum", &["-c", "--little-endian", "LE"]),
        "a: OK\n",
        "",
        0,
    );
    common::assert_output(
        "xxhsum -c LE",
        &run("xxhsum", &["-c", "LE"]),
        "a: FAILED\n1 computed checksum did NOT match\n",
        "",
        1,
    );
    common::assert_output(
        "xxhsum -c dir NOSUCH LE",
        &run(
            "xxhsum",
            &["-c", "--status", "dir", "NOSUCH", "--little-endian", "LE"],
        ),
        "",
        "dir: no properly formatted xxHash checksum lines found\n\
         Error: Could not open 'NOSUCH': No such file or directory\n\
         Error: Could not open '--little-endian': No such file or directory\n",
        1,
    );
    common::assert_output(
        "xxhsum -c LONG",
        &run("xxhsum", &["-c", "LONG", "LE"]),
        &"a: OK\n".repeat(200),
        "Error: a failure occurred reading the input file.\n",
        1,
    );
}

/// A manifest read from standard input that names `stdin`: the file is what is left of standard
/// input once the manifest was read (nothing, for a short one), as xxhsum 0.8.1 and 0.8.3 read
/// it. fasthash once waited forever there: the manifest's reader held standard input's lock.
#[test]
fn a_manifest_on_standard_input_that_names_stdin_is_checked_not_waited_on() {
    use xxhash_rust::xxh64::xxh64;
    let dir = tempfile::tempdir().unwrap();
    for (data, expected, status) in [
        (
            b"piped".as_slice(),
            "stdin: FAILED\n1 computed checksum did NOT match\n",
            1,
        ),
        (b"", "stdin: OK\n", 0),
    ] {
        let manifest = format!("{:016x}  stdin\n", xxh64(data, 0));
        let ours = fasthash(dir.path())
            .called("xxhsum")
            .args(["-c", "-"])
            .stdin(manifest.as_bytes())
            .timeout(std::time::Duration::from_secs(60))
            .output();
        common::assert_output("xxhsum -c - naming stdin", &ours, expected, "", status);
    }
}

/// The lines of a benchmark's standard error as a terminal shows them (each `\r` starts the
/// line again), up to each variant's `->`: its number, name and sample size.
fn bench_variants(stderr: &[u8]) -> Vec<String> {
    text(stderr)
        .lines()
        .filter_map(|line| {
            let shown = line.rsplit('\r').find(|part| !part.trim().is_empty())?;
            let column = shown.find('#')?;
            let (head, _) = shown.split_once("->")?;
            Some(head[column.saturating_sub(2)..].trim_end().to_string())
        })
        .collect()
}

/// xxhsum's benchmark, as xxHash's own `make check` runs it (`-bi0`, `-b1,2,3 -i0`,
/// `--benchmark-all -i0`, a file): exit 0, its variants by the installed xxhsum's numbers
/// and names, and a file it cannot open stops it with xxhsum's message and exit code.
#[test]
fn the_benchmark_runs_the_variants_xxhsum_numbers() {
    let dir = files();
    let dir = dir.path();
    std::fs::write(dir.join("sample"), vec![7u8; 5000]).unwrap();
    let real = peer("xxhsum");
    let cases: [&[&str]; 5] = [
        &["-bi0", "-q"],
        &["-b1,2,3", "-i0", "-q"],
        &["--benchmark-all", "-i0", "-q"],
        &["-b29,4", "-i0", "-q", "sample"],
        &["-b", "-i0", "-B1K", "-q"],
    ];
    for args in cases {
        let ours = fasthash(dir).called("xxhsum").args(args).output();
        assert_eq!(ours.status.code(), Some(0), "{args:?}");
        assert!(ours.stdout.is_empty(), "{args:?}");
        let variants = bench_variants(&ours.stderr);
        let expected_count = match args[0] {
            "-bi0" | "-b" => 4,
            "-b1,2,3" => 3,
            "--benchmark-all" => 28,
            _ => 1,
        };
        assert_eq!(variants.len(), expected_count, "{args:?}: {variants:?}");
        if let Some(xxhsum) = &real {
            let theirs = program(xxhsum, dir).args(args).output();
            assert_eq!(bench_variants(&theirs.stderr), variants, "{args:?}");
        }
    }
    let missing = fasthash(dir)
        .called("xxhsum")
        .args(["-bi0", "-q", "missing", "sample"])
        .output();
    assert_eq!(missing.status.code(), Some(11));
    assert_eq!(
        text(&missing.stderr),
        "Error: Could not open 'missing': No such file or directory.\n"
    );
    if let Some(xxhsum) = &real {
        let theirs = program(xxhsum, dir)
            .args(["-bi0", "-q", "missing", "sample"])
            .output();
        assert_eq!(theirs.status.code(), Some(11));
        assert_eq!(theirs.stderr, missing.stderr);
    }
}

/// A manifest read from standard input that names `stdin`: xxhsum reads both through one
/// stream, so that file is the rest of the manifest after its line (the lines after it are
/// its bytes, not lines), whether the rest came in one read or later; the same as the
/// installed xxhsum.
#[test]
fn a_manifest_on_standard_input_hashes_its_rest_for_stdin() {
    use xxhash_rust::xxh64::xxh64;
    let dir = files();
    let dir = dir.path();
    let real = peer("xxhsum");
    let a_line = format!(
        "{:016x}  a\n",
        xxh64(&std::fs::read(dir.join("a")).unwrap(), 0)
    );
    for (rest, expected, status) in [
        ("\n", "stdin: OK\n", 0),
        ("xyz\nmore lines\n", "stdin: OK\n", 0),
        (&*a_line, "stdin: OK\n", 0),
    ] {
        // The line before names a file, checked as usual; the line naming stdin matches its rest.
        let manifest = format!("{a_line}{:016x}  stdin\n{rest}", xxh64(rest.as_bytes(), 0));
        let expected = format!("a: OK\n{expected}");
        let ours = fasthash(dir)
            .called("xxhsum")
            .arg("-c")
            .stdin(manifest.as_bytes())
            .timeout(std::time::Duration::from_secs(60))
            .output();
        common::assert_output("xxhsum -c naming stdin", &ours, &expected, "", status);
        if let Some(xxhsum) = &real {
            let theirs = program(xxhsum, dir)
                .arg("-c")
                .stdin(manifest.as_bytes())
                .output();
            assert_eq!(theirs.stdout, ours.stdout, "{manifest:?}");
            assert_eq!(theirs.status.code(), ours.status.code(), "{manifest:?}");
        }
    }
    // A digest of nothing does not match what follows, and nothing after is a line.
    let manifest = format!("{:016x}  stdin\nxyz\n", xxh64(b"", 0));
    let ours = fasthash(dir)
        .called("xxhsum")
        .arg("-c")
        .stdin(manifest.as_bytes())
        .output();
    let expected = "stdin: FAILED\n1 computed checksum did NOT match\n";
    common::assert_output("xxhsum -c naming stdin", &ours, expected, "", 1);
}

/// Manifests of `xxhsum -c` around its longest line (32,767 bytes, the newline included: its
/// `MAX_LINE_LENGTH` buffer of 32 KiB holds the line and a NUL), in `dir` beside the file `a`,
/// and the digest line of `a`. Named by what they hold: a long line that fits, with its
/// newline or last without one; a byte more, which stops the manifest; statuses of every kind
/// before a long comment line, and lines after it; a long first line.
fn long_line_manifests(dir: &std::path::Path) {
    use xxhash_rust::xxh64::xxh64;
    std::fs::write(dir.join("a"), b"hello\n").unwrap();
    let digest = format!("{:016x}", xxh64(b"hello\n", 0));
    let ok = format!("{digest}  a\n");
    let long = |len: usize, byte: char| byte.to_string().repeat(len);
    let statuses = format!("{ok}0000000000000000  a\nnot a line\n{digest}  missing\n");
    let manifests = [
        ("fits", format!("{ok}{}\n{ok}", long(32_766, 'x'))),
        ("over", format!("{ok}{}\n{ok}", long(32_767, 'x'))),
        ("last_fits", format!("{ok}{}", long(32_767, 'x'))),
        ("last_over", format!("{ok}{}", long(32_768, 'x'))),
        ("mixed", format!("{statuses}#{}\n{ok}a", long(40_000, 'c'))),
        ("first", format!("{}\n{ok}", long(40_000, 'y'))),
    ];
    for (name, content) in manifests {
        std::fs::write(dir.join(name), content).unwrap();
    }
}

/// A line longer than xxhsum's line buffer ends the check of its manifest where the installed
/// xxhsum ends it (0.8.1 and 0.8.3 read lines alike): its message on standard error, no line
/// after it checked, the summary of the lines before it, the next manifest checked, exit 1;
/// under every option, and from standard input. fasthash had read such lines whole.
#[test]
fn a_line_too_long_ends_its_manifest_as_in_the_installed_xxhsum() {
    let Some(xxhsum) = peer("xxhsum") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    long_line_manifests(dir.path());
    let every = ["fits", "over", "last_fits", "last_over", "mixed", "first"];
    let runs: [(&str, Vec<&str>); 9] = [
        ("xxhsum", [&["-c"][..], &every].concat()),
        ("xxhsum", vec!["-c", "--status", "mixed", "fits"]),
        ("xxhsum", vec!["-c", "-q", "mixed"]),
        ("xxhsum", vec!["-c", "--strict", "mixed", "last_fits"]),
        ("xxhsum", vec!["-c", "-w", "mixed", "first", "fits"]),
        ("xxhsum", vec!["-c", "--status", "first"]),
        ("xxh64sum", [&["-c"][..], &every].concat()),
        // The manifest on standard input.
        ("xxhsum", vec!["-c"]),
        ("xxhsum", vec!["-c", "-w"]),
    ];
    let stdin = std::fs::read(dir.path().join("mixed")).unwrap();
    for (name, args) in runs {
        let run = |binary: &std::path::Path| {
            program(binary, dir.path())
                .called(name)
                .args(&args)
                .stdin(&stdin)
                .output()
        };
        let ours = run(std::path::Path::new(common::FASTHASH));
        common::assert_same_output(&format!("{name} {args:?}"), &ours, &run(&xxhsum));
    }
}

/// `xxhsum -c` at a line longer than its buffer, as xxHash 0.8.3's `XSUM_getLine` and
/// `XSUM_parseFile1` have it (`cli/xxhsum.c`): `FILE:N: Error: Line too long.` on standard
/// error whatever the options say, the manifest read no further and failed, its summary as
/// usual (`--ignore-missing`'s included), then the next manifest. A manifest that never ends
/// a line stops at the limit, not at its end. Under coreutils' names there is no such limit.
#[test]
fn a_line_too_long_as_xxhsum_0_8_3_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    long_line_manifests(d);
    let run = |name: &str, args: &[&str]| {
        fasthash(d)
            .called(name)
            .args(args)
            .timeout(std::time::Duration::from_secs(120))
            .output()
    };
    let expect = |name: &str, args: &[&str], stdout: &str, stderr: &str| {
        let code = if stderr.is_empty() { 0 } else { 1 };
        common::assert_output(
            &format!("{name} {args:?}"),
            &run(name, args),
            stdout,
            stderr,
            code,
        );
    };
    let too_long =
        |manifest: &str, line: usize| format!("{manifest}:{line}: Error: Line too long.\n");
    let one_improper = "1 line is improperly formatted\n";
    expect(
        "xxhsum",
        &["-c", "fits"],
        &format!("a: OK\na: OK\n{one_improper}"),
        "",
    );
    expect(
        "xxhsum",
        &["-c", "last_fits"],
        &format!("a: OK\n{one_improper}"),
        "",
    );
    expect("xxhsum", &["-c", "over"], "a: OK\n", &too_long("over", 2));
    expect(
        "xxh64sum",
        &["-c", "last_over"],
        "a: OK\n",
        &too_long("last_over", 2),
    );
    // The lines before it, their summary, then the next manifest.
    let missing = "mixed:4: Could not open or read 'missing': No such file or directory.\n";
    let summary = format!(
        "{one_improper}1 listed file could not be read\n1 computed checksum did NOT match\n"
    );
    let mixed = format!("a: OK\na: FAILED\n{missing}{summary}");
    let then_fits = format!("{mixed}a: OK\na: OK\n{one_improper}");
    expect(
        "xxhsum",
        &["-c", "mixed", "fits"],
        &then_fits,
        &too_long("mixed", 5),
    );
    expect(
        "xxhsum",
        &["-c", "--status", "--strict", "mixed"],
        "",
        &too_long("mixed", 5),
    );
    let warned = format!(
        "mixed:3: Error: Improperly formatted checksum line.\n{}",
        too_long("mixed", 5)
    );
    let quiet = format!("a: FAILED\n{missing}{summary}");
    expect("xxhsum", &["-c", "-q", "-w", "mixed"], &quiet, &warned);
    let passed_over =
        format!("a: OK\na: FAILED\n{one_improper}1 computed checksum did NOT match\n");
    expect(
        "xxhsum",
        &["-c", "--ignore-missing", "mixed"],
        &passed_over,
        &too_long("mixed", 5),
    );
    // A manifest with no line before it lists nothing; one that never ends a line stops.
    for manifest in ["first", "/dev/zero"] {
        let nothing = format!(
            "{}{manifest}: no properly formatted xxHash checksum lines found\n",
            too_long(manifest, 1)
        );
        expect(
            "xxhsum",
            &["-c", "--status", manifest, "last_fits"],
            "",
            &nothing,
        );
    }
    // coreutils reads a line of any length (up to fasthash's 16 MiB), finds it improperly
    // formatted, and checks the lines after it.
    // `printf 'hello\n' | sha256sum`
    let sha = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
    let manifest = format!("{sha}  a\n{}\n{sha}  a\n", "x".repeat(40_000));
    std::fs::write(d.join("SHA"), manifest).unwrap();
    common::assert_output(
        "sha256sum -c SHA",
        &run("sha256sum", &["-c", "SHA"]),
        "a: OK\na: OK\n",
        "sha256sum: WARNING: 1 line is improperly formatted\n",
        0,
    );
}

/// A manifest whose name is not UTF-8 is named in xxhsum's messages by its own bytes, as the
/// installed xxhsum names it (fasthash had put U+FFFD in its place): a line it cannot read
/// (`--warn`), a listed file it cannot open, no proper line at all; and, as 0.8.3 names it,
/// `--ignore-missing` with nothing verified.
#[test]
fn messages_name_a_manifest_by_its_own_bytes_as_the_installed_xxhsum() {
    let Some(xxhsum) = peer("xxhsum") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    common::write_file(d, "a", b"a\n");
    let digest = fasthash(d).args(["-a", "xxh64", "a"]).output();
    let line = String::from_utf8(digest.stdout).unwrap();
    let gone = "0123456789abcdef  gone\n";
    let manifests: [(&[u8], String); 4] = [
        (b"improper\xff", format!("{line}not a line\n")),
        (b"missing\xfe", format!("{line}{gone}")),
        (b"nothing\xfd", "not a line\n".to_string()),
        (b"all gone\xfc", gone.to_string()),
    ];
    let names: Vec<&[u8]> = manifests.iter().map(|(name, _)| *name).collect();
    write_files(d, &names, |index, _| {
        manifests[index].1.clone().into_bytes()
    });
    let runs = [("--warn", 0), ("--warn", 1), ("--warn", 2), ("--warn", 3)];
    for (option, manifest) in runs {
        let args = [os(&["-c", option]), os_names(&[names[manifest]])].concat();
        let run =
            |binary: &std::path::Path| program(binary, d).called("xxhsum").args(&args).output();
        let ours = run(std::path::Path::new(common::FASTHASH));
        let theirs = run(&xxhsum);
        common::assert_same_output(&format!("{option} {manifest}"), &ours, &theirs);
    }
    // `--ignore-missing` came after 0.8.1: 0.8.3 names the manifest with "%s" in
    // `XSUM_checkFile` (cli/xxhsum.c), its own bytes.
    let ours = fasthash(d)
        .called("xxhsum")
        .args(os(&["-c", "--ignore-missing"]))
        .args(os_names(&[names[3]]))
        .output();
    assert_eq!(ours.stdout, b"all gone\xfc: no file was verified\n");
}

/// The numbers after `-H`, `-i` and `-B` as xxhsum reads them (0.8.1 and 0.8.3 alike): `K` or
/// `M` after the digits, each with an optional `i` and then `B`, and past its 32-bit range
/// `Error: numeric value too large` with exit 1.
#[test]
fn numeric_options_take_units_and_refuse_what_overflows() {
    let dir = files();
    let too_large = "Error: numeric value too large \n";
    for (args, stdout_line, stderr) in [
        (&["-B1K"][..], true, ""),
        (&["-B64KiB", "-i3M"], true, ""),
        (&["-B4095M"], true, ""),
        (&["-i4294967289"], true, ""),
        (&["-H0KB"], true, ""),
        (&["-i4294967290"], false, too_large),
        (&["-B4096M"], false, too_large),
        (&["-B4194304K"], false, too_large),
        (&["-H99999999999"], false, too_large),
    ] {
        let args = [os(args), os(&["a"])].concat();
        let got = fasthash(dir.path()).called("xxhsum").args(&args).output();
        let what = format!("xxhsum {args:?}");
        assert_eq!(text(&got.stderr), stderr, "{what}");
        assert_eq!(got.stdout.is_empty(), !stdout_line, "{what}");
        assert_eq!(
            got.status.code(),
            Some(if stdout_line { 0 } else { 1 }),
            "{what}"
        );
        if let Some(xxhsum) = peer("xxhsum") {
            let expected = program(&xxhsum, dir.path())
                .called("xxhsum")
                .args(&args)
                .output();
            assert_eq!(text(&got.stdout), text(&expected.stdout), "{what}");
            assert_eq!(got.status.code(), expected.status.code(), "{what}");
            // (0.8.1, not 0.8.3, also clears a progress line on standard error per file.)
            if !stdout_line {
                assert_eq!(text(&got.stderr), text(&expected.stderr), "{what}");
            }
        }
    }
}

/// Standard output that fails, under the xxhsum name as under every other: closed by the
/// caller (`>&-`) as a full disk, exit 1; a reader that goes away ends the run at once and in
/// silence with the status earned so far, where the lines had kept failing while every other
/// file was still hashed, and the run ended with 1.
#[test]
fn output_that_fails_ends_the_run_as_under_every_name() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..3000).map(|index| format!("f{index:04}")).collect();
    for name in &names {
        std::fs::write(dir.path().join(name), name).unwrap();
    }
    let xxhsum = || fasthash(dir.path()).called("xxhsum");
    let closed = xxhsum().arg("f0000").shell("", ">&-").output();
    assert_eq!(closed.status.code(), Some(1), "{}", text(&closed.stderr));
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let full = xxhsum().arg("f0000").redirect_stdout(full).output();
    assert_eq!(full.status.code(), Some(1), "{}", text(&full.stderr));
    // The reader closes its end before the first line: every write fails with EPIPE.
    let mut gone = xxhsum().args(&names).spawn();
    drop(gone.stdout.take());
    let status = gone.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(gone.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");
}
