//! Rope step time, Sinew against Rapier 0.36's particle rope (`SoftBodyBuilder::rope`).
//!
//! The scenario (see `sinew_peers::scenario`): a 5 m rope of 101 particles (100 segments of
//! 5 cm), 1 kg in total, radius 1 cm, pinned at one end, starting horizontal and swinging
//! down under gravity for 2 s in 120 steps of 1/60 s; one thread, no colliders. The engine
//! set-ups are documented in `harness/mod.rs`.
//!
//! What is timed: one 1/60 s step of a built world. Each variant's world is built and stepped
//! once untimed (first-step allocations), then steps 2–120 of the swing are timed back to
//! back; when a world reaches step 120 it is rebuilt (untimed) and the cycle starts over, so
//! the reported figure is the mean step cost over the swing, not the cost of one pose.
//! The worst stretch is printed by `examples/stretch.rs`.

#[path = "../harness/mod.rs"]
mod harness;

use criterion::{Criterion, criterion_group, criterion_main};
use harness::{Sim, Variant};
use sinew_peers::scenario::STEPS;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// A world with its first step done, and how many steps it has taken.
fn fresh(variant: Variant) -> (Sim, usize) {
    let mut sim = Sim::new(variant);
    sim.step();
    (sim, 1)
}

fn rope(c: &mut Criterion) {
    let mut group = c.benchmark_group("rope_101");
    for variant in Variant::ALL {
        let (mut sim, mut taken) = fresh(variant);
        group.bench_function(variant.name(), |b| {
            b.iter_custom(|iters| {
                let mut timed = Duration::ZERO;
                let mut left = iters as usize;
                while left > 0 {
                    if taken == STEPS {
                        (sim, taken) = fresh(variant);
                    }
                    let n = left.min(STEPS - taken);
                    let start = Instant::now();
                    for _ in 0..n {
                        black_box(&mut sim).step();
                    }
                    timed += start.elapsed();
                    taken += n;
                    left -= n;
                }
                timed
            });
        });
        // Untimed sanity check: the world the bench stepped is still a rope, not NaNs.
        let mut positions = Vec::new();
        sim.positions(&mut positions);
        assert!(positions.iter().flatten().all(|c| c.is_finite()), "{} blew up", variant.name());
    }
    group.finish();
}

criterion_group!(benches, rope);
criterion_main!(benches);
