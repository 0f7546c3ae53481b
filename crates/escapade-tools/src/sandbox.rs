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
const PRELUDE: &str = r#"import sys
sys.path[:] = [p for p in sys.path if p]
_escapade_guard = sys.argv[1:] == ['1']
sys.argv[:] = ['main.py']

def _escapade_install():
    import posix
    isinstance_ = isinstance
    str_ = str
    bytes_ = bytes
    int_ = int
    and_ = int.__and__
    join = ''.join
    slash_join = '/'.join
    bjoin = b''.join
    decode = bytes.decode
    startswith = str.startswith
    split = str.split
    Denied = PermissionError
    root = posix.getcwd()

    def norm(p):
        if isinstance_(p, str_):
            p = join((p,))
        elif isinstance_(p, bytes_):
            p = decode(bjoin((p,)), 'utf-8', 'surrogateescape')
        else:
            return None
        if not startswith(p, '/'):
            p = root + '/' + p
        parts = []
        for c in split(p, '/'):
            if c == '..':
                if parts:
                    parts.pop()
            elif c and c != '.':
                parts.append(c)
        return '/' + slash_join(parts)

    def inside(p, base):
        return p == base or startswith(p, base + '/')

    reads = [root, '/usr/share/zoneinfo']
    for entry in sys.path:
        p = norm(entry)
        if p is not None:
            reads.append(p)
    reads = tuple(reads)

    def readable(p):
        for r in reads:
            if inside(p, r):
                return True
        return False

    WRITE = posix.O_WRONLY | posix.O_RDWR | posix.O_CREAT | posix.O_TRUNC | posix.O_APPEND
    BLOCKED = frozenset((
        'os.system', 'os.exec', 'os.posix_spawn', 'os.spawn', 'os.fork', 'os.forkpty',
        'os.startfile', 'os.kill', 'os.killpg', 'os.chdir', 'os.link', 'os.symlink',
        'signal.pthread_kill', 'sys.settrace', 'sys.setprofile',
        'sys._settraceallthreads', 'sys._setprofileallthreads', 'sys._current_frames',
        'gc.get_objects', 'gc.get_referrers', 'gc.get_referents', 'code.__new__',
        'sqlite3.enable_load_extension', 'sqlite3.load_extension',
    ))
    BLOCKED_PREFIXES = (
        'socket.', 'ctypes.', 'subprocess.', 'pty.', 'resource.', 'urllib.', 'http.',
        'ftplib.', 'smtplib.', 'poplib.', 'imaplib.', 'nntplib.', 'telnetlib.',
        'webbrowser.', 'sys.monitoring',
    )
    MODULES = frozenset((
        'ctypes', '_ctypes', '_posixsubprocess', 'subprocess', 'socket', '_socket',
        'multiprocessing', '_multiprocessing', '_xxsubinterpreters', '_xxinterpchannels',
        '_interpreters', '_testcapi', '_testinternalcapi', '_testbuffer',
        '_testmultiphase', '_testsinglephase', '_testimportmultiple',
    ))
    LISTING = frozenset(('os.listdir', 'os.scandir'))
    PATH_PREFIXES = ('os.', 'shutil.', 'tempfile.')

    def show(p):
        return '' if p is None else "('" + p + "')"

    def deny(event, detail):
        raise Denied('escapade sandbox: ' + event + detail + ' is not allowed')

    def hook(event, args):
        if event == 'open':
            path = args[0]
            if isinstance_(path, int_):
                return
            p = norm(path)
            if p is None:
                deny(event, '')
            if inside(p, root):
                return
            flags = args[2]
            if isinstance_(flags, int_) and and_(flags, WRITE) == 0 and readable(p):
                return
            deny(event, show(p))
        elif event == 'import':
            name = args[0]
            if isinstance_(name, str_):
                name = join((name,))
                if name in MODULES or split(name, '.')[0] in MODULES:
                    deny(event, ' ' + name)
        elif event in BLOCKED or startswith(event, BLOCKED_PREFIXES):
            deny(event, '')
        elif event in LISTING:
            path = args[0]
            if path is None or isinstance_(path, int_):
                return
            p = norm(path)
            if p is None or not readable(p):
                deny(event, show(p))
        elif event == 'sqlite3.connect':
            db = args[0]
            if not isinstance_(db, str_):
                deny(event, '')
            db = join((db,))
            if db != ':memory:' and (startswith(db, 'file:') or not inside(norm(db), root)):
                deny(event, show(db))
        elif startswith(event, PATH_PREFIXES):
            for a in args:
                if isinstance_(a, (str_, bytes_)):
                    p = norm(a)
                    if not inside(p, root):
                        deny(event, show(p))

    sys.addaudithook(hook)

def _escapade_run():
    excepthook = sys.__excepthook__
    main = type(sys)('__main__')
    main.__dict__['__builtins__'] = __builtins__
    main.__dict__['__file__'] = 'main.py'
    with open('main.py', 'rb') as f:
        source = f.read()
    sys.modules['__main__'] = main
    try:
        exec(compile(source, 'main.py', 'exec', dont_inherit=True), main.__dict__)
    except SystemExit:
        raise
    except BaseException as e:
        tb = e.__traceback__
        e.__traceback__ = None if tb is None else tb.tb_next
        excepthook(type(e), e, e.__traceback__)
        raise SystemExit(97 if isinstance(e, MemoryError) else 1)

if _escapade_guard:
    _escapade_install()
del _escapade_install, _escapade_guard
_escapade_run()
"#;

/// The Linux implementation.
#[cfg(target_os = "linux")]
mod imp {
    use super::{EXIT_MEMORY, Isolation, PRELUDE, STDERR_TAIL, SandboxConfig, SandboxError};
    use std::ffi::OsString;
    use std::fs;
    use std::io::{self, Read, Write};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    use std::path::{Path, PathBuf};
    use std::process::{Child, Command, ExitStatus, Stdio};
    use std::time::{Duration, Instant};

