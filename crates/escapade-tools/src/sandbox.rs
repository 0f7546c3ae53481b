//! The sandboxed Python executor: the one place in the world crates that does I/O.
//!
//! Why it exists: some tool templates of AgentEscapeBench compute their outputs with real
//! Python programs (`python_exec`). The suite builder runs them at generation time and the
//! oracle runs them again when it verifies, so a run must be repeatable and must not be able
//! to hurt the machine, read the ground truth or reach the network. Everything else in the
//! world crates takes and returns values; callers see only [`CodeRunner`].
//!
//! # What one run does
//! [`PythonSandbox`] writes the program to `main.py` in a fresh temporary directory, starts
//! `python3 -s -S -B -X utf8 -c <prelude>` there with an empty environment except
//! `PYTHONHASHSEED=0`, `LC_ALL=C.UTF-8` and `TZ=UTC`, feeds `stdin` through a pipe and reads
//! at most `max_output_bytes + 1` bytes of standard output before killing the run. The
//! interpreter is `/usr/bin/python3` when present, else `python3` on `PATH`. It is not
//! started with `-I`: `-I` implies `-E`, which would ignore `PYTHONHASHSEED` and bring hash
//! randomisation back; with an environment we write ourselves `-E` protects nothing, and
//! the prelude drops the current directory from `sys.path` the way `-P` would.
//!
//! # Layers, outermost first
//! Each layer is probed once by [`PythonSandbox::new`]; a layer that this machine refuses is
//! left out and reported by [`PythonSandbox::isolation`] rather than failing the build.
//! - **Network namespace** (`unshare(CLONE_NEWNET)`, or `CLONE_NEWUSER | CLONE_NEWNET` when
//!   not root): the program sees only a loopback interface that is down. Containers without
//!   `CAP_SYS_ADMIN` refuse it; the run then shares the host's network and relies on the
//!   seccomp filter, Landlock (TCP) and the audit hook to keep the program off it.
//! - **uid drop**: as root the child becomes uid/gid 65534 (nobody) after the `unshare`, so
//!   root-only files (`/root` is 0700) stay closed and `RLIMIT_NPROC` binds (it does not bind
//!   root). It needs an interpreter that nobody can run: `/usr/bin/python3` is, a pyenv
//!   build under `/root` is not, and the run then stays root.
//! - **Landlock** (Linux ≥ 5.13): reads only under the interpreter's `sys.path`, the system
//!   library directories and `/usr/share/zoneinfo`; execution only of the interpreter and
//!   its ELF loader; writes only in the run's directory; with ABI ≥ 4 no TCP bind or
//!   connect, with ABI ≥ 6 no signals or abstract sockets outside the run.
//! - **seccomp** (x86_64, aarch64): no new processes (`fork`, `vfork`, `clone` without
//!   `CLONE_THREAD`; threads stay allowed), no sockets but Unix ones, and no `ptrace`,
//!   namespaces, mounts, `bpf`, `io_uring`, keyrings or module loading.
//! - **rlimits**: CPU seconds, address space, open files, processes (counted per uid over
//!   the whole machine, so concurrent runs share it), file size, and no core dumps. The
//!   child leads its own process group; the group is killed with `SIGKILL` when the run
//!   ends, times out or floods its output.
//! - **Audit hook** (PEP 578): the prelude refuses `open` outside the run's directory except
//!   reads of the standard library, importing `socket`, `ctypes`, `subprocess`,
//!   `multiprocessing` and their C halves, subprocesses, `fork`/`exec`/`spawn`, signals,
//!   `chdir`, links, rlimit changes, tracing, `gc` introspection and code-object
//!   construction. A refused action is a `PermissionError` naming it, hence
//!   [`SandboxError::Exception`]. So `email`, `asyncio`, `http` and `logging.handlers`,
//!   which import `socket`, are unavailable.
//!
//! The audit hook is defence in depth, not a boundary (PEP 578 says so): for example
//! `importlib.import_module` loads a built-in module such as `_posixsubprocess` without an
//! `import` event. The operating-system layers are the boundary. Without seccomp, a
//! process that gets past the hook and leaves the process group (`setsid`) outlives the
//! run until its own CPU limit. Linux only: elsewhere [`PythonSandbox::new`] returns
//! [`SandboxError::Unsupported`].
//!
//! # Determinism
//! Same code and stdin give the same output: hashing is seeded with 0, the time zone is
//! UTC, text I/O is UTF-8, tracebacks name the program `main.py` (never the temporary
//! path), `sys.argv` is `["main.py"]`, and address-space randomisation is switched off
//! (`personality`) where allowed, so `id()`, default `repr`s and the order of sets of
//! plain objects repeat.
//!
//! # Cost
//! Measured here (2 vCPUs, Linux 6.18, `/usr/bin/python3` 3.11, every layer active, release
//! build): one run of a one-line program costs about 12 ms of wall time, the same as a
//! bare `python3 -S -c pass` in a shell loop, so interpreter start-up is the whole cost and
//! the layers add well under a millisecond; four threads in parallel get ~8 ms per run.
//! [`PythonSandbox::new`] probes for ~20 ms (two interpreter starts; more when a layer is
//! refused). Re-measure with the ignored test `cost_per_run` in `tests/sandbox.rs`.
//! [`MemoRunner`] avoids paying twice for the same program.

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// Runs untrusted Python code. The one place in the world crates that does I/O.
pub trait CodeRunner: Send + Sync {
    /// Runs `code` with `stdin` as standard input; returns standard output without the
    /// line breaks (`\n`, `\r`) at its very end (spaces and everything else are kept).
    /// Deterministic for deterministic code.
    fn run(&self, code: &str, stdin: &str) -> Result<String, SandboxError>;
}

