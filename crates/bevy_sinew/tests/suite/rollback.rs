//! Rollback: snapshot and restore through the resource, and determinism — the same world
//! stepped through the plugin, twice and against the bare library.

use bevy_app::App;
use bevy_math::{Quat, Vec3};
use bevy_sinew::prelude::*;
use bevy_transform::components::Transform;
use sinew::math::Real;
use sinew::ragdoll::SpawnDef;
use sinew::{ColliderDef, Fx, Ragdoll, RealOf, Shape, Space2, Space3, World};

use bevy_ecs::entity::Entity;
use bevy_sinew::rope::SpawnedRope;

use crate::common::{STEP, app, drain, run_steps, step_count};

/// A scene: the ground, a rope pinned at one end, a ragdoll falling onto it.
fn scene(app: &mut App) {
    app.world_mut().spawn(SinewCollider::ground());
    app.world_mut().spawn(rope());
    app.world_mut().spawn((SinewRagdoll::humanoid(), Transform::from_xyz(0.5, 1.0, 0.0)));
}

fn rope() -> SinewRope {
    SinewRope::between(Vec3::new(-1.0, 2.0, 0.0), Vec3::new(1.0, 2.5, 0.0)).segments(16).mass(0.5).pin_start()
}

fn hash<S: PluginSpace>(app: &App) -> u64 {
    app.world().resource::<SinewWorld<S>>().state_hash()
}

fn snapshot_restore<S: PluginSpace>() {
    let mut app = app::<S>(STEP);
    scene(&mut app);
    run_steps::<S>(&mut app, 30);
    let snapshot = app.world().resource::<SinewWorld<S>>().snapshot();
    assert_eq!(snapshot.state_hash(), hash::<S>(&app));
    let steps = step_count::<S>(&app);
    run_steps::<S>(&mut app, steps + 1);
    let once = hash::<S>(&app);
    assert_ne!(once, snapshot.state_hash(), "a step changes the state");
    app.world_mut().resource_mut::<SinewWorld<S>>().restore(&snapshot);
    assert_eq!(hash::<S>(&app), snapshot.state_hash(), "restored bit for bit");
    run_steps::<S>(&mut app, steps + 1);
    assert_eq!(hash::<S>(&app), once, "the same step again gives the same state");
    // And the restored frame was written back without a slide: previous = current.
    let restored_now = app.world().resource::<SinewWorld<S>>().world().step_count();
    assert_eq!(restored_now, steps + 1);
}

#[test]
fn snapshot_step_restore_step_gives_the_hash_of_one_step_in_f32() {
    snapshot_restore::<Space2<f32>>();
}

#[test]
fn snapshot_step_restore_step_gives_the_hash_of_one_step_in_fixed_point() {
    snapshot_restore::<Space2<Fx>>();
}

/// The scene built and stepped with the library alone, as the plugin builds it: the
/// collider, then the rope, then the ragdoll, from the same definitions.
fn bare_library<S: PluginSpace>(steps: u64) -> u64 {
    let mut world = World::<S>::new(SinewSettings::default().world_def()).unwrap();
    let ground = Shape::half_space(S::vector(Vec3::Y), RealOf::<S>::ZERO).unwrap();
    world
        .add_collider(&ColliderDef::new(ground).position(S::vector(Vec3::ZERO)).rotation(S::rotation(Quat::IDENTITY)))
        .unwrap();
    world.add_rope(&rope().rope_def::<S>(None, None)).unwrap();
    let rig = S::humanoid();
    let origin = S::vector(Vec3::new(0.5, 1.0, 0.0));
    let spawn = SpawnDef::from_rig(&rig, origin, S::rotation(Quat::IDENTITY), RealOf::<S>::ONE, S::vector(Vec3::ZERO));
    Ragdoll::spawn_with(&mut world, &rig, &spawn).unwrap();
    let dt = RealOf::<S>::from_f64(STEP);
    for _ in 0..steps {
        world.step(dt).unwrap();
    }
    world.state_hash()
}

fn plugin_matches_library<S: PluginSpace>() -> u64 {
    let run = || {
        let mut app = app::<S>(STEP);
        scene(&mut app);
        run_steps::<S>(&mut app, 90);
        hash::<S>(&app)
    };
    let (first, second) = (run(), run());
    assert_eq!(first, second, "two apps, same frames: same state");
    assert_eq!(first, bare_library::<S>(90), "the plugin steps the world exactly as the library does");
    first
}

#[test]
fn a_fixed_point_world_hashes_the_same_in_two_apps_and_in_the_bare_library() {
    plugin_matches_library::<Space2<Fx>>();
    plugin_matches_library::<Space3<Fx>>();
}

#[test]
fn a_float_world_stepped_by_the_plugin_matches_the_bare_library() {
    plugin_matches_library::<Space2<f32>>();
}

