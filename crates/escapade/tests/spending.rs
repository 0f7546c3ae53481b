//! Paying once, through the binary, against a loopback provider that counts requests:
//! a second identical run is answered by the response cache and sends nothing, epochs
//! at temperature > 0 are not collapsed into one, and a history the provider refuses
//! with 413 loses its oldest pictures while the episode goes on to its end.

mod common;

use std::path::Path;
use std::process::Output;
use std::sync::Mutex;

use common::{Provider, completion, run_dir_under, stderr};

/// The pictures a request body carries.
fn pictures(body: &serde_json::Value) -> usize {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|p| p["type"] == "image_url")
        .count()
}

/// `escapade run visescape@4 --agent llm` against `provider`, with the response cache
/// in `cache`.
fn run(provider: &Provider, cache: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        "visescape@4",
        "--agent",
        "llm",
        "--model",
        "openai-compatible/m",
        "--base-url",
        &provider.url,
        "--limit",
        "1",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ];
    args.extend_from_slice(extra);
    std::process::Command::new(env!("CARGO_BIN_EXE_escapade"))
        .args(&args)
        .env("ESCAPADE_RESPONSE_CACHE", cache)
        .env("OPENAI_API_KEY", "test")
        .output()
        .unwrap()
}

fn rows(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The `usage` totals of a run's episodes, summed over `key`.
fn usage_sum(dir: &Path, key: &str) -> u64 {
    rows(&dir.join("episodes.jsonl"))
        .iter()
        .map(|r| r["usage"][key].as_u64().unwrap_or(0))
        .sum()
}

#[test]
fn a_second_identical_run_sends_nothing_and_epochs_are_not_collapsed() {
    let provider = Provider::start(Box::new(|_| (200, completion("[ACTION] turn_to_west"))));
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("responses.sqlite3");
    let flags = ["--epochs", "2", "--max-steps", "3", "-A", "temperature=0.7"];
    let first = run(&provider, &cache, &tmp.path().join("a"), &flags);
    let paid = provider.requests();
    assert!(paid >= 6, "{paid} requests: {}", stderr(&first));
    // the two epochs sample apart: their requests differ (the sample index) and both
    // were sent, none answered by the other's reply
    let seeds: std::collections::BTreeSet<String> = provider
        .bodies
        .lock()
        .unwrap()
        .iter()
        .map(|b| b["seed"].to_string())
        .collect();
    assert!(seeds.len() >= 2, "{seeds:?}");
    let a = run_dir_under(&tmp.path().join("a"));
    assert_eq!(usage_sum(&a, "cache_hits"), 0);
    assert!(
        std::fs::read_to_string(a.join("run.toml"))
            .unwrap()
            .contains("cache = \"on\"")
    );
    // the same run again: every reply from the cache, no request
    let second = run(&provider, &cache, &tmp.path().join("b"), &flags);
    assert_eq!(provider.requests(), paid, "{}", stderr(&second));
    let b = run_dir_under(&tmp.path().join("b"));
    assert_eq!(usage_sum(&b, "cache_hits") as usize, paid);
    assert_eq!(
        rows(&a.join("episodes.jsonl"))
            .iter()
            .map(|r| r["outcome"].clone())
            .collect::<Vec<_>>(),
        rows(&b.join("episodes.jsonl"))
            .iter()
            .map(|r| r["outcome"].clone())
            .collect::<Vec<_>>()
    );
    let report = std::fs::read_to_string(b.join("report.md")).unwrap();
    assert!(report.contains("cache hits"), "{report}");
    // --cache off asks the provider again
    run(
        &provider,
        &cache,
        &tmp.path().join("c"),
        &[&flags[..], &["--cache", "off"]].concat(),
    );
    assert_eq!(provider.requests(), 2 * paid);
    // and the cache says what it holds
    let stats = std::process::Command::new(env!("CARGO_BIN_EXE_escapade"))
        .args(["cache", "stats", "--json"])
        .env("ESCAPADE_RESPONSE_CACHE", &cache)
        .output()
        .unwrap();
    let stats: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(stats["entries"].as_u64().unwrap() as usize, paid, "{stats}");
}

/// The oracle's replies on the first room of visescape@4, in order.
fn oracle_replies(out: &Path) -> Vec<String> {
    common::ok(common::escapade(&[
        "run",
        "visescape@4",
        "--agent",
        "oracle",
        "--limit",
        "1",
        "--epochs",
        "1",
        "-W",
        "prompt=chat",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]));
    rows(&run_dir_under(out).join("trajectories/vis-r01/0.jsonl"))
        .iter()
        .filter_map(|s| s["action"]["text"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn a_history_refused_with_413_loses_its_oldest_pictures_and_the_episode_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let replies = oracle_replies(&tmp.path().join("oracle"));
    assert!(replies.len() > 5, "{replies:?}");
    // a provider whose size limit the growing history passes after a few steps unless
    // the picture goes (the llm agent sends the current step's picture only), and
    // otherwise answers with the oracle's next move
    let next = Mutex::new(0usize);
    let too_large = |body: &serde_json::Value| {
        pictures(body) > 0 && body["messages"].as_array().map_or(0, Vec::len) > 8
    };
    let provider = Provider::start(Box::new(move |body| match too_large(body) {
        true => (
            413,
            r#"{"error":{"message":"Request Entity Too Large"}}"#.into(),
        ),
        false => {
            let mut i = next.lock().unwrap();
            let reply = replies.get(*i).cloned().unwrap_or_default();
            *i += 1;
            (200, completion(&reply))
        }
    }));
    let out = tmp.path().join("runs");
    let o = run(
        &provider,
        &tmp.path().join("cache.sqlite3"),
        &out,
        &[
            "--epochs",
            "1",
            "-A",
            "history=full",
            "-W",
            "prompt=chat",
            "--cache",
            "off",
        ],
    );
    let dir = run_dir_under(&out);
    let episodes = rows(&dir.join("episodes.jsonl"));
    assert_eq!(episodes.len(), 1, "{}", stderr(&o));
    // the whole history did not fit, yet the episode went on and escaped
    assert_eq!(episodes[0]["success"], true, "{}", episodes[0]);
    assert!(episodes[0]["error"].is_null(), "{}", episodes[0]);
    let steps = rows(&dir.join("trajectories/vis-r01/0.jsonl"));
    let dropped: Vec<u64> = steps
        .iter()
        .filter_map(|s| s["request"]["pictures_dropped"].as_u64())
        .collect();
    assert!(!dropped.is_empty(), "no step row records dropped pictures");
    let bodies = provider.bodies.lock().unwrap();
    let refused = bodies.iter().filter(|b| too_large(b)).count();
    assert_eq!(
        refused,
        dropped.len(),
        "each refused request went again without its picture"
    );
    // the request that went again says so in place of the picture
    let resent = bodies
        .iter()
        .find(|b| pictures(b) == 0 && b["messages"].as_array().unwrap().len() > 8);
    assert!(
        resent.is_some_and(|b| b.to_string().contains("picture")),
        "{resent:?}"
    );
}

#[test]
fn the_estimate_of_agentescape_brackets_a_run_played_to_the_budgets() {
    let tmp = tempfile::tempdir().unwrap();
    // a model that never gets anywhere writes about a hundred tokens each step, so every
    // episode runs to its step budget: the estimate's upper end
    let script = tmp.path().join("s.jsonl");
    let text = "I look around the room before I act, checking each object and tool I can see, \
                then try the step that seems most promising from what I know so far. "
        .repeat(2);
    std::fs::write(
        &script,
        format!("{}\n", serde_json::json!({ "text": text })),
    )
    .unwrap();
    let prices = tmp.path().join("p.json");
    std::fs::write(
        &prices,
        r#"{"scripted/": {"input_per_mtok": 2.5, "output_per_mtok": 10, "cached_per_mtok": 0}}"#,
    )
    .unwrap();
    let model = format!("scripted/{}", script.display());
    let prices = format!("prices={}", prices.display());
    let common = [
        "agentescape@2",
        "--model",
        &model,
        "-A",
        &prices,
        "--limit",
        "3",
        "--epochs",
        "1",
    ];
    let estimate: serde_json::Value = serde_json::from_str(&common::ok(common::escapade(
        &[&["estimate"], &common[..], &["--json"]].concat(),
    )))
    .unwrap();
    let estimated = estimate["budget"]["cost_usd"].as_f64().unwrap();
    assert!(
        estimate["prices"].as_str().unwrap().contains("as of"),
        "{estimate}"
    );
    let runs = tmp.path().join("runs");
    common::ok(common::escapade(
        &[
            &["run"],
            &common[..],
            &[
                "--agent",
                "llm",
                "--cache",
                "off",
                "-q",
                "--out",
                runs.to_str().unwrap(),
            ],
        ]
        .concat(),
    ));
    let dir = run_dir_under(&runs);
    let paid: f64 = rows(&dir.join("episodes.jsonl"))
        .iter()
        .map(|r| r["usage"]["cost_usd"].as_f64().unwrap())
        .sum();
    assert!(paid > 0.0);
    // the run lies in the estimate's range, from the oracle's path to the step budgets
    // (measured: $0.79 against $0.05 to $1.19; the budget end plays the random
    // baseline, whose real tool calls draw longer observations than this model's
    // unreadable replies, about a third more per 35-step episode)
    let cheapest = estimate["oracle"]["cost_usd"].as_f64().unwrap();
    assert!(
        cheapest < paid && paid <= estimated,
        "estimate ${cheapest:.4} to ${estimated:.4}, run ${paid:.4}"
    );
    // A model that plays the budgets with real moves: the random baseline's moves of
    // the same episodes, each after a hundred tokens of reasoning. The estimate is
    // within 30 % of what it pays (measured: $1.14 estimated, $1.02 paid, 12 % off).
    let moves = tmp.path().join("moves");
    let limits = ["--limit", "3", "--epochs", "1"];
    common::ok(common::escapade(
        &[
            // one at a time: the rows come in the order the scripted run will play them
            &[
                "run",
                "agentescape@2",
                "--agent",
                "random",
                "-q",
                "--concurrency",
                "1",
            ][..],
            &["--out"],
            &[moves.to_str().unwrap()],
            &limits,
        ]
        .concat(),
    ));
    let played = run_dir_under(&moves);
    let thought = "I weigh what the room has shown me so far, which devices I have looked at \
                   and which values they asked for, and I take the next move that could \
                   bring a missing value closer; if it fails, the answer will tell me more. \
                   Every device I have not yet looked at may hide what the door needs, so \
                   looking is never wasted.";
    let mut lines = String::new();
    for episode in rows(&played.join("episodes.jsonl")) {
        let id = episode["scenario"].as_str().unwrap();
        for step in rows(&played.join(format!("trajectories/{id}/0.jsonl"))) {
            let text = format!("{thought}\n{}", step["action"]["text"].as_str().unwrap());
            lines.push_str(&format!("{}\n", serde_json::json!({ "text": text })));
        }
    }
    let script = tmp.path().join("moves.jsonl");
    std::fs::write(&script, lines).unwrap();
    let model = format!("scripted/{}", script.display());
    let runs = tmp.path().join("scripted-moves");
    common::ok(common::escapade(
        &[
            &["run", "agentescape@2", "--model", &model, "-A", &prices][..],
            &limits,
            &["--cache", "off", "-q", "--concurrency", "1", "--out"],
            &[runs.to_str().unwrap()],
        ]
        .concat(),
    ));
    let dir = run_dir_under(&runs);
    let episodes = rows(&dir.join("episodes.jsonl"));
    // the same moves: the same episodes, move for move
    let moves_of = |d: &Path| -> Vec<String> {
        let mut out = Vec::new();
        for episode in rows(&d.join("episodes.jsonl")) {
            let id = episode["scenario"].as_str().unwrap();
            for step in rows(&d.join(format!("trajectories/{id}/0.jsonl"))) {
                let text = step["action"]["text"].as_str().unwrap();
                out.push(format!("{id} {}", text.lines().last().unwrap_or_default()));
            }
        }
        out
    };
    assert_eq!(moves_of(&dir), moves_of(&played));
    let paid: f64 = episodes
        .iter()
        .map(|r| r["usage"]["cost_usd"].as_f64().unwrap())
        .sum();
    let off = (estimated - paid).abs() / paid;
    assert!(
        off <= 0.30,
        "estimate ${estimated:.4}, a run of real moves to the budgets ${paid:.4}: {:.0} % off",
        off * 100.0
    );
    eprintln!(
        "estimate ${estimated:.4}, a run of real moves to the budgets ${paid:.4}: {:.1} % off",
        off * 100.0
    );
}
