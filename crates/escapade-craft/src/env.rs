//! `CraftEnv`: a craft scenario played through the [`Env`] contract.
//!
//! Why: this is where MM-Escape's rules live (§3.2–3.3, App. C.1.2). The state is the
//! agent's body (floor position, heading, tilt), its bag, what each room's props and
//! doors are doing ([`WorldState`]), the current room and the step count. The
//! observation is the interaction result and the bag (Table 14) plus one first-person
//! frame from the ray caster with its red centre dot and an alt text. Opening the exit of
//! the last room ends the episode (terminated); the step cap (50 / 75 / 100 for one to
//! three hops, 25 more per further hop, 80 with two rooms; §4) truncates it.
//!
//! **One reply, several keys** (the original client, `Game.get_action`): the keys are
//! taken in the order the reply wrote them. `grab` (with its `interactions`) and `read`
//! act at once, on the pose the reply started from — the frame the agent was shown;
//! `look_at`, `rotate_right`, `rotate_down`, `move_forward` and `jump` are gathered into
//! one motion that is carried out, in the written order, after the whole reply has been
//! read (the original sends them to the engine as one action after its loop). A grab
//! that leaves the room drops the gathered motion: the next room starts at its own
//! start pose.
//!
//! **Feedback** ([`Feedback::Original`], the default): the original client's level of
//! information, in our words. A move or turn says only that it happened; a grab that
//! reaches nothing says one of two things — something you can interact with is in view
//! but did not respond (step closer), or nothing you can interact with is in view (or it
//! is too far) — and never names what is under the dot; things that are not part of the
//! escape "provide no information" (App. C.1.2); a locked box or door says what kind of
//! thing opens it (a key or a code, C.1.2 "Locked Props"); a held note lists its
//! numbers in the bag, as the original's bag does. [`Feedback::Detailed`] is
//! escapade's earlier wording: distances walked and what stopped the walk, turns in
//! degrees, what lies under the dot and how far, the code's length, what to do instead.
//!
//! Grab rule ([`GrabRule::Dot`], the default, Table 13's `grab`): the agent acts on the
//! object the centre ray hits, if it lies within [`REACH`] on the floor plane.
//! [`GrabRule::Original`] reproduces the original implementation instead: every key or
//! note in the field of view within 4 m is taken, else the nearest box or door there is
//! acted on.

use std::collections::BTreeSet;
use std::sync::Arc;

use escapade_core::env::Outcome;
use escapade_core::{
    Action, Env, EnvError, Image, Observation, PictureForm, Pixels, Step, ToolSchema,
};
use escapade_render::scene::Vec3;
use escapade_render::{FrameOptions, Prepared};

use crate::action::{CraftAction, Key, parse_action};
use crate::chain::{NoteLine, PropKind, Unlock};
use crate::motion::{Body, Obstacles};
use crate::room::{DoorRole, REACH, Room};
use crate::scenario::CraftScenario;
use crate::scene::{RoomState, Thing, WorldState};
use crate::tally::{Facts, Tally};
use crate::{CraftError, interface};

/// Re-asks after an unreadable reply before it is stepped anyway (App. K: 5).
pub const REASK_LIMIT: u32 = 5;
/// How far the original's grab rule reaches, metres on the floor plane.
pub const ORIGINAL_GRAB_RANGE: f32 = 4.0;
/// How close a wall pattern must be under the dot for its digits to count as seen.
pub const PATTERN_RANGE: f32 = 3.5;

/// Which objects a grab acts on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum GrabRule {
    /// The object under the red dot, within [`REACH`] (escapade's rule).
    #[default]
    Dot,
    /// The original's: every key or note in view within [`ORIGINAL_GRAB_RANGE`], else
    /// the nearest box or door in view there (for comparisons with its numbers).
    Original,
}

/// How much the feedback after each reply tells (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Feedback {
    /// The original client's level of information (App. C.1.2; `Game.get_action`).
    #[default]
    Original,
    /// escapade's earlier, more talkative feedback: distances, blockers, what is under
    /// the dot, the code's length, hints on what to do.
    Detailed,
}

/// Which system and step prompt the agent gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PromptStyle {
    /// MM-Escape's prompts (App. K, Tables 13–14) in our words, plus one sentence on how
    /// the keys of one reply are taken.
    #[default]
    Paper,
    /// The paper's prompt plus escapade's help: where props may lie, how far a grab
    /// reaches, what opening a box does, how to read a note, and the steps left.
    Helpful,
}

/// What happens when a reply that cannot be read reaches the environment (after the
/// agent loop's re-asks are used up).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Unreadable {
    /// The game stops there (the original: after `max_retry` = 5 failed re-asks the game
    /// ends, `Game.main`).
    #[default]
    End,
    /// The reply counts as one invalid step and the game goes on.
    Step,
}

/// How an environment draws and judges.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnvOptions {
    /// Frame width in pixels (default 2048, the original's).
    pub width: u32,
    /// Frame height in pixels (default 1024, the original's).
    pub height: u32,
    /// Whether observations carry a frame. Without frames the rules are the same (aiming
    /// uses the same rays); verification and the oracle turn them off for speed.
    pub frames: bool,
    /// Threads per frame (1: the calling thread; 0: one per core).
    pub threads: usize,
    /// Vertical field of view, degrees (default 120, the original's: see
    /// [`crate::room::DEFAULT_FOV`]); the picture's horizontal angle follows from the
    /// frame's shape ([`EnvOptions::horizontal_fov`]).
    pub fov: f32,
    /// The grab rule.
    pub grab: GrabRule,
    /// Two-room games start in the second room, the first shown as a successful escape
    /// (MM-Escape Table 3's bootstrapped setting, the default; off: App. F's fully
    /// autonomous one).
    pub bootstrap: bool,
    /// How much the feedback tells.
    pub feedback: Feedback,
    /// Which prompts the agent gets.
    pub prompt: PromptStyle,
    /// What an unreadable reply does.
    pub unreadable: Unreadable,
}

impl Default for EnvOptions {
    fn default() -> Self {
        EnvOptions {
            width: crate::room::DEFAULT_WIDTH,
            height: crate::room::DEFAULT_HEIGHT,
            frames: true,
            threads: 1,
            fov: crate::room::DEFAULT_FOV,
            grab: GrabRule::Dot,
            bootstrap: true,
            feedback: Feedback::Original,
            prompt: PromptStyle::Paper,
            unreadable: Unreadable::End,
        }
    }
}

/// The `-W key=value` options of the craft world, with what each sets.
pub const OPTION_KEYS: [(&str, &str); 10] = [
    (
        "width",
        "frame width in pixels (default 2048, the original's)",
    ),
    (
        "height",
        "frame height in pixels (default 1024, the original's)",
    ),
    (
        "fov",
        "vertical field of view in degrees (default 120, the original's Unity camera; 147.8 across a 2:1 frame)",
    ),
    (
        "threads",
        "threads drawing each frame (default 1; 0: one per core)",
    ),
    (
        "frames",
        "on | off: send a frame with each observation (default on)",
    ),
    (
        "grab",
        "dot | original: the object under the red dot within reach (default), or the original's every key or note in view within 4 m",
    ),
    (
        "bootstrap",
        "on | off: two-room games start in room 2 with a successful escape from room 1 shown (default, Table 3), or play both rooms (App. F)",
    ),
    (
        "feedback",
        "original | detailed: the original client's level of information (default), or escapade's detailed feedback (distances, what is under the dot, lock details)",
    ),
    (
        "prompt",
        "paper | helpful: the prompts of Tables 13-14 (default), or with escapade's help and the steps left",
    ),
    (
        "unreadable",
        "end | step: a reply still unreadable after the re-asks ends the game (default, as the original), or counts as one invalid step",
    ),
];

