//! Smoke test of the harness: every variant runs the 2 s swing to a finite state, the pin
//! holds, the free end falls, and the worst stretch the example prints is a number.

#[path = "../harness/mod.rs"]
mod harness;

use harness::{Sim, Variant};
use sinew_peers::{chain_stretch, scenario};

#[test]
fn every_variant_swings_down() {
    let mut positions = Vec::new();
    for variant in Variant::ALL {
        let mut sim = Sim::new(variant);
        sim.positions(&mut positions);
        assert_eq!(positions.len(), scenario::PARTICLES, "{}", variant.name());
        for _ in 0..scenario::STEPS {
            sim.step();
        }
        sim.positions(&mut positions);
        assert!(positions.iter().flatten().all(|c| c.is_finite()), "{} blew up", variant.name());
        assert_eq!(positions[0], scenario::initial_position(0), "{}: the pin moved", variant.name());
        let tip = positions[scenario::PARTICLES - 1];
        assert!(
            tip[0] < scenario::LENGTH * 0.9 && tip[1] < -0.1,
            "{}: the free end did not swing: {tip:?}",
            variant.name()
        );
        assert!(chain_stretch(&positions, scenario::SEGMENT).is_finite(), "{}", variant.name());
    }
}
