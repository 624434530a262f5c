//! Fixed point at the edges of its range.

use sinew::prelude::*;
use sinew::{Quat, World};

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

/// A 2 cm × 6 m × 1 m plank as a 3D hull (and a 1 cm × 4 m rod-like sliver), turned 30°
/// about the vertical: valid in every number type, and it holds a ball.
fn plank3<R: Real>(thick: f64, long: f64, wide: f64) -> f64 {
    let mut w = World::<Space3<R>>::new(WorldDef::default()).unwrap();
    let v = |x: f64, y: f64, z: f64| Vector3::<R>::from_f64(x, y, z);
    let (a, t, b) = (long / 2.0, thick / 2.0, wide / 2.0);
    let mut pts = Vec::new();
    for sx in [-1.0, 1.0] {
        for sy in [-1.0, 1.0] {
            for sz in [-1.0, 1.0] {
                pts.push(v(sx * a, sy * t, sz * b));
            }
        }
    }
    let turn = Quat::<R>::from_axis_angle(Vector3::from_f64(0.0, 1.0, 0.0), R::from_f64(std::f64::consts::FRAC_PI_6));
    w.add_collider(&ColliderDef::new(Shape::convex(&pts).unwrap()).rotation(turn)).unwrap();
    // Above a point of the top face 30 % of the way to one end.
    let at = turn.rotate(v(0.3 * a, 0.5, 0.0));
    let p = w.add_particle(&ParticleDef::at(at).radius(R::from_f64(0.05))).unwrap();
    for _ in 0..120 {
        w.step(R::from_f64(1.0 / 60.0)).unwrap();
    }
    w.particles().position(p).unwrap().to_f64_array()[1] - t
}

#[test]
fn thin_3d_hulls_are_valid_and_hold_a_ball_in_fixed_point() {
    for (thick, long, wide) in [(0.02, 6.0, 1.0), (0.01, 4.0, 0.2)] {
        for (name, y) in [
            ("f32", plank3::<f32>(thick, long, wide)),
            ("f64", plank3::<f64>(thick, long, wide)),
            ("fixed", plank3::<Fx>(thick, long, wide)),
        ] {
            assert!((y - 0.05).abs() < 1e-3, "{name} {thick}x{long}x{wide}: the ball rests {y} m above the top");
        }
    }
}

#[test]
fn fixed_point_coordinates_beyond_16384_are_refused_through_the_api() {
    // Q32.32 holds ±2³¹ and the solver squares coordinate differences: positions,
    // velocities and targets beyond ±2¹⁴ are errors naming the argument, not saturated.
    let mut w = World::<Space2<Fx>>::new(WorldDef::default()).unwrap();
    let v = |x: f64, y: f64| Vector2::<Fx>::from_f64(x, y);
    let far = |e: SinewError, what: &str| {
        assert!(matches!(e, SinewError::InvalidParameter { what: w, value: Some(_), .. } if w == what), "{e:?}");
        assert!(e.to_string().contains("16384"), "{e}");
    };
    far(w.add_particle(&ParticleDef::at(v(20_000.0, 0.0))).unwrap_err(), "particle position");
    far(w.add_particle(&ParticleDef::at(v(0.0, 0.0)).velocity(v(0.0, -1e5))).unwrap_err(), "particle velocity");
    far(
        w.add_collider(&ColliderDef::new(Shape::ball(Fx::ONE).unwrap()).position(v(0.0, -16_385.0))).unwrap_err(),
        "collider position",
    );
    far(w.add_rope(&RopeDef::between(v(0.0, 0.0), v(17_000.0, 0.0))).unwrap_err(), "rope points");
    let p = w.add_particle(&ParticleDef::at(v(16_000.0, -16_384.0))).unwrap();
    far(w.particles_mut().set_position(p, v(1e6, 0.0)).unwrap_err(), "position");
    far(w.particles_mut().set_kinematic_target(p, v(0.0, 3e4)).unwrap_err(), "target");
    assert_eq!(w.particles().position(p).unwrap(), v(16_000.0, -16_384.0), "a refused call changes nothing");
    // Floating point has no such range.
    let mut f = World::<Space2<f32>>::new(WorldDef::default()).unwrap();
    assert!(f.add_particle(&ParticleDef::at(Vector2::new(1e6, 0.0))).is_ok());
}
