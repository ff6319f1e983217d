//! The pipeline: recursion, filters, name lists, every read path giving the same digest,
//! stable order whatever the thread count, and files that change while they are hashed.

use crate::common;

use common::{
    faketime, fasthash, make_fifo, pattern, program, random_bytes, repo_path, text, write_file,
};
use fasthash::io::read::{hash_file, MmapChoice, ReadOptions, MAPPED_WINDOW};
use fasthash::kernels::engine::Split;
use fasthash::kernels::{hash, table, Algorithm};
use std::fs::{self, File};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

/// Around the read paths' edges: empty, one buffer, the mapping threshold, window multiples.
const SIZES: &[usize] = &[
    0,
    1,
    256 * 1024,
    256 * 1024 + 1,
    4 * 1024 * 1024 - 1,
    4 * 1024 * 1024,
    8 * 1024 * 1024 + 1,
    24 * 1024 * 1024 + 3,
];

/// Whether a file of several windows takes a path of its own under `algorithm`: every engine
/// that splits a file across cores does, in its own way; the others are all fed the same
/// windows in order, so two of them (of different block sizes) stand for the rest there.
fn reads_its_own_way(algorithm: Algorithm) -> bool {
    table::chosen(algorithm).split != Split::Whole
        || matches!(algorithm, Algorithm::Sha256 | Algorithm::Xxh3)
}

#[test]
fn every_read_path_gives_the_one_shot_digest() {
    let dir = tempfile::tempdir().unwrap();
    let data = random_bytes(*SIZES.last().unwrap(), 7);
    for &size in SIZES {
        let path = dir.path().join(format!("f{size}"));
        fs::write(&path, &data[..size]).unwrap();
        for algorithm in Algorithm::all().filter(|&a| size <= MAPPED_WINDOW || reads_its_own_way(a))
        {
            let expected = hash(algorithm, &data[..size]);
            for mmap in [MmapChoice::Auto, MmapChoice::Always, MmapChoice::Never] {
                for split_files in [false, true] {
                    let options = ReadOptions { mmap, split_files };
                    let got = hash_file(File::open(&path).unwrap(), algorithm, &options).unwrap();
                    assert_eq!(
                        got, expected,
                        "{algorithm} of {size} bytes, {mmap:?}, split {split_files}"
                    );
                }
            }
        }
    }
}

/// BLAKE3 splits a large file over the cores a group (128 MiB) at a time, each group released
/// while the next is hashed: a file of more than two groups, with bytes written across their
/// edges (the rest a hole, read as zeros), against the blake3 crate over the same bytes.
#[test]
fn blake3_of_several_groups_is_the_crates_digest() {
    use std::os::unix::fs::FileExt;
    const GROUP: u64 = 128 * 1024 * 1024;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("groups");
    let file = File::create(&path).unwrap();
    let len = 2 * GROUP + 1000;
    file.set_len(len).unwrap();
    let marks = random_bytes(4096, 13);
    for at in [0, GROUP - 2048, 2 * GROUP - 2048, len - 4096] {
        file.write_all_at(&marks, at).unwrap();
    }
    let expected = blake3::hash(&fs::read(&path).unwrap());
    for split_files in [true, false] {
        let options = ReadOptions {
            mmap: MmapChoice::Auto,
            split_files,
        };
        let got = hash_file(File::open(&path).unwrap(), Algorithm::Blake3, &options).unwrap();
        assert_eq!(got.as_bytes(), expected.as_bytes(), "split {split_files}");
    }
}

/// A tree with nested directories, hidden files, awkward names and a file large enough to be
/// mapped and split.
fn make_tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut add = |relative: &str, content: Vec<u8>| {
        write_file(root, relative, &content);
        files.push((relative.to_string(), content));
    };
    for i in 0..150 {
        add(
            &format!("d{}/sub{}/file {i}", i % 7, i % 3),
            random_bytes(i * 997, i as u64),
        );
    }
    add(".hidden/h", b"hidden".to_vec());
    add("big/large.bin", random_bytes(9 * 1024 * 1024 + 5, 99));
    add("a.b", b"dot".to_vec());
    add("a/c", b"slash".to_vec());
    add("-dash", b"dash".to_vec());
    files
}

#[test]
fn recursion_hashes_every_file_in_the_same_order_for_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let files = make_tree(dir.path());
    for algorithm in ["sha256", "crc32c", "blake3"] {
        let one = fasthash(dir.path())
            .args(["-r", "-j", "1", "-a", algorithm, "."])
            .output();
        assert_eq!(one.status.code(), Some(0), "{}", text(&one.stderr));
        // One reader and one thread: everything on one thread, file after file.
        for stages in [
            &["-j", "8"][..],
            &["-j", "1", "--readers", "1"],
            &["-j", "3", "--readers", "2"],
        ] {
            let many = fasthash(dir.path())
                .args(stages)
                .args(["-r", "-a", algorithm, "."])
                .output();
            assert_eq!(
                one.stdout, many.stdout,
                "{algorithm}: -j 1 and {stages:?} differ"
            );
        }
        let lines: Vec<String> = text(&one.stdout).lines().map(str::to_string).collect();
        assert_eq!(lines.len(), files.len());
        // Every file once, with its own digest.
        let parsed = Algorithm::from_name(algorithm).unwrap();
        for (relative, content) in &files {
            let expected = format!("{}  ./{relative}", hash(parsed, content).to_hex());
            assert!(lines.contains(&expected), "missing {expected}");
        }
        // Sorted by name within each directory: `a` and everything under it before `a.b`.
        let position = |name: &str| lines.iter().position(|l| l.ends_with(name)).unwrap();
        assert!(position("  ./.hidden/h") < position("  ./a/c"));
        assert!(position("  ./a/c") < position("  ./a.b"));
        assert!(position("d0/sub0/file 0") < position("d0/sub0/file 105"));
    }
}

