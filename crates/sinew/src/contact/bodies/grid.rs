//! The body contacts' broad phase: a uniform grid over the primitives' boxes, built once
//! per step, that lists the pairs whose boxes overlap.
//!
//! Each box is entered in every cell it overlaps, as a `(cell key, primitive)` entry; the
//! entries are sorted (an in-place sort of a reused buffer: no hash map, no allocation in
//! steady state), so each cell's primitives are one run. Within a run every two boxes are
//! tested, and a pair that overlaps is reported only by the cell that holds the corner
//! `max(min_i, min_j)` of the boxes' intersection — one cell of both, so each pair is
//! reported exactly once without a set of seen pairs. The cell edge is the mean of the
//! boxes' longest sides, so a box spans about `2^d` cells; a box spanning more than
//! [`MAX_CELLS_PER_BOX`] (a very long or very fast primitive) is tested against every
//! other box instead. With boxes about a cell in size and a bounded number of
//! primitives per cell (particles do not overlap each other by much once their contacts
//! act), the tests per step are linear in the primitives; [`PairGrid::box_tests`]
//! counts them (the test `the_cost_of_body_contacts_grows_linearly` measures it).
//!
//! Cell coordinates are computed in `f64` (exact for every supported scalar within the
//! grid's range): only which pairs are tested depends on them, not which pairs are
//! found (every overlapping pair is), and the caller sorts the pairs, so the result is
//! the same on every machine.

use crate::collider::Aabb;
use crate::math::{Real, Vector};

/// A box spanning more cells than this is tested against every box instead.
pub(crate) const MAX_CELLS_PER_BOX: usize = 64;
/// Cells per axis (21 bits each in the key).
const MAX_CELLS_PER_AXIS: f64 = (1u64 << 20) as f64;

/// The grid's working memory (reused step after step).
#[derive(Clone, Debug, Default)]
pub(crate) struct PairGrid {
    entries: Vec<(u64, u32)>,
    big: Vec<u32>,
    /// Box pairs tested in the last build.
    pub box_tests: u64,
}

/// Cell coordinates of a box: `[lo, hi]` per axis.
struct Layout {
    origin: [f64; 3],
    inv_cell: f64,
    dim: usize,
}

impl Layout {
    #[inline]
    fn cell(&self, x: f64, i: usize) -> u64 {
        let c = ((x - self.origin[i]) * self.inv_cell).floor();
        // Clamped: a box beyond the range shares the last cell (tested, never missed).
        if c.is_nan() || c < 0.0 { 0 } else { (c as u64).min(MAX_CELLS_PER_AXIS as u64 - 1) }
    }
    #[inline]
    fn range<R: Real, V: Vector<R>>(&self, b: &Aabb<V>) -> [(u64, u64); 3] {
        let mut r = [(0, 0); 3];
        for (i, ri) in r.iter_mut().enumerate().take(self.dim) {
            *ri = (self.cell(b.min.get(i).to_f64(), i), self.cell(b.max.get(i).to_f64(), i));
        }
        r
    }
    #[inline]
    fn key(c: [u64; 3]) -> u64 {
        c[0] | (c[1] << 21) | (c[2] << 42)
    }
}

