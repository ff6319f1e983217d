//! `--json` for `--check`, for the audit (`--check --tree`) and for `--verify-s3`: every object
//! parsed and its fields checked, for each status, against text mode's lines, warnings and exit
//! codes on the same input (docs/json.md describes the shapes).

use crate::common;

use base64::Engine as _;
use common::{fasthash, os_names, text, write_file};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

/// Every line of standard output as a JSON object; each line must be one.
fn parse_objects(output: &Output) -> Vec<Value> {
    assert!(
        output.stdout.is_empty() || output.stdout.ends_with(b"\n"),
        "JSON output ends in a newline: {}",
        text(&output.stdout)
    );
    output
        .stdout
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| {
            serde_json::from_slice(line)
                .unwrap_or_else(|e| panic!("{e}: not one JSON object: {}", text(line)))
        })
        .collect()
}

/// The objects of one `type`.
fn of_type<'a>(objects: &'a [Value], kind: &str) -> Vec<&'a Value> {
    objects.iter().filter(|o| o["type"] == kind).collect()
}

/// The one summary object, which must be the last.
fn summary_of(objects: &[Value]) -> &Value {
    let last = objects.last().expect("a summary object");
    assert_eq!(
        last["type"], "summary",
        "the summary comes last: {objects:?}"
    );
    assert_eq!(of_type(objects, "summary").len(), 1);
    last
}

/// The file object named `name`.
fn file<'a>(objects: &'a [Value], name: &str) -> &'a Value {
    objects
        .iter()
        .find(|o| o["type"] == "file" && o["name"] == name)
        .unwrap_or_else(|| panic!("no object for {name} in {objects:?}"))
}

/// Files a, b, c and their manifest SUMS (SHA-256, untagged), in a new directory.
fn files_and_manifest() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in [("a", "alpha"), ("b", "bravo"), ("c", "charlie")] {
        write_file(dir.path(), name, content);
    }
    let manifest = fasthash(dir.path()).args(["a", "b", "c"]).output();
    assert!(manifest.status.success());
    std::fs::write(dir.path().join("SUMS"), manifest.stdout).unwrap();
    dir
}

/// Appends `text` to the file `name` in `dir`.
fn append(dir: &Path, name: &str, text: &[u8]) {
    let mut content = std::fs::read(dir.join(name)).unwrap();
    content.extend_from_slice(text);
    std::fs::write(dir.join(name), content).unwrap();
}

/// The text-mode and JSON-mode runs of one check command line.
fn both(dir: &Path, args: &[&str]) -> (Output, Output) {
    let text_run = fasthash(dir).arg("-c").args(args).output();
    let json_run = fasthash(dir).args(["-c", "--json"]).args(args).output();
    assert_eq!(
        text_run.status.code(),
        json_run.status.code(),
        "{args:?}: the exit status is text mode's\ntext: {}\njson: {}",
        text(&text_run.stderr),
        text(&json_run.stderr)
    );
    (text_run, json_run)
}

/// The count in text mode's `WARNING: N ...` line containing `words`, 0 without one.
fn warning_count(stderr: &[u8], words: &str) -> u64 {
    text(stderr)
        .lines()
        .find(|line| line.contains("WARNING: ") && line.contains(words))
        .map_or(0, |line| {
            let after = line.split("WARNING: ").nth(1).unwrap();
            after.split(' ').next().unwrap().parse().unwrap()
        })
}

