//! `b2sum`, `cksum` and `sum` beside GNU coreutils: the same stdout, stderr and exit code,
//! run by their bare names in a C locale, on awkward file names, for every option the
//! installed release shares with 9.11. What only 9.11 has (`-a sha2`, `sha3`, `crc32b`,
//! `--raw`, `--base64`, its wording of two messages) is checked against NIST's SHA-3 answers and against
//! what 9.11's `src/cksum.c` prints, as cited.

use crate::common;

use common::{
    assert_output, assert_same_output, fasthash, os, os_names, pattern, peer, program,
    status_lines_as_coreutils_9_11, text, write_files, Charset,
};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStringExt;
use std::path::Path;
use std::process::Output;

/// A directory of files with awkward names.
fn setup() -> tempfile::TempDir {
    let files = tempfile::tempdir().unwrap();
    let names: [&[u8]; 8] = [
        b"plain",
        b"with space",
        b"back\\slash",
        b"new\nline",
        b"-dash",
        b"\xff not utf-8",
        b"empty",
        b"big",
    ];
    write_files(files.path(), &names, |index, name| {
        let len = match name {
            b"empty" => 0,
            b"big" => 3_000_017,
            _ => index * 1_237 + 5,
        };
        pattern(len, 131, index)
    });
    files
}

fn names() -> Vec<OsString> {
    os_names(&[
        b"plain",
        b"with space",
        b"back\\slash",
        b"new\nline",
        b"\xff not utf-8",
        b"empty",
        b"big",
    ])
}

/// fasthash under one of cksum's names in `dir`, in the C locale as [`same`] runs it.
fn dropin<S: AsRef<OsStr>>(program: &str, dir: &Path, args: impl IntoIterator<Item = S>) -> Output {
    fasthash(dir)
        .called(program)
        .env("LC_ALL", "C")
        .args(args)
        .output()
}

/// Runs `program ARGS` as coreutils and as fasthash, and asserts the same bytes and status.
fn same(dir: &Path, program_name: &str, args: &[OsString]) {
    let Some(peer) = peer(program_name) else {
        return;
    };
    let stdin = b"standard input's bytes\n";
    let run = |binary: &Path| {
        program(binary, dir)
            .called(program_name)
            .env("LC_ALL", "C")
            .args(args)
            .stdin(stdin)
            .output()
    };
    let mut theirs = run(&peer);
    let ours = run(Path::new(common::FASTHASH));
    // Status lines of -c as 9.11 quotes their names (9.1 escaped them otherwise).
    if args.iter().any(|a| a == "-c") {
        theirs.stdout = status_lines_as_coreutils_9_11(&theirs.stdout, Charset::SingleByte);
    }
    assert_same_output(&format!("{program_name} {args:?}"), &ours, &theirs);
}

fn with_names(args: &[&str]) -> Vec<OsString> {
    let mut all = os(args);
    all.extend(names());
    all
}

#[test]
fn sum_prints_as_sum_does() {
    let dir = setup();
    let dir = dir.path();
    for args in [
        &[][..],
        &["-r"],
        &["-s"],
        &["--sysv"],
        &["-rs"],
        &["-s", "-r"],
    ] {
        same(dir, "sum", &with_names(args));
        same(dir, "sum", &os(args));
        same(dir, "sum", &[os(args), os(&["-", "missing", "."])].concat());
    }
    for bad in [&["-x"][..], &["--bogus"], &["--sys=1"], &["-c", "plain"]] {
        same(dir, "sum", &os(bad));
    }
}

#[test]
fn cksum_prints_as_cksum_does() {
    let dir = setup();
    let dir = dir.path();
    for args in [
        &[][..],
        &["-a", "crc"],
        &["-a", "bsd"],
        &["-a", "sysv"],
        &["--algorithm=md5"],
        &["-a", "sha1", "--untagged"],
        &["-a", "sha256", "--tag"],
        &["-a", "sha512"],
        &["-a", "sha384", "--untagged", "-z"],
        &["-a", "blake2b"],
        &["-a", "blake2b", "-l", "256"],
        &["-a", "blake2b", "--length=8", "--untagged"],
        &["-a", "sm3"],
        &["--untagged", "-a", "sm3", "--tag"],
    ] {
        same(dir, "cksum", &with_names(args));
        same(dir, "cksum", &os(args));
        same(dir, "cksum", &[os(args), os(&["-", "missing"])].concat());
    }
    for bad in [
        // (`-a md5 -l 12`: 9.1 refused the length before the algorithm; see below.)
        &["-a", "md5", "-l", "x", "plain"][..],
        &["-a", "blake2b", "-l", "12", "plain"],
        &["-a", "blake2b", "-l", "1024", "plain"],
        &["-a", "blake2b", "-l", "x", "plain"],
        &["-a"],
        &["--algo", "md5", "plain"],
    ] {
        same(dir, "cksum", &os(bad));
    }
}

