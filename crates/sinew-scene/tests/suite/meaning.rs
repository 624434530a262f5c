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
    // In fixed point the bound is the square of the velocity: 46 km/s.
    let e = error(&doll("fixed", 1e6));
    assert!(e.starts_with("ragdolls[0].impulse: ") && e.contains("too large"), "{e}");
    // An ordinary hit is taken.
    for numeric in ["f32", "f64", "fixed"] {
        assert!(load_str(&doll(numeric, 50.0)).is_ok(), "{numeric}");
    }
}

#[test]
fn a_quaternion_of_huge_finite_components_keeps_its_rotation() {
    // [10³⁰, 0, 0, 10³⁰] is 90° about x, as [1, 0, 0, 1] is: f32 squares overflowed
    // (taken as the identity) and fixed point saturated (a particle launched at 2 km/s).
    for numeric in ["f32", "fixed"] {
        let doll = |q: &str| {
            format!(
                r#"{{"dim":3,"numeric":"{numeric}","gravity":[0,0,0],"ragdolls":[{{"preset":"humanoid3d","origin":[0,1,0],"rotation":{q}}}]}}"#
            )
        };
        let mut huge = load_str(&doll("[1e30, 0, 0, 1e30]")).unwrap();
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
