//! Amazon S3 values against the known answers in `tests/vectors/s3-kat.json` (computed by the
//! AWS SDKs' own checksum classes, see PROVENANCE.md), for every algorithm, single and
//! multipart; part limits; presets; the JSON shape; and `--verify-s3`.

use crate::common;

use common::{fasthash, random_bytes, text};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

const MIB: usize = 1024 * 1024;

fn kat() -> Value {
    let path = common::repo_path("tests/vectors/s3-kat.json");
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// The four inputs of the known answers, written into `dir`, by the names the JSON uses.
fn inputs(dir: &Path) -> Vec<(String, PathBuf)> {
    let data = random_bytes(12 * MIB, 20260101);
    let contents: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("hello world", b"hello world".to_vec()),
        ("1 MiB zeros", vec![0; MIB]),
        ("SplitMix64 seed 20260101, 12 MiB", data),
    ];
    contents
        .into_iter()
        .enumerate()
        .map(|(i, (name, bytes))| {
            let path = dir.join(format!("input{i}"));
            fs::write(&path, bytes).unwrap();
            (name.to_string(), path)
        })
        .collect()
}

/// fasthash's `-a` name for an S3 algorithm name, through fasthash's own alias table.
fn algo_arg(s3_name: &str) -> String {
    s3_name.to_ascii_lowercase()
}

fn one_value(dir: &Path, args: &[&str]) -> String {
    let output = fasthash(dir).args(args).output();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{args:?}: {}",
        text(&output.stderr)
    );
    text(&output.stdout).trim_end().to_string()
}

#[test]
fn single_upload_values_for_every_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let kat = kat();
    let mut checked = 0;
    for (name, path) in inputs(dir.path()) {
        let path = path.to_str().unwrap();
        for (algo, expected) in kat["single"][&name].as_object().unwrap() {
            let algo = algo_arg(algo);
            let got = one_value(dir.path(), &["--s3", "--no-names", "-a", &algo, path]);
            assert_eq!(got, expected.as_str().unwrap(), "{name} {algo}");
            let header = one_value(dir.path(), &["--s3-header", "-a", &algo, path]);
            assert_eq!(
                header,
                format!("x-amz-checksum-{}: {}", algo, expected.as_str().unwrap()),
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 40);
}

#[test]
fn multipart_values_and_etags_for_every_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let kat = kat();
    let mut checked = 0;
    for (name, path) in inputs(dir.path()) {
        let path = path.to_str().unwrap();
        let Some(cases) = kat["multipart_5MiB"][&name].as_object() else {
            continue;
        };
        for (algo, case) in cases {
            let algo = algo_arg(algo);
            let base = ["-a", &algo, "--part-size", "5MiB", "--json", "--etag", path];
            if algo == "crc64nvme" {
                // S3 accepts CRC64NVME multipart checksums only as FULL_OBJECT.
                let refused = fasthash(dir.path())
                    .args(base)
                    .args(["--checksum-type", "composite"])
                    .output();
                assert_eq!(refused.status.code(), Some(2));
                assert!(
                    text(&refused.stderr).contains("FULL_OBJECT")
                        || text(&refused.stderr).contains("full-object")
                );
            } else {
                let json: Value = serde_json::from_str(&one_value(
                    dir.path(),
                    &[&base[..], &["--checksum-type", "composite"]].concat(),
                ))
                .unwrap();
                assert_eq!(json["s3_value"], case["COMPOSITE"], "{name} {algo}");
                assert_eq!(json["checksum_type"], "COMPOSITE");
                assert_eq!(json["part_values"], case["part_values"], "{name} {algo}");
                assert_eq!(json["part_count"], case["parts"]);
                assert_eq!(json["etag"], case["ETAG"], "{name} {algo}");
                checked += 1;
            }
            if let Some(full) = case.get("FULL_OBJECT") {
                let json: Value = serde_json::from_str(&one_value(
                    dir.path(),
                    &[&base[..], &["--checksum-type", "full-object"]].concat(),
                ))
                .unwrap();
                assert_eq!(&json["s3_value"], full, "{name} {algo} full object");
                assert_eq!(json["checksum_type"], "FULL_OBJECT");
                assert_eq!(json["etag"], case["ETAG"]);
                checked += 1;
            } else {
                let refused = fasthash(dir.path())
                    .args(base)
                    .args(["--checksum-type", "full-object"])
                    .output();
                assert_eq!(
                    refused.status.code(),
                    Some(2),
                    "{algo} full-object must be refused"
                );
            }
        }
    }
    assert!(checked >= 30, "only {checked} multipart answers checked");
}

