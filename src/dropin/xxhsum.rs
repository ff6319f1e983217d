//! `xxhsum`, `xxh32sum`, `xxh64sum`, `xxh128sum` and `xxh3sum` as xxHash 0.8.3's `xxhsum` is
//! under those names: its option parsing (options first; the first operand starts the file
//! list), its lines (`XXH3_` before untagged XXH3 digests, `_LE` tags with
//! `--little-endian`), its messages and exit codes, and its own `-c`: each line's algorithm
//! from its digest's length or tag, restricted to the name's algorithm under `xxhNNsum`,
//! status lines and the summary on standard output. Digests come from fasthash's engines.

use super::CheckDialect;
use super::{Grammar, LineDialect, MessageName, NameMatch, Program};
use crate::cli::Invocation;
use crate::error::ExitStatus;
use crate::format::escape::{escape_name, needs_escape};
use crate::format::line::{write_digest_line, LineStyle};
use crate::format::manifest::decode_hex_digest;
use crate::io::read::{hash_file, hash_reader, ReadOptions};
use crate::kernels::{Algorithm, Digest};
use std::ffi::{OsStr, OsString};
use std::io::{self, BufRead, Write};
use std::os::unix::ffi::OsStrExt;

/// The row of one of xxhsum's names: `algorithm` by default, and, for the `xxhNNsum` names
/// (`only_its_algorithm`), `-c` restricted to it. xxhsum knows itself by a name containing
/// `xxh32sum`, `xxh64sum`, `xxh128sum` or `xxh3sum`, else by `xxhsum` exactly.
pub(crate) const fn program(
    name: &'static str,
    algorithm: Algorithm,
    only_its_algorithm: bool,
) -> Program {
    Program {
        name,
        matched: if only_its_algorithm {
            NameMatch::Within
        } else {
            NameMatch::Exact
        },
        algorithm,
        grammar: Grammar::Xxhsum { only_its_algorithm },
        check: CheckDialect::Xxhsum,
        messages: None,
        message_name: MessageName::BaseName,
        lines: LineDialect::Xxhsum {
            little_endian: false,
        },
        usage_status: ExitStatus::Failure,
    }
}

struct Options {
    algorithm: Algorithm,
    /// Under `xxhNNsum`, `-c` reads only that algorithm's lines.
    only: Option<Algorithm>,
    check: bool,
    little_endian: bool,
    tagged: bool,
    strict: bool,
    status: bool,
    warn: bool,
    ignore_missing: bool,
    quiet: bool,
    files: Vec<OsString>,
    /// `-` was given: standard input is read even from a terminal.
    explicit_stdin: bool,
}

