//! Removal and lifetimes: removing a particle, a collider or a constraint cleans every
//! structure that names it, a new object that reuses a freed slot inherits nothing, and a
//! world restored after removals steps exactly like one that never saw them.

use sinew::prelude::*;
use sinew::ragdoll::presets;

const DT: f64 = 1.0 / 60.0;

fn v(x: f64, y: f64) -> Vector2<f64> {
    Vector2::new(x, y)
}

/// A 2 m rope of 10 segments pinned at its start, swinging.
fn rope_world() -> (World2d, RopeHandle) {
    let mut w = World2d::new(WorldDef::default()).unwrap();
    let rope = w.add_rope(&RopeDef::between(v(0.0, 2.0), v(2.0, 2.0)).segments(10).pin_start()).unwrap();
    (w, rope)
}

/// Steps `w` `n` times.
fn run(w: &mut World2d, n: usize) {
    for _ in 0..n {
        w.step(DT).unwrap();
    }
}

/// Where a free particle released at rest from `y0` is after `t` seconds of the world's
/// symplectic Euler at 8 substeps (exact: `y0 − g·h²·n(n+1)/2` after `n` substeps).
fn fallen(y0: f64, steps: usize) -> f64 {
    let n = (steps * 8) as f64;
    let h = DT / 8.0;
    y0 - 9.81 * h * h * n * (n + 1.0) / 2.0
}

#[test]
fn removing_an_inner_rope_particle_splits_the_rope_around_it() {
    let (mut w, rope) = rope_world();
    run(&mut w, 30);
    let ps = w.rope(rope).unwrap().particles().to_vec();
    w.remove_particle(ps[5]).unwrap();
    let ropes: Vec<Vec<ParticleHandle>> = w.ropes().map(|(_, r)| r.particles().to_vec()).collect();
    assert_eq!(ropes, vec![ps[..5].to_vec(), ps[6..].to_vec()], "the rope splits into 0–4 and 6–10");
    // The pieces keep simulating: the head hangs from its pin, the tail falls.
    let tail_y = w.particles().position(ps[10]).unwrap().y;
    run(&mut w, 30);
    assert!(w.particles().position(ps[10]).unwrap().y < tail_y - 0.5, "the tail falls");
    for (_, r) in w.ropes() {
        let n = r.particles().len();
        assert_eq!(r.segment_count(), n - 1);
        assert!(w.rope_tensions(w.ropes().find(|(_, q)| q.particles() == r.particles()).unwrap().0).is_ok());
    }
}

#[test]
fn removing_a_rope_end_particle_shortens_the_rope_and_a_two_particle_rope_goes() {
    let (mut w, rope) = rope_world();
    let ps = w.rope(rope).unwrap().particles().to_vec();
    w.remove_particle(ps[10]).unwrap();
    assert_eq!(w.rope(rope).unwrap().particles(), &ps[..10]);
    assert_eq!(w.rope(rope).unwrap().end(), ps[9]);
    w.remove_particle(ps[0]).unwrap();
    assert_eq!(w.rope(rope).unwrap().particles(), &ps[1..10]);
    assert_eq!(w.rope(rope).unwrap().segment_count(), 8);
    run(&mut w, 10);
    let short = w.add_rope(&RopeDef::between(v(5.0, 2.0), v(5.5, 2.0)).segments(1)).unwrap();
    let sp = w.rope(short).unwrap().particles().to_vec();
    w.remove_particle(sp[1]).unwrap();
    assert!(w.rope(short).is_err(), "a rope of one particle is no rope");
    assert!(w.particles().contains(sp[0]), "its last particle stays, free");
}

#[test]
fn a_particle_that_reuses_a_rope_particles_slot_belongs_to_no_rope() {
    let (mut w, rope) = rope_world();
    run(&mut w, 30);
    let ps = w.rope(rope).unwrap().particles().to_vec();
    w.remove_particle(ps[5]).unwrap();
    // Slots are reused last-freed-first: the new particle takes slot 5.
    let q = w.add_particle(&ParticleDef::at(v(10.0, 5.0)).radius(0.01)).unwrap();
    assert_eq!(q.index(), ps[5].index());
    assert!(w.ropes().all(|(_, r)| !r.particles().contains(&q) && !r.particles().contains(&ps[5])));
    // It falls freely: no rope link, tether or bend pulls it.
    run(&mut w, 30);
    let y = w.particles().position(q).unwrap().y;
    assert!((y - fallen(5.0, 30)).abs() < 1e-9, "fell to {y}, free fall gives {}", fallen(5.0, 30));
    assert_eq!(w.particles().position(q).unwrap().x, 10.0);
}

