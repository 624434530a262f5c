//! The colliders as the taut stages see them, measured once per step.
//!
//! Colliders are placed between steps only (a moving collider's features are taken at
//! its end-of-step pose for the whole step), so within a step every collider's world box
//! and, for a given rope radius, its wrap features (`taut/geometry.rs`) are the same at
//! every substep. The contact update of each substep gathers the features near the path
//! from here instead of placing every collider's box (and the corners of those near the
//! path) again: among 50 colliders at eight substeps, 350 boxes a step saved. The values
//! are computed by the same functions from the same poses, so the stages see the same
//! numbers either way.
//!
//! The cache is dropped at every step's start (by the switch between slack and taut,
//! which runs there and measures the colliders directly, as does anything outside a step)
//! and built at the step's first substep that needs it, once per step while every taut
//! rope has the same radius.

use super::geometry::{Feature, collider_features};
use crate::arena::{Arena, RawHandle};
use crate::collider::{Aabb, Collider, world_aabb};
use crate::dim::BaseSpace;
use crate::math::{Real, Vector};
use crate::space::Space;

/// One collider: its handle, world box (`None`: unbounded, a half-space), whether it moves
/// this step, and where its features lie in [`ColliderCache::features`] once measured
/// (`None`: not yet; a collider no path comes near is never measured).
#[derive(Clone, Copy, Debug)]
struct Entry<V> {
    handle: RawHandle,
    bounds: Option<Aabb<V>>,
    moving: bool,
    features: Option<(u32, u32)>,
}

/// Every collider's world box and 2D wrap features for one step and one rope radius.
#[derive(Clone, Debug, Default)]
pub(crate) struct ColliderCache<V, R> {
    /// Built this step, for `radius`.
    valid: Option<R>,
    /// In the arena's order (the order the stages have always gathered in).
    entries: Vec<Entry<V>>,
    /// 2D: the features of the colliders measured so far; 3D: empty.
    features: Vec<Feature<V, R>>,
    /// Whether any collider moves this step.
    any_moving: bool,
    /// Builds so far: what was gathered from one build is stale after the next.
    generation: u64,
}

impl<V: Copy, R: Copy + PartialEq> ColliderCache<V, R> {
    /// Forgets the colliders (they may have moved: the next step rebuilds).
    pub fn invalidate(&mut self) {
        self.valid = None;
    }

    /// Which build of the cache this is (see [`Self::build`]).
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Whether the cache holds this step's colliders measured for a rope of `radius`.
    #[must_use]
    pub fn is_valid_for(&self, radius: R) -> bool {
        self.valid == Some(radius)
    }
}

impl<R: Real, V: Vector<R>> ColliderCache<V, R> {
    /// Measures every collider's box for a rope of `radius`; the features are measured
    /// when first asked for.
    pub fn build<S: Space + BaseSpace<Vector = V, Real = R>>(&mut self, colliders: &Arena<Collider<S>>, radius: R) {
        self.entries.clear();
        self.features.clear();
        for (h, c) in colliders.iter() {
            let bounds = c.shape.local_aabb().map(|(lo, hi)| world_aabb::<S>(lo, hi, c.position, c.rotation));
            self.entries.push(Entry { handle: h, bounds, moving: c.is_moving(), features: None });
        }
        self.any_moving = self.entries.iter().any(|e| e.moving);
        self.generation += 1;
        self.valid = Some(radius);
    }

    /// Appends to `out` the 2D features of the colliders whose boxes overlap `bounds`, in
    /// the arena's order, and calls `each` with every such collider's handle (for 3D
    /// features); returns whether any of them moves this step.
    pub fn gather<S: Space + BaseSpace<Vector = V, Real = R>>(
        &mut self,
        colliders: &Arena<Collider<S>>,
        bounds: &Aabb<V>,
        out: &mut Vec<Feature<V, R>>,
        mut each: impl FnMut(RawHandle, &Collider<S>),
    ) -> bool {
        let mut moving = false;
        for k in 0..self.entries.len() {
            let e = self.entries[k];
            if e.bounds.is_some_and(|b| !b.overlaps::<R>(bounds)) {
                continue;
            }
            let Some(c) = colliders.get(e.handle) else { continue };
            moving |= e.moving;
            if S::DIM == 2 {
                let (a, b) = self.measured(k, c);
                out.extend_from_slice(&self.features[a as usize..b as usize]);
            } else {
                each(e.handle, c);
            }
        }
        moving
    }

    /// Whether a collider whose box overlaps `bounds` moves this step (a half-space
    /// counts everywhere), as [`Self::gather`] would report it.
    #[must_use]
    pub fn moving_in(&self, bounds: &Aabb<V>) -> bool {
        self.any_moving && self.entries.iter().any(|e| e.moving && e.bounds.is_none_or(|b| b.overlaps::<R>(bounds)))
    }

    /// Where entry `k`'s features lie, measuring them on first use.
    fn measured<S: Space + BaseSpace<Vector = V, Real = R>>(&mut self, k: usize, c: &Collider<S>) -> (u32, u32) {
        if let Some(range) = self.entries[k].features {
            return range;
        }
        let radius = self.valid.unwrap_or(R::ZERO);
        let first = self.features.len() as u32;
        collider_features(self.entries[k].handle, c, radius, &mut self.features);
        let range = (first, self.features.len() as u32);
        self.entries[k].features = Some(range);
        range
    }
}
