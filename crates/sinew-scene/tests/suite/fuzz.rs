//! Structure-aware fuzzing of the scene loader and the step, on the stable toolchain.
//!
//! A deterministic generator (xorshift, seeded per case) writes whole scene files from
//! the format's grammar — dimension, number type, settings, particles, constraints,
//! colliders of every shape, drivers, ropes with wind, drag, reels, pins and
//! attachments, ragdolls with impulses, fighters with their moves, a brachiator — drawing each number from ordinary values most of
//! the time and from hostile ones (0, negative, huge, tiny, ±1e300, just past a limit)
//! otherwise. Each case must load with an error that has a message, or run its frames
//! with every step either `Ok` or an error, every frame line valid JSON (or an error),
//! and every position finite. A panic is a failure: the case is written to
//! `fuzz/crashes/` (kept as a regression: every file there and in `fuzz/corpus/` is
//! replayed by [`committed_corpus_and_crashes_replay_clean`]).
//!
//! This is generation, not coverage guidance (no instrumented build, which stable Rust's
//! test harness cannot drive without cargo-fuzz or AFL). Budget: `SINEW_FUZZ_SECONDS`
//! (default 2 s, so `cargo test` stays fast; `.ci/run` gives it 60 s), starting at seed
//! `SINEW_FUZZ_SEED` (default 1) so a run is reproducible; `SINEW_FUZZ_SAVE=1` writes
//! every case whose outcome class is new to `fuzz/corpus/` (how the corpus was made).

use serde_json::{Value, json};
use sinew::{Real, Vector as _};
use sinew_scene::SceneLimits;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// xorshift64*.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    /// A number: ordinary (within `lo..hi`) 97 % of the time, else hostile (a scene holds
    /// dozens of numbers: about half the scenes hold a hostile one).
    fn num(&mut self, lo: f64, hi: f64) -> f64 {
        if self.chance(97) {
            return self.range(lo, hi);
        }
        const HOSTILE: [f64; 14] =
            [0.0, -1.0, 1e-300, -1e-300, 1e300, -1e300, 1e-40, 1e-12, 1e9, 3e4, -3e4, 1e18, 65536.0, 0.5];
        HOSTILE[self.below(HOSTILE.len())]
    }
    fn vec(&mut self, dim: usize, lo: f64, hi: f64) -> Value {
        Value::from((0..dim).map(|_| self.num(lo, hi)).collect::<Vec<_>>())
    }
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        if self.chance(95) {
            lo + self.below((hi - lo + 1) as usize) as i64
        } else {
            [0, -1, 1 << 20, i64::from(i32::MAX), 100_001][self.below(5)]
        }
    }
}

fn shape(r: &mut Rng, dim: usize) -> Value {
    let kinds: &[&str] = if dim == 2 {
        &["circle", "plane", "box", "capsule", "polygon"]
    } else {
        &["sphere", "plane", "box", "capsule", "hull"]
    };
    let kind = kinds[r.below(kinds.len())];
    let mut body = serde_json::Map::new();
    match kind {
        "circle" | "sphere" => {
            body.insert("center".into(), r.vec(dim, -5.0, 5.0));
            body.insert("radius".into(), r.num(0.05, 2.0).into());
        }
        "plane" => {
            let mut n = vec![0.0; dim];
            n[1] = 1.0;
            n[0] = r.num(-0.5, 0.5);
            body.insert("normal".into(), n.into());
            body.insert("offset".into(), r.num(-1.0, 0.0).into());
        }
        "box" => {
            body.insert("center".into(), r.vec(dim, -5.0, 5.0));
            body.insert("half_extents".into(), r.vec(dim, 0.01, 3.0));
            if dim == 2 {
                body.insert("angle".into(), r.num(-3.0, 3.0).into());
            } else {
                body.insert("rotation".into(), r.vec(4, -1.0, 1.0));
            }
        }
        "capsule" => {
            body.insert("a".into(), r.vec(dim, -20.0, 20.0));
            body.insert("b".into(), r.vec(dim, -20.0, 20.0));
            body.insert("radius".into(), r.num(0.01, 1.0).into());
        }
        _ => {
            let n = 3 + r.below(if dim == 2 { 6 } else { 10 });
            let pts: Vec<Value> = (0..n)
                .map(|i| {
                    let a = i as f64 / n as f64 * std::f64::consts::TAU;
                    let rad = r.num(0.5, 2.0);
                    let mut p = vec![rad * a.cos(), rad * a.sin()];
                    if dim == 3 {
                        p.push(r.num(-1.0, 1.0));
                    }
                    Value::from(p)
                })
                .collect();
            body.insert("points".into(), pts.into());
            body.insert("position".into(), r.vec(dim, -5.0, 5.0));
        }
    }
    if r.chance(20) {
        body.insert("friction".into(), r.num(0.0, 1.0).into());
    }
    if r.chance(10) {
        body.insert("restitution".into(), r.num(0.0, 1.0).into());
    }
    json!({ kind: body })
}

