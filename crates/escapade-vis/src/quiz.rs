//! Visual quizzes: five kinds of clue-and-lock pairs, their seeded content and answers.
//!
//! VisEscape pairs one or two code locks per room with a hand-made visual quiz whose
//! clue sits far from its lock (§3.1 "Visual Quizzes", App. D.4 Fig. 16): count the cans
//! of each colour in the fridge and read the counts off the lock's coloured slots; count
//! the sides of each polygon in a drawing and do the same. The answer is never in one
//! place: the clue gives the numbers, the lock face says which number goes where. This
//! module makes such quizzes from a seed so that the generator never repeats an answer
//! by accident, and it states each kind's rule in the player's terms (see [`QuizKind`]).
//!
//! Randomness comes only from the generator passed in (the room generator's
//! [`escapade_core::seed::Rng`]), so the same stream gives the same quiz.

use rand::Rng;
use rand::seq::{IndexedRandom, SliceRandom};

use crate::room::{CodeKind, Colour, Quiz, QuizSpec, Symbol};

/// The kinds of visual quiz, each with its rule: how the clue and the lock face
/// together give the code (App. D.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum QuizKind {
    /// The clue shows objects in several colours; the lock has one digit slot per
    /// colour. Rule: each digit is how many objects of that slot's colour the clue
    /// shows, read left to right along the lock. Colours absent from the lock are
    /// distractors (Fig. 16, top).
    ColourCount,
    /// The clue shows coloured polygons; the lock has one digit slot per colour. Rule:
    /// each digit is the number of sides of the polygon in that slot's colour, read left
    /// to right along the lock (Fig. 16, bottom).
    PolygonSides,
    /// The clue shows a row of four symbols; the lock has five or six buttons, each
    /// with a symbol and a letter. Rule: press the buttons in the clue's order; the code
    /// is their letters, left to right as the clue reads.
    SymbolOrder,
    /// The clue is a clock; the lock has four digit wheels split `HH:MM`. Rule: the code
    /// is the time shown, in 12-hour form with leading zeros (`0745` for a quarter to
    /// eight).
    Clock,
    /// The clue shows a row of four arrows; the lock has four direction buttons. Rule:
    /// the code is the arrows' directions left to right, as `U`, `D`, `L`, `R`.
    Arrows,
}

impl QuizKind {
    /// Every kind, in a fixed order (generators draw from it).
    pub const ALL: [QuizKind; 5] = [
        QuizKind::ColourCount,
        QuizKind::PolygonSides,
        QuizKind::SymbolOrder,
        QuizKind::Clock,
        QuizKind::Arrows,
    ];

    /// The kind of a drawn spec; `None` for a pictured (imported) one.
    pub fn of(spec: &QuizSpec) -> Option<QuizKind> {
        Some(match spec {
            QuizSpec::ColourCount { .. } => QuizKind::ColourCount,
            QuizSpec::PolygonSides { .. } => QuizKind::PolygonSides,
            QuizSpec::SymbolOrder { .. } => QuizKind::SymbolOrder,
            QuizSpec::Clock { .. } => QuizKind::Clock,
            QuizSpec::Arrows { .. } => QuizKind::Arrows,
            QuizSpec::Pictured { .. } => return None,
        })
    }

    /// Snake-case name (`colour_count`), as in the room format's `kind` tag.
    pub fn name(self) -> &'static str {
        match self {
            QuizKind::ColourCount => "colour_count",
            QuizKind::PolygonSides => "polygon_sides",
            QuizKind::SymbolOrder => "symbol_order",
            QuizKind::Clock => "clock",
            QuizKind::Arrows => "arrows",
        }
    }

    /// The lock's alphabet for this kind.
    pub fn code(self) -> CodeKind {
        match self {
            QuizKind::ColourCount | QuizKind::PolygonSides | QuizKind::Clock => CodeKind::Number,
            QuizKind::SymbolOrder => CodeKind::Letter,
            QuizKind::Arrows => CodeKind::Direction,
        }
    }
}

