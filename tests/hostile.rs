//! Hostile inputs and faults: whatever the file system or a manifest throws at fasthash, it
//! names what it could not hash with the reason, hashes everything else, says so in its exit
//! code, never panics, never dies on a signal and never prints a wrong digest.
//!
//! These are about input and output, not kernels, and some hash many GiB: they run on the
//! kernels this CPU would choose even in CI's `FASTHASH_KERNEL=portable` pass.

use crate::common;

use common::{fasthash, program, random_bytes, text};
use fasthash::kernels::{hash, Algorithm};
use std::fs::{self, File};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::Duration;

/// Exited by itself (no signal), with this code.
fn assert_exit(output: &Output, code: i32, what: &str) {
    assert_eq!(
        output.status.signal(),
        None,
        "{what}: killed by a signal; stderr: {}",
        text(&output.stderr)
    );
    assert_eq!(
        output.status.code(),
        Some(code),
        "{what}: stdout {} stderr {}",
        text(&output.stdout),
        text(&output.stderr)
    );
}

fn sha256_line(content: &[u8], name: &str) -> String {
    format!("{}  {name}\n", hash(Algorithm::Sha256, content).to_hex())
}

#[test]
fn unreadable_directory_under_recursion() {
    let dir = tempfile::tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    fs::create_dir_all(dir.path().join("t/locked")).unwrap();
    fs::write(dir.path().join("t/locked/inside"), b"x").unwrap();
    fs::write(dir.path().join("t/open"), b"open").unwrap();
    fs::set_permissions(dir.path().join("t"), fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(dir.path().join("t/open"), fs::Permissions::from_mode(0o644)).unwrap();
    fs::set_permissions(
        dir.path().join("t/locked"),
        fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    let Some(run) = fasthash(dir.path()).cpu_kernels().unprivileged() else {
        return;
    };
    let output = run.args(["-r", "t"]).output();
    fs::set_permissions(
        dir.path().join("t/locked"),
        fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    assert_exit(&output, 1, "unreadable directory");
    assert_eq!(
        text(&output.stderr),
        "fasthash: t/locked: Permission denied\n"
    );
    assert_eq!(text(&output.stdout), sha256_line(b"open", "t/open"));
}

#[test]
fn symbolic_links_broken_and_looping() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::create_dir_all(d.join("t/sub")).unwrap();
    fs::write(d.join("t/file"), b"f").unwrap();
    std::os::unix::fs::symlink("nowhere", d.join("t/broken")).unwrap();
    std::os::unix::fs::symlink("..", d.join("t/sub/up")).unwrap();

    let named = fasthash(d)
        .cpu_kernels()
        .args(["t/broken", "t/file"])
        .output();
    assert_exit(&named, 1, "broken link named");
    assert_eq!(
        text(&named.stderr),
        "fasthash: t/broken: No such file or directory\n"
    );
    assert_eq!(text(&named.stdout), sha256_line(b"f", "t/file"));

    // Links met while walking are not followed without -L: nothing to report.
    let walked = fasthash(d).cpu_kernels().args(["-r", "t"]).output();
    assert_exit(&walked, 0, "links not followed");
    assert_eq!(text(&walked.stdout), sha256_line(b"f", "t/file"));

    // With -L the loop is reported, not followed, and the broken link is named.
    let followed = fasthash(d).cpu_kernels().args(["-r", "-L", "t"]).output();
    assert_exit(&followed, 1, "links followed");
    let stderr = text(&followed.stderr);
    assert!(
        stderr.contains("t/broken: No such file or directory"),
        "{stderr}"
    );
    assert!(
        stderr.contains("t/sub/up: file system loop detected; not followed"),
        "{stderr}"
    );
    assert_eq!(text(&followed.stdout), sha256_line(b"f", "t/file"));
}

#[test]
fn special_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let null = fasthash(d).cpu_kernels().args(["/dev/null"]).output();
    assert_exit(&null, 0, "/dev/null");
    assert_eq!(text(&null.stdout), sha256_line(b"", "/dev/null"));

    // A socket and a device met under -r are skipped with a message, not hashed, not a failure.
    fs::create_dir(d.join("t")).unwrap();
    fs::write(d.join("t/a"), b"a").unwrap();
    let _listener = std::os::unix::net::UnixListener::bind(d.join("t/socket")).unwrap();
    std::os::unix::fs::symlink("/dev/null", d.join("t/device")).unwrap();
    let output = fasthash(d).cpu_kernels().args(["-r", "-L", "t"]).output();
    assert_exit(&output, 0, "socket and device under -r");
    assert_eq!(text(&output.stdout), sha256_line(b"a", "t/a"));
    assert_eq!(
        text(&output.stderr),
        "fasthash: t/device: not a regular file; skipped\nfasthash: t/socket: not a regular file; skipped\n"
    );
}

/// A file that keeps growing while it is hashed is reported as changed, read or mapped.
#[test]
fn a_file_growing_while_hashed_is_reported() {
    for mode in ["--mmap", "--no-mmap"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("growing");
        File::create(&path)
            .unwrap()
            .set_len(3 * 1024 * 1024 * 1024)
            .unwrap();
        let child = fasthash(dir.path())
            .cpu_kernels()
            .args(["-j", "1", "-a", "sha256", mode, "growing"])
            .spawn();
        std::thread::sleep(Duration::from_millis(200));
        let mut file = fs::OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(&[1u8; 4096]).unwrap();
        drop(file);
        let output = child.wait_with_output().unwrap();
        assert_exit(&output, 1, mode);
        assert_eq!(
            text(&output.stderr),
            "fasthash: growing: file changed as we read it\n"
        );
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn a_sparse_file_over_4_gib_matches_b3sum() {
    let Some(b3sum) = common::peer("b3sum") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sparse");
    let mut file = File::create(&path).unwrap();
    file.write_all(b"start").unwrap();
    file.set_len((4u64 << 30) + 4097).unwrap();
    use std::os::unix::fs::FileExt;
    file.write_all_at(b"past four gibibytes", (4u64 << 30) + 7)
        .unwrap();
    drop(file);
    let theirs = program(b3sum, dir.path()).arg("sparse").output();
    for mode in ["--mmap", "--no-mmap"] {
        let ours = fasthash(dir.path())
            .cpu_kernels()
            .args(["-a", "blake3", mode, "sparse"])
            .output();
        assert_exit(&ours, 0, mode);
        assert_eq!(text(&ours.stdout), text(&theirs.stdout), "{mode}");
    }
}

#[test]
fn long_names_and_paths_beyond_path_max() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let long_name = "n".repeat(255);
    fs::create_dir(d.join("t")).unwrap();
    fs::write(d.join("t").join(&long_name), b"long").unwrap();
    // Directories nested past PATH_MAX (4096 bytes), made one level at a time.
    let component = "d".repeat(200);
    make_nested(&d.join("t"), &component, 25);
    // Deeper than PATH_MAX: walked and opened a directory at a time, and hashed.
    let deep_name = format!("t/{}file", format!("{component}/").repeat(25));
    assert!(deep_name.len() > 4096);
    let output = fasthash(d).cpu_kernels().args(["-r", "t"]).output();
    assert_exit(&output, 0, "path beyond PATH_MAX");
    assert_eq!(
        text(&output.stdout),
        sha256_line(b"deep", &deep_name) + &sha256_line(b"long", &format!("t/{long_name}"))
    );
    // Named on the command line, the same file opens too.
    let named = fasthash(d)
        .cpu_kernels()
        .args(["-a", "md5", &deep_name])
        .output();
    assert_exit(&named, 0, "long name on the command line");
    assert_eq!(
        text(&named.stdout),
        format!("{}  {deep_name}\n", hash(Algorithm::Md5, b"deep").to_hex())
    );
}

/// Makes `levels` directories named `component` inside each other under `base`, and a file at
/// the bottom, through directory descriptors: the full path is longer than the system takes.
fn make_nested(base: &Path, component: &str, levels: usize) {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let name = CString::new(component).unwrap();
    let base = CString::new(base.as_os_str().as_bytes()).unwrap();
    // SAFETY: plain descriptor calls on our own temporary directory; every descriptor is closed.
    // Close-on-exec: a program another test starts meanwhile must not inherit them (one run
    // under `ulimit -n 4` then had no descriptor left to load its libraries).
    unsafe {
        let mut fd = libc::open(
            base.as_ptr(),
            libc::O_DIRECTORY | libc::O_RDONLY | libc::O_CLOEXEC,
        );
        assert!(fd >= 0);
        for _ in 0..levels {
            assert_eq!(libc::mkdirat(fd, name.as_ptr(), 0o755), 0);
            let next = libc::openat(
                fd,
                name.as_ptr(),
                libc::O_DIRECTORY | libc::O_RDONLY | libc::O_CLOEXEC,
            );
            assert!(next >= 0);
            libc::close(fd);
            fd = next;
        }
        let file = CString::new("file").unwrap();
        let out = libc::openat(
            fd,
            file.as_ptr(),
            libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
            0o644,
        );
        assert!(out >= 0);
        assert_eq!(libc::write(out, b"deep".as_ptr().cast(), 4), 4);
        libc::close(out);
        libc::close(fd);
    }
}

#[test]
fn a_deep_tree_is_walked_without_recursion() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut path = d.join("t");
    for _ in 0..1500 {
        path.push("d");
    }
    fs::create_dir_all(&path).unwrap();
    fs::write(path.join("bottom"), b"bottom").unwrap();
    let output = fasthash(d)
        .cpu_kernels()
        .args(["-r", "-a", "crc32", "t"])
        .output();
    assert_exit(&output, 0, "deep tree");
    assert!(text(&output.stdout).ends_with("/d/bottom\n"));
}

/// Runs fasthash in `dir` with `args` through a shell that first runs `setup` (a limit), with
/// stdout to a file; returns the exit code, the peak RSS in KiB and the output. The peak is
/// read from /proc while the process runs (`VmHWM` of the exec'd image; the wait status's
/// rusage would also count the test process's own pages, shared with the child before it
/// execs).
fn run_measured(dir: &Path, setup: &str, args: &[&str]) -> (i32, u64, String) {
    let out_path = dir.join("out.txt");
    let mut child = fasthash(dir)
        .cpu_kernels()
        .args(args)
        .shell(setup, "")
        .redirect_stdout(File::create(&out_path).unwrap())
        .redirect_stderr(Stdio::null())
        .spawn();
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0;
    let status = loop {
        if let Ok(status) = fs::read_to_string(&status_path) {
            if let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:")) {
                let kib: u64 = line
                    .split_whitespace()
                    .nth(1)
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0);
                peak_kib = peak_kib.max(kib);
            }
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    assert_eq!(status.signal(), None, "killed by a signal");
    (
        status.code().unwrap_or(-1),
        peak_kib,
        fs::read_to_string(out_path).unwrap(),
    )
}

/// 30,000 files: creating and deleting them is most of this test's time (a minute for 100,000
/// on an ext4 mounted with `discard`), and the bound is the same per file: fasthash holds a
/// few directories' names at a time, about 12 MB in all for 20,000 files against 9 MB for one.
#[test]
fn many_files_under_a_small_open_file_limit_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for i in 0..30_000u32 {
        if i % 1000 == 0 {
            fs::create_dir_all(d.join(format!("t/{:03}", i / 1000))).unwrap();
        }
        fs::write(d.join(format!("t/{:03}/{i}", i / 1000)), i.to_le_bytes()).unwrap();
    }
    let (code, rss_kib, out) = run_measured(d, "ulimit -n 64 &&", &["-r", "-a", "xxh3", "t"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 30_000);
    assert!(
        rss_kib < 32 * 1024,
        "peak RSS {rss_kib} KiB on 30,000 files"
    );
}

#[test]
fn memory_stays_bounded_on_a_10_gib_sparse_file() {
    let dir = tempfile::tempdir().unwrap();
    File::create(dir.path().join("sparse"))
        .unwrap()
        .set_len(10 << 30)
        .unwrap();
    for algorithm in ["xxh3", "blake3", "crc64nvme"] {
        let (code, rss_kib, out) = run_measured(dir.path(), "", &["-a", algorithm, "sparse"]);
        assert_eq!(code, 0, "{algorithm}");
        assert!(out.ends_with("  sparse\n"));
        assert!(rss_kib < 256 * 1024, "{algorithm}: peak RSS {rss_kib} KiB");
    }
}

#[test]
fn interrupted_it_exits_promptly_with_whole_lines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for i in 0..3000 {
        fs::write(d.join(format!("f{i:05}")), vec![i as u8; 64 * 1024]).unwrap();
    }
    File::create(d.join("zz-big"))
        .unwrap()
        .set_len(8 << 30)
        .unwrap();
    let child = fasthash(d)
        .cpu_kernels()
        .args(["-j", "1", "-a", "sha512", "."])
        .arg("-r")
        .spawn();
    std::thread::sleep(Duration::from_millis(700));
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().unwrap();
    // Promptly: the 8 GiB file, whose reading the signal lands in, is never finished.
    assert!(
        !text(&output.stdout).contains("zz-big"),
        "hashed to the end after the signal"
    );
    assert_eq!(output.status.signal(), None, "died on the signal");
    assert_eq!(output.status.code(), Some(130));
    assert!(output.stdout.is_empty() || output.stdout.ends_with(b"\n"));
    for line in text(&output.stdout).lines() {
        assert_eq!(line.len(), 128 + 2 + "./f00000".len(), "{line}");
    }
}

