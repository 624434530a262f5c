//! A world's limits (`sinew::Limits`): every call that would take the world past one is an
//! error naming the limit, checked before anything is added, and leaves the world as it was.

use sinew::prelude::*;
use sinew::{Limits, RopeEnd};

fn v(x: f64, y: f64) -> Vector2<f32> {
    Vector2::new(x as f32, y as f32)
}

fn limited(l: Limits) -> World2 {
    World2::new(WorldDef::default().limits(l)).unwrap()
}

#[test]
fn particles_constraints_and_colliders_stop_at_their_limits() {
    let mut w = limited(Limits::default().particles(3).constraints(2).colliders(1));
    let p: Vec<_> = (0..3).map(|i| w.add_particle(&ParticleDef::at(v(f64::from(i), 0.0))).unwrap()).collect();
    assert_eq!(
        w.add_particle(&ParticleDef::at(v(9.0, 0.0))),
        Err(SinewError::LimitExceeded { what: "particles", limit: 3, requested: 4 })
    );
    w.add_distance(&DistanceDef::new(p[0], p[1])).unwrap();
    w.add_tether(&TetherDef::new(p[1], p[2])).unwrap();
    for e in [
        w.add_bending(&BendingDef::new(p[0], p[1], p[2])).unwrap_err(),
        w.add_attachment(&AttachmentDef::new(p[0], v(0.0, 1.0))).unwrap_err(),
        w.add_distance(&DistanceDef::new(p[1], p[2])).unwrap_err(),
    ] {
        assert_eq!(e, SinewError::LimitExceeded { what: "constraints", limit: 2, requested: 3 });
    }
    assert_eq!(w.constraint_count(), 2);
    w.add_collider(&ColliderDef::new(Shape::half_space(v(0.0, 1.0), -1.0).unwrap())).unwrap();
    let e = w.add_collider(&ColliderDef::new(Shape::ball(1.0).unwrap())).unwrap_err();
    assert_eq!(e, SinewError::LimitExceeded { what: "colliders", limit: 1, requested: 2 });
    assert!(e.to_string().contains("limit of 1"), "{e}");
    // Removing makes room again.
    w.remove_particle(p[2]).unwrap();
    w.add_particle(&ParticleDef::at(v(9.0, 0.0))).unwrap();
}

#[test]
fn rope_segments_are_counted_over_all_ropes_and_a_refused_rope_leaves_nothing() {
    let mut w = limited(Limits::default().rope_segments(150));
    w.add_rope(&RopeDef::between(v(0.0, 0.0), v(1.0, 0.0)).segments(100)).unwrap();
    let before = w.particles().len();
    let e = w.add_rope(&RopeDef::between(v(0.0, 1.0), v(1.0, 1.0)).segments(60)).unwrap_err();
    assert!(matches!(e, SinewError::LimitExceeded { what: "rope segments", limit: 150, .. }), "{e:?}");
    assert_eq!((w.particles().len(), w.ropes().count(), w.rope_segment_count()), (before, 1, 100));
    w.add_rope(&RopeDef::between(v(0.0, 1.0), v(1.0, 1.0)).segments(50)).unwrap();
    assert_eq!(w.rope_segment_count(), 150);
}

#[test]
fn reeling_past_the_segment_limit_is_refused_before_a_particle_is_added() {
    let mut w = limited(Limits::default().rope_segments(1000));
    let h = w.add_rope(&RopeDef::between(v(0.0, 0.0), v(1.0, 0.0)).segments(20).pin_start()).unwrap();
    // 5 cm segments: 50 m would be 1000 segments, 1 km 20,000.
    let e = w.set_rope_length(h, RopeEnd::Start, 1000.0).unwrap_err();
    assert_eq!(e, SinewError::LimitExceeded { what: "rope segments", limit: 1000, requested: 20_000 });
    assert_eq!(w.rope(h).unwrap().segment_count(), 20, "unchanged");
    // A 10⁶ m reel asks more than one rope may hold, whatever the world's limits.
    let mut big = limited(Limits::UNLIMITED);
    let h2 = big.add_rope(&RopeDef::between(v(0.0, 0.0), v(1.0, 0.0)).segments(20)).unwrap();
    let e = big.set_rope_length(h2, RopeEnd::Start, 1e6).unwrap_err();
    assert!(matches!(e, SinewError::LimitExceeded { what: "rope segments (one rope)", limit: 100_000, .. }));
    // Within the limit it grows as before.
    w.set_rope_length(h, RopeEnd::Start, 40.0).unwrap();
    assert!((790..=810).contains(&w.rope(h).unwrap().segment_count()));
}

#[test]
fn limits_are_left_out_of_the_state_hash() {
    let build = |l: Limits| {
        let mut w = limited(l);
        w.add_rope(&RopeDef::between(v(0.0, 0.0), v(1.0, 0.0)).segments(10).pin_start()).unwrap();
        w.step(1.0 / 60.0).unwrap();
        w.state_hash()
    };
    assert_eq!(build(Limits::default()), build(Limits::default().rope_segments(10)));
}
