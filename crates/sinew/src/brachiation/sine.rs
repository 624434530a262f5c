//! The sine-wave swinging baseline: the kind of keyframe-like swing the Gibbon game used
//! before its physics-based rig, kept to compare against the planner on the same course.
//!
//! On handhold `h_k` the arm's angle follows `θ(t) = −A cos(π t / T)` from `−A` (back) to
//! `+A` (front) with `A = clamp(asin(Δx / 2L), 20°, 70°)` for the horizontal distance `Δx`
//! to the next handhold and `T = 2 A L / v̄` for the target mean speed `v̄`; the hand then
//! switches to `h_{k+1}`. Where the end of one swing and the start of the next are not the
//! same point, the centre of mass crosses between them on a straight line at speed `v̄`
//! (a "leap"). The centre of mass is kinematic (placed, not simulated): nothing keeps its
//! velocity continuous, and the speed falls to zero at the end of every swing. Those are
//! the transitions that broke in the game, and what [`super::character::Brachiator`]
//! reports for this mode.

use crate::math::{Real, Vector, Vector2};

/// One segment of the baseline's motion: a sine swing on `handhold`, then a leap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SineSwing<R: Real> {
    /// The handhold swung on.
    pub handhold: Vector2<R>,
    /// Amplitude `A` (rad).
    pub amplitude: R,
    /// Half period `T` (s).
    pub half_period: R,
    /// Arm length.
    pub arm: R,
    /// Leap from the swing's end to the next swing's start.
    pub leap: [Vector2<R>; 2],
    /// Leap duration (s).
    pub leap_time: R,
}

/// The amplitude for a horizontal distance `dx` to the next handhold.
#[must_use]
pub fn amplitude<R: Real>(dx: R, arm: R) -> R {
    let s = (dx / (R::TWO * arm)).clamp(-R::ONE, R::ONE);
    // asin via atan2.
    let a = s.atan2((R::ONE - s * s).max(R::ZERO).sqrt());
    a.clamp(R::from_f64(20.0f64.to_radians()), R::from_f64(70.0f64.to_radians()))
}

impl<R: Real> SineSwing<R> {
    /// The segment on `h` (amplitude `a`) toward `next` (whose swing has amplitude
    /// `a_next`), at mean speed `v`.
    #[must_use]
    pub fn new(h: Vector2<R>, a: R, next: Option<(Vector2<R>, R)>, arm: R, v: R) -> Self {
        let half_period = (R::TWO * a * arm / v).max(R::from_f64(0.05));
        let end = h + Vector2::new(a.sin(), -a.cos()) * arm;
        let (start, leap_time) = match next {
            Some((n, an)) => {
                let s = n + Vector2::new(-an.sin(), -an.cos()) * arm;
                let d = (s - end).length();
                (s, if d > R::from_f64(0.01) { d / v } else { R::ZERO })
            }
            None => (end, R::ZERO),
        };
        Self { handhold: h, amplitude: a, half_period, arm, leap: [end, start], leap_time }
    }

    /// Total duration (swing and leap).
    #[must_use]
    pub fn duration(&self) -> R {
        self.half_period + self.leap_time
    }

    /// Position and velocity of the centre of mass at time `t` into the segment, and
    /// whether it is leaping.
    #[must_use]
    pub fn sample(&self, t: R) -> (Vector2<R>, Vector2<R>, bool) {
        if t <= self.half_period {
            let w = R::PI / self.half_period;
            let th = -self.amplitude * (w * t).cos();
            let om = self.amplitude * w * (w * t).sin();
            let p = self.handhold + Vector2::new(th.sin(), -th.cos()) * self.arm;
            let v = Vector2::new(th.cos(), th.sin()) * (om * self.arm);
            (p, v, false)
        } else {
            let f = ((t - self.half_period) / self.leap_time.max(R::from_f64(1e-6))).min(R::ONE);
            let d = self.leap[1] - self.leap[0];
            let v = if self.leap_time > R::ZERO { d / self.leap_time } else { Vector2::new(R::ZERO, R::ZERO) };
            (self.leap[0] + d * f, v, true)
        }
    }
}
