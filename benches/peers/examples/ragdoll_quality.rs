//! Prints, for every variant of the ragdoll scenario, how well the joints held over the
//! run: the 3 s warm-up (the landing impacts) and the 3–5 s window the bench times (the
//! ragdolls lying and piling), separately.
//!
//! - **joint error**: Rapier, the largest world-space distance between the two anchors of
//!   a joint; Sinew, whose joints are shared particles and cannot separate, the largest
//!   `|length − rest|` of a bone (the same kind of error: how far a limb has moved off
//!   where the joint holds it). Millimetres.
//! - **bone strain**: Sinew only, the largest `|length − rest| / rest` over bones
//!   (`Ragdoll::stats(..).max_bone_strain`), percent.
//! - **limit violation**: Sinew only, `Ragdoll::stats(..).max_limit_violation`, degrees.
//! - **ground depth**: the deepest any collider (Rapier, AABB bottom) or particle (Sinew,
//!   `y − radius`) got below the ground plane, millimetres.
//! - **awake**: ragdolls not asleep at 3 s and at 5 s.
//! - **at 5 s**: the joint error and strain of the final state alone, so one transient spike
//!   among hundreds of ragdolls can be told from a standing error.
//!
//! The window runs on a `Sim::restore_from` copy of the warmed world, as in the bench. Every
//! figure is the maximum over all ragdolls and all steps of the phase, read after each
//! step. The wall time is one unrepeated run of the window, a cross-check only (the bench
//! figure is `cargo bench --bench ragdolls`).
//!
//! ```text
//! cargo run --release --example ragdoll_quality
//! ```

#[path = "../harness/ragdolls.rs"]
mod harness;

use harness::{Measure, Sim, Variant};
use sinew_peers::ragdoll_scenario::{WARM_STEPS, WINDOW_STEPS};
use std::time::Instant;

fn worst(a: Measure, b: Measure) -> Measure {
    Measure {
        joint_error: a.joint_error.max(b.joint_error),
        bone_strain: a.bone_strain.max(b.bone_strain),
        limit_violation: a.limit_violation.max(b.limit_violation),
        ground_depth: a.ground_depth.max(b.ground_depth),
        awake: b.awake,
    }
}

fn main() {
    let ip = rapier3d::prelude::IntegrationParameters::default();
    println!(
        "rapier IntegrationParameters::default(): dt {:.5} s, num_solver_iterations {} (substeps), \
         num_internal_pgs_iterations {}, num_internal_stabilization_iterations {}",
        ip.dt, ip.num_solver_iterations, ip.num_internal_pgs_iterations, ip.num_internal_stabilization_iterations
    );
    println!(
        "{WARM_STEPS} warm-up steps (0-3 s), then the {WINDOW_STEPS}-step window (3-5 s); joint error and ground \
         depth in mm, strain in %, limit violation in degrees"
    );
    println!();
    println!(
        "{:<31} {:>5} | {:>9} {:>8} {:>7} {:>7} | {:>9} {:>8} {:>7} {:>7} | {:>8} {:>8} | {:>6} {:>6} | {:>8}",
        "variant",
        "dolls",
        "warm jnt",
        "strain",
        "limit",
        "ground",
        "win jnt",
        "strain",
        "limit",
        "ground",
        "jnt@5s",
        "str@5s",
        "awk@3s",
        "awk@5s",
        "ms/step"
    );
    for variant in Variant::ALL {
        let mut sim = Sim::new(variant);
        let mut warm = Measure::default();
        for _ in 0..WARM_STEPS {
            sim.step();
            warm = worst(warm, sim.measure());
        }
        let awake_at_3 = warm.awake;
        // The bench steps the window on a copy of the warmed world; so does this.
        let mut sim = Sim::restore_from(&sim);
        let mut window = Measure::default();
        let mut last = Measure::default();
        let mut stepping = 0.0f64;
        for _ in 0..WINDOW_STEPS {
            let t = Instant::now();
            sim.step();
            stepping += t.elapsed().as_secs_f64();
            last = sim.measure();
            window = worst(window, last);
        }
        assert!(sim.is_finite(), "{} blew up", variant.name());
        println!(
            "{:<31} {:>5} | {:>9.3} {:>8.3} {:>7.2} {:>7.2} | {:>9.3} {:>8.3} {:>7.2} {:>7.2} | {:>8.3} {:>8.3} | {:>6} {:>6} | {:>8.2}",
            variant.name(),
            sim.ragdolls(),
            warm.joint_error * 1e3,
            warm.bone_strain * 100.0,
            warm.limit_violation.to_degrees(),
            warm.ground_depth * 1e3,
            window.joint_error * 1e3,
            window.bone_strain * 100.0,
            window.limit_violation.to_degrees(),
            window.ground_depth * 1e3,
            last.joint_error * 1e3,
            last.bone_strain * 100.0,
            awake_at_3,
            window.awake,
            stepping * 1e3 / WINDOW_STEPS as f64,
        );
    }
}
