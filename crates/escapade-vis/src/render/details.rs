//! The small drawings that make a receptacle look like itself (see [`super::looks`]):
//! handles, panes, vents, planks, stencils, a broom, a vise… Each draws inside (or just
//! beside) the rectangle it is given and nothing else.

use escapade_render::{Canvas, Rgb, shapes};

use super::paint::*;

/// A body with volume: `fill`, a darker band down its right side and a lit top edge,
/// outlined.
pub(super) fn solid(c: &mut Canvas, r: R, fill: Rgb, width: f32) {
    c.fill_rect(r.x, r.y, r.w, r.h, fill);
    let side = (r.w * 0.07).max(1.0);
    c.fill_rect(
        r.right() - side,
        r.y,
        side,
        r.h,
        fill.mix(Rgb(20, 16, 14), 45),
    );
    c.fill_rect(
        r.x,
        r.y,
        r.w - side,
        (r.h * 0.025).max(1.0),
        fill.mix(Rgb::WHITE, 70),
    );
    c.stroke_rect(r.x, r.y, r.w, r.h, INK, width);
}

/// A long vertical metal handle centred on `(x, cy)`, `h` tall.
pub(super) fn bar_handle(c: &mut Canvas, x: f32, cy: f32, h: f32, width: f32) {
    let w = (h * 0.12).max(2.0);
    c.fill_rounded_rect(x - w / 2.0, cy - h / 2.0, w, h, w / 2.0, STEEL_LIGHT);
    c.stroke_rounded_rect(x - w / 2.0, cy - h / 2.0, w, h, w / 2.0, INK, width * 0.6);
}

/// A horizontal metal handle centred on `(cx, y)`, `w` wide.
pub(super) fn bar_handle_flat(c: &mut Canvas, cx: f32, y: f32, w: f32, width: f32) {
    let h = (w * 0.1).max(2.0);
    c.fill_rounded_rect(cx - w / 2.0, y - h / 2.0, w, h, h / 2.0, STEEL_LIGHT);
    c.stroke_rounded_rect(cx - w / 2.0, y - h / 2.0, w, h, h / 2.0, INK, width * 0.6);
}

/// A small card holder (a metal frame round a white card) in `r`.
pub(super) fn card_holder(c: &mut Canvas, r: R, width: f32) {
    c.fill_rect(r.x, r.y, r.w, r.h, STEEL_LIGHT);
    c.stroke_rect(r.x, r.y, r.w, r.h, INK, width * 0.5);
    let card = r.inset((r.h * 0.18).max(1.0));
    c.fill_rect(card.x, card.y, card.w, card.h, PAPER);
}

/// A glass pane in `r`, with a shine across it.
pub(super) fn glass_pane(c: &mut Canvas, r: R, width: f32) {
    c.fill_rect(r.x, r.y, r.w, r.h, Rgb(176, 204, 220));
    c.stroke_rect(r.x, r.y, r.w, r.h, INK, width * 0.7);
    c.line(
        r.x + r.w * 0.2,
        r.y + r.h * 0.35,
        r.x + r.w * 0.55,
        r.y + r.h * 0.1,
        Rgb(232, 242, 250),
        (width * 2.0).max(1.5),
    );
}

/// Horizontal slats across `r`.
pub(super) fn louvres(c: &mut Canvas, r: R, colour: Rgb, width: f32) {
    let n = ((r.h / 9.0) as usize).clamp(4, 24);
    for k in 1..n {
        let y = r.y + r.h * k as f32 / n as f32;
        c.line(r.x + 2.0, y, r.right() - 2.0, y, shade(colour), width * 0.7);
    }
}

/// Crossed laths over `r`: a square lattice.
pub(super) fn lattice(c: &mut Canvas, r: R, colour: Rgb, width: f32) {
    let n = 4;
    for k in 1..n {
        let x = r.x + r.w * k as f32 / n as f32;
        let y = r.y + r.h * k as f32 / n as f32;
        c.line(x, r.y + 2.0, x, r.bottom() - 2.0, shade(colour), width);
        c.line(r.x + 2.0, y, r.right() - 2.0, y, shade(colour), width);
    }
}

fn shade(c: Rgb) -> Rgb {
    c.mix(Rgb(20, 16, 14), 80)
}

/// A row of air slots across `r`.
pub(super) fn vents(c: &mut Canvas, r: R, width: f32) {
    let n = 4;
    for k in 0..n {
        let y = r.y + r.h * (k as f32 + 0.5) / n as f32;
        c.line(
            r.x + r.w * 0.2,
            y,
            r.right() - r.w * 0.2,
            y,
            Rgb(30, 30, 34),
            (width * 1.2).max(1.0),
        );
    }
}

