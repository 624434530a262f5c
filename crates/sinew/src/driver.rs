//! Keyframed kinematic drivers: move a particle along a path of timed keys.
//!
//! A driver pins its particle and, every step, sets its kinematic target to the path
//! position at the end of the step (linear interpolation between keys). After the last
//! key it either holds the particle there or, with `release`, frees it with the velocity
//! of the last key segment — a throw.
//!
//! A *relative* driver is a grab: it leaves the particle free until the first key's time,
//! then takes hold of it wherever it is and moves it by the keys' offsets from the first
//! key (a hand picking a rope up from wherever it fell).
//!
//! ```
//! use sinew::prelude::*;
//!
//! // A crate on a crane hook, in weightless space for clarity: along x to 1 m in 1 s,
//! // then up to (1, 1) by 1.5 s, then let go (a throw) with the last segment's velocity.
//! let mut world = World2d::new(WorldDef::default().gravity(Vector2::ZERO))?;
//! let load = world.add_particle(&ParticleDef::at(Vector2::new(0.0, 0.0)))?;
//! let keys = vec![(0.0, Vector2::new(0.0, 0.0)), (1.0, Vector2::new(1.0, 0.0)), (1.5, Vector2::new(1.0, 1.0))];
//! world.add_driver(&DriverDef::new(load, keys).release_at_end(1.0))?; // thrown at the end
//! for _ in 0..30 {
//!     world.step(1.0 / 60.0)?;
//! }
//! let half_way = world.particles().position(load).unwrap();
//! assert!((half_way - Vector2::new(0.5, 0.0)).length() < 1e-9, "on the path at 0.5 s");
//! assert!(world.particles().is_kinematic(load));
//! for _ in 30..120 {
//!     world.step(1.0 / 60.0)?;
//! }
//! // Let go at 1.5 s moving at (0, 2) m/s: half a second later it is 1 m higher.
//! assert!(!world.particles().is_kinematic(load));
//! let v = world.particles().velocity(load).unwrap();
//! assert!((v - Vector2::new(0.0, 2.0)).length() < 1e-9, "{v:?}");
//! assert!((world.particles().position(load).unwrap() - Vector2::new(1.0, 2.0)).length() < 1e-9);
//! # Ok::<(), SinewError>(())
//! ```

use crate::SinewError;
use crate::arena::define_handle;
use crate::math::{Real, Vector};
use crate::particle::ParticleHandle;
use crate::space::{RealOf, Space, VecOf};

define_handle!(
    /// A keyframe driver in a [`crate::World`].
    DriverHandle
);

/// Definition of a keyframe driver.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct DriverDef<S: Space> {
    /// The driven particle.
    pub particle: ParticleHandle,
    /// `(time, position)` keys with strictly increasing times (s, m).
    pub keys: Vec<(RealOf<S>, VecOf<S>)>,
    /// Free the particle after the last key with the last segment's velocity.
    pub release: bool,
    /// Mass given on release to a particle that was created with mass 0 (kg).
    pub release_mass: RealOf<S>,
    /// Grab: free until the first key, then keys are offsets from where it was grabbed.
    pub relative: bool,
}

impl<S: Space> DriverDef<S> {
    /// Drives `particle` along `(time, position)` keys, holding it at the last one.
    #[must_use]
    pub fn new(particle: ParticleHandle, keys: Vec<(RealOf<S>, VecOf<S>)>) -> Self {
        Self { particle, keys, release: false, release_mass: RealOf::<S>::ONE, relative: false }
    }
    /// Frees the particle after the last key with the last segment's velocity (a throw);
    /// a particle created with mass 0 gets `fallback_mass` (kg).
    #[must_use]
    pub fn release_at_end(mut self, fallback_mass: RealOf<S>) -> Self {
        (self.release, self.release_mass) = (true, fallback_mass);
        self
    }
    /// Moves the particle by the keys' offsets from the first, from wherever it is when
    /// the first key's time comes (a grab).
    #[must_use]
    pub fn relative(mut self) -> Self {
        self.relative = true;
        self
    }
}

/// A keyframe driver (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct KeyframeDriver<S: Space> {
    pub(crate) particle: ParticleHandle,
    pub(crate) keys: Vec<(RealOf<S>, VecOf<S>)>,
    pub(crate) release: bool,
    pub(crate) release_mass: RealOf<S>,
    pub(crate) done: bool,
    pub(crate) relative: bool,
    /// For relative drivers: where the particle was grabbed (once grabbed).
    pub(crate) origin: Option<VecOf<S>>,
}

crate::state::saved_state!(impl[S: Space] KeyframeDriver<S> {
    particle, keys, release, release_mass, done, relative, origin,
});

