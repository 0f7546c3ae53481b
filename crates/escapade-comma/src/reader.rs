//! The talking oracle pair: a solver that says exactly what it sees and does what it is
//! told, and an expert that knows only what the solver said (COMMA §4.1's protocol with
//! perfect players).
//!
//! Why it exists: [`crate::world::OraclePair`] proves every scenario solvable by letting
//! the expert plan on its own copy of the puzzle; that says nothing about the protocol.
//! This pair plays the game as the paper sets it: the expert rebuilds the puzzle from the
//! solver's words alone ([`ReadingExpert`]), so its score is the ceiling a perfect pair
//! reaches under 10 turns and 3 mistakes, and either half can be paired with a model or a
//! person (`--agent oracle --expert llm`, `--agent llm --expert oracle`).
//!
//! The solver ([`DescribingSolver`]) alternates: with no instructions pending it sends
//! its puzzle's shareable description ([`Puzzle::shareable`], never a private value);
//! otherwise it performs the actions the expert named, one per line. Where the next
//! screen is drawn at random (LED, Memory, Colour) the expert can only plan the current
//! stage, so those puzzles cost two turns a stage; everywhere else the expert sends the
//! whole remaining solution at once. What the expert must remember between stages
//! (Memory's pressed labels, Colour's last group) it keeps from its own advice.

use std::collections::BTreeMap;

use serde_json::json;

use crate::env::read_actions;
use crate::puzzle::{Puzzle, PuzzleKind, Rules, import, import_with, play_out};
use crate::puzzles::colour::{COLOURS, Colour, Group};
use crate::puzzles::{keypad, password};

/// How the expert says "type your PIN" to the describing solver (the one line it reads
/// that is not an action name).
pub const PIN_LINE: &str = "Now type your PIN on the keypad, digit by digit (do not tell me).";

/// What the expert answers when the solver's words do not describe a screen it knows.
const ASK: &str = "Please describe exactly what you see on the module.";

/// The expert half: rebuilds the puzzle from the solver's last message and answers with
/// the actions to take, one per line.
pub struct ReadingExpert {
    kind: PuzzleKind,
    /// Memory: the position (1-4) and label pressed at each stage, from our own advice.
    memory: BTreeMap<usize, (usize, u8)>,
    /// Colour: the group that was last before our latest advice, the group we then told
    /// the solver to press, and how many squares were white before that press.
    colour: Option<(Option<Group>, Group, usize)>,
    /// ATM: whether the balance is $500 or more, once the solver has said.
    balance_high: Option<bool>,
    /// Password: the words that fitted the wheels before our last advice, the wheel we
    /// asked the solver to turn, which way (up), and the letters shown before.
    password: Option<(Vec<&'static str>, usize, bool, Vec<char>)>,
}

impl ReadingExpert {
    /// An expert holding the manual of `kind` (the manual says which puzzle it is).
    pub fn new(kind: PuzzleKind) -> ReadingExpert {
        ReadingExpert {
            kind,
            memory: BTreeMap::new(),
            colour: None,
            balance_high: None,
            password: None,
        }
    }

    /// The expert's reply to the solver's message `said`: action names one per line, or a
    /// request to describe the module when `said` describes no screen this expert can read
    /// (for example a message with actions only).
    pub fn advise(&mut self, said: &str) -> String {
        match self.plan(said) {
            Some(lines) if !lines.is_empty() => lines.join("\n"),
            Some(_) => "The module is done; nothing more to do.".into(),
            None => ASK.into(),
        }
    }

