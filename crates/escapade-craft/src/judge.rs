//! MM-Escape's two judges of craft episodes: intent–outcome consistency (`intent`, §5.3,
//! App. K) and the post-game debriefing (`debrief`, §5.4, App. I).
//!
//! **`intent`** reads every step of a craft episode whose interaction succeeded and asks
//! whether the agent's stated `rationale` (the Table 13 action key) aimed at what
//! happened (1) or the success was an accident (0). A step is a successful interaction
//! when its action reads as a craft action that acts on the thing under the red dot
//! (`grab`, `interactions.use_item_id` or `interactions.input`) and the step raised the
//! task progress, ended the game (`terminated`), or its feedback holds one of the
//! environment's success phrases ([`SUCCESS_PHRASES`]); progress and the end flag do not
//! depend on wording, the phrases cover rows without progress. Its kind (`pickup`,
//! `box`, `door`, `escape`) is read from the feedback and kept in the row. A door that
//! opens (into the next room, or out: the escape) counts as consistent only if the
//! rationale shows the intent to leave. A step without a rationale is judged
//! inconsistent without a call (`no_call` in its row) and counted (`no_rationale`).
//! Scores: `c_io`, the mean over judged steps, and `c_io_d<k>` per difficulty tier (the
//! paper reports Difficulty 3).
//!
//! **`debrief`** takes each escaped craft episode through two calls. The storyteller
//! (`-A storyteller=provider/model`, by default the judge model; the paper asked the
//! model that played) gets the interaction record — how the game began, each action with
//! its rationale, each feedback including the notes read, cut to `max_chars` — and
//! describes the room, recalls the items with clues and reconstructs the background
//! story. The judge then scores that account 0–5 against the ground truth made from the
//! scenario ([`ground_truth`]: rooms, the prop chain, the story), which only the judge
//! ever sees. Scores: `debrief` (mean), `debrief_d<k>` per tier, and `debrief_share`
//! (episodes judged over episodes read: the paper judges successes only).
//!
//! Prompts are ours, not the paper's. Verdicts are JSON objects (`{"consistent": 1}`,
//! `{"score": 4}`), read leniently ([`parse_consistent`], [`parse_score`]).

use std::collections::BTreeMap;

use crate::CraftScenario;
use crate::action::{CraftAction, parse_action};
use crate::chain::{NoteLine, PropKind, Unlock};
use crate::room::Support;
use escapade_core::Action;
use escapade_core::action::truncate_chars;
use serde_json::Value;

use escapade_core::judge::{
    Aggregate, EpisodeInfo, Item, JudgeRequest, JudgeRow, JudgeTask, Score, StepView, Unit,
    aggregate_units, cut,
};

/// The world these tasks judge.
pub const WORLD: &str = "craft";
/// Words of the craft environment's feedback on a successful interaction (a prop picked
/// up, a box opened, a door opened).
pub const SUCCESS_PHRASES: [&str; 3] = ["You picked up", "The box opens", "The door opens"];
/// Most characters of the feedback shown to the `intent` judge.
const MAX_FEEDBACK_CHARS: usize = 2_000;

/// Labels of [`Intent`]'s verdict: `(category, name, short)`.
pub const INTENT_CATEGORIES: [(&str, &str, &str); 2] = [
    ("consistent", "Consistent (intended)", "1"),
    ("inconsistent", "Inconsistent (accidental)", "0"),
];

/// Labels of [`Debrief`]'s verdict, one per score.
pub const SCORE_CATEGORIES: [(&str, &str, &str); 6] = [
    ("score-0", "Score 0", "0"),
    ("score-1", "Score 1", "1"),
    ("score-2", "Score 2", "2"),
    ("score-3", "Score 3", "3"),
    ("score-4", "Score 4", "4"),
    ("score-5", "Score 5", "5"),
];

/// One successful interaction of an episode.
#[derive(Debug, Clone, PartialEq)]
pub struct Interaction<'a> {
    /// The step.
    pub step: &'a StepView,
    /// `pickup`, `box`, `door` (into the next room), `escape`, or `other`.
    pub kind: &'static str,
    /// The action's `rationale`, trimmed; `None` when absent or blank.
    pub rationale: Option<String>,
}

