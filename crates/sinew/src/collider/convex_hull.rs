//! Convex hull collider (3D).
//!
//! The hull of a point cloud is built by **quickhull**: start from a tetrahedron of extreme
//! points and give every other point to the face it lies highest above (height
//! `n·p − d > τ`). Then repeatedly take the point highest above its face (the *eye*),
//! flood-fill the faces that see it, replace them by a fan of triangles joining the eye to
//! the horizon (the boundary loop of the seen region), and hand the replaced faces' points to
//! the fan. Points never more than `τ` above a face (interior, duplicate, face-coplanar and
//! edge-collinear points) never become vertices. Cost is about `O(n·h)` for `h` hull
//! vertices.
//!
//! - **Tolerance.** `τ = (16·size + 1)·ε`, with `size` the largest extent of the cloud's
//!   bounding box and `ε` = [`Real::GEOMETRIC_EPSILON`] (`τ ≈ 1.7e-5` for a unit-sized
//!   `f32` shape, `1.7e-8` in `f64`). The hull is built on coordinates relative to the box
//!   centre; input points end up within about `τ` of every face plane.
//! - **Ties.** Scores within `τ` of the best tie, and ties go to the point farthest from the
//!   box centre: `|p − c|²` is strictly convex, so a point on a face or an edge (a convex
//!   combination of tied corners) never wins against the corners.
//! - **No deep reflex edges.** A neighbour `g = (b, a, w)` of a seen face is replaced too
//!   when the eye is more than `τ` above it *or* when `w` would be more than `τ` above the
//!   new triangle `(a, b, eye)`. Both are the same orientation test in exact arithmetic; the
//!   second catches an eye that is nearly coplanar with `g` and close to line `ab`, where a
//!   height below `τ` would otherwise become a reflex edge far deeper than `τ`.
//! - **Signed distance.** Inside, `φ(p) = max_f (n_f·p − d_f) ≤ 0` (the nearest face plane).
//!   Outside, `φ(p) = min_f |p − q_f(p)|`, with `q_f` the closest point of triangle `f`
//!   (Voronoi-region test on the barycentric coordinates); faces whose plane distance
//!   `|n_f·p − d_f|` already exceeds the best distance found are skipped.
//! - **Swept test.** Cyrus–Beck clipping against the inflated planes `n_f·x ≤ d_f + r`
//!   (square edges). When the entry point is farther than `r` from the hull it lies in an
//!   edge or corner region and the entry is recomputed against the capsules of radius `r`
//!   around the hull edges, so the inflated shape is the exact rounded Minkowski sum.
//!
//! Faces are triangles: a planar facet with `k` vertices appears as `k − 2` coplanar
//! triangles (a cube has 12 faces, 18 edges, 8 vertices).

use super::shape::{ConvexError, ConvexShape, Proximity, RayHit, ShapeQuery, raycast_capsule, raycast_planes};
use crate::dim::Space3;
use crate::math::{Real, Vector, Vector3};
use std::collections::BTreeMap;

/// A convex polyhedron collider: hull vertices, outward counter-clockwise triangles and
/// their planes `normal·x ≤ offset`. Build it with [`ConvexShape::from_points`].
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexHull<R> {
    /// Hull vertices (a subset of the input, in input order).
    vertices: Vec<Vector3<R>>,
    /// Triangles as vertex indices, counter-clockwise seen from outside.
    faces: Vec<[usize; 3]>,
    /// Outward unit normal and offset of each face.
    planes: Vec<(Vector3<R>, R)>,
    /// Unique undirected edges `(a, b)` with `a < b`, sorted.
    edges: Vec<(usize, usize)>,
    /// Local bounding box `(min, max)`.
    aabb: (Vector3<R>, Vector3<R>),
}

impl<R: Real> ConvexHull<R> {
    /// Triangles as indices into [`ConvexShape::vertices`], counter-clockwise seen from
    /// outside (the right-hand normal points out).
    #[inline]
    #[must_use]
    pub fn faces(&self) -> &[[usize; 3]] {
        &self.faces
    }

    /// Face planes `(outward unit normal, offset)`, one per face: `x` is inside when
    /// `normal·x ≤ offset` for every plane.
    #[inline]
    #[must_use]
    pub fn planes(&self) -> &[(Vector3<R>, R)] {
        &self.planes
    }

