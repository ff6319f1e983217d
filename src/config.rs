//! Turns what was typed into one validated `Config`: every choice resolved once, every
//! conflicting combination rejected with coreutils' own wording.

use crate::bench::BenchOptions;
use crate::cli::{B3sumCli, BenchCli, Cli, GnuParse, Personality};
use crate::error::Error;
use crate::format::{DigestEncoding, LineStyle};
use crate::io::parallel::default_threads;
use crate::io::progress::ProgressChoice;
use crate::io::read::{MmapChoice, ReadOptions};
use crate::io::shard::Shard;
use crate::io::walk::{Filter, WalkOptions};
use crate::io::Input;
use crate::kernels::Algorithm;
use crate::s3::options::S3Options;
use clap::Parser;
use std::ffi::OsString;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Hash,
    Check,
    /// `--verify-s3 JSON FILE`.
    VerifyS3,
    /// `--merge FILE...`: shard manifests into one.
    Merge,
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

#[derive(Debug)]
pub struct Config {
    pub personality: Personality,
    /// The program's name in messages (see `Personality::message_name`).
    pub program: String,
    pub mode: Mode,
    /// Set by `-a` or by the drop-in name; `None` lets `--check` decide per line.
    pub algorithm: Option<Algorithm>,
    pub style: LineStyle,
    pub check: CheckOptions,
    pub inputs: Vec<Input>,
    pub threads: usize,
    pub read: ReadOptions,
    pub walk: WalkOptions,
    /// `--files-from` / `--files0-from`: the inputs are the names in this list.
    pub names_from: Option<NameList>,
    pub progress: ProgressChoice,
    /// `--debug`: name the kernels on standard error before hashing.
    pub debug: bool,
    /// Set by the S3 options: hash mode prints S3's values instead of digest lines.
    pub s3: Option<S3Options>,
    /// `--verify-s3`: the JSON that S3 printed.
    pub verify_s3: Option<std::path::PathBuf>,
    /// `--shard K/N`: hash only this part of the inputs.
    pub shard: Option<Shard>,
    /// `--check --tree DIR`: audit DIR against the manifests.
    pub audit_tree: Option<std::path::PathBuf>,
    /// `--json` with `--tree`: the audit's statuses as JSON lines.
    pub audit_json: bool,
    /// `--cache FILE`: digests remembered across runs.
    pub cache: Option<std::path::PathBuf>,
    /// `b2sum -c` and `cksum -c` without `-l`: each line's length picks the family's member.
    pub check_any_length: bool,
    /// The algorithm `--check --warn` names in its malformed-line message, and how cksum
    /// changes it line by line.
    pub check_type_name: Option<&'static str>,
    pub check_retag: crate::format::manifest::Retag,
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
    match crate::kernels::detect::forced() {
        Ok(_) => Ok(()),
        Err(reason) => Err(Error::usage(reason.clone())),
    }
}

/// What the command line asks for: a run, or text to print and leave.
pub enum Action {
    Run(Box<Config>),
    /// `--help` / `--version` of a coreutils drop-in name.
    Print(String),
    /// `fasthash bench`.
    Bench(BenchOptions),
    /// b3sum's keyed, derived-key or extended output (`crate::dropin::b3sum`).
    B3sumExtended(Box<B3sumCli>),
}

impl Config {
    /// Parses and validates a whole command line, `args[0]` included.
    pub fn from_args(args: Vec<OsString>) -> Result<Action, Error> {
        let personality = Personality::from_argv0(args.first());
        let program = personality.message_name(args.first());
        let cli = match personality {
            // `bench` is a command only as the first argument: `fasthash ./bench` hashes a file.
            Personality::Fasthash if args.get(1).is_some_and(|a| a == "bench") => {
                let bench = BenchCli::parse_from(args.into_iter().skip(1));
                check_forced_kernels()?;
                return Ok(Action::Bench(BenchOptions {
                    seconds: bench.seconds,
                    algorithms: bench.algorithm,
                }));
            }
            Personality::Fasthash => Cli::parse_fasthash(args),
            Personality::B3sum => {
                let b3sum = B3sumCli::parse_from(args);
                if b3sum.wants_extended_output() {
                    return Ok(Action::B3sumExtended(Box::new(b3sum)));
                }
                b3sum.into_cli()
            }
            Personality::Coreutils {
                program: own_name,
                algorithm,
            } => match crate::cli::parse_gnu(&args, &crate::dropin::cksum::options(own_name)) {
                Ok(GnuParse::Run(cli)) => *cli,
                Ok(GnuParse::Help) => {
                    return Ok(Action::Print(coreutils_help(&program, algorithm)))
                }
                Ok(GnuParse::Version) => return Ok(Action::Print(coreutils_version(own_name))),
                Err(message) => return Err(Error::usage(message)),
            },
        };
        if cli.list_kernels {
            check_forced_kernels()?;
            let caps = crate::kernels::detect::Capabilities::get();
            return Ok(Action::Print(crate::format::kernels::list(&caps)));
        }
        if let Some(what) = &cli.generate {
            let text = crate::generate::generate(what)
                .ok_or_else(|| Error::usage(format!("nothing to generate called '{what}'")))?;
            return Ok(Action::Print(String::from_utf8_lossy(&text).into_owned()));
        }
        check_forced_kernels()?;
        Config::from_cli(cli, personality, program).map(|config| Action::Run(Box::new(config)))
    }

