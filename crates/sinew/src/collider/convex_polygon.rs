//! Convex polygon collider (2D).
//!
//! A convex polygon with counter-clockwise vertices `v₀ … vₙ₋₁` is the intersection of the
//! half-planes `nᵢ·x ≤ dᵢ`, where for the edge `eᵢ = vᵢ₊₁ − vᵢ` the outward unit normal is
//! `nᵢ = (eᵢ.y, −eᵢ.x) / |eᵢ|` and `dᵢ = nᵢ·vᵢ`.
//!
//! - **Signed distance.** Inside, the distance to the boundary is the distance to the
//!   nearest edge line, `φ(p) = maxᵢ (nᵢ·p − dᵢ) ≤ 0`. Outside, it is the distance to the
//!   nearest edge *segment*, `φ(p) = minᵢ |p − cᵢ(p)|`; edges whose line distance
//!   `|nᵢ·p − dᵢ|` already exceeds the best distance found are skipped.
//! - **Swept test.** The segment is clipped (Cyrus–Beck) against the inflated half-planes
//!   `nᵢ·x ≤ dᵢ + r`, i.e. the polygon grown by `r` with *square* corners. When the entry
//!   point is farther than `r` from the polygon it lies in a corner region, and the entry is
//!   recomputed against the vertex discs of radius `r`, so the inflated shape has exactly
//!   rounded corners (the true Minkowski sum of the polygon and a disc).
//! - **Validation.** Every turn `eᵢ₋₁ × eᵢ` must have the same sign (the winding) and the
//!   turning angles `atan2(|eᵢ₋₁ × eᵢ|, eᵢ₋₁·eᵢ)` must add up to one revolution, `2π`;
//!   a star polygon turns the same way at every vertex but winds twice or more.
//!
//! Tolerances are relative to the size of the point set: an edge shorter than
//! `τ · size` is a repeated point (in fixed point, whose precision does not scale, one
//! shorter than `ε`, 2⁻¹² m) and a turn whose sine is below `τ` is collinear, with
//! `τ = 16 · ε` ([`Real::GEOMETRIC_EPSILON`]; about `1.6e-5` in `f32`, `1.6e-8` in `f64`).
//! Collinear middle points are **rejected** as [`ConvexError::Degenerate`], not dropped,
//! so that the vertex list is exactly the list given (up to winding).

use super::shape::{ConvexError, ConvexShape, Proximity, RayHit, ShapeQuery, raycast_ball, raycast_planes};
use crate::dim::Space2;
use crate::math::{Real, Vector, Vector2};

/// A convex polygon collider: counter-clockwise vertices plus the outward edge half-planes
/// `normal·x ≤ offset`. Build it with [`ConvexShape::from_points`].
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexPolygon<R> {
    /// Counter-clockwise vertices.
    vertices: Vec<Vector2<R>>,
    /// Outward unit normal of edge `i` (from vertex `i` to vertex `i + 1`).
    normals: Vec<Vector2<R>>,
    /// Plane offset of edge `i`: inside is `normals[i]·x ≤ offsets[i]`.
    offsets: Vec<R>,
    /// Edge `i` as a unit direction along it (the normal turned a quarter, so that the
    /// nearest-point projection needs no division — several times a multiplication in
    /// fixed point) and its length along that direction, computed once.
    edges: Vec<(Vector2<R>, R)>,
    /// Local bounding box `(min, max)`.
    aabb: (Vector2<R>, Vector2<R>),
}

/// Relative tolerance `τ = 16 ε` used for repeated and collinear points.
#[inline]
fn relative_tolerance<R: Real>() -> R {
    R::GEOMETRIC_EPSILON * R::from_i32(16)
}

/// Component-wise bounds of a non-empty point set.
fn bounds<R: Real>(points: &[Vector2<R>]) -> (Vector2<R>, Vector2<R>) {
    let first = points.first().copied().unwrap_or(Vector2::ZERO);
    points.iter().fold((first, first), |(lo, hi), &p| (lo.min_elem(p), hi.max_elem(p)))
}

impl<R: Real> ConvexPolygon<R> {
    /// Outward unit edge normals; `normals()[i]` belongs to the edge from vertex `i` to
    /// vertex `i + 1` (mod `n`).
    #[inline]
    #[must_use]
    pub fn normals(&self) -> &[Vector2<R>] {
        &self.normals
    }

