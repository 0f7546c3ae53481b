//! Surface colours: the procedural materials, texture look-ups and the light.
//!
//! Why here: shading is where a ray caster most easily picks up platform differences
//! (`sin`, `floor`, gamma curves). Everything below is IEEE basic operations plus an exact
//! `floor` of our own (bit for bit `libm::floorf`, a test checks it, at a quarter of the
//! cost) — the wood's waver is a parabolic [`wave`], not `sin` — computed from the
//! world-space hit point, so a pattern is the same on every machine and two objects of
//! one material line up seamlessly.
//!
//! The light model: `albedo × (ambient × sky(n) + intensity × max(0, n·l) × lit) × falloff(d)`,
//! where `sky` is slightly brighter for surfaces facing up (so floor and walls read apart
//! even in shadow) and brighter still for surfaces facing down (light thrown back by the
//! floor: a ceiling is not a dark lid), `lit` is 0 in a hard shadow, and `falloff` dims
//! distant surfaces a little, as a room lit from inside looks.

use glam::Vec3;

use crate::Rgb;
use crate::scene::{Material, Shape, Texture};

/// A colour with channels in 0..=1.
pub(crate) type Col = Vec3;

pub(crate) fn col(c: Rgb) -> Col {
    Vec3::new(c.0 as f32, c.1 as f32, c.2 as f32) * (1.0 / 255.0)
}

/// The channel byte for a 0..=1 value (NaN gives 0): `(min(v, 1) × 255 + 0.5) as u8`,
/// rounded half up and saturating. Written without a float-to-integer conversion (whose
/// saturation a compiler cannot do several lanes at once): clamp to 0..=255, add 2^23 so
/// the float's low mantissa bits hold the nearest integer, step down when that rounded up,
/// and read the bits. A test checks it against the cast for many values.
#[inline(always)]
pub(crate) fn byte(v: f32) -> u8 {
    const M: f32 = 8_388_608.0;
    let x = v * 255.0 + 0.5;
    let c = if x > 0.0 { x } else { 0.0 };
    let c = if c < 255.0 { c } else { 255.0 };
    let y = c + M;
    let y = if y - M > c { y - 1.0 } else { y };
    y.to_bits() as u8
}

/// A material with its colours converted and its per-object choices made.
#[derive(Debug, Clone)]
pub(crate) enum Surface {
    Flat(Col),
    Wood {
        light: Col,
        dark: Col,
        scale: f32,
        /// The grain runs along `x` (else along `z`).
        along_x: bool,
    },
    Tiles {
        tile: Col,
        grout: Col,
        size: f32,
    },
    Fabric {
        base: Col,
        weave: Col,
    },
    Wallpaper {
        base: Col,
        stripe: Col,
        width: f32,
    },
    /// Texture index; on shapes other than quads, its average colour.
    Texture {
        index: usize,
        average: Col,
    },
}

impl Surface {
    /// Converts a material (already validated: finite numbers, texture in range).
    /// Patterns with a non-positive period fall back to their first colour.
    pub fn new(material: &Material, shape: &Shape, textures: &[TextureData]) -> Surface {
        match *material {
            Material::Flat(c) => Surface::Flat(col(c)),
            Material::Wood { light, dark, scale } if scale > 0.0 => {
                let along_x = match *shape {
                    Shape::Cuboid { min, max } => (max.x - min.x).abs() >= (max.z - min.z).abs(),
                    Shape::Cylinder { .. } | Shape::Sphere { .. } | Shape::Cone { .. } => true,
                    Shape::Quad { u, v, .. } => u.x.abs() + v.x.abs() >= u.z.abs() + v.z.abs(),
                };
                Surface::Wood {
                    light: col(light),
                    dark: col(dark),
                    scale,
                    along_x,
                }
            }
            Material::Wood { light, .. } => Surface::Flat(col(light)),
            Material::Tiles { tile, grout, size } if size > 0.0 => Surface::Tiles {
                tile: col(tile),
                grout: col(grout),
                size,
            },
            Material::Tiles { tile, .. } => Surface::Flat(col(tile)),
            Material::Fabric { base, weave } => Surface::Fabric {
                base: col(base),
                weave: col(weave),
            },
            Material::Wallpaper {
                base,
                stripe,
                stripe_width,
            } if stripe_width > 0.0 => Surface::Wallpaper {
                base: col(base),
                stripe: col(stripe),
                width: stripe_width,
            },
            Material::Wallpaper { base, .. } => Surface::Flat(col(base)),
            Material::Texture(index) => Surface::Texture {
                index,
                average: textures.get(index).map_or(Vec3::ZERO, |t| t.average),
            },
        }
    }

