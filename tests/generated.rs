//! The committed man page and completions are what the binary generates now: a change to the
//! command line that forgot `fasthash --generate` fails here, naming the command that fixes it.

use crate::common;

#[test]
fn committed_man_page_and_completions_are_current() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (what, path) in fasthash::generate::TARGETS {
        let output = common::fasthash(repo).args(["--generate", what]).output();
        assert_eq!(output.status.code(), Some(0), "--generate {what}");
        let committed = std::fs::read(repo.join(path)).unwrap_or_default();
        assert!(
            committed == output.stdout,
            "{path} is stale: run `cargo run -- --generate {what} > {path}`"
        );
    }
}

/// The man page's sections: each `.SH` heading (quotes dropped) with the lines under it.
fn man_sections(page: &str) -> Vec<(String, Vec<&str>)> {
    let mut sections: Vec<(String, Vec<&str>)> = Vec::new();
    for line in page.lines() {
        match line.strip_prefix(".SH ") {
            Some(heading) => sections.push((heading.trim_matches('"').to_string(), Vec::new())),
            None => {
                if let Some((_, lines)) = sections.last_mut() {
                    lines.push(line);
                }
            }
        }
    }
    sections
}

/// roff text back to words: escapes of hyphens, backslashes, quotes and fonts undone.
fn plain(roff: &str) -> String {
    roff.replace("\\-", "-")
        .replace("\\e", "\\")
        .replace("\\*(Aq", "'")
        .replace("\\&", "")
        .replace("\\fB", "")
        .replace("\\fI", "")
        .replace("\\fR", "")
}

#[test]
fn man_page_has_examples_and_no_help_leftovers() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = common::fasthash(repo).args(["--generate", "man"]).output();
    let page = common::text(&output.stdout);
    let sections = man_sections(&page);
    let headings: Vec<&str> = sections.iter().map(|(h, _)| h.as_str()).collect();
    for wanted in [
        "NAME",
        "SYNOPSIS",
        "DESCRIPTION",
        "OPTIONS",
        "EXAMPLES",
        "DROP-IN NAMES",
    ] {
        assert_eq!(
            headings.iter().filter(|h| **h == wanted).count(),
            1,
            "{wanted} once: {headings:?}"
        );
    }
    // --help's closing text is not dumped in as one section.
    assert!(!headings.contains(&"EXTRA"), "{headings:?}");

    // Each example: a .TP, the command in bold, what it does.
    let (_, examples) = sections.iter().find(|(h, _)| h == "EXAMPLES").unwrap();
    let commands: Vec<String> = examples
        .windows(2)
        .filter(|pair| pair[0] == ".TP")
        .map(|pair| plain(pair[1]))
        .collect();
    assert!(commands.len() >= 10, "{commands:?}");
    assert!(
        commands.contains(&"fasthash -c SHA256SUMS".to_string()),
        "{commands:?}"
    );
    assert!(
        commands.contains(&"fasthash --bench".to_string()),
        "{commands:?}"
    );

    // The page does not send its reader to itself, and says the drop-in names once.
    let words = plain(&page);
    assert!(!words.contains("man fasthash"), "the page points to itself");
    assert_eq!(words.matches("Started as md5sum").count(), 1);
    assert_eq!(page.matches(".el .ds Aq").count(), 1, "one roff preamble");

    // FILE is the operand: in SYNOPSIS and DESCRIPTION, never an entry among the options.
    for (heading, lines) in &sections {
        let entries = lines
            .windows(2)
            .filter(|pair| pair[0] == ".TP")
            .map(|pair| plain(pair[1]));
        for entry in entries {
            assert!(
                !entry.trim_start_matches('[').starts_with("FILE"),
                "{heading} lists {entry}"
            );
        }
    }
    let description = &sections.iter().find(|(h, _)| h == "DESCRIPTION").unwrap().1;
    assert!(
        description
            .iter()
            .any(|l| plain(l).starts_with("FILE: Files to hash")),
        "{description:?}"
    );
    let synopsis = &sections.iter().find(|(h, _)| h == "SYNOPSIS").unwrap().1;
    assert!(synopsis.concat().contains("\\fIFILE\\fR"), "{synopsis:?}");
}