/// Rivets round the edge of `r`.
pub(super) fn rivets(c: &mut Canvas, r: R) {
    let rad = (r.w.min(r.h) * 0.02).clamp(0.8, 3.0);
    let n = 6;
    for k in 0..=n {
        let f = k as f32 / n as f32;
        for (x, y) in [
            (r.x + rad * 2.0, r.y + r.h * f),
            (r.right() - rad * 2.0, r.y + r.h * f),
        ] {
            c.fill_circle(
                x,
                y.clamp(r.y + rad * 2.0, r.bottom() - rad * 2.0),
                rad,
                STEEL_LIGHT,
            );
        }
    }
}

/// A broom leaning on the right side of `r` (the body it leans on).
pub(super) fn broom(c: &mut Canvas, r: R, width: f32) {
    let top = (r.right() + r.w * 0.02, r.y + r.h * 0.3);
    let foot = (r.right() + r.w * 0.22, r.bottom() - r.h * 0.1);
    c.line(top.0, top.1, foot.0, foot.1, WOOD, (r.w * 0.05).max(2.0));
    let (bx, by) = foot;
    let bw = r.w * 0.18;
    let bristles = [
        (bx - bw * 0.3, by - r.h * 0.02),
        (bx + bw * 0.3, by - r.h * 0.02),
        (bx + bw * 0.6, by + r.h * 0.1),
        (bx - bw * 0.6, by + r.h * 0.1),
    ];
    outline_poly(c, &bristles, Rgb(220, 190, 90), width * 0.6);
}

/// A wrench painted (pale) on a door in `r`.
pub(super) fn wrench_paint(c: &mut Canvas, r: R) {
    let paint = Rgb(250, 236, 200);
    let (x0, y0) = (r.x + r.w * 0.3, r.bottom() - r.h * 0.2);
    let (x1, y1) = (r.right() - r.w * 0.3, r.y + r.h * 0.2);
    c.line(x0, y0, x1, y1, paint, r.w * 0.1);
    c.fill_circle(x1, y1, r.w * 0.14, paint);
    c.fill_circle(
        x1 + r.w * 0.05,
        y1 - r.w * 0.05,
        r.w * 0.06,
        Rgb(232, 132, 44),
    );
    c.fill_circle(x0, y0, r.w * 0.1, paint);
}

/// Air vents and a column of small green lights on a door in `r`.
pub(super) fn server(c: &mut Canvas, r: R, width: f32) {
    vents(c, r.sub(0.1, 0.06, 0.8, 0.2), width);
    vents(c, r.sub(0.1, 0.74, 0.8, 0.2), width);
    for k in 0..3 {
        let y = r.y + r.h * (0.36 + 0.1 * k as f32);
        c.fill_circle(r.x + r.w * 0.2, y, (r.w * 0.04).max(1.0), Rgb(80, 230, 110));
    }
}

/// A carved crest standing on the top edge `top` (its width), `h` tall.
pub(super) fn crest(c: &mut Canvas, top: R, colour: Rgb, width: f32) {
    let h = top.h;
    let pts = [
        (top.x + top.w * 0.2, top.bottom()),
        (top.x + top.w * 0.35, top.bottom() - h * 0.5),
        (top.cx(), top.y),
        (top.x + top.w * 0.65, top.bottom() - h * 0.5),
        (top.x + top.w * 0.8, top.bottom()),
    ];
    outline_poly(c, &pts, colour, width);
    c.fill_circle(top.cx(), top.bottom() - h * 0.45, h * 0.15, GOLD);
}

/// Plank seams across `r`.
pub(super) fn planks(c: &mut Canvas, r: R, colour: Rgb, width: f32) {
    for k in 1..4 {
        let y = r.y + r.h * k as f32 / 4.0;
        c.line(r.x, y, r.right(), y, shade(colour), width * 0.8);
    }
    for (fx, fy) in [(0.06, 0.12), (0.94, 0.12), (0.06, 0.88), (0.94, 0.88)] {
        c.fill_circle(r.x + r.w * fx, r.y + r.h * fy, (r.h * 0.025).max(0.8), INK);
    }
}