    /// The surface colour at world point `p` with unit normal `n`; `st` are a quad's
    /// texture coordinates (each -1..=1) when the object is a quad.
    #[inline(always)]
    pub fn albedo(
        &self,
        p: Vec3,
        n: Vec3,
        st: Option<(f32, f32)>,
        textures: &[TextureData],
    ) -> Col {
        match *self {
            Surface::Flat(c) => c,
            Surface::Wood {
                light,
                dark,
                scale,
                along_x,
            } => wood(p, light, dark, scale, along_x),
            Surface::Tiles { tile, grout, size } => tiles(p, n, tile, grout, size),
            Surface::Fabric { base, weave } => fabric(p, n, base, weave),
            Surface::Wallpaper {
                base,
                stripe,
                width,
            } => wallpaper(p, n, base, stripe, width),
            Surface::Texture { index, average } => match (st, textures.get(index)) {
                (Some((s, t)), Some(tex)) => tex.rgb_at(s, t),
                _ => average,
            },
        }
    }

    /// [`Surface::albedo`] for the lanes `from..to` of a row of `N` pixels that all hit
    /// this surface (points and normals coordinate by coordinate, `[x, y, z][lane]`; `st`
    /// the texture coordinates when the object is a quad), into `out`: the material is
    /// chosen once per run of pixels instead of once per pixel, and each material's loop
    /// is the same arithmetic [`Surface::albedo`] does.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn albedo_run<const N: usize>(
        &self,
        p: &[[f32; N]; 3],
        n: &[[f32; N]; 3],
        st: Option<(&[f32; N], &[f32; N])>,
        (from, to): (usize, usize),
        textures: &[TextureData],
        out: &mut [[f32; N]; 3],
    ) {
        let to = to.min(N);
        let at = |v: &[[f32; N]; 3], l: usize| Vec3::new(v[0][l], v[1][l], v[2][l]);
        let mut put = |l: usize, c: Col| (out[0][l], out[1][l], out[2][l]) = (c.x, c.y, c.z);
        match *self {
            Surface::Flat(c) => (from..to).for_each(|l| put(l, c)),
            Surface::Wood {
                light,
                dark,
                scale,
                along_x,
            } => (from..to).for_each(|l| put(l, wood(at(p, l), light, dark, scale, along_x))),
            Surface::Tiles { tile, grout, size } => {
                (from..to).for_each(|l| put(l, tiles(at(p, l), at(n, l), tile, grout, size)))
            }
            Surface::Fabric { base, weave } => {
                (from..to).for_each(|l| put(l, fabric(at(p, l), at(n, l), base, weave)))
            }
            Surface::Wallpaper {
                base,
                stripe,
                width,
            } => {
                (from..to).for_each(|l| put(l, wallpaper(at(p, l), at(n, l), base, stripe, width)))
            }
            Surface::Texture { .. } => (from..to).for_each(|l| {
                let st = st.map(|(s, t)| (s[l], t[l]));
                put(l, self.albedo(at(p, l), at(n, l), st, textures))
            }),
        }
    }
}

/// Wood at `p`: bands across the grain, wavering slowly along it; rings show on end faces.
#[inline(always)]
fn wood(p: Vec3, light: Col, dark: Col, scale: f32, along_x: bool) -> Col {
    let (along, across) = if along_x { (p.x, p.z) } else { (p.z, p.x) };
    let w = (across + p.y * 0.35 + wave(along * WOOD_WAVE / scale) * 0.12 * scale) / scale;
    let f = w - floor(w);
    let tri = 1.0 - (2.0 * f - 1.0).abs();
    let k = tri * tri * tri;
    light + (dark - light) * k
}

/// Tiles at `p` on a surface facing `n`, grout between them.
#[inline(always)]
fn tiles(p: Vec3, n: Vec3, tile: Col, grout: Col, size: f32) -> Col {
    let (a, b) = plane_coords(p, n);
    let (ua, ub) = (a / size, b / size);
    let (ia, ib) = (floor(ua), floor(ub));
    let (fa, fb) = (ua - ia, ub - ib);
    let g = 0.04;
    if fa < g || fb < g {
        return grout;
    }
    // a gentle per-tile variation, from an integer hash of the tile's index
    let h = hash(ia as i32 as u32, ib as i32 as u32);
    let shade = 0.95 + (h & 0xff) as f32 * (0.1 / 255.0);
    tile * shade
}

