//! `--check` reads its manifest as a stream: each line is verified, and its status written,
//! before the next line is needed. So an endless manifest still ends the run as soon as the
//! output fails, and a manifest fed slowly through a pipe is answered line by line. Every
//! run here has a deadline, so a regression fails the test instead of hanging it.

use crate::common;

use common::{least_address_space, text, Run, FASTHASH};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(30);

/// The empty file `f`, the drop-in names as links to fasthash, and a manifest line for each.
fn setup() -> (tempfile::TempDir, Vec<(&'static str, String)>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f"), b"").unwrap();
    for name in ["cksum", "md5sum", "sha256sum", "b2sum", "b3sum"] {
        std::os::unix::fs::symlink(FASTHASH, dir.path().join(name)).unwrap();
    }
    let lines = vec![
        (
            "cksum",
            "SHA256 (f) = e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
                .to_string(),
        ),
        (
            "md5sum",
            "d41d8cd98f00b204e9800998ecf8427e  f\n".to_string(),
        ),
        (
            "sha256sum",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  f\n".to_string(),
        ),
        ("b2sum", format!("{}  f\n", blake2b_512_of_nothing())),
        (
            "b3sum",
            "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262  f\n".to_string(),
        ),
        (
            "fasthash",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  f\n".to_string(),
        ),
    ];
    (dir, lines)
}

fn blake2b_512_of_nothing() -> &'static str {
    "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419\
     d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce"
}

/// fasthash, or its link called `name` in `dir` run by that path (which its messages name).
fn called(dir: &Path, name: &str) -> Run {
    let path = if name == "fasthash" {
        FASTHASH.into()
    } else {
        dir.join(name)
    };
    common::program(path, dir).env("LC_ALL", "C")
}

/// Feeds `line` to the child's standard input over and over until it stops reading.
fn feed_forever(child: &mut Child, line: String) -> std::thread::JoinHandle<()> {
    let mut stdin = child.stdin.take().unwrap();
    std::thread::spawn(move || {
        let block = line.repeat(64);
        while stdin.write_all(block.as_bytes()).is_ok() {}
    })
}

/// Waits for the child to exit; its exit code and standard error. A child that has not exited
/// by the deadline is killed and the test fails: a guard against hanging CI, not a measure of
/// time (what is asserted is how the child ended).
fn wait_or_kill(mut child: Child, what: &str) -> (Option<i32>, String) {
    let pid = child.id() as libc::pid_t;
    let mut stderr_pipe = child.stderr.take().unwrap();
    let (sender, exited) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let status = child.wait().unwrap();
        let _ = sender.send(());
        status
    });
    let hung = exited.recv_timeout(DEADLINE).is_err();
    if hung {
        // SAFETY: kill(2) on our own child, which had not exited within the deadline.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let status = waiter.join().unwrap();
    let mut stderr = String::new();
    stderr_pipe.read_to_string(&mut stderr).unwrap();
    assert!(!hung, "{what}: still running after {DEADLINE:?}");
    (status.code(), stderr)
}

/// `name -c` on an endless manifest of `line`, its output to `stdout`: its exit code and
/// standard error.
fn check_endless(
    dir: &Path,
    name: &str,
    line: String,
    stdout: impl Into<Stdio>,
) -> (Option<i32>, String) {
    let mut child = called(dir, name)
        .arg("-c")
        .redirect_stdin(Stdio::piped())
        .redirect_stdout(stdout)
        .spawn();
    let feeder = feed_forever(&mut child, line);
    let result = wait_or_kill(child, name);
    feeder.join().unwrap();
    result
}

#[test]
fn an_endless_manifest_ends_with_a_write_error_when_output_is_full() {
    let (dir, lines) = setup();
    for (name, line) in lines {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let (code, stderr) = check_endless(dir.path(), name, line, full);
        assert_eq!(code, Some(1), "{name}: {stderr}");
        // The program is named as it was called (a path, for the links).
        let wanted = format!("{name}: write error: No space left on device\n");
        assert!(
            stderr.ends_with(&wanted) && stderr.lines().count() == 1,
            "{name}: {stderr}"
        );
    }
}

#[test]
fn an_endless_manifest_ends_quietly_when_the_reader_goes_away() {
    let (dir, lines) = setup();
    for (name, line) in lines {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let (code, stderr) = check_endless(dir.path(), name, line, writer);
        assert_eq!(code, Some(1), "{name}: {stderr}");
        assert_eq!(stderr, "", "{name}");
    }
}

