//! The frame report of reeled ropes: every particle that reeling creates gets a global
//! index (after the file's particles and the ropes' first particles) the frame it
//! appears, and keeps it.

use sinew::prelude::*;

/// The `"indices"` array of every rope entry of a frame line.
fn rope_indices(line: &str) -> Vec<Vec<i64>> {
    line.split("\"indices\":[")
        .skip(1)
        .map(|s| {
            s.split(']').next().unwrap().split(',').filter(|t| !t.is_empty()).map(|t| t.parse().unwrap()).collect()
        })
        .collect()
}

#[test]
fn reeled_out_particles_get_global_indices_the_frame_they_appear() {
    let text = r#"{"dim": 2, "particles": [{"pos": [5, 5]}],
        "ropes": [{"points": [[0, 3], [1, 3]], "segments": 10, "mass": 0.1, "pin": ["start"],
                   "reel": [[0.0, 1.0], [1.0, 3.0], [2.0, 2.0]]}]}"#;
    let spec = sinew_scene::parse(text).unwrap();
    let mut sim = sinew_scene::instantiate(&spec).unwrap();
    let mut seen = std::collections::BTreeMap::new(); // global index → first frame
    let mut grew = false;
    for frame in 0..150 {
        let mut line = String::new();
        sim.write_frame_json(&mut line).unwrap();
        let ropes = rope_indices(&line);
        assert_eq!(ropes.len(), 1, "frame {frame}: {line}");
        let idx = &ropes[0];
        grew |= idx.len() > 11;
        // Registered (no −1), distinct, and past the file's one particle.
        assert!(idx.iter().all(|&g| g >= 1), "frame {frame}: {idx:?}");
        let mut sorted = idx.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), idx.len(), "frame {frame}: {idx:?}");
        // Every index reported has a position in the particle list.
        assert!(sim.particle_count() as i64 > *sorted.last().unwrap(), "frame {frame}");
        for &g in idx {
            seen.entry(g).or_insert(frame);
        }
        sim.step().unwrap();
    }
    assert!(grew, "the reel schedule should have added particles");
    // Reeling out from 1 m to 3 m (0.1 m segments) adds about 20 particles, each with a
    // new index past the 1 + 11 initial ones.
    assert!(seen.len() >= 30, "{} indices seen", seen.len());
}

/// `"attach"`: a 10 kg particle of the file as the end node of a light rope hangs without
/// stretching it, keeps its global index (0) as the rope's last index, and a bad index is an
/// error that names the key.
#[test]
fn a_rope_attached_to_a_file_particle_ends_at_it_and_holds_it() {
    let text = r#"{"dim": 2, "particles": [{"pos": [0.05, -1.0], "mass": 10}],
        "ropes": [{"points": [[0, 0], [0, -1]], "segments": 20, "mass": 0.2, "pin": ["start"],
                   "attach": {"end": 0}}]}"#;
    let spec = sinew_scene::parse(text).unwrap();
    let mut sim = sinew_scene::instantiate(&spec).unwrap();
    assert_eq!(sim.particle_count(), 21, "the file's particle and the rope's 20 own ones");
    for _ in 0..120 {
        sim.step().unwrap();
    }
    let mut line = String::new();
    sim.write_frame_json(&mut line).unwrap();
    let idx = &rope_indices(&line)[0];
    assert_eq!((idx.len(), *idx.last().unwrap()), (21, 0), "{idx:?}");
    // The same scene as a typed world: the rope holds the 10 kg without stretching.
    let mut built = sinew_scene::build_typed::<sinew::Space2<f64>>(&spec).unwrap();
    for _ in 0..120 {
        built.world.step(built.dt).unwrap();
    }
    let (world, rope) = (&built.world, built.ropes[0].handle);
    let r = world.rope(rope).unwrap();
    let len: f64 = r
        .particles()
        .windows(2)
        .map(|p| (world.particles().position(p[0]).unwrap() - world.particles().position(p[1]).unwrap()).length())
        .sum();
    assert!(len / r.rest_length() - 1.0 < 1e-3, "stretch {}", len / r.rest_length() - 1.0);

    let bad = text.replace(r#""end": 0"#, r#""end": 3"#);
    let e = sinew_scene::load_str(&bad).err().expect("index out of range").to_string();
    assert!(e.contains("ropes[0].attach.end"), "{e}");
}

