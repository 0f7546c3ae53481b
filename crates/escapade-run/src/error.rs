//! Errors of the runner: files, formats, configuration and sources.
//!
//! An agent or environment failing inside an episode is *not* a [`RunError`]: it ends that
//! episode with `error` set in its row and the run goes on. These errors stop the command.

use std::path::PathBuf;

use escapade_core::CoreError;

/// Errors of suites, run directories, runs and reports.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// Occurs when a file or directory cannot be read, written or created.
    #[error("{action} {}: {source}", path.display())]
    Io {
        /// What was being done (`cannot read`, `cannot create`, …).
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Occurs when a line of a JSON Lines file is not a valid row (other than a torn last
    /// line, which is skipped with a warning).
    #[error("{}:{line}: invalid row: {message}", path.display())]
    BadRow {
        /// The file.
        path: PathBuf,
        /// Line number, from 1.
        line: usize,
        /// What was wrong.
        message: String,
    },
    /// Occurs when a file (run.toml, suite.json, a scenario) does not have the expected
    /// format.
    #[error("{}: {message}", path.display())]
    BadFile {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// Occurs when a suite name is one a world retired (its bytes changed and its version
    /// was bumped).
    #[error("suite `{name}` was replaced by `{replaced_by}` ({why}); run `{replaced_by}`")]
    RetiredSuite {
        /// The old name.
        name: String,
        /// The suite to use instead.
        replaced_by: String,
        /// What changed.
        why: String,
    },
    /// Occurs when a directory given as a run directory has no `run.toml` or no
    /// `episodes.jsonl`.
    #[error("{} is not a run directory ({missing} is missing)", path.display())]
    NotARunDir {
        /// The directory.
        path: PathBuf,
        /// The file that is missing.
        missing: &'static str,
    },
    /// Occurs when resuming into a run directory made with a different configuration.
    #[error(
        "{} holds a run with config hash {found}, but this run's config hashes to {expected} \
         (differs in: {fields}); choose another --out to start a new run",
        path.display()
    )]
    ConfigMismatch {
        /// The run directory.
        path: PathBuf,
        /// Hash of the configuration being run.
        expected: String,
        /// Hash recorded in the run directory.
        found: String,
        /// Comma-separated names of the configuration fields that differ.
        fields: String,
    },
    /// Occurs when another process is writing the run directory (a second `run --out` or
    /// `resume` of the same directory).
    #[error(
        "{} is being written by another escapade process; wait for it to finish (or use another --out)",
        .0.display()
    )]
    Locked(PathBuf),
    /// Occurs when another process is judging the same run directory (`escapade judge`).
    #[error(
        "{} is being written by another escapade judge; wait for it to finish",
        .0.display()
    )]
    JudgeLocked(PathBuf),
    /// Occurs when the model backend of a judge cannot be opened (unknown provider,
    /// missing API key, bad base URL, a script that does not parse).
    #[error("cannot open the model backend `{model}`: {error}")]
    Backend {
        /// The backend spec, `provider/model`.
        model: String,
        /// Why it could not be opened (in the message, not the error chain, so that it is
        /// printed once).
        error: escapade_llm::LlmError,
    },
    /// Occurs when two scenarios of one run or suite share an id.
    #[error("two scenarios share the id `{id}`")]
    DuplicateScenario {
        /// The shared id.
        id: String,
    },
    /// Occurs when a run is given no scenarios (empty suite, `--limit 0`, empty directory).
    #[error("no scenarios to run")]
    NoScenarios,
    /// Occurs when a name (world, suite, source, scenario id, agent) is not known.
    #[error("unknown {what} `{name}`{}; known: {known}", closest.as_ref().map(|c| format!(" (did you mean `{c}`?)")).unwrap_or_default())]
    Unknown {
        /// What kind of name.
        what: &'static str,
        /// The name given.
        name: String,
        /// The known name closest to it, when one is close (a typo).
        closest: Option<String>,
        /// Comma-separated known names, or `(none)`.
        known: String,
    },
    /// Occurs when scenarios of different worlds are mixed in one run.
    #[error("scenarios of different worlds in one run: `{first}` and `{second}`")]
    MixedWorlds {
        /// The world of the first scenario.
        first: String,
        /// The other world met.
        second: String,
    },
    /// Occurs when a setting is out of range or does not fit the others (`--epochs 0`,
    /// a bad `--shard`, `-A max_tokens=x`, `--role` for a one-role world).
    #[error("invalid setting: {reason}")]
    Invalid {
        /// The setting at fault, as the user gives it (`epochs`, `shard`, `role`,
        /// `max_tokens`, `scenarios`).
        setting: String,
        /// What is wrong and what it takes.
        reason: String,
    },
    /// Occurs when agents, a team of agents or their options cannot be made (a partner
    /// for `play`, a judge's client options, the bench's model agent).
    #[error("{context}: {error}")]
    Agent {
        /// What was being made (`cannot make the expert`).
        context: String,
        /// Why not (in the message, not the error chain, so that it is printed once).
        error: escapade_agents::AgentError,
    },
    /// Occurs when a plot cannot be drawn, encoded or written (see `plots`).
    #[error("cannot draw {}: {message}", path.display())]
    Plot {
        /// The plot file.
        path: PathBuf,
        /// What went wrong, as the plotting library tells it.
        message: String,
    },
    /// Occurs when an episode record played by a worker cannot be committed: its bytes
    /// do not decode, or it belongs to another run, scenario or epoch than it says.
    #[error("bad episode record: {message}")]
    BadRecord {
        /// What was wrong.
        message: String,
    },
    /// Occurs when a world refuses a request (bad scenario, unknown suite or agent kind).
    #[error(transparent)]
    Core(#[from] CoreError),
}