/// The step's action read as a craft action, if it reads as one.
fn craft_action(step: &StepView) -> Option<CraftAction> {
    let value = step.action.as_ref()?;
    let action = serde_json::from_value::<Action>(value.clone()).ok()?;
    parse_action(&action).ok()
}

/// The steps whose interaction succeeded, in order (see the module docs).
pub fn successful_interactions(steps: &[StepView]) -> Vec<Interaction<'_>> {
    let mut out = Vec::new();
    let mut before = 0.0f64;
    for s in steps {
        let rose = s.progress.is_some_and(|p| p > before + 1e-9);
        if let Some(p) = s.progress {
            before = p;
        }
        let Some(action) = craft_action(s) else {
            continue;
        };
        let feedback = s.feedback.as_deref().unwrap_or("");
        let phrase = SUCCESS_PHRASES.iter().any(|p| feedback.contains(p));
        if !action.interacts() || !(rose || s.terminated || phrase) {
            continue;
        }
        let lower = feedback.to_lowercase();
        let kind = if s.terminated {
            "escape"
        } else if lower.contains("door opens") {
            "door"
        } else if lower.contains("box opens") {
            "box"
        } else if lower.contains("picked up") {
            "pickup"
        } else {
            "other"
        };
        let rationale = action
            .rationale
            .map(|r| r.trim().to_string())
            .filter(|r| !r.is_empty());
        out.push(Interaction {
            step: s,
            kind,
            rationale,
        });
    }
    out
}

/// Intent–outcome consistency (MM-Escape §5.3): see the module docs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Intent;

/// Our instructions to the `intent` judge.
const INTENT_SYSTEM: &str = "\
You review one moment of an AI agent playing an escape-room game in a 3D room. With \
every action the agent states, in a sentence or two, why it takes it. The action you \
are shown succeeded in the game: something was picked up, a box was opened or \
unlocked, or a door was opened.

Decide whether the agent meant to bring about what happened. Answer 1 when its stated \
reason aims at this very result: it meant to take, open or unlock the thing the game \
reports (other words for the same object are fine). Answer 0 when the success was an \
accident: the reason aims at a different object, only at looking or walking, or at \
something unrelated.

