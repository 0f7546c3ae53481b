//! One function per subcommand. Each takes the world registry and where to print, so
//! tests can drive them with a toy world and read what they printed.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use escapade_agents::MODEL_AGENTS;
use escapade_core::{ScenarioHeader, World};
use escapade_run::players::{self, AgentFlags, Players};
use escapade_run::plots::PlotFormat;
use escapade_run::report::Format;
use escapade_run::runner::RunSummary;
use escapade_run::source::{find_suite, find_world};
use escapade_run::suite::file_stem;
use escapade_run::{AgentFactory, Baseline, PlayOptions, Progress, RunSpec, rundir};
use serde_json::json;

use crate::cli::{
    BenchArgs, CacheAction, CacheArgs, CheckArgs, CompareArgs, ExportArgs, ExportFormat, GenArgs,
    ImportArgs, JudgeArgs, ListArgs, McpArgs, PaperArgs, PlayArgs, ReportArgs, ReportFormat,
    ResumeArgs, RunArgs, SetupArgs, ShowArgs, SpendingArgs, SuiteArgs, ViewArgs,
};

/// What every command gets: the worlds, standard output, and the quiet flag.
pub struct Ctx<'a> {
    /// The world registry.
    pub worlds: &'a [Box<dyn World>],
    /// Where results go (standard output).
    pub out: &'a mut dyn Write,
    /// No progress bars.
    pub quiet: bool,
}

impl Ctx<'_> {
    pub(crate) fn progress(&self) -> Progress {
        Progress::new(self.quiet)
    }
}

