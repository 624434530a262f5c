//! What riding a moving collider costs: a 3 m, 61-particle rope lying on a 4 m platform
//! that stands still or sways sideways by ±0.5 m (moved with `set_collider_pose` before
//! every step), 10 s after 2 s of settling, best of three runs. At rest on a still
//! platform the rope sleeps; on a moving one it stays awake, and contacts with a moving
//! collider are tested in full every substep (no step-start contact planes, see "Contact
//! planes" in the world's module docs), so this is the price of that known limit.
//!
//! ```sh
//! cargo run --release -p sinew --example rope_on_moving_platform
//! ```

use sinew::prelude::*;
use sinew::{RopeDef, Rot2, Rotation, Vector2};
use std::time::Instant;

/// (µs per frame, fresh contact anchors per frame, how far the lowest rope particle got
/// below resting height on the platform's top in mm: 0 means none sank into it or fell off).
fn run(moving: bool) -> (f64, f64, f64) {
    let mut best = (f64::MAX, 0.0, 0.0);
    for _ in 0..3 {
        let mut w = World2::new(WorldDef::default().friction(0.5)).unwrap();
        w.add_collider(&ColliderDef::new(Shape::half_space(Vector2::new(0.0, 1.0), 0.0).unwrap())).unwrap();
        let platform = Shape::cuboid(Vector2::new(2.0, 0.1)).unwrap();
        let h = w.add_collider(&ColliderDef::new(platform).position(Vector2::new(0.0, 1.0))).unwrap();
        let rope = RopeDef::between(Vector2::new(-1.5f32, 1.2), Vector2::new(1.5, 1.2)).segments(60).radius(0.015);
        let r = w.add_rope(&rope).unwrap();
        for _ in 0..120 {
            w.step(1.0 / 60.0).unwrap();
        }
        let (mut fresh, mut depth) = (0u64, 0.0f64);
        let start = Instant::now();
        for f in 0..600 {
            let x = if moving { 0.5 * (f as f32 / 60.0 * 0.5).sin() } else { 0.0 };
            if moving {
                w.set_collider_pose(h, Vector2::new(x, 1.0), Rot2::IDENTITY).unwrap();
            }
            fresh += u64::from(w.step(1.0 / 60.0).unwrap().regathered);
            for &p in w.rope(r).unwrap().particles() {
                let y = w.particles().position(p).unwrap().y;
                depth = depth.max(f64::from(1.1 + 0.015 - y));
            }
        }
        let us = start.elapsed().as_secs_f64() / 600.0 * 1e6;
        if us < best.0 {
            best = (us, fresh as f64 / 600.0, depth * 1e3);
        }
    }
    best
}

fn main() {
    for moving in [false, true] {
        let (us, fresh, depth) = run(moving);
        let what = if moving { "swaying" } else { "still  " };
        println!(
            "platform {what}: {us:7.2} µs/frame, {fresh:5.1} fresh anchors/frame, lowest {depth:.2} mm under its top"
        );
    }
}
