//! Turns what was typed into one validated `Config`: every choice resolved once, every
//! conflicting combination rejected with coreutils' own wording.

use crate::bench::BenchOptions;
use crate::cli::{B3sumCli, Cli, GnuParse, Invocation};
use crate::dropin::{GnuProgram, Grammar, Program};
use crate::error::Error;
use crate::format::manifest::{ParseOptions, Retag};
use crate::format::{DigestEncoding, LineStyle};
use crate::io::parallel::{default_readers, default_threads, Stages};
use crate::io::progress::ProgressChoice;
use crate::io::read::{MmapChoice, ReadOptions};
use crate::io::shard::Shard;
use crate::io::walk::{Filter, WalkOptions};
use crate::io::Input;
use crate::kernels::Algorithm;
use crate::s3::options::S3Options;
use clap::error::ErrorKind;
use clap::Parser;
use std::ffi::OsString;
use std::path::PathBuf;

/// A validated command line: who is speaking, and what to do.
#[derive(Debug)]
pub struct Config {
    pub invocation: Invocation,
    pub mode: Mode,
}

/// What the command line asks for, each mode with exactly the data it needs.
#[derive(Debug)]
pub enum Mode {
    /// Digest lines, one a file.
    Hash(Hash),
    /// Amazon S3's values instead of digest lines (the S3 options).
    S3Values(S3Values),
    /// `--check`: verify manifests.
    Check(Check),
    /// `--check --tree DIR`: audit a tree against manifests.
    Audit(Audit),
    /// `--verify-s3 JSON FILE`.
    VerifyS3(VerifyS3),
    /// `--merge FILE...`: shard manifests into one.
    Merge(Merge),
    /// `fasthash --bench`.
    Bench(BenchOptions),
    /// Text to print and leave: `--help`/`--version` of a coreutils name, `--list-kernels`,
    /// `--generate`.
    Print(String),
    /// b3sum's keyed, derived-key or extended output (`crate::dropin::b3sum`).
    B3sumExtended(Box<B3sumCli>),
}

/// What every mode that reads files shares: how they are read, and on how many threads.
#[derive(Clone, Debug)]
pub struct RunSettings {
    pub threads: usize,
    /// `--readers`: files opened and read ahead of the hashing threads at once.
    pub readers: usize,
    pub read: ReadOptions,
    /// `--debug`: name the kernels on standard error before hashing.
    pub debug: bool,
    /// `--cache FILE`: digests remembered across runs.
    pub cache: Option<PathBuf>,
    /// `--stats`: a closing line of counts, bytes, time and rate.
    pub stats: bool,
}

impl RunSettings {
    /// The pipeline's threads: one reader and one hashing thread (all of it on the caller's
    /// thread, item after item) when the inputs must be read in order.
    pub fn stages(&self, in_order: bool) -> Stages {
        match in_order {
            true => Stages {
                threads: 1,
                readers: 1,
            },
            false => Stages {
                threads: self.threads,
                readers: self.readers,
            },
        }
    }
}

/// The files to hash: operands expanded by the walk, or the names of a list.
#[derive(Clone, Debug)]
pub struct Files {
    pub inputs: Vec<Input>,
    /// `--files-from` / `--files0-from`: the inputs are the names in this list.
    pub names_from: Option<NameList>,
    pub walk: WalkOptions,
    pub progress: ProgressChoice,
}

#[derive(Debug)]
pub struct Hash {
    /// One or more (`-a md5,sha256`), each once, in the order given: every file is read once
    /// and gets one line per algorithm, in this order.
    pub algorithms: Vec<Algorithm>,
    pub style: LineStyle,
    /// `--json` (without the S3 options): one object a file with every algorithm's digest,
    /// encoded as `style` says, instead of lines.
    pub json: bool,
    /// `--shard K/N`: hash only this part of the inputs.
    pub shard: Option<Shard>,
    pub files: Files,
    pub run: RunSettings,
}

#[derive(Debug)]
pub struct S3Values {
    /// The algorithms and how each is uploaded ([`S3Options::uploads`]).
    pub options: S3Options,
    pub with_names: bool,
    pub zero_terminated: bool,
    pub files: Files,
    pub run: RunSettings,
}

/// Whose rules a manifest is read and reported by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckDialect {
    /// coreutils' lines and messages, nothing more.
    Coreutils,
    /// coreutils' plus fasthash's extensions (other tags, NUL-terminated manifests).
    Fasthash,
    /// b3sum's own rules and words.
    B3sum,
    /// xxhsum's, which `dropin::xxhsum` reads and reports whole (never a [`Check`]).
    Xxhsum,
}