impl PairGrid {
    /// Appends to `out` every pair `(i, j)`, `i < j`, of `boxes` that overlap and that
    /// `accept` takes, once each (in no particular order: the caller sorts).
    pub fn pairs<R: Real, V: Vector<R>>(
        &mut self,
        boxes: &[Aabb<V>],
        mut accept: impl FnMut(u32, u32) -> bool,
        out: &mut Vec<(u32, u32)>,
    ) {
        self.entries.clear();
        self.big.clear();
        self.box_tests = 0;
        if boxes.len() < 2 {
            return;
        }
        let dim = V::DIM;
        let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
        let mut side = 0.0;
        for b in boxes {
            let mut longest = 0.0f64;
            for i in 0..dim {
                let (a, z) = (b.min.get(i).to_f64(), b.max.get(i).to_f64());
                lo[i] = lo[i].min(a);
                hi[i] = hi[i].max(z);
                longest = longest.max(z - a);
            }
            side += longest;
        }
        let mut cell = side / boxes.len() as f64;
        for i in 0..dim {
            cell = cell.max((hi[i] - lo[i]) / MAX_CELLS_PER_AXIS);
        }
        if !(cell > 0.0 && cell.is_finite()) {
            cell = 1.0;
        }
        let grid = Layout { origin: lo, inv_cell: 1.0 / cell, dim };
        for (k, b) in boxes.iter().enumerate() {
            let r = grid.range(b);
            let count: u64 = r.iter().take(dim).map(|&(a, z)| z - a + 1).product();
            if count > MAX_CELLS_PER_BOX as u64 {
                self.big.push(k as u32);
                continue;
            }
            for x in r[0].0..=r[0].1 {
                for y in r[1].0..=r[1].1 {
                    for z in r[2].0..=r[2].1 {
                        self.entries.push((Layout::key([x, y, z]), k as u32));
                    }
                }
            }
        }
        self.entries.sort_unstable();
        let mut tests = 0u64;
        let mut s = 0;
        while s < self.entries.len() {
            let key = self.entries[s].0;
            let mut e = s + 1;
            while e < self.entries.len() && self.entries[e].0 == key {
                e += 1;
            }
            for u in s..e {
                let i = self.entries[u].1;
                for w in u + 1..e {
                    let j = self.entries[w].1;
                    tests += 1;
                    let (bi, bj) = (&boxes[i as usize], &boxes[j as usize]);
                    if !bi.overlaps(bj) {
                        continue;
                    }
                    // Reported by the cell of the intersection's low corner only.
                    let corner = bi.min.max_elem(bj.min);
                    let mut home = [0u64; 3];
                    for (a, h) in home.iter_mut().enumerate().take(dim) {
                        *h = grid.cell(corner.get(a).to_f64(), a);
                    }
                    if Layout::key(home) != key {
                        continue;
                    }
                    let (a, b) = (i.min(j), i.max(j));
                    if accept(a, b) {
                        out.push((a, b));
                    }
                }
            }
            s = e;
        }
        // Oversized boxes: against every box (each pair once).
        for (n, &i) in self.big.iter().enumerate() {
            for j in 0..boxes.len() as u32 {
                if j == i || (self.big[..n].contains(&j)) {
                    continue;
                }
                tests += 1;
                if boxes[i as usize].overlaps(&boxes[j as usize]) {
                    let (a, b) = (i.min(j), i.max(j));
                    if accept(a, b) {
                        out.push((a, b));
                    }
                }
            }
        }
        self.box_tests = tests;
    }
}

#[cfg(test)]
mod tests {
    use super::PairGrid;
    use crate::collider::Aabb;
    use crate::math::{Vector, Vector2};

    #[test]
    fn the_grid_finds_exactly_the_overlapping_pairs_once() {
        let mut seed = 3u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let boxes: Vec<Aabb<Vector2<f64>>> = (0..300)
            .map(|i| {
                let c = Vector2::new(rnd() * 10.0, rnd() * 10.0);
                // A few long boxes go to the oversized list.
                let h = if i % 50 == 0 { Vector2::new(4.0, 0.1) } else { Vector2::splat(0.05 + 0.3 * rnd()) };
                Aabb { min: c - h, max: c + h }
            })
            .collect();
        let mut grid = PairGrid::default();
        let mut got = Vec::new();
        grid.pairs(&boxes, |_, _| true, &mut got);
        got.sort_unstable();
        let mut want = Vec::new();
        for i in 0..boxes.len() as u32 {
            for j in i + 1..boxes.len() as u32 {
                if boxes[i as usize].overlaps(&boxes[j as usize]) {
                    want.push((i, j));
                }
            }
        }
        assert_eq!(got, want);
        assert!(grid.box_tests < (300 * 299 / 2) / 4, "{} tests", grid.box_tests);
    }
}