#[test]
fn removing_the_collider_under_a_sleeping_rope_lets_it_fall() {
    let mut w = World2d::new(WorldDef::default().friction(0.5)).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(v(0.0, 1.0), 0.0).unwrap())).unwrap();
    let table = w.add_collider(&ColliderDef::new(Shape::cuboid(v(1.5, 0.1)).unwrap()).position(v(0.0, 1.0))).unwrap();
    let rope = w.add_rope(&RopeDef::between(v(-1.0, 1.2), v(1.0, 1.2)).segments(20).radius(0.02)).unwrap();
    run(&mut w, 240);
    assert!(w.rope(rope).unwrap().is_sleeping(), "the rope comes to rest on the table and sleeps");
    let before = w.rope(rope).unwrap().particles().iter().map(|&p| w.particles().position(p).unwrap().y);
    let top = before.fold(f64::MAX, f64::min);
    assert!(top > 1.1, "on the table: {top}");
    w.remove_collider(table).unwrap();
    assert!(!w.rope(rope).unwrap().is_sleeping(), "taking its support away wakes it");
    assert!(w.contacts().all(|(_, c, _, _)| c != table.index()), "no contact names the removed collider");
    // A new collider reuses the slot, far away: the rope must not feel it.
    let far = w.add_collider(&ColliderDef::new(Shape::ball(0.5).unwrap()).position(v(20.0, 20.0))).unwrap();
    assert_eq!(far.index(), table.index());
    run(&mut w, 60);
    let ys: Vec<f64> =
        w.rope(rope).unwrap().particles().iter().map(|&p| w.particles().position(p).unwrap().y).collect();
    let highest = ys.iter().copied().fold(f64::MIN, f64::max);
    assert!(highest < 0.05, "it fell to the ground: highest particle at {highest} m");
}

#[test]
fn removing_a_ragdoll_joint_limit_frees_that_joint_only() {
    let mut w = World2d::new(WorldDef::default().impact_passes(1)).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(v(0.0, 1.0), 0.0).unwrap())).unwrap();
    let rig = presets::humanoid16::<f64>();
    let rd = Ragdoll::spawn_with(&mut w, &rig, &SpawnDef::at_rest(Pose::rest(&rig))).unwrap();
    run(&mut w, 10);
    let limits = w.joint_limits().count();
    let removed = rd.joint_limits()[0];
    w.remove_joint_limit(removed).unwrap();
    assert_eq!(w.joint_limits().count(), limits - 1);
    assert!(w.joint_limit(removed).is_err());
    // The world steps on with the rest (the impact passes' groups are rebuilt).
    run(&mut w, 120);
    assert!(w.max_joint_violation() < 0.05, "the other limits hold: {}", w.max_joint_violation());
    // A limit added later takes the freed slot and is a new limit, not the old one.
    let a = w.add_particle(&ParticleDef::at(v(5.0, 1.0))).unwrap();
    let b = w.add_particle(&ParticleDef::at(v(5.5, 1.0))).unwrap();
    let c = w.add_particle(&ParticleDef::at(v(6.0, 1.0))).unwrap();
    let new = w.add_joint_limit(&AngleLimitDef::new(a, b, c, -0.1, 0.1)).unwrap();
    assert_eq!(new.index(), removed.index());
    assert_ne!(new, removed, "a stale handle never names the new limit");
    assert!(w.joint_limit(removed).is_err());
}

#[test]
fn a_particle_that_reuses_a_sleeping_groups_slot_is_awake() {
    let mut w = World2d::new(WorldDef::default().friction(1.0)).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(v(0.0, 1.0), 0.0).unwrap())).unwrap();
    let ps: Vec<_> =
        (0..4).map(|i| w.add_particle(&ParticleDef::at(v(f64::from(i) * 0.2, 0.05)).radius(0.05)).unwrap()).collect();
    let g = w.add_sleep_group(&ps).unwrap();
    run(&mut w, 90);
    assert!(w.sleep_group(g).unwrap().is_sleeping());
    w.remove_particle(ps[2]).unwrap();
    assert_eq!(w.sleep_group(g).unwrap().particle_slots().len(), 3);
    let q = w.add_particle(&ParticleDef::at(v(10.0, 5.0))).unwrap();
    assert_eq!(q.index(), ps[2].index());
    run(&mut w, 30);
    let y = w.particles().position(q).unwrap().y;
    assert!((y - fallen(5.0, 30)).abs() < 1e-9, "it falls ({y}), not frozen by the group it never joined");
    assert!(w.sleep_group(g).unwrap().is_sleeping(), "the group sleeps on");
}