#[derive(Debug)]
pub struct Check {
    pub manifests: Vec<Input>,
    /// Set by `-a` or by the drop-in name; `None` lets each line decide.
    pub algorithm: Option<Algorithm>,
    pub options: CheckOptions,
    pub dialect: CheckDialect,
    /// `-z`: manifest lines end with NUL.
    pub zero_terminated: bool,
    /// `b2sum -c` and `cksum -c` without `-l`: each line's length picks the family's member.
    pub any_length: bool,
    /// The algorithm `--check --warn` names in its malformed-line message, and how cksum
    /// changes it line by line.
    pub type_name: Option<&'static str>,
    pub retag: Retag,
    /// Digests may be written in base64: under fasthash's name and cksum's, not md5sum's,
    /// sha*sum's or b2sum's (coreutils builds only cksum to read them).
    pub base64_digests: bool,
    /// `--exclude`/`--include`: the listed files to check.
    pub filter: Filter,
    /// `--json`: the statuses and the summary as JSON objects, one a line.
    pub json: bool,
    pub run: RunSettings,
}

#[derive(Debug)]
pub struct Audit {
    pub tree: PathBuf,
    /// `-L`: follow links met in the tree (its files are filtered by `check.filter`).
    pub follow_links: bool,
    pub check: Check,
}

#[derive(Debug)]
pub struct VerifyS3 {
    /// The JSON that S3 printed.
    pub json: PathBuf,
    pub file: PathBuf,
    /// `--json`: the verdict as one JSON object.
    pub json_output: bool,
    pub run: RunSettings,
}

#[derive(Debug)]
pub struct Merge {
    pub shards: Vec<Input>,
    pub run: RunSettings,
}

impl Check {
    /// How the run's manifest lines are read: by coreutils' rules under its names, with
    /// fasthash's extensions under fasthash's (`format::manifest`).
    pub(crate) fn parse_options(&self) -> ParseOptions {
        let fasthash = self.dialect == CheckDialect::Fasthash;
        ParseOptions {
            algorithm: self.algorithm,
            extensions: fasthash,
            manifest_is_stdin: false,
            any_length: self.any_length,
            base64: self.base64_digests,
            layout_per_manifest: fasthash,
        }
    }
}

impl Mode {
    /// The algorithms the command line fixed, if it fixed them (`--check` may learn them line
    /// by line).
    pub fn algorithms(&self) -> Option<Vec<Algorithm>> {
        match self {
            Mode::Hash(hash) => Some(hash.algorithms.clone()),
            Mode::S3Values(values) => Some(values.options.algorithms().collect()),
            Mode::Check(check) => check.algorithm.map(|algorithm| vec![algorithm]),
            Mode::Audit(audit) => audit.check.algorithm.map(|algorithm| vec![algorithm]),
            _ => None,
        }
    }

    /// The `--exclude`/`--include` filter of a mode that filters names.
    pub fn filter(&self) -> Option<&Filter> {
        match self {
            Mode::Hash(Hash { files, .. }) | Mode::S3Values(S3Values { files, .. }) => {
                Some(&files.walk.filter)
            }
            Mode::Check(check) | Mode::Audit(Audit { check, .. }) => Some(&check.filter),
            _ => None,
        }
    }
}

/// `--check` options, with coreutils' meanings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckOptions {
    pub ignore_missing: bool,
    pub quiet: bool,
    pub status: bool,
    pub strict: bool,
    pub warn: bool,
}

/// Where `--files-from`/`--files0-from` read the names to hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameList {
    pub source: Input,
    pub zero_terminated: bool,
}

/// A `FASTHASH_KERNEL` that names an unknown kernel or one this CPU cannot run is a usage
/// error: a forced run must run the kernel it asked for.
fn check_forced_kernels() -> Result<(), Error> {
    crate::kernels::table::forcing().map(|_| ())
}

