//! BaseAgent and VisEscaper over scripted transcripts: one prompt per step, memory built
//! after step 10 and updated after step 20, a post-action analysis of every step, the
//! salient action memory, pre-action reasoning, summed usage, re-asks and request records.

use escapade_core::{Action, Image, Observation};
use escapade_llm::{ChatRequest, Part, Role};
use serde_json::{Value, json};

use crate::support::{SYSTEM, escaper, harness, image_parts, prompt, roles, section, step_to};

/// The actions the pretend room offers at every step.
fn offered() -> Vec<String> {
    [
        "turn to north",
        "inspect wardrobe",
        "step back",
        "open wardrobe",
        "pick up brass key",
        "use brass key",
        "<ANSWER>your answer</ANSWER>",
    ]
    .map(String::from)
    .to_vec()
}

/// The action chosen at step `t`: navigation and interaction in turn.
fn chosen(t: u32) -> &'static str {
    [
        "turn to north",
        "inspect wardrobe",
        "open wardrobe",
        "step back",
        "pick up brass key",
        "<ANSWER>8056</ANSWER>",
    ][(t as usize - 1) % 6]
}

/// The observation before step `t`: its text lists the actions, and it has a picture.
fn room(t: u32) -> Observation {
    let list: Vec<String> = offered().iter().map(|a| format!("- {a}")).collect();
    Observation {
        text: format!(
            "North side of the room, view {t}.\nAvailable actions:\n{}",
            list.join("\n")
        ),
        images: vec![Image::with_alt(
            vec![0x89, b'P', t as u8],
            format!("a wardrobe, picture {t}"),
        )],
        actions: Some(offered()),
        role: None,
    }
}

/// What kind of call a request is, from its prompt.
fn kind(request: &ChatRequest) -> &'static str {
    let p = prompt(request);
    if p.ends_with("[ANALYSIS]") {
        "analysis"
    } else if p.contains("Task: write down your memory") {
        "build"
    } else if p.contains("Task: update your memory") {
        "update"
    } else {
        "action"
    }
}

/// The transcript of `steps` turns in call order (analysis, memory, action per turn),
/// each reply with its own usage so that sums can be checked.
fn transcript(steps: u32, memory: bool, reasoning: bool) -> Vec<Value> {
    let mut script = Vec::new();
    for t in 1..=steps {
        if reasoning && t > 1 {
            script.push(
                json!({"text": format!("[ANALYSIS] effect of step {}", t - 1),
                "usage": {"input": 100, "output": 1}}),
            );
        }
        if memory && (t == 11 || t == 21) {
            script.push(json!({
                "text": format!("Sure!\n[SPATIAL MEMORY] {{\"north\": {{\"objects\": [\"wardrobe\"]}}}}\n[INSPECTED OBJECTS] []\n[UNINSPECTED OBJECTS] [\"wardrobe\"]\n[ADDITIONAL MEMORY] [1. memory after step {}]", t - 1),
                "usage": {"input": 1000, "output": 10}}));
        }
        let text = if reasoning {
            format!("[THINK] thought {t}\n[ACTION] {}", chosen(t))
        } else {
            format!("[ACTION] {}", chosen(t))
        };
        script.push(json!({"text": text, "usage": {"input": 10000, "output": 100}}));
    }
    script
}

/// Plays `steps` turns; the turns returned.
async fn play(h: &mut crate::support::Harness, steps: u32) -> Vec<escapade_core::AgentTurn> {
    h.start(&[]).await;
    let mut turns = Vec::new();
    let mut last = None;
    for t in 1..=steps {
        let observation = room(t);
        let turn = h.act(t, &observation, last.as_ref(), &[]).await.unwrap();
        turns.push(turn);
        let mut step = step_to(&room(t + 1), 0.0);
        step.feedback = format!("feedback of step {t}");
        last = Some(step);
    }
    turns
}