fn rope(r: &mut Rng, dim: usize, file_particles: usize) -> Value {
    let mut o = serde_json::Map::new();
    let pts: Vec<Value> = (0..2 + r.below(3)).map(|_| r.vec(dim, -4.0, 4.0)).collect();
    o.insert("points".into(), pts.into());
    if r.chance(70) {
        o.insert("segments".into(), r.int(1, 120).into());
    } else {
        o.insert("segment_length".into(), r.num(0.02, 0.5).into());
    }
    o.insert("mass".into(), r.num(0.01, 5.0).into());
    if r.chance(60) {
        o.insert("pin".into(), json!(["start"]));
    }
    if r.chance(30) {
        o.insert("wind".into(), r.vec(dim, -20.0, 20.0));
        o.insert("drag".into(), r.num(0.0, 50.0).into());
    }
    if r.chance(20) {
        let l0 = r.num(0.5, 5.0);
        o.insert("reel".into(), json!([[0.0, l0], [r.num(0.1, 2.0), r.num(0.2, 20.0)]]));
    }
    if r.chance(20) {
        o.insert("bend_compliance".into(), r.num(0.0, 1.0).into());
    }
    if r.chance(15) {
        o.insert("tear_tension".into(), r.num(1.0, 500.0).into());
    }
    if r.chance(15) {
        o.insert("velocity".into(), r.vec(dim, -30.0, 30.0));
    }
    if r.chance(15) && file_particles > 0 {
        o.insert("attach".into(), json!({ "end": r.below(file_particles + 1) }));
    }
    if r.chance(10) {
        o.insert("compliance".into(), r.num(0.0, 0.01).into());
    }
    Value::Object(o)
}

/// One scene file from the grammar.
fn scene(seed: u64) -> Value {
    scene_in(seed, None)
}

