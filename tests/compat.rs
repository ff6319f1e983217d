//! fasthash beside the tools people trust: the same bytes on stdout and stderr, the same exit
//! code, for awkward file names and every output style. Expected output comes from the peers
//! themselves (coreutils, b3sum, xxhsum), never from fasthash.

mod common;

use common::{
    assert_same_output, assert_same_stdout_and_status, fasthash, os, os_names, pattern, peer,
    program,
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
