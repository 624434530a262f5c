//! The world resource: settings changes, colliders following their entities.

use bevy_math::{Quat, Vec3};
use bevy_sinew::prelude::*;
use bevy_transform::components::Transform;
use sinew::Space2;

use crate::common::{STEP, app, run_steps, step_count};

type S2 = Space2<f32>;

#[test]
fn changed_settings_reach_the_world_before_the_next_step() {
    let mut app = app::<S2>(STEP);
    let rope = app.world_mut().spawn(SinewRope::between(Vec3::ZERO, Vec3::X).segments(4)).id();
    run_steps::<S2>(&mut app, 2);
    assert_eq!(app.world().resource::<SinewWorld<S2>>().world().def().substeps, 8);
    // Weightless from now on: the rope keeps the velocity it has.
    app.insert_resource(SinewSettings { gravity: Vec3::ZERO, substeps: 4, ..Default::default() });
    let steps = step_count::<S2>(&app);
    run_steps::<S2>(&mut app, steps + 1);
    let def = *app.world().resource::<SinewWorld<S2>>().world().def();
    assert_eq!((def.substeps, def.gravity.y), (4, 0.0));
    let velocity = |app: &bevy_app::App| {
        let p = app.world().get::<RopePoints>(rope).unwrap();
        (p.current[0] - p.previous[0]) / STEP as f32
    };
    let v = velocity(&app);
    run_steps::<S2>(&mut app, steps + 10);
    assert!((velocity(&app) - v).length() < 1e-4, "no gravity: the free rope coasts");
}

#[test]
fn a_collider_follows_its_entity_transform() {
    let mut app = app::<S2>(STEP);
    let post = app
        .world_mut()
        .spawn((SinewCollider::cuboid(Vec3::new(0.5, 0.1, 0.0)), Transform::from_xyz(0.0, 1.0, 0.0)))
        .id();
    run_steps::<S2>(&mut app, 1);
    let pose = |app: &bevy_app::App| {
        let sim = app.world().resource::<SinewWorld<S2>>();
        let c = sim.world().collider(sim.collider(post).unwrap()).unwrap();
        (c.position(), c.rotation().angle())
    };
    assert_eq!(pose(&app).0, sinew::Vector2::new(0.0, 1.0));
    *app.world_mut().get_mut::<Transform>(post).unwrap() =
        Transform::from_xyz(2.0, 0.5, 0.0).with_rotation(Quat::from_rotation_z(0.3));
    let steps = step_count::<S2>(&app);
    run_steps::<S2>(&mut app, steps + 1);
    let (p, angle) = pose(&app);
    assert_eq!(p, sinew::Vector2::new(2.0, 0.5));
    assert!((angle - 0.3).abs() < 1e-5, "turned with the entity: {angle}");
    app.world_mut().despawn(post);
    run_steps::<S2>(&mut app, steps + 2);
    assert_eq!(app.world().resource::<SinewWorld<S2>>().world().colliders().count(), 0, "despawned, removed");
}
