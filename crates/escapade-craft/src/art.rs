//! Small pictures drawn with the 2D canvas and hung in rooms as textures: framed art,
//! family photos, rug patterns, a clock face, a television's and a laptop's screens, a
//! washing machine's round door.
//!
//! Why: a furnished room reads as one through its details, and a flat box cannot show a
//! landscape or a clock face. Every picture is a pure function of its kind and a style
//! number, drawn with the canvas (tiny-skia without SIMD, so the same pixels everywhere).
//! None shows a digit or a word: a number in the room must only ever be a clue the chain
//! put there (notes and wall patterns, `scene`).

use escapade_render::scene::Texture;
use escapade_render::{Canvas, RenderError, Rgb};

/// What a texture shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Art {
    /// A framed painting: a landscape, a sea view or an abstract, by style.
    Painting,
    /// A photograph of people in a standing frame.
    Photo,
    /// A rug's woven pattern: border, field and a medallion.
    Rug,
    /// A clock face with hands and hour marks (round: transparent outside the dial).
    ClockFace,
    /// A television screen, switched off: dark glass with a faint reflection.
    Screen,
    /// A laptop's screen showing a desktop.
    Laptop,
    /// A washing machine's round glass door on its white front.
    Porthole,
    /// A mirror: pale glass with light streaks.
    Mirror,
}

/// The texture of `art` in style `style` (0..4, so two rooms differ).
///
/// # Errors
/// [`RenderError`] only if the canvas refuses its (fixed, valid) size.
pub fn texture(art: Art, style: u8) -> Result<Texture, RenderError> {
    let s = (style % 4) as usize;
    match art {
        Art::Painting => painting(s),
        Art::Photo => photo(s),
        Art::Rug => rug(s),
        Art::ClockFace => clock_face(s),
        Art::Screen => screen(),
        Art::Laptop => laptop(s),
        Art::Porthole => porthole(),
        Art::Mirror => mirror(),
    }
}

fn painting(s: usize) -> Result<Texture, RenderError> {
    let (w, h) = (96u32, 68u32);
    match s {
        // hills under a sky with a sun
        0 | 2 => {
            let skies = [Rgb(150, 190, 230), Rgb(236, 170, 120)];
            let sky = skies[s / 2];
            let mut c = Canvas::new(w, h, sky)?;
            c.fill_rect(0.0, 0.0, w as f32, 16.0, sky.mix(Rgb(255, 255, 255), 60));
            c.fill_circle(70.0, 20.0, 8.0, Rgb(250, 226, 120));
            c.fill_polygon(
                &[
                    (0.0, 46.0),
                    (30.0, 28.0),
                    (58.0, 44.0),
                    (96.0, 30.0),
                    (96.0, 68.0),
                    (0.0, 68.0),
                ],
                Rgb(90, 130, 80),
            );
            c.fill_polygon(
                &[
                    (0.0, 58.0),
                    (40.0, 44.0),
                    (96.0, 56.0),
                    (96.0, 68.0),
                    (0.0, 68.0),
                ],
                Rgb(60, 104, 60),
            );
            c.fill_ellipse(24.0, 52.0, 6.0, 9.0, Rgb(40, 80, 44));
            c.fill_rect(23.0, 58.0, 2.0, 6.0, Rgb(90, 60, 40));
            Ok(Texture::from_canvas(&c))
        }
        // the sea with a sail
        1 => {
            let mut c = Canvas::new(w, h, Rgb(170, 206, 232))?;
            c.fill_rect(0.0, 36.0, w as f32, 32.0, Rgb(40, 100, 150));
            for i in 0..5 {
                let y = 42.0 + i as f32 * 5.0;
                c.line(
                    6.0 + i as f32 * 9.0,
                    y,
                    30.0 + i as f32 * 9.0,
                    y,
                    Rgb(120, 170, 210),
                    1.0,
                );
            }
            c.fill_polygon(
                &[(50.0, 12.0), (50.0, 34.0), (36.0, 34.0)],
                Rgb(250, 250, 245),
            );
            c.fill_polygon(
                &[(34.0, 35.0), (62.0, 35.0), (58.0, 40.0), (38.0, 40.0)],
                Rgb(120, 60, 40),
            );
            c.fill_ellipse(20.0, 14.0, 10.0, 4.0, Rgb(245, 245, 250));
            Ok(Texture::from_canvas(&c))
        }
        // an abstract of blocks and a circle
        _ => {
            let mut c = Canvas::new(w, h, Rgb(236, 228, 210))?;
            c.fill_rect(8.0, 8.0, 40.0, 30.0, Rgb(200, 70, 50));
            c.fill_rect(52.0, 8.0, 36.0, 52.0, Rgb(40, 70, 140));
            c.fill_rect(8.0, 42.0, 40.0, 18.0, Rgb(230, 190, 60));
            c.fill_circle(70.0, 34.0, 12.0, Rgb(236, 228, 210));
            c.stroke_rect(8.0, 8.0, 80.0, 52.0, Rgb(30, 30, 30), 2.0);
            Ok(Texture::from_canvas(&c))
        }
    }
}

