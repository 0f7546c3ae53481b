//! Ray–primitive intersection for the three shapes, on precomputed per-object data.
//!
//! Why precompute: a frame asks each primitive millions of questions, so everything that
//! depends only on the shape (a quad's unit normal and inverse-length axes, a cylinder's
//! squared radius and top) is worked out once in [`Geom::new`]. All arithmetic is IEEE
//! basic operations and `sqrt` (correctly rounded everywhere), never `mul_add`, so a hit is
//! the same on every machine. Degenerate shapes (an empty box, a zero radius, a quad whose
//! axes are parallel) become [`Geom::Empty`] and are never hit.

use glam::Vec3;

use crate::scene::Shape;

/// The nearest distance along a ray that counts as a hit: keeps a ray that starts on a
/// surface (a shadow ray) from hitting that surface again.
pub(crate) const T_MIN: f32 = 1e-4;

/// An axis-aligned bounding box.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Aabb {
    pub min: Vec3,
    pub max: Vec3,
}

impl Aabb {
    /// The box that contains nothing (`min` > `max`); growing it by a box gives that box.
    pub const EMPTY: Aabb = Aabb {
        min: Vec3::splat(f32::INFINITY),
        max: Vec3::splat(f32::NEG_INFINITY),
    };

    pub fn grow(self, other: Aabb) -> Aabb {
        Aabb {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// Half the surface area (the SAH only compares areas, so the factor 2 is dropped).
    /// Zero for an empty box.
    pub fn half_area(self) -> f32 {
        let e = self.max - self.min;
        if !(e.x >= 0.0 && e.y >= 0.0 && e.z >= 0.0) {
            return 0.0;
        }
        e.x * e.y + e.y * e.z + e.z * e.x
    }

    pub fn centroid(self) -> Vec3 {
        (self.min + self.max) * 0.5
    }
}

/// A ray with its reciprocal direction, ready for slab tests.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ray {
    pub origin: Vec3,
    pub dir: Vec3,
    pub inv: Vec3,
}

impl Ray {
    /// `dir` must be normalised (or at least non-zero and finite).
    pub fn new(origin: Vec3, dir: Vec3) -> Ray {
        Ray {
            origin,
            dir,
            inv: Vec3::new(1.0 / dir.x, 1.0 / dir.y, 1.0 / dir.z),
        }
    }

    /// Where the ray enters `[min, max]`, if it does no later than `t_max`: the entry distance
    /// (possibly negative when the origin is inside). Components where the direction is
    /// zero give infinities or NaN; the comparisons below are written so that NaN never
    /// makes a box hit or missed by accident of operand order.
    #[inline(always)]
    pub fn slab(&self, min: Vec3, max: Vec3, t_max: f32) -> Option<f32> {
        let (mut lo, mut hi) = (f32::NEG_INFINITY, t_max);
        for (o, inv, a, b) in [
            (self.origin.x, self.inv.x, min.x, max.x),
            (self.origin.y, self.inv.y, min.y, max.y),
            (self.origin.z, self.inv.z, min.z, max.z),
        ] {
            let t1 = (a - o) * inv;
            let t2 = (b - o) * inv;
            let (near, far) = if t1 < t2 { (t1, t2) } else { (t2, t1) };
            if near > lo {
                lo = near;
            }
            if far < hi {
                hi = far;
            }
        }
        (lo <= hi && hi >= T_MIN).then_some(lo)
    }
}

/// One object's geometry, prepared for intersection.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Geom {
    Cuboid {
        min: Vec3,
        max: Vec3,
    },
    Cylinder {
        cx: f32,
        cz: f32,
        r2: f32,
        y0: f32,
        y1: f32,
    },
    Sphere {
        center: Vec3,
        r2: f32,
        /// `1 / radius`, to make the normal.
        inv_r: f32,
    },
    /// A truncated cone: the axis at `(cx, cz)`, radius `r0` at `y0`, growing by `k`
    /// metres of radius per metre of height up to `y1` (where it is `r1`).
    Cone {
        cx: f32,
        cz: f32,
        r0: f32,
        r1: f32,
        k: f32,
        y0: f32,
        y1: f32,
    },
    Quad {
        center: Vec3,
        /// Unit normal (`u × v` normalised).
        normal: Vec3,
        /// `u / |u|²`: the dot product with `p - center` gives the texture's s in -1..=1.
        su: Vec3,
        /// `v / |v|²`.
        sv: Vec3,
    },
    Empty,
}