#[test]
fn b2sum_prints_and_checks_as_b2sum_does() {
    let dir = setup();
    let dir = dir.path();
    for args in [
        &[][..],
        &["-l", "256"],
        &["--length=128", "--tag"],
        &["-l", "8", "-b"],
        &["-l", "0"],
        &["-z", "-l", "160"],
    ] {
        same(dir, "b2sum", &with_names(args));
        same(dir, "b2sum", &os(args));
    }
    for bad in [&["-l", "12"][..], &["-l", "520"], &["-l"], &["--len", "x"]] {
        same(dir, "b2sum", &os(bad));
    }
    // A manifest of several lengths, tagged and not: b2sum -c takes each line's length.
    let mut manifest = Vec::new();
    for args in [&["-l", "256"][..], &["--tag", "-l", "128"], &[], &["--tag"]] {
        let output = dropin("b2sum", dir, with_names(args));
        manifest.extend_from_slice(&output.stdout);
    }
    manifest.extend_from_slice(b"not a line\n");
    std::fs::write(dir.join("B2SUMS"), &manifest).unwrap();
    std::fs::write(dir.join("big"), b"changed").unwrap();
    for args in [
        &["-c", "B2SUMS"][..],
        &["-c", "-l", "256", "B2SUMS"],
        &["-c", "--quiet", "B2SUMS"],
        &["-c", "--strict", "-w", "B2SUMS"],
        &["-c", "--status", "B2SUMS"],
    ] {
        same(dir, "b2sum", &os(args));
        same(dir, "cksum", &[os(&["-a", "blake2b"]), os(args)].concat());
    }
}

#[test]
fn cksum_checks_tagged_lines_of_every_algorithm() {
    let dir = setup();
    let dir = dir.path();
    let mut manifest = Vec::new();
    for args in [
        &["-a", "md5"][..],
        &["-a", "sha1"],
        &["-a", "sha256"],
        &["-a", "blake2b", "-l", "64"],
        &["-a", "sm3"],
    ] {
        let output = dropin("cksum", dir, with_names(args));
        manifest.extend_from_slice(&output.stdout);
    }
    // Untagged lines need -a; legacy checksums are never checked.
    let untagged = dropin("cksum", dir, with_names(&["-a", "sha512", "--untagged"]));
    manifest.extend_from_slice(&untagged.stdout);
    std::fs::write(dir.join("SUMS"), &manifest).unwrap();
    std::fs::write(dir.join("plain"), b"changed").unwrap();
    for args in [
        &["-c", "SUMS"][..],
        &["-c", "--quiet", "SUMS"],
        &["-c", "-a", "sha512", "SUMS"],
        &["-c", "-a", "md5", "--warn", "SUMS"],
        &["-c", "--ignore-missing", "SUMS", "missing"],
    ] {
        same(dir, "cksum", &os(args));
    }
}

