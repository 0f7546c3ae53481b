//! Views drawn as PNG: a wall, a receptacle close-up, an item close-up (VisEscape App.
//! B.2).
//!
//! VisEscape's rooms are photo-realistic renders of 3D scenes; ours are flat 2D
//! illustrations, drawn so that a capable vision model reads them the way a player reads
//! the paper's scenes. What matters is kept legible and nothing is given away:
//!
//! - a receptacle's state is *seen*, never printed: doors swing open onto a dark inside,
//!   a locked one carries a padlock (a key opens it) or the keypad of its code lock;
//! - a clue is drawn from its quiz's [`QuizSpec`](crate::room::QuizSpec) so the answer can be read off by
//!   looking (App. D.4, Fig. 16: count the coloured cans, count the polygon's sides), and
//!   a lock face shows its slots, buttons and code kind, but neither ever shows the
//!   answer;
//! - the same state gives the same bytes: no clock, no hash map order, and the only
//!   "randomness" (where a clue's objects lie) comes from an FNV-1a hash of the item's id.
//!
//! [`crate::describe`] says in words exactly what these pictures show; the two read a
//! receptacle through the same crate-private `Leaf` and `placements`, so a text-only
//! model and a vision model see one room.

mod details; // handles, panes, vents, planks: what a look adds to a kind
mod furniture; // receptacles drawn by kind
mod items; // item icons, notes
pub(crate) mod looks; // what tells receptacles of one kind apart: finish and detail
mod paint; // palette, rectangles, plates, banner, backdrop
mod quiz; // clues and lock faces

use std::sync::Arc;

use escapade_render::memo::{Bases, Memo, Picture};
use escapade_render::{Canvas, Rgb};

use crate::VisError;
use crate::game::{Game, State, View};
use crate::room::{Cause, Furniture, ItemKind, Wall};

use furniture::{draw_furniture, natural};
use items::{draw_icon, draw_note};
use paint::{R, backdrop, banner, label, name_plate, wall_colour};
pub(crate) use quiz::{ClueForm, clue_form, object_noun, on_shelves, slot_count};
use quiz::{draw_clue, draw_lock};

/// Width and height of every view, in pixels.
pub const VIEW_SIZE: (u32, u32) = (640, 480);

/// How pictures are drawn beyond what the state decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Style {
    /// Name tags under objects, a title banner on every view, captions on lock faces
    /// (`-W labels=on`). Off by default: the paper's views are rendered rooms with no
    /// writing on them (App. B.3), so objects are told apart by how they look.
    pub labels: bool,
}

/// The current view of `state` (`state.view()`) as PNG bytes, in the default style (no
/// labels).
///
/// Fails only when the view names a receptacle or item the room does not have, or when
/// encoding fails.
pub fn render(game: &Game, state: &State) -> Result<Vec<u8>, VisError> {
    render_with(game, state, Style::default())
}

/// [`render`] in `style`.
pub fn render_with(game: &Game, state: &State, style: Style) -> Result<Vec<u8>, VisError> {
    Ok(picture(game, state, style)?.png.clone())
}

/// Bytes of pictures [`DRAWN`] keeps at most.
const DRAWN_BYTES: usize = 32 << 20;

/// Pictures by what was drawn: the SHA-256 of their canvas's [`Canvas::key`], which
/// holds every drawing call. Rooms share furniture, locks and notes, so one view's
/// drawing calls often repeat another room's (in a visescape@3 run, 76 of 494 drawings
/// did); those are neither rasterized nor encoded again. Equal keys mean equal pixels, so
/// what this holds never changes an output.
static DRAWN: Memo<String> = Memo::new(DRAWN_BYTES);

