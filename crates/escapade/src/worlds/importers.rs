//! `escapade import <world> …`: the command around the converters of
//! [`super::import`], one branch per world that has an original to convert (comma's
//! puzzle list and PAD-UFES-20 folder, craft's level files, VisEscape's repository).
//!
//! Why here: converting an original reads files and runs the user's `python3`, which
//! world crates never do, so each world's importer lives beside the registry.

use anyhow::{Context as _, Result, bail};
use escapade_core::{ScenarioHeader, World};
use escapade_run::source::{find_suite, find_world};
use escapade_run::suite::file_stem;
use serde_json::json;

use crate::cli::ImportArgs;
use crate::commands::Ctx;

/// `escapade import <world> <file|dir> [--out DIR] [--limit N] [--seed S]`: converts an
/// original benchmark's file (comma: the puzzle list, or a PAD-UFES-20 folder for
/// Telehealth; craft: one level file, furnished from `--seed`) into scenarios; an entry that cannot be converted is reported and skipped. Fails when
/// no entry could be converted.
pub fn import(ctx: &mut Ctx<'_>, args: &ImportArgs) -> Result<()> {
    let world = find_world(ctx.worlds, &args.world)?;
    if world.name() == "vis" {
        return import_vis(ctx, world, args);
    }
    if !matches!(world.name(), "comma" | "craft") {
        bail!(
            "`escapade import` knows comma's, craft's and vis's originals, not `{}`'s",
            world.name()
        );
    }
    let limit = args.limit.unwrap_or(usize::MAX);
    if args.suite.is_some() && (world.name() != "comma" || !args.file.is_dir()) {
        bail!("--suite applies only to `import comma <PAD-UFES-20 folder>`");
    }
    // each entry: what it is called in messages, its scenario or why it was skipped
    let (what, entries): (&str, Vec<super::import::Case>) = if let Some(suite) = &args.suite {
        let name = find_suite(ctx.worlds, suite)?.1.name;
        let (cases, warnings) = super::import::telehealth_suite(&args.file, &name)
            .with_context(|| format!("cannot import {}", args.file.display()))?;
        for w in warnings {
            eprintln!("warning: {w}");
        }
        ("scenarios", cases.into_iter().take(limit).collect())
    } else if world.name() == "craft" {
        // one level file makes one scenario, furnished from --seed
        let text = std::fs::read_to_string(&args.file)
            .with_context(|| format!("cannot read {}", args.file.display()))?;
        let scenario = escapade_craft::scenario::from_level(&text, args.seed)
            .map(|s| s.to_json())
            .map_err(|e| e.to_string());
        let label = format!("level {}", args.file.display());
        ("levels", vec![super::import::Case { label, scenario }])
    } else if args.file.is_dir() {
        let cases = super::import::telehealth_folder(&args.file, args.limit)
            .with_context(|| format!("cannot import {}", args.file.display()))?;
        let entries = cases
            .into_iter()
            .map(|c| super::import::Case {
                label: format!("case {}", c.label),
                scenario: c.scenario,
            })
            .collect();
        ("cases", entries)
    } else {
        let text = std::fs::read_to_string(&args.file)
            .with_context(|| format!("cannot read {}", args.file.display()))?;
        let entries = super::import::comma(&text)
            .with_context(|| format!("cannot import {}", args.file.display()))?
            .into_iter()
            .take(limit)
            .enumerate()
            .map(|(n, scenario)| super::import::Case {
                label: format!("entry {}", n + 1),
                scenario,
            })
            .collect();
        ("entries", entries)
    };
    let total = entries.len();
    let mut scenarios = Vec::new();
    for entry in entries {
        match entry.scenario {
            Ok(json) => scenarios.push(json),
            Err(e) => eprintln!("{}: skipped: {e}", entry.label),
        }
    }
    if scenarios.is_empty() {
        bail!(
            "none of the {total} {what} of {} could be imported",
            args.file.display()
        );
    }
    match &args.out {
        None => {
            let items: Vec<&str> = scenarios.iter().map(|s| s.trim_end()).collect();
            writeln!(ctx.out, "[\n{}\n]", items.join(",\n"))?;
        }
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            for json in &scenarios {
                let header = ScenarioHeader::parse(json)?;
                let path = dir.join(format!("{}.json", file_stem(&header.id)));
                std::fs::write(&path, json)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                writeln!(ctx.out, "{}", path.display())?;
            }
        }
    }
    if scenarios.len() < total && !ctx.quiet {
        eprintln!(
            "imported {} of {total} {what} ({} skipped)",
            scenarios.len(),
            total - scenarios.len()
        );
    }
    Ok(())
}

