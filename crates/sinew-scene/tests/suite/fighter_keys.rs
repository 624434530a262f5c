//! The `fighters` and `fight_moves` keys (issue 22): the example scenes run with hits on
//! both sides in their frame lines, and bad fighter keys are errors naming their path.

use std::path::PathBuf;

fn scenes() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenes")
}

/// Runs a scene file for `frames` and counts the hits by attacker in its frame lines,
/// checking each line's `fighters` entries.
fn hits_in(name: &str, frames: usize) -> [usize; 2] {
    let mut sim = sinew_scene::load_file(&scenes().join(name)).unwrap();
    let mut hits = [0usize; 2];
    let mut line = String::new();
    for _ in 0..frames {
        sim.step().unwrap();
        line.clear();
        sim.write_frame_json(&mut line).unwrap();
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        let fighters = v["fighters"].as_array().expect("a fighters array");
        assert_eq!(fighters.len(), 2);
        for f in fighters {
            assert!(["fighting", "hit", "knocked_out", "getting_up"].contains(&f["state"].as_str().unwrap()));
            assert!(!f["indices"].as_array().unwrap().is_empty());
        }
        for h in v["hits"].as_array().expect("a hits array") {
            let a = h["attacker"].as_u64().unwrap() as usize;
            assert_eq!(h["target"].as_u64().unwrap() as usize, 1 - a);
            assert!(h["force"].as_f64().unwrap() > 0.0);
            assert!(!h["part"].as_str().unwrap().is_empty());
            hits[a] += 1;
        }
    }
    hits
}

#[test]
fn the_fighter_scenes_exchange_hits() {
    for name in ["fighters_2d.json", "fighters_3d.json", "golden_fixed_fighters_2d.json"] {
        let hits = hits_in(name, 1200);
        println!("{name}: hits by attacker in 20 s {hits:?}");
        assert!(hits[0] > 0 && hits[1] > 0, "{name}: {hits:?}");
    }
}

#[test]
fn bad_fighter_keys_name_their_path() {
    let base = |f: &str, extra: &str| {
        format!(
            r#"{{"dim": 2, "fighters": [{{"rig": "humanoid16", "origin": [0, 0], "facing": [1, 0]}}, {f}]{extra}}}"#
        )
    };
    let ok = r#"{"rig": "humanoid16", "origin": [0.6, 0], "facing": [-1, 0]}"#;
    let cases = [
        (base(r#"{"rig": "humanoid3d", "origin": [0.6, 0], "facing": [-1, 0]}"#, ""), "fighters[1].rig"),
        (
            base(r#"{"rig": "humanoid16", "origin": [0.6, 0], "facing": [-1, 0], "moves": ["uppercut"]}"#, ""),
            "fighters[1].moves[0]",
        ),
        (
            base(r#"{"rig": "humanoid16", "origin": [0.6, 0], "facing": [-1, 0], "ko_threshold": -3}"#, ""),
            "fighters[1].ko_threshold",
        ),
        (
            base(
                ok,
                r#", "fight_moves": [{"name": "x", "keys": [{"t": 0, "targets": {}}], "strike": {"effector": "elbow", "window": [0, 0.1], "speed": 5}}]"#,
            ),
            "fight_moves[0].strike.effector",
        ),
        (base(ok, r#", "fight_moves": [{"name": "x", "keys": [{"t": 0.1, "targets": {}}]}]"#), "fight_moves[0]"),
        (
            r#"{"dim": 2, "fighters": [{"rig": "humanoid16", "origin": [0, 0], "facing": [1, 0]}]}"#.to_owned(),
            "fighters",
        ),
    ];
    for (text, path) in cases {
        let spec = sinew_scene::parse(&text).unwrap();
        let e = sinew_scene::instantiate(&spec).err().unwrap_or_else(|| panic!("{text} built"));
        println!("{}: {}", e.path, e.message);
        assert_eq!(e.path, path, "{text}");
    }
}
