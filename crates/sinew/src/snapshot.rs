//! Snapshot, restore and a canonical state hash: what rollback netcode needs.
//!
//! A rollback client (GGRS-style) saves the world every frame, and when a late input
//! arrives restores an older frame, re-simulates to the present and compares checksums
//! with its peers. That works only if
//!
//! 1. a snapshot holds *everything the next step reads* — positions, velocities, masses
//!    and pins, pending forces and kinematic targets, the particles' contact anchors
//!    (which steps gather collider pairs afresh), every constraint with its multiplier,
//!    collider poses (current and previous, which give their velocity), driver progress,
//!    rope state (rest lengths, multipliers, sleep), the clock and the free lists that
//!    decide where the next created object goes;
//! 2. restore-then-step equals step, bit for bit (derived data — broad phase, constraint
//!    order, per-step buffers — is rebuilt from the restored state and is a pure function
//!    of it);
//! 3. the hash is *canonical*: it reads values, in slot order, never memory layout,
//!    padding or allocation addresses; `-0.0` and `0.0` hash alike.
//!
//! In fixed point (`Fx`) all three hold across machines; in floats they hold on one build
//! and machine.

use crate::arena::Arena;
use crate::collider::Collider;
use crate::constraint::{Attachment, Bending, Distance, JointLimit, Tether};
use crate::driver::KeyframeDriver;
use crate::math::{Real, Rotation, Vector};
use crate::particle::{AnchorInfo, InteractionGroups, ParticleSet};
use crate::rope::Rope;
use crate::sleep::SleepGroup;
use crate::space::{RealOf, Space, VecOf};
use crate::world::{World, WorldDef};

/// A fast, canonical 64-bit hash of a sequence of words (four independent
/// multiply–rotate lanes, folded at the end). Not cryptographic: it detects divergence.
#[derive(Clone, Debug)]
pub struct StateHasher {
    lanes: [u64; 4],
    n: usize,
}

const K: [u64; 4] = [0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9, 0x27D4_EB2F_1656_67C5];

impl Default for StateHasher {
    fn default() -> Self {
        Self { lanes: K, n: 0 }
    }
}

impl StateHasher {
    /// Mixes one word.
    #[inline]
    pub fn write_u64(&mut self, w: u64) {
        let i = self.n & 3;
        self.lanes[i] = (self.lanes[i] ^ w).wrapping_mul(K[i]).rotate_left(29);
        self.n += 1;
    }
    /// Mixes a scalar by its canonical bits.
    #[inline]
    pub fn write_real<R: Real>(&mut self, r: R) {
        self.write_u64(r.hash_bits());
    }
    /// Mixes every component of a vector.
    #[inline]
    pub fn write_vec<R: Real, V: Vector<R>>(&mut self, v: V) {
        for i in 0..V::DIM {
            self.write_real(v.get(i));
        }
    }
    /// The hash of everything written so far.
    #[must_use]
    pub fn finish(&self) -> u64 {
        let mut h = self.n as u64 ^ 0x5851_F42D_4C95_7F2D;
        for (i, l) in self.lanes.iter().enumerate() {
            h = (h ^ l.rotate_left(17 * i as u32)).wrapping_mul(0x2545_F491_4F6C_DD1D);
            h ^= h >> 31;
        }
        h
    }
}

/// The particle state a step reads (positions, velocities, masses, pins, forces, targets,
/// filters, the slot bookkeeping and the contact anchors). `prev` and `step_start` are
/// not stored: every step overwrites them before reading them.
#[derive(Clone, Debug)]
struct ParticleState<S: Space> {
    pos: Vec<VecOf<S>>,
    vel: Vec<VecOf<S>>,
    inv_mass: Vec<RealOf<S>>,
    mass: Vec<RealOf<S>>,
    radius: Vec<RealOf<S>>,
    gravity_scale: Vec<RealOf<S>>,
    force: Vec<VecOf<S>>,
    friction: Vec<Option<RealOf<S>>>,
    groups: Vec<InteractionGroups>,
    flags: Vec<u8>,
    target: Vec<Option<VecOf<S>>>,
    generation: Vec<u32>,
    free: Vec<u32>,
    live: usize,
    anchor: Vec<VecOf<S>>,
    anchor_info: Vec<AnchorInfo<RealOf<S>>>,
}

