//! The programs fasthash stands in for when started under their names. [`PROGRAMS`] has one
//! row per program: how `argv[0]` names it, its default algorithm, how its command line is
//! read, and whose rules its `--check`, messages and lines follow. Each program's command
//! line, defaults and rules, where they differ from fasthash's own, are in its module; what
//! they share (hashing, reading, line formats, manifests) stays in the modules that own it.
pub mod b3sum;
pub mod cksum;
pub mod coreutils;
pub mod xxhsum;
mod xxhsum_bench;

use crate::cli::GnuOption;
use crate::error::{ExitStatus, MessageStyle};
pub use crate::format::LineDialect;
use crate::kernels::Algorithm;
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

/// One program fasthash can be: a row of [`PROGRAMS`]. A personality is a reference to one.
#[derive(Debug)]
pub struct Program {
    /// Its own name, as `argv[0]`'s base name gives it.
    pub name: &'static str,
    pub matched: NameMatch,
    /// What it hashes when its options do not say.
    pub algorithm: Algorithm,
    pub grammar: Grammar,
    pub check: CheckDialect,
    /// How shared messages name files and errors; None for xxhsum, which words all of its own
    /// (`xxhsum.rs`).
    pub messages: Option<MessageStyle>,
    pub message_name: MessageName,
    /// How its digest lines are written (`format::line`).
    pub lines: LineDialect,
    /// The exit status of a usage error: coreutils exits 1, fasthash and b3sum (clap) 2
    /// (xxhsum decides its own).
    pub usage_status: ExitStatus,
}

/// How `argv[0]`'s base name is matched against a row's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameMatch {
    /// The base name is the name.
    Exact,
    /// The base name contains the name, as xxhsum matches its `xxhNNsum` names
    /// (`my-xxh64sum` is xxh64sum).
    Within,
}

/// How a program's command line is read, and who runs it.
#[derive(Clone, Copy, Debug)]
pub enum Grammar {
    /// fasthash's own (clap's `Cli`).
    Fasthash,
    /// A coreutils digest program: GNU getopt over its option table.
    Gnu(&'static GnuProgram),
    /// b3sum's (clap's `B3sumCli`); its keyed, derived-key and extended output is `b3sum.rs`.
    B3sum,
    /// xxhsum's: the whole program (options, lines, `-c`, messages) is `xxhsum::run`.
    /// `only_its_algorithm`: under `xxhNNsum`, `-c` reads only that algorithm's lines.
    Xxhsum { only_its_algorithm: bool },
}

/// What sets one coreutils program apart from md5sum.
pub struct GnuProgram {
    /// Its options (`--help` and `--version` are always there).
    pub(crate) options: fn() -> Vec<GnuOption>,
    /// How b2sum, cksum and sum decide their algorithm, length and line from their options
    /// (`cksum.rs`); None: the row's algorithm and md5sum's lines.
    pub(crate) resolve: Option<cksum::Resolve>,
    /// `--help`, for the program as typed (a path stays a path).
    pub(crate) help: fn(&str, Algorithm) -> String,
    /// Whether `-c` reads digests in base64 (coreutils builds only cksum to read them).
    pub(crate) reads_base64: bool,
    /// What the program refuses in its own words after md5sum's refusals of options
    /// meaningful only with `--check` (cksum's `--text` and `--raw`); None: md5sum's
    /// `--tag`/`--text` refusal.
    pub(crate) refuse_last: Option<cksum::Refuse>,
}

impl std::fmt::Debug for GnuProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GnuProgram")
            .field("resolves", &self.resolve.is_some())
            .field("reads_base64", &self.reads_base64)
            .finish()
    }
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
    /// xxhsum's lines, words and stops; `little_endian`: `--little-endian`, untagged digests
    /// are read in little-endian byte order.
    Xxhsum { little_endian: bool },
}

/// The name messages start with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageName {
    /// `argv[0]` as typed, as coreutils names itself (a path stays a path).
    AsTyped,
    /// `argv[0]`'s base name, as xxhsum names itself.
    BaseName,
    /// The row's name, whatever the link is called (fasthash and b3sum).
    Own,
}

/// The programs fasthash stands in for, and fasthash itself (the first row: any name no row
/// matches is fasthash).
pub static PROGRAMS: &[Program] = &[
    Program {
        name: "fasthash",
        matched: NameMatch::Exact,
        algorithm: Algorithm::Sha256,
        grammar: Grammar::Fasthash,
        check: CheckDialect::Fasthash,
        messages: Some(MessageStyle::Coreutils),
        message_name: MessageName::Own,
        lines: LineDialect::Gnu,
        usage_status: ExitStatus::Usage,
    },
    coreutils::digest_program("md5sum"),
    coreutils::digest_program("sha1sum"),
    coreutils::digest_program("sha224sum"),
    coreutils::digest_program("sha256sum"),
    coreutils::digest_program("sha384sum"),
    coreutils::digest_program("sha512sum"),
    coreutils::program("b2sum", &cksum::B2SUM),
    coreutils::program("cksum", &cksum::CKSUM),
    coreutils::program("sum", &cksum::SUM),
    Program {
        name: "b3sum",
        matched: NameMatch::Exact,
        algorithm: Algorithm::Blake3,
        grammar: Grammar::B3sum,
        check: CheckDialect::B3sum,
        messages: Some(MessageStyle::B3sum),
        message_name: MessageName::Own,
        lines: LineDialect::B3sum,
        usage_status: ExitStatus::Usage,
    },
    xxhsum::program("xxh32sum", Algorithm::Xxh32, true),
    xxhsum::program("xxh64sum", Algorithm::Xxh64, true),
    xxhsum::program("xxh128sum", Algorithm::Xxh128, true),
    xxhsum::program("xxh3sum", Algorithm::Xxh3, true),
    xxhsum::program("xxhsum", Algorithm::Xxh64, false),
];

