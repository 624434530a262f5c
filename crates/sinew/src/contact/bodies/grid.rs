//! The body contacts' broad phase: a uniform grid over the primitives' boxes, built once
//! per step, that lists the pairs whose boxes overlap.
//!
//! Each box is entered in every cell it overlaps, as a `(cell key, primitive)` entry; the
//! entries are grouped by a counting sort on a hash of the key into a table of twice as
//! many buckets (reused buffers: no hash map, no allocation in steady state, and linear
//! where a comparison sort was the step's largest cost for two ragdolls), in insertion
//! order within a bucket. Within a bucket every two boxes of the same cell are
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
    /// The entries grouped by cell (bucket by bucket), and the buckets' starts and fill
    /// cursors.
    grouped: Vec<(u64, u32)>,
    starts: Vec<u32>,
    cursor: Vec<u32>,
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
        // No `floor` (a library call, 15 % of a two-ragdoll step): below 0 the cell is 0
        // anyway, and from 0 up the cast's truncation is the floor.
        let c = (x - self.origin[i]) * self.inv_cell;
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
        skip: impl Fn(u32, u32) -> bool,
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
        // Group the entries by cell with a counting sort on a hash of the cell's key: O(n)
        // where a comparison sort of the (key, box) pairs was the largest cost of the
        // step for two ragdolls. A bucket keeps its entries in insertion order (so the
        // result is deterministic) and may hold more than one cell, told apart by key.
        let n = self.entries.len();
        let bits = (2 * n).next_power_of_two().trailing_zeros().max(4);
        let hash = |k: u64| (k.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize;
        let buckets = 1usize << bits;
        self.starts.clear();
        self.starts.resize(buckets + 1, 0);
        for &(k, _) in &self.entries {
            self.starts[hash(k) + 1] += 1;
        }
        for b in 0..buckets {
            self.starts[b + 1] += self.starts[b];
        }
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.starts[..buckets]);
        self.grouped.clear();
        self.grouped.resize(n, (0, 0));
        for &(k, i) in &self.entries {
            let h = hash(k);
            self.grouped[self.cursor[h] as usize] = (k, i);
            self.cursor[h] += 1;
        }
        let mut tests = 0u64;
        for b in 0..buckets {
            let (s, e) = (self.starts[b] as usize, self.starts[b + 1] as usize);
            for u in s..e {
                let (key, i) = self.grouped[u];
                for w in u + 1..e {
                    let (other, j) = self.grouped[w];
                    // Pairs that can never collide (one body without self-collision),
                    // before any geometry: a ragdoll's own bones crowd its cells.
                    if other != key || skip(i, j) {
                        continue;
                    }
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
        }
        // Oversized boxes: against every box (each pair once).
        for (n, &i) in self.big.iter().enumerate() {
            for j in 0..boxes.len() as u32 {
                if j == i || (self.big[..n].contains(&j)) || skip(i, j) {
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
        grid.pairs(&boxes, |_, _| false, |_, _| true, &mut got);
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
