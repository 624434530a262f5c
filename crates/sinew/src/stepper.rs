//! Fixed-step accumulator: run the simulation at a fixed `dt` whatever the frame rate.
//!
//! Games render at a variable rate; physics must step at a fixed one (a variable step
//! changes the result and, for ropes, causes jitter). Each frame, [`FixedStepper::advance`]
//! adds the frame time to an accumulator and says how many fixed steps to run; after them,
//! [`FixedStepper::alpha`] is the fraction of a step left over, used to interpolate
//! between the last two physics states for rendering.
//!
//! Drive kinematic particles once per *step*, not once per frame: a target set with
//! `set_kinematic_target` is reached at the end of the next step, so set it inside the
//! `for _ in 0..stepper.advance(..)` loop (with the target for that step's end time), or a
//! frame that runs several steps moves the particle in one of them only.
//!
//! The stepper counts in the world's own scalar (`f32`, `f64` or [`crate::Fx`]), so
//! `world.step(stepper.dt())` type-checks for every world, and a fixed-point game keeps
//! its clock exact:
//!
//! ```
//! use sinew::prelude::*;
//!
//! let mut world = World2::new(WorldDef::default()).unwrap();
//! let mut stepper = FixedStepper::new(1.0 / 60.0, 4); // 60 Hz, at most 4 steps a frame
//! let frame_seconds = 1.0 / 144.0; // what the game's frame took
//! for _ in 0..stepper.advance(frame_seconds) {
//!     world.step(stepper.dt()).unwrap();
//! }
//! assert!(stepper.alpha() > 0.0); // 144 Hz frames: a part of a step is left over
//! ```

use crate::math::Real;

/// Accumulates frame time into fixed steps, in the scalar `R` of the world it steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedStepper<R = f64> {
    dt: R,
    accumulator: R,
    max_steps: u32,
}

impl<R: Real> FixedStepper<R> {
    /// A stepper for steps of `dt` seconds, running at most `max_steps` per frame (the
    /// rest of a long hitch is dropped rather than spiralling). Invalid `dt` falls back to
    /// 1/60 s and `max_steps` 0 to 1.
    #[must_use]
    pub fn new(dt: R, max_steps: u32) -> Self {
        let dt = if dt.is_finite() && dt > R::ZERO { dt } else { R::from_ratio(1, 60) };
        Self { dt, accumulator: R::ZERO, max_steps: max_steps.max(1) }
    }

    /// The fixed step (s).
    #[inline]
    #[must_use]
    pub fn dt(&self) -> R {
        self.dt
    }

    /// Adds `frame_dt` seconds (non-finite or negative counts as 0) and returns how many
    /// fixed steps to run now.
    pub fn advance(&mut self, frame_dt: R) -> u32 {
        let frame_dt = if frame_dt.is_finite() && frame_dt > R::ZERO { frame_dt } else { R::ZERO };
        self.accumulator += frame_dt;
        let mut steps = 0;
        while self.accumulator >= self.dt && steps < self.max_steps {
            self.accumulator -= self.dt;
            steps += 1;
        }
        if self.accumulator >= self.dt {
            // Drop the whole steps that cannot be caught up; keep the fraction.
            let whole = (self.accumulator / self.dt).to_f64().floor();
            self.accumulator = (self.accumulator - self.dt * R::from_f64(whole)).clamp(R::ZERO, self.dt);
            if self.accumulator >= self.dt {
                self.accumulator = R::ZERO;
            }
        }
        steps
    }

    /// Interpolation factor in `[0, 1)`: render `lerp(previous, current, alpha)`.
    #[must_use]
    pub fn alpha(&self) -> R {
        (self.accumulator / self.dt).clamp(R::ZERO, R::ONE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Fx;

    #[test]
    fn accumulator_yields_whole_steps_and_remainder() {
        let mut s = FixedStepper::new(0.01, 10);
        assert_eq!(s.advance(0.025), 2);
        assert!((s.alpha() - 0.5f64).abs() < 1e-9);
        assert_eq!(s.advance(0.005), 1);
        assert!(s.alpha() < 1e-9);
        assert_eq!(s.advance(f64::NAN), 0);
        assert_eq!(s.advance(10.0), 10);
        assert!(s.alpha() < 1.0);
        assert_eq!(s.advance(f64::MAX), 10, "an absurd hitch runs the most steps, then drops the rest");
        assert!((0.0..1.0).contains(&s.alpha()));
    }

    #[test]
    fn a_fixed_point_stepper_keeps_an_exact_clock() {
        let dt = Fx::from_ratio(1, 60);
        let mut s = FixedStepper::new(dt, 4);
        let mut steps = 0;
        for _ in 0..600 {
            steps += s.advance(dt);
        }
        assert_eq!(steps, 600, "one step per frame of exactly one step, for ever");
        assert_eq!(s.alpha(), Fx::ZERO);
        let mut f = FixedStepper::new(1.0f32 / 60.0, 4);
        assert_eq!(f.advance(1.0 / 30.0), 2);
    }
}
