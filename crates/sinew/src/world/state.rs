//! The world's saved state: one value holding everything a step reads that it does not
//! rebuild (see [`crate::state`] for what that buys).

use super::def::WorldDef;
use crate::arena::Arena;
use crate::collider::Collider;
use crate::constraint::{Attachment, Bending, Distance, Tether};
use crate::contact::anchors::ContactAnchors;
use crate::controller::Controller;
use crate::driver::KeyframeDriver;
use crate::math::Real;
use crate::particle::ParticleSet;
use crate::rope::Rope;
use crate::sleep::SleepGroup;
use crate::space::{RealOf, Space};
use crate::state::saved_state;

/// Everything a world's next step depends on. A snapshot is a copy of it; the state hash
/// walks all of it; restore puts it back and rebuilds the rest.
///
/// A field added here must be added to the `saved_state!` list below, or the crate does
/// not compile: nothing can be left out of snapshots or the hash by forgetting it.
#[derive(Clone, Debug)]
pub(crate) struct WorldState<S: Space> {
    /// Settings.
    pub def: WorldDef<S>,
    /// Particles: positions, velocities, masses, pins, forces, targets, filters, slots.
    pub particles: ParticleSet<S>,
    /// Per particle slot: its contact anchor (which steps gather collider pairs afresh).
    pub anchors: ContactAnchors<S>,
    /// Colliders, with their poses at the start of the step (which give their velocity).
    pub colliders: Arena<Collider<S>>,
    pub distances: Arena<Distance<RealOf<S>>>,
    pub tethers: Arena<Tether<RealOf<S>>>,
    pub bendings: Arena<Bending<RealOf<S>>>,
    pub attachments: Arena<Attachment<S>>,
    pub limits: Arena<S::JointLimit>,
    /// Keyframe drivers and their progress.
    pub drivers: Arena<KeyframeDriver<S>>,
    /// Ropes: rest lengths, multipliers, material, sleep.
    pub ropes: Arena<Rope<S>>,
    pub sleep_groups: Arena<SleepGroup>,
    /// Controllers (muscle ragdolls, drives, planners), in the order they act.
    pub controllers: Arena<Box<dyn Controller<S>>>,
    /// Simulated time (s).
    pub time: RealOf<S>,
    /// Steps taken.
    pub step_count: u64,
    /// Substep length of the last step (force read-outs: `λ/h²`).
    pub last_h: RealOf<S>,
}

saved_state!(impl[S: Space] WorldState<S> {
    def, particles, anchors, colliders, distances, tethers, bendings, attachments, limits, drivers, ropes,
    sleep_groups, controllers, time, step_count, last_h,
});

impl<S: Space> WorldState<S> {
    /// An empty world with settings `def`.
    pub fn new(def: WorldDef<S>) -> Self {
        Self {
            def,
            particles: ParticleSet::default(),
            anchors: ContactAnchors::default(),
            colliders: Arena::default(),
            distances: Arena::default(),
            tethers: Arena::default(),
            bendings: Arena::default(),
            attachments: Arena::default(),
            limits: Arena::default(),
            drivers: Arena::default(),
            ropes: Arena::default(),
            sleep_groups: Arena::default(),
            controllers: Arena::default(),
            time: RealOf::<S>::ZERO,
            step_count: 0,
            last_h: RealOf::<S>::ZERO,
        }
    }
}
