//! Golden files shared by the vis tests: `tests/golden/<name>`, compared byte for byte
//! by escapade-testkit (rewritten when `ESCAPADE_BLESS` is set; then look at what changed
//! before committing).

/// Compares `bytes` with the golden file `name` (with its extension), or rewrites it.
pub fn golden(name: &str, bytes: &[u8]) {
    escapade_testkit::golden::check(escapade_testkit::golden_dir!().join(name), bytes);
}
