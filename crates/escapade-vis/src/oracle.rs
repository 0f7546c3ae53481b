//! The oracle: the shortest way out of a room, by breadth-first search over its states.
//!
//! VisEscape reports oracle steps (§2: 27.2 on average) and measures SPL against them
//! (§4.2). The search walks the same [`Game::available`] / [`Game::apply`] moves a
//! player has, with the correct answer in place of the answer template, so a room the
//! oracle escapes is escapable through the agent interface, and its step count is a true
//! minimum (every move costs one step, navigation included). The search may enter a code
//! only after looking at its clue, so oracle steps include finding the clues.
//!
//! **Why the search skips moves.** A room's states multiply with every receptacle that
//! opens and shuts: sixteen cabinets that hold nothing of use make 2¹⁶ copies of every
//! other state. The search therefore leaves out the moves that cannot matter for getting
//! out ([`Relevance`]): opening, shutting or even looking into a receptacle that holds
//! nothing needed and whose changes fire nothing needed; picking up an item nothing asks
//! for; looking closely at an item that is neither a clue nor a lock. Such a move changes
//! nothing any later move depends on, so a shortest solution never contains one and
//! leaving them out keeps the step count exact. When the search still reaches its bound
//! it says so ([`VisError::SearchLimit`]): a room too large to search is not a room that
//! cannot be escaped.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use crate::VisError;
use crate::game::{Game, Move, State, View};
use crate::room::{Cause, ItemKind, Rule};

/// Default bound on states searched per room.
pub const STATE_LIMIT: usize = 500_000;

/// A shortest solution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solution {
    /// The moves, in order (answers carry the correct code).
    pub moves: Vec<Move>,
    /// The states visited along the way, from the start (one more than `moves`).
    pub states: Vec<State>,
}

/// Which parts of a room can matter for escaping it (see the module docs).
///
/// A trigger is *needed* when a guard waits for it or it is a checkpoint. An item is
/// needed when it is a clue or a lock, or an applicable item that an interaction uses,
/// a guard asks for, or whose `picked`/`used` trigger is needed. A receptacle is
/// *relevant* when it is the exit, a quiz's clue view, holds a needed item, or has an
/// interaction started by an item or an answer or firing a needed trigger. Everything
/// else changes only its own picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relevance {
    /// Per receptacle: relevant.
    pub receptacles: Vec<bool>,
    /// Per item: needed.
    pub items: Vec<bool>,
}

fn guard_triggers<'a>(rule: &'a Rule, out: &mut Vec<&'a str>) {
    match rule {
        Rule::Trigger(t) => out.push(t),
        Rule::And(rules) => rules.iter().for_each(|r| guard_triggers(r, out)),
        Rule::Not(r) => guard_triggers(r, out),
        Rule::Always | Rule::HasItem(_) => {}
    }
}

fn guard_items<'a>(rule: &'a Rule, out: &mut Vec<&'a str>) {
    match rule {
        Rule::HasItem(i) => out.push(i),
        Rule::And(rules) => rules.iter().for_each(|r| guard_items(r, out)),
        Rule::Not(r) => guard_items(r, out),
        Rule::Always | Rule::Trigger(_) => {}
    }
}

impl Relevance {
    /// The relevant receptacles and needed items of `game`'s room.
    pub fn of(game: &Game) -> Relevance {
        let room = game.room();
        let mut triggers: Vec<&str> = room
            .checkpoints
            .iter()
            .map(|c| c.trigger.as_str())
            .collect();
        let mut asked: Vec<&str> = Vec::new();
        for x in &room.interactions {
            guard_triggers(&x.guard, &mut triggers);
            guard_items(&x.guard, &mut asked);
            match &x.cause {
                Cause::Item { item } | Cause::ItemVerb { item, .. } => asked.push(item),
                _ => {}
            }
        }
        let needed_trigger = |t: String| triggers.contains(&t.as_str());
        let items: Vec<bool> = room
            .items
            .iter()
            .map(|i| match i.kind {
                ItemKind::Clue { .. } | ItemKind::Lock { .. } | ItemKind::KeyLock { .. } => true,
                // an item something is done to (a key, a button pressed where it stands)
                _ if asked.contains(&i.id.as_str()) => true,
                ItemKind::Applicable => {
                    needed_trigger(format!("picked {}", i.id))
                        || needed_trigger(format!("used {}", i.id))
                }
                ItemKind::Note { .. } | ItemKind::Decor => false,
            })
            .collect();
        // a close-up that shows a code (a flipped hourglass, a lit screen) must be seen
        let clue_views: Vec<&str> = room
            .quizzes
            .iter()
            .flat_map(|q| q.clue_views.iter().map(|v| v.receptacle.as_str()))
            .collect();
        let receptacles = room
            .receptacles
            .iter()
            .map(|r| {
                r.id == room.exit.receptacle
                    || clue_views.contains(&r.id.as_str())
                    || room
                        .items
                        .iter()
                        .zip(&items)
                        .any(|(i, needed)| *needed && i.receptacle == r.id)
                    || room.interactions.iter().any(|x| {
                        x.receptacle == r.id
                            && (!matches!(x.cause, Cause::Verb { .. })
                                || x.trigger.as_deref().is_some_and(|t| triggers.contains(&t)))
                    })
            })
            .collect();
        Relevance { receptacles, items }
    }

