//! Paths longer than the system takes in one call (PATH_MAX, 4,096 bytes): every file fasthash
//! is named, not only the files it hashes, opens at that depth; and the walk that takes over
//! below that depth follows links under `-L` as the ordinary walk does.

use crate::common;

use common::{fasthash, text};
use fasthash::kernels::{hash, Algorithm};
use std::path::Path;
use std::process::{Command, Output};

/// A directory name long enough that 25 of them nested make a path past PATH_MAX.
const LEVEL: &str = "level-of-a-deep-tree-whose-path-no-single-system-call-accepts-\
                     level-of-a-deep-tree-whose-path-no-single-system-call-accepts-\
                     level-of-a-deep-tree-whose-path-no-single-system-call-accepts";
const DEPTH: usize = 25;

/// The path, relative to the test directory, of the bottom of the deep tree under `top`.
fn deep(top: &str) -> String {
    format!("{top}{}", format!("/{LEVEL}").repeat(DEPTH))
}

/// Makes the deep tree under `top` in `dir` and runs `script` at its bottom. The shell goes
/// down one relative `cd` at a time, so no call it makes names the whole path.
fn at_the_bottom(dir: &Path, top: &str, script: &str) {
    let descend = format!(
        "mkdir {top} && cd -P {top} && for _ in $(seq {DEPTH}); do mkdir {LEVEL} && cd -P {LEVEL} \
         || exit 1; done && {script}"
    );
    build_deep_tree(dir, "sh", &descend);
}

/// Runs `script` with `interpreter -c` in `dir`, which builds a deep tree there.
fn build_deep_tree(dir: &Path, interpreter: &str, script: &str) {
    let made = Command::new(interpreter)
        .current_dir(dir)
        .args(["-c", script])
        .status()
        .unwrap();
    assert!(made.success(), "could not build the deep tree");
}

/// Exited with `code`; the whole output in the message when not.
fn assert_runs(output: &Output, code: i32, what: &str) {
    assert_eq!(output.status.code(), Some(code), "{what}: {output:?}");
}

#[test]
fn manifests_name_lists_s3_json_and_caches_open_beyond_path_max() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("data"), b"hello").unwrap();
    let sha256 = hash(Algorithm::Sha256, b"hello");
    let line = format!("{}  data", sha256.to_hex());
    let json = format!(
        r#"{{"ContentLength": 5, "ChecksumSHA256": "{}"}}"#,
        sha256.to_base64()
    );
    at_the_bottom(
        d,
        "t",
        &format!("echo '{line}' > manifest && echo data > list && echo '{json}' > head.json"),
    );
    let bottom = deep("t");
    assert!(bottom.len() > 4096);

    let checked = fasthash(d)
        .args(["-c", &format!("{bottom}/manifest")])
        .output();
    assert_runs(&checked, 0, "manifest beyond PATH_MAX");
    assert_eq!(text(&checked.stdout), "data: OK\n");

    let listed = fasthash(d)
        .args(["--files-from", &format!("{bottom}/list")])
        .output();
    assert_runs(&listed, 0, "name list beyond PATH_MAX");
    assert_eq!(text(&listed.stdout), format!("{line}\n"));

    let verified = fasthash(d)
        .args(["--verify-s3", &format!("{bottom}/head.json"), "data"])
        .output();
    assert_runs(&verified, 0, "S3 JSON beyond PATH_MAX");
    assert_eq!(
        text(&verified.stdout),
        "ContentLength: OK\nChecksumSHA256: OK\ndata: OK\n"
    );

    // Written the first time, read the second: no warning either time.
    let cache = format!("{bottom}/cache");
    for run in ["written", "read"] {
        let cached = fasthash(d).args(["--cache", &cache, "data"]).output();
        assert_runs(&cached, 0, &format!("cache beyond PATH_MAX, {run}"));
        assert_eq!(text(&cached.stderr), "", "cache {run}");
        assert_eq!(text(&cached.stdout), format!("{line}\n"));
    }
}

