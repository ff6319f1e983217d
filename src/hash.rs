//! Hash mode: every input expanded (directories walked under `-r`), hashed in parallel, one
//! line each in input order, failures reported in place and counted. The same driver prints
//! S3's values when the S3 options are given.

use crate::config::{Files, Hash, RunSettings, S3Values};
use crate::error::{Error, ExitStatus};
use crate::format::line::write_digest_line;
use crate::format::messages::Message;
use crate::io::parallel::{for_each_ordered, must_run_in_order};
use crate::io::progress::Progress;
use crate::io::read::hash_inputs;
use crate::io::shard::{select, Shard};
use crate::io::walk::{expand, listed_input, read_name_list, Task};
use crate::io::Input;
use crate::report::Reporter;
use crate::s3;
use crate::s3::format::write_s3;
use std::io::{self, Write};
use std::ops::ControlFlow;

pub fn run(hash: &Hash, out: &mut (impl Write + Send), reporter: &Reporter) -> ExitStatus {
    let algorithm = hash.algorithm;
    let shard = hash.shard.map(|shard| Sharding {
        shard,
        fingerprint: line_format(hash),
        terminator: hash.style.terminator(),
    });
    drive(
        &hash.files,
        &hash.run,
        shard,
        out,
        reporter,
        crate::kernels::engine::chosen(algorithm).batch_size(),
        |inputs| hash_inputs(inputs, algorithm, &hash.run.read),
        |mut out, input, digest| {
            write_digest_line(
                &mut out,
                &hash.style,
                algorithm,
                &digest,
                input.name_bytes(),
            )
        },
    )
}

/// S3's values, one input at a time (each may be split into parts on every core).
pub fn run_s3(values: &S3Values, out: &mut (impl Write + Send), reporter: &Reporter) -> ExitStatus {
    drive(
        &values.files,
        &values.run,
        None,
        out,
        reporter,
        1,
        |inputs| {
            inputs
                .iter()
                .map(|input| {
                    s3::values::for_input(
                        input,
                        values.algorithm,
                        &values.options,
                        &values.run.read,
                    )
                })
                .collect()
        },
        |mut out, input, result| {
            write_s3(
                &mut out,
                values.options.format,
                &result,
                input.name_bytes(),
                values.with_names,
                values.zero_terminated,
            )
        },
    )
}

/// Expands the inputs, runs `work` on batches of up to `batch` of them in parallel (one result
/// per input), and hands the results to `write` in input order; failures are reported in place
/// and make the exit status 1.
#[allow(clippy::too_many_arguments)]
fn drive<T: Send>(
    files: &Files,
    run: &RunSettings,
    shard: Option<Sharding>,
    out: &mut (impl Write + Send),
    reporter: &Reporter,
    batch: usize,
    work: impl Fn(&[&Input]) -> Vec<io::Result<T>> + Sync,
    mut write: impl FnMut(&mut dyn WriteSend, &Input, T) -> io::Result<()> + Send,
) -> ExitStatus {
    let mut status = ExitStatus::Success;
    let inputs = match &files.names_from {
        None => files.inputs.clone(),
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
        run.threads
    };
    let progress = Progress::start(files.progress, &inputs, &files.walk);
    let mut write_failed = None;
    let mut tasks: Box<dyn Iterator<Item = Task> + Send> = match shard {
        None => Box::new(expand(inputs, files.walk.clone())),
        Some(sharding) => {
            let all = expand(inputs, files.walk.clone()).collect();
            let (chosen, header) = select(all, sharding.shard, &sharding.fingerprint);
            let mut line = header.into_bytes();
            line.push(sharding.terminator);
            if let Err(e) = out.write_all(&line) {
                return reporter.output_failed(e, ExitStatus::Success);
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
            progress.hashing(&inputs);
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
                let failed = !matches!((&task, &result), (Task::Hash(_), Some(Ok(_))));
                if !matches!(task, Task::Skip { .. }) {
                    reporter.count(|counts| counts.file(failed));
                }
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
                        let skipped = Message::Named {
                            name: &name,
                            reason,
                        };
                        progress.write(out, |out| reporter.say_after(out, &skipped))
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
        Err(e) => reporter.output_failed(e, status),
    }
}

/// `--shard`: the part of the inputs to hash, and its manifest's header line.
struct Sharding {
    shard: Shard,
    /// What the lines' bytes depend on ([`line_format`]).
    fingerprint: String,
    /// Shard manifests are digest lines, which end as the style says.
    terminator: u8,
}

/// What decides the bytes of a shard's lines, for its fingerprint: shards written with another
/// algorithm or line style are not merged with these.
fn line_format(hash: &Hash) -> String {
    let style = &hash.style;
    format!(
        "{} tagged={} binary={} zero={} base64={} names={}",
        hash.algorithm,
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
