//! What was typed: clap's definition of `fasthash`, GNU getopt parsing for the coreutils
//! drop-in names, and b3sum's options. Nothing here decides anything; `config` does.

use crate::dropin::Program;
use crate::error::Error;
use crate::kernels::Algorithm;
use clap::builder::TypedValueParser as _;
use clap::{ArgAction, Parser};
use std::any::TypeId;
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

/// Who is speaking: the program being imitated (a row of [`crate::dropin::PROGRAMS`]), and
/// its name in messages. Decided once, from `argv[0]`, and carried by the configuration.
#[derive(Clone, Debug)]
pub struct Invocation {
    pub personality: &'static Program,
    /// The program's name in messages (see [`Program::message_name`]).
    pub program: String,
}

impl Invocation {
    pub fn from_argv0(argv0: Option<&OsString>) -> Invocation {
        let personality = Program::from_argv0(argv0);
        Invocation {
            personality,
            program: personality.message_name(argv0),
        }
    }
}

/// `-h` ends here: the rest is one flag or one page away.
const AFTER_HELP: &str =
    "Every option, examples and exit status: fasthash --help, or man fasthash.";

/// The examples of `--help` and of the man page's EXAMPLES section: a command and what it does.
pub(crate) const EXAMPLES: &[(&str, &str)] = &[
    (
        "fasthash FILE...",
        "SHA-256, one line per file, as sha256sum prints",
    ),
    (
        "fasthash -a blake3 --tag FILE",
        "BSD-style line: BLAKE3 (FILE) = ...",
    ),
    (
        "fasthash -a crc64nvme --base64 F",
        "the digest in base64, as cksum --base64 prints",
    ),
    (
        "fasthash -a md5,sha256 --tag F...",
        "both digests of each file from one read, a line each",
    ),
    (
        "fasthash --json -a md5,blake3 F",
        "one JSON object a file: name, size, digests",
    ),
    (
        "fasthash -c SHA256SUMS",
        "verify a manifest, as sha256sum -c does",
    ),
    (
        "fasthash -c --quiet B3SUMS XXHSUMS",
        "manifests of b3sum, xxhsum, or several algorithms",
    ),
    (
        "fasthash -c SUMS --tree DIR",
        "and the files of DIR that SUMS does not list",
    ),
    (
        "fasthash -r --exclude .git DIR",
        "every file under DIR, sorted, on every core",
    ),
    (
        "find . -print0 | fasthash --files0-from -",
        "names from another program",
    ),
    (
        "fasthash -r --cache ~/.fh-cache DIR",
        "re-runs read only the files that changed",
    ),
    (
        "fasthash -r --shard 2/8 DIR > s2",
        "the second of eight parts of DIR, for one machine",
    ),
    (
        "fasthash --merge s*",
        "the shards back into the manifest of one run",
    ),
    (
        "fasthash --s3 -a crc64nvme F",
        "the x-amz-checksum-crc64nvme value for F",
    ),
    (
        "fasthash --s3 -a sha256 --part-size 8MiB F",
        "what S3 reports for a multipart upload",
    ),
    ("fasthash --etag --part-size 8MiB F", "the multipart ETag"),
    (
        "fasthash --s3-preset aws-cli-v2 F",
        "what `aws s3 cp` will make S3 store",
    ),
    (
        "fasthash --verify-s3 s3://B/KEY F",
        "F against the checksums S3 stores for it",
    ),
    (
        "fasthash --verify-s3 s3://B/up/ DIR",
        "every object under up/ against DIR's files",
    ),
    (
        "fasthash --verify-s3 head.json F",
        "F against `aws s3api head-object` output",
    ),
    (
        "fasthash --bench",
        "each algorithm's kernels and speed on this CPU",
    ),
];

/// What the binary is under another name: in `--help` and, once, in the man page.
pub(crate) const DROP_IN: &str = "\
Started as md5sum, sha1sum, sha224sum, sha256sum, sha384sum, sha512sum, b2sum, cksum, sum,
b3sum, xxhsum, xxh32sum, xxh64sum, xxh128sum or xxh3sum (a symbolic link), fasthash is that
program: its options, output, messages and exit codes.";

/// `--help`'s closing text: the examples, the drop-in names, the exit status, and where the
/// rest is (the man page has its own sections for these: `crate::generate`).
fn after_long_help() -> String {
    let mut text = String::from("Examples:\n");
    for (command, what) in EXAMPLES {
        // Aligned in a column; a command too long for it keeps three spaces before its words.
        let width = if command.len() < 36 {
            36
        } else {
            command.len() + 2
        };
        text.push_str(&format!("  {command:<width$} {what}\n"));
    }
    text.push('\n');
    text.push_str(DROP_IN);
    text.push_str(
        "\n\nExit status: 0 when every input was hashed (or verified), 1 when an input could not \
         be read,\nchanged while read, or did not match, or output failed; 2 for a usage error.\n\
         See `man fasthash` for more.",
    );
    text
}

/// `-a`'s help: every name in the table's order, as usage errors list them.
fn algorithm_help() -> String {
    format!(
        "Algorithm: {} (default sha256; case-insensitive; S3 names such as xxhash64 work too). \
         Several (-a md5,sha256 or -a md5 -a sha256): each file is read once and gets a line \
         per algorithm, in the order given",
        Algorithm::names_list()
    )
}

