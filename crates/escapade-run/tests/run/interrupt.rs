//! A run stopped in the middle of an episode (the runner's cancellation, as the first
//! Ctrl-C requests it) checkpoints the episode at its last completed step, and resuming
//! continues it at the next step: the trajectory and the episode row equal those of an
//! uninterrupted run, and no replayed step is asked of the model again. In VisEscape (a
//! picture every step) and COMMA (two roles, two conversations, pictures).

use std::collections::BTreeMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use escapade_agents::{EscaperConfig, EscaperKind, LlmConfig};
use escapade_core::{Action, Checkpoint, EpisodeRow, Options, StepRow, World, hash};
use escapade_llm::{
    Backend, ChatRequest, ChatResponse, Client, ClientOptions, LlmError, Role, TokenUsage,
};
use escapade_run::rundir::{CHECKPOINTS, EPISODES, TRAJECTORIES};
use escapade_run::{
    AgentFactory, Baseline, LlmFactory, Progress, RunSpec, RunSummary, Stop, TeamFactory,
};

use crate::fake::rows;

/// A model whose reply is a function of the request, as a deterministic model's is. It
/// counts the requests; the one numbered `stop_at` requests the run's stop and never
/// answers, like a slow model the user stops waiting for.
struct OracleModel {
    reply: Box<dyn Fn(&ChatRequest) -> String + Send + Sync>,
    requests: AtomicUsize,
    stop_at: Option<(usize, Stop)>,
}

impl OracleModel {
    fn answer(&self, request: &ChatRequest) -> Option<ChatResponse> {
        let n = self.requests.fetch_add(1, Ordering::SeqCst) + 1;
        if let Some((at, stop)) = &self.stop_at
            && n == *at
        {
            stop.request();
            return None;
        }
        Some(ChatResponse {
            text: (self.reply)(request),
            usage: TokenUsage {
                input: request.messages.len() as u64 * 10,
                output: 3,
                ..TokenUsage::default()
            },
            ..ChatResponse::default()
        })
    }
}

/// The oracle's action for the role the system prompt names at the step the
/// conversation is at (its number of replies so far): how the generic agent is played.
fn by_conversation(
    replies: BTreeMap<(String, usize), String>,
) -> impl Fn(&ChatRequest) -> String + Send + Sync {
    move |request| {
        // VisEscape's paper protocol sends no system message: its prompt is ""
        let system = match request.messages.first() {
            Some(m) if m.role == Role::System => m.joined_text(),
            _ => String::new(),
        };
        let step = request
            .messages
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .count();
        replies
            .get(&(system, step))
            .cloned()
            .unwrap_or_else(|| "I give up.".into())
    }
}

impl Backend for OracleModel {
    fn name(&self) -> String {
        "scripted/oracle".into()
    }

    // what `#[async_trait]` expands to (the crate is not a dependency here)
    fn chat<'a, 'b, 'c>(
        &'a self,
        request: &'b ChatRequest,
    ) -> Pin<Box<dyn Future<Output = Result<ChatResponse, LlmError>> + Send + 'c>>
    where
        'a: 'c,
        'b: 'c,
        Self: 'c,
    {
        let answer = self.answer(request);
        Box::pin(async move {
            match answer {
                Some(reply) => Ok(reply),
                None => std::future::pending().await,
            }
        })
    }
}

fn spec(label: &str) -> RunSpec {
    RunSpec {
        agent: "llm".into(),
        agent_options: [("model".to_string(), "scripted/oracle".to_string())]
            .into_iter()
            .collect(),
        source: label.into(),
        seed: 11,
        ..RunSpec::default()
    }
}

/// The oracle's actions (COMMA: its talking pair's) in `json`'s episode, keyed by the system prompt of the role
/// that took each and its number among that role's actions.
fn oracle_replies(world: &dyn World, label: &str, json: &str) -> BTreeMap<(String, usize), String> {
    let out = tempfile::tempdir().unwrap();
    let scenarios = [(label.to_string(), json.to_string())];
    // COMMA's talking pair takes many exchanges where its oracle takes three
    let kind = match world.agent_kinds().contains(&"oracle-talk") {
        true => "oracle-talk",
        false => "oracle",
    };
    let spec = RunSpec {
        agent: kind.into(),
        ..spec(label)
    };
    let oracle = Baseline::new(world, kind).unwrap();
    let run = escapade_run::run(
        world,
        &scenarios,
        &spec,
        &oracle,
        out.path(),
        Progress::quiet(),
    )
    .unwrap();
    let id = escapade_core::ScenarioHeader::parse(json).unwrap().id;
    let steps: Vec<StepRow> = rows(&run.dir.join(TRAJECTORIES).join(&id).join("0.jsonl"));
    let env = world.env(json, &Options::new()).unwrap();
    let prompt = |role: &str| match role {
        "agent" => env.system_prompt(),
        r => env.role_prompt(r),
    };
    let mut taken: BTreeMap<String, usize> = BTreeMap::new();
    let mut replies = BTreeMap::new();
    for s in steps {
        let Action::Text { text } = s.action else {
            panic!("the oracle's actions are text here");
        };
        let n = taken.entry(s.role.clone()).or_default();
        replies.insert((prompt(&s.role), *n), text);
        *n += 1;
    }
    replies
}

