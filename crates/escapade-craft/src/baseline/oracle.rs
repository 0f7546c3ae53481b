//! The oracle: plays [`CraftScenario::plan`] through the same JSON actions a model
//! sends, walking, aiming and acting like a careful player.
//!
//! Why this shape: a suite scenario counts as solvable only if the oracle escapes it
//! through the environment's own rules (collisions, the red dot, reach, the order in
//! which a reply's keys act), so the oracle drives a private copy of the environment (a
//! *shadow*, no frames) and plans from that copy's exact state. For each sub-goal it
//! searches the floor grid (Dijkstra over 8-neighbour cells of [`Grid`]) for the nearest
//! cell within reach of the target from which the centre ray, turned towards one of a
//! few aim points on the target, really hits it (checked with the ray caster's pick); it
//! walks there in straight legs (string-pulled against the obstacles; a `rotate_right`
//! and a `move_forward` per leg), turns and tilts onto the target, and acts in the next reply
//! — a `grab` acts on the view the reply starts from, so aiming and grabbing cannot
//! share a reply. The act shares its reply with the first motion of the next sub-goal
//! instead (and with reading the note it just picked up), as a player who knows the
//! rules would write it. Numbers are written as a person would: whole degrees (a tenth
//! where a small target needs it) and whole centimetres. The metres it walks are the
//! scenario's optimal distance (MM-Escape App. D, Table 8).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

use escapade_core::{Action, Agent, AgentTurn, CoreError, Env, Observation, Step};
use escapade_render::scene::Vec3;

use crate::CraftError;
use crate::action::{CraftAction, Key};
use crate::chain::{EXIT, PropKind, Subgoal};
use crate::env::{CraftEnv, EnvOptions, GrabRule, PATTERN_RANGE};
use crate::layout::Grid;
use crate::motion::advance;
use crate::room::{DoorRole, EYE_HEIGHT, REACH};
use crate::scenario::{CraftScenario, PlanStep};
use crate::scene::Thing;

/// How many candidate standing cells are tried per target before giving up.
const MAX_CANDIDATES: usize = 120;

/// How often the oracle tries an act again when the shadow shows it did not work (the
/// original grab rule may act on something other than the target).
const MAX_RETRIES: u32 = 3;

/// One action the oracle means to send, and what it is for.
#[derive(Debug, Clone)]
struct Planned {
    action: CraftAction,
    /// The sub-goal this action completes (set on its last action only).
    completes: Option<PlanStep>,
}

/// Plays the scenario's plan. See the module docs.
pub struct OracleAgent {
    shadow: CraftEnv,
    plan: Vec<PlanStep>,
    next: usize,
    queue: VecDeque<Planned>,
    /// An act sent but not yet seen to work, and how often it was tried.
    pending: Option<(Planned, u32)>,
}

impl OracleAgent {
    /// The oracle for `scenario`, judging as an environment with `options` would (frames
    /// are never drawn for it).
    ///
    /// # Errors
    /// What [`CraftScenario::plan`] and opening the environment return.
    pub fn new(
        scenario: Arc<CraftScenario>,
        options: EnvOptions,
    ) -> Result<OracleAgent, CraftError> {
        let plan = scenario.plan()?;
        // the shadow plays every room itself (a bootstrapped run is followed by
        // `skip_first_room`)
        let options = EnvOptions {
            bootstrap: false,
            ..options.without_frames()
        };
        let mut shadow = CraftEnv::bare(scenario, options)?;
        shadow.reset(0);
        Ok(OracleAgent {
            shadow,
            plan,
            next: 0,
            queue: VecDeque::new(),
            pending: None,
        })
    }

    /// Plays the first room on the shadow copy only: the environment was bootstrapped past
    /// it (`-W bootstrap=on`), so the agent starts in room 2 too.
    fn skip_first_room(&mut self) {
        for _ in 0..self.shadow.cap() {
            if self.shadow.room >= 1 {
                break;
            }
            self.next_action();
        }
        self.queue.clear();
        self.pending = None;
        while self.plan.get(self.next).is_some_and(|s| s.room == 0) {
            self.next += 1;
        }
    }

