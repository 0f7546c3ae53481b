//! Solvable from what the agent sees, and clues that hint rather than wire (§2 Stage 6,
//! App. A.6).
//!
//! An agent that reads only observations — the room listing, node details with their
//! clues, call results — maps the names the clues use to the ids the listing shows and
//! follows them. It plays the whole `agentescape@2` suite, with the themed clues and with
//! `-W clues=literal`, and must escape every scenario (the text interface's counterpart
//! of the paper's human solvability check, §2). It sends every
//! ready action of a turn in one reply (App. C), so it also exercises several actions
//! per turn. A scan of every scenario checks that no clue holds a node id or an upstream
//! output's value, and counts the sentence templates the suite uses.

mod common;
use common::{suite, world};

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use escapade_core::{Action, Env, Step};
use escapade_tools::ToolsEnv;
use escapade_tools::clue::{self, ClueStyle, Relation};
use escapade_tools::scenario::{Origin, ToolsScenario};
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

/// Whether `needle` occurs in `hay` as whole words.
fn mentions(hay: &str, needle: &str) -> bool {
    hay.match_indices(needle).any(|(i, _)| {
        let before = hay[..i].chars().last();
        let after = hay[i + needle.len()..].chars().next();
        before.is_none_or(|c| !c.is_alphanumeric()) && after.is_none_or(|c| !c.is_alphanumeric())
    })
}

enum Source {
    Given(String),
    From(String, Option<String>),
    Unknown,
}

/// Reads observations only.
#[derive(Default)]
struct ClueAgent {
    /// Listed nodes: id → display name.
    names: BTreeMap<String, String>,
    investigated: BTreeSet<String>,
    solved: BTreeSet<String>,
    stale: BTreeSet<String>,
    params: BTreeMap<String, Vec<(String, Source)>>,
    outputs: BTreeMap<String, Vec<(String, String)>>,
    flag: Option<String>,
    /// Calls already sent with these exact arguments (never repeat a failed call).
    tried: BTreeSet<String>,
}

impl ClueAgent {
    /// The listed node a clue refers to: by display name, else by the template title
    /// (the name without its theme adjective), when exactly one listed node fits.
    fn producer(&self, clue: &str) -> Option<String> {
        let by = |f: &dyn Fn(&str) -> String| -> Vec<String> {
            self.names
                .iter()
                .filter(|(_, name)| mentions(clue, &f(name)))
                .map(|(id, _)| id.clone())
                .collect()
        };
        let mut hits = by(&|n: &str| n.to_string());
        if hits.len() > 1 {
            // "Brass Hasher" inside "Brass Hasher 2": keep the longest name
            let longest = hits
                .iter()
                .map(|id| self.names[id].len())
                .max()
                .unwrap_or(0);
            hits.retain(|id| self.names[id].len() == longest);
        }
        if hits.is_empty() {
            let lower = clue.to_lowercase();
            hits = self
                .names
                .iter()
                .filter(|(_, n)| {
                    // `Adj Title`, or `Title (Adj)` for a later node of the theme
                    let title = match n.strip_suffix(')').and_then(|n| n.rsplit_once(" (")) {
                        Some((title, _)) => title,
                        None => n.split_once(' ').map_or(n.as_str(), |(_, t)| t),
                    };
                    mentions(&lower, &format!("the {}", title.to_lowercase()))
                })
                .map(|(id, _)| id.clone())
                .collect();
        }
        (hits.len() == 1).then(|| hits.remove(0))
    }

