//! Judge tasks: a model reads what agents wrote and labels it (LLM-as-judge metrics).
//!
//! Some of the papers' analyses need a model to read an agent's words: VisEscape §6.2's
//! reasoning units, COMMA §5.2's error types, MM-Escape's intent–outcome consistency
//! (§5.3) and post-game debriefing (§5.4). A [`JudgeTask`] is the unit of extension: it
//! picks what to judge in an episode's steps ([`Item`]s), builds the request (our own
//! words, never a paper's prompt), parses the reply into labelled [`Unit`]s, and
//! aggregates the rows. Worlds declare their paper's tasks (`World::judge_tasks`); the
//! runner's `escapade judge` finds a task by name, sends the calls, and stores one
//! [`JudgeRow`] per item in `<run-dir>/judge/<task>.jsonl`. No I/O happens here.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::action::truncate_chars;
use crate::{Action, Usage};

/// A request to the judge (or to a call made before it): our `system` instructions, then
/// `user`'s text. The settings every call shares — temperature 0, a seed, a token cap, a
/// verdict schema — are added by the runner where it is sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JudgeRequest {
    /// The instructions.
    pub system: String,
    /// The text to judge, with its context.
    pub user: String,
}

impl JudgeRequest {
    /// A request of `system` instructions and `user` text.
    pub fn new(system: impl Into<String>, user: impl Into<String>) -> Self {
        JudgeRequest {
            system: system.into(),
            user: user.into(),
        }
    }
}

/// Most characters of an action shown to the judge.
pub const MAX_ACTION_CHARS: usize = 300;
/// Most characters of an item's text sent to the judge by default; longer text is cut
/// (and the row says `truncated`). Reasoning of tens of thousands of characters is a
/// runaway reply, not a thought, and would only cost tokens.
pub const DEFAULT_MAX_CHARS: usize = 8_000;

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

/// `text` cut to `max` characters with a marker saying how many were left out, and
/// whether it was cut: what every task sends of a long text.
pub fn cut(text: &str, max: usize) -> (String, bool) {
    let chars = text.chars().count();
    if chars <= max {
        return (text.to_string(), false);
    }
    let kept: String = text.chars().take(max).collect();
    (
        format!("{kept}\n[… {} more characters not shown]", chars - max),
        true,
    )
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
    fn request(&self, item: &Item) -> JudgeRequest;
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
    fn prior(&self, item: &Item) -> Option<JudgeRequest> {
        let _ = item;
        None
    }
    /// The judge's request once the prior call answered `prior_reply`; by default
    /// [`request`](Self::request).
    fn request_after(&self, item: &Item, prior_reply: &str) -> JudgeRequest {
        let _ = prior_reply;
        self.request(item)
    }
    /// Completes a run's aggregate with what needs the number of episodes read.
    fn complete(&self, aggregate: &mut Aggregate, episodes: usize) {
        let _ = (aggregate, episodes);
    }
}

/// Category shares and compositions of labelled units; `known` categories — `(category,
/// name, short name)` — come first (VisEscape Fig. 7, Table 5; shared by every task).
pub fn aggregate_units(rows: &[&JudgeRow], known: &[(&str, &str, &str)]) -> Aggregate {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