/// What coreutils 9.11 has and the installed release may not. SHA-3 answers are NIST's
/// (tests/vectors/nist-cavp/SHA3_256ShortMsg.rsp, `Len = 24`).
#[test]
fn what_only_coreutils_9_11_has() {
    let dir = setup();
    let dir = dir.path();
    let message = common::decode_hex("b053fa");
    std::fs::write(dir.join("nist"), &message).unwrap();
    let ours = |args: &[&str]| dropin("cksum", dir, args);
    let nist: Vec<_> = common::parse_rsp(
        &common::repo_path("tests/vectors/nist-cavp/SHA3_256ShortMsg.rsp"),
        "sha3-256",
    )
    .into_iter()
    .filter(|answer| answer.message == message)
    .collect();
    assert_eq!(nist.len(), 1);
    let expected = &nist[0].expected_hex;
    // cksum.c output_file: "SHA3" then "-%u" with the length for sha3.
    assert_eq!(
        text(&ours(&["-a", "sha3", "-l", "256", "nist"]).stdout),
        format!("SHA3-256 (nist) = {expected}\n")
    );
    // sha2 prints "SHA%u" (output_file), and checks lines of every length (digest_check).
    let sha2 = ours(&["-a", "sha2", "-l", "384", "--untagged", "nist"]);
    let sha384 = dropin("cksum", dir, os(&["-a", "sha384", "--untagged", "nist"]));
    assert_eq!(sha2.stdout, sha384.stdout);
    std::fs::write(
        dir.join("S"),
        [
            ours(&["-a", "sha3", "-l", "256", "nist"]).stdout,
            ours(&["-a", "sha3", "-l", "512", "nist"]).stdout,
        ]
        .concat(),
    )
    .unwrap();
    let checked = ours(&["-c", "-a", "sha3", "S"]);
    assert_eq!(text(&checked.stdout), "nist: OK\nnist: OK\n");
    // "--algorithm=%s requires specifying --length 224, 256, 384, or 512".
    let refused = ours(&["-a", "sha3", "nist"]);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        text(&refused.stderr),
        "cksum: --algorithm=sha3 requires specifying --length 224, 256, 384, or 512\n"
    );
    let refused = ours(&["-a", "sha2", "-l", "160", "nist"]);
    assert_eq!(
        text(&refused.stderr),
        "cksum: invalid length: '160'\ncksum: digest length for 'SHA2' must be 224, 256, 384, or 512\n"
    );
    // -l below zero: xnumtoimax's error (EOVERFLOW), where 9.1 gave none; -0 is 0.
    let negative = dropin("b2sum", dir, os(&["-l", "-8", "nist"]));
    assert_eq!(negative.status.code(), Some(1));
    assert_eq!(
        text(&negative.stderr),
        "b2sum: invalid length: '-8': Value too large for defined data type\n"
    );
    let zero = dropin("b2sum", dir, os(&["--length=-0", "nist"]));
    assert_eq!(zero.stdout, dropin("b2sum", dir, os(&["nist"])).stdout);
    // crc32b: output_crc, "%u %jd" (zlib's CRC-32 of "123456789" is 0xCBF43926, the
    // catalogue's check value).
    std::fs::write(dir.join("check"), b"123456789").unwrap();
    assert_eq!(
        text(&ours(&["-a", "crc32b", "check"]).stdout),
        format!("{} 9 check\n", 0xCBF4_3926u32)
    );
    // --base64 (9.2 and later), written and checked.
    use base64::Engine as _;
    let base64 = base64::engine::general_purpose::STANDARD.encode(common::decode_hex(expected));
    let written = ours(&["-a", "sha3", "-l", "256", "--base64", "nist"]);
    assert_eq!(
        text(&written.stdout),
        format!("SHA3-256 (nist) = {base64}\n")
    );
    std::fs::write(dir.join("B64"), &written.stdout).unwrap();
    assert_eq!(text(&ours(&["-c", "B64"]).stdout), "nist: OK\n");
    // --raw: the digest's bytes (a legacy checksum's big-endian); one file only.
    assert_eq!(
        ours(&["--raw", "-a", "crc32b", "check"]).stdout,
        0xCBF4_3926u32.to_be_bytes()
    );
    assert_eq!(
        ours(&["--raw", "-a", "sha3", "-l", "256", "nist"]).stdout,
        common::decode_hex(expected)
    );
    let refused = ours(&["--raw", "check", "nist"]);
    assert_eq!(
        text(&refused.stderr),
        "cksum: the --raw option is not supported with multiple files\n"
    );
    let refused = ours(&["--raw", "--base64", "check"]);
    assert!(text(&refused.stderr).starts_with("cksum: --base64 and --raw are mutually exclusive\n"));
    // 9.11's names for -a (algorithm_args), listed when one is unknown, as argmatch lists them.
    let refused = ours(&["-a", "nope", "check"]);
    assert_eq!(refused.status.code(), Some(1));
    let names = [
        "bsd", "sysv", "crc", "crc32b", "md5", "sha1", "sha224", "sha256", "sha384", "sha512",
        "sha2", "sha3", "blake2b", "sm3",
    ];
    let listed: String = names.iter().map(|n| format!("  - '{n}'\n")).collect();
    assert_eq!(
        text(&refused.stderr),
        format!(
            "cksum: invalid argument 'nope' for '--algorithm'\nValid arguments are:\n{listed}\
             Try 'cksum --help' for more information.\n"
        )
    );
    // `SHA2-384 (F) = ` reads as `SHA384 (F) = `, with or without -a sha2; `SHA2-128` is no
    // line (coreutils' tests/cksum/cksum-c.sh).
    let sha384 = ours(&["-a", "sha384", "nist"]);
    let renamed = text(&sha384.stdout).replacen("SHA", "SHA2-", 1);
    std::fs::write(dir.join("SHA2"), renamed).unwrap();
    assert_eq!(text(&ours(&["-c", "SHA2"]).stdout), "nist: OK\n");
    assert_eq!(
        text(&ours(&["-c", "-a", "sha2", "SHA2"]).stdout),
        "nist: OK\n"
    );
    std::fs::write(
        dir.join("BAD"),
        "SHA2-128 (nist) = 38b060a751ac96384cd9327eb1b1e36a\n",
    )
    .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&ours(&["-c", "BAD"]).stderr),
        "cksum: BAD: no properly formatted checksum lines found\n"
    );
    // A length too large for any integer is clamped, then refused as too long
    // (xnumtoimax with XTOINT_MAX_QUIET; coreutils' own tests/cksum/b2sum.sh checks this).
    let huge = dropin("b2sum", dir, os(&["-l", "18446744073709551616", "check"]));
    assert_eq!(
        text(&huge.stderr),
        "b2sum: invalid length: '18446744073709551616'\nb2sum: maximum digest length for 'BLAKE2b' is 512 bits\n"
    );
    // "--text mode is only supported with --untagged" (cksum.c, with prefix_tag set).
    assert!(
        String::from_utf8_lossy(&ours(&["-a", "md5", "-t", "check"]).stderr)
            .starts_with("cksum: --text mode is only supported with --untagged\n")
    );
    // --tag with --check: 9.11's cksum sets prefix_tag and refuses it ("meaningless").
    assert!(String::from_utf8_lossy(&ours(&["--tag", "-c", "S"]).stderr)
        .starts_with("cksum: the --tag option is meaningless when verifying checksums\n"));
    // The two messages 9.11 words otherwise than 9.1.
    assert_eq!(
        String::from_utf8_lossy(&ours(&["-c", "-a", "crc32b", "S"]).stderr),
        "cksum: --check is not supported with --algorithm={bsd,sysv,crc,crc32b}\n"
    );
    assert_eq!(
        String::from_utf8_lossy(&ours(&["-l", "256", "check"]).stderr),
        "cksum: --length is only supported with --algorithm blake2b, sha2, or sha3\n"
    );
}

