//! From a [`Camera`] and a pixel to a ray.
//!
//! Why its own file: rendering and picking must agree to the bit on which ray goes
//! through which pixel, so both go through [`View::dir`]. The camera's angles are turned
//! into a basis once, with `libm`'s `sinf`/`cosf`/`tanf` (software, the same everywhere)
//! rather than the platform's.

use glam::Vec3;

use crate::RenderError;
use crate::scene::Camera;

const DEG: f32 = core::f32::consts::PI / 180.0;

/// Checks a camera: finite position and angles, field of view strictly between 0 and 180
/// degrees.
pub(crate) fn check(camera: &Camera) -> Result<(), RenderError> {
    let ok = camera.position.is_finite()
        && camera.yaw.is_finite()
        && camera.pitch.is_finite()
        && camera.fov > 0.0
        && camera.fov < 180.0;
    if ok { Ok(()) } else { Err(RenderError::Camera) }
}

/// The horizontal field of view, in degrees, of a `width` × `height` image whose
/// vertical field of view is `vertical` degrees (square pixels): `2 atan(tan(v / 2) · w /
/// h)`, with `libm`. Unity's `Camera.fieldOfView` is the vertical angle, so an original
/// that sets 120° on a 2:1 frame sees about 147.8° across; [`Camera::fov`] is horizontal.
/// `NaN` for a size with a zero side.
pub fn horizontal_fov(vertical: f32, width: u32, height: u32) -> f32 {
    let half = libm::tanf(vertical * 0.5 * DEG) * (width as f32 / height as f32);
    2.0 * libm::atanf(half) / DEG
}

/// A camera turned into a basis for one image size.
#[derive(Debug, Clone, Copy)]
pub(crate) struct View {
    pub origin: Vec3,
    forward: Vec3,
    right: Vec3,
    up: Vec3,
    /// Metres of image plane (at distance 1) per pixel.
    step: f32,
    half_w: f32,
    half_h: f32,
}

impl View {
    pub fn new(camera: &Camera, width: u32, height: u32) -> View {
        let (sy, cy) = (libm::sinf(camera.yaw * DEG), libm::cosf(camera.yaw * DEG));
        let (sp, cp) = (
            libm::sinf(camera.pitch * DEG),
            libm::cosf(camera.pitch * DEG),
        );
        let half_w = width as f32 * 0.5;
        View {
            origin: camera.position,
            // left-handed, y up: yaw 0 looks along +z, yaw 90 along +x
            forward: Vec3::new(sy * cp, sp, cy * cp),
            right: Vec3::new(cy, 0.0, -sy),
            up: Vec3::new(-sy * sp, cp, -cy * sp),
            step: libm::tanf(camera.fov * 0.5 * DEG) / half_w,
            half_w,
            half_h: height as f32 * 0.5,
        }
    }

    /// The direction (not normalised) through image point `(x, y)`.
    #[inline]
    pub fn towards(&self, x: f32, y: f32) -> Vec3 {
        let a = (x - self.half_w) * self.step;
        let b = (self.half_h - y) * self.step;
        self.forward + self.right * a + self.up * b
    }

    /// The pyramid of rays through the image rectangle `x0..x1` × `y0..y1`.
    pub fn frustum(&self, x0: f32, y0: f32, x1: f32, y1: f32) -> Frustum {
        let (c00, c10) = (self.towards(x0, y0), self.towards(x1, y0));
        let (c01, c11) = (self.towards(x0, y1), self.towards(x1, y1));
        // each side plane passes through the eye and two corner rays; its normal is turned
        // towards a corner on the other side, so inside is where the dot product is positive
        let side = |a: Vec3, b: Vec3, inside: Vec3| {
            let n = a.cross(b);
            let s = n.dot(inside);
            if s > 0.0 {
                n
            } else if s < 0.0 {
                -n
            } else {
                Vec3::ZERO // degenerate: this side culls nothing
            }
        };
        let corners = [c00, c10, c01, c11];
        let mut d_min = c00;
        let mut d_max = c00;
        let mut size = 0.0f32;
        for c in corners {
            d_min = d_min.min(c);
            d_max = d_max.max(c);
            let l = c.x.abs() + c.y.abs() + c.z.abs();
            if l > size {
                size = l;
            }
        }
        // the shortest direction in the pyramid: |d|² = 1 + a² + b² (forward, right and up
        // are orthonormal), smallest at the point of the rectangle nearest the centre
        let nearest = |p0: f32, p1: f32, half: f32| {
            let (a, b) = ((p0 - half) * self.step, (p1 - half) * self.step);
            if a <= 0.0 && b >= 0.0 {
                0.0
            } else {
                a.abs().min(b.abs())
            }
        };
        let (a, b) = (nearest(x0, x1, self.half_w), nearest(y0, y1, self.half_h));
        Frustum {
            origin: self.origin,
            shortest: (1.0 + a * a + b * b).sqrt() * 0.9999,
            d_min,
            d_max,
            tiny: size * 1e-6,
            planes: [
                side(c00, c01, c10),
                side(c10, c11, c00),
                side(c00, c10, c01),
                side(c01, c11, c00),
            ],
        }
    }

