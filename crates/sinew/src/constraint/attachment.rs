//! Attachment: a particle held at a world-space target point, rigidly or softly.
//!
//! With `L = 0` (a pin) it is the vector constraint `C = x − t`, one scalar constraint per
//! axis with gradient the unit axis, so its force `λ/h²` has a direction even when the
//! particle sits exactly on the target. With `L > 0` (a leash) it is the one-sided
//! distance `C = |x − t| − L ≤ 0`. Compliance `α` gives a soft pin (a hand that gives a
//! little). The target `t` is kinematic
//! (infinite mass) and may be moved every step with [`crate::World::set_attachment_target`];
//! the force the attachment applies, `λ/h²`, is what the holder feels.

use super::{SubstepContext, xpbd_delta_lambda};
use crate::arena::define_handle;
use crate::dim::{BaseSpace as Space, RealOf, VecOf};
use crate::math::{Real, Vector};
use crate::particle::{ParticleHandle, ParticleSet};

define_handle!(
    /// An attachment in a [`crate::World`].
    AttachmentHandle
);

/// Definition of an attachment.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct AttachmentDef<S: Space> {
    /// The attached particle.
    pub particle: ParticleHandle,
    /// Target point (m).
    pub target: VecOf<S>,
    /// Allowed distance from the target (m), ≥ 0.
    pub length: RealOf<S>,
    /// Compliance (m/N); 0 = rigid.
    pub compliance: RealOf<S>,
    /// Damping (N·s/m), with compliance > 0.
    pub damping: RealOf<S>,
}

impl<S: Space> AttachmentDef<S> {
    /// A rigid attachment of `particle` to `target`.
    #[must_use]
    pub fn new(particle: ParticleHandle, target: VecOf<S>) -> Self {
        Self { particle, target, length: RealOf::<S>::ZERO, compliance: RealOf::<S>::ZERO, damping: RealOf::<S>::ZERO }
    }
    /// Sets the allowed distance from the target (m).
    #[must_use]
    pub fn length(mut self, length: RealOf<S>) -> Self {
        self.length = length;
        self
    }
    /// Sets the compliance (m/N; 0 = rigid).
    #[must_use]
    pub fn compliance(mut self, compliance: RealOf<S>) -> Self {
        self.compliance = compliance;
        self
    }
    /// Sets the damping (N·s/m; acts with compliance > 0).
    #[must_use]
    pub fn damping(mut self, damping: RealOf<S>) -> Self {
        self.damping = damping;
        self
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
    /// Damping (N·s/m).
    pub damping: RealOf<S>,
    /// Per-axis multipliers (pin) or `λ·n` (leash) of the last substep.
    pub(crate) lambda: VecOf<S>,
}

crate::state::saved_state!(impl[S: Space] Attachment<S> { particle, target, length, compliance, damping, lambda });

impl<S: Space> Attachment<S> {
    pub(crate) fn new(particle: usize, d: &AttachmentDef<S>) -> Self {
        Self {
            particle: particle as u32,
            target: d.target,
            length: d.length,
            compliance: d.compliance,
            damping: d.damping,
            lambda: VecOf::<S>::ZERO,
        }
    }

    /// Particle slot index.
    #[must_use]
    pub fn index(&self) -> usize {
        self.particle as usize
    }

    /// Force (N) the attachment applied to the particle in the last substep.
    #[must_use]
    pub fn force(&self, ctx: &SubstepContext<RealOf<S>>) -> VecOf<S> {
        self.lambda * ctx.inv_h2
    }

    /// One XPBD projection.
    #[inline]
    pub(crate) fn solve(&mut self, p: &mut ParticleSet<S>, ctx: &SubstepContext<RealOf<S>>) {
        let zero = RealOf::<S>::ZERO;
        let i = self.particle as usize;
        let w = p.inv_mass[i];
        if w == zero {
            return;
        }
        let alpha_t = self.compliance * ctx.inv_h2;
        let gamma = self.compliance * self.damping * ctx.inv_h;
        if self.length == zero {
            // Vector pin: every axis has |∇C| = 1, so one formula serves all of them.
            let c = p.pos[i] - self.target;
            let vel_h = p.pos[i] - p.prev[i];
            let denom = (RealOf::<S>::ONE + gamma) * w + alpha_t;
            let dl = (-c - self.lambda * alpha_t - vel_h * gamma) / denom;
            self.lambda += dl;
            p.pos[i] += dl * w;
            return;
        }
        let (n, len) = (p.pos[i] - self.target).normalize_and_length();
        let c = len - self.length;
        if c <= zero {
            return; // within the leash
        }
        let lambda = self.lambda.dot(n);
        let c_dot_h = if gamma == zero { zero } else { n.dot(p.pos[i] - p.prev[i]) };
        let dl = xpbd_delta_lambda(c, w, lambda, alpha_t, gamma, c_dot_h);
        self.lambda += n * dl;
        p.pos[i] += n * (w * dl);
    }
}
