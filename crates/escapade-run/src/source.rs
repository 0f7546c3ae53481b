//! Where scenarios come from: a suite name, a scenario file, or a directory.
//!
//! [`resolve`] turns what a user typed after `escapade run` or `escapade play` into the
//! world and the `(suite label, scenario JSON)` list the runner takes:
//! - an existing file: one scenario, labelled `file:<file stem>`;
//! - a directory with a `suite.json` manifest (written by `escapade suite --out`): its
//!   scenarios in manifest order, labelled with the suite name, each checked against the
//!   manifest's hash;
//! - another directory: its `*.json` files in name order, labelled `dir:<name>`;
//! - otherwise a suite name (`agentescape@2`, or `agentescape` for its latest version),
//!   built by its world.

use std::path::Path;

use escapade_core::env::{SuiteSettings, SuiteSpec};
use escapade_core::{ScenarioHeader, World, hash};

use crate::error::{Result, RunError};
use crate::suite::{MANIFEST, SuiteBuild, file_stem};

/// Scenarios resolved from a user's argument.
pub struct Source<'w> {
    /// The world that plays them.
    pub world: &'w dyn World,
    /// The run label: suite name, `file:<stem>` or `dir:<name>`.
    pub label: String,
    /// What to record for `resume`: the suite name or the absolute path.
    pub origin: String,
    /// `(suite label, scenario JSON)`, in suite order.
    pub scenarios: Vec<(String, String)>,
    /// The run settings of the suite's paper (a suite name, or a directory whose
    /// manifest carries them or names a known suite); empty for loose files.
    pub settings: SuiteSettings,
}

impl Source<'_> {
    /// Scenario ids, in order.
    pub fn ids(&self) -> Vec<String> {
        self.scenarios
            .iter()
            .filter_map(|(_, json)| ScenarioHeader::parse(json).ok().map(|h| h.id))
            .collect()
    }
}

/// The world called `name`, or an error naming the known ones. The registry may hold
/// its worlds boxed (the binary) or shared (`Arc`, the servers' episodes).
pub fn find_world<'w, W: AsRef<dyn World>>(worlds: &'w [W], name: &str) -> Result<&'w dyn World> {
    worlds
        .iter()
        .map(|w| w.as_ref())
        .find(|w| w.name() == name)
        .ok_or_else(|| RunError::unknown("world", name, worlds.iter().map(|w| w.as_ref().name())))
}

/// Every suite of every world, in registry order.
pub fn all_suites<W: AsRef<dyn World>>(worlds: &[W]) -> Vec<SuiteSpec> {
    worlds.iter().flat_map(|w| w.as_ref().suites()).collect()
}

/// The suite called `name` (or, without `@version`, the latest version of it) and its
/// world; unknown names give an error naming the known suites.
pub fn find_suite<'w, W: AsRef<dyn World>>(
    worlds: &'w [W],
    name: &str,
) -> Result<(&'w dyn World, SuiteSpec)> {
    let mut best: Option<(&'w dyn World, SuiteSpec, u64)> = None;
    for world in worlds.iter().map(|w| w.as_ref()) {
        if let Some(old) = world.retired_suites().into_iter().find(|r| r.name == name) {
            return Err(RunError::RetiredSuite {
                name: old.name,
                replaced_by: old.replaced_by,
                why: old.why,
            });
        }
        for spec in world.suites() {
            if spec.name == name {
                return Ok((world, spec));
            }
            if let Some((base, version)) = spec.name.split_once('@')
                && base == name
            {
                let v = version.parse::<u64>().unwrap_or(0);
                if best.as_ref().is_none_or(|(_, _, b)| v > *b) {
                    best = Some((world, spec.clone(), v));
                }
            }
        }
    }
    best.map(|(w, s, _)| (w, s))
        .ok_or_else(|| RunError::unknown("suite", name, all_suites(worlds).iter().map(|s| &s.name)))
}

/// Resolves a suite name, scenario file or directory (see the module docs).
pub fn resolve<'w>(worlds: &'w [Box<dyn World>], arg: &str) -> Result<Source<'w>> {
    let path = Path::new(arg);
    if path.is_file() {
        return from_file(worlds, path);
    }
    if path.is_dir() {
        return from_dir(worlds, path);
    }
    match find_suite(worlds, arg) {
        Ok((world, spec)) => {
            let label = spec.name.clone();
            let scenarios = world
                .build_suite(&spec.name)?
                .into_iter()
                .map(|json| (label.clone(), json))
                .collect();
            Ok(Source {
                world,
                origin: label.clone(),
                label,
                scenarios,
                settings: spec.settings,
            })
        }
        Err(e @ RunError::RetiredSuite { .. }) => Err(e),
        Err(_) => Err(RunError::unknown(
            "suite, scenario file or directory",
            arg,
            all_suites(worlds).iter().map(|s| &s.name),
        )),
    }
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| RunError::io("cannot read", path, e))
}

