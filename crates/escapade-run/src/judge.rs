//! LLM-as-judge metrics over run directories (`escapade judge`).
//!
//! Some of the papers' analyses need a model to read what an agent wrote. VisEscape §6.2
//! cuts each step's pre-action reasoning into units labelled Observation, Guess,
//! Hypothesis, Planning or Recall (App. D.1, annotated by a model at temperature 0 with
//! the prompt of Table 24) and reports how often each label occurs (Fig. 7, Fig. 13) and
//! which label sequences are most frequent (Table 5, Table 15). A judge is slow and costs
//! money, so it is not part of `escapade report`: it runs on demand and writes its
//! verdicts beside the run, in `<run-dir>/judge/<task>.jsonl` (one [`JudgeRow`] per judged
//! item, appended and flushed per row), and a later invocation judges only what is
//! missing before it aggregates.
//!
//! A [`JudgeTask`] is the unit of extension: it picks what to judge in an episode's steps,
//! builds the request (in our own words, never a paper's prompt), parses the reply into
//! labelled [`Unit`]s, and aggregates them. [`TASKS`] holds `reasoning` (per step),
//! `errors` (COMMA §5.2's four error types, per two-role episode: [`Errors`]), and
//! MM-Escape's `intent` (intent–outcome consistency per successful interaction) and
//! `debrief` (the post-game debriefing, per escaped episode) in [`craft`]. A task may
//! decide an item without a call ([`Item::verdict`]), make a call before the verdict
//! (the debriefing's storyteller: [`JudgeTask::prior`]), and read the scenario's ground
//! truth ([`EpisodeInfo::scenario_json`], loaded by hash from the worlds given to
//! [`judge_with`]).
//!
//! Resume: a row is done for the same task, task version and judge model (and
//! storyteller, for `debrief`) unless it is `retryable` (the backend failed: nothing was judged). A reply the parser cannot read is
//! final — at temperature 0 the judge would say it again — and counts as an error. Only
//! the steps of episodes listed in `episodes.jsonl` are judged (a trajectory of an
//! episode still being played may be rewritten), and the inputs of one run (its shards)
//! are merged as `escapade report` merges them.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use escapade_agents::Structured;
use escapade_core::action::truncate_chars;
use escapade_core::{Action, FORMAT_VERSION, Usage, World};
use escapade_llm::{ChatRequest, Client, ClientOptions, Message, Role};
use futures::stream::{FuturesUnordered, StreamExt};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::error::{Result, RunError};
use crate::progress::Progress;
use crate::report::{Episode, read_runs};
use crate::rundir::{TRAJECTORIES, open_append, read_jsonl, read_run_toml, repair_tail, try_lock};
use crate::suite::file_stem;

pub mod craft; // MM-Escape's judges: intent–outcome consistency and the post-game debriefing

/// A judge request: our `system` instructions, then `user`'s text (the settings every
/// call shares — temperature, seed, token cap — are added where it is sent).
pub(crate) fn ask(system: &str, user: String) -> ChatRequest {
    ChatRequest {
        messages: vec![
            Message::text(Role::System, system),
            Message::text(Role::User, user),
        ],
        ..ChatRequest::default()
    }
}

/// `judge/`: the judges' verdicts inside a run directory, one file per task.
pub const JUDGE_DIR: &str = "judge";
/// Judge calls in flight at once, unless `--concurrency` says otherwise.
pub const DEFAULT_CONCURRENCY: usize = 4;
/// Most characters of an item's text sent to the judge; longer text is cut (and the row
/// says `truncated`). Reasoning of tens of thousands of characters is a runaway reply,
/// not a thought, and would only cost tokens.
pub const DEFAULT_MAX_CHARS: usize = 8_000;
/// Cap on the judge's reply in tokens: the reply repeats the text it labels.
pub const DEFAULT_MAX_TOKENS: u32 = 4_096;
/// `-A` keys read by the judge itself; the backend's keys (`base_url`, `timeout`,
/// `retries`, …) are [`escapade_agents::config::CLIENT_KEYS`].
pub const JUDGE_KEYS: [&str; 4] = ["max_chars", "max_tokens", "storyteller", "structured"];
/// Most units kept from one reply (a runaway reply is not a verdict on 8,000 characters).
const MAX_UNITS: usize = 256;
/// Most characters of a reply kept in its row.
const MAX_REPLY_CHARS: usize = 32_000;
/// Most characters of an action shown to the judge.
const MAX_ACTION_CHARS: usize = 300;
/// Errors printed one by one before the rest are only counted.
const WARN_LIMIT: usize = 5;

/// The fields of a step row a judge may read: a lenient view of
/// [`escapade_core::StepRow`], so that rows of other builds still read.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct StepView {
    /// Step index, from 1.
    pub step: u32,
    /// The model's raw reply.
    #[serde(default)]
    pub raw_response: Option<String>,
    /// Reasoning the provider exposed separately.
    #[serde(default)]
    pub reasoning: Option<String>,
    /// The action, as logged (an [`Action`] when it reads as one).
    #[serde(default)]
    pub action: Option<serde_json::Value>,
    /// The role whose turn it was (`agent` in one-role worlds; absent in old rows).
    #[serde(default)]
    pub role: Option<String>,
    /// The environment's feedback on the action.
    #[serde(default)]
    pub feedback: Option<String>,
    /// Task progress after the step, in [0, 1] (absent in rows of other formats).
    #[serde(default)]
    pub progress: Option<f64>,
    /// The task ended at this step.
    #[serde(default)]
    pub terminated: bool,
    /// What the agent saw before acting (its text; image addresses are not read).
    #[serde(default)]
    pub observation: Option<ObservationView>,
}

/// The text of a logged observation (a lenient view of
/// [`escapade_core::trajectory::LoggedObservation`]).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ObservationView {
    /// The text the agent read.
    #[serde(default)]
    pub text: String,
}

impl StepView {
    /// What the agent said or did: the whole text of a text action, else the short form.
    pub fn message(&self) -> String {
        match self
            .action
            .as_ref()
            .map(|v| serde_json::from_value::<Action>(v.clone()))
        {
            Some(Ok(Action::Text { text })) => text,
            _ => self.action_text(),
        }
    }

    /// The action in one short line, for the judge's context.
    pub fn action_text(&self) -> String {
        match &self.action {
            None | Some(serde_json::Value::Null) => String::new(),
            Some(value) => match serde_json::from_value::<Action>(value.clone()) {
                Ok(action) => action.summary(MAX_ACTION_CHARS),
                Err(_) => truncate_chars(&value.to_string(), MAX_ACTION_CHARS),
            },
        }
    }
}

/// The reasoning a step carries: its `reasoning` field, else the `[THINK]` section of its
/// raw reply (up to `[ACTION]`, case-insensitive; VisEscape App. A.5 asks agents to think
/// in such a section) or a `<think>…</think>` block. `None` when there is none or it is
/// blank.
pub fn reasoning_of(step: &StepView) -> Option<String> {
    if let Some(r) = step.reasoning.as_deref().map(str::trim)
        && !r.is_empty()
    {
        return Some(r.to_string());
    }
    let raw = step.raw_response.as_deref()?;
    // a reply with function calls is logged as {"text", "tool_calls"}
    let text = match serde_json::from_str::<serde_json::Value>(raw) {
        Ok(serde_json::Value::Object(map)) => match map.get("text") {
            Some(serde_json::Value::String(t)) => t.clone(),
            _ => return None,
        },
        _ => raw.to_string(),
    };
    let section = section(&text, "[think]", &["[action]"])
        .or_else(|| section(&text, "<think>", &["</think>"]))?;
    let section = section.trim();
    (!section.is_empty()).then(|| section.to_string())
}

/// The text after the first `open` (ASCII case-insensitive) up to the first of `close`
/// after it, or to the end.
fn section<'a>(text: &'a str, open: &str, close: &[&str]) -> Option<&'a str> {
    let lower = text.to_ascii_lowercase();
    let start = lower.find(open)? + open.len();
    let end = close
        .iter()
        .filter_map(|c| lower[start..].find(c).map(|i| start + i))
        .min()
        .unwrap_or(text.len());
    // ASCII lowercasing keeps byte offsets, and the markers are ASCII
    Some(&text[start..end])
}

