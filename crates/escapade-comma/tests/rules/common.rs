//! Helpers shared by the rule tests: proptest settings, a stream of random choices, and
//! the checks every puzzle's play makes on `act`, `correct_actions` and `progress`.

use escapade_comma::Puzzle;
use proptest::prelude::*;
use proptest::test_runner::Config;

/// Proptest settings: `cases` random cases, no regression files written.
pub fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

/// Random choices made during play (drawn by proptest so a failure shrinks towards "always
/// the first choice"); 0 once used up.
#[derive(Debug, Clone)]
pub struct Dice {
    rolls: Vec<u32>,
    at: usize,
}

impl Dice {
    /// Up to 400 choices.
    pub fn strategy() -> impl Strategy<Value = Dice> {
        proptest::collection::vec(any::<u32>(), 0..400).prop_map(|rolls| Dice { rolls, at: 0 })
    }

    fn roll(&mut self) -> u32 {
        let r = self.rolls.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        r
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        let r = self.roll() as usize;
        if n == 0 { 0 } else { r % n }
    }

    /// True with probability `k`/8 (false once the choices are used up).
    pub fn eighths(&mut self, k: u32) -> bool {
        self.roll() % 8 >= 8 - k
    }

    /// One element of `xs` (which must not be empty).
    pub fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())].clone()
    }
}

/// `v` sorted, for comparing sets of actions given in any order.
pub fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// Checks that the puzzle's `correct_actions()` are exactly `expected` (as a set, with no
/// repeats), naming `what` the test saw.
pub fn assert_answer(p: &dyn Puzzle, expected: &[String], what: &str) {
    let got = p.correct_actions();
    let mut dedup = sorted(got.clone());
    dedup.dedup();
    assert_eq!(
        dedup.len(),
        got.len(),
        "repeated correct actions {got:?}\n{what}"
    );
    assert_eq!(
        sorted(got),
        sorted(expected.to_vec()),
        "correct_actions disagree with App. A\n{what}"
    );
}

/// Acts `action` (right by the independent rules): it must not be a mistake.
pub fn act_right(p: &mut dyn Puzzle, action: &str, what: &str) {
    let r = p.act(action);
    assert!(
        !r.mistake,
        "the right action {action} counted as a mistake ({})\n{what}",
        r.feedback
    );
}

/// Acts `action` (wrong by the independent rules): it must be a mistake and must not
/// solve the puzzle.
pub fn act_wrong(p: &mut dyn Puzzle, action: &str, what: &str) {
    let r = p.act(action);
    assert!(
        r.mistake,
        "the wrong action {action} was not a mistake ({})\n{what}",
        r.feedback
    );
    assert!(
        !p.solved(),
        "the wrong action {action} solved the puzzle\n{what}"
    );
}

/// The actions of `p` that are not in `answer`.
pub fn others(p: &dyn Puzzle, answer: &[String]) -> Vec<String> {
    p.actions()
        .into_iter()
        .filter(|a| !answer.contains(a))
        .collect()
}

/// Once solved: no correct action is left, progress is 1, and every action is harmless.
pub fn assert_finished(p: &mut dyn Puzzle, what: &str) {
    assert!(p.solved(), "not solved\n{what}");
    assert!(
        p.correct_actions().is_empty(),
        "correct actions after solving\n{what}"
    );
    assert_eq!(p.progress(), 1.0, "progress after solving\n{what}");
    for a in p.actions() {
        assert!(
            !p.act(&a).mistake,
            "{a} after solving was a mistake\n{what}"
        );
    }
    assert!(
        p.solved(),
        "an action after solving unsolved the puzzle\n{what}"
    );
}

/// Progress is `expected` (to rounding).
pub fn assert_progress(p: &dyn Puzzle, expected: f64, what: &str) {
    let got = p.progress();
    assert!(
        (got - expected).abs() < 1e-9,
        "progress {got}, expected {expected}\n{what}"
    );
}

/// The text between `start` and the next `end` in `s` (after `start`'s first occurrence).
pub fn between<'a>(s: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = s.find(start)? + start.len();
    let len = s[from..].find(end)?;
    Some(&s[from..from + len])
}
