//! A smooth curve through rope particles for drawing: centripetal Catmull–Rom.
//!
//! Particles are a polyline; drawn as such, a rope shows kinks at every particle. The
//! Catmull–Rom spline passes through every particle with a continuous tangent. The
//! *centripetal* parameterisation (knot spacing `|Δx|^½`, Yuksel et al. 2011) never forms
//! cusps or self-intersections within a segment, which uniform Catmull–Rom can when
//! particles bunch up, as they do where a rope piles on the ground.

use crate::math::{Real, Vector};

/// Samples a centripetal Catmull–Rom curve through `points`, `per_segment` samples per
/// segment (≥ 1); the result starts at the first point and ends at the last. Fewer than
/// two points are returned as they are.
#[must_use]
pub fn catmull_rom<R: Real, V: Vector<R>>(points: &[V], per_segment: usize) -> Vec<V> {
    let n = points.len();
    if n < 2 {
        return points.to_vec();
    }
    let per = per_segment.max(1);
    let mut out = Vec::with_capacity((n - 1) * per + 1);
    for i in 0..n - 1 {
        // Phantom end points mirror the neighbour so the curve starts and ends cleanly.
        let p1 = points[i];
        let p2 = points[i + 1];
        let p0 = if i > 0 { points[i - 1] } else { p1 + (p1 - p2) };
        let p3 = if i + 2 < n { points[i + 2] } else { p2 + (p2 - p1) };
        let knot = |a: V, b: V| {
            let d = (b - a).length().sqrt();
            if d > R::GEOMETRIC_EPSILON { d } else { R::ONE }
        };
        let t1 = knot(p0, p1);
        let t2 = t1 + knot(p1, p2);
        let t3 = t2 + knot(p2, p3);
        for k in 0..per {
            let t = t1 + (t2 - t1) * R::from_ratio(k as i32, per as i32);
            // Barry–Goldman pyramidal evaluation.
            let a1 = p0 * ((t1 - t) / t1) + p1 * (t / t1);
            let a2 = p1 * ((t2 - t) / (t2 - t1)) + p2 * ((t - t1) / (t2 - t1));
            let a3 = p2 * ((t3 - t) / (t3 - t2)) + p3 * ((t - t2) / (t3 - t2));
            let b1 = a1 * ((t2 - t) / t2) + a2 * (t / t2);
            let b2 = a2 * ((t3 - t) / (t3 - t1)) + a3 * ((t - t1) / (t3 - t1));
            out.push(b1 * ((t2 - t) / (t2 - t1)) + b2 * ((t - t1) / (t2 - t1)));
        }
    }
    out.push(points[n - 1]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vector2;

    #[test]
    fn curve_passes_through_every_particle_and_stays_straight_on_a_line() {
        let pts: Vec<Vector2<f64>> = (0..5).map(|i| Vector2::new(i as f64 * 0.5, 0.0)).collect();
        let c = catmull_rom(&pts, 4);
        assert_eq!(c.len(), 4 * 4 + 1);
        for (k, p) in c.iter().enumerate() {
            assert!(p.y.abs() < 1e-12);
            if k % 4 == 0 {
                assert!((p.x - (k / 4) as f64 * 0.5).abs() < 1e-12);
            }
        }
        let bent = [Vector2::new(0.0, 0.0), Vector2::new(1.0, 1.0), Vector2::new(2.0, 0.0)];
        let c = catmull_rom(&bent, 8);
        assert!((c[8] - bent[1]).length() < 1e-12);
        assert!(c.iter().all(|p| p.y <= 1.0 + 1e-9 && p.y >= -0.2));
    }
}
