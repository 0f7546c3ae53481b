//! A room as a 3D scene for the ray caster, in a given state, and the lookup from the
//! object ids a pick reports back to the things of the room.
//!
//! Why: the environment draws first-person frames of the current room (the state says
//! which props were taken, which boxes and doors are open) and must know what the agent
//! aims at. Object ids are a fixed function of the room (see [`object_id`]), so
//! [`CraftScenario::what`] needs no scene at hand.
//!
//! Notes lie on their furniture as textured quads drawn with the 2D canvas: a heading and
//! lines of handwriting-like strokes, never the password, which the player learns only by
//! reading the note from the inventory (App. C.1.2 "Read"). A wall pattern is the
//! exception by design (§5.2): its texture shows the digits as a pattern of tiles.

use std::collections::BTreeSet;

use escapade_render::scene::{Light, Material, Object, Scene, Shape, Texture, Vec3};
use escapade_render::{Canvas, Rgb};
use serde::{Deserialize, Serialize};

use crate::CraftError;
use crate::chain::{PropKind, Unlock};
use crate::furniture::{self, FurnitureKind, parts_styled};
use crate::room::{Door, DoorRole, Room, RoomKind, Wall};
use crate::scenario::CraftScenario;

/// What can change in a room while it is played.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomState {
    /// Ids of visible props taken into the inventory (no longer drawn).
    pub taken: BTreeSet<String>,
    /// Ids of boxes that have been opened (drawn open and empty).
    pub opened: BTreeSet<String>,
    /// Whether the exit door stands open.
    pub exit_open: bool,
}

/// The state of every room of a scenario.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorldState {
    /// One entry per room, in room order.
    pub rooms: Vec<RoomState>,
}

impl WorldState {
    /// The state at the start: nothing taken, everything shut.
    pub fn start(scenario: &CraftScenario) -> WorldState {
        WorldState {
            rooms: vec![RoomState::default(); scenario.rooms.len()],
        }
    }
}

/// What an object id stands for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Thing {
    /// A door of the room.
    Door {
        /// Exit or entry.
        role: DoorRole,
    },
    /// A wall.
    Wall {
        /// Which one.
        wall: Wall,
    },
    /// The floor.
    Floor,
    /// The ceiling.
    Ceiling,
    /// A piece of furniture or decor.
    Furniture {
        /// Its id in the room.
        id: String,
        /// What it is.
        kind: FurnitureKind,
    },
    /// A visible prop of the chain.
    Prop {
        /// Its chain id.
        id: String,
    },
}

const ID_EXIT: u32 = 1;
const ID_ENTRY: u32 = 2;
const ID_WALL: u32 = 10;
const ID_FLOOR: u32 = 14;
const ID_CEILING: u32 = 15;
const ID_FURNITURE: u32 = 1000;
const ID_PROP: u32 = 5000;

/// The object id of a thing in `room`: exit 1, entry 2, walls 10–13 (north, east, south,
/// west), floor 14, ceiling 15, furniture `1000 + index`, placed props `5000 + index`
/// (indices into [`Room::furniture`] and [`Room::props`]). `None` if the room has no
/// such thing.
pub fn object_id(room: &Room, thing: &Thing) -> Option<u32> {
    match thing {
        Thing::Door { role } => room
            .doors
            .iter()
            .any(|d| d.role == *role)
            .then_some(match role {
                DoorRole::Exit => ID_EXIT,
                DoorRole::Entry => ID_ENTRY,
            }),
        Thing::Wall { wall } => Some(ID_WALL + Wall::ALL.iter().position(|w| w == wall)? as u32),
        Thing::Floor => Some(ID_FLOOR),
        Thing::Ceiling => Some(ID_CEILING),
        Thing::Furniture { id, .. } => room
            .furniture
            .iter()
            .position(|f| &f.id == id)
            .map(|i| ID_FURNITURE + i as u32),
        Thing::Prop { id } => room
            .props
            .iter()
            .position(|p| &p.id == id)
            .map(|i| ID_PROP + i as u32),
    }
}

