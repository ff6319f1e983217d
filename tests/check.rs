//! `--check` end to end: round trips for every algorithm and layout, manifests written by the
//! peers themselves, coreutils' messages and exit codes (compared with the real programs for
//! the drop-in names), and every edge `docs/check.md` describes.

use crate::common;

use common::{
    checkable_algorithms, fasthash, os_names, pattern, peer, program,
    status_lines_as_coreutils_9_11, text, Charset, FASTHASH,
};
use std::ffi::OsString;
use std::path::Path;
use std::process::{Output, Stdio};

/// Files with varied sizes and awkward names.
fn tree() -> (tempfile::TempDir, Vec<OsString>) {
    let dir = tempfile::tempdir().unwrap();
    let names = os_names(&[
        b"plain",
        b"a space",
        b"-dash",
        b"back\\slash",
        b"new\nline",
        b"\xff\xfe bytes",
        b"empty",
    ]);
    for (i, name) in names.iter().enumerate() {
        let size = if name == "empty" { 0 } else { i * 4099 + 17 };
        std::fs::write(dir.path().join(name), pattern(size, 7, i)).unwrap();
    }
    (dir, names)
}

fn hash_to_manifest(dir: &Path, args: &[&str], names: &[OsString], manifest: &str) {
    let output = fasthash(dir).args(args).arg("--").args(names).output();
    assert!(output.status.success(), "{}", text(&output.stderr));
    std::fs::write(dir.join(manifest), output.stdout).unwrap();
}

#[test]
fn round_trip_for_every_algorithm_and_layout() {
    let (dir, names) = tree();
    for algorithm in checkable_algorithms() {
        for layout in [
            &[][..],
            &["--tag"],
            &["--base64"],
            &["--tag", "--base64"],
            &["-b"],
        ] {
            let mut args = vec!["-a", algorithm];
            args.extend_from_slice(layout);
            hash_to_manifest(dir.path(), &args, &names, "SUMS");
            // With -a, and (where the layout says which algorithm) without it.
            for with_algorithm in [true, false] {
                let mut check = vec!["-c", "SUMS"];
                if with_algorithm {
                    check.extend_from_slice(&["-a", algorithm]);
                }
                let output = fasthash(dir.path()).args(&check).output();
                let tagged = layout.contains(&"--tag");
                let unique_length = matches!(algorithm, "sha1" | "sha224" | "sha384" | "sha512");
                if !with_algorithm && !tagged && !unique_length {
                    continue; // the length alone may not tell; covered below
                }
                assert_eq!(
                    output.status.code(),
                    Some(0),
                    "{algorithm} {layout:?} -a={with_algorithm}: {}{}",
                    text(&output.stdout),
                    text(&output.stderr)
                );
                let oks = text(&output.stdout).matches(": OK\n").count();
                assert_eq!(oks, names.len(), "{algorithm} {layout:?}");
            }
        }
    }
}

#[test]
fn one_changed_byte_fails_with_coreutils_messages() {
    let (dir, names) = tree();
    for algorithm in checkable_algorithms() {
        hash_to_manifest(dir.path(), &["-a", algorithm, "--tag"], &names, "SUMS");
        let path = dir.path().join("plain");
        let mut content = std::fs::read(&path).unwrap();
        content[5] ^= 1;
        std::fs::write(&path, &content).unwrap();
        let output = fasthash(dir.path()).args(["-c", "SUMS"]).output();
        assert_eq!(output.status.code(), Some(1), "{algorithm}");
        assert!(
            text(&output.stdout).starts_with("plain: FAILED\n"),
            "{algorithm}"
        );
        assert_eq!(
            text(&output.stderr),
            "fasthash: WARNING: 1 computed checksum did NOT match\n",
            "{algorithm}"
        );
        content[5] ^= 1;
        std::fs::write(&path, &content).unwrap();
    }
}

