//! The tools world end to end: generation, the environment contract, the oracle, the
//! error taxonomy and the metrics.

use std::sync::{Arc, OnceLock};

use escapade_core::Action;
use escapade_core::check::check_env;
use escapade_core::env::{Env, World};
use escapade_tools::protocol::ErrorKind;
use escapade_tools::scenario::ToolsScenario;
use escapade_tools::template::NodeKind;
use escapade_tools::{ToolsEnv, ToolsWorld};

fn world() -> &'static ToolsWorld {
    static W: OnceLock<ToolsWorld> = OnceLock::new();
    W.get_or_init(|| ToolsWorld::new().expect("python3 sandbox available"))
}

fn env_for(s: &ToolsScenario) -> ToolsEnv {
    ToolsEnv::new(Arc::new(s.clone()), world().runner())
}

/// Junk and exploration that never solves anything: what check_env plays.
fn junk(s: &ToolsScenario) -> Vec<Action> {
    let mut out = vec![
        Action::text("investigate N000"),
        Action::text("call N000 {}"),
        Action::text("hello"),
        Action::call("call_tool", "{not json"),
        Action::Bytes {
            bytes: vec![0xff, 0xfe, b'x'],
        },
        Action::text("x".repeat(1 << 20)),
        Action::text("submit_answer wrong"),
    ];
    for n in s.nodes.iter().filter(|n| !n.hidden) {
        out.push(Action::text(format!("investigate {}", n.id)));
        out.push(Action::text(format!("call {} {{\"nope\": \"1\"}}", n.id)));
    }
    out
}

macro_rules! check_suite_tier {
    ($name:ident, $difficulty:expr, $count:expr) => {
        #[test]
        fn $name() {
            let scenarios = world().build_tiers(&[($difficulty, $count)]).unwrap();
            assert_eq!(scenarios.len(), $count);
            for s in &scenarios {
                let mut env = env_for(s);
                check_env(&mut env, 1, &junk(s)).unwrap_or_else(|e| panic!("{}: {e}", s.id));
                let report = world().oracle(&s.to_json()).unwrap();
                assert!(report.solved, "{} not solved by the oracle", s.id);
                assert_eq!(report.steps, s.min_tool_calls);
            }
        }
    };
}

check_suite_tier!(tier_5_conforms, 5, 60);
check_suite_tier!(tier_10_conforms, 10, 20);
check_suite_tier!(tier_20_conforms, 20, 10);

#[test]
fn same_seed_same_bytes() {
    let a = world().generate(10, 7).unwrap();
    let b = world().generate(10, 7).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, world().generate(10, 8).unwrap());
    let s = ToolsScenario::from_json(&a).unwrap();
    assert_eq!(s.nodes.len(), 10);
    assert_eq!(s.id, "tools-d10-s7");
}

#[test]
fn oracle_metrics_are_perfect() {
    let s = world().scenario(15, 3).unwrap();
    let mut env = env_for(&s);
    let mut agent = world().agent("oracle", &s.to_json(), 0).unwrap();
    let (outcome, steps) = escapade_core::agent::play(&mut env, agent.as_mut(), 0, 1000).unwrap();
    assert!(outcome.success);
    assert_eq!(
        steps,
        s.min_tool_calls + 1,
        "tool calls plus one submission"
    );
    let m = &outcome.metrics;
    assert_eq!(m["sub_problem_resolution"], 1.0);
    assert_eq!(m["tool_calls"], s.min_tool_calls as f64);
    assert_eq!(
        m.get("premature_invocation_rate").copied().unwrap_or(0.0),
        0.0
    );
    assert_eq!(m.get("clue_adherence_rate").copied().unwrap_or(1.0), 1.0);
    assert_eq!(m.get("source_convergence").copied().unwrap_or(1.0), 1.0);
    if let Some(d) = m.get("hidden_discovery") {
        assert_eq!(*d, 1.0);
    }
    for k in ErrorKind::ALL {
        assert_eq!(m[&format!("errors_{}", k.name())], 0.0);
    }
}