Answer with a JSON object and nothing else: {\"consistent\": 1} or {\"consistent\": 0}";

impl JudgeTask for Intent {
    fn name(&self) -> &'static str {
        "intent"
    }

    fn version(&self) -> u32 {
        1
    }

    fn about(&self) -> &'static str {
        "judge whether each successful interaction of a craft episode was intended by its \
         rationale (MM-Escape §5.3, C_IO)"
    }

    fn items(&self, _: &str, _: u32, _: &[StepView], _: usize) -> Vec<Item> {
        // the world and the tier come with the episode: see episode_items
        Vec::new()
    }

    fn episode_items(
        &self,
        episode: &EpisodeInfo<'_>,
        steps: &[StepView],
        max_chars: usize,
    ) -> Result<Vec<Item>, String> {
        if episode.world != WORLD {
            return Ok(Vec::new());
        }
        Ok(successful_interactions(steps)
            .into_iter()
            .map(|i| {
                let feedback = i.step.feedback.as_deref().unwrap_or("").trim();
                let rationale = i.rationale.unwrap_or_default();
                let chars = rationale.chars().count();
                let (text, truncated) = cut(&rationale, max_chars);
                let verdict = rationale.is_empty().then(|| {
                    vec![Unit {
                        category: "inconsistent".into(),
                        text: "no rationale".into(),
                    }]
                });
                Item {
                    scenario: episode.scenario.to_string(),
                    epoch: episode.epoch,
                    step: Some(i.step.step),
                    text,
                    chars,
                    truncated,
                    context: truncate_chars(feedback, MAX_FEEDBACK_CHARS),
                    label: Some(i.kind.to_string()),
                    difficulty: Some(episode.difficulty),
                    reference: None,
                    verdict,
                }
            })
            .collect())
    }

    fn nothing_to_judge(&self) -> &'static str {
        "no step of a craft episode is a successful interaction (an item picked up, a box \
         or a door opened)"
    }

    fn request(&self, item: &Item) -> JudgeRequest {
        let mut user = format!(
            "The agent's stated reason for its action:\n<<<\n{}\n>>>\n\nWhat the game \
             reported after the action:\n<<<\n{}\n>>>",
            item.text, item.context
        );
        match item.label.as_deref() {
            Some("escape") => user.push_str(
                "\n\nThis action opened the exit and the agent got out of the game. Count \
                 it as intended (1) only if the stated reason shows the agent meant to \
                 leave the room, for example to open the door and go out; any other \
                 reason is 0.",
            ),
            Some("door") => user.push_str(
                "\n\nThis action opened the room's exit door into the next room. Count it \
                 as intended (1) only if the stated reason shows the agent meant to leave \
                 the room through that door; any other reason is 0.",
            ),
            _ => {}
        }
        JudgeRequest::new(INTENT_SYSTEM, user)
    }

    fn verdict_schema(&self) -> Option<Value> {
        Some(serde_json::json!({
            "type": "object",
            "properties": {"consistent": {"type": "integer", "enum": [0, 1]}},
            "required": ["consistent"],
            "additionalProperties": false
        }))
    }

    fn parse(&self, reply: &str) -> Result<Vec<Unit>, String> {
        let consistent = parse_consistent(reply)?;
        Ok(vec![Unit {
            category: if consistent {
                "consistent"
            } else {
                "inconsistent"
            }
            .into(),
            text: String::new(),
        }])
    }

    fn aggregate(&self, rows: &[&JudgeRow]) -> Aggregate {
        let mut a = aggregate_units(rows, &INTENT_CATEGORIES);
        a.compositions.clear();
        let value = |r: &JudgeRow| {
            f64::from(u8::from(
                r.units.first().is_some_and(|u| u.category == "consistent"),
            ))
        };
        a.scores = means(rows, "c_io", "C_IO", value);
        let missing = rows.iter().filter(|r| r.no_call).count();
        a.scores.push(Score {
            name: "no_rationale".into(),
            label: "steps without a rationale (judged 0 without a call)".into(),
            items: missing,
            value: (!rows.is_empty()).then(|| missing as f64 / rows.len() as f64),
        });
        a
    }

    fn table_words(&self) -> [&'static str; 4] {
        ["verdict", "steps", "verdicts", "steps"]
    }
}

/// The mean of `value` over `rows` (`name`), then per difficulty tier (`name_d<k>`).
fn means(
    rows: &[&JudgeRow],
    name: &str,
    label: &str,
    value: impl Fn(&JudgeRow) -> f64,
) -> Vec<Score> {
    let mean = |rows: &[&JudgeRow]| {
        (!rows.is_empty()).then(|| rows.iter().map(|r| value(r)).sum::<f64>() / rows.len() as f64)
    };
    let mut out = vec![Score {
        name: name.into(),
        label: label.into(),
        items: rows.len(),
        value: mean(rows),
    }];
    let mut tiers: BTreeMap<u32, Vec<&JudgeRow>> = BTreeMap::new();
    for r in rows {
        if let Some(d) = r.difficulty {
            tiers.entry(d).or_default().push(r);
        }
    }
    for (d, rows) in tiers {
        out.push(Score {
            name: format!("{name}_d{d}"),
            label: format!("{label}, difficulty {d}"),
            items: rows.len(),
            value: mean(&rows),
        });
    }
    out
}

/// The post-game debriefing (MM-Escape §5.4): see the module docs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Debrief;

/// Our instructions to the storyteller.
const STORYTELLER_SYSTEM: &str = "\
You have just played an escape-room game in a 3D room and found your way out. You are \
given the record of your game: how it began, then each action you sent (a JSON object \
whose \"rationale\" says why) and what the game answered, including the text of every \
note you read.

Look back on the game and write a short debriefing in three parts:
1. The room: what kind of room it was and what was in it.
2. The items: each item that held a clue or helped you out (keys, notes, boxes, codes, \
patterns on the walls), where you found it and what it was for.
3. The story: the background story of this place and of the people behind it, pieced \
together from what you found. Say where you are guessing.";

