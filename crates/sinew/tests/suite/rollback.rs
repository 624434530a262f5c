//! Snapshot / restore / state hash, exercised the way rollback netcode uses them.

use sinew::prelude::*;
use sinew::{Rot2, World};
use sinew::{Snapshot, VecOf};

/// A small world with every kind of state: chains with tethers and bending, compliant
/// damped links, joint limits, an attachment, colliders of every 2D type, friction,
/// restitution and a thrown particle.
fn build<R: Real>() -> (World<Space2<R>>, Vec<sinew::ParticleHandle>, sinew::ColliderHandle) {
    let v = |x: f64, y: f64| Vector2::<R>::from_f64(x, y);
    let mut w = World::new(
        WorldDef::default().friction(R::from_f64(0.4)).restitution(R::from_f64(0.3)).damping(R::from_f64(0.1)),
    )
    .unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(v(0.0, 1.0), R::from_f64(-2.0)).unwrap())).unwrap();
    w.add_collider(&ColliderDef::new(Shape::ball(R::from_f64(0.3)).unwrap()).position(v(-0.5, 0.0))).unwrap();
    w.add_collider(
        &ColliderDef::new(Shape::capsule(v(-1.0, 0.0), v(1.0, 0.0), R::from_f64(0.1)).unwrap()).position(v(0.8, -1.0)),
    )
    .unwrap();
    let moving = w
        .add_collider(
            &ColliderDef::new(Shape::convex(&[v(-0.3, -0.2), v(0.3, -0.2), v(0.0, 0.3)]).unwrap())
                .position(v(1.5, 0.0)),
        )
        .unwrap();
    let mut hs = Vec::new();
    for i in 0..16 {
        let m = if i == 0 { R::ZERO } else { R::from_f64(0.05) };
        hs.push(
            w.add_particle(&ParticleDef::at(v(-1.5 + 0.12 * i as f64, 1.0)).mass(m).radius(R::from_f64(0.03))).unwrap(),
        );
    }
    for i in 0..15 {
        w.add_distance(&DistanceDef::new(hs[i], hs[i + 1]).compliance(R::from_f64(if i % 3 == 0 {
            1e-4
        } else {
            0.0
        })))
        .unwrap();
        w.add_tether(&{
            let mut d = TetherDef::new(hs[i + 1], hs[0]);
            d.length = None;
            d
        })
        .unwrap();
    }
    for i in 0..14 {
        w.add_bending(&{
            let mut d = BendingDef::new(hs[i], hs[i + 1], hs[i + 2]);
            d.compliance = R::from_f64(0.02);
            d.rest = None;
            d
        })
        .unwrap();
        w.add_joint_limit(&{
            let mut d = AngleLimitDef::new(hs[i], hs[i + 1], hs[i + 2], R::from_f64(-1.0), R::from_f64(1.0));
            d.compliance = R::ZERO;
            d
        })
        .unwrap();
    }
    let free = w.add_particle(&ParticleDef::at(v(1.0, 1.5)).mass(R::from_f64(0.3)).radius(R::from_f64(0.05))).unwrap();
    let mut att = AttachmentDef::new(free, v(1.0, 1.8));
    att.length = R::from_f64(0.2);
    att.compliance = R::from_f64(1e-3);
    w.add_attachment(&att).unwrap();
    hs.push(free);
    (w, hs, moving)
}

/// The "inputs" of frame `f`: a force on the chain tip, the pinned end driven along a
/// path, and a collider moved — everything a game would feed in.
fn apply_inputs<R: Real>(
    w: &mut World<Space2<R>>,
    hs: &[sinew::ParticleHandle],
    moving: sinew::ColliderHandle,
    f: u64,
) {
    let phase = (f % 120) as f64 / 120.0 * std::f64::consts::TAU;
    let fx = if (f / 37) % 2 == 0 { 0.8 } else { -0.6 };
    w.particles_mut().apply_force(hs[15], Vector2::from_f64(fx, 0.3)).unwrap();
    w.particles_mut().set_kinematic_target(hs[0], Vector2::from_f64(-1.5 + 0.3 * phase.sin(), 1.0)).unwrap();
    let p = Vector2::from_f64(1.5 + 0.4 * (phase * 2.0).sin(), -0.2);
    w.set_collider_pose(moving, p, Rot2::from_angle(R::from_f64(0.5 * phase))).unwrap();
}

