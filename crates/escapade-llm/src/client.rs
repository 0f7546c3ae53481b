//! The one front door to every model: [`open`] turns a `provider/model` spec into a
//! [`Client`], and [`Client::chat`] adds what every provider needs the same way.
//!
//! Backends make exactly one attempt per call. The client first fits the request's
//! pictures to the provider's budget ([`crate::pictures`]) and looks it up in the
//! response cache ([`crate::cache`]); a request that must go out reserves its worst cost
//! under the run's cost cap ([`crate::spend`]). Each call then gets an adaptive
//! concurrency permit, optional RPM/TPM windows, a timeout, and retries with exponential
//! backoff and full jitter (honouring `Retry-After`); a request refused as too large
//! loses its older pictures and goes again. The reply is priced and kept in the cache.
//! Live totals ([`ClientStats`]) feed progress bars.

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use crate::cache::ResponseCache;
use crate::limits::{AdaptiveLimit, RequestWindow, TokenWindow, backoff, lock};
use crate::pictures::{self, PictureBudget};
use crate::spend::{CostCap, Reservation};
use crate::{
    Backend, CacheUse, ChatRequest, ChatResponse, ClientOptions, Completion, LlmError, PriceTable,
    TokenUsage, anthropic, local, openai, scripted,
};

/// The reply length a cost reservation assumes when a request sets no `max_tokens`.
pub const WORST_REPLY_TOKENS: u32 = 4096;

/// Providers [`open`] knows, as listed in error messages.
pub const PROVIDERS: &[&str] = &[
    "openai",
    "openai-compatible",
    "anthropic",
    "scripted",
    "local",
];

/// Default base URL of `openai/…`.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// Default base URL of `anthropic/…`.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";

/// Opens a backend from a `provider/model` spec, reading API keys from the process
/// environment:
///
/// - `openai/<model>`: key `OPENAI_API_KEY`, base `https://api.openai.com/v1` unless
///   `options.base_url` is set;
/// - `openai-compatible/<model>`: base `options.base_url`, else `OPENAI_BASE_URL`; key
///   `OPENAI_API_KEY` if set (vLLM, llama.cpp server, Ollama);
/// - `anthropic/<model>`: key `ANTHROPIC_API_KEY`, base `https://api.anthropic.com`;
/// - `scripted/<path-to-jsonl>`: replays a script (see [`crate::scripted`]);
/// - `local/smollm2` or `local/<path.gguf>`: starts the local llama.cpp server (see
///   [`crate::local`]; `escapade setup` installs it).
pub async fn open(spec: &str, options: &ClientOptions) -> Result<Client, LlmError> {
    open_with_env(spec, options, &|var| std::env::var(var).ok()).await
}

/// [`open`] with an injected environment lookup (tests use it instead of mutating the
/// process environment). Empty values count as unset.
pub async fn open_with_env(
    spec: &str,
    options: &ClientOptions,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
) -> Result<Client, LlmError> {
    let (provider, model) = parse_spec(spec)?;
    check_reasoning_options(provider, options)?;
    let effort = options.reasoning_effort.clone();
    let backend: Arc<dyn Backend> = match (provider, remote(provider, options, env)?) {
        ("openai", Some(r)) => Arc::new(
            openai::OpenAiBackend::new(spec, model, &r.base, r.key, openai::Flavor::OpenAi)?
                .with_reasoning_effort(effort),
        ),
        ("openai-compatible", Some(r)) => Arc::new(
            openai::OpenAiBackend::new(spec, model, &r.base, r.key, openai::Flavor::Compatible)?
                .with_reasoning_effort(effort),
        ),
        (
            "anthropic",
            Some(Remote {
                base,
                key: Some(key),
            }),
        ) => Arc::new(
            anthropic::AnthropicBackend::new(spec, model, &base, key)?
                .with_thinking_budget(options.thinking_budget)?,
        ),
        ("scripted", _) => Arc::new(scripted::ScriptedBackend::open(spec, model)?),
        ("local", _) => Arc::new(
            local::LocalBackend::start(model, &options.local)
                .await?
                .with_reasoning_effort(effort),
        ),
        _ => unreachable!("parse_spec only returns known providers; remote() covers each"),
    };
    if provider == "local" {
        // requests queued inside the server would count against the request timeout
        let mut options = options.clone();
        options.concurrency = options
            .concurrency
            .min(options.local.parallel.max(1) as usize);
        return Ok(Client::new(backend, &options));
    }
    Ok(Client::new(backend, options))
}

