//! `b2sum`, `cksum` and `sum` as GNU coreutils 9.11 has them: their options beyond
//! md5sum's, and how each decides its algorithm, digest length and line format.

use super::GnuProgram;
use crate::cli::{Cli, GnuAction, GnuOption, COREUTILS_OPTIONS};
use crate::error::Error;
use crate::format::manifest::Retag;
use crate::format::quote::quote_arg;
use crate::kernels::{cksum_names, Algorithm, CksumName};

/// `-l`: refused where it stands unless a number (coreutils 9.11 reads it with xnumtoimax in
/// its option loop; what the number may be is decided later, with the algorithm).
const LENGTH: GnuOption = GnuOption {
    long: "length",
    short: Some(b'l'),
    set: GnuAction::Value(|c, v| {
        c.length_text = Some(v.to_vec());
        length_number(v).map(|_| ())
    }),
};

const CKSUM_ONLY: &[GnuOption] = &[
    GnuOption {
        long: "algorithm",
        short: Some(b'a'),
        // Refused where it stands unless a name of cksum's (XARGMATCH_EXACT in its loop).
        set: GnuAction::Value(|c, v| {
            c.cksum_algorithm = Some(v.to_vec());
            cksum_name(v).map(|_| ())
        }),
    },
    GnuOption {
        long: "base64",
        short: None,
        set: GnuAction::Flag(|c| c.base64 = true),
    },
    GnuOption {
        long: "debug",
        short: None,
        set: GnuAction::Flag(|c| c.debug = true),
    },
    LENGTH,
    GnuOption {
        long: "raw",
        short: None,
        set: GnuAction::Flag(|c| c.raw = true),
    },
    GnuOption {
        long: "untagged",
        short: None,
        set: GnuAction::Flag(|c| {
            c.untagged = true;
            c.tag = false;
        }),
    },
];

const SUM_OPTIONS: &[GnuOption] = &[
    GnuOption {
        long: "sysv",
        short: Some(b's'),
        set: GnuAction::Flag(|c| c.sysv = true),
    },
    // -r: the BSD checksum, the default (not a long option).
    GnuOption {
        long: "",
        short: Some(b'r'),
        set: GnuAction::Flag(|c| c.sysv = false),
    },
];

/// b2sum's rows of [`super::PROGRAMS`]: md5sum's options and `-l`.
pub(crate) const B2SUM: GnuProgram = GnuProgram {
    options: b2sum_options,
    resolve: Some(resolve_b2sum),
    help: b2sum_help,
    reads_base64: false,
    refuse_last: None,
};

/// cksum's: its own options, algorithms and lines, and digests in base64 too.
pub(crate) const CKSUM: GnuProgram = GnuProgram {
    options: cksum_options,
    resolve: Some(resolve_cksum),
    help: cksum_help,
    reads_base64: true,
    refuse_last: Some(refuse_cksum_last),
};

/// sum's: `-r` and `-s` only.
pub(crate) const SUM: GnuProgram = GnuProgram {
    options: sum_options,
    resolve: Some(resolve_sum),
    help: sum_help,
    reads_base64: false,
    refuse_last: None,
};

/// How a program decides its algorithm, length and line from its options, under the name it
/// was typed as (which its messages repeat).
pub(crate) type Resolve = fn(&str, &Typed) -> Result<Resolved, Error>;

/// A refusal a program makes in its own words ([`super::GnuProgram::refuse_last`]).
pub(crate) type Refuse = fn(&Typed) -> Result<(), Error>;

/// What b2sum, cksum and sum decide from: the options they take, as typed.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Typed<'a> {
    pub(crate) check: bool,
    /// `--tag`: b2sum's BSD-style lines (cksum's default).
    pub(crate) tag: bool,
    /// cksum's `--untagged`.
    pub(crate) untagged: bool,
    /// `-t`/`--text` was typed.
    pub(crate) text: bool,
    pub(crate) base64: bool,
    pub(crate) raw: bool,
    /// sum's `-s`/`--sysv`.
    pub(crate) sysv: bool,
    /// `-l`, as typed.
    pub(crate) length: Option<&'a [u8]>,
    /// cksum's `-a`, as typed (cksum's names, not fasthash's).
    pub(crate) algorithm: Option<&'a [u8]>,
    /// How many files were named.
    pub(crate) files: usize,
}

