//! Exact chain solve: all of a rope's distance constraints at once, in O(n).
//!
//! # Why
//! Gauss–Seidel projects one link at a time. A correction made at a pinned end reaches
//! the far end only after as many sweeps as there are links, so a long rope pulled hard
//! stretches: on a 40-segment rope pulled apart at 5 m/s, one sweep per substep leaves
//! ~20 % stretch (~11 % with tethers). Solving the links *together* removes the
//! propagation delay (Deul, Kugelstadt & Bender 2018, "Direct Position-Based Solver for
//! Stiff Rods"; the same idea as Obi's chain constraints).
//!
//! # The method
//! For segment `j` between particles `j` and `j+1`, `C_j = |x_j − x_{j+1}| − L_j` with
//! unit direction `n_j`. One XPBD/Newton step solves the linear system for all `Δλ`:
//!
//! ```text
//! (J M⁻¹ Jᵀ + α̃) Δλ = −C − α̃ λ
//! A_jj     = w_j + w_{j+1} + α̃
//! A_j,j+1  = −w_{j+1} (n_j · n_{j+1})          (the particle the two links share)
//! ```
//!
//! The matrix is tridiagonal and (weakly) diagonally dominant, so the Thomas algorithm
//! solves it exactly in O(n) without pivoting. Positions then move by
//! `Δx_j = w_j (n_j Δλ_j − n_{j−1} Δλ_{j−1})`. A link whose two particles are both pinned
//! has no freedom; its row becomes `Δλ = 0`. With one Newton step per substep the
//! remaining error is only the linearisation's (second order in the motion per substep),
//! small at the default 8 substeps. When links turn a lot within one substep (a rope
//! snapping taut) the step is repeated — re-linearised at the new positions — until the
//! worst link is within 0.1 % of its rest length or four steps have run; a rope at rest
//! pays for one.

use crate::constraint::SubstepContext;
use crate::math::{Real, Vector};
use crate::particle::ParticleSet;
use crate::space::{RealOf, Space, VecOf};

/// The links of one chain: particle slots (`n + 1`), rest lengths and multipliers (`n`).
pub(crate) struct ChainRef<'a, S: Space> {
    pub idx: &'a [u32],
    pub rest: &'a [RealOf<S>],
    pub lambda: &'a mut [RealOf<S>],
    pub compliance: RealOf<S>,
}

/// Reusable buffers for [`solve_chain`] (sized to the longest rope).
#[derive(Clone, Debug, Default)]
pub(crate) struct ChainScratch<S: Space> {
    n: Vec<VecOf<S>>,
    c_prime: Vec<RealOf<S>>,
    d_prime: Vec<RealOf<S>>,
}

/// One Newton step on the chain `idx[0] – idx[1] – …` with rest lengths `rest` and
/// multipliers `lambda` (accumulated within the substep). Returns the largest relative
/// violation `|C_j| / L_j` found *before* the step (over links that can move); when it is
/// below `tolerance` nothing is changed.
pub(crate) fn solve_chain<S: Space>(
    chain: ChainRef<'_, S>,
    ps: &mut ParticleSet<S>,
    ctx: &SubstepContext<RealOf<S>>,
    scratch: &mut ChainScratch<S>,
    tolerance: RealOf<S>,
) -> RealOf<S> {
    let ChainRef { idx, rest, lambda, compliance } = chain;
    let m = rest.len();
    if m == 0 {
        return RealOf::<S>::ZERO;
    }
    let mut worst = RealOf::<S>::ZERO;
    let zero = RealOf::<S>::ZERO;
    let alpha_t = compliance * ctx.inv_h2;
    scratch.n.clear();
    scratch.n.resize(m, VecOf::<S>::ZERO);
    scratch.c_prime.clear();
    scratch.c_prime.resize(m, zero);
    scratch.d_prime.clear();
    scratch.d_prime.resize(m, zero);
    let (n, cp, dp) = (&mut scratch.n, &mut scratch.c_prime, &mut scratch.d_prime);

    // Forward sweep: build each row as we go and eliminate the sub-diagonal.
    // Row j: a_j Δλ_{j−1} + b_j Δλ_j + c_j Δλ_{j+1} = r_j with a_j = c_{j−1} (symmetric).
    let mut prev_c = zero; // c_{j−1}
    let mut prev_cp = zero; // c'_{j−1}
    let mut prev_dp = zero; // d'_{j−1}
    let mut next = (VecOf::<S>::ZERO, zero);
    for j in 0..m {
        let (a, b) = (idx[j] as usize, idx[j + 1] as usize);
        let (wa, wb) = (ps.inv_mass[a], ps.inv_mass[b]);
        // Each link's direction is computed once: as "the next link" of the previous row.
        let (dir, len) = if j == 0 { (ps.pos[a] - ps.pos[b]).normalize_and_length() } else { next };
        n[j] = dir;
        let c_val = len - rest[j];
        if wa + wb > zero && rest[j] > zero {
            worst = worst.max(c_val.abs() / rest[j]);
        }
        // Direction of the next link (needed for this row's super-diagonal).
        let coupling = if j + 1 < m {
            let c2 = idx[j + 2] as usize;
            next = (ps.pos[b] - ps.pos[c2]).normalize_and_length();
            -wb * dir.dot(next.0)
        } else {
            zero
        };
        let mut diag = wa + wb + alpha_t;
        let mut rhs = -c_val - alpha_t * lambda[j];
        let mut upper = coupling;
        if wa + wb == zero || dir == VecOf::<S>::ZERO {
            // No freedom (both ends pinned) or no direction (coincident particles).
            diag = RealOf::<S>::ONE;
            rhs = zero;
            upper = zero;
        }
        let denom = diag - prev_c * prev_cp;
        let inv = if denom == zero { zero } else { RealOf::<S>::ONE / denom };
        cp[j] = upper * inv;
        dp[j] = (rhs - prev_c * prev_dp) * inv;
        prev_c = upper;
        prev_cp = cp[j];
        prev_dp = dp[j];
    }
    if worst <= tolerance && compliance == zero {
        return worst;
    }
    // Back substitution, applying each Δλ as soon as it is known.
    let mut dl_next = zero;
    for j in (0..m).rev() {
        let dl = dp[j] - cp[j] * dl_next;
        lambda[j] += dl;
        let (a, b) = (idx[j] as usize, idx[j + 1] as usize);
        let imp = n[j] * dl;
        let (wa, wb) = (ps.inv_mass[a], ps.inv_mass[b]);
        ps.pos[a] += imp * wa;
        ps.pos[b] -= imp * wb;
        dl_next = dl;
    }
    worst
}
