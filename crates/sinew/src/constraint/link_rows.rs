//! Rows of independent rigid links, projected eight at a time.
//!
//! # Why
//! A crowd of ragdolls is tens of thousands of rigid distance projections per substep,
//! each `C = |x_a − x_b| − L`, `Δλ = −C / (w_a + w_b)`, `x_a += w_a n Δλ`,
//! `x_b −= w_b n Δλ`. One at a time, every projection pays its own square root and
//! division (about 30 cycles of latency) and the CPU overlaps only as many of them as fit
//! in its reorder window.
//!
//! # The method
//! Gauss–Seidel projects the links in a fixed order ([`crate::ConstraintOrder`]). Links
//! that are *consecutive* in that order and share no particle do not read each other's
//! results, so projecting them together gives, bit for bit, what projecting them one after
//! the other gives. The rows are built greedily along the order: a link joins the current
//! row unless the row is full ([`LANES`]) or already touches one of its particles. The
//! sequential order interleaves the world's connected groups (eight ragdolls' bones side
//! by side), so in a crowd nearly every row is full.
//!
//! A row is projected in three passes over its lanes: the differences and squared lengths
//! (gathered from the particles), then the square roots and reciprocals of all lanes in
//! one loop (which the compiler turns into SIMD for `f32` and `f64`), then the corrections
//! (scattered back). The operations on each link are exactly those of
//! [`Distance::solve`](super::Distance::solve) for a rigid link, in the same order, so
//! results do not change.
//!
//! The rows keep their own copy of each link's rest length, denominator and multiplier.
//! [`LinkRows::fill`] refreshes the first two every step, the denominators straight from
//! the particles' inverse masses (for a rigid link [`Distance::prepare`]'s
//! `(1 + γ)(w_a + w_b) + α̃` is exactly `w_a + w_b`), so the links themselves are not
//! prepared; [`LinkRows::store_lambdas`] writes the multipliers back to the links, all of
//! them or only those of the groups an impact pass re-projects
//! ([`LinkRows::store_lambdas_of`]).

use super::Distance;
use crate::arena::Arena;
use crate::dim::{BaseSpace as Space, VecOf};
use crate::math::{Real, Vector};
use crate::particle::ParticleSet;

/// Links per row: eight `f32` lanes are one AVX register.
pub(crate) const LANES: usize = 8;

/// Rows with fewer links are projected one link at a time.
const SHORT_ROW: usize = 3;

/// Up to [`LANES`] rigid links that share no particle, consecutive in projection order.
/// Lanes past `len` are padding: their denominator is 0, so they never move anything.
#[derive(Clone, Debug)]
struct LinkRow<R> {
    /// Distance slots (`u32::MAX` for padding).
    slot: [u32; LANES],
    a: [u32; LANES],
    b: [u32; LANES],
    rest: [R; LANES],
    /// `1 / (w_a + w_b)` for the step; 0 for padding and for links with both ends pinned.
    inv_denom: [R; LANES],
    lambda: [R; LANES],
    len: usize,
}

impl<R: Real> LinkRow<R> {
    fn empty() -> Self {
        Self {
            slot: [u32::MAX; LANES],
            a: [0; LANES],
            b: [0; LANES],
            rest: [R::ZERO; LANES],
            inv_denom: [R::ZERO; LANES],
            lambda: [R::ZERO; LANES],
            len: 0,
        }
    }

    /// Lane `l`'s correction, as [`Distance::solve`] makes it for a rigid link, from the
    /// link's difference `d = x_a − x_b`, its square `l2` and `l2.sqrt_recip()`; a link with
    /// no freedom or no direction is skipped, as there.
    #[inline(always)]
    fn correct<S: Space<Real = R>>(
        &mut self,
        p: &mut ParticleSet<S>,
        l: usize,
        d: VecOf<S>,
        l2: R,
        (len, inv): (R, R),
        eps2: R,
    ) {
        if self.inv_denom[l] == R::ZERO || l2 <= eps2 {
            return;
        }
        let (a, b) = (self.a[l] as usize, self.b[l] as usize);
        let n = d * inv;
        let dl = -(len - self.rest[l]) * self.inv_denom[l];
        self.lambda[l] += dl;
        let (wa, wb) = (p.inv_mass[a], p.inv_mass[b]);
        p.pos[a] += n * (wa * dl);
        p.pos[b] -= n * (wb * dl);
    }

