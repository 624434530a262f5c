//! Closest points between two segments (the axes of two capsules), robust for parallel
//! and degenerate segments.
//!
//! With `p(s) = p₀ + s·d₁` and `q(t) = q₀ + t·d₂`, `s, t ∈ [0, 1]`, the squared distance
//! `|p(s) − q(t)|²` is a convex quadratic. Its unconstrained minimum solves
//!
//! ```text
//! [ a  −b ] [s]   [−c]      a = d₁·d₁, e = d₂·d₂, b = d₁·d₂,
//! [ b  −e ] [t] = [ f]      c = d₁·r,  f = d₂·r,  r = p₀ − q₀
//! ```
//!
//! so `s = (b·f − c·e)/(a·e − b²)` and `t = (b·s + f)/e`, each clamped to `[0, 1]` and the
//! other recomputed from the clamped one (Ericson, *Real-Time Collision Detection*, 2005,
//! §5.1.9). Two cases need care:
//!
//! - **Parallel** (`a·e − b² ≤ 10⁻³·a·e`, i.e. less than ~1.8° apart): the minimum is a
//!   whole interval. Ericson picks `s = 0`, an end of the overlap, so a rope lying along
//!   a bone would be pushed at one end only and turned. Here `s` is the middle of the
//!   overlap of `q`'s projection onto `p`'s line with `[0, 1]` (or the nearer end when
//!   they do not overlap): the push acts at the middle of the shared length.
//! - **Degenerate** (a segment shorter than the scalar's geometric epsilon, or a sphere
//!   given as a segment of one point): its parameter is 0 and the other one is the
//!   projection, clamped.
//!
//! Every division is guarded by those tests, so the result is finite for any finite
//! input, in `f32`, `f64` and fixed point.

use crate::math::{Real, Vector};

/// Parameters `(s, t)` of the closest points of `p₀p₁` and `q₀q₁`.
#[inline]
pub(crate) fn closest_params<R: Real, V: Vector<R>>(p0: V, p1: V, q0: V, q1: V) -> (R, R) {
    let (zero, one) = (R::ZERO, R::ONE);
    let eps = R::GEOMETRIC_EPSILON * R::GEOMETRIC_EPSILON;
    let d1 = p1 - p0;
    let d2 = q1 - q0;
    let r = p0 - q0;
    let a = d1.dot(d1);
    let e = d2.dot(d2);
    let f = d2.dot(r);
    if a <= eps && e <= eps {
        return (zero, zero);
    }
    if a <= eps {
        return (zero, (f / e).clamp(zero, one));
    }
    let c = d1.dot(r);
    if e <= eps {
        return ((-c / a).clamp(zero, one), zero);
    }
    let b = d1.dot(d2);
    let denom = a * e - b * b;
    let s = if denom > a * e * R::from_ratio(1, 1000) {
        ((b * f - c * e) / denom).clamp(zero, one)
    } else {
        // Parallel: the middle of the overlap of q's projection with [0, 1].
        let (u0, u1) = (-c / a, (b - c) / a);
        let (lo, hi) = (u0.min(u1), u0.max(u1));
        let (lo, hi) = (lo.max(zero), hi.min(one));
        if lo <= hi { (lo + hi) * R::HALF } else { ((u0 + u1) * R::HALF).clamp(zero, one) }
    };
    let t = (b * s + f) / e;
    if t < zero {
        ((-c / a).clamp(zero, one), zero)
    } else if t > one {
        (((b - c) / a).clamp(zero, one), one)
    } else {
        (s, t)
    }
}

#[cfg(test)]
mod tests {
    use super::closest_params;
    use crate::math::{Fx, Real, Vector, Vector3};

    fn v(x: f64, y: f64, z: f64) -> Vector3<f64> {
        Vector3::new(x, y, z)
    }

    /// Brute force over a fine grid of (s, t).
    fn brute(p0: Vector3<f64>, p1: Vector3<f64>, q0: Vector3<f64>, q1: Vector3<f64>) -> f64 {
        let n = 400;
        let mut best = f64::MAX;
        for i in 0..=n {
            for j in 0..=n {
                let (s, t) = (i as f64 / n as f64, j as f64 / n as f64);
                best = best.min(p0.lerp(p1, s).distance(q0.lerp(q1, t)));
            }
        }
        best
    }

    fn dist(p0: Vector3<f64>, p1: Vector3<f64>, q0: Vector3<f64>, q1: Vector3<f64>) -> f64 {
        let (s, t) = closest_params(p0, p1, q0, q1);
        assert!((0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t));
        p0.lerp(p1, s).distance(q0.lerp(q1, t))
    }

    #[test]
    fn closest_points_match_a_brute_force_search() {
        let mut seed = 7u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        for _ in 0..200 {
            let p = [v(rnd(), rnd(), rnd()), v(rnd(), rnd(), rnd()), v(rnd(), rnd(), rnd()), v(rnd(), rnd(), rnd())];
            let d = dist(p[0], p[1], p[2], p[3]);
            // The grid's spacing (1/400 of a segment ≤ 3.5 m) bounds its own error.
            assert!(d <= brute(p[0], p[1], p[2], p[3]) + 1e-9, "never farther than a sampled pair");
            assert!(d >= brute(p[0], p[1], p[2], p[3]) - 0.01);
        }
    }

    #[test]
    fn parallel_segments_touch_at_the_middle_of_their_overlap() {
        let (s, t) = closest_params(v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.5, 0.1, 0.0), v(2.0, 0.1, 0.0));
        assert!((s - 0.75).abs() < 1e-12 && (t - 1.0 / 6.0).abs() < 1e-12, "{s} {t}");
        // Disjoint along the line: the nearer ends.
        let (s, t) = closest_params(v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(2.0, 0.1, 0.0), v(3.0, 0.1, 0.0));
        assert_eq!((s, t), (1.0, 0.0));
    }

    #[test]
    fn degenerate_segments_and_coincident_points_give_finite_parameters() {
        let o = v(0.3, 0.3, 0.3);
        assert_eq!(closest_params(o, o, o, o), (0.0, 0.0));
        let (s, t) = closest_params(o, o, v(0.0, 0.0, 0.0), v(1.0, 1.0, 1.0));
        assert_eq!(s, 0.0);
        assert!((t - 0.3).abs() < 1e-12);
        let x = |a: f64, b: f64, c: f64| Vector3::<Fx>::new(Fx::from_f64(a), Fx::from_f64(b), Fx::from_f64(c));
        let (s, t) = closest_params(x(0.0, 0.0, 0.0), x(1.0, 0.0, 0.0), x(0.0, 0.0, 0.0), x(1.0, 0.0, 0.0));
        assert!(s.is_finite() && t.is_finite());
        assert!((s.to_f64() - 0.5).abs() < 1e-6 && (t.to_f64() - 0.5).abs() < 1e-6);
    }
}
