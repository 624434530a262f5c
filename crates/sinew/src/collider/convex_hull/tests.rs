use super::*;
use crate::math::{Quat, Rotation};

fn v<R: Real>(x: f64, y: f64, z: f64) -> Vector3<R> {
    Vector3::from_f64(x, y, z)
}

fn tol<R: Real>() -> f64 {
    R::GEOMETRIC_EPSILON.to_f64() * 100.0
}

fn near<R: Real>(a: R, b: f64) -> bool {
    (a.to_f64() - b).abs() <= tol::<R>() * (1.0 + b.abs())
}

fn near_v<R: Real>(a: Vector3<R>, x: f64, y: f64, z: f64) -> bool {
    near(a.x, x) && near(a.y, y) && near(a.z, z)
}

fn hull<R: Real>(pts: &[[f64; 3]]) -> Result<ConvexHull<R>, ConvexError> {
    let pts: Vec<Vector3<R>> = pts.iter().map(|p| v(p[0], p[1], p[2])).collect();
    ConvexHull::from_points(&pts)
}

/// Deterministic generator of `f64` in `[0, 1)`.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64) / ((1u64 << 53) as f64)
    }
}

fn cube_corners() -> Vec<[f64; 3]> {
    let mut c = Vec::new();
    for i in 0..8 {
        c.push([f64::from(i & 1), f64::from((i >> 1) & 1), f64::from((i >> 2) & 1)]);
    }
    c
}

/// Structural checks every hull must pass, plus containment of `points`.
fn check_valid<R: Real>(h: &ConvexHull<R>, points: &[Vector3<R>], slack: f64) {
    let nv = h.vertices().len();
    let nf = h.faces().len();
    let ne = h.edges().len();
    assert_eq!(nv + nf, ne + 2, "Euler characteristic");
    assert_eq!(2 * ne, 3 * nf);
    assert_eq!(h.planes().len(), nf);
    // Each undirected edge appears in exactly two faces, once in each direction.
    assert!(h.edges().windows(2).all(|w| w[0] < w[1]), "edges sorted and unique");
    for &(a, b) in &h.edges() {
        assert!(a < b);
        let fwd = h.faces().iter().filter(|f| (0..3).any(|k| f[k] == a && f[(k + 1) % 3] == b)).count();
        let rev = h.faces().iter().filter(|f| (0..3).any(|k| f[k] == b && f[(k + 1) % 3] == a)).count();
        assert_eq!((fwd, rev), (1, 1), "edge ({a}, {b})");
    }
    let mut centroid = Vector3::ZERO;
    for &p in h.vertices() {
        centroid += p;
        assert!(points.contains(&p), "hull vertex is an input point");
    }
    centroid = centroid / R::from_i32(nv as i32);
    for (f, &(n, d)) in h.faces().iter().zip(h.planes()) {
        assert!(near(n.length(), 1.0));
        // Outward winding: the right-hand normal of the triangle matches the plane normal.
        let [a, b, c] = f.map(|i| h.vertices()[i]);
        assert!((b - a).cross(c - a).dot(n) > R::ZERO);
        assert!(n.dot(centroid) - d < R::ZERO, "centroid inside");
        for &p in points {
            let s = (n.dot(p) - d).to_f64();
            assert!(s <= slack, "point {p:?} outside face {f:?} by {s}");
        }
    }
}

