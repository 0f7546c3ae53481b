//! Visual quizzes (App. D.4, Fig. 16): a clue drawn from its [`QuizSpec`] so the answer
//! can be read off by looking, and a lock that shows what the code is made of (a window
//! per character, coloured bands where colours say which number goes where, lettered
//! symbol buttons, an arrow pad) but never the code. A clue is drawn as the thing its
//! name says ([`ClueForm`]: cans, blocks, a stone tablet, a pocket watch…); a lock is a
//! lock, with nothing written on it unless `labels=on` adds its captions.

use escapade_render::{Canvas, Rgb, shapes};

use super::paint::*;
use crate::room::{CodeKind, Colour, Item, Quiz, QuizSpec, Symbol};

/// What a clue is drawn as, read from its name (and what its quiz shows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClueForm {
    /// A paper card (the default).
    Card,
    /// Coloured cans standing together (colour counts).
    Cans,
    /// Coloured toy blocks (colour counts).
    Blocks,
    /// Coloured marbles (colour counts).
    Marbles,
    /// A panel of tiles (polygons).
    Tiles,
    /// A grey stone tablet with carved symbols.
    Tablet,
    /// A wooden sign (arrows).
    Sign,
    /// A wall clock.
    Clock,
    /// A pocket watch.
    Watch,
}

/// The form of clue `item` for `spec` (see [`ClueForm`]).
pub(crate) fn clue_form(item: &Item, spec: &QuizSpec) -> ClueForm {
    let name = item.name.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| name.contains(w));
    // a poster, card or drawing of cans is flat paper that shows cans
    let flat = has(&[
        "poster", "card", "drawing", "strip", "sheet", "photo", "paper", "picture",
    ]);
    match spec {
        QuizSpec::ColourCount { .. } if flat => ClueForm::Card,
        QuizSpec::ColourCount { .. } if has(&["can"]) => ClueForm::Cans,
        QuizSpec::ColourCount { .. } if has(&["block", "cube"]) => ClueForm::Blocks,
        QuizSpec::ColourCount { .. } if has(&["marble", "ball", "bead"]) => ClueForm::Marbles,
        QuizSpec::PolygonSides { .. } if has(&["tile"]) => ClueForm::Tiles,
        QuizSpec::SymbolOrder { .. } if has(&["tablet", "stone"]) => ClueForm::Tablet,
        QuizSpec::Arrows { .. } if has(&["sign"]) => ClueForm::Sign,
        QuizSpec::Clock { .. } if has(&["watch"]) => ClueForm::Watch,
        QuizSpec::Clock { .. } => ClueForm::Clock,
        _ => ClueForm::Card,
    }
}

/// The things a colour-count clue `item` shows (`can`, `block`, `marble`), read from its
/// name; `None` for coloured symbols.
pub(crate) fn object_noun(item: &Item, spec: &QuizSpec) -> Option<&'static str> {
    if !matches!(spec, QuizSpec::ColourCount { .. }) {
        return None;
    }
    let name = item.name.to_ascii_lowercase();
    [
        ("can", "can"),
        ("block", "block"),
        ("cube", "block"),
        ("marble", "marble"),
        ("ball", "marble"),
        ("bead", "marble"),
    ]
    .iter()
    .find(|(word, _)| name.contains(word))
    .map(|(_, noun)| *noun)
}

/// Whether a clue of `form` is things standing on shelf boards.
pub(crate) fn on_shelves(form: ClueForm) -> bool {
    matches!(form, ClueForm::Cans | ClueForm::Blocks | ClueForm::Marbles)
}

