//! Receptacles drawn by kind (the paper's 3D assets of App. B.1, as flat drawings): each
//! kind draws itself shut, open or locked in a rectangle and says where what it holds
//! goes (inside each compartment, on top, the keypad spot on its front).
//!
//! One function per kind, on shared parts: a leaf swung open ([`Swing`]: drawn, and where
//! its keypad sits), a drawer, a pair of feet or legs, a mark on a shut leaf, the holds
//! of a one-compartment piece. The kinds differ in proportions, not in how a hinge or a
//! drawer works, so those are written once and a fix to one reaches every kind.

use escapade_render::{Canvas, Rgb, shapes};

use super::details::{self, *};
use super::looks::{Detail, Look};
use super::paint::*;
use super::{Leaf, Mark};
use crate::room::Furniture;

/// Natural size of a kind and whether it hangs on the wall (rather than stands on the
/// floor).
pub(super) fn natural(f: Furniture) -> (f32, f32, bool) {
    match f {
        Furniture::Door => (110.0, 250.0, false),
        Furniture::Wardrobe => (150.0, 240.0, false),
        Furniture::Safe => (110.0, 110.0, false),
        Furniture::Drawers => (130.0, 130.0, false),
        Furniture::Cabinet => (130.0, 110.0, true),
        Furniture::Desk => (170.0, 110.0, false),
        Furniture::Chest => (140.0, 90.0, false),
        Furniture::Shelf => (150.0, 130.0, true),
        Furniture::Fridge => (110.0, 230.0, false),
        Furniture::Frame => (120.0, 90.0, true),
        Furniture::Locker => (90.0, 230.0, false),
        Furniture::Table => (150.0, 90.0, false),
    }
}

/// Where a drawn receptacle holds things.
pub(super) struct Holds {
    /// Inside each leaf's compartment (when open).
    pub(super) inside: [R; 2],
    /// On top of (or pinned to) it.
    pub(super) on: R,
    /// Where a code lock mounts on each leaf.
    pub(super) front: [R; 2],
}

impl Holds {
    /// The holds of a piece with one compartment and one keypad spot.
    fn one(inside: R, on: R, front: R) -> Holds {
        Holds {
            inside: [inside; 2],
            on,
            front: [front; 2],
        }
    }
}

/// A door leaf swung open towards the viewer, hinged on the vertical line `hinge_x`
/// between `y0` and `y1`, reaching `reach` pixels to the left (negative) or right.
pub(super) fn swung_leaf(
    c: &mut Canvas,
    hinge_x: f32,
    y0: f32,
    y1: f32,
    reach: f32,
    color: Rgb,
    width: f32,
) {
    let grow = (y1 - y0) * 0.04;
    let far = hinge_x + reach;
    let pts = [
        (hinge_x, y0),
        (far, y0 - grow),
        (far, y1 + grow),
        (hinge_x, y1),
    ];
    outline_poly(c, &pts, color, width);
    // the leaf's inner panel, seen at an angle
    let inset = reach * 0.2;
    let g = grow * 0.5;
    let panel = [
        (hinge_x + inset, y0 + (y1 - y0) * 0.08 - g * 0.2),
        (far - inset, y0 + (y1 - y0) * 0.08 - g),
        (far - inset, y1 - (y1 - y0) * 0.08 + g),
        (hinge_x + inset, y1 - (y1 - y0) * 0.08 + g * 0.2),
    ];
    c.stroke_polygon(&panel, color.mix(INK, 90), width * 0.7);
}

pub(super) fn knob(c: &mut Canvas, x: f32, y: f32, r: f32) {
    inked_circle(c, (x, y), r, GOLD, (r / 3.0).max(0.8));
}

/// A brass padlock whose shackle top is at `(cx, top)`, `size` pixels tall.
pub(super) fn padlock(c: &mut Canvas, cx: f32, top: f32, size: f32) {
    let w = size * 0.8;
    let body = R::new(cx - w / 2.0, top + size * 0.42, w, size * 0.58);
    c.stroke_rounded_rect(
        cx - w * 0.3,
        top,
        w * 0.6,
        size * 0.7,
        w * 0.3,
        STEEL_DARK,
        (size * 0.12).max(1.5),
    );
    inked_rounded(c, body, size * 0.08, GOLD, (size / 22.0).max(1.0));
    c.fill_circle(cx, body.y + body.h * 0.4, size * 0.07, INK);
    c.fill_rect(
        cx - size * 0.025,
        body.y + body.h * 0.4,
        size * 0.05,
        body.h * 0.35,
        INK,
    );
}

/// A chain across the front of `r` with a padlock in the middle (for things with no
/// door).
pub(super) fn chain(c: &mut Canvas, r: R, y: f32) {
    let n = ((r.w / 10.0) as usize).max(3);
    for k in 0..n {
        let x = r.x + r.w * (k as f32 + 0.5) / n as f32;
        c.stroke_ellipse(x, y, r.w / n as f32 * 0.6, 3.0, STEEL_DARK, 2.0);
    }
    padlock(c, r.cx(), y - 4.0, (r.w * 0.22).clamp(14.0, 44.0));
}