#[tokio::test]
async fn memory_is_built_after_step_10_and_updated_after_step_20() {
    let mut h = escaper("visescaper", &transcript(22, true, true), &[]);
    let turns = play(&mut h, 22).await;
    let requests = h.requests();
    let kinds: Vec<&str> = requests.iter().map(kind).collect();
    // turn 1: the action; every later turn: the analysis of the step before, then the
    // action; the memory call opens turns 11 and 21 (after 10 and 20 steps)
    let mut wanted = vec!["action"];
    for t in 2..=22 {
        wanted.push("analysis");
        match t {
            11 => wanted.push("build"),
            21 => wanted.push("update"),
            _ => {}
        }
        wanted.push("action");
    }
    assert_eq!(kinds, wanted);
    let memory_calls: Vec<&ChatRequest> = requests
        .iter()
        .filter(|r| matches!(kind(r), "build" | "update"))
        .collect();
    // each memory call reads the last 10 steps, and the update starts from the memory
    let built = prompt(memory_calls[0]);
    assert!(
        built.contains("Step 1\n") && built.contains("Step 10\n"),
        "{built}"
    );
    let updated = prompt(memory_calls[1]);
    assert!(!updated.contains("Step 10\n") && updated.contains("Step 11\n"));
    assert!(updated.contains("Step 20\n"));
    assert!(
        section(&updated, "Current memory")
            .unwrap()
            .starts_with("[SPATIAL MEMORY]"),
        "the preamble of the reply is dropped: {updated}"
    );
    // action prompts show the memory from turn 11 on, the newest one after turn 21
    let actions: Vec<String> = requests
        .iter()
        .filter(|r| kind(r) == "action")
        .map(prompt)
        .collect();
    assert!(actions[..10].iter().all(|p| !p.contains("<Memory>")));
    assert!(
        section(&actions[10], "Memory")
            .unwrap()
            .contains("memory after step 10")
    );
    assert!(
        section(&actions[21], "Memory")
            .unwrap()
            .contains("memory after step 20")
    );
    // the memory call's record and usage belong to the turn that made it
    assert!(turns[10].request.as_ref().unwrap().get("memory").is_some());
    assert!(turns[9].request.as_ref().unwrap().get("memory").is_none());
    assert_eq!(turns[10].usage.input, 100 + 1000 + 10000);
    assert_eq!(turns[10].usage.output, 1 + 10 + 100);
}

#[tokio::test]
async fn every_step_is_analysed_and_the_effect_follows_it() {
    let mut h = escaper("visescaper", &transcript(4, true, true), &[]);
    let turns = play(&mut h, 4).await;
    let requests = h.requests();
    let analyses: Vec<String> = requests
        .iter()
        .filter(|r| kind(r) == "analysis")
        .map(prompt)
        .collect();
    assert_eq!(
        analyses.len(),
        3,
        "steps 1 to 3 are analysed at turns 2 to 4"
    );
    // before, action, the world's answer and after, as text only
    let first = &analyses[0];
    assert!(
        section(first, "Previous observation")
            .unwrap()
            .contains("view 1")
    );
    assert_eq!(section(first, "Your action").unwrap(), "turn to north");
    assert_eq!(
        section(first, "Game's answer").unwrap(),
        "feedback of step 1"
    );
    assert!(
        section(first, "Current observation")
            .unwrap()
            .contains("view 2")
    );
    assert!(first.contains("fewer than 10 words"));
    assert!(
        requests
            .iter()
            .filter(|r| kind(r) == "analysis")
            .all(|r| image_parts(r) == 0)
    );
    // the effect is attached to its step in the next prompts
    let last = prompt(&requests[requests.len() - 1]);
    let recent = section(&last, "Recent steps (oldest first)").unwrap();
    assert!(
        recent.contains("Action: turn to north - effect of step 1"),
        "{recent}"
    );
    assert!(
        recent.contains("Action: open wardrobe - effect of step 3"),
        "{recent}"
    );
    let record = turns[1].request.as_ref().unwrap();
    assert_eq!(record["analysis"]["reply"], "[ANALYSIS] effect of step 1");
    assert!(turns[0].request.as_ref().unwrap().get("analysis").is_none());
}

