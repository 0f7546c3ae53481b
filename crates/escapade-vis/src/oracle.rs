//! The oracle: the shortest way out of a room, by breadth-first search over its states.
//!
//! VisEscape reports oracle steps (§2: 27.2 on average) and measures SPL against them
//! (§4.2). The search walks the same [`Game::available`] / [`Game::apply`] moves a
//! player has, with the correct answer in place of the answer template, so a room the
//! oracle escapes is escapable through the agent interface, and its step count is a true
//! minimum (every move costs one step, navigation included). The search may enter a code
//! only after looking at its clue, so oracle steps include finding the clues.

use std::collections::HashMap;

use crate::VisError;
use crate::game::{Game, Move, State};

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

fn successors(game: &Game, state: &State) -> Vec<(Move, State)> {
    let mut out = Vec::new();
    for m in game.available(state) {
        let m = match m {
            // the oracle knows a code only once it has seen the clue, as a player would
            Move::Answer(_) => match state.view() {
                crate::game::View::Item(i) => match (game.answer_of(i), game.quiz_of(i)) {
                    (Some(a), Some(q)) if state.clue_seen(q) => Move::Answer(a.to_string()),
                    _ => continue,
                },
                _ => continue,
            },
            other => other,
        };
        let mut next = state.clone();
        game.apply(&mut next, &m);
        if next != *state {
            out.push((m, next));
        }
    }
    out
}

/// Breadth-first search from the start; calls `visit` on every state reached (at most
/// `limit`) and returns the path to the first escaped state, if any.
fn bfs(
    game: &Game,
    limit: usize,
    mut visit: impl FnMut(&State),
    stop_at_exit: bool,
) -> Option<Solution> {
    let start = game.start();
    let mut states: Vec<State> = vec![start.clone()];
    let mut parent: Vec<Option<(usize, Move)>> = vec![None];
    let mut index: HashMap<State, usize> = HashMap::from([(start, 0)]);
    let mut head = 0;
    let mut found = None;
    while head < states.len() {
        let current = states[head].clone();
        visit(&current);
        if game.escaped(&current) {
            if found.is_none() {
                found = Some(head);
            }
            if stop_at_exit {
                break;
            }
            head += 1;
            continue;
        }
        for (m, next) in successors(game, &current) {
            if index.contains_key(&next) || states.len() >= limit {
                continue;
            }
            index.insert(next.clone(), states.len());
            states.push(next);
            parent.push(Some((head, m)));
        }
        head += 1;
    }
    let mut at = found?;
    let mut moves = Vec::new();
    let mut path = vec![states[at].clone()];
    while let Some((p, m)) = parent[at].clone() {
        moves.push(m);
        at = p;
        path.push(states[at].clone());
    }
    moves.reverse();
    path.reverse();
    Some(Solution {
        moves,
        states: path,
    })
}

/// The shortest solution of `game`'s room.
pub fn solve(game: &Game) -> Result<Solution, VisError> {
    bfs(game, STATE_LIMIT, |_| {}, true).ok_or_else(|| VisError::Unsolvable(game.room().id.clone()))
}

/// Visits every state reachable from the start (at most `limit`).
pub fn explore(game: &Game, limit: usize, visit: impl FnMut(&State)) {
    let _ = bfs(game, limit, visit, false);
}
