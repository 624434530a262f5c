//! Sleeping: bodies at rest stop being simulated until something touches them.
//!
//! Two kinds of body sleep, by one rule: *sleep groups* (sets of particles that sleep and
//! wake together — a ragdoll, a pile of chain) and *ropes* (each rope on its own). Each
//! step the world counts how long every particle of an awake body has moved slower than
//! [`SLEEP_SPEED`] (1 cm/s); after [`SLEEP_AFTER_STEPS`] steps of that (a second at
//! 60 Hz) the body falls asleep: velocities are zeroed and the step skips its particles
//! (no gravity, no contacts, no constraint corrections). It wakes when any of its
//! particles gets a force or a kinematic target, when a moving collider's path comes near
//! it, or when something outside it (a constraint to another body, an impulse, a teleport)
//! gives one of them a velocity. A rope with wind never sleeps.
//!
//! ```
//! use sinew::prelude::*;
//!
//! let mut world = World2::new(WorldDef::default().friction(0.5))?;
//! world.add_collider(&ColliderDef::new(Shape::half_space(Vector2::new(0.0, 1.0), 0.0)?))?;
//! // A dumbbell lying on the ground: two 5 cm balls on a 30 cm bar, one sleep group.
//! let a = world.add_particle(&ParticleDef::at(Vector2::new(0.0, 0.05)).radius(0.05))?;
//! let b = world.add_particle(&ParticleDef::at(Vector2::new(0.3, 0.05)).radius(0.05))?;
//! world.add_distance(&DistanceDef::new(a, b))?;
//! let group = world.add_sleep_group(&[a, b])?;
//! for _ in 0..61 {
//!     world.step(1.0 / 60.0)?;
//! }
//! assert!(world.sleep_group(group)?.is_sleeping(), "a second at rest: asleep, skipped by the step");
//! // A force wakes it.
//! world.particles_mut().apply_force(a, Vector2::new(20.0, 0.0))?;
//! world.step(1.0 / 60.0)?;
//! assert!(!world.sleep_group(group)?.is_sleeping());
//! assert!(world.particles().velocity(b).unwrap().x > 0.0, "and the bar pulls its partner along");
//! # Ok::<(), SinewError>(())
//! ```

use crate::SinewError;
use crate::arena::{Arena, define_handle};
use crate::collider::{Aabb, Collider};
use crate::math::{Real, Vector};
use crate::particle::{ALIVE, ParticleSet};
use crate::space::{RealOf, Space, VecOf};
use crate::state::saved_state;

define_handle!(
    /// A sleep group in a [`crate::World`].
    SleepGroupHandle
);

/// Speed below which a particle counts as at rest (m/s), as a ratio: 1 cm/s.
pub const SLEEP_SPEED: (i32, i32) = (1, 100);
/// Steps at rest before a body sleeps.
pub const SLEEP_AFTER_STEPS: u32 = 60;

/// A body's sleep bookkeeping.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sleep {
    pub(crate) sleeping: bool,
    /// Consecutive steps spent below the sleep speed.
    pub(crate) calm_steps: u32,
}

saved_state!(impl[] Sleep { sleeping, calm_steps });

impl Sleep {
    /// True while asleep.
    #[inline]
    #[must_use]
    pub fn is_sleeping(self) -> bool {
        self.sleeping
    }

    /// Wakes the body (and restarts its count of calm steps).
    #[inline]
    pub fn wake(&mut self) {
        self.sleeping = false;
        self.calm_steps = 0;
    }

    /// Start of a step, for a sleeping body: wakes it when any of its particles `idx` has
    /// a kinematic target or a force, or when `near` says a moving collider comes near.
    pub(crate) fn wake_if_touched<S: Space>(&mut self, idx: &[u32], ps: &ParticleSet<S>, near: impl FnOnce() -> bool) {
        if !self.sleeping {
            return;
        }
        let touched = idx.iter().any(|&k| {
            let k = k as usize;
            k < ps.pos.len() && (ps.target[k].is_some() || ps.force[k] != VecOf::<S>::ZERO)
        });
        if touched || near() {
            self.wake();
        }
    }