    pub fn from_cli(cli: Cli, personality: Personality, program: String) -> Result<Config, Error> {
        validate_gnu_combinations(&cli, personality)?;
        let mode = if cli.verify_s3.is_some() {
            Mode::VerifyS3
        } else if cli.merge {
            Mode::Merge
        } else if cli.check {
            Mode::Check
        } else {
            Mode::Hash
        };
        let dropin = match personality {
            Personality::Coreutils { program: own, .. }
                if matches!(own, "b2sum" | "cksum" | "sum") =>
            {
                Some(
                    crate::dropin::cksum::resolve(own, &program, &cli)
                        .map_err(|(message, try_help)| Error::Usage { message, try_help })?,
                )
            }
            _ => None,
        };
        let algorithm = match personality {
            Personality::Coreutils { .. } if dropin.is_some() => {
                dropin.as_ref().and_then(|d| d.algorithm)
            }
            Personality::Coreutils { algorithm, .. } => Some(algorithm),
            Personality::B3sum => Some(Algorithm::Blake3),
            Personality::Fasthash => match (cli.algorithm, mode) {
                (Some(algorithm), _) => Some(algorithm),
                (None, Mode::Hash) => Some(Algorithm::Sha256),
                (None, Mode::Check | Mode::VerifyS3 | Mode::Merge) => None,
            },
        };
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
            with_names: !(cli.no_names
                || (algorithm.is_some_and(|a| a.info().with_size) && cli.files.is_empty())),
            lossy_names: personality == Personality::B3sum,
        };
        let check_any_length = dropin.as_ref().is_some_and(|d| d.any_length);
        let (check_type_name, check_retag) = match &dropin {
            Some(d) => (Some(d.type_name), d.retag),
            None => (
                algorithm.map(|a| a.info().bsd_tag),
                crate::format::manifest::Retag::Never,
            ),
        };
        // cksum's and sum's legacy checksums have one line format and nothing to check.
        if let (Personality::Fasthash, Some(legacy)) =
            (personality, algorithm.filter(|a| a.info().with_size))
        {
            let refused = [
                (cli.check, "--check"),
                (cli.tag, "--tag"),
                (cli.base64, "--base64"),
                (cli.binary, "--binary"),
            ];
            if let Some((_, option)) = refused.iter().find(|(given, _)| *given) {
                return Err(Error::usage(format!(
                    "{option} does not apply to -a {legacy}: its line is the checksum and the size \
                     in decimal, as cksum and sum print it, and coreutils checks no such line"
                )));
            }
        }
        let check = CheckOptions {
            ignore_missing: cli.ignore_missing,
            quiet: cli.quiet,
            status: cli.status,
            strict: cli.strict,
            warn: cli.warn,
        };
        let names_from = match (&cli.files_from, &cli.files0_from) {
            (Some(list), _) => Some((list.clone(), false)),
            (None, Some(list)) => Some((list.clone(), true)),
            (None, None) => None,
        };
        let names_from = match names_from {
            None => None,
            Some((list, zero_terminated)) => {
                if let Some(operand) = cli.files.first() {
                    return Err(Error::usage(format!(
                        "extra operand {}\nfile operands cannot be combined with --files-from or --files0-from",
                        String::from_utf8_lossy(&crate::format::quote::quote_name(
                            std::os::unix::ffi::OsStrExt::as_bytes(operand.as_os_str())
                        ))
                    )));
                }
                Some(NameList {
                    source: Input::from_arg(list),
                    zero_terminated,
                })
            }
        };
        let filter = Filter::new(&cli.exclude, &cli.include)
            .map_err(|e| Error::usage(format!("invalid glob: {e}")))?;
        let walk = WalkOptions {
            recursive: cli.recursive,
            follow_links: cli.follow,
            filter,
        };
        let progress = match (cli.progress, cli.no_progress) {
            (true, _) => ProgressChoice::Always,
            (_, true) => ProgressChoice::Never,
            _ => ProgressChoice::Auto,
        };
        let (s3, algorithm) = crate::s3::options::resolve(&cli, mode == Mode::Hash, algorithm)?;
        let verify_s3 = cli.verify_s3.clone().map(std::path::PathBuf::from);
        if verify_s3.is_some() && cli.files.len() != 1 {
            return Err(Error::usage(
                "--verify-s3 compares one file: fasthash --verify-s3 HEAD.json FILE",
            ));
        }
        let mut inputs: Vec<Input> = cli.files.into_iter().map(Input::from_arg).collect();
        if inputs.is_empty() && mode == Mode::Merge {
            return Err(Error::usage(
                "--merge needs the shard manifests to merge: fasthash --merge FILE...",
            ));
        }
        if inputs.is_empty() {
            inputs.push(Input::Stdin);
        }
        if cli.shard.is_some() {
            if mode != Mode::Hash || s3.is_some() {
                return Err(Error::usage(
                    "--shard cuts the hashing of files into parts; it does not combine with \
                     --check, --merge, --verify-s3 or the S3 options",
                ));
            }
            if inputs.contains(&Input::Stdin) || names_from.is_some() {
                return Err(Error::usage(
                    "--shard needs the same files on every machine: name files or directories, \
                     not standard input or a list of names",
                ));
            }
        }
        let threads = cli.threads.map(usize::from).unwrap_or_else(default_threads);
        Ok(Config {
            personality,
            program,
            mode,
            algorithm,
            style,
            check,
            inputs,
            threads,
            read: ReadOptions {
                mmap: match (cli.mmap, cli.no_mmap) {
                    (true, _) => MmapChoice::Always,
                    (_, true) => MmapChoice::Never,
                    _ => MmapChoice::Auto,
                },
                split_files: threads > 1,
            },
            walk,
            names_from,
            progress,
            debug: cli.debug,
            s3,
            verify_s3,
            shard: cli.shard,
            audit_tree: cli.tree.clone().map(std::path::PathBuf::from),
            audit_json: cli.json && cli.tree.is_some(),
            cache: cli.cache.clone().map(std::path::PathBuf::from),
            check_any_length,
            check_type_name,
            check_retag,
        })
    }
}

