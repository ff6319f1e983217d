//! The command line itself: `--bench` is an option (no word is ever taken for a command, so
//! every name is a file), every usage error clap finds is worded in fasthash's one voice with
//! the closest right spelling, and `-h` fits a terminal.

use crate::common;

use common::{fasthash, peer, program, text, write_file, FASTHASH};
use fasthash::kernels::{hash, Algorithm};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::process::Output;

/// The issue's case: a folder with files `bench` and `data.txt`, and `fasthash *`.
#[test]
fn a_file_named_bench_is_hashed_like_any_other() {
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "bench", b"a file, not a command\n");
    write_file(dir.path(), "data.txt", b"data\n");
    let shell = |command: &str| {
        program("sh", dir.path())
            .arg("-c")
            .arg(format!("{command} *"))
            .output()
    };
    let ours = shell(FASTHASH);
    assert_eq!(ours.status.code(), Some(0), "{}", text(&ours.stderr));
    assert!(ours.stderr.is_empty(), "{}", text(&ours.stderr));
    let expected: String = [
        ("bench", &b"a file, not a command\n"[..]),
        ("data.txt", b"data\n"),
    ]
    .iter()
    .map(|(name, content)| format!("{}  {name}\n", hash(Algorithm::Sha256, content).to_hex()))
    .collect();
    assert_eq!(text(&ours.stdout), expected);
    if let Some(sha256sum) = peer("sha256sum") {
        assert_eq!(ours.stdout, shell(&sha256sum.to_string_lossy()).stdout);
    }
    // Alone and first, too.
    let alone = fasthash(dir.path()).arg("bench").output();
    assert_eq!(
        text(&alone.stdout),
        expected.lines().next().unwrap().to_owned() + "\n"
    );
}

#[test]
fn bench_measures_what_a_names() {
    let dir = tempfile::tempdir().unwrap();
    let output = fasthash(dir.path())
        .args(["--bench", "-a", "md5", "--seconds", "0.02"])
        .output();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    let rows: Vec<&str> = stdout.lines().filter(|l| l.starts_with("md5 ")).collect();
    assert!(!rows.is_empty(), "{stdout}");
    assert!(
        stdout.lines().all(|l| !l.starts_with("sha256 ")),
        "{stdout}"
    );
}

/// A usage error: exactly `fasthash: MESSAGE` and the Try line on standard error, exit 2,
/// nothing on standard output, and none of clap's own lines. Returns MESSAGE.
fn usage_error<S: AsRef<OsStr> + std::fmt::Debug>(args: &[S]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let output: Output = fasthash(dir.path()).args(args).output();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(
        output.stdout.is_empty(),
        "{args:?}: {}",
        text(&output.stdout)
    );
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{args:?}: {stderr}");
    assert_eq!(lines[1], "Try 'fasthash --help' for more information.");
    for clap_word in ["error:", "tip:", "Usage:", "For more information"] {
        assert!(!stderr.contains(clap_word), "{args:?}: {stderr}");
    }
    lines[0]
        .strip_prefix("fasthash: ")
        .unwrap_or_else(|| panic!("{args:?}: {stderr}"))
        .to_string()
}

#[test]
fn seconds_is_refused_out_of_range_and_without_bench() {
    for value in ["0", "-1", "3601", "nan", "soon"] {
        let typed = format!("--seconds={value}");
        assert_eq!(
            usage_error(&["--bench", &typed]),
            format!(
                "--seconds takes a number of seconds greater than 0 and at most 3600, not '{value}'"
            )
        );
    }
    assert_eq!(
        usage_error(&["--seconds", "2"]),
        "--seconds is how long --bench measures; it needs --bench"
    );
    assert_eq!(
        usage_error(&["--seconds", "2", "f"]),
        "--seconds is how long --bench measures; it needs --bench"
    );
}

#[test]
fn bench_refuses_files_and_other_modes_options_by_name() {
    for (args, other) in [
        (&["--bench", "-c"][..], "--check"),
        (&["--recursive", "--bench"], "--recursive"),
        (&["--bench", "-a", "md5", "--json"], "--json"),
        (&["--bench", "--list-kernels"], "--list-kernels"),
    ] {
        let message = usage_error(args);
        assert!(
            message.starts_with(&format!("--bench cannot be combined with {other}")),
            "{args:?}: {message}"
        );
    }
    assert_eq!(
        usage_error(&["--bench", "data.txt"]),
        "--bench reads no file, but was given data.txt"
    );
}

