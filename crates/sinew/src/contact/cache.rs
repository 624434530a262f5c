//! The broad-phase cache: each particle's list of nearby colliders kept across steps
//! (Box2D's "fat AABB" idea). A pure cache — the lists it hands out are exactly what a
//! broad-phase query with the same box returns, whether they come from the cache or not —
//! so it is never saved: a restored world starts with it empty.

use crate::collider::{Aabb, BroadPhase};
use crate::math::{Real, Vector};
use crate::space::{RealOf, Space, VecOf};

/// One particle slot's cache entry, in one record so that the once-per-step gathering
/// reads and writes one array per particle instead of five.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FatEntry<S: Space> {
    /// The enlarged box the list was queried with.
    pub bx: Aabb<VecOf<S>>,
    /// The list's range in its step's list array.
    pub at: u32,
    pub len: u32,
    /// The gather that wrote the entry ([`FatCache::epoch`]; 0: never). 32 bits keep the
    /// record at 32 bytes (two per cache line) for `f32` in 2D.
    pub epoch: u32,
    /// Half the side of this step's query box, centred on the particle's contact anchor.
    pub reach: RealOf<S>,
    /// The pairs' range in the step's pair array.
    pub pairs_at: u32,
    pub pairs_len: u32,
}

impl<S: Space> FatEntry<S> {
    fn empty() -> Self {
        let zero_box = Aabb { min: VecOf::<S>::ZERO, max: VecOf::<S>::ZERO };
        Self { bx: zero_box, at: 0, len: 0, epoch: 0, reach: RealOf::<S>::ZERO, pairs_at: 0, pairs_len: 0 }
    }
}

/// Broad-phase results kept across steps, per particle slot (see [`FatEntry`]): the
/// enlarged box its candidates were last queried with and their range in `next` (this
/// step's lists; `items` holds the previous step's). While the particle's query box stays
/// inside that box and the broad phase has not been rebuilt (`generation`), the cached list
/// — a superset — is filtered instead of querying the grid again. Results are identical
/// either way.
#[derive(Clone, Debug, Default)]
pub(crate) struct FatCache<S: Space> {
    pub entries: Vec<FatEntry<S>>,
    pub items: Vec<u32>,
    pub next: Vec<u32>,
    pub generation: u64,
    /// Gathers so far: an entry written by the current one is this step's, by the one
    /// before a list in `items`.
    pub epoch: u32,
    /// The epoch of the gather before this one.
    pub prev_epoch: u32,
    /// Whether the lists of the last gather are valid for this one (same broad phase).
    pub valid: bool,
}

impl<S: Space> FatCache<S> {
    /// Starts a gather: the next epoch. Returns true when the epoch wrapped round (after
    /// 2³² steps), having forgotten every entry rather than let one written 2³² gathers
    /// ago pass for last step's (the caller forgets what it stamped with epochs too).
    pub fn next_epoch(&mut self) -> bool {
        let wrapped = self.epoch == u32::MAX;
        if wrapped {
            self.epoch = 0;
            self.entries.iter_mut().for_each(|e| e.epoch = 0);
        }
        self.prev_epoch = self.epoch;
        self.epoch += 1;
        wrapped
    }

    /// Opens this gather's lists over `slots` particle slots against a broad phase of
    /// `generation` (last gather's lists are valid only if it was the same).
    pub fn open(&mut self, slots: usize, generation: u64) {
        self.valid = self.generation == generation;
        self.generation = generation;
        self.entries.resize(slots, FatEntry::empty());
        core::mem::swap(&mut self.items, &mut self.next);
        self.next.clear();
    }

    /// Whether slot `k`'s entry was written by the last gather from this broad phase (its
    /// list is in `items`).
    #[inline]
    pub fn last(&self, k: usize) -> bool {
        self.valid && self.entries[k].epoch == self.prev_epoch && self.prev_epoch != 0
    }

    /// Copies slot `k`'s list of the last gather into this step's lists; returns its start.
    #[inline]
    pub fn carry(&mut self, k: usize) -> u32 {
        let e = self.entries[k];
        let start = self.next.len() as u32;
        self.next.extend_from_slice(&self.items[e.at as usize..(e.at + e.len) as usize]);
        start
    }

    /// Slot `k`'s candidate list for the query box `q` into this step's lists: the cached
    /// one when its box holds `q` and no moving collider entered it, else a query with a
    /// box grown by Box2D's 10 cm pad and stretched along `motion` (the particle's travel
    /// over a few steps). Returns the list's range; sets the entry's box.
    #[allow(clippy::too_many_arguments)] // (the gathering's loop state, borrowed apart)
    pub fn list(
        &mut self,
        k: usize,
        q: &Aabb<VecOf<S>>,
        motion: VecOf<S>,
        last: bool,
        near_moving: &impl Fn(&Aabb<VecOf<S>>) -> bool,
        broad_phase: &mut BroadPhase<VecOf<S>>,
        query_buf: &mut Vec<u32>,
    ) -> (u32, u32) {
        let cached = last && self.entries[k].bx.contains(q) && !near_moving(&self.entries[k].bx);
        let start = if cached {
            self.carry(k)
        } else {
            let pad = VecOf::<S>::splat(RealOf::<S>::from_ratio(1, 10));
            let fat = Aabb {
                min: q.min - pad + motion.min_elem(VecOf::<S>::ZERO),
                max: q.max + pad + motion.max_elem(VecOf::<S>::ZERO),
            };
            broad_phase.query::<RealOf<S>>(&fat, query_buf);
            self.entries[k].bx = fat;
            let start = self.next.len() as u32;
            self.next.extend_from_slice(query_buf);
            start
        };
        (start, self.next.len() as u32)
    }

    /// This step's candidates of slot `k` (indices into the broad phase's bounded list).
    #[inline]
    pub fn listed(&self, k: usize) -> &[u32] {
        let e = &self.entries[k];
        &self.next[e.at as usize..(e.at + e.len) as usize]
    }

    /// Slot `k`'s entry, if this gather wrote it.
    #[inline]
    pub fn current(&self, k: usize) -> Option<&FatEntry<S>> {
        self.entries.get(k).filter(|e| e.epoch == self.epoch && e.epoch != 0)
    }
}
