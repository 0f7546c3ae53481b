//! Solvable from what the agent sees: an agent that reads only observations (the room
//! listing, node details, clues and call results) and follows the clues must escape
//! every scenario with no error. This is the text interface's counterpart of the
//! paper's human solvability check (§2).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use escapade_core::{Action, Env};
use escapade_tools::{ToolsEnv, ToolsWorld};
use serde_json::Value;

/// The first JSON string literal in `s`.
fn literal(s: &str) -> Option<String> {
    let start = s.find('"')?;
    let mut it = serde_json::Deserializer::from_str(&s[start..]).into_iter::<Value>();
    match it.next() {
        Some(Ok(Value::String(v))) => Some(v),
        _ => None,
    }
}

fn node_id_after(s: &str, marker: &str) -> Option<String> {
    let rest = &s[s.find(marker)? + marker.len()..];
    Some(rest.split_whitespace().next()?.to_string())
}

enum Source {
    Given(String),
    From(String, Option<String>),
    Unknown,
}

#[derive(Default)]
struct ClueAgent {
    known: BTreeSet<String>,
    investigated: BTreeSet<String>,
    solved: BTreeSet<String>,
    stale: BTreeSet<String>,
    params: BTreeMap<String, Vec<(String, Source)>>,
    outputs: BTreeMap<String, Vec<(String, String)>>,
    flag: Option<String>,
}

impl ClueAgent {
    fn read(&mut self, text: &str, acted_on: Option<&str>) {
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("- N")
                && line.contains(" · ")
                && line.contains(") — ")
            {
                self.known
                    .insert(format!("N{}", rest.split_whitespace().next().unwrap()));
            }
        }
        if text.contains("Newly revealed:") {
            // clues that said "not found yet" may now name the node
            let stale: Vec<String> = self.stale.iter().cloned().collect();
            for id in stale {
                self.investigated.remove(&id);
            }
            self.stale.clear();
        }
        if let Some(f) = text.find("displays the flag: ") {
            self.flag = literal(&text[f..]);
        }
        if let (Some(id), Some(pos)) = (acted_on, text.find("ran successfully. Output: ")) {
            let line = text[pos..].lines().next().unwrap();
            let mut outs = Vec::new();
            for part in line["ran successfully. Output: ".len()..].split(", ") {
                if let Some((name, _)) = part.split_once(" = ") {
                    let value = literal(&line[line.find(part).unwrap()..]).unwrap();
                    outs.push((name.to_string(), value));
                }
            }
            self.outputs.insert(id.to_string(), outs);
            self.solved.insert(id.to_string());
        }
        if text.contains(" opens.")
            && let Some(id) = acted_on
        {
            self.solved.insert(id.to_string());
        }
        // node details
        let first = text.lines().next().unwrap_or("");
        let Some(id) = first
            .split_whitespace()
            .next()
            .filter(|w| w.starts_with('N') && first.contains(" · "))
        else {
            return;
        };
        let id = id.to_string();
        if first.ends_with("(item)") {
            let mut outs = Vec::new();
            for line in text.lines().skip_while(|l| *l != "It holds:").skip(1) {
                let Some(rest) = line.strip_prefix("- ") else {
                    break;
                };
                let name = rest.split_whitespace().next().unwrap().to_string();
                outs.push((name, literal(&rest[rest.find(" = ").unwrap()..]).unwrap()));
            }
            self.outputs.insert(id.clone(), outs);
            self.solved.insert(id);
            return;
        }
        let mut params = Vec::new();
        for line in text.lines().skip_while(|l| *l != "Parameters:").skip(1) {
            let Some(rest) = line.strip_prefix("- ") else {
                break;
            };
            let name = rest.split_whitespace().next().unwrap().to_string();
            let clue = &rest[rest.find("Clue: ").expect("every parameter has a clue")..];
            let source = if clue.starts_with("Clue: its value is ") {
                Source::Given(literal(clue).unwrap())
            } else if clue.contains("the `") {
                let out = clue.split('`').nth(1).unwrap().to_string();
                Source::From(node_id_after(clue, "output of ").unwrap(), Some(out))
            } else if clue.contains("takes what ") {
                Source::From(node_id_after(clue, "takes what ").unwrap(), None)
            } else {
                self.stale.insert(id.clone());
                Source::Unknown
            };
            params.push((name, source));
        }
        if text.contains("Status: solved") {
            self.solved.insert(id.clone());
        }
        self.params.insert(id, params);
    }

    fn next(&mut self) -> (String, Option<String>) {
        if let Some(flag) = &self.flag {
            return (format!("submit_answer {flag}"), None);
        }
        if let Some(id) = self
            .known
            .iter()
            .find(|id| !self.investigated.contains(*id))
            .cloned()
        {
            self.investigated.insert(id.clone());
            return (format!("investigate {id}"), Some(id));
        }
        for (id, params) in &self.params {
            if self.solved.contains(id) {
                continue;
            }
            let mut args = serde_json::Map::new();
            let ready = params.iter().all(|(name, source)| {
                let value = match source {
                    Source::Given(v) => Some(v.clone()),
                    Source::From(p, out) => self.outputs.get(p).and_then(|outs| match out {
                        Some(o) => outs.iter().find(|(n, _)| n == o).map(|(_, v)| v.clone()),
                        None => outs.first().map(|(_, v)| v.clone()),
                    }),
                    Source::Unknown => None,
                };
                value
                    .map(|v| args.insert(name.clone(), Value::String(v)))
                    .is_some()
            });
            if ready {
                return (
                    format!("call {id} {}", Value::Object(args)),
                    Some(id.clone()),
                );
            }
        }
        ("give_up".into(), None)
    }
}

#[test]
fn clue_following_agent_escapes_every_scenario() {
    let world = ToolsWorld::new().expect("python3");
    for s in world
        .build_tiers(&[(5, 20), (10, 20), (15, 10), (25, 5)])
        .unwrap()
    {
        let mut env = ToolsEnv::new(Arc::new(s.clone()), world.runner());
        let mut agent = ClueAgent::default();
        agent.read(&env.reset(0).text, None);
        let mut escaped = false;
        for _ in 0..s.step_budget {
            let (action, target) = agent.next();
            let step = env.step(&Action::text(&action)).unwrap();
            assert!(
                step.error.is_none(),
                "{}: `{action}` failed: {}",
                s.id,
                step.feedback
            );
            agent.read(&step.feedback, target.as_deref());
            if step.terminated || step.truncated {
                escaped = env.outcome().success;
                break;
            }
        }
        assert!(escaped, "{}: the clue-following agent did not escape", s.id);
    }
}
