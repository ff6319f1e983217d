//! fasthash beside the tools people trust: the same bytes on stdout and stderr, the same exit
//! code, for awkward file names and every output style. Expected output comes from the peers
//! themselves (coreutils, b3sum, xxhsum), never from fasthash.

use crate::common;

use common::{
    assert_output, assert_same_output, assert_same_stdout_and_status, fasthash, os, os_names,
    pattern, peer, program, status_lines_as_coreutils_9_11, Charset,
};
use std::ffi::OsString;
use std::process::Output;

/// Names that have broken checksum tools before.
fn awkward_names() -> Vec<OsString> {
    os_names(&[
        b"plain.txt",
        b"with space",
        b"back\\slash",
        b"new\nline",
        b"carriage\rreturn",
        b"-leading-dash",
        b"\xff\xfe not utf-8",
        b"tab\there",
        "caf\u{e9}".as_bytes(),
        b"quote'and\"double",
        b"empty",
    ])
}

/// A temporary directory holding one file per awkward name, with varied contents.
fn corpus() -> (tempfile::TempDir, Vec<OsString>) {
    let dir = tempfile::tempdir().unwrap();
    let names = awkward_names();
    for (i, name) in names.iter().enumerate() {
        let content = if name == "empty" {
            Vec::new()
        } else {
            pattern(i * 997 + 3, 31, i)
        };
        std::fs::write(dir.path().join(name), content).unwrap();
    }
    (dir, names)
}

const COREUTILS: &[(&str, &str)] = &[
    ("md5sum", "md5"),
    ("sha1sum", "sha1"),
    ("sha224sum", "sha224"),
    ("sha256sum", "sha256"),
    ("sha384sum", "sha384"),
    ("sha512sum", "sha512"),
];

const STYLES: &[&[&str]] = &[&[], &["-b"], &["--tag"], &["-z"], &["--tag", "-z"], &["-t"]];

#[test]
fn coreutils_output_is_identical_for_every_style_and_name() {
    let (dir, names) = corpus();
    for &(tool, algorithm) in COREUTILS {
        let Some(tool_path) = peer(tool) else {
            continue;
        };
        for style in STYLES {
            let mut args = os(style);
            args.push("--".into());
            args.extend(names.iter().cloned());
            let theirs = program(&tool_path, dir.path()).args(&args).output();
            let ours = fasthash(dir.path())
                .args(["-a", algorithm])
                .args(&args)
                .output();
            assert_same_output(&format!("{tool} {style:?}"), &ours, &theirs);
        }
    }
}

#[test]
fn drop_in_names_are_their_coreutils_program_including_errors() {
    let (dir, names) = corpus();
    for &(tool, _) in COREUTILS {
        let Some(tool_path) = peer(tool) else {
            continue;
        };
        let mut cases: Vec<Vec<OsString>> = STYLES.iter().map(|s| os(s)).collect();
        for case in &mut cases {
            case.push("--".into());
            case.extend(names.iter().cloned());
            case.push("missing file".into());
            case.push(".".into());
        }
        cases.extend(
            [
                &["--bogus"][..],
                &["-x"],
                &["--st"],
                &["--bin=1"],
                &["--tag", "-t", "x"],
                &["--quiet", "x"],
                &["--status", "x"],
                &["--strict", "x"],
                &["-w", "x"],
                &["--ignore-missing", "x"],
                &["-c", "--tag", "x"],
                &["-c", "-b", "x"],
                &["plain.txt", "--", "-leading-dash"],
                &["-tb", "plain.txt"],
            ]
            .iter()
            .map(|a| os(a)),
        );
        for args in &cases {
            // By their bare name: coreutils prints `argv[0]` in its messages.
            let theirs = program(&tool_path, dir.path())
                .called(tool)
                .args(args)
                .output();
            let ours = fasthash(dir.path()).called(tool).args(args).output();
            assert_same_output(&format!("{tool} {args:?}"), &ours, &theirs);
        }
    }
}

/// The variables that name the locale, in the order of [`LOCALE_CASES`]' values.
const LOCALE_VARIABLES: [&str; 4] = ["LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LANG"];