    /// The next action, applied to the shadow copy too.
    pub fn next_action(&mut self) -> CraftAction {
        let planned = self.choose();
        // the shadow follows; an ended shadow just ignores further actions
        let _ = self.shadow.step(&Action::text(planned.action.to_json()));
        if planned.completes.is_some() && planned.action.interacts() {
            let tries = match &self.pending {
                Some((p, n)) if p.completes == planned.completes => *n + 1,
                _ => 1,
            };
            self.pending = Some((planned.clone(), tries));
        }
        planned.action
    }

    /// Whether the shadow shows `step` done.
    fn done(&self, step: &PlanStep) -> bool {
        let env = &self.shadow;
        if env.room != step.room {
            return env.room > step.room || env.outcome().success;
        }
        let state = &env.world.rooms[step.room];
        match &step.goal {
            Subgoal::Grab { prop } => env.bag.iter().any(|b| b == prop),
            Subgoal::Read { .. } => true,
            Subgoal::Inspect { pattern } => {
                let chain = &env.scenario().rooms[step.room].chain;
                match chain.prop(pattern).map(|p| &p.kind) {
                    Some(PropKind::WallPattern { password }) => env.known.contains(password),
                    _ => true,
                }
            }
            Subgoal::Interact { target }
            | Subgoal::UseKey { target, .. }
            | Subgoal::EnterPassword { target, .. } => {
                if target == EXIT {
                    state.exit_open || env.outcome().success
                } else {
                    state.opened.contains(target)
                }
            }
        }
    }

    fn choose(&mut self) -> Planned {
        // an act that did not work (the original grab rule may reach for something else
        // in view): plan its sub-goal again from where the agent stands
        if let Some((p, tries)) = self.pending.take()
            && self.options().grab == GrabRule::Original
            && let Some(step) = &p.completes
            && !self.done(step)
            && tries < MAX_RETRIES
        {
            self.queue.clear();
            if let Some(actions) = self.actions_for(step) {
                self.queue.extend(actions);
            }
            self.pending = Some((p, tries));
        }
        let mut first = self.pop_or_plan();
        // an act leaves the body where it is: under the red-dot rule (where an aimed act
        // is sure to work) it shares its reply with what comes next, unless it leaves
        // the room
        while self.options().grab == GrabRule::Dot
            && first.action.keys().iter().all(|k| !k.moves())
            && !first.action.keys().is_empty()
            && !leaves_room(&first)
            && self.queue.is_empty()
        {
            let Some(next) = self.plan_next() else { break };
            let mergeable = merge(&first.action, &next.action);
            match mergeable {
                Some(action) => {
                    first = Planned {
                        action,
                        completes: next.completes.or(first.completes),
                    };
                }
                None => {
                    self.queue.push_front(next);
                    break;
                }
            }
        }
        first
    }

    fn options(&self) -> &EnvOptions {
        self.shadow.options()
    }

    /// The next queued action, planning further sub-goals as needed; a harmless turn when
    /// the plan is done (or failed).
    fn pop_or_plan(&mut self) -> Planned {
        self.queue
            .pop_front()
            .or_else(|| self.plan_next())
            .unwrap_or(Planned {
                action: CraftAction {
                    rotate_right: Some(90.0),
                    ..CraftAction::default()
                },
                completes: None,
            })
    }

    /// Plans the next sub-goals until one gives actions; returns its first action and
    /// queues the rest.
    fn plan_next(&mut self) -> Option<Planned> {
        while let Some(goal) = self.plan.get(self.next).cloned() {
            self.next += 1;
            if let Some(actions) = self.actions_for(&goal) {
                self.queue.extend(actions);
                return self.queue.pop_front();
            }
        }
        None
    }

