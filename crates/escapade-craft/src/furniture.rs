//! The furniture catalogue: what each room type holds, built from boxes and cylinders.
//!
//! Why: EscapeCraft furnishes its rooms from per-style collections of annotated 3D models
//! (App. C.1.1, after ProcTHOR). escapade has no Unity assets, so every piece is drawn
//! from primitives at real-world sizes (metres) with fitting materials. A kind knows its
//! size, whether it stands against a wall, its parts ([`parts`]), its footprint
//! ([`footprint`]) and the places a prop can sit ([`surfaces`]: a top, or an open
//! compartment inside, seen from the front).
//!
//! Local frame of a piece: origin at the centre of its footprint on its base, width along
//! `x`, depth along `z`, its front facing `+z`. A [`Placement`] turns it by quarter turns
//! about `y` (clockwise seen from above, like the camera's yaw) and moves it.

use escapade_render::Rgb;
use escapade_render::scene::{Material, Shape, Vec3};
use serde::{Deserialize, Serialize};

use crate::geom::Rect;
use crate::room::RoomKind;

/// Every piece of furniture and decor the generator knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)] // the names say what they are; sizes are in `spec`
pub enum FurnitureKind {
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
    // small decor that stands on other furniture
    Cup,
    Vase,
    Books,
    Bottle,
    FruitBowl,
    Pot,
    Towel,
}

/// Where a kind goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mount {
    /// Back against a wall, facing into the room.
    Wall,
    /// Anywhere on the floor, away from walls.
    Free,
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
    /// Whether it blocks walking (a rug does not).
    pub blocks: bool,
}

/// How a piece is put in the room.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    /// Centre of the footprint, `x`.
    pub x: f32,
    /// Height of its base (0 on the floor, a surface's height for decor).
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
    /// Every kind.
    pub const ALL: [FurnitureKind; 32] = [
        FurnitureKind::DiningTable,
        FurnitureKind::CoffeeTable,
        FurnitureKind::Chair,
        FurnitureKind::Sofa,
        FurnitureKind::Armchair,
        FurnitureKind::Bed,
        FurnitureKind::Nightstand,
        FurnitureKind::Wardrobe,
        FurnitureKind::Dresser,
        FurnitureKind::Desk,
        FurnitureKind::Bookshelf,
        FurnitureKind::Cabinet,
        FurnitureKind::Shelf,
        FurnitureKind::Counter,
        FurnitureKind::KitchenSink,
        FurnitureKind::Stove,
        FurnitureKind::Fridge,
        FurnitureKind::Vanity,
        FurnitureKind::Bathtub,
        FurnitureKind::Toilet,
        FurnitureKind::WashingMachine,
        FurnitureKind::Television,
        FurnitureKind::FloorLamp,
        FurnitureKind::Rug,
        FurnitureKind::Plant,
        FurnitureKind::Cup,
        FurnitureKind::Vase,
        FurnitureKind::Books,
        FurnitureKind::Bottle,
        FurnitureKind::FruitBowl,
        FurnitureKind::Pot,
        FurnitureKind::Towel,
    ];

    /// Its size and use.
    pub fn spec(self) -> Spec {
        use FurnitureKind::*;
        use Mount::*;
        let s = |w, h, d, mount| Spec {
            size: [w, h, d],
            mount,
            blocks: mount != Surface,
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
            FloorLamp => s(0.35, 1.6, 0.35, Wall),
            Rug => Spec {
                size: [2.0, 0.01, 1.4],
                mount: Free,
                blocks: false,
            },
            Plant => s(0.45, 1.0, 0.45, Wall),
            Cup => s(0.08, 0.1, 0.08, Surface),
            Vase => s(0.14, 0.25, 0.14, Surface),
            Books => s(0.25, 0.08, 0.18, Surface),
            Bottle => s(0.07, 0.25, 0.07, Surface),
            FruitBowl => s(0.24, 0.08, 0.24, Surface),
            Pot => s(0.2, 0.15, 0.2, Surface),
            Towel => s(0.3, 0.05, 0.2, Surface),
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
            Cup => "cup",
            Vase => "vase",
            Books => "books",
            Bottle => "bottle",
            FruitBowl => "fruit bowl",
            Pot => "pot",
            Towel => "towel",
        }
    }

    /// Whether it is small decor standing on other furniture.
    pub fn is_decor(self) -> bool {
        self.spec().mount == Mount::Surface
    }
}

