//! A bounding volume hierarchy over a scene's objects, built once per [`Prepared`].
//!
//! Why: a furnished room has around a hundred primitives and a frame shoots a million
//! rays; testing every primitive per ray would be a hundred times too slow. The tree is
//! built with the surface-area heuristic (a full sweep over sorted centroids, fine for the
//! hundreds to thousands of objects a room has), deterministically: sorts use
//! `total_cmp` with the object index as tie-break, so the same scene always gives the same
//! tree and therefore the same answer when two surfaces are equally near. Depth is capped
//! (past [`SAH_DEPTH`] levels it splits at the median), so traversal fits a fixed stack
//! whatever the scene.
//!
//! [`Prepared`]: super::Prepared

use glam::Vec3;

use super::intersect::{Aabb, Ray};

/// Past this depth the builder stops looking for good splits and halves the list, which
/// bounds the depth by `SAH_DEPTH + log2(objects)`.
const SAH_DEPTH: usize = 40;
/// Traversal stack size: more than `SAH_DEPTH + 32`.
const STACK: usize = 80;
/// The traversal stack, allocated once per row of pixels rather than per ray.
pub(crate) type Stack = [u32; STACK];

/// A fresh traversal stack.
pub(crate) fn new_stack() -> Stack {
    [0; STACK]
}

/// Lists this short always become a leaf (the SAH may also stop at up to four).
const LEAF: usize = 2;

/// One node: a box, and either two children or a run of objects.
#[derive(Debug, Clone, Copy)]
struct Node {
    min: Vec3,
    max: Vec3,
    /// Interior: index of the second child (the first is the next node). Leaf: first
    /// entry in `Bvh::items`.
    index: u32,
    /// Number of objects in a leaf; 0 for an interior node.
    count: u32,
}

/// The tree. `items` are object indices in leaf order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Bvh {
    nodes: Vec<Node>,
    items: Vec<u32>,
}

impl Bvh {
    /// Builds the tree over `boxes` (object index, bounds); objects without bounds are
    /// simply not given.
    pub fn build(boxes: Vec<(u32, Aabb)>) -> Bvh {
        let mut bvh = Bvh::default();
        if boxes.is_empty() {
            return bvh;
        }
        let mut boxes = boxes;
        bvh.node(&mut boxes, 0);
        bvh
    }

    fn node(&mut self, boxes: &mut [(u32, Aabb)], depth: usize) {
        let bounds = boxes.iter().fold(Aabb::EMPTY, |acc, b| acc.grow(b.1));
        let at = self.nodes.len();
        self.nodes.push(Node {
            min: bounds.min,
            max: bounds.max,
            index: 0,
            count: 0,
        });
        let split = if boxes.len() <= LEAF {
            None
        } else if depth >= SAH_DEPTH {
            sort(boxes, longest_axis(bounds));
            Some(boxes.len() / 2)
        } else {
            sah_split(boxes, bounds)
        };
        match split {
            None => {
                self.nodes[at].index = self.items.len() as u32;
                self.nodes[at].count = boxes.len() as u32;
                self.items.extend(boxes.iter().map(|b| b.0));
            }
            Some(mid) => {
                let (left, right) = boxes.split_at_mut(mid);
                self.node(left, depth + 1);
                self.nodes[at].index = self.nodes.len() as u32;
                self.node(right, depth + 1);
            }
        }
    }

    /// Visits, nearest box first, every leaf object whose box the ray enters before
    /// `t_max`; `hit(object, t_max)` returns the new `t_max` when it found a nearer hit.
    /// When `hit` returns `Some(f32::NEG_INFINITY)` traversal stops (any-hit queries).
    #[inline]
    pub fn traverse(
        &self,
        ray: &Ray,
        mut t_max: f32,
        stack: &mut Stack,
        mut hit: impl FnMut(u32, f32) -> Option<f32>,
    ) {
        let Some(root) = self.nodes.first() else {
            return;
        };
        if ray.slab(root.min, root.max, t_max).is_none() {
            return;
        }
        let mut sp = 0usize;
        let mut at = 0usize;
        loop {
            let node = &self.nodes[at];
            if node.count > 0 {
                let start = node.index as usize;
                for &item in &self.items[start..start + node.count as usize] {
                    if let Some(t) = hit(item, t_max) {
                        if t == f32::NEG_INFINITY {
                            return;
                        }
                        t_max = t;
                    }
                }
            } else {
                let (a, b) = (at + 1, node.index as usize);
                let (na, nb) = (&self.nodes[a], &self.nodes[b]);
                let ta = ray.slab(na.min, na.max, t_max);
                let tb = ray.slab(nb.min, nb.max, t_max);
                match (ta, tb) {
                    (Some(ta), Some(tb)) => {
                        let (near, far) = if tb < ta { (b, a) } else { (a, b) };
                        if sp < STACK {
                            stack[sp] = far as u32;
                            sp += 1;
                        }
                        at = near;
                        continue;
                    }
                    (Some(_), None) => {
                        at = a;
                        continue;
                    }
                    (None, Some(_)) => {
                        at = b;
                        continue;
                    }
                    (None, None) => {}
                }
            }
            // pop, skipping boxes now beyond the nearest hit
            loop {
                if sp == 0 {
                    return;
                }
                sp -= 1;
                let n = &self.nodes[stack[sp] as usize];
                if ray.slab(n.min, n.max, t_max).is_some() {
                    at = stack[sp] as usize;
                    break;
                }
            }
        }
    }
}