/// A saved world state. Cheap to take (a copy of flat arrays), restored with
/// [`World::restore`].
#[derive(Clone, Debug)]
pub struct Snapshot<S: Space> {
    def: WorldDef<S>,
    particles: ParticleState<S>,
    distances: Arena<Distance<RealOf<S>>>,
    tethers: Arena<Tether<RealOf<S>>>,
    bendings: Arena<Bending<RealOf<S>>>,
    attachments: Arena<Attachment<S>>,
    limits: Arena<S::JointLimit>,
    drivers: Arena<KeyframeDriver<S>>,
    ropes: Arena<Rope<S>>,
    sleep_groups: Arena<SleepGroup>,
    colliders: Arena<Collider<S>>,
    time: RealOf<S>,
    step_count: u64,
    last_h: RealOf<S>,
}

impl<S: Space> Snapshot<S> {
    /// Heap bytes held by the snapshot's arrays (excluding collider shapes' own vertex
    /// lists), for sizing a rollback buffer.
    #[must_use]
    pub fn size_bytes(&self) -> usize {
        fn b<T>(v: &[T]) -> usize {
            core::mem::size_of_val(v)
        }
        let p = &self.particles;
        b(&p.pos)
            + b(&p.vel)
            + b(&p.inv_mass)
            + b(&p.mass)
            + b(&p.radius)
            + b(&p.gravity_scale)
            + b(&p.force)
            + b(&p.friction)
            + b(&p.groups)
            + b(&p.flags)
            + b(&p.target)
            + b(&p.generation)
            + b(&p.free)
            + b(&p.anchor)
            + b(&p.anchor_info)
            + self.distances.slot_bytes()
            + self.tethers.slot_bytes()
            + self.bendings.slot_bytes()
            + self.attachments.slot_bytes()
            + self.limits.slot_bytes()
            + self.drivers.slot_bytes()
            + self.ropes.values().map(Rope::heap_bytes).sum::<usize>()
            + self.colliders.slot_bytes()
    }

    /// Bytes per particle slot of the particle part alone.
    #[must_use]
    pub fn particle_bytes_per_slot() -> usize {
        use core::mem::size_of;
        2 * size_of::<VecOf<S>>()
            + 4 * size_of::<RealOf<S>>()
            + size_of::<VecOf<S>>()
            + size_of::<Option<RealOf<S>>>()
            + size_of::<InteractionGroups>()
            + 1
            + size_of::<Option<VecOf<S>>>()
            + 4
            + size_of::<VecOf<S>>()
            + size_of::<AnchorInfo<RealOf<S>>>()
    }

    /// Step count at which the snapshot was taken.
    #[must_use]
    pub fn step_count(&self) -> u64 {
        self.step_count
    }
}

impl<S: Space> World<S> {
    /// Saves the complete dynamic state.
    #[must_use]
    pub fn snapshot(&self) -> Snapshot<S> {
        let p = &self.particles;
        Snapshot {
            def: self.def,
            particles: ParticleState {
                pos: p.pos.clone(),
                vel: p.vel.clone(),
                inv_mass: p.inv_mass.clone(),
                mass: p.mass.clone(),
                radius: p.radius.clone(),
                gravity_scale: p.gravity_scale.clone(),
                force: p.force.clone(),
                friction: p.friction.clone(),
                groups: p.groups.clone(),
                flags: p.flags.clone(),
                target: p.target.clone(),
                generation: p.generation.clone(),
                free: p.free.clone(),
                live: p.live,
                anchor: p.anchor.clone(),
                anchor_info: p.anchor_info.clone(),
            },
            distances: self.distances.clone(),
            tethers: self.tethers.clone(),
            bendings: self.bendings.clone(),
            attachments: self.attachments.clone(),
            limits: self.limits.clone(),
            drivers: self.drivers.clone(),
            ropes: self.ropes.clone(),
            sleep_groups: self.sleep_groups.clone(),
            colliders: self.colliders.clone(),
            time: self.time,
            step_count: self.step_count,
            last_h: self.last_h,
        }
    }