fn photo(s: usize) -> Result<Texture, RenderError> {
    let backs = [
        Rgb(120, 170, 210),
        Rgb(200, 180, 140),
        Rgb(140, 180, 120),
        Rgb(180, 150, 190),
    ];
    let mut c = Canvas::new(40, 52, Rgb(250, 250, 248))?;
    c.fill_rect(3.0, 3.0, 34.0, 46.0, backs[s]);
    let shirts = [Rgb(200, 60, 60), Rgb(50, 90, 160), Rgb(240, 200, 80)];
    for (i, x) in [13.0f32, 27.0].into_iter().enumerate() {
        let shirt = shirts[(s + i) % 3];
        c.fill_ellipse(x, 44.0, 8.0, 10.0, shirt);
        c.fill_circle(x, 25.0, 6.0, Rgb(230, 190, 160));
        c.fill_ellipse(x, 20.0, 6.0, 3.0, Rgb(70, 50, 40));
    }
    Ok(Texture::from_canvas(&c))
}

fn rug(s: usize) -> Result<Texture, RenderError> {
    let fields = [
        Rgb(150, 50, 50),
        Rgb(40, 70, 120),
        Rgb(200, 170, 110),
        Rgb(70, 110, 80),
    ];
    let field = fields[s];
    let (w, h) = (100u32, 70u32);
    let mut c = Canvas::new(w, h, field.mix(Rgb(30, 20, 20), 90))?;
    c.fill_rect(6.0, 6.0, 88.0, 58.0, field.mix(Rgb(240, 230, 210), 110));
    c.fill_rect(10.0, 10.0, 80.0, 50.0, field);
    for i in 0..9 {
        let x = 12.0 + i as f32 * 9.5;
        c.fill_polygon(
            &[(x, 8.0), (x + 3.0, 5.0), (x + 6.0, 8.0), (x + 3.0, 11.0)],
            Rgb(240, 220, 170),
        );
        c.fill_polygon(
            &[(x, 62.0), (x + 3.0, 59.0), (x + 6.0, 62.0), (x + 3.0, 65.0)],
            Rgb(240, 220, 170),
        );
    }
    c.fill_polygon(
        &[(50.0, 18.0), (72.0, 35.0), (50.0, 52.0), (28.0, 35.0)],
        field.mix(Rgb(245, 235, 200), 150),
    );
    c.fill_polygon(
        &[(50.0, 26.0), (61.0, 35.0), (50.0, 44.0), (39.0, 35.0)],
        field.mix(Rgb(20, 20, 40), 120),
    );
    Ok(Texture::from_canvas(&c))
}