/// What one judge call looks at.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Item {
    /// Scenario id.
    pub scenario: String,
    /// Epoch.
    pub epoch: u32,
    /// The step judged (`None`: a task that judges whole episodes).
    pub step: Option<u32>,
    /// The text judged, as sent (cut to the cap).
    pub text: String,
    /// Length of the whole text in characters (before the cap).
    pub chars: usize,
    /// Whether `text` was cut.
    pub truncated: bool,
    /// What the agent did, shown beside the text.
    pub context: String,
    /// What kind of item it is, kept in its row (`intent`: `pickup`, `box`, `door`,
    /// `escape`); `None` for tasks with one kind.
    pub label: Option<String>,
    /// The scenario's difficulty tier, kept in the row for per-tier aggregates.
    pub difficulty: Option<u32>,
    /// What only the judge may see, never a prior call (`debrief`: the ground truth).
    pub reference: Option<String>,
    /// A verdict reached without a call (`intent`: a step without a rationale is
    /// inconsistent); its row has `no_call` and no reply.
    pub verdict: Option<Vec<Unit>>,
}

/// What a task may know of an episode besides its steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EpisodeInfo<'a> {
    /// Scenario id.
    pub scenario: &'a str,
    /// Epoch.
    pub epoch: u32,
    /// World name.
    pub world: &'a str,
    /// The scenario's difficulty tier.
    pub difficulty: u32,
    /// Whether the agent succeeded.
    pub success: bool,
    /// The scenario's JSON, when the task asked for scenarios
    /// ([`JudgeTask::needs_scenarios`]) and the one with the episode's hash was found.
    pub scenario_json: Option<&'a str>,
}

/// One labelled piece of a verdict: a unit of reasoning and its category (for
/// `reasoning`). Later tasks label their findings the same way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    /// The label, normalized by the task (`observation`, `none-reflection`, …).
    pub category: String,
    /// The words of the unit, as the judge quoted them.
    pub text: String,
}

/// One judged item (`<run-dir>/judge/<task>.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeRow {
    /// Run-directory format version.
    pub format_version: u32,
    /// The judge task (`reasoning`).
    pub task: String,
    /// Version of the task's prompt and parser; rows of another version are not reused.
    pub task_version: u32,
    /// The judge model, `provider/model` as given to `--model`.
    pub judge: String,
    /// Scenario id.
    pub scenario: String,
    /// Epoch.
    pub epoch: u32,
    /// The step judged; null for a task that judges whole episodes.
    pub step: Option<u32>,
    /// Length of the judged text in characters, before the cap.
    pub chars: usize,
    /// The text was cut to the cap (`-A max_chars`) before it was sent. Absent when false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub truncated: bool,
    /// The verdict: labelled units in the order of the text; empty on error.
    #[serde(default)]
    pub units: Vec<Unit>,
    /// The judge's reply as received (cut to 32,000 characters); null when the call
    /// failed.
    #[serde(default)]
    pub reply: Option<String>,
    /// Usage and cost of the judge call.
    #[serde(default)]
    pub usage: Usage,
    /// Why there is no verdict (the backend failed, or the reply had no unit), or null.
    #[serde(default)]
    pub error: Option<String>,
    /// The backend failed, so the item was not judged; the next `escapade judge` tries it
    /// again. Absent when false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub retryable: bool,
    /// What kind of item was judged (`intent`: `pickup`, `box`, `door`, `escape`).
    /// Absent for tasks with one kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The scenario's difficulty tier, for tasks that aggregate per tier. Absent for
    /// the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<u32>,
    /// The call made before the verdict (`debrief`: the storyteller's account). Absent
    /// for tasks that ask once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prior: Option<PriorCall>,
    /// The verdict was reached without calling the judge (`intent`: no rationale);
    /// `reply` is null and `usage` zero. Absent when false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub no_call: bool,
}

/// A call made before the judge's (`<run-dir>/judge/<task>.jsonl`, field `prior`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriorCall {
    /// Who was asked (`storyteller`).
    pub role: String,
    /// The model asked, `provider/model`.
    pub model: String,
    /// Its reply as received (cut to 32,000 characters); null when the call failed.
    #[serde(default)]
    pub reply: Option<String>,
    /// Usage and cost of this call (also counted in the row's `usage`).
    #[serde(default)]
    pub usage: Usage,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The share of one category among all units (VisEscape Fig. 7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CategoryShare {
    /// The category (`observation`, `none-reflection`, …).
    pub category: String,
    /// How tables name it (`Observation`, `None-reflection`).
    pub name: String,
    /// Units with this category.
    pub units: usize,
    /// `units` over all units (0 when there are none).
    pub share: f64,
}

/// A sequence of categories and how many judged items have exactly it (VisEscape Table 5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Composition {
    /// The categories in order, repeats kept (`observation, recall, observation`).
    pub categories: Vec<String>,
    /// How tables name it: `(Obs, Recall, Plan)`.
    pub label: String,
    /// Judged items with this sequence.
    pub steps: usize,
    /// `steps` over all judged items.
    pub share: f64,
    /// Mean length of their text in characters (the paper counts tokens; characters need
    /// no tokenizer and compare the same way).
    pub mean_chars: f64,
}

/// A number a task makes of its verdicts (a mean or a share), as tables print it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// Its key (`c_io`, `c_io_d3`, `debrief`, `debrief_share`).
    pub name: String,
    /// How tables name it (`C_IO, difficulty 3`).
    pub label: String,
    /// Items it is computed over.
    pub items: usize,
    /// The value; null when there is no item.
    pub value: Option<f64>,
}

/// A task's aggregate over the judged items of one run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Aggregate {
    /// Units over all judged items.
    pub units: usize,
    /// Mean length of the judged texts in characters (null when nothing was judged).
    pub mean_chars: Option<f64>,
    /// Each category's share of the units: the task's own categories first (also when
    /// absent), then other labels by frequency.
    pub categories: Vec<CategoryShare>,
    /// Every sequence of categories met, most frequent first (ties by label); empty for
    /// tasks whose verdict is one label.
    pub compositions: Vec<Composition>,
    /// The task's scores (`intent`: C_IO overall and per tier; `debrief`: the mean
    /// score and the share of episodes judged). Absent for tasks without.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scores: Vec<Score>,
}

/// A kind of judgement: what to judge, how to ask, how to read the answer, what to count.
pub trait JudgeTask: Sync {
    /// The name on the command line and in file names (`reasoning`).
    fn name(&self) -> &'static str;
    /// Version of the prompt and parser: a change that alters verdicts bumps it.
    fn version(&self) -> u32;
    /// One line for `--help` and error messages.
    fn about(&self) -> &'static str;
    /// The items of one episode to judge, in order. Texts longer than `max_chars`
    /// characters are cut.
    fn items(&self, scenario: &str, epoch: u32, steps: &[StepView], max_chars: usize) -> Vec<Item>;
    /// What a run with no item lacks, for the message shown instead of a table.
    fn nothing_to_judge(&self) -> &'static str;
    /// The request for one item (the caller sets temperature 0).
    fn request(&self, item: &Item) -> ChatRequest;
    /// Reads the judge's reply; `Err` says why it holds no verdict.
    fn parse(&self, reply: &str) -> std::result::Result<Vec<Unit>, String>;
    /// The JSON Schema of a verdict, for tasks whose judge answers in JSON: sent as a
    /// response schema (constrained decoding) when the spec's `structured` is on, as the
    /// agents do, so that a small model answers a verdict instead of prose.
    fn verdict_schema(&self) -> Option<serde_json::Value> {
        None
    }
    /// Aggregates the rows of the judged items (rows without error) of one run.
    fn aggregate(&self, rows: &[&JudgeRow]) -> Aggregate;
    /// How the Markdown tables name their columns: the category, what is counted, a
    /// composition, and what a composition counts.
    fn table_words(&self) -> [&'static str; 4] {
        ["category", "units", "composition", "steps"]
    }
    /// The items of one episode, knowing more than its steps; by default
    /// [`items`](Self::items). `Err` says why the episode cannot be judged (a warning;
    /// the episode is left out).
    fn episode_items(
        &self,
        episode: &EpisodeInfo<'_>,
        steps: &[StepView],
        max_chars: usize,
    ) -> std::result::Result<Vec<Item>, String> {
        Ok(self.items(episode.scenario, episode.epoch, steps, max_chars))
    }
    /// Whether [`episode_items`](Self::episode_items) needs the scenario's JSON.
    fn needs_scenarios(&self) -> bool {
        false
    }
    /// Who is asked before the judge (`storyteller`), when the task makes such a call.
    fn prior_role(&self) -> Option<&'static str> {
        None
    }
    /// The request of the call before the judge's, for tasks with a
    /// [`prior_role`](Self::prior_role). It never holds [`Item::reference`].
    fn prior(&self, item: &Item) -> Option<ChatRequest> {
        let _ = item;
        None
    }
    /// The judge's request once the prior call answered `prior_reply`; by default
    /// [`request`](Self::request).
    fn request_after(&self, item: &Item, prior_reply: &str) -> ChatRequest {
        let _ = prior_reply;
        self.request(item)
    }
    /// Completes a run's aggregate with what needs the number of episodes read.
    fn complete(&self, aggregate: &mut Aggregate, episodes: usize) {
        let _ = (aggregate, episodes);
    }
}

