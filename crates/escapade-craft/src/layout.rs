//! The room generator (App. C.1.1): a seeded, furnished room around a prop chain, with
//! the floor checks that keep it playable.
//!
//! Why these steps: EscapeCraft places each style's typical objects in a room "in a
//! manner consistent with real life" and the props among them; escapade does the same
//! from primitives, and then *proves* the room playable instead of trusting the
//! placement. In order:
//!
//! 1. room type (unless given), size 4–7 m × 4–7 m on a 10 cm grid, height 2.8 m;
//! 2. the exit door (and the entry door of a second room) in a wall, with a clear area in
//!    front of each;
//! 3. the type's required furniture, then 3–6 optional pieces: wall pieces backed against
//!    a wall, free pieces with walking space around them, chairs at tables and desks; a
//!    piece that would cut off part of the walkable floor is dropped;
//! 4. the chain's visible props on or in furniture (a box on a table, shelf or the floor,
//!    a note on a top, a key on any surface; a wall pattern on a wall, clear of the door
//!    and of tall furniture); hidden props are not placed;
//! 5. decor on the remaining surfaces (none, one or two things each);
//! 6. the start pose on a walkable cell (the second room of a multi-room scenario starts
//!    at its entry), then the checks: on an occupancy grid of [`CELL`] cells the start
//!    must reach the exit, the entry and a cell within [`REACH`](crate::room::REACH) of
//!    every visible prop ([`check_floor`], breadth-first search);
//! 7. `exit_visible_at_start` from the start pose ([`exit_visible`]).
//!
//! An attempt that fails a check is drawn again from a derived seed, at most
//! [`MAX_ATTEMPTS`] times. Lengths are drawn in whole centimetres and only basic float
//! operations (and `libm` for angles) are used, so the same request gives the same bytes.

use std::collections::{BTreeMap, VecDeque};

use escapade_render::scene::Vec3;
use rand::Rng;
use rand::seq::{IndexedRandom, SliceRandom};

use crate::CraftError;
use crate::chain::{Chain, PropKind};
use crate::furniture::{
    self, Catalogue, FurnitureKind, Mount, Placement, Surface, SurfaceKind, catalogue, footprint,
    surfaces,
};
use crate::geom::{Aabb, Rect};
use crate::room::Door;
use crate::room::{
    AGENT_RADIUS, DOOR_HEIGHT, DOOR_WIDTH, DoorRole, EYE_HEIGHT, Furniture, PlacedProp, Pose,
    REACH, ROOM_HEIGHT, Room, RoomKind, Support, Wall,
};

/// How many derived seeds [`furnish`] tries before giving up.
pub const MAX_ATTEMPTS: u64 = 48;
/// Side of an occupancy grid cell, metres.
pub const CELL: f32 = 0.1;
/// The least free floor the start pose looks across ([`free_view`]), metres: never a
/// wall or a piece of furniture at arm's length.
pub const MIN_START_VIEW: f32 = 1.5;
/// How many (spot, heading) pairs [`furnish`] draws for a start with a free view.
const START_DRAWS: usize = 400;
/// The headings, relative to the start's, along which [`free_view`] measures, degrees.
pub const VIEW_RAYS: [f32; 3] = [-10.0, 0.0, 10.0];

/// How many objects a room of a `hops`-hop chain holds (furniture, decor, things on the
/// walls and the visible props), drawn from `rng`: spread around the means MM-Escape
/// §3.3 reports for its scenes — 20.18 at Difficulty-1, 14.55 at Difficulty-2, 15.24 at
/// Difficulty-3 (longer chains are furnished as Difficulty-3).
pub fn target_objects(hops: u32, rng: &mut R) -> usize {
    let (lo, hi) = match hops {
        0 | 1 => (18, 22),
        2 => (13, 16),
        _ => (14, 17),
    };
    rng.random_range(lo..=hi)
}

/// Sizes of the props drawn in the room: width, height, depth (metres).
pub fn prop_size(kind: &PropKind) -> [f32; 3] {
    match kind {
        PropKind::Key { .. } => [0.09, 0.02, 0.035],
        PropKind::Box { .. } => [0.32, 0.2, 0.24],
        PropKind::Note { .. } => [0.15, 0.003, 0.21],
        PropKind::WallPattern { .. } => [0.7, 0.45, 0.01],
        PropKind::Password { .. } => [0.0; 3],
    }
}

/// What [`furnish`] builds.
#[derive(Debug, Clone, PartialEq)]
pub struct RoomRequest {
    /// The room type, or `None` to draw it from the seed.
    pub kind: Option<RoomKind>,
    /// The room's prop chain (validated by the caller or here).
    pub chain: Chain,
    /// The seed of every choice.
    pub seed: u64,
    /// Whether the room has an entry door and the agent starts there (the second room of
    /// a multi-room scenario).
    pub with_entry: bool,
}

/// A furnished room for `req`.
///
/// # Errors
/// [`CraftError::InvalidChain`] when the chain does not validate; [`CraftError::Layout`]
/// when no attempt passes the checks (a generator bug).
pub fn furnish(req: &RoomRequest) -> Result<Room, CraftError> {
    req.chain.validate()?;
    let mut last = String::new();
    for attempt in 0..MAX_ATTEMPTS {
        let mut rng =
            escapade_core::seed::rng(escapade_core::seed::derive(req.seed, "craft/room", attempt));
        match attempt_room(req, &mut rng) {
            Ok(room) => return Ok(room),
            Err(why) => last = why,
        }
    }
    Err(CraftError::Layout {
        seed: req.seed,
        attempts: MAX_ATTEMPTS,
        last,
    })
}

type R = escapade_core::seed::Rng;

fn cm(rng: &mut R, lo: f32, hi: f32) -> f32 {
    let (a, b) = ((lo * 100.0).ceil() as i32, (hi * 100.0).floor() as i32);
    if b <= a {
        return a as f32 / 100.0;
    }
    rng.random_range(a..=b) as f32 / 100.0
}

