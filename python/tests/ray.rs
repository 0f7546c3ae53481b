//! `cargo test -p escapade-py --test ray`: runs `python/tests/test_ray.py` — escapade.ray
//! on a local Ray cluster with two worker processes, one killed mid-episode — with the
//! project's virtual environment, against the native module this build just made.
//!
//! The interpreter is `$ESCAPADE_VENV/bin/python` (default: `.venv` at the workspace
//! root). Without it the test is skipped with a note, unless `CI=true`: then it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("python/ sits in the workspace")
        .to_path_buf()
}

/// The virtual environment's interpreter, if there is one.
fn python() -> Option<PathBuf> {
    let venv = std::env::var_os("ESCAPADE_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join(".venv"));
    let python = venv.join("bin").join("python");
    python.is_file().then_some(python)
}

/// The folder cargo builds into (`target/<profile>/`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its path");
    // target/<profile>/deps/ray-<hash> → target/<profile>/
    exe.parent()
        .and_then(Path::parent)
        .expect("tests run from target/<profile>/deps")
        .to_path_buf()
}

/// The native module cargo built beside this test (`target/<profile>/lib_escapade.so`).
fn native_module() -> PathBuf {
    let profile = profile_dir();
    let name = format!(
        "{}_escapade{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    profile.join(name)
}

/// A folder holding the package `escapade`: its Python sources and the native module.
fn package() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let pkg = dir.path().join("escapade");
    std::fs::create_dir(&pkg).unwrap();
    let sources = workspace().join("python").join("escapade");
    for entry in std::fs::read_dir(&sources).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, pkg.join(path.file_name().unwrap())).unwrap();
        }
    }
    let module = native_module();
    assert!(
        module.is_file(),
        "{} is missing: the native module was not built",
        module.display()
    );
    std::fs::copy(&module, pkg.join("_escapade.abi3.so")).unwrap();
    dir
}

#[test]
fn ray_runs_survive_a_killed_worker_and_equal_a_single_process_run() {
    let Some(python) = python() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but there is no .venv (set ESCAPADE_VENV or run scripts/venv.sh)"
        );
        eprintln!("skipped: no .venv/bin/python (scripts/venv.sh makes it)");
        return;
    };
    let pkg = package();
    let test = workspace().join("python").join("tests").join("test_ray.py");
    let mut pytest = Command::new(&python);
    // the single-process run to compare with is the binary's own when this build made
    // it (`cargo test --workspace` does), else the runner it calls
    let binary = profile_dir().join(format!("escapade{}", std::env::consts::EXE_SUFFIX));
    if binary.is_file() && std::env::var_os("ESCAPADE_BIN").is_none() {
        pytest.env("ESCAPADE_BIN", &binary);
    }
    let out = pytest
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(&test)
        .env("PYTHONPATH", pkg.path())
        // Ray's own files under the test's temporary folder, not /tmp/ray of others
        .env("RAY_TMPDIR", pkg.path())
        .current_dir(pkg.path())
        .output()
        .expect("the interpreter starts");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "pytest failed:\n{text}");
    eprintln!("{text}");
}
