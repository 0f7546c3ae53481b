//! Drawing a frame tile by tile, so neighbouring rays share their work.
//!
//! Why: walking the BVH afresh for every pixel cost thousands of instructions a pixel.
//! Neighbouring rays meet the same few objects, so for each `TILE` × `TILE` block of
//! pixels the frame first asks the BVH, once, which objects the block's pyramid of rays
//! may touch (conservatively) and sorts them by how near they can possibly be; each pixel
//! then tests only those, stopping at the first that cannot beat its nearest hit. Shadow
//! rays do the same with the box swept from the block's hit points towards the light,
//! narrowed row by row.
//!
//! How it stays cheap (about 380 instructions a pixel): all primary rays start at the
//! eye, so what depends only on the eye (a box's corners relative to it, a quad's
//! distance term, a cylinder's constant) is worked out once per tile; a row's 16 rays are
//! kept lane by lane (`[x, y, z][lane]`) and cuboids and quads are tested against all
//! lanes at once with lane masks instead of branches, which the compiler turns into
//! vector instructions; lighting and the final bytes are done lane by lane too. Every
//! lane does the very IEEE operations the one-ray code does, in the same order, so the
//! bytes are those of testing each ray alone. All shadow rays share one direction, and
//! any caster will do for them, so the one that blocked the last ray is tried first.
//!
//! The answer is the one the BVH gives ([`Prepared::cast`] and picking use it): the
//! candidate lists are supersets of what a ray can hit, and both paths pick the nearest
//! hit by (distance, object index). Tiles sit on a fixed grid of the image and bands of
//! `TILE` rows are the unit of parallel work, so neither the thread count nor the order
//! tiles run in can change a byte.

// Lane loops (`for l in 0..TILE`) index several arrays by the same lane on purpose: that
// is the shape the compiler turns into vector instructions.
#![allow(clippy::needless_range_loop)]

use glam::Vec3;

use super::bvh::{self, Stack};
use super::camera::View;
use super::intersect::{Aabb, Geom, Ray, T_MIN, cone_from, cylinder_from, quad};
use super::{Nearest, Prepared, SHADOW_BIAS};

/// Side of a tile, pixels.
pub(crate) const TILE: usize = 16;
/// Tiles side by side that share one gathering of candidates.
const BLOCK: usize = 4;

/// An object a tile's rays may hit, with a lower bound on the distance of any hit, and
/// how to test it.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    near: f32,
    object: u32,
    test: Test,
}

/// How a candidate is tested against a row of rays. Every primary ray starts at the eye,
/// so what depends only on the eye is worked out once per tile, by the very operations the
/// one-ray tests in `intersect` do per ray.
#[derive(Debug, Clone, Copy)]
enum Test {
    /// A cuboid: its corners relative to the eye (`min - origin`, `max - origin`).
    Cuboid { lo: Vec3, hi: Vec3 },
    /// A quad without a texture to see through: `(center - origin) · normal`, and the quad.
    Quad {
        k: f32,
        center: Vec3,
        normal: Vec3,
        su: Vec3,
        sv: Vec3,
    },
    /// A cylinder: the eye's height, the eye relative to the axis, `ox² + oz² - r²`
    /// (see `intersect::cylinder_from`), and the cylinder.
    Cylinder {
        oy: f32,
        ox: f32,
        oz: f32,
        c: f32,
        r2: f32,
        y0: f32,
        y1: f32,
    },
    /// A sphere: the eye relative to its centre, `oc · oc - r²` and `1 / r` (see
    /// `intersect::sphere_from`).
    Sphere { oc: Vec3, c: f32, inv_r: f32 },
    /// A cone: the eye's height, the eye relative to the axis, and the cone (see
    /// `intersect::cone_from`).
    Cone {
        oy: f32,
        ox: f32,
        oz: f32,
        cone: [f32; 5],
    },
    /// Anything else (a quad with a texture to see through), through `hit_object`, one
    /// ray at a time.
    Other,
}

/// A shadow caster a tile's shadow rays may meet; a cuboid carries its box, so the
/// any-hit test is a bare slab test.
#[derive(Debug, Clone, Copy)]
struct Caster {
    object: u32,
    cuboid: bool,
    min: Vec3,
    max: Vec3,
}

