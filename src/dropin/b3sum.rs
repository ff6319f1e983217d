//! b3sum's extended output: `--keyed`, `--derive-key`, `--length`, `--seek` and `--raw`. A
//! plain BLAKE3 digest goes through fasthash's own pipeline like every other algorithm; these
//! modes are other functions (a keyed hash, a derived key) or other lengths of BLAKE3's
//! extendable output, so they are computed here on the blake3 crate, the way b3sum computes
//! them: files mapped and hashed on every core unless `--no-mmap`, the output streamed 64
//! bytes at a time so that any `--length` takes constant memory.

use crate::cli::B3sumCli;
use crate::error::ExitStatus;
use crate::format::escape::{escape_name, needs_escape};
use crate::kernels::Digest;
use std::ffi::{OsStr, OsString};
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

impl B3sumCli {
    /// Whether the command line asks for more than a plain 32-byte BLAKE3 digest. Never with
    /// `--check`, which goes through the check like every program's (b3sum refuses the other
    /// options beside it, and `--seek` is where each file's output is compared from).
    pub fn wants_extended_output(&self) -> bool {
        !self.check
            && (self.keyed
                || self.derive_key.is_some()
                || self.length != 32
                || self.seek != 0
                || self.raw)
    }
}

/// Runs b3sum with extended output to its exit status, printing what b3sum prints.
pub fn run(cli: &B3sumCli) -> ExitStatus {
    let files: Vec<OsString> = if cli.files.is_empty() {
        vec![OsString::from("-")]
    } else {
        cli.files.clone()
    };
    if cli.raw && files.len() > 1 {
        crate::report::write_stderr(b"Error: Only one filename can be provided when using --raw\n");
        return ExitStatus::Failure;
    }
    let base = if cli.keyed {
        match read_key() {
            Ok(key) => blake3::Hasher::new_keyed(&key),
            Err(message) => {
                crate::report::write_stderr(format!("Error: {message}\n").as_bytes());
                return ExitStatus::Failure;
            }
        }
    } else if let Some(context) = &cli.derive_key {
        blake3::Hasher::new_derive_key(context)
    } else {
        blake3::Hasher::new()
    };
    crate::io::parallel::configure_threads(
        cli.num_threads
            .map(usize::from)
            .unwrap_or_else(crate::io::parallel::default_threads),
    );
    crate::io::parallel::in_pool(|| hash_and_print(cli, &base, &files))
}

/// Each file's line, in order, as b3sum prints them; the status of the run.
fn hash_and_print(cli: &B3sumCli, base: &blake3::Hasher, files: &[OsString]) -> ExitStatus {
    let mut out = io::BufWriter::new(io::stdout().lock());
    let mut failed = false;
    for file in files {
        let result = hash(cli, base, file).and_then(|output| write(cli, &mut out, file, output));
        match result {
            Ok(()) => {}
            Err(Failure::Write(e)) => {
                if e.kind() != io::ErrorKind::BrokenPipe {
                    crate::report::write_stderr(format!("Error: {e}\n").as_bytes());
                }
                return ExitStatus::Failure;
            }
            Err(Failure::Input(message)) => {
                failed = true;
                // What was written so far goes first, as b3sum's unbuffered output would.
                if let Err(e) = out.flush() {
                    if e.kind() != io::ErrorKind::BrokenPipe {
                        crate::report::write_stderr(format!("Error: {e}\n").as_bytes());
                    }
                    return ExitStatus::Failure;
                }
                crate::report::write_stderr(
                    format!("b3sum: {}: {message}\n", file.to_string_lossy()).as_bytes(),
                );
            }
        }
    }
    match out.flush() {
        Ok(()) if !failed => ExitStatus::Success,
        Ok(()) => ExitStatus::Failure,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitStatus::Failure,
        Err(e) => {
            crate::report::write_stderr(format!("Error: {e}\n").as_bytes());
            ExitStatus::Failure
        }
    }
}

enum Failure {
    /// The input could not be hashed: reported, the run goes on.
    Input(String),
    /// Standard output failed: the run ends.
    Write(io::Error),
}

/// The key of `--keyed`: exactly 32 bytes on standard input.
fn read_key() -> Result<[u8; 32], String> {
    let stdin = crate::io::stdin().map_err(|e| e.to_string())?;
    let mut key = Vec::with_capacity(33);
    stdin
        .take(33)
        .read_to_end(&mut key)
        .map_err(|e| e.to_string())?;
    match key.len() {
        32 => Ok(key.try_into().expect("32 bytes")),
        n if n < 32 => Err(format!("expected 32 key bytes from stdin, found {n}")),
        _ => Err("read more than 32 key bytes from stdin".into()),
    }
}