#[test]
fn status_lines_quote_names_as_coreutils_does() {
    let (dir, names) = tree();
    hash_to_manifest(dir.path(), &[], &names, "SUMS");
    let output = fasthash(dir.path()).args(["-c", "SUMS"]).output();
    assert!(output.status.success());
    let stdout = text(&output.stdout);
    // coreutils 9.11 and later: shell quoting where the name needs it, as in its diagnostics.
    for line in [
        "plain: OK\n",
        "'a space': OK\n",
        "-dash: OK\n",
        "'back\\slash': OK\n",
        "'new'$'\\n''line': OK\n",
    ] {
        assert!(stdout.contains(line), "{line:?} in {stdout:?}");
    }
    // Bytes that are not UTF-8 are octal escapes, as gnulib's quotearg writes them.
    assert!(stdout.contains(r"''$'\377\376'' bytes': OK"), "{stdout:?}");

    // The names of coreutils' own test of this (tests/cksum/md5sum-bsd.sh), BSD lines.
    let awkward = ["a\\b", "a\\", "\\a", "a\nb", "a\tb"];
    for name in awkward {
        std::fs::write(dir.path().join(name), b"").unwrap();
    }
    let bsd: Vec<OsString> = awkward.iter().map(OsString::from).collect();
    hash_to_manifest(dir.path(), &["-a", "md5", "--tag"], &bsd, "BSD");
    let output = fasthash(dir.path())
        .args(["-c", "--strict", "BSD"])
        .output();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        "'a\\b': OK\n'a\\': OK\n'\\a': OK\n'a'$'\\n''b': OK\n'a'$'\\t''b': OK\n"
    );
}

#[test]
fn manifests_written_by_the_peers_verify() {
    let (dir, names) = tree();
    // xxhsum 0.8.1 writes names raw; keep to names it writes the way it reads them.
    let simple: Vec<OsString> = names
        .iter()
        .filter(|n| !n.as_encoded_bytes().iter().any(|b| b"\\\n".contains(b)))
        .cloned()
        .collect();
    // b3sum writes names that are not UTF-8 through a lossy conversion, so its manifest cannot
    // name them (b3sum -c refuses such lines too).
    let utf8: Vec<OsString> = names
        .iter()
        .filter(|n| n.to_str().is_some())
        .cloned()
        .collect();
    let cases: &[(&str, &[&str], &[OsString])] = &[
        ("sha256sum", &[], &names),
        ("sha256sum", &["--tag"], &names),
        ("md5sum", &[], &names),
        ("md5sum", &["--tag"], &names),
        ("sha512sum", &["-b"], &names),
        ("b3sum", &[], &utf8),
        ("b3sum", &["--tag"], &utf8),
        ("xxhsum", &[], &simple),
        ("xxhsum", &["--tag"], &simple),
        ("xxhsum", &["-H3"], &simple),
        ("xxhsum", &["-H2", "--tag"], &simple),
        ("xxhsum", &["-H3", "--tag", "--little-endian"], &simple),
        ("xxhsum", &["-H1", "--tag", "--little-endian"], &simple),
    ];
    for (tool, args, list) in cases {
        let Some(tool_path) = peer(tool) else {
            continue;
        };
        let output = program(tool_path, dir.path())
            .args(*args)
            .arg("--")
            .args(*list)
            .redirect_stderr(Stdio::null())
            .output();
        assert!(output.status.success(), "{tool} {args:?}");
        std::fs::write(dir.path().join("PEER"), &output.stdout).unwrap();
        let checked = fasthash(dir.path()).args(["-c", "PEER"]).output();
        assert_eq!(
            checked.status.code(),
            Some(0),
            "{tool} {args:?}: {}{}",
            text(&checked.stdout),
            text(&checked.stderr)
        );
        assert_eq!(
            text(&checked.stdout).matches(": OK\n").count(),
            list.len(),
            "{tool} {args:?}"
        );
    }
}

#[test]
fn crlf_bom_and_nul_terminated_manifests() {
    let (dir, names) = tree();
    hash_to_manifest(dir.path(), &["-a", "sha1"], &names[..3], "SUMS");
    let lf = std::fs::read(dir.path().join("SUMS")).unwrap();
    let mut crlf_bom = b"\xef\xbb\xbf".to_vec();
    for line in lf.split_inclusive(|&b| b == b'\n') {
        crlf_bom.extend_from_slice(&line[..line.len() - 1]);
        crlf_bom.extend_from_slice(b"\r\n");
    }
    std::fs::write(dir.path().join("CRLF"), &crlf_bom).unwrap();
    let output = fasthash(dir.path())
        .args(["-c", "--strict", "CRLF"])
        .output();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        "plain: OK\n'a space': OK\n-dash: OK\n"
    );

    hash_to_manifest(dir.path(), &["-z", "-a", "xxh128"], &names, "ZERO");
    let output = fasthash(dir.path())
        .args(["-c", "-z", "-a", "xxh128", "ZERO"])
        .output();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout).matches(": OK\n").count(), names.len());
}