/// Under fasthash's own name, options that mean nothing for the legacy checksums are refused.
#[test]
fn fasthash_refuses_what_legacy_checksums_cannot_do() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f"), b"x").unwrap();
    for (algorithm, option) in [
        ("crc", "-c"),
        ("bsd", "--tag"),
        ("sysv", "--base64"),
        ("crc32b", "-b"),
    ] {
        let output = fasthash(dir.path())
            .args(["-a", algorithm, option, "f"])
            .output();
        assert_eq!(output.status.code(), Some(2), "{algorithm} {option}");
        assert!(output.stdout.is_empty());
        assert!(text(&output.stderr).contains("does not apply to -a"));
    }
    // Without them, cksum's own line.
    let output = fasthash(dir.path()).args(["-a", "crc", "f"]).output();
    if let Some(cksum) = peer("cksum") {
        let expected = program(cksum, dir.path()).arg("f").output();
        assert_eq!(output.stdout, expected.stdout);
    }
}

/// `-l 0` asks for the default length, which every algorithm has: 9.11 refuses only a
/// non-zero length outside blake2b, sha2 and sha3 (cksum.c tests `digest_length &&`;
/// coreutils' tests/cksum/cksum-raw.sh passes `-l0` to every algorithm).
/// coreutils reads `-a` (XARGMATCH_EXACT) and `-l` (xnumtoimax) in its option loop, so a bad
/// argument is refused where it stands, before a `--help` after it is met; one after `--help`
/// is never read. Both releases do this; the list of `-a` names is 9.11's (`src/cksum.c`).
#[test]
fn a_bad_option_argument_is_refused_before_a_later_help() {
    let dir = setup();
    let dir = dir.path();
    for (program_name, args) in [
        ("cksum", &["--length=x", "--help"][..]),
        ("cksum", &["-a", "md5", "-lx", "--help"]),
        ("b2sum", &["-l", "+", "--help"]),
    ] {
        same(dir, program_name, &os(args));
    }
    let length = dropin("b2sum", dir, ["-l", "x", "--help"]);
    assert_output(
        "b2sum -l x --help",
        &length,
        "",
        "b2sum: invalid length: 'x'\n",
        1,
    );
    let algorithm = dropin("cksum", dir, ["-a", "foo", "--help"]);
    assert!(
        algorithm.stdout.is_empty(),
        "cksum -a foo --help printed help"
    );
    assert!(
        text(&algorithm.stderr).starts_with("cksum: invalid argument 'foo' for '--algorithm'\n"),
        "{}",
        text(&algorithm.stderr)
    );
    assert_eq!(algorithm.status.code(), Some(1));
    // The help itself is our own text, not coreutils'.
    for (program_name, args) in [
        ("cksum", ["--help", "-a", "foo"]),
        ("b2sum", ["--help", "-l", "x"]),
    ] {
        let help_first = dropin(program_name, dir, args);
        assert!(text(&help_first.stdout).starts_with(&format!("Usage: {program_name} ")));
        assert_eq!(help_first.status.code(), Some(0), "{program_name} {args:?}");
    }
}

