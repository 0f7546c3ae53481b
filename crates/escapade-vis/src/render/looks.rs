//! What tells two receptacles of one kind apart when nothing is written on the picture:
//! a finish (colour, material) and one telling detail, both read from the receptacle's
//! name.
//!
//! VisEscape's views are rendered rooms (App. B.3) with no name tags, so a player knows
//! the armoire from the wardrobe, or the microwave from the wall cabinet, by looking.
//! Ours do the same: every receptacle is drawn as its kind ([`Furniture`]) in the finish
//! and with the detail its name calls for (`glass cabinet`: glass panes; `gym locker`:
//! red, with air slots; `shipping crate`: rough boards with arrows stencilled on). The
//! description ([`crate::describe`]) names the same finish and detail, so text-only
//! models read what vision models see. Names the table does not know get their kind's
//! plain look.

use escapade_render::Rgb;

use super::paint::{STEEL, STEEL_LIGHT, WOOD, WOOD_DARK, WOOD_LIGHT};
use crate::room::Furniture;

/// The telling detail drawn on a receptacle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Detail {
    /// Nothing beyond the kind.
    Plain,
    /// A microwave oven: a door with a dark window, a control panel beside it.
    Microwave,
    /// A small card holder on each door or drawer front.
    CardHolders,
    /// Air vents and a column of small lights (a server cabinet).
    Server,
    /// Glass panes in the doors.
    Glass,
    /// A yellow warning triangle with a lightning bolt.
    Lightning,
    /// Long metal bar handles instead of knobs.
    BarHandles,
    /// Doors of crossed laths.
    Lattice,
    /// A carved crest on top.
    Crest,
    /// Doors of horizontal slats.
    Louvres,
    /// Air slots at the top and bottom of the door.
    Vents,
    /// Rivets around the door.
    Rivets,
    /// A broom leaning on its side.
    Broom,
    /// A wrench painted on the door.
    Wrench,
    /// Built of planks.
    Slats,
    /// Planks with two arrows stencilled on the side.
    Stencil,
    /// Rope handles at both ends.
    Ropes,
    /// Yellow stars painted on it.
    Stars,
    /// A padded lid.
    Padded,
    /// Black metal legs.
    MetalLegs,
    /// Thin steel tube legs.
    TubeLegs,
    /// Set in a wooden surround.
    Surround,
    /// A map under the glass.
    Map,
    /// A board full of holes with empty hooks.
    Pegboard,
    /// A low shelf under the top.
    LowShelf,
    /// A thick top with a vise at one end.
    Vise,
    /// A row of books at the end of each board.
    Books,
    /// An old-fashioned ice box with a chrome latch.
    IceBox,
}

/// How one receptacle looks beyond its kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Look {
    /// The body colour, when the name calls for one (else the kind's).
    pub(crate) body: Option<Rgb>,
    /// The telling detail.
    pub(crate) detail: Detail,
    /// What the description adds after the kind's noun (`painted white`), or nothing.
    pub(crate) words: &'static str,
    /// A noun in place of the kind's (`a microwave oven with one door`).
    pub(crate) noun: Option<&'static str>,
}

impl Look {
    const PLAIN: Look = Look {
        body: None,
        detail: Detail::Plain,
        words: "",
        noun: None,
    };
}

const WHITE_PAINT: Rgb = Rgb(238, 236, 228);
const CREAM: Rgb = Rgb(236, 226, 196);
const PINE: Rgb = Rgb(214, 178, 120);

/// `(kind, word in the name, body, detail, words, noun)`: the first row whose kind
/// matches and whose word the name contains gives the look.
type Row = (
    Furniture,
    &'static str,
    Option<Rgb>,
    Detail,
    &'static str,
    Option<&'static str>,
);

