//! The random scenes of `contact_energy.rs`, shared with the contacts tests: 8
//! colliders of every shape, rotated, over a ground, and 30 particles thrown among them.
//! (Not an example of its own: cargo builds only `examples/*.rs` and `examples/*/main.rs`.)

use sinew::ParticleHandle;
use sinew::prelude::*;
use sinew::{DVec2, Rot2};

/// A fixed linear congruential generator in `[0, 1)`.
pub fn next(s: &mut u64) -> f64 {
    *s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
    (*s >> 11) as f64 / (1u64 << 53) as f64
}

/// The scene of `seed`, and its particles.
pub fn scene(seed: u64, friction: f64) -> (World2d, Vec<ParticleHandle>) {
    let mut s = seed;
    let mut w = World2d::new(WorldDef::default().friction(friction)).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(DVec2::new(0.0, 1.0), 0.0).unwrap())).unwrap();
    for i in 0..8 {
        let at = DVec2::new(-3.0 + 6.0 * next(&mut s), 0.5 + 2.0 * next(&mut s));
        let shape = match i % 4 {
            0 => Shape::ball(0.1 + 0.3 * next(&mut s)).unwrap(),
            1 => Shape::cuboid(DVec2::new(0.1 + 0.5 * next(&mut s), 0.05 + 0.2 * next(&mut s))).unwrap(),
            2 => Shape::capsule(DVec2::new(-0.3, 0.0), DVec2::new(0.3, 0.1), 0.05 + 0.1 * next(&mut s)).unwrap(),
            _ => Shape::convex(&[
                DVec2::new(-0.3, -0.2),
                DVec2::new(0.3, -0.2),
                DVec2::new(0.35, 0.15),
                DVec2::new(0.0, 0.35),
                DVec2::new(-0.35, 0.15),
            ])
            .unwrap(),
        };
        let angle = std::f64::consts::TAU * next(&mut s);
        w.add_collider(&ColliderDef::new(shape).position(at).rotation(Rot2::from_angle(angle))).unwrap();
    }
    let particles = (0..30)
        .map(|_| {
            let x = DVec2::new(-3.0 + 6.0 * next(&mut s), 3.5 + 2.0 * next(&mut s));
            let v = DVec2::new(-2.0 + 4.0 * next(&mut s), -2.0 + 4.0 * next(&mut s));
            w.add_particle(&ParticleDef::at(x).radius(0.02 + 0.05 * next(&mut s)).velocity(v)).unwrap()
        })
        .collect();
    (w, particles)
}
