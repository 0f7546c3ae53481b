//! One furnished room as plain data: its type and size, doors, furniture, the visible
//! props with their 3D positions, the agent's start pose and the room's prop chain.
//!
//! Why plain data: the scenario file stores rooms as they were generated, so the
//! environment, the renderer and anyone reading the JSON see the same room; nothing is
//! re-derived from a seed at play time. Geometry follows the render crate's conventions
//! (Unity's: metres, `x` right, `y` up, `z` forward, floor at `y = 0`); a room's floor
//! spans `[0, width] × [0, depth]` in its own frame, walls stand just outside it.

use serde::{Deserialize, Serialize};

use crate::chain::Chain;
use crate::furniture::{FurnitureKind, Placement, SurfaceKind};
use crate::geom::Rect;

/// Ceiling height of every generated room, metres.
pub const ROOM_HEIGHT: f32 = 2.8;
/// Door leaf width, metres.
pub const DOOR_WIDTH: f32 = 0.9;
/// Door leaf height, metres.
pub const DOOR_HEIGHT: f32 = 2.1;
/// Height of the agent's eyes (the camera), metres.
pub const EYE_HEIGHT: f32 = 1.5;
/// Radius the agent's body keeps from walls and furniture, metres.
pub const AGENT_RADIUS: f32 = 0.2;
/// Farthest horizontal distance from the agent at which a prop can be grabbed, metres.
/// The paper says "within its proximity" (App. C.1.2) without a number; this one lets an
/// agent standing at a table's edge reach its middle.
pub const REACH: f32 = 1.2;
/// The default *vertical* field of view, degrees: the original client opens LEGENT's
/// Unity camera with `camera_field_of_view=120` (`src/Game.py` of THUNLP-MT/EscapeCraft),
/// and Unity's `Camera.fieldOfView` is the vertical angle; on a 2:1 frame that is about
/// 147.8° across ([`default_horizontal_fov`]).
pub const DEFAULT_FOV: f32 = 120.0;
/// The default frame width, pixels (the original client's `camera_resolution_width`).
pub const DEFAULT_WIDTH: u32 = 2048;
/// The default frame height, pixels (the original client's `camera_resolution_height`).
pub const DEFAULT_HEIGHT: u32 = 1024;

/// The horizontal field of view of the default camera ([`DEFAULT_FOV`] vertical on a
/// [`DEFAULT_WIDTH`] × [`DEFAULT_HEIGHT`] frame), degrees: what `exit_visible_at_start`
/// and the start-pose check look through.
pub fn default_horizontal_fov() -> f32 {
    escapade_render::horizontal_fov(DEFAULT_FOV, DEFAULT_WIDTH, DEFAULT_HEIGHT)
}

/// The four styles of room (§3.3: living room, kitchen, bathroom, bedroom).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoomKind {
    /// Sofa, television, coffee table…
    LivingRoom,
    /// Counters, stove, fridge, dining table…
    Kitchen,
    /// Bathtub, toilet, washbasin…
    Bathroom,
    /// Bed, nightstands, wardrobe…
    Bedroom,
}

impl RoomKind {
    /// Every room type.
    pub const ALL: [RoomKind; 4] = [
        RoomKind::LivingRoom,
        RoomKind::Kitchen,
        RoomKind::Bathroom,
        RoomKind::Bedroom,
    ];

    /// Lowercase name with spaces (`living room`).
    pub fn label(self) -> &'static str {
        match self {
            RoomKind::LivingRoom => "living room",
            RoomKind::Kitchen => "kitchen",
            RoomKind::Bathroom => "bathroom",
            RoomKind::Bedroom => "bedroom",
        }
    }
}

/// A wall of the room, named by where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wall {
    /// At `z = depth` (ahead of a camera with yaw 0).
    North,
    /// At `x = width`.
    East,
    /// At `z = 0`.
    South,
    /// At `x = 0`.
    West,
}

impl Wall {
    /// All four, clockwise from north.
    pub const ALL: [Wall; 4] = [Wall::North, Wall::East, Wall::South, Wall::West];

    /// The quarter turns of a piece standing against this wall, facing into the room.
    pub fn facing_turns(self) -> u8 {
        match self {
            Wall::South => 0,
            Wall::West => 1,
            Wall::North => 2,
            Wall::East => 3,
        }
    }