/// One colour-count object (a `noun`, or else the symbol `sym`) in `colour`, centred at
/// `(cx, cy)` within radius `rad`.
fn draw_object(
    c: &mut Canvas,
    noun: Option<&str>,
    sym: Symbol,
    cx: f32,
    cy: f32,
    rad: f32,
    colour: Rgb,
) {
    let w = (rad / 12.0).clamp(1.0, 3.0);
    match noun {
        Some("can") => {
            let body = R::new(cx - rad * 0.6, cy - rad * 0.8, rad * 1.2, rad * 1.7);
            c.fill_rect(body.x, body.y, body.w, body.h, colour);
            c.fill_rect(
                body.x,
                body.y + body.h * 0.3,
                body.w,
                body.h * 0.3,
                colour.mix(Rgb::WHITE, 110),
            );
            c.stroke_rect(body.x, body.y, body.w, body.h, INK, w);
            c.fill_ellipse(body.cx(), body.y, body.w / 2.0, rad * 0.22, STEEL_LIGHT);
            c.stroke_ellipse(body.cx(), body.y, body.w / 2.0, rad * 0.22, INK, w);
        }
        Some("block") => {
            let s = rad * 1.3;
            let front = R::new(cx - s / 2.0, cy - s / 2.0 + rad * 0.15, s, s);
            let top = [
                (front.x, front.y),
                (front.x + s * 0.25, front.y - s * 0.25),
                (front.right() + s * 0.25, front.y - s * 0.25),
                (front.right(), front.y),
            ];
            outline_poly(c, &top, colour.mix(Rgb::WHITE, 90), w);
            let side = [
                (front.right(), front.y),
                (front.right() + s * 0.25, front.y - s * 0.25),
                (front.right() + s * 0.25, front.bottom() - s * 0.25),
                (front.right(), front.bottom()),
            ];
            outline_poly(c, &side, colour.mix(INK, 70), w);
            outline_rect(c, front, colour, w);
        }
        Some("marble") => {
            c.fill_circle(cx, cy, rad * 0.8, colour);
            c.stroke_circle(cx, cy, rad * 0.8, INK, w);
            c.fill_circle(
                cx - rad * 0.28,
                cy - rad * 0.28,
                rad * 0.2,
                colour.mix(Rgb::WHITE, 170),
            );
        }
        _ => draw_symbol(c, sym, cx, cy, rad, colour),
    }
}

/// A quiz symbol centred at `(cx, cy)` within radius `r`.
pub(super) fn draw_symbol(c: &mut Canvas, sym: Symbol, cx: f32, cy: f32, r: f32, fill: Rgb) {
    let w = (r / 12.0).clamp(1.0, 3.0);
    match sym {
        Symbol::Star => outline_poly(c, &shapes::star(cx, cy + r * 0.08, r, r * 0.42, 5), fill, w),
        Symbol::Circle => {
            c.fill_circle(cx, cy, r * 0.82, fill);
            c.stroke_circle(cx, cy, r * 0.82, INK, w);
        }
        Symbol::Triangle => outline_poly(
            c,
            &shapes::regular_polygon(cx, cy + r * 0.18, r, 3, 0.0),
            fill,
            w,
        ),
        Symbol::Square => outline_poly(
            c,
            &shapes::regular_polygon(cx, cy, r * 1.0, 4, 0.125),
            fill,
            w,
        ),
        Symbol::Diamond => outline_poly(
            c,
            &[
                (cx, cy - r),
                (cx + r * 0.68, cy),
                (cx, cy + r),
                (cx - r * 0.68, cy),
            ],
            fill,
            w,
        ),
        Symbol::Moon => outline_poly(c, &shapes::crescent(cx - r * 0.1, cy, r * 0.9), fill, w),
        Symbol::Cross => {
            let a = r * 0.3;
            let b = r * 0.9;
            let pts = [
                (cx - a, cy - b),
                (cx + a, cy - b),
                (cx + a, cy - a),
                (cx + b, cy - a),
                (cx + b, cy + a),
                (cx + a, cy + a),
                (cx + a, cy + b),
                (cx - a, cy + b),
                (cx - a, cy + a),
                (cx - b, cy + a),
                (cx - b, cy - a),
                (cx - a, cy - a),
            ];
            outline_poly(c, &pts, fill, w);
        }
        Symbol::Hexagon => outline_poly(
            c,
            &shapes::regular_polygon(cx, cy, r * 0.92, 6, 0.0),
            fill,
            w,
        ),
    }
}