/// The sentence that opens a bootstrapped episode's first observation (the oracle
/// agent recognises it and skips the first room too).
pub const BOOTSTRAP_NOTE: &str = "You have already escaped the first room.";

/// What a reply that moved, turned or jumped is told (the original: "Successfully
/// moved."), whatever the walk met.
pub const MOVED: &str = "You moved.";
/// What a reply with `look_at` is told (the original: "View moved.").
pub const VIEW_MOVED: &str = "Your view moved.";
/// Added when a reply acted on nothing (the original: "You did not interact with any
/// objects in the last step.").
pub const NO_INTERACTION: &str = "You did not interact with anything.";
/// What a reply that did nothing at all is told (the original: "The last time your
/// action environment was not responsive.").
pub const UNRESPONSIVE: &str = "Nothing responded to your last reply.";
/// A grab that reached nothing while something one can interact with is in view (the
/// first of the original's two failure messages).
pub const GRAB_NO_RESPONSE: &str = "You tried to interact with something in view, but \
nothing responded. Try stepping closer to it; if it still does not respond from close by, \
it may not be something you can use, so look elsewhere in the room.";
/// A grab with nothing one can interact with in view (the second).
pub const GRAB_NOTHING: &str = "Your interaction got no response: nothing you can \
interact with is in view, or you are too far away from it.";
/// What ends the game when a reply still cannot be read after the re-asks
/// ([`Unreadable::End`]).
pub const UNREADABLE_END: &str = "No readable action came after the re-asks, so the game \
stops here.";

/// Which lockable thing a lock belongs to (for its messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lockable {
    Box,
    Exit,
}

impl Lockable {
    fn name(self) -> &'static str {
        match self {
            Lockable::Box => "the box",
            Lockable::Exit => "the door",
        }
    }
}

impl EnvOptions {
    /// These options with `key=value` pairs applied (keys of [`OPTION_KEYS`]).
    ///
    /// # Errors
    /// [`escapade_core::CoreError::UnknownOption`] for a key not in [`OPTION_KEYS`],
    /// [`escapade_core::CoreError::BadOption`] for a value out of range.
    pub fn with(
        mut self,
        options: &escapade_core::Options,
    ) -> Result<EnvOptions, escapade_core::CoreError> {
        for (key, value) in options {
            let Some((_, help)) = OPTION_KEYS.iter().find(|(k, _)| k == key) else {
                return Err(escapade_core::options::unknown(key, &OPTION_KEYS));
            };
            let bad = || escapade_core::options::bad(key, value, *help);
            let number = || value.trim().parse::<u32>().map_err(|_| bad());
            const ON_OFF: [(&str, bool); 4] = [
                ("on", true),
                ("true", true),
                ("off", false),
                ("false", false),
            ];
            match key.as_str() {
                "width" => {
                    self.width = number().and_then(|w| {
                        if (16..=8192).contains(&w) {
                            Ok(w)
                        } else {
                            Err(bad())
                        }
                    })?
                }
                "height" => {
                    self.height = number().and_then(|h| {
                        if (16..=8192).contains(&h) {
                            Ok(h)
                        } else {
                            Err(bad())
                        }
                    })?
                }
                "threads" => {
                    self.threads =
                        number().and_then(|t| if t <= 16 { Ok(t as usize) } else { Err(bad()) })?
                }
                "fov" => {
                    self.fov = value
                        .trim()
                        .parse::<f32>()
                        .ok()
                        .filter(|f| (10.0..=170.0).contains(f))
                        .ok_or_else(bad)?
                }
                "frames" => self.frames = choose(value, &ON_OFF, bad)?,
                "grab" => {
                    self.grab = choose(
                        value,
                        &[("dot", GrabRule::Dot), ("original", GrabRule::Original)],
                        bad,
                    )?
                }
                "bootstrap" => self.bootstrap = choose(value, &ON_OFF, bad)?,
                "feedback" => {
                    self.feedback = choose(
                        value,
                        &[
                            ("original", Feedback::Original),
                            ("detailed", Feedback::Detailed),
                        ],
                        bad,
                    )?
                }
                "prompt" => {
                    self.prompt = choose(
                        value,
                        &[
                            ("paper", PromptStyle::Paper),
                            ("helpful", PromptStyle::Helpful),
                        ],
                        bad,
                    )?
                }
                "unreadable" => {
                    self.unreadable = choose(
                        value,
                        &[("end", Unreadable::End), ("step", Unreadable::Step)],
                        bad,
                    )?
                }
                _ => return Err(escapade_core::options::unknown(key, &OPTION_KEYS)),
            }
        }
        Ok(self)
    }

    /// The horizontal field of view of the frames, degrees: [`EnvOptions::fov`] is the
    /// vertical angle, as Unity's camera has it.
    pub fn horizontal_fov(&self) -> f32 {
        escapade_render::horizontal_fov(self.fov, self.width.max(2), self.height.max(2))
    }

    /// Small frames (256 × 128), for tests.
    pub fn small() -> EnvOptions {
        EnvOptions {
            width: 256,
            height: 128,
            ..EnvOptions::default()
        }
    }

    /// The same options without frames.
    pub fn without_frames(self) -> EnvOptions {
        EnvOptions {
            frames: false,
            ..self
        }
    }
}

/// The step cap of a scenario (§4): 50 / 75 / 100 for one / two / three hops, 25 more per
/// further hop; 80 for two rooms.
pub fn step_cap(s: &CraftScenario) -> u32 {
    if s.rooms.len() > 1 {
        80
    } else {
        50 + 25 * s.difficulty.saturating_sub(1)
    }
}

/// The craft environment. See the module docs.
pub struct CraftEnv {
    scenario: Arc<CraftScenario>,
    options: EnvOptions,
    obstacles: Vec<Obstacles>,
    cap: u32,
    optimal_distance: f32,
    secrets: Vec<String>,
    collectible: usize,
    lockables: usize,
    // episode state
    started: bool,
    over: bool,
    pub(crate) room: usize,
    pub(crate) body: Body,
    pub(crate) bag: Vec<String>,
    pub(crate) known: BTreeSet<String>,
    pub(crate) world: WorldState,
    escaped: bool,
    tally: Tally,
    cache: Option<(usize, RoomState, Arc<Prepared>)>,
    /// The first room the agent plays (1 when bootstrapped past room 1): metrics and
    /// progress count rooms from here (Table 3: "prop gain refers only to room 2").
    first_room: usize,
    /// Metres the bootstrap walked in room 1 (taken off the optimal distance).
    walked_for_agent: f32,
    /// The oracle's distance from the current state (issue 29), computed at reset and
    /// after every step by [`crate::baseline::oracle::Probe::steps_to_go`]; `None` in
    /// the oracle's own shadow copies, which do not measure it.
    to_go: Option<u32>,
    /// The shadow copy and plan that distance is measured with (`None` in shadows).
    probe: Option<Box<crate::baseline::oracle::Probe>>,
    /// Frames as the renderer's pixels, not PNG ([`Env::set_picture_form`]): the Python
    /// Gymnasium env's arrays, without encoding a file only to decode it again.
    pixels: bool,
    /// Whether [`CraftEnv::measure`] replans ([`Env::set_distance`]): off, `to_go` is
    /// `None` and a step costs the frame alone (the probe is kept for turning it on).
    distance: bool,
}

impl CraftEnv {
    /// An environment on `scenario`. Its optimal distance (Table 8) is measured by
    /// playing the oracle once.
    ///
    /// # Errors
    /// [`CraftError::InvalidChain`] when the scenario does not validate;
    /// [`CraftError::Render`] when a room's scene cannot be prepared.
    pub fn new(scenario: Arc<CraftScenario>, options: EnvOptions) -> Result<CraftEnv, CraftError> {
        let mut env = CraftEnv::bare(scenario, options)?;
        env.optimal_distance = crate::baseline::oracle::optimal_distance(&env.scenario, &options)?;
        env.probe = Some(Box::new(crate::baseline::oracle::Probe::new(
            env.scenario.clone(),
            options,
        )?));
        Ok(env)
    }