fn check_cube_with_clutter<R: Real>() {
    let mut pts = cube_corners();
    // Interior points, duplicates of corners, face-coplanar grids, edge midpoints; put
    // some of them first so they are seen before the corners.
    let mut extra = vec![[0.5, 0.5, 0.5], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.5, 0.5, 1.0], [0.5, 0.0, 0.0]];
    for i in 0..5 {
        for j in 0..5 {
            let (a, b) = (f64::from(i) / 4.0, f64::from(j) / 4.0);
            extra.push([a, b, 0.0]);
            extra.push([a, b, 1.0]);
            extra.push([0.0, a, b]);
            extra.push([1.0, a, b]);
            extra.push([a, 0.0, b]);
            extra.push([a, 1.0, b]);
        }
    }
    let mut rng = Lcg(7);
    for _ in 0..30 {
        extra.push([0.1 + 0.8 * rng.next(), 0.1 + 0.8 * rng.next(), 0.1 + 0.8 * rng.next()]);
    }
    let mut all = extra[..40].to_vec();
    all.append(&mut pts);
    all.extend_from_slice(&extra[40..]);
    all.extend(cube_corners());
    let h = hull::<R>(&all).expect("valid cube");
    assert_eq!(h.vertices().len(), 8);
    assert_eq!(h.faces().len(), 12);
    assert_eq!(h.edges().len(), 18);
    let input: Vec<Vector3<R>> = all.iter().map(|p| v(p[0], p[1], p[2])).collect();
    check_valid(&h, &input, tol::<R>());
    for &(n, d) in h.planes() {
        // Axis-aligned unit normals, offsets 0 or 1.
        let axis = [n.x, n.y, n.z].iter().filter(|c| near(c.abs(), 1.0)).count();
        assert_eq!(axis, 1, "{n:?}");
        let sum = (n.x + n.y + n.z).to_f64();
        assert!(near(d, if sum > 0.0 { 1.0 } else { 0.0 }));
    }
    let (lo, hi) = h.local_aabb().expect("bounded");
    assert!(near_v(lo, 0.0, 0.0, 0.0) && near_v(hi, 1.0, 1.0, 1.0));
    // Determinism: the same input gives the same hull.
    assert_eq!(hull::<R>(&all).expect("valid"), h);
}

#[test]
fn cube_with_interior_duplicate_and_coplanar_points() {
    check_cube_with_clutter::<f32>();
    check_cube_with_clutter::<f64>();
}

fn check_rotated_cube<R: Real>() {
    // A rotated, offset cube with points on its faces: still 8 vertices.
    let q = Quat::<f64>::from_axis_angle(Vector3::new(1.0, 2.0, 3.0), 0.7);
    let mut pts = Vec::new();
    for i in 0..=3 {
        for j in 0..=3 {
            for k in 0..=3 {
                let p = Vector3::new(f64::from(i), f64::from(j), f64::from(k)) / 3.0 * 2.0;
                let r = q.rotate(p) + Vector3::new(10.0, -5.0, 3.0);
                pts.push([r.x, r.y, r.z]);
            }
        }
    }
    let h = hull::<R>(&pts).expect("valid rotated cube");
    assert_eq!(h.vertices().len(), 8);
    assert_eq!(h.faces().len(), 12);
    let input: Vec<Vector3<R>> = pts.iter().map(|p| v(p[0], p[1], p[2])).collect();
    check_valid(&h, &input, tol::<R>() * 20.0);
}

#[test]
fn rotated_cube_with_face_points() {
    check_rotated_cube::<f32>();
    check_rotated_cube::<f64>();
}

