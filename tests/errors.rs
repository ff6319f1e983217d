//! Bad inputs and broken outputs: each failing file is named with coreutils' reason, the others
//! are still hashed, and the exit code says something failed.

use crate::common;

use common::{fasthash, peer, program, text, FASTHASH};
use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;

const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

#[test]
fn missing_file_and_directory_are_reported_and_others_still_hashed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a"), b"").unwrap();
    std::fs::write(dir.path().join("z"), b"").unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let output = fasthash(dir.path())
        .args(["a", "no such", "sub", "z"])
        .output();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stdout),
        format!("{EMPTY_SHA256}  a\n{EMPTY_SHA256}  z\n")
    );
    assert_eq!(
        text(&output.stderr),
        "fasthash: 'no such': No such file or directory\nfasthash: sub: Is a directory\n"
    );
}

#[test]
fn unreadable_file_is_permission_denied() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let secret = dir.path().join("secret");
    std::fs::write(&secret, b"x").unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o000)).unwrap();
    std::fs::write(dir.path().join("open"), b"").unwrap();
    std::fs::set_permissions(
        dir.path().join("open"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    // The binary must be reachable by the unprivileged user too.
    if !std::path::Path::new(FASTHASH).ancestors().skip(1).all(|p| {
        p.metadata()
            .map(|m| m.permissions().mode() & 0o001 != 0)
            .unwrap_or(false)
    }) {
        eprintln!("skipped: the build directory is not reachable by an unprivileged user");
        return;
    }
    let Some(run) = fasthash(dir.path()).unprivileged() else {
        return;
    };
    let output = run.args(["secret", "open"]).output();
    assert_eq!(
        text(&output.stderr),
        "fasthash: secret: Permission denied\n"
    );
    assert_eq!(text(&output.stdout), format!("{EMPTY_SHA256}  open\n"));
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn write_error_on_dev_full_is_reported_with_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f"), b"data").unwrap();
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let output = fasthash(dir.path()).arg("f").redirect_stdout(full).output();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        "fasthash: write error: No space left on device\n"
    );
}

#[test]
fn closed_stdout_is_a_write_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f"), b"data").unwrap();
    // `>&-`: the shell closes descriptor 1 before fasthash starts.
    let output = fasthash(dir.path()).arg("f").shell("", ">&-").output();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).starts_with("fasthash: write error: "),
        "{}",
        text(&output.stderr)
    );
}

/// `<&-`: a closed standard input is an error for every name that reads it, never the digest
/// of the empty `/dev/null` Rust's runtime puts in its place; under a coreutils name, exactly
/// what coreutils prints (checked against the real `sha256sum` when it is installed).
#[test]
fn closed_stdin_is_an_error_not_empty_input() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f"), b"data").unwrap();
    // `<&-`: the shell closes descriptor 0 before the program starts.
    let closed_stdin = |run: common::Run, args: &str| {
        run.env("LC_ALL", "C")
            .args(args.split_whitespace())
            .shell("", "<&-")
            .output()
    };
    for (args, stderr) in [
        ("", "fasthash: -: Bad file descriptor\n"),
        ("f - f", "fasthash: -: Bad file descriptor\n"),
        ("-c", "fasthash: 'standard input': read error\n"),
        ("--files-from -", "fasthash: -: Bad file descriptor\n"),
    ] {
        let output = closed_stdin(fasthash(dir.path()), args);
        assert_eq!(output.status.code(), Some(1), "{args}");
        assert!(
            text(&output.stderr).contains(stderr),
            "{args}: {}",
            text(&output.stderr)
        );
        assert!(
            !text(&output.stdout).contains(" -\n"),
            "{args}: a digest of nothing"
        );
    }
    let output = closed_stdin(fasthash(dir.path()).called("b3sum"), "");
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty(), "{}", text(&output.stdout));

    let peer = peer("sha256sum");
    for args in ["", "-", "f - f", "-c", "-c -"] {
        let ours = closed_stdin(fasthash(dir.path()).called("sha256sum"), args);
        assert_eq!(ours.status.code(), Some(1), "{args}");
        assert!(
            text(&ours.stderr).ends_with("sha256sum: standard input: Bad file descriptor\n"),
            "{args}: {}",
            text(&ours.stderr)
        );
        if let Some(peer) = &peer {
            // Both run as `sha256sum`, so their messages name the program alike.
            let theirs = closed_stdin(program(peer, dir.path()).called("sha256sum"), args);
            assert_eq!(ours.stdout, theirs.stdout, "{args}");
            assert_eq!(text(&ours.stderr), text(&theirs.stderr), "{args}");
            assert_eq!(ours.status.code(), theirs.status.code(), "{args}");
        }
    }
}

#[test]
fn closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for i in 0..3000 {
        let name = format!("f{i:05}");
        std::fs::write(dir.path().join(&name), i.to_string()).unwrap();
        names.push(name);
    }
    let mut child = fasthash(dir.path()).args(&names).spawn();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.ends_with("  f00000\n"), "{first}");
    // Dropping the reader closes the pipe while fasthash still has lines to write.
    let output = child.wait_with_output().unwrap();
    assert_eq!(text(&output.stderr), "", "no message on a closed pipe");
    assert_eq!(output.status.code(), Some(0), "not killed by a signal");
}