    fn actions_for(&mut self, step: &PlanStep) -> Option<Vec<Planned>> {
        let exit = || Thing::Door {
            role: DoorRole::Exit,
        };
        let thing = |id: &str| {
            if id == EXIT {
                exit()
            } else {
                Thing::Prop { id: id.to_string() }
            }
        };
        let grab = CraftAction {
            grab: true,
            ..CraftAction::default()
        };
        let (target, act, radius) = match &step.goal {
            Subgoal::Read { note } => {
                return Some(vec![Planned {
                    action: CraftAction {
                        read: Some(note.clone()),
                        rationale: Some(format!("read the note {note} for clues")),
                        ..CraftAction::default()
                    },
                    completes: Some(step.clone()),
                }]);
            }
            Subgoal::Grab { prop } => (thing(prop), grab, REACH),
            Subgoal::Interact { target } => (thing(target), grab, REACH),
            Subgoal::UseKey { key, target } => (
                thing(target),
                CraftAction {
                    use_item: Some(key.clone()),
                    ..grab
                },
                REACH,
            ),
            Subgoal::EnterPassword { password, target } => {
                let digits = self
                    .shadow
                    .scenario()
                    .rooms
                    .iter()
                    .find_map(|r| r.chain.digits(password))?
                    .to_string();
                (
                    thing(target),
                    CraftAction {
                        input: Some(digits),
                        ..grab
                    },
                    REACH,
                )
            }
            Subgoal::Inspect { pattern } => {
                (thing(pattern), CraftAction::default(), PATTERN_RANGE - 0.3)
            }
        };
        let room = self.shadow.scenario().rooms.get(step.room)?;
        let (walk, why) = rationale(room, &step.goal);
        let mut actions = route(&mut self.shadow, &target, radius)?;
        let aimed = actions.len().saturating_sub(1);
        let aim = walk.replacen("walk to", "put the red dot on", 1);
        for (i, a) in actions.iter_mut().enumerate() {
            a.rationale = Some(if i < aimed {
                walk.clone()
            } else if act.keys().is_empty() {
                // looking is the act (a wall pattern): the aim completes the sub-goal
                why.clone()
            } else {
                aim.clone()
            });
        }
        if !act.keys().is_empty() {
            actions.push(CraftAction {
                rationale: Some(why),
                ..act
            });
        }
        let last = actions.len() - 1;
        Some(
            actions
                .into_iter()
                .enumerate()
                .map(|(i, action)| Planned {
                    action,
                    completes: (i == last).then(|| step.clone()),
                })
                .collect(),
        )
    }
}

/// Whether an act is the one that opens a room's exit (the next sub-goal is then planned
/// in the next room, from its start).
fn leaves_room(p: &Planned) -> bool {
    p.completes.as_ref().is_some_and(|s| match &s.goal {
        Subgoal::Interact { target }
        | Subgoal::UseKey { target, .. }
        | Subgoal::EnterPassword { target, .. } => target == EXIT,
        _ => false,
    })
}

/// One reply doing `first` (acts only) and then `next`, if the keys allow it: each key
/// at most once, and the motions of `next` keep their order after the acts.
fn merge(first: &CraftAction, next: &CraftAction) -> Option<CraftAction> {
    let (a, b) = (first.keys(), next.keys());
    if b.iter().any(|k| a.contains(k)) {
        return None;
    }
    let mut m = CraftAction {
        look_at: next.look_at,
        rotate_right: next.rotate_right,
        rotate_down: next.rotate_down,
        move_forward: next.move_forward,
        jump: next.jump,
        read: first.read.clone().or_else(|| next.read.clone()),
        rationale: match (&first.rationale, &next.rationale) {
            (Some(x), Some(y)) => Some(format!("{x}, then {y}")),
            (x, y) => x.clone().or_else(|| y.clone()),
        },
        ..first.clone()
    };
    if next.grab {
        m.grab = true;
        m.use_item = next.use_item.clone();
        m.input = next.input.clone();
    }
    m.order = a.into_iter().chain(b).collect::<Vec<Key>>();
    Some(m)
}

