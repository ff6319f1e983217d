//! `--cache FILE`: a re-run takes digests from the cache for files whose device, inode, size,
//! modification and change times are unchanged, and hashes the others; a cache it cannot
//! trust is ignored with a warning and rewritten. `--debug` says how many came from it.

use crate::common;

use common::{faketime, fasthash, peer, program, text, write_files, Run};
use std::path::{Path, PathBuf};

/// Files, and fasthash run on them with its clock three seconds ahead: a file modified in the
/// last two seconds is not remembered, as its timestamps could still be those of a later
/// write, and these files were written just now.
struct Tree {
    dir: tempfile::TempDir,
    faketime: PathBuf,
}

impl Tree {
    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn fasthash(&self) -> Run {
        fasthash(self.path()).clock_ahead(&self.faketime, 3)
    }

    /// A run of `-r --cache CACHE data` again takes every file from the cache, and prints
    /// what `first` printed.
    fn rerun_takes_every_file_from(&self, cache: &str, first: &std::process::Output) {
        let again = self
            .fasthash()
            .args(["-r", "--cache", cache, "--debug", "data"])
            .output();
        assert_eq!(again.stdout, first.stdout);
        assert!(
            text(&again.stderr).contains("5 files unchanged, taken from it; 0 hashed"),
            "{}",
            text(&again.stderr)
        );
    }
}

/// `None` (the test skips) without libfaketime.
fn tree() -> Option<Tree> {
    let faketime = faketime()?;
    let dir = tempfile::tempdir().unwrap();
    let names: [&[u8]; 5] = [
        b"a",
        b"with space",
        b"new\nline",
        b"\xff latin",
        b"sub/deep",
    ];
    let data = dir.path().join("data");
    write_files(&data, &names, |index, _| {
        vec![index as u8 + 1; 1000 * (index + 1)]
    });
    Some(Tree { dir, faketime })
}

#[test]
fn a_second_run_takes_unchanged_files_from_the_cache_with_the_same_output() {
    let Some(tree) = tree() else { return };
    let first = tree
        .fasthash()
        .args(["-r", "--cache", "C", "--debug", "data"])
        .output();
    assert_eq!(first.status.code(), Some(0));
    assert!(
        text(&first.stderr).contains("0 files unchanged, taken from it; 5 hashed"),
        "{}",
        text(&first.stderr)
    );
    tree.rerun_takes_every_file_from("C", &first);
    // Each algorithm is remembered beside the others.
    let md5 = tree
        .fasthash()
        .args(["-r", "-a", "md5", "--cache", "C", "--debug", "data"])
        .output();
    assert!(
        text(&md5.stderr).contains("0 files unchanged"),
        "{}",
        text(&md5.stderr)
    );
    let md5_again = tree
        .fasthash()
        .args(["-r", "-a", "md5", "--cache", "C", "--debug", "data"])
        .output();
    assert_eq!(md5_again.stdout, md5.stdout);
    assert!(text(&md5_again.stderr).contains("5 files unchanged"));
    let sha256_again = tree
        .fasthash()
        .args(["-r", "--cache", "C", "--debug", "data"])
        .output();
    assert!(text(&sha256_again.stderr).contains("5 files unchanged"));
    // Written whole by a rename: nothing but the cache is left beside it.
    let left: Vec<_> = std::fs::read_dir(tree.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 2, "{left:?}");
}

#[test]
fn a_file_rewritten_with_its_size_and_time_restored_is_hashed_again() {
    let Some(tree) = tree() else { return };
    let file = tree.path().join("data/a");
    tree.fasthash()
        .args(["-r", "--cache", "C", "data"])
        .output();
    let modified = std::fs::metadata(&file).unwrap().modified().unwrap();
    // Same size, other bytes, the old modification time put back: only the change time,
    // which no user can set back, tells.
    std::fs::write(&file, vec![0xEE; 1000]).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    assert_eq!(
        std::fs::metadata(&file).unwrap().modified().unwrap(),
        modified
    );
    let output = tree
        .fasthash()
        .args(["--cache", "C", "--debug", "data/a"])
        .output();
    assert!(
        text(&output.stderr).contains("0 files unchanged, taken from it; 1 hashed"),
        "{}",
        text(&output.stderr)
    );
    if let Some(sha256sum) = peer("sha256sum") {
        let expected = program(sha256sum, tree.path()).arg("data/a").output();
        assert_eq!(output.stdout, expected.stdout);
    }
}

#[test]
fn a_damaged_cache_is_ignored_with_a_warning_and_rewritten() {
    let Some(tree) = tree() else { return };
    let good = tree
        .fasthash()
        .args(["-r", "--cache", "C", "data"])
        .output();
    let cache = tree.path().join("C");
    let mut bytes = std::fs::read(&cache).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&cache, &bytes).unwrap();
    let output = tree
        .fasthash()
        .args(["-r", "--cache", "C", "--debug", "data"])
        .output();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(output.stdout, good.stdout);
    let messages = text(&output.stderr);
    assert!(
        messages.contains("warning: ignoring the cache C: it is damaged"),
        "{messages}"
    );
    assert!(messages.contains("0 files unchanged"), "{messages}");
    let again = tree
        .fasthash()
        .args(["-r", "--cache", "C", "--debug", "data"])
        .output();
    assert!(
        text(&again.stderr).contains("5 files unchanged"),
        "{}",
        text(&again.stderr)
    );
    // Cut short: still fasthash's, so rewritten.
    std::fs::write(&cache, &bytes[..10]).unwrap();
    let output = tree
        .fasthash()
        .args(["-r", "--cache", "C", "data"])
        .output();
    assert_eq!(output.stdout, good.stdout);
    assert!(text(&output.stderr).contains("it will be rewritten"));
    assert_ne!(std::fs::read(&cache).unwrap(), &bytes[..10]);
}