/// A shut leaf's mark (see [`Mark`]): a padlock, card reader or latch hanging from or
/// centred under `(x, y)`, `size` pixels tall; screws in the corners of `panel`; planks
/// across it. A keypad is drawn later, as the lock item itself.
pub(super) fn mark_at(c: &mut Canvas, mark: Mark, panel: R, x: f32, y: f32, size: f32) {
    let w = (size / 14.0).max(1.0);
    match mark {
        Mark::None | Mark::Keypad => {}
        Mark::Padlock => padlock(c, x, y, size),
        Mark::CardReader => {
            let plate = R::new(x - size * 0.3, y, size * 0.6, size * 0.85);
            inked_rounded(c, plate, size * 0.06, Rgb(50, 54, 62), w);
            let slot = plate.sub(0.2, 0.45, 0.6, 0.08);
            c.fill_rect(slot.x, slot.y, slot.w, slot.h.max(1.0), Rgb(10, 10, 12));
            c.fill_circle(plate.cx(), plate.y + plate.h * 0.22, size * 0.07, RED_LIGHT);
        }
        Mark::Latch(powered) => {
            let plate = R::new(x - size * 0.25, y, size * 0.5, size * 0.6);
            outline_rect(c, plate, STEEL_DARK, w);
            let light = if powered { GREEN_LIGHT } else { RED_LIGHT };
            inked_circle(c, plate.at(0.5, 0.35), size * 0.12, light, w * 0.6);
            c.fill_rect(
                plate.x + plate.w * 0.2,
                plate.y + plate.h * 0.7,
                plate.w * 0.6,
                plate.h * 0.12,
                INK,
            );
        }
        Mark::Screws => {
            let rad = (panel.w.min(panel.h) * 0.06).max(2.0);
            for (fx, fy) in [(0.08, 0.08), (0.92, 0.08), (0.08, 0.92), (0.92, 0.92)] {
                let (sx, sy) = (panel.x + panel.w * fx, panel.y + panel.h * fy);
                inked_circle(c, (sx, sy), rad, STEEL_LIGHT, (rad / 4.0).max(0.8));
                c.line(
                    sx - rad * 0.6,
                    sy,
                    sx + rad * 0.6,
                    sy,
                    INK,
                    (rad / 4.0).max(0.8),
                );
                c.line(
                    sx,
                    sy - rad * 0.6,
                    sx,
                    sy + rad * 0.6,
                    INK,
                    (rad / 4.0).max(0.8),
                );
            }
        }
        Mark::Planks => {
            let t = (panel.h * 0.16).max(4.0);
            for (y0, y1) in [(0.2, 0.4), (0.65, 0.5)] {
                let (a, b) = (panel.y + panel.h * y0, panel.y + panel.h * y1);
                let (x0, x1) = (panel.x - panel.w * 0.04, panel.right() + panel.w * 0.04);
                let board = [
                    (x0, a - t / 2.0),
                    (x1, b - t / 2.0),
                    (x1, b + t / 2.0),
                    (x0, a + t / 2.0),
                ];
                outline_poly(c, &board, WOOD_LIGHT, w);
                for (nx, ny) in [(x0 + t * 0.6, a), (x1 - t * 0.6, b)] {
                    c.fill_circle(nx, ny, (t * 0.12).max(1.0), INK);
                }
            }
        }
    }
}

/// A yellow warning triangle with a lightning bolt, centred in `r`.
fn bolt_sign(c: &mut Canvas, r: R) {
    let r = r.square();
    let w = lw(r) * 0.6;
    let tri = [(r.cx(), r.y), (r.right(), r.bottom()), (r.x, r.bottom())];
    outline_poly(c, &tri, Rgb(250, 210, 40), w);
    let bolt = [
        (r.x + r.w * 0.55, r.y + r.h * 0.3),
        (r.x + r.w * 0.4, r.y + r.h * 0.62),
        (r.x + r.w * 0.54, r.y + r.h * 0.62),
        (r.x + r.w * 0.45, r.y + r.h * 0.92),
    ];
    c.stroke_polyline(&bolt, INK, w * 1.5);
}

/// Where a keypad sits on a leaf swung open from `hinge_x` (reaching `reach`), between
/// `y0` and `y1`.
fn on_swung_leaf(hinge_x: f32, y0: f32, y1: f32, reach: f32) -> R {
    let w = reach.abs() * 0.62;
    let x = hinge_x + reach / 2.0 - w / 2.0;
    R::new(x, y0 + (y1 - y0) * 0.3, w, w * 0.7)
}

/// What a drawer front carries besides its mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Handle {
    /// A round knob.
    Knob,
    /// A long metal bar.
    Bar,
    /// A knob and a card holder above it.
    Holder,
}