fn check_cube_queries<R: Real>() {
    let h = hull::<R>(&cube_corners()).expect("valid cube");
    let s2 = core::f64::consts::FRAC_1_SQRT_2;
    let s3 = 1.0 / 3f64.sqrt();
    let cases: [([f64; 3], f64, [f64; 3]); 7] = [
        ([0.5, 0.5, 0.9], -0.1, [0.0, 0.0, 1.0]),
        ([0.2, 0.5, 0.5], -0.2, [-1.0, 0.0, 0.0]),
        ([0.5, 0.5, 2.0], 1.0, [0.0, 0.0, 1.0]),
        ([0.5, -0.5, 0.5], 0.5, [0.0, -1.0, 0.0]),
        ([2.0, 2.0, 0.5], 2f64.sqrt(), [s2, s2, 0.0]),
        ([2.0, 2.0, 2.0], 3f64.sqrt(), [s3, s3, s3]),
        ([-3.0, 0.5, -4.0], 5.0, [-0.6, 0.0, -0.8]),
    ];
    for (p, dist, n) in cases {
        let pr = h.closest(v(p[0], p[1], p[2]));
        assert!(near(pr.distance, dist), "distance at {p:?}: {:?}", pr.distance);
        assert!(near_v(pr.normal, n[0], n[1], n[2]), "normal at {p:?}: {:?}", pr.normal);
    }
    let centre = h.closest(v(0.5, 0.5, 0.5));
    assert!(near(centre.distance, -0.5));
    assert!(near(centre.normal.length(), 1.0));
    // On the surface.
    let pr = h.closest(v(1.0, 0.3, 0.6));
    assert!(near(pr.distance, 0.0));
    assert!(near_v(pr.normal, 1.0, 0.0, 0.0));
    // A NaN query is not mistaken for a penetration.
    let d = h.closest(v(f64::NAN, 0.5, 0.5)).distance.to_f64();
    assert!(d.is_nan() || d >= 0.0);
    // Support.
    assert_eq!(h.support(v(1.0, 0.1, -0.2)), v(1.0, 1.0, 0.0));
    assert_eq!(h.support(v(-1.0, -1.0, -1.0)), v(0.0, 0.0, 0.0));
}

#[test]
fn cube_distances_normals_and_support() {
    check_cube_queries::<f32>();
    check_cube_queries::<f64>();
}

fn check_raycasts<R: Real>() {
    let h = hull::<R>(&cube_corners()).expect("valid cube");
    let zero = R::ZERO;
    let hit = h.raycast(v(0.5, 0.5, 3.0), v(0.5, 0.5, -1.0), zero).expect("hit");
    assert!(near(hit.fraction, 0.5));
    assert!(near_v(hit.normal, 0.0, 0.0, 1.0));
    let hit = h.raycast(v(0.5, 0.5, 3.0), v(0.5, 0.5, -1.0), R::from_f64(0.5)).expect("hit");
    assert!(near(hit.fraction, 0.375));
    assert!(near_v(hit.normal, 0.0, 0.0, 1.0));
    let hit = h.raycast(v(-2.0, 0.3, 0.7), v(2.0, 0.3, 0.7), zero).expect("hit");
    assert!(near(hit.fraction, 0.5));
    assert!(near_v(hit.normal, -1.0, 0.0, 0.0));
    // Misses, short, moving away, starting inside (plain and inflated).
    assert!(h.raycast(v(-1.0, 2.0, 0.5), v(2.0, 2.0, 0.5), zero).is_none());
    assert!(h.raycast(v(0.5, 0.5, 3.0), v(0.5, 0.5, 2.0), zero).is_none());
    assert!(h.raycast(v(0.5, 0.5, 3.0), v(0.5, 0.5, 4.0), zero).is_none());
    assert!(h.raycast(v(0.5, 0.5, 0.5), v(0.5, 0.5, 4.0), zero).is_none());
    assert!(h.raycast(v(0.5, 0.5, 1.1), v(0.5, 0.5, 0.0), R::from_f64(0.2)).is_none());

    // Rounded edge: passing the edge x = 1, y = 1 at z = 0.5, offset 0.2 in y.
    let r = R::from_f64(0.25);
    let hit = h.raycast(v(2.0, 1.2, 0.5), v(0.0, 1.2, 0.5), r).expect("edge hit");
    let x_entry = 1.0 + (0.0625f64 - 0.04).sqrt();
    assert!(near(hit.fraction, (2.0 - x_entry) / 2.0), "{:?}", hit.fraction);
    assert!(near_v(hit.normal, 0.6, 0.8, 0.0), "{:?}", hit.normal);
    // Grazes the square edge region but misses the cylinder.
    assert!(h.raycast(v(2.0, 1.245, 0.5), v(1.1, 1.245, 0.5), r).is_none());
    // Rounded corner: along the cube diagonal direction towards (1, 1, 1).
    let hit = h.raycast(v(3.0, 3.0, 3.0), v(0.5, 0.5, 0.5), r).expect("corner hit");
    let s3 = 1.0 / 3f64.sqrt();
    let entry = 1.0 + 0.25 * s3; // each coordinate at entry
    assert!(near(hit.fraction, (3.0 - entry) / 2.5), "{:?}", hit.fraction);
    assert!(near_v(hit.normal, s3, s3, s3));
    // Starts in the square corner, outside the ball, still enters.
    let hit = h.raycast(v(1.2, 1.2, 1.2), v(0.5, 0.5, 0.5), r).expect("entry from the corner");
    assert!(near(hit.fraction, (1.2 - entry) / 0.7), "{:?}", hit.fraction);
}

