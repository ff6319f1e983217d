//! The texts about kernels: the `--list-kernels` table and the `--debug` line.

use crate::kernels::detect::{self, Capabilities, Kernel, FORCE_VARIABLE};
use crate::kernels::Algorithm;
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
        let chosen = detect::chosen(algorithm);
        for &kernel in detect::kernels(algorithm) {
            let used = if kernel == chosen {
                "*"
            } else if kernel.runs_on(caps) {
                ""
            } else {
                "-"
            };
            let source = if kernel.runs_on(caps) {
                detect::describe(algorithm, kernel, caps)
            } else {
                format!("not on this CPU: needs {}", kernel.needs())
            };
            let _ = writeln!(
                text,
                "{:<10} {:<10} {:<5} {source}",
                algorithm.name(),
                kernel.name(),
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
    let kernel: Kernel = detect::chosen(algorithm);
    let caps = Capabilities::get();
    let why = match detect::forced() {
        Ok(forced) if forced.get(algorithm).is_some() => format!("forced by {FORCE_VARIABLE}"),
        _ => "chosen for this CPU".to_string(),
    };
    format!(
        "{}: kernel {} ({}), {why}",
        algorithm.name(),
        kernel.name(),
        detect::describe(algorithm, kernel, &caps)
    )
}