/// The judge tasks, by name.
pub static TASKS: &[&dyn JudgeTask] = &[&Reasoning, &Errors, &craft::Intent, &craft::Debrief];

/// The task called `name`; an unknown name is an error listing the known ones.
pub fn task(name: &str) -> Result<&'static dyn JudgeTask> {
    TASKS
        .iter()
        .copied()
        .find(|t| t.name() == name)
        .ok_or_else(|| RunError::unknown("judge task", name, TASKS.iter().map(|t| t.name())))
}

/// VisEscape's reasoning decomposition (§6.2, App. D.1, Table 24): each step's reasoning
/// cut into units labelled with one of five categories, or `none-<name>` for anything
/// else.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reasoning;

/// The categories of [`Reasoning`] in the order of App. D.1: `(category, name, short)`,
/// where `short` is the abbreviation of Table 5.
pub const REASONING_CATEGORIES: [(&str, &str, &str); 5] = [
    ("observation", "Observation", "Obs"),
    ("guess", "Guess", "Gue"),
    ("hypothesis", "Hypothesis", "Hypo"),
    ("planning", "Planning", "Plan"),
    ("recall", "Recall", "Recall"),
];

/// Our instructions to the judge (App. D.1's five categories in our own words).
const REASONING_SYSTEM: &str = "\
You annotate the log of an AI agent that is trying to get out of an escape room.

Before each action the agent wrote down its thinking. Cut that thinking into units, \
in the order they appear, and give each unit exactly one category:

- Observation: the agent reports or examines what it sees right now (the current view, \
the visible state of an object, text it is reading).
- Guess: the agent assumes something from general knowledge or intuition, with nothing \
found in this room to back it up.
- Hypothesis: the agent proposes an idea to try out, grounded in evidence it has found \
in this room (a clue, a code, a state it saw).
- Planning: the agent decides what to do next or lays out the steps it will take.
- Recall: the agent brings back something from earlier in the game: where things are, \
their states, what it already tried and what came of it.

A unit can be part of a sentence, one sentence, or several sentences with one purpose. \
If a unit fits none of the five categories, label it None-<short name of your own>, for \
example None-Reflection.

Answer with one unit per line, in the original order, copying the agent's words, and \
nothing else:
[Category]: words of the unit";

impl JudgeTask for Reasoning {
    fn name(&self) -> &'static str {
        "reasoning"
    }

    fn version(&self) -> u32 {
        1
    }

    fn about(&self) -> &'static str {
        "label each step's reasoning as Observation, Guess, Hypothesis, Planning or Recall \
         units (VisEscape §6.2)"
    }

    fn items(&self, scenario: &str, epoch: u32, steps: &[StepView], max_chars: usize) -> Vec<Item> {
        steps
            .iter()
            .filter_map(|s| {
                let text = reasoning_of(s)?;
                let chars = text.chars().count();
                let truncated = chars > max_chars;
                let text = if truncated {
                    let kept: String = text.chars().take(max_chars).collect();
                    format!(
                        "{kept}\n[… {} more characters not shown]",
                        chars - max_chars
                    )
                } else {
                    text
                };
                Some(Item {
                    scenario: scenario.to_string(),
                    epoch,
                    step: Some(s.step),
                    text,
                    chars,
                    truncated,
                    context: s.action_text(),
                    ..Item::default()
                })
            })
            .collect()
    }

    fn nothing_to_judge(&self) -> &'static str {
        "no step carries reasoning (a `reasoning` field or a [THINK] section in \
         `raw_response`)"
    }

    fn request(&self, item: &Item) -> ChatRequest {
        let action = if item.context.is_empty() {
            "(none recorded)"
        } else {
            item.context.as_str()
        };
        let user = format!(
            "The agent's thinking:\n<<<\n{}\n>>>\n\nThe action it then took: {action}",
            item.text
        );
        ask(REASONING_SYSTEM, user)
    }

    fn parse(&self, reply: &str) -> std::result::Result<Vec<Unit>, String> {
        parse_units(reply)
    }

    fn aggregate(&self, rows: &[&JudgeRow]) -> Aggregate {
        aggregate_units(rows, &REASONING_CATEGORIES)
    }
}

/// COMMA's error analysis (§5.2): each episode of a two-role world (solver and expert)
/// read as one conversation — solver and expert messages with the environment's feedback
/// on the solver's actions — and checked for four kinds of failure. The verdict is a set
/// of labels (possibly empty); the aggregate gives, per error type, the share of judged
/// episodes that show it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Errors;

/// The error types of [`Errors`], in the order of COMMA §5.2: `(label, name, short)`.
pub const ERROR_TYPES: [(&str, &str, &str); 4] = [
    ("roleplay", "Roleplay", "Role"),
    ("misinterpretation", "Misinterpretation", "Misint"),
    ("repetition", "Repetition loop", "Loop"),
    ("miscommunication", "Miscommunication", "Miscomm"),
];

/// Our instructions to the judge (the four error types of COMMA §5.2, in our own words).
const ERRORS_SYSTEM: &str = "\
You review a conversation between two AI agents who cooperate on a puzzle. The SOLVER \
can see the puzzle and act on it; the EXPERT cannot see it but holds the instructions \
for solving it. After each solver message you also see what the puzzle reported back.

Decide which of these failures happen anywhere in the conversation:

- roleplay: an agent stops playing its own part, for example the expert claims to see \
the puzzle or acts on it, the solver invents rules it was never told, or either one \
answers for the other.
- misinterpretation: an agent misreads what it was given: the solver describes the \
puzzle wrongly, or the expert applies the instructions to the description incorrectly.
- repetition: the two get stuck in a loop, saying or doing essentially the same thing \
turn after turn without making progress.
- miscommunication: the agents misunderstand each other: a question goes unanswered, \
an instruction is taken to mean something else, or they talk past each other.

Answer with a single line and nothing else:
ERRORS: <the labels that apply, separated by commas, or none>";

impl Errors {
    /// The conversation of one episode's steps, or `None` when they are not steps of a
    /// multi-role world.
    fn conversation(steps: &[StepView]) -> Option<String> {
        // one-role worlds log every step as `agent`; older rows name no role
        if !steps
            .iter()
            .any(|s| s.role.as_deref().is_some_and(|r| r != "agent"))
        {
            return None;
        }
        let mut text = String::new();
        for s in steps {
            let role = s.role.as_deref().unwrap_or("agent").to_uppercase();
            let message = s.message();
            let message = message.trim();
            text.push_str(&format!(
                "[turn {}] {role}: {}\n",
                s.step,
                if message.is_empty() {
                    "(nothing)"
                } else {
                    message
                }
            ));
            // the expert's feedback only says the message was passed on
            if s.role.as_deref() != Some("expert")
                && let Some(f) = s
                    .feedback
                    .as_deref()
                    .map(str::trim)
                    .filter(|f| !f.is_empty())
            {
                text.push_str(&format!("  (puzzle: {f})\n"));
            }
        }
        Some(text)
    }
}

