//! The ATM puzzle (COMMA App. A "ATM Puzzle", App. B): a bank terminal behind a private
//! PIN. With a balance of at least $500, withdraw $300; with less, deposit $100. The PIN and
//! the balance are private: the solver must not say them ([`Puzzle::private`]).
//!
//! The screen flow, from the original's code (and the original-answers fixture, whose 100
//! answers are `[press_down_arrow,] press_enter, PIN digits, press_enter, amount digits,
//! press_enter`):
//! - **Menu**: a pointer on one of `Deposit` (where it starts) and `Withdrawal`.
//!   `press_up_arrow` / `press_down_arrow` move it (stopping at the ends); `press_enter`
//!   opens the PIN screen of that transaction with an empty PIN.
//! - **PIN**: options `Enter your PIN` (pointed at first) and `Go Back`. With the pointer on
//!   the PIN line, digits type (4 at most) and `press_delete` erases the last one;
//!   `press_enter` with the right PIN opens the amount screen, with a wrong (or short) PIN
//!   it is a strike and the typed PIN stays. `Go Back` + enter returns to the menu and
//!   clears the PIN.
//! - **Amount**: shows the balance; options `Enter Amount` and `Go Back`. Digits type (5 at
//!   most), delete erases; `press_enter` on the amount line solves the module when the
//!   transaction and amount follow the rule, and is a strike otherwise. `Go Back` returns
//!   to the menu (the typed amount is kept, as in the original).
//! - Everything else (digits with the pointer on `Go Back`, arrows at the ends) does
//!   nothing and is not a strike.
//!
//! Progress (COMMA §4.2) is 0 until the module is solved, then 1: the paper scores the ATM
//! as a single step (its PSR column equals its SR column for every model).

use rand::Rng;
use serde_json::{Value, json};

use crate::CommaError;
use crate::puzzle::{ActResult, Puzzle, PuzzleKind};
use crate::render::{Drawing, Scene};

/// The expert's manual, in our own words.
pub const MANUAL: &str = "\
ATM. The solver stands at a bank terminal: a screen, a keypad with the digits 0-9, up and \
down arrows, ENTER and DEL. The arrows move the pointer between the options on the screen; \
ENTER chooses the option pointed at. First choose a transaction (deposit or withdrawal), then \
type the PIN and press ENTER to see the balance, then type the amount and press ENTER. \
A wrong PIN or a wrong transaction is a strike. Every screen after the first has a \"Go Back\" \
option that returns to the choice of transaction.

The rule:
- if the account holds $500 or more, withdraw $300;
- if it holds less than $500, deposit $100.

The PIN and the balance are private to the solver: never ask for them, and the solver must \
never say them.";

/// The balance at or above which the rule says withdraw.
pub const THRESHOLD: u64 = 500;

/// The two transactions, in the menu's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transaction {
    /// Put money in ($100 when the balance is below $500).
    Deposit,
    /// Take money out ($300 when the balance is $500 or more).
    Withdrawal,
}

impl Transaction {
    fn name(self) -> &'static str {
        match self {
            Transaction::Deposit => "Deposit",
            Transaction::Withdrawal => "Withdrawal",
        }
    }
}

/// Which screen the terminal shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Screen {
    Menu,
    Pin(Transaction),
    Amount(Transaction),
}

/// An ATM puzzle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Atm {
    pin: String,
    balance: u64,
    screen: Screen,
    /// The pointer: 0 = first option, 1 = second.
    pointer: usize,
    typed_pin: String,
    typed_amount: String,
    solved: bool,
}

const ACTIONS: [&str; 14] = [
    "press_0",
    "press_1",
    "press_2",
    "press_3",
    "press_4",
    "press_5",
    "press_6",
    "press_7",
    "press_8",
    "press_9",
    "press_up_arrow",
    "press_down_arrow",
    "press_enter",
    "press_delete",
];

fn ok(feedback: impl Into<String>) -> ActResult {
    ActResult {
        mistake: false,
        feedback: feedback.into(),
    }
}

