//! What the library allocates, counted by a global allocator: a request refused by a
//! limit allocates nothing of the request's size.
//!
//! The counters are per thread (test threads run side by side), and only allocations
//! count (a free of a buffer made earlier is not a new cost).

#[path = "common/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::Counting;
use std::cell::Cell;

thread_local! {
    static COUNT: Cell<u64> = const { Cell::new(0) };
    static BYTES: Cell<u64> = const { Cell::new(0) };
}

fn count(bytes: usize) {
    let _ = COUNT.try_with(|c| c.set(c.get() + 1));
    let _ = BYTES.try_with(|c| c.set(c.get() + bytes as u64));
}

#[global_allocator]
static ALLOCATOR: Counting = Counting(count);

fn allocations() -> u64 {
    COUNT.with(Cell::get)
}

fn bytes() -> u64 {
    BYTES.with(Cell::get)
}

#[test]
fn a_rope_over_the_segment_limit_is_refused_before_its_points_are_laid_out() {
    use sinew::{RopeDef, Space2, Vector2, World, WorldDef};
    let mut limits = sinew::Limits::default();
    limits.rope_segments = 1000;
    let mut w = World::<Space2<f32>>::new(WorldDef::default().limits(limits)).unwrap();
    let def = RopeDef::between(Vector2::new(0.0, 0.0), Vector2::new(100.0, 0.0)).segments(100_000);
    let (count, size) = (allocations(), bytes());
    let err = w.add_rope(&def).unwrap_err();
    let (count, size) = (allocations() - count, bytes() - size);
    assert!(matches!(err, sinew::SinewError::LimitExceeded { limit: 1000, requested: 100_000, .. }), "{err}");
    // 100,001 points would be 800 KB; the refusal allocates nothing of the rope's size.
    assert!(size < 1024, "refusing the rope allocated {size} bytes in {count} allocations");
    assert!(w.particles().handles().next().is_none(), "nothing was made");
}