/// Draws a drawer in `d` (shut, or pulled out showing its inside) and returns where its
/// contents go and where a keypad sits on its front.
pub(super) fn drawer(
    c: &mut Canvas,
    d: R,
    leaf: Leaf,
    mark: Mark,
    color: Rgb,
    handle: Handle,
    width: f32,
) -> (R, R) {
    let pull = |c: &mut Canvas, front: R| match handle {
        Handle::Knob => knob(c, front.cx(), front.cy(), (front.h * 0.1).max(1.5)),
        Handle::Bar => bar_handle_flat(c, front.cx(), front.cy(), front.w * 0.4, width),
        Handle::Holder => {
            card_holder(c, front.sub(0.4, 0.16, 0.2, 0.22), width);
            knob(
                c,
                front.cx(),
                front.y + front.h * 0.62,
                (front.h * 0.09).max(1.5),
            );
        }
    };
    if leaf == Leaf::Open {
        outline_rect(c, d, DARK, width);
        // the drawer's box seen from above, then its front pulled down towards us
        let bx = R::new(d.x - d.w * 0.03, d.y - d.h * 0.35, d.w * 1.06, d.h * 1.05);
        outline_rect(c, bx, color.mix(INK, 60), width);
        let front = R::new(d.x - d.w * 0.06, d.y + d.h * 0.55, d.w * 1.12, d.h * 0.6);
        let side = d.h * 0.08;
        let inner = R::new(
            bx.x + side,
            bx.y + side,
            bx.w - 2.0 * side,
            front.y - bx.y - side,
        );
        c.fill_rect(inner.x, inner.y, inner.w, inner.h, Rgb(70, 52, 40));
        outline_rect(c, front, color, width);
        pull(c, front);
        (inner, drawer_front(front))
    } else {
        outline_rect(c, d, color, width);
        c.stroke_rect(
            d.x + d.w * 0.06,
            d.y + d.h * 0.15,
            d.w * 0.88,
            d.h * 0.7,
            color.mix(INK, 70),
            width * 0.6,
        );
        pull(c, d);
        mark_at(c, mark, d, d.cx(), d.cy(), (d.h * 0.55).max(8.0));
        (d.sub(0.1, 0.1, 0.8, 0.8), drawer_front(d))
    }
}

/// The keypad spot on the right part of a drawer front.
pub(super) fn drawer_front(d: R) -> R {
    d.sub(0.62, 0.1, 0.34, 0.8)
}

/// Draws receptacle kind `f` with `look` in `r`: its leaves as `leaf` says, the marks
/// on them, the exit's daylight when `exit` is open. Returns where what it holds goes.
///
/// Each kind is one function below, on the shared parts above (a swung leaf, a drawer, a
/// pair of feet, a mark): this match only picks the function.
#[allow(clippy::too_many_arguments)]
pub(super) fn draw_furniture(
    c: &mut Canvas,
    f: Furniture,
    look: &Look,
    r: R,
    leaf: [Leaf; 2],
    marks: [Mark; 2],
    has_doors: bool,
    exit: bool,
) -> Holds {
    let p = Piece {
        look,
        r,
        leaf,
        marks,
        has_doors,
        exit,
        width: lw(r),
        open: leaf[0] == Leaf::Open,
        detail: look.detail,
    };
    match f {
        Furniture::Door => door(c, &p),
        Furniture::Cabinet if p.detail == Detail::Microwave => microwave_cabinet(c, &p),
        Furniture::Wardrobe | Furniture::Cabinet | Furniture::Locker => cupboard(c, &p, f),
        Furniture::Safe => safe(c, &p),
        Furniture::Drawers => drawers(c, &p),
        Furniture::Desk => desk(c, &p),
        Furniture::Chest => chest(c, &p),
        Furniture::Shelf => shelf(c, &p),
        Furniture::Fridge => fridge(c, &p),
        Furniture::Frame => frame(c, &p),
        Furniture::Table => table(c, &p),
    }
}

/// What every kind's drawing reads.
struct Piece<'a> {
    look: &'a Look,
    /// Where it is drawn.
    r: R,
    leaf: [Leaf; 2],
    marks: [Mark; 2],
    /// Whether a shelf or table has doors (glass) or a cover (cloth) over it.
    has_doors: bool,
    /// Whether the door is the exit (daylight behind it when open).
    exit: bool,
    /// The outline width for its size.
    width: f32,
    /// Whether the first leaf is open.
    open: bool,
    detail: Detail,
}

impl Piece<'_> {
    /// A place `fw` × `fh` of its size centred on top of it.
    fn above(&self, fw: f32, fh: f32) -> R {
        self.r.sub((1.0 - fw) / 2.0, -fh - 0.01, fw, fh)
    }

    /// Holds of a one-compartment piece: `inside`, on top (the usual place above it) and
    /// the keypad spot `front`.
    fn holds(&self, inside: R, front: R) -> Holds {
        Holds::one(inside, self.above(0.8, 0.3), front)
    }

    /// For things with no door (a shelf, a table): a padlock hangs on a chain across
    /// them at `chain_y`, any other mark is drawn at `(x, y)`.
    fn doorless_mark(&self, c: &mut Canvas, chain_y: f32, x: f32, y: f32, size: f32) {
        if self.marks[0] == Mark::Padlock {
            chain(c, self.r, chain_y);
        } else {
            mark_at(c, self.marks[0], self.r, x, y, size);
        }
    }
}

/// A leaf hinged on one side of an opening, swung towards the viewer.
struct Swing {
    hinge_x: f32,
    y0: f32,
    y1: f32,
    /// How far it reaches: negative to the left.
    reach: f32,
}

impl Swing {
    /// Hinged on the left edge of `opening`, reaching `f` of its width.
    fn left(opening: R, f: f32) -> Swing {
        Swing {
            hinge_x: opening.x,
            y0: opening.y,
            y1: opening.bottom(),
            reach: -opening.w * f,
        }
    }

    /// Hinged on the right edge of `opening`, reaching `f` of its width.
    fn right(opening: R, f: f32) -> Swing {
        Swing {
            hinge_x: opening.right(),
            y0: opening.y,
            y1: opening.bottom(),
            reach: opening.w * f,
        }
    }

    fn draw(&self, c: &mut Canvas, color: Rgb, width: f32) {
        swung_leaf(c, self.hinge_x, self.y0, self.y1, self.reach, color, width);
    }

    /// Where a keypad sits on the swung leaf.
    fn front(&self) -> R {
        on_swung_leaf(self.hinge_x, self.y0, self.y1, self.reach)
    }
}

