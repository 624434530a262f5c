//! The taut rope (`sinew::rope::taut`): a polyline that bends only round obstacles, its
//! wraps and unwraps, the length it holds, capstan friction and the switch from and to the
//! particle rope.

use sinew::prelude::*;
use sinew::{ColliderHandle, RopeHandle, World};

const G: f64 = 9.81;
const DT: f64 = 1.0 / 60.0;

fn v<R: Real>(x: f64, y: f64) -> Vector2<R> {
    Vector2::<R>::from_f64(x, y)
}

fn pos<R: Real>(w: &World<Space2<R>>, p: ParticleHandle) -> (f64, f64) {
    let q = w.particles().position(p).unwrap();
    (q.x.to_f64(), q.y.to_f64())
}

fn vel<R: Real>(w: &World<Space2<R>>, p: ParticleHandle) -> (f64, f64) {
    let q = w.particles().velocity(p).unwrap();
    (q.x.to_f64(), q.y.to_f64())
}

fn path_length<R: Real>(w: &World<Space2<R>>, h: RopeHandle) -> f64 {
    let p = w.rope_path(h).unwrap();
    p.windows(2).map(|s| (s[1] - s[0]).length().to_f64()).sum()
}

/// Distance from `p` to segment `a–b`.
fn seg_dist(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let l2 = dx * dx + dy * dy;
    let t = if l2 > 0.0 { (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / l2).clamp(0.0, 1.0) } else { 0.0 };
    ((p.0 - a.0 - t * dx).powi(2) + (p.1 - a.1 - t * dy).powi(2)).sqrt()
}

