//! Attachment: a particle held at a world-space target point, rigidly or softly.
//!
//! `C = |x − t| − L` with `L ≥ 0` (usually 0), and compliance `α` for a soft pin (a hand
//! that gives a little, a rope end tied with some slack). The target `t` is kinematic
//! (infinite mass) and may be moved every step with [`crate::World::set_attachment_target`];
//! the force the attachment applies, `λ/h²`, is what the holder feels.

use super::{SubstepContext, xpbd_delta_lambda};
use crate::arena::define_handle;
use crate::math::{Real, Vector};
use crate::particle::{ParticleHandle, ParticleSet};
use crate::space::{RealOf, Space, VecOf};

define_handle!(
    /// An attachment in a [`crate::World`].
    AttachmentHandle
);

/// Definition of an attachment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AttachmentDef<S: Space> {
    /// The attached particle.
    pub particle: ParticleHandle,
    /// Target point (m).
    pub target: VecOf<S>,
    /// Allowed distance from the target (m), ≥ 0.
    pub length: RealOf<S>,
    /// Compliance (m/N); 0 = rigid.
    pub compliance: RealOf<S>,
    /// Damping (s), with compliance > 0.
    pub damping: RealOf<S>,
}

impl<S: Space> AttachmentDef<S> {
    /// A rigid attachment of `particle` to `target`.
    #[must_use]
    pub fn new(particle: ParticleHandle, target: VecOf<S>) -> Self {
        Self {
            particle,
            target,
            length: RealOf::<S>::ZERO,
            compliance: RealOf::<S>::ZERO,
            damping: RealOf::<S>::ZERO,
        }
    }
}

/// An attachment (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Attachment<S: Space> {
    pub(crate) particle: u32,
    /// Target point (m).
    pub target: VecOf<S>,
    /// Allowed distance (m).
    pub length: RealOf<S>,
    /// Compliance (m/N).
    pub compliance: RealOf<S>,
    /// Damping (s).
    pub damping: RealOf<S>,
    pub(crate) lambda: RealOf<S>,
}

impl<S: Space> Attachment<S> {
    pub(crate) fn new(particle: usize, d: &AttachmentDef<S>) -> Self {
        Self {
            particle: particle as u32,
            target: d.target,
            length: d.length,
            compliance: d.compliance,
            damping: d.damping,
            lambda: RealOf::<S>::ZERO,
        }
    }

    /// Particle slot index.
    #[must_use]
    pub fn index(&self) -> usize {
        self.particle as usize
    }

    /// Force (N) on the particle from the last substep, pointing toward the target.
    #[must_use]
    pub fn force(&self, particles: &ParticleSet<S>, ctx: &SubstepContext<RealOf<S>>) -> VecOf<S> {
        let n = (particles.pos[self.particle as usize] - self.target).normalize_or_zero();
        n * (self.lambda * ctx.inv_h2)
    }

    /// One XPBD projection.
    #[inline]
    pub fn solve(&mut self, p: &mut ParticleSet<S>, ctx: &SubstepContext<RealOf<S>>) {
        let i = self.particle as usize;
        let w = p.inv_mass[i];
        if w == RealOf::<S>::ZERO {
            return;
        }
        let d = p.pos[i] - self.target;
        let (n, len) = d.normalize_and_length();
        if len == RealOf::<S>::ZERO {
            return;
        }
        let c = len - self.length;
        if c <= RealOf::<S>::ZERO && self.length > RealOf::<S>::ZERO {
            return; // within the allowed slack
        }
        let alpha_t = self.compliance * ctx.inv_h2;
        let gamma = self.compliance * self.damping * ctx.inv_h;
        let c_dot_h = if gamma == RealOf::<S>::ZERO { RealOf::<S>::ZERO } else { n.dot(p.pos[i] - p.prev[i]) };
        let dl = xpbd_delta_lambda(c, w, self.lambda, alpha_t, gamma, c_dot_h);
        self.lambda += dl;
        p.pos[i] += n * (w * dl);
    }
}
