//! The reward a trainer sees (`reward=sparse|progress|distance`, a reset option of the
//! OpenEnv server and a keyword of the Python environments).
//!
//! Why a choice: the papers define metrics over whole episodes, not rewards; an RL
//! trainer needs a number per step, and which one shapes learning. `progress` (the
//! default) is the increase of the world's task progress, so an episode's rewards add up
//! to its final progress; `sparse` is 1 on the step that escapes and 0 otherwise;
//! `distance` is the decrease of the oracle's distance ([`crate::Env::steps_to_go`]) over
//! the step — one per step along a shortest way out, negative for a step away from it,
//! 0 where the world cannot say. The papers' metrics never read it.

use crate::CoreError;

/// Which reward a trainer sees (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Reward {
    /// The increase of task progress (in `[0, 1]`) over the step.
    #[default]
    Progress,
    /// 1 on the step that escapes, else 0.
    Sparse,
    /// The decrease of the oracle's distance over the step (0 where it is unknown).
    Distance,
}

/// Where an episode stands before or after a step, as far as the rewards care.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Standing {
    /// Task progress in `[0, 1]`.
    pub progress: f64,
    /// The oracle's distance from here, if the world can say.
    pub steps_to_go: Option<u32>,
    /// The episode has been won.
    pub success: bool,
}

impl Reward {
    /// The option's name for each choice.
    pub const NAMES: [&'static str; 3] = ["progress", "sparse", "distance"];

    /// Reads `value` (`progress`, `sparse` or `distance`; case-insensitive).
    ///
    /// # Errors
    /// [`CoreError::BadOption`] naming the choices.
    pub fn parse(value: &str) -> Result<Reward, CoreError> {
        crate::options::choose(
            "reward",
            value,
            &[
                ("progress", Reward::Progress),
                ("sparse", Reward::Sparse),
                ("distance", Reward::Distance),
            ],
        )
    }

    /// The option's value naming this choice.
    pub fn name(self) -> &'static str {
        match self {
            Reward::Progress => "progress",
            Reward::Sparse => "sparse",
            Reward::Distance => "distance",
        }
    }

    /// The reward of the step from `before` to `after`.
    pub fn of(self, before: Standing, after: Standing) -> f64 {
        match self {
            Reward::Progress => after.progress - before.progress,
            Reward::Sparse => f64::from(u8::from(after.success && !before.success)),
            Reward::Distance => match (before.steps_to_go, after.steps_to_go) {
                (Some(b), Some(a)) => f64::from(b) - f64::from(a),
                _ => 0.0,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(progress: f64, steps_to_go: Option<u32>, success: bool) -> Standing {
        Standing {
            progress,
            steps_to_go,
            success,
        }
    }

    #[test]
    fn each_reward_reads_the_step_its_own_way() {
        let (before, after) = (at(0.25, Some(3), false), at(0.5, Some(2), false));
        assert_eq!(Reward::Progress.of(before, after), 0.25);
        assert_eq!(Reward::Sparse.of(before, after), 0.0);
        assert_eq!(Reward::Distance.of(before, after), 1.0);
        // the escape: sparse pays once
        let out = at(1.0, Some(0), true);
        assert_eq!(Reward::Sparse.of(after, out), 1.0);
        assert_eq!(Reward::Sparse.of(out, out), 0.0);
        // a step away from the way out, and a world that cannot say
        assert_eq!(Reward::Distance.of(after, at(0.5, Some(5), false)), -3.0);
        assert_eq!(Reward::Distance.of(at(0.0, None, false), after), 0.0);
    }

    #[test]
    fn names_read_back_and_anything_else_is_refused() {
        for name in Reward::NAMES {
            assert_eq!(Reward::parse(name).unwrap().name(), name);
        }
        assert_eq!(Reward::parse(" Distance ").unwrap(), Reward::Distance);
        let e = Reward::parse("dense").unwrap_err().to_string();
        assert!(e.contains("progress, sparse, distance"), "{e}");
        assert_eq!(Reward::default(), Reward::Progress);
    }
}
