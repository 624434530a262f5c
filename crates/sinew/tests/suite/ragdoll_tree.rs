//! Ragdolls at the default settings, whose bones the exact tree solve holds
//! (`sinew::constraint::tree`): the 2D `humanoid16` and the 3D `humanoid3d` thrown at
//! 10 m/s into a wall and dropped from 5 m, at 4 and 8 substeps, in `f32`, `f64` and fixed
//! point, and the 2D sweep of 15 throws and 6 drops of `examples/ragdoll_impact.rs`.
//!
//! Asserted: every bone within 0.5 % of its length every frame, no node more than the
//! stated depth inside the ground or the wall, never NaN, and the body at rest (every node
//! under 1 cm/s) over the last half second of 5 s. Not asserted at the default settings,
//! because not met: the joint limits, which are still projections one after the other
//! and are pushed past their range by up to 10–20° on the frames of a hard impact
//! (measured by `crates/sinew-bench/examples/ragdoll_sweep.rs`; see the README's known limits) — with
//! `WorldDef::limit_rows` (2D) they are asserted within 1°; and, in 3D at 4
//! substeps, the bones (a torso tetrahedron folded by a 5 m drop strains a bone by up to
//! 1.6 % before the fold is walked out).

use sinew::prelude::*;
use sinew::ragdoll::RigSpace;
use sinew::ragdoll::{Ragdoll, presets};
use sinew::{VecOf, World};

const DT: f64 = 1.0 / 60.0;

fn r<R: Real>(v: f64) -> R {
    R::from_f64(v)
}

// The worst joint-limit violation (rad) and depth (m) of the last run on this thread
// (`check_frames`), and whether runs use `WorldDef::limit_rows`.
thread_local! {
    static WORST_LIMIT: core::cell::Cell<f64> = const { core::cell::Cell::new(0.0) };
    static WORST_DEPTH: core::cell::Cell<f64> = const { core::cell::Cell::new(0.0) };
    static ROWS: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

/// Per-frame checks of one run; returns the worst strain and the largest node speed over
/// the last half second (the worst limit violation and depth in `WORST_LIMIT`,
/// `WORST_DEPTH`).
fn check_frames<S: RigSpace>(
    w: &mut World<S>,
    rd: &Ragdoll<S>,
    (frames, depth): (u32, f64),
    inside: impl Fn(VecOf<S>, f64) -> f64,
    what: &str,
) -> (f64, f64) {
    let (mut worst, mut late) = (0.0f64, 0.0f64);
    let (mut limit, mut deepest) = (0.0f64, 0.0f64);
    for f in 0..frames {
        w.step(r(DT)).unwrap();
        let st = rd.stats(w).unwrap();
        let strain = st.max_bone_strain.to_f64();
        assert!(strain <= 0.005, "{what}: frame {f}: bone strain {:.3} %", strain * 100.0);
        worst = worst.max(strain);
        limit = limit.max(st.max_limit_violation.to_f64());
        for &h in rd.nodes() {
            let (p, rad) = (w.particles().position(h).unwrap(), w.particles().radius(h).unwrap().to_f64());
            assert!(p.is_finite(), "{what}: frame {f}: NaN");
            let d = inside(p, rad);
            deepest = deepest.max(d);
            assert!(d <= depth, "{what}: frame {f}: {:.3} mm inside the ground or the wall", d * 1000.0);
        }
        if f + 30 >= frames {
            late = late.max(st.max_speed.to_f64());
        }
    }
    WORST_LIMIT.set(limit);
    WORST_DEPTH.set(deepest);
    (worst, late)
}

/// `humanoid16` from `origin` at `velocity` towards a box wall (face at x = 3) over the
/// ground, at the default settings but `substeps`; 5 s.
fn run_2d<R: Real>(substeps: u32, origin: (f64, f64), velocity: (f64, f64), frames: u32, depth: f64) -> (f64, f64) {
    let rig = presets::humanoid16::<R>();
    let def = WorldDef::default().substeps(substeps).friction(r(0.6)).damping(r(0.3)).limit_rows(ROWS.get());
    let mut w = World::<Space2<R>>::new(def).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(Vector2::from_f64(0.0, 1.0), R::ZERO).unwrap())).unwrap();
    let wall = Shape::cuboid(Vector2::from_f64(0.25, 3.0)).unwrap();
    w.add_collider(&ColliderDef::new(wall).position(Vector2::from_f64(3.25, 3.0))).unwrap();
    let at = Vector2::from_f64(origin.0, origin.1);
    let rd = Ragdoll::spawn(&mut w, &rig, at, R::ONE, Vector2::from_f64(velocity.0, velocity.1)).unwrap();
    let inside = |p: Vector2<R>, rad: f64| (rad - p.y.to_f64()).max(p.x.to_f64() - (3.0 - rad));
    let what = format!("{} 2D, {substeps} substeps, from {origin:?} at {velocity:?}", R::NAME);
    check_frames(&mut w, &rd, (frames, depth), inside, &what)
}