/// Our instructions to the `debrief` judge.
const DEBRIEF_SYSTEM: &str = "\
You grade a player's debriefing after an escape-room game. You are given the truth \
about the game (the rooms, the items that mattered, the background story) and the \
player's account, written from memory after getting out.

Score how well the account reconstructs the truth, from 0 to 5:
5: the background story is right in its main people and events, and the room and the \
important items are right, with nothing significant invented.
4: the story is mostly right, with small gaps or slips; the items are largely right.
3: part of the story is right (who lived there, or what happened) and some items are \
right.
2: the room and a few items are right, but the story is missing or mostly wrong.
1: hardly anything matches: the kind of room, or a single item.
0: nothing matches, or the account is made up.
Details that contradict the truth lower the score; wording does not matter, content \
does.

Answer with a JSON object and nothing else: {\"score\": <a whole number from 0 to 5>}";

/// The interaction record of an episode for the storyteller, and its full length in
/// characters: the start of the game, then each step's action and feedback. Past
/// `max_chars`, runs of steps that only looked or walked are folded into one line; what
/// is still too long is cut.
pub fn record(steps: &[StepView], max_chars: usize) -> (String, usize, bool) {
    let start = steps
        .first()
        .and_then(|s| s.observation.as_ref())
        .map(|o| {
            let t = o.text.as_str();
            let t = t.split("\n\nInventory:").next().unwrap_or(t);
            t.trim_start_matches("Interaction result:")
                .trim()
                .to_string()
        })
        .filter(|t| !t.is_empty());
    let head = match &start {
        Some(t) => format!("The game began: {t}\n"),
        None => String::new(),
    };
    let line = |s: &StepView| {
        let action = s.action_text();
        let feedback = s.feedback.as_deref().unwrap_or("").trim().to_string();
        format!(
            "Step {}: you sent {}\n  The game answered: {}\n",
            s.step,
            if action.is_empty() {
                "nothing"
            } else {
                &action
            },
            if feedback.is_empty() {
                "nothing"
            } else {
                &feedback
            }
        )
    };
    let full: String = head.clone() + &steps.iter().map(line).collect::<String>();
    let chars = full.chars().count();
    if chars <= max_chars {
        return (full, chars, false);
    }
    // fold the steps that neither acted on anything nor read
    let plain = |s: &StepView| craft_action(s).is_some_and(|a| !a.interacts() && a.read.is_none());
    let mut folded = head;
    let mut i = 0;
    while i < steps.len() {
        let mut j = i;
        while j < steps.len() && plain(&steps[j]) {
            j += 1;
        }
        if j - i >= 2 {
            folded.push_str(&format!(
                "Steps {}–{}: you looked around and walked (left out).\n",
                steps[i].step,
                steps[j - 1].step
            ));
            i = j;
        } else {
            folded.push_str(&line(&steps[i]));
            i += 1;
        }
    }
    let (text, _) = cut(&folded, max_chars);
    (text, chars, true)
}

/// What the `debrief` judge compares an account with: each room's kind and furniture,
/// the props of its chain (what they are, where they lie, what they open or say), and
/// the background story. Never sent to the storyteller.
pub fn ground_truth(s: &CraftScenario) -> String {
    let mut out = String::new();
    for (n, room) in s.rooms.iter().enumerate() {
        let mut furniture: BTreeMap<&str, usize> = BTreeMap::new();
        for f in &room.furniture {
            *furniture.entry(f.kind.label()).or_default() += 1;
        }
        let list: Vec<String> = furniture
            .iter()
            .map(|(k, n)| {
                if *n > 1 {
                    format!("{k} ×{n}")
                } else {
                    k.to_string()
                }
            })
            .collect();
        out.push_str(&format!(
            "Room {}: a {} with {}.\n",
            n + 1,
            room.kind.label(),
            if list.is_empty() {
                "no furniture".to_string()
            } else {
                list.join(", ")
            }
        ));
        let chain = &room.chain;
        let code = |p: &str| chain.digits(p).unwrap_or("?").to_string();
        let lock = |u: &Unlock| match u {
            Unlock::Interact => "opens by hand".to_string(),
            Unlock::Key { key } => format!("is locked; {key} opens it"),
            Unlock::Password { password } => {
                format!("is locked by a keypad; the code is {}", code(password))
            }
        };
        let place = |id: &str| -> String {
            if let Some(b) = chain.container_of(id) {
                return format!("inside {b}");
            }
            match room.props.iter().find(|p| p.id == id).map(|p| &p.support) {
                Some(Support::On { furniture, .. }) => {
                    room.furniture(furniture).map_or("in the room".into(), |f| {
                        format!("on the {}", f.kind.label())
                    })
                }
                Some(Support::Floor) => "on the floor".into(),
                Some(Support::Wall { wall }) => format!("on the {} wall", wall.name()),
                None => "in the room".into(),
            }
        };
        for p in &chain.props {
            let line = match &p.kind {
                PropKind::Key { opens } => format!(
                    "{}: a key, {}; it opens {}",
                    p.id,
                    place(&p.id),
                    opens.as_deref().unwrap_or("nothing")
                ),
                PropKind::Box { lock: l, contents } => format!(
                    "{}: a box, {}; it {}; it holds {}",
                    p.id,
                    place(&p.id),
                    lock(l),
                    if contents.is_empty() {
                        "nothing".to_string()
                    } else {
                        contents.join(", ")
                    }
                ),
                PropKind::Note { lines } => {
                    let said: Vec<String> = lines
                        .iter()
                        .map(|l| match l {
                            NoteLine::Password { password } => {
                                format!("the code {}", code(password))
                            }
                            NoteLine::Story { text } => format!("a story fragment: \"{text}\""),
                            NoteLine::Image { password, .. } => match password {
                                Some(pw) => format!("a picture of the code {}", code(pw)),
                                None => "a picture".into(),
                            },
                        })
                        .collect();
                    format!(
                        "{}: a note, {}; on it: {}",
                        p.id,
                        place(&p.id),
                        if said.is_empty() {
                            "nothing".to_string()
                        } else {
                            said.join("; ")
                        }
                    )
                }
                PropKind::WallPattern { password } => format!(
                    "{}: a pattern of tiles showing the code {}, {}",
                    p.id,
                    code(password),
                    place(&p.id)
                ),
                PropKind::Password { .. } => continue,
            };
            out.push_str(&format!("- {line}\n"));
        }
        out.push_str(&format!("- the exit door {}\n", lock(&chain.exit)));
    }
    out.push_str(&format!("Background story: {}\n", s.story.trim()));
    out
}

impl JudgeTask for Debrief {
    fn name(&self) -> &'static str {
        "debrief"
    }

    fn version(&self) -> u32 {
        1
    }

    fn about(&self) -> &'static str {
        "have a storyteller debrief each escaped craft episode and score its account 0-5 \
         against the scenario's story (MM-Escape §5.4)"
    }

    fn items(&self, _: &str, _: u32, _: &[StepView], _: usize) -> Vec<Item> {
        // the ground truth comes with the episode: see episode_items
        Vec::new()
    }

    fn episode_items(
        &self,
        episode: &EpisodeInfo<'_>,
        steps: &[StepView],
        max_chars: usize,
    ) -> Result<Vec<Item>, String> {
        if episode.world != WORLD || !episode.success {
            return Ok(Vec::new());
        }
        let json = episode.scenario_json.ok_or(
            "its scenario could not be loaded (see the warnings), or it changed since the \
             run: no scenario of the run's source has the hash the episode recorded",
        )?;
        let scenario: CraftScenario = serde_json::from_str(json)
            .map_err(|e| format!("its scenario does not read as a craft scenario: {e}"))?;
        let (text, chars, truncated) = record(steps, max_chars);
        Ok(vec![Item {
            scenario: episode.scenario.to_string(),
            epoch: episode.epoch,
            step: None,
            text,
            chars,
            truncated,
            context: String::new(),
            label: None,
            difficulty: Some(episode.difficulty),
            reference: Some(ground_truth(&scenario)),
            verdict: None,
        }])
    }

    fn needs_scenarios(&self) -> bool {
        true
    }

    fn nothing_to_judge(&self) -> &'static str {
        "no craft episode was escaped (the debriefing follows a successful game)"
    }

    fn prior_role(&self) -> Option<&'static str> {
        Some("storyteller")
    }

    fn prior(&self, item: &Item) -> Option<JudgeRequest> {
        let user = format!("The record of your game:\n<<<\n{}>>>", item.text);
        Some(JudgeRequest::new(STORYTELLER_SYSTEM, user))
    }

    /// The judge's request with an empty account (the real one is
    /// [`request_after`](JudgeTask::request_after) the storyteller's reply).
    fn request(&self, item: &Item) -> JudgeRequest {
        self.request_after(item, "")
    }

    fn request_after(&self, item: &Item, account: &str) -> JudgeRequest {
        let (account, _) = cut(account.trim(), escapade_core::judge::DEFAULT_MAX_CHARS);
        let user = format!(
            "The truth about the game:\n<<<\n{}>>>\n\nThe player's debriefing:\n<<<\n{}\n>>>",
            item.reference.as_deref().unwrap_or(""),
            account
        );
        JudgeRequest::new(DEBRIEF_SYSTEM, user)
    }

    fn verdict_schema(&self) -> Option<Value> {
        Some(serde_json::json!({
            "type": "object",
            "properties": {"score": {"type": "integer", "enum": [0, 1, 2, 3, 4, 5]}},
            "required": ["score"],
            "additionalProperties": false
        }))
    }

    fn parse(&self, reply: &str) -> Result<Vec<Unit>, String> {
        let score = parse_score(reply)?;
        Ok(vec![Unit {
            category: format!("score-{score}"),
            text: String::new(),
        }])
    }

    fn aggregate(&self, rows: &[&JudgeRow]) -> Aggregate {
        let mut a = aggregate_units(rows, &SCORE_CATEGORIES);
        a.compositions.clear();
        let value = |r: &JudgeRow| {
            r.units
                .first()
                .and_then(|u| u.category.strip_prefix("score-"))
                .and_then(|n| n.parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        a.scores = means(rows, "debrief", "debriefing score (0-5)", value);
        a
    }

    fn complete(&self, a: &mut Aggregate, episodes: usize) {
        // one unit per judged episode
        a.scores.push(Score {
            name: "debrief_share".into(),
            label: "share of episodes judged (escaped)".into(),
            items: a.units,
            value: (episodes > 0).then(|| a.units as f64 / episodes as f64),
        });
    }

    fn table_words(&self) -> [&'static str; 4] {
        ["score", "episodes", "scores", "episodes"]
    }
}

/// The value of the first of `keys` (ASCII case-insensitive) in the last JSON object of
/// `reply` that has one (Python's `True`/`False` read too), else in the last line that
/// reads `key: value` or `key = value`.
fn field(reply: &str, keys: &[&str]) -> Option<Value> {
    let is_key = |k: &str| {
        let k = k.trim().to_ascii_lowercase();
        keys.contains(&k.as_str())
    };
    let bytes = reply.as_bytes();
    let mut found = None;
    for (start, _) in reply.match_indices('{') {
        let mut depth = 0usize;
        let mut end = None;
        for (i, b) in bytes.iter().enumerate().skip(start) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { continue };
        let span = &reply[start..=end];
        let pythonic = span.replace("True", "true").replace("False", "false");
        for text in [span, pythonic.as_str()] {
            if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) {
                if let Some((_, v)) = map.iter().find(|(k, _)| is_key(k)) {
                    found = Some(v.clone());
                }
                break;
            }
        }
    }
    if found.is_some() {
        return found;
    }
    for line in reply.lines().rev() {
        let l = line.trim().trim_start_matches(['*', '#', '-', '"', ' ']);
        let Some(at) = l.find([':', '=']) else {
            continue;
        };
        let key = l[..at].trim_matches(|c: char| c == '*' || c == '"' || c.is_whitespace());
        if is_key(key) {
            let value = l[at + 1..]
                .trim()
                .trim_matches(|c: char| c == '*' || c == '"' || c == '`' || c == ',')
                .trim();
            return Some(Value::String(value.to_string()));
        }
    }
    None
}