struct Draft {
    kind: RoomKind,
    width: f32,
    depth: f32,
    doors: Vec<Door>,
    furniture: Vec<Furniture>,
    props: Vec<PlacedProp>,
    counters: BTreeMap<FurnitureKind, u32>,
    /// things standing on surfaces: (furniture id, surface index, footprint)
    on_surfaces: Vec<(String, usize, Rect)>,
}

impl Draft {
    fn floor(&self) -> Rect {
        Rect {
            x0: 0.0,
            z0: 0.0,
            x1: self.width,
            z1: self.depth,
        }
    }

    fn next_id(&mut self, kind: FurnitureKind) -> String {
        let n = self.counters.entry(kind).or_insert(0);
        *n += 1;
        format!("{}_{n}", kind.label().replace(' ', "_"))
    }

    /// Floor rectangles already taken (furniture standing on the floor other than rugs,
    /// which things may stand on, and floor props).
    fn taken(&self) -> impl Iterator<Item = Rect> + '_ {
        let furniture = self
            .furniture
            .iter()
            .filter(|f| f.kind.stands_on_floor() && f.kind != FurnitureKind::Rug)
            .map(|f| footprint(f.kind, &f.placement));
        let props = self
            .props
            .iter()
            .filter(|p| p.support == Support::Floor)
            .map(PlacedProp::footprint);
        furniture.chain(props)
    }

    fn fits(&self, r: &Rect, gap: f32) -> bool {
        self.floor().contains_rect(r)
            && !self.taken().any(|t| t.grow(gap).overlaps(r))
            && !self
                .doors
                .iter()
                .any(|d| d.keep_clear(self.width, self.depth).overlaps(r))
    }

    /// Whether a rug fits at `r`: on the floor, off the doors' clear areas, on no other
    /// rug (furniture may stand on it).
    fn rug_fits(&self, r: &Rect) -> bool {
        self.floor().contains_rect(r)
            && !self
                .furniture
                .iter()
                .filter(|f| f.kind == FurnitureKind::Rug)
                .any(|f| footprint(f.kind, &f.placement).overlaps(r))
            && !self
                .doors
                .iter()
                .any(|d| d.keep_clear(self.width, self.depth).overlaps(r))
    }

    /// How many objects the room holds so far (as [`Room::object_count`] counts them).
    fn objects(&self) -> usize {
        self.furniture.len() + self.props.len()
    }

    fn push(&mut self, kind: FurnitureKind, placement: Placement, style: u8, on: Option<String>) {
        let id = self.next_id(kind);
        self.furniture.push(Furniture {
            id,
            kind,
            placement,
            style,
            on,
        });
    }

    /// The room so far with a start pose at the origin (for checks that need no start).
    fn probe(&self, chain: &Chain) -> Room {
        self.as_room(
            chain,
            Pose {
                x: 0.0,
                z: 0.0,
                yaw: 0.0,
            },
        )
    }

    fn as_room(&self, chain: &Chain, start: Pose) -> Room {
        Room {
            kind: self.kind,
            width: self.width,
            depth: self.depth,
            height: ROOM_HEIGHT,
            doors: self.doors.clone(),
            furniture: self.furniture.clone(),
            props: self.props.clone(),
            start,
            exit_visible_at_start: false,
            chain: chain.clone(),
        }
    }
}

fn attempt_room(req: &RoomRequest, rng: &mut R) -> Result<Room, String> {
    let kind = req
        .kind
        .unwrap_or_else(|| *RoomKind::ALL.choose(rng).expect("four kinds"));
    let width = rng.random_range(40..=70) as f32 / 10.0;
    let depth = rng.random_range(40..=70) as f32 / 10.0;
    let mut walls = Wall::ALL.to_vec();
    walls.shuffle(rng);
    let mut doors = Vec::new();
    for (i, role) in [DoorRole::Exit, DoorRole::Entry].into_iter().enumerate() {
        if role == DoorRole::Entry && !req.with_entry {
            continue;
        }
        let wall = walls[i];
        let len = wall.length(width, depth);
        doors.push(Door {
            role,
            wall,
            offset: cm(rng, 0.9, len - 0.9),
            width: DOOR_WIDTH,
            height: DOOR_HEIGHT,
        });
    }
    let style = rng.random_range(0..4u8);
    let mut d = Draft {
        kind,
        width,
        depth,
        doors,
        furniture: Vec::new(),
        props: Vec::new(),
        counters: BTreeMap::new(),
        on_surfaces: Vec::new(),
    };
    let cat = catalogue(kind);
    let props = req.chain.placed().count();
    let target = target_objects(req.chain.hops().unwrap_or(1), rng).max(props + cat.required.len());
    for &k in cat.required {
        if !place_piece(&mut d, k, style, rng) {
            return Err(format!("no room for the required {}", k.label()));
        }
    }
    // a little under half of what the target leaves goes to larger pieces, the rest to
    // decor and things on the walls
    let left = target.saturating_sub(props + cat.required.len());
    let mut optional = cat.optional.to_vec();
    optional.shuffle(rng);
    let extra = (left * 9 / 20 + rng.random_range(0..=1usize)).clamp(1, optional.len());
    let mut placed = 0;
    for &k in &optional {
        if placed == extra {
            break;
        }
        if place_piece(&mut d, k, style, rng) {
            placed += 1;
        }
    }
    for prop in req.chain.placed() {
        if !place_prop(&mut d, prop, rng) {
            return Err(format!("no place for prop {}", prop.id));
        }
    }
    fill(&mut d, &req.chain, &cat, target, style, rng);

    let probe = d.probe(&req.chain);
    let grid = Grid::of(&probe);
    let exit = probe.exit().expect("an exit").to_owned();
    let (ex, ez) = approach(&exit, width, depth);
    let from_exit = grid.flood(grid.cell_of(ex, ez).ok_or("exit approach off the grid")?);
    let start = if let Some(entry) = probe.entry() {
        let (x, z) = approach(entry, width, depth);
        let (_, (nx, nz)) = entry.anchor(width, depth);
        Pose {
            x,
            z,
            yaw: yaw_of(nx, nz),
        }
    } else {
        let (dx, dz) = exit.anchor(width, depth).0;
        let cells: Vec<(usize, usize)> = grid
            .cells()
            .filter(|&(i, j)| {
                let (x, z) = grid.center(i, j);
                from_exit[grid.index(i, j)]
                    && (x - dx) * (x - dx) + (z - dz) * (z - dz) >= 1.5 * 1.5
            })
            .collect();
        // a random spot and heading, redrawn while the view is blocked at arm's length
        // (§3.3 and Fig. 4 keep the start random: the exit may or may not be in view)
        let mut pose = None;
        for _ in 0..START_DRAWS {
            let &(i, j) = cells.choose(rng).ok_or("no free cell for the start")?;
            let (x, z) = grid.center(i, j);
            let p = Pose {
                x,
                z,
                yaw: rng.random_range(0..24) as f32 * 15.0,
            };
            if free_view(&probe, &p) >= MIN_START_VIEW {
                pose = Some(p);
                break;
            }
        }
        pose.ok_or("no start pose with a free view")?
    };
    if free_view(&probe, &start) < MIN_START_VIEW {
        return Err("the start faces something at arm's length".into());
    }
    let mut room = d.as_room(&req.chain, start);
    check_floor(&room)?;
    room.exit_visible_at_start =
        exit_visible(&room, &room.start, crate::room::default_horizontal_fov());
    Ok(room)
}

