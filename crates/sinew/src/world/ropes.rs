//! The world's rope API: thin calls into [`crate::rope`], which holds the rope logic.

use super::World;
use crate::SinewError;
use crate::arena::Arena;
use crate::contact::bodies::{BodyState, NO_BODY};
use crate::limits::Limits;
use crate::math::Real;
use crate::particle::{ParticleDef, ParticleHandle, ParticleSet, check_finite};
use crate::rope::{Rope, RopeDef, RopeEnd, RopeHandle, RopeHost, RopePoint};
use crate::space::{RealOf, Space, VecOf};

impl<S: Space> RopeHost<S> for World<S> {
    fn particles(&self) -> &ParticleSet<S> {
        &self.state.particles
    }
    /// A rope particle inserted into a rope (reeling out, grabbing): one more segment.
    fn add_particle(&mut self, def: &ParticleDef<S>) -> Result<ParticleHandle, SinewError> {
        Limits::check("rope segments", self.rope_segment_count(), 1, self.state.def.limits.rope_segments)?;
        World::add_particle(self, def)
    }
    fn remove_rope_particle(&mut self, p: ParticleHandle) -> Result<(), SinewError> {
        self.state.particles.check(p)?;
        self.remove_rope_particle_unchecked(p);
        Ok(())
    }
    fn ropes_mut(&mut self) -> &mut Arena<Rope<S>> {
        &mut self.state.ropes
    }
}

impl<S: Space> World<S> {
    /// Adds a rope: particles along `def.points`, the chain, optional bending and tethers.
    /// On error nothing is left in the world.
    pub fn add_rope(&mut self, def: &RopeDef<S>) -> Result<RopeHandle, SinewError> {
        let mut ends = [None, None];
        for (slot, p) in ends.iter_mut().zip([def.attach_start, def.attach_end]) {
            if let Some(p) = p {
                self.state.particles.check(p)?;
                *slot = Some((p, self.state.particles.pos[p.index()]));
            }
        }
        // Each particle the rope makes is one more segment (an attached end is not made):
        // checked before it is added, so a rope over the limit stops at the first extra.
        // The whole rope is checked against the limit before its points are laid out
        // (`RopeDef::layout`), so a hostile segment count allocates nothing.
        let limit = self.state.def.limits.rope_segments;
        let existing = self.rope_segment_count();
        let segments = existing + ends.iter().filter(|e| e.is_some()).count();
        let mut made = Vec::new();
        let rope = Rope::build(def, ends, (existing, limit), |pd| {
            Limits::check("rope segments", segments + made.len(), 0, limit)?;
            // A particle's share of a rope's mass that rounds to 0 would pin it silently.
            if !(pd.mass > RealOf::<S>::ZERO) {
                return Err(SinewError::InvalidParameter {
                    what: "rope mass",
                    reason: "a particle's share rounds to 0 in this number type (it would be pinned)",
                    value: Some(def.mass.to_f64()),
                });
            }
            let h = self.add_particle(pd)?;
            made.push(h);
            Ok(h)
        });
        match rope {
            Ok(rope) => {
                let h = RopeHandle(self.state.ropes.insert(rope));
                // One body per rope: its spans and the particles it made.
                let body = self.new_body().map_or(NO_BODY, |b| b.0);
                let bodies = &mut self.state.bodies;
                BodyState::set(&mut bodies.rope_body, h.0.index as usize, body);
                for p in made {
                    BodyState::set(&mut bodies.body, p.index(), body);
                }
                Ok(h)
            }
            Err(e) => {
                for h in made.into_iter().rev() {
                    let _ = self.remove_particle(h);
                }
                Err(e)
            }
        }
    }

    /// Segments of all ropes together (what [`Limits::rope_segments`] counts).
    #[must_use]
    pub fn rope_segment_count(&self) -> usize {
        self.state.ropes.values().map(Rope::segment_count).sum()
    }

    /// A rope.
    pub fn rope(&self, h: RopeHandle) -> Result<&Rope<S>, SinewError> {
        self.state.ropes.get(h.0).ok_or(SinewError::InvalidHandle { what: "rope", handle: Some(h.0) })
    }

    /// Ropes in slot order (torn pieces included).
    pub fn ropes(&self) -> impl Iterator<Item = (RopeHandle, &Rope<S>)> {
        self.state.ropes.iter().map(|(h, r)| (RopeHandle(h), r))
    }