impl<R: CodeRunner + ?Sized> CodeRunner for &R {
    fn run(&self, code: &str, stdin: &str) -> Result<String, SandboxError> {
        (**self).run(code, stdin)
    }
}

impl<R: CodeRunner + ?Sized> CodeRunner for Box<R> {
    fn run(&self, code: &str, stdin: &str) -> Result<String, SandboxError> {
        (**self).run(code, stdin)
    }
}

impl<R: CodeRunner + ?Sized> CodeRunner for Arc<R> {
    fn run(&self, code: &str, stdin: &str) -> Result<String, SandboxError> {
        (**self).run(code, stdin)
    }
}

/// Limits and choices for [`PythonSandbox`]; start from `SandboxConfig::default()`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandboxConfig {
    /// The interpreter: a path, or a bare name looked up on `PATH`. `None` picks
    /// `/usr/bin/python3` when present, else `python3` on `PATH`.
    pub python: Option<PathBuf>,
    /// Wall-clock limit of one run, start-up included (default 5 s).
    pub wall_timeout: Duration,
    /// CPU-time limit in seconds, `RLIMIT_CPU` (default 2; 0 counts as 1).
    pub cpu_seconds: u64,
    /// Address-space limit in bytes, `RLIMIT_AS` (default 512 MiB).
    pub memory_bytes: u64,
    /// Most bytes of standard output accepted; one more kills the run (default 64 KiB).
    pub max_output_bytes: usize,
    /// Largest file the program may write, `RLIMIT_FSIZE` (default 1 MiB).
    pub max_file_bytes: u64,
    /// Most open file descriptors, `RLIMIT_NOFILE` (default 64).
    pub max_open_files: u64,
    /// `RLIMIT_NPROC` (default 32). Linux counts every process and thread of the uid on the
    /// machine, and concurrent runs share uid 65534, so raise it when running many
    /// sandboxes at once whose programs start threads.
    pub max_processes: u64,
    /// Installs the audit hook (default `true`). Turn it off only to test the
    /// operating-system layers on their own.
    pub audit_hook: bool,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            python: None,
            wall_timeout: Duration::from_secs(5),
            cpu_seconds: 2,
            memory_bytes: 512 * 1024 * 1024,
            max_output_bytes: 64 * 1024,
            max_file_bytes: 1024 * 1024,
            max_open_files: 64,
            max_processes: 32,
            audit_hook: true,
        }
    }
}