    /// Edge plane offsets: a point `x` is inside when `normals()[i]·x ≤ offsets()[i]` for all `i`.
    #[inline]
    #[must_use]
    pub fn offsets(&self) -> &[R] {
        &self.offsets
    }

    /// The edge half-planes as `(outward unit normal, offset)` pairs, in edge order.
    #[inline]
    pub fn planes(&self) -> impl Iterator<Item = (Vector2<R>, R)> + '_ {
        self.normals.iter().copied().zip(self.offsets.iter().copied())
    }

    /// Index and value of the largest plane distance `nᵢ·p − dᵢ` (first index on ties).
    /// A NaN query propagates (it is never taken for "deep inside").
    fn max_plane_distance(&self, p: Vector2<R>) -> (usize, R) {
        let (normals, offsets) = (&self.normals[..], &self.offsets[..self.normals.len()]);
        let mut best = (0, normals[0].dot(p) - offsets[0]);
        for i in 1..normals.len() {
            let s = normals[i].dot(p) - offsets[i];
            if s > best.1 {
                best = (i, s);
            }
        }
        best
    }

    /// Earliest entry of `from → to` into the discs of radius `radius` around the vertices.
    fn raycast_corners(&self, from: Vector2<R>, to: Vector2<R>, radius: R) -> Option<RayHit<R, Vector2<R>>> {
        let mut best: Option<RayHit<R, Vector2<R>>> = None;
        for &v in &self.vertices {
            if let Some(hit) = raycast_ball(from, to, v, radius) {
                if best.is_none_or(|b| hit.fraction < b.fraction) {
                    best = Some(hit);
                }
            }
        }
        best
    }
}

impl<R: Real> ShapeQuery<Space2<R>> for ConvexPolygon<R> {
    fn closest(&self, p: Vector2<R>) -> Proximity<R, Vector2<R>> {
        let (face, s) = self.max_plane_distance(p);
        if s <= R::ZERO {
            return Proximity { distance: s, normal: self.normals[face] };
        }
        // Outside: nearest point over all edges, starting from the edge `p` is farthest in
        // front of. An edge whose line is `|s|` away cannot hold a nearer point, which
        // prunes nearly every edge.
        let n = self.normals.len();
        let (vertices, normals, offsets, edges) =
            (&self.vertices[..n], &self.normals[..n], &self.offsets[..n], &self.edges[..n]);
        let seg = |i: usize| {
            let (a, (d, len)) = (vertices[i], edges[i]);
            a + d * (p - a).dot(d).clamp(R::ZERO, len)
        };
        let mut best_q = seg(face);
        let mut best_d2 = (p - best_q).length_squared();
        for i in 0..n {
            let s = normals[i].dot(p) - offsets[i];
            if i == face || s * s >= best_d2 {
                continue;
            }
            let q = seg(i);
            let d2 = (p - q).length_squared();
            if d2 < best_d2 {
                best_d2 = d2;
                best_q = q;
            }
        }
        let diff = p - best_q;
        // Root and reciprocal together: no division (several times cheaper in fixed point).
        let (distance, inv) = diff.length_squared().sqrt_recip();
        let normal = if distance > R::GEOMETRIC_EPSILON { diff * inv } else { self.normals[face] };
        Proximity { distance, normal }
    }

    /// Entry into the polygon grown by `inflate` with exactly rounded corners. A negative
    /// `inflate` is treated as 0.
    fn raycast(&self, from: Vector2<R>, to: Vector2<R>, inflate: R) -> Option<RayHit<R, Vector2<R>>> {
        let inflate = inflate.max(R::ZERO);
        let square = raycast_planes(from, to, self.planes(), inflate);
        if inflate == R::ZERO {
            return square;
        }
        match square {
            Some(hit) => {
                // Accept the flat entry unless it lies in a corner region (farther than
                // `inflate` from the polygon, beyond rounding slack).
                let q = from + (to - from) * hit.fraction;
                let slack = inflate * R::from_ratio(1, 1024) + R::GEOMETRIC_EPSILON;
                if self.closest(q).distance <= inflate + slack {
                    Some(hit)
                } else {
                    self.raycast_corners(from, to, inflate)
                }
            }
            None => {
                // `from` may sit in a square corner but outside the rounded one.
                let (_, s) = self.max_plane_distance(from);
                if s <= inflate && self.closest(from).distance > inflate {
                    self.raycast_corners(from, to, inflate)
                } else {
                    None
                }
            }
        }
    }