    /// Saves the complete dynamic state into an existing snapshot, reusing its buffers: a
    /// rollback client keeps a ring of snapshots and overwrites the oldest every frame,
    /// which then costs copies only, no allocation.
    pub fn snapshot_into(&self, out: &mut Snapshot<S>) {
        let p = &self.particles;
        let sp = &mut out.particles;
        sp.pos.clone_from(&p.pos);
        sp.vel.clone_from(&p.vel);
        sp.inv_mass.clone_from(&p.inv_mass);
        sp.mass.clone_from(&p.mass);
        sp.radius.clone_from(&p.radius);
        sp.gravity_scale.clone_from(&p.gravity_scale);
        sp.force.clone_from(&p.force);
        sp.friction.clone_from(&p.friction);
        sp.groups.clone_from(&p.groups);
        sp.flags.clone_from(&p.flags);
        sp.target.clone_from(&p.target);
        sp.generation.clone_from(&p.generation);
        sp.free.clone_from(&p.free);
        sp.live = p.live;
        sp.anchor.clone_from(&p.anchor);
        sp.anchor_info.clone_from(&p.anchor_info);
        out.def = self.def;
        out.distances.clone_from(&self.distances);
        out.tethers.clone_from(&self.tethers);
        out.bendings.clone_from(&self.bendings);
        out.attachments.clone_from(&self.attachments);
        out.limits.clone_from(&self.limits);
        out.drivers.clone_from(&self.drivers);
        out.ropes.clone_from(&self.ropes);
        out.sleep_groups.clone_from(&self.sleep_groups);
        out.colliders.clone_from(&self.colliders);
        out.time = self.time;
        out.step_count = self.step_count;
        out.last_h = self.last_h;
    }

    /// Restores a snapshot taken from this world (or from a world built the same way).
    /// Stepping afterwards gives exactly what stepping from the snapshot's moment gave.
    pub fn restore(&mut self, s: &Snapshot<S>) {
        let sp = &s.particles;
        let p: &mut ParticleSet<S> = &mut self.particles;
        p.pos.clone_from(&sp.pos);
        p.prev.clone_from(&sp.pos);
        p.step_start.clone_from(&sp.pos);
        p.vel.clone_from(&sp.vel);
        p.inv_mass.clone_from(&sp.inv_mass);
        p.mass.clone_from(&sp.mass);
        p.radius.clone_from(&sp.radius);
        p.gravity_scale.clone_from(&sp.gravity_scale);
        p.force.clone_from(&sp.force);
        p.friction.clone_from(&sp.friction);
        p.groups.clone_from(&sp.groups);
        p.flags.clone_from(&sp.flags);
        p.target.clone_from(&sp.target);
        p.generation.clone_from(&sp.generation);
        p.free.clone_from(&sp.free);
        p.live = sp.live;
        p.anchor.clone_from(&sp.anchor);
        p.anchor_info.clone_from(&sp.anchor_info);
        self.def = s.def;
        self.distances.clone_from(&s.distances);
        self.tethers.clone_from(&s.tethers);
        self.bendings.clone_from(&s.bendings);
        self.attachments.clone_from(&s.attachments);
        self.limits.clone_from(&s.limits);
        self.drivers.clone_from(&s.drivers);
        self.ropes.clone_from(&s.ropes);
        self.sleep_groups.clone_from(&s.sleep_groups);
        self.colliders.clone_from(&s.colliders);
        self.time = s.time;
        self.step_count = s.step_count;
        self.last_h = s.last_h;
        self.invalidate_derived();
    }

