//! The suite as App. A builds it: Algorithm 1's structural constraints on every edge,
//! no two isomorphic skeletons in a tier, one of eight themes per instance, a terminal
//! goal, and droppable variants near the default 30 %.

mod common;
use common::suite;

use std::collections::{BTreeMap, BTreeSet};

use escapade_tools::library;
use escapade_tools::scenario::{Node, ToolsScenario};
use escapade_tools::template::{NodeKind, PortRole, TRIGGER_PORT};

fn role(node: &Node, port: &str) -> PortRole {
    library::template(&node.template)
        .unwrap()
        .inputs
        .iter()
        .find(|p| p.name == port)
        .map_or(PortRole::Open, |p| p.role)
}

#[test]
fn every_edge_keeps_algorithm_1s_constraints() {
    for s in suite() {
        let node = |id: &str| &s.nodes[s.node_index(id).unwrap()];
        let mut by_source: BTreeMap<(&str, &str), Vec<(&str, &str)>> = BTreeMap::new();
        for e in &s.edges {
            by_source
                .entry((&e.from, &e.from_port))
                .or_default()
                .push((&e.to, &e.to_port));
        }
        for ((from, port), uses) in &by_source {
            let ty = node(from).outputs[*port].ty;
            // physical-object single use
            if ty.is_physical() {
                assert_eq!(uses.len(), 1, "{}: {from}.{port} used twice", s.id);
            }
            // special-port exclusivity
            if uses
                .iter()
                .any(|(to, p)| role(node(to), p) == PortRole::Exclusive)
            {
                assert_eq!(uses.len(), 1, "{}: {from}.{port} shared", s.id);
            }
            // same-target deduplication
            let targets: BTreeSet<&str> = uses.iter().map(|(to, _)| *to).collect();
            assert_eq!(targets.len(), uses.len(), "{}: {from}.{port}", s.id);
        }
        // seeded-only ports are never wired; the goal is a terminal and a sink
        for e in &s.edges {
            assert_ne!(
                role(node(&e.to), &e.to_port),
                PortRole::SeedOnly,
                "{}",
                s.id
            );
            assert_ne!(e.from, s.goal, "{}", s.id);
        }
        assert_eq!(node(&s.goal).kind, NodeKind::Terminal);
        // acyclic: a full resolution order exists
        assert_eq!(
            escapade_tools::baseline::resolution_order(s).len(),
            s.nodes.len()
        );
        assert_eq!(s.nodes.len() as u32, s.difficulty);
    }
}

/// A.2's isomorphism key: node count, the multiset of templates and the multiset of
/// edge patterns (source template and port, target template and port).
fn signature(s: &ToolsScenario) -> String {
    let label = |n: &Node| match n.trigger {
        Some(t) => format!("{}+{t}", n.template),
        None => n.template.clone(),
    };
    let mut nodes: Vec<String> = s.nodes.iter().map(label).collect();
    nodes.sort();
    let mut edges: Vec<String> = s
        .edges
        .iter()
        .map(|e| {
            let (a, b) = (
                &s.nodes[s.node_index(&e.from).unwrap()],
                &s.nodes[s.node_index(&e.to).unwrap()],
            );
            format!("{}.{}>{}.{}", label(a), e.from_port, label(b), e.to_port)
        })
        .collect();
    edges.sort();
    format!("{}|{}|{}", s.nodes.len(), nodes.join(","), edges.join(","))
}

#[test]
fn no_two_scenarios_of_a_tier_are_isomorphic() {
    let mut seen: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
    for s in suite() {
        assert!(
            seen.entry(s.difficulty).or_default().insert(signature(s)),
            "{} repeats a skeleton of its tier",
            s.id
        );
    }
}

#[test]
fn the_suite_uses_every_theme_and_droppable_variants() {
    // A.6: one of eight thematic styles per instance
    let themes: BTreeSet<String> = suite()
        .iter()
        .map(|s| serde_json::to_string(&s.theme).unwrap())
        .collect();
    assert_eq!(themes.len(), 8, "{themes:?}");
    // A.1: droppable variants mixed in at 30 % of the new non-goal nodes
    let (mut droppable, mut eligible) = (0, 0);
    for s in suite() {
        for n in s.nodes.iter().filter(|n| n.id != s.goal) {
            if library::template(&n.template)
                .unwrap()
                .has_droppable_variants()
            {
                eligible += 1;
                droppable += n.trigger.is_some() as u32;
            }
        }
        for n in s.nodes.iter().filter(|n| n.hidden) {
            assert!(
                s.edges
                    .iter()
                    .any(|e| e.to == n.id && e.to_port == TRIGGER_PORT),
                "{}: hidden {} has a revealer",
                s.id,
                n.id
            );
        }
    }
    let share = f64::from(droppable) / f64::from(eligible);
    assert!((0.2..0.4).contains(&share), "droppable share {share}");
}

/// Every generated scenario passes the final validation (A.6) on load; the same
/// scenario with one of its edges listed twice, or with an input fed by a second edge
/// from another output of its type, is refused with a message naming the input.
#[test]
fn an_input_fed_twice_is_refused_on_load() {
    use escapade_core::World;
    use escapade_tools::validate::validate;
    let mut second_source = 0;
    for s in suite().iter().step_by(7) {
        validate(s).unwrap_or_else(|e| panic!("{}: {e}", s.id));
        let Some(e) = s.edges.first() else { continue };
        let mut twice = s.clone();
        twice.edges.insert(1, e.clone());
        let err = common::world()
            .check(&twice.to_json())
            .unwrap_err()
            .to_string();
        let wanted = format!(
            "edge {}.{} → {}.{} is listed twice",
            e.from, e.from_port, e.to, e.to_port
        );
        assert!(err.contains(&wanted), "{}: {err}", s.id);
        // another output of the same type, not already feeding this input
        let ty = s.nodes[s.node_index(&e.from).unwrap()].outputs[&e.from_port].ty;
        let other = s.nodes.iter().find_map(|n| {
            n.outputs
                .iter()
                .find(|(port, pv)| pv.ty == ty && (n.id != e.from || **port != e.from_port))
                .map(|(port, _)| (n.id.clone(), port.clone()))
        });
        if let Some((from, from_port)) = other {
            let mut fed = s.clone();
            fed.edges.push(escapade_tools::scenario::Edge {
                from,
                from_port,
                ..e.clone()
            });
            let err = validate(&fed).unwrap_err().to_string();
            let wanted = format!("input {}.{} is fed by two edges", e.to, e.to_port);
            assert!(err.contains(&wanted), "{}: {err}", s.id);
            second_source += 1;
        }
    }
    assert!(second_source > 0, "no scenario had a second output to wire");
}
