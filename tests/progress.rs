//! The progress bar as a terminal receives it (standard error on a pseudo-terminal, read from
//! its master side), and `--stats`'s closing line in every mode that has it.
//!
//! A FIFO stands in for a slow file: the test decides when its bytes come and when it ends, so
//! the bar is on screen exactly while the test looks, and a signal lands mid-hash.

use crate::common;

use common::{fasthash, make_fifo, text, write_file};
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Clears the bar's line and puts the cursor at column 0.
const ERASE: &[u8] = b"\r\x1b[K";

/// A pseudo-terminal of `columns` columns: the child gets its slave side as standard error,
/// and everything written there is collected from the master side by a thread.
struct Terminal {
    slave: Option<OwnedFd>,
    seen: Arc<Mutex<Vec<u8>>>,
    reader: Option<JoinHandle<()>>,
}

impl Terminal {
    fn open(columns: u16) -> Terminal {
        let (mut master, mut slave) = (-1, -1);
        let size = libc::winsize {
            ws_row: 24,
            ws_col: columns,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: openpty writes two descriptors into the integers it is given and reads the
        // window size; the name and termios pointers may be null.
        let opened = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                &size,
            )
        };
        assert_eq!(opened, 0, "openpty: {}", std::io::Error::last_os_error());
        // Close-on-exec, as every descriptor std opens: without it a program another test
        // starts while this one runs inherits both, and one run under `ulimit -n 4` then had
        // no descriptor left to load its libraries. The child here gets the terminal as its
        // standard streams, copies that keep no such flag.
        for fd in [master, slave] {
            // SAFETY: fcntl on a descriptor just opened; F_SETFD only sets its flags.
            assert_eq!(
                unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) },
                0
            );
        }
        // SAFETY: both descriptors were just opened and are owned by nothing else.
        let (master, slave) =
            unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        // Raw mode: the bytes arrive as written (no newline translation).
        // SAFETY: termios is plain data; tcgetattr fills it, cfmakeraw edits it.
        unsafe {
            let mut modes: libc::termios = std::mem::zeroed();
            libc::tcgetattr(std::os::fd::AsRawFd::as_raw_fd(&slave), &mut modes);
            libc::cfmakeraw(&mut modes);
            libc::tcsetattr(
                std::os::fd::AsRawFd::as_raw_fd(&slave),
                libc::TCSANOW,
                &modes,
            );
        }
        let seen = Arc::new(Mutex::new(Vec::new()));
        let reader = {
            let seen = Arc::clone(&seen);
            let mut master = File::from(master);
            std::thread::spawn(move || {
                let mut buffer = [0u8; 4096];
                // Ends with EIO once every slave descriptor is closed (the child exited).
                while let Ok(n @ 1..) = master.read(&mut buffer) {
                    seen.lock().unwrap().extend_from_slice(&buffer[..n]);
                }
            })
        };
        Terminal {
            slave: Some(slave),
            seen,
            reader: Some(reader),
        }
    }

    /// The slave side for the child's standard error (ours is closed, so the master sees the
    /// end when the child exits).
    fn stderr(&mut self) -> Stdio {
        Stdio::from(self.slave.take().expect("one child a terminal"))
    }

    /// Waits until the terminal has received something `ready` accepts.
    fn wait_for(&self, what: &str, ready: impl Fn(&[u8]) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let seen = self.seen.lock().unwrap().clone();
            if ready(&seen) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "no {what} on the terminal; its last bytes: {:?}",
                text(&seen[seen.len().saturating_sub(300)..])
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Everything the terminal received, once the child is gone.
    fn finish(mut self) -> Vec<u8> {
        drop(self.slave.take());
        self.reader.take().unwrap().join().unwrap();
        let seen = self.seen.lock().unwrap();
        seen.clone()
    }
}

