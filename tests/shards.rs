//! `--shard K/N` and `--merge`: N runs over the same tree, merged, give the bytes of one run,
//! whatever N and the order the shards are given in; shards of different runs, a shard twice
//! and a missing shard are refused with nothing written.

use crate::common;

use common::{fasthash, pattern, peer, program, text, write_file, FASTHASH};
use std::path::Path;

/// A tree of files of many sizes, with names that have broken checksum tools before.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("data");
    let names: Vec<Vec<u8>> = vec![
        b"plain".to_vec(),
        b"with space".to_vec(),
        b"new\nline".to_vec(),
        b"back\\slash".to_vec(),
        b"\xff\xfe not utf-8".to_vec(),
        b"empty".to_vec(),
    ];
    for (depth, sub) in ["", "a", "a/b", "c d"].iter().enumerate() {
        let folder = root.join(sub);
        std::fs::create_dir_all(&folder).unwrap();
        for (index, name) in names.iter().enumerate() {
            let seed = depth * 16 + index;
            let len = if name == b"empty" {
                0
            } else {
                (seed * 7919) % 150_000 + 1
            };
            write_file(&folder, name, pattern(len, 31, seed));
        }
    }
    dir
}

/// Runs every shard of `count`, writes each to `shard-K`, and returns their file names.
fn shards(dir: &Path, count: u32, options: &[&str]) -> Vec<String> {
    (1..=count)
        .map(|index| {
            let shard = format!("{index}/{count}");
            let mut args = options.to_vec();
            args.extend(["--shard", &shard, "data"]);
            let output = fasthash(dir).args(&args).output();
            assert_eq!(output.status.code(), Some(0), "{shard}: {output:?}");
            let name = format!("shard-{index}-of-{count}");
            std::fs::write(dir.join(&name), &output.stdout).unwrap();
            name
        })
        .collect()
}

#[test]
fn merged_shards_are_the_single_run_byte_for_byte() {
    let dir = tree();
    for options in [
        &["-r"][..],
        &["-r", "-a", "blake3", "--tag"],
        &["-r", "-a", "md5", "-z"],
        &["-r", "-a", "crc64nvme", "--exclude", "a"],
    ] {
        let single = fasthash(dir.path()).args(options).arg("data").output();
        assert_eq!(single.status.code(), Some(0));
        assert!(single.stdout.len() > 300, "{options:?}");
        for count in [1, 2, 7, 64] {
            let mut names = shards(dir.path(), count, options);
            // Given in any order: reversed here.
            names.reverse();
            let mut args = vec!["--merge"];
            args.extend(names.iter().map(String::as_str));
            let merged = fasthash(dir.path()).args(&args).output();
            assert_eq!(
                merged.status.code(),
                Some(0),
                "{options:?} {count}: {merged:?}"
            );
            assert_eq!(
                merged.stdout, single.stdout,
                "{options:?} {count} shards merged"
            );
            assert!(merged.stderr.is_empty());
        }
    }
}

#[test]
fn every_file_is_in_exactly_one_shard_and_the_bytes_are_shared_out() {
    let dir = tree();
    let single = fasthash(dir.path()).args(["-r", "data"]).output();
    let lines = single
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    let names = shards(dir.path(), 4, &["-r"]);
    let mut seen = 0;
    for name in &names {
        let text = std::fs::read(dir.path().join(name)).unwrap();
        let body: Vec<&[u8]> = text
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .collect();
        assert!(body[0].starts_with(b"# fasthash shard "), "{name}");
        // The last line counts the lines between the two.
        let last = String::from_utf8_lossy(body[body.len() - 1]);
        let end = format!(" end {} ", body.len() - 2);
        assert!(
            last.starts_with("# fasthash shard ") && last.contains(&end),
            "{last}"
        );
        // Each of four parts holds some of the 24 files: none is left idle.
        assert!(body.len() > 3, "{name}: {}", body.len());
        seen += body.len() - 2;
    }
    assert_eq!(seen, lines);
}

#[test]
fn a_shard_manifest_checks_on_its_own_with_sha256sum_and_fasthash() {
    let dir = tree();
    let names = shards(dir.path(), 3, &["-r"]);
    let checked = fasthash(dir.path()).args(["-c", &names[1]]).output();
    assert_eq!(checked.status.code(), Some(0), "{checked:?}");
    if let Some(sha256sum) = peer("sha256sum") {
        // coreutils skips lines that start with '#'; names with a newline are escaped.
        let output = program(sha256sum, dir.path())
            .args(["-c", "--strict", &names[1]])
            .output();
        assert_eq!(output.status.code(), Some(0), "{output:?}");
    }
}

