//! A room as plain data: walls, receptacles with state machines, items, visual quizzes,
//! interactions guarded by rules, checkpoints with hints, and the clear condition.
//!
//! This is the scenario format of the `vis` world (VisEscape §3.1, App. B.4). It is meant
//! to be written by hand as well as generated: JSON or TOML, ids in snake case, display
//! names as players see them. The game logic follows App. B.4's two constraints: logic
//! only changes receptacle states, and every logic step involves an item (a key used, a
//! lock answered, an item picked). Checkpoints are trigger names in the order the room
//! must be solved (App. A.4: all logic is sequential), each with one hint message.
//!
//! Triggers fire on `picked <item>` (an item taken into the inventory), `used <item>`
//! (an item applied successfully), `solved <lock>` (a lock answered correctly), and any
//! name an [`Interaction`] declares.

use serde::{Deserialize, Serialize};

/// One of the four walls, each facing a cardinal direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wall {
    /// The north wall.
    North,
    /// The east wall.
    East,
    /// The south wall.
    South,
    /// The west wall.
    West,
}

impl Wall {
    /// All walls, in turning order.
    pub const ALL: [Wall; 4] = [Wall::North, Wall::East, Wall::South, Wall::West];

    /// Lowercase name (`north`).
    pub fn name(self) -> &'static str {
        match self {
            Wall::North => "north",
            Wall::East => "east",
            Wall::South => "south",
            Wall::West => "west",
        }
    }

    /// Index in [`Wall::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// How a receptacle looks (the renderer draws each kind differently).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Furniture {
    /// The exit door (or any door).
    Door,
    /// A tall two-door wardrobe.
    Wardrobe,
    /// A small steel safe.
    Safe,
    /// A chest of two drawers whose states combine (`closed_open` …).
    Drawers,
    /// A wall cabinet.
    Cabinet,
    /// A desk with one drawer.
    Desk,
    /// A box or chest on the floor.
    Chest,
    /// An open shelf (no doors).
    Shelf,
    /// A refrigerator.
    Fridge,
    /// A picture frame on the wall.
    Frame,
    /// A locker.
    Locker,
    /// A small table.
    Table,
}

impl Furniture {
    /// Every kind, for catalogues and generators.
    pub const ALL: [Furniture; 12] = [
        Furniture::Door,
        Furniture::Wardrobe,
        Furniture::Safe,
        Furniture::Drawers,
        Furniture::Cabinet,
        Furniture::Desk,
        Furniture::Chest,
        Furniture::Shelf,
        Furniture::Fridge,
        Furniture::Frame,
        Furniture::Locker,
        Furniture::Table,
    ];
}

/// A fixed object on a wall with a finite set of states (VisEscape §3.1 "Receptacles").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receptacle {
    /// Stable id, unique in the room.
    pub id: String,
    /// Name the player uses in actions (`wardrobe`), unique in the room.
    pub name: String,
    /// The wall it stands against.
    pub wall: Wall,
    /// How it is drawn.
    pub furniture: Furniture,
    /// Every state it can be in (`locked`, `closed`, `open`; `closed_closed` …).
    pub states: Vec<String>,
    /// The state at the start.
    pub initial: String,
}

/// What an item is for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ItemKind {
    /// Can be picked up into the inventory and applied to receptacles (keys, cards,
    /// tools).
    Applicable,
    /// Shows a visual clue when inspected (the clue of quiz `quiz`).
    Clue {
        /// The quiz whose clue this is.
        quiz: String,
    },
    /// A code lock that accepts answers when inspected (the lock of quiz `quiz`).
    Lock {
        /// The quiz this lock checks.
        quiz: String,
    },
    /// A note with readable text.
    Note {
        /// What the note says.
        text: String,
    },
    /// Decoration: can be inspected, does nothing.
    Decor,
    /// A lock that opens when an item from the bag is used on its receptacle (a keyhole,
    /// a card reader, a chain): the picture of what the interaction with `key` does. It
    /// counts as solved once `key` has been used (VisEscape's original key locks).
    KeyLock {
        /// The item (id) that opens it.
        key: String,
    },
}