/// One scene file from the grammar, in `dim` dimensions if given.
fn scene_in(seed: u64, dim: Option<usize>) -> Value {
    let r = &mut Rng::new(seed);
    let dim = dim.unwrap_or(2 + r.below(2));
    let numeric = ["float", "f64", "fixed"][r.below(3)];
    let mut o = serde_json::Map::new();
    o.insert("dim".into(), dim.into());
    o.insert("numeric".into(), numeric.into());
    if r.chance(30) {
        o.insert("gravity".into(), r.vec(dim, -20.0, 5.0));
    }
    if r.chance(20) {
        o.insert("dt".into(), r.num(0.001, 0.05).into());
    }
    if r.chance(30) {
        o.insert("substeps".into(), r.int(1, 12).into());
    }
    if r.chance(15) {
        o.insert("iterations".into(), r.int(1, 4).into());
    }
    for key in ["damping", "friction", "restitution"] {
        if r.chance(15) {
            o.insert(key.into(), r.num(0.0, 1.0).into());
        }
    }
    let n = r.below(12);
    let particles: Vec<Value> = (0..n)
        .map(|_| {
            let mut p = serde_json::Map::new();
            p.insert("pos".into(), r.vec(dim, -5.0, 5.0));
            if r.chance(40) {
                p.insert("mass".into(), r.num(0.0, 10.0).into());
            }
            if r.chance(30) {
                p.insert("vel".into(), r.vec(dim, -20.0, 20.0));
            }
            if r.chance(30) {
                p.insert("radius".into(), r.num(0.0, 0.3).into());
            }
            Value::Object(p)
        })
        .collect();
    o.insert("particles".into(), particles.into());
    let ropes: Vec<Value> = (0..r.below(3)).map(|_| rope(r, dim, n)).collect();
    o.insert("ropes".into(), ropes.into());
    if r.chance(40) {
        let preset = if dim == 2 { "humanoid16" } else { "humanoid3d" };
        let dolls: Vec<Value> = (0..1 + r.below(2))
            .map(|_| {
                let mut d = serde_json::Map::new();
                d.insert("preset".into(), preset.into());
                d.insert("origin".into(), r.vec(dim, -3.0, 3.0));
                if r.chance(20) {
                    d.insert("scale".into(), r.num(0.2, 3.0).into());
                }
                if r.chance(30) {
                    d.insert("velocity".into(), r.vec(dim, -10.0, 10.0));
                }
                if dim == 3 && r.chance(30) {
                    d.insert("rotation".into(), r.vec(4, -1.0, 1.0));
                }
                if dim == 2 && r.chance(20) {
                    d.insert("muscles".into(), true.into());
                }
                if r.chance(20) {
                    d.insert(
                        "impulse".into(),
                        json!({ "at": r.vec(dim, -2.0, 2.0), "impulse": r.vec(dim, -200.0, 200.0) }),
                    );
                }
                Value::Object(d)
            })
            .collect();
        o.insert("ragdolls".into(), dolls.into());
    }
    let total = n + 40; // indices past the particles are errors the loader must name
    let idx = |r: &mut Rng| r.below(total) as i64 - i64::from(r.chance(3));
    let distances: Vec<Value> = (0..r.below(6)).map(|_| json!({ "a": idx(r), "b": idx(r) })).collect();
    o.insert("distances".into(), distances.into());
    if r.chance(20) {
        o.insert("tethers".into(), json!([{ "particle": idx(r), "anchor": idx(r) }]));
    }
    if r.chance(15) {
        o.insert("attachments".into(), json!([{ "particle": idx(r), "target": r.vec(dim, -3.0, 3.0) }]));
    }
    if r.chance(15) {
        o.insert("bendings".into(), json!([{ "a": idx(r), "b": idx(r), "c": idx(r) }]));
    }
    let colliders: Vec<Value> = (0..r.below(5)).map(|_| shape(r, dim)).collect();
    o.insert("colliders".into(), colliders.into());
    if r.chance(20) && n > 0 {
        let keys: Vec<Value> = (0..1 + r.below(4)).map(|k| json!([k as f64 * 0.1, r.vec(dim, -3.0, 3.0)])).collect();
        o.insert("drivers".into(), json!([{ "particle": r.below(n), "keys": keys, "release": r.chance(50) }]));
    }
    if r.chance(8) {
        fighters(r, dim, &mut o);
    }
    if r.chance(6) {
        o.insert("brachiator".into(), brachiator(r, dim));
    }
    Value::Object(o)
}

