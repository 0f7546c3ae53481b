//! Graph algorithms: `shortest_path` (Dijkstra over an undirected weighted graph file).

use std::collections::BTreeMap;

use petgraph::algo::dijkstra;
use petgraph::graph::{NodeIndex, UnGraph};
use petgraph::visit::EdgeRef;
use rand::Rng as _;
use rand::seq::SliceRandom;

use super::words::{ROOMS, word};
use super::{Cx, ExecError, Seed, exclusive, output, seed_only};
use crate::template::{NodeKind, Template};
use crate::value::PortType::{BigInt as Int, FileId, Text};

pub(super) const SHORTEST_PATH: Template = Template {
    id: "shortest_path",
    kind: NodeKind::Tool,
    family: "graph",
    title: "Route Planner",
    semantics: "Reads an undirected weighted graph, one edge per line as `A B 7` (two node \
        names without spaces or `>`, then a positive integer weight; blank lines are \
        ignored), and runs Dijkstra from start to goal. Returns the node names along the \
        shortest path joined by `>` (e.g. `Atrium>Vault>Crypt`) and its total weight. Ties \
        between equally short paths are broken by taking, walking back from the goal, the \
        alphabetically smallest predecessor.",
    inputs: &[
        exclusive(
            "graph",
            FileId,
            "the file id of an edge-list graph (`A B 7` per line)",
        ),
        seed_only("start", Text, "the name of the start node"),
        seed_only("goal", Text, "the name of the goal node"),
    ],
    outputs: &[
        output("path", Text, "node names from start to goal joined by `>`"),
        output(
            "distance",
            Int,
            "the total weight of the path, a decimal integer",
        ),
    ],
};

/// Most edges a graph file may have.
const MAX_EDGES: usize = 10_000;
/// Largest edge weight.
const MAX_WEIGHT: u64 = 1_000_000;

/// A parsed graph: node names ↔ indices (by name order) and the petgraph graph.
struct Graph {
    index: BTreeMap<String, NodeIndex>,
    names: Vec<String>,
    g: UnGraph<(), u64>,
}

/// Parses an edge list; `None` when a line is malformed.
fn parse(text: &str) -> Option<Graph> {
    let mut edges = Vec::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        match fields.as_slice() {
            [] => continue,
            [a, b, w] => {
                let w: u64 = w.parse().ok()?;
                if !(1..=MAX_WEIGHT).contains(&w) || a.contains('>') || b.contains('>') {
                    return None;
                }
                edges.push((*a, *b, w));
            }
            _ => return None,
        }
        if edges.len() > MAX_EDGES {
            return None;
        }
    }
    let mut g = UnGraph::<(), u64>::new_undirected();
    let mut index = BTreeMap::new();
    let mut names = Vec::new();
    for (a, b, w) in edges {
        let mut node = |name: &str| {
            *index.entry(name.to_string()).or_insert_with(|| {
                names.push(name.to_string());
                g.add_node(())
            })
        };
        let (x, y) = (node(a), node(b));
        g.add_edge(x, y, w);
    }
    Some(Graph { index, names, g })
}

/// A shortest path (as names), its distance, and how many shortest paths there are
/// (saturating).
fn solve(graph: &Graph, start: &str, goal: &str) -> Result<(Vec<String>, u64, u64), ExecError> {
    let node = |name: &str| {
        graph
            .index
            .get(name)
            .copied()
            .ok_or_else(|| ExecError::NotFound {
                what: "node",
                name: name.to_string(),
            })
    };
    let (s, t) = (node(start)?, node(goal)?);
    let found = dijkstra(&graph.g, s, None, |e| *e.weight());
    let dist: Vec<Option<u64>> = graph
        .g
        .node_indices()
        .map(|i| found.get(&i).copied())
        .collect();
    let Some(total) = dist[t.index()] else {
        return Err(ExecError::NotFound {
            what: "path to",
            name: goal.to_string(),
        });
    };
    let name = |i: NodeIndex| graph.names[i.index()].as_str();
    let mut path = vec![t];
    let mut v = t;
    while v != s {
        let Some(u) = preds(graph, &dist, v).min_by(|a, b| name(*a).cmp(name(*b))) else {
            break;
        };
        path.push(u);
        v = u;
    }
    path.reverse();
    // count shortest paths, visiting reachable nodes by increasing distance
    let mut order: Vec<(u64, NodeIndex)> = graph
        .g
        .node_indices()
        .filter_map(|i| dist[i.index()].map(|d| (d, i)))
        .collect();
    order.sort_by_key(|&(d, i)| (d, i.index()));
    let mut count = vec![0u64; graph.names.len()];
    count[s.index()] = 1;
    for &(_, v) in &order {
        if v == s {
            continue;
        }
        count[v.index()] =
            preds(graph, &dist, v).fold(0u64, |acc, u| acc.saturating_add(count[u.index()]));
    }
    let names = path.iter().map(|&i| name(i).to_string()).collect();
    Ok((names, total, count[t.index()]))
}

/// Predecessors of `v` on shortest paths: neighbours `u` with dist[u] + w = dist[v]
/// (weights are at least 1, so the distance falls along them).
fn preds<'g>(
    graph: &'g Graph,
    dist: &'g [Option<u64>],
    v: NodeIndex,
) -> impl Iterator<Item = NodeIndex> + 'g {
    let dv = dist[v.index()].unwrap_or(u64::MAX);
    graph
        .g
        .edges(v)
        .filter(move |e| {
            dist[e.target().index()].is_some_and(|du| du.saturating_add(*e.weight()) == dv)
        })
        .map(|e| e.target())
}