    fn plan(&mut self, said: &str) -> Option<Vec<String>> {
        let seed = 0;
        match self.kind {
            PuzzleKind::Wire => {
                let colours: Vec<&str> = (1..=6)
                    .map_while(|i| after(said, &format!("wire {i} is ")).map(first_word))
                    .collect();
                let instance = json!({"n_wires": colours.len(), "colors": colours});
                // the serial number the solver read (the manual's rules need its last
                // digit); the suite's when it said none
                let rules = Rules {
                    serial: after(said, "serial number ")
                        .and_then(number)
                        .and_then(|n| u32::try_from(n).ok())
                        .unwrap_or(crate::puzzle::SERIAL),
                    ..Rules::default()
                };
                plan_all(import_with(self.kind, &instance, seed, rules).ok()?)
            }
            PuzzleKind::Who => {
                let display = if said.contains("The display is empty.") {
                    ""
                } else {
                    between(said, "The display shows \"", "\". The buttons")?
                };
                let buttons: Option<Vec<&str>> = [
                    "top left \"",
                    "top right \"",
                    "middle left \"",
                    "middle right \"",
                    "bottom left \"",
                    "bottom right \"",
                ]
                .iter()
                .map(|p| between(said, p, "\""))
                .collect();
                let instance = json!({"display_text": display, "button_texts": buttons?});
                plan_all(import(self.kind, &instance, seed).ok()?)
            }
            PuzzleKind::Keypad => self.keypad(said),
            PuzzleKind::Password => self.password(said),
            PuzzleKind::Maze => {
                let torus = capitalised(first_word(after(said, "the torus, which is ")?));
                let rows: Vec<Vec<u8>> = said
                    .lines()
                    .filter(|l| l.starts_with('#'))
                    .map(|l| {
                        l.split_whitespace()
                            .map(|c| match c {
                                "#" => 1,
                                "T" => 2,
                                _ => 0,
                            })
                            .collect()
                    })
                    .collect();
                let at = after(said, "The mouse is at row ")?;
                let row = number(at)?;
                let col = number(after(at, ", column ")?)?;
                let instance = json!({
                    "maze": rows,
                    "start_x": row.checked_sub(1)?,
                    "start_y": col.checked_sub(1)?,
                    "torus_color": torus,
                });
                plan_all(import(self.kind, &instance, seed).ok()?)
            }
            PuzzleKind::Led => {
                if said.contains("All stages are done") {
                    return Some(Vec::new());
                }
                let stages = number(after(said, "An LED module with ")?)?;
                if !(2..=5).contains(&stages) {
                    return None;
                }
                if !(2..=5).contains(&stages) {
                    return None;
                }
                let stage = number(after(said, "now at stage ")?)?;
                let colour = first_word(after(said, "the LED is ")?);
                let letters: Option<Vec<String>> =
                    ["top left ", "top right ", "bottom left ", "bottom right "]
                        .iter()
                        .map(|p| after(said, p).map(|s| first_word(s).to_string()))
                        .collect();
                let mut p = import(
                    self.kind,
                    &json!({"num_stages": stages, "led_colors": vec![colour; stages]}),
                    seed,
                )
                .ok()?;
                p.load_screen(&json!({
                    "stage": stage.checked_sub(1)?,
                    "led_color": colour,
                    "letters_TL_TR_BL_BR": letters?,
                }))
                .ok()?;
                Some(p.correct_actions().into_iter().take(1).collect())
            }
            PuzzleKind::Memory => self.memory(said),
            PuzzleKind::Colour => self.colour(said),
            PuzzleKind::Atm => self.atm(said),
            PuzzleKind::Telehealth => telehealth(said),
        }
    }