#[test]
fn each_status_has_its_object_and_the_summary_counts_them() {
    let dir = files_and_manifest();
    let root = dir.path();
    std::fs::write(root.join("b"), "changed").unwrap();
    std::fs::remove_file(root.join("c")).unwrap();
    // A directory where a file was: read fails with the system's reason, even as root.
    std::fs::create_dir(root.join("c")).unwrap();
    let (text_run, json_run) = both(root, &["SUMS"]);
    assert_eq!(json_run.status.code(), Some(1));
    let objects = parse_objects(&json_run);
    assert_eq!(objects.len(), 4, "{objects:?}");

    let a = file(&objects, "a");
    assert_eq!(a["status"], "OK");
    assert_eq!(a["algorithm"], "sha256");
    assert_eq!(a["manifest"], "SUMS");
    assert_eq!(a["line"], 1);
    assert!(a.get("error").is_none());
    let b = file(&objects, "b");
    assert_eq!(b["status"], "FAILED");
    assert_eq!(b["line"], 2);
    let c = file(&objects, "c");
    assert_eq!(c["status"], "UNREADABLE");
    assert_eq!(c["error"], "Is a directory");
    assert_eq!(c["line"], 3);

    let summary = summary_of(&objects);
    assert_eq!(summary["status"], "FAILED");
    assert_eq!(summary["ok"], 1);
    assert_eq!(summary["failed"], 1);
    assert_eq!(summary["unreadable"], 1);
    assert_eq!(summary["missing"], 0);
    assert_eq!(summary["improper"], 0);
    let manifests = summary["manifests"].as_array().unwrap();
    assert_eq!(manifests.len(), 1);
    assert_eq!(manifests[0]["manifest"], "SUMS");
    assert_eq!(manifests[0]["failed"], 1);

    // The summary's counts are text mode's warnings; the warnings themselves are not repeated
    // on standard error, the errors are.
    assert_eq!(warning_count(&text_run.stderr, "did NOT match"), 1);
    assert_eq!(warning_count(&text_run.stderr, "could not be read"), 1);
    let json_stderr = text(&json_run.stderr);
    assert!(!json_stderr.contains("WARNING"), "{json_stderr}");
    assert!(
        json_stderr.contains("fasthash: c: Is a directory"),
        "{json_stderr}"
    );
}

#[test]
fn every_file_verified_is_a_summary_that_says_ok() {
    let dir = files_and_manifest();
    let (_, json_run) = both(dir.path(), &["SUMS"]);
    assert_eq!(json_run.status.code(), Some(0));
    let objects = parse_objects(&json_run);
    assert_eq!(of_type(&objects, "file").len(), 3);
    let summary = summary_of(&objects);
    assert_eq!(summary["status"], "OK");
    assert_eq!(summary["ok"], 3);
    assert!(json_run.stderr.is_empty(), "{}", text(&json_run.stderr));
}

