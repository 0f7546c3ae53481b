//! The papers' tables from the command line (`escapade paper`), set beside a run
//! (`escapade report`), and two runs paired (`escapade compare`), on the tools world.

mod common;
use common::*;

#[test]
fn paper_prints_a_worlds_tables_by_world_or_suite() {
    let md = ok(escapade(&["paper", "tools"]));
    assert!(md.starts_with("# AgentEscapeBench"), "{md}");
    assert!(md.contains("## Table 1: Main results"), "{md}");
    assert!(md.contains("| Human (human) | 98.3 | 96 | 100.0 |"), "{md}");
    assert!(md.contains("| Min. Required (oracle) | 9.03 |"), "{md}");
    let v: serde_json::Value =
        serde_json::from_str(&ok(escapade(&["paper", "visescape-hints@4", "--json"]))).unwrap();
    assert_eq!(v["world"], "vis");
    // a retired suite still names its world, whose paper has not changed
    let old: serde_json::Value =
        serde_json::from_str(&ok(escapade(&["paper", "visescape-hints@3", "--json"]))).unwrap();
    assert_eq!(old, v);
    let values = v["values"].as_array().unwrap();
    let hcr = values
        .iter()
        .find(|x| {
            x["source"] == "Table 4"
                && x["model"] == "GPT-4o"
                && x["metric"] == "hint_assisted_rate"
        })
        .expect("Table 4's HCR of GPT-4o");
    assert_eq!(hcr["text"], "20.74");
    assert!((hcr["value"].as_f64().unwrap() - 0.2074).abs() < 1e-12);
    let o = escapade(&["paper", "atlantis"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("neither a world nor a suite"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_model_tables_in_the_docs_are_the_worlds() {
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/papers.md"))
            .expect("docs/papers.md");
    for world in ["tools", "vis", "comma", "craft"] {
        let md = ok(escapade(&["paper", world]));
        let start = md.find("\n## Models of ").expect("a model table");
        let end = md[start + 1..]
            .find("\n## ")
            .map_or(md.len(), |e| start + 1 + e);
        let table = md[start..end].trim();
        assert!(
            docs.contains(table),
            "docs/papers.md lacks (or has an old copy of) {world}'s model table:\n{table}"
        );
    }
}

#[test]
fn a_run_is_set_beside_its_paper_and_two_runs_are_paired() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |name: &str, agent: &str| {
        let out = tmp.path().join(name);
        let o = escapade(&[
            "run",
            "agentescape@2",
            "--agent",
            agent,
            "--limit",
            "12",
            "--out",
            out.to_str().unwrap(),
            "-q",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        run_dir_under(&out)
    };
    let oracle = run("o", "oracle");
    let random = run("r", "random");
    let again = run("r2", "random");

    let md = ok(escapade(&["report", oracle.to_str().unwrap()]));
    assert!(
        md.contains("### tools beside the paper (AgentEscapeBench)"),
        "{md}"
    );
    // the oracle spends the fewest tool calls: the paper's "Min. Required" is its row
    assert!(md.contains("| Min. Required 9.03 |"), "{md}");
    let v: serde_json::Value = serde_json::from_str(&ok(escapade(&[
        "report",
        oracle.to_str().unwrap(),
        "--json",
    ])))
    .unwrap();
    let success = &v["groups"][0]["metrics"]["success"];
    assert_eq!(
        (success["lo"].as_f64(), success["hi"].as_f64()),
        (Some(1.0), Some(1.0))
    );
    let beside = v["paper"].as_array().unwrap();
    let sr = beside
        .iter()
        .find(|b| b["metric"] == "success" && b["difficulty"] == 5)
        .expect("success at tier 5 beside the paper");
    let human = sr["references"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "human")
        .unwrap();
    assert_eq!(human["text"], "98.3");
    let calls = beside
        .iter()
        .find(|b| b["metric"] == "tool_calls" && b["difficulty"] == 5)
        .unwrap();
    assert_eq!(calls["verdict"]["model"], "Min. Required");

    // paired: the oracle against the random agent, and two equal runs
    let md = ok(escapade(&[
        "compare",
        oracle.to_str().unwrap(),
        random.to_str().unwrap(),
    ]));
    assert!(md.starts_with("## Paired: oracle against random"), "{md}");
    let row = md
        .lines()
        .find(|l| l.starts_with("| tools | all | success | 12 | 100.0 | 0.0 |"))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(row.contains("mcnemar (12/0) | 0.000 |"), "{row}");
    let v: serde_json::Value = serde_json::from_str(&ok(escapade(&[
        "compare",
        random.to_str().unwrap(),
        again.to_str().unwrap(),
        "--json",
    ])))
    .unwrap();
    for m in v["metrics"].as_array().unwrap() {
        assert_eq!(
            (m["diff"].as_f64(), m["p"].as_f64()),
            (Some(0.0), Some(1.0)),
            "{m}"
        );
    }
}
