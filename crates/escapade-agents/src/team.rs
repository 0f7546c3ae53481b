//! `Team`: one agent per role for worlds whose roles take turns (COMMA's solver and
//! expert, PettingZoo's AEC cycle).
//!
//! The runner drives a single [`AsyncAgent`]; in a multi-role world every observation
//! names the role whose turn it is ([`escapade_core::Observation::role`]), and the team
//! hands the turn to that role's agent. Each member is reset with its own role's system
//! prompt and sees only the observations of its own role, so an expert never reads the
//! solver's picture. Any mix works: a model solver with an oracle expert, two models,
//! a person and a model.

use async_trait::async_trait;
use escapade_core::AgentTurn;

use crate::{AgentError, AsyncAgent, EpisodeStart, TurnInput};

/// Agents by role. See the module docs.
pub struct Team {
    members: Vec<(String, Box<dyn AsyncAgent>)>,
}

impl Team {
    /// A team of `(role, agent)` members; roles must be distinct.
    pub fn new(members: Vec<(String, Box<dyn AsyncAgent>)>) -> Result<Team, AgentError> {
        for (i, (role, _)) in members.iter().enumerate() {
            if members[..i].iter().any(|(r, _)| r == role) {
                return Err(AgentError::Config(format!("role `{role}` is given twice")));
            }
        }
        if members.is_empty() {
            return Err(AgentError::Config(
                "a team needs at least one member".into(),
            ));
        }
        Ok(Team { members })
    }

    fn member(&mut self, role: Option<&str>) -> Result<&mut Box<dyn AsyncAgent>, AgentError> {
        let Some(role) = role else {
            return Err(AgentError::Config(
                "this world has one role; a team needs a world whose observations name their role"
                    .into(),
            ));
        };
        let known: Vec<String> = self.members.iter().map(|(r, _)| r.clone()).collect();
        self.members
            .iter_mut()
            .find(|(r, _)| r == role)
            .map(|(_, a)| a)
            .ok_or_else(|| {
                AgentError::Config(format!(
                    "no agent plays role `{role}`; the team has {}",
                    known.join(", ")
                ))
            })
    }
}

#[async_trait]
impl AsyncAgent for Team {
    fn name(&self) -> String {
        self.members
            .iter()
            .map(|(role, agent)| format!("{role}={}", agent.name()))
            .collect::<Vec<_>>()
            .join(",")
    }

    async fn reset(&mut self, start: EpisodeStart<'_>) -> Result<(), AgentError> {
        for (role, agent) in &mut self.members {
            let prompt = start
                .roles
                .iter()
                .find(|(r, _)| r == role)
                .map(|(_, p)| p.as_str())
                .ok_or_else(|| AgentError::Config(format!("the world has no role `{role}`")))?;
            agent
                .reset(EpisodeStart {
                    system_prompt: prompt,
                    roles: &[],
                    ..start
                })
                .await?;
        }
        Ok(())
    }

    async fn act(&mut self, input: TurnInput<'_>) -> Result<AgentTurn, AgentError> {
        self.member(input.observation.role.as_deref())?
            .act(input)
            .await
    }

    async fn reask(&mut self, error: &str, input: TurnInput<'_>) -> Result<AgentTurn, AgentError> {
        self.member(input.observation.role.as_deref())?
            .reask(error, input)
            .await
    }

    fn uses_tools(&self) -> bool {
        self.members.iter().any(|(_, a)| a.uses_tools())
    }

    fn replay_with(&mut self, client: Option<escapade_llm::Client>) {
        for (_, agent) in &mut self.members {
            agent.replay_with(client.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use escapade_core::{Action, Observation};

    /// Answers with its own name and remembers the prompt it was reset with.
    struct Echo(&'static str, String);

    #[async_trait]
    impl AsyncAgent for Echo {
        fn name(&self) -> String {
            self.0.into()
        }
        async fn reset(&mut self, start: EpisodeStart<'_>) -> Result<(), AgentError> {
            self.1 = start.system_prompt.to_string();
            Ok(())
        }
        async fn act(&mut self, _input: TurnInput<'_>) -> Result<AgentTurn, AgentError> {
            Ok(AgentTurn::action(Action::text(format!(
                "{} after {}",
                self.0, self.1
            ))))
        }
        async fn reask(&mut self, _e: &str, input: TurnInput<'_>) -> Result<AgentTurn, AgentError> {
            self.act(input).await
        }
    }

    fn seen(role: Option<&str>) -> Observation {
        Observation {
            role: role.map(String::from),
            ..Observation::text("x")
        }
    }

    #[tokio::test]
    async fn each_role_gets_its_prompt_and_its_turns() {
        let mut team = Team::new(vec![
            ("solver".into(), Box::new(Echo("s", String::new()))),
            ("expert".into(), Box::new(Echo("e", String::new()))),
        ])
        .unwrap();
        assert_eq!(team.name(), "solver=s,expert=e");
        let roles = [
            ("solver".to_string(), "SOLVE".to_string()),
            ("expert".to_string(), "ADVISE".to_string()),
        ];
        team.reset(EpisodeStart {
            seed: 1,
            system_prompt: "",
            tools: &[],
            roles: &roles,
            steps_to_go: None,
        })
        .await
        .unwrap();
        for (role, want) in [("solver", "s after SOLVE"), ("expert", "e after ADVISE")] {
            let o = seen(Some(role));
            let turn = team
                .act(TurnInput {
                    step: 1,
                    observation: &o,
                    last: None,
                    tools: &[],
                })
                .await
                .unwrap();
            assert_eq!(turn.action, Action::text(want));
        }
        let stranger = seen(Some("judge"));
        let e = team
            .act(TurnInput {
                step: 2,
                observation: &stranger,
                last: None,
                tools: &[],
            })
            .await
            .unwrap_err();
        assert!(e.to_string().contains("no agent plays role `judge`"), "{e}");
        let plain = seen(None);
        assert!(
            team.act(TurnInput {
                step: 3,
                observation: &plain,
                last: None,
                tools: &[]
            })
            .await
            .is_err()
        );
    }

    #[tokio::test]
    async fn a_team_needs_distinct_roles_the_world_has() {
        let twice = Team::new(vec![
            (
                "solver".into(),
                Box::new(Echo("a", String::new())) as Box<dyn AsyncAgent>,
            ),
            ("solver".into(), Box::new(Echo("b", String::new()))),
        ]);
        assert!(twice.is_err());
        let mut team = Team::new(vec![(
            "pilot".into(),
            Box::new(Echo("p", String::new())) as Box<dyn AsyncAgent>,
        )])
        .unwrap();
        let e = team
            .reset(EpisodeStart {
                seed: 0,
                system_prompt: "",
                tools: &[],
                roles: &[],
                steps_to_go: None,
            })
            .await
            .unwrap_err();
        assert!(e.to_string().contains("no role `pilot`"));
    }
}
