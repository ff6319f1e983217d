//! Turns what was typed into one validated `Config`: every choice resolved once, every
//! conflicting combination rejected with coreutils' own wording.

use crate::audit::Audit;
use crate::bench::BenchOptions;
use crate::check::{Check, CheckOptions};
use crate::cli::{B3sumCli, Cli, GnuParse, Invocation};
use crate::dropin::cksum::Resolved;
use crate::dropin::{GnuProgram, Grammar, Program};
use crate::error::Error;
use crate::format::manifest::Retag;
use crate::format::status::Report;
use crate::format::{DigestEncoding, LineStyle, Output, SumStyle};
use crate::hash::{Files, Hash, NameList, S3Values};
use crate::io::parallel::{default_readers, default_threads, useful_threads};
use crate::io::progress::ProgressChoice;
use crate::io::read::{MmapChoice, ReadOptions};
use crate::io::settings::RunSettings;
use crate::io::walk::{Filter, WalkOptions};
use crate::io::Input;
use crate::kernels::Algorithm;
use crate::merge::Merge;
use crate::s3::bucket::VerifyBucket;
use crate::s3::location::S3Location;
use crate::s3::verify::{Source, VerifyS3};
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
    /// `--verify-s3 JSON FILE`, `--verify-s3 s3://BUCKET/KEY FILE`.
    VerifyS3(VerifyS3),
    /// `--verify-s3 s3://BUCKET/PREFIX/ DIR`.
    VerifyBucket(VerifyBucket),
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
            Mode::VerifyBucket(bucket) => Some(&bucket.filter),
            _ => None,
        }
    }
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
        // coreutils 9.11's order: the length and the algorithm, then the options meaningful
        // only with --check, then what a program words its own way.
        let given = crate::dropin::cksum::Typed::of(&cli);
        let dropin = match personality.grammar {
            Grammar::Gnu(GnuProgram {
                resolve: Some(resolve),
                ..
            }) => Some(resolve(&invocation.program, &given)?),
            _ => None,
        };
        validate_gnu_combinations(&cli, personality)?;
        if let Some(refuse_last) = personality.refuse_last() {
            refuse_last(&given)?;
        }
        let hashing = cli.verify_s3.is_none() && !cli.merge && !cli.check;
        let algorithms = algorithms(&cli, personality, dropin.as_ref(), hashing)?;
        let names_from = names_from(&cli)?;
        let walk = walk_options(&cli)?;
        let s3 = crate::s3::options::resolve(&s3_options(&cli), hashing, &algorithms)?;
        if personality.is_fasthash() {
            refuse_options_that_would_do_nothing(&cli, s3.is_some())?;
        }
        refuse_mode_combinations(&cli, hashing, s3.is_some(), names_from.is_some())?;
        let run = run_settings(&cli);
        let mut inputs: Vec<Input> = cli.files.iter().cloned().map(Input::from_arg).collect();
        if inputs.is_empty() {
            inputs.push(Input::Stdin);
        }
        if let Some(what) = &cli.verify_s3 {
            return verify_s3(&cli, personality, what, &inputs[0], walk.filter, run);
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
            let check = check(
                &cli,
                personality,
                dropin.as_ref(),
                &algorithms,
                inputs,
                walk,
                run,
            );
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
            progress: progress_choice(&cli, personality),
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
        // Every name fixes the algorithm when hashing (fasthash's own defaults to SHA-256,
        // cksum's to CRC in `dropin::cksum`); only --check may leave it open. A legacy
        // checksum is never one of several (refused in `algorithms`).
        let algorithms = if algorithms.is_empty() {
            vec![Algorithm::Sha256]
        } else {
            algorithms
        };
        let output = output(&cli, personality, dropin.as_ref(), algorithms[0]);
        Ok(Mode::Hash(Hash {
            algorithms,
            output,
            shard: cli.shard,
            files,
            run,
        }))
    }
}