/// What one row of a tile saw, lane by lane, between the primary and the shadow pass:
/// the nearest hits, the points (`[x, y, z][lane]`), the normals turned towards the eye,
/// and their cosines with the light. Lanes past the tile's edge or that hit nothing hold
/// garbage besides `best.object == NONE`.
#[derive(Clone, Copy)]
struct Seen {
    best: RowBest,
    p: [[f32; TILE]; 3],
    n: [[f32; TILE]; 3],
    n_dot_l: [f32; TILE],
}

impl Seen {
    /// A row that saw nothing (scratch rows are written in place, never moved).
    const EMPTY: Seen = Seen {
        best: RowBest {
            t: [0.0; TILE],
            object: [NONE; TILE],
            axis: [0; TILE],
            s: [0.0; TILE],
            tt: [0.0; TILE],
            normal: [Vec3::ZERO; TILE],
        },
        p: [[0.0; TILE]; 3],
        n: [[0.0; TILE]; 3],
        n_dot_l: [0.0; TILE],
    };
}

/// Scratch space for one band of tiles, reused from tile to tile (`seen` holds a row of
/// the tile per entry).
pub(crate) struct Scratch {
    stack: Stack,
    candidates: Vec<Candidate>,
    casters: Vec<Caster>,
    /// The tile's casters that one row's shadow rays may meet.
    row_casters: Vec<Caster>,
    /// Per row of the tile: the box around its shadow rays' starting points.
    row_boxes: [Aabb; TILE],
    seen: Vec<Seen>,
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch {
            stack: bvh::new_stack(),
            candidates: Vec::new(),
            casters: Vec::new(),
            row_casters: Vec::new(),
            row_boxes: [Aabb::EMPTY; TILE],
            seen: vec![Seen::EMPTY; TILE],
        }
    }
}