/// Which protections are active for the runs of one [`PythonSandbox`].
///
/// `Display` lists them, e.g. for the CLI's `--version` or a run's header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Isolation {
    /// The child has its own network namespace: no interface but a loopback that is down.
    pub network_namespace: bool,
    /// The child runs as uid/gid 65534 (nobody) instead of root.
    pub uid_drop: bool,
    /// Landlock confines the filesystem (and TCP, with ABI ≥ 4) to what the run needs.
    pub landlock: bool,
    /// A seccomp filter refuses new processes (threads stay allowed), sockets other than
    /// Unix ones, and kernel interfaces a program has no use for.
    pub seccomp: bool,
    /// CPU, memory, file, process and core rlimits are set.
    pub rlimits: bool,
    /// The prelude's audit hook refuses files, sockets, processes and `ctypes`.
    pub audit_hook: bool,
    /// Address-space randomisation is off, so addresses repeat from run to run.
    pub fixed_layout: bool,
}

impl fmt::Display for Isolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let layers = [
            ("network namespace", self.network_namespace),
            ("uid 65534", self.uid_drop),
            ("landlock", self.landlock),
            ("seccomp", self.seccomp),
            ("rlimits", self.rlimits),
            ("audit hook", self.audit_hook),
            ("fixed memory layout", self.fixed_layout),
        ];
        let mut first = true;
        for (name, on) in layers {
            if !first {
                f.write_str(", ")?;
            }
            first = false;
            write!(f, "{name}: {}", if on { "yes" } else { "no" })?;
        }
        Ok(())
    }
}

/// Errors of the sandbox. A failing *program* is an error too: callers usually turn it
/// into feedback for the agent.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SandboxError {
    /// Occurs when no Python 3 interpreter is configured or found.
    #[error("no python3 interpreter found (looked for {searched})")]
    NoInterpreter {
        /// What was looked for, and where.
        searched: String,
    },
    /// Occurs when the interpreter exists but cannot run even a trivial program, with or
    /// without the protections.
    #[error("python interpreter {} is unusable: {reason}", .python.display())]
    Unusable {
        /// The interpreter that was tried.
        python: PathBuf,
        /// Why, as reported by the probe.
        reason: String,
    },
    /// Occurs on platforms other than Linux, where the sandbox has no implementation.
    #[error("the python sandbox only runs on linux")]
    Unsupported,
    /// Occurs when preparing or cleaning up a run fails: the temporary directory, the
    /// program file, the pipes, the Landlock rules.
    #[error("could not {action}: {source}")]
    Io {
        /// What was being done, e.g. `"create the run directory"`.
        action: &'static str,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// Occurs when the interpreter process cannot be started.
    #[error("could not start {}: {source}", .python.display())]
    Spawn {
        /// The interpreter.
        python: PathBuf,
        /// The underlying error, from `exec` or from a protection refused in the child.
        #[source]
        source: io::Error,
    },
    /// Occurs when the program runs longer than `wall_timeout`.
    #[error("the program exceeded the wall-clock limit of {} ms", .limit.as_millis())]
    Timeout {
        /// The limit.
        limit: Duration,
    },
    /// Occurs when the program uses more CPU time than `cpu_seconds`.
    #[error("the program exceeded the cpu-time limit of {seconds} s")]
    CpuLimit {
        /// The limit.
        seconds: u64,
    },
    /// Occurs when the program raises `MemoryError` under the address-space limit.
    #[error("the program exceeded the memory limit of {bytes} bytes")]
    MemoryLimit {
        /// The limit.
        bytes: u64,
    },
    /// Occurs when a signal other than the CPU limit's ends the program.
    #[error("the program was killed by signal {signal}")]
    Killed {
        /// The signal number.
        signal: i32,
    },
    /// Occurs when the program exits with a non-zero status: an uncaught exception
    /// (including an action the sandbox refused, a `PermissionError`) or `sys.exit(n)`.
    #[error("the program failed with exit status {status}: {}", last_line(.stderr))]
    Exception {
        /// The exit status.
        status: i32,
        /// The end of standard error (at most 4 KiB, whole lines), usually the traceback.
        stderr: String,
    },
    /// Occurs when the program writes more than `max_output_bytes` to standard output.
    #[error("the program wrote more than {limit} bytes to standard output")]
    OutputTooLarge {
        /// The limit.
        limit: usize,
    },
    /// Occurs when standard output is not valid UTF-8.
    #[error("the program's output is not valid utf-8 (first bad byte at offset {valid_up_to})")]
    NotUtf8 {
        /// Length of the valid prefix.
        valid_up_to: usize,
    },
}

