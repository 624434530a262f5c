//! The two-point swing rig on the engine: the centre of mass is a particle of a 2D
//! [`World`], the handhold a pinned particle, the arm a rigid distance constraint between
//! them while a hand holds.
//!
//! * [`SwingRig::grab`] moves the handhold particle to the handhold, applies the rigid
//!   arm's impulse (the radial component of the velocity is removed, the tangential one
//!   kept: a grab at angle `φ` off the perpendicular keeps `cos² φ` of the kinetic energy)
//!   and adds the arm at the current distance, reporting the energy kept and the velocity
//!   jump.
//! * [`SwingRig::release`] removes the arm and sets the launch velocity. The world's
//!   symplectic Euler substeps (`v += g h; x += v h`) put a free particle at
//!   `x₀ + v₀ t + ½ g t² + ½ g h t` after time `t`: the release subtracts `½ g h` from the
//!   launch velocity so the discrete flight lies exactly on the planned parabola at every
//!   substep.

use crate::math::{Real, Vector, Vector2};
use crate::space::Space2;
use crate::world::{World, WorldDef};
use crate::{DistanceDef, DistanceHandle, ParticleDef, ParticleHandle, SinewError};

/// What a grab did to the centre of mass's velocity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GrabReport<R: Real> {
    /// Kinetic energy after the grab over before (1 = nothing lost).
    pub energy_kept: R,
    /// `|Δv|` of the centre of mass (m/s): the radial speed the arm removed.
    pub com_velocity_jump: R,
    /// Speed before the grab (m/s).
    pub speed_before: R,
    /// Angle between the velocity and the perpendicular to the arm (rad).
    pub angle_off_perpendicular: R,
    /// The arm's length at the grab (m).
    pub arm: R,
}

/// The two-point rig (see the module docs).
#[derive(Clone, Debug)]
pub struct SwingRig<R: Real> {
    /// The world holding the two particles (and nothing else).
    pub world: World<Space2<R>>,
    /// The centre of mass (mass 1 kg: energies are per kilogram).
    pub com: ParticleHandle,
    /// The held handhold (a pinned particle, moved to each handhold grabbed).
    pub pin: ParticleHandle,
    /// The arm while a hand holds.
    pub arm: Option<DistanceHandle>,
    /// Gravity's magnitude (m/s²).
    pub gravity: R,
}

impl<R: Real> SwingRig<R> {
    /// A rig with its centre of mass at `com`, not holding; `substeps` per step, gravity
    /// `g` (m/s², downward).
    ///
    /// # Errors
    /// From the world for bad values.
    pub fn new(com: Vector2<R>, gravity: R, substeps: u32) -> Result<Self, SinewError> {
        let def = WorldDef::default().gravity(Vector2::new(R::ZERO, -gravity)).substeps(substeps).max_time_step(R::ONE);
        let mut world = World::new(def)?;
        let c = world.add_particle(&ParticleDef::at(com).mass(R::ONE))?;
        let pin = world.add_particle(&ParticleDef::at(com).mass(R::ZERO))?;
        Ok(Self { world, com: c, pin, arm: None, gravity })
    }

    /// Centre of mass position.
    #[must_use]
    pub fn com_position(&self) -> Vector2<R> {
        self.world.particles().position(self.com).unwrap_or(Vector2::new(R::ZERO, R::ZERO))
    }

    /// Centre of mass velocity (the world's: during a flight, `½ g h` below the exact
    /// parabola's, see the module docs).
    #[must_use]
    pub fn com_velocity(&self) -> Vector2<R> {
        self.world.particles().velocity(self.com).unwrap_or(Vector2::new(R::ZERO, R::ZERO))
    }

    /// The held point.
    #[must_use]
    pub fn pin_position(&self) -> Vector2<R> {
        self.world.particles().position(self.pin).unwrap_or(Vector2::new(R::ZERO, R::ZERO))
    }

    /// Kinetic energy per kilogram.
    #[must_use]
    pub fn kinetic_energy(&self) -> R {
        self.com_velocity().length_squared() * R::HALF
    }

    /// Sets the centre of mass's position and velocity (set-up; no constraint acts).
    ///
    /// # Errors
    /// For non-finite values.
    pub fn place(&mut self, p: Vector2<R>, v: Vector2<R>) -> Result<(), SinewError> {
        self.world.particles_mut().set_position(self.com, p)?;
        self.world.particles_mut().set_velocity(self.com, v)
    }

