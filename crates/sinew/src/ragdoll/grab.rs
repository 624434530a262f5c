//! Grabbing: drag any node of a ragdoll, then throw it.
//!
//! **Hard grab** (compliance 0). The node's inverse mass becomes 0 and it is driven to
//! the hand as a kinematic particle: each step moves it linearly from where it was to
//! the new target, one substep at a time, so bones and limits see a smooth path and the
//! node's velocity is the hand's, `v = (x_target − x_start) / dt`. Nothing the body does
//! can pull it away from the hand (`w = 0` in every projection). On release the node gets
//! its mass back and keeps the hand's velocity — a throw.
//!
//! **Soft grab** (compliance α > 0). The node keeps its mass and is tied to the hand by a
//! zero-length XPBD attachment `C = x − t` of compliance α (m/N): it trails the hand like
//! a held sleeve, the pull `λ/h²` is what the hand would feel
//! ([`World::attachment_force`]), and on release the node simply keeps the velocity it has.
//!
//! A node that was already pinned before a hard grab stays pinned when released.

use crate::SinewError;
use crate::constraint::{AttachmentDef, AttachmentHandle};
use crate::math::Real;
use crate::particle::ParticleHandle;
use crate::space::{RealOf, Space, VecOf};
use crate::world::World;

use super::{Ragdoll, RigSpace};

/// An active grab (see the module docs). A plain value; end it with [`Grab::release`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grab {
    particle: ParticleHandle,
    kind: GrabKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GrabKind {
    /// Kinematic; `true` when the particle was pinned before the grab.
    Hard { was_pinned: bool },
    /// Compliant attachment.
    Soft(AttachmentHandle),
}

impl Grab {
    /// Grabs node `node` of a ragdoll's node list (an error if out of range).
    pub(crate) fn node<S: Space>(
        world: &mut World<S>,
        nodes: &[ParticleHandle],
        node: usize,
        target: VecOf<S>,
        compliance: RealOf<S>,
    ) -> Result<Self, SinewError> {
        let p = nodes.get(node).copied().ok_or(SinewError::InvalidParameter {
            what: "grab node",
            reason: "index out of range",
            value: None,
        })?;
        Self::start(world, p, target, compliance)
    }

    /// Grabs `particle` toward `target` with `compliance` (0 = hard, > 0 = soft).
    pub fn start<S: Space>(
        world: &mut World<S>,
        particle: ParticleHandle,
        target: VecOf<S>,
        compliance: RealOf<S>,
    ) -> Result<Self, SinewError> {
        if !compliance.is_finite() {
            return Err(SinewError::NonFinite { what: "grab compliance" });
        }
        if compliance < RealOf::<S>::ZERO {
            return Err(SinewError::InvalidParameter { what: "grab compliance", reason: "must be ≥ 0", value: None });
        }
        let was_pinned = world.particles().is_kinematic(particle);
        if compliance == RealOf::<S>::ZERO {
            world.particles_mut().set_kinematic_target(particle, target)?;
            return Ok(Self { particle, kind: GrabKind::Hard { was_pinned } });
        }
        let mut def = AttachmentDef::new(particle, target);
        def.compliance = compliance;
        let a = world.add_attachment(&def)?;
        Ok(Self { particle, kind: GrabKind::Soft(a) })
    }

    /// The grabbed particle.
    #[inline]
    #[must_use]
    pub fn particle(&self) -> ParticleHandle {
        self.particle
    }

    /// True for a hard (kinematic) grab.
    #[inline]
    #[must_use]
    pub fn is_hard(&self) -> bool {
        matches!(self.kind, GrabKind::Hard { .. })
    }

    /// Moves the hand: the node reaches `target` at the end of the next step (hard) or is
    /// pulled toward it (soft). Call once per frame while dragging.
    pub fn move_to<S: Space>(&self, world: &mut World<S>, target: VecOf<S>) -> Result<(), SinewError> {
        match self.kind {
            GrabKind::Hard { .. } => world.particles_mut().set_kinematic_target(self.particle, target),
            GrabKind::Soft(a) => world.set_attachment_target(a, target),
        }
    }

    /// Lets go. A hard grab gives the node its mass back with the hand's velocity (the
    /// velocity of its last driven step); returns that velocity.
    pub fn release<S: Space>(self, world: &mut World<S>) -> Result<VecOf<S>, SinewError> {
        match self.kind {
            GrabKind::Hard { was_pinned } => {
                let ps = world.particles_mut();
                let v = ps
                    .velocity(self.particle)
                    .ok_or(SinewError::InvalidHandle { what: "grabbed particle", handle: Some(self.particle.0) })?;
                if !was_pinned {
                    // The mass is remembered while pinned; ragdoll nodes always have one.
                    ps.release(self.particle, v, RealOf::<S>::ONE)?;
                }
                Ok(v)
            }
            GrabKind::Soft(a) => {
                world.remove_attachment(a)?;
                world
                    .particles()
                    .velocity(self.particle)
                    .ok_or(SinewError::InvalidHandle { what: "grabbed particle", handle: Some(self.particle.0) })
            }
        }
    }
}

impl<S: RigSpace> Ragdoll<S> {
    /// Grabs node `node` toward `target` (see the module docs; compliance 0 = hard).
    pub fn grab(
        &self,
        world: &mut World<S>,
        node: usize,
        target: VecOf<S>,
        compliance: RealOf<S>,
    ) -> Result<Grab, SinewError> {
        Grab::node(world, self.nodes(), node, target, compliance)
    }

    /// Moves a grab's hand (same as [`Grab::move_to`]).
    pub fn move_grab(&self, world: &mut World<S>, grab: &Grab, target: VecOf<S>) -> Result<(), SinewError> {
        grab.move_to(world, target)
    }

    /// Releases a grab, throwing the node with the hand's velocity (same as
    /// [`Grab::release`]).
    pub fn release(&self, world: &mut World<S>, grab: Grab) -> Result<VecOf<S>, SinewError> {
        grab.release(world)
    }
}