/// Manifests no one should write: fasthash under the `sha256sum` name answers them exactly
/// as sha256sum does (stdout, stderr, exit code), and never panics under its own name.
#[test]
fn hostile_manifests_get_coreutils_answers() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("a"), b"a").unwrap();
    let good = sha256_line(b"a", "a");
    let digest = hash(Algorithm::Sha256, b"a").to_hex();
    let random = random_bytes(10 << 20, 99);
    let mut long_line = good.clone().into_bytes();
    long_line.extend(format!("{}  {}\n", digest, "x".repeat(1 << 20)).bytes());
    let manifests: Vec<(&str, Vec<u8>)> = vec![
        ("random", random),
        ("nul", format!("{digest}  a\0b\n{good}").into_bytes()),
        ("long-line", long_line),
        ("no-final-newline", good.trim_end().as_bytes().to_vec()),
        (
            "short-digest",
            format!("{}  a\n{good}", &digest[..60]).into_bytes(),
        ),
        (
            "bad-escape",
            format!("\\{digest}  a\\q\n{good}").into_bytes(),
        ),
        (
            "mixed",
            format!("MD5 (a) = {}\n{good}", hash(Algorithm::Md5, b"a").to_hex()).into_bytes(),
        ),
    ];
    let real = common::peer("sha256sum");
    for (name, content) in &manifests {
        fs::write(d.join(name), content).unwrap();
        // Both run as `sha256sum`, so their messages name the program alike.
        let ours = fasthash(d)
            .cpu_kernels()
            .called("sha256sum")
            .args(["-c", name])
            .output();
        assert_eq!(ours.status.signal(), None, "{name}");
        if let Some(real) = &real {
            let theirs = program(real, d)
                .called("sha256sum")
                .args(["-c", name])
                .output();
            assert_eq!(ours.status.code(), theirs.status.code(), "{name}");
            assert_eq!(text(&ours.stdout), text(&theirs.stdout), "{name}");
            assert_eq!(text(&ours.stderr), text(&theirs.stderr), "{name}");
        }
        for extra in [&[][..], &["--strict"][..], &["-w"][..]] {
            let own = fasthash(d)
                .cpu_kernels()
                .arg("-c")
                .args(extra)
                .arg(name)
                .output();
            assert_eq!(own.status.signal(), None, "{name}");
            assert!(
                matches!(own.status.code(), Some(0 | 1)),
                "{name}: {:?}",
                own.status
            );
        }
    }
}