const LONG_ABOUT: &str = "\
A fast, coreutils-compatible checksum tool: SHA-2, SHA-1, MD5, BLAKE3, xxHash,
CRC32/CRC32C/CRC64-NVME, and Amazon S3 checksum values.

Prints exactly what sha256sum, md5sum, b3sum and xxhsum print, verifies their manifests with
coreutils' messages and exit codes, hashes files on every core in a stable order, and computes
the values Amazon S3 stores, multipart uploads included.";

/// fasthash: compute and check checksums, compatible with coreutils, b3sum and xxhsum.
#[derive(Parser, Debug, Default)]
#[command(
    name = "fasthash",
    version,
    about,
    long_about = LONG_ABOUT,
    after_help = AFTER_HELP,
    after_long_help = after_long_help()
)]
pub struct Cli {
    /// Files to hash (or manifests to check with -c); none or `-` reads standard input
    #[arg(value_name = "FILE")]
    pub files: Vec<OsString>,

    #[arg(short = 'a', long, value_name = "NAME", value_parser = AlgorithmParser, value_delimiter = ',', action = ArgAction::Append, hide_possible_values = true, help = algorithm_help())]
    pub algorithm: Vec<Algorithm>,

    /// Read in binary mode: untagged lines get a `*` before the name
    #[arg(short = 'b', long, overrides_with = "text")]
    pub binary: bool,

    /// Read in text mode (the default)
    #[arg(short = 't', long, overrides_with = "binary")]
    pub text: bool,

    /// Write BSD-style lines: `TAG (NAME) = DIGEST`
    #[arg(long, overrides_with = "untagged")]
    pub tag: bool,

    /// Write GNU-style lines: `DIGEST  NAME` (the default)
    #[arg(long, overrides_with = "tag")]
    pub untagged: bool,

    /// End each output line with NUL, not newline, and do not escape names
    #[arg(short = 'z', long)]
    pub zero: bool,

    /// Print digests in base64, as `cksum --base64` does
    #[arg(long)]
    pub base64: bool,

    /// Print digests only, without names
    #[arg(long)]
    pub no_names: bool,

    /// Read checksums from the FILEs and verify them
    #[arg(short = 'c', long)]
    pub check: bool,

    /// With --check: do not fail or report for missing files; with --verify-s3 of a tree,
    /// for objects that have no file
    #[arg(long)]
    pub ignore_missing: bool,

    /// With --check: do not print OK for each verified file
    #[arg(long, overrides_with_all = ["status", "warn"])]
    pub quiet: bool,

    /// With --check: print nothing; the exit status tells
    #[arg(long, overrides_with_all = ["quiet", "warn"])]
    pub status: bool,

    /// With --check: exit non-zero for improperly formatted lines
    #[arg(long)]
    pub strict: bool,

    /// With --check: warn about improperly formatted lines
    #[arg(short = 'w', long, overrides_with_all = ["quiet", "status"])]
    pub warn: bool,

    /// Threads hashing files in parallel (default: one per core; at most the cores or 256,
    /// whichever is more)
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,

    /// Files opened and read ahead of the hashing threads at once, each by a reader thread of
    /// its own: the reads kept in flight on a cold disk or a network file system (default: 32,
    /// or twice the threads when more)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub readers: Option<u16>,

    /// Hash the files under directories, recursively (sorted by name, hidden files included)
    #[arg(short = 'r', long)]
    pub recursive: bool,

    /// With -r: follow symbolic links met while walking (loops are reported, not followed);
    /// links named on the command line are always followed
    #[arg(short = 'L', long = "follow")]
    pub follow: bool,

    /// With -r, skip files and directories matching GLOB; with --check, the listed files that
    /// match. GLOB matches the end of the path as printed (`*.log`, `cache/**`: at any
    /// depth); a leading `/` anchors it at the directory named (`/src/build` for `-r src`), a
    /// trailing `/` matches directories only
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,

    /// With -r or --check, only files matching GLOB, or under a directory matching it (the
    /// rules of --exclude, which wins)
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,

    /// Read the names of the files to hash from FILE, one a line (`-`: standard input)
    #[arg(long, value_name = "FILE", conflicts_with = "files0_from")]
    pub files_from: Option<OsString>,

    /// Read the names of the files to hash from FILE, each ended by a NUL (as `find -print0`
    /// writes; `-`: standard input)
    #[arg(long, value_name = "FILE")]
    pub files0_from: Option<OsString>,

    /// With --check: also walk DIR and report the files no manifest lists (NEW), listed files
    /// that are gone (MISSING) and files renamed since (MOVED from the listed name); with
    /// --json, one object a file
    #[arg(long, value_name = "DIR", requires = "check")]
    pub tree: Option<OsString>,

    /// Remember digests in FILE and take them from it for files whose device, inode, size,
    /// modification and change times are unchanged (no read); with --check too, at the cost
    /// of not noticing bit rot (see docs/GUIDE.md)
    #[arg(long, value_name = "FILE")]
    pub cache: Option<OsString>,

