//! 3D: a rope hangs from a hook that circles overhead, and a ragdoll is thrown at it
//! every three seconds. Drawn with Sinew's debug drawing on Bevy's gizmos.
//!
//! ```sh
//! cargo run --release -p bevy_sinew --features examples --example rope_ragdoll_3d
//! ```

use bevy::prelude::*;
use bevy_sinew::gizmos::SinewGizmosPlugin;
use bevy_sinew::prelude::*;
use sinew::Space3;

fn main() {
    App::new()
        .add_plugins((DefaultPlugins, Sinew3dPlugin::default(), SinewGizmosPlugin::<Space3<f32>>::default()))
        .insert_resource(SinewSettings { friction: 0.6, ..default() })
        .add_systems(Startup, setup)
        .add_systems(FixedUpdate, circle_hook)
        .add_systems(Update, throw_ragdolls)
        .run();
}

#[derive(Component)]
struct Hook;

fn setup(mut commands: Commands) {
    commands
        .spawn((Camera3d::default(), Transform::from_xyz(0.0, 3.0, 9.0).looking_at(Vec3::new(0.0, 1.5, 0.0), Vec3::Y)));
    commands.spawn(SinewCollider::ground());
    let hook = commands.spawn((Hook, Transform::from_xyz(1.0, 4.5, 0.0))).id();
    commands.spawn((
        SinewRope::between(Vec3::new(1.0, 4.5, 0.0), Vec3::new(1.0, 1.5, 0.0))
            .segments(60)
            .mass(0.5)
            .radius(0.03)
            .attach_start(RopeAnchor::new(hook)),
        TransformInterpolation,
    ));
}

fn circle_hook(time: Res<Time>, mut hook: Single<&mut Transform, With<Hook>>) {
    let t = 0.6 * time.elapsed_secs();
    hook.translation = Vec3::new(t.cos(), 4.5, t.sin());
}

fn throw_ragdolls(time: Res<Time>, mut next: Local<f32>, mut commands: Commands) {
    if time.elapsed_secs() >= *next {
        *next += 3.0;
        commands.spawn((
            SinewRagdoll::humanoid().velocity(Vec3::new(4.0, 3.0, 0.0)),
            Transform::from_xyz(-3.0, 1.0, 0.0),
            TransformInterpolation,
        ));
    }
}
