//! The ragdoll sweep of the README's known limits, at the default settings: 15 throws
//! into a wall (6–14 m/s from 0.3, 0.8 and 1.5 m up; in 3D in three directions) and 6
//! drops (3, 5, 7 m, with 0 or 2 m/s sideways), 5 s each, friction 0.6, damping 0.3, at 4
//! and 8 substeps, for the 2D `humanoid16` and the 3D `humanoid3d` (with the tree solve,
//! `WorldDef::tree_solve`), in `f64`, `f32` and fixed point. Prints the worst bone strain
//! (%), the worst joint-limit violation (°), the deepest point of any node inside the
//! ground or the wall (mm), and how many of the 21 bodies are still (every node under
//! 1 cm/s over the last half second).
//!
//! ```sh
//! cargo run --release -p sinew-bench --features sweeps --example ragdoll_sweep -- [2d|3d] [f64|f32|fixed] [rows]
//! ```
//!
//! `rows` turns on `WorldDef::limit_rows` (2D only: joint limits and contact planes as rows of the
//! tree solve).

use sinew::prelude::*;
use sinew::ragdoll::{Ragdoll, RigSpace, presets};
use sinew::{RealOf, VecOf, World};

/// Worst strain, worst limit violation (rad), deepest penetration (m), late speed.
#[derive(Clone, Copy, Default)]
struct Run {
    strain: f64,
    limit: f64,
    depth: f64,
    late: f64,
}

fn run<S: RigSpace>(w: &mut World<S>, rd: &Ragdoll<S>, inside: impl Fn(VecOf<S>, f64) -> f64) -> Run {
    let mut o = Run::default();
    let frames = 300;
    for f in 0..frames {
        w.step(RealOf::<S>::from_f64(1.0 / 60.0)).unwrap();
        let st = rd.stats(w).unwrap();
        o.strain = o.strain.max(st.max_bone_strain.to_f64());
        o.limit = o.limit.max(st.max_limit_violation.to_f64());
        for &h in rd.nodes() {
            let (p, r) = (w.particles().position(h).unwrap(), w.particles().radius(h).unwrap().to_f64());
            if !p.is_finite() {
                o.depth = f64::INFINITY;
            }
            o.depth = o.depth.max(inside(p, r));
        }
        if f + 30 >= frames {
            o.late = o.late.max(st.max_speed.to_f64());
        }
    }
    o
}

fn one_2d<R: Real>(substeps: u32, origin: (f64, f64), v: (f64, f64)) -> Run {
    let rig = presets::humanoid16::<R>();
    let def = WorldDef::default().substeps(substeps).friction(R::from_f64(0.6)).damping(R::from_f64(0.3));
    let mut w = World::<Space2<R>>::new(def.limit_rows(rows())).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(Vector2::from_f64(0.0, 1.0), R::ZERO).unwrap())).unwrap();
    let wall = Shape::cuboid(Vector2::from_f64(0.25, 3.0)).unwrap();
    w.add_collider(&ColliderDef::new(wall).position(Vector2::from_f64(3.25, 3.0))).unwrap();
    let rd = Ragdoll::spawn(&mut w, &rig, Vector2::from_f64(origin.0, origin.1), R::ONE, Vector2::from_f64(v.0, v.1))
        .unwrap();
    run(&mut w, &rd, |p: Vector2<R>, r| (r - p.y.to_f64()).max(p.x.to_f64() - (3.0 - r)))
}

fn one_3d<R: Real>(substeps: u32, origin: (f64, f64), v: (f64, f64, f64)) -> Run {
    let rig = presets::humanoid3d::<R>();
    let def =
        WorldDef::default().substeps(substeps).friction(R::from_f64(0.6)).damping(R::from_f64(0.3)).tree_solve(true);
    let mut w = World::<Space3<R>>::new(def.limit_rows(rows())).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(Vector3::from_f64(0.0, 1.0, 0.0), R::ZERO).unwrap())).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(Vector3::from_f64(-1.0, 0.0, 0.0), R::from_f64(-3.0)).unwrap()))
        .unwrap();
    let at = Vector3::from_f64(origin.0, origin.1, 0.0);
    let rd = Ragdoll::spawn(&mut w, &rig, at, R::ONE, Vector3::from_f64(v.0, v.1, v.2)).unwrap();
    run(&mut w, &rd, |p: Vector3<R>, r| (r - p.y.to_f64()).max(p.x.to_f64() - (3.0 - r)))
}

/// `rows` given on the command line.
fn rows() -> bool {
    std::env::args().nth(3).as_deref() == Some("rows")
}

fn sweep<R: Real>(three: bool, substeps: u32) {
    let mut runs = Vec::new();
    for speed in [6.0, 8.0, 10.0, 12.0, 14.0] {
        for (i, y) in [0.3, 0.8, 1.5].into_iter().enumerate() {
            runs.push(if three {
                let (vy, vz) = [(1.0, 1.0), (0.0, 0.0), (2.0, -1.0)][i];
                one_3d::<R>(substeps, (0.0, y.max(0.4)), (speed, vy, vz))
            } else {
                one_2d::<R>(substeps, (0.0, y), (speed, 0.0))
            });
        }
    }
    for y in [3.0, 5.0, 7.0] {
        for vx in [0.0, 2.0] {
            runs.push(if three {
                one_3d::<R>(substeps, (0.0, y), (vx, 0.0, 0.0))
            } else {
                one_2d::<R>(substeps, (0.0, y), (vx, 0.0))
            });
        }
    }
    let worst = |f: fn(&Run) -> f64| runs.iter().map(f).fold(0.0f64, f64::max);
    let still = runs.iter().filter(|r| r.late <= 0.01).count();
    let throws: Vec<String> = if std::env::var("SWEEP_DETAIL").is_ok() {
        runs.iter().map(|r| format!("{:.1}°/{:.2}mm/{:.3}", r.limit.to_degrees(), r.depth * 1000.0, r.late)).collect()
    } else {
        runs.iter().map(|r| format!("{:.1}", r.limit.to_degrees())).collect()
    };
    println!(
        "{} {} {substeps} substeps | strain {:.3} % | limit {:.2}° | depth {:.3} mm | still {still}/21 | limits {}",
        if three { "3D" } else { "2D" },
        R::NAME,
        worst(|r| r.strain) * 100.0,
        worst(|r| r.limit).to_degrees(),
        worst(|r| r.depth).max(0.0) * 1000.0,
        throws.join(" ")
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dims: Vec<bool> = match args.get(1).map(String::as_str) {
        Some("2d") => vec![false],
        Some("3d") => vec![true],
        _ => vec![false, true],
    };
    let real = args.get(2).map_or("f64", String::as_str).to_string();
    for three in dims {
        for substeps in [4, 8] {
            match real.as_str() {
                "f32" => sweep::<f32>(three, substeps),
                "fixed" => sweep::<Fx>(three, substeps),
                _ => sweep::<f64>(three, substeps),
            }
        }
    }
}
