//! Pictures of the solver's screen, one function per puzzle.
//!
//! Each function draws exactly what its puzzle's `describe()` says the solver sees, no
//! more (never the solution), on a 512 × 384 [`Canvas`]: a dark casing, a light module
//! panel, the puzzle's parts, and a status lamp at the top right that lights green with
//! "DISARMED" once the module is solved. The puzzles pass plain values (their fields stay
//! private to them). Drawing uses only the canvas and `escapade_render::shapes`, so the
//! same state gives the same PNG bytes on every machine.

use escapade_render::memo::Bases;
use escapade_render::shapes::{arc, crescent, on_circle, star};
use escapade_render::{Canvas, Rgb};

use crate::CommaError;

/// Picture width in pixels.
pub(crate) const WIDTH: u32 = 512;
/// Picture height in pixels.
pub(crate) const HEIGHT: u32 = 384;

const CASING: Rgb = Rgb(52, 56, 62);
const PANEL: Rgb = Rgb(196, 198, 192);
const INK: Rgb = Rgb(24, 24, 28);
const BUTTON: Rgb = Rgb(232, 228, 214);
const EDGE: Rgb = Rgb(90, 90, 90);
const SCREEN: Rgb = Rgb(22, 34, 30);
const SCREEN_TEXT: Rgb = Rgb(120, 240, 150);
const UNLIT: Rgb = Rgb(70, 72, 76);
const LIT_GREEN: Rgb = Rgb(40, 220, 80);

/// The colour a puzzle names (any case); mid grey for a name we do not know.
fn named(name: &str) -> Rgb {
    match name.to_ascii_lowercase().as_str() {
        "red" => Rgb(215, 30, 35),
        "white" => Rgb(250, 250, 250),
        "yellow" => Rgb(245, 215, 20),
        "blue" => Rgb(30, 80, 220),
        "black" => Rgb(15, 15, 15),
        "green" => Rgb(30, 170, 60),
        "purple" => Rgb(130, 50, 190),
        "orange" => Rgb(250, 135, 20),
        "magenta" => Rgb(225, 40, 200),
        _ => Rgb(128, 128, 128),
    }
}

/// What a puzzle's picture shows, as values: the one input its drawing reads, so equal
/// drawings are the same picture, byte for byte. Puzzles hand one out with
/// [`crate::Puzzle::drawing`]; the environment keys its picture cache by it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Drawing(Scene);