/// The bar's lines as drawn: each `\r LINE \x1b[K`, without the erasures.
fn drawn_lines(seen: &[u8]) -> Vec<String> {
    text(seen)
        .split('\r')
        .filter_map(|piece| piece.strip_suffix("\x1b[K"))
        .filter(|line| !line.is_empty())
        .map(str::to_string)
        .collect()
}

/// Feeds a FIFO: opened once the child opens it to read, then a megabyte a write.
fn feed(path: &Path) -> File {
    let mut writer = File::options().write(true).open(path).unwrap();
    writer.write_all(&vec![7u8; 1 << 20]).unwrap();
    writer
}

/// fasthash hashing the FIFO `name` in `dir` with its standard error on `terminal`.
fn hash_fifo(dir: &Path, args: &[&str], name: &str, terminal: &mut Terminal) -> Child {
    fasthash(dir)
        .args(args)
        .arg(name)
        .redirect_stderr(terminal.stderr())
        .spawn()
}

#[test]
fn the_bar_names_the_file_being_hashed_fitted_to_the_width_in_decimal_units() {
    let dir = tempfile::tempdir().unwrap();
    let name = "a-long-directory-name/and-another-level-below-it/the-file-being-hashed.fifo";
    let path = make_fifo(dir.path(), name);
    let mut terminal = Terminal::open(60);
    // No --progress: the terminal alone brings the bar, after a second.
    let child = hash_fifo(dir.path(), &["-a", "crc32c"], name, &mut terminal);
    let mut writer = feed(&path);
    // Some of the first megabyte hashed (the last of it may wait in the read buffer for more).
    let decimal_bytes = |line: &str| line.contains(" kB/0 B+") || line.contains(" MB/0 B+");
    terminal.wait_for("bar naming the file, bytes done", |seen| {
        drawn_lines(seen)
            .iter()
            .any(|line| line.contains("hashed.fifo") && decimal_bytes(line))
    });
    writer.write_all(&vec![7u8; 1 << 20]).unwrap();
    drop(writer);
    let output = child.wait_with_output().unwrap();
    let seen = terminal.finish();
    assert_eq!(output.status.code(), Some(0), "{}", text(&seen));
    assert!(text(&output.stdout).ends_with(&format!("  {name}\n")));

    let lines = drawn_lines(&seen);
    let named: Vec<&String> = lines.iter().filter(|l| l.contains("hashed.fifo")).collect();
    assert!(!named.is_empty(), "{lines:?}");
    for line in &named {
        // The end of the name after the mark, the whole line narrower than the terminal.
        let (_, shown) = line.split_once('…').expect("the name is shortened");
        assert!(name.ends_with(shown), "{line:?}");
        assert!(
            line.chars().count() <= 59,
            "{line:?} is wider than 59 columns"
        );
        // Decimal units, as `fasthash bench` counts (`kB`, `MB`, never `KiB`, `MiB`); a
        // FIFO's size is unknown: `0 B+`, at least nothing.
        assert!(line.contains("/0 B+"), "{line:?}");
        assert!(line.contains("B/s"), "{line:?}");
        assert!(!line.contains("iB"), "{line:?}");
    }
    assert!(seen.ends_with(ERASE), "the bar is left: {:?}", text(&seen));
}

#[test]
fn control_characters_in_the_name_are_escaped_on_the_bar() {
    let dir = tempfile::tempdir().unwrap();
    let name = "bad\x1b]0;title\x07name";
    let path = make_fifo(dir.path(), name);
    let mut terminal = Terminal::open(120);
    let child = hash_fifo(dir.path(), &["--progress"], name, &mut terminal);
    let writer = feed(&path);
    terminal.wait_for("bar naming the file", |seen| {
        drawn_lines(seen).iter().any(|line| line.contains("name'"))
    });
    drop(writer);
    child.wait_with_output().unwrap();
    let seen = terminal.finish();
    let lines = drawn_lines(&seen);
    let named = lines.iter().find(|l| l.contains("name'")).unwrap();
    assert!(
        named.ends_with("'bad'$'\\033'']0;title'$'\\a''name'"),
        "{named:?}"
    );
    // The only escape sequences on the terminal are the bar's own.
    assert!(!text(&seen).replace("\x1b[K", "").contains('\x1b'));
}