/// The reply as a bare answer: without spaces, code fences, quotes or a final period.
fn bare(reply: &str) -> String {
    reply
        .trim()
        .trim_matches(|c: char| c == '`' || c == '"' || c == '*' || c == '.' || c.is_whitespace())
        .to_ascii_lowercase()
}

/// Reads an `intent` verdict: `{"consistent": 1}` or `0` (also `"consistency"`, `true` /
/// `false`, `"yes"` / `"no"`, numbers as strings, a `consistent: 1` line, or a reply of
/// just `1` or `0`). Any other reply holds no verdict.
pub fn parse_consistent(reply: &str) -> Result<bool, String> {
    let value =
        field(reply, &["consistent", "consistency"]).unwrap_or_else(|| Value::String(bare(reply)));
    let verdict = match &value {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => n.as_f64().and_then(|v| {
            if v == 1.0 {
                Some(true)
            } else if v == 0.0 {
                Some(false)
            } else {
                None
            }
        }),
        Value::String(s) => match bare(s).as_str() {
            "1" | "1.0" | "true" | "yes" | "consistent" => Some(true),
            "0" | "0.0" | "false" | "no" | "inconsistent" => Some(false),
            _ => None,
        },
        _ => None,
    };
    verdict.ok_or_else(|| {
        format!(
            "the judge's reply holds no {{\"consistent\": 0 or 1}}: {:?}",
            truncate_chars(reply.trim(), 120)
        )
    })
}