/// Files hashed side by side are read, or mapped (from 128 KiB on one thread, every size
/// with `--mmap`): a batch that mixes both, on every thread count and mapping choice,
/// gives each file its own digest.
#[test]
fn files_side_by_side_read_or_mapped_give_their_own_digests() {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<(String, Vec<u8>)> = (0..40)
        .map(|i| {
            // 100 KiB to 600 KiB, on each side of 128 KiB, and not whole blocks.
            let len = 100 * 1024 + i * 12_841 + i % 3;
            let name = format!("f{i:02}");
            let content = random_bytes(len, 1000 + i as u64);
            write_file(dir.path(), &name, &content);
            (name, content)
        })
        .collect();
    for algorithm in ["md5", "sha1", "sha256", "sha512"] {
        let parsed = Algorithm::from_name(algorithm).unwrap();
        let expected: String = files
            .iter()
            .map(|(name, content)| format!("{}  ./{name}\n", hash(parsed, content).to_hex()))
            .collect();
        for flags in [
            &["-j", "1"][..],
            &["-j", "1", "--readers", "1"],
            &["-j", "2"],
            &["-j", "8"],
            &["-j", "1", "--mmap"],
            &["-j", "1", "--no-mmap"],
        ] {
            let output = fasthash(dir.path())
                .args(flags)
                .args(["-r", "-a", algorithm, "."])
                .output();
            assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
            assert_eq!(text(&output.stdout), expected, "{algorithm} {flags:?}");
        }
    }
}

#[test]
fn excludes_and_includes_filter_files_and_directories() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "src/main.rs",
        "src/lib.rs",
        "src/notes.txt",
        "target/out.rs",
        "docs/x.md",
    ] {
        write_file(dir.path(), name, name);
    }
    let names = |args: &[&str]| -> Vec<String> {
        let mut full = vec!["-r"];
        full.extend_from_slice(args);
        full.push(".");
        let output = fasthash(dir.path()).args(&full).output();
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        text(&output.stdout)
            .lines()
            .map(|l| l.split_once("  ./").unwrap().1.to_string())
            .collect()
    };
    assert_eq!(
        names(&["--exclude", "target", "--exclude", "*.txt"]),
        ["docs/x.md", "src/lib.rs", "src/main.rs"]
    );
    assert_eq!(
        names(&["--include", "*.rs"]),
        ["src/lib.rs", "src/main.rs", "target/out.rs"]
    );
    assert_eq!(
        names(&["--include", "*.rs", "--exclude", "target"]),
        ["src/lib.rs", "src/main.rs"]
    );
    assert_eq!(names(&["--include", "docs"]), ["docs/x.md"]);
    assert_eq!(
        names(&["--exclude", "src/*.rs"]),
        ["docs/x.md", "src/notes.txt", "target/out.rs"]
    );

    // The same filters apply to the names a manifest lists.
    let manifest = fasthash(dir.path()).args(["-r", "."]).output();
    fs::write(dir.path().join("SUMS"), &manifest.stdout).unwrap();
    fs::write(dir.path().join("target/out.rs"), "changed").unwrap();
    let check = fasthash(dir.path()).args(["-c", "SUMS"]).output();
    assert_eq!(check.status.code(), Some(1));
    let check = fasthash(dir.path())
        .args(["-c", "--exclude", "target", "SUMS"])
        .output();
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stdout));
    assert!(!text(&check.stdout).contains("out.rs"));

    let bad = fasthash(dir.path())
        .args(["--exclude", "a[", "-r", "."])
        .output();
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("invalid glob"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn files_from_and_files0_from_read_names_as_gnu_does() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("one"), b"1").unwrap();
    fs::write(dir.path().join("two words"), b"2").unwrap();
    fs::write(dir.path().join("new\nline"), b"3").unwrap();
    let direct = fasthash(dir.path())
        .args(["one", "two words", "new\nline"])
        .output();
    assert_eq!(direct.status.code(), Some(0));

    fs::write(dir.path().join("list0"), b"one\0two words\0new\nline\0").unwrap();
    let listed = fasthash(dir.path())
        .args(["--files0-from", "list0"])
        .output();
    assert_eq!(listed.status.code(), Some(0), "{}", text(&listed.stderr));
    assert_eq!(listed.stdout, direct.stdout);

    fs::write(dir.path().join("list"), b"one\ntwo words\n").unwrap();
    let listed = fasthash(dir.path()).args(["--files-from", "list"]).output();
    let expected = fasthash(dir.path()).args(["one", "two words"]).output();
    assert_eq!(listed.stdout, expected.stdout);

    let from_stdin = fasthash(dir.path())
        .args(["--files0-from", "-"])
        .stdin(b"one\0two words\0new\nline\0")
        .output();
    assert_eq!(from_stdin.stdout, direct.stdout);

    // An empty name is an error of its entry, as `wc --files0-from` reports it; the other
    // names are hashed, and the status says something failed.
    fs::write(dir.path().join("gaps0"), b"\0one\0two words\0\0new\nline\0").unwrap();
    let gaps = fasthash(dir.path())
        .args(["--files0-from", "gaps0"])
        .output();
    assert_eq!(gaps.stdout, direct.stdout);
    assert_eq!(
        text(&gaps.stderr),
        "fasthash: gaps0:1: invalid zero-length file name\n\
         fasthash: gaps0:4: invalid zero-length file name\n"
    );
    assert_eq!(gaps.status.code(), Some(1));

    let missing = fasthash(dir.path())
        .args(["--files-from", "no-such-list"])
        .output();
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(
        text(&missing.stderr),
        "fasthash: no-such-list: No such file or directory\n"
    );
    let operand = fasthash(dir.path())
        .args(["--files0-from", "list0", "one"])
        .output();
    assert_eq!(operand.status.code(), Some(2));
    assert!(text(&operand.stderr).contains("extra operand"));
}

