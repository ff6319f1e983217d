//! Hash mode: every input hashed (in parallel), one line each in input order, failures
//! reported in place and counted.

use crate::config::Config;
use crate::error::{Error, ExitStatus};
use crate::format::line::write_digest_line;
use crate::io::parallel::{for_each_ordered, is_broken_pipe, must_run_in_order};
use crate::io::read::hash_input;
use crate::kernels::Algorithm;
use crate::report::Reporter;
use std::io::Write;
use std::ops::ControlFlow;

pub fn run(
    config: &Config,
    algorithm: Algorithm,
    out: &mut impl Write,
    reporter: &Reporter,
) -> ExitStatus {
    let mut status = ExitStatus::Success;
    let mut write_failed = None;
    let threads = if must_run_in_order(&config.inputs) {
        1
    } else {
        config.threads
    };
    for_each_ordered(
        &config.inputs,
        threads,
        |input| hash_input(input, algorithm),
        |index, result| {
            let input = &config.inputs[index];
            let written = match result {
                Ok(digest) => {
                    write_digest_line(out, &config.style, algorithm, &digest, input.name_bytes())
                }
                Err(source) => {
                    status = ExitStatus::Failure;
                    reporter.error_after(
                        out,
                        &Error::Input {
                            name: input.name_bytes().to_vec(),
                            source,
                        },
                    )
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