/// A clue drawn in `r`, as the thing its name says ([`clue_form`]). `full` is the
/// close-up; otherwise a thumbnail.
pub(super) fn draw_clue(c: &mut Canvas, quiz: &Quiz, item: &Item, r: R, full: bool) {
    let w = lw(r);
    let form = clue_form(item, &quiz.spec);
    if let QuizSpec::Clock { hour, minute } = quiz.spec {
        let face = r.square().inset(if full { 6.0 } else { 1.0 });
        if form == ClueForm::Watch {
            draw_watch(c, hour, minute, face, full);
        } else {
            draw_clock(c, hour, minute, face, full);
        }
        return;
    }
    let card = if full {
        r
    } else {
        r.sub(0.04, 0.12, 0.92, 0.76)
    };
    let objects_form = on_shelves(form);
    let noun = object_noun(item, &quiz.spec);
    if full && !objects_form {
        c.fill_rect(card.x + 6.0, card.y + 6.0, card.w, card.h, Rgb(40, 38, 40));
    }
    let ink = match form {
        ClueForm::Tablet => {
            let stone = Rgb(150, 150, 146);
            c.fill_rounded_rect(card.x, card.y, card.w, card.h, card.h * 0.08, stone);
            c.stroke_rounded_rect(card.x, card.y, card.w, card.h, card.h * 0.08, INK, w);
            for (fx, fy) in [(0.1, 0.2), (0.85, 0.7), (0.6, 0.15)] {
                c.line(
                    card.x + card.w * fx,
                    card.y + card.h * fy,
                    card.x + card.w * (fx + 0.05),
                    card.y + card.h * (fy + 0.08),
                    stone.mix(INK, 60),
                    w * 0.6,
                );
            }
            Rgb(70, 70, 68)
        }
        ClueForm::Sign => {
            outline_rect(c, card, WOOD_LIGHT, w * 1.5);
            for (fx, fy) in [(0.04, 0.08), (0.96, 0.08), (0.04, 0.92), (0.96, 0.92)] {
                c.fill_circle(
                    card.x + card.w * fx,
                    card.y + card.h * fy,
                    (card.h * 0.025).max(1.0),
                    INK,
                );
            }
            Rgb(170, 30, 30)
        }
        ClueForm::Tiles => {
            outline_rect(c, card, Rgb(236, 240, 238), w);
            let n = 6;
            for k in 1..n {
                let x = card.x + card.w * k as f32 / n as f32;
                let y = card.y + card.h * k as f32 / n as f32;
                c.line(x, card.y, x, card.bottom(), Rgb(196, 204, 200), w * 0.6);
                c.line(card.x, y, card.right(), y, Rgb(196, 204, 200), w * 0.6);
            }
            INK
        }
        // standing on shelf boards, drawn with them below
        ClueForm::Cans | ClueForm::Blocks | ClueForm::Marbles => INK,
        _ => {
            outline_rect(c, card, PAPER, w);
            INK
        }
    };
    let inner = card.inset(card.w.min(card.h) * 0.06);
    match &quiz.spec {
        QuizSpec::ColourCount { objects, .. } => {
            let n = objects.len();
            if n == 0 {
                return;
            }
            // a grid with spare cells, objects in seeded cells with a little jitter: never
            // overlapping (radius + jitter < half a cell), always the same for this item
            let aspect = inner.w / inner.h;
            let mut cols = ((n as f32 * aspect).sqrt()).ceil().max(1.0) as usize;
            let mut rows = n.div_ceil(cols);
            if cols * rows < n + n / 4 + 1 {
                if (inner.w / (cols + 1) as f32) > (inner.h / (rows + 1) as f32) {
                    cols += 1;
                } else {
                    rows += 1;
                }
            }
            let (cw, ch) = (inner.w / cols as f32, inner.h / rows as f32);
            let mut cells: Vec<usize> = (0..cols * rows).collect();
            let mut rng = Rng(fnv1a(&item.id));
            for k in (1..cells.len()).rev() {
                cells.swap(k, rng.below(k + 1));
            }
            let rad = cw.min(ch) * 0.33;
            if objects_form {
                // things stand in rows, each on a board (the rows a seeded shuffle leaves)
                for row in 0..rows {
                    let y = inner.y + (row + 1) as f32 * ch - ch * 0.06;
                    let board = R::new(inner.x - inner.w * 0.03, y, inner.w * 1.06, ch * 0.07);
                    outline_rect(c, board, WOOD_LIGHT, w * 0.8);
                }
            }
            for (k, (sym, colour)) in objects.iter().enumerate() {
                let cell = cells[k];
                let cx = inner.x
                    + ((cell % cols) as f32 + 0.5) * cw
                    + rng.signed() * (cw / 2.0 - rad) * 0.8;
                let jitter = rng.signed();
                let cy = if objects_form {
                    inner.y + ((cell / cols) + 1) as f32 * ch - ch * 0.06 - rad * 0.92
                } else {
                    inner.y + ((cell / cols) as f32 + 0.5) * ch + jitter * (ch / 2.0 - rad) * 0.8
                };
                draw_object(c, noun, *sym, cx, cy, rad, rgb(*colour));
            }
        }
        QuizSpec::PolygonSides { polygons, .. } => {
            let n = polygons.len().max(1);
            let cols = if n > 4 { n.div_ceil(2) } else { n };
            let rows = n.div_ceil(cols);
            let (cw, ch) = (inner.w / cols as f32, inner.h / rows as f32);
            let rad = cw.min(ch) * 0.4;
            for (k, (sides, colour)) in polygons.iter().enumerate() {
                let cx = inner.x + ((k % cols) as f32 + 0.5) * cw;
                let cy = inner.y + ((k / cols) as f32 + 0.5) * ch;
                let fill = rgb(*colour);
                let width = (rad / 14.0).clamp(1.0, 3.5);
                if *sides >= 3 {
                    let turn = if sides % 2 == 0 {
                        0.5 / *sides as f32
                    } else {
                        0.0
                    };
                    let dy = if sides % 2 == 1 { rad * 0.12 } else { 0.0 };
                    let pts = shapes::regular_polygon(cx, cy + dy, rad, *sides, turn);
                    outline_poly(c, &pts, fill, width);
                    // dots on the corners make the sides easy to count
                    for (x, y) in pts {
                        c.fill_circle(x, y, width * 1.2, INK);
                    }
                } else {
                    c.fill_circle(cx, cy, rad * 0.9, fill);
                    c.stroke_circle(cx, cy, rad * 0.9, INK, width);
                }
            }
        }
        QuizSpec::SymbolOrder { sequence, .. } => {
            let n = sequence.len().max(1);
            let cols = if n > 6 { n.div_ceil(2) } else { n };
            let rows = n.div_ceil(cols);
            let band = inner.sub(0.0, 0.0, 1.0, 0.86);
            let (cw, ch) = (band.w / cols as f32, band.h / rows as f32);
            let side = cw.min(ch) * 0.84;
            let carved = form == ClueForm::Tablet;
            for (k, sym) in sequence.iter().enumerate() {
                let cx = band.x + ((k % cols) as f32 + 0.5) * cw;
                let cy = band.y + ((k / cols) as f32 + 0.5) * ch;
                if !carved {
                    let tile = R::new(cx - side / 2.0, cy - side / 2.0, side, side);
                    c.fill_rounded_rect(
                        tile.x,
                        tile.y,
                        tile.w,
                        tile.h,
                        side * 0.1,
                        Rgb(236, 230, 214),
                    );
                    c.stroke_rounded_rect(tile.x, tile.y, tile.w, tile.h, side * 0.1, INK, w * 0.7);
                }
                let fill = if carved { ink } else { Rgb(30, 50, 110) };
                draw_symbol(c, *sym, cx, cy, side * 0.36, fill);
            }
            // reading direction
            let y = inner.y + inner.h * 0.93;
            c.arrow(
                inner.x + inner.w * 0.2,
                y,
                inner.right() - inner.w * 0.2,
                y,
                ink,
                w * 1.2,
                (inner.h * 0.07).max(3.0),
            );
        }
        QuizSpec::Arrows { arrows } => {
            let n = arrows.len().max(1);
            let cols = if n > 6 { n.div_ceil(2) } else { n };
            let rows = n.div_ceil(cols);
            let (cw, ch) = (inner.w / cols as f32, inner.h / rows as f32);
            let half = cw.min(ch) * 0.36;
            for (k, dir) in arrows.iter().enumerate() {
                let cx = inner.x + ((k % cols) as f32 + 0.5) * cw;
                let cy = inner.y + ((k / cols) as f32 + 0.5) * ch;
                direction_arrow(c, *dir, cx, cy, half, Rgb(170, 30, 30));
            }
        }
        // an imported clue is a picture of its own; drawn, it is a blank card
        QuizSpec::Clock { .. } | QuizSpec::Pictured { .. } => {}
    }
}