/// `escapade list [WORLD] [--json]`.
pub fn list(ctx: &mut Ctx<'_>, args: &ListArgs) -> Result<()> {
    let worlds: Vec<&dyn World> = match &args.world {
        // a suite's name answers for its world
        Some(name) => match (find_world(ctx.worlds, name), find_suite(ctx.worlds, name)) {
            (Ok(world), _) | (Err(_), Ok((world, _))) => vec![world],
            // a retired suite's name too, saying what replaced it
            (Err(_), Err(e @ escapade_run::RunError::RetiredSuite { .. })) => {
                let world = ctx
                    .worlds
                    .iter()
                    .map(|w| w.as_ref())
                    .find(|w| w.retired_suites().iter().any(|r| r.name == *name));
                let Some(world) = world else {
                    return Err(e.into());
                };
                if !ctx.quiet {
                    eprintln!("note: {e}");
                }
                vec![world]
            }
            (Err(_), Err(_)) => {
                let mut known: Vec<String> =
                    ctx.worlds.iter().map(|w| w.name().to_string()).collect();
                known.extend(
                    escapade_run::source::all_suites(ctx.worlds)
                        .into_iter()
                        .map(|s| s.name),
                );
                return Err(escapade_run::RunError::unknown("world or suite", name, known).into());
            }
        },
        None => ctx.worlds.iter().map(|w| w.as_ref()).collect(),
    };
    let suites: Vec<_> = worlds.iter().flat_map(|w| w.suites()).collect();
    if args.json {
        let mut v = json!({
            "worlds": worlds.iter().map(|w| json!({
                "name": w.name(),
                "description": w.description(),
                "agents": w.agent_kinds(),
                "world_options": w.env_options().iter()
                    .map(|(k, help)| json!({"key": k, "help": help}))
                    .collect::<Vec<_>>(),
                "generation": {
                    "default_difficulty": w.generation().default_difficulty,
                    "options": w.generation().options.iter()
                        .map(|(k, help)| json!({"key": k, "help": help}))
                        .collect::<Vec<_>>(),
                },
            })).collect::<Vec<_>>(),
            "suites": suites.iter().map(|s| json!({
                "name": s.name,
                "world": s.world,
                "description": s.description,
                "tiers": s.tiers.iter().map(|(d, c)| json!({"difficulty": d, "count": c}))
                    .collect::<Vec<_>>(),
                "settings": s.settings,
            })).collect::<Vec<_>>(),
            "model_agents": MODEL_AGENTS,
        });
        if let (Some(w), Some(map)) = (worlds.first(), v.as_object_mut())
            && args.world.is_some()
        {
            map.insert("catalogue".into(), w.catalogue().into());
        }
        writeln!(ctx.out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(());
    }
    writeln!(ctx.out, "worlds:")?;
    if worlds.is_empty() {
        writeln!(ctx.out, "  (none)")?;
    }
    for w in &worlds {
        writeln!(ctx.out, "  {:<8} {}", w.name(), w.description())?;
        writeln!(ctx.out, "           agents: {}", w.agent_kinds().join(", "))?;
        for (key, help) in w.env_options() {
            writeln!(ctx.out, "           -W {key}=…  {help}")?;
        }
        let generation = w.generation();
        writeln!(
            ctx.out,
            "           gen: difficulty {} unless --difficulty",
            generation.default_difficulty
        )?;
        for (key, help) in generation.options {
            writeln!(ctx.out, "           gen -W {key}=…  {help}")?;
        }
    }
    writeln!(
        ctx.out,
        "model agents (any world, with --model): {}",
        MODEL_AGENTS.join(", ")
    )?;
    writeln!(ctx.out, "suites:")?;
    if suites.is_empty() {
        writeln!(ctx.out, "  (none)")?;
    }
    let width = suites
        .iter()
        .map(|s| s.name.len())
        .max()
        .unwrap_or(0)
        .max(16);
    for s in &suites {
        let tiers: Vec<String> = s
            .tiers
            .iter()
            .map(|(d, c)| {
                let label = match find_world(ctx.worlds, &s.world) {
                    Ok(w) => w.report().tier(*d, &BTreeMap::new()),
                    Err(_) => d.to_string(),
                };
                format!("{c}×{label}")
            })
            .collect();
        writeln!(
            ctx.out,
            "  {:<width$} {:<8} {}",
            s.name, s.world, s.description
        )?;
        writeln!(
            ctx.out,
            "  {:<width$} tiers (count×difficulty): {}",
            "",
            tiers.join(", ")
        )?;
        if !s.settings.is_empty() {
            writeln!(
                ctx.out,
                "  {:<width$} paper settings ({}): {}",
                "",
                s.settings.source,
                settings_line(&s.settings)
            )?;
        }
    }
    if let (Some(w), Some(_)) = (worlds.first(), &args.world) {
        let catalogue = w.catalogue();
        if !catalogue.trim().is_empty() {
            writeln!(ctx.out, "catalogue:\n{}", catalogue.trim_end())?;
        }
    }
    Ok(())
}

/// `epochs 3, history=last:20` — a suite's settings as `escapade run` applies them.
fn settings_line(settings: &escapade_core::env::SuiteSettings) -> String {
    let epochs = settings.epochs.map(|e| format!("epochs {e}"));
    let agent = settings.agent.iter().map(|(k, v)| format!("-A {k}={v}"));
    epochs
        .into_iter()
        .chain(agent)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `escapade gen <world> [--difficulty N] [-W KEY=VALUE]... --seed S [--count K] [--out
/// PATH]`: the world's generator, with its own default difficulty and options.
pub fn gen_scenarios(ctx: &mut Ctx<'_>, args: &GenArgs) -> Result<()> {
    let world = find_world(ctx.worlds, &args.world)?;
    if args.count == 0 {
        bail!("--count must be at least 1");
    }
    let mut options = players::world_options(&args.options)?;
    // `--puzzle X` and `--variant X` are the older spellings of two worlds' options
    for (key, value) in [("puzzle", &args.puzzle), ("variant", &args.variant)] {
        if let Some(v) = value
            && options
                .insert(key.to_string(), v.trim().to_string())
                .is_some()
        {
            bail!("--{key} and -W {key}=… both given; give one");
        }
    }
    let generation = world.generation();
    if let Some(key) = options
        .keys()
        .find(|k| !generation.options.iter().any(|(o, _)| o == k))
    {
        let known: Vec<&str> = generation.options.iter().map(|(k, _)| *k).collect();
        bail!(
            "world `{}` takes no generation option `{key}`{}",
            world.name(),
            if known.is_empty() {
                " (it takes none)".to_string()
            } else {
                format!("; it takes: {}", known.join(", "))
            }
        );
    }
    let difficulty = args.difficulty.unwrap_or(generation.default_difficulty);
    let mut scenarios = Vec::new();
    for i in 0..u64::from(args.count) {
        let seed = args
            .seed
            .checked_add(i)
            .context("the seeds run past the largest u64")?;
        let json = world
            .generate(difficulty, seed, &options)
            .with_context(|| {
                format!(
                    "cannot generate a {} scenario at difficulty {difficulty} with seed {seed}",
                    world.name(),
                )
            })?;
        scenarios.push(json);
    }
    let Some(out) = &args.out else {
        if let [one] = scenarios.as_slice() {
            writeln!(ctx.out, "{}", one.trim_end())?;
        } else {
            let items: Vec<&str> = scenarios.iter().map(|s| s.trim_end()).collect();
            writeln!(ctx.out, "[\n{}\n]", items.join(",\n"))?;
        }
        return Ok(());
    };
    let as_dir = scenarios.len() > 1 || out.is_dir() || out.to_string_lossy().ends_with('/');
    if !as_dir {
        if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(out, &scenarios[0])
            .with_context(|| format!("cannot write {}", out.display()))?;
        writeln!(ctx.out, "{}", out.display())?;
        return Ok(());
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    for json in &scenarios {
        let header = ScenarioHeader::parse(json)?;
        let path = out.join(format!("{}.json", file_stem(&header.id)));
        std::fs::write(&path, json).with_context(|| format!("cannot write {}", path.display()))?;
        writeln!(ctx.out, "{}", path.display())?;
    }
    Ok(())
}

/// `escapade import <world> <file|dir> …`: the converters of the original benchmarks'
/// files, which read files and run programs, live beside the registry
/// ([`crate::worlds::importers`]).
pub fn import(ctx: &mut Ctx<'_>, args: &ImportArgs) -> Result<()> {
    crate::worlds::importers::import(ctx, args)
}

/// `escapade suite <name|dir> [--out DIR] [--json]`; fails when a scenario is not solved.
pub fn suite(ctx: &mut Ctx<'_>, args: &SuiteArgs) -> Result<()> {
    let path = std::path::Path::new(&args.name);
    let (world, build) = if path.is_dir()
        || (path.is_file() && path.file_name().is_some_and(|n| n == "suite.json"))
    {
        let dir = if path.is_dir() {
            path
        } else {
            path.parent().unwrap_or(std::path::Path::new("."))
        };
        let source = escapade_run::resolve(ctx.worlds, &dir.to_string_lossy())?;
        let label = source.label.clone();
        let texts = source.scenarios.into_iter().map(|(_, j)| j).collect();
        let build = escapade_run::suite::verify(source.world, &label, texts, ctx.progress())?;
        (source.world, build)
    } else {
        let (world, spec) = find_suite(ctx.worlds, &args.name)?;
        (
            world,
            escapade_run::build_suite(world, &spec.name, ctx.progress())?,
        )
    };
    if let Some(dir) = &args.out {
        escapade_run::write_suite(&build, dir)?;
    }
    if args.json {
        writeln!(ctx.out, "{}", serde_json::to_string_pretty(&build)?)?;
    } else {
        print_suite(ctx, world, &build)?;
        if let Some(dir) = &args.out {
            writeln!(ctx.out, "written to {}", dir.display())?;
        }
    }
    if !build.all_solved() {
        for (id, e) in build.oracle_errors() {
            eprintln!("oracle failed on {id}: {e}");
        }
        let unsolved: Vec<&str> = build
            .scenarios
            .iter()
            .filter(|s| !s.oracle.solved)
            .map(|s| s.id.as_str())
            .collect();
        bail!(
            "{} of {} scenarios of {} are not solved by the oracle: {}",
            unsolved.len(),
            build.stats.count,
            build.suite,
            unsolved.join(", ")
        );
    }
    Ok(())
}

/// A built suite's summary: oracle results per tier, the world's statistics beside the
/// paper's, the suite hash.
pub(crate) fn print_suite(
    ctx: &mut Ctx<'_>,
    world: &dyn World,
    build: &escapade_run::SuiteBuild,
) -> Result<()> {
    {
        let s = &build.stats;
        writeln!(
            ctx.out,
            "suite {} ({}): {} scenarios, {} solved by the oracle",
            build.suite,
            world.name(),
            s.count,
            s.solved
        )?;
        writeln!(
            ctx.out,
            "{:>10} {:>6} {:>7} {:>11} {:>5} {:>5}",
            "difficulty", "count", "solved", "mean steps", "min", "max"
        )?;
        let opt = |v: Option<u32>| v.map_or("-".to_string(), |v| v.to_string());
        let mean = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
        for t in &s.tiers {
            writeln!(
                ctx.out,
                "{:>10} {:>6} {:>7} {:>11} {:>5} {:>5}",
                t.difficulty,
                t.count,
                t.solved,
                mean(t.mean_oracle_steps),
                opt(t.min_oracle_steps),
                opt(t.max_oracle_steps)
            )?;
        }
        writeln!(
            ctx.out,
            "{:>10} {:>6} {:>7} {:>11} {:>5} {:>5}",
            "all",
            s.count,
            s.solved,
            mean(s.mean_oracle_steps),
            opt(s.min_oracle_steps),
            opt(s.max_oracle_steps)
        )?;
        if !s.paper.is_empty() {
            writeln!(
                ctx.out,
                "\n{:<34} {:>8} {:>8}  source",
                "statistic", "ours", "paper"
            )?;
            for p in &s.paper {
                let paper = p.paper.map_or("-".to_string(), |v| format!("{v:.2}"));
                writeln!(
                    ctx.out,
                    "{:<34} {:>8.2} {:>8}  {}",
                    p.name, p.ours, paper, p.source
                )?;
            }
            writeln!(ctx.out)?;
        }
        writeln!(ctx.out, "suite hash: {}", s.suite_hash)?;
    }
    Ok(())
}

/// The model used when a model agent is given without `--model`.
pub use escapade_run::players::DEFAULT_MODEL;

/// A tokio runtime for commands that talk to models.
fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// `escapade run <source> --agent SPEC …`.
pub fn run(ctx: &mut Ctx<'_>, args: &RunArgs) -> Result<()> {
    if args.from.is_some() {
        return fork(ctx, args);
    }
    if args.source.is_empty() {
        bail!("say what to run: a suite name, a scenario file or a directory (or --from RUN)");
    }
    let world_options = players::world_options(&args.world_options)?;
    // an unknown -W key fails before a suite is built (which takes seconds)
    if !Path::new(&args.source).exists()
        && let Ok((world, _)) = find_suite(ctx.worlds, &args.source)
    {
        escapade_core::options::check_keys(&world_options, &world.env_options())?;
    }
    // so does a model named without its provider (`gpt-4o`: did you mean openai/gpt-4o?)
    // (another agent given a --model is told so by the players' check below)
    if let Some(model) = &args.model
        && !model.contains('/')
        && MODEL_AGENTS.contains(&args.agent.as_str())
    {
        escapade_agents::LlmConfig::from_options(model, &BTreeMap::new())?;
    }
    let source = escapade_run::resolve(ctx.worlds, &args.source)?;
    escapade_core::options::check_keys(&world_options, &source.world.env_options())?;
    // the suite's paper settings are the defaults; what the user gave wins
    let players = AgentFlags {
        agent: args.agent.clone(),
        model: args.model.clone(),
        options: args.agent_options.clone(),
        base_url: args.base_url.clone(),
        expert: args.expert.clone(),
        expert_model: args.expert_model.clone(),
        expert_options: args.expert_options.clone(),
    }
    .players(&source.settings)?;
    let shard = args
        .shard
        .as_deref()
        .map(|arg| rundir::Shard::from_arg(arg, |name| std::env::var(name).ok()))
        .transpose()?;
    let spec = players.clone().into_spec(RunSpec {
        world_options,
        epochs: escapade_run::settings::epochs(&source.settings, args.epochs),
        suite_settings: source.settings.clone(),
        limit: args.limit,
        sample: args.sample,
        seed: args.seed,
        concurrency: args
            .concurrency
            .unwrap_or_else(|| default_concurrency(&args.agent, args.expert.as_deref())),
        max_steps: args.max_steps,
        source: source.origin.clone(),
        shard,
        ..RunSpec::default()
    });
    if args.dry_run {
        return print_estimate(ctx, &source, &spec, &players, args);
    }
    play_run(
        ctx,
        &source,
        &spec,
        &players,
        &args.out,
        args.wide,
        &args.spending,
    )
}

/// `escapade estimate <source> …`: `run --dry-run`.
pub fn estimate(ctx: &mut Ctx<'_>, args: &RunArgs) -> Result<()> {
    run(
        ctx,
        &RunArgs {
            dry_run: true,
            ..args.clone()
        },
    )
}

/// Prints what the run `spec` of `players` would cost ([`escapade_run::estimate`]).
fn print_estimate(
    ctx: &mut Ctx<'_>,
    source: &escapade_run::Source<'_>,
    spec: &RunSpec,
    players: &Players,
    args: &RunArgs,
) -> Result<()> {
    if !players.options.contains_key("model") {
        bail!(
            "an estimate prices a model agent's requests; `--agent {}` sends none",
            players.agent
        );
    }
    let progress = ctx.progress();
    let estimate = runtime()?.block_on(escapade_run::estimate::estimate(
        source.world,
        &source.scenarios,
        spec,
        players,
        args.reply_tokens,
        progress,
    ))?;
    if args.json {
        writeln!(ctx.out, "{}", serde_json::to_string_pretty(&estimate)?)?;
    } else {
        write!(ctx.out, "{}", estimate.render())?;
    }
    Ok(())
}

/// `escapade run --from RUN --episode SCENARIO[:EPOCH] --step K`: a recorded episode
/// forked at step K, played on by this command's agent as a new run (see
/// [`escapade_run::replay`]). The suite, seed and world options are the origin's; the
/// agent, its options and the step cap are this command's.
fn fork(ctx: &mut Ctx<'_>, args: &RunArgs) -> Result<()> {
    let from = args.from.as_deref().expect("run calls fork with --from");
    if !args.source.is_empty() {
        bail!(
            "--from plays the recorded run's own scenario; do not name a suite (`{}`)",
            args.source
        );
    }
    if !args.world_options.is_empty() {
        bail!("--from keeps the recorded run's world options; -W cannot change them");
    }
    let (episode, step) = (
        args.episode
            .as_deref()
            .context("--from needs --episode SCENARIO[:EPOCH]")?,
        args.step.context("--from needs --step K")?,
    );
    let (scenario, epoch) = escapade_run::replay::parse_episode(episode);
    let toml = rundir::read_run_toml(from)?;
    let config = &toml.config;
    if epoch >= config.epochs {
        bail!(
            "run {} played epochs 0 to {} only, not {epoch}",
            from.display(),
            config.epochs - 1
        );
    }
    // a baseline has no conversation to rebuild: it starts at step K as it is
    let fresh = args.fresh || !MODEL_AGENTS.contains(&args.agent.as_str());
    let fork = escapade_run::replay::Fork::open(from, scenario, epoch, step, fresh)?;
    let source = escapade_run::resolve(ctx.worlds, &config.source).with_context(|| {
        format!(
            "cannot load the scenarios of {} from `{}`",
            from.display(),
            config.source
        )
    })?;
    let players = AgentFlags {
        agent: args.agent.clone(),
        model: args.model.clone(),
        options: args.agent_options.clone(),
        base_url: args.base_url.clone(),
        expert: args.expert.clone(),
        expert_model: args.expert_model.clone(),
        expert_options: args.expert_options.clone(),
    }
    .players(&source.settings)?;
    let mut spec = RunSpec::from_config(config, 1);
    spec.limit = None;
    spec.sample = None;
    spec.shard = None;
    spec.epochs = epoch + 1;
    // the step cap is this run's: a recording cut short by its cap may be played on
    spec.max_steps = args.max_steps;
    spec.fork = Some(fork);
    let spec = players.clone().into_spec(spec);
    play_run(
        ctx,
        &source,
        &spec,
        &players,
        &args.out,
        args.wide,
        &args.spending,
    )
}

/// `escapade resume <run-dir>`, or `escapade resume <folder>`: the interrupted runs
/// below the folder are listed, and the one there is resumed when it is alone.
pub fn resume(ctx: &mut Ctx<'_>, args: &ResumeArgs) -> Result<()> {
    if args.dir.is_dir() && !rundir::is_run_dir(&args.dir) {
        let runs = rundir::runs_below(&args.dir);
        let interrupted: Vec<(PathBuf, String)> = runs
            .iter()
            .filter_map(|dir| unfinished(dir).map(|what| (dir.clone(), what)))
            .collect();
        match interrupted.as_slice() {
            [] if runs.is_empty() => bail!(
                "{} is not a run directory (run.toml is missing) and holds none",
                args.dir.display()
            ),
            [] => bail!(
                "no interrupted run under {}: its {} run(s) are finished",
                args.dir.display(),
                runs.len()
            ),
            [(dir, what)] => {
                eprintln!(
                    "resuming the one interrupted run under {}: {what}",
                    args.dir.display()
                );
                let one = ResumeArgs {
                    dir: dir.clone(),
                    concurrency: args.concurrency,
                    agent_options: args.agent_options.clone(),
                    expert_options: args.expert_options.clone(),
                    wide: args.wide,
                    spending: args.spending.clone(),
                };
                return resume(ctx, &one);
            }
            several => {
                let mut list = String::new();
                for (dir, what) in several {
                    list.push_str(&format!("\n  escapade resume {}   # {what}", dir.display()));
                }
                bail!(
                    "{} interrupted runs under {}; resume one of them:{list}",
                    several.len(),
                    args.dir.display()
                );
            }
        }
    }
    let toml = rundir::read_run_toml(&args.dir)?;
    let config = &toml.config;
    let source = escapade_run::resolve(ctx.worlds, &config.source).with_context(|| {
        format!(
            "cannot load the scenarios of {} from `{}`",
            args.dir.display(),
            config.source
        )
    })?;
    if source.world.name() != config.world {
        bail!(
            "`{}` now holds scenarios of world `{}`, but the run was of world `{}`",
            config.source,
            source.world.name(),
            config.world
        );
    }
    let concurrency = args
        .concurrency
        .unwrap_or_else(|| default_concurrency(&config.agent, config.expert.as_deref()));
    let mut spec = RunSpec::from_config(config, concurrency);
    if let Some(origin) = &config.fork {
        // a fork plays on its origin's recorded episode, read again from the origin
        let fork = escapade_run::replay::Fork::open(
            Path::new(&origin.run),
            &origin.scenario,
            origin.epoch,
            origin.step,
            origin.fresh,
        )
        .with_context(|| {
            format!(
                "{} forks episode {}:{} of {}, which cannot be read again",
                args.dir.display(),
                origin.scenario,
                origin.epoch,
                origin.run
            )
        })?;
        spec.fork = Some(fork);
    }
    retune(&mut spec.agent_options, &args.agent_options, "-A")?;
    retune(&mut spec.expert_options, &args.expert_options, "-E")?;
    let players = Players::of_spec(&spec);
    play_run(
        ctx,
        &source,
        &spec,
        &players,
        &args.dir,
        args.wide,
        &args.spending,
    )
}

/// What is left of the run in `dir` (`3 of 10 episodes finished, 1 checkpointed`), or
/// `None` when it is finished (or unreadable).
fn unfinished(dir: &Path) -> Option<String> {
    let toml = rundir::read_run_toml(dir).ok()?;
    let config = &toml.config;
    let all = config.scenarios.len() * config.epochs as usize;
    let total = match config.shard {
        Some(shard) => (0..all).filter(|k| shard.contains(*k)).count(),
        None => all,
    };
    let rows = rundir::read_episodes(&dir.join(rundir::EPISODES))
        .ok()?
        .rows;
    let done: std::collections::BTreeSet<(&str, u32)> = rows
        .iter()
        .filter(|r| !r.retryable && r.config_hash == toml.config_hash)
        .map(|r| (r.scenario.as_str(), r.epoch))
        .collect();
    let checkpoints = rundir::checkpoints(dir)
        .iter()
        .filter(|c| c.config_hash == toml.config_hash)
        .count();
    if done.len() >= total && checkpoints == 0 {
        return None;
    }
    let mut what = format!(
        "{} of {total} episodes finished ({}, {})",
        done.len(),
        config.suite,
        config.agent
    );
    if checkpoints > 0 {
        what.push_str(&format!(", {checkpoints} checkpointed"));
    }
    Some(what)
}

/// Episodes in flight when `--concurrency` is not given: one per core when every agent
/// is a world baseline (pure computation, no model server to spare), else 1. Results do
/// not depend on it (see [`escapade_run::runner`]).
fn default_concurrency(agent: &str, expert: Option<&str>) -> usize {
    let model = |spec: &str| MODEL_AGENTS.contains(&spec);
    if model(agent) || expert.is_some_and(model) {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}

/// Applies `resume`'s `-A`/`-E` pairs to a run's options: only the client's tuning keys
/// ([`TUNING_KEYS`](escapade_agents::config::TUNING_KEYS)) may change, because the others
/// are the run's identity.
fn retune(
    options: &mut BTreeMap<String, String>,
    pairs: &[String],
    flag: &'static str,
) -> Result<()> {
    use escapade_agents::config::TUNING_KEYS;
    for (key, value) in players::key_values(pairs, "agent option", flag)? {
        if !TUNING_KEYS.contains(&key.as_str()) {
            bail!(
                "{flag} {key}=… cannot change on resume: it is part of what the run measures \
                 (only {} can); start a new run instead",
                TUNING_KEYS.join(", ")
            );
        }
        options.insert(key, value);
    }
    Ok(())
}

/// How a session's model clients pay: the response cache (opened unless `off`, and only
/// when a model agent plays) and the cost cap, which counts what `out` (a run directory
/// being resumed) already spent; and what `run.toml` records of them.
fn spending(
    args: &SpendingArgs,
    players: &Players,
    out: &Path,
) -> Result<(escapade_llm::ClientOptions, rundir::Spending)> {
    let models = players.options.contains_key("model")
        || players
            .expert
            .as_ref()
            .is_some_and(|(_, o)| o.contains_key("model"));
    let mut base = escapade_llm::ClientOptions::default();
    let mut record = rundir::Spending::default();
    if !models {
        if args.max_cost.is_some() {
            bail!(
                "--max-cost caps what model requests cost; `--agent {}` sends none",
                players.agent
            );
        }
        return Ok((base, record));
    }
    record.cache = Some(args.cache.to_string());
    if args.cache != escapade_llm::CacheMode::Off {
        // a cache that cannot open (a read-only home) costs money, not the run
        match escapade_llm::ResponseCache::open_default() {
            Ok(store) => {
                base.cache = Some(escapade_llm::CacheUse {
                    store: std::sync::Arc::new(store),
                    mode: args.cache,
                });
            }
            Err(e) => {
                eprintln!("warning: {e}; running without the response cache");
                record.cache = Some(format!(
                    "off ({} asked: the cache did not open)",
                    args.cache
                ));
            }
        }
    }
    if let Some(limit) = args.max_cost {
        if !(limit.is_finite() && limit > 0.0) {
            bail!("--max-cost {limit}: expected a positive number of US dollars");
        }
        let spent = spent_by(out)?;
        base.cost_cap = Some(escapade_llm::CostCap::new(limit, spent));
        record.max_cost_usd = Some(limit);
    }
    Ok((base, record))
}

/// What the episodes recorded in `dir` cost, every row counted (a replayed episode's
/// earlier attempt was paid for too) and every checkpoint's steps; 0 for a directory that
/// is no run directory yet.
pub(crate) fn spent_by(dir: &Path) -> Result<f64> {
    let path = dir.join(rundir::EPISODES);
    if !rundir::is_run_dir(dir) || !path.is_file() {
        return Ok(0.0);
    }
    let rows = rundir::read_episodes(&path)?.rows;
    // an episode checkpointed by Ctrl-C or the cap spent its steps' cost too
    let checkpointed: f64 = rundir::checkpoints(dir)
        .iter()
        .map(|c| c.usage.cost_usd)
        .sum();
    Ok(rows.iter().map(|r| r.usage.cost_usd).sum::<f64>() + checkpointed)
}

/// Warns about a cost cap that cannot bound a model without a price.
fn warn_unpriced(players: &Players) {
    let mut all = vec![&players.options];
    if let Some((_, o)) = &players.expert {
        all.push(o);
    }
    for options in all {
        let Some(model) = options.get("model") else {
            continue;
        };
        let prices = escapade_agents::config::client_options(
            options,
            escapade_llm::ClientOptions::default(),
        )
        .map(|o| o.prices);
        if prices.is_ok_and(|p| p.lookup(model).is_none()) {
            eprintln!(
                "warning: {model} has no price, so --max-cost cannot bound it (give one with \
                 -A prices=FILE)"
            );
        }
    }
}

/// Plays the episodes of a new or resumed run into `out` and prints its report. The
/// first Ctrl-C (or SIGTERM, SIGHUP) starts no new episode, stops those in flight at their
/// last completed step and checkpoints them there (`resume` continues them), and writes
/// the summary; a second one quits at once.
/// A cost cap that is reached starts no new episode (see
/// [`escapade_run::Stop::on_cost_cap`]).
fn play_run(
    ctx: &mut Ctx<'_>,
    source: &escapade_run::Source<'_>,
    spec: &RunSpec,
    players: &Players,
    out: &Path,
    wide: bool,
    spending_args: &SpendingArgs,
) -> Result<()> {
    let progress = ctx.progress();
    let (base, record) = spending(spending_args, players, out)?;
    if base.cost_cap.is_some() {
        warn_unpriced(players);
    }
    let spec = &RunSpec {
        spending: record,
        ..spec.clone()
    };
    let summary = runtime()?.block_on(async {
        let mut stop = stop_on_signal();
        if let Some(cap) = &base.cost_cap {
            stop = stop.on_cost_cap(cap.clone());
        }
        let roles = players::roles_of(source.world, &source.scenarios)?;
        let opener = players::Opener {
            base,
            stand_in: None,
        };
        let factory = players::agents_with(source.world, &roles, players, &opener).await?;
        let summary = escapade_run::run_async_until(
            source.world,
            &source.scenarios,
            spec,
            factory.as_ref(),
            out,
            progress,
            &stop,
        )
        .await?;
        anyhow::Ok(summary)
    })?;
    finish(ctx, &summary, wide)
}

/// A [`Stop`](escapade_run::Stop) requested by the first Ctrl-C, SIGTERM or SIGHUP
/// (what containers and systemd send); the second exits with status 130 at once. Call
/// inside the runtime: the handlers are installed before it returns.
fn stop_on_signal() -> escapade_run::Stop {
    let stop = escapade_run::Stop::new();
    let handle = stop.clone();
    let mut signals = escapade_run::signals::Signals::listen();
    tokio::spawn(async move {
        let signal = signals.recv().await;
        handle.request();
        eprintln!(
            "\nstopping: no new episodes start ({signal}); those in flight stop at their last \
             completed step and are checkpointed there (Ctrl-C again to quit at once)"
        );
        signals.recv().await;
        eprintln!(
            "quit: episodes in flight were not checkpointed; `escapade resume` plays them \
             again from their last checkpoint or their start"
        );
        std::process::exit(Interrupted::EXIT_CODE.into());
    });
    stop
}

/// A run stopped by Ctrl-C after writing its summary (exit status 130, as a shell
/// reports an interrupted command).
#[derive(Debug)]
pub struct Interrupted {
    /// Episodes left for `resume` (the checkpointed ones included).
    pub unplayed: usize,
    /// Episodes checkpointed at their last completed step.
    pub checkpointed: usize,
    /// The run directory.
    pub dir: PathBuf,
}

impl Interrupted {
    /// The exit status of an interrupted run.
    pub const EXIT_CODE: u8 = 130;
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let fresh = self.unplayed - self.checkpointed.min(self.unplayed);
        let dir = self.dir.display();
        match self.checkpointed {
            0 => write!(
                f,
                "interrupted: {fresh} episode(s) not played; `escapade resume {dir}` plays them"
            ),
            n => {
                write!(
                    f,
                    "interrupted: {n} episode(s) checkpointed at their last completed step"
                )?;
                if fresh > 0 {
                    write!(f, ", {fresh} not started")?;
                }
                write!(f, "; `escapade resume {dir}` continues them")
            }
        }
    }
}

impl std::error::Error for Interrupted {}

fn finish(ctx: &mut Ctx<'_>, summary: &RunSummary, wide: bool) -> Result<()> {
    if summary.resumed && !ctx.quiet {
        let mut line = format!(
            "resumed: {} of {} episodes were already finished",
            summary.skipped, summary.total
        );
        if summary.continued > 0 {
            line.push_str(&match summary.continued {
                1 => "; 1 continued from its checkpoint".to_string(),
                n => format!("; {n} continued from their checkpoints"),
            });
        }
        eprintln!("{line}");
    }
    if summary.errors > 0 {
        eprintln!(
            "{} of {} episodes ended with an error (see `error` in episodes.jsonl)",
            summary.errors, summary.played
        );
    }
    if summary.step_capped > 0 && !ctx.quiet {
        eprintln!(
            "{} of {} episodes ended at the step cap (--max-steps; `step_cap` in episodes.jsonl)",
            summary.step_capped, summary.played
        );
    }
    // the report first and the run directory last, where it does not scroll away
    let format = if wide {
        Format::Markdown
    } else {
        Format::Terminal
    };
    write!(ctx.out, "{}", summary.report.render(format))?;
    writeln!(ctx.out, "\n{RUN_DIRECTORY}{}", summary.dir.display())?;
    if let Some((limit, spent)) = summary.cost_cap {
        bail!(
            "stopped: the cost cap of ${limit:.4} was reached (${spent:.4} spent); {} \
             episode(s) not finished, {} of them checkpointed at their last completed step \
             — `escapade resume {} --max-cost USD` with a higher cap continues them",
            summary.unplayed,
            summary.checkpointed,
            summary.dir.display()
        );
    }
    if let Some(why) = &summary.halted {
        bail!(
            "stopped: {why}; {} episode(s) not played — check the model's address and \
             key, then `escapade resume {}` plays them and replays the failed ones",
            summary.unplayed,
            summary.dir.display()
        );
    }
    if summary.unplayed > 0 {
        return Err(Interrupted {
            unplayed: summary.unplayed,
            checkpointed: summary.checkpointed,
            dir: summary.dir.clone(),
        }
        .into());
    }
    Ok(())
}

/// What the last line of `run` and `resume` starts with, before the run directory.
pub const RUN_DIRECTORY: &str = "run directory: ";

/// `escapade cache stats|clear`.
pub fn cache(ctx: &mut Ctx<'_>, args: &CacheArgs) -> Result<()> {
    let cache = escapade_llm::ResponseCache::open_default()?;
    match &args.action {
        CacheAction::Stats { json: true } => {
            writeln!(
                ctx.out,
                "{}",
                serde_json::to_string_pretty(&cache.stats()?)?
            )?;
        }
        CacheAction::Stats { json: false } => {
            let s = cache.stats()?;
            let mb = |b: u64| b as f64 / f64::from(1 << 20);
            writeln!(ctx.out, "response cache: {}", s.path.display())?;
            writeln!(
                ctx.out,
                "{} replies, {:.1} MB of {:.0} MB (the replies used longest ago go first), {} hits",
                s.entries,
                mb(s.bytes),
                mb(s.max_bytes),
                s.hits
            )?;
            if let (Some(oldest), Some(newest)) = (&s.oldest, &s.newest) {
                writeln!(ctx.out, "kept from {oldest} to {newest}")?;
            }
            for (model, n) in &s.backends {
                writeln!(ctx.out, "{n:>8}  {model}")?;
            }
        }
        CacheAction::Clear { model } => {
            let n = cache.clear(model.as_deref())?;
            writeln!(
                ctx.out,
                "removed {n} repl{} from {}",
                if n == 1 { "y" } else { "ies" },
                cache.path().display()
            )?;
        }
    }
    Ok(())
}

/// `escapade export RUNS… --format sft|dpo|hf`.
pub fn export(ctx: &mut Ctx<'_>, args: &ExportArgs) -> Result<()> {
    use escapade_run::export::{self, Filter, Format, OutcomeFilter, Pictures};
    // preference pairs need the episodes that went wrong as much as those that did not
    let outcome = args.outcome.as_deref().unwrap_or(match args.format {
        ExportFormat::Dpo => "any",
        ExportFormat::Sft | ExportFormat::Hf => "success",
    });
    let filter = Filter {
        world: args.world.clone(),
        tier: args.tier,
        outcome: OutcomeFilter::parse(outcome)?,
    };
    if let Some(world) = &filter.world {
        escapade_run::source::find_world(ctx.worlds, world)?;
    }
    let pictures = match args.data_urls {
        true => Pictures::DataUrls,
        false => Pictures::Files,
    };
    let (provenance, out) = match args.format {
        ExportFormat::Sft | ExportFormat::Dpo => {
            let (format, default) = match args.format {
                ExportFormat::Sft => (Format::Sft, "export-sft.jsonl"),
                _ => (Format::Dpo, "export-dpo.jsonl"),
            };
            let out = args.out.clone().unwrap_or_else(|| PathBuf::from(default));
            let done =
                export::export_jsonl(ctx.worlds, &args.runs, &filter, format, pictures, &out)?;
            (done, out)
        }
        ExportFormat::Hf => {
            if args.data_urls {
                bail!("--data-urls is for sft and dpo: hf keeps pictures in the Parquet files");
            }
            let out = args
                .out
                .clone()
                .unwrap_or_else(|| PathBuf::from("export-hf"));
            let done = crate::hf::export(ctx.worlds, &args.runs, &filter, &out)?;
            (done, out)
        }
    };
    for skipped in &provenance.skipped {
        eprintln!("warning: skipped {skipped}");
    }
    for unpaired in &provenance.unpaired {
        eprintln!("note: no pair from {unpaired}");
    }
    if provenance.episodes == 0 {
        bail!(
            "no episode of {} passed the filters (outcome {outcome}{}{})",
            args.runs
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            args.world
                .as_ref()
                .map(|w| format!(", world {w}"))
                .unwrap_or_default(),
            args.tier.map(|t| format!(", tier {t}")).unwrap_or_default(),
        );
    }
    let what = match args.format {
        ExportFormat::Sft => "conversations",
        ExportFormat::Dpo => "preference pairs",
        ExportFormat::Hf => "rows",
    };
    let manifest = match args.format {
        ExportFormat::Hf => out.join("manifest.json"),
        _ => export::manifest_path(&out),
    };
    writeln!(
        ctx.out,
        "{} {what} of {} episodes written to {} (manifest: {})",
        provenance.records,
        provenance.episodes,
        out.display(),
        manifest.display()
    )?;
    Ok(())
}

/// `escapade report <run-dir>... [--format md|csv|json] [--json]`.
pub fn report(ctx: &mut Ctx<'_>, args: &ReportArgs) -> Result<()> {
    let set = escapade_run::report::read_runs(&args.dirs)?;
    let worlds: Vec<&dyn World> = ctx.worlds.iter().map(|w| w.as_ref()).collect();
    let mut report = escapade_run::Report::from_runs(&set, &worlds);
    if args.per_scenario {
        report = report.per_scenario(&set);
    }
    report = if args.per_turn {
        report.per_turn(&set, &worlds)
    } else {
        report.with_usual_extras(&set, &worlds)
    };
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    let format = match (args.json, args.format) {
        (true, _) | (_, ReportFormat::Json) => Format::Json,
        (_, ReportFormat::Csv) => Format::Csv,
        (_, ReportFormat::Md) if args.wide => Format::Markdown,
        (_, ReportFormat::Md) => Format::Terminal,
    };
    let text = report.render(format);
    write!(ctx.out, "{text}")?;
    if !text.ends_with('\n') {
        writeln!(ctx.out)?;
    }
    if let Some(dir) = &args.plots {
        let dir = match dir {
            Some(dir) => dir.clone(),
            None => {
                let first = &args.dirs[0];
                match first.is_file() {
                    // an episodes.jsonl given directly: plots beside it
                    true => first.parent().unwrap_or(first).join("plots"),
                    false => first.join("plots"),
                }
            }
        };
        let formats = [PlotFormat::Svg, PlotFormat::Png];
        let written = escapade_run::plots::write_plots(&args.dirs, &dir, &formats, &worlds)?;
        for path in written {
            eprintln!("wrote {}", path.display());
        }
    }
    Ok(())
}

/// One run read from `path` (a run directory, its shards' directories being given
/// separately to `report`, or an `episodes.jsonl`).
fn one_run(path: &Path) -> Result<escapade_run::report::Run> {
    let set = escapade_run::report::read_runs(&[path.to_path_buf()])?;
    for w in &set.warnings {
        eprintln!("warning: {w}");
    }
    let mut runs = set.runs;
    match runs.len() {
        1 => Ok(runs.remove(0)),
        0 => bail!("{}: no finished episodes to compare", path.display()),
        n => bail!(
            "{}: holds {n} runs (rows of several configs); compare one run with one run",
            path.display()
        ),
    }
}

/// `escapade compare A B [--json]`.
pub fn compare(ctx: &mut Ctx<'_>, args: &CompareArgs) -> Result<()> {
    let a = one_run(&args.a)?;
    let b = one_run(&args.b)?;
    let worlds: Vec<&dyn World> = ctx.worlds.iter().map(|w| w.as_ref()).collect();
    let mut comparison = escapade_run::paired::compare(&a, &b, &worlds);
    if a.label == b.label {
        // the same agent twice: name them by their directories
        comparison.a = args.a.display().to_string();
        comparison.b = args.b.display().to_string();
    }
    if args.json {
        writeln!(ctx.out, "{}", serde_json::to_string_pretty(&comparison)?)?;
    } else {
        let md = escapade_run::paired::markdown(&comparison);
        write!(ctx.out, "{}", md.trim_start())?;
    }
    if comparison.metrics.is_empty() {
        bail!("the two runs share no scenario: nothing to compare");
    }
    Ok(())
}

/// `escapade paper <world|suite> [--json]`.
pub fn paper(ctx: &mut Ctx<'_>, args: &PaperArgs) -> Result<()> {
    let world = match find_world(ctx.worlds, &args.name) {
        Ok(w) => w,
        // a retired suite still names its world, whose paper has not changed
        Err(_) => match ctx
            .worlds
            .iter()
            .find(|w| w.retired_suites().iter().any(|r| r.name == args.name))
        {
            Some(w) => w.as_ref(),
            None => find_suite(ctx.worlds, &args.name)
                .map(|(w, _)| w)
                .with_context(|| format!("`{}` is neither a world nor a suite", args.name))?,
        },
    };
    let Some(paper) = world.paper() else {
        bail!("world `{}` declares no paper tables", world.name());
    };
    if args.json {
        let values = paper.values()?;
        let v = json!({"world": world.name(), "paper": paper, "values": values});
        writeln!(ctx.out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        write!(ctx.out, "{}", escapade_run::beside::paper_markdown(&paper))?;
    }
    Ok(())
}

/// `escapade judge <run-dir>... --model M [--task T] [-c N] [-l N] [--json] [-A K=V]`.
pub fn judge(ctx: &mut Ctx<'_>, args: &JudgeArgs) -> Result<()> {
    let mut options = BTreeMap::new();
    for pair in &args.options {
        let (k, v) = pair
            .split_once('=')
            .with_context(|| format!("bad judge option `{pair}`: expected KEY=VALUE"))?;
        options.insert(k.trim().to_string(), v.to_string());
    }
    if let Some(url) = &args.base_url {
        options.insert("base_url".into(), url.clone());
    }
    let mut spec = escapade_run::JudgeSpec {
        task: args.task.clone(),
        model: args.model.clone(),
        concurrency: args.concurrency,
        limit: args.limit,
        ..Default::default()
    };
    let client_options = spec.apply_options(&options)?;
    // the worlds rebuild the scenarios of tasks that compare with their ground truth
    let judgement = escapade_run::judge::judge(
        &args.dirs,
        &spec,
        &client_options,
        ctx.progress(),
        ctx.worlds,
    )?;
    for w in &judgement.warnings {
        eprintln!("warning: {w}");
    }
    let nothing = judgement.nothing_to_judge.as_str();
    for run in judgement.runs.iter().filter(|r| r.items == 0) {
        eprintln!("{}: nothing to judge: {nothing}", run.label);
    }
    if judgement.errors() > 0 {
        eprintln!(
            "{} item(s) have no verdict (see `error` in judge/{}.jsonl; backend failures are \
             retried by the next `escapade judge`)",
            judgement.errors(),
            judgement.task
        );
    }
    if args.json {
        writeln!(ctx.out, "{}", serde_json::to_string_pretty(&judgement)?)?;
    } else {
        write!(ctx.out, "{}", judgement.markdown())?;
    }
    Ok(())
}

/// The scenario `id` (default: the first) of a resolved source, with its label.
fn pick<'a>(
    source: &'a escapade_run::source::Source<'_>,
    name: &str,
    id: Option<&str>,
) -> Result<&'a (String, String)> {
    let index = match id {
        None => 0,
        Some(id) => {
            let ids = source.ids();
            ids.iter()
                .position(|i| i == id)
                .ok_or_else(|| escapade_run::RunError::unknown("scenario", id, &ids))?
        }
    };
    source
        .scenarios
        .get(index)
        .with_context(|| format!("`{name}` holds no scenarios"))
}

/// `escapade show <source> [--scenario ID] [--out DIR]`.
pub fn show(ctx: &mut Ctx<'_>, args: &ShowArgs) -> Result<()> {
    let source = escapade_run::resolve(ctx.worlds, &args.source)?;
    let (_, json) = pick(&source, &args.source, args.scenario.as_deref())?;
    let options = players::world_options(&args.world_options)?;
    for path in escapade_run::show(source.world, json, args.seed, &options, &args.out)? {
        writeln!(ctx.out, "wrote {}", path.display())?;
    }
    Ok(())
}

/// `escapade play <source> [--scenario ID] [--record DIR]`.
pub fn play(ctx: &mut Ctx<'_>, args: &PlayArgs, input: &mut dyn BufRead) -> Result<()> {
    if args.web {
        return play_web(ctx, args);
    }
    if token_flag_given(&args.access) {
        bail!("--token and --no-token go with --web (the terminal game serves nothing)");
    }
    let source = escapade_run::resolve(ctx.worlds, &args.source)?;
    let (label, json) = pick(&source, &args.source, args.scenario.as_deref())?;
    let options = PlayOptions {
        seed: args.seed,
        record: args.record.clone(),
        suite: label.clone(),
        source: source.origin.clone(),
        images: args.images.clone(),
        role: args.role.clone(),
        world_options: players::world_options(&args.world_options)?,
        participants: args
            .participant
            .iter()
            .map(|p| {
                (
                    args.role.clone().unwrap_or_else(|| "agent".into()),
                    p.clone(),
                )
            })
            .collect(),
        ..PlayOptions::default()
    };
    let partner = players::expert_options(
        args.expert.as_deref(),
        args.expert_model.as_deref(),
        &args.expert_options,
        None,
    )?;
    let result = match (&args.role, partner) {
        (None, Some(_)) => {
            bail!("--expert (the other role's agent) needs --role: the role you play")
        }
        (None, None) => escapade_run::play_terminal(source.world, json, &options, input, ctx.out)?,
        (Some(_), partner) => {
            // the other role defaults to the world's oracle
            let (spec, spec_options) =
                partner.unwrap_or_else(|| ("oracle".into(), BTreeMap::new()));
            let rt = runtime()?;
            let one = [(label.clone(), json.clone())];
            let roles = players::roles_of(source.world, &one)?;
            if roles.is_empty() {
                bail!(
                    "world `{}` has one role; --role applies only to worlds whose roles take \
                     turns (comma)",
                    source.world.name()
                );
            }
            let factory = rt.block_on(players::single_agent(
                source.world,
                &spec,
                &spec_options,
                None,
            ))?;
            let partner = escapade_run::Partner {
                agents: factory.as_ref(),
                runtime: rt.handle(),
            };
            escapade_run::play_terminal_with(
                source.world,
                json,
                &options,
                Some(partner),
                input,
                ctx.out,
            )?
        }
    };
    if let Some(dir) = result.dir {
        writeln!(ctx.out, "recorded in {}", dir.display())?;
    }
    Ok(())
}

/// Standard input for `escapade play` in the terminal, which a stop signal (Ctrl-C,
/// SIGTERM, SIGHUP) interrupts: the read waiting for the player's move fails with the
/// signal's name, so the game ends and is recorded like any other that stopped early. A
/// second signal quits at once (status 130). Standard input is read on a thread of its
/// own, so a blocked read never holds the game.
pub struct StoppableInput {
    lines: std::sync::mpsc::Receiver<Vec<u8>>,
    chunk: Vec<u8>,
    at: usize,
    stopped: std::sync::Arc<std::sync::OnceLock<escapade_run::signals::Signal>>,
}

impl StoppableInput {
    /// Standard input, with the signals' handlers installed before it returns.
    pub fn stdin() -> StoppableInput {
        use std::io::Read;
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut stdin = std::io::stdin();
            let mut buf = vec![0u8; 8192];
            loop {
                // an empty chunk is the end of input (or a read that failed)
                let n = stdin.read(&mut buf).unwrap_or(0);
                if tx.send(buf[..n].to_vec()).is_err() || n == 0 {
                    return;
                }
            }
        });
        let stopped = std::sync::Arc::new(std::sync::OnceLock::new());
        let (ready, listening) = std::sync::mpsc::channel();
        let flag = stopped.clone();
        std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                let _ = ready.send(());
                return;
            };
            rt.block_on(async move {
                let mut signals = escapade_run::signals::Signals::listen();
                let _ = ready.send(());
                let _ = flag.set(signals.recv().await);
                signals.recv().await;
                eprintln!("\nquit: the game in progress was not recorded");
                std::process::exit(Interrupted::EXIT_CODE.into());
            });
        });
        let _ = listening.recv();
        StoppableInput {
            lines,
            chunk: Vec::new(),
            at: 0,
            stopped,
        }
    }
}