    /// Hash only the K-th of N parts of the inputs: the sorted walk cut into N runs of about
    /// equal bytes, from names and sizes alone, so every machine cuts it the same way. The
    /// output starts with a `# fasthash shard K/N` line for --merge (a comment to --check)
    #[arg(long, value_name = "K/N", value_parser = crate::io::shard::Shard::parse, help_heading = "Shards")]
    pub shard: Option<crate::io::shard::Shard>,

    /// Merge the shard manifests FILE... (of --shard K/N, any order) into the manifest one
    /// run writes, byte for byte; refuses shards of different runs, a shard twice or a missing
    /// one
    #[arg(long, help_heading = "Shards")]
    pub merge: bool,

    /// Show the progress bar at once, even where standard error is not a terminal (default:
    /// only when it is a terminal and the work takes more than a second). The bar names the
    /// file being hashed, cut to fit from the front; sizes and rates are decimal (MB, GB/s).
    /// Hashing, S3 values and --verify-s3 of a tree only: --check, --merge and --verify-s3 of
    /// one object have no bar
    #[arg(long, overrides_with = "no_progress")]
    pub progress: bool,

    /// Never show a progress bar
    #[arg(long, overrides_with = "progress")]
    pub no_progress: bool,

    /// At the end, one line on standard error: files, bytes hashed, time and rate, in decimal
    /// units (`fasthash: 1,234 files, 5.67 GB in 2.31 s, 2.45 GB/s`, then `, N failed`); with
    /// --check the OK, FAILED, missing and unreadable counts, with --tree also MISSING, MOVED
    /// and NEW. Not with --merge, which hashes nothing
    #[arg(long)]
    pub stats: bool,

    /// Print the Amazon S3 checksum value (base64, as the x-amz-checksum-* header wants it):
    /// `VALUE  NAME`
    #[arg(long, help_heading = "Amazon S3")]
    pub s3: bool,

    /// Print `x-amz-checksum-ALGO: VALUE` header lines (no names; use --json to keep them)
    #[arg(long, help_heading = "Amazon S3")]
    pub s3_header: bool,

    /// Print one JSON object a line. Hashing: `{"name", "size", "digests": {ALGORITHM: DIGEST}}`
    /// a file (every -a algorithm, hex or --base64); with the S3 options: name, size,
    /// algorithm, digest, S3 header and value, checksum type, parts, ETag, an object per
    /// algorithm; with --check (and --tree), one object a file and a summary object; with
    /// --verify-s3, the verdict as one object (every field: docs/json.md)
    #[arg(long)]
    pub json: bool,

    /// What S3 reports for a multipart upload in parts of SIZE bytes (K, M, G: powers of 1024;
    /// 8MiB, 5M, 16777216)
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg, help_heading = "Amazon S3")]
    pub part_size: Option<u64>,

    /// With --part-size: composite (the checksum of the part checksums, `-N`) or full-object
    /// (the whole object's CRC; CRC32, CRC32C, CRC64NVME); default: composite, full-object
    /// for crc64nvme
    #[arg(long, value_name = "TYPE", value_parser = ["composite", "full-object"], help_heading = "Amazon S3")]
    pub checksum_type: Option<String>,

    /// Print the ETag S3 gives the object (the MD5 of the part MD5s and `-N` with --part-size);
    /// alone, only the ETag; with --s3 or -a, the checksum value too; with --s3-header, an
    /// `ETag:` header line
    #[arg(long, help_heading = "Amazon S3")]
    pub etag: bool,

    /// With --part-size: allow parts outside 5 MiB..5 GiB and more than 10,000 parts
    #[arg(long, help_heading = "Amazon S3")]
    pub no_part_limits: bool,

    /// What this client makes S3 store for the file: aws-cli-v2 (CRC64NVME, full object),
    /// aws-cli-v1 or boto3 (CRC32, composite from 8 MiB): algorithm, type, value and ETag
    #[arg(long, value_name = "CLIENT", value_parser = ["aws-cli-v2", "aws-cli-v1", "boto3"], help_heading = "Amazon S3")]
    pub s3_preset: Option<String>,

    /// Compare FILE with what S3 reports for its object: `--verify-s3 s3://BUCKET/KEY FILE`
    /// asks S3 (HeadObject; credentials, region and endpoint as the AWS CLI finds them),
    /// `--verify-s3 HEAD.json FILE` reads what `aws s3api head-object --checksum-mode ENABLED`
    /// or `get-object-attributes` printed. `--verify-s3 s3://BUCKET/PREFIX/ DIR` compares every
    /// object under the prefix with the file of DIR its key names: OK, FAILED, MISSING (no
    /// file), NEW (no object), cannot verify
    #[arg(long, value_name = "WHERE", help_heading = "Amazon S3")]
    pub verify_s3: Option<OsString>,

    /// With --verify-s3 s3://...: the S3-compatible server to ask (MinIO, Ceph, a local
    /// server), addressed by path; default: AWS_ENDPOINT_URL, the profile's endpoint_url, or
    /// Amazon S3
    #[arg(long, value_name = "URL", help_heading = "Amazon S3")]
    pub endpoint_url: Option<String>,

    /// Map every regular file into memory instead of reading it (default: map files of 4 MiB
    /// and more, and on one thread files from 128 KiB hashed side by side)
    #[arg(long, overrides_with = "no_mmap")]
    pub mmap: bool,

    /// Never map files; always read them
    #[arg(long, overrides_with = "mmap")]
    pub no_mmap: bool,

    /// List every kernel of every algorithm, which ones this CPU runs, and the one used
    #[arg(long)]
    pub list_kernels: bool,

    /// Name the kernel each algorithm runs on (on standard error)
    #[arg(long)]
    pub debug: bool,

    /// Measure every kernel this CPU runs (* the one used; with -a, that algorithm's): GB/s
    /// on one thread at 64 B, 4 KiB and 1 MiB in memory, and 32 buffers of 4 KiB side by side.
    /// Takes no FILE
    #[arg(long, help_heading = "Benchmark")]
    pub bench: bool,

    /// With --bench: seconds to spend measuring, in all (default 3, at most 3600)
    #[arg(long, value_name = "S", value_parser = parse_seconds, help_heading = "Benchmark")]
    pub seconds: Option<f64>,

    /// Print a generated file: the man page or a shell's completions
    #[arg(long, value_name = "WHAT", hide = true, value_parser = crate::generate::TARGETS.iter().map(|(name, _)| *name).collect::<Vec<_>>())]
    pub generate: Option<String>,

    /// Explicit `-t`/`--text` was typed (GNU rejects `--tag --text`); set by the parsers.
    #[arg(skip)]
    pub text_typed: bool,

    /// cksum's and b2sum's `-l`, as typed (each program checks it its own way).
    #[arg(skip)]
    pub length_text: Option<Vec<u8>>,

    /// cksum's `-a`, as typed (cksum's names, not fasthash's).
    #[arg(skip)]
    pub cksum_algorithm: Option<Vec<u8>>,

    /// cksum's `--raw`: the digest's bytes, not text.
    #[arg(skip)]
    pub raw: bool,

    /// sum's `-s`/`--sysv`.
    #[arg(skip)]
    pub sysv: bool,

    /// b3sum's `--seek` with `--check`: each file's BLAKE3 output is compared from this byte,
    /// as b3sum compares it.
    #[arg(skip)]
    pub blake3_seek: u64,

    /// The options typed, by their long names, in the order typed (`--bench` refuses those of
    /// other modes by name). Gathered under `--bench` only: no other mode reads them.
    #[arg(skip)]
    pub typed_options: Vec<String>,
}