/// A pocket watch in `r`: a silver case with its crown and bow on top, and a clock face
/// like [`draw_clock`]'s.
pub(super) fn draw_watch(c: &mut Canvas, hour: u32, minute: u32, r: R, full: bool) {
    let rad = r.w / 2.0;
    let w = lw(r);
    let face = R::new(
        r.cx() - rad * 0.82,
        r.cy() - rad * 0.7,
        rad * 1.64,
        rad * 1.64,
    );
    // the bow (a ring) and the crown above the case
    c.stroke_circle(
        face.cx(),
        face.y - rad * 0.2,
        rad * 0.13,
        STEEL_LIGHT,
        (rad * 0.05).max(1.0),
    );
    let crown = R::new(
        face.cx() - rad * 0.07,
        face.y - rad * 0.1,
        rad * 0.14,
        rad * 0.12,
    );
    outline_rect(c, crown, STEEL_LIGHT, w * 0.5);
    draw_clock_in(c, hour, minute, face, full, STEEL_LIGHT);
}
/// An arrow for a direction letter (`U`, `D`, `L`, `R`) centred at `(cx, cy)`.
pub(super) fn direction_arrow(c: &mut Canvas, dir: char, cx: f32, cy: f32, half: f32, color: Rgb) {
    let (dx, dy) = match dir.to_ascii_uppercase() {
        'U' => (0.0, -1.0),
        'D' => (0.0, 1.0),
        'L' => (-1.0, 0.0),
        'R' => (1.0, 0.0),
        _ => {
            c.fill_circle(cx, cy, half * 0.3, color);
            return;
        }
    };
    c.arrow(
        cx - dx * half,
        cy - dy * half,
        cx + dx * half,
        cy + dy * half,
        color,
        (half * 0.32).max(1.5),
        half * 0.9,
    );
}

