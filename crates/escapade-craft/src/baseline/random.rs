//! The random player: the floor any model should beat.
//!
//! Why: MM-Escape reports no random baseline, but a seeded random player shows what the
//! metrics look like when nothing is understood (a grab ratio near its share of grabs,
//! prop gain from lucky grabs). Each turn it picks one of six kinds uniformly — turn,
//! tilt, walk, look at a point, grab, or enter four random digits — with random
//! parameters (tenths of a degree or metre, hundredths of the picture), all drawn from
//! its seed.

use escapade_core::{Action, Agent, AgentTurn, CoreError, Observation, Step};
use rand::Rng;

use crate::action::CraftAction;

/// A seeded random player.
pub struct RandomAgent {
    rng: escapade_core::seed::Rng,
}

impl RandomAgent {
    /// A random player seeded by `seed`.
    pub fn new(seed: u64) -> RandomAgent {
        RandomAgent {
            rng: escapade_core::seed::rng(escapade_core::seed::derive(seed, "craft-random", 0)),
        }
    }

    /// The next random action.
    pub fn next_action(&mut self) -> CraftAction {
        let mut a = CraftAction::default();
        let round = |v: f32| (v * 10.0).round() / 10.0;
        match self.rng.random_range(0..6u8) {
            0 => a.rotate_right = Some(round(self.rng.random_range(-180.0..180.0f32))),
            1 => a.rotate_down = Some(round(self.rng.random_range(-30.0..30.0f32))),
            2 => a.move_forward = Some(round(self.rng.random_range(-1.0..3.0f32))),
            3 => {
                // hundredths, written as such (0.46, not 0.45999998)
                let hundredths = |v: f32| (v * 100.0).round() / 100.0;
                a.look_at = Some((
                    hundredths(self.rng.random_range(0.0..1.0f32)),
                    hundredths(self.rng.random_range(0.0..1.0f32)),
                ))
            }
            4 => a.grab = true,
            _ => {
                a.grab = true;
                a.input = Some(
                    (0..4)
                        .map(|_| char::from(b'0' + self.rng.random_range(0..10u8)))
                        .collect(),
                );
            }
        }
        a
    }
}

impl Agent for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }
    fn reset(&mut self, start: escapade_core::EpisodeStart<'_>) {
        let seed = start.seed;
        *self = RandomAgent::new(seed);
    }
    fn act(&mut self, _o: &Observation, _l: Option<&Step>) -> Result<AgentTurn, CoreError> {
        Ok(AgentTurn::action(Action::text(
            self.next_action().to_json(),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_replies_read_back_and_are_written_short() {
        let mut agent = RandomAgent::new(7);
        for _ in 0..500 {
            let a = agent.next_action();
            let json = a.to_json();
            assert!(crate::action::parse(&json).is_ok(), "{json}");
            assert!(
                !json.contains("9999") && !json.contains("0000001"),
                "{json}"
            );
        }
    }
}