/// Whether any span of the path passes through the axis-aligned square `(cx, cy, half)`,
/// deeper than `tol`.
fn path_enters_square<R: Real>(w: &World<Space2<R>>, h: RopeHandle, c: (f64, f64, f64), tol: f64) -> bool {
    let p = w.rope_path(h).unwrap();
    p.windows(2).any(|s| {
        let (a, b) = ((s[0].x.to_f64(), s[0].y.to_f64()), (s[1].x.to_f64(), s[1].y.to_f64()));
        (0..=64).any(|i| {
            let t = i as f64 / 64.0;
            let (x, y) = (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
            (x - c.0).abs() < c.2 - tol && (y - c.1).abs() < c.2 - tol
        })
    })
}

/// The grappling hook: a rope anchored at (−3, 3) runs down over the apex (0, 0) of a
/// triangular ledge and holds a 70 kg particle 2 m below the apex, released 20° to the
/// right. Returns (the world, the rope, the load).
fn grappling_hook<R: Real>(substeps: u32) -> (World<Space2<R>>, RopeHandle, ParticleHandle) {
    let mut w = World::<Space2<R>>::new(WorldDef::default().substeps(substeps)).unwrap();
    let ledge = Shape::convex(&[v(0.0, 0.0), v(-1.0, 0.0), v(-1.0, -1.0)]).unwrap();
    w.add_collider(&ColliderDef::new(ledge)).unwrap();
    let a = 20f64.to_radians();
    let start = (2.0 * a.sin(), -2.0 * a.cos());
    let load = w.add_particle(&ParticleDef::at(v(start.0, start.1)).mass(R::from_f64(70.0)).radius(R::from_f64(0.2))).unwrap();
    let def = RopeDef::along(vec![v(-3.0, 3.0), v(0.0, 0.0), v(start.0, start.1)])
        .segments(60)
        .mass(R::from_f64(0.2))
        .pin_start()
        .attach_end(load)
        .taut(TautMode::Always);
    let h = w.add_rope(&def).unwrap();
    (w, h, load)
}

fn energy<R: Real>(w: &World<Space2<R>>, p: ParticleHandle) -> f64 {
    let (_, y) = pos(w, p);
    let (vx, vy) = vel(w, p);
    70.0 * (0.5 * (vx * vx + vy * vy) + G * y)
}

/// At 32 substeps: the position-based integrator loses energy at a rate proportional to
/// the substep (first order), the same whether the rope is taut or a particle rope: this
/// 2 m swing loses about 3 % of its energy per swing at the default 8 substeps, 0.8 % at 32.
fn check_grappling_hook<R: Real>(name: &str) {
    let (mut w, h, load) = grappling_hook::<R>(32);
    w.step(R::from_f64(DT)).unwrap();
    assert!(w.rope(h).unwrap().is_taut(), "{name}: taut after the first step");
    let wraps = w.rope(h).unwrap().wraps().to_vec();
    assert_eq!(wraps.len(), 1, "{name}: wrapped on the apex only: {wraps:?}");
    assert_eq!(wraps[0].feature(), 0, "{name}: the apex");
    // Upswings through x = 0 going right: the period; energy at each.
    let mut crossings = Vec::new();
    let mut energies = Vec::new();
    let mut last_x = pos(&w, load).0;
    let mut worst_energy: f64 = 0.0;
    let mut worst_length: f64 = 0.0;
    let length = w.rope(h).unwrap().rest_length().to_f64();
    for f in 1..=600 {
        w.step(R::from_f64(DT)).unwrap();
        let (x, _) = pos(&w, load);
        if last_x < 0.0 && x >= 0.0 {
            // Interpolated crossing time.
            let t = (f as f64 - 1.0 + (-last_x) / (x - last_x)) * DT;
            crossings.push(t);
            energies.push(energy(&w, load));
        }
        last_x = x;
        worst_length = worst_length.max((path_length(&w, h) - length).abs() / length);
        assert_eq!(w.rope(h).unwrap().wraps().len(), 1, "{name}: frame {f}: still on the apex");
    }
    // Energy lost per swing, relative to the swing's (the potential energy of the 20°
    // amplitude).
    let swing = 70.0 * G * 2.0 * (1.0 - 20f64.to_radians().cos());
    for e in energies.windows(2) {
        worst_energy = worst_energy.max((e[1] - e[0]).abs() / swing);
    }
    assert!(worst_energy < 0.01, "{name}: energy drift {:.3} % of the swing's per swing", worst_energy * 100.0);
    assert!(crossings.len() >= 3, "{name}: {crossings:?}");
    let periods: Vec<f64> = crossings.windows(2).map(|c| c[1] - c[0]).collect();
    // The free span is 2 m (less the particle's rope radius, none here): large-amplitude
    // pendulum, ×1.00767 at 20°.
    let t0 = 2.0 * std::f64::consts::PI * (2.0 / G).sqrt() * 1.00767;
    for p in &periods {
        assert!((p - t0).abs() / t0 < 0.01, "{name}: period {p:.4} s vs {t0:.4} s");
    }
    assert!(worst_length < 1e-4, "{name}: path length off the rope's by {:.2e}", worst_length);
}

#[test]
fn a_grappling_hook_swings_round_a_corner_with_its_energy_and_the_free_spans_period_f64() {
    check_grappling_hook::<f64>("f64");
}

#[test]
fn a_grappling_hook_swings_round_a_corner_with_its_energy_and_the_free_spans_period_f32() {
    check_grappling_hook::<f32>("f32");
}

#[test]
fn a_grappling_hook_swings_round_a_corner_with_its_energy_and_the_free_spans_period_fixed() {
    check_grappling_hook::<Fx>("fixed");
}

/// A rope anchored at (−2, 1.5) whose end is driven in a circle of radius 1.6 round a
/// 1 m square post at the origin, then back the way it came.
#[test]
fn a_driven_end_circling_a_square_post_wraps_its_corners_and_unwraps_them_in_reverse() {
    let mut w = World2d::new(WorldDef::default()).unwrap();
    let post: ColliderHandle = w.add_collider(&ColliderDef::new(Shape::cuboid(v(0.5, 0.5)).unwrap())).unwrap();
    let hand_at = |a: f64| (1.6 * a.cos(), 1.6 * a.sin());
    // Start: the hand at angle 90° (above the post); the rope, 6.5 m, laid out over a
    // detour and pulled straight by the first step (forced taut: the length is a maximum).
    let h0 = hand_at(std::f64::consts::FRAC_PI_2);
    let def = RopeDef::along(vec![v(-2.0, 1.5), v(-2.0, 4.5), v(h0.0, h0.1)])
        .segments(40)
        .mass(0.1)
        .pin_start()
        .pin_end()
        .taut(TautMode::Always);
    let h = w.add_rope(&def).unwrap();
    let hand = w.rope(h).unwrap().end();
    let length = w.rope(h).unwrap().rest_length();
    let steps = 240;
    let mut seen: Vec<Vec<u32>> = Vec::new();
    let angle_at = |f: usize| {
        // 90° → −180° (clockwise three quarters round) and back.
        let t = if f <= steps { f as f64 / steps as f64 } else { (2 * steps - f) as f64 / steps as f64 };
        std::f64::consts::FRAC_PI_2 - t * 1.5 * std::f64::consts::PI
    };
    for f in 1..=2 * steps {
        let (x, y) = hand_at(angle_at(f));
        w.particles_mut().set_kinematic_target(hand, v(x, y)).unwrap();
        w.step(DT).unwrap();
        let rope = w.rope(h).unwrap();
        assert!(rope.is_taut());
        assert!(!path_enters_square(&w, h, (0.0, 0.0, 0.5), 1e-6), "frame {f}: the path crosses the post");
        assert!(path_length(&w, h) <= length + 1e-9, "frame {f}: longer than the rope");
        let feats: Vec<u32> = rope.wraps().iter().map(|x| x.feature()).collect();
        assert!(rope.wraps().iter().all(|x| x.collider() == post && x.side() == -1), "frame {f}: {:?}", rope.wraps());
        if seen.last() != Some(&feats) {
            seen.push(feats);
        }
    }
    // Going round clockwise from above: top-right corner (2), bottom-right (1),
    // bottom-left (0) — then the same in reverse.
    let expect: Vec<Vec<u32>> =
        vec![vec![], vec![2], vec![2, 1], vec![2, 1, 0], vec![2, 1], vec![2], vec![]];
    assert_eq!(seen, expect);
}

/// Two loads over a round post (a ball, 10 cm): frictionless, Atwood's machine; with
/// friction μ = 0.3, held while the ratio of the loads is below `e^{μπ}` and slipping
/// above it.
fn two_loads_over_a_post(m0: f64, m1: f64, mu: f64) -> (World2d, RopeHandle, ParticleHandle, ParticleHandle) {
    let mut w = World2d::new(WorldDef::default()).unwrap();
    w.add_collider(&ColliderDef::new(Shape::ball(0.1).unwrap()).friction(mu)).unwrap();
    let r = 0.1 + 0.01;
    let a = w.add_particle(&ParticleDef::at(v(-r, -1.0)).mass(m0)).unwrap();
    let b = w.add_particle(&ParticleDef::at(v(r, -1.0)).mass(m1)).unwrap();
    let def = RopeDef::along(vec![v(-r, -1.0), v(-r, 0.0), v(0.0, r), v(r, 0.0), v(r, -1.0)])
        .segments(60)
        .mass(0.01)
        .friction(mu)
        .attach_start(a)
        .attach_end(b)
        .taut(TautMode::Always);
    let h = w.add_rope(&def).unwrap();
    (w, h, a, b)
}

#[test]
fn two_loads_over_a_frictionless_post_move_as_atwoods_machine() {
    let (mut w, h, a, b) = two_loads_over_a_post(1.0, 3.0, 0.0);
    for _ in 0..6 {
        w.step(DT).unwrap();
    }
    let (_, y0) = pos(&w, b);
    let (_, vy0) = vel(&w, b);
    let t = 0.5;
    for _ in 0..30 {
        w.step(DT).unwrap();
    }
    let (_, y1) = pos(&w, b);
    let acc = 2.0 * ((y1 - y0) - vy0 * t) / (t * t);
    let want = -G * (3.0 - 1.0) / 4.0;
    assert!((acc - want).abs() < 0.01 * want.abs(), "acceleration {acc:.4} vs {want:.4}");
    let tension = w.rope_tension(h, 0).unwrap();
    let want_t = 2.0 * G * 1.0 * 3.0 / 4.0;
    assert!((tension - want_t).abs() < 0.01 * want_t, "tension {tension:.3} vs {want_t:.3} N");
    let tension_end = w.rope_tension(h, w.rope(h).unwrap().segment_count() - 1).unwrap();
    assert!((tension_end - want_t).abs() < 0.01 * want_t, "end tension {tension_end:.3} N");
    let _ = a;
}

/// The load ratio at which two loads over a post with μ = 0.3 start to slip, against
/// `e^{μθ}`: held at 0.97 of it, slipping at 1.03.
#[test]
fn a_rope_over_a_post_holds_a_load_up_to_the_capstan_ratio() {
    let mu = 0.3;
    let k = (mu * std::f64::consts::PI).exp();
    for (ratio, held) in [(0.97 * k, true), (1.03 * k, false)] {
        let (mut w, _h, _a, b) = two_loads_over_a_post(1.0, ratio, mu);
        for _ in 0..10 {
            w.step(DT).unwrap();
        }
        let (_, y0) = pos(&w, b);
        for _ in 0..120 {
            w.step(DT).unwrap();
        }
        let (_, y1) = pos(&w, b);
        let moved = (y1 - y0).abs();
        if held {
            assert!(moved < 1e-4, "ratio {ratio:.3} (e^μπ = {k:.3}): slipped {moved:.4} m");
        } else {
            assert!(moved > 0.01, "ratio {ratio:.3} (e^μπ = {k:.3}): held ({moved:.5} m)");
        }
    }
}


