//! Rope behaviour, each with a stated tolerance; key tests run in f32, f64 and fixed point.

use sinew::prelude::*;
use sinew::{DVec2, DVec3, Rot2, World};
use sinew::{RealOf, RopeDef, RopeEnd, RopeHandle, RopePoint, SubstepSolver, VecOf};

const G: f64 = 9.81;
const DT: f64 = 1.0 / 60.0;

fn worst_stretch<S: Space>(w: &World<S>, h: RopeHandle) -> f64 {
    let rope = w.rope(h).unwrap();
    let ps = w.particles();
    rope.particles()
        .windows(2)
        .zip(rope.rest_lengths())
        .map(|(p, &rest)| {
            let d = (ps.position(p[0]).unwrap() - ps.position(p[1]).unwrap()).length().to_f64();
            (d - rest.to_f64()) / rest.to_f64()
        })
        .fold(f64::MIN, f64::max)
}

/// Both ends of a slack 40-segment, 2 m rope (a V sagging 0.87 m) are driven apart at
/// 5 m/s each until the ends are 99 % of the rope length apart — where the rope's middle
/// must rise at ~7× the end speed — then held for 2.5 s. Returns the worst stretch seen
/// at the end of any step.
fn hard_pull<R: Real>() -> f64 {
    let mut w = World::<Space2<R>>::new(WorldDef::default()).unwrap();
    let v = |x: f64, y: f64| Vector2::<R>::from_f64(x, y);
    // A V-shaped slack rope: 2 m of rope between ends 1 m apart.
    let sag = (1.0f64 - 0.25).sqrt();
    let def = RopeDef::along(vec![v(-0.5, 0.0), v(0.0, -sag), v(0.5, 0.0)])
        .segments(40)
        .mass(R::from_f64(0.5))
        .pin_start()
        .pin_end();
    let h = w.add_rope(&def).unwrap();
    let (a, b) = {
        let r = w.rope(h).unwrap();
        (r.particles()[0], r.particles()[40])
    };
    let mut worst: f64 = 0.0;
    let mut x = 0.5;
    for _ in 0..180 {
        if x < 0.99 {
            x = (x + 5.0 * DT).min(0.99);
        }
        w.particles_mut().set_kinematic_target(a, v(-x, 0.0)).unwrap();
        w.particles_mut().set_kinematic_target(b, v(x, 0.0)).unwrap();
        w.step(R::from_f64(DT)).unwrap();
        worst = worst.max(worst_stretch(&w, h));
    }
    worst
}

#[test]
fn hard_pull_stretches_less_than_one_percent_at_8_substeps() {
    for (name, s) in [("f32", hard_pull::<f32>()), ("f64", hard_pull::<f64>()), ("fixed", hard_pull::<Fx>())] {
        assert!(s < 0.01, "{name}: worst stretch {:.3} %", s * 100.0);
    }
}

/// A rope 5 cm thick, particles 15 cm apart, dropped across a post 5 cm across (3× thinner
/// than the spacing). Returns whether it stayed on the post.
fn drop_across_post<S: Space>(edges: bool, post: Shape<S>, post_at: VecOf<S>, a: VecOf<S>, b: VecOf<S>) -> bool {
    let mut w = World::<S>::new(WorldDef::default().friction(RealOf::<S>::from_f64(0.4))).unwrap();
    w.add_collider(&ColliderDef::new(post).position(post_at)).unwrap();
    let mut def =
        RopeDef::between(a, b).segments(11).mass(RealOf::<S>::from_f64(0.3)).radius(RealOf::<S>::from_f64(0.01));
    def.edge_collisions = edges;
    def.friction = Some(RealOf::<S>::from_f64(0.4));
    let h = w.add_rope(&def).unwrap();
    for _ in 0..180 {
        w.step(RealOf::<S>::from_f64(DT)).unwrap();
    }
    // On the post: the rope's highest particle is still above the post's bottom, and
    // nothing fell past it.
    let top = w
        .rope(h)
        .unwrap()
        .particles()
        .iter()
        .map(|&p| w.particles().position(p).unwrap().get(1).to_f64())
        .fold(f64::MIN, f64::max);
    top > post_at.get(1).to_f64() - 0.03
}