/// An analogue clock with numbers 1–12, a short thick hour hand and a long thin minute
/// hand, in a wooden case.
pub(super) fn draw_clock(c: &mut Canvas, hour: u32, minute: u32, r: R, full: bool) {
    draw_clock_in(c, hour, minute, r, full, WOOD_DARK);
}

/// [`draw_clock`] with a case of colour `case`.
fn draw_clock_in(c: &mut Canvas, hour: u32, minute: u32, r: R, full: bool, case: Rgb) {
    let (cx, cy) = (r.cx(), r.cy());
    let rad = r.w / 2.0;
    c.fill_circle(cx, cy, rad, case);
    c.stroke_circle(cx, cy, rad, INK, lw(r));
    let face = rad * 0.9;
    c.fill_circle(cx, cy, face, Rgb(252, 250, 242));
    c.stroke_circle(cx, cy, face, INK, lw(r) * 0.6);
    for k in 0..60 {
        let long = k % 5 == 0;
        let (x0, y0) = shapes::on_circle(
            cx,
            cy,
            face * if long { 0.86 } else { 0.92 },
            k as f32 / 60.0,
        );
        let (x1, y1) = shapes::on_circle(cx, cy, face * 0.97, k as f32 / 60.0);
        c.line(
            x0,
            y0,
            x1,
            y1,
            INK,
            if long {
                (face / 60.0).max(1.0)
            } else {
                (face / 150.0).max(0.6)
            },
        );
    }
    let minute = minute % 60;
    let hour_turn = ((hour % 12) as f32 + minute as f32 / 60.0) / 12.0;
    let minute_turn = minute as f32 / 60.0;
    let (hx, hy) = shapes::on_circle(cx, cy, face * 0.5, hour_turn);
    let (mx, my) = shapes::on_circle(cx, cy, face * 0.92, minute_turn);
    c.arrow(
        cx,
        cy,
        mx,
        my,
        Rgb(30, 60, 150),
        (face * 0.035).max(1.0),
        face * 0.13,
    );
    c.arrow(cx, cy, hx, hy, INK, (face * 0.08).max(1.5), face * 0.14);
    c.fill_circle(cx, cy, face * 0.06, INK);
    // numbers over the hands, on small discs of the face colour, so a hand never hides
    // one (its tip still shows past the number)
    let size = face * 0.19;
    if full || size >= 6.0 {
        for n in 1..=12u32 {
            let (x, y) = shapes::on_circle(cx, cy, face * 0.72, n as f32 / 12.0);
            c.fill_circle(x, y, size * 0.62, Rgb(252, 250, 242));
            label(c, x, y - size * 0.6, size, INK, &n.to_string());
        }
    }
}