/// What a room type holds: pieces it always has, pieces drawn at random, decor.
#[derive(Debug, Clone, Copy)]
pub struct Catalogue {
    /// Always placed (in this order, largest first).
    pub required: &'static [FurnitureKind],
    /// Drawn from at random.
    pub optional: &'static [FurnitureKind],
    /// Small things for surfaces.
    pub decor: &'static [FurnitureKind],
}

/// The collection of a room type (App. C.1.1: each style has its typical objects).
pub fn catalogue(room: RoomKind) -> Catalogue {
    use FurnitureKind::*;
    match room {
        RoomKind::LivingRoom => Catalogue {
            required: &[Sofa, Television, CoffeeTable],
            optional: &[
                Armchair,
                Bookshelf,
                Cabinet,
                Shelf,
                FloorLamp,
                Plant,
                Rug,
                Dresser,
                Desk,
                Chair,
                DiningTable,
            ],
            decor: &[Vase, Books, Cup, FruitBowl, Bottle],
        },
        RoomKind::Kitchen => Catalogue {
            required: &[Counter, KitchenSink, Stove, Fridge, DiningTable],
            optional: &[Chair, Chair, Cabinet, Shelf, Counter, Plant, Cabinet],
            decor: &[Pot, Cup, FruitBowl, Bottle, Vase],
        },
        RoomKind::Bathroom => Catalogue {
            required: &[Bathtub, Toilet, Vanity],
            optional: &[WashingMachine, Cabinet, Shelf, Plant, Shelf, Cabinet],
            decor: &[Towel, Bottle, Cup, Towel],
        },
        RoomKind::Bedroom => Catalogue {
            required: &[Bed, Nightstand, Wardrobe],
            optional: &[
                Nightstand, Dresser, Desk, Chair, Bookshelf, FloorLamp, Plant, Rug, Armchair,
                Television,
            ],
            decor: &[Books, Vase, Cup, Bottle],
        },
    }
}

/// The footprint of a piece on the floor (for decor: on the surface it stands on).
pub fn footprint(kind: FurnitureKind, pl: &Placement) -> Rect {
    let [w, _, d] = kind.spec().size;
    pl.rect_to_room(Rect::centered(0.0, 0.0, w, d))
}

