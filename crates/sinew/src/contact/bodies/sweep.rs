//! The body contacts' broad phase for a few boxes: sweep and prune along one axis.
//!
//! The boxes are sorted by their low end on one axis; each is then tested against the
//! boxes after it in that order until one starts beyond its high end (no later box can
//! overlap it on that axis). Every overlapping pair is found once, as by the grid
//! (`grid.rs`), and the caller sorts the pairs, so which broad phase ran does not change
//! the pair list — only the work. For two fighters (~50–110 boxes after pruning) the
//! sort and the sweep cost a fraction of the grid's fixed work (a hash table of twice
//! the box-cell entries, cleared, counted and filled every build). The sweep's tests grow
//! as `n²` when every box spans the axis, so it is used only up to [`SWEEP_MAX_BOXES`]
//! boxes; the axis is the one along which the boxes overlap least (the smallest sum of
//! the boxes' extents over the extent of their union). A box that is not finite is left
//! to the grid (which clamps it), so a NaN never loses a pair here.

use crate::collider::Aabb;
use crate::math::{Real, Vector};

/// Up to this many boxes, the sweep; beyond, the grid.
pub(crate) const SWEEP_MAX_BOXES: usize = 128;

/// The sweep's working memory (reused step after step).
#[derive(Clone, Debug, Default)]
pub(crate) struct Sweep {
    /// Per box: its low and high end on the sweep axis, and its index.
    order: Vec<(f64, f64, u32)>,
}

impl Sweep {
    /// Appends to `out` every pair `(i, j)`, `i < j`, of `boxes` that overlap and that
    /// `accept` takes (in no particular order: the caller sorts), and returns the number
    /// of box pairs tested; `None`, with `out` untouched, when there are more than
    /// [`SWEEP_MAX_BOXES`] boxes or one is not finite (the grid's cases).
    pub fn pairs<R: Real, V: Vector<R>>(
        &mut self,
        boxes: &[Aabb<V>],
        skip: impl Fn(u32, u32) -> bool,
        mut accept: impl FnMut(u32, u32) -> bool,
        out: &mut Vec<(u32, u32)>,
    ) -> Option<u64> {
        if boxes.len() > SWEEP_MAX_BOXES || !boxes.iter().all(|b| b.min.is_finite() && b.max.is_finite()) {
            return None;
        }
        if boxes.len() < 2 {
            return Some(0);
        }
        // The axis along which the boxes overlap least.
        let (mut axis, mut best) = (0, f64::MAX);
        for i in 0..V::DIM {
            let (mut lo, mut hi, mut sum) = (f64::MAX, f64::MIN, 0.0);
            for b in boxes {
                let (a, z) = (b.min.get(i).to_f64(), b.max.get(i).to_f64());
                lo = lo.min(a);
                hi = hi.max(z);
                sum += z - a;
            }
            let crowd = if hi > lo { sum / (hi - lo) } else { f64::MAX };
            if crowd < best {
                (axis, best) = (i, crowd);
            }
        }
        // Sorted by the low end on the axis, in `f64` (rounding is monotonic, so a box
        // whose rounded low end is past another's rounded high end is past it exactly:
        // the early stop below never skips an overlap). Ties in index order.
        self.order.clear();
        self.order.extend(
            boxes.iter().enumerate().map(|(k, b)| (b.min.get(axis).to_f64(), b.max.get(axis).to_f64(), k as u32)),
        );
        self.order.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.2.cmp(&y.2)));
        let mut tests = 0u64;
        for (n, &(_, end, i)) in self.order.iter().enumerate() {
            let bi = &boxes[i as usize];
            for &(start, _, j) in &self.order[n + 1..] {
                if start > end {
                    break;
                }
                if skip(i, j) {
                    continue;
                }
                tests += 1;
                let bj = &boxes[j as usize];
                if bi.overlaps(bj) {
                    let (a, b) = (i.min(j), i.max(j));
                    if accept(a, b) {
                        out.push((a, b));
                    }
                }
            }
        }
        Some(tests)
    }
}

#[cfg(test)]
mod tests {
    use super::Sweep;
    use crate::collider::Aabb;
    use crate::math::Vector3;

    #[test]
    fn the_sweep_finds_exactly_the_overlapping_pairs_once() {
        let mut seed = 7u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let boxes: Vec<Aabb<Vector3<f64>>> = (0..120)
            .map(|i| {
                let c = Vector3::new(rnd() * 2.0, rnd() * 1.8, rnd() * 0.6);
                // Some boxes share a low end (ties in the sort).
                let c = if i % 10 == 0 { Vector3::new(0.5, c.y, c.z) } else { c };
                let h = Vector3::new(0.05 + 0.2 * rnd(), 0.05 + 0.3 * rnd(), 0.05 + 0.1 * rnd());
                Aabb { min: c - h, max: c + h }
            })
            .collect();
        let mut got = Vec::new();
        let skip = |i: u32, j: u32| (i + j) % 7 == 0;
        Sweep::default().pairs(&boxes, skip, |_, _| true, &mut got).unwrap();
        got.sort_unstable();
        let mut want = Vec::new();
        for i in 0..boxes.len() as u32 {
            for j in i + 1..boxes.len() as u32 {
                if !skip(i, j) && boxes[i as usize].overlaps(&boxes[j as usize]) {
                    want.push((i, j));
                }
            }
        }
        assert!(!want.is_empty());
        assert_eq!(got, want);
        // Too many boxes, or one not finite: left to the grid.
        let mut nan = boxes.clone();
        nan[3].min.x = f64::NAN;
        assert!(Sweep::default().pairs(&nan, |_, _| false, |_, _| true, &mut got).is_none());
        let many: Vec<_> = boxes.iter().chain(&boxes).copied().collect();
        assert!(Sweep::default().pairs(&many, |_, _| false, |_, _| true, &mut got).is_none());
    }
}
