//! The check in front of every route of every escapade server (`view`, `play --web`,
//! `serve`, `mcp --http`): one implementation, so the four promise the same.
//!
//! In order, a request is refused when:
//!
//! 1. the server listens on loopback and its `Host` names another machine (a page
//!    elsewhere reaching it through a name that resolves to 127.0.0.1: DNS rebinding);
//! 2. it comes from a web page of another origin: an `Origin` that is not the server's
//!    own (the MCP specification asks servers to check it), `Origin: null`, or
//!    `Sec-Fetch-Site: cross-site` or `same-site` (a page on another port of this
//!    machine). A browser sends these on every cross-origin form, fetch and WebSocket, so
//!    a page elsewhere can neither play a session, claim a seat nor read a run; clients
//!    that are not browsers send none and are not affected;
//! 3. the server takes JSON ([`Guard::json_only`]) and a `POST` says it carries
//!    something else (`text/plain`, a form): the body of a cross-site "simple request",
//!    which a browser sends without asking the server first;
//! 4. its address sent [`FREE_FAILURES`] wrong tokens lately: it is answered `429` for
//!    a second per wrong token since, whatever it sends (checked before the token, so a
//!    guesser learns nothing from the answers' speed); every loopback address counts as
//!    one, and an IPv6 address as its /64 ([`client_key`]), so a guesser cannot spread
//!    its guesses over addresses of its own;
//! 5. the server has a token and the request does not carry it (see
//!    [`crate::auth::token_of`] for where it may).
//!
//! With [`Guard::log`], every request is a line on standard error: time, client address,
//! method, path, status, duration, and a refusal's reason — never a query string, a
//! header or a cookie, where tokens travel.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Request};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

use crate::auth::{Access, is_loopback_host, token_of};

/// Wrong tokens an address may send before it is slowed down.
pub const FREE_FAILURES: f64 = 10.0;

/// After [`FREE_FAILURES`], one more wrong token is allowed per this long.
pub const FAILURE_REFILL: Duration = Duration::from_secs(1);

/// How a server guards its routes (see the [module docs](self)).
#[derive(Debug)]
pub struct Guard {
    /// The server listens on loopback: every request must name this machine in `Host`.
    pub loopback: bool,
    /// `POST` bodies must be JSON (`serve`, `mcp`).
    pub json_only: bool,
    /// The cookie that carries the token after a visit with `?token=` (browser servers;
    /// named after the port, so two servers on one machine keep their own).
    pub cookie: Option<String>,
    /// Log a line per request to standard error, with this server's name.
    pub log: Option<&'static str>,
    /// Paths a `GET` may ask for without the token (`serve`'s `/health`, for a
    /// container's liveness probe; it says nothing but that the server runs).
    pub open_paths: &'static [&'static str],
    failures: Mutex<BTreeMap<IpAddr, (f64, Instant)>>,
}

impl Guard {
    /// A guard that checks no `Host` (see [`Guard::loopback`]), takes any body, sets no
    /// cookie and logs nothing.
    pub fn new() -> Guard {
        Guard {
            loopback: false,
            json_only: false,
            cookie: None,
            log: None,
            open_paths: &[],
            failures: Mutex::new(BTreeMap::new()),
        }
    }
}

impl Default for Guard {
    fn default() -> Self {
        Guard::new()
    }
}

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// Occurs when a loopback server is asked for another host.
    Host {
        /// The `Host` the request named.
        host: String,
    },
    /// Occurs when a web page of another origin sent the request.
    Origin {
        /// The `Origin` (or `Sec-Fetch-Site`) the browser sent.
        origin: String,
    },
    /// Occurs when a JSON server is sent another kind of body.
    NotJson {
        /// The `Content-Type` sent (empty: none).
        content_type: String,
    },
    /// Occurs when the client's address sent too many wrong tokens lately.
    SlowDown {
        /// Seconds until it may try again.
        retry_after: u64,
    },
    /// Occurs when the token is missing or wrong.
    Token,
}

