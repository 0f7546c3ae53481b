//! Golden files shared by the vis tests: `tests/golden/<name>`, compared byte for byte,
//! rewritten when `ESCAPADE_BLESS` is set (then look at what changed before committing).

use std::path::PathBuf;

/// Compares `bytes` with the golden file `name` (with its extension), or rewrites it.
pub fn golden(name: &str, bytes: &[u8]) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("ESCAPADE_BLESS").is_some() {
        std::fs::write(&path, bytes).unwrap();
        return;
    }
    let want = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (bless with ESCAPADE_BLESS=1)", path.display()));
    assert!(
        want == bytes,
        "{name} changed; look at it, then bless with ESCAPADE_BLESS=1\n{}",
        if name.ends_with(".txt") {
            String::from_utf8_lossy(bytes).into_owned()
        } else {
            String::new()
        }
    );
}