/// The heading (degrees) of a floor direction.
fn yaw_of(nx: f32, nz: f32) -> f32 {
    match (nx, nz) {
        (x, _) if x > 0.5 => 90.0,
        (x, _) if x < -0.5 => 270.0,
        (_, z) if z < -0.5 => 180.0,
        _ => 0.0,
    }
}

/// The floor point 0.6 m inside a door, where an agent stands to use it.
pub fn approach(door: &Door, width: f32, depth: f32) -> (f32, f32) {
    let ((x, z), (nx, nz)) = door.anchor(width, depth);
    (x + nx * 0.6, z + nz * 0.6)
}

fn place_piece(d: &mut Draft, kind: FurnitureKind, style: u8, rng: &mut R) -> bool {
    let spec = kind.spec();
    let [w, _, dep] = spec.size;
    let before = Grid::of_draft(d).unreachable_count(d);
    for _ in 0..60 {
        let placement = match (kind, spec.mount) {
            (FurnitureKind::Chair | FurnitureKind::Stool, _) => match chair_spot(d, rng) {
                Some(p) => p,
                None => free_spot(d, w, dep, rng),
            },
            (_, Mount::Wall) => {
                let wall = *Wall::ALL.choose(rng).expect("walls");
                let len = wall.length(d.width, d.depth);
                if len < w + 0.1 {
                    continue;
                }
                let offset = cm(rng, w / 2.0 + 0.02, len - w / 2.0 - 0.02);
                let ((x, z), (nx, nz)) = wall.point(offset, d.width, d.depth);
                let inset = dep / 2.0 + 0.01;
                Placement {
                    x: x + nx * inset,
                    y: 0.0,
                    z: z + nz * inset,
                    turns: wall.facing_turns(),
                }
            }
            _ => free_spot(d, w, dep, rng),
        };
        let rect = footprint(kind, &placement);
        let gap = match (kind, spec.mount) {
            (FurnitureKind::Chair | FurnitureKind::Stool, _) => 0.01,
            (_, Mount::Free) => 0.55,
            _ => 0.02,
        };
        let fits = if kind == FurnitureKind::Rug {
            d.rug_fits(&rect)
        } else {
            d.fits(&rect, gap)
        };
        if !fits {
            continue;
        }
        d.push(kind, placement, style, None);
        // a piece that shuts off part of the floor is taken back out
        if spec.blocks && Grid::of_draft(d).unreachable_count(d) > before + 30 {
            d.furniture.pop();
            if let Some(n) = d.counters.get_mut(&kind) {
                *n -= 1;
            }
            continue;
        }
        return true;
    }
    false
}

fn free_spot(d: &Draft, w: f32, dep: f32, rng: &mut R) -> Placement {
    let turns = rng.random_range(0..4u8);
    let (hw, hd) = if turns % 2 == 0 {
        (w / 2.0, dep / 2.0)
    } else {
        (dep / 2.0, w / 2.0)
    };
    let margin = 0.6;
    Placement {
        x: cm(rng, hw + margin, d.width - hw - margin),
        y: 0.0,
        z: cm(rng, hd + margin, d.depth - hd - margin),
        turns,
    }
}

/// A spot for a chair at a table or desk, facing it.
fn chair_spot(d: &Draft, rng: &mut R) -> Option<Placement> {
    let tables: Vec<&Furniture> = d
        .furniture
        .iter()
        .filter(|f| {
            matches!(
                f.kind,
                FurnitureKind::DiningTable | FurnitureKind::Desk | FurnitureKind::CoffeeTable
            )
        })
        .collect();
    let t = tables.choose(rng)?;
    let [tw, _, td] = t.kind.spec().size;
    let front_only = t.kind.spec().mount == Mount::Wall;
    let side: f32 = if front_only || rng.random_bool(0.5) {
        1.0
    } else {
        -1.0
    };
    let along = cm(rng, -tw / 2.0 + 0.25, tw / 2.0 - 0.25);
    let (x, z) = t.placement.to_room(along, side * (td / 2.0 + 0.27));
    let turns = if side > 0.0 {
        (t.placement.turns + 2) % 4
    } else {
        t.placement.turns
    };
    Some(Placement {
        x: (x * 100.0).round() / 100.0,
        y: 0.0,
        z: (z * 100.0).round() / 100.0,
        turns,
    })
}

