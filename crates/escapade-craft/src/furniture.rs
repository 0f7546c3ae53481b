//! The furniture catalogue: what each room type holds, built from primitives.
//!
//! Why: EscapeCraft furnishes its rooms from per-style collections of annotated 3D models
//! (App. C.1.1, after ProcTHOR), and its rooms are full of things (§3.3 counts 15 to 20
//! objects a room). escapade has no Unity assets, so every piece is drawn from boxes,
//! cylinders, cones, balls and textured quads at real-world sizes (metres), with enough
//! parts — drawers and handles, cushions, leaves, a lamp's shade, a painting in its frame
//! — that a player recognises it. A kind knows its size, where it goes ([`Mount`]: against
//! a wall, free on the floor, hung on a wall, or on another piece), its parts ([`parts`]),
//! its pictures ([`textures`]), its footprint ([`footprint`]) and the places a prop can
//! sit ([`surfaces`]: a top, or an open compartment inside, seen from the front).
//!
//! Local frame of a piece: origin at the centre of its footprint on its base, width along
//! `x`, depth along `z`, its front facing `+z`. A [`Placement`] turns it by quarter turns
//! about `y` (clockwise seen from above, like the camera's yaw) and moves it; a hung
//! piece's base is its bottom edge, `y` metres up the wall.

use escapade_render::scene::{Material, Shape, Texture, Vec3};
use escapade_render::{RenderError, Rgb};
use serde::{Deserialize, Serialize};

use crate::art::{self, Art};
use crate::geom::Rect;
use crate::room::RoomKind;

/// Declares the kinds once: the enum and [`FurnitureKind::ALL`] in the same order.
macro_rules! kinds {
    ($($kind:ident),* $(,)?) => {
        /// Every piece of furniture and decor the generator knows.
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
        )]
        #[serde(rename_all = "snake_case")]
        #[allow(missing_docs)] // the names say what they are; sizes are in `spec`
        pub enum FurnitureKind {
            $($kind),*
        }

        impl FurnitureKind {
            /// Every kind, in declaration order.
            pub const ALL: [FurnitureKind; [$(stringify!($kind)),*].len()] =
                [$(FurnitureKind::$kind),*];
        }
    };
}

kinds!(
    DiningTable,
    CoffeeTable,
    Chair,
    Sofa,
    Armchair,
    Bed,
    Nightstand,
    Wardrobe,
    Dresser,
    Desk,
    Bookshelf,
    Cabinet,
    Shelf,
    Counter,
    KitchenSink,
    Stove,
    Fridge,
    Vanity,
    Bathtub,
    Toilet,
    WashingMachine,
    Television,
    FloorLamp,
    Rug,
    Plant,
    SideTable,
    Stool,
    Bin,
    Basket,
    // hung on a wall
    Picture,
    Mirror,
    Clock,
    WallShelf,
    UpperCabinet,
    TowelRail,
    // small decor that stands on other furniture
    Cup,
    Vase,
    Books,
    Bottle,
    FruitBowl,
    Pot,
    Towel,
    TableLamp,
    Candles,
    Laptop,
    Teapot,
    PottedHerb,
    PhotoFrame,
    Bowl,
    Jar,
    AlarmClock,
    SoapDispenser,
);

/// Where a kind goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mount {
    /// Back against a wall, facing into the room.
    Wall,
    /// Anywhere on the floor, away from walls.
    Free,
    /// Hung on a wall, off the floor (pictures, mirrors, wall cabinets).
    Hung,
    /// On another piece's surface (decor).
    Surface,
}

/// A flat place a prop (or decor) can stand on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SurfaceKind {
    /// The piece's top.
    Top,
    /// An open compartment inside (a shelf board, an open cubby), visible from the front.
    Inside,
}

/// A surface in the room's frame.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Surface {
    /// Top or inside.
    pub kind: SurfaceKind,
    /// Height of the surface above the floor, metres.
    pub y: f32,
    /// The usable area.
    pub area: Rect,
    /// The tallest thing that fits (the board above, for an inside surface), metres.
    pub headroom: f32,
}

/// Size and use of a kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spec {
    /// Width (local `x`), height, depth (local `z`), metres.
    pub size: [f32; 3],
    /// Where it goes.
    pub mount: Mount,
    /// Whether it blocks walking (a rug or a picture does not).
    pub blocks: bool,
}

/// How a piece is put in the room.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    /// Centre of the footprint, `x`.
    pub x: f32,
    /// Height of its base (0 on the floor, a surface's height for decor, the bottom
    /// edge for a hung piece).
    pub y: f32,
    /// Centre of the footprint, `z`.
    pub z: f32,
    /// Quarter turns clockwise seen from above: 0 faces `+z`, 1 faces `+x`, 2 `-z`,
    /// 3 `-x`.
    pub turns: u8,
}

impl Placement {
    /// Maps a local `(x, z)` to the room's frame.
    pub fn to_room(&self, lx: f32, lz: f32) -> (f32, f32) {
        let (dx, dz) = match self.turns % 4 {
            0 => (lx, lz),
            1 => (lz, -lx),
            2 => (-lx, -lz),
            _ => (-lz, lx),
        };
        (self.x + dx, self.z + dz)
    }

    /// Maps a local rectangle to the room's frame.
    pub fn rect_to_room(&self, r: Rect) -> Rect {
        let (ax, az) = self.to_room(r.x0, r.z0);
        let (bx, bz) = self.to_room(r.x1, r.z1);
        Rect {
            x0: ax.min(bx),
            z0: az.min(bz),
            x1: ax.max(bx),
            z1: az.max(bz),
        }
    }
}

impl FurnitureKind {
    /// Its size and use.
    pub fn spec(self) -> Spec {
        use FurnitureKind::*;
        use Mount::*;
        let s = |w, h, d, mount| Spec {
            size: [w, h, d],
            mount,
            blocks: matches!(mount, Wall | Free),
        };
        match self {
            DiningTable => s(1.4, 0.75, 0.8, Free),
            CoffeeTable => s(1.0, 0.45, 0.55, Free),
            Chair => s(0.45, 0.9, 0.5, Free),
            Sofa => s(2.0, 0.85, 0.9, Wall),
            Armchair => s(0.85, 0.85, 0.85, Wall),
            Bed => s(1.6, 1.0, 2.05, Wall),
            Nightstand => s(0.45, 0.55, 0.4, Wall),
            Wardrobe => s(1.0, 2.0, 0.6, Wall),
            Dresser => s(1.2, 0.85, 0.5, Wall),
            Desk => s(1.2, 0.75, 0.6, Wall),
            Bookshelf => s(0.8, 1.8, 0.35, Wall),
            Cabinet => s(1.0, 0.9, 0.45, Wall),
            Shelf => s(0.9, 1.0, 0.35, Wall),
            Counter => s(1.2, 0.9, 0.6, Wall),
            KitchenSink => s(1.0, 0.9, 0.6, Wall),
            Stove => s(0.6, 0.9, 0.6, Wall),
            Fridge => s(0.7, 1.8, 0.7, Wall),
            Vanity => s(0.8, 0.85, 0.5, Wall),
            Bathtub => s(1.7, 0.55, 0.75, Wall),
            Toilet => s(0.4, 0.8, 0.7, Wall),
            WashingMachine => s(0.6, 0.85, 0.6, Wall),
            Television => s(1.4, 1.15, 0.45, Wall),
            FloorLamp => s(0.4, 1.6, 0.4, Wall),
            Rug => Spec {
                size: [2.0, 0.01, 1.4],
                mount: Free,
                blocks: false,
            },
            Plant => s(0.5, 1.1, 0.5, Wall),
            SideTable => s(0.45, 0.55, 0.45, Wall),
            Stool => s(0.38, 0.65, 0.38, Free),
            Bin => s(0.3, 0.42, 0.3, Wall),
            Basket => s(0.5, 0.45, 0.38, Wall),
            Picture => s(0.7, 0.5, 0.04, Hung),
            Mirror => s(0.55, 0.8, 0.04, Hung),
            Clock => s(0.34, 0.34, 0.05, Hung),
            WallShelf => s(0.7, 0.3, 0.22, Hung),
            UpperCabinet => s(0.8, 0.7, 0.35, Hung),
            TowelRail => s(0.6, 0.5, 0.1, Hung),
            Cup => s(0.11, 0.1, 0.08, Surface),
            Vase => s(0.14, 0.34, 0.14, Surface),
            Books => s(0.25, 0.1, 0.18, Surface),
            Bottle => s(0.07, 0.28, 0.07, Surface),
            FruitBowl => s(0.26, 0.12, 0.26, Surface),
            Pot => s(0.28, 0.15, 0.2, Surface),
            Towel => s(0.3, 0.08, 0.2, Surface),
            TableLamp => s(0.26, 0.45, 0.26, Surface),
            Candles => s(0.16, 0.16, 0.1, Surface),
            Laptop => s(0.34, 0.23, 0.24, Surface),
            Teapot => s(0.24, 0.18, 0.16, Surface),
            PottedHerb => s(0.16, 0.26, 0.16, Surface),
            PhotoFrame => s(0.16, 0.2, 0.06, Surface),
            Bowl => s(0.18, 0.07, 0.18, Surface),
            Jar => s(0.1, 0.16, 0.1, Surface),
            AlarmClock => s(0.12, 0.11, 0.06, Surface),
            SoapDispenser => s(0.07, 0.18, 0.07, Surface),
        }
    }

