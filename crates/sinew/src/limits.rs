//! Upper bounds on what one world may hold, checked before anything is allocated.
//!
//! A game loads levels, mods and replays it did not write; a world built from such input
//! must not be able to take the process down by asking for more memory than it has. Every
//! call that adds particles, constraints, colliders or rope segments (adding a rope,
//! lengthening one with [`crate::World::set_rope_length`], grabbing one, spawning a
//! ragdoll) checks the world's [`Limits`] first and returns
//! [`SinewError::LimitExceeded`] — naming the limit, its value and what was asked — without
//! changing the world.
//!
//! The defaults allow what a game frame can simulate many times over (a million particles
//! take well over a second a frame) and keep a full world well under 1 GB. Raise them with
//! [`crate::WorldDef::limits`] for offline work; lower them for untrusted input.
//!
//! ```
//! use sinew::prelude::*;
//! use sinew::Limits;
//!
//! let limits = Limits::default().particles(2);
//! let mut world = World2::new(WorldDef::default().limits(limits))?;
//! world.add_particle(&ParticleDef::at(Vector2::new(0.0, 0.0)))?;
//! world.add_particle(&ParticleDef::at(Vector2::new(1.0, 0.0)))?;
//! let err = world.add_particle(&ParticleDef::at(Vector2::new(2.0, 0.0))).unwrap_err();
//! assert_eq!(err, SinewError::LimitExceeded { what: "particles", limit: 2, requested: 3 });
//! assert_eq!(world.particles().len(), 2, "nothing was added");
//! # Ok::<(), SinewError>(())
//! ```

use crate::error::SinewError;
use crate::state::{SavedState, StateHasher};

/// How much one world may hold (see the module docs). Every field is a count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Live particles, rope and ragdoll particles included. Default 1,000,000.
    pub particles: usize,
    /// Distances, tethers, bendings, attachments and joint limits together (the ropes'
    /// own chains are counted as rope segments). Default 4,000,000.
    pub constraints: usize,
    /// Colliders. Default 100,000.
    pub colliders: usize,
    /// Segments of all ropes together; one rope is also capped at 100,000. Default
    /// 1,000,000.
    pub rope_segments: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self { particles: 1_000_000, constraints: 4_000_000, colliders: 100_000, rope_segments: 1_000_000 }
    }
}

impl Limits {
    /// No limit at all (every count up to `usize::MAX`): for tools that trust their input.
    pub const UNLIMITED: Self =
        Self { particles: usize::MAX, constraints: usize::MAX, colliders: usize::MAX, rope_segments: usize::MAX };

    /// Sets the particle limit.
    #[must_use]
    pub fn particles(mut self, n: usize) -> Self {
        self.particles = n;
        self
    }
    /// Sets the constraint limit.
    #[must_use]
    pub fn constraints(mut self, n: usize) -> Self {
        self.constraints = n;
        self
    }
    /// Sets the collider limit.
    #[must_use]
    pub fn colliders(mut self, n: usize) -> Self {
        self.colliders = n;
        self
    }
    /// Sets the limit on all ropes' segments together.
    #[must_use]
    pub fn rope_segments(mut self, n: usize) -> Self {
        self.rope_segments = n;
        self
    }

    /// `Ok` when `current + adding ≤ limit`, else [`SinewError::LimitExceeded`] for `what`.
    pub fn check(what: &'static str, current: usize, adding: usize, limit: usize) -> Result<(), SinewError> {
        let requested = current.saturating_add(adding);
        if requested > limit { Err(SinewError::LimitExceeded { what, limit, requested }) } else { Ok(()) }
    }
}

/// Limits decide which calls are accepted, never what a step computes: two worlds that
/// differ only in their limits step to the same bits. The state hash leaves them out (so
/// that a peer with other limits still agrees); snapshots copy them.
impl SavedState for Limits {
    fn hash_state(&self, _h: &mut StateHasher) {}
}

#[cfg(test)]
mod tests {
    use super::Limits;
    use crate::SinewError;

    #[test]
    fn check_accepts_up_to_the_limit_and_names_it_beyond() {
        assert_eq!(Limits::check("colliders", 9, 1, 10), Ok(()));
        assert_eq!(
            Limits::check("colliders", 10, 1, 10),
            Err(SinewError::LimitExceeded { what: "colliders", limit: 10, requested: 11 })
        );
        // No overflow on absurd requests.
        assert!(Limits::check("rope segments", usize::MAX, usize::MAX, usize::MAX - 1).is_err());
    }
}