    /// Canonical hash of the dynamic state (see the module docs). Cheap enough for every
    /// frame: a few multiply–rotate operations per particle and constraint.
    #[must_use]
    pub fn state_hash(&self) -> u64 {
        let mut h = StateHasher::default();
        h.write_u64(self.step_count);
        h.write_real(self.time);
        let p = &self.particles;
        h.write_u64(p.pos.len() as u64);
        for k in 0..p.pos.len() {
            if p.flags[k] == 0 {
                continue;
            }
            h.write_u64(k as u64 | (u64::from(p.flags[k]) << 32));
            h.write_vec(p.pos[k]);
            h.write_vec(p.vel[k]);
            h.write_real(p.inv_mass[k]);
            // The contact anchor decides which later steps gather afresh.
            let a = p.anchor_info[k];
            if a.flags & AnchorInfo::<RealOf<S>>::ANCHORED != 0 {
                h.write_u64(u64::from(a.flags));
                h.write_vec(p.anchor[k]);
                h.write_real(a.region);
                h.write_real(a.extra);
            }
        }
        // Multipliers are not hashed: every substep restarts them from 0, so they carry
        // nothing into the next step that the positions do not.
        for (hd, c) in self.distances.iter() {
            h.write_u64(u64::from(hd.index) | (u64::from(c.a) << 32));
            h.write_real(c.rest);
        }
        for (hd, c) in self.tethers.iter() {
            h.write_u64(u64::from(hd.index) | (u64::from(c.particle) << 32));
            h.write_real(c.length);
        }
        for (hd, c) in self.bendings.iter() {
            h.write_u64(u64::from(hd.index) | (u64::from(c.b) << 32));
            h.write_real(c.lambda);
        }
        for (hd, c) in self.attachments.iter() {
            h.write_u64(u64::from(hd.index) | (u64::from(c.particle) << 32));
            h.write_vec(c.target);
            h.write_vec(c.lambda);
        }
        for (hd, c) in self.limits.iter() {
            h.write_u64(u64::from(hd.index));
            c.hash_into(&mut h);
        }
        for (hd, c) in self.colliders.iter() {
            h.write_u64(u64::from(hd.index));
            h.write_vec(c.position);
            for r in c.rotation.components() {
                h.write_real(r);
            }
        }
        for (hd, d) in self.drivers.iter() {
            h.write_u64(u64::from(hd.index) | (u64::from(d.done) << 32) | (u64::from(d.origin.is_some()) << 33));
            if let Some(o) = d.origin {
                h.write_vec(o);
            }
        }
        for (hd, g) in self.sleep_groups.iter() {
            h.write_u64(u64::from(hd.index) | (u64::from(g.sleeping) << 32) | (u64::from(g.calm_steps) << 33));
        }
        for (hd, r) in self.ropes.iter() {
            h.write_u64(u64::from(hd.index) | (u64::from(r.sleeping) << 32) | ((r.idx.len() as u64) << 33));
            for &k in &r.idx {
                h.write_u64(u64::from(k));
            }
            for (&rest, &l) in r.rest.iter().zip(&r.lambda) {
                h.write_real(rest);
                h.write_real(l);
            }
        }
        h.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hasher_is_order_sensitive_and_sign_of_zero_blind() {
        let mut a = StateHasher::default();
        a.write_u64(1);
        a.write_u64(2);
        let mut b = StateHasher::default();
        b.write_u64(2);
        b.write_u64(1);
        assert_ne!(a.finish(), b.finish());
        let mut z = StateHasher::default();
        z.write_real(0.0f64);
        let mut nz = StateHasher::default();
        nz.write_real(-0.0f64);
        assert_eq!(z.finish(), nz.finish());
        let mut e = StateHasher::default();
        e.write_u64(0);
        assert_ne!(e.finish(), StateHasher::default().finish(), "length is part of the hash");
    }
}
