//! The agent's body in a room: its pose, turning, and walking with collisions.
//!
//! Why its own module: the environment moves the agent and the oracle plans its walks
//! with the same arithmetic, so a planned walk ends exactly where the environment puts
//! the agent. The body is a disc of [`AGENT_RADIUS`] on the floor plane; it stops at the
//! first contact with a wall or with the footprint of blocking furniture or a floor prop
//! (the obstacles of [`crate::layout::Grid`]), the way MM-Escape's "move forward"
//! (C.1.2) stops at an obstacle. Only basic float operations and `libm` are used.

use escapade_render::scene::{Camera, Vec3};

use crate::geom::Rect;
use crate::room::{AGENT_RADIUS, EYE_HEIGHT, PlacedProp, Room, Support};

/// How far short of an obstacle a blocked walk stops, metres.
pub const CONTACT_GAP: f32 = 0.01;
/// Steepest tilt of the view, degrees (up or down).
pub const MAX_PITCH: f32 = 89.0;

/// Where the agent stands and looks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Body {
    /// Position `x`, metres.
    pub x: f32,
    /// Position `z`, metres.
    pub z: f32,
    /// Heading, degrees in `[0, 360)`: 0 looks along `+z`, 90 along `+x`.
    pub yaw: f32,
    /// Tilt, degrees: positive looks up (the camera's convention).
    pub pitch: f32,
}

impl Body {
    /// Standing at a room's start pose, looking level.
    pub fn start(room: &Room) -> Body {
        Body {
            x: room.start.x,
            z: room.start.z,
            yaw: wrap(room.start.yaw),
            pitch: 0.0,
        }
    }

    /// The eye camera with horizontal field of view `fov`.
    pub fn camera(&self, fov: f32) -> Camera {
        Camera {
            position: Vec3::new(self.x, EYE_HEIGHT, self.z),
            yaw: self.yaw,
            pitch: self.pitch,
            fov,
        }
    }

    /// Turned right by `right` degrees and tilted down by `down` degrees (the tilt is
    /// clamped to ±[`MAX_PITCH`]).
    pub fn turned(&self, right: f32, down: f32) -> Body {
        Body {
            yaw: wrap(self.yaw + right),
            pitch: (self.pitch - down).clamp(-MAX_PITCH, MAX_PITCH),
            ..*self
        }
    }

    /// Looking along the unit direction `d` (the view's new centre).
    pub fn aimed(&self, d: Vec3) -> Body {
        let yaw = wrap(libm::atan2f(d.x, d.z).to_degrees());
        let pitch = libm::asinf(d.y.clamp(-1.0, 1.0)).to_degrees();
        Body {
            yaw,
            pitch: pitch.clamp(-MAX_PITCH, MAX_PITCH),
            ..*self
        }
    }

    /// The unit heading on the floor plane.
    pub fn heading(&self) -> (f32, f32) {
        let r = self.yaw.to_radians();
        (libm::sinf(r), libm::cosf(r))
    }
}

/// `deg` in `[0, 360)`.
pub fn wrap(deg: f32) -> f32 {
    let w = deg % 360.0;
    let w = if w < 0.0 { w + 360.0 } else { w };
    if w >= 360.0 { 0.0 } else { w }
}

/// What the body cannot walk into in one room.
#[derive(Debug, Clone, PartialEq)]
pub struct Obstacles {
    /// The floor area the body's centre may occupy (the room shrunk by the radius).
    pub inside: Rect,
    /// Footprints grown by the radius, with the label of what they are.
    pub blocks: Vec<(Rect, String)>,
}

impl Obstacles {
    /// The obstacles of `room` (the same as [`crate::layout::Grid::of`] uses).
    pub fn of(room: &Room) -> Obstacles {
        let mut blocks: Vec<(Rect, String)> = room
            .furniture
            .iter()
            .filter(|f| f.kind.spec().blocks)
            .map(|f| {
                (
                    crate::furniture::footprint(f.kind, &f.placement).grow(AGENT_RADIUS),
                    f.kind.label().to_string(),
                )
            })
            .collect();
        for p in room.props.iter().filter(|p| p.support == Support::Floor) {
            blocks.push((
                PlacedProp::footprint(p).grow(AGENT_RADIUS),
                room.chain
                    .prop(&p.id)
                    .map(|c| c.kind.name())
                    .unwrap_or("prop")
                    .to_string(),
            ));
        }
        Obstacles {
            inside: Rect {
                x0: AGENT_RADIUS,
                z0: AGENT_RADIUS,
                x1: room.width - AGENT_RADIUS,
                z1: room.depth - AGENT_RADIUS,
            },
            blocks,
        }
    }