/// `"taut"`: a rope over a corner reports `"mode": "taut"` and a `"path"` that bends at the
/// corner (a few points, not its particles); `"never"` reports its particles; a bad value
/// is an error that names the key; a 3D rope over a box edge reports its path too.
#[test]
fn a_taut_rope_reports_its_mode_and_its_path_round_the_corner() {
    let text = r#"{"dim": 2, "particles": [{"pos": [1.0, -2.0], "mass": 10}],
        "colliders": [{"box": {"center": [-0.5, -0.5], "half_extents": [0.5, 0.5]}}],
        "ropes": [{"points": [[-2, 0.5], [0.02, 0.02], [1.0, -2.0]], "segments": 40, "mass": 0.1,
                   "pin": ["start"], "attach": {"end": 0}, "taut": "always"}]}"#;
    let spec = sinew_scene::parse(text).unwrap();
    let mut sim = sinew_scene::instantiate(&spec).unwrap();
    for _ in 0..30 {
        sim.step().unwrap();
    }
    let mut line = String::new();
    sim.write_frame_json(&mut line).unwrap();
    let frame: serde_json::Value = serde_json::from_str(&line).unwrap();
    let rope = &frame["ropes"][0];
    assert_eq!(rope["mode"], "taut", "{line}");
    let path = rope["path"].as_array().unwrap();
    assert!(path.len() >= 3 && path.len() < 20, "start, the corner (a 1 cm arc), the load: {}", path.len());
    assert_eq!((path[0][0].as_f64(), path[0][1].as_f64()), (Some(-2.0), Some(0.5)), "starts at the hook");
    // Every path point is outside the box.
    for p in path {
        let (x, y) = (p[0].as_f64().unwrap(), p[1].as_f64().unwrap());
        assert!(!(x < 0.0 && x > -1.0 && y < 0.0 && y > -1.0), "({x}, {y}) inside the box");
    }
    let slack = text.replace(r#""taut": "always""#, r#""taut": "never""#);
    let mut sim = sinew_scene::instantiate(&sinew_scene::parse(&slack).unwrap()).unwrap();
    sim.step().unwrap();
    let mut line = String::new();
    sim.write_frame_json(&mut line).unwrap();
    let frame: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(frame["ropes"][0]["mode"], "slack");
    assert_eq!(frame["ropes"][0]["path"].as_array().unwrap().len(), 41, "its particles");

    let bad = text.replace(r#""taut": "always""#, r#""taut": "sometimes""#);
    let e = sinew_scene::load_str(&bad).err().expect("bad mode").to_string();
    assert!(e.contains("ropes[0].taut"), "{e}");
    // In 3D the key works the same (a rope over a box's edge).
    let in_3d = r#"{"dim": 3, "particles": [{"pos": [1.0, -2.0, 0.0], "mass": 10}],
        "colliders": [{"box": {"center": [-0.5, -0.5, 0.0], "half_extents": [0.5, 0.5, 0.5]}}],
        "ropes": [{"points": [[-2, 0.5, 0], [0.05, 0.05, 0], [1.0, -2.0, 0]], "segments": 40, "mass": 0.1,
                   "pin": ["start"], "attach": {"end": 0}, "taut": "always"}]}"#;
    let mut sim = sinew_scene::instantiate(&sinew_scene::parse(in_3d).unwrap()).unwrap();
    for _ in 0..30 {
        sim.step().unwrap();
    }
    let mut line = String::new();
    sim.write_frame_json(&mut line).unwrap();
    let frame: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(frame["ropes"][0]["mode"], "taut", "{line}");
    assert_eq!(frame["ropes"][0]["path"].as_array().unwrap().len(), 3, "start, the edge, the load: {line}");
}
