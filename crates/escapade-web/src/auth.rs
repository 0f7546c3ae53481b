//! Who may use the server: loopback only by default, or anyone with the access token.
//!
//! Without `--host` the server listens on 127.0.0.1 and also refuses requests whose
//! `Host` header names another machine (a web page elsewhere cannot reach it through a
//! name that resolves to 127.0.0.1). With `--host` it listens where asked and every
//! request must carry the token printed at start: as `?token=…` (the printed URL has it)
//! or in the cookie that the first such visit sets, so links inside the site need not
//! repeat it.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rand::Rng;

use crate::error::Problem;
use crate::server::Site;

/// The cookie that carries the token after the first visit.
pub const COOKIE: &str = "escapade_token";

/// How the server admits requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// Loopback only: requests must name this machine in `Host`.
    Loopback,
    /// Any address, with this token on every request.
    Token(String),
}

impl Access {
    /// A fresh access with a random 128-bit token (from the operating system's
    /// generator: a token must not be guessable, so no seed here).
    pub fn new_token() -> Access {
        let bytes: [u8; 16] = rand::rng().random();
        Access::Token(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// The token, when there is one.
    pub fn token(&self) -> Option<&str> {
        match self {
            Access::Loopback => None,
            Access::Token(t) => Some(t),
        }
    }
}

/// Compares two strings in time that does not depend on where they first differ.
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Whether a `Host` header names this machine (`localhost`, `127.x.y.z`, `[::1]`, with
/// or without a port).
pub fn is_loopback_host(host: &str) -> bool {
    if let Ok(ip) = host.parse::<std::net::IpAddr>() {
        return ip.is_loopback();
    }
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(h, _)| h)
    };
    name.eq_ignore_ascii_case("localhost")
        || name == "::1"
        || name
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The `Host` a request names (empty when it names none).
pub fn host(req: &Request) -> &str {
    req.headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("")
}

/// The token in a query string (`token=…`), when there is one.
pub fn query_token(query: Option<&str>) -> Option<String> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query?).ok()?;
    pairs
        .into_iter()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v)
}

/// The token in the request's cookie, when there is one.
fn cookie_token(req: &Request) -> Option<String> {
    req.headers()
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v.to_string())
}

/// The middleware in front of every route.
pub async fn admit(State(site): State<Arc<Site>>, req: Request, next: Next) -> Response {
    match &site.access {
        Access::Loopback => {
            let host = host(&req);
            if is_loopback_host(host) {
                next.run(req).await
            } else {
                Problem::new(
                    StatusCode::FORBIDDEN,
                    "this viewer answers only on this machine",
                    format!(
                        "the request names host `{host}`; open the address the viewer printed \
                         (127.0.0.1), or start it with --host to share it with a token"
                    ),
                )
                .into_response()
            }
        }
        Access::Token(token) => {
            let from_query = query_token(req.uri().query());
            if cookie_token(&req).is_some_and(|t| same(&t, token)) {
                return next.run(req).await;
            }
            if from_query.as_deref().is_some_and(|t| same(t, token)) {
                let mut response = next.run(req).await;
                let cookie = format!("{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict");
                if let Ok(v) = HeaderValue::from_str(&cookie) {
                    response.headers_mut().append(header::SET_COOKIE, v);
                }
                return response;
            }
            Problem::new(
                StatusCode::UNAUTHORIZED,
                "this viewer needs its access token",
                "open the address the viewer printed when it started: it ends in ?token=…",
            )
            .into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        for h in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:1",
            "127.9.9.9",
            "[::1]:80",
            "::1",
        ] {
            assert!(is_loopback_host(h), "{h}");
        }
        for h in [
            "",
            "evil.example",
            "evil.example:80",
            "192.168.1.4:80",
            "[fe80::1]:80",
            "localhost.evil",
        ] {
            assert!(!is_loopback_host(h), "{h}");
        }
    }

    #[test]
    fn tokens_are_fresh_and_long() {
        let (a, b) = (Access::new_token(), Access::new_token());
        assert_ne!(a, b);
        assert_eq!(a.token().map(str::len), Some(32));
    }

    #[test]
    fn comparison() {
        assert!(same("abc", "abc"));
        assert!(!same("abc", "abd"));
        assert!(!same("abc", "ab"));
    }
}