/// The algorithms the command line fixes: the drop-in's, fasthash's `-a` (none with `--check`
/// and no `-a`: each line says), or the program's own.
fn algorithms(
    cli: &Cli,
    personality: &Program,
    dropin: Option<&Resolved>,
    hashing: bool,
) -> Result<Vec<Algorithm>, Error> {
    let algorithms = match dropin {
        Some(resolved) => resolved.algorithm.into_iter().collect(),
        None if personality.is_fasthash() && !(cli.algorithm.is_empty() && hashing) => {
            algorithm_list(cli)?
        }
        // The program's own: fasthash hashes SHA-256 without -a.
        None => vec![personality.algorithm],
    };
    if personality.is_fasthash() {
        refuse_options_of_digest_lines_with_a_legacy_checksum(cli, &algorithms)?;
    }
    Ok(algorithms)
}

/// cksum's and sum's legacy checksums have one line format and nothing to check.
fn refuse_options_of_digest_lines_with_a_legacy_checksum(
    cli: &Cli,
    algorithms: &[Algorithm],
) -> Result<(), Error> {
    let Some(legacy) = algorithms.iter().find(|a| a.info().with_size) else {
        return Ok(());
    };
    if algorithms.len() > 1 {
        return Err(Error::usage(format!(
            "-a {legacy} prints the line of cksum or sum (the checksum and the size in \
             decimal); it is not one of a list of algorithms"
        )));
    }
    let refused = first_given(&[
        (cli.check, "--check"),
        (cli.tag, "--tag"),
        (cli.base64, "--base64"),
        (cli.binary, "--binary"),
        (cli.json && cli.tree.is_none(), "--json"),
    ]);
    match refused {
        Some(option) => Err(Error::usage(format!(
            "{option} does not apply to -a {legacy}: its line is the checksum and the size \
             in decimal, as cksum and sum print it, and coreutils checks no such line"
        ))),
        None => Ok(()),
    }
}

/// The S3 options of `cli`, for `s3::options`.
fn s3_options(cli: &Cli) -> crate::s3::options::Typed<'_> {
    crate::s3::options::Typed {
        s3: cli.s3,
        header: cli.s3_header,
        etag: cli.etag,
        json: cli.json,
        part_size: cli.part_size,
        checksum_type: cli.checksum_type.as_deref(),
        preset: cli.s3_preset.as_deref(),
        no_part_limits: cli.no_part_limits,
        algorithm_given: !cli.algorithm.is_empty(),
    }
}

/// `-r`, `-L` and the `--exclude`/`--include` filter (which `--debug` asks to count matches).
fn walk_options(cli: &Cli) -> Result<WalkOptions, Error> {
    let mut filter = Filter::new(&cli.exclude, &cli.include)
        .map_err(|e| Error::usage(format!("invalid glob: {e}")))?;
    if cli.debug {
        filter.track_matches();
    }
    Ok(WalkOptions {
        recursive: cli.recursive,
        follow_links: cli.follow,
        filter,
    })
}

fn progress_choice(cli: &Cli, personality: &Program) -> ProgressChoice {
    match (cli.progress, cli.no_progress) {
        // The programs of the drop-in names draw nothing on standard error.
        _ if !personality.is_fasthash() => ProgressChoice::Never,
        (true, _) => ProgressChoice::Always,
        (_, true) => ProgressChoice::Never,
        _ => ProgressChoice::Auto,
    }
}

/// What `--verify-s3`, `--merge` and `--shard` need of the rest of the command line.
fn refuse_mode_combinations(
    cli: &Cli,
    hashing: bool,
    s3_values: bool,
    names_from_a_list: bool,
) -> Result<(), Error> {
    if cli.verify_s3.is_some() && cli.files.len() != 1 {
        return Err(Error::usage(
            "--verify-s3 compares one file or directory: fasthash --verify-s3 s3://BUCKET/KEY \
             FILE, s3://BUCKET/PREFIX/ DIR, or HEAD.json FILE",
        ));
    }
    if cli.files.is_empty() && cli.merge && cli.verify_s3.is_none() {
        return Err(Error::usage(
            "--merge needs the shard manifests to merge: fasthash --merge FILE...",
        ));
    }
    if cli.shard.is_none() {
        return Ok(());
    }
    if !hashing || s3_values || cli.json {
        return Err(Error::usage(
            "--shard cuts the hashing of files into parts; it does not combine with \
             --check, --merge, --verify-s3, --json or the S3 options",
        ));
    }
    if cli.files.is_empty() || cli.files.iter().any(|f| f == "-") || names_from_a_list {
        return Err(Error::usage(
            "--shard needs the same files on every machine: name files or directories, \
             not standard input or a list of names",
        ));
    }
    Ok(())
}