impl std::io::Read for StoppableInput {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for StoppableInput {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        while self.at >= self.chunk.len() {
            if let Some(signal) = self.stopped.get() {
                return Err(std::io::Error::other(format!(
                    "the game was stopped by {signal}"
                )));
            }
            match self
                .lines
                .recv_timeout(std::time::Duration::from_millis(50))
            {
                Ok(chunk) if chunk.is_empty() => return Ok(&[]),
                Ok(chunk) => {
                    self.chunk = chunk;
                    self.at = 0;
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return Ok(&[]),
            }
        }
        Ok(&self.chunk[self.at..])
    }

    fn consume(&mut self, n: usize) {
        self.at = (self.at + n).min(self.chunk.len());
    }
}

/// `escapade play --web <source> [--scenario ID] [--role R] [--partner SPEC]`: serves
/// the scenarios to people in the browser until Ctrl-C, each game recorded under
/// `--record` (default `play-runs`, apart from the runs of `escapade run`).
fn play_web(ctx: &mut Ctx<'_>, args: &PlayArgs) -> Result<()> {
    let source = escapade_run::resolve(ctx.worlds, &args.source)?;
    let fixed = match &args.scenario {
        None => None,
        Some(id) => {
            let ids = source.ids();
            Some(
                ids.iter()
                    .position(|i| i == id)
                    .ok_or_else(|| escapade_run::RunError::unknown("scenario", id, &ids))?,
            )
        }
    };
    // `--partner provider/model` is a model agent
    let (expert, model) = match (args.expert.as_deref(), args.expert_model.as_deref()) {
        (Some(spec), None) if spec.contains('/') => (None, Some(spec)),
        pair => pair,
    };
    let partner = players::expert_options(expert, model, &args.expert_options, None)?;
    let rt = runtime()?;
    let factory = match &partner {
        Some((spec, spec_options)) => Some(std::sync::Arc::<dyn AgentFactory>::from(rt.block_on(
            players::single_agent(source.world, spec, spec_options, None),
        )?)),
        None if args.role.is_some() => Some(std::sync::Arc::<dyn AgentFactory>::from(Box::new(
            Baseline::new(source.world, "oracle")?,
        )
            as Box<dyn AgentFactory>)),
        None => None,
    };
    let setup = escapade_web::play::PlaySetup {
        world: source.world.name().to_string(),
        label: source.label.clone(),
        origin: source.origin.clone(),
        scenarios: source.scenarios.iter().map(|(_, j)| j.clone()).collect(),
        fixed,
        role: args.role.clone(),
        partner: factory,
        partner_runtime: Some(rt.handle().clone()),
        record: args
            .record
            .clone()
            .unwrap_or_else(|| PathBuf::from(escapade_web::play::DEFAULT_RECORD)),
        world_options: players::world_options(&args.world_options)?,
        seed: args.seed,
    };
    // the server's registry of its own, as `view`'s
    let worlds = std::sync::Arc::new(crate::worlds::worlds()?);
    let how = escapade_web::play::PlayServe {
        host: args.host.clone(),
        port: args.port,
        token: args.access.choice(),
        log: !ctx.quiet,
    };
    escapade_web::play::serve(setup, &how, worlds, &rt, ctx.out)?;
    Ok(())
}

/// `escapade check <file>`: loads a hand-written scenario with its world, prints what an
/// author should fix, and writes it as JSON with `--out`. Fails when there are problems.
pub fn check(ctx: &mut Ctx<'_>, args: &CheckArgs) -> Result<()> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let named = match &args.world {
        Some(w) => Some(w.clone()),
        None => {
            world_named(&text).with_context(|| format!("cannot read {}", args.file.display()))?
        }
    };
    let Some(name) = named else {
        bail!(
            "{} names no world: add `world = \"vis\"` (TOML) or \"world\": \"vis\" (JSON), or pass --world",
            args.file.display()
        );
    };
    let world = ctx
        .worlds
        .iter()
        .find(|w| w.name() == name)
        .ok_or_else(|| {
            let known: Vec<&str> = ctx.worlds.iter().map(|w| w.name()).collect();
            escapade_run::RunError::unknown("world", &name, known)
        })?;
    let mut validation = world.check(&text)?;
    // what `run` will read must carry a usable header (an id fit for a file name, …)
    if let Err(e) = escapade_core::ScenarioHeader::parse(&validation.scenario) {
        validation.problems.push(e.to_string());
    }
    for note in &validation.notes {
        writeln!(ctx.out, "{note}")?;
    }
    for problem in &validation.problems {
        writeln!(ctx.out, "problem: {problem}")?;
    }
    if let Some(out) = &args.out {
        std::fs::write(out, &validation.scenario)
            .with_context(|| format!("cannot write {}", out.display()))?;
        writeln!(ctx.out, "written to {}", out.display())?;
    }
    if !validation.problems.is_empty() {
        bail!(
            "{} has {} problem(s)",
            args.file.display(),
            validation.problems.len()
        );
    }
    writeln!(ctx.out, "ok")?;
    Ok(())
}

