//! Errors of model backends.

use std::time::Duration;

/// What can go wrong talking to a model.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LlmError {
    /// Occurs when a backend spec is not `provider/model` or names an unknown provider.
    #[error("unknown backend `{spec}`: {reason}")]
    UnknownBackend {
        /// The spec as given.
        spec: String,
        /// Why it was refused (lists the known providers).
        reason: String,
    },
    /// Occurs when a provider's API key is not set in the environment.
    #[error(
        "{var} is not set: export your {provider} API key in {var} (keys are read only from the environment)"
    )]
    MissingKey {
        /// The provider.
        provider: String,
        /// The environment variable to set.
        var: String,
    },
    /// Occurs when a base URL does not parse or has an unsupported scheme.
    #[error("bad base URL `{url}`: {reason}")]
    BadBaseUrl {
        /// The URL as given.
        url: String,
        /// Why it was refused.
        reason: String,
    },
    /// Occurs when the provider rate-limits the request (HTTP 429).
    #[error("rate limited by the provider (HTTP 429){}", retry_after.map(|d| format!(", retry after {:.1}s", d.as_secs_f64())).unwrap_or_default())]
    RateLimited {
        /// The provider's `Retry-After`, when it sent one.
        retry_after: Option<Duration>,
    },
    /// Occurs when the provider answers with an HTTP error status other than 429.
    #[error("HTTP {status} from the provider: {body}")]
    Http {
        /// The status code.
        status: u16,
        /// The start of the response body.
        body: String,
        /// The provider's `Retry-After`, when it sent one.
        retry_after: Option<Duration>,
    },
    /// Occurs when a request takes longer than the configured timeout.
    #[error("request timed out after {0:?}")]
    Timeout(Duration),
    /// Occurs when the connection fails (refused, reset, DNS).
    #[error("connection failed: {0}")]
    Connection(String),
    /// Occurs when the provider's reply cannot be understood.
    #[error("malformed reply from the provider: {0}")]
    Malformed(String),
    /// Occurs when the provider returns no choice and no content at all.
    #[error("the provider returned an empty reply")]
    Empty,
    /// Occurs when a scripted backend's file cannot be read or holds an invalid line, or
    /// the script is empty.
    #[error(
        "scripted backend {script}{}: {problem}",
        line.map(|n| format!(", line {n}")).unwrap_or_default()
    )]
    Script {
        /// The backend's name (`scripted/<file>`) or the file.
        script: String,
        /// The 1-based line that is wrong, when one is.
        line: Option<usize>,
        /// What is wrong.
        problem: String,
    },
    /// Occurs when the local model is not installed or its server cannot start.
    #[error("local model: {0}")]
    Local(String),
    /// Occurs when a price file cannot be read or does not parse.
    #[error("price file {}: {problem}", path.display())]
    PriceFile {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// Occurs when a picture cannot be re-encoded for the wire (its PNG does not decode).
    #[error("picture: {0}")]
    Picture(String),
    /// Occurs when the HTTP client cannot be built (a TLS backend that fails to start).
    #[error("configuration: {0}")]
    Config(String),
    /// Occurs when the response cache cannot be opened, read or written.
    #[error("response cache {}: {problem}", path.display())]
    Cache {
        /// The database file.
        path: std::path::PathBuf,
        /// What went wrong.
        problem: String,
    },
    /// Occurs when a request would take the run's cost past its cap (`--max-cost`): what
    /// was spent, plus what the requests in flight and this one may cost, is more than
    /// the cap. No request was sent.
    #[error(
        "the cost cap of ${limit_usd:.4} is reached: ${spent_usd:.4} spent, and the \
         requests in flight and this one may cost ${pending_usd:.4} more"
    )]
    CostCap {
        /// The cap in US dollars.
        limit_usd: f64,
        /// What the run has spent.
        spent_usd: f64,
        /// What the requests in flight and the refused one could cost at most.
        pending_usd: f64,
    },
    /// Occurs when every retry failed; holds the last error.
    #[error("gave up after {attempts} attempts: {last}")]
    RetriesExhausted {
        /// Attempts made.
        attempts: u32,
        /// The last error.
        last: Box<LlmError>,
    },
}

impl LlmError {
    /// Whether trying again may succeed (429, 5xx, 408, timeouts, resets, malformed or
    /// empty replies); missing keys, bad URLs and 4xx are permanent.
    pub fn is_transient(&self) -> bool {
        match self {
            LlmError::RateLimited { .. }
            | LlmError::Timeout(_)
            | LlmError::Connection(_)
            | LlmError::Malformed(_)
            | LlmError::Empty => true,
            LlmError::Http { status, .. } => *status >= 500 || *status == 408 || *status == 409,
            _ => false,
        }
    }

    /// The provider's requested wait before the next attempt, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            LlmError::RateLimited { retry_after } => *retry_after,
            LlmError::Http { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}