fn parse_size_arg(text: &str) -> Result<u64, String> {
    crate::s3::parse_size(text)
}

fn parse_seconds(text: &str) -> Result<f64, Error> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds > 0.0 && seconds <= 3600.0 => Ok(seconds),
        _ => Err(Error::usage(format!(
            "--seconds takes a number of seconds greater than 0 and at most 3600, not '{text}'"
        ))),
    }
}

/// Any name or alias in the table, case-insensitively; an unknown one is refused with the
/// closest name and the valid ones.
fn parse_algorithm(name: &str) -> Result<Algorithm, Error> {
    Algorithm::from_name(name)
        .ok_or_else(|| Error::usage(crate::format::messages::unknown_algorithm(name)))
}

/// `-a NAME`: any name or alias in the table, case-insensitively. Its possible values are the
/// table's names, so shell completions offer them.
#[derive(Clone, Copy, Debug)]
pub struct AlgorithmParser;

impl clap::builder::TypedValueParser for AlgorithmParser {
    type Value = Algorithm;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Algorithm, clap::Error> {
        // The function's own parser, so its error reaches `config` as the source of clap's.
        clap::builder::TypedValueParser::parse_ref(&parse_algorithm, cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(crate::kernels::ALGORITHMS.iter().map(|info| {
            clap::builder::PossibleValue::new(info.name).aliases(info.aliases.iter().copied())
        })))
    }
}

/// `--version`'s text: the version, the CPU and the features the kernels can use.
fn long_version() -> &'static str {
    Box::leak(
        format!(
            "{}\nCPU: {}\nCPU features: {}\n(`fasthash --list-kernels` shows the kernel each algorithm runs)",
            env!("CARGO_PKG_VERSION"),
            crate::kernels::detect::Capabilities::cpu_name(),
            crate::kernels::detect::Capabilities::get().names().join(" ")
        )
        .into_boxed_str(),
    )
}

impl Cli {
    /// Parses `fasthash`'s own command line; clap's error (help and version too) is returned,
    /// for `config` to word. `--version` also names the CPU features the kernels can use.
    pub fn parse_fasthash(args: Vec<OsString>) -> Result<Cli, clap::Error> {
        let mut command = Cli::command_with_short_help().version(env!("CARGO_PKG_VERSION"));
        let matches = match command.try_get_matches_from_mut(args.clone()) {
            // The CPU's name is read from /proc/cpuinfo, which costs a run a tenth of a
            // millisecond: only `--version` pays for it, parsing again with it.
            Err(error) if error.kind() == clap::error::ErrorKind::DisplayVersion => {
                return Err(command
                    .version(long_version())
                    .try_get_matches_from_mut(args)
                    .err()
                    .unwrap_or(error));
            }
            Err(mut error) if error.kind() == clap::error::ErrorKind::InvalidUtf8 => {
                name_the_value_not_utf8(&mut error, &command, &args);
                return Err(error);
            }
            matches => matches?,
        };
        let mut cli = <Cli as clap::FromArgMatches>::from_arg_matches(&matches)?;
        cli.text_typed = cli.text;
        if cli.bench {
            cli.typed_options = typed_options(&command, &matches);
        }
        Ok(cli)
    }

