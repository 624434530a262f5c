//! What the plugin costs over the bare library: 100 hanging ropes of 20 segments (8
//! substeps) stepped 600 times, once by the library alone and once through a headless
//! Bevy app with the plugin (prepare, step, writeback of every rope's points and
//! tensions, interpolation). Prints the time per step of each and the overhead (the
//! thread's CPU time, in alternating rounds); asserts that both worlds end in the same
//! state.
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
const ROUNDS: u64 = 6;
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
    // The plugin: one fixed step per update.
    let mut app = App::new();
    app.add_plugins((TimePlugin, TransformPlugin, Sinew2dPlugin::default()));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(STEP)));
    for i in 0..ROPES {
        app.world_mut().spawn((rope(i), TransformInterpolation));
    }
    app.update(); // the clock's first frame: no time, no step
    let steps = |app: &App| app.world().resource::<SinewWorld<S>>().world().step_count();

    // Rounds of the same steps, alternating, so that both pay for the same motion (the
    // ropes swing, then settle) and a busy machine slows both alike; the median round.
    let dt = <S as sinew::BaseSpace>::Real::from_f64(STEP);
    let mut ratios = Vec::new();
    let (mut bare, mut plugin) = (Duration::ZERO, Duration::ZERO);
    for round in 1..=ROUNDS {
        let start = Clock::now();
        for _ in 0..STEPS / ROUNDS {
            world.step(dt).expect("a step");
        }
        let b = start.elapsed();
        let start = Clock::now();
        while steps(&app) < round * STEPS / ROUNDS {
            app.update();
        }
        let p = start.elapsed();
        ratios.push(p.as_secs_f64() / b.as_secs_f64());
        (bare, plugin) = (bare + b, plugin + p);
    }
    ratios.sort_by(f64::total_cmp);
    let per_step = |d: Duration| d.as_secs_f64() * 1e6 / STEPS as f64;
    println!(
        "{ROPES} ropes x 21 particles: library {:.1} us/step, plugin {:.1} us/step; overhead {:+.1} % (median of {ROUNDS} rounds; rounds {:+.1} % to {:+.1} %)",
        per_step(bare),
        per_step(plugin),
        100.0 * (ratios[ratios.len() / 2] - 1.0),
        100.0 * (ratios[0] - 1.0),
        100.0 * (ratios[ratios.len() - 1] - 1.0),
    );
    assert_eq!(app.world().resource::<SinewWorld<S>>().state_hash(), world.state_hash(), "the same final state");

    // What a frame of one step costs with nothing to simulate: Bevy's schedules, the
    // clock and the plugin's systems, the floor of the overhead.
    let mut empty = App::new();
    empty.add_plugins((TimePlugin, TransformPlugin, Sinew2dPlugin::default()));
    empty.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(STEP)));
    empty.update();
    let start = Clock::now();
    for _ in 0..STEPS {
        empty.update();
    }
    println!("a frame of one step with no ropes: {:.1} us", per_step(start.elapsed()));
}

/// This thread's CPU time on Linux (`CLOCK_THREAD_CPUTIME_ID`), else the wall clock: on a
/// shared machine, time the thread spent waiting for a core is not the code's. (Bevy's
/// single-threaded executor runs every system on this thread.)
enum Clock {
    Cpu(Duration),
    Wall(Instant),
}

impl Clock {
    #[cfg(target_os = "linux")]
    fn cpu() -> Option<Duration> {
        #[repr(C)]
        struct Timespec {
            tv_sec: i64,
            tv_nsec: i64,
        }
        unsafe extern "C" {
            fn clock_gettime(clock: i32, time: *mut Timespec) -> i32;
        }
        const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
        let mut t = Timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `t` is a valid, writable timespec (64-bit Linux layout) for the call.
        let ok = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
        ok.then(|| Duration::new(t.tv_sec as u64, t.tv_nsec as u32))
    }

    #[cfg(not(target_os = "linux"))]
    fn cpu() -> Option<Duration> {
        None
    }

    fn now() -> Self {
        Self::cpu().map_or_else(|| Self::Wall(Instant::now()), Self::Cpu)
    }

    fn elapsed(&self) -> Duration {
        match self {
            Self::Cpu(start) => Self::cpu().map_or(Duration::ZERO, |now| now.saturating_sub(*start)),
            Self::Wall(start) => start.elapsed(),
        }
    }
}