/// The picture of the current view in `style`: its PNG bytes and their SHA-256, drawn
/// and encoded unless the same drawing was made before in this process.
pub(crate) fn picture(game: &Game, state: &State, style: Style) -> Result<Arc<Picture>, VisError> {
    let mut canvas = draw(game, state, style)?;
    let key = escapade_core::hash::sha256_hex(canvas.key());
    DRAWN.get_or_draw(&key, || {
        let png = canvas.png().map_err(VisError::Render)?;
        Ok(Picture {
            sha256: escapade_core::hash::sha256_hex(&png),
            png,
            alt: None,
        })
    })
}

/// The current view of `state` drawn in `style` on a canvas (what [`render_with`]
/// encodes), for tools and tests that look at pixels.
pub fn draw(game: &Game, state: &State, style: Style) -> Result<Canvas, VisError> {
    let room = game.room();
    let mut c = match state.view() {
        View::Wall(w) => backdrop_canvas(w, FLOOR_Y)?,
        View::Receptacle(r) if r < room.receptacles.len() => {
            backdrop_canvas(room.receptacles[r].wall, RECEPTACLE_FLOOR_Y)?
        }
        _ => blank()?,
    };
    match state.view() {
        View::Wall(w) => wall_view(&mut c, game, state, w, style),
        View::Receptacle(r) if r < room.receptacles.len() => {
            receptacle_view(&mut c, game, state, r, style)
        }
        View::Item(i) if i < room.items.len() => item_view(&mut c, game, state, i, style),
        v => {
            return Err(VisError::NoView {
                view: format!("{v:?}"),
                room: room.id.clone(),
            });
        }
    }
    Ok(c)
}

/// A white canvas of the view's size.
fn blank() -> Result<Canvas, VisError> {
    Canvas::new(VIEW_SIZE.0, VIEW_SIZE.1, Rgb::WHITE).map_err(VisError::Render)
}

/// The floor line of a receptacle's close-up.
const RECEPTACLE_FLOOR_Y: f32 = 410.0;

/// A white canvas with the room's backdrop for `wall` down to `floor_y` drawn on it: the
/// start of every wall and receptacle view, drawn once per wall and floor line and copied
/// (a copy of the pixels is the same start as drawing them again; at most eight).
fn backdrop_canvas(wall: Wall, floor_y: f32) -> Result<Canvas, VisError> {
    static BACKDROPS: Bases<(Wall, u32)> = Bases::new();
    BACKDROPS.get_or_draw((wall, floor_y.to_bits()), || {
        let mut c = blank()?;
        backdrop(&mut c, wall, floor_y);
        Ok(c)
    })
}

/// How one door, drawer or lid of a receptacle looks. A state name is read by its words:
/// `locked`, `screwed`, `nailed` look locked; `open` and words of moving something away
/// (`moved`, `pulled`, a frame taken `off` the wall) look open; `on` and `off` light or
/// darken a lamp on a shut front (a fuse box); `unlocked`, `loose` and any other word
/// look closed. Drawers have two leaves (`open_closed`: top open, bottom closed); every
/// other kind has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Leaf {
    /// Shut, nothing inside visible.
    Closed,
    /// Open: its inside can be seen.
    Open,
    /// Shut and locked: a padlock, screws, planks, a card reader or a code lock is on it.
    Locked,
    /// Shut, with a lamp on its front glowing green.
    On,
    /// Shut, with the lamp on its front dark.
    Off,
}

fn leaf_of(furniture: Furniture, word: &str) -> Leaf {
    let w = word.to_ascii_lowercase();
    let any = |keys: &[&str]| keys.iter().any(|k| w.contains(k));
    if any(&["unlock", "unscrew", "loose", "unnail"]) {
        Leaf::Closed
    } else if any(&["lock", "screwed", "nailed", "sealed", "bolted"]) {
        Leaf::Locked
    } else if any(&[
        "open", "moved", "aside", "pushed", "pulled", "slid", "removed", "lifted", "raised",
        "taken",
    ]) || (furniture == Furniture::Frame && (w == "off" || w == "down"))
    {
        Leaf::Open
    } else if w == "on" || w == "powered" {
        Leaf::On
    } else if w == "off" || w == "unpowered" {
        Leaf::Off
    } else {
        Leaf::Closed
    }
}

