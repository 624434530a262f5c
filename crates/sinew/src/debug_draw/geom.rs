//! Small `[f64; 3]` vector helpers for debug drawing (its primitives are in `f64` whatever
//! the world's scalar, so the library's generic vectors are not needed here).

pub(crate) type P3 = [f64; 3];

#[inline]
pub(crate) fn add(a: P3, b: P3) -> P3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

#[inline]
pub(crate) fn sub(a: P3, b: P3) -> P3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline]
pub(crate) fn scale(a: P3, s: f64) -> P3 {
    [a[0] * s, a[1] * s, a[2] * s]
}

/// `a + b·s`.
#[inline]
pub(crate) fn add_scaled(a: P3, b: P3, s: f64) -> P3 {
    [a[0] + b[0] * s, a[1] + b[1] * s, a[2] + b[2] * s]
}

#[inline]
pub(crate) fn dot(a: P3, b: P3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline]
pub(crate) fn cross(a: P3, b: P3) -> P3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

#[inline]
pub(crate) fn length(a: P3) -> f64 {
    dot(a, a).sqrt()
}

/// `a` scaled to unit length, or `None` when it is (nearly) zero or not finite.
#[inline]
pub(crate) fn normalize(a: P3) -> Option<P3> {
    let l = length(a);
    (l > 1e-12 && l.is_finite()).then(|| scale(a, 1.0 / l))
}

#[inline]
pub(crate) fn finite(a: P3) -> bool {
    a.iter().all(|c| c.is_finite())
}

/// A unit vector perpendicular to the unit vector `n`, in the xy plane whenever `n` is not
/// along z (so that 2D drawings stay in their plane).
#[must_use]
pub(crate) fn perpendicular(n: P3) -> P3 {
    normalize([-n[1], n[0], 0.0]).or_else(|| normalize(cross(n, [1.0, 0.0, 0.0]))).unwrap_or([1.0, 0.0, 0.0])
}

/// `v` turned by `angle` (rad) about the unit `axis` (Rodrigues; right-hand rule).
#[must_use]
pub(crate) fn rotate(v: P3, axis: P3, angle: f64) -> P3 {
    let (s, c) = angle.sin_cos();
    let k = axis;
    add(add(scale(v, c), scale(cross(k, v), s)), scale(k, dot(k, v) * (1.0 - c)))
}

/// Points of a circle of `radius` about `center` in the plane normal to the unit `axis`,
/// `n` of them, not repeating the first.
#[must_use]
pub(crate) fn ring(center: P3, axis: P3, radius: f64, n: usize) -> Vec<P3> {
    let u = scale(perpendicular(axis), radius);
    (0..n).map(|k| add(center, rotate(u, axis, k as f64 / n as f64 * std::f64::consts::TAU))).collect()
}