/// Whether limits near the least address space a run needs are out of this machine's reach (an
/// emulator needs more itself); says the test skipped, and why.
fn near_the_least_address_space_is_out_of_reach() -> bool {
    let emulated = common::emulated();
    if emulated {
        eprintln!(
            "skipped: ulimit -v near the least a run needs, under an emulator that needs more"
        );
    }
    emulated
}

/// Running out of memory ends the run as coreutils' `xalloc_die` ends it, never by a signal:
/// `PROGRAM: memory exhausted`, status 1, and only whole lines of right sums before it. Under
/// each limit from what `--version` needs with the same arguments to 8 MB above it, a walk of
/// 3,000 files, and `md5sum` given the 3,000 names (the message under its name), either hash
/// every file or stop so. Rust's own handler aborted (SIGABRT) at the lower limits.
#[test]
fn running_out_of_memory_ends_the_run_with_coreutils_message() {
    if near_the_least_address_space_is_out_of_reach() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Long names, all in one directory: the walk holds the sorted listing, which makes the
    // limits where memory runs out many, not one.
    let names: Vec<String> = (0..3000)
        .map(|index| format!("{index:04}{}", "n".repeat(200)))
        .collect();
    for (index, name) in names.iter().enumerate() {
        fs::write(dir.path().join(name), index.to_string()).unwrap();
    }
    let walk = || fasthash(dir.path()).args(["-r", "-a", "md5", "."]);
    assert_memory_runs_out_as_coreutils_says(walk, "fasthash", |run| run.arg("--version"));
    let md5sum = common::drop_in_dir(Path::new(common::FASTHASH), "md5sum").join("md5sum");
    let named = || program(&md5sum, dir.path()).args(&names);
    let least_with = |run: common::Run| run.arg("--version");
    assert_memory_runs_out_as_coreutils_says(named, &md5sum.to_string_lossy(), least_with);
}