#[test]
fn rope_stays_on_a_post_three_times_thinner_than_its_particle_spacing() {
    // 2D: a circle post of radius 2.5 cm; the rope spans 1.65 m in 11 segments of 15 cm,
    // centred so that the post is midway between the two middle particles.
    let v2 = DVec2::new;
    let post2 = || Shape::<Space2<f64>>::ball(0.025).unwrap();
    assert!(drop_across_post::<Space2<f64>>(true, post2(), v2(0.0, 0.0), v2(-0.825, 0.1), v2(0.825, 0.1)));
    // Control: without span collisions the same rope falls through.
    assert!(!drop_across_post::<Space2<f64>>(false, post2(), v2(0.0, 0.0), v2(-0.825, 0.1), v2(0.825, 0.1)));
    // 3D: a horizontal capsule post along z.
    let v3 = DVec3::new;
    let post3 = || Shape::<Space3<f64>>::capsule(v3(0.0, 0.0, -1.0), v3(0.0, 0.0, 1.0), 0.025).unwrap();
    assert!(drop_across_post::<Space3<f64>>(
        true,
        post3(),
        v3(0.0, 0.0, 0.0),
        v3(-0.825, 0.1, 0.0),
        v3(0.825, 0.1, 0.0)
    ));
    assert!(!drop_across_post::<Space3<f64>>(
        false,
        post3(),
        v3(0.0, 0.0, 0.0),
        v3(-0.825, 0.1, 0.0),
        v3(0.825, 0.1, 0.0)
    ));
    // And in f32 and fixed point.
    let f = |x: f64, y: f64| Vector2::<f32>::from_f64(x, y);
    assert!(drop_across_post::<Space2<f32>>(
        true,
        Shape::ball(0.025).unwrap(),
        f(0.0, 0.0),
        f(-0.825, 0.1),
        f(0.825, 0.1)
    ));
    let x = |a: f64, b: f64| Vector2::<Fx>::from_f64(a, b);
    assert!(drop_across_post::<Space2<Fx>>(
        true,
        Shape::ball(Fx::from_f64(0.025)).unwrap(),
        x(0.0, 0.0),
        x(-0.825, 0.1),
        x(0.825, 0.1)
    ));
}

#[test]
fn no_span_ever_passes_through_a_box_corner() {
    // A box turned 45° presents a corner upward; a rope with 20 cm spacing falls on it.
    let mut w = World2d::new(WorldDef::default().friction(0.2)).unwrap();
    let bx = Shape::cuboid(DVec2::new(0.3, 0.3)).unwrap();
    let c = w.add_collider(&ColliderDef::new(bx).rotation(Rot2::from_angle(std::f64::consts::FRAC_PI_4))).unwrap();
    let h = w.add_rope(&RopeDef::between(DVec2::new(-0.9, 0.6), DVec2::new(0.9, 0.6)).segments(9).radius(0.0)).unwrap();
    for _ in 0..240 {
        w.step(DT).unwrap();
        let rope = w.rope(h).unwrap();
        for pair in rope.particles().windows(2) {
            let (a, b) = (w.particles().position(pair[0]).unwrap(), w.particles().position(pair[1]).unwrap());
            for k in 0..=20 {
                let p = a.lerp(b, k as f64 / 20.0);
                let d = w.collider(c).unwrap().closest_world(p).distance;
                // The chain solve and the contacts share each substep, so a residual of
                // the last projection remains: measured 0.11 mm; a cut corner is ~10 cm.
                assert!(d > -5e-4, "span inside the box by {} m", -d);
            }
        }
    }
}

fn hanging_load<R: Real>() -> (f64, f64) {
    let mut w = World::<Space2<R>>::new(WorldDef::default().damping(R::from_f64(2.0))).unwrap();
    let v = |x: f64, y: f64| Vector2::<R>::from_f64(x, y);
    let h = w
        .add_rope(&RopeDef::between(v(0.0, 0.0), v(0.0, -2.0)).segments(20).mass(R::from_f64(0.02)).pin_start())
        .unwrap();
    let end = w.rope(h).unwrap().particles()[20];
    w.particles_mut().set_mass(end, R::from_f64(10.0)).unwrap();
    for _ in 0..240 {
        w.step(R::from_f64(DT)).unwrap();
    }
    let top = w.rope_tensions(h).unwrap()[0].to_f64();
    // Exact: everything below the top segment hangs from it.
    let rope = w.rope(h).unwrap();
    let below: f64 = rope.particles()[1..].iter().map(|&p| w.particles().mass(p).unwrap().to_f64()).sum();
    (top, below * G)
}

#[test]
fn tension_of_a_rope_holding_10_kg_reads_98_1_newtons() {
    for (name, (top, exact)) in
        [("f32", hanging_load::<f32>()), ("f64", hanging_load::<f64>()), ("fixed", hanging_load::<Fx>())]
    {
        assert!((top - 98.1).abs() / 98.1 < 0.01, "{name}: top tension {top} N");
        assert!((top - exact).abs() / exact < 0.005, "{name}: top tension {top} N vs weight below {exact} N");
    }
}