    /// clap's definition with `-h` cut to [`SHORT_HELP`]'s options (`--help`, the man page and
    /// the completions keep every option).
    fn command_with_short_help() -> clap::Command {
        <Cli as clap::CommandFactory>::command().mut_args(|arg| {
            let shown = SHORT_HELP.contains(&arg.get_id().as_str()) || arg.is_positional();
            arg.hide_short_help(!shown)
        })
    }
}

/// clap's error for a value that is not UTF-8 names neither the option nor the value: the
/// first such value on the command line is found here and put in the error's context
/// (`--exclude=VALUE`, `--exclude VALUE`, `-aVALUE`, `-a VALUE`), for the message to name
/// them. File names are never the cause (they may be any bytes), nor is anything after `--`.
fn name_the_value_not_utf8(error: &mut clap::Error, command: &clap::Command, args: &[OsString]) {
    use clap::error::{ContextKind, ContextValue};
    let args: Vec<&[u8]> = args.iter().skip(1).map(|arg| arg.as_bytes()).collect();
    let end = args
        .iter()
        .position(|arg| *arg == b"--")
        .unwrap_or(args.len());
    let found = (0..end)
        .filter(|&at| std::str::from_utf8(args[at]).is_err())
        .find_map(|at| option_and_value(command, &args, at));
    if let Some((option, value)) = found {
        error.insert(ContextKind::InvalidArg, ContextValue::String(option));
        error.insert(
            ContextKind::InvalidValue,
            // Between the plain marks of fasthash's other usage messages, every byte that is
            // not printable ASCII as an octal escape.
            ContextValue::String(crate::format::quote::quote_arg_in(
                value,
                crate::format::locale::Charset::SingleByte,
            )),
        );
    }
}

/// The option whose value `args[at]` holds or is, and that value: None where it is no option's
/// value (a file name).
fn option_and_value<'a>(
    command: &clap::Command,
    args: &[&'a [u8]],
    at: usize,
) -> Option<(String, &'a [u8])> {
    // The option `name` names, by its long name as clap's other errors name it, where it
    // takes a value that must be text (a path may be any bytes).
    let taking_value = |name: &str| {
        let arg = command
            .get_arguments()
            .find(|arg| match name.strip_prefix("--") {
                Some(long) => arg.get_long() == Some(long),
                None => name
                    .chars()
                    .nth(1)
                    .is_some_and(|short| arg.get_short() == Some(short)),
            })?;
        let long = arg.get_long().map(|long| format!("--{long}"));
        let parser = arg.get_value_parser().type_id();
        let any_bytes = parser == TypeId::of::<OsString>() || parser == TypeId::of::<PathBuf>();
        (arg.get_action().takes_values() && !any_bytes).then(|| long.unwrap_or(name.to_string()))
    };
    let takes_value = |name: &str| taking_value(name).is_some();
    // In a cluster (`-raVALUE`, `-ra VALUE`) the value starts after the first short option
    // that takes one.
    let first_taking_value = |cluster: &[u8]| {
        (1..cluster.len())
            .find(|&i| cluster[i].is_ascii() && takes_value(&format!("-{}", cluster[i] as char)))
    };
    let arg = args[at];
    let (option, value): (String, &[u8]) = if arg.starts_with(b"--") {
        let equals = arg.iter().position(|&byte| byte == b'=')?;
        (
            String::from_utf8(arg[..equals].to_vec()).ok()?,
            &arg[equals + 1..],
        )
    } else if arg.len() > 2 && arg[0] == b'-' {
        let short = first_taking_value(arg)?;
        (format!("-{}", arg[short] as char), &arg[short + 1..])
    } else {
        let before = args[at.checked_sub(1)?];
        if before.len() < 2 || before[0] != b'-' {
            return None;
        }
        if before.starts_with(b"--") {
            (String::from_utf8(before.to_vec()).ok()?, arg)
        } else {
            // Only where the cluster's option that takes a value is its last letter.
            let short = first_taking_value(before).filter(|&short| short + 1 == before.len())?;
            (format!("-{}", before[short] as char), arg)
        }
    };
    Some((taking_value(&option)?, value))
}

/// The long options typed on the command line, in the order typed.
fn typed_options(command: &clap::Command, matches: &clap::ArgMatches) -> Vec<String> {
    let mut typed: Vec<(usize, String)> = command
        .get_arguments()
        .filter(|arg| {
            matches.value_source(arg.get_id().as_str())
                == Some(clap::parser::ValueSource::CommandLine)
        })
        .filter_map(|arg| {
            // An option with no place recorded still counts, last.
            let at = matches.index_of(arg.get_id().as_str());
            Some((at.unwrap_or(usize::MAX), format!("--{}", arg.get_long()?)))
        })
        .collect();
    typed.sort();
    typed.into_iter().map(|(_, long)| long).collect()
}

