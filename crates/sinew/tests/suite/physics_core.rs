//! Physics truths the core solver must reproduce, each with a stated tolerance.
//! Every test runs in `f32`, `f64` and Q32.32 fixed point (`Fx`) through the generic
//! `Real` scalar, with the same tolerances.

use sinew::World;
use sinew::prelude::*;
use sinew::{RealOf, VecOf};
use std::f64::consts::PI;

const G: f64 = 9.81;

fn r<S: Space>(v: f64) -> RealOf<S> {
    RealOf::<S>::from_f64(v)
}

fn v2<R: Real>(x: f64, y: f64) -> Vector2<R> {
    Vector2::from_f64(x, y)
}

fn world<S: Space>(substeps: u32, iterations: u32) -> World<S> {
    World::new(WorldDef::default().substeps(substeps).iterations(iterations)).unwrap()
}

/// Arithmetic–geometric mean.
fn agm(mut a: f64, mut b: f64) -> f64 {
    for _ in 0..30 {
        let (x, y) = ((a + b) / 2.0, (a * b).sqrt());
        a = x;
        b = y;
    }
    a
}

/// Period from the times a signal crosses zero (linear interpolation inside a step):
/// consecutive crossings are half a period apart. Crossings are where the motion is
/// fastest, so the estimate is robust to the rounding noise of `f32` velocities.
fn period_from_zero_crossings(samples: &[(f64, f64)]) -> f64 {
    let mut crossings = Vec::new();
    for w in samples.windows(2) {
        let ((t0, a), (t1, b)) = (w[0], w[1]);
        if a != 0.0 && a.signum() != b.signum() {
            crossings.push(t0 + (t1 - t0) * a / (a - b));
        }
    }
    assert!(crossings.len() >= 3, "no oscillation: {} crossings", crossings.len());
    (crossings[crossings.len() - 1] - crossings[0]) / ((crossings.len() - 1) as f64 / 2.0)
}

/// The first full period: from the first zero crossing to the third. The large-amplitude
/// formula gives the period of a swing that starts at θ₀, and XPBD loses a little energy
/// per swing (see `pendulum_energy_never_grows_and_loss_is_first_order_in_h`), so later
/// swings are measurably shorter.
fn first_period(samples: &[(f64, f64)]) -> f64 {
    let mut crossings = Vec::new();
    for w in samples.windows(2) {
        let ((t0, a), (t1, b)) = (w[0], w[1]);
        if a != 0.0 && a.signum() != b.signum() {
            crossings.push(t0 + (t1 - t0) * a / (a - b));
        }
    }
    assert!(crossings.len() >= 3, "no oscillation");
    crossings[2] - crossings[0]
}

/// Simulates a planar pendulum released from rest at `theta0` and returns its first period.
fn pendulum_period<R: Real>(theta0: f64, length: f64, substeps: u32) -> f64 {
    let mut w = world::<Space2<R>>(substeps, 1);
    let pin = w.add_particle(&ParticleDef::at(v2(0.0, 0.0)).mass(R::ZERO)).unwrap();
    let bob = w.add_particle(&ParticleDef::at(v2(length * theta0.sin(), -length * theta0.cos()))).unwrap();
    w.add_distance(&DistanceDef::new(pin, bob)).unwrap();
    let dt = 1.0 / 60.0;
    let t0 = 2.0 * PI * (length / G).sqrt();
    let steps = (1.6 * t0 / dt) as usize;
    let mut samples = vec![(0.0, w.particles().position(bob).unwrap().x.to_f64())];
    for step in 1..=steps {
        w.step(R::from_f64(dt)).unwrap();
        samples.push((step as f64 * dt, w.particles().position(bob).unwrap().x.to_f64()));
    }
    first_period(&samples)
}

