//! Hit reactions of a driven ragdoll: the strength schedule after a blow, the knock-out and
//! the get-up.
//!
//! A [`PoseDrive`](super::PoseDrive) multiplies every part's strength by a **global
//! strength** `g(f)` that depends on the reaction's phase and the frames `f` spent in it:
//!
//! ```text
//! Driven        g = 1
//! Recovering    g = s(f)                  the muscle ragdoll's envelope (hold, drop, ramp)
//! KnockedOut    g = 0                     a passive ragdoll: bones and joint limits only
//! GettingUp     g = f / B,  goal = nlerp(q_from, q_anim, f / B)    for f < B
//! ```
//!
//! A hit of impulse `J` at a point of a part (applied to the part's particles, split over
//! the part's segment nearest the point, so the momentum changes by exactly `J` and the
//! part turns with the blow) is classified by `|J|`: at or above the **knock-out
//! threshold** the character goes limp (`KnockedOut`); at or above the **heavy** threshold
//! the strength envelope restarts (`Recovering`: full strength for its hold frames to
//! absorb the blow, then the drop, then the ramp back to full). After `knockout_frames`
//! (or on [`PoseDriveHandle::get_up`](super::PoseDriveHandle::get_up)) the character gets
//! up: each part's goal starts at the orientation it has at that moment (`q_from`, so
//! nothing jumps) and blends to the animated target over `B = getup_frames` frames while
//! the strength ramps from 0 to 1. All of it counts frames (one per world step), so a
//! rollback that restores the drive replays it exactly.

use crate::SinewError;
use crate::math::Real;
use crate::state::{SavedState, StateHasher, saved_state};

use super::envelope::StrengthEnvelope;

/// Thresholds and schedules of the hit reactions (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct HitReactionDef<R> {
    /// A hit at least this strong (N·s) restarts the strength envelope. Default 15 N·s.
    pub heavy_impulse: R,
    /// The strength after a heavy hit, by frame. Default: the muscle ragdoll's (1 for 2
    /// frames, 0.55, back to 1 over 120 frames).
    pub envelope: StrengthEnvelope<R>,
    /// A hit at least this strong (N·s) knocks the character out; `None` = never.
    /// Default 60 N·s.
    pub knockout_impulse: Option<R>,
    /// Frames spent limp before getting up on its own; 0 = stays down until
    /// [`get_up`](super::PoseDriveHandle::get_up). Default 120.
    pub knockout_frames: u32,
    /// Frames of the get-up blend (`B`), ≥ 1. Default 60.
    pub getup_frames: u32,
}

impl<R: Real> Default for HitReactionDef<R> {
    fn default() -> Self {
        Self {
            heavy_impulse: R::from_i32(15),
            envelope: StrengthEnvelope::default(),
            knockout_impulse: Some(R::from_i32(60)),
            knockout_frames: 120,
            getup_frames: 60,
        }
    }
}

impl<R: Real> HitReactionDef<R> {
    /// Sets the heavy-hit threshold (N·s).
    #[must_use]
    pub fn heavy_impulse(mut self, j: R) -> Self {
        self.heavy_impulse = j;
        self
    }
    /// Sets the knock-out threshold (N·s; `None` = never).
    #[must_use]
    pub fn knockout_impulse(mut self, j: Option<R>) -> Self {
        self.knockout_impulse = j;
        self
    }
    /// Sets the frames limp before getting up (0 = never on its own).
    #[must_use]
    pub fn knockout_frames(mut self, n: u32) -> Self {
        self.knockout_frames = n;
        self
    }
    /// Sets the get-up blend's length (frames).
    #[must_use]
    pub fn getup_frames(mut self, n: u32) -> Self {
        self.getup_frames = n;
        self
    }
    /// Sets the envelope after a heavy hit.
    #[must_use]
    pub fn envelope(mut self, e: StrengthEnvelope<R>) -> Self {
        self.envelope = e;
        self
    }

    /// Checks every field: thresholds finite and ≥ 0, envelope strengths in `[0, 1]`,
    /// `getup_frames ≥ 1`.
    pub fn validate(&self) -> Result<(), SinewError> {
        for j in [Some(self.heavy_impulse), self.knockout_impulse].into_iter().flatten() {
            if !j.is_finite() {
                return Err(SinewError::NonFinite { what: "hit reaction threshold" });
            }
            if j < R::ZERO {
                return Err(SinewError::InvalidParameter {
                    what: "hit reaction threshold",
                    reason: "must be ≥ 0",
                    value: Some(j.to_f64()),
                });
            }
        }
        self.envelope.validate()?;
        let e = &self.envelope;
        if [e.initial, e.dropped, e.full].iter().any(|&s| s > R::ONE) {
            return Err(SinewError::InvalidParameter {
                what: "hit reaction envelope",
                reason: "strengths must be in [0, 1]",
                value: None,
            });
        }
        if self.getup_frames == 0 {
            return Err(SinewError::InvalidParameter { what: "getup_frames", reason: "must be ≥ 1", value: None });
        }
        Ok(())
    }
}

