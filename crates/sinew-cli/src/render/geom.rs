//! `[f64; 3]` vector helpers for the renderer (world coordinates, `z = 0` in 2D).

pub type P3 = [f64; 3];

pub fn add(a: P3, b: P3) -> P3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

pub fn sub(a: P3, b: P3) -> P3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `a + b·s`.
pub fn add_scaled(a: P3, b: P3, s: f64) -> P3 {
    [a[0] + b[0] * s, a[1] + b[1] * s, a[2] + b[2] * s]
}

pub fn dot(a: P3, b: P3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn cross(a: P3, b: P3) -> P3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

pub fn mid(a: P3, b: P3) -> P3 {
    [0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 0.5 * (a[2] + b[2])]
}

pub fn finite3(p: P3) -> bool {
    p.iter().all(|c| c.is_finite())
}

/// `a` at unit length, or `None` when it is (nearly) zero.
pub fn normalize(a: P3) -> Option<P3> {
    let l = dot(a, a).sqrt();
    (l > 1e-12 && l.is_finite()).then(|| [a[0] / l, a[1] / l, a[2] / l])
}

/// A unit vector perpendicular to the unit `n` (in the xy plane unless `n` is along z).
pub fn perpendicular(n: P3) -> P3 {
    normalize([-n[1], n[0], 0.0]).or_else(|| normalize(cross(n, [1.0, 0.0, 0.0]))).unwrap_or([1.0, 0.0, 0.0])
}

/// `v` turned by `angle` (rad) about the unit `axis` (right-handed).
pub fn rotate(v: P3, axis: P3, angle: f64) -> P3 {
    let (s, c) = angle.sin_cos();
    let k = cross(axis, v);
    let along = dot(axis, v) * (1.0 - c);
    std::array::from_fn(|i| v[i] * c + k[i] * s + axis[i] * along)
}

/// `n` points of a circle of `radius` about `center`, in the plane normal to `axis`.
pub fn ring(center: P3, axis: P3, radius: f64, n: usize) -> Vec<P3> {
    let u = perpendicular(axis).map(|c| c * radius);
    (0..n).map(|k| add(center, rotate(u, axis, k as f64 / n as f64 * std::f64::consts::TAU))).collect()
}