    /// An environment without the optimal-distance measurement (the oracle's own
    /// shadow copy).
    pub(crate) fn bare(
        scenario: Arc<CraftScenario>,
        options: EnvOptions,
    ) -> Result<CraftEnv, CraftError> {
        scenario.validate()?;
        let obstacles = scenario.rooms.iter().map(Obstacles::of).collect();
        let mut secrets = BTreeSet::new();
        let mut shown = BTreeSet::new();
        let (mut collectible, mut lockables) = (0, 0);
        for room in &scenario.rooms {
            collectible += room.chain.collectible_count();
            lockables += 1;
            for p in &room.chain.props {
                match &p.kind {
                    PropKind::Note { lines } => {
                        for l in lines {
                            if let NoteLine::Password { password }
                            | NoteLine::Image {
                                password: Some(password),
                                ..
                            } = l
                                && let Some(d) = room.chain.digits(password)
                            {
                                secrets.insert(d.to_string());
                            }
                        }
                    }
                    PropKind::WallPattern { password } => {
                        if let Some(d) = room.chain.digits(password) {
                            shown.insert(d.to_string());
                        }
                    }
                    PropKind::Box { .. } => lockables += 1,
                    _ => {}
                }
            }
        }
        let first = scenario
            .rooms
            .first()
            .ok_or_else(|| CraftError::InvalidChain {
                room: None,
                reason: "a scenario needs a room".into(),
            })?;
        let mut env = CraftEnv {
            cap: step_cap(&scenario),
            body: Body::start(first),
            world: WorldState::start(&scenario),
            scenario,
            options,
            obstacles,
            optimal_distance: 0.0,
            secrets: secrets.difference(&shown).cloned().collect(),
            collectible,
            lockables,
            started: false,
            over: false,
            room: 0,
            bag: Vec::new(),
            known: BTreeSet::new(),
            escaped: false,
            tally: Tally::default(),
            cache: None,
            first_room: 0,
            walked_for_agent: 0.0,
            to_go: None,
            probe: None,
            pixels: false,
            distance: true,
        };
        env.prepared()?;
        Ok(env)
    }

    /// The scenario being played.
    pub fn scenario(&self) -> &CraftScenario {
        &self.scenario
    }

    /// The scenario, shared.
    pub(crate) fn scenario_arc(&self) -> &Arc<CraftScenario> {
        &self.scenario
    }

    /// Metres walked so far this episode.
    pub(crate) fn distance(&self) -> f32 {
        self.tally.distance
    }

    /// The options it was opened with.
    pub fn options(&self) -> &EnvOptions {
        &self.options
    }

    /// The step cap of this episode.
    pub fn cap(&self) -> u32 {
        self.cap
    }

    /// The same environment without the oracle's distance: [`Env::steps_to_go`] answers
    /// `None` and no step pays for replanning (the bench measures the two apart).
    #[must_use]
    pub fn without_distance(mut self) -> CraftEnv {
        self.probe = None;
        self.to_go = None;
        self
    }

    /// Copies the episode state of `from` (same scenario) into this environment, which
    /// then plays on from there: how the oracle replans from an agent's state.
    pub(crate) fn copy_state(&mut self, from: &CraftEnv) {
        self.started = true;
        self.over = false;
        self.room = from.room;
        self.body = from.body;
        self.bag.clone_from(&from.bag);
        self.known.clone_from(&from.known);
        self.world.clone_from(&from.world);
        self.escaped = from.escaped;
        self.tally.clone_from(&from.tally);
        self.first_room = from.first_room;
        self.walked_for_agent = from.walked_for_agent;
    }

    /// Measures the oracle's distance from the current state (see [`Env::steps_to_go`]).
    fn measure(&mut self) {
        if !self.distance {
            self.to_go = None;
            return;
        }
        if let Some(mut probe) = self.probe.take() {
            self.to_go = probe.steps_to_go(self);
            self.probe = Some(probe);
        }
    }

    /// Where the agent stands and looks, and in which room (for tests and viewers; never
    /// shown to the agent).
    pub fn pose(&self) -> (usize, Body) {
        (self.room, self.body)
    }

    /// The ids in the bag, in the order they were obtained.
    pub fn bag(&self) -> &[String] {
        &self.bag
    }

    /// The obstacles of room `room`.
    pub(crate) fn obstacles(&self, room: usize) -> &Obstacles {
        &self.obstacles[room]
    }

    fn room_ref(&self) -> &Room {
        &self.scenario.rooms[self.room]
    }

    /// The current room's scene, prepared for rays (rebuilt when its state changes).
    pub(crate) fn prepared(&mut self) -> Result<Arc<Prepared>, CraftError> {
        let state = self.world.rooms[self.room].clone();
        if let Some((r, s, p)) = &self.cache
            && *r == self.room
            && *s == state
        {
            return Ok(p.clone());
        }
        let scene = self.scenario.scene(self.room, &self.world)?;
        let prepared = Arc::new(Prepared::new(&scene)?);
        self.cache = Some((self.room, state, prepared.clone()));
        Ok(prepared)
    }

    /// What the centre ray of `body` hits in the current room: the thing and its
    /// distance along the ray.
    pub(crate) fn probe(&mut self, body: &Body) -> Option<(Thing, f32)> {
        let prepared = self.prepared().ok()?;
        let (w, h) = (self.options.width.max(2), self.options.height.max(2));
        let hit = prepared.pick(
            &body.camera(self.options.horizontal_fov()),
            w as f32 / 2.0,
            h as f32 / 2.0,
            w,
            h,
        )?;
        let thing = self.scenario.what(self.room, hit.id?)?;
        Some((thing, hit.distance))
    }

    /// The floor point a thing is reached at (a prop's centre, a door's middle), if it
    /// can be acted on at all.
    pub(crate) fn anchor(&self, thing: &Thing) -> Option<(f32, f32)> {
        let room = self.room_ref();
        match thing {
            Thing::Prop { id } => room.placed(id).map(|p| (p.position[0], p.position[2])),
            Thing::Door { role } => room
                .doors
                .iter()
                .find(|d| d.role == *role)
                .map(|d| d.anchor(room.width, room.depth).0),
            _ => None,
        }
    }

    /// Horizontal distance from `body` to a thing's anchor.
    pub(crate) fn reach_of(&self, body: &Body, thing: &Thing) -> Option<f32> {
        let (x, z) = self.anchor(thing)?;
        let (dx, dz) = (x - body.x, z - body.z);
        Some(libm::sqrtf(dx * dx + dz * dz))
    }

    /// A short description of a thing for feedback and alt text (never its secrets).
    fn describe(&self, thing: &Thing) -> String {
        let room = self.room_ref();
        match thing {
            Thing::Door { .. } => "a door".into(),
            Thing::Wall { wall } => format!("the {} wall", wall.name()),
            Thing::Floor => "the floor".into(),
            Thing::Ceiling => "the ceiling".into(),
            Thing::Furniture { kind, .. } => format!("the {}", kind.label()),
            Thing::Prop { id } => match room.chain.prop(id).map(|p| &p.kind) {
                Some(PropKind::Key { .. }) => "a key".into(),
                Some(PropKind::Note { .. }) => "a note".into(),
                Some(PropKind::Box { lock, .. }) => {
                    if self.world.rooms[self.room].opened.contains(id) {
                        "an open, empty box".into()
                    } else {
                        match lock {
                            Unlock::Password { .. } => "a wooden box with a keypad".into(),
                            Unlock::Key { .. } => "a wooden box with a keyhole".into(),
                            Unlock::Interact => "a wooden box".into(),
                        }
                    }
                }
                Some(PropKind::WallPattern { password }) => {
                    // the numerals are legible (in a frame, so in words) only up close,
                    // where seeing them counts as learning the code
                    let near = self
                        .reach_of(&self.body, thing)
                        .is_some_and(|d| d <= PATTERN_RANGE);
                    match room.chain.digits(password) {
                        Some(digits) if near => {
                            format!("a panel of coloured tiles showing the numerals {digits}")
                        }
                        _ => "a panel of coloured tiles with numerals too small to read from \
                              here"
                            .into(),
                    }
                }
                _ => "something".into(),
            },
        }
    }