/// Surfaces of non-decor furniture: (furniture index, surface index, surface).
fn all_surfaces(d: &Draft) -> Vec<(usize, usize, Surface)> {
    d.furniture
        .iter()
        .enumerate()
        .filter(|(_, f)| f.kind.stands_on_floor())
        .flat_map(|(i, f)| {
            surfaces(f.kind, &f.placement)
                .into_iter()
                .enumerate()
                .map(move |(s, surf)| (i, s, surf))
        })
        .collect()
}

/// Tries to put something of footprint `w` × `dep` and height `h` on surface `s` of
/// furniture `fi`; returns its placement.
fn on_surface(
    d: &mut Draft,
    fi: usize,
    si: usize,
    surf: &Surface,
    size: [f32; 3],
    turns: u8,
    rng: &mut R,
) -> Option<Placement> {
    if surf.headroom < size[1] + 0.02 {
        return None;
    }
    let fid = d.furniture[fi].id.clone();
    for _ in 0..12 {
        let probe = Placement {
            x: 0.0,
            y: surf.y,
            z: 0.0,
            turns,
        };
        let r0 = probe.rect_to_room(Rect::centered(0.0, 0.0, size[0], size[2]));
        let (hw, hd) = (r0.width() / 2.0, r0.depth() / 2.0);
        if surf.area.width() < 2.0 * hw || surf.area.depth() < 2.0 * hd {
            return None;
        }
        let x = cm(rng, surf.area.x0 + hw, surf.area.x1 - hw);
        let z = cm(rng, surf.area.z0 + hd, surf.area.z1 - hd);
        let pl = Placement {
            x,
            y: surf.y,
            z,
            turns,
        };
        let rect = pl.rect_to_room(Rect::centered(0.0, 0.0, size[0], size[2]));
        if !surf.area.contains_rect(&rect) {
            continue;
        }
        let clash = d
            .on_surfaces
            .iter()
            .any(|(f, s, r)| *f == fid && *s == si && r.grow(0.02).overlaps(&rect));
        if clash {
            continue;
        }
        d.on_surfaces.push((fid.clone(), si, rect));
        return Some(pl);
    }
    None
}

fn place_prop(d: &mut Draft, prop: &crate::chain::Prop, rng: &mut R) -> bool {
    let size = prop_size(&prop.kind);
    if let PropKind::WallPattern { .. } = prop.kind {
        return place_pattern(d, &prop.id, size, rng);
    }
    let mut options: Vec<(usize, usize, Surface)> = all_surfaces(d)
        .into_iter()
        .filter(|(_, _, s)| match prop.kind {
            PropKind::Note { .. } => s.kind == SurfaceKind::Top,
            _ => true,
        })
        .collect();
    options.shuffle(rng);
    let floor_ok = matches!(prop.kind, PropKind::Box { .. });
    // a box goes on the floor one time in four, or when no surface holds it
    if floor_ok && rng.random_bool(0.25) && place_on_floor(d, &prop.id, size, rng) {
        return true;
    }
    for (fi, si, surf) in options {
        let turns = match prop.kind {
            PropKind::Key { .. } => rng.random_range(0..4u8),
            _ => d.furniture[fi].placement.turns,
        };
        if let Some(pl) = on_surface(d, fi, si, &surf, size, turns, rng) {
            d.props.push(PlacedProp {
                id: prop.id.clone(),
                position: [pl.x, pl.y, pl.z],
                size,
                turns,
                support: Support::On {
                    furniture: d.furniture[fi].id.clone(),
                    surface: surf.kind,
                },
            });
            return true;
        }
    }
    floor_ok && place_on_floor(d, &prop.id, size, rng)
}

fn place_on_floor(d: &mut Draft, id: &str, size: [f32; 3], rng: &mut R) -> bool {
    for _ in 0..40 {
        let turns = rng.random_range(0..4u8);
        let pl = Placement {
            x: cm(rng, 0.3, d.width - 0.3),
            y: 0.0,
            z: cm(rng, 0.3, d.depth - 0.3),
            turns,
        };
        let rect = pl.rect_to_room(Rect::centered(0.0, 0.0, size[0], size[2]));
        if !d.fits(&rect, 0.1) {
            continue;
        }
        d.props.push(PlacedProp {
            id: id.into(),
            position: [pl.x, 0.0, pl.z],
            size,
            turns,
            support: Support::Floor,
        });
        return true;
    }
    false
}

/// A random place for something `w` wide on a random wall: at least `end` from the
/// wall's ends and `door_gap` clear of its doors' leaves; `None` when the draw fails.
fn wall_slot(d: &Draft, w: f32, end: f32, door_gap: f32, rng: &mut R) -> Option<(Wall, f32)> {
    let wall = *Wall::ALL.choose(rng).expect("walls");
    let len = wall.length(d.width, d.depth);
    if len < w + 2.0 * end + 0.1 {
        return None;
    }
    let offset = cm(rng, w / 2.0 + end, len - w / 2.0 - end);
    d.doors
        .iter()
        .filter(|door| door.wall == wall)
        .all(|door| (door.offset - offset).abs() > (door.width + w) / 2.0 + door_gap)
        .then_some((wall, offset))
}

fn place_pattern(d: &mut Draft, id: &str, size: [f32; 3], rng: &mut R) -> bool {
    let (pw, ph) = (size[0], size[1]);
    let y = 1.5;
    for _ in 0..40 {
        let Some((wall, offset)) = wall_slot(d, pw, 0.1, 0.2, rng) else {
            continue;
        };
        let ((x, z), (nx, nz)) = wall.point(offset, d.width, d.depth);
        // the strip of floor in front of the picture must hold nothing reaching its bottom
        let strip = if nx == 0.0 {
            Rect::centered(x, z + nz * 0.4, pw, 0.8)
        } else {
            Rect::centered(x + nx * 0.4, z, 0.8, pw)
        };
        let hidden = d
            .furniture
            .iter()
            .filter(|f| f.kind.stands_on_floor())
            .any(|f| {
                furniture::height(f.kind) > y - ph / 2.0 - 0.05
                    && footprint(f.kind, &f.placement).overlaps(&strip)
            });
        if hidden {
            continue;
        }
        d.props.push(PlacedProp {
            id: id.into(),
            position: [x + nx * 0.01, y, z + nz * 0.01],
            size,
            turns: wall.facing_turns(),
            support: Support::Wall { wall },
        });
        return true;
    }
    false
}

