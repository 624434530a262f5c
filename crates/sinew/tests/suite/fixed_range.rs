//! Fixed point at the edges of its range.

use sinew::World;
use sinew::prelude::*;

/// Lowest height a particle dropped at `speed` onto a capsule `half` m long each side
/// (radius 5 cm, at height 0) reaches, relative to the capsule's top (m): ≈ 0 when it
/// is stopped, very negative when it tunnels.
fn capsule_drop<R: Real>(half: f64, x: f64, speed: f64) -> f64 {
    let mut w = World::<Space2<R>>::new(WorldDef::default()).unwrap();
    let v = |x: f64, y: f64| Vector2::<R>::from_f64(x, y);
    w.add_collider(&ColliderDef::new(Shape::capsule(v(-half, 0.0), v(half, 0.0), R::from_f64(0.05)).unwrap())).unwrap();
    let p = w.add_particle(&ParticleDef::at(v(x, 1.0)).velocity(v(0.0, -speed)).radius(R::from_f64(0.01))).unwrap();
    let mut low = f64::MAX;
    for _ in 0..30 {
        w.step(R::from_f64(1.0 / 60.0)).unwrap();
        low = low.min(w.particles().position(p).unwrap().to_f64_array()[1]);
    }
    low - 0.06
}

#[test]
fn fast_particles_do_not_tunnel_through_long_capsules_in_fixed_point() {
    // Capsules 20 m to 32 km long (fixed-point scenes hold coordinates within ±16384 m),
    // particles at 10 to 1000 m/s: each is stopped on top, as in f32. (Fixed point let
    // them through from 10 km at 1000 m/s and 40 km at 100 m/s: the axis' direction,
    // from a reciprocal square root of absolute precision, tilted it past the radius.)
    for half in [10.0, 1000.0, 5000.0, 16000.0] {
        for speed in [10.0, 100.0, 1000.0] {
            for x in [0.0, 0.3, -0.9] {
                let f = capsule_drop::<f32>(half, x * half, speed);
                let q = capsule_drop::<Fx>(half, x * half, speed);
                assert!(f > -1e-3 && q > -1e-3, "half {half} m, {speed} m/s at {x}: f32 {f}, fixed {q}");
            }
        }
    }
}

/// A 2 cm × 6 m plank: valid in every number type (fixed point took its short edges, 3.9 mm
/// per metre of size below its tolerance, for repeated points), and it holds a ball.
fn plank<R: Real>() -> f64 {
    let mut w = World::<Space2<R>>::new(WorldDef::default()).unwrap();
    let v = |x: f64, y: f64| Vector2::<R>::from_f64(x, y);
    let pts = [v(-3.0, -0.01), v(3.0, -0.01), v(3.0, 0.01), v(-3.0, 0.01)];
    w.add_collider(&ColliderDef::new(Shape::convex(&pts).unwrap())).unwrap();
    let p = w.add_particle(&ParticleDef::at(v(2.5, 0.5)).radius(R::from_f64(0.05))).unwrap();
    for _ in 0..120 {
        w.step(R::from_f64(1.0 / 60.0)).unwrap();
    }
    w.particles().position(p).unwrap().to_f64_array()[1]
}

#[test]
fn a_2_cm_by_6_m_plank_is_a_valid_polygon_in_fixed_point() {
    for (name, y) in [("f32", plank::<f32>()), ("f64", plank::<f64>()), ("fixed", plank::<Fx>())] {
        assert!((y - 0.06).abs() < 1e-3, "{name}: the ball rests at {y} m, expected 0.06 m on the plank");
    }
}