    /// What an item in the bag is, for the bag list. A note shows the numbers written on
    /// it, as the original's bag does ("A paper written a string of numbers …"); its
    /// story takes a `read`.
    fn item_line(&self, id: &str) -> String {
        let prop = self
            .scenario
            .rooms
            .iter()
            .find_map(|r| r.chain.prop(id).map(|p| (r, p)));
        match prop.map(|(r, p)| (r, &p.kind)) {
            Some((_, PropKind::Key { .. })) => format!("- {id}: a key"),
            Some((room, PropKind::Note { lines })) => {
                let mut written: Vec<String> = Vec::new();
                for l in lines {
                    let w = match l {
                        NoteLine::Password { password } => {
                            format!("the numbers {}", room.chain.digits(password).unwrap_or("?"))
                        }
                        NoteLine::Story { .. } => "a story".to_string(),
                        NoteLine::Image { .. } => "a picture".to_string(),
                    };
                    if !written.contains(&w) {
                        written.push(w);
                    }
                }
                let on = if written.is_empty() {
                    "a note".to_string()
                } else {
                    format!("a note with {} on it", written.join(" and "))
                };
                let hint = if self.options.prompt == PromptStyle::Helpful {
                    format!(" (read it with \"read\": \"{id}\")")
                } else {
                    String::new()
                };
                format!("- {id}: {on}{hint}")
            }
            _ => format!("- {id}"),
        }
    }

    fn bag_text(&self) -> String {
        if self.bag.is_empty() {
            "Your bag is empty.".into()
        } else {
            let lines: Vec<String> = self.bag.iter().map(|i| self.item_line(i)).collect();
            lines.join("\n")
        }
    }

    fn progress(&self) -> f64 {
        let opened: usize = self.world.rooms[self.first_room..]
            .iter()
            .map(|r| r.opened.len() + usize::from(r.exit_open))
            .sum();
        let (collectible, lockables) = self.counted();
        let total = collectible + lockables;
        if total == 0 {
            return 0.0;
        }
        let got = self.collected() + opened;
        (got as f64 / total as f64).min(1.0)
    }

    /// Keys and notes, and lockable things (boxes, exits), of the rooms the agent plays.
    fn counted(&self) -> (usize, usize) {
        if self.first_room == 0 {
            return (self.collectible, self.lockables);
        }
        self.scenario.rooms[self.first_room..]
            .iter()
            .fold((0, 0), |(c, l), r| {
                let boxes = r
                    .chain
                    .props
                    .iter()
                    .filter(|p| matches!(p.kind, PropKind::Box { .. }))
                    .count();
                (c + r.chain.collectible_count(), l + 1 + boxes)
            })
    }

    fn collected(&self) -> usize {
        self.bag
            .iter()
            .filter(|id| {
                self.scenario.rooms[self.first_room..].iter().any(|r| {
                    r.chain.prop(id).is_some_and(|p| {
                        matches!(p.kind, PropKind::Key { .. } | PropKind::Note { .. })
                    })
                })
            })
            .count()
    }

    /// Puts a prop in the bag and records the Table 4 milestones. A note's numbers are
    /// known from then on: the bag lists them (as the original's does).
    fn obtain(&mut self, id: &str) {
        if self.bag.iter().any(|b| b == id) {
            return;
        }
        self.bag.push(id.to_string());
        let kind = self.room_ref().chain.prop(id).map(|p| p.kind.clone());
        match kind {
            Some(PropKind::Key { .. }) => {
                let step = self.tally.steps;
                self.tally.step_key.get_or_insert(step);
                self.tally.step_last_prop = Some(step);
            }
            Some(PropKind::Note { lines }) => {
                for l in &lines {
                    if let NoteLine::Password { password } = l {
                        self.learn(password);
                    }
                }
            }
            _ => {}
        }
    }

    /// Learns a password (from a note read or a pattern seen).
    fn learn(&mut self, password: &str) {
        if self.known.insert(password.to_string()) {
            let step = self.tally.steps;
            self.tally.step_password.get_or_insert(step);
            self.tally.step_last_prop = Some(step);
        }
    }

    /// The text of a note, learning the passwords on it.
    fn read_note(&mut self, id: &str) -> Option<String> {
        let room = self
            .scenario
            .rooms
            .iter()
            .find(|r| r.chain.prop(id).is_some())?;
        let Some(PropKind::Note { lines }) = room.chain.prop(id).map(|p| p.kind.clone()) else {
            return None;
        };
        let chain = room.chain.clone();
        let mut out = Vec::new();
        for line in &lines {
            match line {
                NoteLine::Password { password } => {
                    let digits = chain.digits(password).unwrap_or("?");
                    out.push(format!("A code is written on it: {digits}."));
                    self.learn(password);
                }
                NoteLine::Story { text } => out.push(text.clone()),
                NoteLine::Image { password, .. } => match password {
                    Some(p) => {
                        let digits = chain.digits(p).unwrap_or("?");
                        out.push(format!("It holds a picture showing the digits {digits}."));
                        self.learn(p);
                    }
                    None => out.push("It holds a picture.".into()),
                },
            }
        }
        Some(format!("You read {id}. {}", out.join(" ")))
    }

    /// Applies a parsed action; returns the feedback lines. See the module docs for the
    /// order: `grab` and `read` at once on the pose the reply started from, the motions
    /// gathered and carried out afterwards in the order written.
    fn apply(&mut self, a: &CraftAction) -> Vec<String> {
        let detailed = self.options.feedback == Feedback::Detailed;
        let start = self.body;
        let start_room = self.room;
        // lines in the order of the keys; a motion's line is filled in when it is done
        let mut lines: Vec<Option<String>> = Vec::new();
        let mut motions: Vec<(Key, usize)> = Vec::new();
        let mut interacted = false;
        for key in a.keys() {
            match key {
                Key::Grab => {
                    interacted = true;
                    self.tally.grabs += 1;
                    let (ok, text) = match self.options.grab {
                        GrabRule::Dot => self.act_on_dot(a),
                        GrabRule::Original => self.act_original(a),
                    };
                    if ok {
                        self.tally.grab_successes += 1;
                    }
                    lines.push(Some(text));
                }
                Key::Read => {
                    interacted = true;
                    let Some(id) = &a.read else { continue };
                    if self.escaped {
                        continue;
                    }
                    // (the original's `read` overwrites what the reply's earlier keys
                    // said, `desc = …` where the others append: a slip that hides a grab's
                    // result, not a level of information, so it is not copied)
                    let text = self.read(id);
                    lines.push(Some(text));
                }
                motion => {
                    // the original says "moved" once, and "view moved" once, per reply
                    let said_before = |k: Key| {
                        motions.iter().any(|(m, at)| {
                            (*m == Key::LookAt) == (k == Key::LookAt) && *at != usize::MAX
                        })
                    };
                    if detailed || !said_before(motion) {
                        motions.push((motion, lines.len()));
                        lines.push(None);
                    } else {
                        motions.push((motion, usize::MAX));
                    }
                }
            }
        }
        // the gathered motion, unless a grab took the agent out of the room
        if self.room == start_room && !self.escaped {
            for (key, at) in motions {
                let text = self.move_by(key, a, &start);
                if let Some(slot) = lines.get_mut(at) {
                    *slot = Some(text);
                }
            }
        }
        self.see_patterns();
        let mut said: Vec<String> = a.notes.clone();
        said.extend(lines.into_iter().flatten());
        if detailed {
            if said.is_empty() {
                said.push("You did nothing this turn.".into());
            }
        } else if said.len() == a.notes.len() {
            said.push(UNRESPONSIVE.into());
        } else if !interacted {
            said.push(NO_INTERACTION.into());
        }
        said
    }

