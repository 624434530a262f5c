//! Smoke test of the ragdoll harness: every variant builds the scenario, falls for 0.5 s to
//! a finite state with its joints together, and a copy made by `Sim::restore_from` (what
//! the bench times) steps exactly like the world it was copied from.

#[path = "../harness/ragdolls.rs"]
mod harness;

use harness::{Sim, Variant};
use sinew_peers::ragdoll_scenario::COUNT;

#[test]
fn every_variant_falls_and_copies_faithfully() {
    for variant in Variant::ALL {
        let mut sim = Sim::new(variant);
        let expected = if variant == Variant::Sinew2d1000 { 1000 } else { COUNT };
        assert_eq!(sim.ragdolls(), expected, "{}", variant.name());
        for _ in 0..30 {
            sim.step();
        }
        let m = sim.measure();
        assert!(sim.is_finite(), "{} blew up", variant.name());
        assert!(m.joint_error.is_finite() && m.joint_error < 0.5, "{}: joints came apart: {m:?}", variant.name());
        let mut copy = Sim::restore_from(&sim);
        for _ in 0..3 {
            sim.step();
            copy.step();
        }
        let (a, b) = (sim.measure(), copy.measure());
        assert_eq!(
            (a.joint_error, a.bone_strain, a.ground_depth, a.awake),
            (b.joint_error, b.bone_strain, b.ground_depth, b.awake),
            "{}: the copy diverged",
            variant.name()
        );
    }
}