/// Adds decor on surfaces and things on the walls until the room holds `target`
/// objects (or no more fit): about one thing in four goes on a wall. A thing that would
/// hide a visible prop from every spot it can be grabbed from is taken back out.
fn fill(d: &mut Draft, chain: &Chain, cat: &Catalogue, target: usize, style: u8, rng: &mut R) {
    let mut guard = PropGuard::new(d, chain);
    let mut hung = 0usize;
    let mut misses = 0;
    while d.objects() < target && misses < 40 {
        let on_wall = hung < 4 && rng.random_range(0..4) == 0;
        let before = d.furniture.len();
        let ok = if on_wall {
            let kind = *cat.hung.choose(rng).expect("hung things");
            place_hung(d, kind, style, rng)
        } else {
            let kind = *cat.decor.choose(rng).expect("decor");
            place_decor(d, kind, rng)
        };
        if ok && !guard.still_seen(d, chain) {
            d.furniture.truncate(before);
            if !on_wall {
                d.on_surfaces.pop();
            }
            misses += 1;
            continue;
        }
        if ok {
            hung += usize::from(on_wall);
        } else {
            misses += 1;
        }
    }
}

/// One decor item of `kind` on a random surface that holds it.
fn place_decor(d: &mut Draft, kind: FurnitureKind, rng: &mut R) -> bool {
    let mut options = all_surfaces(d);
    options.shuffle(rng);
    for (fi, si, surf) in options.into_iter().take(6) {
        let turns = d.furniture[fi].placement.turns;
        if let Some(pl) = on_surface(d, fi, si, &surf, kind.spec().size, turns, rng) {
            let style = rng.random_range(0..4u8);
            let on = Some(d.furniture[fi].id.clone());
            d.push(kind, pl, style, on);
            return true;
        }
    }
    false
}

/// The box around every part of a piece.
fn piece_box(kind: FurnitureKind, pl: &Placement) -> Aabb {
    furniture::parts(kind, pl)
        .iter()
        .map(|(s, _)| Aabb::of(s))
        .reduce(|a, b| Aabb {
            min: a.min.min(b.min),
            max: a.max.max(b.max),
        })
        .unwrap_or(Aabb {
            min: Vec3::splat(f32::INFINITY),
            max: Vec3::splat(f32::NEG_INFINITY),
        })
}

fn boxes_overlap(a: &Aabb, b: &Aabb) -> bool {
    a.min.x < b.max.x
        && b.min.x < a.max.x
        && a.min.y < b.max.y
        && b.min.y < a.max.y
        && a.min.z < b.max.z
        && b.min.z < a.max.z
}

/// Hangs one `kind` on a wall: clear of the doors, touching nothing else, with nothing
/// tall in front of it; a wall cabinet only above a kitchen counter, sink or stove.
fn place_hung(d: &mut Draft, kind: FurnitureKind, style: u8, rng: &mut R) -> bool {
    let [w, h, dep] = kind.spec().size;
    let y = kind.hang_height();
    for _ in 0..30 {
        let Some((wall, offset)) = wall_slot(d, w, 0.15, 0.15, rng) else {
            continue;
        };
        let ((x, z), (nx, nz)) = wall.point(offset, d.width, d.depth);
        let inset = dep / 2.0 + 0.005;
        let pl = Placement {
            x: x + nx * inset,
            y,
            z: z + nz * inset,
            turns: wall.facing_turns(),
        };
        let bx = piece_box(kind, &pl);
        let grown = Aabb {
            min: bx.min - Vec3::splat(0.05),
            max: bx.max + Vec3::splat(0.05),
        };
        // the space in front, as deep as a person stands to look at it
        let front = footprint(kind, &pl).grow(0.0);
        let strip = if nx == 0.0 {
            Rect::centered(front.center().0, z + nz * 0.45, w, 0.9)
        } else {
            Rect::centered(x + nx * 0.45, front.center().1, 0.9, w)
        };
        let view = Aabb {
            min: Vec3::new(strip.x0, y, strip.z0),
            max: Vec3::new(strip.x1, y + h, strip.z1),
        };
        let blocked = d.furniture.iter().any(|f| {
            let other = piece_box(f.kind, &f.placement);
            boxes_overlap(&grown, &other)
                || (f.kind.stands_on_floor() && boxes_overlap(&view, &other))
        }) || d.props.iter().any(|p| {
            let r = p.footprint();
            let pb = Aabb {
                min: Vec3::new(r.x0, p.position[1] - p.size[1], r.z0),
                max: Vec3::new(r.x1, p.position[1] + p.size[1], r.z1),
            };
            boxes_overlap(&grown, &pb)
        });
        if blocked {
            continue;
        }
        if kind == FurnitureKind::UpperCabinet {
            let under = d.furniture.iter().any(|f| {
                matches!(
                    f.kind,
                    FurnitureKind::Counter | FurnitureKind::KitchenSink | FurnitureKind::Stove
                ) && footprint(f.kind, &f.placement)
                    .contains_rect(&footprint(kind, &pl).grow(-0.01))
            });
            if !under {
                continue;
            }
        }
        d.push(kind, pl, style, None);
        return true;
    }
    false
}

/// Keeps the visible props seen: remembers the floor a player can walk (decor and
/// things on walls do not change it) and re-checks the props near a new thing.
struct PropGuard {
    grid: Grid,
    mask: Vec<bool>,
}