impl Prepared {
    /// Draws the band of rows starting at row `y0` into `rows` (whole rows of RGB).
    ///
    /// On a CPU with AVX2 the same code is compiled for it and taken: the lane loops then
    /// do eight lanes at a time instead of four. The bytes cannot differ — the program's
    /// arithmetic (IEEE basic operations, each correctly rounded; never a fused
    /// multiply-add, which Rust does not form on its own) is the same, only how many lanes
    /// an instruction holds changes; a test compares the two paths.
    #[allow(unsafe_code)] // the AVX2 call: see its SAFETY comment
    pub(crate) fn draw_band(
        &self,
        view: &View,
        width: usize,
        y0: usize,
        rows: &mut [u8],
        scratch: &mut Scratch,
    ) {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: `draw_band_avx2` needs AVX2, and the CPU has it (checked just above).
            unsafe { self.draw_band_avx2(view, width, y0, rows, scratch) };
            return;
        }
        self.draw_band_any(view, width, y0, rows, scratch);
    }

    /// [`Prepared::draw_band_any`] compiled for AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[allow(unsafe_code)] // needs AVX2, which only its caller can check
    unsafe fn draw_band_avx2(
        &self,
        view: &View,
        width: usize,
        y0: usize,
        rows: &mut [u8],
        scratch: &mut Scratch,
    ) {
        self.draw_band_any(view, width, y0, rows, scratch);
    }

    /// [`Prepared::draw_band`] for any CPU (inlined into the AVX2 copy too).
    #[inline(always)]
    pub(crate) fn draw_band_any(
        &self,
        view: &View,
        width: usize,
        y0: usize,
        rows: &mut [u8],
        scratch: &mut Scratch,
    ) {
        let height = rows.len() / (width * 3);
        // the candidates are gathered once for a block of tiles side by side (a superset
        // for each of its tiles, sorted by a bound that holds for each)
        for bx in (0..width).step_by(TILE * BLOCK) {
            let bx1 = (bx + TILE * BLOCK).min(width);
            self.gather(view, (bx, bx1), (y0, height), scratch);
            for x0 in (bx..bx1).step_by(TILE) {
                let x1 = (x0 + TILE).min(width);
                self.draw_tile(view, width, (x0, x1), (y0, height), rows, scratch);
            }
        }
    }

    #[inline(always)]
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
        let Scratch {
            stack,
            casters,
            row_casters,
            row_boxes,
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
                |o| {
                    let b = self.bounds[o as usize];
                    casters.push(Caster {
                        object: o,
                        cuboid: matches!(self.geoms[o as usize], Geom::Cuboid { .. }),
                        min: b.min,
                        max: b.max,
                    })
                },
            );
        }
        // every shadow ray goes the same way: its reciprocal direction is worked out once
        let towards_light = Ray::new(Vec3::ZERO, light.to_light);
        // the caster that blocked the last shadow ray, tried first for the next one
        let mut last = 0usize;

        // shading
        // never more than a tile (saying so spares the lane loops their bounds checks)
        let w = (x1 - x0).min(TILE);
        for (y, row) in seen[..h].iter().enumerate() {
            // the casters this row's shadow rays may meet: a tile's shadow box is often
            // much larger than a row's (a row spans less depth)
            row_casters.clear();
            let row_box = row_boxes[y];
            if row_box.min.x <= row_box.max.x {
                row_casters.extend(
                    casters
                        .iter()
                        .filter(|c| sweep_may_touch(row_box, light.to_light, c.min, c.max)),
                );
            }
            // albedo run by run of pixels that hit the same object (a material is picked
            // once per run), then the shadow rays, then the light lane by lane
            let mut albedo = [[0.0f32; TILE]; 3];
            let mut from = 0;
            while from < w {
                let object = row.best.object[from];
                let mut to = from + 1;
                while to < w && row.best.object[to] == object {
                    to += 1;
                }
                if object != NONE {
                    let st = (row.best.axis[from] == QUAD).then_some((&row.best.s, &row.best.tt));
                    self.looks[object as usize].surface.albedo_run(
                        &row.p,
                        &row.n,
                        st,
                        (from, to),
                        &self.textures,
                        &mut albedo,
                    );
                }
                from = to;
            }
            let mut lit = [0u32; TILE];
            if needs_shadow && row_casters.is_empty() {
                // nothing can shade this row: every surface facing the light is lit
                for l in 0..TILE {
                    lit[l] = mask(row.best.object[l] != NONE) & mask(row.n_dot_l[l] > 0.0);
                }
            } else if needs_shadow {
                for l in 0..w {
                    if row.best.object[l] == NONE
                        || row.n_dot_l[l].is_nan()
                        || row.n_dot_l[l] <= 0.0
                    {
                        continue;
                    }
                    let p = Vec3::new(row.p[0][l], row.p[1][l], row.p[2][l]);
                    let n = Vec3::new(row.n[0][l], row.n[1][l], row.n[2][l]);
                    lit[l] = mask(!self.blocked(
                        &Ray {
                            origin: p + n * SHADOW_BIAS,
                            ..towards_light
                        },
                        row_casters,
                        &mut last,
                    ));
                }
            }
            let mut bytes = light.bytes(&albedo, &row.n[1], &row.n_dot_l, &lit, &row.best.t);
            let bg = self.background;
            for l in 0..TILE {
                let none = row.best.object[l] == NONE;
                for (k, c) in [bg.0, bg.1, bg.2].into_iter().enumerate() {
                    bytes[k][l] = if none { c } else { bytes[k][l] };
                }
            }
            let start = (y * width + x0) * 3;
            for (l, px) in rows[start..start + w * 3].chunks_exact_mut(3).enumerate() {
                px.copy_from_slice(&[bytes[0][l], bytes[1][l], bytes[2][l]]);
            }
        }
    }

    /// Gathers into `scratch.candidates` the objects the pyramid of rays through the
    /// pixels `x0..x1` × `y0..y0 + h` may touch, nearest possible first.
    #[inline(always)]
    fn gather(
        &self,
        view: &View,
        (x0, x1): (usize, usize),
        (y0, h): (usize, usize),
        scratch: &mut Scratch,
    ) {
        let frustum = view.frustum(x0 as f32, y0 as f32, x1 as f32, (y0 + h) as f32);
        let origin = view.origin;
        let Scratch {
            stack, candidates, ..
        } = scratch;
        candidates.clear();
        self.bvh.collect(
            stack,
            |min, max| frustum.may_touch(min, max),
            |object| {
                let b = self.bounds[object as usize];
                if let Some(near) = frustum.entry_bound(b.min, b.max) {
                    let i = object as usize;
                    let test = match self.geoms[i] {
                        Geom::Cuboid { min, max } => Test::Cuboid {
                            lo: min - origin,
                            hi: max - origin,
                        },
                        Geom::Quad {
                            center,
                            normal,
                            su,
                            sv,
                        } if self.looks[i].alpha.is_none() => Test::Quad {
                            k: (center - origin).dot(normal),
                            center,
                            normal,
                            su,
                            sv,
                        },
                        Geom::Cylinder { cx, cz, r2, y0, y1 } => {
                            let (ox, oz) = (origin.x - cx, origin.z - cz);
                            Test::Cylinder {
                                oy: origin.y,
                                ox,
                                oz,
                                c: ox * ox + oz * oz - r2,
                                r2,
                                y0,
                                y1,
                            }
                        }
                        Geom::Sphere { center, r2, inv_r } => {
                            let oc = origin - center;
                            Test::Sphere {
                                oc,
                                c: oc.dot(oc) - r2,
                                inv_r,
                            }
                        }
                        Geom::Cone {
                            cx,
                            cz,
                            r0,
                            r1,
                            k,
                            y0,
                            y1,
                        } => Test::Cone {
                            oy: origin.y,
                            ox: origin.x - cx,
                            oz: origin.z - cz,
                            cone: [r0, r1, k, y0, y1],
                        },
                        _ => Test::Other,
                    };
                    candidates.push(Candidate { near, object, test });
                }
            },
        );
        candidates.sort_unstable_by(|a, b| a.near.total_cmp(&b.near).then(a.object.cmp(&b.object)));
    }

    /// Casts the primary rays of the tile `x0..x1` × `y0..y0 + h` against the gathered
    /// candidates (a superset of what they can hit, see [`Prepared::gather`]) into
    /// `scratch.seen` (row by row); returns the box around the starting points of the
    /// shadow rays to come (and leaves each row's in `scratch.row_boxes`).
    #[inline(always)]
    fn primary(
        &self,
        view: &View,
        (x0, x1): (usize, usize),
        (y0, h): (usize, usize),
        scratch: &mut Scratch,
    ) -> Aabb {
        let origin = view.origin;
        let Scratch {
            candidates,
            row_boxes,
            seen,
            ..
        } = scratch;

        // primary rays
        let light = self.lighting;
        let needs_shadow = light.intensity > 0.0;
        // never more than a tile (saying so spares the lane loops their bounds checks)
        let w = (x1 - x0).min(TILE);
        let o = origin.to_array();
        let to_light = light.to_light.to_array();
        for (k, (y, row_box)) in (y0..y0 + h).zip(row_boxes.iter_mut()).enumerate() {
            // written in place: every field a later step reads is set below (lanes that
            // hit nothing keep stale values nobody reads)
            let row = &mut seen[k];
            let (d, inv) = view.dirs::<TILE>(x0, y);
            self.nearest_in_row(origin, &d, &inv, w, candidates, &mut row.best);
            let best = &row.best;
            for l in 0..TILE {
                // a cuboid's face normal, turned to face the ray: `facing` for a unit
                // axis, whose dot product with the direction is that coordinate
                let axis = best.axis[l];
                let along = pick(
                    mask(axis == 0),
                    d[0][l],
                    pick(mask(axis == 1), d[1][l], d[2][l]),
                );
                let flip = mask(along > 0.0) & 0x8000_0000;
                for (k, n) in row.n.iter_mut().enumerate() {
                    n[l] = f32::from_bits((mask(axis == k as u32) & 1.0f32.to_bits()) ^ flip);
                }
            }
            // quads and cylinders (most rows have none)
            let others = best.axis.iter().any(|&a| a >= QUAD);
            for l in (0..w).filter(|_| others) {
                if best.object[l] == NONE || best.axis[l] < QUAD {
                    continue;
                }
                let dir = Vec3::new(d[0][l], d[1][l], d[2][l]);
                let normal = match (best.axis[l], self.geoms[best.object[l] as usize]) {
                    (QUAD, Geom::Quad { normal, .. }) => normal,
                    _ => best.normal[l],
                };
                let n = facing(normal, dir);
                (row.n[0][l], row.n[1][l], row.n[2][l]) = (n.x, n.y, n.z);
            }
            for l in 0..TILE {
                let t = best.t[l];
                for k in 0..3 {
                    row.p[k][l] = o[k] + d[k][l] * t;
                }
                row.n_dot_l[l] = row.n[0][l] * to_light[0]
                    + row.n[1][l] * to_light[1]
                    + row.n[2][l] * to_light[2];
            }
            let mut shadow_box = Aabb::EMPTY;
            if needs_shadow {
                for l in 0..w {
                    if best.object[l] != NONE && row.n_dot_l[l] > 0.0 {
                        let p = Vec3::new(row.p[0][l], row.p[1][l], row.p[2][l]);
                        let n = Vec3::new(row.n[0][l], row.n[1][l], row.n[2][l]);
                        let q = p + n * SHADOW_BIAS;
                        shadow_box = shadow_box.grow(Aabb { min: q, max: q });
                    }
                }
            }
            *row_box = shadow_box;
        }
        row_boxes[..h]
            .iter()
            .fold(Aabb::EMPTY, |acc, &b| acc.grow(b))
    }

    /// The nearest hit of each of the first `w` rays of a row (directions `d`, reciprocals
    /// `inv`, lane by lane) among `candidates` (sorted by `near`), by (distance, object
    /// index). Lane by lane this is exactly the one-ray loop "stop at the first candidate
    /// that cannot beat the nearest hit so far, else test it": a lane takes part in a
    /// candidate only while that candidate could still beat its hit, and the answer does
    /// not depend on the order the candidates come in. Cuboids are tested on all lanes at
    /// once (on their eye-relative corners, branch-free, so the compiler can use vector
    /// instructions); their normal is made only for the hit that wins.
    #[inline(always)]
    fn nearest_in_row(
        &self,
        origin: Vec3,
        d: &[[f32; TILE]; 3],
        inv: &[[f32; TILE]; 3],
        w: usize,
        candidates: &[Candidate],
        best: &mut RowBest,
    ) {
        let w = w.min(TILE);
        // lanes past the tile's edge take part in nothing
        for (l, t) in best.t.iter_mut().enumerate() {
            *t = if l < w {
                f32::INFINITY
            } else {
                f32::NEG_INFINITY
            };
        }
        best.object = [NONE; TILE];
        for c in candidates {
            if best.t.iter().all(|&t| c.near > t) {
                break;
            }
            let i = c.object as i32;
            match c.test {
                Test::Cuboid { lo, hi } => {
                    cuboid_lanes(c.near, i, lo.to_array(), hi.to_array(), inv, best);
                    continue;
                }
                Test::Quad {
                    k,
                    center,
                    normal,
                    su,
                    sv,
                } => {
                    let quad = [center, normal, su, sv];
                    quad_lanes(c.near, i, k, origin, quad, d, best);
                    continue;
                }
                Test::Cylinder {
                    oy,
                    ox,
                    oz,
                    c: cc,
                    r2,
                    y0,
                    y1,
                } => {
                    curved_lanes(c.near, i, w, d, best, |dir, t_max| {
                        cylinder_from(oy, ox, oz, cc, dir, r2, y0, y1, t_max)
                    });
                    continue;
                }
                Test::Sphere { oc, c: cc, inv_r } => {
                    sphere_lanes(c.near, i, oc, cc, inv_r, d, best);
                    continue;
                }
                Test::Cone { oy, ox, oz, cone } => {
                    curved_lanes(c.near, i, w, d, best, |dir, t_max| {
                        cone_from(oy, ox, oz, cone, dir, t_max)
                    });
                    continue;
                }
                Test::Other => {}
            }
            for l in 0..w {
                let t_max = best.t[l];
                if c.near > t_max {
                    continue;
                }
                let ray = Ray {
                    origin,
                    dir: Vec3::new(d[0][l], d[1][l], d[2][l]),
                    inv: Vec3::new(inv[0][l], inv[1][l], inv[2][l]),
                };
                let Some(hit) = self.hit_object(&ray, i as usize, t_max) else {
                    continue;
                };
                if hit.t < t_max || i < best.object[l] {
                    best.t[l] = hit.t;
                    best.object[l] = i;
                    best.normal[l] = hit.normal;
                    match hit.st {
                        Some((s, tt)) => {
                            best.axis[l] = QUAD;
                            (best.s[l], best.tt[l]) = (s, tt);
                        }
                        None => best.axis[l] = CURVED,
                    }
                }
            }
        }
    }

    /// Whether any of `casters` blocks `ray` (which goes towards the light). Any blocker
    /// will do, so the one that blocked the previous ray (`last`) is tried first.
    #[inline(always)]
    fn blocked(&self, ray: &Ray, casters: &[Caster], last: &mut usize) -> bool {
        let blocks = |c: &Caster| {
            if c.cuboid {
                // `hit_object(..).is_some()` for a cuboid and no distance limit
                ray.slab(c.min, c.max, f32::INFINITY).is_some()
            } else {
                self.hit_object(ray, c.object as usize, f32::INFINITY)
                    .is_some()
            }
        };
        if let Some(c) = casters.get(*last)
            && blocks(c)
        {
            return true;
        }
        for (k, c) in casters.iter().enumerate() {
            if k != *last && blocks(c) {
                *last = k;
                return true;
            }
        }
        false
    }

    /// Object `i`'s nearest hit along `ray` no farther than `t_max`, skipping
    /// transparent texels. Both the BVH walk and the tiles go through this.
    #[inline(always)]
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

