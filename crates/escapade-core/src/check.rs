//! `check_env`: the conformance checker every world runs over its suite.
//!
//! Like Gymnasium's `check_env`, it plays an environment and asserts the contract:
//! determinism (same seed and actions ⇒ identical observations), well-formed steps
//! (progress in range, feedback present, terminal steps flagged), misuse after the end is
//! an error, and no secret appears in anything the agent sees while it plays junk.

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

#[cfg(test)]
mod tests {
    //! A toy environment with one switchable fault per check, so that each check is
    //! shown to catch what it is for.
    use super::*;
    use crate::env::Outcome;
    use crate::{Image, Observation, Step, ToolSchema};

    #[derive(Default, Clone, Copy, PartialEq)]
    enum Fault {
        #[default]
        None,
        /// Observations count resets: two plays differ.
        Drifts,
        /// The secret is in the reset's text.
        LeaksInText,
        /// The secret is in a picture's description.
        LeaksInPicture,
        /// Progress 1.5.
        Overshoots,
        /// Empty feedback.
        Mute,
        /// Steps after the end are accepted.
        Unguarded,
    }

    #[derive(Default)]
    struct Toy {
        fault: Fault,
        resets: u32,
        steps: u32,
    }

    const SECRET: &str = "hunter2";

    impl Env for Toy {
        fn reset(&mut self, _seed: u64) -> Observation {
            self.resets += 1;
            self.steps = 0;
            let mut o = Observation::text(match self.fault {
                Fault::Drifts => format!("reset number {}", self.resets),
                Fault::LeaksInText => format!("the password is {SECRET}"),
                _ => "a quiet room".to_string(),
            });
            if self.fault == Fault::LeaksInPicture {
                let alt = format!("a note that reads {SECRET}");
                o.images.push(Image::with_alt(vec![1, 2, 3], alt));
            }
            o
        }
        fn step(&mut self, action: &Action) -> Result<Step, EnvError> {
            if self.steps >= 2 && self.fault != Fault::Unguarded {
                return Err(EnvError::EpisodeOver);
            }
            self.steps += 1;
            let valid = matches!(action, Action::Text { text } if text == "wait");
            Ok(Step {
                observation: Observation::text("still quiet"),
                feedback: if self.fault == Fault::Mute { "" } else { "ok" }.into(),
                progress: if self.fault == Fault::Overshoots {
                    1.5
                } else {
                    0.0
                },
                terminated: self.steps >= 2,
                error: (!valid).then(|| "parse".into()),
                ..Step::default()
            })
        }
        fn system_prompt(&self) -> String {
            "Wait.".into()
        }
        fn tool_schemas(&self) -> Vec<ToolSchema> {
            Vec::new()
        }
        fn outcome(&self) -> Outcome {
            Outcome::default()
        }
        fn secrets(&self) -> Vec<String> {
            vec![SECRET.into()]
        }
    }

    fn check(fault: Fault) -> Result<(), CheckError> {
        let mut env = Toy {
            fault,
            ..Toy::default()
        };
        check_env(&mut env, 7, &[Action::text("wait"), Action::text("junk")])
    }

    #[test]
    fn a_sound_env_passes() {
        assert_eq!(check(Fault::None), Ok(()));
    }

    #[test]
    fn each_broken_contract_is_caught() {
        assert!(matches!(
            check(Fault::Drifts),
            Err(CheckError::NotDeterministic { step: 0, .. })
        ));
        assert!(matches!(
            check(Fault::LeaksInText),
            Err(CheckError::Leak { step: 0, .. })
        ));
        assert!(matches!(
            check(Fault::LeaksInPicture),
            Err(CheckError::Leak { step: 0, .. })
        ));
        assert!(matches!(
            check(Fault::Overshoots),
            Err(CheckError::Malformed { step: 1, .. })
        ));
        assert!(matches!(
            check(Fault::Mute),
            Err(CheckError::Malformed { step: 1, .. })
        ));
        assert_eq!(check(Fault::Unguarded), Err(CheckError::NoEndGuard));
    }
}
