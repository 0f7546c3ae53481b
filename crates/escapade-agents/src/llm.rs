//! The generic LLM agent: one conversation per episode over any world's interface.
//!
//! The conversation is kept in a neutral form — environment entries (observation text
//! and images, or a re-ask message) and model entries (text, reasoning, tool calls) —
//! and assembled into provider messages at each request, after the [`History`] mode has
//! chosen which past exchanges to send. Assembly keeps the tool-calling invariants every
//! provider enforces: each call the model made is answered by a tool message, even when
//! the exchange that answered it was trimmed away. By default images are sent for the
//! current exchange only; earlier ones are replaced by a short marker, which keeps long
//! visual episodes within context (the text of every observation is kept). With
//! `history_images=all` (MM-Escape's client resends every frame) the pictures of every
//! exchange sent go too, newest first, as long as they fit the request's image budget;
//! older ones become the marker and the request's record says how many
//! ([`IMAGES_LEFT_OUT`]). Pictures are encoded once, as they arrive, in the format the
//! config asks for (PNG, or JPEG as both originals send them). When a provider still
//! refuses a prompt as longer than the model's context, the older half of the past
//! exchanges is dropped for the rest of the episode and the request is sent again.
//! Observations pass through the [`Describer`] first (socratic mode, `images=off`), so a
//! picture replaced by text stays in the history as text.
//!
//! A reply the world refuses is re-asked with the world's message. By default
//! ([`ReaskHistory::Drop`], the originals' way) the refused reply and its re-ask leave the
//! conversation again: a re-ask request carries only the latest refusal and its message,
//! and once a reply is taken, later requests see the observation and that reply alone.

use async_trait::async_trait;
use escapade_core::{AgentTurn, Image, ToolSchema};
use escapade_llm::{ChatRequest, Client, Message, Part, Role, ToolCall};
use serde_json::{Value, json};

use crate::config::{HistoryImages, LlmConfig, Protocol, ReaskHistory, RequestLog};
use crate::format;
use crate::record::digest;
use crate::socratic::Describer;
use crate::{AgentError, AsyncAgent, EpisodeStart, TurnInput};

/// What a tool call that was not executed is told: the world took one action per turn,
/// or answered fewer actions than the reply made calls.
const NOT_RUN: &str = "Not executed: only the first function call of a reply is used.";
/// Most characters of one reply kept in the conversation sent back to the model. A
/// reply of a megabyte (a runaway model) would otherwise be re-sent with every later
/// request under `history=full`; the step row still holds all of it.
pub const MAX_HISTORY_REPLY_CHARS: usize = 16_000;
/// The key of a request record that says how many characters of the reply were left out
/// of the history (the runner warns once per run when it sees it).
pub const HISTORY_CUT: &str = "history_cut_chars";
/// The key of a request record that says how many of its pictures the client replaced
/// by a placeholder to fit the provider ([`escapade_llm::pictures`]; the runner warns
/// once per run when it sees it).
pub const PICTURES_DROPPED: &str = "pictures_dropped";

/// Notes in a request record the pictures the client left out of the request.
pub(crate) fn note_dropped(record: &mut Value, completion: &escapade_llm::Completion) {
    if completion.pictures_dropped > 0 {
        record[PICTURES_DROPPED] = completion.pictures_dropped.into();
    }
}

/// The key of a request record that says how many pictures of past exchanges the image
/// budget left out of the request (`history_images=all`; the runner warns once per run).
pub const IMAGES_LEFT_OUT: &str = "images_left_out";

/// The part of a reply kept in the history, and how many characters were cut from it.
fn history_text(text: &str) -> (String, usize) {
    let total = text.chars().count();
    if total <= MAX_HISTORY_REPLY_CHARS {
        return (text.to_string(), 0);
    }
    let cut = total - MAX_HISTORY_REPLY_CHARS;
    let mut kept: String = text.chars().take(MAX_HISTORY_REPLY_CHARS).collect();
    kept.push_str(&format!(
        "\n[… {cut} more characters of this reply are left out of the conversation]"
    ));
    (kept, cut)
}

