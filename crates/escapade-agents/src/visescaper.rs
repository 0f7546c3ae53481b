//! VisEscape's two agents: BaseAgent (§4.1) and VisEscaper (§5, App. D.2, Tables 17–20).
//!
//! Unlike [`crate::LlmAgent`], which keeps a chat, these agents send ONE prompt per step,
//! rebuilt from what they remember: the current observation (its pictures included), the
//! last `window` steps as text, and the available actions. That is the paper's protocol,
//! and what its ablations (Table 8) compare. VisEscaper adds two modules, each of which can
//! be switched off on its own:
//!
//! - **memory** (§5.1, D.2): after every 10th step a model call builds (the first time)
//!   or updates a written memory of the room from the last 10 steps — spatial memory
//!   (walls → objects), inspected and uninspected objects (exploration memory), and
//!   anything else worth keeping — and every step that was not navigation (salient action
//!   memory) is kept in full with its effect;
//! - **reasoning** (§5.2): the model thinks before it acts (`[THINK] … [ACTION] …`, the
//!   thought goes to the step row's `reasoning`), and after each step a short model call
//!   says what the action changed, which is attached to that step in later prompts.
//!
//! The agents are generic over any world with a closed action list (`Observation::actions`)
//! and fall back to the observation's text where there is none.
//!
//! A world that gives no system prompt gives whole prompts: each observation is the step
//! prompt and each re-ask message the retry prompt, laid out as the paper's agents lay
//! them out (VisEscape's default, App. A.5 Table 17: the instruction, `<Action Memory>`,
//! `<Recent actions…>`, `<Current Observation>`, … `[ACTION]`). The agents then send that
//! text as the one user message, the picture after it and no system message, as the
//! original does; VisEscaper adds what its modules add in the original — `<Memory>`
//! after the instruction, `<Your Thought and Action before this turn>` in place of the
//! previous action, and `[THINK]` before `[ACTION]` — and keeps only the `<Current
//! Observation>` of each step for its memory prompts. Memory and analysis calls
//! see text only: under `socratic=captions` (the paper's setup, §5.1) that text includes
//! the captions. All model calls of a turn add up in its usage and are recorded in its
//! `request` (the action call, with `memory`, `analysis` and `captions` sub-records).

use std::collections::BTreeMap;
use std::fmt;

use async_trait::async_trait;
use escapade_core::{Action, AgentTurn, Image, Observation, ToolSchema, Usage};
use escapade_llm::{ChatRequest, Client, ClientOptions, Completion, Message, Part, Role};
use serde_json::{Value, json};

use crate::config::{ESCAPER_KEYS, LlmConfig, RequestLog, bad, check_keys_of, parse, switch};
use crate::format::{self, is_answer_template};
use crate::record::{clip, summary};
use crate::socratic::Describer;
use crate::{AgentError, AsyncAgent, EpisodeStart, TurnInput};

/// Steps between memory updates; the first memory is built after this many (§5.1).
pub const MEMORY_EVERY: usize = 10;
/// Past steps shown in each prompt by default (§4.1: "the last 20 observations and
/// actions").
pub const DEFAULT_WINDOW: usize = 20;
/// Actions that only move the view (§6.1: "*inspect*, *turn*, *step back* are part of the
/// exploration process"); every other action goes to the salient action memory.
pub const DEFAULT_NAVIGATION: [&str; 3] = ["turn to", "inspect", "step back"];
/// Longest thought, action, analysis and memory kept from a reply, in characters.
pub const MAX_THOUGHT_CHARS: usize = 2000;
/// See [`MAX_THOUGHT_CHARS`].
pub const MAX_ACTION_CHARS: usize = 300;
/// See [`MAX_THOUGHT_CHARS`].
pub const MAX_ANALYSIS_CHARS: usize = 200;
/// See [`MAX_THOUGHT_CHARS`].
pub const MAX_MEMORY_CHARS: usize = 8000;
/// Bound on the `thought` of a schema-constrained reply.
pub const THOUGHT_MAX_LENGTH: u64 = 400;
/// Output cap of the post-action analysis (asked for under 10 words).
const ANALYSIS_MAX_TOKENS: u32 = 64;

/// The output cap of an analysis call when the acting calls' cap is `acting`: the lower
/// of the two, [`ANALYSIS_MAX_TOKENS`] when they send none.
fn analysis_max_tokens(acting: Option<u32>) -> u32 {
    acting.map_or(ANALYSIS_MAX_TOKENS, |m| m.min(ANALYSIS_MAX_TOKENS))
}

/// Which of the paper's agents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EscaperKind {
    /// BaseAgent (§4.1): memory and reasoning off by default.
    Base,
    /// VisEscaper (§5): memory and reasoning on by default.
    VisEscaper,
}

impl EscaperKind {
    /// The kind named by an agent spec (`base`, `visescaper`).
    pub fn from_spec(spec: &str) -> Option<Self> {
        match spec {
            "base" => Some(EscaperKind::Base),
            "visescaper" => Some(EscaperKind::VisEscaper),
            _ => None,
        }
    }
}

impl fmt::Display for EscaperKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EscaperKind::Base => "base",
            EscaperKind::VisEscaper => "visescaper",
        })
    }
}