    /// End of a step: a sleeping body that something outside it moved wakes; an awake one
    /// whose live particles `idx` all moved slower than [`SLEEP_SPEED`] (without kinematic
    /// targets) for [`SLEEP_AFTER_STEPS`] steps falls asleep, if `may_sleep`, its
    /// particles stopped.
    pub(crate) fn settle<S: Space>(&mut self, idx: &[u32], ps: &mut ParticleSet<S>, may_sleep: bool) {
        let live = |k: u32| (k as usize) < ps.pos.len() && ps.flags[k as usize] & ALIVE != 0;
        if self.sleeping {
            if idx.iter().any(|&k| live(k) && ps.vel[k as usize] != VecOf::<S>::ZERO) {
                self.wake();
            }
            return;
        }
        let speed = RealOf::<S>::from_ratio(SLEEP_SPEED.0, SLEEP_SPEED.1);
        let calm = idx.iter().all(|&k| {
            !live(k) || (ps.target[k as usize].is_none() && ps.vel[k as usize].length_squared() < speed * speed)
        });
        self.calm_steps = if calm { self.calm_steps + 1 } else { 0 };
        if self.calm_steps >= SLEEP_AFTER_STEPS && may_sleep {
            self.sleeping = true;
            for &k in idx {
                if live(k) {
                    ps.vel[k as usize] = VecOf::<S>::ZERO;
                }
            }
        }
    }
}

/// A group of particles that sleep and wake together.
#[derive(Clone, Debug, PartialEq)]
pub struct SleepGroup {
    pub(crate) idx: Vec<u32>,
    pub(crate) sleep: Sleep,
}

saved_state!(impl[] SleepGroup { idx, sleep });

impl SleepGroup {
    /// A group of the particle slots `idx`.
    pub(crate) fn new(idx: Vec<u32>) -> Self {
        Self { idx, sleep: Sleep::default() }
    }

    /// True while asleep.
    #[must_use]
    pub fn is_sleeping(&self) -> bool {
        self.sleep.sleeping
    }

    /// The particle slots of the group.
    #[must_use]
    pub fn particle_slots(&self) -> &[u32] {
        &self.idx
    }
}

/// The swept boxes of the colliders that move this step (`None`: an unbounded one), for
/// waking what they come near; empty when nothing sleeps.
pub(crate) fn moving_boxes<S: Space>(colliders: &Arena<Collider<S>>, substeps: u32) -> Vec<Option<Aabb<VecOf<S>>>> {
    colliders.values().filter(|c| c.is_moving()).map(|c| c.swept_aabb(substeps)).collect()
}

/// Start of a step: wakes the sleep groups that are touched (a force, a kinematic target)
/// or whose particles' box, grown by 5 cm, a moving collider's path overlaps.
pub(crate) fn wake_groups<S: Space>(
    groups: &mut Arena<SleepGroup>,
    ps: &ParticleSet<S>,
    colliders: &Arena<Collider<S>>,
    substeps: u32,
) {
    // Only sleeping groups have anything to check (and the common case is none).
    if !groups.values().any(|g| g.sleep.sleeping) {
        return;
    }
    let moving = moving_boxes(colliders, substeps);
    for g in groups.values_mut() {
        let idx = &g.idx;
        g.sleep.wake_if_touched(idx, ps, || {
            !moving.is_empty() && {
                let live: Vec<usize> = idx.iter().map(|&k| k as usize).filter(|&k| k < ps.pos.len()).collect();
                match live.first() {
                    None => false,
                    Some(&k0) => {
                        let (mut lo, mut hi) = (ps.pos[k0], ps.pos[k0]);
                        for &k in &live {
                            lo = lo.min_elem(ps.pos[k] - VecOf::<S>::splat(ps.radius[k]));
                            hi = hi.max_elem(ps.pos[k] + VecOf::<S>::splat(ps.radius[k]));
                        }
                        let pad = VecOf::<S>::splat(RealOf::<S>::from_ratio(5, 100));
                        let bb = Aabb { min: lo - pad, max: hi + pad };
                        moving.iter().any(|m| m.is_none_or(|m| m.overlaps::<RealOf<S>>(&bb)))
                    }
                }
            }
        });
    }
}

/// Marks the particles of sleeping groups.
pub(crate) fn mark_sleeping_groups(groups: &Arena<SleepGroup>, sleeping: &mut [bool]) {
    for g in groups.values() {
        if g.sleep.sleeping {
            for &k in &g.idx {
                if let Some(s) = sleeping.get_mut(k as usize) {
                    *s = true;
                }
            }
        }
    }
}

/// End of a step: wakes the groups moved from outside; puts calm groups to sleep.
pub(crate) fn settle_groups<S: Space>(groups: &mut Arena<SleepGroup>, ps: &mut ParticleSet<S>) {
    for g in groups.values_mut() {
        g.sleep.settle(&g.idx, ps, true);
    }
}

/// Checks that every handle names a live particle (for a new group).
pub(crate) fn group_of<S: Space>(
    ps: &ParticleSet<S>,
    particles: &[crate::ParticleHandle],
) -> Result<SleepGroup, SinewError> {
    for &p in particles {
        ps.check(p)?;
    }
    Ok(SleepGroup::new(particles.iter().map(|p| p.index() as u32).collect()))
}
