//! A recording backend over a scripted one, a driver for one agent, and the check that a
//! conversation keeps the tool-calling invariants every provider enforces.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use escapade_agents::{
    AgentError, AsyncAgent, EpisodeStart, Escaper, EscaperConfig, EscaperKind, LlmAgent, LlmConfig,
    TurnInput,
};
use escapade_core::{AgentTurn, Image, Observation, Step, ToolSchema};
use escapade_llm::scripted::ScriptedBackend;
use escapade_llm::{
    Backend, ChatRequest, ChatResponse, Client, ClientOptions, LlmError, Message, Part, Role,
};
use serde_json::{Value, json};

/// Stores every request, then lets the scripted backend answer it.
pub struct Recording {
    inner: ScriptedBackend,
    requests: Mutex<Vec<ChatRequest>>,
}

impl Recording {
    /// A recorder over a script of JSON lines (see `escapade_llm::scripted`).
    pub fn new(script: &[Value]) -> Arc<Self> {
        let text: Vec<String> = script.iter().map(Value::to_string).collect();
        let inner =
            ScriptedBackend::from_str("scripted/test", &text.join("\n")).expect("a valid script");
        Arc::new(Recording {
            inner,
            requests: Mutex::new(Vec::new()),
        })
    }

    /// The requests made so far (retries included), in order.
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.requests.lock().unwrap().clone()
    }
}

#[async_trait]
impl Backend for Recording {
    fn name(&self) -> String {
        self.inner.name()
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        self.requests.lock().unwrap().push(request.clone());
        self.inner.chat(request).await
    }
}

/// Client settings for tests: no retries unless asked, tiny backoff.
pub fn quick_client(max_retries: u32) -> ClientOptions {
    ClientOptions {
        max_retries,
        backoff_base: std::time::Duration::from_millis(1),
        backoff_max: std::time::Duration::from_millis(2),
        ..ClientOptions::default()
    }
}

/// One agent talking to a recording backend.
pub struct Harness {
    pub agent: Box<dyn AsyncAgent>,
    pub backend: Arc<Recording>,
}

fn option_map(options: &[(&str, &str)]) -> BTreeMap<String, String> {
    options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A BaseAgent (`kind` "base") or VisEscaper ("visescaper") with `options` over `script`.
pub fn escaper(kind: &str, script: &[Value], options: &[(&str, &str)]) -> Harness {
    let kind = EscaperKind::from_spec(kind).expect("base or visescaper");
    let config = EscaperConfig::from_options(kind, "scripted/test", &option_map(options))
        .expect("valid options");
    let backend = Recording::new(script);
    let client = Client::new(backend.clone(), &quick_client(0));
    Harness {
        agent: Box::new(Escaper::new(config, client)),
        backend,
    }
}

/// A client over its own recording backend (a separate captioner).
pub fn side_client(script: &[Value]) -> (Client, Arc<Recording>) {
    let backend = Recording::new(script);
    (Client::new(backend.clone(), &quick_client(0)), backend)
}

/// An agent with `options` (`-A key=value`) over `script`.
pub fn harness(script: &[Value], options: &[(&str, &str)]) -> Harness {
    harness_with(script, options, quick_client(0))
}

/// [`harness`] with explicit client settings.
pub fn harness_with(script: &[Value], options: &[(&str, &str)], client: ClientOptions) -> Harness {
    let config =
        LlmConfig::from_options("scripted/test", &option_map(options)).expect("valid options");
    let backend = Recording::new(script);
    let client = Client::new(backend.clone(), &client);
    Harness {
        agent: Box::new(LlmAgent::new(config, client)),
        backend,
    }
}

/// The system prompt every test episode starts with.
pub const SYSTEM: &str = "You are in a room. Reply with one action.";

impl Harness {
    /// Starts an episode with `tools`.
    pub async fn start(&mut self, tools: &[ToolSchema]) {
        self.start_with(SYSTEM, tools).await;
    }

    /// Starts an episode with the world's `system` prompt (empty: a world whose
    /// observations are whole prompts) and `tools`.
    pub async fn start_with(&mut self, system: &str, tools: &[ToolSchema]) {
        self.agent
            .reset(EpisodeStart {
                seed: 7,
                system_prompt: system,
                tools,
                roles: &[],
                steps_to_go: None,
            })
            .await
            .expect("reset never fails");
    }

    /// One turn: `observation` after `last`.
    pub async fn act(
        &mut self,
        step: u32,
        observation: &Observation,
        last: Option<&Step>,
        tools: &[ToolSchema],
    ) -> Result<AgentTurn, AgentError> {
        self.agent
            .act(TurnInput {
                step,
                observation,
                last,
                tools,
            })
            .await
    }

    /// A re-ask of the same turn after the parser said `error`.
    pub async fn reask(
        &mut self,
        error: &str,
        step: u32,
        observation: &Observation,
        last: Option<&Step>,
        tools: &[ToolSchema],
    ) -> Result<AgentTurn, AgentError> {
        self.agent
            .reask(
                error,
                TurnInput {
                    step,
                    observation,
                    last,
                    tools,
                },
            )
            .await
    }

    /// Every request sent so far.
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.backend.requests()
    }

    /// The last request sent.
    pub fn last_request(&self) -> ChatRequest {
        self.requests().pop().expect("a request was sent")
    }
}