#[test]
fn procfs_files_and_fifos_are_read_as_streams() {
    let dir = tempfile::tempdir().unwrap();
    let version = fs::read("/proc/version").unwrap();
    assert!(!version.is_empty());
    let output = fasthash(dir.path())
        .args(["-a", "md5", "--mmap", "/proc/version"])
        .output();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        format!(
            "{}  /proc/version\n",
            hash(Algorithm::Md5, &version).to_hex()
        )
    );

    // A sysfs attribute claims 4096 bytes and cannot be mapped (ENODEV): `--mmap` reads it,
    // where the failed mapping had been reported as the file's error. The same with the S3
    // parts, which map a file themselves.
    let attribute = Path::new("/sys/kernel/mm/transparent_hugepage/enabled");
    match fs::read(attribute) {
        Ok(content) => {
            for args in [&["--mmap"][..], &["--mmap", "--s3", "-a", "sha256"]] {
                let output = fasthash(dir.path()).args(args).arg(attribute).output();
                assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
                let digest = hash(Algorithm::Sha256, &content);
                let expected = match args.len() {
                    1 => format!("{}  {}\n", digest.to_hex(), attribute.display()),
                    _ => format!("{}  {}\n", digest.to_base64(), attribute.display()),
                };
                assert_eq!(text(&output.stdout), expected, "{args:?}");
            }
        }
        Err(e) => eprintln!("skipped: sysfs attribute: {}: {e}", attribute.display()),
    }

    let fifo = make_fifo(dir.path(), "fifo");
    let data = random_bytes(3 * 1024 * 1024 + 11, 5);
    let writer = {
        let fifo = fifo.clone();
        let data = data.clone();
        std::thread::spawn(move || {
            let mut pipe = fs::OpenOptions::new().write(true).open(fifo).unwrap();
            pipe.write_all(&data).unwrap();
        })
    };
    let output = fasthash(dir.path()).args(["--mmap", "fifo"]).output();
    writer.join().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        format!("{}  fifo\n", hash(Algorithm::Sha256, &data).to_hex())
    );
}

/// Starts fasthash with `options` on a sparse file big enough to take a while, truncates the
/// file under it, and expects the file reported as changed (exit 1, no signal) and the other
/// file's line as `small_line` says.
fn truncated_while_hashed(options: &[&str], small_line: impl Fn(&Path) -> String) {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big");
    File::create(&big)
        .unwrap()
        .set_len(6 * 1024 * 1024 * 1024)
        .unwrap();
    fs::write(dir.path().join("small"), b"small").unwrap();
    let child = fasthash(dir.path())
        .args(["-j", "1"])
        .args(options)
        .args(["big", "small"])
        .spawn();
    std::thread::sleep(Duration::from_millis(300));
    File::options()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(4096)
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "{options:?}: killed by a signal or wrong status: {:?} {}",
        output.status,
        text(&output.stderr)
    );
    assert_eq!(
        text(&output.stderr),
        "fasthash: big: file changed as we read it\n"
    );
    assert_eq!(text(&output.stdout), small_line(dir.path()));
}

fn sha256_line(_: &Path) -> String {
    format!("{}  small\n", hash(Algorithm::Sha256, b"small").to_hex())
}

#[test]
fn a_file_truncated_while_mapped_is_reported_not_fatal() {
    truncated_while_hashed(&["-a", "sha256", "--mmap"], sha256_line);
}

#[test]
fn a_file_truncated_while_read_is_reported() {
    truncated_while_hashed(&["-a", "sha256", "--no-mmap"], sha256_line);
}

