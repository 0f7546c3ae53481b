//! The 2D canvas: filled and stroked shapes, text, PNG bytes.
//!
//! Shapes go through tiny-skia built without its SIMD paths (scalar code gives the same
//! pixels on every CPU); text is rasterized glyph by glyph with ab_glyph and blended with
//! integer arithmetic. Coordinates are pixels from the top-left corner. The canvas is
//! opaque: it starts filled with a background colour, so blending never depends on an
//! alpha channel left undefined.

use std::sync::{Arc, OnceLock};

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use tiny_skia::{
    FillRule, Paint, PathBuilder, PathSegment, Pixmap, PremultipliedColorU8, Rect, Stroke,
    Transform,
};

use crate::RenderError;

/// An opaque colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// Black.
    pub const BLACK: Rgb = Rgb(0, 0, 0);
    /// White.
    pub const WHITE: Rgb = Rgb(255, 255, 255);

    /// This colour mixed with `other`: `t = 0` gives `self`, `t = 255` gives `other`.
    pub fn mix(self, other: Rgb, t: u8) -> Rgb {
        let m =
            |a: u8, b: u8| ((a as u32 * (255 - t as u32) + b as u32 * t as u32 + 127) / 255) as u8;
        Rgb(m(self.0, other.0), m(self.1, other.1), m(self.2, other.2))
    }
}

fn font() -> &'static FontRef<'static> {
    static FONT: OnceLock<FontRef<'static>> = OnceLock::new();
    FONT.get_or_init(|| FontRef::try_from_slice(crate::FONT).expect("the bundled font parses"))
}

/// A picture being drawn. See the module docs. A clone is a copy of the picture (a
/// background drawn once can be copied and drawn on); the pixels themselves are copied
/// only when one of the two is drawn on and read.
#[derive(Clone)]
pub struct Canvas {
    /// The pixels with every call before `pending` applied; shared by clones.
    pixmap: Arc<Pixmap>,
    /// Calls not yet rasterized, in order.
    pending: Vec<Op>,
    /// The size, the background and every call since [`Canvas::new`], encoded.
    key: Vec<u8>,
}

/// One drawing call, as the canvas keeps it until its pixels are needed.
#[derive(Clone)]
enum Op {
    /// tiny-skia's rectangle filler (sides of at least 2 pixels).
    Rect { rect: Rect, color: Rgb },
    /// A filled path (non-zero winding).
    Fill { path: tiny_skia::Path, color: Rgb },
    /// A stroked path, `width` wide, default caps and joins.
    Stroke {
        path: tiny_skia::Path,
        color: Rgb,
        width: f32,
    },
    /// One line of text, top-left corner at `(x, y)`.
    Text {
        x: f32,
        y: f32,
        size: f32,
        color: Rgb,
        text: String,
    },
}

impl Op {
    fn apply(&self, pixmap: &mut Pixmap) {
        match self {
            Op::Rect { rect, color } => {
                pixmap.fill_rect(*rect, &paint(*color), Transform::identity(), None)
            }
            Op::Fill { path, color } => {
                pixmap.fill_path(
                    path,
                    &paint(*color),
                    FillRule::Winding,
                    Transform::identity(),
                    None,
                );
            }
            Op::Stroke { path, color, width } => {
                let stroke = Stroke {
                    width: *width,
                    ..Stroke::default()
                };
                pixmap.stroke_path(path, &paint(*color), &stroke, Transform::identity(), None);
            }
            Op::Text {
                x,
                y,
                size,
                color,
                text,
            } => {
                draw_text(pixmap, *x, *y, *size, *color, text);
            }
        }
    }

