//! What a seat can reach, over loopback: a real play server on a free port, and every
//! address a person in a seat could type — the seat pages and pictures, and the viewer's
//! pages (runs list, run, episode, side by side, report with its plots, pictures, live
//! streams) — during the game and after it. A seat sees only what its role's agent
//! observed: in COMMA the expert never the solver's picture or view, the solver never the
//! manual; in a one-seat world the player never another run, an answer or the oracle's
//! moves.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use escapade_core::Observation;
use escapade_web::play::Lobby;
use fantoccini::Locator;

use crate::browser::Browser;
use crate::kit::{self, Shadow};
use crate::wire::{Reply, Wire};

/// A seat's addresses: its page, where its actions go, and its game and key.
#[derive(Debug, Clone)]
struct Seat {
    role: String,
    page: String,
    act: String,
    game: String,
    query: String,
}

impl Seat {
    fn of(role: &str, location: &str) -> Seat {
        let (path, query) = location.split_once('?').expect("a seat address");
        Seat {
            role: role.to_string(),
            page: location.to_string(),
            act: format!("{path}/act?{query}"),
            game: path.trim_start_matches("/play/g/").to_string(),
            query: query.to_string(),
        }
    }

    /// The address of picture `sha` for this seat.
    fn image(&self, sha: &str) -> String {
        format!("/play/g/{}/image/{sha}?{}", self.game, self.query)
    }
}

/// Starts a game on the first scenario offered as `who` (in `seat` when given).
async fn start(wire: &Wire, who: &str, seat: Option<&str>) -> (Seat, String) {
    let page = wire.get("/play").await;
    assert_eq!(page.status, 200, "{}", page.text());
    let scenario = kit::first_offered(&page.text());
    let mut pairs = vec![("participant", who), ("scenario", scenario.as_str())];
    if let Some(s) = seat {
        pairs.push(("seat", s));
    }
    let r = wire.post("/play/start", &pairs).await;
    assert_eq!(r.status, 303, "{}", r.text());
    let role = seat.unwrap_or("");
    (Seat::of(role, r.location.as_deref().unwrap()), scenario)
}

/// The second person takes seat `role` of `game`.
async fn join(wire: &Wire, game: &str, role: &str, who: &str) -> Seat {
    let r = wire
        .post(
            &format!("/play/g/{game}/join"),
            &[("participant", who), ("seat", role)],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.text());
    Seat::of(role, r.location.as_deref().unwrap())
}

/// The id `escapade view` would give the run directory `dir` of the record folder.
fn run_id(dir: &Path) -> String {
    format!("0/{}", dir.file_name().unwrap().to_string_lossy())
}

fn query(pairs: &[(&str, &str)]) -> String {
    serde_urlencoded::to_string(pairs).unwrap()
}

/// Every viewer address over the run `id` and `scenario`, with each picture of `shas`.
fn viewer_addresses(id: &str, scenario: &str, shas: &BTreeSet<String>) -> Vec<String> {
    let mut paths = vec![
        "/".to_string(),
        format!("/run?{}", query(&[("id", id)])),
        format!(
            "/episode?{}",
            query(&[("run", id), ("scenario", scenario), ("epoch", "0")])
        ),
        format!(
            "/compare?{}",
            query(&[("a", id), ("b", id), ("scenario", scenario), ("epoch", "0")])
        ),
        format!("/report?{}", query(&[("run", id)])),
        format!("/events?{}", query(&[("run", id)])),
        "/events/runs".to_string(),
    ];
    paths.extend(
        shas.iter()
            .map(|sha| format!("/media?{}", query(&[("run", id), ("sha", sha)]))),
    );
    paths
}

/// `reply` holds none of `forbidden` and is no picture.
fn shows_none(reply: &Reply, forbidden: &[String], what: &str) {
    assert!(
        !reply.content_type.starts_with("image/"),
        "{what}: a picture was served ({})",
        reply.status
    );
    let body = reply.unescaped();
    for f in forbidden {
        assert!(
            !body.contains(f.as_str()),
            "{what} (status {}) shows `{f}`",
            reply.status
        );
    }
}

/// A play server serves the seats' pages only: every viewer address is refused (the
/// runs list leads to the start page), and none shows anything of `forbidden`.
async fn viewer_refused(wire: &Wire, paths: &[String], forbidden: &[String], when: &str) {
    for path in paths {
        let r = wire.get(path).await;
        shows_none(&r, forbidden, &format!("{when}: GET {path}"));
        if path == "/" {
            assert!(
                (300..400).contains(&r.status) && r.location.as_deref() == Some("/play"),
                "{when}: GET / answers {} (to {:?}), not the start page",
                r.status,
                r.location
            );
        } else {
            assert_eq!(
                r.status,
                404,
                "{when}: GET {path} is served by a play server: {}",
                r.text()
            );
        }
    }
}

