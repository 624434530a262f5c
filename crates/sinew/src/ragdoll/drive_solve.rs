//! One iteration of a [pose drive](super): every part's rows solved together and turned,
//! in part order (Gauss–Seidel), on the substeps the drive runs on.
//!
//! (The substeps it runs on: the [drive's module docs](super), "Drive rate".)

use crate::controller::SubstepSolver;
use crate::math::{Real, Rotation};
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
        if s.substep != start + span / 2 {
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
        let cap = self.correction_cap();
        let (h, h2) = (s.ctx.h, s.ctx.h * s.ctx.h);
        // The spring's and damper's `h²`, `h` for a solve standing for `span` substeps
        // (`span = 1`: the same values, bit for bit).
        let (kh2, bh) = if span == 1 {
            (h2, h)
        } else {
            let m = RealOf::<S>::from_i32(span as i32);
            (h2 * m, h * m)
        };
        // The orientations at the substep's start (`prev` does not move during the solve),
        // each computed once rather than once per child as well.
        let mut prev = PrevOrientations::<S>::new();
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
            let (Some(q), Some(q0)) = (self.orientation_from(&ps.pos, i), prev.get(self, &ps.prev, i)) else {
                continue;
            };
            let (qp, qp0) = match parent {
                None => (RotOf::<S>::IDENTITY, RotOf::<S>::IDENTITY),
                Some(j) => match (self.orientation_from(&ps.pos, j), prev.get(self, &ps.prev, j)) {
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
            let cp = parent.and_then(|j| centre(ps, &self.parts[j].nodes));
            let (mut turn_i, mut turn_p) = (S::angular_zero(), S::angular_zero());
            let mut lambda = p.lambda;
            let ti = S::inertia_prepare(&inertia(ps, &p.nodes, c));
            let tp = match (parent, cp) {
                (Some(j), Some(cp)) => Some(S::inertia_prepare(&inertia(ps, &self.parts[j].nodes, cp))),
                _ => None,
            };
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
            let Some(dl) = solve_small(m, rhs, n) else { continue };
            for k in 0..n {
                if !dl[k].is_finite() {
                    continue;
                }
                lambda[k] += dl[k];
                turn_i = S::angular_add(turn_i, S::angular_scale(gi[k], dl[k]));
                turn_p = S::angular_add(turn_p, S::angular_scale(gp[k], -dl[k]));
            }
            self.parts[i].lambda = lambda;
            turn(s.particles, &self.parts[i].nodes, c, turn_i);
            // The parent turns about its centre *after* the part's turn: a particle the two
            // share (a neck) has moved, and a stale centre would move the parent's mass.
            if let Some(j) = parent
                && let Some(cp) = centre(s.particles, &self.parts[j].nodes)
            {
                turn(s.particles, &self.parts[j].nodes, cp, turn_p);
            }
        }
    }
}

/// Parts' orientations from `prev`, computed on first use within one solve (a parent's
/// is asked for by each of its children). Up to [`PREV_CACHED`] parts are
/// kept on the stack; beyond, each is computed when asked.
struct PrevOrientations<S: DriveSpace> {
    cached: [Option<Option<RotOf<S>>>; PREV_CACHED],
}

const PREV_CACHED: usize = 24;

impl<S: DriveSpace> PrevOrientations<S> {
    fn new() -> Self {
        Self { cached: [None; PREV_CACHED] }
    }

    fn get(&mut self, d: &PoseDrive<S>, prev: &[VecOf<S>], i: usize) -> Option<RotOf<S>> {
        match self.cached.get_mut(i) {
            Some(Some(q)) => *q,
            Some(slot) => *slot.insert(d.orientation_from(prev, i)),
            None => d.orientation_from(prev, i),
        }
    }
}
