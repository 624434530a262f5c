//! Frame schedules of a muscle ragdoll: the strength envelope and the pose blend.
//!
//! Both count **frames since entering physics** (`f = 0` is the first step) and are pure
//! functions of `f`, so a rollback that restores the frame counter replays them exactly.
//!
//! # Strength envelope (Shadow Fight 3)
//!
//! ```text
//!          ⎧ s₀                                   f < H           (absorb the hit)
//! s(f) =   ⎨ s₁ + (s₂ − s₁)·(f − H)/T             H ≤ f < H + T   (recover)
//!          ⎩ s₂                                   f ≥ H + T
//! ```
//!
//! with the defaults `s₀ = 1` (full strength for `H = 2` frames, so the body holds
//! together through the impact), `s₁ = 0.55` (it then goes limp enough to react to the
//! hit) and a linear recovery to `s₂ = 1` over `T = 120` frames. The last branch is taken
//! exactly, so the strength is bit-exactly `s₂` from frame `H + T` on, in every scalar
//! type.
//!
//! # Pose blend
//!
//! On entering physics the muscles aim at the lengths the body has at that moment
//! (`ℓ⁰`), so nothing jumps, then move linearly to the chosen preset (`p`) over `B = 50`
//! frames:
//!
//! ```text
//! target(f) = ℓ⁰ + (p − ℓ⁰)·f/B   for f < B,      target(f) = p   for f ≥ B
//! ```
//!
//! again with the end state taken exactly.

use crate::SinewError;
use crate::math::Real;

/// Muscle strength as a function of the frame (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StrengthEnvelope<R> {
    /// Strength while holding (`s₀`), default 1.
    pub initial: R,
    /// Frames held at `initial` (`H`), default 2.
    pub hold_frames: u32,
    /// Strength right after the hold (`s₁`), default 0.55.
    pub dropped: R,
    /// Frames of the linear recovery (`T`), default 120.
    pub ramp_frames: u32,
    /// Strength after recovery (`s₂`), default 1.
    pub full: R,
}

crate::state::saved_state!(impl[R: Real] StrengthEnvelope<R> { initial, hold_frames, dropped, ramp_frames, full });

impl<R: Real> Default for StrengthEnvelope<R> {
    fn default() -> Self {
        Self { initial: R::ONE, hold_frames: 2, dropped: R::from_f64(0.55), ramp_frames: 120, full: R::ONE }
    }
}

impl<R: Real> StrengthEnvelope<R> {
    /// A constant strength.
    #[must_use]
    pub fn constant(s: R) -> Self {
        Self { initial: s, hold_frames: 0, dropped: s, ramp_frames: 0, full: s }
    }

    /// Strength at frame `f`.
    #[inline]
    #[must_use]
    pub fn at(&self, f: u32) -> R {
        if f < self.hold_frames {
            return self.initial;
        }
        let k = f - self.hold_frames;
        if k >= self.ramp_frames {
            return self.full;
        }
        // k < ramp_frames ≤ u32::MAX; both fit i32 for any sensible schedule, and are
        // clamped otherwise (a recovery longer than 2³¹ frames is a year at 60 Hz).
        let k = i32::try_from(k).unwrap_or(i32::MAX);
        let t = i32::try_from(self.ramp_frames).unwrap_or(i32::MAX);
        self.dropped + (self.full - self.dropped) * R::from_i32(k) / R::from_i32(t)
    }

    /// Checks that every strength is finite and ≥ 0.
    pub fn validate(&self) -> Result<(), SinewError> {
        for s in [self.initial, self.dropped, self.full] {
            if !s.is_finite() {
                return Err(SinewError::NonFinite { what: "strength envelope" });
            }
            if s < R::ZERO {
                return Err(SinewError::InvalidParameter {
                    what: "strength envelope",
                    reason: "must be ≥ 0",
                    value: None,
                });
            }
        }
        Ok(())
    }
}

/// The linear blend from the entry pose to the preset (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlendSchedule {
    /// Frames of the blend (`B`), default 50; 0 = the preset at once.
    pub frames: u32,
}

crate::state::saved_state!(impl[] BlendSchedule { frames });

impl Default for BlendSchedule {
    fn default() -> Self {
        Self { frames: 50 }
    }
}

impl BlendSchedule {
    /// `None` once the blend is complete (use the preset exactly), else the fraction
    /// `f / B` as `(f, B)`.
    #[inline]
    #[must_use]
    pub fn fraction(&self, f: u32) -> Option<(i32, i32)> {
        if f >= self.frames {
            return None;
        }
        Some((i32::try_from(f).unwrap_or(i32::MAX), i32::try_from(self.frames).unwrap_or(i32::MAX)))
    }

    /// Target length at frame `f` between the entry length `from` and the preset `to`.
    #[inline]
    #[must_use]
    pub fn target<R: Real>(&self, f: u32, from: R, to: R) -> R {
        match self.fraction(f) {
            None => to,
            Some((k, b)) => from + (to - from) * R::from_i32(k) / R::from_i32(b),
        }
    }
}