/// What each role has observed that the others have not: the lines of its observations
/// and rules, and the exact descriptions and addresses of its pictures.
#[derive(Debug, Default)]
struct Private {
    /// The descriptions of the pictures each role was shown.
    described: BTreeMap<String, BTreeSet<String>>,
    /// The pictures each role was shown.
    pictures: BTreeMap<String, BTreeSet<String>>,
}

impl Private {
    fn note(&mut self, o: &Observation) {
        let role = o.role.clone().unwrap_or_default();
        for i in &o.images {
            self.pictures
                .entry(role.clone())
                .or_default()
                .insert(i.sha256.clone());
            if let Some(alt) = i.alt.as_ref().filter(|a| a.trim().len() >= 12) {
                self.described
                    .entry(role.clone())
                    .or_default()
                    .insert(alt.clone());
            }
        }
    }

    /// What `role` must never be shown: the other roles' picture descriptions, and each
    /// line (of 24 characters or more) the other roles observed that `role` did not.
    fn forbidden(&self, shadow: &Shadow, role: &str) -> Vec<String> {
        let mine = &shadow.seen[role];
        let mut out: BTreeSet<String> = BTreeSet::new();
        for (other, text) in shadow.seen.iter().filter(|(o, _)| o.as_str() != role) {
            out.extend(
                text.lines()
                    .map(str::trim)
                    .filter(|l| l.len() >= 24 && !mine.contains(*l))
                    .map(str::to_string),
            );
            if let Some(d) = self.described.get(other) {
                out.extend(d.iter().filter(|d| !mine.contains(d.as_str())).cloned());
            }
        }
        // the last observation of a finished game belongs to its role alone
        let last = &shadow.observation;
        if shadow.over && last.role.as_deref().unwrap_or("") != role {
            out.extend(
                last.text
                    .lines()
                    .map(str::trim)
                    .filter(|l| l.len() >= 12 && !mine.contains(*l))
                    .map(str::to_string),
            );
        }
        out.into_iter().collect()
    }

    /// The pictures the roles other than `role` were shown.
    fn others_pictures(&self, role: &str) -> BTreeSet<String> {
        let mine = self.pictures.get(role).cloned().unwrap_or_default();
        self.pictures
            .iter()
            .filter(|(r, _)| r.as_str() != role)
            .flat_map(|(_, s)| s.iter().cloned())
            .filter(|s| !mine.contains(s))
            .collect()
    }
}

/// Everything `seat` can reach shows nothing the other roles alone observed.
async fn probe(
    wire: &Wire,
    seat: &Seat,
    private: &Private,
    shadow: &Shadow,
    run: &str,
    scenario: &str,
    when: &str,
) {
    let forbidden = private.forbidden(shadow, &seat.role);
    let theirs = private.others_pictures(&seat.role);
    assert!(
        !forbidden.is_empty(),
        "{when}: nothing is private to the roles but the {}'s: the check tests nothing",
        seat.role
    );
    let when = format!("{when}, the {}", seat.role);
    let page = wire.get(&seat.page).await;
    assert_eq!(page.status, 200, "{when}: {}", page.text());
    shows_none(&page, &forbidden, &format!("{when}: the seat's page"));
    for sha in &theirs {
        assert!(!page.text().contains(sha.as_str()), "{when}: picture {sha}");
        let r = wire.get(&seat.image(sha)).await;
        assert_eq!(r.status, 404, "{when}: the other role's picture {sha}");
    }
    viewer_refused(
        wire,
        &viewer_addresses(run, scenario, &theirs),
        &forbidden,
        &when,
    )
    .await;
}