    /// Index and value of the largest plane distance `n_f·p − d_f` (first face on ties).
    /// A NaN query propagates (it is never taken for "deep inside").
    fn max_plane_distance(&self, p: Vector3<R>) -> (usize, R) {
        let (n0, d0) = self.planes[0];
        let mut best = (0, n0.dot(p) - d0);
        for (i, &(n, d)) in self.planes.iter().enumerate().skip(1) {
            let s = n.dot(p) - d;
            if s > best.1 {
                best = (i, s);
            }
        }
        best
    }

    /// Earliest entry of `from → to` into the capsules of radius `radius` around the edges.
    fn raycast_edges(&self, from: Vector3<R>, to: Vector3<R>, radius: R) -> Option<RayHit<R, Vector3<R>>> {
        let mut best: Option<RayHit<R, Vector3<R>>> = None;
        for &(a, b) in &self.edges {
            if let Some(hit) = raycast_capsule(from, to, self.vertices[a], self.vertices[b], radius) {
                if best.is_none_or(|h| hit.fraction < h.fraction) {
                    best = Some(hit);
                }
            }
        }
        best
    }
}

/// Closest point to `p` on triangle `abc`, by locating `p` among the triangle's Voronoi
/// regions (three vertices, three edges, the interior) from dot products with the edges.
fn closest_on_triangle<R: Real>(p: Vector3<R>, a: Vector3<R>, b: Vector3<R>, c: Vector3<R>) -> Vector3<R> {
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    if d1 <= R::ZERO && d2 <= R::ZERO {
        return a;
    }
    let bp = p - b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    if d3 >= R::ZERO && d4 <= d3 {
        return b;
    }
    // Edge ab: p projects inside it and lies on its outer side within the plane.
    let vc = d1 * d4 - d3 * d2;
    if vc <= R::ZERO && d1 >= R::ZERO && d3 <= R::ZERO {
        return a + ab * d1.safe_div(d1 - d3, R::ZERO);
    }
    let cp = p - c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    if d6 >= R::ZERO && d5 <= d6 {
        return c;
    }
    // Edge ac.
    let vb = d5 * d2 - d1 * d6;
    if vb <= R::ZERO && d2 >= R::ZERO && d6 <= R::ZERO {
        return a + ac * d2.safe_div(d2 - d6, R::ZERO);
    }
    // Edge bc.
    let va = d3 * d6 - d5 * d4;
    let (e4, e5) = (d4 - d3, d5 - d6);
    if va <= R::ZERO && e4 >= R::ZERO && e5 >= R::ZERO {
        return b + (c - b) * e4.safe_div(e4 + e5, R::ZERO);
    }
    // Interior: barycentric coordinates (u, v, w) ∝ (va, vb, vc).
    let sum = va + vb + vc;
    a + ab * vb.safe_div(sum, R::ZERO) + ac * vc.safe_div(sum, R::ZERO)
}

/// `v / |v|`, or zero for a zero vector. Unlike [`Vector::normalize_or_zero`] there is no
/// absolute length threshold, so small shapes keep their directions.
#[inline]
fn unit<R: Real>(v: Vector3<R>) -> Vector3<R> {
    let len = v.length();
    if len > R::ZERO { v / len } else { Vector3::ZERO }
}

/// Unnormalised right-hand normal of triangle `abc`, taken as the cross product of the two
/// edges at the vertex opposite the longest edge. That corner has the largest angle, so the
/// cross product is as well conditioned as the triangle allows; in particular a needle (two
/// close vertices far from the third) keeps an accurate normal.
fn triangle_normal<R: Real>(a: Vector3<R>, b: Vector3<R>, c: Vector3<R>) -> Vector3<R> {
    let (ab, bc, ca) = ((b - a).length_squared(), (c - b).length_squared(), (a - c).length_squared());
    if bc >= ab && bc >= ca {
        (b - a).cross(c - a)
    } else if ca >= ab {
        (c - b).cross(a - b)
    } else {
        (a - c).cross(b - c)
    }
}

/// Among `(index, score)` candidates, the largest score; scores within `tol` of the
/// maximum tie, and ties go to the point farthest from `center`, then to the earliest.
fn pick_extreme<R: Real>(
    candidates: &[(usize, R)],
    points: &[Vector3<R>],
    center: Vector3<R>,
    tol: R,
) -> Option<(usize, R)> {
    let max = candidates.iter().map(|c| c.1).reduce(R::max)?;
    let mut best: Option<(usize, R, R)> = None;
    for &(i, s) in candidates {
        if s >= max - tol {
            let spread = (points[i] - center).length_squared();
            if best.is_none_or(|b| spread > b.2) {
                best = Some((i, s, spread));
            }
        }
    }
    best.map(|(i, s, _)| (i, s))
}

