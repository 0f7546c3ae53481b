//! The one front door to every model: [`open`] turns a `provider/model` spec into a
//! [`Client`], and [`Client::chat`] adds what every provider needs the same way.
//!
//! Backends make exactly one attempt per call. The client wraps each call in an adaptive
//! concurrency permit, optional RPM/TPM windows, a timeout, and retries with exponential
//! backoff and full jitter (honouring `Retry-After`), then prices the reply. Live totals
//! ([`ClientStats`]) feed progress bars.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use crate::limits::{AdaptiveLimit, RequestWindow, TokenWindow, backoff, lock};
use crate::{
    Backend, ChatRequest, ClientOptions, Completion, LlmError, PriceTable, anthropic, local,
    openai, scripted,
};

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
    let backend: Arc<dyn Backend> = match (provider, remote(provider, options, env)?) {
        ("openai", Some(r)) => Arc::new(openai::OpenAiBackend::new(
            spec,
            model,
            &r.base,
            r.key,
            openai::Flavor::OpenAi,
        )?),
        ("openai-compatible", Some(r)) => Arc::new(openai::OpenAiBackend::new(
            spec,
            model,
            &r.base,
            r.key,
            openai::Flavor::Compatible,
        )?),
        (
            "anthropic",
            Some(Remote {
                base,
                key: Some(key),
            }),
        ) => Arc::new(anthropic::AnthropicBackend::new(spec, model, &base, key)?),
        ("scripted", _) => Arc::new(scripted::ScriptedBackend::open(spec, model)?),
        ("local", _) => Arc::new(local::LocalBackend::start(model, &options.local).await?),
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
    remote(provider, options, env).map(|_| ())
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

    /// One reply: waits for a concurrency slot and the RPM/TPM windows, calls the backend
    /// under the timeout, and retries transient failures with backoff. Permanent errors
    /// return at once; after `max_retries` retries the last error comes back wrapped in
    /// [`LlmError::RetriesExhausted`].
    pub async fn chat(&self, request: &ChatRequest) -> Result<Completion, LlmError> {
        let inner = &*self.inner;
        self.update(|s| s.requests += 1);
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
                    self.update(|s| {
                        s.input_tokens += tokens.input;
                        s.output_tokens += tokens.output;
                        s.cached_tokens += tokens.cached;
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
                        },
                        attempts,
                    });
                }
                Err(error) => error,
            };
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
