//! Rooms from a size class and a seed, following VisEscape's game-logic constraints.
//!
//! VisEscape's rooms were designed by prompting a model with App. B.4's rules (Table 22)
//! and reviewed by hand. This generator writes rooms under the same rules, so a suite can
//! hold more rooms than anyone has the time to draw:
//!
//! 1. logic only ever changes receptacle states;
//! 2. every logic step involves an item: a key, keycard or tool used on a receptacle, a
//!    lock answered from a clue, a fuse put into a fuse box, an item picked up;
//! 3. all logic is sequential (App. A.4), so the checkpoints are the triggers in the one
//!    order a room can be solved, each with a hint written like App. A.4's: `picked` and
//!    `used` for an item gate, `solved` and `opened` for a code lock (seeing a clue fires
//!    no trigger, so opening what the code unlocked stands in for it), `picked`, `used`
//!    and `opened` for the fuse and its latch, and `escaped`.
//!
//! A room is built **backwards from the exit door**. The door is held shut by a *gate* (a
//! key, a keycard or a code lock); the gate's requirement (the key, or the lock's clue)
//! is hidden in an earlier receptacle, which is itself held shut by another gate, and so
//! on until a receptacle that opens freely starts the chain. Gates mix applicable items
//! (keys, keycards, a screwdriver on a painting, a crowbar on a crate), code locks whose
//! clue lies on a different wall from the lock (App. D.4, Fig. 16), and an electric latch
//! that only opens once a fuse is in the fuse box (a trigger enabling a guard). A
//! two-drawer chest with combined states (`closed_closed` … `open_open`) shows an item
//! only while its drawer is open. Distractor receptacles and decor fill the walls.
//!
//! Every room is checked with [`validate::lint`] before it is returned; a room that is not
//! solvable and clean is drawn again from a derived seed (at most [`MAX_ATTEMPTS`] times).
//! Randomness comes only from [`escapade_core::seed::rng`] seeded by
//! `escapade_core::seed::derive(seed, "vis/room", attempt)`, and nothing iterates a hash
//! map, so the same inputs give the same room, byte for byte.

use std::collections::BTreeSet;

use rand::Rng;
use rand::seq::{IndexedRandom, SliceRandom};

use crate::VisError;
use crate::quiz::{self, QuizKind};
use crate::room::{
    Cause, Checkpoint, CodeKind, Exit, Furniture, Interaction, Item, ItemKind, Receptacle, Room,
    Rule, Wall,
};
use crate::validate;

/// How many derived seeds are tried before [`generate`] gives up.
pub const MAX_ATTEMPTS: u64 = 24;

/// The size classes [`generate`] makes: 1 small, 2 medium, 3 large.
pub const CLASSES: std::ops::RangeInclusive<u32> = 1..=3;

/// The most receptacles one wall holds (so every wall view stays readable).
const WALL_CAPACITY: usize = 3;

/// The trigger an electric latch waits for.
const POWER_TRIGGER: &str = "power on";

/// Makes a room of size class `difficulty` (1 small, 2 medium, 3 large) from `seed`.
///
/// | class | gates (chain links) | quizzes | extras |
/// |---|---|---|---|
/// | 1 | 3 | 1 | 1 distractor |
/// | 2 | 4 | 1–2 | 1 distractor, a fuse box half the time |
/// | 3 | 5 | 2 | 1–2 distractors, a fuse box three times in four |
///
/// A gate is a key, keycard or tool used on a receptacle, a code lock, or an electric
/// latch waiting for a fuse. Each room also gets a decor item or a note now and then.
///
/// Same inputs give the same room (the same bytes from [`Room::to_json`]). The room's id
/// is `vis-gen-<difficulty>-<seed>`; suites rename it.
///
/// # Errors
/// [`VisError::Difficulty`] when `difficulty` is not 1, 2 or 3; [`VisError::Generation`] when no attempt gives
/// a solvable, lint-clean room (which would be a bug in this module).
pub fn generate(difficulty: u32, seed: u64) -> Result<Room, VisError> {
    generate_solved(difficulty, seed).map(|(room, _)| room)
}

