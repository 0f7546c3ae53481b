//! Small geometry the generator needs: floor rectangles, boxes, and a ray–box test.
//!
//! Why our own: the layout checks (overlap, occupancy, "can the start see the door")
//! must work without the ray caster (written in parallel, and far more than these checks
//! need). Only IEEE basic operations are used, so results are the same on any machine.

use escapade_render::scene::{Shape, Vec3};
use serde::{Deserialize, Serialize};

/// An axis-aligned rectangle on the floor plane (`x` right, `z` forward), metres.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rect {
    /// Smallest `x`.
    pub x0: f32,
    /// Smallest `z`.
    pub z0: f32,
    /// Largest `x`.
    pub x1: f32,
    /// Largest `z`.
    pub z1: f32,
}

impl Rect {
    /// The rectangle of centre `(x, z)` and full size `w` × `d`.
    pub fn centered(x: f32, z: f32, w: f32, d: f32) -> Rect {
        Rect {
            x0: x - w / 2.0,
            z0: z - d / 2.0,
            x1: x + w / 2.0,
            z1: z + d / 2.0,
        }
    }

    /// Grown by `m` on every side (shrunk for negative `m`).
    pub fn grow(self, m: f32) -> Rect {
        Rect {
            x0: self.x0 - m,
            z0: self.z0 - m,
            x1: self.x1 + m,
            z1: self.z1 + m,
        }
    }

    /// Whether the two overlap with positive area.
    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.z0 < o.z1 && o.z0 < self.z1
    }

    /// Whether `o` lies inside (edges may touch).
    pub fn contains_rect(&self, o: &Rect) -> bool {
        o.x0 >= self.x0 && o.x1 <= self.x1 && o.z0 >= self.z0 && o.z1 <= self.z1
    }

    /// Whether the point lies inside (edges included).
    pub fn contains(&self, x: f32, z: f32) -> bool {
        x >= self.x0 && x <= self.x1 && z >= self.z0 && z <= self.z1
    }

    /// Centre `(x, z)`.
    pub fn center(&self) -> (f32, f32) {
        ((self.x0 + self.x1) / 2.0, (self.z0 + self.z1) / 2.0)
    }

    /// Width along `x`.
    pub fn width(&self) -> f32 {
        self.x1 - self.x0
    }

    /// Depth along `z`.
    pub fn depth(&self) -> f32 {
        self.z1 - self.z0
    }
}

/// An axis-aligned box in 3D.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// Smallest corner.
    pub min: Vec3,
    /// Largest corner.
    pub max: Vec3,
}

impl Aabb {
    /// The bounding box of a scene shape.
    pub fn of(shape: &Shape) -> Aabb {
        match *shape {
            Shape::Cuboid { min, max } => Aabb { min, max },
            Shape::Cylinder {
                base,
                radius,
                height,
            } => Aabb {
                min: Vec3::new(base.x - radius, base.y, base.z - radius),
                max: Vec3::new(base.x + radius, base.y + height, base.z + radius),
            },
            Shape::Sphere { center, radius } => Aabb {
                min: center - Vec3::splat(radius),
                max: center + Vec3::splat(radius),
            },
            Shape::Cone {
                base,
                radius,
                top,
                height,
            } => {
                let r = radius.max(top);
                Aabb {
                    min: Vec3::new(base.x - r, base.y, base.z - r),
                    max: Vec3::new(base.x + r, base.y + height, base.z + r),
                }
            }
            Shape::Quad { center, u, v } => {
                let ext = u.abs() + v.abs();
                Aabb {
                    min: center - ext,
                    max: center + ext,
                }
            }
        }
    }

    /// Where along `from + t·(to − from)`, `t` in `[0, 1]`, the segment first enters the
    /// box (slab method), or `None` if it misses.
    pub fn segment_hit(&self, from: Vec3, to: Vec3) -> Option<f32> {
        let d = to - from;
        let (mut t0, mut t1) = (0.0f32, 1.0f32);
        for a in 0..3 {
            let (o, dir, lo, hi) = (from[a], d[a], self.min[a], self.max[a]);
            if dir == 0.0 {
                if o < lo || o > hi {
                    return None;
                }
                continue;
            }
            let (mut near, mut far) = ((lo - o) / dir, (hi - o) / dir);
            if near > far {
                std::mem::swap(&mut near, &mut far);
            }
            t0 = t0.max(near);
            t1 = t1.min(far);
            if t0 > t1 {
                return None;
            }
        }
        Some(t0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rects() {
        let a = Rect::centered(1.0, 1.0, 2.0, 2.0);
        assert!(a.overlaps(&Rect::centered(2.5, 1.0, 2.0, 2.0)));
        assert!(
            !a.overlaps(&Rect::centered(3.0, 1.0, 2.0, 2.0)),
            "touching edges"
        );
        assert!(a.contains_rect(&Rect::centered(1.0, 1.0, 1.0, 1.0)));
        assert_eq!(a.grow(0.5).width(), 3.0);
    }

    #[test]
    fn segment_box() {
        let b = Aabb {
            min: Vec3::new(1.0, 0.0, -1.0),
            max: Vec3::new(2.0, 1.0, 1.0),
        };
        let hit = b.segment_hit(Vec3::new(0.0, 0.5, 0.0), Vec3::new(4.0, 0.5, 0.0));
        assert_eq!(hit, Some(0.25));
        assert_eq!(
            b.segment_hit(Vec3::new(0.0, 2.0, 0.0), Vec3::new(4.0, 2.0, 0.0)),
            None
        );
        assert_eq!(
            b.segment_hit(Vec3::new(0.0, 0.5, 0.0), Vec3::new(0.9, 0.5, 0.0)),
            None,
            "stops short"
        );
    }
}