/// Settings of an [`Escaper`].
#[derive(Debug, Clone, PartialEq)]
pub struct EscaperConfig {
    /// BaseAgent or VisEscaper (the name; the modules are set below).
    pub kind: EscaperKind,
    /// The shared model settings (model, re-asks, structured replies, sampling, images,
    /// request log, socratic mode). `history` and `protocol` are not used.
    pub llm: LlmConfig,
    /// The memory management module (§5.1): written memory and salient action memory.
    pub memory: bool,
    /// The reasoning module (§5.2): think before acting, analyse after.
    pub reasoning: bool,
    /// Past steps shown in each prompt.
    pub window: usize,
    /// Prefixes of navigation actions, kept out of the salient action memory.
    pub navigation: Vec<String>,
}

impl EscaperConfig {
    /// Settings of a `kind` agent on `model` with `options` (`-A key=value`, keys in
    /// [`ESCAPER_KEYS`] or client keys): `memory=on|off`, `reasoning=on|off`, `window=N`,
    /// `navigation=a,b,…` and the shared keys of [`LlmConfig`].
    pub fn from_options(
        kind: EscaperKind,
        model: &str,
        options: &BTreeMap<String, String>,
    ) -> Result<Self, AgentError> {
        check_keys_of(options, &ESCAPER_KEYS)?;
        let on = kind == EscaperKind::VisEscaper;
        let mut config = EscaperConfig {
            kind,
            llm: LlmConfig::read(model, options)?,
            memory: on,
            reasoning: on,
            window: DEFAULT_WINDOW,
            navigation: DEFAULT_NAVIGATION.iter().map(|s| s.to_string()).collect(),
        };
        for (key, value) in options {
            let v = value.as_str();
            match key.as_str() {
                "memory" => config.memory = switch(key, v)?,
                "reasoning" => config.reasoning = switch(key, v)?,
                "window" => config.window = parse(key, v, "a whole number of steps")?,
                "navigation" => {
                    config.navigation = v
                        .split(',')
                        .map(|p| p.trim().to_ascii_lowercase())
                        .filter(|p| !p.is_empty())
                        .collect();
                    if config.navigation.iter().any(|p| p.len() > 100) {
                        return Err(bad(key, v, "a comma-separated list of action prefixes"));
                    }
                }
                _ => {}
            }
        }
        Ok(config)
    }

    /// What this agent's requests carry ([`LlmConfig::sent`]): its acting calls', and
    /// the shorter output cap of its post-action analysis (when `reasoning` is on).
    pub fn sent(&self, client: &ClientOptions) -> BTreeMap<String, String> {
        let mut out = self.llm.sent(client);
        if self.reasoning {
            let analysis = self
                .llm
                .max_tokens_sent(Some(analysis_max_tokens(self.llm.max_tokens)), client);
            if let Some(cap) = out.get_mut("max_tokens") {
                *cap = format!("{cap}; analysis calls: {analysis}");
            }
        }
        out
    }

    /// The name in run directories and reports: `base:<model>`, `visescaper:<model>`.
    pub fn name(&self) -> String {
        format!("{}:{}", self.kind, self.llm.model)
    }

    /// Whether `action` only moves the view (starts with a navigation prefix as a whole
    /// word).
    pub fn is_navigation(&self, action: &str) -> bool {
        let a = action.trim().to_ascii_lowercase();
        self.navigation.iter().any(|p| {
            a.strip_prefix(p.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
        })
    }
}

/// A model reply read into a thought and an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The text before the action (after `[THINK]` when there is one), if any.
    pub thought: Option<String>,
    /// The action text.
    pub action: String,
}

/// Reads a text reply (Table 17's format): the action is the text after the last
/// `[ACTION]`, or else the whole reply; within it an `<ANSWER>…</ANSWER>` is taken as it
/// is, and otherwise the first non-empty line, without quotes or Markdown emphasis and
/// matched to a listed action regardless of case and a final period. The thought is the
/// text between `[THINK]` and `[ACTION]` (or all the text before `[ACTION]`; or, in a
/// reply cut off before its `[ACTION]`, all the text after `[THINK]`). Never fails: what
/// cannot be read is passed on for the world's parser to explain.
pub fn read_reply(text: &str, actions: Option<&[String]>) -> Reply {
    const ACTION: &str = "[action]";
    const THINK: &str = "[think]";
    // ASCII lowercasing keeps byte offsets, and the markers are ASCII: the offsets found
    // in `lower` are character boundaries of `text`
    let lower = text.to_ascii_lowercase();
    let (before, candidate) = match lower.rfind(ACTION) {
        Some(i) => (&text[..i], &text[i + ACTION.len()..]),
        None if lower.contains(THINK) => (text, text),
        None => ("", text),
    };
    let thought = match before.to_ascii_lowercase().find(THINK) {
        Some(j) => &before[j + THINK.len()..],
        None => before,
    };
    let thought = thought.trim().trim_start_matches(':').trim();
    Reply {
        thought: (!thought.is_empty()).then(|| clip(thought, MAX_THOUGHT_CHARS)),
        action: clip(&pick_action(candidate, actions), MAX_ACTION_CHARS),
    }
}

