//! The world's body-contact API: bodies, self-collision, the last step's figures (the
//! method is in [`crate::contact::bodies`]).

use super::World;
use crate::SinewError;
use crate::contact::bodies::{BodyContactStats, BodyState, MAX_BODIES, NO_BODY};
use crate::particle::{BodyId, ParticleHandle};
use crate::rope::RopeHandle;
use crate::space::Space;

impl<S: Space> World<S> {
    /// A new body (see [`BodyId`]): give it to particles with [`crate::ParticleDef::body`]
    /// or [`World::set_body`]. Ragdolls and ropes get one each when spawned.
    pub fn new_body(&mut self) -> Result<BodyId, SinewError> {
        let b = &mut self.state.bodies;
        if b.next >= MAX_BODIES {
            return Err(SinewError::LimitExceeded { what: "bodies", limit: MAX_BODIES as usize, requested: MAX_BODIES as usize + 1 });
        }
        b.next += 1;
        Ok(BodyId(b.next - 1))
    }

    /// Puts a particle in a body (`None`: a body of its own).
    pub fn set_body(&mut self, p: ParticleHandle, body: Option<BodyId>) -> Result<(), SinewError> {
        self.state.particles.check(p)?;
        self.check_body(body)?;
        BodyState::set(&mut self.state.bodies.body, p.index(), body.map_or(NO_BODY, |b| b.0));
        Ok(())
    }

    /// The body of a particle (`None`: a body of its own).
    pub fn body(&self, p: ParticleHandle) -> Result<Option<BodyId>, SinewError> {
        self.state.particles.check(p)?;
        Ok(match BodyState::get(&self.state.bodies.body, p.index()) {
            NO_BODY => None,
            b => Some(BodyId(b)),
        })
    }

    /// The body of a rope's spans and inner particles (its ends may belong to other bodies:
    /// a load, a hand).
    pub fn rope_body(&self, h: RopeHandle) -> Result<Option<BodyId>, SinewError> {
        self.rope(h)?;
        Ok(match BodyState::get(&self.state.bodies.rope_body, h.0.index as usize) {
            NO_BODY => None,
            b => Some(BodyId(b)),
        })
    }

    /// Sets the body of a rope's spans and inner particles (`None`: a body of its own).
    pub fn set_rope_body(&mut self, h: RopeHandle, body: Option<BodyId>) -> Result<(), SinewError> {
        self.rope(h)?;
        self.check_body(body)?;
        BodyState::set(&mut self.state.bodies.rope_body, h.0.index as usize, body.map_or(NO_BODY, |b| b.0));
        Ok(())
    }

    /// Turns collisions between a body's own primitives on or off (off by default). Bones
    /// that share a particle, or that a bone ties together, never collide.
    pub fn set_self_collision(&mut self, body: BodyId, on: bool) -> Result<(), SinewError> {
        self.check_body(Some(body))?;
        let list = &mut self.state.bodies.self_collide;
        match (list.binary_search(&body.0), on) {
            (Err(i), true) => list.insert(i, body.0),
            (Ok(i), false) => {
                list.remove(i);
            }
            _ => {}
        }
        Ok(())
    }

    /// Whether a body collides with itself.
    #[must_use]
    pub fn self_collision(&self, body: BodyId) -> bool {
        self.state.bodies.self_collide.binary_search(&body.0).is_ok()
    }

    /// What the last step's body contacts did (zero while they are off).
    #[must_use]
    pub fn body_contact_stats(&self) -> BodyContactStats {
        self.scratch.bodies.stats
    }

    fn check_body(&self, body: Option<BodyId>) -> Result<(), SinewError> {
        match body {
            Some(b) if b.0 >= self.state.bodies.next => Err(SinewError::InvalidParameter {
                what: "body",
                reason: "not made by this world's new_body",
                value: Some(f64::from(b.0)),
            }),
            _ => Ok(()),
        }
    }
}
