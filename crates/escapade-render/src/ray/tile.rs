//! Drawing a frame tile by tile, so neighbouring rays share their work.
//!
//! Why: walking the BVH afresh for every pixel cost thousands of instructions a pixel.
//! Neighbouring rays meet the same few objects, so for each `TILE` × `TILE` block of
//! pixels the frame first asks the BVH, once, which objects the block's pyramid of rays
//! may touch (conservatively) and sorts them by how near they can possibly be; each pixel
//! then tests only those, stopping at the first that cannot beat its nearest hit. Shadow
//! rays do the same with the box swept from the block's hit points towards the light.
//!
//! The answer is the one the BVH gives ([`Prepared::cast`] and picking use it): the
//! candidate lists are supersets of what a ray can hit, and both paths pick the nearest
//! hit by (distance, object index). Tiles sit on a fixed grid of the image and bands of
//! `TILE` rows are the unit of parallel work, so neither the thread count nor the order
//! tiles run in can change a byte.

use glam::Vec3;

use super::bvh::{self, Stack};
use super::camera::View;
use super::intersect::{Aabb, Geom, Ray, quad};
use super::{Nearest, Prepared, SHADOW_BIAS, shade};

/// Side of a tile, pixels.
pub(crate) const TILE: usize = 16;

/// An object a tile's rays may hit, with a lower bound on the distance of any hit.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    near: f32,
    object: u32,
}

/// What one pixel of a tile saw, between the primary and the shadow pass.
#[derive(Debug, Clone, Copy)]
struct Seen {
    hit: Option<Nearest>,
    dir: Vec3,
}

/// Scratch space for one band of tiles, reused from tile to tile.
pub(crate) struct Scratch {
    stack: Stack,
    candidates: Vec<Candidate>,
    casters: Vec<u32>,
    seen: Vec<Seen>,
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch {
            stack: bvh::new_stack(),
            candidates: Vec::new(),
            casters: Vec::new(),
            seen: Vec::with_capacity(TILE * TILE),
        }
    }
}

impl Prepared {
    /// Draws the band of rows starting at row `y0` into `rows` (whole rows of RGB).
    pub(crate) fn draw_band(
        &self,
        view: &View,
        width: usize,
        y0: usize,
        rows: &mut [u8],
        scratch: &mut Scratch,
    ) {
        let height = rows.len() / (width * 3);
        for x0 in (0..width).step_by(TILE) {
            let x1 = (x0 + TILE).min(width);
            self.draw_tile(view, width, (x0, x1), (y0, height), rows, scratch);
        }
    }

    fn draw_tile(
        &self,
        view: &View,
        width: usize,
        (x0, x1): (usize, usize),
        (y0, h): (usize, usize),
        rows: &mut [u8],
        scratch: &mut Scratch,
    ) {
        let shadow_box = self.primary(view, (x0, x1), (y0, h), scratch);
        let light = self.lighting;
        let needs_shadow = light.intensity > 0.0;
        let origin = view.origin;
        let Scratch {
            stack,
            casters,
            seen,
            ..
        } = scratch;

        // the shadow casters the tile's shadow rays may meet
        casters.clear();
        if shadow_box.min.x <= shadow_box.max.x {
            let to_light = light.to_light;
            self.shadow_bvh.collect(
                stack,
                |min, max| sweep_may_touch(shadow_box, to_light, min, max),
                |o| casters.push(o),
            );
        }

        // shading
        let w = x1 - x0;
        for (y, line) in seen.chunks_exact(w).enumerate() {
            let start = (y * width + x0) * 3;
            for (s, px) in line
                .iter()
                .zip(rows[start..start + w * 3].chunks_exact_mut(3))
            {
                let Some(hit) = s.hit else {
                    let b = self.background;
                    px.copy_from_slice(&[b.0, b.1, b.2]);
                    continue;
                };
                let n = facing(hit.normal, s.dir);
                let p = origin + s.dir * hit.t;
                let albedo = self.looks[hit.object]
                    .surface
                    .albedo(p, n, hit.st, &self.textures);
                let n_dot_l = n.dot(light.to_light);
                let lit = n_dot_l > 0.0
                    && needs_shadow
                    && !self.blocked(p + n * SHADOW_BIAS, light.to_light, casters);
                let c = albedo * light.amount(n, n_dot_l, lit, hit.t);
                px.copy_from_slice(&[shade::byte(c.x), shade::byte(c.y), shade::byte(c.z)]);
            }
        }
    }

