//! Soak: ropes and a ragdoll in a room, in wind gusts of random direction and random
//! drag, for a long run in f32 and in fixed point: no particle ever non-finite (none
//! recovered by the step's safety net), energy bounded, memory flat.
//!
//! `SINEW_SOAK_STEPS` sets the length (default 100,000 steps of 1/60 s, 28 minutes
//! simulated, a few seconds; `SINEW_SOAK_STEPS=1000000 cargo test -p sinew --test suite
//! soak` runs the 10⁶ of issue #26).

use crate::rng::Rng;
use sinew::prelude::*;
use sinew::ragdoll::presets;
use sinew::{RopeHandle, World};

const DT: f64 = 1.0 / 60.0;
const G: f64 = 9.81;
/// Strongest gust (m/s).
const GUST: f64 = 15.0;

/// Kinetic plus gravitational energy above the floor (J).
fn energy<R: Real>(w: &World<Space2<R>>) -> f64 {
    let ps = w.particles();
    ps.handles()
        .map(|h| {
            let m = ps.mass(h).unwrap().to_f64();
            let v = ps.velocity(h).unwrap().to_f64_array();
            let y = ps.position(h).unwrap().to_f64_array()[1];
            0.5 * m * (v[0] * v[0] + v[1] * v[1]) + m * G * y
        })
        .sum()
}

fn soak<R: Real>(steps: u64) {
    let name = R::NAME;
    let v = |x: f64, y: f64| Vector2::<R>::from_f64(x, y);
    let mut w = World::<Space2<R>>::new(WorldDef::default().friction(R::from_f64(0.5))).unwrap();
    // A room: floor, walls 20 m out, a ceiling at 30 m (the wind would carry the loose
    // rope away).
    for (n, off) in [((0.0, 1.0), 0.0), ((1.0, 0.0), -20.0), ((-1.0, 0.0), -20.0), ((0.0, -1.0), -30.0)] {
        let plane = Shape::half_space(v(n.0, n.1), R::from_f64(off)).unwrap();
        w.add_collider(&ColliderDef::new(plane)).unwrap();
    }
    let ropes: Vec<RopeHandle> = [(-3.0, 4.0), (3.0, 5.0)]
        .iter()
        .map(|&(x, y)| {
            let def = RopeDef::between(v(x, y), v(x + 2.0, y)).segments(30).mass(R::from_f64(0.3)).pin_start();
            w.add_rope(&def.radius(R::from_f64(0.02))).unwrap()
        })
        .collect();
    // A loose rope lying on the ground, free to blow about.
    let loose = w.add_rope(&RopeDef::between(v(-1.0, 0.05), v(1.0, 0.05)).segments(20).radius(R::from_f64(0.02)));
    let ropes: Vec<RopeHandle> = ropes.into_iter().chain([loose.unwrap()]).collect();
    Ragdoll::spawn(&mut w, &presets::humanoid16::<R>(), v(0.0, 2.0), R::ONE, v(1.0, 0.0)).unwrap();
    let ps = w.particles();
    let rope_mass: f64 =
        ropes.iter().flat_map(|&h| w.rope(h).unwrap().particles()).map(|&p| ps.mass(p).unwrap().to_f64()).sum();
    // Energy bounded: what the bodies start with, plus what the wind can give the ropes it
    // blows (a pinned rope swings past the gust: twice its speed, say).
    let bound = energy(&w) + 0.5 * rope_mass * (2.0 * GUST).powi(2);
    let mut rng = Rng(0x5eed_0000_0000_0001);
    let (mut worst, mut size_early) = (f64::MIN, 0);
    for step in 0..steps {
        if step % 600 == 0 {
            // A new gust: direction, strength and drag at random (drag·dt/m up to ~300).
            for &h in &ropes {
                let a = rng.next() * std::f64::consts::TAU;
                let s = GUST * rng.next();
                let drag = 3.0 * rng.next() * rng.next();
                w.set_rope_wind(h, v(s * a.cos(), s * a.sin()), R::from_f64(drag)).unwrap();
            }
        }
        let report = w.step(R::from_f64(DT)).unwrap();
        assert_eq!(report.recovered_particles, 0, "{name}: step {step}: a particle went non-finite");
        if step % 1000 == 999 {
            let e = energy(&w);
            worst = worst.max(e);
            assert!(e <= bound, "{name}: step {step}: energy {e} J above the bound {bound} J");
            for p in w.particles().positions() {
                let p = p.to_f64_array();
                assert!(p[0].abs() < 20.5 && (-0.5..30.5).contains(&p[1]), "{name}: step {step}: {p:?}");
            }
            let size = w.snapshot().size_bytes();
            if step == 9_999 {
                size_early = size;
            }
            if size_early > 0 {
                assert_eq!(size, size_early, "{name}: step {step}: the state grew");
            }
        }
    }
    println!("soak {name}: {steps} steps, energy at most {worst:.1} J (bound {bound:.1} J)");
}

fn steps() -> u64 {
    std::env::var("SINEW_SOAK_STEPS").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000)
}

#[test]
fn soak_ropes_and_a_ragdoll_in_random_gusts_f32() {
    soak::<f32>(steps());
}

#[test]
fn soak_ropes_and_a_ragdoll_in_random_gusts_fixed() {
    soak::<Fx>(steps());
}
