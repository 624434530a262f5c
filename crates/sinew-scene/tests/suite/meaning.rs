//! Inputs that would silently change meaning in the scene's number type are errors naming
//! their path: masses that round to 0 (a pin) or whose inverse overflows (a frozen or
//! launched particle), impulses whose velocity the type cannot hold; a quaternion of any
//! finite size keeps its rotation.

use sinew_scene::load_str;

fn error(text: &str) -> String {
    match load_str(text) {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn masses_that_round_to_zero_or_overflow_their_inverse_are_errors() {
    // 10⁻¹² kg is 0 in Q32.32: it would pin the particle.
    let e = error(r#"{"dim":2,"numeric":"fixed","particles":[{"pos":[0,0]},{"pos":[1,0],"mass":1e-12}]}"#);
    assert!(e.starts_with("particles[1].mass: 1e-12 kg is too small for fixed"), "{e}");
    // A denormal f32 (its inverse is infinite): the particle froze.
    let e = error(r#"{"dim":2,"particles":[{"pos":[0,0],"mass":1e-40}]}"#);
    assert!(e.starts_with("particles[0].mass: 1e-40 kg is too small for f32"), "{e}");
    // The same mass is an ordinary number in f64.
    assert!(load_str(r#"{"dim":2,"numeric":"f64","particles":[{"pos":[0,0],"mass":1e-40}]}"#).is_ok());
    // A rope's mass, and a rope whose particles' shares round to 0 in fixed point.
    let e = error(r#"{"dim":2,"ropes":[{"points":[[0,0],[1,0]],"segments":4,"mass":1e-40}]}"#);
    assert!(e.starts_with("ropes[0].mass: 1e-40 kg is too small for f32"), "{e}");
    let e = error(r#"{"dim":2,"numeric":"fixed","ropes":[{"points":[[0,0],[1,0]],"segments":100,"mass":1e-9}]}"#);
    assert!(e.starts_with("ropes[0]: ") && e.contains("share rounds to 0"), "{e}");
}

#[test]
fn an_impulse_beyond_the_number_type_is_an_error_not_ignored() {
    let doll = |numeric: &str, j: f64| {
        format!(
            r#"{{"dim":2,"numeric":"{numeric}","ragdolls":[{{"preset":"humanoid16","origin":[0,0],
            "impulse":{{"at":[0,1],"impulse":[{j},0]}}}}]}}"#
        )
    };
    let e = error(&doll("f32", 1e30));
    assert!(e.starts_with("ragdolls[0].impulse: invalid impulse ") && e.contains("too large"), "{e}");
    // In fixed point a vector component beyond ±16384 is refused first (the velocity
    // bound, 46 km/s, lies beyond what a ragdoll node's mass lets a scene reach).
    let e = error(&doll("fixed", 1e6));
    assert!(e.starts_with("ragdolls[0].impulse.impulse[0]: 1000000 is outside ±16384"), "{e}");
    // An ordinary hit is taken.
    for numeric in ["f32", "f64", "fixed"] {
        assert!(load_str(&doll(numeric, 50.0)).is_ok(), "{numeric}");
    }
}

#[test]
fn a_quaternion_of_huge_finite_components_keeps_its_rotation() {
    // [10³⁰, 0, 0, 10³⁰] is 90° about x, as [1, 0, 0, 1] is: f32 squares overflowed
    // (taken as the identity); in fixed point [10⁸, 0, 0, 10⁸] (its squares saturated: a
    // particle launched at 2 km/s), and 10³⁰ is beyond what it holds at all: an error.
    let e = error(
        r#"{"dim":3,"numeric":"fixed","ragdolls":[{"preset":"humanoid3d","origin":[0,1,0],"rotation":[1e30,0,0,1e30]}]}"#,
    );
    assert!(e.starts_with("ragdolls[0].rotation[0]: "), "{e}");
    for (numeric, big) in [("f32", "1e30"), ("fixed", "1e8")] {
        let doll = |q: &str| {
            format!(
                r#"{{"dim":3,"numeric":"{numeric}","gravity":[0,0,0],"ragdolls":[{{"preset":"humanoid3d","origin":[0,1,0],"rotation":{q}}}]}}"#
            )
        };
        let mut huge = load_str(&doll(&format!("[{big}, 0, 0, {big}]"))).unwrap();
        let unit = load_str(&doll("[1, 0, 0, 1]")).unwrap();
        let (a, b) = (huge.positions(), unit.positions());
        for (p, q) in a.iter().zip(&b) {
            for k in 0..3 {
                assert!((p[k] - q[k]).abs() < 1e-6, "{numeric}: {p:?} vs {q:?}");
            }
        }
        // And it does not launch anything.
        let start = huge.positions();
        for _ in 0..10 {
            huge.step().unwrap();
        }
        for (p, q) in huge.positions().iter().zip(&start) {
            let moved = ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
            assert!(moved < 0.05, "{numeric}: a node moved {moved} m in 10 frames without gravity");
        }
    }
}

#[test]
fn fixed_point_values_beyond_its_range_are_errors_naming_the_path() {
    // Coordinates beyond ±2¹⁴ m: their differences' squares would leave Q32.32.
    let e = error(r#"{"dim":2,"numeric":"fixed","particles":[{"pos":[0,0]},{"pos":[100000,0]}]}"#);
    assert!(e.starts_with("particles[1].pos[0]: 100000 is outside ±16384"), "{e}");
    let e = error(r#"{"dim":3,"numeric":"fixed","particles":[{"pos":[0,0,0],"vel":[0,-20000,0]}]}"#);
    assert!(e.starts_with("particles[0].vel[1]: -20000 is outside ±16384"), "{e}");
    // Any number beyond ±2³⁰ (it would be clamped to ±2³¹ without a word).
    let e = error(r#"{"dim":2,"numeric":"fixed","damping":1e12,"particles":[{"pos":[0,0]}]}"#);
    assert!(e.starts_with("damping: 1000000000000 is outside ±2³⁰"), "{e}");
    let e = error(r#"{"dim":2,"numeric":"fixed","ropes":[{"points":[[0,0],[1,0]],"tear_tension":5e9}]}"#);
    assert!(e.starts_with("ropes[0].tear_tension: "), "{e}");
    // Floats take them.
    assert!(load_str(r#"{"dim":2,"particles":[{"pos":[0,0]},{"pos":[100000,0]}],"damping":1e12}"#).is_ok());
}