    /// Casts the tile's primary rays into `scratch.seen` (row by row); returns the box
    /// around the starting points of the shadow rays to come.
    fn primary(
        &self,
        view: &View,
        (x0, x1): (usize, usize),
        (y0, h): (usize, usize),
        scratch: &mut Scratch,
    ) -> Aabb {
        // the candidates: objects the tile's pyramid (widened by half a pixel) may touch,
        // nearest possible first
        let frustum = view.frustum(x0 as f32, y0 as f32, x1 as f32, (y0 + h) as f32);
        let origin = view.origin;
        let Scratch {
            stack,
            candidates,
            seen,
            ..
        } = scratch;
        candidates.clear();
        self.bvh.collect(
            stack,
            |min, max| frustum.may_touch(min, max),
            |object| {
                let b = self.bounds[object as usize];
                if let Some(near) = frustum.entry_bound(b.min, b.max) {
                    candidates.push(Candidate { near, object });
                }
            },
        );
        candidates.sort_unstable_by(|a, b| a.near.total_cmp(&b.near).then(a.object.cmp(&b.object)));

        // primary rays
        seen.clear();
        let light = self.lighting;
        let needs_shadow = light.intensity > 0.0;
        let mut shadow_box = Aabb::EMPTY;
        for y in y0..y0 + h {
            let py = y as f32 + 0.5;
            for x in x0..x1 {
                let dir = view.dir(x as f32 + 0.5, py);
                let ray = Ray::new(origin, dir);
                let hit = self.nearest_of(&ray, candidates);
                if let (true, Some(h)) = (needs_shadow, &hit) {
                    let n = facing(h.normal, dir);
                    if n.dot(light.to_light) > 0.0 {
                        let p = origin + dir * h.t + n * SHADOW_BIAS;
                        shadow_box = shadow_box.grow(Aabb { min: p, max: p });
                    }
                }
                seen.push(Seen { hit, dir });
            }
        }
        shadow_box
    }

    /// The nearest hit among `candidates` (sorted by `near`), by (distance, object index).
    fn nearest_of(&self, ray: &Ray, candidates: &[Candidate]) -> Option<Nearest> {
        let mut best: Option<Nearest> = None;
        let mut t_max = f32::INFINITY;
        for c in candidates {
            if c.near > t_max {
                break;
            }
            let i = c.object as usize;
            let Some(hit) = self.hit_object(ray, i, t_max) else {
                continue;
            };
            if best
                .as_ref()
                .is_none_or(|b| hit.t < b.t || (hit.t == b.t && i < b.object))
            {
                t_max = hit.t;
                best = Some(hit);
            }
        }
        best
    }

    /// Whether any of `casters` blocks the ray from `origin` towards the light.
    fn blocked(&self, origin: Vec3, dir: Vec3, casters: &[u32]) -> bool {
        if casters.is_empty() {
            return false;
        }
        let ray = Ray::new(origin, dir);
        casters
            .iter()
            .any(|&i| self.hit_object(&ray, i as usize, f32::INFINITY).is_some())
    }

    /// Object `i`'s nearest hit along `ray` no farther than `t_max`, skipping
    /// transparent texels. Both the BVH walk and the tiles go through this.
    #[inline]
    pub(super) fn hit_object(&self, ray: &Ray, i: usize, t_max: f32) -> Option<Nearest> {
        match self.geoms[i] {
            Geom::Quad {
                center,
                normal,
                su,
                sv,
            } => {
                let (t, s, tt) = quad(ray, center, normal, su, sv, t_max)?;
                let transparent = self.looks[i]
                    .alpha
                    .is_some_and(|tex| !self.textures[tex].opaque_at(s, tt));
                if transparent {
                    return None;
                }
                Some(Nearest {
                    object: i,
                    t,
                    normal,
                    st: Some((s, tt)),
                })
            }
            geom => {
                let (t, normal) = geom.intersect(ray, t_max)?;
                Some(Nearest {
                    object: i,
                    t,
                    normal,
                    st: None,
                })
            }
        }
    }
}

/// `n` turned to face against `dir`.
#[inline]
pub(super) fn facing(n: Vec3, dir: Vec3) -> Vec3 {
    if n.dot(dir) > 0.0 { -n } else { n }
}