/// `--bench` measures kernels on buffers in memory: no file to read, no option of another
/// mode; `-a` picks what to measure (each algorithm it gives, however many it takes).
fn bench(cli: Cli) -> Result<Mode, Error> {
    const BENCH_OPTIONS: [&str; 3] = ["--bench", "--seconds", "--algorithm"];
    if let Some(other) = cli
        .typed_options
        .iter()
        .find(|typed| !BENCH_OPTIONS.contains(&typed.as_str()))
    {
        return Err(Error::usage(format!(
            "--bench cannot be combined with {other}: it measures kernels on buffers in memory"
        )));
    }
    if let Some(file) = cli.files.first() {
        return Err(Error::usage(format!(
            "--bench reads no file, but was given {}",
            String::from_utf8_lossy(&crate::format::quote::quote_name(
                std::os::unix::ffi::OsStrExt::as_bytes(file.as_os_str())
            ))
        )));
    }
    check_forced_kernels()?;
    Ok(Mode::Bench(BenchOptions {
        seconds: cli.seconds.unwrap_or(crate::bench::DEFAULT_SECONDS),
        algorithms: cli.algorithm,
    }))
}

impl Config {
    /// Parses and validates a whole command line, `args[0]` included, for the program
    /// `invocation` names.
    pub fn from_args(invocation: Invocation, args: Vec<OsString>) -> Result<Config, Error> {
        let mode = Mode::from_args(&invocation, args)?;
        Ok(Config { invocation, mode })
    }
}

