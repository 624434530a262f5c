//! Scene limits (`SceneLimits`): a file that asks for more than a limit allows is rejected
//! before the world is built, with the path of the value that crossed it and the limit;
//! the limits are the caller's to set.

use sinew_scene::{SceneLimits, load_str, load_str_with};

fn error(text: &str, limits: &SceneLimits) -> String {
    match load_str_with(text, limits) {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => e.to_string(),
    }
}

fn small() -> SceneLimits {
    let mut l = SceneLimits::default();
    (l.particles, l.constraints, l.colliders, l.rope_segments, l.reel_length) = (10, 3, 2, 50, 100.0);
    l
}

#[test]
fn each_declared_count_is_checked_with_its_path_and_limit() {
    let l = small();
    let p = |n: usize| vec![r#"{"pos":[0,0]}"#; n].join(",");
    let e = error(&format!(r#"{{"dim":2,"particles":[{}]}}"#, p(11)), &l);
    assert_eq!(e, "particles: 11 particles in the scene exceed its limit of 10 (SceneLimits::particles)");
    let d = [r#"{"a":0,"b":1}"#; 2].join(",");
    let t = [r#"{"particle":0,"anchor":1}"#; 2].join(",");
    let e = error(&format!(r#"{{"dim":2,"particles":[{}],"distances":[{d}],"tethers":[{t}]}}"#, p(2)), &l);
    assert_eq!(e, "tethers: 4 constraints in the scene exceed its limit of 3 (SceneLimits::constraints)");
    let c = [r#"{"circle":{"center":[0,0],"radius":1}}"#; 3].join(",");
    let e = error(&format!(r#"{{"dim":2,"colliders":[{c}]}}"#), &l);
    assert!(e.starts_with("colliders: 3 colliders") && e.contains("SceneLimits::colliders"), "{e}");
    // Rope segments over all ropes: the second rope crosses the limit.
    let r = r#"{"points":[[0,0],[1,0]],"segments":30}"#;
    let mut l2 = l;
    l2.particles = 1000;
    let e = error(&format!(r#"{{"dim":2,"ropes":[{r},{r}]}}"#), &l2);
    assert!(e.starts_with("ropes[1].segments: 60 rope segments") && e.contains("limit of 50"), "{e}");
    // From `segment_length`: 1 m at 1 cm is 100 segments.
    let r = r#"{"points":[[0,0],[1,0]],"segment_length":0.01}"#;
    let e = error(&format!(r#"{{"dim":2,"ropes":[{r}]}}"#), &l2);
    assert!(e.starts_with("ropes[0].points: 100 rope segments"), "{e}");
    // A reel: too long, or more segments at its longest than the limit.
    let r = r#"{"points":[[0,0],[1,0]],"segments":10,"reel":[[0,1],[5,1000]]}"#;
    let e = error(&format!(r#"{{"dim":2,"ropes":[{r}]}}"#), &l2);
    assert!(e.starts_with("ropes[0].reel[1][1]: reel length 1000 m") && e.contains("SceneLimits::reel_length"), "{e}");
    let r = r#"{"points":[[0,0],[1,0]],"segments":10,"reel":[[0,1],[5,8]]}"#;
    let e = error(&format!(r#"{{"dim":2,"ropes":[{r}]}}"#), &l2);
    assert!(e.starts_with("ropes[0].segments: 80 rope segments"), "{e}");
}

#[test]
fn what_the_file_does_not_spell_out_is_counted_by_the_world_as_it_is_built() {
    // Two 16-node ragdolls under a limit of 20 particles: the second one is refused.
    let mut l = SceneLimits::default();
    l.particles = 20;
    let dolls = r#"{"preset":"humanoid16","origin":[0,0]},{"preset":"humanoid16","origin":[3,0]}"#;
    let e = error(&format!(r#"{{"dim":2,"ragdolls":[{dolls}]}}"#), &l);
    assert!(e.starts_with("ragdolls[1]: ") && e.contains("particles") && e.contains("limit of 20"), "{e}");
    // The defaults take it.
    assert!(load_str(&format!(r#"{{"dim":2,"ragdolls":[{dolls}]}}"#)).is_ok());
}