impl Refusal {
    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        match self {
            Refusal::Host { .. } | Refusal::Origin { .. } => StatusCode::FORBIDDEN,
            Refusal::NotJson { .. } => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Refusal::SlowDown { .. } => StatusCode::TOO_MANY_REQUESTS,
            Refusal::Token => StatusCode::UNAUTHORIZED,
        }
    }

    /// A machine-readable code (`serve` answers it as OpenEnv's error `code`).
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::Host { .. } => "FORBIDDEN_HOST",
            Refusal::Origin { .. } => "FORBIDDEN_ORIGIN",
            Refusal::NotJson { .. } => "UNSUPPORTED_MEDIA_TYPE",
            Refusal::SlowDown { .. } => "TOO_MANY_FAILURES",
            Refusal::Token => "UNAUTHORIZED",
        }
    }

    /// One line: what was refused.
    pub fn title(&self) -> &'static str {
        match self {
            Refusal::Host { .. } => "this server answers only on this machine",
            Refusal::Origin { .. } => "this server does not answer other web pages",
            Refusal::NotJson { .. } => "this server takes JSON",
            Refusal::SlowDown { .. } => "too many wrong tokens from your address",
            Refusal::Token => "this server needs its access token",
        }
    }

    /// What the client can do; `how` says how this server takes its token (`open the
    /// address it printed, which ends in ?token=…`).
    pub fn detail(&self, how: &str) -> String {
        match self {
            Refusal::Host { host } => format!(
                "the request names host `{}`; use the address the server printed (127.0.0.1), \
                 or start it with --host to serve other machines",
                host.chars().take(100).collect::<String>()
            ),
            Refusal::Origin { origin } => format!(
                "a page of `{}` sent this request; only the server's own pages and clients \
                 that are not browsers are answered",
                origin.chars().take(100).collect::<String>()
            ),
            Refusal::NotJson { content_type } => format!(
                "a POST must say `Content-Type: application/json`, not `{}`",
                content_type.chars().take(100).collect::<String>()
            ),
            Refusal::SlowDown { retry_after } => format!(
                "wrong tokens are answered one a second; try again in {retry_after} s with the \
                 token the server printed"
            ),
            Refusal::Token => how.to_string(),
        }
    }

    /// A `Retry-After` header for [`Refusal::SlowDown`].
    pub fn retry_after(&self) -> Option<HeaderValue> {
        match self {
            Refusal::SlowDown { retry_after } => Some(HeaderValue::from(*retry_after)),
            _ => None,
        }
    }
}

/// What an admitted request needs: the cookie to set, when the token came in the query,
/// and for a browser's navigation, the address without the token to send it on to.
#[derive(Debug, Default)]
pub struct Admitted {
    set_cookie: Option<HeaderValue>,
    /// `303 See Other` to this address (the request's, without `token=`) instead of
    /// the page: see [`without_token`].
    redirect: Option<HeaderValue>,
}

/// The address of the client that sent `req` (loopback when none is known: a test
/// that calls a router directly).
pub fn client(req: &Request) -> IpAddr {
    req.extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::from([127, 0, 0, 1]), |c| c.0.ip())
}

/// Whom a per-client count (wrong tokens, a rate) belongs to: the client's address, with
/// every loopback address one (another user of this machine may connect from any of
/// 127.0.0.0/8 and `::1`, and would otherwise have 16 million allowances) and an IPv6
/// address by its /64 (one network's machines, which choose their own addresses in it).
pub fn client_key(ip: IpAddr) -> IpAddr {
    let ip = ip.to_canonical();
    match ip {
        _ if ip.is_loopback() => IpAddr::from([127, 0, 0, 1]),
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => {
            let prefix = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(prefix.into())
        }
    }
}

