//! The server's state and the three operations every transport shares — reset, step,
//! state — on a session of the table.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use escapade_core::{ScenarioHeader, World};
use escapade_run::RunError;
use escapade_run::remote::{Episode, EpisodeError, GONE, STOPPED, Seen, Spec};
use escapade_run::replay::Fork;
use escapade_run::{AgentFactory, Baseline, PlayOptions};
use serde_json::{Value, json};

use crate::error::ServeError;
use crate::rate::Rate;
use crate::session::{About, Live, Session, Sessions};
use crate::wire::{self, FromParams, ResetParams};

/// The largest picture a client may ask an environment to draw unless the server is
/// told otherwise: 2048 × 2048 pixels (twice craft's default frame; a frame of 8192 ×
/// 8192 takes 200 MB to draw).
pub const MAX_PIXELS: u64 = 2048 * 2048;

/// Descriptors a recording server keeps free: below this many, a reset is refused
/// ([`ServeError::OutOfFiles`]) instead of failing halfway through making a run
/// directory.
pub const FD_RESERVE: u64 = 32;

/// A suite's scenarios, built once (building verifies nothing, but takes a while).
type Built = Arc<tokio::sync::OnceCell<Result<Arc<Vec<String>>, String>>>;

/// Everything the handlers share.
pub struct App {
    /// The worlds served.
    pub worlds: Vec<Arc<dyn World>>,
    /// The session table.
    pub sessions: Sessions,
    /// Where episodes are recorded as run directories.
    pub record: Option<PathBuf>,
    /// Requests per second per client.
    pub rate: Rate,
    /// Largest request body or WebSocket message, in bytes.
    pub max_message: usize,
    /// Largest picture a client may ask for, in pixels ([`MAX_PIXELS`]).
    pub max_pixels: u64,
    suites: Mutex<BTreeMap<String, Built>>,
    /// Sessions being ended by [`App::close`] (taken out of the table, their record not
    /// yet written): [`App::drain`] waits for them too, so that a stop never returns
    /// before every open episode is recorded.
    closing: tokio::sync::watch::Sender<usize>,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field(
                "worlds",
                &self.worlds.iter().map(|w| w.name()).collect::<Vec<_>>(),
            )
            .field("sessions", &self.sessions.len())
            .field("record", &self.record)
            .finish()
    }
}

impl App {
    /// A server's state.
    pub fn new(
        worlds: Vec<Arc<dyn World>>,
        sessions: Sessions,
        record: Option<PathBuf>,
        rate: Rate,
        max_message: usize,
    ) -> App {
        App {
            worlds,
            sessions,
            record,
            rate,
            max_message,
            max_pixels: MAX_PIXELS,
            suites: Mutex::new(BTreeMap::new()),
            closing: tokio::sync::watch::channel(0).0,
        }
    }

    /// This app with another bound on the pictures a client may ask for.
    pub fn with_max_pixels(mut self, max_pixels: u64) -> App {
        self.max_pixels = max_pixels;
        self
    }

    fn world(&self, name: &str) -> Result<Arc<dyn World>, ServeError> {
        self.worlds
            .iter()
            .find(|w| w.name() == name)
            .cloned()
            .ok_or_else(|| {
                let known: Vec<&str> = self.worlds.iter().map(|w| w.name()).collect();
                ServeError::Episode(format!(
                    "no world `{name}` on this server (known: {})",
                    known.join(", ")
                ))
            })
    }

    /// The world that has suite `name`; a retired suite's error names its successor.
    fn suite_world(&self, name: &str) -> Result<Arc<dyn World>, ServeError> {
        for w in &self.worlds {
            if w.suites().iter().any(|s| s.name == name) {
                return Ok(w.clone());
            }
        }
        for w in &self.worlds {
            if let Some(r) = w.retired_suites().into_iter().find(|r| r.name == name) {
                return Err(ServeError::Episode(format!(
                    "suite `{name}` was retired: use `{}` ({})",
                    r.replaced_by, r.why
                )));
            }
        }
        let known: Vec<String> = self
            .worlds
            .iter()
            .flat_map(|w| w.suites().into_iter().map(|s| s.name))
            .collect();
        Err(ServeError::Episode(format!(
            "no suite `{name}` (known: {})",
            known.join(", ")
        )))
    }

