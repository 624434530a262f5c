//! A ragdoll thrown across the floor at start; grab any node with the mouse (left
//! button) to drag and throw it again, press space for another one.
//!
//! ```sh
//! cargo run --release -p bevy_sinew --features examples --example ragdoll_2d
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
        .add_systems(Update, (spawn_on_space, grab_with_mouse, print_throws))
        .run();
}

fn setup(mut commands: Commands) {
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection { scale: 0.01, ..OrthographicProjection::default_2d() }),
        Transform::from_xyz(2.0, 2.5, 0.0),
    ));
    commands.spawn(SinewCollider::ground());
    commands.spawn((SinewCollider::cuboid(Vec3::new(0.2, 1.5, 0.0)), Transform::from_xyz(6.0, 1.5, 0.0)));
    commands.spawn(thrown(Vec3::new(-2.0, 1.0, 0.0)));
}

/// A humanoid at `at`, thrown up and to the right.
fn thrown(at: Vec3) -> impl Bundle {
    (
        SinewRagdoll::humanoid().velocity(Vec3::new(6.0, 4.0, 0.0)),
        Transform::from_translation(at),
        TransformInterpolation,
    )
}

fn spawn_on_space(keys: Res<ButtonInput<KeyCode>>, mut commands: Commands) {
    if keys.just_pressed(KeyCode::Space) {
        commands.spawn(thrown(Vec3::new(-2.0, 1.0, 0.0)));
    }
}

fn grab_with_mouse(
    buttons: Res<ButtonInput<MouseButton>>,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    ragdolls: Query<(Entity, &RagdollNodes)>,
    mut held: Local<Option<Entity>>,
    (mut grab, mut moved, mut release): (MessageWriter<Grab>, MessageWriter<MoveGrab>, MessageWriter<ReleaseGrab>),
) {
    let (camera, at) = *camera;
    let Some(cursor) = window.cursor_position().and_then(|c| camera.viewport_to_world_2d(at, c).ok()) else {
        return;
    };
    let hand = cursor.extend(0.0);
    if buttons.just_pressed(MouseButton::Left) {
        // The ragdoll with a node nearest to the cursor.
        let distance = |nodes: &RagdollNodes| nodes.positions.iter().map(|p| p.distance(hand)).fold(f32::MAX, f32::min);
        *held = ragdolls.iter().min_by(|a, b| distance(a.1).total_cmp(&distance(b.1))).map(|(e, _)| e);
        if let Some(target) = *held {
            grab.write(Grab::nearest(target, hand));
        }
    } else if let Some(target) = *held {
        if buttons.pressed(MouseButton::Left) {
            moved.write(MoveGrab { target, hand });
        } else {
            release.write(ReleaseGrab { target });
            *held = None;
        }
    }
}

fn print_throws(mut released: MessageReader<GrabReleased>) {
    for r in released.read() {
        info!("thrown at {:.1} m/s", r.velocity.length());
    }
}