    fn support(&self, dir: Vector2<R>) -> Vector2<R> {
        let mut best = self.vertices[0];
        let mut best_dot = best.dot(dir);
        for &v in &self.vertices[1..] {
            let d = v.dot(dir);
            if d > best_dot {
                best = v;
                best_dot = d;
            }
        }
        best
    }

    #[inline]
    fn local_aabb(&self) -> Option<(Vector2<R>, Vector2<R>)> {
        Some(self.aabb)
    }
}

impl<R: Real> ConvexShape<Space2<R>> for ConvexPolygon<R> {
    /// Builds the polygon from its vertices in order, either winding (clockwise input is
    /// reversed).
    ///
    /// # Errors
    /// - [`ConvexError::TooFewPoints`] for fewer than 3 points;
    /// - [`ConvexError::NonFinite`] for a NaN or infinite coordinate;
    /// - [`ConvexError::Degenerate`] when all points coincide, two consecutive points
    ///   coincide (closing point repeated included), or any three consecutive points are
    ///   collinear (straight-through or back-tracking; collinear points are not dropped);
    /// - [`ConvexError::NotConvex`] when the turn direction changes (index of the first
    ///   vertex turning against the winding) or the outline winds more than once (index of
    ///   the vertex where the turning first exceeds one revolution).
    fn from_points(points: &[Vector2<R>]) -> Result<Self, ConvexError> {
        let n = points.len();
        if n < 3 {
            return Err(ConvexError::TooFewPoints { given: n, needed: 3 });
        }
        if let Some(index) = points.iter().position(|p| !p.is_finite()) {
            return Err(ConvexError::NonFinite { index });
        }
        let (lo, hi) = bounds(points);
        let size = (hi.x - lo.x).max(hi.y - lo.y);
        if size <= R::GEOMETRIC_EPSILON {
            return Err(ConvexError::Degenerate);
        }
        let tau = relative_tolerance::<R>();
        // A repeated point: an edge shorter than `τ · size` in floating point, whose
        // precision is relative; fixed point's is absolute (2⁻³² m at any size), so there
        // it is an edge shorter than the geometric epsilon (2⁻¹² m): `τ · size` there
        // (3.9 mm per metre) rejected a valid 2 cm × 6 m plank.
        let repeated = if R::FLOATING { tau * size } else { R::GEOMETRIC_EPSILON };

        // Edge vectors and lengths; edge i runs from point i to point i + 1.
        let mut edges = Vec::with_capacity(n);
        let mut lengths = Vec::with_capacity(n);
        for i in 0..n {
            let e = points[(i + 1) % n] - points[i];
            let len = e.length();
            if len <= repeated {
                return Err(ConvexError::Degenerate);
            }
            edges.push(e);
            lengths.push(len);
        }

        // Turn at each vertex: cross and dot of the incoming and outgoing edges.
        let mut turns = Vec::with_capacity(n);
        for i in 0..n {
            let prev = (i + n - 1) % n;
            let cross = edges[prev].cross(edges[i]);
            if cross.abs() <= tau * lengths[prev] * lengths[i] {
                return Err(ConvexError::Degenerate);
            }
            turns.push((cross, edges[prev].dot(edges[i])));
        }

        // Winding from the signed area (shoelace about point 0); the first turn decides a
        // zero-area (self-cancelling) outline.
        let mut area2 = R::ZERO;
        for i in 1..n - 1 {
            area2 += (points[i] - points[0]).cross(points[i + 1] - points[0]);
        }
        let ccw = if area2 == R::ZERO { turns[0].0 > R::ZERO } else { area2 > R::ZERO };
        if let Some(index) = turns.iter().position(|&(c, _)| (c > R::ZERO) != ccw) {
            return Err(ConvexError::NotConvex { index });
        }

        // Total turning must be one revolution (2π); star polygons wind 4π or more.
        let limit = R::PI * R::from_ratio(5, 2);
        let mut turning = R::ZERO;
        for (index, &(cross, dot)) in turns.iter().enumerate() {
            turning += cross.abs().atan2(dot);
            if turning > limit {
                return Err(ConvexError::NotConvex { index });
            }
        }

        let mut vertices = points.to_vec();
        if !ccw {
            vertices.reverse();
        }
        let mut normals = Vec::with_capacity(n);
        let mut offsets = Vec::with_capacity(n);
        for i in 0..n {
            let e = vertices[(i + 1) % n] - vertices[i];
            let len = e.length();
            if len == R::ZERO {
                return Err(ConvexError::Degenerate);
            }
            let normal = Vector2::new(e.y, -e.x) / len;
            offsets.push(normal.dot(vertices[i]));
            normals.push(normal);
        }
        let edges = (0..n)
            .map(|i| {
                let e = vertices[(i + 1) % n] - vertices[i];
                let nn = normals[i];
                let d = Vector2::new(-nn.y, nn.x);
                let len = e.dot(d);
                if len < R::ZERO { (-d, -len) } else { (d, len) }
            })
            .collect();
        Ok(Self { vertices, normals, offsets, edges, aabb: (lo, hi) })
    }