#[test]
fn a_removed_muscle_ragdoll_node_takes_its_edges_and_muscles_with_it() {
    let mut w = World2d::new(WorldDef::default().friction(1.0)).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(v(0.0, 1.0), 0.0).unwrap())).unwrap();
    let rig = presets::humanoid16_stabilised::<f64>();
    let pose = presets::humanoid16_poses::<f64>()[0].1.clone();
    let targets = presets::humanoid16_targets::<f64>();
    let md =
        MuscleRagdoll::spawn(&mut w, &rig, &MuscleRagdollDef::default(), &targets, &SpawnDef::at_rest(pose)).unwrap();
    run(&mut w, 10);
    let (edges, muscles) = {
        let m = w.controller(md).unwrap();
        (m.edge_count(), m.muscle_count())
    };
    let hand = w.controller(md).unwrap().nodes()[rig.node_index("hand_l").unwrap()];
    w.remove_particle(hand).unwrap();
    let m = w.controller(md).unwrap();
    assert!(m.edge_count() < edges && m.muscle_count() < muscles);
    // A new particle in the hand's slot is not pulled by the ragdoll.
    let q = w.add_particle(&ParticleDef::at(v(10.0, 5.0))).unwrap();
    assert_eq!(q.index(), hand.index());
    run(&mut w, 30);
    let y = w.particles().position(q).unwrap().y;
    assert!((y - fallen(5.0, 30)).abs() < 1e-9, "fell to {y}");
}

/// The same scene, and the same steps, whether or not removals happened and were rolled
/// back in between.
fn scene() -> (World2x, RopeHandle, ColliderHandle, Vec<JointLimitHandle>) {
    let x = |a: f64, b: f64| Vector2::<Fx>::from_f64(a, b);
    let mut w = World2x::new(WorldDef::default().friction(Fx::from_f64(0.5))).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(x(0.0, 1.0), Fx::ZERO).unwrap())).unwrap();
    let post =
        w.add_collider(&ColliderDef::new(Shape::ball(Fx::from_f64(0.1)).unwrap()).position(x(0.0, 0.5))).unwrap();
    let rope =
        w.add_rope(&RopeDef::between(x(-1.0, 1.0), x(1.0, 1.0)).segments(20).radius(Fx::from_f64(0.01))).unwrap();
    let rig = presets::humanoid16::<Fx>();
    let pose = Pose::rest(&rig).transformed(x(3.0, 0.0), sinew::Rot2::IDENTITY, Fx::ONE);
    let rd = Ragdoll::spawn_with(&mut w, &rig, &SpawnDef::at_rest(pose)).unwrap();
    (w, rope, post, rd.joint_limits().to_vec())
}

#[test]
fn a_world_restored_after_removals_steps_like_one_that_never_saw_them() {
    let dt = Fx::from_f64(DT);
    let (mut a, rope, post, limits) = scene();
    let (mut b, ..) = scene();
    for _ in 0..30 {
        a.step(dt).unwrap();
        b.step(dt).unwrap();
    }
    let snap = a.snapshot();
    // Remove a rope particle, the post under the rope and a ragdoll joint; add particles
    // that take the freed slots; step.
    let p = a.rope(rope).unwrap().particles()[7];
    a.remove_particle(p).unwrap();
    a.remove_collider(post).unwrap();
    a.remove_joint_limit(limits[2]).unwrap();
    for i in 0..3 {
        a.add_particle(&ParticleDef::at(Vector2::<Fx>::from_f64(f64::from(i), 3.0))).unwrap();
    }
    a.add_collider(&ColliderDef::new(Shape::ball(Fx::ONE).unwrap()).position(Vector2::<Fx>::from_f64(9.0, 9.0)))
        .unwrap();
    for _ in 0..20 {
        a.step(dt).unwrap();
    }
    assert_ne!(a.state_hash(), b.state_hash());
    // Roll back and step both 60 frames: the same hash every frame.
    a.restore(&snap);
    assert_eq!(a.state_hash(), b.state_hash(), "restored");
    for f in 0..60 {
        a.step(dt).unwrap();
        b.step(dt).unwrap();
        assert_eq!(a.state_hash(), b.state_hash(), "frame {f} after the restore");
    }
}