    /// Length of the wall in a `width` × `depth` room.
    pub fn length(self, width: f32, depth: f32) -> f32 {
        match self {
            Wall::North | Wall::South => width,
            Wall::East | Wall::West => depth,
        }
    }

    /// The floor point at distance `offset` along the wall (measured along `x` for north
    /// and south walls, along `z` for east and west), and the unit normal into the room.
    pub fn point(self, offset: f32, width: f32, depth: f32) -> ((f32, f32), (f32, f32)) {
        match self {
            Wall::North => ((offset, depth), (0.0, -1.0)),
            Wall::South => ((offset, 0.0), (0.0, 1.0)),
            Wall::East => ((width, offset), (-1.0, 0.0)),
            Wall::West => ((0.0, offset), (1.0, 0.0)),
        }
    }

    /// Lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            Wall::North => "north",
            Wall::East => "east",
            Wall::South => "south",
            Wall::West => "west",
        }
    }
}

/// What a door is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DoorRole {
    /// The room's exit, locked by the chain's exit lock.
    Exit,
    /// The door the agent came in by (the second room of a multi-room scenario, §3.3); it
    /// stays shut and leads nowhere new.
    Entry,
}

/// A door in a wall.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Door {
    /// Exit or entry.
    pub role: DoorRole,
    /// The wall it is in.
    pub wall: Wall,
    /// Distance of its centre along the wall (see [`Wall::point`]), metres.
    pub offset: f32,
    /// Leaf width, metres.
    pub width: f32,
    /// Leaf height, metres.
    pub height: f32,
}

impl Door {
    /// Floor point at the door's centre and the normal into the room.
    pub fn anchor(&self, width: f32, depth: f32) -> ((f32, f32), (f32, f32)) {
        self.wall.point(self.offset, width, depth)
    }

    /// The floor area in front of the door kept clear of furniture (1.2 m deep, 0.3 m
    /// wider than the leaf on each side; 2.2 m deep for an entry, where the agent starts
    /// looking into the room and must see more than a piece of furniture).
    pub fn keep_clear(&self, width: f32, depth: f32) -> Rect {
        let ((x, z), (nx, nz)) = self.anchor(width, depth);
        let deep = match self.role {
            DoorRole::Exit => 1.2,
            DoorRole::Entry => 2.2,
        };
        let along = self.width + 0.6;
        let (cx, cz) = (x + nx * deep / 2.0, z + nz * deep / 2.0);
        if nx == 0.0 {
            Rect::centered(cx, cz, along, deep)
        } else {
            Rect::centered(cx, cz, deep, along)
        }
    }
}

/// One piece of furniture or decor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Furniture {
    /// Stable id in the room (`sofa_1`, `cup_2`), distinct from prop ids.
    pub id: String,
    /// What it is.
    pub kind: FurnitureKind,
    /// Where it stands.
    pub placement: Placement,
    /// Colour style 0..4.
    pub style: u8,
    /// For decor: the id of the furniture it stands on.
    pub on: Option<String>,
}

/// What holds a visible prop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Support {
    /// On a furniture surface (its top, or inside an open compartment).
    On {
        /// The furniture's id.
        furniture: String,
        /// Top or inside.
        surface: SurfaceKind,
    },
    /// On the floor.
    Floor,
    /// Hung on a wall (wall patterns).
    Wall {
        /// Which wall.
        wall: Wall,
    },
}

/// A visible prop of the chain, placed in the room.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlacedProp {
    /// The chain prop's id.
    pub id: String,
    /// Centre of its base (for a wall pattern: the centre of the picture), metres.
    pub position: [f32; 3],
    /// Width, height, depth before turning (a wall pattern: width, height, thickness).
    pub size: [f32; 3],
    /// Quarter turns about `y`, as for furniture.
    pub turns: u8,
    /// What holds it.
    pub support: Support,
}

impl PlacedProp {
    /// Its footprint on the floor plane.
    pub fn footprint(&self) -> Rect {
        let pl = Placement {
            x: self.position[0],
            y: self.position[1],
            z: self.position[2],
            turns: self.turns,
        };
        pl.rect_to_room(Rect::centered(0.0, 0.0, self.size[0], self.size[2]))
    }
}

/// Where the agent stands and looks at the start.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Pose {
    /// Position `x`, metres.
    pub x: f32,
    /// Position `z`, metres.
    pub z: f32,
    /// Heading in degrees about `y` (0 looks along `+z`, 90 along `+x`).
    pub yaw: f32,
}

