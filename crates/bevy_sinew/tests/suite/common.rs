//! The headless app the tests run.

use std::time::Duration;

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_sinew::prelude::*;
use bevy_time::{Fixed, Time, TimePlugin, TimeUpdateStrategy};
use bevy_transform::TransformPlugin;

/// Bevy's default fixed step: 64 Hz, exact in binary (and in fixed point).
pub const STEP: f64 = 1.0 / 64.0;

/// An app with the plugin of space `S` in `FixedPostUpdate`, whose every `update()` is a
/// frame of `frame` seconds.
pub fn app<S: PluginSpace>(frame: f64) -> App {
    let mut app = App::new();
    app.add_plugins((TimePlugin, TransformPlugin, SinewPlugin::<S>::default()));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(frame)));
    assert_eq!(app.world().resource::<Time<Fixed>>().timestep(), Duration::from_secs_f64(STEP));
    app
}

/// Runs frames until the world has taken `steps` steps in all.
pub fn run_steps<S: PluginSpace>(app: &mut App, steps: u64) {
    for _ in 0..100_000 {
        if app.world().resource::<SinewWorld<S>>().world().step_count() >= steps {
            return;
        }
        app.update();
    }
    panic!("the world never reached {steps} steps");
}

/// The world's step count.
pub fn step_count<S: PluginSpace>(app: &App) -> u64 {
    app.world().resource::<SinewWorld<S>>().world().step_count()
}

/// Takes every message of type `M` written so far.
pub fn drain<M: Message>(app: &mut App) -> Vec<M> {
    app.world_mut().resource_mut::<Messages<M>>().drain().collect()
}
