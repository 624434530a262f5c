//! Broad phase: a uniform grid over the colliders' bounding boxes.
//!
//! Particles are many and small, colliders few and large, so the grid holds colliders and
//! particles query it with the box swept by their motion over one substep. The grid is a
//! compressed (CSR) cell → collider list, rebuilt whenever a collider is added, removed or
//! moved; with a handful of colliders it is skipped and every box is tested.
//!
//! Query results are sorted by collider slot, so contacts are generated in the same order
//! however the grid happens to be laid out — part of the determinism contract.

use crate::math::{Real, Vector};

/// An axis-aligned bounding box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb<V> {
    /// Minimum corner.
    pub min: V,
    /// Maximum corner.
    pub max: V,
}

impl<V> Aabb<V> {
    /// Smallest box containing both.
    #[inline]
    #[must_use]
    pub fn union<R: Real>(&self, o: &Self) -> Self
    where
        V: Vector<R>,
    {
        Self { min: self.min.min_elem(o.min), max: self.max.max_elem(o.max) }
    }

    /// Whether `o` lies inside `self` (boundaries included).
    #[inline]
    #[must_use]
    pub fn contains<R: Real>(&self, o: &Self) -> bool
    where
        V: Vector<R>,
    {
        // Without early exits, like `overlaps`.
        (0..V::DIM).fold(true, |ok, i| ok & (self.min.get(i) <= o.min.get(i)) & (o.max.get(i) <= self.max.get(i)))
    }

    /// True when the boxes overlap (touching counts).
    #[inline]
    #[must_use]
    pub fn overlaps<R: Real>(&self, o: &Self) -> bool
    where
        V: Vector<R>,
    {
        // Without early exits: the answer is hard to predict (a particle near a collider's
        // box edge), and a mispredicted branch costs more than the comparisons it skips.
        (0..V::DIM).fold(true, |ok, i| ok & (self.min.get(i) <= o.max.get(i)) & (o.min.get(i) <= self.max.get(i)))
    }
}

/// Above this many bounded colliders the grid is used.
const GRID_THRESHOLD: usize = 8;
/// Cap on the cells per axis, and in total.
const MAX_CELLS_PER_AXIS: usize = 128;
const MAX_CELLS: usize = 1 << 16;

/// Grid of colliders.
#[derive(Clone, Debug, Default)]
pub(crate) struct BroadPhase<V> {
    /// Half-spaces: tested against every particle.
    pub unbounded: Vec<u32>,
    /// Bounded colliders with their (swept) boxes.
    pub bounded: Vec<(u32, Aabb<V>)>,
    origin: [f64; 3],
    inv_cell: f64,
    dims: [usize; 3],
    cell_start: Vec<u32>,
    items: Vec<u32>,
    use_grid: bool,
    stamp: Vec<u32>,
    query_id: u32,
    /// Incremented by a rebuild with `restructure`: lists of colliders cached by callers
    /// stay valid while it holds, except for the colliders that move (whose boxes change
    /// from rebuild to rebuild; callers check those themselves).
    pub generation: u64,
}

impl<V> BroadPhase<V> {
    /// Rebuilds from `(slot, box or None for unbounded)` in slot order. `restructure`:
    /// the colliders, or which of them move, changed since the last rebuild (a new
    /// generation); otherwise only the moving colliders' boxes did, and every index into
    /// `bounded` keeps its collider.
    pub fn rebuild<R: Real>(
        &mut self,
        colliders: impl Iterator<Item = (u32, Option<Aabb<V>>)>,
        slot_count: usize,
        restructure: bool,
    ) where
        V: Vector<R>,
    {
        if restructure {
            self.generation = self.generation.wrapping_add(1);
        }
        self.unbounded.clear();
        self.bounded.clear();
        for (slot, aabb) in colliders {
            match aabb {
                Some(b) => self.bounded.push((slot, b)),
                None => self.unbounded.push(slot),
            }
        }
        self.stamp.clear();
        self.stamp.resize(slot_count, 0);
        self.query_id = 0;
        self.use_grid = self.bounded.len() > GRID_THRESHOLD;
        if !self.use_grid {
            return;
        }
        // Grid bounds and cell size. Cell index computation goes through f64: conversion
        // from every supported scalar is exact and `floor` is exact, so the layout is the
        // same on every machine (and the query order is canonicalised anyway).
        let dim = V::DIM;
        let mut lo = [f64::MAX; 3];
        let mut hi = [f64::MIN; 3];
        let mut size_sum = 0.0;
        for (_, b) in &self.bounded {
            let (bmin, bmax) = (b.min.to_f64_array(), b.max.to_f64_array());
            let mut largest: f64 = 0.0;
            for i in 0..dim {
                lo[i] = lo[i].min(bmin[i]);
                hi[i] = hi[i].max(bmax[i]);
                largest = largest.max(bmax[i] - bmin[i]);
            }
            size_sum += largest;
        }
        let mut cell = (size_sum / self.bounded.len() as f64).max(1e-3);
        loop {
            let mut total = 1usize;
            let mut ok = true;
            for i in 0..dim {
                let n = (((hi[i] - lo[i]) / cell).floor() as usize) + 1;
                ok &= n <= MAX_CELLS_PER_AXIS;
                total = total.saturating_mul(n);
            }
            if ok && total <= MAX_CELLS {
                break;
            }
            cell *= 2.0;
        }
        self.origin = lo;
        self.inv_cell = 1.0 / cell;
        self.dims = [1; 3];
        for i in 0..dim {
            self.dims[i] = (((hi[i] - lo[i]) * self.inv_cell).floor() as usize) + 1;
        }
        let ncells = self.dims[0] * self.dims[1] * self.dims[2];
        let mut counts = vec![0u32; ncells + 1];
        let ranges: Vec<([usize; 3], [usize; 3])> =
            self.bounded.iter().map(|(_, b)| self.cell_range(b.min.to_f64_array(), b.max.to_f64_array())).collect();
        for (c0, c1) in &ranges {
            for_each_cell(*c0, *c1, self.dims, |c| counts[c] += 1);
        }
        let mut start = vec![0u32; ncells + 1];
        for c in 0..ncells {
            start[c + 1] = start[c] + counts[c];
        }
        let mut fill = start.clone();
        self.items = vec![0; start[ncells] as usize];
        for (k, (c0, c1)) in ranges.iter().enumerate() {
            for_each_cell(*c0, *c1, self.dims, |c| {
                self.items[fill[c] as usize] = k as u32;
                fill[c] += 1;
            });
        }
        self.cell_start = start;
    }

