//! The baselines: the oracle, which proves every scenario escapable through the
//! environment's own rules, and the seeded random player, the floor any model should
//! beat. Every world names its baselines' module `baseline`.

pub mod oracle; // the oracle: the plan played through JSON actions
pub mod random; // the seeded random player

pub use oracle::OracleAgent;
pub use random::RandomAgent;