    /// Whether the search tries `m` (see the module docs).
    pub fn keeps(&self, game: &Game, m: &Move) -> bool {
        let on = |v: &[bool], i: usize| v.get(i).copied().unwrap_or(true);
        match m {
            Move::Verb { receptacle, .. } | Move::InspectReceptacle(receptacle) => {
                on(&self.receptacles, *receptacle)
            }
            Move::InspectItem(i) => matches!(
                game.room().items.get(*i).map(|it| &it.kind),
                Some(ItemKind::Clue { .. } | ItemKind::Lock { .. } | ItemKind::KeyLock { .. })
            ),
            Move::PickUp(i) | Move::Use(i) | Move::ItemVerb { item: i, .. } => on(&self.items, *i),
            Move::Turn(_) | Move::StepBack | Move::Answer(_) => true,
        }
    }

    /// Receptacles whose state can never matter.
    pub fn irrelevant(&self) -> Vec<usize> {
        (0..self.receptacles.len())
            .filter(|&r| !self.receptacles[r])
            .collect()
    }
}

/// Calls `each` with every move from `state` that changes something and the state it
/// leads to, in the order of [`Game::available`]; the state is made on `scratch`, whose
/// buffers are reused from move to move.
fn successors(
    game: &Game,
    state: &State,
    relevance: Option<&Relevance>,
    scratch: &mut State,
    mut each: impl FnMut(Move, &State),
) {
    for m in game.available(state) {
        if relevance.is_some_and(|r| !r.keeps(game, &m)) {
            continue;
        }
        let m = match m {
            // the oracle knows a code only once it has seen the clue, as a player would
            Move::Answer(_) => match state.view() {
                View::Item(i) => match (game.answer_of(i), game.quiz_of(i)) {
                    (Some(a), Some(q)) if state.clue_seen(q) => Move::Answer(a.to_string()),
                    _ => continue,
                },
                _ => continue,
            },
            other => other,
        };
        scratch.clone_from(state);
        game.apply(scratch, &m);
        if scratch != state {
            each(m, scratch);
        }
    }
}

/// How a search ended.
struct Search {
    /// The path to the first escaped state, if one was reached.
    solution: Option<Solution>,
    /// Every state reachable (under the search's moves) was visited: the bound was never
    /// reached.
    complete: bool,
}

/// Breadth-first search from the start; calls `visit` on every state reached (at most
/// `limit`).
fn bfs(
    game: &Game,
    limit: usize,
    relevance: Option<&Relevance>,
    visit: impl FnMut(&State),
    stop_at_exit: bool,
) -> Search {
    bfs_from(game, game.start(), limit, relevance, visit, stop_at_exit)
}

/// [`bfs`] from `start` rather than the room's start.
fn bfs_from(
    game: &Game,
    start: State,
    limit: usize,
    relevance: Option<&Relevance>,
    mut visit: impl FnMut(&State),
    stop_at_exit: bool,
) -> Search {
    // every state reached, once, in the order reached (a state's index is its place in
    // the breadth-first queue); looked up by hash, never iterated by it, so the hasher
    // reaches no output. Fx over SipHash because a suite's rooms are searched on every
    // start, and one set rather than a queue and a set because each copy of a state is
    // six allocations.
    let mut states: indexmap::IndexSet<State, rustc_hash::FxBuildHasher> =
        indexmap::IndexSet::default();
    let mut scratch = start.clone();
    states.insert(start);
    let mut fresh: Vec<(Move, State)> = Vec::new();
    let mut parent: Vec<Option<(usize, Move)>> = vec![None];
    let mut head = 0;
    let mut found = None;
    let mut complete = true;
    while let Some(current) = states.get_index(head) {
        visit(current);
        if game.escaped(current) {
            if found.is_none() {
                found = Some(head);
            }
            if stop_at_exit {
                break;
            }
            head += 1;
            continue;
        }
        // the states not reached before, in move order; added after the moves are
        // tried (`current` is borrowed from the set meanwhile)
        fresh.clear();
        successors(game, current, relevance, &mut scratch, |m, next| {
            if !states.contains(next) {
                fresh.push((m, next.clone()));
            }
        });
        for (m, next) in fresh.drain(..) {
            if states.contains(&next) {
                // two moves of this state reach it
                continue;
            }
            if states.len() >= limit {
                complete = false;
                continue;
            }
            states.insert(next);
            parent.push(Some((head, m)));
        }
        head += 1;
    }
    let solution = found.map(|mut at| {
        let mut moves = Vec::new();
        let mut path = vec![states[at].clone()];
        while let Some((p, m)) = parent[at].clone() {
            moves.push(m);
            at = p;
            path.push(states[at].clone());
        }
        moves.reverse();
        path.reverse();
        Solution {
            moves,
            states: path,
        }
    });
    Search { solution, complete }
}

