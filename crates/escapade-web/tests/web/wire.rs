//! Requests over loopback: a real server on a free port of 127.0.0.1 and an HTTP client
//! (reqwest, redirects not followed), every request bounded in time. A server-sent event
//! stream is read for a moment and then dropped, so a test can look at what it sends.

use std::time::Duration;

use escapade_web::server::Site;

/// How long a page may take before the test fails.
const PAGE: Duration = Duration::from_secs(20);
/// How long an event stream is read before it is dropped.
const STREAM: Duration = Duration::from_millis(1500);

/// One answer: status, `Location`, content type and body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub location: Option<String>,
    pub content_type: String,
    pub body: Vec<u8>,
}

impl Reply {
    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as text with minijinja's HTML escapes undone.
    pub fn unescaped(&self) -> String {
        unescape(&self.text())
    }
}

/// `body` with minijinja's HTML escapes undone, to look for text as it was written.
pub fn unescape(body: &str) -> String {
    body.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#34;", "\"")
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&#x2f;", "/")
        .replace("&amp;", "&")
}

/// A server listening on loopback, and a client for it.
pub struct Wire {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    client: reqwest::Client,
}

impl Wire {
    /// Binds `site` on a free loopback port and serves it on the test's runtime.
    pub async fn serve(site: Site) -> Wire {
        let options = escapade_web::ViewOptions {
            dirs: site.folders.roots().to_vec(),
            host: None,
            port: 0,
        };
        let server = escapade_web::Server::bind(&options, site)
            .await
            .expect("binds");
        let base = format!("http://127.0.0.1:{}", server.port());
        tokio::spawn(server.serve());
        Wire {
            base,
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .timeout(PAGE)
                .build()
                .expect("a client"),
        }
    }

    /// `GET path` (with its query).
    pub async fn get(&self, path: &str) -> Reply {
        self.send(self.client.get(self.url(path))).await
    }

    /// `POST path` with the form `pairs`, as a page of this server sends it.
    pub async fn post(&self, path: &str, pairs: &[(&str, &str)]) -> Reply {
        let body = serde_urlencoded::to_string(pairs).unwrap();
        self.send(
            self.client
                .post(self.url(path))
                .header("content-type", "application/x-www-form-urlencoded")
                .header("origin", &self.base)
                .body(body),
        )
        .await
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    async fn send(&self, req: reqwest::RequestBuilder) -> Reply {
        let mut res = tokio::time::timeout(PAGE, req.send())
            .await
            .expect("the server answers in time")
            .expect("the request goes through");
        let header = |name: &str| {
            res.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let location = header("location");
        let content_type = header("content-type").unwrap_or_default();
        let status = res.status().as_u16();
        let deadline = tokio::time::Instant::now()
            + if content_type.starts_with("text/event-stream") {
                STREAM
            } else {
                PAGE
            };
        let mut body = Vec::new();
        loop {
            match tokio::time::timeout_at(deadline, res.chunk()).await {
                Ok(Ok(Some(bytes))) => body.extend_from_slice(&bytes),
                Ok(Ok(None)) | Ok(Err(_)) => break,
                Err(_) => {
                    assert!(
                        content_type.starts_with("text/event-stream"),
                        "a page took more than {PAGE:?}"
                    );
                    break;
                }
            }
        }
        Reply {
            status,
            location,
            content_type,
            body,
        }
    }
}