impl Guard {
    /// Checks `req` against `access` (see the [module docs](self)).
    pub fn check(&self, access: &Access, req: &Request) -> Result<Admitted, Refusal> {
        let headers = req.headers();
        let text = |name: header::HeaderName| {
            headers
                .get(name)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        };
        let host = text(header::HOST).unwrap_or_default();
        if (self.loopback || matches!(access, Access::Loopback)) && !is_loopback_host(&host) {
            return Err(Refusal::Host { host });
        }
        if let Some(origin) = text(header::ORIGIN)
            && !same_origin(&origin, &host)
        {
            return Err(Refusal::Origin { origin });
        }
        if let Some(site) = text(HeaderName::from_static("sec-fetch-site"))
            && matches!(site.as_str(), "cross-site" | "same-site")
        {
            return Err(Refusal::Origin { origin: site });
        }
        if self.json_only && [Method::POST, Method::PUT, Method::PATCH].contains(req.method()) {
            let content_type = text(header::CONTENT_TYPE).unwrap_or_default();
            let essence = content_type.split(';').next().unwrap_or("").trim();
            if !essence.eq_ignore_ascii_case("application/json") {
                return Err(Refusal::NotJson { content_type });
            }
        }
        let Access::Token(token) = access else {
            return Ok(Admitted::default());
        };
        if req.method() == Method::GET && self.open_paths.contains(&req.uri().path()) {
            return Ok(Admitted::default());
        }
        let ip = client_key(client(req));
        if let Some(retry_after) = self.slowed(ip) {
            return Err(Refusal::SlowDown { retry_after });
        }
        match token_of(req, self.cookie.as_deref()) {
            Some((given, from_query)) if crate::auth::same(&given, token) => {
                let set_cookie = match (&self.cookie, from_query) {
                    (Some(name), true) => HeaderValue::from_str(&format!(
                        "{name}={token}; Path=/; HttpOnly; SameSite=Strict"
                    ))
                    .ok(),
                    _ => None,
                };
                // a token in the address is dropped from it, however the request came in
                let in_query = crate::auth::query_token(req.uri().query()).is_some();
                let redirect = match self.cookie.is_some() && in_query && is_navigation(req) {
                    true => without_token(req.uri()),
                    false => None,
                };
                Ok(Admitted {
                    set_cookie,
                    redirect,
                })
            }
            _ => {
                self.failed(ip);
                Err(Refusal::Token)
            }
        }
    }

    /// Seconds until `ip` may try a token again, when it sent too many wrong ones.
    fn slowed(&self, ip: IpAddr) -> Option<u64> {
        let mut failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        let (left, at) = failures.get_mut(&ip)?;
        let per = FAILURE_REFILL.as_secs_f64();
        *left = (*left + at.elapsed().as_secs_f64() / per).min(FREE_FAILURES);
        *at = Instant::now();
        (*left < 1.0).then(|| ((1.0 - *left) * per).ceil().max(1.0) as u64)
    }

    /// Counts a wrong token from `ip`.
    fn failed(&self, ip: IpAddr) {
        let mut failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        if failures.len() > 4096 {
            // forget the addresses that are back to a full allowance
            let per = FAILURE_REFILL.as_secs_f64();
            failures
                .retain(|_, (left, at)| *left + at.elapsed().as_secs_f64() / per < FREE_FAILURES);
        }
        let (left, _) = failures
            .entry(ip)
            .or_insert((FREE_FAILURES, Instant::now()));
        *left = (*left - 1.0).max(0.0);
    }

    /// The middleware: checks `req` against `access`; a refusal is answered by `refuse`,
    /// an admitted request by `next`; logs the line.
    pub async fn run(
        &self,
        access: &Access,
        req: Request,
        next: Next,
        refuse: impl FnOnce(&Refusal) -> Response,
    ) -> Response {
        let start = Instant::now();
        let line = self.log.map(|server| {
            (
                server,
                client(&req),
                req.method().clone(),
                req.uri().path().chars().take(200).collect::<String>(),
            )
        });
        let (response, why) = match self.check(access, &req) {
            Ok(admitted) => {
                let mut response = match admitted.redirect {
                    Some(to) => {
                        let mut r = Response::new(axum::body::Body::empty());
                        *r.status_mut() = StatusCode::SEE_OTHER;
                        r.headers_mut().insert(header::LOCATION, to);
                        r
                    }
                    None => next.run(req).await,
                };
                if let Some(cookie) = admitted.set_cookie {
                    response.headers_mut().append(header::SET_COOKIE, cookie);
                }
                (response, None)
            }
            Err(refusal) => {
                let mut response = refuse(&refusal);
                *response.status_mut() = refusal.status();
                if let Some(after) = refusal.retry_after() {
                    response.headers_mut().insert(header::RETRY_AFTER, after);
                }
                (response, Some(refusal.code()))
            }
        };
        if let Some((server, ip, method, path)) = line {
            log(
                server,
                ip,
                &method,
                &path,
                response.status(),
                start.elapsed(),
                why,
            );
        }
        response
    }
}