impl Agent for OracleAgent {
    fn name(&self) -> String {
        "oracle".into()
    }

    fn reset(&mut self, _start: escapade_core::EpisodeStart<'_>) {
        self.shadow.reset(0);
        self.next = 0;
        self.queue.clear();
        self.pending = None;
    }

    fn act(&mut self, o: &Observation, _l: Option<&Step>) -> Result<AgentTurn, CoreError> {
        if self.shadow.room == 0 && o.text.contains(crate::env::BOOTSTRAP_NOTE) {
            self.skip_first_room();
        }
        Ok(AgentTurn::action(Action::text(
            self.next_action().to_json(),
        )))
    }
}

/// What the oracle says it is doing (Table 13's `rationale`, logged and never
/// interpreted): on the way to a sub-goal's target, and at it.
fn rationale(room: &crate::room::Room, goal: &Subgoal) -> (String, String) {
    let name = |id: &str| -> String {
        if id == EXIT {
            return "the exit door".into();
        }
        match room.chain.prop(id).map(|p| &p.kind) {
            Some(PropKind::Key { .. }) => format!("the key {id}"),
            Some(PropKind::Note { .. }) => format!("the note {id}"),
            Some(PropKind::Box { .. }) => format!("the box {id}"),
            Some(PropKind::WallPattern { .. }) => format!("the tile pattern {id} on the wall"),
            _ => id.to_string(),
        }
    };
    let leave = |id: &str| {
        if id == EXIT {
            " and leave the room"
        } else {
            ""
        }
    };
    let (target, why) = match goal {
        Subgoal::Grab { prop } => (prop, format!("pick up {}", name(prop))),
        Subgoal::Read { note } => (note, format!("read the note {note} for clues")),
        Subgoal::Inspect { pattern } => {
            (pattern, format!("look at {} for its code", name(pattern)))
        }
        Subgoal::Interact { target } => (target, format!("open {}{}", name(target), leave(target))),
        Subgoal::UseKey { key, target } => (
            target,
            format!(
                "unlock {} with the key {key}{}",
                name(target),
                leave(target)
            ),
        ),
        Subgoal::EnterPassword { target, .. } => (
            target,
            format!(
                "enter the code I found on the keypad of {}{}",
                name(target),
                leave(target)
            ),
        ),
    };
    (format!("walk to {}", name(target)), why)
}

/// What measures the oracle's distance from an agent's state (issue 29): a shadow copy of
/// the environment and the scenario's plan, kept with the environment so that nothing is
/// rebuilt per step.
///
/// Why replan rather than count down: an agent's moves leave the oracle's path, so the
/// distance is the oracle's own play from wherever the agent is — the state is copied
/// into the shadow, the plan resumes at its first sub-goal not yet done (reads are passed
/// over: picking a note up already teaches its code, and the oracle sends the read in the
/// reply that picks the note up), and the replies the
/// oracle sends until the escape are counted. On the oracle's own path this is its
/// remaining plan, one fewer per step; a wasted step (a reply that moves nothing) leaves
/// it where it was.
pub struct Probe {
    shadow: Option<CraftEnv>,
    plan: Vec<PlanStep>,
}

impl Probe {
    /// The probe for `scenario` under `options` (frames are never drawn).
    pub fn new(scenario: Arc<CraftScenario>, options: EnvOptions) -> Result<Probe, CraftError> {
        let plan = scenario.plan()?;
        let options = EnvOptions {
            bootstrap: false,
            ..options.without_frames()
        };
        let shadow = CraftEnv::bare(scenario, options)?;
        Ok(Probe {
            shadow: Some(shadow),
            plan,
        })
    }