/// The thing of `room` an object id stands for.
pub fn what_in(room: &Room, id: u32) -> Option<Thing> {
    match id {
        ID_EXIT => room.exit().map(|_| Thing::Door {
            role: DoorRole::Exit,
        }),
        ID_ENTRY => room.entry().map(|_| Thing::Door {
            role: DoorRole::Entry,
        }),
        10..=13 => Some(Thing::Wall {
            wall: Wall::ALL[(id - ID_WALL) as usize],
        }),
        ID_FLOOR => Some(Thing::Floor),
        ID_CEILING => Some(Thing::Ceiling),
        _ if (ID_FURNITURE..ID_PROP).contains(&id) => room
            .furniture
            .get((id - ID_FURNITURE) as usize)
            .map(|f| Thing::Furniture {
                id: f.id.clone(),
                kind: f.kind,
            }),
        _ if id >= ID_PROP => room
            .props
            .get((id - ID_PROP) as usize)
            .map(|p| Thing::Prop { id: p.id.clone() }),
        _ => None,
    }
}

impl CraftScenario {
    /// The thing object `id` stands for in room `room` (`None` for an unknown room or
    /// id).
    pub fn what(&self, room: usize, id: u32) -> Option<Thing> {
        what_in(self.rooms.get(room)?, id)
    }

    /// The 3D scene of room `room` in `state` (the room's entry of `state.rooms`; a
    /// missing entry means the start state).
    ///
    /// # Errors
    /// [`CraftError::Unknown`] for a room index out of range; [`CraftError::Render`] if
    /// a texture cannot be drawn.
    pub fn scene(&self, room: usize, state: &WorldState) -> Result<Scene, CraftError> {
        let r = self.rooms.get(room).ok_or_else(|| CraftError::Unknown {
            what: "room",
            name: room.to_string(),
        })?;
        let fallback = RoomState::default();
        build_scene(r, state.rooms.get(room).unwrap_or(&fallback))
    }
}

fn obj(shape: Shape, material: Material, id: Option<u32>, shadow: bool) -> Object {
    Object {
        shape,
        material,
        id,
        casts_shadow: shadow,
    }
}

fn cuboid(min: Vec3, max: Vec3) -> Shape {
    Shape::Cuboid { min, max }
}

/// Wall and floor looks of a room type.
fn finishes(kind: RoomKind) -> (Material, Material) {
    match kind {
        RoomKind::LivingRoom => (
            Material::Wallpaper {
                base: Rgb(226, 214, 190),
                stripe: Rgb(212, 198, 172),
                stripe_width: 0.12,
            },
            Material::Wood {
                light: Rgb(160, 112, 70),
                dark: Rgb(128, 86, 52),
                scale: 0.12,
            },
        ),
        RoomKind::Bedroom => (
            Material::Wallpaper {
                base: Rgb(200, 214, 226),
                stripe: Rgb(184, 200, 214),
                stripe_width: 0.08,
            },
            Material::Wood {
                light: Rgb(190, 150, 108),
                dark: Rgb(160, 122, 84),
                scale: 0.1,
            },
        ),
        RoomKind::Kitchen => (
            Material::Flat(Rgb(236, 230, 214)),
            Material::Tiles {
                tile: Rgb(210, 206, 196),
                grout: Rgb(150, 146, 140),
                size: 0.3,
            },
        ),
        RoomKind::Bathroom => (
            Material::Tiles {
                tile: Rgb(220, 236, 240),
                grout: Rgb(170, 184, 190),
                size: 0.15,
            },
            Material::Tiles {
                tile: Rgb(90, 110, 130),
                grout: Rgb(60, 70, 80),
                size: 0.2,
            },
        ),
    }
}

