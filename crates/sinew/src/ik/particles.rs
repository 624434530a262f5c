//! IK on particle rigs: a chain of [`ParticleHandle`]s read out of a [`ParticleSet`] into a
//! slice of positions, solved by any function of this module, and written back, as
//! kinematic targets (the particles move there over the next step, with the motion's
//! velocity, pulling what is attached to them) or as a teleport.
//!
//! A [`crate::World`] hands its particle set out through `World::particles` and
//! `World::particles_mut`, so a ragdoll's arm is posed with
//!
//! ```
//! use sinew::ik::{two_bone_2d, Bend, ParticleChain};
//! use sinew::prelude::*;
//!
//! let mut world = World2d::new(WorldDef::default()).unwrap();
//! let shoulder = world.add_particle(&ParticleDef::at(Vector2::new(0.0, 1.5)).mass(0.0)).unwrap();
//! let elbow = world.add_particle(&ParticleDef::at(Vector2::new(0.0, 1.2))).unwrap();
//! let hand = world.add_particle(&ParticleDef::at(Vector2::new(0.0, 0.9))).unwrap();
//! let mut arm = ParticleChain::new(world.particles(), &[shoulder, elbow, hand]).unwrap();
//! let l = arm.lengths().to_vec();
//! let p = arm.positions();
//! let ik = two_bone_2d(p[0], Vector2::new(0.4, 1.6), l[0], l[1], Bend::CounterClockwise);
//! arm.positions_mut()[1] = ik.mid;
//! arm.positions_mut()[2] = ik.end;
//! arm.write_kinematic_targets(world.particles_mut(), 1).unwrap();
//! world.step(1.0 / 60.0).unwrap();
//! let at = world.particles().position(hand).unwrap();
//! assert!((at - Vector2::new(0.4, 1.6)).length() < 1e-9);
//! ```

use super::fabrik::{Fabrik, FabrikReport, fabrik};
use super::limits::IkLimit;
use crate::dim::{BaseSpace, RealOf, VecOf};
use crate::error::SinewError;
use crate::particle::{ParticleHandle, ParticleSet};

/// A chain of particles with the bone lengths it had when made, and a position buffer the
/// solvers work on.
#[derive(Clone, Debug, PartialEq)]
pub struct ParticleChain<S: BaseSpace> {
    handles: Vec<ParticleHandle>,
    lengths: Vec<RealOf<S>>,
    positions: Vec<VecOf<S>>,
}

impl<S: BaseSpace> ParticleChain<S> {
    /// A chain through `handles` (root first), its bone lengths measured from the particles'
    /// current positions. Fails on a handle not in `particles`.
    pub fn new(particles: &ParticleSet<S>, handles: &[ParticleHandle]) -> Result<Self, SinewError> {
        let mut c = Self { handles: handles.to_vec(), lengths: Vec::new(), positions: Vec::new() };
        c.read(particles)?;
        c.lengths = super::fabrik::bone_lengths(&c.positions);
        Ok(c)
    }

    /// The particles, root first.
    #[must_use]
    pub fn handles(&self) -> &[ParticleHandle] {
        &self.handles
    }

    /// The bone lengths (`lengths()[i]` from particle `i` to `i + 1`).
    #[must_use]
    pub fn lengths(&self) -> &[RealOf<S>] {
        &self.lengths
    }

    /// Sets the bone lengths (e.g. a rig's rest lengths rather than the current ones); a
    /// slice of the wrong length is refused.
    pub fn set_lengths(&mut self, lengths: &[RealOf<S>]) -> Result<(), SinewError> {
        if lengths.len() != self.lengths.len() {
            return Err(SinewError::InvalidParameter {
                what: "lengths",
                reason: "one length per bone (particles − 1) is needed",
                value: Some(lengths.len() as f64),
            });
        }
        self.lengths.copy_from_slice(lengths);
        Ok(())
    }

    /// The position buffer (read by [`Self::read`], written by the solvers).
    #[must_use]
    pub fn positions(&self) -> &[VecOf<S>] {
        &self.positions
    }

    /// The position buffer, to solve on.
    pub fn positions_mut(&mut self) -> &mut [VecOf<S>] {
        &mut self.positions
    }

    /// Reads the particles' current positions into the buffer. Fails (buffer unchanged) on a
    /// handle no longer in `particles`.
    pub fn read(&mut self, particles: &ParticleSet<S>) -> Result<(), SinewError> {
        let mut out = Vec::with_capacity(self.handles.len());
        for &h in &self.handles {
            out.push(particles.position(h).ok_or(SinewError::InvalidHandle { what: "particle", handle: Some(h.0) })?);
        }
        self.positions = out;
        Ok(())
    }

    /// Reads the particles, then runs [`fabrik`] on the buffer toward `target` with the
    /// chain's lengths (nothing written back: see [`Self::write_kinematic_targets`]).
    pub fn solve_fabrik<L: IkLimit<RealOf<S>, VecOf<S>>>(
        &mut self,
        particles: &ParticleSet<S>,
        target: VecOf<S>,
        limits: &[L],
        base: Option<VecOf<S>>,
        settings: &Fabrik<RealOf<S>>,
    ) -> Result<FabrikReport<RealOf<S>>, SinewError> {
        self.read(particles)?;
        Ok(fabrik(&mut self.positions, &self.lengths, target, limits, base, settings))
    }

    /// Drives the particles from index `from` on (1 to leave the root to the simulation) to
    /// the buffer's positions over the next step, as kinematic targets
    /// ([`ParticleSet::set_kinematic_target`]: each is pinned first if free, and stays
    /// kinematic until released). Every handle is checked before any is changed.
    pub fn write_kinematic_targets(&self, particles: &mut ParticleSet<S>, from: usize) -> Result<(), SinewError> {
        self.check(particles)?;
        for (h, p) in self.handles.iter().zip(&self.positions).skip(from) {
            particles.set_kinematic_target(*h, *p)?;
        }
        Ok(())
    }

    /// Teleports the particles from index `from` on to the buffer's positions
    /// ([`ParticleSet::set_position`]: no velocity change). Every handle is checked before
    /// any is changed.
    pub fn write_positions(&self, particles: &mut ParticleSet<S>, from: usize) -> Result<(), SinewError> {
        self.check(particles)?;
        for (h, p) in self.handles.iter().zip(&self.positions).skip(from) {
            particles.set_position(*h, *p)?;
        }
        Ok(())
    }

    fn check(&self, particles: &ParticleSet<S>) -> Result<(), SinewError> {
        if self.positions.len() != self.handles.len() {
            return Err(SinewError::InvalidParameter {
                what: "positions",
                reason: "the chain has not been read",
                value: None,
            });
        }
        match self.handles.iter().find(|h| !particles.contains(**h)) {
            Some(h) => Err(SinewError::InvalidHandle { what: "particle", handle: Some(h.0) }),
            None => Ok(()),
        }
    }
}
