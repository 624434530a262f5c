//! One iteration of a [pose drive](super): every part's rows solved together and turned,
//! in part order (Gauss–Seidel), on the substeps the drive runs on.
//!
//! (The substeps it runs on: the [drive's module docs](super), "Drive rate".)
//!
//! # What one solve measures once
//!
//! A part is asked for by itself and by each of its children (a chest with four), and each
//! of those solves turns it. Measuring everything again from the particles every time
//! (three orientations from frame nodes, two inertia tensors and three centres per part)
//! was half a fighter's frame, so a solve keeps, per part (up to [`CACHED`] parts, on the
//! stack):
//!
//! - **its orientation at the substep's start** (`prev` does not move during a solve):
//!   exact;
//! - **its current orientation**, measured on first use and then carried through the
//!   solve's turns: a turn `r` about the part's centre rotates all of its free frame nodes
//!   rigidly, so the frame becomes `exp(r)·q` — the exact update up to rounding. The pair
//!   being solved (part and parent) is updated that way after its turns; a part with a
//!   pinned frame node is measured again instead. The turn of a part also moves the nodes
//!   it shares with its parent (a neck, a shoulder), which are frame nodes of the other:
//!   that non-rigid part of the motion, a few millimetres that the bones take back, is
//!   *not* carried into the pair's cached orientations; every **other** part whose frame
//!   holds a node the pair moved (`Part::moves_frames`, from the rig at build) is measured
//!   again when next asked for;
//! - **its inertia** (prepared for `I⁻¹a`), computed exactly when the part is solved and
//!   reused when its children push back on it. Between the two it has turned by its
//!   children's small corrections, so a child sees its parent's effective mass a little
//!   stale (by the rotation of a few substep corrections); the turns stay opposite
//!   impulses in that tensor. The centres are measured where they are used, so a turn
//!   never moves a part's mass.
//!
//! These change the solve's rounding and, within one substep, what a part reads of its
//! parent, not the method: the drive's step-response tests hold to the same 2 %.

use crate::controller::SubstepSolver;
use crate::math::{Real, Rotation};
use crate::particle::{ParticleHandle, ParticleSet};
use crate::space::{RealOf, RotOf, VecOf};

use super::PoseDrive;
use crate::ragdoll::drive_math::{centre, inertia, solve_small, turn};
use crate::ragdoll::frame::DriveSpace;

