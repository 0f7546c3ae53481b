//! ATM puzzle (App. A "ATM Puzzle"): with at least $500 in the account withdraw $300,
//! with less deposit $100, behind the solver's private PIN.
//!
//! The test keeps its own model of the terminal, written from the screen flow the crate
//! documents (menu → PIN → amount, a pointer moved by the arrows, ENTER, DEL, "Go Back";
//! a wrong PIN or a wrong transaction or amount at ENTER is a strike, nothing else is; the
//! typed amount is kept when going back) and from App. A's rule, and checks the crate's
//! screen, strikes and next action against it after random key presses. Progress follows
//! the crate's documented reading: ATM is scored as a single step, 0 until solved.

use escapade_comma::Puzzle;
use escapade_comma::puzzle::{PuzzleKind, generate, import};
use proptest::prelude::*;
use serde_json::json;

use crate::common::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Screen {
    Menu,
    Pin(&'static str),
    Amount(&'static str),
}

/// The test's own model of the terminal.
#[derive(Debug, Clone)]
struct Model {
    pin: String,
    balance: u64,
    screen: Screen,
    pointer: usize,
    typed_pin: String,
    typed_amount: String,
    solved: bool,
}

/// App. A's rule: the transaction and the amount.
fn rule(balance: u64) -> (&'static str, u64) {
    if balance >= 500 {
        ("Withdrawal", 300)
    } else {
        ("Deposit", 100)
    }
}

impl Model {
    fn new(pin: &str, balance: u64) -> Model {
        Model {
            pin: pin.to_string(),
            balance,
            screen: Screen::Menu,
            pointer: 0,
            typed_pin: String::new(),
            typed_amount: String::new(),
            solved: false,
        }
    }

    fn amount_right(&self) -> bool {
        self.typed_amount.parse::<u64>().ok() == Some(rule(self.balance).1)
    }

    /// Does `action`; returns whether it is a strike.
    fn act(&mut self, action: &str) -> bool {
        let (want, _) = rule(self.balance);
        match action {
            "press_up_arrow" => self.pointer = 0,
            "press_down_arrow" => self.pointer = 1,
            "press_enter" => match (self.screen, self.pointer) {
                (Screen::Menu, p) => {
                    self.screen = Screen::Pin(if p == 0 { "Deposit" } else { "Withdrawal" });
                    self.typed_pin.clear();
                    self.pointer = 0;
                }
                (_, 1) => {
                    self.screen = Screen::Menu;
                    self.typed_pin.clear();
                    self.pointer = 0;
                }
                (Screen::Pin(t), _) => {
                    if self.typed_pin != self.pin {
                        return true;
                    }
                    self.screen = Screen::Amount(t);
                    self.pointer = 0;
                }
                (Screen::Amount(t), _) => {
                    if t != want || !self.amount_right() {
                        return true;
                    }
                    self.solved = true;
                }
            },
            key => {
                let field = match (self.screen, self.pointer) {
                    (Screen::Pin(_), 0) => Some((&mut self.typed_pin, 4)),
                    (Screen::Amount(_), 0) => Some((&mut self.typed_amount, 5)),
                    _ => None,
                };
                if let Some((field, max)) = field {
                    if key == "press_delete" {
                        field.pop();
                    } else if field.len() < max {
                        field.push(key.chars().last().unwrap());
                    }
                }
            }
        }
        false
    }

    /// The next right action: choose App. A's transaction, type the PIN, type the amount,
    /// erasing anything wrong and going back from the wrong transaction.
    fn next(&self) -> String {
        let (want, amount) = rule(self.balance);
        let type_towards = |typed: &str, goal: &str, done: bool| {
            if self.pointer == 1 {
                "press_up_arrow".to_string()
            } else if done {
                "press_enter".to_string()
            } else if typed.len() < goal.len() && goal.starts_with(typed) {
                format!("press_{}", &goal[typed.len()..typed.len() + 1])
            } else {
                "press_delete".to_string()
            }
        };
        match self.screen {
            Screen::Menu => {
                let at = if self.pointer == 0 {
                    "Deposit"
                } else {
                    "Withdrawal"
                };
                if at == want {
                    "press_enter".into()
                } else if want == "Deposit" {
                    "press_up_arrow".into()
                } else {
                    "press_down_arrow".into()
                }
            }
            Screen::Pin(t) | Screen::Amount(t) if t != want => {
                if self.pointer == 1 {
                    "press_enter".into()
                } else {
                    "press_down_arrow".into()
                }
            }
            Screen::Pin(_) => type_towards(&self.typed_pin, &self.pin, self.typed_pin == self.pin),
            Screen::Amount(_) => {
                type_towards(&self.typed_amount, &amount.to_string(), self.amount_right())
            }
        }
    }

    /// Checks the crate's screen (its description) against the model.
    fn check_screen(&self, p: &dyn Puzzle, what: &str) {
        let d = p.describe();
        let lines: Vec<&str> = d
            .split("Its screen reads:\n")
            .nth(1)
            .expect(&d)
            .lines()
            .take(3)
            .collect();
        let pointed = |i: usize| if self.pointer == i { "-> " } else { "   " };
        let expected = match self.screen {
            Screen::Menu => vec![
                "COMMA Bank. Choose a transaction:".to_string(),
                format!("{}Deposit", pointed(0)),
                format!("{}Withdrawal", pointed(1)),
            ],
            Screen::Pin(t) => vec![
                format!("{t}."),
                format!("{}PIN: {}", pointed(0), "*".repeat(self.typed_pin.len())),
                format!("{}Go Back", pointed(1)),
            ],
            Screen::Amount(t) => vec![
                format!("{t}. Your balance is ${}.", self.balance),
                format!("{}Amount: {}", pointed(0), self.typed_amount),
                format!("{}Go Back", pointed(1)),
            ],
        };
        assert_eq!(lines, expected, "{what}\n{d}");
    }
}

fn play(p: &mut dyn Puzzle, dice: &mut Dice) {
    let inst = p.instance();
    let pin = inst["PIN"].as_str().unwrap().to_string();
    let balance = inst["Balance"].as_u64().unwrap();
    let mut m = Model::new(&pin, balance);
    let what0 = format!("{inst}");
    assert_eq!(
        p.private(),
        vec![pin.clone(), balance.to_string()],
        "{what0}"
    );
    let mut wrong_left = 40;
    for _ in 0..400 {
        if m.solved {
            break;
        }
        let what = format!("{what0}\n{m:?}");
        m.check_screen(p, &what);
        assert!(!p.solved(), "{what}");
        assert_progress(p, 0.0, &what);
        let answer = vec![m.next()];
        assert_answer(p, &answer, &what);
        let action = if wrong_left > 0 && dice.eighths(4) {
            wrong_left -= 1;
            dice.pick(&others(p, &answer))
        } else {
            answer[0].clone()
        };
        let strike = m.act(&action);
        if strike {
            act_wrong(p, &action, &format!("{action}\n{what}"));
        } else {
            act_right(p, &action, &format!("{action}\n{what}"));
        }
        assert_eq!(p.solved(), m.solved, "{action}\n{what}");
    }
    assert!(m.solved, "the model did not finish\n{what0}");
    assert_finished(p, &what0);
}

proptest! {
    #![proptest_config(config(256))]

    /// Generated puzzles, driven by random key presses and the independent next action.
    #[test]
    fn atm_generated_follows_app_a(seed in any::<u64>(), mut dice in Dice::strategy()) {
        let mut p = generate(PuzzleKind::Atm, seed).unwrap();
        play(p.as_mut(), &mut dice);
    }

    /// Imported puzzles: any four-digit PIN (leading zeros included), balances around
    /// $500, at 0 and far above.
    #[test]
    fn atm_imported_follows_app_a(
        pin in "[0-9]{4}",
        balance in prop_oneof![495..=505u64, 0..=1000u64, Just(0u64), any::<u64>()],
        mut dice in Dice::strategy(),
    ) {
        let mut p = import(PuzzleKind::Atm, &json!({"PIN": pin, "Balance": balance}), 0).unwrap();
        play(p.as_mut(), &mut dice);
    }
}