fn step_error(env: &mut ToolsEnv, a: Action) -> Option<String> {
    env.step(&a).unwrap().error
}

/// A scenario with a hidden node, an item and a callable node with two or more
/// parameters.
fn rich_scenario() -> ToolsScenario {
    (0..200)
        .map(|seed| world().scenario(10, seed).unwrap())
        .find(|s| {
            s.nodes.iter().any(|n| n.hidden)
                && s.nodes
                    .iter()
                    .any(|n| n.kind == NodeKind::Item && !n.hidden)
                && s.nodes
                    .iter()
                    .any(|n| !n.hidden && n.kind == NodeKind::Tool && n.parameters().count() >= 2)
        })
        .expect("some seed has every feature")
}

#[test]
fn bad_input_maps_to_the_taxonomy() {
    let s = rich_scenario();
    let mut env = env_for(&s);
    env.reset(0);
    let hidden = s.nodes.iter().find(|n| n.hidden).unwrap();
    let item = s
        .nodes
        .iter()
        .find(|n| n.kind == NodeKind::Item && !n.hidden)
        .unwrap();
    let tool = s
        .nodes
        .iter()
        .find(|n| !n.hidden && n.kind == NodeKind::Tool && n.parameters().count() >= 2)
        .unwrap();
    let params: Vec<&String> = tool.parameters().map(|(k, _)| k).collect();
    let e = |k: ErrorKind| Some(k.name().to_string());

    assert_eq!(
        step_error(&mut env, Action::text("call N000 {}")),
        e(ErrorKind::NodeNotExist)
    );
    assert_eq!(
        step_error(&mut env, Action::text(format!("call {} {{}}", hidden.id))),
        e(ErrorKind::NodeNotVisible)
    );
    assert_eq!(
        step_error(
            &mut env,
            Action::text(format!("call {} {{\"x\": \"1\"}}", item.id))
        ),
        e(ErrorKind::WrongNodeType)
    );
    assert_eq!(
        step_error(&mut env, Action::text(format!("call {}", tool.id))),
        e(ErrorKind::MissingRequiredParameter)
    );
    assert_eq!(
        step_error(
            &mut env,
            Action::text(format!("call {} {{\"{}\": \"1\"}}", tool.id, params[0]))
        ),
        e(ErrorKind::MissingRequiredParameter)
    );
    // every parameter present, one of a wrong JSON type
    let mut obj = serde_json::Map::new();
    for p in &params {
        obj.insert(p.to_string(), serde_json::json!([1, 2]));
    }
    assert_eq!(
        step_error(
            &mut env,
            Action::call(
                "call_tool",
                serde_json::json!({"node_id": tool.id, "parameters": obj}).to_string()
            )
        ),
        e(ErrorKind::WrongParameterType)
    );
    // right names and types plus an extra parameter
    let mut golden = serde_json::Map::new();
    for (k, v) in tool.parameters() {
        golden.insert(k.clone(), serde_json::json!(v.value));
    }
    let mut extra = golden.clone();
    extra.insert("bogus".into(), serde_json::json!("1"));
    assert_eq!(
        step_error(
            &mut env,
            Action::call(
                tool.id.clone(),
                serde_json::Value::Object(extra).to_string()
            )
        ),
        e(ErrorKind::Other)
    );
    assert_eq!(
        step_error(&mut env, Action::call("call_tool", "{\"node_id\": ")),
        e(ErrorKind::WrongFormat)
    );
    assert_eq!(
        step_error(&mut env, Action::call("call_tool", "{\"parameters\": {}}")),
        e(ErrorKind::WrongFormat)
    );
    assert_eq!(
        step_error(&mut env, Action::text("y".repeat(1 << 20))),
        e(ErrorKind::WrongFormat)
    );
    assert_eq!(
        step_error(
            &mut env,
            Action::Bytes {
                bytes: vec![0xc3, 0x28]
            }
        ),
        e(ErrorKind::WrongFormat)
    );
    assert_eq!(
        step_error(&mut env, Action::text(format!("investigate {}", item.id))),
        None
    );

    let m = env.outcome().metrics;
    assert_eq!(m["errors_node_not_exist"], 1.0);
    assert_eq!(m["errors_node_not_visible"], 1.0);
    assert_eq!(m["errors_wrong_node_type"], 1.0);
    assert_eq!(m["errors_missing_required_parameter"], 2.0);
    assert_eq!(m["errors_wrong_parameter_type"], 1.0);
    assert_eq!(m["errors_other"], 1.0);
    assert_eq!(m["errors_wrong_format"], 4.0);
}