/// Each kind of error clap reports, in fasthash's words.
#[test]
fn every_kind_of_clap_error_is_one_line_and_the_try_line() {
    for (args, message) in [
        // UnknownArgument, with and without a suggestion
        (
            &["--jsno"][..],
            "unknown option '--jsno'; did you mean '--json'?",
        ),
        (
            &["--qwxz"],
            "unknown option '--qwxz'; a file of that name is hashed with 'fasthash -- --qwxz'",
        ),
        (
            &["-x"],
            "unknown option '-x'; a file of that name is hashed with 'fasthash -- -x'",
        ),
        // InvalidValue, with the valid values
        (
            &["--checksum-type", "sideways"],
            "invalid value 'sideways' for '--checksum-type'; valid values: composite, full-object",
        ),
        // InvalidValue with no value at all
        (
            &["--s3-preset"],
            "'--s3-preset' needs a value; valid values: aws-cli-v2, aws-cli-v1, boto3",
        ),
        // ValueValidation, a parser of clap's and one of ours
        (
            &["-j", "0"],
            "invalid value '0' for '--threads': 0 is not in 1..=65535",
        ),
        (
            &["--seconds", "0"],
            "--seconds takes a number of seconds greater than 0 and at most 3600, not '0'",
        ),
        // ArgumentConflict, and an option given twice
        (
            &["--files-from", "a", "--files0-from", "b"],
            "'--files-from' cannot be combined with '--files0-from'",
        ),
        // (-a may be repeated: -a md5 -a sha1 lists two algorithms.)
        (
            &["-j", "2", "-j", "3"],
            "'--threads' can be given only once",
        ),
        // MissingRequiredArgument
        (&["--tree", "d"], "an option given needs '--check' too"),
    ] {
        assert_eq!(usage_error(args), message, "{args:?}");
    }
}

/// A value that is not UTF-8 is named with its option, however typed, and shown between the
/// plain marks of the other usage messages, what is not printable ASCII as octal escapes;
/// where several are, the first is. A file name that is not UTF-8 is no error.
#[test]
fn a_value_that_is_not_utf8_is_named_with_its_option() {
    fn bytes(args: &[&'static [u8]]) -> Vec<&'static OsStr> {
        args.iter().map(|arg| OsStr::from_bytes(arg)).collect()
    }
    for (args, message) in [
        (
            bytes(&[b"--exclude", b"a\xffb", b"f"]),
            "invalid value 'a\\377b' for '--exclude': not valid UTF-8",
        ),
        (
            bytes(&[b"--exclude=\xfe", b"f"]),
            "invalid value '\\376' for '--exclude': not valid UTF-8",
        ),
        (
            bytes(&[b"-a", b"sha\xff"]),
            "invalid value 'sha\\377' for '--algorithm': not valid UTF-8",
        ),
        (
            bytes(&[b"-ra\xff", b"d"]),
            "invalid value '\\377' for '--algorithm': not valid UTF-8",
        ),
        (
            bytes(&[b"-ra", b"\xff", b"d"]),
            "invalid value '\\377' for '--algorithm': not valid UTF-8",
        ),
        // A file name first, and a path option's value: neither is the value refused.
        (
            bytes(&[
                b"-r",
                b"d\xff",
                b"--files-from",
                b"\xfd",
                b"--include",
                b"\xfe",
            ]),
            "invalid value '\\376' for '--include': not valid UTF-8",
        ),
    ] {
        assert_eq!(usage_error(&args), message, "{args:?}");
    }
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "f\u{e9}", b"data\n");
    let name = OsStr::from_bytes(b"f\xe9");
    std::fs::rename(dir.path().join("f\u{e9}"), dir.path().join(name)).unwrap();
    let hashed = fasthash(dir.path())
        .args([OsStr::new("-a"), OsStr::new("md5"), name])
        .output();
    assert_eq!(hashed.status.code(), Some(0), "{}", text(&hashed.stderr));
}

#[test]
fn misspellings_get_the_closest_right_spelling() {
    for (args, close) in [
        (&["--jsno"][..], "--json"),
        (&["--recursiv"], "--recursive"),
        (&["-a", "sha265"], "sha256"),
        (&["-a", "BLAKE-3"], "blake3"),
        (&["-a", "xxhash-64"], "xxhash64"),
        (&["--s3-preset", "awscli-v2"], "aws-cli-v2"),
        (&["--s3-preset", "boto"], "boto3"),
        (&["--checksum-type", "compsite"], "composite"),
        (&["--generate", "mann"], "man"),
    ] {
        let message = usage_error(args);
        assert!(
            message.contains(&format!("; did you mean '{close}'?")),
            "{args:?}: {message}"
        );
    }
    assert_eq!(
        usage_error(&["-a", "sha265"]),
        format!(
            "unknown algorithm 'sha265'; did you mean 'sha256'? Valid names: {}",
            Algorithm::names_list()
        )
    );
    // Nothing close: the valid names alone.
    assert_eq!(
        usage_error(&["-a", "qqqq"]),
        format!(
            "unknown algorithm 'qqqq'; valid names: {}",
            Algorithm::names_list()
        )
    );
}

/// The names every list shows are the table's, in its order: the usage error's and `-a`'s help.
#[test]
fn algorithm_lists_follow_the_table() {
    let table: Vec<&str> = fasthash::kernels::ALGORITHMS
        .iter()
        .map(|info| info.name)
        .collect();
    assert_eq!(Algorithm::names_list(), table.join(", "));
    let message = usage_error(&["-a", "qqqq"]);
    let listed: Vec<&str> = message
        .split_once("valid names: ")
        .unwrap()
        .1
        .split(", ")
        .collect();
    assert_eq!(listed, table);
    let dir = tempfile::tempdir().unwrap();
    for help in ["-h", "--help"] {
        let output = fasthash(dir.path()).arg(help).output();
        // Lines wrapped at any width read the same once their breaks are spaces again.
        let flat = text(&output.stdout)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            flat.contains(&format!("Algorithm: {} (default sha256", table.join(", "))),
            "{help}: {flat}"
        );
    }
}