/// [`generate`], and the oracle's solution of the room that its lint found.
pub(crate) fn generate_solved(
    difficulty: u32,
    seed: u64,
) -> Result<(Room, Option<crate::oracle::Solution>), VisError> {
    if !CLASSES.contains(&difficulty) {
        return Err(VisError::Difficulty { difficulty });
    }
    let mut last = String::new();
    for attempt in 0..MAX_ATTEMPTS {
        let mut rng =
            escapade_core::seed::rng(escapade_core::seed::derive(seed, "vis/room", attempt));
        let plan = Plan::draw(difficulty, &mut rng);
        let Some(room) = Draft::new(rng).build(difficulty, seed, &plan) else {
            last = "the layout did not fit".into();
            continue;
        };
        match validate::lint_solving(&room) {
            Ok((lint, solution)) if lint.is_clean() => return Ok((room, solution)),
            Ok((lint, _)) => last = format!("{lint:?}"),
            Err(e) => last = e.to_string(),
        }
    }
    Err(VisError::Generation {
        difficulty,
        seed,
        attempts: MAX_ATTEMPTS,
        last,
    })
}

/// The shape of one room, drawn from its size class.
#[derive(Debug, Clone)]
struct Plan {
    /// Gates from the exit backwards; `gates[0]` holds the exit door.
    gates: Vec<Gate>,
    distractors: usize,
    decor: usize,
}

/// What an applicable item opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Tool {
    Key,
    Keycard,
    Screwdriver,
    Crowbar,
}

/// What holds a receptacle shut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gate {
    /// An applicable item used on it.
    Tool(Tool),
    /// A code lock on it, answered from a clue elsewhere.
    Code(QuizKind),
    /// An electric latch that opens once the fuse box has a fuse.
    Power,
}

impl Plan {
    fn draw(difficulty: u32, rng: &mut escapade_core::seed::Rng) -> Plan {
        let decor = usize::from(rng.random_bool(0.2));
        let (n, quizzes, power, distractors) = match difficulty {
            1 => (3, 1, false, 1),
            2 => (4, rng.random_range(1..=2), rng.random_bool(0.5), 1),
            _ => (5, 2, rng.random_bool(0.75), rng.random_range(1..=2)),
        };
        let mut kinds = QuizKind::ALL.to_vec();
        kinds.shuffle(rng);
        let mut positions: Vec<usize> = (0..n).collect();
        positions.shuffle(rng);
        let code_at: Vec<usize> = positions[..quizzes].to_vec();
        let power_at = if power {
            positions[quizzes..].iter().copied().find(|&p| p != 0)
        } else {
            None
        };
        let mut used_special = BTreeSet::new();
        let mut gates = Vec::new();
        for k in 0..n {
            let gate = if let Some(q) = code_at.iter().position(|&p| p == k) {
                Gate::Code(kinds[q])
            } else if power_at == Some(k) {
                Gate::Power
            } else if k == 0 {
                Gate::Tool(*[Tool::Key, Tool::Keycard].choose(rng).unwrap_or(&Tool::Key))
            } else {
                let options = [
                    Tool::Key,
                    Tool::Key,
                    Tool::Key,
                    Tool::Keycard,
                    Tool::Screwdriver,
                    Tool::Crowbar,
                ];
                let mut tool = *options.choose(rng).unwrap_or(&Tool::Key);
                if matches!(tool, Tool::Screwdriver | Tool::Crowbar) && !used_special.insert(tool) {
                    tool = Tool::Key;
                }
                Gate::Tool(tool)
            };
            gates.push(gate);
        }
        Plan {
            gates,
            distractors,
            decor,
        }
    }
}

// ---------------------------------------------------------------------------------------
// catalogues: names players read, looks the renderer draws