    /// The replies the oracle sends to escape from the state of `env`; 0 once escaped,
    /// `None` if it cannot within the step cap.
    pub fn steps_to_go(&mut self, env: &CraftEnv) -> Option<u32> {
        if env.outcome().success {
            return Some(0);
        }
        let mut shadow = self.shadow.take()?;
        shadow.copy_state(env);
        let mut oracle = OracleAgent {
            shadow,
            plan: Vec::new(),
            next: 0,
            queue: VecDeque::new(),
            pending: None,
        };
        oracle.next = self
            .plan
            .iter()
            .position(|s| !matches!(s.goal, Subgoal::Read { .. }) && !oracle.done(s))
            .unwrap_or(self.plan.len());
        oracle.plan = std::mem::take(&mut self.plan);
        let mut sent = 0u32;
        let left = oracle.shadow.cap().saturating_sub(env.outcome().steps);
        let mut found = None;
        for _ in 0..2 * left {
            if oracle.shadow.outcome().success {
                found = Some(sent);
                break;
            }
            if sent >= left {
                break;
            }
            // an aim from a pose already aimed comes out empty: a reply a player would
            // not send, so it is not counted
            if !oracle.next_action().keys().is_empty() {
                sent += 1;
            }
        }
        self.plan = std::mem::take(&mut oracle.plan);
        self.shadow = Some(oracle.shadow);
        found
    }
}

/// Metres the oracle walks to escape `scenario` (Table 8's optimal distance).
///
/// # Errors
/// What [`OracleAgent::new`] returns.
pub fn optimal_distance(
    scenario: &Arc<CraftScenario>,
    options: &EnvOptions,
) -> Result<f32, CraftError> {
    let mut oracle = OracleAgent::new(scenario.clone(), *options)?;
    let cap = oracle.shadow.cap();
    for _ in 0..cap {
        oracle.next_action();
        if oracle.shadow.outcome().success {
            break;
        }
    }
    Ok(oracle.shadow.distance())
}

/// The walk and the aim that bring `target` under the red dot within `radius`, from where
/// the shadow stands, checked against the shadow's rules (the act follows in a reply of
/// its own); `None` if no standing cell works. The last action aims; when the last leg
/// needs no turn the aim rides on it (`move_forward` first, then the turn and tilt).
fn route(env: &mut CraftEnv, target: &Thing, radius: f32) -> Option<Vec<CraftAction>> {
    let room_index = env.room;
    let scenario = Arc::clone(env.scenario_arc());
    let room = &scenario.rooms[room_index];
    let grid = Grid::of(room);
    let body = env.body;
    let start = grid.cell_of(body.x, body.z)?;
    let (cost, parent) = dijkstra(&grid, start);
    let (tx, tz) = env.anchor(target)?;
    let aims = aim_points(env, target)?;
    let mut candidates: Vec<(u32, usize, (usize, usize))> = grid
        .cells()
        .filter_map(|(i, j)| {
            let k = grid.index(i, j);
            let c = cost[k]?;
            let (x, z) = grid.center(i, j);
            let d2 = (x - tx) * (x - tx) + (z - tz) * (z - tz);
            (d2 <= (radius - 0.01) * (radius - 0.01)).then_some((c, k, (i, j)))
        })
        .collect();
    candidates.sort_unstable();
    let obstacles = env.obstacles(room_index).clone();
    for &(_, _, cell) in candidates.iter().take(MAX_CANDIDATES) {
        // the grid path, pulled into straight legs
        let mut path = vec![cell];
        let mut at = cell;
        while at != start {
            at = parent[grid.index(at.0, at.1)]?;
            path.push(at);
        }
        path.reverse();
        let Some((b, mut actions)) = walk_path(&grid, &obstacles, body, &path) else {
            continue;
        };
        if env.reach_of(&b, target).is_none_or(|d| d > radius) {
            continue;
        }
        let Some((right, down)) = aim(env, &b, target, &aims) else {
            continue;
        };
        let ride = actions
            .last()
            .is_some_and(|l| l.rotate_right.is_none() && l.rotate_down.is_none());
        if ride && let Some(l) = actions.last_mut() {
            l.rotate_right = right;
            l.rotate_down = down;
            l.order = vec![Key::MoveForward, Key::RotateRight, Key::RotateDown];
        } else {
            actions.push(CraftAction {
                rotate_right: right,
                rotate_down: down,
                ..CraftAction::default()
            });
        }
        return Some(actions);
    }
    None
}