fn check_pendulum_small<R: Real>() {
    let l = 1.0;
    let t0 = 2.0 * PI * (l / G).sqrt();
    let theta0 = 2.0f64.to_radians();
    let exact = t0 / agm(1.0, (theta0 / 2.0).cos());
    let t = pendulum_period::<R>(theta0, l, 8);
    let err = (t - t0).abs() / t0;
    assert!(err < 0.005, "{}: small-amplitude period {t} vs 2π√(L/g) = {t0} (err {err})", R::NAME);
    assert!((t - exact).abs() / exact < 0.005);
}

fn check_pendulum_large<R: Real>() {
    let l = 1.0;
    let t0 = 2.0 * PI * (l / G).sqrt();
    let theta0 = 60.0f64.to_radians();
    let exact = t0 / agm(1.0, (theta0 / 2.0).cos());
    assert!((exact / t0 - 1.0732).abs() < 1e-3, "AGM formula sanity");
    let t = pendulum_period::<R>(theta0, l, 8);
    let err = (t - exact).abs() / exact;
    assert!(err < 0.005, "{}: 60° period {t} vs exact {exact} (err {err})", R::NAME);
}

#[test]
fn pendulum_period_matches_small_angle_formula() {
    check_pendulum_small::<f32>();
    check_pendulum_small::<f64>();
    check_pendulum_small::<Fx>();
}

#[test]
fn pendulum_period_matches_exact_large_amplitude_period_at_60_degrees() {
    check_pendulum_large::<f32>();
    check_pendulum_large::<f64>();
    check_pendulum_large::<Fx>();
}

fn check_conical<R: Real>() {
    let (l, theta) = (1.0f64, 30.0f64.to_radians());
    let radius = l * theta.sin();
    let speed = (G * l * theta.sin() * theta.tan()).sqrt();
    let mut w = world::<Space3<R>>(8, 1);
    let pin = w.add_particle(&ParticleDef::at(Vector3::from_f64(0.0, 0.0, 0.0)).mass(R::ZERO)).unwrap();
    let bob = w
        .add_particle(
            &ParticleDef::at(Vector3::from_f64(radius, -l * theta.cos(), 0.0))
                .velocity(Vector3::from_f64(0.0, 0.0, speed)),
        )
        .unwrap();
    w.add_distance(&DistanceDef::new(pin, bob)).unwrap();
    let dt = 1.0 / 60.0;
    let mut angle = 0.0f64;
    let mut last = 0.0f64;
    let mut t = 0.0;
    // Accumulate the azimuth over the first revolution.
    while t < 10.0 {
        w.step(R::from_f64(dt)).unwrap();
        t += dt;
        let p = w.particles().position(bob).unwrap();
        let a = p.z.to_f64().atan2(p.x.to_f64());
        let mut d = a - last;
        if d < -PI {
            d += 2.0 * PI;
        }
        if d > PI {
            d -= 2.0 * PI;
        }
        // Interpolate the exact moment the total passes 10π.
        if angle + d >= 2.0 * PI {
            t -= dt * (angle + d - 2.0 * PI) / d;
            break;
        }
        angle += d;
        last = a;
    }
    let period = t;
    let expected = 2.0 * PI * (l * theta.cos() / G).sqrt();
    let err = (period - expected).abs() / expected;
    assert!(err < 0.005, "{}: conical period {period} vs {expected} (err {err})", R::NAME);
}

#[test]
fn conical_pendulum_period_matches_formula_in_3d() {
    check_conical::<f32>();
    check_conical::<f64>();
    check_conical::<Fx>();
}

fn check_ballistic<R: Real>() {
    let mut w = world::<Space2<R>>(8, 1);
    let b = w.add_particle(&ParticleDef::at(v2(0.0, 0.0)).velocity(v2(3.0, 10.0))).unwrap();
    for _ in 0..60 {
        w.step(R::from_f64(1.0 / 60.0)).unwrap();
    }
    let p = w.particles().position(b).unwrap();
    let (ex, ey) = (3.0, 10.0 - 0.5 * G);
    let err = ((p.x.to_f64() - ex).powi(2) + (p.y.to_f64() - ey).powi(2)).sqrt() / (ex * ex + ey * ey).sqrt();
    assert!(err < 0.005, "{}: ballistic ({}, {}) vs ({ex}, {ey}), err {err}", R::NAME, p.x, p.y);
}

