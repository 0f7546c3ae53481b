//! Exact text descriptions of views: what the picture of the current view shows, in
//! words.
//!
//! Text-only models play from these, and the socratic mode (VisEscape §7: an LLM reasons
//! over captions of the images) uses them in place of a captioner, so a caption's errors
//! never blur a comparison. A description says what is *seen*, the way [`crate::render`]
//! draws it (both read receptacles through the same crate-private helpers): a wardrobe
//! is open, a safe carries a keypad, a clue's objects are listed one by one as drawn.
//! Like the picture it never solves anything: no counts, no times, no answers.
//!
//! That full description is an option (`-W descriptions=full`): it spells out what a
//! clue shows (its shapes and colours one by one, its symbols, arrows and clock hands)
//! and what a lock's bands and buttons are, so a text-only player solves the visual
//! quizzes the paper's agent has to see. By default a picture's description is
//! [`names`]: where the view is and the objects the action list names anyway, which is
//! all the paper's agent is told in text (App. A.5 Table 17: `<Current Observation>
//! {direction} side of room - [IMAGE]`). The paper's text-only setting (§7) reads a
//! model's captions instead (`-A socratic=captions`).

use crate::game::{Game, State, View};
use crate::render::{self, Leaf, Mark, Place};
use crate::room::{Furniture, ItemKind, Quiz, QuizSpec, Wall};
use crate::text::list;

/// What the current view of `state` shows, in a few plain sentences.
pub fn describe(game: &Game, state: &State) -> String {
    let room = game.room();
    match state.view() {
        View::Wall(w) => wall(game, state, w),
        View::Receptacle(r) if r < room.receptacles.len() => receptacle(game, state, r),
        View::Item(i) if i < room.items.len() => item(game, state, i),
        _ => "Nothing is in view.".into(),
    }
}

/// The description of the current view of `state` that `kind` asks for: [`names`] or
/// [`describe`].
pub fn as_asked(kind: crate::options::Descriptions, game: &Game, state: &State) -> String {
    match kind {
        crate::options::Descriptions::Names => names(game, state),
        crate::options::Descriptions::Full => describe(game, state),
    }
}

/// Where the current view of `state` is and what it names: the wall and its objects, the
/// object in close-up and the items in view in it, the item in close-up — names the
/// available actions give anyway (`inspect desk`, `pick key`), never a state, a colour, a
/// shape or anything a clue or a lock shows.
pub fn names(game: &Game, state: &State) -> String {
    let room = game.room();
    let names = |ids: Vec<usize>, name: &dyn Fn(usize) -> String| -> Vec<String> {
        ids.into_iter()
            .map(|i| format!("the {}", name(i)))
            .collect()
    };
    match state.view() {
        View::Wall(w) => {
            let on = names(game.on_wall(w), &|r| room.receptacles[r].name.clone());
            if on.is_empty() {
                format!("The {} wall.", w.name())
            } else {
                format!("The {} wall, with {}.", w.name(), list(&on))
            }
        }
        View::Receptacle(r) if r < room.receptacles.len() => {
            let items = names(game.visible_items(state, r), &|i| {
                room.items[i].name.clone()
            });
            let head = format!("A close look at the {}", room.receptacles[r].name);
            if items.is_empty() {
                format!("{head}.")
            } else {
                format!("{head}; in view: {}.", list(&items))
            }
        }
        View::Item(i) if i < room.items.len() => {
            format!("A close look at the {}.", room.items[i].name)
        }
        _ => "Nothing is in view.".into(),
    }
}

fn wall(game: &Game, state: &State, w: Wall) -> String {
    let on = game.on_wall(w);
    if on.is_empty() {
        return format!("You face the {} wall. It is bare.", w.name());
    }
    let mut out = format!("You face the {} wall. On it you see:", w.name());
    for r in on {
        out.push_str("\n- ");
        out.push_str(&receptacle_line(game, state, r, false));
    }
    out
}