    /// Lowercase name with spaces, as a player would say it (`dining table`).
    pub fn label(self) -> &'static str {
        use FurnitureKind::*;
        match self {
            DiningTable => "dining table",
            CoffeeTable => "coffee table",
            Chair => "chair",
            Sofa => "sofa",
            Armchair => "armchair",
            Bed => "bed",
            Nightstand => "nightstand",
            Wardrobe => "wardrobe",
            Dresser => "dresser",
            Desk => "desk",
            Bookshelf => "bookshelf",
            Cabinet => "cabinet",
            Shelf => "shelf",
            Counter => "counter",
            KitchenSink => "kitchen sink",
            Stove => "stove",
            Fridge => "fridge",
            Vanity => "washbasin",
            Bathtub => "bathtub",
            Toilet => "toilet",
            WashingMachine => "washing machine",
            Television => "television",
            FloorLamp => "floor lamp",
            Rug => "rug",
            Plant => "plant",
            SideTable => "side table",
            Stool => "stool",
            Bin => "waste bin",
            Basket => "laundry basket",
            Picture => "picture",
            Mirror => "mirror",
            Clock => "wall clock",
            WallShelf => "wall shelf",
            UpperCabinet => "wall cabinet",
            TowelRail => "towel rail",
            Cup => "mug",
            Vase => "vase of flowers",
            Books => "books",
            Bottle => "bottle",
            FruitBowl => "fruit bowl",
            Pot => "cooking pot",
            Towel => "towel",
            TableLamp => "table lamp",
            Candles => "candles",
            Laptop => "laptop",
            Teapot => "teapot",
            PottedHerb => "potted herb",
            PhotoFrame => "photo frame",
            Bowl => "bowl",
            Jar => "jar",
            AlarmClock => "alarm clock",
            SoapDispenser => "soap dispenser",
        }
    }

    /// Whether it is small decor standing on other furniture.
    pub fn is_decor(self) -> bool {
        self.spec().mount == Mount::Surface
    }

    /// Whether it stands on the floor (against a wall or free), taking floor space.
    pub fn stands_on_floor(self) -> bool {
        matches!(self.spec().mount, Mount::Wall | Mount::Free)
    }

    /// Whether it hangs on a wall.
    pub fn is_hung(self) -> bool {
        self.spec().mount == Mount::Hung
    }

    /// Where a hung piece's bottom edge goes, metres above the floor.
    pub fn hang_height(self) -> f32 {
        use FurnitureKind::*;
        match self {
            Picture => 1.35,
            Mirror => 1.1,
            Clock => 1.75,
            WallShelf => 1.3,
            UpperCabinet => 1.45,
            TowelRail => 0.95,
            _ => 0.0,
        }
    }
}

/// What a room type holds: pieces it always has, pieces drawn at random, decor for
/// surfaces, things to hang on its walls.
#[derive(Debug, Clone, Copy)]
pub struct Catalogue {
    /// Always placed (in this order, largest first).
    pub required: &'static [FurnitureKind],
    /// Drawn from at random.
    pub optional: &'static [FurnitureKind],
    /// Small things for surfaces.
    pub decor: &'static [FurnitureKind],
    /// Things hung on the walls.
    pub hung: &'static [FurnitureKind],
}

/// The collection of a room type (App. C.1.1: each style has its typical objects).
pub fn catalogue(room: RoomKind) -> Catalogue {
    use FurnitureKind::*;
    match room {
        RoomKind::LivingRoom => Catalogue {
            required: &[Sofa, Television, CoffeeTable],
            optional: &[
                Armchair, Bookshelf, Cabinet, Shelf, FloorLamp, Plant, Rug, SideTable, Dresser,
                Desk, Chair, Plant, Bin,
            ],
            decor: &[
                Vase, Books, Cup, FruitBowl, TableLamp, Candles, PottedHerb, PhotoFrame, Bowl,
                Books, AlarmClock,
            ],
            hung: &[Picture, Picture, Clock, Mirror, WallShelf],
        },
        RoomKind::Kitchen => Catalogue {
            required: &[Counter, KitchenSink, Stove, Fridge, DiningTable],
            optional: &[
                Chair, Chair, Cabinet, Shelf, Counter, Plant, Stool, Bin, Chair,
            ],
            decor: &[
                Pot, Cup, FruitBowl, Bottle, Vase, Teapot, Bowl, Jar, PottedHerb, Cup,
            ],
            hung: &[UpperCabinet, UpperCabinet, Clock, Picture, WallShelf],
        },
        RoomKind::Bathroom => Catalogue {
            required: &[Bathtub, Toilet, Vanity],
            optional: &[WashingMachine, Cabinet, Shelf, Plant, Basket, Bin, Stool],
            decor: &[
                Towel,
                Bottle,
                Cup,
                SoapDispenser,
                Candles,
                PottedHerb,
                Jar,
                Towel,
            ],
            hung: &[Mirror, TowelRail, Picture, WallShelf, TowelRail],
        },
        RoomKind::Bedroom => Catalogue {
            required: &[Bed, Nightstand, Wardrobe],
            optional: &[
                Nightstand, Dresser, Desk, Chair, Bookshelf, FloorLamp, Plant, Rug, Armchair,
                Television, Basket, Bin, SideTable,
            ],
            decor: &[
                Books, Vase, Cup, TableLamp, AlarmClock, PhotoFrame, Candles, PottedHerb, Laptop,
                Books,
            ],
            hung: &[Picture, Picture, Mirror, Clock, WallShelf],
        },
    }
}

/// The footprint of a piece on the floor (for decor: on the surface it stands on; for a
/// hung piece: the strip of wall it covers, seen from above).
pub fn footprint(kind: FurnitureKind, pl: &Placement) -> Rect {
    let [w, _, d] = kind.spec().size;
    pl.rect_to_room(Rect::centered(0.0, 0.0, w, d))
}

/// Its height, metres.
pub fn height(kind: FurnitureKind) -> f32 {
    kind.spec().size[1]
}

/// The share of a bookshelf's or shelf's board width that holds books, from the left
/// (the rest is free for props and decor).
const BOOKS_SHARE: f32 = 0.45;

/// Where props can sit on or in it, in the room's frame.
pub fn surfaces(kind: FurnitureKind, pl: &Placement) -> Vec<Surface> {
    use FurnitureKind::*;
    let [w, h, d] = kind.spec().size;
    let local = |kind, y: f32, r: Rect, headroom| Surface {
        kind,
        y: pl.y + y,
        area: pl.rect_to_room(r),
        headroom,
    };
    let top = |inset: f32| {
        local(
            SurfaceKind::Top,
            h,
            Rect::centered(0.0, 0.0, w, d).grow(-inset),
            1.0,
        )
    };
    // the free part of a board whose left share holds books
    let board = |y: f32, headroom: f32| {
        let inner = w - 0.08;
        local(
            SurfaceKind::Inside,
            y,
            Rect {
                x0: -inner / 2.0 + inner * BOOKS_SHARE + 0.02,
                z0: -d / 2.0 + 0.03,
                x1: inner / 2.0,
                z1: d / 2.0 - 0.02,
            },
            headroom,
        )
    };
    match kind {
        DiningTable | CoffeeTable | Desk | Dresser | Counter | Nightstand | WashingMachine => {
            vec![top(0.04)]
        }
        SideTable => vec![local(
            SurfaceKind::Top,
            h,
            Rect::centered(0.0, 0.0, 0.3, 0.3),
            1.0,
        )],
        Cabinet => vec![
            top(0.04),
            // the open cubby on the right-hand side
            local(
                SurfaceKind::Inside,
                0.08,
                Rect {
                    x0: 0.06,
                    z0: -d / 2.0 + 0.04,
                    x1: w / 2.0 - 0.06,
                    z1: d / 2.0 - 0.02,
                },
                0.35,
            ),
        ],
        // on the boards (3 cm thick), below the next one
        Shelf => vec![top(0.03), board(0.53, 0.42)],
        Bookshelf => [0.48, 0.93, 1.38].iter().map(|&y| board(y, 0.38)).collect(),
        Vanity => vec![local(
            SurfaceKind::Top,
            h,
            Rect {
                x0: -w / 2.0 + 0.04,
                z0: -d / 2.0 + 0.04,
                x1: -0.22,
                z1: d / 2.0 - 0.04,
            },
            1.0,
        )],
        Television => vec![local(
            SurfaceKind::Top,
            0.5,
            Rect {
                x0: -w / 2.0 + 0.04,
                z0: -d / 2.0 + 0.04,
                x1: w / 2.0 - 0.04,
                z1: d / 2.0 - 0.04,
            },
            0.5,
        )],
        Toilet => vec![local(
            SurfaceKind::Top,
            h,
            Rect {
                x0: -w / 2.0 + 0.03,
                z0: -d / 2.0 + 0.02,
                x1: w / 2.0 - 0.03,
                z1: -d / 2.0 + 0.18,
            },
            1.0,
        )],
        _ => Vec::new(),
    }
}