impl Atm {
    fn new(pin: String, balance: u64) -> Atm {
        Atm {
            pin,
            balance,
            screen: Screen::Menu,
            pointer: 0,
            typed_pin: String::new(),
            typed_amount: String::new(),
            solved: false,
        }
    }

    /// From the original's fields `{PIN, Balance}`: a PIN of four digits (a string) and a
    /// whole-dollar balance.
    pub fn import(instance: &Value) -> Result<Atm, CommaError> {
        let pin = instance
            .get("PIN")
            .and_then(Value::as_str)
            .filter(|p| p.len() == 4 && p.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(|| CommaError::Format {
                puzzle: "atm",
                field: Some("PIN"),
                reason: "must be a string of 4 digits".into(),
            })?;
        let balance = instance
            .get("Balance")
            .and_then(Value::as_u64)
            .ok_or_else(|| CommaError::Format {
                puzzle: "atm",
                field: Some("Balance"),
                reason: "must be a whole number of dollars".into(),
            })?;
        Ok(Atm::new(pin.to_string(), balance))
    }

    /// A seeded random puzzle drawn as the original draws one: a balance uniform over
    /// 1–1000 and a PIN uniform over 1000–9999.
    pub fn generate(seed: u64) -> Atm {
        let mut rng = escapade_core::seed::rng(seed);
        let balance = rng.random_range(1..=1000);
        let pin = rng.random_range(1000..=9999u32).to_string();
        Atm::new(pin, balance)
    }

    /// The transaction the rule asks for.
    pub fn target(&self) -> Transaction {
        if self.balance >= THRESHOLD {
            Transaction::Withdrawal
        } else {
            Transaction::Deposit
        }
    }

    fn target_amount(&self) -> &'static str {
        match self.target() {
            Transaction::Withdrawal => "300",
            Transaction::Deposit => "100",
        }
    }

    fn amount_is_right(&self) -> bool {
        self.typed_amount
            .parse::<u64>()
            .is_ok_and(|a| a.to_string() == self.target_amount())
    }

    fn back_to_menu(&mut self) {
        self.typed_pin.clear();
        self.screen = Screen::Menu;
        self.pointer = 0;
    }

    fn press_enter(&mut self) -> ActResult {
        match (self.screen, self.pointer) {
            (Screen::Menu, p) => {
                let t = if p == 0 {
                    Transaction::Deposit
                } else {
                    Transaction::Withdrawal
                };
                self.typed_pin.clear();
                self.screen = Screen::Pin(t);
                self.pointer = 0;
                ok(format!(
                    "You chose {}. The terminal asks for your PIN.",
                    t.name()
                ))
            }
            (Screen::Pin(_) | Screen::Amount(_), 1) => {
                self.back_to_menu();
                ok("You went back to the choice of transaction.")
            }
            (Screen::Pin(t), _) => {
                if self.typed_pin == self.pin {
                    self.screen = Screen::Amount(t);
                    self.pointer = 0;
                    ok(
                        "The PIN was accepted. The terminal shows your balance and asks for an amount.",
                    )
                } else {
                    ActResult {
                        mistake: true,
                        feedback: "Strike: the PIN was rejected.".into(),
                    }
                }
            }
            (Screen::Amount(t), _) => {
                if t == self.target() && self.amount_is_right() {
                    self.solved = true;
                    ok(format!(
                        "{} of ${} done. The module is disarmed.",
                        t.name(),
                        self.typed_amount
                    ))
                } else {
                    ActResult {
                        mistake: true,
                        feedback: "Strike: that transaction is not the right one.".into(),
                    }
                }
            }
        }
    }

    fn press_key(&mut self, key: Option<char>) -> ActResult {
        let (field, max) = match (self.screen, self.pointer) {
            (Screen::Pin(_), 0) => (&mut self.typed_pin, 4),
            (Screen::Amount(_), 0) => (&mut self.typed_amount, 5),
            _ => return ok("Nothing happened."),
        };
        match key {
            Some(d) if field.len() < max => {
                field.push(d);
                ok("A digit was typed.")
            }
            Some(_) => ok("Nothing happened: the field is full."),
            None if field.pop().is_some() => ok("The last digit was erased."),
            None => ok("Nothing happened: the field is empty."),
        }
    }
}

