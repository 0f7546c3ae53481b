//! The scenario generator: App. A's six stages without an LLM.
//!
//! Stage 1 is the template library ([`crate::library`]); stage 2 the DAG skeleton by
//! reverse growth (Algorithm 1) under the four structural constraints; stage 3 source
//! annotation (every input without an edge is a seeded source); stage 4 seeded value
//! instantiation that respects each port's contract; stage 5 deterministic forward
//! execution with real functions and a completeness check; stage 6 template narratives
//! in eight themes and a final validation ([`crate::validate`]).
//!
//! Deviations, each on purpose: the goal node is always one of the two terminal templates
//! (Algorithm 1 line 3 allows any template with inputs; the paper's terminals are "the
//! execution endpoint"); values are seeded from the port contracts instead of asked from
//! an LLM, and are seeded *during* the forward pass (in topological order) so a seed can
//! be consistent with values computed upstream (a ciphertext encrypted under an upstream
//! key); a skeleton that does not reach exactly `n` nodes is retried, because the
//! difficulty is the node count.

use std::collections::{BTreeSet, VecDeque};

use indexmap::IndexMap;
use rand::Rng as _;
use rand::seq::{IndexedRandom, SliceRandom};

use escapade_core::seed::{self, Rng};

use crate::ToolsError;
use crate::files::Files;
use crate::library;
use crate::narrative::Theme;
use crate::sandbox::CodeRunner;
use crate::scenario::{
    Edge, Node, Origin, PortValue, SCENARIO_VERSION, ToolsScenario, step_budget,
};
use crate::template::{NodeKind, PortRole, PortSpec, TRIGGER_PORT, Template};
use crate::value::PortType;

/// Generator settings. `Default` gives the paper's values.
#[derive(Debug, Clone, PartialEq)]
pub struct GenConfig {
    /// Share of new non-goal nodes drawn as droppable variants (A.1 default 30 %).
    pub droppable_ratio: f64,
    /// Base reuse probability `0.3` of Algorithm 1 line 11.
    pub reuse_base: f64,
    /// Growth of the reuse probability with `|V|/n` (`0.3`).
    pub reuse_slope: f64,
    /// A requirement re-queued more than this many times is skipped (`5`).
    pub max_retries: u32,
    /// Sampling weight of an item template relative to a tool template when both can
    /// satisfy a requirement (escapade's choice; sets the tool/item mix, hence the
    /// minimum tool calls of Table 3).
    pub item_weight: f64,
    /// Sampling weight of a container template for a physical requirement.
    pub container_weight: f64,
    /// Attempts (fresh sub-seeds) before giving up on a `(difficulty, seed)`.
    pub max_attempts: u32,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            droppable_ratio: 0.3,
            reuse_base: 0.3,
            reuse_slope: 0.3,
            max_retries: 5,
            item_weight: 0.3,
            container_weight: 1.0,
            max_attempts: 400,
        }
    }
}

/// A skeleton node: template plus droppable trigger type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkNode {
    /// The template.
    pub template: &'static Template,
    /// Trigger port type for droppable variants.
    pub trigger: Option<PortType>,
}

impl SkNode {
    fn inputs(&self) -> Vec<PortSpec> {
        self.template.input_ports(self.trigger)
    }
}

/// An edge between port indices of skeleton nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct SkEdge {
    /// Producer node index.
    pub from: usize,
    /// Producer output port index.
    pub from_port: usize,
    /// Consumer node index.
    pub to: usize,
    /// Consumer input port index (into `SkNode::inputs`).
    pub to_port: usize,
}

/// A DAG skeleton (Stage 2 output). Node 0 is the goal.
#[derive(Debug, Clone, Default)]
pub struct Skeleton {
    /// Nodes; index 0 is the goal terminal.
    pub nodes: Vec<SkNode>,
    /// Edges.
    pub edges: Vec<SkEdge>,
}

impl Skeleton {
    fn has_path(&self, from: usize, to: usize) -> bool {
        let mut seen = vec![false; self.nodes.len()];
        let mut queue = VecDeque::from([from]);
        while let Some(x) = queue.pop_front() {
            if x == to {
                return true;
            }
            for e in self.edges.iter().filter(|e| e.from == x) {
                if !seen[e.to] {
                    seen[e.to] = true;
                    queue.push_back(e.to);
                }
            }
        }
        false
    }

