//! Items as icons: keys, cards and tools shaped after their name and coloured after
//! their look, decoration, notes, and clues and locks as small versions of their
//! close-ups.
//!
//! An icon is a handful of parts, nearly all filled and outlined in ink: they are drawn
//! with the shared helpers of [`super::paint`] (`inked_circle`, `inked_rounded`,
//! `rimmed_line`, `pair`…), so each icon reads as the list of its parts.

use escapade_render::{Canvas, Rgb, shapes};

use super::paint::*;
use super::quiz::{draw_clue, draw_lock};
use crate::game::{Game, State};
use crate::room::ItemKind;

/// Draws item `i` as an icon in `r` (square-ish): what it is for decides how.
pub(super) fn draw_icon(c: &mut Canvas, game: &Game, state: &State, i: usize, r: R) {
    let room = game.room();
    let item = &room.items[i];
    let quiz = game.quiz_of(i).map(|q| &room.quizzes[q]);
    match (&item.kind, quiz) {
        (ItemKind::Clue { .. }, Some(q)) => draw_clue(c, q, item, r.square(), false),
        (ItemKind::Lock { .. }, Some(q)) => {
            draw_lock(c, q, item, game.solved(state, i), r.fit(1.45), false)
        }
        (ItemKind::Note { .. }, _) if is_card(&item.name) => {
            // a postcard or a card: wider than tall, a picture on one half
            let p = r.square().sub(0.05, 0.22, 0.9, 0.56);
            outline_rect(c, p, PAPER, lw(p) * 0.8);
            let pic = p.sub(0.06, 0.1, 0.42, 0.8);
            c.fill_rect(pic.x, pic.y, pic.w, pic.h, Rgb(150, 196, 226));
            c.fill_rect(
                pic.x,
                pic.y + pic.h * 0.6,
                pic.w,
                pic.h * 0.4,
                Rgb(226, 212, 160),
            );
            ruled(c, p.sub(0.56, 0.3, 0.36, 0.6), 3, (p.h / 40.0).max(0.8));
        }
        (ItemKind::Note { .. }, _) => {
            let p = r.square().sub(0.15, 0.05, 0.7, 0.9);
            outline_rect(c, p, PAPER, lw(p) * 0.8);
            ruled(c, p.sub(0.15, 0.2, 0.7, 0.7), 5, (p.h / 60.0).max(0.8));
        }
        (ItemKind::Decor, _) => decor_icon(c, &item.name, &item.look, &item.id, r.square()),
        _ => tool_icon(c, &item.name, &item.look, &item.id, r.square()),
    }
}

/// A colour named in an item's name or look (`brass key`, `red box`), or one picked from
/// its id.
pub(super) fn item_colour(name: &str, look: &str, id: &str) -> Rgb {
    const WORDS: [(&str, Rgb); 20] = [
        ("gold", GOLD),
        ("brass", GOLD),
        ("yellow", Rgb(240, 200, 20)),
        ("silver", STEEL_LIGHT),
        ("steel", STEEL),
        ("iron", STEEL_DARK),
        ("metal", STEEL),
        ("grey", STEEL),
        ("gray", STEEL),
        ("copper", Rgb(184, 115, 51)),
        ("bronze", Rgb(176, 120, 60)),
        ("rust", Rgb(160, 82, 45)),
        ("red", Rgb(214, 40, 40)),
        ("green", Rgb(46, 160, 67)),
        ("blue", Rgb(40, 90, 220)),
        ("purple", Rgb(140, 60, 180)),
        ("orange", Rgb(245, 130, 20)),
        ("pink", Rgb(236, 130, 170)),
        ("black", Rgb(40, 40, 44)),
        ("white", Rgb(246, 246, 246)),
    ];
    const MORE: [(&str, Rgb); 3] = [
        ("wood", WOOD),
        ("brown", WOOD),
        ("violet", Rgb(140, 60, 180)),
    ];
    for text in [name, look] {
        // the colour word said first wins (`a red iron crowbar` is red)
        let t = text.to_ascii_lowercase();
        let first = WORDS
            .iter()
            .chain(MORE.iter())
            .filter_map(|(w, c)| t.find(w).map(|at| (at, *c)))
            .min_by_key(|(at, _)| *at);
        if let Some((_, c)) = first {
            return c;
        }
    }
    const PALETTE: [Rgb; 6] = [
        Rgb(214, 40, 40),
        Rgb(40, 90, 220),
        Rgb(46, 160, 67),
        GOLD,
        Rgb(140, 60, 180),
        Rgb(245, 130, 20),
    ];
    PALETTE[(fnv1a(id) % PALETTE.len() as u64) as usize]
}

