//! The 21 impact scenes of `examples/ragdoll_impact.rs` (15 throws of `humanoid16` into a
//! wall at 6–14 m/s from 0.3, 0.8 and 1.5 m up, 6 drops from 3–7 m) run for 5 s each in
//! `f64`, `f32` and fixed point: the worst bone strain, joint-limit overshoot and depth
//! inside the ground or the wall over all of them, and how many runs still move faster
//! than 5 cm/s in the last half second.
//!
//! ```sh
//! cargo run --release -p sinew --example ragdoll_settle [substeps] [impact passes]
//! ```

use sinew::World;
use sinew::prelude::*;
use sinew::ragdoll::{Ragdoll, presets};

/// (worst strain, worst overshoot °, deepest m, fastest node in the last 0.5 s m/s).
fn run<R: Real>((substeps, passes): (u32, u32), origin: (f64, f64), vel: (f64, f64)) -> (f64, f64, f64, f64) {
    let r = |v: f64| R::from_f64(v);
    let v2 = |x: f64, y: f64| Vector2::<R>::from_f64(x, y);
    let rig = presets::humanoid16::<R>();
    let def = WorldDef::default().substeps(substeps).impact_passes(passes).friction(r(0.6)).damping(r(0.3));
    let mut w = World::<Space2<R>>::new(def).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(v2(0.0, 1.0), R::ZERO).unwrap())).unwrap();
    let wall = Shape::cuboid(v2(0.25, 3.0)).unwrap();
    w.add_collider(&ColliderDef::new(wall).position(v2(3.25, 3.0))).unwrap();
    let rd = Ragdoll::spawn(&mut w, &rig, v2(origin.0, origin.1), R::ONE, v2(vel.0, vel.1)).unwrap();
    let (mut strain, mut limit, mut depth, mut late) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for f in 0..300 {
        w.step(r(1.0 / 60.0)).unwrap();
        let st = rd.stats(&w).unwrap();
        strain = strain.max(st.max_bone_strain.to_f64());
        limit = limit.max(st.max_limit_violation.to_f64().to_degrees());
        for &h in rd.nodes() {
            let (p, rad) = (w.particles().position(h).unwrap(), w.particles().radius(h).unwrap().to_f64());
            depth = depth.max(rad - p.y.to_f64()).max(p.x.to_f64() - (3.0 - rad));
        }
        if f >= 270 {
            late = late.max(st.max_speed.to_f64());
        }
    }
    (strain, limit, depth, late)
}

fn main() {
    let arg = |i: usize, d: u32| std::env::args().nth(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let res = (arg(1, 8), arg(2, 1));
    let mut cases = Vec::new();
    for speed in [6.0, 8.0, 10.0, 12.0, 14.0] {
        for y in [0.3, 0.8, 1.5] {
            cases.push(((0.0, y), (speed, 0.0)));
        }
    }
    for y in [3.0, 5.0, 7.0] {
        for vx in [0.0, 2.0] {
            cases.push(((0.0, y), (vx, 0.0)));
        }
    }
    println!("{} substeps, {} impact passes, {} scenes of 5 s", res.0, res.1, cases.len());
    for name in ["f64", "f32", "fixed"] {
        let (mut s, mut l, mut d, mut moving, mut fastest) = (0.0f64, 0.0f64, 0.0f64, 0, 0.0f64);
        for &(o, v) in &cases {
            let (a, b, c, late) = match name {
                "f64" => run::<f64>(res, o, v),
                "f32" => run::<f32>(res, o, v),
                _ => run::<Fx>(res, o, v),
            };
            (s, l, d) = (s.max(a), l.max(b), d.max(c));
            moving += usize::from(late > 0.05);
            fastest = fastest.max(late);
        }
        println!(
            "{name:>5}: worst strain {:.3} %, overshoot {:.2}°, depth {:.3} mm, moving after 5 s: {moving} (fastest {:.2} m/s)",
            s * 100.0,
            l,
            d * 1e3,
            fastest
        );
    }
}