/// Reads a `debrief` verdict: `{"score": n}` with `n` a whole number from 0 to 5 (also
/// as a string, `4.0`, `"4/5"`, a `score: 4` line, or a reply of just the number). Any
/// other reply holds no verdict.
pub fn parse_score(reply: &str) -> Result<u8, String> {
    let value = field(reply, &["score"]).unwrap_or_else(|| Value::String(bare(reply)));
    let number = match &value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => {
            let s = bare(s);
            let s = s
                .split_once('/')
                .map_or(s.as_str(), |(n, _)| n)
                .split(" out of")
                .next()
                .unwrap_or("")
                .trim();
            s.parse::<f64>().ok()
        }
        _ => None,
    };
    match number {
        Some(n) if n.fract() == 0.0 && (0.0..=5.0).contains(&n) => Ok(n as u8),
        _ => Err(format!(
            "the judge's reply holds no {{\"score\": a whole number from 0 to 5}}: {:?}",
            truncate_chars(reply.trim(), 120)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consistent_verdicts_are_read_leniently() {
        for (reply, want) in [
            ("{\"consistent\": 1}", true),
            ("```json\n{\"consistent\": 0}\n```", false),
            ("Thinking… {\"Consistent\": \"1\"}", true),
            ("{\"consistency\": True}", true),
            ("Consistency: 0", false),
            ("**consistent**: yes", true),
            ("1", true),
            ("0.", false),
        ] {
            assert_eq!(parse_consistent(reply), Ok(want), "{reply:?}");
        }
        for reply in ["", "{\"consistent\": 2}", "maybe", "{\"other\": 1}", "{"] {
            let e = parse_consistent(reply).unwrap_err();
            assert!(
                e.starts_with("the judge's reply holds no"),
                "{reply:?}: {e}"
            );
        }
    }

    #[test]
    fn scores_are_read_leniently_and_checked() {
        for (reply, want) in [
            ("{\"score\": 4}", 4),
            ("{\"score\": \"3\"}", 3),
            ("{\"score\": 5.0}", 5),
            ("The account is thin.\nScore: 2/5", 2),
            ("0", 0),
        ] {
            assert_eq!(parse_score(reply), Ok(want), "{reply:?}");
        }
        for reply in [
            "{\"score\": 6}",
            "{\"score\": 3.5}",
            "{\"score\": -1}",
            "good",
            "",
        ] {
            assert!(parse_score(reply).is_err(), "{reply:?}");
        }
    }
}
