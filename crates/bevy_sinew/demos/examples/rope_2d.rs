//! A rope hanging from a hook that swings left and right; pick it up anywhere with the
//! mouse (left button), drag it and let go to throw it. Drawn with Sinew's debug drawing
//! on Bevy's gizmos (colour is tension).
//!
//! ```sh
//! cargo run --release -p bevy_sinew --features examples --example rope_2d
//! ```

use bevy::prelude::*;
use bevy_sinew::gizmos::SinewGizmosPlugin;
use bevy_sinew::prelude::*;
use sinew::Space2;

fn main() {
    App::new()
        .add_plugins((DefaultPlugins, Sinew2dPlugin::default(), SinewGizmosPlugin::<Space2<f32>>::default()))
        .insert_resource(SinewSettings { friction: 0.6, ..default() })
        .add_systems(Startup, setup)
        .add_systems(FixedUpdate, swing_hook)
        .add_systems(Update, grab_with_mouse)
        .run();
}

#[derive(Component)]
struct Hook;

#[derive(Component)]
struct TheRope;

fn setup(mut commands: Commands) {
    // 100 pixels per metre, the ground at the bottom of the view.
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection { scale: 0.01, ..OrthographicProjection::default_2d() }),
        Transform::from_xyz(0.0, 2.5, 0.0),
    ));
    commands.spawn(SinewCollider::ground());
    commands.spawn((SinewCollider::ball(0.3), Transform::from_xyz(1.5, 0.8, 0.0)));
    let hook = commands.spawn((Hook, Transform::from_xyz(0.0, 4.0, 0.0))).id();
    commands.spawn((
        TheRope,
        SinewRope::between(Vec3::new(0.0, 4.0, 0.0), Vec3::new(0.0, 1.5, 0.0))
            .segments(50)
            .mass(0.3)
            .radius(0.02)
            .attach_start(RopeAnchor::new(hook)),
        TransformInterpolation,
    ));
}

/// The hook moves in the fixed loop, so the rope's end follows it step by step.
fn swing_hook(time: Res<Time>, mut hook: Single<&mut Transform, With<Hook>>) {
    hook.translation.x = 1.5 * (0.8 * time.elapsed_secs()).sin();
}

fn grab_with_mouse(
    buttons: Res<ButtonInput<MouseButton>>,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    rope: Single<Entity, With<TheRope>>,
    (mut grab, mut moved, mut release): (MessageWriter<Grab>, MessageWriter<MoveGrab>, MessageWriter<ReleaseGrab>),
) {
    let (camera, at) = *camera;
    let Some(cursor) = window.cursor_position().and_then(|c| camera.viewport_to_world_2d(at, c).ok()) else {
        return;
    };
    let hand = cursor.extend(0.0);
    if buttons.just_pressed(MouseButton::Left) {
        grab.write(Grab::nearest(*rope, hand));
    } else if buttons.pressed(MouseButton::Left) {
        moved.write(MoveGrab { target: *rope, hand });
    } else if buttons.just_released(MouseButton::Left) {
        release.write(ReleaseGrab { target: *rope });
    }
}