fn hash(
    cli: &B3sumCli,
    base: &blake3::Hasher,
    file: &OsStr,
) -> Result<blake3::OutputReader, Failure> {
    let mut hasher = base.clone();
    let input = |e: io::Error| Failure::Input(e.to_string());
    if file == "-" {
        if cli.keyed {
            return Err(Failure::Input("Cannot open `-` in keyed mode".into()));
        }
        hasher
            .update_reader(crate::io::stdin().map_err(input)?)
            .map_err(input)?;
    } else if cli.no_mmap {
        hasher
            .update_reader(crate::io::long_paths::open_file(Path::new(file)).map_err(input)?)
            .map_err(input)?;
    } else {
        hasher.update_mmap_rayon(Path::new(file)).map_err(input)?;
    }
    Ok(output_from(&hasher, cli.seek))
}

/// `hasher`'s output stream, positioned at byte `seek` (`--seek`).
fn output_from(hasher: &blake3::Hasher, seek: u64) -> blake3::OutputReader {
    let mut output = hasher.finalize_xof();
    output.set_position(seek);
    output
}

fn write(
    cli: &B3sumCli,
    out: &mut impl Write,
    file: &OsStr,
    mut output: blake3::OutputReader,
) -> Result<(), Failure> {
    let written = (|| {
        if cli.raw {
            io::copy(&mut output.take(cli.length), out)?;
            return Ok(());
        }
        if cli.no_names {
            write_hex(out, &mut output, cli.length)?;
            return out.write_all(b"\n");
        }
        // b3sum's names: lossy UTF-8, backslash, newline and CR escaped behind a leading `\`.
        let lossy = String::from_utf8_lossy(file.as_bytes());
        let name = escape_name(lossy.as_bytes());
        if needs_escape(lossy.as_bytes()) {
            out.write_all(b"\\")?;
        }
        if cli.tag {
            out.write_all(b"BLAKE3 (")?;
            out.write_all(&name)?;
            out.write_all(b") = ")?;
            write_hex(out, &mut output, cli.length)?;
            return out.write_all(b"\n");
        }
        write_hex(out, &mut output, cli.length)?;
        out.write_all(b"  ")?;
        out.write_all(&name)?;
        out.write_all(b"\n")
    })();
    written.map_err(Failure::Write)
}

/// `len` bytes of output as lowercase hex, 64 bytes at a time.
fn write_hex(out: &mut impl Write, output: &mut blake3::OutputReader, len: u64) -> io::Result<()> {
    let mut remaining = len;
    let mut block = [0u8; 64];
    while remaining > 0 {
        let take = remaining.min(64) as usize;
        output.fill(&mut block[..take]);
        out.write_all(Digest::from_slice(&block[..take]).to_hex().as_bytes())?;
        remaining -= take as u64;
    }
    Ok(())
}

/// BLAKE3's 32 output bytes from the field's byte of its output stream on: what `b3sum
/// --check --seek` compares a listed file's digest with (b3sum positions the output reader
/// before it reads the 32 bytes). Hashed on the blake3 crate as the extended output is, and
/// never kept in `--cache`, which holds plain digests.
pub(crate) struct OutputAt(pub u64);

impl OutputAt {
    /// The 32 bytes at this position of `hasher`'s output.
    fn bytes_of(&self, hasher: &blake3::Hasher) -> Digest {
        let mut bytes = [0u8; blake3::OUT_LEN];
        output_from(hasher, self.0).fill(&mut bytes);
        Digest::from_slice(&bytes)
    }
}

impl crate::io::read::Hashing for OutputAt {
    type Output = Digest;

    fn reader(&self, reader: impl Read) -> io::Result<Digest> {
        let mut hasher = blake3::Hasher::new();
        hasher.update_reader(reader)?;
        Ok(self.bytes_of(&hasher))
    }

    fn buffer(&self, bytes: &[u8]) -> Digest {
        self.bytes_of(blake3::Hasher::new().update(bytes))
    }

    fn mapping(
        &self,
        mapping: &crate::io::mapped::Mapping,
        file: &std::fs::File,
        options: &crate::io::read::ReadOptions,
    ) -> Digest {
        let hasher = crate::io::large::blake3_hasher_of(mapping, file, options.split_files);
        self.bytes_of(&hasher)
    }

    fn cached(&self, _: &crate::io::cache::Cache, _: &std::fs::Metadata) -> Option<Digest> {
        None
    }

    fn remember(&self, _: &crate::io::cache::Cache, _: &std::fs::Metadata, _: &Digest) {}
}