#[test]
fn reeling_follows_the_schedule_without_speed_spikes() {
    let mut w = World2d::new(WorldDef::default().damping(0.5)).unwrap();
    let h = w
        .add_rope(&RopeDef::between(DVec2::new(0.0, 0.0), DVec2::new(0.0, -3.0)).segments(30).mass(0.3).pin_start())
        .unwrap();
    // Settle, then reel 3 m → 1 m in 4 s (0.5 m/s), hold 1 s, and back out in 4 s.
    for _ in 0..60 {
        w.step(DT).unwrap();
    }
    let speed = 0.5;
    let schedule = |t: f64| {
        if t < 4.0 {
            3.0 - speed * t
        } else if t < 5.0 {
            1.0
        } else {
            (1.0 + speed * (t - 5.0)).min(3.0)
        }
    };
    let mut max_speed: f64 = 0.0;
    let mut counts = Vec::new();
    for f in 1..=(9 * 60) {
        let t = f as f64 * DT;
        w.set_rope_length(h, RopeEnd::Start, schedule(t)).unwrap();
        w.step(DT).unwrap();
        let rope = w.rope(h).unwrap();
        let len = rope.rest_length();
        assert!((len - schedule(t)).abs() / schedule(t) < 0.01, "t {t}: length {len} vs {}", schedule(t));
        for &p in rope.particles() {
            max_speed = max_speed.max(w.particles().velocity(p).unwrap().length());
        }
        counts.push(rope.particles().len());
    }
    // The rope hangs still, so the only motion is the reel's 0.5 m/s.
    assert!(max_speed < speed * 1.1, "speed spike: {max_speed} m/s");
    let fewest = *counts.iter().min().unwrap();
    assert!(fewest <= 12, "reeling in should remove particles: {fewest}");
    assert!(counts[counts.len() - 1] >= 29, "reeling out should add them back: {}", counts[counts.len() - 1]);
}

fn tears_under_10_kg(limit: f64) -> bool {
    let mut w = World2d::new(WorldDef::default()).unwrap();
    let h = w
        .add_rope(
            &RopeDef::between(DVec2::new(0.0, 0.0), DVec2::new(0.0, -1.0))
                .segments(10)
                .mass(0.05)
                .pin_start()
                .tear_tension(limit),
        )
        .unwrap();
    let end = w.rope(h).unwrap().particles()[10];
    w.particles_mut().set_mass(end, 10.0).unwrap();
    for _ in 0..120 {
        w.step(DT).unwrap();
    }
    // Torn: the load fell and the rope is now two pieces (or one piece and a free particle).
    let y = w.particles().position(end).unwrap().y;
    let pieces = w.ropes().count();
    y < -2.0 && (pieces >= 2 || w.rope(h).map_or(0, |r| r.particles().len()) < 11)
}

#[test]
fn rope_tears_above_its_tear_tension_and_holds_below() {
    assert!(tears_under_10_kg(50.0), "50 N rope must tear under 98 N");
    assert!(!tears_under_10_kg(200.0), "200 N rope must hold 98 N");
}

#[test]
fn grabbing_the_middle_leaves_two_symmetric_halves() {
    let mut w = World2d::new(WorldDef::default().damping(1.0)).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(DVec2::new(0.0, 1.0), 0.0).unwrap())).unwrap();
    let h = w
        .add_rope(&RopeDef::between(DVec2::new(-1.0, 0.02), DVec2::new(1.0, 0.02)).segments(40).mass(0.4).radius(0.02))
        .unwrap();
    for _ in 0..30 {
        w.step(DT).unwrap();
    }
    let hand = w.grab_rope(h, RopePoint::ArcLength(1.0)).unwrap();
    assert_eq!(hand, w.rope(h).unwrap().particles()[20]);
    let start = w.particles().position(hand).unwrap();
    for f in 1..=240 {
        let y = (start.y + 2.0 * f as f64 / 60.0).min(2.5);
        w.particles_mut().set_kinematic_target(hand, DVec2::new(0.0, y)).unwrap();
        w.step(DT).unwrap();
    }
    let rope = w.rope(h).unwrap();
    let ps = w.particles();
    let (left, right) = (ps.position(rope.particles()[0]).unwrap(), ps.position(rope.particles()[40]).unwrap());
    // Both halves hang from the hand: ends far below it and mirror images of each other.
    assert!(left.y < 1.6 && right.y < 1.6, "{left:?} {right:?}");
    assert!((left.y - right.y).abs() < 0.01 * 2.5, "{} vs {}", left.y, right.y);
    assert!((left.x + right.x).abs() < 0.01 * 2.5, "{} vs {}", left.x, right.x);
    // Release: the particle flies on with the hand's last velocity (0 here: the hand stopped).
    w.release_particle(hand).unwrap();
    assert!(!w.particles().is_kinematic(hand));
}

#[test]
fn cutting_makes_two_ropes_that_both_simulate() {
    let mut w = World2d::new(WorldDef::default()).unwrap();
    let h = w.add_rope(&RopeDef::between(DVec2::new(0.0, 0.0), DVec2::new(2.0, 0.0)).segments(20).pin_start()).unwrap();
    for _ in 0..30 {
        w.step(DT).unwrap();
    }
    let piece = w.cut_rope(h, 9).unwrap().expect("a second rope");
    assert_eq!(w.rope(h).unwrap().segment_count(), 9);
    assert_eq!(w.rope(piece).unwrap().segment_count(), 10);
    let tail = w.rope(piece).unwrap().particles()[0];
    let y0 = w.particles().position(tail).unwrap().y;
    for _ in 0..60 {
        w.step(DT).unwrap();
    }
    assert!(w.particles().position(tail).unwrap().y < y0 - 1.0, "the cut piece falls free");
    assert!(worst_stretch(&w, piece) < 0.01);
    assert!(w.cut_rope(h, 99).is_err());
}

