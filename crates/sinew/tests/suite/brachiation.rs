//! Procedural brachiation (issue 23): the two-point rig's grab energy, the ballistic
//! planner on the learned controller's handhold distribution and on a seeded course,
//! against the sine-wave baseline; the level-of-detail chain; fixed-point determinism.

use super::rng::Rng;
use sinew::brachiation::planner::{self, NoPlan, PlannerDef, SwingState};
use sinew::brachiation::{BrachRng, Brachiator, BrachiatorDef, Course, CourseDef, Mode, Phase, SwingRig};
use sinew::prelude::*;

/// A grab with the velocity exactly perpendicular to the arm keeps all the kinetic energy.
#[test]
fn perpendicular_grab_keeps_kinetic_energy() {
    let mut worst = 0.0f64;
    let mut rng = Rng(0x1234_5678);
    for _ in 0..100 {
        let a = rng.range(-1.2, 1.2);
        let s = rng.range(1.0, 8.0);
        let h = Vector2::new(0.0, 5.0);
        let n = Vector2::new(f64::sin(a), -f64::cos(a));
        let c = h + n * 0.7;
        let mut rig = SwingRig::<f64>::new(c, 9.81, 16).unwrap();
        rig.place(c, Vector2::new(-n.y, n.x) * s).unwrap();
        let ke0 = rig.kinetic_energy();
        let r = rig.grab(h).unwrap();
        let ke1 = rig.kinetic_energy();
        let lost = 1.0 - ke1 / ke0;
        assert!((r.energy_kept - ke1 / ke0).abs() < 1e-12);
        worst = worst.max(lost.abs());
    }
    println!("perpendicular grab: worst kinetic energy lost {worst:.2e} (bound 1e-6)");
    assert!(worst < 1e-6, "{worst}");
}

/// A grab at `φ` off the perpendicular keeps `cos² φ`: checked with the world's own rigid
/// distance constraint doing the grab (no gravity, so kinetic energy is all there is),
/// not the rig's impulse.
#[test]
fn grab_at_angle_keeps_cos_squared() {
    let mut worst = 0.0f64;
    for deg in [5.0f64, 15.0, 30.0, 45.0, 60.0, 75.0] {
        let phi = deg.to_radians();
        let def = WorldDef::default().gravity(Vector2::new(0.0, 0.0)).substeps(64);
        let mut w = World2d::new(def).unwrap();
        let pin = w.add_particle(&ParticleDef::at(Vector2::new(0.0, 0.0)).mass(0.0)).unwrap();
        // Arm along −y; the perpendicular is +x; tilt the velocity by φ outward (−y).
        let v = Vector2::new(phi.cos(), -phi.sin()) * 4.0;
        let c = w.add_particle(&ParticleDef::at(Vector2::new(0.0, -0.7)).velocity(v)).unwrap();
        w.add_distance(&DistanceDef::new(pin, c)).unwrap();
        w.step(1.0 / 600.0).unwrap();
        let kept = w.particles().velocity(c).unwrap().length_squared() / v.length_squared();
        let want = phi.cos().powi(2);
        let rel = (kept - want).abs() / want;
        println!("grab at {deg:>4}°: kept {kept:.5}, cos²φ {want:.5}, relative error {rel:.2e}");
        worst = worst.max(rel);
        // And the rig's impulse gives the same.
        let mut rig = SwingRig::<f64>::new(Vector2::new(0.0, -0.7), 9.81, 16).unwrap();
        rig.place(Vector2::new(0.0, -0.7), v).unwrap();
        let r = rig.grab(Vector2::new(0.0, 0.0)).unwrap();
        assert!((r.energy_kept - want).abs() < 1e-12);
        assert!((r.angle_off_perpendicular - phi).abs() < 1e-9);
    }
    assert!(worst < 0.01, "{worst}");
}

fn run_course(course: Course<f64>, def: BrachiatorDef<f64>, seconds: f64) -> Brachiator<f64> {
    let mut b = Brachiator::new(course, def).unwrap();
    let frames = (seconds * 60.0) as usize;
    for _ in 0..frames {
        b.step(1.0 / 60.0).unwrap();
        if matches!(b.phase, Phase::Finished | Phase::Fallen | Phase::Stuck) {
            break;
        }
    }
    b
}