impl Geom {
    /// Prepares a shape; degenerate shapes become `Empty`. A cuboid's corners may come in
    /// either order.
    pub fn new(shape: &Shape) -> Geom {
        match *shape {
            Shape::Cuboid { min, max } => {
                let (lo, hi) = (min.min(max), min.max(max));
                if lo.x < hi.x && lo.y < hi.y && lo.z < hi.z {
                    Geom::Cuboid { min: lo, max: hi }
                } else {
                    Geom::Empty
                }
            }
            Shape::Cylinder {
                base,
                radius,
                height,
            } => {
                let r2 = radius * radius;
                let y1 = base.y + height;
                if radius > 0.0 && height > 0.0 && r2 > 0.0 && r2.is_finite() && y1 > base.y {
                    Geom::Cylinder {
                        cx: base.x,
                        cz: base.z,
                        r2,
                        y0: base.y,
                        y1,
                    }
                } else {
                    Geom::Empty
                }
            }
            Shape::Sphere { center, radius } => {
                let r2 = radius * radius;
                if radius > 0.0 && r2 > 0.0 && r2.is_finite() {
                    Geom::Sphere {
                        center,
                        r2,
                        inv_r: 1.0 / radius,
                    }
                } else {
                    Geom::Empty
                }
            }
            Shape::Cone {
                base,
                radius,
                top,
                height,
            } => {
                let y1 = base.y + height;
                let ok = radius >= 0.0
                    && top >= 0.0
                    && radius + top > 0.0
                    && (radius + top).is_finite()
                    && height > 0.0
                    && y1 > base.y;
                let k = (top - radius) / height;
                if ok && k.is_finite() {
                    Geom::Cone {
                        cx: base.x,
                        cz: base.z,
                        r0: radius,
                        r1: top,
                        k,
                        y0: base.y,
                        y1,
                    }
                } else {
                    Geom::Empty
                }
            }
            Shape::Quad { center, u, v } => {
                let (uu, vv) = (u.dot(u), v.dot(v));
                let n = u.cross(v);
                let len = n.length();
                if uu > 0.0 && vv > 0.0 && len > 0.0 && uu.is_finite() && vv.is_finite() {
                    let normal = n * (1.0 / len);
                    let (su, sv) = (u * (1.0 / uu), v * (1.0 / vv));
                    if normal.is_finite() && su.is_finite() && sv.is_finite() {
                        return Geom::Quad {
                            center,
                            normal,
                            su,
                            sv,
                        };
                    }
                }
                Geom::Empty
            }
        }
    }

    /// The box around the shape, `None` for an empty one.
    pub fn bounds(&self, shape: &Shape) -> Option<Aabb> {
        match (*self, shape) {
            (Geom::Cuboid { min, max }, _) => Some(Aabb { min, max }),
            (Geom::Cylinder { cx, cz, y0, y1, .. }, Shape::Cylinder { radius, .. }) => {
                let r = radius.abs();
                Some(Aabb {
                    min: Vec3::new(cx - r, y0, cz - r),
                    max: Vec3::new(cx + r, y1, cz + r),
                })
            }
            (Geom::Sphere { center, .. }, Shape::Sphere { radius, .. }) => {
                let r = Vec3::splat(radius.abs());
                Some(Aabb {
                    min: center - r,
                    max: center + r,
                })
            }
            (
                Geom::Cone {
                    cx,
                    cz,
                    r0,
                    r1,
                    y0,
                    y1,
                    ..
                },
                _,
            ) => {
                let r = r0.max(r1);
                Some(Aabb {
                    min: Vec3::new(cx - r, y0, cz - r),
                    max: Vec3::new(cx + r, y1, cz + r),
                })
            }
            (Geom::Quad { center, .. }, Shape::Quad { u, v, .. }) => {
                let e = u.abs() + v.abs();
                Some(Aabb {
                    min: center - e,
                    max: center + e,
                })
            }
            _ => None,
        }
    }