#[test]
fn short_help_fits_a_terminal_and_points_to_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let output = fasthash(dir.path()).env("COLUMNS", "80").arg("-h").output();
    assert_eq!(output.status.code(), Some(0));
    let short = text(&output.stdout);
    assert!(short.lines().count() <= 30, "{short}");
    assert!(short.contains("Usage: fasthash"), "{short}");
    assert!(short.lines().last().unwrap().contains("--help"), "{short}");
    assert!(short.contains("man fasthash"), "{short}");
    for shown in ["--algorithm", "--check", "--quiet", "--recursive", "--s3 "] {
        assert!(short.contains(shown), "-h lacks {shown}: {short}");
    }
    let long = text(&fasthash(dir.path()).arg("--help").output().stdout);
    for option in [
        "--no-mmap",
        "--bench",
        "--seconds",
        "--shard",
        "--verify-s3",
    ] {
        assert!(!short.contains(option), "-h shows {option}: {short}");
        assert!(long.contains(option), "--help lacks {option}");
    }
    assert!(long.contains("Examples:") && long.contains("Exit status:"));
}

/// Help and version are output, not errors: standard output, exit 0, and a write error when
/// that output cannot be written.
#[test]
fn help_and_version_are_written_to_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    for arg in ["-h", "--help", "-V", "--version"] {
        let output = fasthash(dir.path()).arg(arg).output();
        assert_eq!(output.status.code(), Some(0), "{arg}");
        assert!(output.stderr.is_empty(), "{arg}");
        assert!(!output.stdout.is_empty(), "{arg}");
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let output = fasthash(dir.path()).arg(arg).redirect_stdout(full).output();
        assert_eq!(output.status.code(), Some(1), "{arg}");
        assert_eq!(
            text(&output.stderr),
            "fasthash: write error: No space left on device\n"
        );
    }
}

/// `--version` and `-V` name the CPU and the features the kernels can use, read only when
/// asked for.
#[test]
fn version_names_the_cpu_and_its_features() {
    let dir = tempfile::tempdir().unwrap();
    for arg in ["-V", "--version"] {
        let output = fasthash(dir.path()).arg(arg).output();
        let lines: Vec<String> = text(&output.stdout).lines().map(String::from).collect();
        assert_eq!(
            lines[0],
            format!("fasthash {}", env!("CARGO_PKG_VERSION")),
            "{arg}"
        );
        assert!(
            lines[1].starts_with("CPU: ") && lines[1].len() > 5,
            "{arg}: {lines:?}"
        );
        assert!(lines[2].starts_with("CPU features:"), "{arg}: {lines:?}");
    }
}

/// The voice is fasthash's only: b3sum keeps clap's own words, coreutils' names glibc's.
#[test]
fn drop_in_names_keep_their_own_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let b3sum = fasthash(dir.path()).called("b3sum").arg("--jsno").output();
    assert_eq!(b3sum.status.code(), Some(2));
    let stderr = text(&b3sum.stderr);
    assert!(
        stderr.starts_with("error: unexpected argument '--jsno'"),
        "{stderr}"
    );
    assert!(stderr.contains("Usage: b3sum"), "{stderr}");
    let sha256sum = fasthash(dir.path())
        .called("sha256sum")
        .arg("--jsno")
        .output();
    assert_eq!(sha256sum.status.code(), Some(1));
    assert_eq!(
        text(&sha256sum.stderr),
        "sha256sum: unrecognized option '--jsno'\nTry 'sha256sum --help' for more information.\n"
    );
}

/// Where GCC's unwinder was linked statically (build.rs), the program does not load
/// `libgcc_s.so.1` at start, and a panic still unwinds in a program linked that way (this
/// test's own).
#[test]
fn the_program_does_not_load_libgcc_s_where_its_unwinder_is_linked_in() {
    if option_env!("FASTHASH_STATIC_UNWINDER").is_none() {
        eprintln!(
            "skipped: this build links GCC's unwinder as usual (no libgcc_eh.a for the target)"
        );
        return;
    }
    let binary = std::fs::read(FASTHASH).unwrap();
    let needed = b"libgcc_s.so";
    assert!(
        !binary.windows(needed.len()).any(|window| window == needed),
        "{FASTHASH} names libgcc_s.so"
    );
    // Unwinding without the panic hook, which would print a message.
    let unwound = std::panic::catch_unwind(|| std::panic::resume_unwind(Box::new(7u8)));
    assert_eq!(unwound.unwrap_err().downcast_ref::<u8>(), Some(&7));
}
