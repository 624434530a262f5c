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
            return Err(SinewError::LimitExceeded {
                what: "bodies",
                limit: MAX_BODIES as usize,
                requested: MAX_BODIES as usize + 1,
            });
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
    /// within two bones of each other (sharing a particle, or with particles a bone or
    /// two tie together) never collide, nor do primitives that overlap when this is
    /// turned on (a rig's rest pose: a hand resting against a hip): turn it on with the
    /// body in a pose it may return to.
    pub fn set_self_collision(&mut self, body: BodyId, on: bool) -> Result<(), SinewError> {
        self.check_body(Some(body))?;
        let list = &mut self.state.bodies.self_collide;
        match (list.binary_search(&body.0), on) {
            (Err(i), true) => list.insert(i, body.0),
            (Ok(i), false) => {
                list.remove(i);
                return Ok(());
            }
            _ => return Ok(()),
        }
        // The body's primitives as they are now: bones, rope spans, spheres.
        let st = &self.state;
        let of = |k: u32| BodyState::get(&st.bodies.body, k as usize) == body.0;
        let mut segs: Vec<(u32, u32)> =
            st.distances.values().filter(|c| of(c.a) && of(c.b)).map(|c| (c.a, c.b)).collect();
        for (h, r) in st.ropes.iter() {
            if BodyState::get(&st.bodies.rope_body, h.index as usize) == body.0 {
                segs.extend(r.idx.windows(2).map(|w| (w[0], w[1])));
            }
        }
        let ps = &st.particles;
        let lone = (0..ps.slot_count() as u32).filter(|&k| of(k) && ps.handle_at(k as usize).is_some());
        let lone: Vec<u32> = lone.filter(|&k| !segs.iter().any(|&(a, b)| a == k || b == k)).collect();
        segs.extend(lone.into_iter().map(|k| (k, k)));
        let (bodies, ps) = (&mut self.state.bodies, &self.state.particles);
        bodies.exclude_overlapping(body.0, ps, &segs);
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