/// A furnished room with its prop chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Room {
    /// Its style.
    pub kind: RoomKind,
    /// Floor extent along `x`, metres.
    pub width: f32,
    /// Floor extent along `z`, metres.
    pub depth: f32,
    /// Ceiling height, metres.
    pub height: f32,
    /// Its doors: the exit first, then the entry if it has one.
    pub doors: Vec<Door>,
    /// Furniture, then decor (decor after what it stands on).
    pub furniture: Vec<Furniture>,
    /// The chain's visible props, in chain order.
    pub props: Vec<PlacedProp>,
    /// The agent's start pose.
    pub start: Pose,
    /// Whether the exit door is in view from the start pose (the default camera's field
    /// of view, not hidden behind furniture): Fig. 4 and App. E analyse episodes by it.
    pub exit_visible_at_start: bool,
    /// The room's prop chain.
    pub chain: Chain,
}

/// Room sides and height a scenario file may give, metres: generated rooms are 4–7 m
/// wide and deep and about 2.8 m high; a file beyond these bounds is refused rather
/// than allocated (the floor grid has a cell every 0.1 m).
pub const ROOM_SIDES: std::ops::RangeInclusive<f32> = 2.0..=30.0;
/// Room heights a scenario file may give, metres.
pub const ROOM_HEIGHTS: std::ops::RangeInclusive<f32> = 2.0..=10.0;

impl Room {
    /// Checks what a hand-edited file could break before anything is built from it:
    /// sides and height within [`ROOM_SIDES`] / [`ROOM_HEIGHTS`], the start, doors,
    /// furniture and props at finite places inside the room.
    ///
    /// # Errors
    /// A message naming the first problem.
    pub fn check_geometry(&self) -> Result<(), String> {
        let (w, d, h) = (self.width, self.depth, self.height);
        if !ROOM_SIDES.contains(&w) || !ROOM_SIDES.contains(&d) || !ROOM_HEIGHTS.contains(&h) {
            return Err(format!(
                "size {w} × {d} × {h} m is outside 2–30 m sides and 2–10 m height"
            ));
        }
        let inside = |x: f32, z: f32| (0.0..=w).contains(&x) && (0.0..=d).contains(&z);
        if !inside(self.start.x, self.start.z) || !self.start.yaw.is_finite() {
            return Err("the start pose is not inside the room".into());
        }
        for door in &self.doors {
            let len = door.wall.length(w, d);
            let sane = |v: f32, hi: f32| v.is_finite() && (0.0..=hi).contains(&v);
            if !sane(door.offset, len) || !sane(door.width, len) || !sane(door.height, h) {
                return Err("a door does not fit its wall".into());
            }
        }
        for f in &self.furniture {
            let p = &f.placement;
            if !inside(p.x, p.z) || !p.y.is_finite() {
                return Err(format!("furniture `{}` is not inside the room", f.id));
            }
        }
        for p in &self.props {
            let [x, y, z] = p.position;
            let size_ok = p
                .size
                .iter()
                .all(|s| s.is_finite() && (0.0..=5.0).contains(s));
            if !inside(x, z) || !y.is_finite() || !size_ok {
                return Err(format!("prop `{}` is not inside the room", p.id));
            }
        }
        Ok(())
    }

    /// The exit door.
    pub fn exit(&self) -> Option<&Door> {
        self.doors.iter().find(|d| d.role == DoorRole::Exit)
    }

    /// The entry door, if the room has one.
    pub fn entry(&self) -> Option<&Door> {
        self.doors.iter().find(|d| d.role == DoorRole::Entry)
    }

    /// The furniture with this id.
    pub fn furniture(&self, id: &str) -> Option<&Furniture> {
        self.furniture.iter().find(|f| f.id == id)
    }

    /// The placed prop with this id.
    pub fn placed(&self, id: &str) -> Option<&PlacedProp> {
        self.props.iter().find(|p| p.id == id)
    }

    /// How many objects the room holds: furniture, decor and visible props, as the paper
    /// counts a scene's objects (§3.3 "Statistics"; walls, floor and doors excluded).
    pub fn object_count(&self) -> usize {
        self.furniture.len() + self.props.len()
    }

    /// The floor rectangle.
    pub fn floor(&self) -> Rect {
        Rect {
            x0: 0.0,
            z0: 0.0,
            x1: self.width,
            z1: self.depth,
        }
    }
}