/// The leaves of a receptacle of kind `furniture` in the state named `state`.
pub(crate) fn leaves(furniture: Furniture, state: &str) -> [Leaf; 2] {
    if furniture == Furniture::Drawers {
        let parts: Vec<&str> = state.split('_').collect();
        if parts.len() == 2 {
            return [leaf_of(furniture, parts[0]), leaf_of(furniture, parts[1])];
        }
        // VisEscape's own drawers: `first_open_second_locked`
        if let ["first", top, "second", bottom] = parts.as_slice() {
            return [leaf_of(furniture, top), leaf_of(furniture, bottom)];
        }
    }
    let l = leaf_of(furniture, state);
    [l, l]
}

/// The current leaves of receptacle `r`.
pub(crate) fn current_leaves(game: &Game, state: &State, r: usize) -> [Leaf; 2] {
    leaves(
        game.room().receptacles[r].furniture,
        game.state_name(state, r),
    )
}

/// How many leaves a kind has (two for drawers, one otherwise).
pub(crate) fn leaf_count(furniture: Furniture) -> usize {
    if furniture == Furniture::Drawers {
        2
    } else {
        1
    }
}

/// Kinds with no door of their own: a closed state shows them covered (a glass door on a
/// shelf, a cloth on a table) only when the receptacle also has an open state.
fn doorless(f: Furniture) -> bool {
    matches!(f, Furniture::Shelf | Furniture::Table)
}

/// Receptacle `r` has states that look open and states that look shut, so its shut look
/// must hide things (a shelf that only ever stands open has no doors at all).
pub(crate) fn opens_and_shuts(game: &Game, r: usize) -> bool {
    let rec = &game.room().receptacles[r];
    let open = |s: &String| leaves(rec.furniture, s).contains(&Leaf::Open);
    rec.states.iter().any(open) && !rec.states.iter().all(open)
}

/// Where a visible item is drawn on or in its receptacle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// A code lock mounted on the front of leaf `n` (its keypad).
    Front(usize),
    /// On top of (or pinned to) the receptacle, visible whatever its state.
    On,
    /// Inside leaf `n`'s compartment, which is open now.
    Inside(usize),
}

/// The visible items of receptacle `r` with where each is drawn, in room order.
///
/// A lock that can be seen while its leaf is shut is mounted on the front; an item seen
/// in every state lies on top; anything else is inside, in the compartment (drawer) whose
/// opening shows it.
pub(crate) fn placements(game: &Game, state: &State, r: usize) -> Vec<(usize, Place)> {
    let room = game.room();
    let rec = &room.receptacles[r];
    let now = current_leaves(game, state, r);
    let all: Vec<[Leaf; 2]> = rec
        .states
        .iter()
        .map(|s| leaves(rec.furniture, s))
        .collect();
    let open_inside = doorless(rec.furniture) && !opens_and_shuts(game, r);
    game.visible_items(state, r)
        .into_iter()
        .map(|i| {
            let item = &room.items[i];
            let seen: Vec<[Leaf; 2]> = rec
                .states
                .iter()
                .zip(&all)
                .filter(|(s, _)| item.visible_in.contains(s))
                .map(|(_, l)| *l)
                .collect();
            let n = leaf_count(rec.furniture);
            let place = if matches!(item.kind, ItemKind::Lock { .. }) {
                let leaf = (0..n)
                    .find(|&k| seen.iter().any(|l| l[k] == Leaf::Locked))
                    .unwrap_or(0);
                let mounted = seen.iter().any(|l| l[leaf] != Leaf::Open);
                if mounted || now[leaf] != Leaf::Open {
                    Place::Front(leaf)
                } else {
                    Place::Inside(leaf)
                }
            } else if seen.len() == rec.states.len() && !open_inside {
                Place::On
            } else {
                let leaf = (0..n)
                    .find(|&k| seen.iter().all(|l| l[k] == Leaf::Open))
                    .unwrap_or(0);
                if open_inside || now[leaf] == Leaf::Open {
                    Place::Inside(leaf)
                } else {
                    Place::On
                }
            };
            (i, place)
        })
        .collect()
}

