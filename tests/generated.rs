//! The committed man page and completions are what the binary generates now: a change to the
//! command line that forgot `fasthash --generate` fails here, naming the command that fixes it.

use std::process::Command;

const FASTHASH: &str = env!("CARGO_BIN_EXE_fasthash");

#[test]
fn committed_man_page_and_completions_are_current() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (what, path) in fasthash::generate::TARGETS {
        let output = Command::new(FASTHASH)
            .args(["--generate", what])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "--generate {what}");
        let committed = std::fs::read(repo.join(path)).unwrap_or_default();
        assert!(
            committed == output.stdout,
            "{path} is stale: run `cargo run -- --generate {what} > {path}`"
        );
    }
}