    /// The four structural constraints of A.2 for a new edge `(u,q) → (v,p)`.
    fn can_connect(&self, u: usize, q: usize, v: usize, p: usize) -> bool {
        if u == v || u == 0 {
            return false;
        }
        let out = &self.nodes[u].template.outputs[q];
        let inputs = self.nodes[v].inputs();
        let inp = &inputs[p];
        if out.ty != inp.ty {
            return false;
        }
        let uses: Vec<&SkEdge> = self
            .edges
            .iter()
            .filter(|e| e.from == u && e.from_port == q)
            .collect();
        // physical-object single use
        if out.ty.is_physical() && !uses.is_empty() {
            return false;
        }
        // special-port exclusivity, both ways
        if inp.role == PortRole::Exclusive && !uses.is_empty() {
            return false;
        }
        if uses
            .iter()
            .any(|e| self.nodes[e.to].inputs()[e.to_port].role == PortRole::Exclusive)
        {
            return false;
        }
        // same-target deduplication
        if uses.iter().any(|e| e.to == v) {
            return false;
        }
        // acyclicity: the new edge u→v closes a cycle iff v already reaches u
        !self.has_path(v, u)
    }

    /// Isomorphism signature of A.2: node count, multiset of template ids (with the
    /// droppable variant) and multiset of edge patterns.
    pub fn signature(&self) -> String {
        let label = |n: &SkNode| match n.trigger {
            Some(t) => format!("{}+{}", n.template.id, t.paper_name()),
            None => n.template.id.to_string(),
        };
        let mut nodes: Vec<String> = self.nodes.iter().map(label).collect();
        nodes.sort();
        let mut edges: Vec<String> = self
            .edges
            .iter()
            .map(|e| {
                format!(
                    "{}.{}>{}.{}",
                    label(&self.nodes[e.from]),
                    self.nodes[e.from].template.outputs[e.from_port].name,
                    label(&self.nodes[e.to]),
                    self.nodes[e.to].inputs()[e.to_port].name
                )
            })
            .collect();
        edges.sort();
        escapade_core::hash::sha256_hex(
            format!(
                "{}|{}|{}",
                self.nodes.len(),
                nodes.join(","),
                edges.join(",")
            )
            .as_bytes(),
        )
    }
}

#[derive(Debug, Clone, Copy)]
struct Pending {
    node: usize,
    port: usize,
    ty: PortType,
    retries: u32,
}

fn enqueue_inputs(queue: &mut Vec<Pending>, node: usize, sk: &SkNode) {
    for (port, spec) in sk.inputs().iter().enumerate() {
        if spec.role != PortRole::SeedOnly {
            queue.push(Pending {
                node,
                port,
                ty: spec.ty,
                retries: 0,
            });
        }
    }
}