    #[inline]
    fn vertices(&self) -> &[Vector2<R>] {
        &self.vertices
    }

    fn edges(&self) -> Vec<(usize, usize)> {
        let n = self.vertices.len();
        (0..n).map(|i| (i, (i + 1) % n)).collect()
    }
    #[inline]
    fn face_planes(&self) -> impl Iterator<Item = (Vector2<R>, R)> + '_ {
        self.planes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v<R: Real>(x: f64, y: f64) -> Vector2<R> {
        Vector2::from_f64(x, y)
    }

    fn tol<R: Real>() -> f64 {
        R::GEOMETRIC_EPSILON.to_f64() * 100.0
    }

    fn near<R: Real>(a: R, b: f64) -> bool {
        (a.to_f64() - b).abs() <= tol::<R>() * (1.0 + b.abs())
    }

    fn near_v<R: Real>(a: Vector2<R>, x: f64, y: f64) -> bool {
        near(a.x, x) && near(a.y, y)
    }

    fn poly<R: Real>(pts: &[(f64, f64)]) -> Result<ConvexPolygon<R>, ConvexError> {
        let pts: Vec<Vector2<R>> = pts.iter().map(|&(x, y)| v(x, y)).collect();
        ConvexPolygon::from_points(&pts)
    }

    fn unit_square<R: Real>() -> ConvexPolygon<R> {
        poly(&[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]).expect("valid square")
    }

    fn check_square_structure<R: Real>() {
        let sq = unit_square::<R>();
        assert_eq!(sq.vertices().len(), 4);
        assert_eq!(sq.edges(), vec![(0, 1), (1, 2), (2, 3), (3, 0)]);
        let expected = [(0.0, -1.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0)];
        let offsets = [0.0, 1.0, 1.0, 0.0];
        for i in 0..4 {
            assert!(near_v(sq.normals()[i], expected[i].0, expected[i].1), "normal {i}");
            assert!(near(sq.offsets()[i], offsets[i]), "offset {i}");
        }
        let (lo, hi) = sq.local_aabb().expect("bounded");
        assert!(near_v(lo, 0.0, 0.0) && near_v(hi, 1.0, 1.0));
        assert_eq!(sq.support(v(1.0, 0.1)), v(1.0, 1.0));
        assert_eq!(sq.support(v(-1.0, -0.1)), v(0.0, 0.0));
        assert_eq!(sq.planes().count(), 4);

        // Clockwise input is reversed to counter-clockwise.
        let cw = poly::<R>(&[(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 0.0)]).expect("valid cw square");
        assert_eq!(cw.vertices(), &[v(1.0, 0.0), v(1.0, 1.0), v(0.0, 1.0), v(0.0, 0.0)]);
        for (n, d) in cw.planes() {
            // Centre is inside every half-plane, by half a unit.
            assert!(near(n.dot(v(0.5, 0.5)) - d, -0.5));
        }
    }