fn door(c: &mut Canvas, p: &Piece) -> Holds {
    let (r, width) = (p.r, p.width);
    outline_rect(c, r, WOOD_DARK, width);
    let way = r.sub(0.07, 0.04, 0.86, 0.96);
    let mut front = way.sub(0.5, 0.3, 0.42, 0.16);
    let door = p.look.body.unwrap_or(WOOD);
    if p.open {
        let swing = Swing::left(way, 0.42);
        front = swing.front();
        if p.exit {
            c.fill_rect(way.x, way.y, way.w, way.h, Rgb(255, 246, 200));
            c.fill_rect(
                way.x,
                way.y + way.h * 0.7,
                way.w,
                way.h * 0.3,
                Rgb(150, 200, 120),
            );
        } else {
            c.fill_rect(way.x, way.y, way.w, way.h, DARK);
        }
        c.stroke_rect(way.x, way.y, way.w, way.h, INK, width);
        swing.draw(c, door, width);
    } else {
        solid(c, way, door, width);
        for panel in [
            way.sub(0.14, 0.06, 0.72, 0.38),
            way.sub(0.14, 0.54, 0.72, 0.38),
        ] {
            c.stroke_rect(panel.x, panel.y, panel.w, panel.h, WOOD_DARK, width);
        }
        knob(
            c,
            way.sub(0.85, 0.5, 0.0, 0.0).x,
            way.cy(),
            (way.w * 0.05).max(2.0),
        );
        mark_at(
            c,
            p.marks[0],
            way,
            way.x + way.w * 0.85,
            way.cy() + 2.0,
            way.w * 0.28,
        );
    }
    Holds::one(
        way.sub(0.1, 0.5, 0.8, 0.46),
        way.sub(0.18, 0.08, 0.64, 0.2),
        front,
    )
}

fn microwave_cabinet(c: &mut Canvas, p: &Piece) -> Holds {
    let (r, width) = (p.r, p.width);
    let color = p.look.body.unwrap_or(Rgb(238, 236, 228));
    inked_rounded(c, r, r.h * 0.05, color, width);
    let door = microwave(c, r, p.open, width);
    if !p.open {
        mark_at(
            c,
            p.marks[0],
            door,
            door.cx(),
            door.cy() - door.h * 0.1,
            (door.w * 0.3).max(10.0),
        );
    }
    let front = if p.open {
        Swing::left(door, 0.4).front()
    } else {
        door.sub(0.25, 0.25, 0.5, 0.4)
    };
    p.holds(door.sub(0.1, 0.1, 0.8, 0.74), front)
}

/// A wardrobe, a cabinet (a grey power box when it has a lamp) or a locker: doors
/// (two, or one for a locker) over one compartment.
fn cupboard(c: &mut Canvas, p: &Piece, f: Furniture) -> Holds {
    let (r, width, detail) = (p.r, p.width, p.detail);
    // a cabinet with a lamp (its states are `on` and `off`) is a grey power box
    let power = matches!(p.leaf[0], Leaf::On | Leaf::Off);
    let (body, default) = match f {
        Furniture::Locker => (r, Rgb(96, 130, 168)),
        Furniture::Cabinet if power => (r, STEEL_LIGHT),
        Furniture::Cabinet => (r, WOOD_LIGHT),
        _ => (r.sub(0.0, 0.04, 1.0, 0.92), WOOD),
    };
    let color = p.look.body.unwrap_or(default);
    if f == Furniture::Wardrobe {
        let top = r.sub(-0.03, 0.0, 1.06, 0.05);
        if detail == Detail::Crest {
            crest(
                c,
                R::new(top.x, top.y - top.h * 1.6, top.w, top.h * 1.6),
                color,
                width,
            );
        }
        outline_rect(c, top, color.mix(INK, 50), width);
        pair(c, r, [0.05, 0.85], 0.96, 0.1, 0.04, WOOD_DARK, width);
    }
    if detail == Detail::Broom {
        broom(c, body, width);
    }
    solid(c, body, color, width);
    let doors = body.sub(0.06, 0.05, 0.88, 0.9);
    let two = f != Furniture::Locker;
    let swings = if two {
        vec![Swing::left(doors, 0.3), Swing::right(doors, 0.3)]
    } else {
        vec![Swing::left(doors, 0.55)]
    };
    if p.open {
        outline_rect(c, doors, DARK, width);
        if f == Furniture::Wardrobe {
            // the hanging rail
            c.line(
                doors.x,
                doors.y + doors.h * 0.1,
                doors.right(),
                doors.y + doors.h * 0.1,
                STEEL_LIGHT,
                width * 1.5,
            );
        } else {
            let y = doors.y + doors.h * if f == Furniture::Locker { 0.25 } else { 0.55 };
            c.line(
                doors.x,
                y,
                doors.right(),
                y,
                color.mix(INK, 60),
                width * 2.0,
            );
        }
        for swing in &swings {
            swing.draw(c, color, width);
        }
    } else if two {
        for d in [doors.sub(0.0, 0.0, 0.5, 1.0), doors.sub(0.5, 0.0, 0.5, 1.0)] {
            outline_rect(c, d, color, width);
            let panel = d.sub(0.16, 0.08, 0.68, 0.84);
            match detail {
                Detail::Glass => glass_pane(c, panel, width),
                Detail::Louvres => louvres(c, panel, color, width),
                Detail::Lattice => lattice(c, panel, color, width),
                Detail::CardHolders => card_holder(c, d.sub(0.3, 0.1, 0.4, 0.08), width),
                Detail::Server => server(c, d.sub(0.1, 0.04, 0.8, 0.92), width),
                _ => {}
            }
        }
        if detail == Detail::BarHandles {
            let h = doors.h * 0.3;
            bar_handle(c, doors.cx() - doors.w * 0.06, doors.cy(), h, width);
            bar_handle(c, doors.cx() + doors.w * 0.06, doors.cy(), h, width);
        } else {
            let kr = (doors.w * 0.035).max(1.5);
            knob(c, doors.cx() - kr * 2.2, doors.cy(), kr);
            knob(c, doors.cx() + kr * 2.2, doors.cy(), kr);
        }
        if power || detail == Detail::Lightning {
            bolt_sign(c, doors.sub(0.58, 0.55, 0.34, 0.36));
        }
        mark_at(
            c,
            p.marks[0],
            doors,
            doors.cx(),
            doors.cy() - 2.0,
            (doors.w * 0.26).max(10.0),
        );
    } else {
        outline_rect(c, doors, color, width);
        // air slots at the top of a locker door (and the bottom, for a gym's)
        vents(c, doors.sub(0.2, 0.03, 0.6, 0.1), width);
        match detail {
            Detail::Vents => vents(c, doors.sub(0.2, 0.86, 0.6, 0.1), width),
            Detail::Rivets => rivets(c, doors),
            Detail::Wrench => wrench_paint(c, doors.sub(0.15, 0.5, 0.7, 0.34)),
            Detail::Lightning => bolt_sign(c, doors.sub(0.25, 0.62, 0.5, 0.22)),
            _ => {}
        }
        let hx = doors.x + doors.w * 0.82;
        outline_rect(
            c,
            R::new(hx - 2.0, doors.cy() - doors.h * 0.05, 4.0, doors.h * 0.1),
            STEEL_LIGHT,
            1.0,
        );
        mark_at(
            c,
            p.marks[0],
            doors,
            hx,
            doors.cy() + doors.h * 0.04,
            (doors.w * 0.35).max(10.0),
        );
    }
    let inside = match f {
        Furniture::Wardrobe => doors.sub(0.06, 0.2, 0.88, 0.76),
        Furniture::Locker => doors.sub(0.08, 0.3, 0.84, 0.66),
        _ => doors.sub(0.06, 0.08, 0.88, 0.84),
    };
    let front = match (p.open, two) {
        // the keypad rides on the last leaf drawn
        (true, _) => swings[swings.len() - 1].front(),
        (false, true) => doors.sub(0.3, 0.22, 0.4, 0.2),
        (false, false) => doors.sub(0.2, 0.3, 0.6, 0.14),
    };
    p.holds(inside, front)
}

