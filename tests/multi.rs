//! Several algorithms in one run (`-a md5,sha256`, `-a md5 -a sha256`): for each file, one line
//! per algorithm in the order given, each byte for byte the line a run of that algorithm alone
//! prints, from one read of the file (a FIFO and standard input, which can be read only once,
//! prove it); the mixed manifest checks, shards merge, S3 gives a value per algorithm, and
//! `--json` gives one object a file with every digest.

use crate::common;

use base64::Engine as _;
use common::{faketime, fasthash, make_fifo, random_bytes, text, write_file};
use serde_json::Value;
use std::ffi::OsStr;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Output;

/// Lane algorithms (MD5, SHA-1, SHA-256), a split one (CRC32C, BLAKE3 on a large file) and one
/// with neither, in no table order.
const ALGORITHMS: [&str; 6] = ["sha256", "md5", "blake3", "crc32c", "xxh3", "sha1"];

/// Empty files, files of 1 to 100 KiB (enough of them for the lanes to run side by side), a
/// file past the mapping threshold and the 8 MiB window, and names that are escaped or not
/// UTF-8, under `data/`.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    for index in 0..40usize {
        let len = (index * 7919) % 100 + 1;
        write_file(
            &data,
            format!("small/{index:02}"),
            random_bytes(len * 1024 + index, index as u64),
        );
    }
    write_file(&data, "empty", b"");
    write_file(&data, "small/empty too", b"");
    write_file(&data, b"odd/new\nline", b"a name with a newline");
    write_file(&data, b"odd/back\\slash", b"and a backslash");
    write_file(
        &data,
        b"odd/\xff not utf-8",
        b"and bytes that are not UTF-8",
    );
    write_file(&data, "big", random_bytes(9 * 1024 * 1024 + 17, 99));
    dir
}

fn run(dir: &Path, args: &[&str]) -> Output {
    fasthash(dir).args(args).output()
}

/// A run that must succeed: its standard output.
fn stdout_of(dir: &Path, args: &[&str]) -> Vec<u8> {
    let output = run(dir, args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{args:?}: {}",
        text(&output.stderr)
    );
    output.stdout
}

/// Asserts that a run's standard error holds `words`.
fn assert_says(output: &Output, words: &str) {
    let said = text(&output.stderr);
    assert!(said.contains(words), "{words:?} not in {said}");
}

/// The records of an output, each with its terminator.
fn records(output: &[u8], terminator: u8) -> Vec<&[u8]> {
    output.split_inclusive(|&b| b == terminator).collect()
}

/// What one run with every algorithm of `algorithms` must print: the outputs of a run of each
/// alone with the same options, interleaved record by record.
fn interleaved(dir: &Path, algorithms: &[&str], options: &[&str], terminator: u8) -> Vec<u8> {
    let alone: Vec<Vec<u8>> = algorithms
        .iter()
        .map(|algorithm| {
            let mut args = vec!["-a", algorithm];
            args.extend(options);
            stdout_of(dir, &args)
        })
        .collect();
    let split: Vec<Vec<&[u8]>> = alone.iter().map(|o| records(o, terminator)).collect();
    assert!(split.iter().all(|r| r.len() == split[0].len()));
    let mut expected = Vec::new();
    for index in 0..split[0].len() {
        for lines in &split {
            expected.extend_from_slice(lines[index]);
        }
    }
    expected
}

#[test]
fn a_list_prints_each_algorithms_own_lines_file_by_file() {
    let dir = tree();
    let list = ALGORITHMS.join(",");
    for options in [
        &["-r", "data"][..],
        &["-r", "--tag", "data"],
        &["-r", "-z", "data"],
        &["-r", "--base64", "data"],
        &["-r", "--no-names", "data"],
        &["-r", "--tag", "--base64", "-b", "data"],
        &["-r", "-j", "1", "data"],
        &["-r", "--no-mmap", "data"],
        &["-r", "--mmap", "data"],
        &["--exclude", "big", "-r", "data"],
        &["data/big", "data/empty", "data/small/07"],
    ] {
        let terminator = if options.contains(&"-z") {
            b'\0'
        } else {
            b'\n'
        };
        let expected = interleaved(dir.path(), &ALGORITHMS, options, terminator);
        let mut args = vec!["-a", list.as_str()];
        args.extend(options);
        let got = stdout_of(dir.path(), &args);
        assert_eq!(text(&got), text(&expected), "{options:?}");
        assert_eq!(got, expected, "{options:?}");
    }
    // The option repeated lists the same algorithms.
    let repeated = stdout_of(
        dir.path(),
        &["-a", "md5", "-a", "sha256,blake3", "-r", "data"],
    );
    assert_eq!(
        repeated,
        interleaved(
            dir.path(),
            &["md5", "sha256", "blake3"],
            &["-r", "data"],
            b'\n'
        )
    );
}