/// The values of each puzzle's picture (the arguments of its drawing function below).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Scene {
    Wire {
        colours: Vec<String>,
        serial: u32,
        solved: bool,
    },
    Who {
        display: String,
        labels: Vec<String>,
        solved: bool,
    },
    Led {
        stages: usize,
        now: Option<(usize, String, [char; 4])>,
    },
    Memory {
        stages: usize,
        now: Option<(usize, u8, [u8; 4])>,
    },
    Keypad {
        symbols: [&'static str; 4],
        pressed: [bool; 4],
        solved: bool,
    },
    Password {
        letters: [char; 5],
        solved: bool,
    },
    Colour {
        grid: [Option<&'static str>; 16],
        solved: bool,
    },
    Maze {
        grid: Vec<Vec<u8>>,
        spheres: Vec<((usize, usize), &'static str)>,
        mouse: (usize, usize),
        torus: &'static str,
        solved: bool,
    },
    Atm {
        heading: Vec<String>,
        options: [String; 2],
        pointer: usize,
        pin: String,
        solved: bool,
    },
    /// Telehealth's synthetic lesion.
    Lesion(Lesion),
}

/// A synthetic Telehealth lesion as its picture shows it: the findings of the case's
/// record, reduced by the puzzle to what is drawn.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Lesion {
    /// The case's number: the picture's details (pores, the outline's wobble, where the
    /// other colours and flecks sit) are drawn from it.
    pub(crate) idx: u64,
    /// The skin's colour (RGB).
    pub(crate) skin: [u8; 3],
    /// The two diameters in millimetres (`f32::to_bits`, so that a drawing is a key).
    pub(crate) diameters: [u32; 2],
    /// Colour names ([`lesion_colour`]), the main one first.
    pub(crate) colours: Vec<&'static str>,
    /// `sharp and regular`, `irregular and notched`, `vague`, `raised and rolled`, ….
    pub(crate) border: &'static str,
    /// Whether the outline is symmetric.
    pub(crate) symmetric: bool,
    /// Words for the surface (`scaly`, `crust`, `warty`, `vessels`, `sore` are drawn).
    pub(crate) surface: &'static str,
}

impl Drawing {
    pub(crate) fn new(scene: Scene) -> Drawing {
        Drawing(scene)
    }

    /// The picture as PNG bytes.
    pub fn png(&self) -> Result<Vec<u8>, CommaError> {
        match &self.0 {
            Scene::Wire {
                colours,
                serial,
                solved,
            } => wire(colours, *serial, *solved),
            Scene::Who {
                display,
                labels,
                solved,
            } => who(display, labels, *solved),
            Scene::Led { stages, now } => led(
                *stages,
                now.as_ref().map(|(s, colour, l)| (*s, colour.as_str(), *l)),
            ),
            Scene::Memory { stages, now } => memory(*stages, *now),
            Scene::Keypad {
                symbols,
                pressed,
                solved,
            } => keypad(*symbols, *pressed, *solved),
            Scene::Password { letters, solved } => password(*letters, *solved),
            Scene::Colour { grid, solved } => colour(*grid, *solved),
            Scene::Maze {
                grid,
                spheres,
                mouse,
                torus,
                solved,
            } => maze(grid, spheres, *mouse, torus, *solved),
            Scene::Atm {
                heading,
                options,
                pointer,
                pin,
                solved,
            } => atm(heading, [&options[0], &options[1]], *pointer, pin, *solved),
            Scene::Lesion(l) => lesion(l),
        }
    }
}

fn encode(mut canvas: Canvas) -> Result<Vec<u8>, CommaError> {
    canvas.png().map_err(CommaError::Render)
}

/// What a picture starts from: the parts of a puzzle's picture that do not change with its
/// state, drawn once per key and copied (a copy of the pixels is the same start as
/// drawing them again).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Base {
    /// The casing, the module panel, its title and the status lamp: every picture's start.
    Module(&'static str, bool),
    /// Who's on first: the display window and the bodies of `n` buttons.
    Who { n: usize, solved: bool },
    /// LED: the stage window, the rims of `stages` LEDs and the four button bodies.
    Led { stages: usize, solved: bool },
    /// Keypad: the four button bodies (darker when pressed) and their lamps.
    Keypad { pressed: [bool; 4], solved: bool },
    /// Password: the up and down buttons with their arrows, the letter windows, SUBMIT.
    Password { solved: bool },
    /// ATM: the card (without its PIN), the screen window and the keypad.
    Atm { solved: bool },
}

/// The canvas of `key`, drawn by `draw` the first time (at most a few dozen keys a
/// process: the titles, the LED stage counts, the keypad's 16 pressed patterns, each
/// solved or not).
///
/// A drawing that starts from a base and then adds the state's parts gives the same
/// pixels as drawing everything in the original order, because the parts added later
/// touch no pixel that a base part drawn after them in that order touches: each function
/// below says why for its parts.
fn base(
    key: Base,
    draw: impl FnOnce() -> Result<Canvas, CommaError>,
) -> Result<Canvas, CommaError> {
    static BASES: Bases<Base> = Bases::new();
    BASES.get_or_draw(key, draw)
}

/// The casing, the module panel, its title at the top left and the status lamp.
fn module(title: &'static str, solved: bool) -> Result<Canvas, CommaError> {
    base(Base::Module(title, solved), || draw_module(title, solved))
}

fn draw_module(title: &str, solved: bool) -> Result<Canvas, CommaError> {
    let mut c = Canvas::new(WIDTH, HEIGHT, CASING).map_err(CommaError::Render)?;
    c.fill_rounded_rect(8.0, 8.0, 496.0, 368.0, 14.0, PANEL);
    c.stroke_rounded_rect(8.0, 8.0, 496.0, 368.0, 14.0, EDGE, 2.0);
    c.text(22.0, 16.0, 15.0, Rgb(70, 70, 70), title);
    let (lx, ly) = (482.0, 30.0);
    c.fill_circle(lx, ly, 11.0, EDGE);
    if solved {
        c.fill_circle(lx, ly, 9.0, LIT_GREEN);
        let w = Canvas::text_width(14.0, "DISARMED");
        c.text(lx - 18.0 - w, ly - 8.0, 14.0, Rgb(20, 120, 40), "DISARMED");
    } else {
        c.fill_circle(lx, ly, 9.0, UNLIT);
    }
    Ok(c)
}

/// The largest size up to `size` at which `text` fits in `max_width`.
fn fit(text: &str, size: f32, max_width: f32) -> f32 {
    let mut s = size;
    while s > 8.0 && Canvas::text_width(s, text) > max_width {
        s -= 1.0;
    }
    s
}

/// `text` centred on `(cx, cy)` (capitals sit on the centre line).
fn label(c: &mut Canvas, cx: f32, cy: f32, size: f32, color: Rgb, text: &str) {
    c.text_centered(cx, cy - 0.58 * size, size, color, text);
}

/// A raised button with `text` on it (fitted to its width); `pressed` darkens it.
#[allow(clippy::too_many_arguments)] // the rectangle's four numbers, like the canvas's
fn button(c: &mut Canvas, x: f32, y: f32, w: f32, h: f32, text: &str, size: f32, pressed: bool) {
    button_body(c, x, y, w, h, pressed);
    button_text(c, x, y, w, h, text, size);
}

/// A button without its text: its shadow, face and edge.
fn button_body(c: &mut Canvas, x: f32, y: f32, w: f32, h: f32, pressed: bool) {
    let face = if pressed { Rgb(176, 172, 160) } else { BUTTON };
    c.fill_rounded_rect(x + 3.0, y + 4.0, w, h, 8.0, Rgb(120, 120, 116));
    c.fill_rounded_rect(x, y, w, h, 8.0, face);
    c.stroke_rounded_rect(x, y, w, h, 8.0, EDGE, 2.0);
}

/// The text of a button drawn by [`button_body`], fitted to its width.
#[allow(clippy::too_many_arguments)] // the rectangle's four numbers, like the canvas's
fn button_text(c: &mut Canvas, x: f32, y: f32, w: f32, h: f32, text: &str, size: f32) {
    if !text.is_empty() {
        let s = fit(text, size, w - 12.0);
        label(c, x + w / 2.0, y + h / 2.0, s, INK, text);
    }
}

/// A dark display window.
fn screen(c: &mut Canvas, x: f32, y: f32, w: f32, h: f32) {
    c.fill_rounded_rect(x - 4.0, y - 4.0, w + 8.0, h + 8.0, 8.0, Rgb(60, 60, 60));
    c.fill_rounded_rect(x, y, w, h, 5.0, SCREEN);
}

/// Wire: the wires top to bottom in their colours between two terminal strips, each with
/// a CUT button on its middle and no number (the original's screen: its solver counts
/// the wires itself), and the serial number.
fn wire(colours: &[String], serial: u32, solved: bool) -> Result<Vec<u8>, CommaError> {
    let mut c = module("WIRES", solved)?;
    let n = colours.len().max(1) as f32;
    let (top, bottom) = (66.0, 300.0);
    let step = (bottom - top) / n;
    let (left, right) = (92.0, 440.0);
    c.fill_rounded_rect(
        left - 26.0,
        top - 8.0,
        30.0,
        bottom - top + 16.0,
        6.0,
        Rgb(70, 70, 70),
    );
    c.fill_rounded_rect(
        right - 4.0,
        top - 8.0,
        30.0,
        bottom - top + 16.0,
        6.0,
        Rgb(70, 70, 70),
    );
    // the buttons fit between the wires however many there are
    let (bw, bh) = (56.0, (step - 12.0).min(28.0));
    for (i, colour) in colours.iter().enumerate() {
        let y = top + step * (i as f32 + 0.5);
        let fill = named(colour);
        // a gentle sag keeps the wires looking like wires; the outline keeps white and
        // black wires apart from the panel
        let points = [
            (left, y),
            (left + 80.0, y + 6.0),
            ((left + right) / 2.0, y + 9.0),
            (right - 80.0, y + 6.0),
            (right, y),
        ];
        c.stroke_polyline(&points, Rgb(30, 30, 30), 16.0);
        c.stroke_polyline(&points, fill, 11.0);
        for x in [left - 11.0, right + 11.0] {
            c.fill_circle(x, y, 8.0, Rgb(180, 180, 180));
            c.stroke_circle(x, y, 8.0, Rgb(40, 40, 40), 1.5);
        }
        let mid = (left + right) / 2.0;
        button(
            &mut c,
            mid - bw / 2.0,
            y + 9.0 - bh / 2.0,
            bw,
            bh,
            "CUT",
            14.0,
            false,
        );
    }
    c.fill_rect(300.0, 322.0, 190.0, 40.0, Rgb(250, 250, 245));
    c.stroke_rect(300.0, 322.0, 190.0, 40.0, EDGE, 1.5);
    c.text(310.0, 326.0, 11.0, Rgb(80, 80, 80), "SERIAL NO.");
    c.text(310.0, 338.0, 20.0, INK, &serial.to_string());
    encode(c)
}

/// Who's on first: the display and six labelled buttons in three rows of two.
fn who(display: &str, labels: &[String], solved: bool) -> Result<Vec<u8>, CommaError> {
    // the texts sit inside the display and their own buttons, which do not overlap
    let labels = &labels[..labels.len().min(6)];
    let at = |i: usize| {
        let (row, col) = ((i / 2) as f32, (i % 2) as f32);
        (76.0 + col * 190.0, 146.0 + row * 76.0)
    };
    let key = Base::Who {
        n: labels.len(),
        solved,
    };
    let mut c = base(key, || {
        let mut c = module("WHO'S ON FIRST", solved)?;
        screen(&mut c, 106.0, 48.0, 300.0, 70.0);
        for i in 0..labels.len() {
            let (x, y) = at(i);
            button_body(&mut c, x, y, 170.0, 58.0, false);
        }
        Ok(c)
    })?;
    if !display.is_empty() {
        let s = fit(display, 34.0, 280.0);
        label(&mut c, 256.0, 83.0, s, SCREEN_TEXT, display);
    }
    for (i, text) in labels.iter().enumerate() {
        let (x, y) = at(i);
        button_text(&mut c, x, y, 170.0, 58.0, text, 24.0);
    }
    encode(c)
}

/// LED: the stage number at the top left, one LED per stage with the current stage's lit
/// in its colour, and four lettered buttons in a 2×2 grid. `now` is `None` once solved.
fn led(stages: usize, now: Option<(usize, &str, [char; 4])>) -> Result<Vec<u8>, CommaError> {
    // the stage number sits inside its window, each LED's light inside its rim and each
    // letter on its button: none of them reaches another part (the LEDs are 56 pixels
    // apart, the buttons below them)
    let gap = 56.0;
    let x0 = 300.0 - gap * (stages as f32 - 1.0) / 2.0;
    let led_x = |i: usize| x0 + gap * i as f32;
    let at = |i: usize| {
        let (row, col) = ((i / 2) as f32, (i % 2) as f32);
        (136.0 + col * 130.0, 136.0 + row * 116.0)
    };
    let solved = now.is_none();
    let mut c = base(Base::Led { stages, solved }, || {
        let mut c = module("LED", solved)?;
        c.fill_rounded_rect(30.0, 44.0, 64.0, 64.0, 6.0, SCREEN);
        for i in 0..stages {
            c.fill_circle(led_x(i), 76.0, 19.0, EDGE);
        }
        for i in 0..4 {
            let (x, y) = at(i);
            button_body(&mut c, x, y, 110.0, 96.0, false);
        }
        Ok(c)
    })?;
    if let Some((stage, _, _)) = now {
        label(
            &mut c,
            62.0,
            76.0,
            40.0,
            SCREEN_TEXT,
            &(stage + 1).to_string(),
        );
    }
    for i in 0..stages {
        let x = led_x(i);
        match now {
            Some((stage, colour, _)) if stage == i => {
                let lit = named(colour);
                c.fill_circle(x, 76.0, 16.0, lit);
                c.fill_circle(x - 5.0, 71.0, 4.0, lit.mix(Rgb::WHITE, 150));
            }
            _ => c.fill_circle(x, 76.0, 16.0, UNLIT),
        }
    }
    let letters = now.map_or([' '; 4], |(_, _, l)| l);
    for (i, l) in letters.iter().enumerate() {
        let text = if *l == ' ' {
            String::new()
        } else {
            l.to_string()
        };
        let (x, y) = at(i);
        button_text(&mut c, x, y, 110.0, 96.0, &text, 52.0);
    }
    encode(c)
}

/// Memory: the display digit, the stage indicator and four labelled buttons left to right.
/// `now` is `(stage 1-based, display, labels)`, `None` once solved.
fn memory(stages: usize, now: Option<(usize, u8, [u8; 4])>) -> Result<Vec<u8>, CommaError> {
    let mut c = module("MEMORY", now.is_none())?;
    screen(&mut c, 100.0, 52.0, 250.0, 130.0);
    if let Some((_, display, _)) = now {
        label(
            &mut c,
            225.0,
            117.0,
            90.0,
            SCREEN_TEXT,
            &display.to_string(),
        );
    }
    // stage indicator: a column of bars, bottom to top, the current stage's lit
    c.text_centered(420.0, 44.0, 13.0, INK, "STAGE");
    for i in 0..stages {
        let y = 186.0 - i as f32 * 28.0;
        let on = now.is_some_and(|(stage, _, _)| stage == i + 1);
        c.fill_rect(396.0, y, 48.0, 20.0, EDGE);
        c.fill_rect(
            399.0,
            y + 3.0,
            42.0,
            14.0,
            if on { LIT_GREEN } else { UNLIT },
        );
        label(&mut c, 466.0, y + 10.0, 13.0, INK, &(i + 1).to_string());
    }
    let labels = now.map(|(_, _, l)| l);
    for i in 0..4 {
        let text = labels.map_or(String::new(), |l| l[i].to_string());
        button(
            &mut c,
            40.0 + i as f32 * 112.0,
            236.0,
            96.0,
            110.0,
            &text,
            56.0,
            false,
        );
    }
    encode(c)
}

/// Keypad: four buttons in a 2×2 grid, each with its symbol drawn (never named);
/// a pressed button is darker and its light is green.
fn keypad(symbols: [&str; 4], pressed: [bool; 4], solved: bool) -> Result<Vec<u8>, CommaError> {
    // each symbol sits on its own button, below its lamp
    let at = |i: usize| {
        let (row, col) = ((i / 2) as f32, (i % 2) as f32);
        (116.0 + col * 150.0, 44.0 + row * 164.0, 130.0, 148.0)
    };
    let mut c = base(Base::Keypad { pressed, solved }, || {
        let mut c = module("KEYPAD", solved)?;
        for (i, &pressed) in pressed.iter().enumerate() {
            let (x, y, w, h) = at(i);
            button_body(&mut c, x, y, w, h, pressed);
            let cx = x + w / 2.0;
            c.fill_rect(cx - 14.0, y + 8.0, 28.0, 9.0, EDGE);
            c.fill_rect(
                cx - 12.0,
                y + 10.0,
                24.0,
                5.0,
                if pressed { LIT_GREEN } else { UNLIT },
            );
        }
        Ok(c)
    })?;
    for (i, symbol) in symbols.iter().enumerate() {
        let (x, y, w, _) = at(i);
        // the symbol alone, unnamed: naming it is the solver's part (§3.3)
        glyph(
            &mut c,
            symbol,
            x + w / 2.0,
            y + 80.0,
            46.0,
            INK,
            if pressed[i] {
                Rgb(176, 172, 160)
            } else {
                BUTTON
            },
        );
    }
    encode(c)
}

/// Password: five letter wheels, each with an up button above and a down button below,
/// and a SUBMIT button.
fn password(letters: [char; 5], solved: bool) -> Result<Vec<u8>, CommaError> {
    // each letter sits inside its own window; the windows are 80 pixels apart and clear of
    // the buttons
    let column = |i: usize| 96.0 + i as f32 * 80.0;
    let mut c = base(Base::Password { solved }, || {
        let mut c = module("PASSWORD", solved)?;
        for i in 0..letters.len() {
            let cx = column(i);
            for (y, up) in [(52.0, true), (246.0, false)] {
                button(&mut c, cx - 28.0, y, 56.0, 40.0, "", 10.0, false);
                let (tip, base) = if up {
                    (y + 10.0, y + 30.0)
                } else {
                    (y + 30.0, y + 10.0)
                };
                c.fill_polygon(&[(cx, tip), (cx + 13.0, base), (cx - 13.0, base)], INK);
            }
            screen(&mut c, cx - 30.0, 112.0, 60.0, 114.0);
        }
        button(&mut c, 176.0, 310.0, 160.0, 48.0, "SUBMIT", 24.0, false);
        Ok(c)
    })?;
    for (i, l) in letters.iter().enumerate() {
        label(
            &mut c,
            column(i),
            169.0,
            50.0,
            SCREEN_TEXT,
            &l.to_ascii_uppercase().to_string(),
        );
    }
    encode(c)
}

/// Colour: the 4×4 grid (`None` is a white square), rows and columns numbered 0 to 3.
fn colour(grid: [Option<&str>; 16], solved: bool) -> Result<Vec<u8>, CommaError> {
    let mut c = module("COLOUR", solved)?;
    let (x0, y0, cell) = (140.0, 48.0, 78.0);
    c.fill_rect(
        x0 - 6.0,
        y0 - 6.0,
        cell * 4.0 + 12.0,
        cell * 4.0 + 12.0,
        Rgb(40, 40, 40),
    );
    for (i, square) in grid.iter().enumerate() {
        let (r, col) = ((i / 4) as f32, (i % 4) as f32);
        let fill = square.map_or(named("white"), named);
        c.fill_rect(
            x0 + col * cell + 3.0,
            y0 + r * cell + 3.0,
            cell - 6.0,
            cell - 6.0,
            fill,
        );
    }
    for k in 0..4 {
        let t = k.to_string();
        label(
            &mut c,
            x0 + (k as f32 + 0.5) * cell,
            y0 - 18.0 + 4.0,
            14.0,
            INK,
            &t,
        );
        label(
            &mut c,
            x0 - 20.0,
            y0 + (k as f32 + 0.5) * cell,
            14.0,
            INK,
            &t,
        );
    }
    encode(c)
}

/// Maze: the grid from above (walls dark, open squares white), the torus on its square in
/// its colour, the coloured spheres, the grey mouse, rows and columns numbered from 1, and
/// the round labyrinth button beside the maze.
fn maze(
    grid: &[Vec<u8>],
    spheres: &[((usize, usize), &str)],
    mouse: (usize, usize),
    torus: &str,
    solved: bool,
) -> Result<Vec<u8>, CommaError> {
    let mut c = module("MAZE", solved)?;
    let rows = grid.len().max(1);
    let cols = grid.iter().map(Vec::len).max().unwrap_or(1).max(1);
    let cell = (320.0 / rows.max(cols) as f32).floor();
    let (x0, y0) = (56.0, 44.0 + (320.0 - cell * rows as f32) / 2.0);
    for (r, row) in grid.iter().enumerate() {
        let y = y0 + r as f32 * cell;
        label(
            &mut c,
            x0 - 16.0,
            y + cell / 2.0,
            12.0,
            INK,
            &(r + 1).to_string(),
        );
        for (col, square) in row.iter().enumerate() {
            let x = x0 + col as f32 * cell;
            let fill = if *square == 1 {
                Rgb(45, 45, 50)
            } else {
                Rgb(250, 250, 250)
            };
            c.fill_rect(x, y, cell, cell, fill);
            c.stroke_rect(x, y, cell, cell, Rgb(150, 150, 150), 1.0);
            let (cx, cy) = (x + cell / 2.0, y + cell / 2.0);
            if *square == 2 {
                c.stroke_circle(cx, cy, cell * 0.3, Rgb(30, 30, 30), cell * 0.22);
                c.stroke_circle(cx, cy, cell * 0.3, named(torus), cell * 0.16);
            }
        }
    }
    for col in 0..cols {
        let x = x0 + (col as f32 + 0.5) * cell;
        label(&mut c, x, y0 - 10.0, 12.0, INK, &(col + 1).to_string());
    }
    let centre =
        |(r, col): (usize, usize)| (x0 + (col as f32 + 0.5) * cell, y0 + (r as f32 + 0.5) * cell);
    let ball = |c: &mut Canvas, (cx, cy): (f32, f32), r: f32, fill: Rgb| {
        c.fill_circle(cx, cy, r + 1.5, Rgb(30, 30, 30));
        c.fill_circle(cx, cy, r, fill);
        c.fill_circle(
            cx - r * 0.35,
            cy - r * 0.35,
            r * 0.3,
            fill.mix(Rgb::WHITE, 140),
        );
    };
    for &(at, colour) in spheres {
        ball(&mut c, centre(at), cell * 0.36, named(colour));
    }
    // the mouse stands on top of a sphere when it shares its square, smaller, so both show
    let on_sphere = spheres.iter().any(|&(at, _)| at == mouse);
    ball(
        &mut c,
        centre(mouse),
        cell * if on_sphere { 0.2 } else { 0.34 },
        Rgb(140, 140, 145),
    );
    // the labyrinth button
    let (bx, by, br) = (440.0, 204.0, 44.0);
    c.fill_circle(bx + 3.0, by + 4.0, br, Rgb(120, 120, 116));
    c.fill_circle(bx, by, br, BUTTON);
    c.stroke_circle(bx, by, br, EDGE, 2.0);
    for (k, r) in [30.0f32, 21.0, 12.0].iter().enumerate() {
        let from = 0.1 + 0.3 * k as f32;
        c.stroke_polyline(&arc(bx, by, *r, from, from + 0.8, 24), INK, 3.0);
    }
    c.line(bx, by - 30.0, bx, by - 21.0, INK, 3.0);
    c.line(bx + 21.0, by, bx + 12.0, by, INK, 3.0);
    c.fill_circle(bx, by, 3.5, INK);
    encode(c)
}

/// ATM: the screen (heading lines, two options with the pointer on one) and the keypad.
fn atm(
    heading: &[String],
    options: [&str; 2],
    pointer: usize,
    pin: &str,
    solved: bool,
) -> Result<Vec<u8>, CommaError> {
    // the PIN sits inside the card and the screen's lines inside the screen, clear of the
    // keypad below (drawn after them): the keypad can come first, from the base, unless
    // the heading is long enough to push the options down to it
    let first = 58.0 + 27.0 * heading.len() as f32;
    let options_y = first.max(112.0);
    if options_y + 34.0 + 22.0 * 1.25 >= ATM_KEYS.1 - 2.0 {
        return atm_in_order(heading, options, pointer, pin, solved);
    }
    let mut c = base(Base::Atm { solved }, || {
        let mut c = module("ATM", solved)?;
        atm_card(&mut c);
        screen(&mut c, 40.0, 48.0, 432.0, 150.0);
        atm_keys(&mut c);
        Ok(c)
    })?;
    c.text_centered(49.0, 264.0, 18.0, INK, pin);
    atm_lines(&mut c, heading, options, pointer);
    encode(c)
}

/// Where the ATM's keypad starts (x, y), and its keys' width, height and gap.
const ATM_KEYS: (f32, f32, f32, f32, f32) = (96.0, 214.0, 66.0, 34.0, 6.0);

/// The ATM drawn part after part as the picture stacks them (the heading and options
/// under the keypad when they reach it).
fn atm_in_order(
    heading: &[String],
    options: [&str; 2],
    pointer: usize,
    pin: &str,
    solved: bool,
) -> Result<Vec<u8>, CommaError> {
    let mut c = module("ATM", solved)?;
    atm_card(&mut c);
    c.text_centered(49.0, 264.0, 18.0, INK, pin);
    screen(&mut c, 40.0, 48.0, 432.0, 150.0);
    atm_lines(&mut c, heading, options, pointer);
    atm_keys(&mut c);
    encode(c)
}

/// The solver's bank card, beside the keypad (private, like the balance), without its PIN.
fn atm_card(c: &mut Canvas) {
    c.fill_rounded_rect(10.0, 220.0, 78.0, 74.0, 6.0, Rgb(214, 226, 240));
    c.stroke_rounded_rect(10.0, 220.0, 78.0, 74.0, 6.0, INK, 1.5);
    c.text_centered(49.0, 226.0, 12.0, INK, "YOUR CARD");
    c.text_centered(49.0, 246.0, 12.0, INK, "PIN");
}

/// The screen's heading lines, the two options and the pointer at one of them.
fn atm_lines(c: &mut Canvas, heading: &[String], options: [&str; 2], pointer: usize) {
    let mut y = 58.0;
    for line in heading {
        c.text(56.0, y, 20.0, SCREEN_TEXT, line);
        y += 27.0;
    }
    let y = y.max(112.0);
    for (i, option) in options.iter().enumerate() {
        let oy = y + i as f32 * 34.0;
        if pointer == i {
            c.fill_polygon(
                &[(60.0, oy + 3.0), (78.0, oy + 12.0), (60.0, oy + 21.0)],
                SCREEN_TEXT,
            );
        }
        c.text(90.0, oy, 22.0, SCREEN_TEXT, option);
    }
}

/// The keypad: digits 1-9 in three rows, 0 under 8; arrows, ENTER and DEL in a column.
fn atm_keys(c: &mut Canvas) {
    let (kx, ky, w, h, gap) = ATM_KEYS;
    for d in 0..10u8 {
        let (col, row) = if d == 0 {
            (1.0, 3.0)
        } else {
            (((d - 1) % 3) as f32, ((d - 1) / 3) as f32)
        };
        button(
            c,
            kx + col * (w + gap),
            ky + row * (h + gap),
            w,
            h,
            &d.to_string(),
            20.0,
            false,
        );
    }
    let sx = kx + 3.0 * (w + gap) + 24.0;
    for (row, text) in ["", "", "ENTER", "DEL"].iter().enumerate() {
        let by = ky + row as f32 * (h + gap);
        button(c, sx, by, 110.0, h, text, 18.0, false);
        let cx = sx + 55.0;
        match row {
            0 => c.fill_polygon(
                &[
                    (cx, by + 7.0),
                    (cx + 12.0, by + 27.0),
                    (cx - 12.0, by + 27.0),
                ],
                INK,
            ),
            1 => c.fill_polygon(
                &[
                    (cx, by + 27.0),
                    (cx + 12.0, by + 7.0),
                    (cx - 12.0, by + 7.0),
                ],
                INK,
            ),
            _ => {}
        }
    }
}

/// Maps unit coordinates around `(cx, cy)` (half-size `s`, turned `turn` full turns
/// clockwise) to pixels.
fn at(cx: f32, cy: f32, s: f32, turn: f32) -> impl Fn(f32, f32) -> (f32, f32) {
    let (sin, neg_cos) = on_circle(0.0, 0.0, 1.0, turn);
    let cos = -neg_cos;
    move |x, y| (cx + s * (x * cos - y * sin), cy + s * (x * sin + y * cos))
}

/// The sine of `turn` full turns.
fn sin_turns(turn: f32) -> f32 {
    on_circle(0.0, 0.0, 1.0, turn).0
}

/// A lens (two arcs meeting at both ends) from `(-1, 0)` to `(1, 0)`, `width` thick at
/// its middle, in unit coordinates.
fn lens(width: f32, skew: f32) -> Vec<(f32, f32)> {
    let n = 16;
    let mut upper: Vec<(f32, f32)> = (0..=n)
        .map(|i| {
            let t = i as f32 / n as f32;
            let bulge = sin_turns(t / 2.0) * width;
            (-1.0 + 2.0 * t, -bulge * (1.0 + skew * (t - 0.5)))
        })
        .collect();
    let lower: Vec<(f32, f32)> = (1..n)
        .rev()
        .map(|i| {
            let t = i as f32 / n as f32;
            let bulge = sin_turns(t / 2.0) * width;
            (-1.0 + 2.0 * t, bulge * (1.0 - skew * (t - 0.5)))
        })
        .collect();
    upper.extend(lower);
    upper
}

/// Draws the keypad symbol `name` centred on `(cx, cy)` within `s` pixels of it, in `ink`
/// on a button of colour `bg`. Every name of the keypad's columns has its own glyph; an
/// unknown name draws a question mark.
fn glyph(c: &mut Canvas, name: &str, cx: f32, cy: f32, s: f32, ink: Rgb, bg: Rgb) {
    let p = at(cx, cy, s, 0.0);
    let pts = |list: &[(f32, f32)]| list.iter().map(|&(x, y)| p(x, y)).collect::<Vec<_>>();
    let w = s * 0.13;
    match name {
        "star" => c.fill_polygon(&star(cx, cy + s * 0.08, s * 0.95, s * 0.4, 5), ink),
        "moon" => c.fill_polygon(&crescent(cx - s * 0.1, cy, s * 0.85), ink),
        "hook" => {
            let mut line = pts(&[(0.25, -0.6), (0.25, 0.3)]);
            line.extend(arc(cx - s * 0.15, cy + s * 0.3, s * 0.4, 0.25, 0.75, 16));
            line.push(p(-0.55, 0.1));
            c.stroke_polyline(&line, ink, w);
            c.stroke_circle(p(0.25, -0.75).0, p(0.25, -0.75).1, s * 0.15, ink, w * 0.8);
            c.fill_polygon(&pts(&[(-0.55, 0.3), (-0.4, -0.05), (-0.68, 0.1)]), ink);
        }
        "crown" => {
            c.fill_polygon(
                &pts(&[
                    (-0.85, 0.55),
                    (0.85, 0.55),
                    (0.85, -0.45),
                    (0.42, 0.05),
                    (0.0, -0.65),
                    (-0.42, 0.05),
                    (-0.85, -0.45),
                ]),
                ink,
            );
            for (x, y) in [(-0.85, -0.5), (0.0, -0.72), (0.85, -0.5)] {
                let (px, py) = p(x, y);
                c.fill_circle(px, py, s * 0.11, ink);
            }
            c.fill_rect(cx - s * 0.85, cy + s * 0.65, s * 1.7, s * 0.15, ink);
        }
        "leaf" => {
            let q = at(cx, cy, s, -0.125);
            let outline: Vec<_> = lens(0.5, 0.0)
                .iter()
                .map(|&(x, y)| q(x * 0.8, y * 0.8))
                .collect();
            c.fill_polygon(&outline, ink);
            let (a, b) = (q(-0.7, 0.0), q(0.7, 0.0));
            c.line(a.0, a.1, b.0, b.1, bg, w * 0.5);
            let (st, en) = (q(-0.8, 0.0), q(-1.05, 0.0));
            c.line(st.0, st.1, en.0, en.1, ink, w);
            for k in [-0.35f32, 0.0, 0.35] {
                let (a, b, d) = (q(k, 0.0), q(k + 0.25, -0.25), q(k + 0.25, 0.25));
                c.line(a.0, a.1, b.0, b.1, bg, w * 0.4);
                c.line(a.0, a.1, d.0, d.1, bg, w * 0.4);
            }
        }
        "key" => {
            let (bx, by) = p(-0.5, 0.0);
            c.stroke_circle(bx, by, s * 0.32, ink, w * 1.2);
            c.stroke_polyline(&pts(&[(-0.18, 0.0), (0.9, 0.0)]), ink, w * 1.2);
            c.stroke_polyline(&pts(&[(0.55, 0.0), (0.55, 0.35)]), ink, w);
            c.stroke_polyline(&pts(&[(0.8, 0.0), (0.8, 0.3)]), ink, w);
        }
        "bell" => {
            let mut body = arc(cx, cy - s * 0.2, s * 0.5, 0.75, 1.25, 16);
            body.extend(pts(&[
                (0.55, 0.35),
                (0.85, 0.6),
                (-0.85, 0.6),
                (-0.55, 0.35),
            ]));
            c.fill_polygon(&body, ink);
            let (kx, ky) = p(0.0, 0.78);
            c.fill_circle(kx, ky, s * 0.16, ink);
            let (tx, ty) = p(0.0, -0.75);
            c.fill_circle(tx, ty, s * 0.1, ink);
        }
        "kite" => {
            c.fill_polygon(
                &pts(&[(0.0, -0.95), (0.55, -0.3), (0.0, 0.45), (-0.55, -0.3)]),
                ink,
            );
            c.stroke_polyline(&pts(&[(0.0, -0.95), (0.0, 0.45)]), bg, w * 0.4);
            c.stroke_polyline(&pts(&[(-0.55, -0.3), (0.55, -0.3)]), bg, w * 0.4);
            // the tail, with two bow ties on it
            let tail = [(0.0, 0.45), (0.18, 0.62), (-0.12, 0.8), (0.08, 0.97)];
            c.stroke_polyline(&pts(&tail), ink, w * 0.5);
            for (x, y) in [tail[1], tail[2]] {
                c.fill_polygon(
                    &pts(&[(x, y), (x - 0.16, y - 0.1), (x - 0.16, y + 0.1)]),
                    ink,
                );
                c.fill_polygon(
                    &pts(&[(x, y), (x + 0.16, y - 0.1), (x + 0.16, y + 0.1)]),
                    ink,
                );
            }
        }
        "spiral" => {
            let line: Vec<_> = (0..=90)
                .map(|i| {
                    let t = i as f32 / 90.0;
                    on_circle(cx, cy, s * (0.05 + 0.85 * t), t * 3.0)
                })
                .collect();
            c.stroke_polyline(&line, ink, w);
        }
        "harp" => {
            let neck = |x: f32| -0.85 + (x + 0.6) / 1.2 * 0.4;
            let board = |x: f32| -0.45 + (0.6 - x) / 1.2 * 1.3;
            c.stroke_polygon(
                &pts(&[(-0.6, -0.85), (0.0, -0.75), (0.6, -0.45), (-0.6, 0.85)]),
                ink,
                w * 1.2,
            );
            for x in [-0.35f32, -0.1, 0.15, 0.4] {
                c.stroke_polyline(&pts(&[(x, neck(x)), (x, board(x))]), ink, w * 0.35);
            }
            c.stroke_polyline(&pts(&[(-0.6, -0.85), (-0.6, 0.9)]), ink, w * 1.6);
        }
        "anchor" => {
            let (rx, ry) = p(0.0, -0.72);
            c.stroke_circle(rx, ry, s * 0.16, ink, w);
            c.stroke_polyline(&pts(&[(0.0, -0.56), (0.0, 0.8)]), ink, w * 1.1);
            c.stroke_polyline(&pts(&[(-0.35, -0.3), (0.35, -0.3)]), ink, w);
            c.stroke_polyline(
                &arc(cx, cy + s * 0.15, s * 0.65, 0.27, 0.73, 16),
                ink,
                w * 1.1,
            );
            for (x, d) in [(-0.62f32, -1.0f32), (0.62, 1.0)] {
                c.fill_polygon(
                    &pts(&[(x, 0.05), (x + 0.15 * d, 0.32), (x - 0.18 * d, 0.3)]),
                    ink,
                );
            }
        }
        "fork" => {
            c.stroke_polyline(&pts(&[(0.0, 0.95), (0.0, 0.0)]), ink, w * 1.3);
            c.fill_polygon(
                &pts(&[(-0.42, -0.2), (0.42, -0.2), (0.2, 0.08), (-0.2, 0.08)]),
                ink,
            );
            for x in [-0.36f32, -0.12, 0.12, 0.36] {
                c.stroke_polyline(&pts(&[(x, -0.15), (x, -0.9)]), ink, w * 0.7);
            }
        }
        "eye" => {
            let outline: Vec<_> = lens(0.55, 0.0)
                .iter()
                .map(|&(x, y)| p(x * 0.95, y))
                .collect();
            c.stroke_polygon(&outline, ink, w);
            c.fill_circle(cx, cy, s * 0.33, ink);
            c.fill_circle(cx, cy, s * 0.12, bg);
        }
        "wave" => {
            for dy in [-0.3f32, 0.3] {
                let line: Vec<_> = (0..=40)
                    .map(|i| {
                        let t = i as f32 / 40.0;
                        p(-0.9 + 1.8 * t, dy + 0.22 * sin_turns(t * 2.0))
                    })
                    .collect();
                c.stroke_polyline(&line, ink, w);
            }
        }
        "candle" => {
            c.fill_rect(cx - s * 0.25, cy - s * 0.2, s * 0.5, s * 1.0, ink);
            c.stroke_polyline(&pts(&[(0.0, -0.2), (0.0, -0.38)]), ink, w * 0.4);
            let mut flame = arc(cx, cy - s * 0.52, s * 0.15, 0.25, 0.75, 10);
            flame.push(p(0.0, -0.95));
            c.fill_polygon(&flame, ink);
            c.fill_rect(cx - s * 0.45, cy + s * 0.8, s * 0.9, s * 0.12, ink);
        }
        "diamond" => {
            let gem = [
                (-0.85, -0.3),
                (-0.45, -0.7),
                (0.45, -0.7),
                (0.85, -0.3),
                (0.0, 0.85),
            ];
            c.fill_polygon(&pts(&gem), ink);
            c.stroke_polyline(&pts(&[(-0.85, -0.3), (0.85, -0.3)]), bg, w * 0.35);
            for (a, b) in [
                ((-0.45, -0.7), (-0.3, -0.3)),
                ((0.45, -0.7), (0.3, -0.3)),
                ((-0.3, -0.3), (0.0, 0.85)),
                ((0.3, -0.3), (0.0, 0.85)),
            ] {
                c.stroke_polyline(&pts(&[a, b]), bg, w * 0.35);
            }
        }
        "shell" => {
            let (hx, hy) = p(0.0, 0.55);
            let mut fan = arc(hx, hy, s * 0.95, -0.25, 0.25, 24);
            fan.extend(pts(&[(0.25, 0.75), (-0.25, 0.75)]));
            c.fill_polygon(&fan, ink);
            for k in 1..6 {
                let t = -0.25 + k as f32 / 12.0;
                let (ex, ey) = on_circle(hx, hy, s * 0.9, t);
                c.line(hx, hy, ex, ey, bg, w * 0.35);
            }
        }
        "sun" => {
            c.fill_circle(cx, cy, s * 0.42, ink);
            for k in 0..8 {
                let t = k as f32 / 8.0;
                let (ax, ay) = on_circle(cx, cy, s * 0.58, t);
                let (bx, by) = on_circle(cx, cy, s * 0.92, t);
                c.line(ax, ay, bx, by, ink, w);
            }
        }
        "wheel" => {
            c.stroke_circle(cx, cy, s * 0.82, ink, w * 1.2);
            c.fill_circle(cx, cy, s * 0.16, ink);
            for k in 0..6 {
                let (ex, ey) = on_circle(cx, cy, s * 0.8, k as f32 / 6.0);
                c.line(cx, cy, ex, ey, ink, w * 0.6);
            }
        }
        "lamp" => {
            c.fill_polygon(
                &pts(&[(-0.32, -0.85), (0.32, -0.85), (0.7, -0.05), (-0.7, -0.05)]),
                ink,
            );
            c.stroke_polyline(&pts(&[(0.0, -0.05), (0.0, 0.7)]), ink, w);
            let (bx, by) = p(0.0, 0.78);
            c.fill_ellipse(bx, by, s * 0.5, s * 0.14, ink);
        }
        "feather" => {
            let q = at(cx, cy, s, 0.125);
            let vane: Vec<_> = lens(0.28, 0.8)
                .iter()
                .map(|&(x, y)| q(x * 0.85, y))
                .collect();
            c.fill_polygon(&vane, ink);
            let (a, b) = (q(0.85, 0.0), q(-1.0, 0.0));
            c.line(a.0, a.1, b.0, b.1, ink, w * 0.5);
            let (m0, m1) = (q(-0.7, 0.0), q(0.8, 0.0));
            c.line(m0.0, m0.1, m1.0, m1.1, bg, w * 0.3);
            for k in [-0.4f32, -0.05, 0.3] {
                let (a, b) = (q(k, -0.3), q(k - 0.15, -0.1));
                c.line(a.0, a.1, b.0, b.1, bg, w * 0.4);
                let (a, b) = (q(k + 0.1, 0.3), q(k - 0.05, 0.1));
                c.line(a.0, a.1, b.0, b.1, bg, w * 0.4);
            }
        }
        "comet" => {
            let (hx, hy) = p(0.45, -0.45);
            c.fill_polygon(&pts(&[(0.2, -0.7), (0.7, -0.2), (-0.9, 0.9)]), ink);
            c.fill_circle(hx, hy, s * 0.36, ink);
            c.stroke_polyline(&pts(&[(0.05, -0.55), (-0.8, 0.3)]), ink, w * 0.5);
            c.stroke_polyline(&pts(&[(0.55, -0.05), (-0.3, 0.8)]), ink, w * 0.5);
        }
        "trident" => {
            c.stroke_polyline(&pts(&[(0.0, 0.95), (0.0, -0.75)]), ink, w);
            // left prong down, round the bottom, right prong up
            let mut prongs = pts(&[(-0.5, -0.7)]);
            prongs.extend(arc(cx, cy - s * 0.2, s * 0.5, 0.75, 0.25, 12));
            prongs.push(p(0.5, -0.7));
            c.stroke_polyline(&prongs, ink, w);
            for x in [-0.5f32, 0.0, 0.5] {
                c.fill_polygon(
                    &pts(&[(x, -0.95), (x + 0.14, -0.68), (x - 0.14, -0.68)]),
                    ink,
                );
            }
        }
        "arrow" => {
            let (a, b) = (p(-0.8, 0.8), p(0.85, -0.85));
            c.arrow(a.0, a.1, b.0, b.1, ink, w, s * 0.55);
            for d in [0.0f32, 0.2] {
                let (f0, f1) = (p(-0.8 + d, 0.8 - d), p(-0.8 + d, 0.45 - d));
                c.line(f0.0, f0.1, f1.0, f1.1, ink, w * 0.6);
                let g1 = p(-0.45 + d, 0.8 - d);
                c.line(f0.0, f0.1, g1.0, g1.1, ink, w * 0.6);
            }
        }
        _ => label(c, cx, cy, s * 1.2, ink, "?"),
    }
}

/// The colour a lesion's record names; a mid brown for a name we do not know.
fn lesion_colour(colour: &str) -> Rgb {
    match colour {
        "pink" => Rgb(226, 132, 140),
        "red" => Rgb(190, 50, 50),
        "pearly white" => Rgb(240, 222, 222),
        "light brown" => Rgb(176, 120, 74),
        "tan" => Rgb(196, 150, 100),
        "brown" => Rgb(128, 76, 40),
        "dark brown" => Rgb(78, 44, 24),
        "black" => Rgb(28, 22, 20),
        "blue-grey" => Rgb(96, 110, 130),
        "yellow-brown" => Rgb(184, 146, 60),
        _ => Rgb(150, 90, 60),
    }
}

fn sin(a: f32) -> f32 {
    on_circle(0.0, 0.0, 1.0, a / std::f32::consts::TAU).0
}

fn cos(a: f32) -> f32 {
    -on_circle(0.0, 0.0, 1.0, a / std::f32::consts::TAU).1
}

/// Telehealth's synthetic case (COMMA's Telehealth shows a dermoscopy photograph; a
/// synthetic case shows this labelled cartoon instead): the lesion on skin at 8 px a
/// millimetre, its outline, colours and surface from the findings, a label band saying
/// it is no photograph and a 5 mm scale bar, on a 360 × 360 canvas.
fn lesion(l: &Lesion) -> Result<Vec<u8>, CommaError> {
    use rand::Rng;
    let skin = Rgb(l.skin[0], l.skin[1], l.skin[2]);
    let (w, h) = (360.0f32, 360.0f32);
    let mut c = Canvas::new(w as u32, h as u32, skin).map_err(CommaError::Render)?;
    let mut rng = escapade_core::seed::rng(l.idx ^ 0x5eed_1e51);
    // skin texture: faint pores
    for _ in 0..140 {
        let (x, y) = (rng.random_range(0.0..w), rng.random_range(40.0..h));
        c.fill_circle(x, y, 1.2, skin.mix(Rgb(120, 80, 60), 40));
    }
    // 8 px per mm
    let px = 8.0f32;
    let (d1, d2) = (
        f32::from_bits(l.diameters[0]),
        f32::from_bits(l.diameters[1]),
    );
    let (rx, ry) = (d1 * px / 2.0, d2 * px / 2.0);
    let (cx, cy) = (w / 2.0, 40.0 + (h - 40.0) / 2.0);
    let wobble = match l.border {
        "sharp and regular" => 0.03,
        "irregular and notched" => 0.22,
        "vague" => 0.12,
        _ => 0.08,
    };
    let phases: Vec<f32> = (0..4).map(|_| rng.random_range(0.0..1.0)).collect();
    let stretch = if l.symmetric { 0.0 } else { 0.25 };
    let blob = |scale: f32, ox: f32, oy: f32| -> Vec<(f32, f32)> {
        (0..72)
            .map(|i| {
                let t = i as f32 / 72.0;
                let a = t * std::f32::consts::TAU;
                let mut k = 1.0;
                for (j, ph) in phases.iter().enumerate() {
                    let f = (j as f32 + 2.0) * std::f32::consts::TAU;
                    k += wobble / (j as f32 + 1.0) * sin(f * (t + ph));
                }
                // asymmetry: one side bulges
                k *= 1.0 + stretch * sin(a + phases[0] * std::f32::consts::TAU).max(0.0);
                (
                    cx + ox + scale * rx * k * sin(a),
                    cy + oy - scale * ry * k * cos(a),
                )
            })
            .collect()
    };
    let main = lesion_colour(l.colours[0]);
    if l.border == "vague" {
        c.fill_polygon(&blob(1.15, 0.0, 0.0), skin.mix(main, 110));
    }
    c.fill_polygon(&blob(1.0, 0.0, 0.0), main);
    for (i, col) in l.colours.iter().enumerate().skip(1) {
        let (ox, oy) = (
            rng.random_range(-0.3..0.3) * rx,
            rng.random_range(-0.3..0.3) * ry,
        );
        c.fill_polygon(&blob(0.55 / i as f32, ox, oy), lesion_colour(col));
    }
    if l.border == "raised and rolled" {
        c.stroke_polygon(&blob(0.95, 0.0, 0.0), Rgb(245, 230, 230), 3.0);
    }
    let fleck = |rng: &mut escapade_core::seed::Rng, spread: f32| {
        (
            cx + rng.random_range(-spread..spread) * rx,
            cy + rng.random_range(-spread..spread) * ry,
        )
    };
    if l.surface.contains("scaly") {
        for _ in 0..30 {
            let (x, y) = fleck(&mut rng, 0.7);
            c.line(x, y, x + 4.0, y + 1.5, Rgb(248, 240, 230), 1.5);
        }
    }
    if l.surface.contains("crust") {
        c.fill_polygon(
            &blob(0.5, 0.0, 0.0),
            lesion_colour("yellow-brown").mix(Rgb::BLACK, 40),
        );
    }
    if l.surface.contains("warty") {
        for _ in 0..40 {
            let (x, y) = fleck(&mut rng, 0.7);
            c.fill_circle(x, y, 1.8, main.mix(Rgb::BLACK, 80));
        }
    }
    if l.surface.contains("vessels") {
        for _ in 0..4 {
            let pts: Vec<(f32, f32)> = (0..5).map(|_| fleck(&mut rng, 0.6)).collect();
            c.stroke_polyline(&pts, Rgb(200, 40, 50), 1.0);
        }
    }
    if l.surface.contains("sore") {
        c.fill_circle(cx, cy, (rx.min(ry) * 0.2).max(2.0), Rgb(140, 20, 30));
    }
    // label band and 5 mm scale bar
    c.fill_rect(0.0, 0.0, w, 34.0, Rgb(30, 30, 30));
    c.text_centered(
        w / 2.0,
        6.0,
        20.0,
        Rgb(255, 220, 60),
        "SYNTHETIC lesion (not a photograph)",
    );
    c.fill_rect(16.0, h - 20.0, 5.0 * px, 4.0, Rgb::BLACK);
    c.text(16.0 + 5.0 * px + 6.0, h - 28.0, 14.0, Rgb::BLACK, "5 mm");
    encode(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ATM from its base (the keypad drawn before the screen's lines) is the ATM
    /// drawn part after part, byte for byte, on every screen the puzzle shows; a heading
    /// long enough to reach the keypad is drawn part after part.
    #[test]
    fn the_atm_from_its_base_is_the_atm_in_order() {
        let lines = |n: usize| -> Vec<String> { (0..n).map(|i| format!("Line {i}.")).collect() };
        for (n, options, pointer, solved) in [
            (2, ["Deposit", "Withdrawal"], 0, false),
            (1, ["PIN: ***", "Go Back"], 1, false),
            (2, ["Amount: 120", "Go Back"], 0, true),
            (0, ["", ""], 1, false),
            (3, ["Amount: 5", "Go Back"], 0, false),
            (4, ["Deposit", "Withdrawal"], 1, false),
        ] {
            let heading = lines(n);
            assert_eq!(
                atm(&heading, options, pointer, "4821", solved).unwrap(),
                atm_in_order(&heading, options, pointer, "4821", solved).unwrap(),
                "{n} lines"
            );
        }
    }
}