/// Whether `req` is a browser opening a page (typed, clicked, a link from the
/// terminal): `Sec-Fetch-Mode: navigate`, or, where a browser sends no `Sec-Fetch-*`
/// (plain HTTP to another machine), an `Accept` that asks for HTML first.
fn is_navigation(req: &Request) -> bool {
    let headers = req.headers();
    match headers.get("sec-fetch-mode") {
        Some(mode) => mode.as_bytes() == b"navigate",
        None => headers
            .get(header::ACCEPT)
            .and_then(|a| a.to_str().ok())
            .is_some_and(|a| a.starts_with("text/html")),
    }
}

/// The address of `uri` without its `token=` (the path, and the other keys of the
/// query in their order). A browser server answers a page opened with the token in its
/// address with a redirect here, the cookie set: the token then stays neither in the
/// address bar nor in the history, where another person at the screen, a screenshot or
/// a synced history would show it. `None` when the query cannot be read again.
pub fn without_token(uri: &axum::http::Uri) -> Option<HeaderValue> {
    let pairs: Vec<(String, String)> =
        serde_urlencoded::from_str(uri.query().unwrap_or("")).ok()?;
    let rest: Vec<(String, String)> = pairs.into_iter().filter(|(k, _)| k != "token").collect();
    // `//host` would be another site's address: one leading slash only
    let path = format!("/{}", uri.path().trim_start_matches('/'));
    let to = match rest.is_empty() {
        true => path,
        false => format!("{path}?{}", serde_urlencoded::to_string(&rest).ok()?),
    };
    HeaderValue::from_str(&to).ok()
}

/// Writes one request's line to standard error.
fn log(
    server: &str,
    ip: IpAddr,
    method: &Method,
    path: &str,
    status: StatusCode,
    took: Duration,
    why: Option<&str>,
) {
    let time = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ");
    // a path is printed as sent, its control characters escaped
    let path: String = path.escape_debug().collect();
    let why = why.map(|w| format!(" {w}")).unwrap_or_default();
    eprintln!(
        "{time} {server} {ip} {method} {path} {} {}ms{why}",
        status.as_u16(),
        took.as_millis()
    );
}