#[test]
fn a_name_list_and_the_cache_give_the_same_lines() {
    let dir = tree();
    write_file(dir.path(), "names", "data/small/01\ndata/big\ndata/empty\n");
    let expected = interleaved(
        dir.path(),
        &["md5", "sha512"],
        &["data/small/01", "data/big", "data/empty"],
        b'\n',
    );
    let listed = stdout_of(dir.path(), &["-a", "md5,sha512", "--files-from", "names"]);
    assert_eq!(listed, expected);
    let cached = [
        "--cache",
        "cache",
        "--debug",
        "-a",
        "md5,sha512",
        "--files-from",
        "names",
    ];
    // The cache remembers only files last changed more than two seconds before: these runs
    // have their clock three seconds ahead.
    let Some(faketime) = faketime() else { return };
    let later = |args: &[&str]| {
        fasthash(dir.path())
            .clock_ahead(&faketime, 3)
            .args(args)
            .output()
    };
    let first = later(&cached);
    assert_eq!(first.stdout, expected);
    assert_says(&first, "0 files unchanged, taken from it; 3 hashed");
    let again = later(&cached);
    assert_eq!(again.stdout, expected);
    assert_says(&again, "3 files unchanged, taken from it; 0 hashed");
    // Each algorithm is kept on its own: one of them alone is taken from the cache too.
    let md5 = later(&["--cache", "cache", "--debug", "-a", "md5", "data/big"]);
    assert_says(&md5, "1 files unchanged, taken from it; 0 hashed");
}

/// Makes a FIFO at `dir/name` and writes `data` into it from another thread once a reader
/// opens it.
fn fifo_with(dir: &Path, name: &str, data: Vec<u8>) -> std::thread::JoinHandle<()> {
    let path = make_fifo(dir, name);
    std::thread::spawn(move || {
        let mut pipe = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        // The reader may stop early if it fails: that must show as a wrong digest, not a hang.
        let _ = pipe.write_all(&data);
    })
}

#[test]
fn a_fifo_and_standard_input_are_read_once_for_every_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let data = random_bytes(3 * 1024 * 1024 + 5, 7);
    write_file(dir.path(), "stream", &data);
    let list = ["md5", "sha256", "crc32", "blake3"];
    let expected = interleaved(dir.path(), &list, &["stream"], b'\n');
    std::fs::remove_file(dir.path().join("stream")).unwrap();

    let writer = fifo_with(dir.path(), "stream", data.clone());
    let got = stdout_of(dir.path(), &["-a", "md5,sha256,crc32,blake3", "stream"]);
    writer.join().unwrap();
    assert_eq!(text(&got), text(&expected));

    let piped = |args: &[&str]| {
        let output = fasthash(dir.path()).args(args).stdin(&data).output();
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        text(&output.stdout)
    };
    let each: String = list
        .iter()
        .map(|algorithm| piped(&["-a", algorithm]))
        .collect();
    assert_eq!(piped(&["-a", "md5,sha256,crc32,blake3"]), each);
}

