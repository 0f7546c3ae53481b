//! What the dumper ([`super::DUMPER`]) prints: a VisEscape room as the original's Python
//! objects hold it, and traces of the original engine playing it. Field names follow the
//! original's (`appliable_receptacle`, `after_solve_state`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The dumper's output for a whole copy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dump {
    /// The dump format (1).
    pub format: u32,
    /// The Python version that ran the copy's code.
    #[serde(default)]
    pub python: String,
    /// One entry per room directory, in the order asked.
    pub rooms: Vec<DumpedRoom>,
}

impl Dump {
    /// Reads the dumper's JSON.
    pub fn from_json(text: &str) -> Result<Dump, crate::VisError> {
        let dump: Dump = serde_json::from_str(text)
            .map_err(|e| crate::VisError::format(Some("the dump of VisEscape rooms".into()), e))?;
        if dump.format != 1 {
            return Err(crate::VisError::DumpFormat { found: dump.format });
        }
        Ok(dump)
    }
}

/// One room as the original's objects hold it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DumpedRoom {
    /// The room directory's name (`room1`).
    pub name: String,
    /// Why the room's `config.py` could not be read (nothing else is set then).
    #[serde(default)]
    pub error: Option<String>,
    /// The wall faced at the start (`NORTH`).
    #[serde(default)]
    pub start: String,
    /// The clear condition.
    #[serde(default)]
    pub clear: Option<Clear>,
    /// Walls in the original's order, each with its receptacles' ids.
    #[serde(default)]
    pub walls: Vec<DumpedWall>,
    /// Receptacles, wall by wall.
    #[serde(default)]
    pub receptacles: Vec<DumpedReceptacle>,
    /// Every item once, in the order receptacles hold them.
    #[serde(default)]
    pub items: Vec<DumpedItem>,
    /// The hint table, or the mark of a hint function.
    #[serde(default)]
    pub hints: Hints,
    /// The room's `walkthrough_oracle.json` played through the original engine (absent
    /// when the room has none).
    #[serde(default)]
    pub trace: Option<Trace>,
    /// Seeded random walks through the original engine.
    #[serde(default)]
    pub walks: Vec<Trace>,
}

/// The original's clear condition: a receptacle in a state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clear {
    /// Receptacle id.
    pub receptacle: Option<String>,
    /// Its state.
    pub state: Option<String>,
}

/// One wall.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DumpedWall {
    /// `NORTH`, `EAST`, `SOUTH` or `WEST`.
    pub wall: String,
    /// Receptacle ids, in order.
    pub receptacles: Vec<String>,
}

/// One receptacle.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DumpedReceptacle {
    /// Its id (the name players use).
    pub id: String,
    /// The original's class (`LockDesk`).
    pub class: String,
    /// Its possible states, sorted.
    pub states: Vec<String>,
    /// Its state at the start.
    pub initial: String,
    /// Its transitions, in the order the original keeps them.
    pub transitions: Vec<DumpedTransition>,
    /// The items it holds, each with the states in which it can be seen.
    pub items: Vec<Contained>,
}

/// One transition of a receptacle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DumpedTransition {
    /// The state it applies in.
    pub from: String,
    /// The action string (`open`, `use key_A`, `unlock`).
    pub action: String,
    /// The state it leads to.
    pub to: String,
    /// Its rule.
    pub rule: DumpedRule,
}

/// A transition rule, in escapade's rule format plus a mark for classes the dumper
/// does not know.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DumpedRule {
    /// `AlwaysAllowRule`.
    Always,
    /// `HasItemRule(item name)`.
    HasItem(String),
    /// `TriggerActiveRule(trigger name)`.
    Trigger(String),
    /// `AndRule(...)`.
    And(Vec<DumpedRule>),
    /// `NotRule(...)`.
    Not(Box<DumpedRule>),
    /// A rule class the dumper does not know (its class and text).
    Unknown(String),
}

/// An item held by a receptacle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contained {
    /// Item name.
    pub name: String,
    /// The receptacle states in which it can be seen and used.
    pub states: Vec<String>,
}

