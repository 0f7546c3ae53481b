//! Baseline agents: the oracle (minimum tool calls) and a random agent.
//!
//! The oracle reads the scenario's ground truth and resolves nodes in a topological
//! order of the whole DAG (data and physical edges, smallest id first): it investigates
//! each node once and calls each callable node once with the golden values, then submits
//! the flag. Its tool calls (investigations + invocations, not the submission) are the
//! scenario's minimum, the quantity of the paper's Table 3 "Min. Required" row: every
//! node must be read once to learn its parameters or payload, and every tool, container
//! and terminal must be invoked once.
//!
//! The random agent sees only observations: it collects node ids, parameter names and
//! quoted values from what it has read and combines them at random — a floor, not a
//! strategy.

use std::collections::{BTreeMap, BTreeSet};

use rand::Rng as _;
use rand::seq::IndexedRandom;
use serde_json::{Map, Value};

use escapade_core::env::Step;
use escapade_core::seed::{self, Rng};
use escapade_core::{Action, Agent, AgentTurn, CoreError, Observation};

use crate::interface::ToolsAction;
use crate::scenario::ToolsScenario;

/// A topological order of all nodes over data and physical edges (Kahn, smallest id
/// first). Shorter than the node count iff the graph has a cycle.
pub fn resolution_order(s: &ToolsScenario) -> Vec<usize> {
    let n = s.nodes.len();
    let mut indeg = vec![0usize; n];
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in &s.edges {
        if let (Some(a), Some(b)) = (s.node_index(&e.from), s.node_index(&e.to)) {
            indeg[b] += 1;
            out[a].push(b);
        }
    }
    let mut ready: BTreeSet<usize> = (0..n).filter(|i| indeg[*i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(x) = ready.pop_first() {
        order.push(x);
        for &y in &out[x] {
            indeg[y] -= 1;
            if indeg[y] == 0 {
                ready.insert(y);
            }
        }
    }
    order
}

/// The oracle's full action plan for a scenario.
pub fn oracle_plan(s: &ToolsScenario) -> Vec<ToolsAction> {
    let mut plan = Vec::new();
    for i in resolution_order(s) {
        let node = &s.nodes[i];
        plan.push(ToolsAction::Investigate {
            node: node.id.clone(),
        });
        if node.kind.is_callable() {
            let params: Map<String, Value> = node
                .parameters()
                .map(|(name, p)| (name.clone(), Value::String(p.value.clone())))
                .collect();
            plan.push(ToolsAction::Call {
                node: node.id.clone(),
                params,
            });
        }
    }
    plan.push(ToolsAction::Submit {
        answer: s.answer.clone(),
    });
    plan
}

/// Plays [`oracle_plan`] in the text protocol.
#[derive(Debug, Clone)]
pub struct OracleAgent {
    plan: Vec<ToolsAction>,
    next: usize,
}

impl OracleAgent {
    /// An oracle for a scenario.
    pub fn new(s: &ToolsScenario) -> Self {
        OracleAgent {
            plan: oracle_plan(s),
            next: 0,
        }
    }
}

impl Agent for OracleAgent {
    fn name(&self) -> String {
        "oracle".into()
    }

    fn reset(&mut self, _start: escapade_core::EpisodeStart<'_>) {
        self.next = 0;
    }

    fn act(&mut self, _o: &Observation, _last: Option<&Step>) -> Result<AgentTurn, CoreError> {
        let action = self
            .plan
            .get(self.next)
            .cloned()
            .unwrap_or(ToolsAction::GiveUp);
        self.next += 1;
        Ok(AgentTurn::action(Action::text(action.to_text())))
    }
}

/// Combines what it has seen at random.
#[derive(Debug, Clone)]
pub struct RandomAgent {
    rng: Rng,
    nodes: BTreeSet<String>,
    params: BTreeMap<String, Vec<String>>,
    values: BTreeSet<String>,
}

impl Default for RandomAgent {
    fn default() -> Self {
        RandomAgent {
            rng: seed::rng(0),
            nodes: BTreeSet::new(),
            params: BTreeMap::new(),
            values: BTreeSet::new(),
        }
    }
}

impl RandomAgent {
    fn learn(&mut self, text: &str) {
        // node ids: N followed by three digits
        for (i, _) in text.match_indices('N') {
            let id = text.get(i..i + 4).unwrap_or("");
            let boundary = text[..i]
                .chars()
                .last()
                .is_none_or(|c| !c.is_alphanumeric());
            if boundary && id.len() == 4 && id[1..].bytes().all(|b| b.is_ascii_digit()) {
                self.nodes.insert(id.to_string());
            }
        }
        // parameter lists of an investigated node
        if let Some(first) = text.lines().next() {
            let id = first.split_whitespace().next().unwrap_or("").to_string();
            let mut in_params = false;
            let mut names = Vec::new();
            for line in text.lines() {
                if line.starts_with("Parameters:") {
                    in_params = true;
                } else if in_params && line.starts_with("- ") {
                    if let Some(name) = line[2..].split_whitespace().next() {
                        names.push(name.to_string());
                    }
                } else if in_params {
                    in_params = false;
                }
            }
            if !names.is_empty() && self.nodes.contains(&id) {
                self.params.insert(id, names);
            }
        }
        // quoted values
        let mut rest = text;
        while let Some(start) = rest.find('"') {
            let mut stream =
                serde_json::Deserializer::from_str(&rest[start..]).into_iter::<Value>();
            match stream.next() {
                Some(Ok(Value::String(s))) if !s.is_empty() && s.len() < 2000 => {
                    self.values.insert(s);
                    rest = &rest[start + stream.byte_offset()..];
                }
                _ => rest = &rest[start + 1..],
            }
        }
    }

    fn random_value(&mut self) -> String {
        let seen: Vec<&String> = self.values.iter().collect();
        if !seen.is_empty() && self.rng.random_bool(0.8) {
            return (*seen.choose(&mut self.rng).expect("non-empty")).clone();
        }
        self.rng.random_range(0..1_000_000u32).to_string()
    }
}

impl Agent for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }

    fn reset(&mut self, start: escapade_core::EpisodeStart<'_>) {
        let seed = start.seed;
        *self = RandomAgent {
            rng: seed::rng(seed::derive(seed, "tools/random-agent", 0)),
            ..Default::default()
        };
    }

    fn act(&mut self, o: &Observation, _last: Option<&Step>) -> Result<AgentTurn, CoreError> {
        self.learn(&o.text);
        let nodes: Vec<String> = self.nodes.iter().cloned().collect();
        let roll: f64 = self.rng.random();
        let action = if nodes.is_empty() || roll < 0.005 {
            ToolsAction::GiveUp
        } else if roll < 0.45 {
            ToolsAction::Investigate {
                node: nodes.choose(&mut self.rng).expect("non-empty").clone(),
            }
        } else if roll < 0.92 {
            let node = nodes.choose(&mut self.rng).expect("non-empty").clone();
            let names = self.params.get(&node).cloned().unwrap_or_default();
            let mut params = Map::new();
            for name in names {
                if self.rng.random_bool(0.95) {
                    params.insert(name, Value::String(self.random_value()));
                }
            }
            ToolsAction::Call { node, params }
        } else {
            ToolsAction::Submit {
                answer: self.random_value(),
            }
        };
        Ok(AgentTurn::action(Action::text(action.to_text())))
    }
}
