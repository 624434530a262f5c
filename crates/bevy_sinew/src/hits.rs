//! Hit messages: a rope particle or ragdoll node whose velocity changed suddenly in a step.
//!
//! A body struck — a ragdoll landing, a rope whipped against a post, a node punched — has
//! its velocity changed in one step by much more than gravity changes it. Give a rope or
//! ragdoll entity a [`HitEvents`] and the plugin compares each of its particles' velocity
//! before and after every step:
//!
//! ```text
//! Δv = v_after − v_before − g·dt       (what is left once gravity's share is taken out)
//! ```
//!
//! and sends a [`Hit`] for every particle whose `|Δv|` is at least
//! [`HitEvents::min_speed`], with `Δv`'s direction — for a landing, the ground's normal.
//! It is the velocity change, not a contact list: it catches hits by colliders, by other
//! bodies and by the game's own impulses alike, and a body coming to rest slowly sends
//! nothing. A resting body's joints and contacts change velocities by about `g·dt` a step
//! (0.15 m/s at 64 Hz), so thresholds of 1 m/s and up pick out real impacts.
//!
//! ```
//! # use bevy_ecs::prelude::*;
//! use bevy_sinew::prelude::*;
//!
//! fn land(mut hits: MessageReader<Hit>) {
//!     for hit in hits.read() {
//!         // hit.entity's particle hit.particle took a hit.speed m/s knock: play a thud.
//!     }
//! }
//! # let _ = land;
//! ```

use bevy_ecs::prelude::*;
use bevy_math::Vec3;
use sinew::math::{Real, Vector};
use sinew::{ParticleHandle, RealOf, VecOf};

use crate::space::PluginSpace;
use crate::world::SinewWorld;

/// Send [`Hit`] messages for this rope or ragdoll (see the module docs).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct HitEvents {
    /// The smallest velocity change that counts as a hit (m/s).
    pub min_speed: f32,
}

/// A particle of a rope or ragdoll took a sudden velocity change in the last step.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// The rope or ragdoll entity.
    pub entity: Entity,
    /// The particle: index along the rope, or the node's index in the rig.
    pub particle: usize,
    /// `|Δv|` (m/s), gravity's share removed.
    pub speed: f32,
    /// `Δv`'s direction (unit).
    pub direction: Vec3,
}

/// The particles watched for hits this run, and their velocities before the step.
#[derive(Clone, Debug, Default)]
pub(crate) struct HitWatch<S: PluginSpace> {
    watched: Vec<(Entity, RealOf<S>, Vec<ParticleHandle>)>,
    before: Vec<VecOf<S>>,
    pub(crate) found: Vec<Hit>,
}

/// Prepare: which particles to watch.
pub(crate) fn watch_hits<S: PluginSpace>(mut sim: ResMut<SinewWorld<S>>, q: Query<(Entity, &HitEvents)>) {
    let sim = &mut *sim;
    let watch = &mut sim.hits;
    watch.watched.clear();
    for (entity, events) in &q {
        let particles = if let Some(r) = sim.map.ropes.get(&entity) {
            sim.world.rope(r.handle).map(|r| r.particles().to_vec()).unwrap_or_default()
        } else if let Some(r) = sim.map.ragdolls.get(&entity) {
            r.body.nodes(&sim.world).to_vec()
        } else {
            continue;
        };
        let min_speed = RealOf::<S>::from_f64(f64::from(events.min_speed));
        watch.watched.push((entity, min_speed, particles));
    }
}

impl<S: PluginSpace> HitWatch<S> {
    /// Before a step: the watched particles' velocities.
    pub(crate) fn before_step(&mut self, world: &sinew::World<S>) {
        let ps = world.particles();
        self.before.clear();
        for (_, _, particles) in &self.watched {
            self.before.extend(particles.iter().map(|&p| ps.velocity(p).unwrap_or(VecOf::<S>::ZERO)));
        }
    }

    /// After a step of `dt`: the hits.
    pub(crate) fn after_step(&mut self, world: &sinew::World<S>, dt: RealOf<S>) {
        let (ps, gravity_dv) = (world.particles(), world.def().gravity * dt);
        let mut before = self.before.iter();
        for (entity, min_speed, particles) in &self.watched {
            for (i, (&p, &v0)) in particles.iter().zip(before.by_ref()).enumerate() {
                let Some(v1) = ps.velocity(p) else { continue };
                // Kinematic particles (pins, hands) move as they are told: no hits.
                if ps.is_kinematic(p) {
                    continue;
                }
                let dv = v1 - v0 - gravity_dv;
                let (direction, speed) = dv.normalize_and_length();
                if speed >= *min_speed && speed > RealOf::<S>::ZERO {
                    let speed = speed.to_f64() as f32;
                    self.found.push(Hit { entity: *entity, particle: i, speed, direction: S::to_vec3(direction) });
                }
            }
        }
    }
}

/// Writeback: the run's hits as messages.
pub(crate) fn send_hits<S: PluginSpace>(mut sim: ResMut<SinewWorld<S>>, mut out: MessageWriter<Hit>) {
    if !sim.hits.found.is_empty() {
        out.write_batch(sim.hits.found.drain(..));
    }
}
