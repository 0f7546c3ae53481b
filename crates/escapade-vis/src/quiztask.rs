//! The quiz-only evaluation of VisEscape App. C.2: a clue image and a lock image, side by
//! side, and up to k tries at the code.
//!
//! The paper asks whether models fail visual quizzes because they cannot solve them or
//! because they cannot connect clues found apart in the room. Here a model is told the
//! two images belong together (Table 23, in our own words) and answers; after a wrong
//! answer it is shown every code it has tried and asked again, up to `attempts` times
//! (pass@k with its own history, as in the paper's iterative setting). With `reasoning`
//! it thinks in a `[THINK]` section and answers in an `[ANSWER]` section (Table 23b);
//! without, it answers with the code alone (Table 23a). Metrics: `pass_at_1`,
//! `pass_at_k`, `attempts`.

use std::collections::BTreeMap;

use escapade_core::env::{Env, Outcome, Step};
use escapade_core::{
    Action, Agent, AgentTurn, CoreError, EnvError, Image, Observation, Step as CoreStep, ToolSchema,
};
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::game::{Game, State, View};
use crate::options::Descriptions;
use crate::room::{ItemKind, Room};
use crate::{VisError, describe, render};

/// Tries allowed per quiz (the paper's pass@10).
pub const ATTEMPTS: u32 = 10;

/// One quiz-only scenario: a room (for drawing), its clue item and its lock item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuizTask {
    /// Always `vis`.
    pub world: String,
    /// Always `quiz` (tells this scenario apart from a room).
    pub task: String,
    /// Stable id (`vis-q01`).
    pub id: String,
    /// The room's size class.
    pub difficulty: u32,
    /// The room's seed.
    pub seed: u64,
    /// The room the quiz comes from (drawn, never played).
    pub room: Room,
    /// The clue item id.
    pub clue: String,
    /// The lock item id.
    pub lock: String,
    /// Think before answering (Table 23b) or answer only (Table 23a).
    pub reasoning: bool,
    /// Tries allowed.
    pub attempts: u32,
}

impl QuizTask {
    /// The first quiz of `room` as a task (App. C.2 takes one quiz per room).
    pub fn from_room(room: &Room, reasoning: bool) -> Result<QuizTask, VisError> {
        let quiz = room.quizzes.first().ok_or_else(|| VisError::Invalid {
            field: "quizzes",
            reason: format!("room {} has no quiz", room.id),
        })?;
        let find = |want_lock: bool| {
            room.items
                .iter()
                .find(|i| match &i.kind {
                    ItemKind::Lock { quiz: q } => want_lock && q == &quiz.id,
                    ItemKind::Clue { quiz: q } => !want_lock && q == &quiz.id,
                    _ => false,
                })
                .map(|i| i.id.clone())
                .ok_or_else(|| VisError::Invalid {
                    field: "quizzes",
                    reason: format!("quiz {} lacks a clue or lock", quiz.id),
                })
        };
        let number = room.id.rsplit(['r', '-']).next().unwrap_or("0");
        Ok(QuizTask {
            world: "vis".into(),
            task: "quiz".into(),
            id: format!("vis-q{number}"),
            difficulty: room.difficulty,
            seed: room.seed,
            room: room.clone(),
            clue: find(false)?,
            lock: find(true)?,
            reasoning,
            attempts: ATTEMPTS,
        })
    }

    /// Reads a task from JSON.
    pub fn from_json(text: &str) -> Result<QuizTask, VisError> {
        let task: QuizTask = serde_json::from_str(text).map_err(|e| VisError::format(None, e))?;
        crate::validate::check_structure(&task.room)?;
        let clue = &task.room.items[task.item(&task.clue)?];
        let lock = &task.room.items[task.item(&task.lock)?];
        match (&clue.kind, &lock.kind) {
            (ItemKind::Clue { quiz: a }, ItemKind::Lock { quiz: b }) if a == b => {}
            _ => {
                return Err(VisError::Invalid {
                    field: "quizzes",
                    reason: format!(
                        "`{}` must be the clue of the quiz that lock `{}` checks",
                        task.clue, task.lock
                    ),
                });
            }
        }
        if task.attempts == 0 || task.attempts > 100 {
            return Err(VisError::Invalid {
                field: "attempts",
                reason: "attempts must be 1 to 100".into(),
            });
        }
        Ok(task)
    }

    /// The task as pretty JSON.
    pub fn to_json(&self) -> String {
        escapade_core::scenario::to_json(self)
    }

    /// The index of item `id` in the task's room.
    ///
    /// # Errors
    /// [`VisError::Invalid`] when the room has no such item.
    pub fn item(&self, id: &str) -> Result<usize, VisError> {
        self.room
            .items
            .iter()
            .position(|i| i.id == id)
            .ok_or_else(|| VisError::Invalid {
                field: "items",
                reason: format!("unknown item `{id}`"),
            })
    }

