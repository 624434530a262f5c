//! Cross-build determinism: fixed-point golden hashes, and every scene running in fixed
//! point.
//!
//! The golden hashes are asserted twice: here, from the scene files, and by the core
//! crate's `crates/sinew/tests/golden.rs`, which builds the same five scenes in code and
//! which CI also runs in other builds (unoptimised; `-C target-cpu=native` with FMA), each
//! of which must reproduce the committed hashes exactly. A change to the solver that
//! changes results must update them deliberately, in both files.

use std::path::PathBuf;

fn scenes() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenes")
}

fn hash_after(name: &str, frames: u64) -> u64 {
    let mut sim = sinew_scene::load_file(&scenes().join(name)).unwrap();
    assert_eq!(sim.numeric(), "fixed");
    for _ in 0..frames {
        sim.step().unwrap();
    }
    sim.state_hash()
}

/// Committed results of 1000 frames. Recompute with
/// `sinew simulate scenes/golden_fixed_2d.json --frames 1000 --every 1000`.
const GOLDEN_2D: u64 = 0x14cb_b824_74d0_435f;
const GOLDEN_3D: u64 = 0x0265_2018_3e70_6fb7;
/// Re-recorded when ropes held by two fixed particles were solved to 10⁻⁷ instead of
/// 10⁻³ (`rope::solve::HELD_TOLERANCE`): the scene's pinned rope. Re-recorded again when
/// the taut rope's length constraint moved its ends along their spans' directions at the
/// substep's start (SHAKE, `rope::taut` "Holding"): the scene's taut rope.
const GOLDEN_ROPE_2D: u64 = 0xd0cd_89b2_cac6_c55a;
const GOLDEN_RAGDOLL_2D: u64 = 0x455f_6c3b_8cd7_8d81;
/// Re-recorded with `GOLDEN_ROPE_2D` for SHAKE's direction (above), and again when the 3D
/// path's relaxation started from where an earlier path of the rope through the same
/// contacts in the same step settled (`rope::taut::wrap3`, `warm_start`): the same 1 µm
/// tolerance from another start.
const GOLDEN_TAUT_3D: u64 = 0x1d71_a968_d00c_c8ce;
/// The brachiating character after 60 s (3600 frames), recorded from this run:
/// `sinew simulate scenes/golden_fixed_brachiation_2d.json --frames 3600 --every 3600`.
/// Re-recorded when the character's pumping fallback changed (pumping toward a swing's
/// energy found from the back of the swing, at most 60 s a handhold) and its hash gained
/// `pump_here`. Re-recorded again when vines became ropes of the rope module in the
/// character's world (their particles are in the world's hash; generated vines hang
/// higher, their end 0.2–0.5 m above the branch before the gap) and pumping changed
/// energy only below the handhold.
const GOLDEN_BRACHIATION_2D: u64 = 0xae4e_9420_b3e6_7840;
/// Two 2D fighters after 1000 frames; re-recorded when the bout's settings gained `collide`
/// (hashed; the 2D trajectory is unchanged, fighters in 2D do not collide by default), and
/// again when the pose drive gained `PoseDriveDef::substep_interval` (hashed; the fighters
/// keep 1, every substep), and again when fighters
/// began to strike while recovering from a heavy hit, a strike's follow-through ended at
/// the limb's length and the bout's state gained the bone tables and the pinned/lent
/// effectors (issue 22's bout criteria), and again when the drive's solve began to measure
/// each part once per solve (its orientation carried through the solve's turns, its
/// inertia reused for its children: rounding and a child's view of its parent change; the
/// drive's parts gained the hashed `moves_frames` masks), and again when the fighters'
/// drives went to every other substep with their kicks limited in speed
/// (`PoseDriveDef::max_kick_speed`, hashed; the kick on a run's first middle substep),
/// and again when they went to twice a step (`FIGHTER_DRIVE_SOLVES` = 2: every fourth
/// substep of this scene's eight).
const GOLDEN_FIGHTERS_2D: u64 = 0x19ca_5529_1f9f_02ef;

