//! The LLM agent's settings and how `-A key=value` options map onto them.
//!
//! Options are strings so that the CLI, `run.toml` and the config hash all see the same
//! thing. Agent keys shape the conversation; client keys (`timeout`, `retries`, …) tune
//! the backend and are parsed by [`client_options`]. Each model agent kind reads its own
//! keys ([`AGENT_KEYS`] for `llm`, [`ESCAPER_KEYS`] for `base` and `visescaper`). An
//! unknown key is an error that lists the known ones, so a typo never silently changes
//! nothing.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use escapade_llm::{ClientOptions, Detail, Pictures, PriceTable};

use crate::socratic::Socratic;
use crate::{AgentError, History};

/// The model agent kinds (`--agent`): the generic loop and VisEscape's two agents. Any
/// other agent spec names a world's baseline.
pub const MODEL_AGENTS: [&str; 3] = ["llm", "base", "visescaper"];

/// How actions travel from the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// The world's text protocol: the reply's text is the action.
    Text,
    /// Native function calling with the world's schemas; a reply without a call is read
    /// as text.
    Tools,
}

/// Whether replies are constrained to a JSON schema of the action format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Structured {
    /// On for `local/…` backends (a small model needs it to produce valid actions), off
    /// otherwise.
    Auto,
    /// Always.
    On,
    /// Never.
    Off,
}

/// Whether past exchanges keep their pictures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryImages {
    /// Only the current observation's pictures are sent; earlier ones become a short
    /// marker (their text is kept).
    Current,
    /// Every picture of the exchanges the history sends, newest first within
    /// [`LlmConfig::image_budget`] (MM-Escape's client resends every frame).
    All,
}

/// What happens to a refused reply and its re-ask once a reply is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReaskHistory {
    /// They leave the conversation: later requests see only the accepted reply (both
    /// originals: MM-Escape's client asks again without recording the refused reply,
    /// VisEscape's retry prompt is a request of its own).
    Drop,
    /// They stay in the conversation (escapade before issue 25).
    Keep,
}

/// What the `request` field of a step row holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestLog {
    /// The conversation entries added since the previous step's request (this step's
    /// re-asks included), the number of messages sent and the SHA-256 of the whole
    /// request (the full conversation can be rebuilt from the rows and the history
    /// mode). Compact for long episodes.
    Delta,
    /// Every message sent, every step (large: quadratic in episode length).
    Full,
    /// Only the SHA-256 and message count.
    Hash,
}

/// Settings of one [`crate::LlmAgent`].
#[derive(Debug, Clone, PartialEq)]
pub struct LlmConfig {
    /// Backend spec, `provider/model`.
    pub model: String,
    /// Which past exchanges are sent.
    pub history: History,
    /// Re-ask limit; `None` uses the world's.
    pub reask: Option<u32>,
    /// Text protocol or native tool calls.
    pub protocol: Protocol,
    /// JSON-schema constrained replies.
    pub structured: Structured,
    /// Sampling temperature (default 0, for reproducibility); `None` sends none, so the
    /// provider's default applies (`-A temperature=none`).
    pub temperature: Option<f32>,
    /// Cap on output tokens per reply; `None` sends none (`-A max_tokens=none`; the
    /// Anthropic API requires one and gets its backend's default).
    pub max_tokens: Option<u32>,
    /// Send the observation's images (off: text only, for text-only models).
    pub images: bool,
    /// How pictures are sent: encoding and OpenAI's `detail` (`-A pictures=…`,
    /// `-A detail=…`).
    pub pictures: Pictures,
    /// Whether past exchanges keep their pictures (`-A history_images=current|all`).
    pub history_images: HistoryImages,
    /// Most bytes of pictures (as sent, before base64) in one request under
    /// [`HistoryImages::All`]; older pictures beyond it become markers, and the step row
    /// says how many (`-A image_budget=MB`).
    pub image_budget: u64,
    /// What happens to refused replies and their re-asks (`-A reask_history=drop|keep`).
    pub reask_history: ReaskHistory,
    /// What step rows record of each request.
    pub log: RequestLog,
    /// Pictures replaced by text for text-only models (VisEscape §7).
    pub socratic: Socratic,
    /// The model that captions pictures under [`Socratic::Captions`] (`provider/model`,
    /// opened with the same client options); `None` uses the acting model's client.
    pub captioner: Option<String>,
}

/// Default of [`LlmConfig::image_budget`]: 20 MB of pictures per request, which base64
/// makes about 27 MB on the wire, under Anthropic's 32 MB request limit and OpenAI's
/// 50 MB.
pub const DEFAULT_IMAGE_BUDGET: u64 = 20_000_000;

/// Keys read by [`LlmConfig::from_options`].
pub const AGENT_KEYS: [&str; 16] = [
    "model",
    "history",
    "reask",
    "protocol",
    "structured",
    "temperature",
    "max_tokens",
    "images",
    "pictures",
    "detail",
    "history_images",
    "image_budget",
    "reask_history",
    "log",
    "socratic",
    "captioner",
];

/// Keys read by [`crate::EscaperConfig::from_options`] (`--agent base|visescaper`): the
/// keys of [`AGENT_KEYS`] that apply to a one-prompt agent (not `history`,
/// `history_images`, `image_budget` or `reask_history`, which the `window` and the
/// one-prompt retry replace, nor `protocol`: these agents use the text protocol), and
/// their own.
pub const ESCAPER_KEYS: [&str; 15] = [
    "model",
    "reask",
    "structured",
    "temperature",
    "max_tokens",
    "images",
    "pictures",
    "detail",
    "log",
    "socratic",
    "captioner",
    "memory",
    "reasoning",
    "window",
    "navigation",
];

