//! Bone strain of a 2D `humanoid16` through hard impacts, by substeps, iterations and
//! impact passes (`WorldDef::impact_passes`): the
//! scene of the `ragdoll` tests (thrown at 10 m/s into a wall; dropped from 5 m onto the
//! ground), with the step's resolution as a parameter. Prints, over 5 s, the worst bone
//! strain (%), the worst joint-limit violation (°), the deepest point of any node inside
//! the ground or the wall (mm) and the fastest node in the last half second (m/s).
//!
//! ```sh
//! cargo run --release -p sinew --example ragdoll_impact
//! ```

use sinew::math::Vector2;
use sinew::prelude::*;
use sinew::ragdoll::{Ragdoll, presets};

/// (worst strain %, worst limit violation °, deepest penetration mm, late speed m/s).
fn impact(
    (substeps, iterations, impact_passes): (u32, u32, u32),
    origin: (f64, f64),
    velocity: (f64, f64),
) -> (f64, f64, f64, f64) {
    let rig = presets::humanoid16::<f64>();
    let def = WorldDef { substeps, iterations, impact_passes, friction: 0.6, damping: 0.3, ..WorldDef::default() };
    let mut w = World::<Space2<f64>>::new(def).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(Vector2::new(0.0, 1.0), 0.0).unwrap())).unwrap();
    let wall = Shape::cuboid(Vector2::new(0.25, 3.0)).unwrap();
    w.add_collider(&ColliderDef::new(wall).position(Vector2::new(3.25, 3.0))).unwrap();
    let at = Vector2::new(origin.0, origin.1);
    let rd = Ragdoll::spawn(&mut w, &rig, at, 1.0, Vector2::new(velocity.0, velocity.1)).unwrap();
    let (mut strain, mut limit, mut depth, mut late) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for f in 0..300 {
        w.step(1.0 / 60.0).unwrap();
        let st = rd.stats(&w).unwrap();
        strain = strain.max(st.max_bone_strain);
        limit = limit.max(st.max_limit_violation.to_degrees());
        for &h in rd.nodes() {
            let (p, r) = (w.particles().position(h).unwrap(), w.particles().radius(h).unwrap());
            depth = depth.max(r - p.y).max(p.x - (3.0 - r));
        }
        if f >= 270 {
            late = late.max(st.max_speed);
        }
    }
    (strain * 100.0, limit, depth.max(0.0) * 1000.0, late)
}

fn main() {
    println!(
        "substeps × iterations + impact passes | thrown into the wall: strain %, limit °, depth mm, late m/s | dropped 5 m: same"
    );
    let runs = [
        (4, 1, 0),
        (4, 1, 1),
        (8, 1, 0),
        (8, 1, 1),
        (8, 1, 2),
        (8, 1, 3),
        (8, 2, 0),
        (8, 4, 0),
        (16, 1, 0),
        (16, 1, 1),
        (16, 2, 0),
        (32, 2, 0),
        (64, 1, 0),
        (96, 1, 0),
    ];
    for (substeps, iterations, passes) in runs {
        let a = impact((substeps, iterations, passes), (0.0, 0.3), (10.0, 0.0));
        let b = impact((substeps, iterations, passes), (0.0, 5.0), (0.0, 0.0));
        println!(
            "{substeps:>3} × {iterations} + {passes} | {:6.2} {:5.1} {:5.2} {:6.3} | {:6.2} {:5.1} {:5.2} {:6.3}",
            a.0, a.1, a.2, a.3, b.0, b.1, b.2, b.3
        );
    }
}