/// `(furniture, name)` pools by role. Names are unique per room and none is a suffix of
/// another, so `inspect <name>` is never ambiguous.
const KEYED: &[(Furniture, &str)] = &[
    (Furniture::Wardrobe, "wardrobe"),
    (Furniture::Wardrobe, "linen cupboard"),
    (Furniture::Cabinet, "wall cabinet"),
    (Furniture::Cabinet, "filing cabinet"),
    (Furniture::Desk, "writing desk"),
    (Furniture::Chest, "wooden chest"),
    (Furniture::Chest, "sea chest"),
    (Furniture::Locker, "metal locker"),
];
const CARDED: &[(Furniture, &str)] = &[
    (Furniture::Locker, "security locker"),
    (Furniture::Cabinet, "server cabinet"),
    (Furniture::Safe, "card safe"),
];
const SCREWED: &[(Furniture, &str)] = &[
    (Furniture::Frame, "large painting"),
    (Furniture::Frame, "framed map"),
];
const NAILED: &[(Furniture, &str)] = &[
    (Furniture::Chest, "wooden crate"),
    (Furniture::Chest, "shipping crate"),
];
const CODED: &[(Furniture, &str)] = &[
    (Furniture::Safe, "steel safe"),
    (Furniture::Safe, "wall safe"),
    (Furniture::Locker, "gym locker"),
    (Furniture::Chest, "toy chest"),
    (Furniture::Cabinet, "glass cabinet"),
    (Furniture::Fridge, "fridge"),
    (Furniture::Desk, "office desk"),
    (Furniture::Wardrobe, "armoire"),
];
const POWERED: &[(Furniture, &str)] = &[
    (Furniture::Locker, "electric locker"),
    (Furniture::Cabinet, "electric cabinet"),
];
/// Receptacles that start a chain: they open without any item.
const FREE: &[(Furniture, &str)] = &[
    (Furniture::Drawers, "chest of drawers"),
    (Furniture::Drawers, "dresser"),
    (Furniture::Desk, "study desk"),
    (Furniture::Cabinet, "kitchen cabinet"),
    (Furniture::Fridge, "ice box"),
    (Furniture::Shelf, "bookshelf"),
    (Furniture::Table, "side table"),
];
const DISTRACTORS: &[(Furniture, &str)] = &[
    (Furniture::Cabinet, "spice cabinet"),
    (Furniture::Wardrobe, "coat cupboard"),
    (Furniture::Desk, "school desk"),
    (Furniture::Drawers, "nightstand"),
    (Furniture::Table, "coffee table"),
    (Furniture::Chest, "blanket box"),
    (Furniture::Shelf, "wall shelf"),
    (Furniture::Locker, "broom locker"),
];

/// `(name, look)` of applicable items by tool.
fn tool_items(tool: Tool) -> &'static [(&'static str, &'static str)] {
    match tool {
        Tool::Key => &[
            ("brass key", "golden brass"),
            ("silver key", "shiny silver"),
            ("iron key", "dark grey iron"),
            ("copper key", "reddish copper"),
            ("small key", "dull steel"),
        ],
        Tool::Keycard => &[
            ("red keycard", "red plastic"),
            ("blue keycard", "blue plastic"),
            ("green keycard", "green plastic"),
        ],
        Tool::Screwdriver => &[("screwdriver", "yellow plastic and steel")],
        Tool::Crowbar => &[("crowbar", "black iron")],
    }
}

const FUSE: (&str, &str) = ("fuse", "white ceramic");

/// `(name, look)` of clue items by quiz kind.
fn clue_items(kind: QuizKind) -> &'static [(&'static str, &'static str)] {
    match kind {
        QuizKind::ColourCount => &[
            ("tin cans", "painted tin"),
            ("toy blocks", "painted wood"),
            ("marbles", "coloured glass"),
        ],
        QuizKind::PolygonSides => &[
            ("shape drawing", "white paper"),
            ("tile panel", "glazed ceramic"),
        ],
        QuizKind::SymbolOrder => &[
            ("symbol strip", "printed card"),
            ("stone tablet", "grey stone"),
        ],
        QuizKind::Clock => &[
            ("stopped clock", "brass and glass"),
            ("pocket watch", "silver metal"),
        ],
        QuizKind::Arrows => &[
            ("arrow sign", "painted wood"),
            ("arrow card", "printed card"),
        ],
    }
}

fn lock_word(code: CodeKind) -> (&'static str, &'static str) {
    match code {
        CodeKind::Number => ("number lock", "grey metal keypad"),
        CodeKind::Letter => ("letter lock", "brass letter dials"),
        CodeKind::Direction => ("arrow lock", "black plastic arrow buttons"),
        CodeKind::Colour => ("colour lock", "painted metal buttons"),
    }
}

const DECOR: &[(&str, &str)] = &[
    ("teddy bear", "brown plush"),
    ("flower vase", "blue porcelain"),
    ("old book", "red leather"),
    ("candle", "white wax"),
    ("globe", "painted tin"),
    ("coffee mug", "white ceramic"),
    ("toy car", "green tin"),
    ("pot plant", "green clay"),
    ("woollen gloves", "grey wool"),
    ("seashell", "pink shell"),
];

