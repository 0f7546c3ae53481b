//! The play pages through the router (`tower::ServiceExt::oneshot`): whole games played
//! with the oracle's moves in each world, what each seat is shown, the recorded run
//! directories, and bad input.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::http::StatusCode;
use escapade_web::server::router;

use crate::kit::{self, Reply, Shadow, form, send};

/// A seat's address and the address its actions go to.
#[derive(Debug, Clone)]
struct SeatUrl {
    page: String,
    act: String,
    quit: String,
}

fn seat_url(location: &str) -> SeatUrl {
    let (path, query) = location
        .split_once('?')
        .expect("a seat address has a query");
    SeatUrl {
        page: location.to_string(),
        act: format!("{path}/act?{query}"),
        quit: format!("{path}/quit?{query}"),
    }
}

/// Starts a game on the first scenario offered; returns the seat and the scenario id.
async fn start(app: &axum::Router, who: &str, seat: Option<&str>) -> (SeatUrl, String) {
    let page = send(app, "GET", "/play", None).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    let scenario = kit::first_offered(&page.body);
    let mut pairs = vec![("participant", who), ("scenario", scenario.as_str())];
    if let Some(s) = seat {
        pairs.push(("seat", s));
    }
    let r = send(app, "POST", "/play/start", Some(&form(&pairs))).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    (seat_url(r.location.as_deref().unwrap()), scenario)
}

/// Plays the shadow's moves through the pages until the episode ends: each move typed
/// by the seat whose turn it is (`seats` by role; `""` plays every role), the turns of
/// roles without a seat left to the game's partner. Every page fetched is checked to
/// show no secret the seat's agent has not observed, and the seat in turn to show the
/// observation in full. Returns the number of moves typed.
async fn play_through(
    app: &axum::Router,
    shadow: &mut Shadow,
    seats: &BTreeMap<String, SeatUrl>,
    limit: usize,
) -> usize {
    // the scenario's secrets, and for a seat of a two-role world the other roles'
    // rules (COMMA's manual reaches only the expert), paragraph by paragraph
    let rules = shadow.seen.clone();
    let secrets_of = |role: &str| {
        let mut secrets = shadow.secrets();
        if !role.is_empty() {
            for (_, text) in rules.iter().filter(|(o, _)| o.as_str() != role) {
                let mine = &rules[role];
                secrets.extend(
                    text.split("\n\n")
                        .map(str::trim)
                        .filter(|p| p.len() >= 40 && !mine.contains(*p))
                        .map(|p| p.to_string()),
                );
            }
        }
        assert!(
            !secrets.is_empty(),
            "seat {role:?}: no secrets, the check tests nothing"
        );
        secrets
    };
    let secrets: BTreeMap<String, Vec<String>> =
        seats.keys().map(|r| (r.clone(), secrets_of(r))).collect();
    let mut typed = 0;
    while !shadow.over && typed < limit {
        let (role, text) = shadow.next();
        let Some(seat) = seats.get(&role).or_else(|| seats.get("")) else {
            // the partner's turn: the game plays it by itself
            shadow.play(&text);
            continue;
        };
        for (r, s) in seats {
            let page = send(app, "GET", &s.page, None).await;
            assert_eq!(page.status, StatusCode::OK, "{}", page.body);
            let seen = match r.as_str() {
                "" => shadow.seen.values().cloned().collect::<Vec<_>>().join("\n"),
                r => shadow.seen[r].clone(),
            };
            kit::no_leak(
                &page.body,
                &secrets[r],
                &seen,
                &format!("seat {r:?} before move {typed}"),
            );
            if s.page == seat.page {
                assert!(
                    page.body.contains("id=\"turn\""),
                    "not the seat's turn: {}",
                    page.body
                );
                assert!(
                    kit::unescape(&page.body).contains(shadow.observation.text.trim()),
                    "the page does not show the observation in full"
                );
            }
        }
        let r = send(app, "POST", &seat.act, Some(&form(&[("text", &text)]))).await;
        assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
        shadow.play(&text);
        typed += 1;
    }
    typed
}

/// A play server over the first `n` scenarios of world `name` (with `tweak` applied to
/// its setup), recorded in a temporary folder, and a shadow of its first scenario.
struct Bench {
    tmp: tempfile::TempDir,
    worlds: escapade_web::server::Worlds,
    app: axum::Router,
    lobby: Arc<escapade_web::play::Lobby>,
    shadow: Shadow,
    /// The first scenario, its world options and seed (for a fresh shadow).
    first: (String, BTreeMap<String, String>, u64),
}

