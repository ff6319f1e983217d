//! b3sum's keyed, derived-key and extended output: BLAKE3's official answers through the
//! binary, and b3sum 1.8.7 itself, byte for byte, on its options and their conflicts.

use crate::common;

use common::{os, os_names, pattern, peer, program, text, write_files, Run, FASTHASH};
use std::ffi::OsString;
use std::path::Path;

/// `binary` (the real b3sum or fasthash) run as `b3sum` in `dir`.
fn b3sum(binary: &Path, dir: &Path) -> Run {
    program(binary, dir).called("b3sum").without_backtraces()
}

#[test]
fn official_keyed_derived_and_extended_answers() {
    let vectors =
        std::fs::read_to_string(common::repo_path("tests/vectors/blake3/test_vectors.json"))
            .unwrap();
    let json: serde_json::Value = serde_json::from_str(&vectors).unwrap();
    let key = json["key"].as_str().unwrap();
    let context = json["context_string"].as_str().unwrap();
    let files = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for case in json["cases"].as_array().unwrap() {
        let len = case["input_len"].as_u64().unwrap() as usize;
        std::fs::write(files.path().join("input"), common::blake3_input(len)).unwrap();
        for (mode, args, stdin) in [
            ("hash", os(&["-l", "131", "--no-names", "input"]), &b""[..]),
            (
                "keyed_hash",
                os(&["--keyed", "-l", "131", "--no-names", "input"]),
                key.as_bytes(),
            ),
            (
                "derive_key",
                [
                    os(&["--derive-key"]),
                    vec![context.into()],
                    os(&["-l", "131", "--no-names", "input"]),
                ]
                .concat(),
                b"",
            ),
        ] {
            let output = b3sum(Path::new(FASTHASH), files.path())
                .args(&args)
                .stdin(stdin)
                .output();
            let expected = case[mode].as_str().unwrap();
            assert_eq!(
                text(&output.stdout),
                format!("{expected}\n"),
                "{mode} of {len} bytes"
            );
            // --seek: the same stream from an offset (64 bytes from byte 67 of the 131).
            let mut seek_args = args.clone();
            let at = seek_args.iter().position(|a| a == "131").unwrap();
            seek_args[at] = "64".into();
            seek_args.extend(os(&["--seek", "67"]));
            let seek = b3sum(Path::new(FASTHASH), files.path())
                .args(&seek_args)
                .stdin(stdin)
                .output();
            assert_eq!(
                text(&seek.stdout),
                format!("{}\n", &expected[2 * 67..2 * 131]),
                "{mode} of {len} bytes from 67"
            );
            checked += 1;
        }
        let raw = b3sum(Path::new(FASTHASH), files.path())
            .args(["--raw", "-l", "131", "input"])
            .stdin(b"")
            .output();
        assert_eq!(
            raw.stdout,
            common::decode_hex(case["hash"].as_str().unwrap())
        );
    }
    assert_eq!(checked, 35 * 3);
}

#[test]
fn b3sums_extended_options_and_errors_as_b3sum_prints_them() {
    let Some(real) = peer("b3sum") else {
        return;
    };
    let files = tempfile::tempdir().unwrap();
    let names: [&[u8]; 5] = [
        b"a",
        b"with space",
        b"new\nline",
        b"back\\slash",
        b"\xff latin",
    ];
    write_files(files.path(), &names, |index, _| {
        pattern(index * 3001 + 7, 7, index)
    });
    let names = os_names(&names);
    let key = b"0123456789abcdef0123456789abcdef";
    let cases: Vec<(Vec<OsString>, &[u8])> = vec![
        ([os(&["-l", "100"]), names.clone()].concat(), b""),
        ([os(&["--length", "0"]), names.clone()].concat(), b""),
        (
            [os(&["--seek", "1000", "-l", "70", "--tag"]), names.clone()].concat(),
            b"",
        ),
        (
            [
                os(&["--derive-key", "my context", "--no-names"]),
                names.clone(),
            ]
            .concat(),
            b"",
        ),
        ([os(&["--keyed"]), names.clone()].concat(), key),
        (
            [os(&["--keyed", "--no-mmap", "-l", "9"]), names.clone()].concat(),
            key,
        ),
        (os(&["--keyed", "a"]), b"short key"),
        (os(&["--keyed", "a"]), b"0123456789abcdef0123456789abcdef!"),
        (os(&["--keyed", "-"]), key),
        (os(&["--keyed"]), key),
        (os(&["--raw", "-l", "40", "a"]), b""),
        (os(&["--raw", "a", "with space"]), b""),
        (os(&["-l", "50", "missing", "a", "."]), b""),
        (os(&["-l", "12"]), b"standard input"),
        (os(&["--keyed", "--derive-key", "x", "a"]), key),
        (os(&["-c", "-l", "5", "a"]), b""),
        (os(&["-c", "--raw", "a"]), b""),
        (os(&["--quiet", "a"]), b""),
        // clap does not enforce --quiet's need of --check once an option that conflicts with
        // --check is given; b3sum then ignores --quiet.
        (os(&["--tag", "--quiet", "a"]), b""),
        (os(&["--quiet", "--no-names", "a"]), b""),
        (os(&["--raw", "--quiet", "a"]), b""),
        (os(&["-l", "x", "a"]), b""),
    ];
    for (args, stdin) in cases {
        let theirs = b3sum(&real, files.path()).args(&args).stdin(stdin).output();
        let ours_output = b3sum(Path::new(FASTHASH), files.path())
            .args(&args)
            .stdin(stdin)
            .output();
        let what = format!("b3sum {args:?}");
        assert_eq!(ours_output.stdout, theirs.stdout, "{what}: stdout");
        // clap's usage errors name the binary as clap was told (b3sum for both).
        assert_eq!(
            text(&ours_output.stderr),
            text(&theirs.stderr),
            "{what}: stderr"
        );
        assert_eq!(
            ours_output.status.code(),
            theirs.status.code(),
            "{what}: status"
        );
    }
}