/// A woven check at `p` on a surface facing `n`.
#[inline(always)]
fn fabric(p: Vec3, n: Vec3, base: Col, weave: Col) -> Col {
    let (a, b) = plane_coords(p, n);
    let (ia, ib) = (floor(a * 40.0) as i64, floor(b * 40.0) as i64);
    match (ia & 1, ib & 1) {
        (1, 1) => weave,
        (0, 0) => base,
        _ => (base + weave) * 0.5,
    }
}

/// Vertical stripes at `p` on a wall facing `n`.
#[inline(always)]
fn wallpaper(p: Vec3, n: Vec3, base: Col, stripe: Col, width: f32) -> Col {
    let h = if n.x.abs() > n.z.abs() { p.z } else { p.x };
    let w = h / (2.0 * width);
    if w - floor(w) < 0.5 { stripe } else { base }
}

/// Turns of the wood grain's waver per metre of `scale`: `2.3 / 2π`, so the grain
/// wavers as `sin(2.3 · along / scale)` does.
const WOOD_WAVE: f32 = 0.366_056_4;

/// A smooth wave of period 1 between -1 and 1 shaped like `sin(2π x)`: the parabola
/// `4 g (1 - |g|)` of the phase `g` in `[-1, 1)`. Basic operations only, a tenth of
/// `libm::sinf`'s cost, which mattered: wood covers much of a room's picture.
#[inline(always)]
pub(crate) fn wave(x: f32) -> f32 {
    let g = 2.0 * (x - floor(x + 0.5));
    4.0 * g * (1.0 - g.abs())
}

/// `floor(x)`, exactly as `libm::floorf` gives it (IEEE floor is exact, so any correct
/// one agrees), but inline and without float-integer conversions: below 2^23 in
/// magnitude, adding and taking away 2^23 rounds `|x|` to the nearest integer, `copysign`
/// gives it `x`'s sign (so `floor(-0.0) = -0.0`), and one step down fixes a round up;
/// larger values, infinities and NaN are their own floor.
#[inline(always)]
pub(crate) fn floor(x: f32) -> f32 {
    const M: f32 = 8_388_608.0;
    let a = x.abs();
    if a < M {
        let r = ((a + M) - M).copysign(x);
        if r > x { r - 1.0 } else { r }
    } else {
        x
    }
}

/// Two coordinates in the plane a surface mostly faces (floor: x and z; walls: the
/// horizontal one and y).
fn plane_coords(p: Vec3, n: Vec3) -> (f32, f32) {
    let (ax, ay, az) = (n.x.abs(), n.y.abs(), n.z.abs());
    if ay >= ax && ay >= az {
        (p.x, p.z)
    } else if ax >= az {
        (p.z, p.y)
    } else {
        (p.x, p.y)
    }
}

fn hash(a: u32, b: u32) -> u32 {
    let mut h = a.wrapping_mul(0x9E37_79B1) ^ b.wrapping_mul(0x85EB_CA77);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^ (h >> 12)
}

/// A validated texture, with its average colour for non-quad shapes.
#[derive(Debug, Clone)]
pub(crate) struct TextureData {
    width: u32,
    height: u32,
    rgba: Vec<u8>,
    pub average: Col,
    /// Whether every texel stops rays (then a quad needs no per-ray alpha look-up).
    pub opaque: bool,
}

impl TextureData {
    /// `texture` must have passed validation (sides 1..=8192, 4 bytes a pixel).
    pub fn new(texture: &Texture) -> TextureData {
        let mut sum = [0u64; 3];
        for px in texture.rgba.chunks_exact(4) {
            for c in 0..3 {
                sum[c] += px[c] as u64;
            }
        }
        let n = (texture.rgba.len() / 4).max(1) as u64;
        let average = Vec3::new(
            ((sum[0] + n / 2) / n) as f32,
            ((sum[1] + n / 2) / n) as f32,
            ((sum[2] + n / 2) / n) as f32,
        ) * (1.0 / 255.0);
        TextureData {
            width: texture.width,
            height: texture.height,
            rgba: texture.rgba.clone(),
            average,
            opaque: texture.rgba.chunks_exact(4).all(|px| px[3] >= 128),
        }
    }

