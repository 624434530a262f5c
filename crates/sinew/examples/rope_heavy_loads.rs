//! A rope over a round post carrying weights much heavier than its own particles: how far
//! the rope stretches, and whether friction holds against the capstan law.
//!
//! The rope of `rope_capstan.rs` (2.66 m, 2 cm segments, radius 1 cm over a 20 cm post),
//! with 1 kg on each end and the rope's own mass from 20 g (0.15 g particles) to 1 kg,
//! frictionless: a balanced load should not move and the rope should keep its length.
//! Then a 0.67 kg rope (5 g particles) with 10 kg holding one end and 10–100 kg on the
//! other at μ = 0.5 (the law holds up to `e^{0.5π}` = 4.81 times): how far the load
//! dropped in 3 s and the rope's stretch then. Last, the extreme case: the 20 g rope with
//! 1 kg holding and 5 kg pulling (33 000 : 1 against a particle) at μ = 0.5, every 0.1 s:
//! its longest link against the rest length, its highest point (above the post's top,
//! 0.21 m, while it is over the post) and where its holding end is (a rope that slid off
//! would drag that end up and over the top; one pulled through the post does not).
//!
//! ```sh
//! cargo run --release -p sinew --example rope_heavy_loads
//! ```

use sinew::DVec2;
use sinew::ParticleHandle;
use sinew::prelude::*;
use sinew::rope::RopeDef;

/// The world, the rope's particles, its rest length.
fn rope_over_post(mu: f64, rope_mass: f64, hold: f64, load: f64) -> (World2d, Vec<ParticleHandle>, f64) {
    let (post, r) = (0.2, 0.01);
    let mut w = World2d::new(WorldDef::default().friction(mu)).unwrap();
    w.add_collider(&ColliderDef::new(Shape::ball(post).unwrap())).unwrap();
    let around = post + r;
    let mut points = vec![DVec2::new(-around, -1.0)];
    for i in 0..=32 {
        let a = std::f64::consts::PI * (1.0 - f64::from(i) / 32.0);
        points.push(DVec2::new(around * a.cos(), around * a.sin()));
    }
    points.push(DVec2::new(around, -1.0));
    let def = RopeDef::along(points).segment_length(0.02).mass(rope_mass).radius(r).friction(mu);
    let rope = w.add_rope(&def).unwrap();
    let ps = w.rope(rope).unwrap().particles().to_vec();
    let rest = w.rope(rope).unwrap().rest_length();
    w.particles_mut().set_mass(ps[0], hold).unwrap();
    w.particles_mut().set_mass(ps[ps.len() - 1], load).unwrap();
    (w, ps, rest)
}

/// The rope's length along its particles over its rest length, minus 1 (%).
fn stretch(w: &World2d, ps: &[ParticleHandle], rest: f64) -> f64 {
    let len: f64 = ps
        .windows(2)
        .map(|p| (w.particles().position(p[0]).unwrap() - w.particles().position(p[1]).unwrap()).length())
        .sum();
    (len / rest - 1.0) * 100.0
}

fn main() {
    println!("1 kg on each end, frictionless: stretch (%) at 1 s, 2 s, 3 s; the right end's speed at 3 s (m/s)");
    for rope_mass in [0.02, 0.05, 0.1, 0.3, 1.0] {
        let (mut w, ps, rest) = rope_over_post(0.0, rope_mass, 1.0, 1.0);
        let mut row = Vec::new();
        for f in 1..=180 {
            w.step(1.0 / 60.0).unwrap();
            if f % 60 == 0 {
                row.push(format!("{:6.2}", stretch(&w, &ps, rest)));
            }
        }
        let v = w.particles().velocity(ps[ps.len() - 1]).unwrap().length();
        println!(
            "  rope {:5.0} g ({:.2} g particles): {}   {v:.3}",
            rope_mass * 1e3,
            rope_mass * 1e3 / ps.len() as f64,
            row.join(" ")
        );
    }
    println!("0.67 kg rope (5 g particles), 10 kg holding, μ = 0.5: load, its drop in 3 s (m), stretch then (%)");
    for load in [10.0, 20.0, 50.0, 100.0] {
        let (mut w, ps, rest) = rope_over_post(0.5, 0.67, 10.0, load);
        let start = w.particles().position(ps[ps.len() - 1]).unwrap().y;
        for _ in 0..180 {
            w.step(1.0 / 60.0).unwrap();
        }
        let drop = w.particles().position(ps[ps.len() - 1]).unwrap().y - start;
        println!("  {load:5.0} kg ({:.0}× the holding weight): {drop:8.3} {:6.2}", load / 10.0, stretch(&w, &ps, rest));
    }
    println!(
        "20 g rope, 1 kg holding, 5 kg load, μ = 0.5, every 0.1 s: longest link / rest, highest rope point, holding end"
    );
    let (mut w, ps, _) = rope_over_post(0.5, 0.02, 1.0, 5.0);
    for f in 1..=60 {
        w.step(1.0 / 60.0).unwrap();
        if f % 6 == 0 {
            let at = |p: ParticleHandle| w.particles().position(p).unwrap();
            let longest = ps.windows(2).map(|p| (at(p[0]) - at(p[1])).length()).fold(0.0, f64::max);
            let highest = ps.iter().map(|&p| at(p).y).fold(f64::MIN, f64::max);
            let end = at(ps[0]);
            println!(
                "  {:.1} s: {:5.2}×  {highest:6.3} m  ({:6.3}, {:6.3})",
                f64::from(f) / 60.0,
                longest / 0.02,
                end.x,
                end.y
            );
        }
    }
}