#[test]
fn text_layouts_and_etags() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = inputs(dir.path());
    let big = inputs[3].1.to_str().unwrap();
    assert_eq!(
        one_value(
            dir.path(),
            &["--s3", "-a", "sha256", "--part-size", "5M", big]
        ),
        format!("AnxJgZB36t/Mcuku04a5KLq/FF6RdXVxGWmM9iUyy4c=-3  {big}")
    );
    assert_eq!(
        one_value(
            dir.path(),
            &["--etag", "--part-size", "5242880", "-a", "crc32", big]
        ),
        format!("xhP+Ww==-3 \"9652ce2a95f9a7975d166a608aabbfe1-3\"  {big}")
    );
    let hello = inputs[1].1.to_str().unwrap();
    assert_eq!(
        one_value(dir.path(), &["--etag", hello]),
        format!("\"5eb63bbbe01eeed093cb22bb8f5acdc3\"  {hello}")
    );
    let many = fasthash(dir.path())
        .args(["--s3", "-a", "crc32", hello, big])
        .output();
    assert_eq!(
        text(&many.stdout),
        format!("DUoRhQ==  {hello}\nvIJ8KQ==  {big}\n")
    );
}

#[test]
fn part_limits_and_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    fs::write(&file, vec![1u8; 3 * MIB]).unwrap();
    let f = file.to_str().unwrap();
    let small = fasthash(dir.path())
        .args(["--s3", "--part-size", "1MiB", f])
        .output();
    assert_eq!(small.status.code(), Some(2));
    assert!(
        text(&small.stderr).contains("5 MiB to 5 GiB"),
        "{}",
        text(&small.stderr)
    );
    let allowed = fasthash(dir.path())
        .args([
            "--s3",
            "--part-size",
            "1MiB",
            "--no-part-limits",
            "-a",
            "sha1",
            f,
        ])
        .output();
    assert_eq!(allowed.status.code(), Some(0), "{}", text(&allowed.stderr));
    assert!(text(&allowed.stdout).contains("-3  "));
    // 10,001 parts: a sparse file, refused per file (exit 1) before any hashing.
    let sparse = dir.path().join("sparse");
    fs::File::create(&sparse)
        .unwrap()
        .set_len(10_000 * 5 * MIB as u64 + 1)
        .unwrap();
    let many = fasthash(dir.path())
        .args(["--s3", "--part-size", "5MiB", "sparse", "f"])
        .output();
    assert_eq!(many.status.code(), Some(1));
    assert!(
        text(&many.stderr).contains("sparse: 10001 parts"),
        "{}",
        text(&many.stderr)
    );
    assert!(
        text(&many.stdout).ends_with("-1  f\n"),
        "{}",
        text(&many.stdout)
    );
    for (args, needle) in [
        (vec!["--s3", "-a", "blake3", f], "Amazon S3 has no blake3"),
        (vec!["--s3", "--part-size", "5x", f], "invalid size"),
        (
            vec!["--s3", "--checksum-type", "composite", f],
            "needs --part-size",
        ),
        (
            vec!["--s3-preset", "boto3", "-a", "sha1", f],
            "--s3-preset chooses",
        ),
        (vec!["--s3", "-c", f], "do not combine"),
    ] {
        let output = fasthash(dir.path()).args(&args).output();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            text(&output.stderr).contains(needle),
            "{args:?}: {}",
            text(&output.stderr)
        );
    }
}

#[test]
fn presets_predict_the_clients() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = inputs(dir.path());
    let big = inputs[3].1.to_str().unwrap(); // 12 MiB: two 8 MiB parts for the clients
    let line = one_value(dir.path(), &["--s3-preset", "aws-cli-v2", big]);
    assert!(
        line.starts_with("CRC64NVME FULL_OBJECT xhrYsPvF/m0= \""),
        "{line}"
    );
    assert!(line.contains("-2\"  "), "{line}");
    let line = one_value(dir.path(), &["--s3-preset", "boto3", "--json", big]);
    let json: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(json["algorithm"], "CRC32");
    assert_eq!(json["checksum_type"], "COMPOSITE");
    assert_eq!(json["part_size"], 8 * MIB);
    assert_eq!(json["part_count"], 2);
    assert!(json["s3_value"].as_str().unwrap().ends_with("-2"));
    let hello = inputs[1].1.to_str().unwrap();
    assert_eq!(
        one_value(dir.path(), &["--s3-preset", "aws-cli-v1", hello]),
        format!("CRC32 FULL_OBJECT DUoRhQ== \"5eb63bbbe01eeed093cb22bb8f5acdc3\"  {hello}")
    );
    // Exactly 8 MiB is a one-part multipart upload.
    let eight = dir.path().join("eight");
    fs::write(&eight, vec![7u8; 8 * MIB]).unwrap();
    let line = one_value(
        dir.path(),
        &["--s3-preset", "boto3", eight.to_str().unwrap()],
    );
    assert!(
        line.starts_with("CRC32 COMPOSITE ") && line.contains("-1 \""),
        "{line}"
    );
}