impl Mode {
    fn from_args(invocation: &Invocation, args: Vec<OsString>) -> Result<Mode, Error> {
        let personality = invocation.personality;
        let program = &invocation.program;
        let cli = match personality.grammar {
            Grammar::Fasthash => match Cli::parse_fasthash(args) {
                Ok(cli) if cli.bench => return bench(cli),
                Ok(cli) if cli.seconds.is_some() => {
                    return Err(Error::usage(
                        "--seconds is how long --bench measures; it needs --bench",
                    ))
                }
                Ok(cli) => cli,
                // Help and version come back from clap as errors; they are text to print.
                Err(e)
                    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) =>
                {
                    return Ok(Mode::Print(e.to_string()))
                }
                Err(e) => return Err(Error::usage(crate::format::messages::clap_usage(&e))),
            },
            Grammar::B3sum => {
                let b3sum = B3sumCli::parse_from(args);
                if b3sum.wants_extended_output() {
                    return Ok(Mode::B3sumExtended(Box::new(b3sum)));
                }
                b3sum.into_cli()
            }
            Grammar::Gnu(gnu) => match crate::cli::parse_gnu(&args, &(gnu.options)()) {
                Ok(GnuParse::Run(cli)) => *cli,
                Ok(GnuParse::Help) => {
                    return Ok(Mode::Print((gnu.help)(program, personality.algorithm)))
                }
                Ok(GnuParse::Version) => {
                    return Ok(Mode::Print(crate::dropin::coreutils::version(
                        personality.name,
                    )))
                }
                Err(error) => return Err(error),
            },
            // `main` hands xxhsum's names to `dropin::xxhsum::run` before any `Config`.
            Grammar::Xxhsum { .. } => {
                return Err(Error::usage(
                    "xxhsum's command line is read by its own program",
                ))
            }
        };
        if cli.list_kernels {
            if let Some(file) = cli.files.first() {
                return Err(Error::usage(format!(
                    "--list-kernels lists this CPU's kernels and reads no file, not '{}'",
                    file.to_string_lossy()
                )));
            }
            check_forced_kernels()?;
            let caps = crate::kernels::detect::Capabilities::get();
            return Ok(Mode::Print(crate::format::kernels::list(&caps)));
        }
        if let Some(what) = &cli.generate {
            let text = crate::generate::generate(what)
                .ok_or_else(|| Error::usage(format!("nothing to generate called '{what}'")))?;
            return Ok(Mode::Print(String::from_utf8_lossy(&text).into_owned()));
        }
        check_forced_kernels()?;
        Mode::from_cli(cli, invocation)
    }

    fn from_cli(cli: Cli, invocation: &Invocation) -> Result<Mode, Error> {
        let personality = invocation.personality;
        validate_gnu_combinations(&cli, personality)?;
        let hashing = cli.verify_s3.is_none() && !cli.merge && !cli.check;
        let dropin = match personality.grammar {
            Grammar::Gnu(GnuProgram {
                resolve: Some(resolve),
                ..
            }) => Some(resolve(&invocation.program, &cli)?),
            _ => None,
        };
        let algorithms: Vec<Algorithm> = match &dropin {
            Some(resolved) => resolved.algorithm.into_iter().collect(),
            // fasthash's -a; --check may learn the algorithm line by line.
            None if personality.is_fasthash() && !(cli.algorithm.is_empty() && hashing) => {
                algorithm_list(&cli)?
            }
            // The program's own: fasthash hashes SHA-256 without -a.
            None => vec![personality.algorithm],
        };
        let algorithm = algorithms.first().copied();
        // cksum's and sum's legacy checksums have one line format and nothing to check.
        if let (true, Some(legacy)) = (
            personality.is_fasthash(),
            algorithms.iter().find(|a| a.info().with_size),
        ) {
            let refused = [
                (cli.check, "--check"),
                (cli.tag, "--tag"),
                (cli.base64, "--base64"),
                (cli.binary, "--binary"),
                (cli.json && cli.tree.is_none(), "--json"),
            ];
            if algorithms.len() > 1 {
                return Err(Error::usage(format!(
                    "-a {legacy} prints the line of cksum or sum (the checksum and the size in \
                     decimal); it is not one of a list of algorithms"
                )));
            }
            if let Some((_, option)) = refused.iter().find(|(given, _)| *given) {
                return Err(Error::usage(format!(
                    "{option} does not apply to -a {legacy}: its line is the checksum and the size \
                     in decimal, as cksum and sum print it, and coreutils checks no such line"
                )));
            }
        }
        let names_from = names_from(&cli)?;
        let mut filter = Filter::new(&cli.exclude, &cli.include)
            .map_err(|e| Error::usage(format!("invalid glob: {e}")))?;
        if cli.debug {
            filter.track_matches();
        }
        let walk = WalkOptions {
            recursive: cli.recursive,
            follow_links: cli.follow,
            filter,
        };
        let progress = match (cli.progress, cli.no_progress) {
            // The programs of the drop-in names draw nothing on standard error.
            _ if !personality.is_fasthash() => ProgressChoice::Never,
            (true, _) => ProgressChoice::Always,
            (_, true) => ProgressChoice::Never,
            _ => ProgressChoice::Auto,
        };
        let s3 = crate::s3::options::resolve(&cli, hashing, &algorithms)?;
        if personality.is_fasthash() {
            refuse_options_that_would_do_nothing(&cli, s3.is_some())?;
        }
        if cli.verify_s3.is_some() && cli.files.len() != 1 {
            return Err(Error::usage(
                "--verify-s3 compares one file: fasthash --verify-s3 HEAD.json FILE",
            ));
        }
        if cli.files.is_empty() && cli.merge && cli.verify_s3.is_none() {
            return Err(Error::usage(
                "--merge needs the shard manifests to merge: fasthash --merge FILE...",
            ));
        }
        if cli.shard.is_some() {
            if !hashing || s3.is_some() || cli.json {
                return Err(Error::usage(
                    "--shard cuts the hashing of files into parts; it does not combine with \
                     --check, --merge, --verify-s3, --json or the S3 options",
                ));
            }
            if cli.files.is_empty() || cli.files.iter().any(|f| f == "-") || names_from.is_some() {
                return Err(Error::usage(
                    "--shard needs the same files on every machine: name files or directories, \
                     not standard input or a list of names",
                ));
            }
        }
        let threads = cli.threads.map(usize::from).unwrap_or_else(default_threads);
        let run = RunSettings {
            threads,
            readers: cli
                .readers
                .map(usize::from)
                .unwrap_or_else(|| default_readers(threads)),
            read: ReadOptions {
                mmap: match (cli.mmap, cli.no_mmap) {
                    (true, _) => MmapChoice::Always,
                    (_, true) => MmapChoice::Never,
                    _ => MmapChoice::Auto,
                },
                split_files: threads > 1,
            },
            debug: cli.debug,
            cache: cli.cache.clone().map(PathBuf::from),
            stats: cli.stats,
        };
        let mut inputs: Vec<Input> = cli.files.iter().cloned().map(Input::from_arg).collect();
        if inputs.is_empty() {
            inputs.push(Input::Stdin);
        }

        if let Some(json) = &cli.verify_s3 {
            let file = match &inputs[0] {
                Input::Path(path) => path.clone(),
                // `-` names standard input, which cannot be compared part by part.
                Input::Stdin => {
                    return Err(Error::Usage {
                        message: "--verify-s3 needs the JSON and a file".into(),
                        try_help: false,
                    })
                }
            };
            return Ok(Mode::VerifyS3(VerifyS3 {
                json: PathBuf::from(json),
                file,
                json_output: cli.json,
                run,
            }));
        }
        if cli.merge {
            if cli.json {
                return Err(Error::usage(
                    "--merge writes the shards' own lines; --json does not apply to it",
                ));
            }
            return Ok(Mode::Merge(Merge {
                shards: inputs,
                run,
            }));
        }
        if cli.check {
            let (type_name, retag) = match &dropin {
                Some(d) => (Some(d.type_name), d.retag),
                None => (algorithm.map(|a| a.info().bsd_tag), Retag::Never),
            };
            let check = Check {
                manifests: inputs,
                algorithm,
                options: CheckOptions {
                    ignore_missing: cli.ignore_missing,
                    quiet: cli.quiet,
                    status: cli.status,
                    strict: cli.strict,
                    warn: cli.warn,
                },
                dialect: personality.check,
                zero_terminated: cli.zero,
                any_length: dropin.as_ref().is_some_and(|d| d.any_length),
                type_name,
                retag,
                base64_digests: personality.reads_base64(),
                filter: walk.filter.clone(),
                json: cli.json,
                run,
            };
            return Ok(match &cli.tree {
                Some(tree) => Mode::Audit(Audit {
                    tree: PathBuf::from(tree),
                    follow_links: cli.follow,
                    check,
                }),
                None => Mode::Check(check),
            });
        }
        let files = Files {
            inputs,
            names_from,
            walk,
            progress,
        };
        if let Some(options) = s3 {
            return Ok(Mode::S3Values(S3Values {
                options,
                with_names: !cli.no_names,
                zero_terminated: cli.zero,
                files,
                run,
            }));
        }
        // Every name fixes the algorithm when hashing (fasthash's own defaults to SHA-256
        // above, cksum's to CRC in `dropin::cksum`); only --check may leave it open. A legacy
        // checksum is never one of several (refused above).
        let algorithms = if algorithms.is_empty() {
            vec![Algorithm::Sha256]
        } else {
            algorithms
        };
        let legacy_only = algorithms[0].info().with_size;
        let style = LineStyle {
            tagged: dropin.as_ref().map_or(cli.tag, |d| d.tagged),
            binary: cli.binary,
            zero_terminated: cli.zero,
            encoding: if cli.raw {
                DigestEncoding::Raw
            } else if cli.base64 {
                DigestEncoding::Base64
            } else {
                DigestEncoding::Hex
            },
            // cksum and sum name the file beside a legacy checksum only when files were named.
            with_names: !(cli.no_names || (legacy_only && cli.files.is_empty())),
            dialect: personality.lines,
        };
        Ok(Mode::Hash(Hash {
            algorithms,
            style,
            json: cli.json,
            shard: cli.shard,
            files,
            run,
        }))
    }
}

