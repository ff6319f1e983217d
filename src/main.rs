//! The `fasthash` binary (and its drop-in names): parse, run, exit. Usage errors are printed
//! here; everything else is reported by the run in input order.

use fasthash::cli::Personality;
use fasthash::config::{Action, Config};
use fasthash::error::{Error, ExitStatus};
use fasthash::report::Reporter;
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().collect();
    let personality = Personality::from_argv0(args.first());
    let program = personality.message_name(args.first());
    let status = match Config::from_args(args) {
        Ok(Action::Run(config)) => fasthash::run(&config),
        Ok(Action::Print(text)) => {
            let mut stdout = std::io::stdout().lock();
            match stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
            {
                Ok(()) => ExitStatus::Success,
                Err(e) => {
                    Reporter::new(personality, program).error(&Error::Write(e));
                    ExitStatus::Failure
                }
            }
        }
        Err(error) => report_usage(personality, program, &error),
    };
    ExitCode::from(status as u8)
}

/// A usage error, worded as the program being imitated words it.
fn report_usage(personality: Personality, program: String, error: &Error) -> ExitStatus {
    let reporter = Reporter::new(personality, program.clone());
    reporter.error(error);
    if let Error::Usage { try_help: true, .. } = error {
        eprintln!("Try '{program} --help' for more information.");
    }
    match personality {
        // coreutils exits 1 on a usage error; fasthash and b3sum (clap) exit 2.
        Personality::Coreutils { .. } => ExitStatus::Failure,
        Personality::Fasthash | Personality::B3sum => ExitStatus::Usage,
    }
}