fn lcg(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *seed >> 33
}

/// GGRS sync-test behaviour: every frame, roll back 1..=8 frames to a saved snapshot,
/// re-simulate with the same inputs, and compare each re-simulated frame's hash with the
/// one recorded the first time.
fn sync_test<R: Real>(frames: u64) -> u64 {
    let (mut w, hs, moving) = build::<R>();
    let dt = R::from_f64(1.0 / 60.0);
    // saved[f] = state before frame f; only the last 16 are kept, like a real client's ring.
    let mut saved: Vec<Option<Snapshot<Space2<R>>>> = Vec::new();
    let mut hashes: Vec<u64> = Vec::new(); // hashes[f] = state hash after frame f
    let mut seed = 42u64;
    let mut rollbacks = 0;
    for f in 0..frames {
        saved.push(Some(w.snapshot()));
        apply_inputs(&mut w, &hs, moving, f);
        w.step(dt).unwrap();
        hashes.push(w.state_hash());
        if f < 8 {
            continue;
        }
        // Roll back N frames and re-simulate to the present.
        let n = 1 + lcg(&mut seed) % 8;
        let from = f + 1 - n;
        w.restore(saved[from as usize].as_ref().expect("within the rollback window"));
        for g in from..=f {
            apply_inputs(&mut w, &hs, moving, g);
            w.step(dt).unwrap();
            assert_eq!(
                w.state_hash(),
                hashes[g as usize],
                "{}: frame {g} diverged after rolling back to {from}",
                R::NAME
            );
        }
        rollbacks += 1;
        if f >= 16 {
            saved[(f - 16) as usize] = None;
        }
    }
    rollbacks
}

#[test]
fn rollback_and_resimulate_matches_10000_times_in_fixed_point() {
    assert!(sync_test::<Fx>(10_008) >= 10_000);
}

#[test]
fn rollback_and_resimulate_matches_in_f32_on_one_machine() {
    assert!(sync_test::<f32>(1_008) >= 1_000);
}

fn bits<S: Space>(w: &World<S>) -> Vec<u64> {
    let mut out = Vec::new();
    for h in w.particles().handles() {
        let p: VecOf<S> = w.particles().position(h).unwrap();
        let v: VecOf<S> = w.particles().velocity(h).unwrap();
        for i in 0..S::DIM {
            out.push(p.get(i).hash_bits());
            out.push(v.get(i).hash_bits());
        }
    }
    out
}

#[test]
fn restore_then_step_equals_step_bit_for_bit() {
    let (mut a, hs, moving) = build::<Fx>();
    let dt = Fx::from_f64(1.0 / 60.0);
    for f in 0..100 {
        apply_inputs(&mut a, &hs, moving, f);
        a.step(dt).unwrap();
    }
    let snap = a.snapshot();
    let mut b = build::<Fx>().0;
    // Scramble b first: restore must not depend on what was there.
    for _ in 0..7 {
        b.step(dt).unwrap();
    }
    b.restore(&snap);
    assert_eq!(a.state_hash(), b.state_hash());
    for f in 100..200 {
        apply_inputs(&mut a, &hs, moving, f);
        apply_inputs(&mut b, &hs, moving, f);
        a.step(dt).unwrap();
        b.step(dt).unwrap();
        assert_eq!(bits(&a), bits(&b), "diverged at frame {f}");
        assert_eq!(a.state_hash(), b.state_hash());
    }
}

