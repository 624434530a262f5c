//! The guard between the world and a back end: nothing non-finite gets through.
//!
//! A world can hold a NaN for a step (the solver recovers such particles, see
//! `StepReport::recovered_particles`), and an infinite position would make a rasteriser
//! loop or a GPU buffer fill with garbage. Rather than check at each of the world's
//! drawing sites, the world draws through this wrapper, which drops any primitive with a
//! non-finite number (and a negative radius or extent) before the back end sees it.

use super::geom::{P3, finite};
use super::{DebugDraw, FrameInfo, HullMesh, RopeStrand, Style};

/// A [`DebugDraw`] that forwards only primitives whose numbers are all finite.
pub(crate) struct Finite<'a>(pub(crate) &'a mut dyn DebugDraw);

fn all(points: &[P3]) -> bool {
    points.iter().all(|&p| finite(p))
}

fn size(r: f64) -> bool {
    r.is_finite() && r >= 0.0
}

impl DebugDraw for Finite<'_> {
    fn begin(&mut self, frame: &FrameInfo) {
        let mut f = *frame;
        if f.bounds.is_some_and(|(lo, hi)| !(finite(lo) && finite(hi))) {
            f.bounds = None;
        }
        if !f.time.is_finite() {
            f.time = 0.0;
        }
        self.0.begin(&f);
    }
    fn end(&mut self) {
        self.0.end();
    }
    fn segment(&mut self, a: P3, b: P3, style: &Style) {
        if finite(a) && finite(b) {
            self.0.segment(a, b, style);
        }
    }
    fn polyline(&mut self, points: &[P3], closed: bool, style: &Style) {
        if all(points) {
            self.0.polyline(points, closed, style);
        }
    }
    fn point(&mut self, p: P3, style: &Style) {
        if finite(p) {
            self.0.point(p, style);
        }
    }
    fn arrow(&mut self, from: P3, to: P3, style: &Style) {
        if finite(from) && finite(to) {
            self.0.arrow(from, to, style);
        }
    }
    fn circle(&mut self, center: P3, radius: f64, style: &Style) {
        if finite(center) && size(radius) {
            self.0.circle(center, radius, style);
        }
    }
    fn stadium(&mut self, a: P3, b: P3, radius: f64, style: &Style) {
        if finite(a) && finite(b) && size(radius) {
            self.0.stadium(a, b, radius, style);
        }
    }
    fn polygon(&mut self, points: &[P3], style: &Style) {
        if all(points) {
            self.0.polygon(points, style);
        }
    }
    fn half_plane(&mut self, point: P3, normal: P3, extent: f64, style: &Style) {
        if finite(point) && finite(normal) && size(extent) {
            self.0.half_plane(point, normal, extent, style);
        }
    }
    fn arc(&mut self, center: P3, axis: P3, start: P3, sweep: f64, style: &Style) {
        if finite(center) && finite(axis) && finite(start) && sweep.is_finite() {
            self.0.arc(center, axis, start, sweep, style);
        }
    }
    fn sphere(&mut self, center: P3, radius: f64, style: &Style) {
        if finite(center) && size(radius) {
            self.0.sphere(center, radius, style);
        }
    }
    fn capsule(&mut self, a: P3, b: P3, radius: f64, style: &Style) {
        if finite(a) && finite(b) && size(radius) {
            self.0.capsule(a, b, radius, style);
        }
    }
    fn cuboid(&mut self, center: P3, half_extents: P3, axes: [P3; 3], style: &Style) {
        if finite(center) && half_extents.iter().all(|&h| size(h)) && all(&axes) {
            self.0.cuboid(center, half_extents, axes, style);
        }
    }
    fn hull(&mut self, hull: &HullMesh<'_>, style: &Style) {
        let n = hull.vertices.len() as u32;
        let in_range = hull.triangles.iter().flatten().chain(hull.edges.iter().flatten()).all(|&i| i < n);
        if all(hull.vertices) && in_range {
            self.0.hull(hull, style);
        }
    }
    fn half_space(&mut self, point: P3, normal: P3, extent: f64, style: &Style) {
        if finite(point) && finite(normal) && size(extent) {
            self.0.half_space(point, normal, extent, style);
        }
    }
    fn rope(&mut self, rope: &RopeStrand<'_>, style: &Style) {
        if all(rope.points) && rope.tensions.iter().all(|t| t.is_finite()) && size(rope.radius) {
            self.0.rope(rope, style);
        }
    }
}