    fn rope_mut(&mut self, h: RopeHandle) -> Result<&mut Rope<S>, SinewError> {
        self.state.ropes.get_mut(h.0).ok_or(SinewError::InvalidHandle { what: "rope", handle: Some(h.0) })
    }

    /// Removes a rope and its own particles (attached particles stay, see
    /// [`RopeDef::attach_start`]).
    pub fn remove_rope(&mut self, h: RopeHandle) -> Result<(), SinewError> {
        let rope = self.state.ropes.remove(h.0).ok_or(SinewError::InvalidHandle { what: "rope", handle: Some(h.0) })?;
        let n = rope.particles.len();
        for (i, p) in rope.particles.into_iter().enumerate() {
            let attached = (i == 0 && rope.attached[0]) || (i + 1 == n && rope.attached[1]);
            if !attached && self.state.particles.contains(p) {
                self.remove_rope_particle_unchecked(p);
            }
        }
        Ok(())
    }

    /// Tension (N) of every segment over the last step, start to end (positive = pulled):
    /// the impulse each carried during the step over the step's length (see
    /// [`crate::rope`], "Tension").
    /// See [`World::rope_tensions_into`] to reuse a buffer.
    pub fn rope_tensions(&self, h: RopeHandle) -> Result<Vec<RealOf<S>>, SinewError> {
        let mut out = Vec::new();
        self.rope_tensions_into(h, &mut out)?;
        Ok(out)
    }

    /// [`World::rope_tensions`] into `out` (cleared first), without allocating once `out`
    /// has grown to the rope's length.
    pub fn rope_tensions_into(&self, h: RopeHandle, out: &mut Vec<RealOf<S>>) -> Result<(), SinewError> {
        let rope = self.rope(h)?;
        out.clear();
        out.extend(rope.lambda.iter().map(|&l| self.lambda_to_force(-l)));
        Ok(())
    }

    /// Tension (N) of one segment over the last step (positive = pulled; see
    /// [`World::rope_tensions`]).
    pub fn rope_tension(&self, h: RopeHandle, segment: usize) -> Result<RealOf<S>, SinewError> {
        let rope = self.rope(h)?;
        let l = rope.lambda.get(segment).ok_or(SinewError::InvalidParameter {
            what: "rope segment",
            reason: "index out of range",
            value: None,
        })?;
        Ok(self.lambda_to_force(-*l))
    }

    /// Grabs the rope at a point: pins the particle there and returns it. Drive it with
    /// [`crate::particle::ParticleSet::set_kinematic_target`]; let go with
    /// [`World::release_particle`] (it keeps the hand's velocity).
    pub fn grab_rope(&mut self, h: RopeHandle, at: RopePoint<RealOf<S>>) -> Result<ParticleHandle, SinewError> {
        let rope = self.rope_mut(h)?;
        let i = rope.resolve(at)?;
        let p = rope.particles[i];
        rope.sleep.sleeping = false;
        self.state.particles.pin(p)?;
        Ok(p)
    }

    /// Releases a pinned or driven particle with the velocity it is moving at (so a rope
    /// swung by a hand flies on when let go). Particles created with mass 0 get 1 kg.
    pub fn release_particle(&mut self, p: ParticleHandle) -> Result<(), SinewError> {
        let v = self
            .state
            .particles
            .velocity(p)
            .ok_or(SinewError::InvalidHandle { what: "particle", handle: Some(p.0) })?;
        self.state.particles.release(p, v, RealOf::<S>::ONE)?;
        self.wake_ropes_with_slot(p.index());
        Ok(())
    }

    /// Sets the wind a rope is dragged toward (m/s) and the drag coefficient (N·s/m per
    /// particle); a drag of 0 turns wind off.
    pub fn set_rope_wind(&mut self, h: RopeHandle, wind: VecOf<S>, drag: RealOf<S>) -> Result<(), SinewError> {
        check_finite(wind, "wind")?;
        if !drag.is_finite() || drag < RealOf::<S>::ZERO {
            return Err(SinewError::InvalidParameter { what: "drag", reason: "must be finite and ≥ 0", value: None });
        }
        let rope = self.rope_mut(h)?;
        rope.wind = wind;
        rope.drag = drag;
        rope.sleep.sleeping = false;
        Ok(())
    }