/// How many characters the lock takes (one slot each).
pub(crate) fn slot_count(spec: &QuizSpec) -> usize {
    match spec {
        QuizSpec::ColourCount { slots, .. } | QuizSpec::PolygonSides { slots, .. } => slots.len(),
        QuizSpec::SymbolOrder { sequence, .. } => sequence.len(),
        QuizSpec::Clock { .. } => 4,
        QuizSpec::Arrows { arrows } => arrows.len(),
        QuizSpec::Pictured { slots } => *slots,
    }
}

/// The word for one character of a code kind (`digit`).
pub(crate) fn code_word(code: CodeKind) -> &'static str {
    match code {
        CodeKind::Number => "digit",
        CodeKind::Letter => "letter",
        CodeKind::Direction => "direction",
        CodeKind::Colour => "colour",
    }
}

/// The housing colour of a lock, from its look (`brass`, `black`, else grey metal).
fn housing(item: &Item) -> Rgb {
    let look = format!("{} {}", item.name, item.look).to_ascii_lowercase();
    if look.contains("brass") || look.contains("gold") {
        Rgb(206, 170, 84)
    } else if look.contains("black") {
        Rgb(64, 64, 70)
    } else {
        Rgb(178, 184, 194)
    }
}

/// A code lock in `r` (aspect about 1.45): a housing with screws, a status light (red,
/// green once solved), a window per character of the code — with a coloured band above
/// each where the quiz reads colours — and its buttons. Nothing is written on it but the
/// keys' own marks; `labels` adds the captions of `labels=on` ("CODE LOCK", "LOCKED",
/// "4-DIGIT CODE", `H H : M M`). It never shows the answer.
pub(super) fn draw_lock(
    c: &mut Canvas,
    quiz: &Quiz,
    item: &Item,
    solved: bool,
    r: R,
    labels: bool,
) {
    let w = lw(r);
    let body = housing(item);
    let u = r.h / 100.0;
    c.fill_rounded_rect(r.x, r.y, r.w, r.h, r.h * 0.06, body);
    // a bevel: the housing's edge catches the light above and falls into shade below
    let bevel = r.inset(2.5 * u);
    c.stroke_rounded_rect(
        bevel.x,
        bevel.y,
        bevel.w,
        bevel.h,
        r.h * 0.05,
        body.mix(INK, 45),
        (u * 0.8).max(0.8),
    );
    c.stroke_rounded_rect(r.x, r.y, r.w, r.h, r.h * 0.06, INK, w);
    let (light, word) = if solved {
        (GREEN_LIGHT, "OPEN")
    } else {
        (RED_LIGHT, "LOCKED")
    };
    let n = slot_count(&quiz.spec);
    let keys = if body == Rgb(64, 64, 70) {
        Rgb(200, 200, 204)
    } else {
        Rgb(245, 245, 240)
    };
    if r.w < 160.0 {
        let (lx, ly) = (r.right() - 11.0 * u, r.y + 11.0 * u);
        c.fill_circle(lx, ly, 8.0 * u, light);
        c.stroke_circle(lx, ly, 8.0 * u, INK, w * 0.6);
        // a thumbnail: the housing, its light, the windows, a grid of keys
        let strip = r.sub(0.08, 0.2, 0.72, 0.22);
        slots_row(c, &quiz.spec, strip, n, w * 0.6, false);
        for k in 0..9 {
            let key = r.sub(
                0.18 + 0.22 * (k % 3) as f32,
                0.5 + 0.15 * (k / 3) as f32,
                0.16,
                0.11,
            );
            c.fill_rect(key.x, key.y, key.w, key.h, keys);
        }
        return;
    }
    let (lx, ly) = (r.right() - 9.0 * u, r.y + 8.0 * u);
    c.fill_circle(lx, ly, 4.5 * u, light);
    c.stroke_circle(lx, ly, 4.5 * u, INK, w * 0.6);
    for (x, y) in [(0.025, 0.06), (0.025, 0.94), (0.95, 0.94)] {
        let (sx, sy) = (r.x + r.w * x, r.y + r.h * y);
        c.fill_circle(sx, sy, 1.6 * u, STEEL_DARK);
        c.line(sx - u, sy, sx + u, sy, STEEL_LIGHT, (0.4 * u).max(0.6));
    }
    if labels {
        let size = 7.0 * u;
        c.text(r.x + 6.0 * u, r.y + 4.0 * u, size, INK, "CODE LOCK");
        let wtext = Canvas::text_width(size * 0.9, word);
        c.text(
            lx - 6.5 * u - wtext,
            ly - size * 0.55,
            size * 0.9,
            if solved {
                Rgb(20, 120, 40)
            } else {
                Rgb(150, 20, 20)
            },
            word,
        );
        let kind = code_word(quiz.code).to_uppercase();
        let caption = format!("{n}-{kind} CODE");
        bold_centered(c, r.cx(), r.y + 16.0 * u, size, Rgb(40, 44, 60), &caption);
    }
    let strip = r.sub(0.08, 0.3, 0.84, 0.2);
    slots_row(c, &quiz.spec, strip, n, w, labels);
    let pad = r.sub(0.06, 0.56, 0.88, 0.4);
    match &quiz.spec {
        QuizSpec::SymbolOrder { buttons, .. } => {
            let m = buttons.len().max(1);
            let cols = if m > 6 { m.div_ceil(2) } else { m };
            let rows = m.div_ceil(cols);
            let (cw, ch) = (pad.w / cols as f32, pad.h / rows as f32);
            let side = (cw * 0.86).min(ch * 0.92);
            for (k, (sym, letter)) in buttons.iter().enumerate() {
                let cx = pad.x + ((k % cols) as f32 + 0.5) * cw;
                let cy = pad.y + ((k / cols) as f32 + 0.5) * ch;
                let b = R::new(cx - side / 2.0, cy - side / 2.0, side, side);
                c.fill_rounded_rect(b.x, b.y, b.w, b.h, side * 0.12, keys);
                c.stroke_rounded_rect(b.x, b.y, b.w, b.h, side * 0.12, INK, w);
                draw_symbol(
                    c,
                    *sym,
                    cx,
                    b.y + side * 0.36,
                    side * 0.26,
                    Rgb(30, 50, 110),
                );
                bold_centered(
                    c,
                    cx,
                    b.y + side * 0.66,
                    side * 0.28,
                    INK,
                    &letter.to_string(),
                );
            }
        }
        QuizSpec::Arrows { .. } => {
            let cell = pad.h / 3.0;
            let (cx, cy) = (pad.cx(), pad.cy());
            for (dir, dx, dy) in [
                ('U', 0.0, -1.0),
                ('D', 0.0, 1.0),
                ('L', -1.0, 0.0),
                ('R', 1.0, 0.0),
            ] {
                let b = R::new(
                    cx + dx * cell - cell * 0.45,
                    cy + dy * cell - cell * 0.45,
                    cell * 0.9,
                    cell * 0.9,
                );
                c.fill_rounded_rect(b.x, b.y, b.w, b.h, cell * 0.15, keys);
                c.stroke_rounded_rect(b.x, b.y, b.w, b.h, cell * 0.15, INK, w);
                direction_arrow(c, dir, b.cx(), b.cy(), cell * 0.3, INK);
            }
            c.fill_circle(cx, cy, cell * 0.25, STEEL_DARK);
        }
        _ => {
            // a keypad of the code's alphabet
            let keys: Vec<(String, Rgb)> = match quiz.code {
                CodeKind::Letter => ('A'..='Z').map(|l| (l.to_string(), keys)).collect(),
                CodeKind::Colour => Colour::QUIZ
                    .iter()
                    .map(|c| (c.name()[..1].to_uppercase(), rgb(*c).mix(Rgb::WHITE, 110)))
                    .collect(),
                _ => ["1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "0", "#"]
                    .iter()
                    .map(|s| (s.to_string(), keys))
                    .collect(),
            };
            let cols = if keys.len() > 12 { 9 } else { 6 };
            let rows = keys.len().div_ceil(cols);
            let (cw, ch) = (pad.w / cols as f32, pad.h / rows as f32);
            for (k, (key, fill)) in keys.iter().enumerate() {
                let b = R::new(
                    pad.x + (k % cols) as f32 * cw + cw * 0.08,
                    pad.y + (k / cols) as f32 * ch + ch * 0.08,
                    cw * 0.84,
                    ch * 0.84,
                );
                c.fill_rounded_rect(b.x, b.y, b.w, b.h, b.h * 0.15, *fill);
                c.stroke_rounded_rect(b.x, b.y, b.w, b.h, b.h * 0.15, INK, w * 0.8);
                label(c, b.cx(), b.cy() - b.h * 0.3, b.h * 0.5, INK, key);
            }
        }
    }
}

/// The row of code windows: dark and empty, each under a coloured band where the quiz
/// reads colours. `labels` adds the `H H : M M` marks of a clock's lock.
pub(super) fn slots_row(c: &mut Canvas, spec: &QuizSpec, strip: R, n: usize, w: f32, labels: bool) {
    let n = n.max(1);
    let clock = labels && matches!(spec, QuizSpec::Clock { .. });
    let colours = match spec {
        QuizSpec::ColourCount { slots, .. } | QuizSpec::PolygonSides { slots, .. } => Some(slots),
        _ => None,
    };
    // room for the colon of HH:MM
    let gaps = if clock { n as f32 + 0.6 } else { n as f32 };
    let cw = strip.w / gaps;
    let side_w = cw * 0.8;
    let side_h = strip.h.min(side_w * 1.3);
    let label_size = strip.h * 0.32;
    for k in 0..n {
        let extra = if clock && k >= 2 { 0.6 * cw } else { 0.0 };
        let cx = strip.x + (k as f32 + 0.5) * cw + extra;
        let s = R::new(cx - side_w / 2.0, strip.y, side_w, side_h);
        if let Some(col) = colours.and_then(|c| c.get(k)) {
            // a band of the slot's colour above its window (as on the paper's Fig. 16
            // locks)
            let band = R::new(s.x, s.y - side_h * 0.34, s.w, side_h * 0.28);
            c.fill_rect(band.x, band.y, band.w, band.h, rgb(*col));
            c.stroke_rect(band.x, band.y, band.w, band.h, INK, w * 0.8);
        }
        c.fill_rounded_rect(s.x, s.y, s.w, s.h, s.w * 0.12, Rgb(34, 40, 36));
        c.stroke_rounded_rect(s.x, s.y, s.w, s.h, s.w * 0.12, INK, w * 1.2);
        // an empty display: a dim bar where the character will show
        c.fill_rect(
            s.x + s.w * 0.25,
            s.bottom() - s.h * 0.22,
            s.w * 0.5,
            s.h * 0.06,
            Rgb(70, 90, 76),
        );
        if clock {
            let tag = if k < 2 { "H" } else { "M" };
            label(c, cx, s.bottom() + 1.0, label_size, Rgb(40, 44, 60), tag);
        }
    }
    if clock {
        let x = strip.x + 2.3 * cw;
        let r = (cw * 0.08).max(1.0);
        c.fill_circle(x, strip.y + side_h * 0.33, r, INK);
        c.fill_circle(x, strip.y + side_h * 0.67, r, INK);
    }
}
