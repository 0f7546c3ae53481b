//! `counter`, the toy world of escapade-testkit, and what the runner's tests do with it:
//! read rows, make a spec, run scenarios into a folder.

use std::io::BufRead;
use std::path::Path;

pub use escapade_testkit::counter::*;

/// Reads every line of a JSON Lines file as `T`, failing on any bad line.
pub fn rows<T: serde::de::DeserializeOwned>(path: &Path) -> Vec<T> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    std::io::BufReader::new(file)
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect()
}

/// A spec for a baseline agent with otherwise default settings.
pub fn spec(agent: &str) -> escapade_run::RunSpec {
    escapade_run::RunSpec {
        agent: agent.into(),
        source: "counter@1".into(),
        ..Default::default()
    }
}

/// Runs `scenarios` with the baseline named by `spec.agent` into `out`, quietly.
pub fn run_in(
    out: &Path,
    scenarios: &[(String, String)],
    spec: &escapade_run::RunSpec,
) -> Result<escapade_run::RunSummary, escapade_run::RunError> {
    let agents = escapade_run::Baseline::new(&CounterWorld, &spec.agent)?;
    escapade_run::run(
        &CounterWorld,
        scenarios,
        spec,
        &agents,
        out,
        escapade_run::Progress::quiet(),
    )
}