impl<S: DriveSpace> PoseDrive<S> {
    /// One constraint iteration: every part's rows, in part order (Gauss–Seidel).
    pub(super) fn solve_all(&mut self, s: &mut SubstepSolver<'_, S>) {
        let zero = RealOf::<S>::ZERO;
        // The drive rate (module docs): the substeps in runs of `k`, the drive solved once
        // in the middle of each run, standing for the run's `span` substeps.
        let every = self.substep_interval.max(1);
        let start = s.substep - s.substep % every;
        let span = every.min(s.substeps.saturating_sub(start)).max(1);
        if s.substep != start + (span - 1) / 2 {
            return;
        }
        if s.iteration == 0 {
            for p in &mut self.parts {
                p.lambda = [zero; 3];
            }
        }
        let g = self.reaction.strength();
        if g == zero {
            return;
        }
        let blend = self.reaction.blend();
        let cap = self.correction_cap().map(|c| run_cap(c, span));
        let (h, h2) = (s.ctx.h, s.ctx.h * s.ctx.h);
        // The kicks' speed limit as a turn per solve (module docs, "Drive rate").
        let max_turn = if span > 1 { self.max_kick_speed.map(|w| w * h) } else { None };
        // The spring's and damper's `h²`, `h` for a solve standing for `span` substeps
        // (`span = 1`: the same values, bit for bit).
        let (kh2, bh) = if span == 1 {
            (h2, h)
        } else {
            let m = RealOf::<S>::from_i32(span as i32);
            (h2 * m, h * m)
        };
        // Orientations and inertias measured once per solve (module docs).
        let mut cache = SolveCache::<S>::new();
        for i in 0..self.parts.len() {
            let p = &self.parts[i];
            let st = g * p.strength;
            if !p.alive || st == zero || (p.stiffness == zero && p.damping == zero) {
                continue;
            }
            let parent = p.parent.map(|j| j as usize);
            if parent.is_some_and(|j| !self.parts[j].alive) {
                continue;
            }
            let ps = &*s.particles;
            let (Some(q), Some(q0)) = (cache.now(self, &ps.pos, i), cache.prev(self, &ps.prev, i)) else {
                continue;
            };
            let (qp, qp0) = match parent {
                None => (RotOf::<S>::IDENTITY, RotOf::<S>::IDENTITY),
                Some(j) => match (cache.now(self, &ps.pos, j), cache.prev(self, &ps.prev, j)) {
                    (Some(a), Some(b)) => (a, b),
                    _ => continue,
                },
            };
            let rel = match blend {
                Some(t) => p.from.nlerp(p.target, t),
                None => p.target,
            };
            let goal = qp.compose(rel);
            let (rows, n) = S::rows(q, goal, qp, p.rest_dir, p.full, self.axes, p.twist_scale);
            let rate = S::angular_add(
                S::log(q.compose(S::inverse(q0))),
                S::angular_add(
                    S::angular_scale(S::log(qp.compose(S::inverse(qp0))), -RealOf::<S>::ONE),
                    S::angular_scale(S::rotate_angular(qp, p.target_velocity), -h),
                ),
            );
            let Some(c) = centre(ps, &p.nodes) else { continue };
            let (mut turn_i, mut turn_p) = (S::angular_zero(), S::angular_zero());
            let mut lambda = p.lambda;
            let ti = S::inertia_prepare(&inertia(ps, &p.nodes, c));
            cache.set_inertia(i, ti);
            let tp = parent.and_then(|j| cache.inertia(ps, &self.parts[j].nodes, j));
            // Per row: the turn per unit angular impulse about its axis, I⁻¹a (part and
            // parent), and the row's right-hand side.
            let mut gi = [S::angular_zero(); 3];
            let mut gp = [S::angular_zero(); 3];
            let mut gs = [S::angular_zero(); 3];
            let mut reg = [zero; 3];
            let mut rhs = [zero; 3];
            for (k, row) in rows[..n].iter().enumerate() {
                gi[k] = S::inertia_apply(&ti, row.axis);
                gp[k] = tp.map_or(S::angular_zero(), |t| S::inertia_apply(&t, row.axis));
                let (wi, wp) = (S::angular_dot(row.axis, gi[k]), S::angular_dot(row.axis, gp[k]));
                if self.inertia_ratio > zero && wi > zero && wp > zero {
                    // I' = max(I, I_other/ρ) ⇔ w' = min(w, ρ·w_other).
                    gi[k] = S::angular_scale(gi[k], wi.min(self.inertia_ratio * wp) / wi);
                    gp[k] = S::angular_scale(gp[k], wp.min(self.inertia_ratio * wi) / wp);
                }
                let mut kk = st * p.stiffness * row.scale * kh2;
                let mut bb = st * p.damping * row.scale * bh;
                // Stiffness cap: at most a fraction κ of the error is corrected per
                // iteration, q·h²·w ≤ κ/(1 − κ) (see the module docs, "High gains").
                gs[k] = S::angular_add(gi[k], gp[k]);
                let w = S::angular_dot(row.axis, gs[k]);
                if let Some(cap) = cap
                    && (kk + bb) * w > cap
                {
                    let f = cap / ((kk + bb) * w);
                    (kk, bb) = (kk * f, bb * f);
                }
                reg[k] = kk + bb;
                rhs[k] = kk * row.error - lambda[k] - bb * S::angular_dot(rate, row.axis);
            }
            // The rows are coupled through the inertia (aₖᵀI⁻¹aⱼ ≠ 0 off the principal
            // axes): solve them together, (1 + diag(q h² + p h)·W)·Δλ = rhs with
            // Wₖⱼ = aₖ·(I_part⁻¹ + I_parent⁻¹)aⱼ, so a stiff drive projects exactly instead of
            // overshooting as separate rows would.
            let mut m = [[zero; 3]; 3];
            for k in 0..n {
                for j in 0..n {
                    let wkj = S::angular_dot(rows[k].axis, gs[j]);
                    m[k][j] = reg[k] * wkj + if k == j { RealOf::<S>::ONE } else { zero };
                }
            }
            let Some(mut dl) = solve_small(m, rhs, n) else { continue };
            if let Some(limit) = max_turn {
                limit_kick::<S>(&mut dl[..n], (&gi[..n], &gp[..n]), limit);
            }
            for k in 0..n {
                if !dl[k].is_finite() {
                    continue;
                }
                lambda[k] += dl[k];
                turn_i = S::angular_add(turn_i, S::angular_scale(gi[k], dl[k]));
                turn_p = S::angular_add(turn_p, S::angular_scale(gp[k], -dl[k]));
            }
            self.parts[i].lambda = lambda;
            let ri = turn(s.particles, &self.parts[i].nodes, c, turn_i);
            cache.turned(self, s.particles, i, ri);
            let mut moved = self.parts[i].moves_frames;
            // The parent turns about its centre *after* the part's turn: a particle the two
            // share (a neck) has moved, and a stale centre would move the parent's mass.
            if let Some(j) = parent
                && let Some(cp) = centre(s.particles, &self.parts[j].nodes)
            {
                let rp = turn(s.particles, &self.parts[j].nodes, cp, turn_p);
                cache.turned(self, s.particles, j, rp);
                moved |= self.parts[j].moves_frames;
            }
            // Other parts whose frames hold a node the pair moved are measured again.
            cache.forget(moved & !(bit(i) | parent.map_or(0, bit)));
        }
    }
}