#[test]
fn raycasts_hit_faces_edges_and_corners() {
    check_raycasts::<f32>();
    check_raycasts::<f64>();
}

fn check_thin_slab<R: Real>() {
    let pts = [
        [-1.0, 0.0, -1.0],
        [1.0, 0.0, -1.0],
        [1.0, 0.0, 1.0],
        [-1.0, 0.0, 1.0],
        [-1.0, 0.01, -1.0],
        [1.0, 0.01, -1.0],
        [1.0, 0.01, 1.0],
        [-1.0, 0.01, 1.0],
    ];
    let h = hull::<R>(&pts).expect("valid slab");
    assert_eq!(h.vertices().len(), 8);
    let (from, to) = (v::<R>(0.1, 5.0, 0.2), v::<R>(0.1, -5.0, 0.2));
    assert!(h.closest(to).distance > R::ZERO);
    let hit = h.raycast(from, to, R::ZERO).expect("no tunnelling");
    assert!(near(hit.fraction, 0.499));
    assert!(near_v(hit.normal, 0.0, 1.0, 0.0));
    let hit = h.raycast(to, from, R::from_f64(0.05)).expect("no tunnelling, inflated");
    assert!(near(hit.fraction, 0.495));
    assert!(near_v(hit.normal, 0.0, -1.0, 0.0));
}

#[test]
fn thin_hull_is_not_tunnelled() {
    check_thin_slab::<f32>();
    check_thin_slab::<f64>();
}