const FLOOR_Y: f32 = 330.0;

fn wall_view(c: &mut Canvas, game: &Game, state: &State, wall: Wall, style: Style) {
    if style.labels {
        banner(c, &format!("{} WALL", wall.name().to_uppercase()));
    }
    let on = game.on_wall(wall);
    if on.is_empty() {
        if style.labels {
            label(c, 320.0, 200.0, 18.0, Rgb(90, 90, 90), "(a bare wall)");
        }
        return;
    }
    let slot = 620.0 / on.len() as f32;
    for (k, &r) in on.iter().enumerate() {
        let f = game.room().receptacles[r].furniture;
        let (nw, nh, hangs) = natural(f);
        // leave room for doors swinging out and things standing on top
        let s = (slot * 0.62 / nw)
            .min(1.3)
            .min(250.0 / nh)
            .min(if hangs { 1.1 } else { 1.3 });
        let (w, h) = (nw * s, nh * s);
        let cx = 10.0 + slot * (k as f32 + 0.5);
        let y = if hangs {
            165.0 - h / 2.0
        } else {
            FLOOR_Y + 24.0 - h
        };
        let rect = R::new(cx - w / 2.0, y, w, h);
        if !hangs {
            c.fill_ellipse(cx, FLOOR_Y + 24.0, w * 0.55, 6.0, Rgb(120, 88, 60));
        }
        draw_receptacle(c, game, state, r, rect, false, style);
        if style.labels {
            let name = &game.room().receptacles[r].name;
            name_plate(c, cx, FLOOR_Y + 44.0, 15.0, slot - 12.0, 2, name);
        }
    }
}

fn receptacle_view(c: &mut Canvas, game: &Game, state: &State, r: usize, style: Style) {
    let rec = &game.room().receptacles[r];
    if style.labels {
        banner(c, &rec.name.to_uppercase());
    }
    let (nw, nh, hangs) = natural(rec.furniture);
    // room above for things standing on top, when there are any
    let on_top = placements(game, state, r)
        .iter()
        .any(|(_, p)| *p == Place::On);
    let above = match rec.furniture {
        Furniture::Desk | Furniture::Table | Furniture::Chest => 0.5,
        Furniture::Door | Furniture::Fridge | Furniture::Frame | Furniture::Shelf => 0.04,
        _ if on_top => 0.32,
        _ => 0.04,
    };
    let wide = if rec.furniture == Furniture::Frame {
        1.9
    } else {
        1.7
    };
    let s = (600.0 / (nw * wide))
        .min(368.0 / (nh * (1.0 + above)))
        .min(3.2);
    let (w, h) = (nw * s, nh * s);
    let rect = if hangs {
        R::new(320.0 - w / 2.0, 240.0 - h / 2.0, w, h)
    } else {
        c.fill_ellipse(320.0, 436.0, w * 0.55, 8.0, Rgb(120, 88, 60));
        R::new(320.0 - w / 2.0, 436.0 - h, w, h)
    };
    draw_receptacle(c, game, state, r, rect, true, style);
}