    /// Password: the listed words each of whose letters is on its wheel or one step away
    /// from the letter shown. When two fit (the evaluation set has `there` and `these` on
    /// the same wheels, and `right` and `their`), one turn of a wheel where they differ
    /// tells them apart: ask for it, then keep the word whose wheel would show the new
    /// letter.
    fn password(&mut self, said: &str) -> Option<Vec<String>> {
        let shown: Vec<char> = after(said, "the wheels show: ")?
            .split_whitespace()
            .take(5)
            .filter_map(|w| w.chars().next())
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if shown.len() != 5 {
            return None;
        }
        let step = |a: char, b: char| (a as i32 - b as i32).rem_euclid(26);
        let near = |w: &&str| {
            w.len() == 5
                && w.chars()
                    .zip(&shown)
                    .all(|(a, &b)| matches!(step(a, b), 0 | 1 | 25))
        };
        // the letter wheel `k` of `word` shows after one turn from `from`
        let turned = |word: &str, k: usize, up: bool, from: char| -> Option<char> {
            let mid = word.chars().nth(k)?;
            let wheel = [-1i32, 0, 1]
                .map(|d| char::from(b'a' + (i32::from(mid as u8 - b'a') + d).rem_euclid(26) as u8));
            let i = wheel.iter().position(|&c| c == from)?;
            Some(wheel[(i + if up { 1 } else { 2 }) % 3])
        };
        let mut words: Vec<&'static str> = password::WORDS.iter().copied().filter(near).collect();
        if let Some((before, k, up, was)) = self.password.take() {
            let kept: Vec<&'static str> = before
                .into_iter()
                .filter(|w| near(w) && turned(w, k, up, was[k]) == Some(shown[k]))
                .collect();
            if !kept.is_empty() {
                words = kept;
            }
        }
        match words[..] {
            [] => None,
            [answer] => {
                let instance = json!({
                    "possible_words": password::WORDS.to_vec(),
                    "answer_word": answer,
                    "current_letters": shown.iter().map(char::to_string).collect::<Vec<_>>(),
                });
                plan_all(import(self.kind, &instance, 0).ok()?)
            }
            _ => {
                // the turn whose outcome differs most between the words that fit
                let (k, up) =
                    (0..5)
                        .flat_map(|k| [(k, true), (k, false)])
                        .max_by_key(|&(k, up)| {
                            let mut seen: Vec<Option<char>> =
                                words.iter().map(|w| turned(w, k, up, shown[k])).collect();
                            seen.sort_unstable();
                            seen.dedup();
                            seen.len()
                        })?;
                self.password = Some((words, k, up, shown));
                Some(vec![format!(
                    "{}_button_{}",
                    if up { "up" } else { "down" },
                    k + 1
                )])
            }
        }
    }

    /// Keypad: the solver describes each symbol's drawing; this expert knows what the
    /// manual's symbols look like (the original's expert sees them drawn in its manual),
    /// so it finds each described shape among them ([`keypad::SHAPES`]).
    fn keypad(&self, said: &str) -> Option<Vec<String>> {
        let lower = said.to_lowercase();
        let places = [
            "top left: ",
            "top right: ",
            "bottom left: ",
            "bottom right: ",
        ];
        let mut symbols = Vec::new();
        let mut pressed = 0;
        for p in places {
            let rest = after(&lower, p)?;
            let seen = rest.split([';', '.']).next()?.trim();
            let (seen, down) = match seen.strip_suffix("(pressed)") {
                Some(s) => (s.trim(), true),
                None => (seen, false),
            };
            pressed += usize::from(down);
            let (name, _) = keypad::SHAPES
                .iter()
                .find(|(_, d)| d.to_lowercase() == seen)?;
            symbols.push(*name);
        }
        let column = keypad::COLUMNS
            .iter()
            .position(|c| symbols.iter().all(|s| c.contains(s)))?;
        // the original lists the symbols column by column: top left, bottom left, top
        // right, bottom right
        let nums: Vec<usize> = [0, 2, 1, 3]
            .iter()
            .map(|&b| {
                keypad::COLUMNS[column]
                    .iter()
                    .position(|c| *c == symbols[b])
            })
            .collect::<Option<_>>()?;
        let mut p = import(
            self.kind,
            &json!({"strip_num": column, "image_nums": nums}),
            0,
        )
        .ok()?;
        // presses come in the column's order, so the pressed buttons are its first ones
        for _ in 0..pressed {
            let next = p.correct_actions().into_iter().next()?;
            p.act(&next);
        }
        plan_all(p)
    }

    fn memory(&mut self, said: &str) -> Option<Vec<String>> {
        if said.contains("All five stages are done") {
            return Some(Vec::new());
        }
        let stage = number(after(said, "at stage ")?)?;
        let display = number(after(said, "The display shows ")?)?;
        let labels: Vec<usize> = after(said, "are labelled ")?
            .split([',', '.'])
            .take(4)
            .map(|s| s.trim().parse().ok())
            .collect::<Option<_>>()?;
        // a mistake sends the module back to stage 1: forget what came after
        self.memory.retain(|s, _| *s < stage);
        let history: Vec<_> = (1..stage)
            .map(|s| {
                self.memory
                    .get(&s)
                    .map(|(position, label)| json!({"position": position, "label": label}))
            })
            .collect::<Option<_>>()?;
        let mut p = import(
            self.kind,
            &json!({"display_text": display, "labels": labels}),
            0,
        )
        .ok()?;
        p.load_screen(&json!({
            "stage": stage,
            "display": display,
            "labels": labels,
            "history": history,
        }))
        .ok()?;
        let next = p.correct_actions().into_iter().next()?;
        let label: u8 = next.strip_prefix("press_")?.parse().ok()?;
        let position = labels.iter().position(|&l| l == usize::from(label))? + 1;
        self.memory.insert(stage, (position, label));
        Some(vec![next])
    }

