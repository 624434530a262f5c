//! Step-time ratio of Sinew's rope to Rapier's particle ropes, measured interleaved.
//!
//! `benches/rope.rs` (criterion) times each variant for several seconds, one after the
//! other; on a machine whose speed drifts by 10–40 % from minute to minute, the ratio of two
//! such figures carries the drift. Here every round times one whole 2 s swing (steps
//! 2–120, world built untimed) of each variant back to back, so the variants share each
//! round's machine speed; the report gives, per variant, the median and the best over the
//! rounds, and for each Rapier variant the median of the per-round ratios.
//!
//! ```text
//! cargo run --release --example ratio [rounds]   # default 41
//! ```

#[path = "../harness/mod.rs"]
#[allow(dead_code)] // three of the harness's variants are used here
mod harness;

use harness::{Sim, Variant};
use sinew_peers::scenario::STEPS;
use std::hint::black_box;
use std::time::Instant;

/// Mean step time (µs) over steps 2–120 of one swing.
fn swing(variant: Variant) -> f64 {
    let mut sim = Sim::new(variant);
    sim.step();
    let start = Instant::now();
    for _ in 1..STEPS {
        black_box(&mut sim).step();
    }
    start.elapsed().as_secs_f64() * 1e6 / (STEPS - 1) as f64
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(41);
    let variants = [Variant::SinewRope, Variant::RapierRopeDefault, Variant::RapierRopeStiff];
    let mut times = vec![Vec::with_capacity(rounds); variants.len()];
    for _ in 0..rounds {
        for (t, &v) in times.iter_mut().zip(&variants) {
            t.push(swing(v));
        }
    }
    let sinew = times[0].clone();
    for (t, v) in times.iter().zip(&variants) {
        let mut s = t.clone();
        let best = s.iter().copied().fold(f64::INFINITY, f64::min);
        println!("{:<22} median {:>8.2} µs  best {:>8.2} µs", v.name(), median(&mut s), best);
    }
    for (t, v) in times.iter().zip(&variants).skip(1) {
        let mut r: Vec<f64> = t.iter().zip(&sinew).map(|(p, s)| p / s).collect();
        let (lo, hi) = (r.iter().copied().fold(f64::INFINITY, f64::min), r.iter().copied().fold(0.0, f64::max));
        println!(
            "{:<22} / sinew/rope: median of per-round ratios {:.2}x (range {:.2}-{:.2})",
            v.name(),
            median(&mut r),
            lo,
            hi
        );
    }
}