#[test]
fn hash_changes_when_state_changes_and_not_otherwise() {
    let (mut w, hs, _) = build::<Fx>();
    let h0 = w.state_hash();
    assert_eq!(h0, w.state_hash(), "hash must be a pure function of the state");
    let p = w.particles().position(hs[3]).unwrap();
    w.particles_mut().set_position(hs[3], p + Vector2::new(Fx::from_bits(1), Fx::ZERO)).unwrap();
    assert_ne!(h0, w.state_hash(), "one ULP of one particle must change the hash");
}

#[test]
fn snapshot_is_compact() {
    let (w, _, _) = build::<Fx>();
    let snap = w.snapshot();
    let per_particle = Snapshot::<Space2<Fx>>::particle_bytes_per_slot();
    let particles = w.particles().slot_count();
    eprintln!(
        "snapshot: {} bytes for {particles} particles and their constraints; {per_particle} bytes per particle",
        snap.size_bytes()
    );
    // 2D fixed point: 4 vectors (position, velocity, previous substep's position, step
    // start) + 4 scalars + force + friction + filter + flags + target + generation +
    // contact anchor (a vector, region, extra reach and flags) =
    // 64+32+16+16+8+1+24+4+16+24 = 205 bytes. (The snapshot is a plain copy of the saved
    // state, so the two per-step positions, which every step overwrites before reading,
    // are in it too: 32 bytes a particle for a copy with no list of fields to forget.)
    assert!(per_particle <= 205, "{per_particle} bytes per particle");
    assert!(snap.size_bytes() < 16 * 1024, "{} bytes", snap.size_bytes());
}

/// A 3 m, 61-particle rope dropped onto a ground, a ball and a box, in fixed point: it
/// comes to rest on them within 3 s.
fn resting_rope_world() -> (World2x, sinew::RopeHandle) {
    use sinew::rope::RopeDef;
    let v = |x: f64, y: f64| Vector2::<Fx>::from_f64(x, y);
    let mut w = World2x::new(WorldDef::default().friction(Fx::from_f64(0.5))).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(v(0.0, 1.0), Fx::ZERO).unwrap())).unwrap();
    w.add_collider(&ColliderDef::new(Shape::ball(Fx::from_f64(0.1)).unwrap()).position(v(0.0, 0.6))).unwrap();
    w.add_collider(&ColliderDef::new(Shape::cuboid(v(0.3, 0.2)).unwrap()).position(v(1.0, 0.2))).unwrap();
    let rope = RopeDef::between(v(-1.0, 0.8), v(2.0, 0.8)).segments(60).radius(Fx::from_f64(0.015));
    let h = w.add_rope(&rope).unwrap();
    (w, h)
}

/// Steps `w` `frames` times from `snap` restored, checking each frame's hash against
/// `hashes`.
fn replays(w: &mut World2x, snap: &Snapshot<Space2<Fx>>, hashes: &[u64], what: &str) {
    w.restore(snap);
    for (f, &h) in hashes.iter().enumerate() {
        w.step(Fx::from_f64(1.0 / 60.0)).unwrap();
        assert_eq!(w.state_hash(), h, "{what}: frame {f} after the restore diverged");
    }
}

/// A rope at rest on static colliders keeps its contact anchors from step to step (the
/// pairs gathered at them are reused); the anchors are state, so rolling back into the
/// same world, or restoring into a world that never ran, re-simulates bit for bit — also
/// in the frames where the kept anchors' pairs must be rebuilt from the snapshot.
#[test]
fn rollback_matches_while_ropes_keep_their_contact_anchors() {
    let dt = Fx::from_f64(1.0 / 60.0);
    let (mut w, _) = resting_rope_world();
    let mut kept = 0;
    for _ in 0..180 {
        let report = w.step(dt).unwrap();
        kept += 61 - report.regathered;
    }
    // Most particles keep their anchors once the rope has settled.
    let report = w.step(dt).unwrap();
    assert!(report.regathered < 20, "{} of 61 particles took new anchors at rest", report.regathered);
    assert!(kept > 61 * 60, "only {kept} kept anchors over 3 s");
    let snap = w.snapshot();
    let mut hashes = Vec::new();
    for _ in 0..60 {
        w.step(dt).unwrap();
        hashes.push(w.state_hash());
    }
    replays(&mut w, &snap, &hashes, "the same world");
    replays(&mut resting_rope_world().0, &snap, &hashes, "a fresh world");
}