#[tokio::test]
async fn the_action_memory_keeps_every_interaction_and_no_navigation() {
    let mut h = escaper("visescaper", &transcript(13, true, true), &[]);
    play(&mut h, 13).await;
    let requests = h.requests();
    let last = prompt(&requests[requests.len() - 1]);
    let salient = section(&last, "Action memory").unwrap();
    let lines: Vec<&str> = salient.lines().filter(|l| l.starts_with("- ")).collect();
    // steps 1..=12 taken: interactions at 3, 5, 6, 9, 11, 12 — kept in full, with effects
    assert_eq!(
        lines,
        [
            "- step 3: open wardrobe - effect of step 3",
            "- step 5: pick up brass key - effect of step 5",
            "- step 6: <ANSWER>8056</ANSWER> - effect of step 6",
            "- step 9: open wardrobe - effect of step 9",
            "- step 11: pick up brass key - effect of step 11",
            "- step 12: <ANSWER>8056</ANSWER> - effect of step 12",
        ]
    );
    // custom navigation prefixes: only "turn to" is navigation now
    let mut h = escaper(
        "visescaper",
        &transcript(4, true, true),
        &[("navigation", "turn to")],
    );
    play(&mut h, 4).await;
    let last = prompt(&h.last_request());
    let salient = section(&last, "Action memory").unwrap();
    assert!(salient.contains("inspect wardrobe") && !salient.contains("turn to north"));
}

#[tokio::test]
async fn the_thought_is_the_reasoning_and_the_action_is_read_out() {
    let mut h = escaper("visescaper", &transcript(3, true, true), &[]);
    let turns = play(&mut h, 3).await;
    assert_eq!(turns[0].reasoning.as_deref(), Some("thought 1"));
    assert_eq!(turns[0].action, Action::text("turn to north"));
    assert_eq!(
        turns[0].raw_response.as_deref(),
        Some("[THINK] thought 1\n[ACTION] turn to north")
    );
    assert_eq!(turns[2].action, Action::text("open wardrobe"));
    // the next prompt shows the thought and action before it, and asks for both again
    let second = prompt(&h.requests()[2]);
    assert_eq!(
        section(&second, "Your thought and action before this turn").unwrap(),
        "[THINK] thought 1\n[ACTION] turn to north"
    );
    assert!(second.contains("Write your thought after [THINK]"));
    // usage: the action call alone on turn 1, analysis + action afterwards
    assert_eq!((turns[0].usage.input, turns[0].usage.output), (10000, 100));
    assert_eq!((turns[1].usage.input, turns[1].usage.output), (10100, 101));
}

#[tokio::test]
async fn the_base_agent_sends_one_prompt_with_a_window_of_past_steps() {
    let mut h = escaper("base", &transcript(25, false, false), &[]);
    let turns = play(&mut h, 25).await;
    let requests = h.requests();
    assert_eq!(
        requests.len(),
        25,
        "one call per step: no memory, no analysis"
    );
    for (t, request) in requests.iter().enumerate() {
        // one prompt, not a chat: the world's system prompt and one user message
        assert_eq!(roles(request), [Role::System, Role::User]);
        assert_eq!(request.messages[0].joined_text(), SYSTEM);
        // only this step's picture, inside the current observation
        assert_eq!(image_parts(request), 1);
        let parts = &request.messages[1].parts;
        let Part::Image { sha256, .. } = &parts[1] else {
            panic!("the picture follows the observation text: {parts:?}")
        };
        assert_eq!(sha256, &room(t as u32 + 1).images[0].sha256);
        let p = prompt(request);
        assert!(!p.contains("<Memory>") && !p.contains("<Action memory>"));
        assert!(!p.contains("[THINK]"));
        // the action list appears once, in its own section
        assert_eq!(p.matches("- open wardrobe").count(), 1, "{p}");
        assert!(
            section(&p, "Available actions")
                .unwrap()
                .contains("<ANSWER>your answer</ANSWER>")
        );
    }
    let last = prompt(&requests[24]);
    let recent = section(&last, "Recent steps (oldest first)").unwrap();
    assert_eq!(
        recent.matches("Observation: ").count(),
        20,
        "the last 20 steps"
    );
    assert!(recent.starts_with("Step 5\n") && recent.contains("Step 24\n"));
    assert!(!recent.contains(" - "), "no analyses without reasoning");
    assert!(turns.iter().all(|t| t.reasoning.is_none()));
    assert_eq!(turns[5].action, Action::text("<ANSWER>8056</ANSWER>"));
    let mut h = escaper("base", &transcript(4, false, false), &[("window", "2")]);
    play(&mut h, 4).await;
    let last = prompt(&h.last_request());
    assert_eq!(last.matches("Observation: ").count(), 2);
}