fn receptacle(game: &Game, state: &State, r: usize) -> String {
    let rec = &game.room().receptacles[r];
    format!(
        "You look closely at the {} on the {} wall. {}",
        rec.name,
        rec.wall.name(),
        receptacle_line(game, state, r, true)
    )
}

/// The noun a kind is seen as.
fn kind_noun(f: Furniture, has_doors: bool) -> &'static str {
    match f {
        Furniture::Door => "a door",
        Furniture::Wardrobe => "a tall wardrobe with two doors",
        Furniture::Safe => "a steel safe",
        Furniture::Drawers => "a chest of two drawers",
        Furniture::Cabinet => "a wall cabinet with two doors",
        Furniture::Desk => "a desk with one drawer",
        Furniture::Chest => "a chest with a lid",
        Furniture::Shelf if has_doors => "a wall shelf with glass doors",
        Furniture::Shelf => "an open wall shelf",
        Furniture::Fridge => "a fridge",
        Furniture::Frame => "a painting of green hills in a gold frame",
        Furniture::Locker => "a metal locker",
        Furniture::Table => "a small table",
    }
}

fn leaf_word(l: Leaf) -> &'static str {
    match l {
        Leaf::Closed => "closed",
        Leaf::Open => "open",
        Leaf::Locked => "locked",
        Leaf::On => "closed, and the lamp on it glows green",
        Leaf::Off => "closed, and the lamp on it is dark",
    }
}

fn mark_words(m: Mark, lock: Option<&str>) -> String {
    match (m, lock) {
        (Mark::Padlock, _) => ", with a padlock hanging on it".into(),
        (Mark::CardReader, _) => ", with a card reader on it".into(),
        (Mark::Screws, _) => ", with a screw in each corner".into(),
        (Mark::Planks, _) => ", with planks nailed across it".into(),
        (Mark::Latch(true), _) => ", with an electric latch whose light is green".into(),
        (Mark::Latch(false), _) => ", with an electric latch whose light is red".into(),
        (Mark::Keypad, Some(name)) => format!(", with a code lock (the {name}) on it"),
        (Mark::Keypad, None) => ", with a code lock on it".into(),
        (Mark::None, _) => String::new(),
    }
}

