//! `--check MANIFEST --tree DIR`: a tree audited against its manifest. Added, removed,
//! renamed, truncated and touched files, awkward names, mixed algorithms, `--quiet` and
//! `--json`, each with the status line and exit code docs/GUIDE.md promises.

use crate::common;

use common::{fasthash, write_file};

/// A tree and its manifest, written by fasthash -r before anything changed.
fn audited_tree(algorithm: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in [
        (&b"data/plain"[..], &b"plain contents"[..]),
        (b"data/with space", b"spaced"),
        (b"data/new\nline", b"a newline in the name"),
        (b"data/\xff not utf-8", b"latin-1 name"),
        (b"data/sub/deep", b"deep file"),
        (b"data/to-truncate", b"this will be shorter"),
        (b"data/to-touch", b"same bytes"),
        (b"data/to-remove", b"going away"),
        (b"data/to-rename", b"moving house"),
    ] {
        write_file(dir.path(), name, content);
    }
    let manifest = fasthash(dir.path())
        .args(["-r", "-a", algorithm, "data"])
        .output();
    assert!(manifest.status.success());
    std::fs::write(dir.path().join("SUMS"), manifest.stdout).unwrap();
    dir
}

#[test]
fn an_unchanged_tree_passes_and_says_so() {
    let dir = audited_tree("sha256");
    let output = fasthash(dir.path())
        .args(["-c", "SUMS", "--tree", "data"])
        .output();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(stdout.lines().count(), 9);
    assert!(stdout.lines().all(|l| l.ends_with(": OK")), "{stdout}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("9 OK, 0 FAILED, 0 unreadable, 0 MISSING, 0 MOVED, 0 NEW"),
        "{stderr}"
    );
    // --quiet prints only problems: none.
    let quiet = fasthash(dir.path())
        .args(["-c", "--quiet", "SUMS", "--tree", "data"])
        .output();
    assert_eq!(quiet.status.code(), Some(0));
    assert!(quiet.stdout.is_empty());
}

#[test]
fn added_removed_renamed_truncated_and_touched_files_are_named() {
    for algorithm in ["sha256", "blake3", "md5", "xxh3", "crc32c"] {
        let dir = audited_tree(algorithm);
        let root = dir.path();
        write_file(root, b"data/added file", b"brand new");
        write_file(root, b"data/\xfe added", b"new and not utf-8");
        std::fs::remove_file(root.join("data/to-remove")).unwrap();
        std::fs::create_dir_all(root.join("data/elsewhere")).unwrap();
        std::fs::rename(
            root.join("data/to-rename"),
            root.join("data/elsewhere/renamed"),
        )
        .unwrap();
        std::fs::write(root.join("data/to-truncate"), b"this").unwrap();
        // Touched: same bytes, new time: still OK (a digest audit looks at contents).
        let file = std::fs::File::options()
            .write(true)
            .open(root.join("data/to-touch"))
            .unwrap();
        file.set_modified(std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(7))
            .unwrap();
        let output = fasthash(root)
            .args(["-c", "SUMS", "--tree", "data"])
            .output();
        assert_eq!(output.status.code(), Some(1), "{algorithm}: {output:?}");
        let stdout = output.stdout;
        let expected: &[&[u8]] = &[
            b"data/elsewhere/renamed: MOVED from data/to-rename\n",
            b"data/to-remove: MISSING\n",
            b"data/to-truncate: FAILED\n",
            b"data/to-touch: OK\n",
            b"'data/added file': NEW\n",
            b"'data/'$'\\376'' added': NEW\n",
            b"'data/new'$'\\n''line': OK\n",
        ];
        for line in expected {
            assert!(
                stdout.windows(line.len()).any(|w| w == *line),
                "{algorithm}: {} missing from\n{}",
                String::from_utf8_lossy(line),
                String::from_utf8_lossy(&stdout)
            );
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("6 OK, 1 FAILED, 0 unreadable, 1 MISSING, 1 MOVED, 2 NEW"),
            "{algorithm}: {stderr}"
        );
        // Only the problems with --quiet; the new files after the listed ones, in walk order.
        let quiet = fasthash(root)
            .args(["-c", "SUMS", "--tree", "data", "--quiet"])
            .output();
        let text = String::from_utf8_lossy(&quiet.stdout).into_owned();
        assert!(!text.contains(": OK"), "{text}");
        assert_eq!(text.lines().count(), 5, "{text}");
        assert!(text.lines().last().unwrap().ends_with("NEW"));
    }
}

#[test]
fn json_gives_one_object_a_file_with_its_status() {
    let dir = audited_tree("sha256");
    let root = dir.path();
    std::fs::rename(root.join("data/to-rename"), root.join("data/renamed")).unwrap();
    write_file(root, b"data/\xfe added", b"new");
    let output = fasthash(root)
        .args(["-c", "SUMS", "--tree", "data", "--json"])
        .output();
    assert_eq!(output.status.code(), Some(1));
    let objects: Vec<serde_json::Value> = output
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    // One object a file, then the summary (docs/json.md).
    assert_eq!(objects.len(), 11);
    assert!(objects[..10].iter().all(|o| o["type"] == "file"));
    assert_eq!(objects[10]["type"], "summary");
    let moved = objects.iter().find(|o| o["status"] == "MOVED").unwrap();
    assert_eq!(moved["name"], "data/renamed");
    assert_eq!(moved["from"], "data/to-rename");
    let new = objects.iter().find(|o| o["status"] == "NEW").unwrap();
    assert_eq!(new["name_base64"], "ZGF0YS/+IGFkZGVk");
    assert_eq!(objects.iter().filter(|o| o["status"] == "OK").count(), 8);
}

#[test]
fn a_mixed_manifest_audits_each_line_with_its_algorithm() {
    let dir = audited_tree("sha256");
    let root = dir.path();
    let tagged = fasthash(root)
        .args(["-a", "blake3", "--tag", "data/plain", "data/to-rename"])
        .output();
    let mut manifest = std::fs::read(root.join("SUMS")).unwrap();
    // The BLAKE3 lines replace the SHA-256 lines of the same files.
    let keep: Vec<&[u8]> = manifest
        .split(|&b| b == b'\n')
        .filter(|l| !l.ends_with(b" data/plain") && !l.ends_with(b" data/to-rename"))
        .collect();
    manifest = keep.join(&b'\n');
    manifest.extend_from_slice(&tagged.stdout);
    std::fs::write(root.join("MIXED"), manifest).unwrap();
    std::fs::rename(root.join("data/to-rename"), root.join("data/renamed")).unwrap();
    let output = fasthash(root)
        .args(["-c", "MIXED", "--tree", "data"])
        .output();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("data/renamed: MOVED from data/to-rename"),
        "{stdout}"
    );
    assert!(stdout.contains("data/plain: OK"), "{stdout}");
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn a_tree_that_is_not_a_directory_is_an_error() {
    let dir = audited_tree("sha256");
    let output = fasthash(dir.path())
        .args(["-c", "SUMS", "--tree", "nowhere"])
        .output();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("nowhere: No such file or directory"));
    let output = fasthash(dir.path())
        .args(["-c", "SUMS", "--tree", "SUMS"])
        .output();
    assert!(String::from_utf8_lossy(&output.stderr).contains("SUMS: Not a directory"));
    let output = fasthash(dir.path())
        .args(["--tree", "data", "SUMS"])
        .output();
    assert_eq!(output.status.code(), Some(2), "--tree needs --check");
}
