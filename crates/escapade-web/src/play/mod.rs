//! `escapade play --web`: people play scenarios in the browser, each game recorded as an
//! ordinary run directory (agent `human`, with the participant label the person typed),
//! so that `escapade report` puts people beside models.
//!
//! - `/play` — the start page: a participant label, a scenario (the picker offers the
//!   scenarios nobody has played here yet), a seat in two-role worlds, and the games
//!   waiting for a second person;
//! - `/play/g/{game}?seat=…&key=…` — a seat's page: its rules, its history, what it
//!   observes now (text, pictures, the available actions as buttons, per-world controls)
//!   and, at the end, the outcome and the run directory written.
//!
//! The server holds each game's environment on a thread of its own ([`game`]), playing
//! it with the terminal play's loop ([`escapade_run::play_person`]), so the recording is
//! the terminal's. A seat is claimed with a random key carried in its address: a reload
//! (or a dropped connection) resumes the game, and anyone else who asks for the seat is
//! told that it is taken. A page shows exactly what the seat's agent would observe: the
//! role's rules, the observations of its own turns and its own replies; pictures are
//! served only to a seat that was shown them.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use escapade_core::{ScenarioHeader, World};
use escapade_run::{AgentFactory, PlayOptions};
use minijinja::context;
use rand::Rng;

use crate::error::{Problem, WebError};
use crate::server::{Site, Worlds};
use crate::view::query_pairs;

pub mod form; // a turn's form → the action an agent would send
pub mod game; // one game on its own thread; what its pages read

use game::{Game, Input, ONE};

/// The script of the play pages: reload on a change, craft's keys.
pub const JS: &str = include_str!("../assets/play/play.js");
/// The stylesheet of the play pages (beside the site's).
pub const CSS: &str = include_str!("../assets/play/play.css");

/// Where `escapade play --web` records its games unless told otherwise: a folder of its
/// own, apart from `runs`, where `escapade run` writes (`escapade report runs/*
/// play-runs/*` puts them side by side).
pub const DEFAULT_RECORD: &str = "play-runs";

/// What `escapade play --web` serves.
pub struct PlaySetup {
    /// The world's name.
    pub world: String,
    /// The run label (suite name, `file:<stem>`, `dir:<name>`).
    pub label: String,
    /// The source recorded (suite name or absolute path).
    pub origin: String,
    /// The scenarios' JSON, in order.
    pub scenarios: Vec<String>,
    /// Only this scenario (`--scenario`), which may then be played again and again.
    pub fixed: Option<usize>,
    /// Two-role worlds with a partner: the role people play (`None`: they choose).
    pub role: Option<String>,
    /// The agent of the other role (`None` in a two-role world: two people play).
    pub partner: Option<Arc<dyn AgentFactory>>,
    /// The runtime the partner's model clients live on (`None`: each game makes one).
    pub partner_runtime: Option<tokio::runtime::Handle>,
    /// Where run directories are written.
    pub record: PathBuf,
    /// The world's environment options (`-W`).
    pub world_options: BTreeMap<String, String>,
    /// The seed given to `reset`.
    pub seed: u64,
}

impl std::fmt::Debug for PlaySetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlaySetup")
            .field("world", &self.world)
            .field("label", &self.label)
            .field("scenarios", &self.scenarios.len())
            .field("role", &self.role)
            .field("partner", &self.partner.as_ref().map(|p| p.name()))
            .field("record", &self.record)
            .finish()
    }
}

/// A seat of a game: its role (`""`: one person plays the world), who sits there, and
/// the key that proves it.
#[derive(Debug, Clone)]
struct Seat {
    role: String,
    participant: Option<String>,
    key: Option<String>,
}

/// A game the lobby knows: its scenario, its seats, and once every seat is taken, the
/// game itself.
#[derive(Debug)]
struct Entry {
    index: usize,
    seats: Vec<Seat>,
    game: Option<Arc<Game>>,
}

