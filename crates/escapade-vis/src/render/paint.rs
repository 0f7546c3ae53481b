//! The palette and the small helpers every drawing uses: rectangles carved out of each
//! other by fractions (so one drawing serves a thumbnail and a close-up), outlined
//! shapes, name plates, the banner and the room's backdrop, and the fixed hash that
//! seeds layouts.

use escapade_render::{Canvas, Rgb};

use super::VIEW_SIZE;
use crate::room::{Colour, Wall};

/// A rectangle in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct R {
    pub(super) x: f32,
    pub(super) y: f32,
    pub(super) w: f32,
    pub(super) h: f32,
}

impl R {
    pub(super) fn new(x: f32, y: f32, w: f32, h: f32) -> R {
        R { x, y, w, h }
    }

    /// The part at fractions `(fx, fy)` of size `(fw, fh)` of this one.
    pub(super) fn sub(self, fx: f32, fy: f32, fw: f32, fh: f32) -> R {
        R::new(
            self.x + fx * self.w,
            self.y + fy * self.h,
            fw * self.w,
            fh * self.h,
        )
    }

    /// The point at fractions `(fx, fy)` of this rectangle.
    pub(super) fn at(self, fx: f32, fy: f32) -> (f32, f32) {
        (self.x + fx * self.w, self.y + fy * self.h)
    }

    pub(super) fn cx(self) -> f32 {
        self.x + self.w / 2.0
    }

    pub(super) fn cy(self) -> f32 {
        self.y + self.h / 2.0
    }

    pub(super) fn right(self) -> f32 {
        self.x + self.w
    }

    pub(super) fn bottom(self) -> f32 {
        self.y + self.h
    }

    pub(super) fn inset(self, d: f32) -> R {
        R::new(
            self.x + d,
            self.y + d,
            (self.w - 2.0 * d).max(0.0),
            (self.h - 2.0 * d).max(0.0),
        )
    }

    /// The largest rectangle of aspect `w / h = aspect` centred in this one.
    pub(super) fn fit(self, aspect: f32) -> R {
        if self.w / self.h > aspect {
            let w = self.h * aspect;
            R::new(self.cx() - w / 2.0, self.y, w, self.h)
        } else {
            let h = self.w / aspect;
            R::new(self.x, self.cy() - h / 2.0, self.w, h)
        }
    }

    /// A square of side `min(w, h)` centred in this one.
    pub(super) fn square(self) -> R {
        self.fit(1.0)
    }

    /// This rectangle scaled about its centre (aspect kept) to be at least `min` wide.
    pub(super) fn at_least(self, min: f32) -> R {
        let f = (min / self.w.max(1.0)).max(1.0);
        let (w, h) = (self.w * f, self.h * f);
        R::new(self.cx() - w / 2.0, self.cy() - h / 2.0, w, h)
    }
}

pub(super) fn rgb(c: Colour) -> Rgb {
    let (r, g, b) = c.rgb();
    Rgb(r, g, b)
}

pub(super) const INK: Rgb = Rgb(35, 30, 28);
pub(super) const WOOD: Rgb = Rgb(158, 106, 62);
pub(super) const WOOD_DARK: Rgb = Rgb(112, 72, 40);
pub(super) const WOOD_LIGHT: Rgb = Rgb(186, 140, 92);
pub(super) const STEEL: Rgb = Rgb(150, 156, 166);
pub(super) const STEEL_DARK: Rgb = Rgb(92, 98, 110);
pub(super) const STEEL_LIGHT: Rgb = Rgb(196, 200, 208);
pub(super) const DARK: Rgb = Rgb(40, 32, 30);
pub(super) const PAPER: Rgb = Rgb(251, 248, 238);
pub(super) const GOLD: Rgb = Rgb(212, 172, 52);
pub(super) const GREEN_LIGHT: Rgb = Rgb(40, 200, 70);
pub(super) const RED_LIGHT: Rgb = Rgb(220, 40, 40);

pub(super) fn wall_colour(w: Wall) -> Rgb {
    match w {
        Wall::North => Rgb(228, 216, 192),
        Wall::East => Rgb(206, 222, 204),
        Wall::South => Rgb(206, 214, 230),
        Wall::West => Rgb(230, 208, 202),
    }
}

/// A line width that scales with a drawing's size.
pub(super) fn lw(r: R) -> f32 {
    (r.w.min(r.h) / 60.0).clamp(1.0, 3.0)
}