impl<S: Space> KeyframeDriver<S> {
    pub(crate) fn from_def(d: &DriverDef<S>) -> Result<Self, SinewError> {
        if d.keys.is_empty() {
            return Err(SinewError::InvalidParameter {
                what: "driver keys",
                reason: "at least one key is needed",
                value: None,
            });
        }
        for (i, (t, p)) in d.keys.iter().enumerate() {
            if !t.is_finite() || !p.is_finite() {
                return Err(SinewError::NonFinite { what: "driver key" });
            }
            if i > 0 && !(*t > d.keys[i - 1].0) {
                return Err(SinewError::InvalidParameter {
                    what: "driver keys",
                    reason: "key times must be strictly increasing",
                    value: None,
                });
            }
        }
        if d.release && !(d.release_mass > RealOf::<S>::ZERO) {
            return Err(SinewError::InvalidParameter {
                what: "driver release_mass",
                reason: "must be > 0",
                value: None,
            });
        }
        Ok(Self {
            particle: d.particle,
            keys: d.keys.clone(),
            release: d.release,
            release_mass: d.release_mass,
            done: false,
            relative: d.relative,
            origin: None,
        })
    }

    /// The driven particle.
    #[must_use]
    pub fn particle(&self) -> ParticleHandle {
        self.particle
    }

    /// Path position at time `t` (clamped to the first and last keys).
    #[must_use]
    pub fn sample(&self, t: RealOf<S>) -> VecOf<S> {
        let keys = &self.keys;
        if t <= keys[0].0 {
            return keys[0].1;
        }
        for w in keys.windows(2) {
            let ((t0, p0), (t1, p1)) = (w[0], w[1]);
            if t <= t1 {
                return p0.lerp(p1, (t - t0) / (t1 - t0));
            }
        }
        keys[keys.len() - 1].1
    }

    /// Target at time `t`: the path, or for a grab the offset from the grab point.
    #[must_use]
    pub fn target(&self, t: RealOf<S>) -> VecOf<S> {
        match self.origin {
            Some(o) if self.relative => o + (self.sample(t) - self.keys[0].1),
            _ => self.sample(t),
        }
    }

    /// Time of the first key.
    #[must_use]
    pub fn start_time(&self) -> RealOf<S> {
        self.keys[0].0
    }

    /// Time of the last key.
    #[must_use]
    pub fn end_time(&self) -> RealOf<S> {
        self.keys[self.keys.len() - 1].0
    }

    /// Velocity of the last key segment (0 for a single key).
    #[must_use]
    pub fn release_velocity(&self) -> VecOf<S> {
        let n = self.keys.len();
        if n < 2 {
            return VecOf::<S>::ZERO;
        }
        let ((t0, p0), (t1, p1)) = (self.keys[n - 2], self.keys[n - 1]);
        (p1 - p0) / (t1 - t0)
    }

    /// True once a releasing driver has let go.
    #[must_use]
    pub fn is_done(&self) -> bool {
        self.done
    }
}

/// Start of a step ending at `t_end`: every driver sets its particle's kinematic target on
/// its path; a relative driver whose first key has come takes hold of its particle where
/// it is; a releasing driver past its last key frees its particle with the path's
/// velocity. Returns the slots of the particles taken hold of this step (their ropes wake).
pub(crate) fn drive<S: Space>(
    drivers: &mut crate::arena::Arena<KeyframeDriver<S>>,
    ps: &mut crate::particle::ParticleSet<S>,
    now: RealOf<S>,
    t_end: RealOf<S>,
) -> Vec<usize> {
    // Release in the step that would spend more than half its length past the last key,
    // so accumulated rounding in the clock (30 × 1/60 ≠ 0.5 exactly) cannot make the
    // throw a whole step late.
    let half_step = (t_end - now) * RealOf::<S>::HALF;
    let mut grabbed = Vec::new();
    for d in drivers.values_mut() {
        if d.done || !ps.contains(d.particle) {
            continue;
        }
        if d.relative && d.origin.is_none() {
            if now + half_step < d.start_time() {
                continue; // not grabbed yet
            }
            d.origin = ps.position(d.particle);
            let _ = ps.pin(d.particle);
            grabbed.push(d.particle.index());
        }
        if d.release && now + half_step >= d.end_time() {
            // Ignore errors: the handle was checked just above and release_mass > 0.
            let _ = ps.release(d.particle, d.release_velocity(), d.release_mass);
            d.done = true;
            continue;
        }
        let _ = ps.set_kinematic_target(d.particle, d.target(t_end));
    }
    grabbed
}