/// The action within the text after `[ACTION]` (see [`read_reply`]).
fn pick_action(candidate: &str, actions: Option<&[String]>) -> String {
    let lower = candidate.to_ascii_lowercase();
    if let Some(start) = lower.rfind("<answer>")
        && let Some(len) = lower[start..].find("</answer>")
    {
        let inner = candidate[start + "<answer>".len()..start + len].trim();
        return format!("<ANSWER>{inner}</ANSWER>");
    }
    let line = candidate
        .trim_start_matches([':', ' ', '\t'])
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let line =
        line.trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | '*') || c.is_whitespace());
    let bare = line.trim_end_matches('.').trim();
    if let Some(listed) = actions
        .unwrap_or_default()
        .iter()
        .find(|a| a.trim().eq_ignore_ascii_case(line) || a.trim().eq_ignore_ascii_case(bare))
    {
        return listed.clone();
    }
    line.to_string()
}

/// Reads a schema-constrained reply `{"thought"?, "action"}`; anything else is read as
/// text.
fn read_structured(text: &str, actions: Option<&[String]>) -> (Option<String>, Action) {
    match serde_json::from_str::<Value>(format::unfence(text)) {
        Ok(Value::Object(map)) => {
            let thought = map
                .get("thought")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(|t| clip(t, MAX_THOUGHT_CHARS));
            (thought, format::read_structured(text))
        }
        _ => {
            let r = read_reply(text, actions);
            (r.thought, Action::text(r.action))
        }
    }
}

/// The observation text without the lines that only list available actions, nor the
/// header line (ending in `:`) just above such a list: the prompt lists the actions once,
/// in its own section. This is the "scene" kept for past steps.
fn scene_text(text: &str, actions: Option<&[String]>) -> String {
    let Some(actions) = actions.filter(|a| !a.is_empty()) else {
        return text.trim().to_string();
    };
    let listed = |line: &str| {
        let l = line
            .trim()
            .trim_start_matches(|c: char| {
                c.is_ascii_digit() || matches!(c, '-' | '*' | '•' | '.' | ')')
            })
            .trim();
        !l.is_empty() && actions.iter().any(|a| a.trim() == l)
    };
    let lines: Vec<&str> = text.lines().collect();
    let dropped: Vec<bool> = lines.iter().map(|l| listed(l)).collect();
    let kept: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|&(i, line)| {
            let header = line.trim_end().ends_with(':') && dropped.get(i + 1) == Some(&true);
            !dropped[i] && !header
        })
        .map(|(_, line)| *line)
        .collect();
    kept.join("\n").trim().to_string()
}

/// What a whole prompt says between `<Current Observation>` and `</Current Observation>`
/// (the scene a step's log keeps), or all of it when it has no such section.
fn current_observation(text: &str) -> String {
    const OPEN: &str = "<Current Observation>";
    const CLOSE: &str = "</Current Observation>";
    text.find(OPEN)
        .and_then(|i| {
            let rest = &text[i + OPEN.len()..];
            rest.find(CLOSE).map(|j| rest[..j].trim().to_string())
        })
        .unwrap_or_else(|| text.trim().to_string())
}

/// `text` with the first section from `open` to `close` (both included) replaced by
/// `with`; `text` itself when it has no such section.
fn replace_section(text: &str, open: &str, close: &str, with: &str) -> String {
    let Some(i) = text.find(open) else {
        return text.to_string();
    };
    let Some(j) = text[i..].find(close) else {
        return text.to_string();
    };
    let end = i + j + close.len();
    format!("{}{with}{}", &text[..i], &text[end..])
}

/// One finished step, as later prompts show it.
#[derive(Debug, Clone)]
struct Log {
    step: u32,
    /// What the agent saw before acting (text, with descriptions of pictures).
    scene: String,
    action: String,
    /// What the action changed (post-action analysis), when reasoning is on.
    analysis: Option<String>,
}

impl Log {
    /// Table 18's log line: observation, then action and its effect.
    fn render(&self) -> String {
        let mut s = format!(
            "Step {}\nObservation: {}\nAction: {}",
            self.step, self.scene, self.action
        );
        if let Some(a) = &self.analysis {
            s.push_str(&format!(" - {a}"));
        }
        s
    }
}

/// The observation of the current turn, as described for the model.
#[derive(Debug, Clone, Default)]
struct Current {
    /// The whole text (a whole prompt, when the world gives those).
    text: String,
    scene: String,
    images: Vec<Image>,
    actions: Option<Vec<String>>,
}

/// BaseAgent or VisEscaper (see the module docs). One per episode, or reuse: `reset`
/// clears it.
pub struct Escaper {
    config: EscaperConfig,
    client: Client,
    describer: Describer,
    seed: u64,
    system: String,
    /// Whether the system prompt was logged already (delta log).
    system_logged: bool,
    logs: Vec<Log>,
    memory: Option<String>,
    /// Number of logs the memory was last built from.
    memorised: usize,
    /// The last turn's thought and action (shown in the next prompt when reasoning).
    previous: Option<String>,
    /// The step taken last (scene and action), logged when the next turn starts.
    pending: Option<Log>,
    current: Current,
    requests: u64,
    /// Answers the model calls instead of `client` while an interrupted episode is
    /// replayed ([`AsyncAgent::replay_with`]).
    replay: Option<Client>,
    /// The records of this step's side calls (analysis, memory, captions), added to the
    /// request record of every turn of the step: the runner keeps a re-asked step's last
    /// turn only, and its row must still say what the step asked the model.
    side_records: Vec<(&'static str, Value)>,
}

impl Escaper {
    /// An agent with `config` talking to `client`.
    pub fn new(config: EscaperConfig, client: Client) -> Self {
        Escaper {
            describer: Describer::new(&config.llm, None),
            config,
            client,
            seed: 0,
            system: String::new(),
            system_logged: false,
            logs: Vec::new(),
            memory: None,
            memorised: 0,
            previous: None,
            pending: None,
            current: Current::default(),
            requests: 0,
            replay: None,
            side_records: Vec::new(),
        }
    }

