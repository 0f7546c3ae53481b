//! Every page through the router (`tower::ServiceExt::oneshot`), over real baseline runs.

use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use tower::ServiceExt;

use escapade_web::auth::Access;
use escapade_web::server::router;

use crate::support::{self, enc, id_of};

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
    support::baseline_run_async("vis", "oracle", 1).await
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

/// Every file under `dir` with its length and modification time.
fn snapshot(dir: &std::path::Path) -> Vec<(PathBuf, u64, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let m = e.metadata().unwrap();
            if m.is_dir() {
                stack.push(e.path());
            }
            out.push((e.path(), m.len(), m.modified().unwrap()));
        }
    }
    out.sort();
    out
}

#[tokio::test]
async fn every_page_of_real_runs_and_the_viewer_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_path_buf();
    let (vis, vis2, comma) = tokio::task::spawn_blocking(move || {
        (
            support::baseline_run("vis", "random", 2, &out),
            support::baseline_run("vis", "oracle", 1, &out),
            support::baseline_run("comma", "oracle", 1, &out),
        )
    })
    .await
    .unwrap();
    let before = snapshot(tmp.path());
    let app = support::app(&[tmp.path().to_path_buf()]);
    let id = |d: &std::path::Path| format!("0/{}", d.file_name().unwrap().to_string_lossy());
    let (vis_id, vis2_id, comma_id) = (id(&vis), id(&vis2), id(&comma));

    // a run: its episodes, findable by outcome
    let (status, _, body) = get(&app, &format!("/run?id={}", enc(&vis_id))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(
        body.contains("vis-r01") && body.contains("vis-r02"),
        "{body}"
    );
    assert_eq!(
        body.matches("data-success=\"false\"").count(),
        2,
        "random fails both: {body}"
    );
    assert!(body.contains("failed only (2)"), "{body}");

    // the report: the same tables as escapade report, and plots inline
    let (status, _, body) = get(
        &app,
        &format!("/report?run={}&run={}", enc(&vis_id), enc(&vis2_id)),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let set = escapade_run::report::read_runs(&[vis.clone(), vis2.clone()]).unwrap();
    let worlds = support::worlds();
    let refs: Vec<&dyn escapade_core::World> = worlds.iter().map(|w| w.as_ref()).collect();
    let report = escapade_run::Report::from_runs(&set, &refs).with_usual_extras(&set, &refs);
    let md = report.render(escapade_run::Format::Markdown);
    for row in md
        .lines()
        .filter(|l| l.starts_with("| 1 |") || l.starts_with("| all |"))
    {
        let first_cells: Vec<&str> = row
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .take(3)
            .collect();
        for c in first_cells {
            // a metric's name is explained on hover
            let (plain, named) = (format!(">{c}</td>"), format!(">{c}</abbr></td>"));
            assert!(
                body.contains(&plain) || body.contains(&named),
                "{plain} of {row} missing"
            );
        }
    }
    assert!(body.contains("data:image/svg+xml;base64,"), "plots inline");
    assert!(body.contains("success_by_difficulty"), "{body}");

    // an episode with its pictures and their descriptions
    let uri = format!("/episode?run={}&scenario=vis-r01&epoch=0", enc(&vis2_id));
    let (status, _, body) = get(&app, &uri).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let rows = std::fs::read_to_string(vis2.join("trajectories/vis-r01/0.jsonl")).unwrap();
    let steps: Vec<escapade_core::StepRow> = rows
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(body.matches("<section class=\"step").count(), steps.len());
    let sha = &steps[0].observation.images[0];
    assert!(
        body.contains(&format!("sha={sha}")),
        "the first picture is shown"
    );
    let (status, headers, _) = get(&app, &format!("/media?run={}&sha={sha}", enc(&vis2_id))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers[header::CONTENT_TYPE], "image/png");
    // the other run that played the scenario is offered side by side
    let other = vis.file_name().unwrap().to_string_lossy().into_owned();
    assert!(body.contains(&format!(">{other}</option>")), "{body}");
    let (status, _, body) = get(
        &app,
        &format!(
            "/compare?a={}&b={}&scenario=vis-r01&epoch=0",
            enc(&vis_id),
            enc(&vis2_id)
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body.matches("class=\"steps").count(), 2);

    // a two-role world reads as a chat with each role's view
    let scenario = std::fs::read_dir(comma.join("trajectories"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .file_name();
    let scenario = scenario.to_string_lossy();
    let (status, _, body) = get(
        &app,
        &format!(
            "/episode?run={}&scenario={}&epoch=0",
            enc(&comma_id),
            enc(&scenario)
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains("steps chat"), "{body}");
    assert!(
        body.contains("role-solver") && body.contains("role-expert"),
        "{body}"
    );

    // live events of a finished run: its rows, its figures, done
    let (status, headers, body) = get(&app, &format!("/events?run={}&from=0", enc(&vis_id))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers[header::CONTENT_TYPE], "text/event-stream");
    assert_eq!(body.matches("event: episode").count(), 2, "{body}");
    assert!(
        body.contains("event: figures") && body.contains("\"done\":2"),
        "{body}"
    );
    assert!(body.contains("event: done"), "{body}");

    // the runs page again, then: not one file was added, changed or touched
    assert_eq!(get(&app, "/").await.0, StatusCode::OK);
    assert_eq!(
        before,
        snapshot(tmp.path()),
        "the viewer wrote into a run directory"
    );
}

#[tokio::test]
async fn malformed_requests_get_clear_4xx_pages_and_the_server_keeps_serving() {
    let (tmp, dir) = vis_folder().await;
    let app = support::app(&[tmp.path().to_path_buf()]);
    let id = format!("0/{}", dir.file_name().unwrap().to_string_lossy());
    let cases: Vec<(String, StatusCode, &str)> = vec![
        ("/run".into(), StatusCode::BAD_REQUEST, "id=…"),
        (
            "/run?id=nonsense".into(),
            StatusCode::BAD_REQUEST,
            "malformed run id",
        ),
        (
            "/run?id=0/no-such-run".into(),
            StatusCode::NOT_FOUND,
            "no such run",
        ),
        (
            "/run?id=0/..".into(),
            StatusCode::BAD_REQUEST,
            "plain folder name",
        ),
        (
            "/run?id=0%2F..%2F..%2Fetc".into(),
            StatusCode::BAD_REQUEST,
            "plain folder name",
        ),
        ("/run?id=7/x".into(), StatusCode::NOT_FOUND, "no such run"),
        ("/run?id=%ZZ".into(), StatusCode::BAD_REQUEST, "malformed"),
        (
            format!("/episode?run={}&scenario=vis-r01&epoch=abc", enc(&id)),
            StatusCode::BAD_REQUEST,
            "not an epoch number",
        ),
        (
            format!("/episode?run={}&scenario=vis-r01&epoch=9", enc(&id)),
            StatusCode::NOT_FOUND,
            "no such episode",
        ),
        (
            format!(
                "/episode?run={}&scenario=..%2F..%2Frun.toml&epoch=0",
                enc(&id)
            ),
            StatusCode::NOT_FOUND,
            "no such episode",
        ),
        (
            format!("/episode?run={}", enc(&id)),
            StatusCode::BAD_REQUEST,
            "scenario=…",
        ),
        (
            format!("/media?run={}&sha=..%2Frun.toml", enc(&id)),
            StatusCode::BAD_REQUEST,
            "SHA-256",
        ),
        (
            format!("/media?run={}&sha={}", enc(&id), "0".repeat(64)),
            StatusCode::NOT_FOUND,
            "no such picture",
        ),
        ("/report".into(), StatusCode::BAD_REQUEST, "no run chosen"),
        (
            "/report?run=0/../..".into(),
            StatusCode::BAD_REQUEST,
            "malformed run id",
        ),
        (
            format!("/events?run={}&from=-1", enc(&id)),
            StatusCode::BAD_REQUEST,
            "count of episodes",
        ),
        (
            "/events?run=0/nope".into(),
            StatusCode::NOT_FOUND,
            "no such run",
        ),
        (
            format!("/compare?a={}&scenario=vis-r01", enc(&id)),
            StatusCode::BAD_REQUEST,
            "b=…",
        ),
    ];
    for (uri, status, says) in cases {
        let (got, headers, body) = get(&app, &uri).await;
        assert_eq!(got, status, "{uri}: {body}");
        assert!(
            headers[header::CONTENT_TYPE]
                .to_str()
                .unwrap()
                .starts_with("text/html"),
            "{uri}"
        );
        assert!(body.contains(says), "{uri}: expected `{says}` in {body}");
        assert!(
            !body.contains("run.toml\n") && !body.contains(&tmp.path().display().to_string()),
            "{uri} shows a path: {body}"
        );
    }
    let (status, _, body) = get(&app, "/").await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.contains(&*dir.file_name().unwrap().to_string_lossy()));
}

#[tokio::test]
async fn the_runs_page_follows_a_growing_run() {
    let (tmp, dir, second) = support::half_finished_run().await;
    let app = support::app(&[tmp.path().to_path_buf()]);
    let (_, _, body) = get(&app, "/").await;
    assert!(body.contains("1 / 2"), "{body}");
    support::append_episode(&dir, &second);
    let (_, _, body) = get(&app, "/").await;
    assert!(
        body.contains("2 / 2"),
        "the page still shows the old count: {body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_episode_shows_request_reply_reasoning_and_reasks() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = support::scripted_model_run(tmp.path()).await;
    let app = support::app(&[tmp.path().join("runs")]);
    let id = format!("0/{}", dir.file_name().unwrap().to_string_lossy());
    let (status, _, body) = get(
        &app,
        &format!("/episode?run={}&scenario=vis-r01&epoch=0", enc(&id)),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let body = unescape(&body);
    // step 1: the reply, its reasoning, the parsed action, the usage
    let step1 = &body[body.find("id=\"step-1\"").unwrap()..body.find("id=\"step-2\"").unwrap()];
    assert!(
        step1.contains("Looking around first. [ACTION] turn to west"),
        "{step1}"
    );
    assert!(step1.contains("the room is new, so I turn"), "{step1}");
    // the thinking apart, and a reply cut at the token limit said so
    assert!(
        step1.contains("120 in / 12 out tokens (7 thinking)")
            && step1.contains("cut at the token limit"),
        "{step1}"
    );
    assert!(step1.contains("what was added since"), "{step1}");
    // step 2: the rejected reply, the message the agent was re-asked with, then the action
    let step2 = &body[body.find("id=\"step-2\"").unwrap()..body.find("id=\"step-3\"").unwrap()];
    assert!(
        step2.contains("re-asked (1)") && step2.contains("hmm, no idea"),
        "{step2}"
    );
    assert!(
        step2.contains("not among the &lt;Available Actions&gt;")
            || step2.contains("not among the <Available Actions>"),
        "{step2}"
    );
    assert!(step2.contains("[ACTION] turn to east"), "{step2}");
    // the request delta of step 2 holds the model's previous reply, not the system prompt
    let delta = &step2[step2.find("<pre>").unwrap()..];
    assert!(delta.contains("Looking around first."), "{delta}");
}

/// HTML text as read (the entities minijinja writes, undone).
fn unescape(html: &str) -> String {
    html.replace("&#x2f;", "/")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

#[tokio::test]
async fn the_runs_page_says_whether_a_run_is_running_finished_or_interrupted() {
    let (tmp, run, _second) = support::half_finished_run().await;
    let app = support::app(&[tmp.path().to_path_buf()]);
    let status = |body: &str| -> String {
        let cell = body
            .split("<td class=\"status status-")
            .nth(1)
            .unwrap_or_else(|| panic!("no status cell: {body}"));
        cell.split('"').next().unwrap().to_string()
    };
    // half its episodes in, and no process writing it: interrupted
    let (_, _, body) = get(&app, "/").await;
    assert!(body.contains("<th>status</th>"), "{body}");
    assert_eq!(status(&body), "interrupted");
    // `escapade run` holds the lock while it plays
    let lock = support::hold_lock(&run);
    let (_, _, body) = get(&app, "/").await;
    assert_eq!(status(&body), "running");
    drop(lock);
    // every planned episode in: finished
    let (tmp2, _) = vis_folder().await;
    let app = support::app(&[tmp2.path().to_path_buf()]);
    let (_, _, body) = get(&app, "/").await;
    assert_eq!(status(&body), "finished");
}

#[tokio::test]
async fn a_running_run_lists_its_episodes_in_progress() {
    // the second room's trajectory is written and its row is not: it is being played
    let (tmp, run, second) = support::half_finished_run().await;
    let app = support::app(&[tmp.path().to_path_buf()]);
    let id = id_of(&run);
    let lock = support::hold_lock(&run);
    let (status, _, body) = get(&app, &format!("/run?id={id}")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let playing = body
        .split("<div id=\"playing\"")
        .nth(1)
        .unwrap_or_else(|| panic!("no list of episodes in progress: {body}"));
    let playing = playing.split("</div>").next().unwrap();
    assert!(playing.contains("In progress (1)"), "{playing}");
    assert!(playing.contains("vis-r02"), "{playing}");
    assert!(playing.contains("steps so far"), "{playing}");
    assert!(
        playing.contains("href=\"/episode?run=0")
            && playing.contains("&amp;scenario=vis-r02&amp;epoch=0\""),
        "{playing}"
    );
    // its page opens on what it has done so far
    let (status, _, page) = get(&app, &format!("/episode?run={id}&scenario=vis-r02&epoch=0")).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert!(page.contains("data-ending=\"in progress\""), "{page}");
    drop(lock);
    // stopped before it ended: left unfinished, for `escapade resume`
    let (_, _, body) = get(&app, &format!("/run?id={id}")).await;
    assert!(body.contains("Left unfinished (1)"), "{body}");
    // once its row is in, nothing is unfinished
    support::append_episode(&run, &second);
    let (_, _, body) = get(&app, &format!("/run?id={id}")).await;
    assert!(
        !body.contains("Left unfinished") && !body.contains("In progress"),
        "{body}"
    );
}

#[tokio::test]
async fn an_episode_page_opens_on_how_it_ended() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_path_buf();
    let (quit, random) = tokio::task::spawn_blocking(move || {
        (
            support::gave_up_run(&out.join("people")),
            support::baseline_run("comma", "random", 3, &out.join("random")),
        )
    })
    .await
    .unwrap();
    let app = support::app(&[tmp.path().join("people"), tmp.path().join("random")]);
    // a person who quit gave up: no error, nothing in red
    let id = enc(&format!(
        "0/{}",
        quit.file_name().unwrap().to_string_lossy()
    ));
    let scenario = "comma-wire-000";
    let (status, _, page) = get(
        &app,
        &format!("/episode?run={id}&scenario={scenario}&epoch=0"),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let banner = page
        .split("<section id=\"outcome\"")
        .nth(1)
        .unwrap_or_else(|| panic!("no outcome banner: {page}"))
        .split("</section>")
        .next()
        .unwrap();
    assert!(banner.contains("class=\"outcome muted\""), "{banner}");
    assert!(banner.contains("Gave up after 1 step"), "{banner}");
    assert!(
        !banner.contains("agent failed") && !banner.contains("class=\"bad\""),
        "{banner}"
    );
    // the final metrics by the paper's names, the definitions on hover
    assert!(banner.contains("Average mistakes (AM)"), "{banner}");
    assert!(
        banner.contains("title=\"wrong actions in a puzzle"),
        "{banner}"
    );
    // the banner comes before the first step
    assert!(page.find("id=\"outcome\"").unwrap() < page.find("id=\"step-1\"").unwrap());
    // the run's page counts no error
    let (_, _, run_page) = get(&app, &format!("/run?id={id}")).await;
    assert!(
        run_page.contains("<b id=\"fig-errors\">0</b>"),
        "{run_page}"
    );
    // a random pair's episodes end one way or another, each said in words
    let id = enc(&format!(
        "1/{}",
        random.file_name().unwrap().to_string_lossy()
    ));
    let rows = std::fs::read_to_string(random.join("episodes.jsonl")).unwrap();
    for line in rows.lines() {
        let row: serde_json::Value = serde_json::from_str(line).unwrap();
        let scenario = row["scenario"].as_str().unwrap();
        let (_, _, page) = get(
            &app,
            &format!("/episode?run={id}&scenario={scenario}&epoch=0"),
        )
        .await;
        let want = if row["success"] == true {
            "escaped"
        } else {
            "not escaped"
        };
        let ending = format!("data-ending=\"{want}\"");
        let budget = "data-ending=\"out of budget\"";
        assert!(
            page.contains(&ending) || (want != "escaped" && page.contains(budget)),
            "{scenario}: {page}"
        );
    }
}

/// Every answer, page or refusal, tells the browser to run only this server's own
/// scripts, never to be framed by another site (a play page's buttons under a foreign
/// page's clicks), never to send the address (and a token in it) on to another site as
/// a Referer, and not to guess a type.
#[tokio::test]
async fn pages_carry_the_browser_protections() {
    let tmp = tempfile::tempdir().unwrap();
    let app = support::app(&[tmp.path().to_path_buf()]);
    for uri in ["/", "/assets/app.js", "/no/such/page"] {
        let (_, headers, _) = get(&app, uri).await;
        let of = |name: &str| {
            headers
                .get(name)
                .map(|v| v.to_str().unwrap().to_string())
                .unwrap_or_else(|| panic!("{uri}: no {name} header in {headers:?}"))
        };
        let csp = of("content-security-policy");
        for part in [
            "script-src 'self'",
            "frame-ancestors 'none'",
            "object-src 'none'",
        ] {
            assert!(csp.contains(part), "{uri}: {csp}");
        }
        assert_eq!(of("referrer-policy"), "same-origin", "{uri}");
        assert_eq!(of("x-content-type-options"), "nosniff", "{uri}");
        assert_eq!(of("x-frame-options"), "DENY", "{uri}");
    }
}
