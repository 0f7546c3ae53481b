//! Who may use a server: a token by default, as Jupyter does, on every escapade server
//! (`view`, `play --web`, `serve`, `mcp --http`).
//!
//! Loopback is not a boundary on a machine other people log in to: any user can connect
//! to 127.0.0.1. So each server makes a random 128-bit token at start and prints it once,
//! in the address to open; every request must carry it. `--token` (or the environment
//! variable [`TOKEN_ENV`], which the process list does not show) sets it; `--no-token`
//! opts out — then a server on loopback still answers only requests that name this
//! machine in `Host`.
//!
//! A request carries the token in one of the ways clients can send it ([`token_of`]):
//! `Authorization: Bearer <token>` (MCP and HTTP clients), `Authorization: Basic` with
//! the token as the password (a URL `http://escapade:<token>@host/`, which WebSocket
//! clients such as openenv-core's send so), `?token=<token>` (the printed address), or
//! the cookie a browser server sets on the first visit, so links inside the site need not
//! repeat it. The check in front of every route is [`crate::guard`].

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use rand::Rng;

use crate::error::{Problem, WebError};
use crate::server::Site;

/// The cookie that carries the token after the first visit (a server bound to a port
/// adds it: `escapade_token_8640`).
pub const COOKIE: &str = "escapade_token";

/// The environment variable a server takes its token from (instead of `--token`, which
/// other users can read in the process list).
pub const TOKEN_ENV: &str = "ESCAPADE_TOKEN";

/// The fewest characters a token given to a server may have.
pub const MIN_TOKEN: usize = 16;

/// How the server admits requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// No token, loopback only: requests must name this machine in `Host`
    /// (`--no-token` on loopback).
    Loopback,
    /// No token, any host (`--no-token` with `--host`: anyone who reaches the address).
    Open,
    /// This token on every request.
    Token(String),
}

/// How a server was asked to choose its token.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum TokenChoice {
    /// A fresh random token, printed once (the default).
    #[default]
    Fresh,
    /// This token (`--token`, [`TOKEN_ENV`]).
    Given(String),
    /// No token (`--no-token`).
    None,
}

impl TokenChoice {
    /// The choice `--token`/[`TOKEN_ENV`] and `--no-token` make.
    pub fn from_flags(token: Option<String>, no_token: bool) -> TokenChoice {
        match (token, no_token) {
            (_, true) => TokenChoice::None,
            (Some(t), false) => TokenChoice::Given(t),
            (None, false) => TokenChoice::Fresh,
        }
    }
}

impl Access {
    /// A fresh access with a random 128-bit token (from the operating system's
    /// generator: a token must not be guessable, so no seed here).
    pub fn new_token() -> Access {
        let bytes: [u8; 16] = rand::rng().random();
        Access::Token(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// The access `choice` makes for a server listening on loopback (`loopback`) or
    /// elsewhere. A token given must have at least [`MIN_TOKEN`] characters, each a
    /// letter, a digit or one of `-._~` (it travels in addresses, headers and cookies).
    pub fn choose(choice: &TokenChoice, loopback: bool) -> Result<Access, WebError> {
        match choice {
            TokenChoice::Fresh => Ok(Access::new_token()),
            TokenChoice::Given(t) => {
                if t.chars().count() < MIN_TOKEN {
                    return Err(WebError::BadToken {
                        why: "it has fewer than 16 characters",
                    });
                }
                if !t
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-._~".contains(c))
                {
                    return Err(WebError::BadToken {
                        why: "it may hold only letters, digits and - . _ ~",
                    });
                }
                Ok(Access::Token(t.clone()))
            }
            TokenChoice::None if loopback => Ok(Access::Loopback),
            TokenChoice::None => Ok(Access::Open),
        }
    }

    /// The token, when there is one.
    pub fn token(&self) -> Option<&str> {
        match self {
            Access::Loopback | Access::Open => None,
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

/// The token in the request's cookie `name`, when there is one.
fn cookie_token(req: &Request, name: &str) -> Option<String> {
    req.headers()
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// The token a request carries, and whether it came in the query: `Authorization:
/// Bearer`, `Authorization: Basic` with the token as password, `?token=`, or the cookie
/// `cookie`, the first of these it has.
pub fn token_of(req: &Request, cookie: Option<&str>) -> Option<(String, bool)> {
    let auth = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    if let Some(a) = auth {
        if let Some(t) = a.strip_prefix("Bearer ") {
            return Some((t.trim().to_string(), false));
        }
        if let Some(b) = a.strip_prefix("Basic ") {
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(b.trim())
                .ok()?;
            let text = String::from_utf8(decoded).ok()?;
            return text.split_once(':').map(|(_, p)| (p.to_string(), false));
        }
    }
    // the address's token before the cookie's: a browser keeps the cookie of an earlier
    // server on this port (restarted with a fresh token), and the address just printed
    // must open the new one
    if let Some(t) = query_token(req.uri().query()) {
        return Some((t, true));
    }
    cookie
        .and_then(|name| cookie_token(req, name))
        .map(|t| (t, false))
}

/// The middleware in front of every route of `view` and `play --web`: [`Site::guard`]
/// with the site's access, refusals as pages.
pub async fn admit(State(site): State<Arc<Site>>, req: Request, next: Next) -> Response {
    site.guard
        .run(&site.access, req, next, |refusal| {
            Problem::new(
                refusal.status(),
                refusal.title(),
                refusal.detail(
                    "open the address the server printed when it started: it ends in ?token=…",
                ),
            )
            .into_response()
        })
        .await
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
    fn a_given_token_is_checked() {
        let given = |t: &str| Access::choose(&TokenChoice::Given(t.into()), true);
        assert!(given("short").is_err());
        assert!(given("0123456789abcdef0123 with spaces").is_err());
        assert_eq!(
            given("0123456789abcdef-x").unwrap().token(),
            Some("0123456789abcdef-x")
        );
        assert_eq!(
            Access::choose(&TokenChoice::None, true).unwrap(),
            Access::Loopback
        );
        assert_eq!(
            Access::choose(&TokenChoice::None, false).unwrap(),
            Access::Open
        );
        assert!(
            Access::choose(&TokenChoice::Fresh, true)
                .unwrap()
                .token()
                .is_some()
        );
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
