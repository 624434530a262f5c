//! The body contacts' broad phase for a few boxes: sweep and prune along one axis.
//!
//! The boxes are sorted by their low end on one axis; each is then tested against the
//! boxes after it in that order until one starts beyond its high end (no later box can
//! overlap it on that axis). Every overlapping pair is found once, as by the grid
//! (`grid.rs`), and comes out sorted (the grid's pairs are sorted by the caller), so
//! which broad phase ran does not change the pair list — only the work. The sweep finds
//! pairs in no useful order; rather than sort them (about a seventh of a build's work
//! for two fighters, ~200 pairs), each found pair sets its bit in an `n × n` bit matrix
//! (`n ≤` [`SWEEP_MAX_BOXES`]: at most 2 KiB), and the rows are read out in order. For
//! two fighters (~50–110 boxes after pruning) the sweep's sort of the boxes and its tests
//! cost a fraction of the grid's fixed work (a hash table of twice the box-cell entries,
//! cleared, counted and filled every build). The sweep's tests grow
//! as `n²` when every box spans the axis, so it is used only up to [`SWEEP_MAX_BOXES`]
//! boxes; the axis is the one along which the boxes overlap least (the smallest sum of
//! the boxes' extents over the extent of their union). A box that is not finite is left
//! to the grid (which clamps it), so a NaN never loses a pair here.
//!
//! # Groups
//!
//! Boxes of one group never pair (the primitives of one body without self-collision,
//! [`super`], "Who collides"); a box in no group ([`NO_GROUP`]) pairs with every box. Two
//! fighters facing each other overlap along any axis, so one sorted list made the sweep
//! step over every box of a fighter's own body to reach the other's, and test whether to
//! skip each (half the steps, each a branch the CPU could not predict). With up to
//! [`MAX_GROUPS`] groups the boxes are sorted into one list per group instead and each
//! two lists are swept against each other: for lists `A` and `B`, every `a` meets the
//! `b` that start within it (`start_a ≤ start_b ≤ end_a`, a pointer into `B` that only
//! moves forward), and every `b` the `a` that start within it strictly after it
//! (`start_b < start_a ≤ end_b`): each overlapping pair once, and only pairs of different
//! groups are ever visited. The boxes in no group are swept among themselves as one list
//! is, and against every group's list.

use crate::collider::Aabb;
use crate::math::{Real, Vector};

/// Up to this many boxes, the sweep; beyond, the grid.
pub(crate) const SWEEP_MAX_BOXES: usize = 128;

/// A box in no group: it pairs with every box.
pub(crate) const NO_GROUP: u32 = u32::MAX;

/// Up to this many groups (besides [`NO_GROUP`]) the boxes are swept list against list
/// (module docs, "Groups"); beyond, in one list.
pub(crate) const MAX_GROUPS: usize = 8;

/// A box on the sweep axis: its low and high end, and its index.
type Span = (f64, f64, u32);

/// The sweep's working memory (reused step after step).
#[derive(Clone, Debug, Default)]
pub(crate) struct Sweep {
    /// Per box: its low and high end on the sweep axis, and its index.
    order: Vec<Span>,
    /// The groups' ids and, per group, its boxes in `order`'s order (the last list: the
    /// boxes in no group).
    ids: Vec<u32>,
    lists: Vec<Vec<Span>>,
    /// The pairs found: bit `j` of row `i` (`words` words a row) for the pair `(i, j)`.
    found: Vec<u64>,
}

impl Sweep {
    /// Appends to `out` every pair `(i, j)`, `i < j`, of `boxes` that overlap, are not of
    /// one group (`group[k]`, [`NO_GROUP`] for none) and that `accept` takes, sorted,
    /// and returns the number of box pairs tested;
    /// `None`, with `out` untouched, when there are more than [`SWEEP_MAX_BOXES`] boxes or
    /// one is not finite (the grid's cases).
    pub fn pairs<R: Real, V: Vector<R>>(
        &mut self,
        boxes: &[Aabb<V>],
        group: &[u32],
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
        let grouped = |k: u32| group.get(k as usize).copied().unwrap_or(NO_GROUP);
        let mut tests = 0u64;
        let words = boxes.len().div_ceil(64);
        let found = &mut self.found;
        found.clear();
        found.resize(boxes.len() * words, 0);
        let mut test = |i: u32, j: u32| {
            tests += 1;
            if boxes[i as usize].overlaps(&boxes[j as usize]) {
                let (a, b) = (i.min(j), i.max(j));
                if accept(a, b) {
                    found[a as usize * words + (b as usize >> 6)] |= 1 << (b & 63);
                }
            }
        };
        // One list per group (module docs, "Groups"), unless there are too many.
        self.ids.clear();
        let mut too_many = false;
        for &(_, _, k) in &self.order {
            let g = grouped(k);
            if g != NO_GROUP && !self.ids.contains(&g) {
                if self.ids.len() == MAX_GROUPS {
                    too_many = true;
                    break;
                }
                self.ids.push(g);
            }
        }
        if too_many {
            within(&self.order, grouped, &mut test);
        } else {
            by_group(&self.order, &self.ids, &mut self.lists, grouped, &mut test);
        }
        // The pairs in order: row by row, bit by bit.
        for (a, row) in self.found.chunks_exact(words).enumerate() {
            for (w, &bits) in row.iter().enumerate() {
                let mut bits = bits;
                while bits != 0 {
                    out.push((a as u32, (w * 64) as u32 + bits.trailing_zeros()));
                    bits &= bits - 1;
                }
            }
        }
        Some(tests)
    }
}