impl Typed<'_> {
    /// The options of `cli` that these programs read.
    pub(crate) fn of(cli: &Cli) -> Typed<'_> {
        Typed {
            check: cli.check,
            tag: cli.tag,
            untagged: cli.untagged,
            text: cli.text_typed,
            base64: cli.base64,
            raw: cli.raw,
            sysv: cli.sysv,
            length: cli.length_text.as_deref(),
            algorithm: cli.cksum_algorithm.as_deref(),
            files: cli.files.len(),
        }
    }
}

fn sum_options() -> Vec<GnuOption> {
    SUM_OPTIONS.to_vec()
}

fn b2sum_options() -> Vec<GnuOption> {
    let mut options = COREUTILS_OPTIONS.to_vec();
    options.push(LENGTH);
    super::coreutils::in_coreutils_order(options)
}

fn cksum_options() -> Vec<GnuOption> {
    let mut options = COREUTILS_OPTIONS.to_vec();
    options.extend_from_slice(CKSUM_ONLY);
    // cksum's --tag is its default; --untagged undoes it and --tag redoes it.
    for option in &mut options {
        if option.long == "tag" {
            option.set = GnuAction::Flag(|c| {
                c.tag = true;
                c.untagged = false;
            });
        }
    }
    super::coreutils::in_coreutils_order(options)
}

/// What b2sum, cksum and sum make of their options.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Resolved {
    /// None for `cksum -c` without `-a`: each line's tag says.
    pub algorithm: Option<Algorithm>,
    /// `--check` without `-l` takes each line's length (BLAKE2b, and SHA-2 or SHA-3 named by
    /// family).
    pub any_length: bool,
    pub tagged: bool,
    /// What `--check --warn` calls a malformed line's algorithm at first (cksum's tag for
    /// `-a`, `CRC` without it), and how cksum changes it as it reads tagged lines.
    pub type_name: &'static str,
    pub retag: Retag,
}

/// An error, as coreutils words it: the message (possibly several lines, each but the first
/// already prefixed with the program name) and whether a "Try --help" line follows.
fn refusal(message: impl Into<String>, try_help: bool) -> Error {
    Error::Usage {
        message: message.into(),
        try_help,
    }
}

fn resolve_sum(_shown_name: &str, given: &Typed) -> Result<Resolved, Error> {
    Ok(Resolved {
        algorithm: Some(if given.sysv {
            Algorithm::Sysv
        } else {
            Algorithm::Bsd
        }),
        any_length: false,
        tagged: false,
        type_name: "BSD",
        retag: Retag::Never,
    })
}

fn resolve_b2sum(shown_name: &str, given: &Typed) -> Result<Resolved, Error> {
    let bits = length(shown_name, given, false)?;
    Ok(Resolved {
        algorithm: Algorithm::blake2b_bits(bits.unwrap_or(512)),
        // b2sum -c reads each line's length, whatever -l says.
        any_length: given.check,
        tagged: given.tag,
        type_name: "BLAKE2b",
        retag: Retag::Never,
    })
}

fn resolve_cksum(shown_name: &str, given: &Typed) -> Result<Resolved, Error> {
    let named = given.algorithm.map(cksum_name).transpose()?;
    // Without -a: the CRC, which a check does not fix (each line's tag says).
    let (name, row) = named.unwrap_or_else(|| {
        *cksum_names()
            .iter()
            .find(|(name, _)| name.name == "crc")
            .expect("cksum's default has a row")
    });
    let (algorithm, any_length) = cksum_algorithm(shown_name, given, name, row)?;
    refuse_cksum_combinations(given, named.is_some(), algorithm)?;
    let retag = match named {
        None => Retag::EveryTag,
        // Only the SHA-2 family is retagged by the first tag of a member (`Retag`).
        Some(_) if name.family && row == Algorithm::Sha256 => Retag::Sha2Family,
        Some(_) => Retag::Never,
    };
    Ok(Resolved {
        algorithm: (named.is_some() || !given.check).then_some(algorithm),
        any_length,
        tagged: !given.untagged,
        type_name: name.tag,
        retag,
    })
}