/// The first of `keys` found in the name, then in the look.
pub(super) fn kind_word<'a>(name: &str, look: &str, keys: &[&'a str]) -> Option<&'a str> {
    for text in [name, look] {
        let t = text.to_ascii_lowercase();
        if let Some(k) = keys.iter().find(|k| t.contains(*k)) {
            return Some(k);
        }
    }
    None
}

/// Applicable items: keys, cards, coins and tools, shaped after their name.
pub(super) fn tool_icon(c: &mut Canvas, name: &str, look: &str, id: &str, r: R) {
    const KINDS: [&str; 21] = [
        "card",
        "badge",
        "pass",
        "screwdriver",
        "crowbar",
        "hammer",
        "wrench",
        "spanner",
        "flashlight",
        "torch",
        "battery",
        "fuse",
        "coin",
        "token",
        "gear",
        "cog",
        "magnet",
        "bulb",
        "remote",
        "phone",
        "key",
    ];
    let col = item_colour(name, look, id);
    let w = lw(r);
    let p = |fx: f32, fy: f32| r.at(fx, fy);
    let sub = |fx, fy, fw, fh| r.sub(fx, fy, fw, fh);
    match kind_word(name, look, &KINDS).unwrap_or("") {
        "key" => {
            let (bx, by) = p(0.26, 0.5);
            inked_circle(c, (bx, by), r.w * 0.2, col, w);
            inked_circle(c, (bx, by), r.w * 0.08, Rgb(250, 250, 250), w);
            for t in [
                sub(0.44, 0.45, 0.5, 0.1),
                sub(0.72, 0.53, 0.07, 0.16),
                sub(0.84, 0.53, 0.07, 0.2),
            ] {
                outline_rect(c, t, col, w);
            }
            c.fill_rect(
                r.x + r.w * 0.44,
                r.y + r.h * 0.46,
                r.w * 0.49,
                r.h * 0.08,
                col,
            );
        }
        "card" | "badge" | "pass" => {
            let card = sub(0.06, 0.22, 0.88, 0.56);
            inked_rounded(c, card, card.h * 0.1, col, w);
            c.fill_rect(
                card.x,
                card.y + card.h * 0.15,
                card.w,
                card.h * 0.18,
                Rgb(40, 40, 44),
            );
            outline_rect(c, card.sub(0.1, 0.5, 0.2, 0.28), GOLD, w * 0.6);
        }
        "coin" | "token" => {
            let (x, y) = p(0.5, 0.5);
            inked_circle(c, (x, y), r.w * 0.4, col, w);
            c.stroke_circle(x, y, r.w * 0.3, col.mix(INK, 90), w);
        }
        "gear" | "cog" => {
            let (x, y) = p(0.5, 0.5);
            let pts = shapes::star(x, y, r.w * 0.44, r.w * 0.33, 10);
            outline_poly(c, &pts, col, w);
            inked_circle(c, (x, y), r.w * 0.12, Rgb(250, 250, 250), w);
        }
        "hammer" => {
            outline_rect(c, sub(0.44, 0.3, 0.12, 0.66), WOOD, w);
            outline_rect(c, sub(0.16, 0.1, 0.68, 0.22), col, w);
        }
        "wrench" | "spanner" => {
            let (x0, y0) = p(0.25, 0.8);
            let (x1, y1) = p(0.7, 0.32);
            rimmed_line(c, &[(x0, y0), (x1, y1)], col, r.w * 0.16, r.w * 0.11);
            inked_circle(c, (x1, y1), r.w * 0.17, col, w);
            c.fill_rect(
                x1 - r.w * 0.02,
                y1 - r.w * 0.2,
                r.w * 0.24,
                r.w * 0.14,
                Rgb(250, 250, 250),
            );
        }
        "screwdriver" => {
            outline_rect(c, sub(0.04, 0.4, 0.36, 0.2), col, w);
            outline_rect(c, sub(0.4, 0.47, 0.48, 0.06), STEEL_LIGHT, w * 0.6);
            outline_poly(
                c,
                &[p(0.88, 0.45), p(0.96, 0.5), p(0.88, 0.55)],
                STEEL_LIGHT,
                w * 0.6,
            );
        }
        "crowbar" => {
            let bar = [p(0.2, 0.9), p(0.72, 0.2), p(0.88, 0.3)];
            rimmed_line(c, &bar, col, r.w * 0.12, r.w * 0.08);
        }
        "flashlight" | "torch" => {
            let body = sub(0.1, 0.4, 0.5, 0.2);
            inked_rounded(c, body, body.h * 0.3, col, w);
            outline_poly(
                c,
                &[p(0.6, 0.38), p(0.82, 0.28), p(0.82, 0.72), p(0.6, 0.62)],
                STEEL_LIGHT,
                w,
            );
            c.fill_ellipse(
                r.x + r.w * 0.82,
                r.cy(),
                r.w * 0.04,
                r.h * 0.22,
                Rgb(255, 240, 150),
            );
        }
        "battery" => {
            outline_rect(c, sub(0.3, 0.2, 0.4, 0.72), col, w);
            outline_rect(c, sub(0.42, 0.12, 0.16, 0.08), STEEL_LIGHT, w);
            outline_rect(c, sub(0.3, 0.2, 0.4, 0.2), Rgb(40, 40, 44), w);
            let (x, y) = p(0.5, 0.3);
            c.line(x - r.w * 0.06, y, x + r.w * 0.06, y, Rgb(250, 250, 250), w);
            c.line(x, y - r.w * 0.06, x, y + r.w * 0.06, Rgb(250, 250, 250), w);
        }
        "fuse" => {
            outline_rect(c, sub(0.25, 0.4, 0.5, 0.2), Rgb(220, 236, 244), w);
            c.line(
                r.x + r.w * 0.25,
                r.cy(),
                r.right() - r.w * 0.25,
                r.cy(),
                STEEL_DARK,
                w,
            );
            pair(c, r, [0.12, 0.74], 0.37, 0.14, 0.26, col, w);
        }
        "magnet" => {
            let pts = [
                p(0.25, 0.15),
                p(0.25, 0.6),
                p(0.35, 0.8),
                p(0.65, 0.8),
                p(0.75, 0.6),
                p(0.75, 0.15),
            ];
            rimmed_line(c, &pts, col, r.w * 0.2, r.w * 0.15);
            pair(c, r, [0.18, 0.68], 0.1, 0.14, 0.14, STEEL_LIGHT, w);
        }
        "bulb" => {
            let (x, y) = p(0.5, 0.38);
            inked_circle(c, (x, y), r.w * 0.28, Rgb(255, 236, 140), w);
            outline_rect(c, sub(0.38, 0.64, 0.24, 0.22), STEEL, w);
        }
        "remote" | "phone" => {
            let body = sub(0.3, 0.08, 0.4, 0.84);
            inked_rounded(c, body, body.w * 0.15, col, w);
            outline_rect(
                c,
                body.sub(0.15, 0.08, 0.7, 0.3),
                Rgb(200, 220, 230),
                w * 0.6,
            );
            for k in 0..6 {
                let (x, y) = (
                    body.x + body.w * (0.32 + 0.36 * (k % 2) as f32),
                    body.y + body.h * (0.5 + 0.13 * (k / 2) as f32),
                );
                c.fill_circle(x, y, body.w * 0.08, Rgb(230, 230, 230));
            }
        }
        _ => {
            // something small and useful: a tagged box
            let b = sub(0.15, 0.25, 0.7, 0.6);
            inked_rounded(c, b, b.w * 0.08, col, w);
            c.line(b.cx(), b.y, b.cx(), b.bottom(), col.mix(INK, 100), w);
            c.line(b.x, b.cy(), b.right(), b.cy(), col.mix(INK, 100), w);
        }
    }
}