impl Atm {
    /// The screen in words; `private` adds the PIN card and the exact balance (the
    /// solver's view), otherwise the balance is told only against the $500 rule.
    fn screen_text(&self, private: bool) -> String {
        let pointer = |i: usize| if self.pointer == i { "-> " } else { "   " };
        let screen = match self.screen {
            Screen::Menu => format!(
                "COMMA Bank. Choose a transaction:\n{}Deposit\n{}Withdrawal",
                pointer(0),
                pointer(1)
            ),
            Screen::Pin(t) => format!(
                "{}.\n{}PIN: {}\n{}Go Back",
                t.name(),
                pointer(0),
                "*".repeat(self.typed_pin.len()),
                pointer(1)
            ),
            Screen::Amount(t) => format!(
                "{}. {}\n{}Amount: {}\n{}Go Back",
                t.name(),
                if private {
                    format!("Your balance is ${}.", self.balance)
                } else if self.balance >= THRESHOLD {
                    format!("The balance is ${THRESHOLD} or more.")
                } else {
                    format!("The balance is below ${THRESHOLD}.")
                },
                pointer(0),
                self.typed_amount,
                pointer(1)
            ),
        };
        format!(
            "An ATM. Its screen reads:\n{screen}\nBelow the screen: a keypad with the digits \
             0-9, up and down arrows, ENTER and DEL.{}{}",
            if private {
                format!(
                    " Beside it, your bank card (private: do not reveal it) shows the PIN {}.",
                    self.pin
                )
            } else {
                String::new()
            },
            if self.solved {
                " The module is disarmed."
            } else {
                ""
            }
        )
    }

    /// The solver's screen and card, to be drawn.
    fn screen_drawing(&self) -> Drawing {
        let (heading, options) = match self.screen {
            Screen::Menu => (
                vec![
                    "COMMA Bank.".to_string(),
                    "Choose a transaction:".to_string(),
                ],
                ["Deposit".to_string(), "Withdrawal".to_string()],
            ),
            Screen::Pin(t) => (
                vec![format!("{}.", t.name())],
                [
                    format!("PIN: {}", "*".repeat(self.typed_pin.len())),
                    "Go Back".to_string(),
                ],
            ),
            Screen::Amount(t) => (
                vec![
                    format!("{}.", t.name()),
                    format!("Your balance is ${}.", self.balance),
                ],
                [
                    format!("Amount: {}", self.typed_amount),
                    "Go Back".to_string(),
                ],
            ),
        };
        Drawing::new(Scene::Atm {
            heading,
            options,
            pointer: self.pointer,
            pin: self.pin.clone(),
            solved: self.solved,
        })
    }
}

impl Puzzle for Atm {
    fn remaining(&self) -> Option<u32> {
        crate::puzzle::remaining_of(self, super::REMAINING_LIMIT)
    }

    fn kind(&self) -> PuzzleKind {
        PuzzleKind::Atm
    }

    fn actions(&self) -> Vec<String> {
        ACTIONS.iter().map(|a| a.to_string()).collect()
    }

    fn act(&mut self, action: &str) -> ActResult {
        if !ACTIONS.contains(&action) {
            return ActResult::unknown(action);
        }
        if self.solved {
            return ActResult::already_solved();
        }
        match action {
            "press_up_arrow" => {
                self.pointer = 0;
                ok("The pointer moved up.")
            }
            "press_down_arrow" => {
                self.pointer = 1;
                ok("The pointer moved down.")
            }
            "press_enter" => self.press_enter(),
            "press_delete" => self.press_key(None),
            digit => self.press_key(digit.chars().last()),
        }
    }

    fn solved(&self) -> bool {
        self.solved
    }

    /// The paper scores ATM as a single-step puzzle: its partial success equals its
    /// success for every model (Table 1 vs App. C: GPT-4o 47 / 47, random 0 / 0), so
    /// reaching the PIN or amount screen earns nothing.
    fn progress(&self) -> f64 {
        if self.solved { 1.0 } else { 0.0 }
    }

