//! `--verify-s3 s3://BUCKET/KEY FILE` and `--verify-s3 s3://BUCKET/PREFIX/ DIR` against a real
//! S3 server: moto's, started on 127.0.0.1 by `tests/fixtures/s3.py` (once for the test
//! binary; it ends when the binary does). The objects are uploaded by boto3 through the same
//! script, never by fasthash, and no digest is written here: S3 (moto and botocore) computes
//! every value fasthash is compared with.
//!
//! Without python3, moto, boto3, crc32c and awscrt the tests say they skipped, or fail when
//! `FASTHASH_REQUIRE_PEERS` is set (CI installs them). Built without the feature `s3`, they
//! check only that `s3://` is refused with a clear line.

use crate::common;

use common::{fasthash, random_bytes, repo_path, text, write_file, Run};
use serde_json::{json, Value};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};

const MIB: usize = 1024 * 1024;

/// A moto server of this test binary: its port, the credentials it takes, and the process,
/// whose standard input stays open until the binary exits.
struct Server {
    port: u16,
    key: String,
    secret: String,
    _process: Mutex<Child>,
}

impl Server {
    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// fasthash with this server's credentials and nothing of the machine's own AWS setup:
    /// no profile or config file, and no instance metadata (which is not on loopback).
    fn fasthash(&self, dir: &Path) -> Run {
        isolated(fasthash(dir))
            .env("AWS_ACCESS_KEY_ID", &self.key)
            .env("AWS_SECRET_ACCESS_KEY", &self.secret)
    }

    /// `fasthash ARGS --endpoint-url` this server, run to its end.
    fn verify(&self, dir: &Path, args: &[&str]) -> std::process::Output {
        let endpoint = self.endpoint();
        self.fasthash(dir)
            .args(args)
            .args(["--endpoint-url", &endpoint])
            .output()
    }

    /// Uploads with boto3: each of `plan` is `{"key", "path", "algorithm", "part_size",
    /// "checksum_type", "sse"}` (see the fixture).
    fn upload(&self, bucket: &str, plan: &[Value]) {
        let mut child = Command::new("python3")
            .arg(repo_path("tests/fixtures/s3.py"))
            .args(["upload", &self.endpoint(), bucket])
            .env("AWS_ACCESS_KEY_ID", &self.key)
            .env("AWS_SECRET_ACCESS_KEY", &self.secret)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("python3 runs");
        let plan = serde_json::to_vec(plan).unwrap();
        std::io::Write::write_all(child.stdin.as_mut().unwrap(), &plan).unwrap();
        drop(child.stdin.take());
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "upload failed: {}",
            text(&output.stderr)
        );
    }
}

/// A run with no AWS setup of the machine's: no profile, no config or credentials file, no
/// instance metadata, no endpoint or region but those a test sets.
fn isolated(run: Run) -> Run {
    let mut run = run;
    for variable in [
        "AWS_PROFILE",
        "AWS_DEFAULT_PROFILE",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_ENDPOINT_URL",
        "AWS_ENDPOINT_URL_S3",
        "AWS_REGION",
        "AWS_DEFAULT_REGION",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    ] {
        run = run.env_remove(variable);
    }
    run.env("AWS_CONFIG_FILE", "/nonexistent/aws-config")
        .env(
            "AWS_SHARED_CREDENTIALS_FILE",
            "/nonexistent/aws-credentials",
        )
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_REGION", "us-east-1")
}

static SERVER: OnceLock<Option<Server>> = OnceLock::new();
static CHECKING_SERVER: OnceLock<Option<Server>> = OnceLock::new();

/// The shared server (it takes any credentials), or `None` when the tests skip.
fn server() -> Option<&'static Server> {
    SERVER.get_or_init(|| start(false)).as_ref()
}

/// A server that checks signatures, for the test of wrong credentials.
fn checking_server() -> Option<&'static Server> {
    CHECKING_SERVER.get_or_init(|| start(true)).as_ref()
}

