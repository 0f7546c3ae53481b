//! How an episode ended, in the words a reader uses: escaped, out of budget, gave up,
//! unreadable reply, error, or not escaped.
//!
//! A run directory does not store this word: it follows from the episode row (success,
//! the error that stopped it) and its last step (a limit, a reply the world could not
//! read). Reading it in one place keeps the terminal's closing line, the episode page's
//! banner and the error counts of the runs page and the report in agreement. A person
//! who quits (`:quit` at a terminal, the give-up button of a page) is recorded with the
//! error [`GAVE_UP`]: the episode stopped before its end, but nothing failed, so it is
//! no error in any count.

use escapade_core::{EpisodeRow, StepRow};
use serde::Serialize;

/// The `error` of an episode row whose person gave up.
pub const GAVE_UP: &str = "gave up";

/// What a person's agent says when the person quits; the player turns it into
/// [`GAVE_UP`].
pub const PLAYER_QUIT: &str = "the player gave up";

/// The error kind of a step whose reply the world could not read (MM-Escape's, whose
/// game ends on one after the re-asks by default: `-W unreadable=end`).
pub const UNREADABLE_KIND: &str = "parse";

/// What the ending reads of an episode's last step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Last {
    /// The world could not read the step's reply ([`UNREADABLE_KIND`]).
    pub unreadable: bool,
    /// The task ended at the step.
    pub terminated: bool,
    /// A limit ended the episode at the step.
    pub truncated: bool,
}

impl Last {
    /// What the ending reads of a step: its error kind and how it ended.
    pub fn of(error: Option<&str>, terminated: bool, truncated: bool) -> Last {
        Last {
            unreadable: error == Some(UNREADABLE_KIND),
            terminated,
            truncated,
        }
    }
}

/// How an episode ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Ending {
    /// The agent escaped (solved the task).
    Escaped,
    /// A limit ended the episode: the world's (steps, turns, mistakes, time) or the
    /// run's step cap (`--max-steps`).
    Budget,
    /// The person quit.
    GaveUp,
    /// The world ended the game on a reply it could not read, after the re-asks.
    Unreadable,
    /// The episode could not be played to its end: the agent or the environment failed.
    Error,
    /// The task ended without an escape (a wrong final answer, a bomb that went off).
    NotEscaped,
}

impl Ending {
    /// The ending of `row`, whose trajectory's last step is `last`.
    pub fn of(row: &EpisodeRow, last: Option<&StepRow>) -> Ending {
        Ending::from_parts(
            row.success,
            row.error.as_deref(),
            row.step_cap,
            last.map(|s| Last::of(s.error.as_deref(), s.terminated, s.truncated)),
        )
    }

    /// The ending of an episode that escaped or not (`success`), stopped with `error` or
    /// not, or by the run's step cap (`step_cap`), and whose last step, when it took
    /// one, was `last`.
    pub fn from_parts(
        success: bool,
        error: Option<&str>,
        step_cap: bool,
        last: Option<Last>,
    ) -> Ending {
        if success && error.is_none() {
            return Ending::Escaped;
        }
        match error {
            Some(e) if gave_up(e) => return Ending::GaveUp,
            Some(_) => return Ending::Error,
            None if step_cap => return Ending::Budget,
            None => {}
        }
        match last {
            Some(s) if s.unreadable && (s.terminated || s.truncated) => Ending::Unreadable,
            Some(s) if s.truncated => Ending::Budget,
            _ => Ending::NotEscaped,
        }
    }

