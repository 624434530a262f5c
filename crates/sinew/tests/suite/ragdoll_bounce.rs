//! Restitution of ragdolls: the whole-body bounce (the default, `sinew::contact::bounce`)
//! and Newton's law at each contact with the bones as rigid links
//! (`WorldDef::body_restitution(false)`). Tolerances are stated where they are asserted.

use sinew::prelude::*;
use sinew::ragdoll::{NodeDef, Ragdoll, RigDef, RigLimit, SpawnDef, presets};
use sinew::{DVec2, DVec3, Quat, Rot2, World};

const DT: f64 = 1.0 / 60.0;

/// A rigid triangle (three 1 kg nodes, three bones, and a joint limit that never acts,
/// which makes it a ragdoll whose bones the tree solve holds) tilted `tilt` degrees,
/// moving down at 5 m/s without gravity onto a frictionless floor with restitution 1:
/// kinetic energy after it has left the floor, over before.
fn triangle_energy_kept(tilt: f64, substeps: u32, whole_body: bool) -> f64 {
    let mut tri = RigDef::<Space2<f64>>::new("triangle");
    let (c, s) = (tilt.to_radians().cos(), tilt.to_radians().sin());
    let at = |x: f64, y: f64| DVec2::new(x * c - y * s, x * s + y * c);
    tri.add_node(NodeDef::new("a", at(0.0, 0.0)).radius(0.05));
    tri.add_node(NodeDef::new("b", at(0.3, 0.1)).radius(0.05));
    tri.add_node(NodeDef::new("c", at(0.6, 0.0)).radius(0.05));
    tri.add_bone("a", "b");
    tri.add_bone("b", "c");
    tri.add_bone("a", "c");
    tri.add_limit(RigLimit::angle("a", "b", "c", -3.0, 3.0));
    let def = WorldDef::default().substeps(substeps).restitution(1.0).gravity(DVec2::ZERO).body_restitution(whole_body);
    let mut w = World2d::new(def).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(DVec2::new(0.0, 1.0), 0.0).unwrap())).unwrap();
    let rd = Ragdoll::spawn(&mut w, &tri, DVec2::new(0.0, 0.3), 1.0, DVec2::new(0.0, -5.0)).unwrap();
    let energy = |w: &World2d| w.particles().velocities().iter().map(|v| 0.5 * v.length_squared()).sum::<f64>();
    let e0 = energy(&w);
    // 0.5 s: the nodes reach the floor by 0.1 s; after the impacts all move up.
    for _ in 0..30 {
        w.step(DT).unwrap();
    }
    let vel = |h| w.particles().velocity(h).unwrap();
    if whole_body {
        // The body leaves as a whole; a corner may still turn downward about its centre.
        let vy: f64 = rd.nodes().iter().map(|&h| vel(h).y).sum();
        assert!(vy > 0.0, "still falling");
    } else {
        assert!(rd.nodes().iter().all(|&h| vel(h).y > 0.0), "still falling");
    }
    energy(&w) / e0
}

/// Per-contact restitution (`WorldDef::body_restitution(false)`) is Newton's law at each
/// contact with the body's bones as rigid links (see "Restitution" in `sinew::contact`): a
/// tilted rigid triangle bouncing with `e = 1` (one corner lands and bounces, the body
/// turns, the next corner lands) keeps its kinetic energy up to a loss of first order in
/// the substep, from the inelastic position solve of the substeps around each impact.
/// Measured: 1.4 % (10°) and 5.0 % (30°) lost at 8 substeps, 0.5 % and 1.2 % at 32. Before
/// the velocity solve of the bones the next bone solve ate the bounce of the first corner:
/// 50–80 % lost at any substep count.
#[test]
fn a_tilted_rigid_triangle_bounces_elastically_with_per_contact_restitution_one() {
    for tilt in [10.0, 30.0] {
        let (lost8, lost32) = (1.0 - triangle_energy_kept(tilt, 8, false), 1.0 - triangle_energy_kept(tilt, 32, false));
        assert!((0.0..=0.06).contains(&lost8), "tilt {tilt}°, 8 substeps: {:.2} % of the energy lost", lost8 * 100.0);
        assert!(
            lost32 >= 0.0 && lost32 <= 0.5 * lost8,
            "tilt {tilt}°: lost {lost8:.4} at 8 substeps, {lost32:.4} at 32"
        );
    }
}