    /// The client the next model call goes to.
    fn model(&self) -> Client {
        self.replay.clone().unwrap_or_else(|| self.client.clone())
    }

    /// Captions pictures with `client` (`socratic=captions` with a `captioner`).
    pub fn with_captioner(mut self, client: Client) -> Self {
        self.describer.set_captioner(client);
        self
    }

    /// The settings.
    pub fn config(&self) -> &EscaperConfig {
        &self.config
    }

    /// Whether the world gives whole prompts (no system prompt; see the module docs).
    fn whole(&self) -> bool {
        self.system.trim().is_empty()
    }

    /// One model call with the world's system prompt (when it has one) and one user
    /// message.
    async fn call(
        &mut self,
        parts: Vec<Part>,
        schema: Option<Value>,
        max_tokens: Option<u32>,
    ) -> Result<(ChatRequest, Completion), AgentError> {
        let mut messages = Vec::new();
        if !self.whole() {
            messages.push(Message::text(Role::System, self.system.clone()));
        }
        messages.push(Message {
            role: Role::User,
            parts,
            tool_calls: Vec::new(),
            tool_call_id: None,
        });
        let request = ChatRequest {
            messages,
            response_schema: schema,
            temperature: self.config.llm.temperature,
            seed: Some(self.seed.wrapping_add(self.requests)),
            max_tokens,
            ..ChatRequest::default()
        };
        self.requests += 1;
        let completion = self.model().chat(&request).await?;
        Ok((request, completion))
    }

    /// Adds this step's side-call records to `turn`'s request record.
    fn add_side_records(&self, turn: &mut AgentTurn) {
        if let Some(record) = turn.request.as_mut() {
            for (key, value) in &self.side_records {
                record[*key] = value.clone();
            }
        }
    }

    /// A sub-record of a memory or analysis call: the request summary and the reply.
    fn sub_record(&self, request: &ChatRequest, reply: &str) -> Value {
        let mut record = summary(request, self.config.llm.log);
        if self.config.llm.log == RequestLog::Delta {
            record["prompt"] = request
                .messages
                .last()
                .map(Message::joined_text)
                .unwrap_or_default()
                .into();
        }
        record["reply"] = reply.into();
        record
    }

    /// Post-action analysis (§5.2, Table 20): what the last action changed.
    async fn analyse(
        &mut self,
        before: &str,
        action: &str,
        feedback: &str,
        after: &str,
    ) -> Result<(Option<String>, Usage, Value), AgentError> {
        let mut prompt = format!(
            "<Previous observation>\n{before}\n</Previous observation>\n\n\
             <Your action>\n{action}\n</Your action>\n\n"
        );
        let feedback = feedback.trim();
        if !feedback.is_empty() && !after.contains(feedback) {
            prompt.push_str(&format!(
                "<Game's answer>\n{feedback}\n</Game's answer>\n\n"
            ));
        }
        prompt.push_str(&format!(
            "<Current observation>\n{after}\n</Current observation>\n\n\
             The previous observation is what you saw before your action; the current \
             observation is what you see after it. Compare the two and state what your \
             action changed, or that it changed nothing. Be definite, not descriptive, and \
             use fewer than 10 words.\n\n[ANALYSIS]"
        ));
        let max_tokens = Some(analysis_max_tokens(self.config.llm.max_tokens));
        let (request, completion) = self
            .call(vec![Part::Text { text: prompt }], None, max_tokens)
            .await?;
        let text = completion.response.text.trim();
        let text = match text.to_ascii_lowercase().find("[analysis]") {
            Some(i) => &text[i + "[analysis]".len()..],
            None => text,
        };
        let words: Vec<&str> = text.split_whitespace().take(30).collect();
        let analysis = (!words.is_empty()).then(|| clip(&words.join(" "), MAX_ANALYSIS_CHARS));
        let record = self.sub_record(&request, &completion.response.text);
        Ok((analysis, completion.usage, record))
    }

