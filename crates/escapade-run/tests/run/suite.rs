use escapade_core::{World, hash};
use escapade_run::suite::MANIFEST;
use escapade_run::{Progress, RunError, build_suite, resolve, write_suite};

use crate::fake::{CounterWorld, scenario, small_suite};

fn worlds() -> Vec<Box<dyn World>> {
    vec![Box::new(CounterWorld)]
}

#[test]
fn a_suite_is_built_hashed_and_verified() {
    let build = build_suite(&CounterWorld, "counter@1", Progress::quiet()).unwrap();
    assert!(build.all_solved());
    assert_eq!(build.scenarios.len(), 5);
    for (entry, json) in build.scenarios.iter().zip(&build.json) {
        assert_eq!(entry.hash, hash::sha256_hex(json.as_bytes()));
        assert!(entry.oracle.solved);
        assert_eq!(entry.oracle.steps, entry.difficulty);
        assert_eq!(entry.world, "counter");
    }
    let tiers: Vec<(u32, usize, Option<f64>)> = build
        .stats
        .tiers
        .iter()
        .map(|t| (t.difficulty, t.count, t.mean_oracle_steps))
        .collect();
    assert_eq!(
        tiers,
        [(1, 2, Some(1.0)), (2, 2, Some(2.0)), (3, 1, Some(3.0))]
    );
    assert_eq!((build.stats.count, build.stats.solved), (5, 5));
    assert_eq!(build.stats.min_oracle_steps, Some(1));
    assert_eq!(build.stats.max_oracle_steps, Some(3));
    let hashes: Vec<&str> = build.scenarios.iter().map(|s| s.hash.as_str()).collect();
    assert_eq!(build.stats.suite_hash, hash::content_hash(&hashes));

    let v = serde_json::to_value(&build).unwrap();
    let top: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(top, ["suite", "scenarios", "stats"]);
    let s: Vec<&String> = v["scenarios"][0].as_object().unwrap().keys().collect();
    assert_eq!(s, ["id", "world", "difficulty", "hash", "oracle"]);
    let o: Vec<&String> = v["scenarios"][0]["oracle"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(o, ["solved", "steps"]);
    assert_eq!(v["stats"]["tiers"][0]["count"], 2);

    // rebuilt byte for byte
    let again = build_suite(&CounterWorld, "counter@1", Progress::quiet()).unwrap();
    assert_eq!(again, build);
}

#[test]
fn an_oracle_failure_marks_the_scenario_unsolved() {
    let build = build_suite(&CounterWorld, "counter-broken@1", Progress::quiet()).unwrap();
    assert!(!build.all_solved());
    assert_eq!((build.stats.count, build.stats.solved), (2, 1));
    let errors = build.oracle_errors();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].0, "bad");
    assert_eq!(build.stats.tiers[0].mean_oracle_steps, Some(2.0));
}

#[test]
fn unknown_suites_name_the_known_ones() {
    let err = build_suite(&CounterWorld, "nope@1", Progress::quiet()).unwrap_err();
    assert!(err.to_string().contains("counter@1"), "{err}");
    let worlds = worlds();
    let err = resolve(&worlds, "nope@1").err().unwrap();
    assert!(matches!(err, RunError::Unknown { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("nope@1") && text.contains("counter@1, counter-broken@1"),
        "{text}"
    );
}

#[test]
fn suites_resolve_by_name_with_or_without_version() {
    let worlds = worlds();
    for name in ["counter@1", "counter"] {
        let s = resolve(&worlds, name).unwrap();
        assert_eq!(s.label, "counter@1");
        assert_eq!(s.origin, "counter@1");
        assert_eq!(s.world.name(), "counter");
        assert_eq!(s.ids(), ["c0", "c1", "c2", "c3", "c4"]);
    }
}

#[test]
fn a_written_suite_reads_back_and_detects_changes() {
    let dir = tempfile::tempdir().unwrap();
    let build = build_suite(&CounterWorld, "counter@1", Progress::quiet()).unwrap();
    write_suite(&build, dir.path()).unwrap();
    for id in ["c0", "c1", "c2", "c3", "c4"] {
        assert!(dir.path().join(format!("{id}.json")).is_file());
    }
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(MANIFEST)).unwrap()).unwrap();
    assert_eq!(manifest["suite"], "counter@1");
    let worlds = worlds();
    let s = resolve(&worlds, dir.path().to_str().unwrap()).unwrap();
    assert_eq!(s.label, "counter@1");
    let texts: Vec<&String> = s.scenarios.iter().map(|(_, j)| j).collect();
    assert_eq!(texts, build.json.iter().collect::<Vec<_>>());

    std::fs::write(dir.path().join("c3.json"), scenario("c3", 9).json()).unwrap();
    let err = resolve(&worlds, dir.path().to_str().unwrap())
        .err()
        .unwrap();
    assert!(
        err.to_string().contains("c3.json") && err.to_string().contains("changed"),
        "{err}"
    );
}

#[test]
fn files_and_plain_directories_resolve() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("mine");
    std::fs::create_dir(&plain).unwrap();
    for s in small_suite().iter().rev() {
        std::fs::write(plain.join(format!("{}.json", s.id)), s.json()).unwrap();
    }
    std::fs::write(plain.join("notes.txt"), "ignored").unwrap();
    let worlds = worlds();
    let s = resolve(&worlds, plain.to_str().unwrap()).unwrap();
    assert_eq!(s.label, "dir:mine");
    assert_eq!(s.ids(), ["c0", "c1", "c2", "c3", "c4"]);

    let file = plain.join("c2.json");
    let s = resolve(&worlds, file.to_str().unwrap()).unwrap();
    assert_eq!(s.label, "file:c2");
    assert_eq!(s.scenarios.len(), 1);
    assert!(std::path::Path::new(&s.origin).is_absolute());

    let mut alien = scenario("x", 1);
    alien.world = "vis".into();
    std::fs::write(plain.join("x.json"), alien.json()).unwrap();
    let err = resolve(&worlds, plain.join("x.json").to_str().unwrap())
        .err()
        .unwrap();
    assert!(err.to_string().contains("unknown world `vis`"), "{err}");
    let err = resolve(&worlds, plain.to_str().unwrap()).err().unwrap();
    assert!(err.to_string().contains("`counter` and `vis`"), "{err}");
}