/// The materials of a style (0..4), so two rooms of a type do not look alike.
struct Palette {
    wood: Material,
    /// A lighter wood, for drawer fronts and doors.
    wood_light: Material,
    fabric: Material,
    /// The fabric's darker tone (a sofa's base, a blanket's fold).
    fabric_dark: Material,
    accent: Rgb,
}

fn palette(style: u8) -> Palette {
    let woods = [
        (Rgb(176, 128, 82), Rgb(138, 94, 56)),
        (Rgb(120, 80, 50), Rgb(90, 58, 36)),
        (Rgb(212, 180, 140), Rgb(180, 146, 106)),
        (Rgb(150, 110, 90), Rgb(116, 80, 64)),
    ];
    let fabrics = [
        (Rgb(70, 100, 150), Rgb(56, 82, 126)),
        (Rgb(150, 60, 60), Rgb(126, 48, 48)),
        (Rgb(90, 130, 90), Rgb(72, 108, 72)),
        (Rgb(190, 170, 130), Rgb(162, 144, 108)),
    ];
    let accents = [
        Rgb(230, 200, 80),
        Rgb(200, 90, 60),
        Rgb(80, 160, 190),
        Rgb(170, 110, 180),
    ];
    let i = (style % 4) as usize;
    let (light, dark) = woods[i];
    let (base, weave) = fabrics[i];
    let lift = |c: Rgb| c.mix(Rgb(255, 240, 220), 40);
    Palette {
        wood: Material::Wood {
            light,
            dark,
            scale: 0.05,
        },
        wood_light: Material::Wood {
            light: lift(light),
            dark: lift(dark),
            scale: 0.05,
        },
        fabric: Material::Fabric { base, weave },
        fabric_dark: Material::Fabric {
            base: base.mix(Rgb(0, 0, 0), 50),
            weave: weave.mix(Rgb(0, 0, 0), 50),
        },
        accent: accents[i],
    }
}

fn flat(r: u8, g: u8, b: u8) -> Material {
    Material::Flat(Rgb(r, g, b))
}

/// Book spine colours, picked by position so a row looks varied.
const SPINES: [Rgb; 7] = [
    Rgb(150, 40, 40),
    Rgb(40, 70, 130),
    Rgb(220, 190, 90),
    Rgb(50, 110, 70),
    Rgb(230, 226, 214),
    Rgb(110, 60, 110),
    Rgb(40, 40, 44),
];

struct Builder<'a> {
    pl: &'a Placement,
    out: Vec<(Shape, Material)>,
}

impl Builder<'_> {
    /// A box between local corners `(x0, y0, z0)` and `(x1, y1, z1)`.
    #[allow(clippy::too_many_arguments)]
    fn cuboid(&mut self, x0: f32, y0: f32, z0: f32, x1: f32, y1: f32, z1: f32, m: &Material) {
        let r = self.pl.rect_to_room(Rect { x0, z0, x1, z1 });
        self.out.push((
            Shape::Cuboid {
                min: Vec3::new(r.x0, self.pl.y + y0, r.z0),
                max: Vec3::new(r.x1, self.pl.y + y1, r.z1),
            },
            m.clone(),
        ));
    }

    fn room_point(&self, x: f32, y: f32, z: f32) -> Vec3 {
        let (wx, wz) = self.pl.to_room(x, z);
        Vec3::new(wx, self.pl.y + y, wz)
    }

    /// An upright cylinder standing at local `(x, y, z)`.
    fn cylinder(&mut self, x: f32, y: f32, z: f32, radius: f32, height: f32, m: &Material) {
        let base = self.room_point(x, y, z);
        self.out.push((
            Shape::Cylinder {
                base,
                radius,
                height,
            },
            m.clone(),
        ));
    }

    /// An upright truncated cone standing at local `(x, y, z)`: radius `r0` at the
    /// bottom, `r1` at the top.
    #[allow(clippy::too_many_arguments)]
    fn cone(&mut self, x: f32, y: f32, z: f32, r0: f32, r1: f32, height: f32, m: &Material) {
        let base = self.room_point(x, y, z);
        self.out.push((
            Shape::Cone {
                base,
                radius: r0,
                top: r1,
                height,
            },
            m.clone(),
        ));
    }

    /// A ball centred at local `(x, y, z)`.
    fn ball(&mut self, x: f32, y: f32, z: f32, radius: f32, m: &Material) {
        let center = self.room_point(x, y, z);
        self.out.push((Shape::Sphere { center, radius }, m.clone()));
    }

    /// A picture facing the front (`+z`) in the plane `z`, centred at local `(x, y)`,
    /// `hw` × `hh` half-extents, showing texture `tex` upright to a viewer in front.
    #[allow(clippy::too_many_arguments)]
    fn front_picture(&mut self, x: f32, y: f32, z: f32, hw: f32, hh: f32, tex: usize) {
        let center = self.room_point(x, y, z);
        // a viewer in front looks along -z: their right is local -x
        let (rx, rz) = self.pl.to_room(-hw, 0.0);
        let u = Vec3::new(rx - self.pl.x, 0.0, rz - self.pl.z);
        let v = Vec3::new(0.0, hh, 0.0);
        self.out
            .push((Shape::Quad { center, u, v }, Material::Texture(tex)));
    }

    /// A picture lying face up at height `y`, centred at local `(x, z)`.
    #[allow(clippy::too_many_arguments)]
    fn top_picture(&mut self, x: f32, y: f32, z: f32, hw: f32, hd: f32, tex: usize) {
        let center = self.room_point(x, y, z);
        let (ux, uz) = self.pl.to_room(-hw, 0.0);
        let (vx, vz) = self.pl.to_room(0.0, -hd);
        let u = Vec3::new(ux - self.pl.x, 0.0, uz - self.pl.z);
        let v = Vec3::new(vx - self.pl.x, 0.0, vz - self.pl.z);
        self.out
            .push((Shape::Quad { center, u, v }, Material::Texture(tex)));
    }

    /// Four square legs of side `t` under a `w` × `d` top at height `h`.
    fn legs(&mut self, w: f32, d: f32, h: f32, t: f32, m: &Material) {
        for (sx, sz) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
            let (cx, cz) = (sx * (w / 2.0 - t), sz * (d / 2.0 - t));
            self.cuboid(
                cx - t / 2.0,
                0.0,
                cz - t / 2.0,
                cx + t / 2.0,
                h,
                cz + t / 2.0,
                m,
            );
        }
    }

    /// A drawer or door front on the face `z` of a body: a slightly proud panel and a
    /// bar handle across its top third (or a knob, for a narrow front).
    #[allow(clippy::too_many_arguments)]
    fn front(
        &mut self,
        x0: f32,
        y0: f32,
        x1: f32,
        y1: f32,
        z: f32,
        panel: &Material,
        metal: &Material,
    ) {
        self.cuboid(x0, y0, z, x1, y1, z + 0.012, panel);
        let (cx, w) = ((x0 + x1) / 2.0, x1 - x0);
        let hy = y1 - (y1 - y0) * 0.25;
        let (half_w, half_h) = if w > 0.3 {
            (0.07, 0.008)
        } else {
            (0.012, 0.012)
        };
        self.handle(cx, hy, half_w, half_h, z, metal);
    }

    /// A handle centred on `(x, y)`, `2 half_w` wide and `2 half_h` high, standing proud
    /// of a front whose face is at `z` (a front's panel is 12 mm thick; the handle stands
    /// 18 mm beyond it).
    fn handle(&mut self, x: f32, y: f32, half_w: f32, half_h: f32, z: f32, metal: &Material) {
        self.cuboid(
            x - half_w,
            y - half_h,
            z + 0.012,
            x + half_w,
            y + half_h,
            z + 0.03,
            metal,
        );
    }

    /// A door front with its handle near the edge `side` (-1 left, +1 right, seen
    /// from the front: local `-x` is the viewer's right).
    #[allow(clippy::too_many_arguments)]
    fn door(
        &mut self,
        x0: f32,
        y0: f32,
        x1: f32,
        y1: f32,
        z: f32,
        panel: &Material,
        metal: &Material,
        side: f32,
    ) {
        self.cuboid(x0, y0, z, x1, y1, z + 0.012, panel);
        let hx = if side > 0.0 { x0 + 0.05 } else { x1 - 0.05 };
        let (ym, hh) = ((y0 + y1) / 2.0, ((y1 - y0) * 0.15).min(0.12));
        self.handle(hx, ym, 0.01, hh, z, metal);
    }

    /// Two doors side by side between `x0` and `x1`, meeting in the middle, their
    /// handles by the gap.
    #[allow(clippy::too_many_arguments)]
    fn doors(
        &mut self,
        x0: f32,
        y0: f32,
        x1: f32,
        y1: f32,
        z: f32,
        panel: &Material,
        metal: &Material,
    ) {
        self.door(x0, y0, -0.005, y1, z, panel, metal, -1.0);
        self.door(0.005, y0, x1, y1, z, panel, metal, 1.0);
    }

    /// A row of book spines standing on a board at height `y` from `x0` to `x1`, at most
    /// `tall` high, the first colour picked by `seed`.
    #[allow(clippy::too_many_arguments)]
    fn book_row(&mut self, x0: f32, x1: f32, y: f32, z0: f32, z1: f32, tall: f32, seed: usize) {
        let mut x = x0;
        let mut i = seed;
        while x + 0.03 <= x1 {
            let thick = [0.035, 0.05, 0.03, 0.045, 0.04][i % 5];
            let height = tall * [0.92, 0.78, 1.0, 0.85, 0.7, 0.95][i % 6];
            let x2 = (x + thick).min(x1);
            let m = Material::Flat(SPINES[i % SPINES.len()]);
            self.cuboid(
                x,
                y,
                z0 + 0.01 * (i % 3) as f32,
                x2 - 0.003,
                y + height,
                z1,
                &m,
            );
            x = x2;
            i += 1;
        }
    }

    /// A cluster of leaves: balls of two greens around `(x, y, z)`, `r` across.
    fn leaves(&mut self, x: f32, y: f32, z: f32, r: f32) {
        let green = Material::Fabric {
            base: Rgb(58, 118, 58),
            weave: Rgb(44, 96, 46),
        };
        let light = Material::Fabric {
            base: Rgb(86, 146, 70),
            weave: Rgb(70, 126, 58),
        };
        self.ball(x, y, z, r * 0.55, &green);
        for (k, (dx, dy, dz)) in [
            (-0.5f32, -0.15f32, 0.2f32),
            (0.5, -0.1, -0.15),
            (0.1, 0.4, 0.05),
            (-0.15, 0.05, -0.5),
            (0.2, -0.2, 0.5),
        ]
        .into_iter()
        .enumerate()
        {
            let m = if k % 2 == 0 { &light } else { &green };
            self.ball(x + dx * r, y + dy * r, z + dz * r, r * 0.42, m);
        }
    }
}

