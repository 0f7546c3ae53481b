//! Client settings: timeouts, retries, limits, prices and the local model.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::PriceTable;
use crate::cache::{CacheMode, ResponseCache};
use crate::spend::CostCap;

/// A response cache and how a client uses it.
#[derive(Debug, Clone)]
pub struct CacheUse {
    /// The store (shared by every client of a process).
    pub store: Arc<ResponseCache>,
    /// Read, write, both or neither.
    pub mode: CacheMode,
}

/// How a [`crate::Client`] talks to its backend. `Default` gives sensible settings for a
/// hosted API; the CLI fills these from flags and `-A key=value` options.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// Base URL for `openai-compatible/…` (else `OPENAI_BASE_URL`), or to override the
    /// default of `openai/…` and `anthropic/…`.
    pub base_url: Option<String>,
    /// Per-attempt timeout.
    pub timeout: Duration,
    /// Attempts after the first one for transient failures.
    pub max_retries: u32,
    /// First backoff delay; doubles each retry, with full jitter, up to `backoff_max`.
    pub backoff_base: Duration,
    /// Longest backoff delay (a longer `Retry-After` is still honoured).
    pub backoff_max: Duration,
    /// Most requests in flight at once for this backend; halved on each 429, then grown
    /// back one at a time as requests succeed.
    pub concurrency: usize,
    /// Optional requests-per-minute cap.
    pub rpm: Option<u32>,
    /// Optional tokens-per-minute cap (input + output, as reported).
    pub tpm: Option<u64>,
    /// Prices per million tokens (built-in table, optionally overridden by a file).
    pub prices: PriceTable,
    /// Settings of the `local/…` backend.
    pub local: LocalOptions,
    /// The response cache, when replies are kept or looked up (`None`: every request
    /// goes to the provider).
    pub cache: Option<CacheUse>,
    /// The run's cost cap, shared by its clients (`None`: no cap).
    pub cost_cap: Option<Arc<CostCap>>,
    /// Most pictures per request; `None`: the provider's documented limit
    /// ([`crate::pictures::PictureBudget::of_provider`]).
    pub max_pictures: Option<usize>,
    /// Most bytes of pictures per request; `None`: the provider's documented limit.
    pub max_picture_bytes: Option<u64>,
    /// `reasoning_effort` sent with every request to OpenAI-shaped backends.
    pub reasoning_effort: Option<String>,
    /// Anthropic's extended thinking, with this budget of tokens.
    pub thinking_budget: Option<u32>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            base_url: None,
            timeout: Duration::from_secs(120),
            max_retries: 6,
            backoff_base: Duration::from_millis(500),
            backoff_max: Duration::from_secs(30),
            concurrency: 16,
            rpm: None,
            tpm: None,
            prices: PriceTable::builtin(),
            local: LocalOptions::default(),
            cache: None,
            cost_cap: None,
            max_pictures: None,
            max_picture_bytes: None,
            reasoning_effort: None,
            thinking_budget: None,
        }
    }
}

/// The most threads the local server takes by default: beyond this a small model's
/// decoding gains little and a shared machine loses much.
pub const MAX_DEFAULT_THREADS: u32 = 8;

/// One thread per core, at most [`MAX_DEFAULT_THREADS`]: the README's first command
/// plays one episode at a time, and with a single decoding thread the other cores idle.
pub fn default_threads() -> u32 {
    std::thread::available_parallelism()
        .map(|n| u32::try_from(n.get()).unwrap_or(u32::MAX))
        .unwrap_or(1)
        .clamp(1, MAX_DEFAULT_THREADS)
}

/// Settings of the built-in local model server (`local/<name>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalOptions {
    /// Where `escapade setup` installed the server and weights; `None`: the default cache
    /// (`$ESCAPADE_CACHE`, else `$XDG_CACHE_HOME/escapade`, else `~/.cache/escapade`).
    pub cache_dir: Option<PathBuf>,
    /// CPU threads the server may use (default: one per core, at most
    /// [`MAX_DEFAULT_THREADS`]; `-A threads=N` sets it).
    pub threads: u32,
    /// Context window in tokens.
    pub context: u32,
    /// Parallel decoding slots (requests served at once).
    pub parallel: u32,
    /// Python interpreter that runs the server (`$ESCAPADE_PYTHON`, else `python3`).
    pub python: Option<PathBuf>,
    /// How long to wait for the server's health check.
    pub startup_timeout: Duration,
}

impl Default for LocalOptions {
    fn default() -> Self {
        LocalOptions {
            cache_dir: None,
            threads: default_threads(),
            context: 8192,
            parallel: 1,
            python: None,
            startup_timeout: Duration::from_secs(180),
        }
    }
}