/// fasthash's `-a` as typed (`-a md5,sha256`, `-a md5 -a sha256`): each algorithm once, and
/// with `--check` one at most, which fixes the algorithm of every line.
fn algorithm_list(cli: &Cli) -> Result<Vec<Algorithm>, Error> {
    let list = &cli.algorithm;
    if let Some((_, twice)) = list
        .iter()
        .enumerate()
        .find(|(at, algorithm)| list[..*at].contains(algorithm))
    {
        return Err(Error::usage(format!(
            "-a names {twice} twice; give each algorithm once"
        )));
    }
    if cli.check && list.len() > 1 {
        return Err(Error::usage(
            "--check takes one -a (it reads every line with that algorithm); a manifest of \
             several algorithms names each line's own: check it without -a",
        ));
    }
    Ok(list.clone())
}

/// `--files-from` / `--files0-from`, which take the place of file operands.
fn names_from(cli: &Cli) -> Result<Option<NameList>, Error> {
    let (list, zero_terminated) = match (&cli.files_from, &cli.files0_from) {
        (Some(list), _) => (list, false),
        (None, Some(list)) => (list, true),
        (None, None) => return Ok(None),
    };
    if let Some(operand) = cli.files.first() {
        return Err(Error::usage(format!(
            "extra operand {}\nfile operands cannot be combined with --files-from or --files0-from",
            String::from_utf8_lossy(&crate::format::quote::quote_name(
                std::os::unix::ffi::OsStrExt::as_bytes(operand.as_os_str())
            ))
        )));
    }
    Ok(Some(NameList {
        source: Input::from_arg(list.clone()),
        zero_terminated,
    }))
}

