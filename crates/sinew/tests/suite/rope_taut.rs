//! The taut rope (`sinew::rope::taut`): a polyline that bends only round obstacles, its
//! wraps and unwraps, the length it holds, capstan friction and the switch from and to the
//! particle rope.

use crate::rng::Rng;
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
    hook_built::<R>(substeps, false)
}

/// [`grappling_hook`], the rope's end holding the load, or with `load_at_start` the rope
/// laid the other way round (the load its start, the anchor its pinned end).
fn hook_built<R: Real>(substeps: u32, load_at_start: bool) -> (World<Space2<R>>, RopeHandle, ParticleHandle) {
    let mut w = World::<Space2<R>>::new(WorldDef::default().substeps(substeps)).unwrap();
    let ledge = Shape::convex(&[v(0.0, 0.0), v(-1.0, 0.0), v(-1.0, -1.0)]).unwrap();
    w.add_collider(&ColliderDef::new(ledge)).unwrap();
    let a = 20f64.to_radians();
    let start = (2.0 * a.sin(), -2.0 * a.cos());
    let load =
        w.add_particle(&ParticleDef::at(v(start.0, start.1)).mass(R::from_f64(70.0)).radius(R::from_f64(0.2))).unwrap();
    let mut points = vec![v(-3.0, 3.0), v(0.0, 0.0), v(start.0, start.1)];
    let def = if load_at_start {
        points.reverse();
        RopeDef::along(points).pin_end().attach_start(load)
    } else {
        RopeDef::along(points).pin_start().attach_end(load)
    };
    let h = w.add_rope(&def.segments(60).mass(R::from_f64(0.2)).taut(TautMode::Always)).unwrap();
    (w, h, load)
}

fn energy<R: Real>(w: &World<Space2<R>>, p: ParticleHandle) -> f64 {
    let (_, y) = pos(w, p);
    let (vx, vy) = vel(w, p);
    70.0 * (0.5 * (vx * vx + vy * vy) + G * y)
}

/// At the default 8 substeps (and at 4): the swing keeps its energy within 1 % of the
/// swing's per swing (it keeps it within 0.01 %: see the next test), swings with the
/// period of a pendulum as long as the free span, and the path keeps the rope's length.
fn check_grappling_hook<R: Real>(name: &str) {
    for substeps in [4, 8] {
        check_grappling_hook_at::<R>(name, substeps);
    }
}