/// The options `-h` shows, so it fits a terminal: the algorithm, the two halves of a checksum
/// tool (hash a tree, verify a manifest), the quiet check scripts want, and S3's value.
const SHORT_HELP: &[&str] = &[
    "algorithm",
    "recursive",
    "check",
    "quiet",
    "s3",
    "help",
    "version",
];

/// One long option of a coreutils digest program.
#[derive(Clone, Copy)]
pub(crate) struct GnuOption {
    pub(crate) long: &'static str,
    pub(crate) short: Option<u8>,
    pub(crate) set: GnuAction,
}

/// What an option does: a flag, or one that takes an argument and may refuse it. A refusal
/// ends the parse where the option stands, as coreutils' option loop dies there: `cksum -a
/// bad --help` is refused, `cksum --help -a bad` prints the help.
#[derive(Clone, Copy)]
pub(crate) enum GnuAction {
    Flag(fn(&mut Cli)),
    Value(fn(&mut Cli, &[u8]) -> Result<(), Error>),
}

pub(crate) const COREUTILS_OPTIONS: &[GnuOption] = &[
    GnuOption {
        long: "binary",
        short: Some(b'b'),
        set: GnuAction::Flag(|c| {
            c.binary = true;
            c.text = false;
            c.text_typed = false;
        }),
    },
    GnuOption {
        long: "check",
        short: Some(b'c'),
        set: GnuAction::Flag(|c| c.check = true),
    },
    GnuOption {
        long: "ignore-missing",
        short: None,
        set: GnuAction::Flag(|c| c.ignore_missing = true),
    },
    GnuOption {
        long: "quiet",
        short: None,
        set: GnuAction::Flag(|c| {
            c.quiet = true;
            c.status = false;
            c.warn = false;
        }),
    },
    GnuOption {
        long: "status",
        short: None,
        set: GnuAction::Flag(|c| {
            c.status = true;
            c.quiet = false;
            c.warn = false;
        }),
    },
    GnuOption {
        long: "strict",
        short: None,
        set: GnuAction::Flag(|c| c.strict = true),
    },
    GnuOption {
        long: "tag",
        short: None,
        set: GnuAction::Flag(|c| c.tag = true),
    },
    GnuOption {
        long: "text",
        short: Some(b't'),
        set: GnuAction::Flag(|c| {
            c.text = true;
            c.binary = false;
            c.text_typed = true;
        }),
    },
    GnuOption {
        long: "warn",
        short: Some(b'w'),
        set: GnuAction::Flag(|c| {
            c.warn = true;
            c.quiet = false;
            c.status = false;
        }),
    },
    GnuOption {
        long: "zero",
        short: Some(b'z'),
        set: GnuAction::Flag(|c| c.zero = true),
    },
];

/// What a coreutils command line asked for beyond hashing.
pub enum GnuParse {
    Run(Box<Cli>),
    Help,
    Version,
}

/// Parses a coreutils digest program's command line as glibc's `getopt_long` does: options
/// and operands in any order, `--` ends options, long options may be abbreviated.
/// An error is a usage error worded as glibc words it (without the program name).
pub fn parse_coreutils(args: &[OsString]) -> Result<GnuParse, Error> {
    parse_gnu(args, COREUTILS_OPTIONS)
}

/// [`parse_coreutils`] over another program's option table (`--help` and `--version` are
/// always there). With `POSIXLY_CORRECT` in the environment, as getopt does then, the first
/// operand ends the options: the words after it are files whatever they look like.
pub(crate) fn parse_gnu(args: &[OsString], options: &[GnuOption]) -> Result<GnuParse, Error> {
    let posixly_correct = std::env::var_os("POSIXLY_CORRECT").is_some();
    parse_gnu_in_order(args, options, posixly_correct)
}

/// [`parse_gnu`], the first operand ending the options when `posixly_correct`.
fn parse_gnu_in_order(
    args: &[OsString],
    options: &[GnuOption],
    posixly_correct: bool,
) -> Result<GnuParse, Error> {
    let mut cli = Cli::default();
    let mut only_operands = false;
    let mut rest = args.iter().skip(1);
    while let Some(arg) = rest.next() {
        let bytes = arg.as_bytes();
        if only_operands || bytes.len() < 2 || bytes[0] != b'-' {
            cli.files.push(arg.clone());
            only_operands |= posixly_correct;
            continue;
        }
        if bytes == b"--" {
            only_operands = true;
            continue;
        }
        // getopt hands over --help and --version as soon as it meets them, and coreutils
        // prints and exits there: the first wins, and nothing after it is looked at.
        match bytes.strip_prefix(b"--") {
            Some(long) => match parse_long(&mut cli, options, bytes, long, &mut rest)? {
                Asked::Help => return Ok(GnuParse::Help),
                Asked::Version => return Ok(GnuParse::Version),
                Asked::Nothing => {}
            },
            None => parse_short(&mut cli, options, bytes, &mut rest)?,
        }
    }
    Ok(GnuParse::Run(Box::new(cli)))
}

/// What a long option asked for beyond the options it set.
enum Asked {
    Nothing,
    Help,
    Version,
}

