//! The tools world end to end: generation, the environment contract, the oracle, the
//! error taxonomy and the metrics.

use std::sync::{Arc, OnceLock};

use escapade_core::Action;
use escapade_core::check::check_env;
use escapade_core::env::{Env, World};
use escapade_tools::interface::ErrorKind;
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
        Action::text("investigate N000\ncall N000 {}\nsubmit_answer wrong"),
        Action::Calls {
            calls: vec![
                escapade_core::FunctionCall {
                    name: "investigate".into(),
                    arguments: "{\"node_id\": \"N000\"}".into(),
                },
                escapade_core::FunctionCall {
                    name: "call_tool".into(),
                    arguments: "{oops".into(),
                },
            ],
        },
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
    let a = world().generate(10, 7, &Default::default()).unwrap();
    let b = world().generate(10, 7, &Default::default()).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, world().generate(10, 8, &Default::default()).unwrap());
    let s = ToolsScenario::from_json(&a).unwrap();
    assert_eq!(s.nodes.len(), 10);
    assert_eq!(s.id, "tools-d10-s7");
}

#[test]
fn oracle_metrics_are_perfect() {
    let s = world().scenario(15, 3).unwrap();
    let mut env = env_for(&s);
    let mut agent = world()
        .agent("oracle", &s.to_json(), 0, &Default::default())
        .unwrap();
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
    let order = escapade_tools::baseline::oracle_plan(&s);
    // play the oracle until its first call, but first send that call with one wrong value
    for a in order {
        if let escapade_tools::interface::ToolsAction::Call { node, params } = &a {
            let (k0, v0) = params.iter().next().unwrap();
            let mut wrong = params.clone();
            wrong.insert(
                k0.clone(),
                serde_json::json!(format!("{}0", v0.as_str().unwrap())),
            );
            let bad = escapade_tools::interface::ToolsAction::Call {
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
            assert!(ok.valid(), "{}", ok.feedback);
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
        let mut agent = world()
            .agent("random", &s.to_json(), seed, &Default::default())
            .unwrap();
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

fn text(plan: &[escapade_tools::interface::ToolsAction]) -> String {
    plan.iter()
        .map(|a| a.to_text())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_flag_counts_only_after_the_terminal_showed_it() {
    // §3.1: success iff the agent produces the terminal's output and submits it
    let s = world().scenario(10, 4).unwrap();
    let mut env = env_for(&s);
    env.reset(0);
    let early = env
        .step(&Action::text(format!("submit_answer {}", s.answer)))
        .unwrap();
    assert!(!early.terminated && !env.outcome().success);
    let wrong = env
        .step(&Action::text("submit_answer ESCAPE-000000000000"))
        .unwrap();
    assert_eq!(
        early.feedback, wrong.feedback,
        "before the terminal ran, a right flag reads like a wrong one"
    );
    // the terminal called with the right code before its inputs were produced: still
    // no flag (Missing dependency), and the flag still does not count
    let goal = &s.nodes[s.node_index(&s.goal).unwrap()];
    let params: serde_json::Map<String, serde_json::Value> = goal
        .parameters()
        .map(|(k, p)| (k.clone(), serde_json::json!(p.value)))
        .collect();
    let premature = env
        .step(&Action::text(format!(
            "investigate {id}\ncall {id} {}",
            serde_json::Value::Object(params),
            id = goal.id
        )))
        .unwrap();
    assert!(
        premature.feedback.contains("Missing dependency"),
        "{}",
        premature.feedback
    );
    let again = env
        .step(&Action::text(format!("submit_answer {}", s.answer)))
        .unwrap();
    assert!(!again.terminated && !env.outcome().success);
    assert_eq!(env.outcome().metrics["unearned_submissions"], 3.0);
    // once the terminal has shown it, the same flag escapes
    let plan = escapade_tools::baseline::oracle_plan(&s);
    let step = env.step(&Action::text(text(&plan))).unwrap();
    assert!(
        step.terminated && env.outcome().success,
        "{}",
        step.feedback
    );
}

#[test]
fn several_actions_per_turn_count_once_against_the_budget() {
    // App. C: a turn may hold several actions; App. B's budget counts turns
    let s = world().scenario(15, 8).unwrap();
    let plan = escapade_tools::baseline::oracle_plan(&s);
    let (work, submit) = plan.split_at(plan.len() - 1);
    let mut env = env_for(&s);
    env.reset(0);
    let step = env.step(&Action::text(text(work))).unwrap();
    assert_eq!(step.results.len(), work.len());
    assert!(step.results.iter().all(|r| r.valid), "{}", step.feedback);
    assert!(step.valid() && !step.terminated);
    assert!(step.observation.text.starts_with(&step.feedback));
    assert_eq!(
        step.observation.text, step.feedback,
        "no counter by default"
    );
    let last = env.step(&Action::text(text(submit))).unwrap();
    assert!(last.terminated && last.results.is_empty());
    let o = env.outcome();
    assert!(o.success);
    assert_eq!(o.steps, 2, "two turns");
    // metrics that count calls count every call of every turn (Table 3, B.1)
    assert_eq!(o.metrics["tool_calls"], f64::from(s.min_tool_calls));
    assert_eq!(o.metrics["actions"], plan.len() as f64);

    // errors are counted per failed call, in one turn
    let mut env = env_for(&s);
    env.reset(0);
    let step = env
        .step(&Action::text(
            "call N000 {}\ncall N001 {}\nsubmit_answer x\ncall N002",
        ))
        .unwrap();
    assert_eq!(step.results.len(), 4);
    assert_eq!(step.error.as_deref(), Some("node_not_exist"));
    assert!(!step.valid());
    let m = env.outcome().metrics;
    assert_eq!(m["errors_node_not_exist"], 3.0);
    assert_eq!(env.outcome().steps, 1);
}

#[test]
fn actions_after_the_end_of_the_episode_are_not_run() {
    let s = world().scenario(5, 2).unwrap();
    let mut env = env_for(&s);
    env.reset(0);
    let visible = s.nodes.iter().find(|n| !n.hidden).unwrap();
    let step = env
        .step(&Action::text(format!(
            "give_up\ninvestigate {}",
            visible.id
        )))
        .unwrap();
    assert!(step.terminated);
    assert_eq!(step.results.len(), 2);
    assert!(step.results[1].feedback.contains("Not executed"));
    assert!(
        step.valid(),
        "the unrun action does not make the turn invalid"
    );
    assert_eq!(env.outcome().metrics["investigations"], 0.0);
}

#[test]
fn the_suite_declares_the_papers_settings_and_retires_its_first_version() {
    let suites = world().suites();
    assert_eq!(suites.len(), 1);
    let spec = &suites[0];
    assert_eq!(spec.name, escapade_tools::AGENTESCAPE_V2);
    // §3.1: 60 instances at 5, 10, 15 and 20 nodes, 30 at 25
    assert_eq!(
        spec.tiers,
        [(5, 60), (10, 60), (15, 60), (20, 60), (25, 30)]
    );
    // App. B: temperature 0.7, one run per instance
    assert_eq!(
        spec.settings.agent.get("temperature").map(String::as_str),
        Some("0.7")
    );
    assert_eq!(spec.settings.agent.len(), 1);
    assert_eq!(spec.settings.epochs, None);
    assert!(spec.settings.source.contains("App. B"));
    let retired = world().retired_suites();
    assert_eq!(retired[0].name, escapade_tools::AGENTESCAPE_V1);
    assert_eq!(retired[0].replaced_by, escapade_tools::AGENTESCAPE_V2);
    assert!(world().build_suite("agentescape@1").is_err());
}

#[test]
fn step_budgets_follow_appendix_b() {
    for (d, budget) in [(5, 35), (10, 80), (15, 130), (20, 160), (25, 200)] {
        assert_eq!(escapade_tools::scenario::step_budget(d), budget);
        let s = world().scenario(d, 1).unwrap();
        assert_eq!(s.step_budget, budget);
        let mut env = env_for(&s);
        assert!(
            env.reset(0)
                .text
                .contains(&format!("You have {budget} turns"))
        );
    }
}

#[test]
fn clues_hint_by_default_and_wire_with_the_literal_option() {
    let s = rich_scenario();
    let json = s.to_json();
    let wired = s
        .nodes
        .iter()
        .find(|n| {
            !n.hidden
                && n.parameters().any(|(port, _)| {
                    s.edges.iter().any(|e| {
                        e.to == n.id
                            && &e.to_port == port
                            && !s.nodes[s.node_index(&e.from).unwrap()].hidden
                    })
                })
        })
        .expect("a visible node wired from a visible one");
    let read = |options: &[(&str, &str)]| {
        let options = options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut env = world().env(&json, &options).unwrap();
        env.reset(0);
        env.step(&Action::text(format!("investigate {}", wired.id)))
            .unwrap()
            .feedback
    };
    let themed = read(&[]);
    let literal = read(&[("clues", "literal")]);
    let clue_lines = |t: &str| -> Vec<String> {
        t.lines()
            .filter_map(|l| l.split_once("Clue: ").map(|(_, c)| c.to_string()))
            .collect()
    };
    assert!(themed.contains("Clue: "), "{themed}");
    for c in clue_lines(&themed) {
        for n in &s.nodes {
            assert!(!c.contains(&n.id), "a themed clue names {}: {c}", n.id);
        }
    }
    assert!(
        clue_lines(&literal)
            .iter()
            .any(|c| c.contains("takes") && s.nodes.iter().any(|n| c.contains(&n.id))),
        "{literal}"
    );
    assert_eq!(themed, read(&[("clues", "themed")]));
    let bad = |k: &str, v: &str| {
        let options = [(k.to_string(), v.to_string())].into();
        world().env(&json, &options).err().unwrap().to_string()
    };
    assert!(bad("clues", "loud").contains("literal"));
    assert!(bad("hints", "on").contains("clues"));
    let options = world().env_options();
    assert!(
        options
            .iter()
            .any(|(k, help)| *k == "clues" && help.contains("easier"))
    );
}

#[test]
fn the_prompt_states_the_action_space_and_the_turn_rule() {
    // §3.1: inspect an entity, invoke a tool with parameters; submit the flag
    let p = escapade_tools::render::system_prompt();
    for needle in [
        "investigate <node_id>",
        "call <node_id>",
        "submit_answer <flag>",
        "give_up",
        "several actions",
        "one turn of the step budget",
    ] {
        assert!(p.contains(needle), "the prompt lacks {needle:?}");
    }
}

#[test]
fn the_first_observation_holds_the_setting_and_the_visible_nodes() {
    // §3.1: "the room setting, the available tools and items, and the background
    // narratives associated with visible nodes"
    let s = rich_scenario();
    let mut env = env_for(&s);
    let first = env.reset(0).text;
    assert!(first.starts_with(&s.setting));
    for n in &s.nodes {
        let line = format!("- {} · {} ({}) — {}", n.id, n.name, n.kind.label(), n.brief);
        assert_eq!(first.contains(&line), !n.hidden, "{line}");
    }
    assert!(first.contains(&format!("You have {} turns", s.step_budget)));
}

#[test]
fn a_drop_event_reveals_hidden_nodes() {
    // §2 Stage 1, §3.1: resolving a node whose outputs carry an Item or Hidden_Item makes
    // the nodes wired to them visible in the next observation
    let s = rich_scenario();
    let hidden: Vec<&str> = s
        .nodes
        .iter()
        .filter(|n| n.hidden)
        .map(|n| n.id.as_str())
        .collect();
    let mut env = env_for(&s);
    let first = env.reset(0).text;
    for id in &hidden {
        assert!(!first.contains(id), "{id} is listed before it is revealed");
    }
    let mut revealed = Vec::new();
    for a in escapade_tools::baseline::oracle_plan(&s) {
        let step = env.step(&Action::text(a.to_text())).unwrap();
        if let Some((_, list)) = step.feedback.split_once("Newly revealed:") {
            revealed.extend(hidden.iter().filter(|id| list.contains(**id)).copied());
        }
    }
    revealed.sort();
    let mut all = hidden.clone();
    all.sort();
    assert_eq!(
        revealed, all,
        "every hidden node is revealed by a drop event"
    );
    assert_eq!(env.outcome().metrics["hidden_discovery"], 1.0);
}

/// Nothing an agent sees counts nodes it has not seen: by default no counter at all
/// (§3.1 lists what an observation holds, and no counter is among it); `-W status=on`
/// adds the turn and resolved-node counter over revealed nodes only.
#[test]
fn no_observation_counts_the_nodes_still_hidden() {
    let s = rich_scenario();
    let total = s.nodes.len();
    let hidden = s.nodes.iter().filter(|n| n.hidden).count();
    let plan = escapade_tools::baseline::oracle_plan(&s);
    let play = |options: &[(&str, &str)]| -> Vec<String> {
        let options: escapade_core::Options = options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut env = world().env(&s.to_json(), &options).unwrap();
        let mut seen = vec![env.reset(0).text];
        for a in &plan {
            let step = env.step(&Action::text(a.to_text())).unwrap();
            seen.push(step.observation.text);
            if step.terminated {
                break;
            }
        }
        seen
    };
    for text in play(&[]) {
        assert!(
            !text.contains("[turn") && !text.contains("nodes resolved"),
            "{text}"
        );
    }
    let counted = play(&[("status", "on")]);
    let line = |t: &str| t.lines().last().unwrap_or_default().to_string();
    assert_eq!(
        line(&counted[0]),
        format!(
            "[turn 0/{} · 0 of {} revealed nodes resolved]",
            s.step_budget,
            total - hidden
        )
    );
    // the count of revealed nodes grows with each drop event, from the visible ones to
    // the whole room once the plan has revealed everything
    let revealed: Vec<usize> = counted
        .iter()
        .map(|t| {
            let l = line(t);
            let v = l.split(" of ").nth(1).and_then(|r| r.split(' ').next());
            v.and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("no counter: {t}"))
        })
        .collect();
    assert!(hidden > 0 && revealed[0] == total - hidden, "{revealed:?}");
    assert!(revealed.windows(2).all(|w| w[0] <= w[1]), "{revealed:?}");
    assert_eq!(revealed[revealed.len() - 2], total, "{revealed:?}");
    let bad: escapade_core::Options = [("status".to_string(), "maybe".to_string())].into();
    assert!(world().env(&s.to_json(), &bad).is_err());
}

/// A computed output that is a word of the interface (`missing`, which the reply to a
/// call without `node_id` says) is no secret; the answer and other outputs still are,
/// and `check_env` still catches them.
#[test]
fn a_word_the_interface_prints_is_not_a_secret() {
    let mut s = rich_scenario();
    let (n, port) = s
        .nodes
        .iter()
        .enumerate()
        .find_map(|(i, n)| {
            let callable = n.kind.is_callable() && !n.hidden;
            let port = n.outputs.iter().find(|(_, p)| !p.ty.is_physical());
            port.filter(|_| callable).map(|(k, _)| (i, k.clone()))
        })
        .expect("a callable node with a value output");
    s.nodes[n].outputs.get_mut(&port).unwrap().value = "missing".into();
    let env = env_for(&s);
    let secrets = env.secrets();
    assert!(!secrets.contains(&"missing".to_string()), "{secrets:?}");
    assert!(secrets.contains(&s.answer), "{secrets:?}");
    // the interface does say it, so counting it would be a false leak
    let mut env = env_for(&s);
    env.reset(0);
    let step = env.step(&Action::call("investigate", "{}")).unwrap();
    assert!(
        step.observation.text.contains("missing"),
        "{}",
        step.observation.text
    );
    assert!(check_env(&mut env, 1, &[Action::call("investigate", "{}")]).is_ok());
}
