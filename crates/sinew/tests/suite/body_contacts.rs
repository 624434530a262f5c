//! Contacts between bodies (`WorldDef::body_contacts`): particles as spheres, bones and
//! rope spans as capsules. Depths are measured here independently of the solver: the
//! distance between two segments by a ternary search on the convex function
//! `s ↦ dist(p(s), segment q)` (60 rounds: far below a micrometre), minus the radii.

use crate::rng::Rng;
use sinew::prelude::*;
use sinew::ragdoll::presets;
use sinew::{BodyId, DVec2, DVec3, World};

const DT: f64 = 1.0 / 60.0;

type P3 = [f64; 3];

fn sub(a: P3, b: P3) -> P3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: P3, b: P3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn lerp(a: P3, b: P3, t: f64) -> P3 {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]
}

/// Distance from `x` to segment `ab`.
fn point_segment(x: P3, a: P3, b: P3) -> f64 {
    let ab = sub(b, a);
    let l2 = dot(ab, ab);
    let t = if l2 > 0.0 { (dot(sub(x, a), ab) / l2).clamp(0.0, 1.0) } else { 0.0 };
    let d = sub(x, lerp(a, b, t));
    dot(d, d).sqrt()
}

/// Distance between segments, by ternary search over the first one's parameter.
fn segment_segment(a: P3, b: P3, c: P3, d: P3) -> f64 {
    let f = |s: f64| point_segment(lerp(a, b, s), c, d);
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if f(m1) <= f(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    f(0.5 * (lo + hi)).min(f(0.0)).min(f(1.0))
}

/// A capsule: two particle slots (equal for a sphere).
type Cap = (usize, usize);

fn pos<S: Space>(w: &World<S>, k: usize) -> P3 {
    w.particles().position(w.particles().handle_at(k).unwrap()).unwrap().to_f64_array()
}
fn rad<S: Space>(w: &World<S>, k: usize) -> f64 {
    w.particles().radius(w.particles().handle_at(k).unwrap()).unwrap().to_f64()
}

/// Deepest overlap (m) between any capsule of `a` and any of `b` (0 if none overlap).
fn max_depth<S: Space>(w: &World<S>, a: &[Cap], b: &[Cap]) -> f64 {
    let mut worst = 0.0f64;
    for &(i, j) in a {
        for &(k, l) in b {
            let d = segment_segment(pos(w, i), pos(w, j), pos(w, k), pos(w, l));
            // Radii as the solver's capsules: the ends' radii, the larger taken (a bound).
            let r = rad(w, i).max(rad(w, j)) + rad(w, k).max(rad(w, l));
            worst = worst.max(r - d);
        }
    }
    worst
}

fn bones_of<S: sinew::ragdoll::RigSpace>(w: &World<S>, rd: &Ragdoll<S>) -> Vec<Cap> {
    rd.bones().iter().map(|&h| w.distance(h).unwrap().indices()).collect()
}

fn spans_of<S: Space>(w: &World<S>, rope: RopeHandle) -> Vec<Cap> {
    let ps = w.rope(rope).unwrap().particles();
    ps.windows(2).map(|p| (p[0].index(), p[1].index())).collect()
}

fn momentum<S: Space>(w: &World<S>) -> P3 {
    let ps = w.particles();
    let mut m = [0.0; 3];
    for h in ps.handles() {
        let v = ps.velocity(h).unwrap().to_f64_array();
        let mass = ps.mass(h).unwrap().to_f64();
        for i in 0..3 {
            m[i] += mass * v[i];
        }
    }
    m
}

// ------------------------------------------------------------------ particles

fn head_on<S: Space>() -> (f64, f64, f64) {
    let def = WorldDef::<S>::default().gravity(VecOf::<S>::ZERO).body_contacts(true);
    let mut w = World::<S>::new(def).unwrap();
    let at = |x: f64| VecOf::<S>::from_f64_slice(&[x, 0.0, 0.0]);
    let r = |x: f64| RealOf::<S>::from_f64(x);
    let a = w.add_particle(&ParticleDef::at(at(-1.0)).mass(r(1.0)).radius(r(0.1)).velocity(at(5.0))).unwrap();
    let b = w.add_particle(&ParticleDef::at(at(1.0)).mass(r(3.0)).radius(r(0.2)).velocity(at(-5.0))).unwrap();
    let p0 = momentum(&w)[0];
    let mut closest = f64::MAX;
    for _ in 0..60 {
        w.step(r(DT)).unwrap();
        let d = pos(&w, b.index())[0] - pos(&w, a.index())[0];
        closest = closest.min(d);
    }
    let d = pos(&w, b.index())[0] - pos(&w, a.index())[0];
    ((momentum(&w)[0] - p0).abs(), closest, d)
}

/// Momentum before −10 kg·m/s; the projection moves the two by `w_i·Δλ·n`, so `Σ m Δx = 0`
/// up to rounding: 1e-9 kg·m/s in f64, 1e-4 in f32, 1e-6 in fixed point (Q32.32 rounding of
/// positions, 2.3e-10 m, divided by h = 1/480 s, times 4 kg, over 480 substeps). After the
/// impact they move together (the contact is inelastic) at the sum of radii, 0.3 m.
#[test]
fn two_particles_colliding_head_on_conserve_momentum_and_separate_to_the_sum_of_radii() {
    let cases = [
        ("f64 2D", head_on::<Space2<f64>>(), 1e-9, 1e-9),
        ("f64 3D", head_on::<Space3<f64>>(), 1e-9, 1e-9),
        ("f32 2D", head_on::<Space2<f32>>(), 1e-4, 1e-5),
        ("Fx 2D", head_on::<Space2<Fx>>(), 1e-6, 1e-6),
        ("Fx 3D", head_on::<Space3<Fx>>(), 1e-6, 1e-6),
    ];
    for (name, (dp, closest, end), tol_p, tol_d) in cases {
        assert!(dp < tol_p, "{name}: momentum changed by {dp}");
        // Before the contact acts, one substep may overlap by up to the closing speed's
        // h·10 m/s = 2.1 cm (then it is pushed out within that substep).
        assert!(closest > 0.3 - 0.021, "{name}: came within {closest}");
        assert!((end - 0.3).abs() < tol_d.max(1e-6), "{name}: rests {end} apart, not 0.3");
    }
}

fn coincident<S: Space>() -> (f64, bool) {
    let mut w = World::<S>::new(WorldDef::<S>::default().gravity(VecOf::<S>::ZERO).body_contacts(true)).unwrap();
    let p = ParticleDef::at(VecOf::<S>::from_f64_slice(&[0.5, 0.5, 0.5])).radius(RealOf::<S>::from_f64(0.1));
    let a = w.add_particle(&p).unwrap();
    let b = w.add_particle(&p).unwrap();
    for _ in 0..30 {
        w.step(RealOf::<S>::from_f64(DT)).unwrap();
    }
    let (pa, pb) = (pos(&w, a.index()), pos(&w, b.index()));
    (dot(sub(pa, pb), sub(pa, pb)).sqrt(), pa.iter().chain(&pb).all(|x| x.is_finite()))
}

/// Two particles at the same point have no direction between them: the fallback (where
/// they were, else the first axis) pushes them apart, never NaN, the same way every run.
#[test]
fn coincident_particles_are_pushed_apart_without_nan() {
    for (name, (d, finite)) in [
        ("f64 3D", coincident::<Space3<f64>>()),
        ("f32 2D", coincident::<Space2<f32>>()),
        ("Fx 2D", coincident::<Space2<Fx>>()),
        ("Fx 3D", coincident::<Space3<Fx>>()),
    ] {
        assert!(finite, "{name}");
        assert!((d - 0.2).abs() < 1e-5, "{name}: {d} apart, not the sum of radii 0.2");
    }
    assert_eq!(coincident::<Space3<Fx>>().0.to_bits(), coincident::<Space3<Fx>>().0.to_bits());
}

/// Groups filter pairs as for colliders: memberships of one against the filter of the
/// other, both ways.
#[test]
fn groups_filter_which_particles_collide() {
    let run = |ga: InteractionGroups, gb: InteractionGroups| {
        let mut w = World2d::new(WorldDef::default().gravity(DVec2::ZERO).body_contacts(true)).unwrap();
        let a = w.add_particle(&ParticleDef::at(DVec2::new(-1.0, 0.0)).radius(0.1).velocity(DVec2::new(3.0, 0.0)).groups(ga)).unwrap();
        let b = w.add_particle(&ParticleDef::at(DVec2::new(1.0, 0.0)).radius(0.1).groups(gb)).unwrap();
        for _ in 0..60 {
            w.step(DT).unwrap();
        }
        (w.particles().position(a).unwrap().x, w.particles().position(b).unwrap().x)
    };
    let g = |m: u32, f: u32| InteractionGroups { memberships: m, filter: f };
    // Interacting: a stops at b and pushes it (equal masses, inelastic: both at 1.5 m/s).
    let (xa, xb) = run(g(1, 2), g(2, 1));
    assert!(xb - xa >= 0.2 - 1e-9 && xb > 1.0 + 0.5, "{xa} {xb}");
    // One way only: no contact, a passes through b.
    let (xa, xb) = run(g(1, 2), g(2, 2));
    assert!((xa - 2.0).abs() < 1e-9 && (xb - 1.0).abs() < 1e-12, "{xa} {xb}");
    // NONE takes no part.
    let (xa, _) = run(InteractionGroups::ALL, InteractionGroups::NONE);
    assert!((xa - 2.0).abs() < 1e-9);
}

/// The setting is off by default, and off it changes nothing: two particles pass through
/// each other and the state hash is the one a world without the setting had.
#[test]
fn body_contacts_are_off_by_default_and_leave_the_hash_alone() {
    assert!(!WorldDef::<Space2<Fx>>::default().body_contacts);
    let build = |on: bool| {
        let mut w = World2x::new(WorldDef::default().body_contacts(on)).unwrap();
        let b = w.new_body().unwrap();
        w.add_particle(&ParticleDef::at(Vector2::from_f64(0.0, 1.0)).radius(Fx::from_f64(0.1)).body(b)).unwrap();
        w.set_self_collision(b, true).unwrap();
        w
    };
    let mut plain = World2x::new(WorldDef::default()).unwrap();
    plain.add_particle(&ParticleDef::at(Vector2::from_f64(0.0, 1.0)).radius(Fx::from_f64(0.1))).unwrap();
    assert_eq!(build(false).state_hash(), plain.state_hash(), "bodies are not hashed while off");
    assert_ne!(build(true).state_hash(), plain.state_hash(), "the setting and bodies are hashed while on");
    // A body another world made is refused, not trusted.
    let mut other = World2x::new(WorldDef::default()).unwrap();
    let (b0, b1) = (other.new_body().unwrap(), other.new_body().unwrap());
    let mut w = build(true);
    assert!(w.set_self_collision(b0, true).is_ok());
    assert!(w.set_self_collision(b1, true).is_err());
    assert!(w.add_particle(&ParticleDef::at(Vector2::from_f64(0.0, 0.0)).body(b1)).is_err());
}