/// Two fighters (now and then none, one, or more than the limit), their move lists and
/// the bout's keys, with a made-up move in the library now and then.
fn fighters(r: &mut Rng, dim: usize, o: &mut serde_json::Map<String, Value>) {
    let rig = if dim == 2 { "humanoid16" } else { "humanoid3d" };
    let count = if r.chance(95) { 2 } else { [0, 1, 3, 17][r.below(4)] };
    let names = ["stance", "guard", "jab", "cross", "hook", "kick", "block", "hit_react", "uppercut", ""];
    let list: Vec<Value> = (0..count)
        .map(|i| {
            let side = if i % 2 == 0 { -1.0 } else { 1.0 };
            let mut f = serde_json::Map::new();
            let rig = if r.chance(95) { rig } else { ["humanoid3d", "humanoid16", "octopus"][r.below(3)] };
            f.insert("rig".into(), rig.into());
            let mut origin = vec![0.3 * side; dim];
            origin[1] = 0.0;
            if r.chance(10) {
                origin[0] = r.num(-3.0, 3.0);
            }
            f.insert("origin".into(), origin.into());
            let mut facing = vec![0.0; dim];
            facing[0] = -side;
            f.insert("facing".into(), if r.chance(90) { facing.into() } else { r.vec(dim, -1.0, 1.0) });
            if r.chance(50) {
                f.insert("moves".into(), json!({ "random": r.int(0, 1000) }));
            } else {
                let moves: Vec<Value> = (0..r.below(5)).map(|_| names[r.below(names.len())].into()).collect();
                f.insert("moves".into(), moves.into());
            }
            if r.chance(30) {
                f.insert("ko_threshold".into(), r.num(1.0, 300.0).into());
            }
            Value::Object(f)
        })
        .collect();
    o.insert("fighters".into(), list.into());
    if r.chance(30) {
        o.insert("fight_seed".into(), r.int(0, 1 << 20).into());
    }
    if r.chance(30) {
        o.insert("fight_collide".into(), r.chance(50).into());
    }
    if r.chance(20) {
        let keys: Vec<Value> = (0..r.below(4))
            .map(|k| json!({ "t": r.num(0.0, 0.6) * k as f64, "targets": { "upper_arm_r": r.num(-180.0, 180.0), "forearm_r": r.num(-180.0, 180.0) } }))
            .collect();
        let mut m = json!({ "name": "uppercut", "keys": keys });
        if r.chance(70) {
            let effector = ["hand_r", "hand_l", "foot_r", "foot_l", "tail"][r.below(5)];
            m["strike"] = json!({
                "effector": effector,
                "window": [r.num(0.0, 0.3), r.num(0.1, 0.6)],
                "speed": r.num(0.5, 12.0),
                "area": r.num(0.001, 0.02),
            });
        }
        if r.chance(30) {
            m["lunge"] = r.num(0.0, 0.3).into();
        }
        o.insert("fight_moves".into(), json!([m]));
    }
}

/// A brachiator on a generated or explicit course (in 3D an error the loader must name).
fn brachiator(r: &mut Rng, dim: usize) -> Value {
    let course = if r.chance(60) {
        json!({ "seed": r.int(0, 1 << 20), "length": r.num(1.0, 60.0) })
    } else {
        let branches: Vec<Value> = (0..r.below(5))
            .map(
                |k| json!({ "from": r.vec(dim, -1.0, 1.0), "to": [k as f64 * 2.0 + r.num(0.5, 2.0), r.num(1.5, 3.0)] }),
            )
            .collect();
        json!({ "branches": branches, "spacing": r.num(0.2, 2.0) })
    };
    let mut b = json!({ "course": course });
    if r.chance(30) {
        b["speed"] = json!([r.num(0.5, 3.0), r.num(3.0, 12.0)]);
    }
    if r.chance(30) {
        b["planner"] = (if r.chance(90) { ["ballistic", "sine"][r.below(2)] } else { "genetic" }).into();
    }
    if r.chance(30) {
        b["seed"] = r.int(0, 1 << 20).into();
    }
    if r.chance(30) {
        b["arm"] = r.num(0.2, 3.0).into();
    }
    b
}

/// Limits small enough that hostile counts are refused at once.
fn limits() -> SceneLimits {
    let mut l = SceneLimits::default();
    (l.particles, l.constraints, l.colliders, l.rope_segments, l.reel_length) = (5000, 20_000, 200, 3000, 100.0);
    l
}

/// How a case ended, for the corpus' outcome classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Rejected,
    StepError,
    Ran,
}