/// Checks what [`open`] would need from the spec and the process environment — a known
/// provider, the API key, a server address — without starting or calling anything, so
/// a command can refuse a missing key before it does any work. A local model's
/// installation and a script's file are checked when they are opened.
pub fn preflight(spec: &str, options: &ClientOptions) -> Result<(), LlmError> {
    preflight_with_env(spec, options, &|var| std::env::var(var).ok())
}

/// [`preflight`] with an injected environment lookup.
pub fn preflight_with_env(
    spec: &str,
    options: &ClientOptions,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
) -> Result<(), LlmError> {
    let (provider, _) = parse_spec(spec)?;
    check_reasoning_options(provider, options)?;
    remote(provider, options, env).map(|_| ())
}

/// Refuses a reasoning setting the provider has no field for: `thinking_budget` is
/// Anthropic's extended thinking, `reasoning_effort` the OpenAI-shaped field (a scripted
/// backend takes and ignores both).
fn check_reasoning_options(provider: &str, options: &ClientOptions) -> Result<(), LlmError> {
    if options.thinking_budget.is_some() && !matches!(provider, "anthropic" | "scripted") {
        return Err(LlmError::Config(format!(
            "thinking_budget applies to anthropic/… models; {provider}/… models take \
             reasoning_effort (low, medium, high)"
        )));
    }
    if options.reasoning_effort.is_some() && provider == "anthropic" {
        return Err(LlmError::Config(
            "reasoning_effort applies to OpenAI-shaped backends; anthropic/… models take \
             thinking_budget=N (tokens, at least 1024)"
                .into(),
        ));
    }
    Ok(())
}

/// Where a remote provider is reached, and with which key.
struct Remote {
    base: String,
    key: Option<String>,
}

/// The address and key of a remote provider (`None` for `scripted` and `local`), read
/// from the options and the environment; empty values count as unset.
fn remote(
    provider: &str,
    options: &ClientOptions,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
) -> Result<Option<Remote>, LlmError> {
    let lookup = |var: &str| env(var).filter(|v| !v.trim().is_empty());
    let required = |provider: &str, var: &str| {
        lookup(var).ok_or_else(|| LlmError::MissingKey {
            provider: provider.into(),
            var: var.into(),
        })
    };
    Ok(Some(match provider {
        "openai" => Remote {
            key: Some(required("OpenAI", "OPENAI_API_KEY")?),
            base: options.base_url.as_deref().unwrap_or(OPENAI_BASE_URL).into(),
        },
        "openai-compatible" => Remote {
            base: options.base_url.clone().or_else(|| lookup("OPENAI_BASE_URL")).ok_or_else(
                || LlmError::BadBaseUrl {
                    url: String::new(),
                    reason: "openai-compatible needs a server address: pass --base-url or set OPENAI_BASE_URL (e.g. http://localhost:8000/v1)".into(),
                },
            )?,
            key: lookup("OPENAI_API_KEY"),
        },
        "anthropic" => Remote {
            key: Some(required("Anthropic", "ANTHROPIC_API_KEY")?),
            base: options.base_url.as_deref().unwrap_or(ANTHROPIC_BASE_URL).into(),
        },
        _ => return Ok(None),
    }))
}

/// Splits `provider/model`, refusing unknown providers and empty parts.
pub fn parse_spec(spec: &str) -> Result<(&'static str, &str), LlmError> {
    let known = PROVIDERS.join(", ");
    let Some((provider, model)) = spec.split_once('/') else {
        return Err(LlmError::UnknownBackend {
            spec: spec.to_string(),
            reason: format!("expected `provider/model`; known providers: {known}"),
        });
    };
    let Some(provider) = PROVIDERS.iter().find(|p| **p == provider) else {
        return Err(LlmError::UnknownBackend {
            spec: spec.to_string(),
            reason: format!("unknown provider `{provider}`; known providers: {known}"),
        });
    };
    if model.trim().is_empty() {
        return Err(LlmError::UnknownBackend {
            spec: spec.to_string(),
            reason: format!("missing model name after `{provider}/`"),
        });
    }
    Ok((provider, model))
}