#[test]
fn json_lines_have_every_field() {
    let dir = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::new("odd\u{e9} name");
    fs::write(dir.path().join(name), b"hello world").unwrap();
    let output = fasthash(dir.path())
        .args(["--s3", "--json", "-a", "crc64nvme", "odd\u{e9} name"])
        .output();
    let json: Value = serde_json::from_str(text(&output.stdout).trim()).unwrap();
    assert_eq!(json["name"], "odd\u{e9} name");
    assert_eq!(json["size"], 11);
    assert_eq!(json["algorithm"], "CRC64NVME");
    assert_eq!(json["digest"], "8d29d5c3f6ea8ebe");
    assert_eq!(json["s3_header"], "x-amz-checksum-crc64nvme");
    assert_eq!(json["s3_value"], "jSnVw/bqjr4=");
    assert_eq!(json["checksum_type"], "FULL_OBJECT");
    assert!(json.get("part_size").is_none());
}

#[test]
fn verify_s3_reads_head_object_and_attributes() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = inputs(dir.path());
    let big = inputs[3].1.to_str().unwrap();
    let head = serde_json::json!({
        "AcceptRanges": "bytes",
        "ContentLength": 12582912,
        "ETag": "\"9652ce2a95f9a7975d166a608aabbfe1-3\"",
        "ChecksumSHA256": "AnxJgZB36t/Mcuku04a5KLq/FF6RdXVxGWmM9iUyy4c=-3",
        "ChecksumType": "COMPOSITE",
        "ContentType": "binary/octet-stream"
    });
    fs::write(dir.path().join("head.json"), head.to_string()).unwrap();
    let output = fasthash(dir.path())
        .args(["--verify-s3", "head.json", big])
        .output();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    let out = text(&output.stdout);
    assert!(
        out.contains("ChecksumSHA256: OK (COMPOSITE, 3 parts of 5242880 bytes)"),
        "{out}"
    );
    assert!(out.contains("ETag: OK"), "{out}");
    assert!(out.ends_with(&format!("{big}: OK\n")), "{out}");

    let attributes = serde_json::json!({
        "ETag": "9652ce2a95f9a7975d166a608aabbfe1-3",
        "Checksum": {"ChecksumCRC64NVME": "xhrYsPvF/m0=", "ChecksumType": "FULL_OBJECT"},
        "ObjectParts": {"TotalPartsCount": 3, "PartNumberMarker": 0, "IsTruncated": false,
                        "Parts": [{"PartNumber": 1, "Size": 5242880}]},
        "ObjectSize": 12582912
    });
    fs::write(dir.path().join("attributes.json"), attributes.to_string()).unwrap();
    let output = fasthash(dir.path())
        .args(["--verify-s3", "attributes.json", big])
        .output();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    assert!(text(&output.stdout).contains("ChecksumCRC64NVME: OK"));

    // Saved by Windows PowerShell 5 with `-Encoding utf8`: a byte-order mark first.
    let mut marked = b"\xEF\xBB\xBF".to_vec();
    marked.extend_from_slice(attributes.to_string().as_bytes());
    fs::write(dir.path().join("marked.json"), marked).unwrap();
    let output = fasthash(dir.path())
        .args(["--verify-s3", "marked.json", big])
        .output();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("ChecksumCRC64NVME: OK"));

    let mut corrupted = head.clone();
    corrupted["ChecksumSHA256"] = "BnxJgZB36t/Mcuku04a5KLq/FF6RdXVxGWmM9iUyy4c=-3".into();
    fs::write(dir.path().join("bad.json"), corrupted.to_string()).unwrap();
    let output = fasthash(dir.path())
        .args(["--verify-s3", "bad.json", big])
        .output();
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stdout).contains("ChecksumSHA256: FAILED"));
    assert!(text(&output.stdout).ends_with(&format!("{big}: FAILED\n")));

    fs::write(dir.path().join("junk.json"), "not json").unwrap();
    let output = fasthash(dir.path())
        .args(["--verify-s3", "junk.json", big])
        .output();
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("junk.json: not S3 object JSON"));
}