/// getopt lists the options an abbreviation could be in the order of the program's table:
/// cksum 9.11's has `--base64` before `--binary` (`long_options` in `src/cksum.c`; 9.1 has no
/// `--base64`, so only the message of 9.11 is asserted).
#[test]
fn cksum_lists_ambiguous_options_in_its_own_order() {
    let dir = setup();
    let output = dropin("cksum", dir.path(), ["--b", "plain"]);
    assert_output(
        "cksum --b",
        &output,
        "",
        "cksum: option '--b' is ambiguous; possibilities: '--base64' '--binary'\n\
         Try 'cksum --help' for more information.\n",
        1,
    );
}

#[test]
fn cksum_takes_length_zero_with_any_algorithm() {
    let dir = setup();
    let dir = dir.path();
    for algorithm in ["bsd", "sysv", "crc", "crc32b", "md5", "sha1", "sm3"] {
        let with_zero = dropin("cksum", dir, ["-a", algorithm, "-l", "0", "plain"]);
        let without = dropin("cksum", dir, ["-a", algorithm, "plain"]);
        assert_eq!(with_zero.status.code(), Some(0), "{algorithm}");
        assert_eq!(with_zero.stdout, without.stdout, "{algorithm}");
        assert!(with_zero.stderr.is_empty(), "{algorithm}");
    }
    // A length other than 0 is refused for the algorithm first, whatever it is: 9.11 checks
    // it only after reading every option (9.1 refused 12 as "not a multiple of 8" at once).
    let twelve = dropin("cksum", dir, ["-a", "md5", "-l", "12", "plain"]);
    assert_eq!(
        text(&twelve.stderr),
        "cksum: --length is only supported with --algorithm blake2b, sha2, or sha3\n"
    );
    assert_eq!(twelve.status.code(), Some(1));
    // A length that is not a number is still refused as one.
    let bad = dropin("cksum", dir, ["-a", "md5", "-l", "x", "plain"]);
    assert_eq!(text(&bad.stderr), "cksum: invalid length: 'x'\n");
    assert_eq!(bad.status.code(), Some(1));
}

/// `cksum --help` lists the `-a` names one a line, two spaces in, in cksum's order: coreutils'
/// tests/cksum/cksum-base64.pl compares that list with its own.
#[test]
fn cksum_help_lists_the_algorithm_names_one_a_line() {
    let dir = setup();
    let dir = dir.path();
    let help = dropin("cksum", dir, ["--help"]);
    let text = String::from_utf8(help.stdout).unwrap();
    let listed: Vec<&str> = text
        .lines()
        .filter_map(|line| line.strip_prefix("  "))
        .filter(|rest| rest.starts_with(|c: char| c.is_ascii_alphabetic()))
        .map(|rest| rest.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        listed,
        ["sysv", "bsd", "crc", "crc32b", "md5", "sha1", "sha2", "sha3", "blake2b", "sm3"]
    );
    assert!(text.contains("\n  -c, --check "), "{text}");
}

