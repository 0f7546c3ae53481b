//! Playing in a real browser: headless Chromium over WebDriver, typing and clicking as a
//! person would. Screenshots: `target/browser-artifacts/play-*.png`.

use std::sync::Arc;
use std::time::Duration;

use escapade_web::play::{Lobby, PlaySetup};
use fantoccini::Locator;

use crate::browser::Browser;
use crate::kit::{self, Shadow};

/// A play server over `setup` on a free loopback port: its address and lobby.
async fn serve(setup: PlaySetup, worlds: escapade_web::server::Worlds) -> (String, Arc<Lobby>) {
    let options = escapade_web::ViewOptions {
        dirs: vec![setup.record.clone()],
        host: None,
        port: 0,
        ..Default::default()
    };
    let (site, lobby) = kit::site(setup, worlds);
    let server = escapade_web::Server::bind(&options, site)
        .await
        .expect("binds");
    let url = server.url().trim_end_matches('/').to_string();
    tokio::spawn(server.serve());
    (url, lobby)
}

/// The page's game version.
async fn version(b: &Browser) -> String {
    b.client
        .execute("return document.body.dataset.playVersion || ''", vec![])
        .await
        .unwrap()
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// Waits (up to 20 s) until the page is a newer one than `before`.
async fn wait_newer(b: &Browser, before: &str) {
    for _ in 0..200 {
        let ready = b
            .client
            .execute("return document.readyState", vec![])
            .await
            .map(|v| v == "complete")
            .unwrap_or(false);
        if ready && version(b).await != before {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the page did not move on from version {before}");
}

/// Types `text` into the action box and sends it, then waits for the next page.
async fn type_move(b: &Browser, text: &str) {
    let before = version(b).await;
    let box_ = b.wait_for("#text").await;
    box_.send_keys(text).await.unwrap();
    b.wait_for("#send").await.click().await.unwrap();
    wait_newer(b, &before).await;
}

/// Opens the start page and starts a game as `who` (in `seat` when given).
async fn start(b: &Browser, url: &str, who: &str, seat: Option<&str>) {
    b.client.goto(&format!("{url}/play")).await.unwrap();
    b.wait_for("#participant")
        .await
        .send_keys(who)
        .await
        .unwrap();
    if let Some(s) = seat {
        b.client
            .execute(
                "document.getElementById('seat').value = arguments[0]",
                vec![s.into()],
            )
            .await
            .unwrap();
    }
    b.wait_for("#start").await.click().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_scenario_typed_to_the_end_in_the_browser() {
    let Some(b) = Browser::start().await else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let worlds = kit::worlds();
    let setup = kit::setup(&worlds, "tools", 1, tmp.path());
    let json = setup.scenarios[0].clone();
    let mut shadow = Shadow::new(
        kit::world(&worlds, "tools"),
        &json,
        setup.seed,
        &setup.world_options,
    );
    let (url, _lobby) = serve(setup, worlds.clone()).await;
    start(&b, &url, "alice", None).await;
    b.wait_for("#observation").await;
    b.screenshot("play-tools-start").await;
    let mut n = 0;
    while !shadow.over {
        let (_, text) = shadow.next();
        type_move(&b, &text).await;
        shadow.play(&text);
        n += 1;
        if n == 3 {
            b.screenshot("play-tools-middle").await;
        }
        assert!(n < 200, "the oracle did not finish");
    }
    let ending = b.wait_for("#ending").await.text().await.unwrap();
    assert!(ending.contains("Escaped after"), "{ending}");
    let dir = b.wait_for("#run-dir").await.text().await.unwrap();
    assert!(
        std::path::Path::new(&dir).join("episodes.jsonl").exists(),
        "{dir}"
    );
    b.screenshot("play-tools-escaped").await;
    let rows = kit::episodes(std::path::Path::new(&dir));
    assert_eq!(
        (&rows[0]["agent"], &rows[0]["success"]),
        (&"human".into(), &true.into())
    );
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn comma_two_browsers_solver_and_expert() {
    let Some(solver) = Browser::start().await else {
        return;
    };
    let expert = Browser::start().await.expect("a second browser");
    let tmp = tempfile::tempdir().unwrap();
    let worlds = kit::worlds();
    let setup = kit::setup(&worlds, "comma", 1, tmp.path());
    let json = setup.scenarios[0].clone();
    let mut shadow = Shadow::new(
        kit::world(&worlds, "comma"),
        &json,
        setup.seed,
        &setup.world_options,
    );
    let (url, _lobby) = serve(setup, worlds.clone()).await;
    start(&solver, &url, "alice", Some("solver")).await;
    solver.wait_for("#partner-wait").await;
    solver.screenshot("play-comma-waiting").await;
    // the colleague joins from the start page
    expert.client.goto(&format!("{url}/play")).await.unwrap();
    expert
        .wait_for("#waiting input[name=participant]")
        .await
        .send_keys("bob")
        .await
        .unwrap();
    expert
        .wait_for("#waiting button.join")
        .await
        .click()
        .await
        .unwrap();
    let mut n = 0;
    while !shadow.over {
        let (role, text) = shadow.next();
        let b = if role == "solver" { &solver } else { &expert };
        // the seat's page reloads by itself when its turn comes
        b.wait_for("#turn #text").await;
        type_move(b, &text).await;
        shadow.play(&text);
        n += 1;
        if n == 2 {
            solver.screenshot("play-comma-solver").await;
            expert.screenshot("play-comma-expert").await;
        }
        assert!(n < 200, "the oracle did not finish");
    }
    for (b, name) in [(&solver, "solver"), (&expert, "expert")] {
        let ending = b.wait_for("#ending").await.text().await.unwrap();
        assert!(ending.contains("Escaped after"), "{name}: {ending}");
        b.screenshot(&format!("play-comma-{name}-escaped")).await;
    }
    let dirs = kit::run_dirs(tmp.path());
    assert_eq!(dirs.len(), 1);
    solver.close().await;
    expert.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vis_steps_by_clicking_action_buttons() {
    let Some(b) = Browser::start().await else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let worlds = kit::worlds();
    let setup = kit::setup(&worlds, "vis", 1, tmp.path());
    let json = setup.scenarios[0].clone();
    let mut shadow = Shadow::new(
        kit::world(&worlds, "vis"),
        &json,
        setup.seed,
        &setup.world_options,
    );
    let (url, _lobby) = serve(setup, worlds.clone()).await;
    start(&b, &url, "dana", None).await;
    b.wait_for("#actions").await;
    b.screenshot("play-vis-start").await;
    for _ in 0..4 {
        // the oracle writes VisEscape's reply format; the button is the action itself
        let (_, reply) = shadow.next();
        let text = reply.trim_start_matches("[ACTION]").trim().to_string();
        let before = version(&b).await;
        let buttons = b
            .client
            .find_all(Locator::Css("#actions button"))
            .await
            .unwrap();
        let mut clicked = false;
        for button in buttons {
            if button.attr("value").await.unwrap().as_deref() == Some(text.as_str()) {
                button.click().await.unwrap();
                clicked = true;
                break;
            }
        }
        assert!(clicked, "no button for the oracle's move `{text}`");
        wait_newer(&b, &before).await;
        shadow.play(&text);
    }
    let history = b.wait_for("#history").await.text().await.unwrap();
    assert!(history.matches('\n').count() > 3, "{history}");
    b.screenshot("play-vis-after-four").await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn craft_click_on_the_frame_and_keys() {
    let Some(b) = Browser::start().await else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let worlds = kit::worlds();
    let setup = kit::setup(&worlds, "craft", 1, tmp.path());
    let (url, _lobby) = serve(setup, worlds.clone()).await;
    start(&b, &url, "erin", None).await;
    let frame = b.wait_for("#frame").await;
    b.screenshot("play-craft-start").await;
    let before = version(&b).await;
    frame.click().await.unwrap();
    wait_newer(&b, &before).await;
    let history = b.wait_for("#history").await.text().await.unwrap();
    assert!(history.contains("\"look_at\":[0.5"), "{history}");
    // the D key turns right
    let before = version(&b).await;
    b.wait_for("#frame").await;
    b.client
        .execute(
            "document.activeElement && document.activeElement.blur()",
            vec![],
        )
        .await
        .unwrap();
    b.wait_for("body").await.send_keys("d").await.unwrap();
    wait_newer(&b, &before).await;
    let history = b.wait_for("#history").await.text().await.unwrap();
    assert!(history.contains("\"rotate_right\":30"), "{history}");
    b.screenshot("play-craft-after-click").await;
    b.close().await;
}