/// `--cache` naming what is not a fasthash cache (another file, a FIFO, a directory, a
/// device) leaves it as it is: the run hashes every file, warns, and writes no cache. A
/// device was read without end, then replaced by a file (`--cache /dev/null`, as root).
#[test]
fn a_cache_path_that_is_not_a_cache_is_left_as_it_is() {
    let Some(tree) = tree() else { return };
    let good = tree.fasthash().args(["-r", "data"]).output();
    let foreign = b"SHA256SUMS are not a cache\n";
    std::fs::write(tree.path().join("SUMS"), foreign).unwrap();
    std::fs::create_dir(tree.path().join("directory")).unwrap();
    let fifo = common::make_fifo(tree.path(), "fifo");
    let mut cases = vec![
        ("SUMS", "it is not a fasthash cache; it is left as it is"),
        (
            "directory",
            "it is not a regular file but a directory; it is left as it is",
        ),
        (
            "fifo",
            "it is not a regular file but a FIFO; it is left as it is",
        ),
    ];
    // A null device of our own, where the tests may make one (as root).
    let device = tree.path().join("device");
    let name = std::ffi::CString::new(device.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path; makedev(1, 3) is the null device's number.
    let made = unsafe { libc::mknod(name.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    match made {
        0 => cases.push((
            "device",
            "it is not a regular file but a character device; it is left as it is",
        )),
        _ => eprintln!("skipped: a device as the cache needs mknod, which root alone may use"),
    }
    for (path, reason) in cases {
        let output = tree
            .fasthash()
            .args(["-r", "--cache", path, "data"])
            .timeout(std::time::Duration::from_secs(60))
            .output();
        assert_eq!(output.status.code(), Some(0), "{path}");
        assert_eq!(output.stdout, good.stdout, "{path}");
        assert_eq!(
            text(&output.stderr),
            format!("fasthash: warning: ignoring the cache {path}: {reason}\n"),
        );
    }
    use std::os::unix::fs::FileTypeExt;
    assert_eq!(std::fs::read(tree.path().join("SUMS")).unwrap(), foreign);
    assert!(tree.path().join("directory").is_dir());
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    if made == 0 {
        assert!(std::fs::metadata(&device)
            .unwrap()
            .file_type()
            .is_char_device());
    }
}

/// `--cache SUMS > SUMS`: the shell empties SUMS before the run, which would pass for a new
/// cache and be replaced by it, losing the lines the run writes there. The file the run's
/// lines go to is never the cache: they are all there, and no cache is written.
#[test]
fn a_cache_that_is_the_run_output_is_left_as_it_is() {
    let Some(tree) = tree() else { return };
    let good = tree.fasthash().args(["-r", "data"]).output();
    let sums = tree.path().join("SUMS");
    let output = tree
        .fasthash()
        .args(["-r", "--cache", "SUMS", "data"])
        .redirect_stdout(std::fs::File::create(&sums).unwrap())
        .output();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        text(&output.stderr),
        "fasthash: warning: ignoring the cache SUMS: it is where standard output goes; \
         it is left as it is\n"
    );
    assert_eq!(std::fs::read(&sums).unwrap(), good.stdout);
}

/// A cache named through a symbolic link is read and written where the link points: the link
/// stays, and the next run through it takes every file from the cache.
#[test]
fn a_cache_behind_a_symbolic_link_is_written_where_it_points() {
    let Some(tree) = tree() else { return };
    std::fs::create_dir(tree.path().join("caches")).unwrap();
    std::os::unix::fs::symlink("caches/C", tree.path().join("link")).unwrap();
    let first = tree
        .fasthash()
        .args(["-r", "--cache", "link", "data"])
        .output();
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let link = std::fs::symlink_metadata(tree.path().join("link")).unwrap();
    assert!(link.file_type().is_symlink());
    assert!(tree.path().join("caches/C").is_file());
    tree.rerun_takes_every_file_from("link", &first);
}

#[test]
fn check_uses_the_cache_only_when_asked() {
    let Some(tree) = tree() else { return };
    let manifest = tree
        .fasthash()
        .args(["-r", "--cache", "C", "data"])
        .output();
    std::fs::write(tree.path().join("SUMS"), &manifest.stdout).unwrap();
    let cached = tree
        .fasthash()
        .args(["-c", "SUMS", "--cache", "C", "--debug"])
        .output();
    assert_eq!(cached.status.code(), Some(0), "{cached:?}");
    assert!(
        text(&cached.stderr).contains("5 files unchanged"),
        "{}",
        text(&cached.stderr)
    );
    let plain = tree.fasthash().args(["-c", "SUMS", "--debug"]).output();
    assert_eq!(plain.status.code(), Some(0));
    assert!(
        !text(&plain.stderr).contains("cache"),
        "{}",
        text(&plain.stderr)
    );
    assert_eq!(plain.stdout, cached.stdout);
}
