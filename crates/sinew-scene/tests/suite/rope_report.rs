//! The frame report of reeled ropes: every particle that reeling creates gets a global
//! index (after the file's particles and the ropes' first particles) the frame it
//! appears, and keeps it.

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
        sim.write_frame_json(&mut line);
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