/// The pictures a piece shows ([`Material::Texture`] indices in its [`parts`] count from
/// 0 in this list), drawn in its style.
///
/// # Errors
/// [`RenderError`] if a canvas cannot be made (never for these fixed sizes).
pub fn textures(kind: FurnitureKind, style: u8) -> Result<Vec<Texture>, RenderError> {
    use FurnitureKind::*;
    let arts: &[Art] = match kind {
        Picture => &[Art::Painting],
        PhotoFrame => &[Art::Photo],
        Rug => &[Art::Rug],
        Clock => &[Art::ClockFace],
        Television => &[Art::Screen],
        Laptop => &[Art::Laptop],
        WashingMachine => &[Art::Porthole],
        Mirror | Vanity => &[Art::Mirror],
        _ => &[],
    };
    arts.iter().map(|a| art::texture(*a, style)).collect()
}

/// The primitives of a piece in the default style.
pub fn parts(kind: FurnitureKind, pl: &Placement) -> Vec<(Shape, Material)> {
    parts_styled(kind, pl, 0)
}

/// The primitives of a piece, coloured by `style` (0..4). Textured parts refer to
/// [`textures`] of the same kind and style by index.
pub fn parts_styled(kind: FurnitureKind, pl: &Placement, style: u8) -> Vec<(Shape, Material)> {
    use FurnitureKind::*;
    let Palette {
        wood,
        wood_light,
        fabric,
        fabric_dark,
        accent,
    } = palette(style);
    let white = flat(236, 236, 232);
    let ceramic = flat(244, 244, 240);
    let steel = flat(170, 174, 178);
    let chrome = flat(205, 208, 212);
    let dark = flat(40, 40, 44);
    let black = flat(18, 18, 20);
    let accent_m = Material::Flat(accent);
    let s = style as usize;
    let [w, h, d] = kind.spec().size;
    let (hw, hd) = (w / 2.0, d / 2.0);
    let mut b = Builder {
        pl,
        out: Vec::new(),
    };
    match kind {
        DiningTable => {
            b.cuboid(-hw, h - 0.04, -hd, hw, h, hd, &wood);
            // the apron under the top
            b.cuboid(
                -hw + 0.05,
                h - 0.12,
                -hd + 0.05,
                hw - 0.05,
                h - 0.04,
                hd - 0.05,
                &wood_light,
            );
            b.legs(w, d, h - 0.04, 0.07, &wood);
        }
        CoffeeTable => {
            b.cuboid(-hw, h - 0.04, -hd, hw, h, hd, &wood);
            b.legs(w, d, h - 0.04, 0.05, &wood);
            // a lower shelf with a stack of magazines
            b.cuboid(
                -hw + 0.05,
                0.1,
                -hd + 0.05,
                hw - 0.05,
                0.13,
                hd - 0.05,
                &wood_light,
            );
            b.cuboid(-0.3, 0.13, -0.12, -0.02, 0.17, 0.1, &flat(200, 60, 60));
            b.cuboid(-0.28, 0.17, -0.1, -0.04, 0.19, 0.08, &flat(236, 232, 220));
        }
        Desk => {
            b.cuboid(-hw, h - 0.04, -hd, hw, h, hd, &wood);
            b.legs(w, d, h - 0.04, 0.05, &wood);
            // a drawer block on the right, two drawers
            let (x0, x1) = (hw - 0.45, hw - 0.03);
            b.cuboid(x0, 0.0, -hd + 0.03, x1, h - 0.04, hd - 0.03, &wood);
            b.front(
                x0 + 0.02,
                0.38,
                x1 - 0.02,
                h - 0.07,
                hd - 0.03,
                &wood_light,
                &steel,
            );
            b.front(
                x0 + 0.02,
                0.03,
                x1 - 0.02,
                0.36,
                hd - 0.03,
                &wood_light,
                &steel,
            );
        }
        Chair => {
            b.cuboid(-hw, 0.42, -hd, hw, 0.47, hd, &wood);
            b.cuboid(
                -hw + 0.03,
                0.47,
                -hd + 0.06,
                hw - 0.03,
                0.5,
                hd - 0.03,
                &fabric,
            );
            b.legs(w, d, 0.42, 0.04, &wood);
            // two back posts, a top rail and three slats
            for x in [-hw, hw - 0.04] {
                b.cuboid(x, 0.47, -hd, x + 0.04, h, -hd + 0.04, &wood);
            }
            b.cuboid(-hw, h - 0.1, -hd, hw, h, -hd + 0.035, &wood);
            for x in [-0.12f32, -0.02, 0.08] {
                b.cuboid(
                    x,
                    0.5,
                    -hd + 0.005,
                    x + 0.04,
                    h - 0.1,
                    -hd + 0.03,
                    &wood_light,
                );
            }
        }
        Sofa | Armchair => {
            let arm = 0.16;
            b.cuboid(-hw, 0.08, -hd, hw, 0.4, hd, &fabric_dark);
            b.cuboid(-hw, 0.08, -hd, hw, h, -hd + 0.2, &fabric_dark);
            b.cuboid(-hw, 0.08, -hd, -hw + arm, 0.62, hd, &fabric);
            b.cuboid(hw - arm, 0.08, -hd, hw, 0.62, hd, &fabric);
            // seat and back cushions, one per seat
            let seats = if kind == Sofa { 3 } else { 1 };
            let span = (w - 2.0 * arm) / seats as f32;
            for i in 0..seats {
                let x0 = -hw + arm + span * i as f32 + 0.01;
                let x1 = x0 + span - 0.02;
                b.cuboid(x0, 0.4, -hd + 0.2, x1, 0.52, hd - 0.02, &fabric);
                b.cuboid(x0, 0.52, -hd + 0.05, x1, h - 0.04, -hd + 0.22, &fabric);
            }
            // a throw pillow in the corner
            let pillow = Material::Fabric {
                base: accent,
                weave: accent.mix(Rgb(255, 255, 255), 70),
            };
            b.cuboid(
                -hw + arm + 0.03,
                0.52,
                -hd + 0.22,
                -hw + arm + 0.35,
                0.78,
                -hd + 0.34,
                &pillow,
            );
            for (x, z) in [
                (-hw + 0.06, -hd + 0.06),
                (hw - 0.06, -hd + 0.06),
                (-hw + 0.06, hd - 0.06),
                (hw - 0.06, hd - 0.06),
            ] {
                b.cone(x, 0.0, z, 0.025, 0.035, 0.08, &dark);
            }
        }
        Bed => {
            let m = 0.55; // mattress top; `h` is the headboard's
            b.cuboid(-hw, 0.12, -hd, hw, 0.32, hd, &wood);
            b.legs(w, d, 0.12, 0.07, &wood);
            b.cuboid(
                -hw + 0.03,
                0.32,
                -hd + 0.06,
                hw - 0.03,
                m,
                hd - 0.03,
                &white,
            );
            // the blanket over the foot two thirds, folded back at its head end
            b.cuboid(
                -hw + 0.01,
                0.42,
                -hd + 0.75,
                hw - 0.01,
                m + 0.03,
                hd - 0.01,
                &fabric,
            );
            b.cuboid(
                -hw + 0.01,
                m + 0.03,
                -hd + 0.75,
                hw - 0.01,
                m + 0.05,
                -hd + 0.95,
                &fabric_dark,
            );
            // two pillows
            for x in [-hw + 0.12, 0.05] {
                b.cuboid(
                    x,
                    m,
                    -hd + 0.12,
                    x + w / 2.0 - 0.17,
                    m + 0.13,
                    -hd + 0.48,
                    &ceramic,
                );
            }
            // headboard with an inset panel, and a footboard
            b.cuboid(-hw, 0.0, -hd, hw, h, -hd + 0.06, &wood);
            b.cuboid(
                -hw + 0.1,
                m + 0.05,
                -hd + 0.06,
                hw - 0.1,
                h - 0.08,
                -hd + 0.075,
                &wood_light,
            );
            b.cuboid(-hw, 0.0, hd - 0.05, hw, m + 0.05, hd, &wood);
        }
        Nightstand | Dresser => {
            b.cuboid(-hw, 0.06, -hd, hw, h - 0.03, hd - 0.012, &wood);
            b.cuboid(-hw - 0.01, h - 0.03, -hd, hw + 0.01, h, hd + 0.01, &wood);
            b.legs(w, d, 0.06, 0.05, &wood);
            let rows = if kind == Nightstand { 2 } else { 3 };
            let step = (h - 0.12) / rows as f32;
            for i in 0..rows {
                let y0 = 0.08 + step * i as f32;
                if kind == Dresser && i < 2 {
                    b.front(
                        -hw + 0.03,
                        y0,
                        -0.01,
                        y0 + step - 0.02,
                        hd - 0.012,
                        &wood_light,
                        &steel,
                    );
                    b.front(
                        0.01,
                        y0,
                        hw - 0.03,
                        y0 + step - 0.02,
                        hd - 0.012,
                        &wood_light,
                        &steel,
                    );
                } else {
                    b.front(
                        -hw + 0.03,
                        y0,
                        hw - 0.03,
                        y0 + step - 0.02,
                        hd - 0.012,
                        &wood_light,
                        &steel,
                    );
                }
            }
        }
        Wardrobe => {
            b.cuboid(-hw, 0.08, -hd, hw, h - 0.06, hd - 0.012, &wood);
            b.cuboid(-hw + 0.02, 0.0, -hd, hw - 0.02, 0.08, hd - 0.04, &dark);
            b.cuboid(-hw - 0.02, h - 0.06, -hd, hw + 0.02, h, hd + 0.02, &wood);
            b.doors(
                -hw + 0.02,
                0.1,
                hw - 0.02,
                h - 0.08,
                hd - 0.012,
                &wood_light,
                &steel,
            );
        }
        Bookshelf | Shelf => {
            b.cuboid(-hw, 0.0, -hd, hw, h, -hd + 0.02, &wood);
            b.cuboid(-hw, 0.0, -hd, -hw + 0.03, h, hd, &wood);
            b.cuboid(hw - 0.03, 0.0, -hd, hw, h, hd, &wood);
            let boards: &[f32] = if kind == Bookshelf {
                &[0.0, 0.45, 0.9, 1.35]
            } else {
                &[0.0, 0.5]
            };
            for &y in boards {
                b.cuboid(-hw, y, -hd, hw, y + 0.03, hd, &wood);
            }
            b.cuboid(-hw, h - 0.03, -hd, hw, h, hd, &wood);
            // books on the left of every board; the right share stays free for props
            let inner = w - 0.08;
            let x1 = -inner / 2.0 + inner * BOOKS_SHARE;
            for (k, &y) in boards.iter().enumerate() {
                let room = boards.get(k + 1).copied().unwrap_or(h - 0.03) - y - 0.03;
                b.book_row(
                    -hw + 0.035,
                    x1,
                    y + 0.03,
                    -hd + 0.03,
                    hd - 0.05,
                    (room - 0.05).min(0.3),
                    s + k * 2,
                );
            }
        }
        Cabinet => {
            // a door on the left half, an open cubby with a shelf on the right
            b.cuboid(-hw, 0.0, -hd, hw, 0.08, hd, &wood);
            b.cuboid(-hw, h - 0.04, -hd, hw, h, hd, &wood);
            b.cuboid(-hw, 0.0, -hd, hw, h, -hd + 0.02, &wood);
            b.cuboid(-hw, 0.0, -hd, -hw + 0.03, h, hd, &wood);
            b.cuboid(hw - 0.03, 0.0, -hd, hw, h, hd, &wood);
            b.cuboid(-0.02, 0.0, -hd, 0.02, h, hd, &wood);
            b.door(
                -hw + 0.03,
                0.08,
                -0.02,
                h - 0.04,
                hd - 0.02,
                &wood_light,
                &steel,
                -1.0,
            );
            b.cuboid(0.02, 0.45, -hd, hw - 0.03, 0.48, hd, &wood);
            b.book_row(0.04, hw - 0.05, 0.48, -hd + 0.04, hd - 0.06, 0.3, s + 3);
        }
        Counter | KitchenSink | Vanity | WashingMachine | Stove => {
            let body = match kind {
                Vanity | WashingMachine => &white,
                Stove => &steel,
                _ => &wood,
            };
            b.cuboid(-hw, 0.08, -hd, hw, h - 0.04, hd - 0.012, body);
            b.cuboid(-hw + 0.02, 0.0, -hd, hw - 0.02, 0.08, hd - 0.05, &dark);
            let top = match kind {
                Counter | KitchenSink => flat(90, 90, 96),
                Stove => flat(30, 30, 34),
                _ => white.clone(),
            };
            b.cuboid(-hw, h - 0.04, -hd, hw, h, hd + 0.01, &top);
            match kind {
                Counter => {
                    b.front(
                        -hw + 0.02,
                        h - 0.2,
                        hw - 0.02,
                        h - 0.06,
                        hd - 0.012,
                        &wood_light,
                        &steel,
                    );
                    b.doors(
                        -hw + 0.02,
                        0.1,
                        hw - 0.02,
                        h - 0.22,
                        hd - 0.012,
                        &wood_light,
                        &steel,
                    );
                }
                KitchenSink => {
                    b.doors(
                        -hw + 0.02,
                        0.1,
                        hw - 0.02,
                        h - 0.06,
                        hd - 0.012,
                        &wood_light,
                        &steel,
                    );
                    // the basin sunk into the top, the tap behind it
                    b.cuboid(-0.3, h - 0.002, -0.2, 0.3, h + 0.002, 0.2, &steel);
                    b.cuboid(
                        -0.27,
                        h + 0.002,
                        -0.17,
                        0.27,
                        h + 0.004,
                        0.17,
                        &flat(120, 124, 128),
                    );
                    b.cylinder(0.0, h, -hd + 0.08, 0.02, 0.3, &chrome);
                    b.cuboid(
                        -0.015,
                        h + 0.26,
                        -hd + 0.08,
                        0.015,
                        h + 0.3,
                        -hd + 0.24,
                        &chrome,
                    );
                }
                Vanity => {
                    b.doors(
                        -hw + 0.02,
                        0.1,
                        hw - 0.02,
                        h - 0.06,
                        hd - 0.012,
                        &white,
                        &chrome,
                    );
                    b.cone(0.12, h, 0.0, 0.13, 0.18, 0.05, &ceramic);
                    b.cylinder(0.12, h + 0.05, 0.0, 0.15, 0.004, &flat(200, 214, 222));
                    b.cylinder(0.12, h, -hd + 0.06, 0.015, 0.22, &chrome);
                    b.cuboid(
                        0.105,
                        h + 0.18,
                        -hd + 0.06,
                        0.135,
                        h + 0.22,
                        -hd + 0.16,
                        &chrome,
                    );
                    // the mirror above, in a frame
                    b.cuboid(-0.32, h + 0.33, -hd, 0.32, h + 1.02, -hd + 0.02, &chrome);
                    b.front_picture(0.0, h + 0.675, -hd + 0.022, 0.29, 0.32, 0);
                }
                Stove => {
                    for (x, z) in [(-0.14, -0.13), (0.14, -0.13), (-0.14, 0.13), (0.14, 0.13)] {
                        b.cylinder(x, h, z, 0.09, 0.008, &black);
                        b.cylinder(x, h + 0.008, z, 0.05, 0.004, &dark);
                    }
                    // the oven door with its window, and a row of knobs
                    b.cuboid(-hw + 0.04, 0.12, hd - 0.012, hw - 0.04, h - 0.14, hd, &dark);
                    b.cuboid(
                        -hw + 0.1,
                        0.25,
                        hd,
                        hw - 0.1,
                        h - 0.3,
                        hd + 0.004,
                        &flat(20, 24, 30),
                    );
                    b.cuboid(
                        -hw + 0.08,
                        h - 0.2,
                        hd,
                        hw - 0.08,
                        h - 0.18,
                        hd + 0.04,
                        &chrome,
                    );
                    for i in 0..4 {
                        let x = -0.21 + i as f32 * 0.14;
                        b.cuboid(
                            x - 0.018,
                            h - 0.1,
                            hd,
                            x + 0.018,
                            h - 0.064,
                            hd + 0.025,
                            &black,
                        );
                    }
                }
                _ => {
                    // washing machine: a control strip and the round glass door
                    b.cuboid(
                        -hw + 0.03,
                        h - 0.16,
                        hd - 0.012,
                        hw - 0.03,
                        h - 0.06,
                        hd,
                        &flat(220, 220, 224),
                    );
                    b.cylinder(hw - 0.12, h - 0.135, hd - 0.005, 0.03, 0.05, &dark);
                    b.front_picture(0.0, 0.44, hd + 0.002, 0.22, 0.22, 0);
                }
            }
        }
        Fridge => {
            b.cuboid(-hw, 0.0, -hd, hw, h, hd - 0.02, &white);
            b.cuboid(
                -hw + 0.01,
                1.2,
                hd - 0.02,
                hw - 0.01,
                h - 0.01,
                hd,
                &ceramic,
            );
            b.cuboid(-hw + 0.01, 0.05, hd - 0.02, hw - 0.01, 1.18, hd, &ceramic);
            b.cuboid(hw - 0.1, 0.7, hd, hw - 0.07, 1.1, hd + 0.04, &steel);
            b.cuboid(hw - 0.1, 1.25, hd, hw - 0.07, 1.55, hd + 0.04, &steel);
            // a magnet or two
            b.cuboid(-0.12, 1.4, hd, -0.06, 1.46, hd + 0.008, &accent_m);
            b.cuboid(0.02, 1.5, hd, 0.1, 1.6, hd + 0.004, &flat(246, 240, 200));
        }
        Bathtub => {
            b.cuboid(-hw, 0.0, -hd, hw, h, -hd + 0.07, &ceramic);
            b.cuboid(-hw, 0.0, hd - 0.07, hw, h, hd, &ceramic);
            b.cuboid(-hw, 0.0, -hd, -hw + 0.07, h, hd, &ceramic);
            b.cuboid(hw - 0.07, 0.0, -hd, hw, h, hd, &ceramic);
            b.cuboid(-hw, 0.0, -hd, hw, 0.12, hd, &ceramic);
            // water and the taps
            b.cuboid(
                -hw + 0.07,
                0.12,
                -hd + 0.07,
                hw - 0.07,
                0.3,
                hd - 0.07,
                &flat(170, 206, 222),
            );
            b.cylinder(hw - 0.15, h, -hd + 0.035, 0.02, 0.16, &chrome);
            b.cuboid(
                hw - 0.165,
                h + 0.13,
                -hd + 0.035,
                hw - 0.135,
                h + 0.16,
                -hd + 0.18,
                &chrome,
            );
            b.cylinder(hw - 0.26, h, -hd + 0.035, 0.025, 0.05, &chrome);
            b.cylinder(hw - 0.04, h, -hd + 0.035, 0.025, 0.05, &chrome);
        }
        Toilet => {
            // cistern with its lid and button, bowl, seat
            b.cuboid(-hw, 0.4, -hd, hw, h - 0.03, -hd + 0.2, &ceramic);
            b.cuboid(-hw - 0.01, h - 0.03, -hd, hw + 0.01, h, -hd + 0.21, &white);
            b.cylinder(0.0, h, -hd + 0.1, 0.025, 0.008, &chrome);
            b.cone(0.0, 0.0, 0.06, 0.11, 0.18, 0.38, &ceramic);
            b.cylinder(0.0, 0.38, 0.06, 0.19, 0.03, &white);
            b.cuboid(-0.14, 0.38, -hd + 0.18, 0.14, 0.44, -hd + 0.22, &white);
        }
        Television => {
            b.cuboid(-hw, 0.05, -hd, hw, 0.5, hd - 0.012, &wood);
            b.legs(w, d, 0.05, 0.05, &dark);
            b.front(
                -hw + 0.03,
                0.08,
                -0.01,
                0.47,
                hd - 0.012,
                &wood_light,
                &steel,
            );
            b.front(0.01, 0.08, hw - 0.03, 0.47, hd - 0.012, &wood_light, &steel);
            b.cuboid(-0.12, 0.5, -0.12, 0.12, 0.52, 0.04, &black);
            b.cuboid(-0.03, 0.52, -0.08, 0.03, 0.6, -0.04, &black);
            b.cuboid(-0.6, 0.56, -0.07, 0.6, h, -0.03, &black);
            b.front_picture(
                0.0,
                (0.56 + h) / 2.0 + 0.005,
                -0.029,
                0.57,
                (h - 0.56) / 2.0 - 0.02,
                0,
            );
        }
        FloorLamp => {
            b.cylinder(0.0, 0.0, 0.0, 0.16, 0.03, &dark);
            b.cylinder(0.0, 0.03, 0.0, 0.015, 1.25, &dark);
            b.cone(0.0, 1.22, 0.0, 0.19, 0.11, 0.36, &flat(245, 232, 200));
            b.ball(0.0, 1.26, 0.0, 0.05, &flat(255, 250, 225));
        }
        Rug => {
            b.cuboid(-hw, 0.0, -hd, hw, 0.008, hd, &fabric_dark);
            b.top_picture(0.0, h, 0.0, hw, hd, 0);
        }
        Plant => {
            // a flared pot with soil, a stem, a crown of leaves
            b.cone(0.0, 0.0, 0.0, 0.13, 0.19, 0.38, &flat(176, 92, 60));
            b.cylinder(0.0, 0.38, 0.0, 0.2, 0.03, &flat(186, 100, 66));
            b.cylinder(0.0, 0.4, 0.0, 0.17, 0.01, &flat(70, 50, 36));
            b.cylinder(0.0, 0.4, 0.0, 0.02, 0.35, &flat(90, 70, 40));
            b.leaves(0.0, 0.82, 0.0, 0.3);
        }
        SideTable => {
            b.cylinder(0.0, h - 0.03, 0.0, 0.21, 0.03, &wood);
            b.cylinder(0.0, 0.03, 0.0, 0.03, h - 0.06, &wood);
            b.cylinder(0.0, 0.0, 0.0, 0.16, 0.03, &wood);
        }
        Stool => {
            b.cylinder(0.0, h - 0.05, 0.0, 0.18, 0.05, &wood);
            for (x, z) in [(-0.12, -0.12), (0.12, -0.12), (-0.12, 0.12), (0.12, 0.12)] {
                b.cylinder(x, 0.0, z, 0.016, h - 0.05, &dark);
            }
            b.cuboid(-0.13, 0.22, -0.13, 0.13, 0.24, 0.13, &dark);
        }
        Bin => {
            let bin = [
                flat(60, 64, 70),
                flat(190, 194, 198),
                Material::Flat(accent),
                flat(236, 236, 232),
            ][s % 4]
                .clone();
            b.cone(0.0, 0.0, 0.0, 0.11, 0.14, h - 0.02, &bin);
            b.cylinder(0.0, h - 0.02, 0.0, 0.145, 0.02, &dark);
        }
        Basket => {
            let weave = Material::Fabric {
                base: Rgb(196, 168, 120),
                weave: Rgb(160, 130, 88),
            };
            b.cuboid(-hw, 0.0, -hd, hw, h - 0.04, hd, &weave);
            b.cuboid(
                -hw - 0.01,
                h - 0.04,
                -hd - 0.01,
                hw + 0.01,
                h,
                hd + 0.01,
                &flat(150, 120, 80),
            );
            b.cuboid(-0.15, h, -0.05, 0.1, h + 0.03, 0.12, &fabric);
        }
        Picture => {
            let frame = [
                wood.clone(),
                flat(30, 30, 32),
                flat(200, 170, 90),
                flat(240, 240, 236),
            ][s % 4]
                .clone();
            let t = 0.04;
            b.cuboid(-hw, 0.0, -hd, hw, t, hd, &frame);
            b.cuboid(-hw, h - t, -hd, hw, h, hd, &frame);
            b.cuboid(-hw, t, -hd, -hw + t, h - t, hd, &frame);
            b.cuboid(hw - t, t, -hd, hw, h - t, hd, &frame);
            b.cuboid(-hw + t, t, -hd, hw - t, h - t, 0.0, &flat(245, 243, 236));
            b.front_picture(0.0, h / 2.0, 0.001, hw - t - 0.03, h / 2.0 - t - 0.03, 0);
        }
        Mirror => {
            b.cuboid(-hw, 0.0, -hd, hw, h, 0.0, &wood);
            b.front_picture(0.0, h / 2.0, 0.001, hw - 0.04, h / 2.0 - 0.04, 0);
        }
        Clock => {
            b.cuboid(-0.02, h / 2.0 - 0.02, -hd, 0.02, h / 2.0 + 0.02, 0.0, &dark);
            b.front_picture(0.0, h / 2.0, 0.001, hw, h / 2.0, 0);
        }
        WallShelf => {
            b.cuboid(-hw, 0.0, -hd, hw, 0.03, hd, &wood);
            for x in [-hw + 0.08, hw - 0.1] {
                b.cuboid(x, -0.12, -hd, x + 0.02, 0.0, hd - 0.04, &dark);
            }
            b.book_row(-hw + 0.04, -0.05, 0.03, -hd + 0.02, hd - 0.03, 0.22, s + 1);
            b.cone(0.17, 0.03, 0.0, 0.05, 0.065, 0.1, &flat(236, 232, 222));
            b.leaves(0.17, 0.18, 0.0, 0.09);
        }
        UpperCabinet => {
            b.cuboid(-hw, 0.0, -hd, hw, h, hd - 0.012, &wood);
            b.doors(
                -hw + 0.01,
                0.01,
                hw - 0.01,
                h - 0.01,
                hd - 0.012,
                &wood_light,
                &steel,
            );
        }
        TowelRail => {
            for x in [-hw + 0.02, hw - 0.04] {
                b.cuboid(x, h - 0.06, -hd, x + 0.02, h - 0.03, hd, &chrome);
            }
            b.cuboid(-hw, h - 0.06, hd - 0.03, hw, h - 0.03, hd, &chrome);
            let towel = Material::Fabric {
                base: accent,
                weave: accent.mix(Rgb(255, 255, 255), 90),
            };
            b.cuboid(-0.2, 0.02, hd - 0.035, 0.2, h - 0.03, hd + 0.005, &towel);
            b.cuboid(
                -0.2,
                0.08,
                hd + 0.005,
                0.2,
                0.11,
                hd + 0.008,
                &flat(250, 250, 250),
            );
        }
        Cup => {
            b.cylinder(-0.01, 0.0, 0.0, 0.04, h, &accent_m);
            b.cylinder(-0.01, h - 0.012, 0.0, 0.034, 0.012, &flat(60, 40, 30));
            b.cuboid(0.03, 0.02, -0.006, 0.05, 0.08, 0.006, &accent_m);
        }
        Vase => {
            b.cone(0.0, 0.0, 0.0, 0.045, 0.07, 0.1, &accent_m);
            b.cone(0.0, 0.1, 0.0, 0.07, 0.03, 0.1, &accent_m);
            b.cylinder(0.0, 0.2, 0.0, 0.012, 0.08, &flat(70, 120, 60));
            let petals = [flat(220, 60, 80), flat(250, 220, 90), flat(240, 240, 250)];
            for (k, (x, z)) in [(0.0, 0.0), (0.035, 0.02), (-0.03, 0.025), (0.01, -0.035)]
                .into_iter()
                .enumerate()
            {
                b.ball(x, 0.3 - 0.015 * k as f32, z, 0.03, &petals[(k + s) % 3]);
            }
        }
        Books => {
            for (k, (x0, y0, x1, z0, z1)) in [
                (-hw, 0.0, hw, -hd, hd),
                (-hw + 0.01, 0.035, hw - 0.02, -hd + 0.01, hd - 0.01),
                (-hw + 0.03, 0.065, hw - 0.03, -hd + 0.02, hd - 0.02),
            ]
            .into_iter()
            .enumerate()
            {
                let m = Material::Flat(SPINES[(s + k * 2) % SPINES.len()]);
                b.cuboid(x0, y0, z0, x1, y0 + 0.03, z1, &m);
                b.cuboid(
                    x0 + 0.005,
                    y0 + 0.004,
                    z1,
                    x1 - 0.005,
                    y0 + 0.026,
                    z1 + 0.002,
                    &flat(240, 236, 224),
                );
            }
        }
        Bottle => {
            let glass = [
                flat(60, 120, 80),
                flat(120, 60, 40),
                flat(70, 100, 150),
                flat(200, 190, 120),
            ][s % 4]
                .clone();
            b.cylinder(0.0, 0.0, 0.0, 0.034, 0.17, &glass);
            b.cone(0.0, 0.17, 0.0, 0.034, 0.013, 0.05, &glass);
            b.cylinder(0.0, 0.22, 0.0, 0.013, 0.045, &glass);
            b.cylinder(0.0, 0.265, 0.0, 0.015, 0.015, &flat(200, 170, 80));
            b.cylinder(0.0, 0.06, 0.0, 0.035, 0.06, &flat(240, 232, 210));
        }
        FruitBowl => {
            b.cone(0.0, 0.0, 0.0, 0.06, 0.13, 0.07, &white);
            for (k, (x, z)) in [(-0.05, 0.0), (0.04, 0.03), (0.01, -0.05), (0.0, 0.02)]
                .into_iter()
                .enumerate()
            {
                let fruit = [
                    flat(220, 50, 40),
                    flat(240, 190, 40),
                    flat(120, 180, 60),
                    flat(240, 140, 40),
                ][k]
                    .clone();
                b.ball(x, 0.085 + 0.02 * (k / 3) as f32, z, 0.037, &fruit);
            }
        }
        Pot => {
            b.cylinder(0.0, 0.0, 0.0, 0.1, 0.13, &steel);
            b.cylinder(0.0, 0.13, 0.0, 0.104, 0.012, &dark);
            b.cylinder(0.0, 0.142, 0.0, 0.015, 0.008, &black);
            for x in [-0.13f32, 0.1] {
                b.cuboid(x, 0.09, -0.012, x + 0.03, 0.11, 0.012, &black);
            }
        }
        Towel => {
            let towel = Material::Fabric {
                base: accent,
                weave: Rgb(250, 250, 250),
            };
            b.cuboid(-hw, 0.0, -hd, hw, 0.04, hd, &towel);
            b.cuboid(
                -hw + 0.02,
                0.04,
                -hd + 0.01,
                hw - 0.02,
                0.075,
                hd - 0.01,
                &flat(246, 244, 238),
            );
        }
        TableLamp => {
            b.cone(0.0, 0.0, 0.0, 0.07, 0.05, 0.03, &accent_m);
            b.ball(0.0, 0.1, 0.0, 0.07, &accent_m);
            b.cylinder(0.0, 0.15, 0.0, 0.01, 0.1, &chrome);
            b.cone(0.0, 0.23, 0.0, 0.13, 0.08, 0.22, &flat(246, 236, 210));
        }
        Candles => {
            for (x, z, ch) in [
                (-0.04, 0.0, 0.12),
                (0.03, -0.015, 0.09),
                (0.035, 0.025, 0.06),
            ] {
                b.cylinder(x, 0.0, z, 0.022, ch, &flat(246, 240, 226));
                b.cylinder(x, ch, z, 0.002, 0.012, &black);
                b.ball(x, ch + 0.025, z, 0.009, &flat(255, 200, 60));
            }
        }
        Laptop => {
            b.cuboid(-hw, 0.0, -hd + 0.01, hw, 0.018, hd, &flat(180, 184, 190));
            b.cuboid(
                -hw + 0.03,
                0.018,
                -0.02,
                hw - 0.03,
                0.02,
                hd - 0.04,
                &flat(60, 62, 66),
            );
            b.cuboid(-hw, 0.018, -hd, hw, h, -hd + 0.012, &flat(180, 184, 190));
            b.front_picture(
                0.0,
                0.018 + (h - 0.018) / 2.0,
                -hd + 0.013,
                hw - 0.015,
                (h - 0.018) / 2.0 - 0.012,
                0,
            );
        }
        Teapot => {
            let glaze = [
                flat(240, 240, 236),
                flat(60, 90, 140),
                flat(190, 70, 60),
                flat(90, 140, 100),
            ][s % 4]
                .clone();
            b.ball(0.0, 0.075, 0.0, 0.075, &glaze);
            b.cylinder(0.0, 0.0, 0.0, 0.05, 0.02, &glaze);
            b.cylinder(0.0, 0.14, 0.0, 0.035, 0.02, &glaze);
            b.ball(0.0, 0.165, 0.0, 0.012, &glaze);
            b.cuboid(0.06, 0.06, -0.012, 0.12, 0.08, 0.012, &glaze);
            b.cuboid(-0.115, 0.05, -0.008, -0.07, 0.12, 0.008, &glaze);
        }
        PottedHerb => {
            b.cone(0.0, 0.0, 0.0, 0.05, 0.07, 0.1, &flat(186, 100, 66));
            b.cylinder(0.0, 0.1, 0.0, 0.06, 0.005, &flat(70, 50, 36));
            b.leaves(0.0, 0.17, 0.0, 0.1);
        }
        PhotoFrame => {
            let frame = [
                flat(30, 30, 32),
                wood.clone(),
                flat(200, 170, 90),
                flat(240, 240, 236),
            ][s % 4]
                .clone();
            b.cuboid(-hw, 0.0, -0.01, hw, h, 0.01, &frame);
            b.cuboid(-0.015, 0.0, -hd, 0.015, h * 0.6, -0.01, &frame);
            b.front_picture(0.0, h / 2.0, 0.011, hw - 0.015, h / 2.0 - 0.015, 0);
        }
        Bowl => {
            b.cone(0.0, 0.0, 0.0, 0.04, 0.09, 0.06, &accent_m);
            b.cylinder(0.0, 0.05, 0.0, 0.08, 0.004, &flat(250, 246, 236));
        }
        Jar => {
            b.cylinder(0.0, 0.0, 0.0, 0.045, 0.12, &flat(200, 220, 214));
            b.cylinder(
                0.0,
                0.02,
                0.0,
                0.04,
                0.08,
                &[
                    flat(200, 120, 60),
                    flat(230, 200, 120),
                    flat(120, 60, 40),
                    flat(240, 240, 230),
                ][s % 4]
                    .clone(),
            );
            b.cylinder(0.0, 0.12, 0.0, 0.048, 0.03, &accent_m);
        }
        AlarmClock => {
            b.cuboid(-hw, 0.0, -hd, hw, h - 0.02, hd, &accent_m);
            b.cuboid(
                -hw + 0.015,
                0.015,
                hd,
                hw - 0.015,
                h - 0.035,
                hd + 0.003,
                &flat(246, 246, 240),
            );
            for x in [-0.035f32, 0.035] {
                b.ball(x, h - 0.015, 0.0, 0.018, &chrome);
            }
        }
        SoapDispenser => {
            b.cylinder(0.0, 0.0, 0.0, 0.032, 0.13, &accent_m);
            b.cylinder(0.0, 0.13, 0.0, 0.012, 0.03, &chrome);
            b.cuboid(-0.006, 0.15, -0.006, 0.006, 0.165, 0.035, &chrome);
        }
    }
    b.out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::Aabb;

    #[test]
    fn every_kind_fits_its_footprint_and_height() {
        for kind in FurnitureKind::ALL {
            for turns in 0..4 {
                let pl = Placement {
                    x: 2.0,
                    y: 0.0,
                    z: 3.0,
                    turns,
                };
                // handles stand proud of the front
                let fp = footprint(kind, &pl).grow(0.05);
                let parts = parts(kind, &pl);
                assert!(!parts.is_empty(), "{kind:?}");
                let textures = textures(kind, 0).unwrap();
                for (shape, material) in &parts {
                    let b = Aabb::of(shape);
                    assert!(
                        fp.contains(b.min.x, b.min.z) && fp.contains(b.max.x, b.max.z),
                        "{kind:?} turn {turns}: {b:?} outside {fp:?}"
                    );
                    // the vanity's mirror and the taps rise above their tops, a wall
                    // shelf's brackets hang below it
                    let top = match kind {
                        FurnitureKind::Vanity => 1.9,
                        FurnitureKind::KitchenSink => 1.25,
                        FurnitureKind::Bathtub => 0.75,
                        _ => height(kind) + 0.05,
                    };
                    let bottom = if kind == FurnitureKind::WallShelf {
                        -0.13
                    } else {
                        0.0
                    };
                    assert!(b.max.y <= top && b.min.y >= bottom, "{kind:?} {b:?}");
                    if let Material::Texture(t) = material {
                        assert!(*t < textures.len(), "{kind:?} refers to texture {t}");
                    }
                }
                for s in surfaces(kind, &pl) {
                    assert!(footprint(kind, &pl).contains_rect(&s.area), "{kind:?}");
                    assert!(s.y > 0.0 && s.y <= height(kind) + 1e-4);
                }
            }
        }
    }

    #[test]
    fn shelf_surfaces_leave_the_books_alone() {
        // nothing of the piece's own parts stands inside the free part of a board
        for kind in [FurnitureKind::Bookshelf, FurnitureKind::Shelf] {
            let pl = Placement {
                x: 0.0,
                y: 0.0,
                z: 0.0,
                turns: 0,
            };
            for s in surfaces(kind, &pl)
                .iter()
                .filter(|s| s.kind == SurfaceKind::Inside)
            {
                for (shape, _) in parts(kind, &pl) {
                    let b = Aabb::of(&shape);
                    let inside = b.min.y >= s.y - 1e-4 && b.min.y < s.y + s.headroom;
                    let over = Rect {
                        x0: b.min.x,
                        z0: b.min.z,
                        x1: b.max.x,
                        z1: b.max.z,
                    }
                    .overlaps(&s.area);
                    let side = b.max.x - b.min.x < 0.05 && b.max.y - b.min.y > 0.5;
                    assert!(!(inside && over) || side, "{kind:?}: {b:?} on {s:?}");
                }
            }
        }
    }

    #[test]
    fn turns_face_the_right_way() {
        // turned once, a piece's front (+z locally) faces +x
        let pl = Placement {
            x: 0.0,
            y: 0.0,
            z: 0.0,
            turns: 1,
        };
        assert_eq!(pl.to_room(0.0, 1.0), (1.0, 0.0));
        let fp = footprint(FurnitureKind::Bed, &pl);
        assert!((fp.width() - 2.05).abs() < 1e-6 && (fp.depth() - 1.6).abs() < 1e-6);
    }

    #[test]
    fn every_room_type_has_surfaces_for_props_and_things_of_each_mount() {
        for room in RoomKind::ALL {
            let c = catalogue(room);
            let pl = Placement {
                x: 0.0,
                y: 0.0,
                z: 0.0,
                turns: 0,
            };
            assert!(
                c.required.iter().any(|k| !surfaces(*k, &pl).is_empty()),
                "{room:?}"
            );
            assert!(c.decor.iter().all(|k| k.is_decor()));
            assert!(c.hung.iter().all(|k| k.is_hung() && k.hang_height() > 0.5));
            assert!(
                c.required
                    .iter()
                    .chain(c.optional)
                    .all(|k| k.stands_on_floor())
            );
        }
        // every kind is used by some room
        for kind in FurnitureKind::ALL {
            let used = RoomKind::ALL.iter().any(|r| {
                let c = catalogue(*r);
                [c.required, c.optional, c.decor, c.hung]
                    .iter()
                    .any(|l| l.contains(&kind))
            });
            assert!(used, "{kind:?} is never placed");
        }
    }
}