/// Its height, metres.
pub fn height(kind: FurnitureKind) -> f32 {
    kind.spec().size[1]
}

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
    match kind {
        DiningTable | CoffeeTable | Desk | Dresser | Counter | Nightstand | WashingMachine => {
            vec![top(0.04)]
        }
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
        Shelf => vec![
            top(0.03),
            local(
                SurfaceKind::Inside,
                0.5,
                Rect::centered(0.0, 0.0, w - 0.08, d - 0.05),
                0.45,
            ),
        ],
        Bookshelf => [0.45, 0.9, 1.35]
            .iter()
            .map(|&y| {
                local(
                    SurfaceKind::Inside,
                    y,
                    Rect::centered(0.0, 0.0, w - 0.08, d - 0.05),
                    0.4,
                )
            })
            .collect(),
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

/// Colours for a style index (0..4), so two rooms of a type do not look alike.
fn palette(style: u8) -> (Material, Material, Rgb) {
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
    (
        Material::Wood {
            light,
            dark,
            scale: 0.05,
        },
        Material::Fabric { base, weave },
        accents[i],
    )
}

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

    /// An upright cylinder standing at local `(x, y, z)`.
    fn cylinder(&mut self, x: f32, y: f32, z: f32, radius: f32, height: f32, m: &Material) {
        let (wx, wz) = self.pl.to_room(x, z);
        self.out.push((
            Shape::Cylinder {
                base: Vec3::new(wx, self.pl.y + y, wz),
                radius,
                height,
            },
            m.clone(),
        ));
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
}

/// The primitives of a piece in the default style.
pub fn parts(kind: FurnitureKind, pl: &Placement) -> Vec<(Shape, Material)> {
    parts_styled(kind, pl, 0)
}

/// The primitives of a piece, coloured by `style` (0..4).
pub fn parts_styled(kind: FurnitureKind, pl: &Placement, style: u8) -> Vec<(Shape, Material)> {
    use FurnitureKind::*;
    let (wood, fabric, accent) = palette(style);
    let white = Material::Flat(Rgb(236, 236, 232));
    let steel = Material::Flat(Rgb(170, 174, 178));
    let dark = Material::Flat(Rgb(40, 40, 44));
    let black = Material::Flat(Rgb(18, 18, 20));
    let accent_m = Material::Flat(accent);
    let [w, h, d] = kind.spec().size;
    let (hw, hd) = (w / 2.0, d / 2.0);
    let mut b = Builder {
        pl,
        out: Vec::new(),
    };
    match kind {
        DiningTable | CoffeeTable | Desk => {
            b.cuboid(-hw, h - 0.04, -hd, hw, h, hd, &wood);
            b.legs(w, d, h - 0.04, 0.06, &wood);
            if kind == Desk {
                // a drawer block under the right side
                b.cuboid(
                    hw - 0.45,
                    h - 0.2,
                    -hd + 0.05,
                    hw - 0.05,
                    h - 0.04,
                    hd - 0.02,
                    &wood,
                );
                b.cuboid(
                    hw - 0.3,
                    h - 0.13,
                    hd - 0.02,
                    hw - 0.2,
                    h - 0.11,
                    hd,
                    &steel,
                );
            }
        }
        Chair => {
            b.cuboid(-hw, 0.42, -hd, hw, 0.46, hd, &wood);
            b.legs(w, d, 0.42, 0.04, &wood);
            b.cuboid(-hw, 0.46, -hd, hw, h, -hd + 0.04, &wood);
        }
        Sofa | Armchair => {
            b.cuboid(-hw, 0.1, -hd, hw, 0.42, hd, &fabric);
            b.cuboid(-hw, 0.1, -hd, hw, h, -hd + 0.2, &fabric);
            b.cuboid(-hw, 0.1, -hd, -hw + 0.15, 0.62, hd, &fabric);
            b.cuboid(hw - 0.15, 0.1, -hd, hw, 0.62, hd, &fabric);
            b.legs(w, d, 0.1, 0.05, &dark);
        }
        Bed => {
            let m = 0.55; // mattress top; `h` is the headboard's
            b.cuboid(-hw, 0.1, -hd, hw, 0.3, hd, &wood);
            b.legs(w, d, 0.1, 0.06, &wood);
            b.cuboid(-hw + 0.03, 0.3, -hd + 0.05, hw - 0.03, m, hd - 0.03, &white);
            b.cuboid(
                -hw + 0.02,
                0.45,
                -hd + 0.6,
                hw - 0.02,
                m + 0.03,
                hd - 0.02,
                &fabric,
            );
            b.cuboid(
                -hw + 0.15,
                m,
                -hd + 0.1,
                hw - 0.15,
                m + 0.12,
                -hd + 0.45,
                &white,
            );
            b.cuboid(-hw, 0.0, -hd, hw, h, -hd + 0.06, &wood);
        }
        Nightstand | Dresser => {
            b.cuboid(-hw, 0.05, -hd, hw, h, hd, &wood);
            let drawers = if kind == Nightstand { 2 } else { 3 };
            let step = (h - 0.1) / drawers as f32;
            for i in 0..drawers {
                let y = 0.1 + step * (i as f32 + 0.5);
                b.cuboid(-0.06, y - 0.015, hd, 0.06, y + 0.015, hd + 0.02, &steel);
            }
        }
        Wardrobe => {
            b.cuboid(-hw, 0.0, -hd, hw, h, hd, &wood);
            b.cuboid(-0.005, 0.05, hd, 0.005, h - 0.05, hd + 0.005, &dark);
            b.cuboid(-0.08, 1.0, hd, -0.05, 1.2, hd + 0.03, &steel);
            b.cuboid(0.05, 1.0, hd, 0.08, 1.2, hd + 0.03, &steel);
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
            if kind == Bookshelf {
                // a row of book spines on the bottom board
                for i in 0..6 {
                    let x = -hw + 0.06 + i as f32 * 0.05;
                    let m = if i % 2 == 0 { &fabric } else { &accent_m };
                    b.cuboid(x, 0.03, -hd + 0.04, x + 0.04, 0.3, hd - 0.06, m);
                }
            }
        }
        Cabinet => {
            // closed doors on the left half, an open cubby on the right
            b.cuboid(-hw, 0.0, -hd, hw, 0.08, hd, &wood);
            b.cuboid(-hw, h - 0.04, -hd, hw, h, hd, &wood);
            b.cuboid(-hw, 0.0, -hd, hw, h, -hd + 0.02, &wood);
            b.cuboid(-hw, 0.0, -hd, -hw + 0.03, h, hd, &wood);
            b.cuboid(hw - 0.03, 0.0, -hd, hw, h, hd, &wood);
            b.cuboid(-0.02, 0.0, -hd, 0.02, h, hd, &wood);
            b.cuboid(-hw + 0.03, 0.08, hd - 0.02, -0.02, h - 0.04, hd, &wood);
            b.cuboid(-0.1, 0.45, hd, -0.07, 0.6, hd + 0.02, &steel);
            b.cuboid(0.02, 0.45, -hd, hw - 0.03, 0.48, hd, &wood);
        }
        Counter | KitchenSink | Vanity | WashingMachine | Stove => {
            let body = match kind {
                Vanity | WashingMachine => &white,
                Stove => &steel,
                _ => &wood,
            };
            b.cuboid(-hw, 0.0, -hd, hw, h - 0.04, hd, body);
            let top = match kind {
                Counter | KitchenSink => Material::Flat(Rgb(90, 90, 96)),
                Stove => Material::Flat(Rgb(30, 30, 34)),
                _ => white.clone(),
            };
            b.cuboid(-hw, h - 0.04, -hd, hw, h, hd, &top);
            match kind {
                KitchenSink => {
                    b.cuboid(-0.3, h - 0.005, -0.2, 0.3, h, 0.2, &steel);
                    b.cylinder(0.0, h, -hd + 0.08, 0.02, 0.3, &steel);
                }
                Vanity => {
                    b.cylinder(0.12, h, 0.0, 0.17, 0.02, &white);
                    b.cylinder(0.12, h, -hd + 0.06, 0.015, 0.2, &steel);
                    // the mirror above
                    b.cuboid(-0.3, h + 0.35, -hd, 0.3, h + 1.0, -hd + 0.02, &steel);
                }
                Stove => {
                    for (x, z) in [(-0.14, -0.13), (0.14, -0.13), (-0.14, 0.13), (0.14, 0.13)] {
                        b.cylinder(x, h, z, 0.09, 0.01, &black);
                    }
                    b.cuboid(-hw + 0.05, 0.15, hd, hw - 0.05, 0.7, hd + 0.01, &dark);
                }
                WashingMachine => {
                    b.cuboid(-0.2, 0.2, hd, 0.2, 0.6, hd + 0.01, &dark);
                }
                _ => {
                    b.cuboid(-0.1, h - 0.15, hd, 0.1, h - 0.12, hd + 0.02, &steel);
                }
            }
        }
        Fridge => {
            b.cuboid(-hw, 0.0, -hd, hw, h, hd, &white);
            b.cuboid(-hw, 1.15, hd, hw, 1.17, hd + 0.005, &steel);
            b.cuboid(hw - 0.1, 0.6, hd, hw - 0.07, 1.05, hd + 0.04, &steel);
            b.cuboid(hw - 0.1, 1.25, hd, hw - 0.07, 1.6, hd + 0.04, &steel);
        }
        Bathtub => {
            b.cuboid(-hw, 0.0, -hd, hw, h, -hd + 0.06, &white);
            b.cuboid(-hw, 0.0, hd - 0.06, hw, h, hd, &white);
            b.cuboid(-hw, 0.0, -hd, -hw + 0.06, h, hd, &white);
            b.cuboid(hw - 0.06, 0.0, -hd, hw, h, hd, &white);
            b.cuboid(-hw, 0.0, -hd, hw, 0.1, hd, &white);
            b.cylinder(hw - 0.15, h - 0.15, -hd + 0.03, 0.02, 0.19, &steel);
        }
        Toilet => {
            b.cuboid(-hw, 0.0, -hd, hw, h, -hd + 0.2, &white);
            b.cylinder(0.0, 0.0, 0.08, 0.13, 0.38, &white);
            b.cylinder(0.0, 0.38, 0.08, 0.19, 0.04, &white);
        }
        Television => {
            b.cuboid(-hw, 0.05, -hd, hw, 0.5, hd, &wood);
            b.legs(w, d, 0.05, 0.05, &dark);
            b.cuboid(-0.1, 0.5, -0.1, 0.1, 0.55, 0.05, &black);
            b.cylinder(0.0, 0.55, -0.03, 0.03, 0.05, &black);
            b.cuboid(-0.55, 0.55, -0.05, 0.55, h, -0.01, &black);
            b.cuboid(
                -0.52,
                0.58,
                -0.01,
                0.52,
                h - 0.03,
                0.0,
                &Material::Flat(Rgb(28, 34, 48)),
            );
        }
        FloorLamp => {
            b.cylinder(0.0, 0.0, 0.0, 0.15, 0.03, &dark);
            b.cylinder(0.0, 0.03, 0.0, 0.015, 1.3, &dark);
            b.cylinder(
                0.0,
                1.3,
                0.0,
                0.17,
                0.3,
                &Material::Flat(Rgb(245, 232, 200)),
            );
        }
        Rug => {
            b.cuboid(
                -hw,
                0.0,
                -hd,
                hw,
                h,
                hd,
                &Material::Fabric {
                    base: accent,
                    weave: Rgb(240, 236, 226),
                },
            );
        }
        Plant => {
            b.cylinder(0.0, 0.0, 0.0, 0.16, 0.35, &Material::Flat(Rgb(170, 90, 60)));
            b.cylinder(
                0.0,
                0.35,
                0.0,
                0.22,
                0.65,
                &Material::Flat(Rgb(60, 120, 60)),
            );
        }
        Cup => b.cylinder(0.0, 0.0, 0.0, 0.04, h, &accent_m),
        Vase => {
            b.cylinder(0.0, 0.0, 0.0, 0.07, 0.2, &accent_m);
            b.cylinder(0.0, 0.2, 0.0, 0.03, 0.05, &accent_m);
        }
        Books => {
            b.cuboid(-hw, 0.0, -hd, hw, 0.04, hd, &fabric);
            b.cuboid(
                -hw + 0.01,
                0.04,
                -hd + 0.01,
                hw - 0.02,
                h,
                hd - 0.01,
                &accent_m,
            );
        }
        Bottle => {
            b.cylinder(
                0.0,
                0.0,
                0.0,
                0.035,
                0.18,
                &Material::Flat(Rgb(60, 120, 80)),
            );
            b.cylinder(
                0.0,
                0.18,
                0.0,
                0.012,
                0.07,
                &Material::Flat(Rgb(60, 120, 80)),
            );
        }
        FruitBowl => {
            b.cylinder(0.0, 0.0, 0.0, 0.12, 0.05, &white);
            b.cylinder(
                -0.04,
                0.05,
                0.0,
                0.035,
                0.03,
                &Material::Flat(Rgb(220, 60, 40)),
            );
            b.cylinder(
                0.04,
                0.05,
                0.02,
                0.035,
                0.03,
                &Material::Flat(Rgb(240, 180, 40)),
            );
        }
        Pot => {
            b.cylinder(0.0, 0.0, 0.0, 0.1, 0.13, &steel);
            b.cylinder(0.0, 0.13, 0.0, 0.104, 0.02, &dark);
        }
        Towel => b.cuboid(
            -hw,
            0.0,
            -hd,
            hw,
            h,
            hd,
            &Material::Fabric {
                base: accent,
                weave: Rgb(250, 250, 250),
            },
        ),
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
                let fp = footprint(kind, &pl).grow(0.05); // handles stand proud of the front
                let parts = parts(kind, &pl);
                assert!(!parts.is_empty(), "{kind:?}");
                for (shape, _) in &parts {
                    let b = Aabb::of(shape);
                    assert!(
                        fp.contains(b.min.x, b.min.z) && fp.contains(b.max.x, b.max.z),
                        "{kind:?} turn {turns}: {b:?} outside {fp:?}"
                    );
                    // the vanity's mirror and the sink's tap rise above their tops
                    let top = match kind {
                        FurnitureKind::Vanity => 1.9,
                        FurnitureKind::KitchenSink => 1.25,
                        _ => height(kind) + 0.05,
                    };
                    assert!(b.max.y <= top && b.min.y >= 0.0, "{kind:?}");
                }
                for s in surfaces(kind, &pl) {
                    assert!(footprint(kind, &pl).contains_rect(&s.area), "{kind:?}");
                    assert!(s.y > 0.0 && s.y <= height(kind) + 1e-4);
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
    fn every_room_type_has_surfaces_for_props() {
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
        }
    }
}