    /// Sets when a rope uses the taut representation ([`crate::rope::taut`]), in 2D and
    /// 3D; the switch happens at the start of the next step (or at
    /// [`Self::update_rope_modes`]). A taut rope asked to be `Never` goes slack there.
    pub fn set_rope_taut(&mut self, h: RopeHandle, mode: crate::rope::TautMode) -> Result<(), SinewError> {
        let rope = self.rope_mut(h)?;
        rope.taut.mode = mode;
        rope.sleep.wake();
        Ok(())
    }

    /// Switches ropes between slack and taut now, as the start of the next step would
    /// ([`crate::rope::taut`], "Switching"): after edits between steps, or to see what
    /// a switch changes. A switch to taut moves no particle more than 1 mm (that is its
    /// condition in `Auto`; in 3D 1 mm plus 0.3 of the rope's radius where the path has a
    /// contact, for a particle rope lying round an edge; `Always` lays the particles on
    /// the path whatever the distance) and changes no velocity; a switch to slack moves
    /// nothing.
    pub fn update_rope_modes(&mut self) {
        let st = &mut self.state;
        crate::rope::taut::solve::switch(&mut st.ropes, &mut st.particles, &st.colliders, &mut self.scratch.taut);
    }

    /// The rope's path from start to end: the polyline round its contacts while taut
    /// (round contacts sampled every 1/8 rad), its particles while slack.
    pub fn rope_path(&self, h: RopeHandle) -> Result<Vec<VecOf<S>>, SinewError> {
        let rope = self.rope(h)?;
        Ok(crate::rope::taut::solve::path_points(rope, &self.state.particles, &self.state.colliders))
    }

    /// Wakes a sleeping rope.
    pub fn wake_rope(&mut self, h: RopeHandle) -> Result<(), SinewError> {
        self.rope_mut(h)?.sleep.wake();
        Ok(())
    }

    /// Wakes the ropes that hold particle slot `slot`.
    pub(crate) fn wake_ropes_with_slot(&mut self, slot: usize) {
        let k = slot as u32;
        for r in self.state.ropes.values_mut() {
            if r.idx.contains(&k) {
                r.sleep.wake();
            }
        }
    }

    /// Sets a rope's total rest length (m) by lengthening or shortening the segment at
    /// `end`, inserting or removing particles as needed (the end segment absorbs the change; a particle is inserted past 1.5× the nominal
    /// segment length and removed below 0.5×, so nothing pops).
    /// Lengths below 1 mm are clamped to 1 mm (a rope cannot vanish into its winch).
    pub fn set_rope_length(&mut self, h: RopeHandle, end: RopeEnd, length: RealOf<S>) -> Result<(), SinewError> {
        // A rope lengthened to `length` holds about `length / segment_length` segments
        // (each between 0.5 and 1.5 nominal lengths): checked before any is added.
        let rope = self.rope(h)?;
        if length.is_finite() {
            let planned = (length / rope.segment_length).to_f64().ceil().max(1.0);
            let others = self.rope_segment_count() - rope.segment_count();
            let planned = if planned >= usize::MAX as f64 { usize::MAX } else { planned as usize };
            Limits::check("rope segments", others, planned, self.state.def.limits.rope_segments)?;
            // One rope holds at most 100,000 segments (as `RopeDef` checks).
            Limits::check("rope segments (one rope)", 0, planned, 100_000)?;
        }
        crate::rope::reel::set_length(self, h, end, length)
    }

    /// Cuts segment `segment` (0-based from the start). Returns the handle of the new
    /// piece (the part after the cut), or `None` when that part is a single particle,
    /// which is then left as a free particle (both pieces keep simulating as ropes of their own).
    pub fn cut_rope(&mut self, h: RopeHandle, segment: usize) -> Result<Option<RopeHandle>, SinewError> {
        let piece = crate::rope::tear::cut(&mut self.state.ropes, h, segment)?;
        if let Some(p) = piece {
            // The piece stays in the rope's body.
            let bodies = &mut self.state.bodies;
            let body = BodyState::get(&bodies.rope_body, h.0.index as usize);
            BodyState::set(&mut bodies.rope_body, p.0.index as usize, body);
        }
        Ok(piece)
    }
}
