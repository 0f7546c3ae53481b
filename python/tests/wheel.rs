//! The built wheel installs into a clean virtual environment on a machine without Rust and
//! plays there: what a user who does not clone the repository does with
//! `pip install escapade-….whl`.
//!
//! The wheel is `$ESCAPADE_WHEEL`, else the release wheel `scripts/wheels.sh` put in
//! `target/wheels/dist/` (manylinux_2_28), else the one `scripts/install.sh` built into
//! `target/wheels/escapade/`. A fresh venv (from the project venv's base interpreter, no
//! system site-packages) gets the wheel and its dependencies (numpy, gymnasium) through
//! pip, as a user's would; then, with no `cargo`, `rustc` or `rustup` on `PATH`, no
//! `CARGO_*`/`RUSTUP_*` variables and a working directory outside the checkout, Python
//! imports the installed package, makes `escapade/VisEscape-v1` (`gym.make`) and plays a step, and the
//! package's metadata carries its long description, URLs and licence. Without a wheel (or
//! the project venv) the test prints a note and passes, unless `CI=true`: then it fails.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("python/ has a parent")
        .to_path_buf()
}

/// The newest `escapade-*.whl` in `dir`, if any.
fn newest_wheel(dir: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(dir).ok()?;
    entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("escapade-") && n.ends_with(".whl"))
        })
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
}

/// The wheel to install, or `None` (skipped) outside CI.
fn wheel() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("ESCAPADE_WHEEL") {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "$ESCAPADE_WHEEL {} is no file",
            path.display()
        );
        return Some(path);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let found = newest_wheel(&target.join("wheels/dist"))
        .or_else(|| newest_wheel(&target.join("wheels/escapade")));
    if found.is_none() {
        let why = format!(
            "no escapade wheel in {}/wheels/{{dist,escapade}} (scripts/wheels.sh or \
             scripts/install.sh builds one; $ESCAPADE_WHEEL names another): the clean-venv \
             install did not run",
            target.display()
        );
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("CI must have built the wheel: {why}");
        }
        eprintln!("note: {why}");
    }
    found
}

/// `PATH` without the directories that hold a Rust toolchain.
fn path_without_rust() -> OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept = std::env::split_paths(&path).filter(|dir| {
        !["cargo", "rustc", "rustup"]
            .iter()
            .any(|t| dir.join(t).exists())
    });
    std::env::join_paths(kept).expect("PATH entries join")
}

/// Runs `cmd` with the environment cleared of Rust and Python overrides; its output,
/// or a panic naming `what` with it.
fn run(cmd: &mut Command, what: &str) -> String {
    for (key, _) in std::env::vars_os() {
        let key_text = key.to_string_lossy();
        if key_text.starts_with("CARGO")
            || key_text.starts_with("RUSTUP")
            || key_text.starts_with("RUSTC")
            || key_text.starts_with("PYTHON")
            || key_text == "VIRTUAL_ENV"
        {
            cmd.env_remove(&key);
        }
    }
    let output = cmd
        .env("PATH", path_without_rust())
        .output()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{what} failed:\n{text}");
    text
}

/// What the clean environment runs: no Rust, the installed package (not the checkout's
/// sources), VisEscape made and stepped, the metadata a package index shows.
const CHECK: &str = r#"
import shutil, sys, sysconfig
from importlib import metadata
for tool in ("cargo", "rustc", "rustup"):
    assert shutil.which(tool) is None, f"{tool} is on PATH: {shutil.which(tool)}"
import escapade
site = sysconfig.get_paths()["purelib"]
assert escapade.__file__.startswith(site), (escapade.__file__, site)
escapade.make("escapade/VisEscape-v1").reset(seed=0)  # the issue's own line
import gymnasium as gym
env = gym.make("escapade/VisEscape-v1")
obs, info = env.reset(seed=0)
obs, reward, terminated, truncated, info = env.step(info["actions"][0])
assert obs["images"][0].ndim == 3, obs["images"][0].shape
meta = metadata.metadata("escapade")
assert meta["Description-Content-Type"].startswith("text/markdown"), meta["Description-Content-Type"]
assert "pip install escapade-" in meta["Description"]
urls = meta.get_all("Project-URL") or []
assert any(u.startswith("Repository, ") for u in urls), urls
assert meta["License-Expression"] == "MIT OR Apache-2.0", meta["License-Expression"]
print("clean venv:", sys.version.split()[0], escapade.__version__, env.spec.id)
"#;

#[test]
fn the_wheel_installs_and_plays_in_a_clean_venv_without_rust() {
    let Some(wheel) = wheel() else { return };
    let Some(project) = escapade_testkit::venv::python("venv", "the clean-venv install") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let venv = dir.path().join("venv");
    // the project venv's base interpreter makes an environment that sees none of its packages
    run(
        Command::new(&project).arg("-m").arg("venv").arg(&venv),
        "python -m venv",
    );
    let python = venv.join("bin/python");
    run(
        Command::new(&python)
            .args(["-m", "pip", "install", "-q", "--disable-pip-version-check"])
            .arg(&wheel)
            .current_dir(dir.path()),
        &format!("pip install {}", wheel.display()),
    );
    let text = run(
        Command::new(&python)
            .args(["-c", CHECK])
            .current_dir(dir.path()),
        "import escapade; escapade.make('escapade/VisEscape-v1') in the clean venv",
    );
    eprintln!("{} {text}", wheel.display());
}