/// `humanoid3d` likewise, against a wall plane at x = 3.
fn run_3d<R: Real>(substeps: u32, origin: (f64, f64, f64), velocity: (f64, f64, f64), depth: f64) -> (f64, f64) {
    let rig = presets::humanoid3d::<R>();
    // The tree solve is off by default in 3D (`WorldDef::tree_solve`): on here.
    let def = WorldDef::default().substeps(substeps).friction(r(0.6)).damping(r(0.3)).tree_solve(true);
    let mut w = World::<Space3<R>>::new(def).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(Vector3::from_f64(0.0, 1.0, 0.0), R::ZERO).unwrap())).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(Vector3::from_f64(-1.0, 0.0, 0.0), r(-3.0)).unwrap())).unwrap();
    let at = Vector3::from_f64(origin.0, origin.1, origin.2);
    let v = Vector3::from_f64(velocity.0, velocity.1, velocity.2);
    let rd = Ragdoll::spawn(&mut w, &rig, at, R::ONE, v).unwrap();
    let inside = |p: Vector3<R>, rad: f64| (rad - p.y.to_f64()).max(p.x.to_f64() - (3.0 - rad));
    let what = format!("{} 3D, {substeps} substeps, from {origin:?} at {velocity:?}", R::NAME);
    check_frames(&mut w, &rd, (300, depth), inside, &what)
}

/// Thrown at 10 m/s into the wall and dropped from 5 m, at 4 and 8 substeps: bones
/// within 0.5 % every frame (measured in `f64`: 0.01 %), nothing more than 0.1 mm inside
/// the ground or the wall, at rest (under 1 cm/s) after 5 s.
fn humanoid16_holds<R: Real>() {
    for substeps in [4, 8] {
        for (origin, velocity) in [((0.0, 0.3), (10.0, 0.0)), ((0.0, 5.0), (0.0, 0.0))] {
            let (_, late) = run_2d::<R>(substeps, origin, velocity, 300, 1e-4);
            assert!(late <= 0.01, "{} 2D, {substeps} substeps, {velocity:?}: still moving at {late} m/s", R::NAME);
        }
    }
}

#[test]
fn humanoid16_thrown_and_dropped_at_default_settings_f64() {
    humanoid16_holds::<f64>();
}

#[test]
fn humanoid16_thrown_and_dropped_at_default_settings_f32() {
    humanoid16_holds::<f32>();
}

#[test]
fn humanoid16_thrown_and_dropped_at_default_settings_fixed() {
    humanoid16_holds::<Fx>();
}

/// The same for `humanoid3d` at 8 substeps with the tree solve on (off by default in 3D), its depth within 1 mm (measured in `f64`:
/// 0.68 mm thrown, a node the solve after contacts moved into the wall for a frame). At
/// rest after 5 s in `f64` and fixed point; not in `f32`, where the dropped body still
/// moves at 4.9 cm/s (measured; not asserted).
fn humanoid3d_holds<R: Real>() {
    for (origin, velocity) in [((0.0, 0.4, 0.0), (10.0, 1.0, 1.0)), ((0.0, 5.0, 0.0), (0.0, 0.0, 0.0))] {
        let (_, late) = run_3d::<R>(8, origin, velocity, 1e-3);
        if R::NAME != "f32" {
            assert!(late <= 0.01, "{} 3D, {velocity:?}: still moving at {late} m/s", R::NAME);
        }
    }
}

#[test]
fn humanoid3d_thrown_and_dropped_with_the_tree_solve_f64() {
    humanoid3d_holds::<f64>();
}

#[test]
fn humanoid3d_thrown_and_dropped_with_the_tree_solve_f32() {
    humanoid3d_holds::<f32>();
}

#[test]
fn humanoid3d_thrown_and_dropped_with_the_tree_solve_fixed() {
    humanoid3d_holds::<Fx>();
}