    fn touches(&self, a: u32, b: u32) -> bool {
        (0..self.len).any(|l| self.a[l] == a || self.a[l] == b || self.b[l] == a || self.b[l] == b)
    }
}

/// The world's distance constraints as rows of independent links (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct LinkRows<R> {
    rows: Vec<LinkRow<R>>,
    /// Per distance slot: its row times [`LANES`] plus its lane (`u32::MAX`: in no row).
    lane_of: Vec<u32>,
}

impl<R: Real> LinkRows<R> {
    /// Rebuilds the rows from the projection order (distance slots; empty slots skipped).
    pub(crate) fn build(&mut self, order: &[u32], distances: &Arena<Distance<R>>) {
        self.rows.clear();
        self.lane_of.clear();
        self.lane_of.resize(distances.values.len(), u32::MAX);
        let mut row = LinkRow::empty();
        for &slot in order {
            let Some(Some(c)) = distances.values.get(slot as usize) else { continue };
            if row.len == LANES || row.touches(c.a, c.b) {
                self.rows.push(core::mem::replace(&mut row, LinkRow::empty()));
            }
            let l = row.len;
            self.lane_of[slot as usize] = (self.rows.len() * LANES + l) as u32;
            (row.slot[l], row.a[l], row.b[l]) = (slot, c.a, c.b);
            row.len += 1;
        }
        if row.len > 0 {
            self.rows.push(row);
        }
    }

    /// Copies each link's rest length and computes its step denominator `1 / (w_a + w_b)`
    /// (0 for a link with both ends pinned), which is bit for bit what
    /// [`Distance::prepare`] gives a rigid link. Returns `false`, leaving the rows
    /// part-filled, as soon as a link is not rigid: the world then projects the links one
    /// by one. The rows must have been built from the current links.
    pub(crate) fn fill<S: Space<Real = R>>(&mut self, distances: &Arena<Distance<R>>, p: &ParticleSet<S>) -> bool {
        let w = |k: u32| p.inv_mass.get(k as usize).copied().unwrap_or(R::ZERO);
        for row in &mut self.rows {
            // Padding lanes and removed links keep a sum of 0: a denominator of 0.
            let mut wsum = [R::ZERO; LANES];
            let lanes = row.slot.iter().zip(&row.a).zip(&row.b).zip(&mut row.rest).zip(&mut wsum).take(row.len);
            for ((((&slot, &a), &b), rest), ws) in lanes {
                if let Some(Some(c)) = distances.values.get(slot as usize) {
                    if !c.is_rigid() {
                        return false;
                    }
                    *rest = c.rest;
                    *ws = w(a) + w(b);
                }
            }
            // (One loop over all lanes: SIMD divisions in floating point.)
            for (inv, &w) in row.inv_denom.iter_mut().zip(&wsum) {
                *inv = if w == R::ZERO { R::ZERO } else { R::ONE / w };
            }
        }
        true
    }

    /// Writes the rows' multipliers back to the links.
    pub(crate) fn store_lambdas(&self, distances: &mut Arena<Distance<R>>) {
        for row in &self.rows {
            for l in 0..row.len {
                if let Some(Some(c)) = distances.values.get_mut(row.slot[l] as usize) {
                    c.lambda = row.lambda[l];
                }
            }
        }
    }

    /// Writes the multipliers of the links in `slots` back to them.
    pub(crate) fn store_lambdas_of(&self, slots: &[u32], distances: &mut Arena<Distance<R>>) {
        for &slot in slots {
            let Some(&at) = self.lane_of.get(slot as usize) else { continue };
            let (Some(row), Some(Some(c))) =
                (self.rows.get(at as usize / LANES), distances.values.get_mut(slot as usize))
            else {
                continue;
            };
            c.lambda = row.lambda[at as usize % LANES];
        }
    }