/// The combinations coreutils' digest programs refuse, in the order they test them.
fn validate_gnu_combinations(cli: &Cli, personality: Personality) -> Result<(), Error> {
    let check = cli.check;
    let binary_or_text = cli.binary || cli.text_typed;
    let is_coreutils = matches!(personality, Personality::Coreutils { .. });
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

fn coreutils_help(program: &str, algorithm: Algorithm) -> String {
    if let Some(help) = crate::dropin::cksum::help(program, algorithm) {
        return help;
    }
    let bits = match algorithm {
        Algorithm::Md5 => "MD5 (128-bit)".to_string(),
        Algorithm::Sha1 => "SHA1 (160-bit)".to_string(),
        other => format!(
            "SHA{} ({}-bit)",
            other.digest_len() * 8,
            other.digest_len() * 8
        ),
    };
    format!(
        "\
Usage: {program} [OPTION]... [FILE]...
Print or check {bits} checksums.

With no FILE, or when FILE is -, read standard input.
  -b, --binary          read in binary mode
  -c, --check           read checksums from the FILEs and check them
      --tag             create a BSD-style checksum
  -t, --text            read in text mode (default)
  -z, --zero            end each output line with NUL, not newline,
                          and disable file name escaping

The following five options are useful only when verifying checksums:
      --ignore-missing  don't fail or report status for missing files
      --quiet           don't print OK for each successfully verified file
      --status          don't output anything, status code shows success
      --strict          exit non-zero for improperly formatted checksum lines
  -w, --warn            warn about improperly formatted checksum lines

      --help        display this help and exit
      --version     output version information and exit

This is fasthash {version} running as {program}.
",
        version = env!("CARGO_PKG_VERSION")
    )
}

fn coreutils_version(program: &str) -> String {
    format!("{program} (fasthash) {}\n", env!("CARGO_PKG_VERSION"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(list: &[&str]) -> Result<Action, Error> {
        Config::from_args(list.iter().map(OsString::from).collect())
    }

    fn usage_message(list: &[&str]) -> String {
        match config(list) {
            Err(Error::Usage { message, .. }) => message,
            _ => panic!("expected a usage error for {list:?}"),
        }
    }

    #[test]
    fn drop_in_name_sets_the_algorithm() {
        let Ok(Action::Run(config)) = config(&["/bin/sha1sum", "f"]) else {
            panic!("expected a run");
        };
        assert_eq!(config.algorithm, Some(Algorithm::Sha1));
        assert_eq!(config.inputs, vec![Input::Path("f".into())]);
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
    fn no_file_means_standard_input() {
        let Ok(Action::Run(config)) = config(&["fasthash"]) else {
            panic!("expected a run");
        };
        assert_eq!(config.inputs, vec![Input::Stdin]);
        assert_eq!(config.algorithm, Some(Algorithm::Sha256));
    }
}