    /// The unit direction through image point `(x, y)`, in pixels from the top-left
    /// corner (pixel `(i, j)` has its centre at `(i + 0.5, j + 0.5)`).
    #[inline]
    pub fn dir(&self, x: f32, y: f32) -> Vec3 {
        let d = self.towards(x, y);
        d * (1.0 / d.length())
    }

    /// [`View::dir`] through the centres of pixels `x0..x0 + N` of row `y`, coordinate by
    /// coordinate (`[x, y, z][lane]`), with the reciprocals a slab test needs: the same
    /// operations in the same order, written lane by lane so the compiler can do several
    /// at once (`sqrt` is correctly rounded, as `libm::sqrtf` is, so the bits agree).
    #[inline]
    pub fn dirs<const N: usize>(&self, x0: usize, y: usize) -> ([[f32; N]; 3], [[f32; N]; 3]) {
        let b = (self.half_h - (y as f32 + 0.5)) * self.step;
        let (f, r, u) = (
            self.forward.to_array(),
            self.right.to_array(),
            self.up.to_array(),
        );
        let mut d = [[0.0f32; N]; 3];
        let mut inv = [[0.0f32; N]; 3];
        for l in 0..N {
            let a = ((x0 + l) as f32 + 0.5 - self.half_w) * self.step;
            let t = [
                f[0] + r[0] * a + u[0] * b,
                f[1] + r[1] * a + u[1] * b,
                f[2] + r[2] * a + u[2] * b,
            ];
            let s = 1.0 / (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt();
            for k in 0..3 {
                d[k][l] = t[k] * s;
                inv[k][l] = 1.0 / d[k][l];
            }
        }
        (d, inv)
    }
}

/// The pyramid of rays from the eye through a rectangle of the image: four planes
/// through the eye, inside where all four dot products are positive.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frustum {
    origin: Vec3,
    /// The smallest and largest coordinates of the corner directions: every ray of the
    /// pyramid has its direction between them (its sides are linear in the corners).
    d_min: Vec3,
    d_max: Vec3,
    /// A rounding margin for direction coordinates.
    tiny: f32,
    /// A lower bound on the length of any direction in the pyramid.
    shortest: f32,
    planes: [Vec3; 4],
}

impl Frustum {
    /// Whether the box `[min, max]` may meet the pyramid. Conservative: a box is ruled out
    /// only when it lies clearly outside one plane (by more than a rounding margin), and
    /// NaN never rules one out.
    pub fn may_touch(&self, min: Vec3, max: Vec3) -> bool {
        let (lo, hi) = (min - self.origin, max - self.origin);
        // the box's own axes: a box wholly above the eye is missed by rays that all go
        // down (the side planes alone let big boxes such as a ceiling through)
        for (lo, hi, d_min, d_max) in [
            (lo.x, hi.x, self.d_min.x, self.d_max.x),
            (lo.y, hi.y, self.d_min.y, self.d_max.y),
            (lo.z, hi.z, self.d_min.z, self.d_max.z),
        ] {
            if (lo > 0.0 && d_max < -self.tiny) || (hi < 0.0 && d_min > self.tiny) {
                return false;
            }
        }
        for n in self.planes {
            // the box corner furthest along the normal
            let px = if n.x >= 0.0 { hi.x } else { lo.x };
            let py = if n.y >= 0.0 { hi.y } else { lo.y };
            let pz = if n.z >= 0.0 { hi.z } else { lo.z };
            let (a, b, c) = (n.x * px, n.y * py, n.z * pz);
            let margin = (a.abs() + b.abs() + c.abs()) * 1e-5;
            if a + b + c < -margin {
                return false;
            }
        }
        true
    }
}