    /// Appends the call to `key`: a tag, then every argument (numbers as their bits; a
    /// path as its segments, each tagged, and an end mark; a text after its length), so
    /// that two different calls never encode alike.
    fn encode(&self, key: &mut Vec<u8>) {
        fn number(key: &mut Vec<u8>, v: f32) {
            key.extend_from_slice(&v.to_bits().to_le_bytes());
        }
        fn colour(key: &mut Vec<u8>, c: Rgb) {
            key.extend_from_slice(&[c.0, c.1, c.2]);
        }
        fn path(key: &mut Vec<u8>, p: &tiny_skia::Path) {
            fn points(key: &mut Vec<u8>, tag: u8, ps: &[tiny_skia::Point]) {
                key.push(tag);
                for q in ps {
                    number(key, q.x);
                    number(key, q.y);
                }
            }
            for segment in p.segments() {
                match segment {
                    PathSegment::MoveTo(a) => points(key, b'm', &[a]),
                    PathSegment::LineTo(a) => points(key, b'l', &[a]),
                    PathSegment::QuadTo(a, b) => points(key, b'q', &[a, b]),
                    PathSegment::CubicTo(a, b, c) => points(key, b'c', &[a, b, c]),
                    PathSegment::Close => key.push(b'z'),
                }
            }
            // the end of the path: no segment starts with this tag
            key.push(b'.');
        }
        match self {
            Op::Rect { rect, color } => {
                key.push(b'R');
                for v in [rect.x(), rect.y(), rect.width(), rect.height()] {
                    number(key, v);
                }
                colour(key, *color);
            }
            Op::Fill { path: p, color } => {
                key.push(b'F');
                path(key, p);
                colour(key, *color);
            }
            Op::Stroke {
                path: p,
                color,
                width,
            } => {
                key.push(b'S');
                path(key, p);
                colour(key, *color);
                number(key, *width);
            }
            Op::Text {
                x,
                y,
                size,
                color,
                text,
            } => {
                key.push(b'T');
                for v in [*x, *y, *size] {
                    number(key, v);
                }
                colour(key, *color);
                key.extend_from_slice(&(text.len() as u32).to_le_bytes());
                key.extend_from_slice(text.as_bytes());
            }
        }
    }
}

fn paint(color: Rgb) -> Paint<'static> {
    let mut paint = Paint::default();
    paint.set_color_rgba8(color.0, color.1, color.2, 255);
    paint.anti_alias = true;
    paint
}

impl Canvas {
    /// A `width` × `height` canvas filled with `background`.
    pub fn new(width: u32, height: u32, background: Rgb) -> Result<Canvas, RenderError> {
        if width == 0 || height == 0 || width > 8192 || height > 8192 {
            return Err(RenderError::Size { width, height });
        }
        let mut pixmap = Pixmap::new(width, height).ok_or(RenderError::Size { width, height })?;
        pixmap.fill(tiny_skia::Color::from_rgba8(
            background.0,
            background.1,
            background.2,
            255,
        ));
        let mut key = b"canvas".to_vec();
        key.extend_from_slice(&width.to_le_bytes());
        key.extend_from_slice(&height.to_le_bytes());
        key.extend_from_slice(&[background.0, background.1, background.2]);
        Ok(Canvas {
            pixmap: Arc::new(pixmap),
            pending: Vec::new(),
            key,
        })
    }

    /// What was drawn: the size, the background and every drawing call since
    /// [`Canvas::new`], encoded. Two canvases with the same key hold the same pixels.
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    fn record(&mut self, op: Op) {
        op.encode(&mut self.key);
        self.pending.push(op);
    }