/// `the wardrobe (a tall wardrobe with two doors): its doors are open; inside: …`.
fn receptacle_line(game: &Game, state: &State, r: usize, close: bool) -> String {
    let room = game.room();
    let rec = &room.receptacles[r];
    let f = rec.furniture;
    let has_doors = render::opens_and_shuts(game, r);
    let leaves = render::current_leaves(game, state, r);
    let places = render::placements(game, state, r);
    let marks = render::marks(game, state, r, &places);
    let name_of = |i: usize| -> String {
        let item = &room.items[i];
        let look = item.look.trim();
        match &item.kind {
            ItemKind::Lock { .. } => format!("the {} (a code lock)", item.name),
            _ if close && !look.is_empty() => format!("the {} ({look})", item.name),
            _ => format!("the {}", item.name),
        }
    };
    let lock_on = |k: usize| -> Option<&str> {
        places
            .iter()
            .find(|(_, p)| *p == Place::Front(k))
            .map(|(i, _)| room.items[*i].name.as_str())
    };
    let l0 = leaves[0];
    let look = render::looks::look(f, &rec.name);
    let one_door = look.detail == render::looks::Detail::Microwave;
    let state_words = match f {
        Furniture::Drawers => format!(
            "the top drawer is {}{}; the bottom drawer is {}{}",
            leaf_word(leaves[0]),
            mark_words(marks[0], lock_on(0)),
            leaf_word(leaves[1]),
            mark_words(marks[1], lock_on(1)),
        ),
        Furniture::Desk => format!(
            "its drawer is {}{}",
            leaf_word(l0),
            mark_words(marks[0], lock_on(0))
        ),
        Furniture::Chest => format!(
            "its lid is {}{}",
            leaf_word(l0),
            mark_words(marks[0], lock_on(0))
        ),
        Furniture::Cabinet if one_door => format!(
            "its door is {}{}",
            leaf_word(l0),
            mark_words(marks[0], lock_on(0))
        ),
        Furniture::Wardrobe | Furniture::Cabinet => {
            format!(
                "its doors are {}{}",
                leaf_word(l0),
                mark_words(marks[0], lock_on(0))
            )
        }
        Furniture::Fridge => format!(
            "its main door is {}{}",
            leaf_word(l0),
            mark_words(marks[0], lock_on(0))
        ),
        Furniture::Shelf if has_doors => {
            format!(
                "its glass doors are {}{}",
                leaf_word(l0),
                mark_words(marks[0], lock_on(0))
            )
        }
        Furniture::Table if has_doors => match l0 {
            Leaf::Open => "nothing covers it".to_string(),
            _ => format!("a red cloth covers it{}", mark_words(marks[0], lock_on(0))),
        },
        Furniture::Shelf | Furniture::Table => match marks[0] {
            Mark::None => String::new(),
            Mark::Padlock => "a chain with a padlock is across it".to_string(),
            m => format!("it is locked{}", mark_words(m, lock_on(0))),
        },
        Furniture::Frame => match l0 {
            Leaf::Open => {
                "it has been moved aside: a dark niche in the wall shows where it hung".into()
            }
            Leaf::Locked => format!(
                "it is fixed to the wall{}",
                mark_words(marks[0], lock_on(0))
            ),
            _ => format!("it hangs on the wall{}", mark_words(marks[0], lock_on(0))),
        },
        Furniture::Door | Furniture::Safe | Furniture::Locker => {
            format!(
                "it is {}{}",
                leaf_word(l0),
                mark_words(marks[0], lock_on(0))
            )
        }
    };
    let mut parts = Vec::new();
    if !state_words.is_empty() {
        parts.push(state_words);
    }
    if f == Furniture::Shelf {
        let (upper, lower) = render::shelf_boards(&places);
        for (lead, items) in [("on the upper board", upper), ("on the lower board", lower)] {
            if !items.is_empty() {
                let names: Vec<String> = items.into_iter().map(name_of).collect();
                parts.push(format!("{lead}: {}", list(&names)));
            }
        }
    }
    let compartments = if f == Furniture::Shelf {
        0
    } else {
        render::leaf_count(f)
    };
    for (k, leaf) in leaves.iter().enumerate().take(compartments) {
        let inside: Vec<String> = places
            .iter()
            .filter(|(_, p)| *p == Place::Inside(k))
            .map(|(i, _)| name_of(*i))
            .collect();
        let lead = match (f, k) {
            (Furniture::Drawers, 0) => "in the top drawer",
            (Furniture::Drawers, _) => "in the bottom drawer",
            (Furniture::Desk, _) => "in the drawer",
            (Furniture::Table, _) => "on it",
            (Furniture::Frame, _) => "in the niche",
            (Furniture::Door, _) => "in the doorway",
            _ => "inside",
        };
        if !inside.is_empty() {
            parts.push(format!("{lead}: {}", list(&inside)));
        } else if *leaf == Leaf::Open && !matches!(f, Furniture::Table | Furniture::Door) {
            parts.push(format!("{lead}: nothing"));
        }
    }
    let on: Vec<String> = places
        .iter()
        .filter(|(_, p)| *p == Place::On && f != Furniture::Shelf)
        .map(|(i, _)| name_of(*i))
        .collect();
    if !on.is_empty() {
        let lead = match f {
            Furniture::Door => "pinned to it",
            Furniture::Fridge => "stuck to the freezer door",
            Furniture::Frame => "in the frame",
            _ => "on top",
        };
        parts.push(format!("{lead}: {}", list(&on)));
    }
    // what tells it apart from others of its kind, as drawn (see `render::looks`)
    let noun = look.noun.unwrap_or(kind_noun(f, has_doors));
    let what = if look.words.is_empty() {
        noun.to_string()
    } else {
        format!("{noun}, {}", look.words)
    };
    let mut line = format!("The {} ({what})", rec.name);
    if parts.is_empty() {
        line.push('.');
    } else {
        line.push_str(": ");
        line.push_str(&parts.join("; "));
        line.push('.');
    }
    line
}