fn item_view(c: &mut Canvas, game: &Game, state: &State, i: usize, style: Style) {
    let room = game.room();
    let item = &room.items[i];
    let wall = game.wall_of(View::Item(i));
    c.fill_rect(
        0.0,
        0.0,
        640.0,
        480.0,
        wall_colour(wall).mix(Rgb(60, 56, 60), 150),
    );
    if style.labels {
        banner(c, &item.name.to_uppercase());
    }
    let area = if style.labels {
        R::new(30.0, 58.0, 580.0, 410.0)
    } else {
        R::new(30.0, 24.0, 580.0, 432.0)
    };
    let quiz = game.quiz_of(i).map(|q| &room.quizzes[q]);
    match (&item.kind, quiz) {
        (ItemKind::Clue { .. }, Some(q)) => draw_clue(c, q, item, area, true),
        (ItemKind::Lock { .. }, Some(q)) => draw_lock(
            c,
            q,
            item,
            game.solved(state, i),
            area.fit(1.45),
            style.labels,
        ),
        (ItemKind::Note { text }, _) => draw_note(c, &item.name, text, area.fit(0.95)),
        _ => {
            let has_look = style.labels && !item.look.trim().is_empty();
            let icon = if has_look {
                area.sub(0.0, 0.0, 1.0, 0.8)
            } else {
                area
            };
            draw_icon(c, game, state, i, icon.square().inset(10.0));
            if has_look {
                name_plate(
                    c,
                    320.0,
                    area.y + area.h * 0.84,
                    18.0,
                    520.0,
                    2,
                    item.look.trim(),
                );
            }
        }
    }
}

/// What is on a leaf's front, showing what holds it shut. A locked leaf shows what the
/// room says opens it: a padlock for a key, a card reader for a card, screws for a
/// screwdriver, planks nailed across for a crowbar; a code lock shows its own keypad (the
/// lock item); a shut leaf whose opening waits for a trigger (an electric latch waiting
/// for power) shows a latch with a light.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mark {
    /// Nothing.
    None,
    /// A padlock hangs on it.
    Padlock,
    /// A card reader is on it.
    CardReader,
    /// A screw in each corner.
    Screws,
    /// Planks nailed across it.
    Planks,
    /// A code lock is mounted on it.
    Keypad,
    /// An electric latch, its light green (`true`: powered) or red.
    Latch(bool),
}

/// The mark a key-like item leaves on what it opens.
fn mark_for(item: &crate::room::Item) -> Mark {
    let text = format!("{} {}", item.name, item.look).to_ascii_lowercase();
    if text.contains("card") {
        Mark::CardReader
    } else if text.contains("screwdriver") {
        Mark::Screws
    } else if ["crowbar", "hammer", "pry bar"]
        .iter()
        .any(|k| text.contains(k))
    {
        Mark::Planks
    } else {
        Mark::Padlock
    }
}

/// The mark on each leaf of receptacle `r`, given its [`placements`].
pub(crate) fn marks(game: &Game, state: &State, r: usize, places: &[(usize, Place)]) -> [Mark; 2] {
    let room = game.room();
    let rec = &room.receptacles[r];
    let here = game.state_name(state, r);
    let now = current_leaves(game, state, r);
    let leaving: Vec<&crate::room::Interaction> = room
        .interactions
        .iter()
        .filter(|x| x.receptacle == rec.id && x.from == here)
        .collect();
    let locked = leaving
        .iter()
        .find_map(|x| match &x.cause {
            Cause::Item { item } => room.item(item).map(mark_for),
            _ => None,
        })
        .unwrap_or(if rec.furniture == Furniture::Frame {
            Mark::Screws
        } else {
            Mark::Padlock
        });
    // a verb that would open it, waiting for a trigger: an electric latch
    let latch = leaving.iter().find_map(|x| {
        let opens = leaves(rec.furniture, &x.to).contains(&Leaf::Open);
        let waits = x.guard.awaited();
        let first = waits
            .first()
            .filter(|_| opens && matches!(x.cause, Cause::Verb { .. }))?;
        let fired = game
            .trigger_index(first)
            .is_some_and(|t| state.fired_triggers().any(|f| f == t));
        Some(Mark::Latch(fired))
    });
    let mut marks = [Mark::None; 2];
    for (mark, leaf) in marks.iter_mut().zip(now) {
        *mark = match (leaf, latch) {
            (Leaf::Locked, _) => locked,
            (Leaf::Closed, Some(l)) => l,
            _ => Mark::None,
        };
    }
    for (_, p) in places {
        if let Place::Front(k) = p {
            marks[*k] = Mark::Keypad;
        }
    }
    marks
}