#[test]
fn ballistic_flight_matches_analytic_position_after_one_second() {
    check_ballistic::<f32>();
    check_ballistic::<f64>();
    check_ballistic::<Fx>();
}

/// Spring of compliance α with mass m: period 2π√(mα), independent of substeps.
fn check_xpbd_period<R: Real>(substeps: u32) {
    let (m, alpha) = (1.0, 0.001);
    let mut w = World::<Space2<R>>::new(WorldDef::default().gravity(Vector2::ZERO).substeps(substeps)).unwrap();
    // The bob oscillates about the origin: at h = 62.5 µs a correction is ~1e-8 m, which
    // f32 resolves near 0 but not near 1 m (its spacing there is 1.2e-7 m).
    let pin = w.add_particle(&ParticleDef::at(v2(-1.0, 0.0)).mass(R::ZERO)).unwrap();
    let bob = w.add_particle(&ParticleDef::at(v2(0.01, 0.0)).mass(R::from_f64(m))).unwrap();
    w.add_distance(&DistanceDef::new(pin, bob).length(R::ONE).compliance(R::from_f64(alpha))).unwrap();
    let dt = 1.0 / 1000.0;
    let mut samples = Vec::new();
    for step in 1..=1000 {
        w.step(R::from_f64(dt)).unwrap();
        samples.push((step as f64 * dt, w.particles().position(bob).unwrap().x.to_f64()));
    }
    let period = period_from_zero_crossings(&samples);
    let expected = 2.0 * PI * (m * alpha).sqrt();
    assert!((expected - 0.1987).abs() < 1e-3);
    let err = (period - expected).abs() / expected;
    assert!(err < 0.02, "{} substeps {substeps}: period {period} vs {expected} (err {err})", R::NAME);
}

/// A hanging mass on a compliant link stretches α·m·g whatever the substep count.
fn check_xpbd_stretch<R: Real>(substeps: u32) {
    let (m, alpha) = (2.0, 0.001);
    let mut w = World::<Space2<R>>::new(WorldDef::default().substeps(substeps).damping(R::from_f64(4.0))).unwrap();
    let pin = w.add_particle(&ParticleDef::at(v2(0.0, 0.0)).mass(R::ZERO)).unwrap();
    let bob = w.add_particle(&ParticleDef::at(v2(0.0, -1.0)).mass(R::from_f64(m))).unwrap();
    let d = w.add_distance(&DistanceDef::new(pin, bob).compliance(R::from_f64(alpha))).unwrap();
    for _ in 0..(60 * 10) {
        w.step(R::from_f64(1.0 / 60.0)).unwrap();
    }
    let stretch = -w.particles().position(bob).unwrap().y.to_f64() - 1.0;
    let expected = alpha * m * G;
    let err = (stretch - expected).abs() / expected;
    assert!(err < 0.02, "{} substeps {substeps}: stretch {stretch} vs α·m·g = {expected} (err {err})", R::NAME);
    // The multiplier reads the force holding the mass: m·g.
    let tension = w.distance_tension(d).unwrap().to_f64();
    assert!((tension - m * G).abs() / (m * G) < 0.02, "tension {tension}");
}

#[test]
fn xpbd_spring_period_is_independent_of_substeps() {
    for n in [1, 4, 16] {
        check_xpbd_period::<f32>(n);
        check_xpbd_period::<f64>(n);
        check_xpbd_period::<Fx>(n);
    }
}

#[test]
fn xpbd_hanging_stretch_is_alpha_m_g_for_any_substep_count() {
    for n in [1, 4, 16] {
        check_xpbd_stretch::<f32>(n);
        check_xpbd_stretch::<f64>(n);
        check_xpbd_stretch::<Fx>(n);
    }
}

/// Solves s = 2a·sinh(d/a) for a by bisection.
fn catenary_parameter(half_span: f64, length: f64) -> f64 {
    let (mut lo, mut hi) = (1e-3, 1e3);
    for _ in 0..200 {
        let a = 0.5 * (lo + hi);
        if 2.0 * a * (half_span / a).sinh() > length { lo = a } else { hi = a }
    }
    0.5 * (lo + hi)
}