/// Figures of the learned distribution's runs over `seeds`.
struct Learned {
    completed: usize,
    worst_kept: f64,
    worst_hand: f64,
    worst_effort: f64,
    pumped: u32,
    most_pumped: u32,
    failures: Vec<(u64, u32, Phase, Option<NoPlan>)>,
}

fn learned_runs(seeds: std::ops::RangeInclusive<u64>) -> Learned {
    let n = seeds.clone().count();
    let mut out = Learned {
        completed: 0,
        worst_kept: 1.0,
        worst_hand: 0.0,
        worst_effort: 0.0,
        pumped: 0,
        most_pumped: 0,
        failures: Vec::new(),
    };
    let (mut plans, mut converged) = (0, 0);
    for seed in seeds {
        let course = Course::<f64>::learned(seed, 30, 5.0);
        let mut def = BrachiatorDef::new(seed);
        def.planner.lookahead = 1;
        let b = run_course(course, def, 300.0);
        plans += b.stats.plans;
        converged += b.stats.converged;
        out.pumped += b.pump_total;
        out.most_pumped = out.most_pumped.max(b.pump_total);
        if b.phase == Phase::Finished && b.stats.grabs == 29 {
            out.completed += 1;
        } else if out.failures.len() < 20 {
            out.failures.push((seed, b.stats.grabs, b.phase, b.stats.last_no_plan));
        }
        out.worst_kept = out.worst_kept.min(b.stats.worst_energy_kept);
        out.worst_effort = out.worst_effort.max(b.stats.worst_effort);
        out.worst_hand = out.worst_hand.max(b.stats.worst_hand_error);
    }
    println!(
        "learned distribution: {}/{n} sequences completed; worst energy kept at a grab {:.6}; \
         worst hand error {:.2} mm; worst effort in a swing {:.2} J/kg; plans converged {converged}/{plans}; \
         frames spent pumping {} (most in one run {}); first failures {:?}",
        out.completed,
        out.worst_kept,
        out.worst_hand * 1e3,
        out.worst_effort,
        out.pumped,
        out.most_pumped,
        out.failures
    );
    out
}

/// 1000 handhold sequences drawn like the learned controller's (30 handholds, 0.5–3 m
/// apart, ±15° pitch), the planner restricted to the next handhold: every sequence is
/// completed (all 29 grabs, each handhold in order, none skipped) and every grab keeps at
/// least 99 % of the kinetic energy. About 2.5 s in release.
///
/// Seeds 161 and 914 used to stop on one handhold (Stuck after 60 s of pumping): 161 braked
/// a looping swing to rest exactly over the handhold (it balanced there for good), 914 aimed
/// its pumping at a relaxed plan's energy that sent it looping backward, never turning
/// forward to plan again. The pumping now changes energy only below the handhold and aims
/// at a plain swing whose back turn the real planner plans from (see `pump.rs`).
#[test]
fn learned_distribution_sequences_are_completed() {
    let r = learned_runs(1..=1000);
    assert_eq!(r.completed, 1000, "{:?}", r.failures);
    assert!(r.worst_kept >= 0.99, "{}", r.worst_kept);
}