impl JudgeTask for Errors {
    fn name(&self) -> &'static str {
        "errors"
    }

    fn version(&self) -> u32 {
        1
    }

    fn about(&self) -> &'static str {
        "check each solver-expert conversation for roleplay, misinterpretation, repetition \
         loops and miscommunication (COMMA §5.2)"
    }

    fn items(&self, scenario: &str, epoch: u32, steps: &[StepView], max_chars: usize) -> Vec<Item> {
        let Some(text) = Errors::conversation(steps) else {
            return Vec::new();
        };
        let chars = text.chars().count();
        let truncated = chars > max_chars;
        let text = if truncated {
            let kept: String = text.chars().take(max_chars).collect();
            format!(
                "{kept}\n[… {} more characters not shown]",
                chars - max_chars
            )
        } else {
            text
        };
        vec![Item {
            scenario: scenario.to_string(),
            epoch,
            step: None,
            text,
            chars,
            truncated,
            context: String::new(),
            ..Item::default()
        }]
    }

    fn nothing_to_judge(&self) -> &'static str {
        "no episode is a conversation between roles (step rows of a two-role world such \
         as comma)"
    }

    fn request(&self, item: &Item) -> ChatRequest {
        let user = format!("The conversation:\n<<<\n{}>>>", item.text);
        ask(ERRORS_SYSTEM, user)
    }

    fn parse(&self, reply: &str) -> std::result::Result<Vec<Unit>, String> {
        parse_error_labels(reply)
    }

    fn aggregate(&self, rows: &[&JudgeRow]) -> Aggregate {
        let mut a = aggregate_units(rows, &ERROR_TYPES);
        // a share of episodes, not of labels: each episode names a type at most once
        let n = rows.len();
        let share = |k: usize| if n == 0 { 0.0 } else { k as f64 / n as f64 };
        for c in &mut a.categories {
            c.units = rows
                .iter()
                .filter(|r| r.units.iter().any(|u| u.category == c.category))
                .count();
            c.share = share(c.units);
        }
        let clean = rows.iter().filter(|r| r.units.is_empty()).count();
        a.categories.push(CategoryShare {
            category: "none".into(),
            name: "No error".into(),
            units: clean,
            share: share(clean),
        });
        a
    }

    fn table_words(&self) -> [&'static str; 4] {
        ["error type", "episodes", "errors together", "episodes"]
    }
}

/// Reads an `ERRORS: a, b` (or `ERRORS: none`) reply into one unit per error type, in
/// [`ERROR_TYPES`] order. The last line that starts with `errors` counts; without one
/// the whole reply is read. Labels are matched loosely (`role-play`, `Repetition loop`);
/// a reply that names no type and does not say `none` holds no verdict.
pub fn parse_error_labels(reply: &str) -> std::result::Result<Vec<Unit>, String> {
    let line = reply
        .lines()
        .rev()
        .map(str::trim)
        .find_map(|l| {
            let lower = l.trim_start_matches(['*', '#', ' ']).to_lowercase();
            lower.strip_prefix("errors").map(|rest| {
                rest.trim_start_matches(['*', ' '])
                    .trim_start_matches(':')
                    .to_string()
            })
        })
        .unwrap_or_else(|| reply.to_lowercase());
    let words: String = line
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    let words: Vec<&str> = words.split_whitespace().collect();
    let has = |w: &str| words.contains(&w);
    let mut units = Vec::new();
    let found = [
        has("roleplay") || (has("role") && has("play")),
        has("misinterpretation") || has("misinterpret"),
        has("repetition") || has("loop"),
        has("miscommunication") || has("miscommunicate"),
    ];
    for ((label, _, _), yes) in ERROR_TYPES.iter().zip(found) {
        if yes {
            units.push(Unit {
                category: label.to_string(),
                text: String::new(),
            });
        }
    }
    if units.is_empty() && !(has("none") || has("no")) {
        return Err(format!(
            "the reply names no error type and not `none`: {}",
            truncate_chars(reply.trim(), 200)
        ));
    }
    Ok(units)
}

/// Labels (lowercase words) that echo the request or the answer format, not units.
const ECHO_LABELS: [&str; 8] = [
    "action",
    "think",
    "thinking",
    "category",
    "response",
    "input",
    "the agent s thinking",
    "the action it then took",
];

/// Whether `label` echoes the request rather than labelling a unit.
fn is_echo(label: &str) -> bool {
    let words: Vec<String> = label
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    ECHO_LABELS.contains(&words.join(" ").as_str())
}

/// Reads `[Category]: text` lines (VisEscape Table 24's answer shape), tolerating what
/// models add: list markers, bold, quotes, a label without brackets for a known category,
/// the text on the next line. Unknown labels become `none-<label>`; other lines are
/// ignored. At most 256 units are kept. `Err` when no line is a unit.
pub fn parse_units(reply: &str) -> std::result::Result<Vec<Unit>, String> {
    let mut units: Vec<Unit> = Vec::new();
    for line in reply.lines() {
        match labelled(line) {
            Some((label, _)) if is_echo(&label) => {}
            Some((label, text)) => {
                if units.len() < MAX_UNITS {
                    units.push(Unit {
                        category: reasoning_category(&label),
                        text: clean_text(&text),
                    });
                }
            }
            // the words of a unit whose label stood alone on its line
            None => {
                if let Some(last) = units.last_mut()
                    && last.text.is_empty()
                    && line.chars().any(char::is_alphanumeric)
                {
                    last.text = clean_text(line);
                }
            }
        }
    }
    if units.is_empty() {
        let shown = truncate_chars(reply.trim(), 80);
        return Err(if shown.is_empty() {
            "the judge's reply is empty".to_string()
        } else {
            format!("the judge's reply has no `[Category]: text` line: {shown:?}")
        });
    }
    Ok(units)
}

/// `(label, rest)` of a line that starts with a label: `[Label] …`, or `Label: …` when the
/// label is a known category or a `None-…` label.
fn labelled(line: &str) -> Option<(String, String)> {
    let mut l = line.trim();
    // list markers and emphasis before the label
    loop {
        let before = l;
        for marker in ["- ", "* ", "• ", "**", "__", "> "] {
            l = l.strip_prefix(marker).unwrap_or(l).trim_start();
        }
        let digits = l.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && digits < 4 {
            let rest = &l[digits..];
            if let Some(r) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
                l = r.trim_start();
            }
        }
        if l == before {
            break;
        }
    }
    let (label, rest) = if let Some(inner) = l.strip_prefix('[') {
        let close = inner.find(']')?;
        (&inner[..close], &inner[close + 1..])
    } else {
        let colon = l.find(':')?;
        let label = l[..colon].trim_matches(|c: char| c == '*' || c == '_' || c.is_whitespace());
        let lower = label.to_ascii_lowercase();
        let known = !reasoning_category(label).starts_with("none-")
            || lower == "none"
            || lower.starts_with("none-")
            || lower.starts_with("none -");
        if !known {
            return None;
        }
        (label, &l[colon..])
    };
    let label = label.trim_matches(|c: char| c == '*' || c == '_' || c.is_whitespace());
    if label.is_empty() || label.chars().count() > 60 {
        return None;
    }
    let rest = rest
        .trim_start_matches(['*', '_', ':', '-', '–', '—'])
        .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '*' | '_' | ':'));
    Some((label.to_string(), rest.to_string()))
}

/// A unit's words without surrounding space, emphasis or quotes.
fn clean_text(text: &str) -> String {
    let t = text
        .trim()
        .trim_matches(|c: char| c == '*' || c == '_')
        .trim();
    let unquoted = ['"', '“'].iter().zip(['"', '”']).find_map(|(open, close)| {
        t.strip_prefix(*open)
            .and_then(|r| r.strip_suffix(close))
            .filter(|r| !r.is_empty())
    });
    unquoted.unwrap_or(t).trim().to_string()
}

/// The canonical category of a label: one of [`REASONING_CATEGORIES`] (also from their
/// usual variants: `Obs`, `Hypothesis Formation`, `Plan`, `Memory`, …), else
/// `none-<slug>` (`[None-Self check]` → `none-self-check`, `[Summary]` → `none-summary`,
/// `[None]` → `none-other`).
pub fn reasoning_category(label: &str) -> String {
    let words: Vec<String> = label
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let joined = words.join(" ");
    let canonical = match joined.as_str() {
        "observation" | "observations" | "observe" | "observing" | "obs" | "perception" => {
            Some("observation")
        }
        "guess" | "guesses" | "guessing" | "gue" | "assumption" => Some("guess"),
        "hypothesis"
        | "hypotheses"
        | "hypothesis formation"
        | "hypothesizing"
        | "hypothesising"
        | "hypothesize"
        | "hypo" => Some("hypothesis"),
        "planning" | "plan" | "plans" => Some("planning"),
        "recall" | "recalling" | "memory" | "memory recall" | "remembering" => Some("recall"),
        _ => None,
    };
    if let Some(c) = canonical {
        return c.to_string();
    }
    let rest: Vec<&str> = match words.first().map(String::as_str) {
        Some("none") => words[1..].iter().map(String::as_str).collect(),
        _ => words.iter().map(String::as_str).collect(),
    };
    let slug = truncate_slug(&rest.join("-"), 40);
    if slug.is_empty() {
        "none-other".to_string()
    } else {
        format!("none-{slug}")
    }
}