    /// The texel (nearest neighbour) at quad coordinates `s`, `t` in -1..=1: `s = -1` is
    /// the image's left edge, `t = 1` its top.
    fn texel(&self, s: f32, t: f32) -> &[u8] {
        let x = ((s + 1.0) * 0.5 * self.width as f32) as u32;
        let y = ((1.0 - t) * 0.5 * self.height as f32) as u32;
        let (x, y) = (
            x.min(self.width - 1) as usize,
            y.min(self.height - 1) as usize,
        );
        let i = (y * self.width as usize + x) * 4;
        &self.rgba[i..i + 4]
    }

    pub fn rgb_at(&self, s: f32, t: f32) -> Col {
        let px = self.texel(s, t);
        Vec3::new(px[0] as f32, px[1] as f32, px[2] as f32) * (1.0 / 255.0)
    }

    /// Whether the texel at `s`, `t` stops a ray (alpha of at least 128).
    pub fn opaque_at(&self, s: f32, t: f32) -> bool {
        self.texel(s, t)[3] >= 128
    }
}

/// The light, normalised once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lighting {
    /// Unit vector towards the light (zero when the light has no direction).
    pub to_light: Vec3,
    pub intensity: f32,
    pub ambient: f32,
}

impl Lighting {
    /// How much light reaches a surface with normal `n` (facing the viewer) at distance
    /// `d`, given `lit` (false in shadow) and `n_dot_l`: the one-pixel reading of
    /// [`Lighting::bytes`], which a test holds it to.
    #[cfg(test)]
    fn amount(&self, n: Vec3, n_dot_l: f32, lit: bool, d: f32) -> f32 {
        let sky = 0.85 + 0.15 * n.y + 0.3 * (-n.y).max(0.0);
        let direct = if lit && n_dot_l > 0.0 {
            self.intensity * n_dot_l
        } else {
            0.0
        };
        (self.ambient * sky + direct) / (1.0 + 0.03 * d)
    }
}

impl Lighting {
    /// The bytes of `TILE` pixels (`[r, g, b][lane]`) from their albedos, the `y` of their
    /// normals, `n · l`, whether the light reaches them (a lane mask) and their distances:
    /// `byte(albedo × amount(..))`, written lane by lane so the compiler can do several
    /// at once.
    #[inline]
    pub fn bytes<const N: usize>(
        &self,
        albedo: &[[f32; N]; 3],
        n_y: &[f32; N],
        n_dot_l: &[f32; N],
        lit: &[u32; N],
        d: &[f32; N],
    ) -> [[u8; N]; 3] {
        let mut out = [[0u8; N]; 3];
        for l in 0..N {
            let down = -n_y[l];
            let sky = 0.85 + 0.15 * n_y[l] + 0.3 * pick_positive(down);
            let direct = self.intensity * n_dot_l[l];
            let on = lit[l] != 0 && n_dot_l[l] > 0.0;
            let direct = f32::from_bits(direct.to_bits() & (on as u32).wrapping_neg());
            let amount = (self.ambient * sky + direct) / (1.0 + 0.03 * d[l]);
            for k in 0..3 {
                out[k][l] = byte(albedo[k][l] * amount);
            }
        }
        out
    }
}