/// The world a JSON or TOML scenario names (`None`: it names none); a file that is
/// neither gives the parse error of the format it looks like.
fn world_named(text: &str) -> Result<Option<String>> {
    let world = |v: Option<&str>| v.map(String::from);
    let json_error = match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) => return Ok(world(v.get("world").and_then(|w| w.as_str()))),
        Err(e) => e,
    };
    match toml::from_str::<toml::Value>(text) {
        Ok(v) => Ok(world(v.get("world").and_then(|w| w.as_str()))),
        Err(_) if text.trim_start().starts_with(['{', '[']) => {
            Err(anyhow::anyhow!("not valid JSON: {json_error}"))
        }
        Err(e) => Err(anyhow::anyhow!("neither JSON nor TOML: {}", e.message())),
    }
}

/// `escapade schema`.
pub fn schema(ctx: &mut Ctx<'_>) -> Result<()> {
    let schemas = escapade_core::trajectory::schemas();
    writeln!(ctx.out, "{}", serde_json::to_string_pretty(&schemas)?)?;
    Ok(())
}

/// `escapade setup [--cache DIR] [--check]`: installs the local model server and weights.
pub fn setup(ctx: &mut Ctx<'_>, args: &SetupArgs) -> Result<()> {
    let mut options = escapade_llm::LocalOptions::default();
    if let Some(dir) = &args.cache {
        options.cache_dir = Some(dir.clone());
    }
    let install = if args.check {
        escapade_llm::local::check_install(&options)?
    } else {
        let quiet = ctx.quiet;
        escapade_llm::local::install(&options, &mut |line: &str| {
            if !quiet {
                eprintln!("{line}");
            }
        })?
    };
    writeln!(ctx.out, "local model ready: {DEFAULT_MODEL}")?;
    writeln!(ctx.out, "  weights  {}", install.model.display())?;
    writeln!(
        ctx.out,
        "  server   {} (python {})",
        install.site.display(),
        install.python.display()
    )?;
    if let Some(dir) = &args.cache {
        writeln!(
            ctx.out,
            "runs find it with: export ESCAPADE_CACHE={}",
            dir.display()
        )?;
    }
    Ok(())
}