/// The name `-a` gave (`typed`), looked up in the algorithm table; an unknown one is refused
/// with the list of valid names, in cksum's order.
fn cksum_name(typed: &[u8]) -> Result<(&'static CksumName, Algorithm), Error> {
    if let Some(found) = cksum_names()
        .iter()
        .find(|(name, _)| name.name.as_bytes() == typed)
    {
        return Ok(*found);
    }
    // gnulib's argmatch_invalid and argmatch_valid, which quote with quote().
    let valid: String = cksum_names()
        .iter()
        .map(|(name, _)| format!("\n  - {}", quote_arg(name.name)))
        .collect();
    Err(refusal(
        format!(
            "invalid argument {} for {}\nValid arguments are:{valid}",
            quote_arg(typed),
            quote_arg("--algorithm")
        ),
        true,
    ))
}

/// The algorithm `name` (of table row `row`) comes to with `-l`, and whether `--check` takes
/// each line's length instead.
fn cksum_algorithm(
    shown_name: &str,
    given: &Typed,
    name: &CksumName,
    row: Algorithm,
) -> Result<(Algorithm, bool), Error> {
    let blake2b = matches!(row, Algorithm::Blake2b(_));
    // -l 0 means the default length, so any algorithm takes it; another length only these.
    if length_value(given)?.is_some_and(|bits| bits != 0) && !(blake2b || name.family) {
        return Err(refusal(
            "--length is only supported with --algorithm blake2b, sha2, or sha3",
            false,
        ));
    }
    let bits = length(shown_name, given, name.family)?;
    if blake2b {
        let algorithm =
            Algorithm::blake2b_bits(bits.unwrap_or(512)).expect("length() checked the bits");
        return Ok((algorithm, given.check));
    }
    if !name.family {
        return Ok((row, false));
    }
    // sha2 and sha3: -l is required, but not with --check, which reads each line's length
    // (starting from the row's member).
    let length_given = given.length.is_some();
    let member = match bits {
        None if given.check && !length_given => Some(row),
        None if !length_given => {
            return Err(refusal(
                format!(
                    "--algorithm={} requires specifying --length 224, 256, 384, or 512",
                    name.name
                ),
                false,
            ))
        }
        _ => bits
            .filter(|bits| bits.is_multiple_of(8))
            .and_then(|bits| row.with_length(bits as usize / 8)),
    };
    match member {
        Some(member) => Ok((member, given.check)),
        None => Err(refusal(
            format!(
                "{}\n{shown_name}: digest length for {} must be 224, 256, 384, or 512",
                invalid_length(given),
                quote_arg(name.tag)
            ),
            false,
        )),
    }
}

/// What cksum refuses once it knows its algorithm, before anything else but the length, in
/// the order it tests them.
fn refuse_cksum_combinations(
    given: &Typed,
    named: bool,
    algorithm: Algorithm,
) -> Result<(), Error> {
    if given.check && named && algorithm.info().with_size {
        return Err(refusal(
            "--check is not supported with --algorithm={bsd,sysv,crc,crc32b}",
            false,
        ));
    }
    if given.base64 && given.raw {
        return Err(refusal("--base64 and --raw are mutually exclusive", true));
    }
    Ok(())
}

/// What cksum refuses after md5sum's refusals of options meaningful only with `--check`, in
/// coreutils 9.11's order and words (`--raw` of several files even with `--check`).
fn refuse_cksum_last(given: &Typed) -> Result<(), Error> {
    if !given.untagged && given.text {
        return Err(refusal(
            "--text mode is only supported with --untagged",
            true,
        ));
    }
    if given.raw && given.files > 1 {
        return Err(refusal(
            "the --raw option is not supported with multiple files",
            false,
        ));
    }
    Ok(())
}