fn build_scene(room: &Room, state: &RoomState) -> Result<Scene, CraftError> {
    let (w, d, h) = (room.width, room.depth, room.height);
    let t = 0.1; // wall thickness
    let (wall_mat, floor_mat) = finishes(room.kind);
    let mut objects = Vec::new();
    let mut textures = Vec::new();
    objects.push(obj(
        cuboid(Vec3::new(0.0, -0.05, 0.0), Vec3::new(w, 0.0, d)),
        floor_mat,
        Some(ID_FLOOR),
        false,
    ));
    objects.push(obj(
        cuboid(Vec3::new(-t, h, -t), Vec3::new(w + t, h + 0.05, d + t)),
        Material::Flat(Rgb(245, 245, 240)),
        Some(ID_CEILING),
        false,
    ));
    for (wi, wall) in Wall::ALL.into_iter().enumerate() {
        let id = Some(ID_WALL + wi as u32);
        let len = wall.length(w, d);
        // openings on this wall, sorted along it
        let mut holes: Vec<&Door> = room.doors.iter().filter(|door| door.wall == wall).collect();
        holes.sort_by(|a, b| a.offset.total_cmp(&b.offset));
        let mut spans: Vec<(f32, f32, f32, f32)> = Vec::new(); // (from, to, y0, y1)
        let mut at = -t;
        for door in &holes {
            let (a, b) = (
                door.offset - door.width / 2.0,
                door.offset + door.width / 2.0,
            );
            spans.push((at, a, 0.0, h));
            spans.push((a, b, door.height, h));
            at = b;
        }
        spans.push((at, len + t, 0.0, h));
        for (a, b, y0, y1) in spans {
            if b - a <= 0.0 {
                continue;
            }
            let shape = match wall {
                Wall::South => cuboid(Vec3::new(a, y0, -t), Vec3::new(b, y1, 0.0)),
                Wall::North => cuboid(Vec3::new(a, y0, d), Vec3::new(b, y1, d + t)),
                Wall::West => cuboid(Vec3::new(-t, y0, a), Vec3::new(0.0, y1, b)),
                Wall::East => cuboid(Vec3::new(w, y0, a), Vec3::new(w + t, y1, b)),
            };
            objects.push(obj(shape, wall_mat.clone(), id, false));
        }
    }
    for door in &room.doors {
        let open = door.role == DoorRole::Exit && state.exit_open;
        door_objects(room, door, open, &mut objects);
    }
    for (i, f) in room.furniture.iter().enumerate() {
        let id = Some(ID_FURNITURE + i as u32);
        // the piece's pictures join the scene's list; its parts count them from 0
        let first = textures.len();
        textures.extend(furniture::textures(f.kind, f.style)?);
        // a rug lies flat and a picture hangs flat: neither casts a shadow worth a ray
        let shadow = !matches!(f.kind, FurnitureKind::Rug);
        for (shape, material) in parts_styled(f.kind, &f.placement, f.style) {
            let material = match material {
                Material::Texture(t) => Material::Texture(first + t),
                m => m,
            };
            let casts = shadow && !matches!(shape, Shape::Quad { .. });
            objects.push(obj(shape, material, id, casts));
        }
    }
    let keys: Vec<&str> = room
        .chain
        .props
        .iter()
        .filter(|p| matches!(p.kind, PropKind::Key { .. }))
        .map(|p| p.id.as_str())
        .collect();
    for (i, placed) in room.props.iter().enumerate() {
        if state.taken.contains(&placed.id) {
            continue;
        }
        let Some(prop) = room.chain.prop(&placed.id) else {
            continue;
        };
        let id = Some(ID_PROP + i as u32);
        let pl = crate::furniture::Placement {
            x: placed.position[0],
            y: placed.position[1],
            z: placed.position[2],
            turns: placed.turns,
        };
        let [pw, ph, pd] = placed.size;
        let local = |x0: f32, y0: f32, z0: f32, x1: f32, y1: f32, z1: f32| {
            let r = pl.rect_to_room(crate::geom::Rect { x0, z0, x1, z1 });
            cuboid(
                Vec3::new(r.x0, pl.y + y0, r.z0),
                Vec3::new(r.x1, pl.y + y1, r.z1),
            )
        };
        let dir = |lx: f32, lz: f32| {
            let (x, z) = pl.to_room(lx, lz);
            Vec3::new(x - pl.x, 0.0, z - pl.z)
        };
        match &prop.kind {
            PropKind::Key { .. } => {
                let n = keys.iter().position(|k| *k == prop.id).unwrap_or(0);
                let colour = [Rgb(212, 172, 60), Rgb(190, 194, 200), Rgb(184, 110, 70)][n % 3];
                let m = Material::Flat(colour);
                objects.push(obj(
                    local(-pw / 2.0, 0.0, -0.006, pw / 6.0, 0.008, 0.006),
                    m.clone(),
                    id,
                    true,
                ));
                objects.push(obj(
                    local(pw / 6.0, 0.0, -pd / 2.0, pw / 2.0, 0.01, pd / 2.0),
                    m.clone(),
                    id,
                    true,
                ));
                objects.push(obj(
                    local(-pw / 2.0, 0.0, 0.0, -pw / 2.0 + 0.02, 0.008, 0.014),
                    m,
                    id,
                    true,
                ));
            }
            PropKind::Box { lock, .. } => {
                let wood = Material::Wood {
                    light: Rgb(150, 96, 52),
                    dark: Rgb(112, 68, 36),
                    scale: 0.03,
                };
                let band = Material::Flat(Rgb(70, 70, 76));
                let open = state.opened.contains(&prop.id);
                let body = ph * 0.7;
                if open {
                    // walls of the open box and its lid standing up at the back
                    let s = 0.02;
                    objects.push(obj(
                        local(-pw / 2.0, 0.0, -pd / 2.0, pw / 2.0, s, pd / 2.0),
                        wood.clone(),
                        id,
                        true,
                    ));
                    objects.push(obj(
                        local(-pw / 2.0, 0.0, pd / 2.0 - s, pw / 2.0, body, pd / 2.0),
                        wood.clone(),
                        id,
                        true,
                    ));
                    objects.push(obj(
                        local(-pw / 2.0, 0.0, -pd / 2.0, pw / 2.0, body, -pd / 2.0 + s),
                        wood.clone(),
                        id,
                        true,
                    ));
                    objects.push(obj(
                        local(-pw / 2.0, 0.0, -pd / 2.0, -pw / 2.0 + s, body, pd / 2.0),
                        wood.clone(),
                        id,
                        true,
                    ));
                    objects.push(obj(
                        local(pw / 2.0 - s, 0.0, -pd / 2.0, pw / 2.0, body, pd / 2.0),
                        wood.clone(),
                        id,
                        true,
                    ));
                    objects.push(obj(
                        local(
                            -pw / 2.0,
                            body,
                            -pd / 2.0 - 0.02,
                            pw / 2.0,
                            body + pd,
                            -pd / 2.0,
                        ),
                        wood,
                        id,
                        true,
                    ));
                } else {
                    objects.push(obj(
                        local(-pw / 2.0, 0.0, -pd / 2.0, pw / 2.0, body, pd / 2.0),
                        wood.clone(),
                        id,
                        true,
                    ));
                    objects.push(obj(
                        local(-pw / 2.0, body, -pd / 2.0, pw / 2.0, ph, pd / 2.0),
                        wood,
                        id,
                        true,
                    ));
                    objects.push(obj(
                        local(
                            -pw / 2.0 - 0.003,
                            body - 0.01,
                            -pd / 2.0 - 0.003,
                            pw / 2.0 + 0.003,
                            body + 0.01,
                            pd / 2.0 + 0.003,
                        ),
                        band,
                        id,
                        true,
                    ));
                    // the lock on the front: a brass keyhole plate or a keypad
                    let lock_m = match lock {
                        Unlock::Password { .. } => Material::Flat(Rgb(40, 90, 70)),
                        _ => Material::Flat(Rgb(200, 160, 60)),
                    };
                    objects.push(obj(
                        local(
                            -0.04,
                            body - 0.06,
                            pd / 2.0,
                            0.04,
                            body + 0.02,
                            pd / 2.0 + 0.012,
                        ),
                        lock_m,
                        id,
                        true,
                    ));
                }
            }
            PropKind::Note { .. } => {
                textures.push(note_texture()?);
                let tex = textures.len() - 1;
                objects.push(obj(
                    Shape::Quad {
                        center: Vec3::new(pl.x, pl.y + 0.002, pl.z),
                        u: dir(-pw / 2.0, 0.0),
                        v: dir(0.0, -pd / 2.0),
                    },
                    Material::Texture(tex),
                    id,
                    false,
                ));
            }
            PropKind::WallPattern { password } => {
                let digits = room.chain.digits(password).unwrap_or("0000");
                textures.push(pattern_texture(digits)?);
                let tex = textures.len() - 1;
                // seen from inside, the picture's right is the room-frame local -x
                let right = dir(-pw / 2.0, 0.0);
                objects.push(obj(
                    Shape::Quad {
                        center: Vec3::new(pl.x, pl.y, pl.z),
                        u: right,
                        v: Vec3::new(0.0, ph / 2.0, 0.0),
                    },
                    Material::Texture(tex),
                    id,
                    false,
                ));
            }
            PropKind::Password { .. } => {}
        }
    }
    Ok(Scene {
        objects,
        textures,
        light: Light {
            // a ceiling light slightly off-centre: floors and tops lit, walls kept
            // readable by a generous ambient term (no wall falls below 55 %)
            direction: Vec3::new(0.45, -1.0, 0.3),
            intensity: 0.55,
            ambient: 0.55,
        },
        background: Rgb(250, 248, 236),
    })
}