#[test]
fn missing_files_with_and_without_ignore_missing() {
    let (dir, names) = tree();
    hash_to_manifest(dir.path(), &[], &names[..2], "SUMS");
    std::fs::remove_file(dir.path().join("a space")).unwrap();
    let output = fasthash(dir.path()).args(["-c", "SUMS"]).output();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stdout),
        "plain: OK\n'a space': FAILED open or read\n"
    );
    assert_eq!(
        text(&output.stderr),
        "fasthash: 'a space': No such file or directory\n\
         fasthash: WARNING: 1 listed file could not be read\n"
    );
    let output = fasthash(dir.path())
        .args(["-c", "--ignore-missing", "SUMS"])
        .output();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(text(&output.stdout), "plain: OK\n");
    std::fs::remove_file(dir.path().join("plain")).unwrap();
    let output = fasthash(dir.path())
        .args(["-c", "--ignore-missing", "SUMS"])
        .output();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        "fasthash: SUMS: no file was verified\n"
    );
}

#[test]
fn malformed_lines_with_warn_strict_quiet_and_status() {
    let (dir, names) = tree();
    hash_to_manifest(dir.path(), &["-a", "md5"], &names[..1], "SUMS");
    let mut manifest = std::fs::read(dir.path().join("SUMS")).unwrap();
    manifest.extend_from_slice(b"not a checksum line\n# a comment\n\n");
    std::fs::write(dir.path().join("SUMS"), &manifest).unwrap();

    let output = fasthash(dir.path()).args(["-c", "SUMS"]).output();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(text(&output.stdout), "plain: OK\n");
    assert_eq!(
        text(&output.stderr),
        "fasthash: WARNING: 1 line is improperly formatted\n"
    );
    let output = fasthash(dir.path())
        .args(["-c", "-w", "-a", "md5", "SUMS"])
        .output();
    assert_eq!(
        text(&output.stderr),
        "fasthash: SUMS: 2: improperly formatted MD5 checksum line\n\
         fasthash: WARNING: 1 line is improperly formatted\n"
    );
    let output = fasthash(dir.path())
        .args(["-c", "--strict", "SUMS"])
        .output();
    assert_eq!(output.status.code(), Some(1));
    let output = fasthash(dir.path())
        .args(["-c", "--status", "SUMS"])
        .output();
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stdout.is_empty() && output.stderr.is_empty());
    let output = fasthash(dir.path())
        .args(["-c", "--quiet", "SUMS"])
        .output();
    assert!(output.stdout.is_empty());

    std::fs::write(dir.path().join("JUNK"), b"junk\nmore junk\n").unwrap();
    let output = fasthash(dir.path()).args(["-c", "JUNK"]).output();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        "fasthash: JUNK: no properly formatted checksum lines found\n"
    );
    // The manifest on standard input is named as coreutils names it.
    let junk = std::fs::read(dir.path().join("JUNK")).unwrap();
    let output = fasthash(dir.path()).arg("-c").stdin(junk).output();
    assert_eq!(
        text(&output.stderr),
        "fasthash: 'standard input': no properly formatted checksum lines found\n"
    );
}

