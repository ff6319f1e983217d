//! The one way the integration tests run a program: fasthash itself, fasthash under a drop-in
//! name, or a peer (coreutils, b3sum, xxhsum, a shell) it is compared with.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// The fasthash binary these tests run.
pub const FASTHASH: &str = env!("CARGO_BIN_EXE_fasthash");

/// The locale every run gets unless it sets its own: peers word their messages by it, and a
/// developer's own locale must not change what the tests expect.
const DEFAULT_LOCALE: &str = "C.UTF-8";

/// A program to run, built up call by call and run by [`Run::output`] or [`Run::spawn`].
pub struct Run {
    program: PathBuf,
    dir: PathBuf,
    args: Vec<OsString>,
    /// Variables to set (`Some`) or remove (`None`), in order.
    env: Vec<(OsString, Option<OsString>)>,
    /// Run by this bare name, so that `argv[0]` is the name and not a path.
    name: Option<String>,
    /// Shell text before and after `exec PROGRAM ARGS`, when the run needs a shell.
    shell: Option<(String, String)>,
    /// A program that runs this one, with its own arguments first (`setpriv ... --`).
    wrapper: Option<(PathBuf, Vec<OsString>)>,
    /// `RLIMIT_NPROC` for the child, set before it starts anything.
    process_limit: Option<u64>,
    input: Option<Vec<u8>>,
    /// Killed after this long: a run that would wait forever fails its test instead.
    timeout: Option<std::time::Duration>,
    stdin: Option<Stdio>,
    stdout: Option<Stdio>,
    stderr: Option<Stdio>,
}

/// The least address space (`ulimit -v`, KiB) under which `run` succeeds, as coreutils'
/// tests/misc/write-errors.sh measures it (with `--version`) before running each program with
/// 12,000 KiB more.
pub fn least_address_space(run: impl Fn() -> Run) -> u64 {
    let runs_under = |kib: u64| {
        run()
            .shell(&format!("ulimit -v {kib};"), "")
            .output()
            .status
            .success()
    };
    let (mut low, mut high) = (1_000, 1_000_000);
    assert!(runs_under(high), "fails even with 1 GB of address space");
    while high - low > 100 {
        let middle = (low + high) / 2;
        if runs_under(middle) {
            high = middle;
        } else {
            low = middle;
        }
    }
    high
}

/// fasthash, run in `dir`.
pub fn fasthash(dir: &Path) -> Run {
    program(FASTHASH, dir)
}

/// Any other program (a peer from [`peer`], `sh`, a link to fasthash), run in `dir`.
pub fn program(program: impl AsRef<OsStr>, dir: &Path) -> Run {
    Run {
        program: PathBuf::from(program.as_ref()),
        dir: dir.to_path_buf(),
        args: Vec::new(),
        env: vec![(
            OsString::from("LC_ALL"),
            Some(OsString::from(DEFAULT_LOCALE)),
        )],
        name: None,
        shell: None,
        wrapper: None,
        process_limit: None,
        input: None,
        timeout: None,
        stdin: None,
        stdout: None,
        stderr: None,
    }
}

