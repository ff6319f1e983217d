//! Every option acts or is refused: the combinations that would change nothing are usage
//! errors naming both options; `--exclude`/`--include` mean the same when walking and when
//! checking a manifest; `--etag` prints what was asked for.

use crate::common;

use common::{fasthash, text, write_file};
use std::path::Path;

/// Runs fasthash in `dir` and returns (exit code, stdout, stderr).
fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = fasthash(dir).args(args).output();
    (
        output.status.code(),
        text(&output.stdout),
        text(&output.stderr),
    )
}

#[test]
fn combinations_that_would_do_nothing_are_refused_naming_both_options() {
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "f", "data\n");
    write_file(dir.path(), "SUMS", "");
    for (args, option, with) in [
        (&["-r", "-c", "SUMS"][..], "-r", "--check"),
        (&["-r", "--merge", "SUMS"], "-r", "--merge"),
        (&["-L", "f"], "-L", "-r"),
        (&["--exclude", "*.o", "f"], "--exclude", "-r"),
        (&["--include", "*.c", "f"], "--include", "-r"),
        (
            &["--exclude", "x", "--verify-s3", "SUMS", "f"],
            "--exclude",
            "--verify-s3",
        ),
        (&["-c", "--files-from", "SUMS"], "--files-from", "--check"),
        (&["--tag", "--s3", "f"], "--tag", "--s3"),
        (&["-b", "--etag", "f"], "--binary", "--etag"),
        (&["--base64", "--s3-header", "f"], "--base64", "--s3-header"),
        (
            &["--no-part-limits", "f"],
            "--no-part-limits",
            "--part-size",
        ),
        (&["--cache", "c", "--s3", "f"], "--cache", "--s3"),
        (&["--cache", "c", "--merge", "SUMS"], "--cache", "--merge"),
        (&["-z", "--json", "-a", "crc32", "f"], "-z", "--json"),
        (
            &["--no-names", "--s3-header", "f"],
            "--no-names",
            "--s3-header",
        ),
        (&["-j", "2", "--merge", "SUMS"], "--threads", "--merge"),
        (&["-a", "md5", "--merge", "SUMS"], "-a", "--merge"),
        (&["-z", "--verify-s3", "SUMS", "f"], "-z", "--verify-s3"),
    ] {
        let (code, stdout, stderr) = run(dir.path(), args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert_eq!(stdout, "", "{args:?}");
        let first = stderr.lines().next().unwrap_or("");
        assert!(
            first.starts_with(&format!("fasthash: {option} does nothing with")),
            "{args:?}: {first}"
        );
        assert!(first.contains(with), "{args:?} should name {with}: {first}");
        assert_eq!(
            stderr.lines().nth(1),
            Some("Try 'fasthash --help' for more information."),
            "{args:?}"
        );
    }
    let (code, _, stderr) = run(dir.path(), &["--list-kernels", "f"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--list-kernels"), "{stderr}");
}

#[test]
fn the_combinations_that_act_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "d/f", "data\n");
    let (code, _, stderr) = run(dir.path(), &["-r", "-L", "--exclude", "*.o", "d"]);
    assert_eq!(code, Some(0), "{stderr}");
    let (code, sums, _) = run(dir.path(), &["-r", "d"]);
    assert_eq!(code, Some(0));
    write_file(dir.path(), "SUMS", &sums);
    for args in [
        &["-c", "--exclude", "*.o", "SUMS"][..],
        &["-c", "SUMS", "--tree", "d", "-L"],
        &["--part-size", "5MiB", "--no-part-limits", "d/f"],
        &["--s3-preset", "boto3", "--no-part-limits", "d/f"],
    ] {
        let (code, _, stderr) = run(dir.path(), args);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
    }
}

/// The tree of the issue: `src/cache` to leave out, and a `cache` deeper down.
fn tree(dir: &Path) {
    for name in [
        "src/main.rs",
        "src/cache/a.bin",
        "src/cache/deep/b.bin",
        "src/lib/cache/c.bin",
        "src/lib/x.log",
        "src/notes.txt",
    ] {
        write_file(dir, name, name);
    }
}

/// The names a run printed, in order.
fn names(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .map(|line| line.split_once("  ").unwrap().1)
        .collect()
}

