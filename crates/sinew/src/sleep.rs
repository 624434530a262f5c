//! Sleeping: groups of particles at rest stop being simulated until something touches them.
//!
//! A sleep group is a set of particles that sleep and wake together — a ragdoll, a pile
//! of chain. Each step the world counts how long every particle of an awake group has
//! moved slower than 1 cm/s; after a second of that the group falls asleep: velocities are
//! zeroed and the step skips its particles (no gravity, no contacts). It wakes when any of
//! its particles gets a force or a kinematic target, when a moving collider comes near,
//! or when something outside the group (a constraint, an impulse) gives one of them a
//! velocity. Ropes sleep the same way on their own ([`crate::rope`]).

use crate::SinewError;
use crate::arena::define_handle;
use crate::math::{Real, Vector};
use crate::particle::{ALIVE, ParticleHandle};
use crate::space::{RealOf, Space, VecOf};
use crate::world::World;

define_handle!(
    /// A sleep group in a [`crate::World`].
    SleepGroupHandle
);

/// Speed below which a particle counts as at rest (m/s), as a ratio.
const SLEEP_SPEED: (i32, i32) = (1, 100);
/// Steps at rest before a group sleeps.
const SLEEP_AFTER_STEPS: u32 = 60;

/// A group of particles that sleep and wake together.
#[derive(Clone, Debug, PartialEq)]
pub struct SleepGroup {
    pub(crate) idx: Vec<u32>,
    pub(crate) sleeping: bool,
    pub(crate) calm_steps: u32,
}

impl SleepGroup {
    /// True while asleep.
    #[must_use]
    pub fn is_sleeping(&self) -> bool {
        self.sleeping
    }
}

impl<S: Space> World<S> {
    /// Makes `particles` a sleep group.
    pub fn add_sleep_group(&mut self, particles: &[ParticleHandle]) -> Result<SleepGroupHandle, SinewError> {
        for &p in particles {
            self.particles.check(p)?;
        }
        let g =
            SleepGroup { idx: particles.iter().map(|p| p.index() as u32).collect(), sleeping: false, calm_steps: 0 };
        Ok(SleepGroupHandle(self.sleep_groups.insert(g)))
    }

    /// A sleep group.
    #[must_use]
    pub fn sleep_group(&self, h: SleepGroupHandle) -> Option<&SleepGroup> {
        self.sleep_groups.get(h.0)
    }

    /// Removes a sleep group (its particles stay, awake).
    pub fn remove_sleep_group(&mut self, h: SleepGroupHandle) -> Result<(), SinewError> {
        self.sleep_groups.remove(h.0).map(|_| ()).ok_or(SinewError::InvalidHandle { what: "sleep group" })
    }

    /// Wakes a sleep group.
    pub fn wake_sleep_group(&mut self, h: SleepGroupHandle) -> Result<(), SinewError> {
        let g = self.sleep_groups.get_mut(h.0).ok_or(SinewError::InvalidHandle { what: "sleep group" })?;
        g.sleeping = false;
        g.calm_steps = 0;
        Ok(())
    }

    /// Start of a step: wake groups that are touched (force, kinematic target) or near a
    /// moving collider.
    pub(crate) fn sleep_begin_step(&mut self) {
        // Only sleeping groups have anything to check (and the common case is none).
        if !self.sleep_groups.values().any(|g| g.sleeping) {
            return;
        }
        let n = self.def.substeps;
        let moving: Vec<_> = self.colliders.values().filter(|c| c.is_moving()).map(|c| c.swept_aabb(n)).collect();
        let ps = &self.particles;
        for g in self.sleep_groups.values_mut() {
            if !g.sleeping {
                continue;
            }
            let touched = g.idx.iter().any(|&k| {
                let k = k as usize;
                k < ps.pos.len() && (ps.target[k].is_some() || ps.force[k] != VecOf::<S>::ZERO)
            });
            let near = !moving.is_empty() && {
                let live: Vec<usize> = g.idx.iter().map(|&k| k as usize).filter(|&k| k < ps.pos.len()).collect();
                match live.first() {
                    None => false,
                    Some(&k0) => {
                        let (mut lo, mut hi) = (ps.pos[k0], ps.pos[k0]);
                        for &k in &live {
                            lo = lo.min_elem(ps.pos[k] - VecOf::<S>::splat(ps.radius[k]));
                            hi = hi.max_elem(ps.pos[k] + VecOf::<S>::splat(ps.radius[k]));
                        }
                        let pad = VecOf::<S>::splat(RealOf::<S>::from_ratio(5, 100));
                        let bb = crate::Aabb { min: lo - pad, max: hi + pad };
                        moving.iter().any(|m| m.is_none_or(|m| m.overlaps::<RealOf<S>>(&bb)))
                    }
                }
            };
            if touched || near {
                g.sleeping = false;
                g.calm_steps = 0;
            }
        }
    }

    /// Marks the particles of sleeping groups.
    pub(crate) fn mark_sleeping_groups(&self, sleeping: &mut [bool]) {
        for g in self.sleep_groups.values() {
            if g.sleeping {
                for &k in &g.idx {
                    if let Some(s) = sleeping.get_mut(k as usize) {
                        *s = true;
                    }
                }
            }
        }
    }

    /// End of a step: wake groups moved from outside; put calm groups to sleep.
    pub(crate) fn sleep_end_step(&mut self) {
        if self.sleep_groups.is_empty() {
            return;
        }
        let speed = RealOf::<S>::from_ratio(SLEEP_SPEED.0, SLEEP_SPEED.1);
        let ps = &mut self.particles;
        for g in self.sleep_groups.values_mut() {
            let live = |k: u32| (k as usize) < ps.pos.len() && ps.flags[k as usize] & ALIVE != 0;
            if g.sleeping {
                if g.idx.iter().any(|&k| live(k) && ps.vel[k as usize] != VecOf::<S>::ZERO) {
                    g.sleeping = false;
                    g.calm_steps = 0;
                }
                continue;
            }
            let calm = g.idx.iter().all(|&k| {
                !live(k) || (ps.target[k as usize].is_none() && ps.vel[k as usize].length_squared() < speed * speed)
            });
            g.calm_steps = if calm { g.calm_steps + 1 } else { 0 };
            if g.calm_steps >= SLEEP_AFTER_STEPS {
                g.sleeping = true;
                for &k in &g.idx {
                    if live(k) {
                        ps.vel[k as usize] = VecOf::<S>::ZERO;
                    }
                }
            }
        }
    }
}