/// No object (in [`RowBest::object`]).
const NONE: i32 = i32::MAX;
/// A quad (in [`RowBest::axis`]): its normal is the quad's, its texture coordinates are
/// in [`RowBest::s`] and [`RowBest::tt`].
const QUAD: u32 = 3;
/// A cylinder (in [`RowBest::axis`]): its normal is in [`RowBest::normal`].
const CURVED: u32 = 4;

/// The nearest hit so far of each ray of a tile row.
#[derive(Clone, Copy)]
struct RowBest {
    /// Its distance (the most a new hit may be), `-inf` for lanes past the edge.
    t: [f32; TILE],
    /// Its object, or [`NONE`].
    object: [i32; TILE],
    /// For a cuboid, the axis of the face hit; else [`QUAD`] or [`CURVED`].
    axis: [u32; TILE],
    /// A quad's texture coordinates.
    s: [f32; TILE],
    tt: [f32; TILE],
    /// A cylinder's normal.
    normal: [Vec3; TILE],
}

/// All ones when `c`, else zero: a lane mask.
#[inline(always)]
fn mask(c: bool) -> u32 {
    (c as u32).wrapping_neg()
}

/// `if m { a } else { b }` for a lane mask `m`, on the bits (so it stays branch-free and
/// the compiler can do several lanes at once; the value is exactly `a` or `b`).
#[inline(always)]
fn pick(m: u32, a: f32, b: f32) -> f32 {
    f32::from_bits((a.to_bits() & m) | (b.to_bits() & !m))
}