/// Whole-body restitution (the default) with `e = 1`: the tilted triangle's impact ends
/// with its centre of mass leaving at its approach speed as far as its kinetic energy
/// allows (`sinew::contact::bounce`), so it keeps its kinetic energy at any substep count
/// and never gains any beyond rounding and the push out of the floor (measured: within
/// 0.01 % at 8 and 32 substeps, both tilts).
#[test]
fn a_tilted_rigid_triangle_keeps_its_energy_with_whole_body_restitution_one() {
    for tilt in [10.0, 30.0] {
        for substeps in [8, 32] {
            let kept = triangle_energy_kept(tilt, substeps, true);
            assert!((0.995..=1.001).contains(&kept), "tilt {tilt}°, {substeps} substeps: energy kept {kept:.5}");
        }
    }
}

/// Rebound of the centre of mass of a `humanoid16` dropped lying flat (turned 90°) from
/// 4 m onto the ground, at the default settings with restitution `e` (and whole-body
/// restitution on or off): how far it rises after its lowest point, and how far it fell to
/// it (`h`).
fn flat_drop_rebound(e: f64, substeps: u32, whole_body: bool) -> (f64, f64) {
    flat_drop_in::<f64>(e, substeps, whole_body)
}

fn flat_drop_in<R: Real>(e: f64, substeps: u32, whole_body: bool) -> (f64, f64) {
    let rig = presets::humanoid16::<R>();
    let def = WorldDef::default().substeps(substeps).restitution(R::from_f64(e)).body_restitution(whole_body);
    let mut w = World::<Space2<R>>::new(def).unwrap();
    let up = Vector2::<R>::from_f64(0.0, 1.0);
    w.add_collider(&ColliderDef::new(Shape::half_space(up, R::ZERO).unwrap())).unwrap();
    let turn = Rot2::from_angle(R::from_f64(core::f64::consts::FRAC_PI_2));
    let s = SpawnDef::from_rig(&rig, Vector2::from_f64(0.0, 4.0), turn, R::ONE, Vector2::ZERO);
    let rd = Ragdoll::spawn_with(&mut w, &rig, &s).unwrap();
    let dt = R::from_f64(DT);
    let c0 = rd.center_of_mass(&w).unwrap().y.to_f64();
    let trace: Vec<f64> = (0..240)
        .map(|_| {
            w.step(dt).unwrap();
            rd.center_of_mass(&w).unwrap().y.to_f64()
        })
        .collect();
    assert!(trace.iter().all(|c| c.is_finite()));
    let (i_min, c_min) =
        trace[..90].iter().enumerate().fold((0, f64::MAX), |b, (i, &c)| if c < b.1 { (i, c) } else { b });
    let top = trace[i_min..].iter().fold(f64::MIN, |m, &c| m.max(c));
    (top - c_min, c0 - c_min)
}

/// Whole-body restitution (`sinew::contact::bounce`, the default): a `humanoid16` dropped
/// flat from 4 m leaves the ground with its centre of mass at `e` times its landing speed,
/// so it rises to `e²·h` though it lands part by part and folds. Measured at 4 (8)
/// substeps: 0.974 (0.961) m at e = 0.5 and 2.458 (2.465) m at e = 0.8, against `e²h` =
/// 0.976 (0.978) and 2.50 m. At e = 0 the centre of mass still rises 0.08 (0.11) m as
/// the limbs unfold after landing: not the 2 cm a rigid body would give (README, known
/// limits).
#[test]
fn a_humanoid_dropped_flat_rebounds_to_e_squared_h() {
    for substeps in [4, 8] {
        let rb: Vec<(f64, f64)> = [0.0, 0.5, 0.8].iter().map(|&e| flat_drop_rebound(e, substeps, true)).collect();
        assert!(rb.windows(2).all(|p| p[1].0 > p[0].0), "rebound must grow with restitution: {rb:?}");
        for (e, &(rebound, h)) in [0.5, 0.8].iter().zip(&rb[1..]) {
            let ratio = rebound / (e * e * h);
            assert!(
                (0.9..=1.05).contains(&ratio),
                "{substeps} substeps, e = {e}: rebound {rebound:.3} m = {ratio:.3}·e²h"
            );
        }
        assert!(rb[0].0 < 0.12, "{substeps} substeps, e = 0: rebound {:.3} m", rb[0].0);
    }
}

