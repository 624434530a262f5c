//! Contact anchors: where each particle's collider pairs were gathered, and what they hold
//! for — saved state, kept apart from the broad-phase cache (see "Contact anchors" in the
//! module docs of [`crate::contact`]).
//!
//! This file holds every decision that changes an anchor: keep it, move a lonely one, take
//! a fresh one, forget it. The gathering ([`super::gather`]) asks and then builds its
//! pairs from the answer; nothing else writes an anchor.

use crate::collider::Aabb;
use crate::math::{Real, Vector};
use crate::space::{RealOf, Space, VecOf};
use crate::state::saved_state;

/// A particle's contact anchor besides its position: the radius of the region its
/// collider pairs hold for, the extra broad-phase reach they were gathered with, and
/// [`AnchorInfo::ANCHORED`] / [`AnchorInfo::PLANES`] / [`AnchorInfo::LONELY`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct AnchorInfo<R> {
    pub region: R,
    pub extra: R,
    pub flags: u8,
}

saved_state!(impl[R: Real] AnchorInfo<R> { region, extra, flags });

impl<R> AnchorInfo<R> {
    /// The slot has a contact anchor.
    pub const ANCHORED: u8 = 1;
    /// Its pairs carry contact planes.
    pub const PLANES: u8 = 2;
    /// It has no pairs: nothing lies within its region.
    pub const LONELY: u8 = 4;
}

/// Every particle slot's contact anchor (part of the saved state: which steps gather
/// afresh depends on it, so a restored world must gather exactly when the original did).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ContactAnchors<S: Space> {
    /// Per particle slot: the anchor point.
    pub pos: Vec<VecOf<S>>,
    /// Per particle slot: what its pairs hold for.
    pub info: Vec<AnchorInfo<RealOf<S>>>,
}

saved_state!(impl[S: Space] ContactAnchors<S> { pos, info });

/// Whether a box overlaps the swept box of a collider that moves this step.
pub(crate) type NearMoving<'a, S> = &'a dyn Fn(&Aabb<VecOf<S>>) -> bool;

/// What a particle can reach this step, as the gathering measured it: the inputs of the
/// decision to keep its anchor.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reach<R> {
    /// Twice the distance its velocity and forces carry it this step (an L1 bound).
    pub motion: R,
    /// Extra broad-phase reach of its rope spans.
    pub extra: R,
    /// Its contact planes' reuse distance `ε = min(plane_reuse, r/2)`.
    pub eps: R,
    /// How far it is predicted to move this step.
    pub predicted: R,
    /// Its pairs may carry contact planes this step.
    pub plane_ok: bool,
    /// It moves less than `ε/4` per step.
    pub slow: bool,
    /// Its radius.
    pub radius: R,
}

/// The anchor a particle keeps this step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Kept<R> {
    /// Nothing lies within its region: it has no pairs.
    pub lonely: bool,
    /// The region's radius.
    pub region: R,
}

impl<S: Space> ContactAnchors<S> {
    /// Slot `k` gets a new particle at `x`: no anchor yet.
    pub fn reset(&mut self, k: usize, x: VecOf<S>) {
        if k >= self.pos.len() {
            self.pos.resize(k + 1, x);
            self.info.resize(k + 1, AnchorInfo::default());
        }
        self.pos[k] = x;
        self.info[k] = AnchorInfo::default();
    }

    /// Slot `k`'s particle is gone (or restored to a finite state): no anchor.
    #[inline]
    pub fn forget(&mut self, k: usize) {
        if let Some(i) = self.info.get_mut(k) {
            i.flags = 0;
        }
    }

    /// A particle with no contacts this step (pinned, kinematic, asleep or not
    /// colliding): its anchor is where the step starts (what span contacts measure a
    /// kinematic rope particle's motion from), and none is kept.
    #[inline]
    pub fn release(&mut self, k: usize, x: VecOf<S>) {
        self.pos[k] = x;
        self.info[k].flags = 0;
    }

    /// Forgets every anchor: the colliders or the settings the pairs were gathered with
    /// changed.
    pub fn drop_all(&mut self) {
        self.info.iter_mut().for_each(|a| a.flags = 0);
    }