/// A face under construction.
struct Face<R> {
    /// Vertex indices into the input, counter-clockwise from outside.
    v: [usize; 3],
    normal: Vector3<R>,
    offset: R,
    alive: bool,
    /// Points assigned to this face, with their height above it.
    outside: Vec<(usize, R)>,
}

impl<R: Real> Face<R> {
    #[inline]
    fn height(&self, p: Vector3<R>) -> R {
        self.normal.dot(p) - self.offset
    }

    #[inline]
    fn directed_edges(&self) -> [(usize, usize); 3] {
        let [a, b, c] = self.v;
        [(a, b), (b, c), (c, a)]
    }
}

/// Quickhull state over the input points.
struct Builder<'a, R> {
    points: &'a [Vector3<R>],
    faces: Vec<Face<R>>,
    /// Directed edge `(a, b)` → the face having it in counter-clockwise order; the face on
    /// the other side of the edge owns `(b, a)`.
    edge_face: BTreeMap<(usize, usize), usize>,
    tol: R,
    center: Vector3<R>,
}

impl<'a, R: Real> Builder<'a, R> {
    /// Unit normal and conservative offset of triangle `v` (the plane through its outermost
    /// vertex), or `None` when the triangle is degenerate.
    fn plane_of(&self, v: [usize; 3]) -> Option<(Vector3<R>, R)> {
        let [a, b, c] = v.map(|i| self.points[i]);
        let normal = unit(triangle_normal(a, b, c));
        if normal == Vector3::ZERO {
            return None;
        }
        Some((normal, normal.dot(a).max(normal.dot(b)).max(normal.dot(c))))
    }

    /// Adds triangle `v` (counter-clockwise from outside) with its plane and registers its edges.
    fn add_face(&mut self, v: [usize; 3], (normal, offset): (Vector3<R>, R)) -> Result<usize, ConvexError> {
        let id = self.faces.len();
        let face = Face { v, normal, offset, alive: true, outside: Vec::new() };
        for e in face.directed_edges() {
            if self.edge_face.insert(e, id).is_some() {
                return Err(ConvexError::Degenerate); // non-manifold: cannot happen for valid input
            }
        }
        self.faces.push(face);
        Ok(id)
    }

    /// Gives point `p` to the face among `faces` it lies highest above, if above by more than τ.
    fn assign(&mut self, p: usize, faces: &[usize]) {
        let point = self.points[p];
        let mut best: Option<(usize, R)> = None;
        for &f in faces {
            let h = self.faces[f].height(point);
            if h > self.tol && best.is_none_or(|b| h > b.1) {
                best = Some((f, h));
            }
        }
        if let Some((f, h)) = best {
            self.faces[f].outside.push((p, h));
        }
    }

    /// Builds the starting tetrahedron from extreme points.
    fn start(points: &'a [Vector3<R>], lo: Vector3<R>, hi: Vector3<R>, tol: R) -> Result<Self, ConvexError> {
        let center = (lo + hi) * R::HALF;
        let extent = hi - lo;
        let axis = if extent.x >= extent.y && extent.x >= extent.z {
            0
        } else if extent.y >= extent.z {
            1
        } else {
            2
        };
        let all = |score: &dyn Fn(Vector3<R>) -> R| -> Vec<(usize, R)> {
            points.iter().enumerate().map(|(i, &p)| (i, score(p))).collect()
        };
        let (i0, _) = pick_extreme(&all(&|p| -p.get(axis)), points, center, tol).ok_or(ConvexError::Degenerate)?;
        let (i1, _) = pick_extreme(&all(&|p| p.get(axis)), points, center, tol).ok_or(ConvexError::Degenerate)?;
        let a = points[i0];
        let u = unit(points[i1] - a);
        if i0 == i1 || u == Vector3::ZERO {
            return Err(ConvexError::Degenerate);
        }
        let (i2, h2) =
            pick_extreme(&all(&|p| (p - a).cross(u).length()), points, center, tol).ok_or(ConvexError::Degenerate)?;
        if h2 <= tol {
            return Err(ConvexError::Degenerate); // collinear
        }
        let n = unit(triangle_normal(a, points[i1], points[i2]));
        if n == Vector3::ZERO {
            return Err(ConvexError::Degenerate);
        }
        let (i3, h3) =
            pick_extreme(&all(&|p| n.dot(p - a).abs()), points, center, tol).ok_or(ConvexError::Degenerate)?;
        if h3 <= tol {
            return Err(ConvexError::Degenerate); // coplanar
        }
        // Orient so that the apex i3 lies below the base (a, b, c).
        let (ib, ic) = if n.dot(points[i3] - a) > R::ZERO { (i2, i1) } else { (i1, i2) };
        let mut builder = Self { points, faces: Vec::new(), edge_face: BTreeMap::new(), tol, center };
        let tetra = [[i0, ib, ic], [i0, i3, ib], [ib, i3, ic], [ic, i3, i0]];
        for f in tetra {
            let plane = builder.plane_of(f).ok_or(ConvexError::Degenerate)?;
            builder.add_face(f, plane)?;
        }
        let first = [0, 1, 2, 3];
        for p in 0..points.len() {
            if p != i0 && p != i1 && p != i2 && p != i3 {
                builder.assign(p, &first);
            }
        }
        Ok(builder)
    }

