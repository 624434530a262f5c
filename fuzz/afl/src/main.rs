//! AFL++ target: one input is one scene file, run through the loader and 12 frames of the
//! step with the promises of `crates/sinew-scene/tests/suite/fuzz.rs`'s `run_case`: a
//! rejection carries a message, each step is `Ok` or an error with a message, every frame
//! line is valid JSON, every position finite. A broken promise panics, which AFL++ records
//! as a crash (`cargo afl` builds with `panic = abort` semantics for the fuzz loop).
//!
//! Build and run (docs/RELIABILITY.md, "Fuzzing"):
//! `cargo afl build --release --manifest-path fuzz/afl/Cargo.toml` then
//! `cargo afl fuzz -i crates/sinew-scene/fuzz/afl-corpus -o target/afl -x fuzz/afl/scene.dict
//! fuzz/afl/target/release/sinew-fuzz-afl`.

use sinew_scene::SceneLimits;

/// The generative fuzzer's limits: small enough that hostile counts are refused at once,
/// so a case's cost is bounded and AFL++'s time goes into coverage, not into big scenes.
fn limits() -> SceneLimits {
    let mut l = SceneLimits::default();
    (l.particles, l.constraints, l.colliders, l.rope_segments, l.reel_length) = (5000, 20_000, 200, 3000, 100.0);
    l
}

fn run_case(text: &str) {
    let mut sim = match sinew_scene::load_str_with(text, &limits()) {
        Ok(sim) => sim,
        Err(e) => {
            assert!(!e.message.trim().is_empty(), "an error without a message");
            return;
        }
    };
    let mut line = String::new();
    for _ in 0..12 {
        if let Err(e) = sim.step() {
            assert!(!e.to_string().trim().is_empty(), "a step error without a message");
            return;
        }
        line.clear();
        if sim.write_frame_json(&mut line).is_ok() {
            if let Err(e) = serde_json::from_str::<serde_json::Value>(&line) {
                panic!("frame line is not JSON ({e}): {line}");
            }
        }
        for p in sim.positions() {
            assert!(p.iter().all(|c| c.is_finite()), "non-finite position {p:?}");
        }
    }
}

fn main() {
    afl::fuzz!(|data: &[u8]| {
        // Scene files are text; other bytes are refused before the parser sees them.
        if let Ok(text) = std::str::from_utf8(data) {
            run_case(text);
        }
    });
}