/// The same while the parts of an S3 multipart upload are hashed, with the ETag's part MD5s:
/// mapped (parts side by side in lanes, where the engines have them) and read. The small
/// file's line is what the same options print for it alone.
#[test]
fn a_file_truncated_while_its_s3_parts_are_hashed_is_reported() {
    for mmap in ["--mmap", "--no-mmap"] {
        let options = [
            "-a",
            "sha256",
            "--s3",
            "--etag",
            "--part-size",
            "8388608",
            mmap,
        ];
        truncated_while_hashed(&options, |dir| {
            let alone = fasthash(dir).args(options).arg("small").output();
            assert!(alone.status.success(), "{}", text(&alone.stderr));
            text(&alone.stdout)
        });
    }
}

#[test]
fn no_progress_bar_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("sparse");
    File::create(&big)
        .unwrap()
        .set_len(2 * 1024 * 1024 * 1024)
        .unwrap();
    // Long enough that a bar would be drawn after its first second on a terminal; whether it
    // lasted that long is not asserted (a faster machine is no failure).
    let output = fasthash(dir.path())
        .args(["-a", "sha256", "sparse"])
        .output();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(text(&output.stderr), "");
    let line = text(&output.stdout);
    assert!(
        line.ends_with("  sparse\n") && line.len() == 64 + 2 + 7,
        "{line}"
    );
}

#[test]
fn names_are_bytes_under_recursion() {
    let dir = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9 back\\slash");
    fs::write(dir.path().join(name), b"x").unwrap();
    let ours = fasthash(dir.path()).args(["-r", "."]).output();
    let theirs = program("sha256sum", dir.path())
        .arg(Path::new(".").join(name))
        .output();
    assert_eq!(ours.stdout, theirs.stdout);
}

/// `files` files of random bytes (100 bytes to 7 KiB) under `tree/`, spread over
/// `directories` directories.
fn random_tree(files: usize, directories: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for index in 0..files {
        let content = random_bytes(100 + index % 7000, index as u64);
        let name = format!("tree/d{:02}/f{index:04}", index % directories);
        write_file(dir.path(), name, content);
    }
    dir
}

/// However low the descriptor limit and however many threads, no file is lost: a batch takes
/// its descriptors from a budget sized to the limit, and an open that finds none free waits
/// for one. Run in a child whose shell lowered `ulimit -n` (soft and hard) to 64, beside 64
/// hashing threads that would hold 16 files each for the lanes; and to 4, where one
/// descriptor beside the standard streams is all the walk and the readers share (a directory
/// the walk could not open for want of it is walked again once it is free).
#[test]
fn a_low_descriptor_limit_loses_no_file() {
    let dir = random_tree(3000, 30);
    for algorithm in ["sha256", "md5", "xxh3", "blake3"] {
        let unlimited = fasthash(dir.path())
            .args(["-r", "-a", algorithm, "tree"])
            .output();
        assert_eq!(unlimited.status.code(), Some(0));
        assert_eq!(text(&unlimited.stdout).lines().count(), 3000);
        for limit in ["64", "16", "4"] {
            let limited = fasthash(dir.path())
                .shell(&format!("ulimit -n {limit};"), "")
                .args(["-r", "-j", "64", "-a", algorithm, "tree"])
                .output();
            let what = format!("{algorithm}, ulimit -n {limit}");
            assert_eq!(text(&limited.stderr), "", "{what}");
            assert_eq!(limited.status.code(), Some(0), "{what}");
            assert_eq!(limited.stdout, unlimited.stdout, "{what}");
        }
        fs::write(dir.path().join("SUMS"), &unlimited.stdout).unwrap();
        let checked = fasthash(dir.path())
            .shell("ulimit -n 64;", "")
            .args(["-j", "64", "-a", algorithm, "-c", "SUMS"])
            .output();
        assert_eq!(text(&checked.stderr), "", "{algorithm} -c");
        assert_eq!(checked.status.code(), Some(0), "{algorithm} -c");
        let statuses = text(&checked.stdout);
        assert_eq!(statuses.lines().count(), 3000);
        assert!(statuses.lines().all(|line| line.ends_with(": OK")));
    }
}