fn safe(c: &mut Canvas, p: &Piece) -> Holds {
    let (r, width) = (p.r, p.width);
    let color = p.look.body.unwrap_or(STEEL_DARK);
    if p.detail == Detail::Surround {
        solid(c, r.sub(-0.08, -0.08, 1.16, 1.08), WOOD, width);
    }
    let body = r.sub(0.0, 0.0, 1.0, 0.93);
    pair(c, r, [0.08, 0.76], 0.92, 0.16, 0.08, STEEL_DARK, width);
    c.fill_rounded_rect(body.x, body.y, body.w, body.h, body.w * 0.05, color);
    c.fill_rect(
        body.right() - body.w * 0.07,
        body.y + body.h * 0.03,
        body.w * 0.05,
        body.h * 0.94,
        color.mix(INK, 50),
    );
    c.stroke_rounded_rect(body.x, body.y, body.w, body.h, body.w * 0.05, INK, width);
    let door = body.sub(0.08, 0.08, 0.84, 0.84);
    let face = color.mix(Rgb::WHITE, 60);
    let swing = Swing::right(door, 0.4);
    if p.open {
        outline_rect(c, door, DARK, width);
        c.line(
            door.x,
            door.cy(),
            door.right(),
            door.cy(),
            STEEL,
            width * 1.5,
        );
        swing.draw(c, face, width);
    } else {
        outline_rect(c, door, face, width);
        c.fill_rect(
            door.x + door.w * 0.9,
            door.y + door.h * 0.15,
            door.w * 0.06,
            door.h * 0.7,
            color,
        );
        if p.marks[0] == Mark::None {
            dial(c, door, width);
        }
        mark_at(
            c,
            p.marks[0],
            door,
            door.x + door.w * 0.78,
            door.cy() - door.h * 0.05,
            door.w * 0.36,
        );
    }
    let front = if p.open {
        swing.front()
    } else {
        door.sub(0.22, 0.2, 0.56, 0.6)
    };
    p.holds(door.sub(0.08, 0.1, 0.84, 0.78), front)
}

/// A plain shut safe's handle dial, centred on its `door`.
fn dial(c: &mut Canvas, door: R, width: f32) {
    let rr = door.w * 0.16;
    inked_circle(c, (door.cx(), door.cy()), rr, STEEL_LIGHT, width);
    for k in 0..12 {
        let (x0, y0) = shapes::on_circle(door.cx(), door.cy(), rr * 0.75, k as f32 / 12.0);
        let (x1, y1) = shapes::on_circle(door.cx(), door.cy(), rr, k as f32 / 12.0);
        c.line(x0, y0, x1, y1, INK, 1.0);
    }
    c.line(
        door.cx() + rr * 1.3,
        door.cy(),
        door.cx() + rr * 2.2,
        door.cy(),
        INK,
        width * 2.0,
    );
}