    /// Memory management (§5.1, Tables 18–19): builds or updates the written memory from
    /// the last [`MEMORY_EVERY`] steps.
    async fn manage_memory(&mut self) -> Result<(Usage, Value), AgentError> {
        let from = self.logs.len().saturating_sub(MEMORY_EVERY);
        let logs: Vec<String> = self.logs[from..].iter().map(Log::render).collect();
        let logs = logs.join("\n\n");
        let format = "[SPATIAL MEMORY] {\"<wall>\": {\"objects\": [\"<object>\", ...]}, ...}\n\
                      [INSPECTED OBJECTS] [{\"<object>\": {\"state\": \"\", \
                      \"characteristics\": \"\", \"additional info\": \"\"}}, ...]\n\
                      [UNINSPECTED OBJECTS] [\"<object>\", ...]\n\
                      [ADDITIONAL MEMORY] [1. <note>, 2. <note>, ...]";
        let prompt = match &self.memory {
            None => format!(
                "<Last {n} steps (oldest first)>\n{logs}\n</Last {n} steps>\n\n\
                 Each step shows what you saw, the action you took and, when known, what \
                 it changed.\n\n\
                 Task: write down your memory of the room from these steps.\n\
                 1. Under [SPATIAL MEMORY], list the objects on each wall (direction).\n\
                 2. Under [INSPECTED OBJECTS], describe each object you looked at closely \
                 with \"inspect <object>\": its state, what it looks like, what else you \
                 learned.\n\
                 3. Under [UNINSPECTED OBJECTS], list the objects you have seen but not \
                 inspected yet.\n\
                 4. Under [ADDITIONAL MEMORY], note anything else that may help solve a \
                 later puzzle (codes, clues, symbols, failed attempts).\n\n\
                 Reply in exactly this form, with no other text:\n{format}",
                n = self.logs.len() - from,
            ),
            Some(memory) => format!(
                "<Current memory>\n{memory}\n</Current memory>\n\n\
                 <Last {n} steps (oldest first)>\n{logs}\n</Last {n} steps>\n\n\
                 Each step shows what you saw, the action you took and, when known, what \
                 it changed.\n\n\
                 Task: update your memory of the room with these steps.\n\
                 1. Move every object you inspected in these steps from [UNINSPECTED \
                 OBJECTS] to [INSPECTED OBJECTS], with what you learned.\n\
                 2. Add what the steps show and the memory lacks, and correct what has \
                 changed (the states of objects).\n\
                 3. Under [ADDITIONAL MEMORY], note anything else that may help solve a \
                 later puzzle.\n\n\
                 Reply with the whole updated memory in exactly this form, with no other \
                 text:\n{format}",
                n = self.logs.len() - from,
            ),
        };
        let max_tokens = self.config.llm.max_tokens;
        let (request, completion) = self
            .call(vec![Part::Text { text: prompt }], None, max_tokens)
            .await?;
        let reply = format::unfence(&completion.response.text);
        let reply = match reply.to_ascii_lowercase().find("[spatial memory]") {
            Some(i) => &reply[i..],
            None => reply,
        }
        .trim();
        // an empty reply keeps the memory there was
        if !reply.is_empty() {
            self.memory = Some(clip(reply, MAX_MEMORY_CHARS));
        }
        self.memorised = self.logs.len();
        let record = self.sub_record(&request, &completion.response.text);
        Ok((completion.usage, record))
    }

    /// The memory sections of a prompt: written memory and salient actions (D.2).
    fn memory_sections(&self) -> String {
        if !self.config.memory {
            return String::new();
        }
        let mut s = String::new();
        if let Some(memory) = &self.memory {
            s.push_str(&format!("<Memory>\n{memory}\n</Memory>\n\n"));
        }
        let salient: Vec<String> = self
            .logs
            .iter()
            .filter(|l| !self.config.is_navigation(&l.action))
            .map(|l| match &l.analysis {
                Some(a) => format!("- step {}: {} - {a}", l.step, l.action),
                None => format!("- step {}: {}", l.step, l.action),
            })
            .collect();
        if !salient.is_empty() {
            s.push_str(&format!(
                "<Action memory>\nEvery action you took other than moving around, oldest \
                 first, with what it changed:\n{}\n</Action memory>\n\n",
                salient.join("\n")
            ));
        }
        s
    }

    /// The available actions (and how to fill in an answer template), ending in a blank
    /// line; empty when the world lists none.
    fn actions_section(&self) -> String {
        let Some(actions) = self.current.actions.as_ref().filter(|a| !a.is_empty()) else {
            return String::new();
        };
        let list: Vec<String> = actions.iter().map(|a| format!("- {a}")).collect();
        let mut s = format!(
            "<Available actions>\n{}\n</Available actions>\n",
            list.join("\n")
        );
        if actions.iter().any(|a| is_answer_template(a)) {
            s.push_str(
                "<ANSWER> enters an answer into the lock you are facing: write \
                 <ANSWER>your answer</ANSWER> with your answer in place of `your answer`.\n",
            );
        }
        s.push('\n');
        s
    }

    /// How the reply must look.
    fn reply_format(&self, think: bool) -> String {
        let listed = self.current.actions.as_ref().is_some_and(|a| !a.is_empty());
        let answer = self
            .current
            .actions
            .iter()
            .flatten()
            .any(|a| is_answer_template(a));
        let what = match (listed, answer) {
            (true, true) => {
                "one of the available actions, exactly as listed, or \
                             <ANSWER>your answer</ANSWER>"
            }
            (true, false) => "one of the available actions, exactly as listed",
            (false, _) => "one action, in the form the game expects",
        };
        if self.config.llm.structured_on() {
            return if think {
                format!(
                    "Think first, then act. Reply with a JSON object {{\"thought\": \"<your \
                     reasoning>\", \"action\": \"<{what}>\"}}."
                )
            } else {
                format!("Reply with a JSON object {{\"action\": \"<{what}>\"}}.")
            };
        }
        if think {
            format!(
                "Think first, then act. Write your thought after [THINK] and your action \
                 after [ACTION]; after [ACTION] write only {what}, nothing else.\n\n\
                 [THINK]\n\n[ACTION]"
            )
        } else {
            format!("Reply with [ACTION] followed by only {what}, nothing else.\n\n[ACTION]")
        }
    }

