//! Bone strain of a 2D `humanoid16` through hard impacts, by substeps, iterations and
//! impact passes (`WorldDef::impact_passes`): the
//! scene of the `ragdoll` tests (thrown at 10 m/s into a wall; dropped from 5 m onto the
//! ground), with the step's resolution as a parameter. Prints, over 5 s, the worst bone
//! strain (%), the worst joint-limit violation (°), the deepest point of any node inside
//! the ground or the wall (mm) and the fastest node in the last half second (m/s).
//!
//!
//! Single throws are chaotic (a small change moves the worst frame a lot), so a second
//! table averages the worst strain over 15 wall throws (6, 8, 10, 12, 14 m/s from 0.3,
//! 0.8 and 1.5 m up) and 6 drops (3, 5, 7 m, with 0 or 2 m/s sideways), 3 s each, by
//! substeps and impact passes; a third does the same for the 3D `humanoid3d` (15 throws
//! into a wall at 6–14 m/s in three directions).
//!
//! Every world here has the default exact tree solve of the bones (`WorldDef::tree_solve`;
//! docs/BENCHMARKS.md, "2026-12-04"); the figures quoted for the projections alone before
//! that date came from the same scenes with it off.
//!
//! ```sh
//! cargo run --release -p sinew --example ragdoll_impact
//! ```

use sinew::World;
use sinew::math::{Vector2, Vector3};
use sinew::prelude::*;
use sinew::ragdoll::{Ragdoll, presets};

/// (worst strain %, worst limit violation °, deepest penetration mm, late speed m/s).
fn impact(
    (substeps, iterations, impact_passes): (u32, u32, u32),
    origin: (f64, f64),
    velocity: (f64, f64),
) -> (f64, f64, f64, f64) {
    let rig = presets::humanoid16::<f64>();
    let def = WorldDef::default()
        .substeps(substeps)
        .iterations(iterations)
        .impact_passes(impact_passes)
        .friction(0.6)
        .damping(0.3);
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
    sweeps();
}

/// Worst bone strain (%) and joint-limit overshoot (°) over 3 s of `humanoid16` launched
/// from `origin` at `velocity` toward the wall.
fn worst_2d(substeps: u32, passes: u32, origin: (f64, f64), velocity: (f64, f64)) -> (f64, f64) {
    let rig = presets::humanoid16::<f64>();
    let def = WorldDef::default().substeps(substeps).impact_passes(passes).friction(0.6).damping(0.3);
    let mut w = World::<Space2<f64>>::new(def).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(Vector2::new(0.0, 1.0), 0.0).unwrap())).unwrap();
    let wall = Shape::cuboid(Vector2::new(0.25, 3.0)).unwrap();
    w.add_collider(&ColliderDef::new(wall).position(Vector2::new(3.25, 3.0))).unwrap();
    let at = Vector2::new(origin.0, origin.1);
    let rd = Ragdoll::spawn(&mut w, &rig, at, 1.0, Vector2::new(velocity.0, velocity.1)).unwrap();
    let (mut strain, mut limit) = (0.0f64, 0.0f64);
    for _ in 0..180 {
        w.step(1.0 / 60.0).unwrap();
        let st = rd.stats(&w).unwrap();
        strain = strain.max(st.max_bone_strain);
        limit = limit.max(st.max_limit_violation.to_degrees());
    }
    (strain * 100.0, limit)
}

/// The same for `humanoid3d` against a wall plane at x = 3.
fn worst_3d(substeps: u32, passes: u32, velocity: (f64, f64, f64)) -> f64 {
    let rig = presets::humanoid3d::<f64>();
    let def = WorldDef::default().substeps(substeps).impact_passes(passes).friction(0.6).damping(0.3);
    let mut w = World::<Space3<f64>>::new(def).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(Vector3::new(0.0, 1.0, 0.0), 0.0).unwrap())).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(Vector3::new(-1.0, 0.0, 0.0), -3.0).unwrap())).unwrap();
    let v = Vector3::new(velocity.0, velocity.1, velocity.2);
    let rd = Ragdoll::spawn(&mut w, &rig, Vector3::new(0.0, 0.4, 0.0), 1.0, v).unwrap();
    let mut strain = 0.0f64;
    for _ in 0..180 {
        w.step(1.0 / 60.0).unwrap();
        strain = strain.max(rd.stats(&w).unwrap().max_bone_strain);
    }
    strain * 100.0
}

/// Mean and largest of a list.
fn mean_max(v: &[f64]) -> (f64, f64) {
    (v.iter().sum::<f64>() / v.len() as f64, v.iter().copied().fold(0.0, f64::max))
}

fn sweeps() {
    println!();
    println!("humanoid16, 15 wall throws / 6 drops: worst strain %, mean (largest); wall limit overshoot °, mean");
    for substeps in [4, 8] {
        for passes in 0..=3 {
            let (mut wall, mut limit, mut drop) = (Vec::new(), Vec::new(), Vec::new());
            for speed in [6.0, 8.0, 10.0, 12.0, 14.0] {
                for y in [0.3, 0.8, 1.5] {
                    let (s, l) = worst_2d(substeps, passes, (0.0, y), (speed, 0.0));
                    wall.push(s);
                    limit.push(l);
                }
            }
            for y in [3.0, 5.0, 7.0] {
                for vx in [0.0, 2.0] {
                    drop.push(worst_2d(substeps, passes, (0.0, y), (vx, 0.0)).0);
                }
            }
            let ((wm, wx), (dm, dx), (lm, _)) = (mean_max(&wall), mean_max(&drop), mean_max(&limit));
            println!(
                "{substeps:>3} substeps + {passes} | wall {wm:6.2} ({wx:6.2}) {lm:4.1} | drops {dm:6.2} ({dx:6.2})"
            );
        }
    }
    println!("humanoid3d, 15 wall throws: worst strain %, mean (largest)");
    for substeps in [8, 16] {
        for passes in [0, 1] {
            let mut wall = Vec::new();
            for speed in [6.0, 8.0, 10.0, 12.0, 14.0] {
                for (vy, vz) in [(1.0, 1.0), (0.0, 0.0), (2.0, -1.0)] {
                    wall.push(worst_3d(substeps, passes, (speed, vy, vz)));
                }
            }
            let (m, x) = mean_max(&wall);
            println!("{substeps:>3} substeps + {passes} | wall {m:6.2} ({x:6.2})");
        }
    }
}