/// The oracle's moves in `room` with every code replaced by a wrong one, then junk (an
/// unknown verb, a broken call, bytes that are not UTF-8, a megabyte reply): play that
/// earns no code, so nothing the agent reads may hold an answer. What the conformance
/// checks of the vis suites and of imported rooms play.
///
/// # Errors
/// What [`Game::new`] and [`solve`] return for the room.
pub fn junk(room: &crate::Room) -> Result<Vec<escapade_core::Action>, VisError> {
    use escapade_core::Action;
    let game = Game::new(room.clone())?;
    let mut out: Vec<Action> = solve(&game)?
        .moves
        .iter()
        .map(|m| match m {
            Move::Answer(_) => Action::text("<ANSWER>wrong</ANSWER>"),
            other => Action::text(game.label(other)),
        })
        .collect();
    out.extend([
        Action::text("dance"),
        Action::call("act", "{oops"),
        Action::Bytes { bytes: vec![0xff] },
        Action::text("y".repeat(1 << 20)),
    ]);
    Ok(out)
}

/// The shortest solution of `game`'s room, searching at most [`STATE_LIMIT`] states.
///
/// # Errors
/// [`VisError::Unsolvable`] when every reachable state was searched and none is out;
/// [`VisError::SearchLimit`] when the bound was reached first.
pub fn solve(game: &Game) -> Result<Solution, VisError> {
    solve_within(game, STATE_LIMIT)
}

/// A room's identity for the process-wide stores of solutions (here) and pictures
/// ([`crate::VisEnv`]): the SHA-256 of its canonical JSON (its imported pictures
/// included) and of the rule that compares answers. Two games with the same key play and
/// draw alike.
pub fn room_key(game: &Game) -> String {
    let mut bytes = serde_json::to_vec(game.room()).unwrap_or_default();
    bytes.extend_from_slice(format!("{:?}", game.answer_rule()).as_bytes());
    escapade_core::hash::sha256_hex(&bytes)
}

/// Solutions kept by [`solve_shared`] at most; past it the store starts again empty (a
/// suite has tens of rooms, a solution a few kilobytes).
const SOLVED_MAX: usize = 4096;

static SOLVED: Mutex<BTreeMap<String, Arc<Solution>>> = Mutex::new(BTreeMap::new());

/// [`solve`], searched once per room in a process: an episode's environment (for the
/// oracle's step count and essential views) and its oracle agent (for its plan) share
/// the search, and so do the epochs of a run. A room that cannot be solved is searched
/// again each time (its error is not kept).
pub fn solve_shared(game: &Game) -> Result<Arc<Solution>, VisError> {
    solve_keyed(&room_key(game), game)
}

/// [`solve_shared`] for a game whose [`room_key`] is `key`.
pub(crate) fn solve_keyed(key: &str, game: &Game) -> Result<Arc<Solution>, VisError> {
    let lock = || SOLVED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(found) = lock().get(key) {
        return Ok(found.clone());
    }
    // searched outside the lock: environments of other rooms go on meanwhile
    let solution = Arc::new(solve(game)?);
    let mut solved = lock();
    if solved.len() >= SOLVED_MAX {
        solved.clear();
    }
    solved.insert(key.to_string(), solution.clone());
    Ok(solution)
}

/// [`solve`] with a bound of `limit` states.
pub fn solve_within(game: &Game, limit: usize) -> Result<Solution, VisError> {
    let relevance = Relevance::of(game);
    let search = bfs(game, limit, Some(&relevance), |_| {}, true);
    match search {
        Search {
            solution: Some(s), ..
        } => Ok(s),
        Search { complete: true, .. } => Err(VisError::Unsolvable {
            room: game.room().id.clone(),
        }),
        Search { .. } => Err(VisError::SearchLimit {
            room: game.room().id.clone(),
            states: limit,
        }),
    }
}