/// The games of one `play --web` server.
pub struct Lobby {
    setup: PlaySetup,
    ids: Vec<String>,
    roles: Vec<String>,
    worlds: Worlds,
    /// Scenarios people played in an earlier server over the same record folder (by
    /// index): the picker offers them last.
    played: Vec<usize>,
    games: Mutex<BTreeMap<String, Entry>>,
}

/// The scenarios (indices into `hashes`, the scenarios' SHA-256) that a person has an
/// episode of in a run directory directly under `record`.
fn played_before(record: &std::path::Path, hashes: &[String]) -> Vec<usize> {
    let Ok(entries) = std::fs::read_dir(record) else {
        return Vec::new();
    };
    let mut seen = std::collections::BTreeSet::new();
    for dir in entries.filter_map(|e| e.ok()).map(|e| e.path()) {
        if !escapade_run::rundir::is_run_dir(&dir) {
            continue;
        }
        let Ok(toml) = escapade_run::rundir::read_run_toml(&dir) else {
            continue;
        };
        let human = escapade_run::play::HUMAN;
        if toml.config.agent != human && toml.config.expert.as_deref() != Some(human) {
            continue;
        }
        let path = dir.join(escapade_run::rundir::EPISODES);
        if let Ok(file) = escapade_run::rundir::read_episodes(&path) {
            seen.extend(file.rows.into_iter().map(|r| r.scenario_hash));
        }
    }
    (0..hashes.len())
        .filter(|i| seen.contains(&hashes[*i]))
        .collect()
}

impl std::fmt::Debug for Lobby {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lobby")
            .field("setup", &self.setup)
            .field("games", &self.games().len())
            .finish()
    }
}

impl Lobby {
    /// A lobby over `setup`, whose world must be in `worlds`; checks every scenario
    /// opens, and the partner and role fit the world.
    pub fn new(setup: PlaySetup, worlds: Worlds) -> Result<Lobby, WebError> {
        let bad = |message: String| WebError::Play { message };
        let world = worlds
            .iter()
            .find(|w| w.name() == setup.world)
            .ok_or_else(|| bad(format!("no world `{}`", setup.world)))?;
        if setup.scenarios.is_empty() {
            return Err(bad("there is no scenario to play".into()));
        }
        let mut ids = Vec::new();
        for json in &setup.scenarios {
            ids.push(
                ScenarioHeader::parse(json)
                    .map_err(|e| bad(e.to_string()))?
                    .id,
            );
        }
        let roles = world
            .env(&setup.scenarios[0], &setup.world_options)
            .map_err(|e| bad(e.to_string()))?
            .roles();
        if roles.is_empty() && (setup.partner.is_some() || setup.role.is_some()) {
            return Err(bad(format!(
                "world `{}` has one role: --role and --partner apply only to worlds whose roles \
                 take turns (comma)",
                setup.world
            )));
        }
        if let Some(r) = &setup.role
            && !roles.contains(r)
        {
            return Err(bad(format!(
                "no role `{r}` in world `{}`; its roles are {}",
                setup.world,
                roles.join(", ")
            )));
        }
        if setup.role.is_some() && setup.partner.is_none() {
            return Err(bad(
                "--role needs --partner: without one, two people play the two roles".into(),
            ));
        }
        let hashes: Vec<String> = setup
            .scenarios
            .iter()
            .map(|j| escapade_core::hash::sha256_hex(j.as_bytes()))
            .collect();
        let played = played_before(&setup.record, &hashes);
        Ok(Lobby {
            setup,
            ids,
            roles,
            worlds,
            played,
            games: Mutex::new(BTreeMap::new()),
        })
    }

    fn games(&self) -> MutexGuard<'_, BTreeMap<String, Entry>> {
        self.games.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn world(&self) -> Option<&dyn World> {
        self.worlds
            .iter()
            .find(|w| w.name() == self.setup.world)
            .map(|w| w.as_ref())
    }

    /// The seats a person may take in a new game.
    fn choosable_seats(&self) -> Vec<String> {
        match (&self.setup.partner, &self.setup.role) {
            _ if self.roles.is_empty() => vec![ONE.to_string()],
            (Some(_), Some(r)) => vec![r.clone()],
            _ => self.roles.clone(),
        }
    }