/// The number `-l` gives, None when not given ([`length_number`]).
fn length_value(given: &Typed) -> Result<Option<u64>, Error> {
    given.length.map(length_number).transpose()
}

/// `-l`'s argument (`typed`) read as xnumtoimax reads it in coreutils 9.11: optional leading
/// blanks and a sign, decimal digits, nothing after; a number too large for the integer is
/// clamped quietly to the maximum (which the checks after refuse with their own message), and
/// one below zero is refused with the error xnumtoimax gives it (`-0` is 0).
fn length_number(typed: &[u8]) -> Result<u64, Error> {
    let text = String::from_utf8_lossy(typed);
    let trimmed = text.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let (negative, digits) = match trimmed.strip_prefix('-') {
        Some(digits) => (true, digits),
        None => (false, trimmed.strip_prefix('+').unwrap_or(trimmed)),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(refusal(invalid_length_of(typed), false));
    }
    if negative && digits.bytes().any(|b| b != b'0') {
        let message = format!(
            "{}: Value too large for defined data type",
            invalid_length_of(typed)
        );
        return Err(refusal(message, false));
    }
    Ok(digits.parse().unwrap_or(u64::MAX))
}

/// `invalid length: ‘TEXT’`, the argument of `-l` quoted as coreutils' quote() does it.
fn invalid_length(given: &Typed) -> String {
    invalid_length_of(given.length.unwrap_or_default())
}

fn invalid_length_of(typed: &[u8]) -> String {
    format!("invalid length: {}", quote_arg(typed))
}

/// `-l BITS` as coreutils reads it: a decimal number (0 means the default), at most 512 and a
/// multiple of 8 for BLAKE2b (for a `family`, its members decide). None when not given or 0.
fn length(shown_name: &str, given: &Typed, family: bool) -> Result<Option<u32>, Error> {
    let Some(bits) = length_value(given)? else {
        return Ok(None);
    };
    if bits == 0 {
        return Ok(None);
    }
    if family {
        return Ok(Some(u32::try_from(bits).unwrap_or(u32::MAX)));
    }
    if bits > 512 {
        return Err(refusal(
            format!(
                "{}\n{shown_name}: maximum digest length for {} is 512 bits",
                invalid_length(given),
                quote_arg("BLAKE2b")
            ),
            false,
        ));
    }
    if !bits.is_multiple_of(8) {
        return Err(refusal(
            format!(
                "{}\n{shown_name}: length is not a multiple of 8",
                invalid_length(given)
            ),
            false,
        ));
    }
    Ok(Some(bits as u32))
}

/// The options b2sum's and cksum's `--help` share, from `-c` on. (No line continuation
/// before the first option: it would eat the indent.)
const CHECK_OPTIONS: &str = "  -c, --check           read checksums from the FILEs and check them
      --tag             write BSD-style lines: ALGORITHM (FILE) = DIGEST
  -z, --zero            end each output line with NUL, not newline, and do not
                          escape file names

With --check:
      --ignore-missing  do not fail or report for missing files
      --quiet           do not print OK for each verified file
      --status          print nothing; the exit status tells
      --strict          exit non-zero for improperly formatted lines
  -w, --warn            warn about improperly formatted lines
";

/// sum's `--help`, for `program` as typed.
fn sum_help(program: &str, _: Algorithm) -> String {
    with_help_and_version(
        program,
        "\
Usage: PROGRAM [OPTION]... [FILE]...
Print the checksum and the size in blocks of each FILE.

With no FILE, or when FILE is -, read standard input.
  -r              the BSD checksum, in 1 KiB blocks (the default)
  -s, --sysv      the System V checksum, in 512-byte blocks
",
    )
}

/// b2sum's `--help`, for `program` as typed.
fn b2sum_help(program: &str, _: Algorithm) -> String {
    with_help_and_version(
        program,
        &format!(
            "\
Usage: PROGRAM [OPTION]... [FILE]...
Print or check BLAKE2b checksums (512 bits unless -l says otherwise).

With no FILE, or when FILE is -, read standard input.
  -b, --binary          mark lines as read in binary mode (`*` before the name)
  -l, --length=BITS     the digest's length in bits: a multiple of 8, at most 512
  -t, --text            read in text mode (the default)
{CHECK_OPTIONS}"
        ),
    )
}