/// `cksum -c --warn` names a malformed line's algorithm as 9.11 does (`DIGEST_TYPE_STRING`, a
/// global): the `-a` family's tag (`SHA3`, not `SHA3-256`), `CRC` before any tagged line
/// without `-a`, and after one, the tag of the last line that carried a known tag, even a
/// line that was malformed itself (coreutils' tests/cksum/cksum-c.sh and cksum-sha3.sh).
#[test]
fn cksum_warn_names_the_algorithm_cksum_has_at_that_line() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let empty_sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    std::fs::write(dir.join("e"), b"").unwrap();
    std::fs::write(
        dir.join("mixed"),
        format!(
            "junk\nSHA256 (e) = {empty_sha256}\njunk\nSM3 (e) = 12\nmore junk\nCRC (e) = 1\nlast junk\n"
        ),
    )
    .unwrap();
    let output = dropin("cksum", dir, ["-c", "-w", "mixed"]);
    assert_eq!(
        text(&output.stderr),
        "cksum: mixed: 1: improperly formatted CRC checksum line\n\
         cksum: mixed: 3: improperly formatted SHA256 checksum line\n\
         cksum: mixed: 4: improperly formatted SM3 checksum line\n\
         cksum: mixed: 5: improperly formatted SM3 checksum line\n\
         cksum: mixed: 6: improperly formatted SM3 checksum line\n\
         cksum: mixed: 7: improperly formatted SM3 checksum line\n\
         cksum: WARNING: 6 lines are improperly formatted\n"
    );
    assert_eq!(text(&output.stdout), "e: OK\n");
    assert_eq!(output.status.code(), Some(0));

    // A digest one digit short is malformed, named after its own tag.
    std::fs::write(
        dir.join("short"),
        format!("SHA256 (e) = {}\n", &empty_sha256[..63]),
    )
    .unwrap();
    let output = dropin("cksum", dir, ["-c", "-w", "short"]);
    assert_eq!(
        text(&output.stderr),
        "cksum: short: 1: improperly formatted SHA256 checksum line\n\
         cksum: short: no properly formatted checksum lines found\n"
    );

    // Under -a sha3, a length SHA-3 does not have is named SHA3.
    std::fs::write(
        dir.join("odd"),
        format!("SHA3-248 (e) = {}\n", &empty_sha256[..62]),
    )
    .unwrap();
    let output = dropin("cksum", dir, ["-a", "sha3", "-c", "-w", "odd"]);
    assert_eq!(
        text(&output.stderr),
        "cksum: odd: 1: improperly formatted SHA3 checksum line\n\
         cksum: odd: no properly formatted checksum lines found\n"
    );
    assert_eq!(output.status.code(), Some(1));
}

/// Under `cksum -a sha2 -c`, the first line tagged SHA224 to SHA512 settles the algorithm for
/// the rest of the manifest, as 9.11's global does: a later line of another SHA-2 length, or
/// tagged `SHA2-NNN`, is malformed.
#[test]
fn cksum_sha2_check_keeps_the_first_tagged_member() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    std::fs::write(dir.join("e"), b"").unwrap();
    let sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    let sha384 = "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b";
    std::fs::write(
        dir.join("s"),
        format!(
            "SHA2-384 (e) = {sha384}\nSHA256 (e) = {sha256}\nSHA384 (e) = {sha384}\nSHA2-256 (e) = {sha256}\n"
        ),
    )
    .unwrap();
    let output = dropin("cksum", dir, ["-a", "sha2", "-c", "-w", "s"]);
    assert_eq!(text(&output.stdout), "e: OK\ne: OK\n");
    assert_eq!(
        text(&output.stderr),
        "cksum: s: 3: improperly formatted SHA256 checksum line\n\
         cksum: s: 4: improperly formatted SHA256 checksum line\n\
         cksum: WARNING: 2 lines are improperly formatted\n"
    );
}

