//! Energy bookkeeping of particles among colliders: random 2D scenes (8 colliders of
//! every shape, rotated, over a ground; 30 particles thrown among them; restitution 0)
//! stepped for 5 s. Contacts may only take energy out, so the kinetic plus potential
//! energy of each particle should never rise from one frame to the next; this prints the
//! largest rise found and where, and every rise above 10 mJ in the worst scene.
//!
//! ```sh
//! cargo run --release -p sinew --example contact_energy
//! ```

#[path = "shared/energy_scene.rs"]
mod energy_scene;

use energy_scene::scene;
use sinew::ParticleHandle;
use sinew::prelude::*;

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