/// Cuboid `object` (corners `a`, `b` relative to the eye; no hit nearer than `near`)
/// against every lane of a row: `intersect::cuboid` and the (distance, object index) rule,
/// written with lane masks instead of branches.
#[inline(always)]
fn cuboid_lanes(
    near: f32,
    object: i32,
    a: [f32; 3],
    b: [f32; 3],
    inv: &[[f32; TILE]; 3],
    best: &mut RowBest,
) {
    for l in 0..TILE {
        let t_max = best.t[l];
        let (mut lo, mut hi) = (f32::NEG_INFINITY, f32::INFINITY);
        let (mut lo_axis, mut hi_axis) = (0u32, 0u32);
        for axis in 0..3 {
            let t1 = a[axis] * inv[axis][l];
            let t2 = b[axis] * inv[axis][l];
            let less = mask(t1 < t2);
            let (n, f) = (pick(less, t1, t2), pick(less, t2, t1));
            let enter = mask(n > lo);
            lo = pick(enter, n, lo);
            lo_axis = (axis as u32 & enter) | (lo_axis & !enter);
            let leave = mask(f < hi);
            hi = pick(leave, f, hi);
            hi_axis = (axis as u32 & leave) | (hi_axis & !leave);
        }
        let front = mask(lo >= T_MIN);
        let t = pick(front, lo, hi);
        let axis = (lo_axis & front) | (hi_axis & !front);
        let take = !mask(near > t_max)
            & !mask(lo > hi)
            & mask(t >= T_MIN)
            & mask(t <= t_max)
            & (mask(t < t_max) | mask(object < best.object[l]));
        best.t[l] = pick(take, t, t_max);
        best.object[l] = (object & take as i32) | (best.object[l] & !(take as i32));
        best.axis[l] = (axis & take) | (best.axis[l] & !take);
    }
}