#[test]
fn golden_fixed_point_2d_scene_matches_committed_hash_after_1000_frames() {
    assert_eq!(hash_after("golden_fixed_2d.json", 1000), GOLDEN_2D, "2D golden hash changed");
}

#[test]
fn golden_fixed_point_3d_scene_matches_committed_hash_after_1000_frames() {
    assert_eq!(hash_after("golden_fixed_3d.json", 1000), GOLDEN_3D, "3D golden hash changed");
}

#[test]
fn golden_fixed_point_rope_scene_matches_committed_hash_after_1000_frames() {
    // Reeling in and out (particles inserted and removed), span contacts, a tear, a grab.
    assert_eq!(hash_after("golden_fixed_rope_2d.json", 1000), GOLDEN_ROPE_2D, "rope golden hash changed");
}

#[test]
fn golden_fixed_point_ragdoll_scene_matches_committed_hash_after_1000_frames() {
    // Passive ragdolls through impacts, and a muscle ragdoll (its state is in the hash).
    assert_eq!(hash_after("golden_fixed_ragdoll_2d.json", 1000), GOLDEN_RAGDOLL_2D, "ragdoll golden hash changed");
}

#[test]
fn golden_fixed_point_taut_3d_scene_matches_committed_hash_after_1000_frames() {
    // A 3D taut rope: helices round two posts, contacts sliding along a box's edges.
    assert_eq!(hash_after("golden_fixed_taut_3d.json", 1000), GOLDEN_TAUT_3D, "taut 3D golden hash changed");
}

#[test]
fn golden_fixed_point_brachiation_scene_matches_committed_hash_after_60_seconds() {
    // The planner, the swing rig's world, flights and grabs, all in Q32.32.
    assert_eq!(
        hash_after("golden_fixed_brachiation_2d.json", 3600),
        GOLDEN_BRACHIATION_2D,
        "brachiation golden hash changed"
    );
}

#[test]
fn golden_fixed_point_fighters_scene_matches_committed_hash_after_1000_frames() {
    // Two fighters (issue 22): pose drives, IK strikes, hits, a scene-defined move; the
    // bout's state (moves, aims, generator, damage) is a controller, so it is in the hash.
    let got = hash_after("golden_fixed_fighters_2d.json", 1000);
    println!("fighters golden hash {got:#018x}");
    assert_eq!(got, GOLDEN_FIGHTERS_2D, "fighters golden hash changed");
}