    /// The nearest hit in `T_MIN..=t_max`: its distance and the surface normal there (unit,
    /// not yet turned towards the ray).
    #[inline]
    pub fn intersect(&self, ray: &Ray, t_max: f32) -> Option<(f32, Vec3)> {
        match *self {
            Geom::Cuboid { min, max } => cuboid(ray, min, max, t_max),
            Geom::Cylinder { cx, cz, r2, y0, y1 } => cylinder(ray, cx, cz, r2, y0, y1, t_max),
            Geom::Sphere { center, r2, inv_r } => {
                let oc = ray.origin - center;
                sphere_from(oc, oc.dot(oc) - r2, inv_r, ray.dir, t_max)
            }
            Geom::Cone {
                cx,
                cz,
                r0,
                r1,
                k,
                y0,
                y1,
            } => {
                let o = ray.origin;
                cone_from(o.y, o.x - cx, o.z - cz, [r0, r1, k, y0, y1], ray.dir, t_max)
            }
            Geom::Quad {
                center,
                normal,
                su,
                sv,
            } => {
                let t = quad(ray, center, normal, su, sv, t_max)?.0;
                Some((t, normal))
            }
            Geom::Empty => None,
        }
    }
}

#[inline]
fn cuboid(ray: &Ray, min: Vec3, max: Vec3, t_max: f32) -> Option<(f32, Vec3)> {
    // the slab test, remembering which axis set the entry and which the exit
    let (mut lo, mut hi) = (f32::NEG_INFINITY, f32::INFINITY);
    let (mut lo_axis, mut hi_axis) = (0, 0);
    let o = ray.origin.to_array();
    let inv = ray.inv.to_array();
    let (a, b) = (min.to_array(), max.to_array());
    for axis in 0..3 {
        let t1 = (a[axis] - o[axis]) * inv[axis];
        let t2 = (b[axis] - o[axis]) * inv[axis];
        let (near, far) = if t1 < t2 { (t1, t2) } else { (t2, t1) };
        if near > lo {
            lo = near;
            lo_axis = axis;
        }
        if far < hi {
            hi = far;
            hi_axis = axis;
        }
    }
    // lo and hi are never NaN: they only take values that compared greater or less
    if lo > hi {
        return None;
    }
    let (t, axis) = if lo >= T_MIN {
        (lo, lo_axis)
    } else {
        (hi, hi_axis)
    };
    if !(t >= T_MIN && t <= t_max) {
        return None;
    }
    let mut n = [0.0; 3];
    n[axis] = 1.0;
    Some((t, Vec3::from_array(n)))
}

fn cylinder(
    ray: &Ray,
    cx: f32,
    cz: f32,
    r2: f32,
    y0: f32,
    y1: f32,
    t_max: f32,
) -> Option<(f32, Vec3)> {
    let o = ray.origin;
    let (ox, oz) = (o.x - cx, o.z - cz);
    let c = ox * ox + oz * oz - r2;
    cylinder_from(o.y, ox, oz, c, ray.dir, r2, y0, y1, t_max)
}

/// [`cylinder`] on what depends only on the ray's origin (`o.y`, the origin relative to
/// the axis `ox`, `oz`, and `c = ox² + oz² - r²`), so rays from one point can share it.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn cylinder_from(
    oy: f32,
    ox: f32,
    oz: f32,
    c: f32,
    d: Vec3,
    r2: f32,
    y0: f32,
    y1: f32,
    t_max: f32,
) -> Option<(f32, Vec3)> {
    let mut best = t_max;
    let mut normal = None;
    // the side: (ox + t dx)² + (oz + t dz)² = r²
    let a = d.x * d.x + d.z * d.z;
    if a > 0.0 {
        let h = ox * d.x + oz * d.z;
        let disc = h * h - a * c;
        if disc >= 0.0 {
            let s = disc.sqrt();
            for t in [(-h - s) / a, (-h + s) / a] {
                if t >= T_MIN && t <= best {
                    let y = oy + t * d.y;
                    if y >= y0 && y <= y1 {
                        best = t;
                        normal = Some(Vec3::new(ox + t * d.x, 0.0, oz + t * d.z));
                        break;
                    }
                }
            }
        }
    }
    // the two discs
    discs(oy, ox, oz, d, [(y0, r2), (y1, r2)], &mut best, &mut normal);
    unit_normal(best, normal)
}

