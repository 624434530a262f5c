//! The engine-free half of the peer benchmarks: the scenarios every engine runs and the
//! stretch metric every engine is scored by.
//!
//! The engines themselves are dev-dependencies, wired up in `harness/mod.rs` (rope: shared by
//! `benches/rope.rs` and `examples/stretch.rs`) and `harness/ragdolls.rs` (ragdolls: shared by
//! `benches/ragdolls.rs` and `examples/ragdoll_quality.rs`). See `README.md` for how to run
//! them and the recorded figures.

/// The rope scenario, identical for every engine.
///
/// A 5 m rope of 101 particles (100 segments of 5 cm), 1 kg in total, particle radius 1 cm,
/// pinned at particle 0 (the origin), starting straight along +x at rest and swinging down
/// under gravity `(0, -9.81, 0)` for 2 s in 120 steps of 1/60 s, on one thread, with no
/// colliders.
pub mod scenario {
    /// Number of particles.
    pub const PARTICLES: usize = 101;
    /// Number of segments (links between neighbours).
    pub const SEGMENTS: usize = PARTICLES - 1;
    /// Rope length (m).
    pub const LENGTH: f32 = 5.0;
    /// Rest length of one segment (m).
    pub const SEGMENT: f32 = LENGTH / SEGMENTS as f32;
    /// Total mass (kg), split evenly over the particles (the pinned one's share is moot).
    pub const TOTAL_MASS: f32 = 1.0;
    /// Mass of one particle (kg).
    pub const PARTICLE_MASS: f32 = TOTAL_MASS / PARTICLES as f32;
    /// Particle radius (m); there are no colliders, so it only matters to engines that use it.
    pub const RADIUS: f32 = 0.01;
    /// Gravity along −y (m/s²).
    pub const GRAVITY: f32 = 9.81;
    /// Step length (s).
    pub const DT: f32 = 1.0 / 60.0;
    /// Steps in the scenario (2 s).
    pub const STEPS: usize = 120;

    /// Initial position of particle `i`: along +x from the pin at the origin.
    #[must_use]
    pub fn initial_position(i: usize) -> [f32; 3] {
        [i as f32 * SEGMENT, 0.0, 0.0]
    }
}

/// The ragdoll scenario (`benches/ragdolls.rs`, `examples/ragdoll_quality.rs`), identical
/// for every 3D variant.
///
/// 125 ragdolls (a 5 × 5 × 5 grid, 1 m apart in x and z, 2 m apart in height, the lowest
/// layer's feet 0.5 m above the ground) drop onto a ground plane at `y = 0` under gravity
/// `(0, -9.81, 0)`, each with a small horizontal velocity to break the symmetry, in steps of
/// 1/60 s on one thread. The first [`WARM_STEPS`](ragdoll_scenario::WARM_STEPS) (3 s) run
/// untimed: every layer has landed and the bodies lie on the ground or on each other. The
/// next [`WINDOW_STEPS`](ragdoll_scenario::WINDOW_STEPS) (3–5 s) are the timed window.
pub mod ragdoll_scenario {
    /// Ragdolls per grid side.
    pub const GRID: usize = 5;
    /// Number of ragdolls.
    pub const COUNT: usize = GRID * GRID * GRID;
    /// Horizontal spacing (m) of the grid, along x and z.
    pub const SPACING: f32 = 1.0;
    /// Vertical spacing (m) of the grid's layers.
    pub const LAYER: f32 = 2.0;
    /// Height (m) of the lowest layer's rig origin (the feet are at the origin's height).
    pub const LIFT: f32 = 0.5;
    /// Friction coefficient of every contact (Rapier's default collider friction).
    pub const FRICTION: f32 = 0.5;
    /// Step length (s).
    pub const DT: f32 = 1.0 / 60.0;
    /// Untimed steps before the timed window (3 s).
    pub const WARM_STEPS: usize = 180;
    /// Steps in the timed window (2 s, from 3 s to 5 s).
    pub const WINDOW_STEPS: usize = 120;

    /// Rig origin of ragdoll `n` (its rest pose's feet are at the origin's height).
    #[must_use]
    pub fn origin(n: usize) -> [f32; 3] {
        let (i, j, k) = (n % GRID, (n / GRID) % GRID, n / (GRID * GRID));
        let centre = (GRID - 1) as f32 / 2.0;
        [(i as f32 - centre) * SPACING, LIFT + k as f32 * LAYER, (j as f32 - centre) * SPACING]
    }

    /// Initial velocity of ragdoll `n` (m/s): horizontal, from −0.5 to 0.5 m/s per axis.
    #[must_use]
    pub fn velocity(n: usize) -> [f32; 3] {
        [0.25 * ((n * 3) % 5) as f32 - 0.5, 0.0, 0.25 * ((n * 7) % 5) as f32 - 0.5]
    }
}

/// Worst relative stretch of the chain `positions` (particle `i` linked to `i + 1`):
/// `max_i (|x_i − x_{i+1}| − rest) / rest`. Compression counts as negative stretch, so a
/// rope that never stretches scores ≤ 0. NaN positions make the result NaN.
#[must_use]
pub fn chain_stretch(positions: &[[f32; 3]], rest: f32) -> f32 {
    let mut worst = f32::NEG_INFINITY;
    for pair in positions.windows(2) {
        let [a, b] = [pair[0], pair[1]];
        let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
        // Accumulate in f64: a 5 cm segment stretched by 1e-6 must not vanish in rounding.
        let len = (f64::from(d[0]).powi(2) + f64::from(d[1]).powi(2) + f64::from(d[2]).powi(2)).sqrt();
        let s = ((len - f64::from(rest)) / f64::from(rest)) as f32;
        if s.is_nan() {
            return f32::NAN;
        }
        worst = worst.max(s);
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ragdoll_grid_is_distinct_and_centred() {
        use ragdoll_scenario::{COUNT, origin};
        let o: Vec<_> = (0..COUNT).map(origin).collect();
        for (a, p) in o.iter().enumerate() {
            for q in &o[a + 1..] {
                assert!(p != q);
            }
        }
        let mean_x: f32 = o.iter().map(|p| p[0]).sum::<f32>() / COUNT as f32;
        assert!(mean_x.abs() < 1e-5);
    }

    #[test]
    fn initial_rope_has_no_stretch() {
        let p: Vec<_> = (0..scenario::PARTICLES).map(scenario::initial_position).collect();
        assert!(chain_stretch(&p, scenario::SEGMENT).abs() < 1e-5);
    }

    #[test]
    fn worst_segment_wins() {
        let p = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.1, 0.0], [1.0, 2.0, 0.0]];
        assert!((chain_stretch(&p, 1.0) - 0.1).abs() < 1e-6);
        let q = [[0.0, 0.0, 0.0], [0.5, 0.0, 0.0]];
        assert!((chain_stretch(&q, 1.0) + 0.5).abs() < 1e-6);
        assert!(chain_stretch(&[[0.0, 0.0, 0.0], [f32::NAN, 0.0, 0.0]], 1.0).is_nan());
    }
}
