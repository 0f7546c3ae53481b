//! Integration tests of escapade-run against `counter`, a small fake world.

mod compare; // two runs paired on their scenarios: a known difference found, none between equal runs
mod distributed; // episodes played by workers, committed once, equal to a single-process run
mod episodes; // concurrency independence, errors end episodes not runs, cap, limit, seeds
mod fake; // the toy CounterWorld (escapade-testkit): rows, specs and runs into a folder
mod files; // a run directory has every file, with valid rows flushed as they are written
mod harness; // LLM agents on scripted backends: faults, retryable rows, re-asks, shards, 256 in flight
mod interrupt; // a run stopped mid-episode checkpoints it; resume continues it as if never stopped (vis, comma)
mod judge; // escapade judge: reply parsing, prompt golden file, aggregation, resume, retries
mod judge_craft; // the craft judges: intent (successful steps, escape case) and debrief (two calls)
mod play; // a person plays through a reader and a writer, optionally recorded
mod plots; // plot files per run set: well-formed SVG, decodable PNG, identical bytes
mod remote; // an episode played from outside: turns, re-asks, endings, records, cancel safety
mod report; // report shapes, exact mean/se, shards merged, runs side by side, usage
mod resume; // resume skips finished episodes, cuts a torn line, refuses other configs
mod roles; // a team of one agent per role takes turns; steps name their role
mod stats; // intervals, pass@k and McNemar against scipy and statsmodels on fixed data
mod suite; // build_suite, write_suite and resolving suites, files and directories