#[tokio::test]
async fn ablations_switch_each_module_alone() {
    // memory only (Table 8's "Memory Only"): memory call, no analysis, no thought
    let mut h = escaper(
        "visescaper",
        &transcript(12, true, false),
        &[("reasoning", "off")],
    );
    play(&mut h, 12).await;
    let kinds: Vec<&str> = h.requests().iter().map(kind).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "build").count(), 1);
    assert!(!kinds.contains(&"analysis"));
    // reasoning only: analyses, no memory
    let mut h = escaper("base", &transcript(12, false, true), &[("reasoning", "on")]);
    play(&mut h, 12).await;
    let kinds: Vec<&str> = h.requests().iter().map(kind).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "analysis").count(), 11);
    assert!(!kinds.contains(&"build"));
}

#[tokio::test]
async fn a_reask_says_the_action_is_not_available_and_shows_memory_and_actions() {
    let mut h = escaper(
        "visescaper",
        &[
            json!({"text": "[THINK] hmm\n[ACTION] open the fridge"}),
            json!({"text": "[ACTION] open wardrobe"}),
        ],
        &[],
    );
    h.start(&[]).await;
    let observation = room(1);
    let first = h.act(1, &observation, None, &[]).await.unwrap();
    assert_eq!(first.action, Action::text("open the fridge"));
    let again = h
        .reask(
            "`open the fridge` is not an available action",
            1,
            &observation,
            None,
            &[],
        )
        .await
        .unwrap();
    assert_eq!(again.action, Action::text("open wardrobe"));
    let retry = prompt(&h.last_request());
    assert_eq!(
        section(&retry, "Your previous action").unwrap(),
        "open the fridge"
    );
    assert!(retry.contains("`open the fridge` is not an available action"));
    assert!(
        section(&retry, "Available actions")
            .unwrap()
            .contains("open wardrobe")
    );
    assert_eq!(image_parts(&h.last_request()), 0);
    // the re-asked action is the one the next analysis examines
    let mut h = escaper(
        "visescaper",
        &[
            json!({"text": "[ACTION] open the fridge"}),
            json!({"text": "[ACTION] open wardrobe"}),
            json!({"text": "[ANALYSIS] wardrobe opened"}),
            json!({"text": "[ACTION] step back"}),
        ],
        &[],
    );
    h.start(&[]).await;
    h.act(1, &room(1), None, &[]).await.unwrap();
    h.reask("no", 1, &room(1), None, &[]).await.unwrap();
    h.act(2, &room(2), Some(&step_to(&room(2), 0.0)), &[])
        .await
        .unwrap();
    let analysis = prompt(&h.requests()[2]);
    assert_eq!(section(&analysis, "Your action").unwrap(), "open wardrobe");
}

