//! Hash mode: every input expanded (directories walked under `-r`), hashed in parallel, one
//! line each in input order, failures reported in place and counted. The same driver prints
//! S3's values when the S3 options are given.

use crate::config::Config;
use crate::error::{Error, ExitStatus};
use crate::format::line::write_digest_line;
use crate::format::quote::quote_name;
use crate::io::parallel::{for_each_ordered, is_broken_pipe, must_run_in_order};
use crate::io::progress::Progress;
use crate::io::read::hash_inputs;
use crate::io::shard::select;
use crate::io::walk::{expand, listed_input, read_name_list, Task};
use crate::io::Input;
use crate::kernels::Algorithm;
use crate::report::Reporter;
use crate::s3;
use crate::s3::format::write_s3;
use std::io::{self, Write};
use std::ops::ControlFlow;

pub fn run(
    config: &Config,
    algorithm: Algorithm,
    out: &mut (impl Write + Send),
    reporter: &Reporter,
) -> ExitStatus {
    match &config.s3 {
        None => drive(
            config,
            out,
            reporter,
            crate::kernels::engine::chosen(algorithm).batch_size(),
            |inputs| hash_inputs(inputs, algorithm, &config.read),
            |mut out, input, digest| {
                write_digest_line(
                    &mut out,
                    &config.style,
                    algorithm,
                    &digest,
                    input.name_bytes(),
                )
            },
        ),
        Some(options) => drive(
            config,
            out,
            reporter,
            1,
            |inputs| {
                inputs
                    .iter()
                    .map(|input| s3::values::for_input(input, algorithm, options, &config.read))
                    .collect()
            },
            |mut out, input, result| {
                write_s3(
                    &mut out,
                    options.format,
                    &result,
                    input.name_bytes(),
                    config.style.with_names,
                    config.style.zero_terminated,
                )
            },
        ),
    }
}

/// Expands the inputs, runs `work` on batches of up to `batch` of them in parallel (one result
/// per input), and hands the results to `write` in input order; failures are reported in place
/// and make the exit status 1.
fn drive<T: Send>(
    config: &Config,
    out: &mut (impl Write + Send),
    reporter: &Reporter,
    batch: usize,
    work: impl Fn(&[&Input]) -> Vec<io::Result<T>> + Sync,
    mut write: impl FnMut(&mut dyn WriteSend, &Input, T) -> io::Result<()> + Send,
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
    let mut tasks: Box<dyn Iterator<Item = Task> + Send> = match config.shard {
        None => Box::new(expand(inputs, config.walk.clone())),
        Some(shard) => {
            let all = expand(inputs, config.walk.clone()).collect();
            let (chosen, header) = select(all, shard, &line_format(config));
            let mut line = header.into_bytes();
            line.push(if config.style.zero_terminated {
                b'\0'
            } else {
                b'\n'
            });
            if let Err(e) = out.write_all(&line) {
                return write_failed_status(reporter, e);
            }
            Box::new(chosen.into_iter())
        }
    };
    let batches = std::iter::from_fn(move || {
        let batch: Vec<Task> = tasks.by_ref().take(batch.max(1)).collect();
        (!batch.is_empty()).then_some(batch)
    });
    for_each_ordered(
        batches,
        threads,
        |tasks| {
            let inputs: Vec<&Input> = tasks
                .iter()
                .filter_map(|task| match task {
                    Task::Hash(input) => Some(input),
                    Task::Fail { .. } | Task::Skip { .. } => None,
                })
                .collect();
            let mut results = work(&inputs).into_iter();
            tasks
                .iter()
                .map(|task| match task {
                    Task::Hash(_) => results.next(),
                    Task::Fail { .. } | Task::Skip { .. } => None,
                })
                .collect::<Vec<_>>()
        },
        |_, tasks, results| {
            for (task, result) in tasks.into_iter().zip(results) {
                progress.file_done(&task);
                let written = match (task, result) {
                    (Task::Hash(input), Some(Ok(value))) => {
                        progress.write(out, |out| write(out, &input, value))
                    }
                    (Task::Hash(input), failed) => {
                        status = ExitStatus::Failure;
                        let source = match failed {
                            Some(Err(source)) => source,
                            _ => io::Error::other("not hashed"),
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
                if let Err(e) = written {
                    write_failed = Some(e);
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        },
    );
    progress.finish();
    let flushed = match write_failed {
        Some(e) => Err(e),
        None => out.flush(),
    };
    match flushed {
        Ok(()) => status,
        Err(e) => status.max(write_failed_status(reporter, e)),
    }
}

/// A failed write to standard output: a closed pipe ends the run quietly, as for coreutils;
/// anything else is reported.
fn write_failed_status(reporter: &Reporter, e: io::Error) -> ExitStatus {
    if is_broken_pipe(&e) {
        return ExitStatus::Success;
    }
    reporter.error(&Error::Write(e));
    ExitStatus::Failure
}

/// What decides the bytes of a shard's lines, for its fingerprint: shards written with another
/// algorithm or line style are not merged with these.
fn line_format(config: &Config) -> String {
    let style = &config.style;
    format!(
        "{} tagged={} binary={} zero={} base64={} names={}",
        config.algorithm.map_or("-".into(), |a| a.to_string()),
        style.tagged,
        style.binary,
        style.zero_terminated,
        style.encoding == crate::format::DigestEncoding::Base64,
        style.with_names
    )
}

/// A writer the line formatters can take by `&mut dyn`.
pub trait WriteSend: Write + Send {}
impl<W: Write + Send> WriteSend for W {}

fn report_failure(
    out: &mut impl Write,
    reporter: &Reporter,
    progress: &Progress,
    name: &[u8],
    source: io::Error,
) -> io::Result<()> {
    let error = Error::Input {
        name: name.to_vec(),
        source,
    };
    progress.write(out, |out| reporter.error_after(out, &error))
}