    fn correct_actions(&self) -> Vec<String> {
        if self.solved {
            return Vec::new();
        }
        let target = self.target();
        let go_back = || {
            if self.pointer == 1 {
                "press_enter"
            } else {
                "press_down_arrow"
            }
        };
        let fill = |typed: &str, want: &str, done: bool| -> String {
            if self.pointer == 1 {
                "press_up_arrow".into()
            } else if done {
                "press_enter".into()
            } else if typed.len() < want.len() && want.starts_with(typed) {
                format!("press_{}", &want[typed.len()..=typed.len()])
            } else {
                "press_delete".into()
            }
        };
        let a: String = match self.screen {
            Screen::Menu => match (target, self.pointer) {
                (Transaction::Deposit, 0) | (Transaction::Withdrawal, 1) => "press_enter".into(),
                (Transaction::Deposit, _) => "press_up_arrow".into(),
                (Transaction::Withdrawal, _) => "press_down_arrow".into(),
            },
            Screen::Pin(t) | Screen::Amount(t) if t != target => go_back().into(),
            Screen::Pin(_) => fill(&self.typed_pin, &self.pin, self.typed_pin == self.pin),
            Screen::Amount(_) => fill(
                &self.typed_amount,
                self.target_amount(),
                self.amount_is_right(),
            ),
        };
        vec![a]
    }

    fn describe(&self) -> String {
        self.screen_text(true)
    }

    fn shareable(&self) -> String {
        self.screen_text(false)
    }

    /// A digit typed into the PIN field is done on the keypad, not said to the expert.
    fn hides(&self, action: &str) -> bool {
        matches!((self.screen, self.pointer), (Screen::Pin(_), 0))
            && action
                .strip_prefix("press_")
                .is_some_and(|d| d.len() == 1 && d.as_bytes()[0].is_ascii_digit())
    }

    fn drawing(&self) -> Option<Drawing> {
        Some(self.screen_drawing())
    }

    fn private(&self) -> Vec<String> {
        vec![self.pin.clone(), self.balance.to_string()]
    }