    fn cell_range(&self, min: [f64; 3], max: [f64; 3]) -> ([usize; 3], [usize; 3]) {
        let mut c0 = [0usize; 3];
        let mut c1 = [0usize; 3];
        for i in 0..3 {
            if self.dims[i] == 1 {
                continue;
            }
            let lo = ((min[i] - self.origin[i]) * self.inv_cell).floor();
            let hi = ((max[i] - self.origin[i]) * self.inv_cell).floor();
            let top = (self.dims[i] - 1) as f64;
            c0[i] = lo.clamp(0.0, top) as usize;
            c1[i] = hi.clamp(0.0, top) as usize;
        }
        (c0, c1)
    }

    /// Bounded colliders whose box overlaps `q`, as positions in `self.bounded`, sorted.
    pub fn query<R: Real>(&mut self, q: &Aabb<V>, out: &mut Vec<u32>)
    where
        V: Vector<R>,
    {
        out.clear();
        if !self.use_grid {
            for (k, (_, b)) in self.bounded.iter().enumerate() {
                if b.overlaps(q) {
                    out.push(k as u32);
                }
            }
            return;
        }
        let (qmin, qmax) = (q.min.to_f64_array(), q.max.to_f64_array());
        // Entirely outside the grid: nothing bounded can be hit.
        for i in 0..V::DIM {
            let gmax = self.origin[i] + self.dims[i] as f64 / self.inv_cell;
            if qmax[i] < self.origin[i] || qmin[i] > gmax {
                return;
            }
        }
        self.query_id = self.query_id.wrapping_add(1);
        if self.query_id == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.query_id = 1;
        }
        let (c0, c1) = self.cell_range(qmin, qmax);
        let (dims, qid) = (self.dims, self.query_id);
        let stamp = &mut self.stamp;
        let (items, starts, bounded) = (&self.items, &self.cell_start, &self.bounded);
        for_each_cell(c0, c1, dims, |c| {
            for &k in &items[starts[c] as usize..starts[c + 1] as usize] {
                let slot = bounded[k as usize].0 as usize;
                if stamp[slot] != qid {
                    stamp[slot] = qid;
                    if bounded[k as usize].1.overlaps(q) {
                        out.push(k);
                    }
                }
            }
        });
        out.sort_unstable();
    }
}

#[inline]
fn for_each_cell(c0: [usize; 3], c1: [usize; 3], dims: [usize; 3], mut f: impl FnMut(usize)) {
    for z in c0[2]..=c1[2] {
        for y in c0[1]..=c1[1] {
            for x in c0[0]..=c1[0] {
                f(x + dims[0] * (y + dims[1] * z));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vector2;

    fn bx(x: f64, y: f64, h: f64) -> Aabb<Vector2<f64>> {
        Aabb { min: Vector2::new(x - h, y - h), max: Vector2::new(x + h, y + h) }
    }

    #[test]
    fn grid_query_matches_brute_force() {
        let mut colliders = Vec::new();
        let mut seed = 12345u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for i in 0..60u32 {
            colliders.push((i, Some(bx(rnd() * 40.0 - 20.0, rnd() * 40.0 - 20.0, 0.2 + rnd()))));
        }
        colliders.push((60, None));
        let mut bp = BroadPhase::default();
        bp.rebuild::<f64>(colliders.clone().into_iter(), 61, true);
        assert_eq!(bp.unbounded, vec![60]);
        let mut out = Vec::new();
        for _ in 0..500 {
            let q = bx(rnd() * 50.0 - 25.0, rnd() * 50.0 - 25.0, rnd() * 2.0);
            bp.query::<f64>(&q, &mut out);
            let brute: Vec<u32> = (0..60u32).filter(|&k| bp.bounded[k as usize].1.overlaps(&q)).collect();
            assert_eq!(out, brute);
        }
    }
}