/// Runs one scene text; panics (the failure) on a broken promise.
fn run_case(text: &str, frames: u32) -> (Outcome, String) {
    let mut sim = match sinew_scene::load_str_with(text, &limits()) {
        Ok(sim) => sim,
        Err(e) => {
            assert!(!e.message.trim().is_empty(), "an error without a message");
            return (Outcome::Rejected, e.path.split(['[', '.']).next().unwrap_or("").to_string());
        }
    };
    let mut line = String::new();
    for _ in 0..frames {
        if let Err(e) = sim.step() {
            assert!(!e.to_string().trim().is_empty(), "a step error without a message");
            return (Outcome::StepError, e.path);
        }
        line.clear();
        if sim.write_frame_json(&mut line).is_ok() {
            serde_json::from_str::<Value>(&line).unwrap_or_else(|e| panic!("frame line is not JSON ({e}): {line}"));
        }
        for p in sim.positions() {
            assert!(p.iter().all(|c| c.is_finite()), "non-finite position {p:?}");
        }
    }
    (Outcome::Ran, format!("{}{}", sim.dim(), sim.numeric()))
}

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

#[test]
fn generated_scenes_load_with_an_error_or_run_clean() {
    let budget = Duration::from_secs(env_u64("SINEW_FUZZ_SECONDS", 2));
    let first = env_u64("SINEW_FUZZ_SEED", 1);
    let save = std::env::var("SINEW_FUZZ_SAVE").is_ok_and(|s| s == "1");
    let start = Instant::now();
    let mut counts = [0usize; 3];
    let mut classes = std::collections::BTreeSet::new();
    let mut seed = first;
    while start.elapsed() < budget {
        let text = serde_json::to_string_pretty(&scene(seed)).unwrap();
        let t0 = Instant::now();
        let result = std::panic::catch_unwind(|| run_case(&text, 12));
        if t0.elapsed() > Duration::from_millis(500) {
            println!("fuzz: seed {seed} took {:.1} s", t0.elapsed().as_secs_f64());
        }
        match result {
            Ok((outcome, class)) => {
                counts[outcome as usize] += 1;
                if save && classes.insert((outcome, class.clone())) {
                    let dir = fuzz_dir().join("corpus");
                    std::fs::create_dir_all(&dir).unwrap();
                    std::fs::write(dir.join(format!("seed-{seed}.json")), &text).unwrap();
                }
            }
            Err(panic) => {
                let dir = fuzz_dir().join("crashes");
                std::fs::create_dir_all(&dir).unwrap();
                let path = dir.join(format!("seed-{seed}.json"));
                std::fs::write(&path, &text).unwrap();
                std::panic::resume_unwind(Box::new(format!(
                    "seed {seed}: {:?}; the case is in {} (commit it: it becomes a regression test)",
                    panic.downcast_ref::<String>().map(String::as_str).or(panic.downcast_ref::<&str>().copied()),
                    path.display()
                )));
            }
        }
        seed += 1;
    }
    let n = seed - first;
    println!(
        "fuzz: {n} scenes in {:.1} s (seeds {first}..{seed}): {} rejected, {} stopped by a step error, {} ran 12 frames",
        start.elapsed().as_secs_f64(),
        counts[0],
        counts[1],
        counts[2]
    );
    assert!(n >= 20, "only {n} cases in the budget");
    // The generator reaches both sides: files the loader refuses and files that run.
    assert!(counts[0] > 0 && counts[2] > 0, "{counts:?}");
}

/// What [`run_actions`] needs of a space beyond the library's `Space`: random rotations
/// (hostile now and then) and joint limits.
trait FuzzSpace: sinew_scene::SceneSpace {
    fn rotation(r: &mut Rng) -> sinew::RotOf<Self>;
    fn joint_limit(r: &mut Rng, p: [sinew::ParticleHandle; 3]) -> <Self::JointLimit as sinew::JointLimit<Self>>::Def;
}

impl<R: sinew_scene::SceneReal> FuzzSpace for sinew::Space2<R> {
    fn rotation(r: &mut Rng) -> sinew::RotOf<Self> {
        sinew::Rot2::from_angle(R::from_f64(r.num(-7.0, 7.0)))
    }
    fn joint_limit(r: &mut Rng, p: [sinew::ParticleHandle; 3]) -> sinew::AngleLimitDef<R> {
        let (lo, hi) = (r.num(-4.0, 1.0), r.num(-1.0, 4.0));
        sinew::AngleLimitDef::new(p[0], p[1], p[2], R::from_f64(lo), R::from_f64(hi))
            .compliance(R::from_f64(if r.chance(70) { 0.0 } else { r.num(0.0, 1.0) }))
    }
}