/// A movable or inspectable object inside (or on) a receptacle (§3.1 "Items").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Item {
    /// Stable id, unique in the room.
    pub id: String,
    /// Name the player uses in actions (`brass key`), unique in the room.
    pub name: String,
    /// What it is for.
    #[serde(flatten)]
    pub kind: ItemKind,
    /// The receptacle it is in or on.
    pub receptacle: String,
    /// The receptacle states in which it can be seen and interacted with (App. B.4's
    /// "interactable states").
    pub visible_in: Vec<String>,
    /// A short visual description (colour, shape) used in texts and drawings.
    #[serde(default)]
    pub look: String,
    /// It can be looked at closely (`inspect <item>`); in VisEscape's original rooms keys
    /// and buttons cannot, only picked up or pressed (default: yes).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub inspectable: bool,
    /// It leaves the bag once it has been used successfully (the original's keys are
    /// spent by their lock; default: no, it stays in the bag).
    #[serde(default, skip_serializing_if = "is_false")]
    pub single_use: bool,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The code alphabet of a lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CodeKind {
    /// Digits `0-9`.
    Number,
    /// Letters `A-Z`.
    Letter,
    /// Arrow directions, written `U`, `D`, `L`, `R`.
    Direction,
    /// Colour names' initials (`R`, `G`, `B`, `Y`, …).
    Colour,
}

/// A colour used by quizzes, with a fixed name and shade.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Colour {
    /// Red.
    Red,
    /// Green.
    Green,
    /// Blue.
    Blue,
    /// Yellow.
    Yellow,
    /// Purple.
    Purple,
    /// Orange.
    Orange,
    /// Black.
    Black,
    /// White.
    White,
}

impl Colour {
    /// Colours quizzes draw from (distinct at a glance on the room's backgrounds).
    pub const QUIZ: [Colour; 6] = [
        Colour::Red,
        Colour::Green,
        Colour::Blue,
        Colour::Yellow,
        Colour::Purple,
        Colour::Orange,
    ];

    /// Lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            Colour::Red => "red",
            Colour::Green => "green",
            Colour::Blue => "blue",
            Colour::Yellow => "yellow",
            Colour::Purple => "purple",
            Colour::Orange => "orange",
            Colour::Black => "black",
            Colour::White => "white",
        }
    }

    /// The shade drawn.
    pub fn rgb(self) -> (u8, u8, u8) {
        match self {
            Colour::Red => (214, 40, 40),
            Colour::Green => (46, 160, 67),
            Colour::Blue => (40, 90, 220),
            Colour::Yellow => (240, 200, 20),
            Colour::Purple => (140, 60, 180),
            Colour::Orange => (245, 130, 20),
            Colour::Black => (25, 25, 25),
            Colour::White => (245, 245, 245),
        }
    }
}

/// A small drawable symbol for symbol-order quizzes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Symbol {
    /// A five-pointed star.
    Star,
    /// A circle.
    Circle,
    /// A triangle.
    Triangle,
    /// A square.
    Square,
    /// A heart-like diamond.
    Diamond,
    /// A crescent moon.
    Moon,
    /// A cross.
    Cross,
    /// A hexagon.
    Hexagon,
}

impl Symbol {
    /// Every symbol.
    pub const ALL: [Symbol; 8] = [
        Symbol::Star,
        Symbol::Circle,
        Symbol::Triangle,
        Symbol::Square,
        Symbol::Diamond,
        Symbol::Moon,
        Symbol::Cross,
        Symbol::Hexagon,
    ];

    /// Lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            Symbol::Star => "star",
            Symbol::Circle => "circle",
            Symbol::Triangle => "triangle",
            Symbol::Square => "square",
            Symbol::Diamond => "diamond",
            Symbol::Moon => "moon",
            Symbol::Cross => "cross",
            Symbol::Hexagon => "hexagon",
        }
    }
}