    #[test]
    fn square_structure() {
        check_square_structure::<f32>();
        check_square_structure::<f64>();
    }

    fn check_square_distances<R: Real>() {
        let sq = unit_square::<R>();
        let (r2, h2) = (core::f64::consts::SQRT_2, core::f64::consts::FRAC_1_SQRT_2);
        // [px, py, distance, nx, ny]
        let cases: [[f64; 5]; 8] = [
            [0.5, 0.8, -0.2, 0.0, 1.0],
            [0.1, 0.5, -0.1, -1.0, 0.0],
            [0.5, 0.5, -0.5, 0.0, -1.0], // tie: first edge wins
            [0.5, 1.5, 0.5, 0.0, 1.0],
            [1.0, 0.5, 0.0, 1.0, 0.0],
            [-0.25, 0.5, 0.25, -1.0, 0.0],
            [2.0, 2.0, r2, h2, h2],
            [-3.0, -4.0, 5.0, -0.6, -0.8],
        ];
        for [px, py, dist, nx, ny] in cases {
            let pr = sq.closest(v(px, py));
            assert!(near(pr.distance, dist), "distance at ({px}, {py}): {:?}", pr.distance);
            assert!(near_v(pr.normal, nx, ny), "normal at ({px}, {py}): {:?}", pr.normal);
        }
        // A NaN query is not mistaken for a penetration.
        let d = sq.closest(v(0.5, f64::NAN)).distance.to_f64();
        assert!(d.is_nan() || d >= 0.0);
        // A vertex exactly: distance 0, a valid unit normal.
        let pr = sq.closest(v(1.0, 1.0));
        assert!(near(pr.distance, 0.0));
        assert!(near(pr.normal.length(), 1.0));
    }

    #[test]
    fn square_distances_and_normals() {
        check_square_distances::<f32>();
        check_square_distances::<f64>();
    }

    fn check_regular_polygon_distance<R: Real>() {
        // Hexagon of circumradius 1: apothem √3/2.
        let pts: Vec<(f64, f64)> = (0..6)
            .map(|k| {
                let a = core::f64::consts::PI / 3.0 * f64::from(k);
                (a.cos(), a.sin())
            })
            .collect();
        let hex = poly::<R>(&pts).expect("valid hexagon");
        let apothem = 3f64.sqrt() / 2.0;
        assert!(near(hex.closest(v(0.0, 0.0)).distance, -apothem));
        let pr = hex.closest(v(0.0, 2.0));
        assert!(near(pr.distance, 2.0 - apothem));
        assert!(near_v(pr.normal, 0.0, 1.0));
        let pr = hex.closest(v(3.0, 0.0));
        assert!(near(pr.distance, 2.0));
        assert!(near_v(pr.normal, 1.0, 0.0));
    }

    #[test]
    fn hexagon_distances() {
        check_regular_polygon_distance::<f32>();
        check_regular_polygon_distance::<f64>();
    }

    fn check_raycasts<R: Real>() {
        let sq = unit_square::<R>();
        let zero = R::ZERO;
        // Straight hit on the left face.
        let hit = sq.raycast(v(-1.0, 0.5), v(1.0, 0.5), zero).expect("hit");
        assert!(near(hit.fraction, 0.5));
        assert!(near_v(hit.normal, -1.0, 0.0));
        // Inflated: the face moves out by 0.25.
        let hit = sq.raycast(v(-1.0, 0.5), v(1.0, 0.5), R::from_f64(0.25)).expect("hit");
        assert!(near(hit.fraction, 0.375));
        assert!(near_v(hit.normal, -1.0, 0.0));
        // From above, diagonal.
        let hit = sq.raycast(v(0.5, 3.0), v(0.5, -1.0), zero).expect("hit");
        assert!(near(hit.fraction, 0.5));
        assert!(near_v(hit.normal, 0.0, 1.0));
        // Misses, short segments, moving away, starting inside.
        assert!(sq.raycast(v(-1.0, 2.0), v(2.0, 2.0), zero).is_none());
        assert!(sq.raycast(v(-1.0, 0.5), v(-0.5, 0.5), zero).is_none());
        assert!(sq.raycast(v(-1.0, 0.5), v(-2.0, 0.5), zero).is_none());
        assert!(sq.raycast(v(0.5, 0.5), v(3.0, 0.5), zero).is_none());
        assert!(sq.raycast(v(-0.1, 0.5), v(3.0, 0.5), R::from_f64(0.2)).is_none());
        assert!(sq.raycast(v(-1.0, 0.5), v(-1.0, 0.5), zero).is_none());
    }