/// Live totals of one [`Client`] (all clones share them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientStats {
    /// Logical requests started ([`Client::chat`] calls).
    pub requests: u64,
    /// Backend calls made (requests plus retries).
    pub attempts: u64,
    /// Retries after transient failures.
    pub retries: u64,
    /// Attempts answered with HTTP 429.
    pub rate_limited: u64,
    /// Requests that finally failed.
    pub failures: u64,
    /// Prompt tokens of successful replies.
    pub input_tokens: u64,
    /// Completion tokens of successful replies.
    pub output_tokens: u64,
    /// Cached prompt tokens of successful replies.
    pub cached_tokens: u64,
    /// Reasoning tokens of successful replies (part of `output_tokens`).
    pub reasoning_tokens: u64,
    /// Requests answered from the response cache.
    pub cache_hits: u64,
    /// Lookups or writes of the response cache that failed (the request went to the
    /// provider, or its reply was not kept).
    pub cache_errors: u64,
    /// Replies cut at the output token limit.
    pub truncated: u64,
    /// Pictures left out of requests ([`crate::pictures`]).
    pub pictures_dropped: u64,
    /// Requests the run's cost cap refused.
    pub capped: u64,
    /// Total cost in US dollars.
    pub cost_usd: f64,
    /// Backend calls in progress now.
    pub in_flight: usize,
    /// The adaptive concurrency limit now.
    pub concurrency_limit: usize,
}

struct Inner {
    backend: Arc<dyn Backend>,
    name: String,
    timeout: Duration,
    max_retries: u32,
    backoff_base: Duration,
    backoff_max: Duration,
    prices: PriceTable,
    limit: AdaptiveLimit,
    rpm: Option<Mutex<RequestWindow>>,
    tpm: Option<Mutex<TokenWindow>>,
    totals: Mutex<ClientStats>,
    /// The cache and how it is used, when the backend's replies may be cached.
    cache: Option<(CacheUse, String)>,
    cost_cap: Option<Arc<CostCap>>,
    pictures: PictureBudget,
    /// Tokens a reply may think beyond `max_tokens` (Anthropic's thinking budget).
    thinking: u32,
}

