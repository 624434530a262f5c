//! Muscle ragdolls spawned from components: holding a preset, changing the target at
//! runtime, node entities.

use bevy_app::App;
use bevy_ecs::entity::Entity;
use bevy_sinew::prelude::*;
use bevy_transform::components::Transform;
use sinew::ragdoll::presets;
use sinew::{Pose, Space2};

use crate::common::{STEP, app, run_steps, step_count};

type S2 = Space2<f32>;

/// The preset pose `name` of the 2D fighter.
fn preset(name: &str) -> Pose<S2> {
    presets::humanoid16_poses::<f32>().into_iter().find(|(n, _)| *n == name).unwrap().1
}

/// Largest distance of a node from where `target` puts it, both relative to the root.
fn pose_error(app: &App, fighter: Entity, target: &Pose<S2>) -> f32 {
    let sim = app.world().resource::<SinewWorld<S2>>();
    let h = sim.muscle_ragdoll(fighter).expect("spawned");
    sim.world().controller(h).unwrap().pose_error(sim.world(), target).unwrap()
}

fn fighter_app() -> (App, Entity) {
    let mut app = app::<S2>(STEP);
    // The library's muscle tests stand on a ground with friction 1.
    app.insert_resource(SinewSettings { friction: 1.0, ..Default::default() });
    app.world_mut().spawn(SinewCollider::ground());
    let fighter = app
        .world_mut()
        .spawn((SinewMuscleRagdoll::humanoid(), Transform::from_xyz(2.0, 0.0, 0.0), MuscleTarget::named("stance")))
        .id();
    (app, fighter)
}

#[test]
fn a_muscle_ragdoll_holds_its_stance_and_reaches_a_new_target_pose_set_at_runtime() {
    let (mut app, fighter) = fighter_app();
    run_steps::<S2>(&mut app, 64);
    let (stance, crouch) = (preset("stance"), preset("crouch"));
    let standing = pose_error(&app, fighter, &stance);
    assert!(standing < 0.01, "standing in the stance within 1 cm: {standing} m");
    let far = pose_error(&app, fighter, &crouch);
    assert!(far > 0.1, "the crouch is another pose: {far} m away");
    // Spawned where the entity is: the pelvis above x = 2.
    let nodes = app.world().get::<RagdollNodes>(fighter).unwrap().clone();
    let pelvis = presets::humanoid16_stabilised::<f32>().node_index("pelvis").unwrap();
    assert!((nodes.positions[pelvis].x - 2.0).abs() < 0.05, "pelvis at {}", nodes.positions[pelvis]);

    *app.world_mut().get_mut::<MuscleTarget>(fighter).unwrap() = MuscleTarget::named("crouch");
    let steps = step_count::<S2>(&app);
    run_steps::<S2>(&mut app, steps + 1);
    let sim = app.world().resource::<SinewWorld<S2>>();
    let m = sim.world().controller(sim.muscle_ragdoll(fighter).unwrap()).unwrap();
    assert_eq!(m.chosen_preset(), Some(1), "the crouch is the target");
    // 50 steps of blend, the strength back to full after 122: 4 s is ample.
    run_steps::<S2>(&mut app, steps + 4 * 64);
    let crouching = pose_error(&app, fighter, &crouch);
    assert!(crouching < 0.01, "crouching within 1 cm of the preset: {crouching} m");
    // Node entities follow the nodes.
    let nodes = app.world().get::<RagdollNodes>(fighter).unwrap();
    for (&e, &p) in nodes.entities.iter().zip(&nodes.positions) {
        assert_eq!(app.world().get::<Transform>(e).unwrap().translation, p);
    }
}

#[test]
fn an_unknown_target_is_refused_and_a_3d_world_has_no_muscle_humanoid() {
    let (mut app, fighter) = fighter_app();
    run_steps::<S2>(&mut app, 2);
    *app.world_mut().get_mut::<MuscleTarget>(fighter).unwrap() = MuscleTarget::named("somersault");
    run_steps::<S2>(&mut app, 4);
    let sim = app.world().resource::<SinewWorld<S2>>();
    let m = sim.world().controller(sim.muscle_ragdoll(fighter).unwrap()).unwrap();
    assert_eq!(m.chosen_preset(), Some(0), "an unknown preset leaves the stance (logged)");

    type S3 = sinew::Space3<f32>;
    let mut app3 = crate::common::app::<S3>(STEP);
    let e = app3.world_mut().spawn(SinewMuscleRagdoll::humanoid()).id();
    run_steps::<S3>(&mut app3, 2);
    assert!(app3.world().resource::<SinewWorld<S3>>().muscle_ragdoll(e).is_none(), "logged, not spawned");
}

#[test]
fn a_muscle_ragdoll_despawned_after_a_snapshot_comes_back_on_restore() {
    let (mut untouched, _) = fighter_app();
    run_steps::<S2>(&mut untouched, 60);
    let (mut app, fighter) = fighter_app();
    run_steps::<S2>(&mut app, 20);
    let snapshot = app.world().resource::<SinewWorld<S2>>().snapshot();
    app.world_mut().despawn(fighter);
    run_steps::<S2>(&mut app, 30);
    assert_eq!(app.world().resource::<SinewWorld<S2>>().world().controller_count(), 0, "removed");
    app.world_mut().resource_mut::<SinewWorld<S2>>().restore(&snapshot);
    app.update();
    let report = crate::common::drain::<SinewRestored>(&mut app);
    run_steps::<S2>(&mut app, 60);
    let sim = app.world().resource::<SinewWorld<S2>>();
    assert_eq!(sim.state_hash(), untouched.world().resource::<SinewWorld<S2>>().state_hash());
    assert_eq!(report.len(), 1);
    let [(old, new)] = report[0].respawned[..] else { panic!("one respawn: {report:?}") };
    assert_eq!(old, fighter);
    assert!(sim.muscle_ragdoll(new).is_some() && app.world().get::<SinewMuscleRagdoll>(new).is_some());
    let nodes = app.world().get::<RagdollNodes>(new).unwrap();
    assert_eq!(nodes.entities.len(), presets::humanoid16_stabilised::<f32>().node_count());
    assert!(pose_error(&app, new, &preset("stance")) < 0.01, "standing again");
}