fn start(auth: bool) -> Option<Server> {
    if !cfg!(feature = "s3") {
        eprintln!("skipped: fasthash is built without the feature s3");
        return None;
    }
    let probe = Command::new("python3")
        .args(["-c", "import moto.server, boto3, crc32c, awscrt"])
        .stderr(Stdio::null())
        .status();
    if !matches!(probe, Ok(status) if status.success()) {
        let why = "python3 with moto[server], boto3, crc32c and awscrt is not installed";
        if std::env::var_os("FASTHASH_REQUIRE_PEERS").is_some() {
            panic!("the S3 server is required (FASTHASH_REQUIRE_PEERS) but {why}");
        }
        eprintln!("skipped: {why}");
        return None;
    }
    let mut command = Command::new("python3");
    command.arg(repo_path("tests/fixtures/s3.py")).arg("serve");
    if auth {
        command.arg("--auth");
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let words: Vec<&str> = line.split_whitespace().collect();
    let port = words
        .first()
        .and_then(|port| port.parse().ok())
        .unwrap_or_else(|| panic!("the S3 server did not start: {line:?}"));
    let (key, secret) = match words.as_slice() {
        [_, key, secret] => (key.to_string(), secret.to_string()),
        _ => ("AKIAFASTHASHTEST".to_string(), "any-secret".to_string()),
    };
    Some(Server {
        port,
        key,
        secret,
        _process: Mutex::new(child),
    })
}

/// One upload of the plan.
fn item(key: &str, path: &Path, algorithm: Option<&str>, parts: Option<(usize, &str)>) -> Value {
    json!({
        "key": key,
        "path": path,
        "algorithm": algorithm,
        "part_size": parts.map(|(size, _)| size),
        "checksum_type": parts.map(|(_, kind)| kind),
    })
}

/// A tree of files and the plan that uploads it under `prefix`: every algorithm S3 accepts
/// as a single upload, multipart COMPOSITE and FULL_OBJECT with odd part sizes (the last part
/// smaller), ETag-only objects, an empty file, and names with spaces and UTF-8.
fn mixed_tree(root: &Path, prefix: &str) -> Vec<Value> {
    let mut plan = Vec::new();
    let mut add = |name: &str, bytes: Vec<u8>, algorithm, parts| {
        write_file(root, name, &bytes);
        plan.push(item(
            &format!("{prefix}{name}"),
            &root.join(name),
            algorithm,
            parts,
        ));
    };
    let algorithms = [
        "CRC32",
        "CRC32C",
        "CRC64NVME",
        "SHA1",
        "SHA256",
        "SHA512",
        "MD5",
        "XXHASH64",
        "XXHASH3",
        "XXHASH128",
    ];
    for (index, algorithm) in algorithms.iter().enumerate() {
        let bytes = random_bytes(1000 + 4099 * index, index as u64);
        add(
            &format!("single/{algorithm}.bin"),
            bytes,
            Some(*algorithm),
            None,
        );
    }
    add("single/empty", Vec::new(), Some("CRC32"), None);
    let big = |seed| random_bytes(10 * MIB + MIB / 2, seed);
    let odd = 5 * MIB + 12_345;
    for (algorithm, seed) in [("SHA256", 1), ("SHA1", 2), ("CRC32", 3), ("CRC32C", 4)] {
        let name = format!("parts/composite {algorithm}.bin");
        add(&name, big(seed), Some(algorithm), Some((odd, "COMPOSITE")));
    }
    for (algorithm, seed) in [("CRC64NVME", 5), ("CRC32", 6), ("CRC32C", 7)] {
        let name = format!("parts/full {algorithm}.bin");
        add(
            &name,
            big(seed),
            Some(algorithm),
            Some((odd + 1, "FULL_OBJECT")),
        );
    }
    add(
        "etag/single.txt",
        b"no checksum but the ETag".to_vec(),
        None,
        None,
    );
    add(
        "etag/parts.bin",
        big(8),
        None,
        Some((6 * MIB + 1, "COMPOSITE")),
    );
    add(
        "names/a file with spaces.txt",
        b"spaces".to_vec(),
        Some("CRC32"),
        None,
    );
    add(
        "names/ünïcødé ☃/日本.txt",
        b"utf-8".to_vec(),
        Some("SHA256"),
        None,
    );
    plan
}

/// The status lines of a run, by name.
fn statuses(stdout: &[u8]) -> Vec<(String, String)> {
    text(stdout)
        .lines()
        .map(|line| {
            let (name, status) = line.rsplit_once(": ").unwrap_or((line, ""));
            (name.trim_matches('\'').to_string(), status.to_string())
        })
        .collect()
}

#[test]
fn a_tree_of_mixed_uploads_verifies_then_reports_exactly_what_changed() {
    let Some(server) = server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    let plan = mixed_tree(&root, "up/");
    server.upload("mixed", &plan);
    let endpoint = server.endpoint();
    let verify = |with_flag: bool| {
        let run =
            server
                .fasthash(dir.path())
                .args(["--verify-s3", "s3://mixed/up/", "tree", "--stats"]);
        match with_flag {
            true => run.args(["--endpoint-url", &endpoint]),
            false => run.env("AWS_ENDPOINT_URL", &endpoint),
        }
        .output()
    };

    let output = verify(true);
    let lines = statuses(&output.stdout);
    assert_eq!(lines.len(), plan.len(), "{}", text(&output.stdout));
    let not_ok: Vec<_> = lines.iter().filter(|(_, status)| status != "OK").collect();
    assert!(not_ok.is_empty(), "{not_ok:?}\n{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains(&format!("{} OK, 0 FAILED", plan.len())),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));

    // One file changed (same size), one deleted, one added.
    let changed = root.join("parts/composite SHA256.bin");
    let mut bytes = fs::read(&changed).unwrap();
    bytes[7 * MIB] ^= 1;
    fs::write(&changed, bytes).unwrap();
    fs::remove_file(root.join("single/CRC32C.bin")).unwrap();
    write_file(&root, "names/not uploaded.txt", b"new");
    for with_flag in [true, false] {
        let output = verify(with_flag);
        let lines = statuses(&output.stdout);
        let mut not_ok: Vec<(String, String)> = lines
            .iter()
            .filter(|(_, status)| status != "OK")
            .cloned()
            .collect();
        not_ok.sort();
        let expected = [
            ("tree/names/not uploaded.txt", "NEW"),
            ("tree/parts/composite SHA256.bin", "FAILED"),
            ("tree/single/CRC32C.bin", "MISSING"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(name, status)| (name.to_string(), status.to_string()))
            .collect();
        assert_eq!(
            not_ok,
            expected,
            "flag {with_flag}: {}",
            text(&output.stdout)
        );
        assert_eq!(lines.len(), plan.len() + 1);
        assert_eq!(output.status.code(), Some(1));
        let stderr = text(&output.stderr);
        assert!(
            stderr.contains("1 FAILED, 0 unreadable, 1 MISSING, 1 NEW, 0 cannot verify"),
            "{stderr}"
        );
    }

    // --json: one object a line, in the audit's shapes.
    let output = server.verify(
        dir.path(),
        &["--verify-s3", "s3://mixed/up/", "tree", "--json"],
    );
    assert_eq!(output.status.code(), Some(1));
    let objects: Vec<Value> = text(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect();
    let summary = objects.last().unwrap();
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["status"], "FAILED");
    assert_eq!(summary["ok"], plan.len() as u64 - 2);
    assert_eq!(
        (&summary["failed"], &summary["missing"], &summary["new"]),
        (&json!(1), &json!(1), &json!(1))
    );
    assert_eq!(summary["manifests"][0]["manifest"], "s3://mixed/up/");
    assert_eq!(summary["tree"], "tree");
    let failed = objects.iter().find(|o| o["status"] == "FAILED").unwrap();
    assert_eq!(failed["object"], "s3://mixed/up/parts/composite SHA256.bin");
    let fields = failed["fields"].as_array().unwrap();
    assert!(fields.iter().any(|f| f["status"] == "FAILED"), "{failed}");
    let new = objects.iter().find(|o| o["status"] == "NEW").unwrap();
    assert!(new.get("object").is_none());
    let ok_parts = objects
        .iter()
        .find(|o| o["name"] == "tree/parts/composite CRC32C.bin")
        .unwrap();
    let part_sizes: Vec<&Value> = ok_parts["fields"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f.get("part_size"))
        .collect();
    assert!(part_sizes.iter().all(|size| **size == 5 * MIB + 12_345));
    assert!(!part_sizes.is_empty(), "{ok_parts}");
}

#[test]
fn one_object_against_one_file() {
    let Some(server) = server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let bytes = random_bytes(11 * MIB + 3, 42);
    write_file(dir.path(), "local.bin", &bytes);
    let path = dir.path().join("local.bin");
    server.upload(
        "single",
        &[
            item(
                "composite",
                &path,
                Some("SHA256"),
                Some((5 * MIB + 7, "COMPOSITE")),
            ),
            item(
                "full",
                &path,
                Some("CRC64NVME"),
                Some((5 * MIB, "FULL_OBJECT")),
            ),
            item("plain", &path, None, None),
        ],
    );
    let endpoint = server.endpoint();
    for key in ["composite", "full", "plain"] {
        let url = format!("s3://single/{key}");
        for with_flag in [true, false] {
            let run = server
                .fasthash(dir.path())
                .args(["--verify-s3", &url, "local.bin"]);
            let output = match with_flag {
                true => run.args(["--endpoint-url", &endpoint]),
                false => run.env("AWS_ENDPOINT_URL", &endpoint),
            }
            .output();
            let stdout = text(&output.stdout);
            assert_eq!(
                output.status.code(),
                Some(0),
                "{key}: {stdout}{}",
                text(&output.stderr)
            );
            assert!(stdout.ends_with("local.bin: OK\n"), "{key}: {stdout}");
            assert!(stdout.contains("ETag: OK"), "{key}: {stdout}");
        }
    }
    let composite = server.verify(
        dir.path(),
        &[
            "--verify-s3",
            "s3://single/composite",
            "local.bin",
            "--json",
        ],
    );
    let verdict: Value = serde_json::from_slice(&composite.stdout).unwrap();
    assert_eq!(verdict["object"], "s3://single/composite");
    assert_eq!(verdict["status"], "OK");
    let sha = &verdict["fields"][1];
    assert_eq!(sha["checksum_type"], "COMPOSITE");
    assert_eq!(sha["part_count"], 3);
    assert_eq!(sha["part_size"], 5 * MIB + 7);

    // The same object against another file: the size, the checksum and the ETag differ.
    write_file(dir.path(), "other.bin", random_bytes(11 * MIB + 3, 43));
    let output = server.verify(
        dir.path(),
        &["--verify-s3", "s3://single/composite", "other.bin"],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stdout).ends_with("other.bin: FAILED\n"));
}

/// Small files uploaded by boto3 under `bucket`/`k/`, `count` of them in 7 directories
/// (`many/d0` to `many/d6`), each with one of four checksums; the tree's directory.
fn many_objects(server: &Server, bucket: &str, count: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("many");
    let plan: Vec<Value> = (0..count)
        .map(|index| {
            let name = format!("d{}/file {index:04}.txt", index % 7);
            write_file(&root, &name, format!("object {index}\n").repeat(index % 50));
            let algorithm = ["CRC32", "CRC64NVME", "SHA256", "SHA1"][index % 4];
            item(
                &format!("k/{name}"),
                &root.join(&name),
                Some(algorithm),
                None,
            )
        })
        .collect();
    server.upload(bucket, &plan);
    dir
}

#[test]
fn a_prefix_of_more_objects_than_one_listing_page() {
    let Some(server) = server() else { return };
    // S3 lists 1,000 keys a page: these take two.
    let dir = many_objects(server, "thousand", 1001);
    let output = server.verify(dir.path(), &["--verify-s3", "s3://thousand/k/", "many"]);
    let lines = statuses(&output.stdout);
    assert_eq!(lines.len(), 1001);
    assert!(lines.iter().all(|(_, status)| status == "OK"));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
}

/// Where the system refuses every thread (`ulimit -u 1` as an unprivileged user, as
/// `refused_threads_lose_nothing` of `tests/pipeline.rs` runs the other modes under 3, which
/// leaves the client its thread), a prefix and one object are verified with the output of a
/// run without the limit: the requests are made on the calling thread when their own is
/// refused, and names (`localhost`) looked up there. Both had panicked: the thread refused to
/// `std::thread::scope`, the lookup to tokio's blocking pool.
#[test]
fn refused_threads_verify_a_bucket_as_a_run_without_limits_does() {
    let Some(server) = server() else { return };
    let dir = many_objects(server, "limited", 40);
    common::open_to_everyone(dir.path());
    let by_name = format!("http://localhost:{}", server.port);
    let one = "many/d1/file 0001.txt";
    for endpoint in [server.endpoint(), by_name] {
        for what in [
            ["s3://limited/k/", "many"],
            ["s3://limited/k/d1/file 0001.txt", one],
        ] {
            let run = |run: Run| {
                run.args(["--verify-s3", what[0], what[1], "--endpoint-url", &endpoint])
                    .timeout(std::time::Duration::from_secs(120))
                    .output()
            };
            let unlimited = run(server.fasthash(dir.path()));
            assert_eq!(
                unlimited.status.code(),
                Some(0),
                "{}",
                text(&unlimited.stderr)
            );
            let Some(limited) = server.fasthash(dir.path()).process_limit(1).unprivileged() else {
                return;
            };
            let limited = run(limited);
            let shown = format!("{endpoint} {what:?} under ulimit -u 1");
            common::assert_same_output(&shown, &limited, &unlimited);
        }
    }
}

#[test]
fn filters_and_ignore_missing_leave_out_objects() {
    let Some(server) = server() else { return };
    let dir = many_objects(server, "filtered", 70);
    let verify = |extra: &[&str]| {
        let prefix = ["--verify-s3", "s3://filtered/k/", "many"];
        server.verify(dir.path(), &[&prefix[..], extra].concat())
    };
    // Filters leave out files and their objects alike.
    let filtered = verify(&["--exclude", "d3"]);
    assert_eq!(statuses(&filtered.stdout).len(), 70 - 10);
    assert_eq!(filtered.status.code(), Some(0));
    // An object with no file is missing; with --ignore-missing, left out.
    fs::remove_dir_all(dir.path().join("many/d4")).unwrap();
    let missing = verify(&[]);
    assert_eq!(missing.status.code(), Some(1));
    let statuses_missing = statuses(&missing.stdout);
    assert_eq!(statuses_missing.len(), 70);
    let missing_names: Vec<_> = statuses_missing
        .iter()
        .filter(|(_, status)| status == "MISSING")
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(missing_names.len(), 10);
    assert!(
        missing_names.iter().all(|name| name.contains("d4/")),
        "{missing_names:?}"
    );
    let ignored = verify(&["--ignore-missing"]);
    assert_eq!(ignored.status.code(), Some(0), "{}", text(&ignored.stderr));
    assert_eq!(statuses(&ignored.stdout).len(), 70 - 10);
}

#[test]
fn parts_of_several_sizes_are_said_to_differ() {
    let Some(server) = server() else { return };
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "f", random_bytes(17 * MIB, 9));
    // 5 MiB, then 6 MiB, then the last 6 MiB: part 1 does not cut the file into 3 parts.
    let mut upload = item(
        "uneven",
        &dir.path().join("f"),
        Some("SHA256"),
        Some((5 * MIB, "COMPOSITE")),
    );
    upload["part_sizes"] = json!([5 * MIB, 6 * MIB, 6 * MIB]);
    server.upload("uneven", &[upload]);
    let output = server.verify(dir.path(), &["--verify-s3", "s3://uneven/uneven", "f"]);
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains("ChecksumSHA256: cannot verify (the parts differ in size"),
        "{stdout}"
    );
    assert!(
        stdout.contains("ETag: cannot verify (the parts differ in size"),
        "{stdout}"
    );
    assert!(stdout.ends_with("f: FAILED\n"), "{stdout}");
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn an_etag_of_sse_kms_cannot_be_verified_and_says_why() {
    let Some(server) = server() else { return };
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "kms/etag only", b"encrypted");
    write_file(dir.path(), "kms/with crc", b"encrypted, with a checksum");
    let mut plan = vec![
        item("etag only", &dir.path().join("kms/etag only"), None, None),
        item(
            "with crc",
            &dir.path().join("kms/with crc"),
            Some("CRC32"),
            None,
        ),
    ];
    for upload in &mut plan {
        upload["sse"] = json!("aws:kms");
    }
    server.upload("encrypted", &plan);
    let output = server.verify(dir.path(), &["--verify-s3", "s3://encrypted/", "kms"]);
    assert_eq!(
        text(&output.stdout),
        "'kms/etag only': cannot verify (encrypted with SSE-KMS: its ETag is not an MD5)\n\
         'kms/with crc': OK\n"
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr)
        .contains("1 OK, 0 FAILED, 0 unreadable, 0 MISSING, 0 NEW, 1 cannot verify"));
    let one = server.verify(
        dir.path(),
        &["--verify-s3", "s3://encrypted/with crc", "kms/with crc"],
    );
    assert!(text(&one.stdout).contains("ETag: cannot verify (encrypted with SSE-KMS"));
    assert_eq!(one.status.code(), Some(0), "the checksum matched");
}

