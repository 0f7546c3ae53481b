//! Final validation (A.6): a scenario is admitted only if it is complete and solvable.
//!
//! Checks: every node has its narrative fields; every edge resolves to existing, typed
//! ports and every input port is fed by at most one edge; every data port has a value; every file id resolves to a written file; the
//! goal is a terminal whose output is the answer; physical ports are single-use; the
//! graph is acyclic and every hidden node is revealed by a node that can be resolved
//! before it, so the win condition is reachable by a complete call sequence. The same
//! checks run on hand-authored or edited scenario files before they are played.

use std::collections::BTreeSet;

use crate::ToolsError;
use crate::library;
use crate::scenario::{Origin, ToolsScenario};
use crate::template::{NodeKind, TRIGGER_PORT};
use crate::value::PortType;

fn fail(msg: impl Into<String>) -> Result<(), String> {
    Err(msg.into())
}

/// Validates a scenario; `Ok` means well-formed and solvable.
///
/// # Errors
/// [`ToolsError::Validation`] naming the scenario and its first problem.
pub fn validate(s: &ToolsScenario) -> Result<(), ToolsError> {
    problems(s).map_err(|problem| ToolsError::Validation {
        scenario: s.id.clone(),
        problem,
    })
}

fn problems(s: &ToolsScenario) -> Result<(), String> {
    if s.nodes.len() != s.difficulty as usize {
        return fail(format!(
            "{} nodes for difficulty {}",
            s.nodes.len(),
            s.difficulty
        ));
    }
    if !s.nodes.windows(2).all(|w| w[0].id < w[1].id) {
        return fail("nodes must be sorted by unique id");
    }
    let mut names = BTreeSet::new();
    for n in &s.nodes {
        let Some(t) = library::template(&n.template) else {
            return fail(format!("{}: unknown template {}", n.id, n.template));
        };
        if t.kind != n.kind {
            return fail(format!("{}: kind does not match template", n.id));
        }
        if n.name.is_empty() || n.brief.is_empty() || n.story.is_empty() {
            return fail(format!("{}: missing narrative", n.id));
        }
        if !names.insert(n.name.as_str()) {
            return fail(format!("duplicate name {}", n.name));
        }
        let ports = t.input_ports(n.trigger);
        if ports.len() != n.inputs.len()
            || ports
                .iter()
                .zip(n.inputs.iter())
                .any(|(spec, (name, pv))| spec.name != name || spec.ty != pv.ty)
        {
            return fail(format!("{}: inputs do not match template {}", n.id, t.id));
        }
        if t.outputs.len() != n.outputs.len()
            || t.outputs
                .iter()
                .zip(n.outputs.iter())
                .any(|(spec, (name, pv))| spec.name != name || spec.ty != pv.ty)
        {
            return fail(format!("{}: outputs do not match template {}", n.id, t.id));
        }
        for (port, pv) in n.inputs.iter().chain(n.outputs.iter()) {
            if pv.ty.is_physical() {
                continue;
            }
            if pv.value.is_empty() {
                return fail(format!("{}.{port}: no value", n.id));
            }
            if pv.ty.canonicalize(&pv.value).as_deref() != Ok(pv.value.as_str()) {
                return fail(format!("{}.{port}: value is not canonical {}", n.id, pv.ty));
            }
            if pv.ty == PortType::FileId && s.files.get(&pv.value).is_none() {
                return fail(format!("{}.{port}: file {} not written", n.id, pv.value));
            }
        }
    }
    for (id, f) in &s.files.0 {
        if f.media_type == "pending" {
            return fail(format!("file {id} reserved but never written"));
        }
    }
    // edges
    let mut used_physical = BTreeSet::new();
    let mut fed = std::collections::BTreeMap::new();
    for e in &s.edges {
        if let Some(first) = fed.insert((e.to.as_str(), e.to_port.as_str()), e) {
            return fail(if first.from == e.from && first.from_port == e.from_port {
                format!(
                    "edge {}.{} → {}.{} is listed twice",
                    e.from, e.from_port, e.to, e.to_port
                )
            } else {
                format!(
                    "input {}.{} is fed by two edges (from {}.{} and {}.{})",
                    e.to, e.to_port, first.from, first.from_port, e.from, e.from_port
                )
            });
        }
        let (Some(a), Some(b)) = (s.node_index(&e.from), s.node_index(&e.to)) else {
            return fail(format!("edge {} → {} names an unknown node", e.from, e.to));
        };
        let (Some(out), Some(inp)) = (
            s.nodes[a].outputs.get(&e.from_port),
            s.nodes[b].inputs.get(&e.to_port),
        ) else {
            return fail(format!(
                "edge {}.{} → {}.{}: unknown port",
                e.from, e.from_port, e.to, e.to_port
            ));
        };
        if out.ty != inp.ty {
            return fail(format!("edge {} → {}: type mismatch", e.from, e.to));
        }
        if !inp.ty.is_physical() && (inp.value != out.value || inp.origin != Some(Origin::Edge)) {
            return fail(format!("edge {} → {}: value not propagated", e.from, e.to));
        }
        if out.ty.is_physical() && !used_physical.insert((e.from.as_str(), e.from_port.as_str())) {
            return fail(format!(
                "physical port {}.{} used twice",
                e.from, e.from_port
            ));
        }
    }
    for n in &s.nodes {
        let wired = s
            .edges
            .iter()
            .any(|e| e.to == n.id && e.to_port == TRIGGER_PORT);
        if n.hidden != wired {
            return fail(format!(
                "{}: hidden flag does not match its trigger edge",
                n.id
            ));
        }
        for (port, pv) in n.parameters() {
            let has_edge = s.edges.iter().any(|e| e.to == n.id && &e.to_port == port);
            if has_edge != (pv.origin == Some(Origin::Edge)) {
                return fail(format!("{}.{port}: origin does not match edges", n.id));
            }
        }
    }
    // goal
    let Some(g) = s.node_index(&s.goal) else {
        return fail("goal node missing");
    };
    if s.nodes[g].kind != NodeKind::Terminal
        || s.nodes[g].outputs.values().next().map(|p| p.value.as_str()) != Some(s.answer.as_str())
    {
        return fail("goal must be a terminal whose output is the answer");
    }
    if s.edges.iter().any(|e| e.from == s.goal) {
        return fail("the goal must be a sink");
    }
    // acyclic, and a full resolution order exists (hidden nodes after their revealers)
    if crate::baseline::resolution_order(s).len() != s.nodes.len() {
        return fail("no resolution order reaches every node (cycle)");
    }
    Ok(())
}