fn item(game: &Game, state: &State, i: usize) -> String {
    let room = game.room();
    let item = &room.items[i];
    let look = item.look.trim();
    let quiz = game.quiz_of(i).map(|q| &room.quizzes[q]);
    let head = format!("You look closely at the {}.", item.name);
    match (&item.kind, quiz) {
        (ItemKind::Clue { .. }, Some(q)) => format!("{head} {}", clue(q, item)),
        (ItemKind::Lock { .. }, Some(q)) => {
            format!("{head} {}", lock(q, item, game.solved(state, i)))
        }
        (ItemKind::Note { text }, _) => {
            format!("{head} A sheet of paper. It reads: \"{}\"", text.trim())
        }
        _ if look.is_empty() => head,
        _ => format!("{head} It is {look}."),
    }
}

/// A small count in words (`four`), so descriptions carry no digit strings.
fn words(n: usize) -> String {
    const W: [&str; 13] = [
        "no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve",
    ];
    W.get(n).map_or_else(|| n.to_string(), |w| w.to_string())
}

/// `a red square`, `an orange triangle`.
fn article(noun: &str) -> String {
    let vowel = noun.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {noun}", if vowel { "an" } else { "a" })
}

fn polygon_name(sides: u32) -> String {
    match sides {
        0..=2 => "circle".into(),
        3 => "triangle".into(),
        4 => "square".into(),
        5 => "pentagon".into(),
        6 => "hexagon".into(),
        7 => "heptagon".into(),
        8 => "octagon".into(),
        9 => "nonagon".into(),
        10 => "decagon".into(),
        n => format!("polygon with {} sides", words(n as usize)),
    }
}

fn direction_name(c: char) -> &'static str {
    match c.to_ascii_uppercase() {
        'U' => "up",
        'D' => "down",
        'L' => "left",
        'R' => "right",
        _ => "a dot",
    }
}

/// Where a row is read from, when the picture wraps it onto two rows.
fn rows_note(n: usize, per_row: usize) -> &'static str {
    if n > per_row {
        " (in two rows, the top row first)"
    } else {
        ""
    }
}

