//! A taut rope as a strand: its path (straight spans, corners, arcs) instead of its
//! particles, which would cut each corner by up to half a segment.

use super::geom::P3;

/// The taut path `path` drawn for a rope of `n` particles whose per-segment tensions are
/// `tensions`: for each path point the particle nearest to it along the rope (for
/// picking), for each path segment the tension of the rope segment at its middle.
pub(super) fn taut_strand(path: &[P3], particle_ids: &[u32], tensions: &[f64]) -> (Vec<u32>, Vec<f64>) {
    let mut arc = Vec::with_capacity(path.len());
    let mut s = 0.0;
    for (k, p) in path.iter().enumerate() {
        if k > 0 {
            let q = path[k - 1];
            s += ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
        }
        arc.push(s);
    }
    let total = if s > 0.0 { s } else { 1.0 };
    let segments = particle_ids.len().saturating_sub(1).max(1);
    let at = |a: f64| ((a / total) * segments as f64).clamp(0.0, segments as f64);
    let ids = arc.iter().map(|&a| particle_ids.get(at(a).round() as usize).copied().unwrap_or(0)).collect();
    let ts = arc
        .windows(2)
        .map(|w| tensions.get((at((w[0] + w[1]) * 0.5) as usize).min(segments - 1)).copied().unwrap_or(0.0))
        .collect();
    (ids, ts)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_strand_maps_path_points_to_particles_by_arc_length() {
        let path = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 3.0, 0.0]];
        let (ids, ts) = super::taut_strand(&path, &[10, 11, 12, 13, 14], &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(ids, [10, 11, 14]);
        assert_eq!(ts, [1.0, 3.0]);
    }
}