const NOTES: &[(&str, &str, &str)] = &[
    (
        "shopping list",
        "yellow paper",
        "Milk, eggs, bread, batteries, string.",
    ),
    (
        "postcard",
        "glossy card",
        "Wish you were here. The sea is lovely this time of year.",
    ),
    (
        "letter",
        "cream paper",
        "Dear tenant, please keep the room tidy and the doors shut.",
    ),
    (
        "diary page",
        "lined paper",
        "Rained again today. Spent the afternoon reading.",
    ),
];

const TITLES: &[&str] = &[
    "The Study",
    "The Old Office",
    "The Attic",
    "The Guest Room",
    "The Library",
    "The Pantry",
    "The Laboratory",
    "The Cabin",
    "The Archive",
    "The Parlour",
    "The Boathouse",
    "The Storeroom",
];

// ---------------------------------------------------------------------------------------
// the draft: a room being written

/// Where something can be put inside a receptacle: the states in which it shows, and how
/// a hint says where it is.
#[derive(Debug, Clone)]
struct Spot {
    visible_in: Vec<String>,
    /// `Open the top drawer of the dresser` / `Open the wardrobe` / `Look behind the
    /// large painting` / `Look at the bookshelf`, without the wall.
    reach: String,
}

struct Draft {
    rng: escapade_core::seed::Rng,
    names: BTreeSet<String>,
    receptacles: Vec<Receptacle>,
    items: Vec<Item>,
    quizzes: Vec<crate::room::Quiz>,
    interactions: Vec<Interaction>,
    /// Receptacle index → its spots.
    spots: Vec<Vec<Spot>>,
    /// Receptacle index → how many items have been put in each spot.
    filled: Vec<Vec<usize>>,
    load: [usize; 4],
}

