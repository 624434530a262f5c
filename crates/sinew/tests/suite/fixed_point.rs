//! Fixed-point worlds at the edges: overflow, division by zero and degenerate geometry
//! give defined results, never panics or wrapped-around garbage.

use sinew::prelude::*;

fn x(v: f64) -> Fx {
    Fx::from_f64(v)
}

#[test]
fn arithmetic_saturates_and_divides_by_zero_definedly() {
    assert_eq!(Fx::MAX + Fx::ONE, Fx::MAX);
    assert_eq!(Fx::MIN - Fx::ONE, Fx::MIN);
    assert_eq!(x(1e6) * x(1e6), Fx::MAX);
    assert_eq!(x(-1e6) * x(1e6), Fx::MIN);
    assert_eq!(Fx::ONE / Fx::ZERO, Fx::MAX);
    assert_eq!(-Fx::ONE / Fx::ZERO, Fx::MIN);
    assert_eq!(Fx::ZERO / Fx::ZERO, Fx::ZERO);
    assert_eq!(Fx::ONE.checked_div(Fx::ZERO), None);
    assert_eq!(x(-4.0).sqrt(), Fx::ZERO);
    assert_eq!(Fx::from_f64(f64::NAN), Fx::ZERO);
    assert_eq!(Fx::from_f64(f64::INFINITY), Fx::MAX);
}

#[test]
fn far_away_particles_saturate_without_panicking() {
    let mut w = World2x::new(WorldDef::default()).unwrap();
    // 2e9 m, near the Q32.32 limit, is refused at the API (beyond ±16384, see
    // `fixed_range`); particles at the edge of the range, one thrown outwards at
    // 16 km/s and tied to the other by a 1 m link, leave it in the step: squared lengths
    // saturate.
    assert!(w.add_particle(&ParticleDef::at(XVec2::new(x(2.0e9), x(0.0)))).is_err());
    let a = w.add_particle(&ParticleDef::at(XVec2::new(x(16384.0), x(0.0))).mass(Fx::ZERO)).unwrap();
    let b = w
        .add_particle(&ParticleDef::at(XVec2::new(x(-16384.0), x(0.0))).velocity(XVec2::new(x(-16384.0), x(0.0))))
        .unwrap();
    w.add_distance(&DistanceDef::new(a, b).length(x(1.0))).unwrap();
    w.add_collider(&ColliderDef::new(Shape::ball(x(1.0)).unwrap())).unwrap();
    for _ in 0..120 {
        w.step(x(1.0 / 60.0)).unwrap();
    }
    let p = w.particles().position(b).unwrap();
    // Bounded by the representable range, not wrapped to the other side.
    assert!(p.x <= Fx::MAX && p.x >= Fx::MIN);
    assert!(w.particles().position(a).unwrap() == XVec2::new(x(16384.0), x(0.0)));
}

#[test]
fn degenerate_geometry_is_skipped_or_rejected() {
    let mut w = World2x::new(WorldDef::default().gravity(XVec2::ZERO)).unwrap();
    // Coincident particles: the link has no direction; the projection is skipped.
    let a = w.add_particle(&ParticleDef::at(XVec2::new(x(1.0), x(1.0)))).unwrap();
    let b = w.add_particle(&ParticleDef::at(XVec2::new(x(1.0), x(1.0)))).unwrap();
    w.add_distance(&DistanceDef::new(a, b).length(x(0.5))).unwrap();
    // A particle exactly at a ball's centre gets a deterministic push-out direction.
    w.add_collider(&ColliderDef::new(Shape::ball(x(0.2)).unwrap()).position(XVec2::new(x(3.0), x(0.0)))).unwrap();
    let c = w.add_particle(&ParticleDef::at(XVec2::new(x(3.0), x(0.0)))).unwrap();
    for _ in 0..10 {
        w.step(x(1.0 / 60.0)).unwrap();
    }
    let pc = w.particles().position(c).unwrap();
    assert!((pc - XVec2::new(x(3.0), x(0.0))).length() >= x(0.2) - x(1e-6), "{pc:?}");
    // Zero-length normals and flat shapes are errors, not NaN-free-by-luck shapes.
    assert!(Shape::<Space2<Fx>>::half_space(XVec2::ZERO, Fx::ONE).is_err());
    assert!(
        Shape::<Space2<Fx>>::convex(&[XVec2::ZERO, XVec2::new(x(1.0), x(0.0)), XVec2::new(x(2.0), x(0.0))]).is_err()
    );
    assert!(Shape::<Space3<Fx>>::convex(&[XVec3::ZERO, XVec3::new(x(1.0), x(0.0), x(0.0))]).is_err());
    assert_eq!(w.step(Fx::ZERO), Err(SinewError::InvalidTimeStep { dt: 0.0 }));
    assert_eq!(w.step(x(-1.0)), Err(SinewError::InvalidTimeStep { dt: -1.0 }));
}