/// The per-contact path (`WorldDef::body_restitution(false)`): Newton's law at each contact
/// with the bones as rigid links. The body lands part by part and its inelastic joint
/// limits take much of the bounce: it rebounds more with `e` and at least a quarter of
/// `e²·h` (measured 0.08, 0.32, 0.70 m at e = 0, 0.5, 0.8, `h` = 3.9 m; 0.08, 0.16, 0.23 m
/// before the velocity solve of its bones).
#[test]
fn per_contact_restitution_bounces_a_dropped_humanoid_a_quarter_of_e_squared_h() {
    let rb: Vec<(f64, f64)> = [0.0, 0.5, 0.8].iter().map(|&e| flat_drop_rebound(e, 4, false)).collect();
    assert!(rb.windows(2).all(|p| p[1].0 > p[0].0), "rebound must grow with restitution: {rb:?}");
    for (e, &(rebound, h)) in [0.5, 0.8].iter().zip(&rb[1..]) {
        assert!(rebound >= 0.25 * e * e * h, "e = {e}: rebound {rebound:.3} m, h = {h:.3} m");
    }
}

/// The whole-body bounce in `f32` and fixed point: the same `e²h` within the same
/// tolerance as `f64` (4 substeps).
#[test]
fn the_flat_drop_rebounds_to_e_squared_h_in_f32_and_fixed_point() {
    for (name, rb) in [("f32", flat_drop_in::<f32>(0.5, 4, true)), ("fixed", flat_drop_in::<Fx>(0.5, 4, true))] {
        let ratio = rb.0 / (0.25 * rb.1);
        assert!((0.9..=1.05).contains(&ratio), "{name}: rebound {:.3} m = {ratio:.3}·e²h", rb.0);
    }
}

/// An impact in progress spans steps, so it is saved state: a snapshot taken in the
/// middle of one and restored steps on exactly as the world did (state hash after 60
/// more frames), and the hash sees the impact.
#[test]
fn an_impact_in_progress_is_snapshotted_restored_and_hashed() {
    let rig = presets::humanoid16::<Fx>();
    let def = WorldDef::default().substeps(4).restitution(Fx::from_f64(0.5));
    let mut w = World::<Space2<Fx>>::new(def).unwrap();
    let up = Vector2::<Fx>::from_f64(0.0, 1.0);
    w.add_collider(&ColliderDef::new(Shape::half_space(up, Fx::ZERO).unwrap())).unwrap();
    let turn = Rot2::from_angle(Fx::from_f64(core::f64::consts::FRAC_PI_2));
    let s = SpawnDef::from_rig(&rig, Vector2::from_f64(0.0, 4.0), turn, Fx::ONE, Vector2::ZERO);
    Ragdoll::spawn_with(&mut w, &rig, &s).unwrap();
    let dt = Fx::from_f64(DT);
    let mut frames = 0;
    while w.step(dt).unwrap().impacts == 0 {
        frames += 1;
        assert!(frames < 120, "the body never started an impact");
    }
    let snap = w.snapshot();
    let during = w.state_hash();
    let run = |w: &mut World<Space2<Fx>>| {
        for _ in 0..60 {
            w.step(dt).unwrap();
        }
        w.state_hash()
    };
    let first = run(&mut w);
    w.restore(&snap);
    assert_eq!(w.state_hash(), during);
    assert_eq!(run(&mut w), first);
    // The hash covers the impact: the same particles without it hash differently.
    let mut other = World::<Space2<Fx>>::new(def).unwrap();
    other.restore(&snap);
    assert_eq!(other.state_hash(), during);
}