/// `escapade bench [harness|<world>] [--json]`: harness overhead per step, throughput
/// and episodes in flight; or a world's own bench (env step, pictures, suite build).
pub fn bench(ctx: &mut Ctx<'_>, args: &BenchArgs) -> Result<()> {
    if args.what != "harness" {
        if !ctx.quiet && ctx.worlds.iter().any(|w| w.name() == args.what) {
            eprintln!("measuring the {} world…", args.what);
        }
        let worlds: Vec<&dyn World> = ctx.worlds.iter().map(|w| w.as_ref()).collect();
        let report = escapade_run::bench::world_bench(&worlds, &args.what)?;
        return show_bench(ctx, args.json, &report, report.pass);
    }
    let options = escapade_run::bench::BenchOptions {
        episodes: args.episodes,
        flight_episodes: args.in_flight,
        ..Default::default()
    };
    if !ctx.quiet {
        eprintln!("measuring (about a minute on two cores)…");
    }
    let report = escapade_run::bench::harness_benchmarks(&options)?;
    show_bench(ctx, args.json, &report, report.passed())
}

/// Prints a benchmark report (JSON with `--json`, else its table) and fails when a
/// figure missed its target.
fn show_bench<R: serde::Serialize + std::fmt::Display>(
    ctx: &mut Ctx<'_>,
    json: bool,
    report: &R,
    pass: bool,
) -> Result<()> {
    if json {
        writeln!(ctx.out, "{}", serde_json::to_string_pretty(report)?)?;
    } else {
        write!(ctx.out, "{report}")?;
    }
    if !pass {
        bail!("a benchmark missed its target");
    }
    Ok(())
}