    /// The schema of a constrained reply, with a `thought` first when thinking.
    fn schema(&self, observation: &Observation, tools: &[ToolSchema], think: bool) -> Value {
        let mut schema = format::action_schema(observation, tools);
        if think && let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
            let mut with = serde_json::Map::new();
            with.insert(
                "thought".into(),
                json!({"type": "string", "maxLength": THOUGHT_MAX_LENGTH}),
            );
            with.extend(std::mem::take(props));
            *props = with;
            schema["required"] = json!(["thought", "action"]);
        }
        schema
    }

    /// The world's whole prompt `text` with what VisEscaper's modules add (see the module
    /// docs); BaseAgent's is `text` as it is.
    fn whole_prompt(&self, text: &str, think: bool) -> String {
        let mut out = text.to_string();
        if self.config.memory
            && let Some(memory) = &self.memory
        {
            // after the instruction, the first line
            let at = out.find('\n').map_or(out.len(), |i| i + 1);
            out.insert_str(at, &format!("<Memory>\n{memory}</Memory>\n"));
        }
        if think {
            if let Some(previous) = &self.previous {
                out = replace_section(
                    &out,
                    "<Your action before this turn>",
                    "</Your action before this turn>",
                    &format!(
                        "<Your Thought and Action before this turn>{}</Your Thought and \
                         Action before this turn>",
                        previous.replace('\n', " ")
                    ),
                );
            }
            let body = out.trim_end();
            let body = body.strip_suffix("[ACTION]").unwrap_or(body).trim_end();
            out = format!(
                "{body}\nBefore you act, think first, and then act: put your thought in \
                 section [THINK] and your action in section [ACTION].\n[THINK]\n[ACTION]"
            );
        }
        out
    }

    /// The step prompt (§4.1; Table 17 with the modules on): the parts of the one user
    /// message, pictures within the current observation.
    fn step_parts(&self) -> Result<Vec<Part>, AgentError> {
        if self.whole() {
            let text = self.whole_prompt(&self.current.text, self.config.reasoning);
            let mut parts = vec![Part::Text { text }];
            for im in &self.current.images {
                parts.push(self.config.llm.pictures.part(&im.sha256, &im.png)?);
            }
            return Ok(parts);
        }
        let mut head = self.memory_sections();
        let window = self.logs.len().saturating_sub(self.config.window);
        let recent: Vec<String> = self.logs[window..].iter().map(Log::render).collect();
        if !recent.is_empty() {
            head.push_str(&format!(
                "<Recent steps (oldest first)>\n{}\n</Recent steps>\n\n",
                recent.join("\n\n")
            ));
        }
        if self.config.reasoning
            && let Some(previous) = &self.previous
        {
            head.push_str(&format!(
                "<Your thought and action before this turn>\n{previous}\n</Your thought and \
                 action before this turn>\n\n"
            ));
        }
        head.push_str(&format!("<Current observation>\n{}", self.current.scene));
        let tail = format!(
            "\n</Current observation>\n\n{}{}",
            self.actions_section(),
            self.reply_format(self.config.reasoning)
        );
        let mut parts = vec![Part::Text { text: head }];
        for im in &self.current.images {
            parts.push(self.config.llm.pictures.part(&im.sha256, &im.png)?);
        }
        match parts.last_mut() {
            Some(Part::Text { text }) => text.push_str(&tail),
            _ => parts.push(Part::Text { text: tail }),
        }
        Ok(parts)
    }

    /// The retry prompt (Table 17, "Retry"): the previous action could not be used.
    fn retry_parts(&self, error: &str) -> Vec<Part> {
        if self.whole() {
            // the world's retry prompt, with the memory the original adds to it
            return vec![Part::Text {
                text: self.whole_prompt(error, false),
            }];
        }
        let previous = self.pending.as_ref().map_or("", |p| p.action.as_str());
        let listed = self.current.actions.as_ref().is_some_and(|a| !a.is_empty());
        let advice = if listed {
            "It is not one of the actions available now. Using your memory, choose an \
             available action that brings you closer to what you meant to do."
        } else {
            "Using your memory, choose an action in the form the game expects that brings \
             you closer to what you meant to do."
        };
        let text = format!(
            "{}<Current observation>\n{}\n</Current observation>\n\n\
             <Your previous action>\n{previous}\n</Your previous action>\n\n\
             The game could not use that action: {}\n{advice}\n\n{}{}",
            self.memory_sections(),
            self.current.scene,
            clip(error.trim(), MAX_ACTION_CHARS),
            self.actions_section(),
            self.reply_format(false)
        );
        vec![Part::Text { text }]
    }

