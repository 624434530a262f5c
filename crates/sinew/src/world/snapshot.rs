//! Snapshot, restore and a canonical state hash: what rollback netcode needs.
//!
//! A rollback client (GGRS-style) saves the world every frame, and when a late input
//! arrives restores an older frame, re-simulates to the present and compares checksums
//! with its peers. That works only if
//!
//! 1. a snapshot holds *everything the next step reads*: it is a copy of the world's
//!    saved state ([`super::state::WorldState`]), which holds exactly that — particles,
//!    contact anchors, constraints with their multipliers, colliders (current and
//!    previous poses), drivers, ropes, sleep groups, controllers, the clock, and the free
//!    lists that decide where the next created object goes;
//! 2. restore-then-step equals step, bit for bit: what is derived (broad phase,
//!    constraint order, caches) is rebuilt from the restored state and is a pure function
//!    of it;
//! 3. the hash is *canonical*: it walks the whole state by value, in order, never memory
//!    layout, padding or allocation addresses; `-0.0` and `0.0` hash alike.
//!
//! In fixed point (`Fx`) all three hold across machines; in floats they hold on one build
//! and machine. See [`crate::state`] for how the state types guarantee completeness.

use super::World;
use super::state::WorldState;
use crate::space::Space;
use crate::state::{SavedState, StateHasher};

/// A saved world state. Cheap to take (a copy of flat arrays), restored with
/// [`World::restore`].
#[derive(Clone, Debug)]
pub struct Snapshot<S: Space> {
    state: WorldState<S>,
}

impl<S: Space> Snapshot<S> {
    /// Heap bytes held by the snapshot's arrays, for sizing a rollback buffer.
    #[must_use]
    pub fn size_bytes(&self) -> usize {
        self.state.heap_bytes()
    }

    /// Bytes per particle slot of the particle part alone (every per-particle array of the
    /// state, contact anchor included).
    #[must_use]
    pub fn particle_bytes_per_slot() -> usize {
        let mut w = World::<S>::new(super::WorldDef::default()).expect("the default settings are valid");
        let empty = w.state.particles.heap_bytes() + w.state.anchors.heap_bytes();
        let _ = w.add_particle(&crate::ParticleDef::default());
        w.state.particles.heap_bytes() + w.state.anchors.heap_bytes() - empty
    }

    /// Step count at which the snapshot was taken.
    #[must_use]
    pub fn step_count(&self) -> u64 {
        self.state.step_count
    }

    /// The snapshot's state hash (what [`World::state_hash`] gave when it was taken).
    #[must_use]
    pub fn state_hash(&self) -> u64 {
        hash(&self.state)
    }
}

fn hash<S: Space>(state: &WorldState<S>) -> u64 {
    let mut h = StateHasher::default();
    state.hash_state(&mut h);
    h.finish()
}

impl<S: Space> World<S> {
    /// Saves the complete state.
    #[must_use]
    pub fn snapshot(&self) -> Snapshot<S> {
        Snapshot { state: self.state.clone() }
    }

    /// Saves the complete state into an existing snapshot, reusing its buffers: a
    /// rollback client keeps a ring of snapshots and overwrites the oldest every frame,
    /// which then costs copies only, no allocation.
    pub fn snapshot_into(&self, out: &mut Snapshot<S>) {
        out.state.copy_from(&self.state);
    }

    /// Restores a snapshot taken from this world (or from a world built the same way).
    /// Stepping afterwards gives exactly what stepping from the snapshot's moment gave.
    pub fn restore(&mut self, s: &Snapshot<S>) {
        self.state.copy_from(&s.state);
        self.invalidate_derived();
    }

    /// Canonical hash of the whole state (see the module docs): equal states hash alike on
    /// every machine in fixed point. Cheap enough for every frame: a few multiply–rotate
    /// operations per particle and constraint.
    #[must_use]
    pub fn state_hash(&self) -> u64 {
        hash(&self.state)
    }
}
