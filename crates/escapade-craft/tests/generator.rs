//! Property tests of the generator: any (difficulty, seed, variant) it accepts gives a
//! valid, playable, deterministic scenario whose start pose looks across free floor.

use escapade_craft::furniture::{FurnitureKind, footprint, surfaces};
use escapade_craft::layout::{MIN_START_VIEW, check_floor, free_view};
use escapade_craft::room::{EYE_HEIGHT, Room, Support};
use escapade_craft::scenario::{CraftScenario, Variant, generate};
use escapade_craft::{Thing, WorldState};
use escapade_render::Prepared;
use escapade_render::scene::Vec3;
use proptest::prelude::*;

fn no_furniture_overlaps(room: &Room) -> Result<(), String> {
    // rugs lie under things; everything else standing on the floor keeps apart
    let floor: Vec<_> = room
        .furniture
        .iter()
        .filter(|f| f.kind.stands_on_floor() && f.kind != FurnitureKind::Rug)
        .collect();
    for (i, a) in floor.iter().enumerate() {
        let ra = footprint(a.kind, &a.placement);
        if !room.floor().contains_rect(&ra) {
            return Err(format!("{} leaves the room", a.id));
        }
        for b in &floor[..i] {
            if ra.overlaps(&footprint(b.kind, &b.placement)) {
                return Err(format!("{} overlaps {}", a.id, b.id));
            }
        }
    }
    Ok(())
}

/// Things on the walls hang at their height, against a wall, clear of the doors and of
/// each other.
fn hung_things_hang(room: &Room) -> Result<(), String> {
    let hung: Vec<_> = room.furniture.iter().filter(|f| f.kind.is_hung()).collect();
    for (i, f) in hung.iter().enumerate() {
        if f.placement.y != f.kind.hang_height() {
            return Err(format!("{} hangs at {}", f.id, f.placement.y));
        }
        let r = footprint(f.kind, &f.placement);
        let at_wall = r.x0.abs() < 0.02
            || r.z0.abs() < 0.02
            || (r.x1 - room.width).abs() < 0.02
            || (r.z1 - room.depth).abs() < 0.02;
        if !at_wall {
            return Err(format!("{} is not on a wall", f.id));
        }
        for door in &room.doors {
            let ((x, z), _) = door.anchor(room.width, room.depth);
            let door_rect =
                escapade_craft::geom::Rect::centered(x, z, door.width + 0.2, door.width + 0.2);
            if door_rect.overlaps(&r) {
                return Err(format!("{} hangs over a door", f.id));
            }
        }
        for g in &hung[..i] {
            let q = footprint(g.kind, &g.placement);
            let (a0, a1) = (
                f.placement.y,
                f.placement.y + escapade_craft::furniture::height(f.kind),
            );
            let (b0, b1) = (
                g.placement.y,
                g.placement.y + escapade_craft::furniture::height(g.kind),
            );
            if r.overlaps(&q) && a0 < b1 && b0 < a1 {
                return Err(format!("{} overlaps {}", f.id, g.id));
            }
        }
    }
    Ok(())
}

/// From the start, along the heading and 10° either side, nothing the ray caster hits at
/// any height from the shins to the eyes is nearer than [`MIN_START_VIEW`] (measured
/// on the floor plan; 5 cm for handles that stand proud of a piece's footprint).
fn start_view_is_free(s: &CraftScenario, room_index: usize) -> Result<f32, String> {
    let room = &s.rooms[room_index];
    let scene = s
        .scene(room_index, &WorldState::start(s))
        .map_err(|e| e.to_string())?;
    let prepared = Prepared::new(&scene).map_err(|e| e.to_string())?;
    let mut nearest = f32::INFINITY;
    for off in [-10.0f32, 0.0, 10.0] {
        let yaw = (room.start.yaw + off).to_radians();
        let dir = Vec3::new(yaw.sin(), 0.0, yaw.cos());
        for y in [0.15, 0.45, 0.8, 1.1, EYE_HEIGHT] {
            let origin = Vec3::new(room.start.x, y, room.start.z);
            if let Some(hit) = prepared.cast(origin, dir, 100.0) {
                let what = s.what(room_index, hit.id.unwrap_or(0));
                if !matches!(what, Some(Thing::Floor | Thing::Ceiling)) {
                    nearest = nearest.min(hit.distance);
                }
            }
        }
    }
    if nearest + 0.05 < MIN_START_VIEW {
        return Err(format!(
            "room {room_index} starts {nearest:.2} m from what it faces"
        ));
    }
    Ok(nearest)
}

fn props_sit_on_furniture(room: &Room) -> Result<(), String> {
    for p in &room.props {
        match &p.support {
            Support::On { furniture, surface } => {
                let f = room
                    .furniture(furniture)
                    .ok_or(format!("{} on nothing", p.id))?;
                let ok = surfaces(f.kind, &f.placement).iter().any(|s| {
                    s.kind == *surface
                        && (s.y - p.position[1]).abs() < 1e-4
                        && s.area.grow(1e-4).contains_rect(&p.footprint())
                });
                if !ok {
                    return Err(format!("{} is not on a surface of {}", p.id, f.id));
                }
            }
            Support::Floor => {
                if p.position[1] != 0.0 {
                    return Err(format!("{} floats", p.id));
                }
            }
            Support::Wall { .. } => {}
        }
    }
    for f in room.furniture.iter().filter(|f| f.kind.is_decor()) {
        let host = room
            .furniture(f.on.as_deref().unwrap_or(""))
            .ok_or(format!("{} on nothing", f.id))?;
        let fp = footprint(f.kind, &f.placement);
        let ok = surfaces(host.kind, &host.placement)
            .iter()
            .any(|s| (s.y - f.placement.y).abs() < 1e-4 && s.area.grow(1e-4).contains_rect(&fp));
        if !ok {
            return Err(format!("decor {} is not on {}", f.id, host.id));
        }
    }
    Ok(())
}