impl Frustum {
    /// A distance that no ray of the pyramid can hit the box `[min, max]` before, or
    /// `None` when none can reach it at all. Per axis: a ray must cover the gap between
    /// the eye and the box's slab at a speed no more than the largest direction
    /// coordinate over the shortest direction length. Shrunk a little so rounding never
    /// makes it exceed a true hit distance; NaN gives 0, which rules nothing out.
    pub fn entry_bound(&self, min: Vec3, max: Vec3) -> Option<f32> {
        let mut bound = 0.0f32;
        for (lo, hi, o, d_min, d_max) in [
            (min.x, max.x, self.origin.x, self.d_min.x, self.d_max.x),
            (min.y, max.y, self.origin.y, self.d_min.y, self.d_max.y),
            (min.z, max.z, self.origin.z, self.d_min.z, self.d_max.z),
        ] {
            let (gap, speed) = if lo > o {
                (lo - o, d_max)
            } else if hi < o {
                (o - hi, -d_min)
            } else {
                continue;
            };
            if speed <= self.tiny {
                return None;
            }
            let t = gap / ((speed + self.tiny) / self.shortest);
            if t > bound {
                bound = t;
            }
        }
        let t = bound * 0.999 - 1e-3;
        Some(if t > 0.0 { t } else { 0.0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cam(yaw: f32, pitch: f32) -> Camera {
        Camera {
            position: Vec3::ZERO,
            yaw,
            pitch,
            fov: 90.0,
        }
    }

    #[test]
    fn yaw_and_pitch_follow_unity_axes() {
        let close = |a: Vec3, b: Vec3| (a - b).length() < 1e-5;
        assert!(close(
            View::new(&cam(0.0, 0.0), 100, 50).dir(50.0, 25.0),
            Vec3::Z
        ));
        assert!(close(
            View::new(&cam(90.0, 0.0), 100, 50).dir(50.0, 25.0),
            Vec3::X
        ));
        assert!(close(
            View::new(&cam(0.0, 90.0), 100, 50).dir(50.0, 25.0),
            Vec3::Y
        ));
        // the right edge of a 90° view is 45° to the right
        let d = View::new(&cam(0.0, 0.0), 100, 50).dir(100.0, 25.0);
        assert!(close(d, Vec3::new(1.0, 0.0, 1.0).normalize()));
        // the top of the image is up
        assert!(View::new(&cam(0.0, 0.0), 100, 50).dir(50.0, 0.0).y > 0.0);
    }

    #[test]
    fn a_row_of_directions_is_dir_bit_for_bit() {
        for (yaw, pitch, fov, w, h) in [
            (0.0, 0.0, 90.0, 1024, 512),
            (-15.0, -12.0, 90.0, 1024, 512),
            (123.4, 56.7, 33.0, 250, 77),
            (-170.0, -89.0, 150.0, 64, 640),
        ] {
            let view = View::new(
                &Camera {
                    position: Vec3::new(0.3, 1.7, -2.0),
                    yaw,
                    pitch,
                    fov,
                },
                w,
                h,
            );
            for y in (0..h as usize).step_by(7) {
                for x0 in (0..w as usize).step_by(16) {
                    let (d, inv) = view.dirs::<16>(x0, y);
                    for l in 0..16 {
                        let want = view.dir((x0 + l) as f32 + 0.5, y as f32 + 0.5);
                        let got = Vec3::new(d[0][l], d[1][l], d[2][l]);
                        assert_eq!(
                            got.to_array().map(f32::to_bits),
                            want.to_array().map(f32::to_bits)
                        );
                        let want_inv = Vec3::new(1.0 / want.x, 1.0 / want.y, 1.0 / want.z);
                        let got_inv = Vec3::new(inv[0][l], inv[1][l], inv[2][l]);
                        assert_eq!(
                            got_inv.to_array().map(f32::to_bits),
                            want_inv.to_array().map(f32::to_bits)
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_vertical_angle_becomes_the_horizontal_one_of_the_frame() {
        // Unity's 120° vertical on LEGENT's 2048 × 1024 frames
        let h = horizontal_fov(120.0, 2048, 1024);
        assert!((h - 147.795).abs() < 0.01, "{h}");
        // square frames keep the angle; 90° vertical at 2:1 is 126.87° across
        assert!((horizontal_fov(90.0, 512, 512) - 90.0).abs() < 1e-3);
        assert!((horizontal_fov(90.0, 200, 100) - 126.8699).abs() < 1e-3);
        // and the frame's top edge is then the vertical half-angle above the centre
        let view = View::new(
            &Camera {
                fov: horizontal_fov(120.0, 2048, 1024),
                ..cam(0.0, 0.0)
            },
            2048,
            1024,
        );
        let top = view.dir(1024.0, 0.0);
        assert!((libm::atan2f(top.y, top.z) / DEG - 60.0).abs() < 1e-3);
    }

    #[test]
    fn bad_cameras_are_refused() {
        assert!(check(&cam(0.0, 0.0)).is_ok());
        assert!(check(&cam(f32::NAN, 0.0)).is_err());
        assert!(
            check(&Camera {
                fov: 180.0,
                ..cam(0.0, 0.0)
            })
            .is_err()
        );
        assert!(
            check(&Camera {
                fov: 0.0,
                ..cam(0.0, 0.0)
            })
            .is_err()
        );
        assert!(
            check(&Camera {
                position: Vec3::splat(f32::INFINITY),
                ..cam(0.0, 0.0)
            })
            .is_err()
        );
    }
}