/// The links of the `-L` comparison: to a directory, to a file, to nothing, back to the
/// directory above (a loop), and to the walk's own start (a loop above where the deep walk
/// begins). `to_start` is the way up from the link to the walked directory.
fn links_script(to_start: &str) -> String {
    format!(
        "mkdir -p real/sub && echo a > real/a && echo b > real/sub/b && echo f > file && \
         ln -s real link && ln -s file flink && ln -s nowhere broken && ln -s .. real/up && \
         ln -s {to_start} real/start"
    )
}

#[test]
fn links_below_path_max_are_followed_as_the_ordinary_walk_follows_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("s")).unwrap();
    let shallow_script = links_script("..");
    let made = Command::new("sh")
        .current_dir(d.join("s"))
        .args(["-c", &shallow_script])
        .status()
        .unwrap();
    assert!(made.success());
    at_the_bottom(d, "t", &links_script(&"../".repeat(DEPTH + 1)));
    let bottom = deep("t");

    for follow in [false, true] {
        let options: &[&str] = if follow { &["-r", "-L"] } else { &["-r"] };
        let shallow = fasthash(d).args(options).arg("s").output();
        let deep_run = fasthash(d).args(options).arg("t").output();
        let code = if follow { 1 } else { 0 };
        assert_runs(&shallow, code, "shallow tree");
        assert_runs(&deep_run, code, "deep tree");
        let as_shallow = |bytes: &[u8]| text(bytes).replace(&bottom, "s");
        assert_eq!(as_shallow(&deep_run.stdout), text(&shallow.stdout));
        assert_eq!(as_shallow(&deep_run.stderr), text(&shallow.stderr));
    }

    let followed = fasthash(d).args(["-r", "-L", "t"]).output();
    let stderr = text(&followed.stderr).replace(&bottom, "s");
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "fasthash: s/broken: No such file or directory",
            "fasthash: s/link/start: file system loop detected; not followed",
            "fasthash: s/link/up: file system loop detected; not followed",
            "fasthash: s/real/start: file system loop detected; not followed",
            "fasthash: s/real/up: file system loop detected; not followed",
        ]
    );
}

/// A tree far deeper than PATH_MAX is walked opening each directory from the one above it,
/// not from the top: a tree 4,000 levels deep once took 5.9 million `openat` calls (3.6 s),
/// and one 30,000 deep did not end. Counted with strace: calls, not time. 3,000 levels of `a`
/// (a path of 6,000 bytes), a file at the bottom and one every 1,000 levels: what the walk
/// opens is a few calls a level, and each file is opened once from the top (about a call a
/// level above it).
#[test]
fn a_deep_tree_is_walked_one_openat_a_level() {
    let Some(strace) = common::peer("strace") else {
        return;
    };
    const LEVELS: usize = 3000;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Python goes down through descriptors: a shell's `cd` costs a call a level above.
    let descend = format!(
        "import os\n\
         os.mkdir('t'); fd = os.open('t', os.O_RDONLY)\n\
         for i in range(1, {LEVELS} + 1):\n    \
             os.mkdir('a', dir_fd=fd); below = os.open('a', os.O_RDONLY, dir_fd=fd)\n    \
             os.close(fd); fd = below\n    \
             if i % 1000 == 0: os.close(os.open(f'f{{i}}', os.O_WRONLY | os.O_CREAT, dir_fd=fd))\n\
         os.close(os.open('leaf', os.O_WRONLY | os.O_CREAT, dir_fd=fd))\n"
    );
    build_deep_tree(d, "python3", &descend);
    let counted = common::program(strace, d)
        .args(["-f", "-c", "-o", "counts", "-e", "trace=openat"])
        .arg(common::FASTHASH)
        .args(["-r", "t"])
        .output();
    assert_runs(&counted, 0, "fasthash -r under strace");
    assert_eq!(text(&counted.stdout).lines().count(), 4);
    let counts = std::fs::read_to_string(d.join("counts")).unwrap();
    let calls: usize = counts
        .lines()
        .find(|line| line.trim_end().ends_with("openat"))
        .and_then(|line| line.split_whitespace().nth(3)?.parse().ok())
        .unwrap_or_else(|| panic!("no openat count in {counts}"));
    // Four files opened from the top: about 1,000 + 2,000 + 3,000 + 3,000 calls.
    assert!(
        calls < 4 * LEVELS + 9_000 + 1_000,
        "{calls} openat calls:\n{counts}"
    );
}