    fn colour(&mut self, said: &str) -> Option<Vec<String>> {
        let mut grid = Vec::new();
        for r in 0..4 {
            let row = after(said, &format!("row {r}: "))?;
            let row = row.split([';', '.']).next()?;
            grid.extend(row.split(',').map(|c| c.trim().to_string()));
        }
        if grid.len() != 16 {
            return None;
        }
        let white = grid
            .iter()
            .filter(|c| c.eq_ignore_ascii_case("white"))
            .count();
        if white == 16 {
            return Some(Vec::new());
        }
        // the group we named last, if the grid shows it was pressed (more white squares);
        // no white square means the module started afresh
        let previous = match self.colour {
            _ if white == 0 => None,
            Some((_, g, before)) if white > before => Some(g),
            Some((earlier, _, _)) => earlier,
            None => return None,
        };
        let mut p = Colour::import(&json!({"colors": vec![COLOURS[0]; 16]}), 0).ok()?;
        p.load_screen(&json!({
            "grid_row_major": grid,
            "previous_group": previous.map(Group::name),
        }))
        .ok()?;
        let target = p.target()?;
        self.colour = Some((previous, target, white));
        Some(p.correct_actions().into_iter().take(1).collect())
    }

    fn atm(&mut self, said: &str) -> Option<Vec<String>> {
        let screen = after(said, "Its screen reads:")?;
        let pointed = |option: &str| {
            screen
                .lines()
                .any(|l| l.trim_start().starts_with("->") && l.contains(option))
        };
        if said.contains("The module is disarmed") {
            return Some(Vec::new());
        }
        let target = if self.balance_high == Some(true) {
            "Withdrawal"
        } else {
            // before the balance is known, look at it through a deposit (no strike)
            "Deposit"
        };
        let mut lines = Vec::new();
        let pin = |lines: &mut Vec<String>| {
            lines.push(PIN_LINE.to_string());
            lines.push("press_enter".to_string());
        };
        if screen.contains("Choose a transaction") {
            let on_target = pointed(target);
            if !on_target {
                lines.push(
                    if target == "Withdrawal" {
                        "press_down_arrow"
                    } else {
                        "press_up_arrow"
                    }
                    .into(),
                );
            }
            lines.push("press_enter".into());
            pin(&mut lines);
        } else if let Some(typed) = after(screen, "PIN: ") {
            if pointed("Go Back") {
                lines.push("press_up_arrow".into());
            }
            let typed = typed.lines().next().unwrap_or("").trim().len();
            lines.extend(std::iter::repeat_n("press_delete".to_string(), typed));
            pin(&mut lines);
        } else if let Some(typed) = after(screen, "Amount: ") {
            let high = screen.contains("$500 or more");
            self.balance_high = Some(high);
            let (want, amount) = if high {
                ("Withdrawal", "300")
            } else {
                ("Deposit", "100")
            };
            if screen.trim_start().starts_with(want) {
                if pointed("Go Back") {
                    lines.push("press_up_arrow".into());
                }
                let typed = typed.lines().next().unwrap_or("").trim().len();
                lines.extend(std::iter::repeat_n("press_delete".to_string(), typed));
                lines.extend(amount.chars().map(|d| format!("press_{d}")));
                lines.push("press_enter".into());
            } else {
                // back to the menu (the pointer returns to Deposit), then the other way
                if !pointed("Go Back") {
                    lines.push("press_down_arrow".into());
                }
                lines.push("press_enter".into());
                if want == "Withdrawal" {
                    lines.push("press_down_arrow".into());
                }
                lines.push("press_enter".into());
                pin(&mut lines);
                lines.extend(amount.chars().map(|d| format!("press_{d}")));
                lines.push("press_enter".into());
            }
        } else {
            return None;
        }
        Some(lines)
    }
}

/// Telehealth: the diagnosis from the lesion's look as the manual teaches it, then the
/// treatment from the shareable facts (the recorded size).
fn telehealth(said: &str) -> Option<Vec<String>> {
    if said.contains("consultation is complete") {
        return Some(Vec::new());
    }
    let look = after(said, "Picture (")?;
    let diagnosis = if look.contains("scaly") {
        "ACK"
    } else if look.contains("crust") {
        "SCC"
    } else if look.contains("pearly") {
        "BCC"
    } else if look.contains("warty") || look.contains("waxy") {
        "SEK"
    } else if look.contains("irregular") || look.contains("notched") {
        "MEL"
    } else if look.contains("sharp and regular") {
        "NEV"
    } else {
        return None;
    };
    let size = after(said, "Lesion: ").and_then(|s| {
        s.split([' ', ';'])
            .filter_map(|w| w.parse::<f64>().ok())
            .reduce(f64::max)
    });
    let treatment = match diagnosis {
        "ACK" | "SEK" => "cryotherapy",
        "NEV" => "no_treatment",
        "BCC" | "SCC"
            if !size.is_some_and(|d| d >= crate::puzzles::telehealth::SURGERY_FROM_MM) =>
        {
            "cryotherapy"
        }
        _ => "surgery",
    };
    let mut lines = Vec::new();
    if !said.contains("The diagnosis is accepted") {
        lines.push(format!("diagnose_{diagnosis}"));
    }
    lines.push(format!("treat_{treatment}"));
    Some(lines)
}

/// The whole remaining solution of a puzzle whose screens do not change at random.
fn plan_all(mut p: Box<dyn Puzzle>) -> Option<Vec<String>> {
    let (plan, stuck) = play_out(p.as_mut(), 200);
    (!stuck).then_some(plan)
}

/// The solver half: describes its screen when it has nothing to do, otherwise performs
/// what the expert said (and types its PIN when asked). It keeps its own copy of the
/// puzzle, advanced by the same actions the environment applies, to know what it sees.
pub struct DescribingSolver {
    copy: Box<dyn Puzzle>,
    /// The expert message already acted on (a repeated message is not done twice).
    done: Option<String>,
}

impl DescribingSolver {
    /// The solver of one episode, holding a copy of its puzzle (built from the scenario
    /// with the episode seed, so it draws the same screens).
    pub fn new(copy: Box<dyn Puzzle>) -> DescribingSolver {
        DescribingSolver { copy, done: None }
    }