/// One long option (`--NAME` or `--NAME=VALUE`, `long` without the dashes; `arg` as typed),
/// abbreviated as getopt allows; its argument, when it takes one, is the next word of `rest`.
fn parse_long<'a>(
    cli: &mut Cli,
    options: &[GnuOption],
    arg: &[u8],
    long: &[u8],
    rest: &mut impl Iterator<Item = &'a OsString>,
) -> Result<Asked, Error> {
    let (name, value) = match long.iter().position(|&b| b == b'=') {
        Some(eq) => (&long[..eq], Some(&long[eq + 1..])),
        None => (long, None),
    };
    let name_text = String::from_utf8_lossy(name);
    let display = String::from_utf8_lossy(arg);
    let mut candidates: Vec<&str> = options
        .iter()
        .map(|o| o.long)
        .chain(["help", "version"])
        .filter(|long| long.as_bytes().starts_with(name))
        .collect();
    if let Some(exact) = candidates.iter().find(|c| c.as_bytes() == name) {
        candidates = vec![*exact];
    }
    let full = match candidates.as_slice() {
        [] => return Err(Error::usage(format!("unrecognized option '{display}'"))),
        [one] => *one,
        many => {
            let list: Vec<String> = many.iter().map(|c| format!("'--{c}'")).collect();
            return Err(Error::usage(format!(
                "option '--{name_text}' is ambiguous; possibilities: {}",
                list.join(" ")
            )));
        }
    };
    let no_argument = || {
        Err(Error::usage(format!(
            "option '--{full}' doesn't allow an argument"
        )))
    };
    match (full, options.iter().find(|o| o.long == full)) {
        ("help", None) | ("version", None) if value.is_some() => return no_argument(),
        ("help", None) => return Ok(Asked::Help),
        ("version", None) => return Ok(Asked::Version),
        (_, Some(option)) => match (&option.set, value) {
            (GnuAction::Flag(_), Some(_)) => return no_argument(),
            (GnuAction::Flag(set), None) => set(cli),
            (GnuAction::Value(set), Some(value)) => set(cli, value)?,
            (GnuAction::Value(set), None) => match rest.next() {
                Some(next) => set(cli, next.as_bytes())?,
                None => {
                    return Err(Error::usage(format!(
                        "option '--{full}' requires an argument"
                    )))
                }
            },
        },
        (_, None) => {}
    }
    Ok(Asked::Nothing)
}

/// A cluster of short options (`-bz`, `-l256`); an option that takes an argument takes the
/// rest of the cluster, else the next word of `rest`.
fn parse_short<'a>(
    cli: &mut Cli,
    options: &[GnuOption],
    arg: &[u8],
    rest: &mut impl Iterator<Item = &'a OsString>,
) -> Result<(), Error> {
    for (at, &letter) in arg.iter().enumerate().skip(1) {
        let letter_text = || String::from_utf8_lossy(&[letter]).into_owned();
        let Some(option) = options.iter().find(|o| o.short == Some(letter)) else {
            return Err(Error::usage(format!(
                "invalid option -- '{}'",
                letter_text()
            )));
        };
        match &option.set {
            GnuAction::Flag(set) => set(cli),
            GnuAction::Value(set) => {
                if at + 1 < arg.len() {
                    set(cli, &arg[at + 1..])?;
                } else {
                    match rest.next() {
                        Some(next) => set(cli, next.as_bytes())?,
                        None => {
                            return Err(Error::usage(format!(
                                "option requires an argument -- '{}'",
                                letter_text()
                            )))
                        }
                    }
                }
                return Ok(());
            }
        }
    }
    Ok(())
}

/// b3sum's command line: its options, with the conflicts and requirements b3sum declares.
#[derive(Parser, Debug)]
#[command(name = "b3sum", version, about = "Print or check BLAKE3 checksums.")]
pub struct B3sumCli {
    /// Files to hash, or checkfiles to check; none or - reads standard input
    // b3sum takes its files as paths, and clap's path parser refuses an empty one (`a value is
    // required for '[FILE]...'`, exit 2), so this parser does too, and keeps the bytes.
    #[arg(
        value_name = "FILE",
        value_parser = clap::builder::PathBufValueParser::new().map(PathBuf::into_os_string)
    )]
    pub files: Vec<OsString>,
    /// Keyed mode: the 32-byte key is read from standard input
    #[arg(long, requires = "files")]
    pub keyed: bool,
    /// Key derivation mode, with this context string (not with --keyed)
    #[arg(long, value_name = "CONTEXT", conflicts_with = "keyed")]
    pub derive_key: Option<String>,
    /// Output bytes, before hex encoding
    #[arg(short = 'l', long, default_value_t = 32, value_name = "LEN")]
    pub length: u64,
    /// Output byte offset to start at, before hex encoding
    #[arg(long, default_value_t = 0, value_name = "SEEK")]
    pub seek: u64,
    /// The maximum number of threads to use
    #[arg(long, value_name = "NUM")]
    pub num_threads: Option<u16>,
    /// Disable memory mapping
    #[arg(long)]
    pub no_mmap: bool,
    /// Omit filenames in the output
    #[arg(long)]
    pub no_names: bool,
    /// Write the output bytes raw, not hex (implies --no-names; one input only)
    #[arg(long)]
    pub raw: bool,
    /// Output checksums in tagged format: BLAKE3 (FILE) = HASH
    #[arg(long)]
    pub tag: bool,
    /// Read BLAKE3 sums from the FILEs and check them
    #[arg(
        short = 'c',
        long,
        conflicts_with_all = ["derive_key", "keyed", "length", "raw", "tag", "no_names"]
    )]
    pub check: bool,
    /// Skip printing OK for each checked file (with --check)
    #[arg(long, requires = "check", action = ArgAction::SetTrue)]
    pub quiet: bool,
}

