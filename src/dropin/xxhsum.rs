//! `xxhsum`, `xxh32sum`, `xxh64sum`, `xxh128sum` and `xxh3sum` as xxHash 0.8.3's `xxhsum` is
//! under those names: its option parsing (options first; the first operand starts the file
//! list), its lines (`XXH3_` before untagged XXH3 digests, `_LE` tags with
//! `--little-endian`), its messages and exit codes. Its `-c` is `check::run` under xxhsum's
//! dialect (`CheckDialect::Xxhsum`: its lines, words and stops), restricted to the name's
//! algorithm under `xxhNNsum`. Digests come from fasthash's engines.

use super::xxhsum_bench::{self, BenchOptions};
use super::CheckDialect;
use super::{Grammar, LineDialect, MessageName, NameMatch, Program};
use crate::check::{Check, CheckOptions};
use crate::cli::Invocation;
use crate::error::ExitStatus;
use crate::format::line::{write_digest_line, LineStyle};
use crate::format::manifest::Retag;
use crate::format::messages::{xxhsum_cannot_open, xxhsum_directory, xxhsum_unreadable};
use crate::format::status::Report;
use crate::io::parallel::{default_readers, default_threads};
use crate::io::read::{hash_file, hash_reader, ReadOptions};
use crate::io::settings::RunSettings;
use crate::io::{Input, RawStdout};
use crate::kernels::{Algorithm, Digest};
use crate::report::{reader_went_away, Reporter};
use std::ffi::OsString;
use std::io::{self, Write};
use std::ops::ControlFlow;
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
        check: CheckDialect::Xxhsum {
            little_endian: false,
        },
        messages: None,
        message_name: MessageName::BaseName,
        lines: LineDialect::Xxhsum {
            little_endian: false,
        },
        usage_status: ExitStatus::Failure,
    }
}

/// The most bytes a line of a manifest may take under `-c`, its newline included: xxhsum 0.8.x
/// reads each line into a buffer of at most `MAX_LINE_LENGTH` (32 KiB) that must also hold a
/// closing NUL, and at the byte that does not fit it says `Line too long.` and reads no more
/// of that manifest (`XSUM_getLine` in its `cli/xxhsum.c`): a line of 32,766 bytes and its
/// newline is read, one of 32,767 bytes only as the manifest's last, without a newline.
pub(crate) const LONGEST_LINE: usize = 32 * 1024 - 1;

struct Options {
    algorithm: Algorithm,
    /// Under `xxhNNsum`, `-c` reads only that algorithm's lines.
    only: Option<Algorithm>,
    check: bool,
    little_endian: bool,
    tagged: bool,
    /// `-c`'s options, which mean what coreutils' do.
    check_options: CheckOptions,
    files: Vec<OsString>,
    /// `-` was given: standard input is read even from a terminal.
    explicit_stdin: bool,
    /// `-b` or `--benchmark-all`: the benchmark, of the variants these numbers choose.
    bench: Option<Vec<u32>>,
    /// The benchmark's settings (`-i`, `-B`, `-q`), used if `-b` comes too.
    bench_settings: BenchOptions,
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
    if let Some(variants) = options.bench {
        let bench = BenchOptions {
            variants,
            ..options.bench_settings
        };
        return xxhsum_bench::run(exe_name, &bench, &options.files, |bytes: &[u8]| say(bytes));
    }
    let mut out = StdioBuffer(io::BufWriter::new(RawStdout));
    let ok = if options.check {
        let check = check_mode(invocation.personality, &options);
        crate::io::parallel::configure_threads(check.run.threads);
        crate::io::descriptors::prepare();
        let checked = crate::io::parallel::in_pool(|| {
            crate::check::run(&check, &mut out, &Reporter::new(invocation))
        });
        checked.status == ExitStatus::Success
    } else {
        match hash_files(&options, &mut out) {
            ControlFlow::Continue(ok) => ok,
            // The reader went away: what was earned so far, without another write.
            ControlFlow::Break(ok) => return u8::from(!ok),
        }
    };
    match out.0.flush() {
        Err(error) if !reader_went_away(&error) => 1,
        _ => u8::from(!ok),
    }
}