/// A base64 digest is well formed when its characters and `=` padding are, even if its last
/// character's unused bits are not zero; it then matches no file (9.11 compares the text with
/// the digest's encoding), so the line FAILS rather than being malformed. A digest that starts
/// with a tag's letters is read as an untagged one (coreutils' tests/cksum/cksum-c.sh).
#[test]
fn cksum_reads_base64_digests_by_their_shape() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    std::fs::write(dir.join("e"), b"").unwrap();
    // SHA-1 of nothing is 2jmj7l5rSw0yVb/vlWAYkK/YBwk=; `l` leaves a nonzero unused bit.
    std::fs::write(
        dir.join("s"),
        "SHA1+++++++++++++++++++++++=  e\n2jmj7l5rSw0yVb/vlWAYkK/YBwl=  e\n2jmj7l5rSw0yVb/vlWAYkK/YBwk=  e\n",
    )
    .unwrap();
    let output = dropin("cksum", dir, ["-a", "sha1", "-c", "s"]);
    assert_eq!(text(&output.stdout), "e: FAILED\ne: FAILED\ne: OK\n");
    assert_eq!(
        text(&output.stderr),
        "cksum: WARNING: 2 computed checksums did NOT match\n"
    );
    assert_eq!(output.status.code(), Some(1));
}

/// `--version` and `--help` to a standard output the caller closed fail as coreutils' do
/// (close_stdout: "write error: Bad file descriptor", exit 1), where they printed nothing and
/// exited 0 (coreutils' tests/misc/io-errors.sh runs every program's --version so).
#[test]
fn version_and_help_to_a_closed_stdout_are_write_errors() {
    let dir = tempfile::tempdir().unwrap();
    for program in ["cksum", "b2sum", "sum"] {
        for option in ["--version", "--help"] {
            let output = fasthash(dir.path())
                .called(program)
                .env("LC_ALL", "C")
                .arg(option)
                .shell("", ">&-")
                .output();
            assert_eq!(
                text(&output.stderr),
                format!("{program}: write error: Bad file descriptor\n"),
                "{program} {option}"
            );
            assert_eq!(output.status.code(), Some(1), "{program} {option}");
        }
    }
}

/// A directory named as a file is read, so the kernel's error is the one reported: EISDIR
/// as a rule, and the device's EIO when reads fail (coreutils' tests/misc/read-errors.sh
/// injects it with strace, which this does too where strace can).
#[test]
fn a_directory_is_read_for_its_error() {
    let dir = setup();
    let dir = dir.path();
    let output = dropin("cksum", dir, ["-a", "md5", "."]);
    assert_eq!(text(&output.stderr), "cksum: .: Is a directory\n");
    assert_eq!(output.status.code(), Some(1));
    let Some(strace) = common::strace_injecting_faults() else {
        return;
    };
    let injected = cksum_with_eio_on(&strace, dir, &["-f"], ".", &["-a", "md5", "."]);
    let stderr = text(&injected.stderr);
    assert!(
        stderr.ends_with("cksum: .: Input/output error\n"),
        "{stderr}"
    );
    assert_eq!(injected.status.code(), Some(1));
}

/// fasthash as `cksum` with `args`, in `dir`, under strace (with `tracing`, such as `-f`):
/// every read of `path` fails with EIO, as coreutils' tests inject it.
fn cksum_with_eio_on(
    strace: &Path,
    dir: &Path,
    tracing: &[&str],
    path: &str,
    args: &[&str],
) -> std::process::Output {
    program(strace, dir)
        .args(tracing)
        .args(["-o", "/dev/null", "-P", path, "-e", "/read,splice"])
        .args(["-e", "fault=all:error=EIO", "cksum"])
        .args(args)
        .env(
            "PATH",
            common::drop_in_dir(Path::new(common::FASTHASH), "cksum"),
        )
        .env("LC_ALL", "C")
        .output()
}