/// Makes a quiz of `kind` with id `id`: seeded content and the one answer it implies.
///
/// Sizes: colour count has 3–4 slots with 1–9 objects each plus 1–2 distractor colours
/// (1–3 objects each); polygon sides has 3–4 polygons of 3–9 sides in distinct colours;
/// symbol order has a sequence of 4 distinct symbols and 5–6 buttons with distinct
/// letters; the clock shows an hour 1–12 and a multiple of five minutes; arrows are 4.
pub fn make(kind: QuizKind, id: &str, rng: &mut impl Rng) -> Quiz {
    let (spec, answer) = match kind {
        QuizKind::ColourCount => colour_count(rng),
        QuizKind::PolygonSides => polygon_sides(rng),
        QuizKind::SymbolOrder => symbol_order(rng),
        QuizKind::Clock => clock(rng),
        QuizKind::Arrows => arrows(rng),
    };
    Quiz {
        id: id.to_string(),
        code: kind.code(),
        spec,
        answer,
        clue_views: Vec::new(),
    }
}

fn colour_count(rng: &mut impl Rng) -> (QuizSpec, String) {
    let mut colours = Colour::QUIZ.to_vec();
    colours.shuffle(rng);
    let slots_n = rng.random_range(3..=4usize);
    let slots: Vec<Colour> = colours[..slots_n].to_vec();
    let distractors_n = rng.random_range(1..=2usize).min(colours.len() - slots_n);
    let symbol = *Symbol::ALL.choose(rng).unwrap_or(&Symbol::Circle);
    let mut answer = String::new();
    let mut objects = Vec::new();
    for &c in &slots {
        let n = rng.random_range(1..=9u32);
        answer.push(char::from_digit(n, 10).unwrap_or('0'));
        objects.extend(std::iter::repeat_n((symbol, c), n as usize));
    }
    for &c in &colours[slots_n..slots_n + distractors_n] {
        let n = rng.random_range(1..=3usize);
        objects.extend(std::iter::repeat_n((symbol, c), n));
    }
    objects.shuffle(rng);
    (QuizSpec::ColourCount { objects, slots }, answer)
}

fn polygon_sides(rng: &mut impl Rng) -> (QuizSpec, String) {
    let mut colours = Colour::QUIZ.to_vec();
    colours.shuffle(rng);
    let n = rng.random_range(3..=4usize);
    // the lock's slot order first, so the answer is written as the player reads it
    let slots: Vec<Colour> = colours[..n].to_vec();
    let mut answer = String::new();
    let mut polygons = Vec::new();
    for &c in &slots {
        let sides = rng.random_range(3..=9u32);
        answer.push(char::from_digit(sides, 10).unwrap_or('0'));
        polygons.push((sides, c));
    }
    // the clue draws them in another order (a plain copy of the lock would be no quiz)
    let unshuffled = polygons.clone();
    for _ in 0..8 {
        polygons.shuffle(rng);
        if polygons != unshuffled {
            break;
        }
    }
    (QuizSpec::PolygonSides { polygons, slots }, answer)
}

fn symbol_order(rng: &mut impl Rng) -> (QuizSpec, String) {
    let mut symbols = Symbol::ALL.to_vec();
    symbols.shuffle(rng);
    let n_buttons = rng.random_range(5..=6usize);
    let mut letters: Vec<char> = ('A'..='Z').collect();
    letters.shuffle(rng);
    let mut buttons: Vec<(Symbol, char)> = symbols[..n_buttons]
        .iter()
        .copied()
        .zip(letters[..n_buttons].iter().copied())
        .collect();
    // the sequence is four of the buttons' symbols, in a seeded order
    let mut sequence_buttons: Vec<(Symbol, char)> = buttons.clone();
    sequence_buttons.shuffle(rng);
    sequence_buttons.truncate(4);
    let sequence = sequence_buttons.iter().map(|(s, _)| *s).collect();
    let answer = sequence_buttons.iter().map(|(_, l)| *l).collect();
    // the lock lists its buttons in alphabetical order of letters, like a keypad
    buttons.sort_by_key(|(_, l)| *l);
    (QuizSpec::SymbolOrder { sequence, buttons }, answer)
}

fn clock(rng: &mut impl Rng) -> (QuizSpec, String) {
    let hour = rng.random_range(1..=12u32);
    let minute = 5 * rng.random_range(0..12u32);
    (
        QuizSpec::Clock { hour, minute },
        format!("{hour:02}{minute:02}"),
    )
}

fn arrows(rng: &mut impl Rng) -> (QuizSpec, String) {
    let arrows: Vec<char> = (0..4)
        .map(|_| *['U', 'D', 'L', 'R'].choose(rng).unwrap_or(&'U'))
        .collect();
    let answer = arrows.iter().collect();
    (QuizSpec::Arrows { arrows }, answer)
}