/// The last non-empty line of `text`, for one-line error messages.
fn last_line(text: &str) -> &str {
    text.lines()
        .rev()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("(no output on standard error)")
}

/// The exit status the prelude uses for an uncaught `MemoryError`. A program that calls
/// `sys.exit(97)` itself is reported the same way.
const EXIT_MEMORY: i32 = 97;

/// How much of standard error is kept for [`SandboxError::Exception`].
const STDERR_TAIL: usize = 4096;

/// Runs Python programs under the layers listed in the [module docs](self).
#[derive(Debug)]
pub struct PythonSandbox {
    config: SandboxConfig,
    python: PathBuf,
    isolation: Isolation,
    state: imp::State,
}

impl PythonSandbox {
    /// Finds the interpreter and probes which protections work on this machine.
    ///
    /// Costs a few interpreter starts. Fails only when no interpreter is found or it cannot
    /// run a trivial program even without the optional layers.
    pub fn new(config: SandboxConfig) -> Result<Self, SandboxError> {
        let (python, isolation, state) = imp::open(&config)?;
        Ok(PythonSandbox {
            config,
            python,
            isolation,
            state,
        })
    }

    /// Which protections are active.
    pub fn isolation(&self) -> Isolation {
        self.isolation
    }

    /// The interpreter in use.
    pub fn python(&self) -> &std::path::Path {
        &self.python
    }

    /// The configuration in use.
    pub fn config(&self) -> &SandboxConfig {
        &self.config
    }
}

impl CodeRunner for PythonSandbox {
    fn run(&self, code: &str, stdin: &str) -> Result<String, SandboxError> {
        imp::run(&self.state, &self.python, &self.config, code, stdin)
    }
}

/// Caches the successful results of another runner by `(code, stdin)`.
///
/// A suite build runs each program twice, once when it generates a scenario and once when
/// the oracle verifies it. Only successes are kept: a failure may come from load (a
/// timeout) rather than from the program, so it is retried.
#[derive(Debug)]
pub struct MemoRunner<R> {
    inner: R,
    cache: Mutex<BTreeMap<(String, String), String>>,
}

impl<R: CodeRunner> MemoRunner<R> {
    /// Wraps `inner` with an empty cache.
    pub fn new(inner: R) -> Self {
        MemoRunner {
            inner,
            cache: Mutex::new(BTreeMap::new()),
        }
    }

    /// The wrapped runner.
    pub fn inner(&self) -> &R {
        &self.inner
    }

    /// Unwraps the runner, dropping the cache.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// How many results are cached.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether nothing is cached yet.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// The cache; a panic elsewhere cannot leave it half-written, so poisoning is ignored.
    fn lock(&self) -> MutexGuard<'_, BTreeMap<(String, String), String>> {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<R: CodeRunner> CodeRunner for MemoRunner<R> {
    fn run(&self, code: &str, stdin: &str) -> Result<String, SandboxError> {
        let key = (code.to_owned(), stdin.to_owned());
        if let Some(hit) = self.lock().get(&key) {
            return Ok(hit.clone());
        }
        // The lock is not held while running: two threads may run the same program at
        // once, which costs time but never changes the result.
        let output = self.inner.run(code, stdin)?;
        self.lock().insert(key, output.clone());
        Ok(output)
    }
}

/// The Python side: installs the audit hook (when `sys.argv[1] == "1"`), then runs
/// `main.py` from the current directory as `__main__`.
///
/// The hook keeps everything it needs in closure variables bound before the user code
/// runs (builtins, `str` methods, `posix` functions), so monkey-patching `builtins`, `os`
/// or `posixpath` does not change its decisions, and it copies `str`/`bytes` subclasses
/// to exact strings before looking at them. Any exception inside the hook refuses the
/// action.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const PRELUDE: &str = include_str!("sandbox/prelude.py");

#[cfg(target_os = "linux")]
#[path = "sandbox/linux.rs"]
mod imp; // fork, rlimits, privileges, the audit hook, the timeout

#[cfg(not(target_os = "linux"))]
#[path = "sandbox/other.rs"]
mod imp; // no sandbox: running code is refused