/// Model agents over `model`: one, or one per role (sharing the client) when the world
/// has roles.
fn agents(world: &dyn World, json: &str, model: Arc<OracleModel>) -> Box<dyn AgentFactory> {
    let config = LlmConfig::from_options("scripted/oracle", &spec("x").agent_options).unwrap();
    let client = Client::new(model, &ClientOptions::default());
    let roles = world.env(json, &Options::new()).unwrap().roles();
    if roles.is_empty() {
        return Box::new(LlmFactory::new(config, client));
    }
    let members = roles
        .into_iter()
        .map(|r| {
            let member: Box<dyn AgentFactory> =
                Box::new(LlmFactory::new(config.clone(), client.clone()));
            (r, member)
        })
        .collect();
    Box::new(TeamFactory::new(members))
}

fn model(
    replies: &BTreeMap<(String, usize), String>,
    stop_at: Option<(usize, Stop)>,
) -> Arc<OracleModel> {
    Arc::new(OracleModel {
        reply: Box::new(by_conversation(replies.clone())),
        requests: AtomicUsize::new(0),
        stop_at,
    })
}

fn play(
    world: &dyn World,
    scenarios: &[(String, String)],
    agents: &dyn AgentFactory,
    out: &Path,
    stop: &Stop,
) -> RunSummary {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime
        .block_on(escapade_run::run_async_until(
            world,
            scenarios,
            &spec(&scenarios[0].0),
            agents,
            out,
            Progress::quiet(),
            stop,
        ))
        .unwrap()
}

/// The step rows of the run's only episode, timing zeroed.
fn steps(dir: &Path, id: &str) -> Vec<StepRow> {
    let mut steps: Vec<StepRow> = rows(&dir.join(TRAJECTORIES).join(id).join("0.jsonl"));
    for s in &mut steps {
        s.t_ms = 0;
        s.usage.latency_ms = 0;
        for r in &mut s.reasks {
            r.usage.latency_ms = 0;
        }
    }
    steps
}

/// The run's only episode row, timing zeroed.
fn episode(dir: &Path) -> EpisodeRow {
    let mut all: Vec<EpisodeRow> = rows(&dir.join(EPISODES));
    assert_eq!(all.len(), 1, "one row");
    let mut row = all.remove(0);
    row.duration_ms = 0;
    row.usage.latency_ms = 0;
    row
}

fn checkpoint_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(CHECKPOINTS).join(id).join("0.json")
}

/// The model calls behind recorded steps: each reply (re-asked ones too) and each side
/// call (VisEscaper's analysis and memory) a row's request records.
fn calls(steps: &[StepRow]) -> usize {
    steps
        .iter()
        .map(|s| {
            let request = s.request.as_ref().unwrap();
            let side = ["analysis", "memory"]
                .iter()
                .filter(|k| request.get(**k).is_some())
                .count();
            1 + s.reasks.len() + side
        })
        .sum()
}

/// Agents and their model, the model stopping the run at its request numbered as
/// given.
type Make<'a> = &'a dyn Fn(Option<(usize, Stop)>) -> (Box<dyn AgentFactory>, Arc<OracleModel>);