/// Sends `signal` while the bar is on screen: the process ends with 128 + signal, the bar
/// erased, and the erasure is the last thing on the terminal.
fn interrupted(signal: libc::c_int) {
    let dir = tempfile::tempdir().unwrap();
    let path = make_fifo(dir.path(), "slow.fifo");
    let mut terminal = Terminal::open(80);
    let child = hash_fifo(dir.path(), &["--progress"], "slow.fifo", &mut terminal);
    let writer = feed(&path);
    // Mid-hash: some bytes done, more to come.
    terminal.wait_for("bar with bytes done", |seen| {
        drawn_lines(seen)
            .iter()
            .any(|line| !line.starts_with("0 B/"))
    });
    // SAFETY: kill sends a signal to the child we started; it touches no memory.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
    let output = child.wait_with_output().unwrap();
    drop(writer);
    let seen = terminal.finish();
    assert_eq!(output.status.code(), Some(128 + signal));
    assert!(
        seen.ends_with(ERASE),
        "the bar is left after signal {signal}: {:?}",
        text(&seen[seen.len().saturating_sub(120)..])
    );
}

#[test]
fn ctrl_c_erases_the_bar() {
    interrupted(libc::SIGINT);
}

#[test]
fn sigterm_erases_the_bar() {
    interrupted(libc::SIGTERM);
}

#[test]
fn a_failed_output_erases_the_bar_before_its_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = make_fifo(dir.path(), "slow.fifo");
    let mut terminal = Terminal::open(80);
    let child = fasthash(dir.path())
        .args(["--progress", "slow.fifo"])
        .redirect_stdout(File::create("/dev/full").unwrap())
        .redirect_stderr(terminal.stderr())
        .spawn();
    let writer = feed(&path);
    terminal.wait_for("bar", |seen| !drawn_lines(seen).is_empty());
    drop(writer);
    let output = child.wait_with_output().unwrap();
    let seen = terminal.finish();
    assert_eq!(output.status.code(), Some(1));
    let message = b"fasthash: write error: No space left on device\n";
    assert!(
        seen.ends_with(&[ERASE, &message[..]].concat()),
        "{:?}",
        text(&seen[seen.len().saturating_sub(200)..])
    );
}

#[test]
fn no_bar_when_standard_error_is_a_pipe_unless_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let path = make_fifo(dir.path(), "slow.fifo");
    for (args, drawn) in [(&[][..], false), (&["--progress"][..], true)] {
        let child = fasthash(dir.path()).args(args).arg("slow.fifo").spawn();
        let mut writer = feed(&path);
        // Longer than the second after which a terminal would get a bar.
        std::thread::sleep(Duration::from_millis(1600));
        writer.write_all(b"end").unwrap();
        drop(writer);
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(0));
        let lines = drawn_lines(&output.stderr);
        assert_eq!(
            !lines.is_empty(),
            drawn,
            "{args:?}: {:?}",
            text(&output.stderr)
        );
        if drawn {
            assert!(output.stderr.ends_with(ERASE));
        }
    }
}

#[test]
fn no_bar_with_no_progress_even_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let path = make_fifo(dir.path(), "slow.fifo");
    let mut terminal = Terminal::open(80);
    let child = hash_fifo(dir.path(), &["--no-progress"], "slow.fifo", &mut terminal);
    let writer = feed(&path);
    std::thread::sleep(Duration::from_millis(1600));
    drop(writer);
    child.wait_with_output().unwrap();
    assert_eq!(text(&terminal.finish()), "");
}