/// Runs fasthash on `url` and asserts one line on standard error holding `words`, and a
/// failing exit status.
fn assert_one_clear_line(run: Run, words: &str) {
    let output = run.output();
    let stderr = text(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(words), "expected {words:?} in {stderr:?}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(output.status.code(), Some(0));
    assert!(output.stdout.is_empty(), "{}", text(&output.stdout));
}

#[test]
fn failures_are_one_clear_line() {
    let Some(server) = server() else { return };
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "f", b"data");
    fs::create_dir(dir.path().join("d")).unwrap();
    let endpoint = server.endpoint();
    server.upload("exists", &[item("k", &dir.path().join("f"), None, None)]);
    let at = |what: &[&str]| {
        server
            .fasthash(dir.path())
            .args(["--verify-s3"])
            .args(what)
            .args(["--endpoint-url", &endpoint])
    };
    assert_one_clear_line(at(&["s3://no-such-bucket/k", "f"]), "no such bucket");
    assert_one_clear_line(at(&["s3://no-such-bucket/p/", "d"]), "no such bucket");
    assert_one_clear_line(at(&["s3://exists/no-such-key", "f"]), "no such key");

    // Nothing listens on a port just freed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let closed = format!("http://127.0.0.1:{port}");
    for what in [["s3://exists/k", "f"], ["s3://exists/", "d"]] {
        let run = server.fasthash(dir.path()).args([
            "--verify-s3",
            what[0],
            what[1],
            "--endpoint-url",
            &closed,
        ]);
        assert_one_clear_line(run, &format!("cannot reach {closed}"));
    }

    // No credentials anywhere.
    let run = isolated(fasthash(dir.path())).args([
        "--verify-s3",
        "s3://exists/k",
        "f",
        "--endpoint-url",
        &endpoint,
    ]);
    assert_one_clear_line(run, "no AWS credentials");
}