/// An untagged manifest of any algorithm verifies without `-a`: a line that fails under the
/// preferred reading of its length is tried under the others (32 digits: MD5 then XXH128; 16:
/// XXH64, XXH3, CRC64/NVME; 8: CRC32 then CRC32C); `--debug` says which one matched. A file
/// that matches under none still fails, and `-a` pins a line to one algorithm.
#[test]
fn untagged_digests_are_tried_under_every_algorithm_of_their_length() {
    let (dir, names) = tree();
    for algorithm in [
        "md5",
        "xxh128",
        "xxh64",
        "xxh3",
        "crc64nvme",
        "crc32",
        "crc32c",
        "sha256",
        "blake3",
    ] {
        let manifest = format!("M-{algorithm}");
        hash_to_manifest(dir.path(), &["-a", algorithm], &names, &manifest);
        let output = fasthash(dir.path()).args(["-c", &manifest]).output();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{algorithm}: {}",
            text(&output.stderr)
        );
        assert_eq!(text(&output.stderr), "", "{algorithm}");
        assert_eq!(
            text(&output.stdout).matches(": OK\n").count(),
            names.len(),
            "{algorithm}"
        );

        // --debug names the reading that matched, on standard error only.
        let debug = fasthash(dir.path())
            .args(["--debug", "-c", &manifest])
            .output();
        assert_eq!(debug.stdout, output.stdout, "{algorithm}");
        let preferred = ["md5", "xxh64", "crc32", "sha256"].contains(&algorithm);
        assert_eq!(
            text(&debug.stderr).contains(&format!("plain: matched as {algorithm}, not")),
            !preferred,
            "{algorithm}: {}",
            text(&debug.stderr)
        );

        // Under -a with another algorithm of that length, nothing else is tried.
        if !preferred {
            let output = fasthash(dir.path())
                .args(["-c", "-a", "md5", &manifest])
                .output();
            assert_ne!(output.status.code(), Some(0), "{algorithm}");
        }
    }
    // A changed file fails under every reading.
    std::fs::write(dir.path().join("plain"), b"changed").unwrap();
    for algorithm in ["md5", "xxh128", "xxh3", "crc64nvme", "crc32c"] {
        let output = fasthash(dir.path())
            .args(["-c", &format!("M-{algorithm}")])
            .output();
        assert_eq!(output.status.code(), Some(1), "{algorithm}");
        assert!(
            text(&output.stdout).contains("plain: FAILED\n"),
            "{algorithm}"
        );
        assert!(
            text(&output.stderr).contains("WARNING: 1 computed checksum did NOT match"),
            "{algorithm}: {}",
            text(&output.stderr)
        );
    }
}

#[test]
fn thread_count_does_not_change_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for i in 0..300 {
        let name = format!("f{i:03}");
        let size = (i * 7919) % 70_000;
        std::fs::write(dir.path().join(&name), vec![i as u8; size]).unwrap();
        names.push(OsString::from(name));
    }
    names.insert(100, OsString::from("missing"));
    let mut manifest = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let digest = if i % 37 == 0 {
            "0".repeat(64)
        } else {
            "1".repeat(64)
        };
        manifest.extend_from_slice(format!("{digest}  {}\n", name.to_str().unwrap()).as_bytes());
    }
    hash_to_manifest(dir.path(), &[], &names[..100], "GOOD");
    let mut good = std::fs::read(dir.path().join("GOOD")).unwrap();
    good.extend_from_slice(&manifest);
    std::fs::write(dir.path().join("SUMS"), &good).unwrap();
    let one = fasthash(dir.path())
        .args(["-c", "-j", "1", "SUMS"])
        .output();
    let many = fasthash(dir.path())
        .args(["-c", "-j", "8", "SUMS"])
        .output();
    assert_eq!(one.stdout, many.stdout);
    assert_eq!(one.stderr, many.stderr);
    assert_eq!(one.status.code(), Some(1));
}