/// Plays `json` uninterrupted, then stopped at its `stop_at`-th model request and
/// resumed, and checks that the two agree: the steps before the stop recorded and
/// checkpointed, only the steps after it asked of the model on resume, the same
/// trajectory and episode row in the end.
fn stop_and_resume(world: &dyn World, label: &str, json: &str, stop_at: usize, make: Make<'_>) {
    let id = escapade_core::ScenarioHeader::parse(json).unwrap().id;
    let scenarios = [(label.to_string(), json.to_string())];
    let tmp = tempfile::tempdir().unwrap();

    let (agents, _) = make(None);
    let whole = play(
        world,
        &scenarios,
        agents.as_ref(),
        &tmp.path().join("whole"),
        &Stop::new(),
    );
    let expected = steps(&whole.dir, &id);

    let stop = Stop::new();
    let (agents, _) = make(Some((stop_at, stop.clone())));
    let stopped = play(
        world,
        &scenarios,
        agents.as_ref(),
        &tmp.path().join("stopped"),
        &stop,
    );
    assert_eq!((stopped.checkpointed, stopped.unplayed), (1, 1));
    let cut = steps(&stopped.dir, &id);
    let k = cut.len();
    assert!(
        k > 0 && k < expected.len(),
        "stopped mid-episode at step {k}"
    );
    assert_eq!(
        cut,
        expected[..k],
        "the steps before the stop, as uninterrupted"
    );
    assert_eq!(
        calls(&cut) + 1,
        stop_at,
        "stopped while the next step waited on the model"
    );
    let checkpoint: Checkpoint =
        serde_json::from_slice(&std::fs::read(checkpoint_path(&stopped.dir, &id)).unwrap())
            .unwrap();
    assert_eq!(checkpoint.steps as usize, k);
    assert!(rows::<EpisodeRow>(&stopped.dir.join(EPISODES)).is_empty());

    let (agents, again) = make(None);
    let resumed = play(
        world,
        &scenarios,
        agents.as_ref(),
        &stopped.dir,
        &Stop::new(),
    );
    assert_eq!((resumed.continued, resumed.unplayed), (1, 0));
    assert_eq!(
        again.requests.load(Ordering::SeqCst),
        calls(&expected[k..]),
        "only the steps after the checkpoint are asked of the model"
    );
    assert_eq!(steps(&stopped.dir, &id), expected, "the same trajectory");
    assert_eq!(
        episode(&stopped.dir),
        episode(&whole.dir),
        "the same episode row"
    );
    assert!(
        !checkpoint_path(&stopped.dir, &id).exists(),
        "the checkpoint is spent"
    );
}

/// [`stop_and_resume`] with the generic agent playing the oracle's actions.
fn generic(world: &dyn World, label: &str, json: &str, stop_at: usize) {
    let replies = oracle_replies(world, label, json);
    let make = |stop_at: Option<(usize, Stop)>| {
        let m = model(&replies, stop_at);
        (agents(world, json, m.clone()), m)
    };
    stop_and_resume(world, label, json, stop_at, &make);
}

/// The uninterrupted run of [`generic`] escapes (its replies are the oracle's): a test of
/// the test's model.
#[test]
fn the_generic_agent_on_the_oracles_replies_escapes() {
    let world = escapade_vis::VisWorld::new();
    let label = "visescape@4";
    let json = world.build_suite(label).unwrap().remove(0);
    let replies = oracle_replies(&world, label, &json);
    let tmp = tempfile::tempdir().unwrap();
    let scenarios = [(label.to_string(), json.clone())];
    let agents = agents(&world, &json, model(&replies, None));
    let run = play(
        &world,
        &scenarios,
        agents.as_ref(),
        tmp.path(),
        &Stop::new(),
    );
    assert!(episode(&run.dir).success);
}

#[test]
fn a_vis_episode_stopped_at_step_7_continues_at_step_7_as_if_never_stopped() {
    let world = escapade_vis::VisWorld::new();
    let json = world.build_suite("visescape@4").unwrap().remove(0);
    generic(&world, "visescape@4", &json, 7);
}

#[test]
fn a_comma_episode_continues_both_roles_conversations() {
    let world = escapade_comma::CommaWorld;
    // a puzzle the talking pair solves in many exchanges
    let json = world.generate(5, 5, &Options::new()).unwrap();
    generic(&world, "comma-slice", &json, 8);
}