fn draw_receptacle(
    c: &mut Canvas,
    game: &Game,
    state: &State,
    r: usize,
    rect: R,
    close: bool,
    style: Style,
) {
    let room = game.room();
    let rec = &room.receptacles[r];
    let now = current_leaves(game, state, r);
    let places = placements(game, state, r);
    let marks = marks(game, state, r, &places);
    let exit = room.exit.receptacle == rec.id;
    let holds = draw_furniture(
        c,
        rec.furniture,
        &looks::look(rec.furniture, &rec.name),
        rect,
        now,
        marks,
        opens_and_shuts(game, r),
        exit,
    );
    if let Leaf::On | Leaf::Off = now[0] {
        // a lamp over the front: green when on, dark when off
        let f = holds.front[0];
        let rad = (f.w.min(f.h) * 0.35).max(3.0);
        let lit = now[0] == Leaf::On;
        let (x, y) = (f.cx(), f.y - rad * 0.2);
        c.fill_circle(x, y, rad * 1.35, Rgb(60, 60, 66));
        c.fill_circle(
            x,
            y,
            rad,
            if lit {
                Rgb(60, 230, 90)
            } else {
                Rgb(70, 30, 30)
            },
        );
        c.stroke_circle(x, y, rad * 1.35, Rgb(20, 20, 20), (rad / 5.0).max(1.0));
    }
    let group = |want: &dyn Fn(Place) -> bool| -> Vec<usize> {
        places
            .iter()
            .filter(|(_, p)| want(*p))
            .map(|(i, _)| *i)
            .collect()
    };
    let lying = Layout {
        labelled: close && style.labels,
        max_icon: if close { 84.0 } else { 30.0 },
        stand: true,
    };
    // a code lock mounted on a front fills its spot (close up: larger, named under it)
    let draw_front = |c: &mut Canvas, k: usize| {
        let items = group(&|p| p == Place::Front(k));
        let spot = holds.front[k];
        let (area, labelled) = if close {
            let s = spot.at_least(if now[k] == Leaf::Open { 90.0 } else { 140.0 });
            if style.labels {
                (R::new(s.x, s.y, s.w, s.h + 24.0), true)
            } else {
                (s, false)
            }
        } else {
            (spot, false)
        };
        let how = Layout {
            labelled,
            max_icon: spot.w.max(spot.h).max(area.w),
            stand: false,
        };
        draw_items(c, game, state, &items, area, how);
    };
    if rec.furniture == Furniture::Shelf {
        let (upper, lower) = shelf_boards(&places);
        draw_items(c, game, state, &upper, holds.on, lying);
        draw_items(c, game, state, &lower, holds.inside[0], lying);
        draw_front(c, 0);
        return;
    }
    for k in 0..2 {
        let inside = group(&|p| p == Place::Inside(k));
        let mut area = holds.inside[k];
        if close && area.h < 90.0 {
            // a shallow drawer: what lies in it pokes out above its rim
            area = R::new(area.x, area.bottom() - 90.0, area.w, 90.0);
        }
        draw_items(c, game, state, &inside, area, lying);
        draw_front(c, k);
    }
    let on = group(&|p| p == Place::On);
    draw_items(c, game, state, &on, holds.on, lying);
}

/// A shelf's items spread over its two boards: the first half (rounded up) on the upper
/// board, the rest on the lower one, in room order.
pub(crate) fn shelf_boards(places: &[(usize, Place)]) -> (Vec<usize>, Vec<usize>) {
    let all: Vec<usize> = places
        .iter()
        .filter(|(_, p)| matches!(p, Place::On | Place::Inside(_)))
        .map(|(i, _)| *i)
        .collect();
    let (upper, lower) = all.split_at(all.len().div_ceil(2));
    (upper.to_vec(), lower.to_vec())
}