fn drawers(c: &mut Canvas, p: &Piece) -> Holds {
    let (r, width) = (p.r, p.width);
    let color = p.look.body.unwrap_or(WOOD);
    let fronts = if p.look.body.is_some() {
        color.mix(Rgb::WHITE, 40)
    } else {
        WOOD_LIGHT
    };
    let handle = match p.detail {
        Detail::BarHandles => Handle::Bar,
        Detail::CardHolders => Handle::Holder,
        _ => Handle::Knob,
    };
    pair(c, r, [0.02, 0.86], 0.94, 0.12, 0.06, WOOD_DARK, width);
    solid(c, r.sub(0.0, 0.0, 1.0, 0.94), color, width);
    outline_rect(
        c,
        r.sub(-0.03, -0.02, 1.06, 0.06),
        color.mix(INK, 50),
        width,
    );
    let d0 = r.sub(0.07, 0.1, 0.86, 0.38);
    let d1 = r.sub(0.07, 0.53, 0.86, 0.38);
    // the lower drawer first: an open upper drawer overlaps it
    let (in1, front1) = drawer(c, d1, p.leaf[1], p.marks[1], fronts, handle, width);
    let (in0, front0) = drawer(c, d0, p.leaf[0], p.marks[0], fronts, handle, width);
    Holds {
        inside: [in0, in1],
        on: p.above(0.8, 0.3),
        front: [front0, front1],
    }
}

fn desk(c: &mut Canvas, p: &Piece) -> Holds {
    let (r, width, detail) = (p.r, p.width, p.detail);
    let color = p.look.body.unwrap_or(WOOD);
    let (leg, legs_w) = match detail {
        Detail::MetalLegs => (Rgb(40, 40, 44), 0.04),
        Detail::TubeLegs => (STEEL_LIGHT, 0.025),
        _ => (color.mix(INK, 60), 0.06),
    };
    pair(c, r, [0.03, 0.97 - legs_w], 0.08, legs_w, 0.92, leg, width);
    if detail == Detail::TubeLegs {
        c.line(
            r.x + r.w * 0.05,
            r.y + r.h * 0.8,
            r.right() - r.w * 0.05,
            r.y + r.h * 0.8,
            STEEL_LIGHT,
            width * 1.5,
        );
    }
    let apron = if detail == Detail::MetalLegs {
        Rgb(90, 92, 98)
    } else {
        color
    };
    outline_rect(c, r.sub(0.09, 0.08, 0.82, 0.28), apron, width);
    outline_rect(c, r.sub(-0.02, 0.0, 1.04, 0.09), color.mix(INK, 40), width);
    let (inside, front) = drawer(
        c,
        r.sub(0.5, 0.11, 0.4, 0.22),
        p.leaf[0],
        p.marks[0],
        apron.mix(Rgb::WHITE, 50),
        Handle::Knob,
        width,
    );
    Holds::one(inside, r.sub(0.04, -0.42, 0.92, 0.41), front)
}

fn chest(c: &mut Canvas, p: &Piece) -> Holds {
    let (r, width, detail) = (p.r, p.width, p.detail);
    let color = p.look.body.unwrap_or(WOOD);
    let lid_colour = color.mix(INK, 40);
    let body = r.sub(0.0, 0.28, 1.0, 0.72);
    let flat = matches!(detail, Detail::Slats | Detail::Stencil);
    if detail == Detail::Ropes {
        for x in [body.x - body.w * 0.02, body.right() + body.w * 0.02] {
            rope(c, x, body.y + body.h * 0.2, body.h * 0.3);
        }
    }
    if p.open {
        let lid = r.sub(0.02, -0.32, 0.96, 0.5);
        outline_rect(c, lid, lid_colour, width);
        c.fill_rect(
            lid.x + lid.w * 0.06,
            lid.y + lid.h * 0.1,
            lid.w * 0.88,
            lid.h * 0.8,
            color.mix(INK, 50),
        );
        solid(c, body, color, width);
        outline_rect(c, body.sub(0.05, 0.0, 0.9, 0.42), DARK, width);
        if !flat {
            bands(c, body, 0.42, 0.58, width);
        }
        chest_front(c, body.sub(0.0, 0.42, 1.0, 0.58), detail, color, width);
    } else {
        solid(c, body, color, width);
        let lid = r.sub(-0.02, 0.04, 1.04, 0.26);
        if flat {
            outline_rect(c, lid, lid_colour, width);
        } else {
            inked_rounded(c, lid, lid.h * 0.5, lid_colour, width);
            outline_rect(c, lid.sub(0.0, 0.5, 1.0, 0.5), lid_colour, width);
        }
        if detail == Detail::Padded {
            tufts(c, lid);
        }
        chest_front(c, body, detail, color, width);
        if !flat {
            bands(c, r, 0.04, 0.96, width);
            outline_rect(c, body.sub(0.44, 0.0, 0.12, 0.22), GOLD, width * 0.7);
        }
        mark_at(
            c,
            p.marks[0],
            r.sub(0.0, 0.04, 1.0, 0.96),
            body.cx(),
            body.y + body.h * 0.12,
            body.h * 0.5,
        );
    }
    let front = if p.open {
        body.sub(0.3, 0.5, 0.4, 0.45)
    } else {
        body.sub(0.3, 0.3, 0.4, 0.6)
    };
    Holds::one(body.sub(0.08, -0.35, 0.84, 0.72), p.above(0.8, 0.4), front)
}