/// 200 planned swings on a seeded course: hand within 2 cm at every grab, speed in
/// [min, max], worst COM velocity jump ≤ 5 % of speed; the sine baseline's figures on the
/// same course are printed beside them.
#[test]
fn planned_swings_on_a_seeded_course_against_the_sine_baseline() {
    let course = Course::generate(&CourseDef::<f64>::new(7, 400.0)).unwrap();
    let def = BrachiatorDef::new(11);
    let (min, max) = (def.planner.speed[0], def.planner.speed[1]);
    let mut b = Brachiator::new(course.clone(), def).unwrap();
    let mut frames = 0;
    while b.stats.grabs < 200 && frames < 60 * 600 {
        b.step(1.0 / 60.0).unwrap();
        frames += 1;
        if matches!(b.phase, Phase::Finished | Phase::Fallen | Phase::Stuck) {
            break;
        }
    }
    let s = b.stats;
    println!(
        "ballistic: {} grabs in {:.1} s, phase {:?} ({:?}); worst hand error {:.2} mm; speed {:.2}..{:.2} m/s \
         (range {min}..{max}); worst COM velocity jump {:.3} % of speed; worst energy kept {:.6}; plans converged \
         {}/{}; worst residual {:.2e} m; worst release correction {:.3} m/s; effort {:.2} J/kg",
        s.grabs,
        b.time,
        b.phase,
        s.last_no_plan,
        s.worst_hand_error * 1e3,
        s.speed[0],
        s.speed[1],
        s.worst_jump_ratio * 100.0,
        s.worst_energy_kept,
        s.converged,
        s.plans,
        s.worst_residual,
        s.worst_release_correction,
        s.effort
    );
    let mut sdef = BrachiatorDef::new(11);
    sdef.mode = Mode::Sine;
    let mut sb = Brachiator::new(course, sdef).unwrap();
    let mut f = 0;
    while sb.stats.grabs < 200 && f < 60 * 600 {
        sb.step(1.0 / 60.0).unwrap();
        f += 1;
    }
    let t = sb.stats;
    println!(
        "sine baseline: {} grabs in {:.1} s; worst hand error {:.2} mm; speed {:.2}..{:.2} m/s; worst COM velocity \
         jump {:.1} % of speed; worst energy kept {:.4}",
        t.grabs,
        sb.time,
        t.worst_hand_error * 1e3,
        t.speed[0],
        t.speed[1],
        t.worst_jump_ratio * 100.0,
        t.worst_energy_kept
    );
    assert!(s.grabs >= 200, "only {} grabs: {:?} {:?}", s.grabs, b.phase, s.last_no_plan);
    assert!(s.worst_hand_error <= 0.02, "{}", s.worst_hand_error);
    assert!(s.speed[0] >= min && s.speed[1] <= max, "{:?}", s.speed);
    assert!(s.worst_jump_ratio <= 0.05, "{}", s.worst_jump_ratio);
}

/// The planner's Newton iterations: residual under 1 mm within 10 iterations in at least
/// 95 % of plans, over many random swings and handholds.
#[test]
fn planner_converges_within_ten_iterations() {
    let def = PlannerDef::<f64>::new();
    let mut rng = Rng(0xBEEF);
    let mut brng = BrachRng::new(3);
    let (mut ok, mut total, mut none) = (0, 0, 0);
    let mut worst_iters = 0;
    let start = std::time::Instant::now();
    for _ in 0..2000 {
        let state = SwingState::on_branch(Vector2::new(0.0, 5.0), rng.range(-0.9, 0.0), rng.range(2.0, 6.0), &def);
        let d = rng.range(0.5, 3.0);
        let a = rng.range(-0.26, 0.26);
        let h1 = Vector2::new(d * a.cos(), 5.0 + d * a.sin());
        match planner::plan(&state, &[h1], &def, &mut brng) {
            Ok(p) => {
                total += 1;
                worst_iters = worst_iters.max(p.iterations);
                if p.iterations <= 10 && p.residual < 1e-3 {
                    ok += 1;
                }
            }
            Err(_) => none += 1,
        }
    }
    let per_plan = start.elapsed().as_secs_f64() / 2000.0 * 1e6;
    // Timing is printed, not asserted (shared CI machines); the issue asks ≤ 200 µs.
    println!("planner: {per_plan:.1} µs per planning call (one handhold, so no lookahead; 16 grab angles), f64");
    let frac = ok as f64 / total as f64;
    println!(
        "planner: {ok}/{total} plans converged under 1 mm within 10 iterations ({:.1} %); worst {worst_iters} iterations; {none} no plan",
        frac * 100.0
    );
    assert!(frac >= 0.95, "{frac}");
}