/// Cutting a rope that rests on its colliders gives the tail a new rope: its spans are
/// gathered afresh (last step's lists belong to the old rope), and a snapshot taken right
/// after the cut, restored into a fresh world, re-simulates bit for bit. (A first version
/// of the span reuse took the old rope's missing entry for "no items": the tail's spans
/// went untested and the restored world, which gathers everything, diverged at once.)
#[test]
fn rollback_matches_after_a_resting_rope_is_cut() {
    let dt = Fx::from_f64(1.0 / 60.0);
    let (mut w, h) = resting_rope_world();
    for _ in 0..180 {
        w.step(dt).unwrap();
    }
    assert!(w.cut_rope(h, 5).unwrap().is_some(), "the cut made a tail");
    let snap = w.snapshot();
    let mut hashes = Vec::new();
    for _ in 0..30 {
        w.step(dt).unwrap();
        hashes.push(w.state_hash());
    }
    replays(&mut resting_rope_world().0, &snap, &hashes, "a fresh world");
}

/// The ball of [`moving_ball_pose`]: 15 cm, added after the rope has settled.
fn add_moving_ball(w: &mut World2x) -> sinew::ColliderHandle {
    let at = Vector2::<Fx>::from_f64(4.0, 0.3);
    w.add_collider(&ColliderDef::new(Shape::ball(Fx::from_f64(0.15)).unwrap()).position(at)).unwrap()
}

/// Where the moving ball is `f` frames after the snapshot: at rest 4 m out for half a
/// second, then rolling in at 1.2 m/s, 30 cm up, until it presses the rope's end against
/// the side of the box (the rope hangs down that side at x ≈ 1.33 m, the box's face is at
/// 1.3 m), held there a moment, and back out.
fn moving_ball_pose(f: usize) -> Vector2<Fx> {
    let t = f as f64 / 60.0;
    let x = if t < 0.5 { 4.0 } else { (4.0 - 1.2 * (t - 0.5)).max(1.49) };
    let x = if t > 3.0 { 1.49 + 1.2 * (t - 3.0) } else { x };
    Vector2::<Fx>::from_f64(x, 0.3)
}