/// fasthash itself.
pub fn fasthash() -> &'static Program {
    &PROGRAMS[0]
}

impl Program {
    /// The row `argv[0]` names (a symbolic link's name): the first whose name matches its base
    /// name, else fasthash.
    pub fn from_argv0(argv0: Option<&OsString>) -> &'static Program {
        Program::named(argv0.map(|argv0| argv0.as_bytes()))
    }

    /// [`Program::from_argv0`] of `argv[0]`'s bytes. It allocates nothing: `main.rs` asks it
    /// before Rust's runtime starts, where memory may be too short for it to start.
    pub fn named(argv0: Option<&[u8]>) -> &'static Program {
        let Some(argv0) = argv0 else {
            return fasthash();
        };
        let base = base_name(argv0);
        PROGRAMS
            .iter()
            .find(|program| program.answers_to(base))
            .unwrap_or(fasthash())
    }

    fn answers_to(&self, base: &[u8]) -> bool {
        let name = self.name.as_bytes();
        match self.matched {
            NameMatch::Exact => base == name,
            NameMatch::Within => base.windows(name.len()).any(|w| w == name),
        }
    }

    /// The name its messages start with.
    pub fn message_name(&self, argv0: Option<&OsString>) -> String {
        let argv0 = argv0.map(|argv0| argv0.as_bytes());
        String::from_utf8_lossy(self.message_name_in(argv0)).into_owned()
    }

    /// [`Program::message_name`] as the bytes of `argv0` it is (or the row's name), allocating
    /// nothing.
    pub fn message_name_in<'a>(&self, argv0: Option<&'a [u8]>) -> &'a [u8] {
        match (self.message_name, argv0) {
            (MessageName::AsTyped, Some(argv0)) => argv0,
            (MessageName::BaseName, Some(argv0)) => base_name(argv0),
            _ => self.name.as_bytes(),
        }
    }

    pub fn is_fasthash(&self) -> bool {
        matches!(self.grammar, Grammar::Fasthash)
    }

    /// A coreutils program (md5sum and the others of [`Grammar::Gnu`]).
    pub fn is_coreutils(&self) -> bool {
        matches!(self.grammar, Grammar::Gnu(_))
    }

    /// The style of shared messages (coreutils' for the rows that word their own).
    pub fn message_style(&self) -> MessageStyle {
        self.messages.unwrap_or(MessageStyle::Coreutils)
    }

    /// What the program refuses in its own words after the refusals every coreutils name
    /// shares ([`GnuProgram::refuse_last`]).
    pub(crate) fn refuse_last(&self) -> Option<cksum::Refuse> {
        match self.grammar {
            Grammar::Gnu(gnu) => gnu.refuse_last,
            _ => None,
        }
    }

    /// Whether `--check` reads digests in base64: fasthash's and cksum's.
    pub fn reads_base64(&self) -> bool {
        match self.grammar {
            Grammar::Fasthash => true,
            Grammar::Gnu(gnu) => gnu.reads_base64,
            Grammar::B3sum | Grammar::Xxhsum { .. } => false,
        }
    }
}

fn base_name(path: &[u8]) -> &[u8] {
    path.rsplit(|&b| b == b'/').next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(argv0: &str) -> &'static Program {
        Program::from_argv0(Some(&OsString::from(argv0)))
    }

    #[test]
    fn a_row_comes_from_the_base_name() {
        assert_eq!(row("/usr/local/bin/sha512sum").name, "sha512sum");
        assert_eq!(row("/usr/local/bin/sha512sum").algorithm, Algorithm::Sha512);
        assert_eq!(row("b3sum").name, "b3sum");
        assert!(row("./fasthash").is_fasthash());
        assert!(row("sha256sum.exe").is_fasthash());
        assert!(Program::from_argv0(None).is_fasthash());
    }

    #[test]
    fn xxhsum_names_match_within_and_xxhsum_itself_exactly() {
        assert_eq!(row("/opt/my-xxh128sum-v2").algorithm, Algorithm::Xxh128);
        assert_eq!(row("xxh3sum").algorithm, Algorithm::Xxh3);
        assert_eq!(row("xxh32sum").algorithm, Algorithm::Xxh32);
        assert_eq!(row("xxhsum").algorithm, Algorithm::Xxh64);
        assert!(row("my-xxhsum").is_fasthash());
        assert_eq!(
            row("/bin/xxh64sum").message_name(Some(&OsString::from("/bin/xxh64sum"))),
            "xxh64sum"
        );
    }

    #[test]
    fn no_two_rows_answer_to_one_name() {
        for program in PROGRAMS {
            let answering: Vec<_> = PROGRAMS
                .iter()
                .filter(|other| other.answers_to(program.name.as_bytes()))
                .map(|other| other.name)
                .collect();
            assert_eq!(answering, [program.name]);
        }
    }
}