impl Bvh {
    /// Calls `found` with every object in a leaf whose box, and whose ancestors' boxes,
    /// pass `may_touch(min, max)` (a conservative test: it may say yes too often, never
    /// too rarely). Objects come in leaf order.
    #[inline(always)]
    pub fn collect(
        &self,
        stack: &mut Stack,
        may_touch: impl Fn(Vec3, Vec3) -> bool,
        mut found: impl FnMut(u32),
    ) {
        if self.nodes.is_empty() {
            return;
        }
        stack[0] = 0;
        let mut sp = 1usize;
        while sp > 0 {
            sp -= 1;
            let at = stack[sp];
            let node = &self.nodes[at as usize];
            if !may_touch(node.min, node.max) {
                continue;
            }
            if node.count > 0 {
                let start = node.index as usize;
                for &item in &self.items[start..start + node.count as usize] {
                    found(item);
                }
            } else if sp + 2 <= STACK {
                // right first, so the left subtree is visited first
                stack[sp] = node.index;
                stack[sp + 1] = at + 1;
                sp += 2;
            }
        }
    }
}

fn longest_axis(b: Aabb) -> usize {
    let e = b.max - b.min;
    if e.x >= e.y && e.x >= e.z {
        0
    } else if e.y >= e.z {
        1
    } else {
        2
    }
}

fn sort(boxes: &mut [(u32, Aabb)], axis: usize) {
    boxes.sort_by(|a, b| {
        let (ca, cb) = (
            a.1.centroid().to_array()[axis],
            b.1.centroid().to_array()[axis],
        );
        ca.total_cmp(&cb).then(a.0.cmp(&b.0))
    });
}

/// The cheapest split by the surface-area heuristic (leaves it sorted on the winning
/// axis), or `None` when a leaf is cheaper. Falls back to the median when no cost is
/// finite (boxes with infinite extent) but the list is too long for one leaf.
fn sah_split(boxes: &mut [(u32, Aabb)], bounds: Aabb) -> Option<usize> {
    let n = boxes.len();
    let mut best: Option<(f32, usize, usize)> = None;
    let mut right_area = vec![0.0f32; n];
    for axis in 0..3 {
        sort(boxes, axis);
        let mut acc = Aabb::EMPTY;
        for i in (1..n).rev() {
            acc = acc.grow(boxes[i].1);
            right_area[i] = acc.half_area();
        }
        let mut acc = Aabb::EMPTY;
        for i in 1..n {
            acc = acc.grow(boxes[i - 1].1);
            let cost = acc.half_area() * i as f32 + right_area[i] * (n - i) as f32;
            if cost.is_finite() && best.is_none_or(|b| cost < b.0) {
                best = Some((cost, axis, i));
            }
        }
    }
    let parent = bounds.half_area();
    match best {
        // a leaf costs n intersections; a split costs one more box test plus its children
        Some((cost, axis, mid)) => {
            let leaf_cost = n as f32;
            if n <= 4 && parent > 0.0 && 0.5 + cost / parent >= leaf_cost {
                return None;
            }
            sort(boxes, axis);
            Some(mid)
        }
        None => {
            sort(boxes, longest_axis(bounds));
            Some(n / 2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_box(x: f32) -> Aabb {
        Aabb {
            min: Vec3::new(x, 0.0, 0.0),
            max: Vec3::new(x + 0.5, 1.0, 1.0),
        }
    }

    fn nearest(bvh: &Bvh, ray: &Ray, boxes: &[Aabb]) -> Option<u32> {
        let mut best = None;
        bvh.traverse(ray, f32::INFINITY, &mut new_stack(), |i, t_max| {
            let t = ray.slab(boxes[i as usize].min, boxes[i as usize].max, t_max)?;
            (t < t_max).then(|| {
                best = Some(i);
                t
            })
        });
        best
    }

    #[test]
    fn finds_the_nearest_of_many_boxes() {
        let boxes: Vec<Aabb> = (0..100).map(|i| unit_box(i as f32)).collect();
        let bvh = Bvh::build(
            boxes
                .iter()
                .copied()
                .enumerate()
                .map(|(i, b)| (i as u32, b))
                .collect(),
        );
        let ray = Ray::new(Vec3::new(-10.0, 0.5, 0.5), Vec3::X);
        assert_eq!(nearest(&bvh, &ray, &boxes), Some(0));
        let ray = Ray::new(Vec3::new(57.7, 0.5, 0.5), Vec3::X);
        assert_eq!(nearest(&bvh, &ray, &boxes), Some(58));
        let ray = Ray::new(Vec3::new(57.7, 0.5, 0.5), -Vec3::X);
        assert_eq!(nearest(&bvh, &ray, &boxes), Some(57));
    }

    #[test]
    fn nested_and_infinite_boxes_build_a_bounded_tree() {
        let mut boxes: Vec<(u32, Aabb)> = (0..200)
            .map(|i| {
                let s = 1.5f32.powi(i);
                (
                    i as u32,
                    Aabb {
                        min: Vec3::splat(-s),
                        max: Vec3::splat(s),
                    },
                )
            })
            .collect();
        boxes.push((
            200,
            Aabb {
                min: Vec3::splat(f32::NEG_INFINITY),
                max: Vec3::splat(f32::INFINITY),
            },
        ));
        let bvh = Bvh::build(boxes);
        assert_eq!(bvh.items.len(), 201);
        let ray = Ray::new(Vec3::new(0.0, 0.0, -1e9), Vec3::Z);
        let mut seen = 0;
        bvh.traverse(&ray, f32::INFINITY, &mut new_stack(), |_, _| {
            seen += 1;
            None
        });
        assert!(seen > 0);
    }
}