impl PropGuard {
    fn new(d: &Draft, chain: &Chain) -> PropGuard {
        let probe = d.probe(chain);
        let grid = Grid::of(&probe);
        let mask = probe
            .exit()
            .and_then(|e| {
                let (x, z) = approach(e, d.width, d.depth);
                grid.cell_of(x, z)
            })
            .map(|c| grid.flood(c))
            .unwrap_or_else(|| vec![false; grid.nx * grid.nz]);
        PropGuard { grid, mask }
    }

    /// Whether every prop within 1.8 m of the last thing added can still be seen from a
    /// spot within reach.
    fn still_seen(&mut self, d: &Draft, chain: &Chain) -> bool {
        let Some(last) = d.furniture.last() else {
            return true;
        };
        let (lx, lz) = footprint(last.kind, &last.placement).center();
        let near: Vec<usize> = d
            .props
            .iter()
            .enumerate()
            .filter(|(_, p)| !matches!(p.support, Support::Wall { .. }))
            .filter(|(_, p)| {
                let (dx, dz) = (p.position[0] - lx, p.position[2] - lz);
                dx * dx + dz * dz <= 1.8 * 1.8
            })
            .map(|(n, _)| n)
            .collect();
        if near.is_empty() {
            return true;
        }
        let probe = d.probe(chain);
        let blockers = occluders(&probe);
        near.into_iter()
            .all(|n| seen_within_reach(&probe, &self.grid, &self.mask, &blockers, n))
    }
}

/// The footprints that block walking: furniture that blocks (not rugs, decor or things
/// on the walls) and props on the floor.
fn floor_blockers(furniture: &[Furniture], props: &[PlacedProp]) -> Vec<Rect> {
    furniture
        .iter()
        .filter(|f| f.kind.spec().blocks)
        .map(|f| footprint(f.kind, &f.placement))
        .chain(
            props
                .iter()
                .filter(|p| p.support == Support::Floor)
                .map(PlacedProp::footprint),
        )
        .collect()
}

/// A floor occupancy grid: cells whose centre an agent's body can stand on.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    /// Cells along `x`.
    pub nx: usize,
    /// Cells along `z`.
    pub nz: usize,
    free: Vec<bool>,
}

impl Grid {
    /// The grid of a room: a cell is blocked when its centre is within
    /// [`AGENT_RADIUS`] of a wall, of blocking furniture or of a prop on the floor.
    pub fn of(room: &Room) -> Grid {
        Grid::build(
            room.width,
            room.depth,
            &floor_blockers(&room.furniture, &room.props),
        )
    }

    fn of_draft(d: &Draft) -> Grid {
        Grid::build(d.width, d.depth, &floor_blockers(&d.furniture, &d.props))
    }

    fn build(width: f32, depth: f32, blockers: &[Rect]) -> Grid {
        let nx = (width / CELL).round() as usize;
        let nz = (depth / CELL).round() as usize;
        let grown: Vec<Rect> = blockers.iter().map(|r| r.grow(AGENT_RADIUS)).collect();
        let mut free = vec![false; nx * nz];
        for j in 0..nz {
            for i in 0..nx {
                let (x, z) = ((i as f32 + 0.5) * CELL, (j as f32 + 0.5) * CELL);
                let off_wall = x >= AGENT_RADIUS
                    && z >= AGENT_RADIUS
                    && x <= width - AGENT_RADIUS
                    && z <= depth - AGENT_RADIUS;
                free[j * nx + i] = off_wall && !grown.iter().any(|r| r.contains(x, z));
            }
        }
        Grid { nx, nz, free }
    }

    /// Index of cell `(i, j)` in row-major order.
    pub fn index(&self, i: usize, j: usize) -> usize {
        j * self.nx + i
    }

    /// Whether cell `(i, j)` is walkable.
    pub fn is_free(&self, i: usize, j: usize) -> bool {
        i < self.nx && j < self.nz && self.free[self.index(i, j)]
    }

    /// Every cell `(i, j)`, row by row.
    pub fn cells(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.nz).flat_map(move |j| (0..self.nx).map(move |i| (i, j)))
    }

    /// Centre of cell `(i, j)`.
    pub fn center(&self, i: usize, j: usize) -> (f32, f32) {
        ((i as f32 + 0.5) * CELL, (j as f32 + 0.5) * CELL)
    }

    /// The walkable cell holding point `(x, z)`, or the nearest walkable cell within
    /// two cells of it.
    pub fn cell_of(&self, x: f32, z: f32) -> Option<(usize, usize)> {
        let (ci, cj) = ((x / CELL).floor() as i64, (z / CELL).floor() as i64);
        let mut best: Option<((usize, usize), i64)> = None;
        for dj in -2i64..=2 {
            for di in -2i64..=2 {
                let (i, j) = (ci + di, cj + dj);
                if i < 0 || j < 0 {
                    continue;
                }
                let (i, j) = (i as usize, j as usize);
                let dist = di * di + dj * dj;
                if self.is_free(i, j) && best.is_none_or(|(_, d)| dist < d) {
                    best = Some(((i, j), dist));
                }
            }
        }
        best.map(|(c, _)| c)
    }

    /// Cells reachable from `from` by 4-neighbour steps over walkable cells (breadth
    /// first), as a row-major mask.
    pub fn flood(&self, from: (usize, usize)) -> Vec<bool> {
        let mut seen = vec![false; self.free.len()];
        if !self.is_free(from.0, from.1) {
            return seen;
        }
        let mut queue = VecDeque::from([from]);
        seen[self.index(from.0, from.1)] = true;
        while let Some((i, j)) = queue.pop_front() {
            let next = [
                (i.wrapping_sub(1), j),
                (i + 1, j),
                (i, j.wrapping_sub(1)),
                (i, j + 1),
            ];
            for (a, b) in next {
                if self.is_free(a, b) && !seen[self.index(a, b)] {
                    seen[self.index(a, b)] = true;
                    queue.push_back((a, b));
                }
            }
        }
        seen
    }

    /// A reachable cell (in `mask`) within [`REACH`] of `(x, z)`, the nearest one.
    pub fn reach_cell(&self, mask: &[bool], x: f32, z: f32) -> Option<(usize, usize)> {
        let mut best: Option<((usize, usize), f32)> = None;
        for (i, j) in self.cells() {
            if !mask[self.index(i, j)] {
                continue;
            }
            let (cx, cz) = self.center(i, j);
            let d2 = (cx - x) * (cx - x) + (cz - z) * (cz - z);
            if d2 <= REACH * REACH && best.is_none_or(|(_, b)| d2 < b) {
                best = Some(((i, j), d2));
            }
        }
        best.map(|(c, _)| c)
    }

    /// Walkable cells not reachable from the exit's approach.
    fn unreachable_count(&self, d: &Draft) -> usize {
        let Some(exit) = d.doors.first() else {
            return 0;
        };
        let (x, z) = approach(exit, d.width, d.depth);
        let Some(c) = self.cell_of(x, z) else {
            return usize::MAX / 2;
        };
        let mask = self.flood(c);
        self.free
            .iter()
            .zip(&mask)
            .filter(|(f, m)| **f && !**m)
            .count()
    }
}

