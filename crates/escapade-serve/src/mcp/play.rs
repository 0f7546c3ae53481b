//! One episode held for a client: the shared episode core ([`escapade_run::remote`],
//! the same loop as `escapade play` and `escapade serve`) and what the MCP answers need
//! besides it — the episode's id, world, scenario and the role the client holds.

use std::path::PathBuf;
use std::sync::Arc;

use escapade_core::{Observation, Options, ScenarioHeader, Step, World};
use escapade_run::PlayOptions;
use escapade_run::remote::{self, Ending, Seen, Spec};
use escapade_run::runner::Baseline;

use super::error::ToolError;

/// What is needed to start an episode.
pub struct Start {
    /// The world that plays it.
    pub world: Arc<dyn World>,
    /// The scenario, as JSON.
    pub scenario: String,
    /// The suite label recorded (`agentescape@2`, or `mcp:<id>` for a scenario sent
    /// inline).
    pub suite: String,
    /// Seed given to `reset`.
    pub seed: u64,
    /// The world's environment options.
    pub options: Options,
    /// In a world whose roles take turns, the role the client plays (`None`: every role).
    pub role: Option<String>,
    /// The baseline agent of the world that plays the other roles (with `role`).
    pub partner: Option<String>,
    /// Record the episode as a run directory under this directory.
    pub record: Option<PathBuf>,
}

/// An episode in play, held for a client.
pub struct Held {
    /// The episode's id.
    pub id: String,
    /// The world's name.
    pub world: String,
    /// The scenario's id.
    pub scenario: String,
    /// The role the client plays (`None`: every role).
    pub seat: Option<String>,
    /// The client's actions that spent a step (an unreadable one spends none).
    pub actions: u32,
    /// The episode (taken when it is ended).
    episode: Option<remote::Episode>,
}

/// What the client sees after starting an episode or acting in one.
#[derive(Debug, Clone)]
pub struct View {
    /// The observation for the client's next turn, or the world's last words when over.
    pub observation: Observation,
    /// The step that led here (`None` at the start); in a two-role world, possibly the
    /// partner's.
    pub step: Option<Step>,
    /// The client's last action could not be read: why (no step was spent).
    pub unreadable: Option<String>,
    /// The role whose turn it is (multi-role worlds, while not over).
    pub role: Option<String>,
    /// The ending, once over.
    pub ending: Option<Ending>,
    /// The oracle's distance from the current state (`None` where the world cannot say).
    pub steps_to_go: Option<u32>,
}

impl View {
    /// The episode has ended.
    pub fn over(&self) -> bool {
        self.ending.is_some()
    }
}

impl Held {
    /// Checks the seat, opens the episode and waits for the client's first turn (a
    /// partner's opening moves are played before it).
    pub async fn start(id: &str, start: Start) -> Result<(Held, String), ToolError> {
        let header = ScenarioHeader::parse(&start.scenario)?;
        let roles = start.world.env(&start.scenario, &start.options)?.roles();
        let kinds = start.world.agent_kinds();
        let bad = |why: String| Err(ToolError::bad("start_episode", why));
        let partner = match (&start.role, &start.partner) {
            (None, None) => None,
            _ if roles.is_empty() => {
                return bad(format!(
                    "world `{}` has one role; `role` and `partner` apply to worlds whose roles \
                     take turns (comma)",
                    start.world.name()
                ));
            }
            (Some(r), Some(p)) => {
                if !roles.contains(r) {
                    return bad(format!("no role `{r}`; the roles are {}", roles.join(", ")));
                }
                if !kinds.contains(&p.as_str()) {
                    return bad(format!(
                        "no partner `{p}`; world `{}` has {}",
                        start.world.name(),
                        kinds.join(", ")
                    ));
                }
                Some(Baseline::new(start.world.as_ref(), p)?)
            }
            _ => {
                return bad(format!(
                    "playing one role needs both `role` (one of {}) and `partner` (one of {}); \
                     without either you play every role",
                    roles.join(", "),
                    kinds.join(", ")
                ));
            }
        };
        let spec = Spec {
            world: start.world.clone(),
            json: start.scenario,
            options: PlayOptions {
                seed: start.seed,
                record: start.record,
                suite: start.suite.clone(),
                source: start.suite,
                role: start.role.clone(),
                world_options: start.options,
                // a client is re-asked as `escapade run` re-asks a model (the world's limit)
                reasks: escapade_run::Reasks::World,
                ..PlayOptions::default()
            },
            partner: partner.map(|p| {
                (
                    Arc::new(p) as Arc<dyn escapade_run::runner::AgentFactory>,
                    None,
                )
            }),
        };
        let episode = remote::Episode::start(spec).await?;
        let rules = episode.rules().to_string();
        Ok((
            Held {
                id: id.to_string(),
                world: start.world.name().to_string(),
                scenario: header.id,
                seat: start.role,
                actions: 0,
                episode: Some(episode),
            },
            rules,
        ))
    }

    /// What the client sees now.
    pub fn view(&self) -> View {
        match self.episode.as_ref().map(|e| e.seen()) {
            Some(Seen::Turn(t)) => View {
                observation: t.observation.clone(),
                step: t.last.clone(),
                unreadable: t.unreadable.clone(),
                role: t.observation.role.clone(),
                ending: None,
                steps_to_go: t.steps_to_go,
            },
            Some(Seen::Over(ending)) => ended(ending.clone()),
            // ended by end_episode: the table no longer holds it, so nobody sees this
            None => ended(Ending {
                success: false,
                steps: 0,
                metrics: Default::default(),
                last: None,
                terminated: false,
                truncated: false,
                error: Some(remote::GONE.into()),
                dir: None,
            }),
        }
    }

    /// The role whose turn it is (multi-role worlds).
    pub fn turn(&self) -> Option<String> {
        self.view().role
    }

    /// Hands the client's action over and returns what it sees next.
    pub async fn act(&mut self, action: escapade_core::Action) -> Result<View, ToolError> {
        let Some(e) = self.episode.as_mut() else {
            return Err(ToolError::EpisodeOver(self.id.clone()));
        };
        // counted before the await: a call dropped mid-step (its client went away) still
        // has its action played by the episode core
        self.actions += 1;
        e.act(action)
            .await
            .map_err(|_| ToolError::EpisodeOver(self.id.clone()))?;
        let view = self.view();
        if view.unreadable.is_some() {
            self.actions -= 1;
        }
        Ok(view)
    }

    /// Ends the episode (giving up if it is not over) and waits until it is recorded.
    pub async fn end(&mut self) -> View {
        self.end_because(remote::GONE).await
    }

    /// [`Held::end`], an unfinished episode ending with the error `why`.
    pub async fn end_because(&mut self, why: &str) -> View {
        match self.episode.take() {
            Some(e) => ended(e.give_up_because(why).await),
            None => self.view(),
        }
    }
}

/// The view of an ending: the last step's observation holds the world's last words.
fn ended(ending: Ending) -> View {
    View {
        observation: ending
            .last
            .as_ref()
            .map(|s| s.observation.clone())
            .unwrap_or_default(),
        step: ending.last.clone(),
        unreadable: None,
        role: None,
        steps_to_go: ending.steps_to_go(),
        ending: Some(ending),
    }
}