    /// The solver's message given the expert's last message (empty before the first).
    pub fn say(&mut self, expert: &str) -> String {
        let actions = self.copy.actions();
        let fresh = !expert.is_empty() && self.done.as_deref() != Some(expert);
        let mut lines = Vec::new();
        if fresh {
            self.done = Some(expert.to_string());
            for line in expert.lines() {
                if line.contains("PIN") && read_actions(line, &actions).is_empty() {
                    let pin = self.copy.private().into_iter().next().unwrap_or_default();
                    lines.extend(pin.chars().map(|d| format!("press_{d}")));
                } else {
                    lines.extend(read_actions(line, &actions));
                }
            }
        }
        if lines.is_empty() {
            return format!("I see: {}", defuse(&self.copy.shareable(), &actions));
        }
        // mirror what the environment will do with these lines
        let mut mistakes = 0u32;
        for a in &lines {
            mistakes += u32::from(self.copy.act(a).mistake);
            if self.copy.solved() || mistakes >= crate::env::MAX_MISTAKES {
                break;
            }
        }
        lines.join("\n")
    }
}

/// `text` with every action name spelled with hyphens between its letters, so a
/// description read by the environment never triggers an action (Password's "SUBMIT").
fn defuse(text: &str, actions: &[String]) -> String {
    let mut out = text.to_string();
    while let Some(a) = read_actions(&out.replace('\n', " "), actions)
        .into_iter()
        .next()
    {
        // action names are ASCII: compare byte windows of `out` itself, so the index is
        // a char boundary whatever else the text holds
        let name = a.as_bytes();
        let Some(i) = out
            .as_bytes()
            .windows(name.len())
            .position(|w| w.eq_ignore_ascii_case(name))
        else {
            break;
        };
        let spelled: Vec<String> = out[i..i + name.len()].chars().map(String::from).collect();
        out.replace_range(i..i + name.len(), &spelled.join("-"));
    }
    out
}

/// The text after the first occurrence of `marker`.
fn after<'a>(text: &'a str, marker: &str) -> Option<&'a str> {
    text.find(marker).map(|i| &text[i + marker.len()..])
}