/// Scales the impulses `dl` of one solve down so that neither the part's turn `Σ gᵢ dlᵢ`
/// nor the parent's `Σ gₚ dlᵢ` is longer than `limit` (rad; module docs, "Drive rate").
fn limit_kick<S: DriveSpace>(dl: &mut [RealOf<S>], (gi, gp): (&[S::Angular], &[S::Angular]), limit: RealOf<S>) {
    let (mut ti, mut tp) = (S::angular_zero(), S::angular_zero());
    for (k, &d) in dl.iter().enumerate() {
        ti = S::angular_add(ti, S::angular_scale(gi[k], d));
        tp = S::angular_add(tp, S::angular_scale(gp[k], d));
    }
    let longest = S::angular_dot(ti, ti).max(S::angular_dot(tp, tp)).sqrt();
    if longest > limit {
        let f = limit / longest;
        for d in dl.iter_mut() {
            *d *= f;
        }
    }
}

/// Part `k`'s bit in a [`SolveCache`] mask (0 beyond [`CACHED`]: never cached).
fn bit(k: usize) -> u32 {
    if k < CACHED { 1 << k } else { 0 }
}

/// What one solve measures once per part (see the module docs): the orientation at the
/// substep's start, the current orientation carried through the solve's turns, and the
/// prepared inertia. Up to [`CACHED`] parts are kept on the stack; beyond, each is
/// measured when asked.
struct SolveCache<S: DriveSpace> {
    prev: [Option<Option<RotOf<S>>>; CACHED],
    now: [Option<Option<RotOf<S>>>; CACHED],
    inertia: [Option<Option<S::InertiaSolver>>; CACHED],
}

/// Parts a [`SolveCache`] holds (at most 32: `Part::moves_frames` is a
/// `u32` mask).
pub(super) const CACHED: usize = 24;

impl<S: DriveSpace> SolveCache<S> {
    fn new() -> Self {
        Self { prev: [None; CACHED], now: [None; CACHED], inertia: [None; CACHED] }
    }

    /// Part `i`'s orientation from `prev` (exact: `prev` does not move during a solve).
    fn prev(&mut self, d: &PoseDrive<S>, prev: &[VecOf<S>], i: usize) -> Option<RotOf<S>> {
        match self.prev.get_mut(i) {
            Some(Some(q)) => *q,
            Some(slot) => *slot.insert(d.orientation_from(prev, i)),
            None => d.orientation_from(prev, i),
        }
    }

    /// Part `i`'s current orientation: measured on first use (or after [`Self::forget`]),
    /// then carried by [`Self::turned`].
    fn now(&mut self, d: &PoseDrive<S>, pos: &[VecOf<S>], i: usize) -> Option<RotOf<S>> {
        match self.now.get_mut(i) {
            Some(Some(q)) => *q,
            Some(slot) => *slot.insert(d.orientation_from(pos, i)),
            None => d.orientation_from(pos, i),
        }
    }

    /// Part `i` turned by `r` about its centre: its cached orientation becomes `r·q` when
    /// every frame node is free (all of them turned), else it is measured again.
    fn turned(&mut self, d: &PoseDrive<S>, ps: &ParticleSet<S>, i: usize, r: Option<RotOf<S>>) {
        let (Some(r), Some(slot)) = (r, self.now.get_mut(i)) else { return };
        let zero = RealOf::<S>::ZERO;
        *slot = match *slot {
            Some(Some(q)) if d.parts[i].frame.iter().all(|h| ps.inv_mass[h.index()] != zero) => {
                Some(Some(r.compose(q)))
            }
            _ => None,
        };
    }