impl Run {
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_os_string());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(mut self, args: I) -> Self {
        self.args
            .extend(args.into_iter().map(|arg| arg.as_ref().to_os_string()));
        self
    }

    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        let value = Some(value.as_ref().to_os_string());
        self.env.push((key.as_ref().to_os_string(), value));
        self
    }

    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Self {
        self.env.push((key.as_ref().to_os_string(), None));
        self
    }

    /// Runs on the kernels this CPU would choose, even in CI's `FASTHASH_KERNEL=portable` pass:
    /// for tests of input and output that hash many GiB, or that force each kernel themselves.
    pub fn cpu_kernels(self) -> Self {
        self.env_remove(fasthash::kernels::detect::FORCE_VARIABLE)
    }

    /// Runs without Rust's backtrace variables: b3sum (through anyhow) adds a backtrace to its
    /// `Error:` lines when they are set, and fasthash as b3sum must print what b3sum prints.
    pub fn without_backtraces(self) -> Self {
        self.env_remove("RUST_BACKTRACE")
            .env_remove("RUST_LIB_BACKTRACE")
    }

    /// Runs the program under the bare name `name` (a drop-in name such as `sha256sum`): a link
    /// of that name found on `PATH`, so `argv[0]`, which coreutils prints in its messages, is
    /// the same for fasthash and for the peer it is compared with.
    pub fn called(mut self, name: &str) -> Self {
        let dir = drop_in_dir(&self.program, name);
        self.name = Some(name.to_string());
        self.env("PATH", dir)
    }

    /// `bytes` on standard input (otherwise it is `/dev/null`).
    pub fn stdin(mut self, bytes: impl AsRef<[u8]>) -> Self {
        self.input = Some(bytes.as_ref().to_vec());
        self
    }

    /// Kills the run after `limit` (a hang guard, far above any run's time; not a speed
    /// check), so that a program waiting forever fails its test instead of stopping the suite.
    pub fn timeout(mut self, limit: std::time::Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    pub fn redirect_stdin(mut self, stdin: impl Into<Stdio>) -> Self {
        self.stdin = Some(stdin.into());
        self
    }

    pub fn redirect_stdout(mut self, stdout: impl Into<Stdio>) -> Self {
        self.stdout = Some(stdout.into());
        self
    }

    pub fn redirect_stderr(mut self, stderr: impl Into<Stdio>) -> Self {
        self.stderr = Some(stderr.into());
        self
    }

    /// Runs through `sh -c 'BEFORE exec PROGRAM ARGS AFTER'`, for what only a shell sets up:
    /// closed descriptors (`>&-`), merged streams (`2>&1`), globs, `ulimit`.
    pub fn shell(mut self, before: &str, after: &str) -> Self {
        self.shell = Some((before.to_string(), after.to_string()));
        self
    }

    /// Runs as the unprivileged user `nobody` when the tests run as root (as CI does), since
    /// root reads any file; `None` (the test skips) when that needs `setpriv` and it is missing.
    pub fn unprivileged(mut self) -> Option<Self> {
        // SAFETY: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } == 0 {
            let setpriv = peer("setpriv")?;
            let options = ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"];
            self.wrapper = Some((setpriv, options.iter().map(OsString::from).collect()));
        }
        Some(self)
    }

    /// Runs with `RLIMIT_NPROC` (`ulimit -u`, which `sh` lacks) lowered to `processes`, set in
    /// the child before it starts the program or its wrapper. It binds an unprivileged user
    /// only: as root, combine it with [`Run::unprivileged`].
    pub fn process_limit(mut self, processes: u64) -> Self {
        self.process_limit = Some(processes);
        self
    }

    /// Runs with the clock `seconds` ahead of the file system's times, through `faketime` (the
    /// library [`faketime`] found): files written just now then look that old to the program,
    /// and a test of what it does with older files need not wait. Only the clock moves: file
    /// times are read as they are (`NO_FAKE_STAT`).
    pub fn clock_ahead(self, faketime: &Path, seconds: u32) -> Self {
        self.env("LD_PRELOAD", faketime)
            .env("FAKETIME", format!("+{seconds}s"))
            .env("NO_FAKE_STAT", "1")
    }

    /// The run's `std` command, its standard streams not yet set.
    fn command(&self) -> Command {
        let program = match &self.name {
            Some(name) => PathBuf::from(name),
            None => self.program.clone(),
        };
        let mut command = match (&self.wrapper, &self.shell) {
            (Some(_), Some(_)) => panic!("a run takes a wrapper or a shell, not both"),
            (Some((wrapper, options)), None) => {
                let mut command = Command::new(wrapper);
                command.args(options).arg(program);
                command
            }
            // The program is `$0` and its arguments `$@`, so no quoting can go wrong.
            (None, Some((before, after))) => {
                let mut command = Command::new("/bin/sh");
                command
                    .arg("-c")
                    .arg(format!("{before} exec \"$0\" \"$@\" {after}"))
                    .arg(program);
                command
            }
            (None, None) => Command::new(program),
        };
        command.current_dir(&self.dir).args(&self.args);
        if let Some(processes) = self.process_limit {
            use std::os::unix::process::CommandExt;
            let limit = libc::rlimit {
                rlim_cur: processes,
                rlim_max: processes,
            };
            // SAFETY: setrlimit is async-signal-safe, and reads only the struct moved in.
            unsafe {
                command.pre_exec(move || match libc::setrlimit(libc::RLIMIT_NPROC, &limit) {
                    0 => Ok(()),
                    _ => Err(std::io::Error::last_os_error()),
                });
            }
        }
        for (key, value) in &self.env {
            match value {
                Some(value) => command.env(key, value),
                None => command.env_remove(key),
            };
        }
        command
    }

    /// Runs to the end, standard output and error captured, and writes the bytes given to
    /// [`Run::stdin`] as it runs (a program may exit without reading them).
    pub fn output(self) -> Output {
        let program = self.program.clone();
        self.try_output()
            .unwrap_or_else(|error| panic!("cannot run {}: {error}", program.display()))
    }

    /// [`Run::output`], or why the program could not be started.
    pub fn try_output(mut self) -> std::io::Result<Output> {
        if self.stdin.is_some() || self.stdout.is_some() || self.stderr.is_some() {
            // assert_cmd pipes all three streams; a run with one redirected is waited on here.
            return self.try_spawn()?.wait_with_output();
        }
        // assert_cmd writes the input from a thread of its own (a program that writes much
        // before it reads all of its input would otherwise wait on us while we wait on it),
        // and closes standard input at once when there is none.
        let input = self.input.take();
        let mut command = assert_cmd::Command::from_std(self.command());
        if let Some(bytes) = input {
            command.write_stdin(bytes);
        }
        if let Some(limit) = self.timeout {
            command.timeout(limit);
        }
        command.output()
    }

    /// Runs to the end like [`Run::output`], for a test to assert on with `predicates`:
    /// `.assert().success().stdout(predicate::str::contains(..))`.
    pub fn assert(self) -> assert_cmd::assert::Assert {
        let program = self.program.clone();
        let output = self.output();
        assert_cmd::assert::OutputAssertExt::assert(output)
            .append_context("program", program.display().to_string())
    }

    /// Starts the program and returns at once; standard output and error are pipes unless
    /// redirected, standard input `/dev/null` unless redirected.
    pub fn spawn(self) -> Child {
        let program = self.program.clone();
        self.try_spawn()
            .unwrap_or_else(|error| panic!("cannot run {}: {error}", program.display()))
    }

    fn try_spawn(mut self) -> std::io::Result<Child> {
        assert!(
            self.input.is_none(),
            "a redirected or spawned run takes redirect_stdin, not stdin bytes"
        );
        let mut command = self.command();
        command
            .stdin(self.stdin.take().unwrap_or_else(Stdio::null))
            .stdout(self.stdout.take().unwrap_or_else(Stdio::piped))
            .stderr(self.stderr.take().unwrap_or_else(Stdio::piped));
        command.spawn()
    }
}

