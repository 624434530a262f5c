//! The taut rope in 3D: contacts that slide along box edges, arcs on balls, a load
//! swinging over an edge, and random hand paths among boxes, balls and capsules.

use crate::rng::Rng;
use sinew::prelude::*;
use sinew::{ColliderHandle, Quat, RopeHandle, World, World3d};

const DT: f64 = 1.0 / 60.0;
const G: f64 = 9.81;

fn v<R: Real>(x: f64, y: f64, z: f64) -> Vector3<R> {
    Vector3::<R>::from_f64(x, y, z)
}

fn f3<R: Real>(p: Vector3<R>) -> [f64; 3] {
    [p.x.to_f64(), p.y.to_f64(), p.z.to_f64()]
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn len(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

fn unit(a: [f64; 3]) -> [f64; 3] {
    let l = len(a);
    [a[0] / l, a[1] / l, a[2] / l]
}

fn path<R: Real>(w: &World<Space3<R>>, h: RopeHandle) -> Vec<[f64; 3]> {
    w.rope_path(h).unwrap().into_iter().map(f3).collect()
}

fn path_length(p: &[[f64; 3]]) -> f64 {
    p.windows(2).map(|s| len(sub(s[1], s[0]))).sum()
}

/// The deepest any point of the path's spans goes inside the colliders (m; negative or
/// zero when outside all of them), sampled 64 times per span.
fn deepest<R: Real>(w: &World<Space3<R>>, h: RopeHandle, colliders: &[ColliderHandle]) -> f64 {
    let p = path(w, h);
    let mut worst = f64::NEG_INFINITY;
    for s in p.windows(2) {
        for i in 0..=64 {
            let t = f64::from(i) / 64.0;
            let x = [
                s[0][0] + (s[1][0] - s[0][0]) * t,
                s[0][1] + (s[1][1] - s[0][1]) * t,
                s[0][2] + (s[1][2] - s[0][2]) * t,
            ];
            for &c in colliders {
                let d = w.collider(c).unwrap().closest_world(v(x[0], x[1], x[2])).distance.to_f64();
                worst = worst.max(-d);
            }
        }
    }
    worst
}

/// A forced-taut 100 g rope from a pinned anchor to a pinned hand (to be driven).
fn hand_rope<R: Real>(w: &mut World<Space3<R>>, points: Vec<Vector3<R>>) -> (RopeHandle, ParticleHandle, f64) {
    let def = RopeDef::along(points).segments(40).mass(R::from_f64(0.1)).pin_start().pin_end().taut(TautMode::Always);
    let h = w.add_rope(&def).unwrap();
    let rope = w.rope(h).unwrap();
    (h, rope.end(), rope.rest_length().to_f64())
}

/// A rope anchored left of a 1 m box, its hand carried over the top and down the far
/// side with a sideways wobble, then back: the contacts are the top-left edge, then the
/// top-right one, and they go in reverse; contacts between their edges' ends make equal
/// angles with the edge coming in and going out (the path is locally shortest); the path
/// never enters the box and is never longer than the rope.
#[test]
fn contacts_slide_along_box_edges_at_equal_angles_and_unwrap_in_reverse() {
    let mut w = World3d::new(WorldDef::default()).unwrap();
    let boxc = w.add_collider(&ColliderDef::new(Shape::cuboid(v(0.5, 0.5, 0.5)).unwrap())).unwrap();
    let hand_at = |s: f64| {
        // s = 0: above left; 0.5: above the box; 1: down the right side.
        let x = -1.2 + 2.6 * s;
        let y = if s < 0.6 { 1.4 } else { 1.4 - (s - 0.6) * 6.0 };
        let z = 0.6 * (s * 9.0).sin();
        v::<f64>(x, y, z)
    };
    let (h, hand, length) = hand_rope(&mut w, vec![v(-2.0, 0.1, -0.3), v(-2.0, 3.0, 0.0), hand_at(0.0)]);
    let steps = 300;
    let mut seen: Vec<Vec<u32>> = Vec::new();
    let mut checked = 0;
    for f in 1..=2 * steps {
        let s = if f <= steps { f as f64 / steps as f64 } else { (2 * steps - f) as f64 / steps as f64 };
        w.particles_mut().set_kinematic_target(hand, hand_at(s)).unwrap();
        w.step(DT).unwrap();
        let rope = w.rope(h).unwrap();
        assert!(rope.is_taut());
        let p = path(&w, h);
        assert!(deepest(&w, h, &[boxc]) <= 1e-9, "frame {f}: the path enters the box");
        assert!(path_length(&p) <= length * (1.0 + 1e-9), "frame {f}: longer than the rope");
        let feats: Vec<u32> = rope.wraps().iter().map(|x| x.feature()).collect();
        if seen.last() != Some(&feats) {
            seen.push(feats);
        }
        // Both edges run along z: unrolled about them the path is one straight line, so
        // every span has the same z component (the spans make equal angles with the edges
        // coming in and going out), unless a contact sits at an edge's end.
        let inside = rope.wraps().iter().all(|x| (1e-6..1.0 - 1e-6).contains(&x.along()));
        if !rope.wraps().is_empty() && inside {
            let (din, dout) = (unit(sub(p[1], p[0])), unit(sub(p[p.len() - 1], p[p.len() - 2])));
            let (a, b) = (din[2].acos(), dout[2].acos());
            assert!((a - b).abs() < 1e-3, "frame {f}: {a} in, {b} out");
            checked += 1;
        }
    }
    // Edge 10: along z at x−, y+ (top-left); 11: x+, y+ (top-right).
    assert_eq!(seen, vec![vec![], vec![10], vec![10, 11], vec![10], vec![]]);
    assert!(checked > 150, "{checked} frames checked");
}

/// A rope laid over a ball follows a great-circle arc at the ball's radius plus its own
/// between two tangents, on the side it was laid over, and measures what that geometry
/// gives.
#[test]
fn a_rope_over_a_ball_wraps_it_in_a_smooth_arc() {
    let mut w = World3d::new(WorldDef::default()).unwrap();
    let ball = w.add_collider(&ColliderDef::new(Shape::ball(0.5).unwrap())).unwrap();
    let (a, b) = ([-2.0, -0.2, 0.3], [2.0, -0.3, -0.2]);
    let (h, _, _) = hand_rope(&mut w, vec![v(a[0], a[1], a[2]), v(0.0, 1.5, 0.0), v(b[0], b[1], b[2])]);
    w.step(DT).unwrap();
    let rope = w.rope(h).unwrap();
    assert_eq!(rope.wraps().len(), 1, "{:?}", rope.wraps());
    let rho = 0.5 + rope.radius().to_f64();
    let p = path(&w, h);
    assert!(p.len() > 10, "an arc, not a corner: {} points", p.len());
    for q in &p[1..p.len() - 1] {
        assert!((len(*q) - rho).abs() < 1e-9, "arc point at {} from the centre, not {rho}", len(*q));
    }
    // Smooth: no chord turns more than 1/8 rad from the one before.
    for s in p.windows(3) {
        let (d0, d1) = (unit(sub(s[1], s[0])), unit(sub(s[2], s[1])));
        assert!(dot(d0, d1) > (1.0f64 / 8.0).cos() - 1e-12, "a kink of {} rad", dot(d0, d1).acos());
    }
    // The plane of the anchor, the centre and the hand: tangents and the arc between.
    // The straight line from anchor to hand passes below the centre, but the rope was laid
    // over the top and stays there: the arc goes the long way round, over the top.
    let (la, lb) = (len(a), len(b));
    let phi = (dot(a, b) / (la * lb)).acos();
    let theta = 2.0 * std::f64::consts::PI - phi - (rho / la).acos() - (rho / lb).acos();
    let expect = (la * la - rho * rho).sqrt() + (lb * lb - rho * rho).sqrt() + rho * theta;
    assert!((path_length(&p) - expect).abs() < 1e-4 * rho * theta, "{} vs {expect}", path_length(&p));
    assert!(p.iter().any(|q| q[1] > rho * 0.9), "over the top");
    assert!(deepest(&w, h, &[ball]) <= 1e-9);
}

/// A 70 kg load on a taut rope over the apex edge of an overhanging ledge (a triangular
/// prism hull, the 2D grappling hook's ledge drawn out along z), swung 20° out and sent
/// sideways along the edge at 1.5 m/s (16 substeps): the contact stays on the apex edge,
/// sliding along it, the path keeps the rope's length within 1e-4, never enters the
/// ledge, and the swing keeps its energy within 0.3 % (neither gained nor drained).
fn grappling_hook_3d<R: Real>(name: &str) {
    let mut w = World::<Space3<R>>::new(WorldDef::default().substeps(16)).unwrap();
    let mut prism = Vec::new();
    for z in [-1.5, 1.5] {
        prism.extend([v::<R>(0.0, 0.0, z), v(-1.0, 0.0, z), v(-1.0, -1.0, z)]);
    }
    let ledge = w.add_collider(&ColliderDef::new(Shape::convex(&prism).unwrap())).unwrap();
    let a = 20f64.to_radians();
    let start = [2.0 * a.sin(), -2.0 * a.cos(), 0.0];
    let load = w
        .add_particle(
            &ParticleDef::at(v(start[0], start[1], start[2]))
                .mass(R::from_f64(70.0))
                .radius(R::from_f64(0.1))
                .velocity(v(0.0, 0.0, 1.5)),
        )
        .unwrap();
    let def = RopeDef::along(vec![v(-3.0, 3.0, 0.0), v(0.0, 0.0, 0.0), v(start[0], start[1], start[2])])
        .segments(40)
        .mass(R::from_f64(0.2))
        .pin_start()
        .attach_end(load)
        .taut(TautMode::Always);
    let h = w.add_rope(&def).unwrap();
    let length = w.rope(h).unwrap().rest_length().to_f64();
    let energy = |w: &World<Space3<R>>| {
        let p = f3(w.particles().position(load).unwrap());
        let u = f3(w.particles().velocity(load).unwrap());
        70.0 * (0.5 * dot(u, u) + G * p[1])
    };
    w.step(R::from_f64(DT)).unwrap();
    let e0 = energy(&w);
    let apex = w.rope(h).unwrap().wraps().first().map(|c| c.feature());
    assert!(apex.is_some(), "{name}: wrapped on the apex");
    let (mut lo, mut hi) = (f64::MAX, f64::MIN);
    // The swing's energy: the 20° drop and the sideways speed.
    let swing = 70.0 * (G * 2.0 * (1.0 - a.cos()) + 0.5 * 1.5 * 1.5);
    let mut worst_energy: f64 = 0.0;
    for f in 0..300 {
        w.step(R::from_f64(DT)).unwrap();
        let rope = w.rope(h).unwrap();
        assert!(rope.is_taut(), "{name}: frame {f}");
        let wraps = rope.wraps();
        assert_eq!(wraps.len(), 1, "{name}: frame {f}: on the apex edge only: {wraps:?}");
        assert_eq!(Some(wraps[0].feature()), apex, "{name}: frame {f}");
        let p = path(&w, h);
        // The contact point: on the apex line (x = y = 0) moved out by the rope's radius.
        let r = rope.radius().to_f64();
        assert_eq!(p.len(), 3, "{name}: frame {f}: one bend");
        assert!((p[1][0].hypot(p[1][1]) - r).abs() < 1e-3 * r.max(1e-3), "{name}: frame {f}: {:?}", p[1]);
        lo = lo.min(p[1][2]);
        hi = hi.max(p[1][2]);
        let l = path_length(&p);
        assert!((l - length).abs() < 1e-4 * length, "{name}: frame {f}: path {l} vs rope {length}");
        assert!(deepest(&w, h, &[ledge]) <= 1e-6, "{name}: frame {f}: the path enters the ledge");
        worst_energy = worst_energy.max((energy(&w) - e0).abs() / swing);
    }
    assert!(hi - lo > 0.2, "{name}: the contact slid along the edge ({lo:.3} … {hi:.3})");
    // SHAKE's direction (`rope::taut`, "Holding"): the energy stays in a narrow band,
    // neither drained (first order in the substep before) nor gained.
    eprintln!("{name}: energy within {:.4} % of the swing's", worst_energy * 100.0);
    assert!(worst_energy < 3e-3, "{name}: energy off its start by {:.3} % of the swing's", worst_energy * 100.0);
}

#[test]
fn a_load_swinging_over_a_ledge_edge_slides_along_it_and_holds_its_length_f64() {
    grappling_hook_3d::<f64>("f64");
}

#[test]
fn a_load_swinging_over_a_ledge_edge_slides_along_it_and_holds_its_length_f32() {
    grappling_hook_3d::<f32>("f32");
}

#[test]
fn a_load_swinging_over_a_ledge_edge_slides_along_it_and_holds_its_length_fixed() {
    grappling_hook_3d::<Fx>("fixed");
}

/// A hand moving at random among boxes, balls and hulls, up to 0.8 m a frame in
/// straight moves that clear them: 100 random hand paths of 20 frames from one starting
/// state. No span of the path ever enters an obstacle.
#[test]
fn no_span_enters_an_obstacle_under_random_3d_hand_paths() {
    let mut rng = Rng(0x51_7cc1_b727_220a);
    let mut w = World3d::new(WorldDef::default()).unwrap();
    let mut obstacles = Vec::new();
    for i in 0..9 {
        let c = v(rng.range(-1.8, 1.8), rng.range(-1.8, 1.8), rng.range(-0.6, 0.6));
        let shape = match i % 3 {
            0 => Shape::cuboid(v(rng.range(0.15, 0.4), rng.range(0.15, 0.4), rng.range(0.15, 0.4))).unwrap(),
            1 => Shape::ball(rng.range(0.15, 0.35)).unwrap(),
            _ => {
                let pts: Vec<Vector3<f64>> =
                    (0..8).map(|_| v(rng.range(-0.4, 0.4), rng.range(-0.4, 0.4), rng.range(-0.4, 0.4))).collect();
                Shape::convex(&pts).unwrap()
            }
        };
        let axis = v::<f64>(rng.range(0.1, 1.0), rng.next(), rng.next()).normalize_or_zero();
        let rot = Quat::from_axis_angle(axis, rng.range(0.0, 3.0));
        obstacles.push(w.add_collider(&ColliderDef::new(shape).position(c).rotation(rot)).unwrap());
    }
    let clear = |w: &World3d, p: Vector3<f64>| {
        obstacles.iter().all(|&c| w.collider(c).unwrap().closest_world(p).distance > 0.05)
    };
    let start_hand = v(-2.6, 2.6, 0.0);
    let (h, hand, _) = hand_rope(&mut w, vec![v(-3.0, -3.0, 0.0), v(-3.0, 3.0, 0.0), start_hand]);
    let length = w.rope(h).unwrap().rest_length();
    w.step(DT).unwrap();
    let start = w.snapshot();
    let mut most = 0usize;
    for run in 0..100 {
        w.restore(&start);
        let mut at = start_hand;
        for f in 0..20 {
            let next = loop {
                let step = v(rng.range(-0.8, 0.8), rng.range(-0.8, 0.8), rng.range(-0.8, 0.8));
                let p = at + step;
                if p.x.abs() < 2.8
                    && p.y.abs() < 2.8
                    && p.z.abs() < 1.5
                    && (0..=32).all(|k| clear(&w, at.lerp(p, k as f64 / 32.0)))
                {
                    break p;
                }
            };
            at = next;
            w.particles_mut().set_kinematic_target(hand, at).unwrap();
            w.step(DT).unwrap();
            let d = deepest(&w, h, &obstacles);
            assert!(d <= 1e-6, "run {run}, frame {f}: the path is {d:.2e} m inside an obstacle");
            // The hand is kinematic: it can pull the path beyond the rope's length, which
            // does not change.
            assert_eq!(w.rope(h).unwrap().rest_length(), length, "run {run}, frame {f}");
            most = most.max(w.rope(h).unwrap().wraps().len());
        }
    }
    assert!(most >= 3, "the hand wound the rope round obstacles ({most} contacts at most)");
}

/// A rope laid over a horizontal pole (a capsule), its ends low and far apart along the
/// pole: on the pole's side the rope follows the cylinder's geodesic, a helix at the
/// pole's radius plus its own, over the top where it was laid (the long way round), and
/// unrolled the whole path is one straight line.
#[test]
fn a_rope_over_a_pole_follows_a_helix() {
    let mut w = World3d::new(WorldDef::default()).unwrap();
    let pole =
        w.add_collider(&ColliderDef::new(Shape::capsule(v(0.0, 0.0, -3.0), v(0.0, 0.0, 3.0), 0.2).unwrap())).unwrap();
    let (a, b) = ([-1.5, -0.1, -1.0], [1.5, -0.15, 1.0]);
    let (h, _, _) = hand_rope(&mut w, vec![v(a[0], a[1], a[2]), v(0.0, 1.0, 0.0), v(b[0], b[1], b[2])]);
    w.step(DT).unwrap();
    let rope = w.rope(h).unwrap();
    assert_eq!(rope.wraps().len(), 1, "{:?}", rope.wraps());
    let rho = 0.2 + rope.radius().to_f64();
    let p = path(&w, h);
    assert!(p.len() > 10, "{} points", p.len());
    for q in &p[1..p.len() - 1] {
        assert!((q[0].hypot(q[1]) - rho).abs() < 1e-9, "{q:?} off the cylinder");
    }
    // Unrolled: the path across the pole (its projection) and along it make one line.
    let across = |a: [f64; 2]| (a[0] * a[0] + a[1] * a[1] - rho * rho).sqrt();
    let (la, lb) = ([a[0], a[1]], [b[0], b[1]]);
    let phi = (la[0] * lb[0] + la[1] * lb[1]) / (la[0].hypot(la[1]) * lb[0].hypot(lb[1]));
    let theta =
        2.0 * std::f64::consts::PI - phi.acos() - (rho / la[0].hypot(la[1])).acos() - (rho / lb[0].hypot(lb[1])).acos();
    let flat = across(la) + across(lb) + rho * theta;
    let expect = flat.hypot(b[2] - a[2]);
    assert!((path_length(&p) - expect).abs() < 1e-4, "{} vs {expect}", path_length(&p));
    assert!(deepest(&w, h, &[pole]) <= 1e-9);
}

fn rope_positions(w: &World3d, h: RopeHandle) -> Vec<[f64; 3]> {
    w.rope(h).unwrap().particles().iter().map(|&p| f3(w.particles().position(p).unwrap())).collect()
}

fn rope_velocities(w: &World3d, h: RopeHandle) -> Vec<[f64; 3]> {
    w.rope(h).unwrap().particles().iter().map(|&p| f3(w.particles().velocity(p).unwrap())).collect()
}

fn worst_gap(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    a.iter().zip(b).map(|(p, q)| len(sub(*p, *q))).fold(0.0, f64::max)
}

/// Runs `frames` frames of an `Auto` rope whose load is thrown toward `hook` at 3 m/s on
/// frames 90 and 180 (slack), checking every switch the step starts with
/// (`World::update_rope_modes`): going taut a particle moves at most `snap`, going slack
/// nothing moves, and no velocity changes. Returns the switches to slack and to taut.
fn check_switches_3d(w: &mut World3d, h: RopeHandle, load: ParticleHandle, hook: [f64; 3], snap: f64) -> [u32; 2] {
    let mut switches = [0, 0];
    for f in 0..270 {
        if f == 90 || f == 180 {
            let d = unit(sub(hook, f3(w.particles().position(load).unwrap())));
            w.particles_mut().set_velocity(load, v(3.0 * d[0], 3.0 * d[1], 3.0 * d[2])).unwrap();
        }
        let (p0, v0, taut0) = (rope_positions(w, h), rope_velocities(w, h), w.rope(h).unwrap().is_taut());
        w.update_rope_modes();
        let (p1, v1, taut1) = (rope_positions(w, h), rope_velocities(w, h), w.rope(h).unwrap().is_taut());
        if taut0 != taut1 {
            switches[usize::from(taut1)] += 1;
            let (dx, dv) = (worst_gap(&p0, &p1), worst_gap(&v0, &v1));
            let limit = if taut1 { snap } else { 0.0 };
            assert!(dx <= limit, "frame {f}: the switch to {taut1} moved a particle {dx:.2e} m (limit {limit:.1e})");
            assert!(dv == 0.0, "frame {f}: the switch changed a velocity by {dv:.2e} m/s");
        }
        w.step(DT).unwrap();
    }
    switches
}

/// The switch in 3D, in the open: a 10 kg load on a 2 m, 100 g rope released 60° out in
/// a plane between x and z goes taut on its own once straight, slack when thrown up toward
/// the hook, and taut again — moving no particle more than 1 mm and no velocity at all.
#[test]
fn switching_in_3d_between_slack_and_taut_moves_no_particle_visibly() {
    let mut w = World3d::new(WorldDef::default()).unwrap();
    let a = 60f64.to_radians();
    let end = v(2.0 * a.sin() * 0.8, -2.0 * a.cos(), 2.0 * a.sin() * 0.6);
    let load = w.add_particle(&ParticleDef::at(end).mass(10.0)).unwrap();
    let def = RopeDef::between(v(0.0, 0.0, 0.0), end).segments(40).mass(0.1).pin_start().attach_end(load);
    let h = w.add_rope(&def.taut(TautMode::Never)).unwrap();
    // Sag it first, slack: the switch waits until it is straight again.
    for _ in 0..3 {
        w.step(DT).unwrap();
    }
    w.set_rope_taut(h, TautMode::Auto).unwrap();
    let switches = check_switches_3d(&mut w, h, load, [0.0, 0.0, 0.0], 1e-3);
    assert!(switches[1] >= 2 && switches[0] >= 2, "switches to slack, to taut: {switches:?}");
}

/// The switch in 3D over a box's edge: a rope anchored on a box's top runs over its edge
/// and holds a 4 kg load swinging along the edge. A particle rope round an edge lies on
/// the edge rounded by its radius, the taut path on the sharp edge moved out by it, so
/// going taut may move a particle up to 1 mm plus 0.3 of the radius (`rope::taut`); it
/// wraps the edge when taut, and nothing moves going slack.
///
/// Ignored: it fails (no switch at all in 270 frames × 2). Whenever the string-pulled path
/// is long enough to go taut, some particle lies 12.5–15 mm from where the taut path would
/// put it (4 mm allowed): the load stretches the hanging part of the particle rope more
/// than the part lying on the box (the particle rope's heavy-load limit, README "Known
/// limits"), so `Auto` never switches over a loaded edge. Run with `--ignored`.
#[test]
#[ignore = "defect: Auto never goes taut over a loaded 3D edge (particles 12.5 mm off the layout)"]
fn switching_in_3d_over_a_box_edge_moves_particles_at_most_the_edge_offset() {
    let mut w = World3d::new(WorldDef::default()).unwrap();
    // A box whose top face is y = 0, its edge along z at x = 0.
    let box_ = w.add_collider(&ColliderDef::new(Shape::cuboid(v(0.5, 0.5, 1.0)).unwrap()).position(v(-0.5, -0.5, 0.0)));
    let box_ = box_.unwrap();
    let load = w.add_particle(&ParticleDef::at(v(0.03, -1.6, 0.4)).mass(4.0).velocity(v(0.0, 0.0, -1.0))).unwrap();
    let def = RopeDef::along(vec![v(-0.8, 0.02, 0.0), v(0.01, 0.02, 0.0), v(0.03, -1.6, 0.4)])
        .segments(24)
        .mass(0.3)
        .pin_start()
        .attach_end(load)
        .taut(TautMode::Never);
    let h = w.add_rope(&def).unwrap();
    let r = w.rope(h).unwrap().radius();
    for _ in 0..3 {
        w.step(DT).unwrap();
    }
    w.set_rope_taut(h, TautMode::Auto).unwrap();
    let mut wrapped = 0;
    let mut switches = [0, 0];
    for round in 0..2 {
        let s = check_switches_3d(&mut w, h, load, [0.0, 0.0, 0.0], 1e-3 + 0.3 * r);
        switches[0] += s[0];
        switches[1] += s[1];
        let rope = w.rope(h).unwrap();
        if rope.is_taut() {
            assert!(rope.wraps().iter().all(|c| c.collider() == box_), "round {round}: {:?}", rope.wraps());
            wrapped += usize::from(!rope.wraps().is_empty());
        }
    }
    assert!(switches[1] >= 2 && switches[0] >= 2, "switches to slack, to taut: {switches:?}");
    assert!(wrapped >= 1, "taut over the edge at least once at a round's end");
}

/// Rollback with a 3D taut rope: a world restored from a snapshot steps exactly as it did
/// the first time, every frame, in fixed point. (A 3D path's relaxation starts from where
/// the rope's earlier paths of the same step settled; paths remembered from a step that a
/// restore undid must not be used: with them the re-run starts elsewhere and settles to
/// other bits.)
#[test]
fn a_3d_taut_rope_restored_from_a_snapshot_steps_bit_for_bit_as_before() {
    // The golden scene `golden_fixed_taut_3d.json` (its builder is shared with the golden
    // test), with the loader's step clamp.
    let build = || {
        let mut def = WorldDef::<Space3<Fx>>::default().substeps(8);
        def.max_time_step = Fx::from_f64(0.1);
        let mut w = World::new(def).unwrap();
        crate::taut_posts_3d::add_taut_posts_3d(&mut w);
        w
    };
    let dt = Fx::from_f64(DT);
    let mut reference = build();
    let mut replay = build();
    let mut wrapped = 0;
    for frame in 0..90 {
        reference.step(dt).unwrap();
        // Step, take the step back, step again.
        let snap = replay.snapshot();
        replay.step(dt).unwrap();
        replay.restore(&snap);
        replay.step(dt).unwrap();
        assert_eq!(replay.state_hash(), reference.state_hash(), "frame {frame}: the re-run step differs");
        wrapped = wrapped.max(reference.ropes().next().map_or(0, |(_, r)| r.wraps().len()));
    }
    assert!(wrapped >= 3, "the rope wraps the posts and the box ({wrapped} contacts)");
}