/// What a call whose answer was trimmed from the history is told.
const TRIMMED: &str = "(result omitted from the history)";

/// One entry of the conversation, in provider-neutral form.
#[derive(Debug, Clone)]
enum Entry {
    /// The environment speaking: an observation or a re-ask message, its pictures
    /// already encoded for the wire. `answers` holds the world's answer to each action of
    /// the previous reply when it ran several ([`escapade_core::Step::results`]), and
    /// `rest` what the observation says beyond them; empty otherwise.
    Env {
        text: String,
        pictures: Vec<Part>,
        answers: Vec<String>,
        rest: String,
    },
    /// A model reply.
    Model {
        text: String,
        tool_calls: Vec<ToolCall>,
    },
}

/// One exchange: an observation, the replies to it and any re-asks in between.
#[derive(Debug, Clone, Default)]
struct Exchange {
    entries: Vec<Entry>,
    /// The action taken in this exchange made progress (a key step).
    key: bool,
}

/// The generic model agent. Make one per episode (or reuse: `reset` clears it).
pub struct LlmAgent {
    config: LlmConfig,
    client: Client,
    seed: u64,
    system: String,
    exchanges: Vec<Exchange>,
    /// Progress before the current exchange's action.
    progress: f64,
    /// Entries already logged by a request (for [`RequestLog::Delta`]).
    logged: usize,
    /// Entries logged before the current turn's first request. Only a turn's last
    /// request reaches its step row (re-asked replies keep no request), so every
    /// request of a turn logs the entries from here: the row's log then covers the
    /// re-asks, and the system prompt is not lost when the first turn is re-asked.
    turn_logged: usize,
    requests: u64,
    /// Exchanges before this index are never sent again (trimmed after the model's
    /// context overflowed).
    floor: usize,
    /// Turns pictures into text where the options say so.
    describer: Describer,
    /// The last reply was cut at the output token limit: a re-ask says so.
    cut: bool,
    /// Answers the model calls instead of `client` while an interrupted episode is
    /// replayed ([`AsyncAgent::replay_with`]).
    replay: Option<Client>,
    /// This step's caption records, added to every turn of the step (a re-asked step's
    /// row keeps its last turn only).
    captions: Vec<Value>,
}

impl LlmAgent {
    /// An agent that talks to `client` with `config`.
    pub fn new(config: LlmConfig, client: Client) -> Self {
        LlmAgent {
            describer: Describer::new(&config, None),
            config,
            client,
            seed: 0,
            system: String::new(),
            exchanges: Vec::new(),
            progress: 0.0,
            logged: 0,
            turn_logged: 0,
            requests: 0,
            floor: 0,
            cut: false,
            replay: None,
            captions: Vec::new(),
        }
    }

    /// Adds this step's caption records to `turn`'s request record.
    fn add_captions(&self, turn: &mut AgentTurn) {
        if let (false, Some(record)) = (self.captions.is_empty(), turn.request.as_mut()) {
            record["captions"] = Value::Array(self.captions.clone());
        }
    }

    /// The client the next model call goes to.
    fn model(&self) -> Client {
        self.replay.clone().unwrap_or_else(|| self.client.clone())
    }

    /// Captions pictures with `client` instead of the acting model's client
    /// (`socratic=captions` with a `captioner`).
    pub fn with_captioner(mut self, client: Client) -> Self {
        self.describer.set_captioner(client);
        self
    }

    /// The settings.
    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    /// Adds an environment entry without pictures (a re-ask message).
    fn push_env(&mut self, text: String) -> Result<(), AgentError> {
        self.push_answers(text, &[], Vec::new(), String::new())
    }

