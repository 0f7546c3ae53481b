//! `escapade export RUNS --format sft|dpo|hf`: recorded episodes as training data. Oracle
//! runs of every world make an SFT file whose replies take the recorded actions; a fork
//! beside its origin and a model beside the oracle make preference pairs at the same
//! state; the hf folder loads with Hugging Face `datasets`, pictures as pictures.

mod common;
use common::*;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Runs `agent` on the first scenario of `suite` (one epoch) under `runs`.
fn record(runs: &Path, suite: &str, agent: &[&str], max_steps: &str) -> PathBuf {
    let out = runs.join(suite.replace('@', "-"));
    let mut args = vec!["run", suite, "--limit", "1", "-e", "1", "--max-steps"];
    args.extend([max_steps, "--out", out.to_str().unwrap(), "-q"]);
    args.extend(agent);
    ok(escapade(&args));
    run_dir_under(&out)
}

/// The step rows of epoch 0 of the one scenario a run directory played.
fn first_trajectory(run: &Path) -> Vec<Value> {
    let folder = std::fs::read_dir(run.join("trajectories"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    lines(&folder.join("0.jsonl"))
}

/// Forks the one episode of `origin` at `step` with the oracle, into `out`.
fn fork_with_the_oracle(origin: &Path, step: u32, out: &Path) {
    let scenario = lines(&origin.join("episodes.jsonl"))[0]["scenario"]
        .as_str()
        .unwrap()
        .to_string();
    let step = step.to_string();
    let from = [
        "run",
        "--from",
        origin.to_str().unwrap(),
        "--episode",
        &scenario,
    ];
    let mut args = from.to_vec();
    args.extend([
        "--step",
        &step,
        "--agent",
        "oracle",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    ok(escapade(&args));
}

/// `escapade export DIRS --format FORMAT --out OUT`, which must succeed; its lines.
fn export(dirs: &[&Path], format: &str, out: &Path) -> Vec<Value> {
    let mut args = vec!["export"];
    args.extend(dirs.iter().map(|d| d.to_str().unwrap()));
    args.extend(["--format", format, "--out", out.to_str().unwrap()]);
    ok(escapade(&args));
    lines(out)
}

/// The text an SFT line's last (assistant) message gives, or its calls as `name(args)`.
fn reply_of(line: &Value) -> String {
    let last = line["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last["role"], "assistant", "{line}");
    match last["tool_calls"].as_array() {
        Some(calls) => calls
            .iter()
            .map(|c| format!("{}({})", c["function"]["name"], c["function"]["arguments"]))
            .collect::<Vec<_>>()
            .join(";"),
        None => last["content"].as_str().unwrap().to_string(),
    }
}

#[test]
fn oracle_runs_of_every_world_make_an_sft_file() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    for suite in ["agentescape@2", "visescape@4", "comma@4", "mm-escape@3"] {
        record(&runs, suite, &["--agent", "oracle"], "200");
    }
    let out = tmp.path().join("sft/oracle.jsonl");
    let said = ok(escapade(&[
        "export",
        runs.to_str().unwrap(),
        "--format",
        "sft",
        "--out",
        out.to_str().unwrap(),
    ]));
    assert!(said.contains("of 4 episodes written to"), "{said}");
    let lines = lines(&out);
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(tmp.path().join("sft/oracle.jsonl.manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(manifest["episodes"], 4, "{manifest}");
    assert_eq!(manifest["records"], lines.len(), "{manifest}");
    assert_eq!(manifest["skipped"], Value::Array(vec![]), "{manifest}");
    for world in ["tools", "vis", "comma", "craft"] {
        let of: Vec<&Value> = lines.iter().filter(|l| l["world"] == world).collect();
        assert!(!of.is_empty(), "no line of {world}");
        for line in &of {
            assert_eq!(line["success"], true);
            assert_eq!(line["agent"], "oracle");
            let messages = line["messages"].as_array().unwrap();
            assert!(messages.len() >= 2, "{line}");
            assert!(!reply_of(line).is_empty(), "{line}");
        }
        // a world seen in pictures sends them, as files beside the output
        if world != "tools" {
            let urls: Vec<&str> = of
                .iter()
                .flat_map(|l| l["messages"].as_array().unwrap())
                .filter_map(|m| m["content"].as_array())
                .flatten()
                .filter_map(|p| p["image_url"]["url"].as_str())
                .collect();
            assert!(!urls.is_empty(), "{world} has no picture");
            for url in urls {
                assert!(url.starts_with("images/"), "{url}");
                assert!(tmp.path().join("sft").join(url).is_file(), "{url}");
            }
        }
    }
    // VisEscape's paper agent sends each step alone: one line per step, each reply the
    // step's recorded action
    let vis_dir = run_dir_under(&runs.join("visescape-4"));
    let vis_steps: Vec<Value> = first_trajectory(&vis_dir);
    let vis: Vec<&Value> = lines.iter().filter(|l| l["world"] == "vis").collect();
    assert_eq!(vis.len(), vis_steps.len());
    for (line, step) in vis.iter().zip(&vis_steps) {
        let action = step["action"]["text"].as_str().unwrap();
        assert!(
            reply_of(line).contains(action),
            "{} vs {action}",
            reply_of(line)
        );
    }
    // a history-keeping agent (AgentEscape's) gives one conversation per episode, its
    // replies the recorded actions in order
    let tools: Vec<&Value> = lines.iter().filter(|l| l["world"] == "tools").collect();
    assert_eq!(tools.len(), 1);
    let replies: Vec<&Value> = tools[0]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .collect();
    assert_eq!(replies.len() as u64, tools[0]["steps"].as_u64().unwrap());

    // pictures inline, and the filters
    let inline = tmp.path().join("inline.jsonl");
    ok(escapade(&[
        "export",
        runs.to_str().unwrap(),
        "--format",
        "sft",
        "--world",
        "comma",
        "--data-urls",
        "--out",
        inline.to_str().unwrap(),
    ]));
    let comma = self::lines(&inline);
    assert!(comma.iter().all(|l| l["world"] == "comma"));
    let text = std::fs::read_to_string(&inline).unwrap();
    assert!(text.contains("data:image/png;base64,"), "no inline picture");
    let o = escapade(&[
        "export",
        runs.to_str().unwrap(),
        "--format",
        "sft",
        "--outcome",
        "failure",
        "--out",
        tmp.path().join("none.jsonl").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no episode of"), "{}", stderr(&o));
    assert!(
        !tmp.path().join("none.jsonl").exists(),
        "an empty export was written"
    );
    let o = escapade(&[
        "export",
        runs.to_str().unwrap(),
        "-f",
        "sft",
        "--outcome",
        "won",
    ]);
    assert!(
        stderr(&o).contains("success, failure or any"),
        "{}",
        stderr(&o)
    );
}

/// A fork beside its origin: at the fork step the oracle's action lowered the distance
/// and the random baseline's did not, so the pair's chosen reply is the oracle's (at
/// step 3 both turned west: no pair there).
#[test]
fn a_fork_and_its_origin_make_a_preference_pair_at_the_fork_step() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let origin = record(&runs, "visescape@4", &["--agent", "random"], "12");
    let forks = tmp.path().join("forks");
    fork_with_the_oracle(&origin, 4, &forks);
    let pairs = export(&[&origin, &forks], "dpo", &tmp.path().join("dpo.jsonl"));
    assert_eq!(pairs.len(), 1, "{pairs:?}");
    let p = &pairs[0];
    assert_eq!(p["step"], 4);
    assert_eq!(p["chosen_agent"], "oracle");
    assert_eq!(p["rejected_agent"], "random");
    let (before, chosen, rejected) = (
        p["steps_to_go"].as_u64().unwrap(),
        p["chosen_steps_to_go"].as_u64().unwrap(),
        p["rejected_steps_to_go"].as_u64().unwrap(),
    );
    assert!(chosen < before && rejected >= before, "{p}");
    // the prompt is the request at step 4 with its picture; each answer one message
    let prompt = p["prompt"].as_array().unwrap();
    assert_eq!(prompt.last().unwrap()["role"], "user");
    assert!(p["chosen"][0]["content"].as_str().is_some(), "{p}");
    assert_ne!(p["chosen"], p["rejected"]);
    let fork_rows = lines(&run_dir_under(&forks).join("episodes.jsonl"));
    let origin_steps = first_trajectory(&origin);
    let random_action = origin_steps[3]["action"]["text"].as_str().unwrap();
    assert!(
        p["rejected"][0]["content"]
            .as_str()
            .unwrap()
            .contains(random_action),
        "{p}"
    );
    assert_eq!(fork_rows[0]["origin"]["step"], 4);
}

/// A model beside the oracle on the same scenario: the prompt is the model's own request
/// (byte for byte what it was sent), the chosen reply the oracle's action written as the
/// model writes its actions.
#[test]
fn a_model_beside_the_oracle_makes_a_pair_in_the_models_conversation() {
    let tmp = tempfile::tempdir().unwrap();
    let script = tmp.path().join("model.jsonl");
    std::fs::write(&script, "{\"text\": \"investigate N1\"}\n").unwrap();
    let runs = tmp.path().join("runs");
    let model = format!("scripted/{}", script.display());
    record(
        &runs,
        "agentescape@2",
        &["--agent", "llm", "--model", &model],
        "4",
    );
    record(&runs, "agentescape@2", &["--agent", "oracle"], "200");
    let pairs = export(&[&runs], "dpo", &tmp.path().join("dpo.jsonl"));
    assert_eq!(pairs.len(), 1, "{pairs:?}");
    let p = &pairs[0];
    assert_eq!(p["step"], 1);
    assert_eq!(p["chosen_agent"], "oracle");
    assert!(
        p["rejected_agent"].as_str().unwrap().starts_with("llm"),
        "{p}"
    );
    assert_eq!(p["rejected"][0]["content"], "investigate N1");
    let chosen = p["chosen"][0]["content"].as_str().unwrap();
    assert!(chosen.starts_with("investigate N"), "{chosen}");
    assert_ne!(chosen, "investigate N1");
    // SFT of the same runs keeps only the oracle's success by default
    let sft = export(&[&runs], "sft", &tmp.path().join("sft.jsonl"));
    assert!(!sft.is_empty() && sft.iter().all(|l| l["agent"] == "oracle"));
}

/// The hf folder loads with `datasets`: conversations with typed parts, pictures decoded
/// as images, the preference pairs as a second configuration.
#[test]
fn the_hf_export_loads_with_datasets() {
    let Some(python) = escapade_testkit::venv::python("datasets, PIL", "the hf export test") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let origin = record(&runs, "visescape@4", &["--agent", "random"], "12");
    record(&runs, "comma@4", &["--agent", "oracle"], "200");
    fork_with_the_oracle(&origin, 4, &runs.join("forks"));
    let out = tmp.path().join("hf");
    let said = ok(escapade(&[
        "export",
        runs.to_str().unwrap(),
        "-f",
        "hf",
        "--outcome",
        "any",
        "--out",
        out.to_str().unwrap(),
    ]));
    assert!(said.contains("rows of 3 episodes"), "{said}");
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(card.starts_with("---\nconfigs:\n"), "{card}");
    assert!(card.contains("config_name: preferences"), "{card}");
    let check = r#"
import json, sys, datasets
from PIL import Image
folder = sys.argv[1]
sft = datasets.load_dataset(folder)["train"]
worlds = sorted(set(sft["world"]))
assert worlds == ["comma", "vis"], worlds
for row in sft:
    pictures = sum(p["type"] == "image" for m in row["messages"] for p in m["content"])
    assert pictures == len(row["images"]), (pictures, len(row["images"]))
    assert all(isinstance(i, Image.Image) for i in row["images"])
    assert row["messages"][-1]["role"] == "assistant"
vis = sft.filter(lambda r: r["world"] == "vis")
assert vis[0]["images"][0].size == (640, 480), vis[0]["images"][0].size
pairs = datasets.load_dataset(folder, "preferences")["train"]
assert len(pairs) == 1, len(pairs)
p = pairs[0]
assert p["step"] == 4 and p["chosen_agent"] == "oracle", p
assert p["chosen_steps_to_go"] < p["steps_to_go"] <= p["rejected_steps_to_go"]
assert p["chosen"][0]["role"] == "assistant" and len(p["images"]) >= 1
print(json.dumps({"rows": len(sft), "pairs": len(pairs)}))
"#;
    let cache = tmp.path().join("hf-cache");
    let o = std::process::Command::new(python)
        .args(["-c", check, out.to_str().unwrap()])
        .env("HF_DATASETS_CACHE", &cache)
        .env("HF_HOME", &cache)
        .env("HF_HUB_OFFLINE", "1")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let said: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(said["pairs"], 1);
}