/// The legs that walk `body` along the grid `path` (string-pulled from wherever the body
/// really is after each leg), with turns in whole degrees and walks in whole
/// centimetres; the body where they end. `None` when a leg makes no headway.
fn walk_path(
    grid: &Grid,
    obstacles: &crate::motion::Obstacles,
    body: crate::motion::Body,
    path: &[(usize, usize)],
) -> Option<(crate::motion::Body, Vec<CraftAction>)> {
    let mut b = body;
    let mut actions = Vec::new();
    let last = path.len() - 1;
    let mut i = 0usize;
    let mut legs = 0;
    while i < last {
        legs += 1;
        if legs > 64 {
            return None;
        }
        let j = (i + 1..=last)
            .rev()
            .find(|&j| {
                let (x, z) = grid.center(path[j].0, path[j].1);
                obstacles.clear(b.x, b.z, x, z)
            })
            .unwrap_or(i + 1);
        let (x, z) = grid.center(path[j].0, path[j].1);
        let (dx, dz) = (x - b.x, z - b.z);
        let len = libm::sqrtf(dx * dx + dz * dz);
        if len < 0.02 {
            i = j;
            continue;
        }
        let turn = round_to(signed(libm::atan2f(dx, dz).to_degrees() - b.yaw), 1.0);
        b = b.turned(turn, 0.0);
        let (hx, hz) = b.heading();
        let leg = round_to(len.min(crate::action::MOVE_RANGE), 0.01);
        let (went, _) = advance(obstacles, &mut b, hx, hz, leg);
        if went < 1e-3 {
            return None;
        }
        actions.push(CraftAction {
            rotate_right: (turn != 0.0).then_some(turn),
            move_forward: Some(leg),
            ..CraftAction::default()
        });
        let (ex, ez) = (x - b.x, z - b.z);
        if libm::sqrtf(ex * ex + ez * ez) < 0.05 {
            i = j;
        }
    }
    Some((b, actions))
}

/// The turn and tilt (rounded to whole degrees, else tenths) that put the centre ray of
/// `b` on `target` through one of `aims`; `None` when none does. Zero parts are left out.
fn aim(
    env: &mut CraftEnv,
    b: &crate::motion::Body,
    target: &Thing,
    aims: &[Vec3],
) -> Option<(Option<f32>, Option<f32>)> {
    for step in [1.0f32, 0.1] {
        for p in aims {
            let eye = Vec3::new(b.x, EYE_HEIGHT, b.z);
            let d = *p - eye;
            let len = d.length();
            if len < 1e-3 {
                continue;
            }
            let want = b.aimed(d * (1.0 / len));
            let right = round_to(signed(want.yaw - b.yaw), step);
            let down = round_to(b.pitch - want.pitch, step);
            let last_body = b.turned(right, down);
            match env.probe(&last_body) {
                Some((hit, dist)) if hit == *target && dist <= len + 0.5 => {
                    return Some((
                        (right != 0.0).then_some(right),
                        (down != 0.0).then_some(down),
                    ));
                }
                _ => {}
            }
        }
    }
    None
}

/// `v` rounded to a multiple of `step` (1, 0.1, 0.01), as a short decimal.
fn round_to(v: f32, step: f32) -> f32 {
    let scaled = (v / step).round();
    let r = if step >= 1.0 {
        scaled * step
    } else {
        scaled / (1.0 / step).round()
    };
    if r == 0.0 { 0.0 } else { r }
}