#[test]
fn every_run_steps_a_fixed_point_world_by_exactly_one_frame_whatever_the_clock() {
    type X = Space2<Fx>;
    let mut app = App::new();
    app.add_plugins((
        bevy_time::TimePlugin,
        bevy_transform::TransformPlugin,
        Sinew2dFixedPlugin::in_schedule(bevy_app::Update),
    ));
    app.insert_resource(SinewSettings { timestep: SinewTimestep::EveryRun { hz: 60 }, ..Default::default() });
    scene(&mut app);
    // Frames of uneven length, as a real clock gives them: each is one 1/60 s step.
    for i in 0..60u32 {
        let ms = [16, 17, 33, 8][i as usize % 4];
        app.insert_resource(bevy_time::TimeUpdateStrategy::ManualDuration(std::time::Duration::from_millis(ms)));
        app.update();
    }
    let sim = app.world().resource::<SinewWorld<X>>();
    assert_eq!(sim.world().step_count(), 60);
    assert_eq!(sim.world().time(), Fx::from_ratio(1, 60) * Fx::from_i32(60), "60 exact frames");
    // The same as the library stepped 60 times by 1/60 s.
    let mut world = World::<X>::new(SinewSettings::default().world_def()).unwrap();
    let ground = Shape::half_space(X::vector(Vec3::Y), Fx::ZERO).unwrap();
    world.add_collider(&ColliderDef::new(ground).rotation(X::rotation(Quat::IDENTITY))).unwrap();
    world.add_rope(&rope().rope_def::<X>(None, None)).unwrap();
    let rig = X::humanoid();
    let spawn = SpawnDef::from_rig(
        &rig,
        X::vector(Vec3::new(0.5, 1.0, 0.0)),
        X::rotation(Quat::IDENTITY),
        Fx::ONE,
        X::vector(Vec3::ZERO),
    );
    Ragdoll::spawn_with(&mut world, &rig, &spawn).unwrap();
    for _ in 0..60 {
        world.step(Fx::from_ratio(1, 60)).unwrap();
    }
    assert_eq!(sim.state_hash(), world.state_hash());
}

#[test]
fn a_cloned_world_resource_rolls_back_grabs_too() {
    type S = Space2<f32>;
    let mut app = app::<S>(STEP);
    scene(&mut app);
    run_steps::<S>(&mut app, 10);
    let saved = app.world().resource::<SinewWorld<S>>().clone();
    let (ragdoll, _) = saved.ragdolls().next().unwrap();
    app.world_mut().write_message(Grab::at(ragdoll, GrabPoint::Index(0), Vec3::new(0.5, 3.0, 0.0)));
    run_steps::<S>(&mut app, 12);
    assert!(app.world().resource::<SinewWorld<S>>().is_grabbed(ragdoll));
    let after_grab = hash::<S>(&app);
    app.insert_resource(saved.clone());
    assert!(!app.world().resource::<SinewWorld<S>>().is_grabbed(ragdoll), "the grab is rolled back with the world");
    assert_eq!(hash::<S>(&app), saved.state_hash());
    // Re-simulate with the same input: the same state.
    app.world_mut().write_message(Grab::at(ragdoll, GrabPoint::Index(0), Vec3::new(0.5, 3.0, 0.0)));
    run_steps::<S>(&mut app, 12);
    assert_eq!(hash::<S>(&app), after_grab);
}

/// The scene with a ball collider too; returns the rope, ragdoll and ball entities.
fn scene_with_ball(app: &mut App) -> (Entity, Entity, Entity) {
    app.world_mut().spawn(SinewCollider::ground());
    let rope = app.world_mut().spawn((rope(), TransformInterpolation, RopeTensionLimit(1e6))).id();
    let ragdoll = app.world_mut().spawn((SinewRagdoll::humanoid(), Transform::from_xyz(0.5, 1.0, 0.0))).id();
    let ball = app.world_mut().spawn((SinewCollider::ball(0.2), Transform::from_xyz(-0.5, 0.5, 0.0))).id();
    (rope, ragdoll, ball)
}

