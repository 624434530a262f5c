//! Fixed-step accumulator: run the simulation at a fixed `dt` whatever the frame rate.
//!
//! Games render at a variable rate; physics must step at a fixed one (a variable step
//! changes the result and, for ropes, causes jitter). Each frame, [`FixedStepper::advance`]
//! adds the frame time to an accumulator and says how many fixed steps to run; after them,
//! [`FixedStepper::alpha`] is the fraction of a step left over, used to interpolate
//! between the last two physics states for rendering.

/// Accumulates frame time into fixed steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedStepper {
    dt: f64,
    accumulator: f64,
    max_steps: u32,
}

impl FixedStepper {
    /// A stepper for steps of `dt` seconds, running at most `max_steps` per frame (the
    /// rest of a long hitch is dropped rather than spiralling). Invalid `dt` falls back to
    /// 1/60 s and `max_steps` 0 to 1.
    #[must_use]
    pub fn new(dt: f64, max_steps: u32) -> Self {
        let dt = if dt.is_finite() && dt > 0.0 { dt } else { 1.0 / 60.0 };
        Self { dt, accumulator: 0.0, max_steps: max_steps.max(1) }
    }

    /// The fixed step (s).
    #[must_use]
    pub fn dt(&self) -> f64 {
        self.dt
    }

    /// Adds `frame_dt` seconds (non-finite or negative counts as 0) and returns how many
    /// fixed steps to run now.
    pub fn advance(&mut self, frame_dt: f64) -> u32 {
        let frame_dt = if frame_dt.is_finite() && frame_dt > 0.0 { frame_dt } else { 0.0 };
        self.accumulator += frame_dt;
        let mut steps = 0;
        while self.accumulator >= self.dt && steps < self.max_steps {
            self.accumulator -= self.dt;
            steps += 1;
        }
        if steps == self.max_steps && self.accumulator >= self.dt {
            // Drop what cannot be caught up.
            self.accumulator %= self.dt;
        }
        steps
    }

    /// Interpolation factor in `[0, 1)`: render `lerp(previous, current, alpha)`.
    #[must_use]
    pub fn alpha(&self) -> f64 {
        (self.accumulator / self.dt).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accumulator_yields_whole_steps_and_remainder() {
        let mut s = FixedStepper::new(0.01, 10);
        assert_eq!(s.advance(0.025), 2);
        assert!((s.alpha() - 0.5).abs() < 1e-9);
        assert_eq!(s.advance(0.005), 1);
        assert!(s.alpha() < 1e-9);
        assert_eq!(s.advance(f64::NAN), 0);
        assert_eq!(s.advance(10.0), 10);
        assert!(s.alpha() < 1.0);
    }
}