/// A collider moving far from a resting rope leaves the rope's contact anchors alone
/// (only the particles whose regions its path comes near gather afresh), the ball still
/// pushes the rope where it reaches it, and rolling back while it moves re-simulates bit
/// for bit, into the same world and into a fresh one. (Every particle used to drop its
/// anchor while any collider moved anywhere: a 14 m rope cost 27–31 % more per frame with a
/// ball moving 40 m away.)
#[test]
fn rollback_matches_while_a_collider_moves_far_from_and_into_a_resting_rope() {
    let dt = Fx::from_f64(1.0 / 60.0);
    let (mut w, h) = resting_rope_world();
    let ball = add_moving_ball(&mut w);
    for _ in 0..180 {
        w.step(dt).unwrap();
    }
    let snap = w.snapshot();
    let particles: Vec<_> = w.rope(h).unwrap().particles().to_vec();
    let (mut hashes, mut regathered_far, mut nearest) = (Vec::new(), 0u32, f64::MAX);
    for f in 0..240 {
        w.set_collider_pose(ball, moving_ball_pose(f), sinew::Rot2::IDENTITY).unwrap();
        let report = w.step(dt).unwrap();
        if (30..60).contains(&f) {
            regathered_far += report.regathered;
        }
        let c = moving_ball_pose(f).to_f64_array();
        for &p in &particles {
            let x = w.particles().position(p).unwrap().to_f64_array();
            let gap = ((x[0] - c[0]).powi(2) + (x[1] - c[1]).powi(2)).sqrt() - 0.15 - 0.015;
            assert!(gap > -2e-3, "frame {f}: a particle {:.1} mm inside the moving ball", -gap * 1e3);
            nearest = nearest.min(gap);
        }
        hashes.push(w.state_hash());
    }
    // While it rolls in from 4 m to ~3.4 m (frames 30–60), the resting rope keeps its
    // anchors as it does with the ball standing still there.
    let mut still = w.clone();
    still.restore(&snap);
    let mut regathered_still = 0;
    for f in 0..60 {
        let report = still.step(dt).unwrap();
        if f >= 30 {
            regathered_still += report.regathered;
        }
    }
    assert!(
        regathered_far <= regathered_still + 30,
        "{regathered_far} fresh anchors in 30 frames of a distant ball moving, {regathered_still} with it still"
    );
    assert!(nearest < 2e-3, "the ball never reached the rope (nearest gap {:.1} mm)", nearest * 1e3);
    let replay = |w: &mut World2x, what: &str| {
        w.restore(&snap);
        for (f, &hash) in hashes.iter().enumerate() {
            w.set_collider_pose(ball, moving_ball_pose(f), sinew::Rot2::IDENTITY).unwrap();
            w.step(dt).unwrap();
            assert_eq!(w.state_hash(), hash, "{what}: frame {f} after the restore diverged");
        }
    };
    replay(&mut w, "the same world");
    let mut fresh = resting_rope_world().0;
    add_moving_ball(&mut fresh);
    replay(&mut fresh, "a fresh world");
}

/// A 2D world with everything that gathers contacts (two ropes, a ragdoll, loose
/// particles) among static colliders and four moving ones — a ball, a turning box, a
/// turning capsule and an off-centre triangle turning about its origin — settled for 2 s.
fn moving_colliders_world<R: Real>(seed: u64) -> (World<Space2<R>>, Vec<sinew::ColliderHandle>) {
    use sinew::ragdoll::{Ragdoll, presets};
    use sinew::rope::RopeDef;
    let v = |x: f64, y: f64| Vector2::<R>::from_f64(x, y);
    let r = R::from_f64;
    let mut w = World::<Space2<R>>::new(WorldDef::default().friction(r(0.5))).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(v(0.0, 1.0), R::ZERO).unwrap())).unwrap();
    w.add_collider(&ColliderDef::new(Shape::ball(r(0.1)).unwrap()).position(v(0.0, 0.6))).unwrap();
    w.add_collider(&ColliderDef::new(Shape::cuboid(v(0.3, 0.2)).unwrap()).position(v(1.0, 0.2))).unwrap();
    let capsule = Shape::capsule(v(-0.3, 0.0), v(0.3, 0.0), r(0.08)).unwrap();
    w.add_collider(&ColliderDef::new(capsule).position(v(3.0, 0.5)).rotation(sinew::Rot2::from_angle(r(0.3)))).unwrap();
    let movers = [
        ColliderDef::new(Shape::ball(r(0.15)).unwrap()).position(v(-2.0, 0.3)),
        ColliderDef::new(Shape::cuboid(v(0.25, 0.1)).unwrap()).position(v(4.0, 0.4)),
        ColliderDef::new(Shape::capsule(v(-0.2, 0.0), v(0.2, 0.0), r(0.06)).unwrap()).position(v(2.0, 1.2)),
        ColliderDef::new(Shape::convex(&[v(0.3, 0.0), v(0.6, 0.0), v(0.45, 0.3)]).unwrap()).position(v(-1.0, 1.0)),
    ]
    .iter()
    .map(|d| w.add_collider(d).unwrap())
    .collect();
    w.add_rope(&RopeDef::between(v(-1.0, 0.8), v(2.0, 0.8)).segments(60).radius(r(0.015))).unwrap();
    w.add_rope(&RopeDef::between(v(2.5, 1.3), v(4.5, 1.0)).segments(30).radius(r(0.02))).unwrap();
    Ragdoll::spawn(&mut w, &presets::humanoid16::<R>(), v(-3.0, 1.5), R::ONE, v(0.0, 0.0)).unwrap();
    let mut s = seed | 1;
    for i in 0..30 {
        s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let x = -4.0 + 9.0 * ((s >> 33) as f64 / (1u64 << 31) as f64);
        w.add_particle(&ParticleDef::at(v(x, 0.3 + 0.05 * (i % 5) as f64)).mass(r(0.1)).radius(r(0.03))).unwrap();
    }
    for _ in 0..120 {
        w.step(r(1.0 / 60.0)).unwrap();
    }
    (w, movers)
}