    /// Drops the current orientations of the parts in `mask` (bit `k`: part `k`).
    fn forget(&mut self, mut mask: u32) {
        while mask != 0 {
            self.now[mask.trailing_zeros() as usize] = None;
            mask &= mask - 1;
        }
    }

    /// Part `i`'s prepared inertia, as computed when it was solved (or now, about its
    /// centre, if it was not); `None` when it cannot turn.
    fn inertia(&mut self, ps: &ParticleSet<S>, nodes: &[ParticleHandle], i: usize) -> Option<S::InertiaSolver> {
        let measure = || centre(ps, nodes).map(|c| S::inertia_prepare(&inertia(ps, nodes, c)));
        match self.inertia.get_mut(i) {
            Some(Some(t)) => *t,
            Some(slot) => *slot.insert(measure()),
            None => measure(),
        }
    }

    /// Part `i`'s inertia as its own solve computed it.
    fn set_inertia(&mut self, i: usize, t: S::InertiaSolver) {
        if let Some(slot) = self.inertia.get_mut(i) {
            *slot = Some(Some(t));
        }
    }
}

/// The cap `κ/(1 − κ)` of one substep's solve made that of a solve standing for `span`
/// substeps: the fraction of the error the `span` capped solves it replaces would have
/// corrected, `κ_m = 1 − (1 − κ)^m`, as its ratio `κ_m/(1 − κ_m) = (1 + c)^m − 1`
/// (`c = κ/(1 − κ)`). Without it a drive solved once per step of 8 substeps corrected at
/// most half its error per frame, where every substep corrects all but 1/256 of it, and
/// stiff fighters sagged 17 cm at the head. `span = 1` gives `c` bit for bit; the power
/// stops growing past 2²⁰ (no cap left to speak of; fixed point stays in range).
fn run_cap<R: Real>(c: R, span: u32) -> R {
    if span <= 1 {
        return c;
    }
    let (one, big) = (R::ONE, R::from_i32(1 << 20));
    let mut p = one;
    for _ in 0..span {
        p *= one + c;
        if p > big {
            break;
        }
    }
    p - one
}

#[cfg(test)]
mod tests {
    use super::{limit_kick, run_cap};
    use crate::math::{Fx, Real, Vector, Vector3};
    use crate::space::Space3;

    #[test]
    fn a_kick_is_scaled_to_its_turn_limit_and_no_further() {
        let gi = [Vector3::new(2.0, 0.0, 0.0), Vector3::new(0.0, 1.0, 0.5)];
        let gp = [Vector3::new(-0.5, 0.0, 0.0), Vector3::new(0.0, -3.0, 0.0)];
        let turn = |dl: &[f64], g: &[Vector3<f64>]| (g[0] * dl[0] + g[1] * dl[1]).length();
        // The parent's turn (3·0.2 = 0.6 rad) is the longer: scaled to 0.05, in proportion.
        let mut dl = [0.01, 0.2];
        limit_kick::<Space3<f64>>(&mut dl, (&gi, &gp), 0.05);
        assert!((turn(&dl, &gp) - 0.05).abs() < 1e-12, "{dl:?}");
        assert!(turn(&dl, &gi) < 0.05);
        assert!((dl[1] / dl[0] - 20.0).abs() < 1e-9, "the impulses keep their ratio: {dl:?}");
        // Within the limit: untouched, bit for bit.
        let mut small = [0.001, 0.002];
        limit_kick::<Space3<f64>>(&mut small, (&gi, &gp), 0.05);
        assert_eq!(small, [0.001, 0.002]);
    }

    #[test]
    fn a_run_cap_stands_for_the_capped_solves_it_replaces() {
        // κ = ½: c = 1. One substep: c itself; 8: all but 2⁻⁸ corrected, (1 + 1)⁸ − 1.
        assert_eq!(run_cap(1.0f64, 1), 1.0);
        assert_eq!(run_cap(1.0f64, 8), 255.0);
        // κ = 0.2: c = 0.25; 3 solves leave 0.8³ = 0.512, so κ₃ = 0.488 and c₃ = 0.488/0.512.
        assert!((run_cap(0.25f64, 3) - 0.488 / 0.512).abs() < 1e-12);
        // The power stops past 2²⁰: no overflow in fixed point at any run length.
        let big = run_cap(Fx::ONE, u32::MAX);
        assert!(big > Fx::from_i32(1 << 20) - Fx::ONE && big <= Fx::from_i32(1 << 21));
        assert_eq!(run_cap(Fx::ONE, 1), Fx::ONE);
    }
}