/// The answer a spec implies by its kind's rule (see [`QuizKind`]), or `None` when the
/// spec is malformed (a slot colour the clue does not show or shows twice, a sequence
/// symbol with no button, an impossible time or direction, a count over 9).
///
/// Hand-authored rooms are checked with it: a quiz's `answer` must equal this.
pub fn answer_of(spec: &QuizSpec) -> Option<String> {
    match spec {
        QuizSpec::ColourCount { objects, slots } => slots
            .iter()
            .map(|slot| {
                let n = objects.iter().filter(|(_, c)| c == slot).count() as u32;
                (1..=9)
                    .contains(&n)
                    .then(|| char::from_digit(n, 10))
                    .flatten()
            })
            .collect(),
        QuizSpec::PolygonSides { polygons, slots } => slots
            .iter()
            .map(|slot| {
                let mut matching = polygons.iter().filter(|(_, c)| c == slot);
                match (matching.next(), matching.next()) {
                    (Some((sides, _)), None) if (3..=9).contains(sides) => {
                        char::from_digit(*sides, 10)
                    }
                    _ => None,
                }
            })
            .collect(),
        QuizSpec::SymbolOrder { sequence, buttons } => sequence
            .iter()
            .map(|s| {
                let mut matching = buttons.iter().filter(|(b, _)| b == s);
                match (matching.next(), matching.next()) {
                    (Some((_, letter)), None) if letter.is_ascii_uppercase() => Some(*letter),
                    _ => None,
                }
            })
            .collect(),
        QuizSpec::Clock { hour, minute } => {
            ((1..=12).contains(hour) && *minute < 60 && minute % 5 == 0)
                .then(|| format!("{hour:02}{minute:02}"))
        }
        QuizSpec::Arrows { arrows } => arrows
            .iter()
            .map(|a| matches!(a, 'U' | 'D' | 'L' | 'R').then_some(*a))
            .collect(),
        // the answer is in the pictures, not in the spec
        QuizSpec::Pictured { .. } => None,
    }
}

/// Checks that `quiz`'s answer is the one its spec implies and that its code kind fits.
pub fn check(quiz: &Quiz) -> Result<(), crate::VisError> {
    let Some(kind) = QuizKind::of(&quiz.spec) else {
        return check_pictured(quiz);
    };
    let expected = answer_of(&quiz.spec).ok_or_else(|| crate::VisError::Invalid {
        field: "quizzes",
        reason: format!("quiz `{}` has a malformed spec", quiz.id),
    })?;
    if quiz.code != kind.code() {
        return Err(crate::VisError::Invalid {
            field: "quizzes",
            reason: format!(
                "quiz `{}`: a {} quiz takes a {:?} code",
                quiz.id,
                kind.name(),
                kind.code()
            ),
        });
    }
    if crate::game::normalize_answer(&quiz.answer) != expected {
        return Err(crate::VisError::Invalid {
            field: "quizzes",
            reason: format!(
                "quiz `{}`: the answer is `{}` but the clue and lock give `{expected}`",
                quiz.id, quiz.answer
            ),
        });
    }
    Ok(())
}