impl RunError {
    /// A [`RunError::Invalid`] of `setting`.
    pub fn invalid(setting: impl Into<String>, reason: impl Into<String>) -> Self {
        RunError::Invalid {
            setting: setting.into(),
            reason: reason.into(),
        }
    }

    /// Wraps an I/O error with what was being done and where.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        RunError::Io {
            action,
            path: path.into(),
            source,
        }
    }

    /// A [`RunError::Unknown`] listing `known` (or `(none)`).
    pub fn unknown<I, S>(what: &'static str, name: &str, known: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let known: Vec<String> = known.into_iter().map(|s| s.as_ref().to_string()).collect();
        RunError::Unknown {
            what,
            name: name.to_string(),
            closest: closest(name, &known).map(str::to_string),
            known: known_list(name, &known),
        }
    }
}

/// Most names an "unknown" message lists (a suite has a thousand scenario ids; the
/// longest list of option keys has fewer).
const MAX_KNOWN: usize = 30;

/// The known names for a message: all of them when few, else those closest to `name`
/// (sharing its longest prefix) and how many more there are.
fn known_list(name: &str, known: &[String]) -> String {
    if known.is_empty() {
        return "(none)".to_string();
    }
    if known.len() <= MAX_KNOWN {
        return known.join(", ");
    }
    let shared = |k: &String| {
        k.chars()
            .zip(name.chars())
            .take_while(|(a, b)| a == b)
            .count()
    };
    let best = known.iter().map(shared).max().unwrap_or(0);
    let mut close: Vec<&String> = known.iter().filter(|k| shared(k) == best).collect();
    if best == 0 {
        close.truncate(0);
        close.extend(known.iter());
    }
    let shown: Vec<&str> = close.iter().take(MAX_KNOWN).map(|s| s.as_str()).collect();
    format!("{} … ({} in all)", shown.join(", "), known.len())
}

/// The name of `known` closest to `name` in edits (letters added, removed, changed),
/// when it is close enough to be a typo of it: at most a third of its letters, or it
/// is `name` with its `@version` left out or changed (`visescape` for `visescape@3`).
pub fn closest<'a>(name: &str, known: &'a [String]) -> Option<&'a str> {
    let lower = name.to_lowercase();
    let base = |s: &str| s.split('@').next().unwrap_or(s).to_string();
    known
        .iter()
        .map(|k| {
            let k_lower = k.to_lowercase();
            let d = if base(&k_lower) == base(&lower) {
                0
            } else {
                edits(&lower, &k_lower)
            };
            (d, k)
        })
        .filter(|(d, k)| *d <= (k.chars().count() / 3).max(1) && *k != name)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k.as_str())
}

/// Levenshtein distance between `a` and `b`, in characters.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let replace = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = replace.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// Result with [`RunError`].
pub type Result<T, E = RunError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_list_of_known_names_shows_the_closest() {
        let ids: Vec<String> = (0..1000).map(|i| format!("comma-wire-{i:03}")).collect();
        let e = RunError::unknown("scenario", "comma-wire-0", &ids).to_string();
        assert!(
            e.contains("comma-wire-000, comma-wire-001") && e.contains("(1000 in all)"),
            "{e}"
        );
        assert!(e.len() < 700, "{e}");
        let e = RunError::unknown("scenario", "zzz", &ids).to_string();
        assert!(
            e.contains("comma-wire-000") && e.contains("(1000 in all)") && e.len() < 700,
            "{e}"
        );
        let e = RunError::unknown("suite", "x", ["a@1", "b@1"]).to_string();
        assert_eq!(e, "unknown suite `x`; known: a@1, b@1");
    }

    #[test]
    fn a_typo_is_answered_with_the_closest_name() {
        let suites = [
            "agentescape@2",
            "visescape@3",
            "visescape-hints@3",
            "comma@4",
        ];
        let e = RunError::unknown("suite", "agentescap@2", suites).to_string();
        assert!(
            e.starts_with("unknown suite `agentescap@2` (did you mean `agentescape@2`?); known: "),
            "{e}"
        );
        let e = RunError::unknown("suite", "visescape@9", suites).to_string();
        assert!(e.contains("did you mean `visescape@3`?"), "{e}");
        let e = RunError::unknown("suite", "craft", suites).to_string();
        assert!(!e.contains("did you mean"), "{e}");
        assert_eq!(edits("kitten", "sitting"), 3);
        assert_eq!(edits("", "ab"), 2);
    }
}