/// The drop-in names against the real coreutils programs, on the cases of docs/check.md.
#[test]
fn drop_in_names_check_exactly_as_coreutils() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("plain"), b"hello\n").unwrap();
    std::fs::write(d.join("empty"), b"").unwrap();
    std::fs::write(d.join("a space"), b"hello\n").unwrap();
    std::fs::create_dir(d.join("dir")).unwrap();
    let h = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
    let e = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    let z = "0".repeat(64);
    let manifests: &[(&str, String)] = &[
        ("m_ok", format!("{h}  plain\n{e}  empty\n")),
        ("m_bad", format!("{h}  plain\n{z}  empty\n{z}  a space\n")),
        ("m_miss", format!("{h}  plain\n{h}  nonexist\n")),
        ("m_missall", format!("{h}  nonexist\n{h}  nonexist2\n")),
        ("m_fmt", format!("{h}  plain\ngarbage line\n{e}  empty\n")),
        ("m_nofmt", "x\ny\n".to_string()),
        ("m_empty", String::new()),
        ("m_all", format!("{h}  plain\n{z}  empty\n{h}  nonexist\njunk\n")),
        ("m_bsdmix", format!("{h} plain\n{e}  empty\n")),
        ("m_bom", format!("\u{feff}{h}  plain\n{e}  empty\n")),
        ("m_crlf", format!("{h}  plain\r\n{e}  empty\r\n")),
        ("m_tags", format!("SHA256 (plain) = {h}\nMD5 (empty) = d41d8cd98f00b204e9800998ecf8427e\nSHA256(empty)= {e}\n")),
        ("m_dir", format!("{h}  dir\n")),
        ("m_trail", format!("{h}  plain  \n")),
        ("m_upper", format!("  {}  plain\n# comment\n\n{e}\tempty\n", h.to_uppercase())),
        // coreutils 9.1 and 9.7 escape status lines alike when the name holds a newline (they
        // differ for a lone backslash or CR; fasthash follows 9.7, see docs/check.md).
        ("m_esc", format!("\\{h}  new\\nline\n\\{h}  bad\\tescape\n")),
    ];
    for (name, content) in manifests {
        std::fs::write(d.join(name), content).unwrap();
    }
    let Some(real) = peer("sha256sum") else {
        return;
    };
    let ours = Path::new(FASTHASH);
    let option_sets: &[&[&str]] = &[
        &["-c"],
        &["-c", "-w"],
        &["-c", "--strict"],
        &["-c", "--quiet"],
        &["-c", "--status"],
        &["-c", "--ignore-missing"],
        &["-c", "--status", "-w"],
        &["-c", "-z"],
    ];
    let by_name = |binary: &Path, args: &[&str], stdin: &[u8]| -> Output {
        program(binary, d)
            .called("sha256sum")
            .args(args)
            .stdin(stdin)
            .output()
    };
    // Both streams in program order, as a terminal shows them.
    let merged = |binary: &Path, args: &[&str]| -> (Vec<u8>, Option<i32>) {
        let output = program(binary, d)
            .called("sha256sum")
            .args(args)
            .shell("", "2>&1")
            .output();
        (output.stdout, output.status.code())
    };
    for options in option_sets {
        for (name, _) in manifests {
            let mut args = options.to_vec();
            args.push(name);
            let theirs = by_name(&real, &args, b"");
            let mine = by_name(ours, &args, b"");
            let what = format!("sha256sum {args:?}");
            assert_eq!(
                text(&mine.stdout),
                text(&status_lines_as_coreutils_9_11(
                    &theirs.stdout,
                    Charset::Utf8
                )),
                "{what}: stdout"
            );
            assert_eq!(text(&mine.stderr), text(&theirs.stderr), "{what}: stderr");
            assert_eq!(mine.status.code(), theirs.status.code(), "{what}: exit");
            let (mine, my_code) = merged(ours, &args);
            let (theirs, their_code) = merged(&real, &args);
            assert_eq!(
                text(&mine),
                text(&status_lines_as_coreutils_9_11(&theirs, Charset::Utf8)),
                "{what}: merged order"
            );
            assert_eq!(my_code, their_code);
        }
    }
    // Several manifests in one run, and a manifest on standard input.
    let args = ["-c", "m_ok", "nonexist_manifest", "m_bad", "m_nofmt", "dir"];
    let theirs = by_name(&real, &args, b"");
    let mine = by_name(ours, &args, b"");
    assert_eq!(
        text(&mine.stdout),
        text(&status_lines_as_coreutils_9_11(
            &theirs.stdout,
            Charset::Utf8
        ))
    );
    assert_eq!(text(&mine.stderr), text(&theirs.stderr));
    assert_eq!(mine.status.code(), theirs.status.code());
    for (_, content) in manifests {
        let theirs = by_name(&real, &["-c"], content.as_bytes());
        let mine = by_name(ours, &["-c", "-"], content.as_bytes());
        assert_eq!(
            text(&mine.stdout),
            text(&status_lines_as_coreutils_9_11(
                &theirs.stdout,
                Charset::Utf8
            )),
            "stdin {content:?}"
        );
        assert_eq!(
            text(&mine.stderr),
            text(&theirs.stderr),
            "stdin {content:?}"
        );
        assert_eq!(mine.status.code(), theirs.status.code());
    }
}