    /// The scenarios no game here has been started on, in order, those people played
    /// in an earlier server over the same record folder last.
    fn unplayed(&self, games: &BTreeMap<String, Entry>) -> Vec<usize> {
        match self.setup.fixed {
            Some(i) => vec![i],
            None => {
                let mut free: Vec<usize> = (0..self.ids.len())
                    .filter(|i| !games.values().any(|e| e.index == *i))
                    .collect();
                free.sort_by_key(|i| self.played.contains(i));
                free
            }
        }
    }

    /// Stops every game (each is recorded, ended by the stop) and waits for their threads.
    pub fn stop(&self) {
        let games: Vec<Arc<Game>> = self
            .games()
            .values()
            .filter_map(|e| e.game.clone())
            .collect();
        for g in games {
            g.stop();
        }
    }

    /// Starts the game of `entry` once every seat is taken.
    fn start_if_full(&self, entry: &mut Entry) -> Result<(), Problem> {
        if entry.game.is_some() || entry.seats.iter().any(|s| s.key.is_none()) {
            return Ok(());
        }
        let world = self
            .world()
            .ok_or_else(|| Problem::internal("the world is gone"))?;
        let participants: BTreeMap<String, String> = entry
            .seats
            .iter()
            .map(|s| {
                let key = if s.role.is_empty() { "agent" } else { &s.role };
                (key.to_string(), s.participant.clone().unwrap_or_default())
            })
            .collect();
        let one_seat_of_two = !self.roles.is_empty() && self.setup.partner.is_some();
        let options = PlayOptions {
            seed: self.setup.seed,
            record: Some(self.setup.record.clone()),
            suite: self.setup.label.clone(),
            source: self.setup.origin.clone(),
            role: one_seat_of_two.then(|| entry.seats[0].role.clone()),
            world_options: self.setup.world_options.clone(),
            participants,
            ..PlayOptions::default()
        };
        let partner = self
            .setup
            .partner
            .clone()
            .map(|p| (p, self.setup.partner_runtime.clone()));
        let game = game::spawn(
            world,
            self.ids[entry.index].clone(),
            entry.index,
            entry.seats.iter().map(|s| s.role.clone()).collect(),
            game::Start {
                worlds: self.worlds.clone(),
                json: self.setup.scenarios[entry.index].clone(),
                options,
                partner,
            },
        )
        .map_err(Problem::internal)?;
        entry.game = Some(game);
        Ok(())
    }
}

/// A random key (128 bits from the operating system's generator).
fn fresh_key() -> String {
    let bytes: [u8; 16] = rand::rng().random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The seat's name in addresses: its role, or `player` in one-role worlds.
fn seat_name(role: &str) -> &str {
    if role.is_empty() { "player" } else { role }
}

/// What a play server answers for an address outside its seats' pages (the viewer's
/// pages among them: a seat sees its own game only, on its own page).
pub const NOT_SERVED: &str = "this server serves games (start at /play), and each seat \
     sees its own game on its own page only; the runs it records are read afterwards with \
     `escapade view` over its record folder";

/// A play server's routes outside `/play`: its `/` leads to the start page. None of the
/// viewer's pages is among them, so no seat reaches another role's view of its game, nor
/// another run under the record folder.
pub fn front() -> Router<Arc<Site>> {
    Router::new().route("/", get(|| async { Redirect::to("/play") }))
}

/// The play routes.
pub fn routes() -> Router<Arc<Site>> {
    Router::new()
        .route("/", get(start_page))
        .route("/start", post(start))
        .route("/play.js", get(script))
        .route("/play.css", get(style))
        .route("/g/{game}", get(seat_page))
        .route("/g/{game}/join", post(join))
        .route("/g/{game}/act", post(act))
        .route("/g/{game}/quit", post(quit))
        .route("/g/{game}/state", get(state))
        .route("/g/{game}/image/{sha}", get(image))
}

async fn style() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        CSS,
    )
        .into_response()
}

async fn script() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        JS,
    )
        .into_response()
}