/// The name of the suite `escapade import vis` writes.
pub const VISESCAPE_ORIGINAL: &str = "visescape-original";
/// The same rooms in hint mode (`escapade import vis --hints`).
pub const VISESCAPE_ORIGINAL_HINTS: &str = "visescape-original-hints";

/// `escapade import vis <copy> --out DIR`: VisEscape's own rooms from a user's copy of
/// the original repository, each checked (walkthrough and random walks replayed against
/// the original engine) and verified by the oracle, written as a suite with a report.
fn import_vis(ctx: &mut Ctx<'_>, world: &dyn World, args: &ImportArgs) -> Result<()> {
    let Some(out) = &args.out else {
        bail!(
            "give --out DIR: the imported rooms carry their pictures (about 6 MB a room) and \
             are written as a suite directory"
        );
    };
    let started = std::time::Instant::now();
    let opts = super::import::VisOptions {
        python: args.python.clone(),
        walks: args.walks,
        walk_steps: 200,
        limit: args.limit,
        seed: args.seed,
    };
    let copy = super::import::vis(&args.file, &opts)
        .with_context(|| format!("cannot import {}", args.file.display()))?;
    let mut texts = Vec::new();
    let mut refused: Vec<(String, String)> = Vec::new();
    let suite = if args.hints {
        VISESCAPE_ORIGINAL_HINTS
    } else {
        VISESCAPE_ORIGINAL
    };
    for room in &copy.rooms {
        match &room.result {
            Ok(imported) => {
                let mut r = imported.room.clone();
                r.hints = args.hints;
                texts.push(r.to_json());
            }
            Err(e) => refused.push((room.name.clone(), e.clone())),
        }
    }
    if texts.is_empty() {
        for (name, why) in &refused {
            eprintln!("{name}: not imported: {why}");
        }
        bail!("none of the {} rooms could be imported", copy.rooms.len());
    }
    // every room in the suite must be escaped by the oracle
    let mut build = escapade_run::suite::verify(world, suite, texts, ctx.progress())?;
    let unsolved: Vec<(String, String)> = build
        .scenarios
        .iter()
        .filter(|s| !s.oracle.solved)
        .map(|s| {
            let mut why =
                s.oracle.error.clone().unwrap_or_else(|| {
                    "the oracle cannot escape it within the episode limits".into()
                });
            // what the conversion found is usually the reason
            let notes = copy
                .rooms
                .iter()
                .filter_map(|r| r.result.as_ref().ok())
                .find(|imp| imp.room.id == s.id)
                .map(|imp| imp.notes.join("; "))
                .unwrap_or_default();
            if !notes.is_empty() {
                why = format!("{why}; the copy: {notes}");
            }
            (s.id.clone(), why)
        })
        .collect();
    if !unsolved.is_empty() {
        let keep: Vec<String> = build
            .scenarios
            .iter()
            .zip(&build.json)
            .filter(|(s, _)| s.oracle.solved)
            .map(|(_, j)| j.clone())
            .collect();
        refused.extend(unsolved.iter().cloned());
        if keep.is_empty() {
            for (name, why) in &refused {
                eprintln!("{name}: not imported: {why}");
            }
            bail!("the oracle escapes none of the imported rooms");
        }
        build = escapade_run::suite::verify(world, suite, keep, ctx.progress())?;
    }
    // the paper's rooms are run as the paper ran its own: the run settings of our rooms'
    // suite (VisEscape §4.1: three trials, the last 20 steps), kept in the manifest
    let ours = match args.hints {
        true => escapade_vis::world::VISESCAPE_HINTS,
        false => escapade_vis::world::VISESCAPE,
    };
    build.settings = world
        .suites()
        .into_iter()
        .find(|s| s.name == ours)
        .map(|s| s.settings)
        .unwrap_or_default();
    escapade_run::write_suite(&build, out)?;
    let report = vis_report(&copy, &build, &refused, started.elapsed().as_secs_f64());
    let report_dir = out.join("import");
    std::fs::create_dir_all(&report_dir)
        .with_context(|| format!("cannot create {}", report_dir.display()))?;
    let report_path = report_dir.join("report.json");
    std::fs::write(&report_path, serde_json::to_string_pretty(&report)? + "\n")
        .with_context(|| format!("cannot write {}", report_path.display()))?;
    let bytes: u64 = build.json.iter().map(|j| j.len() as u64).sum();
    print_vis_import(ctx, &copy, &build, &refused)?;
    writeln!(
        ctx.out,
        "\nimported {} of {} rooms in {:.1} s; written to {} ({} scenarios, {:.1} MB; suite.json; \
         import/report.json)",
        build.scenarios.len(),
        copy.rooms.len(),
        started.elapsed().as_secs_f64(),
        out.display(),
        build.scenarios.len(),
        bytes as f64 / 1e6
    )?;
    crate::commands::print_suite(ctx, world, &build)?;
    Ok(())
}