/// The names `-c` verified (its OK lines), in order.
fn checked(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .map(|line| line.strip_suffix(": OK").unwrap())
        .collect()
}

#[test]
fn a_filter_means_the_same_when_walking_and_when_checking() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path());
    let (code, sums, _) = run(dir.path(), &["-r", "src"]);
    assert_eq!(code, Some(0));
    write_file(dir.path(), "SUMS", &sums);
    for (filters, expected) in [
        (
            &["--exclude", "cache/**"][..],
            &["src/lib/x.log", "src/main.rs", "src/notes.txt"][..],
        ),
        (
            &["--exclude", "/src/cache"],
            &[
                "src/lib/cache/c.bin",
                "src/lib/x.log",
                "src/main.rs",
                "src/notes.txt",
            ],
        ),
        (
            &["--exclude", "cache", "--exclude", "*.log"],
            &["src/main.rs", "src/notes.txt"],
        ),
        (
            &["--include", "*.bin", "--exclude", "lib/"],
            &["src/cache/a.bin", "src/cache/deep/b.bin"],
        ),
        (
            &["--include", "src/lib"],
            &["src/lib/cache/c.bin", "src/lib/x.log"],
        ),
    ] {
        let mut walk = vec!["-r"];
        walk.extend_from_slice(filters);
        walk.push("src");
        let (code, walked, stderr) = run(dir.path(), &walk);
        assert_eq!(code, Some(0), "{walk:?}: {stderr}");
        assert_eq!(names(&walked), expected, "{walk:?}");

        let mut check = vec!["-c"];
        check.extend_from_slice(filters);
        check.push("SUMS");
        let (code, verified, stderr) = run(dir.path(), &check);
        assert_eq!(code, Some(0), "{check:?}: {stderr}");
        assert_eq!(checked(&verified), expected, "{check:?}");
    }
}

#[test]
fn a_filter_that_matched_nothing_is_named_under_debug() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path());
    let args = [
        "-r",
        "--debug",
        "--exclude",
        "*.log",
        "--exclude",
        "no-such-name",
        "--include",
        "*.zip",
        "src",
    ];
    let (code, stdout, stderr) = run(dir.path(), &args);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout, "");
    assert!(stderr.contains("fasthash: --exclude 'no-such-name' matched nothing"));
    assert!(stderr.contains("fasthash: --include '*.zip' matched nothing"));
    assert!(!stderr.contains("'*.log' matched nothing"), "{stderr}");
    // Without --debug, nothing is said.
    let (_, _, stderr) = run(
        dir.path(),
        &args[..1]
            .iter()
            .chain(&args[2..])
            .copied()
            .collect::<Vec<_>>(),
    );
    assert_eq!(stderr, "");
}

#[test]
fn etag_prints_what_was_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "f", "hello\n");
    // MD5 of "hello\n" (RFC 1321's algorithm; also `md5sum`), and of its one part's MD5.
    let single = "\"b1946ac92492d2347c6235b4d2611184\"";
    let multipart = "\"6a6d8d4533507d490ab007dfe8314ab7-1\"";
    let (_, stdout, _) = run(dir.path(), &["--etag", "f"]);
    assert_eq!(stdout, format!("{single}  f\n"));
    let (_, stdout, _) = run(dir.path(), &["--etag", "--part-size", "5MiB", "f"]);
    assert_eq!(stdout, format!("{multipart}  f\n"));
    // With -a or --s3, the value too.
    let (_, stdout, _) = run(
        dir.path(),
        &["--etag", "--part-size", "5MiB", "-a", "sha256", "f"],
    );
    assert_eq!(
        stdout,
        format!("7LZbuY+dkFtwRYmGw5/LrXcV5fL8w7Hwd2fXyD4kOMw=-1 {multipart}  f\n")
    );
    // With --s3-header, the ETag header after the checksum header.
    let (_, stdout, _) = run(dir.path(), &["--etag", "--s3-header", "f"]);
    assert_eq!(
        stdout,
        format!(
            "x-amz-checksum-sha256: WJG1tSLV3whtD/CxEPvZ0hu0/HFjrzTQgoai6Eb2vgM=\nETag: {single}\n"
        )
    );
    let (_, stdout, _) = run(dir.path(), &["--s3-header", "f"]);
    assert!(!stdout.contains("ETag"), "{stdout}");
}