fn clue(q: &Quiz, item: &crate::room::Item) -> String {
    let form = render::clue_form(item, &q.spec);
    match &q.spec {
        QuizSpec::ColourCount { objects, .. } => {
            let noun = render::object_noun(item, &q.spec);
            let all: Vec<String> = objects
                .iter()
                .map(|(s, c)| format!("{} {}", c.name(), noun.unwrap_or(s.name())))
                .collect();
            let what = match noun {
                Some(noun) if render::on_shelves(form) => {
                    format!("Coloured {noun}s standing in rows on shelf boards.")
                }
                Some(noun) => format!("A sheet of paper with {noun}s drawn all over it."),
                None => "A card with shapes scattered over it.".to_string(),
            };
            format!("{what} One by one they are: {}.", all.join(", "))
        }
        QuizSpec::PolygonSides { polygons, .. } => {
            let all: Vec<String> = polygons
                .iter()
                .map(|(n, c)| article(&format!("{} {}", c.name(), polygon_name(*n))))
                .collect();
            let what = if form == render::ClueForm::Tiles {
                "A panel of white tiles with polygons on it"
            } else {
                "A card with polygons"
            };
            format!(
                "{what}, a dot on each corner. Left to right{}: {}.",
                rows_note(polygons.len(), 4),
                all.join(", ")
            )
        }
        QuizSpec::SymbolOrder { sequence, .. } => {
            let all: Vec<&str> = sequence.iter().map(|s| s.name()).collect();
            let what = if form == render::ClueForm::Tablet {
                "A grey stone tablet with a row of symbols carved in it and an arrow carved under them pointing right"
            } else {
                "A card with a row of symbols and an arrow under them pointing right"
            };
            format!(
                "{what}. Left to right{}: {}.",
                rows_note(sequence.len(), 6),
                all.join(", ")
            )
        }
        QuizSpec::Clock { hour, minute } => {
            let h = match hour % 12 {
                0 => 12,
                h => h,
            };
            let next = h % 12 + 1;
            let minute = minute % 60;
            let hour_at = if minute == 0 {
                format!("at the {h}")
            } else {
                format!("between the {h} and the {next}")
            };
            let m = match (minute / 5) as usize {
                0 => 12,
                m => m,
            };
            let minute_at = if minute % 5 == 0 {
                format!("at the {m}")
            } else {
                format!("just past the {m}")
            };
            let what = if form == render::ClueForm::Watch {
                "A pocket watch in a silver case, its face numbered one to twelve."
            } else {
                "A round clock face with the numbers one to twelve, in a wooden case."
            };
            format!(
                "{what} The short, thick hour hand points {hour_at}; the long, thin minute hand points {minute_at}."
            )
        }
        QuizSpec::Arrows { arrows } => {
            let all: Vec<&str> = arrows.iter().map(|a| direction_name(*a)).collect();
            let what = if form == render::ClueForm::Sign {
                "A wooden sign with a row of arrows"
            } else {
                "A card with a row of arrows"
            };
            format!(
                "{what}. Left to right{}, they point: {}.",
                rows_note(arrows.len(), 6),
                all.join(", ")
            )
        }
        QuizSpec::Pictured { .. } => "A picture.".to_string(),
    }
}

/// A code lock as drawn (see `render::quiz::draw_lock`): its housing, its light, a window
/// per character (under coloured bands where the quiz reads colours) and its buttons.
fn lock(q: &Quiz, item: &crate::room::Item, solved: bool) -> String {
    let n = render::slot_count(&q.spec);
    let look = format!("{} {}", item.name, item.look).to_ascii_lowercase();
    let housing = if look.contains("brass") || look.contains("gold") {
        "brass"
    } else if look.contains("black") {
        "black"
    } else {
        "grey metal"
    };
    let light = if solved {
        "Its light is green: it has been unlocked."
    } else {
        "Its light is red."
    };
    let mut out = format!("A code lock of {housing}. {light}");
    let keypad = match q.code {
        crate::room::CodeKind::Letter => "Below is a keypad of letters.",
        crate::room::CodeKind::Colour => {
            "Below is a keypad of coloured keys marked with colour initials."
        }
        _ => "Below is a keypad of digits.",
    };
    match &q.spec {
        QuizSpec::ColourCount { slots, .. } | QuizSpec::PolygonSides { slots, .. } => {
            let colours: Vec<&str> = slots.iter().map(|c| c.name()).collect();
            out.push_str(&format!(
                " It has {} small empty windows in a row, each under a coloured band; left to right the bands are {}. {keypad}",
                words(slots.len()),
                colours.join(", ")
            ));
        }
        QuizSpec::SymbolOrder { buttons, .. } => {
            let all: Vec<String> = buttons
                .iter()
                .map(|(s, l)| format!("{} marked {l}", s.name()))
                .collect();
            out.push_str(&format!(
                " It has {} small empty windows in a row. Below are buttons, each with a symbol and a letter: {}.",
                words(n),
                all.join(", ")
            ));
        }
        QuizSpec::Clock { .. } => {
            out.push_str(&format!(
                " It has {} small empty windows in a row. {keypad}",
                words(n)
            ));
        }
        QuizSpec::Arrows { .. } => {
            out.push_str(&format!(
                " It has {} small empty windows in a row. Below is a pad of four arrow buttons: up, down, left and right.",
                words(n)
            ));
        }
        QuizSpec::Pictured { .. } => out.push_str(&format!(" {keypad}")),
    }
    out
}
