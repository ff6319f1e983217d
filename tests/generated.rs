//! The committed man page and completions are what the binary generates now: a change to the
//! command line that forgot `fasthash --generate` fails here, naming the command that fixes it.

mod common;

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