/// The import's machine-readable report (`OUT/import/report.json`).
fn vis_report(
    copy: &super::import::VisImport,
    build: &escapade_run::SuiteBuild,
    refused: &[(String, String)],
    seconds: f64,
) -> serde_json::Value {
    let rooms: Vec<serde_json::Value> = copy
        .rooms
        .iter()
        .map(|r| match &r.result {
            Ok(imp) => {
                let oracle = build
                    .scenarios
                    .iter()
                    .find(|s| s.id == imp.room.id)
                    .map(|s| json!({"solved": s.oracle.solved, "steps": s.oracle.steps}));
                json!({
                    "room": r.name,
                    "id": imp.room.id,
                    "imported": oracle.is_some(),
                    "counts": escapade_vis::import::counts(&imp.room),
                    "checkpoints": imp.room.checkpoints.len(),
                    "original_triggers_after_walkthrough": r.original_triggers,
                    "oracle": oracle,
                    "walkthrough": imp.walkthrough,
                    "walks": imp.walks,
                    "views": {"reachable": imp.drawn.0, "drawn": imp.drawn.1},
                    "image_bytes": r.image_bytes,
                    "notes": imp.notes,
                    "why_not": refused.iter().find(|(n, _)| n == &imp.room.id).map(|(_, w)| w),
                })
            }
            Err(e) => json!({"room": r.name, "imported": false, "why_not": e}),
        })
        .collect();
    json!({
        "source": copy.root.display().to_string(),
        "python": copy.python,
        "suite": build.suite,
        "seconds": seconds,
        "rooms": rooms,
    })
}

/// One line per room of an import, then the rooms left out and why.
fn print_vis_import(
    ctx: &mut Ctx<'_>,
    copy: &super::import::VisImport,
    build: &escapade_run::SuiteBuild,
    refused: &[(String, String)],
) -> Result<()> {
    writeln!(
        ctx.out,
        "VisEscape copy {} (python {})",
        copy.root.display(),
        copy.python
    )?;
    writeln!(
        ctx.out,
        "{:<7} {:>4} {:>5} {:>4} {:>5} {:>6} {:>9} {:>6}  {:<26} {:>11} {:>9} {:>6} {:>5}",
        "room",
        "rec",
        "items",
        "quiz",
        "inter",
        "scenes",
        "ckpt(orig)",
        "oracle",
        "walkthrough orig/ours (steps)",
        "logic agree",
        "pictures",
        "drawn",
        "notes"
    )?;
    let agree = |a: &escapade_vis::import::replay::Agreement| {
        if a.compared == 0 {
            "-".to_string()
        } else {
            format!("{}/{}", a.agreed, a.compared)
        }
    };
    for r in &copy.rooms {
        let Ok(imp) = &r.result else { continue };
        let c = escapade_vis::import::counts(&imp.room);
        let oracle = build
            .scenarios
            .iter()
            .find(|s| s.id == imp.room.id)
            .map_or("-".to_string(), |s| s.oracle.steps.to_string());
        let (walk, logic, pictures) = match &imp.walkthrough {
            Some(w) => {
                let says = |b: Option<bool>| match b {
                    Some(true) => "escapes",
                    Some(false) => "stuck",
                    None => "?",
                };
                let mut logic = w.logic.clone();
                let mut pics = w.engine_pictures.clone();
                for walk in &imp.walks {
                    logic.compared += walk.logic.compared;
                    logic.agreed += walk.logic.agreed;
                    pics.compared += walk.engine_pictures.compared;
                    pics.agreed += walk.engine_pictures.agreed;
                }
                (
                    format!(
                        "{}/{} ({})",
                        says(w.original_escaped),
                        says(Some(w.escaped)),
                        w.actions
                    ),
                    agree(&logic),
                    agree(&pics),
                )
            }
            None => ("none".to_string(), "-".to_string(), "-".to_string()),
        };
        let ckpt = format!(
            "{} ({})",
            imp.room.checkpoints.len(),
            r.original_triggers
                .map_or("-".to_string(), |n| n.to_string())
        );
        writeln!(
            ctx.out,
            "{:<7} {:>4} {:>5} {:>4} {:>5} {:>6} {:>9} {:>6}  {:<26} {:>11} {:>9} {:>6} {:>5}",
            r.name,
            c.receptacles,
            c.items,
            c.quizzes,
            c.interactions,
            c.scenes,
            ckpt,
            oracle,
            walk,
            logic,
            pictures,
            format!("{}/{}", imp.drawn.1, imp.drawn.0),
            imp.notes.len()
        )?;
    }
    if !refused.is_empty() {
        writeln!(ctx.out, "not imported:")?;
        for (name, why) in refused {
            writeln!(ctx.out, "  {name}: {why}")?;
        }
    }
    Ok(())
}
