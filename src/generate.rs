//! The generated files: the man page and shell completions, made from clap's definition so
//! they never drift from `--help`. `fasthash --generate WHAT` prints one; `man/` and
//! `completions/` hold the committed copies, and a test fails when they differ.

use crate::cli::Cli;
use clap::CommandFactory;
use clap_complete::Shell;
use std::io::Write;

/// Each target: its `--generate` name and its path in the repository.
pub const TARGETS: &[(&str, &str)] = &[
    ("man", "man/fasthash.1"),
    ("complete-bash", "completions/fasthash.bash"),
    ("complete-zsh", "completions/_fasthash"),
    ("complete-fish", "completions/fasthash.fish"),
    ("complete-elvish", "completions/fasthash.elv"),
    ("complete-powershell", "completions/_fasthash.ps1"),
];

/// The text of one target, or `None` for an unknown name.
pub fn generate(what: &str) -> Option<Vec<u8>> {
    let mut command = Cli::command();
    let mut out = Vec::new();
    let shell = match what {
        "man" => return Some(man_page()),
        "complete-bash" => Shell::Bash,
        "complete-zsh" => Shell::Zsh,
        "complete-fish" => Shell::Fish,
        "complete-elvish" => Shell::Elvish,
        "complete-powershell" => Shell::PowerShell,
        _ => return None,
    };
    clap_complete::generate(shell, &mut command, "fasthash", &mut out);
    Some(out)
}

/// The man page: clap_mangen's sections, but FILE described in DESCRIPTION and not as an
/// option, `--help`'s examples as an EXAMPLES section, and fasthash's own closing sections
/// instead of `--help`'s closing text (which would repeat them, and point to this very page).
fn man_page() -> Vec<u8> {
    let command = Cli::command();
    let man = clap_mangen::Man::new(command.clone());
    let options = clap_mangen::Man::new(command.clone().mut_arg("files", |arg| arg.hide(true)));
    let mut out = Vec::new();
    section(&mut out, |w| man.render_title(w));
    section(&mut out, |w| man.render_name_section(w));
    section(&mut out, |w| man.render_synopsis_section(w));
    section(&mut out, |w| man.render_description_section(w));
    if let Some(files) = command
        .get_arguments()
        .find(|arg| arg.get_id() == "files")
        .and_then(|arg| arg.get_help())
    {
        let text = format!(".PP\n\\fIFILE\\fR: {}.\n", roff(&files.to_string()));
        section(&mut out, |w| w.write_all(text.as_bytes()));
    }
    section(&mut out, |w| options.render_options_section(w));
    out.extend_from_slice(b".SH EXAMPLES\n");
    for (command, what) in crate::cli::EXAMPLES {
        out.extend_from_slice(
            format!(".TP\n\\fB{}\\fR\n{}\n", roff(command), roff(what)).as_bytes(),
        );
    }
    out.extend_from_slice(b".SH \"DROP-IN NAMES\"\n");
    out.extend_from_slice(roff(crate::cli::DROP_IN).as_bytes());
    out.push(b'\n');
    out.extend_from_slice(EXTRA_SECTIONS.as_bytes());
    section(&mut out, |w| man.render_version_section(w));
    out
}

/// Appends what `render` writes to the page in `out`. Each section clap_mangen renders on its
/// own starts with roff's quote-string definition; the page needs it once, at the top.
fn section(out: &mut Vec<u8>, render: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) {
    let mut text = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = render(&mut text);
    let body = match out.is_empty() {
        true => &text[..],
        false => text.strip_prefix(ROFF_PREAMBLE).unwrap_or(&text),
    };
    out.extend_from_slice(body);
}

/// What clap_mangen puts before every section it renders.
const ROFF_PREAMBLE: &[u8] = b".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n";

/// Text as roff prints it: backslashes and hyphens escaped, no line taken for a request.
fn roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    let lines: Vec<String> = escaped
        .lines()
        .map(|line| match line.starts_with(['.', '\'']) {
            true => format!("\\&{line}"),
            false => line.to_string(),
        })
        .collect();
    lines.join("\n")
}

const EXTRA_SECTIONS: &str = r#".SH "EXIT STATUS"
.TP
\fB0\fR
Every input was hashed; with \fB\-c\fR, every listed file verified; with \fB\-\-verify\-s3\fR,
every field that could be checked matched.
.TP
\fB1\fR
An input could not be read or changed while it was read, a checksum did not match, or the
output could not be written.
.TP
\fB2\fR
A usage error, or (\fB\-\-verify\-s3\fR) JSON that cannot be read. Under a coreutils drop\-in
name a usage error exits 1, as coreutils does.
.SH "ENVIRONMENT"
.TP
\fBFASTHASH_KERNEL\fR
Forces kernels instead of the fastest this CPU runs, for bug reports and tests. A
comma\-separated list of \fIKERNEL\fR (every algorithm that has that kernel) or
\fIALGORITHM\fR=\fIKERNEL\fR entries; later entries win. \fBportable\fR forces plain code that
uses no CPU extension, for every algorithm. \fBfasthash \-\-list\-kernels\fR shows the kernels
(portable, sha\-ext, ring\-asm, simd, avx2, avx512, clmul, vpclmulqdq), which of them this CPU
runs and the one in use; \fB\-\-debug\fR names the kernel at each run. An unknown kernel, or one
this CPU cannot run, is a usage error (exit 2), never a silent fallback. Whatever is chosen or
forced is checked the first time it is used against the portable kernel on known messages; a
kernel that fails is reported once on standard error and replaced by the portable one.
.SH "CAVEATS"
Files of 4 MiB and more, and on one thread files from 128 KiB hashed side by side, are
mapped into memory (\fB\-\-no\-mmap\fR reads them instead). A file
that is truncated, extended or rewritten while fasthash hashes it is reported as
\fIfile changed as we read it\fR (exit 1), never printed with a digest; a mapping whose file
shrinks does not kill the process. A file that changes between two runs is simply a
different file.
.SH "SEE ALSO"
\fBsha256sum\fR(1), \fBcksum\fR(1), \fBb3sum\fR(1), \fBxxhsum\fR(1)
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_generates() {
        for (name, _) in TARGETS {
            let text = generate(name).unwrap();
            assert!(text.len() > 1000, "{name} is too short");
        }
        assert!(generate("nothing").is_none());
    }

    #[test]
    fn completions_offer_algorithm_names() {
        let bash = String::from_utf8(generate("complete-bash").unwrap()).unwrap();
        for name in ["sha256", "blake3", "crc64nvme", "xxh128"] {
            assert!(bash.contains(name), "bash completion lacks {name}");
        }
    }
}
