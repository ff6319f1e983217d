//! Hash mode: every input expanded (directories walked under `-r`), hashed in parallel, one
//! line each in input order, failures reported in place and counted. The same driver prints
//! S3's values when the S3 options are given.

use crate::error::{Error, ExitStatus};
use crate::format::messages::Message;
use crate::format::shard_header::Tallied;
use crate::format::{DigestEncoding, Output};
use crate::io::batch::hash_inputs;
use crate::io::multi::{self, Several};
use crate::io::open::{open_ahead, Ahead};
use crate::io::parallel::{for_each_ordered, must_run_in_order};
use crate::io::progress::Progress;
use crate::io::progress::ProgressChoice;
use crate::io::settings::RunSettings;
use crate::io::shard::{select, Shard};
use crate::io::walk::WalkOptions;
use crate::io::walk::{expand, listed_input, read_name_list, Task};
use crate::io::Input;
use crate::kernels::Algorithm;
use crate::report::{Counts, Reporter};
use crate::s3;
use crate::s3::format::write_s3_results;
use crate::s3::options::S3Options;
use std::io::{self, Write};
use std::ops::ControlFlow;

/// The files to hash: operands expanded by the walk, or the names of a list.
#[derive(Clone, Debug)]
pub struct Files {
    pub inputs: Vec<Input>,
    /// `--files-from` / `--files0-from`: the inputs are the names in this list.
    pub names_from: Option<NameList>,
    pub walk: WalkOptions,
    pub progress: ProgressChoice,
}

/// Hashing, as the command line asks: digests of the files, written as `output` says.
#[derive(Debug)]
pub struct Hash {
    /// One or more (`-a md5,sha256`), each once, in the order given: every file is read once
    /// and gets one line per algorithm, in this order.
    pub algorithms: Vec<Algorithm>,
    pub output: Output,
    /// `--shard K/N`: hash only this part of the inputs.
    pub shard: Option<Shard>,
    pub files: Files,
    pub run: RunSettings,
}

/// Amazon S3's values of the files instead of digests (the S3 options).
#[derive(Debug)]
pub struct S3Values {
    /// The algorithms and how each is uploaded ([`S3Options::uploads`]).
    pub options: S3Options,
    pub with_names: bool,
    pub zero_terminated: bool,
    pub files: Files,
    pub run: RunSettings,
}

/// Where `--files-from`/`--files0-from` read the names to hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameList {
    pub source: Input,
    pub zero_terminated: bool,
}

/// Returns the status and, for `--stats`, how many files were hashed and how many failed.
pub fn run(
    hash: &Hash,
    out: &mut (impl Write + Send),
    reporter: &Reporter,
) -> (ExitStatus, Counts) {
    let shard = || {
        hash.shard.map(|shard| Sharding {
            shard,
            line_format: line_format(hash),
            several: (hash.algorithms.len() > 1).then(|| algorithm_names(hash)),
            terminator: hash.output.line_end(),
        })
    };
    match (hash.output.needs_size(), hash.algorithms.as_slice()) {
        // One algorithm, no size: its own paths (lanes pulling files, a file split on every
        // core), as fast as a run can be.
        (false, &[algorithm]) => drive(
            Job {
                files: &hash.files,
                run: &hash.run,
                shard: shard(),
                batch: Batches::read_ahead(crate::kernels::table::chosen(algorithm).batch_size()),
            },
            out,
            reporter,
            |inputs, ahead| hash_inputs(inputs, ahead, algorithm, &hash.run.read),
            // No size: only JSON prints it, and JSON takes the other arm.
            |mut out, input, digest| {
                let record = [(algorithm, &digest)];
                hash.output
                    .write_record(&mut out, input.name_bytes(), 0, record)
            },
        ),
        // Several algorithms, or the size too: every input read once.
        (_, algorithms) => {
            let several = Several::new(algorithms, &hash.run.read);
            drive(
                Job {
                    files: &hash.files,
                    run: &hash.run,
                    shard: shard(),
                    batch: Batches::read_ahead(several.batch_size()),
                },
                out,
                reporter,
                |inputs, ahead| multi::hash_inputs(inputs, ahead, &several, &hash.run.read),
                |mut out, input, hashed| {
                    let record = hash.algorithms.iter().copied().zip(&hashed.digests);
                    hash.output
                        .write_record(&mut out, input.name_bytes(), hashed.size, record)
                },
            )
        }
    }
}

