//! The Linux implementation of the sandbox: a forked interpreter with rlimits, an
//! unprivileged user, no network, the audit hook and a wall-clock timeout.

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
pub(super) fn open(config: &SandboxConfig) -> Result<(PathBuf, Isolation, State), SandboxError> {
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
        let ret = unsafe { libc::waitid(libc::P_PID, self.pid as libc::id_t, &mut info, flags) };
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
fn read_some<R: Read>(pipe: &mut Option<R>, buf: &mut [u8], mut sink: impl FnMut(&[u8])) -> bool {
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
fn drain<R: Read>(pipe: &mut Option<R>, buf: &mut [u8], limit: usize, mut sink: impl FnMut(&[u8])) {
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
            let fd = unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, &attr, size, 0u32) };
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