/// A chest's two steel bands down `r` from `fy`, `fh` of it long.
fn bands(c: &mut Canvas, r: R, fy: f32, fh: f32, width: f32) {
    for x in [0.2, 0.8] {
        outline_rect(c, r.sub(x - 0.03, fy, 0.06, fh), STEEL_DARK, width * 0.6);
    }
}

fn shelf(c: &mut Canvas, p: &Piece) -> Holds {
    let (r, width) = (p.r, p.width);
    let covered = p.leaf[0] != Leaf::Open && p.has_doors;
    let wood = p.look.body.unwrap_or(WOOD);
    outline_rect(c, r, WOOD_LIGHT.mix(Rgb::WHITE, 60), width);
    pair(c, r, [0.0, 0.95], 0.0, 0.05, 1.0, wood.mix(INK, 50), width);
    let books_too = p.detail == Detail::Books;
    if books_too {
        details::books(c, r.sub(0.76, 0.1, 0.18, 0.37), width);
        details::books(c, r.sub(0.76, 0.56, 0.18, 0.37), width);
    }
    for y in [0.0, 0.47, 0.93] {
        outline_rect(c, r.sub(-0.02, y, 1.04, 0.07), wood, width);
    }
    if covered {
        // glass doors
        let g = r.sub(0.05, 0.0, 0.9, 1.0);
        c.fill_rect(g.x, g.y, g.w, g.h, Rgb(176, 204, 220));
        c.stroke_rect(g.x, g.y, g.w / 2.0, g.h, INK, width);
        c.stroke_rect(g.cx(), g.y, g.w / 2.0, g.h, INK, width);
        for k in 0..2 {
            let x = g.x + g.w * (0.1 + 0.5 * k as f32);
            c.line(
                x,
                g.y + g.h * 0.3,
                x + g.w * 0.15,
                g.y + g.h * 0.1,
                Rgb(230, 240, 248),
                width * 2.0,
            );
        }
        mark_at(
            c,
            p.marks[0],
            g,
            g.cx(),
            g.cy() - 4.0,
            (g.w * 0.22).max(10.0),
        );
    } else {
        p.doorless_mark(c, r.cy(), r.cx(), r.cy() - 4.0, (r.w * 0.22).max(10.0));
    }
    let span = if books_too { 0.68 } else { 0.86 };
    Holds::one(
        r.sub(0.07, 0.54, span, 0.39),
        r.sub(0.07, 0.07, span, 0.4),
        r.sub(0.3, 0.3, 0.4, 0.35),
    )
}

fn fridge(c: &mut Canvas, p: &Piece) -> Holds {
    let (r, width) = (p.r, p.width);
    let white = p.look.body.unwrap_or(Rgb(236, 240, 242));
    let ice_box = p.detail == Detail::IceBox;
    let round = if ice_box { r.w * 0.16 } else { r.w * 0.06 };
    c.fill_rounded_rect(r.x, r.y, r.w, r.h, round, white);
    c.fill_rect(
        r.right() - r.w * 0.07,
        r.y + round,
        r.w * 0.05,
        r.h - 2.0 * round,
        white.mix(INK, 30),
    );
    c.stroke_rounded_rect(r.x, r.y, r.w, r.h, round, INK, width);
    let freezer = r.sub(0.03, 0.02, 0.94, 0.28);
    let main = r.sub(0.03, 0.32, 0.94, 0.65);
    outline_rect(c, freezer, white, width);
    if ice_box {
        for y in [0.2, 0.8] {
            outline_rect(
                c,
                freezer.sub(0.9, y - 0.08, 0.06, 0.16),
                STEEL_LIGHT,
                width * 0.5,
            );
        }
    } else {
        outline_rect(c, r.sub(0.1, 0.18, 0.05, 0.1), STEEL, width * 0.6);
    }
    let swing = Swing::right(main, 0.4);
    if p.open {
        outline_rect(c, main, Rgb(214, 232, 244), width);
        for y in [0.33, 0.66] {
            let yy = main.y + main.h * y;
            c.line(
                main.x,
                yy,
                main.right(),
                yy,
                Rgb(150, 180, 200),
                width * 1.5,
            );
        }
        swing.draw(c, white, width);
    } else {
        outline_rect(c, main, white, width);
        let handle = if ice_box {
            let h = r.sub(0.08, 0.4, 0.2, 0.05);
            inked_rounded(c, h, h.h * 0.4, STEEL_LIGHT, width * 0.6);
            h
        } else {
            let h = r.sub(0.1, 0.36, 0.05, 0.22);
            outline_rect(c, h, STEEL, width * 0.6);
            h
        };
        mark_at(
            c,
            p.marks[0],
            main,
            handle.cx(),
            handle.bottom() - 2.0,
            r.w * 0.3,
        );
    }
    let front = if p.open {
        swing.front()
    } else {
        main.sub(0.3, 0.15, 0.6, 0.2)
    };
    Holds::one(
        main.sub(0.08, 0.04, 0.84, 0.92),
        freezer.sub(0.25, 0.08, 0.65, 0.5),
        front,
    )
}