impl B3sumCli {
    pub fn into_cli(self) -> Cli {
        Cli {
            files: self.files,
            algorithm: vec![Algorithm::Blake3],
            tag: self.tag,
            no_names: self.no_names,
            check: self.check,
            // Past clap's `requires = "check"` (which clap does not enforce once an option
            // that conflicts with --check is given: `b3sum --tag --quiet f`, as b3sum's own
            // clap takes it), --quiet means nothing without --check, and b3sum ignores it.
            quiet: self.quiet && self.check,
            threads: self.num_threads,
            no_mmap: self.no_mmap,
            blake3_seek: self.seek,
            ..Cli::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    fn run(list: &[&str]) -> Cli {
        match parse_coreutils(&args(list)) {
            Ok(GnuParse::Run(cli)) => *cli,
            Ok(_) => panic!("expected a run"),
            Err(e) => panic!("unexpected error {e}"),
        }
    }

    fn error(list: &[&str]) -> String {
        match parse_coreutils(&args(list)) {
            Err(Error::Usage { message, .. }) => message,
            Err(other) => panic!("unexpected error {other:?}"),
            Ok(_) => panic!("expected an error"),
        }
    }

    /// Under `POSIXLY_CORRECT`, getopt stops at the first operand: what follows is files.
    #[test]
    fn posixly_correct_ends_the_options_at_the_first_operand() {
        let posix = parse_gnu_in_order(
            &args(&["md5sum", "-b", "a", "--tag", "-z"]),
            COREUTILS_OPTIONS,
            true,
        );
        let Ok(GnuParse::Run(cli)) = posix else {
            panic!("expected a run");
        };
        assert!(cli.binary && !cli.tag && !cli.zero);
        assert_eq!(cli.files, args(&["a", "--tag", "-z"]));
        let usual = run(&["md5sum", "-b", "a", "--tag", "-z"]);
        assert!(usual.tag && usual.zero);
        assert_eq!(usual.files, args(&["a"]));
    }

    /// getopt's order: `--help` or `--version` ends the parse where it stands, so a bad option
    /// after it is never seen, one before it still fails, and of the two the first wins.
    #[test]
    fn help_and_version_end_the_parse_where_they_are_met() {
        let parsed = |list: &[&str]| parse_coreutils(&args(list));
        for list in [
            &["sha1sum", "--help", "--bogus", "a"][..],
            &["sha1sum", "a", "--help", "-x"],
            &["sha1sum", "--he", "--version"],
        ] {
            assert!(matches!(parsed(list), Ok(GnuParse::Help)), "{list:?}");
        }
        for list in [
            &["sha1sum", "--version", "-x"][..],
            &["sha1sum", "--version", "--help"],
        ] {
            assert!(matches!(parsed(list), Ok(GnuParse::Version)), "{list:?}");
        }
        for (list, message) in [
            (
                ["sha1sum", "--bogus", "--help"],
                "unrecognized option '--bogus'",
            ),
            (["sha1sum", "-x", "--version"], "invalid option -- 'x'"),
        ] {
            assert_eq!(error(&list), message);
        }
    }

    #[test]
    fn options_and_operands_mix_and_double_dash_ends_options() {
        let cli = run(&["sha256sum", "a", "-bz", "--", "-c", "-"]);
        assert!(cli.binary && cli.zero && !cli.check);
        assert_eq!(cli.files, args(&["a", "-c", "-"]));
    }

    #[test]
    fn last_of_status_quiet_and_warn_wins() {
        let cli = run(&["md5sum", "-c", "--status", "-w"]);
        assert!(cli.warn && !cli.status && !cli.quiet);
        let cli = run(&["md5sum", "-c", "-w", "--quiet", "--status"]);
        assert!(cli.status && !cli.warn && !cli.quiet);
    }

    #[test]
    fn last_of_binary_and_text_wins() {
        let cli = run(&["md5sum", "-b", "-t"]);
        assert!(!cli.binary && cli.text_typed);
        let cli = run(&["md5sum", "-t", "-b"]);
        assert!(cli.binary && !cli.text_typed);
    }

    #[test]
    fn abbreviations_and_glibc_messages() {
        assert!(run(&["sha1sum", "--stat"]).status);
        assert_eq!(
            error(&["sha1sum", "--st"]),
            "option '--st' is ambiguous; possibilities: '--status' '--strict'"
        );
        assert_eq!(error(&["sha1sum", "--foo"]), "unrecognized option '--foo'");
        assert_eq!(error(&["sha1sum", "-x"]), "invalid option -- 'x'");
        assert_eq!(
            error(&["sha1sum", "--bin=3"]),
            "option '--binary' doesn't allow an argument"
        );
    }
}