    /// Rasterizes the calls not yet drawn (reading the pixels does it too). A canvas
    /// kept to be copied many times (a background) is flushed once, so that its copies
    /// do not each draw its calls again.
    pub fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let pixmap = Arc::make_mut(&mut self.pixmap);
        for op in self.pending.drain(..) {
            op.apply(pixmap);
        }
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.pixmap.width()
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.pixmap.height()
    }

    /// Fills the axis-aligned rectangle at `(x, y)` of size `w` × `h`.
    pub fn fill_rect(&mut self, x: f32, y: f32, w: f32, h: f32, color: Rgb) {
        if let Some(rect) = Rect::from_xywh(x, y, w, h) {
            if w < 2.0 || h < 2.0 {
                // tiny-skia's anti-aliased rectangle filler trips a (harmless) debug
                // assertion on rectangles that straddle two pixels without covering one;
                // its path filler does not
                self.fill_path(&PathBuilder::from_rect(rect), color);
            } else {
                self.record(Op::Rect { rect, color });
            }
        }
    }

    /// Outlines the rectangle at `(x, y)` of size `w` × `h` with a line `width` wide.
    pub fn stroke_rect(&mut self, x: f32, y: f32, w: f32, h: f32, color: Rgb, width: f32) {
        if let Some(rect) = Rect::from_xywh(x, y, w, h) {
            let path = PathBuilder::from_rect(rect);
            self.stroke_path(&path, color, width);
        }
    }

    /// Fills a circle.
    pub fn fill_circle(&mut self, cx: f32, cy: f32, r: f32, color: Rgb) {
        if let Some(path) = PathBuilder::from_circle(cx, cy, r) {
            self.fill_path(&path, color);
        }
    }

    /// Outlines a circle.
    pub fn stroke_circle(&mut self, cx: f32, cy: f32, r: f32, color: Rgb, width: f32) {
        if let Some(path) = PathBuilder::from_circle(cx, cy, r) {
            self.stroke_path(&path, color, width);
        }
    }

    /// Fills the closed polygon through `points`.
    pub fn fill_polygon(&mut self, points: &[(f32, f32)], color: Rgb) {
        if let Some(path) = polygon(points) {
            self.fill_path(&path, color);
        }
    }

    /// Outlines the closed polygon through `points`.
    pub fn stroke_polygon(&mut self, points: &[(f32, f32)], color: Rgb, width: f32) {
        if let Some(path) = polygon(points) {
            self.stroke_path(&path, color, width);
        }
    }

    /// Draws a straight line.
    pub fn line(&mut self, x0: f32, y0: f32, x1: f32, y1: f32, color: Rgb, width: f32) {
        let mut pb = PathBuilder::new();
        pb.move_to(x0, y0);
        pb.line_to(x1, y1);
        if let Some(path) = pb.finish() {
            self.stroke_path(&path, color, width);
        }
    }

    /// Fills the rectangle at `(x, y)` of size `w` × `h` with corners rounded to radius
    /// `r` (clamped to half the shorter side).
    pub fn fill_rounded_rect(&mut self, x: f32, y: f32, w: f32, h: f32, r: f32, color: Rgb) {
        if let Some(path) = rounded_rect(x, y, w, h, r) {
            self.fill_path(&path, color);
        }
    }

    /// Outlines a rounded rectangle (see [`Canvas::fill_rounded_rect`]).
    #[allow(clippy::too_many_arguments)] // the rectangle's four numbers, like stroke_rect
    pub fn stroke_rounded_rect(
        &mut self,
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        r: f32,
        color: Rgb,
        width: f32,
    ) {
        if let Some(path) = rounded_rect(x, y, w, h, r) {
            self.stroke_path(&path, color, width);
        }
    }

    /// Fills the axis-aligned ellipse centred at `(cx, cy)` with radii `rx`, `ry`.
    pub fn fill_ellipse(&mut self, cx: f32, cy: f32, rx: f32, ry: f32, color: Rgb) {
        let oval = Rect::from_xywh(cx - rx, cy - ry, 2.0 * rx, 2.0 * ry);
        if let Some(path) = oval.and_then(PathBuilder::from_oval) {
            self.fill_path(&path, color);
        }
    }

    /// Outlines an axis-aligned ellipse.
    pub fn stroke_ellipse(&mut self, cx: f32, cy: f32, rx: f32, ry: f32, color: Rgb, width: f32) {
        let oval = Rect::from_xywh(cx - rx, cy - ry, 2.0 * rx, 2.0 * ry);
        if let Some(path) = oval.and_then(PathBuilder::from_oval) {
            self.stroke_path(&path, color, width);
        }
    }

    /// Draws the open line through `points` (joined, not closed).
    pub fn stroke_polyline(&mut self, points: &[(f32, f32)], color: Rgb, width: f32) {
        let Some((first, rest)) = points.split_first() else {
            return;
        };
        let mut pb = PathBuilder::new();
        pb.move_to(first.0, first.1);
        for p in rest {
            pb.line_to(p.0, p.1);
        }
        if let Some(path) = pb.finish() {
            self.stroke_path(&path, color, width);
        }
    }

    /// Draws an arrow from `(x0, y0)` to `(x1, y1)`: a shaft `width` wide and a filled
    /// head `head` long at the `(x1, y1)` end. Only basic arithmetic and a square root,
    /// so it is the same on every machine.
    #[allow(clippy::too_many_arguments)] // two points, a colour and two sizes
    pub fn arrow(&mut self, x0: f32, y0: f32, x1: f32, y1: f32, color: Rgb, width: f32, head: f32) {
        let (dx, dy) = (x1 - x0, y1 - y0);
        let len = (dx * dx + dy * dy).sqrt();
        if len <= 0.0 {
            return;
        }
        let (ux, uy) = (dx / len, dy / len);
        let head = head.min(len);
        let (bx, by) = (x1 - ux * head, y1 - uy * head);
        self.line(x0, y0, bx + ux * 0.5, by + uy * 0.5, color, width);
        let half = head * 0.6;
        self.fill_polygon(
            &[
                (x1, y1),
                (bx - uy * half, by + ux * half),
                (bx + uy * half, by - ux * half),
            ],
            color,
        );
    }

    fn fill_path(&mut self, path: &tiny_skia::Path, color: Rgb) {
        self.record(Op::Fill {
            path: path.clone(),
            color,
        });
    }

    fn stroke_path(&mut self, path: &tiny_skia::Path, color: Rgb, width: f32) {
        self.record(Op::Stroke {
            path: path.clone(),
            color,
            width,
        });
    }

    /// The width `text` takes at `size` pixels.
    pub fn text_width(size: f32, text: &str) -> f32 {
        pen(size, 0.0, text, |_, _| {})
    }

    /// Draws one line of `text` with its top-left corner at `(x, y)`, `size` pixels high.
    /// Returns the width drawn.
    pub fn text(&mut self, x: f32, y: f32, size: f32, color: Rgb, text: &str) -> f32 {
        self.record(Op::Text {
            x,
            y,
            size,
            color,
            text: text.to_string(),
        });
        // the caret moved as drawing moves it, so the width is the one drawn
        pen(size, x, text, |_, _| {}) - x
    }

    /// Draws `text` centred horizontally on `cx`, top at `y`.
    pub fn text_centered(&mut self, cx: f32, y: f32, size: f32, color: Rgb, text: &str) {
        let w = Self::text_width(size, text);
        self.text(cx - w / 2.0, y, size, color, text);
    }

    /// Splits `text` into lines no wider than `max_width` at `size` (words longer than a
    /// line stay whole).
    pub fn wrap(size: f32, max_width: f32, text: &str) -> Vec<String> {
        let mut lines = Vec::new();
        for paragraph in text.split('\n') {
            let mut line = String::new();
            for word in paragraph.split_whitespace() {
                let candidate = if line.is_empty() {
                    word.to_string()
                } else {
                    format!("{line} {word}")
                };
                if !line.is_empty() && Self::text_width(size, &candidate) > max_width {
                    lines.push(std::mem::take(&mut line));
                    line = word.to_string();
                } else {
                    line = candidate;
                }
            }
            lines.push(line);
        }
        lines
    }

    /// Draws `text` wrapped to `max_width` from `(x, y)`; returns the height used.
    pub fn text_block(
        &mut self,
        x: f32,
        y: f32,
        size: f32,
        max_width: f32,
        color: Rgb,
        text: &str,
    ) -> f32 {
        let step = (size * 1.25).ceil();
        let lines = Self::wrap(size, max_width, text);
        for (i, line) in lines.iter().enumerate() {
            self.text(x, y + i as f32 * step, size, color, line);
        }
        lines.len() as f32 * step
    }

    /// The pixel at `(x, y)` (for tests), or `None` outside the canvas.
    pub fn pixel(&mut self, x: u32, y: u32) -> Option<Rgb> {
        self.flush();
        let p = self.pixmap.pixel(x, y)?;
        Some(Rgb(p.red(), p.green(), p.blue()))
    }

    /// The pixels as row-major RGBA bytes (the canvas is opaque, so every alpha is 255
    /// and the colours are not premultiplied in any way that matters).
    pub fn rgba(&mut self) -> &[u8] {
        self.flush();
        self.pixmap.data()
    }

    /// The picture as PNG file bytes: its RGBA pixels as they are (see
    /// [`crate::encode`]); the file decodes to exactly these pixels.
    pub fn png(&mut self) -> Result<Vec<u8>, RenderError> {
        self.flush();
        crate::encode::png(
            self.width(),
            self.height(),
            crate::encode::Layout::Rgba,
            self.pixmap.data(),
        )
    }
}