    /// The lock's answer (ground truth: never shown).
    pub fn answer(&self) -> Option<String> {
        let i = self.item(&self.lock).ok()?;
        let game = Game::new(self.room.clone()).ok()?;
        game.answer_of(i).map(str::to_string)
    }

    /// The task is well formed and has an answer.
    pub fn solvable(&self) -> bool {
        self.answer().is_some()
    }
}

/// A close-up of item `i` with its receptacle put in a state that shows it.
fn close_up(
    game: &Game,
    i: usize,
    style: render::Style,
    descriptions: Descriptions,
) -> Result<Image, VisError> {
    let room = game.room();
    let r = game.item_receptacle(i);
    let mut state: State = game.start();
    let showing = room.receptacles[r]
        .states
        .iter()
        .position(|s| room.items[i].visible_in.contains(s))
        .ok_or_else(|| VisError::Invalid {
            field: "items",
            reason: format!("item `{}` is never visible", room.items[i].id),
        })?;
    state.set_receptacle(r, showing as u8);
    state.set_view(View::Item(i));
    let png = render::render_with(game, &state, style)?;
    Ok(Image::with_alt(
        png,
        describe::as_asked(descriptions, game, &state),
    ))
}

/// The environment for one quiz task.
pub struct QuizEnv {
    task: QuizTask,
    quiz: crate::room::Quiz,
    answer: String,
    images: Vec<Image>,
    tried: Vec<String>,
    started: bool,
    over: bool,
    solved_at: Option<u32>,
}

impl QuizEnv {
    /// An environment on `task` (draws both images once, without labels).
    pub fn new(task: QuizTask) -> Result<QuizEnv, VisError> {
        QuizEnv::with_style(task, render::Style::default(), Descriptions::default())
    }

    /// An environment on `task` whose images are drawn in `style` (`labels=on`) and
    /// described as `descriptions` says.
    pub fn with_style(
        task: QuizTask,
        style: render::Style,
        descriptions: Descriptions,
    ) -> Result<QuizEnv, VisError> {
        let game = Game::new(task.room.clone())?;
        let answer = task.answer().ok_or_else(|| VisError::Invalid {
            field: "quizzes",
            reason: format!("quiz task {} has no answer", task.id),
        })?;
        let lock = task.item(&task.lock)?;
        let quiz = game
            .quiz_of(lock)
            .map(|q| game.room().quizzes[q].clone())
            .ok_or_else(|| VisError::Invalid {
                field: "items",
                reason: format!("`{}` is not a lock", task.lock),
            })?;
        let images = vec![
            close_up(&game, task.item(&task.clue)?, style, descriptions)?,
            close_up(&game, lock, style, descriptions)?,
        ];
        Ok(QuizEnv {
            task,
            quiz,
            answer,
            images,
            tried: Vec::new(),
            started: false,
            over: false,
            solved_at: None,
        })
    }

    fn observation(&self) -> Observation {
        let mut text = String::from(
            "The first image is a clue for the code of the lock shown in the second image. \
             Work out the code from the clue alone.",
        );
        if !self.tried.is_empty() {
            text.push_str(&format!(
                "\nYou have already tried {}, and every one was wrong.",
                crate::text::list(&self.tried)
            ));
        }
        if self.task.reasoning {
            text.push_str(
                "\nThink first in a [THINK] section, then give the code in an [ANSWER] section \
                 with nothing else in it.",
            );
        } else {
            text.push_str("\nReply with the code only, and no other text.");
        }
        Observation {
            text,
            images: self.images.clone(),
            actions: None,
            role: None,
        }
    }

    /// The code in a reply: after the last `[ANSWER]` marker or inside `<ANSWER>`, else
    /// the last non-empty line.
    fn read(&self, action: &Action) -> Result<String, String> {
        let text = match action {
            Action::Text { text } => text
                .chars()
                .take(crate::interface::MAX_REPLY)
                .collect::<String>(),
            Action::Call { arguments, .. } => serde_json::from_str::<serde_json::Value>(arguments)
                .ok()
                .and_then(|v| {
                    v.get("answer").map(|a| {
                        a.as_str()
                            .map(str::to_string)
                            .unwrap_or_else(|| a.to_string())
                    })
                })
                .ok_or("Call `answer` with an argument `answer` holding the code.")?,
            Action::Bytes { bytes } => {
                String::from_utf8(bytes.clone()).map_err(|_| "The reply is not UTF-8 text.")?
            }
            Action::Calls { .. } => return self.read(&action.first()),
        };
        let lower = text.to_ascii_lowercase();
        let body = if let Some(i) = lower.rfind("<answer>") {
            let rest = &text[i + 8..];
            let end = rest
                .to_ascii_lowercase()
                .find("</answer>")
                .unwrap_or(rest.len());
            rest[..end].to_string()
        } else if let Some(i) = lower.rfind("[answer]") {
            text[i + 8..].to_string()
        } else {
            text.lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .to_string()
        };
        let code = body
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | '*' | '.' | '[' | ']'))
            .to_string();
        if code.is_empty() {
            return Err(
                "No code found: give the code only (in an [ANSWER] section when you think first)."
                    .into(),
            );
        }
        if code.chars().count() > crate::interface::MAX_ANSWER {
            return Err("That code is too long: give the code only.".into());
        }
        Ok(code)
    }
}