fn truncate_slug(slug: &str, max: usize) -> String {
    let s: String = slug.chars().take(max).collect();
    s.trim_end_matches('-').to_string()
}

/// Category shares and compositions of labelled units; `known` categories come first.
pub(crate) fn aggregate_units(rows: &[&JudgeRow], known: &[(&str, &str, &str)]) -> Aggregate {
    let name = |c: &str| -> String {
        match known.iter().find(|(k, _, _)| *k == c) {
            Some((_, name, _)) => name.to_string(),
            None => capitalize(c),
        }
    };
    let short = |c: &str| -> String {
        match known.iter().find(|(k, _, _)| *k == c) {
            Some((_, _, short)) => short.to_string(),
            None => capitalize(c),
        }
    };
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut sequences: BTreeMap<Vec<&str>, (usize, usize)> = BTreeMap::new();
    let mut units = 0usize;
    let mut chars = 0usize;
    for row in rows {
        units += row.units.len();
        chars += row.chars;
        for u in &row.units {
            *counts.entry(u.category.as_str()).or_default() += 1;
        }
        let seq: Vec<&str> = row.units.iter().map(|u| u.category.as_str()).collect();
        let entry = sequences.entry(seq).or_default();
        entry.0 += 1;
        entry.1 += row.chars;
    }
    let share = |n: usize, of: usize| if of == 0 { 0.0 } else { n as f64 / of as f64 };
    let mut categories: Vec<CategoryShare> = known
        .iter()
        .map(|(c, _, _)| {
            let n = counts.get(c).copied().unwrap_or(0);
            CategoryShare {
                category: c.to_string(),
                name: name(c),
                units: n,
                share: share(n, units),
            }
        })
        .collect();
    let mut others: Vec<(&str, usize)> = counts
        .iter()
        .filter(|(c, _)| !known.iter().any(|(k, _, _)| k == *c))
        .map(|(c, n)| (*c, *n))
        .collect();
    others.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    categories.extend(others.into_iter().map(|(c, n)| CategoryShare {
        category: c.to_string(),
        name: name(c),
        units: n,
        share: share(n, units),
    }));
    let mut compositions: Vec<Composition> = sequences
        .into_iter()
        .map(|(seq, (n, total_chars))| Composition {
            label: format!(
                "({})",
                seq.iter().map(|c| short(c)).collect::<Vec<_>>().join(", ")
            ),
            categories: seq.iter().map(|c| c.to_string()).collect(),
            steps: n,
            share: share(n, rows.len()),
            mean_chars: total_chars as f64 / n as f64,
        })
        .collect();
    compositions.sort_by(|a, b| b.steps.cmp(&a.steps).then_with(|| a.label.cmp(&b.label)));
    Aggregate {
        units,
        mean_chars: (!rows.is_empty()).then(|| chars as f64 / rows.len() as f64),
        categories,
        compositions,
        scores: Vec::new(),
    }
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// What to judge and with which model.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeSpec {
    /// The task's name (see [`TASKS`]).
    pub task: String,
    /// The judge model, `provider/model`.
    pub model: String,
    /// Judge calls in flight at once (at least 1).
    pub concurrency: usize,
    /// Judge only the first `limit` items of each run (scenario, epoch, step order).
    pub limit: Option<usize>,
    /// Most characters of an item's text sent (`-A max_chars=N`).
    pub max_chars: usize,
    /// Cap on the judge's reply in tokens (`-A max_tokens=N`).
    pub max_tokens: u32,
    /// The model asked before the judge by tasks with a prior call (`debrief`'s
    /// storyteller), `provider/model` (`-A storyteller=…`); `None`: the judge model.
    pub storyteller: Option<String>,
    /// Whether verdicts are constrained to the task's JSON Schema (`-A structured=…`):
    /// by default on for `local/…` models, as for agents.
    pub structured: Structured,
}

impl Default for JudgeSpec {
    fn default() -> Self {
        JudgeSpec {
            task: "reasoning".into(),
            model: String::new(),
            concurrency: DEFAULT_CONCURRENCY,
            limit: None,
            max_chars: DEFAULT_MAX_CHARS,
            max_tokens: DEFAULT_MAX_TOKENS,
            storyteller: None,
            structured: Structured::Auto,
        }
    }
}

impl JudgeSpec {
    /// Whether the judge's replies are constrained to a verdict schema.
    pub fn structured_on(&self) -> bool {
        match self.structured {
            Structured::On => true,
            Structured::Off => false,
            Structured::Auto => self.model.starts_with("local/"),
        }
    }

    /// Applies `-A key=value` options: [`JUDGE_KEYS`] set this spec, the backend's keys
    /// ([`escapade_agents::config::CLIENT_KEYS`]) make the returned client options. Any
    /// other key is an error listing the known ones.
    pub fn apply_options(&mut self, options: &BTreeMap<String, String>) -> Result<ClientOptions> {
        use escapade_agents::config::{CLIENT_KEYS, client_options};
        let mut client = BTreeMap::new();
        for (key, value) in options {
            let positive = || -> Result<usize> {
                match value.trim().parse::<usize>() {
                    Ok(n) if n > 0 => Ok(n),
                    _ => Err(RunError::Invalid(format!(
                        "bad value `{value}` for {key}: expected a positive whole number"
                    ))),
                }
            };
            match key.as_str() {
                "max_chars" => self.max_chars = positive()?,
                "max_tokens" => {
                    self.max_tokens = u32::try_from(positive()?).map_err(|_| {
                        RunError::Invalid(format!("bad value `{value}` for max_tokens: too large"))
                    })?;
                }
                "storyteller" => {
                    if !value.contains('/') {
                        return Err(RunError::Invalid(format!(
                            "bad value `{value}` for storyteller: expected provider/model"
                        )));
                    }
                    self.storyteller = Some(value.trim().to_string());
                }
                "structured" => {
                    self.structured = match value.trim() {
                        "auto" => Structured::Auto,
                        "on" => Structured::On,
                        "off" => Structured::Off,
                        _ => {
                            return Err(RunError::Invalid(format!(
                                "bad value `{value}` for structured: expected auto, on or off"
                            )));
                        }
                    }
                }
                k if CLIENT_KEYS.contains(&k) => {
                    client.insert(key.clone(), value.clone());
                }
                _ => {
                    let mut known: Vec<&str> =
                        JUDGE_KEYS.iter().chain(&CLIENT_KEYS).copied().collect();
                    known.sort_unstable();
                    return Err(RunError::unknown("judge option", key, known));
                }
            }
        }
        client_options(&client, ClientOptions::default())
            .map_err(|e| RunError::Invalid(e.to_string()))
    }

    fn check(&self) -> Result<&'static dyn JudgeTask> {
        let task = task(&self.task)?;
        if self.concurrency == 0 {
            return Err(RunError::Invalid("concurrency must be at least 1".into()));
        }
        if self.max_chars == 0 || self.max_tokens == 0 {
            return Err(RunError::Invalid(
                "max_chars and max_tokens must be at least 1".into(),
            ));
        }
        if self.model.trim().is_empty() {
            return Err(RunError::Invalid(
                "a judge needs a model: --model provider/model".into(),
            ));
        }
        if self.storyteller.is_some() && task.prior_role().is_none() {
            return Err(RunError::Invalid(format!(
                "the `{}` task asks no storyteller: -A storyteller is for `debrief`",
                task.name()
            )));
        }
        Ok(task)
    }

    /// The model of the call before the judge's, for a task that makes one.
    fn prior_model(&self, task: &dyn JudgeTask) -> Option<&str> {
        task.prior_role()
            .map(|_| self.storyteller.as_deref().unwrap_or(&self.model))
    }
}

/// One run's judgement: what was judged and the task's aggregate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunJudgement {
    /// How tables name the run (agent and model, as in `escapade report`).
    pub label: String,
    /// The agent spec.
    pub agent: String,
    /// The agent's model, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The run directories read (the shards of the run).
    pub dirs: Vec<String>,
    /// Episodes read (finished, with a trajectory).
    pub episodes: usize,
    /// Steps read in the run's trajectories.
    pub steps: usize,
    /// Items to judge: steps with reasoning, after `--limit`.
    pub items: usize,
    /// Items with a verdict.
    pub judged: usize,
    /// Items whose last row is an error.
    pub errors: usize,
    /// Items sent to the judge by this invocation.
    pub requests: usize,
    /// Items an earlier invocation had judged (not sent again).
    pub skipped: usize,
    /// Usage and cost of the rows counted here (earlier invocations' included).
    pub usage: Usage,
    /// The task's aggregate over the judged items.
    #[serde(flatten)]
    pub aggregate: Aggregate,
}