/// A digest of everything a scene prints frame by frame (`sinew simulate`'s JSON lines:
/// every particle's position, every rope's indices, rest length and tensions, the ragdolls'
/// indices), without the state hash: FNV-1a over the lines of all 1000 frames. Positions
/// and tensions print exactly (Q32.32 → `f64` is exact below 2²¹), so this pins the
/// trajectory bit for bit whatever the state hash covers: a change of what the hash reads
/// leaves these unchanged, a change of the physics does not.
fn trajectory_digest(name: &str, frames: u64) -> u64 {
    let mut sim = sinew_scene::load_file(&scenes().join(name)).unwrap();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut line = String::new();
    for _ in 0..frames {
        sim.step().unwrap();
        line.clear();
        sim.write_frame_json(&mut line).unwrap();
        let cut = line.rfind(",\"hash\":").expect("every frame line ends with its hash");
        for &b in &line.as_bytes()[..cut] {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Committed trajectory digests of the golden scenes (see [`trajectory_digest`]).
const TRAJECTORY_2D: u64 = 0x8027_24f3_cb9a_74ca;
const TRAJECTORY_3D: u64 = 0xeb49_c1f8_9a69_b021;
const TRAJECTORY_ROPE_2D: u64 = 0xc372_6307_95c3_1ee8;
const TRAJECTORY_RAGDOLL_2D: u64 = 0x13a4_e3f6_8ba9_a66f;
/// Re-recorded with `GOLDEN_TAUT_3D` (the 3D path's warm start).
const TRAJECTORY_TAUT_3D: u64 = 0x85fe_97df_6342_8f11;

#[test]
fn golden_trajectories_of_the_fixed_point_scenes_match_their_committed_digests() {
    let got = [
        trajectory_digest("golden_fixed_2d.json", 1000),
        trajectory_digest("golden_fixed_3d.json", 1000),
        trajectory_digest("golden_fixed_rope_2d.json", 1000),
        trajectory_digest("golden_fixed_ragdoll_2d.json", 1000),
        trajectory_digest("golden_fixed_taut_3d.json", 1000),
    ];
    let want = [TRAJECTORY_2D, TRAJECTORY_3D, TRAJECTORY_ROPE_2D, TRAJECTORY_RAGDOLL_2D, TRAJECTORY_TAUT_3D];
    assert_eq!(got.map(|d| format!("{d:#018x}")), want.map(|d| format!("{d:#018x}")), "golden trajectories changed");
}

/// Every feature must work in fixed point: each example scene, forced to fixed point,
/// runs and follows its f64 run closely over the first half second (before contacts can
/// amplify rounding differences). This is the check that fails when a feature only works
/// in float.
#[test]
fn every_scene_runs_in_fixed_point_and_tracks_f64() {
    let mut checked = 0;
    for entry in std::fs::read_dir(scenes()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut spec = sinew_scene::parse(&text).unwrap();
        if spec.dim == 3 && !spec.fighters.is_empty() && spec.fight_collide != Some(false) {
            // Colliding fighters: static friction between bodies is a threshold (stick
            // while the slide is within μ_s times the push), so one rounding difference
            // decides stick or slip and the two runs part by 0.3 mm in one frame (measured
            // on fighters_3d: 4.7e-6 m → 3.2e-4 m at frame 6, 9.3 mm at 0.5 s; with
            // friction off they stay within 1.7e-5 m). Compared without friction; the
            // friction code is the same in both and its fixed-point bits are pinned by the
            // golden scenes.
            spec.friction = Some(0.0);
        }
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        let bouncy = |v: &serde_json::Value| v["restitution"].as_f64().is_some_and(|e| e > 0.0);
        let colliders = json["colliders"].as_array().map_or(&[][..], |c| &c[..]);
        let any_bouncy =
            bouncy(&json) || colliders.iter().any(|c| c.as_object().is_some_and(|o| o.values().any(bouncy)));
        if any_bouncy && !spec.ragdolls.is_empty() {
            // Bouncing ragdolls: the whole-body bounce ends an impact in the first substep
            // whose centre of mass stopped approaching (a threshold), so one rounding
            // difference can end it a substep apart and the runs part (measured on
            // ragdolls_2d: the wall impact ended at vn = +0.001 m/s in one run and one
            // substep later in the other, at −0.0905 against the threshold −0.0887; 5 cm
            // apart at 0.5 s). Compared with the per-contact bounce; the whole-body
            // bounce's fixed-point bits are pinned by the golden scenes and its physics in
            // fixed point by `ragdoll_bounce` in the core's suite.
            spec.body_restitution = Some(false);
        }
        spec.numeric = Some("fixed".into());
        let mut fixed = sinew_scene::instantiate(&spec).unwrap();
        spec.numeric = Some("f64".into());
        let mut float = sinew_scene::instantiate(&spec).unwrap();
        for _ in 0..30 {
            fixed.step().unwrap();
            float.step().unwrap();
        }
        let (a, b) = (fixed.positions(), float.positions());
        assert_eq!(a.len(), b.len());
        let worst = a
            .iter()
            .zip(&b)
            .map(|(p, q)| (0..3).map(|i| (p[i] - q[i]).powi(2)).sum::<f64>().sqrt())
            .fold(0.0, f64::max);
        // Measured: 1.6e-6 m (pendulum) to 1.0e-3 m (3D golden scene, where contacts and
        // joint limits amplify rounding differences). A feature that is missing or wrong
        // in fixed point shows up at centimetres or more.
        assert!(worst < 5e-3, "{}: fixed and f64 differ by {worst} m after 0.5 s", path.display());
        checked += 1;
    }
    assert!(checked >= 6, "only {checked} scenes found");
}