    /// The next eye: the point highest above its face, with [`pick_extreme`]'s tie rule.
    fn next_eye(&self) -> Option<(usize, usize)> {
        let mut candidates = Vec::new();
        let mut owners = Vec::new();
        for (fi, f) in self.faces.iter().enumerate() {
            if f.alive {
                for &(p, h) in &f.outside {
                    candidates.push((candidates.len(), h));
                    owners.push((p, fi));
                }
            }
        }
        let spread_points: Vec<Vector3<R>> = owners.iter().map(|&(p, _)| self.points[p]).collect();
        let (k, _) = pick_extreme(&candidates, &spread_points, self.center, self.tol)?;
        Some(owners[k])
    }

    /// Whether face `g`, across edge `(a, b)` of a face that sees `eye`, must be replaced too.
    fn sees_across(&self, eye: usize, (a, b): (usize, usize), g: usize) -> bool {
        let face = &self.faces[g];
        if face.height(self.points[eye]) > self.tol {
            return true;
        }
        let w = face.v.iter().copied().find(|&i| i != a && i != b).unwrap_or(a);
        match self.plane_of([a, b, eye]) {
            Some((n, d)) => n.dot(self.points[w]) - d > self.tol,
            None => true,
        }
    }

    /// Adds `eye` (above face `start`) to the hull. The eye is skipped (left out of the
    /// hull) when the region of faces it sees is not a disc, which only happens within the
    /// tolerance of near-degenerate input.
    fn add_point(&mut self, eye: usize, start: usize) -> Result<(), ConvexError> {
        self.faces[start].outside.retain(|&(p, _)| p != eye);

        // Flood-fill the faces that see the eye (see `sees_across` and the module docs).
        let mut visible_flag = vec![false; self.faces.len()];
        visible_flag[start] = true;
        let mut visible = vec![start];
        let mut k = 0;
        while k < visible.len() {
            let f = visible[k];
            k += 1;
            for (a, b) in self.faces[f].directed_edges() {
                let g = *self.edge_face.get(&(b, a)).ok_or(ConvexError::Degenerate)?;
                if !visible_flag[g] && self.sees_across(eye, (a, b), g) {
                    visible_flag[g] = true;
                    visible.push(g);
                }
            }
        }

        // Horizon: edges of visible faces whose neighbour is hidden. It must be one loop.
        let mut horizon = Vec::new();
        for &f in &visible {
            for (a, b) in self.faces[f].directed_edges() {
                let g = self.edge_face.get(&(b, a)).copied().ok_or(ConvexError::Degenerate)?;
                if !visible_flag[g] {
                    horizon.push((a, b));
                }
            }
        }
        let mut next = BTreeMap::new();
        for &(a, b) in &horizon {
            if next.insert(a, b).is_some() {
                return Ok(()); // pinched: a vertex is on the horizon twice
            }
        }
        // Walking from one horizon vertex must come back to it through every horizon edge.
        let Some(&(first, _)) = horizon.first() else {
            return Ok(());
        };
        let mut at = first;
        let mut steps = 0;
        loop {
            match next.get(&at) {
                Some(&b) => at = b,
                None => return Ok(()), // open chain
            }
            steps += 1;
            if at == first {
                break;
            }
            if steps > horizon.len() {
                return Ok(()); // caught in a loop not through `first`
            }
        }
        if horizon.len() < 3 || steps != horizon.len() {
            return Ok(()); // several loops: the seen region is not a disc
        }

        // The fan's planes; a degenerate fan triangle means the eye is skipped.
        let mut fan_planes = Vec::with_capacity(horizon.len());
        for &(a, b) in &horizon {
            match self.plane_of([a, b, eye]) {
                Some(plane) => fan_planes.push(plane),
                None => return Ok(()),
            }
        }

        // Replace the visible faces by the fan from the eye.
        let mut orphans = Vec::new();
        for &f in &visible {
            let face = &mut self.faces[f];
            face.alive = false;
            orphans.extend(face.outside.drain(..).map(|(p, _)| p));
            for e in face.directed_edges() {
                self.edge_face.remove(&e);
            }
        }
        let mut fan = Vec::with_capacity(horizon.len());
        for (&(a, b), &plane) in horizon.iter().zip(&fan_planes) {
            fan.push(self.add_face([a, b, eye], plane)?);
        }
        for p in orphans {
            self.assign(p, &fan);
        }
        Ok(())
    }

