//! What a client may learn before playing: the suites and, for each, its scenarios by
//! index, id and difficulty — never a scenario's contents (they hold the answers).
//!
//! Suites are built by their worlds on first use and kept: a suite is rebuilt byte for
//! byte from seeds, so one build serves every later call.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use escapade_core::{ScenarioHeader, World};
use escapade_run::source::find_suite;
use serde::Serialize;

use super::error::ToolError;

/// One suite as `list_suites` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SuiteEntry {
    /// Name with version (`agentescape@2`).
    pub name: String,
    /// The world that plays it.
    pub world: String,
    /// One line.
    pub description: String,
    /// How many scenarios it has.
    pub scenarios: u32,
    /// `(difficulty, count)` tiers, in order.
    pub tiers: Vec<(u32, u32)>,
}

/// One scenario as `list_scenarios` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScenarioEntry {
    /// Its position in the suite (what start_episode's `index` takes).
    pub index: usize,
    /// Its id.
    pub id: String,
    /// Its difficulty tier.
    pub difficulty: u32,
}

/// A built suite: its full name, its world, its scenarios as JSON in suite order.
pub type Built = (String, Arc<dyn World>, Arc<Vec<String>>);

/// The worlds and the suites built so far.
pub struct Catalogue {
    worlds: Vec<Arc<dyn World>>,
    built: Mutex<BTreeMap<String, Arc<Vec<String>>>>,
}

impl Catalogue {
    /// A catalogue of `worlds`' suites, none built yet.
    pub fn new(worlds: Vec<Arc<dyn World>>) -> Catalogue {
        Catalogue {
            worlds,
            built: Mutex::new(BTreeMap::new()),
        }
    }

    /// The worlds.
    pub fn worlds(&self) -> &[Arc<dyn World>] {
        &self.worlds
    }

    /// The world called `name`.
    pub fn world(&self, name: &str) -> Result<Arc<dyn World>, ToolError> {
        let found = escapade_run::source::find_world(&self.worlds, name)?;
        let mine = self.worlds.iter().find(|w| w.name() == found.name());
        mine.cloned()
            .ok_or_else(|| ToolError::Internal(format!("world `{name}` vanished")))
    }

    /// Every suite (of `world` only, when given), in registry order.
    pub fn suites(&self, world: Option<&str>) -> Result<Vec<SuiteEntry>, ToolError> {
        if let Some(w) = world {
            self.world(w)?;
        }
        Ok(self
            .worlds
            .iter()
            .filter(|w| world.is_none_or(|name| w.name() == name))
            .flat_map(|w| w.suites())
            .map(|s| SuiteEntry {
                scenarios: s.tiers.iter().map(|(_, n)| n).sum(),
                name: s.name,
                world: s.world,
                description: s.description,
                tiers: s.tiers,
            })
            .collect())
    }

    /// The suite called `name` (without `@version`: its latest), built: its full name,
    /// its world and its scenarios as JSON, in suite order. Retired names say what
    /// replaced them.
    pub fn suite(&self, name: &str) -> Result<Built, ToolError> {
        let (world, spec) = find_suite(&self.worlds, name)?;
        let world = self.world(world.name())?;
        let cached = self.lock().get(&spec.name).cloned();
        let scenarios = match cached {
            Some(s) => s,
            None => {
                let built = Arc::new(world.build_suite(&spec.name)?);
                self.lock().insert(spec.name.clone(), built.clone());
                built
            }
        };
        Ok((spec.name, world, scenarios))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Arc<Vec<String>>>> {
        // a panic while building a suite leaves the map as it was: keep using it
        self.built.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The scenarios `offset..offset + limit` of a built suite, and how many it has.
pub fn page(
    scenarios: &[String],
    offset: usize,
    limit: usize,
) -> Result<(Vec<ScenarioEntry>, usize), ToolError> {
    let mut out = Vec::new();
    for (index, json) in scenarios.iter().enumerate().skip(offset).take(limit) {
        let h = ScenarioHeader::parse(json)?;
        out.push(ScenarioEntry {
            index,
            id: h.id,
            difficulty: h.difficulty,
        });
    }
    Ok((out, scenarios.len()))
}