/// Under the name `b3sum`, `-c` is b3sum's: its parser (two spaces or a `BLAKE3 (` tag,
/// lowercase hex, its escapes), its messages (`b3sum: Invalid hex`, `NAME: FAILED (REASON)`,
/// one warning counting every failure, `Error: ...` for a checkfile it cannot read) and its
/// exit codes, compared with the real b3sum byte for byte, streams merged too.
#[test]
fn b3sum_checks_as_b3sum_does() {
    let Some(real) = peer("b3sum") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (name, content) in [
        ("a", &b"a"[..]),
        ("b", b"b"),
        ("new\nline", b"n"),
        ("sp ace", b""),
    ] {
        std::fs::write(d.join(name), content).unwrap();
    }
    std::fs::create_dir(d.join("dir")).unwrap();
    let hex = |data: &[u8]| blake3::hash(data).to_hex().to_string();
    let (a, b, n, e) = (hex(b"a"), hex(b"b"), hex(b"n"), hex(b""));
    let lines = [
        format!("{a}  a\n"),
        format!("{a}  b\n"),
        format!("BLAKE3 (b) = {b}\n"),
        format!("\\{n}  new\\nline\n"),
        format!("{e}  sp ace\r\n"),
        format!("{}  a\n", a.to_uppercase()),
        format!("{}  a\n", &a[..62]),
        "\n".to_string(),
        format!("{a} a\n"),
        format!("\\{a}  bad\\tescape\n"),
        format!("\\{a}  trailing\\\n"),
        format!("{a}  missing\n"),
        format!("{a}  dir\n"),
        format!("BLAKE3 (sp ace) = {e}"),
    ];
    std::fs::write(d.join("CHECK"), lines.concat()).unwrap();
    std::fs::write(d.join("GOOD"), format!("{a}  a\n{b}  b\n")).unwrap();
    let mut not_utf8 = format!("{a}  a\n").into_bytes();
    not_utf8.extend_from_slice(b"\xff\n");
    not_utf8.extend_from_slice(format!("{b}  b\n").as_bytes());
    std::fs::write(d.join("NOTUTF8"), not_utf8).unwrap();

    let run = |binary: &Path, args: &[&str], redirect: &str| {
        let b3sum = || {
            program(binary, d)
                .called("b3sum")
                .without_backtraces()
                .args(args)
        };
        (
            b3sum().shell("", redirect).output(),
            b3sum()
                .shell("", &format!("{redirect} 2>&1"))
                .output()
                .stdout,
        )
    };
    for (args, redirect) in [
        (&["-c", "CHECK"][..], ""),
        (&["-c", "--quiet", "CHECK"], ""),
        (&["-c", "GOOD"], ""),
        (&["--check", "GOOD", "GOOD"], ""),
        (&["-c", "--quiet", "GOOD"], ""),
        (&["-c", "GOOD", "NOSUCH", "GOOD"], ""),
        (&["-c", "NOTUTF8"], ""),
        (&["-c", "-"], "< CHECK"),
        (&["-c"], "< GOOD"),
    ] {
        let what = format!("b3sum {} {redirect}", args.join(" "));
        let (mine, mine_merged) = run(Path::new(FASTHASH), args, redirect);
        let (theirs, theirs_merged) = run(&real, args, redirect);
        assert_eq!(text(&mine.stdout), text(&theirs.stdout), "{what}: stdout");
        assert_eq!(text(&mine.stderr), text(&theirs.stderr), "{what}: stderr");
        assert_eq!(mine.status.code(), theirs.status.code(), "{what}: exit");
        assert_eq!(text(&mine_merged), text(&theirs_merged), "{what}: merged");
    }
}

/// Runs `name ARGS` (a drop-in name, or fasthash's own) in `dir` under `LC_ALL=locale`, as
/// fasthash (`binary` None) or as the real program.
fn run_as(binary: Option<&Path>, name: &str, dir: &Path, locale: &str, args: &[&str]) -> Output {
    let run = program(binary.unwrap_or(Path::new(FASTHASH)), dir).env("LC_ALL", locale);
    let run = if name == "fasthash" {
        run
    } else {
        run.called(name)
    };
    run.args(args).output()
}