fn lobby(site: &Site) -> Result<&Lobby, Problem> {
    site.play.as_deref().ok_or_else(|| {
        Problem::not_found(
            "nothing to play here",
            "this server shows runs; start `escapade play --web SUITE` to play in the browser",
        )
    })
}

/// The form of a POST body as pairs, or a 400.
fn form_pairs(body: &Bytes) -> Result<Vec<(String, String)>, Problem> {
    serde_urlencoded::from_bytes(body).map_err(|e| {
        Problem::bad_request(
            "malformed form",
            format!("the form's fields do not parse: {e}"),
        )
    })
}

fn field<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// The participant label of a form: required, one line, at most 60 characters.
fn participant(pairs: &[(String, String)]) -> Result<String, Problem> {
    let label = field(pairs, "participant").unwrap_or("").trim().to_string();
    if label.is_empty() {
        return Err(Problem::bad_request(
            "who is playing?",
            "type a name or a label for yourself (it is recorded with your results)",
        ));
    }
    if label.chars().count() > 60 || label.chars().any(char::is_control) {
        return Err(Problem::bad_request(
            "that label will not do",
            "a participant label is one line of at most 60 characters",
        ));
    }
    Ok(label)
}

async fn start_page(State(site): State<Arc<Site>>) -> Result<Html<String>, Problem> {
    let lobby = lobby(&site)?;
    let games = lobby.games();
    let unplayed = lobby.unplayed(&games);
    let scenarios: Vec<minijinja::Value> = unplayed
        .iter()
        .map(|i| context! { id => &lobby.ids[*i] })
        .collect();
    let waiting: Vec<minijinja::Value> = games
        .iter()
        .filter(|(_, e)| e.game.is_none())
        .map(|(id, e)| {
            let taken: Vec<String> = e
                .seats
                .iter()
                .filter(|s| s.key.is_some())
                .map(|s| format!("{} ({})", s.role, s.participant.clone().unwrap_or_default()))
                .collect();
            let free: Vec<&str> = e
                .seats
                .iter()
                .filter(|s| s.key.is_none())
                .map(|s| s.role.as_str())
                .collect();
            context! { id, scenario => &lobby.ids[e.index], taken, free }
        })
        .collect();
    let (playing, over) =
        games
            .values()
            .filter_map(|e| e.game.as_ref())
            .fold((0, 0), |(p, o), g| match g.table().ending.is_some() {
                true => (p, o + 1),
                false => (p + 1, o),
            });
    crate::pages::page(
        "play_start.html",
        context! {
            title => "Play",
            world => &lobby.setup.world,
            label => &lobby.setup.label,
            scenarios,
            total => lobby.ids.len(),
            seats => lobby.choosable_seats(),
            partner => lobby.setup.partner.as_ref().map(|p| p.name()),
            two_people => !lobby.roles.is_empty() && lobby.setup.partner.is_none(),
            waiting,
            playing,
            over,
            record => lobby.setup.record.display().to_string(),
        },
    )
}

/// `POST /play/start`: a new game on a scenario nobody has started, with this person in
/// the seat chosen.
async fn start(State(site): State<Arc<Site>>, body: Bytes) -> Result<Response, Problem> {
    let (game, url) = start_game(lobby(&site)?, &body)?;
    settle(game.as_deref()).await;
    Ok(Redirect::to(&url).into_response())
}