/// Opaque quad `object` (`k = (center - origin) · normal`, `[center, normal, su, sv]`;
/// no hit nearer than `near`) against every lane of a row: `intersect::quad` and the
/// (distance, object index) rule, with lane masks instead of branches.
#[inline(always)]
fn quad_lanes(
    near: f32,
    object: i32,
    k: f32,
    origin: Vec3,
    [c, n, su, sv]: [Vec3; 4],
    d: &[[f32; TILE]; 3],
    best: &mut RowBest,
) {
    for l in 0..TILE {
        let t_max = best.t[l];
        let (dx, dy, dz) = (d[0][l], d[1][l], d[2][l]);
        let denom = dx * n.x + dy * n.y + dz * n.z;
        let t = k / denom;
        let (rx, ry, rz) = (
            origin.x + dx * t - c.x,
            origin.y + dy * t - c.y,
            origin.z + dz * t - c.z,
        );
        let s = rx * su.x + ry * su.y + rz * su.z;
        let tt = rx * sv.x + ry * sv.y + rz * sv.z;
        let take = !mask(near > t_max)
            & mask(denom != 0.0)
            & mask(t >= T_MIN)
            & mask(t <= t_max)
            & mask(-1.0 <= s)
            & mask(s <= 1.0)
            & mask(-1.0 <= tt)
            & mask(tt <= 1.0)
            & (mask(t < t_max) | mask(object < best.object[l]));
        best.t[l] = pick(take, t, t_max);
        best.object[l] = (object & take as i32) | (best.object[l] & !(take as i32));
        best.axis[l] = (QUAD & take) | (best.axis[l] & !take);
        best.s[l] = pick(take, s, best.s[l]);
        best.tt[l] = pick(take, tt, best.tt[l]);
    }
}