    /// uid and gid of `nobody`.
    const NOBODY: u32 = 65534;

    /// What the probe decided, shared by every run.
    #[derive(Debug)]
    pub(super) struct State {
        /// `unshare` flags, 0 for none.
        unshare_flags: libc::c_int,
        /// uid/gid to switch to.
        drop_to: Option<(libc::uid_t, libc::gid_t)>,
        /// Switch address-space randomisation off.
        fixed_layout: bool,
        /// Landlock ABI and the rules that do not depend on the run, or `None`.
        landlock: Option<landlock::Rules>,
        /// The seccomp filter, or `None`.
        seccomp: Option<seccomp::Filter>,
        /// Which layers are on, as reported.
        isolation: Isolation,
    }

    /// Locates the interpreter and probes the layers.
    pub(super) fn open(
        config: &SandboxConfig,
    ) -> Result<(PathBuf, Isolation, State), SandboxError> {
        let python = locate(config.python.as_deref())?;
        let info = probe_info(&python, config)?;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let root = unsafe { libc::geteuid() } == 0;
        let abi = landlock::abi();
        let rules = if abi > 0 {
            landlock::Rules::new(abi, &python, &info).ok()
        } else {
            None
        };
        let mut state = State {
            unshare_flags: if root {
                libc::CLONE_NEWNET
            } else {
                libc::CLONE_NEWUSER | libc::CLONE_NEWNET
            },
            drop_to: root.then_some((NOBODY, NOBODY)),
            fixed_layout: true,
            landlock: rules,
            seccomp: seccomp::Filter::new(),
            isolation: Isolation::default(),
        };
        if check(&state, &python, config).is_err() {
            // Something is refused here: find out which layers work on their own.
            let State {
                unshare_flags,
                drop_to,
                landlock,
                seccomp,
                ..
            } = state;
            let none = || State {
                unshare_flags: 0,
                drop_to: None,
                fixed_layout: false,
                landlock: None,
                seccomp: None,
                isolation: Isolation::default(),
            };
            let works = |s: &State| check(s, &python, config).is_ok();
            let unshare_ok = unshare_flags != 0
                && works(&State {
                    unshare_flags,
                    ..none()
                });
            let drop_ok = drop_to.is_some() && works(&State { drop_to, ..none() });
            let layout_ok = works(&State {
                fixed_layout: true,
                ..none()
            });
            let seccomp_ok = seccomp.filter(|filter| {
                works(&State {
                    seccomp: Some(*filter),
                    ..none()
                })
            });
            let mut landlock_ok = None;
            if let Some(rules) = landlock {
                let s = State {
                    landlock: Some(rules),
                    ..none()
                };
                if works(&s) {
                    landlock_ok = s.landlock;
                }
            }
            state = State {
                unshare_flags: if unshare_ok { unshare_flags } else { 0 },
                drop_to: if drop_ok { drop_to } else { None },
                fixed_layout: layout_ok,
                landlock: landlock_ok,
                seccomp: seccomp_ok,
                isolation: Isolation::default(),
            };
            if let Err(err) = check(&state, &python, config) {
                return Err(SandboxError::Unusable {
                    python,
                    reason: err.to_string(),
                });
            }
        }
        state.isolation = Isolation {
            network_namespace: state.unshare_flags != 0,
            uid_drop: state.drop_to.is_some(),
            landlock: state.landlock.is_some(),
            seccomp: state.seccomp.is_some(),
            rlimits: true,
            audit_hook: config.audit_hook,
            fixed_layout: state.fixed_layout,
        };
        Ok((python, state.isolation, state))
    }

    /// Runs a program that must print 42 under `state`.
    fn check(state: &State, python: &Path, config: &SandboxConfig) -> Result<(), SandboxError> {
        let out = run(state, python, config, "print(6 * 7)\n", "")?;
        if out == "42" {
            Ok(())
        } else {
            Err(SandboxError::Unusable {
                python: python.to_owned(),
                reason: format!("the probe printed {out:?} instead of \"42\""),
            })
        }
    }