#[test]
fn a_checkpoint_that_does_not_replay_as_recorded_is_refused_and_the_episode_starts_over() {
    let world = escapade_comma::CommaWorld;
    let json = world.generate(5, 5, &Options::new()).unwrap();
    let id = escapade_core::ScenarioHeader::parse(&json).unwrap().id;
    let label = "comma-slice";
    let scenarios = [(label.to_string(), json.clone())];
    let replies = oracle_replies(&world, label, &json);
    let tmp = tempfile::tempdir().unwrap();
    let whole = play(
        &world,
        &scenarios,
        agents(&world, &json, model(&replies, None)).as_ref(),
        &tmp.path().join("whole"),
        &Stop::new(),
    );
    let stop = Stop::new();
    let stopped = play(
        &world,
        &scenarios,
        agents(&world, &json, model(&replies, Some((6, stop.clone())))).as_ref(),
        &tmp.path().join("stopped"),
        &stop,
    );
    // the recorded first observation no longer is what the world shows (the checkpoint
    // is rewritten to match, so only the replay can tell)
    let trajectory = stopped.dir.join(TRAJECTORIES).join(&id).join("0.jsonl");
    let mut recorded: Vec<StepRow> = rows(&trajectory);
    recorded[0].observation.text.push_str(" (edited)");
    let mut bytes = Vec::new();
    for r in &recorded {
        bytes.extend(serde_json::to_vec(r).unwrap());
        bytes.push(b'\n');
    }
    std::fs::write(&trajectory, &bytes).unwrap();
    let path = checkpoint_path(&stopped.dir, &id);
    let mut checkpoint: Checkpoint =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    checkpoint.trajectory_bytes = bytes.len() as u64;
    checkpoint.trajectory_sha256 = hash::sha256_hex(&bytes);
    std::fs::write(&path, serde_json::to_vec(&checkpoint).unwrap()).unwrap();

    let again = model(&replies, None);
    let resumed = play(
        &world,
        &scenarios,
        agents(&world, &json, again.clone()).as_ref(),
        &stopped.dir,
        &Stop::new(),
    );
    assert_eq!(resumed.continued, 0, "the checkpoint is refused");
    assert!(
        resumed.warnings.iter().any(|w| w
            .contains("checkpoint at step 5 is not used (step 1: the observation's text differs")),
        "{:?}",
        resumed.warnings
    );
    let expected = steps(&whole.dir, &id);
    assert_eq!(again.requests.load(Ordering::SeqCst), expected.len());
    assert_eq!(steps(&stopped.dir, &id), expected);
    assert_eq!(episode(&stopped.dir), episode(&whole.dir));
}

#[test]
fn a_visescaper_episode_keeps_its_memory_and_analyses_across_the_stop() {
    // VisEscaper (§5) asks for an analysis after every step and a memory every tenth:
    // stopped at step 14, its memory of steps 1-10 comes back from the record, and so do
    // the analysis and memory of step 11, whose first reply the world refused
    let world = escapade_vis::VisWorld::new();
    let label = "visescape@4";
    let json = world.build_suite(label).unwrap().remove(0);
    let replies = oracle_replies(&world, label, &json);
    let by_step: BTreeMap<usize, String> = replies
        .iter()
        .map(|((_, n), a)| (n + 1, a.clone()))
        .collect();
    assert_eq!(replies.len(), by_step.len(), "one role");
    let reply = move |request: &ChatRequest| {
        let prompt = request.messages.last().unwrap().joined_text();
        if prompt.trim_end().ends_with("[ANALYSIS]") {
            return "[ANALYSIS] the view changed".to_string();
        }
        if prompt.contains("Task: write down your memory")
            || prompt.contains("Task: update your memory")
        {
            return "[SPATIAL MEMORY] {\"north\": {\"objects\": [\"door\"]}}".to_string();
        }
        // a re-ask after the refused `dance-N` of step N
        if let Some(n) = prompt
            .split("dance-")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next()?.parse::<usize>().ok())
        {
            return by_step[&n].clone();
        }
        // the step after the last of the recent steps the prompt recounts (`Step N`)
        let recent = prompt.split("<Current observation>").next().unwrap();
        let n = recent
            .lines()
            .filter_map(|l| l.strip_prefix("Step ")?.trim().parse::<usize>().ok())
            .max()
            .map_or(1, |last| last + 1);
        if n == 11 {
            // refused by the world: the step is re-asked after its memory and analysis
            return "[ACTION] dance-11".into();
        }
        by_step
            .get(&n)
            .cloned()
            .unwrap_or_else(|| "[ACTION] turn to north".into())
    };
    let reply = Arc::new(reply);
    let make = |stop_at: Option<(usize, Stop)>| {
        let reply = reply.clone();
        let m = Arc::new(OracleModel {
            reply: Box::new(move |r| reply(r)),
            requests: AtomicUsize::new(0),
            stop_at,
        });
        let options = spec(label).agent_options;
        let config =
            EscaperConfig::from_options(EscaperKind::VisEscaper, "scripted/oracle", &options)
                .unwrap();
        let client = Client::new(m.clone(), &ClientOptions::default());
        let agents: Box<dyn AgentFactory> = Box::new(LlmFactory::escaper(config, client));
        (agents, m)
    };
    // steps 1-13: 13 decisions, 12 analyses, one memory, one re-ask; then step 14's
    // analysis
    stop_and_resume(&world, label, &json, 13 + 12 + 1 + 1 + 1, &make);
}