/// A curved `object` (no hit nearer than `near`) against the first `w` lanes of a row,
/// one lane at a time: `hit(direction, t_max)` is its one-ray test (a cylinder's or a
/// cone's), and the (distance, object index) rule decides; the winner's normal is kept.
#[inline(always)]
fn curved_lanes(
    near: f32,
    object: i32,
    w: usize,
    d: &[[f32; TILE]; 3],
    best: &mut RowBest,
    hit: impl Fn(Vec3, f32) -> Option<(f32, Vec3)>,
) {
    for l in 0..w.min(TILE) {
        let t_max = best.t[l];
        if near > t_max {
            continue;
        }
        let Some((t, normal)) = hit(Vec3::new(d[0][l], d[1][l], d[2][l]), t_max) else {
            continue;
        };
        if t < t_max || object < best.object[l] {
            best.t[l] = t;
            best.object[l] = object;
            best.normal[l] = normal;
            best.axis[l] = CURVED;
        }
    }
}

/// Sphere `object` (`oc` the eye relative to its centre, `c = oc · oc - r²`; no hit
/// nearer than `near`) against every lane of a row: `intersect::sphere_from` and the
/// (distance, object index) rule, with lane masks instead of branches; the winner's
/// normal is kept.
#[inline(always)]
fn sphere_lanes(
    near: f32,
    object: i32,
    oc: Vec3,
    c: f32,
    inv_r: f32,
    d: &[[f32; TILE]; 3],
    best: &mut RowBest,
) {
    for l in 0..TILE {
        let t_max = best.t[l];
        let (dx, dy, dz) = (d[0][l], d[1][l], d[2][l]);
        let h = oc.x * dx + oc.y * dy + oc.z * dz;
        let disc = h * h - c;
        let root = pick(mask(disc >= 0.0), disc, 0.0).sqrt();
        let near_root = -h - root;
        let t = pick(mask(near_root >= T_MIN), near_root, -h + root);
        let take = !mask(near > t_max)
            & mask(disc >= 0.0)
            & mask(t >= T_MIN)
            & mask(t <= t_max)
            & (mask(t < t_max) | mask(object < best.object[l]));
        best.t[l] = pick(take, t, t_max);
        best.object[l] = (object & take as i32) | (best.object[l] & !(take as i32));
        best.axis[l] = (CURVED & take) | (best.axis[l] & !take);
        let n = Vec3::new(oc.x + t * dx, oc.y + t * dy, oc.z + t * dz) * inv_r;
        let old = best.normal[l];
        best.normal[l] = Vec3::new(
            pick(take, n.x, old.x),
            pick(take, n.y, old.y),
            pick(take, n.z, old.z),
        );
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
            let shape = match k % 5 {
                0 => Shape::Cuboid {
                    min: c - e,
                    max: c + e,
                },
                1 => Shape::Cylinder {
                    base: c,
                    radius: e.x,
                    height: e.y * 4.0,
                },
                2 => Shape::Sphere {
                    center: c,
                    radius: e.y,
                },
                3 => Shape::Cone {
                    base: c,
                    radius: e.x,
                    top: e.z * (k % 2) as f32,
                    height: e.y * 3.0,
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

    /// Views of the jumble: from outside it, and from its middle (boxes beside and
    /// behind the eye), narrow to the original's 147.8°.
    fn cameras() -> Vec<Camera> {
        [
            (0.0, 0.0, 90.0, Vec3::new(0.3, 0.2, -6.0)),
            (123.0, -40.0, 60.0, Vec3::new(0.3, 0.2, -6.0)),
            (-70.0, 75.0, 150.0, Vec3::new(0.3, 0.2, -6.0)),
            (200.0, -89.0, 20.0, Vec3::new(0.3, 0.2, -6.0)),
            (30.0, 5.0, 147.8, Vec3::new(0.1, 0.0, 0.2)),
            (250.0, -20.0, 120.0, Vec3::new(-1.3, 0.4, 1.1)),
        ]
        .into_iter()
        .map(|(yaw, pitch, fov, position)| Camera {
            position,
            yaw,
            pitch,
            fov,
        })
        .collect()
    }

    #[test]
    fn every_cpu_path_draws_the_same_bytes() {
        let mut scene = jumble();
        // every material, so every shading path is compared
        let materials = [
            Material::Wood {
                light: Rgb(200, 150, 100),
                dark: Rgb(120, 80, 40),
                scale: 0.05,
            },
            Material::Tiles {
                tile: Rgb(220, 220, 210),
                grout: Rgb(90, 90, 90),
                size: 0.3,
            },
            Material::Fabric {
                base: Rgb(70, 100, 150),
                weave: Rgb(50, 80, 120),
            },
            Material::Wallpaper {
                base: Rgb(226, 214, 190),
                stripe: Rgb(200, 190, 170),
                stripe_width: 0.12,
            },
        ];
        for (k, o) in scene.objects.iter_mut().enumerate() {
            o.material = materials[k % materials.len()].clone();
        }
        let p = Prepared::new(&scene).unwrap();
        let (w, h) = (160usize, 96usize);
        for camera in cameras() {
            let view = View::new(&camera, w as u32, h as u32);
            let mut any = vec![0u8; w * 3 * h];
            let mut best = vec![0u8; w * 3 * h];
            let mut scratch = Scratch::new();
            for (band, (a, b)) in any
                .chunks_mut(w * 3 * TILE)
                .zip(best.chunks_mut(w * 3 * TILE))
                .enumerate()
            {
                p.draw_band_any(&view, w, band * TILE, a, &mut scratch);
                p.draw_band(&view, w, band * TILE, b, &mut scratch);
            }
            let first = any.iter().zip(&best).position(|(a, b)| a != b);
            assert_eq!(first, None, "{camera:?}: byte {first:?} differs");
        }
    }

    #[test]
    fn tiles_see_what_the_bvh_sees() {
        let p = Prepared::new(&jumble()).unwrap();
        let (w, h) = (96usize, 48usize);
        for camera in cameras() {
            let view = View::new(&camera, w as u32, h as u32);
            let mut scratch = Scratch::new();
            for y0 in (0..h).step_by(TILE) {
                for x0 in (0..w).step_by(TILE) {
                    let (x1, th) = ((x0 + TILE).min(w), TILE.min(h - y0));
                    // gathered for the tile alone, and for a block around it
                    let bx = x0 - x0 % (TILE * BLOCK);
                    let wide = if (x0 / TILE).is_multiple_of(2) {
                        (x0, x1)
                    } else {
                        (bx, (bx + TILE * BLOCK).min(w))
                    };
                    p.gather(&view, wide, (y0, th), &mut scratch);
                    p.primary(&view, (x0, x1), (y0, th), &mut scratch);
                    assert_eq!(scratch.seen.len(), th);
                    for (k, row) in scratch.seen.iter().enumerate() {
                        for l in 0..x1 - x0 {
                            let (x, y) = (x0 + l, y0 + k);
                            let ray =
                                Ray::new(view.origin, view.dir(x as f32 + 0.5, y as f32 + 0.5));
                            let want = p.nearest(&ray, f32::INFINITY).map(|n| (n.object, n.t));
                            let object = row.best.object[l];
                            assert_eq!(
                                (object != NONE).then_some((object as usize, row.best.t[l])),
                                want,
                                "pixel {x},{y} of {camera:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}
