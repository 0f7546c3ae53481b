//! The baselines of the vis world: the oracle and the random player (every world names
//! its baselines' module `baseline`; [`crate::oracle`] is the search the oracle replays).
//!
//! The oracle replays the breadth-first search's shortest solution (its step count is the
//! room's oracle steps, so its SPL is 1). The random player picks uniformly among the
//! listed actions each step and, at a code lock, enters four random digits — the floor
//! any model should beat.

use escapade_core::{Action, Agent, AgentTurn, CoreError, Observation, Step};
use rand::Rng;

use crate::game::{ANSWER_TEMPLATE, Game, Move};
use crate::options::Prompt;
use crate::oracle;

/// Replays the oracle's solution.
pub struct OracleAgent {
    plan: Vec<String>,
    next: usize,
}

impl OracleAgent {
    /// The oracle for `game`'s room (its search shared with the room's environment, see
    /// [`oracle::solve_shared`]), naming its actions as the paper's prompt lists them.
    pub fn new(game: &Game) -> Result<OracleAgent, crate::VisError> {
        OracleAgent::with_prompt(game, Prompt::default())
    }

    /// The oracle naming its actions as `prompt` lists them (the original's names, or
    /// ours), so that a person shown its moves finds them among the listed actions.
    pub fn with_prompt(game: &Game, prompt: Prompt) -> Result<OracleAgent, crate::VisError> {
        let solution = oracle::solve_shared(game)?;
        let plan = solution
            .moves
            .iter()
            .map(|m| match (m, prompt) {
                (Move::Answer(a), _) => format!("<ANSWER>{a}</ANSWER>"),
                (other, Prompt::Paper) => format!("[ACTION] {}", crate::prompt::label(game, other)),
                (other, Prompt::Chat | Prompt::Helpful) => {
                    format!("[ACTION] {}", game.label(other))
                }
            })
            .collect();
        Ok(OracleAgent { plan, next: 0 })
    }
}

impl Agent for OracleAgent {
    fn name(&self) -> String {
        "oracle".into()
    }
    fn reset(&mut self, _start: escapade_core::EpisodeStart<'_>) {
        self.next = 0;
    }
    fn act(&mut self, _o: &Observation, _l: Option<&Step>) -> Result<AgentTurn, CoreError> {
        let text = self
            .plan
            .get(self.next)
            .cloned()
            .unwrap_or_else(|| "step back".to_string());
        self.next += 1;
        Ok(AgentTurn::action(Action::text(text)))
    }
}

/// Picks a uniformly random listed action each step.
pub struct RandomAgent {
    rng: escapade_core::seed::Rng,
}

impl RandomAgent {
    /// A random player seeded by `seed`.
    pub fn new(seed: u64) -> RandomAgent {
        RandomAgent {
            rng: escapade_core::seed::rng(escapade_core::seed::derive(seed, "vis-random", 0)),
        }
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
    fn act(&mut self, o: &Observation, _l: Option<&Step>) -> Result<AgentTurn, CoreError> {
        let actions = o.actions.clone().unwrap_or_default();
        if actions.is_empty() {
            return Ok(AgentTurn::action(Action::text("step back")));
        }
        let pick = &actions[self.rng.random_range(0..actions.len())];
        let text = if pick == ANSWER_TEMPLATE {
            let code: String = (0..4)
                .map(|_| char::from(b'0' + self.rng.random_range(0..10u8)))
                .collect();
            format!("<ANSWER>{code}</ANSWER>")
        } else {
            pick.clone()
        };
        Ok(AgentTurn::action(Action::text(text)))
    }
}
