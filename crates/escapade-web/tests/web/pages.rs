//! Every page through the router (`tower::ServiceExt::oneshot`), over real baseline runs.

use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use tower::ServiceExt;

use escapade_web::auth::Access;
use escapade_web::server::router;

use crate::support;

/// Sends a GET for `uri` with `Host: 127.0.0.1` and returns status, headers and body.
pub async fn get(app: &axum::Router, uri: &str) -> (StatusCode, axum::http::HeaderMap, String) {
    send(
        app,
        Request::get(uri).header(header::HOST, "127.0.0.1:8640"),
    )
    .await
}

pub async fn send(
    app: &axum::Router,
    req: axum::http::request::Builder,
) -> (StatusCode, axum::http::HeaderMap, String) {
    let res = app
        .clone()
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = res.status();
    let headers = res.headers().clone();
    let body = res.into_body().collect().await.unwrap().to_bytes();
    (status, headers, String::from_utf8_lossy(&body).into_owned())
}

/// A folder with one finished vis oracle run (its episode has pictures).
pub async fn vis_folder() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_path_buf();
    let dir = tokio::task::spawn_blocking(move || support::baseline_run("vis", "oracle", 1, &out))
        .await
        .unwrap();
    (tmp, dir)
}

#[tokio::test]
async fn runs_page_lists_a_run_with_its_figures() {
    let (tmp, dir) = vis_folder().await;
    let app = support::app(&[tmp.path().to_path_buf()]);
    let (status, headers, body) = get(&app, "/").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(
        headers[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let name = dir.file_name().unwrap().to_string_lossy();
    assert!(body.contains(&*name), "{body}");
    assert!(body.contains("1 / 1"), "episodes done / planned: {body}");
    assert!(body.contains("100.0%"), "the oracle succeeds: {body}");
}

#[tokio::test]
async fn unknown_pages_and_assets_are_clear_404s() {
    let tmp = tempfile::tempdir().unwrap();
    let app = support::app(&[tmp.path().to_path_buf()]);
    let (status, _, body) = get(&app, "/no/such/page").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(body.contains("no such page"), "{body}");
    let (status, _, body) = get(&app, "/assets/secret.txt").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(body.contains("app.css"), "{body}");
    let (status, headers, body) = get(&app, "/assets/app.js").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        headers[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .contains("javascript")
    );
    assert_eq!(body, escapade_web::assets::JS);
    // and it still serves after the bad requests
    assert_eq!(get(&app, "/").await.0, StatusCode::OK);
}

#[tokio::test]
async fn loopback_refuses_other_host_names() {
    let tmp = tempfile::tempdir().unwrap();
    let app = support::app(&[tmp.path().to_path_buf()]);
    for host in ["evil.example", "evil.example:8640", "192.168.1.9:8640"] {
        let (status, _, body) = send(&app, Request::get("/").header(header::HOST, host)).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{host}");
        assert!(body.contains("--host"), "{body}");
    }
    for host in ["localhost:8640", "127.0.0.1", "[::1]:8640"] {
        let (status, _, _) = send(&app, Request::get("/").header(header::HOST, host)).await;
        assert_eq!(status, StatusCode::OK, "{host}");
    }
}

#[tokio::test]
async fn with_a_host_every_request_needs_the_token() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = [tmp.path().to_path_buf()];
    let token = "0123456789abcdef0123456789abcdef";
    let app = router(Arc::new(support::site(&dirs, Access::Token(token.into()))));
    let at = |uri: &str| Request::get(uri).header(header::HOST, "192.168.1.9:8640");
    for uri in ["/", "/assets/app.css", "/?token=wrong", "/no/such/page"] {
        let (status, _, body) = send(&app, at(uri)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{uri}");
        assert!(body.contains("?token="), "{body}");
        assert!(!body.contains(token), "the refusal never shows the token");
    }
    // the token in the address admits, and sets the cookie
    let (status, headers, _) = send(&app, at(&format!("/?token={token}"))).await;
    assert_eq!(status, StatusCode::OK);
    let cookie = headers[header::SET_COOKIE].to_str().unwrap().to_string();
    assert!(
        cookie.starts_with(&format!("escapade_token={token}")),
        "{cookie}"
    );
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    // the cookie alone admits later requests
    let pair = cookie.split(';').next().unwrap().to_string();
    let (status, _, _) = send(&app, at("/assets/app.css").header(header::COOKIE, &pair)).await;
    assert_eq!(status, StatusCode::OK);
    // a wrong cookie does not
    let (status, _, _) = send(
        &app,
        at("/").header(
            header::COOKIE,
            "escapade_token=0123456789abcdef0123456789abcdee",
        ),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}