/// The `-A` keys an agent kind takes (its own and the client's), or `None` for a kind
/// that takes no model options (a world's baseline such as `oracle`).
pub fn keys_of(kind: &str) -> Option<Vec<&'static str>> {
    let own: &[&'static str] = match kind {
        "llm" => &AGENT_KEYS,
        "base" | "visescaper" => &ESCAPER_KEYS,
        _ => return None,
    };
    Some(own.iter().chain(&CLIENT_KEYS).copied().collect())
}

/// Client keys that tune how a run talks to its backend (time limits, retries, rate
/// limits, connections) without changing what it measures: they are recorded but not
/// part of a run's identity, and `escapade resume -A` may change them.
pub const TUNING_KEYS: [&str; 5] = ["timeout", "retries", "rpm", "tpm", "backend_concurrency"];

/// Client keys that are a provider's rate limits (requests and tokens per minute). Each
/// client keeps its own count, so processes that share one limit must split it
/// ([`share_rate_limits`]).
pub const RATE_KEYS: [&str; 2] = ["rpm", "tpm"];

/// Splits the rate limits among `ways` clients that share them (the workers of a
/// distributed run, each with its own client): each gets its whole share of the limit,
/// rounded down, and at least 1, so together they stay within it. Returns a warning per
/// limit lower than `ways` (there every client gets 1, and together they may exceed it);
/// a value that is not a whole number is left for [`client_options`] to refuse.
pub fn share_rate_limits(options: &mut BTreeMap<String, String>, ways: u32) -> Vec<String> {
    let mut warnings = Vec::new();
    let ways = u64::from(ways.max(1));
    for key in RATE_KEYS {
        let Some(value) = options.get_mut(key) else {
            continue;
        };
        let Ok(limit) = value.trim().parse::<u64>() else {
            continue;
        };
        if limit < ways {
            warnings.push(format!(
                "{key}={limit} is less than one per worker for {ways} workers: each worker \
                 gets {key}=1, {ways} in all; use fewer workers to stay within it"
            ));
        }
        *value = (limit / ways).max(1).to_string();
    }
    warnings
}

/// Keys read by [`client_options`].
pub const CLIENT_KEYS: [&str; 15] = [
    "base_url",
    "timeout",
    "retries",
    "backend_concurrency",
    "rpm",
    "tpm",
    "prices",
    "threads",
    "context",
    "parallel",
    "python",
    "reasoning_effort",
    "thinking_budget",
    "max_pictures",
    "max_picture_mb",
];

pub(crate) fn bad(key: &str, value: &str, expected: &str) -> AgentError {
    AgentError::Config(format!(
        "bad value `{value}` for {key}: expected {expected}"
    ))
}

pub(crate) fn parse<T: FromStr>(key: &str, value: &str, expected: &str) -> Result<T, AgentError> {
    value.trim().parse().map_err(|_| bad(key, value, expected))
}

fn positive(key: &str, value: &str) -> Result<u32, AgentError> {
    match parse::<u32>(key, value, "a positive whole number")? {
        0 => Err(bad(key, value, "a positive whole number")),
        n => Ok(n),
    }
}

/// Whether an option's value asks for nothing to be sent (`none`).
fn is_none(value: &str) -> bool {
    matches!(value.trim(), "none" | "not sent")
}

pub(crate) fn switch(key: &str, value: &str) -> Result<bool, AgentError> {
    match value {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(bad(key, value, "on or off")),
    }
}

/// Refuses keys that neither the `llm` agent nor the client reads.
pub fn check_keys(options: &BTreeMap<String, String>) -> Result<(), AgentError> {
    check_keys_of(options, &AGENT_KEYS)
}

/// Refuses keys that neither an agent reading `agent_keys` nor the client reads; the
/// error lists the known ones.
pub fn check_keys_of(
    options: &BTreeMap<String, String>,
    agent_keys: &[&str],
) -> Result<(), AgentError> {
    for key in options.keys() {
        if !agent_keys.contains(&key.as_str()) && !CLIENT_KEYS.contains(&key.as_str()) {
            let mut known: Vec<&str> = agent_keys.iter().chain(&CLIENT_KEYS).copied().collect();
            known.sort_unstable();
            known.dedup();
            return Err(AgentError::Config(format!(
                "unknown option `{key}`; known options: {}",
                known.join(", ")
            )));
        }
    }
    Ok(())
}

impl LlmConfig {
    /// Settings for `model` with `options` (`-A key=value`) applied; defaults suit a
    /// hosted model, and `local/…` models get constrained replies, shorter outputs and
    /// image descriptions instead of images (the built-in model reads text only).
    pub fn from_options(
        model: &str,
        options: &BTreeMap<String, String>,
    ) -> Result<Self, AgentError> {
        check_keys(options)?;
        Self::read(model, options)
    }