/// A directory holding a link named `name` to `target`, to put on `PATH`. One directory a
/// target, kept under Cargo's scratch directory so that a link made once serves every run
/// (and a run still starting through it never loses it).
pub fn drop_in_dir(target: &Path, name: &str) -> PathBuf {
    let key: String = target
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("drop-in")
        .join(key);
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join(name);
    match std::os::unix::fs::symlink(target, &link) {
        // Another test made it first: the same link.
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
        result => result.unwrap(),
    }
    dir
}

/// Finds a peer program on PATH. Missing peers fail the test when `FASTHASH_REQUIRE_PEERS` is
/// set (CI installs them all); elsewhere the test says it skipped and passes.
pub fn peer(program: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|candidate| candidate.is_file())
    });
    required(program, found)
}

/// strace, where it can inject a read error into a program it follows (coreutils' tests
/// inject EIO so); missing, like a missing peer. Where it is installed but cannot follow a
/// program (ptrace refused, as in some containers), the test says it skipped and why.
pub fn strace_injecting_faults() -> Option<PathBuf> {
    let strace = peer("strace")?;
    // `cat /dev/null` with its reads of /dev/null failing: it says so and fails.
    let probe = Command::new(&strace)
        .args(["-o", "/dev/null", "-P", "/dev/null", "-e", "/read"])
        .args(["-e", "fault=all:error=EIO", "cat", "/dev/null"])
        .stdin(Stdio::null())
        .output();
    match probe {
        Ok(output) if String::from_utf8_lossy(&output.stderr).contains("Input/output error") => {
            Some(strace)
        }
        Ok(output) => {
            let said = String::from_utf8_lossy(&output.stderr);
            eprintln!("skipped: strace cannot inject faults here: {}", said.trim());
            None
        }
        Err(error) => {
            eprintln!("skipped: strace did not run: {error}");
            None
        }
    }
}

/// libfaketime, which moves a program's clock (see [`Run::clock_ahead`]), where Linux
/// distributions install it; missing, like a missing peer.
pub fn faketime() -> Option<PathBuf> {
    let multiarch = format!("/usr/lib/{}-linux-gnu", std::env::consts::ARCH);
    let found = [
        multiarch.as_str(),
        "/usr/lib64",
        "/usr/lib",
        "/usr/local/lib",
    ]
    .iter()
    .map(|lib| Path::new(lib).join("faketime/libfaketime.so.1"))
    .find(|candidate| candidate.is_file());
    required("libfaketime", found)
}

/// `found`, or: a failure when `FASTHASH_REQUIRE_PEERS` is set, else a test that says it
/// skipped.
fn required(what: &str, found: Option<PathBuf>) -> Option<PathBuf> {
    if found.is_none() {
        if std::env::var_os("FASTHASH_REQUIRE_PEERS").is_some() {
            panic!("{what} is required (FASTHASH_REQUIRE_PEERS) but not installed");
        }
        eprintln!("skipped: {what} is not installed");
    }
    found
}