fn bench(name: &str, n: usize, tweak: impl FnOnce(&mut escapade_web::play::PlaySetup)) -> Bench {
    let tmp = tempfile::tempdir().unwrap();
    let worlds = kit::worlds();
    let mut setup = kit::setup(&worlds, name, n, tmp.path());
    tweak(&mut setup);
    let shadow = Shadow::new(
        kit::world(&worlds, name),
        &setup.scenarios[0],
        setup.seed,
        &setup.world_options,
    );
    let first = (
        setup.scenarios[0].clone(),
        setup.world_options.clone(),
        setup.seed,
    );
    let (site, lobby) = kit::site(setup, worlds.clone());
    Bench {
        first,
        tmp,
        app: router(Arc::new(site)),
        worlds,
        lobby,
        shadow,
    }
}

fn toml(dir: &std::path::Path) -> String {
    std::fs::read_to_string(dir.join("run.toml")).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_played_to_the_end_is_recorded_once_as_human() {
    let Bench {
        tmp,
        worlds,
        app,
        lobby,
        mut shadow,
        first,
    } = bench("tools", 2, |_| {});
    let (seat, scenario) = start(&app, "alice", None).await;
    assert!(first.0.contains(&format!("\"{scenario}\"")));
    let seats = BTreeMap::from([(String::new(), seat.clone())]);
    let moves = play_through(&app, &mut shadow, &seats, 200).await;
    assert!(shadow.over && moves > 2, "{moves} moves");
    let end = send(&app, "GET", &seat.page, None).await;
    assert!(end.body.contains("id=\"ending\""), "{}", end.body);
    assert!(end.body.contains("Escaped after"), "{}", end.body);
    // one run directory, agent human, the participant's label, one successful row
    let dirs = kit::run_dirs(tmp.path());
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    assert!(
        dirs[0]
            .file_name()
            .unwrap()
            .to_string_lossy()
            .contains("human-alice")
    );
    let t = toml(&dirs[0]);
    assert!(
        t.contains("agent = \"human\"") && t.contains("participant = \"alice\""),
        "{t}"
    );
    let rows = kit::episodes(&dirs[0]);
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (&rows[0]["agent"], &rows[0]["success"]),
        (&"human".into(), &true.into())
    );
    assert_eq!(rows[0]["scenario"], scenario.as_str());
    // the picker now offers only the other scenario; the played one is refused
    let page = send(&app, "GET", "/play", None).await;
    assert_ne!(kit::first_offered(&page.body), scenario);
    assert!(page.body.contains("1 over"), "{}", page.body);
    let again = form(&[("participant", "bob"), ("scenario", &scenario)]);
    let r = send(&app, "POST", "/play/start", Some(&again)).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.body);
    // a finished game takes no more actions, and stopping records nothing twice
    let r = send(&app, "POST", &seat.act, Some(&form(&[("text", "give_up")]))).await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    lobby.stop();
    assert_eq!(kit::episodes(&dirs[0]).len(), 1);
    // the function forms follow the state: a node investigated gets a form of its own
    let (_, jsons) = kit::scenarios(kit::world(&worlds, "tools"), 2);
    let tools = kit::world(&worlds, "tools");
    let mut second = Shadow::new(tools, &jsons[1], first.2, &first.1);
    let (seat2, _) = start(&app, "bob", None).await;
    let mut node = None;
    for _ in 0..5 {
        let (_, text) = second.next();
        let r = send(&app, "POST", &seat2.act, Some(&form(&[("text", &text)]))).await;
        assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
        second.play(&text);
        if let Some(id) = text.strip_prefix("investigate ") {
            node = Some(id.trim().to_string());
            break;
        }
    }
    let node = node.expect("the oracle investigates a node first");
    let page = send(&app, "GET", &seat2.page, None).await;
    assert!(
        page.body.contains(&format!("data-call=\"{node}\"")),
        "no form for {node}: {}",
        page.body
    );
    // a new server over the same folder offers the unplayed scenario first
    let (again, _lobby) = kit::site(kit::setup(&worlds, "tools", 2, tmp.path()), worlds.clone());
    let page = send(&router(Arc::new(again)), "GET", "/play", None).await;
    let offered = kit::first_offered(&page.body);
    assert!(offered != scenario && page.body.contains(&format!("\"{scenario}\"")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn comma_two_people_each_see_only_their_role() {
    let Bench {
        tmp,
        worlds,
        app,
        mut shadow,
        first: (json, options, seed),
        ..
    } = bench("comma", 1, |_| {});
    let (solver, _) = start(&app, "alice", Some("solver")).await;
    // the game waits for the expert; the seat is offered on the start page
    let wait = send(&app, "GET", &solver.page, None).await;
    assert!(wait.body.contains("id=\"partner-wait\""), "{}", wait.body);
    let lobby_page = send(&app, "GET", "/play", None).await;
    assert!(
        lobby_page.body.contains("Join as expert"),
        "{}",
        lobby_page.body
    );
    let game = solver
        .page
        .split('/')
        .nth(3)
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .to_string();
    // a second tab without the seat's key is told the seat is taken
    let tab = send(&app, "GET", &format!("/play/g/{game}?seat=solver"), None).await;
    assert_eq!(tab.status, StatusCode::CONFLICT);
    assert!(tab.body.contains("this seat is taken"), "{}", tab.body);
    let join = |seat: &str, who: &str| form(&[("participant", who), ("seat", seat)]);
    let r = send(
        &app,
        "POST",
        &format!("/play/g/{game}/join"),
        Some(&join("solver", "eve")),
    )
    .await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.body);
    let r = send(
        &app,
        "POST",
        &format!("/play/g/{game}/join"),
        Some(&join("expert", "bob")),
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let expert = seat_url(r.location.as_deref().unwrap());
    // a seat cannot move out of turn
    let (first, _) = shadow.next();
    let other = if first == "solver" { &expert } else { &solver };
    let r = send(&app, "POST", &other.act, Some(&form(&[("text", "hello")]))).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.body);
    assert!(r.body.contains("turn"), "{}", r.body);
    // the oracle's moves, typed by each seat in turn (a fresh shadow: `next` was asked)
    let mut shadow = Shadow::new(kit::world(&worlds, "comma"), &json, seed, &options);
    let rules = shadow.seen.clone();
    let seats = BTreeMap::from([
        ("solver".to_string(), solver.clone()),
        ("expert".to_string(), expert.clone()),
    ]);
    play_through(&app, &mut shadow, &seats, 200).await;
    assert!(shadow.over);
    for (role, seat, theirs) in [("solver", &solver, "expert"), ("expert", &expert, "solver")] {
        let page = send(&app, "GET", &seat.page, None).await;
        assert!(page.body.contains("id=\"ending\""), "{role}: {}", page.body);
        // a seat is never shown the other role's rules
        let body = kit::unescape(&page.body);
        let their_rules = rules[theirs].trim();
        assert!(
            !body.contains(their_rules),
            "{role} is shown the {theirs}'s rules"
        );
    }
    let dirs = kit::run_dirs(tmp.path());
    assert_eq!(dirs.len(), 1);
    let t = toml(&dirs[0]);
    assert!(
        t.contains("agent = \"human\"") && t.contains("expert = \"human\""),
        "{t}"
    );
    assert!(
        t.contains("participant = \"alice\"") && t.contains("participant = \"bob\""),
        "{t}"
    );
    assert_eq!(kit::episodes(&dirs[0]).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn comma_with_the_oracle_in_the_other_role() {
    let Bench {
        tmp,
        app,
        mut shadow,
        ..
    } = bench("comma", 1, |setup| {
        let comma = escapade_comma::CommaWorld;
        setup.role = Some("solver".into());
        setup.partner = Some(Arc::new(
            escapade_run::Baseline::new(&comma, "oracle").unwrap(),
        ));
    });
    let (solver, _) = start(&app, "carol", Some("solver")).await;
    // an expert seat does not exist here
    let r = send(
        &app,
        "POST",
        "/play/start",
        Some(&form(&[
            ("participant", "x"),
            ("scenario", "nope"),
            ("seat", "expert"),
        ])),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let seats = BTreeMap::from([("solver".to_string(), solver.clone())]);
    play_through(&app, &mut shadow, &seats, 200).await;
    let page = send(&app, "GET", &solver.page, None).await;
    assert!(page.body.contains("Escaped after"), "{}", page.body);
    let dirs = kit::run_dirs(tmp.path());
    let t = toml(&dirs[0]);
    assert!(
        t.contains("agent = \"human\"") && t.contains("expert = \"oracle\""),
        "{t}"
    );
    let rows = kit::episodes(&dirs[0]);
    assert_eq!(rows[0]["agent"], "solver=human,expert=oracle");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vis_actions_are_buttons_and_pictures_only_for_the_seat() {
    let Bench {
        tmp,
        app,
        lobby,
        mut shadow,
        ..
    } = bench("vis", 1, |_| {});
    let (seat, _) = start(&app, "dana", None).await;
    let page = send(&app, "GET", &seat.page, None).await;
    // every available action is a button
    for a in shadow.observation.actions.clone().unwrap() {
        let button = format!("name=\"text\" value=\"{a}\"");
        assert!(
            kit::unescape(&page.body).contains(&button),
            "no button for {a}"
        );
    }
    assert!(page.body.contains("id=\"code-form\""));
    // the picture the seat sees is served; another address is not
    let body = kit::unescape(&page.body);
    let img = body
        .split("src=\"/play/g/")
        .nth(1)
        .expect("a picture")
        .split('"')
        .next()
        .unwrap();
    let img = format!("/play/g/{img}");
    let r = send(&app, "GET", &img, None).await;
    assert_eq!(r.status, StatusCode::OK);
    let sha = &shadow.observation.images[0].sha256;
    assert!(img.contains(sha.as_str()), "{img}");
    let wrong = img.replace(sha.as_str(), &"0".repeat(64));
    assert_eq!(
        send(&app, "GET", &wrong, None).await.status,
        StatusCode::NOT_FOUND
    );
    let seats = BTreeMap::from([(String::new(), seat.clone())]);
    let moves = play_through(&app, &mut shadow, &seats, 6).await;
    assert_eq!(moves, 6);
    // giving up ends the episode, recorded as given up: not an agent error
    let r = send(&app, "POST", &seat.quit, Some("")).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let end = send(&app, "GET", &seat.page, None).await;
    assert!(
        end.body.contains("Gave up after 6 steps") && !end.body.contains("agent failed"),
        "{}",
        end.body
    );
    assert!(end.body.contains("data-ending=\"gave up\""), "{}", end.body);
    let dirs = kit::run_dirs(tmp.path());
    let rows = kit::episodes(&dirs[0]);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["error"], "gave up", "{}", rows[0]);
    let steps = std::fs::read_dir(dirs[0].join("trajectories"))
        .unwrap()
        .count();
    assert_eq!(steps, 1);
    lobby.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn craft_a_click_on_the_frame_is_look_at() {
    let Bench {
        tmp,
        app,
        lobby,
        shadow,
        ..
    } = bench("craft", 1, |_| {});
    let (seat, _) = start(&app, "erin", None).await;
    let secrets = shadow.secrets();
    let page = send(&app, "GET", &seat.page, None).await;
    assert!(
        page.body.contains("type=\"image\" name=\"frame\""),
        "{}",
        page.body
    );
    assert!(
        page.body.contains("width=\"160\" height=\"90\""),
        "{}",
        page.body
    );
    let r = send(
        &app,
        "POST",
        &seat.act,
        Some(&form(&[("frame.x", "80"), ("frame.y", "45")])),
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let r = send(
        &app,
        "POST",
        &seat.act,
        Some(&form(&[("craft", "right"), ("degrees", "45")])),
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let page = send(&app, "GET", &seat.page, None).await;
    let body = kit::unescape(&page.body);
    assert!(body.contains(r#"{"look_at":[0.503,0.506]}"#), "{body}");
    assert!(body.contains(r#"{"rotate_right":45.0}"#), "{body}");
    let seen = shadow.seen.values().cloned().collect::<Vec<_>>().join("\n");
    // the two moves' observations are not in the shadow: none may hold a secret at all
    kit::no_leak(&page.body, &secrets, &seen, "craft after two moves");
    // a bad number is refused with a message, and the game goes on
    let r = send(
        &app,
        "POST",
        &seat.act,
        Some(&form(&[("craft", "forward"), ("metres", "lots")])),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("metres"), "{}", r.body);
    assert!(
        send(&app, "GET", &seat.page, None)
            .await
            .body
            .contains("id=\"turn\"")
    );
    // the server stopping mid-game records the episode, with why it ended
    lobby.stop();
    let dirs = kit::run_dirs(tmp.path());
    let rows = kit::episodes(&dirs[0]);
    assert_eq!(rows.len(), 1);
    assert!(
        rows[0]["error"]
            .as_str()
            .unwrap()
            .contains("server stopped"),
        "{}",
        rows[0]
    );
    assert_eq!(rows[0]["steps"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_a_clear_page_and_the_game_goes_on() {
    let Bench { app, lobby, .. } = bench("vis", 2, |_| {});
    let check = |r: Reply, status: StatusCode, words: &str| {
        assert_eq!(r.status, status, "{}", r.body);
        assert!(r.body.contains(words), "`{words}` missing: {}", r.body);
    };
    let page = send(&app, "GET", "/play", None).await;
    let scenario = kit::first_offered(&page.body);
    for (who, scenario, words) in [
        (" ", scenario.as_str(), "who is playing?"),
        ("a\nb", &scenario, "one line"),
        ("x", "atlantis", "not a scenario"),
        ("x", "%", "not a scenario"),
    ] {
        let body = form(&[("participant", who), ("scenario", scenario)]);
        let r = send(&app, "POST", "/play/start", Some(&body)).await;
        check(r, StatusCode::BAD_REQUEST, words);
    }
    check(
        send(&app, "GET", "/play/g/nope?seat=player&key=1", None).await,
        StatusCode::NOT_FOUND,
        "no such game",
    );
    check(
        send(&app, "GET", "/play/g/nope?%%%", None).await,
        StatusCode::NOT_FOUND,
        "no such game",
    );
    let (seat, _) = start(&app, "finn", None).await;
    let game = seat
        .page
        .split('/')
        .nth(3)
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .to_string();
    check(
        send(
            &app,
            "GET",
            &format!("/play/g/{game}?seat=player&key=wrong"),
            None,
        )
        .await,
        StatusCode::CONFLICT,
        "this seat is taken",
    );
    check(
        send(&app, "GET", &format!("/play/g/{game}?seat=ghost"), None).await,
        StatusCode::BAD_REQUEST,
        "no seat",
    );
    check(
        send(&app, "POST", &seat.act, Some("text=")).await,
        StatusCode::BAD_REQUEST,
        "nothing to do",
    );
    check(
        send(&app, "POST", &seat.act, Some("text=a&code=1")).await,
        StatusCode::BAD_REQUEST,
        "one action at a time",
    );
    check(
        send(&app, "POST", &seat.act, Some("call=nope")).await,
        StatusCode::BAD_REQUEST,
        "no function",
    );
    // a reload (or a dropped connection) shows the same turn again
    let a = send(&app, "GET", &seat.page, None).await;
    let b = send(&app, "GET", &seat.page, None).await;
    assert_eq!(a.body, b.body);
    assert!(a.body.contains("id=\"turn\""));
    // an unreadable reply is answered on the page, without a step
    let r = send(&app, "POST", &seat.act, Some(&form(&[("code", "12")]))).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let c = send(&app, "GET", &seat.page, None).await;
    assert!(c.body.contains("id=\"unreadable\""), "{}", c.body);
    let state = send(
        &app,
        "GET",
        &format!("/play/g/{game}/state?seat=player&key=x"),
        None,
    )
    .await;
    assert_eq!(state.status, StatusCode::CONFLICT);
    // the server still serves
    assert_eq!(
        send(&app, "GET", "/play", None).await.status,
        StatusCode::OK
    );
    lobby.stop();
}

#[tokio::test]
async fn a_viewer_without_games_says_there_is_nothing_to_play() {
    let tmp = tempfile::tempdir().unwrap();
    let app = crate::support::app(&[tmp.path().to_path_buf()]);
    let r = send(&app, "GET", "/play", None).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert!(r.body.contains("escapade play --web"), "{}", r.body);
    let js = send(&app, "GET", "/play/play.js", None).await;
    assert_eq!(js.status, StatusCode::OK);
}

#[test]
fn a_lobby_refuses_what_the_world_does_not_take() {
    let tmp = tempfile::tempdir().unwrap();
    let worlds = kit::worlds();
    let mut s = kit::setup(&worlds, "vis", 1, tmp.path());
    s.role = Some("solver".into());
    let e = escapade_web::play::Lobby::new(s, worlds.clone()).unwrap_err();
    assert!(e.to_string().contains("one role"), "{e}");
    let mut s = kit::setup(&worlds, "comma", 1, tmp.path());
    s.role = Some("solver".into());
    let e = escapade_web::play::Lobby::new(s, worlds.clone()).unwrap_err();
    assert!(e.to_string().contains("--partner"), "{e}");
    let mut s = kit::setup(&worlds, "comma", 1, tmp.path());
    s.scenarios.clear();
    let e = escapade_web::play::Lobby::new(s, worlds.clone()).unwrap_err();
    assert!(e.to_string().contains("no scenario"), "{e}");
}