/// The text between `start` and the next `end` after it.
fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let rest = after(text, start)?;
    rest.find(end).map(|i| &rest[..i])
}

/// The first word of `text`, without trailing punctuation.
fn first_word(text: &str) -> &str {
    text.split_whitespace()
        .next()
        .unwrap_or("")
        .trim_end_matches([',', '.', ';', ':'])
}

/// The number at the start of `text`.
fn number(text: &str) -> Option<usize> {
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn capitalised(word: &str) -> String {
    let mut c = word.chars();
    c.next()
        .map(|f| {
            f.to_uppercase()
                .chain(c.flat_map(char::to_lowercase))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::generate;

    /// Plays the talking pair on `kind` seeded `seed` in the real environment, showing
    /// `heard` every observation the expert gets; returns (solved, solver turns, outcome).
    fn play_pair(
        kind: PuzzleKind,
        seed: u64,
        mut heard: impl FnMut(&escapade_core::Observation),
    ) -> (bool, usize, escapade_core::env::Outcome) {
        use escapade_core::{Agent, Env};
        let mut env = crate::env::CommaEnv::new(Box::new(move |s| generate(kind, s).unwrap()));
        let mut pair = crate::world::TalkingPair::new(generate(kind, seed).unwrap(), kind);
        let mut o = env.reset(seed);
        let mut turns = 0;
        loop {
            if o.role.as_deref() == Some(crate::env::EXPERT) {
                heard(&o);
            } else {
                turns += 1;
            }
            let turn = pair.act(&o, None).unwrap();
            let step = env.step(&turn.action).unwrap();
            if step.terminated || step.truncated {
                let out = env.outcome();
                return (out.success, turns, out);
            }
            o = step.observation;
        }
    }

    /// (solved, solver turns) of the talking pair on `kind` seeded `seed`.
    fn talk(kind: PuzzleKind, seed: u64) -> (bool, usize) {
        let (solved, turns, _) = play_pair(kind, seed, |_| {});
        (solved, turns)
    }

    #[test]
    fn the_talking_pair_solves_every_puzzle_but_colour_within_the_limits() {
        for kind in PuzzleKind::ALL {
            let solved = (1..=30).filter(|&s| talk(kind, s).0).count();
            if kind == PuzzleKind::Colour {
                // two turns a group (describe, press) and more groups than five: the
                // protocol's ceiling, as for the paper's human pairs (App. C: 0 %)
                assert_eq!(solved, 0, "colour");
            } else {
                assert_eq!(solved, 30, "{}", kind.name());
            }
        }
        // memory needs all ten turns: describe and press, five stages
        assert_eq!(talk(PuzzleKind::Memory, 1), (true, 10));
        assert_eq!(talk(PuzzleKind::Wire, 1), (true, 2));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Whatever a model writes in either role, the halves answer without panicking.
        #[test]
        fn any_words_are_survived(
            kind in 0usize..10,
            words in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::prelude::Just("row 0: ".to_string()),
                    proptest::prelude::Just("The mouse is at row 99, column ".to_string()),
                    proptest::prelude::Just("at stage 3 of 5. The display shows 9".to_string()),
                    proptest::prelude::Just("Its screen reads:\n-> PIN: **".to_string()),
                    proptest::prelude::Just("top left (pressed)".to_string()),
                    proptest::prelude::Just("PIN".to_string()),
                    "\\PC{0,12}",
                ],
                0..12,
            ),
        ) {
            let kind = PuzzleKind::ALL[kind];
            let text: String = words.concat();
            let mut expert = ReadingExpert::new(kind);
            let said = expert.advise(&text);
            proptest::prop_assert!(!said.is_empty());
            let mut solver = DescribingSolver::new(generate(kind, 1).unwrap());
            let reply = solver.say(&text);
            proptest::prop_assert!(!reply.is_empty());
        }
    }

    /// Two listed words fit some of the evaluation set's wheels (`there`/`these`,
    /// `right`/`their`): the pair turns a wheel to tell them apart, then solves.
    #[test]
    fn ambiguous_passwords_are_told_apart_by_turning_a_wheel() {
        use escapade_core::{Agent, Env};
        let entries = crate::world::paper_entries().unwrap();
        for n in [503, 536, 547, 564, 565, 598] {
            let (_, kind, fields) = entries[n].clone();
            assert_eq!(kind, PuzzleKind::Password);
            let make = {
                let fields = fields.clone();
                move |s| import(PuzzleKind::Password, &fields, s).unwrap()
            };
            let mut env = crate::env::CommaEnv::new(Box::new(make.clone()));
            let mut pair = crate::world::TalkingPair::new(make(0), kind);
            let mut o = env.reset(0);
            let mut turns = 0;
            let solved = loop {
                turns += 1;
                let turn = pair.act(&o, None).unwrap();
                let step = env.step(&turn.action).unwrap();
                if step.terminated || step.truncated {
                    break env.outcome().success;
                }
                o = step.observation;
            };
            assert!(solved, "entry {n}");
            assert_eq!(env.outcome().metrics["mistakes"], 0.0, "entry {n}");
            assert!(turns <= 8, "entry {n}: {turns} steps");
        }
    }

    #[test]
    fn the_expert_never_hears_the_pin_typed_on_the_keypad() {
        for seed in 1..=20 {
            let pin = generate(PuzzleKind::Atm, seed).unwrap().private()[0].clone();
            let (solved, _, out) = play_pair(PuzzleKind::Atm, seed, |o| {
                assert!(!o.text.contains(&pin), "seed {seed}: {}", o.text);
                let digits: String = o.text.chars().filter(char::is_ascii_digit).collect();
                assert!(!digits.contains(&pin), "seed {seed}: {}", o.text);
            });
            assert!(solved, "seed {seed}");
            assert_eq!(out.metrics["leak_rate"], 0.0, "seed {seed}");
        }
    }

    /// The expert reads the serial number from the solver's words: an odd last digit
    /// changes the wire to cut.
    #[test]
    fn the_expert_reads_the_serial_number() {
        let colours = json!({"n_wires": 4, "colors": ["red", "blue", "red", "white"]});
        for (serial, cut) in [(123_456, "cut_wire_1"), (135_791, "cut_wire_3")] {
            let rules = Rules {
                serial,
                ..Rules::default()
            };
            let p = import_with(PuzzleKind::Wire, &colours, 0, rules).unwrap();
            let mut e = ReadingExpert::new(PuzzleKind::Wire);
            assert_eq!(e.advise(&p.shareable()), cut, "{serial}");
        }
    }

    #[test]
    fn descriptions_never_trigger_actions() {
        let p = generate(PuzzleKind::Password, 1).unwrap();
        let d = defuse(&p.describe(), &p.actions());
        assert!(read_actions(&d, &p.actions()).is_empty(), "{d}");
        assert!(d.contains("S-U-B-M-I-T"));
    }

    #[test]
    fn an_expert_asks_when_the_words_describe_nothing() {
        let mut e = ReadingExpert::new(PuzzleKind::Wire);
        assert_eq!(e.advise("press the red thing"), ASK);
        // numbers out of a puzzle's range are not allocated, just not understood
        let mut e = ReadingExpert::new(PuzzleKind::Led);
        assert_eq!(
            e.advise("An LED module with 18446744073709551615 stages, now at stage 1 of 2; the LED is red. The four buttons show: top left A, top right B, bottom left C, bottom right D."),
            ASK
        );
        let mut e = ReadingExpert::new(PuzzleKind::Memory);
        // stage 2 without having advised stage 1: the history is unknown
        assert_eq!(
            e.advise("I see: A memory module at stage 2 of 5. The display shows 1. Four buttons from left to right are labelled 4, 1, 2, 3."),
            ASK
        );
    }
}