/// Runs xxhsum, as the row `invocation` names, to its exit code.
pub fn run(invocation: &Invocation, args: &[OsString]) -> u8 {
    let exe_name = invocation.program.as_str();
    let options = match parse(invocation.personality, exe_name, args) {
        Ok(options) => options,
        Err(exit_code) => return exit_code,
    };
    // xxhsum refuses to read a terminal unless `-` says so.
    // SAFETY: isatty only inspects descriptor 0.
    if options.files.is_empty() && !options.explicit_stdin && unsafe { libc::isatty(0) } == 1 {
        return bad_usage(exe_name);
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let ok = if options.check {
        check_files(&options, &mut out)
    } else {
        hash_files(&options, &mut out)
    };
    match (out.flush(), ok) {
        (Ok(()), true) => 0,
        _ => 1,
    }
}

/// xxhsum's command line, for `program`'s row: options first; the first operand (or `--`)
/// starts the file list. `Err` is the exit code of what ended the run at once (`--help`,
/// `--version`, a usage error: each already written).
fn parse(program: &Program, exe_name: &str, args: &[OsString]) -> Result<Options, u8> {
    let only_its_algorithm = matches!(
        program.grammar,
        Grammar::Xxhsum {
            only_its_algorithm: true
        }
    );
    let mut options = Options {
        algorithm: program.algorithm,
        only: only_its_algorithm.then_some(program.algorithm),
        check: false,
        little_endian: false,
        tagged: false,
        strict: false,
        status: false,
        warn: false,
        ignore_missing: false,
        quiet: false,
        files: Vec::new(),
        explicit_stdin: false,
    };
    let mut index = 1;
    while index < args.len() {
        let argument = args[index].as_bytes();
        index += 1;
        match argument {
            b"--check" => options.check = true,
            b"--quiet" => options.quiet = true,
            b"--little-endian" => options.little_endian = true,
            b"--strict" => options.strict = true,
            b"--status" => options.status = true,
            b"--warn" => options.warn = true,
            b"--binary" => {}
            b"--ignore-missing" => options.ignore_missing = true,
            b"--tag" => options.tagged = true,
            b"--help" => return Err(usage(exe_name, true)),
            b"--version" => return Err(version(exe_name)),
            b"--benchmark-all" | b"--bench-all" => return Err(benchmark_refused()),
            b"--" => {
                options.files.extend(args[index..].iter().cloned());
                break;
            }
            _ if argument.first() != Some(&b'-') => {
                options.files.extend(args[index - 1..].iter().cloned());
                break;
            }
            _ => parse_letters(&mut options, exe_name, &argument[1..])?,
        }
    }
    Ok(options)
}

/// A cluster of one-letter options after `-` (none: standard input named by `-`).
fn parse_letters(options: &mut Options, exe_name: &str, mut letters: &[u8]) -> Result<(), u8> {
    if letters.is_empty() {
        options.explicit_stdin = true;
    }
    while let Some((&letter, rest)) = letters.split_first() {
        letters = rest;
        match letter {
            b'V' => return Err(version(exe_name)),
            b'h' => return Err(usage(exe_name, true)),
            b'H' => {
                let (number, rest) = read_number(letters);
                letters = rest;
                options.algorithm = match number {
                    Some(0 | 32) => Algorithm::Xxh32,
                    Some(1 | 64) => Algorithm::Xxh64,
                    Some(2 | 128) => Algorithm::Xxh128,
                    Some(3) => Algorithm::Xxh3,
                    _ => return Err(bad_usage(exe_name)),
                };
            }
            b'c' => options.check = true,
            b'w' => options.warn = true,
            b'q' => options.quiet = true,
            b'b' => return Err(benchmark_refused()),
            // Benchmark settings, which mean nothing without -b.
            b'i' | b'B' => letters = read_number(letters).1,
            _ => return Err(bad_usage(exe_name)),
        }
    }
    Ok(())
}

/// Digits as xxhsum reads them after `-H`, `-i`, `-B`: a decimal number, 0 when there are
/// none; None when it overflows.
fn read_number(text: &[u8]) -> (Option<u64>, &[u8]) {
    let digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
    let number = match digits {
        0 => Some(0),
        _ => std::str::from_utf8(&text[..digits])
            .ok()
            .and_then(|d| d.parse().ok()),
    };
    (number, &text[digits..])
}

/// Writes to standard error, as xxhsum does: a failed write is ignored (xxhsum's exit status
/// does not depend on it), never a panic.
fn say(text: &str) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

fn version(exe_name: &str) -> u8 {
    say(&format!(
        "{exe_name} 0.8.3 (fasthash {}), xxHash's XXH32, XXH64, XXH3 and XXH128\n",
        env!("CARGO_PKG_VERSION")
    ));
    0
}

fn usage(exe_name: &str, advanced: bool) -> u8 {
    let mut text = format!(
        "{exe_name} (fasthash {}): print or check xxHash checksums\n\n\
         Usage: {exe_name} [options] [files]\n\n\
         With no file, or with -, reads standard input.\n\n\
         Options:\n  \
         -H#          the algorithm: 0 XXH32, 1 XXH64, 2 XXH128, 3 XXH3 (also 32, 64, 128)\n  \
         -c, --check  read xxHash checksums from the files and check them\n  \
         -h, --help   this help\n",
        env!("CARGO_PKG_VERSION")
    );
    if advanced {
        text.push_str(
            "\n  -V, --version        the version\n      \
             --tag            BSD-style lines: ALGORITHM (FILE) = DIGEST\n      \
             --little-endian  digests in little-endian byte order\n      \
             --binary         accepted, changes nothing\n\n\
             With -c:\n  \
             -q, --quiet          do not print OK for each verified file\n      \
             --status         print nothing; the exit status tells\n      \
             --strict         fail on improperly formatted lines\n  \
             -w, --warn           warn about improperly formatted lines\n      \
             --ignore-missing do not fail or report for missing files\n\n\
             The benchmark (-b) is not part of fasthash's xxhsum; run `fasthash --bench`.\n",
        );
    }
    say(&text);
    0
}

fn bad_usage(exe_name: &str) -> u8 {
    say("Wrong parameters\n\n");
    usage(exe_name, false);
    1
}

fn benchmark_refused() -> u8 {
    say("xxhsum: the benchmark (-b) is not offered here; `fasthash --bench` measures every algorithm\n");
    1
}

/// One input's line, as `format::line` writes xxhsum's.
fn write_line(
    options: &Options,
    out: &mut impl Write,
    name: &[u8],
    digest: &Digest,
) -> io::Result<()> {
    let style = LineStyle {
        tagged: options.tagged,
        dialect: LineDialect::Xxhsum {
            little_endian: options.little_endian,
        },
        ..LineStyle::default()
    };
    write_digest_line(out, &style, options.algorithm, digest, name)
}

/// A message on standard error, after what standard output holds so far.
fn log(out: &mut impl Write, message: &[u8]) {
    let _ = out.flush();
    let mut stderr = io::stderr().lock();
    let _ = stderr.write_all(message);
}

fn hash_files(options: &Options, out: &mut impl Write) -> bool {
    // Standard input only without operands ("stdin" in lines); an operand `-` is a file name,
    // as xxhsum compares its stdin marker by address, not by text.
    if options.files.is_empty() {
        let digest = crate::io::stdin().and_then(|stdin| hash_reader(stdin, options.algorithm));
        return report(options, out, b"stdin", digest);
    }
    let mut ok = true;
    for file in &options.files {
        let path = std::path::Path::new(file);
        if crate::io::long_paths::metadata(path).is_ok_and(|m| m.is_dir()) {
            log(
                out,
                format!("xxhsum: {}: Is a directory \n", file.to_string_lossy()).as_bytes(),
            );
            ok = false;
            continue;
        }
        let digest = match crate::io::long_paths::open_file(path) {
            Ok(opened) => hash_file(opened, options.algorithm, &ReadOptions::default()),
            Err(e) => {
                let mut message = b"Error: Could not open '".to_vec();
                message.extend_from_slice(file.as_bytes());
                message.extend_from_slice(
                    format!("': {}. \n", crate::error::os_error_text(&e)).as_bytes(),
                );
                log(out, &message);
                ok = false;
                continue;
            }
        };
        ok &= report(options, out, file.as_bytes(), digest);
    }
    ok
}

/// Prints one input's line, or why it could not be read; whether it was hashed.
fn report(
    options: &Options,
    out: &mut impl Write,
    name: &[u8],
    digest: io::Result<Digest>,
) -> bool {
    match digest {
        Ok(digest) => write_line(options, out, name, &digest).is_ok(),
        Err(e) => {
            let mut message = name.to_vec();
            message
                .extend_from_slice(format!(": {}\n", crate::error::os_error_text(&e)).as_bytes());
            log(out, &message);
            false
        }
    }
}

/// One checksum line as xxhsum reads it: the algorithm, the expected digest (big-endian), and
/// the file name; None for an improperly formatted line.
fn parse_line(
    line: &[u8],
    little_endian: bool,
    only: Option<Algorithm>,
) -> Option<(Algorithm, Vec<u8>, Vec<u8>)> {
    // A C string: a NUL ends it.
    let line = &line[..line.iter().position(|&b| b == 0).unwrap_or(line.len())];
    // Escaped when the first character that is not a blank is a backslash; then one character
    // is skipped, as xxhsum skips it (the backslash, unless blanks come first).
    let leading = line
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    let unescape = line.get(leading) == Some(&b'\\');
    let line = if unescape { &line[1..] } else { line };
    let first_space = line.iter().position(|&b| b == b' ')?;
    if first_space + 1 >= line.len() {
        return None;
    }
    let (algorithm, hash, reverse, name_start, name_end);
    if line[first_space + 1] == b'(' {
        let last_space = line.iter().rposition(|&b| b == b' ')?;
        if last_space < first_space + 5
            || line[last_space - 1] != b'='
            || line[last_space - 2] != b' '
            || line[last_space - 3] != b')'
        {
            return None;
        }
        (algorithm, reverse) = read_tag(&line[..first_space]);
        hash = &line[last_space + 1..];
        name_start = first_space + 2;
        name_end = last_space - 3;
    } else {
        hash = &line[..first_space];
        algorithm = match hash.len() {
            8 => Algorithm::Xxh32,
            21 => Algorithm::Xxh3,
            32 => Algorithm::Xxh128,
            _ => Algorithm::Xxh64,
        };
        reverse = little_endian;
        // The character after the space may be anything (`*`, a second space).
        name_start = first_space + 2;
        name_end = line.len();
    }
    if only.is_some_and(|only| only != algorithm) {
        return None;
    }
    let digits = match (hash.len(), algorithm) {
        (8, Algorithm::Xxh32) | (32, Algorithm::Xxh128) => hash,
        (16, Algorithm::Xxh64 | Algorithm::Xxh3) => hash,
        (21, Algorithm::Xxh3) => hash.strip_prefix(b"XXH3_")?,
        _ => return None,
    };
    let mut bytes = decode_hex_digest(digits, digits.len() / 2)?
        .as_bytes()
        .to_vec();
    if reverse {
        bytes.reverse();
    }
    let raw_name = line.get(name_start..name_end.max(name_start))?;
    let name = if unescape {
        crate::format::escape::unescape_name(raw_name)?
    } else {
        raw_name.to_vec()
    };
    Some((algorithm, bytes, name))
}

/// The algorithm a line's tag names (the last of `XXH3`, `XXH32`, `XXH64`, `XXH128` it starts
/// with; XXH64 when none), and whether it is little-endian (`_LE` anywhere in it).
fn read_tag(tag: &[u8]) -> (Algorithm, bool) {
    let mut found = Algorithm::Xxh64;
    for (prefix, candidate) in [
        (&b"XXH3"[..], Algorithm::Xxh3),
        (b"XXH32", Algorithm::Xxh32),
        (b"XXH64", Algorithm::Xxh64),
        (b"XXH128", Algorithm::Xxh128),
    ] {
        if tag.starts_with(prefix) {
            found = candidate;
        }
    }
    (found, tag.windows(3).any(|w| w == b"_LE"))
}

/// xxhsum's `-c` over its manifests (standard input without any): whether every one verified.
/// A listed file that opens but cannot be read (a directory: `fopen` opens it, `fread` fails)
/// ends the whole run, as `XSUM_hashStream` in xxHash's `cli/xxhsum.c` calls `exit (1)` on
/// `ferror`: no status line and no summary for it or anything after it.
fn check_files(options: &Options, out: &mut impl Write) -> bool {
    let manifests: Vec<Option<&OsString>> = if options.files.is_empty() {
        vec![None]
    } else {
        options.files.iter().map(Some).collect()
    };
    let mut ok = true;
    for manifest in manifests {
        match check_file(options, out, manifest) {
            Ok(verified) => ok &= verified,
            Err(ReadFailed) => {
                log(out, b"Error: a failure occurred reading the input file.\n");
                return false;
            }
        }
    }
    ok
}

/// A listed file was opened and could not be read: xxhsum stops there.
struct ReadFailed;

/// What one manifest's lines came to.
#[derive(Default)]
struct LineCounts {
    proper: u64,
    improper: u64,
    matched: u64,
    mismatched: u64,
    unreadable: u64,
}

/// Checks one manifest (`None`: standard input, named "stdin"): whether it verified, or the
/// read failure that ends the run.
fn check_file(
    options: &Options,
    out: &mut impl Write,
    manifest: Option<&OsString>,
) -> Result<bool, ReadFailed> {
    let shown: Vec<u8> = manifest.map_or(b"stdin".to_vec(), |m| m.as_bytes().to_vec());
    let opened: io::Result<Box<dyn BufRead>> = match manifest {
        Some(manifest) => crate::io::long_paths::open_file(std::path::Path::new(manifest))
            .map(|file| Box::new(io::BufReader::new(file)) as Box<dyn BufRead>),
        None => crate::io::stdin().map(|stdin| Box::new(io::BufReader::new(stdin)) as _),
    };
    let reader = match opened {
        Ok(reader) => reader,
        Err(e) => return Ok(open_failed(out, &shown, &e)),
    };
    let shown_text = String::from_utf8_lossy(&shown).into_owned();
    let mut counts = LineCounts::default();
    for (number, line) in reader.split(b'\n').enumerate() {
        let Ok(line) = line else { break };
        if line.first() == Some(&b'#') {
            continue;
        }
        let Some((algorithm, expected, name)) =
            parse_line(&line, options.little_endian, options.only)
        else {
            counts.improper += 1;
            if options.warn {
                let message = format!(
                    "{shown_text}:{}: Error: Improperly formatted checksum line.\n",
                    number + 1
                );
                log(out, message.as_bytes());
            }
            continue;
        };
        counts.proper += 1;
        let listed = Listed {
            line_number: number + 1,
            algorithm,
            expected: &expected,
            name: &name,
        };
        if check_listed(options, out, &shown_text, &listed, &mut counts)?.is_err() {
            return Ok(false);
        }
    }
    Ok(write_check_summary(options, out, &shown_text, &counts))
}

/// One checksum line of a manifest.
struct Listed<'a> {
    line_number: usize,
    algorithm: Algorithm,
    expected: &'a [u8],
    name: &'a [u8],
}