#[test]
fn each_line_is_answered_before_the_next_one_arrives() {
    let (dir, lines) = setup();
    for (name, line) in lines {
        let mut child = called(dir.path(), name)
            .arg("-c")
            .redirect_stdin(Stdio::piped())
            .spawn();
        let mut stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (sender, statuses) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for status in stdout.lines() {
                if sender.send(status.unwrap()).is_err() {
                    break;
                }
            }
        });
        for _ in 0..3 {
            stdin.write_all(line.as_bytes()).unwrap();
            stdin.flush().unwrap();
            match statuses.recv_timeout(DEADLINE) {
                Ok(status) => assert_eq!(status, "f: OK", "{name}"),
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!("{name}: no status while the manifest stays open: {e}");
                }
            }
        }
        drop(stdin);
        let (code, stderr) = wait_or_kill(child, name);
        reader.join().unwrap();
        assert_eq!((code, stderr.as_str()), (Some(0), ""), "{name}");
    }
}

/// Lines before a failed read of the manifest are checked and reported; the failure ends that
/// manifest without its summary, as coreutils ends it (a directory read as a manifest fails
/// at once).
#[test]
fn a_manifest_that_cannot_be_read_is_a_read_error() {
    let (dir, _) = setup();
    std::fs::create_dir(dir.path().join("d")).unwrap();
    let output = called(dir.path(), "sha256sum").args(["-c", "d"]).output();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        format!(
            "{}: d: read error\n",
            dir.path().join("sha256sum").display()
        )
    );
}

/// Under the address-space limit coreutils' write-errors.sh sets, a check of many lines ends
/// with the write error, and a walk with many threads hashes every file: the readers and
/// hashing threads started are only those that fit (a thread that cannot be started, or
/// starts without room for its stacks, must never panic).
#[test]
fn a_limited_address_space_still_checks_and_hashes() {
    let (dir, lines) = setup();
    let limit = format!(
        "ulimit -v {};",
        least_address_space(|| called(dir.path(), "cksum").arg("--version")) + 12_000
    );
    let (_, line) = lines.iter().find(|(name, _)| *name == "cksum").unwrap();
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let manifest = dir.path().join("many.manifest");
    std::fs::write(&manifest, line.repeat(5000)).unwrap();
    let checked = called(dir.path(), "cksum")
        .arg("--check")
        .shell(&limit, "")
        .redirect_stdin(std::fs::File::open(&manifest).unwrap())
        .redirect_stdout(full)
        .output();
    let stderr = text(&checked.stderr);
    assert_eq!(checked.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.ends_with("cksum: write error: No space left on device\n")
            && stderr.lines().count() == 1,
        "{stderr}"
    );
    for index in 0..300 {
        std::fs::write(dir.path().join(format!("f{index:03}")), index.to_string()).unwrap();
    }
    let unlimited = called(dir.path(), "fasthash")
        .args(["-a", "md5", "-r", "."])
        .output();
    for threads in ["1", "64"] {
        let limited = called(dir.path(), "fasthash")
            .args(["-j", threads, "-a", "md5", "-r", "."])
            .shell(&limit, "")
            .output();
        assert_eq!(text(&limited.stderr), "", "-j {threads}");
        assert_eq!(limited.status.code(), Some(0), "-j {threads}");
        assert_eq!(limited.stdout, unlimited.stdout, "-j {threads}");
    }
}

/// A line longer than any checksum line can be (a disk image given to `-c` by mistake) is an
/// improperly formatted line, as in coreutils, and is read through in bounded memory: under an
/// address space 64 MB above what the program needs to start, a 100 MiB line, which had been
/// kept whole (and aborted the run there), is followed by the lines after it.
#[test]
fn a_line_longer_than_any_checksum_line_is_improperly_formatted_in_bounded_memory() {
    let (dir, lines) = setup();
    let (_, line) = lines.iter().find(|(name, _)| *name == "sha256sum").unwrap();
    let mut manifest = vec![b'a'; 100 << 20];
    manifest.push(b'\n');
    manifest.extend_from_slice(line.as_bytes());
    std::fs::write(dir.path().join("long.sums"), &manifest).unwrap();
    drop(manifest);
    let limit = format!(
        "ulimit -v {};",
        least_address_space(|| called(dir.path(), "cksum").arg("--version")) + 64_000
    );
    let checked = called(dir.path(), "sha256sum")
        .args(["-c", "-w", "--strict", "long.sums"])
        .shell(&limit, "")
        .timeout(DEADLINE)
        .output();
    assert_eq!(text(&checked.stdout), "f: OK\n");
    let stderr = text(&checked.stderr);
    // The program names itself by the path it was run by.
    assert!(
        stderr.contains("sha256sum: long.sums: 1: improperly formatted SHA256 checksum line\n")
            && stderr.ends_with("sha256sum: WARNING: 1 line is improperly formatted\n")
            && stderr.lines().count() == 2,
        "{stderr}"
    );
    assert_eq!(checked.status.code(), Some(1), "{stderr}");
}