/// Impossible gaps get "no plan", never a fake one.
#[test]
fn impossible_gaps_report_no_plan() {
    let def = PlannerDef::<f64>::new();
    let mut rng = BrachRng::new(5);
    let state = SwingState::on_branch(Vector2::new(0.0, 5.0), -0.5, 3.0, &def);
    // 12 m ahead: beyond reach.
    assert_eq!(planner::plan(&state, &[Vector2::new(12.0, 5.0)], &def, &mut rng), Err(NoPlan::NoHandholdAhead));
    // 3.9 m ahead and 3 m up: no flight within the speed range and effort.
    let r = planner::plan(&state, &[Vector2::new(3.9, 8.0)], &def, &mut rng);
    assert!(matches!(r, Err(NoPlan::OutOfBounds | NoPlan::Unreachable)), "{r:?}");
    // Behind the character.
    assert_eq!(planner::plan(&state, &[Vector2::new(-1.0, 5.0)], &def, &mut rng), Err(NoPlan::NoHandholdAhead));
    // A character on a course with an impossible gap stops and says so.
    let mut course = Course::<f64>::learned(1, 3, 5.0);
    // 3.9 m ahead and 6 m up: beyond any launch at 9 m/s however long the character pumps
    // (3.5 m up, the gap this test used before, is reached after pumping).
    course.handholds[2].position = course.handholds[1].position + Vector2::new(3.9, 6.0);
    let mut def = BrachiatorDef::new(1);
    def.planner.lookahead = 1;
    // The character pumps up to 60 s on a handhold before it counts as stuck.
    let b = run_course(course, def, 90.0);
    assert_eq!(
        b.phase,
        Phase::Stuck,
        "{} grabs, {} frames pumping, {:?}",
        b.stats.grabs,
        b.pump_total,
        b.stats.last_no_plan
    );
    assert_eq!(b.stats.grabs, 1);
    assert!(b.stats.no_plans >= 1);
}

/// The same run in fixed point twice gives the same hash, and a restored world too.
#[test]
fn fixed_point_run_is_deterministic() {
    let run = || {
        let course = Course::generate(&CourseDef::<Fx>::new(3, Fx::from_i32(60))).unwrap();
        let mut b = Brachiator::new(course, BrachiatorDef::new(9)).unwrap();
        for _ in 0..600 {
            b.step(Fx::from_ratio(1, 60)).unwrap();
        }
        (b.state_hash(), b.stats.grabs, b.phase)
    };
    let a = run();
    let b = run();
    println!("fixed point 10 s: hash {:#018x}, {} grabs, {:?}", a.0, a.1, a.2);
    assert_eq!(a, b);
    assert!(a.1 > 3, "{a:?}");
}

/// The level-of-detail chain along a run: the 14-point hands equal the two-point hands
/// within 1 mm while holding, bone lengths within 1 %, the 14-point COM within 1 cm.
#[test]
fn lod_chain_keeps_hands_bones_and_com() {
    use sinew::brachiation::lod::{self, RigDims};
    let course = Course::generate(&CourseDef::<f64>::new(7, 120.0)).unwrap();
    let mut b = Brachiator::new(course, BrachiatorDef::new(11)).unwrap();
    let dims = RigDims::new();
    let rest = dims.bone_lengths();
    let (mut worst_hand, mut worst_bone, mut worst_com, mut worst_free) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut contacts = 0;
    for _ in 0..60 * 30 {
        b.step(1.0 / 60.0).unwrap();
        let hands = b.hands();
        let holding = b.holding().map(|h| h.is_some());
        let (r5, r14) = lod::chain(b.com(), hands, holding, b.com_velocity(), &dims);
        for k in 0..2 {
            let e = (r14.points[[6, 9][k]] - hands[k]).length();
            assert_eq!(r5.hands[k], r14.points[[6, 9][k]]);
            if holding[k] {
                worst_hand = worst_hand.max(e);
                contacts += 1;
            } else {
                worst_free = worst_free.max(e);
            }
        }
        for (l, r) in r14.bone_lengths().iter().zip(rest) {
            worst_bone = worst_bone.max((l - r).abs() / r);
        }
        worst_com = worst_com.max((r14.com() - b.com()).length());
        assert!(r14.joint_angles().iter().all(|a| a.is_finite()));
    }
    println!(
        "LOD chain over 30 s: {contacts} hand contacts, worst held-hand error {:.3} mm, worst free-hand error {:.1} mm, \
         worst bone length error {:.4} %, worst COM error {:.3} mm",
        worst_hand * 1e3,
        worst_free * 1e3,
        worst_bone * 100.0,
        worst_com * 1e3
    );
    assert!(contacts > 100);
    assert!(worst_hand < 1e-3, "{worst_hand}");
    assert!(worst_bone < 0.01, "{worst_bone}");
    assert!(worst_com < 0.01, "{worst_com}");
}