    /// Runs quickhull to completion and compacts the result, taking vertex positions and
    /// plane offsets from `original` (the untranslated input).
    fn finish(mut self, original: &[Vector3<R>]) -> Result<ConvexHull<R>, ConvexError> {
        while let Some((eye, face)) = self.next_eye() {
            // Each call removes the eye from the outside lists, so the loop ends.
            self.add_point(eye, face)?;
        }
        let n = self.points.len();
        let mut remap = vec![usize::MAX; n];
        for f in self.faces.iter().filter(|f| f.alive) {
            for &i in &f.v {
                remap[i] = 0;
            }
        }
        let mut vertices = Vec::new();
        for (i, slot) in remap.iter_mut().enumerate() {
            if *slot == 0 {
                *slot = vertices.len();
                vertices.push(original[i]);
            }
        }
        let mut faces = Vec::new();
        let mut planes = Vec::new();
        let mut edges = Vec::new();
        for f in self.faces.iter().filter(|f| f.alive) {
            let v = f.v.map(|i| remap[i]);
            for k in 0..3 {
                let (a, b) = (v[k], v[(k + 1) % 3]);
                if a < b {
                    edges.push((a, b));
                }
            }
            faces.push(v);
            let [a, b, c] = f.v.map(|i| f.normal.dot(original[i]));
            planes.push((f.normal, a.max(b).max(c)));
        }
        edges.sort_unstable();
        edges.dedup();
        // Closed manifold sanity check (Euler: V − E + F = 2, and 2E = 3F).
        if vertices.len() + faces.len() != edges.len() + 2 || 2 * edges.len() != 3 * faces.len() {
            return Err(ConvexError::Degenerate);
        }
        let first = vertices.first().copied().unwrap_or(Vector3::ZERO);
        let aabb = vertices.iter().fold((first, first), |(lo, hi), &p| (lo.min_elem(p), hi.max_elem(p)));
        Ok(ConvexHull { vertices, faces, planes, edges, aabb })
    }
}

impl<R: Real> ShapeQuery<Space3<R>> for ConvexHull<R> {
    fn closest(&self, p: Vector3<R>) -> Proximity<R, Vector3<R>> {
        let (face, s) = self.max_plane_distance(p);
        let face_normal = self.planes[face].0;
        if s <= R::ZERO {
            return Proximity { distance: s, normal: face_normal };
        }
        // Outside: nearest point over all triangles, starting from the face `p` is highest
        // above. A face whose plane is `|s|` away cannot hold a nearer point, which prunes
        // nearly every face; the bound also holds for the slightly non-convex (within τ)
        // triangulations that a tolerance-based build can produce.
        let tri = |f: [usize; 3]| closest_on_triangle(p, self.vertices[f[0]], self.vertices[f[1]], self.vertices[f[2]]);
        let mut best_q = tri(self.faces[face]);
        let mut best_d2 = (p - best_q).length_squared();
        for (i, (&f, &(n, d))) in self.faces.iter().zip(&self.planes).enumerate() {
            let s = n.dot(p) - d;
            if i == face || s * s >= best_d2 {
                continue;
            }
            let q = tri(f);
            let d2 = (p - q).length_squared();
            if d2 < best_d2 {
                best_d2 = d2;
                best_q = q;
            }
        }
        let diff = p - best_q;
        // Root and reciprocal together: no division (several times cheaper in fixed point).
        let (distance, inv) = diff.length_squared().sqrt_recip();
        let normal = if distance > R::GEOMETRIC_EPSILON { diff * inv } else { face_normal };
        Proximity { distance, normal }
    }