    /// Adds an environment entry that answers each call of the previous reply on its own;
    /// `images` (as the [`Describer`] left them) are encoded for the wire here, once.
    fn push_answers(
        &mut self,
        text: String,
        images: &[Image],
        answers: Vec<String>,
        rest: String,
    ) -> Result<(), AgentError> {
        let pictures = images
            .iter()
            .map(|im| self.config.pictures.part(&im.sha256, &im.png))
            .collect::<Result<Vec<_>, _>>()?;
        let entry = Entry::Env {
            text,
            pictures,
            answers,
            rest,
        };
        match self.exchanges.last_mut() {
            Some(ex) => ex.entries.push(entry),
            None => self.exchanges.push(Exchange {
                entries: vec![entry],
                key: false,
            }),
        }
        Ok(())
    }

    /// Under [`ReaskHistory::Drop`], takes the refused replies and their re-asks out of
    /// the current exchange: it keeps its observation and its latest reply. Everything
    /// taken out was logged already, so the log's position moves back with it.
    fn drop_refusals(&mut self) {
        if self.config.reask_history != ReaskHistory::Drop {
            return;
        }
        let Some(ex) = self.exchanges.last_mut() else {
            return;
        };
        if ex.entries.len() <= 2 {
            return;
        }
        let removed = ex.entries.len() - 2;
        ex.entries.drain(1..1 + removed);
        self.logged = self.logged.saturating_sub(removed);
    }

    /// Sends the conversation and records the reply as a model entry.
    async fn request(&mut self, input: &TurnInput<'_>) -> Result<AgentTurn, AgentError> {
        let structured = self.config.structured_on();
        let tools: &[ToolSchema] = input.tools;
        let mut system = self.system.clone();
        if structured {
            system.push_str(&format::schema_instructions(
                tools,
                input.observation.role.is_some(),
            ));
        }
        let (logged, completion) = loop {
            let (messages, left_out) = self.assemble(&system);
            let request = ChatRequest {
                messages,
                tools: if self.config.protocol == Protocol::Tools && !structured {
                    tools.to_vec()
                } else {
                    Vec::new()
                },
                response_schema: structured
                    .then(|| format::action_schema(input.observation, tools)),
                temperature: self.config.temperature,
                seed: Some(self.seed.wrapping_add(self.requests)),
                max_tokens: self.config.max_tokens,
                stop: Vec::new(),
            };
            self.requests += 1;
            let mut logged = self.log_request(&request);
            if self.floor > 0 {
                logged["history_trimmed_before"] = self.floor.into();
            }
            if left_out > 0 {
                logged[IMAGES_LEFT_OUT] = left_out.into();
            }
            match self.model().chat(&request).await {
                Ok(completion) => break (logged, completion),
                // the conversation outgrew the model's context: drop the older half of
                // the past exchanges (once, not every step, so the provider's prompt
                // cache stays warm until the next trim) and ask again
                Err(e) if is_context_overflow(&e) && self.trim() => continue,
                Err(e) => return Err(e.into()),
            }
        };
        let mut logged = logged;
        note_dropped(&mut logged, &completion);
        self.cut = completion.response.truncated();
        let response = completion.response;
        let action = if structured {
            format::read_structured(&response.text)
        } else if self.config.protocol == Protocol::Tools {
            format::read_tool_reply(&response)
        } else {
            escapade_core::Action::text(response.text.clone())
        };
        let raw = if response.tool_calls.is_empty() {
            response.text.clone()
        } else {
            json!({"text": response.text, "tool_calls": response.tool_calls}).to_string()
        };
        let tool_calls = if self.config.protocol == Protocol::Tools && !structured {
            response.tool_calls.clone()
        } else {
            Vec::new()
        };
        // a runaway reply is kept whole in the step row, but only its start goes back
        // to the model with every later request
        let (kept, cut) = history_text(&response.text);
        if let Some(ex) = self.exchanges.last_mut() {
            ex.entries.push(Entry::Model {
                text: kept,
                tool_calls,
            });
        }
        if cut > 0 {
            logged[HISTORY_CUT] = cut.into();
        }
        Ok(AgentTurn {
            action,
            request: Some(logged),
            raw_response: Some(raw),
            reasoning: response.reasoning.filter(|r| !r.trim().is_empty()),
            usage: completion.usage,
        })
    }

