//! `escapade show`: what an agent sees at the start of a scenario, written to a folder.
//!
//! Authors check a generated or imported scenario without playing it, and docs show a
//! world's first view: the system prompt, each role's first observation (text, the
//! actions offered, the alt text of each picture) as `observation.md`, and the pictures
//! as `view-<role>-<n>.png`. Nothing here knows a world's rules; it calls `reset` once.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use escapade_core::World;

use crate::error::{Result, RunError};

/// Writes the start of `scenario_json` (reset with `seed`, the environment opened with
/// `world_options`) into `out`; returns the files
/// written, `observation.md` first. Two-role worlds show the first observation of the
/// role whose turn it is and the prompt of every role.
pub fn show(
    world: &dyn World,
    scenario_json: &str,
    seed: u64,
    world_options: &BTreeMap<String, String>,
    out: &Path,
) -> Result<Vec<PathBuf>> {
    let mut env = world.env(scenario_json, world_options)?;
    let observation = env.reset(seed);
    std::fs::create_dir_all(out).map_err(|e| RunError::io("cannot create", out, e))?;
    let mut md = String::new();
    let system = env.system_prompt();
    let system = match system.trim_end() {
        // a world whose observations are whole prompts (VisEscape's) sends none
        "" => "(none: each observation is the whole prompt)",
        text => text,
    };
    let _ = writeln!(md, "# System prompt\n\n{system}\n");
    for role in env.roles() {
        let _ = writeln!(
            md,
            "# Prompt of the {role}\n\n{}\n",
            env.role_prompt(&role).trim_end()
        );
    }
    let whose = observation
        .role
        .as_deref()
        .map(|r| format!(" (the {r}'s turn)"))
        .unwrap_or_default();
    let _ = writeln!(
        md,
        "# First observation{whose}\n\n{}\n",
        observation.text.trim_end()
    );
    if let Some(actions) = &observation.actions {
        let _ = writeln!(md, "# Actions offered\n\n{}\n", actions.join("\n"));
    }
    let mut written = vec![out.join("observation.md")];
    let stem = observation.role.as_deref().unwrap_or("start");
    for (n, image) in observation.images.iter().enumerate() {
        let name = format!("view-{stem}-{}.png", n + 1);
        let path = out.join(&name);
        std::fs::write(&path, &image.png).map_err(|e| RunError::io("cannot write", &path, e))?;
        let _ = writeln!(
            md,
            "# Picture {}: `{name}`\n\n{}\n",
            n + 1,
            image.alt.as_deref().unwrap_or("(no description)")
        );
        written.push(path);
    }
    std::fs::write(&written[0], md).map_err(|e| RunError::io("cannot write", &written[0], e))?;
    Ok(written)
}