/// The result of [`judge`]: one [`RunJudgement`] per run, in the order given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Judgement {
    /// The task.
    pub task: String,
    /// The task's version.
    pub task_version: u32,
    /// The judge model.
    pub judge: String,
    /// The model asked before the judge (`debrief`: the storyteller); absent for tasks
    /// that ask once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storyteller: Option<String>,
    /// One entry per run.
    pub runs: Vec<RunJudgement>,
    /// Warnings (torn lines, missing trajectories, judge errors); not part of the JSON.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

impl Judgement {
    /// Items sent to the judge by this invocation, over all runs.
    pub fn requests(&self) -> usize {
        self.runs.iter().map(|r| r.requests).sum()
    }

    /// Items whose verdict is an error, over all runs.
    pub fn errors(&self) -> usize {
        self.runs.iter().map(|r| r.errors).sum()
    }

    /// Markdown: per run a line of counts and cost, a table of category shares and a
    /// table of the most frequent compositions (the first 5; `--json` has them all).
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "# escapade judge: {} (judge {})\n",
            self.task,
            escape(&self.judge)
        );
        if let Some(s) = &self.storyteller {
            out.push_str(&format!("\nStoryteller: {}.\n", escape(s)));
        }
        let nothing = task(&self.task).map_or("nothing to judge", |t| t.nothing_to_judge());
        if self.runs.is_empty() {
            out.push_str("\nNo finished episodes.\n");
        }
        for run in &self.runs {
            out.push_str(&format!("\n## {}\n\n", escape(&run.label)));
            if run.items == 0 {
                out.push_str(&format!(
                    "Nothing judged: of {} episode(s) and {} step(s), {nothing}.\n",
                    run.episodes, run.steps
                ));
                continue;
            }
            let a = &run.aggregate;
            out.push_str(&format!(
                "{} episode(s) and {} step(s) read, {} to judge: {} judged, {} error(s) ({} sent \
                 now, {} judged earlier); {} unit(s)",
                run.episodes,
                run.steps,
                run.items,
                run.judged,
                run.errors,
                run.requests,
                run.skipped,
                a.units
            ));
            if let Some(m) = a.mean_chars {
                out.push_str(&format!("; mean length {m:.1} characters"));
            }
            out.push_str(&format!(
                "; {} input + {} output tokens, ${:.4}.\n",
                run.usage.input, run.usage.output, run.usage.cost_usd
            ));
            if run.judged == 0 {
                continue;
            }
            if !a.scores.is_empty() {
                out.push_str("\n| measure | items | value |\n|:---|---:|---:|\n");
                for s in &a.scores {
                    let value = s.value.map_or("–".to_string(), |v| format!("{v:.3}"));
                    out.push_str(&format!(
                        "| {} | {} | {value} |\n",
                        escape(&s.label),
                        s.items
                    ));
                }
            }
            let words = task(&self.task)
                .map_or(["category", "units", "composition", "steps"], |t| {
                    t.table_words()
                });
            out.push_str(&format!(
                "\n| {} | {} | share (%) |\n|:---|---:|---:|\n",
                words[0], words[1]
            ));
            for c in &a.categories {
                out.push_str(&format!(
                    "| {} | {} | {:.1} |\n",
                    escape(&c.name),
                    c.units,
                    c.share * 100.0
                ));
            }
            if a.compositions.is_empty() {
                continue;
            }
            out.push_str(&format!(
                "\n| {} | {} | share (%) | mean length (chars) |\n|:---|---:|---:|---:|\n",
                words[2], words[3]
            ));
            for c in a.compositions.iter().take(5) {
                out.push_str(&format!(
                    "| {} | {} | {:.1} | {:.1} |\n",
                    escape(&c.label),
                    c.steps,
                    c.share * 100.0,
                    c.mean_chars
                ));
            }
            if a.compositions.len() > 5 {
                out.push_str(&format!(
                    "\n{} more composition(s) in `--json`.\n",
                    a.compositions.len() - 5
                ));
            }
        }
        out
    }
}

/// A Markdown table cell: no pipes, no line breaks.
fn escape(s: &str) -> String {
    s.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// The key of an item in a judge file.
type Key = (String, u32, Option<u32>);

fn key_of(item: &Item) -> Key {
    (item.scenario.clone(), item.epoch, item.step)
}

/// A judge file being written: its rows so far, and its lock.
struct JudgeFile {
    path: PathBuf,
    file: Mutex<File>,
    rows: Vec<JudgeRow>,
    _lock: File,
}

impl JudgeFile {
    /// Opens (creating) `<dir>/judge/<task>.jsonl` under the judge lock, cutting off a
    /// torn last line.
    fn open(dir: &Path, task: &str, warnings: &mut Vec<String>) -> Result<JudgeFile> {
        let judge_dir = dir.join(JUDGE_DIR);
        std::fs::create_dir_all(&judge_dir)
            .map_err(|e| RunError::io("cannot create", &judge_dir, e))?;
        let lock = try_lock(&judge_dir)?.ok_or_else(|| RunError::JudgeLocked(dir.to_path_buf()))?;
        let path = judge_dir.join(format!("{task}.jsonl"));
        let mut rows = Vec::new();
        if path.is_file() {
            let read = read_jsonl::<JudgeRow>(&path)?;
            warnings.extend(read.warnings.iter().cloned());
            repair_tail(&path, &read)?;
            rows = read.rows;
        }
        let file = open_append(&path)?;
        Ok(JudgeFile {
            path,
            file: Mutex::new(file),
            rows,
            _lock: lock,
        })
    }

    fn append(&self, row: &JudgeRow) -> Result<()> {
        let mut line = serde_json::to_vec(row).expect("a judge row always serializes");
        line.push(b'\n');
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        file.write_all(&line)
            .and_then(|_| file.flush())
            .map_err(|e| RunError::io("cannot write", &self.path, e))
    }
}

/// One run's items and where their rows go.
struct Planned {
    label: String,
    agent: String,
    model: Option<String>,
    dirs: Vec<String>,
    episodes: usize,
    steps: usize,
    /// `(run directory, item)`, in scenario, epoch, step order, after `limit`.
    items: Vec<(PathBuf, Item)>,
}

/// Scenario JSON by SHA-256 of its bytes (what `episodes.jsonl` records as
/// `scenario_hash`), loaded from the `source` in each run directory's `run.toml`.
#[derive(Default)]
struct ScenarioIndex {
    /// Run directories already read.
    dirs: BTreeSet<PathBuf>,
    /// Sources already resolved (or that failed).
    sources: BTreeSet<String>,
    by_hash: BTreeMap<String, String>,
}

impl ScenarioIndex {
    /// Loads the scenarios of the run in `dir` (once per source); failures are warnings.
    fn load(&mut self, worlds: &[Box<dyn World>], dir: &Path, warnings: &mut Vec<String>) {
        if !self.dirs.insert(dir.to_path_buf()) {
            return;
        }
        let toml = match read_run_toml(dir) {
            Ok(toml) => toml,
            Err(e) => {
                warnings.push(format!(
                    "cannot tell where the scenarios of {} are: {e}",
                    dir.display()
                ));
                return;
            }
        };
        let source = toml.config.source;
        if !self.sources.insert(source.clone()) {
            return;
        }
        match crate::source::resolve(worlds, &source) {
            Ok(found) => {
                for (_, json) in found.scenarios {
                    let hash = escapade_core::hash::sha256_hex(json.as_bytes());
                    self.by_hash.insert(hash, json);
                }
            }
            Err(e) => warnings.push(format!(
                "cannot load the scenarios of {} from `{source}`: {e}",
                dir.display()
            )),
        }
    }
}

/// Reads the runs in `dirs` and the items `task` would judge in each.
fn plan(
    dirs: &[PathBuf],
    task: &dyn JudgeTask,
    spec: &JudgeSpec,
    worlds: &[Box<dyn World>],
    warnings: &mut Vec<String>,
) -> Result<Vec<Planned>> {
    let set = read_runs(dirs)?;
    warnings.extend(set.warnings);
    if task.needs_scenarios() && worlds.is_empty() {
        return Err(RunError::Invalid(format!(
            "the `{}` task reads the scenarios: judge with the worlds that made them",
            task.name()
        )));
    }
    let mut index = ScenarioIndex::default();
    let mut planned = Vec::with_capacity(set.runs.len());
    for run in set.runs {
        let mut steps = 0usize;
        let mut episodes = 0usize;
        let mut items = Vec::new();
        for episode in &run.episodes {
            let Some(dir) = &episode.dir else { continue };
            let Some(view) = read_steps(dir, episode, warnings) else {
                continue;
            };
            episodes += 1;
            steps += view.len();
            let row = &episode.row;
            if task.needs_scenarios() {
                index.load(worlds, dir, warnings);
            }
            let info = EpisodeInfo {
                scenario: &row.scenario,
                epoch: row.epoch,
                world: &row.world,
                difficulty: row.difficulty,
                success: row.success,
                scenario_json: index.by_hash.get(&row.scenario_hash).map(String::as_str),
            };
            match task.episode_items(&info, &view, spec.max_chars) {
                Ok(found) => items.extend(found.into_iter().map(|i| (dir.clone(), i))),
                Err(e) => warnings.push(format!(
                    "{} epoch {}: not judged: {e}",
                    row.scenario, row.epoch
                )),
            }
        }
        if let Some(limit) = spec.limit {
            items.truncate(limit);
        }
        planned.push(Planned {
            label: run.label,
            agent: run.agent,
            model: run.model,
            dirs: run.dirs.iter().map(|d| d.display().to_string()).collect(),
            episodes,
            steps,
            items,
        });
    }
    Ok(planned)
}

/// The steps of an episode's trajectory, by step number (first row of a number wins);
/// `None` with a warning when the file is missing. Unreadable lines are skipped with a
/// warning.
fn read_steps(dir: &Path, episode: &Episode, warnings: &mut Vec<String>) -> Option<Vec<StepView>> {
    let path = dir
        .join(TRAJECTORIES)
        .join(file_stem(&episode.row.scenario))
        .join(format!("{}.jsonl", episode.row.epoch));
    let text = match std::fs::read(&path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            if episode.row.steps > 0 {
                warnings.push(format!("cannot read {}: {e}", path.display()));
            }
            return None;
        }
    };
    let mut by_step: BTreeMap<u32, StepView> = BTreeMap::new();
    let mut bad = 0usize;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<StepView>(line) {
            Ok(s) => {
                by_step.entry(s.step).or_insert(s);
            }
            Err(_) => bad += 1,
        }
    }
    if bad > 0 {
        warnings.push(format!(
            "{}: skipped {bad} unreadable line(s)",
            path.display()
        ));
    }
    Some(by_step.into_values().collect())
}