impl<R: sinew_scene::SceneReal> FuzzSpace for sinew::Space3<R> {
    fn rotation(r: &mut Rng) -> sinew::RotOf<Self> {
        let c: Vec<R> = (0..4).map(|_| R::from_f64(r.num(-1.0, 1.0))).collect();
        sinew::Quat::from_xyzw(c[0], c[1], c[2], c[3])
    }
    fn joint_limit(r: &mut Rng, p: [sinew::ParticleHandle; 3]) -> sinew::SwingTwistLimitDef<R> {
        sinew::SwingTwistLimitDef::new(p[0], p[1], p[2], R::from_f64(r.num(0.0, 4.0)))
            .compliance(R::from_f64(if r.chance(70) { 0.0 } else { r.num(0.0, 1.0) }))
    }
}

/// A generated scene built as a typed world in `S`'s dimension, then driven by a
/// generated sequence of API calls between steps: impulses, forces, reel lengths,
/// removals, cuts, grabs, collider poses, joint limits added and removed mid-run,
/// snapshots and restores, and steps of ordinary and hostile lengths. Every call returns
/// `Ok` or an error; no panic, positions finite. Returns whether the scene was built.
fn run_actions<S: FuzzSpace>(seed: u64) -> bool {
    use sinew::{RopeEnd, RopePoint};
    let text = serde_json::to_string(&scene_in(seed, Some(<S as sinew::BaseSpace>::DIM))).unwrap();
    let Ok(spec) = sinew_scene::parse(&text) else { return false };
    let Ok(mut scene) = sinew_scene::build_typed_with::<S>(&spec, &limits()) else { return false };
    let w = &mut scene.world;
    let r = &mut Rng::new(seed ^ 0xac71_0a5e);
    let real = |x: f64| sinew::RealOf::<S>::from_f64(x);
    let mut saved = w.snapshot();
    for k in 0..40 {
        let handles: Vec<_> = w.particles().handles().collect();
        let ropes: Vec<_> = w.ropes().map(|(h, _)| h).collect();
        let colliders: Vec<_> = w.colliders().map(|(h, _)| h).collect();
        let limits: Vec<_> = w.joint_limits().map(|(h, _)| h).collect();
        let pick = |r: &mut Rng, n: usize| r.below(n.max(1));
        let v = sinew::VecOf::<S>::from_f64_slice(&[r.num(-50.0, 50.0), r.num(-50.0, 50.0), r.num(-50.0, 50.0)]);
        let _ = match r.below(13) {
            0..=2 => {
                let dt = [1.0 / 60.0, 1.0 / 60.0, 1.0 / 30.0, 0.0, -1.0, f64::NAN, 1e9, 1e-9][r.below(8)];
                w.step(real(dt)).map(|_| ())
            }
            3 if !handles.is_empty() => w.particles_mut().apply_impulse(handles[pick(r, handles.len())], v),
            4 if !handles.is_empty() => w.particles_mut().apply_force(handles[pick(r, handles.len())], v * real(100.0)),
            5 if !ropes.is_empty() => {
                let end = if r.chance(50) { RopeEnd::Start } else { RopeEnd::End };
                w.set_rope_length(ropes[pick(r, ropes.len())], end, real(r.num(0.01, 8.0)))
            }
            6 if !handles.is_empty() => w.remove_particle(handles[pick(r, handles.len())]),
            7 if !ropes.is_empty() => w.cut_rope(ropes[pick(r, ropes.len())], r.below(150)).map(|_| ()),
            8 if !ropes.is_empty() => {
                w.grab_rope(ropes[pick(r, ropes.len())], RopePoint::Index(r.below(150))).map(|_| ())
            }
            9 => {
                if r.chance(50) {
                    saved = w.snapshot();
                } else {
                    w.restore(&saved);
                }
                Ok(())
            }
            10 if !colliders.is_empty() => {
                let at = sinew::VecOf::<S>::from_f64_slice(&[r.num(-5.0, 5.0), r.num(-5.0, 5.0), r.num(-5.0, 5.0)]);
                w.set_collider_pose(colliders[pick(r, colliders.len())], at, S::rotation(r))
            }
            11 if handles.len() >= 3 => {
                let p = [0, 1, 2].map(|_| handles[pick(r, handles.len())]);
                w.add_joint_limit(&S::joint_limit(r, p)).map(|_| ())
            }
            12 if !limits.is_empty() => w.remove_joint_limit(limits[pick(r, limits.len())]),
            _ => Ok(()),
        };
        for p in w.particles().positions() {
            assert!(p.is_finite(), "seed {seed}, call {k}: non-finite position");
        }
    }
    true
}