/// `-j` far above the cores starts no more hashing threads than help (the cores, or 256 where
/// that is more): 65,535 rayon threads looking for work in each other's queues had not hashed
/// 40 small files after 16 minutes on 2 cores. The answer is the same as on one thread, in
/// every mode that reads files through the pool, and the b3sum name's `--num-threads` too.
#[test]
fn a_huge_thread_count_hashes_as_one_thread_does() {
    let dir = random_tree(40, 4);
    let run = |args: &[&str]| {
        fasthash(dir.path())
            .args(args)
            .timeout(Duration::from_secs(120))
            .output()
    };
    for mode in [
        &["-r", "-a", "sha256", "tree"][..],
        &["-r", "-a", "blake3", "-a", "md5", "tree"],
    ] {
        let one = run(&[&["-j", "1"][..], mode].concat());
        assert_eq!(one.status.code(), Some(0), "{}", text(&one.stderr));
        let algorithms = mode.iter().filter(|&&arg| arg == "-a").count();
        assert_eq!(text(&one.stdout).lines().count(), 40 * algorithms);
        let many = run(&[&["-j", "65535"][..], mode].concat());
        assert_eq!(text(&many.stderr), "", "{mode:?}");
        assert_eq!(many.status.code(), Some(0), "{mode:?}");
        assert_eq!(many.stdout, one.stdout, "{mode:?}");
    }
    // A file large enough for b3sum's pool (it maps and splits from 16 KiB).
    write_file(dir.path(), "big", random_bytes(1 << 20, 40));
    let names: Vec<String> = (0..40)
        .map(|index| format!("tree/d{:02}/f{index:04}", index % 4))
        .chain(["big".to_string()])
        .collect();
    let b3sum = |threads: &str| {
        fasthash(dir.path())
            .called("b3sum")
            .args(["--num-threads", threads])
            .args(&names)
            .timeout(Duration::from_secs(120))
            .output()
    };
    let (one, many) = (b3sum("1"), b3sum("65535"));
    assert_eq!(one.status.code(), Some(0), "{}", text(&one.stderr));
    assert_eq!(many.status.code(), Some(0), "{}", text(&many.stderr));
    assert_eq!(many.stdout, one.stdout);
}

/// Where the system refuses threads (`ulimit -u`, a container's `pids.max`, an address space
/// too small for `-j`'s stacks), fasthash hashes on what it is given, down to its own thread:
/// every mode that shares work between threads prints what it prints unlimited, where
/// rayon's pool, refused a thread, had panicked (exit 101, no output). `ulimit -u` binds an
/// unprivileged user only, so as root (CI) the runs are `nobody`'s.
#[test]
fn refused_threads_lose_nothing() {
    let dir = random_tree(200, 4);
    // A file BLAKE3 splits over the threads, which b3sum's pool takes too.
    write_file(dir.path(), "tree/big", random_bytes(3 << 20, 7));
    let sums = fasthash(dir.path())
        .args(["-r", "-a", "sha256", "tree"])
        .output();
    fs::write(dir.path().join("SUMS"), &sums.stdout).unwrap();
    common::open_to_everyone(dir.path());
    let big = ["tree/big", "tree/d00/f0000"];
    // Under an emulator (qemu-user, for the Arm tests) the limit binds the emulator too, whose
    // own allocations for 64 threads fail in a gigabyte: there that part is left out.
    let squeeze = "ulimit -v 1000000;";
    let squeezable = !common::emulated();
    if !squeezable {
        eprintln!("skipped: ulimit -v 1000000 under an emulator, which needs more itself");
    }
    let modes: [(Option<&str>, Vec<&str>); 6] = [
        (None, vec!["-r", "-a", "sha256", "tree"]),
        (None, vec!["-r", "-a", "blake3", "-a", "md5", "tree"]),
        (None, vec!["-a", "blake3", "tree/big"]),
        (None, vec!["-c", "SUMS"]),
        (Some("sha256sum"), vec!["-c", "SUMS"]),
        (Some("b3sum"), big.to_vec()),
    ];
    for (name, args) in &modes {
        let named = |run: common::Run| match name {
            Some(name) => run.called(name),
            None => run,
        };
        let unlimited = named(fasthash(dir.path())).args(args).output();
        assert_eq!(unlimited.status.code(), Some(0), "{args:?}");
        let Some(limited) = named(fasthash(dir.path())).process_limit(3).unprivileged() else {
            return;
        };
        let limited = limited
            .args(args)
            .timeout(Duration::from_secs(120))
            .output();
        let what = format!("{name:?} {args:?} under ulimit -u 3");
        assert_eq!(text(&limited.stderr), "", "{what}");
        assert_eq!(limited.status.code(), Some(0), "{what}");
        assert_eq!(limited.stdout, unlimited.stdout, "{what}");
        if !squeezable {
            continue;
        }
        // 64 threads' stacks, readers and malloc's arenas in a gigabyte of address space.
        let threads = match name {
            None => &["-j", "64"][..],
            Some("b3sum") => &["--num-threads", "64"],
            Some(_) => &[],
        };
        let squeezed = named(fasthash(dir.path()))
            .shell(squeeze, "")
            .args([threads, args].concat())
            .timeout(Duration::from_secs(120))
            .output();
        let what = format!("{name:?} {threads:?} {args:?} under ulimit -v 1000000");
        assert_eq!(text(&squeezed.stderr), "", "{what}");
        assert_eq!(squeezed.status.code(), Some(0), "{what}");
        assert_eq!(squeezed.stdout, unlimited.stdout, "{what}");
    }
}