#[test]
fn wind_pushes_a_hanging_rope_sideways_and_a_rope_at_rest_sleeps() {
    let mut w = World2d::new(WorldDef::default().damping(0.5)).unwrap();
    let h = w
        .add_rope(&RopeDef::between(DVec2::new(0.0, 0.0), DVec2::new(0.0, -1.0)).segments(10).mass(0.1).pin_start())
        .unwrap();
    for _ in 0..600 {
        w.step(DT).unwrap();
    }
    assert!(w.rope(h).unwrap().is_sleeping(), "a rope hanging still should sleep");
    w.set_rope_wind(h, DVec2::new(5.0, 0.0), 0.01).unwrap();
    for _ in 0..180 {
        w.step(DT).unwrap();
    }
    let tip = w.particles().position(w.rope(h).unwrap().particles()[10]).unwrap();
    assert!(!w.rope(h).unwrap().is_sleeping());
    assert!(tip.x > 0.1, "wind should blow the tip sideways: {tip:?}");
}

#[test]
fn catmull_rom_curve_of_a_rope_passes_through_its_particles() {
    let mut w = World2d::new(WorldDef::default()).unwrap();
    let h = w.add_rope(&RopeDef::between(DVec2::new(0.0, 0.0), DVec2::new(1.0, 0.0)).segments(8).pin_start()).unwrap();
    for _ in 0..20 {
        w.step(DT).unwrap();
    }
    let pts: Vec<DVec2> = w.rope(h).unwrap().particles().iter().map(|&p| w.particles().position(p).unwrap()).collect();
    let curve = sinew::rope::curve::catmull_rom(&pts, 5);
    for (i, p) in pts.iter().enumerate() {
        assert!((curve[i * 5] - *p).length() < 1e-12);
    }
}

#[test]
fn bad_rope_input_is_rejected() {
    let mut w = World2d::new(WorldDef::default()).unwrap();
    assert!(w.add_rope(&RopeDef::along(vec![DVec2::new(0.0, 0.0)])).is_err());
    assert!(w.add_rope(&RopeDef::between(DVec2::new(0.0, 0.0), DVec2::new(0.0, 0.0))).is_err());
    assert!(w.add_rope(&RopeDef::between(DVec2::new(0.0, 0.0), DVec2::new(f64::NAN, 0.0))).is_err());
    assert!(w.add_rope(&RopeDef::between(DVec2::new(0.0, 0.0), DVec2::new(1.0, 0.0)).mass(-1.0)).is_err());
    assert!(w.add_rope(&RopeDef::between(DVec2::new(0.0, 0.0), DVec2::new(1.0, 0.0)).segments(0)).is_err());
    let h = w.add_rope(&RopeDef::between(DVec2::new(0.0, 0.0), DVec2::new(1.0, 0.0)).segments(4)).unwrap();
    assert!(w.grab_rope(h, RopePoint::Index(5)).is_err());
    assert!(w.grab_rope(h, RopePoint::ArcLength(f64::NAN)).is_err());
    assert!(w.set_rope_length(h, RopeEnd::End, f64::INFINITY).is_err());
    w.set_rope_length(h, RopeEnd::End, -5.0).unwrap(); // clamped to 1 mm, documented
    assert!(w.rope(h).unwrap().rest_length() >= 1e-3 - 1e-12);
    w.step(DT).unwrap();
}

/// Which side of the span `a–b` the obstacle's centre (the origin) is on, while it lies
/// between the span's ends (its projection falls inside the span); `None` otherwise.
/// Points are `(along the throw, across it)`.
fn side_of_span((ax, ac): (f64, f64), (bx, bc): (f64, f64)) -> Option<bool> {
    let (dx, dc) = (bx - ax, bc - ac);
    let u = (-ax * dx - ac * dc) / (dx * dx + dc * dc);
    (u > 0.0 && u < 1.0).then_some(dx * -ac - dc * -ax > 0.0)
}