    /// How far the body at `(x, z)` can walk along the unit direction `(dx, dz)`, up to
    /// `want` metres, and what stops it (`None`: nothing, it walked all the way).
    /// Obstacles the body already overlaps do not stop it, so it can always back out.
    pub fn walk(&self, x: f32, z: f32, dx: f32, dz: f32, want: f32) -> (f32, Option<String>) {
        let mut best = want;
        let mut what: Option<String> = None;
        // the walls: leaving `inside`
        let r = self.inside;
        let exit_t = |p: f32, d: f32, lo: f32, hi: f32| -> f32 {
            if d > 0.0 {
                (hi - p) / d
            } else if d < 0.0 {
                (lo - p) / d
            } else {
                f32::INFINITY
            }
        };
        let inside_now = r.contains(x, z);
        if inside_now {
            let t = exit_t(x, dx, r.x0, r.x1).min(exit_t(z, dz, r.z0, r.z1));
            if t < best {
                best = t.max(0.0);
                what = Some("the wall".into());
            }
        }
        for (rect, label) in &self.blocks {
            if strictly_inside(rect, x, z) {
                continue;
            }
            if let Some(t) = entry(rect, x, z, dx, dz)
                && t < best
            {
                best = t;
                what = Some(format!("the {label}"));
            }
        }
        if what.is_some() {
            ((best - CONTACT_GAP).max(0.0), what)
        } else {
            (want, None)
        }
    }

    /// Whether the straight walk from `(x0, z0)` to `(x1, z1)` is clear.
    pub fn clear(&self, x0: f32, z0: f32, x1: f32, z1: f32) -> bool {
        let (dx, dz) = (x1 - x0, z1 - z0);
        let len = libm::sqrtf(dx * dx + dz * dz);
        if len < 1e-6 {
            return true;
        }
        let (_, hit) = self.walk(x0, z0, dx / len, dz / len, len + CONTACT_GAP);
        hit.is_none()
    }
}

/// Walks `body` up to `want` metres along the unit direction `(dx, dz)`, stopping at
/// the first obstacle; returns how far it went and what stopped it. The position stays
/// on the room's floor whatever happens.
pub fn advance(
    obstacles: &Obstacles,
    body: &mut Body,
    dx: f32,
    dz: f32,
    want: f32,
) -> (f32, Option<String>) {
    let (d, what) = obstacles.walk(body.x, body.z, dx, dz, want);
    let r = obstacles.inside.grow(AGENT_RADIUS - CONTACT_GAP);
    body.x = (body.x + dx * d).clamp(r.x0, r.x1);
    body.z = (body.z + dz * d).clamp(r.z0, r.z1);
    (d, what)
}

fn strictly_inside(r: &Rect, x: f32, z: f32) -> bool {
    x > r.x0 && x < r.x1 && z > r.z0 && z < r.z1
}

/// Distance along the ray at which it enters `r` (slab test), if it does.
fn entry(r: &Rect, x: f32, z: f32, dx: f32, dz: f32) -> Option<f32> {
    let slab = |p: f32, d: f32, lo: f32, hi: f32| -> Option<(f32, f32)> {
        if d == 0.0 {
            if p < lo || p > hi {
                None
            } else {
                Some((f32::NEG_INFINITY, f32::INFINITY))
            }
        } else {
            let (a, b) = ((lo - p) / d, (hi - p) / d);
            Some((a.min(b), a.max(b)))
        }
    };
    let (ax, bx) = slab(x, dx, r.x0, r.x1)?;
    let (az, bz) = slab(z, dz, r.z0, r.z1)?;
    let (t0, t1) = (ax.max(az), bx.min(bz));
    (t0 <= t1 && t1 >= 0.0 && t0 >= 0.0).then_some(t0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walking_stops_at_walls_and_blocks() {
        let obstacles = Obstacles {
            inside: Rect {
                x0: 0.2,
                z0: 0.2,
                x1: 4.8,
                z1: 4.8,
            },
            blocks: vec![(
                Rect {
                    x0: 2.0,
                    z0: 0.0,
                    x1: 3.0,
                    z1: 1.0,
                },
                "sofa".into(),
            )],
        };
        let (d, what) = obstacles.walk(1.0, 2.0, 0.0, 1.0, 10.0);
        assert!((d - (2.8 - CONTACT_GAP)).abs() < 1e-4, "{d}");
        assert_eq!(what.as_deref(), Some("the wall"));
        let (d, what) = obstacles.walk(1.0, 0.5, 1.0, 0.0, 3.0);
        assert!((d - (1.0 - CONTACT_GAP)).abs() < 1e-4, "{d}");
        assert_eq!(what.as_deref(), Some("the sofa"));
        assert_eq!(obstacles.walk(1.0, 2.0, 1.0, 0.0, 1.0), (1.0, None));
        assert!(obstacles.clear(1.0, 2.0, 4.0, 2.0));
        assert!(!obstacles.clear(1.0, 0.5, 4.0, 0.5));
    }

    #[test]
    fn turning_wraps_and_clamps() {
        let b = Body {
            x: 0.0,
            z: 0.0,
            yaw: 350.0,
            pitch: 0.0,
        };
        let t = b.turned(20.0, 100.0);
        assert!((t.yaw - 10.0).abs() < 1e-4);
        assert_eq!(t.pitch, -MAX_PITCH);
        assert_eq!(wrap(-90.0), 270.0);
        let a = b.aimed(Vec3::new(1.0, 0.0, 0.0));
        assert!((a.yaw - 90.0).abs() < 1e-3 && a.pitch.abs() < 1e-3);
    }
}