/// The oracle's distance at every state of a play ([`escapade_core::Env::steps_to_go`]):
/// the fewest moves from a state to the exit, by the same search as [`solve`] started
/// from that state (so a code counts only after its clue was seen, and every move costs
/// one step).
///
/// **Why a store.** A search from each state a player reaches would cost a whole solve
/// per step. The store starts with the oracle's own path (its states' distances are its
/// remaining lengths) and keeps every path a search finds (each state on a shortest path
/// is as far from the exit as the rest of the path), so the oracle's play and any return
/// to a state searched before cost a look-up. Values are exact whatever the store holds,
/// so play stays deterministic.
#[derive(Debug)]
pub struct Distances {
    relevance: Relevance,
    known: rustc_hash::FxHashMap<State, u32>,
    limit: usize,
}

impl Distances {
    /// The store for `game`, holding the oracle's `solution`; searches stop after
    /// `limit` states (a state past it has no known distance).
    pub fn new(game: &Game, solution: &Solution, limit: usize) -> Distances {
        let n = solution.states.len();
        let known = solution
            .states
            .iter()
            .enumerate()
            .map(|(k, s)| (s.clone(), (n - 1 - k) as u32))
            .collect();
        Distances {
            relevance: Relevance::of(game),
            known,
            limit,
        }
    }

    /// The fewest moves from `state` to the exit (0 when out); `None` when the exit
    /// cannot be reached from it or the search reached its bound.
    pub fn of(&mut self, game: &Game, state: &State) -> Option<u32> {
        if let Some(d) = self.known.get(state) {
            return Some(*d);
        }
        if game.escaped(state) {
            return Some(0);
        }
        let search = bfs_from(
            game,
            state.clone(),
            self.limit,
            Some(&self.relevance),
            |_| {},
            true,
        );
        let path = search.solution?;
        let n = path.states.len();
        for (k, s) in path.states.into_iter().enumerate() {
            self.known.entry(s).or_insert((n - 1 - k) as u32);
        }
        Some((n - 1) as u32)
    }
}

/// Visits every state reachable from the start by any move (at most `limit`); true when
/// all of them were visited.
pub fn explore(game: &Game, limit: usize, visit: impl FnMut(&State)) -> bool {
    bfs(game, limit, None, visit, false).complete
}

/// Visits every state reachable from the start by the moves the oracle tries
/// ([`Relevance::keeps`]), at most `limit`; true when all of them were visited. The
/// states of irrelevant receptacles stay as they start.
pub fn explore_relevant(
    game: &Game,
    relevance: &Relevance,
    limit: usize,
    visit: impl FnMut(&State),
) -> bool {
    explore_solving(game, relevance, limit, visit).0
}

/// [`explore_relevant`], and the oracle's solution found on the way: the search is
/// [`solve_within`]'s, carried on past the exit, so its first escaped state and the path
/// to it are the ones [`solve_within`] returns for the same `limit`.
pub(crate) fn explore_solving(
    game: &Game,
    relevance: &Relevance,
    limit: usize,
    visit: impl FnMut(&State),
) -> (bool, Option<Solution>) {
    let search = bfs(game, limit, Some(relevance), visit, false);
    (search.complete, search.solution)
}

/// Keeps `solution` as [`solve_shared`]'s for `game`, so that no environment or oracle
/// agent of this process searches the room again: for a room whose solution an
/// exploration already found ([`explore_solving`] with [`STATE_LIMIT`]).
pub(crate) fn keep_solution(game: &Game, solution: Solution) {
    let key = room_key(game);
    let mut solved = SOLVED.lock().unwrap_or_else(|p| p.into_inner());
    if solved.len() >= SOLVED_MAX {
        solved.clear();
    }
    solved.entry(key).or_insert_with(|| Arc::new(solution));
}

/// Whether [`solve_shared`] holds a solution for the room whose [`room_key`] is `key`.
#[cfg(test)]
pub(crate) fn is_kept(key: &str) -> bool {
    SOLVED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .contains_key(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tiny_bound_is_a_search_limit_not_an_unsolvable_room() {
        let game = Game::new(crate::generator::generate(1, 3).unwrap()).unwrap();
        let err = solve_within(&game, 5).unwrap_err();
        assert!(
            matches!(err, VisError::SearchLimit { states: 5, .. }),
            "{err}"
        );
        let said = err.to_string();
        assert!(!said.contains("cannot be escaped"), "{said}");
        assert!(solve(&game).is_ok());
    }
}