/// The discs closing an upright shape, at heights `y` of squared radius `r²`: a nearer
/// hit than `best` on one replaces it (its normal is up or down).
#[inline(always)]
fn discs(
    oy: f32,
    ox: f32,
    oz: f32,
    d: Vec3,
    discs: [(f32, f32); 2],
    best: &mut f32,
    normal: &mut Option<Vec3>,
) {
    if d.y != 0.0 {
        for (y, r2) in discs {
            let t = (y - oy) / d.y;
            if t >= T_MIN && t <= *best {
                let (px, pz) = (ox + t * d.x, oz + t * d.z);
                if px * px + pz * pz <= r2 {
                    *best = t;
                    *normal = Some(Vec3::Y);
                }
            }
        }
    }
}

/// The hit at `best` with `normal` made a unit vector (up when it has no length).
#[inline(always)]
fn unit_normal(best: f32, normal: Option<Vec3>) -> Option<(f32, Vec3)> {
    let n = normal?;
    let len = n.length();
    let n = if len > 0.0 { n * (1.0 / len) } else { Vec3::Y };
    Some((best, n))
}

/// A sphere hit from what depends only on the ray's origin: `oc` (the origin relative
/// to the centre) and `c = oc · oc - r²`; `d` must be a unit vector. The near root, or
/// the far one from inside.
#[inline]
pub(crate) fn sphere_from(
    oc: Vec3,
    c: f32,
    inv_r: f32,
    d: Vec3,
    t_max: f32,
) -> Option<(f32, Vec3)> {
    let h = oc.x * d.x + oc.y * d.y + oc.z * d.z;
    let disc = h * h - c;
    // (NaN misses too)
    if disc.is_nan() || disc < 0.0 {
        return None;
    }
    let s = disc.sqrt();
    let near = -h - s;
    let t = if near >= T_MIN { near } else { -h + s };
    if !(t >= T_MIN && t <= t_max) {
        return None;
    }
    let n = Vec3::new(oc.x + t * d.x, oc.y + t * d.y, oc.z + t * d.z) * inv_r;
    Some((t, n))
}

/// A truncated cone hit from what depends only on the ray's origin (its height `oy` and
/// its place relative to the axis, `ox`, `oz`); `[r0, r1, k, y0, y1]` as in
/// [`Geom::Cone`]. The side is where `x² + z² = r(y)²` with `r(y) = r0 + k (y - y0) ≥ 0`,
/// then the two discs; the nearest hit in `T_MIN..=t_max` wins.
#[inline]
pub(crate) fn cone_from(
    oy: f32,
    ox: f32,
    oz: f32,
    [r0, r1, k, y0, y1]: [f32; 5],
    d: Vec3,
    t_max: f32,
) -> Option<(f32, Vec3)> {
    let mut best = t_max;
    let mut normal = None;
    // the radius where the ray starts, and how fast it changes along the ray
    let q = r0 + k * (oy - y0);
    let kd = k * d.y;
    let a = d.x * d.x + d.z * d.z - kd * kd;
    let h = ox * d.x + oz * d.z - q * kd;
    let c = ox * ox + oz * oz - q * q;
    let mut side = |t: f32| {
        if t >= T_MIN && t <= best {
            let y = oy + t * d.y;
            let r = q + t * kd;
            if y >= y0 && y <= y1 && r >= 0.0 {
                best = t;
                normal = Some(Vec3::new(ox + t * d.x, -k * r, oz + t * d.z));
            }
        }
    };
    if a != 0.0 {
        let disc = h * h - a * c;
        if disc >= 0.0 {
            let s = disc.sqrt();
            let (t1, t2) = ((-h - s) / a, (-h + s) / a);
            let (t1, t2) = if t1 <= t2 { (t1, t2) } else { (t2, t1) };
            side(t1);
            side(t2);
        }
    } else if h != 0.0 {
        side(-c / (2.0 * h));
    }
    discs(
        oy,
        ox,
        oz,
        d,
        [(y0, r0 * r0), (y1, r1 * r1)],
        &mut best,
        &mut normal,
    );
    unit_normal(best, normal)
}

