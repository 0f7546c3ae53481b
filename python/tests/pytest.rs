//! Runs the Python tests (`python/tests/test_*.py`: Gymnasium's `check_env` and vector
//! envs, PettingZoo's `api_test`, Inspect AI with `mockllm`) against the native module
//! this very `cargo test` built, with the project's virtual environment's Python.
//!
//! The module is not installed anywhere: the freshly built `lib_escapade.so` and the
//! package's Python sources are staged in a temporary directory, with the dist-info
//! (entry points) maturin would write, and put first on `PYTHONPATH` — so a broken
//! binding fails here, whatever an older wheel in `.venv` holds, and the shared `.venv` is
//! never written to. Without `.venv` (or `$ESCAPADE_VENV`) the test prints a note and
//! passes, unless `CI=true`: then it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("python/ has a parent")
        .to_path_buf()
}

/// The project's Python with pytest, or `None` (skipped) outside CI.
fn python() -> Option<PathBuf> {
    escapade_testkit::venv::python("pytest", "the Python tests")
}

/// The native module cargo built beside this test (`target/<profile>/deps`).
fn native_module() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let deps = exe.parent().expect("the deps directory");
    let module = deps.join("lib_escapade.so");
    assert!(
        module.exists(),
        "{} is missing: cargo builds it with the tests (crate-type cdylib)",
        module.display()
    );
    module
}

/// The entry points `pyproject.toml` declares, as `entry_points.txt` reads them.
fn entry_points(pyproject: &str) -> String {
    let doc: toml::Table = pyproject.parse().expect("pyproject.toml is TOML");
    let mut out = String::new();
    let groups = doc
        .get("project")
        .and_then(|p| p.get("entry-points"))
        .and_then(|e| e.as_table());
    for (group, entries) in groups.into_iter().flatten() {
        out.push_str(&format!("[{group}]\n"));
        for (name, target) in entries.as_table().into_iter().flatten() {
            out.push_str(&format!(
                "{name} = {}\n",
                target.as_str().unwrap_or_default()
            ));
        }
    }
    out
}

/// A directory importable as the installed package.
fn stage(dir: &Path) {
    let package = dir.join("escapade");
    std::fs::create_dir_all(&package).unwrap();
    for entry in std::fs::read_dir(root().join("python/escapade")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, package.join(path.file_name().unwrap())).unwrap();
        }
    }
    std::fs::copy(native_module(), package.join("_escapade.abi3.so")).unwrap();
    let info = dir.join(format!("escapade-{}.dist-info", env!("CARGO_PKG_VERSION")));
    std::fs::create_dir_all(&info).unwrap();
    std::fs::write(
        info.join("METADATA"),
        format!(
            "Metadata-Version: 2.1\nName: escapade\nVersion: {}\n",
            env!("CARGO_PKG_VERSION")
        ),
    )
    .unwrap();
    let pyproject = std::fs::read_to_string(root().join("python/pyproject.toml")).unwrap();
    std::fs::write(info.join("entry_points.txt"), entry_points(&pyproject)).unwrap();
}

#[test]
fn the_python_tests_pass_against_this_build() {
    let Some(python) = python() else { return };
    let staged = tempfile::tempdir().unwrap();
    // Inspect namespaces a package's tasks (`escapade/agentescape`) only when the
    // package lives in a `site-packages` directory, as an installed one does
    let site = staged.path().join("site-packages");
    stage(&site);
    let tests = root().join("python/tests");
    let path = std::env::join_paths([&site, &tests]).unwrap();
    let output = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-W"])
        .arg("ignore::DeprecationWarning")
        .arg(&tests)
        .env("PYTHONPATH", path)
        // the sources are read from the checkout: leave no __pycache__ in it
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(staged.path())
        .output()
        .expect("python runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    eprintln!("{text}");
    assert!(output.status.success(), "the Python tests failed:\n{text}");
    assert!(text.contains(" passed"), "pytest ran no test:\n{text}");
}

#[test]
fn the_staged_package_declares_the_inspect_entry_point() {
    let pyproject = std::fs::read_to_string(root().join("python/pyproject.toml")).unwrap();
    let points = entry_points(&pyproject);
    assert!(
        points.contains("[inspect_ai]\nescapade = escapade._registry\n"),
        "{points}"
    );
}