/// b3sum takes its FILE operands as paths (`file: Vec<PathBuf>` in b3sum 1.8.7's
/// `src/main.rs`), and clap 4's path parser (`PathBufValueParser` in clap_builder's
/// `value_parser.rs`) refuses an empty one as a usage error: its message, a blank line,
/// clap's help hint, and exit status 2, whatever else the command line holds.
/// `b3sum -c`: a line naming `-` is standard input, as b3sum reads it when hashing; a file
/// named `-` beside it is not read.
#[test]
fn a_checked_line_naming_a_dash_reads_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("-"), b"a file named dash").unwrap();
    let piped = blake3::hash(b"piped").to_hex();
    std::fs::write(dir.path().join("SUMS"), format!("{piped}  -\n")).unwrap();
    let real = peer("b3sum");
    for (stdin, expected, status) in [
        (b"piped".as_slice(), "-: OK\n", 0),
        (b"other", "-: FAILED\n", 1),
    ] {
        let run = |binary: &Path| {
            b3sum(binary, dir.path())
                .args(["-c", "SUMS"])
                .stdin(stdin)
                .output()
        };
        let ours = run(Path::new(FASTHASH));
        let warning = match status {
            0 => "",
            _ => "b3sum: WARNING: 1 computed checksum did NOT match\n",
        };
        common::assert_output("b3sum -c SUMS naming -", &ours, expected, warning, status);
        if let Some(real) = &real {
            common::assert_same_output("b3sum -c SUMS naming -", &ours, &run(real));
        }
    }
}

/// `b3sum -c --seek N`: each listed file's 32 output bytes from byte N are what its line is
/// compared with (the blake3 crate's output reader gives the expected ones), not a hash of the
/// manifest itself as extended output would print. The third file, of 9 MiB, is mapped and
/// hashed window by window or split over the cores.
#[test]
fn check_with_seek_compares_the_output_from_that_byte() {
    let dir = tempfile::tempdir().unwrap();
    let at_one = |data: &[u8]| {
        let mut output = blake3::Hasher::new().update(data).finalize_xof();
        output.set_position(1);
        let mut bytes = [0u8; 32];
        output.fill(&mut bytes);
        common::encode_hex(&bytes)
    };
    let plain = |data: &[u8]| blake3::hash(data).to_hex().to_string();
    std::fs::write(dir.path().join("a"), b"hi\n").unwrap();
    std::fs::write(dir.path().join("b"), b"other").unwrap();
    let big = common::random_bytes(9 << 20, 58);
    std::fs::write(dir.path().join("big"), &big).unwrap();
    let line = |hex: String, name: &str| format!("{hex}  {name}\n");
    std::fs::write(
        dir.path().join("AT_ONE"),
        line(at_one(b"hi\n"), "a") + &line(at_one(b"other"), "b") + &line(at_one(&big), "big"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("PLAIN"),
        line(plain(b"hi\n"), "a") + &line(plain(b"other"), "b") + &line(plain(&big), "big"),
    )
    .unwrap();
    let mismatched = "b3sum: WARNING: 3 computed checksums did NOT match\n";
    let failed = "a: FAILED\nb: FAILED\nbig: FAILED\n";
    let all_ok = "a: OK\nb: OK\nbig: OK\n";
    let cases: [(&[&str], &str, &str, i32); 6] = [
        (&["-c", "--seek", "1", "AT_ONE"], all_ok, "", 0),
        // One thread: the mapped file is fed window by window, not split.
        (
            &["--num-threads", "1", "-c", "--seek", "1", "AT_ONE"],
            all_ok,
            "",
            0,
        ),
        (&["--seek", "1", "--check", "--quiet", "AT_ONE"], "", "", 0),
        (&["-c", "AT_ONE"], failed, mismatched, 1),
        (&["-c", "--seek", "1", "PLAIN"], failed, mismatched, 1),
        (
            &["-c", "--seek", "1", "a"],
            "",
            "b3sum: Invalid check line format\nb3sum: WARNING: 1 computed checksum did NOT match\n",
            1,
        ),
    ];
    let real = peer("b3sum");
    for (args, stdout, stderr, status) in cases {
        let run = |binary: &Path| b3sum(binary, dir.path()).args(args).output();
        let ours = run(Path::new(FASTHASH));
        let what = format!("b3sum {}", args.join(" "));
        common::assert_output(&what, &ours, stdout, stderr, status);
        if let Some(real) = &real {
            common::assert_same_output(&what, &ours, &run(real));
        }
    }
}

#[test]
fn an_empty_file_operand_is_refused_as_b3sum_refuses_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a"), b"a").unwrap();
    let real = peer("b3sum");
    let expected = "error: a value is required for '[FILE]...' but none was supplied\n\n\
                    For more information, try '--help'.\n";
    for (locale, _) in common::LOCALES {
        for args in [
            &["--", ""][..],
            &["a", ""],
            &["-c", ""],
            &["-l", "8", ""],
            &["--no-mmap", ""],
        ] {
            let run = |binary: &Path| {
                b3sum(binary, dir.path())
                    .env("LC_ALL", locale)
                    .args(args)
                    .output()
            };
            let ours = run(Path::new(FASTHASH));
            let what = format!("LC_ALL={locale} b3sum {args:?}");
            common::assert_output(&what, &ours, "", expected, 2);
            if let Some(real) = &real {
                common::assert_same_output(&what, &ours, &run(real));
            }
        }
    }
}
