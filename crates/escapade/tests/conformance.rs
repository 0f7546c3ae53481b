//! `check_env` over every scenario of every suite of every world the binary plays (house
//! style §5: each world runs the conformance checker over its whole suite): determinism,
//! well-formed steps, the end guard and no secret in what an agent sees while it plays
//! junk. One test per world, so the worlds are checked side by side; a world added to the
//! registry without a test here fails `every_world_of_the_registry_is_checked`.

use std::collections::BTreeMap;

use escapade_core::check::check_env;
use escapade_core::{Action, Env, World};

// The registry itself, so that what is checked is what `escapade run` plays.
use escapade_worlds as worlds;

/// The worlds this file has a test for.
const CHECKED: [&str; 4] = ["tools", "vis", "comma", "craft"];

/// Junk any world must survive without leaking or breaking its contract: a few words
/// that are actions in some world, the first actions the world lists, every tool called
/// with empty and with broken arguments, bytes that are not UTF-8 and a megabyte reply.
fn junk(env: &mut dyn Env) -> Vec<Action> {
    let first = env.reset(0);
    let mut out: Vec<Action> = ["look around", "", "open the door", "<ANSWER>0000</ANSWER>"]
        .into_iter()
        .map(Action::text)
        .collect();
    out.extend(first.actions.iter().flatten().take(3).map(Action::text));
    for tool in env.tool_schemas() {
        out.push(Action::call(tool.name.clone(), "{}"));
        out.push(Action::call(tool.name, "{oops"));
    }
    out.push(Action::Bytes {
        bytes: vec![0xff, 0xfe],
    });
    out.push(Action::text("z".repeat(1 << 20)));
    out
}

/// Options that keep a world's pictures small where it has a frame size, so the check
/// reads every scenario in a debug build in seconds (what it checks does not depend on
/// the size).
fn quick(world: &dyn World) -> BTreeMap<String, String> {
    let keys: Vec<&str> = world.env_options().iter().map(|(k, _)| *k).collect();
    let mut options = BTreeMap::new();
    if keys.contains(&"width") && keys.contains(&"height") {
        options.insert("width".to_string(), "64".to_string());
        options.insert("height".to_string(), "32".to_string());
    }
    options
}

/// Checks one scenario; `Err` says which and why.
fn check_one(
    world: &dyn World,
    options: &BTreeMap<String, String>,
    json: &str,
) -> Result<(), String> {
    let id = serde_json::from_str::<serde_json::Value>(json)
        .ok()
        .and_then(|v| v["id"].as_str().map(str::to_string))
        .unwrap_or_default();
    let mut env = world.env(json, options).map_err(|e| format!("{id}: {e}"))?;
    let actions = junk(env.as_mut());
    check_env(env.as_mut(), 1, &actions).map_err(|e| format!("{id}: {e}"))
}

/// Checks every scenario of every suite world `name` lists, on as many threads as the
/// machine has cores; returns how many it checked.
fn check_world(name: &str) -> usize {
    let registry = worlds::worlds().expect("the worlds start");
    let world = registry
        .iter()
        .find(|w| w.name() == name)
        .unwrap_or_else(|| panic!("no world {name} in the registry"));
    let options = quick(world.as_ref());
    let mut scenarios = Vec::new();
    for suite in world.suites() {
        let built = world
            .build_suite(&suite.name)
            .unwrap_or_else(|e| panic!("{}: {e}", suite.name));
        assert!(!built.is_empty(), "{} has no scenario", suite.name);
        scenarios.extend(built);
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let started = std::time::Instant::now();
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (world, options, scenarios) = (world.as_ref(), &options, &scenarios);
                scope.spawn(move || {
                    scenarios
                        .iter()
                        .skip(t)
                        .step_by(threads)
                        .filter_map(|json| check_one(world, options, json).err())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a checking thread"))
            .collect()
    });
    assert!(failures.is_empty(), "{name}: {}", failures.join("\n"));
    eprintln!(
        "{name}: {} scenarios checked in {:.1} s",
        scenarios.len(),
        started.elapsed().as_secs_f64()
    );
    scenarios.len()
}

#[test]
fn every_world_of_the_registry_is_checked() {
    let names: Vec<&str> = worlds::worlds().unwrap().iter().map(|w| w.name()).collect();
    assert_eq!(names, CHECKED, "add a test below for each new world");
}

#[test]
fn a_world_that_shows_a_secret_fails_the_check() {
    use escapade_testkit::counter::{CounterWorld, Fault, scenario};
    let mut leaky = scenario("leaky", 2);
    leaky.secret = Some("swordfish".into());
    let clean = leaky.json();
    assert_eq!(check_one(&CounterWorld, &BTreeMap::new(), &clean), Ok(()));
    for fault in [Fault::LeaksInText, Fault::LeaksInPicture] {
        leaky.fault = Some(fault);
        let e = check_one(&CounterWorld, &BTreeMap::new(), &leaky.json()).unwrap_err();
        assert!(e.starts_with("leaky: ") && e.contains("swordfish"), "{e}");
    }
}

#[test]
fn every_tools_scenario_passes_check_env() {
    assert!(check_world("tools") > 0);
}

#[test]
fn every_vis_scenario_passes_check_env() {
    assert!(check_world("vis") > 0);
}

#[test]
fn every_comma_scenario_passes_check_env() {
    assert!(check_world("comma") > 0);
}

#[test]
fn every_craft_scenario_passes_check_env() {
    assert!(check_world("craft") > 0);
}
