//! b3sum's keyed, derived-key and extended output: BLAKE3's official answers through the
//! binary, and b3sum 1.8.7 itself, byte for byte, on its options and their conflicts.

mod common;

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::Path;
use std::process::{Command, Output};

const FASTHASH: &str = env!("CARGO_BIN_EXE_fasthash");

fn run(program: &Path, dir: &Path, args: &[OsString], stdin: &[u8]) -> Output {
    common::output_with_stdin(
        Command::new(program)
            .current_dir(dir)
            .args(args)
            // b3sum (anyhow) adds a backtrace to its errors when this is set.
            .env_remove("RUST_BACKTRACE")
            .env_remove("RUST_LIB_BACKTRACE"),
        stdin,
    )
}

fn drop_in() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("b3sum");
    std::os::unix::fs::symlink(FASTHASH, &link).unwrap();
    (dir, link)
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

#[test]
fn official_keyed_derived_and_extended_answers() {
    let text = std::fs::read_to_string(common::repo_path("tests/vectors/blake3/test_vectors.json"))
        .unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let key = json["key"].as_str().unwrap();
    let context = json["context_string"].as_str().unwrap();
    let (links, b3sum) = drop_in();
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
            let output = run(&b3sum, files.path(), &args, stdin);
            let expected = case[mode].as_str().unwrap();
            assert_eq!(
                String::from_utf8_lossy(&output.stdout),
                format!("{expected}\n"),
                "{mode} of {len} bytes"
            );
            // --seek: the same stream from an offset (64 bytes from byte 67 of the 131).
            let mut seek_args = args.clone();
            let at = seek_args.iter().position(|a| a == "131").unwrap();
            seek_args[at] = "64".into();
            seek_args.extend(os(&["--seek", "67"]));
            let seek = run(&b3sum, files.path(), &seek_args, stdin);
            assert_eq!(
                String::from_utf8_lossy(&seek.stdout),
                format!("{}\n", &expected[2 * 67..2 * 131]),
                "{mode} of {len} bytes from 67"
            );
            checked += 1;
        }
        let raw = run(
            &b3sum,
            files.path(),
            &os(&["--raw", "-l", "131", "input"]),
            b"",
        );
        assert_eq!(
            raw.stdout,
            common::decode_hex(case["hash"].as_str().unwrap())
        );
    }
    assert_eq!(checked, 35 * 3);
    drop(links);
}

#[test]
fn b3sums_extended_options_and_errors_as_b3sum_prints_them() {
    let Some(peer) = common::peer("b3sum") else {
        return;
    };
    let (_links, ours) = drop_in();
    let files = tempfile::tempdir().unwrap();
    for (index, name) in [
        &b"a"[..],
        b"with space",
        b"new\nline",
        b"back\\slash",
        b"\xff latin",
    ]
    .iter()
    .enumerate()
    {
        let content: Vec<u8> = (0..index * 3001 + 7)
            .map(|i| (i * 7 + index) as u8)
            .collect();
        std::fs::write(
            files.path().join(OsString::from_vec(name.to_vec())),
            content,
        )
        .unwrap();
    }
    let names: Vec<OsString> = ["a", "with space", "new\nline", "back\\slash"]
        .iter()
        .map(OsString::from)
        .chain([OsString::from_vec(b"\xff latin".to_vec())])
        .collect();
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
        (os(&["-l", "x", "a"]), b""),
    ];
    for (args, stdin) in cases {
        let theirs = run(&peer, files.path(), &args, stdin);
        let ours_output = run(&ours, files.path(), &args, stdin);
        let what = format!("b3sum {args:?}");
        assert_eq!(ours_output.stdout, theirs.stdout, "{what}: stdout");
        // clap's usage errors name the binary as clap was told (b3sum for both).
        assert_eq!(
            String::from_utf8_lossy(&ours_output.stderr),
            String::from_utf8_lossy(&theirs.stderr),
            "{what}: stderr"
        );
        assert_eq!(
            ours_output.status.code(),
            theirs.status.code(),
            "{what}: status"
        );
    }
}
