//! The `sinew` command as a user meets it: output format, determinism, and one clear
//! error line (naming the file and the offending path) for every kind of bad input.

use std::path::PathBuf;
use std::process::Command;

fn sinew() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sinew"))
}

fn scenes() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenes")
}

fn temp_scene(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sinew-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn simulate_prints_one_json_line_per_frame_starting_with_the_initial_state() {
    let p = temp_scene(
        "ok.json",
        r#"{"dim": 2, "particles": [{"pos": [0, 0], "mass": 0}, {"pos": [1, 0]}], "distances": [{"a": 0, "b": 1}]}"#,
    );
    let out = sinew().args(["simulate", p.to_str().unwrap(), "--frames", "10"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 11);
    assert!(lines[0].starts_with(r#"{"frame":0,"time":0,"particles":[[0,0],[1,0]],"hash":""#), "{}", lines[0]);
    assert_eq!(lines[0].len(), r#"{"frame":0,"time":0,"particles":[[0,0],[1,0]],"hash":"0123456789abcdef"}"#.len());
    for (i, l) in lines.iter().enumerate() {
        assert!(l.starts_with(&format!("{{\"frame\":{i},")), "{l}");
    }
    // The bob has fallen and stays on its 1 m link.
    let last = lines[10];
    let nums: Vec<f64> = last
        .split("\"particles\":")
        .nth(1)
        .unwrap()
        .split(",\"hash\"")
        .next()
        .unwrap()
        .trim_matches(['[', ']', '}'])
        .split([',', '[', ']'])
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    let (x, y) = (nums[2], nums[3]);
    assert!(y < -0.1 && ((x * x + y * y).sqrt() - 1.0).abs() < 1e-3, "{last}");
}

#[test]
fn every_prints_every_kth_frame_and_the_last() {
    let p = temp_scene("every.json", r#"{"dim": 3, "particles": [{"pos": [0, 0, 0]}]}"#);
    let out = sinew().args(["simulate", p.to_str().unwrap(), "--frames", "25", "--every", "10"]).output().unwrap();
    assert!(out.status.success());
    let frames: Vec<String> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| l.split(',').next().unwrap().to_string()).collect();
    assert_eq!(frames, [r#"{"frame":0"#, r#"{"frame":10"#, r#"{"frame":20"#, r#"{"frame":25"#]);
}

#[test]
fn the_same_scene_run_twice_gives_byte_identical_output() {
    for scene in ["showcase_2d.json", "showcase_3d.json", "rope_on_post_2d.json", "golden_fixed_3d.json"] {
        let p = scenes().join(scene);
        let run = || sinew().args(["simulate", p.to_str().unwrap(), "--frames", "240"]).output().unwrap();
        let (a, b) = (run(), run());
        assert!(a.status.success(), "{scene}: {}", String::from_utf8_lossy(&a.stderr));
        assert!(a.stdout.len() > 1000);
        assert_eq!(a.stdout, b.stdout, "{scene} is not deterministic");
    }
}

#[test]
fn every_bad_input_is_one_clear_error_naming_its_path() {
    let cases: &[(&str, &str, &str)] = &[
        ("bad json", r#"{"dim": 2, "particles": [{"pos": [0, 0]}"#, "EOF while parsing"),
        ("unknown key", r#"{"dim": 2, "gravty": [0, -9.81]}"#, "gravty"),
        ("unknown particle key", r#"{"dim": 2, "particles": [{"pos": [0, 0], "mas": 1}]}"#, "particles[0].mas"),
        ("unknown shape", r#"{"dim": 2, "colliders": [{"circel": {"center": [0, 0], "radius": 1}}]}"#, "colliders[0]"),
        (
            "key of another shape",
            r#"{"dim": 2, "colliders": [{"circle": {"center": [0, 0], "radius": 1, "normal": [0, 1]}}]}"#,
            "colliders[0].circle.normal",
        ),
        (
            "index out of range",
            r#"{"dim": 2, "particles": [{"pos": [0, 0]}], "distances": [{"a": 0, "b": 3}]}"#,
            "distances[0].b",
        ),
        (
            "negative index",
            r#"{"dim": 2, "particles": [{"pos": [0, 0]}], "drivers": [{"particle": -1, "keys": [[0, [0, 0]]]}]}"#,
            "drivers[0].particle",
        ),
        ("negative mass", r#"{"dim": 2, "particles": [{"pos": [0, 0], "mass": -1}]}"#, "particles[0].mass"),
        ("wrong vector length", r#"{"dim": 3, "particles": [{"pos": [0, 0]}]}"#, "particles[0].pos"),
        ("number out of range", r#"{"dim": 2, "particles": [{"pos": [0, 1e999]}]}"#, "particles[0].pos"),
        ("dt zero", r#"{"dim": 2, "dt": 0}"#, "dt"),
        ("dt negative", r#"{"dim": 2, "dt": -0.01}"#, "dt"),
        ("absurd dt", r#"{"dim": 2, "dt": 1000}"#, "dt"),
        ("zero substeps", r#"{"dim": 2, "substeps": 0}"#, "substeps"),
        (
            "zero normal",
            r#"{"dim": 2, "colliders": [{"plane": {"normal": [0, 0], "offset": 1}}]}"#,
            "colliders[0].plane.normal",
        ),
        (
            "zero radius",
            r#"{"dim": 2, "colliders": [{"circle": {"center": [0, 0], "radius": 0}}]}"#,
            "colliders[0].circle.radius",
        ),
        ("missing key", r#"{"dim": 2, "colliders": [{"box": {"center": [0, 0]}}]}"#, "colliders[0].box.half_extents"),
        (
            "non-convex polygon",
            r#"{"dim": 2, "colliders": [{"polygon": {"points": [[0, 0], [2, 0], [1, 0.2], [2, 2], [0, 2]]}}]}"#,
            "colliders[0].polygon.points",
        ),
        (
            "flat hull",
            r#"{"dim": 3, "colliders": [{"hull": {"points": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]}}]}"#,
            "colliders[0].hull.points",
        ),
        (
            "shape of the wrong dimension",
            r#"{"dim": 3, "colliders": [{"circle": {"center": [0, 0, 0], "radius": 1}}]}"#,
            "colliders[0].circle",
        ),
        ("bad dim", r#"{"dim": 4}"#, "dim"),
        ("bad numeric", r#"{"dim": 2, "numeric": "decimal"}"#, "numeric"),
        (
            "unsorted keys",
            r#"{"dim": 2, "particles": [{"pos": [0, 0]}], "drivers": [{"particle": 0, "keys": [[1, [0, 0]], [0.5, [1, 0]]]}]}"#,
            "drivers[0].keys[1][0]",
        ),
        ("restitution above 1", r#"{"dim": 2, "restitution": 1.5}"#, "restitution"),
        (
            "zero quaternion",
            r#"{"dim": 3, "colliders": [{"box": {"center": [0, 0, 0], "half_extents": [1, 1, 1], "rotation": [0, 0, 0, 0]}}]}"#,
            "colliders[0].box.rotation",
        ),
    ];
    for (name, text, path) in cases {
        let p = temp_scene(&format!("bad-{}.json", name.replace(' ', "-")), text);
        let out = sinew().args(["simulate", p.to_str().unwrap()]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{name}: accepted");
        assert!(out.stdout.is_empty(), "{name}: printed frames before failing");
        assert_eq!(err.lines().count(), 1, "{name}: not one line: {err}");
        assert!(err.starts_with("error: "), "{name}: {err}");
        assert!(err.contains(p.to_str().unwrap()), "{name}: file not named: {err}");
        assert!(err.contains(path), "{name}: path `{path}` not named: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    let out = sinew().args(["simulate", "/definitely/not/here.json"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

#[test]
fn rope_frames_report_indices_length_and_tension_and_torn_pieces_separately() {
    let p = temp_scene(
        "rope.json",
        r#"{"dim": 2, "particles": [{"pos": [0, -1.05], "mass": 10}],
            "ropes": [{"points": [[0, 0], [0, -1]], "segments": 10, "mass": 0.1, "pin": ["start"],
                       "tear_tension": 50}],
            "distances": [{"a": 0, "b": 11}]}"#,
    );
    let out = sinew().args(["simulate", p.to_str().unwrap(), "--frames", "60", "--every", "60"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let first = text.lines().next().unwrap();
    // Rope particles come after the file's particle: global indices 1..=11, start to end.
    assert!(first.contains(r#""ropes":[{"indices":[1,2,3,4,5,6,7,8,9,10,11],"length":1"#), "{first}");
    assert!(first.contains(r#""tension":["#));
    // 10 kg pulls ~98 N > 50 N: the rope tears; the pieces are separate entries (or the
    // free end is no longer listed in a rope).
    let last = text.lines().last().unwrap();
    let ropes = last.split(r#""ropes":"#).nth(1).unwrap();
    let listed = ropes.matches("indices").count();
    let total: usize =
        ropes.split("\"indices\":[").skip(1).map(|s| s.split(']').next().unwrap().split(',').count()).sum();
    assert!(listed >= 2 || total < 11, "rope did not tear: {ropes}");
}

#[test]
fn ragdoll_frames_report_global_indices_and_node_names() {
    let p = temp_scene(
        "ragdoll.json",
        r#"{"dim": 2, "particles": [{"pos": [5, 5]}],
            "ropes": [{"points": [[0, 3], [1, 3]], "segments": 2, "pin": ["start"]}],
            "colliders": [{"plane": {"normal": [0, 1], "offset": 0}}],
            "ragdolls": [{"preset": "humanoid16", "origin": [0, 1]}]}"#,
    );
    let out = sinew().args(["simulate", p.to_str().unwrap(), "--frames", "30", "--every", "30"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let last = text.lines().last().unwrap();
    // 1 scene particle, 3 rope particles, then the 16 ragdoll nodes: global 4..=19.
    assert!(
        last.contains(r#""ragdolls":[{"indices":[4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19],"names":["head","#),
        "{last}"
    );
    let particles = last.split(r#""particles":["#).nth(1).unwrap().split("]],").next().unwrap();
    assert_eq!(particles.matches('[').count(), 20);
}

/// `bench --skip K` simulates K frames untimed before the timed ones, and says so; a
/// frame that fails while skipping is reported with its number like a timed one.
#[test]
fn bench_skips_untimed_frames_before_timing() {
    let out = sinew()
        .args(["bench", scenes().join("pendulum_2d.json").to_str().unwrap(), "--frames", "3", "--repeat", "1"])
        .args(["--skip", "5"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("(best of 1 × 3 frames after 5)"), "{text}");
}

#[test]
fn output_is_always_json_a_non_finite_value_is_an_error_never_printed() {
    // Gravity of 10³⁰ m/s² in f32: the rope's tensions overflow to NaN in the first step.
    let p = temp_scene(
        "nan.json",
        r#"{"dim": 2, "gravity": [0, -1e30], "ropes": [{"points": [[0, 0], [1, 0]], "segments": 10, "pin": ["start"]}]}"#,
    );
    let out = sinew().args(["simulate", p.to_str().unwrap(), "--frames", "5"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("frame 1: ropes[0].tension[") && stderr.contains("not printed"), "{stderr}");
    // What was printed before the error is JSON, line by line.
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "the initial frame only");
    for line in stdout.lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
}

/// `simulate --threads N`: the same output for any N (a ragdoll crowd large enough that
/// its tree solves run in parallel shards), and `--threads 0` is an error.
#[test]
fn simulate_output_is_the_same_for_1_2_and_8_threads() {
    let p = scenes().join("bench_1000_ragdolls_2d.json");
    let run = |t: &str| {
        let args = ["simulate", p.to_str().unwrap(), "--frames", "30", "--every", "30", "--threads", t];
        let out = sinew().args(args).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    };
    let one = run("1");
    assert!(one.len() > 1000);
    assert_eq!(one, run("2"), "2 threads");
    assert_eq!(one, run("8"), "8 threads");
    let out = sinew().args(["simulate", p.to_str().unwrap(), "--threads", "0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--threads must be at least 1"));
}

/// `bench` reports its thread count, and `--worlds W` steps W copies (their particles
/// counted together).
#[test]
fn bench_reports_threads_and_steps_copies_with_worlds() {
    let p = scenes().join("pendulum_2d.json");
    let bench = |extra: &[&str]| {
        let out = sinew()
            .args(["bench", p.to_str().unwrap(), "--frames", "3", "--repeat", "1", "--no-stages"])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let one = bench(&["--threads", "1"]);
    assert!(one.contains(", 1 thread:"), "{one}");
    let four = bench(&["--threads", "2", "--worlds", "4"]);
    assert!(four.contains(" × 4 worlds:") && four.contains(", 2 threads:"), "{four}");
    let count = |t: &str| t.split(" particles").next().unwrap().rsplit(' ').next().unwrap().parse::<usize>().unwrap();
    assert_eq!(count(&four), 4 * count(&one), "{one}{four}");
}
