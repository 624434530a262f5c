//! Ropes attached to particles of the world (`RopeDef::attach_start` / `attach_end`): the
//! attached particle is the rope's end node, so its mass takes part in the rope's exact
//! chain solve and a heavy load does not stretch a light rope.

use crate::measure::rope_stretch as stretch;
use sinew::prelude::*;
use sinew::{DVec2, RopeDef, World};

const G: f64 = 9.81;
const DT: f64 = 1.0 / 60.0;

/// A 10 kg particle hanging from a 1 m, 0.2 kg rope pinned at the top, attached to the
/// rope's end, after 2 s of settling from 10 cm lower than the rope reaches (it falls
/// into the rope and is caught). Returns (worst stretch over the last second, top tension).
fn heavy_load<R: Real>(substeps: u32) -> (f64, f64) {
    let mut w = World::<Space2<R>>::new(WorldDef::default().substeps(substeps)).unwrap();
    let v = |x: f64, y: f64| Vector2::<R>::from_f64(x, y);
    let load = w.add_particle(&ParticleDef::at(v(0.05, -1.0)).mass(R::from_f64(10.0))).unwrap();
    let def =
        RopeDef::between(v(0.0, 0.0), v(0.05, -1.0)).segments(20).mass(R::from_f64(0.2)).pin_start().attach_end(load);
    let h = w.add_rope(&def).unwrap();
    assert_eq!(w.rope(h).unwrap().end(), load, "the attached particle is the rope's end");
    let mut worst: f64 = 0.0;
    for f in 0..120 {
        w.step(R::from_f64(DT)).unwrap();
        if f >= 60 {
            worst = worst.max(stretch(&w, h));
        }
    }
    (worst, w.rope_tension(h, 0).unwrap().to_f64())
}

fn check_heavy_load<R: Real>(name: &str) {
    for substeps in [4, 8] {
        let (s, top) = heavy_load::<R>(substeps);
        assert!(s <= 0.001, "{name}, {substeps} substeps: stretch {:.4} %", s * 100.0);
        let want = (10.0 + 0.2) * G;
        // The rope's top particle carries half a segment's mass on the pin, not in the rope.
        let want = want - 0.5 * 0.2 / 20.0 * G;
        assert!((top - want).abs() / want < 0.01, "{name}, {substeps} substeps: top tension {top:.2} N vs {want:.2} N");
    }
}

#[test]
fn a_10_kg_load_attached_to_a_200_g_rope_stretches_it_under_a_tenth_of_a_percent_f32() {
    check_heavy_load::<f32>("f32");
}

#[test]
fn a_10_kg_load_attached_to_a_200_g_rope_stretches_it_under_a_tenth_of_a_percent_f64() {
    check_heavy_load::<f64>("f64");
}

#[test]
fn a_10_kg_load_attached_to_a_200_g_rope_stretches_it_under_a_tenth_of_a_percent_fixed() {
    check_heavy_load::<Fx>("fixed");
}

/// A rope between two particles of the world, both dynamic (two 5 kg bodies), one thrown:
/// the rope carries the other along, momentum is conserved (gravity off), and the rope
/// never stretches beyond 0.1 %.
#[test]
fn a_rope_between_two_dynamic_bodies_conserves_momentum_and_keeps_its_length() {
    let mut w = World2d::new(WorldDef::default().gravity(DVec2::ZERO)).unwrap();
    let a = w.add_particle(&ParticleDef::at(DVec2::new(0.0, 0.0)).mass(5.0)).unwrap();
    let b = w.add_particle(&ParticleDef::at(DVec2::new(2.0, 0.0)).mass(5.0).velocity(DVec2::new(6.0, 3.0))).unwrap();
    let h = w
        .add_rope(
            &RopeDef::between(DVec2::new(0.0, 0.0), DVec2::new(1.0, 0.0))
                .segments(20)
                .mass(0.1)
                .attach_start(a)
                .attach_end(b),
        )
        .unwrap();
    assert_eq!((w.rope(h).unwrap().start(), w.rope(h).unwrap().end()), (a, b));
    let momentum = |w: &World2d| {
        let ps = w.particles();
        w.rope(h)
            .unwrap()
            .particles()
            .iter()
            .fold(DVec2::ZERO, |m, &p| m + ps.velocity(p).unwrap() * ps.mass(p).unwrap())
    };
    let p0 = momentum(&w);
    let mut worst: f64 = 0.0;
    for _ in 0..180 {
        w.step(DT).unwrap();
        worst = worst.max(stretch(&w, h));
        let p = momentum(&w);
        assert!((p - p0).length() < 1e-6 * p0.length(), "momentum {p:?} vs {p0:?}");
    }
    assert!(worst <= 0.001, "stretch {:.4} %", worst * 100.0);
    // The thrown body towed the other: both move.
    assert!(w.particles().velocity(a).unwrap().length() > 1.0);
}

/// Removing an attached rope leaves the bodies it was attached to in the world; removing an
/// attached body takes it out of the rope (the rope's own particle next to it becomes the end).
#[test]
fn removing_an_attached_rope_keeps_its_bodies_and_removing_a_body_detaches_it() {
    let mut w = World2d::new(WorldDef::default()).unwrap();
    let a = w.add_particle(&ParticleDef::at(DVec2::new(0.0, 0.0)).pinned()).unwrap();
    let b = w.add_particle(&ParticleDef::at(DVec2::new(0.0, -1.0)).mass(3.0)).unwrap();
    let def = RopeDef::between(DVec2::ZERO, DVec2::new(0.0, -1.0)).segments(10).attach_start(a).attach_end(b);
    let h = w.add_rope(&def).unwrap();
    assert_eq!(w.rope(h).unwrap().particles().len(), 11);
    let before = w.particles().len();
    w.remove_rope(h).unwrap();
    assert_eq!(w.particles().len(), before - 9, "the rope's own 9 particles go, the bodies stay");
    assert!(w.particles().contains(a) && w.particles().contains(b));

    let h = w.add_rope(&def).unwrap();
    w.remove_particle(b).unwrap();
    let rope = w.rope(h).unwrap();
    assert_eq!(rope.particles().len(), 10);
    assert_ne!(rope.end(), b);
    // The new end is the rope's own particle: removing the rope now removes it too.
    let end = rope.end();
    w.remove_rope(h).unwrap();
    assert!(!w.particles().contains(end));
    assert!(w.particles().contains(a));
}

/// Attaching to a particle that does not exist, or the same particle at both ends, is a
/// clear error, and the world is unchanged.
#[test]
fn attaching_to_a_missing_or_repeated_particle_is_an_error() {
    let mut w = World2d::new(WorldDef::default()).unwrap();
    let a = w.add_particle(&ParticleDef::at(DVec2::new(0.0, 0.0))).unwrap();
    let gone = w.add_particle(&ParticleDef::at(DVec2::new(1.0, 0.0))).unwrap();
    w.remove_particle(gone).unwrap();
    let count = w.particles().len();
    let line = RopeDef::between(DVec2::ZERO, DVec2::new(1.0, 0.0)).segments(4);
    assert!(w.add_rope(&line.clone().attach_end(gone)).is_err());
    assert!(w.add_rope(&line.clone().attach_start(a).attach_end(a)).is_err());
    assert!(w.add_rope(&line.clone().attach_start(a).pin_start()).is_err());
    assert_eq!(w.particles().len(), count);
}