fn restore_covers_spawns_and_despawns<S: PluginSpace>() {
    // Untouched: 30 steps, then 20.
    let mut untouched = app::<S>(STEP);
    scene_with_ball(&mut untouched);
    run_steps::<S>(&mut untouched, 50);
    let expected = hash::<S>(&untouched);

    let mut app = app::<S>(STEP);
    let (old_rope, old_ragdoll, old_ball) = scene_with_ball(&mut app);
    run_steps::<S>(&mut app, 30);
    let snapshot = app.world().resource::<SinewWorld<S>>().snapshot();
    let old_nodes = app.world().get::<RagdollNodes>(old_ragdoll).unwrap().entities.clone();
    // After the snapshot: a new rope, ragdoll and collider; the old ones despawned.
    let new_rope =
        app.world_mut().spawn(SinewRope::between(Vec3::new(2.0, 3.0, 0.0), Vec3::new(3.0, 3.0, 0.0)).pin_start()).id();
    let new_ragdoll = app.world_mut().spawn((SinewRagdoll::humanoid(), Transform::from_xyz(-2.0, 1.0, 0.0))).id();
    let new_ball = app.world_mut().spawn(SinewCollider::ball(0.1)).id();
    for e in [old_rope, old_ragdoll, old_ball] {
        app.world_mut().despawn(e);
    }
    run_steps::<S>(&mut app, 40);
    assert_eq!(app.world().resource::<SinewWorld<S>>().world().ropes().count(), 1, "only the new rope");
    let new_nodes = app.world().get::<RagdollNodes>(new_ragdoll).unwrap().entities.clone();
    assert!(!new_nodes.is_empty());

    app.world_mut().resource_mut::<SinewWorld<S>>().restore(&snapshot);
    assert_eq!(hash::<S>(&app), snapshot.state_hash());
    app.update();
    let restored = drain::<SinewRestored>(&mut app);
    run_steps::<S>(&mut app, 50);
    assert_eq!(hash::<S>(&app), expected, "restored and stepped 20 = never touched");

    // The entities match the restored world.
    assert_eq!(restored.len(), 1, "one report per restore");
    let report = &restored[0];
    let mut despawned = report.despawned.clone();
    despawned.sort();
    let mut spawned_after = vec![new_rope, new_ragdoll, new_ball];
    spawned_after.sort();
    assert_eq!(despawned, spawned_after);
    for e in spawned_after.iter().chain(&new_nodes) {
        assert!(app.world().get_entity(*e).is_err(), "{e} spawned after the snapshot is gone");
    }
    assert_eq!(report.respawned.len(), 3);
    assert!(report.lost.is_empty());
    let again = |old: Entity| report.respawned.iter().find(|(o, _)| *o == old).map(|&(_, n)| n).unwrap();
    let (rope_now, ragdoll_now, ball_now) = (again(old_rope), again(old_ragdoll), again(old_ball));
    let sim = app.world().resource::<SinewWorld<S>>();
    assert_eq!(sim.world().ropes().count(), 1);
    assert_eq!(sim.rope(rope_now), sim.world().ropes().next().map(|(h, _)| h), "the respawned entity is the rope");
    assert!(sim.ragdoll(ragdoll_now).is_some() && sim.collider(ball_now).is_some());
    assert!(app.world().get::<TransformInterpolation>(rope_now).is_some(), "its optional components come back");
    assert_eq!(app.world().get::<RopeTensionLimit>(rope_now), Some(&RopeTensionLimit(1e6)));
    // Written back as the untouched run's entities are.
    let untouched_rope = untouched.world().resource::<SinewWorld<S>>().ropes().next().unwrap().0;
    assert_eq!(
        app.world().get::<RopePoints>(rope_now).unwrap().current,
        untouched.world().get::<RopePoints>(untouched_rope).unwrap().current
    );
    let nodes_now = app.world().get::<RagdollNodes>(ragdoll_now).unwrap();
    assert_eq!(nodes_now.entities.len(), old_nodes.len(), "new node entities");
    for (i, &n) in nodes_now.entities.iter().enumerate() {
        assert_eq!(app.world().get::<RagdollNode>(n), Some(&RagdollNode { ragdoll: ragdoll_now, index: i }));
        let t = app.world().get::<Transform>(n).unwrap().translation;
        assert_eq!(t, nodes_now.positions[i].with_z(0.0), "node {i} follows its node");
    }
    assert!(old_nodes.iter().all(|&n| app.world().get_entity(n).is_err()));
}

#[test]
fn snapshot_spawn_despawn_step_restore_step_gives_the_untouched_hash_in_f32() {
    restore_covers_spawns_and_despawns::<Space2<f32>>();
}

#[test]
fn snapshot_spawn_despawn_step_restore_step_gives_the_untouched_hash_in_fixed_point() {
    restore_covers_spawns_and_despawns::<Space2<Fx>>();
}

#[test]
fn a_removed_rope_component_is_put_back_on_the_same_entity() {
    type S = Space2<f32>;
    let build = || {
        let mut app = app::<S>(STEP);
        let rope_entity = app.world_mut().spawn(rope()).id();
        app.world_mut().spawn(SinewCollider::ground());
        (app, rope_entity)
    };
    let (mut untouched, _) = build();
    run_steps::<S>(&mut untouched, 40);
    let (mut app, rope_entity) = build();
    run_steps::<S>(&mut app, 20);
    let snapshot = app.world().resource::<SinewWorld<S>>().snapshot();
    app.world_mut().entity_mut(rope_entity).remove::<SinewRope>();
    run_steps::<S>(&mut app, 25);
    assert_eq!(app.world().resource::<SinewWorld<S>>().world().ropes().count(), 0, "removed");
    app.world_mut().resource_mut::<SinewWorld<S>>().restore(&snapshot);
    app.update();
    let report = drain::<SinewRestored>(&mut app);
    run_steps::<S>(&mut app, 40);
    assert_eq!(hash::<S>(&app), hash::<S>(&untouched));
    assert_eq!(report, vec![SinewRestored::default()], "nothing despawned or respawned");
    assert!(app.world().get::<SinewRope>(rope_entity).is_some(), "the component is back on its entity");
    let sim = app.world().resource::<SinewWorld<S>>();
    assert_eq!(sim.world().ropes().count(), 1);
    assert_eq!(app.world().get::<SpawnedRope>(rope_entity).unwrap().handle(), sim.rope(rope_entity));
    assert_eq!(app.world().get::<RopePoints>(rope_entity).unwrap().current.len(), 17);
}