/// A model backend with retries, limits, a timeout, and usage and cost accounting.
/// Cloning is cheap and clones share limits and totals; a `local/…` server stops when the
/// last clone drops.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("name", &self.inner.name)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Wraps a backend with the retry, limit, timeout and price settings of `options`.
    pub fn new(backend: Arc<dyn Backend>, options: &ClientOptions) -> Client {
        let name = backend.name();
        let provider = name.split_once('/').map_or(name.as_str(), |(p, _)| p);
        let default = PictureBudget::of_provider(provider);
        let pictures = PictureBudget {
            count: options.max_pictures.unwrap_or(default.count),
            bytes: options.max_picture_bytes.unwrap_or(default.bytes),
        };
        // a backend without a cache identity (a script) is never cached
        let cache = options
            .cache
            .clone()
            .zip(backend.cache_identity())
            .filter(|(c, _)| c.mode.reads() || c.mode.writes());
        Client {
            inner: Arc::new(Inner {
                backend,
                name,
                timeout: options.timeout,
                max_retries: options.max_retries,
                backoff_base: options.backoff_base,
                backoff_max: options.backoff_max,
                prices: options.prices.clone(),
                limit: AdaptiveLimit::new(options.concurrency),
                rpm: options.rpm.map(|rpm| Mutex::new(RequestWindow::new(rpm))),
                tpm: options.tpm.map(|tpm| Mutex::new(TokenWindow::new(tpm))),
                totals: Mutex::new(ClientStats::default()),
                cache,
                cost_cap: options.cost_cap.clone(),
                pictures,
                thinking: options.thinking_budget.unwrap_or(0),
            }),
        }
    }

    /// The backend spec, e.g. `openai/gpt-4o`.
    pub fn name(&self) -> String {
        self.inner.name.clone()
    }

    /// Live totals.
    pub fn stats(&self) -> ClientStats {
        let mut stats = lock(&self.inner.totals).clone();
        stats.in_flight = self.inner.limit.in_flight();
        stats.concurrency_limit = self.inner.limit.limit();
        stats
    }

    /// One reply: fits the pictures to the budget, answers from the response cache when
    /// it can, reserves the request's worst cost under the cost cap, then waits for a
    /// concurrency slot and the RPM/TPM windows, calls the backend under the timeout, and
    /// retries transient failures with backoff (a request refused as too large loses the
    /// older half of its pictures and goes again). Permanent errors return at once; after
    /// `max_retries` retries the last error comes back wrapped in
    /// [`LlmError::RetriesExhausted`]; a request the cap refuses is
    /// [`LlmError::CostCap`], and nothing was sent.
    pub async fn chat(&self, request: &ChatRequest) -> Result<Completion, LlmError> {
        let inner = &*self.inner;
        self.update(|s| s.requests += 1);
        let (mut request, mut dropped) = match pictures::fit(request, inner.pictures) {
            Some((fitted, n)) => (Cow::Owned(fitted), n),
            None => (Cow::Borrowed(request), 0),
        };
        let key = inner
            .cache
            .as_ref()
            .map(|(_, identity)| ResponseCache::key(identity, &request));
        if let (Some((cache, _)), Some(key)) = (&inner.cache, &key)
            && cache.mode.reads()
        {
            let (store, k) = (Arc::clone(&cache.store), key.clone());
            let found = tokio::task::spawn_blocking(move || store.get(&k))
                .await
                .unwrap_or_else(|e| Err(LlmError::Config(e.to_string())));
            match found {
                Ok(Some(response)) => return Ok(self.cache_hit(response, dropped)),
                Ok(None) => {}
                Err(_) => self.update(|s| s.cache_errors += 1),
            }
        }
        let mut reservation = match &inner.cost_cap {
            None => None,
            Some(cap) => match cap.reserve(self.worst_cost(&request)) {
                Ok(r) => Some(r),
                Err(e) => {
                    self.update(|s| {
                        s.capped += 1;
                        s.failures += 1;
                    });
                    return Err(e);
                }
            },
        };
        let result = self
            .send(&mut request, &mut dropped, &mut reservation)
            .await;
        if let (Ok(completion), Some((cache, _)), Some(key)) = (&result, &inner.cache, key)
            && cache.mode.writes()
        {
            let store = Arc::clone(&cache.store);
            let (name, response) = (inner.name.clone(), completion.response.clone());
            let kept = tokio::task::spawn_blocking(move || store.put(&key, &name, &response))
                .await
                .unwrap_or_else(|e| Err(LlmError::Config(e.to_string())));
            if kept.is_err() {
                self.update(|s| s.cache_errors += 1);
            }
        }
        result
    }

    /// A reply from the response cache: its tokens as the provider counted them then, no
    /// cost, no latency, one cache hit.
    fn cache_hit(&self, response: ChatResponse, dropped: usize) -> Completion {
        let tokens = response.usage;
        let truncated = u64::from(response.truncated());
        self.update(|s| {
            s.cache_hits += 1;
            s.input_tokens += tokens.input;
            s.output_tokens += tokens.output;
            s.cached_tokens += tokens.cached;
            s.reasoning_tokens += tokens.reasoning;
            s.truncated += truncated;
            s.pictures_dropped += dropped as u64;
        });
        Completion {
            usage: escapade_core::Usage {
                input: tokens.input,
                output: tokens.output,
                cached: tokens.cached,
                reasoning: tokens.reasoning,
                cache_hits: 1,
                truncated,
                ..escapade_core::Usage::default()
            },
            response,
            attempts: 0,
            pictures_dropped: u32::try_from(dropped).unwrap_or(u32::MAX),
        }
    }

    /// The most `request` can cost: its prompt as [`crate::tokens`] counts it, and a
    /// reply of its whole `max_tokens` ([`WORST_REPLY_TOKENS`] when unset) plus any
    /// thinking budget, at this model's price (0 for a model without one).
    pub fn worst_cost(&self, request: &ChatRequest) -> f64 {
        let inner = &*self.inner;
        let output =
            request.max_tokens.unwrap_or(WORST_REPLY_TOKENS) as u64 + inner.thinking as u64;
        let usage = TokenUsage {
            input: crate::tokens::request_tokens(&inner.name, request, 0),
            output,
            ..TokenUsage::default()
        };
        inner.prices.cost(&inner.name, &usage)
    }

    /// Sends `request` with retries (see [`Client::chat`]); pictures dropped after a
    /// refusal are counted into `dropped`, and the reply's cost settles `reservation`.
    async fn send(
        &self,
        request: &mut Cow<'_, ChatRequest>,
        dropped: &mut usize,
        reservation: &mut Option<Reservation>,
    ) -> Result<Completion, LlmError> {
        let inner = &*self.inner;
        // Set at the first attempt: time queued for a permit is not model latency.
        let mut started: Option<Instant> = None;
        let mut attempts: u32 = 0;
        loop {
            let permit = inner.limit.acquire().await;
            self.wait_for_windows().await;
            let started = *started.get_or_insert_with(Instant::now);
            attempts += 1;
            self.update(|s| s.attempts += 1);
            let result =
                match tokio::time::timeout(inner.timeout, inner.backend.chat(request)).await {
                    Ok(result) => result,
                    Err(_) => Err(LlmError::Timeout(inner.timeout)),
                };
            drop(permit);
            let error = match result {
                Ok(response) => {
                    inner.limit.on_success();
                    let tokens = response.usage;
                    if let Some(tpm) = &inner.tpm {
                        lock(tpm).record(Instant::now(), tokens.input + tokens.output);
                    }
                    let cost_usd = inner.prices.cost(&inner.name, &tokens);
                    if let Some(r) = reservation.take() {
                        r.settle(cost_usd);
                    }
                    let truncated = u64::from(response.truncated());
                    let pictures = *dropped;
                    self.update(|s| {
                        s.input_tokens += tokens.input;
                        s.output_tokens += tokens.output;
                        s.cached_tokens += tokens.cached;
                        s.reasoning_tokens += tokens.reasoning;
                        s.truncated += truncated;
                        s.pictures_dropped += pictures as u64;
                        s.cost_usd += cost_usd;
                    });
                    let latency_ms =
                        u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
                    return Ok(Completion {
                        response,
                        usage: escapade_core::Usage {
                            input: tokens.input,
                            output: tokens.output,
                            cached: tokens.cached,
                            cost_usd,
                            latency_ms,
                            reasoning: tokens.reasoning,
                            truncated,
                            cache_hits: 0,
                        },
                        attempts,
                        pictures_dropped: u32::try_from(pictures).unwrap_or(u32::MAX),
                    });
                }
                Err(error) => error,
            };
            // too large for the provider: the older half of the pictures go, and the
            // request goes again at once (a refusal is not a transient failure)
            let (left, _) = pictures::count(request);
            if left > 0 && pictures::refused_as_too_large(&error) {
                *dropped += pictures::drop_oldest(request.to_mut(), left.div_ceil(2));
                continue;
            }
            if is_rate_limit(&error) {
                inner.limit.on_rate_limited();
                self.update(|s| s.rate_limited += 1);
            }
            if !error.is_transient() {
                self.update(|s| s.failures += 1);
                return Err(error);
            }
            let retry = attempts - 1;
            if retry >= inner.max_retries {
                self.update(|s| s.failures += 1);
                return Err(LlmError::RetriesExhausted {
                    attempts,
                    last: Box::new(error),
                });
            }
            let delay = backoff(
                retry,
                inner.backoff_base,
                inner.backoff_max,
                error.retry_after(),
                &mut rand::rng(),
            );
            self.update(|s| s.retries += 1);
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
        }
    }

    async fn wait_for_windows(&self) {
        if let Some(rpm) = &self.inner.rpm {
            loop {
                let wait = lock(rpm).try_start(Instant::now());
                match wait {
                    Ok(()) => break,
                    Err(wait) => tokio::time::sleep(wait.max(Duration::from_millis(1))).await,
                }
            }
        }
        if let Some(tpm) = &self.inner.tpm {
            loop {
                let wait = lock(tpm).check(Instant::now());
                match wait {
                    Ok(()) => break,
                    Err(wait) => tokio::time::sleep(wait.max(Duration::from_millis(1))).await,
                }
            }
        }
    }

    fn update(&self, f: impl FnOnce(&mut ClientStats)) {
        f(&mut lock(&self.inner.totals));
    }

    /// The backend this client wraps.
    pub fn backend(&self) -> &Arc<dyn Backend> {
        &self.inner.backend
    }
}