    /// Carries out one motion key of `a` (the reply began at `start`); returns its line.
    fn move_by(&mut self, key: Key, a: &CraftAction, start: &Body) -> String {
        let detailed = self.options.feedback == Feedback::Detailed;
        let moved = |detailed_text: String| {
            if detailed {
                detailed_text
            } else {
                MOVED.to_string()
            }
        };
        match key {
            Key::LookAt => {
                let Some((x, y)) = a.look_at else {
                    return String::new();
                };
                match self.look_at(x, y, start) {
                    Err(why) => why,
                    Ok(()) if detailed => "You turned your eyes to that point.".into(),
                    Ok(()) => VIEW_MOVED.into(),
                }
            }
            Key::RotateRight => {
                let r = a.rotate_right.unwrap_or(0.0);
                self.body = self.body.turned(r, 0.0);
                moved(if r >= 0.0 {
                    format!("You turned {} degrees right.", fmt1(r))
                } else {
                    format!("You turned {} degrees left.", fmt1(-r))
                })
            }
            Key::RotateDown => {
                let d = a.rotate_down.unwrap_or(0.0);
                self.body = self.body.turned(0.0, d);
                moved(format!("You now look {}.", tilt_words(self.body.pitch)))
            }
            Key::MoveForward => {
                let m = a.move_forward.unwrap_or(0.0);
                let (went, blocker) = self.walk(m);
                let dir = if m > 0.0 { "forward" } else { "backwards" };
                moved(match blocker {
                    None => format!("You walked {} m {dir}.", fmt2(went)),
                    Some(what) => format!(
                        "You walked {} m of {} m {dir} and stopped against {what}.",
                        fmt2(went),
                        fmt2(m.abs())
                    ),
                })
            }
            Key::Jump => moved("You jumped and landed where you stood.".into()),
            Key::Grab | Key::Read => String::new(),
        }
    }

    /// Turns the view onto the point `(x, y)` of the frame the reply was shown (taken from
    /// `start`): onto what that pixel shows, seen from where the body now stands.
    fn look_at(&mut self, x: f32, y: f32, start: &Body) -> Result<(), String> {
        let (w, h) = (self.options.width.max(2), self.options.height.max(2));
        let (px, py) = if x <= 1.0 && y <= 1.0 {
            (x * w as f32, y * h as f32)
        } else {
            (x, y)
        };
        if px > w as f32 || py > h as f32 {
            return Err("look_at points outside the picture; give x and y between 0 and 1".into());
        }
        let camera = start.camera(self.options.horizontal_fov());
        let (_, d) = escapade_render::ray_through_pixel(&camera, px, py, w, h);
        if !d.is_finite() {
            return Ok(());
        }
        let moved = (self.body.x, self.body.z) != (start.x, start.z);
        let hit = if moved {
            self.prepared()
                .ok()
                .and_then(|p| p.pick(&camera, px, py, w, h))
        } else {
            None
        };
        let target =
            hit.map(|hit| hit.point - self.body.camera(self.options.horizontal_fov()).position);
        match target {
            Some(t) if t.length() > 1e-3 => self.body = self.body.aimed(t * (1.0 / t.length())),
            _ => self.body = self.body.aimed(d),
        }
        Ok(())
    }

    /// Walks `m` metres along the heading (negative: backwards); returns how far and
    /// what stopped the walk.
    fn walk(&mut self, m: f32) -> (f32, Option<String>) {
        let (hx, hz) = self.body.heading();
        let (dx, dz) = if m >= 0.0 { (hx, hz) } else { (-hx, -hz) };
        let (moved, what) =
            crate::motion::advance(&self.obstacles[self.room], &mut self.body, dx, dz, m.abs());
        self.tally.distance += moved;
        (moved, what)
    }

    /// `read`: an item of the bag (Table 13: "the item_id that you want to get detailed
    /// information from your bag").
    fn read(&mut self, id: &str) -> String {
        if self.bag.iter().any(|b| b == id) {
            return self.read_note(id).unwrap_or_else(|| {
                format!("{id} is not something you can read; nothing is written on it.")
            });
        }
        self.not_in_bag(id)
    }

    /// What is said about an id that is not in the bag.
    fn not_in_bag(&self, id: &str) -> String {
        let said = format!(
            "There is no item `{}` in your bag.",
            escapade_core::action::truncate_chars(id, 40)
        );
        if self.options.feedback == Feedback::Detailed {
            format!("{said} {}", self.bag_text())
        } else {
            said
        }
    }

    /// Notes the digits of a wall pattern under the dot and close enough.
    fn see_patterns(&mut self) {
        if self.escaped {
            return;
        }
        let body = self.body;
        if let Some((Thing::Prop { id }, dist)) = self.probe(&body)
            && dist <= PATTERN_RANGE
            && let Some(PropKind::WallPattern { password }) =
                self.room_ref().chain.prop(&id).map(|p| p.kind.clone())
        {
            self.learn(&password);
        }
    }

    /// Whether a thing can be interacted with at all: a door, or a prop of the chain other
    /// than a wall pattern (painted on, seen and not used). Furniture and decor are the
    /// "non-escape related props" of App. C.1.2.
    fn interactable(&self, thing: &Thing) -> bool {
        match thing {
            Thing::Door { .. } => true,
            Thing::Prop { id } => self.room_ref().chain.prop(id).is_some_and(|p| {
                !matches!(
                    p.kind,
                    PropKind::WallPattern { .. } | PropKind::Password { .. }
                )
            }),
            _ => false,
        }
    }

    /// The things the current frame shows, left to right: what a coarse grid of rays
    /// through the frame hits, and every door or prop of the chain whose middle is
    /// inside the frame and not hidden behind something else (small props fall between
    /// the grid's rays).
    fn in_view(&mut self) -> Vec<Thing> {
        let Ok(prepared) = self.prepared() else {
            return Vec::new();
        };
        let camera = self.body.camera(self.options.horizontal_fov());
        let (w, h) = (self.options.width.max(2), self.options.height.max(2));
        let (cols, rows) = (24u32, 12u32);
        // (left-to-right position in the frame, thing)
        let mut seen: Vec<(f32, Thing)> = Vec::new();
        let add = |x: f32, t: Thing, seen: &mut Vec<(f32, Thing)>| {
            if !seen.iter().any(|(_, s)| *s == t) {
                seen.push((x, t));
            }
        };
        for c in 0..cols {
            for r in 0..rows {
                let x = (c as f32 + 0.5) * w as f32 / cols as f32;
                let y = (r as f32 + 0.5) * h as f32 / rows as f32;
                if let Some(id) = prepared.pick(&camera, x, y, w, h).and_then(|hit| hit.id)
                    && let Some(t) = self.scenario.what(self.room, id)
                {
                    add(x / w as f32, t, &mut seen);
                }
            }
        }
        let frame = Frame::of(&camera, w, h);
        for (t, p) in self.middles() {
            let d = p - camera.position;
            let len = d.length();
            if let Some(x) = frame.position(d)
                && let Some(hit) = prepared.cast(camera.position, d, len + 0.2)
                && hit
                    .id
                    .and_then(|id| self.scenario.what(self.room, id))
                    .is_some_and(|hit| hit == t)
            {
                add(x, t, &mut seen);
            }
        }
        seen.sort_by(|a, b| a.0.total_cmp(&b.0));
        seen.into_iter().map(|(_, t)| t).collect()
    }