/// `max(v, 0)` for a lane (NaN gives 0), branch-free.
#[inline(always)]
fn pick_positive(v: f32) -> f32 {
    if v > 0.0 { v } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wave_is_a_sine_within_six_hundredths() {
        for i in -2000..2000 {
            let x = i as f32 / 997.0;
            let want = libm::sinf(2.0 * core::f32::consts::PI * x);
            assert!((wave(x) - want).abs() < 0.06, "{x}");
            assert!((wave(x) - wave(x + 1.0)).abs() < 1e-4, "period 1 at {x}");
        }
    }

    #[test]
    fn byte_rounds_and_saturates_as_clamping_first_would() {
        let clamped = |v: f32| ((if v > 1.0 { 1.0 } else { v }) * 255.0 + 0.5) as u8;
        let mut h = 0x9e37_79b9u32;
        let mut vs = vec![
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1.0,
            1.0 + f32::EPSILON,
        ];
        for _ in 0..200_000 {
            h ^= h << 13;
            h ^= h >> 17;
            h ^= h << 5;
            vs.push((h % 3_000_000) as f32 / 1_000_000.0 - 0.5);
            vs.push(f32::from_bits(h));
        }
        for v in vs {
            assert_eq!(byte(v), clamped(v), "{v}");
        }
    }

    #[test]
    fn bytes_are_byte_of_albedo_times_amount() {
        let light = Lighting {
            to_light: Vec3::new(0.3, 0.9, 0.1).normalize(),
            intensity: 0.65,
            ambient: 0.35,
        };
        let mut h = 0x2545_f491u32;
        let mut next = || {
            h ^= h << 13;
            h ^= h >> 17;
            h ^= h << 5;
            (h % 20_000) as f32 / 10_000.0 - 0.5
        };
        for _ in 0..2_000 {
            let mut albedo = [[0.0f32; 8]; 3];
            let (mut n_y, mut n_dot_l, mut lit, mut d) =
                ([0.0f32; 8], [0.0f32; 8], [0u32; 8], [0.0f32; 8]);
            for l in 0..8 {
                for a in albedo.iter_mut() {
                    a[l] = next() * 1.2;
                }
                (n_y[l], n_dot_l[l], d[l]) = (next(), next(), next().abs() * 20.0);
                lit[l] = if next() > 0.5 { u32::MAX } else { 0 };
            }
            let bytes = light.bytes(&albedo, &n_y, &n_dot_l, &lit, &d);
            for l in 0..8 {
                let amount =
                    light.amount(Vec3::new(0.0, n_y[l], 0.0), n_dot_l[l], lit[l] != 0, d[l]);
                for k in 0..3 {
                    assert_eq!(bytes[k][l], byte(albedo[k][l] * amount));
                }
            }
        }
    }

    #[test]
    fn floor_is_libm_floorf_bit_for_bit() {
        let mut xs = vec![
            0.0f32,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            1e-45,
            -1e-45,
            8_388_607.5,
            -8_388_607.5,
            8_388_608.0,
            -8_388_608.0,
            16_777_217.0,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        let mut h = 0x1234_5678u32;
        for _ in 0..200_000 {
            h ^= h << 13;
            h ^= h >> 17;
            h ^= h << 5;
            xs.push(f32::from_bits(h));
            xs.push((h % 2_000_000) as f32 / 1000.0 - 1000.0);
        }
        for x in xs {
            let (a, b) = (floor(x), libm::floorf(x));
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "{x}"
            );
        }
    }

    #[test]
    fn tiles_have_grout_on_their_edges() {
        let m = Material::Tiles {
            tile: Rgb(200, 200, 200),
            grout: Rgb(50, 50, 50),
            size: 0.5,
        };
        let shape = Shape::Cuboid {
            min: Vec3::ZERO,
            max: Vec3::ONE,
        };
        let s = Surface::new(&m, &shape, &[]);
        let g = s.albedo(Vec3::new(0.501, 0.0, 0.25), Vec3::Y, None, &[]);
        assert_eq!(g, col(Rgb(50, 50, 50)));
        let t = s.albedo(Vec3::new(0.75, 0.0, 0.25), Vec3::Y, None, &[]);
        assert!(t.x > 0.7);
    }

    #[test]
    fn wallpaper_alternates_stripes() {
        let m = Material::Wallpaper {
            base: Rgb(255, 0, 0),
            stripe: Rgb(0, 0, 255),
            stripe_width: 0.1,
        };
        let shape = Shape::Cuboid {
            min: Vec3::ZERO,
            max: Vec3::ONE,
        };
        let s = Surface::new(&m, &shape, &[]);
        let a = s.albedo(Vec3::new(0.05, 1.0, 3.0), Vec3::Z, None, &[]);
        let b = s.albedo(Vec3::new(0.15, 1.0, 3.0), Vec3::Z, None, &[]);
        assert_ne!(a, b);
        assert_eq!(a, s.albedo(Vec3::new(0.25, 1.7, 3.0), Vec3::Z, None, &[]));
    }

    #[test]
    fn texels_map_u_right_and_v_up() {
        // 2×2: red, green / blue, transparent
        let tex = TextureData::new(&Texture {
            width: 2,
            height: 2,
            rgba: vec![255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 0, 0, 0, 0],
        });
        assert_eq!(tex.rgb_at(-0.5, 0.5), Vec3::X);
        assert_eq!(tex.rgb_at(0.5, 0.5), Vec3::Y);
        assert_eq!(tex.rgb_at(-0.5, -0.5), Vec3::Z);
        assert!(!tex.opaque_at(0.5, -0.5));
        assert!(tex.opaque_at(1.0, 1.0));
    }
}
