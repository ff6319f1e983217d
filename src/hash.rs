//! Hash mode: every input expanded (directories walked under `-r`), hashed in parallel, one
//! line each in input order, failures reported in place and counted.

use crate::config::Config;
use crate::error::{Error, ExitStatus};
use crate::format::line::write_digest_line;
use crate::format::quote::quote_name;
use crate::io::parallel::{for_each_ordered, is_broken_pipe, must_run_in_order};
use crate::io::progress::Progress;
use crate::io::read::hash_input;
use crate::io::walk::{expand, listed_input, read_name_list, Task};
use crate::kernels::Algorithm;
use crate::report::Reporter;
use std::io::Write;
use std::ops::ControlFlow;

pub fn run(
    config: &Config,
    algorithm: Algorithm,
    out: &mut (impl Write + Send),
    reporter: &Reporter,
) -> ExitStatus {
    let mut status = ExitStatus::Success;
    let inputs = match &config.names_from {
        None => config.inputs.clone(),
        Some(list) => match read_name_list(&list.source, list.zero_terminated) {
            Ok(names) => names.iter().map(|name| listed_input(name)).collect(),
            Err(source) => {
                reporter.error(&Error::Input {
                    name: list.source.name_bytes().to_vec(),
                    source,
                });
                return ExitStatus::Failure;
            }
        },
    };
    let threads = if must_run_in_order(&inputs) {
        1
    } else {
        config.threads
    };
    let progress = Progress::start(config.progress, &inputs, &config.walk);
    let mut write_failed = None;
    for_each_ordered(
        expand(inputs, config.walk.clone()),
        threads,
        |task| match task {
            Task::Hash(input) => Some(hash_input(input, algorithm, &config.read)),
            Task::Fail { .. } | Task::Skip { .. } => None,
        },
        |_, task, result| {
            progress.file_done(&task);
            let written = match (task, result) {
                (Task::Hash(input), Some(Ok(digest))) => progress.write(out, |out| {
                    write_digest_line(out, &config.style, algorithm, &digest, input.name_bytes())
                }),
                (Task::Hash(input), failed) => {
                    status = ExitStatus::Failure;
                    let source = match failed {
                        Some(Err(source)) => source,
                        _ => std::io::Error::other("not hashed"),
                    };
                    report_failure(out, reporter, &progress, input.name_bytes(), source)
                }
                (Task::Fail { name, error }, _) => {
                    status = ExitStatus::Failure;
                    report_failure(out, reporter, &progress, &name, error)
                }
                (Task::Skip { name, reason }, _) => {
                    let mut text = quote_name(&name);
                    text.extend_from_slice(b": ");
                    text.extend_from_slice(reason.as_bytes());
                    progress.write(out, |out| reporter.message_after(out, &text))
                }
            };
            match written {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => {
                    write_failed = Some(e);
                    ControlFlow::Break(())
                }
            }
        },
    );
    progress.finish();
    let flushed = match write_failed {
        Some(e) => Err(e),
        None => out.flush(),
    };
    match flushed {
        Ok(()) => status,
        Err(e) if is_broken_pipe(&e) => status,
        Err(e) => {
            reporter.error(&Error::Write(e));
            ExitStatus::Failure
        }
    }
}

fn report_failure(
    out: &mut impl Write,
    reporter: &Reporter,
    progress: &Progress,
    name: &[u8],
    source: std::io::Error,
) -> std::io::Result<()> {
    let error = Error::Input {
        name: name.to_vec(),
        source,
    };
    progress.write(out, |out| reporter.error_after(out, &error))
}
