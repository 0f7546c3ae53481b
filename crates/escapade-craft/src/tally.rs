//! The per-episode counters of the craft world and the metrics made from them
//! (MM-Escape §3.3 Eqs. 1–3, Tables 2–4 and 8, Fig. 4).
//!
//! Why its own module: the metric names are a published interface (they appear in every
//! `episodes.jsonl` row and report), so they are defined in one place with their
//! meaning. Token and cost shares of Table 4 are not computed here: the runner records
//! usage per step, so the share of cost up to `steps_to_password` (etc.) can be computed
//! from the trajectory afterwards with these step counts.

use std::collections::BTreeMap;

/// Counters kept while an episode is played.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    /// Steps taken.
    pub steps: u32,
    /// Steps that acted on the object under the dot (grab, item use or input).
    pub grabs: u32,
    /// Of those, the ones that took a prop or opened a box or door.
    pub grab_successes: u32,
    /// Replies that could not be read as an action.
    pub invalid: u32,
    /// Metres actually walked.
    pub distance: f32,
    /// Step at which the first password became known.
    pub step_password: Option<u32>,
    /// Step at which the first key entered the bag.
    pub step_key: Option<u32>,
    /// Step at which the last key or password was obtained.
    pub step_last_prop: Option<u32>,
    /// Step at which the agent escaped.
    pub step_escape: Option<u32>,
    /// Rooms left through their exit.
    pub rooms_escaped: u32,
}

/// What [`Tally::metrics`] needs besides the counters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Facts {
    /// Keys and notes collected (visible or from boxes).
    pub collected: usize,
    /// Keys and notes of all chains (the prop-gain denominator, Eq. 1).
    pub collectible: usize,
    /// Path length of the oracle's solution, metres (Table 8).
    pub optimal_distance: f32,
    /// Whether room 1's exit is in view at the start (Fig. 4).
    pub exit_visible_at_start: bool,
    /// For a two-room game: whether it was played bootstrapped (room 1 shown solved,
    /// Table 3) or autonomously (App. F); `None` for a single room.
    pub bootstrapped: Option<bool>,
}

impl Tally {
    /// The metrics, by name. A metric that is undefined for the episode (prop gain
    /// without props, a step count never reached) is absent rather than NaN.
    ///
    /// - `prop_gain`: collected ÷ collectible keys and notes (Eq. 1);
    /// - `grab_count`, `grab_success_rate` (Eq. 2; 0 for an episode without grabs, as
    ///   the original's evaluator `eval_rst.py` counts it), `grab_ratio` = grabs ÷ steps
    ///   (Eq. 3);
    /// - `steps_to_password`: steps from the start to the first password (Table 4 #PW);
    /// - `steps_to_key`: steps to the first key, counted from the first password when
    ///   one came before it (Table 4 #Key);
    /// - `steps_to_exit`: steps from the last key or password (or the start) to the
    ///   escape (Table 4 #Exit);
    /// - `password_share`, `key_share`, `exit_share`: each of those ÷ steps;
    /// - `distance_moved`, `optimal_distance` (metres, Table 8);
    /// - `exit_visible_at_start` (0 or 1, Fig. 4); `invalid_actions`; `rooms_escaped`;
    /// - `bootstrapped` (two-room games only): 1 when room 1 was shown solved (Table 3),
    ///   0 when both rooms were played (App. F).
    pub fn metrics(&self, facts: &Facts) -> BTreeMap<String, f64> {
        let mut m = BTreeMap::new();
        let steps = f64::from(self.steps);
        let mut put = |k: &str, v: f64| {
            m.insert(k.to_string(), v);
        };
        if facts.collectible > 0 {
            put(
                "prop_gain",
                facts.collected as f64 / facts.collectible as f64,
            );
        }
        put("grab_count", f64::from(self.grabs));
        put(
            "grab_success_rate",
            if self.grabs > 0 {
                f64::from(self.grab_successes) / f64::from(self.grabs)
            } else {
                0.0
            },
        );
        if self.steps > 0 {
            put("grab_ratio", f64::from(self.grabs) / steps);
        }
        let share = |v: u32| {
            if steps > 0.0 {
                f64::from(v) / steps
            } else {
                0.0
            }
        };
        if let Some(p) = self.step_password {
            put("steps_to_password", f64::from(p));
            put("password_share", share(p));
        }
        if let Some(k) = self.step_key {
            let from = self.step_password.filter(|p| *p <= k).unwrap_or(0);
            put("steps_to_key", f64::from(k - from));
            put("key_share", share(k - from));
        }
        if let Some(e) = self.step_escape {
            let from = self.step_last_prop.filter(|p| *p <= e).unwrap_or(0);
            put("steps_to_exit", f64::from(e - from));
            put("exit_share", share(e - from));
        }
        put("distance_moved", round_cm(self.distance));
        put("optimal_distance", round_cm(facts.optimal_distance));
        put(
            "exit_visible_at_start",
            if facts.exit_visible_at_start {
                1.0
            } else {
                0.0
            },
        );
        put("invalid_actions", f64::from(self.invalid));
        put("rooms_escaped", f64::from(self.rooms_escaped));
        if let Some(b) = facts.bootstrapped {
            put("bootstrapped", if b { 1.0 } else { 0.0 });
        }
        m
    }
}

/// Metres rounded to whole centimetres (stable across platforms' float printing).
fn round_cm(v: f32) -> f64 {
    (f64::from(v) * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_4_steps_are_measured_from_the_previous_milestone() {
        let t = Tally {
            steps: 20,
            grabs: 4,
            grab_successes: 3,
            step_password: Some(5),
            step_key: Some(12),
            step_last_prop: Some(12),
            step_escape: Some(20),
            ..Tally::default()
        };
        let m = t.metrics(&Facts {
            collected: 2,
            collectible: 2,
            optimal_distance: 7.123,
            exit_visible_at_start: true,
            bootstrapped: Some(true),
        });
        assert_eq!(m["steps_to_password"], 5.0);
        assert_eq!(m["steps_to_key"], 7.0);
        assert_eq!(m["steps_to_exit"], 8.0);
        assert_eq!(m["exit_share"], 0.4);
        assert_eq!(m["grab_success_rate"], 0.75);
        assert_eq!(m["grab_ratio"], 0.2);
        assert_eq!(m["prop_gain"], 1.0);
        assert_eq!(m["optimal_distance"], 7.12);
        assert_eq!(m["bootstrapped"], 1.0);
        let empty = Tally::default().metrics(&Facts {
            collected: 0,
            collectible: 0,
            optimal_distance: 0.0,
            exit_visible_at_start: false,
            bootstrapped: None,
        });
        assert!(!empty.contains_key("prop_gain") && !empty.contains_key("bootstrapped"));
        // no grab at all counts as a grab success rate of 0, as the original scores it
        assert_eq!(empty["grab_success_rate"], 0.0);
    }
}