/// [`running_out_of_memory_ends_the_run_with_coreutils_message`] for one command: `run` under
/// each limit from the least under which `version(run())` succeeds to 8 MB above it.
fn assert_memory_runs_out_as_coreutils_says(
    run: impl Fn() -> common::Run,
    program: &str,
    version: impl Fn(common::Run) -> common::Run,
) {
    let unlimited = run().output();
    assert_exit(&unlimited, 0, "without a limit");
    let least = common::least_address_space(|| version(run()));
    let mut exhausted = 0;
    for above in (0..=8_000).step_by(500) {
        let limit = format!("ulimit -v {};", least + above);
        let limited = run().shell(&limit, "").output();
        let what = format!("{program} under {limit}");
        assert_eq!(limited.status.signal(), None, "{what}: killed by a signal");
        if limited.status.success() {
            assert_eq!(limited.stdout, unlimited.stdout, "{what}");
            assert_eq!(text(&limited.stderr), "", "{what}");
        } else {
            assert_exit(&limited, 1, &what);
            let message = format!("{program}: memory exhausted\n");
            assert_eq!(text(&limited.stderr), message, "{what}");
            assert!(limited.stdout.ends_with(b"\n") || limited.stdout.is_empty());
            assert!(unlimited.stdout.starts_with(&limited.stdout), "{what}");
            exhausted += 1;
        }
    }
    assert!(
        exhausted > 0,
        "{program}: no limit from {least} KiB up ran out of memory"
    );
}