/// fasthash's own options that would change nothing in the mode the command line asks for:
/// refused, naming both options and what the option is for, so that no option is ignored
/// without a word. (The drop-in names' parsers accept only their programs' options.)
fn refuse_options_that_would_do_nothing(cli: &Cli, s3_values: bool) -> Result<(), Error> {
    // The option that chose the mode, as a refusal names it.
    let mode = first_given(&[
        (cli.merge, "--merge"),
        (cli.verify_s3.is_some(), "--verify-s3"),
        (cli.check, "--check"),
    ]);
    let s3_option = first_given(&[
        (cli.s3, "--s3"),
        (cli.s3_header, "--s3-header"),
        (cli.etag, "--etag"),
        (cli.part_size.is_some(), "--part-size"),
        (cli.checksum_type.is_some(), "--checksum-type"),
        (cli.s3_preset.is_some(), "--s3-preset"),
        (cli.json, "--json"),
    ])
    .filter(|_| s3_values);
    let filter_option = first_given(&[
        (!cli.exclude.is_empty(), "--exclude"),
        (!cli.include.is_empty(), "--include"),
    ]);
    // What shapes a digest line. --json keeps --base64 (its digests' encoding) and refuses the
    // rest; the S3 options, which print no digest lines, refuse --base64 too.
    let shape_option = first_given(&[
        (cli.tag, "--tag"),
        (cli.untagged, "--untagged"),
        (cli.binary, "--binary"),
        (cli.text_typed, "--text"),
    ]);
    let line_option = shape_option.or(cli.base64.then_some("--base64"));
    let names_option = first_given(&[
        (cli.files_from.is_some(), "--files-from"),
        (cli.files0_from.is_some(), "--files0-from"),
    ]);
    let reading_option = first_given(&[
        (cli.threads.is_some(), "--threads"),
        (cli.readers.is_some(), "--readers"),
        (cli.mmap, "--mmap"),
        (cli.no_mmap, "--no-mmap"),
    ]);
    let audit = cli.check && cli.tree.is_some();

    // `OPTION does nothing with MODE: WHY`, or `... without NEEDED: ...`.
    let refusal = |option: &str, with_or_without: &str, other: &str, why: &str| {
        Err(Error::usage(format!(
            "{option} does nothing {with_or_without} {other}: {why}"
        )))
    };
    if let (true, Some(mode)) = (cli.recursive, mode) {
        let why = if mode == "--check" {
            "a manifest names the files it checks (--tree DIR also walks DIR for files it does not list)"
        } else {
            "-r walks directories to hash the files in them"
        };
        return refusal("-r", "with", mode, why);
    }
    if cli.follow && !cli.recursive && !audit {
        return refusal(
            "-L",
            "without",
            "-r",
            "it follows symbolic links met while walking directories (-r, or --check --tree DIR); \
             links named on the command line are always followed",
        );
    }
    if let Some(option) = filter_option {
        if let Some(mode @ ("--merge" | "--verify-s3")) = mode {
            return refusal(
                option,
                "with",
                mode,
                "it filters the files -r walks or --check reads",
            );
        }
        if !cli.recursive && !cli.check {
            return refusal(
                option,
                "without",
                "-r",
                "it filters the files -r walks or a manifest lists (--check); files named on \
                 the command line are always hashed",
            );
        }
    }
    if let (Some(option), Some(mode)) = (names_option, mode) {
        return refusal(
            option,
            "with",
            mode,
            "it names files to hash; a manifest or shard names its own files",
        );
    }
    if let (Some(option), Some(s3)) = (line_option, s3_option) {
        return refusal(
            option,
            "with",
            s3,
            "it shapes digest lines, and the S3 options print S3's values instead",
        );
    }
    // --json of digests (no S3 option, no other mode): one object a file, its digests in hex
    // or base64; nothing else of a line's shape has a place in it.
    if let (true, false, None, Some(option)) = (cli.json, s3_values, mode, shape_option) {
        return refusal(
            option,
            "with",
            "--json",
            "it shapes digest lines, and --json writes one object a file (name, size, digests)",
        );
    }
    if cli.no_part_limits && cli.part_size.is_none() && cli.s3_preset.is_none() {
        return refusal(
            "--no-part-limits",
            "without",
            "--part-size",
            "it lifts S3's limits on the parts of --part-size SIZE (or of an --s3-preset)",
        );
    }
    if cli.cache.is_some() {
        if let Some(with) = s3_option.or(mode.filter(|m| *m != "--check")) {
            return refusal(
                "--cache",
                "with",
                with,
                "it remembers the digests of files hashed or checked; S3 values, merged \
                 shards and --verify-s3 do not use it",
            );
        }
    }
    // With --check, -z says how the manifest's lines end, which JSON output does not change.
    if cli.zero && cli.json && !cli.check {
        return refusal(
            "-z",
            "with",
            "--json",
            "JSON objects end with a newline, and their names are JSON strings",
        );
    }
    if cli.no_names && (cli.json || (cli.s3_header && s3_values)) {
        let with = if cli.json { "--json" } else { "--s3-header" };
        return refusal(
            "--no-names",
            "with",
            with,
            "JSON objects always carry the name, and header lines never do",
        );
    }
    if let (Some(option), Some("--merge")) = (reading_option, mode) {
        return refusal(
            option,
            "with",
            "--merge",
            "merging reads the shard manifests, not the files they list",
        );
    }
    if let (true, Some(mode @ ("--merge" | "--verify-s3"))) = (!cli.algorithm.is_empty(), mode) {
        return refusal(
            "-a",
            "with",
            mode,
            "the shards and S3's JSON say their own algorithm",
        );
    }
    if let (true, Some(mode @ ("--merge" | "--verify-s3"))) = (cli.zero, mode) {
        return refusal(
            "-z",
            "with",
            mode,
            "-z shapes the lines of hashing and --check",
        );
    }
    if let (true, Some("--merge")) = (cli.stats, mode) {
        return refusal(
            "--stats",
            "with",
            "--merge",
            "it counts the files a run hashes, and a merge hashes none",
        );
    }
    // --no-progress is honoured everywhere; a bar asked for where there is none is not.
    if let (true, Some(mode)) = (cli.progress, mode) {
        return refusal(
            "--progress",
            "with",
            mode,
            "the bar follows the hashing of files (and of their S3 values) only",
        );
    }
    Ok(())
}