/// Started with SIGPIPE ignored (`trap '' PIPE`), coreutils is not ended by a closed pipe
/// but sees its write fail and says so (`write error`, exit 1), under its own name, `-c`
/// included; so does fasthash, with the reason, where it had exited 0 in silence.
#[test]
fn a_closed_pipe_with_sigpipe_ignored_is_a_write_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f"), b"data").unwrap();
    let names = vec!["f"; 3000];
    let line = String::from_utf8(fasthash(dir.path()).arg("f").output().stdout).unwrap();
    std::fs::write(dir.path().join("SUMS"), line.repeat(3000)).unwrap();
    for (program, args) in [
        (None, names.clone()),
        (None, vec!["-c", "SUMS"]),
        (Some("sha256sum"), names.clone()),
    ] {
        for ignored in [true, false] {
            // A pipe whose reader is gone before the first write.
            let (reader, writer) = std::io::pipe().unwrap();
            drop(reader);
            let run = match program {
                Some(name) => fasthash(dir.path()).called(name),
                None => fasthash(dir.path()),
            };
            let trap = if ignored { "trap '' PIPE;" } else { "" };
            let output = run
                .args(&args)
                .shell(trap, "")
                .redirect_stdout(writer)
                .output();
            let what = format!("{program:?} {:?}, SIGPIPE ignored: {ignored}", &args[..1]);
            let name = program.unwrap_or("fasthash");
            // Not ignored: quiet, with what the run had earned (a check cut short has not).
            let earned = if args[0] == "-c" { 1 } else { 0 };
            let (stderr, code) = match ignored {
                true => (format!("{name}: write error: Broken pipe\n"), 1),
                false => (String::new(), earned),
            };
            assert_eq!(text(&output.stderr), stderr, "{what}");
            assert_eq!(output.status.code(), Some(code), "{what}");
        }
    }
}

#[test]
fn unknown_algorithm_is_a_usage_error_listing_valid_names() {
    let dir = tempfile::tempdir().unwrap();
    let output = fasthash(dir.path()).args(["-a", "sha3"]).output();
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("unknown algorithm 'sha3'"), "{stderr}");
    for name in ["sha256", "blake3", "xxh128", "crc64nvme"] {
        assert!(stderr.contains(name), "{stderr} should list {name}");
    }
    assert!(output.stdout.is_empty());
}

#[test]
fn algorithm_names_are_case_insensitive_with_s3_aliases() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f"), b"hello world").unwrap();
    for (names, expected) in [
        (&["XXHASH64", "xxh64", "XxH64"][..], "45ab6734b21e6968"),
        (&["xxhash3", "XXH3"], "d447b1ea40e6988b"),
        (&["xxhash128", "xxh128"], "df8d09e93f874900a99b8775cc15b6c7"),
        (&["CRC64NVME", "crc64nvme"], "8d29d5c3f6ea8ebe"),
        (&["CRC32C"], "c99465aa"),
        (&["CRC32"], "0d4a1185"),
    ] {
        for name in names {
            let output = fasthash(dir.path()).args(["-a", name, "f"]).output();
            assert!(output.status.success(), "{name}");
            assert_eq!(text(&output.stdout), format!("{expected}  f\n"), "{name}");
        }
    }
}

#[test]
fn base64_digests_match_cksum_base64() {
    // Values from ../shared/S3.md (computed with botocore/awscrt), which are cksum's base64 too.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f"), b"hello world").unwrap();
    let output = fasthash(dir.path())
        .args(["-a", "sha256", "--base64", "--tag", "f"])
        .output();
    assert_eq!(
        text(&output.stdout),
        "SHA256 (f) = uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek=\n"
    );
}

/// A diagnostic that could not be written (`2>/dev/full`) fails a run that would otherwise
/// succeed, as coreutils' check of standard error at exit fails it, under every name; a run
/// that fails anyway keeps its own status, and a run that wrote nothing there is unaffected.
#[test]
fn a_diagnostic_lost_to_a_full_stderr_fails_the_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f"), b"").unwrap();
    std::fs::write(
        dir.path().join("m"),
        format!("{EMPTY_SHA256}  f\nnot a checksum line\n"),
    )
    .unwrap();
    // Under a drop-in name (`Some`) or its own.
    let run = |name: Option<&str>, args: &[&str], full: bool| {
        let mut run = fasthash(dir.path()).env("LC_ALL", "C").args(args);
        if let Some(name) = name {
            run = run.called(name);
        }
        if full {
            let full = std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap();
            run = run.redirect_stderr(full);
        }
        run.output()
    };
    for (name, args, status) in [
        (Some("cksum"), &["--debug", "f"][..], 1),
        (None, &["--debug", "f"], 1),
        (Some("sha256sum"), &["-c", "--warn", "m"], 1),
        (Some("sha256sum"), &["--no-such-option"], 1),
        (None, &["--no-such-option"], 2),
        (Some("cksum"), &["f"], 0),
    ] {
        let normal = run(name, args, false);
        let full = run(name, args, true);
        assert_eq!(full.status.code(), Some(status), "{name:?} {args:?}");
        assert_eq!(full.stdout, normal.stdout, "{name:?} {args:?}");
        if status == 0 {
            assert!(normal.stderr.is_empty(), "{name:?} {args:?}");
        } else if normal.status.success() {
            assert!(!normal.stderr.is_empty(), "{name:?} {args:?}");
        }
    }
}