/// What a quiz's clue shows and how the lock reads it (App. D.4, Fig. 16). The answer
/// follows from the clue and the lock face together, never from either alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QuizSpec {
    /// The clue shows objects in several colours; the lock's slots are coloured; each
    /// digit is how many objects of the slot's colour the clue shows.
    ColourCount {
        /// The objects drawn: (symbol, colour), in drawing order.
        objects: Vec<(Symbol, Colour)>,
        /// The colour of each lock slot, left to right.
        slots: Vec<Colour>,
    },
    /// The clue shows coloured polygons; each digit is the number of sides of the polygon
    /// in the slot's colour.
    PolygonSides {
        /// The polygons drawn: (sides, colour).
        polygons: Vec<(u32, Colour)>,
        /// The colour of each lock slot, left to right.
        slots: Vec<Colour>,
    },
    /// The clue shows a row of symbols; the lock has a button per symbol, each labelled
    /// with a letter; the answer is the letters in the clue's order.
    SymbolOrder {
        /// The sequence shown by the clue.
        sequence: Vec<Symbol>,
        /// The lock's buttons: (symbol, letter), in the lock's own order.
        buttons: Vec<(Symbol, char)>,
    },
    /// The clue is a clock; the lock takes the time it shows as `HHMM` (12-hour).
    Clock {
        /// Hour, 1–12.
        hour: u32,
        /// Minute, a multiple of 5.
        minute: u32,
    },
    /// The clue shows a row of arrows; the lock takes their directions (`U`/`D`/`L`/`R`).
    Arrows {
        /// The directions, as letters.
        arrows: Vec<char>,
    },
    /// The clue and the lock are pictures imported with the room (VisEscape's own
    /// hand-made quizzes, see [`crate::pictures`]): nothing here is drawn from the spec,
    /// and the code is read from the pictures only.
    Pictured {
        /// How many characters the lock takes.
        slots: usize,
    },
}

/// A visual quiz: a clue item somewhere, a lock item elsewhere, one answer (§3.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quiz {
    /// Stable id, unique in the room.
    pub id: String,
    /// The lock's alphabet.
    pub code: CodeKind,
    /// What the clue and the lock face show.
    pub spec: QuizSpec,
    /// The correct answer (compared case-insensitively, spaces ignored).
    pub answer: String,
    /// Receptacle close-ups whose picture shows the clue (an opened fridge, a screen
    /// switched on): looking at one counts as seeing it. Only imported rooms have them;
    /// our own quizzes have clue items.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clue_views: Vec<ClueView>,
}

/// A receptacle in a state, seen close up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClueView {
    /// The receptacle id.
    pub receptacle: String,
    /// Its state.
    pub state: String,
}

/// A guard on an interaction (DESIGN.md: HasItem, TriggerActive, And, Not, Always).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// Always true.
    #[default]
    Always,
    /// The item is in the inventory.
    HasItem(String),
    /// The trigger has fired.
    Trigger(String),
    /// Every rule holds.
    And(Vec<Rule>),
    /// The rule does not hold.
    Not(Box<Rule>),
}

impl Rule {
    /// The trigger names this guard waits for (not those it forbids), in order.
    pub fn awaited(&self) -> Vec<&str> {
        fn walk<'a>(rule: &'a Rule, out: &mut Vec<&'a str>) {
            match rule {
                Rule::Trigger(t) => out.push(t),
                Rule::And(rules) => rules.iter().for_each(|r| walk(r, out)),
                Rule::Always | Rule::HasItem(_) | Rule::Not(_) => {}
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }
}

/// How an interaction is started by the player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Cause {
    /// A verb on the receptacle (`open wardrobe`, `pull top drawer`).
    Verb {
        /// The verb phrase, as listed in actions (`open`, `open top drawer of`).
        verb: String,
    },
    /// Using an inventory item on the receptacle (`use brass key`).
    Item {
        /// The item id.
        item: String,
    },
    /// Answering a lock correctly.
    Answer {
        /// The lock item id.
        lock: String,
    },
    /// A verb on an item seen in the receptacle in view (`press button`): listed while
    /// the item can be seen; it changes the interaction's receptacle, which may stand
    /// elsewhere (the original's buttons release a bookshelf across the room).
    ItemVerb {
        /// The verb (`press`).
        verb: String,
        /// The item id.
        item: String,
    },
}