fn check_tetrahedron<R: Real>() {
    let pts = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let h = hull::<R>(&pts).expect("valid tetrahedron");
    assert_eq!(h.vertices().len(), 4);
    assert_eq!(h.faces().len(), 4);
    assert_eq!(h.edges(), vec![(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]);
    let input: Vec<Vector3<R>> = pts.iter().map(|p| v(p[0], p[1], p[2])).collect();
    check_valid(&h, &input, tol::<R>());
    // The slanted face x + y + z = 1.
    let s3 = 1.0 / 3f64.sqrt();
    let pr = h.closest(v(1.0, 1.0, 1.0));
    assert!(near(pr.distance, 2.0 * s3));
    assert!(near_v(pr.normal, s3, s3, s3));
    let pr = h.closest(v(0.1, 0.1, 0.1));
    assert!(near(pr.distance, -0.1));
    // Beyond a vertex.
    let pr = h.closest(v(3.0, -1.0, -1.0));
    assert!(near(pr.distance, 6f64.sqrt()));
    // Any input order and orientation gives an outward hull.
    let flipped = [pts[1], pts[0], pts[3], pts[2]];
    let g = hull::<R>(&flipped).expect("valid");
    check_valid(&g, &input, tol::<R>());
}

#[test]
fn tetrahedron() {
    check_tetrahedron::<f32>();
    check_tetrahedron::<f64>();
}

fn check_random_cloud<R: Real>(seed: u64, count: usize, sphere: bool) {
    let mut rng = Lcg(seed);
    let mut pts = Vec::new();
    while pts.len() < count {
        let p = [rng.next() * 2.0 - 1.0, rng.next() * 2.0 - 1.0, rng.next() * 2.0 - 1.0];
        let l = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        if sphere {
            if l > 0.1 && l <= 1.0 {
                pts.push([3.0 * p[0] / l + 1.0, 3.0 * p[1] / l, 3.0 * p[2] / l - 2.0]);
            }
        } else {
            pts.push([p[0] * 2.0, p[1], p[2] * 0.5]);
        }
    }
    let h = hull::<R>(&pts).expect("valid cloud");
    let input: Vec<Vector3<R>> = pts.iter().map(|p| v(p[0], p[1], p[2])).collect();
    let size = if sphere { 6.0 } else { 4.0 };
    // Containment up to the construction tolerance (16·size + 1)·ε, doubled.
    let slack = 2.0 * (16.0 * size + 1.0) * R::GEOMETRIC_EPSILON.to_f64();
    check_valid(&h, &input, slack);
    if sphere {
        // Points on a sphere are all extreme, barring near-coincident pairs.
        assert!(h.vertices().len() * 10 >= count * 9, "{} of {count}", h.vertices().len());
    }
    // Every input point's signed distance is ≤ the slack, and support agrees with brute force.
    for &p in &input {
        assert!(h.closest(p).distance.to_f64() <= slack);
    }
    let d = v::<R>(0.3, -0.8, 0.5);
    let best = input.iter().map(|p| p.dot(d).to_f64()).fold(f64::MIN, f64::max);
    assert!((h.support(d).dot(d).to_f64() - best).abs() <= slack);
    assert_eq!(hull::<R>(&pts).expect("valid"), h);
}

#[test]
fn random_clouds_are_contained() {
    for seed in 1..6 {
        check_random_cloud::<f32>(seed, 300, false);
        check_random_cloud::<f64>(seed, 300, false);
        check_random_cloud::<f32>(seed, 200, true);
        check_random_cloud::<f64>(seed, 200, true);
    }
}

fn check_distance_against_sampling<R: Real>() {
    // Exact outside distances from a random hull, compared with dense surface sampling.
    let mut rng = Lcg(99);
    let pts: Vec<[f64; 3]> = (0..40).map(|_| [rng.next(), rng.next() * 2.0, rng.next() * 0.7]).collect();
    let h = hull::<R>(&pts).expect("valid");
    for _ in 0..50 {
        let p = [rng.next() * 4.0 - 1.5, rng.next() * 5.0 - 1.5, rng.next() * 3.0 - 1.0];
        let pr = h.closest(v(p[0], p[1], p[2]));
        let mut best = f64::MAX;
        for f in h.faces() {
            let [a, b, c] = f.map(|i| h.vertices()[i].to_f64_array());
            let steps = 60;
            for i in 0..=steps {
                for j in 0..=(steps - i) {
                    let (u, w) = (f64::from(i) / f64::from(steps), f64::from(j) / f64::from(steps));
                    let q: Vec<f64> = (0..3).map(|k| a[k] + (b[k] - a[k]) * u + (c[k] - a[k]) * w).collect();
                    let d2: f64 = (0..3).map(|k| (p[k] - q[k]).powi(2)).sum();
                    best = best.min(d2.sqrt());
                }
            }
        }
        let d = pr.distance.to_f64();
        // Sampling over-estimates by at most the sample spacing.
        assert!(d.abs() <= best + 1e-4 && d.abs() >= best - 0.05, "{p:?}: {d} vs {best}");
        let on = v::<R>(p[0], p[1], p[2]) - pr.normal * pr.distance;
        assert!(h.closest(on).distance.abs().to_f64() < 1e-3);
    }
}

#[test]
fn distances_match_sampling() {
    check_distance_against_sampling::<f32>();
    check_distance_against_sampling::<f64>();
}

fn check_rejections<R: Real>() {
    let e = |pts: &[[f64; 3]]| hull::<R>(pts).err();
    assert_eq!(
        e(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),
        Some(ConvexError::TooFewPoints { given: 3, needed: 4 })
    );
    assert_eq!(e(&[]), Some(ConvexError::TooFewPoints { given: 0, needed: 4 }));
    assert_eq!(
        e(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, f64::NAN], [0.0, 0.0, 1.0]]),
        Some(ConvexError::NonFinite { index: 2 })
    );
    assert_eq!(
        e(&[[f64::NEG_INFINITY, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
        Some(ConvexError::NonFinite { index: 0 })
    );
    // Coincident.
    assert_eq!(e(&[[1.0, 2.0, 3.0]; 6]), Some(ConvexError::Degenerate));
    // Collinear.
    let line: Vec<[f64; 3]> = (0..6).map(|i| [f64::from(i), 2.0 * f64::from(i), -f64::from(i)]).collect();
    assert_eq!(e(&line), Some(ConvexError::Degenerate));
    // Coplanar grid in a slanted plane.
    let mut plane = Vec::new();
    for i in 0..5 {
        for j in 0..5 {
            let (a, b) = (f64::from(i), f64::from(j));
            plane.push([a, b, 0.5 * a - 0.25 * b + 1.0]);
        }
    }
    assert_eq!(e(&plane), Some(ConvexError::Degenerate));
    // Four points, two of them the same: a triangle.
    assert_eq!(e(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]), Some(ConvexError::Degenerate));
    // A square plus a point lifted far less than the tolerance.
    assert_eq!(
        e(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 1e-12]]),
        Some(ConvexError::Degenerate)
    );
}