/// The synchronous half of [`start`]: the game (started when its seats are full) and the
/// seat's address.
fn start_game(lobby: &Lobby, body: &Bytes) -> Result<(Option<Arc<Game>>, String), Problem> {
    let pairs = form_pairs(body)?;
    let who = participant(&pairs)?;
    let wanted = field(&pairs, "scenario").unwrap_or("");
    let Some(index) = lobby.ids.iter().position(|i| i == wanted) else {
        return Err(Problem::bad_request(
            "no such scenario",
            format!("`{wanted}` is not a scenario of {}", lobby.setup.label),
        ));
    };
    let seats = lobby.choosable_seats();
    let role = match field(&pairs, "seat") {
        None | Some("player") if seats == [ONE] => ONE.to_string(),
        Some(r) if seats.iter().any(|s| s == r) => r.to_string(),
        other => {
            return Err(Problem::bad_request(
                "no such seat",
                format!(
                    "`{}` is not a seat of this game; the seats are: {}",
                    other.unwrap_or(""),
                    seats
                        .iter()
                        .map(|s| seat_name(s))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
    };
    let mut games = lobby.games();
    let busy =
        |e: &Entry| e.index == index && e.game.as_ref().is_none_or(|g| g.table().ending.is_none());
    if (lobby.setup.fixed.is_none() && games.values().any(|e| e.index == index))
        || games.values().any(busy)
    {
        return Err(Problem::new(
            StatusCode::CONFLICT,
            "someone else has this scenario",
            format!(
                "scenario `{wanted}` is being played or was played here already; go back to \
                 the start page, which offers the scenarios nobody has played"
            ),
        ));
    }
    let key = fresh_key();
    let mut seat_list: Vec<Seat> = if lobby.roles.is_empty() || lobby.setup.partner.is_some() {
        vec![Seat {
            role: role.clone(),
            participant: None,
            key: None,
        }]
    } else {
        lobby
            .roles
            .iter()
            .map(|r| Seat {
                role: r.clone(),
                participant: None,
                key: None,
            })
            .collect()
    };
    for s in seat_list.iter_mut().filter(|s| s.role == role) {
        s.participant = Some(who.clone());
        s.key = Some(key.clone());
    }
    let mut entry = Entry {
        index,
        seats: seat_list,
        game: None,
    };
    lobby.start_if_full(&mut entry)?;
    let id = fresh_key()[..12].to_string();
    let game = entry.game.clone();
    games.insert(id.clone(), entry);
    Ok((game, seat_url(&id, &role, &key)))
}

fn seat_url(game: &str, role: &str, key: &str) -> String {
    format!("/play/g/{game}?seat={}&key={key}", seat_name(role))
}

/// `POST /play/g/{game}/join`: the second person takes the free seat of a two-role game.
async fn join(
    State(site): State<Arc<Site>>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, Problem> {
    let (game, url) = join_game(lobby(&site)?, &id, &body)?;
    settle(game.as_deref()).await;
    Ok(Redirect::to(&url).into_response())
}

/// The synchronous half of [`join`].
fn join_game(
    lobby: &Lobby,
    id: &str,
    body: &Bytes,
) -> Result<(Option<Arc<Game>>, String), Problem> {
    let pairs = form_pairs(body)?;
    let who = participant(&pairs)?;
    let wanted = field(&pairs, "seat").unwrap_or("");
    let mut games = lobby.games();
    let entry = games.get_mut(id).ok_or_else(|| unknown_game(id))?;
    let Some(seat) = entry
        .seats
        .iter_mut()
        .find(|s| seat_name(&s.role) == wanted)
    else {
        return Err(Problem::bad_request(
            "no such seat",
            format!("game {id} has no seat `{wanted}`"),
        ));
    };
    if seat.key.is_some() {
        return Err(taken(wanted));
    }
    let key = fresh_key();
    seat.key = Some(key.clone());
    seat.participant = Some(who);
    let role = seat.role.clone();
    lobby.start_if_full(entry)?;
    let game = entry.game.clone();
    Ok((game, seat_url(id, &role, &key)))
}

fn unknown_game(id: &str) -> Problem {
    Problem::not_found(
        "no such game",
        format!(
            "there is no game `{id}` here (a game lasts as long as its server); start one at /play"
        ),
    )
}

fn taken(seat: &str) -> Problem {
    Problem::new(
        StatusCode::CONFLICT,
        "this seat is taken",
        format!(
            "someone is already playing as {seat} in this game. If that is you in another tab \
             or browser, keep playing there (its address carries the seat's key); otherwise \
             start a game of your own at /play"
        ),
    )
}

/// The game and seat an address names, checked against the seat's key.
fn seat_of(
    lobby: &Lobby,
    id: &str,
    query: Option<&str>,
) -> Result<(Option<Arc<Game>>, Seat), Problem> {
    let pairs = query_pairs(query)?;
    let games = lobby.games();
    let entry = games.get(id).ok_or_else(|| unknown_game(id))?;
    let wanted = field(&pairs, "seat").unwrap_or("");
    let seat = entry
        .seats
        .iter()
        .find(|s| seat_name(&s.role) == wanted)
        .ok_or_else(|| {
            Problem::bad_request("no such seat", format!("game {id} has no seat `{wanted}`"))
        })?;
    let key = field(&pairs, "key").unwrap_or("");
    match &seat.key {
        Some(k) if !key.is_empty() && crate::auth::same(k, key) => {
            Ok((entry.game.clone(), seat.clone()))
        }
        Some(_) => Err(taken(wanted)),
        None => Err(Problem::new(
            StatusCode::CONFLICT,
            "this seat is free",
            format!("nobody sits as {wanted} yet: join the game from the start page, /play"),
        )),
    }
}

/// The picture's address for a seat's page.
fn image_url(id: &str, seat: &Seat, sha: &str, key: &str) -> String {
    format!(
        "/play/g/{id}/image/{sha}?seat={}&key={key}",
        seat_name(&seat.role)
    )
}

async fn seat_page(
    State(site): State<Arc<Site>>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Html<String>, Problem> {
    let lobby = lobby(&site)?;
    let (game, seat) = seat_of(lobby, &id, query.as_deref())?;
    let key = seat.key.clone().unwrap_or_default();
    let seat_q = seat_name(&seat.role).to_string();
    let common = context! {
        title => format!("Play {}", lobby.setup.label),
        world => &lobby.setup.world,
        game => &id,
        seat => &seat_q,
        role => &seat.role,
        key => &key,
        participant => seat.participant.clone().unwrap_or_default(),
    };
    let Some(game) = game else {
        let free: Vec<String> = lobby
            .games()
            .get(&id)
            .map(|e| {
                e.seats
                    .iter()
                    .filter(|s| s.key.is_none())
                    .map(|s| s.role.clone())
                    .collect()
            })
            .unwrap_or_default();
        return crate::pages::page(
            "play_game.html",
            context! { status => "partner", free, version => 0, scenario => "", ..common },
        );
    };
    let table = game.table();
    // a seat that plays every role of a two-role world sees each turn, one at a time
    let mine = |role: &str| seat.role.is_empty() || seat.role == role;
    let rules: Vec<(String, String)> = table
        .rules
        .iter()
        .filter(|(r, _)| mine(r))
        .map(|(r, t)| (r.clone(), t.clone()))
        .collect();
    let my_turn = table
        .waiting
        .as_ref()
        .filter(|w| mine(w.role.as_deref().unwrap_or(ONE)));
    let history: Vec<minijinja::Value> = table
        .history
        .iter()
        .filter(|(r, _)| mine(r))
        .flat_map(|(role, turns)| {
            turns
                .iter()
                .filter(|t| t.action.is_some())
                .map(move |t| (role.clone(), t))
        })
        .map(|(role, t)| {
            let images: Vec<String> = t
                .images
                .iter()
                .map(|sha| image_url(&id, &seat, sha, &key))
                .collect();
            context! { role, text => &t.text, images, action => &t.action }
        })
        .collect();
    let status = if table.ending.is_some() {
        "over"
    } else if my_turn.is_some_and(|w| w.handed) {
        "handed"
    } else if my_turn.is_some() {
        "turn"
    } else if table.waiting.is_none() {
        "starting"
    } else {
        "wait"
    };
    let whose = table
        .waiting
        .as_ref()
        .and_then(|w| w.role.clone())
        .unwrap_or_default();
    let current = my_turn.map(|w| {
        let frame = w
            .observation
            .images
            .first()
            .and_then(|i| form::png_size(&i.png));
        let images: Vec<minijinja::Value> = w
            .observation
            .images
            .iter()
            .map(|i| {
                let (width, height) = form::png_size(&i.png).unwrap_or((0, 0));
                context! { url => image_url(&id, &seat, &i.sha256, &key), width, height }
            })
            .collect();
        context! {
            role => &w.role,
            text => &w.observation.text,
            images,
            actions => &w.observation.actions,
            unreadable => &w.unreadable,
            frame => frame.map(|(w, h)| context! { width => w, height => h }),
        }
    });
    let tools: Vec<minijinja::Value> = table
        .tools
        .iter()
        .map(|t| {
            let props = t.parameters["properties"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            let params: Vec<minijinja::Value> = props
                .iter()
                .map(|(name, p)| {
                    context! {
                        name,
                        kind => p["type"].as_str().unwrap_or("string"),
                        about => p["description"].as_str().unwrap_or(""),
                    }
                })
                .collect();
            context! { name => &t.name, about => &t.description, params }
        })
        .collect();
    // the world's last words are its last observation's: shown to that role's seat only
    let ending = table.ending.clone().map(|mut e| {
        if !mine(e.last_role.as_deref().unwrap_or(ONE)) {
            e.last_text.clear();
        }
        e
    });
    crate::pages::page(
        "play_game.html",
        context! {
            status,
            whose,
            scenario => &game.scenario,
            version => table.version,
            rules,
            history,
            current,
            tools,
            ending,
            ..common
        },
    )
}

/// `POST /play/g/{game}/act`: the seat's action, then (briefly) waits for the game to
/// move on, and shows the page again.
async fn act(
    State(site): State<Arc<Site>>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<Response, Problem> {
    let lobby = lobby(&site)?;
    let (game, seat) = seat_of(lobby, &id, query.as_deref())?;
    let game = game.ok_or_else(|| {
        Problem::new(
            StatusCode::CONFLICT,
            "the game has not started",
            "it starts when every seat is taken",
        )
    })?;
    let pairs = form_pairs(&body)?;
    let action = {
        let table = game.table();
        let frame = table
            .waiting
            .as_ref()
            .and_then(|w| w.observation.images.first())
            .and_then(|i| form::png_size(&i.png));
        form::action(&pairs, &table.tools, frame)
            .map_err(|m| Problem::bad_request("that action cannot be sent", m))?
    };
    let role = match (&seat.role, game.table().waiting.as_ref()) {
        // one person in every role of a two-role world: the role whose turn it is
        (r, Some(w)) if r.is_empty() => w.role.clone().unwrap_or_default(),
        (r, _) => r.clone(),
    };
    hand_and_wait(&game, &role, Input::Act(action)).await?;
    Ok(Redirect::to(&seat_url(
        &id,
        &seat.role,
        seat.key.as_deref().unwrap_or(""),
    ))
    .into_response())
}

/// `POST /play/g/{game}/quit`: the seat gives up; the episode is recorded as given up.
async fn quit(
    State(site): State<Arc<Site>>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, Problem> {
    let lobby = lobby(&site)?;
    let (game, seat) = seat_of(lobby, &id, query.as_deref())?;
    let Some(game) = game else {
        return Err(Problem::new(
            StatusCode::CONFLICT,
            "the game has not started",
            "nothing to give up yet",
        ));
    };
    let role = match game.table().waiting.as_ref() {
        Some(w) if seat.role.is_empty() => w.role.clone().unwrap_or_default(),
        _ => seat.role.clone(),
    };
    hand_and_wait(&game, &role, Input::Quit).await?;
    Ok(Redirect::to(&seat_url(
        &id,
        &seat.role,
        seat.key.as_deref().unwrap_or(""),
    ))
    .into_response())
}

/// Hands `input` over and waits for the game to take its next turn ([`settle`]).
async fn hand_and_wait(game: &Game, role: &str, input: Input) -> Result<(), Problem> {
    let changes = game.subscribe();
    game.hand(role, input)
        .map_err(|m| Problem::new(StatusCode::CONFLICT, "not now", m))?;
    wait_turn(game, changes).await;
    Ok(())
}

/// Waits (a few seconds at most) until `game` waits for a person or is over, so that the
/// page shown next is the new one; a slower game (a model partner) is waited for by the
/// page itself, which reloads when the game moves on.
async fn settle(game: Option<&Game>) {
    if let Some(g) = game {
        wait_turn(g, g.subscribe()).await;
    }
}

async fn wait_turn(game: &Game, mut changes: tokio::sync::watch::Receiver<u64>) {
    let settled = || {
        let t = game.table();
        t.ending.is_some() || t.waiting.as_ref().is_some_and(|w| !w.handed)
    };
    let _ = tokio::time::timeout(Duration::from_secs(5), async {
        while !settled() {
            if changes.changed().await.is_err() {
                break;
            }
        }
    })
    .await;
}

/// `GET /play/g/{game}/state`: the game's version, for a page to know when to reload.
async fn state(
    State(site): State<Arc<Site>>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, Problem> {
    let lobby = lobby(&site)?;
    let (game, _) = seat_of(lobby, &id, query.as_deref())?;
    let version = game.map_or(0, |g| g.table().version);
    Ok((
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        serde_json::json!({ "version": version }).to_string(),
    )
        .into_response())
}

/// `GET /play/g/{game}/image/{sha}`: a picture this seat was shown.
async fn image(
    State(site): State<Arc<Site>>,
    Path((id, sha)): Path<(String, String)>,
    RawQuery(query): RawQuery,
) -> Result<Response, Problem> {
    let lobby = lobby(&site)?;
    let (game, seat) = seat_of(lobby, &id, query.as_deref())?;
    let png = game.and_then(|g| {
        g.table()
            .images
            .get(&sha)
            .filter(|(_, roles)| seat.role.is_empty() || roles.contains(&seat.role))
            .map(|(png, _)| png.clone())
    });
    let png = png.ok_or_else(|| {
        Problem::not_found(
            "no such picture",
            "this seat has not been shown that picture",
        )
    })?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/png"),
            (header::CACHE_CONTROL, "private, max-age=3600"),
        ],
        png.as_ref().clone(),
    )
        .into_response())
}

/// How `escapade play --web` serves: the address, and what to play.
pub struct PlayServe {
    /// The address (`None`: loopback without a token).
    pub host: Option<String>,
    /// The port (0: any free port).
    pub port: u16,
}

/// `escapade play --web`: serves the lobby until Ctrl-C, after writing the address to
/// `out`; then stops every game in progress (each is recorded, ended by the stop).
pub fn serve(
    setup: PlaySetup,
    how: &PlayServe,
    worlds: Worlds,
    runtime: &tokio::runtime::Runtime,
    out: &mut dyn std::io::Write,
) -> Result<(), WebError> {
    std::fs::create_dir_all(&setup.record).map_err(|source| WebError::Folder {
        path: setup.record.clone(),
        source,
    })?;
    let record = setup.record.clone();
    let options = crate::ViewOptions {
        dirs: vec![record.clone()],
        host: how.host.clone(),
        port: how.port,
    };
    let lobby = Arc::new(Lobby::new(setup, worlds.clone())?);
    let mut site = Site::new(&options, worlds)?;
    site.play = Some(lobby.clone());
    let shared = site.access.token().is_some();
    let result = runtime.block_on(async {
        let server = crate::Server::bind(&options, site).await?;
        // the start page, with the token when there is one
        let url = match server.url().split_once("/?") {
            Some((base, query)) => format!("{base}/play?{query}"),
            None => format!("{}play", server.url()),
        };
        let _ = writeln!(
            out,
            "escapade play --web: {} scenario(s) of {}; games are recorded under {}\nopen {url}",
            lobby.ids.len(),
            lobby.setup.label,
            record.display()
        );
        if shared {
            let _ = writeln!(
                out,
                "anyone on your network with this address (its token) can play and read the runs \
                 recorded here; the token is not shown again"
            );
        }
        let _ = writeln!(
            out,
            "Ctrl-C stops the server (a game in progress is recorded as ended by the stop)"
        );
        let _ = out.flush();
        server
            .serve_until(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
    });
    lobby.stop();
    result
}