    /// The ending in a few words (`escaped`, `out of budget`, `gave up`, …).
    pub fn label(self) -> &'static str {
        match self {
            Ending::Escaped => "escaped",
            Ending::Budget => "out of budget",
            Ending::GaveUp => "gave up",
            Ending::Unreadable => "unreadable reply",
            Ending::Error => "error",
            Ending::NotEscaped => "not escaped",
        }
    }

    /// What the ending means, in one sentence.
    pub fn meaning(self) -> &'static str {
        match self {
            Ending::Escaped => "The task was solved.",
            Ending::Budget => {
                "A limit (the world's steps, turns or mistakes, or the run's step cap) ended \
                 the episode."
            }
            Ending::GaveUp => "The player quit before the end.",
            Ending::Unreadable => "The world ended the game on a reply it could not read.",
            Ending::Error => "The episode could not be played to its end.",
            Ending::NotEscaped => "The task ended without being solved.",
        }
    }
}

/// Whether an episode's `error` says its person gave up (also as recorded before
/// [`GAVE_UP`]: `agent failed: the player gave up`).
pub fn gave_up(error: &str) -> bool {
    error == GAVE_UP || error.strip_prefix("agent failed: ") == Some(PLAYER_QUIT)
}

/// Whether `row` ended with an error: one that is not the person giving up.
pub fn is_error(row: &EpisodeRow) -> bool {
    row.error.as_deref().is_some_and(|e| !gave_up(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(success: bool, error: Option<&str>) -> EpisodeRow {
        serde_json::from_value(serde_json::json!({
            "format_version": 1, "suite": "s@1", "scenario": "a", "scenario_hash": "h",
            "world": "w", "difficulty": 1, "epoch": 0, "seed": 1, "agent": "human",
            "config_hash": "c", "success": success, "steps": 2, "metrics": {},
            "usage": {"input": 0, "output": 0, "cached": 0, "cost_usd": 0.0, "latency_ms": 0},
            "duration_ms": 3, "error": error
        }))
        .unwrap()
    }

    fn step(error: Option<&str>, terminated: bool, truncated: bool) -> StepRow {
        serde_json::from_value(serde_json::json!({
            "format_version": 1, "step": 2, "t_ms": 1, "role": "agent",
            "observation": {"text": "", "images": []}, "request": null,
            "raw_response": null, "reasoning": null, "action": {"kind": "text", "text": "x"},
            "valid": error.is_none(), "feedback": "", "progress": 0.0,
            "terminated": terminated, "truncated": truncated,
            "usage": {"input": 0, "output": 0, "cached": 0, "cost_usd": 0.0, "latency_ms": 0},
            "error": error
        }))
        .unwrap()
    }

    #[test]
    fn each_ending_from_its_row() {
        assert_eq!(Ending::of(&row(true, None), None), Ending::Escaped);
        assert_eq!(Ending::of(&row(false, Some(GAVE_UP)), None), Ending::GaveUp);
        let old = row(false, Some("agent failed: the player gave up"));
        assert_eq!(Ending::of(&old, None), Ending::GaveUp);
        assert!(!is_error(&old));
        let failed = row(false, Some("agent failed: timeout"));
        assert_eq!(Ending::of(&failed, None), Ending::Error);
        assert!(is_error(&failed));
        let lost = row(false, None);
        let budget = step(None, false, true);
        assert_eq!(Ending::of(&lost, Some(&budget)), Ending::Budget);
        // MM-Escape ends the game on a reply it cannot read, as a truncation
        let unread = step(Some(UNREADABLE_KIND), false, true);
        assert_eq!(Ending::of(&lost, Some(&unread)), Ending::Unreadable);
        // a wrong tool call is no unreadable reply
        let wrong = step(Some("wrong_parameter"), false, true);
        assert_eq!(Ending::of(&lost, Some(&wrong)), Ending::Budget);
        assert_eq!(
            Ending::of(&lost, Some(&step(None, true, false))),
            Ending::NotEscaped
        );
        // the run's step cap, with no step row saying so
        let capped = EpisodeRow {
            step_cap: true,
            ..row(false, None)
        };
        assert_eq!(Ending::of(&capped, None), Ending::Budget);
        assert_eq!(Ending::GaveUp.label(), "gave up");
    }
}