/// How [`draw_items`] lays a group out.
#[derive(Debug, Clone, Copy)]
struct Layout {
    /// Each icon gets its name on a plate under it (close-ups).
    labelled: bool,
    /// The largest icon side, in pixels.
    max_icon: f32,
    /// Icons stand on the bottom of their cell (rather than float in its middle).
    stand: bool,
}

/// Lays items out in a grid in `area` (as many columns as makes icons largest).
fn draw_items(c: &mut Canvas, game: &Game, state: &State, items: &[usize], area: R, how: Layout) {
    let Layout {
        labelled,
        max_icon,
        stand,
    } = how;
    let n = items.len();
    if n == 0 || area.w < 2.0 || area.h < 2.0 {
        return;
    }
    // a name plate takes about one line under its icon (a second line may overflow)
    let label_h = if labelled { 22.0 } else { 0.0 };
    let mut best = (1usize, 0.0f32);
    for cols in 1..=n {
        let rows = n.div_ceil(cols);
        let size = (area.w / cols as f32 * 0.86)
            .min(area.h / rows as f32 - label_h - 2.0)
            .min(max_icon);
        if size > best.1 + 0.01 {
            best = (cols, size);
        }
    }
    let (cols, size) = (best.0, best.1.max(6.0));
    let rows = n.div_ceil(cols);
    let (cw, ch) = (area.w / cols as f32, area.h / rows as f32);
    let names = &game.room().items;
    for (k, &i) in items.iter().enumerate() {
        let cell = R::new(
            area.x + (k % cols) as f32 * cw,
            area.y + (k / cols) as f32 * ch,
            cw,
            ch,
        );
        // things standing on shelves (a clue of cans, blocks or marbles) need more room
        // to be counted than a key does
        let shelved = matches!(names[i].kind, ItemKind::Clue { .. })
            && game.quiz_of(i).is_some_and(|q| {
                quiz::on_shelves(quiz::clue_form(&names[i], &game.room().quizzes[q].spec))
            });
        let size = if shelved {
            (cw * 0.92)
                .min(ch - label_h - 2.0)
                .min(max_icon * 1.8)
                .max(size)
        } else {
            size
        };
        let top = if stand {
            // standing on the bottom of the cell; the name plate hangs below
            cell.bottom() - size - 1.0
        } else {
            cell.y + (ch - size - label_h) / 2.0
        };
        // a lock face is wider than tall
        let wide = matches!(names[i].kind, ItemKind::Lock { .. });
        let iw = if wide {
            (size * 1.45).min(cw * 0.96).max(size)
        } else {
            size
        };
        let icon = R::new(cell.cx() - iw / 2.0, top, iw, size);
        draw_icon(c, game, state, i, icon);
        if labelled {
            name_plate(
                c,
                cell.cx(),
                icon.bottom() + 2.0,
                14.0,
                cw.max(96.0) - 6.0,
                2,
                &names[i].name,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rooms whose exit doors look alike draw the shut door's close-up with the same
    /// calls: the second room's picture is the first one's, not drawn again, and it is
    /// the picture drawing it afresh gives.
    #[test]
    fn the_same_drawing_in_two_rooms_is_one_picture() {
        let mut seen: Vec<(Vec<u8>, Arc<Picture>)> = Vec::new();
        let mut shared = 0;
        for room in crate::suite::rooms().unwrap() {
            let exit = room
                .receptacles
                .iter()
                .position(|r| r.id == room.exit.receptacle)
                .unwrap();
            let game = Game::new(room).unwrap();
            let mut state = game.start();
            state.set_view(View::Receptacle(exit));
            let style = Style::default();
            let key = draw(&game, &state, style).unwrap().key().to_vec();
            let kept = picture(&game, &state, style).unwrap();
            let fresh = draw(&game, &state, style).unwrap().png().unwrap();
            assert_eq!(kept.png, fresh);
            if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key) {
                assert!(Arc::ptr_eq(first, &kept));
                shared += 1;
            } else {
                seen.push((key, kept));
            }
        }
        assert!(
            shared > 0,
            "no two rooms of the suite draw their exit door alike"
        );
    }
}
