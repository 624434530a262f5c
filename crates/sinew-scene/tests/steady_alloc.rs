//! No allocation in a steady-state step: a counting global allocator around
//! `World::step` on showcase and benchmark scenes once they have settled into their
//! steady state (ropes swinging and lying on colliders, ragdolls tumbling and resting,
//! taut ropes wrapped, muscle ragdolls holding a pose).
//!
//! The counter is per thread (test threads run side by side). `SINEW_ALLOC_TRACE=1`
//! prints the library frames of each allocation counted (to find one).

#[path = "../../sinew/tests/common/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::Counting;
use sinew::Real as _;
use std::cell::Cell;
use std::path::PathBuf;

thread_local! {
    static COUNT: Cell<u64> = const { Cell::new(0) };
    static TRACE: Cell<bool> = const { Cell::new(false) };
}

fn count(_bytes: usize) {
    let _ = COUNT.try_with(|c| c.set(c.get() + 1));
    // (Tracing allocates: off while it prints.)
    if TRACE.try_with(|t| t.replace(false)).unwrap_or(false) {
        let bt = std::backtrace::Backtrace::force_capture().to_string();
        let frames: Vec<&str> = bt.lines().filter(|l| l.contains("sinew")).take(6).collect();
        eprintln!("allocation: {}", frames.join(" | "));
        let _ = TRACE.try_with(|t| t.set(true));
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting(count);

/// Allocations made by `frames` steps of the world after `warm` frames of the scene.
fn steady_allocations<S: sinew_scene::SceneSpace>(name: &str, warm: u32, frames: u32) -> u64 {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenes").join(name);
    let spec = sinew_scene::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut built = sinew_scene::build_typed_with::<S>(&spec, &sinew_scene::SceneLimits::default()).unwrap();
    for _ in 0..warm {
        built.step_frame().unwrap();
    }
    let dt = sinew::RealOf::<S>::from_f64(built.dt);
    let before = COUNT.with(Cell::get);
    TRACE.with(|t| t.set(std::env::var_os("SINEW_ALLOC_TRACE").is_some()));
    for _ in 0..frames {
        built.world.step(dt).unwrap();
    }
    TRACE.with(|t| t.set(false));
    COUNT.with(Cell::get) - before
}

/// 2D scenes: ropes among colliders and on a post (span contacts, re-queries of yanked
/// particles), 100 ropes, ragdolls, a taut rope, a grappling hook, a muscle ragdoll.
const SCENES_2D: [&str; 7] = [
    "rope_14m_2d.json",
    "bench_100_ropes_2d.json",
    "ragdolls_2d.json",
    "rope_on_post_2d.json",
    "rope_grappling_hook_2d.json",
    "bench_taut_2d.json",
    "playground_muscle_2d.json",
];

/// 3D scenes: ropes among spheres and boxes, ragdolls falling asleep, a taut rope over
/// edges, ropes between moving objects (the chain solve's piecewise fallback), a muscle
/// ragdoll, two ragdolls in body contact, the showcase, ropes sharing a load.
const SCENES_3D: [&str; 8] = [
    "rope_14m_3d.json",
    "ragdoll_3d.json",
    "rope_taut_3d.json",
    "rope_between_objects_3d.json",
    "rope_shared_load_3d.json",
    "muscle_ragdoll_3d.json",
    "bench_two_ragdolls_contact_3d.json",
    "showcase_3d.json",
];

#[test]
fn a_steady_step_allocates_nothing_in_2d_and_3d_float_and_fixed() {
    use sinew::{Fx, Space2, Space3};
    let mut found = Vec::new();
    for name in SCENES_2D {
        found.push((name, "f32", steady_allocations::<Space2<f32>>(name, 240, 120)));
        found.push((name, "fixed", steady_allocations::<Space2<Fx>>(name, 240, 120)));
    }
    for name in SCENES_3D {
        found.push((name, "f32", steady_allocations::<Space3<f32>>(name, 240, 120)));
        found.push((name, "fixed", steady_allocations::<Space3<Fx>>(name, 240, 120)));
    }
    let allocating: Vec<_> = found.iter().filter(|f| f.2 > 0).collect();
    assert!(
        allocating.is_empty(),
        "allocations in 120 steady steps (find them with SINEW_ALLOC_TRACE=1): {allocating:?}"
    );
}