    /// Sends a step or retry prompt and reads the reply into a turn.
    async fn decide(
        &mut self,
        parts: Vec<Part>,
        input: &TurnInput<'_>,
        think: bool,
    ) -> Result<AgentTurn, AgentError> {
        let structured = self.config.llm.structured_on();
        let schema = structured.then(|| self.schema(input.observation, input.tools, think));
        let max_tokens = self.config.llm.max_tokens;
        let (request, completion) = self.call(parts, schema, max_tokens).await?;
        let text = completion.response.text.clone();
        let actions = self.current.actions.as_deref();
        let (thought, action) = if structured {
            read_structured(&text, actions)
        } else {
            let r = read_reply(&text, actions);
            (r.thought, Action::text(r.action))
        };
        let mut record = summary(&request, self.config.llm.log);
        if self.config.llm.log == RequestLog::Delta {
            if !self.system_logged {
                record["system"] = self.system.clone().into();
            }
            let user = request.messages.last();
            record["prompt"] = user.map(Message::joined_text).unwrap_or_default().into();
            record["images"] = user
                .map(|m| {
                    m.parts
                        .iter()
                        .filter_map(|p| match p {
                            Part::Image { sha256, .. } => Some(Value::from(sha256.clone())),
                            Part::Text { .. } => None,
                        })
                        .collect()
                })
                .unwrap_or_default();
        }
        self.system_logged = true;
        if let Some(schema) = &request.response_schema {
            record["response_schema"] = schema.clone();
        }
        let action_text = match &action {
            Action::Text { text } => text.clone(),
            other => serde_json::to_string(other).unwrap_or_default(),
        };
        self.previous = Some(match &thought {
            Some(t) if think => format!("[THINK] {t}\n[ACTION] {action_text}"),
            _ => format!("[ACTION] {action_text}"),
        });
        if let Some(p) = self.pending.as_mut() {
            p.action = action_text;
        }
        crate::llm::note_dropped(&mut record, &completion);
        // the step's reasoning is the paper's [THINK]; a reasoning model's own thinking
        // beside it is kept in the record
        let thinking = completion
            .response
            .reasoning
            .filter(|r| !r.trim().is_empty());
        let reasoning = match (thought.filter(|t| !t.trim().is_empty()), thinking) {
            (Some(t), Some(model)) => {
                record["thinking"] = model.into();
                Some(t)
            }
            (t, model) => t.or(model),
        };
        Ok(AgentTurn {
            action,
            request: Some(record),
            raw_response: Some(text),
            reasoning,
            usage: completion.usage,
        })
    }
}

#[async_trait]
impl AsyncAgent for Escaper {
    fn name(&self) -> String {
        self.config.name()
    }

    async fn reset(&mut self, start: EpisodeStart<'_>) -> Result<(), AgentError> {
        self.seed = start.seed;
        self.system = start.system_prompt.to_string();
        self.system_logged = false;
        self.logs.clear();
        self.memory = None;
        self.memorised = 0;
        self.previous = None;
        self.pending = None;
        self.current = Current::default();
        self.requests = 0;
        self.side_records.clear();
        self.describer.reset(start.seed);
        Ok(())
    }

    async fn act(&mut self, input: TurnInput<'_>) -> Result<AgentTurn, AgentError> {
        let mut usage = Usage::default();
        let described = self
            .describer
            .describe(&self.model(), input.observation)
            .await?;
        usage.add(&described.usage);
        let actions = input.observation.actions.clone();
        let scene = if self.whole() {
            current_observation(&described.text)
        } else {
            scene_text(&described.text, actions.as_deref())
        };
        let mut analysis_record = None;
        if let Some(mut log) = self.pending.take() {
            if self.config.reasoning {
                let feedback = input.last.map_or("", |s| s.feedback.as_str());
                let (analysis, u, record) = self
                    .analyse(&log.scene, &log.action, feedback, &scene)
                    .await?;
                usage.add(&u);
                log.analysis = analysis;
                analysis_record = Some(record);
            }
            self.logs.push(log);
        }
        let mut memory_record = None;
        let n = self.logs.len();
        if self.config.memory
            && n >= MEMORY_EVERY
            && n.is_multiple_of(MEMORY_EVERY)
            && n > self.memorised
        {
            let (u, record) = self.manage_memory().await?;
            usage.add(&u);
            memory_record = Some(record);
        }
        self.current = Current {
            text: described.text.clone(),
            scene: scene.clone(),
            images: described.images,
            actions,
        };
        self.pending = Some(Log {
            step: input.step,
            scene,
            action: String::new(),
            analysis: None,
        });
        self.side_records.clear();
        if let Some(a) = analysis_record {
            self.side_records.push(("analysis", a));
        }
        if let Some(m) = memory_record {
            self.side_records.push(("memory", m));
        }
        if !described.captions.is_empty() {
            self.side_records
                .push(("captions", Value::Array(described.captions)));
        }
        let parts = self.step_parts()?;
        let mut turn = self.decide(parts, &input, self.config.reasoning).await?;
        usage.add(&turn.usage);
        turn.usage = usage;
        self.add_side_records(&mut turn);
        Ok(turn)
    }

    async fn reask(&mut self, error: &str, input: TurnInput<'_>) -> Result<AgentTurn, AgentError> {
        let parts = self.retry_parts(error);
        let mut turn = self.decide(parts, &input, false).await?;
        self.add_side_records(&mut turn);
        Ok(turn)
    }