    /// [`LlmConfig::from_options`] without the key check: the shared keys of every model
    /// agent kind are read here, other keys are left to the caller.
    pub(crate) fn read(
        model: &str,
        options: &BTreeMap<String, String>,
    ) -> Result<Self, AgentError> {
        let model = options.get("model").map(String::as_str).unwrap_or(model);
        if !model.contains('/') {
            return Err(AgentError::Config(match provider_of(model) {
                Some(provider) => format!(
                    "model `{model}` is not provider/model; did you mean {provider}/{model}?"
                ),
                None => format!(
                    "model `{model}` is not provider/model (e.g. openai/gpt-4o, \
                     anthropic/claude-sonnet-4-5, openai-compatible/{model} with --base-url, \
                     local/smollm2)"
                ),
            }));
        }
        let local = model.starts_with("local/");
        let mut config = LlmConfig {
            model: model.to_string(),
            // full history keeps the local server's prompt cache warm (a sliding window
            // changes the prefix every step and costs a full prompt re-read on one thread)
            history: History::Full,
            reask: None,
            protocol: Protocol::Text,
            structured: Structured::Auto,
            temperature: Some(0.0),
            max_tokens: Some(if local { 256 } else { 2048 }),
            // the built-in local model reads no pictures: it gets their descriptions
            images: !local,
            pictures: Pictures::default(),
            history_images: HistoryImages::Current,
            image_budget: DEFAULT_IMAGE_BUDGET,
            reask_history: ReaskHistory::Drop,
            log: RequestLog::Delta,
            socratic: Socratic::Off,
            captioner: None,
        };
        for (key, value) in options {
            let v = value.as_str();
            match key.as_str() {
                "history" => config.history = v.parse().map_err(AgentError::Config)?,
                "reask" => config.reask = Some(parse(key, v, "a whole number")?),
                "protocol" => {
                    config.protocol = match v {
                        "text" => Protocol::Text,
                        "tools" => Protocol::Tools,
                        _ => return Err(bad(key, v, "text or tools")),
                    }
                }
                "structured" => {
                    config.structured = match v {
                        "auto" => Structured::Auto,
                        "on" | "true" => Structured::On,
                        "off" | "false" => Structured::Off,
                        _ => return Err(bad(key, v, "auto, on or off")),
                    }
                }
                "temperature" if is_none(v) => config.temperature = None,
                "temperature" => {
                    let t: f32 = parse(key, v, "a number from 0 to 2, or none")?;
                    if !(0.0..=2.0).contains(&t) {
                        return Err(bad(key, v, "a number from 0 to 2, or none"));
                    }
                    config.temperature = Some(t);
                }
                "max_tokens" if is_none(v) => config.max_tokens = None,
                "max_tokens" => {
                    let n: u32 = parse(key, v, "a positive whole number, or none")?;
                    if n == 0 {
                        return Err(bad(key, v, "a positive whole number, or none"));
                    }
                    config.max_tokens = Some(n);
                }
                "images" => config.images = switch(key, v)?,
                "pictures" => {
                    config.pictures.encoding = v.parse().map_err(AgentError::Config)?;
                }
                "detail" if is_none(v) => config.pictures.detail = None,
                "detail" => {
                    let d: Detail = v.parse().map_err(AgentError::Config)?;
                    config.pictures.detail = Some(d);
                }
                "history_images" => {
                    config.history_images = match v {
                        "current" => HistoryImages::Current,
                        "all" => HistoryImages::All,
                        _ => return Err(bad(key, v, "current or all")),
                    }
                }
                "image_budget" => {
                    let mb: f64 = parse(key, v, "megabytes (a positive number)")?;
                    if !(mb.is_finite() && mb > 0.0) {
                        return Err(bad(key, v, "megabytes (a positive number)"));
                    }
                    config.image_budget = (mb * 1e6) as u64;
                }
                "reask_history" => {
                    config.reask_history = match v {
                        "drop" => ReaskHistory::Drop,
                        "keep" => ReaskHistory::Keep,
                        _ => return Err(bad(key, v, "drop or keep")),
                    }
                }
                "log" => {
                    config.log = match v {
                        "delta" => RequestLog::Delta,
                        "full" => RequestLog::Full,
                        "hash" => RequestLog::Hash,
                        _ => return Err(bad(key, v, "delta, full or hash")),
                    }
                }
                "socratic" => {
                    config.socratic = v.parse().map_err(|_| bad(key, v, "off, alt or captions"))?
                }
                "captioner" => {
                    if !v.contains('/') {
                        return Err(bad(key, v, "provider/model (e.g. openai/gpt-4o)"));
                    }
                    config.captioner = Some(v.to_string());
                }
                _ => {}
            }
        }
        if config.captioner.is_some() && config.socratic != Socratic::Captions {
            return Err(AgentError::Config(
                "captioner applies only with socratic=captions".into(),
            ));
        }
        Ok(config)
    }

    /// Whether replies are constrained, with `Auto` resolved.
    pub fn structured_on(&self) -> bool {
        match self.structured {
            Structured::On => true,
            Structured::Off => false,
            Structured::Auto => self.model.starts_with("local/"),
        }
    }

