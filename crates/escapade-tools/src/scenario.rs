//! The tools world's scenario file: a fully instantiated DAG an outside program can
//! re-execute.
//!
//! Every node lists its template, its concrete input and output values (canonical text
//! forms, see [`crate::value`]) and whether each input came from an edge or was seeded
//! (the A.3 `source_init` map); edges name both ports; files are embedded. The file also
//! holds the ground truth (the flag, the golden values): it is never shown to an agent —
//! the environment only renders what the agent has earned.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::files::Files;
use crate::narrative::Theme;
use crate::template::NodeKind;
use crate::value::PortType;

/// Scenario format version (bump on any change of shape or meaning).
pub const SCENARIO_VERSION: u32 = 1;

/// Where an input value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// Carried by an edge from an upstream output.
    Edge,
    /// Seeded during value instantiation (A.4); disclosed to the agent as a clue.
    Seed,
    /// A physical trigger port (no value).
    Physical,
}

/// A port and its concrete value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortValue {
    /// Port type.
    #[serde(rename = "type")]
    pub ty: PortType,
    /// Canonical value ("" for physical ports).
    pub value: String,
    /// Inputs only: edge, seed or physical.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
}

/// One node of the DAG.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    /// Instance id the agent uses (`N482`); unrelated to the template id.
    pub id: String,
    /// Template id (see `escapade list tools`).
    pub template: String,
    /// Tool, terminal, item or container.
    pub kind: NodeKind,
    /// For droppable variants: the type of the trigger port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<PortType>,
    /// Hidden at the start (its trigger port is wired to a container).
    pub hidden: bool,
    /// Display name, unique within the scenario.
    pub name: String,
    /// One-line narrative shown in the room listing.
    pub brief: String,
    /// Longer narrative shown when the node is investigated.
    pub story: String,
    /// Input ports in parameter order.
    pub inputs: IndexMap<String, PortValue>,
    /// Output ports.
    pub outputs: IndexMap<String, PortValue>,
}

impl Node {
    /// Data parameters the agent must pass when calling (inputs without the physical
    /// trigger).
    pub fn parameters(&self) -> impl Iterator<Item = (&String, &PortValue)> {
        self.inputs.iter().filter(|(_, p)| !p.ty.is_physical())
    }
}

/// A directed edge from an output port to an input port.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Edge {
    /// Producer node id.
    pub from: String,
    /// Producer output port.
    pub from_port: String,
    /// Consumer node id.
    pub to: String,
    /// Consumer input port.
    pub to_port: String,
}

/// A tools-world scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolsScenario {
    /// Always `tools`.
    pub world: String,
    /// `tools-d<difficulty>-s<seed>`.
    pub id: String,
    /// Node count (the paper's difficulty).
    pub difficulty: u32,
    /// Generation seed.
    pub seed: u64,
    /// Scenario format version.
    pub format_version: u32,
    /// Narrative theme (A.6).
    pub theme: Theme,
    /// Opening narrative of the room.
    pub setting: String,
    /// Maximum agent actions (App. B).
    pub step_budget: u32,
    /// Minimum tool calls: one investigation per node plus one call per callable node.
    pub min_tool_calls: u32,
    /// Id of the terminal (goal) node.
    pub goal: String,
    /// Ground truth: the terminal's output, which the agent must submit.
    pub answer: String,
    /// Nodes, sorted by id.
    pub nodes: Vec<Node>,
    /// Edges, sorted.
    pub edges: Vec<Edge>,
    /// Files referenced by `File_Id` values.
    pub files: Files,
}

impl ToolsScenario {
    /// Parses a scenario file.
    pub fn from_json(json: &str) -> Result<Self, crate::ToolsError> {
        let s: ToolsScenario = serde_json::from_str(json)
            .map_err(|e| crate::ToolsError::InvalidScenario(e.to_string()))?;
        if s.world != "tools" {
            return Err(crate::ToolsError::InvalidScenario(format!(
                "world is `{}`, not `tools`",
                s.world
            )));
        }
        Ok(s)
    }

    /// Serializes to the canonical file form (pretty JSON, trailing newline).
    pub fn to_json(&self) -> String {
        let mut s = escapade_core::scenario::to_json(self);
        s.push('\n');
        s
    }

    /// Index of a node by id.
    pub fn node_index(&self, id: &str) -> Option<usize> {
        self.nodes.binary_search_by(|n| n.id.as_str().cmp(id)).ok()
    }
}

/// The step budget for a difficulty (App. B: 35/80/130/160/200 for 5/10/15/20/25 nodes;
/// between tiers the next tier's budget, beyond 25 eight actions per node).
pub fn step_budget(difficulty: u32) -> u32 {
    match difficulty {
        0..=5 => 35,
        6..=10 => 80,
        11..=15 => 130,
        16..=20 => 160,
        21..=25 => 200,
        n => 8 * n,
    }
}
