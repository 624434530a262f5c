//! What the plugin costs over the bare library: 100 hanging ropes of 20 segments (8
//! substeps) stepped 600 times, once by the library alone and once through a headless
//! Bevy app with the plugin (prepare, step, writeback of every rope's points and
//! tensions, interpolation). Prints the time per step of each and the overhead; asserts
//! that both worlds end in the same state.
//!
//! ```sh
//! cargo bench -p bevy_sinew --bench overhead
//! ```

use std::time::{Duration, Instant};

use bevy_app::prelude::*;
use bevy_math::Vec3;
use bevy_sinew::prelude::*;
use bevy_time::{TimePlugin, TimeUpdateStrategy};
use bevy_transform::TransformPlugin;
use sinew::math::Real;
use sinew::{Space2, World};

type S = Space2<f32>;
const ROPES: usize = 100;
const STEPS: u64 = 600;
const STEP: f64 = 1.0 / 64.0;

fn rope(i: usize) -> SinewRope {
    let x = i as f32 * 0.1;
    SinewRope::between(Vec3::new(x, 3.0, 0.0), Vec3::new(x + 1.0, 3.0, 0.0)).segments(20).mass(0.2).pin_start()
}

fn main() {
    // The library alone.
    let mut world = World::<S>::new(SinewSettings::default().world_def()).expect("valid settings");
    for i in 0..ROPES {
        world.add_rope(&rope(i).rope_def::<S>(None, None)).expect("a valid rope");
    }
    let start = Instant::now();
    for _ in 0..STEPS {
        world.step(<S as sinew::BaseSpace>::Real::from_f64(STEP)).expect("a step");
    }
    let bare = start.elapsed();

    // The plugin: one fixed step per update.
    let mut app = App::new();
    app.add_plugins((TimePlugin, TransformPlugin, Sinew2dPlugin::default()));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(STEP)));
    for i in 0..ROPES {
        app.world_mut().spawn((rope(i), TransformInterpolation));
    }
    app.update(); // the clock's first frame: no time, no step
    let start = Instant::now();
    while app.world().resource::<SinewWorld<S>>().world().step_count() < STEPS {
        app.update();
    }
    let plugin = start.elapsed();

    let per_step = |d: Duration| d.as_secs_f64() * 1e6 / STEPS as f64;
    println!(
        "{ROPES} ropes x 21 particles: library {:.1} us/step, plugin {:.1} us/step: overhead {:+.1} %",
        per_step(bare),
        per_step(plugin),
        100.0 * (plugin.as_secs_f64() / bare.as_secs_f64() - 1.0)
    );
    assert_eq!(app.world().resource::<SinewWorld<S>>().state_hash(), world.state_hash(), "the same final state");
}
