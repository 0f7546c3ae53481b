//! The oracle: plays [`CraftScenario::plan`] through the same JSON actions a model
//! sends, walking, aiming and acting like a careful player.
//!
//! Why this shape: a suite scenario counts as solvable only if the oracle escapes it
//! through the environment's own rules (collisions, the red dot, reach), so the oracle
//! drives a private copy of the environment (a *shadow*, no frames) and plans from that
//! copy's exact state. For each sub-goal it searches the floor grid (Dijkstra over
//! 8-neighbour cells of [`Grid`]) for the nearest cell within reach of the target from
//! which the centre ray, turned towards one of a few aim points on the target, really
//! hits it (checked with the ray caster's pick); it walks there in straight legs
//! (string-pulled against the obstacles; one `rotate_right` + `move_forward` per leg),
//! then turns and tilts onto the target and acts in one step. Reading a note is one step.
//! The metres it walks are the scenario's optimal distance (MM-Escape App. D, Table 8).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

use escapade_core::{Action, Agent, AgentTurn, CoreError, Env, Observation, Step, ToolSchema};
use escapade_render::scene::Vec3;

use crate::CraftError;
use crate::action::CraftAction;
use crate::chain::{EXIT, PropKind, Subgoal};
use crate::env::{CraftEnv, EnvOptions, PATTERN_RANGE};
use crate::layout::Grid;
use crate::motion::advance;
use crate::room::{DoorRole, EYE_HEIGHT, REACH};
use crate::scenario::{CraftScenario, PlanStep};
use crate::scene::Thing;

/// How many candidate standing cells are tried per target before giving up.
const MAX_CANDIDATES: usize = 120;

/// Plays the scenario's plan. See the module docs.
pub struct OracleAgent {
    shadow: CraftEnv,
    plan: Vec<PlanStep>,
    next: usize,
    queue: VecDeque<CraftAction>,
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
        while self.plan.get(self.next).is_some_and(|s| s.room == 0) {
            self.next += 1;
        }
    }

    /// The next action, applied to the shadow copy too.
    pub fn next_action(&mut self) -> CraftAction {
        let action = self.choose();
        // the shadow follows; an ended shadow just ignores further actions
        let _ = self.shadow.step(&Action::text(action.to_json()));
        action
    }

    fn choose(&mut self) -> CraftAction {
        loop {
            if let Some(a) = self.queue.pop_front() {
                return a;
            }
            let Some(goal) = self.plan.get(self.next).cloned() else {
                // nothing left to do (or the plan failed): look around harmlessly
                return CraftAction {
                    rotate_right: Some(90.0),
                    ..CraftAction::default()
                };
            };
            self.next += 1;
            if let Some(actions) = self.actions_for(&goal) {
                self.queue.extend(actions);
            }
        }
    }

    fn actions_for(&mut self, step: &PlanStep) -> Option<Vec<CraftAction>> {
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
                return Some(vec![CraftAction {
                    read: Some(note.clone()),
                    rationale: Some(format!("read the note {note} for clues")),
                    ..CraftAction::default()
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
        let mut actions = route(&mut self.shadow, &target, radius, act)?;
        let last = actions.len().saturating_sub(1);
        for (i, a) in actions.iter_mut().enumerate() {
            a.rationale = Some(if i == last { why.clone() } else { walk.clone() });
        }
        Some(actions)
    }
}

impl Agent for OracleAgent {
    fn name(&self) -> String {
        "oracle".into()
    }

    fn reset(&mut self, _seed: u64, _prompt: &str, _tools: &[ToolSchema]) {
        self.shadow.reset(0);
        self.next = 0;
        self.queue.clear();
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

/// The walk, aim and act that reach `target` from where the shadow stands, checked
/// against the shadow's rules; `None` if no standing cell works.
fn route(
    env: &mut CraftEnv,
    target: &Thing,
    radius: f32,
    act: CraftAction,
) -> Option<Vec<CraftAction>> {
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
        let mut b = body;
        let mut actions = Vec::new();
        let (mut i, mut cx, mut cz) = (0usize, body.x, body.z);
        let last = path.len() - 1;
        let mut legs = 0;
        while (cx, cz) != grid.center(path[last].0, path[last].1) && legs < 64 {
            legs += 1;
            let j = (i + 1..=last)
                .rev()
                .find(|&j| {
                    let (x, z) = grid.center(path[j].0, path[j].1);
                    obstacles.clear(cx, cz, x, z)
                })
                .unwrap_or((i + 1).min(last));
            let (x, z) = grid.center(path[j].0, path[j].1);
            let (dx, dz) = (x - cx, z - cz);
            let len = libm::sqrtf(dx * dx + dz * dz);
            if len > 1e-4 {
                let want = libm::atan2f(dx, dz).to_degrees();
                let turn = signed(want - b.yaw);
                b = b.turned(turn, 0.0);
                let (hx, hz) = b.heading();
                let mut rest = len;
                let mut first = true;
                while rest > 1e-4 {
                    let leg = rest.min(crate::action::MOVE_RANGE);
                    advance(&obstacles, &mut b, hx, hz, leg);
                    actions.push(CraftAction {
                        rotate_right: first.then_some(turn),
                        move_forward: Some(leg),
                        ..CraftAction::default()
                    });
                    first = false;
                    rest -= leg;
                }
            }
            (i, cx, cz) = (j, x, z);
        }
        if env.reach_of(&b, target).is_none_or(|d| d > radius) {
            continue;
        }
        for aim in &aims {
            let eye = Vec3::new(b.x, EYE_HEIGHT, b.z);
            let d = *aim - eye;
            let len = d.length();
            if len < 1e-3 {
                continue;
            }
            let want = b.aimed(d * (1.0 / len));
            let right = signed(want.yaw - b.yaw);
            let down = b.pitch - want.pitch;
            let last_body = b.turned(right, down);
            match env.probe(&last_body) {
                Some((hit, dist)) if hit == *target && dist <= len + 0.5 => {
                    actions.push(CraftAction {
                        rotate_right: Some(right),
                        rotate_down: Some(down),
                        ..act.clone()
                    });
                    return Some(actions);
                }
                _ => {}
            }
        }
    }
    None
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