    /// The middle of each door and of each prop still in the current room.
    fn middles(&self) -> Vec<(Thing, Vec3)> {
        let room = self.room_ref();
        let state = &self.world.rooms[self.room];
        let mut out: Vec<(Thing, Vec3)> = room
            .props
            .iter()
            .filter(|p| !state.taken.contains(&p.id))
            .map(|p| {
                let [x, y, z] = p.position;
                (
                    Thing::Prop { id: p.id.clone() },
                    Vec3::new(x, y + p.size[1] * 0.5, z),
                )
            })
            .collect();
        for d in &room.doors {
            let ((x, z), (nx, nz)) = d.anchor(room.width, room.depth);
            out.push((
                Thing::Door { role: d.role },
                Vec3::new(x - nx * 0.04, 1.1, z - nz * 0.04),
            ));
        }
        out
    }

    /// The original's answer to a grab that reached nothing: one of its two messages,
    /// by whether something that can be interacted with is in view.
    fn no_response(&self, something_in_view: bool) -> String {
        if something_in_view {
            GRAB_NO_RESPONSE.into()
        } else {
            GRAB_NOTHING.into()
        }
    }

    /// The default grab rule: the thing under the red dot, within reach.
    fn act_on_dot(&mut self, a: &CraftAction) -> (bool, String) {
        let body = self.body;
        let under = self.probe(&body);
        let reach = under
            .as_ref()
            .filter(|(t, _)| self.interactable(t))
            .and_then(|(t, _)| self.reach_of(&body, t));
        if let (Some((thing, _)), Some(dist)) = (&under, reach)
            && dist <= REACH
        {
            let thing = thing.clone();
            return self.act_on(&thing, a);
        }
        if self.options.feedback == Feedback::Original {
            let seen = self.in_view();
            let any = seen.iter().any(|t| self.interactable(t));
            return (false, self.no_response(any));
        }
        let Some((thing, _)) = under else {
            return (false, "There is nothing under the red dot.".into());
        };
        let what = self.describe(&thing);
        match (reach, &thing) {
            (Some(dist), _) => (
                false,
                format!(
                    "Under the red dot is {what}, {} m away: too far to reach. Walk closer \
                     (within about {} m) and try again.",
                    fmt1(dist),
                    fmt1(REACH)
                ),
            ),
            (None, Thing::Prop { .. }) => (
                false,
                format!(
                    "Under the red dot is {what}. It is painted on the wall; there is nothing to take."
                ),
            ),
            (None, _) => (
                false,
                format!(
                    "Under the red dot is {what}. Nothing happens: not everything can be used."
                ),
            ),
        }
    }

    /// The original grab rule (see [`GrabRule::Original`]).
    fn act_original(&mut self, a: &CraftAction) -> (bool, String) {
        let body = self.body;
        let (hx, hz) = body.heading();
        let half = libm::cosf((self.options.horizontal_fov() / 2.0).to_radians());
        let room = self.room_ref();
        let state = &self.world.rooms[self.room];
        let mut things: Vec<Thing> = room
            .props
            .iter()
            .filter(|p| !state.taken.contains(&p.id))
            .map(|p| Thing::Prop { id: p.id.clone() })
            .collect();
        things.extend(room.doors.iter().map(|d| Thing::Door { role: d.role }));
        // in the field of view, at any distance, and which of those are within 4 m
        let mut in_view: Vec<(f32, Thing)> = Vec::new();
        for t in things {
            if !self.interactable(&t) {
                continue;
            }
            let Some((x, z)) = self.anchor(&t) else {
                continue;
            };
            let (dx, dz) = (x - body.x, z - body.z);
            let len = libm::sqrtf(dx * dx + dz * dz);
            if len < 1e-3 || (dx * hx + dz * hz) / len >= half {
                in_view.push((len, t));
            }
        }
        in_view.sort_by(|a, b| a.0.total_cmp(&b.0));
        let candidates: Vec<Thing> = in_view
            .iter()
            .filter(|(d, _)| *d <= ORIGINAL_GRAB_RANGE)
            .map(|(_, t)| t.clone())
            .collect();
        let collectible: Vec<Thing> = candidates
            .iter()
            .filter(|t| {
                matches!(t, Thing::Prop { id } if self.room_ref().chain.prop(id).is_some_and(|p| matches!(p.kind, PropKind::Key { .. } | PropKind::Note { .. })))
            })
            .cloned()
            .collect();
        if !collectible.is_empty() {
            let mut texts = Vec::new();
            for t in &collectible {
                texts.push(self.act_on(t, a).1);
            }
            return (true, texts.join(" "));
        }
        match candidates.into_iter().next() {
            Some(t) => self.act_on(&t, a),
            None if self.options.feedback == Feedback::Original => {
                (false, self.no_response(!in_view.is_empty()))
            }
            None => (
                false,
                "There is nothing to grab within reach in view.".into(),
            ),
        }
    }

    /// Acts on a thing within reach: take, open, unlock, or say what it needs.
    fn act_on(&mut self, thing: &Thing, a: &CraftAction) -> (bool, String) {
        match thing {
            Thing::Door {
                role: DoorRole::Entry,
            } => (
                false,
                "This is the door you came in by; it is shut behind you for good.".into(),
            ),
            Thing::Door {
                role: DoorRole::Exit,
            } => {
                let lock = self.room_ref().chain.exit.clone();
                match self.try_unlock(&lock, Lockable::Exit, a) {
                    Ok(how) => (true, self.leave(how)),
                    Err(why) => (false, why),
                }
            }
            Thing::Prop { id } => {
                let Some(kind) = self.room_ref().chain.prop(id).map(|p| p.kind.clone()) else {
                    return (false, self.no_response(true));
                };
                match kind {
                    PropKind::Key { .. } | PropKind::Note { .. } => {
                        self.world.rooms[self.room].taken.insert(id.clone());
                        self.obtain(id);
                        let noun = if matches!(kind, PropKind::Key { .. }) {
                            "a key"
                        } else {
                            "a note"
                        };
                        (
                            true,
                            format!("You picked up {noun}: {id} is now in your bag."),
                        )
                    }
                    PropKind::Box { lock, contents } => {
                        if self.world.rooms[self.room].opened.contains(id) {
                            return (false, "The box is already open and empty.".into());
                        }
                        match self.try_unlock(&lock, Lockable::Box, a) {
                            Ok(how) => {
                                self.world.rooms[self.room].opened.insert(id.clone());
                                for c in &contents {
                                    self.obtain(c);
                                }
                                let got = if contents.is_empty() {
                                    "It is empty.".to_string()
                                } else {
                                    format!(
                                        "Inside you find {}; now in your bag.",
                                        contents.join(", ")
                                    )
                                };
                                let how = if how.is_empty() {
                                    String::new()
                                } else {
                                    format!("{how} ")
                                };
                                (true, format!("{how}The box opens. {got}"))
                            }
                            Err(why) => (false, why),
                        }
                    }
                    PropKind::WallPattern { .. } | PropKind::Password { .. } => {
                        (false, self.no_response(true))
                    }
                }
            }
            _ => (false, self.no_response(true)),
        }
    }