/// A quad hit: distance and the texture coordinates `(s, t)`, each in -1..=1.
#[inline]
pub(crate) fn quad(
    ray: &Ray,
    center: Vec3,
    normal: Vec3,
    su: Vec3,
    sv: Vec3,
    t_max: f32,
) -> Option<(f32, f32, f32)> {
    let denom = ray.dir.dot(normal);
    if denom == 0.0 {
        return None;
    }
    let t = (center - ray.origin).dot(normal) / denom;
    if !(t >= T_MIN && t <= t_max) {
        return None;
    }
    let rel = ray.origin + ray.dir * t - center;
    let (s, tt) = (rel.dot(su), rel.dot(sv));
    ((-1.0..=1.0).contains(&s) && (-1.0..=1.0).contains(&tt)).then_some((t, s, tt))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ray(o: [f32; 3], d: [f32; 3]) -> Ray {
        Ray::new(Vec3::from_array(o), Vec3::from_array(d).normalize())
    }

    #[test]
    fn a_box_is_hit_on_its_near_face_and_from_inside_on_its_far_face() {
        let g = Geom::new(&Shape::Cuboid {
            min: Vec3::splat(-1.0),
            max: Vec3::splat(1.0),
        });
        let (t, n) = g
            .intersect(&ray([0.0, 0.0, -5.0], [0.0, 0.0, 1.0]), 100.0)
            .unwrap();
        assert_eq!((t, n), (4.0, Vec3::Z));
        let (t, n) = g
            .intersect(&ray([0.0, 0.5, 0.0], [1.0, 0.0, 0.0]), 100.0)
            .unwrap();
        assert_eq!((t, n), (1.0, Vec3::X));
        assert!(
            g.intersect(&ray([0.0, 3.0, -5.0], [0.0, 0.0, 1.0]), 100.0)
                .is_none()
        );
        assert!(
            g.intersect(&ray([0.0, 0.0, -5.0], [0.0, 0.0, 1.0]), 3.0)
                .is_none()
        );
    }

    #[test]
    fn a_cylinder_is_hit_on_its_side_and_its_top() {
        let g = Geom::new(&Shape::Cylinder {
            base: Vec3::ZERO,
            radius: 1.0,
            height: 2.0,
        });
        let (t, n) = g
            .intersect(&ray([-5.0, 1.0, 0.0], [1.0, 0.0, 0.0]), 100.0)
            .unwrap();
        assert_eq!((t, n), (4.0, Vec3::new(-1.0, 0.0, 0.0)));
        let (t, n) = g
            .intersect(&ray([0.2, 5.0, 0.0], [0.0, -1.0, 0.0]), 100.0)
            .unwrap();
        assert_eq!((t, n), (3.0, Vec3::Y));
        assert!(
            g.intersect(&ray([-5.0, 2.5, 0.0], [1.0, 0.0, 0.0]), 100.0)
                .is_none()
        );
    }

    #[test]
    fn a_sphere_is_hit_on_its_near_side_and_from_inside() {
        let g = Geom::new(&Shape::Sphere {
            center: Vec3::new(0.0, 1.0, 3.0),
            radius: 0.5,
        });
        let (t, n) = g
            .intersect(&ray([0.0, 1.0, 0.0], [0.0, 0.0, 1.0]), 100.0)
            .unwrap();
        assert_eq!((t, n), (2.5, -Vec3::Z));
        let (t, n) = g
            .intersect(&ray([0.0, 1.0, 3.0], [1.0, 0.0, 0.0]), 100.0)
            .unwrap();
        assert_eq!((t, n), (0.5, Vec3::X));
        assert!(
            g.intersect(&ray([0.0, 1.6, 0.0], [0.0, 0.0, 1.0]), 100.0)
                .is_none()
        );
        assert!(
            g.intersect(&ray([0.0, 1.0, 0.0], [0.0, 0.0, 1.0]), 2.0)
                .is_none()
        );
    }

    #[test]
    fn a_cone_is_hit_on_its_slanted_side_and_its_discs() {
        // radius 1 at the floor, 0.5 at height 1
        let g = Geom::new(&Shape::Cone {
            base: Vec3::ZERO,
            radius: 1.0,
            top: 0.5,
            height: 1.0,
        });
        // level at height 0.5 the radius is 0.75; the normal leans up by the slope
        let (t, n) = g
            .intersect(&ray([-5.0, 0.5, 0.0], [1.0, 0.0, 0.0]), 100.0)
            .unwrap();
        assert!((t - 4.25).abs() < 1e-5, "{t}");
        let want = Vec3::new(-1.0, 0.5, 0.0).normalize();
        assert!((n - want).length() < 1e-5, "{n}");
        // from above: the top disc inside 0.5, the slanted side between 0.5 and 1
        let (t, n) = g
            .intersect(&ray([0.3, 5.0, 0.0], [0.0, -1.0, 0.0]), 100.0)
            .unwrap();
        assert_eq!((t, n), (4.0, Vec3::Y));
        let (t, _) = g
            .intersect(&ray([0.75, 5.0, 0.0], [0.0, -1.0, 0.0]), 100.0)
            .unwrap();
        assert!((t - 4.5).abs() < 1e-5, "{t}");
        assert!(
            g.intersect(&ray([1.1, 5.0, 0.0], [0.0, -1.0, 0.0]), 100.0)
                .is_none()
        );
        // a point at the top (a spike): the mirror cone above it is not there
        let spike = Geom::new(&Shape::Cone {
            base: Vec3::ZERO,
            radius: 1.0,
            top: 0.0,
            height: 1.0,
        });
        assert!(
            spike
                .intersect(&ray([-5.0, 1.5, 0.0], [1.0, 0.0, 0.0]), 100.0)
                .is_none()
        );
    }

    #[test]
    fn a_quad_is_hit_inside_its_edges_from_both_sides() {
        let g = Geom::new(&Shape::Quad {
            center: Vec3::new(0.0, 1.0, 2.0),
            u: Vec3::new(0.5, 0.0, 0.0),
            v: Vec3::new(0.0, 0.25, 0.0),
        });
        assert_eq!(
            g.intersect(&ray([0.0, 1.0, 0.0], [0.0, 0.0, 1.0]), 9.0)
                .unwrap()
                .0,
            2.0
        );
        assert_eq!(
            g.intersect(&ray([0.4, 1.2, 5.0], [0.0, 0.0, -1.0]), 9.0)
                .unwrap()
                .0,
            3.0
        );
        assert!(
            g.intersect(&ray([0.6, 1.0, 0.0], [0.0, 0.0, 1.0]), 9.0)
                .is_none()
        );
    }

    #[test]
    fn degenerate_shapes_are_never_hit() {
        for shape in [
            Shape::Cuboid {
                min: Vec3::ZERO,
                max: Vec3::new(1.0, 0.0, 1.0),
            },
            Shape::Cylinder {
                base: Vec3::ZERO,
                radius: 0.0,
                height: 1.0,
            },
            Shape::Cylinder {
                base: Vec3::ZERO,
                radius: 1.0,
                height: -1.0,
            },
            Shape::Quad {
                center: Vec3::ZERO,
                u: Vec3::X,
                v: Vec3::X * 2.0,
            },
            Shape::Sphere {
                center: Vec3::ZERO,
                radius: 0.0,
            },
            Shape::Cone {
                base: Vec3::ZERO,
                radius: 0.0,
                top: 0.0,
                height: 1.0,
            },
            Shape::Cone {
                base: Vec3::ZERO,
                radius: 1.0,
                top: -0.5,
                height: 1.0,
            },
        ] {
            assert!(matches!(Geom::new(&shape), Geom::Empty), "{shape:?}");
        }
    }
}