    #[test]
    fn raycasts_hit_faces_at_the_right_fraction() {
        check_raycasts::<f32>();
        check_raycasts::<f64>();
    }

    fn check_rounded_corners<R: Real>() {
        let sq = unit_square::<R>();
        let r = R::from_f64(0.25);
        // Passes the top-left corner: enters the square-cornered region at x = −0.25 but the
        // rounded corner only at x = −0.15 (y offset 0.2 from the corner disc centre).
        let hit = sq.raycast(v(-0.5, 1.2), v(0.5, 1.2), r).expect("corner hit");
        assert!(near(hit.fraction, 0.35), "{:?}", hit.fraction);
        assert!(near_v(hit.normal, -0.6, 0.8), "{:?}", hit.normal);
        // Grazes the square corner but misses the disc before the segment ends.
        assert!(sq.raycast(v(-0.5, 1.24), v(-0.2, 1.24), r).is_none());
        // Misses the disc entirely.
        assert!(sq.raycast(v(-0.5, 1.245), v(-0.2, 1.4), r).is_none());
        // Starts inside the square corner but outside the disc: still an entry.
        let hit = sq.raycast(v(-0.24, 1.24), v(0.0, 1.24), r).expect("entry from the corner");
        let x_entry = -(0.0625f64 - 0.0576).sqrt();
        assert!(near(hit.fraction, (x_entry + 0.24) / 0.24), "{:?}", hit.fraction);
        // Starts inside the rounded shape: no entry.
        assert!(sq.raycast(v(-0.1, 1.1), v(0.5, 0.5), r).is_none());
        // A flat hit near (but not in) the corner region keeps the face normal.
        let hit = sq.raycast(v(0.01, 2.0), v(0.01, 0.0), r).expect("flat hit");
        assert!(near(hit.fraction, 0.375));
        assert!(near_v(hit.normal, 0.0, 1.0));
    }

    #[test]
    fn inflated_corners_are_round() {
        check_rounded_corners::<f32>();
        check_rounded_corners::<f64>();
    }

    fn check_thin_wall<R: Real>() {
        // A 1 cm wall; a particle moving 10 m in one step must not pass through it.
        let wall = poly::<R>(&[(0.0, -1.0), (0.01, -1.0), (0.01, 1.0), (0.0, 1.0)]).expect("valid wall");
        let (from, to) = (v::<R>(-5.0, 0.1), v::<R>(5.0, 0.1));
        // The end point is already past the wall and outside it: a point test sees nothing.
        assert!(wall.closest(to).distance > R::ZERO);
        let hit = wall.raycast(from, to, R::ZERO).expect("no tunnelling");
        assert!(near(hit.fraction, 0.5));
        assert!(near_v(hit.normal, -1.0, 0.0));
        let hit = wall.raycast(from, to, R::from_f64(0.05)).expect("no tunnelling, inflated");
        assert!(near(hit.fraction, 0.495));
        // And from the other side, the normal flips.
        let hit = wall.raycast(to, from, R::ZERO).expect("no tunnelling");
        assert!(near(hit.fraction, 0.499));
        assert!(near_v(hit.normal, 1.0, 0.0));
    }

    #[test]
    fn thin_polygon_is_not_tunnelled() {
        check_thin_wall::<f32>();
        check_thin_wall::<f64>();
    }