#[test]
fn generated_api_calls_between_steps_give_errors_or_run_clean() {
    let budget = Duration::from_secs(env_u64("SINEW_FUZZ_SECONDS", 2));
    let first = env_u64("SINEW_FUZZ_SEED", 1);
    let start = Instant::now();
    let (mut seed, mut built) = (first, 0);
    while start.elapsed() < budget {
        for numeric in 0..4 {
            let result = std::panic::catch_unwind(|| match numeric {
                0 => run_actions::<sinew::Space2<f32>>(seed),
                1 => run_actions::<sinew::Space2<sinew::Fx>>(seed),
                2 => run_actions::<sinew::Space3<f32>>(seed),
                _ => run_actions::<sinew::Space3<sinew::Fx>>(seed),
            });
            built += usize::from(matches!(result, Ok(true)));
            if let Err(panic) = result {
                let dir = fuzz_dir().join("crashes");
                std::fs::create_dir_all(&dir).unwrap();
                let path =
                    dir.join(format!("actions-{}-seed-{seed}.txt", ["f32", "fixed", "f32-3d", "fixed-3d"][numeric]));
                std::fs::write(&path, format!("run_actions seed {seed}\n")).unwrap();
                std::panic::resume_unwind(Box::new(format!(
                    "actions seed {seed}: {:?} (noted in {})",
                    panic.downcast_ref::<String>().map(String::as_str).or(panic.downcast_ref::<&str>().copied()),
                    path.display()
                )));
            }
        }
        seed += 1;
    }
    let n = seed - first;
    println!(
        "fuzz (API calls): {n} scenes x 2 number types x 2 dimensions in {:.1} s, {built} built and driven",
        start.elapsed().as_secs_f64()
    );
    assert!(n >= 10 && built > 0, "{n} scenes, {built} built");
}

#[test]
fn committed_corpus_and_crashes_replay_clean() {
    let mut files = Vec::new();
    for sub in ["corpus", "crashes"] {
        if let Ok(dir) = std::fs::read_dir(fuzz_dir().join(sub)) {
            files.extend(dir.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "json")));
        }
    }
    files.sort();
    assert!(files.len() >= 10, "the committed corpus is in crates/sinew-scene/fuzz/corpus ({} files)", files.len());
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let outcome = std::panic::catch_unwind(|| run_case(&text, 12));
        assert!(outcome.is_ok(), "{} fails", f.display());
    }
    // API-call cases are kept by seed (`actions-f32-seed-17.txt`, `actions-fixed-3d-seed-4.txt`).
    if let Ok(dir) = std::fs::read_dir(fuzz_dir().join("crashes")) {
        for f in dir.map(|e| e.unwrap().path()) {
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            let Some(rest) = name.strip_prefix("actions-") else { continue };
            let seed: u64 = rest.rsplit("seed-").next().unwrap().trim_end_matches(".txt").parse().unwrap();
            let three = rest.contains("-3d-");
            match (rest.starts_with("f32"), three) {
                (true, false) => run_actions::<sinew::Space2<f32>>(seed),
                (false, false) => run_actions::<sinew::Space2<sinew::Fx>>(seed),
                (true, true) => run_actions::<sinew::Space3<f32>>(seed),
                (false, true) => run_actions::<sinew::Space3<sinew::Fx>>(seed),
            };
        }
    }
}