    /// The scenarios of suite `name`, built on first use.
    pub async fn suite(
        &self,
        name: &str,
    ) -> Result<(Arc<dyn World>, Arc<Vec<String>>), ServeError> {
        let world = self.suite_world(name)?;
        let cell = self
            .suites
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(name.to_string())
            .or_default()
            .clone();
        let (w, n) = (world.clone(), name.to_string());
        let built = cell
            .get_or_init(|| async move {
                tokio::task::spawn_blocking(move || w.build_suite(&n))
                    .await
                    .map_err(|e| format!("building the suite failed: {e}"))
                    .and_then(|r| r.map(Arc::new).map_err(|e| e.to_string()))
            })
            .await;
        match built {
            Ok(s) => Ok((world, s.clone())),
            Err(e) => Err(ServeError::Episode(e.clone())),
        }
    }

    /// Starts the episode `params` asks for in `session` (replacing one it held: that one
    /// gives up and is recorded); the first observation.
    pub async fn reset(&self, session: &Session, params: ResetParams) -> Result<Value, ServeError> {
        let mut live = session.live.try_lock().map_err(|_| ServeError::Busy)?;
        session.touch();
        let (world, json, suite, index) = match (&params.suite, &params.scenario) {
            (Some(name), None) => {
                let (world, scenarios) = self.suite(name).await?;
                let i = params.index.unwrap_or(0);
                let json = scenarios.get(i).cloned().ok_or_else(|| {
                    ServeError::Episode(format!(
                        "suite `{name}` has {} scenarios (index 0 to {}); no index {i}",
                        scenarios.len(),
                        scenarios.len().saturating_sub(1)
                    ))
                })?;
                (world, json, name.clone(), Some(i))
            }
            (None, Some(scenario)) => {
                if params.index.is_some() {
                    return Err(ServeError::Invalid(
                        "`index` goes with `suite`, not with an inline `scenario`".into(),
                    ));
                }
                let json = match scenario {
                    Value::String(s) => s.clone(),
                    Value::Object(_) => scenario.to_string(),
                    _ => {
                        return Err(ServeError::Invalid(
                            "`scenario` is a scenario's JSON object (or that JSON as a string)"
                                .into(),
                        ));
                    }
                };
                let header = ScenarioHeader::parse(&json)
                    .map_err(|e| ServeError::Episode(format!("not a scenario: {e}")))?;
                (self.world(&header.world)?, json, "inline".to_string(), None)
            }
            (Some(_), Some(_)) => {
                return Err(ServeError::Invalid(
                    "give `suite` (and `index`) or `scenario`, not both".into(),
                ));
            }
            (None, None) => {
                return Err(ServeError::Invalid(
                    "reset needs `suite` (and `index`) or an inline `scenario`".into(),
                ));
            }
        };
        let header = ScenarioHeader::parse(&json)
            .map_err(|e| ServeError::Episode(format!("not a scenario: {e}")))?;
        let partner: Option<(Arc<dyn AgentFactory>, Option<tokio::runtime::Handle>)> =
            match &params.partner {
                Some(kind) => {
                    let b = Baseline::new(world.as_ref(), kind)
                        .map_err(|e| ServeError::Episode(e.to_string()))?;
                    Some((Arc::new(b), None))
                }
                None => None,
            };
        let world_options = params.world_options()?;
        let reward = params.reward()?;
        check_pixels(world.as_ref(), &world_options, self.max_pixels)?;
        if self.record.is_some() && escapade_web::net::fd_headroom().is_some_and(|h| h < FD_RESERVE)
        {
            return Err(ServeError::OutOfFiles);
        }
        let from = match &params.from {
            Some(f) => {
                let fork = self.recorded(f)?;
                fork.fits(world.name(), &header.id, &world_options)
                    .map_err(|e| ServeError::Episode(e.to_string()))?;
                Some(Arc::new(fork))
            }
            None => None,
        };
        let seed = match &from {
            Some(fork) => fork.seed,
            None => params.seed.unwrap_or(0),
        };
        let mut participants = BTreeMap::new();
        if let Some(p) = &params.participant {
            let seat = params.role.clone().unwrap_or_else(|| "agent".into());
            participants.insert(seat, p.clone());
        }
        let options = PlayOptions {
            seed,
            max_steps: params.max_steps.unwrap_or(PlayOptions::default().max_steps),
            record: self.record.clone(),
            suite: suite.clone(),
            source: suite.clone(),
            role: params.role.clone(),
            world_options,
            participants,
            reasks: params.reasks()?,
            from,
            ..PlayOptions::default()
        };
        let about = About {
            episode_id: params
                .episode_id
                .clone()
                .unwrap_or_else(|| format!("{}-{}", header.id, &session.id[..8])),
            world: world.name().to_string(),
            suite,
            index,
            scenario: header.id.clone(),
            seed,
            role: params.role.clone(),
            partner: params.partner.clone(),
            reward: reward.name(),
        };
        // the old episode gives up and is recorded in the background; a stop waits for it
        if let Some(old) = live.take() {
            self.retire(old);
        }
        let spec = Spec {
            world,
            json,
            options,
            partner,
        };
        let episode = Episode::start(spec).await.map_err(start_error)?;
        let result = wire::result(episode.seen(), None, Some(episode.rules()), 0);
        let standing = wire::standing(&result);
        *live = Some(Live {
            episode,
            about,
            standing,
            reward,
            steps: 0,
        });
        session.touch();
        Ok(result)
    }

