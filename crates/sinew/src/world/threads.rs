//! Threads: many worlds stepped side by side, and how a world's own step uses threads.
//!
//! With the `parallel` feature (on by default), Sinew runs work on the current
//! [rayon](https://docs.rs/rayon) thread pool: the global pool (one thread per core)
//! unless the call runs inside a pool of the caller's, `pool.install(|| world.step(dt))`,
//! which is how the thread count is chosen (`sinew simulate --threads N` does this).
//! Without the feature everything runs on the calling thread.
//!
//! What runs in parallel:
//! - [`step_all`]: separate worlds, one task each.
//! - Inside [`World::step`]: the exact tree solves of separate ragdolls, in shards of 16
//!   ragdolls (a world with fewer than 17 tree-solved groups stays on the calling
//!   thread).
//!
//! Results are the same whatever the thread count, bit for bit, in fixed point and in
//! floating point: each piece of parallel work (a world, a shard of ragdolls) reads and
//! writes only what is its own and computes exactly what it computes on one thread; no
//! sum is split across threads, and the cut into pieces is fixed by the world, not by
//! the thread count (see "Threads" in ARCHITECTURE.md).

use super::World;
use crate::SinewError;
use crate::math::Real;
use crate::space::{RealOf, Space};

/// Steps every world by `dt`, side by side on the current rayon pool (feature
/// `parallel`; else one after another). Each world ends exactly as
/// `world.step(dt)` alone would leave it.
///
/// `dt` must be finite and positive (else [`SinewError::InvalidTimeStep`] and no world
/// changes); each world clamps it to its own `max_time_step`. The step reports are not
/// returned (step the worlds yourself, e.g. with rayon's `par_iter_mut`, to keep them).
///
/// ```
/// use sinew::prelude::*;
///
/// let mut worlds: Vec<World2> = (0..4).map(|_| World2::new(WorldDef::default()).unwrap()).collect();
/// for (i, w) in worlds.iter_mut().enumerate() {
///     w.add_particle(&ParticleDef::at(Vector2::new(i as f32, 1.0)))?;
/// }
/// sinew::world::step_all(&mut worlds, 1.0 / 60.0)?;
/// assert!(worlds.iter().all(|w| w.step_count() == 1));
/// # Ok::<(), SinewError>(())
/// ```
pub fn step_all<S: Space>(worlds: &mut [World<S>], dt: RealOf<S>) -> Result<(), SinewError>
where
    World<S>: Send,
{
    if !dt.is_finite() || !(dt > RealOf::<S>::ZERO) {
        return Err(SinewError::InvalidTimeStep { dt: dt.to_f64() });
    }
    // `dt` is valid, so each step succeeds (its only error is an invalid time step).
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        worlds.par_iter_mut().with_max_len(1).for_each(|w| {
            let _ = w.step(dt);
        });
    }
    #[cfg(not(feature = "parallel"))]
    for w in worlds {
        let _ = w.step(dt);
    }
    Ok(())
}