/// One transition of a receptacle's state machine (App. B.4's atomic logic
/// `(receptacle.before, action(item), receptacle.after, trigger)`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interaction {
    /// The receptacle whose state changes.
    pub receptacle: String,
    /// What starts it.
    #[serde(flatten)]
    pub cause: Cause,
    /// The state it applies in.
    pub from: String,
    /// The state it leads to.
    pub to: String,
    /// Extra condition; when it fails the player reads `refusal`.
    #[serde(default)]
    pub guard: Rule,
    /// Trigger fired when it happens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    /// What the player reads when the guard fails (default: "It won't budge.").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<String>,
    /// What the player reads when it happens (default: "The <name> is now <state>.").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A checkpoint: a trigger that marks progress, and the hint toward it (App. A.4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The trigger name (`picked brass_key`, `solved safe_lock`, `escaped`).
    pub trigger: String,
    /// The hint shown in hint mode while this is the next checkpoint.
    pub hint: String,
}

/// The clear condition: a receptacle (the exit door) reaching a state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exit {
    /// The receptacle id.
    pub receptacle: String,
    /// The state that ends the game.
    pub state: String,
}

/// A VisEscape room: the `vis` world's scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Room {
    /// Always `vis`.
    pub world: String,
    /// Stable id (`vis-r01`).
    pub id: String,
    /// Size class: 1 small, 2 medium, 3 large.
    pub difficulty: u32,
    /// The generator seed (0 for hand-authored rooms).
    pub seed: u64,
    /// A title for reports (`The Study`).
    pub title: String,
    /// Which wall the player faces at the start.
    pub start: Wall,
    /// Fixed objects.
    pub receptacles: Vec<Receptacle>,
    /// Movable or inspectable objects.
    pub items: Vec<Item>,
    /// Visual quizzes.
    #[serde(default)]
    pub quizzes: Vec<Quiz>,
    /// The game logic.
    pub interactions: Vec<Interaction>,
    /// Checkpoints in solving order; the last is usually the exit.
    pub checkpoints: Vec<Checkpoint>,
    /// The clear condition.
    pub exit: Exit,
    /// Hint mode (§5.4): after 30 steps without a new checkpoint the next checkpoint's
    /// hint is shown until progress resumes.
    #[serde(default)]
    pub hints: bool,
    /// Pictures imported with the room, shown instead of drawn views (absent for rooms
    /// of our own; see [`crate::pictures`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pictures: Option<crate::pictures::Pictures>,
}

impl Room {
    /// The receptacle with id `id`.
    pub fn receptacle(&self, id: &str) -> Option<&Receptacle> {
        self.receptacles.iter().find(|r| r.id == id)
    }

    /// The item with id `id`.
    pub fn item(&self, id: &str) -> Option<&Item> {
        self.items.iter().find(|i| i.id == id)
    }

    /// The quiz with id `id`.
    pub fn quiz(&self, id: &str) -> Option<&Quiz> {
        self.quizzes.iter().find(|q| q.id == id)
    }

    /// Reads a room from JSON.
    pub fn from_json(text: &str) -> Result<Room, crate::VisError> {
        let room: Room =
            serde_json::from_str(text).map_err(|e| crate::VisError::format(None, e))?;
        crate::validate::check_structure(&room)?;
        Ok(room)
    }

    /// Reads a room from TOML (the hand-authoring format).
    pub fn from_toml(text: &str) -> Result<Room, crate::VisError> {
        let room: Room = toml::from_str(text).map_err(|e| crate::VisError::format(None, e))?;
        crate::validate::check_structure(&room)?;
        Ok(room)
    }

    /// The room as pretty JSON (the scenario file format; stable bytes).
    pub fn to_json(&self) -> String {
        escapade_core::scenario::to_json(self)
    }
}
