//! Templates: the atomic vocabulary every scenario is assembled from (App. A.1).
//!
//! A [`Template`] declares typed input and output ports; the library (`library.rs`)
//! gives each one a real deterministic function ([`crate::library::execute`]) and a
//! seeding rule for its unconnected inputs ([`crate::library::instantiate`]). Droppable
//! variants are not separate entries: a node carries `trigger: Some(type)` and gains one
//! extra physical input port named [`TRIGGER_PORT`] (see [`Template::input_ports`]).

use serde::{Deserialize, Serialize};

use crate::value::PortType;

/// Name of the extra physical input port of a droppable variant.
pub const TRIGGER_PORT: &str = "trigger";

/// What a node is to the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// A tool: called with parameters, runs a real function.
    Tool,
    /// The execution endpoint: its output is the flag to submit.
    Terminal,
    /// An information carrier: investigating it reveals its payload.
    Item,
    /// A locked container: called with its code, it opens and drops hidden nodes.
    Container,
}

impl NodeKind {
    /// Whether the agent resolves this node with `call` (otherwise with `investigate`).
    pub fn is_callable(self) -> bool {
        !matches!(self, NodeKind::Item)
    }

    /// Lowercase name used in observations.
    pub fn label(self) -> &'static str {
        match self {
            NodeKind::Tool => "tool",
            NodeKind::Terminal => "terminal",
            NodeKind::Item => "item",
            NodeKind::Container => "container",
        }
    }
}

/// How the generator may wire an input port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PortRole {
    /// May take any upstream output of its type, or be seeded.
    Open,
    /// Semantically sensitive (regex pattern, JSON path, secret, Base64 data, file): may be
    /// wired, but the source output it takes feeds nothing else (A.2 special-port
    /// exclusivity).
    Exclusive,
    /// Always seeded by the template's instantiation rule (its value only makes sense
    /// together with the other inputs, e.g. an AES ciphertext); never an edge target.
    SeedOnly,
}

/// One typed port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortSpec {
    /// Parameter name the agent uses.
    pub name: &'static str,
    /// Type from the closed vocabulary.
    pub ty: PortType,
    /// Wiring rule (inputs only; outputs are always [`PortRole::Open`]).
    pub role: PortRole,
    /// Exact meaning, shown to the agent when it investigates the node.
    pub doc: &'static str,
}

/// A tool, terminal, item or container template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Template {
    /// Stable id (`mod_pow`, `usb_drive`, …), used in scenario files.
    pub id: &'static str,
    /// Tool, terminal, item or container.
    pub kind: NodeKind,
    /// Family from App. A.1 (`big-integer arithmetic`, `cryptography`, …).
    pub family: &'static str,
    /// Display name shown to the agent (`Modular Exponentiator`).
    pub title: &'static str,
    /// Exact semantics: byte encodings and text forms of inputs and outputs.
    pub semantics: &'static str,
    /// Input ports, in parameter order.
    pub inputs: &'static [PortSpec],
    /// Output ports.
    pub outputs: &'static [PortSpec],
}

impl Template {
    /// Input ports including the trigger port of a droppable variant, in order (the
    /// trigger comes last).
    pub fn input_ports(&self, trigger: Option<PortType>) -> Vec<PortSpec> {
        let mut ports = self.inputs.to_vec();
        if let Some(ty) = trigger {
            ports.push(PortSpec {
                name: TRIGGER_PORT,
                ty,
                role: PortRole::Open,
                doc: "the physical object that reveals this node",
            });
        }
        ports
    }

    /// Whether droppable variants exist for this template (tools, terminals and items;
    /// containers are never hidden).
    pub fn has_droppable_variants(&self) -> bool {
        self.kind != NodeKind::Container
    }
}