#[test]
fn wrong_credentials_are_one_clear_line() {
    let Some(server) = checking_server() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "f", b"checked");
    fs::create_dir(dir.path().join("d")).unwrap();
    server.upload(
        "guarded",
        &[item("k", &dir.path().join("f"), Some("CRC32"), None)],
    );
    let endpoint = server.endpoint();
    let good = server
        .fasthash(dir.path())
        .args([
            "--verify-s3",
            "s3://guarded/k",
            "f",
            "--endpoint-url",
            &endpoint,
        ])
        .output();
    assert_eq!(good.status.code(), Some(0), "{}", text(&good.stderr));
    for what in [["s3://guarded/k", "f"], ["s3://guarded/", "d"]] {
        let run = server
            .fasthash(dir.path())
            .env("AWS_SECRET_ACCESS_KEY", "not-the-secret")
            .args(["--verify-s3", what[0], what[1], "--endpoint-url", &endpoint]);
        assert_one_clear_line(run, "S3 refused the credentials");
    }
}

#[test]
fn without_the_feature_s3_urls_are_refused_clearly() {
    if cfg!(feature = "s3") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "f", b"x");
    let output = fasthash(dir.path())
        .args(["--verify-s3", "s3://bucket/key", "f"])
        .output();
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("built without S3 access"));
}