/// Standard output as xxhsum's C stdio buffers it: a flush on the way that fails is no error
/// (the bytes stay in the buffer; the last flush, at exit, decides the status), a write that
/// finds the buffer full and cannot empty it is. A standard output closed by the caller
/// (`>&-`) fails as a full disk does, as under every other name.
struct StdioBuffer(io::BufWriter<RawStdout>);

impl Write for StdioBuffer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        let _ = self.0.flush();
        Ok(())
    }
}

/// `-c` as a check of the shared loop: the manifests named (standard input without any; a
/// later `-` is a file of that name), read by xxhsum's dialect.
fn check_mode(program: &Program, options: &Options) -> Check {
    let manifests = match options.files.is_empty() {
        true => vec![Input::Stdin],
        false => options
            .files
            .iter()
            .map(|f| Input::Path(f.into()))
            .collect(),
    };
    let threads = default_threads();
    Check {
        manifests,
        algorithm: options.only,
        options: options.check_options,
        dialect: CheckDialect::Xxhsum {
            little_endian: options.little_endian,
        },
        zero_terminated: false,
        any_length: false,
        type_name: None,
        retag: Retag::Never,
        base64_digests: program.reads_base64(),
        filter: Default::default(),
        report: Report::Lines,
        run: RunSettings {
            threads,
            readers: default_readers(threads),
            read: ReadOptions::default(),
            debug: false,
            cache: None,
            stats: false,
        },
        blake3_seek: 0,
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
        check_options: CheckOptions::default(),
        files: Vec::new(),
        explicit_stdin: false,
        bench: None,
        bench_settings: BenchOptions::default(),
    };
    let mut index = 1;
    while index < args.len() {
        let argument = args[index].as_bytes();
        index += 1;
        match argument {
            b"--check" => options.check = true,
            b"--quiet" => options.check_options.quiet = true,
            b"--little-endian" => options.little_endian = true,
            b"--strict" => options.check_options.strict = true,
            b"--status" => options.check_options.status = true,
            b"--warn" => options.check_options.warn = true,
            b"--binary" => {}
            b"--ignore-missing" => options.check_options.ignore_missing = true,
            b"--tag" => options.tagged = true,
            b"--help" => return Err(usage(exe_name, true)),
            b"--version" => return Err(version(exe_name)),
            b"--benchmark-all" => {
                let all = xxhsum_bench::VARIANT_COUNT as u32 + 1;
                options.bench.get_or_insert_with(Vec::new).push(all);
            }
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
                let (number, rest) = read_number(letters).ok_or_else(number_too_large)?;
                letters = rest;
                options.algorithm = match number {
                    0 | 32 => Algorithm::Xxh32,
                    1 | 64 => Algorithm::Xxh64,
                    2 | 128 => Algorithm::Xxh128,
                    3 => Algorithm::Xxh3,
                    _ => return Err(bad_usage(exe_name)),
                };
            }
            b'c' => options.check = true,
            b'w' => options.check_options.warn = true,
            b'q' => {
                options.check_options.quiet = true;
                options.bench_settings.quiet = true;
            }
            b'b' => {
                let numbers = options.bench.get_or_insert_with(Vec::new);
                loop {
                    let (number, rest) = read_number(letters).ok_or_else(number_too_large)?;
                    numbers.push(number);
                    match rest.strip_prefix(b",") {
                        Some(rest) => letters = rest,
                        None => {
                            letters = rest;
                            break;
                        }
                    }
                }
            }
            b'i' => {
                let (rounds, rest) = read_number(letters).ok_or_else(number_too_large)?;
                options.bench_settings.rounds = rounds;
                letters = rest;
            }
            b'B' => {
                let (size, rest) = read_number(letters).ok_or_else(number_too_large)?;
                options.bench_settings.sample_size = size as usize;
                letters = rest;
            }
            _ => return Err(bad_usage(exe_name)),
        }
    }
    Ok(())
}