    /// The recorded episode a reset's `from` names, read from this server's record
    /// directory only; its errors name the run by its name, never by a path.
    fn recorded(&self, from: &FromParams) -> Result<Fork, ServeError> {
        let Some(record) = &self.record else {
            return Err(ServeError::Invalid(
                "`from` replays a run this server recorded, and it records none (start it \
                 with --record DIR)"
                    .into(),
            ));
        };
        let name = from.run_name()?;
        let dir = record.join(name);
        if !dir.join("run.toml").is_file() {
            return Err(ServeError::Episode(format!(
                "this server recorded no run `{name}`"
            )));
        }
        let (scenario, epoch) = escapade_run::replay::parse_episode(&from.episode);
        Fork::open(&dir, scenario, epoch, from.step, true).map_err(|e| {
            let mut text = e.to_string();
            for path in [Some(dir.clone()), std::fs::canonicalize(&dir).ok()]
                .into_iter()
                .flatten()
            {
                text = text.replace(&path.display().to_string(), name);
            }
            ServeError::Episode(text)
        })
    }

    /// Plays one action in `session`; what the client sees next. A step in progress holds
    /// the session: a second one is [`ServeError::Busy`].
    pub async fn step(&self, session: &Session, action: &Value) -> Result<Value, ServeError> {
        let mut guard = session.live.try_lock().map_err(|_| ServeError::Busy)?;
        let live = guard.as_mut().ok_or(ServeError::NoEpisode)?;
        let action = wire::action(action)?;
        if live.episode.is_over() {
            return Err(ServeError::Over);
        }
        let before = live.standing;
        let seen = live.episode.act(action).await.map_err(|e| match e {
            EpisodeError::Over => ServeError::Over,
            _ => ServeError::Over,
        })?;
        let counted = !matches!(seen, Seen::Turn(t) if t.unreadable.is_some());
        if counted {
            live.steps += 1;
        }
        let mut result = wire::result(seen, Some(before.progress), None, live.steps);
        let now = wire::standing(&result);
        result["reward"] = json!(live.reward.of(before, now));
        live.standing = now;
        session.touch();
        Ok(result)
    }

    /// The session's state (OpenEnv `State`: `episode_id`, `step_count`, and escapade's
    /// fields). Never ground truth: where the episode came from and how it stands.
    pub fn state(&self, session: &Session) -> Result<Value, ServeError> {
        let guard = session.live.try_lock().map_err(|_| ServeError::Busy)?;
        session.touch();
        let Some(live) = guard.as_ref() else {
            return Ok(json!({"episode_id": null, "step_count": 0, "session_id": session.id}));
        };
        let mut state = serde_json::to_value(&live.about).unwrap_or_default();
        let (done, ending) = match live.episode.seen() {
            Seen::Turn(t) => (false, json!({"role": t.observation.role})),
            Seen::Over(e) => (
                true,
                json!({"success": e.success, "terminated": e.terminated,
                       "truncated": e.truncated, "metrics": e.metrics, "episode_error": e.error,
                       "run_dir": e.dir.as_ref().and_then(|d| d.file_name())
                           .map(|n| n.to_string_lossy().into_owned())}),
            ),
        };
        let obj = state.as_object_mut().expect("About is an object");
        obj.insert("step_count".into(), json!(live.steps));
        obj.insert("progress".into(), json!(live.standing.progress));
        obj.insert("done".into(), json!(done));
        obj.insert("roles".into(), json!(live.episode.roles()));
        obj.insert("session_id".into(), json!(session.id));
        if let Value::Object(extra) = ending {
            obj.extend(extra);
        }
        Ok(state)
    }