/// One item.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DumpedItem {
    /// Its name (players use it).
    pub name: String,
    /// Its class (`Key`).
    pub class: String,
    /// Its class and base classes, most specific first (`KeyLock`, `LockKeyItem`,
    /// `QuizItem`, `Item`).
    pub classes: Vec<String>,
    /// Its `item_type` (`key`, `lock`, `puzzle`).
    #[serde(default)]
    pub item_type: Option<String>,
    /// What the original lists for it (`pick key_A`, `inspect Image1`, `press Button`).
    pub actions: Vec<String>,
    /// The receptacle it acts on, when it acts on one.
    #[serde(default)]
    pub appliable_receptacle: Option<String>,
    /// The state that receptacle must be in.
    #[serde(default)]
    pub appliable_state: Option<String>,
    /// The state it puts that receptacle in.
    #[serde(default)]
    pub after_solve_state: Option<String>,
    /// A lock's answer (`8056`, or `use key_A` for a key lock).
    #[serde(default)]
    pub answer: Option<String>,
}

impl DumpedItem {
    fn is(&self, class: &str) -> bool {
        self.classes.iter().any(|c| c == class)
    }
}

/// What kind of thing an original item is, by its classes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ItemRole {
    /// Picked up into the inventory (`PickableItem`).
    Pickable,
    /// A lock that takes a typed code (`QuizItem` with an answer that is not a use).
    CodeLock(String),
    /// A lock an item opens (`QuizItem` answered by `use <item>`).
    KeyLock(String),
    /// Fixed: inspected (a puzzle picture) and/or acted on (`press Button`).
    Static,
}

impl DumpedItem {
    /// Its role, or why it has none escapade knows.
    pub fn role(&self) -> Result<ItemRole, String> {
        if self.is("QuizItem") {
            let answer = self.answer.clone().unwrap_or_default();
            return match answer.trim().strip_prefix("use ") {
                Some(key) => Ok(ItemRole::KeyLock(key.trim().to_string())),
                None if answer.trim().is_empty() => {
                    Err(format!("the lock `{}` has no answer", self.name))
                }
                None => Ok(ItemRole::CodeLock(answer.trim().to_string())),
            };
        }
        if self.is("PickableItem") {
            return Ok(ItemRole::Pickable);
        }
        if self.is("StaticItem") {
            return Ok(ItemRole::Static);
        }
        Err(format!(
            "the item `{}` is a {} (classes {}), which escapade cannot convert",
            self.name,
            self.class,
            self.classes.join(", ")
        ))
    }
}

/// The original's hints: a table from the last trigger to the next hint, or a function.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hints {
    /// The table (`""` is the hint before any trigger).
    #[serde(default)]
    pub table: Option<BTreeMap<String, String>>,
    /// The room computes hints in a function (seen through the traces only).
    #[serde(default)]
    pub function: bool,
}

/// A play through the original engine.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// The state before the first action.
    #[serde(default)]
    pub start: Option<Snapshot>,
    /// One row per action.
    #[serde(default)]
    pub steps: Vec<TraceStep>,
    /// Why the engine stopped, when it failed.
    #[serde(default)]
    pub error: Option<String>,
    /// Why the original's view manager could not be built (no pictures then).
    #[serde(default)]
    pub pictures_error: Option<String>,
}

impl Trace {
    /// The original engine cleared the room by the last step.
    pub fn cleared(&self) -> bool {
        self.steps
            .last()
            .and_then(|s| s.snapshot.as_ref())
            .is_some_and(|s| s.clear)
    }
}

/// One action through the original engine and what followed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceStep {
    /// The action string.
    pub action: String,
    /// It was among the original's available actions.
    #[serde(default)]
    pub listed: bool,
    /// The original raised this error on it (the trace ends there).
    #[serde(default)]
    pub error: Option<String>,
    /// The state after it (absent after an error).
    #[serde(flatten)]
    pub snapshot: Option<Snapshot>,
}

/// The original engine's state at one moment.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Each receptacle's state.
    pub states: BTreeMap<String, String>,
    /// Triggers set, in the order they were first set.
    pub triggers: Vec<String>,
    /// Item names in the inventory, sorted.
    pub inventory: Vec<String>,
    /// The view.
    pub view: TraceView,
    /// The room is cleared.
    pub clear: bool,
    /// The hint the original would give now.
    #[serde(default)]
    pub hint: Option<String>,
    /// The picture the original's view manager shows (relative to the room directory).
    #[serde(default)]
    pub picture: Option<String>,
}

/// The original's view.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceView {
    /// `WALL`, `RECEPTACLE` or `ITEM`.
    pub kind: String,
    /// The wall faced.
    pub wall: String,
    /// The receptacle inspected.
    #[serde(default)]
    pub receptacle: Option<String>,
    /// The item inspected.
    #[serde(default)]
    pub item: Option<String>,
}