/// Walks the pen along `text` at `size` from `x`: calls `each` with every glyph and the
/// pen's position where it is drawn (after the kerning before it), and returns where the
/// pen ends. What [`Canvas::text_width`] measures, [`Canvas::text`] returns and
/// [`draw_text`] draws, with the same arithmetic.
fn pen(size: f32, x: f32, text: &str, mut each: impl FnMut(ab_glyph::GlyphId, f32)) -> f32 {
    let scaled = font().as_scaled(PxScale::from(size));
    let mut caret = x;
    let mut prev = None;
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        if let Some(p) = prev {
            caret += scaled.kern(p, id);
        }
        each(id, caret);
        caret += scaled.h_advance(id);
        prev = Some(id);
    }
    caret
}

/// Rasterizes one line of `text` onto `pixmap` (see [`Canvas::text`]): glyph by glyph,
/// each blended with integer arithmetic.
fn draw_text(pixmap: &mut Pixmap, x: f32, y: f32, size: f32, color: Rgb, text: &str) {
    let baseline = y + font().as_scaled(PxScale::from(size)).ascent();
    let (w, h) = (pixmap.width() as i32, pixmap.height() as i32);
    pen(size, x, text, |id, caret| {
        let glyph = id.with_scale_and_position(size, point(caret, baseline));
        let Some(outline) = font().outline_glyph(glyph) else {
            return;
        };
        let bounds = outline.px_bounds();
        let pixels = pixmap.pixels_mut();
        outline.draw(|gx, gy, coverage| {
            let px = bounds.min.x as i32 + gx as i32;
            let py = bounds.min.y as i32 + gy as i32;
            if px < 0 || py < 0 || px >= w || py >= h {
                return;
            }
            let t = (coverage.clamp(0.0, 1.0) * 255.0 + 0.5) as u32;
            if t == 0 {
                return;
            }
            let i = (py * w + px) as usize;
            let dst = pixels[i];
            let blend = |d: u8, s: u8| ((d as u32 * (255 - t) + s as u32 * t + 127) / 255) as u8;
            if let Some(out) = PremultipliedColorU8::from_rgba(
                blend(dst.red(), color.0),
                blend(dst.green(), color.1),
                blend(dst.blue(), color.2),
                255,
            ) {
                pixels[i] = out;
            }
        });
    });
}