    fn read(&mut self, text: &str, acted_on: Option<&str>) {
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("- N")
                && let Some((id, tail)) = rest.split_once(" · ")
                && let Some((head, _)) = tail.split_once(") — ")
                && let Some((name, _)) = head.rsplit_once(" (")
            {
                self.names.insert(format!("N{id}"), name.to_string());
            }
        }
        if text.contains("Newly revealed:") {
            // clues that said "not found yet" may now name the node
            for id in std::mem::take(&mut self.stale) {
                self.investigated.remove(&id);
            }
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
            let clue = &rest[rest.find("Clue: ").expect("every parameter has a clue") + 6..];
            let source = if clue.contains('"') {
                Source::Given(literal(clue).unwrap())
            } else if let Some(p) = self.producer(clue) {
                let out = clue.split('`').nth(1).map(str::to_string);
                Source::From(p, out)
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

    /// Every action that is ready now: all unread nodes, else all callable nodes whose
    /// inputs are known, else the flag.
    fn next(&mut self) -> Vec<(String, Option<String>)> {
        if let Some(flag) = &self.flag {
            return vec![(format!("submit_answer {flag}"), None)];
        }
        let unread: Vec<String> = self
            .names
            .keys()
            .filter(|id| !self.investigated.contains(*id))
            .cloned()
            .collect();
        if !unread.is_empty() {
            return unread
                .into_iter()
                .map(|id| {
                    self.investigated.insert(id.clone());
                    (format!("investigate {id}"), Some(id))
                })
                .collect();
        }
        let mut calls = Vec::new();
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
            let call = format!("call {id} {}", Value::Object(args));
            if ready && self.tried.insert(call.clone()) {
                calls.push((call, Some(id.clone())));
            }
        }
        if calls.is_empty() {
            calls.push(("give_up".into(), None));
        }
        calls
    }
}

/// How one play went.
struct Played {
    escaped: bool,
    turns: u32,
    actions: u32,
    errors: u32,
}

fn play(s: &ToolsScenario, style: ClueStyle) -> Played {
    let mut env = ToolsEnv::new(Arc::new(s.clone()), world().runner()).with_clues(style);
    let mut agent = ClueAgent::default();
    agent.read(&env.reset(0).text, None);
    let (mut turns, mut actions, mut errors) = (0, 0, 0);
    loop {
        let batch = agent.next();
        let reply: Vec<&str> = batch.iter().map(|(a, _)| a.as_str()).collect();
        let step: Step = env.step(&Action::text(reply.join("\n"))).unwrap();
        turns += 1;
        actions += batch.len() as u32;
        let answers: Vec<(String, Option<String>)> = if step.results.is_empty() {
            vec![(step.feedback.clone(), step.error.clone())]
        } else {
            assert_eq!(step.results.len(), batch.len(), "one result per action");
            step.results
                .iter()
                .map(|r| (r.feedback.clone(), r.error.clone()))
                .collect()
        };
        for ((feedback, error), (_, target)) in answers.iter().zip(&batch) {
            errors += error.is_some() as u32;
            // a result starts with `[k/n] action` when the reply held several
            let body = if step.results.is_empty() {
                feedback.as_str()
            } else {
                feedback.split_once('\n').map_or("", |(_, b)| b)
            };
            agent.read(body, target.as_deref());
        }
        if step.terminated || step.truncated {
            return Played {
                escaped: env.outcome().success,
                turns,
                actions,
                errors,
            };
        }
    }
}

#[test]
fn the_observation_only_agent_escapes_every_scenario() {
    for style in [ClueStyle::Themed, ClueStyle::Literal] {
        let mut escaped = 0;
        let (mut turns, mut actions, mut errors) = (0, 0, 0);
        let mut failed = Vec::new();
        for s in suite() {
            let p = play(s, style);
            if p.escaped {
                escaped += 1;
            } else {
                failed.push(s.id.clone());
            }
            turns += p.turns;
            actions += p.actions;
            errors += p.errors;
        }
        let n = suite().len();
        let share = escaped as f64 / n as f64;
        eprintln!(
            "clues={style}: escaped {escaped}/{n} ({:.1} %), {turns} turns for {actions} actions, {errors} failed actions; not escaped: {failed:?}",
            100.0 * share
        );
        assert_eq!(share, 1.0, "clues={style}: {escaped}/{n} escaped");
        assert!(2 * turns < actions, "several actions per turn");
    }
}

/// Whether `word` occurs in `text` as a token (not inside a longer word or number).
fn token(text: &str, word: &str) -> bool {
    mentions(text, word)
}

#[test]
fn no_clue_holds_a_node_id_or_an_upstream_value() {
    let mut used = BTreeSet::new();
    let mut count = 0usize;
    for s in suite() {
        let initial: Vec<bool> = s.nodes.iter().map(|n| !n.hidden).collect();
        let all = vec![true; s.nodes.len()];
        for visible in [&initial, &all] {
            for c in clue::clues(s, visible, ClueStyle::Themed) {
                count += 1;
                for t in c.template.split(',') {
                    used.insert(t.to_string());
                }
                for n in &s.nodes {
                    assert!(!token(&c.text, &n.id), "{}: {:?} names {}", s.id, c, n.id);
                }
                // no value that flows along an edge into this node, or out of it (a
                // seeded value the clue states is set aside first)
                let node = &s.nodes[s.node_index(&c.node).unwrap()];
                let mut text = c.text.clone();
                if let Some(port) = &c.port
                    && node.inputs[port].origin == Some(Origin::Seed)
                {
                    text = text.replace(
                        &escapade_tools::render::literal(&node.inputs[port].value),
                        "",
                    );
                }
                for e in s
                    .edges
                    .iter()
                    .filter(|e| e.to == c.node || e.from == c.node)
                {
                    let from = &s.nodes[s.node_index(&e.from).unwrap()];
                    let v = &from.outputs[&e.from_port].value;
                    if v.chars().count() >= 3 {
                        assert!(
                            !token(&text, v),
                            "{}: {:?} states the value of {}.{}",
                            s.id,
                            c,
                            e.from,
                            e.from_port
                        );
                    }
                }
                // a seeded input's clue states its value; other clues name no value
                if let Some(port) = &c.port {
                    let pv = &node.inputs[port];
                    match pv.origin {
                        Some(Origin::Seed) => {
                            assert_eq!(c.relation, Relation::Given);
                            assert!(c.text.contains(&escapade_tools::render::literal(&pv.value)));
                        }
                        _ => assert!(!c.text.contains('"'), "{c:?}"),
                    }
                }
                // one hop only: a clue names at most its own producer or consumers
                let neighbours: BTreeSet<&str> = s
                    .edges
                    .iter()
                    .filter_map(|e| {
                        if e.to == c.node {
                            Some(e.from.as_str())
                        } else if e.from == c.node {
                            Some(e.to.as_str())
                        } else {
                            None
                        }
                    })
                    .collect();
                for n in &s.nodes {
                    if mentions(&c.text, &n.name) {
                        assert!(
                            neighbours.contains(n.id.as_str()),
                            "{}: {c:?} names {}, not a neighbour",
                            s.id,
                            n.name
                        );
                    }
                }
            }
        }
    }
    eprintln!(
        "{count} clues over {} scenarios use {} distinct sentence templates (of {})",
        suite().len(),
        used.len(),
        clue::template_count()
    );
    assert!(used.len() >= 60, "only {} templates used", used.len());
}

#[test]
fn hidden_producers_are_not_named_until_revealed() {
    let mut seen = 0;
    for s in suite() {
        let initial: Vec<bool> = s.nodes.iter().map(|n| !n.hidden).collect();
        for c in clue::clues(s, &initial, ClueStyle::Themed) {
            for n in s.nodes.iter().filter(|n| n.hidden) {
                assert!(
                    !c.text.contains(&n.name),
                    "{}: {c:?} names hidden {}",
                    s.id,
                    n.name
                );
            }
            seen += (c.relation == Relation::Hidden) as u32;
        }
    }
    assert!(seen > 0, "some clue points at a hidden source");
}

#[test]
fn the_oracle_solves_every_scenario_with_the_minimum() {
    for s in suite() {
        let report = escapade_core::World::oracle(world(), &s.to_json()).unwrap();
        assert!(report.solved, "{}", s.id);
        assert_eq!(report.steps, s.min_tool_calls, "{}", s.id);
    }
}