#[test]
fn per_parameter_feedback_and_repeated_solved() {
    let s = rich_scenario();
    let mut env = env_for(&s);
    env.reset(0);
    let order = escapade_tools::oracle::oracle_plan(&s);
    // play the oracle until its first call, but first send that call with one wrong value
    for a in order {
        if let escapade_tools::protocol::ToolsAction::Call { node, params } = &a {
            let (k0, v0) = params.iter().next().unwrap();
            let mut wrong = params.clone();
            wrong.insert(
                k0.clone(),
                serde_json::json!(format!("{}0", v0.as_str().unwrap())),
            );
            let bad = escapade_tools::protocol::ToolsAction::Call {
                node: node.clone(),
                params: wrong,
            };
            let step = env.step(&Action::text(bad.to_text())).unwrap();
            if step.error.as_deref() == Some("other") {
                assert!(
                    step.feedback.contains(&format!("{k0} ✗ incorrect")),
                    "{}",
                    step.feedback
                );
            }
            let ok = env.step(&Action::text(a.to_text())).unwrap();
            assert!(ok.valid, "{}", ok.feedback);
            let again = env.step(&Action::text(a.to_text())).unwrap();
            assert_eq!(again.error.as_deref(), Some("repeated_solved_node"));
            return;
        }
        env.step(&Action::text(a.to_text())).unwrap();
    }
    panic!("no call in the plan");
}

#[test]
fn budget_truncates() {
    let s = world().scenario(5, 1).unwrap();
    let mut env = env_for(&s);
    env.reset(0);
    let mut last = None;
    for _ in 0..s.step_budget {
        last = Some(env.step(&Action::text("investigate N000")).unwrap());
    }
    let last = last.unwrap();
    assert!(last.truncated && !last.terminated);
    assert!(env.step(&Action::text("give_up")).is_err());
    assert!(!env.outcome().success);
}

#[test]
fn random_agent_rarely_escapes() {
    let s = world().scenario(5, 11).unwrap();
    let mut wins = 0;
    for seed in 0..10 {
        let mut env = env_for(&s);
        let mut agent = world().agent("random", &s.to_json(), seed).unwrap();
        let (o, _) = escapade_core::agent::play(&mut env, agent.as_mut(), seed, 1000).unwrap();
        wins += o.success as u32;
    }
    assert!(wins <= 5, "random agent won {wins}/10");
}

#[test]
fn tier_statistics_near_table_3() {
    // Table 3 "Min. Required": 9.03 / 18.20 / 27.73 / 36.63 at 5 / 10 / 15 / 20 nodes.
    for (d, paper) in [(5u32, 9.03), (10, 18.20)] {
        let scenarios = world().build_tiers(&[(d, 30)]).unwrap();
        let mean = scenarios
            .iter()
            .map(|s| s.min_tool_calls as f64)
            .sum::<f64>()
            / 30.0;
        assert!(
            (mean - paper).abs() / paper < 0.15,
            "difficulty {d}: mean {mean} vs {paper}"
        );
    }
}