/// Threads, readers, mapping, `--debug`, `--cache` and `--stats`.
fn run_settings(cli: &Cli) -> RunSettings {
    let threads = useful_threads(cli.threads.map(usize::from).unwrap_or_else(default_threads));
    RunSettings {
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
    }
}

/// `--verify-s3 WHERE FILE`: a JSON file, an object, or a prefix (then FILE is a directory).
fn verify_s3(
    cli: &Cli,
    personality: &Program,
    what: &OsString,
    file: &Input,
    filter: Filter,
    run: RunSettings,
) -> Result<Mode, Error> {
    let file = match file {
        Input::Path(path) => path.clone(),
        // `-` names standard input, which cannot be compared part by part.
        Input::Stdin => {
            return Err(Error::Usage {
                message: "--verify-s3 needs a file (or a directory) to compare".into(),
                try_help: false,
            })
        }
    };
    let source = match verify_s3_location(cli).transpose().map_err(Error::usage)? {
        None => Source::Json(PathBuf::from(what)),
        Some(location) => {
            if !cfg!(feature = "s3") {
                return Err(location.error(crate::error::S3Failure::NotBuiltIn));
            }
            let endpoint = cli.endpoint_url.clone();
            if location.is_prefix() {
                return Ok(Mode::VerifyBucket(VerifyBucket {
                    location,
                    endpoint,
                    tree: file,
                    filter,
                    follow_links: cli.follow,
                    ignore_missing: cli.ignore_missing,
                    report: Report::new(cli.json),
                    progress: progress_choice(cli, personality),
                    run,
                }));
            }
            Source::Object { location, endpoint }
        }
    };
    Ok(Mode::VerifyS3(VerifyS3 {
        source,
        file,
        report: Report::new(cli.json),
        run,
    }))
}

/// `--verify-s3`'s S3 URL, when it names one (or why it is no S3 URL).
fn verify_s3_location(cli: &Cli) -> Option<Result<S3Location, String>> {
    let what = cli.verify_s3.as_ref()?;
    S3Location::parse(std::os::unix::ffi::OsStrExt::as_bytes(what.as_os_str()))
}

/// `--check` of `manifests`, by the program's rules.
fn check(
    cli: &Cli,
    personality: &Program,
    dropin: Option<&Resolved>,
    algorithms: &[Algorithm],
    manifests: Vec<Input>,
    walk: WalkOptions,
    run: RunSettings,
) -> Check {
    let algorithm = algorithms.first().copied();
    let (type_name, retag) = match dropin {
        Some(d) => (Some(d.type_name), d.retag),
        None => (algorithm.map(|a| a.info().bsd_tag), Retag::Never),
    };
    Check {
        manifests,
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
        any_length: dropin.is_some_and(|d| d.any_length),
        type_name,
        retag,
        base64_digests: personality.reads_base64(),
        filter: walk.filter,
        report: Report::new(cli.json),
        run,
        blake3_seek: cli.blake3_seek,
    }
}