fn check_catenary<R: Real>(constraint_order: ConstraintOrder) {
    let segments = 48;
    let (span, length, mass) = (8.0, 10.0, 4.8);
    let a = catenary_parameter(span / 2.0, length);
    let sag = a * ((span / 2.0) / a).cosh() - a;
    let mut w = World::<Space2<R>>::new(
        WorldDef::default().substeps(16).iterations(4).damping(R::from_f64(2.0)).constraint_order(constraint_order),
    )
    .unwrap();
    // Start as a straight line compressed between the supports, links at rest length.
    let seg = length / segments as f64;
    let mut hs = Vec::new();
    for i in 0..=segments {
        let x = -span / 2.0 + span * i as f64 / segments as f64;
        let m = if i == 0 || i == segments { 0.0 } else { mass / (segments - 1) as f64 };
        hs.push(w.add_particle(&ParticleDef::at(v2(x, 0.0)).mass(R::from_f64(m))).unwrap());
    }
    for i in 0..segments {
        w.add_distance(&DistanceDef::new(hs[i], hs[i + 1]).length(R::from_f64(seg))).unwrap();
    }
    for _ in 0..(60 * 20) {
        w.step(R::from_f64(1.0 / 60.0)).unwrap();
    }
    let lowest = hs.iter().map(|&h| w.particles().position(h).unwrap().y.to_f64()).fold(f64::MAX, f64::min);
    let err = (-lowest - sag).abs() / sag;
    assert!(err < 0.01, "{}: catenary sag {} vs analytic {sag} (err {err})", R::NAME, -lowest);
}

#[test]
fn catenary_chain_settles_to_analytic_sag() {
    check_catenary::<f32>(ConstraintOrder::Sequential);
    check_catenary::<f64>(ConstraintOrder::Sequential);
    check_catenary::<Fx>(ConstraintOrder::Sequential);
    // The coloured sweep converges to the same equilibrium.
    check_catenary::<f32>(ConstraintOrder::Coloured);
    check_catenary::<f64>(ConstraintOrder::Coloured);
}

fn check_momentum<R: Real>(tolerance: f64) {
    let mut w = World::<Space2<R>>::new(WorldDef::default().gravity(Vector2::ZERO)).unwrap();
    let mut seed = 7u64;
    let mut rnd = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let mut hs = Vec::new();
    for i in 0..20 {
        let d = ParticleDef::at(v2(i as f64 * 0.2, rnd() * 0.1))
            .velocity(v2(rnd(), rnd()))
            .mass(R::from_f64(0.5 + 0.5 * (rnd() + 1.0)));
        hs.push(w.add_particle(&d).unwrap());
    }
    for i in 0..19 {
        w.add_distance(&DistanceDef::new(hs[i], hs[i + 1]).compliance(R::from_f64(if i % 2 == 0 {
            0.0
        } else {
            1e-3
        })))
        .unwrap();
    }
    for i in 0..18 {
        w.add_bending(&{
            let mut d = BendingDef::new(hs[i], hs[i + 1], hs[i + 2]);
            d.compliance = R::from_f64(1e-2);
            d.rest = None;
            d
        })
        .unwrap();
        w.add_joint_limit(&{
            let mut d = AngleLimitDef::new(hs[i], hs[i + 1], hs[i + 2], R::from_f64(-0.5), R::from_f64(0.5));
            d.compliance = R::ZERO;
            d
        })
        .unwrap();
    }
    let p0 = w.particles().linear_momentum();
    for _ in 0..300 {
        w.step(R::from_f64(1.0 / 60.0)).unwrap();
    }
    let p1 = w.particles().linear_momentum();
    let drift = (p1 - p0).length().to_f64();
    assert!(drift < tolerance, "{}: momentum drift {drift}", R::NAME);
}