fn frame(c: &mut Canvas, p: &Piece) -> Holds {
    let (r, width) = (p.r, p.width);
    let moved = p.open;
    let mut frame = r;
    // moved aside: the recess and the frame share the frame's place between them
    let hole_at = R::new(r.x - r.w * 0.31, r.y, r.w, r.h);
    if moved {
        let hole = hole_at.sub(0.1, 0.1, 0.8, 0.8);
        outline_rect(c, hole.inset(-3.0), Rgb(170, 160, 150), width);
        outline_rect(c, hole, DARK, width);
        frame = R::new(r.x + r.w * 0.31, r.y - r.h * 0.18, r.w, r.h);
    }
    let canvas = frame.sub(0.1, 0.12, 0.8, 0.76);
    match p.detail {
        Detail::Pegboard => {
            let board = p.look.body.unwrap_or(Rgb(150, 112, 70));
            outline_rect(c, frame, board.mix(INK, 40), width);
            pegboard(c, frame.inset(width * 2.0), board, width);
        }
        Detail::Map => {
            outline_rect(c, frame, Rgb(60, 44, 36), width);
            map(c, canvas, width);
        }
        _ => {
            outline_rect(c, frame, Rgb(176, 130, 50), width);
            landscape(c, canvas, width);
        }
    }
    if !moved {
        mark_at(
            c,
            p.marks[0],
            frame,
            frame.cx(),
            frame.bottom() - frame.h * 0.1,
            frame.h * 0.36,
        );
    }
    Holds::one(
        hole_at.sub(0.16, 0.16, 0.68, 0.68),
        canvas.inset(1.0),
        R::new(
            frame.cx() - frame.w * 0.18,
            frame.bottom() + 2.0,
            frame.w * 0.36,
            frame.h * 0.3,
        ),
    )
}

fn table(c: &mut Canvas, p: &Piece) -> Holds {
    let (r, width, detail) = (p.r, p.width, p.detail);
    let covered = p.leaf[0] != Leaf::Open && p.has_doors;
    let color = p.look.body.unwrap_or(WOOD);
    pair(
        c,
        r,
        [0.06, 0.87],
        0.08,
        0.07,
        0.92,
        color.mix(INK, 50),
        width,
    );
    if detail == Detail::LowShelf {
        outline_rect(c, r.sub(0.04, 0.7, 0.92, 0.07), color, width);
    }
    let top = if detail == Detail::Vise {
        r.sub(-0.04, -0.04, 1.08, 0.16)
    } else {
        r.sub(-0.02, 0.0, 1.04, 0.1)
    };
    solid(c, top, color, width);
    if detail == Detail::Vise {
        vise(c, top, width);
    }
    if covered {
        // a cloth thrown over the table top hides what lies on it
        let cloth = [
            (r.x - r.w * 0.05, r.y - r.h * 0.02),
            (r.right() + r.w * 0.05, r.y - r.h * 0.02),
            (r.right() + r.w * 0.08, r.y + r.h * 0.6),
            (r.x + r.w * 0.7, r.y + r.h * 0.5),
            (r.x + r.w * 0.3, r.y + r.h * 0.62),
            (r.x - r.w * 0.08, r.y + r.h * 0.55),
        ];
        outline_poly(c, &cloth, Rgb(170, 60, 60), width);
        let hump = [
            (r.x + r.w * 0.05, r.y),
            (r.x + r.w * 0.2, r.y - r.h * 0.35),
            (r.x + r.w * 0.8, r.y - r.h * 0.35),
            (r.x + r.w * 0.95, r.y),
        ];
        outline_poly(c, &hump, Rgb(170, 60, 60), width);
        mark_at(c, p.marks[0], r, r.cx(), r.y + r.h * 0.15, r.h * 0.4);
    } else {
        p.doorless_mark(c, r.y + r.h * 0.05, r.cx(), r.y + r.h * 0.15, r.h * 0.4);
    }
    let surface = if detail == Detail::Vise {
        r.sub(0.18, -0.5, 0.78, 0.49)
    } else {
        r.sub(0.04, -0.5, 0.92, 0.49)
    };
    Holds::one(surface, surface, r.sub(0.35, 0.12, 0.3, 0.35))
}

/// The front of a chest or crate below its lid: planks, stencilled arrows or painted
/// stars, as its look says.
fn chest_front(c: &mut Canvas, r: R, detail: Detail, color: Rgb, width: f32) {
    match detail {
        Detail::Slats => planks(c, r, color, width),
        Detail::Stencil => {
            planks(c, r, color, width);
            stencil_arrows(c, r.sub(0.05, 0.1, 0.3, 0.8), width);
        }
        Detail::Stars => stars(c, r),
        _ => {}
    }
}

/// A landscape painting on `canvas`: sky, hills and a sun.
fn landscape(c: &mut Canvas, canvas: R, width: f32) {
    outline_rect(c, canvas, Rgb(168, 208, 236), width * 0.6);
    c.fill_rect(
        canvas.x,
        canvas.y + canvas.h * 0.6,
        canvas.w,
        canvas.h * 0.4,
        Rgb(96, 150, 80),
    );
    c.fill_ellipse(
        canvas.x + canvas.w * 0.3,
        canvas.y + canvas.h * 0.62,
        canvas.w * 0.35,
        canvas.h * 0.22,
        Rgb(80, 130, 70),
    );
    c.fill_circle(
        canvas.x + canvas.w * 0.78,
        canvas.y + canvas.h * 0.28,
        canvas.h * 0.12,
        Rgb(250, 210, 60),
    );
    c.stroke_rect(canvas.x, canvas.y, canvas.w, canvas.h, INK, width * 0.6);
}
