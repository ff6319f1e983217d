//! The `fasthash` binary (and its drop-in names): parse, run, exit. Usage errors are printed
//! here; everything else is reported by the run in input order.

use fasthash::cli::Invocation;
use fasthash::config::Config;
use fasthash::dropin::{Grammar, Program};
use fasthash::error::{Error, ExitStatus};
use fasthash::format::messages::try_help;
use fasthash::report::Reporter;
use std::process::ExitCode;

/// The system's allocator; running out of memory ends the run with coreutils' message.
#[global_allocator]
static ALLOCATOR: fasthash::io::memory::ExitWhenExhausted = fasthash::io::memory::ExitWhenExhausted;

fn main() -> ExitCode {
    fasthash::io::exit_cleanly_on_interrupt();
    fasthash::io::parallel::on_a_deep_enough_stack(run_program)
}

fn run_program() -> ExitCode {
    let args: Vec<_> = std::env::args_os().collect();
    let invocation = Invocation::from_argv0(args.first());
    fasthash::name_warnings(&invocation.program);
    if let Grammar::Xxhsum { .. } = invocation.personality.grammar {
        return ExitCode::from(fasthash::dropin::xxhsum::run(&invocation, &args));
    }
    let status = match Config::from_args(invocation.clone(), args) {
        Ok(config) => fasthash::run(&config),
        Err(error) => report_usage(&invocation, &error),
    };
    // A diagnostic that could not be written fails the run, as coreutils' check of standard
    // error at exit fails it (`--debug 2>/dev/full`); fasthash and b3sum do the same, so a
    // warning nobody saw never passes for a clean run. A run already failing keeps its status.
    let status = if fasthash::report::stderr_failed() {
        status.max(ExitStatus::Failure)
    } else {
        status
    };
    ExitCode::from(status as u8)
}

/// A usage error, worded as the program being imitated words it.
fn report_usage(invocation: &Invocation, error: &Error) -> ExitStatus {
    let reporter = Reporter::new(invocation);
    reporter.error(error);
    if let Error::Usage { try_help: true, .. } = error {
        fasthash::report::write_stderr(try_help(&invocation.program).as_bytes());
    }
    invocation.personality.usage_status
}

/// Everything that runs before Rust's runtime starts (glibc calls `.init_array` entries before
/// the C `main` that starts it, with `main`'s arguments): notes a closed descriptor 0 or 1
/// before the runtime replaces it with `/dev/null`, and whether SIGPIPE was ignored before the
/// runtime ignores it; names the program for running out of memory, and ends the run as out of
/// memory where the runtime's own start would abort for want of it.
#[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
#[used]
#[link_section = ".init_array"]
static BEFORE_THE_RUNTIME: extern "C" fn(
    libc::c_int,
    *const *const libc::c_char,
    *const *const libc::c_char,
) = before_the_runtime;

#[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
extern "C" fn before_the_runtime(
    argc: libc::c_int,
    argv: *const *const libc::c_char,
    _: *const *const libc::c_char,
) {
    // SAFETY: F_GETFD only reads the descriptor table; it touches no memory of ours.
    if unsafe { libc::fcntl(0, libc::F_GETFD) } == -1 {
        fasthash::io::note_stdin_closed_at_start();
    }
    // SAFETY: as above.
    if unsafe { libc::fcntl(1, libc::F_GETFD) } == -1 {
        fasthash::io::note_stdout_closed_at_start();
    }
    fasthash::report::note_sigpipe_at_start();
    let argv0 = argv0_from(argc, argv);
    let name = Program::named(argv0).message_name_in(argv0);
    fasthash::io::memory::name_the_program(name);
    fasthash::io::memory::exit_unless_room_for_the_runtime();
}

/// `argv[0]`, where the C library hands `.init_array` entries `main`'s `argc` and `argv`, as
/// glibc and FreeBSD's do; None elsewhere (musl calls them with no arguments: the registers
/// hold nothing to read).
#[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
fn argv0_from(argc: libc::c_int, argv: *const *const libc::c_char) -> Option<&'static [u8]> {
    if cfg!(not(any(target_env = "gnu", target_os = "freebsd"))) || argc <= 0 || argv.is_null() {
        return None;
    }
    // SAFETY: `argc` says `argv` holds at least one pointer.
    let first = unsafe { *argv };
    // SAFETY: a non-null `argv[0]` is a C string that lives as long as the process.
    (!first.is_null()).then(|| unsafe { std::ffi::CStr::from_ptr(first) }.to_bytes())
}