/// What hashing writes for each file, `first` being the first algorithm (a legacy checksum is
/// always the only one).
fn output(cli: &Cli, personality: &Program, dropin: Option<&Resolved>, first: Algorithm) -> Output {
    let encoding = match cli.base64 {
        true => DigestEncoding::Base64,
        false => DigestEncoding::Hex,
    };
    if cli.json {
        return Output::Json(encoding);
    }
    if cli.raw {
        return Output::Raw;
    }
    if first.info().with_size {
        return Output::Sums(SumStyle {
            // cksum and sum name the file beside a legacy checksum only when files were named.
            with_names: !(cli.no_names || cli.files.is_empty()),
            zero_terminated: cli.zero,
        });
    }
    Output::Lines(LineStyle {
        tagged: dropin.map_or(cli.tag, |d| d.tagged),
        binary: cli.binary,
        zero_terminated: cli.zero,
        encoding,
        with_names: !cli.no_names,
        dialect: personality.lines,
    })
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
/// without a word. (The drop-in names' parsers accept only their programs' options.) The
/// first row of [`POINTLESS`] that the command line meets is the refusal.
fn refuse_options_that_would_do_nothing(cli: &Cli, s3_values: bool) -> Result<(), Error> {
    let given = Given::new(cli, s3_values);
    let found = POINTLESS
        .iter()
        .find_map(|row| (row.found)(&given).map(|(option, other)| (row, option, other)));
    match found {
        // `OPTION does nothing with MODE: WHY`, or `... without NEEDED: ...`.
        Some((row, option, other)) => Err(Error::usage(format!(
            "{option} does nothing {} {other}: {}",
            row.with_or_without, row.why
        ))),
        None => Ok(()),
    }
}

/// One option that does nothing with another (or without it).
struct Pointless {
    /// The option and the other one, when the command line has both (or lacks the other).
    found: fn(&Given) -> Option<(&'static str, &'static str)>,
    with_or_without: &'static str,
    /// What the option is for.
    why: &'static str,
}

/// The options of one command line, gathered by what they do.
struct Given<'a> {
    cli: &'a Cli,
    /// The option that chose the mode, as a refusal names it.
    mode: Option<&'static str>,
    /// `--merge` or `--verify-s3`, which hash no file of the command line.
    merge_or_verify: Option<&'static str>,
    /// An S3 option, when the run prints S3 values.
    s3_option: Option<&'static str>,
    s3_values: bool,
    filter_option: Option<&'static str>,
    /// What shapes a digest line. --json keeps --base64 (its digests' encoding) and refuses
    /// the rest; the S3 options, which print no digest lines, refuse --base64 too.
    shape_option: Option<&'static str>,
    line_option: Option<&'static str>,
    names_option: Option<&'static str>,
    reading_option: Option<&'static str>,
    audit: bool,
    /// `--verify-s3 s3://...`, and whether it names a tree (`s3://BUCKET/PREFIX/`).
    s3_url: bool,
    bucket: bool,
}

impl Given<'_> {
    fn new(cli: &Cli, s3_values: bool) -> Given<'_> {
        let mode = first_given(&[
            (cli.merge, "--merge"),
            (cli.verify_s3.is_some(), "--verify-s3"),
            (cli.check, "--check"),
        ]);
        let shape_option = first_given(&[
            (cli.tag, "--tag"),
            (cli.untagged, "--untagged"),
            (cli.binary, "--binary"),
            (cli.text_typed, "--text"),
        ]);
        let s3_location = verify_s3_location(cli).and_then(Result::ok);
        Given {
            cli,
            mode,
            merge_or_verify: mode.filter(|mode| matches!(*mode, "--merge" | "--verify-s3")),
            s3_option: first_given(&[
                (cli.s3, "--s3"),
                (cli.s3_header, "--s3-header"),
                (cli.etag, "--etag"),
                (cli.part_size.is_some(), "--part-size"),
                (cli.checksum_type.is_some(), "--checksum-type"),
                (cli.s3_preset.is_some(), "--s3-preset"),
                (cli.json, "--json"),
            ])
            .filter(|_| s3_values),
            s3_values,
            filter_option: first_given(&[
                (!cli.exclude.is_empty(), "--exclude"),
                (!cli.include.is_empty(), "--include"),
            ]),
            shape_option,
            line_option: shape_option.or(cli.base64.then_some("--base64")),
            names_option: first_given(&[
                (cli.files_from.is_some(), "--files-from"),
                (cli.files0_from.is_some(), "--files0-from"),
            ]),
            reading_option: first_given(&[
                (cli.threads.is_some(), "--threads"),
                (cli.readers.is_some(), "--readers"),
                (cli.mmap, "--mmap"),
                (cli.no_mmap, "--no-mmap"),
            ]),
            audit: cli.check && cli.tree.is_some(),
            s3_url: s3_location.is_some(),
            bucket: s3_location.is_some_and(|location| location.is_prefix()),
        }
    }

    /// `mode`, when it is `--merge`.
    fn merge(&self) -> Option<&'static str> {
        self.mode.filter(|mode| *mode == "--merge")
    }
}

