//! Interpolation between the last two steps, and the two ways of stepping.

use std::time::Duration;

use bevy_app::prelude::*;
use bevy_math::Vec3;
use bevy_sinew::prelude::*;
use bevy_time::{Fixed, Time, TimePlugin, TimeUpdateStrategy};
use bevy_transform::TransformPlugin;
use bevy_transform::components::Transform;
use sinew::Space2;

use crate::common::{app, run_steps};

type S2 = Space2<f32>;

#[test]
fn interpolated_transforms_lie_between_the_last_two_steps() {
    // 150 Hz frames over 64 Hz steps: most frames end part-way into a step.
    let mut app = app::<S2>(1.0 / 150.0);
    let ragdoll = app
        .world_mut()
        .spawn((SinewRagdoll::humanoid(), Transform::from_xyz(0.0, 3.0, 0.0), TransformInterpolation))
        .id();
    let rope = app
        .world_mut()
        .spawn((
            SinewRope::between(Vec3::new(0.0, 3.0, 0.0), Vec3::new(2.0, 3.0, 0.0)).pin_start(),
            TransformInterpolation,
        ))
        .id();
    run_steps::<S2>(&mut app, 2);
    let mut strictly_between = 0;
    for _ in 0..100 {
        app.update();
        let alpha = app.world().resource::<Time<Fixed>>().overstep_fraction();
        assert!((0.0..1.0).contains(&alpha));
        let nodes = app.world().get::<RagdollNodes>(ragdoll).unwrap().entities.clone();
        for e in nodes.into_iter().chain([ragdoll]) {
            let pos = *app.world().get::<SimulatedPosition>(e).unwrap();
            let drawn = app.world().get::<Transform>(e).unwrap().translation;
            assert!((drawn - pos.previous.lerp(pos.current, alpha)).length() < 1e-6, "drawn at the blend");
            let (a, b) = (pos.previous.distance(drawn), drawn.distance(pos.current));
            assert!((a + b - pos.previous.distance(pos.current)).abs() < 1e-5, "on the segment between the steps");
            if alpha > 0.1 && alpha < 0.9 && pos.previous.distance(pos.current) > 1e-3 {
                assert!(a > 1e-4 && b > 1e-4, "strictly between them");
                strictly_between += 1;
            }
        }
        let points = app.world().get::<RopePoints>(rope).unwrap();
        for ((p, c), d) in points.previous.iter().zip(&points.current).zip(&points.points) {
            assert!((*d - p.lerp(*c, alpha)).length() < 1e-6, "rope points are blended the same way");
        }
    }
    assert!(strictly_between > 100, "the test saw motion between steps ({strictly_between})");
}

#[test]
fn without_interpolation_transforms_are_the_last_step() {
    let mut app = app::<S2>(1.0 / 150.0);
    let ragdoll = app.world_mut().spawn((SinewRagdoll::humanoid(), Transform::from_xyz(0.0, 3.0, 0.0))).id();
    run_steps::<S2>(&mut app, 10);
    for _ in 0..10 {
        app.update();
        let pos = *app.world().get::<SimulatedPosition>(ragdoll).unwrap();
        assert_eq!(app.world().get::<Transform>(ragdoll).unwrap().translation, pos.current);
    }
}

#[test]
fn in_update_the_hz_timestep_takes_whole_exact_steps() {
    let mut app = App::new();
    app.add_plugins((TimePlugin, TransformPlugin, Sinew2dPlugin::in_schedule(Update)));
    app.insert_resource(SinewSettings { timestep: SinewTimestep::Hz { hz: 60, max_steps: 4 }, ..Default::default() });
    // 30 Hz frames: two 1/60 s steps each.
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(1.0 / 30.0)));
    let ragdoll = app
        .world_mut()
        .spawn((SinewRagdoll::humanoid(), Transform::from_xyz(0.0, 3.0, 0.0), TransformInterpolation))
        .id();
    app.update(); // the clock's first frame has no time in it
    for frame in 1..=10u64 {
        app.update();
        let sim = app.world().resource::<SinewWorld<S2>>();
        assert!(sim.steps_last_run() == 2 || (frame == 1 && sim.steps_last_run() >= 1));
        let pos = *app.world().get::<SimulatedPosition>(ragdoll).unwrap();
        let drawn = app.world().get::<Transform>(ragdoll).unwrap().translation;
        // Whole steps fit the frame exactly (up to f32 rounding of the frame time): alpha ~ 0 or ~ 1.
        let near_a_step = drawn.distance(pos.current).min(drawn.distance(pos.previous));
        assert!(near_a_step < 1e-3, "frame {frame}: drawn {drawn} within a step's rounding of a state");
    }
    let sim = app.world().resource::<SinewWorld<S2>>();
    let (steps, time) = (sim.world().step_count(), sim.world().time());
    assert!((steps as f32 / 60.0 - time).abs() < 1e-5, "each step is 1/60 s");
    assert!((19..=20).contains(&steps), "two steps per 1/30 s frame: {steps}");
}