fn check_grappling_hook_at<R: Real>(name: &str, substeps: u32) {
    let (crossings, losses, worst_length) = swing_grappling_hook::<R>(name, substeps);
    let worst_energy = losses.iter().fold(0.0f64, |m, l| m.max(l.abs()));
    eprintln!("{name} {substeps}: worst energy change per swing {:.5} %", worst_energy * 100.0);
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

/// The grappling hook swung for 10 s at `substeps`: the times it swings up through x = 0
/// going right, the energy lost from each such crossing to the next relative to the
/// swing's (the potential energy of the 20° amplitude), the path's worst length error.
fn swing_grappling_hook<R: Real>(name: &str, substeps: u32) -> (Vec<f64>, Vec<f64>, f64) {
    let (mut w, h, load) = grappling_hook::<R>(substeps);
    w.step(R::from_f64(DT)).unwrap();
    assert!(w.rope(h).unwrap().is_taut(), "{name}: taut after the first step");
    let wraps = w.rope(h).unwrap().wraps().to_vec();
    assert_eq!(wraps.len(), 1, "{name}: wrapped on the apex only: {wraps:?}");
    assert_eq!(wraps[0].feature(), 0, "{name}: the apex");
    let mut crossings = Vec::new();
    let mut energies = Vec::new();
    let mut last_x = pos(&w, load).0;
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
    let swing = 70.0 * G * 2.0 * (1.0 - 20f64.to_radians().cos());
    let losses = energies.windows(2).map(|e| (e[0] - e[1]) / swing).collect();
    (crossings, losses, worst_length)
}

/// The grappling hook keeps its energy whatever the substep: the length constraint moves
/// the load along its span's direction at the substep's start (SHAKE, `rope::taut`
/// "Holding"), which with the position-based prediction takes nothing out of the swing.
/// Projected along the span's current direction, as before, it lost energy at first
/// order in the substep: 2.86 % per swing at 8 substeps, 0.75 % at 32 (f64, 2026-12-05).
#[test]
fn the_grappling_hook_keeps_its_energy_per_swing_at_every_substep_count() {
    for substeps in [1, 2, 4, 8, 32] {
        let (_, losses, _) = swing_grappling_hook::<f64>("f64", substeps);
        let worst = losses.iter().fold(0.0f64, |m, l| m.max(l.abs()));
        eprintln!("{substeps} substeps: worst energy change per swing {:.5} %", worst * 100.0);
        assert!(worst < 1e-3, "{substeps} substeps: {:.4} % of the swing's energy per swing", worst * 100.0);
    }
}

/// The start side's correction: the grappling hook built the other way round (the load
/// at the rope's start, the anchor its pinned end) keeps its energy per swing as well, at
/// 4 and 8 substeps.
#[test]
fn a_grappling_hook_hung_from_the_ropes_start_keeps_its_energy() {
    for substeps in [4, 8] {
        let (mut w, h, load) = hook_built::<f64>(substeps, true);
        let a = 20f64.to_radians();
        w.step(DT).unwrap();
        assert_eq!(w.rope(h).unwrap().wraps().len(), 1, "{substeps}: on the apex");
        let e0 = energy(&w, load);
        let swing = 70.0 * G * 2.0 * (1.0 - a.cos());
        let mut worst: f64 = 0.0;
        for _ in 0..600 {
            w.step(DT).unwrap();
            worst = worst.max((energy(&w, load) - e0).abs() / swing);
        }
        eprintln!("{substeps} substeps: energy within {:.4} % of the swing's", worst * 100.0);
        // The position-based projection along the current direction drained 2.9 % a swing
        // at 8 substeps (some 20 % over these 10 s); the band of the symplectic step is
        // well under 1 %.
        assert!(worst < 0.01, "{substeps} substeps: energy off by {:.3} % of the swing's", worst * 100.0);
    }
}

/// No contacts, both ends free: two loads (1 kg and 3 kg) on a taut 2 m rope spinning
/// about their centre of mass without gravity keep their kinetic energy and the rope's
/// length (both ends corrected along their line at the substep's start).
#[test]
fn two_loads_spinning_on_a_taut_rope_keep_their_energy() {
    for substeps in [4, 8] {
        let def = WorldDef::default().substeps(substeps).gravity(v(0.0, 0.0));
        let mut w = World::<Space2<f64>>::new(def).unwrap();
        // Centre of mass at the origin: 1 kg at x = −1.5, 3 kg at x = 0.5; spinning at
        // 3 rad/s: velocities ω × r.
        let m0 = w.add_particle(&ParticleDef::at(v(-1.5, 0.0)).mass(1.0).velocity(v(0.0, -4.5))).unwrap();
        let m1 = w.add_particle(&ParticleDef::at(v(0.5, 0.0)).mass(3.0).velocity(v(0.0, 1.5))).unwrap();
        let rope = RopeDef::between(v(-1.5, 0.0), v(0.5, 0.0)).segments(20).mass(0.02).attach_start(m0).attach_end(m1);
        let h = w.add_rope(&rope.taut(TautMode::Always)).unwrap();
        let ke = |w: &World<Space2<f64>>| {
            let (a, b) = (vel(w, m0), vel(w, m1));
            0.5 * (a.0 * a.0 + a.1 * a.1) + 1.5 * (b.0 * b.0 + b.1 * b.1)
        };
        let k0 = 0.5 * 4.5 * 4.5 + 1.5 * 1.5 * 1.5;
        let mut worst: f64 = 0.0;
        for _ in 0..300 {
            w.step(DT).unwrap();
            assert!(w.rope(h).unwrap().is_taut());
            worst = worst.max((ke(&w) - k0).abs() / k0);
            let (p, q) = (pos(&w, m0), pos(&w, m1));
            let l = ((q.0 - p.0).powi(2) + (q.1 - p.1).powi(2)).sqrt();
            assert!((l - 2.0).abs() < 1e-6, "{substeps}: length {l}");
        }
        eprintln!("{substeps} substeps: kinetic energy within {:.4} %", worst * 100.0);
        assert!(worst < 1e-3, "{substeps} substeps: kinetic energy off by {:.3} %", worst * 100.0);
    }
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

/// A 100 g rope, forced taut, anchored at its first point and held by a hand (its last
/// particle, pinned, to be driven): the rope, the hand, the rope's length.
fn hand_rope(w: &mut World2d, points: Vec<Vector2<f64>>, segments: usize) -> (RopeHandle, ParticleHandle, f64) {
    let def = RopeDef::along(points).segments(segments).mass(0.1).pin_start().pin_end().taut(TautMode::Always);
    let h = w.add_rope(&def).unwrap();
    let rope = w.rope(h).unwrap();
    (h, rope.end(), rope.rest_length())
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
    let (h, hand, length) = hand_rope(&mut w, vec![v(-2.0, 1.5), v(-2.0, 4.5), v(h0.0, h0.1)], 40);
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
    let expect: Vec<Vec<u32>> = vec![vec![], vec![2], vec![2, 1], vec![2, 1, 0], vec![2, 1], vec![2], vec![]];
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
    let mut points = vec![v(-r, -1.0)];
    for i in 0..=16 {
        let a = std::f64::consts::PI * (1.0 - f64::from(i) / 16.0);
        points.push(v(r * a.cos(), r * a.sin()));
    }
    points.push(v(r, -1.0));
    let def = RopeDef::along(points)
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

/// A 10 kg load on a 2 m, 100 g rope, released straight out at 60°: the rope goes taut
/// on its own (`Auto`) once its particles lie within 1 mm of the string-pulled path.
fn auto_pendulum(mode: TautMode) -> (World2d, RopeHandle, ParticleHandle) {
    let mut w = World2d::new(WorldDef::default()).unwrap();
    let a = 60f64.to_radians();
    let end = v(2.0 * a.sin(), -2.0 * a.cos());
    let load = w.add_particle(&ParticleDef::at(end).mass(10.0)).unwrap();
    let def = RopeDef::between(v(0.0, 0.0), end).segments(40).mass(0.1).pin_start().attach_end(load).taut(mode);
    let h = w.add_rope(&def).unwrap();
    (w, h, load)
}

fn positions(w: &World2d, h: RopeHandle) -> Vec<(f64, f64)> {
    w.rope(h).unwrap().particles().iter().map(|&p| pos(w, p)).collect()
}

fn velocities(w: &World2d, h: RopeHandle) -> Vec<(f64, f64)> {
    w.rope(h).unwrap().particles().iter().map(|&p| vel(w, p)).collect()
}

fn worst_difference(a: &[(f64, f64)], b: &[(f64, f64)]) -> f64 {
    a.iter().zip(b).map(|(p, q)| ((p.0 - q.0).powi(2) + (p.1 - q.1).powi(2)).sqrt()).fold(0.0, f64::max)
}

/// The switch moves nothing visibly (`World::update_rope_modes` is the switch the step
/// starts with): going taut, the particles move at most 1 mm and keep their velocities;
/// going slack again (the load thrown up toward the hook), nothing moves.
#[test]
fn switching_between_slack_and_taut_moves_no_particle_visibly() {
    let (mut w, h, load) = auto_pendulum(TautMode::Auto);
    // Sag it a little first, slack: the switch waits until it is straight again.
    w.set_rope_taut(h, TautMode::Never).unwrap();
    for _ in 0..3 {
        w.step(DT).unwrap();
    }
    w.set_rope_taut(h, TautMode::Auto).unwrap();
    let mut switches = [0, 0];
    for f in 0..240 {
        if f == 90 || f == 180 {
            // Throw the load up toward the hook: slack.
            let (x, y) = pos(&w, load);
            let d = (x * x + y * y).sqrt();
            w.particles_mut().set_velocity(load, v(-3.0 * x / d, -3.0 * y / d)).unwrap();
        }
        let (p0, v0, taut0) = (positions(&w, h), velocities(&w, h), w.rope(h).unwrap().is_taut());
        w.update_rope_modes();
        let (p1, v1, taut1) = (positions(&w, h), velocities(&w, h), w.rope(h).unwrap().is_taut());
        if taut0 != taut1 {
            switches[usize::from(taut1)] += 1;
            let (dx, dv) = (worst_difference(&p0, &p1), worst_difference(&v0, &v1));
            let limit = if taut1 { 1e-3 } else { 0.0 };
            assert!(dx <= limit, "frame {f}: the switch to {taut1} moved a particle {dx:.2e} m");
            assert!(dv == 0.0, "frame {f}: the switch changed a velocity by {dv:.2e} m/s");
        }
        w.step(DT).unwrap();
    }
    assert!(switches[1] >= 2 && switches[0] >= 2, "switches to slack, to taut: {switches:?}");
}

/// At rest a taut rope does not move: a 10 kg load hanging still, on a taut rope over a
/// box corner, moves no particle more than 1 µm a frame over 2 s.
#[test]
fn a_taut_rope_at_rest_does_not_move() {
    let mut w = World2d::new(WorldDef::default().damping(2.0)).unwrap();
    // The box's top-right corner at (0, −0.2); the rope comes over it from the upper
    // left and hangs down beside the box's right face (the corner rounded by the rope's
    // 1 cm radius: the hanging span at x = 0.01).
    w.add_collider(&ColliderDef::new(Shape::cuboid(v(0.3, 0.3)).unwrap()).position(v(-0.3, -0.5))).unwrap();
    let load = w.add_particle(&ParticleDef::at(v(0.01, -2.0)).mass(10.0)).unwrap();
    let def = RopeDef::along(vec![v(-1.5, 0.5), v(0.02, -0.18), v(0.01, -2.0)])
        .segments(40)
        .mass(0.1)
        .pin_start()
        .attach_end(load)
        .taut(TautMode::Always);
    let h = w.add_rope(&def).unwrap();
    for _ in 0..360 {
        w.step(DT).unwrap();
    }
    assert!(w.rope(h).unwrap().is_taut());
    // Over the top-right corner; the span down the face may also touch the bottom-right
    // corner, without turning there.
    let wraps = w.rope(h).unwrap().wraps().to_vec();
    assert_eq!(wraps[0].feature(), 2, "over the corner: {wraps:?}");
    assert!(wraps[1..].iter().all(|x| x.turn().abs() < 1e-6), "{wraps:?}");
    let mut last = positions(&w, h);
    for f in 0..120 {
        w.step(DT).unwrap();
        let now = positions(&w, h);
        let moved = worst_difference(&now, &last);
        assert!(moved <= 1e-6, "frame {f}: a particle moved {moved:.2e} m");
        last = now;
    }
}

/// A field of posts: boxes at random angles and round posts, on a grid with gaps.
fn post_field(w: &mut World2d, rng: &mut Rng) -> Vec<ColliderHandle> {
    let mut out = Vec::new();
    for i in 0..3 {
        for j in 0..3 {
            let c = v(-1.5 + 1.5 * i as f64, -1.5 + 1.5 * j as f64);
            let def = if (i + j) % 2 == 0 {
                let half = rng.range(0.1, 0.3);
                ColliderDef::new(Shape::cuboid(v(half, half)).unwrap())
                    .rotation(sinew::Rot2::from_angle(rng.range(0.0, 1.5)))
            } else {
                ColliderDef::new(Shape::ball(rng.range(0.1, 0.3)).unwrap())
            };
            out.push(w.add_collider(&def.position(c)).unwrap());
        }
    }
    out
}

/// Deepest a path sample goes into any collider (m, positive inside).
fn deepest(w: &World2d, h: RopeHandle, posts: &[ColliderHandle]) -> f64 {
    let path = w.rope_path(h).unwrap();
    let mut worst = f64::NEG_INFINITY;
    for s in path.windows(2) {
        for k in 0..=16 {
            let p = s[0].lerp(s[1], k as f64 / 16.0);
            for &c in posts {
                worst = worst.max(-w.collider(c).unwrap().closest_world(p).distance);
            }
        }
    }
    worst
}

/// A hand moving at random among nine posts, up to 1.2 m a frame in straight moves that
/// clear the posts (several wraps and unwraps in one step): 500 random hand paths of 20
/// frames (10,000 frames), each from the rope's starting state. No span of the path ever
/// enters a post.
#[test]
fn no_span_enters_an_obstacle_under_random_hand_paths() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut w = World2d::new(WorldDef::default()).unwrap();
    let posts = post_field(&mut w, &mut rng);
    let clear =
        |w: &World2d, p: Vector2<f64>| posts.iter().all(|&c| w.collider(c).unwrap().closest_world(p).distance > 0.05);
    let (h, hand, length) = hand_rope(&mut w, vec![v(-3.0, 3.0), v(-3.0, 12.0), v(-2.2, 2.2)], 60);
    w.step(DT).unwrap();
    let start = w.snapshot();
    let mut wraps_seen = 0usize;
    let mut many_in_one_step = 0usize;
    for path in 0..500 {
        w.restore(&start);
        let mut at: Vector2<f64> = v(-2.2, 2.2);
        for f in 0..20 {
            let next = loop {
                // A hand moves round posts, not through them: its straight move is clear.
                let step = v(rng.range(-1.2, 1.2), rng.range(-1.2, 1.2));
                let p = at + step;
                if p.x.abs() < 2.6 && p.y.abs() < 2.6 && (0..=32).all(|k| clear(&w, at.lerp(p, k as f64 / 32.0))) {
                    break p;
                }
            };
            at = next;
            let before = w.rope(h).unwrap().wraps().len();
            w.particles_mut().set_kinematic_target(hand, at).unwrap();
            w.step(DT).unwrap();
            let d = deepest(&w, h, &posts);
            assert!(d <= 1e-9, "path {path}, frame {f}: the path is {d:.2e} m inside a post");
            let rope = w.rope(h).unwrap();
            assert_eq!(rope.rest_length(), length);
            wraps_seen = wraps_seen.max(rope.wraps().len());
            if rope.wraps().len() >= before + 2 {
                many_in_one_step += 1;
            }
        }
    }
    assert!(wraps_seen >= 6, "the hand wound the rope round posts ({wraps_seen} contacts at most)");
    assert!(many_in_one_step >= 100, "several wraps in one step only {many_in_one_step} times");
}

/// 5 kg swinging on a taut rope among the posts, kicked at random six times a second
/// and reeled in and out at up to 1 m/s, slack for one second in two: the rope's length
/// is the sum of the reels to 1e-9 of it and the taut path is never longer than it by
/// more than 1e-6 of it, through more than 1000 wrap, unwrap and switch changes.
#[test]
fn a_taut_rope_holds_its_length_through_random_wraps_and_reels() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut w = World2d::new(WorldDef::default()).unwrap();
    let posts = post_field(&mut w, &mut rng);
    let load = w.add_particle(&ParticleDef::at(v(-2.2, -0.8)).mass(5.0).radius(0.05)).unwrap();
    let def = RopeDef::between(v(-2.2, 2.4), v(-2.2, -0.8))
        .segments(60)
        .mass(0.05)
        .pin_start()
        .attach_end(load)
        .taut(TautMode::Always);
    let h = w.add_rope(&def).unwrap();
    let mut length = w.rope(h).unwrap().rest_length();
    let mut cycles = 0;
    let mut worst: f64 = 0.0;
    let mut reel_speed = 0.0;
    for f in 0..60_000 {
        // Slack (the particle rope) for a second now and then: switches both ways.
        if f % 120 == 0 {
            w.set_rope_taut(h, TautMode::Never).unwrap();
        } else if f % 120 == 60 {
            w.set_rope_taut(h, TautMode::Always).unwrap();
        }
        if f % 10 == 0 {
            w.particles_mut().set_velocity(load, v(rng.range(-9.0, 9.0), rng.range(-3.0, 9.0))).unwrap();
            reel_speed = rng.range(-1.0, 1.0);
        }
        // Reeled in or out at up to 1 m/s.
        let target = (length + reel_speed * DT).clamp(2.0, 5.0);
        w.set_rope_length(h, RopeEnd::Start, target).unwrap();
        length = target;
        let before = (w.rope(h).unwrap().wraps().len(), w.rope(h).unwrap().is_taut());
        w.step(DT).unwrap();
        let rope = w.rope(h).unwrap();
        if (rope.wraps().len(), rope.is_taut()) != before {
            cycles += 1;
        }
        assert!((rope.rest_length() - length).abs() <= 1e-9 * length, "frame {f}: {} vs {length}", rope.rest_length());
        if rope.is_taut() {
            worst = worst.max((path_length(&w, h) - length) / length);
        }
        // The taut path (the slack rope is particles, kept a rope radius off the posts by
        // its own contacts, within its solver's tolerance).
        let d = if rope.is_taut() { deepest(&w, h, &posts) } else { 0.0 };
        assert!(d <= 1e-9, "frame {f}: {d:.2e} m inside a post, load at {:?}, wraps {:?}", pos(&w, load), rope.wraps());
    }
    assert!(cycles >= 1000, "{cycles} wrap/unwrap/switch changes");
    assert!(worst <= 1e-6, "the taut path longer than the rope by {worst:.2e} of it");
}

/// The rope of `examples/rope_heavy_loads.rs`: 2.66 m with 2 cm segments, radius 1 cm,
/// over a 20 cm post, its end particles given the loads; taut on its own (`Auto`).
fn heavy_over_post(mu: f64, rope_mass: f64, hold: f64, load: f64) -> (World2d, RopeHandle) {
    let (post, r) = (0.2, 0.01);
    let mut w = World2d::new(WorldDef::default().friction(mu)).unwrap();
    w.add_collider(&ColliderDef::new(Shape::ball(post).unwrap())).unwrap();
    let around = post + r;
    let mut points = vec![v(-around, -1.0)];
    for i in 0..=32 {
        let a = std::f64::consts::PI * (1.0 - f64::from(i) / 32.0);
        points.push(v(around * a.cos(), around * a.sin()));
    }
    points.push(v(around, -1.0));
    let def = RopeDef::along(points).segment_length(0.02).mass(rope_mass).radius(r).friction(mu).taut(TautMode::Auto);
    let h = w.add_rope(&def).unwrap();
    let ps = w.rope(h).unwrap().particles().to_vec();
    w.particles_mut().set_mass(ps[0], hold).unwrap();
    w.particles_mut().set_mass(ps[ps.len() - 1], load).unwrap();
    (w, h)
}

/// 1 kg on each end of a 20 g rope (0.15 g particles) over a post, frictionless, the
/// default 8 substeps: the rope goes taut and neither stretches nor creeps (the particle
/// rope read 3 % and creeping).
#[test]
fn a_light_rope_over_a_post_holds_two_heavy_loads_without_stretching() {
    let (mut w, h) = heavy_over_post(0.0, 0.02, 1.0, 1.0);
    let length = w.rope(h).unwrap().rest_length();
    let end = w.rope(h).unwrap().end();
    for f in 1..=180 {
        w.step(DT).unwrap();
        if f >= 10 {
            assert!(w.rope(h).unwrap().is_taut(), "frame {f}");
            let stretch = path_length(&w, h) / length - 1.0;
            assert!(stretch.abs() < 1e-4, "frame {f}: stretch {:.4} %", stretch * 100.0);
        }
    }
    let speed = w.particles().velocity(end).unwrap().length();
    assert!(speed < 1e-3, "balanced loads creep at {speed:.2e} m/s");
    let want = G;
    let t = w.rope_tension(h, 0).unwrap();
    assert!((t - want).abs() < 0.01 * want, "tension {t:.3} N vs {want:.3} N");
}

/// 5 kg against 1 kg on the same 20 g rope at μ = 0.5 (5 : 1 against `e^{0.5π}` = 4.81):
/// the rope slips round the post at the capstan law's acceleration
/// `g (M − k m)/(M + k m)`, its length kept and its path outside the post (the particle
/// rope was stretched several times over and pulled through the post).
#[test]
fn a_light_rope_over_a_post_slips_under_a_heavy_load_at_the_capstan_rate() {
    let (mu, m, big) = (0.5, 1.0, 5.0);
    let (mut w, h) = heavy_over_post(mu, 0.02, m, big);
    let length = w.rope(h).unwrap().rest_length();
    let end = w.rope(h).unwrap().end();
    for _ in 0..10 {
        w.step(DT).unwrap();
    }
    assert!(w.rope(h).unwrap().is_taut());
    let (y0, v0) = (pos(&w, end).1, vel(&w, end).1);
    let t = 1.0;
    for _ in 0..60 {
        w.step(DT).unwrap();
        assert!(path_length(&w, h) <= length * (1.0 + 1e-6));
        let inside = w.rope_path(h).unwrap().iter().any(|p| p.length() < 0.2 - 1e-9);
        assert!(!inside, "the path enters the post");
    }
    let y1 = pos(&w, end).1;
    let acc = -2.0 * ((y1 - y0) - v0 * t) / (t * t);
    let k = (mu * std::f64::consts::PI).exp();
    let want = G * (big - k * m) / (big + k * m);
    assert!((acc - want).abs() < 0.05 * want, "slipping at {acc:.4} m/s² vs {want:.4}");
}