fn header(path: &Path, json: &str) -> Result<ScenarioHeader> {
    ScenarioHeader::parse(json).map_err(|e| RunError::BadFile {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

fn absolute(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

fn from_file<'w>(worlds: &'w [Box<dyn World>], path: &Path) -> Result<Source<'w>> {
    let json = read(path)?;
    let h = header(path, &json)?;
    let world = find_world(worlds, &h.world)?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| h.id.clone());
    let label = format!("file:{stem}");
    Ok(Source {
        world,
        origin: absolute(path),
        scenarios: vec![(label.clone(), json)],
        label,
        settings: SuiteSettings::default(),
    })
}

fn from_dir<'w>(worlds: &'w [Box<dyn World>], dir: &Path) -> Result<Source<'w>> {
    let manifest = dir.join(MANIFEST);
    let mut settings = SuiteSettings::default();
    let (label, files) = if manifest.is_file() {
        let build: SuiteBuild =
            serde_json::from_str(&read(&manifest)?).map_err(|e| RunError::BadFile {
                path: manifest.clone(),
                message: format!("not a suite manifest: {e}"),
            })?;
        let mut files = Vec::new();
        for entry in &build.scenarios {
            let path = dir.join(format!("{}.json", file_stem(&entry.id)));
            let json = read(&path)?;
            if hash::sha256_hex(json.as_bytes()) != entry.hash {
                return Err(RunError::BadFile {
                    path,
                    message: format!("changed since {MANIFEST} was written (hash differs)"),
                });
            }
            files.push((path, json));
        }
        settings = if build.settings.is_empty() {
            // a manifest written before suites declared settings: the named suite's
            find_suite(worlds, &build.suite)
                .map(|(_, spec)| spec.settings)
                .unwrap_or_default()
        } else {
            build.settings
        };
        (build.suite, files)
    } else {
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| RunError::io("cannot read", dir, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
            .collect();
        paths.sort();
        let mut files = Vec::new();
        for path in paths {
            let json = read(&path)?;
            files.push((path, json));
        }
        let name = std::fs::canonicalize(dir)
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "scenarios".to_string());
        (format!("dir:{name}"), files)
    };
    let mut world: Option<&'w dyn World> = None;
    let mut scenarios = Vec::new();
    for (path, json) in files {
        let h = header(&path, &json)?;
        match world {
            None => world = Some(find_world(worlds, &h.world)?),
            Some(w) if w.name() != h.world => {
                return Err(RunError::MixedWorlds {
                    first: w.name().to_string(),
                    second: h.world,
                });
            }
            Some(_) => {}
        }
        scenarios.push((label.clone(), json));
    }
    let world = world.ok_or(RunError::NoScenarios)?;
    Ok(Source {
        world,
        label,
        origin: absolute(dir),
        scenarios,
        settings,
    })
}