    /// Grabs `handhold` with the arm at the current distance: the rigid arm's impulse
    /// removes the radial velocity (see the module docs).
    ///
    /// # Errors
    /// For a non-finite handhold, or a grab at the centre of mass itself.
    pub fn grab(&mut self, handhold: Vector2<R>) -> Result<GrabReport<R>, SinewError> {
        if let Some(a) = self.arm.take() {
            self.world.remove_distance(a)?;
        }
        let c = self.com_position();
        let (n, arm) = (c - handhold).normalize_and_length();
        if !(arm > R::from_f64(1e-3)) {
            return Err(SinewError::parameter("grab", "handhold at the centre of mass", arm.to_f64()));
        }
        self.world.particles_mut().set_position(self.pin, handhold)?;
        let v = self.com_velocity();
        let vr = v.dot(n);
        let vt = v - n * vr;
        self.world.particles_mut().set_velocity(self.com, vt)?;
        let speed = v.length();
        let ke0 = v.length_squared();
        let energy_kept = if ke0 > R::ZERO { vt.length_squared() / ke0 } else { R::ONE };
        let angle = vr.abs().atan2(vt.length());
        self.arm = Some(self.world.add_distance(&DistanceDef::new(self.pin, self.com).length(arm))?);
        Ok(GrabReport {
            energy_kept,
            com_velocity_jump: vr.abs(),
            speed_before: speed,
            angle_off_perpendicular: angle,
            arm,
        })
    }

    /// Grabs the world particle `p` (a vine's end) with the arm at the current distance:
    /// the rigid arm's impulse removes the centre of mass's velocity along the arm relative
    /// to the particle's (a particle at rest: as [`SwingRig::grab`]).
    ///
    /// # Errors
    /// For a bad handle, or a grab at the centre of mass itself.
    pub fn grab_particle(&mut self, p: ParticleHandle) -> Result<GrabReport<R>, SinewError> {
        if let Some(a) = self.arm.take() {
            self.world.remove_distance(a)?;
        }
        let ps = self.world.particles();
        let (Some(hp), Some(hv)) = (ps.position(p), ps.velocity(p)) else {
            return Err(SinewError::InvalidHandle { what: "particle", handle: Some(p.0) });
        };
        let c = self.com_position();
        let (n, arm) = (c - hp).normalize_and_length();
        if !(arm > R::from_f64(1e-3)) {
            return Err(SinewError::parameter("grab", "handhold at the centre of mass", arm.to_f64()));
        }
        let v = self.com_velocity();
        let vr = (v - hv).dot(n);
        let vt = v - n * vr;
        self.world.particles_mut().set_velocity(self.com, vt)?;
        let ke0 = v.length_squared();
        let energy_kept = if ke0 > R::ZERO { vt.length_squared() / ke0 } else { R::ONE };
        let angle = vr.abs().atan2((vt - hv).length());
        self.arm = Some(self.world.add_distance(&DistanceDef::new(p, self.com).length(arm))?);
        Ok(GrabReport {
            energy_kept,
            com_velocity_jump: vr.abs(),
            speed_before: v.length(),
            angle_off_perpendicular: angle,
            arm,
        })
    }

    /// Lets go and launches with velocity `v` (the exact parabola's; the substep
    /// correction is added here). `h` is the substep length of the steps to come.
    ///
    /// # Errors
    /// For a non-finite velocity.
    pub fn release(&mut self, v: Vector2<R>, h: R) -> Result<(), SinewError> {
        if let Some(a) = self.arm.take() {
            self.world.remove_distance(a)?;
        }
        let corrected = v + Vector2::new(R::ZERO, self.gravity * h * R::HALF);
        self.world.particles_mut().set_velocity(self.com, corrected)
    }

    /// Advances the world by `dt`.
    ///
    /// # Errors
    /// For a bad time step.
    pub fn step(&mut self, dt: R) -> Result<(), SinewError> {
        self.world.step(dt).map(|_| ())
    }

    /// Advances the world by `dt`, a part of a frame of `frame` seconds, with substeps no
    /// longer than the frame's (`⌈n dt / frame⌉` of them, `n` the world's substeps). A
    /// rope's chain is not solved exactly in one substep against a heavy particle on a
    /// distance constraint, and XPBD's velocity is the substep's displacement over its
    /// length: a residual of a tenth of a millimetre over a 0.01 ms substep would read as
    /// a 10 m/s velocity. Keeping the substep's length keeps the velocities of a vine
    /// swing true across the split frames (releases and grabs).
    ///
    /// # Errors
    /// For a bad time step.
    pub fn step_part(&mut self, dt: R, frame: R) -> Result<(), SinewError> {
        let def = *self.world.def();
        let n = def.substeps.max(1);
        let want = (R::from_i32(n as i32) * dt / frame).to_f64().ceil().clamp(1.0, f64::from(n)) as u32;
        if want == n {
            return self.step(dt);
        }
        self.world.set_def(def.substeps(want))?;
        let r = self.world.step(dt).map(|_| ());
        self.world.set_def(def)?;
        r
    }

    /// The world's substep length for a step of `dt`.
    #[must_use]
    pub fn substep(&self, dt: R) -> R {
        dt / R::from_i32(self.world.def().substeps as i32)
    }
}