    /// Finds the interpreter: the configured one, `/usr/bin/python3`, or `python3` on PATH.
    fn locate(configured: Option<&Path>) -> Result<PathBuf, SandboxError> {
        let name = match configured {
            Some(path) if path.components().count() > 1 || path.is_absolute() => {
                return if path.is_file() {
                    Ok(std::path::absolute(path).unwrap_or_else(|_| path.to_owned()))
                } else {
                    Err(SandboxError::NoInterpreter {
                        searched: path.display().to_string(),
                    })
                };
            }
            Some(name) => name.as_os_str().to_owned(),
            None => {
                let usr = Path::new("/usr/bin/python3");
                if is_executable(usr) {
                    return Ok(usr.to_owned());
                }
                OsString::from("python3")
            }
        };
        let path = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&path)
            .map(|dir| dir.join(&name))
            .find(|candidate| candidate.is_absolute() && is_executable(candidate))
            .ok_or_else(|| SandboxError::NoInterpreter {
                searched: format!(
                    "{}{} on PATH",
                    if configured.is_none() {
                        "/usr/bin/python3 and "
                    } else {
                        ""
                    },
                    Path::new(&name).display()
                ),
            })
    }

    /// A regular file with an execute bit.
    fn is_executable(path: &Path) -> bool {
        fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }

    /// What the interpreter reports about itself, run without protections (our own code).
    pub(super) struct Info {
        /// `sys.executable`.
        pub(super) executable: PathBuf,
        /// `sys.base_prefix`.
        pub(super) base_prefix: PathBuf,
        /// The non-empty entries of `sys.path`.
        pub(super) path: Vec<PathBuf>,
    }

    /// Asks the interpreter for its executable, prefix and module path.
    fn probe_info(python: &Path, config: &SandboxConfig) -> Result<Info, SandboxError> {
        let mut cmd = Command::new(python);
        cmd.args([
            "-s",
            "-S",
            "-B",
            "-c",
            "import sys\nprint(sys.executable)\nprint(sys.base_prefix)\n\
             for p in sys.path:\n    p and print(p)\n",
        ]);
        let dir = tempfile::Builder::new()
            .prefix("escapade-py-")
            .tempdir()
            .map_err(|source| SandboxError::Io {
                action: "create the probe directory",
                source,
            })?;
        prepare(&mut cmd, dir.path());
        let child = cmd.spawn().map_err(|source| SandboxError::Spawn {
            python: python.to_owned(),
            source,
        })?;
        let out = supervise(child, "", config)?;
        let text = verdict(out, config)?;
        let mut lines = text.lines().map(PathBuf::from);
        match (lines.next(), lines.next()) {
            (Some(executable), Some(base_prefix)) => Ok(Info {
                executable,
                base_prefix,
                path: lines.collect(),
            }),
            _ => Err(SandboxError::Unusable {
                python: python.to_owned(),
                reason: format!("unexpected answer to the path probe: {text:?}"),
            }),
        }
    }

    /// Arguments, environment and pipes shared by the probe and the runs.
    fn prepare(cmd: &mut Command, dir: &Path) {
        cmd.env_clear()
            .env("PYTHONHASHSEED", "0")
            .env("LC_ALL", "C.UTF-8")
            .env("TZ", "UTC")
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
    }

    /// One run.
    pub(super) fn run(
        state: &State,
        python: &Path,
        config: &SandboxConfig,
        code: &str,
        stdin: &str,
    ) -> Result<String, SandboxError> {
        let dir = tempfile::Builder::new()
            .prefix("escapade-py-")
            .tempdir()
            .map_err(|source| SandboxError::Io {
                action: "create the run directory",
                source,
            })?;
        let result = run_in(state, python, config, code, stdin, dir.path());
        let path = dir.path().to_owned();
        if dir.close().is_err() {
            remove_stubborn(&path);
        }
        result
    }

    /// One run in the directory `dir`.
    fn run_in(
        state: &State,
        python: &Path,
        config: &SandboxConfig,
        code: &str,
        stdin: &str,
        dir: &Path,
    ) -> Result<String, SandboxError> {
        let io_err = |action| move |source| SandboxError::Io { action, source };
        let program = dir.join("main.py");
        fs::write(&program, code).map_err(io_err("write the program file"))?;
        if let Some((uid, gid)) = state.drop_to {
            std::os::unix::fs::chown(dir, Some(uid), Some(gid))
                .and_then(|()| std::os::unix::fs::chown(&program, Some(uid), Some(gid)))
                .map_err(io_err("hand the run directory to uid 65534"))?;
        }
        let ruleset = match &state.landlock {
            Some(rules) => Some(
                rules
                    .ruleset(dir)
                    .map_err(io_err("build the landlock rules"))?,
            ),
            None => None,
        };
        let plan = Plan {
            unshare_flags: state.unshare_flags,
            drop_to: state.drop_to,
            fixed_layout: state.fixed_layout,
            landlock_fd: ruleset.as_ref().map(AsRawFd::as_raw_fd),
            limits: limits(config),
            seccomp: state.seccomp,
        };
        let mut cmd = Command::new(python);
        cmd.args(["-s", "-S", "-B", "-X", "utf8", "-c", PRELUDE]);
        cmd.arg(if config.audit_hook { "1" } else { "0" });
        prepare(&mut cmd, dir);
        // SAFETY: `Plan::apply` only makes raw system calls on data prepared beforehand:
        // no allocation, no locks, nothing that is unsafe between fork and exec.
        unsafe {
            cmd.pre_exec(move || plan.apply());
        }
        let child = cmd.spawn().map_err(|source| SandboxError::Spawn {
            python: python.to_owned(),
            source,
        })?;
        drop(ruleset);
        let out = supervise(child, stdin, config)?;
        verdict(out, config)
    }

    /// Turns what the child did into the caller's result.
    fn verdict(out: Outcome, config: &SandboxConfig) -> Result<String, SandboxError> {
        let (status, cpu, stdout, stderr) = match out {
            Outcome::TimedOut => {
                return Err(SandboxError::Timeout {
                    limit: config.wall_timeout,
                });
            }
            Outcome::TooLarge => {
                return Err(SandboxError::OutputTooLarge {
                    limit: config.max_output_bytes,
                });
            }
            Outcome::Exited {
                status,
                cpu,
                stdout,
                stderr,
            } => (status, cpu, stdout, stderr),
        };
        let cpu_limit = config.cpu_seconds.max(1);
        if let Some(signal) = status.signal() {
            let over = cpu >= Duration::from_secs(cpu_limit);
            return Err(
                if signal == libc::SIGXCPU || (signal == libc::SIGKILL && over) {
                    SandboxError::CpuLimit { seconds: cpu_limit }
                } else {
                    SandboxError::Killed { signal }
                },
            );
        }
        match status.code() {
            Some(0) => match String::from_utf8(stdout) {
                Ok(mut text) => {
                    text.truncate(text.trim_end_matches(['\n', '\r']).len());
                    Ok(text)
                }
                Err(err) => Err(SandboxError::NotUtf8 {
                    valid_up_to: err.utf8_error().valid_up_to(),
                }),
            },
            Some(EXIT_MEMORY) => Err(SandboxError::MemoryLimit {
                bytes: config.memory_bytes,
            }),
            Some(status) => Err(SandboxError::Exception {
                status,
                stderr: tail_text(&stderr),
            }),
            None => Err(SandboxError::Killed { signal: 0 }),
        }
    }

    /// The end of standard error as text: whole lines, trailing whitespace removed.
    fn tail_text(stderr: &Tail) -> String {
        let text = String::from_utf8_lossy(&stderr.bytes);
        let text = if stderr.cut {
            text.split_once('\n').map_or("", |(_, rest)| rest)
        } else {
            &text
        };
        text.trim_end().to_owned()
    }

    /// The rlimits of a run, each lowered to the current hard limit so that setting it
    /// cannot fail.
    fn limits(config: &SandboxConfig) -> [(libc::c_int, libc::rlimit); 6] {
        let cpu = config.cpu_seconds.max(1);
        let wanted = [
            (libc::RLIMIT_CPU as libc::c_int, cpu, cpu.saturating_add(1)),
            (
                libc::RLIMIT_AS as libc::c_int,
                config.memory_bytes,
                config.memory_bytes,
            ),
            (
                libc::RLIMIT_NOFILE as libc::c_int,
                config.max_open_files,
                config.max_open_files,
            ),
            (
                libc::RLIMIT_NPROC as libc::c_int,
                config.max_processes,
                config.max_processes,
            ),
            (
                libc::RLIMIT_FSIZE as libc::c_int,
                config.max_file_bytes,
                config.max_file_bytes,
            ),
            (libc::RLIMIT_CORE as libc::c_int, 0, 0),
        ];
        wanted.map(|(resource, soft, hard)| {
            let mut current = libc::rlimit {
                rlim_cur: 0,
                rlim_max: libc::RLIM_INFINITY,
            };
            // SAFETY: `current` is a valid, writable rlimit.
            if unsafe { libc::getrlimit(resource as _, &mut current) } != 0 {
                current.rlim_max = libc::RLIM_INFINITY;
            }
            let hard = hard.min(current.rlim_max);
            (
                resource,
                libc::rlimit {
                    rlim_cur: soft.min(hard),
                    rlim_max: hard,
                },
            )
        })
    }

    /// What the child does between `fork` and `exec`; plain data, copied into the closure.
    #[derive(Clone, Copy)]
    struct Plan {
        unshare_flags: libc::c_int,
        drop_to: Option<(libc::uid_t, libc::gid_t)>,
        fixed_layout: bool,
        landlock_fd: Option<RawFd>,
        limits: [(libc::c_int, libc::rlimit); 6],
        seccomp: Option<seccomp::Filter>,
    }

    impl Plan {
        /// Applies the layers in the child. Order matters: `unshare` needs root's
        /// capabilities, so it comes before the uid drop; rlimits come after it, so that
        /// the kernel does not count uid 65534's processes against `RLIMIT_NPROC` at
        /// `setuid` and refuse the `exec`; Landlock and seccomp come last, once nothing
        /// needs what they close, and need `no_new_privs`.
        fn apply(&self) -> io::Result<()> {
            fn check(ret: libc::c_long) -> io::Result<()> {
                if ret == -1 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(())
                }
            }
            // SAFETY: plain system calls on values owned by `self`; each result is checked.
            unsafe {
                if self.unshare_flags != 0 {
                    check(libc::unshare(self.unshare_flags).into())?;
                }
                if let Some((uid, gid)) = self.drop_to {
                    check(libc::setgroups(0, std::ptr::null()).into())?;
                    check(libc::setgid(gid).into())?;
                    check(libc::setuid(uid).into())?;
                }
                if self.fixed_layout {
                    let persona = libc::personality(0xffff_ffff);
                    check(persona.into())?;
                    let persona = (persona | libc::ADDR_NO_RANDOMIZE) as libc::c_ulong;
                    check(libc::personality(persona).into())?;
                }
                for (resource, limit) in &self.limits {
                    check(libc::setrlimit(*resource as _, limit).into())?;
                }
                check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0).into())?;
                if let Some(fd) = self.landlock_fd {
                    check(libc::syscall(libc::SYS_landlock_restrict_self, fd, 0))?;
                }
                if let Some(filter) = &self.seccomp {
                    let program = filter.program();
                    let mode = libc::c_ulong::from(libc::SECCOMP_MODE_FILTER);
                    check(libc::prctl(libc::PR_SET_SECCOMP, mode, &raw const program).into())?;
                }
            }
            Ok(())
        }
    }

    /// The end of a stream, at most [`STDERR_TAIL`] bytes.
    #[derive(Default)]
    struct Tail {
        bytes: Vec<u8>,
        /// Whether bytes before `bytes` were dropped.
        cut: bool,
    }

    impl Tail {
        fn push(&mut self, chunk: &[u8]) {
            self.bytes.extend_from_slice(chunk);
            if self.bytes.len() > 2 * STDERR_TAIL {
                let excess = self.bytes.len() - STDERR_TAIL;
                self.bytes.drain(..excess);
                self.cut = true;
            }
        }
    }

    /// How a run ended.
    enum Outcome {
        /// It exited or was killed by a signal it caused.
        Exited {
            status: ExitStatus,
            cpu: Duration,
            stdout: Vec<u8>,
            stderr: Tail,
        },
        /// The wall-clock limit passed.
        TimedOut,
        /// Standard output passed its limit.
        TooLarge,
    }

    /// The child and its process group; dropping it kills the group and reaps the child.
    struct Running {
        pid: libc::pid_t,
        reaped: bool,
    }

    impl Running {
        /// `SIGKILL` to the whole group. Only called while the child is unreaped, so the
        /// group id cannot have been reused.
        fn kill_group(&self) {
            // SAFETY: killpg has no memory-safety preconditions.
            unsafe {
                libc::killpg(self.pid, libc::SIGKILL);
            }
        }

        /// Whether the child has exited, without reaping it.
        fn exited(&self) -> io::Result<bool> {
            // SAFETY: an all-zero siginfo_t is valid; waitid only writes into it.
            let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
            let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
            // SAFETY: `info` is valid and writable; `pid` is our unreaped child.
            let ret =
                unsafe { libc::waitid(libc::P_PID, self.pid as libc::id_t, &mut info, flags) };
            if ret != 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: waitid filled `info` (or left it zeroed with WNOHANG).
            Ok(unsafe { info.si_pid() } != 0)
        }

        /// Kills what is left of the group, reaps the child and returns its status and
        /// CPU time.
        fn finish(&mut self) -> io::Result<(ExitStatus, Duration)> {
            self.kill_group();
            let mut status = 0;
            // SAFETY: an all-zero rusage is valid; wait4 only writes into it.
            let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
            loop {
                // SAFETY: pointers to valid locals; `pid` is our unreaped child.
                let ret = unsafe { libc::wait4(self.pid, &mut status, 0, &mut usage) };
                if ret == self.pid {
                    break;
                }
                let err = io::Error::last_os_error();
                if err.kind() != io::ErrorKind::Interrupted {
                    self.reaped = true;
                    return Err(err);
                }
            }
            self.reaped = true;
            let time = |t: libc::timeval| {
                Duration::from_secs(t.tv_sec.max(0) as u64)
                    + Duration::from_micros(t.tv_usec.max(0) as u64)
            };
            Ok((
                ExitStatus::from_raw(status),
                time(usage.ru_utime) + time(usage.ru_stime),
            ))
        }
    }

    impl Drop for Running {
        fn drop(&mut self) {
            if !self.reaped {
                let _ = self.finish();
            }
        }
    }

    /// Feeds `stdin`, collects the output under its cap, and waits for the child within
    /// the wall-clock limit. The group is always killed and the child always reaped.
    fn supervise(
        mut child: Child,
        stdin: &str,
        config: &SandboxConfig,
    ) -> Result<Outcome, SandboxError> {
        let start = Instant::now();
        // A timeout too large for the clock means "no timeout": a year will do.
        let deadline = start
            .checked_add(config.wall_timeout)
            .unwrap_or_else(|| start + Duration::from_secs(365 * 24 * 3600));
        let pipes = |source| SandboxError::Io {
            action: "talk to the program",
            source,
        };
        let mut running = Running {
            pid: libc::pid_t::try_from(child.id()).map_err(|_| {
                pipes(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "pid out of range",
                ))
            })?,
            reaped: false,
        };
        let mut input = child.stdin.take();
        let mut stdout_pipe = child.stdout.take();
        let mut stderr_pipe = child.stderr.take();
        for fd in [
            input.as_ref().map(AsRawFd::as_raw_fd),
            stdout_pipe.as_ref().map(AsRawFd::as_raw_fd),
            stderr_pipe.as_ref().map(AsRawFd::as_raw_fd),
        ]
        .into_iter()
        .flatten()
        {
            set_nonblocking(fd).map_err(pipes)?;
        }
        let pidfd = pidfd_open(running.pid);
        let stdin = stdin.as_bytes();
        let mut written = 0;
        if stdin.is_empty() {
            input = None;
        }
        let mut stdout = Vec::new();
        let mut stderr = Tail::default();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Ok(Outcome::TimedOut);
            }
            if running.exited().map_err(pipes)? {
                // Whatever the child wrote is in the pipes now; take it and stop, even if
                // a straggler in its group still holds them open.
                let cap = config.max_output_bytes.saturating_add(1);
                drain(&mut stdout_pipe, &mut buf, cap, |c| {
                    stdout.extend_from_slice(c)
                });
                drain(&mut stderr_pipe, &mut buf, 4 * STDERR_TAIL, |c| {
                    stderr.push(c)
                });
                if stdout.len() > config.max_output_bytes {
                    return Ok(Outcome::TooLarge);
                }
                let (status, cpu) = running.finish().map_err(pipes)?;
                return Ok(Outcome::Exited {
                    status,
                    cpu,
                    stdout,
                    stderr,
                });
            }
            let mut fds = Vec::with_capacity(4);
            let mut push = |fd: RawFd, events| {
                fds.push(libc::pollfd {
                    fd,
                    events,
                    revents: 0,
                })
            };
            if let Some(w) = &input {
                push(w.as_raw_fd(), libc::POLLOUT);
            }
            if let Some(r) = &stdout_pipe {
                push(r.as_raw_fd(), libc::POLLIN);
            }
            if let Some(r) = &stderr_pipe {
                push(r.as_raw_fd(), libc::POLLIN);
            }
            if let Some(p) = &pidfd {
                push(p.as_raw_fd(), libc::POLLIN);
            }
            // Without a pidfd, or with the pipes closed, the exit is noticed by polling.
            let mut wait = deadline - now;
            if pidfd.is_none() {
                wait = wait.min(Duration::from_millis(2));
            }
            let millis = libc::c_int::try_from(wait.as_millis() + 1).unwrap_or(libc::c_int::MAX);
            // SAFETY: `fds` is a valid array of `fds.len()` pollfd structs.
            let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, millis) };
            if ready < 0 {
                let err = io::Error::last_os_error();
                if err.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(pipes(err));
            }
            if let Some(w) = &mut input {
                match w.write(&stdin[written..]) {
                    Ok(n) => written += n,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    // The program closed its standard input or exited: stop feeding it.
                    Err(_) => written = stdin.len(),
                }
                if written >= stdin.len() {
                    input = None;
                }
            }
            let cap = config.max_output_bytes.saturating_add(1);
            let room = cap.saturating_sub(stdout.len()).clamp(1, buf.len());
            if read_some(&mut stdout_pipe, &mut buf[..room], |c| {
                stdout.extend_from_slice(c)
            }) {
                return Err(pipes(io::Error::last_os_error()));
            }
            if stdout.len() > config.max_output_bytes {
                return Ok(Outcome::TooLarge);
            }
            if read_some(&mut stderr_pipe, &mut buf, |c| stderr.push(c)) {
                return Err(pipes(io::Error::last_os_error()));
            }
        }
    }

    /// One non-blocking read; closes the pipe at end of file. Returns `true` on an error
    /// that is neither "try again" nor "interrupted" (and leaves it in `errno`).
    fn read_some<R: Read>(
        pipe: &mut Option<R>,
        buf: &mut [u8],
        mut sink: impl FnMut(&[u8]),
    ) -> bool {
        let Some(r) = pipe else { return false };
        match r.read(buf) {
            Ok(0) => *pipe = None,
            Ok(n) => sink(&buf[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                ) => {}
            Err(_) => return true,
        }
        false
    }

    /// Reads what is already in a pipe, without waiting for more and at most about
    /// `limit` bytes (a straggler could otherwise keep it full forever).
    fn drain<R: Read>(
        pipe: &mut Option<R>,
        buf: &mut [u8],
        limit: usize,
        mut sink: impl FnMut(&[u8]),
    ) {
        let mut taken = 0;
        while let Some(r) = pipe {
            if taken >= limit {
                break;
            }
            match r.read(buf) {
                Ok(0) => *pipe = None,
                Ok(n) => {
                    taken += n;
                    sink(&buf[..n]);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
    }

    fn set_nonblocking(fd: RawFd) -> io::Result<()> {
        // SAFETY: fcntl on a descriptor we own; results are checked.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }

    /// A descriptor that becomes readable when `pid` exits (Linux ≥ 5.3), if available.
    fn pidfd_open(pid: libc::pid_t) -> Option<OwnedFd> {
        // SAFETY: pidfd_open takes plain integers and returns a new descriptor or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        let fd = RawFd::try_from(fd).ok().filter(|fd| *fd >= 0)?;
        // SAFETY: `fd` was just returned by the kernel and is owned by nobody else.
        Some(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    /// Removes a run directory the program made hard to remove (a directory without
    /// write or search permission), best effort. Only reached when not root.
    fn remove_stubborn(path: &Path) {
        fn open_up(path: &Path) {
            let Ok(meta) = fs::symlink_metadata(path) else {
                return;
            };
            if meta.is_dir() {
                let _ = fs::set_permissions(path, fs::Permissions::from_mode(0o700));
                if let Ok(entries) = fs::read_dir(path) {
                    for entry in entries.flatten() {
                        open_up(&entry.path());
                    }
                }
            }
        }
        open_up(path);
        let _ = fs::remove_dir_all(path);
    }

    /// A classic-BPF seccomp filter, built once and copied into every child.
    mod seccomp {
        use libc::sock_filter;

        /// Room for the program; it needs about 80 instructions.
        const CAPACITY: usize = 128;
        /// `AUDIT_ARCH_*` of the native system-call ABI.
        #[cfg(target_arch = "x86_64")]
        const ARCH: u32 = 0xc000_003e;
        #[cfg(target_arch = "aarch64")]
        const ARCH: u32 = 0xc000_00b7;
        const ALLOW: u32 = libc::SECCOMP_RET_ALLOW;
        const EPERM: u32 = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;
        const ENOSYS: u32 = libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32;
        /// Offsets into `struct seccomp_data`: nr, arch, low half of args[0].
        const NR: u32 = 0;
        const ARCH_AT: u32 = 4;
        const ARG0: u32 = 16;

        /// Plain data (`Copy`), so the child needs no allocation to install it.
        #[derive(Clone, Copy)]
        pub(super) struct Filter {
            code: [sock_filter; CAPACITY],
            len: u16,
        }

        impl std::fmt::Debug for Filter {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "Filter({} instructions)", self.len)
            }
        }

        impl Filter {
            /// The filter for this architecture; `None` where it has not been written.
            #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
            pub(super) fn new() -> Option<Self> {
                let mut refused: Vec<libc::c_long> = vec![
                    libc::SYS_ptrace,
                    libc::SYS_process_vm_readv,
                    libc::SYS_process_vm_writev,
                    libc::SYS_bpf,
                    libc::SYS_perf_event_open,
                    libc::SYS_userfaultfd,
                    libc::SYS_keyctl,
                    libc::SYS_add_key,
                    libc::SYS_request_key,
                    libc::SYS_io_uring_setup,
                    libc::SYS_io_uring_enter,
                    libc::SYS_io_uring_register,
                    libc::SYS_unshare,
                    libc::SYS_setns,
                    libc::SYS_mount,
                    libc::SYS_umount2,
                    libc::SYS_pivot_root,
                    libc::SYS_chroot,
                    libc::SYS_open_by_handle_at,
                    libc::SYS_name_to_handle_at,
                    libc::SYS_kexec_load,
                    libc::SYS_init_module,
                    libc::SYS_finit_module,
                    libc::SYS_delete_module,
                    libc::SYS_reboot,
                    libc::SYS_swapon,
                    libc::SYS_swapoff,
                    libc::SYS_acct,
                ];
                #[cfg(target_arch = "x86_64")]
                refused.extend([libc::SYS_fork, libc::SYS_vfork]);
                let op = |code: u32| u16::try_from(code).unwrap_or(u16::MAX);
                let load = |at| sock_filter {
                    code: op(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS),
                    jt: 0,
                    jf: 0,
                    k: at,
                };
                let ret = |k| sock_filter {
                    code: op(libc::BPF_RET | libc::BPF_K),
                    jt: 0,
                    jf: 0,
                    k,
                };
                let jump = |test: u32, k, jt, jf| sock_filter {
                    code: op(libc::BPF_JMP | test | libc::BPF_K),
                    jt,
                    jf,
                    k,
                };
                let nr = |n: libc::c_long| u32::try_from(n).unwrap_or(u32::MAX);
                let mut p = vec![
                    load(ARCH_AT),
                    jump(libc::BPF_JEQ, ARCH, 1, 0),
                    ret(EPERM), // a foreign ABI (i386 int 0x80): nothing allowed
                    load(NR),
                ];
                #[cfg(target_arch = "x86_64")]
                p.extend([jump(libc::BPF_JGE, 0x4000_0000, 0, 1), ret(EPERM)]); // x32
                for n in refused {
                    p.extend([jump(libc::BPF_JEQ, nr(n), 0, 1), ret(EPERM)]);
                }
                // clone3 hides its flags in memory: say it does not exist, and glibc falls
                // back to clone, whose flags can be checked.
                p.extend([jump(libc::BPF_JEQ, nr(libc::SYS_clone3), 0, 1), ret(ENOSYS)]);
                // clone: threads only.
                p.extend([
                    jump(libc::BPF_JEQ, nr(libc::SYS_clone), 0, 4),
                    load(ARG0),
                    jump(libc::BPF_JSET, nr(libc::CLONE_THREAD.into()), 0, 1),
                    ret(ALLOW),
                    ret(EPERM),
                ]);
                // socket: Unix domain only.
                p.extend([
                    jump(libc::BPF_JEQ, nr(libc::SYS_socket), 0, 4),
                    load(ARG0),
                    jump(libc::BPF_JEQ, nr(libc::AF_UNIX.into()), 0, 1),
                    ret(ALLOW),
                    ret(EPERM),
                ]);
                p.push(ret(ALLOW));
                let mut code = [ret(EPERM); CAPACITY];
                code.get_mut(..p.len())?.copy_from_slice(&p);
                Some(Filter {
                    code,
                    len: u16::try_from(p.len()).ok()?,
                })
            }

            #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
            pub(super) fn new() -> Option<Self> {
                None
            }

            /// The `sock_fprog` pointing into `self`.
            pub(super) fn program(&self) -> libc::sock_fprog {
                libc::sock_fprog {
                    len: self.len,
                    filter: self.code.as_ptr().cast_mut(),
                }
            }
        }
    }

    /// Landlock through raw system calls (the libc crate has the numbers, not the types).
    mod landlock {
        use super::Info;
        use std::fs;
        use std::io::{self, Read};
        use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
        use std::os::unix::fs::OpenOptionsExt;
        use std::path::{Path, PathBuf};

        const EXECUTE: u64 = 1 << 0;
        const WRITE_FILE: u64 = 1 << 1;
        const READ_FILE: u64 = 1 << 2;
        const READ_DIR: u64 = 1 << 3;
        const MAKE_CHAR: u64 = 1 << 6;
        const MAKE_BLOCK: u64 = 1 << 11;
        /// Rights of ABI 1 (bits 0–12).
        const ABI1: u64 = (1 << 13) - 1;
        const REFER: u64 = 1 << 13;
        const TRUNCATE: u64 = 1 << 14;
        const IOCTL_DEV: u64 = 1 << 15;
        const NET_BIND_TCP: u64 = 1 << 0;
        const NET_CONNECT_TCP: u64 = 1 << 1;
        const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
        const SCOPE_SIGNAL: u64 = 1 << 1;
        /// Rights that only make sense on files (not directories).
        const FILE_RIGHTS: u64 = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV;

        #[repr(C)]
        struct RulesetAttr {
            handled_access_fs: u64,
            handled_access_net: u64,
            scoped: u64,
        }

        #[repr(C, packed)]
        struct PathBeneathAttr {
            allowed_access: u64,
            parent_fd: i32,
        }

        /// The Landlock ABI version, 0 when unavailable.
        pub(super) fn abi() -> u32 {
            // SAFETY: with LANDLOCK_CREATE_RULESET_VERSION the attribute must be null/0.
            let ret = unsafe {
                libc::syscall(
                    libc::SYS_landlock_create_ruleset,
                    std::ptr::null::<RulesetAttr>(),
                    0usize,
                    1u32,
                )
            };
            u32::try_from(ret).unwrap_or(0)
        }

        /// The rules that do not depend on the run: opened once, reused by every run.
        #[derive(Debug)]
        pub(super) struct Rules {
            abi: u32,
            fixed: Vec<(OwnedFd, u64)>,
        }

        impl Rules {
            /// Read access to the module path, library directories and zoneinfo; execute
            /// access to the interpreter and its ELF loader; read/write to `/dev/null`.
            pub(super) fn new(abi: u32, python: &Path, info: &Info) -> io::Result<Self> {
                let read = READ_FILE | READ_DIR;
                let mut wanted: Vec<(PathBuf, u64)> = Vec::new();
                for exe in [python, info.executable.as_path()] {
                    let exe = fs::canonicalize(exe)?;
                    if let Some(loader) = elf_interpreter(&exe) {
                        wanted.push((loader, EXECUTE | READ_FILE));
                    }
                    wanted.push((exe, EXECUTE | READ_FILE));
                }
                for dir in &info.path {
                    wanted.push((dir.clone(), read));
                }
                wanted.push((info.base_prefix.join("lib"), read));
                for dir in ["/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib"] {
                    wanted.push((PathBuf::from(dir), read));
                }
                wanted.push((PathBuf::from("/usr/share/zoneinfo"), read));
                wanted.push((PathBuf::from("/etc/ld.so.cache"), READ_FILE));
                wanted.push((
                    PathBuf::from("/dev/null"),
                    READ_FILE | WRITE_FILE | TRUNCATE,
                ));
                let mut fixed = Vec::new();
                for (path, access) in wanted {
                    let Ok(meta) = fs::metadata(&path) else {
                        continue; // absent here (python311.zip, /lib64, ...)
                    };
                    let access = if meta.is_dir() {
                        access
                    } else {
                        access & FILE_RIGHTS
                    };
                    let Ok(fd) = open_path(&path) else {
                        continue;
                    };
                    fixed.push((fd, access));
                }
                Ok(Rules { abi, fixed })
            }

            /// A ruleset for one run: the fixed rules plus full access to `dir`.
            pub(super) fn ruleset(&self, dir: &Path) -> io::Result<OwnedFd> {
                let mut fs_rights = ABI1;
                if self.abi >= 2 {
                    fs_rights |= REFER;
                }
                if self.abi >= 3 {
                    fs_rights |= TRUNCATE;
                }
                if self.abi >= 5 {
                    fs_rights |= IOCTL_DEV;
                }
                let attr = RulesetAttr {
                    handled_access_fs: fs_rights,
                    handled_access_net: if self.abi >= 4 {
                        NET_BIND_TCP | NET_CONNECT_TCP
                    } else {
                        0
                    },
                    scoped: if self.abi >= 6 {
                        SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
                    } else {
                        0
                    },
                };
                let size: usize = match self.abi {
                    0..=3 => 8,
                    4 | 5 => 16,
                    _ => 24,
                };
                // SAFETY: `attr` is valid for `size` bytes (a prefix of the struct).
                let fd =
                    unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, &attr, size, 0u32) };
                let fd = i32::try_from(fd)
                    .ok()
                    .filter(|fd| *fd >= 0)
                    .ok_or_else(io::Error::last_os_error)?;
                // SAFETY: a fresh descriptor from the kernel, owned by nobody else.
                let ruleset = unsafe { OwnedFd::from_raw_fd(fd) };
                let run_dir = open_path(dir)?;
                let run_rights = fs_rights & !(MAKE_CHAR | MAKE_BLOCK);
                let rules = self
                    .fixed
                    .iter()
                    .map(|(fd, access)| (fd, *access))
                    .chain([(&run_dir, run_rights)]);
                for (fd, access) in rules {
                    let rule = PathBeneathAttr {
                        allowed_access: access & fs_rights,
                        parent_fd: fd.as_raw_fd(),
                    };
                    // SAFETY: `rule` is a valid landlock_path_beneath_attr (type 1).
                    let ret = unsafe {
                        libc::syscall(
                            libc::SYS_landlock_add_rule,
                            ruleset.as_raw_fd(),
                            1 as libc::c_int,
                            &rule,
                            0u32,
                        )
                    };
                    if ret != 0 {
                        return Err(io::Error::last_os_error());
                    }
                }
                Ok(ruleset)
            }
        }

        /// An `O_PATH` descriptor for a rule.
        fn open_path(path: &Path) -> io::Result<OwnedFd> {
            let file = fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_PATH | libc::O_CLOEXEC)
                .open(path)?;
            Ok(OwnedFd::from(file))
        }

        /// The ELF program interpreter (`PT_INTERP`, the dynamic loader) of `exe`: the
        /// kernel opens it for execution, so Landlock must allow that too.
        fn elf_interpreter(exe: &Path) -> Option<PathBuf> {
            let mut head = Vec::new();
            fs::File::open(exe)
                .ok()?
                .take(64 * 1024)
                .read_to_end(&mut head)
                .ok()?;
            let bytes = |at: usize, n: usize| head.get(at..at.checked_add(n)?);
            if bytes(0, 4)? != b"\x7fELF" || *bytes(5, 1)?.first()? != 1 {
                return None; // not ELF, or big-endian
            }
            let le = |at: usize, n: usize| {
                bytes(at, n).map(|b| b.iter().rev().fold(0u64, |acc, &x| acc << 8 | u64::from(x)))
            };
            let wide = *bytes(4, 1)?.first()? == 2;
            let (phoff, phentsize, phnum) = if wide {
                (le(0x20, 8)?, le(0x36, 2)?, le(0x38, 2)?)
            } else {
                (le(0x1c, 4)?, le(0x2a, 2)?, le(0x2c, 2)?)
            };
            for i in 0..phnum {
                let at = usize::try_from(i.checked_mul(phentsize)?.checked_add(phoff)?).ok()?;
                if le(at, 4)? != 3 {
                    continue; // not PT_INTERP
                }
                let (offset, size) = if wide {
                    (le(at.checked_add(8)?, 8)?, le(at.checked_add(32)?, 8)?)
                } else {
                    (le(at.checked_add(4)?, 4)?, le(at.checked_add(16)?, 4)?)
                };
                let raw = bytes(usize::try_from(offset).ok()?, usize::try_from(size).ok()?)?;
                let raw = raw.split(|&b| b == 0).next()?;
                let path = PathBuf::from(std::str::from_utf8(raw).ok()?);
                return fs::canonicalize(path).ok();
            }
            None
        }
    }
}

/// Elsewhere than Linux there is no sandbox: [`PythonSandbox::new`] says so.
#[cfg(not(target_os = "linux"))]
mod imp {
    use super::{Isolation, SandboxConfig, SandboxError};
    use std::path::{Path, PathBuf};

    /// Nothing to keep.
    #[derive(Debug)]
    pub(super) struct State;

    pub(super) fn open(
        _config: &SandboxConfig,
    ) -> Result<(PathBuf, Isolation, State), SandboxError> {
        Err(SandboxError::Unsupported)
    }

    pub(super) fn run(
        _state: &State,
        _python: &Path,
        _config: &SandboxConfig,
        _code: &str,
        _stdin: &str,
    ) -> Result<String, SandboxError> {
        Err(SandboxError::Unsupported)
    }
}
