//! A person plays one scenario in the terminal (`escapade play`).
//!
//! The rules (system prompt) are printed once, then each observation; every input line
//! becomes `Action::text(line)`, or `Action::Bytes` when it is not UTF-8. `:help` prints
//! the rules again, `:quit` gives up, an empty line is ignored, and end of input ends the
//! episode cleanly. With a record directory the episode is written as a run directory
//! whose agent is `human`. Worlds that show pictures (vis, craft, comma) get them written
//! to an images directory the person can open: each picture once under its SHA-256, and
//! `current.png` rewritten at every step with the view in front of them.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use escapade_core::{
    Action, Agent, AgentTurn, CoreError, Env, FORMAT_VERSION, Observation, ScenarioHeader, Step,
    ToolSchema, World, hash,
};

use crate::error::Result;
use crate::rundir::{RunConfig, RunDir, ScenarioRef};
use crate::runner::{DEFAULT_MAX_STEPS, Played, Recorder};

/// The agent name of a person playing.
pub const HUMAN: &str = "human";

/// Settings of [`play_terminal`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayOptions {
    /// Seed given to `reset`.
    pub seed: u64,
    /// Safety cap on steps.
    pub max_steps: u32,
    /// Write a run directory under this directory.
    pub record: Option<PathBuf>,
    /// The suite label recorded (`file:<name>` or the suite name).
    pub suite: String,
    /// The source recorded (suite name or absolute path).
    pub source: String,
    /// Where pictures are written (`<sha256>.png` and `current.png`); created on the
    /// first picture.
    pub images: PathBuf,
}

impl Default for PlayOptions {
    fn default() -> Self {
        PlayOptions {
            seed: 0,
            max_steps: DEFAULT_MAX_STEPS,
            record: None,
            suite: "play".into(),
            source: String::new(),
            images: PathBuf::from("escapade-play"),
        }
    }
}

/// How a played episode ended.
#[derive(Debug, Clone)]
pub struct PlayResult {
    /// The episode's result.
    pub played: Played,
    /// The player gave up with `:quit`.
    pub quit: bool,
    /// Input ended before the episode did.
    pub end_of_input: bool,
    /// The run directory written, with `record`.
    pub dir: Option<PathBuf>,
}