fn check(s: &CraftScenario) -> Result<(), String> {
    s.validate().map_err(|e| e.to_string())?;
    for (n, room) in s.rooms.iter().enumerate() {
        check_floor(room)?;
        no_furniture_overlaps(room)?;
        hung_things_hang(room)?;
        props_sit_on_furniture(room)?;
        start_view_is_free(s, n)?;
        if free_view(room, &room.start) < MIN_START_VIEW {
            return Err(format!(
                "room {n}: free view {}",
                free_view(room, &room.start)
            ));
        }
    }
    let plan = s.plan().map_err(|e| e.to_string())?;
    let hops: Vec<u32> = (0..s.rooms.len())
        .map(|r| {
            plan.iter()
                .filter(|g| g.room == r && g.goal.is_hop())
                .count() as u32
        })
        .collect();
    if escapade_craft::scenario::tier(&hops) != Some(s.difficulty) {
        return Err("plan length does not match the difficulty".into());
    }
    Ok(())
}

/// A variant and a difficulty it takes, drawn together so that no case is thrown away:
/// half are one-room games of one to five hops (from the variant's least), half two-room
/// games of a two-digit tier (the larger layouts, where generation is hardest).
fn variant_and_tier() -> impl Strategy<Value = (Variant, u32)> {
    let one_room: Vec<Variant> = Variant::ALL
        .into_iter()
        .filter(|v| *v != Variant::MultiRoom)
        .collect();
    let one_room = proptest::sample::select(one_room).prop_flat_map(|variant| {
        let hops: Vec<u32> = (variant.min_difficulty()..=5).collect();
        (Just(variant), proptest::sample::select(hops))
    });
    let two_rooms = (
        Just(Variant::MultiRoom),
        proptest::sample::select(vec![11u32, 12, 21, 22]),
    );
    prop_oneof![one_room, two_rooms]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn generated_scenarios_are_valid_and_deterministic(
        (variant, difficulty) in variant_and_tier(),
        seed in any::<u64>(),
    ) {
        let s = generate(difficulty, seed, variant).unwrap();
        prop_assert_eq!(s.difficulty, difficulty);
        if let Err(e) = check(&s) {
            prop_assert!(false, "{}: {}", s.id, e);
        }
        let again = generate(difficulty, seed, variant).unwrap();
        prop_assert_eq!(again.to_json(), s.to_json());
    }
}

/// A shelf hung at eye height counts against the start's free view: this two-room game
/// once started 1.34 m from a wall shelf (the floor plan saw only the wall behind it),
/// found by the property test above.
#[test]
fn a_shelf_at_eye_height_blocks_the_start_view() {
    let s = generate(11, 15_022_478_713_555_994_361, Variant::MultiRoom).unwrap();
    for room in 0..s.rooms.len() {
        start_view_is_free(&s, room).unwrap();
    }
}

#[test]
fn too_short_for_the_variant_is_an_input_error() {
    for v in Variant::ALL {
        for d in 0..v.min_difficulty() {
            assert!(generate(d, 1, v).is_err(), "{v:?} {d}");
        }
    }
}

/// The ways a hand-edited room can break what stands on what.
#[derive(Debug, Clone, Copy)]
enum FurnitureFault {
    /// Two pieces share an id.
    DuplicateId,
    /// A piece stands on itself.
    OnItself,
    /// Two pieces stand on each other.
    Loop,
    /// A piece stands on furniture the room does not have.
    OnMissing,
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Generated rooms pass; the same rooms with one furniture fault are refused, by
    /// `validate` and on load, with a message naming the fault.
    #[test]
    fn broken_furniture_is_refused(
        difficulty in 1u32..=3,
        seed in any::<u64>(),
        fault in prop_oneof![
            Just(FurnitureFault::DuplicateId),
            Just(FurnitureFault::OnItself),
            Just(FurnitureFault::Loop),
            Just(FurnitureFault::OnMissing),
        ],
        pick in any::<prop::sample::Index>(),
    ) {
        let mut s = generate(difficulty, seed, Variant::Standard).unwrap();
        prop_assert!(s.validate().is_ok());
        let room = &mut s.rooms[0];
        prop_assume!(room.furniture.len() >= 2);
        let i = pick.index(room.furniture.len());
        let j = (i + 1) % room.furniture.len();
        let (a, b) = (room.furniture[i].id.clone(), room.furniture[j].id.clone());
        let wanted = match fault {
            FurnitureFault::DuplicateId => {
                room.furniture[j].id = a.clone();
                format!("two pieces of furniture have the id `{a}`")
            }
            FurnitureFault::OnItself => {
                room.furniture[i].on = Some(a.clone());
                format!("furniture `{a}` stands on itself")
            }
            FurnitureFault::Loop => {
                room.furniture[i].on = Some(b.clone());
                room.furniture[j].on = Some(a.clone());
                "in a loop".to_string()
            }
            FurnitureFault::OnMissing => {
                room.furniture[i].on = Some("nowhere_1".into());
                format!("furniture `{a}` stands on missing `nowhere_1`")
            }
        };
        let e = s.validate().unwrap_err().to_string();
        prop_assert!(e.contains(&wanted), "{:?}: {}", fault, e);
        let e = CraftScenario::from_json(&s.to_json()).unwrap_err().to_string();
        prop_assert!(e.contains(&wanted), "{:?}: {}", fault, e);
    }
}