/// `escapade serve`: the OpenEnv-compatible environment server, until Ctrl-C, SIGTERM or
/// SIGHUP (steps in progress finish; open episodes are recorded as ended by the stop).
pub fn serve(ctx: &mut Ctx<'_>, args: &crate::cli::ServeArgs) -> Result<()> {
    let options = escapade_serve::ServeOptions {
        host: args.host,
        port: args.port,
        record: args.record.clone(),
        max_sessions: args.max_sessions,
        idle_timeout: std::time::Duration::from_secs(args.idle_timeout),
        max_message: args.max_message,
        rate: args.rate,
        burst: (2.0 * args.rate).max(1.0),
        token: args.access.choice(),
        max_pixels: args.max_pixels,
        log: !ctx.quiet,
        ..Default::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let out = &mut *ctx.out;
    runtime.block_on(async {
        let signals = escapade_run::signals::Signals::listen();
        let server = escapade_serve::Server::bind(crate::worlds::worlds()?, &options).await?;
        let base = server.base_url();
        writeln!(out, "escapade serve: OpenEnv-compatible environment server (openenv-core 0.3.0)")?;
        writeln!(out, "  base_url: {base}   (WebSocket sessions at /ws)")?;
        match server.token() {
            Some(_) => writeln!(out, "  the token is the base_url's password; or send `Authorization: Bearer <token>` (it is not shown again)")?,
            None => writeln!(out, "  no token (--no-token): anyone who can connect can play")?,
        }
        if let Some(dir) = &options.record {
            writeln!(out, "  recording every episode under {}", dir.display())?;
        }
        writeln!(out, "Ctrl-C (or SIGTERM) stops the server (steps in progress finish; open episodes are recorded as ended by the stop)")?;
        out.flush()?;
        server
            .run(signals.first(|s| eprintln!("escapade serve: {s}: stopping")))
            .await?;
        anyhow::Ok(())
    })
}

/// Whether `--token` or `--no-token` was on the command line (a token in the
/// environment is for whichever server runs, and is no mistake elsewhere).
fn token_flag_given(access: &crate::cli::TokenArgs) -> bool {
    access.no_token || std::env::args().any(|a| a == "--token" || a.starts_with("--token="))
}

/// `escapade view`: serves the run directories under `args.dirs` until Ctrl-C, SIGTERM
/// or SIGHUP.
pub fn view(ctx: &mut Ctx<'_>, args: &ViewArgs) -> Result<()> {
    let options = escapade_web::ViewOptions {
        dirs: args.dirs.clone(),
        host: args.host.clone(),
        port: args.port,
        token: args.access.choice(),
        log: !ctx.quiet,
    };
    // the server outlives this borrow of the registry: it gets a registry of its own
    let worlds = std::sync::Arc::new(crate::worlds::worlds()?);
    escapade_web::server::view(&options, worlds, ctx.out)?;
    Ok(())
}

/// `escapade mcp`: serves MCP over standard input and output (nothing else is written
/// there), or over streamable HTTP with `--http`, until the client leaves or Ctrl-C,
/// SIGTERM or SIGHUP; either way every episode still in play is recorded before the
/// server exits.
pub fn mcp(args: &McpArgs, quiet: bool) -> Result<()> {
    use escapade_serve::mcp::{self, HttpOptions, McpOptions, McpServer};
    if !args.http && token_flag_given(&args.access) {
        bail!("--token and --no-token go with --http (standard input and output need none)");
    }
    let options = McpOptions {
        record: args.record.clone(),
        max_episodes: args.max_episodes,
        max_pixels: args.max_pixels,
        steps_to_go: args.steps_to_go,
        ..McpOptions::default()
    };
    let server = McpServer::new(crate::worlds::worlds()?, options);
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    if !args.http {
        let served = runtime.block_on(async {
            let signals = escapade_run::signals::Signals::listen();
            mcp::serve_stdio(server, signals.first(|_| ())).await
        });
        // a read of standard input may still be blocked: do not wait for it
        runtime.shutdown_background();
        return Ok(served?);
    }
    runtime.block_on(async {
        let http = HttpOptions {
            host: args.host.clone(),
            port: args.port,
            token: args.access.choice(),
            max_sessions: args.max_sessions,
            log: !quiet,
        };
        let signals = escapade_run::signals::Signals::listen();
        let bound = mcp::bind(&http).await?;
        let mut out = std::io::stdout();
        writeln!(out, "MCP over streamable HTTP at {}", bound.url_with_token())?;
        match bound.access.token() {
            Some(token) => writeln!(
                out,
                "the token is in the URL above; clients that send headers may use {} with  Authorization: Bearer {token}",
                bound.url
            )?,
            None => writeln!(out, "no token (--no-token): anyone who can connect can play")?,
        }
        if let Some(dir) = &args.record {
            writeln!(out, "recording every episode under {}", dir.display())?;
        }
        writeln!(out, "Ctrl-C (or SIGTERM) stops it (episodes in play are recorded as ended by the stop)")?;
        out.flush()?;
        let stop = signals.first(|s| eprintln!("escapade mcp: {s}: stopping"));
        mcp::serve_http(server, bound, stop).await?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baselines_use_every_core_and_model_agents_one_episode_at_a_time() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(default_concurrency("oracle", None), cores);
        assert_eq!(default_concurrency("random", Some("random")), cores);
        assert_eq!(default_concurrency("llm", None), 1);
        assert_eq!(default_concurrency("visescaper", None), 1);
        // a model expert beside a baseline solver still talks to a model
        assert_eq!(default_concurrency("random", Some("llm")), 1);
    }
}