/// S3's values and `--cache` under the lowest limits that leave them room: each S3 value
/// hashes its file itself (no copy of its descriptor, which had lost 414 of 3,000 files
/// under `ulimit -n 8`), and the cache is written with one descriptor beside its directory's
/// (its directory's sync had needed a third).
#[test]
fn s3_values_and_the_cache_lose_nothing_under_a_low_descriptor_limit() {
    let dir = random_tree(600, 12);
    let s3 = [
        "-r",
        "-j",
        "64",
        "--s3",
        "-a",
        "crc32,sha256",
        "--etag",
        "--part-size",
        "5MiB",
        "tree",
    ];
    let unlimited = fasthash(dir.path()).args(s3).output();
    assert_eq!(unlimited.status.code(), Some(0));
    assert_eq!(text(&unlimited.stdout).lines().count(), 1200);
    for limit in ["8", "4"] {
        let limited = fasthash(dir.path())
            .shell(&format!("ulimit -n {limit};"), "")
            .args(s3)
            .output();
        assert_eq!(text(&limited.stderr), "", "--s3, ulimit -n {limit}");
        assert_eq!(limited.status.code(), Some(0), "--s3, ulimit -n {limit}");
        assert_eq!(limited.stdout, unlimited.stdout, "--s3, ulimit -n {limit}");
    }
    // The cache keeps only files last changed more than two seconds before: these runs have
    // their clock three seconds ahead.
    let Some(faketime) = faketime() else { return };
    let plain = fasthash(dir.path()).args(["-r", "tree"]).output();
    let cached = ["-r", "-j", "64", "--cache", "CACHE", "--debug", "tree"];
    let rounds = [
        ("written", "0 files unchanged, taken from it; 600 hashed"),
        ("read", "600 files unchanged, taken from it; 0 hashed"),
    ];
    for (round, says) in rounds {
        // libfaketime holds two descriptors of its own: 7 leaves fasthash the two that
        // `ulimit -n 5` would. Its monotonic clock is left alone: faked, it stopped the
        // waits of a process out of descriptors from ever timing out.
        let limited = fasthash(dir.path())
            .clock_ahead(&faketime, 3)
            .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
            .shell("ulimit -n 7;", "")
            .args(cached)
            .output();
        let said = text(&limited.stderr);
        assert!(said.contains(says), "--cache {round}: {said}");
        assert!(!said.contains("warning"), "--cache {round}: {said}");
        assert_eq!(limited.status.code(), Some(0), "--cache {round}");
        assert_eq!(limited.stdout, plain.stdout, "--cache {round}");
    }
}

/// A check whose manifest holds the last descriptor (`ulimit -n 4`) can open none of the
/// files it lists, and none of its own will close: it reports each as `sha256sum -c` does
/// under the same limit, and ends, where it used to wait on the batch's own descriptors for
/// ever.
#[test]
fn a_check_left_no_descriptor_reports_each_file_as_coreutils_does() {
    let dir = tempfile::tempdir().unwrap();
    for index in 0..40 {
        write_file(
            dir.path(),
            format!("f{index:02}"),
            pattern(100 * index, 3, index),
        );
    }
    let sums = fasthash(dir.path()).arg("-r").arg(".").output();
    assert_eq!(sums.status.code(), Some(0));
    fs::write(dir.path().join("SUMS"), &sums.stdout).unwrap();
    let theirs = program("sha256sum", dir.path())
        .shell("ulimit -n 4;", "")
        .args(["-c", "SUMS"])
        .output();
    let ours = fasthash(dir.path())
        .shell("ulimit -n 4;", "")
        .args(["-c", "SUMS"])
        .output();
    assert_eq!(theirs.status.code(), Some(1));
    assert_eq!(ours.status.code(), Some(1));
    assert_eq!(text(&ours.stdout), text(&theirs.stdout));
    assert_eq!(text(&ours.stdout).lines().count(), 40);
    assert_eq!(
        text(&ours.stderr).replace("fasthash:", "sha256sum:"),
        text(&theirs.stderr)
    );
}

/// Files read through a file system that answers each open and read 2 ms late, as a network
/// one does (the FUSE fixture tests/fixtures/slowfs.py), hash as they do where they lie: with
/// the default threads and readers, with one thread, and with everything on one thread, every
/// line is the one hashing the source prints.
#[test]
fn files_through_a_high_latency_file_system_hash_as_on_disk() {
    let Some(fixture) = SlowFs::available() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for index in 0..200 {
        // Sizes about 4 KiB, not all equal, in a few directories, as a small-file tree has; and
        // one larger file, read in windows asked for ahead.
        let content = pattern(4000 + index * 3, 7, index);
        write_file(
            dir.path(),
            format!("source/d{}/f{index:03}", index % 4),
            content,
        );
    }
    write_file(
        dir.path(),
        "source/large",
        random_bytes(5 * 1024 * 1024 + 3, 5),
    );
    let on_disk = fasthash(dir.path())
        .args(["-r", "-a", "sha256", "source"])
        .output();
    assert_eq!(on_disk.status.code(), Some(0), "{}", text(&on_disk.stderr));
    let expected: Vec<String> = text(&on_disk.stdout)
        .lines()
        .map(|line| line.replacen("  source/", "  mount/", 1))
        .collect();
    assert_eq!(expected.len(), 201);

    for stages in [&[][..], &["-j", "1"], &["-j", "1", "--readers", "1"]] {
        // A mount a run: a new mount has nothing cached, so every read reaches the fixture.
        let output = fixture.run_mounted(
            &dir.path().join("source"),
            &dir.path().join("mount"),
            &["--delay-ms", "2"],
            fasthash(dir.path())
                .args(stages)
                .args(["-r", "-a", "sha256", "mount"]),
        );
        let what = format!("through FUSE, {stages:?}");
        assert_eq!(text(&output.stderr), "", "{what}: stderr");
        assert_eq!(output.status.code(), Some(0), "{what}: exit code");
        let stdout = text(&output.stdout);
        assert_eq!(
            stdout.lines().collect::<Vec<_>>(),
            expected,
            "{what}: lines"
        );
    }
}