/// Checks a room's floor: the start stands on a walkable cell from which the exit, the
/// entry and a cell within [`REACH`] of every visible prop (other than wall patterns,
/// which are only looked at) can be walked to.
///
/// # Errors
/// A sentence naming the first thing that cannot be reached.
pub fn check_floor(room: &Room) -> Result<(), String> {
    let grid = Grid::of(room);
    let start = grid
        .cell_of(room.start.x, room.start.z)
        .ok_or("the start is not on a walkable cell")?;
    let mask = grid.flood(start);
    for door in &room.doors {
        let (x, z) = approach(door, room.width, room.depth);
        let ok = grid
            .cell_of(x, z)
            .is_some_and(|(i, j)| mask[grid.index(i, j)]);
        if !ok {
            return Err(format!("the {:?} door cannot be reached", door.role));
        }
    }
    let blockers = occluders(room);
    for (n, p) in room.props.iter().enumerate() {
        if matches!(p.support, Support::Wall { .. }) {
            continue;
        }
        if grid
            .reach_cell(&mask, p.position[0], p.position[2])
            .is_none()
        {
            return Err(format!("prop {} cannot be reached", p.id));
        }
        // the red dot must be able to rest on it from where it can be grabbed
        if !seen_within_reach(room, &grid, &mask, &blockers, n) {
            return Err(format!("prop {} cannot be seen from within reach", p.id));
        }
    }
    Ok(())
}

/// Whether prop `n` of `room` can be seen from the eye of some reachable cell (in
/// `mask`) within [`REACH`] of it: a point of its upper half joined to the eye by a
/// segment no furniture box or other floor prop cuts. Keeps a key from sitting at the
/// back of a low cubby, where no standing player can put the red dot on it.
fn seen_within_reach(room: &Room, grid: &Grid, mask: &[bool], blockers: &[Aabb], n: usize) -> bool {
    let p = &room.props[n];
    let [x, y, z] = p.position;
    let [w, h, d] = p.size;
    let own = (p.support == Support::Floor).then(|| {
        let r = p.footprint();
        (r, p.size[1])
    });
    let reach = REACH - 0.02;
    let mut targets = vec![Vec3::new(x, y + h * 0.75, z)];
    for fx in [-0.35f32, 0.0, 0.35] {
        for fz in [-0.35f32, 0.0, 0.35] {
            targets.push(Vec3::new(x + fx * w.max(d), y + 0.9 * h, z + fz * w.max(d)));
        }
    }
    for (i, j) in grid.cells() {
        if !mask[grid.index(i, j)] {
            continue;
        }
        let (cx, cz) = grid.center(i, j);
        if (cx - x) * (cx - x) + (cz - z) * (cz - z) > reach * reach {
            continue;
        }
        let eye = Vec3::new(cx, EYE_HEIGHT, cz);
        let clear = |t: &Vec3| {
            !blockers.iter().any(|b| {
                let is_own = own.is_some_and(|(r, top)| {
                    b.min.x == r.x0
                        && b.min.z == r.z0
                        && b.max.x == r.x1
                        && b.max.z == r.z1
                        && b.max.y == top
                });
                !is_own && b.segment_hit(eye, *t).is_some_and(|s| s < 0.999)
            })
        };
        if targets.iter().any(clear) {
            return true;
        }
    }
    false
}

/// How far the start pose looks across free floor: the least distance, over the
/// headings [`VIEW_RAYS`] around the pose's, from the pose to the first wall, piece of
/// furniture standing on the floor (rugs aside), piece hung on a wall or prop on the
/// floor, measured on the floor plan — so a low table counts as much as a wardrobe, and
/// a shelf hung at eye height as much as the wall it hangs on plus its depth. Metres.
pub fn free_view(room: &Room, pose: &Pose) -> f32 {
    // hung pieces are walked under (not in the floor blockers) but seen before the wall
    let blockers: Vec<Rect> = floor_blockers(&room.furniture, &room.props)
        .into_iter()
        .chain(
            room.furniture
                .iter()
                .filter(|f| f.kind.spec().mount == Mount::Hung)
                .map(|f| footprint(f.kind, &f.placement)),
        )
        .collect();
    VIEW_RAYS
        .iter()
        .map(|off| {
            let yaw = (pose.yaw + off).to_radians();
            let (dx, dz) = (libm::sinf(yaw), libm::cosf(yaw));
            // the walls: where the ray leaves the floor rectangle
            let leave = |o: f32, d: f32, hi: f32| {
                if d > 0.0 {
                    (hi - o) / d
                } else if d < 0.0 {
                    -o / d
                } else {
                    f32::INFINITY
                }
            };
            let wall = leave(pose.x, dx, room.width).min(leave(pose.z, dz, room.depth));
            blockers
                .iter()
                .filter_map(|r| ray_rect(pose.x, pose.z, dx, dz, r))
                .fold(wall, f32::min)
        })
        .fold(f32::INFINITY, f32::min)
        .max(0.0)
}