/// S3's values, one input at a time (each may be split into parts on every core), one value
/// per algorithm, in order.
pub fn run_s3(
    values: &S3Values,
    out: &mut (impl Write + Send),
    reporter: &Reporter,
) -> (ExitStatus, Counts) {
    drive(
        Job {
            files: &values.files,
            run: &values.run,
            shard: None,
            // S3's values open and read each file themselves, in parts.
            batch: Batches {
                size: 1,
                read_ahead: false,
            },
        },
        out,
        reporter,
        |inputs, _| {
            inputs
                .iter()
                .map(|input| s3::values::for_input(input, &values.options, &values.run.read))
                .collect()
        },
        |mut out, input, results| {
            write_s3_results(
                &mut out,
                values.options.format,
                &results,
                input.name_bytes(),
                values.with_names,
                values.zero_terminated,
            )
        },
    )
}

/// How `drive` cuts the inputs into batches, and whether readers open and read them ahead.
struct Batches {
    /// Inputs in a batch at most.
    size: usize,
    read_ahead: bool,
}

impl Batches {
    fn read_ahead(size: usize) -> Batches {
        Batches {
            size,
            read_ahead: true,
        }
    }
}

/// What `drive` runs over: the inputs and how to walk them, the threads and how to read,
/// the shard to keep, and how to cut the inputs into batches.
struct Job<'a> {
    files: &'a Files,
    run: &'a RunSettings,
    shard: Option<Sharding>,
    batch: Batches,
}

/// Expands the inputs, opens and reads batches of up to `job.batch` of them ahead on the
/// readers ([`crate::io::open`]), runs `work` on each batch and what was read of it on the
/// hashing threads (one result per input), and hands the results to `write` in input order;
/// failures are reported in place and make the exit status 1. Returns the status and what was
/// hashed or failed, for `--stats`.
fn drive<T: Send>(
    job: Job,
    out: &mut (impl Write + Send),
    reporter: &Reporter,
    work: impl Fn(&[&Input], Ahead) -> Vec<io::Result<T>> + Sync,
    mut write: impl FnMut(&mut dyn WriteSend, &Input, T) -> io::Result<()> + Send,
) -> (ExitStatus, Counts) {
    let Job {
        files,
        run,
        shard,
        batch,
    } = job;
    let mut counts = Counts::default();
    let Some((inputs, list_failed)) = inputs_named(files, reporter) else {
        return (ExitStatus::Failure, counts);
    };
    let mut status = match list_failed {
        true => ExitStatus::Failure,
        false => ExitStatus::Success,
    };
    // A batch's files are held open together: as many as the descriptor budget allows.
    let size = match batch.read_ahead {
        true => crate::io::descriptors::batch_size(batch.size),
        false => batch.size,
    };
    // A few files named, nothing walked: one batch, which has nothing to overlap with, so it
    // runs on this thread (its files still hash on the pool) without starting a reader: a
    // third of a millisecond of a one-file run, paid by a script calling fasthash a file.
    let one_batch = !files.walk.recursive && inputs.len() <= size;
    let stages = run.stages(must_run_in_order(&inputs) || one_batch);
    let progress = Progress::start(files.progress, &inputs, &files.walk);
    let shard_lines = shard.as_ref().map(|s| (s.shard, s.terminator));
    let mut tasks = match tasks_of_this_shard(inputs, files, shard, out) {
        Ok(tasks) => tasks,
        Err(e) => return (reporter.output_failed(e, ExitStatus::Success), counts),
    };
    // A shard's lines are tallied for its last line, written once they all are.
    let out = &mut Tallied::new(out, shard_lines);
    let batches = std::iter::from_fn(move || {
        let batch: Vec<Task> = tasks.by_ref().take(size).collect();
        (!batch.is_empty()).then_some(batch)
    });
    let mmap = run.read.mmap;
    let mut write_failed = None;
    for_each_ordered(
        batches,
        stages,
        |tasks| match batch.read_ahead {
            true => open_ahead(&hashed_inputs(tasks), mmap),
            false => Ahead::nothing(tasks.len()),
        },
        |tasks, ahead| {
            let inputs = hashed_inputs(tasks);
            progress.hashing(&inputs);
            let mut results = work(&inputs, ahead).into_iter();
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
                    counts.file(failed);
                    if failed {
                        status = ExitStatus::Failure;
                    }
                }
                let written = write_outcome(out, reporter, &progress, task, result, &mut write);
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
        None => out.finish(),
    };
    let status = match flushed {
        Ok(()) => status,
        Err(e) => reporter.output_failed(e, status),
    };
    (status, counts)
}

