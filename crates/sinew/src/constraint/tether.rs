//! Tether (long-range attachment, Kim, Chentanez & Müller 2012): `|x − x_anchor| ≤ L`.
//!
//! A long chain solved with one Gauss–Seidel pass per substep lets its stretch accumulate
//! from link to link: the correction from a pinned end travels one link per iteration.
//! A tether ties each particle directly to its anchor (usually the nearest pinned particle)
//! with `L` = its rest distance *along the chain*. It is inactive while the chain is slack
//! and stops the cumulative stretch in a single projection when it is not. The anchor is
//! treated as immovable (the particle takes the whole correction) — the anchor is pinned
//! or far heavier in practice, and this keeps the constraint cheap and order-free.

use super::SubstepContext;
use crate::arena::define_handle;
use crate::dim::{BaseSpace as Space, RealOf};
use crate::math::{Real, Vector};
use crate::particle::{ParticleHandle, ParticleSet};

define_handle!(
    /// A tether in a [`crate::World`].
    TetherHandle
);

/// Definition of a tether.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct TetherDef<S: Space> {
    /// The constrained particle.
    pub particle: ParticleHandle,
    /// The anchor particle (not moved by the tether).
    pub anchor: ParticleHandle,
    /// Maximum distance (m); `None` = the current distance.
    pub length: Option<RealOf<S>>,
}

impl<S: Space> TetherDef<S> {
    /// A tether keeping `particle` within its current distance of `anchor`.
    #[must_use]
    pub fn new(particle: ParticleHandle, anchor: ParticleHandle) -> Self {
        Self { particle, anchor, length: None }
    }
    /// Sets the length (m).
    #[must_use]
    pub fn length(mut self, length: RealOf<S>) -> Self {
        self.length = Some(length);
        self
    }
}

/// A tether (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tether<R> {
    pub(crate) particle: u32,
    pub(crate) anchor: u32,
    /// Maximum distance (m).
    pub length: R,
}

crate::state::saved_state!(impl[R: Real] Tether<R> { particle, anchor, length });

impl<R: Real> Tether<R> {
    pub(crate) fn new(particle: usize, anchor: usize, length: R) -> Self {
        Self { particle: particle as u32, anchor: anchor as u32, length }
    }

    /// Particle slot indices `(particle, anchor)`.
    #[must_use]
    pub fn indices(&self) -> (usize, usize) {
        (self.particle as usize, self.anchor as usize)
    }

    /// One projection (rigid, one-sided).
    #[inline]
    pub(crate) fn solve<S: Space<Real = R>>(&self, p: &mut ParticleSet<S>, _ctx: &SubstepContext<R>) {
        let i = self.particle as usize;
        if p.inv_mass[i] == R::ZERO {
            return;
        }
        let d = p.pos[i] - p.pos[self.anchor as usize];
        let len2 = d.length_squared();
        if len2 <= self.length * self.length {
            return;
        }
        let (n, len) = d.normalize_and_length();
        p.pos[i] -= n * (len - self.length);
    }
}