    /// Tries to open `lock` with what the action offers; `Ok` says how it opened, `Err`
    /// says what it needs: the kind of thing that opens it (C.1.2 "Locked Props": "a
    /// prompt indicating the type of item required"), and with detailed feedback how many
    /// digits the code has and which key of the reply to use.
    fn try_unlock(
        &mut self,
        lock: &Unlock,
        what: Lockable,
        a: &CraftAction,
    ) -> Result<String, String> {
        if let Some(item) = &a.use_item
            && !self.bag.iter().any(|b| b == item)
        {
            return Err(self.not_in_bag(item));
        }
        let detailed = self.options.feedback == Feedback::Detailed;
        let name = what.name();
        let opens_with = |thing: &str| match what {
            Lockable::Box => format!("A locked box: it opens with {thing}."),
            Lockable::Exit => {
                format!("This door seems to be the way out; it is locked and opens with {thing}.")
            }
        };
        match lock {
            Unlock::Interact => Ok(String::new()),
            Unlock::Key { key } => match &a.use_item {
                Some(item) if item == key => Ok(format!("You turn {item} in the lock.")),
                Some(item) => Err(format!("{item} does not fit the lock of {name}.")),
                None if !detailed => Err(opens_with("a key")),
                None if a.input.is_some() => Err(format!(
                    "{} has a keyhole, not a keypad: use a key from your bag on it \
                     (interactions.use_item_id).",
                    capital(name)
                )),
                None => Err(format!(
                    "{} is locked. It has a keyhole: use a key from your bag on it \
                     (interactions.use_item_id).",
                    capital(name)
                )),
            },
            Unlock::Password { password } => {
                let digits = self
                    .scenario
                    .rooms
                    .iter()
                    .find_map(|r| r.chain.digits(password))
                    .unwrap_or("")
                    .to_string();
                match &a.input {
                    Some(text) => {
                        let typed: String = text.chars().filter(char::is_ascii_digit).collect();
                        if !digits.is_empty() && typed == digits {
                            Ok("The keypad beeps and accepts the code.".into())
                        } else {
                            Err(format!("The keypad of {name} rejects that code."))
                        }
                    }
                    None if !detailed => Err(opens_with("a code")),
                    None if a.use_item.is_some() => Err(format!(
                        "{} has a keypad, not a keyhole: enter its code with interactions.input.",
                        capital(name)
                    )),
                    None => Err(format!(
                        "{} is locked by a keypad that takes a {}-digit code: enter it with \
                         interactions.input.",
                        capital(name),
                        digits.len()
                    )),
                }
            }
        }
    }

    /// Opens the current room's exit and goes through it.
    fn leave(&mut self, how: String) -> String {
        self.world.rooms[self.room].exit_open = true;
        self.tally.rooms_escaped += 1;
        let how = if how.is_empty() {
            String::new()
        } else {
            format!("{how} ")
        };
        if self.room + 1 < self.scenario.rooms.len() {
            self.room += 1;
            self.body = Body::start(&self.scenario.rooms[self.room]);
            if self.options.feedback == Feedback::Detailed {
                let kind = self.room_ref().kind.label();
                format!(
                    "{how}The door opens onto another room. You step through into a {kind}, \
                     and the door shuts behind you. Find the way out of this room too."
                )
            } else {
                // the original replaces the door's message with this one
                format!(
                    "{how}The door opens: you escaped this room and now enter the next one. \
                     The picture shows your first view of it."
                )
            }
        } else {
            self.escaped = true;
            self.tally.step_escape = Some(self.tally.steps);
            format!("{how}The door opens and you step outside: you escaped!")
        }
    }

    /// The frame of the current view with its alt text.
    fn frame(&mut self) -> Option<Image> {
        if !self.options.frames {
            return None;
        }
        let prepared = self.prepared().ok()?;
        let camera = self.body.camera(self.options.horizontal_fov());
        let opts = FrameOptions {
            width: self.options.width,
            height: self.options.height,
            threads: self.options.threads,
            centre_dot: true,
        };
        let frame = prepared.render(&camera, &opts).ok()?;
        if self.pixels {
            let pixels = Pixels {
                width: frame.width,
                height: frame.height,
                rgb: frame.rgb,
            };
            return Some(Image::from_pixels(pixels, self.alt()));
        }
        Some(Image::with_alt(frame.png().ok()?, self.alt()))
    }

    /// An exact text description of the frame: what is under the dot and what is in
    /// view, left to right.
    fn alt(&mut self) -> String {
        let mut things: Vec<String> = Vec::new();
        for t in self.in_view() {
            if !matches!(t, Thing::Wall { .. } | Thing::Floor | Thing::Ceiling) {
                let d = self.describe(&t);
                if !things.contains(&d) {
                    things.push(d);
                }
            }
        }
        let body = self.body;
        let under = match self.probe(&body) {
            Some((t, dist)) => format!("{}, {} m away", self.describe(&t), fmt1(dist)),
            None => "nothing".into(),
        };
        let kind = self.room_ref().kind.label();
        let view = if things.is_empty() {
            "nothing but walls, floor and ceiling".to_string()
        } else {
            things.join(", ")
        };
        format!(
            "A view of the {kind}, looking {}. Under the red dot: {under}. In view, left to \
             right: {view}.",
            tilt_words(self.body.pitch)
        )
    }

    /// The observation after a step: the interaction result, the bag and the step
    /// prompt (Table 14), with the frame.
    fn observe(&mut self, result: &str) -> Observation {
        let steps_left = (self.options.prompt == PromptStyle::Helpful)
            .then(|| self.cap.saturating_sub(self.tally.steps));
        let text =
            interface::observation_text(result, &self.bag_text(), steps_left, self.options.prompt);
        Observation {
            text,
            images: self.frame().into_iter().collect(),
            actions: None,
            role: None,
        }
    }
}

impl CraftEnv {
    /// Plays the oracle through the first room (Table 3's bootstrapping) and returns the
    /// walkthrough, one numbered line per step with its result, and the frame seen before
    /// each step (when frames are on: the original replays room 1's recorded steps into
    /// the conversation, each with its picture); the counters then start afresh in room
    /// 2. `None` (and a fresh room 1) if the oracle could not get out.
    fn bootstrap(&mut self) -> Option<(String, Vec<Image>)> {
        let mut oracle = crate::baseline::oracle::OracleAgent::new(
            self.scenario.clone(),
            self.options.without_frames(),
        )
        .ok()?;
        let mut lines = Vec::new();
        let mut frames = Vec::new();
        for n in 1..=self.cap {
            frames.extend(self.frame());
            let action = oracle.next_action();
            let result = self.apply(&action).join(" ");
            lines.push(format!("{n}. {} -> {result}", action.to_json()));
            if self.room >= 1 {
                self.walked_for_agent = self.tally.distance;
                self.tally = Tally::default();
                self.first_room = 1;
                return Some((lines.join("\n"), frames));
            }
        }
        // the first room was not escaped: play the whole game instead
        self.restart();
        None
    }

    /// The game as it starts: room 1, the start pose, an empty bag, nothing opened or
    /// counted.
    fn restart(&mut self) {
        self.over = false;
        self.room = 0;
        self.body = Body::start(&self.scenario.rooms[0]);
        self.bag.clear();
        self.known.clear();
        self.world = WorldState::start(&self.scenario);
        self.escaped = false;
        self.tally = Tally::default();
        self.first_room = 0;
        self.walked_for_agent = 0.0;
    }
}

