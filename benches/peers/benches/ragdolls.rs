//! Ragdoll step time: 125 ragdolls falling onto a ground, Sinew against Rapier 0.36.
//!
//! The scenario is `sinew_peers::ragdoll_scenario`; the engine set-ups (an 11-body rigid
//! ragdoll in Rapier, `humanoid3d` in Sinew, and Sinew's 1000-ragdoll 2D scene for
//! reference) are documented in `harness/ragdolls.rs`.
//!
//! What is timed: one 1/60 s step of a world that has already run the 180-step (3 s) warm-up
//! untimed, so every layer has landed and the ragdolls lie on the ground or on each other.
//! Steps 181–300 (3 s to 5 s) are timed back to back; when a world reaches step 300 it is
//! replaced (untimed) by a copy of the warmed world (`Sim::restore_from`) and the window
//! starts over, so the figure is the mean step cost over the 3–5 s window. A Rapier copy
//! gets fresh pipeline workspaces, so its first step after each restore pays their
//! allocations again (one step in 120). Sleeping is on in both engines with
//! their defaults; how many ragdolls are awake in the window is printed by
//! `examples/ragdoll_quality.rs`.

#[path = "../harness/ragdolls.rs"]
mod harness;

use criterion::{Criterion, criterion_group, criterion_main};
use harness::{Sim, Variant};
use sinew_peers::ragdoll_scenario::{WARM_STEPS, WINDOW_STEPS};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn ragdolls(c: &mut Criterion) {
    let mut group = c.benchmark_group("ragdolls");
    group.sample_size(10);
    for variant in Variant::ALL {
        let mut base = Sim::new(variant);
        for _ in 0..WARM_STEPS {
            base.step();
        }
        let mut sim = Sim::restore_from(&base);
        let mut taken = 0;
        group.bench_function(variant.name(), |b| {
            b.iter_custom(|iters| {
                let mut timed = Duration::ZERO;
                let mut left = iters as usize;
                while left > 0 {
                    if taken == WINDOW_STEPS {
                        sim = Sim::restore_from(&base);
                        taken = 0;
                    }
                    let n = left.min(WINDOW_STEPS - taken);
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
        // Untimed sanity check: the world the bench stepped did not blow up.
        let m = sim.measure();
        assert!(sim.is_finite() && m.joint_error.is_finite(), "{} blew up", variant.name());
        assert!(sim.ragdolls() > 0 && m.joint_error < 0.5, "{}: joints came apart", variant.name());
    }
    group.finish();
}

criterion_group!(benches, ragdolls);
criterion_main!(benches);