#[test]
fn drop_in_names_draw_no_bar_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let path = make_fifo(dir.path(), "slow.fifo");
    let mut terminal = Terminal::open(80);
    let child = fasthash(dir.path())
        .called("sha256sum")
        .arg("slow.fifo")
        .redirect_stderr(terminal.stderr())
        .spawn();
    let writer = feed(&path);
    std::thread::sleep(Duration::from_millis(1600));
    drop(writer);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(text(&terminal.finish()), "");
}

/// The `--stats` line of a run: its standard error's last line, without the program's name.
fn stats_line(stderr: &[u8]) -> String {
    let stderr = text(stderr);
    let last = stderr.lines().last().unwrap_or_default();
    last.strip_prefix("fasthash: ")
        .unwrap_or_else(|| panic!("no stats line in {stderr:?}"))
        .to_string()
}

/// Splits `N files, SIZE in T s, RATE...` into what is fixed and the time, which is not:
/// returns the line with the time and the rate replaced by `T` and `R`.
fn without_timing(line: &str) -> String {
    let (head, rest) = line.split_once(" in ").expect("a time");
    let (time, rest) = rest.split_once(" s, ").expect("seconds");
    time.parse::<f64>().expect("seconds are a number");
    let (rate, tail) = match rest.find([',', ';']) {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    let (number, unit) = rate.split_once(' ').expect("a rate and its unit");
    number.parse::<f64>().expect("the rate is a number");
    assert!(
        ["B/s", "kB/s", "MB/s", "GB/s", "TB/s"].contains(&unit),
        "{unit}"
    );
    format!("{head} in T s, R{tail}")
}

#[test]
fn stats_count_files_bytes_and_failures_when_hashing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_file(d, "a", vec![1u8; 1500]);
    write_file(d, "b", vec![2u8; 2500]);
    write_file(d, "sub/c", vec![3u8; 1_000_000]);
    let output = fasthash(d)
        .args(["--stats", "a", "missing", "b", "-r", "sub"])
        .output();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(text(&output.stdout).lines().count(), 3);
    let line = stats_line(&output.stderr);
    assert_eq!(
        without_timing(&line),
        "4 files, 1.00 MB in T s, R, 1 failed",
        "{line}"
    );
    // The same files through the S3 values, and a clean run has no failures to name.
    let output = fasthash(d).args(["--stats", "--s3", "a", "b"]).output();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        without_timing(&stats_line(&output.stderr)),
        "2 files, 4.00 kB in T s, R"
    );
    // Files read whole as they are opened count as well where every algorithm hashes them
    // from memory: JSON, and several algorithms.
    for args in [&["--json"][..], &["-a", "sha256,md5"]] {
        let output = fasthash(d).args(["--stats", "a", "b"]).args(args).output();
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        assert_eq!(
            without_timing(&stats_line(&output.stderr)),
            "2 files, 4.00 kB in T s, R",
            "{args:?}"
        );
    }
    // Without --stats, no such line.
    let output = fasthash(d).args(["a"]).output();
    assert_eq!(text(&output.stderr), "");
}

#[test]
fn stats_of_a_check_count_each_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_file(d, "same", b"unchanged");
    write_file(d, "edited", b"before");
    write_file(d, "gone", b"soon gone");
    let sums = fasthash(d).args(["same", "edited", "gone"]).output().stdout;
    write_file(d, "SUMS", &sums);
    write_file(d, "edited", b"after!");
    std::fs::remove_file(d.join("gone")).unwrap();
    let output = fasthash(d)
        .args(["--stats", "-a", "sha256", "-c", "SUMS"])
        .output();
    assert_eq!(output.status.code(), Some(1));
    // coreutils' own warnings come first, unchanged.
    assert!(text(&output.stderr).contains("WARNING: 1 computed checksum did NOT match"));
    // A missing file could not be read, as coreutils counts it...
    assert_eq!(
        without_timing(&stats_line(&output.stderr)),
        "3 files, 15 B in T s, R; 1 OK, 1 FAILED, 0 missing, 1 unreadable"
    );
    // ...unless --ignore-missing passes over it: then it is missing (as in the JSON summary).
    let output = fasthash(d)
        .args(["--stats", "-a", "sha256", "-c", "--ignore-missing", "SUMS"])
        .output();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        without_timing(&stats_line(&output.stderr)),
        "3 files, 15 B in T s, R; 1 OK, 1 FAILED, 1 missing, 0 unreadable"
    );
    // Bytes are those hashed: without -a, the edited file's 6 bytes are hashed again under
    // BLAKE3, BLAKE2b-256, SHA3-256 and SM3 (digests of 64 hex digits too) before it FAILED.
    let output = fasthash(d).args(["--stats", "-c", "SUMS"]).output();
    assert_eq!(
        without_timing(&stats_line(&output.stderr)),
        "3 files, 39 B in T s, R; 1 OK, 1 FAILED, 0 missing, 1 unreadable"
    );
}