/// A COMMA play server on a loopback port over a temporary record folder, and the shadow
/// of its first scenario.
async fn comma_game() -> (tempfile::TempDir, Shadow, std::sync::Arc<Lobby>, Wire) {
    let tmp = tempfile::tempdir().unwrap();
    let worlds = kit::worlds();
    let setup = kit::setup(&worlds, "comma", 1, tmp.path());
    let shadow = Shadow::new(
        kit::world(&worlds, "comma"),
        &setup.scenarios[0],
        setup.seed,
        &setup.world_options,
    );
    let (site, lobby) = kit::site(setup, worlds);
    (tmp, shadow, lobby, Wire::serve(site).await)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn comma_each_seat_reaches_only_its_roles_view_over_loopback() {
    let (tmp, mut shadow, lobby, wire) = comma_game().await;
    let (solver, scenario) = start(&wire, "alice", Some("solver")).await;
    let expert = join(&wire, &solver.game, "expert", "bob").await;
    let mut private = Private::default();
    let mut moves = 0;
    while !shadow.over {
        private.note(&shadow.observation);
        let (role, text) = shadow.next();
        let seat = if role == "solver" { &solver } else { &expert };
        let r = wire.post(&seat.act, &[("text", &text)]).await;
        assert_eq!(r.status, 303, "{}", r.text());
        shadow.play(&text);
        moves += 1;
        assert!(moves < 200, "the oracle did not finish");
        if moves == 2 {
            // the game is in progress, its trajectory on disk
            assert!(!shadow.over, "the game ended after {moves} moves");
            let dirs = kit::run_dirs(tmp.path());
            assert_eq!(dirs.len(), 1, "the game's run directory: {dirs:?}");
            assert!(
                private.pictures.contains_key("solver"),
                "the solver was shown no picture: the check tests nothing"
            );
            for seat in [&solver, &expert] {
                let id = run_id(&dirs[0]);
                probe(&wire, seat, &private, &shadow, &id, &scenario, "mid-game").await;
            }
        }
    }
    let dirs = kit::run_dirs(tmp.path());
    for seat in [&solver, &expert] {
        let page = wire.get(&seat.page).await;
        assert!(page.text().contains("id=\"ending\""), "{}", page.text());
        let id = run_id(&dirs[0]);
        probe(
            &wire,
            seat,
            &private,
            &shadow,
            &id,
            &scenario,
            "after the game",
        )
        .await;
    }
    lobby.stop();
}

/// The answers of `jsons` (each scenario's secrets after a reset with `seed`).
fn answers(world: &dyn escapade_core::World, jsons: &[String], seed: u64) -> Vec<String> {
    let mut all = Vec::new();
    for json in jsons {
        let mut env = world.env(json, &kit::quick(world)).unwrap();
        env.reset(seed);
        all.extend(env.secrets().into_iter().filter(|s| s.trim().len() >= 3));
    }
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_reaches_no_run_but_their_own_game() {
    let tmp = tempfile::tempdir().unwrap();
    let worlds = kit::worlds();
    let setup = kit::setup(&worlds, "tools", 2, tmp.path());
    let (seed, jsons) = (setup.seed, setup.scenarios.clone());
    // an oracle run of the same scenarios where `escapade run` writes, beside the games
    let oracle = {
        let (worlds, jsons, out) = (worlds.clone(), jsons.clone(), tmp.path().to_path_buf());
        tokio::task::spawn_blocking(move || {
            let tools = kit::world(&worlds, "tools");
            let scenarios: Vec<(String, String)> = jsons
                .iter()
                .map(|j| ("agentescape".into(), j.clone()))
                .collect();
            let spec = escapade_run::RunSpec {
                agent: "oracle".into(),
                seed,
                world_options: kit::quick(tools),
                ..Default::default()
            };
            let agents = escapade_run::Baseline::new(tools, "oracle").unwrap();
            escapade_run::run(
                tools,
                &scenarios,
                &spec,
                &agents,
                &out,
                escapade_run::Progress::quiet(),
            )
            .expect("the oracle's run")
            .dir
        })
        .await
        .unwrap()
    };
    let tools = kit::world(&worlds, "tools");
    let secrets = answers(tools, &jsons, seed);
    let trajectories: String = walk_text(&oracle.join("trajectories"));
    assert!(
        secrets.iter().any(|s| trajectories.contains(s.as_str())),
        "the oracle's run holds no answer: the check tests nothing"
    );
    let oracle_name = oracle.file_name().unwrap().to_string_lossy().into_owned();
    let (site, lobby) = kit::site(setup, worlds.clone());
    let wire = Wire::serve(site).await;
    let start_page = wire.get("/play").await;
    assert!(!start_page.text().contains(&oracle_name));
    let (seat, scenario) = start(&wire, "pat", None).await;
    let index = jsons
        .iter()
        .position(|j| j.contains(&format!("\"{scenario}\"")))
        .unwrap();
    let mut shadow = Shadow::new(tools, &jsons[index], seed, &kit::quick(tools));
    let oracle_id = run_id(&oracle);
    let mut moves = 0;
    let mut checked_mid_game = false;
    while !shadow.over {
        let (_, text) = shadow.next();
        if moves == 2 {
            // while playing: nothing of the oracle's run, nor of the game's own record
            let page = wire.get(&seat.page).await;
            assert_eq!(page.status, 200);
            let seen = shadow.seen[""].clone();
            kit::no_leak(&page.text(), &secrets, &seen, "the player's page");
            assert!(!page.text().contains(&oracle_name));
            let unseen: Vec<String> = secrets
                .iter()
                .filter(|s| !seen.contains(s.as_str()))
                .cloned()
                .collect();
            assert!(
                !unseen.is_empty(),
                "the player has seen every answer already"
            );
            let mut paths = viewer_addresses(&oracle_id, &scenario, &BTreeSet::new());
            let own = kit::run_dirs(tmp.path())
                .into_iter()
                .find(|d| d != &oracle)
                .expect("the game's run directory");
            paths.extend(viewer_addresses(&run_id(&own), &scenario, &BTreeSet::new()));
            let mut hidden = unseen.clone();
            hidden.push(oracle_name.clone());
            viewer_refused(&wire, &paths, &hidden, "mid-game").await;
            checked_mid_game = true;
        }
        let r = wire.post(&seat.act, &[("text", &text)]).await;
        assert_eq!(r.status, 303, "{}", r.text());
        shadow.play(&text);
        moves += 1;
        assert!(moves < 200, "the oracle did not finish");
    }
    assert!(checked_mid_game);
    // after the game: the seat's page, and still no other run
    let page = wire.get(&seat.page).await;
    assert!(page.text().contains("Escaped after"), "{}", page.text());
    assert!(!page.text().contains(&oracle_name));
    let paths = viewer_addresses(&oracle_id, &scenario, &BTreeSet::new());
    viewer_refused(
        &wire,
        &paths,
        std::slice::from_ref(&oracle_name),
        "after the game",
    )
    .await;
    lobby.stop();
}

/// The text of every file under `dir`.
fn walk_text(dir: &Path) -> String {
    let mut all = String::new();
    for e in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
        if e.is_dir() {
            all.push_str(&walk_text(&e));
        } else {
            all.push_str(&std::fs::read_to_string(&e).unwrap_or_default());
        }
    }
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expert_in_the_browser_reaches_nothing_of_the_solver() {
    let Some(b) = Browser::start().await else {
        return;
    };
    let (tmp, mut shadow, lobby, wire) = comma_game().await;
    // the solver plays over the wire; the expert is a person in Chromium
    let (solver, scenario) = start(&wire, "alice", Some("solver")).await;
    b.client.goto(&format!("{}/play", wire.base)).await.unwrap();
    b.wait_for("#waiting input[name=participant]")
        .await
        .send_keys("bob")
        .await
        .unwrap();
    b.wait_for("#waiting button.join")
        .await
        .click()
        .await
        .unwrap();
    // the expert's seat page: the game has both seats
    b.wait_for("#who").await;
    let mut private = Private::default();
    let mut moves = 0;
    while !shadow.over && moves < 4 {
        private.note(&shadow.observation);
        let (role, text) = shadow.next();
        if role == "solver" {
            let r = wire.post(&solver.act, &[("text", &text)]).await;
            assert_eq!(r.status, 303, "{}", r.text());
        } else {
            let field = b.wait_for("#turn #text").await;
            field.send_keys(&text).await.unwrap();
            b.wait_for("#send").await.click().await.unwrap();
            b.wait_for("#their-turn, #ending").await;
        }
        shadow.play(&text);
        moves += 1;
    }
    let seat_url = b.client.current_url().await.unwrap().to_string();
    let forbidden = private.forbidden(&shadow, "expert");
    let theirs = private.others_pictures("expert");
    assert!(!forbidden.is_empty() && !theirs.is_empty());
    let id = run_id(&kit::run_dirs(tmp.path())[0]);
    for path in viewer_addresses(&id, &scenario, &theirs) {
        b.client
            .goto(&format!("{}{path}", wire.base))
            .await
            .unwrap();
        let html = b.client.source().await.unwrap();
        let text = b
            .client
            .find(Locator::Css("body"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap_or_default();
        for f in &forbidden {
            assert!(
                !html.contains(f.as_str()) && !text.contains(f.as_str()),
                "the expert's browser shows `{f}` at {path}"
            );
        }
        // no picture is loaded in place of a page
        let pictures = b
            .client
            .execute(
                "return [...document.images].filter(i => i.naturalWidth > 0).length",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(pictures, serde_json::json!(0), "a picture at {path}");
    }
    b.client.goto(&seat_url).await.unwrap();
    b.wait_for("#history").await;
    b.screenshot("play-comma-expert-own-view").await;
    lobby.stop();
    b.close().await;
}