/// Only cksum reads base64 digests among coreutils' programs: `src/cksum.c` reads them in
/// `valid_digits` (and counts their length in `split_3`) `#if HASH_ALGO_CKSUM`, so md5sum,
/// sha*sum and b2sum find no properly formatted line in a base64 manifest. fasthash's own name
/// reads them, as docs/check.md says. (coreutils 9.1's cksum reads no base64 at all: its
/// answers are 9.11's, from that source.)
#[test]
fn only_cksum_and_fasthash_read_base64_digests() {
    use base64::Engine as _;
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    std::fs::write(dir.join("h"), b"abc").unwrap();
    let md5_hex = common::rfc_1321_md5(b"abc");
    let md5_base64 = base64::engine::general_purpose::STANDARD.encode(common::decode_hex(&md5_hex));
    std::fs::write(dir.join("MD5_B64"), format!("{md5_base64}  h\n")).unwrap();
    // Base64 of some BLAKE2b length (the issue's), and a line that is base64 of nothing.
    std::fs::write(dir.join("B2_B64"), "mAAy  h\n").unwrap();
    std::fs::write(dir.join("GARBAGE"), "more garbage\n").unwrap();
    let no_lines = |name: &str, manifest: &str| {
        format!("{name}: {manifest}: no properly formatted checksum lines found\n")
    };
    for (locale, _) in common::LOCALES {
        let refused = [
            ("b2sum", "B2_B64"),
            ("b2sum", "GARBAGE"),
            ("md5sum", "MD5_B64"),
            ("sha256sum", "GARBAGE"),
        ];
        for (name, manifest) in refused {
            let args = ["-c", manifest];
            let ours = run_as(None, name, dir, locale, &args);
            let what = format!("LC_ALL={locale} {name} -c {manifest}");
            common::assert_output(&what, &ours, "", &no_lines(name, manifest), 1);
            if let Some(real) = peer(name) {
                let theirs = run_as(Some(&real), name, dir, locale, &args);
                common::assert_same_output(&what, &ours, &theirs);
            }
        }
        for (name, args) in [
            ("cksum", &["-a", "md5", "-c", "MD5_B64"][..]),
            ("fasthash", &["-a", "md5", "-c", "MD5_B64"]),
            ("fasthash", &["-c", "MD5_B64"]),
        ] {
            let ours = run_as(None, name, dir, locale, args);
            let what = format!("LC_ALL={locale} {name} {args:?}");
            common::assert_output(&what, &ours, "h: OK\n", "", 0);
        }
    }
}

/// coreutils decides at the first untagged line of a run whether lines are `DIGEST  NAME` or
/// the single-blank `DIGEST NAME`, and holds that over every manifest after (`bsd_reversed`,
/// a static of `src/cksum.c`'s `split_3`, set once and never reset). fasthash's own name lets
/// each manifest decide (docs/check.md).
#[test]
fn the_single_blank_layout_holds_across_manifests_under_coreutils_names() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    std::fs::write(dir.join("e"), b"").unwrap();
    let empty_md5 = common::rfc_1321_md5(b"");
    std::fs::write(dir.join("TWO_BLANKS"), format!("{empty_md5}  e\n")).unwrap();
    std::fs::write(dir.join("ONE_BLANK"), format!("{empty_md5} e\n")).unwrap();
    let real = peer("md5sum");
    for (locale, charset) in common::LOCALES {
        let cases: [(&[&str], &str, &str); 2] = [
            (
                &["-c", "TWO_BLANKS", "ONE_BLANK"],
                "e: OK\n",
                "md5sum: ONE_BLANK: no properly formatted checksum lines found\n",
            ),
            // The second manifest's `e` is then ` e`, after the first blank.
            (
                &["-c", "ONE_BLANK", "TWO_BLANKS"],
                "e: OK\n' e': FAILED open or read\n",
                "md5sum: ' e': No such file or directory\n\
                 md5sum: WARNING: 1 listed file could not be read\n",
            ),
        ];
        for (args, stdout, stderr) in cases {
            let ours = run_as(None, "md5sum", dir, locale, args);
            let what = format!("LC_ALL={locale} md5sum {args:?}");
            common::assert_output(&what, &ours, stdout, stderr, 1);
            if let Some(real) = &real {
                let mut theirs = run_as(Some(real), "md5sum", dir, locale, args);
                theirs.stdout = status_lines_as_coreutils_9_11(&theirs.stdout, charset);
                common::assert_same_output(&what, &ours, &theirs);
            }
            let mut own = vec!["-a", "md5"];
            own.extend_from_slice(args);
            let ours = run_as(None, "fasthash", dir, locale, &own);
            common::assert_output(&format!("fasthash {own:?}"), &ours, "e: OK\ne: OK\n", "", 0);
        }
    }
}