/// `n` lines of writing, evenly spaced down `r` from its top edge.
fn ruled(c: &mut Canvas, r: R, n: usize, width: f32) {
    for k in 0..n {
        let y = r.y + r.h * k as f32 / n as f32;
        c.line(r.x, y, r.right(), y, Rgb(120, 120, 140), width);
    }
}

/// A note drawn as a card (wider than tall) rather than a sheet.
fn is_card(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.contains("postcard") || n.contains("card")
}

/// Decoration: plants, vases, books, lamps, toys and the like, shaped after the name.
pub(super) fn decor_icon(c: &mut Canvas, name: &str, look: &str, id: &str, r: R) {
    const KINDS: [&str; 22] = [
        "teddy", "bear", "toy car", "glove", "shell", "spoon", "tape", "plant", "flower", "vase",
        "book", "lamp", "candle", "mug", "cup", "globe", "bottle", "photo", "picture", "painting",
        "trophy", "car",
    ];
    let col = item_colour(name, look, id);
    let w = lw(r);
    let p = |fx: f32, fy: f32| r.at(fx, fy);
    let sub = |fx, fy, fw, fh| r.sub(fx, fy, fw, fh);
    match kind_word(name, look, &KINDS).unwrap_or("") {
        "teddy" | "bear" => {
            let fur = Rgb(160, 112, 70);
            for (fx, fy, rad) in [(0.3, 0.16, 0.09), (0.7, 0.16, 0.09)] {
                inked_circle(c, p(fx, fy), r.w * rad, fur, w);
            }
            inked_ellipse(c, p(0.5, 0.66), r.w * 0.26, r.h * 0.28, fur, w);
            let (hx, hy) = p(0.5, 0.3);
            inked_circle(c, (hx, hy), r.w * 0.2, fur, w);
            c.fill_ellipse(
                hx,
                hy + r.h * 0.06,
                r.w * 0.08,
                r.h * 0.06,
                Rgb(220, 190, 150),
            );
            for fx in [0.43, 0.57] {
                let (ex, ey) = p(fx, 0.27);
                c.fill_circle(ex, ey, r.w * 0.025, INK);
            }
        }
        "toy car" | "car" => {
            let body = sub(0.08, 0.45, 0.84, 0.25);
            inked_rounded(c, body, body.h * 0.3, col, w);
            outline_poly(
                c,
                &[p(0.28, 0.45), p(0.36, 0.28), p(0.64, 0.28), p(0.74, 0.45)],
                Rgb(190, 220, 236),
                w,
            );
            for fx in [0.28, 0.72] {
                let (x, y) = p(fx, 0.72);
                c.fill_circle(x, y, r.w * 0.09, Rgb(40, 40, 44));
                c.fill_circle(x, y, r.w * 0.035, STEEL_LIGHT);
            }
        }
        "glove" => {
            for (dx, shade) in [(0.0, 0u8), (0.16, 60)] {
                let g = col.mix(Rgb(40, 40, 40), shade);
                let palm = sub(0.2 + dx, 0.35, 0.4, 0.45);
                inked_rounded(c, palm, palm.w * 0.3, g, w);
                for k in 0..4 {
                    let f = sub(0.22 + dx + 0.09 * k as f32, 0.16, 0.08, 0.24);
                    inked_rounded(c, f, f.w * 0.5, g, w * 0.6);
                }
            }
        }
        "shell" => {
            let (x, y) = p(0.5, 0.78);
            let fan: Vec<(f32, f32)> = (0..=8)
                .map(|k| {
                    let t = -0.25 + 0.5 * k as f32 / 8.0;
                    escapade_render::shapes::on_circle(x, y, r.w * 0.42, t)
                })
                .chain([(x, y)])
                .collect();
            outline_poly(c, &fan, col, w);
            for k in 1..8 {
                let t = -0.25 + 0.5 * k as f32 / 8.0;
                let (ex, ey) = escapade_render::shapes::on_circle(x, y, r.w * 0.4, t);
                c.line(x, y, ex, ey, col.mix(INK, 90), w * 0.6);
            }
        }
        "spoon" => {
            c.line(
                r.x + r.w * 0.3,
                r.y + r.h * 0.85,
                r.x + r.w * 0.6,
                r.y + r.h * 0.35,
                col,
                r.w * 0.07,
            );
            inked_ellipse(c, p(0.68, 0.24), r.w * 0.12, r.h * 0.16, col, w);
        }
        "tape" => {
            let case = sub(0.15, 0.25, 0.55, 0.55);
            inked_rounded(c, case, case.w * 0.2, col, w);
            c.fill_circle(case.cx(), case.cy(), case.w * 0.18, STEEL_LIGHT);
            let tape = sub(0.68, 0.66, 0.26, 0.1);
            outline_rect(c, tape, Rgb(250, 214, 60), w * 0.6);
        }
        "plant" | "flower" => {
            for (fx, fy, a) in [
                (0.35, 0.35, 0.12),
                (0.65, 0.35, 0.12),
                (0.5, 0.22, 0.13),
                (0.42, 0.5, 0.1),
                (0.58, 0.5, 0.1),
            ] {
                inked_ellipse(
                    c,
                    p(fx, fy),
                    r.w * a,
                    r.w * a * 0.7,
                    Rgb(60, 150, 70),
                    w * 0.6,
                );
            }
            outline_poly(
                c,
                &[p(0.3, 0.6), p(0.7, 0.6), p(0.64, 0.95), p(0.36, 0.95)],
                Rgb(196, 100, 60),
                w,
            );
        }
        "book" => {
            for (k, shade) in [0u8, 60, 120].iter().enumerate() {
                let b = sub(
                    0.2 + 0.2 * k as f32,
                    0.15 + 0.05 * k as f32,
                    0.18,
                    0.8 - 0.05 * k as f32,
                );
                outline_rect(c, b, col.mix(Rgb(60, 60, 60), *shade), w);
                c.line(
                    b.x + b.w * 0.2,
                    b.y + b.h * 0.15,
                    b.right() - b.w * 0.2,
                    b.y + b.h * 0.15,
                    GOLD,
                    w,
                );
            }
        }
        "lamp" => {
            outline_poly(
                c,
                &[p(0.3, 0.1), p(0.7, 0.1), p(0.82, 0.45), p(0.18, 0.45)],
                col,
                w,
            );
            outline_rect(c, sub(0.46, 0.45, 0.08, 0.42), STEEL_DARK, w);
            outline_rect(c, sub(0.28, 0.86, 0.44, 0.08), STEEL_DARK, w);
        }
        "candle" => {
            outline_rect(c, sub(0.38, 0.35, 0.24, 0.6), col, w);
            let (x, y) = p(0.5, 0.24);
            c.fill_ellipse(x, y, r.w * 0.06, r.h * 0.1, Rgb(255, 170, 30));
            c.line(x, y + r.h * 0.04, x, r.y + r.h * 0.35, INK, w);
        }
        "mug" | "cup" => {
            // the handle: a ring of the mug's colour with an ink rim
            let (hx, hy) = (r.x + r.w * 0.72, r.cy() + r.h * 0.05);
            c.stroke_ellipse(hx, hy, r.w * 0.14, r.h * 0.16, INK, r.w * 0.07);
            c.stroke_ellipse(hx, hy, r.w * 0.14, r.h * 0.16, col, r.w * 0.04);
            outline_rect(c, sub(0.2, 0.28, 0.5, 0.6), col, w);
        }
        "globe" => {
            let (x, y) = p(0.5, 0.42);
            c.fill_circle(x, y, r.w * 0.32, Rgb(90, 150, 220));
            c.fill_ellipse(
                x - r.w * 0.08,
                y - r.h * 0.05,
                r.w * 0.12,
                r.h * 0.16,
                Rgb(80, 170, 90),
            );
            c.stroke_circle(x, y, r.w * 0.32, INK, w);
            c.stroke_ellipse(x, y, r.w * 0.12, r.w * 0.32, INK, w * 0.5);
            outline_rect(c, sub(0.47, 0.74, 0.06, 0.12), WOOD_DARK, w);
            outline_rect(c, sub(0.3, 0.86, 0.4, 0.08), WOOD_DARK, w);
        }
        "bottle" => {
            let b = sub(0.32, 0.4, 0.36, 0.55);
            inked_rounded(c, b, b.w * 0.2, col, w);
            outline_rect(c, sub(0.43, 0.1, 0.14, 0.32), col, w);
        }
        "photo" | "picture" | "painting" => {
            let f = sub(0.1, 0.15, 0.8, 0.7);
            outline_rect(c, f, Rgb(176, 130, 50), w);
            let inner = f.sub(0.12, 0.14, 0.76, 0.72);
            outline_rect(c, inner, Rgb(168, 208, 236), w * 0.5);
            c.fill_rect(
                inner.x,
                inner.y + inner.h * 0.6,
                inner.w,
                inner.h * 0.4,
                col,
            );
        }
        "trophy" => {
            outline_poly(
                c,
                &[p(0.25, 0.12), p(0.75, 0.12), p(0.66, 0.5), p(0.34, 0.5)],
                GOLD,
                w,
            );
            outline_rect(c, sub(0.45, 0.5, 0.1, 0.25), GOLD, w);
            outline_rect(c, sub(0.3, 0.75, 0.4, 0.15), WOOD_DARK, w);
        }
        _ => {
            // a vase
            inked_ellipse(c, p(0.5, 0.6), r.w * 0.28, r.h * 0.32, col, w);
            outline_rect(c, sub(0.4, 0.1, 0.2, 0.2), col, w);
        }
    }
}

