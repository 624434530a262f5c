//! Ragdolls spawned from components: falling, writeback to node entities, coming to rest,
//! grabbing, removal.

use bevy_math::Vec3;
use bevy_sinew::prelude::*;
use bevy_transform::components::Transform;
use sinew::{Space2, Space3};

use crate::common::{STEP, app, drain, run_steps, step_count};

type S2 = Space2<f32>;

/// Node positions of `ragdoll` (written back).
fn nodes(app: &bevy_app::App, ragdoll: bevy_ecs::entity::Entity) -> RagdollNodes {
    app.world().get::<RagdollNodes>(ragdoll).unwrap().clone()
}

fn falls_and_its_transforms_follow<S: PluginSpace>() {
    let mut app = app::<S>(STEP);
    // z = 5 is a 2D game's draw order: writeback keeps it there.
    let ragdoll = app.world_mut().spawn((SinewRagdoll::humanoid(), Transform::from_xyz(0.0, 2.0, 5.0))).id();
    run_steps::<S>(&mut app, 1);
    let start = nodes(&app, ragdoll);
    assert!(start.entities.len() >= 15 && start.entities.len() == start.positions.len(), "one entity per node");
    run_steps::<S>(&mut app, 20);
    let now = nodes(&app, ragdoll);
    // 20 steps of free fall: every node is ½gt² lower (t = 20/64 s), to within the first
    // step's share.
    let fall = 0.5 * 9.81 * (20.0 * STEP as f32).powi(2);
    for (a, b) in start.positions.iter().zip(&now.positions) {
        assert!(((a.y - b.y) - fall).abs() < 0.1 * fall, "node fell {} m, free fall {fall} m", a.y - b.y);
    }
    let is_2d = S::DIM == 2;
    for (i, (&e, &p)) in now.entities.iter().zip(&now.positions).enumerate() {
        let t = app.world().get::<Transform>(e).unwrap().translation;
        let expected = if is_2d { p.with_z(5.0) } else { p };
        assert_eq!(t, expected, "node {i}'s transform is its position");
        assert_eq!(app.world().get::<RagdollNode>(e), Some(&RagdollNode { ragdoll, index: i }));
    }
    let root = app.world().resource::<SinewWorld<S>>().ragdoll(ragdoll).unwrap().root();
    let t = app.world().get::<Transform>(ragdoll).unwrap().translation;
    assert_eq!(t.y, now.positions[root].y, "the ragdoll entity follows its root node");
}

#[test]
fn a_2d_ragdoll_falls_under_gravity_and_its_node_transforms_follow() {
    falls_and_its_transforms_follow::<S2>();
}

#[test]
fn a_3d_ragdoll_falls_under_gravity_and_its_node_transforms_follow() {
    falls_and_its_transforms_follow::<Space3<f32>>();
}

#[test]
fn a_ragdoll_dropped_from_2_m_comes_to_rest_on_the_ground() {
    let mut app = app::<S2>(STEP);
    app.insert_resource(SinewSettings { friction: 0.6, ..Default::default() });
    app.world_mut().spawn(SinewCollider::ground());
    let ragdoll = app.world_mut().spawn((SinewRagdoll::humanoid(), Transform::from_xyz(0.0, 2.0, 0.0))).id();
    run_steps::<S2>(&mut app, 5 * 64);
    let settled = nodes(&app, ragdoll).positions;
    run_steps::<S2>(&mut app, 6 * 64);
    let later = nodes(&app, ragdoll).positions;
    let sim = app.world().resource::<SinewWorld<S2>>();
    let body = sim.ragdoll(ragdoll).unwrap();
    for (i, (a, b)) in settled.iter().zip(&later).enumerate() {
        assert!(a.distance(*b) < 0.005, "node {i} still moving: {a} -> {b}");
        let r = sim.world().particles().radius(body.nodes()[i]).unwrap();
        assert!(b.y > r - 1e-3, "node {i} is not in the ground");
    }
    let lowest = later.iter().map(|p| p.y).fold(f32::MAX, f32::min);
    assert!(lowest < 0.2, "it lies on the ground, lowest node at {lowest} m");
    assert!(body.is_sleeping(sim.world()), "and the world has put it to sleep");
}