/// A file with a page the device cannot read (a bad sector, put there by the FUSE fixture) is
/// reported with the kernel's error, as coreutils reports it, however fasthash reads it: with
/// read(2) (300,000 bytes), mapped whole (6 MiB), or mapped beside others of its size for the
/// lanes (140,000 bytes: MD5 on one thread, or with `--mmap`); named, under `-r`, and listed in
/// a manifest for `-c`. The files around it are hashed and the exit code is 1. A mapping meets
/// such a page as SIGBUS, which fasthash once took for a file that shrank, and said "file
/// changed as we read it"; and a mapping filled as it was made (MAP_POPULATE) never returned.
#[test]
fn a_file_the_device_cannot_read_is_reported_with_its_error_as_coreutils_does() {
    let Some(fixture) = SlowFs::available() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "source/a-ok", pattern(5000, 3, 1));
    write_file(
        dir.path(),
        "source/b-large",
        random_bytes(6 * 1024 * 1024 + 5, 7),
    );
    write_file(dir.path(), "source/c-small", random_bytes(300_000, 8));
    write_file(dir.path(), "source/d-ok", pattern(100_000, 5, 2));
    for index in 0..20 {
        write_file(
            dir.path(),
            format!("source/e{index:02}"),
            random_bytes(140_000 + index, 9 + index as u64),
        );
    }
    let options = [
        ["--delay-ms", "0"].as_slice(),
        &["--bad-sector", "/b-large", "5242880"],
        &["--bad-sector", "/c-small", "200000"],
        &["--bad-sector", "/e07", "70000"],
    ]
    .concat();
    let names: Vec<String> = ["a-ok", "b-large", "c-small", "d-ok"]
        .into_iter()
        .map(String::from)
        .chain((0..20).map(|index| format!("e{index:02}")))
        .map(|name| format!("mount/{name}"))
        .collect();
    // A mount a run, so that no run finds what another left in the page cache. The guard is
    // for a run that never ends: an `mmap` with MAP_POPULATE over such a page once did.
    let through_mount = |run: common::Run| {
        fixture.run_mounted(
            &dir.path().join("source"),
            &dir.path().join("mount"),
            &options,
            run.timeout(Duration::from_secs(120)),
        )
    };
    for (algorithm, stages) in [
        ("sha256", &[][..]),
        ("md5", &["-j", "1"]),
        ("md5", &["--mmap"]),
    ] {
        let peer = format!("{algorithm}sum");
        let sums = fasthash(dir.path())
            .args(["-a", algorithm, "-r", "source"])
            .output();
        let manifest = text(&sums.stdout).replace("  source/", "  mount/");
        fs::write(dir.path().join("SUMS"), manifest).unwrap();
        let check = ["-c".to_string(), "SUMS".to_string()];
        let runs: [(&str, &[String], &[String]); 3] = [
            ("named", &names, &names),
            ("-r", &["-r".to_string(), "mount".to_string()], &names),
            ("-c", &check, &check),
        ];
        for (how, ours_args, theirs_args) in runs {
            let what = format!("{algorithm} {stages:?} {how}");
            let theirs = through_mount(program(&peer, dir.path()).args(theirs_args));
            let ours = through_mount(
                fasthash(dir.path())
                    .args(stages)
                    .args(["-a", algorithm])
                    .args(ours_args),
            );
            assert_eq!(theirs.status.code(), Some(1), "{what}: {peer}");
            assert_eq!(ours.status.code(), Some(1), "{what}: exit code");
            assert_eq!(text(&ours.stdout), text(&theirs.stdout), "{what}: stdout");
            let failing = 3 * usize::from(how != "-c");
            assert_eq!(text(&ours.stdout).lines().count(), 24 - failing, "{what}");
            assert_eq!(
                text(&ours.stderr).replace("fasthash:", &format!("{peer}:")),
                text(&theirs.stderr),
                "{what}: stderr"
            );
            for name in ["b-large", "c-small", "e07"] {
                let said = format!("mount/{name}: Input/output error");
                assert!(text(&ours.stderr).contains(&said), "{what}: {said}");
            }
        }
    }
}