    /// The step-row record of a request, per the configured [`RequestLog`].
    fn log_request(&mut self, request: &ChatRequest) -> Value {
        let sha = digest(request);
        let mut record = json!({"messages": request.messages.len(), "sha256": sha});
        match self.config.log {
            RequestLog::Hash => {}
            RequestLog::Full => {
                record["sent"] = serde_json::to_value(&request.messages).unwrap_or(Value::Null);
            }
            RequestLog::Delta => {
                let all: Vec<&Entry> = self.exchanges.iter().flat_map(|e| &e.entries).collect();
                let from = self.turn_logged.min(all.len());
                let new: Vec<Value> = all[from..].iter().map(|e| entry_json(e)).collect();
                if from == 0 {
                    record["system"] = Value::String(self.system.clone());
                }
                record["new"] = Value::Array(new);
                record["history"] = Value::String(self.config.history.to_string());
                if self.config.reask_history == ReaskHistory::Keep {
                    // a rebuild keeps the refused replies of earlier rows (by default
                    // they leave the conversation once a reply is taken)
                    record["reask_history"] = Value::String("keep".into());
                }
                self.logged = all.len();
            }
        }
        if let Some(schema) = &request.response_schema {
            record["response_schema"] = schema.clone();
        }
        record
    }

    /// Stops sending the older half of the past exchanges that the history mode still
    /// sends; false when none is left.
    fn trim(&mut self) -> bool {
        let (sent, past) = self.past_sent();
        if sent.is_empty() {
            return false;
        }
        self.floor = sent.get(sent.len().div_ceil(2)).copied().unwrap_or(past);
        true
    }

    /// The past exchanges the history mode sends (absolute indices, at or above the trim
    /// floor), and the index of the current exchange, which is always sent.
    fn past_sent(&self) -> (Vec<usize>, usize) {
        let keys: Vec<bool> = self.exchanges.iter().map(|e| e.key).collect();
        let past = keys.len().saturating_sub(1);
        let floor = self.floor.min(past);
        let sent = self
            .config
            .history
            .select(&keys[floor..past])
            .into_iter()
            .map(|i| i + floor)
            .collect();
        (sent, past)
    }

    /// The exchanges among `chosen` whose pictures go with the request: the current one
    /// always, and under [`HistoryImages::All`] the past ones, newest first, while their
    /// bytes fit the image budget; and how many pictures of the others are left out.
    fn with_pictures(&self, chosen: &[usize], current: usize) -> (Vec<usize>, usize) {
        let bytes = |i: usize| -> (u64, usize) {
            let mut size = 0u64;
            let mut count = 0usize;
            for entry in &self.exchanges[i].entries {
                if let Entry::Env { pictures, .. } = entry {
                    for p in pictures {
                        if let Part::Image { bytes, .. } = p {
                            size += bytes.len() as u64;
                            count += 1;
                        }
                    }
                }
            }
            (size, count)
        };
        let mut kept = vec![current];
        if self.config.history_images == HistoryImages::Current {
            return (kept, 0);
        }
        let mut used = bytes(current).0;
        let mut left_out = 0;
        let mut full = false;
        for &i in chosen.iter().rev().filter(|&&i| i != current) {
            let (size, count) = bytes(i);
            if !full && used + size <= self.config.image_budget {
                used += size;
                kept.push(i);
            } else {
                // once one exchange does not fit, older ones stay out too, so the
                // pictures sent are always the most recent ones
                full = true;
                left_out += count;
            }
        }
        (kept, left_out)
    }

