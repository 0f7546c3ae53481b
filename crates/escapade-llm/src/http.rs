//! HTTP plumbing shared by the OpenAI and Anthropic backends, so that both map statuses,
//! `Retry-After` and transport failures to [`LlmError`] the same way.

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

use crate::LlmError;

/// How much of an error body is kept in [`LlmError::Http`].
pub const BODY_SNIPPET_CHARS: usize = 500;

/// Builds the HTTP client for one base URL (rustls, connection pooling, a connect
/// timeout; the per-request timeout is the [`crate::Client`]'s). Loopback servers are
/// reached directly, never through a proxy from the environment.
pub fn http_client(base_url: &str) -> Result<reqwest::Client, LlmError> {
    let mut builder = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(20))
        .pool_idle_timeout(Duration::from_secs(60))
        .user_agent(concat!("escapade/", env!("CARGO_PKG_VERSION")));
    if is_loopback(base_url) {
        builder = builder.no_proxy();
    }
    builder
        .build()
        .map_err(|e| LlmError::Config(format!("cannot build the HTTP client: {e}")))
}

/// Whether a URL points at this machine (`localhost`, `127.0.0.0/8`, `::1`).
pub fn is_loopback(url: &str) -> bool {
    let Some(host) = reqwest::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
    else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => host.eq_ignore_ascii_case("localhost"),
    }
}

/// Checks a base URL (http or https with a host) and returns it without a trailing `/`.
pub fn normalize_base_url(url: &str) -> Result<String, LlmError> {
    let bad = |reason: &str| LlmError::BadBaseUrl {
        url: url.to_string(),
        reason: reason.to_string(),
    };
    let parsed = reqwest::Url::parse(url.trim()).map_err(|e| bad(&e.to_string()))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(bad("the scheme must be http or https"));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(bad("no host"));
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(bad("a base URL takes no query or fragment"));
    }
    Ok(url.trim().trim_end_matches('/').to_string())
}

/// Parses a `Retry-After` value: delay seconds (integer or fractional) or an HTTP date
/// (relative to `now`; past dates give zero). Anything else gives `None`.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0)
            .then(|| Duration::try_from_secs_f64(seconds).ok())
            .flatten();
    }
    let date = chrono::DateTime::parse_from_rfc2822(value)
        .map(|d| d.with_timezone(&chrono::Utc))
        .or_else(|_| {
            // RFC 850 and asctime forms, both in GMT.
            chrono::NaiveDateTime::parse_from_str(value, "%A, %d-%b-%y %H:%M:%S GMT")
                .or_else(|_| chrono::NaiveDateTime::parse_from_str(value, "%a %b %e %H:%M:%S %Y"))
                .map(|d| d.and_utc())
        })
        .ok()?;
    let target = SystemTime::UNIX_EPOCH.checked_add(Duration::from_millis(
        u64::try_from(date.timestamp_millis()).ok()?,
    ))?;
    Some(target.duration_since(now).unwrap_or(Duration::ZERO))
}

/// The wait a response asks for: `retry-after-ms` when present (OpenAI, Azure), else
/// `Retry-After`.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Duration::try_from_secs_f64(ms / 1000.0).ok();
    }
    text("retry-after").and_then(|v| parse_retry_after(v, SystemTime::now()))
}

/// The error for a non-success status: 429 is [`LlmError::RateLimited`], everything else
/// [`LlmError::Http`] with the start of the body.
pub fn status_error(status: u16, headers: &HeaderMap, body: &str) -> LlmError {
    let retry_after = retry_after(headers);
    if status == 429 {
        LlmError::RateLimited { retry_after }
    } else {
        LlmError::Http {
            status,
            body: snippet(body),
            retry_after,
        }
    }
}

/// The first [`BODY_SNIPPET_CHARS`] characters of a body.
pub fn snippet(body: &str) -> String {
    match body.char_indices().nth(BODY_SNIPPET_CHARS) {
        Some((end, _)) => format!("{}…", &body[..end]),
        None => body.to_string(),
    }
}