    /// Entry into the hull grown by `inflate` with exactly rounded edges and corners. A
    /// negative `inflate` is treated as 0.
    fn raycast(&self, from: Vector3<R>, to: Vector3<R>, inflate: R) -> Option<RayHit<R, Vector3<R>>> {
        let inflate = inflate.max(R::ZERO);
        let square = raycast_planes(from, to, self.planes.iter().copied(), inflate);
        if inflate == R::ZERO {
            return square;
        }
        match square {
            Some(hit) => {
                // Accept the flat entry unless it lies in an edge or corner region (farther
                // than `inflate` from the hull, beyond rounding slack).
                let q = from + (to - from) * hit.fraction;
                let slack = inflate * R::from_ratio(1, 1024) + R::GEOMETRIC_EPSILON;
                if self.closest(q).distance <= inflate + slack {
                    Some(hit)
                } else {
                    self.raycast_edges(from, to, inflate)
                }
            }
            None => {
                // `from` may sit in a square edge region but outside the rounded one.
                let (_, s) = self.max_plane_distance(from);
                if s <= inflate && self.closest(from).distance > inflate {
                    self.raycast_edges(from, to, inflate)
                } else {
                    None
                }
            }
        }
    }

    fn support(&self, dir: Vector3<R>) -> Vector3<R> {
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
    fn local_aabb(&self) -> Option<(Vector3<R>, Vector3<R>)> {
        Some(self.aabb)
    }
}

impl<R: Real> ConvexShape<Space3<R>> for ConvexHull<R> {
    /// Computes the convex hull of `points` (any order; duplicates, interior points and
    /// points on faces or edges are fine and do not become vertices).
    ///
    /// # Errors
    /// - [`ConvexError::TooFewPoints`] for fewer than 4 points;
    /// - [`ConvexError::NonFinite`] for a NaN or infinite coordinate;
    /// - [`ConvexError::Degenerate`] when the points are coincident, collinear or coplanar
    ///   within the tolerance `τ` (see the module documentation).
    fn from_points(points: &[Vector3<R>]) -> Result<Self, ConvexError> {
        let n = points.len();
        if n < 4 {
            return Err(ConvexError::TooFewPoints { given: n, needed: 4 });
        }
        if let Some(index) = points.iter().position(|p| !p.is_finite()) {
            return Err(ConvexError::NonFinite { index });
        }
        let (lo, hi) = points.iter().fold((points[0], points[0]), |(lo, hi), &p| (lo.min_elem(p), hi.max_elem(p)));
        let extent = hi - lo;
        let size = extent.x.max(extent.y).max(extent.z);
        if size <= R::GEOMETRIC_EPSILON {
            return Err(ConvexError::Degenerate);
        }
        // Floating point: relative precision, so a tolerance that grows with the size.
        // Fixed point's precision is absolute (2⁻³² m at any size; a plane's height is
        // good to far below its 2⁻¹² m epsilon), so there the tolerance is a few epsilons
        // plus a sixteenth of one per metre: `(16·size + 1)·ε` (2.4 cm at 6 m) rejected a
        // valid 2 cm × 6 m plank as degenerate.
        let tol = if R::FLOATING {
            (size * R::from_i32(16) + R::ONE) * R::GEOMETRIC_EPSILON
        } else {
            (size * R::from_ratio(1, 16) + R::from_i32(4)) * R::GEOMETRIC_EPSILON
        };
        // Build on coordinates relative to the box centre, so that plane tests on a shape
        // far from the origin keep the precision of its size; output the original points.
        let center = (lo + hi) * R::HALF;
        let local: Vec<Vector3<R>> = points.iter().map(|&p| p - center).collect();
        Builder::start(&local, lo - center, hi - center, tol)?.finish(points)
    }

    #[inline]
    fn vertices(&self) -> &[Vector3<R>] {
        &self.vertices
    }

    fn edges(&self) -> Vec<(usize, usize)> {
        self.edges.clone()
    }
    #[inline]
    fn face_planes(&self) -> impl Iterator<Item = (Vector3<R>, R)> + '_ {
        self.planes.iter().copied()
    }
}

#[cfg(test)]
mod tests;
