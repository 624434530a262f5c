//! Prints, for every engine variant of the rope scenario, the worst segment stretch over
//! the 2 s swing (max over the 120 steps and the 100 segments of `(|x_i − x_{i+1}| − rest) /
//! rest`), with where the free end is at the end as a sanity check that every engine ran the
//! same swing.
//!
//! ```text
//! cargo run --release --example stretch
//! ```

#[path = "../harness/mod.rs"]
mod harness;

use harness::{Sim, Variant};
use sinew_peers::{chain_stretch, scenario};

fn main() {
    let sinew = sinew::World3::new(sinew::WorldDef::default()).expect("world");
    let sinew = sinew.def();
    println!("sinew  WorldDef::default(): {} substeps x {} iteration(s)", sinew.substeps, sinew.iterations);
    let ip = rapier3d::prelude::IntegrationParameters::default();
    let soft = rapier3d::prelude::SoftBodyParticleSettings::default();
    println!(
        "rapier IntegrationParameters::default(): dt {:.5} s, num_solver_iterations {} (substeps), \
         num_internal_pgs_iterations {} + soft-body additional_pgs_iterations {}, \
         num_internal_stabilization_iterations {}",
        ip.dt,
        ip.num_solver_iterations,
        ip.num_internal_pgs_iterations,
        soft.additional_pgs_iterations,
        ip.num_internal_stabilization_iterations
    );
    println!();
    println!("{:<26} {:>12} {:>12} {:>22}", "variant", "worst %", "final %", "free end at 2 s (m)");
    let mut positions = Vec::with_capacity(scenario::PARTICLES);
    for variant in Variant::ALL {
        let mut sim = Sim::new(variant);
        let mut worst = f32::NEG_INFINITY;
        let mut last = 0.0;
        for _ in 0..scenario::STEPS {
            sim.step();
            sim.positions(&mut positions);
            last = chain_stretch(&positions, scenario::SEGMENT);
            worst = if last.is_nan() { f32::NAN } else { worst.max(last) };
        }
        let [x, y, z] = positions[scenario::PARTICLES - 1];
        println!(
            "{:<26} {:>12.4} {:>12.4} {:>22}",
            variant.name(),
            worst * 100.0,
            last * 100.0,
            format!("({x:.3}, {y:.3}, {z:.3})")
        );
    }
}
