//! The ragdoll keys `"angle"` (2D, radians) and `"rotation"` (3D, quaternion `[x, y, z,
//! w]`) turn the rig about its origin; the other dimension's key and a bad quaternion are
//! errors naming their path.

use sinew::{Space2, Space3};
use sinew_scene::{build_typed, parse};

/// Node positions (as `f64` triples) of the scene's first ragdoll.
fn nodes<S: sinew_scene::SceneSpace>(text: &str) -> Vec<[f64; 3]> {
    use sinew::Vector;
    let built = build_typed::<S>(&parse(text).unwrap()).unwrap();
    let r = &built.ragdolls[0];
    (r.first_index..r.first_index + r.count)
        .map(|i| built.world.particles().position(built.particles[i]).unwrap().to_f64_array())
        .collect()
}

#[test]
fn angle_turns_a_2d_ragdoll_about_its_origin() {
    let scene =
        |extra: &str| format!(r#"{{"dim": 2, "ragdolls": [{{"preset": "humanoid16", "origin": [1, 2]{extra}}}]}}"#);
    let upright = nodes::<Space2<f64>>(&scene(""));
    let a = 1.2f64;
    let turned = nodes::<Space2<f64>>(&scene(&format!(r#", "angle": {a}"#)));
    assert_eq!(upright.len(), 16);
    for (u, t) in upright.iter().zip(&turned) {
        let (x, y) = (u[0] - 1.0, u[1] - 2.0);
        let want = [1.0 + x * a.cos() - y * a.sin(), 2.0 + x * a.sin() + y * a.cos()];
        assert!((t[0] - want[0]).abs() < 1e-12 && (t[1] - want[1]).abs() < 1e-12, "{t:?} vs {want:?}");
    }
    // Lying flat: a quarter turn puts the head beside the feet, at the origin's height.
    let flat = nodes::<Space2<f64>>(&scene(r#", "angle": -1.5707963267948966"#));
    let spread =
        flat.iter().map(|p| p[1]).fold(f64::MIN, f64::max) - flat.iter().map(|p| p[1]).fold(f64::MAX, f64::min);
    assert!(spread < 0.6, "lying flat, the body is {spread} m tall");
}

#[test]
fn rotation_turns_a_3d_ragdoll_about_its_origin() {
    let scene =
        |extra: &str| format!(r#"{{"dim": 3, "ragdolls": [{{"preset": "humanoid3d", "origin": [1, 2, 3]{extra}}}]}}"#);
    let upright = nodes::<Space3<f64>>(&scene(""));
    // A quarter turn about z: (x, y) → (−y, x); given unnormalised, it is normalised.
    let s = std::f64::consts::FRAC_1_SQRT_2;
    let turned = nodes::<Space3<f64>>(&scene(&format!(r#", "rotation": [0, 0, {}, {}]"#, 2.0 * s, 2.0 * s)));
    for (u, t) in upright.iter().zip(&turned) {
        let (x, y, z) = (u[0] - 1.0, u[1] - 2.0, u[2] - 3.0);
        let want = [1.0 - y, 2.0 + x, 3.0 + z];
        for k in 0..3 {
            assert!((t[k] - want[k]).abs() < 1e-12, "{t:?} vs {want:?}");
        }
    }
}

#[test]
fn the_other_dimensions_key_and_bad_quaternions_name_their_path() {
    let error = |text: &str| match parse(text).and_then(|s| sinew_scene::instantiate(&s)) {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => (e.path, e.message),
    };
    let (path, msg) =
        error(r#"{"dim": 2, "ragdolls": [{"preset": "humanoid16", "origin": [0, 1], "rotation": [0, 0, 0, 1]}]}"#);
    assert_eq!(path, "ragdolls[0].rotation", "{msg}");
    let (path, msg) = error(r#"{"dim": 3, "ragdolls": [{"preset": "humanoid3d", "origin": [0, 1, 0], "angle": 1}]}"#);
    assert_eq!(path, "ragdolls[0].angle", "{msg}");
    let (path, msg) =
        error(r#"{"dim": 3, "ragdolls": [{"preset": "humanoid3d", "origin": [0, 1, 0], "rotation": [0, 1, 0]}]}"#);
    assert_eq!(path, "ragdolls[0].rotation", "{msg}");
    let (path, msg) =
        error(r#"{"dim": 3, "ragdolls": [{"preset": "humanoid3d", "origin": [0, 1, 0], "rotation": [0, 0, 0, 0]}]}"#);
    assert_eq!(path, "ragdolls[0].rotation", "{msg}");
}

#[test]
fn limit_rows_reaches_the_world_and_holds_a_thrown_ragdolls_joints() {
    // The scene key turns on `WorldDef::limit_rows`; a humanoid thrown at 10 m/s into a
    // wall (8 substeps, 2 s) keeps its joints within 1° with it (measured 0.85°) and
    // overshoots more without it (1.34°).
    let scene = |rows: bool| {
        format!(
            r#"{{"dim": 2, "friction": 0.6, "damping": 0.3, "limit_rows": {rows},
                "colliders": [{{"plane": {{"normal": [0, 1], "offset": 0}}}},
                              {{"box": {{"center": [3.25, 3], "half_extents": [0.25, 3]}}}}],
                "ragdolls": [{{"preset": "humanoid16", "origin": [0, 1.5], "velocity": [10, 0]}}]}}"#
        )
    };
    let worst = |rows: bool| {
        use sinew::constraint::JointLimit;
        let mut built = build_typed::<Space2<f64>>(&parse(&scene(rows)).unwrap()).unwrap();
        assert_eq!(built.world.def().limit_rows, rows);
        let mut worst = 0.0f64;
        for _ in 0..120 {
            built.world.step(1.0 / 60.0).unwrap();
            for (_, l) in built.world.joint_limits() {
                worst = worst.max(l.violation(built.world.particles()).to_degrees());
            }
        }
        worst
    };
    let (on, off) = (worst(true), worst(false));
    assert!(on < 1.0, "with limit_rows the worst joint is {on}° out");
    assert!(off > on, "without limit_rows the worst joint is {off}° out (with: {on}°)");
}

#[test]
fn body_restitution_reaches_the_world_and_makes_a_dropped_ragdoll_bounce() {
    // A `humanoid16` dropped lying flat from 4 m with restitution 0.5 (4 substeps): with
    // the key at its default the centre of mass rises to about `e²h` (~0.97 m); with it
    // off, Newton's law at each contact gives about a third of that (~0.32 m).
    let scene = |key: &str| {
        format!(
            r#"{{"dim": 2, "substeps": 4, "restitution": 0.5 {key},
                "colliders": [{{"plane": {{"normal": [0, 1], "offset": 0}}}}],
                "ragdolls": [{{"preset": "humanoid16", "origin": [0, 4], "angle": 1.5707963}}]}}"#
        )
    };
    let rise = |key: &str, on: bool| {
        let mut built = build_typed::<Space2<f64>>(&parse(&scene(key)).unwrap()).unwrap();
        assert_eq!(built.world.def().body_restitution, on);
        let com = |w: &sinew::World<Space2<f64>>| {
            let ps = w.particles();
            let (m, my) = ps.handles().fold((0.0, 0.0), |(m, my), h| {
                let mk = ps.mass(h).unwrap();
                (m + mk, my + mk * ps.position(h).unwrap().y)
            });
            my / m
        };
        let trace: Vec<f64> = (0..150)
            .map(|_| {
                built.world.step(1.0 / 60.0).unwrap();
                com(&built.world)
            })
            .collect();
        let (i, low) =
            trace[..90].iter().enumerate().fold((0, f64::MAX), |b, (i, &c)| if c < b.1 { (i, c) } else { b });
        trace[i..].iter().fold(f64::MIN, |m, &c| m.max(c)) - low
    };
    let (on, off) = (rise("", true), rise(r#", "body_restitution": false"#, false));
    assert!(on > 0.8 && on < 1.1, "whole-body bounce: rose {on:.3} m");
    assert!(off < 0.5 * on, "per-contact bounce: rose {off:.3} m (whole body: {on:.3} m)");
}