/// Span sweep: a 10-segment rope (particles 12 cm apart, radius 5 mm) laid across its
/// path is thrown at `speed` at a thin obstacle centred at the origin that lies between
/// the paths of particles 4 and 5 (`between` ∈ (0, 1) places it from 4 to 5), so only
/// the span 4–5 can meet it. `v(x, c)` builds a point `x` along the throw and `c` across
/// it (the rope's direction); `across` is the index of that component (in 3D the motion
/// is read in the plane of the throw and the rope, the post standing across it). `phase`
/// ∈ [0, 1) shifts the start so that the impact falls at a different moment of a substep.
///
/// The invariant, checked at the end of every substep for 0.25 s: while the obstacle's
/// centre lies between the span's ends, it stays on the side of the span it started on
/// (the span may wrap and coil around the post; it may slide off lengthwise, which resets
/// the side, but it cannot get across while the post is between its particles without
/// passing through it). Also fails if after 0.25 s the rope was not stopped (its mean
/// position along the throw is more than half its length past the obstacle; a rope that
/// went through is metres away).
#[allow(clippy::too_many_arguments)]
fn throw_at_obstacle<S: Space>(
    obstacle: ColliderDef<S>,
    v: impl Fn(f64, f64) -> VecOf<S>,
    across: usize,
    speed: f64,
    between: f64,
    phase: f64,
    edges: bool,
    checked_steps: usize,
) -> Result<(), String> {
    let mut w = World::<S>::new(WorldDef::default().friction(RealOf::<S>::from_f64(0.3))).unwrap();
    w.add_collider(&obstacle).unwrap();
    let spacing = 0.12;
    let x0 = -0.3 - phase * speed * DT / 8.0;
    let c = |i: f64| spacing * (i - 4.0 - between);
    let mut def = RopeDef::between(v(x0, c(0.0)), v(x0, c(10.0))).segments(10).radius(RealOf::<S>::from_f64(0.005));
    def.edge_collisions = edges;
    let h = w.add_rope(&def).unwrap();
    let parts = w.rope(h).unwrap().particles().to_vec();
    for &p in &parts {
        w.particles_mut().set_velocity(p, v(speed, 0.0)).unwrap();
    }
    let (ia, ib) = (parts[4].index(), parts[5].index());
    let flat = |p: VecOf<S>| (p.get(0).to_f64(), p.get(across).to_f64());
    let mut side = side_of_span((x0, c(0.0) + 4.0 * spacing), (x0, c(0.0) + 5.0 * spacing));
    assert_eq!(side, Some(false));
    let mut failure = None;
    let mut check = |a: (f64, f64), b: (f64, f64), at: String| match (side, side_of_span(a, b)) {
        (Some(s0), Some(s1)) if s0 != s1 && failure.is_none() => {
            failure = Some(format!("{at}: span 4-5 got across the obstacle: {a:.4?} - {b:.4?}"));
        }
        (None, now) => side = now,
        (_, None) => side = None,
        _ => {}
    };
    for step in 0..15 {
        w.step_with(RealOf::<S>::from_f64(DT), &mut |s: &mut SubstepSolver<'_, S>| {
            // `prev` at the first iteration is where the previous substep ended.
            if s.iteration == 0 && s.substep > 0 && step < checked_steps {
                let pr = s.particles.previous_positions();
                check(flat(pr[ia]), flat(pr[ib]), format!("step {step}, substep {}", s.substep - 1));
            }
        })
        .unwrap();
        let ps = w.particles();
        if step < checked_steps {
            check(flat(ps.positions()[ia]), flat(ps.positions()[ib]), format!("step {step}, substep 7"));
        }
    }
    if let Some(f) = failure {
        return Err(f);
    }
    let mean_x = parts.iter().map(|&p| flat(w.particles().position(p).unwrap()).0).sum::<f64>() / parts.len() as f64;
    if mean_x > 0.6 {
        return Err(format!("not stopped: mean x = {mean_x:.2} m"));
    }
    Ok(())
}

const THROW_SPEEDS: [f64; 5] = [10.0, 20.0, 30.0, 45.0, 60.0];
/// Steps over which the side invariant is checked: the whole 0.25 s, or the impact and
/// the first wrap (33 ms; see the wall test).
const WHOLE: usize = 15;
const IMPACT: usize = 2;
/// Cases (of 30 per configuration) the thin-wall test tolerates; see there.
const WALL_FAILURES_ALLOWED: usize = 3;

/// Every (speed, offset, phase) case of [`throw_at_obstacle`]; the failures.
fn throw_cases<S: Space>(
    obstacle: impl Fn() -> ColliderDef<S>,
    v: impl Fn(f64, f64) -> VecOf<S> + Copy,
    across: usize,
    checked_steps: usize,
) -> Vec<String> {
    let mut failures = Vec::new();
    for speed in THROW_SPEEDS {
        for between in [0.5, 0.3] {
            for phase in [0.0, 0.37, 0.71] {
                if let Err(e) = throw_at_obstacle(obstacle(), v, across, speed, between, phase, true, checked_steps) {
                    failures.push(format!("{speed} m/s, post at {between} of the gap, phase {phase}: {e}"));
                }
            }
        }
    }
    failures
}