/// [`LOCALE_VARIABLES`] as a case sets them (`None`: not set), and the charset coreutils ends
/// up with: `setlocale (LC_ALL, "")` reads LC_ALL, then LC_CTYPE, then LANG, the first set and
/// not empty winning, and fails as a whole (leaving C) when any category names a locale that
/// is not installed (`xx_XX.UTF-8` is installed nowhere).
const LOCALE_CASES: &[([Option<&str>; 4], Charset)] = &[
    ([Some("C"), None, None, None], Charset::SingleByte),
    ([Some("C.UTF-8"), None, None, None], Charset::Utf8),
    ([Some("C.utf8"), None, None, None], Charset::Utf8),
    ([Some("xx_XX.UTF-8"), None, None, None], Charset::SingleByte),
    ([None, None, None, Some("C.UTF-8")], Charset::Utf8),
    (
        [Some(""), Some("C"), None, Some("C.UTF-8")],
        Charset::SingleByte,
    ),
    ([None, Some("C.UTF-8"), None, Some("C")], Charset::Utf8),
    (
        [None, Some("C.UTF-8"), Some("xx_XX.UTF-8"), None],
        Charset::SingleByte,
    ),
    ([None, None, None, None], Charset::SingleByte),
];

/// Names in md5sum's messages and `-c` status lines are quoted by the locale, as coreutils
/// quotes them (`quotef`, gnulib's `quotearg_buffer_restyled`: `isprint` byte by byte in a
/// single-byte locale, `iswprint` on each character in UTF-8): `é` is `''$'\303\251'` in C.
#[test]
fn names_in_messages_and_status_lines_follow_the_locale() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("é"), b"not the zero digest").unwrap();
    let zeros = "0".repeat(32);
    std::fs::write(
        dir.path().join("SUMS"),
        format!("{zeros}  é\n{zeros}  éx\n"),
    )
    .unwrap();
    let real = peer("md5sum");
    for (vars, charset) in LOCALE_CASES {
        let (name, missing) = match charset {
            Charset::SingleByte => ("''$'\\303\\251'", "''$'\\303\\251''x'"),
            Charset::Utf8 => ("é", "éx"),
        };
        let not_found = format!("md5sum: {missing}: No such file or directory\n");
        let expected: [(&[&str], String, String); 2] = [
            (
                &["-c", "SUMS"],
                format!("{name}: FAILED\n{missing}: FAILED open or read\n"),
                format!(
                    "{not_found}md5sum: WARNING: 1 listed file could not be read\n\
                     md5sum: WARNING: 1 computed checksum did NOT match\n"
                ),
            ),
            (&["éx"], String::new(), not_found.clone()),
        ];
        for (args, stdout, stderr) in expected {
            let run = |binary: &std::path::Path| {
                let mut run = program(binary, dir.path()).called("md5sum").args(args);
                for (variable, value) in LOCALE_VARIABLES.iter().zip(vars) {
                    run = match value {
                        Some(value) => run.env(variable, value),
                        None => run.env_remove(variable),
                    };
                }
                run.output()
            };
            let ours = run(std::path::Path::new(common::FASTHASH));
            let settings: Vec<_> = LOCALE_VARIABLES.iter().zip(vars).collect();
            let what = format!("md5sum {args:?} with {settings:?}");
            assert_output(&what, &ours, &stdout, &stderr, 1);
            if let Some(real) = &real {
                let mut theirs = run(real);
                // 9.1 writes status lines' names raw; 9.11 quotes them as its messages do.
                theirs.stdout = status_lines_as_coreutils_9_11(&theirs.stdout, *charset);
                assert_same_output(&what, &ours, &theirs);
            }
        }
    }
}

/// With `POSIXLY_CORRECT` set, the coreutils programs take every word after the first operand
/// as a file, as getopt then stops there: `md5sum a --tag` hashes `a` untagged and finds no
/// file `--tag`.
#[test]
fn posixly_correct_stops_the_options_at_the_first_operand() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a"), b"hi\n").unwrap();
    let real = peer("md5sum");
    let run = |binary: &std::path::Path| {
        program(binary, dir.path())
            .called("md5sum")
            .args(["a", "--tag"])
            .env("POSIXLY_CORRECT", "1")
            .output()
    };
    let ours = run(std::path::Path::new(common::FASTHASH));
    use md5::Digest as _;
    let digest = common::encode_hex(&md5::Md5::digest(b"hi\n"));
    assert_output(
        "POSIXLY_CORRECT=1 md5sum a --tag",
        &ours,
        &format!("{digest}  a\n"),
        "md5sum: --tag: No such file or directory\n",
        1,
    );
    if let Some(real) = &real {
        assert_same_output("POSIXLY_CORRECT=1 md5sum a --tag", &ours, &run(real));
    }
}