/// The first of `options` that was given.
fn first_given<'a>(options: &[(bool, &'a str)]) -> Option<&'a str> {
    options
        .iter()
        .find(|(given, _)| *given)
        .map(|&(_, name)| name)
}

/// The combinations coreutils' digest programs refuse, in the order they test them.
fn validate_gnu_combinations(cli: &Cli, personality: &Program) -> Result<(), Error> {
    let check = cli.check;
    let binary_or_text = cli.binary || cli.text_typed;
    let is_coreutils = personality.is_coreutils();
    let refusals: [(bool, &str); 10] = [
        (
            cli.tag && cli.text_typed,
            "--tag does not support --text mode",
        ),
        // fasthash itself reads NUL-terminated manifests; coreutils refuses them.
        (
            is_coreutils && cli.zero && check,
            "the --zero option is not supported when verifying checksums",
        ),
        (
            cli.tag && check,
            "the --tag option is meaningless when verifying checksums",
        ),
        (
            binary_or_text && check,
            "the --binary and --text options are meaningless when verifying checksums",
        ),
        (
            cli.ignore_missing && !check,
            "the --ignore-missing option is meaningful only when verifying checksums",
        ),
        (
            cli.status && !check,
            "the --status option is meaningful only when verifying checksums",
        ),
        (
            cli.warn && !check,
            "the --warn option is meaningful only when verifying checksums",
        ),
        (
            cli.quiet && !check,
            "the --quiet option is meaningful only when verifying checksums",
        ),
        (
            cli.strict && !check,
            "the --strict option is meaningful only when verifying checksums",
        ),
        (
            (cli.base64 || cli.no_names) && check,
            "the --base64 and --no-names options are meaningless when verifying checksums",
        ),
    ];
    match refusals.iter().find(|(refused, _)| *refused) {
        Some((_, message)) => Err(Error::usage(*message)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(list: &[&str]) -> Result<Config, Error> {
        let args: Vec<OsString> = list.iter().map(OsString::from).collect();
        Config::from_args(Invocation::from_argv0(args.first()), args)
    }

    /// The mode of a command line that must parse.
    fn mode(list: &[&str]) -> Mode {
        match config(list) {
            Ok(config) => config.mode,
            Err(error) => panic!("{list:?} did not parse: {error:?}"),
        }
    }

    fn usage_message(list: &[&str]) -> String {
        match config(list) {
            Err(Error::Usage { message, .. }) => message,
            _ => panic!("expected a usage error for {list:?}"),
        }
    }

    #[test]
    fn drop_in_name_sets_the_algorithm() {
        let Mode::Hash(hash) = mode(&["/bin/sha1sum", "f"]) else {
            panic!("expected hashing");
        };
        assert_eq!(hash.algorithms, [Algorithm::Sha1]);
        assert_eq!(hash.files.inputs, vec![Input::Path("f".into())]);
    }

    #[test]
    fn coreutils_refusals_in_coreutils_order() {
        assert_eq!(
            usage_message(&["sha256sum", "--tag", "-t"]),
            "--tag does not support --text mode"
        );
        assert_eq!(
            usage_message(&["sha256sum", "-c", "--tag", "--quiet"]),
            "the --tag option is meaningless when verifying checksums"
        );
        assert_eq!(
            usage_message(&["fasthash", "--quiet"]),
            "the --quiet option is meaningful only when verifying checksums"
        );
    }

    #[test]
    fn a_list_of_algorithms_keeps_its_order_and_json_is_hashings_own() {
        let Mode::Hash(hash) = mode(&["fasthash", "-a", "md5,SHA256", "-a", "blake3", "f"]) else {
            panic!("expected hashing");
        };
        assert_eq!(
            hash.algorithms,
            [Algorithm::Md5, Algorithm::Sha256, Algorithm::Blake3]
        );
        assert!(!hash.json);
        let Mode::Hash(hash) = mode(&["fasthash", "--json", "-a", "blake3", "f"]) else {
            panic!("--json alone is hashing's JSON");
        };
        assert!(hash.json);
        let Mode::S3Values(values) = mode(&["fasthash", "--s3", "-a", "sha256,crc64nvme", "f"])
        else {
            panic!("expected S3 values");
        };
        assert_eq!(
            values.options.algorithms().collect::<Vec<_>>(),
            [Algorithm::Sha256, Algorithm::Crc64Nvme]
        );
        assert_eq!(
            usage_message(&["fasthash", "-a", "xxh3,sha1,xxh3"]),
            "-a names xxh3 twice; give each algorithm once"
        );
    }

    #[test]
    fn bench_takes_its_algorithms_from_a_and_its_time_from_seconds() {
        let Mode::Bench(bench) = mode(&["fasthash", "-a", "md5", "--bench"]) else {
            panic!("expected the benchmark");
        };
        assert_eq!(bench.algorithms, vec![Algorithm::Md5]);
        assert_eq!(bench.seconds, crate::bench::DEFAULT_SECONDS);
        let Mode::Bench(bench) = mode(&["fasthash", "--bench", "--seconds", "0.5"]) else {
            panic!("expected the benchmark");
        };
        assert!(bench.algorithms.is_empty());
        assert_eq!(bench.seconds, 0.5);
        // Only as an option: the word is a file name.
        let Mode::Hash(hash) = mode(&["fasthash", "bench"]) else {
            panic!("expected hashing");
        };
        assert_eq!(hash.files.inputs, vec![Input::Path("bench".into())]);
    }

    #[test]
    fn no_file_means_standard_input() {
        let Mode::Hash(hash) = mode(&["fasthash"]) else {
            panic!("expected hashing");
        };
        assert_eq!(hash.files.inputs, vec![Input::Stdin]);
        assert_eq!(hash.algorithms, [Algorithm::Sha256]);
    }

    #[test]
    fn each_mode_carries_its_own_data() {
        let Mode::Check(check) = mode(&["b3sum", "-c", "SUMS"]) else {
            panic!("expected checking");
        };
        assert_eq!(check.dialect, CheckDialect::B3sum);
        assert_eq!(check.algorithm, Some(Algorithm::Blake3));
        let Mode::Audit(audit) = mode(&["fasthash", "-c", "SUMS", "--tree", "dir", "--json"])
        else {
            panic!("expected an audit");
        };
        assert!(audit.check.json);
        let Mode::Check(check) = mode(&["fasthash", "-c", "--json", "SUMS"]) else {
            panic!("expected checking");
        };
        assert!(check.json);
        let Mode::VerifyS3(verify) = mode(&["fasthash", "--verify-s3", "h.json", "f", "--json"])
        else {
            panic!("expected --verify-s3");
        };
        assert!(verify.json_output);
        assert!(usage_message(&["fasthash", "--merge", "--json", "s1"]).contains("--json"));
        assert_eq!(audit.check.algorithm, None);
        let Mode::S3Values(values) = mode(&["fasthash", "--s3", "f"]) else {
            panic!("expected S3 values");
        };
        assert_eq!(
            values.options.algorithms().collect::<Vec<_>>(),
            [Algorithm::Sha256]
        );
        assert!(matches!(
            mode(&["fasthash", "--verify-s3", "head.json", "f"]),
            Mode::VerifyS3(_)
        ));
    }
}