const TABLE: &[Row] = &[
    // cabinets
    (
        Furniture::Cabinet,
        "microwave",
        Some(WHITE_PAINT),
        Detail::Microwave,
        "white, with a dark window in its door and buttons beside it",
        Some("a microwave oven with one door"),
    ),
    (
        Furniture::Cabinet,
        "fuse",
        Some(STEEL_LIGHT),
        Detail::Lightning,
        "grey metal with a yellow lightning sign",
        Some("a fuse box with two doors"),
    ),
    (
        Furniture::Cabinet,
        "filing",
        Some(STEEL),
        Detail::CardHolders,
        "grey steel with a card holder on each door",
        None,
    ),
    (
        Furniture::Cabinet,
        "server",
        Some(Rgb(46, 48, 54)),
        Detail::Server,
        "black metal with air vents and small green lights",
        None,
    ),
    (
        Furniture::Cabinet,
        "glass",
        Some(WOOD),
        Detail::Glass,
        "glass panes in wooden doors",
        None,
    ),
    (
        Furniture::Cabinet,
        "electric",
        Some(Rgb(170, 176, 186)),
        Detail::Lightning,
        "grey metal with a yellow lightning sign",
        None,
    ),
    (
        Furniture::Cabinet,
        "kitchen",
        Some(WHITE_PAINT),
        Detail::BarHandles,
        "painted white, with long metal handles",
        None,
    ),
    (
        Furniture::Cabinet,
        "spice",
        Some(Rgb(150, 62, 48)),
        Detail::Lattice,
        "dark red, with lattice doors",
        None,
    ),
    // wardrobes and cupboards
    (
        Furniture::Wardrobe,
        "armoire",
        Some(WOOD_DARK),
        Detail::Crest,
        "dark wood with a carved crest on top",
        None,
    ),
    (
        Furniture::Wardrobe,
        "linen",
        Some(WHITE_PAINT),
        Detail::BarHandles,
        "painted white, with long metal handles",
        None,
    ),
    (
        Furniture::Wardrobe,
        "coat",
        Some(WOOD_LIGHT),
        Detail::Louvres,
        "light wood with slatted doors",
        None,
    ),
    (
        Furniture::Wardrobe,
        "pantry",
        Some(Rgb(176, 204, 170)),
        Detail::Plain,
        "painted pale green",
        None,
    ),
    // lockers
    (
        Furniture::Locker,
        "gym",
        Some(Rgb(196, 64, 56)),
        Detail::Vents,
        "red metal with air slots at the top and bottom of its door",
        None,
    ),
    (
        Furniture::Locker,
        "security",
        Some(Rgb(72, 76, 86)),
        Detail::Rivets,
        "dark grey steel with rivets around its door",
        None,
    ),
    (
        Furniture::Locker,
        "electric",
        Some(Rgb(226, 190, 60)),
        Detail::Lightning,
        "yellow metal with a lightning sign",
        None,
    ),
    (
        Furniture::Locker,
        "broom",
        Some(Rgb(84, 146, 96)),
        Detail::Broom,
        "green metal, a broom leaning on its side",
        None,
    ),
    (
        Furniture::Locker,
        "tool",
        Some(Rgb(232, 132, 44)),
        Detail::Wrench,
        "orange metal with a wrench painted on its door",
        None,
    ),
    // chests and crates
    (
        Furniture::Chest,
        "shipping",
        Some(Rgb(176, 136, 84)),
        Detail::Stencil,
        "rough planks with two arrows stencilled on the front",
        Some("a wooden crate with a lid"),
    ),
    (
        Furniture::Chest,
        "crate",
        Some(PINE),
        Detail::Slats,
        "pale planks",
        Some("a wooden crate with a lid"),
    ),
    (
        Furniture::Chest,
        "sea",
        Some(Rgb(92, 60, 36)),
        Detail::Ropes,
        "dark wood with rope handles",
        None,
    ),
    (
        Furniture::Chest,
        "toy",
        Some(Rgb(200, 56, 52)),
        Detail::Stars,
        "painted red with yellow stars",
        None,
    ),
    (
        Furniture::Chest,
        "blanket",
        Some(CREAM),
        Detail::Padded,
        "cream, with a padded lid",
        None,
    ),
    // desks
    (
        Furniture::Desk,
        "office",
        Some(Rgb(170, 172, 176)),
        Detail::MetalLegs,
        "a grey top on black metal legs",
        None,
    ),
    (
        Furniture::Desk,
        "school",
        Some(Rgb(96, 150, 100)),
        Detail::TubeLegs,
        "a green top on thin steel legs",
        None,
    ),
    (
        Furniture::Desk,
        "writing",
        Some(WOOD_DARK),
        Detail::Plain,
        "dark wood",
        None,
    ),
    // safes
    (
        Furniture::Safe,
        "card",
        Some(Rgb(50, 62, 92)),
        Detail::Plain,
        "dark blue steel",
        None,
    ),
    (
        Furniture::Safe,
        "wall",
        None,
        Detail::Surround,
        "grey steel set in a wooden surround",
        None,
    ),
    // chests of drawers
    (
        Furniture::Drawers,
        "dresser",
        Some(WHITE_PAINT),
        Detail::Plain,
        "painted white",
        None,
    ),
    (
        Furniture::Drawers,
        "nightstand",
        Some(WOOD_DARK),
        Detail::Plain,
        "dark wood",
        None,
    ),
    (
        Furniture::Drawers,
        "kitchen",
        Some(WHITE_PAINT),
        Detail::BarHandles,
        "painted white, with long metal handles",
        None,
    ),
    (
        Furniture::Drawers,
        "parts",
        Some(STEEL),
        Detail::CardHolders,
        "grey steel with a card holder on each drawer",
        None,
    ),
    // frames
    (
        Furniture::Frame,
        "map",
        None,
        Detail::Map,
        "a map of a coast in a dark frame",
        Some("a framed map"),
    ),
    (
        Furniture::Frame,
        "pegboard",
        Some(Rgb(150, 112, 70)),
        Detail::Pegboard,
        "a brown board full of small holes, with empty hooks",
        Some("a pegboard"),
    ),
    // tables
    (
        Furniture::Table,
        "coffee",
        Some(WOOD_DARK),
        Detail::LowShelf,
        "dark wood with a low shelf under the top",
        None,
    ),
    (
        Furniture::Table,
        "workbench",
        Some(PINE),
        Detail::Vise,
        "a thick pale top with a vise at one end",
        Some("a workbench"),
    ),
    // shelves
    (
        Furniture::Shelf,
        "book",
        None,
        Detail::Books,
        "with a row of books at the end of each board",
        None,
    ),
    // fridges
    (
        Furniture::Fridge,
        "ice box",
        Some(CREAM),
        Detail::IceBox,
        "cream and rounded, with a chrome latch",
        Some("an old-fashioned ice box"),
    ),
];

/// The look of a receptacle of kind `f` named `name` (see the module docs).
pub(crate) fn look(f: Furniture, name: &str) -> Look {
    let name = name.to_ascii_lowercase();
    TABLE
        .iter()
        .find(|(kind, word, ..)| *kind == f && name.contains(word))
        .map_or(Look::PLAIN, |&(_, _, body, detail, words, noun)| Look {
            body,
            detail,
            words,
            noun,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_pick_their_look_and_unknown_names_stay_plain() {
        assert_eq!(
            look(Furniture::Cabinet, "Glass Cabinet").detail,
            Detail::Glass
        );
        assert_eq!(
            look(Furniture::Chest, "shipping crate").detail,
            Detail::Stencil
        );
        assert_eq!(look(Furniture::Chest, "wooden crate").detail, Detail::Slats);
        // a word only counts for its kind
        assert_eq!(look(Furniture::Locker, "glass locker"), Look::PLAIN);
        assert_eq!(look(Furniture::Desk, "mystery desk"), Look::PLAIN);
    }
}