    fn instance(&self) -> Value {
        json!({"PIN": self.pin, "Balance": self.balance})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn atm(pin: &str, balance: u64) -> Atm {
        Atm::import(&json!({"PIN": pin, "Balance": balance})).unwrap()
    }

    fn run(a: &mut Atm, actions: &[&str]) -> usize {
        actions.iter().filter(|x| a.act(x).mistake).count()
    }

    #[test]
    fn deposit_below_500() {
        let mut a = atm("1588", 478);
        let path = [
            "press_enter",
            "press_1",
            "press_5",
            "press_8",
            "press_8",
            "press_enter",
            "press_1",
            "press_0",
            "press_0",
            "press_enter",
        ];
        for x in path {
            assert_eq!(a.correct_actions(), vec![x.to_string()]);
            assert!(!a.act(x).mistake);
        }
        assert!(a.solved() && a.progress() == 1.0);
        assert_eq!(a.private(), vec!["1588".to_string(), "478".to_string()]);
    }

    #[test]
    fn withdraw_at_500() {
        let mut a = atm("0420", 500);
        assert_eq!(a.correct_actions(), vec!["press_down_arrow"]);
        let path = [
            "press_down_arrow",
            "press_enter",
            "press_0",
            "press_4",
            "press_2",
            "press_0",
            "press_enter",
            "press_3",
            "press_0",
            "press_0",
            "press_enter",
        ];
        assert_eq!(run(&mut a, &path), 0);
        assert!(a.solved());
    }

    #[test]
    fn strikes_and_going_back() {
        let mut a = atm("1234", 900);
        // Deposit chosen although the balance calls for a withdrawal.
        assert_eq!(run(&mut a, &["press_enter"]), 0);
        assert_eq!(a.progress(), 0.0);
        assert_eq!(a.correct_actions(), vec!["press_down_arrow"]);
        // Wrong PIN: a strike, and the typed PIN stays.
        assert_eq!(run(&mut a, &["press_9", "press_enter"]), 1);
        assert_eq!(
            run(
                &mut a,
                &["press_delete", "press_1", "press_2", "press_3", "press_4"]
            ),
            0
        );
        assert_eq!(run(&mut a, &["press_5", "press_enter"]), 0);
        // Deposit of 100 is wrong for this balance.
        assert_eq!(
            run(&mut a, &["press_1", "press_0", "press_0", "press_enter"]),
            1
        );
        assert_eq!(a.correct_actions(), vec!["press_down_arrow"]);
        assert_eq!(
            run(&mut a, &["press_down_arrow", "press_7", "press_enter"]),
            0
        );
        assert_eq!(a.screen, Screen::Menu);
        assert_eq!(a.correct_actions(), vec!["press_down_arrow"]);
        assert_eq!(run(&mut a, &["press_down_arrow", "press_enter"]), 0);
        assert_eq!(
            a.progress(),
            0.0,
            "a single-step puzzle: no credit on the way"
        );
        assert_eq!(
            run(
                &mut a,
                &["press_1", "press_2", "press_3", "press_4", "press_enter"]
            ),
            0
        );
        assert_eq!(a.progress(), 0.0);
        // The amount typed on the deposit screen was kept: erase it.
        assert_eq!(a.correct_actions(), vec!["press_delete"]);
        assert_eq!(
            run(&mut a, &["press_delete", "press_delete", "press_delete"]),
            0
        );
        assert_eq!(
            run(&mut a, &["press_3", "press_0", "press_0", "press_enter"]),
            0
        );
        assert!(a.solved());
        assert!(a.correct_actions().is_empty());
        assert!(!a.act("press_enter").mistake);
    }

    #[test]
    fn the_solver_sees_its_card_and_the_shareable_words_hide_pin_and_balance() {
        let mut a = atm("1588", 478);
        assert_eq!(
            a.describe(),
            "An ATM. Its screen reads:\nCOMMA Bank. Choose a transaction:\n-> Deposit\n   \
             Withdrawal\nBelow the screen: a keypad with the digits 0-9, up and down arrows, \
             ENTER and DEL. Beside it, your bank card (private: do not reveal it) shows the \
             PIN 1588."
        );
        run(&mut a, &["press_enter", "press_1", "press_5"]);
        assert!(a.describe().contains("Deposit.\n-> PIN: **\n   Go Back"));
        assert!(!a.shareable().contains("15"));
        run(&mut a, &["press_8", "press_8", "press_enter"]);
        assert!(a.describe().contains("Your balance is $478."));
        let words = a.shareable();
        assert!(words.contains("The balance is below $500."), "{words}");
        assert!(
            a.private().iter().all(|p| !words.contains(p.as_str())),
            "{words}"
        );
    }

    #[test]
    fn bad_instances_are_refused() {
        assert!(Atm::import(&json!({})).is_err());
        assert!(Atm::import(&json!({"PIN": 1588, "Balance": 3})).is_err());
        assert!(Atm::import(&json!({"PIN": "158", "Balance": 3})).is_err());
        assert!(Atm::import(&json!({"PIN": "15a8", "Balance": 3})).is_err());
        assert!(Atm::import(&json!({"PIN": "1588", "Balance": -3})).is_err());
        assert!(Atm::import(&json!({"PIN": "1588", "Balance": "3"})).is_err());
        assert!(Atm::import(&json!({"PIN": "1588", "Balance": 3.5})).is_err());
    }

    #[test]
    fn generation_is_seeded_and_the_oracle_solves_it() {
        assert_eq!(Atm::generate(3), Atm::generate(3));
        assert!((0..50).any(|s| Atm::generate(s) != Atm::generate(3)));
        for s in 0..100 {
            let mut a = Atm::generate(s);
            assert_eq!(Atm::import(&a.instance()).unwrap(), a);
            for _ in 0..20 {
                if let Some(x) = a.correct_actions().first().cloned() {
                    assert!(!a.act(&x).mistake);
                }
            }
            assert!(a.solved());
        }
    }
}