/// Where the floor ray from `(x, z)` along `(dx, dz)` enters `r` (0 when it starts
/// inside), or `None` when it misses.
fn ray_rect(x: f32, z: f32, dx: f32, dz: f32, r: &Rect) -> Option<f32> {
    let (mut t0, mut t1) = (0.0f32, f32::INFINITY);
    for (o, d, lo, hi) in [(x, dx, r.x0, r.x1), (z, dz, r.z0, r.z1)] {
        if d == 0.0 {
            if o < lo || o > hi {
                return None;
            }
            continue;
        }
        let (a, b) = ((lo - o) / d, (hi - o) / d);
        t0 = t0.max(a.min(b));
        t1 = t1.min(a.max(b));
    }
    (t0 <= t1).then_some(t0)
}

/// Boxes that can hide what lies behind them: every part of every piece of furniture
/// and the props on the floor.
pub fn occluders(room: &Room) -> Vec<Aabb> {
    let mut out: Vec<Aabb> = room
        .furniture
        .iter()
        .flat_map(|f| furniture::parts(f.kind, &f.placement))
        .map(|(s, _)| Aabb::of(&s))
        .collect();
    for p in &room.props {
        if p.support == Support::Floor {
            let r = p.footprint();
            out.push(Aabb {
                min: Vec3::new(r.x0, 0.0, r.z0),
                max: Vec3::new(r.x1, p.size[1], r.z1),
            });
        }
    }
    out
}

/// Whether any of nine points spread over the exit door's leaf lies within the
/// horizontal field of view `fov` (degrees) of `pose` and can be seen from eye height
/// without a furniture box in the way (our own ray–box test, so it does not wait for the
/// ray caster).
pub fn exit_visible(room: &Room, pose: &Pose, fov: f32) -> bool {
    let Some(door) = room.exit() else {
        return false;
    };
    let blockers = occluders(room);
    let yaw = pose.yaw.to_radians();
    let (fx, fz) = (libm::sinf(yaw), libm::cosf(yaw));
    let half = libm::cosf((fov / 2.0).to_radians());
    let eye = Vec3::new(pose.x, EYE_HEIGHT, pose.z);
    let ((cx, cz), (nx, nz)) = door.anchor(room.width, room.depth);
    let (ax, az) = (nz.abs(), nx.abs()); // along the wall
    for a in [-0.35f32, 0.0, 0.35] {
        for h in [0.3f32, 1.05, 1.8] {
            let (px, pz) = (
                cx + ax * a * door.width + nx * 0.02,
                cz + az * a * door.width + nz * 0.02,
            );
            let (dx, dz) = (px - pose.x, pz - pose.z);
            let len = libm::sqrtf(dx * dx + dz * dz);
            if len < 1e-3 || (dx * fx + dz * fz) / len < half {
                continue;
            }
            let target = Vec3::new(px, h * door.height / DOOR_HEIGHT, pz);
            let blocked = blockers
                .iter()
                .any(|b| b.segment_hit(eye, target).is_some_and(|t| t < 0.999));
            if !blocked {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::{ChainSpec, Order, generate};

    fn chain(hops: u32, order: Order) -> Chain {
        generate(&ChainSpec {
            hops,
            order,
            seed: 3,
            first: 1,
            story_note: None,
        })
        .unwrap()
    }

    #[test]
    fn rooms_are_playable_for_many_seeds() {
        for seed in 0..40 {
            for (hops, order) in [
                (1, Order::NoteFirst),
                (3, Order::KeyFirst),
                (4, Order::WallPattern),
            ] {
                let room = furnish(&RoomRequest {
                    kind: None,
                    chain: chain(hops, order),
                    seed,
                    with_entry: seed % 3 == 0,
                })
                .unwrap();
                check_floor(&room).unwrap();
                assert_eq!(room.props.len(), room.chain.placed().count());
                assert!(room.width >= 4.0 && room.width <= 7.0);
            }
        }
    }

    #[test]
    fn same_seed_same_room() {
        let req = RoomRequest {
            kind: Some(RoomKind::Kitchen),
            chain: chain(3, Order::NoteFirst),
            seed: 11,
            with_entry: false,
        };
        assert_eq!(furnish(&req).unwrap(), furnish(&req).unwrap());
    }

    #[test]
    fn grid_flood_and_visibility() {
        let mut room = furnish(&RoomRequest {
            kind: Some(RoomKind::Bedroom),
            chain: chain(1, Order::NoteFirst),
            seed: 5,
            with_entry: false,
        })
        .unwrap();
        room.furniture.clear();
        let door = *room.exit().unwrap();
        let (ax, az) = approach(&door, room.width, room.depth);
        let ((dx, dz), _) = door.anchor(room.width, room.depth);
        // standing at the approach, facing the door: seen; facing away: not
        let facing = yaw_of(dx - ax, dz - az);
        let mut pose = Pose {
            x: ax,
            z: az,
            yaw: facing,
        };
        assert!(exit_visible(&room, &pose, 90.0));
        pose.yaw = (facing + 180.0) % 360.0;
        assert!(!exit_visible(&room, &pose, 90.0));
        // a wardrobe between the eye and the door hides it
        pose.yaw = facing;
        let mid = Placement {
            x: (ax + dx) / 2.0,
            y: 0.0,
            z: (az + dz) / 2.0,
            turns: 0,
        };
        room.furniture.push(Furniture {
            id: "wardrobe_9".into(),
            kind: FurnitureKind::Wardrobe,
            placement: mid,
            style: 0,
            on: None,
        });
        assert!(!exit_visible(&room, &pose, 90.0));
        // an empty room's floor is one piece
        room.furniture.clear();
        let grid = Grid::of(&room);
        let c = grid.cell_of(room.width / 2.0, room.depth / 2.0).unwrap();
        let mask = grid.flood(c);
        assert_eq!(
            mask.iter().filter(|m| **m).count(),
            grid.cells().filter(|&(i, j)| grid.is_free(i, j)).count()
        );
    }
}