    /// Runs `ending` (an episode giving up and being recorded) on a task of its own,
    /// counted as closing until it is done, so that [`App::drain`] (a stop) waits for
    /// it: a reset's replaced episode and a reaped session's are never cut off by the
    /// process exiting.
    fn end_in_background(&self, ending: impl Future<Output = ()> + Send + 'static) {
        let closing = Closing::new(&self.closing);
        tokio::spawn(async move {
            ending.await;
            drop(closing);
        });
    }

    /// Gives `old` up and records it in the background (a stop waits for it).
    fn retire(&self, old: Live) {
        self.end_in_background(async move {
            old.episode
                .give_up_because("the client reset the session before the episode ended")
                .await;
        });
    }

    /// Removes the sessions idle past the timeout; each episode gives up and is recorded
    /// in the background (a stop waits for it). How many were removed.
    pub fn reap(&self) -> usize {
        let reaped = self.sessions.reap();
        for session in &reaped {
            // `finish` waits for a request that took the session after the table let go
            let session = session.clone();
            self.end_in_background(async move { finish(&session, GONE).await });
        }
        reaped.len()
    }

    /// Ends a session: its episode gives up (when not over) and is recorded; waits for the
    /// record. `false` when there was no such session.
    pub async fn close(&self, id: &str) -> bool {
        self.close_because(id, GONE).await
    }

    /// [`App::close`], the episode ending with the error `why` when it is not over.
    pub async fn close_because(&self, id: &str, why: &str) -> bool {
        // counted before the session leaves the table, uncounted even if this is cancelled
        let _closing = Closing::new(&self.closing);
        match self.sessions.close(id) {
            Some(session) => {
                finish(&session, why).await;
                true
            }
            None => false,
        }
    }

    /// Shuts down: every session's step in progress finishes, then its episode gives up
    /// ([`STOPPED`]: the server stopped, not the client) and is recorded.
    pub async fn drain(&self) {
        let ending: Vec<_> = self
            .sessions
            .drain()
            .into_iter()
            .map(|session| async move { finish(&session, STOPPED).await })
            .collect();
        futures::future::join_all(ending).await;
        // a connection that saw the stop first may be ending its own session
        let _ = self.closing.subscribe().wait_for(|n| *n == 0).await;
    }
}

/// One episode being ended outside the session table ([`App::close`], a replaced or
/// reaped episode), counted while it lives.
struct Closing(tokio::sync::watch::Sender<usize>);

impl Closing {
    fn new(count: &tokio::sync::watch::Sender<usize>) -> Self {
        count.send_modify(|n| *n += 1);
        Closing(count.clone())
    }
}

impl Drop for Closing {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n -= 1);
    }
}

/// Waits for a step in progress, then gives the episode up (its error `why`) and waits
/// for its record.
async fn finish(session: &Session, why: &str) {
    let live = session.live.lock().await.take();
    if let Some(live) = live {
        live.episode.give_up_because(why).await;
    }
}

/// Refuses world options that make an environment draw pictures larger than `max`
/// pixels (a client chooses craft's frame size; 8192 × 8192 is 200 MB a frame).
pub fn check_pixels(
    world: &dyn World,
    options: &BTreeMap<String, String>,
    max: u64,
) -> Result<(), ServeError> {
    let pixels = world
        .frame_pixels(options)
        .map_err(|e| ServeError::Episode(e.to_string()))?;
    match pixels {
        Some(p) if p > max => Err(ServeError::Invalid(format!(
            "these world options make pictures of {p} pixels; this server draws at most {max} \
             (for example 2048 × 2048): ask for a smaller width × height"
        ))),
        _ => Ok(()),
    }
}

/// An episode that could not start, as the client hears it: without the server's paths,
/// and out of descriptors as [`ServeError::OutOfFiles`].
fn start_error(e: RunError) -> ServeError {
    let out_of_files = matches!(&e, RunError::Io { source, .. }
        if matches!(source.raw_os_error(), Some(23 | 24)));
    if out_of_files {
        eprintln!("escapade serve: cannot record an episode: {e}");
        return ServeError::OutOfFiles;
    }
    ServeError::Episode(e.public())
}
