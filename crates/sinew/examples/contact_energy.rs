//! Energy bookkeeping of particles among colliders: random 2D scenes (8 colliders of
//! every shape, rotated, over a ground; 30 particles thrown among them; restitution 0)
//! stepped for 5 s. Contacts may only take energy out, so the kinetic plus potential
//! energy of each particle should never rise from one frame to the next; this prints the
//! largest rise found and where, and every rise above 10 mJ in the worst scene.
//!
//! ```sh
//! cargo run --release -p sinew --example contact_energy
//! ```

use sinew::ParticleHandle;
use sinew::prelude::*;

/// A fixed linear congruential generator in `[0, 1)`.
fn next(s: &mut u64) -> f64 {
    *s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
    (*s >> 11) as f64 / (1u64 << 53) as f64
}

/// The scene of `seed`, and its particles.
fn scene(seed: u64, friction: f64) -> (World2d, Vec<ParticleHandle>) {
    let mut s = seed;
    let mut w = World2d::new(WorldDef { friction, ..WorldDef::default() }).unwrap();
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

/// Kinetic plus potential energy of one particle (J).
fn energy(w: &World2d, p: ParticleHandle) -> f64 {
    let (x, v, m) =
        (w.particles().position(p).unwrap(), w.particles().velocity(p).unwrap(), w.particles().mass(p).unwrap());
    0.5 * m * v.length_squared() + m * 9.81 * x.y
}

/// Runs a scene; calls `rise(frame, particle, gain)` for every frame-to-frame energy rise.
fn run(seed: u64, friction: f64, mut rise: impl FnMut(usize, usize, f64)) {
    let (mut w, ps) = scene(seed, friction);
    let mut before: Vec<f64> = ps.iter().map(|&p| energy(&w, p)).collect();
    for f in 0..300 {
        w.step(1.0 / 60.0).unwrap();
        for (i, &p) in ps.iter().enumerate() {
            let e = energy(&w, p);
            if e > before[i] {
                rise(f, i, e - before[i]);
            }
            before[i] = e;
        }
    }
}

fn main() {
    let mut worst = (0.0, 0, 0.0, 0, 0);
    for seed in 1..=40 {
        for friction in [0.0, 0.5] {
            run(seed, friction, |f, i, gain| {
                if gain > worst.0 {
                    worst = (gain, seed, friction, f, i);
                }
            });
        }
    }
    let (gain, seed, friction, frame, particle) = worst;
    println!(
        "largest rise in one frame: {gain:.4} J (seed {seed}, friction {friction}, frame {frame}, particle {particle})"
    );
    run(seed, friction, |f, i, gain| {
        if gain > 0.01 {
            println!("  seed {seed}: frame {f}, particle {i}: +{gain:.4} J");
        }
    });
}