#[test]
fn an_unreadable_file_is_reported_once_and_the_others_hashed() {
    let dir = tree();
    let output = run(
        dir.path(),
        &[
            "-a",
            "md5,sha256",
            "data/empty",
            "missing",
            "data/small",
            "data/small/03",
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    let expected = interleaved(dir.path(), &["md5", "sha256"], &["data/empty"], b'\n')
        .into_iter()
        .chain(interleaved(
            dir.path(),
            &["md5", "sha256"],
            &["data/small/03"],
            b'\n',
        ))
        .collect::<Vec<u8>>();
    assert_eq!(text(&output.stdout), text(&expected));
    assert_eq!(
        text(&output.stderr),
        "fasthash: missing: No such file or directory\nfasthash: data/small: Is a directory\n"
    );
}

#[test]
fn the_mixed_manifest_checks_line_by_line() {
    let dir = tree();
    for style in [&["--tag"][..], &[]] {
        let mut args = vec!["-a", "md5,sha256,blake3", "-r", "data"];
        args.extend(style);
        let manifest = stdout_of(dir.path(), &args);
        std::fs::write(dir.path().join("SUMS"), &manifest).unwrap();
        let checked = run(dir.path(), &["-c", "--quiet", "SUMS"]);
        assert_eq!(checked.status.code(), Some(0), "{}", text(&checked.stderr));
        assert_eq!(text(&checked.stdout), "");
        let all = stdout_of(dir.path(), &["-c", "SUMS"]);
        assert_eq!(
            text(&all).matches(": OK\n").count(),
            records(&manifest, b'\n').len()
        );
    }
    // A changed file fails under every algorithm.
    write_file(&dir.path().join("data"), "small/05", b"changed");
    let checked = run(dir.path(), &["-c", "--quiet", "SUMS"]);
    assert_eq!(checked.status.code(), Some(1));
    assert_eq!(text(&checked.stdout), "data/small/05: FAILED\n".repeat(3));
}

#[test]
fn shards_of_a_list_merge_into_the_run_of_the_list() {
    let dir = tree();
    let options = ["-r", "-a", "md5,sha256", "data"];
    let whole = stdout_of(dir.path(), &options);
    let names: Vec<String> = (1..=3)
        .map(|index| {
            let shard = format!("{index}/3");
            let mut args = options.to_vec();
            args.extend(["--shard", &shard]);
            let name = format!("shard-{index}");
            let manifest = stdout_of(dir.path(), &args);
            // The header names the algorithms, each file having a line for each.
            let header = text(records(&manifest, b'\n')[0]);
            assert!(
                header.starts_with(&format!("# fasthash shard {shard} "))
                    && header.ends_with(" -a md5,sha256\n"),
                "{header}"
            );
            std::fs::write(dir.path().join(&name), manifest).unwrap();
            name
        })
        .collect();
    let mut merge = vec!["--merge"];
    merge.extend(names.iter().rev().map(String::as_str));
    assert_eq!(stdout_of(dir.path(), &merge), whole);
    // The same algorithms in another order write other lines: such a shard is refused.
    let other = stdout_of(
        dir.path(),
        &["-r", "-a", "sha256,md5", "data", "--shard", "1/3"],
    );
    std::fs::write(dir.path().join("other-1"), other).unwrap();
    let refused = run(dir.path(), &["--merge", "other-1", "shard-2", "shard-3"]);
    assert_ne!(refused.status.code(), Some(0));
    assert!(refused.stdout.is_empty());
    assert_says(&refused, "the algorithm or the line format differ");
}

#[test]
fn s3_gives_a_value_per_algorithm_from_one_read() {
    let dir = tree();
    for options in [
        &["--s3", "data/big", "data/empty"][..],
        &["--s3", "--etag", "data/big", "data/small/02"],
        &["--s3-header", "data/small/02"],
        &["--s3", "--etag", "--part-size", "5MiB", "data/big"],
        &["--json", "--etag", "--part-size", "5MiB", "data/big"],
        // Ten parts: read in step, a group of parts side by side in each algorithm's lanes.
        &[
            "--s3",
            "--etag",
            "--part-size",
            "1MiB",
            "--no-part-limits",
            "data/big",
        ],
        &[
            "--s3",
            "--etag",
            "--part-size",
            "1MiB",
            "--no-part-limits",
            "-j",
            "1",
            "data/big",
        ],
    ] {
        let list = ["sha256", "crc64nvme", "md5"];
        let expected = interleaved(dir.path(), &list, options, b'\n');
        let mut args = vec!["-a", "sha256,crc64nvme,md5"];
        args.extend(options);
        assert_eq!(
            text(&stdout_of(dir.path(), &args)),
            text(&expected),
            "{options:?}"
        );
    }
    // Header lines: each algorithm's, then the file's ETag once.
    let headers = stdout_of(
        dir.path(),
        &[
            "--s3-header",
            "--etag",
            "-a",
            "sha256,crc32",
            "data/small/02",
        ],
    );
    let sha256 = stdout_of(
        dir.path(),
        &["--s3-header", "-a", "sha256", "data/small/02"],
    );
    let crc32_and_etag = stdout_of(
        dir.path(),
        &["--s3-header", "--etag", "-a", "crc32", "data/small/02"],
    );
    assert_eq!(text(&headers), text(&[sha256, crc32_and_etag].concat()));
    // The ETag from a FIFO and from standard input: its MD5 comes from the one read that gives
    // the S3 values. Expected from runs of one algorithm each, no ETag, on a regular file.
    let data = random_bytes(1024 * 1024 + 3, 11);
    write_file(dir.path(), "object", &data);
    let value = |algorithm: &str| {
        let line = stdout_of(
            dir.path(),
            &["--s3", "--no-names", "-a", algorithm, "object"],
        );
        text(&line).trim_end().to_string()
    };
    let md5 = text(&stdout_of(
        dir.path(),
        &["-a", "md5", "--no-names", "object"],
    ))
    .trim_end()
    .to_string();
    let expected = format!(
        "{} \"{md5}\"  object\n{} \"{md5}\"  object\n",
        value("sha256"),
        value("crc32")
    );
    std::fs::remove_file(dir.path().join("object")).unwrap();
    let writer = fifo_with(dir.path(), "object", data.clone());
    let got = stdout_of(
        dir.path(),
        &["--s3", "--etag", "-a", "sha256,crc32", "object"],
    );
    writer.join().unwrap();
    assert_eq!(text(&got), expected);
    let piped = fasthash(dir.path())
        .args(["--s3", "--etag", "-a", "sha256,crc32"])
        .stdin(&data)
        .output();
    assert_eq!(text(&piped.stdout), expected.replace("  object\n", "  -\n"));
}

/// Every object of a `--json` output.
fn objects(output: &[u8]) -> Vec<Value> {
    records(output, b'\n')
        .iter()
        .map(|line| serde_json::from_slice(line).expect("one JSON object a line"))
        .collect()
}

#[test]
fn json_gives_one_object_a_file_with_every_digest() {
    let dir = tree();
    // The names as they are, from a -z run.
    let names_output = stdout_of(dir.path(), &["-r", "-z", "-a", "xxh3", "data"]);
    let names: Vec<Vec<u8>> = records(&names_output, b'\0')
        .iter()
        .map(|record| {
            let record = &record[..record.len() - 1];
            let at = record.windows(2).position(|w| w == b"  ").unwrap();
            record[at + 2..].to_vec()
        })
        .collect();
    for (encoding, extra) in [("hex", &[][..]), ("base64", &["--base64"][..])] {
        let mut args = vec!["--json", "-r", "-a", "md5,blake3,sha512", "data"];
        args.extend(extra);
        let json = objects(&stdout_of(dir.path(), &args));
        assert_eq!(json.len(), names.len(), "{encoding}");
        let mut alone_args = vec!["--no-names", "-r", "data"];
        alone_args.extend(extra);
        for algorithm in ["md5", "blake3", "sha512"] {
            let mut args = vec!["-a", algorithm];
            args.extend(&alone_args);
            let digests = stdout_of(dir.path(), &args);
            for (object, line) in json.iter().zip(records(&digests, b'\n')) {
                assert_eq!(
                    object["digests"][algorithm],
                    text(line).trim_end(),
                    "{encoding} {algorithm}"
                );
            }
        }
        for (object, name) in json.iter().zip(&names) {
            let keys: Vec<&String> = object["digests"].as_object().unwrap().keys().collect();
            assert_eq!(keys.len(), 3);
            assert_eq!(object["name"], text(name));
            let size = std::fs::metadata(dir.path().join(OsStr::from_bytes(name)))
                .unwrap()
                .len();
            assert_eq!(object["size"], size);
            match std::str::from_utf8(name) {
                Ok(_) => assert!(object.get("name_base64").is_none()),
                Err(_) => assert_eq!(
                    object["name_base64"],
                    base64::engine::general_purpose::STANDARD.encode(name)
                ),
            }
        }
    }
    // One algorithm (the default too), standard input, and a file that cannot be read: an
    // object for each file read, the failure on standard error only.
    let output = fasthash(dir.path())
        .args(["--json", "-a", "blake3", "-", "missing", "data/empty"])
        .stdin("abc")
        .output();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        "fasthash: missing: No such file or directory\n"
    );
    let json = objects(&output.stdout);
    assert_eq!(json.len(), 2);
    assert_eq!(json[0]["name"], "-");
    assert_eq!(json[0]["size"], 3);
    assert_eq!(
        json[0]["digests"]["blake3"],
        "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85"
    );
    assert_eq!(json[1]["size"], 0);
    let default = objects(&stdout_of(dir.path(), &["--json", "data/empty"]));
    assert_eq!(
        default[0]["digests"]["sha256"],
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

#[test]
fn lists_that_cannot_mean_anything_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "f", b"f");
    for (args, message) in [
        (&["-a", "md5,sha256,MD5", "f"][..], "-a names md5 twice"),
        (&["-a", "sha1", "-a", "sha1", "f"], "-a names sha1 twice"),
        (&["-c", "-a", "md5,sha256", "f"], "--check takes one -a"),
        (
            &["-a", "md5,crc", "f"],
            "-a crc prints the line of cksum or sum",
        ),
        (&["--json", "--tag", "f"], "--tag does nothing with --json"),
        (&["--json", "-z", "f"], "-z does nothing with --json"),
        (&["--json", "--shard", "1/2", "f"], "--shard cuts"),
    ] {
        let output = run(dir.path(), args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
        assert!(
            text(&output.stderr).starts_with(&format!("fasthash: {message}")),
            "{args:?}: {}",
            text(&output.stderr)
        );
    }
    // sha256sum has no -a, as coreutils'.
    let output = fasthash(dir.path())
        .called("sha256sum")
        .args(["-a", "md5,sha256", "f"])
        .output();
    assert_ne!(output.status.code(), Some(0));
    assert!(output.stdout.is_empty());
}