    /// What every request of this agent carries, one phrase per setting: each decoding
    /// parameter as the backend puts it on the wire (under its provider's name, with a
    /// default the API requires, with extended thinking's changes) or [`NOT_SENT`], the
    /// reasoning setting, the API version, the reply format a constraint imposes, how
    /// pictures go, and how the client sends and retries (from `client`, the settings
    /// the run opens its client with). `run.toml` records it; the report compares it with
    /// the suite's paper settings, and `escapade compare` two runs' records.
    pub fn sent(&self, client: &ClientOptions) -> BTreeMap<String, String> {
        let provider = self.model.split_once('/').map_or("", |(p, _)| p);
        let anthropic = provider == "anthropic";
        let thinking = client.thinking_budget.filter(|_| anthropic);
        let mut out = BTreeMap::new();
        let mut put = |key: &str, value: String| {
            out.insert(key.to_string(), value);
        };
        put(
            "temperature",
            match (self.temperature, thinking) {
                (None, _) => NOT_SENT.to_string(),
                // the API takes no temperature with extended thinking
                (Some(t), Some(_)) => format!(
                    "{NOT_SENT} (extended thinking takes none; temperature={t} not applied)"
                ),
                (Some(t), None) => t.to_string(),
            },
        );
        put("max_tokens", self.max_tokens_sent(provider, client));
        put("top_p", NOT_SENT.to_string());
        put("stop", NOT_SENT.to_string());
        put(
            "seed",
            if anthropic {
                format!("{NOT_SENT} (the Anthropic API has none)")
            } else {
                "the episode's seed plus the request's number".to_string()
            },
        );
        if anthropic {
            put(
                "thinking",
                thinking.map_or_else(
                    || NOT_SENT.to_string(),
                    |b| format!("enabled, budget_tokens {b}"),
                ),
            );
            put(
                "api_version",
                format!("anthropic-version {}", escapade_llm::anthropic::API_VERSION),
            );
        } else {
            put(
                "reasoning_effort",
                client
                    .reasoning_effort
                    .clone()
                    .unwrap_or_else(|| NOT_SENT.to_string()),
            );
        }
        put(
            "tool_choice",
            match (self.structured_on() && anthropic, thinking) {
                (false, _) => NOT_SENT.to_string(),
                (true, None) => format!(
                    "tool {} (forced: the reply is its input)",
                    escapade_llm::anthropic::RESPOND_TOOL
                ),
                (true, Some(_)) => format!(
                    "auto (extended thinking forbids forcing a tool: {} is offered)",
                    escapade_llm::anthropic::RESPOND_TOOL
                ),
            },
        );
        if self.structured_on() && !anthropic {
            // OpenAI-shaped servers get the schema as `response_format`, not strict (a
            // world's schema need not meet strict mode's rules): llama.cpp constrains its
            // decoding by it, OpenAI's API does not guarantee it without strict mode
            put(
                "response_format",
                "json_schema named action, strict false".to_string(),
            );
        }
        put(
            "reply_format",
            if self.structured_on() {
                STRUCTURED_FORMAT.to_string()
            } else if self.protocol == Protocol::Tools {
                "native function calls with the world's schemas".to_string()
            } else {
                TEXT_FORMAT.to_string()
            },
        );
        put(
            "pictures",
            match (self.images, self.socratic) {
                (false, _) => DESCRIBED.to_string(),
                (true, Socratic::Alt) => {
                    format!("{DESCRIBED_BY} their exact descriptions (socratic=alt)")
                }
                (true, Socratic::Captions) => {
                    format!("{DESCRIBED_BY} a model's captions (socratic=captions)")
                }
                (true, Socratic::Off) => self.pictures.describe(&self.model),
            },
        );
        put("client", client_sent(client, provider));
        if provider == "local" {
            // what `escapade_llm::local` starts the server with; llama.cpp's server splits
            // its context among the slots
            let (context, slots) = (client.local.context.max(256), client.local.parallel.max(1));
            put(
                "server",
                format!(
                    "llama.cpp (xllamacpp) on loopback: context {context} tokens over {slots} \
                     slot(s), {} a request; {} threads; its own sampling defaults for what \
                     is not sent",
                    context / slots,
                    client.local.threads.max(1)
                ),
            );
        }
        if self.images && self.socratic == Socratic::Captions {
            put("captions", self.captions_sent(client));
        }
        out
    }

    /// What each caption call of `socratic=captions` carries: the captioner (the acting
    /// model unless `captioner` names another, whose provider decides the wire), the
    /// acting calls' decoding settings as that backend sends them, the picture, and its
    /// seed (`crate::socratic`).
    fn captions_sent(&self, client: &ClientOptions) -> String {
        let mut captioner = self.clone();
        captioner.model = self.captioner.clone().unwrap_or_else(|| self.model.clone());
        captioner.socratic = Socratic::Off;
        captioner.structured = Structured::Off;
        let sent = captioner.sent(client);
        let seed = if sent["seed"].starts_with(NOT_SENT) {
            sent["seed"].clone()
        } else {
            "the episode's seed rotated by 32 bits plus the caption's number".to_string()
        };
        format!(
            "by {}: temperature {}; max_tokens {}; seed {seed}; pictures {}",
            captioner.model, sent["temperature"], sent["max_tokens"], sent["pictures"]
        )
    }

    /// The output cap this agent's requests send to `provider`'s backend, as
    /// [`LlmConfig::sent`] words it.
    fn max_tokens_sent(&self, provider: &str, client: &ClientOptions) -> String {
        use escapade_llm::anthropic;
        let cap = self.max_tokens;
        if provider == "anthropic" {
            let wire = anthropic::wire_max_tokens(cap, client.thinking_budget);
            let answer = match cap {
                Some(n) => n.to_string(),
                None => format!("the default {}", anthropic::DEFAULT_MAX_TOKENS),
            };
            return match (cap, client.thinking_budget) {
                (_, Some(b)) => {
                    format!("{wire} ({answer} for the answer plus the thinking budget {b})")
                }
                (Some(_), None) => wire.to_string(),
                (None, None) => format!("{wire} (the Anthropic API requires one)"),
            };
        }
        let field = escapade_llm::openai::Flavor::of_provider(provider)
            .map_or("max_tokens", escapade_llm::openai::Flavor::max_tokens_field);
        match cap {
            None => NOT_SENT.to_string(),
            Some(n) if field == "max_tokens" => n.to_string(),
            Some(n) => format!("{n} (as {field})"),
        }
    }