fn clock_face(s: usize) -> Result<Texture, RenderError> {
    let rims = [
        Rgb(40, 40, 44),
        Rgb(150, 100, 60),
        Rgb(190, 190, 196),
        Rgb(160, 40, 40),
    ];
    let n = 64u32;
    let r = n as f32 / 2.0;
    let mut c = Canvas::new(n, n, Rgb(255, 255, 255))?;
    c.fill_circle(r, r, r - 0.5, rims[s]);
    c.fill_circle(r, r, r - 4.0, Rgb(248, 246, 238));
    for i in 0..12 {
        let (x0, y0) = escapade_render::shapes::on_circle(r, r, r - 7.0, i as f32 / 12.0);
        let (x1, y1) = escapade_render::shapes::on_circle(r, r, r - 11.0, i as f32 / 12.0);
        let width = if i % 3 == 0 { 2.5 } else { 1.2 };
        c.line(x0, y0, x1, y1, Rgb(30, 30, 30), width);
    }
    // ten past ten, as clocks in shop windows show
    let (hx, hy) = escapade_render::shapes::on_circle(r, r, r * 0.45, 10.2 / 12.0);
    let (mx, my) = escapade_render::shapes::on_circle(r, r, r * 0.7, 2.0 / 12.0);
    c.line(r, r, hx, hy, Rgb(20, 20, 20), 3.0);
    c.line(r, r, mx, my, Rgb(20, 20, 20), 2.0);
    c.fill_circle(r, r, 2.5, Rgb(180, 40, 40));
    let mut t = Texture::from_canvas(&c);
    // transparent outside the dial, so the wall shows around it
    for y in 0..n {
        for x in 0..n {
            let (dx, dy) = (x as f32 + 0.5 - r, y as f32 + 0.5 - r);
            if dx * dx + dy * dy > r * r {
                t.rgba[((y * n + x) * 4 + 3) as usize] = 0;
            }
        }
    }
    Ok(t)
}

fn screen() -> Result<Texture, RenderError> {
    let mut c = Canvas::new(64, 36, Rgb(18, 22, 30))?;
    c.fill_polygon(
        &[(34.0, 0.0), (48.0, 0.0), (24.0, 36.0), (10.0, 36.0)],
        Rgb(34, 40, 54),
    );
    c.fill_polygon(
        &[(52.0, 0.0), (56.0, 0.0), (32.0, 36.0), (28.0, 36.0)],
        Rgb(30, 36, 48),
    );
    Ok(Texture::from_canvas(&c))
}

fn laptop(s: usize) -> Result<Texture, RenderError> {
    let backs = [
        Rgb(40, 110, 170),
        Rgb(60, 140, 110),
        Rgb(120, 80, 160),
        Rgb(190, 110, 60),
    ];
    let mut c = Canvas::new(48, 30, backs[s])?;
    c.fill_circle(30.0, 12.0, 8.0, backs[s].mix(Rgb(255, 255, 255), 90));
    c.fill_rect(0.0, 26.0, 48.0, 4.0, Rgb(30, 30, 36));
    for i in 0..4 {
        c.fill_rect(4.0, 4.0 + i as f32 * 6.0, 5.0, 4.0, Rgb(240, 240, 240));
    }
    Ok(Texture::from_canvas(&c))
}

fn porthole() -> Result<Texture, RenderError> {
    let mut c = Canvas::new(48, 48, Rgb(238, 238, 236))?;
    c.fill_circle(24.0, 24.0, 20.0, Rgb(170, 174, 180));
    c.fill_circle(24.0, 24.0, 15.0, Rgb(40, 50, 66));
    c.fill_ellipse(19.0, 18.0, 6.0, 3.0, Rgb(90, 104, 124));
    Ok(Texture::from_canvas(&c))
}

fn mirror() -> Result<Texture, RenderError> {
    let mut c = Canvas::new(32, 48, Rgb(196, 212, 220))?;
    c.fill_polygon(
        &[(4.0, 48.0), (12.0, 48.0), (30.0, 0.0), (22.0, 0.0)],
        Rgb(224, 234, 240),
    );
    c.fill_polygon(
        &[(14.0, 48.0), (17.0, 48.0), (32.0, 8.0), (32.0, 2.0)],
        Rgb(214, 226, 232),
    );
    Ok(Texture::from_canvas(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_picture_draws_the_same_twice_and_only_the_clock_has_holes() {
        let all = [
            Art::Painting,
            Art::Photo,
            Art::Rug,
            Art::ClockFace,
            Art::Screen,
            Art::Laptop,
            Art::Porthole,
            Art::Mirror,
        ];
        for art in all {
            for style in 0..4 {
                let t = texture(art, style).unwrap();
                assert_eq!(t, texture(art, style).unwrap());
                assert_eq!(t.rgba.len(), (t.width * t.height * 4) as usize);
                let holes = t.rgba.chunks_exact(4).any(|p| p[3] < 128);
                assert_eq!(holes, art == Art::ClockFace, "{art:?}");
            }
        }
        // the styles differ
        assert_ne!(
            texture(Art::Painting, 0).unwrap(),
            texture(Art::Painting, 1).unwrap()
        );
    }
}