#[test]
fn a_fast_span_never_passes_a_thin_post_2d() {
    // A circle post 3 cm across; the particles are 12 cm apart (4× its diameter) and pass
    // 2.4–9.6 cm from its centre, clear of it: only the span can stop the rope.
    let v = |x: f64, c: f64| DVec2::new(x, c);
    let post = || ColliderDef::new(Shape::<Space2<f64>>::ball(0.015).unwrap());
    let failures = throw_cases(post, v, 1, WHOLE);
    assert!(failures.is_empty(), "f64: {failures:#?}");
    // Control: without span collisions every throw passes the post.
    for speed in THROW_SPEEDS {
        assert!(throw_at_obstacle(post(), v, 1, speed, 0.5, 0.0, false, WHOLE).is_err(), "{speed} m/s");
    }
    // f32 and fixed point.
    let v = |x: f64, c: f64| Vector2::<f32>::from_f64(x, c);
    let failures = throw_cases(|| ColliderDef::new(Shape::<Space2<f32>>::ball(0.015).unwrap()), v, 1, WHOLE);
    assert!(failures.is_empty(), "f32: {failures:#?}");
    let v = |x: f64, c: f64| Vector2::<Fx>::from_f64(x, c);
    let failures =
        throw_cases(|| ColliderDef::new(Shape::<Space2<Fx>>::ball(Fx::from_f64(0.015)).unwrap()), v, 1, WHOLE);
    assert!(failures.is_empty(), "fixed: {failures:#?}");
    // A capsule post 2 cm across (its axis along the throw: the span meets its side).
    let v = |x: f64, c: f64| DVec2::new(x, c);
    let post = || {
        ColliderDef::new(Shape::<Space2<f64>>::capsule(DVec2::new(-0.02, 0.0), DVec2::new(0.02, 0.0), 0.01).unwrap())
    };
    let failures = throw_cases(post, v, 1, IMPACT);
    assert!(failures.is_empty(), "capsule: {failures:#?}");
}

#[test]
fn a_fast_span_never_passes_a_thin_post_3d() {
    // A vertical capsule post 3 cm across; the rope lies along z and is thrown along x.
    let v = |x: f64, c: f64| DVec3::new(x, 0.0, c);
    let post = || {
        ColliderDef::new(
            Shape::<Space3<f64>>::capsule(DVec3::new(0.0, -1.0, 0.0), DVec3::new(0.0, 1.0, 0.0), 0.015).unwrap(),
        )
    };
    let failures = throw_cases(post, v, 2, WHOLE);
    assert!(failures.is_empty(), "f64: {failures:#?}");
    for speed in THROW_SPEEDS {
        assert!(throw_at_obstacle(post(), v, 2, speed, 0.5, 0.0, false, WHOLE).is_err(), "control, {speed} m/s");
    }
    let v = |x: f64, c: f64| Vector3::<Fx>::from_f64(x, 0.0, c);
    let post = || {
        let (a, b) = (Vector3::<Fx>::from_f64(0.0, -1.0, 0.0), Vector3::<Fx>::from_f64(0.0, 1.0, 0.0));
        ColliderDef::new(Shape::<Space3<Fx>>::capsule(a, b, Fx::from_f64(0.015)).unwrap())
    };
    let failures = throw_cases(post, v, 2, WHOLE);
    assert!(failures.is_empty(), "fixed: {failures:#?}");
}

#[test]
fn a_fast_span_never_passes_a_thin_wall() {
    // A wall 2 cm thick across the throw, 4 cm wide, standing between two particles' paths
    // (edge-on to the rope, like a plank): 2D, 2D turned 30°, 3D (2 m tall), fixed point.
    // The side invariant is checked through the impact and the first wrap (33 ms); the
    // rope must be stopped after 0.25 s. Known limit: the plank is narrower than the
    // particle spacing, and while the rope wraps its corners a particle can be pushed
    // into it by the span contact and leave through the far face, so a few cases per
    // configuration still end across (measured 1 in 2D, 1 in 3D, 1 in fixed point; the
    // bound below; the unswept code fails at the impact in nearly every case).
    let v = |x: f64, c: f64| DVec2::new(x, c);
    let wall = || ColliderDef::new(Shape::<Space2<f64>>::cuboid(DVec2::new(0.01, 0.02)).unwrap());
    let mut report = Vec::new();
    report.push(("2D", throw_cases(wall, v, 1, IMPACT)));
    for speed in THROW_SPEEDS {
        assert!(throw_at_obstacle(wall(), v, 1, speed, 0.5, 0.0, false, IMPACT).is_err(), "control, {speed} m/s");
    }
    // Turned 30° the rope can also slide off the inclined plank; reported, not bounded.
    let turned = || wall().rotation(Rot2::from_angle(std::f64::consts::FRAC_PI_6));
    let turned_failures = throw_cases(turned, v, 1, IMPACT);
    let v3 = |x: f64, c: f64| DVec3::new(x, 0.0, c);
    let wall3 = || ColliderDef::new(Shape::<Space3<f64>>::cuboid(DVec3::new(0.01, 1.0, 0.02)).unwrap());
    report.push(("3D", throw_cases(wall3, v3, 2, IMPACT)));
    let vx = |x: f64, c: f64| Vector2::<Fx>::from_f64(x, c);
    let wallx = || ColliderDef::new(Shape::<Space2<Fx>>::cuboid(Vector2::<Fx>::from_f64(0.01, 0.02)).unwrap());
    report.push(("fixed", throw_cases(wallx, vx, 1, IMPACT)));
    for (name, failures) in report.iter().chain([&("2D turned 30°", turned_failures)]) {
        println!("{name}: {} of 30 cases failed: {failures:#?}", failures.len());
    }
    for (name, failures) in &report {
        assert!(failures.len() <= WALL_FAILURES_ALLOWED, "{name}: {failures:#?}");
    }
}

