//! `--cache FILE`: a re-run takes digests from the cache for files whose device, inode, size,
//! modification and change times are unchanged, and hashes the others; a cache it cannot
//! trust is ignored with a warning and rewritten. `--debug` says how many came from it.

mod common;

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::Path;
use std::process::{Command, Output};

fn fasthash(dir: &Path, args: &[&str]) -> Output {
    common::fasthash_in(dir, args)
}

/// A tree of files old enough to be remembered: a file modified in the last two seconds is
/// not, as its timestamps could still be those of a later write.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (index, name) in [
        &b"a"[..],
        b"with space",
        b"new\nline",
        b"\xff latin",
        b"sub/deep",
    ]
    .iter()
    .enumerate()
    {
        let path = dir
            .path()
            .join("data")
            .join(OsString::from_vec(name.to_vec()));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, vec![index as u8 + 1; 1000 * (index + 1)]).unwrap();
    }
    std::thread::sleep(std::time::Duration::from_millis(2100));
    dir
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_second_run_takes_unchanged_files_from_the_cache_with_the_same_output() {
    let dir = tree();
    let first = fasthash(dir.path(), &["-r", "--cache", "C", "--debug", "data"]);
    assert_eq!(first.status.code(), Some(0));
    assert!(
        stderr(&first).contains("0 files unchanged, taken from it; 5 hashed"),
        "{}",
        stderr(&first)
    );
    let second = fasthash(dir.path(), &["-r", "--cache", "C", "--debug", "data"]);
    assert_eq!(second.stdout, first.stdout);
    assert!(
        stderr(&second).contains("5 files unchanged, taken from it; 0 hashed"),
        "{}",
        stderr(&second)
    );
    // Each algorithm is remembered beside the others.
    let md5 = fasthash(
        dir.path(),
        &["-r", "-a", "md5", "--cache", "C", "--debug", "data"],
    );
    assert!(
        stderr(&md5).contains("0 files unchanged"),
        "{}",
        stderr(&md5)
    );
    let md5_again = fasthash(
        dir.path(),
        &["-r", "-a", "md5", "--cache", "C", "--debug", "data"],
    );
    assert_eq!(md5_again.stdout, md5.stdout);
    assert!(stderr(&md5_again).contains("5 files unchanged"));
    let sha256_again = fasthash(dir.path(), &["-r", "--cache", "C", "--debug", "data"]);
    assert!(stderr(&sha256_again).contains("5 files unchanged"));
    // Written whole by a rename: nothing but the cache is left beside it.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 2, "{left:?}");
}

#[test]
fn a_file_rewritten_with_its_size_and_time_restored_is_hashed_again() {
    let dir = tree();
    let file = dir.path().join("data/a");
    fasthash(dir.path(), &["-r", "--cache", "C", "data"]);
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
    let output = fasthash(dir.path(), &["--cache", "C", "--debug", "data/a"]);
    assert!(
        stderr(&output).contains("0 files unchanged, taken from it; 1 hashed"),
        "{}",
        stderr(&output)
    );
    if let Some(sha256sum) = common::peer("sha256sum") {
        let expected = Command::new(sha256sum)
            .current_dir(dir.path())
            .arg("data/a")
            .output()
            .unwrap();
        assert_eq!(output.stdout, expected.stdout);
    }
}

#[test]
fn a_damaged_cache_is_ignored_with_a_warning_and_rewritten() {
    let dir = tree();
    let good = fasthash(dir.path(), &["-r", "--cache", "C", "data"]);
    let cache = dir.path().join("C");
    let mut bytes = std::fs::read(&cache).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&cache, &bytes).unwrap();
    let output = fasthash(dir.path(), &["-r", "--cache", "C", "--debug", "data"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(output.stdout, good.stdout);
    let text = stderr(&output);
    assert!(
        text.contains("warning: ignoring the cache C: it is damaged"),
        "{text}"
    );
    assert!(text.contains("0 files unchanged"), "{text}");
    let again = fasthash(dir.path(), &["-r", "--cache", "C", "--debug", "data"]);
    assert!(
        stderr(&again).contains("5 files unchanged"),
        "{}",
        stderr(&again)
    );
    // Not a cache at all.
    std::fs::write(&cache, b"SHA256SUMS are not a cache\n").unwrap();
    let output = fasthash(dir.path(), &["-r", "--cache", "C", "data"]);
    assert_eq!(output.stdout, good.stdout);
    assert!(stderr(&output).contains("ignoring the cache C"));
}

#[test]
fn check_uses_the_cache_only_when_asked() {
    let dir = tree();
    let manifest = fasthash(dir.path(), &["-r", "--cache", "C", "data"]);
    std::fs::write(dir.path().join("SUMS"), &manifest.stdout).unwrap();
    let cached = fasthash(dir.path(), &["-c", "SUMS", "--cache", "C", "--debug"]);
    assert_eq!(cached.status.code(), Some(0), "{cached:?}");
    assert!(
        stderr(&cached).contains("5 files unchanged"),
        "{}",
        stderr(&cached)
    );
    let plain = fasthash(dir.path(), &["-c", "SUMS", "--debug"]);
    assert_eq!(plain.status.code(), Some(0));
    assert!(!stderr(&plain).contains("cache"), "{}", stderr(&plain));
    assert_eq!(plain.stdout, cached.stdout);
}