/// Whether `origin` (`http://host:port`) is the origin of a server reached as `host`.
fn same_origin(origin: &str, host: &str) -> bool {
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false; // `null`, or nonsense
    };
    let default = match scheme.to_ascii_lowercase().as_str() {
        "http" => ":80",
        "https" => ":443",
        _ => return false,
    };
    let norm = |a: &str| {
        let a = a.trim_end_matches('/').to_ascii_lowercase();
        a.strip_suffix(default).map(str::to_string).unwrap_or(a)
    };
    !host.is_empty() && norm(authority) == norm(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        assert!(same_origin("http://127.0.0.1:8640", "127.0.0.1:8640"));
        assert!(same_origin("http://LOCALHOST:8640", "localhost:8640"));
        assert!(same_origin("http://example.com", "example.com:80"));
        for (o, h) in [
            ("http://evil.example", "127.0.0.1:8640"),
            ("http://127.0.0.1:9999", "127.0.0.1:8640"),
            ("null", "127.0.0.1:8640"),
            ("file://", "127.0.0.1:8640"),
            ("http://127.0.0.1:8640", ""),
        ] {
            assert!(!same_origin(o, h), "{o} {h}");
        }
    }

    fn request(headers: &[(&str, &str)]) -> Request {
        let mut r = axum::http::Request::post("/reset");
        for (k, v) in headers {
            r = r.header(*k, *v);
        }
        r.body(axum::body::Body::empty()).unwrap()
    }

    #[test]
    fn the_token_leaves_the_address_and_nothing_else_does() {
        let at =
            |u: &str| without_token(&u.parse().unwrap()).map(|v| v.to_str().unwrap().to_string());
        assert_eq!(at("/?token=abc").as_deref(), Some("/"));
        assert_eq!(
            at("/run?id=0%2Fa+b&token=abc&x=1").as_deref(),
            Some("/run?id=0%2Fa+b&x=1")
        );
        assert_eq!(
            at("//evil.example/?token=abc").as_deref(),
            Some("/evil.example/")
        );
        assert_eq!(at("/play").as_deref(), Some("/play"));
    }

    #[test]
    fn only_a_browsers_navigation_is_sent_on() {
        let mut guard = Guard::new();
        guard.cookie = Some("c".into());
        let access = Access::Token("0123456789abcdef0123456789abcdef".into());
        let get = |headers: &[(&str, &str)]| {
            let mut r = axum::http::Request::get("/?token=0123456789abcdef0123456789abcdef");
            for (k, v) in headers {
                r = r.header(*k, *v);
            }
            guard
                .check(&access, &r.body(axum::body::Body::empty()).unwrap())
                .unwrap()
        };
        let typed = get(&[("sec-fetch-mode", "navigate"), ("accept", "text/html")]);
        assert!(typed.redirect.is_some() && typed.set_cookie.is_some());
        let plain_http = get(&[("accept", "text/html,application/xhtml+xml")]);
        assert!(plain_http.redirect.is_some());
        // a script's fetch, curl, a test client: answered in place
        for headers in [&[("sec-fetch-mode", "cors")][..], &[("accept", "*/*")], &[]] {
            let a = get(headers);
            assert!(
                a.redirect.is_none() && a.set_cookie.is_some(),
                "{headers:?}"
            );
        }
    }

    #[test]
    fn wrong_tokens_from_many_addresses_of_one_machine_or_network_count_as_one() {
        let guard = Guard::new();
        let access = Access::Token("0123456789abcdef0123456789abcdef".into());
        let from = |ip: &str| {
            let mut r = request(&[("authorization", "Bearer nope")]);
            let addr = SocketAddr::new(ip.parse().unwrap(), 40000);
            r.extensions_mut().insert(ConnectInfo(addr));
            guard.check(&access, &r).unwrap_err()
        };
        // another user of this machine may connect from any of 127.0.0.0/8 (and ::1);
        // one network's machines share a /64
        let local: Vec<String> = (2..14).map(|i| format!("127.0.{i}.9")).collect();
        let refusals: Vec<Refusal> = local.iter().map(|ip| from(ip)).collect();
        assert!(
            matches!(refusals[10], Refusal::SlowDown { .. }),
            "{refusals:?}"
        );
        assert!(matches!(from("::1"), Refusal::SlowDown { .. }));
        let net: Vec<Refusal> = (1..13).map(|i| from(&format!("2001:db8::{i:x}"))).collect();
        assert!(matches!(net[10], Refusal::SlowDown { .. }), "{net:?}");
        assert_eq!(from("2001:db8:0:1::1"), Refusal::Token, "another /64");
    }

    #[test]
    fn the_addresss_token_beats_a_stale_cookie() {
        let mut guard = Guard::new();
        guard.cookie = Some("c".into());
        let access = Access::Token("the-new-token-0123456789".into());
        let r = axum::http::Request::get("/?token=the-new-token-0123456789")
            .header("cookie", "c=the-old-token-0123456789")
            .body(axum::body::Body::empty())
            .unwrap();
        assert!(guard.check(&access, &r).unwrap().set_cookie.is_some());
    }

    #[test]
    fn ten_wrong_tokens_then_a_second_each() {
        let guard = Guard::new();
        let access = Access::Token("0123456789abcdef0123456789abcdef".into());
        let wrong = || request(&[("authorization", "Bearer nope")]);
        for _ in 0..FREE_FAILURES as usize {
            assert_eq!(guard.check(&access, &wrong()).unwrap_err(), Refusal::Token);
        }
        let refusal = guard.check(&access, &wrong()).unwrap_err();
        assert!(matches!(refusal, Refusal::SlowDown { .. }), "{refusal:?}");
        // even the right token waits: the answer says nothing about it
        let right = request(&[("authorization", "Bearer 0123456789abcdef0123456789abcdef")]);
        assert!(matches!(
            guard.check(&access, &right),
            Err(Refusal::SlowDown { .. })
        ));
    }

    #[test]
    fn foreign_pages_and_text_bodies_are_refused_before_the_token() {
        let mut guard = Guard::new();
        guard.json_only = true;
        let access = Access::Open;
        let host = ("host", "127.0.0.1:8000");
        let evil = request(&[host, ("origin", "http://evil.example")]);
        assert!(matches!(
            guard.check(&access, &evil),
            Err(Refusal::Origin { .. })
        ));
        let site = request(&[host, ("sec-fetch-site", "cross-site")]);
        assert!(matches!(
            guard.check(&access, &site),
            Err(Refusal::Origin { .. })
        ));
        let text = request(&[host, ("content-type", "text/plain")]);
        assert!(matches!(
            guard.check(&access, &text),
            Err(Refusal::NotJson { .. })
        ));
        let json = request(&[host, ("content-type", "application/json; charset=utf-8")]);
        assert!(guard.check(&access, &json).is_ok());
    }
}
