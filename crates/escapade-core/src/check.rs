//! `check_env`: the conformance checker every world runs over its suite.
//!
//! Like Gymnasium's `check_env`, it plays an environment and asserts the contract:
//! determinism (same seed and actions ⇒ identical observations), well-formed steps
//! (progress in range, feedback present, terminal steps flagged, the oracle's distance as
//! the environment answers it and 0 exactly when won), misuse after the end is an error,
//! and no secret appears in anything the agent sees while it plays junk.

use crate::{Action, Env, EnvError};

/// A violation found by [`check_env`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// Occurs when two resets with the same seed and actions differ.
    #[error("not deterministic at step {step}: {what}")]
    NotDeterministic {
        /// Step index (0 = reset).
        step: usize,
        /// What differed.
        what: String,
    },
    /// Occurs when a step is malformed (progress out of range, empty feedback).
    #[error("malformed step {step}: {what}")]
    Malformed {
        /// Step index.
        step: usize,
        /// What was wrong.
        what: String,
    },
    /// Occurs when a secret appears in an observation or feedback.
    #[error("secret leaked at step {step}: {secret:?}")]
    Leak {
        /// Step index (0 = reset).
        step: usize,
        /// The leaked string.
        secret: String,
    },
    /// Occurs when stepping after the end is not refused.
    #[error("stepping after the episode ended was not refused")]
    NoEndGuard,
    /// Occurs when the environment returns an unexpected error.
    #[error("environment error: {0}")]
    Env(#[from] EnvError),
}

/// Checks everything of an observation an agent reads: its text, each picture's
/// description (what a text-only agent reads instead) and the listed actions.
fn seen(
    step: usize,
    o: &crate::Observation,
    leak: &dyn Fn(usize, &str) -> Result<(), CheckError>,
) -> Result<(), CheckError> {
    leak(step, &o.text)?;
    for alt in o.images.iter().filter_map(|i| i.alt.as_deref()) {
        leak(step, alt)?;
    }
    for action in o.actions.iter().flatten() {
        leak(step, action)?;
    }
    Ok(())
}

/// The oracle's distance a step reports is what the environment answers after it, and
/// it is 0 exactly when the episode is won (`None`, unknown, is always allowed).
fn distance(n: usize, step: &crate::Step, env: &dyn Env) -> Result<(), CheckError> {
    let malformed = |what: String| Err(CheckError::Malformed { step: n, what });
    if step.steps_to_go != env.steps_to_go() {
        return malformed(format!(
            "the step reports steps_to_go {:?}, the environment {:?}",
            step.steps_to_go,
            env.steps_to_go()
        ));
    }
    let won = env.outcome().success;
    match step.steps_to_go {
        Some(0) if !won => malformed("steps_to_go 0 but the episode is not won".into()),
        Some(d) if won && d > 0 => malformed(format!("the episode is won but steps_to_go {d}")),
        _ => Ok(()),
    }
}

/// Plays `actions` twice from `reset(seed)` and checks the contract. `actions` should be
/// junk or exploratory (not a solution), so that no secret is legitimately earned.
pub fn check_env(env: &mut dyn Env, seed: u64, actions: &[Action]) -> Result<(), CheckError> {
    let secrets: Vec<String> = env
        .secrets()
        .into_iter()
        .filter(|s| s.chars().count() >= 4)
        .collect();
    let leak = |step: usize, text: &str| -> Result<(), CheckError> {
        match secrets.iter().find(|s| text.contains(s.as_str())) {
            Some(s) => Err(CheckError::Leak {
                step,
                secret: s.clone(),
            }),
            None => Ok(()),
        }
    };
    let mut transcripts = Vec::new();
    for _ in 0..2 {
        let mut transcript = Vec::new();
        let first = env.reset(seed);
        seen(0, &first, &leak)?;
        leak(0, &env.system_prompt())?;
        for schema in env.tool_schemas() {
            leak(0, &schema.description)?;
            leak(0, &schema.parameters.to_string())?;
        }
        transcript.push(serde_json::to_string(&first).unwrap_or_default());
        let mut ended = false;
        for (i, action) in actions.iter().enumerate() {
            let step = env.step(action)?;
            let n = i + 1;
            if !(0.0..=1.0).contains(&step.progress) {
                return Err(CheckError::Malformed {
                    step: n,
                    what: format!("progress {}", step.progress),
                });
            }
            if step.feedback.trim().is_empty() {
                return Err(CheckError::Malformed {
                    step: n,
                    what: "empty feedback".into(),
                });
            }
            distance(n, &step, env)?;
            seen(n, &step.observation, &leak)?;
            leak(n, &step.feedback)?;
            for r in &step.results {
                leak(n, &r.feedback)?;
            }
            transcript.push(serde_json::to_string(&step).unwrap_or_default());
            if step.terminated || step.truncated {
                ended = true;
                break;
            }
        }
        if ended && env.step(&Action::text("noop")) != Err(EnvError::EpisodeOver) {
            return Err(CheckError::NoEndGuard);
        }
        transcripts.push(transcript);
    }
    let (a, b) = (&transcripts[0], &transcripts[1]);
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if x != y {
            return Err(CheckError::NotDeterministic {
                step: i,
                what: "observation or step differs".into(),
            });
        }
    }
    Ok(())
}