#[test]
fn stats_of_an_audit_count_new_missing_and_moved() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (name, content) in [("t/keep", "keep"), ("t/old", "moves"), ("t/gone", "gone")] {
        write_file(d, name, content);
    }
    let sums = fasthash(d).args(["-r", "t"]).output().stdout;
    write_file(d, "SUMS", &sums);
    std::fs::rename(d.join("t/old"), d.join("t/new-name")).unwrap();
    std::fs::remove_file(d.join("t/gone")).unwrap();
    write_file(d, "t/fresh", "fresh");
    let output = fasthash(d)
        .args(["--stats", "-c", "SUMS", "--tree", "t"])
        .output();
    assert_eq!(output.status.code(), Some(1));
    let line = without_timing(&stats_line(&output.stderr));
    assert!(
        line.ends_with("; 1 OK, 0 FAILED, 0 unreadable, 1 MISSING, 1 MOVED, 1 NEW"),
        "{line}"
    );
    assert!(line.starts_with("4 files, "), "{line}");
}

#[test]
fn stats_with_verify_s3_and_refused_with_merge() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_file(d, "f", b"object");
    let md5 = fasthash(d)
        .args(["-a", "md5", "--no-names", "f"])
        .output()
        .stdout;
    let md5 = text(&md5).trim().to_string();
    write_file(d, "head.json", format!(r#"{{"ETag": "\"{md5}\""}}"#));
    let output = fasthash(d)
        .args(["--stats", "--verify-s3", "head.json", "f"])
        .output();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        without_timing(&stats_line(&output.stderr)),
        "1 file, 6 B in T s, R"
    );
    let output = fasthash(d).args(["--stats", "--merge", "f"]).output();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).starts_with("fasthash: --stats does nothing with --merge: "),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn a_bar_asked_for_where_there_is_none_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_file(d, "f", b"x");
    write_file(d, "SUMS", fasthash(d).arg("f").output().stdout);
    for (mode, args) in [
        ("--check", &["-c", "SUMS"][..]),
        ("--merge", &["--merge", "SUMS"]),
        ("--verify-s3", &["--verify-s3", "SUMS", "f"]),
    ] {
        let output = fasthash(d).arg("--progress").args(args).output();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let expected = format!("fasthash: --progress does nothing with {mode}: ");
        assert!(text(&output.stderr).starts_with(&expected), "{args:?}");
        // Never drawing a bar is what these modes do anyway.
        let output = fasthash(d).arg("--no-progress").args(args).output();
        assert!(!text(&output.stderr).contains("progress"), "{args:?}");
    }
}

#[test]
fn drop_in_names_have_no_stats_option() {
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "f", b"x");
    let output = fasthash(dir.path())
        .args(["--stats", "f"])
        .called("sha256sum")
        .output();
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).starts_with("sha256sum: unrecognized option '--stats'"));
    assert!(output.stdout.is_empty());
    let output = fasthash(dir.path())
        .args(["--stats", "f"])
        .called("b3sum")
        .output();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
}