/// [`judge_with`] without worlds: for tasks that read only the run directories (not
/// `debrief`, which needs the scenarios).
pub fn judge(
    dirs: &[PathBuf],
    spec: &JudgeSpec,
    options: &ClientOptions,
    progress: Progress,
) -> Result<Judgement> {
    judge_with(dirs, spec, options, progress, &[])
}

/// [`judge_async`] on a runtime of its own, for callers that are not async. `worlds`
/// rebuild the scenarios of tasks that read them ([`JudgeTask::needs_scenarios`]): each
/// run directory's `run.toml` names its source, resolved as `escapade run` resolves it,
/// and an episode's scenario is the one whose hash its row records.
pub fn judge_with(
    dirs: &[PathBuf],
    spec: &JudgeSpec,
    options: &ClientOptions,
    progress: Progress,
    worlds: &[Box<dyn World>],
) -> Result<Judgement> {
    spec.check()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| RunError::io("cannot start the async runtime", ".", e))?;
    runtime.block_on(judge_async(dirs, spec, options, progress, worlds))
}

/// Judges the items of the runs in `dirs` (run directories or `episodes.jsonl` files)
/// that no earlier invocation judged with the same task version and model (and
/// storyteller, for tasks with a prior call), writing a row per item to
/// `<run-dir>/judge/<task>.jsonl`, then aggregates every run. The backends are opened
/// only when there is something to ask. A failing call becomes a `retryable` row, never
/// an `Err`; only the run directories (unreadable, unwritable, being judged by another
/// process) and a backend that cannot be opened stop it.
pub async fn judge_async(
    dirs: &[PathBuf],
    spec: &JudgeSpec,
    options: &ClientOptions,
    progress: Progress,
    worlds: &[Box<dyn World>],
) -> Result<Judgement> {
    let task = spec.check()?;
    let mut warnings = Vec::new();
    let planned = plan(dirs, task, spec, worlds, &mut warnings)?;
    let prior_model = spec.prior_model(task);

    // the judge files of every directory with items, each under its lock
    let mut files: IndexMap<PathBuf, JudgeFile> = IndexMap::new();
    for run in &planned {
        for (dir, _) in &run.items {
            if !files.contains_key(dir) {
                let file = JudgeFile::open(dir, task.name(), &mut warnings)?;
                files.insert(dir.clone(), file);
            }
        }
    }
    let ours = |r: &JudgeRow| {
        r.task == task.name()
            && r.task_version == task.version()
            && r.judge == spec.model
            && (r.no_call || r.prior.as_ref().map(|p| p.model.as_str()) == prior_model)
    };
    for file in files.values() {
        let old = file
            .rows
            .iter()
            .filter(|r| r.task == task.name() && r.task_version != task.version())
            .count();
        if old > 0 {
            warnings.push(format!(
                "{}: ignoring {old} row(s) of another version of the `{}` task",
                file.path.display(),
                task.name()
            ));
        }
    }
    let done: BTreeSet<(usize, Key)> = files
        .values()
        .enumerate()
        .flat_map(|(i, f)| {
            f.rows
                .iter()
                .filter(|r| ours(r) && !r.retryable)
                .map(move |r| (i, (r.scenario.clone(), r.epoch, r.step)))
        })
        .collect();
    // (run, file, item) still to judge
    let mut jobs: Vec<(usize, usize, &Item)> = Vec::new();
    let mut skipped = vec![0usize; planned.len()];
    for (r, run) in planned.iter().enumerate() {
        for (dir, item) in &run.items {
            let f = files.get_index_of(dir).expect("opened above");
            if done.contains(&(f, key_of(item))) {
                skipped[r] += 1;
            } else {
                jobs.push((r, f, item));
            }
        }
    }

    let mut requests = vec![0usize; planned.len()];
    let mut new_rows: Vec<(usize, JudgeRow)> = Vec::new();
    let mut reported = 0usize;
    if !jobs.is_empty() {
        let open = |model: &str| {
            let model = model.to_string();
            async move {
                escapade_llm::open(&model, options)
                    .await
                    .map_err(|error| RunError::Backend { model, error })
            }
        };
        // items decided without a call need no backend
        let calls = jobs.iter().any(|(_, _, item)| item.verdict.is_none());
        let client = if calls {
            Some(open(&spec.model).await?)
        } else {
            None
        };
        let prior_client = match prior_model {
            Some(m) if calls && m != spec.model => Some(open(m).await?),
            _ => None,
        };
        let clients = Clients {
            judge: client.as_ref(),
            prior: prior_client.as_ref().or(client.as_ref()),
        };
        let total: usize = planned.iter().map(|r| r.items.len()).sum();
        let bar = progress.bar(total as u64, "judged");
        bar.set_position((total - jobs.len()) as u64);
        let mut queue = jobs.into_iter();
        let mut in_flight = FuturesUnordered::new();
        let mut failure: Option<RunError> = None;
        loop {
            while failure.is_none() && in_flight.len() < spec.concurrency {
                let Some((r, f, item)) = queue.next() else {
                    break;
                };
                let clients = &clients;
                in_flight.push(async move {
                    let row = judge_item(task, clients, spec, item).await;
                    (r, f, row)
                });
            }
            let Some((r, f, row)) = in_flight.next().await else {
                break;
            };
            if let Err(e) = files[f].append(&row) {
                failure.get_or_insert(e);
                continue;
            }
            requests[r] += 1;
            if let Some(e) = &row.error {
                reported += 1;
                if reported <= WARN_LIMIT {
                    let at = row.step.map_or(String::new(), |s| format!(" step {s}"));
                    progress.warn(
                        Some(&bar),
                        &format!("{} epoch {}{at}: {e}", row.scenario, row.epoch),
                    );
                }
            }
            bar.inc(1);
            new_rows.push((f, row));
        }
        drop(in_flight);
        bar.finish_and_clear();
        if let Some(e) = failure {
            return Err(e);
        }
    }
    if reported > WARN_LIMIT {
        warnings.push(format!(
            "{} more judge error(s); see `error` in the judge files",
            reported - WARN_LIMIT
        ));
    }
    for (f, row) in new_rows {
        files[f].rows.push(row);
    }

    // the row that counts per item: the last that is not retryable, else the last
    let mut chosen: Vec<BTreeMap<Key, &JudgeRow>> = Vec::with_capacity(files.len());
    for file in files.values() {
        let mut by_key: BTreeMap<Key, &JudgeRow> = BTreeMap::new();
        for row in file.rows.iter().filter(|r| ours(r)) {
            let key = (row.scenario.clone(), row.epoch, row.step);
            match by_key.get(&key) {
                Some(prev) if !prev.retryable && row.retryable => {}
                _ => {
                    by_key.insert(key, row);
                }
            }
        }
        chosen.push(by_key);
    }
    let mut runs = Vec::with_capacity(planned.len());
    for (r, run) in planned.iter().enumerate() {
        let mut usage = Usage::default();
        let mut judged: Vec<&JudgeRow> = Vec::new();
        let mut errors = 0usize;
        for (dir, item) in &run.items {
            let f = files.get_index_of(dir).expect("opened above");
            let Some(row) = chosen[f].get(&key_of(item)) else {
                continue;
            };
            usage.add(&row.usage);
            if row.error.is_some() {
                errors += 1;
            } else {
                judged.push(row);
            }
        }
        let mut aggregate = task.aggregate(&judged);
        task.complete(&mut aggregate, run.episodes);
        runs.push(RunJudgement {
            label: run.label.clone(),
            agent: run.agent.clone(),
            model: run.model.clone(),
            dirs: run.dirs.clone(),
            episodes: run.episodes,
            steps: run.steps,
            items: run.items.len(),
            judged: judged.len(),
            errors,
            requests: requests[r],
            skipped: skipped[r],
            usage,
            aggregate,
        });
    }
    Ok(Judgement {
        task: task.name().to_string(),
        task_version: task.version(),
        judge: spec.model.clone(),
        storyteller: prior_model.map(String::from),
        runs,
        warnings,
    })
}

