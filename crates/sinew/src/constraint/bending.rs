//! Bending: resistance to folding at a middle particle, after Kelager, Niebe & Erleben
//! (2010), "A Triangle Bending Constraint Model for Position-Based Dynamics".
//!
//! For three consecutive particles `a, b, c` with centroid `m = (x_a + x_b + x_c)/3`,
//! the constraint is `C = |x_b − m| − h₀`, where `h₀` is the rest value (0 for a straight
//! rest shape). Gradients: `∇_b C = ⅔·n`, `∇_a C = ∇_c C = −⅓·n` with
//! `n = (x_b − m)/|x_b − m|`. It needs no angles, so it is the same in 2D and 3D and
//! cheap; stiffness comes from the compliance as in every XPBD constraint.

use super::{SubstepContext, xpbd_delta_lambda};
use crate::arena::define_handle;
use crate::dim::{BaseSpace as Space, RealOf};
use crate::math::{Real, Vector};
use crate::particle::{ParticleHandle, ParticleSet};

define_handle!(
    /// A bending constraint in a [`crate::World`].
    BendingHandle
);

/// Definition of a bending constraint on three consecutive particles.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct BendingDef<S: Space> {
    /// First particle.
    pub a: ParticleHandle,
    /// Middle particle.
    pub b: ParticleHandle,
    /// Last particle.
    pub c: ParticleHandle,
    /// Compliance (1/N); 0 = rigid.
    pub compliance: RealOf<S>,
    /// Rest value `h₀`; `None` = the current shape.
    pub rest: Option<RealOf<S>>,
}

impl<S: Space> BendingDef<S> {
    /// A rigid bend at `b` between `a–b` and `b–c`, at its current angle.
    #[must_use]
    pub fn new(a: ParticleHandle, b: ParticleHandle, c: ParticleHandle) -> Self {
        Self { a, b, c, compliance: RealOf::<S>::ZERO, rest: None }
    }
    /// Sets the compliance.
    #[must_use]
    pub fn compliance(mut self, compliance: RealOf<S>) -> Self {
        self.compliance = compliance;
        self
    }
    /// Sets the rest value.
    #[must_use]
    pub fn rest(mut self, rest: RealOf<S>) -> Self {
        self.rest = Some(rest);
        self
    }
}

/// A bending constraint (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bending<R> {
    pub(crate) a: u32,
    pub(crate) b: u32,
    pub(crate) c: u32,
    /// Rest value h₀ (m).
    pub rest: R,
    /// Compliance.
    pub compliance: R,
    pub(crate) lambda: R,
}

crate::state::saved_state!(impl[R: Real] Bending<R> { a, b, c, rest, compliance, lambda });

impl<R: Real> Bending<R> {
    pub(crate) fn new(a: usize, b: usize, c: usize, rest: R, compliance: R) -> Self {
        Self { a: a as u32, b: b as u32, c: c as u32, rest, compliance, lambda: R::ZERO }
    }

    /// `|x_b − centroid|` for the given positions.
    #[must_use]
    pub fn measure<V: Vector<R>>(xa: V, xb: V, xc: V) -> R {
        (xb - (xa + xb + xc) / R::from_i32(3)).length()
    }

    /// One XPBD projection.
    #[inline]
    pub(crate) fn solve<S: Space<Real = R>>(&mut self, p: &mut ParticleSet<S>, ctx: &SubstepContext<R>) {
        let (a, b, c) = (self.a as usize, self.b as usize, self.c as usize);
        let (wa, wb, wc) = (p.inv_mass[a], p.inv_mass[b], p.inv_mass[c]);
        let third = R::from_ratio(1, 3);
        let d = p.pos[b] - (p.pos[a] + p.pos[b] + p.pos[c]) * third;
        let (n, len) = d.normalize_and_length();
        if len == R::ZERO {
            return;
        }
        let cval = len - self.rest;
        let two_thirds = third + third;
        let w_grad2 = (wa + wc) * third * third + wb * two_thirds * two_thirds;
        let alpha_t = self.compliance * ctx.inv_h2;
        let dl = xpbd_delta_lambda(cval, w_grad2, self.lambda, alpha_t, R::ZERO, R::ZERO);
        self.lambda += dl;
        p.pos[b] += n * (wb * two_thirds * dl);
        p.pos[a] -= n * (wa * third * dl);
        p.pos[c] -= n * (wc * third * dl);
    }
}