    /// One projection of every link, row after row; `first`: the substep's first iteration
    /// (the multipliers restart at 0).
    #[inline(never)] // a phase of the step
    pub(crate) fn solve<S: Space<Real = R>>(&mut self, p: &mut ParticleSet<S>, first: bool) {
        let eps2 = R::GEOMETRIC_EPSILON * R::GEOMETRIC_EPSILON;
        for row in &mut self.rows {
            if first {
                row.lambda = [R::ZERO; LANES];
            }
            if row.len < SHORT_ROW {
                // A short row (a chain in creation order: each link shares a particle with
                // the next) one link at a time: the lanes' setup would cost more than it
                // overlaps.
                for l in 0..row.len {
                    let d = p.pos[row.a[l] as usize] - p.pos[row.b[l] as usize];
                    let l2 = d.length_squared();
                    row.correct(p, l, d, l2, l2.sqrt_recip(), eps2);
                }
                continue;
            }
            // Gather: differences and squared lengths.
            let mut d = [VecOf::<S>::ZERO; LANES];
            let mut l2 = [R::ZERO; LANES];
            for l in 0..LANES {
                let (a, b) = (row.a[l] as usize, row.b[l] as usize);
                if let (Some(&xa), Some(&xb)) = (p.pos.get(a), p.pos.get(b)) {
                    d[l] = xa - xb;
                    l2[l] = d[l].length_squared();
                }
            }
            // All lanes' square roots and reciprocals in one loop (SIMD in floating point).
            let mut len = [R::ZERO; LANES];
            let mut inv = [R::ZERO; LANES];
            for l in 0..LANES {
                (len[l], inv[l]) = l2[l].sqrt_recip();
            }
            // Scatter: the corrections, in lane order.
            for l in 0..row.len {
                row.correct(p, l, d[l], l2[l], (len[l], inv[l]), eps2);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraint::SubstepContext;
    use crate::dim::Space2;
    use crate::math::Vector2;
    use crate::particle::ParticleDef;

    type S = Space2<f32>;

    /// Twelve "ragdolls" (a spine of five particles, two arms off its second particle; one
    /// pinned particle and one doubled link among them), their links interleaved like the
    /// world's sequential order, with a few orders that make rows break early.
    fn scene() -> (ParticleSet<S>, Arena<Distance<f32>>, Vec<Vec<u32>>) {
        let mut p = ParticleSet::<S>::default();
        let mut links = Arena::default();
        let mut per_group = Vec::new();
        for g in 0..12 {
            let base = p.pos.len();
            for k in 0..7 {
                let (x, y) = (g as f32 * 3.0 + 0.37 * k as f32, (k * k) as f32 * 0.11 - 0.4 * (g % 3) as f32);
                let mass = if g == 4 && k == 0 { 0.0 } else { 1.0 + 0.25 * k as f32 };
                p.insert(&ParticleDef::at(Vector2::new(x, y)).mass(mass));
            }
            let pairs = [(0, 1), (1, 2), (2, 3), (3, 4), (1, 5), (1, 6), (5, 6), (2, 3)];
            let mut slots = Vec::new();
            for (i, &(a, b)) in pairs.iter().enumerate() {
                // Rest lengths off the current ones: every link has something to correct.
                let rest = 0.3 + 0.05 * (i + g) as f32;
                slots.push(links.insert(Distance::new(base + a, base + b, rest, 0.0, 0.0, false)).index);
            }
            per_group.push(slots);
        }
        let interleaved: Vec<u32> =
            per_group.chunks(8).flat_map(|b| (0..8).flat_map(move |i| b.iter().map(move |g| g[i]))).collect();
        let by_group: Vec<u32> = per_group.iter().flatten().copied().collect();
        let reversed: Vec<u32> = interleaved.iter().rev().copied().collect();
        (p, links, vec![interleaved, by_group, reversed])
    }

    #[test]
    fn rows_project_bit_for_bit_like_one_link_after_another() {
        let ctx = SubstepContext::new(1.0 / 240.0);
        let (p0, mut links0, orders) = scene();
        for c in links0.values.iter_mut().flatten() {
            c.prepare(&p0, &ctx);
        }
        for order in orders {
            let (mut seq_p, mut seq_links) = (p0.clone(), links0.clone());
            let (mut row_p, mut row_links) = (p0.clone(), links0.clone());
            let mut rows = LinkRows::default();
            rows.build(&order, &row_links);
            // The denominators come from the particles, not from the prepared links; a
            // compliant link makes the fill give up.
            row_links.values.iter_mut().flatten().for_each(|c| c.inv_denom = 0.0);
            let mut soft = row_links.clone();
            soft.values[order[5] as usize].as_mut().unwrap().compliance = 1e-6;
            assert!(!rows.fill(&soft, &row_p));
            assert!(rows.fill(&row_links, &row_p));
            // No row holds two links that share a particle, and rows keep the order.
            let flat: Vec<u32> = rows.rows.iter().flat_map(|r| r.slot[..r.len].to_vec()).collect();
            assert_eq!(flat, order);
            for r in &rows.rows {
                for i in 0..r.len {
                    for j in 0..i {
                        let (a, b) = (r.a[i], r.b[i]);
                        assert!(a != r.a[j] && a != r.b[j] && b != r.a[j] && b != r.b[j]);
                    }
                }
            }
            for it in 0..3 {
                for &slot in &order {
                    let c = seq_links.values[slot as usize].as_mut().unwrap();
                    if it == 0 {
                        c.lambda = 0.0;
                    }
                    c.solve(&mut seq_p, &ctx);
                }
                rows.solve(&mut row_p, it == 0);
            }
            // Some links' multipliers back, then all of them.
            let some: Vec<u32> = order.iter().copied().step_by(3).collect();
            let before = row_links.clone();
            rows.store_lambdas_of(&some, &mut row_links);
            for (slot, (c, c0)) in row_links.values.iter().zip(&before.values).enumerate() {
                let (c, c0, seq) = (c.unwrap(), c0.unwrap(), seq_links.values[slot].unwrap());
                let stored = if some.contains(&(slot as u32)) { seq.lambda } else { c0.lambda };
                assert_eq!(c.lambda.to_bits(), stored.to_bits());
            }
            rows.store_lambdas(&mut row_links);
            for (a, b) in seq_p.pos.iter().zip(&row_p.pos) {
                assert_eq!((a.x.to_bits(), a.y.to_bits()), (b.x.to_bits(), b.y.to_bits()));
            }
            for (a, b) in seq_links.values.iter().flatten().zip(row_links.values.iter().flatten()) {
                assert_eq!(a.lambda.to_bits(), b.lambda.to_bits());
            }
            // Something moved (the test would pass trivially otherwise).
            assert!(seq_p.pos.iter().zip(&p0.pos).any(|(a, b)| a != b));
        }
    }

    #[test]
    fn rows_break_at_shared_particles_and_fill_eight_lanes() {
        let (_, links, orders) = scene();
        let mut rows = LinkRows::<f32>::default();
        // Interleaved: 12 groups in blocks of 8 and 4; the first block's 64 links are
        // eight full rows.
        rows.build(&orders[0], &links);
        assert!(rows.rows[..8].iter().all(|r| r.len == LANES));
        assert_eq!(rows.rows[8..].iter().map(|r| r.len).sum::<usize>(), 32);
        // In every order, a row ends only when full or when the next link shares one of its
        // particles; one group after another, that is at most three links.
        for order in &orders {
            rows.build(order, &links);
            for w in rows.rows.windows(2) {
                assert!(w[0].len == LANES || w[0].touches(w[1].a[0], w[1].b[0]));
            }
        }
        rows.build(&orders[1], &links);
        assert_eq!(rows.rows.iter().map(|r| r.len).max(), Some(3));
    }
}