impl Env for QuizEnv {
    fn reset(&mut self, _seed: u64) -> Observation {
        self.tried.clear();
        self.started = true;
        self.over = false;
        self.solved_at = None;
        self.observation()
    }

    fn step(&mut self, action: &Action) -> Result<Step, EnvError> {
        if !self.started {
            return Err(EnvError::NotReset);
        }
        if self.over {
            return Err(EnvError::EpisodeOver);
        }
        let (feedback, error) = match self.read(action) {
            Ok(code) => {
                let correct = crate::game::accepts(&self.quiz, &code);
                self.tried.push(crate::text::quote(&code, 32));
                if correct {
                    self.solved_at = Some(self.tried.len() as u32);
                    ("Correct.".to_string(), None)
                } else {
                    ("Wrong code.".to_string(), None)
                }
            }
            Err(message) => {
                self.tried.push("(no code)".into());
                (message, Some("invalid_answer".to_string()))
            }
        };
        let terminated = self.solved_at.is_some();
        let truncated = !terminated && self.tried.len() as u32 >= self.task.attempts;
        self.over = terminated || truncated;
        let mut observation = self.observation();
        observation.text = format!("{feedback}\n{}", observation.text);
        Ok(Step {
            observation,
            feedback,
            progress: if terminated { 1.0 } else { 0.0 },
            terminated,
            truncated,
            error,
            ..Default::default()
        })
    }

    fn system_prompt(&self) -> String {
        "You are solving a visual puzzle from an escape room: a clue picture and a code lock. \
         Read the clue carefully and find the lock's code."
            .to_string()
    }

    fn tool_schemas(&self) -> Vec<ToolSchema> {
        vec![ToolSchema {
            name: "answer".into(),
            description: "Enter a code on the lock.".into(),
            parameters: serde_json::json!({
                "type": "object",
                "properties": {"answer": {"type": "string", "maxLength": crate::interface::MAX_ANSWER}},
                "required": ["answer"],
            }),
        }]
    }

    fn step_budget(&self) -> Option<u32> {
        Some(self.task.attempts)
    }

    fn outcome(&self) -> Outcome {
        let mut m = BTreeMap::new();
        let at = self.solved_at;
        m.insert(
            "pass_at_1".to_string(),
            if at == Some(1) { 1.0 } else { 0.0 },
        );
        m.insert(
            "pass_at_k".to_string(),
            if at.is_some() { 1.0 } else { 0.0 },
        );
        m.insert("attempts".to_string(), self.tried.len() as f64);
        Outcome {
            success: at.is_some(),
            steps: self.tried.len() as u32,
            metrics: m,
        }
    }

    fn secrets(&self) -> Vec<String> {
        vec![self.answer.clone()]
    }
}

/// Answers the quiz at once.
pub struct QuizOracle {
    answer: String,
}

impl QuizOracle {
    /// The oracle for `task`.
    pub fn new(task: &QuizTask) -> QuizOracle {
        QuizOracle {
            answer: task.answer().unwrap_or_default(),
        }
    }
}

impl Agent for QuizOracle {
    fn name(&self) -> String {
        "oracle".into()
    }
    fn reset(&mut self, _start: escapade_core::EpisodeStart<'_>) {}
    fn act(&mut self, _o: &Observation, _l: Option<&CoreStep>) -> Result<AgentTurn, CoreError> {
        Ok(AgentTurn::action(Action::text(format!(
            "[ANSWER] {}",
            self.answer
        ))))
    }
}

/// Guesses four random digits each try.
pub struct QuizRandom {
    rng: escapade_core::seed::Rng,
}

impl QuizRandom {
    /// A random guesser seeded by `seed`.
    pub fn new(seed: u64) -> QuizRandom {
        QuizRandom {
            rng: escapade_core::seed::rng(escapade_core::seed::derive(seed, "vis-quiz-random", 0)),
        }
    }
}

impl Agent for QuizRandom {
    fn name(&self) -> String {
        "random".into()
    }
    fn reset(&mut self, start: escapade_core::EpisodeStart<'_>) {
        let seed = start.seed;
        *self = QuizRandom::new(seed);
    }
    fn act(&mut self, _o: &Observation, _l: Option<&CoreStep>) -> Result<AgentTurn, CoreError> {
        let code: String = (0..4)
            .map(|_| char::from(b'0' + self.rng.random_range(0..10u8)))
            .collect();
        Ok(AgentTurn::action(Action::text(code)))
    }
}
