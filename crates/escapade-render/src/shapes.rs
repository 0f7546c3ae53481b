//! Vertex lists for regular polygons and stars.
//!
//! Angles go through `libm` (never the platform's `sin`/`cos`) so the same shape has the
//! same vertices, and therefore the same pixels, on every machine.

/// The vertices of a regular `sides`-gon centred at `(cx, cy)` with circumradius `r`,
/// the first vertex pointing up (rotated by `turn` full turns clockwise).
pub fn regular_polygon(cx: f32, cy: f32, r: f32, sides: u32, turn: f32) -> Vec<(f32, f32)> {
    let sides = sides.max(3);
    (0..sides)
        .map(|i| {
            let a = (turn + i as f32 / sides as f32) * 2.0 * core::f32::consts::PI;
            (cx + r * libm::sinf(a), cy - r * libm::cosf(a))
        })
        .collect()
}

/// The vertices of a star with `points` tips: outer radius `r`, inner radius `inner`.
pub fn star(cx: f32, cy: f32, r: f32, inner: f32, points: u32) -> Vec<(f32, f32)> {
    let points = points.max(3);
    (0..points * 2)
        .map(|i| {
            let a = i as f32 / (points * 2) as f32 * 2.0 * core::f32::consts::PI;
            let rr = if i % 2 == 0 { r } else { inner };
            (cx + rr * libm::sinf(a), cy - rr * libm::cosf(a))
        })
        .collect()
}

/// The point at `turn` full turns clockwise from twelve o'clock on a circle.
pub fn on_circle(cx: f32, cy: f32, r: f32, turn: f32) -> (f32, f32) {
    let a = turn * 2.0 * core::f32::consts::PI;
    (cx + r * libm::sinf(a), cy - r * libm::cosf(a))
}

/// `segments + 1` points along a circular arc from `from` to `to` full turns clockwise
/// from twelve o'clock (for crescents, gauges and pie wedges).
pub fn arc(cx: f32, cy: f32, r: f32, from: f32, to: f32, segments: u32) -> Vec<(f32, f32)> {
    let segments = segments.max(1);
    (0..=segments)
        .map(|i| on_circle(cx, cy, r, from + (to - from) * i as f32 / segments as f32))
        .collect()
}

/// The vertices of a crescent opening to the right: the part of the circle at
/// `(cx, cy)` of radius `r` left outside a circle of radius `0.85 r` shifted `0.45 r` to
/// the right (a moon symbol).
pub fn crescent(cx: f32, cy: f32, r: f32) -> Vec<(f32, f32)> {
    let (d, r2) = (r * 0.45, r * 0.85);
    // where the two circles cross, relative to the first centre
    let x = (r * r - r2 * r2 + d * d) / (2.0 * d);
    let y = (r * r - x * x).max(0.0).sqrt();
    let turn = |dx: f32, dy: f32| libm::atan2f(dx, -dy) / (2.0 * core::f32::consts::PI);
    let mut points = arc(cx, cy, r, turn(x, -y) + 1.0, turn(x, y), 24);
    let (from, to) = (turn(x - d, y), turn(x - d, -y) + 1.0);
    points.extend(arc(cx + d, cy, r2, from, to, 24));
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_square_has_four_corners_on_its_circle() {
        let v = regular_polygon(0.0, 0.0, 10.0, 4, 0.125);
        assert_eq!(v.len(), 4);
        for (x, y) in v {
            assert!(((x * x + y * y).sqrt() - 10.0).abs() < 1e-4);
        }
    }

    #[test]
    fn stars_alternate_radii() {
        let v = star(0.0, 0.0, 10.0, 4.0, 5);
        assert_eq!(v.len(), 10);
        assert!((v[0].1 + 10.0).abs() < 1e-4);
        assert!(((v[1].0 * v[1].0 + v[1].1 * v[1].1).sqrt() - 4.0).abs() < 1e-4);
    }

    #[test]
    fn arcs_run_clockwise_from_twelve() {
        let v = arc(0.0, 0.0, 10.0, 0.0, 0.25, 4);
        assert_eq!(v.len(), 5);
        assert!((v[0].0).abs() < 1e-4 && (v[0].1 + 10.0).abs() < 1e-4);
        assert!((v[4].0 - 10.0).abs() < 1e-4 && (v[4].1).abs() < 1e-4);
    }

    #[test]
    fn a_crescent_bulges_left_and_stays_on_its_circle() {
        let v = crescent(0.0, 0.0, 10.0);
        assert_eq!(v.len(), 50);
        assert!(v.iter().all(|(x, y)| (x * x + y * y).sqrt() <= 10.0 + 1e-3));
        assert!(v.iter().any(|(x, _)| *x < -9.9));
        assert!(v.iter().all(|(x, _)| *x < 6.0));
    }
}