/// Maps a transport failure (refused, reset, DNS, connect timeout, a body cut short) to
/// [`LlmError::Connection`] with the whole cause chain.
pub fn transport_error(error: reqwest::Error) -> LlmError {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    LlmError::Connection(message)
}

/// Sends a prepared request and returns the body text of a successful reply, or the
/// mapped error.
pub async fn send(request: reqwest::RequestBuilder) -> Result<String, LlmError> {
    let response = request.send().await.map_err(transport_error)?;
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.text().await.map_err(transport_error)?;
    if (200..300).contains(&status) {
        Ok(body)
    } else {
        Err(status_error(status, &headers, &body))
    }
}

/// A JSON string that is not empty (third-party servers send `""` for absent fields).
pub fn non_empty_str(v: &serde_json::Value) -> Option<String> {
    v.as_str().filter(|s| !s.is_empty()).map(str::to_string)
}

/// `value` as the JSON number its decimal shows (`0.7`, not the `0.699999988079071` a
/// widened `f32` would give), so that the provider receives the figure the user gave and
/// `run.toml` records.
pub fn decimal(value: f32) -> serde_json::Value {
    value
        .to_string()
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or(serde_json::Value::Null, serde_json::Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn retry_after_seconds_fractional_dates_and_garbage() {
        let now = at(1_445_412_000); // Wed, 21 Oct 2015 07:20:00 GMT
        assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
        assert_eq!(parse_retry_after(" 0 ", now), Some(Duration::ZERO));
        assert_eq!(
            parse_retry_after("1.5", now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            parse_retry_after("0.25", now),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now),
            Some(Duration::from_secs(480))
        );
        assert_eq!(
            parse_retry_after("Wednesday, 21-Oct-15 07:21:00 GMT", now),
            Some(Duration::from_secs(60))
        );
        assert_eq!(
            parse_retry_after("Wed Oct 21 07:20:30 2015", now),
            Some(Duration::from_secs(30))
        );
        // A date in the past means "now".
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        for garbage in ["", "soon", "-3", "NaN", "inf", "1e400", "12abc"] {
            assert_eq!(parse_retry_after(garbage, now), None, "{garbage}");
        }
    }

    #[test]
    fn retry_after_ms_wins_over_retry_after() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("3"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(3)));
        headers.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(250)));
        headers.insert("retry-after-ms", HeaderValue::from_static("bogus"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(3)));
    }

    #[test]
    fn statuses_map_to_errors() {
        let headers = HeaderMap::new();
        assert!(matches!(
            status_error(429, &headers, ""),
            LlmError::RateLimited { retry_after: None }
        ));
        let long = "x".repeat(2000);
        match status_error(500, &headers, &long) {
            LlmError::Http { status, body, .. } => {
                assert_eq!(status, 500);
                assert_eq!(body.chars().count(), BODY_SNIPPET_CHARS + 1);
            }
            other => panic!("{other:?}"),
        }
        assert!(status_error(529, &headers, "overloaded").is_transient());
        assert!(!status_error(400, &headers, "bad").is_transient());
    }

    #[test]
    fn loopback_hosts() {
        for url in [
            "http://127.0.0.1:8080/v1",
            "http://localhost/v1",
            "http://[::1]:80",
            "http://127.1.2.3",
        ] {
            assert!(is_loopback(url), "{url}");
        }
        for url in ["https://api.openai.com/v1", "http://10.0.0.1", "nonsense"] {
            assert!(!is_loopback(url), "{url}");
        }
    }

    #[test]
    fn a_temperature_goes_as_its_decimal() {
        assert_eq!(decimal(0.7).to_string(), "0.7");
        assert_eq!(decimal(0.0).to_string(), "0.0");
        assert_eq!(decimal(1.25).to_string(), "1.25");
    }

    #[test]
    fn base_urls() {
        assert_eq!(
            normalize_base_url("http://localhost:8000/v1/")
                .ok()
                .as_deref(),
            Some("http://localhost:8000/v1")
        );
        for bad in [
            "",
            "localhost:8000",
            "ftp://x",
            "http://",
            "http://h/v1?x=1",
        ] {
            assert!(normalize_base_url(bad).is_err(), "{bad}");
        }
    }
}