/// Stage 2: Algorithm 1 (reverse growth) for `n` nodes. Returns `None` when growth stops
/// short of `n` nodes.
pub fn grow(n: usize, config: &GenConfig, rng: &mut Rng) -> Option<Skeleton> {
    let lib = library::library();
    let terminals: Vec<&'static Template> = lib
        .iter()
        .filter(|t| t.kind == NodeKind::Terminal)
        .collect();
    let goal = SkNode {
        template: terminals.choose(rng)?,
        trigger: None,
    };
    let mut sk = Skeleton {
        nodes: vec![goal],
        edges: Vec::new(),
    };
    let mut queue = Vec::new();
    enqueue_inputs(&mut queue, 0, &goal);
    while sk.nodes.len() < n && !queue.is_empty() {
        let req = queue.swap_remove(rng.random_range(0..queue.len()));
        if req.retries > config.max_retries {
            continue;
        }
        let reuse_p = config.reuse_base + config.reuse_slope * sk.nodes.len() as f64 / n as f64;
        let mut candidates = Vec::new();
        for (u, node) in sk.nodes.iter().enumerate() {
            for (q, out) in node.template.outputs.iter().enumerate() {
                if out.ty == req.ty && sk.can_connect(u, q, req.node, req.port) {
                    candidates.push((u, q));
                }
            }
        }
        if !candidates.is_empty() && rng.random_bool(reuse_p.clamp(0.0, 1.0)) {
            let (u, q) = *candidates.choose(rng)?;
            sk.edges.push(SkEdge {
                from: u,
                from_port: q,
                to: req.node,
                to_port: req.port,
            });
            continue;
        }
        let producers: Vec<(&'static Template, f64)> = lib
            .iter()
            .filter(|t| t.kind != NodeKind::Terminal && t.outputs.iter().any(|o| o.ty == req.ty))
            .map(|t| {
                let w = match t.kind {
                    NodeKind::Item => config.item_weight,
                    NodeKind::Container => config.container_weight,
                    _ => 1.0,
                };
                (t, w)
            })
            .collect();
        if producers.is_empty() {
            queue.push(Pending {
                retries: req.retries + 1,
                ..req
            });
            continue;
        }
        let template = producers.choose_weighted(rng, |(_, w)| *w).ok()?.0;
        let trigger = (template.has_droppable_variants()
            && rng.random_bool(config.droppable_ratio.clamp(0.0, 1.0)))
        .then(|| {
            if rng.random_bool(0.5) {
                PortType::Item
            } else {
                PortType::HiddenItem
            }
        });
        let node = SkNode { template, trigger };
        let ports: Vec<usize> = template
            .outputs
            .iter()
            .enumerate()
            .filter(|(_, o)| o.ty == req.ty)
            .map(|(i, _)| i)
            .collect();
        let q = *ports.choose(rng)?;
        let u = sk.nodes.len();
        sk.nodes.push(node);
        sk.edges.push(SkEdge {
            from: u,
            from_port: q,
            to: req.node,
            to_port: req.port,
        });
        enqueue_inputs(&mut queue, u, &node);
    }
    (sk.nodes.len() == n).then_some(sk)
}

/// Topological order (Kahn, smallest index first) of a skeleton.
fn topo_order(sk: &Skeleton) -> Vec<usize> {
    let mut indeg = vec![0usize; sk.nodes.len()];
    for e in &sk.edges {
        indeg[e.to] += 1;
    }
    let mut ready: BTreeSet<usize> = (0..sk.nodes.len()).filter(|i| indeg[*i] == 0).collect();
    let mut order = Vec::with_capacity(sk.nodes.len());
    while let Some(x) = ready.pop_first() {
        order.push(x);
        for e in sk.edges.iter().filter(|e| e.from == x) {
            indeg[e.to] -= 1;
            if indeg[e.to] == 0 {
                ready.insert(e.to);
            }
        }
    }
    order
}

/// Values after stages 3–5: per node, inputs (value, origin) and outputs.
struct Executed {
    inputs: Vec<Vec<(String, Origin)>>,
    outputs: Vec<Vec<String>>,
    files: Files,
}

/// Stages 3–5: source annotation, seeded instantiation and forward execution.
fn execute_forward(
    sk: &Skeleton,
    rng: &mut Rng,
    runner: &dyn CodeRunner,
) -> Result<Executed, String> {
    let order = topo_order(sk);
    if order.len() != sk.nodes.len() {
        return Err("skeleton has a cycle".into());
    }
    let mut files = Files::default();
    let mut inputs: Vec<Vec<(String, Origin)>> = vec![Vec::new(); sk.nodes.len()];
    let mut outputs: Vec<Vec<String>> = vec![Vec::new(); sk.nodes.len()];
    for &v in &order {
        let node = &sk.nodes[v];
        let t = node.template;
        let ports = node.inputs();
        let mut slots: Vec<Option<String>> = Vec::with_capacity(t.inputs.len());
        let mut origins = Vec::with_capacity(ports.len());
        for (p, spec) in ports.iter().enumerate() {
            let edge = sk.edges.iter().find(|e| e.to == v && e.to_port == p);
            if spec.ty.is_physical() {
                origins.push(Origin::Physical);
                if p < t.inputs.len() {
                    slots.push(Some(String::new()));
                }
                continue;
            }
            match edge {
                Some(e) => {
                    slots.push(Some(outputs[e.from][e.from_port].clone()));
                    origins.push(Origin::Edge);
                }
                None => {
                    slots.push(None);
                    origins.push(Origin::Seed);
                }
            }
        }
        let outs = if t.kind == NodeKind::Item {
            inputs[v] = origins.iter().map(|o| (String::new(), *o)).collect();
            library::seed_item(t, &mut files, rng)
        } else {
            library::instantiate(t, &mut slots, &mut files, rng, runner)
                .map_err(|e| format!("{}: {e}", t.id))?;
            let values: Vec<String> = slots.into_iter().map(Option::unwrap_or_default).collect();
            let outs = library::execute(t, &values, &files, runner)
                .map_err(|e| format!("{}: {e}", t.id))?;
            inputs[v] = values
                .into_iter()
                .chain(ports[t.inputs.len()..].iter().map(|_| String::new()))
                .zip(origins.iter().copied())
                .collect();
            outs
        };
        if outs.len() != t.outputs.len() {
            return Err(format!("{}: wrong number of outputs", t.id));
        }
        outputs[v] = outs;
    }
    Ok(Executed {
        inputs,
        outputs,
        files,
    })
}

/// Generates one scenario. Same `(difficulty, seed, config)` ⇒ byte-identical JSON.
pub fn generate(
    difficulty: u32,
    seed: u64,
    config: &GenConfig,
    runner: &dyn CodeRunner,
) -> Result<ToolsScenario, ToolsError> {
    generate_unique(difficulty, seed, config, runner, &BTreeSet::new()).map(|(s, _)| s)
}

/// Like [`generate`], but rejects skeletons whose signature is in `taken` (the
/// isomorphism rule of A.2 within a suite); returns the scenario and its signature.
pub fn generate_unique(
    difficulty: u32,
    seed: u64,
    config: &GenConfig,
    runner: &dyn CodeRunner,
    taken: &BTreeSet<String>,
) -> Result<(ToolsScenario, String), ToolsError> {
    let n = difficulty as usize;
    if !(2..=200).contains(&n) {
        return Err(ToolsError::Difficulty {
            given: difficulty,
            expected: 2..=200,
        });
    }
    let mut last_error = String::from("no skeleton reached the node count");
    for attempt in 0..config.max_attempts {
        let mut rng = seed::rng(seed::derive(seed, "tools/attempt", attempt as u64));
        let Some(sk) = grow(n, config, &mut rng) else {
            continue;
        };
        let signature = sk.signature();
        if taken.contains(&signature) {
            last_error = "every skeleton was isomorphic to an earlier one".into();
            continue;
        }
        let executed = match execute_forward(&sk, &mut rng, runner) {
            Ok(x) => x,
            Err(e) => {
                last_error = e;
                continue;
            }
        };
        let scenario = assemble(difficulty, seed, &sk, executed, &mut rng);
        match crate::validate::validate(&scenario) {
            Ok(()) => return Ok((scenario, signature)),
            Err(e) => last_error = e.to_string(),
        }
    }
    Err(ToolsError::Generation {
        difficulty,
        seed,
        attempts: config.max_attempts,
        last: last_error,
    })
}

/// Stage 6: ids, names, narratives; the final scenario.
fn assemble(
    difficulty: u32,
    seed: u64,
    sk: &Skeleton,
    ex: Executed,
    rng: &mut Rng,
) -> ToolsScenario {
    let theme = Theme::pick(rng);
    let setting = theme.setting(rng);
    let mut numbers: Vec<u32> = (100..1000).collect();
    numbers.shuffle(rng);
    let ids: Vec<String> = numbers[..sk.nodes.len()]
        .iter()
        .map(|k| format!("N{k}"))
        .collect();
    let titles: Vec<&str> = sk.nodes.iter().map(|n| n.template.title).collect();
    let names = theme.names(&titles, rng);
    let mut nodes = Vec::with_capacity(sk.nodes.len());
    for (v, node) in sk.nodes.iter().enumerate() {
        let t = node.template;
        let (brief, story) = theme.describe(t, rng);
        let mut inputs = IndexMap::new();
        for (p, spec) in node.inputs().iter().enumerate() {
            let (value, origin) = ex.inputs[v][p].clone();
            inputs.insert(
                spec.name.to_string(),
                PortValue {
                    ty: spec.ty,
                    value,
                    origin: Some(origin),
                },
            );
        }
        let mut outputs = IndexMap::new();
        for (q, spec) in t.outputs.iter().enumerate() {
            outputs.insert(
                spec.name.to_string(),
                PortValue {
                    ty: spec.ty,
                    value: ex.outputs[v][q].clone(),
                    origin: None,
                },
            );
        }
        let hidden = node.trigger.is_some()
            && sk
                .edges
                .iter()
                .any(|e| e.to == v && node.inputs()[e.to_port].name == TRIGGER_PORT);
        nodes.push(Node {
            id: ids[v].clone(),
            template: t.id.to_string(),
            kind: t.kind,
            trigger: node.trigger,
            hidden,
            name: names[v].clone(),
            brief,
            story,
            inputs,
            outputs,
        });
    }
    let mut edges: Vec<Edge> = sk
        .edges
        .iter()
        .map(|e| Edge {
            from: ids[e.from].clone(),
            from_port: sk.nodes[e.from].template.outputs[e.from_port]
                .name
                .to_string(),
            to: ids[e.to].clone(),
            to_port: sk.nodes[e.to].inputs()[e.to_port].name.to_string(),
        })
        .collect();
    edges.sort();
    let goal = ids[0].clone();
    let answer = ex.outputs[0].first().cloned().unwrap_or_default();
    let callable = nodes.iter().filter(|n| n.kind.is_callable()).count() as u32;
    nodes.sort_by(|a, b| a.id.cmp(&b.id));
    ToolsScenario {
        world: "tools".into(),
        id: format!("tools-d{difficulty}-s{seed}"),
        difficulty,
        seed,
        format_version: SCENARIO_VERSION,
        theme,
        setting,
        step_budget: step_budget(difficulty),
        min_tool_calls: difficulty + callable,
        goal,
        answer,
        nodes,
        edges,
        files: ex.files,
    }
}