fn snake(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

fn states(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

impl Draft {
    fn new(rng: escapade_core::seed::Rng) -> Draft {
        Draft {
            rng,
            names: BTreeSet::new(),
            receptacles: Vec::new(),
            items: Vec::new(),
            quizzes: Vec::new(),
            interactions: Vec::new(),
            spots: Vec::new(),
            filled: Vec::new(),
            load: [0; 4],
        }
    }

    /// A name from `pool` not used yet in this room.
    fn pick<T: Copy>(&mut self, pool: &[T], name: impl Fn(&T) -> &str) -> Option<T> {
        let free: Vec<T> = pool
            .iter()
            .copied()
            .filter(|t| !self.names.contains(name(t)))
            .collect();
        let chosen = *free.choose(&mut self.rng)?;
        self.names.insert(name(&chosen).to_string());
        Some(chosen)
    }

    /// A wall with room left, avoiding `avoid` when possible (never when `must`).
    fn wall(&mut self, avoid: Option<Wall>, must: bool) -> Option<Wall> {
        let open: Vec<Wall> = Wall::ALL
            .into_iter()
            .filter(|w| self.load[w.index()] < WALL_CAPACITY)
            .collect();
        let preferred: Vec<Wall> = open.iter().copied().filter(|w| Some(*w) != avoid).collect();
        let pool = if preferred.is_empty() && !must {
            &open
        } else {
            &preferred
        };
        let wall = *pool.choose(&mut self.rng)?;
        self.load[wall.index()] += 1;
        Some(wall)
    }

    fn add_receptacle(
        &mut self,
        furniture: Furniture,
        name: &str,
        wall: Wall,
        state_names: &[&str],
        spots: Vec<Spot>,
    ) -> usize {
        self.receptacles.push(Receptacle {
            id: snake(name),
            name: name.to_string(),
            wall,
            furniture,
            states: states(state_names),
            initial: state_names[0].to_string(),
        });
        self.filled.push(vec![0; spots.len()]);
        self.spots.push(spots);
        self.receptacles.len() - 1
    }

    fn interact(&mut self, rec: usize, cause: Cause, from: &str, to: &str) -> &mut Interaction {
        self.interactions.push(Interaction {
            receptacle: self.receptacles[rec].id.clone(),
            cause,
            from: from.into(),
            to: to.into(),
            guard: Rule::Always,
            trigger: None,
            refusal: None,
            message: None,
        });
        let last = self.interactions.len() - 1;
        &mut self.interactions[last]
    }

    fn verb(&mut self, rec: usize, verb: &str, from: &str, to: &str) -> &mut Interaction {
        self.interact(rec, Cause::Verb { verb: verb.into() }, from, to)
    }

    /// `open`/`close` between `closed` and `open`.
    fn open_close(&mut self, rec: usize) {
        self.verb(rec, "open", "closed", "open");
        self.verb(rec, "close", "open", "closed");
    }

    /// A receptacle that opens freely: two-drawer chests, plain doors, open shelves.
    fn free_receptacle(&mut self, furniture: Furniture, name: &str, wall: Wall) -> usize {
        match furniture {
            Furniture::Drawers => {
                let spots = vec![
                    Spot {
                        visible_in: states(&["open_closed", "open_open"]),
                        reach: format!("Open the top drawer of the {name}"),
                    },
                    Spot {
                        visible_in: states(&["closed_open", "open_open"]),
                        reach: format!("Open the bottom drawer of the {name}"),
                    },
                ];
                let r = self.add_receptacle(
                    furniture,
                    name,
                    wall,
                    &["closed_closed", "open_closed", "closed_open", "open_open"],
                    spots,
                );
                for other in ["closed", "open"] {
                    let top_closed = format!("closed_{other}");
                    let top_open = format!("open_{other}");
                    self.verb(r, "open top drawer of", &top_closed, &top_open);
                    self.verb(r, "close top drawer of", &top_open, &top_closed);
                    let bottom_closed = format!("{other}_closed");
                    let bottom_open = format!("{other}_open");
                    self.verb(r, "open bottom drawer of", &bottom_closed, &bottom_open);
                    self.verb(r, "close bottom drawer of", &bottom_open, &bottom_closed);
                }
                r
            }
            Furniture::Shelf | Furniture::Table => {
                let spot = Spot {
                    visible_in: states(&["open"]),
                    reach: format!("Look at the {name}"),
                };
                self.add_receptacle(furniture, name, wall, &["open"], vec![spot])
            }
            _ => {
                let spot = Spot {
                    visible_in: states(&["open"]),
                    reach: format!("Open the {name}"),
                };
                let r = self.add_receptacle(furniture, name, wall, &["closed", "open"], vec![spot]);
                self.open_close(r);
                r
            }
        }
    }

    /// A receptacle held shut by `gate` (everything but the gate's own interaction).
    fn gated_receptacle(
        &mut self,
        gate: Gate,
        furniture: Furniture,
        name: &str,
        wall: Wall,
    ) -> usize {
        match gate {
            Gate::Tool(Tool::Screwdriver) => {
                let spot = Spot {
                    visible_in: states(&["off"]),
                    reach: format!("Take down the {name}"),
                };
                let r = self.add_receptacle(
                    furniture,
                    name,
                    wall,
                    &["screwed", "loose", "off"],
                    vec![spot],
                );
                self.verb(r, "take down", "loose", "off").message = Some(format!(
                    "You lift the {name} off the wall. There is a niche behind it."
                ));
                self.verb(r, "hang up", "off", "loose");
                r
            }
            Gate::Power => {
                let spot = Spot {
                    visible_in: states(&["open"]),
                    reach: format!("Look in the {name}"),
                };
                let r = self.add_receptacle(furniture, name, wall, &["closed", "open"], vec![spot]);
                let id = self.receptacles[r].id.clone();
                let open = self.verb(r, "open", "closed", "open");
                open.guard = Rule::Trigger(POWER_TRIGGER.into());
                open.trigger = Some(format!("opened {id}"));
                open.refusal = Some(format!(
                    "The {name} has an electric latch, and the latch has no power."
                ));
                self.verb(r, "close", "open", "closed");
                r
            }
            Gate::Tool(_) => {
                let spot = Spot {
                    visible_in: states(&["open"]),
                    reach: format!("Open the {name}"),
                };
                let r = self.add_receptacle(
                    furniture,
                    name,
                    wall,
                    &["locked", "closed", "open"],
                    vec![spot],
                );
                self.open_close(r);
                r
            }
            Gate::Code(_) => {
                // opening it after the code is its own checkpoint: a code gate has no
                // `picked` step, so this keeps two checkpoints per gate, as for tools
                let spot = Spot {
                    visible_in: states(&["open"]),
                    reach: format!("Look in the {name}"),
                };
                let r = self.add_receptacle(
                    furniture,
                    name,
                    wall,
                    &["locked", "closed", "open"],
                    vec![spot],
                );
                let id = self.receptacles[r].id.clone();
                self.verb(r, "open", "closed", "open").trigger = Some(format!("opened {id}"));
                self.verb(r, "close", "open", "closed");
                r
            }
        }
    }

    /// The exit door (locked, closed, open); `open` ends the game.
    fn door(&mut self, wall: Wall) -> usize {
        self.names.insert("exit door".into());
        let r = self.add_receptacle(
            Furniture::Door,
            "exit door",
            wall,
            &["locked", "closed", "open"],
            Vec::new(),
        );
        self.verb(r, "open", "closed", "open").message =
            Some("The exit door swings open. You are free.".into());
        r
    }

    /// Puts an item in receptacle `rec` (in `spot`, or the emptiest spot) and returns its
    /// index and the spot used.
    fn put(
        &mut self,
        rec: usize,
        spot: Option<usize>,
        name: &str,
        look: &str,
        kind: ItemKind,
    ) -> (usize, Spot) {
        let s = spot.unwrap_or_else(|| {
            let fill = &self.filled[rec];
            let least = fill.iter().copied().min().unwrap_or(0);
            let candidates: Vec<usize> = (0..fill.len()).filter(|&i| fill[i] == least).collect();
            *candidates.choose(&mut self.rng).unwrap_or(&0)
        });
        self.filled[rec][s] += 1;
        let spot = self.spots[rec][s].clone();
        // a tool is spent by its use and cannot be looked at closely, as the original's
        // keys (their slot empties on use; they offer no `inspect`)
        let tool = kind == ItemKind::Applicable;
        self.items.push(Item {
            id: snake(name),
            name: name.to_string(),
            kind,
            receptacle: self.receptacles[rec].id.clone(),
            visible_in: spot.visible_in.clone(),
            look: look.to_string(),
            inspectable: !tool,
            single_use: tool,
        });
        (self.items.len() - 1, spot)
    }

    /// A decor item or a note, in `rec`.
    fn filler(&mut self, rec: usize) -> Option<()> {
        if self.rng.random_bool(0.3) {
            let (name, look, text) = self.pick(NOTES, |n| n.0)?;
            self.put(rec, None, name, look, ItemKind::Note { text: text.into() });
        } else {
            let (name, look) = self.pick(DECOR, |d| d.0)?;
            self.put(rec, None, name, look, ItemKind::Decor);
        }
        Some(())
    }

    fn build(mut self, difficulty: u32, seed: u64, plan: &Plan) -> Option<Room> {
        let n = plan.gates.len();
        // furniture for chain receptacles P_1 … P_n (P_n opens freely)
        let mut chain: Vec<(Furniture, &'static str)> = Vec::new();
        for k in 1..=n {
            let pool = match plan.gates.get(k) {
                None => FREE,
                Some(Gate::Tool(Tool::Key)) => KEYED,
                Some(Gate::Tool(Tool::Keycard)) => CARDED,
                Some(Gate::Tool(Tool::Screwdriver)) => SCREWED,
                Some(Gate::Tool(Tool::Crowbar)) => NAILED,
                Some(Gate::Code(_)) => CODED,
                Some(Gate::Power) => POWERED,
            };
            chain.push(self.pick(pool, |p| p.1)?);
        }
        // walls, forwards from the start of the chain: consecutive receptacles usually sit
        // on different walls, and always when the later one has a code lock (its clue is
        // in the earlier one: Fig. 16's separation)
        let mut walls = vec![Wall::North; n + 1]; // index k: receptacle P_k, P_0 = door
        let mut previous = None;
        for k in (0..=n).rev() {
            let must = matches!(plan.gates.get(k), Some(Gate::Code(_)));
            let avoid = if must || self.rng.random_bool(0.6) {
                previous
            } else {
                None
            };
            walls[k] = self.wall(avoid, must)?;
            previous = Some(walls[k]);
        }
        // receptacles
        let door = self.door(walls[0]);
        let mut recs = vec![door];
        for k in 1..=n {
            let (furniture, name) = chain[k - 1];
            let r = match plan.gates.get(k) {
                Some(&gate) => self.gated_receptacle(gate, furniture, name, walls[k]),
                None => self.free_receptacle(furniture, name, walls[k]),
            };
            recs.push(r);
        }
        // gates: each one's interaction on P_k and its requirement in P_{k+1}
        let mut checkpoints: Vec<Vec<Checkpoint>> = Vec::new();
        for (k, &gate) in plan.gates.iter().enumerate() {
            let (r, holder) = (recs[k], recs[k + 1]);
            let r_name = self.receptacles[r].name.clone();
            let r_id = self.receptacles[r].id.clone();
            let r_wall = self.receptacles[r].wall.name();
            let h_wall = self.receptacles[holder].wall.name();
            let mut steps = Vec::new();
            match gate {
                Gate::Tool(tool) => {
                    let (name, look) = self.pick(tool_items(tool), |t| t.0)?;
                    let (item, spot) = self.put(holder, None, name, look, ItemKind::Applicable);
                    let item_id = self.items[item].id.clone();
                    let (from, to, message) = match tool {
                        Tool::Key => (
                            "locked",
                            "closed",
                            format!("The lock turns: the {r_name} is unlocked."),
                        ),
                        Tool::Keycard => (
                            "locked",
                            "closed",
                            format!(
                                "The card reader beeps and its light turns green: the {r_name} is unlocked."
                            ),
                        ),
                        Tool::Screwdriver => (
                            "screwed",
                            "loose",
                            format!("You undo the screws: the {r_name} hangs loose."),
                        ),
                        Tool::Crowbar => (
                            "locked",
                            "closed",
                            format!("You pry the nails out: the lid of the {r_name} is free."),
                        ),
                    };
                    self.interact(
                        r,
                        Cause::Item {
                            item: item_id.clone(),
                        },
                        from,
                        to,
                    )
                    .message = Some(message);
                    steps.push(Checkpoint {
                        trigger: format!("picked {item_id}"),
                        hint: format!(
                            "{} by the {h_wall} wall and pick up the {name}.",
                            spot.reach
                        ),
                    });
                    steps.push(Checkpoint {
                        trigger: format!("used {item_id}"),
                        hint: format!("Use the {name} on the {r_name} by the {r_wall} wall."),
                    });
                }
                Gate::Code(kind) => {
                    let quiz = quiz::make(kind, &format!("{r_id}_quiz"), &mut self.rng);
                    let (word, lock_look) = lock_word(quiz.code);
                    let lock_name = format!("{r_name} {word}");
                    if !self.names.insert(lock_name.clone()) {
                        return None;
                    }
                    let lock_kind = ItemKind::Lock {
                        quiz: quiz.id.clone(),
                    };
                    // the lock is on the receptacle's front, visible in every state
                    let all = self.receptacles[r].states.clone();
                    self.items.push(Item {
                        id: format!("{r_id}_lock"),
                        name: lock_name,
                        kind: lock_kind,
                        receptacle: r_id.clone(),
                        visible_in: all,
                        look: lock_look.into(),
                        inspectable: true,
                        single_use: false,
                    });
                    let lock_id = format!("{r_id}_lock");
                    let (clue_name, clue_look) = self.pick(clue_items(kind), |c| c.0)?;
                    self.put(
                        holder,
                        None,
                        clue_name,
                        clue_look,
                        ItemKind::Clue {
                            quiz: quiz.id.clone(),
                        },
                    );
                    let message = if k == 0 {
                        "The exit door is unlocked.".to_string()
                    } else {
                        format!("The {r_name} is unlocked.")
                    };
                    self.interact(
                        r,
                        Cause::Answer {
                            lock: lock_id.clone(),
                        },
                        "locked",
                        "closed",
                    )
                    .message = Some(message);
                    steps.push(Checkpoint {
                        trigger: format!("solved {lock_id}"),
                        hint: format!(
                            "Enter the code on the {r_name}'s {word} by the {r_wall} wall. The answer is {}.",
                            quiz.answer
                        ),
                    });
                    if k > 0 {
                        steps.push(Checkpoint {
                            trigger: format!("opened {r_id}"),
                            hint: format!("Open the {r_name} by the {r_wall} wall."),
                        });
                    }
                    self.quizzes.push(quiz);
                }
                Gate::Power => {
                    let (name, look) = FUSE;
                    if !self.names.insert(name.into()) {
                        return None;
                    }
                    let (item, spot) = self.put(holder, None, name, look, ItemKind::Applicable);
                    let item_id = self.items[item].id.clone();
                    if !self.names.insert("fuse box".into()) {
                        return None;
                    }
                    let wall = self.wall(Some(self.receptacles[r].wall), false)?;
                    let fuse_box = self.add_receptacle(
                        Furniture::Cabinet,
                        "fuse box",
                        wall,
                        &["off", "on"],
                        Vec::new(),
                    );
                    let fit = self.interact(
                        fuse_box,
                        Cause::Item {
                            item: item_id.clone(),
                        },
                        "off",
                        "on",
                    );
                    fit.trigger = Some(POWER_TRIGGER.into());
                    fit.message = Some(
                        "You fit the fuse. The fuse box hums and its lamp turns green.".into(),
                    );
                    steps.push(Checkpoint {
                        trigger: format!("picked {item_id}"),
                        hint: format!(
                            "{} by the {h_wall} wall and pick up the {name}.",
                            spot.reach
                        ),
                    });
                    steps.push(Checkpoint {
                        trigger: format!("used {item_id}"),
                        hint: format!(
                            "Put the fuse into the fuse box by the {} wall.",
                            wall.name()
                        ),
                    });
                    steps.push(Checkpoint {
                        trigger: format!("opened {r_id}"),
                        hint: format!(
                            "Now that the power is on, open the {r_name} by the {r_wall} wall."
                        ),
                    });
                }
            }
            checkpoints.push(steps);
        }
        // distractors: receptacles that open but hold nothing the escape needs
        for _ in 0..plan.distractors {
            let (furniture, name) = self.pick(DISTRACTORS, |d| d.1)?;
            let least = *self.load.iter().min().unwrap_or(&0);
            let wall = Wall::ALL
                .into_iter()
                .filter(|w| self.load[w.index()] == least)
                .collect::<Vec<_>>()
                .choose(&mut self.rng)
                .copied()?;
            self.load[wall.index()] += 1;
            let r = self.free_receptacle(furniture, name, wall);
            if self.rng.random_bool(0.5) {
                self.filler(r)?;
            }
        }
        // decor in the chain's receptacles, beside what matters
        for _ in 0..plan.decor {
            let holders: Vec<usize> = recs[1..].to_vec();
            let r = *holders.choose(&mut self.rng)?;
            self.filler(r)?;
        }
        let start = *Wall::ALL.choose(&mut self.rng)?;
        let title = TITLES.choose(&mut self.rng)?.to_string();
        let door_wall = self.receptacles[door].wall;
        let mut cps: Vec<Checkpoint> = checkpoints.into_iter().rev().flatten().collect();
        cps.push(Checkpoint {
            trigger: "escaped".into(),
            hint: format!(
                "Open the exit door by the {} wall and walk out.",
                door_wall.name()
            ),
        });
        // list receptacles wall by wall in a seeded order, items by receptacle, so the
        // room file does not read like the solution
        let mut order: Vec<usize> = (0..self.receptacles.len()).collect();
        order.shuffle(&mut self.rng);
        order.sort_by_key(|&r| self.receptacles[r].wall.index());
        let receptacles: Vec<Receptacle> =
            order.iter().map(|&r| self.receptacles[r].clone()).collect();
        let mut items = self.items.clone();
        items.sort_by_key(|i| receptacles.iter().position(|r| r.id == i.receptacle));
        Some(Room {
            world: "vis".into(),
            id: format!("vis-gen-{difficulty}-{seed}"),
            difficulty,
            seed,
            title,
            start,
            receptacles,
            items,
            quizzes: self.quizzes,
            interactions: self.interactions,
            checkpoints: cps,
            exit: Exit {
                receptacle: "exit_door".into(),
                state: "open".into(),
            },
            hints: false,
            pictures: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_outside_the_classes_are_refused() {
        assert!(matches!(
            generate(0, 1),
            Err(VisError::Difficulty { difficulty: 0 })
        ));
        assert!(matches!(
            generate(4, 1),
            Err(VisError::Difficulty { difficulty: 4 })
        ));
    }

    #[test]
    fn same_inputs_same_bytes() {
        for d in CLASSES {
            assert_eq!(
                generate(d, 11).unwrap().to_json(),
                generate(d, 11).unwrap().to_json()
            );
        }
        assert_ne!(
            generate(2, 1).unwrap().to_json(),
            generate(2, 2).unwrap().to_json()
        );
    }
}