/// Plays `scenario_json` of `world` with a person at `input`/`output`.
pub fn play_terminal(
    world: &dyn World,
    scenario_json: &str,
    options: &PlayOptions,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> Result<PlayResult> {
    let header = ScenarioHeader::parse(scenario_json)?;
    let mut env = world.env(scenario_json)?;
    let recording = match &options.record {
        Some(parent) => Some(record_dir(world, &header, scenario_json, options, parent)?),
        None => None,
    };
    let (played, quit, end_of_input) = {
        let mut human = Human {
            input,
            output: &mut *output,
            prompt: String::new(),
            quit: false,
            eof: false,
            images: options.images.clone(),
        };
        let mut recorder = match &recording {
            Some(dir) => Some(Recorder {
                dir,
                trajectory: dir.trajectory(&header.id, 0)?,
            }),
            None => None,
        };
        let start = std::time::Instant::now();
        let played = play_sync(
            env.as_mut(),
            &mut human,
            options.seed,
            options.max_steps,
            recorder.as_mut(),
        )?;
        if let Some(dir) = &recording {
            let row = escapade_core::EpisodeRow {
                format_version: FORMAT_VERSION,
                suite: options.suite.clone(),
                scenario: header.id.clone(),
                scenario_hash: hash::sha256_hex(scenario_json.as_bytes()),
                world: world.name().to_string(),
                difficulty: header.difficulty,
                epoch: 0,
                seed: options.seed,
                agent: HUMAN.to_string(),
                config_hash: dir.config_hash().to_string(),
                success: played.outcome.success && played.error.is_none(),
                steps: played.outcome.steps,
                metrics: played
                    .outcome
                    .metrics
                    .iter()
                    .filter(|(_, v)| v.is_finite())
                    .map(|(k, v)| (k.clone(), *v))
                    .collect(),
                usage: played.usage,
                duration_ms: start.elapsed().as_millis() as u64,
                error: played.error.clone(),
                retryable: false,
            };
            dir.append_episode(&row)?;
            dir.write_summary()?;
        }
        (played, human.quit, human.eof)
    };
    print_ending(output, &played, quit, end_of_input);
    Ok(PlayResult {
        played,
        quit,
        end_of_input,
        dir: recording.map(|d| d.path().to_path_buf()),
    })
}

fn record_dir(
    world: &dyn World,
    header: &ScenarioHeader,
    json: &str,
    options: &PlayOptions,
    parent: &Path,
) -> Result<RunDir> {
    let config = RunConfig {
        suite: options.suite.clone(),
        world: world.name().to_string(),
        source: options.source.clone(),
        agent: HUMAN.to_string(),
        agent_options: Default::default(),
        epochs: 1,
        limit: None,
        seed: options.seed,
        max_steps: options.max_steps,
        scenarios: vec![ScenarioRef {
            id: header.id.clone(),
            hash: hash::sha256_hex(json.as_bytes()),
        }],
        shard: None,
    };
    RunDir::create(parent, &config)
}

fn print_ending(out: &mut dyn Write, played: &Played, quit: bool, eof: bool) {
    let mut text = String::new();
    if let Some(step) = &played.last
        && (step.terminated || step.truncated)
    {
        text.push_str(&format!("\n{}\n", step.observation.text));
    }
    let o = &played.outcome;
    let how = if o.success {
        "escaped".to_string()
    } else if quit {
        "gave up".to_string()
    } else if eof {
        "input ended".to_string()
    } else if played.last.as_ref().is_some_and(|s| s.truncated) {
        "out of steps".to_string()
    } else if let Some(e) = &played.error {
        format!("stopped: {e}")
    } else {
        "not escaped".to_string()
    };
    text.push_str(&format!(
        "\n== episode over: {how} after {} steps\n",
        o.steps
    ));
    for (name, value) in &o.metrics {
        text.push_str(&format!("   {name}: {value}\n"));
    }
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// The episode loop for a person: synchronous, because a terminal blocks on input and a
/// locked standard output cannot cross threads. Re-asks are not needed: a person reads
/// the world's feedback and simply types again. Rows are written as the runner writes them.
fn play_sync(
    env: &mut dyn Env,
    agent: &mut dyn Agent,
    seed: u64,
    max_steps: u32,
    mut recorder: Option<&mut Recorder<'_>>,
) -> Result<Played> {
    let start = std::time::Instant::now();
    let mut observation = env.reset(seed);
    agent.reset(seed, &env.system_prompt(), &env.tool_schemas());
    let mut played = Played::default();
    let mut n = 0u32;
    while n < max_steps {
        let turn = match agent.act(&observation, played.last.as_ref()) {
            Ok(turn) => turn,
            Err(e) => {
                played.error = Some(match e {
                    CoreError::Agent(message) => format!("agent failed: {message}"),
                    other => format!("agent failed: {other}"),
                });
                break;
            }
        };
        let step = match env.step(&turn.action) {
            Ok(step) => step,
            Err(e) => {
                played.error = Some(format!("environment failed: {e}"));
                break;
            }
        };
        n += 1;
        if let Some(rec) = recorder.as_deref_mut() {
            let t_ms = start.elapsed().as_millis() as u64;
            let usage = turn.usage;
            rec.write(n, t_ms, &observation, turn, &step, usage, Vec::new())?;
        }
        observation = step.observation.clone();
        let over = step.terminated || step.truncated;
        played.last = Some(step);
        if over {
            break;
        }
    }
    played.outcome = env.outcome();
    Ok(played)
}

/// A person at a terminal, as an [`Agent`].
struct Human<'a> {
    input: &'a mut dyn BufRead,
    output: &'a mut dyn Write,
    prompt: String,
    quit: bool,
    eof: bool,
    images: PathBuf,
}

impl Human<'_> {
    /// Writes a picture where the person can open it; returns the line that points to it.
    fn show(&self, image: &escapade_core::Image, current: bool) -> String {
        let write = || -> std::io::Result<PathBuf> {
            std::fs::create_dir_all(&self.images)?;
            let path = self.images.join(format!("{}.png", image.sha256));
            if !path.exists() {
                std::fs::write(&path, &image.png)?;
            }
            if current {
                let tmp = self.images.join(".current.png.tmp");
                std::fs::write(&tmp, &image.png)?;
                std::fs::rename(&tmp, self.images.join("current.png"))?;
            }
            Ok(path)
        };
        match write() {
            Ok(path) if current => format!(
                "[picture: {} (also {})]\n",
                self.images.join("current.png").display(),
                path.display()
            ),
            Ok(path) => format!("[picture: {}]\n", path.display()),
            Err(e) => format!("[picture not written: {e}]\n"),
        }
    }

    fn say(&mut self, text: &str) {
        let _ = self.output.write_all(text.as_bytes());
        let _ = self.output.flush();
    }

    fn print_rules(&mut self) {
        let text = format!(
            "{}\n\n(type an action and press Enter; :help shows these rules again, :quit gives \
             up)\n",
            self.prompt.trim_end()
        );
        self.say(&text);
    }
}

impl Agent for Human<'_> {
    fn name(&self) -> String {
        HUMAN.to_string()
    }

    fn reset(&mut self, _seed: u64, system_prompt: &str, _tools: &[ToolSchema]) {
        self.prompt = system_prompt.to_string();
        self.print_rules();
    }

    fn act(
        &mut self,
        observation: &Observation,
        _last: Option<&Step>,
    ) -> std::result::Result<AgentTurn, CoreError> {
        let mut text = format!("\n{}\n", observation.text.trim_end());
        for (i, image) in observation.images.iter().enumerate() {
            text.push_str(&self.show(image, i == 0));
        }
        if let Some(actions) = &observation.actions {
            text.push_str("available actions:\n");
            for a in actions {
                text.push_str(&format!("  {a}\n"));
            }
        }
        self.say(&text);
        loop {
            self.say("> ");
            let mut line = Vec::new();
            let n = self
                .input
                .read_until(b'\n', &mut line)
                .map_err(|e| CoreError::Agent(format!("cannot read input: {e}")))?;
            if n == 0 {
                self.eof = true;
                self.say("\n");
                return Err(CoreError::Agent("end of input".into()));
            }
            while matches!(line.last(), Some(b'\n' | b'\r')) {
                line.pop();
            }
            match line.as_slice() {
                b":quit" => {
                    self.quit = true;
                    return Err(CoreError::Agent("the player gave up".into()));
                }
                b":help" => self.print_rules(),
                l if l.iter().all(u8::is_ascii_whitespace) => {}
                _ => {
                    let action = match String::from_utf8(line) {
                        Ok(s) => Action::text(s),
                        Err(e) => Action::Bytes {
                            bytes: e.into_bytes(),
                        },
                    };
                    return Ok(AgentTurn::action(action));
                }
            }
        }
    }
}