/// The backends of one invocation: the judge's, and the one asked before it (the same
/// client when the models are the same). `None` when no item needs a call.
struct Clients<'a> {
    judge: Option<&'a Client>,
    prior: Option<&'a Client>,
}

/// `request` with the settings every judge call shares: temperature 0, seed 0, the
/// spec's token cap.
fn tuned(spec: &JudgeSpec, mut request: ChatRequest) -> ChatRequest {
    request.temperature = Some(0.0);
    request.seed = Some(0);
    request.max_tokens = Some(spec.max_tokens);
    request
}

/// The judge's own request: [`tuned`], and constrained to the task's verdict schema when
/// the spec's `structured` is on (the prior call stays free text).
pub fn verdict_request(
    task: &dyn JudgeTask,
    spec: &JudgeSpec,
    request: ChatRequest,
) -> ChatRequest {
    let mut request = tuned(spec, request);
    if spec.structured_on() {
        request.response_schema = task.verdict_schema();
    }
    request
}

/// Asks the judge about one item (after the prior call, for tasks with one); every
/// failure lands in the row.
async fn judge_item(
    task: &dyn JudgeTask,
    clients: &Clients<'_>,
    spec: &JudgeSpec,
    item: &Item,
) -> JudgeRow {
    let tune = |request: ChatRequest| tuned(spec, request);
    let mut row = JudgeRow {
        format_version: FORMAT_VERSION,
        task: task.name().to_string(),
        task_version: task.version(),
        judge: spec.model.clone(),
        scenario: item.scenario.clone(),
        epoch: item.epoch,
        step: item.step,
        chars: item.chars,
        truncated: item.truncated,
        units: Vec::new(),
        reply: None,
        usage: Usage::default(),
        error: None,
        retryable: false,
        label: item.label.clone(),
        difficulty: item.difficulty,
        prior: None,
        no_call: false,
    };
    if let Some(units) = &item.verdict {
        row.units = units.clone();
        row.no_call = true;
        return row;
    }
    let (Some(judge), Some(prior_client)) = (clients.judge, clients.prior) else {
        // unreachable: the clients are opened when an item needs a call
        row.error = Some("no judge backend was opened".into());
        row.retryable = true;
        return row;
    };
    let mut request = task.request(item);
    if let (Some(role), Some(prior)) = (task.prior_role(), task.prior(item)) {
        let mut call = PriorCall {
            role: role.to_string(),
            model: spec.prior_model(task).unwrap_or(&spec.model).to_string(),
            reply: None,
            usage: Usage::default(),
        };
        match prior_client.chat(&tune(prior)).await {
            Ok(completion) => {
                let text = completion.response.text;
                call.usage = completion.usage;
                row.usage.add(&call.usage);
                call.reply = Some(truncate_chars(&text, MAX_REPLY_CHARS));
                if text.trim().is_empty() {
                    row.error = Some(format!("the {role}'s reply is empty"));
                    row.prior = Some(call);
                    return row;
                }
                request = task.request_after(item, &text);
                row.prior = Some(call);
            }
            Err(e) => {
                row.error = Some(format!("{role} failed: {e}"));
                row.retryable = true;
                row.prior = Some(call);
                return row;
            }
        }
    }
    match judge.chat(&verdict_request(task, spec, request)).await {
        Ok(completion) => {
            row.usage.add(&completion.usage);
            let text = completion.response.text;
            match task.parse(&text) {
                Ok(units) => row.units = units,
                Err(e) => row.error = Some(e),
            }
            row.reply = Some(truncate_chars(&text, MAX_REPLY_CHARS));
        }
        Err(e) => {
            row.error = Some(format!("judge failed: {e}"));
            row.retryable = true;
        }
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_labels_are_read_loosely_and_none_is_a_verdict() {
        let labels = |r: &str| -> Vec<String> {
            parse_error_labels(r)
                .unwrap()
                .into_iter()
                .map(|u| u.category)
                .collect()
        };
        assert_eq!(
            labels("Thinking…\n**ERRORS:** Repetition loop, role-play"),
            vec!["roleplay", "repetition"]
        );
        assert_eq!(labels("ERRORS: none"), Vec::<String>::new());
        assert_eq!(labels("miscommunication"), vec!["miscommunication"]);
        assert!(parse_error_labels("ERRORS: confusion").is_err());
    }

    #[test]
    fn a_conversation_is_one_item_per_multi_role_episode() {
        let step = |n: u32, role: &str, text: &str| StepView {
            step: n,
            role: Some(role.into()),
            action: Some(serde_json::to_value(Action::text(text)).unwrap()),
            feedback: Some("cut_wire_2: done".into()),
            ..StepView::default()
        };
        let steps = [step(1, "solver", "I see wires"), step(2, "expert", "cut 2")];
        let items = Errors.items("s", 0, &steps, 10_000);
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].step, None);
        let t = &items[0].text;
        assert!(
            t.contains("[turn 1] SOLVER: I see wires\n  (puzzle: cut_wire_2: done)"),
            "{t}"
        );
        assert!(
            t.contains("[turn 2] EXPERT: cut 2\n") && !t.ends_with("done)\n"),
            "{t}"
        );
        let one_role = [step(1, "agent", "go")];
        assert!(Errors.items("s", 0, &one_role, 10_000).is_empty());
    }

    #[test]
    fn sections_are_found_case_insensitively_up_to_the_action() {
        let step = |raw: &str| StepView {
            raw_response: Some(raw.into()),
            ..StepView::default()
        };
        let r = reasoning_of(&step("[Think] The door is shut. [Action] open door"));
        assert_eq!(r.as_deref(), Some("The door is shut."));
        let r = reasoning_of(&step("[THINK]\nÉtat: fermé\n[ACTION]\nopen"));
        assert_eq!(r.as_deref(), Some("État: fermé"));
        assert_eq!(
            reasoning_of(&step("<think>hm</think>open")).as_deref(),
            Some("hm")
        );
        assert_eq!(reasoning_of(&step("[ACTION] open door")), None);
        assert_eq!(reasoning_of(&step("[THINK]   [ACTION] open")), None);
    }

    #[test]
    fn labels_map_to_categories() {
        for (label, want) in [
            ("Observation", "observation"),
            ("OBS", "observation"),
            ("Hypothesis Formation", "hypothesis"),
            ("plan", "planning"),
            ("Memory Recall", "recall"),
            ("Guess", "guess"),
            ("None-Reflection", "none-reflection"),
            ("None - Self check", "none-self-check"),
            ("None", "none-other"),
            ("Summary", "none-summary"),
        ] {
            assert_eq!(reasoning_category(label), want, "{label}");
        }
    }
}
