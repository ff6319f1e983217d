//! Every `fasthash` command shown in README.md and docs/GUIDE.md runs and succeeds, in order
//! (the README's, then the guide's), in one directory holding the files the examples name. An
//! example that stops working fails here. Commands that ask S3 (`s3://`) are shown, not run.

use crate::common;

use common::{program, text, write_file, FASTHASH};
use std::fs;
use std::path::Path;

/// The shell lines of a document's `sh` blocks that run fasthash, continuations joined,
/// trailing comments dropped; installing, uninstalling and the benchmark scripts are left out.
fn readme_commands(readme: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut in_block = false;
    let mut pending = String::new();
    for line in readme.lines() {
        if line.starts_with("```") {
            in_block = line.trim() == "```sh";
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(start) = line.strip_suffix('\\') {
            pending.push_str(start);
            continue;
        }
        let mut full = std::mem::take(&mut pending);
        full.push_str(line);
        let command = match full.find("  #") {
            Some(at) => full[..at].trim_end().to_string(),
            None => full.trim_end().to_string(),
        };
        let runs_fasthash = command.split_whitespace().any(|word| word == "fasthash")
            || command.contains("bin/sha256sum");
        // A command of a bucket (`s3://`) needs S3: tests/s3_bucket.rs runs those forms
        // against a local S3 server.
        let excluded = [
            "cargo ",
            "install -D",
            "bench/peers.sh",
            "tests/interop",
            "s3://",
        ]
        .iter()
        .any(|skip| command.contains(skip));
        if runs_fasthash && !excluded && !command.trim_start().starts_with('#') {
            commands.push(command);
        }
    }
    commands
}

/// The commands of a document, by its path from the repository's root.
fn commands_of(document: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(document);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    readme_commands(&text)
}

#[test]
fn every_readme_example_runs() {
    // The README keeps a quick start; the guide has an example of every feature. Both run,
    // the README's first, in the one directory prepared below.
    let readme = commands_of("README.md");
    let guide = commands_of("docs/GUIDE.md");
    assert!(
        readme.len() >= 3,
        "only {} commands found in README.md",
        readme.len()
    );
    assert!(
        guide.len() >= 25,
        "only {} commands found in docs/GUIDE.md",
        guide.len()
    );
    assert!(
        readme.len() + guide.len() >= 30,
        "only {} commands found in README.md and docs/GUIDE.md",
        readme.len() + guide.len()
    );
    let commands = readme
        .iter()
        .map(|command| ("README.md", command))
        .chain(guide.iter().map(|command| ("docs/GUIDE.md", command)));

    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let big: Vec<u8> = (0..12 * 1024 * 1024u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    write_file(d, "big.iso", &big);
    write_file(d, "small.iso", b"a small image");
    for (name, content) in [
        ("notes.txt", &b"notes"[..]),
        ("photo.jpg", b"jpeg"),
        ("a.tar", b"tar a"),
        ("b.tar", b"tar b"),
        ("data.bin", b"\x00\x01\x02"),
        ("-odd-name", b"odd"),
        ("photos/one.jpg", b"1"),
        ("photos/two.jpg", b"2"),
        ("src/main.rs", b"fn main() {}"),
        ("src/lib.o", b"object"),
        ("src/.git/config", b"[core]"),
        ("target/out.rs", b"generated"),
        ("build/x", b"x"),
        ("cache/y", b"y"),
    ] {
        write_file(d, name, content);
    }
    let md5 = fasthash::kernels::hash(fasthash::kernels::Algorithm::Md5, &big).to_hex();
    let head = format!(r#"{{"ContentLength": {}, "ETag": "\"{md5}\""}}"#, big.len());
    write_file(d, "head.json", head.as_bytes());

    let bin_dir = Path::new(FASTHASH).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for (document, command) in commands {
        let output = program("sh", d)
            .arg("-c")
            .arg(command)
            .env("PATH", &path)
            .output();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{document} example failed: {command}\nstdout: {}\nstderr: {}",
            text(&output.stdout),
            text(&output.stderr)
        );
    }
}