#[test]
fn bad_input_is_rejected() {
    check_rejections::<f32>();
    check_rejections::<f64>();
}

#[test]
fn fixed_point_rejects_flat_input_and_keeps_thin_hulls() {
    type X = crate::Fx;
    let e = |pts: &[[f64; 3]]| hull::<X>(pts).err();
    // Flat: a square plus a point lifted far less than the tolerance; a triangle.
    let lifted = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 1e-5]];
    assert_eq!(e(&lifted), Some(ConvexError::Degenerate));
    assert_eq!(e(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]), Some(ConvexError::Degenerate));
    // A 2 mm × 6 m × 1 m plank is a box of 8 vertices and 6 faces.
    let mut plank = Vec::new();
    for x in [-3.0, 3.0] {
        for y in [-0.001, 0.001] {
            for z in [-0.5, 0.5] {
                plank.push([x, y, z]);
            }
        }
    }
    let h = hull::<X>(&plank).unwrap();
    assert_eq!(h.vertices().len(), 8);
    for (n, d) in h.face_planes() {
        // Each face plane is one of the box's: a unit axis at the half extent.
        let a = n.to_f64_array().map(f64::abs);
        let (axis, half) = if a[0] > 0.999 {
            (0, 3.0)
        } else if a[1] > 0.999 {
            (1, 0.001)
        } else {
            (2, 0.5)
        };
        // (Fixed point's unit normals are within ~4e-6 of unit length: its reciprocal
        // square root; the offset carries that error times the distance, 12 µm at 3 m.)
        assert!(a[axis] > 0.99999 && (d.to_f64() - half).abs() < 1e-5 * (1.0 + half), "plane {a:?} at {}", d.to_f64());
    }
}

#[test]
fn closest_point_on_triangle_regions() {
    let (a, b, c) = (v::<f64>(0.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(0.0, 2.0, 0.0));
    let cases = [
        ([-1.0, -1.0, 1.0], [0.0, 0.0, 0.0]),
        ([3.0, -1.0, 0.0], [2.0, 0.0, 0.0]),
        ([-1.0, 3.0, 5.0], [0.0, 2.0, 0.0]),
        ([1.0, -1.0, 2.0], [1.0, 0.0, 0.0]),
        ([-1.0, 1.0, 0.0], [0.0, 1.0, 0.0]),
        ([2.0, 2.0, -1.0], [1.0, 1.0, 0.0]),
        ([0.5, 0.5, 3.0], [0.5, 0.5, 0.0]),
    ];
    for (p, q) in cases {
        let got = closest_on_triangle(v(p[0], p[1], p[2]), a, b, c);
        assert!(near_v(got, q[0], q[1], q[2]), "{p:?} → {got:?}");
    }
}