/// The step that led to an observation, with `progress`.
pub fn step_to(observation: &Observation, progress: f64) -> Step {
    Step {
        observation: observation.clone(),
        feedback: observation.text.clone(),
        progress,
        ..Step::default()
    }
}

/// A function schema taking one `node_id`.
pub fn tool(name: &str) -> ToolSchema {
    ToolSchema {
        name: name.into(),
        description: format!("{name} a node"),
        parameters: json!({
            "type": "object",
            "properties": {"node_id": {"type": "string"}},
            "required": ["node_id"],
        }),
    }
}

/// The functions of the tests' pretend world.
pub fn tools() -> Vec<ToolSchema> {
    vec![tool("investigate"), tool("open")]
}

/// A text observation with one small picture unique to `n`.
pub fn pictured(text: &str, n: u8) -> Observation {
    Observation {
        text: text.into(),
        images: vec![Image::from_png(vec![0x89, b'P', b'N', b'G', n])],
        actions: None,
        role: None,
    }
}

/// The text of a request's last (user) message.
pub fn prompt(request: &ChatRequest) -> String {
    request
        .messages
        .last()
        .map(Message::joined_text)
        .unwrap_or_default()
}

/// The text between `<tag>` and its closing tag in `text`, if both are there; a note in
/// brackets is not repeated when closing (`<Recent steps (oldest first)>` … `</Recent
/// steps>`).
pub fn section<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let name = tag.split(" (").next().unwrap_or(tag);
    let start = text.find(&open)? + open.len();
    let end = start + text[start..].find(&format!("</{name}>"))?;
    Some(text[start..end].trim())
}

/// Number of image parts in a request.
pub fn image_parts(request: &ChatRequest) -> usize {
    request
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter(|p| matches!(p, Part::Image { .. }))
        .count()
}

/// Whether some message of `request` has text containing `needle`.
pub fn mentions(request: &ChatRequest, needle: &str) -> bool {
    request
        .messages
        .iter()
        .any(|m| m.joined_text().contains(needle))
}

/// The roles of a request's messages, in order.
pub fn roles(request: &ChatRequest) -> Vec<Role> {
    request.messages.iter().map(|m| m.role).collect()
}

/// Checks the tool-calling invariants of OpenAI and Anthropic: every assistant message
/// with calls is followed at once by tool messages answering each of its call ids exactly
/// once, and no tool message stands anywhere else (an orphan).
pub fn check_tool_pairing(messages: &[Message]) -> Result<(), String> {
    let mut i = 0;
    while i < messages.len() {
        let m = &messages[i];
        match m.role {
            Role::Assistant if !m.tool_calls.is_empty() => {
                let mut wanted: Vec<&str> = m.tool_calls.iter().map(|c| c.id.as_str()).collect();
                let mut answered = Vec::new();
                let mut j = i + 1;
                while j < messages.len() && messages[j].role == Role::Tool {
                    let id = messages[j]
                        .tool_call_id
                        .as_deref()
                        .ok_or_else(|| format!("tool message {j} has no call id"))?;
                    if messages[j].joined_text().is_empty() {
                        return Err(format!("tool message {j} is empty"));
                    }
                    answered.push(id);
                    j += 1;
                }
                wanted.sort_unstable();
                answered.sort_unstable();
                if wanted != answered {
                    return Err(format!(
                        "assistant message {i} made calls {wanted:?} but the tool messages \
                         after it answer {answered:?}"
                    ));
                }
                i = j;
            }
            Role::Tool => return Err(format!("tool message {i} answers no call before it")),
            _ => {
                if m.tool_call_id.is_some() {
                    return Err(format!(
                        "message {i} is not a tool message but has a call id"
                    ));
                }
                i += 1;
            }
        }
    }
    Ok(())
}
