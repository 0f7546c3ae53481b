//! The training recipes run for real (`scripts/recipes.sh`): the verifiers environment
//! evaluated with `vf-eval` against the local model, and 2 GRPO steps of
//! `examples/trl_grpo.py` on CPU.
//!
//! Skipped unless `ESCAPADE_RECIPES=1`: the training stack is about 5 GB to install (11
//! minutes) and an optimisation step of SmolLM2-135M takes minutes on 2 cores, more than
//! a CI run can spend on every submission (docs/training.md says when it runs).

use std::path::Path;
use std::process::Command;

#[test]
fn the_recipes_train_and_evaluate_for_real() {
    if std::env::var_os("ESCAPADE_RECIPES").is_none_or(|v| v != "1") {
        eprintln!(
            "skipping the training recipes: set ESCAPADE_RECIPES=1 to run scripts/recipes.sh"
        );
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let status = Command::new("bash")
        .arg(root.join("scripts/recipes.sh"))
        .current_dir(&root)
        .status()
        .expect("bash runs scripts/recipes.sh");
    assert!(status.success(), "scripts/recipes.sh failed: {status}");
}