fn rounded_rect(x: f32, y: f32, w: f32, h: f32, r: f32) -> Option<tiny_skia::Path> {
    if !(w > 0.0 && h > 0.0) {
        return None;
    }
    let r = r.max(0.0).min(w / 2.0).min(h / 2.0);
    // control-point distance of a cubic that approximates a quarter circle
    let k = r * 0.552_284_8;
    let (x1, y1) = (x + w, y + h);
    let mut pb = PathBuilder::new();
    pb.move_to(x + r, y);
    pb.line_to(x1 - r, y);
    pb.cubic_to(x1 - r + k, y, x1, y + r - k, x1, y + r);
    pb.line_to(x1, y1 - r);
    pb.cubic_to(x1, y1 - r + k, x1 - r + k, y1, x1 - r, y1);
    pb.line_to(x + r, y1);
    pb.cubic_to(x + r - k, y1, x, y1 - r + k, x, y1 - r);
    pb.line_to(x, y + r);
    pb.cubic_to(x, y + r - k, x + r - k, y, x + r, y);
    pb.close();
    pb.finish()
}

fn polygon(points: &[(f32, f32)]) -> Option<tiny_skia::Path> {
    let (first, rest) = points.split_first()?;
    let mut pb = PathBuilder::new();
    pb.move_to(first.0, first.1);
    for p in rest {
        pb.line_to(p.0, p.1);
    }
    pb.close();
    pb.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_empty_and_huge_sizes() {
        assert!(Canvas::new(0, 10, Rgb::WHITE).is_err());
        assert!(Canvas::new(10, 9000, Rgb::WHITE).is_err());
    }

    #[test]
    fn shapes_and_text_change_pixels() {
        let mut c = Canvas::new(100, 60, Rgb::WHITE).unwrap();
        c.fill_rect(10.0, 10.0, 20.0, 20.0, Rgb(255, 0, 0));
        assert_eq!(c.pixel(20, 20), Some(Rgb(255, 0, 0)));
        assert_eq!(c.pixel(50, 50), Some(Rgb::WHITE));
        let w = c.text(40.0, 10.0, 20.0, Rgb::BLACK, "Hg");
        assert!(w > 10.0);
        let dark = (40..70)
            .flat_map(|x| (10..35).map(move |y| (x, y)))
            .filter(|&(x, y)| c.pixel(x, y).is_some_and(|p| p.0 < 128))
            .count();
        assert!(dark > 20, "text drew {dark} dark pixels");
    }

    #[test]
    fn wrapping_keeps_every_word() {
        let lines = Canvas::wrap(12.0, 60.0, "one two three four five six");
        assert!(lines.len() > 1);
        assert_eq!(lines.join(" "), "one two three four five six");
    }

    #[test]
    fn rounded_rects_ellipses_and_arrows_paint_where_asked() {
        let mut c = Canvas::new(120, 80, Rgb::WHITE).unwrap();
        c.fill_rounded_rect(10.0, 10.0, 40.0, 30.0, 8.0, Rgb(0, 0, 200));
        assert_eq!(c.pixel(30, 25), Some(Rgb(0, 0, 200)));
        // the rounded corner leaves the very corner pixel untouched
        assert_eq!(c.pixel(10, 10), Some(Rgb::WHITE));
        c.fill_ellipse(90.0, 20.0, 20.0, 10.0, Rgb(200, 0, 0));
        assert_eq!(c.pixel(90, 20), Some(Rgb(200, 0, 0)));
        assert_eq!(c.pixel(90, 5), Some(Rgb::WHITE));
        c.arrow(10.0, 60.0, 100.0, 60.0, Rgb::BLACK, 3.0, 12.0);
        assert_eq!(c.pixel(50, 60), Some(Rgb::BLACK));
        // the head is wider than the shaft
        assert!(c.pixel(91, 64).is_some_and(|p| p.0 < 60));
        assert_eq!(c.pixel(50, 64), Some(Rgb::WHITE));
        c.stroke_polyline(
            &[(60.0, 45.0), (70.0, 45.0), (70.0, 55.0)],
            Rgb(0, 150, 0),
            2.0,
        );
        assert_eq!(c.pixel(70, 50).map(|p| p.1 > 100 && p.0 < 100), Some(true));
        // thin rectangles and degenerate input draw nothing wrong and do not panic
        c.fill_rect(3.3, 3.3, 0.4, 12.0, Rgb::BLACK);
        c.fill_rect(5.6, 3.3, 1.2, 12.0, Rgb::BLACK);
        c.fill_rect(3.3, 70.2, 30.0, 0.3, Rgb::BLACK);
        c.fill_rounded_rect(0.0, 0.0, 0.0, 5.0, 2.0, Rgb::BLACK);
        c.arrow(5.0, 5.0, 5.0, 5.0, Rgb::BLACK, 2.0, 4.0);
        c.stroke_polyline(&[], Rgb::BLACK, 1.0);
    }

    /// The PNG holds the canvas's pixels exactly (and is as large as the canvas).
    #[test]
    fn the_png_decodes_to_the_canvas_pixels() {
        let mut c = Canvas::new(97, 41, Rgb(10, 20, 30)).unwrap();
        c.fill_circle(30.0, 20.0, 14.5, Rgb(250, 120, 3));
        c.stroke_polyline(&[(0.0, 0.0), (96.0, 40.0)], Rgb(1, 200, 90), 2.5);
        c.text(50.0, 4.0, 16.0, Rgb::WHITE, "Ag");
        assert!(
            c.rgba().chunks_exact(4).all(|p| p[3] == 255),
            "the canvas is opaque: its premultiplied pixels are the straight colours"
        );
        let png = c.png().unwrap();
        assert_eq!(
            crate::decode_rgba(&png).unwrap(),
            (97, 41, c.rgba().to_vec())
        );
    }

    #[test]
    fn same_calls_same_bytes() {
        let draw = || {
            let mut c = Canvas::new(80, 40, Rgb(10, 20, 30)).unwrap();
            c.fill_polygon(
                &crate::shapes::regular_polygon(40.0, 20.0, 15.0, 5, 0.0),
                Rgb(200, 100, 0),
            );
            c.text(2.0, 2.0, 10.0, Rgb::WHITE, "abc 123");
            c.png().unwrap()
        };
        assert_eq!(draw(), draw());
    }

    /// One of a few drawing calls, picked by `n`, at `v`.
    fn call(c: &mut Canvas, n: u8, v: f32) {
        match n % 5 {
            0 => c.fill_rect(v, v / 2.0, 9.0, 5.0, Rgb(200, 10, 10)),
            1 => c.stroke_rect(v / 3.0, 2.0, 7.5, v / 2.0 + 1.0, Rgb(10, 90, 10), 1.5),
            2 => c.fill_circle(v, 12.0, 4.0, Rgb(0, 0, 250)),
            3 => {
                c.text(v, 3.0, 9.0, Rgb::BLACK, "Hi");
            }
            _ => c.line(0.0, v, 30.0, 20.0 - v / 2.0, Rgb(90, 90, 0), 2.0),
        }
    }

    proptest::proptest! {
        /// A canvas's key is its drawing calls: the same calls give the same key and
        /// the same pixels, and a different list of calls a different key.
        #[test]
        fn the_key_is_the_drawing(
            a in proptest::collection::vec((0u8..5, 0.0f32..30.0), 0..6),
            b in proptest::collection::vec((0u8..5, 0.0f32..30.0), 0..6),
        ) {
            let drawn = |calls: &[(u8, f32)]| {
                let mut c = Canvas::new(40, 24, Rgb::WHITE).unwrap();
                for &(n, v) in calls {
                    call(&mut c, n, v);
                }
                c
            };
            let (mut x, mut y) = (drawn(&a), drawn(&b));
            let same_calls = a.iter().map(|(n, v)| (n % 5, v.to_bits())).eq(b.iter().map(|(n, v)| (n % 5, v.to_bits())));
            proptest::prop_assert_eq!(x.key() == y.key(), same_calls);
            if x.key() == y.key() {
                proptest::prop_assert_eq!(x.rgba(), y.rgba());
            }
        }
    }

    /// Pixels are drawn when read, in the order the calls were made, and reading in
    /// between changes nothing; a copy drawn on leaves the original as it was.
    #[test]
    fn drawing_later_is_drawing_at_once() {
        let mut once = Canvas::new(50, 30, Rgb::WHITE).unwrap();
        let mut in_steps = Canvas::new(50, 30, Rgb::WHITE).unwrap();
        for (k, &(n, v)) in [(0u8, 3.0f32), (3, 5.0), (1, 9.0), (2, 20.0), (4, 7.0)]
            .iter()
            .enumerate()
        {
            call(&mut once, n, v);
            call(&mut in_steps, n, v);
            if k % 2 == 0 {
                in_steps.flush();
            }
        }
        assert_eq!(once.key(), in_steps.key());
        assert_eq!(once.rgba(), in_steps.rgba());
        let before = once.rgba().to_vec();
        let mut copy = once.clone();
        copy.fill_rect(0.0, 0.0, 50.0, 30.0, Rgb::BLACK);
        assert_eq!(copy.pixel(10, 10), Some(Rgb::BLACK));
        assert_eq!(once.rgba(), &before[..]);
        assert_ne!(copy.key(), once.key());
    }
}