/// A pictured quiz: its answer has as many characters as the lock has slots, each of the
/// lock's alphabet (digits, or letters).
fn check_pictured(quiz: &Quiz) -> Result<(), crate::VisError> {
    let QuizSpec::Pictured { slots } = quiz.spec else {
        return Ok(());
    };
    let answer = crate::game::normalize_answer(&quiz.answer);
    let fits = match quiz.code {
        CodeKind::Number => answer.chars().all(|c| c.is_ascii_digit()),
        CodeKind::Letter => answer.chars().all(|c| c.is_alphabetic()),
        CodeKind::Direction => answer.chars().all(|c| matches!(c, 'U' | 'D' | 'L' | 'R')),
        CodeKind::Colour => answer.chars().all(|c| c.is_ascii_uppercase()),
    };
    if answer.is_empty() || answer.chars().count() != slots || !fits {
        return Err(crate::VisError::Invalid {
            field: "quizzes",
            reason: format!(
                "quiz `{}`: the answer does not fit a {slots}-character {:?} lock",
                quiz.id, quiz.code
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recomputes the answer the long way, as a player would, without `answer_of`.
    fn by_hand(spec: &QuizSpec) -> String {
        let mut out = String::new();
        match spec {
            QuizSpec::ColourCount { objects, slots } => {
                for slot in slots {
                    let mut n = 0;
                    for (_, c) in objects {
                        if c == slot {
                            n += 1;
                        }
                    }
                    out += &n.to_string();
                }
            }
            QuizSpec::PolygonSides { polygons, slots } => {
                for slot in slots {
                    for (sides, c) in polygons {
                        if c == slot {
                            out += &sides.to_string();
                        }
                    }
                }
            }
            QuizSpec::SymbolOrder { sequence, buttons } => {
                for s in sequence {
                    for (b, letter) in buttons {
                        if b == s {
                            out.push(*letter);
                        }
                    }
                }
            }
            QuizSpec::Clock { hour, minute } => {
                out = format!("{}{}", pad(*hour), pad(*minute));
            }
            QuizSpec::Arrows { arrows } => out = arrows.iter().collect(),
            // nothing to read: the code is in the pictures
            QuizSpec::Pictured { .. } => {}
        }
        out
    }

    fn pad(n: u32) -> String {
        if n < 10 {
            format!("0{n}")
        } else {
            n.to_string()
        }
    }

    #[test]
    fn answers_follow_from_clue_and_lock() {
        for seed in 0..300u64 {
            let mut rng = escapade_core::seed::rng(seed);
            for kind in QuizKind::ALL {
                let quiz = make(kind, "q", &mut rng);
                assert_eq!(by_hand(&quiz.spec), quiz.answer, "{kind:?} seed {seed}");
                assert_eq!(answer_of(&quiz.spec).as_deref(), Some(quiz.answer.as_str()));
                assert_eq!(QuizKind::of(&quiz.spec), Some(kind));
                check(&quiz).unwrap();
            }
        }
    }

    #[test]
    fn sizes_match_the_documented_ranges() {
        for seed in 0..200u64 {
            let mut rng = escapade_core::seed::rng(seed);
            for kind in QuizKind::ALL {
                let quiz = make(kind, "q", &mut rng);
                match &quiz.spec {
                    QuizSpec::ColourCount { objects, slots } => {
                        assert!((3..=4).contains(&slots.len()));
                        assert_eq!(quiz.answer.len(), slots.len());
                        let extra: Vec<_> =
                            objects.iter().filter(|(_, c)| !slots.contains(c)).collect();
                        assert!(!extra.is_empty(), "distractor colours");
                    }
                    QuizSpec::PolygonSides { polygons, slots } => {
                        assert!((3..=4).contains(&polygons.len()));
                        let mut colours: Vec<_> = slots.clone();
                        colours.sort();
                        colours.dedup();
                        assert_eq!(colours.len(), slots.len());
                    }
                    QuizSpec::SymbolOrder { sequence, buttons } => {
                        assert_eq!(sequence.len(), 4);
                        assert!((5..=6).contains(&buttons.len()));
                        let mut letters: Vec<char> = buttons.iter().map(|b| b.1).collect();
                        letters.dedup();
                        assert_eq!(letters.len(), buttons.len());
                    }
                    QuizSpec::Clock { hour, minute } => {
                        assert!((1..=12).contains(hour) && minute % 5 == 0 && *minute < 60);
                        assert_eq!(quiz.answer.len(), 4);
                    }
                    QuizSpec::Arrows { arrows } => assert_eq!(arrows.len(), 4),
                    QuizSpec::Pictured { .. } => panic!("make draws no pictured quiz"),
                }
            }
        }
    }

    #[test]
    fn same_stream_same_quiz() {
        let a = make(QuizKind::ColourCount, "q", &mut escapade_core::seed::rng(9));
        let b = make(QuizKind::ColourCount, "q", &mut escapade_core::seed::rng(9));
        assert_eq!(a, b);
    }

    #[test]
    fn malformed_specs_are_caught() {
        let spec = QuizSpec::PolygonSides {
            polygons: vec![(4, Colour::Red)],
            slots: vec![Colour::Blue],
        };
        assert_eq!(answer_of(&spec), None);
        let quiz = Quiz {
            id: "q".into(),
            code: CodeKind::Number,
            spec: QuizSpec::Clock {
                hour: 7,
                minute: 45,
            },
            answer: "0750".into(),
            clue_views: Vec::new(),
        };
        assert!(check(&quiz).is_err());
    }
}