/// The inputs as named: on the command line, or in `--files-from`'s list, and whether the
/// list held an empty entry (reported here, before the output; the other names are hashed). A
/// list that cannot be read is reported, and nothing is hashed.
fn inputs_named(files: &Files, reporter: &Reporter) -> Option<(Vec<Input>, bool)> {
    let Some(list) = &files.names_from else {
        return Some((files.inputs.clone(), false));
    };
    let name = list.source.name_bytes();
    match read_name_list(&list.source, list.zero_terminated) {
        Ok(read) => {
            for &entry in &read.empty_entries {
                reporter.say(&Message::EmptyListEntry { list: name, entry });
            }
            let inputs = read.names.iter().map(|name| listed_input(name)).collect();
            Some((inputs, !read.empty_entries.is_empty()))
        }
        Err(source) => {
            reporter.error(&Error::Input {
                name: name.to_vec(),
                source,
            });
            None
        }
    }
}

/// The inputs expanded into tasks, lazily; under `--shard`, all of them are expanded first,
/// the shard's part chosen and its header line written (the error is that write's).
fn tasks_of_this_shard(
    inputs: Vec<Input>,
    files: &Files,
    shard: Option<Sharding>,
    out: &mut impl Write,
) -> io::Result<Box<dyn Iterator<Item = Task> + Send>> {
    let Some(sharding) = shard else {
        return Ok(Box::new(expand(inputs, files.walk.clone())));
    };
    let all = expand(inputs, files.walk.clone()).collect();
    let (chosen, fingerprint) = select(all, sharding.shard, &sharding.line_format);
    let header = crate::format::shard_header::header(
        sharding.shard,
        &fingerprint,
        sharding.several.as_deref(),
    );
    let mut line = header.into_bytes();
    line.push(sharding.terminator);
    out.write_all(&line)?;
    Ok(Box::new(chosen.into_iter()))
}

/// Writes a task's outcome: its record through `write` on standard output, or its failure or
/// why it was skipped on standard error, around the progress bar.
fn write_outcome<W: Write + Send, T>(
    out: &mut W,
    reporter: &Reporter,
    progress: &Progress,
    task: Task,
    result: Option<io::Result<T>>,
    write: &mut impl FnMut(&mut dyn WriteSend, &Input, T) -> io::Result<()>,
) -> io::Result<()> {
    match (task, result) {
        (Task::Hash(input), Some(Ok(value))) => {
            progress.write(out, |out| write(out, &input, value))
        }
        (Task::Hash(input), failed) => {
            let source = match failed {
                Some(Err(source)) => source,
                _ => io::Error::other("not hashed"),
            };
            report_failure(out, reporter, progress, input.name_bytes(), source)
        }
        (Task::Fail { name, error }, _) => report_failure(out, reporter, progress, &name, error),
        (Task::Skip { name, reason }, _) => {
            let skipped = Message::Named {
                name: &name,
                reason,
            };
            progress.write(out, |out| reporter.say_after(out, &skipped))
        }
    }
}

/// The inputs of a batch of tasks that are to be hashed.
fn hashed_inputs(tasks: &[Task]) -> Vec<&Input> {
    tasks
        .iter()
        .filter_map(|task| match task {
            Task::Hash(input) => Some(input),
            Task::Fail { .. } | Task::Skip { .. } => None,
        })
        .collect()
}

/// `--shard`: the part of the inputs to hash, and its manifest's header line.
struct Sharding {
    shard: Shard,
    /// What the lines' bytes depend on ([`line_format`]), part of the fingerprint.
    line_format: String,
    /// The algorithms, when several: the header names them.
    several: Option<String>,
    /// Shard manifests are digest lines, which end as the style says.
    terminator: u8,
}

/// The algorithms as `-a` takes them: `md5,sha256`.
fn algorithm_names(hash: &Hash) -> String {
    let names: Vec<String> = hash.algorithms.iter().map(|a| a.to_string()).collect();
    names.join(",")
}

/// What decides the bytes of a shard's lines, for its fingerprint: shards written with other
/// algorithms (or the same in another order) or another line style are not merged with these.
/// The words are those of the line style that every output had before it had a type of its
/// own, so that shards written by earlier versions still merge with these.
fn line_format(hash: &Hash) -> String {
    let (tagged, binary, zero, base64, names) = match &hash.output {
        Output::Lines(style) => (
            style.tagged,
            style.binary,
            style.zero_terminated,
            style.encoding == DigestEncoding::Base64,
            style.with_names,
        ),
        Output::Sums(sums) => (false, false, sums.zero_terminated, false, sums.with_names),
        // --shard refuses --json, and raw bytes are no lines to merge.
        Output::Raw | Output::Json(_) => (false, false, false, false, false),
    };
    format!(
        "{} tagged={tagged} binary={binary} zero={zero} base64={base64} names={names}",
        algorithm_names(hash),
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