/// Against balls and capsules a span's contact is speculative within the sweep spacing
/// beyond the rope radius (it holds the span if a neighbour's push carries it in). The
/// per-step clearance skip and the swept-box cull must keep it: a pinned three-segment
/// rope lying 10 cm outside a ball of radius 0.3 m (rope radius 1 cm) has its contact
/// every step.
#[test]
fn a_span_near_a_post_keeps_its_speculative_contact() {
    let mut w = World2d::new(WorldDef::default().gravity(DVec2::ZERO)).unwrap();
    w.add_collider(&ColliderDef::new(Shape::ball(0.3).unwrap())).unwrap();
    let s = std::f64::consts::FRAC_1_SQRT_2;
    let (c, t) = (DVec2::new(0.4 * s, 0.4 * s), DVec2::new(-s, s));
    let def = RopeDef::along(vec![c - t * 0.15, c - t * 0.05, c + t * 0.05, c + t * 0.15])
        .segments(3)
        .radius(0.01)
        .pin_start()
        .pin_end();
    w.add_rope(&def).unwrap();
    for step in 0..3 {
        let contacts = w.step(1.0 / 60.0).unwrap().contacts;
        assert!(contacts > 0, "step {step}: the span's speculative contact was culled");
    }
}

/// A rope (radius 1 cm, particles 5 cm apart) pinned at one end runs level to a post
/// 3 cm across and hangs down behind it; the pinned end is pulled away slowly, 2 mm per
/// step, so the rope slides over the post on the step's contact planes (see
/// `WorldDef::plane_reuse`). Returns the smallest distance between any span's centre line
/// and the post's surface over the run, and the final position of the hanging end.
fn slow_pull_over_a_post(plane_reuse: f64) -> (f64, DVec2) {
    let mut w = World2d::new(WorldDef::default().plane_reuse(plane_reuse).friction(0.3).damping(0.5)).unwrap();
    let post = 0.015;
    w.add_collider(&ColliderDef::new(Shape::ball(post).unwrap())).unwrap();
    let v = DVec2::new;
    let def = RopeDef::along(vec![v(-0.5, 0.026), v(0.026, 0.026), v(0.026, -1.0)]).segments(30).mass(0.3).radius(0.01);
    let h = w.add_rope(&def.pin_start()).unwrap();
    let ps: Vec<_> = w.rope(h).unwrap().particles().to_vec();
    let mut closest = f64::MAX;
    for frame in 0..210 {
        if frame >= 60 {
            let x = w.particles().position(ps[0]).unwrap();
            w.particles_mut().set_kinematic_target(ps[0], x + v(-0.002, 0.0)).unwrap();
        }
        w.step(DT).unwrap();
        for s in ps.windows(2) {
            let (a, b) = (w.particles().position(s[0]).unwrap(), w.particles().position(s[1]).unwrap());
            let t = (-a.dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
            closest = closest.min(a.lerp(b, t).length() - post);
        }
    }
    (closest, w.particles().position(ps[30]).unwrap())
}

#[test]
fn a_rope_pulled_slowly_over_a_post_on_contact_planes_keeps_its_centre_line_out_of_it() {
    let (closest, end) = slow_pull_over_a_post(0.005);
    let (closest_exact, end_exact) = slow_pull_over_a_post(0.0);
    // The guaranteed bound is r − 2ε = 0 (the centre line never enters the post); in
    // practice a span sinks a fraction of a millimetre into the rope radius (measured:
    // 9.76 mm from the surface with planes, 9.98 mm without).
    assert!(closest >= 0.009, "a span's centre line came within {closest} m of the post");
    assert!(closest_exact >= 0.0, "a span's centre line came {closest_exact} m into the post (no planes)");
    // The rope slid over the post (its end rose by the 30 cm pulled), alike either way.
    assert!(end_exact.y > -0.8, "the hanging end did not rise: {end_exact:?}");
    assert!((end - end_exact).length() < 0.01, "hanging end at {end:?} with planes, {end_exact:?} without");
}

/// The tail of a rope cut while it rests over a post keeps its spans on the post: the
/// pieces are new ropes, whose spans are gathered afresh even where both ends kept their
/// contact anchors (a first version reused the old rope's missing entry as "no items",
/// and the tail's spans sank 1.7 mm into the inflated post).
#[test]
fn the_pieces_of_a_cut_rope_keep_their_spans_out_of_a_post() {
    let v = |x: f64, y: f64| Vector2::<Fx>::from_f64(x, y);
    let mut w = World2x::new(WorldDef::default().friction(Fx::from_f64(0.5))).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(v(0.0, 1.0), Fx::ZERO).unwrap())).unwrap();
    let (post, post_r, r) = ((0.0, 0.6), 0.1, 0.015);
    w.add_collider(&ColliderDef::new(Shape::ball(Fx::from_f64(post_r)).unwrap()).position(v(post.0, post.1))).unwrap();
    let h = w.add_rope(&RopeDef::between(v(-1.0, 0.8), v(2.0, 0.8)).segments(60).radius(Fx::from_f64(r))).unwrap();
    let dt = Fx::from_f64(1.0 / 60.0);
    for _ in 0..180 {
        w.step(dt).unwrap();
    }
    let tail = w.cut_rope(h, 5).unwrap().expect("a tail");
    let mut worst: f64 = 0.0;
    for _ in 0..30 {
        w.step(dt).unwrap();
        let ps = w.rope(tail).unwrap().particles().to_vec();
        for pair in ps.windows(2) {
            let (a, b) = (w.particles().position(pair[0]).unwrap(), w.particles().position(pair[1]).unwrap());
            let (a, b) = ((a.x.to_f64(), a.y.to_f64()), (b.x.to_f64(), b.y.to_f64()));
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            let t = (((post.0 - a.0) * dx + (post.1 - a.1) * dy) / (dx * dx + dy * dy)).clamp(0.0, 1.0);
            let d = (a.0 + t * dx - post.0).hypot(a.1 + t * dy - post.1);
            worst = worst.max(post_r + r - d);
        }
    }
    assert!(worst < 5e-4, "a span of the tail went {worst} m into the post inflated by the rope radius");
}