/// Sweeps each group's list against every other's and the free list, and the free list
/// within itself (module docs, "Groups"): `order` sorted, `ids` its groups (at most
/// [`MAX_GROUPS`]), `lists` reused.
fn by_group(
    order: &[Span],
    ids: &[u32],
    lists: &mut Vec<Vec<Span>>,
    grouped: impl Fn(u32) -> u32,
    test: &mut impl FnMut(u32, u32),
) {
    let n = ids.len() + 1;
    if lists.len() < n {
        lists.resize_with(n, Vec::new);
    }
    for l in lists.iter_mut() {
        l.clear();
    }
    for &span in order {
        let g = grouped(span.2);
        let at = ids.iter().position(|&x| x == g).unwrap_or(n - 1);
        lists[at].push(span);
    }
    let (groups, free) = lists[..n].split_at(n - 1);
    let free = &free[0];
    within(free, |_| NO_GROUP, test);
    for (x, a) in groups.iter().enumerate() {
        for b in groups[x + 1..].iter().chain(core::iter::once(free)) {
            across(a, b, test);
        }
    }
}

/// Every pair of boxes of one list sorted by their low ends that overlap on the sweep
/// axis and are not of one group, once each, passed to `test`: each box against the boxes
/// after it until one starts beyond its high end.
fn within(list: &[Span], grouped: impl Fn(u32) -> u32, test: &mut impl FnMut(u32, u32)) {
    for (n, &(_, end, i)) in list.iter().enumerate() {
        let gi = grouped(i);
        for &(start, _, j) in &list[n + 1..] {
            if start > end {
                break;
            }
            if gi != NO_GROUP && gi == grouped(j) {
                continue;
            }
            test(i, j);
        }
    }
}

/// Every pair of a box of `a` and a box of `b` that overlap on the sweep axis, once each,
/// passed to `test` (both lists sorted by their low ends; module docs, "Groups").
fn across(a: &[Span], b: &[Span], test: &mut impl FnMut(u32, u32)) {
    // `b` starting within `a`: start_a ≤ start_b ≤ end_a.
    let mut from = 0;
    for &(start, end, i) in a {
        while from < b.len() && b[from].0 < start {
            from += 1;
        }
        for &(s, _, j) in &b[from..] {
            if s > end {
                break;
            }
            test(i, j);
        }
    }
    // `a` starting within `b`, strictly after it: start_b < start_a ≤ end_b.
    let mut from = 0;
    for &(start, end, j) in b {
        while from < a.len() && a[from].0 <= start {
            from += 1;
        }
        for &(s, _, i) in &a[from..] {
            if s > end {
                break;
            }
            test(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_GROUPS, NO_GROUP, Sweep};
    use crate::collider::Aabb;
    use crate::math::Vector3;

    #[test]
    fn the_sweep_finds_exactly_the_overlapping_pairs_once_and_in_order() {
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
        // Groups: none; two bodies; two bodies and boxes in no group; more groups than
        // the lists take (one list); every box its own group.
        let layouts: [&dyn Fn(u32) -> u32; 5] = [
            &|_| NO_GROUP,
            &|i| i % 2,
            &|i| if i % 5 == 0 { NO_GROUP } else { i % 3 },
            &|i| i % (MAX_GROUPS as u32 + 3),
            &|i| i,
        ];
        let mut sweep = Sweep::default();
        for layout in layouts {
            let group: Vec<u32> = (0..boxes.len() as u32).map(layout).collect();
            let mut got = Vec::new();
            sweep.pairs(&boxes, &group, |_, _| true, &mut got).unwrap();
            let mut want = Vec::new();
            for i in 0..boxes.len() as u32 {
                for j in i + 1..boxes.len() as u32 {
                    let (gi, gj) = (group[i as usize], group[j as usize]);
                    let one = gi != NO_GROUP && gi == gj;
                    if !one && boxes[i as usize].overlaps(&boxes[j as usize]) {
                        want.push((i, j));
                    }
                }
            }
            assert!(!want.is_empty());
            assert_eq!(got, want);
        }
        // Too many boxes, or one not finite: left to the grid.
        let mut got = Vec::new();
        let mut nan = boxes.clone();
        nan[3].min.x = f64::NAN;
        assert!(Sweep::default().pairs(&nan, &[], |_, _| true, &mut got).is_none());
        let many: Vec<_> = boxes.iter().chain(&boxes).copied().collect();
        assert!(Sweep::default().pairs(&many, &[], |_, _| true, &mut got).is_none());
    }
}