/// Poses of the four movers at frame `f`; `pattern` gives each mover (4 bits) when it
/// moves: every frame, every other one, 20 frames on and 20 off, or two frames of three —
/// so colliders start and stop moving, and jump when they restart.
fn drive_movers<R: Real>(w: &mut World<Space2<R>>, movers: &[sinew::ColliderHandle], f: usize, pattern: u64) {
    let (t, k) = (f as f64 / 60.0, f as f64);
    for (i, &m) in movers.iter().enumerate() {
        let moving = match (pattern >> (i * 4)) & 3 {
            0 => true,
            1 => f % 2 == 0,
            2 => (f / 20) % 2 == 0,
            _ => f % 3 != 0,
        };
        if !moving {
            continue;
        }
        let (x, y, a) = match i {
            0 => (-0.5 + 2.0 * (0.7 * t).sin(), 0.25 + 0.1 * (1.3 * t).sin(), 0.0),
            1 => (1.5 + 2.5 * (0.4 * t + 1.0).sin(), 0.45 + 0.2 * (0.9 * t).cos(), 0.25 * k),
            2 => (0.5 + 2.0 * (0.5 * t).cos(), 0.3 + 0.5 * (0.6 * t).sin().abs(), 0.1 * k),
            _ => (-1.0 + 1.5 * (0.3 * t).sin(), 0.2 + 0.3 * (0.8 * t).sin().abs(), 0.15 * k),
        };
        let pose = (Vector2::<R>::from_f64(x, y), sinew::Rot2::from_angle(R::from_f64(a)));
        w.set_collider_pose(m, pose.0, pose.1).unwrap();
    }
}

/// A world restored from its own snapshot before every step — which rebuilds everything
/// derived (broad phase, cached lists, span lists) every frame — steps bit for bit like
/// one that never restores, while colliders move, turn, start and stop among ropes, a
/// ragdoll and loose particles (fixed point and f32): what the contact anchors keep, copy
/// and re-gather depends on the state alone. (From a review's stress test of the moving
/// colliders' anchor rules.)
#[test]
fn restoring_every_frame_steps_like_never_restoring_while_colliders_move_and_turn() {
    fn run<R: Real>(seed: u64, pattern: u64, frames: usize) {
        let (mut a, movers) = moving_colliders_world::<R>(seed);
        let (mut b, _) = moving_colliders_world::<R>(seed ^ 0xdead);
        b.restore(&a.snapshot());
        let dt = R::from_f64(1.0 / 60.0);
        for f in 0..frames {
            drive_movers(&mut a, &movers, f, pattern);
            drive_movers(&mut b, &movers, f, pattern);
            let s = b.snapshot();
            b.restore(&s);
            a.step(dt).unwrap();
            b.step(dt).unwrap();
            assert_eq!(a.state_hash(), b.state_hash(), "{} seed {seed} pattern {pattern:#x}: frame {f}", R::NAME);
        }
    }
    for (seed, pattern) in [(1, 0x0000), (2, 0x1111), (3, 0x2222), (4, 0x0123), (5, 0x3210)] {
        run::<Fx>(seed, pattern, 240);
    }
    run::<f32>(6, 0x1203, 240);
}