/// A rope lying on the ground with both ends pinned, its ends yanked 1 m up in one step
/// past a post (a 1 cm ball) thinner than its 10 cm particle spacing, 0.6 m above the
/// middle of a span: the two particles pass either side of the post and only the span
/// between them can catch it. Those particles leave the region their candidates were
/// gathered for, so they re-query the broad phase mid-step; their span must too. It used
/// not to: the rope passed through the post and ended above it. Now it hangs from the
/// post in a V, its centre line never closer to the post's centre than the two radii less
/// 5 mm on the frames it wraps the post, 1.5 mm after, in f64 and in fixed point.
#[test]
fn a_rope_yanked_past_a_thin_post_between_two_particles_catches_on_it() {
    fn run<R: Real>() {
        let v = |x: f64, y: f64| Vector2::<R>::from_f64(x, y);
        let mut w = World::<Space2<R>>::new(WorldDef::default()).unwrap();
        w.add_collider(&ColliderDef::new(Shape::half_space(v(0.0, 1.0), R::ZERO).unwrap())).unwrap();
        let post = v(0.55, 0.6);
        w.add_collider(&ColliderDef::new(Shape::ball(R::from_f64(0.01)).unwrap()).position(post)).unwrap();
        let rope = RopeDef::between(v(0.0, 0.015), v(1.0, 0.015)).segments(10).radius(R::from_f64(0.015));
        let h = w.add_rope(&rope.pin_start().pin_end()).unwrap();
        let ps = w.rope(h).unwrap().particles().to_vec();
        for _ in 0..60 {
            w.step(R::from_f64(DT)).unwrap();
        }
        w.particles_mut().set_kinematic_target(ps[0], v(0.3, 1.015)).unwrap();
        w.particles_mut().set_kinematic_target(ps[10], v(0.7, 1.015)).unwrap();
        for f in 0..30 {
            w.step(R::from_f64(DT)).unwrap();
            let at = |k: usize| w.particles().position(ps[k]).unwrap().to_f64_array();
            for s in 0..10 {
                let (a, b, c) = (at(s), at(s + 1), [0.55, 0.6]);
                let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
                let t = (((c[0] - a[0]) * dx + (c[1] - a[1]) * dy) / (dx * dx + dy * dy)).clamp(0.0, 1.0);
                let d = ((a[0] + t * dx - c[0]).powi(2) + (a[1] + t * dy - c[1]).powi(2)).sqrt();
                // A third of the rope's radius while it wraps the post on the frames after
                // the catch (a particle's corner lands on a post thinner than the spacing:
                // two spans hold it), then within 1.5 mm.
                let tol = if f < 5 { 5e-3 } else { 1.5e-3 };
                assert!(
                    d > 0.025 - tol,
                    "{}: frame {f}: span {s}'s centre line {:.1} mm from the post's centre",
                    R::NAME,
                    d * 1e3
                );
            }
        }
        // Caught: the rope hangs from the post, its lowest particle under it and close
        // by (one that went past ends 0.4 m above it, at the pins' height).
        let lowest = ps
            .iter()
            .map(|&p| w.particles().position(p).unwrap().to_f64_array())
            .fold([0.0, f64::MAX, 0.0], |m, x| if x[1] < m[1] { x } else { m });
        let gap = ((lowest[0] - 0.55).powi(2) + (lowest[1] - 0.6).powi(2)).sqrt();
        assert!(
            lowest[1] < 0.6 && gap < 0.05,
            "{}: the rope went past the post (lowest particle at {lowest:?})",
            R::NAME
        );
    }
    run::<f64>();
    run::<Fx>();
}