/// cksum's `--help`, for `program` as typed.
fn cksum_help(program: &str, _: Algorithm) -> String {
    with_help_and_version(
        program,
        &format!(
            "\
Usage: PROGRAM [OPTION]... [FILE]...
Print or verify checksums; by default cksum's 32-bit CRC and each FILE's size.

With no FILE, or when FILE is -, read standard input.
  -a, --algorithm=NAME  bsd, sysv, crc (the default), crc32b, md5, sha1, sha224,
                          sha256, sha384, sha512, sha2, sha3, blake2b, sm3
      --base64          write digests in base64, not hex
      --debug           name the kernel each algorithm runs on
  -l, --length=BITS     the digest's length: 224, 256, 384 or 512 for sha2 and
                          sha3; a multiple of 8 up to 512 for blake2b
      --raw             write the digest's bytes, not text (one FILE only)
      --untagged        write GNU-style lines: DIGEST  FILE
{CHECK_OPTIONS}
The algorithms -a takes, one a line (scripts read this list):
  sysv      the System V checksum and block count (sum -s)
  bsd       the BSD checksum and block count (sum -r)
  crc       the POSIX cksum CRC and size (the default)
  crc32b    the CRC-32 of zlib and Ethernet, and size
  md5       MD5 (md5sum)
  sha1      SHA-1 (sha1sum)
  sha2      SHA-224, SHA-256, SHA-384 or SHA-512, by -l (sha224sum and others)
  sha3      SHA3-224, SHA3-256, SHA3-384 or SHA3-512, by -l
  blake2b   BLAKE2b (b2sum)
  sm3       SM3
"
        ),
    )
}

/// A `--help` text (`PROGRAM` standing for the program as typed) and the lines every one ends
/// with.
fn with_help_and_version(program: &str, text: &str) -> String {
    let own = program.rsplit('/').next().unwrap_or(program);
    format!(
        "{}
      --help        display this help and exit
      --version     output version information and exit

This is fasthash {} running as {own}.
",
        text.replace("PROGRAM", program),
        env!("CARGO_PKG_VERSION")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cksum(given: Typed) -> Result<Resolved, String> {
        resolve_cksum("cksum", &given).map_err(|error| match error {
            Error::Usage { message, .. } => message,
            other => panic!("not a usage error: {other:?}"),
        })
    }

    #[test]
    fn a_family_takes_its_member_from_the_length_or_from_each_line() {
        let sha2_384 = Typed {
            algorithm: Some(b"sha2"),
            length: Some(b"384"),
            ..Typed::default()
        };
        let resolved = cksum(sha2_384).unwrap();
        assert_eq!(resolved.algorithm, Some(Algorithm::Sha384));
        assert_eq!(
            (resolved.type_name, resolved.retag),
            ("SHA2", Retag::Sha2Family)
        );
        let checking = Typed {
            algorithm: Some(b"sha3"),
            check: true,
            ..Typed::default()
        };
        let resolved = cksum(checking).unwrap();
        assert_eq!(resolved.algorithm, Some(Algorithm::Sha3_256));
        assert!(resolved.any_length);
        let without_length = Typed {
            algorithm: Some(b"sha3"),
            ..Typed::default()
        };
        assert_eq!(
            cksum(without_length).unwrap_err(),
            "--algorithm=sha3 requires specifying --length 224, 256, 384, or 512"
        );
    }

    #[test]
    fn without_a_cksum_is_the_crc_and_a_check_reads_each_tag() {
        let resolved = cksum(Typed::default()).unwrap();
        assert_eq!(resolved.algorithm, Some(Algorithm::Crc));
        assert!(resolved.tagged);
        let checking = Typed {
            check: true,
            ..Typed::default()
        };
        let resolved = cksum(checking).unwrap();
        assert_eq!(resolved.algorithm, None);
        assert_eq!(
            (resolved.type_name, resolved.retag),
            ("CRC", Retag::EveryTag)
        );
    }
}