/// Just below the address space a run needs, Rust's runtime, before `main`, could not map
/// the main thread's signal stack and aborted (SIGABRT, a panic's text) in a band of about 20
/// KiB. Every limit from 300 KiB below the least under which `--version` runs up to it now ends
/// as the loader ends it (its message, exit 127, or its SIGSEGV before any of our code), or
/// with `PROGRAM: memory exhausted` and exit 1, under fasthash's name and under md5sum's.
#[test]
fn no_limit_just_below_what_a_run_needs_aborts() {
    if near_the_least_address_space_is_out_of_reach() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let md5sum = common::drop_in_dir(Path::new(common::FASTHASH), "md5sum").join("md5sum");
    let runs: [(Box<dyn Fn() -> common::Run>, String); 2] = [
        (Box::new(|| fasthash(dir.path())), "fasthash".to_string()),
        (
            Box::new(|| program(&md5sum, dir.path())),
            md5sum.to_string_lossy().into_owned(),
        ),
    ];
    for (run, name) in &runs {
        let least = common::least_address_space(|| run().arg("--version"));
        let mut exhausted = 0;
        for kib in (least.saturating_sub(300)..=least).step_by(4) {
            let limited = run()
                .shell(&format!("ulimit -v {kib};"), "")
                .arg("--version")
                .output();
            let stderr = text(&limited.stderr);
            let what = format!("{name} --version under ulimit -v {kib}: {stderr}");
            assert!(!stderr.contains("panicked"), "{what}");
            match (limited.status.code(), limited.status.signal()) {
                (Some(0), _) => {}
                (Some(1), _) => {
                    assert_eq!(stderr, format!("{name}: memory exhausted\n"), "{what}");
                    exhausted += 1;
                }
                // The dynamic loader's own failures (mapping a library, its TLS): fasthash
                // never exits with 127.
                (Some(127), _) => assert!(!stderr.is_empty(), "{what}"),
                (None, Some(libc::SIGSEGV)) => assert_eq!(stderr, "", "{what}"),
                (code, signal) => panic!("{what}: exit {code:?}, signal {signal:?}"),
            }
        }
        assert!(
            exhausted > 0,
            "{name}: no limit below {least} KiB ran out of memory"
        );
    }
}