/// The 3D throw of `humanoid3d_holds` with its sideways component turned by ±2 % (the
/// throw at `(10, 1, 1.01)` m/s and so on): the body should be at rest after 5 s whatever
/// the throw. It is not: in fixed point the throw at `(10, 1, 1.01)` leaves a swinging
/// limb at 0.37 m/s after 5 s (the other nine runs in `f64` and fixed point: 0.0000–0.0099 m/s), so the rest the test
/// above sees for `(10, 1, 1)` is that throw's, not the solver's. Traced: the resting
/// limb lies 0.7° beyond a swing limit; each substep the limit projects it back and the
/// tree solve that follows (bones to length) takes back about 97 % of that, so the limit
/// pushes again the next substep and what is left of each push accelerates the limb (21
/// m/s², until the pose changes) — projections of the limits fighting the exact bones.
/// Run with
/// `cargo test --release -p sinew --test suite humanoid3d_at_rest -- --ignored --nocapture`.
#[test]
#[ignore = "known defect: a humanoid3d thrown at (10, 1, 1.01) m/s still moves at 0.37 m/s after 5 s (fixed point)"]
fn humanoid3d_at_rest_after_nearby_throws() {
    fn each<R: Real>(worst: &mut (f64, String)) {
        for vz in [0.98, 0.99, 1.0, 1.01, 1.02] {
            let (_, late) = run_3d::<R>(8, (0.0, 0.4, 0.0), (10.0, 1.0, vz), 1e-3);
            println!("{} 3D, thrown at (10, 1, {vz}): {late:.4} m/s after 5 s", R::NAME);
            if late > worst.0 {
                *worst = (late, format!("{}, vz {vz}", R::NAME));
            }
        }
    }
    let mut worst = (0.0, String::new());
    each::<f64>(&mut worst);
    each::<Fx>(&mut worst);
    assert!(worst.0 <= 0.01, "still moving at {:.3} m/s ({})", worst.0, worst.1);
}

/// One body of the 1000-ragdoll rain (`scenes/bench_1000_ragdolls_2d.json`, ragdoll 934:
/// from (18, 44) m at (−3, 0) m/s, 4 substeps, friction 0.5, damping 0.1) with only the
/// ground and the two platforms it passes (boxes 3 × 0.5 m at (12, 2) and (12, 5)): it
/// falls at 30 m/s, clips a platform and lands; the fastest any node moves over 5 s.
fn rain_body_fastest<R: Real>() -> f64 {
    let rig = presets::humanoid16::<R>();
    let def = WorldDef::default().substeps(4).friction(r(0.5)).damping(r(0.1));
    let mut w = World::<Space2<R>>::new(def).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(Vector2::from_f64(0.0, 1.0), R::ZERO).unwrap())).unwrap();
    for y in [2.0, 5.0] {
        let platform = Shape::cuboid(Vector2::from_f64(1.5, 0.25)).unwrap();
        w.add_collider(&ColliderDef::new(platform).position(Vector2::from_f64(12.0, y))).unwrap();
    }
    let (at, v) = (Vector2::from_f64(18.0, 44.0), Vector2::from_f64(-3.0, 0.0));
    let rd = Ragdoll::spawn(&mut w, &rig, at, R::ONE, v).unwrap();
    let mut top = 0.0f64;
    for _ in 0..300 {
        w.step(r(DT)).unwrap();
        for &n in rd.nodes() {
            top = top.max(w.particles().velocity(n).unwrap().length().to_f64());
        }
    }
    println!("{}: fastest node {top:.1} m/s", R::NAME);
    top
}

/// The rain body above never moves faster than its fall (35 m/s) in `f64` and fixed
/// point. Measured: 26.5 m/s in both. Before the tree solve refused wild Newton steps
/// (`constraint::tree`, "Wild steps") a node left the landing at 58 m/s (`f64`) and 63 m/s
/// (fixed point), 140 m/s in `f32`: in the solve after contacts a step asked a particle
/// to move 1.24 m while no link was 6.6 cm off — a nearly singular system, the two hips
/// (one point in 2D) both held by friction.
#[test]
fn a_rain_body_landing_at_30_m_s_never_moves_faster_than_it_fell() {
    let all = [rain_body_fastest::<f64>(), rain_body_fastest::<Fx>()];
    assert!(all.iter().all(|&v| v <= 35.0), "fastest node (f64, fixed): {all:.1?} m/s");
}

/// The same in `f32`: measured 30.4 m/s. It threw a node at 68.5 m/s (140 before the
/// wild-step rule) while wild steps were shortened to the shortest link: a nearly singular
/// solve after contacts then walked the chest and neck 20–30 cm into the ground in one
/// substep. Damped instead (Levenberg–Marquardt, `constraint::tree`, "Wild steps"), the
/// step moves 2.9 cm.
#[test]
fn a_rain_body_landing_at_30_m_s_in_f32_never_moves_faster_than_it_fell() {
    let v = rain_body_fastest::<f32>();
    assert!(v <= 35.0, "fastest node (f32): {v:.1} m/s");
}

