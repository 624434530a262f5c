//! Ragdoll statistics: the numbers a debug panel shows and tests assert.
//!
//! | statistic | definition | unit |
//! |---|---|---|
//! | head speed | `|v_head|` | m/s (× dt for "per frame") |
//! | constraint error | `Σ_bones |ℓ − L|`, ℓ the current and L the rest length | m |
//! | worst bone strain | `max_bones |ℓ − L| / L` | ratio |
//! | solver passes per frame | iterations × substeps | count |
//! | worst joint-limit violation | how far any joint is outside its range | rad |
//! | fastest node | `max |vᵢ|` | m/s |
//!
//! The constraint error is the quantity the 2D playground of the brief shows: with XPBD
//! and small steps it stays near zero for rigid bones, and a growing value means too few
//! passes for the violence of the motion.

use crate::SinewError;
use crate::constraint::JointLimit;
use crate::math::{Real, Vector};
use crate::space::{RealOf, Space, VecOf};
use crate::world::World;

use super::{Ragdoll, RigSpace};

/// A snapshot of a ragdoll's statistics (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RagdollStats<R> {
    /// Speed of the head node (m/s); 0 when the rig names no head.
    pub head_speed: R,
    /// Sum over bones of `|length − rest|` (m).
    pub constraint_error: R,
    /// Largest `|length − rest| / rest` over bones.
    pub max_bone_strain: R,
    /// Constraint passes per step: iterations × substeps.
    pub solver_passes: u32,
    /// Largest joint-limit violation (rad).
    pub max_limit_violation: R,
    /// Largest node speed (m/s).
    pub max_speed: R,
}

impl<S: RigSpace> Ragdoll<S> {
    /// All statistics at once.
    pub fn stats(&self, world: &World<S>) -> Result<RagdollStats<RealOf<S>>, SinewError> {
        let (constraint_error, max_bone_strain) = self.bone_errors(world)?;
        Ok(RagdollStats {
            head_speed: self.head_speed(world)?,
            constraint_error,
            max_bone_strain,
            solver_passes: solver_passes(world),
            max_limit_violation: self.max_limit_violation(world)?,
            max_speed: self.max_speed(world)?,
        })
    }

    /// Speed of the head node (m/s); 0 without a head.
    pub fn head_speed(&self, world: &World<S>) -> Result<RealOf<S>, SinewError> {
        match self.head {
            Some(h) => Ok(world
                .particles()
                .velocity(self.nodes[h])
                .ok_or(SinewError::InvalidHandle { what: "ragdoll node", handle: None })?
                .length()),
            None => Ok(RealOf::<S>::ZERO),
        }
    }

    /// `(Σ |length − rest|, max |length − rest| / rest)` over the bones.
    pub fn bone_errors(&self, world: &World<S>) -> Result<(RealOf<S>, RealOf<S>), SinewError> {
        let p = world.particles().positions();
        let (mut sum, mut worst) = (RealOf::<S>::ZERO, RealOf::<S>::ZERO);
        for &h in &self.bones {
            let c =
                world.distance(h).map_err(|_| SinewError::InvalidHandle { what: "ragdoll bone", handle: Some(h.0) })?;
            let (a, b) = c.indices();
            let e = (p[a].distance(p[b]) - c.rest).abs();
            sum += e;
            worst = worst.max(e.safe_div(c.rest, RealOf::<S>::ZERO));
        }
        Ok((sum, worst))
    }

    /// Sum over bones of `|length − rest|` (m).
    pub fn constraint_error(&self, world: &World<S>) -> Result<RealOf<S>, SinewError> {
        self.bone_errors(world).map(|e| e.0)
    }

    /// Largest joint-limit violation (rad) over this ragdoll's limits.
    pub fn max_limit_violation(&self, world: &World<S>) -> Result<RealOf<S>, SinewError> {
        let mut worst = RealOf::<S>::ZERO;
        for &h in &self.limits {
            let l = world
                .joint_limit(h)
                .map_err(|_| SinewError::InvalidHandle { what: "ragdoll joint limit", handle: Some(h.0) })?;
            worst = worst.max(l.violation(world.particles()));
        }
        Ok(worst)
    }

    /// Largest node speed (m/s).
    pub fn max_speed(&self, world: &World<S>) -> Result<RealOf<S>, SinewError> {
        let ps = world.particles();
        let mut worst = RealOf::<S>::ZERO;
        for &h in &self.nodes {
            worst = worst.max(
                ps.velocity(h).ok_or(SinewError::InvalidHandle { what: "ragdoll node", handle: Some(h.0) })?.length(),
            );
        }
        Ok(worst)
    }

    /// True when every node moves slower than `speed` (m/s). (The world puts a ragdoll to
    /// sleep by itself after a second below 1 cm/s; see the module docs.)
    pub fn is_at_rest(&self, world: &World<S>, speed: RealOf<S>) -> Result<bool, SinewError> {
        Ok(self.max_speed(world)? < speed)
    }

    /// Centre of mass (m).
    pub fn center_of_mass(&self, world: &World<S>) -> Result<VecOf<S>, SinewError> {
        let ps = world.particles();
        let (mut sum, mut m) = (VecOf::<S>::ZERO, RealOf::<S>::ZERO);
        for &h in &self.nodes {
            let (x, mi) = ps
                .position(h)
                .zip(ps.mass(h))
                .ok_or(SinewError::InvalidHandle { what: "ragdoll node", handle: Some(h.0) })?;
            sum += x * mi;
            m += mi;
        }
        Ok(sum * m.recip_or_zero())
    }
}

/// Constraint passes per step of `world`: iterations × substeps.
#[must_use]
pub fn solver_passes<S: Space>(world: &World<S>) -> u32 {
    world.def().iterations.saturating_mul(world.def().substeps)
}