    fn check_rejections<R: Real>() {
        let e = |pts: &[(f64, f64)]| poly::<R>(pts).err();
        assert_eq!(e(&[(0.0, 0.0), (1.0, 0.0)]), Some(ConvexError::TooFewPoints { given: 2, needed: 3 }));
        assert_eq!(e(&[]), Some(ConvexError::TooFewPoints { given: 0, needed: 3 }));
        assert_eq!(e(&[(0.0, 0.0), (f64::NAN, 0.0), (1.0, 1.0)]), Some(ConvexError::NonFinite { index: 1 }));
        assert_eq!(e(&[(0.0, 0.0), (1.0, 0.0), (1.0, f64::INFINITY)]), Some(ConvexError::NonFinite { index: 2 }));
        // Repeated consecutive point, and a closing point equal to the first.
        assert_eq!(e(&[(0.0, 0.0), (1.0, 0.0), (1.0, 0.0), (0.0, 1.0)]), Some(ConvexError::Degenerate));
        assert_eq!(e(&[(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (0.0, 0.0)]), Some(ConvexError::Degenerate));
        // Coincident, collinear, collinear middle point, back-tracking spike.
        assert_eq!(e(&[(2.0, 2.0), (2.0, 2.0), (2.0, 2.0)]), Some(ConvexError::Degenerate));
        assert_eq!(e(&[(0.0, 0.0), (1.0, 1.0), (2.0, 2.0), (3.0, 3.0)]), Some(ConvexError::Degenerate));
        assert_eq!(e(&[(0.0, 0.0), (0.5, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]), Some(ConvexError::Degenerate));
        assert_eq!(e(&[(0.0, 0.0), (2.0, 0.0), (1.0, 0.0), (1.0, 1.0)]), Some(ConvexError::Degenerate));
        // Concave arrow: vertex 3 turns against the (counter-clockwise) winding.
        assert_eq!(
            e(&[(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (1.0, 1.0), (0.0, 2.0)]),
            Some(ConvexError::NotConvex { index: 3 })
        );
        // The same arrow clockwise.
        assert_eq!(
            e(&[(0.0, 2.0), (1.0, 1.0), (2.0, 2.0), (2.0, 0.0), (0.0, 0.0)]),
            Some(ConvexError::NotConvex { index: 1 })
        );
        // Bow tie (self-intersecting, zero area).
        assert!(matches!(e(&[(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)]), Some(ConvexError::NotConvex { .. })));
        // Pentagram: every turn has the same sign but it winds twice.
        let star: Vec<(f64, f64)> = (0..5)
            .map(|k| {
                let a = core::f64::consts::TAU * f64::from(2 * k) / 5.0;
                (a.cos(), a.sin())
            })
            .collect();
        assert!(matches!(e(&star), Some(ConvexError::NotConvex { .. })));
        // A valid triangle, for contrast.
        assert!(e(&[(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]).is_none());
    }

    #[test]
    fn bad_input_is_rejected() {
        check_rejections::<f32>();
        check_rejections::<f64>();
    }

    fn check_against_brute_force<R: Real>() {
        // Random points compared with a sampled boundary, on a 7-gon.
        let pts: Vec<(f64, f64)> = (0..7)
            .map(|k| {
                let a = core::f64::consts::TAU * f64::from(k) / 7.0 + 0.3;
                (0.5 + 1.7 * a.cos(), -0.2 + 1.1 * a.sin())
            })
            .collect();
        let p = poly::<R>(&pts).expect("valid 7-gon");
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 11) as f64) / ((1u64 << 53) as f64) * 6.0 - 3.0
        };
        for _ in 0..200 {
            let q = (next(), next());
            let mut best = f64::MAX;
            for i in 0..7 {
                let (a, b) = (pts[i], pts[(i + 1) % 7]);
                let (ex, ey) = (b.0 - a.0, b.1 - a.1);
                let t = (((q.0 - a.0) * ex + (q.1 - a.1) * ey) / (ex * ex + ey * ey)).clamp(0.0, 1.0);
                let (cx, cy) = (a.0 + ex * t, a.1 + ey * t);
                best = best.min(((q.0 - cx).powi(2) + (q.1 - cy).powi(2)).sqrt());
            }
            let pr = p.closest(v(q.0, q.1));
            assert!(near(pr.distance.abs(), best), "{q:?}: {:?} vs {best}", pr.distance);
            assert!(near(pr.normal.length(), 1.0));
            // Moving along the normal by the distance lands on the boundary.
            let on = v::<R>(q.0, q.1) - pr.normal * pr.distance;
            assert!(p.closest(on).distance.abs().to_f64() < tol::<R>() * 10.0);
        }
    }

    #[test]
    fn distances_match_brute_force() {
        check_against_brute_force::<f32>();
        check_against_brute_force::<f64>();
    }
}