    /// [`LlmConfig::sent`] with what only the `llm` agent's conversation has: which past
    /// exchanges and pictures go with each request, and what becomes of re-asks.
    pub fn sent_in_conversation(&self, client: &ClientOptions) -> BTreeMap<String, String> {
        let mut out = self.sent(client);
        out.insert("history".into(), self.history.to_string());
        if self.images && self.socratic == Socratic::Off {
            out.insert(
                "history_images".into(),
                match self.history_images {
                    HistoryImages::Current => "the current step's only".to_string(),
                    HistoryImages::All => format!(
                        "every step's sent, up to {} MB a request",
                        self.image_budget as f64 / 1e6
                    ),
                },
            );
        }
        out.insert(
            "reask_history".into(),
            match self.reask_history {
                ReaskHistory::Drop => "refused replies and re-asks leave the conversation",
                ReaskHistory::Keep => "refused replies and re-asks stay in the conversation",
            }
            .to_string(),
        );
        out
    }
}

/// How a run records a parameter it does not send (the provider's default applies).
pub const NOT_SENT: &str = "not sent";
/// The reply format under structured output.
pub const STRUCTURED_FORMAT: &str =
    "JSON {\"action\": …} by constrained decoding (structured output)";
/// The reply format without a constraint.
pub const TEXT_FORMAT: &str = "the world's text format";
/// Pictures replaced by text for a model that reads none.
const DESCRIBED: &str = "replaced by their text descriptions (images=off)";
const DESCRIBED_BY: &str = "replaced by";

/// What the requests of an agent of kind `kind` with `options` carry
/// ([`LlmConfig::sent`]), or `None` for a kind that sends none (a world's baseline). The
/// client settings are read from `options` over [`ClientOptions::default`], as a run
/// opens its clients (a `prices` file is not read: it changes no request).
///
/// # Errors
/// [`AgentError::Config`] when the options are refused.
pub fn sent_of(
    kind: &str,
    options: &BTreeMap<String, String>,
) -> Result<Option<BTreeMap<String, String>>, AgentError> {
    use crate::visescaper::{EscaperConfig, EscaperKind};
    let model = options.get("model").map(String::as_str).unwrap_or_default();
    let client = |options: &BTreeMap<String, String>| {
        let mut options = options.clone();
        options.remove("prices");
        client_options(&options, ClientOptions::default())
    };
    if kind == "llm" {
        return Ok(Some(
            LlmConfig::from_options(model, options)?.sent_in_conversation(&client(options)?),
        ));
    }
    match EscaperKind::from_spec(kind) {
        Some(kind) => Ok(Some(
            EscaperConfig::from_options(kind, model, options)?.sent(&client(options)?),
        )),
        None => Ok(None),
    }
}

/// How a client sends and retries, as `run.toml` records it (`client` in `[sent.agent]`):
/// none of it reaches the provider, but a timeout or too few retries can end an episode
/// a patient client would have played on.
fn client_sent(c: &ClientOptions, provider: &str) -> String {
    // a local server's queue would count against the timeout: its client sends no more
    // requests at once than the server decodes (`escapade_llm::open`)
    let concurrency = if provider == "local" {
        c.concurrency.min(c.local.parallel.max(1) as usize)
    } else {
        c.concurrency
    };
    let mut out = format!(
        "timeout {} s per attempt, {} retries, backoff from {} s doubling to {} s with full \
         jitter (Retry-After honoured), at most {} requests at once",
        c.timeout.as_secs_f64(),
        c.max_retries,
        c.backoff_base.as_secs_f64(),
        c.backoff_max.as_secs_f64(),
        concurrency
    );
    if let Some(rpm) = c.rpm {
        out.push_str(&format!(", {rpm} requests a minute"));
    }
    if let Some(tpm) = c.tpm {
        out.push_str(&format!(", {tpm} tokens a minute"));
    }
    // the provider's documented limits unless -A max_pictures / max_picture_mb set others
    let limit = escapade_llm::pictures::PictureBudget::of_provider(provider);
    let count = c.max_pictures.unwrap_or(limit.count);
    let bytes = c.max_picture_bytes.unwrap_or(limit.bytes);
    if count != usize::MAX || bytes != u64::MAX {
        let mb = bytes as f64 / f64::from(1u32 << 20);
        out.push_str(&format!(
            ", at most {count} pictures and {mb} MB of them a request (the oldest become \
             placeholders beyond)"
        ));
    }
    out
}

/// Client settings from the client keys of `options` over `base`. Keys of any model
/// agent kind are allowed here (each kind's config refuses the keys it does not read).
pub fn client_options(
    options: &BTreeMap<String, String>,
    base: ClientOptions,
) -> Result<ClientOptions, AgentError> {
    let every: Vec<&str> = AGENT_KEYS.iter().chain(&ESCAPER_KEYS).copied().collect();
    check_keys_of(options, &every)?;
    let mut o = base;
    for (key, value) in options {
        let v = value.as_str();
        let secs = |v: &str| -> Result<Duration, AgentError> {
            let s: f64 = parse(key, v, "seconds")?;
            if !(s.is_finite() && s > 0.0) {
                return Err(bad(key, v, "a positive number of seconds"));
            }
            Duration::try_from_secs_f64(s).map_err(|_| bad(key, v, "a positive number of seconds"))
        };
        match key.as_str() {
            "base_url" => o.base_url = Some(v.to_string()),
            "timeout" => o.timeout = secs(v)?,
            "retries" => o.max_retries = parse(key, v, "a whole number")?,
            "backend_concurrency" => {
                o.concurrency = parse(key, v, "a positive whole number")?;
                if o.concurrency == 0 {
                    return Err(bad(key, v, "a positive whole number"));
                }
            }
            "rpm" => o.rpm = Some(parse(key, v, "requests per minute")?),
            "tpm" => o.tpm = Some(parse(key, v, "tokens per minute")?),
            "prices" => {
                o.prices = PriceTable::load(&PathBuf::from(v))
                    .map_err(|e| AgentError::Config(format!("prices: {e}")))?;
            }
            // how long a reasoning model thinks: passed through, and part of the run's
            // identity (it changes what is measured)
            "reasoning_effort" => {
                let effort = v.trim();
                if effort.is_empty() || !effort.chars().all(|c| c.is_ascii_alphanumeric()) {
                    return Err(bad(key, v, "a level such as minimal, low, medium or high"));
                }
                o.reasoning_effort = Some(effort.to_string());
            }
            "thinking_budget" => o.thinking_budget = Some(positive(key, v)?),
            // the provider's documented limits are the defaults
            "max_pictures" => o.max_pictures = Some(positive(key, v)? as usize),
            "max_picture_mb" => o.max_picture_bytes = Some(u64::from(positive(key, v)?) << 20),
            "threads" => o.local.threads = positive(key, v)?,
            "context" => o.local.context = parse(key, v, "tokens")?,
            "parallel" => o.local.parallel = positive(key, v)?,
            "python" => o.local.python = Some(PathBuf::from(v)),
            _ => {}
        }
    }
    Ok(o)
}