/// `option` when `given`.
fn when(given: bool, option: &'static str) -> Option<&'static str> {
    given.then_some(option)
}

/// The refusals, in the order they are tested.
const POINTLESS: &[Pointless] = &[
    Pointless {
        found: |g| {
            when(g.cli.endpoint_url.is_some() && !g.s3_url, "--endpoint-url")
                .zip(Some("--verify-s3 s3://..."))
        },
        with_or_without: "without",
        why: "it names the S3-compatible server that --verify-s3 asks about an s3:// object",
    },
    Pointless {
        found: |g| when(g.cli.recursive, "-r").zip(g.mode.filter(|mode| *mode == "--check")),
        with_or_without: "with",
        why: "a manifest names the files it checks (--tree DIR also walks DIR for files it does \
              not list)",
    },
    Pointless {
        found: |g| when(g.cli.recursive, "-r").zip(g.mode),
        with_or_without: "with",
        why: "-r walks directories to hash the files in them",
    },
    Pointless {
        found: |g| {
            let walks = g.cli.recursive || g.audit || g.bucket;
            when(g.cli.follow && !walks, "-L").zip(Some("-r"))
        },
        with_or_without: "without",
        why: "it follows symbolic links met while walking directories (-r, --check --tree DIR, \
              --verify-s3 s3://BUCKET/PREFIX/ DIR); links named on the command line are always \
              followed",
    },
    Pointless {
        found: |g| g.filter_option.zip(g.merge_or_verify.filter(|_| !g.bucket)),
        with_or_without: "with",
        why: "it filters the files -r walks, --check reads or --verify-s3 s3://BUCKET/PREFIX/ \
              DIR compares",
    },
    Pointless {
        found: |g| {
            g.filter_option
                .filter(|_| !g.cli.recursive && !g.cli.check && !g.bucket)
                .zip(Some("-r"))
        },
        with_or_without: "without",
        why: "it filters the files -r walks or a manifest lists (--check); files named on the \
              command line are always hashed",
    },
    Pointless {
        found: |g| g.names_option.zip(g.mode),
        with_or_without: "with",
        why: "it names files to hash; a manifest or shard names its own files",
    },
    Pointless {
        found: |g| g.line_option.zip(g.s3_option),
        with_or_without: "with",
        why: "it shapes digest lines, and the S3 options print S3's values instead",
    },
    // --json of digests (no S3 option, no other mode): one object a file, its digests in hex
    // or base64; nothing else of a line's shape has a place in it.
    Pointless {
        found: |g| {
            g.shape_option
                .filter(|_| g.cli.json && !g.s3_values && g.mode.is_none())
                .zip(Some("--json"))
        },
        with_or_without: "with",
        why: "it shapes digest lines, and --json writes one object a file (name, size, digests)",
    },
    Pointless {
        found: |g| {
            let lifted = g.cli.no_part_limits;
            when(
                lifted && g.cli.part_size.is_none() && g.cli.s3_preset.is_none(),
                "--no-part-limits",
            )
            .zip(Some("--part-size"))
        },
        with_or_without: "without",
        why: "it lifts S3's limits on the parts of --part-size SIZE (or of an --s3-preset)",
    },
    Pointless {
        found: |g| {
            let unused_by = g.s3_option.or(g.mode.filter(|mode| *mode != "--check"));
            when(g.cli.cache.is_some(), "--cache").zip(unused_by)
        },
        with_or_without: "with",
        why: "it remembers the digests of files hashed or checked; S3 values, merged shards and \
              --verify-s3 do not use it",
    },
    // With --check, -z says how the manifest's lines end, which JSON output does not change.
    Pointless {
        found: |g| when(g.cli.zero && g.cli.json && !g.cli.check, "-z").zip(Some("--json")),
        with_or_without: "with",
        why: "JSON objects end with a newline, and their names are JSON strings",
    },
    Pointless {
        found: |g| {
            let with = first_given(&[
                (g.cli.json, "--json"),
                (g.cli.s3_header && g.s3_values, "--s3-header"),
            ]);
            when(g.cli.no_names, "--no-names").zip(with)
        },
        with_or_without: "with",
        why: "JSON objects always carry the name, and header lines never do",
    },
    Pointless {
        found: |g| g.reading_option.zip(g.merge()),
        with_or_without: "with",
        why: "merging reads the shard manifests, not the files they list",
    },
    Pointless {
        found: |g| when(!g.cli.algorithm.is_empty(), "-a").zip(g.merge_or_verify),
        with_or_without: "with",
        why: "the shards and S3's JSON say their own algorithm",
    },
    Pointless {
        found: |g| when(g.cli.zero, "-z").zip(g.merge_or_verify),
        with_or_without: "with",
        why: "-z shapes the lines of hashing and --check",
    },
    Pointless {
        found: |g| when(g.cli.stats, "--stats").zip(g.merge()),
        with_or_without: "with",
        why: "it counts the files a run hashes, and a merge hashes none",
    },
    // --no-progress is honoured everywhere; a bar asked for where there is none is not.
    Pointless {
        found: |g| when(g.cli.progress, "--progress").zip(g.mode.filter(|_| !g.bucket)),
        with_or_without: "with",
        why: "the bar follows the hashing of files (their S3 values, a tree against S3) only",
    },
];

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
    let bucket = matches!(verify_s3_location(cli), Some(Ok(l)) if l.is_prefix());
    let binary_or_text = cli.binary || cli.text_typed;
    let is_coreutils = personality.is_coreutils();
    let words_its_own_refusals = personality.refuse_last().is_some();
    let refusals: [(bool, &str); 10] = [
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
            cli.ignore_missing && !check && !bucket,
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
        // After the checks above, as coreutils 9.11 orders them; `-t` before `--tag` is
        // refused too (9.1's `--tag` cleared an earlier `-t`). cksum words it its own way,
        // after these (`GnuProgram::refuse_last`).
        (
            cli.tag && cli.text_typed && !words_its_own_refusals,
            "--tag does not support --text mode",
        ),
        // fasthash's own options (cksum's --base64 is taken with --check, and ignored).
        (
            !is_coreutils && (cli.base64 || cli.no_names) && check,
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
        // 9.11's `--tag` no longer clears an earlier `-t` (9.1's set binary mode).
        assert_eq!(
            usage_message(&["sha256sum", "-t", "--tag"]),
            "--tag does not support --text mode"
        );
        // 9.11 tests --tag against --text after the options meaningful only with --check.
        for order in [["-t", "--tag"], ["--tag", "-t"]] {
            assert_eq!(
                usage_message(&["md5sum", order[0], order[1], "-c", "f"]),
                "the --tag option is meaningless when verifying checksums"
            );
        }
        // cksum words the same refusal its own way.
        for order in [["-t", "--tag"], ["--tag", "-t"]] {
            assert_eq!(
                usage_message(&["cksum", order[0], order[1], "f"]),
                "--text mode is only supported with --untagged"
            );
        }
        assert_eq!(
            usage_message(&["sha256sum", "-c", "--tag", "--quiet"]),
            "the --tag option is meaningless when verifying checksums"
        );
        assert_eq!(
            usage_message(&["fasthash", "--quiet"]),
            "the --quiet option is meaningful only when verifying checksums"
        );
        // 9.11 judges the length and the algorithm first, and cksum's --raw of several files
        // last, with --check too; cksum takes --base64 with --check.
        let length = usage_message(&["b2sum", "--length=7", "--strict", "f"]);
        assert!(length.starts_with("invalid length: "), "{length}");
        assert!(
            length.ends_with("\nb2sum: length is not a multiple of 8"),
            "{length}"
        );
        assert_eq!(
            usage_message(&["cksum", "--length=8", "--warn", "f"]),
            "--length is only supported with --algorithm blake2b, sha2, or sha3"
        );
        assert_eq!(
            usage_message(&["cksum", "-a", "crc32b", "-c", "-t", "m"]),
            "--check is not supported with --algorithm={bsd,sysv,crc,crc32b}"
        );
        assert_eq!(
            usage_message(&["cksum", "--raw", "-c", "m", "m"]),
            "the --raw option is not supported with multiple files"
        );
        assert!(matches!(
            mode(&["cksum", "--base64", "-c", "m"]),
            Mode::Check(_)
        ));
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
        assert!(matches!(hash.output, Output::Lines(_)));
        let Mode::Hash(hash) = mode(&["fasthash", "--json", "--base64", "-a", "blake3", "f"])
        else {
            panic!("--json alone is hashing's JSON");
        };
        assert_eq!(hash.output, Output::Json(DigestEncoding::Base64));
        let Mode::Hash(hash) = mode(&["fasthash", "-a", "crc", "-z"]) else {
            panic!("expected hashing");
        };
        let sums = SumStyle {
            with_names: false,
            zero_terminated: true,
        };
        assert_eq!(hash.output, Output::Sums(sums));
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
        assert_eq!(check.dialect, crate::dropin::CheckDialect::B3sum);
        assert_eq!(check.algorithm, Some(Algorithm::Blake3));
        let Mode::Audit(audit) = mode(&["fasthash", "-c", "SUMS", "--tree", "dir", "--json"])
        else {
            panic!("expected an audit");
        };
        assert_eq!(audit.check.report, Report::Json);
        let Mode::Check(check) = mode(&["fasthash", "-c", "--json", "SUMS"]) else {
            panic!("expected checking");
        };
        assert_eq!(check.report, Report::Json);
        let Mode::VerifyS3(verify) = mode(&["fasthash", "--verify-s3", "h.json", "f", "--json"])
        else {
            panic!("expected --verify-s3");
        };
        assert_eq!(verify.report, Report::Json);
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

    #[test]
    fn verify_s3_takes_a_json_an_object_or_a_prefix() {
        if !cfg!(feature = "s3") {
            let refused = config(&["fasthash", "--verify-s3", "s3://b/k", "f"]);
            assert!(matches!(refused, Err(Error::S3 { .. })));
            return;
        }
        let Mode::VerifyS3(object) = mode(&["fasthash", "--verify-s3", "s3://b/k", "f"]) else {
            panic!("expected one object");
        };
        assert!(matches!(object.source, Source::Object { .. }));
        let tree = [
            "fasthash",
            "--verify-s3",
            "s3://b/p/",
            "dir",
            "--exclude",
            "*.tmp",
        ];
        let Mode::VerifyBucket(bucket) = mode(&[&tree[..], &["--ignore-missing", "-L"]].concat())
        else {
            panic!("expected a tree");
        };
        assert!(bucket.ignore_missing && bucket.follow_links);
        assert_eq!(bucket.location.key, "p/");
        let endpoint = ["--endpoint-url", "http://127.0.0.1:9000"];
        let Mode::VerifyBucket(bucket) = mode(&[&tree[..], &endpoint].concat()) else {
            panic!("expected a tree");
        };
        assert_eq!(bucket.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
        // What only a tree or an S3 URL uses is refused elsewhere.
        let json = ["fasthash", "--verify-s3", "head.json", "f"];
        assert!(usage_message(&[&json[..], &endpoint].concat()).starts_with("--endpoint-url"));
        assert!(usage_message(&[&json[..], &["--exclude", "x"]].concat()).starts_with("--exclude"));
        let object = ["fasthash", "--verify-s3", "s3://b/k", "f"];
        assert!(
            usage_message(&[&object[..], &["--ignore-missing"]].concat())
                .contains("--ignore-missing")
        );
        assert!(usage_message(&[&object[..], &["--progress"]].concat()).starts_with("--progress"));
        assert!(usage_message(&["fasthash", "--verify-s3", "s3:///k", "f"]).contains("no bucket"));
    }
}