pub(super) fn execute(cx: &Cx<'_>, v: &[String]) -> Option<Result<Vec<String>, ExecError>> {
    if cx.t.id != "shortest_path" {
        return None;
    }
    Some(cx.file(v, 0).and_then(|bytes| {
        let graph = std::str::from_utf8(&bytes)
            .ok()
            .and_then(parse)
            .ok_or_else(|| ExecError::BadFile {
                id: v[0].clone(),
                format: "edge-list graph",
            })?;
        let (path, distance, _) = solve(&graph, &v[1], &v[2])?;
        Ok(vec![path.join(">"), distance.to_string()])
    }))
}

pub(super) fn seed(s: &mut Seed<'_>) -> Option<Result<(), ExecError>> {
    if s.t.id != "shortest_path" {
        return None;
    }
    Some(seed_graph(s))
}

/// Whether a name can be a node of a graph file.
fn valid_name(name: &str) -> bool {
    !name.is_empty() && !name.contains('>') && !name.chars().any(char::is_whitespace)
}

fn seed_graph(s: &mut Seed<'_>) -> Result<(), ExecError> {
    let (id, pending) = s.file_slot(0);
    if !pending {
        let bytes = s.files.get(&id).map(|f| f.bytes()).unwrap_or_default();
        let graph = std::str::from_utf8(&bytes)
            .ok()
            .and_then(parse)
            .filter(|g| !g.names.is_empty())
            .ok_or(ExecError::Unsatisfiable {
                why: "the graph file is not an edge list",
            })?;
        let mut names: Vec<&String> = graph.index.keys().collect();
        names.shuffle(s.rng);
        let start = s.get(1).map_or_else(|| names[0].clone(), str::to_string);
        let goal = names
            .iter()
            .find(|g| **g != &start && solve(&graph, &start, g).is_ok())
            .map_or_else(|| start.clone(), |g| (*g).clone());
        s.set(1, start);
        s.set(2, goal);
        return Ok(());
    }
    let given: Vec<String> = [s.get(1), s.get(2)]
        .into_iter()
        .flatten()
        .map(str::to_string)
        .collect();
    if !given.iter().all(|n| valid_name(n)) {
        return Err(ExecError::Unsatisfiable {
            why: "a given node name contains spaces or `>`",
        });
    }
    for _ in 0..100 {
        let n = s.rng.random_range(6..=9);
        let mut names: Vec<String> = ROOMS.iter().map(|r| r.to_string()).collect();
        names.retain(|r| !given.contains(r));
        names.shuffle(s.rng);
        names.truncate(n - given.len().min(n));
        names.extend(given.iter().cloned());
        names.dedup();
        names.shuffle(s.rng);
        let n = names.len();
        if n < 2 {
            continue;
        }
        let mut pairs: Vec<(usize, usize)> =
            (1..n).map(|i| (i, s.rng.random_range(0..i))).collect();
        let extra = s.rng.random_range(n / 2..=n);
        for _ in 0..extra {
            let (a, b) = (s.rng.random_range(0..n), s.rng.random_range(0..n));
            if a != b
                && !pairs
                    .iter()
                    .any(|&(x, y)| (x, y) == (a, b) || (x, y) == (b, a))
            {
                pairs.push((a, b));
            }
        }
        let mut text = String::new();
        for (a, b) in pairs {
            let w = s.rng.random_range(1..=20u32);
            text.push_str(&format!("{} {} {w}\n", names[a], names[b]));
        }
        let start = s.get(1).map_or_else(|| names[0].clone(), str::to_string);
        let goal = s
            .get(2)
            .map_or_else(|| names[n - 1].clone(), str::to_string);
        let Some(graph) = parse(&text) else {
            continue;
        };
        match solve(&graph, &start, &goal) {
            Ok((path, _, 1)) if path.len() >= 3 || given.len() == 2 => {
                let name = format!("{}-routes.txt", word(s.rng));
                s.files.write(&id, &name, "text/plain", text.as_bytes());
                s.set(1, start);
                s.set(2, goal);
                return Ok(());
            }
            _ => continue,
        }
    }
    Err(ExecError::Unsatisfiable {
        why: "no graph with a unique shortest path was found",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dijkstra_and_ties() {
        let g = parse("A B 1\nB C 1\nA D 1\nD C 1\nC E 5\n\nA E 9\n").unwrap();
        let (path, d, count) = solve(&g, "A", "E").unwrap();
        assert_eq!((path.join(">"), d, count), ("A>B>C>E".to_string(), 7, 2));
        let (path, d, count) = solve(&g, "E", "A").unwrap();
        assert_eq!((path.join(">"), d, count), ("E>C>B>A".to_string(), 7, 2));
        assert!(solve(&g, "A", "Z").is_err());
        assert!(parse("A B 0\n").is_none());
        assert!(parse("A B\n").is_none());
        assert!(parse("A>X B 2\n").is_none());
        let g = parse("A B 1\nC D 1\n").unwrap();
        assert!(solve(&g, "A", "D").is_err());
        let (path, d, _) = solve(&g, "A", "A").unwrap();
        assert_eq!((path.join(">"), d), ("A".to_string(), 0));
    }
}
