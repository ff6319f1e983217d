//! Test helpers shared by the integration tests: running fasthash and its peers, files with
//! awkward names, seeded random bytes, and known answers. Each test crate uses a part of them.
#![allow(dead_code, unused_imports)]

mod random;
mod run;
mod vectors;

pub use random::{random_bytes, SplitMix64};
pub use run::{
    drop_in_dir, faketime, fasthash, least_address_space, peer, program, strace_injecting_faults,
    Run, FASTHASH,
};
pub use vectors::*;

pub use fasthash::format::locale::Charset;
use fasthash::kernels::Algorithm;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::process::Output;

/// A path inside the repository.
pub fn repo_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// Program output as text for messages and comparisons (bytes that are not UTF-8 replaced).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Arguments as `OsString`s, to join with names that are not UTF-8.
pub fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// File names given as bytes, which need not be UTF-8.
pub fn os_names(names: &[&[u8]]) -> Vec<OsString> {
    names
        .iter()
        .map(|name| OsString::from_vec(name.to_vec()))
        .collect()
}

/// `len` bytes counting up by `step` from `start`, wrapping: file contents that differ from
/// file to file and are the same on every run.
pub fn pattern(len: usize, step: usize, start: usize) -> Vec<u8> {
    (0..len).map(|i| (i * step + start) as u8).collect()
}

/// Writes `content` to `dir/name` (a name of any bytes, with `/` for folders it creates).
pub fn write_file(dir: &Path, name: impl AsRef<[u8]>, content: impl AsRef<[u8]>) {
    let path = dir.join(OsStr::from_bytes(name.as_ref()));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// Whether these tests run under an emulator (qemu-user, as the Arm tests do on x86-64): the
/// machine's own programs then report another architecture than the one they were built for.
pub fn emulated() -> bool {
    let machine = std::process::Command::new("uname").arg("-m").output();
    machine.is_ok_and(|machine| text(&machine.stdout).trim() != std::env::consts::ARCH)
}

/// Lets every user read `root` and what is below it and enter its directories: for a run as
/// the unprivileged user of [`Run::unprivileged`] on files a test wrote.
pub fn open_to_everyone(root: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for entry in walkdir::WalkDir::new(root) {
        let entry = entry.unwrap();
        let mode = if entry.file_type().is_dir() {
            0o755
        } else {
            0o644
        };
        std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(mode)).unwrap();
    }
}

/// Makes a FIFO at `dir/name` (with `/` for folders it creates), for a test to feed while
/// fasthash reads it.
pub fn make_fifo(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: c_path is a valid NUL-terminated path.
    let made = unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) };
    assert_eq!(made, 0, "mkfifo: {}", std::io::Error::last_os_error());
    path
}

/// Writes a file for each of `names` in `dir`, its content made from the name and its place
/// in the list (so files differ from each other and stay the same from run to run).
pub fn write_files(dir: &Path, names: &[&[u8]], content: impl Fn(usize, &[u8]) -> Vec<u8>) {
    for (index, name) in names.iter().enumerate() {
        write_file(dir, name, content(index, name));
    }
}

/// The `-a` names of every algorithm whose digests `--check` verifies (all but cksum's and
/// sum's legacy checksums), from the library's table.
pub fn checkable_algorithms() -> Vec<&'static str> {
    Algorithm::all()
        .filter(|algorithm| !algorithm.info().with_size)
        .map(Algorithm::name)
        .collect()
}

/// The two locales the drop-in names are tested in: C, a single-byte locale where bytes above
/// 0x7F are not printable, and C.UTF-8 (built into glibc since 2.35), with the charset
/// fasthash should read from each.
pub const LOCALES: [(&str, Charset); 2] = [("C", Charset::SingleByte), ("C.UTF-8", Charset::Utf8)];

/// Asserts what a run wrote on standard output and error, byte for byte, and its exit status:
/// for what a peer's source says it prints, where the peer is not installed or is older.
pub fn assert_output(what: &str, output: &Output, stdout: &str, stderr: &str, code: i32) {
    assert_eq!(text(&output.stdout), stdout, "{what}: stdout");
    assert_eq!(output.stdout, stdout.as_bytes(), "{what}: stdout bytes");
    assert_eq!(text(&output.stderr), stderr, "{what}: stderr");
    assert_eq!(output.stderr, stderr.as_bytes(), "{what}: stderr bytes");
    assert_eq!(output.status.code(), Some(code), "{what}: exit code");
}

/// Asserts that `ours` wrote what `theirs` wrote on standard output (as text first, for a
/// readable difference, then byte for byte) and on standard error, and exited alike.
pub fn assert_same_output(what: &str, ours: &Output, theirs: &Output) {
    assert_same_stdout_and_status(what, ours, theirs);
    assert_eq!(text(&ours.stderr), text(&theirs.stderr), "{what}: stderr");
}

/// [`assert_same_output`] without standard error, for peers whose messages differ.
pub fn assert_same_stdout_and_status(what: &str, ours: &Output, theirs: &Output) {
    assert_eq!(text(&ours.stdout), text(&theirs.stdout), "{what}: stdout");
    assert_eq!(ours.stdout, theirs.stdout, "{what}: stdout bytes");
    assert_eq!(
        ours.status.code(),
        theirs.status.code(),
        "{what}: exit code"
    );
}

/// coreutils 9.11 writes the names of status lines as its diagnostics write them; an older
/// installed coreutils (9.1 in Debian 12 escapes only names holding a newline, with a leading
/// backslash; 9.4 to 9.10 also those holding a backslash or CR) is compared after rewriting its
/// status lines the 9.11 way, byte for byte, for the locale it ran in (`charset`: what can be
/// printed decides the quoting).
pub fn status_lines_as_coreutils_9_11(output: &[u8], charset: Charset) -> Vec<u8> {
    let mut rewritten = Vec::new();
    for line in output.split_inclusive(|&b| b == b'\n') {
        let status = [&b": FAILED open or read\n"[..], b": FAILED\n", b": OK\n"]
            .into_iter()
            .find(|status| line.ends_with(status));
        match status {
            Some(status) => {
                let name = &line[..line.len() - status.len()];
                let raw = match name.strip_prefix(b"\\") {
                    Some(escaped) => fasthash::format::escape::unescape_name(escaped)
                        .expect("coreutils escapes names it can unescape"),
                    None => name.to_vec(),
                };
                rewritten.extend_from_slice(&fasthash::format::quote::quote_name_in(&raw, charset));
                rewritten.extend_from_slice(status);
            }
            None => rewritten.extend_from_slice(line),
        }
    }
    rewritten
}