#[test]
fn a_mixed_manifest_names_each_lines_algorithm() {
    let dir = files_and_manifest();
    let root = dir.path();
    let tagged = fasthash(root).args(["-a", "blake3", "--tag", "a"]).output();
    append(root, "SUMS", &tagged.stdout);
    let md5 = fasthash(root).args(["-a", "md5", "--tag", "b"]).output();
    append(root, "SUMS", &md5.stdout);
    let xxh = fasthash(root).args(["-a", "xxh128", "c"]).output();
    append(root, "SUMS", &xxh.stdout);
    let (_, json_run) = both(root, &["SUMS"]);
    assert_eq!(json_run.status.code(), Some(0));
    let objects = parse_objects(&json_run);
    let files = of_type(&objects, "file");
    let seen: Vec<(&str, &str, u64)> = files
        .iter()
        .map(|o| {
            (
                o["name"].as_str().unwrap(),
                o["algorithm"].as_str().unwrap(),
                o["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("a", "sha256", 1),
            ("b", "sha256", 2),
            ("c", "sha256", 3),
            ("a", "blake3", 4),
            ("b", "md5", 5),
            // An untagged 32-digit line is read as MD5 first; it matched as XXH128.
            ("c", "xxh128", 6),
        ]
    );
    assert!(files.iter().all(|o| o["status"] == "OK"));
    assert_eq!(summary_of(&objects)["ok"], 6);
}

#[test]
fn quiet_drops_the_ok_objects_and_status_prints_nothing() {
    let dir = files_and_manifest();
    let root = dir.path();
    std::fs::write(root.join("a"), "changed").unwrap();
    let (_, quiet) = both(root, &["--quiet", "SUMS"]);
    let objects = parse_objects(&quiet);
    assert_eq!(objects.len(), 2, "{objects:?}");
    assert_eq!(file(&objects, "a")["status"], "FAILED");
    assert_eq!(summary_of(&objects)["ok"], 2, "counted, not shown");

    let (text_status, json_status) = both(root, &["--status", "SUMS"]);
    assert_eq!(json_status.status.code(), Some(1));
    assert!(json_status.stdout.is_empty());
    assert!(json_status.stderr.is_empty());
    assert_eq!(text_status.stdout, json_status.stdout);
    // --status on a good manifest: nothing, exit 0.
    std::fs::write(root.join("a"), "alpha").unwrap();
    let (_, good) = both(root, &["--status", "SUMS"]);
    assert_eq!(good.status.code(), Some(0));
    assert!(good.stdout.is_empty());
}

#[test]
fn ignore_missing_leaves_missing_files_out_and_counts_them() {
    let dir = files_and_manifest();
    let root = dir.path();
    std::fs::remove_file(root.join("b")).unwrap();
    let (_, json_run) = both(root, &["--ignore-missing", "SUMS"]);
    assert_eq!(json_run.status.code(), Some(0));
    let objects = parse_objects(&json_run);
    assert_eq!(of_type(&objects, "file").len(), 2);
    assert!(objects.iter().all(|o| o["name"] != "b"));
    let summary = summary_of(&objects);
    assert_eq!(summary["missing"], 1);
    assert_eq!(summary["unreadable"], 0);
    assert_eq!(summary["status"], "OK");
    assert_eq!(summary["manifests"][0]["no_file_verified"], false);

    // Nothing there at all: coreutils' "no file was verified", exit 1.
    for name in ["a", "c"] {
        std::fs::remove_file(root.join(name)).unwrap();
    }
    let (text_run, json_run) = both(root, &["--ignore-missing", "SUMS"]);
    assert_eq!(json_run.status.code(), Some(1));
    assert!(text(&text_run.stderr).contains("SUMS: no file was verified"));
    let objects = parse_objects(&json_run);
    assert_eq!(objects.len(), 1);
    let summary = summary_of(&objects);
    assert_eq!(summary["status"], "FAILED");
    assert_eq!(summary["missing"], 3);
    assert_eq!(summary["manifests"][0]["no_file_verified"], true);
    assert!(json_run.stderr.is_empty(), "{}", text(&json_run.stderr));
}

#[test]
fn a_bad_line_is_counted_named_under_warn_and_fails_strict() {
    let dir = files_and_manifest();
    let root = dir.path();
    append(root, "SUMS", b"not a checksum line\n");
    let (text_run, plain) = both(root, &["SUMS"]);
    assert_eq!(plain.status.code(), Some(0));
    let objects = parse_objects(&plain);
    assert!(of_type(&objects, "improper").is_empty());
    assert_eq!(summary_of(&objects)["improper"], 1);
    assert_eq!(
        warning_count(&text_run.stderr, "improperly formatted"),
        summary_of(&objects)["improper"].as_u64().unwrap()
    );

    let (text_warn, warn) = both(root, &["--warn", "SUMS"]);
    assert!(text(&text_warn.stderr).contains("SUMS: 4: improperly formatted checksum line"));
    let objects = parse_objects(&warn);
    let improper = of_type(&objects, "improper");
    assert_eq!(improper.len(), 1);
    assert_eq!(improper[0]["manifest"], "SUMS");
    assert_eq!(improper[0]["line"], 4);
    assert!(warn.stderr.is_empty(), "{}", text(&warn.stderr));

    let (_, strict) = both(root, &["--strict", "SUMS"]);
    assert_eq!(strict.status.code(), Some(1));
    let objects = parse_objects(&strict);
    assert_eq!(summary_of(&objects)["status"], "FAILED");
    assert_eq!(summary_of(&objects)["ok"], 3);
}

#[test]
fn a_manifest_without_checksum_lines_or_unreadable_is_in_the_summary() {
    let dir = files_and_manifest();
    let root = dir.path();
    write_file(root, "EMPTY", "nothing here\n");
    let (text_run, json_run) = both(root, &["EMPTY", "SUMS"]);
    assert_eq!(json_run.status.code(), Some(1));
    // An error: on standard error in both modes, as coreutils prints it even under --status.
    let message = "EMPTY: no properly formatted checksum lines found";
    assert!(text(&text_run.stderr).contains(message));
    assert!(text(&json_run.stderr).contains(message));
    let objects = parse_objects(&json_run);
    let manifests = summary_of(&objects)["manifests"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(manifests[0]["manifest"], "EMPTY");
    assert_eq!(manifests[0]["no_proper_lines"], true);
    assert_eq!(manifests[0]["improper"], 1);
    assert_eq!(manifests[1]["manifest"], "SUMS");
    assert_eq!(manifests[1]["ok"], 3);
    assert_eq!(summary_of(&objects)["status"], "FAILED");

    let (_, json_run) = both(root, &["SUMS", "NOWHERE"]);
    assert_eq!(json_run.status.code(), Some(1));
    assert!(text(&json_run.stderr).contains("fasthash: NOWHERE: No such file or directory"));
    let objects = parse_objects(&json_run);
    let manifests = &summary_of(&objects)["manifests"];
    assert_eq!(manifests[1]["manifest"], "NOWHERE");
    assert_eq!(manifests[1]["error"], "No such file or directory");
    assert!(manifests[0].get("error").is_none());
    assert_eq!(summary_of(&objects)["status"], "FAILED");
}

#[test]
fn a_name_that_is_not_utf8_round_trips_in_base64() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let name: &[u8] = b"caf\xe9 \xff";
    write_file(root, name, "latin-1");
    let manifest = fasthash(root)
        .args(["-a", "md5"])
        .args(os_names(&[name]))
        .output();
    // The manifest's own name is not UTF-8 either.
    let manifest_name: &[u8] = b"SUMS\xfe";
    write_file(root, manifest_name, &manifest.stdout);
    let output = fasthash(root)
        .args(["-c", "--json"])
        .args(os_names(&[manifest_name]))
        .output();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let objects = parse_objects(&output);
    let object = of_type(&objects, "file")[0];
    let decode = |value: &Value| {
        base64::engine::general_purpose::STANDARD
            .decode(value.as_str().unwrap())
            .unwrap()
    };
    assert_eq!(decode(&object["name_base64"]), name);
    assert_eq!(object["name"], String::from_utf8_lossy(name).as_ref());
    assert_eq!(decode(&object["manifest_base64"]), manifest_name);
    assert_eq!(object["algorithm"], "md5");
    let summary = summary_of(&objects);
    assert_eq!(
        decode(&summary["manifests"][0]["manifest_base64"]),
        manifest_name
    );
    // The decoded name is the file's: hashing it by that name gives the manifest's line.
    let decoded = decode(&object["name_base64"]);
    let again = fasthash(root)
        .args(["-a", "md5"])
        .args(os_names(&[&decoded]))
        .output();
    assert_eq!(again.stdout, manifest.stdout);

    // A UTF-8 name has no base64 field.
    let dir = files_and_manifest();
    let (_, plain) = both(dir.path(), &["SUMS"]);
    for object in parse_objects(&plain) {
        let keys = object.as_object().unwrap().keys();
        assert!(keys.into_iter().all(|key| !key.ends_with("_base64")));
    }
}

#[test]
fn zero_terminated_manifests_give_the_same_json() {
    let dir = files_and_manifest();
    let root = dir.path();
    let zero = fasthash(root).args(["-z", "a", "b", "c"]).output();
    std::fs::write(root.join("SUMS0"), zero.stdout).unwrap();
    let newline = fasthash(root).args(["-c", "--json", "SUMS"]).output();
    let nul = fasthash(root)
        .args(["-c", "--json", "-z", "SUMS0"])
        .output();
    assert_eq!(nul.status.code(), Some(0));
    assert!(!nul.stdout.contains(&0));
    let rename = |output: &Output| text(&output.stdout).replace("SUMS0", "SUMS");
    assert_eq!(rename(&nul), rename(&newline));
}

#[test]
fn exit_codes_are_text_modes() {
    let dir = files_and_manifest();
    let root = dir.path();
    append(root, "SUMS", b"junk\n");
    write_file(root, "JUNK", "junk\n");
    std::fs::write(root.join("c"), "changed").unwrap();
    for args in [
        &["SUMS"][..],
        &["--strict", "SUMS"],
        &["--quiet", "SUMS"],
        &["--status", "SUMS"],
        &["--ignore-missing", "SUMS"],
        &["JUNK"],
        &["NOWHERE"],
        &["SUMS", "JUNK"],
        &["--warn", "--strict", "JUNK"],
    ] {
        both(root, args);
    }
    // Usage errors are refused as before.
    let merge = fasthash(root).args(["--merge", "--json", "SUMS"]).output();
    assert_eq!(merge.status.code(), Some(2));
}

/// The audited tree of tests/audit.rs in small: a manifest of data/, then a change of each kind.
#[test]
fn the_audit_writes_the_same_objects_and_summary() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (name, content) in [
        ("data/same", "same"),
        ("data/changes", "before"),
        ("data/goes", "gone soon"),
        ("data/moves", "moving"),
        ("data/unreadable", "soon a directory"),
    ] {
        write_file(root, name, content);
    }
    let manifest = fasthash(root).args(["-r", "data"]).output();
    std::fs::write(root.join("SUMS"), manifest.stdout).unwrap();
    let tagged = fasthash(root)
        .args(["-a", "blake3", "--tag", "data/moves"])
        .output();
    append(root, "SUMS", &tagged.stdout);
    append(root, "SUMS", b"a bad line\n");
    std::fs::write(root.join("data/changes"), "after").unwrap();
    std::fs::remove_file(root.join("data/goes")).unwrap();
    std::fs::rename(root.join("data/moves"), root.join("data/moved")).unwrap();
    std::fs::remove_file(root.join("data/unreadable")).unwrap();
    std::fs::create_dir(root.join("data/unreadable")).unwrap();
    write_file(root, "data/unreadable/inside", "new");
    write_file(root, "data/fresh", "new file");

    let text_run = fasthash(root)
        .args(["-c", "SUMS", "--tree", "data"])
        .output();
    let output = fasthash(root)
        .args(["-c", "SUMS", "--tree", "data", "--json"])
        .output();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(output.status.code(), text_run.status.code());
    let objects = parse_objects(&output);
    let same = file(&objects, "data/same");
    assert_eq!(same["status"], "OK");
    assert_eq!(same["algorithm"], "sha256");
    assert_eq!(same["manifest"], "SUMS");
    assert_eq!(file(&objects, "data/changes")["status"], "FAILED");
    assert_eq!(file(&objects, "data/goes")["status"], "MISSING");
    let unreadable = file(&objects, "data/unreadable");
    assert_eq!(unreadable["status"], "UNREADABLE");
    assert_eq!(unreadable["error"], "Is a directory");
    // Listed twice (SHA-256, then BLAKE3): the first line's file moved, the second is missing.
    let moved = file(&objects, "data/moved");
    assert_eq!(moved["status"], "MOVED");
    assert_eq!(moved["from"], "data/moves");
    // Its manifest line is one of the two that list data/moves, read under that line's
    // algorithm; the other is MISSING.
    let manifest_text = text(&std::fs::read(root.join("SUMS")).unwrap());
    let line_number = moved["line"].as_u64().unwrap() as usize;
    let line = manifest_text.lines().nth(line_number - 1).unwrap();
    assert!(line.contains("data/moves"), "{line}");
    let algorithm = if line.starts_with("BLAKE3 ") {
        "blake3"
    } else {
        "sha256"
    };
    assert_eq!(moved["algorithm"], algorithm);
    let missing_moves = objects
        .iter()
        .find(|o| o["name"] == "data/moves" && o["status"] == "MISSING")
        .unwrap();
    assert_ne!(missing_moves["line"], moved["line"]);
    let new: Vec<_> = of_type(&objects, "file")
        .into_iter()
        .filter(|o| o["status"] == "NEW")
        .collect();
    let new_names: Vec<&str> = new.iter().map(|o| o["name"].as_str().unwrap()).collect();
    assert_eq!(new_names, ["data/fresh", "data/unreadable/inside"]);
    assert!(new.iter().all(|o| o.get("manifest").is_none()));

    let summary = summary_of(&objects);
    assert_eq!(summary["status"], "FAILED");
    assert_eq!(summary["tree"], "data");
    let counts: Vec<u64> = [
        "ok",
        "failed",
        "unreadable",
        "missing",
        "moved",
        "new",
        "improper",
    ]
    .iter()
    .map(|key| summary[key].as_u64().unwrap())
    .collect();
    assert_eq!(counts, [1, 1, 1, 2, 1, 2, 1]);
    // The same counts as the text summary line, which JSON replaces.
    assert!(
        text(&text_run.stderr).contains(
            "1 OK, 1 FAILED, 1 unreadable, 2 MISSING, 1 MOVED, 2 NEW, 1 improperly formatted"
        ),
        "{}",
        text(&text_run.stderr)
    );
    assert!(!text(&output.stderr).contains("audit of"));
    assert_eq!(summary["manifests"][0]["manifest"], "SUMS");
    assert_eq!(summary["manifests"][0]["improper"], 1);

    let quiet = fasthash(root)
        .args(["-c", "SUMS", "--tree", "data", "--json", "--quiet"])
        .output();
    let quiet_objects = parse_objects(&quiet);
    assert!(quiet_objects
        .iter()
        .all(|o| o["status"] != "OK" || o["type"] == "summary"));
    assert_eq!(quiet_objects.len(), objects.len() - 1);
    let status = fasthash(root)
        .args(["-c", "SUMS", "--tree", "data", "--json", "--status"])
        .output();
    assert!(status.stdout.is_empty());
    assert_eq!(status.status.code(), Some(1));

    let nowhere = fasthash(root)
        .args(["-c", "SUMS", "--tree", "nowhere", "--json"])
        .output();
    assert_eq!(nowhere.status.code(), Some(1));
    let objects = parse_objects(&nowhere);
    assert_eq!(summary_of(&objects)["error"], "No such file or directory");
    assert_eq!(summary_of(&objects)["status"], "FAILED");
}

/// A file and the head-object JSON S3 gives for it uploaded in three 5 MiB parts with SHA-256
/// checksums (the values of tests/s3.rs, computed by the AWS SDKs: tests/vectors/s3-kat.json).
fn s3_object(dir: &Path) -> Value {
    let data = common::random_bytes(12 * 1024 * 1024, 20260101);
    std::fs::write(dir.join("big"), data).unwrap();
    serde_json::json!({
        "ContentLength": 12582912,
        "ETag": "\"9652ce2a95f9a7975d166a608aabbfe1-3\"",
        "ChecksumSHA256": "AnxJgZB36t/Mcuku04a5KLq/FF6RdXVxGWmM9iUyy4c=-3",
        "ChecksumType": "COMPOSITE"
    })
}

#[test]
fn verify_s3_json_gives_the_verdict_and_each_field() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let head = s3_object(root);
    std::fs::write(root.join("head.json"), head.to_string()).unwrap();
    let output = fasthash(root)
        .args(["--verify-s3", "head.json", "big", "--json"])
        .output();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let objects = parse_objects(&output);
    assert_eq!(objects.len(), 1);
    let verdict = &objects[0];
    assert_eq!(verdict["type"], "verify_s3");
    assert_eq!(verdict["name"], "big");
    assert_eq!(verdict["s3_json"], "head.json");
    assert_eq!(verdict["status"], "OK");
    assert_eq!(verdict["size"], 12582912);
    let fields = verdict["fields"].as_array().unwrap();
    let names: Vec<&str> = fields
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ContentLength", "ChecksumSHA256", "ETag"]);
    assert_eq!(fields[0]["expected"], 12582912);
    assert_eq!(fields[0]["computed"], 12582912);
    let checksum = &fields[1];
    assert_eq!(checksum["status"], "OK");
    assert_eq!(checksum["algorithm"], "sha256");
    assert_eq!(checksum["checksum_type"], "COMPOSITE");
    assert_eq!(checksum["part_count"], 3);
    assert_eq!(checksum["part_size"], 5242880);
    assert_eq!(checksum["expected"], head["ChecksumSHA256"]);
    assert_eq!(checksum["computed"], head["ChecksumSHA256"]);
    let etag = &fields[2];
    assert_eq!(etag["status"], "OK");
    assert_eq!(etag["expected"], "9652ce2a95f9a7975d166a608aabbfe1-3");
    assert_eq!(etag["computed"], "9652ce2a95f9a7975d166a608aabbfe1-3");
    assert_eq!(etag["part_size"], 5242880);

    // A checksum S3 did not store for this file, a size that differs, an MD5 ETag.
    let mut bad = head.clone();
    bad["ChecksumSHA256"] = "BnxJgZB36t/Mcuku04a5KLq/FF6RdXVxGWmM9iUyy4c=-3".into();
    bad["ContentLength"] = 12582913.into();
    bad["ETag"] = "\"0123456789abcdef0123456789abcdef\"".into();
    bad["ChecksumCRC32"] = "AAAAAA==".into();
    bad.as_object_mut().unwrap().remove("ChecksumType");
    std::fs::write(root.join("bad.json"), bad.to_string()).unwrap();
    let text_run = fasthash(root)
        .args(["--verify-s3", "bad.json", "big"])
        .output();
    let output = fasthash(root)
        .args(["--verify-s3", "bad.json", "big", "--json"])
        .output();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(output.status.code(), text_run.status.code());
    let objects = parse_objects(&output);
    let verdict = &objects[0];
    assert_eq!(verdict["status"], "FAILED");
    let field = |name: &str| {
        verdict["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["field"] == name)
            .unwrap_or_else(|| panic!("no {name} in {verdict}"))
            .clone()
    };
    let size = field("ContentLength");
    assert_eq!(size["status"], "FAILED");
    assert_eq!(size["expected"], 12582913);
    assert_eq!(size["computed"], 12582912);
    let sha = field("ChecksumSHA256");
    assert_eq!(sha["status"], "FAILED");
    assert_eq!(sha["part_count"], 3);
    assert!(sha.get("computed").is_none());
    let tried = sha["tried_part_sizes"].as_array().unwrap();
    assert!(tried.iter().any(|size| size == 5242880), "{sha}");
    let crc = field("ChecksumCRC32");
    assert_eq!(crc["status"], "FAILED");
    assert_eq!(crc["checksum_type"], "FULL_OBJECT");
    assert_eq!(crc["expected"], "AAAAAA==");
    let crc_line = text(&text_run.stdout)
        .lines()
        .find(|l| l.starts_with("ChecksumCRC32"))
        .unwrap()
        .to_string();
    // The text line shows the same computed value.
    assert!(
        crc_line.contains(&format!("computed: {}", crc["computed"].as_str().unwrap())),
        "{crc_line}"
    );
    let etag = field("ETag");
    assert_eq!(etag["status"], "FAILED");
    assert_eq!(etag["expected"], "0123456789abcdef0123456789abcdef");
    assert_eq!(etag["computed"].as_str().unwrap().len(), 32);
    assert!(etag.get("part_count").is_none());

    // A file that cannot be read: an object saying so, the error on standard error.
    let output = fasthash(root)
        .args(["--verify-s3", "head.json", "nowhere", "--json"])
        .output();
    assert_eq!(output.status.code(), Some(1));
    let objects = parse_objects(&output);
    assert_eq!(objects[0]["status"], "UNREADABLE");
    assert_eq!(objects[0]["name"], "nowhere");
    assert_eq!(objects[0]["error"], "No such file or directory");
    assert!(text(&output.stderr).contains("fasthash: nowhere: No such file or directory"));
}