/// A note close-up: a sheet of paper (or a card) with its text.
pub(super) fn draw_note(c: &mut Canvas, name: &str, text: &str, r: R) {
    let r = if is_card(name) {
        // landscape, as wide as the close-up allows
        let w = (r.w * 1.4).min(580.0);
        let h = w / 1.5;
        R::new(r.cx() - w / 2.0, r.cy() - h / 2.0, w, h)
    } else {
        r
    };
    c.fill_rect(r.x + 6.0, r.y + 6.0, r.w, r.h, Rgb(40, 38, 40));
    outline_rect(c, r, PAPER, 2.0);
    let margin = 34.0;
    c.line(
        r.x + margin - 8.0,
        r.y,
        r.x + margin - 8.0,
        r.bottom(),
        Rgb(230, 150, 150),
        1.5,
    );
    let size = 20.0;
    let step = (size * 1.25f32).ceil();
    let lines = Canvas::wrap(size, r.w - margin - 20.0, text);
    let fit = ((r.h - 40.0) / step) as usize;
    for (k, line) in lines.iter().take(fit.max(1)).enumerate() {
        let y = r.y + 24.0 + k as f32 * step;
        c.line(
            r.x + 10.0,
            y + step - 2.0,
            r.right() - 10.0,
            y + step - 2.0,
            Rgb(200, 212, 232),
            1.0,
        );
        c.text(r.x + margin, y, size, Rgb(30, 40, 90), line);
    }
}