fn door_objects(room: &Room, door: &Door, open: bool, objects: &mut Vec<Object>) {
    let id = Some(match door.role {
        DoorRole::Exit => ID_EXIT,
        DoorRole::Entry => ID_ENTRY,
    });
    let ((cx, cz), (nx, nz)) = door.anchor(room.width, room.depth);
    let (ax, az) = (nz.abs(), nx.abs());
    let hw = door.width / 2.0;
    let leaf = Material::Wood {
        light: Rgb(120, 72, 40),
        dark: Rgb(92, 52, 28),
        scale: 0.06,
    };
    let frame = Material::Flat(Rgb(240, 238, 230));
    let handle = Material::Flat(Rgb(200, 180, 110));
    let span = |a0: f32, a1: f32, n0: f32, n1: f32, y0: f32, y1: f32| {
        let (x0, z0) = (cx + ax * a0 + nx * n0, cz + az * a0 + nz * n0);
        let (x1, z1) = (cx + ax * a1 + nx * n1, cz + az * a1 + nz * n1);
        cuboid(
            Vec3::new(x0.min(x1), y0, z0.min(z1)),
            Vec3::new(x0.max(x1), y1, z0.max(z1)),
        )
    };
    // frame around the opening, proud of the wall by 2 cm
    objects.push(obj(
        span(-hw - 0.06, -hw, -0.02, 0.02, 0.0, door.height + 0.06),
        frame.clone(),
        id,
        false,
    ));
    objects.push(obj(
        span(hw, hw + 0.06, -0.02, 0.02, 0.0, door.height + 0.06),
        frame.clone(),
        id,
        false,
    ));
    objects.push(obj(
        span(-hw, hw, -0.02, 0.02, door.height, door.height + 0.06),
        frame,
        id,
        false,
    ));
    if open {
        // swung outwards against the outside of the wall, daylight in the opening
        objects.push(obj(
            span(hw - 0.04, hw, -0.1 - door.width, -0.1, 0.0, door.height),
            leaf,
            id,
            true,
        ));
        objects.push(obj(
            span(-hw - 0.5, hw + 0.5, -1.6, -1.5, 0.0, door.height + 0.5),
            Material::Flat(Rgb(255, 250, 225)),
            id,
            false,
        ));
    } else {
        objects.push(obj(
            span(-hw, hw, -0.06, -0.02, 0.0, door.height),
            leaf,
            id,
            true,
        ));
        objects.push(obj(
            span(hw - 0.14, hw - 0.06, -0.02, 0.02, 0.98, 1.02),
            handle,
            id,
            false,
        ));
    }
}