    fn reask_limit(&self) -> Option<u32> {
        self.config.llm.reask
    }

    fn uses_tools(&self) -> bool {
        self.config.llm.structured_on()
    }

    fn replay_with(&mut self, client: Option<Client>) {
        self.describer.replay_with(client.clone());
        self.replay = client;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn opts(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn listed() -> Vec<String> {
        [
            "turn to north",
            "open wardrobe",
            "<ANSWER>your answer</ANSWER>",
        ]
        .map(String::from)
        .to_vec()
    }

    #[test]
    fn replies_are_read_into_thought_and_action() {
        let a = listed();
        let r = read_reply(
            "[THINK] The wardrobe is shut.\n[ACTION] open wardrobe",
            Some(&a),
        );
        assert_eq!(r.thought.as_deref(), Some("The wardrobe is shut."));
        assert_eq!(r.action, "open wardrobe");
        // the last [ACTION] wins; case, quotes, emphasis and a final period are forgiven
        let r = read_reply(
            "I could [ACTION] anything.\n**[Action]:** \"Turn to North.\"\nmore",
            Some(&a),
        );
        assert_eq!(r.action, "turn to north");
        assert_eq!(r.thought.as_deref(), Some("I could [ACTION] anything.\n**"));
        let r = read_reply(
            "[THINK] try 8056 [ACTION] <answer> 8056 </answer>",
            Some(&a),
        );
        assert_eq!(r.action, "<ANSWER>8056</ANSWER>");
        // no marker: the whole reply, an answer within it, or its first line
        assert_eq!(
            read_reply("open wardrobe", Some(&a)).action,
            "open wardrobe"
        );
        assert_eq!(
            read_reply("so <ANSWER>12</ANSWER>", None).action,
            "<ANSWER>12</ANSWER>"
        );
        assert_eq!(
            read_reply("\n\nlook around\nnow", None).action,
            "look around"
        );
        assert_eq!(
            read_reply("", Some(&a)),
            Reply {
                thought: None,
                action: String::new()
            }
        );
        assert_eq!(read_reply("[ACTION]", None).action, "");
        let cut = read_reply("[THINK] the key opens", Some(&a));
        assert_eq!(cut.thought.as_deref(), Some("the key opens"));
        assert_eq!(
            cut.action, "[THINK] the key opens",
            "the world's parser explains"
        );
        let huge = "x".repeat(100_000);
        assert!(read_reply(&huge, None).action.chars().count() < MAX_ACTION_CHARS + 40);
    }

    #[test]
    fn observation_scene_drops_the_action_list() {
        let a = listed();
        let text = "North side of the room.\nYou see a wardrobe.\nActions:\n- turn to north\n\
                    2. open wardrobe\nInventory: brass key";
        assert_eq!(
            scene_text(text, Some(&a)),
            "North side of the room.\nYou see a wardrobe.\nInventory: brass key"
        );
        let text = "Inventory:\nbrass key\nturn to north";
        assert_eq!(scene_text(text, Some(&a)), "Inventory:\nbrass key");
        assert_eq!(scene_text(" x ", None), "x");
    }

    #[test]
    fn options_set_the_modules() {
        let base = EscaperConfig::from_options(EscaperKind::Base, "openai/x", &opts(&[])).unwrap();
        assert!(!base.memory && !base.reasoning);
        assert_eq!(base.window, DEFAULT_WINDOW);
        assert_eq!(base.name(), "base:openai/x");
        let vis = EscaperConfig::from_options(
            EscaperKind::VisEscaper,
            "openai/x",
            &opts(&[
                ("memory", "off"),
                ("window", "5"),
                ("navigation", "Look, walk to"),
            ]),
        )
        .unwrap();
        assert!(!vis.memory && vis.reasoning);
        assert_eq!(vis.window, 5);
        assert_eq!(vis.navigation, ["look", "walk to"]);
        assert!(vis.is_navigation("walk to door") && vis.is_navigation("LOOK"));
        assert!(!vis.is_navigation("lookup") && !vis.is_navigation("open door"));
        assert_eq!(vis.name(), "visescaper:openai/x");
        for (k, v) in [
            ("history", "full"),
            ("protocol", "tools"),
            ("memory", "2"),
            ("window", "-1"),
        ] {
            let e = EscaperConfig::from_options(EscaperKind::Base, "openai/x", &opts(&[(k, v)]));
            assert!(e.is_err(), "{k}={v}");
        }
        let e =
            EscaperConfig::from_options(EscaperKind::Base, "openai/x", &opts(&[("memroy", "on")]))
                .unwrap_err()
                .to_string();
        assert!(
            e.contains("unknown option `memroy`") && e.contains("navigation"),
            "{e}"
        );
    }

    proptest! {
        #[test]
        fn reading_never_panics(s in "(\\[ACTION\\]|\\[THINK\\]|<ANSWER>|</ANSWER>|é|.){0,60}") {
            let a = listed();
            let _ = read_reply(&s, Some(&a));
            let _ = read_structured(&s, Some(&a));
            let _ = scene_text(&s, Some(&a));
        }
    }
}