/// A number as xxhsum 0.8.3 reads it after `-H`, `-i`, `-B`: decimal digits (none is 0), then
/// optionally `K` or `M` (times 1,024 or 1,024²) with an optional `i` after it, then an optional
/// `B` (`-B64KiB`); what follows is the next option. None past xxhsum's range: it refuses a
/// digit once the number is over 429,496,728, and `K` (and `M`, once more) once it is over
/// 4,194,303.
fn read_number(text: &[u8]) -> Option<(u32, &[u8])> {
    const MOST_BEFORE_A_DIGIT: u32 = u32::MAX / 10 - 1;
    const MOST_BEFORE_A_KIB: u32 = u32::MAX >> 10;
    let digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut number: u32 = 0;
    for &digit in &text[..digits] {
        if number > MOST_BEFORE_A_DIGIT {
            return None;
        }
        number = number * 10 + u32::from(digit - b'0');
    }
    let mut rest = &text[digits..];
    if let Some((&unit @ (b'K' | b'M'), after)) = rest.split_first() {
        let shifts = if unit == b'K' { 1 } else { 2 };
        for _ in 0..shifts {
            if number > MOST_BEFORE_A_KIB {
                return None;
            }
            number <<= 10;
        }
        rest = after.strip_prefix(b"i").unwrap_or(after);
        rest = rest.strip_prefix(b"B").unwrap_or(rest);
    }
    Some((number, rest))
}

/// xxhsum's refusal of a number past its range, and its exit status.
fn number_too_large() -> u8 {
    say("Error: numeric value too large \n");
    1
}

/// Writes to standard error, as xxhsum does: a failed write is ignored (xxhsum's exit status
/// does not depend on it), never a panic.
fn say(text: impl AsRef<[u8]>) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(text.as_ref());
}

fn version(exe_name: &str) -> u8 {
    say(format!(
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
             Benchmark (on standard error; with files, of each file):\n  \
             -b                   the benchmark of XXH32, XXH64, XXH3 and XXH128\n  \
             -b#[,#...]           variants by number (1 to 28); --benchmark-all every one\n  \
             -i#                  rounds of a second each, the best counts (default 3)\n  \
             -B#                  the sample's size (default 100 KB)\n  \
             -q                   without the version line\n",
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

/// Hashes the operands, one line each; whether every one was hashed and written. Break where
/// the reader of standard output went away, which ends the run at once in silence, as under
/// every other name (xxhsum itself is killed by SIGPIPE there), not after hashing the rest.
fn hash_files(options: &Options, out: &mut impl Write) -> ControlFlow<bool, bool> {
    let mut ok = true;
    // Standard input only without operands ("stdin" in lines); an operand `-` is a file name,
    // as xxhsum compares its stdin marker by address, not by text.
    if options.files.is_empty() {
        let digest = crate::io::stdin().and_then(|stdin| hash_reader(stdin, options.algorithm));
        tally(&mut ok, report(options, out, b"stdin", digest))?;
        return ControlFlow::Continue(ok);
    }
    for file in &options.files {
        let path = std::path::Path::new(file);
        if crate::io::long_paths::metadata(path).is_ok_and(|m| m.is_dir()) {
            let mut message = xxhsum_directory(file.to_string_lossy().as_bytes());
            message.push(b'\n');
            log(out, &message);
            ok = false;
            continue;
        }
        let digest = match crate::io::long_paths::open_file(path) {
            Ok(opened) => hash_file(opened, options.algorithm, &ReadOptions::default()),
            Err(e) => {
                let reason = format!("{}. ", crate::error::os_error_text(&e));
                let mut message = xxhsum_cannot_open(file.as_bytes(), &reason);
                message.push(b'\n');
                log(out, &message);
                ok = false;
                continue;
            }
        };
        tally(&mut ok, report(options, out, file.as_bytes(), digest))?;
    }
    ControlFlow::Continue(ok)
}

/// Counts one operand's outcome into `ok`: Break, with `ok` as it was, where its line could
/// not be written because the reader went away.
fn tally(ok: &mut bool, reported: io::Result<bool>) -> ControlFlow<bool> {
    match reported {
        Ok(hashed) => *ok &= hashed,
        Err(error) if reader_went_away(&error) => return ControlFlow::Break(*ok),
        Err(_) => *ok = false,
    }
    ControlFlow::Continue(())
}

/// Prints one input's line, or why it could not be read; whether it was hashed, or the error
/// of the write.
fn report(
    options: &Options,
    out: &mut impl Write,
    name: &[u8],
    digest: io::Result<Digest>,
) -> io::Result<bool> {
    match digest {
        Ok(digest) => write_line(options, out, name, &digest).map(|()| true),
        Err(e) => {
            let mut message = xxhsum_unreadable(name, &crate::error::os_error_text(&e));
            message.push(b'\n');
            log(out, &message);
            Ok(false)
        }
    }
}