/// 64-bit FNV-1a: the one source of layout variety (a fixed hash, same on every machine).
pub(super) fn fnv1a(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// splitmix64 seeded from an id hash.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// Uniform in `[-1, 1]`.
    pub(super) fn signed(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}

/// Text centred on `cx`, skipped when too small to read (thumbnails).
pub(super) fn label(c: &mut Canvas, cx: f32, y: f32, size: f32, color: Rgb, text: &str) {
    if size >= 6.0 {
        c.text_centered(cx, y, size, color, text);
    }
}

/// Heavier text: the face has no bold, so draw it twice half a pixel apart.
pub(super) fn bold_centered(c: &mut Canvas, cx: f32, y: f32, size: f32, color: Rgb, text: &str) {
    if size >= 6.0 {
        c.text_centered(cx, y, size, color, text);
        c.text_centered(cx + 0.6, y, size, color, text);
    }
}

/// Dark text on a white plate, wrapped to `max_w` (at most `max_lines` lines), centred on
/// `cx` with its top at `y`. Returns the height used.
pub(super) fn name_plate(
    c: &mut Canvas,
    cx: f32,
    y: f32,
    size: f32,
    max_w: f32,
    max_lines: usize,
    text: &str,
) -> f32 {
    let mut lines = Canvas::wrap(size, max_w, text);
    lines.truncate(max_lines.max(1));
    let width = lines
        .iter()
        .map(|l| Canvas::text_width(size, l))
        .fold(0.0f32, f32::max);
    let step = (size * 1.2).ceil();
    let h = lines.len() as f32 * step + 4.0;
    c.fill_rounded_rect(
        cx - width / 2.0 - 5.0,
        y,
        width + 10.0,
        h,
        4.0,
        Rgb(255, 255, 252),
    );
    c.stroke_rounded_rect(
        cx - width / 2.0 - 5.0,
        y,
        width + 10.0,
        h,
        4.0,
        Rgb(90, 90, 90),
        1.0,
    );
    for (k, line) in lines.iter().enumerate() {
        c.text_centered(cx, y + 2.0 + k as f32 * step, size, INK, line);
    }
    h
}

/// The title banner at the top of every view.
pub(super) fn banner(c: &mut Canvas, text: &str) {
    let size = 22.0;
    let w = Canvas::text_width(size, text) + 44.0;
    let x = (VIEW_SIZE.0 as f32 - w) / 2.0;
    c.fill_rounded_rect(x, 8.0, w, 36.0, 10.0, Rgb(38, 40, 52));
    c.stroke_rounded_rect(x, 8.0, w, 36.0, 10.0, Rgb(230, 230, 235), 2.0);
    bold_centered(
        c,
        VIEW_SIZE.0 as f32 / 2.0,
        13.0,
        size,
        Rgb(250, 250, 250),
        text,
    );
}

/// A wall and floor as background.
pub(super) fn backdrop(c: &mut Canvas, wall: Wall, floor_y: f32) {
    let (w, h) = (VIEW_SIZE.0 as f32, VIEW_SIZE.1 as f32);
    c.fill_rect(0.0, 0.0, w, floor_y, wall_colour(wall));
    c.fill_rect(0.0, floor_y, w, h - floor_y, Rgb(150, 112, 78));
    let mut y = floor_y + 14.0;
    let mut step = 16.0;
    while y < h {
        c.line(0.0, y, w, y, Rgb(128, 94, 64), 1.0);
        step += 6.0;
        y += step;
    }
    c.fill_rect(0.0, floor_y - 8.0, w, 8.0, Rgb(245, 242, 232));
    c.line(0.0, floor_y, w, floor_y, Rgb(110, 85, 60), 1.5);
}

pub(super) fn outline_rect(c: &mut Canvas, r: R, fill: Rgb, width: f32) {
    c.fill_rect(r.x, r.y, r.w, r.h, fill);
    c.stroke_rect(r.x, r.y, r.w, r.h, INK, width);
}

pub(super) fn outline_poly(c: &mut Canvas, points: &[(f32, f32)], fill: Rgb, width: f32) {
    c.fill_polygon(points, fill);
    c.stroke_polygon(points, INK, width);
}

// Filled shapes outlined in ink: nearly every part of a drawing is one, so each is one
// call rather than a fill and a stroke that must agree on the same coordinates.

/// A circle of `fill` outlined in ink.
pub(super) fn inked_circle(c: &mut Canvas, (x, y): (f32, f32), radius: f32, fill: Rgb, width: f32) {
    c.fill_circle(x, y, radius, fill);
    c.stroke_circle(x, y, radius, INK, width);
}

/// An ellipse of `fill` outlined in ink.
pub(super) fn inked_ellipse(
    c: &mut Canvas,
    (x, y): (f32, f32),
    rx: f32,
    ry: f32,
    fill: Rgb,
    width: f32,
) {
    c.fill_ellipse(x, y, rx, ry, fill);
    c.stroke_ellipse(x, y, rx, ry, INK, width);
}

/// A rounded rectangle of `fill` outlined in ink.
pub(super) fn inked_rounded(c: &mut Canvas, r: R, radius: f32, fill: Rgb, width: f32) {
    c.fill_rounded_rect(r.x, r.y, r.w, r.h, radius, fill);
    c.stroke_rounded_rect(r.x, r.y, r.w, r.h, radius, INK, width);
}

/// A thick line of `fill` with an ink rim: `points` stroked `outer` wide in ink, then
/// `inner` wide in `fill`.
pub(super) fn rimmed_line(
    c: &mut Canvas,
    points: &[(f32, f32)],
    fill: Rgb,
    outer: f32,
    inner: f32,
) {
    c.stroke_polyline(points, INK, outer);
    c.stroke_polyline(points, fill, inner);
}

/// Two outlined parts of `r` side by side at the fractions `xs` (a pair of feet, legs,
/// side boards, end caps), `fw` × `fh` of it from `fy` down.
#[allow(clippy::too_many_arguments)]
pub(super) fn pair(
    c: &mut Canvas,
    r: R,
    xs: [f32; 2],
    fy: f32,
    fw: f32,
    fh: f32,
    fill: Rgb,
    width: f32,
) {
    for fx in xs {
        outline_rect(c, r.sub(fx, fy, fw, fh), fill, width);
    }
}