/// A read error injected the way coreutils' tests/cksum/cksum-c.sh injects it: by strace
/// following the process's own thread only (no `-f`). A manifest of a few small files is
/// checked on that thread, so the error reaches the check: the file fails, the other is OK,
/// and the run says a file could not be read (exit 1), for an empty file (`read`) and one
/// with bytes (read whole as it is opened).
#[test]
fn a_read_error_on_the_process_own_thread_fails_the_line() {
    let Some(strace) = common::strace_injecting_faults() else {
        return;
    };
    for contents in [&b""[..], b"bytes\n"] {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        std::fs::write(dir.join("eio"), contents).unwrap();
        std::fs::write(dir.join("ok"), b"").unwrap();
        let listed = dropin("cksum", dir, ["-a", "md5", "eio", "ok"]);
        assert_eq!(listed.status.code(), Some(0));
        std::fs::write(dir.join("check.md5"), &listed.stdout).unwrap();
        let injected = cksum_with_eio_on(&strace, dir, &[], "eio", &["--check", "check.md5"]);
        assert_eq!(
            text(&injected.stdout),
            "eio: FAILED open or read\nok: OK\n",
            "{contents:?}"
        );
        let stderr = text(&injected.stderr);
        assert!(
            stderr.contains("cksum: eio: Input/output error\n"),
            "{stderr}"
        );
        assert!(
            stderr.ends_with("cksum: WARNING: 1 listed file could not be read\n"),
            "{stderr}"
        );
        assert_eq!(injected.status.code(), Some(1));
    }
}

/// Option arguments in coreutils' messages are quoted by gnulib's `quote` (quotearg.c,
/// `locale_quoting_style`; `gettext_quote` picks the marks): `‘12’` when the locale's charset
/// is UTF-8, `'12'` otherwise, a backslash doubled, the closing mark escaped and bytes it cannot
/// print as octal escapes. b2sum's lines are the same in 9.1 and 9.11, so they are compared
/// with the installed b2sum too; cksum's list of `-a` names is 9.11's (`src/cksum.c`,
/// `algorithm_args`, refused through gnulib's `argmatch_die`).
#[test]
fn option_arguments_are_quoted_as_the_locale_quotes_them() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    std::fs::write(dir.join("f"), b"").unwrap();
    let real_b2sum = peer("b2sum");
    for (locale, charset) in common::LOCALES {
        let q = |text: &str| match charset {
            Charset::Utf8 => format!("\u{2018}{text}\u{2019}"),
            Charset::SingleByte => format!("'{text}'"),
        };
        // `a\xffb\c'`: the byte escaped in both locales, the `'` only where it closes.
        let odd_length = match charset {
            Charset::Utf8 => "\u{2018}a\\377b\\\\c'\u{2019}".to_string(),
            Charset::SingleByte => "'a\\377b\\\\c\\''".to_string(),
        };
        let b2sum_cases: [(Vec<OsString>, String); 3] = [
            (
                os(&["-l", "12", "f"]),
                format!(
                    "b2sum: invalid length: {}\nb2sum: length is not a multiple of 8\n",
                    q("12")
                ),
            ),
            (
                os(&["-l", "1024", "f"]),
                format!(
                    "b2sum: invalid length: {}\nb2sum: maximum digest length for {} is 512 bits\n",
                    q("1024"),
                    q("BLAKE2b")
                ),
            ),
            (
                vec![
                    OsString::from("-l"),
                    OsString::from_vec(b"a\xffb\\c'".to_vec()),
                    OsString::from("f"),
                ],
                format!("b2sum: invalid length: {odd_length}\n"),
            ),
        ];
        let run = |binary: &Path, name: &str, args: &[OsString]| {
            program(binary, dir)
                .called(name)
                .env("LC_ALL", locale)
                .args(args)
                .output()
        };
        for (args, stderr) in &b2sum_cases {
            let ours = run(Path::new(common::FASTHASH), "b2sum", args);
            let what = format!("LC_ALL={locale} b2sum {args:?}");
            assert_output(&what, &ours, "", stderr, 1);
            if let Some(real) = &real_b2sum {
                assert_same_output(&what, &ours, &run(real, "b2sum", args));
            }
        }
        let valid: String = [
            "bsd", "sysv", "crc", "crc32b", "md5", "sha1", "sha224", "sha256", "sha384", "sha512",
            "sha2", "sha3", "blake2b", "sm3",
        ]
        .iter()
        .map(|name| format!("  - {}\n", q(name)))
        .collect();
        let ours = run(
            Path::new(common::FASTHASH),
            "cksum",
            &os(&["-a", "foo", "f"]),
        );
        assert_output(
            &format!("LC_ALL={locale} cksum -a foo"),
            &ours,
            "",
            &format!(
                "cksum: invalid argument {} for {}\nValid arguments are:\n{valid}\
                 Try 'cksum --help' for more information.\n",
                q("foo"),
                q("--algorithm")
            ),
            1,
        );
    }
}