#[tokio::test]
async fn structured_replies_carry_a_thought_and_an_answer_pattern() {
    let mut h = escaper(
        "visescaper",
        &[
            json!({"text": r#"{"thought": "the code is on the poster", "action": "<ANSWER>8056</ANSWER>"}"#}),
        ],
        &[("structured", "on")],
    );
    h.start(&[]).await;
    let turn = h.act(1, &room(1), None, &[]).await.unwrap();
    assert_eq!(turn.action, Action::text("<ANSWER>8056</ANSWER>"));
    assert_eq!(turn.reasoning.as_deref(), Some("the code is on the poster"));
    let schema = h.last_request().response_schema.expect("a schema is sent");
    let props: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(props, ["thought", "action"], "the thought is written first");
    assert_eq!(schema["required"], json!(["thought", "action"]));
    let any = schema["properties"]["action"]["anyOf"].as_array().unwrap();
    assert_eq!(any[1]["pattern"], escapade_agents::format::ANSWER_PATTERN);
    assert!(
        !any[0]["enum"]
            .as_array()
            .unwrap()
            .contains(&json!("<ANSWER>your answer</ANSWER>"))
    );
    assert!(prompt(&h.last_request()).contains("Reply with a JSON object"));
    // a base agent asks for the action alone; a reply that is not JSON is read as text
    let mut h = escaper(
        "base",
        &[json!({"text": "[ACTION] step back"})],
        &[("structured", "on")],
    );
    h.start(&[]).await;
    let turn = h.act(1, &room(1), None, &[]).await.unwrap();
    assert_eq!(turn.action, Action::text("step back"));
    let schema = h.last_request().response_schema.unwrap();
    assert_eq!(schema["required"], json!(["action"]));
}

#[tokio::test]
async fn sampling_options_reach_every_call() {
    let mut h = escaper(
        "visescaper",
        &transcript(2, true, true),
        &[("temperature", "0.5"), ("max_tokens", "300")],
    );
    play(&mut h, 2).await;
    let requests = h.requests();
    assert_eq!(requests.len(), 3);
    for r in &requests {
        assert_eq!(r.temperature, Some(0.5));
    }
    // the analysis too: the original caps none of its calls shorter
    for r in &requests {
        assert_eq!(r.max_tokens, Some(300));
    }
    let seeds: std::collections::BTreeSet<_> = requests.iter().map(|r| r.seed).collect();
    assert_eq!(seeds.len(), 3, "a seed per call");
}

#[tokio::test]
async fn request_records_follow_the_log_mode() {
    for log in ["delta", "full", "hash"] {
        let mut h = escaper("visescaper", &transcript(2, true, true), &[("log", log)]);
        let turns = play(&mut h, 2).await;
        let requests = h.requests();
        let first = turns[0].request.as_ref().unwrap();
        let second = turns[1].request.as_ref().unwrap();
        assert_eq!(first["messages"], 2, "{log}");
        assert_eq!(second["analysis"]["messages"], 2, "{log}");
        for (record, request) in [
            (first, &requests[0]),
            (&second["analysis"], &requests[1]),
            (second, &requests[2]),
        ] {
            let sha = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(
                serde_json::to_vec(request).unwrap(),
            ));
            assert_eq!(record["sha256"], sha, "{log}");
        }
        match log {
            "delta" => {
                assert_eq!(first["system"], SYSTEM);
                assert!(second.get("system").is_none());
                assert!(first["prompt"].as_str().unwrap().contains("view 1"));
                assert_eq!(first["images"], json!([room(1).images[0].sha256]));
                assert!(first.get("sent").is_none());
            }
            "full" => {
                assert_eq!(
                    first["sent"],
                    serde_json::to_value(&requests[0].messages).unwrap()
                );
                assert!(second["analysis"].get("sent").is_some());
            }
            _ => assert!(first.get("sent").is_none() && first.get("prompt").is_none()),
        }
    }
}

#[tokio::test]
async fn any_reply_is_survived() {
    let huge = "word ".repeat(50_000);
    let mut h = escaper(
        "visescaper",
        &[
            json!({"text": huge}),
            json!({"text": ""}),
            json!({"text": "[ACTION]"}),
            json!({"text": "{\"action\": "}),
        ],
        &[],
    );
    h.start(&[]).await;
    let mut last = None;
    for t in 1..=12 {
        let turn = h.act(t, &room(t), last.as_ref(), &[]).await.unwrap();
        let Action::Text { text } = &turn.action else {
            panic!("text actions only")
        };
        assert!(text.chars().count() < 400, "a runaway reply is clipped");
        last = Some(step_to(&room(t + 1), 0.0));
    }
    // memory built from a runaway reply stays bounded
    let p = prompt(&h.last_request());
    assert!(p.len() < 200_000, "{}", p.len());
}

/// A world that gives whole prompts (VisEscape's default, the original's BaseAgent step
/// prompt): the instruction first, its own history sections, the picture's place.
fn whole(t: u32) -> Observation {
    Observation {
        text: format!(
            "You play a room escape game; look around with turn_to_[direction].\n\
             <Action Memory>\nAt desk, open desk</Action Memory>\n\n\
             <Current Observation>NORTH side of room - [IMAGE]</Current Observation>\n\
             <Inventory>You have nothing.</Inventory>\n\
             <Your action before this turn>open desk</Your action before this turn>\n\n\
             Your task: choose one of these actions, view {t}:\n\
             ['turn_to_east', 'open wardrobe']\n\
             Put your action in section [ACTION].\n[ACTION]"
        ),
        images: vec![Image::with_alt(
            vec![0x89, b'P', t as u8],
            format!("the north wall, picture {t}"),
        )],
        actions: Some(vec!["turn_to_east".into(), "open wardrobe".into()]),
        role: None,
    }
}

/// App. A.5 and the original's agents: no system message; the first (and only) user
/// message holds the instruction and the picture — the world's whole prompt as it is,
/// the picture after it; a refused reply gets the world's retry prompt alone, without the
/// picture; BaseAgent adds nothing of its own.
#[tokio::test]
async fn a_world_without_a_system_prompt_has_its_whole_prompt_sent_alone() {
    let script = [
        json!({"text": "[ACTION] open wardrobe"}),
        json!({"text": "[ACTION] fly"}),
        json!({"text": "[ACTION] turn_to_east"}),
    ];
    let mut h = escaper("base", &script, &[]);
    h.start_with("", &[]).await;
    let first = whole(1);
    let turn = h.act(1, &first, None, &[]).await.unwrap();
    assert_eq!(turn.action, Action::text("open wardrobe"));
    let request = h.last_request();
    assert_eq!(roles(&request), [Role::User], "no system message");
    let parts = &request.messages[0].parts;
    assert_eq!(parts.len(), 2, "{parts:?}");
    let Part::Text { text } = &parts[0] else {
        panic!("the prompt first: {parts:?}")
    };
    assert_eq!(text, &first.text, "the world's prompt as it is");
    assert!(text.starts_with("You play a room escape game"));
    let Part::Image { sha256, .. } = &parts[1] else {
        panic!("the picture after it: {parts:?}")
    };
    assert_eq!(sha256, &first.images[0].sha256);
    // the next step: again one user message, nothing of the agent's own
    let second = whole(2);
    let step = step_to(&second, 0.0);
    h.act(2, &second, Some(&step), &[]).await.unwrap();
    let request = h.last_request();
    assert_eq!(roles(&request), [Role::User]);
    assert_eq!(prompt(&request), second.text);
    for ours in [
        "<Recent steps",
        "<Available actions>",
        "<Current observation>",
    ] {
        assert!(!prompt(&request).contains(ours), "{ours}");
    }
    // the retry prompt is the world's, alone
    let retry = "You play a room escape game.\n<Your Previous Action> fly\n[ACTION]";
    h.reask(retry, 2, &second, Some(&step), &[]).await.unwrap();
    let request = h.last_request();
    assert_eq!(roles(&request), [Role::User]);
    assert_eq!(prompt(&request), retry);
    assert_eq!(image_parts(&request), 0);
}

/// VisEscaper on a whole prompt adds what its modules add in the original: its previous
/// thought and action in place of the action before, `[THINK]` before `[ACTION]`; the
/// analysis call has no system message either, and sees the current observation only.
#[tokio::test]
async fn visescaper_adds_its_thought_to_the_whole_prompt() {
    let script = [
        json!({"text": "[THINK] the wardrobe first\n[ACTION] open wardrobe"}),
        json!({"text": "[ANALYSIS] it opened"}),
        json!({"text": "[THINK] then east\n[ACTION] turn_to_east"}),
    ];
    let mut h = escaper("visescaper", &script, &[("memory", "off")]);
    h.start_with("", &[]).await;
    h.act(1, &whole(1), None, &[]).await.unwrap();
    let first = prompt(&h.last_request());
    assert!(first.ends_with("[THINK]\n[ACTION]"), "{first}");
    assert!(first.contains("<Your action before this turn>open desk</Your action"));
    let second = whole(2);
    let mut step = step_to(&second, 0.0);
    step.feedback = "open wardrobe".into();
    let turn = h.act(2, &second, Some(&step), &[]).await.unwrap();
    assert_eq!(turn.reasoning.as_deref(), Some("then east"));
    let requests = h.requests();
    let analysis = &requests[1];
    assert_eq!(roles(analysis), [Role::User]);
    let asked = prompt(analysis);
    assert!(asked.contains("NORTH side of room"), "{asked}");
    assert!(!asked.contains("Action Memory"), "the scene only: {asked}");
    let p = prompt(&requests[2]);
    assert_eq!(roles(&requests[2]), [Role::User]);
    assert!(
        p.contains(
            "<Your Thought and Action before this turn>[THINK] the wardrobe first \
             [ACTION] open wardrobe</Your Thought and Action before this turn>"
        ),
        "{p}"
    );
    assert!(!p.contains("<Your action before this turn>"));
    assert!(p.ends_with("[THINK]\n[ACTION]"));
}

/// The generic agent sends no system message when the world gives none.
#[tokio::test]
async fn the_chat_agent_sends_no_empty_system_message() {
    let mut h = harness(&[json!({"text": "[ACTION] open wardrobe"})], &[]);
    h.start_with("", &[]).await;
    h.act(1, &whole(1), None, &[]).await.unwrap();
    let request = h.last_request();
    assert_eq!(roles(&request), [Role::User]);
    assert_eq!(image_parts(&request), 1);
    assert!(prompt(&request).starts_with("You play a room escape game"));
}