fn is_rate_limit(error: &LlmError) -> bool {
    matches!(
        error,
        LlmError::RateLimited { .. } | LlmError::Http { status: 429, .. }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_with<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + Sync + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_string())
        }
    }

    #[test]
    fn spec_parsing_refuses_unknown_and_malformed() {
        assert_eq!(parse_spec("openai/gpt-4o").ok(), Some(("openai", "gpt-4o")));
        assert_eq!(
            parse_spec("openai-compatible/meta/llama-3").ok(),
            Some(("openai-compatible", "meta/llama-3"))
        );
        for bad in ["gpt-4o", "mystery/model", "openai/", "/x", ""] {
            match parse_spec(bad) {
                Err(LlmError::UnknownBackend { spec, reason }) => {
                    assert_eq!(spec, bad);
                    if bad == "mystery/model" || bad == "gpt-4o" {
                        assert!(reason.contains("openai-compatible"), "{reason}");
                        assert!(reason.contains("anthropic"), "{reason}");
                    }
                }
                other => panic!("{bad}: {other:?}"),
            }
        }
    }

    #[test]
    fn preflight_refuses_what_open_would_refuse_without_starting_anything() {
        let options = ClientOptions::default();
        let none = env_with(&[]);
        let keyed = env_with(&[("OPENAI_API_KEY", "k"), ("ANTHROPIC_API_KEY", "k")]);
        for (spec, var) in [
            ("openai/gpt-4o", "OPENAI_API_KEY"),
            ("anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
        ] {
            match preflight_with_env(spec, &options, &none) {
                Err(LlmError::MissingKey { var: got, .. }) => assert_eq!(got, var),
                other => panic!("{spec}: {other:?}"),
            }
            assert!(preflight_with_env(spec, &options, &keyed).is_ok(), "{spec}");
        }
        assert!(matches!(
            preflight_with_env("openai-compatible/m", &options, &none),
            Err(LlmError::BadBaseUrl { .. })
        ));
        let based = env_with(&[("OPENAI_BASE_URL", "http://localhost:9/v1")]);
        assert!(preflight_with_env("openai-compatible/m", &options, &based).is_ok());
        // local models and scripts are checked when opened: nothing starts here
        assert!(preflight_with_env("local/smollm2", &options, &none).is_ok());
        assert!(matches!(
            preflight_with_env("mystery/m", &options, &none),
            Err(LlmError::UnknownBackend { .. })
        ));
    }

    #[tokio::test]
    async fn missing_keys_are_reported_by_variable_name() {
        let options = ClientOptions::default();
        let none = env_with(&[]);
        match open_with_env("openai/gpt-4o", &options, &none).await {
            Err(LlmError::MissingKey { var, .. }) => assert_eq!(var, "OPENAI_API_KEY"),
            other => panic!("{other:?}"),
        }
        match open_with_env("anthropic/claude-sonnet-4", &options, &none).await {
            Err(LlmError::MissingKey { var, .. }) => assert_eq!(var, "ANTHROPIC_API_KEY"),
            other => panic!("{other:?}"),
        }
        let blank = env_with(&[("OPENAI_API_KEY", "  ")]);
        assert!(matches!(
            open_with_env("openai/gpt-4o", &options, &blank).await,
            Err(LlmError::MissingKey { .. })
        ));
        match open_with_env("nope/x", &options, &none).await {
            Err(LlmError::UnknownBackend { .. }) => {}
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn keys_never_appear_in_debug_output() {
        let options = ClientOptions::default();
        let env = env_with(&[
            ("OPENAI_API_KEY", "sk-secret-openai"),
            ("ANTHROPIC_API_KEY", "sk-ant-secret"),
        ]);
        let openai = open_with_env("openai/gpt-4o", &options, &env)
            .await
            .expect("opens with a key");
        assert_eq!(openai.name(), "openai/gpt-4o");
        let anthropic = open_with_env("anthropic/claude-sonnet-4", &options, &env)
            .await
            .expect("opens with a key");
        let text = format!("{openai:?} {anthropic:?} {:?}", openai.backend().name());
        assert!(!text.contains("secret"), "{text}");
    }

    #[tokio::test]
    async fn base_urls_are_validated() {
        let none = env_with(&[]);
        let options = ClientOptions::default();
        assert!(matches!(
            open_with_env("openai-compatible/llama", &options, &none).await,
            Err(LlmError::BadBaseUrl { .. })
        ));
        let from_env = env_with(&[("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")]);
        let client = open_with_env("openai-compatible/llama", &options, &from_env)
            .await
            .expect("no key needed");
        assert_eq!(client.name(), "openai-compatible/llama");
        for bad in ["not a url", "ftp://host/v1", "http://"] {
            let options = ClientOptions {
                base_url: Some(bad.into()),
                ..ClientOptions::default()
            };
            match open_with_env("openai-compatible/llama", &options, &none).await {
                Err(LlmError::BadBaseUrl { url, .. }) => assert_eq!(url, bad),
                other => panic!("{bad}: {other:?}"),
            }
        }
    }
}