/// Two upward arrows stencilled (dark) in `r`.
pub(super) fn stencil_arrows(c: &mut Canvas, r: R, width: f32) {
    for fx in [0.35, 0.65] {
        let x = r.x + r.w * fx;
        c.arrow(
            x,
            r.bottom() - r.h * 0.2,
            x,
            r.y + r.h * 0.2,
            Rgb(50, 40, 34),
            (width * 1.6).max(1.5),
            r.h * 0.22,
        );
    }
}

/// A rope loop hanging at `(x, y)`, `size` across.
pub(super) fn rope(c: &mut Canvas, x: f32, y: f32, size: f32) {
    c.stroke_ellipse(
        x,
        y + size * 0.3,
        size * 0.5,
        size * 0.4,
        Rgb(196, 168, 110),
        (size * 0.18).max(1.2),
    );
}

/// Small yellow stars painted over `r`.
pub(super) fn stars(c: &mut Canvas, r: R) {
    for (fx, fy) in [(0.09, 0.55), (0.91, 0.55), (0.32, 0.22), (0.68, 0.22)] {
        let pts = shapes::star(r.x + r.w * fx, r.y + r.h * fy, r.h * 0.16, r.h * 0.07, 5);
        c.fill_polygon(&pts, Rgb(250, 214, 60));
    }
}

/// Button tufts over a padded lid `r`, with the seams between its cushions.
pub(super) fn tufts(c: &mut Canvas, r: R) {
    for fx in [0.25, 0.5, 0.75] {
        let x = r.x + r.w * fx;
        c.line(x, r.y + r.h * 0.15, x, r.bottom(), Rgb(150, 130, 104), 1.0);
    }
    for fx in [0.125, 0.375, 0.625, 0.875] {
        c.fill_circle(
            r.x + r.w * fx,
            r.y + r.h * 0.5,
            (r.h * 0.12).max(1.0),
            Rgb(140, 118, 90),
        );
    }
}

/// A coastline map in `r`: sea, land and a dotted route.
pub(super) fn map(c: &mut Canvas, r: R, width: f32) {
    c.fill_rect(r.x, r.y, r.w, r.h, Rgb(150, 196, 226));
    let land = [
        (r.x, r.y),
        (r.x + r.w * 0.62, r.y),
        (r.x + r.w * 0.5, r.y + r.h * 0.35),
        (r.x + r.w * 0.66, r.y + r.h * 0.62),
        (r.x + r.w * 0.4, r.bottom()),
        (r.x, r.bottom()),
    ];
    c.fill_polygon(&land, Rgb(226, 212, 160));
    c.fill_ellipse(
        r.x + r.w * 0.84,
        r.y + r.h * 0.3,
        r.w * 0.07,
        r.h * 0.1,
        Rgb(226, 212, 160),
    );
    let route = [
        (r.x + r.w * 0.2, r.y + r.h * 0.7),
        (r.x + r.w * 0.3, r.y + r.h * 0.45),
        (r.x + r.w * 0.45, r.y + r.h * 0.25),
    ];
    for w in route.windows(2) {
        let n = 5;
        for k in 0..n {
            let t = k as f32 / n as f32;
            c.fill_circle(
                w[0].0 + (w[1].0 - w[0].0) * t,
                w[0].1 + (w[1].1 - w[0].1) * t,
                (width * 0.7).max(0.8),
                Rgb(200, 40, 40),
            );
        }
    }
    c.stroke_rect(r.x, r.y, r.w, r.h, INK, width * 0.6);
}

/// A pegboard in `r`: brown, a grid of holes and a few empty hooks.
pub(super) fn pegboard(c: &mut Canvas, r: R, colour: Rgb, width: f32) {
    c.fill_rect(r.x, r.y, r.w, r.h, colour);
    let (cols, rows) = (10, 7);
    for i in 0..cols {
        for j in 0..rows {
            c.fill_circle(
                r.x + r.w * (i as f32 + 0.5) / cols as f32,
                r.y + r.h * (j as f32 + 0.5) / rows as f32,
                (r.w * 0.008).max(0.7),
                Rgb(70, 50, 34),
            );
        }
    }
    for (fx, fy) in [(0.15, 0.12), (0.85, 0.12), (0.15, 0.9), (0.85, 0.9)] {
        let (x, y) = (r.x + r.w * fx, r.y + r.h * fy);
        c.stroke_polyline(
            &[
                (x, y),
                (x, y + r.h * 0.05),
                (x + r.w * 0.03, y + r.h * 0.05),
            ],
            STEEL_LIGHT,
            (width * 0.9).max(1.0),
        );
    }
    c.stroke_rect(r.x, r.y, r.w, r.h, INK, width * 0.6);
}

