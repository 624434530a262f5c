//! What a steady parallel step allocates, counted on every thread (an atomic counter in
//! a global allocator; a test binary of its own, with one test, so that nothing else runs
//! beside it): 300 settled ragdolls in a pool of 2 threads, stepped from inside the pool
//! (`pool.install`), allocate nothing. (A step called from outside a pool hands the pool
//! a job through rayon's injector queue, which allocates a block every 63 jobs: see
//! ARCHITECTURE.md, design goal 6.)
#![cfg(feature = "parallel")]

#[path = "common/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::Counting;
use sinew::prelude::*;
use sinew::ragdoll::presets;
use sinew::{Space2, World};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

static ON: AtomicBool = AtomicBool::new(false);
static COUNT: AtomicU64 = AtomicU64::new(0);

fn count(_bytes: usize) {
    if ON.load(Ordering::Relaxed) {
        COUNT.fetch_add(1, Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting(count);

#[test]
fn a_steady_parallel_step_inside_a_pool_allocates_nothing_on_any_thread() {
    let rig = presets::humanoid16::<f32>();
    let mut w = World::<Space2<f32>>::new(WorldDef::default().substeps(4)).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(Vector2::new(0.0, 1.0), 0.0).unwrap())).unwrap();
    for k in 0..300 {
        let origin = Vector2::new(-150.0 + k as f32, 0.5);
        Ragdoll::spawn(&mut w, &rig, origin, 1.0, Vector2::new(0.0, 0.0)).unwrap();
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let n = pool.install(|| {
        for _ in 0..120 {
            w.step(1.0 / 60.0).unwrap();
        }
        ON.store(true, Ordering::SeqCst);
        for _ in 0..120 {
            w.step(1.0 / 60.0).unwrap();
        }
        ON.store(false, Ordering::SeqCst);
        COUNT.load(Ordering::SeqCst)
    });
    assert_eq!(n, 0, "{n} allocations in 120 steady steps of 300 ragdolls on 2 threads");
}