impl CraftEnv {
    /// Starts the episode (the distance is measured after it).
    fn start(&mut self, _seed: u64) -> Observation {
        // nothing in the rules is random: the seed only made the scenario
        self.started = true;
        self.restart();
        let detailed = self.options.feedback == Feedback::Detailed;
        if self.options.bootstrap
            && self.scenario.rooms.len() > 1
            && let Some((walkthrough, frames)) = self.bootstrap()
        {
            let now = if detailed {
                let kind = self.room_ref().kind.label();
                format!("Now you stand in a second locked room, a {kind}. Find the way out of it.")
            } else {
                "Now you are in the next room. Escape from this room too.".to_string()
            };
            let pictures = if frames.is_empty() {
                String::new()
            } else {
                format!(
                    " The first picture is your first view of the next room; the {} after \
                     it show what you saw before each of those steps, in order.",
                    frames.len()
                )
            };
            let mut o = self.observe(&format!(
                "{BOOTSTRAP_NOTE} This is how, step by step, for you to learn from:\n\
                 {walkthrough}\n{now}{pictures}"
            ));
            // the view in front of the agent first (viewers show the first picture)
            o.images.extend(frames);
            return o;
        }
        if !detailed {
            // the original: "The initial scene is shown in the picture."
            return self.observe("The picture shows the room as you first see it.");
        }
        let kind = self.room_ref().kind.label();
        let rooms = if self.scenario.rooms.len() > 1 {
            " Beyond its exit lies a second room, which you must escape as well."
        } else {
            ""
        };
        self.observe(&format!(
            "You stand in a locked {kind}.{rooms} Look around and find the way out."
        ))
    }

    /// One step under the rules (the distance is measured after it).
    fn play(&mut self, action: &Action) -> Result<Step, EnvError> {
        if !self.started {
            return Err(EnvError::NotReset);
        }
        if self.over {
            return Err(EnvError::EpisodeOver);
        }
        self.tally.steps += 1;
        let mut stop = false;
        let (feedback, error) = match parse_action(action) {
            Ok(a) => (self.apply(&a).join(" "), None),
            Err(e) => {
                self.tally.invalid += 1;
                let mut said = e.0;
                if self.options.unreadable == Unreadable::End {
                    stop = true;
                    said = format!("{said} {UNREADABLE_END}");
                }
                (said, Some("parse".to_string()))
            }
        };
        let terminated = self.escaped;
        let truncated = !terminated && (stop || self.tally.steps >= self.cap);
        self.over = terminated || truncated;
        let mut result = feedback.clone();
        if truncated && !stop {
            result.push_str(" You are out of steps: the game is over.");
        }
        let observation = self.observe(&result);
        Ok(Step {
            observation,
            feedback,
            progress: self.progress(),
            terminated,
            truncated,
            error,
            ..Default::default()
        })
    }
}

impl Env for CraftEnv {
    fn set_picture_form(&mut self, form: PictureForm) {
        self.pixels = form == PictureForm::Pixels;
    }

    fn set_distance(&mut self, on: bool) {
        self.distance = on;
    }

    fn reset(&mut self, seed: u64) -> Observation {
        let o = self.start(seed);
        self.measure();
        o
    }

    fn step(&mut self, action: &Action) -> Result<Step, EnvError> {
        let mut step = self.play(action)?;
        self.measure();
        step.steps_to_go = self.to_go;
        Ok(step)
    }

    /// MM-Escape's remaining plan: the replies the oracle still sends to escape from the
    /// current state, replanned from it (the sub-goals of the scenario's plan not yet
    /// done, each walked to, aimed at and acted on under the environment's own rules).
    /// `None` when the oracle cannot finish from here within the step cap.
    fn steps_to_go(&self) -> Option<u32> {
        self.to_go
    }

    fn system_prompt(&self) -> String {
        interface::system_prompt(self.options.prompt)
    }

    fn tool_schemas(&self) -> Vec<ToolSchema> {
        interface::tool_schemas()
    }

    fn outcome(&self) -> Outcome {
        Outcome {
            success: self.escaped,
            steps: self.tally.steps,
            metrics: self.tally.metrics(&Facts {
                collected: self.collected(),
                collectible: self.counted().0,
                optimal_distance: (self.optimal_distance - self.walked_for_agent).max(0.0),
                exit_visible_at_start: self.scenario.exit_visible_at_start,
                bootstrapped: (self.scenario.rooms.len() > 1).then_some(self.first_room > 0),
            }),
        }
    }

    fn check_action(&self, action: &Action) -> Result<(), String> {
        parse_action(action).map(|_| ()).map_err(|e| e.0)
    }

    fn reask_limit(&self) -> u32 {
        REASK_LIMIT
    }

    fn step_budget(&self) -> Option<u32> {
        Some(self.cap)
    }

    /// The digits of every password written on a note. Picking the note up shows them
    /// (the bag lists a note's numbers, as the original's does; that is how they are
    /// earned); a wall pattern's digits are in plain view by design (§5.2) and are not
    /// secret.
    fn secrets(&self) -> Vec<String> {
        if !(self.options.bootstrap && self.scenario.rooms.len() > 1) {
            return self.secrets.clone();
        }
        // bootstrapped: room 1's walkthrough shows its codes on purpose (Table 3)
        let first = &self.scenario.rooms[0].chain;
        let shown: Vec<&str> = first
            .props
            .iter()
            .filter_map(|p| match &p.kind {
                PropKind::Password { .. } => first.digits(&p.id),
                _ => None,
            })
            .collect();
        self.secrets
            .iter()
            .filter(|s| !shown.contains(&s.as_str()))
            .cloned()
            .collect()
    }
}

/// The value of the choice named `value` (an option's words), else `bad()`.
fn choose<T: Copy>(
    value: &str,
    choices: &[(&str, T)],
    bad: impl Fn() -> escapade_core::CoreError,
) -> Result<T, escapade_core::CoreError> {
    choices
        .iter()
        .find(|(name, _)| *name == value.trim())
        .map(|(_, v)| *v)
        .ok_or_else(bad)
}

/// The frame of a camera as the four planes through the eye and its edges (built from
/// the renderer's own corner rays, so it holds for any camera model).
struct Frame {
    centre: Vec3,
    left: Vec3,
    right: Vec3,
    top: Vec3,
    bottom: Vec3,
}

impl Frame {
    fn of(camera: &escapade_render::scene::Camera, w: u32, h: u32) -> Frame {
        let ray =
            |x: u32, y: u32| escapade_render::ray_through_pixel(camera, x as f32, y as f32, w, h).1;
        let (tl, tr, bl, br) = (ray(0, 0), ray(w, 0), ray(0, h), ray(w, h));
        let centre = ray(w / 2, h / 2);
        // the normal of the plane through the eye and two corner rays, turned inwards
        let inward = |a: Vec3, b: Vec3| {
            let n = a.cross(b);
            let n = if n.dot(centre) < 0.0 { -n } else { n };
            let l = n.length();
            if l > 0.0 { n * (1.0 / l) } else { n }
        };
        Frame {
            centre,
            left: inward(tl, bl),
            right: inward(tr, br),
            top: inward(tl, tr),
            bottom: inward(bl, br),
        }
    }

    /// Where direction `d` from the eye falls across the frame, 0 (left edge) to 1
    /// (right edge; monotonic, for ordering), or `None` outside the frame.
    fn position(&self, d: Vec3) -> Option<f32> {
        let (l, r) = (d.dot(self.left), d.dot(self.right));
        let inside = d.dot(self.centre) > 0.0
            && l >= 0.0
            && r >= 0.0
            && d.dot(self.top) >= 0.0
            && d.dot(self.bottom) >= 0.0;
        (inside && l + r > 0.0).then(|| l / (l + r))
    }
}

fn fmt1(v: f32) -> String {
    format!("{:.1}", v)
}

fn fmt2(v: f32) -> String {
    format!("{:.2}", v)
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn tilt_words(pitch: f32) -> String {
    if pitch.abs() < 0.5 {
        "straight ahead".into()
    } else if pitch < 0.0 {
        format!("{} degrees down", fmt1(-pitch))
    } else {
        format!("{} degrees up", fmt1(pitch))
    }
}