    /// Provider messages for the selected exchanges (see the module docs), and how many
    /// pictures of past exchanges the image budget left out.
    fn assemble(&self, system: &str) -> (Vec<Message>, usize) {
        let (mut chosen, past) = self.past_sent();
        if !self.exchanges.is_empty() {
            chosen.push(past);
        }
        let (with_pictures, left_out) = self.with_pictures(&chosen, past);
        // a world whose observations are whole prompts (VisEscape's original) gives no
        // system prompt, and none is sent
        let mut out = Vec::new();
        if !system.is_empty() {
            out.push(Message::text(Role::System, system));
        }
        let mut open: Vec<ToolCall> = Vec::new();
        let mut previous: Option<usize> = None;
        for &i in &chosen {
            let contiguous = previous.is_some_and(|p| p + 1 == i);
            let pictured = with_pictures.contains(&i);
            for (j, entry) in self.exchanges[i].entries.iter().enumerate() {
                match entry {
                    Entry::Env {
                        text,
                        pictures,
                        answers,
                        rest,
                    } => {
                        let answers_open = contiguous || j > 0;
                        // several actions ran: each call gets its own result, and the
                        // rest of the observation follows as a message
                        let per_call = answers_open && !answers.is_empty() && !open.is_empty();
                        close_calls(
                            &mut out,
                            &mut open,
                            answers_open.then_some(Answer {
                                text,
                                per_call: answers,
                            }),
                        );
                        let answered =
                            answers_open && out.last().is_some_and(|m| m.role == Role::Tool);
                        let mut parts = Vec::new();
                        if per_call {
                            if !rest.trim().is_empty() {
                                parts.push(Part::Text { text: rest.clone() });
                            }
                        } else if !answered {
                            parts.push(Part::Text { text: text.clone() });
                        }
                        if pictured {
                            parts.extend(pictures.iter().cloned());
                        } else if !pictures.is_empty() {
                            parts.push(Part::Text {
                                text: format!("({} image(s) shown at this step)", pictures.len()),
                            });
                        }
                        if !parts.is_empty() {
                            out.push(Message {
                                role: Role::User,
                                parts,
                                tool_calls: Vec::new(),
                                tool_call_id: None,
                            });
                        }
                    }
                    Entry::Model { text, tool_calls } => {
                        close_calls(&mut out, &mut open, None);
                        let mut m = Message::text(Role::Assistant, text.clone());
                        if text.is_empty() {
                            m.parts.clear();
                        }
                        m.tool_calls = tool_calls.clone();
                        open = tool_calls.clone();
                        out.push(m);
                    }
                }
            }
            previous = Some(i);
        }
        close_calls(&mut out, &mut open, None);
        (out, left_out)
    }
}

/// Whether a provider refused a request for being longer than the model's context
/// (OpenAI `context_length_exceeded`, llama.cpp `exceed_context_size_error`, Anthropic
/// "prompt is too long").
fn is_context_overflow(e: &escapade_llm::LlmError) -> bool {
    match e {
        escapade_llm::LlmError::Http {
            status: 400 | 413,
            body,
            ..
        } => {
            let b = body.to_ascii_lowercase();
            b.contains("context") || b.contains("too long") || b.contains("too many tokens")
        }
        _ => false,
    }
}

/// What answers the open calls of a reply.
struct Answer<'a> {
    /// The observation that followed the reply.
    text: &'a str,
    /// The world's answer to each action, when it ran several (else empty).
    per_call: &'a [String],
}

/// Answers every open tool call: with the world's answer to each call when it ran
/// several (calls beyond them are told they were not run); else the first with the
/// observation and the others with a note that they were not run (a world that takes one
/// action per turn); all of them, when `result` is `None`, with a note that their answer
/// was trimmed from the history.
fn close_calls(out: &mut Vec<Message>, open: &mut Vec<ToolCall>, result: Option<Answer<'_>>) {
    for (k, call) in open.drain(..).enumerate() {
        let text = match (k, &result) {
            (_, Some(a)) if !a.per_call.is_empty() => a
                .per_call
                .get(k)
                .cloned()
                .unwrap_or_else(|| NOT_RUN.to_string()),
            (0, Some(a)) => a.text.to_string(),
            (_, Some(_)) => NOT_RUN.to_string(),
            (_, None) => TRIMMED.to_string(),
        };
        let mut m = Message::text(Role::Tool, text);
        m.tool_call_id = Some(call.id.clone());
        out.push(m);
    }
}