saved_state!(impl[R: Real] HitReactionDef<R> {
    heavy_impulse, envelope, knockout_impulse, knockout_frames, getup_frames,
});

/// Where a driven character is in its reaction to hits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrivePhase {
    /// Fully driven (global strength 1).
    Driven,
    /// After a heavy hit: strength follows the envelope.
    Recovering,
    /// Limp: the passive ragdoll.
    KnockedOut,
    /// Blending back from the pose it lay in to the animated one.
    GettingUp,
}

impl SavedState for DrivePhase {
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(*self as u64);
    }
}

/// The reaction's state: its settings, the phase and the frames spent in it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Reaction<R> {
    pub(crate) def: HitReactionDef<R>,
    pub(crate) phase: DrivePhase,
    pub(crate) frame: u32,
}

saved_state!(impl[R: Real] Reaction<R> { def, phase, frame });

/// What a hit did: the hit report of [`PoseDriveHandle::hit`](super::PoseDriveHandle::hit).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HitRecord<R, V> {
    /// Index of the part struck.
    pub part: usize,
    /// Where (world point).
    pub point: V,
    /// The impulse (N·s).
    pub impulse: V,
    /// `|impulse|` (N·s).
    pub magnitude: R,
    /// At or above the heavy threshold (the strength envelope restarted).
    pub heavy: bool,
    /// At or above the knock-out threshold.
    pub knocked_out: bool,
}

saved_state!(impl[R: Real, V: SavedState] HitRecord<R, V> { part, point, impulse, magnitude, heavy, knocked_out });

impl<R: Real> Reaction<R> {
    pub(crate) fn new(def: HitReactionDef<R>) -> Self {
        Self { def, phase: DrivePhase::Driven, frame: 0 }
    }

    /// The global strength `g` (see the module docs).
    pub(crate) fn strength(&self) -> R {
        match self.phase {
            DrivePhase::Driven => R::ONE,
            DrivePhase::Recovering => self.def.envelope.at(self.frame),
            DrivePhase::KnockedOut => R::ZERO,
            DrivePhase::GettingUp => self.blend().unwrap_or(R::ONE),
        }
    }

    /// The get-up blend fraction `f / B` while getting up.
    pub(crate) fn blend(&self) -> Option<R> {
        if self.phase != DrivePhase::GettingUp || self.frame >= self.def.getup_frames {
            return None;
        }
        let f = i32::try_from(self.frame).unwrap_or(i32::MAX);
        let b = i32::try_from(self.def.getup_frames).unwrap_or(i32::MAX);
        Some(R::from_i32(f) / R::from_i32(b))
    }

    /// Classifies a hit of magnitude `j`: `(heavy, knocked out)`, and enters the phase.
    pub(crate) fn on_hit(&mut self, j: R) -> (bool, bool) {
        let ko = self.def.knockout_impulse.is_some_and(|t| j >= t);
        let heavy = j >= self.def.heavy_impulse;
        if ko {
            self.knock_out();
        } else if heavy && self.phase != DrivePhase::KnockedOut {
            self.phase = DrivePhase::Recovering;
            self.frame = 0;
        }
        (heavy || ko, ko)
    }

    pub(crate) fn knock_out(&mut self) {
        self.phase = DrivePhase::KnockedOut;
        self.frame = 0;
    }

    pub(crate) fn start_get_up(&mut self) {
        self.phase = DrivePhase::GettingUp;
        self.frame = 0;
    }

    /// One frame passes; returns true when the get-up starts now (the caller captures the
    /// pose it starts from).
    pub(crate) fn advance(&mut self) -> bool {
        self.frame = self.frame.saturating_add(1);
        let d = &self.def;
        match self.phase {
            DrivePhase::Driven => false,
            DrivePhase::Recovering => {
                if self.frame >= d.envelope.hold_frames.saturating_add(d.envelope.ramp_frames) {
                    self.phase = DrivePhase::Driven;
                    self.frame = 0;
                }
                false
            }
            DrivePhase::KnockedOut => {
                if d.knockout_frames > 0 && self.frame >= d.knockout_frames {
                    self.start_get_up();
                    return true;
                }
                false
            }
            DrivePhase::GettingUp => {
                if self.frame >= d.getup_frames {
                    self.phase = DrivePhase::Driven;
                    self.frame = 0;
                }
                false
            }
        }
    }
}