/// Degrees in `(-180, 180]`.
fn signed(deg: f32) -> f32 {
    let w = crate::motion::wrap(deg);
    if w > 180.0 { w - 360.0 } else { w }
}

/// Points on `target` to put the red dot on, best first.
fn aim_points(env: &CraftEnv, target: &Thing) -> Option<Vec<Vec3>> {
    let room = &env.scenario().rooms[env.room];
    match target {
        Thing::Prop { id } => {
            let p = room.placed(id)?;
            let [x, y, z] = p.position;
            let [w, h, d] = p.size;
            let is_pattern = matches!(
                room.chain.prop(id).map(|c| &c.kind),
                Some(PropKind::WallPattern { .. })
            );
            if is_pattern {
                return Some(vec![
                    Vec3::new(x, y, z),
                    Vec3::new(x, y + h * 0.25, z),
                    Vec3::new(x, y - h * 0.25, z),
                ]);
            }
            // the middle of the top first, then a lattice over the prop (its near side
            // may be the only part in view, e.g. in a cubby)
            let mut out = vec![Vec3::new(x, y + h * 0.75, z)];
            for fy in [0.9f32, 0.5] {
                for fx in [-0.35f32, 0.0, 0.35] {
                    for fz in [-0.35f32, 0.0, 0.35] {
                        out.push(Vec3::new(x + fx * w.max(d), y + fy * h, z + fz * w.max(d)));
                    }
                }
            }
            Some(out)
        }
        Thing::Door { role } => {
            let door = room.doors.iter().find(|d| d.role == *role)?;
            let ((x, z), (nx, nz)) = door.anchor(room.width, room.depth);
            let (ax, az) = (nz.abs(), nx.abs());
            let mut out = Vec::new();
            for h in [1.1f32, 0.8, 1.5] {
                for a in [0.0f32, 0.2, -0.2] {
                    out.push(Vec3::new(x + ax * a - nx * 0.04, h, z + az * a - nz * 0.04));
                }
            }
            Some(out)
        }
        _ => None,
    }
}

/// Cheapest 8-neighbour path costs (10 straight, 14 diagonal; diagonals only between
/// free orthogonal neighbours) from `start`, and each cell's predecessor.
#[allow(clippy::type_complexity)]
fn dijkstra(grid: &Grid, start: (usize, usize)) -> (Vec<Option<u32>>, Vec<Option<(usize, usize)>>) {
    let n = grid.nx * grid.nz;
    let mut cost: Vec<Option<u32>> = vec![None; n];
    let mut parent: Vec<Option<(usize, usize)>> = vec![None; n];
    let mut heap = BinaryHeap::new();
    cost[grid.index(start.0, start.1)] = Some(0);
    heap.push(Reverse((0u32, grid.index(start.0, start.1), start)));
    while let Some(Reverse((c, k, (i, j)))) = heap.pop() {
        if cost[k].is_some_and(|best| c > best) {
            continue;
        }
        for (di, dj) in [
            (-1i64, 0i64),
            (1, 0),
            (0, -1),
            (0, 1),
            (-1, -1),
            (1, -1),
            (-1, 1),
            (1, 1),
        ] {
            let (a, b) = (i as i64 + di, j as i64 + dj);
            if a < 0 || b < 0 {
                continue;
            }
            let (a, b) = (a as usize, b as usize);
            if !grid.is_free(a, b) {
                continue;
            }
            let diagonal = di != 0 && dj != 0;
            if diagonal && !(grid.is_free(a, j) && grid.is_free(i, b)) {
                continue;
            }
            let next = c + if diagonal { 14 } else { 10 };
            let nk = grid.index(a, b);
            if cost[nk].is_none_or(|best| next < best) {
                cost[nk] = Some(next);
                parent[nk] = Some((i, j));
                heap.push(Reverse((next, nk, (a, b))));
            }
        }
    }
    (cost, parent)
}