fn to_texture(canvas: &Canvas) -> Texture {
    // the canvas is opaque: its RGBA bytes are the texture's
    Texture::from_canvas(canvas)
}

/// A sheet of paper with a heading and strokes of handwriting (no secrets on it).
fn note_texture() -> Result<Texture, CraftError> {
    let mut c = Canvas::new(96, 134, Rgb(246, 240, 220))?;
    c.stroke_rect(2.0, 2.0, 92.0, 130.0, Rgb(200, 190, 160), 2.0);
    c.text_centered(48.0, 8.0, 16.0, Rgb(60, 50, 40), "NOTE");
    for i in 0..7 {
        let y = 40.0 + i as f32 * 12.0;
        let len = if i % 3 == 2 { 46.0 } else { 70.0 };
        let mut pts = Vec::new();
        let mut x = 12.0;
        let mut up = true;
        while x < 12.0 + len {
            pts.push((x, if up { y - 2.0 } else { y + 2.0 }));
            up = !up;
            x += 4.0;
        }
        c.stroke_polyline(&pts, Rgb(70, 70, 120), 1.2);
    }
    Ok(to_texture(&c))
}

/// The digits as a row of big numerals on coloured tiles in a decorative border.
fn pattern_texture(digits: &str) -> Result<Texture, CraftError> {
    let (w, h) = (224u32, 144u32);
    let mut c = Canvas::new(w, h, Rgb(40, 44, 60))?;
    let tiles = [
        Rgb(200, 70, 60),
        Rgb(230, 180, 60),
        Rgb(70, 150, 90),
        Rgb(70, 120, 200),
    ];
    for i in 0..14 {
        let x = 4.0 + i as f32 * 16.0;
        c.fill_circle(x + 4.0, 8.0, 3.0, tiles[i % 4]);
        c.fill_circle(x + 4.0, h as f32 - 8.0, 3.0, tiles[(i + 2) % 4]);
    }
    let n = digits.chars().count().max(1);
    let cell = (w as f32 - 24.0) / n as f32;
    for (i, ch) in digits.chars().enumerate() {
        let x = 12.0 + i as f32 * cell;
        c.fill_rounded_rect(x + 3.0, 24.0, cell - 6.0, 96.0, 8.0, tiles[i % 4]);
        c.text_centered(
            x + cell / 2.0,
            36.0,
            64.0,
            Rgb(250, 250, 250),
            &ch.to_string(),
        );
    }
    Ok(to_texture(&c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Variant, generate};

    #[test]
    fn ids_map_back_to_things() {
        let s = generate(3, 2, Variant::NoteFirst).unwrap();
        let room = &s.rooms[0];
        let scene = s.scene(0, &WorldState::start(&s)).unwrap();
        let mut ids: Vec<u32> = scene.objects.iter().filter_map(|o| o.id).collect();
        ids.sort_unstable();
        ids.dedup();
        for id in ids {
            let thing = s.what(0, id).unwrap_or_else(|| panic!("id {id}"));
            assert_eq!(object_id(room, &thing), Some(id));
        }
        for p in &room.props {
            let id = object_id(room, &Thing::Prop { id: p.id.clone() }).unwrap();
            assert!(scene.objects.iter().any(|o| o.id == Some(id)), "{}", p.id);
        }
        assert!(s.what(0, 4999).is_none());
        assert!(s.what(3, 1).is_none());
        assert!(matches!(
            s.scene(3, &WorldState::default()),
            Err(CraftError::Unknown { .. })
        ));
    }

    #[test]
    fn state_changes_the_scene() {
        let s = generate(2, 5, Variant::NoteFirst).unwrap();
        let start = s.scene(0, &WorldState::start(&s)).unwrap();
        let mut state = WorldState::start(&s);
        state.rooms[0].taken.insert("note_1".into());
        state.rooms[0].exit_open = true;
        let later = s.scene(0, &state).unwrap();
        // the note's picture goes with it; the furniture's pictures stay
        assert_eq!(start.textures.len(), later.textures.len() + 1);
        let note_id = object_id(
            &s.rooms[0],
            &Thing::Prop {
                id: "note_1".into(),
            },
        )
        .unwrap();
        assert!(!later.objects.iter().any(|o| o.id == Some(note_id)));
        assert_ne!(start.objects.len(), later.objects.len());
    }

    #[test]
    fn wall_pattern_is_a_textured_quad() {
        let s = generate(2, 8, Variant::WallPattern).unwrap();
        let scene = s.scene(0, &WorldState::start(&s)).unwrap();
        let room = &s.rooms[0];
        let id = object_id(
            room,
            &Thing::Prop {
                id: room.props[0].id.clone(),
            },
        );
        let pattern: Vec<_> = scene.objects.iter().filter(|o| o.id == id).collect();
        assert_eq!(pattern.len(), 1);
        assert!(matches!(pattern[0].shape, Shape::Quad { .. }));
        let Material::Texture(t) = pattern[0].material else {
            panic!("the pattern is not textured");
        };
        let t = &scene.textures[t];
        assert_eq!(t.rgba.len(), (t.width * t.height * 4) as usize);
        // every textured part refers to a texture of the scene
        for o in &scene.objects {
            if let Material::Texture(t) = o.material {
                assert!(t < scene.textures.len());
            }
        }
    }
}