/// A directory whose listing fails part way (EIO from `getdents`, put there by the FUSE
/// fixture) is named in the message, as `find` names it, at any depth, the root too; the rest
/// of the tree is hashed and the exit code is 1. The walk's error for it names no path, and
/// fasthash named the directory the walk started from.
#[test]
fn a_directory_the_device_cannot_list_is_named_and_the_walk_goes_on() {
    let Some(fixture) = SlowFs::available() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "a/kept",
        "a/unlistable/lost",
        "b/c/unlistable/lost",
        "b/c/kept",
        "d",
    ] {
        write_file(dir.path(), format!("source/{name}"), name.as_bytes());
    }
    let run = |options: &[&str], walked: &str| {
        fixture.run_mounted(
            &dir.path().join("source"),
            &dir.path().join("mount"),
            &[["--delay-ms", "0"].as_slice(), options].concat(),
            fasthash(dir.path())
                .args(["-r", walked])
                .timeout(Duration::from_secs(120)),
        )
    };
    let bad = [
        "--bad-directory",
        "/a/unlistable",
        "--bad-directory",
        "/b/c/unlistable",
    ];
    let output = run(&bad, "mount");
    assert_eq!(
        text(&output.stderr),
        "fasthash: mount/a/unlistable: Input/output error\n\
         fasthash: mount/b/c/unlistable: Input/output error\n"
    );
    let stdout = text(&output.stdout);
    let hashed: Vec<&str> = stdout
        .lines()
        .map(|line| line.split_once("  ").unwrap().1)
        .collect();
    assert_eq!(hashed, ["mount/a/kept", "mount/b/c/kept", "mount/d"]);
    assert_eq!(output.status.code(), Some(1));

    let root = run(&["--bad-directory", "/b"], "mount/b");
    assert_eq!(
        text(&root.stderr),
        "fasthash: mount/b: Input/output error\n"
    );
    assert_eq!(text(&root.stdout), "");
    assert_eq!(root.status.code(), Some(1));
}

/// What the FUSE fixture needs: /dev/fuse, fusermount (Debian's fuse3) and python3 with PyPI's
/// fusepy (which loads Debian's libfuse2).
struct SlowFs {
    python: PathBuf,
    fusermount: PathBuf,
}

impl SlowFs {
    /// The fixture's needs when all are met; otherwise the test says why it skips, or fails
    /// when FASTHASH_REQUIRE_PEERS is set (CI installs them).
    fn available() -> Option<SlowFs> {
        let missing = |why: &str| -> Option<SlowFs> {
            if std::env::var_os("FASTHASH_REQUIRE_PEERS").is_some() {
                panic!("the FUSE fixture is required (FASTHASH_REQUIRE_PEERS) but {why}");
            }
            eprintln!("skipped: {why}");
            None
        };
        if !Path::new("/dev/fuse").exists() {
            return missing("/dev/fuse is missing");
        }
        let Some(fusermount) = on_path("fusermount3").or_else(|| on_path("fusermount")) else {
            return missing("fusermount is not installed (Debian's fuse3)");
        };
        let Some(python) = on_path("python3") else {
            return missing("python3 is not installed");
        };
        // Another package installs a module named `fuse` too: ask for fusepy's own names.
        let probe = program(&python, Path::new("/"))
            .args(["-c", "from fuse import FUSE, Operations"])
            .output();
        if !probe.status.success() {
            return missing("fusepy is not installed (pip install fusepy; it needs libfuse2)");
        }
        Some(SlowFs { python, fusermount })
    }

    /// Mounts `source` at `point` (made if missing) with the fixture's `options` (its delays,
    /// its bad sectors); the fixture returns once the mount is in place.
    fn mount(&self, source: &Path, point: &Path, options: &[&str]) -> Mounted {
        std::fs::create_dir_all(point).unwrap();
        let mounted = program(&self.python, Path::new("/"))
            .arg(repo_path("tests/fixtures/slowfs.py"))
            .arg(source)
            .arg(point)
            .args(options)
            .output();
        assert!(
            mounted.status.success(),
            "slowfs.py could not mount {}: {}",
            point.display(),
            text(&mounted.stderr)
        );
        Mounted {
            point: point.to_path_buf(),
            fusermount: self.fusermount.clone(),
        }
    }

    /// `run` while `source` is mounted at `point` with `options` (as [`SlowFs::mount`]), and
    /// its output; unmounted as soon as it ends, so that the next mount starts with nothing
    /// in the page cache and no test leaves a mount behind.
    fn run_mounted(
        &self,
        source: &Path,
        point: &Path,
        options: &[&str],
        run: common::Run,
    ) -> Output {
        let _mount = self.mount(source, point, options);
        run.output()
    }
}

/// A mount of the fixture, unmounted when dropped (a test that fails too), before the
/// temporary directory holding it goes; the fixture's daemon exits once unmounted.
struct Mounted {
    point: PathBuf,
    fusermount: PathBuf,
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let unmount = |lazy: bool| {
            let mut run = program(&self.fusermount, Path::new("/")).arg("-u");
            if lazy {
                run = run.arg("-z");
            }
            matches!(run.arg(&self.point).try_output(), Ok(output) if output.status.success())
        };
        // Still busy (a child of a failed run holding a file): detach it now, freed when idle.
        if !unmount(false) && !unmount(true) {
            eprintln!("could not unmount {}", self.point.display());
        }
    }
}

/// A program on PATH, found without saying anything (`peer` reports each name it misses).
fn on_path(program: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}
