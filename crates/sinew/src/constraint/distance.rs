//! Distance constraint: `C = |x_a − x_b| − L`.
//!
//! Bilateral by default (rods, bones, rope segments). With `unilateral` it only pulls
//! (`C ≤ 0`): a "max distance" link, the rope-only-pulls case, slack when shorter than `L`.
//!
//! Gradients are `±n` with `n = (x_a − x_b)/|x_a − x_b|`, so `Σ w|∇C|² = w_a + w_b` and
//! the projection splits the error by inverse mass (`w_a/(w_a+w_b)` of it moves `a`).
//! Coincident particles have no defined direction; the projection is skipped for that
//! substep rather than inventing one.

use super::SubstepContext;
use crate::arena::define_handle;
use crate::dim::{BaseSpace as Space, RealOf, VecOf};
use crate::math::{Real, Vector};
use crate::particle::{ParticleHandle, ParticleSet};

define_handle!(
    /// A distance constraint in a [`crate::World`].
    DistanceHandle
);

/// Definition of a distance constraint.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct DistanceDef<S: Space> {
    /// First particle.
    pub a: ParticleHandle,
    /// Second particle.
    pub b: ParticleHandle,
    /// Rest length (m); `None` = the current distance.
    pub length: Option<RealOf<S>>,
    /// Compliance α (m/N); 0 = rigid.
    pub compliance: RealOf<S>,
    /// Damping β (N·s/m) along the constraint: XPBD's `γ = α·β/h` is dimensionless only
    /// with β in N·s/m. Acts only with compliance > 0.
    pub damping: RealOf<S>,
    /// Only pull (rope); never push.
    pub unilateral: bool,
}

impl<S: Space> DistanceDef<S> {
    /// A rigid link between `a` and `b` at their current distance.
    #[must_use]
    pub fn new(a: ParticleHandle, b: ParticleHandle) -> Self {
        Self { a, b, length: None, compliance: RealOf::<S>::ZERO, damping: RealOf::<S>::ZERO, unilateral: false }
    }
    /// Sets the compliance (m/N).
    #[must_use]
    pub fn compliance(mut self, c: RealOf<S>) -> Self {
        self.compliance = c;
        self
    }
    /// Sets the rest length (m).
    #[must_use]
    pub fn length(mut self, l: RealOf<S>) -> Self {
        self.length = Some(l);
        self
    }
    /// Sets the damping (N·s/m; acts with compliance > 0).
    #[must_use]
    pub fn damping(mut self, d: RealOf<S>) -> Self {
        self.damping = d;
        self
    }
    /// Makes the link pull-only.
    #[must_use]
    pub fn unilateral(mut self) -> Self {
        self.unilateral = true;
        self
    }
}

/// A distance constraint (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Distance<R> {
    pub(crate) a: u32,
    pub(crate) b: u32,
    /// Rest length (m).
    pub rest: R,
    /// Compliance (m/N).
    pub compliance: R,
    /// Damping (N·s/m).
    pub damping: R,
    /// Pull-only.
    pub unilateral: bool,
    pub(crate) lambda: R,
    /// `1 / ((1 + γ)(w_a + w_b) + α̃)` for the current step (see [`Distance::prepare`]).
    pub(crate) inv_denom: R,
}

crate::state::saved_state!(impl[R: Real] Distance<R> { a, b, rest, compliance, damping, unilateral, lambda, inv_denom });

impl<R: Real> Distance<R> {
    pub(crate) fn new(a: usize, b: usize, rest: R, compliance: R, damping: R, unilateral: bool) -> Self {
        Self { a: a as u32, b: b as u32, rest, compliance, damping, unilateral, lambda: R::ZERO, inv_denom: R::ZERO }
    }

    /// Caches the projection's denominator for a step: masses, compliance and `h` are
    /// constant within a step, so the division is paid once per step, not per substep.
    #[inline]
    pub(crate) fn prepare<S: Space<Real = R>>(&mut self, p: &ParticleSet<S>, ctx: &SubstepContext<R>) {
        let wsum = p.inv_mass[self.a as usize] + p.inv_mass[self.b as usize];
        let alpha_t = self.compliance * ctx.inv_h2;
        let gamma = self.compliance * self.damping * ctx.inv_h;
        let denom = (R::ONE + gamma) * wsum + alpha_t;
        self.inv_denom = if wsum == R::ZERO { R::ZERO } else { R::ONE / denom };
    }

    /// Particle slot indices `(a, b)`.
    #[must_use]
    pub fn indices(&self) -> (usize, usize) {
        (self.a as usize, self.b as usize)
    }

    /// Multiplier of the last substep.
    #[must_use]
    pub fn lambda(&self) -> R {
        self.lambda
    }

    /// One XPBD projection ([`Distance::prepare`] must have run this step).
    #[inline]
    pub(crate) fn solve<S: Space<Real = R>>(&mut self, p: &mut ParticleSet<S>, ctx: &SubstepContext<R>) {
        let Some((a, b, d, c, inv_len)) = self.violation(p) else { return };
        if self.unilateral && c <= R::ZERO && self.lambda == R::ZERO {
            return;
        }
        let n = d * inv_len;
        let mut num = -c;
        if self.compliance != R::ZERO {
            let alpha_t = self.compliance * ctx.inv_h2;
            num -= alpha_t * self.lambda;
            if self.damping != R::ZERO {
                let gamma = self.compliance * self.damping * ctx.inv_h;
                num -= gamma * n.dot((p.pos[a] - p.prev[a]) - (p.pos[b] - p.prev[b]));
            }
        }
        let mut dl = num * self.inv_denom;
        if self.unilateral && self.lambda + dl > R::ZERO {
            // A rope cannot push: clamp the accumulated multiplier at 0.
            dl = -self.lambda;
        }
        self.apply(p, a, b, n, dl);
    }

    /// The link's slots, difference `x_a − x_b`, violation `C = |d| − rest` and `1/|d|`;
    /// `None` when there is nothing to project (both ends pinned, or no direction).
    #[inline(always)]
    fn violation<S: Space<Real = R>>(&self, p: &ParticleSet<S>) -> Option<(usize, usize, VecOf<S>, R, R)> {
        if self.inv_denom == R::ZERO {
            return None; // both ends pinned
        }
        let (a, b) = (self.a as usize, self.b as usize);
        let d = p.pos[a] - p.pos[b];
        let len2 = d.length_squared();
        if len2 <= R::GEOMETRIC_EPSILON * R::GEOMETRIC_EPSILON {
            return None;
        }
        let (len, inv_len) = len2.sqrt_recip();
        Some((a, b, d, len - self.rest, inv_len))
    }

    /// Accumulates `Δλ` and moves both ends along `n` by their inverse masses.
    #[inline(always)]
    fn apply<S: Space<Real = R>>(&mut self, p: &mut ParticleSet<S>, a: usize, b: usize, n: VecOf<S>, dl: R) {
        self.lambda += dl;
        let (wa, wb) = (p.inv_mass[a], p.inv_mass[b]);
        p.pos[a] += n * (wa * dl);
        p.pos[b] -= n * (wb * dl);
    }

    /// Whether the link is rigid: bilateral, no compliance (the kind [`World`](crate::World)
    /// projects in rows of independent links).
    #[inline]
    pub(crate) fn is_rigid(&self) -> bool {
        !self.unilateral && self.compliance == R::ZERO
    }
}