/// Whether a ray from somewhere in `from` going along `dir` may meet the box
/// `[min, max]`: whether the ray from the origin along `dir` meets the box
/// `[min - from.max, max - from.min]` (their Minkowski difference), widened by a margin.
fn sweep_may_touch(from: Aabb, dir: Vec3, min: Vec3, max: Vec3) -> bool {
    let lo = (min - from.max).to_array();
    let hi = (max - from.min).to_array();
    let d = dir.to_array();
    let (mut t0, mut t1) = (0.0f32, f32::INFINITY);
    for axis in 0..3 {
        let m = 1e-3 + (lo[axis].abs() + hi[axis].abs()) * 1e-5;
        let (a, b) = (lo[axis] - m, hi[axis] + m);
        if d[axis] == 0.0 {
            if !(a <= 0.0 && 0.0 <= b) && a.is_finite() && b.is_finite() {
                return false;
            }
            continue;
        }
        let (ta, tb) = (a / d[axis], b / d[axis]);
        let (near, far) = if ta < tb { (ta, tb) } else { (tb, ta) };
        if near > t0 {
            t0 = near;
        }
        if far < t1 {
            t1 = far;
        }
    }
    // t0 and t1 are never NaN: they only take values that compared greater or less
    t0 <= t1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rgb;
    use crate::scene::{Camera, Light, Material, Object, Scene, Shape};

    /// A jumble of boxes, cylinders and quads, some huge, some inside others.
    fn jumble() -> Scene {
        let mut objects = Vec::new();
        let mut h = 12345u32;
        let mut next = || {
            h ^= h << 13;
            h ^= h >> 17;
            h ^= h << 5;
            (h % 1000) as f32 / 100.0 - 5.0
        };
        for k in 0..60 {
            let c = Vec3::new(next(), next() * 0.5, next());
            let e = Vec3::new(
                next().abs() * 0.2 + 0.01,
                next().abs() * 0.2 + 0.01,
                next().abs() * 0.2 + 0.01,
            );
            let shape = match k % 3 {
                0 => Shape::Cuboid {
                    min: c - e,
                    max: c + e,
                },
                1 => Shape::Cylinder {
                    base: c,
                    radius: e.x,
                    height: e.y * 4.0,
                },
                _ => Shape::Quad {
                    center: c,
                    u: Vec3::new(e.x, 0.0, e.z),
                    v: Vec3::new(0.0, e.y, 0.0),
                },
            };
            objects.push(Object {
                shape,
                material: Material::Flat(Rgb(200, 100, 50)),
                id: Some(k),
                casts_shadow: true,
            });
        }
        objects.push(Object {
            shape: Shape::Cuboid {
                min: Vec3::splat(-8.0),
                max: Vec3::new(8.0, -2.0, 8.0),
            },
            material: Material::Flat(Rgb(90, 90, 90)),
            id: None,
            casts_shadow: false,
        });
        Scene {
            objects,
            textures: vec![],
            light: Light {
                direction: Vec3::new(0.2, -1.0, 0.1),
                intensity: 0.7,
                ambient: 0.3,
            },
            background: Rgb(0, 0, 0),
        }
    }

    #[test]
    fn tiles_see_what_the_bvh_sees() {
        let p = Prepared::new(&jumble()).unwrap();
        let (w, h) = (96usize, 48usize);
        for (yaw, pitch, fov) in [
            (0.0, 0.0, 90.0),
            (123.0, -40.0, 60.0),
            (-70.0, 75.0, 150.0),
            (200.0, -89.0, 20.0),
        ] {
            let camera = Camera {
                position: Vec3::new(0.3, 0.2, -6.0),
                yaw,
                pitch,
                fov,
            };
            let view = View::new(&camera, w as u32, h as u32);
            let mut scratch = Scratch::new();
            for y0 in (0..h).step_by(TILE) {
                for x0 in (0..w).step_by(TILE) {
                    let (x1, th) = ((x0 + TILE).min(w), TILE.min(h - y0));
                    p.primary(&view, (x0, x1), (y0, th), &mut scratch);
                    for (k, seen) in scratch.seen.iter().enumerate() {
                        let (x, y) = (x0 + k % (x1 - x0), y0 + k / (x1 - x0));
                        let ray = Ray::new(view.origin, view.dir(x as f32 + 0.5, y as f32 + 0.5));
                        let want = p.nearest(&ray, f32::INFINITY).map(|n| (n.object, n.t));
                        assert_eq!(
                            seen.hit.map(|n| (n.object, n.t)),
                            want,
                            "pixel {x},{y} of {camera:?}"
                        );
                    }
                }
            }
        }
    }
}