/// The provider a bare model name most likely belongs to (`gpt-4o` → `openai`), for
/// the message of a `--model` given without one.
fn provider_of(model: &str) -> Option<&'static str> {
    let m = model.trim().to_ascii_lowercase();
    let openai = ["gpt-", "o1", "o3", "o4", "chatgpt", "davinci"];
    if openai.iter().any(|p| m.starts_with(p)) {
        Some("openai")
    } else if m.starts_with("claude") {
        Some("anthropic")
    } else if m == "smollm2" {
        Some("local")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_depend_on_the_backend() {
        let hosted = LlmConfig::from_options("openai/gpt-4o", &opts(&[])).unwrap();
        assert_eq!(hosted.history, History::Full);
        assert!(!hosted.structured_on());
        let local = LlmConfig::from_options("local/smollm2", &opts(&[])).unwrap();
        assert_eq!(local.history, History::Full);
        assert_eq!(local.max_tokens, Some(256));
        assert!(local.structured_on());
        assert!(!local.images);
    }

    #[test]
    fn a_model_without_its_provider_is_answered_with_a_guess() {
        let e = LlmConfig::from_options("gpt-4o", &opts(&[]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("did you mean openai/gpt-4o?"), "{e}");
        let e = LlmConfig::from_options("claude-sonnet-4-5", &opts(&[]))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("did you mean anthropic/claude-sonnet-4-5?"),
            "{e}"
        );
        let e = LlmConfig::from_options("qwen3", &opts(&[]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("openai-compatible/qwen3"), "{e}");
    }

    #[test]
    fn options_apply_and_typos_are_refused() {
        let c = LlmConfig::from_options(
            "openai/gpt-4o",
            &opts(&[
                ("history", "key:2"),
                ("reask", "5"),
                ("protocol", "tools"),
                ("temperature", "0.7"),
            ]),
        )
        .unwrap();
        assert_eq!(c.history, History::Key(2));
        assert_eq!(c.reask, Some(5));
        assert_eq!(c.protocol, Protocol::Tools);
        assert!((c.temperature.unwrap() - 0.7).abs() < 1e-6);
        let e =
            LlmConfig::from_options("openai/gpt-4o", &opts(&[("temprature", "1")])).unwrap_err();
        assert!(e.to_string().contains("unknown option `temprature`"), "{e}");
        assert!(LlmConfig::from_options("gpt-4o", &opts(&[])).is_err());
        for (k, v) in [
            ("temperature", "9"),
            ("max_tokens", "0"),
            ("images", "maybe"),
            ("reask", "-1"),
        ] {
            assert!(
                LlmConfig::from_options("openai/x", &opts(&[(k, v)])).is_err(),
                "{k}={v}"
            );
        }
    }

    /// Issue 25: what the requests carry is a setting, and `sent()` words it, "not
    /// sent" included.
    #[test]
    fn decoding_and_picture_options_and_what_is_sent() {
        let c = LlmConfig::from_options(
            "openai/gpt-4o",
            &opts(&[
                ("temperature", "none"),
                ("max_tokens", "none"),
                ("pictures", "jpeg"),
                ("detail", "low"),
                ("history_images", "all"),
                ("image_budget", "5"),
                ("reask_history", "keep"),
            ]),
        )
        .unwrap();
        assert_eq!((c.temperature, c.max_tokens), (None, None));
        assert_eq!(
            c.pictures,
            Pictures {
                encoding: escapade_llm::Encoding::Jpeg { quality: 75 },
                detail: Some(Detail::Low)
            }
        );
        assert_eq!(c.history_images, HistoryImages::All);
        assert_eq!(c.image_budget, 5_000_000);
        assert_eq!(c.reask_history, ReaskHistory::Keep);
        let sent = c.sent_in_conversation(&ClientOptions::default());
        assert_eq!(sent["temperature"], NOT_SENT);
        assert_eq!(sent["max_tokens"], NOT_SENT);
        assert_eq!(sent["top_p"], NOT_SENT);
        assert_eq!(sent["stop"], NOT_SENT);
        assert_eq!(sent["reply_format"], TEXT_FORMAT);
        assert_eq!(sent["pictures"], "JPEG quality 75, detail low");
        assert_eq!(
            sent["history_images"],
            "every step's sent, up to 5 MB a request"
        );
        // the defaults: temperature 0, 2048 tokens, PNG, the current picture, drop
        let d =
            LlmConfig::from_options("anthropic/claude", &opts(&[("max_tokens", "none")])).unwrap();
        let sent = d.sent_in_conversation(&ClientOptions::default());
        assert_eq!(sent["temperature"], "0");
        assert_eq!(sent["max_tokens"], "1024 (the Anthropic API requires one)");
        assert!(sent["seed"].starts_with(NOT_SENT), "{}", sent["seed"]);
        assert_eq!(sent["pictures"], "PNG, no detail");
        assert_eq!(sent["history_images"], "the current step's only");
        assert_eq!(d.reask_history, ReaskHistory::Drop);
        // a local model: constrained JSON replies and pictures as text
        let local = LlmConfig::from_options("local/smollm2", &opts(&[]))
            .unwrap()
            .sent(&ClientOptions::default());
        assert_eq!(local["reply_format"], STRUCTURED_FORMAT);
        assert!(
            local["pictures"].starts_with("replaced by"),
            "{}",
            local["pictures"]
        );
        assert_eq!(local["max_tokens"], "256");
        for (k, v) in [
            ("pictures", "gif"),
            ("pictures", "jpeg:0"),
            ("detail", "fine"),
            ("history_images", "some"),
            ("image_budget", "0"),
            ("image_budget", "-1"),
            ("reask_history", "maybe"),
            ("temperature", "nothing"),
        ] {
            assert!(
                LlmConfig::from_options("openai/x", &opts(&[(k, v)])).is_err(),
                "{k}={v}"
            );
        }
        // the VisEscape agents take the picture keys, not the conversation's
        assert!(ESCAPER_KEYS.contains(&"pictures") && ESCAPER_KEYS.contains(&"detail"));
        assert!(!ESCAPER_KEYS.contains(&"history_images"));
        let escaper = sent_of(
            "visescaper",
            &opts(&[("model", "openai/x"), ("temperature", "none")]),
        )
        .unwrap()
        .unwrap();
        assert_eq!(escaper["temperature"], NOT_SENT);
        assert!(!escaper.contains_key("history"));
        assert_eq!(sent_of("oracle", &opts(&[])).unwrap(), None);
    }

    /// What the backend puts on the wire, not only what the user typed: Anthropic's
    /// extended thinking sends no temperature and a `max_tokens` that holds the budget,
    /// and offers the `respond` tool instead of forcing it; OpenAI's API takes the cap as
    /// `max_completion_tokens`; the client's timeout and retries are recorded too.
    #[test]
    fn sent_says_what_the_backend_sends() {
        let client = |pairs: &[(&str, &str)]| {
            client_options(&opts(pairs), ClientOptions::default()).unwrap()
        };
        let claude = LlmConfig::from_options(
            "anthropic/claude",
            &opts(&[("temperature", "0.7"), ("structured", "on")]),
        )
        .unwrap();
        let plain = claude.sent(&client(&[]));
        assert_eq!(plain["temperature"], "0.7");
        assert_eq!(plain["max_tokens"], "2048");
        assert_eq!(plain["thinking"], NOT_SENT);
        assert_eq!(plain["api_version"], "anthropic-version 2023-06-01");
        assert_eq!(
            plain["tool_choice"],
            "tool respond (forced: the reply is its input)"
        );
        assert!(!plain.contains_key("reasoning_effort"));
        assert!(
            !plain.contains_key("response_format"),
            "a forced tool instead"
        );
        let local_sent = LlmConfig::from_options("local/smollm2", &opts(&[]))
            .unwrap()
            .sent(&client(&[]));
        assert_eq!(
            local_sent["response_format"],
            "json_schema named action, strict false"
        );
        let thinking = claude.sent(&client(&[("thinking_budget", "1024")]));
        assert_eq!(
            thinking["temperature"],
            "not sent (extended thinking takes none; temperature=0.7 not applied)"
        );
        assert_eq!(
            thinking["max_tokens"],
            "3072 (2048 for the answer plus the thinking budget 1024)"
        );
        assert_eq!(thinking["thinking"], "enabled, budget_tokens 1024");
        assert!(thinking["tool_choice"].starts_with("auto"), "{thinking:?}");
        let gpt = LlmConfig::from_options("openai/gpt", &opts(&[])).unwrap();
        let sent = gpt.sent(&client(&[("reasoning_effort", "low"), ("retries", "2")]));
        assert_eq!(sent["max_tokens"], "2048 (as max_completion_tokens)");
        assert_eq!(sent["reasoning_effort"], "low");
        assert_eq!(sent["tool_choice"], NOT_SENT);
        assert_eq!(
            sent["client"],
            "timeout 120 s per attempt, 2 retries, backoff from 0.5 s doubling to 30 s \
             with full jitter (Retry-After honoured), at most 16 requests at once, at most \
             500 pictures and 50 MB of them a request (the oldest become placeholders beyond)"
        );
        let claude_client = claude.sent(&client(&[("max_picture_mb", "10")]));
        assert!(
            claude_client["client"]
                .ends_with("at most 100 pictures and 10 MB of them a request (the oldest become placeholders beyond)"),
            "{claude_client:?}"
        );
        let compatible = LlmConfig::from_options("openai-compatible/m", &opts(&[])).unwrap();
        assert_eq!(compatible.sent(&client(&[]))["max_tokens"], "2048");
        // a local server decodes one request at a time unless told otherwise
        let local = LlmConfig::from_options("local/smollm2", &opts(&[])).unwrap();
        assert!(
            local.sent(&client(&[]))["client"].contains("at most 1 requests at once"),
            "{:?}",
            local.sent(&client(&[]))
        );
        // the local server's context, as started (and split among its slots)
        let server = local.sent(&client(&[
            ("context", "100"),
            ("parallel", "2"),
            ("threads", "3"),
        ]));
        assert_eq!(
            server["server"],
            "llama.cpp (xllamacpp) on loopback: context 256 tokens over 2 slot(s), 128 a \
             request; 3 threads; its own sampling defaults for what is not sent"
        );
        assert!(!gpt.sent(&client(&[])).contains_key("server"));
        // VisEscaper's analysis and memory calls carry what its acting calls carry
        let escaper = sent_of("visescaper", &opts(&[("model", "openai/x")]))
            .unwrap()
            .unwrap();
        assert_eq!(escaper["max_tokens"], "2048 (as max_completion_tokens)");
        // captions by another model: its provider decides what goes out
        let captioned = LlmConfig::from_options(
            "openai/x",
            &opts(&[
                ("socratic", "captions"),
                ("captioner", "anthropic/claude"),
                ("max_tokens", "none"),
            ]),
        )
        .unwrap();
        assert_eq!(
            captioned.sent(&client(&[]))["captions"],
            "by anthropic/claude: temperature 0; max_tokens 1024 (the Anthropic API requires \
             one); seed not sent (the Anthropic API has none); pictures PNG, no detail"
        );
        let base = sent_of("base", &opts(&[("model", "openai/x")]))
            .unwrap()
            .unwrap();
        assert_eq!(base["max_tokens"], "2048 (as max_completion_tokens)");
    }

    #[test]
    fn socratic_options_are_checked() {
        let c = LlmConfig::from_options(
            "openai/gpt-4o",
            &opts(&[
                ("socratic", "captions"),
                ("captioner", "openai/gpt-4o-mini"),
            ]),
        )
        .unwrap();
        assert_eq!(c.socratic, Socratic::Captions);
        assert_eq!(c.captioner.as_deref(), Some("openai/gpt-4o-mini"));
        let off = LlmConfig::from_options("openai/x", &opts(&[])).unwrap();
        assert_eq!((off.socratic, off.captioner), (Socratic::Off, None));
        for pairs in [
            &[("socratic", "maybe")][..],
            &[("captioner", "openai/x")][..],
            &[("socratic", "captions"), ("captioner", "gpt-4o")][..],
        ] {
            assert!(
                LlmConfig::from_options("openai/x", &opts(pairs)).is_err(),
                "{pairs:?}"
            );
        }
        // the llm agent refuses the keys of the VisEscape agents, the client allows them
        let e = LlmConfig::from_options("openai/x", &opts(&[("memory", "on")])).unwrap_err();
        assert!(e.to_string().contains("unknown option `memory`"), "{e}");
        assert!(client_options(&opts(&[("memory", "on")]), ClientOptions::default()).is_ok());
        assert!(client_options(&opts(&[("memry", "on")]), ClientOptions::default()).is_err());
    }

    #[test]
    fn rate_limits_are_split_among_workers_and_other_keys_kept() {
        let mut o = opts(&[("rpm", "60"), ("tpm", "100000"), ("timeout", "30")]);
        assert!(share_rate_limits(&mut o, 4).is_empty());
        assert_eq!(
            o,
            opts(&[("rpm", "15"), ("tpm", "25000"), ("timeout", "30")])
        );
        // rounded down, so four workers together never pass the limit
        let mut o = opts(&[("rpm", "10")]);
        share_rate_limits(&mut o, 4);
        assert_eq!(o["rpm"], "2");
        // below one per worker: 1 each, and said
        let mut o = opts(&[("rpm", "3")]);
        let warnings = share_rate_limits(&mut o, 4);
        assert_eq!(o["rpm"], "1");
        assert!(warnings[0].contains("rpm=3") && warnings[0].contains("4 workers"));
        // one worker (or none given): unchanged; a bad value is left to be refused
        let mut o = opts(&[("rpm", "7"), ("tpm", "lots")]);
        share_rate_limits(&mut o, 1);
        assert_eq!(o, opts(&[("rpm", "7"), ("tpm", "lots")]));
    }

    #[test]
    fn client_keys_fill_client_options() {
        let o = client_options(
            &opts(&[
                ("timeout", "2.5"),
                ("retries", "1"),
                ("rpm", "60"),
                ("threads", "2"),
            ]),
            ClientOptions::default(),
        )
        .unwrap();
        assert_eq!(o.timeout, Duration::from_millis(2500));
        assert_eq!((o.max_retries, o.rpm, o.local.threads), (1, Some(60), 2));
        assert!(client_options(&opts(&[("timeout", "-1")]), ClientOptions::default()).is_err());
        // reasoning and picture limits pass through to the client
        let o = client_options(
            &opts(&[
                ("reasoning_effort", "high"),
                ("thinking_budget", "2048"),
                ("max_pictures", "8"),
                ("max_picture_mb", "3"),
            ]),
            ClientOptions::default(),
        )
        .unwrap();
        assert_eq!(o.reasoning_effort.as_deref(), Some("high"));
        assert_eq!(o.thinking_budget, Some(2048));
        assert_eq!(
            (o.max_pictures, o.max_picture_bytes),
            (Some(8), Some(3 << 20))
        );
        for (k, v) in [
            ("reasoning_effort", "very high"),
            ("thinking_budget", "0"),
            ("max_pictures", "none"),
        ] {
            assert!(
                client_options(&opts(&[(k, v)]), ClientOptions::default()).is_err(),
                "{k}={v}"
            );
        }
    }
}