/// Lines coreutils reads its own way (`split_3`, `bsd_split_3` and `filename_unescape` in
/// `src/cksum.c`; 9.1 and 9.11 alike): a NUL in an escaped name makes the line malformed;
/// sha256sum reads its own tag only, not cksum's `SHA2-256`, and cksum only its `-a` names'
/// tags; a length after `BLAKE2b-` is read in base 0 (`0x100` and `0400` are 256, `00256` is
/// octal 174); cksum and b2sum take a digest and one blank as a line of an empty name.
#[test]
fn manifest_lines_read_as_coreutils_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    std::fs::write(dir.join("h"), b"abc").unwrap();
    let md5 = common::rfc_1321_md5(b"abc");
    // FIPS 180-2's example "abc".
    let sha256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    let malformed = [
        ("md5sum", &[][..], format!("\\{md5}  h\0junk")),
        ("md5sum", &[], format!("\\MD5 (h\0x) = {md5}")),
        ("md5sum", &[], format!("{md5} ")),
        ("sha256sum", &[], format!("SHA2-256 (h) = {sha256}")),
        ("cksum", &[], "XXH64 (h) = 44bc2cf5ad770999".to_string()),
        (
            "cksum",
            &["-a", "sha256"],
            format!("SHA2-256 (h) = {sha256}"),
        ),
    ];
    for (name, options, line) in malformed {
        std::fs::write(dir.join("m"), format!("{line}\n")).unwrap();
        let args = [options, &["-c", "m"]].concat();
        let what = format!("{name} {args:?} of {line:?}");
        let ours = run_as(None, name, dir, "C", &args);
        let refusal = format!("{name}: m: no properly formatted checksum lines found\n");
        common::assert_output(&what, &ours, "", &refusal, 1);
        // coreutils 9.1's cksum has no -a sha256 -c of tagged lines to compare with.
        if let Some(real) = peer(name).filter(|_| options.is_empty()) {
            let theirs = run_as(Some(&real), name, dir, "C", &args);
            common::assert_same_output(&what, &ours, &theirs);
        }
    }
    std::fs::write(dir.join("m"), format!("{md5} \n")).unwrap();
    let empty_name = run_as(None, "cksum", dir, "C", &["-a", "md5", "-c", "m"]);
    let unreadable = "cksum: '': No such file or directory\n\
                      cksum: WARNING: 1 listed file could not be read\n";
    common::assert_output(
        "cksum -a md5 -c of a digest and a blank",
        &empty_name,
        "'': FAILED open or read\n",
        unreadable,
        1,
    );
    // BLAKE2b's lengths, with b2sum's own line for "abc" as the digest.
    let Some(b2sum) = peer("b2sum") else {
        return;
    };
    let tagged = run_as(
        Some(&b2sum),
        "b2sum",
        dir,
        "C",
        &["--tag", "-l", "256", "h"],
    );
    let tagged = String::from_utf8(tagged.stdout).unwrap();
    for (length, stdout, stderr, code) in [
        ("0x100", "h: OK\n", "", 0),
        ("0400", "h: OK\n", "", 0),
        (
            "00256",
            "",
            "b2sum: m: no properly formatted checksum lines found\n",
            1,
        ),
    ] {
        let line = tagged.replace("BLAKE2b-256", &format!("BLAKE2b-{length}"));
        std::fs::write(dir.join("m"), &line).unwrap();
        let what = format!("b2sum -c of {line:?}");
        let ours = run_as(None, "b2sum", dir, "C", &["-c", "m"]);
        common::assert_output(&what, &ours, stdout, stderr, code);
        let theirs = run_as(Some(&b2sum), "b2sum", dir, "C", &["-c", "m"]);
        common::assert_same_output(&what, &ours, &theirs);
    }
}

/// Standard input named by two lines of a manifest is read by the first of them, in line
/// order, whatever their algorithms: a run of lines was hashed an algorithm at a time, and
/// `b2sum -c` gave standard input to a later line of 512 bits before an earlier one of 64.
#[test]
fn standard_input_named_twice_goes_to_the_first_line() {
    let Some(b2sum) = peer("b2sum") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    std::fs::write(dir.join("small"), b"hello\n").unwrap();
    let line = run_as(Some(&b2sum), "b2sum", dir, "C", &["small"]);
    let line = String::from_utf8(line.stdout).unwrap();
    let dash = line.replace("  small", "  -");
    std::fs::write(dir.join("m"), format!("{line}0000000000000000  -\n{dash}")).unwrap();
    let run = |binary: Option<&Path>| {
        program(binary.unwrap_or(Path::new(FASTHASH)), dir)
            .called("b2sum")
            .env("LC_ALL", "C")
            .args(["-c", "m"])
            .stdin(b"hello\n")
            .output()
    };
    let ours = run(None);
    common::assert_output(
        "b2sum -c of two lines naming standard input",
        &ours,
        "small: OK\n-: FAILED\n-: FAILED\n",
        "b2sum: WARNING: 2 computed checksums did NOT match\n",
        1,
    );
    common::assert_same_output("b2sum -c", &ours, &run(Some(&b2sum)));
}