/// A bench vise clamped on the left end of a table top `top`.
pub(super) fn vise(c: &mut Canvas, top: R, width: f32) {
    let h = top.h * 2.2;
    let body = R::new(top.x + top.w * 0.02, top.y - h * 0.7, top.w * 0.12, h);
    c.fill_rect(body.x, body.y, body.w, body.h, STEEL_DARK);
    c.stroke_rect(body.x, body.y, body.w, body.h, INK, width * 0.8);
    let jaw = R::new(body.x - body.w * 0.3, body.y, body.w * 0.3, body.h * 0.4);
    c.fill_rect(jaw.x, jaw.y, jaw.w, jaw.h, STEEL);
    c.stroke_rect(jaw.x, jaw.y, jaw.w, jaw.h, INK, width * 0.6);
    let y = body.y + body.h * 0.22;
    c.line(
        jaw.x - body.w * 0.6,
        y,
        jaw.x,
        y,
        STEEL_LIGHT,
        (width * 1.4).max(1.2),
    );
}

/// A row of book spines standing in `r` (their shelf board is `r`'s bottom).
pub(super) fn books(c: &mut Canvas, r: R, width: f32) {
    const SPINES: [Rgb; 4] = [
        Rgb(150, 40, 40),
        Rgb(40, 70, 130),
        Rgb(60, 110, 60),
        Rgb(170, 130, 50),
    ];
    let n = SPINES.len();
    let w = r.w / n as f32;
    for (k, colour) in SPINES.iter().enumerate() {
        let h = r.h * (0.78 + 0.07 * (k % 2) as f32);
        let b = R::new(r.x + w * k as f32, r.bottom() - h, w * 0.9, h);
        c.fill_rect(b.x, b.y, b.w, b.h, *colour);
        c.stroke_rect(b.x, b.y, b.w, b.h, INK, width * 0.5);
        c.line(
            b.x + b.w * 0.2,
            b.y + b.h * 0.15,
            b.right() - b.w * 0.2,
            b.y + b.h * 0.15,
            GOLD,
            (width * 0.5).max(0.7),
        );
    }
}

/// A microwave oven's front in `r`: its door (shut: a dark window; the door itself
/// swings out when open) and the control panel on the right.
pub(super) fn microwave(c: &mut Canvas, r: R, open: bool, width: f32) -> R {
    let door = r.sub(0.04, 0.08, 0.68, 0.84);
    let panel = r.sub(0.76, 0.08, 0.2, 0.84);
    c.fill_rect(panel.x, panel.y, panel.w, panel.h, Rgb(214, 214, 210));
    c.stroke_rect(panel.x, panel.y, panel.w, panel.h, INK, width * 0.6);
    let screen = panel.sub(0.12, 0.08, 0.76, 0.16);
    c.fill_rect(screen.x, screen.y, screen.w, screen.h, Rgb(40, 60, 50));
    for k in 0..6 {
        let b = panel.sub(
            0.16 + 0.38 * (k % 2) as f32,
            0.34 + 0.14 * (k / 2) as f32,
            0.3,
            0.09,
        );
        c.fill_rect(b.x, b.y, b.w, b.h, Rgb(246, 246, 244));
        c.stroke_rect(b.x, b.y, b.w, b.h, INK, width * 0.4);
    }
    if open {
        c.fill_rect(door.x, door.y, door.w, door.h, Rgb(196, 198, 196));
        c.stroke_rect(door.x, door.y, door.w, door.h, INK, width);
        c.fill_ellipse(
            door.cx(),
            door.bottom() - door.h * 0.12,
            door.w * 0.36,
            door.h * 0.07,
            Rgb(226, 236, 240),
        );
        super::furniture::swung_leaf(
            c,
            door.x,
            door.y,
            door.bottom(),
            -door.w * 0.4,
            Rgb(238, 236, 228),
            width,
        );
    } else {
        c.fill_rect(door.x, door.y, door.w, door.h, Rgb(238, 236, 228));
        c.stroke_rect(door.x, door.y, door.w, door.h, INK, width);
        let window = door.sub(0.1, 0.14, 0.72, 0.72);
        c.fill_rounded_rect(
            window.x,
            window.y,
            window.w,
            window.h,
            window.h * 0.08,
            Rgb(44, 46, 50),
        );
        bar_handle(
            c,
            door.right() - door.w * 0.08,
            door.cy(),
            door.h * 0.5,
            width,
        );
    }
    door
}
