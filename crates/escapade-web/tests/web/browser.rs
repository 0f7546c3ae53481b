//! The pages in a real browser: Debian's headless Chromium driven over WebDriver
//! (`/usr/bin/chromedriver`, fantoccini). Screenshots are kept under
//! `target/browser-artifacts/`. Without chromedriver these tests skip with a message,
//! unless `CI=true`, where they fail (`.ci/run` installs the browser).

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::{Client, ClientBuilder, Locator};

use crate::support;

const DRIVER: &str = "/usr/bin/chromedriver";
const CHROMIUM: &str = "/usr/bin/chromium";

/// A headless Chromium session and the chromedriver behind it (stopped on drop).
pub struct Browser {
    pub client: Client,
    driver: Child,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// Where screenshots go: `target/browser-artifacts/` of this workspace.
pub fn artifacts() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    let dir = target.join("browser-artifacts");
    std::fs::create_dir_all(&dir).expect("artifacts folder");
    dir
}

impl Browser {
    /// Starts chromedriver and a browser; `None` (with a message) when there is no
    /// chromedriver here, a panic instead when `CI=true`.
    pub async fn start() -> Option<Browser> {
        if !std::path::Path::new(DRIVER).exists() {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI=true but {DRIVER} is missing: install chromium and chromium-driver (.ci/run does)"
            );
            eprintln!(
                "skipping a browser test: {DRIVER} is missing (apt-get install chromium chromium-driver)"
            );
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let driver = Command::new(DRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let profile = tempfile::tempdir().expect("a profile folder");
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".into(),
            serde_json::json!({
                "binary": CHROMIUM,
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    "--window-size=1280,900",
                    format!("--user-data-dir={}", profile.path().display()),
                ],
            }),
        );
        let url = format!("http://127.0.0.1:{port}");
        let mut last = String::new();
        for _ in 0..100 {
            let connector = hyper_util::client::legacy::connect::HttpConnector::new();
            match ClientBuilder::new(connector)
                .capabilities(caps.clone())
                .connect(&url)
                .await
            {
                Ok(client) => {
                    return Some(Browser {
                        client,
                        driver,
                        _profile: profile,
                    });
                }
                Err(e) => last = e.to_string(),
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("chromedriver did not start a session: {last}");
    }

    /// Saves a screenshot as `target/browser-artifacts/<name>.png`.
    pub async fn screenshot(&self, name: &str) {
        let png = self.client.screenshot().await.expect("a screenshot");
        std::fs::write(artifacts().join(format!("{name}.png")), png).expect("saved");
    }

    /// Waits (up to 10 s) until `css` matches an element, and returns it.
    pub async fn wait_for(&self, css: &str) -> fantoccini::elements::Element {
        self.client
            .wait()
            .at_most(Duration::from_secs(10))
            .for_element(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no `{css}` on the page: {e}"))
    }

    /// Opens `path` (with its query) on the server at `url`.
    pub async fn open(&self, url: &str, path: &str) {
        self.client
            .goto(&format!("{url}{path}"))
            .await
            .unwrap_or_else(|e| panic!("{path} did not open: {e}"));
    }

    /// Marks the page, so that [`Browser::assert_same_page`] can tell it was not reloaded.
    pub async fn mark_page(&self) {
        self.client
            .execute("window.notReloaded = true", vec![])
            .await
            .unwrap();
    }

    /// Fails when the page marked by [`Browser::mark_page`] was reloaded or left.
    pub async fn assert_same_page(&self) {
        let same = self
            .client
            .execute("return window.notReloaded === true", vec![])
            .await
            .unwrap();
        assert_eq!(same, serde_json::json!(true), "the page was reloaded");
    }

    /// Ends the session.
    pub async fn close(self) {
        let _ = self.client.clone().close().await;
    }
}

/// A loopback server over `dirs` on a free port; returns its address.
pub async fn serve(dirs: &[PathBuf]) -> String {
    let options = escapade_web::ViewOptions {
        dirs: dirs.to_vec(),
        host: None,
        port: 0,
        ..Default::default()
    };
    let site = support::site(dirs, escapade_web::auth::Access::Loopback);
    let server = escapade_web::Server::bind(&options, site)
        .await
        .expect("binds");
    let url = server.url().trim_end_matches('/').to_string();
    tokio::spawn(server.serve());
    url
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_page_lists_and_filters_runs() {
    let (tmp, vis, comma) = support::two_runs(("vis", "oracle", 1), ("comma", "oracle", 1)).await;
    let dirs = [tmp.path().to_path_buf()];
    let Some(browser) = Browser::start().await else {
        return;
    };
    let url = serve(&dirs).await;
    browser.open(&url, "/").await;
    browser.wait_for("#runs tbody tr").await;
    let rows = browser
        .client
        .find_all(Locator::Css("#runs tbody tr"))
        .await
        .unwrap();
    assert_eq!(rows.len(), 2);
    let text = browser
        .client
        .find(Locator::Css("#runs"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for dir in [&vis, &comma] {
        let name = dir.file_name().unwrap().to_string_lossy();
        assert!(text.contains(&*name), "{name} missing from {text}");
    }
    browser.screenshot("runs-page").await;
    // the filter hides the runs that do not match
    let filter = browser.wait_for("#filter").await;
    filter.send_keys("comma").await.unwrap();
    let visible = browser
        .client
        .execute(
            "return [...document.querySelectorAll('#runs tbody tr')].filter(r => r.offsetParent !== null).length",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(visible, serde_json::json!(1));
    browser.screenshot("runs-page-filtered").await;
    browser.close().await;
}

/// The token flow as a person meets it: the browser opens the address the viewer
/// printed (its token in the query), follows a link inside the site on the cookie the
/// first visit set, and a browser without the token (another user of the machine) is
/// shown the refusal page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_printed_address_admits_a_browser_and_its_cookie_keeps_it_in() {
    let (tmp, run) = support::baseline_run_async("vis", "oracle", 1).await;
    let dirs = [tmp.path().to_path_buf()];
    let Some(browser) = Browser::start().await else {
        return;
    };
    let options = escapade_web::ViewOptions {
        dirs: dirs.to_vec(),
        port: 0,
        ..Default::default()
    };
    let site = escapade_web::Site::new(&options, support::worlds()).unwrap();
    let server = escapade_web::Server::bind(&options, site)
        .await
        .expect("binds");
    let printed = server.url().to_string();
    let (base, _) = printed.split_once("/?token=").expect("a token by default");
    let base = base.to_string();
    tokio::spawn(server.serve());
    browser.client.goto(&printed).await.unwrap();
    // the link to the run, followed on the cookie alone
    let name = run.file_name().unwrap().to_string_lossy().to_string();
    browser
        .wait_for("#runs tbody tr a")
        .await
        .click()
        .await
        .unwrap();
    browser.wait_for("#episodes").await;
    let now = browser.client.current_url().await.unwrap();
    assert!(!now.as_str().contains("token="), "{now}");
    let page = browser.client.source().await.unwrap();
    assert!(page.contains(&name), "the run page");
    browser.close().await;
    // a browser without the token
    let Some(other) = Browser::start().await else {
        return;
    };
    other.open(&base, "/").await;
    let page = other.client.source().await.unwrap();
    assert!(page.contains("needs its access token"), "{page}");
    assert!(!page.contains(&name), "a run shown without the token");
    other.close().await;
}

/// The `data-step` of the step marked current.
async fn current_step(browser: &Browser) -> String {
    let el = browser.wait_for(".step.current").await;
    el.attr("data-step").await.unwrap().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_episode_steps_by_keyboard() {
    let (tmp, run) = support::baseline_run_async("vis", "random", 1).await;
    let dirs = [tmp.path().to_path_buf()];
    let Some(browser) = Browser::start().await else {
        return;
    };
    let url = serve(&dirs).await;
    // from the run page, find the failing episode and open it
    browser
        .open(&url, &format!("/run?id={}", support::id_of(&run)))
        .await;
    let outcome = browser.wait_for("#outcome").await;
    outcome.select_by_value("false").await.unwrap();
    browser.screenshot("run-page-failed-only").await;
    browser
        .wait_for("#episodes tbody tr[data-success=false] a")
        .await
        .click()
        .await
        .unwrap();
    browser.wait_for(".step.current").await;
    assert_eq!(current_step(&browser).await, "1");
    let body = browser.client.find(Locator::Css("body")).await.unwrap();
    for (key, expect) in [
        ("\u{E014}", "2"), // →
        ("\u{E014}", "3"),
        ("j", "4"),
        ("\u{E012}", "3"), // ←
        ("k", "2"),
    ] {
        body.send_keys(key).await.unwrap();
        assert_eq!(current_step(&browser).await, expect, "after {key:?}");
    }
    assert!(
        browser
            .client
            .current_url()
            .await
            .unwrap()
            .as_str()
            .ends_with("#step-2")
    );
    // a step by number
    let goto = browser.wait_for("#goto").await;
    goto.clear().await.unwrap();
    goto.send_keys("7\n").await.unwrap();
    browser
        .client
        .execute(
            "document.getElementById('goto').dispatchEvent(new Event('change'))",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(current_step(&browser).await, "7");
    // the picture the agent saw is loaded
    let loaded = browser
        .client
        .execute(
            "const i = document.querySelector('.step.current img'); return i ? (i.complete && i.naturalWidth > 0) : null",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(loaded, serde_json::json!(true));
    browser.screenshot("episode-step-7").await;
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_run_gains_an_episode_without_reloading() {
    // the run as it was after its first episode: the second row arrives while the page is open
    let (tmp, run, second) = support::half_finished_run().await;
    // the run's process holds its lock while it plays
    let lock = support::hold_lock(&run);
    let dirs = [tmp.path().to_path_buf()];
    let Some(browser) = Browser::start().await else {
        return;
    };
    let url = serve(&dirs).await;
    browser
        .open(&url, &format!("/run?id={}", support::id_of(&run)))
        .await;
    browser.wait_for("#episodes tbody tr").await;
    let text = |css: &'static str| {
        let b = &browser;
        async move { b.wait_for(css).await.text().await.unwrap() }
    };
    assert_eq!(text("#fig-done").await, "1");
    assert_eq!(text("#live-state").await, "running: following it…");
    // mark the page so a reload would show
    browser.mark_page().await;
    browser.screenshot("live-before").await;
    support::append_episode(&run, &second);
    browser
        .client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css("#episodes tbody tr:nth-child(2)"))
        .await
        .expect("the second episode appears");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while text("#live-state").await != "finished" {
        assert!(
            std::time::Instant::now() < deadline,
            "the page never says finished"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(text("#fig-done").await, "2");
    assert_eq!(text("#fig-success").await, "100.0%");
    browser.assert_same_page().await;
    browser.screenshot("live-after").await;
    drop(lock);
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runs_page_follows_a_live_run() {
    let (tmp, run, second) = support::half_finished_run().await;
    let dirs = [tmp.path().to_path_buf()];
    let Some(browser) = Browser::start().await else {
        return;
    };
    let url = serve(&dirs).await;
    browser.open(&url, "/").await;
    let cell = browser.wait_for("#runs tbody tr .episodes").await;
    assert_eq!(cell.text().await.unwrap(), "1 / 2");
    browser.mark_page().await;
    // give the page's event stream time to connect before the run moves
    tokio::time::sleep(Duration::from_millis(1500)).await;
    support::append_episode(&run, &second);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let cell = browser.wait_for("#runs tbody tr .episodes").await;
        if cell.text().await.unwrap() == "2 / 2" {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the runs page never showed 2 / 2"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    browser.assert_same_page().await;
    browser.screenshot("runs-page-live").await;
    browser.close().await;
}

/// The episode page opens on how the episode ended: the banner is at the top of the
/// window, above the first step, and says it in words with the final metrics.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_episode_opens_on_its_outcome_banner() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_path_buf();
    let run = tokio::task::spawn_blocking(move || support::gave_up_run(&out))
        .await
        .unwrap();
    let dirs = [tmp.path().to_path_buf()];
    let Some(browser) = Browser::start().await else {
        return;
    };
    let url = serve(&dirs).await;
    // a short window: the steps below the banner are taller than it, so a page that
    // scrolled to its first step on load would push the banner out of view
    browser.client.set_window_size(1280, 420).await.unwrap();
    let episode = "scenario=comma-wire-000&epoch=0";
    browser
        .open(
            &url,
            &format!("/episode?run={}&{episode}", support::id_of(&run)),
        )
        .await;
    let banner = browser.wait_for("#outcome").await;
    let text = banner.text().await.unwrap();
    assert!(text.contains("Gave up after 1 step"), "{text}");
    assert!(text.contains("Average mistakes (AM)"), "{text}");
    let placed = browser
        .client
        .execute(
            "const b = document.getElementById('outcome').getBoundingClientRect();
             const s = document.querySelector('.step').getBoundingClientRect();
             return [b.top >= 0 && b.bottom <= window.innerHeight, b.bottom <= s.top,
                     getComputedStyle(document.getElementById('outcome')).color];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        placed[0],
        serde_json::json!(true),
        "the banner is in view: {placed}"
    );
    assert_eq!(
        placed[1],
        serde_json::json!(true),
        "above the first step: {placed}"
    );
    // giving up is not shown in the red of errors
    assert_ne!(placed[2], serde_json::json!("rgb(179, 38, 30)"), "{placed}");
    browser.screenshot("episode-outcome").await;
    browser.close().await;
}

/// The web report: the headline metrics beside the paper first, the metrics' names
/// explained on hover, runs named by their directories, and no number broken over
/// lines even in a narrow window ("19.00 ± 0.00" wrapped over three).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_reads_headline_first_and_numbers_do_not_wrap() {
    let (tmp, oracle, random) =
        support::two_runs(("comma", "oracle", 3), ("comma", "random", 3)).await;
    let dirs = [tmp.path().to_path_buf()];
    let Some(browser) = Browser::start().await else {
        return;
    };
    let url = serve(&dirs).await;
    browser.client.set_window_size(720, 900).await.unwrap();
    let runs = format!(
        "run={}&run={}",
        support::id_of(&oracle),
        support::id_of(&random)
    );
    browser.open(&url, &format!("/report?{runs}")).await;
    browser.wait_for(".report table").await;
    let lines = browser
        .client
        .execute(
            "const bad = [];
             for (const td of document.querySelectorAll('.report td, .report th')) {
               if (!/\\d/.test(td.textContent) || !(td.getAttribute('style') || '').includes('right')) continue;
               const r = document.createRange(); r.selectNodeContents(td);
               const tops = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
               if (tops.size > 1) bad.push(td.textContent);
             }
             return bad;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(lines, serde_json::json!([]), "numbers broken over lines");
    let page = browser
        .client
        .execute(
            "const h = [...document.querySelectorAll('.report h3, .report h4')].map(e => e.textContent);
             const abbr = document.querySelector('.report abbr[title]');
             return [h, abbr ? abbr.title : null, document.querySelector('main p.muted').textContent];",
            vec![],
        )
        .await
        .unwrap();
    let headings: Vec<&str> = page[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap())
        .collect();
    let world = headings
        .iter()
        .position(|h| *h == "comma")
        .expect("a comma section");
    assert!(
        headings[world + 1].starts_with("comma beside the paper"),
        "the headline metrics beside the paper come first: {headings:?}"
    );
    let title = page[1].as_str().expect("a metric explained on hover");
    assert!(title.contains("COMMA §4.2"), "{title}");
    let names = page[2].as_str().unwrap();
    assert!(!names.contains("0/"), "{names}");
    assert!(
        names.contains(&*oracle.file_name().unwrap().to_string_lossy()),
        "{names}"
    );
    browser.screenshot("report-narrow").await;
    browser.close().await;
}

/// The episode page draws the oracle's distance (`steps_to_go`) over the steps, and each
/// step tells the `escapade run --from` command that continues the episode there, with
/// the model typed in the toolbar (issue 29).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_episode_shows_its_distance_curve_and_how_to_continue_it() {
    let (tmp, dir) = support::baseline_run_async("vis", "oracle", 1).await;
    let rows = std::fs::read_to_string(dir.join("episodes.jsonl")).unwrap();
    let row: serde_json::Value = serde_json::from_str(rows.lines().next().unwrap()).unwrap();
    let (scenario, steps) = (
        row["scenario"].as_str().unwrap().to_string(),
        row["steps"].as_u64().unwrap() as usize,
    );
    assert!(steps >= 3, "{row}");
    let dirs = [tmp.path().to_path_buf()];
    let Some(browser) = Browser::start().await else {
        return;
    };
    let url = serve(&dirs).await;
    let episode = format!("scenario={scenario}&epoch=0");
    browser
        .open(
            &url,
            &format!("/episode?run={}&{episode}", support::id_of(&dir)),
        )
        .await;
    browser.wait_for("#distance").await;
    let points = browser
        .client
        .execute(
            "return [...document.querySelectorAll('#distance circle title')].map(t => t.textContent)",
            vec![],
        )
        .await
        .unwrap();
    let points: Vec<String> = serde_json::from_value(points).unwrap();
    // the start and one point per step: the oracle's own plan, down to 0 at the escape
    assert_eq!(points.len(), steps + 1, "{points:?}");
    assert_eq!(points[0], format!("start: {steps} to go"));
    assert_eq!(points[steps], format!("after step {steps}: 0 to go"));
    // continue from step 2
    browser
        .wait_for("#step-2 details.fork summary")
        .await
        .click()
        .await
        .unwrap();
    let command = browser
        .wait_for("#step-2 .fork-cmd")
        .await
        .text()
        .await
        .unwrap();
    let canonical = std::fs::canonicalize(&dir).unwrap();
    assert_eq!(
        command,
        format!(
            "escapade run --from {} --episode {scenario}:0 --step 2 --model local/smollm2",
            canonical.display()
        )
    );
    let model = browser.wait_for("#fork-model").await;
    model.clear().await.unwrap();
    model.send_keys("openai/gpt-4o").await.unwrap();
    let command = browser
        .wait_for("#step-2 .fork-cmd")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        command.ends_with("--step 2 --model openai/gpt-4o"),
        "{command}"
    );
    browser.screenshot("episode-distance").await;
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_in_the_printed_address_leaves_the_address_bar_and_the_history() {
    let (tmp, vis, _) = support::two_runs(("vis", "oracle", 1), ("comma", "oracle", 1)).await;
    let dirs = [tmp.path().to_path_buf()];
    let Some(browser) = Browser::start().await else {
        return;
    };
    let token = "a-token-for-the-browser-0123456789";
    let options = escapade_web::ViewOptions {
        dirs: dirs.to_vec(),
        port: 0,
        token: escapade_web::auth::TokenChoice::Given(token.into()),
        ..Default::default()
    };
    let site = support::site(&dirs, escapade_web::auth::Access::Token(token.into()));
    let server = escapade_web::Server::bind(&options, site)
        .await
        .expect("binds");
    let printed = server.url().to_string();
    let base = printed.split("/?").next().unwrap().to_string();
    tokio::spawn(server.serve());
    // the address the server printed, and a deep link with the token beside other keys
    let run = format!("/run?id={}&token={token}", support::id_of(&vis));
    for url in [printed.clone(), format!("{base}{run}")] {
        browser.client.goto(&url).await.unwrap();
        browser.wait_for("main").await;
        let now = browser.client.current_url().await.unwrap().to_string();
        assert!(
            !now.contains(token),
            "the address bar shows the token: {now}"
        );
        let title = browser.client.title().await.unwrap();
        assert!(
            !title.contains("token"),
            "{url}: the page was refused: {title}"
        );
        // what the history holds: only addresses without the token
        let history = browser
            .client
            .execute(
                "return [document.URL, document.referrer, history.length]",
                vec![],
            )
            .await
            .unwrap();
        assert!(!history.to_string().contains(token), "{history}");
    }
    // the run's page was reached with its id kept
    let now = browser.client.current_url().await.unwrap();
    assert_eq!(now.path(), "/run");
    assert!(
        now.query().unwrap_or("").contains("id="),
        "{now}: the other keys of the query were lost"
    );
    browser.close().await;
}

/// A view server with `token` on `port` (0: any), until `stop` is sent; its port.
async fn serve_with_token(
    dirs: &[PathBuf],
    token: &str,
    port: u16,
    stop: tokio::sync::oneshot::Receiver<()>,
) -> (u16, tokio::task::JoinHandle<()>) {
    let options = escapade_web::ViewOptions {
        dirs: dirs.to_vec(),
        port,
        token: escapade_web::auth::TokenChoice::Given(token.into()),
        ..Default::default()
    };
    let site = support::site(dirs, escapade_web::auth::Access::Token(token.into()));
    let mut server = escapade_web::Server::bind(&options, site)
        .await
        .expect("binds");
    server.limits_mut().grace = Duration::from_millis(200);
    let port = server.port();
    let task = tokio::spawn(async move {
        let _ = server
            .serve_until(async move {
                let _ = stop.await;
            })
            .await;
    });
    (port, task)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_server_opens_with_its_new_token_in_the_same_browser() {
    let (tmp, _, _) = support::two_runs(("vis", "oracle", 1), ("comma", "oracle", 1)).await;
    let dirs = [tmp.path().to_path_buf()];
    let Some(browser) = Browser::start().await else {
        return;
    };
    // the first server: its address opened, its cookie kept by the browser
    let (old, new) = (
        "the-first-servers-token-0123",
        "the-second-servers-token-456",
    );
    let (stop, stopped) = tokio::sync::oneshot::channel();
    let (port, task) = serve_with_token(&dirs, old, 0, stopped).await;
    browser
        .client
        .goto(&format!("http://127.0.0.1:{port}/?token={old}"))
        .await
        .unwrap();
    browser.wait_for("#runs").await;
    let _ = stop.send(());
    task.await.unwrap();
    // the same command again, on the same port, with a fresh token: its printed address
    let (_stop, stopped) = tokio::sync::oneshot::channel();
    let (again, _task) = serve_with_token(&dirs, new, port, stopped).await;
    assert_eq!(again, port);
    browser
        .client
        .goto(&format!("http://127.0.0.1:{port}/?token={new}"))
        .await
        .unwrap();
    browser.wait_for("main").await;
    let title = browser.client.title().await.unwrap();
    assert!(
        !title.contains("token"),
        "the new address was refused for the old cookie: {title}"
    );
    browser.wait_for("#runs").await;
    browser.close().await;
}