    /// Whether slot `k` keeps its anchor this step, and with what (see "Contact anchors"):
    /// while the step's reach from the particle's start `x0` stays inside the anchor's
    /// region and, with planes, within `ε` of it — `|x₀ − a| + reach ≤ region` — and it
    /// moves less than `ε/4` per step (or is lonely). `anchors_hold` is false while a
    /// half-space moves; `near_moving` says whether a moving collider's swept box overlaps
    /// a box. A lonely anchor whose region still holds the step but whose planes do not
    /// moves to `x0` instead, its region less the distance moved.
    pub fn hold(
        &mut self,
        k: usize,
        x0: VecOf<S>,
        reach: &Reach<RealOf<S>>,
        anchors_hold: bool,
        near_moving: Option<NearMoving<'_, S>>,
    ) -> Option<Kept<RealOf<S>>> {
        let info = self.info[k];
        let Reach { motion, extra, eps, predicted, plane_ok, slow, radius } = *reach;
        let lonely = info.flags & AnchorInfo::<RealOf<S>>::LONELY != 0;
        let (region, d2) = (info.region, (x0 - self.pos[k]).length_squared());
        let held = anchors_hold
            && info.flags & AnchorInfo::<RealOf<S>>::ANCHORED != 0
            && (slow || lonely)
            && info.extra == extra
            && (region >= motion && d2 <= (region - motion).sq())
            && near_moving.is_none_or(|near| {
                // No moving collider's path near the region (its query box).
                let r = VecOf::<S>::splat(info.region + radius + extra);
                !near(&Aabb { min: self.pos[k] - r, max: self.pos[k] + r })
            });
        if !held {
            return None;
        }
        let planes_hold = (info.flags & AnchorInfo::<RealOf<S>>::PLANES != 0) == plane_ok
            && (!plane_ok || (eps >= predicted && d2 <= (eps - predicted).sq()));
        if planes_hold {
            return Some(Kept { lonely, region });
        }
        if !lonely {
            return None;
        }
        // A lonely anchor whose region still holds the step but whose planes do not (the
        // particle drifted farther than ε from it, or its speed crossed the planes'
        // threshold) moves here, its region less the distance moved (see "Contact
        // anchors"), instead of gathering afresh. Less, too, the rounding of the
        // subtraction and the root relative to the sizes (`f32` rounds by 2⁻²⁴ of them): a
        // particle drifting far from the origin moves its anchor every step, and a fixed
        // margin let the roundings add up (3 m over 1 km of drift towards a half-space in
        // `f32`). Then kept like any lonely anchor.
        let rounding = RealOf::<S>::from_f64(2f64.powi(-20));
        let d = d2.sqrt();
        let moved = region - d - (region + d) * rounding - RealOf::<S>::ROUNDING_SLOP;
        if moved < motion {
            return None;
        }
        let planes = if plane_ok { AnchorInfo::<RealOf<S>>::PLANES } else { 0 };
        let flags = AnchorInfo::<RealOf<S>>::ANCHORED | AnchorInfo::<RealOf<S>>::LONELY | planes;
        (self.pos[k], self.info[k]) = (x0, AnchorInfo { region: moved, extra, flags });
        Some(Kept { lonely: true, region: moved })
    }

    /// Slot `k` takes a fresh anchor at `x`: its pairs were gathered there for `region`
    /// (`lonely`: it has none).
    pub fn take(&mut self, k: usize, x: VecOf<S>, region: RealOf<S>, extra: RealOf<S>, plane_ok: bool, lonely: bool) {
        let lonely = if lonely { AnchorInfo::<RealOf<S>>::LONELY } else { 0 };
        let planes = if plane_ok { AnchorInfo::<RealOf<S>>::PLANES } else { 0 };
        self.pos[k] = x;
        self.info[k] = AnchorInfo { region, extra, flags: AnchorInfo::<RealOf<S>>::ANCHORED | planes | lonely };
    }

    /// Whether slot `k`'s anchor has nothing in its region.
    #[inline]
    pub fn is_lonely(&self, k: usize) -> bool {
        self.info[k].flags & AnchorInfo::<RealOf<S>>::LONELY != 0
    }
}