/// Verifies one listed file, counts it and writes its line: `Err` when it could not be read
/// (which ends the run), `Ok(Err)` when standard output failed.
fn check_listed(
    options: &Options,
    out: &mut impl Write,
    shown_text: &str,
    listed: &Listed,
    counts: &mut LineCounts,
) -> Result<io::Result<()>, ReadFailed> {
    let digest = if listed.name == b"stdin" {
        // xxhsum reads its own standard input: a failure there is a read failure.
        crate::io::stdin()
            .and_then(|stdin| hash_reader(stdin, listed.algorithm))
            .map_err(|_| ReadFailed)?
    } else {
        let path = std::path::Path::new(OsStr::from_bytes(listed.name));
        match crate::io::long_paths::open_file(path) {
            Ok(file) => hash_file(file, listed.algorithm, &ReadOptions::default())
                .map_err(|_| ReadFailed)?,
            Err(_) if options.ignore_missing => return Ok(Ok(())),
            Err(e) => {
                counts.unreadable += 1;
                if options.status {
                    return Ok(Ok(()));
                }
                let mut message = format!(
                    "{shown_text}:{}: Could not open or read '",
                    listed.line_number
                )
                .into_bytes();
                message.extend_from_slice(listed.name);
                message.extend_from_slice(
                    format!("': {}.\n", crate::error::os_error_text(&e)).as_bytes(),
                );
                return Ok(out.write_all(&message));
            }
        }
    };
    let good = digest.as_bytes() == listed.expected;
    if good {
        counts.matched += 1;
    } else {
        counts.mismatched += 1;
    }
    if options.status || (good && options.quiet) {
        return Ok(Ok(()));
    }
    Ok((|| {
        if needs_escape(listed.name) {
            out.write_all(b"\\")?;
        }
        out.write_all(&escape_name(listed.name))?;
        out.write_all(if good { b": OK\n" } else { b": FAILED\n" })
    })())
}