#[test]
fn shards_of_different_runs_a_repeated_shard_a_missing_one_and_damaged_ones_are_refused() {
    let dir = tree();
    let names = shards(dir.path(), 3, &["-r"]);
    let refused = |args: &[&str], wanted: &str| {
        let output = fasthash(dir.path()).args(args).output();
        assert_eq!(output.status.code(), Some(1), "{args:?}: {output:?}");
        assert!(
            output.stdout.is_empty(),
            "{args:?}: wrote {:?}",
            output.stdout
        );
        let stderr = text(&output.stderr);
        assert!(stderr.contains(wanted), "{args:?}: {stderr}");
    };
    refused(&["--merge", &names[0], &names[2]], "missing shard 2/3");
    refused(
        &["--merge", &names[0], &names[1], &names[1], &names[2]],
        "overlaps",
    );
    // Another algorithm, another number of parts, a tree that changed.
    let md5 = fasthash(dir.path())
        .args(["-r", "-a", "md5", "--shard", "2/3", "data"])
        .output();
    std::fs::write(dir.path().join("md5-2"), md5.stdout).unwrap();
    refused(&["--merge", &names[0], "md5-2", &names[2]], "another run");
    let of_four = fasthash(dir.path())
        .args(["-r", "--shard", "2/4", "data"])
        .output();
    std::fs::write(dir.path().join("four-2"), of_four.stdout).unwrap();
    refused(
        &["--merge", &names[0], "four-2", &names[2]],
        "different numbers of parts",
    );
    std::fs::write(dir.path().join("data/plain"), b"grown since").unwrap();
    let changed = fasthash(dir.path())
        .args(["-r", "--shard", "2/3", "data"])
        .output();
    std::fs::write(dir.path().join("changed-2"), changed.stdout).unwrap();
    refused(
        &["--merge", &names[0], "changed-2", &names[2]],
        "another run",
    );
    // A shard cut short: mid-line (a full disk), at a line's end (an interrupted run, which
    // writes whole lines), or with its last line alone lost; a line changed; lines lost.
    let second = std::fs::read(dir.path().join(&names[1])).unwrap();
    let lines: Vec<&[u8]> = second.split_inclusive(|&b| b == b'\n').collect();
    assert!(lines.len() >= 4, "{}", lines.len());
    let last = lines.len() - 1;
    let cut_short = "it does not end with the line --shard writes last";
    let mut changed_line = lines[1].to_vec();
    changed_line[0] ^= 1;
    for (damaged, wanted) in [
        (second[..second.len() - 1].to_vec(), cut_short),
        (lines[..last - 1].concat(), cut_short),
        (lines[..last].concat(), cut_short),
        (
            [&lines[..1], &[&changed_line[..]], &lines[2..]]
                .concat()
                .concat(),
            "its lines are not the bytes its run wrote",
        ),
        (
            [&lines[..1], &lines[2..]].concat().concat(),
            "it was changed or damaged since",
        ),
    ] {
        std::fs::write(dir.path().join("damaged-2"), damaged).unwrap();
        refused(&["--merge", &names[0], "damaged-2", &names[2]], wanted);
    }
    // A manifest that is not a shard.
    let plain = fasthash(dir.path()).args(["-r", "data"]).output();
    std::fs::write(dir.path().join("plain-manifest"), plain.stdout).unwrap();
    refused(&["--merge", "plain-manifest"], "not a shard manifest");
}

#[test]
fn shard_refuses_what_it_cannot_cut_the_same_way_everywhere() {
    let dir = tree();
    for (args, wanted) in [
        (&["--shard", "0/3", "data"][..], "not a shard K/N"),
        (&["--shard", "4/3", "data"], "not a shard K/N"),
        (&["--shard", "1/3"], "not standard input"),
        (&["--shard", "1/3", "-c", "x"], "does not combine"),
        (
            &["--shard", "1/3", "--s3", "-a", "crc32", "data"],
            "does not combine",
        ),
        (&["--merge"], "--merge needs"),
    ] {
        let output = fasthash(dir.path()).args(args).output();
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
        let stderr = text(&output.stderr);
        assert!(stderr.contains(wanted), "{args:?}: {stderr}");
    }
}

/// The GNU parallel command of docs/GUIDE.md ("Shards"), run with the real `parallel`.
#[test]
fn gnu_parallel_runs_the_shards_and_merge_gives_the_single_run() {
    let Some(parallel) = peer("parallel") else {
        return;
    };
    let dir = tree();
    let single = fasthash(dir.path())
        .args(["-r", "-a", "blake3", "data"])
        .output();
    let output = program(parallel, dir.path())
        .env("FASTHASH", FASTHASH)
        .args([
            "--will-cite",
            "-j",
            "4",
            "$FASTHASH -r -a blake3 --shard {}/4 data > part-{}",
            ":::",
            "1",
            "2",
            "3",
            "4",
        ])
        .output();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    // The parts named by the shell's glob, as the guide's command names them.
    let merged = fasthash(dir.path())
        .arg("--merge")
        .shell("", "part-*")
        .output();
    assert_eq!(merged.status.code(), Some(0), "{merged:?}");
    assert_eq!(merged.stdout, single.stdout);
}
