//! md5sum and the sha*sum programs of GNU coreutils, and what every coreutils row of
//! [`super::PROGRAMS`] shares: its rules for `--check`, messages and usage errors, and its
//! `--version`.

use super::CheckDialect;
use super::{GnuProgram, Grammar, LineDialect, MessageName, NameMatch, Program};
use crate::cli::{GnuOption, COREUTILS_OPTIONS};
use crate::error::{ExitStatus, MessageStyle};
use crate::kernels::Algorithm;

/// md5sum's options, help and rules, for any of its algorithms.
const DIGEST_PROGRAM: GnuProgram = GnuProgram {
    options: digest_options,
    resolve: None,
    help: digest_help,
    reads_base64: false,
    refuse_last: None,
};

/// A row for a program that is md5sum with another algorithm.
pub(crate) const fn digest_program(name: &'static str) -> Program {
    program(name, &DIGEST_PROGRAM)
}

/// A coreutils program's row: its name and what sets it apart. Its default algorithm is the
/// one the algorithm table gives the program.
pub(crate) const fn program(name: &'static str, gnu: &'static GnuProgram) -> Program {
    Program {
        name,
        matched: NameMatch::Exact,
        algorithm: Algorithm::of_coreutils_program(name),
        grammar: Grammar::Gnu(gnu),
        check: CheckDialect::Coreutils,
        messages: Some(MessageStyle::Coreutils),
        message_name: MessageName::AsTyped,
        lines: LineDialect::Gnu,
        usage_status: ExitStatus::Failure,
    }
}

fn digest_options() -> Vec<GnuOption> {
    in_coreutils_order(COREUTILS_OPTIONS.to_vec())
}

/// The order of coreutils' `long_options` table (`src/cksum.c`, 9.11), which getopt follows
/// when it lists the options an abbreviation could be: `cksum --b` is ambiguous between
/// `'--base64' '--binary'`, in that order.
const LONG_OPTIONS_ORDER: &[&str] = &[
    "length",
    "check",
    "ignore-missing",
    "quiet",
    "status",
    "warn",
    "strict",
    "tag",
    "zero",
    "algorithm",
    "base64",
    "debug",
    "raw",
    "untagged",
    "binary",
    "text",
];

/// A program's options in coreutils' order ([`LONG_OPTIONS_ORDER`]); any other after them.
pub(crate) fn in_coreutils_order(mut options: Vec<GnuOption>) -> Vec<GnuOption> {
    options.sort_by_key(|option| {
        LONG_OPTIONS_ORDER
            .iter()
            .position(|long| *long == option.long)
            .unwrap_or(LONG_OPTIONS_ORDER.len())
    });
    options
}

/// `--version` of every coreutils name.
pub(crate) fn version(own_name: &str) -> String {
    format!("{own_name} (fasthash) {}\n", env!("CARGO_PKG_VERSION"))
}

/// md5sum's `--help` (and sha*sum's), for `program` as typed.
fn digest_help(program: &str, algorithm: Algorithm) -> String {
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