#[test]
fn standard_input_is_named_dash() {
    let (dir, _) = corpus();
    let data = b"some bytes on standard input\n".repeat(1000);
    for &(tool, algorithm) in COREUTILS {
        let Some(tool_path) = peer(tool) else {
            continue;
        };
        for args in [os(&[]), os(&["-"]), os(&["--tag", "-"]), os(&["-b"])] {
            let theirs = program(&tool_path, dir.path())
                .args(&args)
                .stdin(&data)
                .output();
            let ours = fasthash(dir.path())
                .args(["-a", algorithm])
                .args(&args)
                .stdin(&data)
                .output();
            assert_same_output(&format!("{tool} stdin {args:?}"), &ours, &theirs);
        }
    }
}

#[test]
fn b3sum_output_and_messages_are_identical() {
    let Some(b3sum) = peer("b3sum") else { return };
    let (dir, names) = corpus();
    for style in [&[][..], &["--tag"], &["--no-names"]] {
        let mut args = os(style);
        args.push("--".into());
        args.extend(names.iter().cloned());
        args.push("missing".into());
        args.push(".".into());
        let theirs = program(&b3sum, dir.path()).args(&args).output();
        let ours = fasthash(dir.path())
            .args(["-a", "blake3"])
            .args(&args)
            .output();
        // fasthash's own name keeps coreutils' byte-exact names and messages; stdout lines for
        // valid UTF-8 names are the same as b3sum's.
        if style.is_empty() {
            let valid_utf8 = |o: &Output| -> Vec<u8> {
                o.stdout
                    .split_inclusive(|&b| b == b'\n')
                    .filter(|line| std::str::from_utf8(line).is_ok() && !line.contains(&0xef))
                    .flatten()
                    .copied()
                    .collect()
            };
            assert_eq!(valid_utf8(&ours), valid_utf8(&theirs), "fasthash -a blake3");
        }
        // Under the b3sum name, everything is b3sum's, lossy names and messages included.
        let ours = fasthash(dir.path()).called("b3sum").args(&args).output();
        assert_same_output(&format!("b3sum {style:?}"), &ours, &theirs);
    }
    let data = vec![7u8; 300_000];
    let theirs = program(&b3sum, dir.path()).stdin(&data).output();
    let ours = fasthash(dir.path())
        .args(["-a", "b3"])
        .stdin(&data)
        .output();
    assert_same_output("b3sum stdin", &ours, &theirs);
}

#[test]
fn xxhsum_lines_are_identical_for_names_it_does_not_escape() {
    let Some(xxhsum) = peer("xxhsum") else { return };
    let (dir, names) = corpus();
    // xxhsum 0.8.1 writes backslashes and newlines raw; fasthash escapes them as coreutils and
    // newer xxhsum do, so those names are compared in the coreutils test instead.
    let names: Vec<OsString> = names
        .into_iter()
        .filter(|n| !n.as_encoded_bytes().iter().any(|b| b"\\\n\r".contains(b)))
        .collect();
    for (flag, algorithm, tagged_only) in [
        ("-H1", "xxh64", false),
        ("-H2", "xxh128", false),
        ("-H3", "xxh3", true),
    ] {
        for tagged in [false, true] {
            if tagged_only && !tagged {
                continue; // xxhsum 0.8.1 always tags XXH3 lines.
            }
            let mut args = os(&[flag]);
            if tagged {
                args.push("--tag".into());
            }
            args.push("--".into());
            args.extend(names.iter().cloned());
            let theirs = program(&xxhsum, dir.path()).args(&args).output();
            let mut our_args = os(&["-a", algorithm]);
            if tagged {
                our_args.push("--tag".into());
            }
            our_args.push("--".into());
            our_args.extend(names.iter().cloned());
            let ours = fasthash(dir.path()).args(&our_args).output();
            assert_same_stdout_and_status(&format!("xxhsum {flag} tag={tagged}"), &ours, &theirs);
        }
    }
}