/// A ragdoll thrown into a wall at 10 m/s without gravity, e = 0.8: it leaves the wall
/// (its centre of mass moving away at a visible fraction of `e·v`) and never with more
/// kinetic energy than it came with (the bounce's energy cap; 0.1 % for the push out of
/// the wall and rounding).
#[test]
fn a_ragdoll_thrown_into_a_wall_bounces_back_without_gaining_energy() {
    for substeps in [4, 8] {
        let rig = presets::humanoid16::<f64>();
        let def = WorldDef::default().substeps(substeps).restitution(0.8).gravity(DVec2::ZERO);
        let mut w = World2d::new(def).unwrap();
        w.add_collider(&ColliderDef::new(Shape::half_space(DVec2::new(-1.0, 0.0), -1.0).unwrap())).unwrap();
        let rd = Ragdoll::spawn(&mut w, &rig, DVec2::new(0.0, 0.0), 1.0, DVec2::new(10.0, 0.0)).unwrap();
        // Kinetic energy and momentum of the body's particles.
        let sums = |w: &World2d| {
            let ps = w.particles();
            rd.nodes().iter().fold((0.0, DVec2::ZERO, 0.0), |(e, p, m), &h| {
                let (mk, vk) = (ps.mass(h).unwrap(), ps.velocity(h).unwrap());
                (e + 0.5 * mk * vk.length_squared(), p + vk * mk, m + mk)
            })
        };
        let energy = |w: &World2d| sums(w).0;
        let e0 = energy(&w);
        let mut worst: f64 = 0.0;
        for _ in 0..60 {
            w.step(DT).unwrap();
            worst = worst.max(energy(&w) / e0);
        }
        let (_, p, m) = sums(&w);
        let v = p / m;
        println!(
            "{substeps} substeps: centre of mass leaves at {:.2} m/s, most energy {worst:.4} of the throw's",
            -v.x
        );
        assert!(worst <= 1.001, "{substeps} substeps: energy reached {worst:.4} of the throw's");
        assert!(-v.x >= 0.4 * 0.8 * 10.0, "{substeps} substeps: leaves the wall at {:.2} m/s", -v.x);
    }
}

/// In 3D the bounce needs the tree solve (off by default there): a `humanoid3d` dropped
/// lying on its back from 4 m (8 substeps, no friction) with `tree_solve(true)` rises to
/// `e²h` as the 2D figure does, and stays down at e = 0. Measured (`f64`): 0.93 m at
/// e = 0.5 and 2.38 m at e = 0.8 (0.96 and 0.97·`e²h`), 0 at e = 0; with the default
/// `tree_solve(false)` each particle keeps its own bounce: 0.17 and 0.26 m (mean particle
/// height, `sinew simulate`).
#[test]
fn a_humanoid3d_with_the_tree_solve_rebounds_to_e_squared_h() {
    let drop = |e: f64| {
        let rig = presets::humanoid3d::<f64>();
        let def = WorldDef::default().substeps(8).restitution(e).friction(0.0).tree_solve(true);
        let mut w = World::<Space3<f64>>::new(def).unwrap();
        w.add_collider(&ColliderDef::new(Shape::half_space(DVec3::new(0.0, 1.0, 0.0), 0.0).unwrap())).unwrap();
        let turn = Quat::from_axis_angle(DVec3::new(1.0, 0.0, 0.0), core::f64::consts::FRAC_PI_2);
        let s = SpawnDef::from_rig(&rig, DVec3::new(0.0, 4.0, 0.0), turn, 1.0, DVec3::ZERO);
        let rd = Ragdoll::spawn_with(&mut w, &rig, &s).unwrap();
        let c0 = rd.center_of_mass(&w).unwrap().y;
        let trace: Vec<f64> = (0..200)
            .map(|_| {
                w.step(DT).unwrap();
                rd.center_of_mass(&w).unwrap().y
            })
            .collect();
        let (i_min, c_min) =
            trace[..90].iter().enumerate().fold((0, f64::MAX), |b, (i, &c)| if c < b.1 { (i, c) } else { b });
        let top = trace[i_min..].iter().fold(f64::MIN, |m, &c| m.max(c));
        (top - c_min, c0 - c_min)
    };
    let rb: Vec<(f64, f64)> = [0.0, 0.5, 0.8].iter().map(|&e| drop(e)).collect();
    println!("humanoid3d, tree solve, (rise, h) at e = 0, 0.5, 0.8: {rb:?}");
    assert!(rb[0].0 < 0.02, "e = 0: rose {:.3} m", rb[0].0);
    for (e, &(rebound, h)) in [0.5, 0.8].iter().zip(&rb[1..]) {
        let ratio = rebound / (e * e * h);
        assert!((0.9..=1.05).contains(&ratio), "e = {e}: rebound {rebound:.3} m = {ratio:.3}·e²h");
    }
}