/// The world's answer to each action of the previous reply when it ran several, and what
/// the observation says beyond them (it begins with the answers joined by
/// [`escapade_core::env::RESULTS_SEPARATOR`]; when it does not, all of it).
fn split_results(last: Option<&escapade_core::Step>, text: &str) -> (Vec<String>, String) {
    let Some(step) = last.filter(|s| !s.results.is_empty()) else {
        return (Vec::new(), String::new());
    };
    let answers: Vec<String> = step.results.iter().map(|r| r.feedback.clone()).collect();
    let joined = answers.join(escapade_core::env::RESULTS_SEPARATOR);
    let rest = match text.strip_prefix(joined.as_str()) {
        Some(rest) => rest.trim_start().to_string(),
        None => text.to_string(),
    };
    (answers, rest)
}

fn entry_json(entry: &Entry) -> Value {
    match entry {
        Entry::Env {
            text,
            pictures,
            answers,
            ..
        } => {
            let shas: Vec<String> = pictures
                .iter()
                .filter_map(|p| match p {
                    Part::Image { sha256, .. } => Some(sha256.clone()),
                    Part::Text { .. } => None,
                })
                .collect();
            let mut v = json!({
                "role": "env",
                "text": text,
                "images": shas,
            });
            if !answers.is_empty() {
                v["answers"] = json!(answers);
            }
            v
        }
        Entry::Model { text, tool_calls } => json!({
            "role": "model",
            "text": text,
            "tool_calls": tool_calls,
        }),
    }
}

#[async_trait]
impl AsyncAgent for LlmAgent {
    fn name(&self) -> String {
        format!("llm:{}", self.config.model)
    }

    async fn reset(&mut self, start: EpisodeStart<'_>) -> Result<(), AgentError> {
        self.seed = start.seed;
        self.system = start.system_prompt.to_string();
        self.exchanges.clear();
        self.progress = 0.0;
        self.logged = 0;
        self.turn_logged = 0;
        self.requests = 0;
        self.floor = 0;
        self.cut = false;
        self.captions.clear();
        self.describer.reset(start.seed);
        Ok(())
    }

    async fn act(&mut self, input: TurnInput<'_>) -> Result<AgentTurn, AgentError> {
        // the previous turn's reply was taken: its refusals leave the conversation
        self.drop_refusals();
        if let (Some(last), Some(ex)) = (input.last, self.exchanges.last_mut()) {
            ex.key = last.progress > self.progress;
            self.progress = self.progress.max(last.progress);
        }
        self.turn_logged = self.logged;
        let described = self
            .describer
            .describe(&self.model(), input.observation)
            .await?;
        self.exchanges.push(Exchange::default());
        let (answers, rest) = split_results(input.last, &described.text);
        self.push_answers(described.text, &described.images, answers, rest)?;
        self.captions = described.captions;
        let mut turn = self.request(&input).await?;
        turn.usage.add(&described.usage);
        self.add_captions(&mut turn);
        Ok(turn)
    }

    async fn reask(&mut self, error: &str, input: TurnInput<'_>) -> Result<AgentTurn, AgentError> {
        // a reply cut at the token limit was not unreadable, it was unfinished
        let cut = if self.cut {
            let limit = match self.config.max_tokens {
                Some(n) => format!("the limit of {n} tokens"),
                None => "the model's token limit".into(),
            };
            format!(
                "\nYour reply was cut off at {limit} before it was complete: answer more \
                 briefly."
            )
        } else {
            String::new()
        };
        let text = format!(
            "That reply could not be used: {error}{cut}\nAnswer again with exactly one action \
             in the required format."
        );
        // only the latest refusal and its re-ask go with the request (by default)
        self.drop_refusals();
        self.push_env(text)?;
        let mut turn = self.request(&input).await?;
        self.add_captions(&mut turn);
        Ok(turn)
    }

    fn reask_limit(&self) -> Option<u32> {
        self.config.reask
    }

    fn uses_tools(&self) -> bool {
        self.config.protocol == Protocol::Tools || self.config.structured_on()
    }

    fn replay_with(&mut self, client: Option<Client>) {
        self.describer.replay_with(client.clone());
        self.replay = client;
    }
}