/// The summary after a manifest, as xxhsum writes it; whether the manifest verified.
fn write_check_summary(
    options: &Options,
    out: &mut impl Write,
    shown_text: &str,
    counts: &LineCounts,
) -> bool {
    let LineCounts {
        proper,
        improper,
        matched,
        mismatched,
        unreadable,
    } = *counts;
    if proper == 0 {
        log(
            out,
            format!("{shown_text}: no properly formatted xxHash checksum lines found\n").as_bytes(),
        );
    } else if !options.status {
        let plural = |n: u64, one: &str, many: &str| {
            if n == 1 {
                one.to_string()
            } else {
                many.to_string()
            }
        };
        let mut summary = String::new();
        if improper > 0 {
            summary += &format!(
                "{improper} {} improperly formatted\n",
                plural(improper, "line is", "lines are")
            );
        }
        if unreadable > 0 {
            summary += &format!(
                "{unreadable} listed {} could not be read\n",
                plural(unreadable, "file", "files")
            );
        }
        if mismatched > 0 {
            summary += &format!(
                "{mismatched} computed {} did NOT match\n",
                plural(mismatched, "checksum", "checksums")
            );
        }
        let _ = out.write_all(summary.as_bytes());
    }
    let mut result =
        proper != 0 && mismatched == 0 && unreadable == 0 && (!options.strict || improper == 0);
    if options.ignore_missing && matched == 0 {
        let _ = out.write_all(format!("{shown_text}: no file was verified\n").as_bytes());
        result = false;
    }
    result
}

fn open_failed(out: &mut impl Write, shown: &[u8], e: &io::Error) -> bool {
    let mut message = b"Error: Could not open '".to_vec();
    message.extend_from_slice(shown);
    message.extend_from_slice(format!("': {}\n", crate::error::os_error_text(e)).as_bytes());
    log(out, &message);
    false
}