#[test]
fn internal_constraints_conserve_linear_momentum() {
    // Exact arithmetic conserves momentum exactly (every gradient set sums to zero);
    // f64 rounding leaves ~1e-11 here. The check is about the solver's algebra, which is
    // the same generic code in every scalar type, so it runs in f64 only: in f32 the
    // velocities are position differences divided by h (ulp(4 m)/h ≈ 2e-4 m/s per particle
    // and substep), and this deliberately chaotic scene turns that rounding into a
    // trajectory-dependent random walk rather than a property of the solver.
    check_momentum::<f64>(1e-5);
    // Fixed point: positions are exact but each correction w·∇C·Δλ is rounded to 2⁻³² m,
    // and v = Δx/h multiplies that by 1/h = 480, so momentum takes a random walk of about
    // √(57 projections × 3 particles)·2⁻³²·480 ≈ 1.5e-6 kg·m/s per substep, ~7e-5 over these
    // 2400 substeps (measured: 6.1e-5). The bound is ~7σ; a real non-conservation (a wrong
    // gradient) shows up at 1e-1.
    check_momentum::<Fx>(5e-4);
}

fn check_tethers<R: Real>() {
    let segments = 200;
    let seg = 0.05;
    let mut w = world::<Space2<R>>(1, 1);
    let mut hs = Vec::new();
    for i in 0..=segments {
        let m = if i == 0 { R::ZERO } else { R::from_f64(0.01) };
        hs.push(w.add_particle(&ParticleDef::at(v2(i as f64 * seg, 0.0)).mass(m)).unwrap());
    }
    for i in 0..segments {
        w.add_distance(&DistanceDef::new(hs[i], hs[i + 1])).unwrap();
        w.add_tether(&{
            let mut d = TetherDef::new(hs[i + 1], hs[0]);
            d.length = Some(R::from_f64((i + 1) as f64 * seg));
            d
        })
        .unwrap();
    }
    let pin = w.particles().position(hs[0]).unwrap();
    for _ in 0..(60 * 5) {
        w.step(R::from_f64(1.0 / 60.0)).unwrap();
        for (i, &h) in hs.iter().enumerate().skip(1) {
            let d = (w.particles().position(h).unwrap() - pin).length().to_f64();
            let limit = i as f64 * seg;
            assert!(d <= limit * (1.0 + 1e-5) + 1e-6, "{}: particle {i} at {d} > rope distance {limit}", R::NAME);
        }
    }
}

#[test]
fn tethers_keep_a_200_segment_rope_within_rope_distance_at_one_substep() {
    check_tethers::<f32>();
    check_tethers::<f64>();
    check_tethers::<Fx>();
}

#[test]
fn one_distance_projection_lands_exactly_on_rest_length() {
    // Jakobsen's printed stick code doubles the correction; XPBD with α = 0 must land on L.
    let mut w = World::<Space2<f64>>::new(WorldDef::default().gravity(Vector2::ZERO).substeps(1)).unwrap();
    let a = w.add_particle(&ParticleDef::at(v2(0.0, 0.0)).mass(1.0)).unwrap();
    let b = w.add_particle(&ParticleDef::at(v2(1.5, 0.0)).mass(3.0)).unwrap();
    w.add_distance(&DistanceDef::new(a, b).length(1.0)).unwrap();
    w.step(1e-3).unwrap();
    let (pa, pb) = (w.particles().position(a).unwrap(), w.particles().position(b).unwrap());
    assert!(((pb - pa).length() - 1.0).abs() < 1e-12);
    // Split by inverse mass: a (1 kg) moves 3× as far as b (3 kg); centre of mass fixed.
    assert!((pa.x - 0.375).abs() < 1e-12 && (pb.x - 1.375).abs() < 1e-12, "{pa:?} {pb:?}");
}