/// A field of S3's JSON that fasthash reads and that holds no value of its kind is refused by
/// name, with why, before the file is read: `not S3 object JSON`, exit 2, as for JSON that
/// is not S3's at all. Such sizes and counts had been passed over as if S3 gave none (a size
/// of -5 or 2^64), or misread (an ETag's part count beyond `u64` taken for 0 parts).
#[test]
fn verify_s3_refuses_fields_that_hold_no_value_of_their_kind() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f"), b"hello\n").unwrap();
    // `printf 'hello\n' | md5sum`
    let etag = r#""ETag": "\"b1946ac92492d2347c6235b4d2611184\"""#;
    let bytes = "is not a size in bytes (a whole number from 0 to 18446744073709551615)";
    let parts = "is not a number of parts (a whole number from 1 to 18446744073709551615)";
    let verify = |json: String| {
        fs::write(dir.path().join("head.json"), json).unwrap();
        fasthash(dir.path())
            .args(["--verify-s3", "head.json", "f"])
            .output()
    };
    let good = verify(format!(r#"{{{etag}, "ContentLength": 6}}"#));
    assert_eq!(good.status.code(), Some(0), "{}", text(&good.stdout));
    let cases = [
        (
            r#""ContentLength": -5"#,
            format!("ContentLength: -5 {bytes}"),
        ),
        (
            r#""ContentLength": 18446744073709551616"#,
            format!("ContentLength: 1.8446744073709552e+19 {bytes}"),
        ),
        (
            r#""ContentLength": 6.0"#,
            format!("ContentLength: 6.0 {bytes}"),
        ),
        (
            r#""ObjectSize": "6""#,
            format!(r#"ObjectSize: "6" {bytes}"#),
        ),
        (r#""PartsCount": 0"#, format!("PartsCount: 0 {parts}")),
        (
            r#""ObjectParts": {"TotalPartsCount": 1, "Parts": [{"Size": -6}]}"#,
            format!("ObjectParts.Parts[0].Size: -6 {bytes}"),
        ),
    ];
    for (field, reason) in cases {
        let output = verify(format!(r#"{{{etag}, {field}}}"#));
        let stderr = format!("fasthash: head.json: not S3 object JSON: {reason}\n");
        common::assert_output(field, &output, "", &stderr, 2);
    }
    let output = verify(r#"{"ETag": "\"x-99999999999999999999\"", "ContentLength": 6}"#.into());
    let reason =
        format!(r#"ETag: "x-99999999999999999999": its part count "99999999999999999999" {parts}"#);
    let stderr = format!("fasthash: head.json: not S3 object JSON: {reason}\n");
    common::assert_output("a part count beyond u64", &output, "", &stderr, 2);
}

/// Parts of no bytes cut only an empty file. JSON that gave a 6-byte object 6 parts, the
/// first of 0 bytes, with the FULL_OBJECT CRC32 of nothing, had the file's CRC32 computed from
/// six empty parts, and the file passed (exit 0) with none of its bytes read; its own CRC32 is
/// now compared, and it fails.
#[test]
fn verify_s3_never_cuts_a_file_into_parts_of_no_bytes() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f"), b"hello\n").unwrap();
    // The CRC32 of no bytes is 0.
    let attributes = serde_json::json!({
        "ObjectSize": 6,
        "Checksum": {"ChecksumCRC32": "AAAAAA==", "ChecksumType": "FULL_OBJECT"},
        "ObjectParts": {"TotalPartsCount": 6, "Parts": [{"PartNumber": 1, "Size": 0}]}
    });
    fs::write(dir.path().join("empty parts.json"), attributes.to_string()).unwrap();
    let output = fasthash(dir.path())
        .args(["--verify-s3", "empty parts.json", "f"])
        .output();
    let stdout = text(&output.stdout);
    // zlib.crc32(b"hello\n"), big-endian, in base64 (Python).
    let failed = "ChecksumCRC32: FAILED (S3: AAAAAA==, computed: NjowIA==)";
    assert!(stdout.contains(failed), "{stdout}");
    assert!(stdout.ends_with("f: FAILED\n"), "{stdout}");
    assert_eq!(output.status.code(), Some(1));
}

/// What is not a regular file has no size to compare with S3's: a directory is reported as
/// reading one fails, a FIFO with its kind, whether the object was one upload or parts, and
/// no field is judged (a directory's 4,096 bytes were once a ContentLength that differed).
#[test]
fn verify_s3_names_what_is_not_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("directory")).unwrap();
    common::make_fifo(dir.path(), "fifo");
    let multipart = serde_json::json!({
        "ContentLength": 12582912,
        "ETag": "\"9652ce2a95f9a7975d166a608aabbfe1-3\"",
        "ChecksumCRC32": "AAAAAA==-3",
        "ChecksumType": "COMPOSITE"
    });
    let single = serde_json::json!({"ContentLength": 0, "ChecksumCRC32": "AAAAAA=="});
    for (json, name) in [(multipart, "multipart.json"), (single, "single.json")] {
        fs::write(dir.path().join(name), json.to_string()).unwrap();
        for (file, reason) in [
            ("directory", "Is a directory"),
            (
                "fifo",
                "it is a FIFO, with no size to compare with S3's object",
            ),
        ] {
            let output = fasthash(dir.path())
                .args(["--verify-s3", name, file])
                .timeout(std::time::Duration::from_secs(60))
                .output();
            assert_eq!(text(&output.stdout), "", "{name} {file}");
            assert_eq!(
                text(&output.stderr),
                format!("fasthash: {file}: {reason}\n"),
                "{name}"
            );
            assert_eq!(output.status.code(), Some(1), "{name} {file}");
        }
    }
}

/// A value of more parts than S3 makes (10,000) is not S3's, and is not cut into: each part's
/// values would be kept, and a 1-byte part of a 20 MiB file took gigabytes before it aborted.
/// With `--no-part-limits` a file is still cut into at most a million parts.
#[test]
fn part_counts_past_s3s_are_not_cut_into() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f"), vec![7u8; 20_001]).unwrap();
    let head = serde_json::json!({
        "ChecksumCRC32": "AAAAAA==-20001",
        "ETag": "\"0123456789abcdef0123456789abcdef-20001\"",
        "ContentLength": 20_001,
        "ObjectParts": {"TotalPartsCount": 20_001, "Parts": [{"PartNumber": 1, "Size": 1}]}
    });
    fs::write(dir.path().join("head.json"), head.to_string()).unwrap();
    let output = fasthash(dir.path())
        .args(["--verify-s3", "head.json", "f"])
        .output();
    let reason = "cannot verify (more than the 10,000 parts S3 makes)";
    assert_eq!(
        text(&output.stdout),
        format!("ContentLength: OK\nChecksumCRC32: {reason}\nETag: {reason}\nf: FAILED\n")
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let sparse = dir.path().join("sparse");
    fs::File::create(&sparse)
        .unwrap()
        .set_len(1_000_001)
        .unwrap();
    let unlimited = fasthash(dir.path())
        .args([
            "--s3",
            "-a",
            "crc32",
            "--part-size",
            "1",
            "--no-part-limits",
            "sparse",
            "f",
        ])
        .output();
    assert_eq!(unlimited.status.code(), Some(1));
    assert_eq!(
        text(&unlimited.stderr),
        "fasthash: sparse: 1000001 parts of 1 bytes; fasthash cuts a file into at most 1000000 \
         parts, even with --no-part-limits (use a part size of at least 2)\n"
    );
    assert!(
        text(&unlimited.stdout).ends_with("-20001  f\n"),
        "{}",
        text(&unlimited.stdout)
    );
}

#[test]
fn check_reads_s3_manifests() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = inputs(dir.path());
    let names: Vec<&str> = inputs.iter().map(|(_, p)| p.to_str().unwrap()).collect();
    for algo in ["crc64nvme", "crc32c", "sha256", "sha1", "xxh128", "md5"] {
        let manifest = fasthash(dir.path())
            .args(["--s3", "-a", algo])
            .args(&names)
            .output();
        fs::write(dir.path().join("S3SUMS"), &manifest.stdout).unwrap();
        let check = fasthash(dir.path())
            .args(["-c", "-a", algo, "S3SUMS"])
            .output();
        assert_eq!(
            check.status.code(),
            Some(0),
            "{algo}: {}",
            text(&check.stdout)
        );
        assert_eq!(text(&check.stdout).matches(": OK\n").count(), 4);
    }
    fs::write(&inputs[1].1, b"hello World").unwrap();
    let check = fasthash(dir.path())
        .args(["-c", "-a", "md5", "S3SUMS"])
        .output();
    assert_eq!(check.status.code(), Some(1));
    assert!(text(&check.stdout).contains(": FAILED"));
}
