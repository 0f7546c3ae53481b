//! What the play tests share: the four worlds, a play server over a temporary record
//! folder, requests through the router, and a shadow of the game — the same scenario in
//! an environment of the test's own, played by the world's oracle — that says which move
//! to type next and what the seat's agent has observed so far.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use escapade_core::{Action, Agent, Env, EpisodeStart, Observation, Step, World};
use escapade_web::auth::Access;
use escapade_web::play::{Lobby, PlaySetup};
use escapade_web::server::{Site, Worlds};
use http_body_util::BodyExt;
use tower::ServiceExt;

/// The four worlds the binary plays.
pub fn worlds() -> Worlds {
    Arc::new(vec![
        Box::new(escapade_tools::ToolsWorld::new().expect("python3 for the tools world"))
            as Box<dyn World>,
        Box::new(escapade_vis::VisWorld::new()),
        Box::new(escapade_comma::CommaWorld),
        Box::new(escapade_craft::CraftWorld::new()),
    ])
}

/// The world called `name` of `worlds`.
pub fn world<'a>(worlds: &'a Worlds, name: &str) -> &'a dyn World {
    worlds
        .iter()
        .find(|w| w.name() == name)
        .expect("a world of the binary")
        .as_ref()
}

/// Small frames where a world has a frame size (what is tested does not depend on it).
pub fn quick(world: &dyn World) -> BTreeMap<String, String> {
    let keys: Vec<&str> = world.env_options().iter().map(|(k, _)| *k).collect();
    let mut o = BTreeMap::new();
    if keys.contains(&"width") && keys.contains(&"height") {
        o.insert("width".into(), "160".into());
        o.insert("height".into(), "90".into());
    }
    o
}

/// The first `n` scenarios of `world`'s first suite, and the suite's name.
pub fn scenarios(world: &dyn World, n: usize) -> (String, Vec<String>) {
    let suite = world.suites()[0].name.clone();
    let all = world.build_suite(&suite).expect("the suite builds");
    (suite, all.into_iter().take(n).collect())
}

/// A play setup of `world`'s first `n` scenarios, recorded under `record`.
pub fn setup(worlds: &Worlds, name: &str, n: usize, record: &Path) -> PlaySetup {
    let w = world(worlds, name);
    let (suite, scenarios) = scenarios(w, n);
    PlaySetup {
        world: name.into(),
        label: suite.clone(),
        origin: suite,
        scenarios,
        fixed: None,
        role: None,
        partner: None,
        partner_runtime: None,
        record: record.to_path_buf(),
        world_options: quick(w),
        seed: 3,
    }
}

/// A site that plays `setup` (loopback), and its lobby.
pub fn site(setup: PlaySetup, worlds: Worlds) -> (Site, Arc<Lobby>) {
    std::fs::create_dir_all(&setup.record).unwrap();
    let mut site = Site::new(
        &escapade_web::ViewOptions {
            dirs: vec![setup.record.clone()],
            ..Default::default()
        },
        worlds.clone(),
    )
    .expect("the record folder exists");
    site.access = Access::Loopback;
    let lobby = Arc::new(Lobby::new(setup, worlds).expect("a lobby"));
    site.play = Some(lobby.clone());
    (site, lobby)
}

/// A response: status, `Location` and body.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub location: Option<String>,
    pub body: String,
}

/// Sends one request through the router (a form body for POST).
pub async fn send(app: &axum::Router, method: &str, uri: &str, form: Option<&str>) -> Reply {
    let mut req = Request::builder()
        .method(method)
        .uri(uri)
        .header(header::HOST, "127.0.0.1");
    if form.is_some() {
        req = req.header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
    }
    let req = req
        .body(Body::from(form.unwrap_or("").to_string()))
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let location = res
        .headers()
        .get(header::LOCATION)
        .map(|v| v.to_str().unwrap().to_string());
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    Reply {
        status,
        location,
        body: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

/// A form body of `pairs`.
pub fn form(pairs: &[(&str, &str)]) -> String {
    serde_urlencoded::to_string(pairs).unwrap()
}

/// The scenario id the start page offers first.
pub fn first_offered(start_page: &str) -> String {
    let (_, rest) = start_page
        .split_once("<option value=\"")
        .expect("the picker offers a scenario");
    rest.split('"').next().unwrap().to_string()
}

/// The same game, played by the world's oracle in an environment of the test's own.
pub struct Shadow {
    env: Box<dyn Env + Send>,
    oracle: Box<dyn Agent + Send>,
    pub observation: Observation,
    last: Option<Step>,
    /// What each role has observed so far (`""`: the one role), with its rules.
    pub seen: BTreeMap<String, String>,
    pub over: bool,
}

impl Shadow {
    pub fn new(
        world: &dyn World,
        json: &str,
        seed: u64,
        options: &BTreeMap<String, String>,
    ) -> Shadow {
        let mut env = world.env(json, options).unwrap();
        let mut oracle = world.agent("oracle", json, seed, options).unwrap();
        let observation = env.reset(seed);
        let tools = env.tool_schemas();
        let mut seen = BTreeMap::new();
        if env.roles().is_empty() {
            seen.insert(String::new(), env.system_prompt());
        } else {
            for r in env.roles() {
                seen.insert(r.clone(), env.role_prompt(&r));
            }
        }
        oracle.reset(EpisodeStart::new(seed, &env.system_prompt(), &tools));
        let mut s = Shadow {
            env,
            oracle,
            observation,
            last: None,
            seen,
            over: false,
        };
        s.saw();
        s
    }

    fn role(&self) -> String {
        self.observation.role.clone().unwrap_or_default()
    }

    fn saw(&mut self) {
        let role = self.role();
        let text = self.observation.text.clone();
        self.seen
            .entry(role)
            .or_default()
            .push_str(&format!("\n{text}"));
    }

    /// Whose move it is (`""` in one-role worlds) and the oracle's move, as text.
    pub fn next(&mut self) -> (String, String) {
        let turn = self
            .oracle
            .act(&self.observation, self.last.as_ref())
            .unwrap();
        let text = match &turn.action {
            Action::Text { text } => text.clone(),
            other => panic!("the oracle sent {other:?}; the test types text"),
        };
        (self.role(), text)
    }

    /// Plays `text` as the current role.
    pub fn play(&mut self, text: &str) {
        let role = self.role();
        self.seen
            .entry(role)
            .or_default()
            .push_str(&format!("\n{text}"));
        let step = self.env.step(&Action::text(text)).unwrap();
        self.over = step.terminated || step.truncated;
        self.observation = step.observation.clone();
        self.last = Some(step);
        if !self.over {
            self.saw();
        }
    }

    /// The scenario's secrets.
    pub fn secrets(&self) -> Vec<String> {
        self.env.secrets()
    }
}

/// `body` with minijinja's HTML escapes undone, to look for text as it was written.
pub fn unescape(body: &str) -> String {
    crate::wire::unescape(body)
}

/// Every secret in `body` is one `seen` holds too (a page shows what the seat's agent
/// observed, never more).
pub fn no_leak(body: &str, secrets: &[String], seen: &str, what: &str) {
    let body = unescape(body);
    for s in secrets.iter().filter(|s| s.trim().len() >= 3) {
        assert!(
            !body.contains(s.as_str()) || seen.contains(s.as_str()),
            "{what}: the page shows the secret `{s}`, which the agent has not observed"
        );
    }
}

/// The run directories under `record`.
pub fn run_dirs(record: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(record)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("run.toml").exists())
        .collect();
    dirs.sort();
    dirs
}

/// The episode rows of a run directory.
pub fn episodes(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("episodes.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
