//! The texts about kernels: the `--list-kernels` table and the `--debug` line.

use crate::kernels::detect::{Capabilities, FORCE_VARIABLE};
use crate::kernels::{table, Algorithm};
use std::fmt::Write as _;

/// `--list-kernels`: every kernel of every algorithm, whether this CPU runs it, and the one
/// this process uses.
pub fn list(caps: &Capabilities) -> String {
    let mut text = String::new();
    let features = caps.names().join(" ");
    let _ = writeln!(text, "CPU features: {features}");
    let forced = std::env::var(FORCE_VARIABLE).ok();
    match &forced {
        Some(value) => {
            let _ = writeln!(text, "{FORCE_VARIABLE}={value}");
        }
        None => {
            let _ = writeln!(
                text,
                "{FORCE_VARIABLE} is not set: the fastest kernel is used"
            );
        }
    }
    let _ = writeln!(text, "\nalgorithm  kernel     used  source");
    for algorithm in Algorithm::all() {
        let chosen = table::chosen(algorithm);
        for engine in table::of(algorithm) {
            let runs = (engine.runs_on)(caps);
            let used = if std::ptr::eq(engine, chosen) {
                "*"
            } else if runs {
                ""
            } else {
                "-"
            };
            let source = if runs {
                (engine.describe)(caps)
            } else {
                format!("not on this CPU: needs {}", engine.needs)
            };
            let _ = writeln!(
                text,
                "{:<10} {:<10} {:<5} {source}",
                algorithm.name(),
                engine.kernel.name(),
                used
            );
        }
    }
    let _ = writeln!(
        text,
        "\n* used now   - this CPU cannot run it\n\
         Force one with {FORCE_VARIABLE}=KERNEL (every algorithm that has it) or \
         {FORCE_VARIABLE}=ALGORITHM=KERNEL, comma-separated."
    );
    text
}

/// `--debug`: the kernel an algorithm runs and why.
pub fn debug_line(algorithm: Algorithm) -> String {
    let chosen = table::chosen(algorithm);
    let why = if table::forced(algorithm) {
        format!("forced by {FORCE_VARIABLE}")
    } else {
        "chosen for this CPU".to_string()
    };
    format!("{}: kernel {}, {why}", algorithm.name(), chosen.label())
}