/// Under `ulimit -s 32` (coreutils runs in 12 KiB), fasthash runs on a thread of its own with
/// the stack it needs: the main thread's 32 KiB overflowed in parsing and aborted every time.
#[test]
fn a_small_stack_limit_still_hashes_and_checks() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("t")).unwrap();
    for index in 0..50 {
        fs::write(dir.path().join(format!("t/f{index:02}")), index.to_string()).unwrap();
    }
    let walk = ["-r", "-a", "sha256", "t"];
    let unlimited = fasthash(dir.path()).args(walk).output();
    assert_exit(&unlimited, 0, "without a limit");
    fs::write(dir.path().join("SUMS"), &unlimited.stdout).unwrap();
    for round in 0..5 {
        let limited = |args: &[&str]| {
            fasthash(dir.path())
                .shell("ulimit -s 32;", "")
                .args(args)
                .output()
        };
        let what = format!("round {round} under ulimit -s 32");
        let hashed = limited(&walk);
        assert_exit(&hashed, 0, &what);
        assert_eq!(text(&hashed.stdout), text(&unlimited.stdout), "{what}");
        let checked = limited(&["-c", "--quiet", "SUMS"]);
        assert_exit(&checked, 0, &what);
        let version = limited(&["--version"]);
        assert_exit(&version, 0, &what);
    }
}

/// A name of 50 MB in `--files-from` is reported as too long, in memory proportional to it:
/// quoting it for the message once took 24 bytes a byte of the name, and aborted under a
/// gigabyte of address space.
#[test]
fn a_name_of_fifty_megabytes_is_reported_in_little_memory() {
    if common::emulated() {
        eprintln!("skipped: ulimit -v 1000000 under an emulator, which needs more itself");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("small"), b"small").unwrap();
    let mut list = vec![b'a'; 50_000_000];
    list.extend_from_slice(b"\nsmall\n");
    fs::write(dir.path().join("list"), &list).unwrap();
    let output = fasthash(dir.path())
        .shell("ulimit -v 1000000;", "")
        .args(["-a", "sha256", "--files-from", "list"])
        .timeout(Duration::from_secs(120))
        .output();
    assert_exit(&output, 1, "a 50 MB name");
    assert!(text(&output.stderr).ends_with("aaaa: File name too long\n"));
    assert_eq!(text(&output.stdout), sha256_line(b"small", "small"));
}