#[test]
fn a_ragdoll_grabbed_by_the_hand_is_thrown_with_its_velocity() {
    let mut app = app::<S2>(STEP);
    app.world_mut().spawn(SinewCollider::ground());
    let ragdoll = app.world_mut().spawn(SinewRagdoll::humanoid()).id();
    run_steps::<S2>(&mut app, 1);
    let mut hand = nodes(&app, ragdoll).positions[0] + Vec3::new(0.0, 0.01, 0.0);
    app.world_mut().write_message(Grab::at(ragdoll, GrabPoint::Index(0), hand));
    let velocity = Vec3::new(3.0, 4.0, 0.0);
    for _ in 0..20 {
        app.update();
        hand += velocity * STEP as f32;
        app.world_mut().write_message(MoveGrab { target: ragdoll, hand });
    }
    app.update();
    assert!((nodes(&app, ragdoll).positions[0] - hand).length() < 1e-4, "the grabbed node is at the hand");
    app.world_mut().write_message(ReleaseGrab { target: ragdoll });
    app.update();
    let released = drain::<GrabReleased>(&mut app);
    assert_eq!(released.len(), 1);
    assert!((released[0].velocity - velocity).length() < 1e-2, "thrown at {}", released[0].velocity);
}

#[test]
fn despawning_a_ragdoll_removes_it_and_its_node_entities() {
    let mut app = app::<S2>(STEP);
    let ragdoll = app.world_mut().spawn(SinewRagdoll::humanoid()).id();
    run_steps::<S2>(&mut app, 2);
    let node_entities = nodes(&app, ragdoll).entities;
    assert!(app.world().resource::<SinewWorld<S2>>().world().particles().len() >= node_entities.len());
    app.world_mut().despawn(ragdoll);
    let steps = step_count::<S2>(&app);
    run_steps::<S2>(&mut app, steps + 1);
    assert!(node_entities.iter().all(|&e| app.world().get_entity(e).is_err()), "node entities despawned");
    let sim = app.world().resource::<SinewWorld<S2>>();
    assert!(sim.ragdoll(ragdoll).is_none());
    assert_eq!(sim.world().particles().len(), 0, "its particles left the world");
}

#[test]
fn a_ragdoll_landing_sends_hits_with_the_ground_normal_and_none_once_at_rest() {
    let mut app = app::<S2>(STEP);
    app.world_mut().spawn(SinewCollider::ground());
    // Feet 2 m up: the body lands at about sqrt(2 g 2 m) = 6.3 m/s.
    let ragdoll = app
        .world_mut()
        .spawn((SinewRagdoll::humanoid(), Transform::from_xyz(0.0, 2.0, 0.0), HitEvents { min_speed: 2.0 }))
        .id();
    let mut hits = Vec::new();
    let mut landing = Vec::new();
    for _ in 0..64 {
        app.update();
        let these = drain::<Hit>(&mut app);
        if landing.is_empty() {
            landing.clone_from(&these);
        }
        hits.extend(these);
    }
    assert!(!landing.is_empty(), "the landing is a hit");
    assert!(landing.iter().all(|h| h.entity == ragdoll));
    // The ground stops the legs, which stop the body: every knock of the landing step points
    // upward (the bones give them sideways parts).
    assert!(landing.iter().all(|h| h.direction.y > 0.5), "knocked upward: {landing:?}");
    let hardest = hits.iter().map(|h| h.speed).fold(0.0, f32::max);
    assert!((4.0..10.0).contains(&hardest), "the hardest knock is about the landing speed: {hardest} m/s");
    let steps = step_count::<S2>(&app);
    run_steps::<S2>(&mut app, steps + 4 * 64);
    drain::<Hit>(&mut app);
    run_steps::<S2>(&mut app, steps + 5 * 64);
    assert!(drain::<Hit>(&mut app).is_empty(), "a body at rest takes no hits");
}

#[test]
fn a_custom_rig_spawns_in_the_given_pose_and_a_rig_of_another_space_does_not() {
    let mut app = app::<S2>(STEP);
    let rig = sinew::ragdoll::presets::humanoid16::<f32>();
    // The rest pose, raised 1 m in the entity's frame; the entity stands at x = 3.
    let pose: Vec<Vec3> = rig.rest_positions().iter().map(|p| Vec3::new(p.x, p.y + 1.0, 0.0)).collect();
    let mine = app
        .world_mut()
        .spawn((SinewRagdoll::custom(rig.clone()).pose(pose.clone()), Transform::from_xyz(3.0, 0.0, 0.0)))
        .id();
    let theirs = app.world_mut().spawn(SinewRagdoll::custom(sinew::ragdoll::presets::humanoid3d::<f32>())).id();
    app.update();
    app.update();
    let sim = app.world().resource::<SinewWorld<S2>>();
    assert!(sim.ragdoll(theirs).is_none(), "a 3D rig in a 2D world is refused");
    let body = sim.ragdoll(mine).expect("spawned");
    assert_eq!(body.nodes().len(), rig.node_count());
    // Where it was put, to within one step of fall.
    let at = nodes(&app, mine).positions;
    for (p, q) in at.iter().zip(&pose) {
        assert!((*p - (*q + Vec3::new(3.0, 0.0, 0.0))).length() < 0.01, "{p} against {q} + 3 x");
    }
}