fn fast_particle_hits<S: Space>(shape: Shape<S>, at: VecOf<S>, start: VecOf<S>, vel: VecOf<S>, substeps: u32)
where
    VecOf<S>: Vector<RealOf<S>>,
{
    let mut w = World::<S>::new(WorldDef::default().gravity(VecOf::<S>::ZERO).substeps(substeps)).unwrap();
    w.add_collider(&ColliderDef::new(shape).position(at)).unwrap();
    let p = w.add_particle(&ParticleDef::at(start).velocity(vel)).unwrap();
    let dir = vel.normalize_or_zero();
    let wall = at.dot(dir);
    for _ in 0..60 {
        w.step(r::<S>(1.0 / 60.0)).unwrap();
        let x = w.particles().position(p).unwrap();
        assert!(x.dot(dir) <= wall, "{} tunnelled: {x:?}", RealOf::<S>::NAME);
    }
}

#[test]
fn fast_particles_do_not_tunnel_through_a_2cm_wall() {
    for substeps in [1, 8] {
        // 20 m/s = 4.2 cm per substep at 8 substeps, 33 cm at 1: both exceed the 2 cm wall.
        fast_particle_hits::<Space2<f32>>(
            Shape::cuboid(v2(0.01, 1.0)).unwrap(),
            v2(1.0, 0.0),
            v2(0.0, 0.0),
            v2(20.0, 0.0),
            substeps,
        );
        fast_particle_hits::<Space2<f64>>(
            Shape::capsule(v2(0.0, -1.0), v2(0.0, 1.0), 0.01).unwrap(),
            v2(1.0, 0.0),
            v2(0.0, 0.3),
            v2(20.0, 0.0),
            substeps,
        );
        fast_particle_hits::<Space3<f32>>(
            Shape::cuboid(Vector3::from_f64(0.01, 1.0, 1.0)).unwrap(),
            Vector3::from_f64(1.0, 0.0, 0.0),
            Vector3::ZERO,
            Vector3::from_f64(20.0, 0.0, 0.0),
            substeps,
        );
        fast_particle_hits::<Space3<f64>>(
            Shape::ball(0.01).unwrap(),
            Vector3::from_f64(1.0, 0.0, 0.0),
            Vector3::ZERO,
            Vector3::from_f64(20.0, 0.0, 0.0),
            substeps,
        );
    }
}

fn pendulum_energy_trace<R: Real>(substeps: u32) -> Vec<f64> {
    let mut w = world::<Space2<R>>(substeps, 1);
    let th = 60f64.to_radians();
    let pin = w.add_particle(&ParticleDef::at(v2(0.0, 0.0)).mass(R::ZERO)).unwrap();
    let bob = w.add_particle(&ParticleDef::at(v2(th.sin(), -th.cos()))).unwrap();
    w.add_distance(&DistanceDef::new(pin, bob)).unwrap();
    let mut e = Vec::new();
    for _ in 0..120 {
        w.step(R::from_f64(1.0 / 60.0)).unwrap();
        let (p, v) = (w.particles().position(bob).unwrap(), w.particles().velocity(bob).unwrap());
        e.push(0.5 * v.length_squared().to_f64() + G * p.y.to_f64());
    }
    e
}

#[test]
fn pendulum_energy_never_grows_and_loss_is_first_order_in_h() {
    // Energy measured from the lowest point: E = ½v² + g(y + L), initially g(1 − cos 60°)·L.
    let e0 = G * 0.5;
    let mut losses = Vec::new();
    for n in [8, 16, 32] {
        let trace = pendulum_energy_trace::<f64>(n);
        for w in trace.windows(2) {
            // Projection only removes energy; allow a whisker for the chord/arc sampling.
            assert!(w[1] <= w[0] + 1e-3 * e0, "energy grew at {n} substeps: {} -> {}", w[0], w[1]);
        }
        let loss = (e0 - (trace[119] + G)) / e0;
        assert!(loss > 0.0);
        losses.push(loss);
    }
    // Default 8 substeps: under 8 % over 2 s; halving h roughly halves the loss.
    assert!(losses[0] < 0.08, "loss at 8 substeps {}", losses[0]);
    for k in 0..2 {
        let ratio = losses[k] / losses[k + 1];
        assert!((1.7..2.3).contains(&ratio), "loss ratio {ratio} ({losses:?})");
    }
}
