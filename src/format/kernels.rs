//! The texts about kernels: the `--list-kernels` table and the `--debug` line.

use crate::kernels::detect::{Capabilities, FORCE_VARIABLE};
use crate::kernels::table::{self, Rule};
use crate::kernels::Algorithm;
use std::fmt::Write as _;

/// `--list-kernels`: every kernel of every algorithm, whether this CPU runs it, and the one
/// this process uses.
pub fn list(caps: &Capabilities) -> String {
    let mut text = String::new();
    let features = caps.names().join(" ");
    let _ = writeln!(text, "CPU features: {features}");
    if caps.cpu != Default::default() {
        let _ = writeln!(text, "CPU: {}", caps.cpu);
    }
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
        let choice = table::choice(algorithm);
        for engine in table::of(algorithm) {
            let runs = (engine.runs_on)(caps);
            let used = if std::ptr::eq(engine, choice.engine) {
                "*"
            } else if choice
                .alone
                .is_some_and(|alone| std::ptr::eq(engine, alone))
            {
                "+"
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
    write_rules(&mut text);
    let _ = writeln!(
        text,
        "\n* used now   + takes a file alone for the kernel marked *   - this CPU cannot run it\n\
         Force one with {FORCE_VARIABLE}=KERNEL (every algorithm that has it) or \
         {FORCE_VARIABLE}=ALGORITHM=KERNEL, comma-separated."
    );
    text
}

/// Why each algorithm runs on its kernel: the algorithms the table's order chose, in one line,
/// then every other rule with its algorithms, and a preference with its figures.
fn write_rules(text: &mut String) {
    let mut rules: Vec<(String, Vec<&str>, Option<&str>)> = Vec::new();
    for algorithm in Algorithm::all() {
        let choice = table::choice(algorithm);
        let (rule, evidence) = match choice.rule {
            Rule::Preferred(preference) => (
                format!("{} ({})", choice.rule.describe(), preference.choice()),
                Some(preference.evidence),
            ),
            rule => (rule.describe(), None),
        };
        match rules.iter_mut().find(|(known, ..)| *known == rule) {
            Some((_, algorithms, _)) => algorithms.push(algorithm.name()),
            None => rules.push((rule, vec![algorithm.name()], evidence)),
        }
    }
    let _ = writeln!(text, "\nWhy these kernels:");
    for (rule, algorithms, evidence) in rules {
        let _ = writeln!(text, "{}: {rule}", algorithms.join(" "));
        if let Some(evidence) = evidence {
            let _ = writeln!(text, "  measured: {evidence}");
        }
    }
}

/// `--debug`: the kernel an algorithm runs and why.
pub fn debug_line(algorithm: Algorithm) -> String {
    let choice = table::choice(algorithm);
    let label = match choice.alone {
        Some(alone) => format!(
            "{} (a file alone on {})",
            choice.engine.label(),
            alone.label()
        ),
        None => choice.engine.label(),
    };
    let why = match choice.rule {
        Rule::TableOrder => "chosen for this CPU".to_string(),
        rule => rule.describe(),
    };
    format!("{}: kernel {label}, {why}", algorithm.name())
}