/// The sweep of `examples/ragdoll_impact.rs` in 2D: 15 throws into the wall (6–14 m/s
/// from 0.3, 0.8 and 1.5 m up) and 6 drops (3, 5, 7 m, with 0 or 2 m/s sideways), 3 s
/// each, at 4 and 8 substeps: every bone within 0.5 % every frame (measured: 0.01 %);
/// nodes within 1 cm of the surfaces (measured: 4.7 mm at 4 substeps, 0.4 mm at 8, where a
/// node beside a contact is moved into the surface by the solve after contacts for a
/// frame).
#[test]
fn humanoid16_sweep_of_throws_and_drops_holds_every_bone() {
    for substeps in [4, 8] {
        for speed in [6.0, 8.0, 10.0, 12.0, 14.0] {
            for y in [0.3, 0.8, 1.5] {
                run_2d::<f64>(substeps, (0.0, y), (speed, 0.0), 180, 1e-2);
            }
        }
        for y in [3.0, 5.0, 7.0] {
            for vx in [0.0, 2.0] {
                run_2d::<f64>(substeps, (0.0, y), (vx, 0.0), 180, 1e-2);
            }
        }
    }
}

/// With `WorldDef::limit_rows` (joint limits and contact planes as rows of the tree
/// solve), the 10 m/s wall throw and the 5 m drop at 4 and 8 substeps: bones within 0.5 %,
/// joint limits within `limit` (rad) every frame (measured: 0.62–0.88°), nothing more
/// than `depth` inside the ground or the wall (measured: 0.59 mm `f64`, 1.105 mm `f32`,
/// 0.52 mm fixed, all in the 10 m/s throw at 8 substeps, against 0.03 mm without the
/// rows), at rest after 5 s.
fn humanoid16_with_limit_rows<R: Real>(limit: f64, depth: f64) {
    ROWS.set(true);
    for substeps in [4, 8] {
        for (origin, velocity) in [((0.0, 0.3), (10.0, 0.0)), ((0.0, 5.0), (0.0, 0.0))] {
            let (_, late) = run_2d::<R>(substeps, origin, velocity, 300, depth);
            let what = format!("{} 2D rows, {substeps} substeps, {velocity:?}", R::NAME);
            let l = WORST_LIMIT.get();
            println!("{what}: limit {:.3}°, depth {:.3} mm, late {late:.4}", l.to_degrees(), WORST_DEPTH.get() * 1e3);
            assert!(l <= limit, "{what}: joint limit {:.2}° past its range", l.to_degrees());
            assert!(late <= 0.01, "{what}: still moving at {late} m/s");
        }
    }
}

#[test]
fn humanoid16_with_limit_rows_holds_its_joint_limits_f64() {
    humanoid16_with_limit_rows::<f64>(1.0f64.to_radians(), 0.7e-3);
}

#[test]
fn humanoid16_with_limit_rows_holds_its_joint_limits_f32() {
    humanoid16_with_limit_rows::<f32>(1.0f64.to_radians(), 1.2e-3);
}

#[test]
fn humanoid16_with_limit_rows_holds_its_joint_limits_fixed() {
    humanoid16_with_limit_rows::<Fx>(1.0f64.to_radians(), 0.6e-3);
}

/// The 2D sweep with `limit_rows`, 5 s each, at 4 and 8 substeps (`f64`): every bone
/// within 0.5 %, every joint limit within 1° every frame (measured: 0.89°), nodes
/// within 1.5 mm of the surfaces (measured: 1.03 mm), at rest after 5 s in at least 19
/// of 21 runs at each substep count (measured: 19 and 20).
#[test]
fn humanoid16_sweep_with_limit_rows_holds_every_joint_limit() {
    ROWS.set(true);
    for substeps in [4, 8] {
        let mut still = 0;
        let mut runs = Vec::new();
        for speed in [6.0, 8.0, 10.0, 12.0, 14.0] {
            for y in [0.3, 0.8, 1.5] {
                runs.push(((0.0, y), (speed, 0.0)));
            }
        }
        for y in [3.0, 5.0, 7.0] {
            for vx in [0.0, 2.0] {
                runs.push(((0.0, y), (vx, 0.0)));
            }
        }
        for (origin, velocity) in runs {
            let (_, late) = run_2d::<f64>(substeps, origin, velocity, 300, 1.5e-3);
            let l = WORST_LIMIT.get();
            assert!(
                l <= 1.0f64.to_radians(),
                "{substeps} substeps, {origin:?} {velocity:?}: limit {:.2}°",
                l.to_degrees()
            );
            still += usize::from(late <= 0.01);
        }
        assert!(still >= 19, "{substeps} substeps: {still} of 21 at rest");
    }
}
