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
//! The matrix is tridiagonal and (weakly) diagonally dominant, so Gaussian elimination
//! without pivoting (the Thomas algorithm; here run from both ends at once) solves it
//! exactly in O(n). Positions then move by
//! `Δx_j = w_j (n_j Δλ_j − n_{j−1} Δλ_{j−1})`. A link whose two particles are both pinned
//! has no freedom; its row becomes `Δλ = 0`. With one Newton step per substep the
//! remaining error is only the linearisation's (second order in the motion per substep),
//! small at the default 8 substeps. When links turn a lot within one substep (a rope
//! snapping taut) the step is repeated — re-linearised at the new positions — until the
//! worst link is within 0.1 % of its rest length or 32 steps have run; a rope in
//! ordinary motion pays for one.

use crate::constraint::SubstepContext;
use crate::math::{Real, Vector};
use crate::particle::ParticleSet;
use crate::space::{RealOf, Space};

/// The links of one chain: particle slots (`n + 1`), rest lengths and multipliers (`n`).
pub(crate) struct ChainRef<'a, S: Space> {
    pub idx: &'a [u32],
    pub rest: &'a [RealOf<S>],
    pub lambda: &'a mut [RealOf<S>],
    pub compliance: RealOf<S>,
}

/// Reusable buffers for [`solve_chain`] (sized to the longest rope).
///
/// Positions and directions are kept per component (structure of arrays): every pass
/// except the elimination is then a plain loop over a contiguous slice, which the compiler
/// turns into SIMD for `f32` and `f64` (square roots and divisions four or eight at a time).
#[derive(Clone, Debug, Default)]
pub(crate) struct ChainScratch<S: Space> {
    /// Positions per component (`m + 1` each).
    x: [Vec<RealOf<S>>; 3],
    /// Per component (`m` each): link differences, then directions `n_j`, then impulses.
    n: [Vec<RealOf<S>>; 3],
    /// Inverse masses (`m + 1`).
    w: Vec<RealOf<S>>,
    /// Squared link lengths, then lengths.
    len: Vec<RealOf<S>>,
    /// Reciprocal lengths (0 for a link with no freedom).
    inv: Vec<RealOf<S>>,
    /// Diagonal `b_j`.
    diag: Vec<RealOf<S>>,
    /// Super-diagonal `u_j` (= sub-diagonal of row `j + 1`; the matrix is symmetric).
    upper: Vec<RealOf<S>>,
    /// Right-hand side `r_j`, then the eliminated right-hand sides, then `Δλ_j`.
    rhs: Vec<RealOf<S>>,
    /// Eliminated off-diagonal factors (from the top above the middle row, from the
    /// bottom below it).
    factor: Vec<RealOf<S>>,
}

// The per-link passes below index equal-length slices (`&a[..m]`, `&b[1..=m]`): with the
// lengths known, the bounds checks go and the loops vectorise; chains of `zip` adapters
// did not.

/// `out[j] = x[j] − x[j + 1]`.
#[inline]
#[allow(clippy::needless_range_loop)]
fn differences<R: Real>(out: &mut [R], x: &[R]) {
    let m = out.len();
    let (a, b) = (&x[..m], &x[1..=m]);
    for j in 0..m {
        out[j] = a[j] - b[j];
    }
}

/// `len[j] = Σ_c n[c][j]²` over the first `dim` components.
#[inline]
#[allow(clippy::needless_range_loop)]
fn squared_lengths<R: Real>(len: &mut [R], n: &[Vec<R>; 3], dim: usize) {
    let m = len.len();
    let n0 = &n[0][..m];
    for j in 0..m {
        len[j] = n0[j] * n0[j];
    }
    for nc in &n[1..dim] {
        let nc = &nc[..m];
        for j in 0..m {
            len[j] += nc[j] * nc[j];
        }
    }
}

/// One Newton step on the chain `idx[0] – idx[1] – …` with rest lengths `rest` and
/// multipliers `lambda` (accumulated within the substep). Returns whether every link that
/// can move is within `tolerance` (relative) of its rest length *after* the step, measured
/// without square roots: `|d² − L²| ≤ 2·tol·L²` (`d² − L² ≈ 2L·C` for small `C`).
///
/// Three passes, so only the elimination is serial:
/// 1. per link (independent, vectorised): direction, violation, row of the matrix;
/// 2. the elimination, from both ends towards the middle at once ("burn at both ends"):
///    two independent recurrences, so the CPU overlaps their divisions and the serial
///    latency per link halves; then the middle row and the back substitution outwards;
/// 3. per particle: `Δx_i = w_i (n_i Δλ_i − n_{i−1} Δλ_{i−1})`, each particle written once.
#[allow(clippy::needless_range_loop)] // see the note above `differences`
pub(crate) fn solve_chain<S: Space>(
    chain: ChainRef<'_, S>,
    ps: &mut ParticleSet<S>,
    ctx: &SubstepContext<RealOf<S>>,
    scratch: &mut ChainScratch<S>,
    tolerance: RealOf<S>,
) -> bool {
    let ChainRef { idx, rest, lambda, compliance } = chain;
    let m = rest.len();
    let zero = RealOf::<S>::ZERO;
    let one = RealOf::<S>::ONE;
    if m == 0 || idx.len() != m + 1 || lambda.len() != m {
        return true;
    }
    let dim = S::DIM;
    let alpha_t = compliance * ctx.inv_h2;
    let sc = scratch;
    for c in 0..3 {
        sc.x[c].resize(m + 1, zero);
        sc.n[c].resize(m, zero);
    }
    for v in [&mut sc.len, &mut sc.inv, &mut sc.diag, &mut sc.upper, &mut sc.rhs, &mut sc.factor] {
        v.resize(m, zero);
    }
    sc.w.resize(m + 1, zero);
    let x = &mut sc.x;
    let n = &mut sc.n;
    let w = &mut sc.w[..m + 1];
    let (len, inv) = (&mut sc.len[..m], &mut sc.inv[..m]);
    let (diag, upper, rhs, factor) = (&mut sc.diag[..m], &mut sc.upper[..m], &mut sc.rhs[..m], &mut sc.factor[..m]);

    // Gather.
    for (i, &p) in idx.iter().enumerate() {
        let v = ps.pos[p as usize];
        for (c, xc) in x.iter_mut().enumerate().take(dim) {
            xc[i] = v.get(c);
        }
        w[i] = ps.inv_mass[p as usize];
    }

    // Pass 1: directions, violations, diagonal and right-hand side.
    for c in 0..dim {
        differences(&mut n[c][..m], &x[c][..m + 1]);
    }
    squared_lengths(len, n, dim);
    let eps = RealOf::<S>::GEOMETRIC_EPSILON;
    let (wa, wb) = (&w[..m], &w[1..=m]);
    let (rest, lam) = (&rest[..m], &lambda[..m]);
    for j in 0..m {
        (len[j], inv[j]) = len[j].sqrt_recip();
    }
    for j in 0..m {
        let (root, recip) = (len[j], inv[j]);
        // A link with no freedom (both ends pinned) or no direction (coincident
        // particles) becomes the row `Δλ = 0`; its couplings vanish with it (they carry
        // a factor `w` of a pinned end or a zero direction).
        let free = (wa[j] + wb[j] > zero) & (root > eps);
        inv[j] = if free { recip } else { zero };
        diag[j] = if free { wa[j] + wb[j] + alpha_t } else { one };
        rhs[j] = if free { rest[j] - root - alpha_t * lam[j] } else { zero };
    }
    for nc in &mut n[..dim] {
        let nc = &mut nc[..m];
        for j in 0..m {
            nc[j] *= inv[j];
        }
    }
    let upper = &mut upper[..m - 1];
    let wm = &w[1..m];
    {
        let (a, b) = (&n[0][..m - 1], &n[0][1..m]);
        for j in 0..m - 1 {
            upper[j] = a[j] * b[j];
        }
    }
    for nc in &n[1..dim] {
        let (a, b) = (&nc[..m - 1], &nc[1..m]);
        for j in 0..m - 1 {
            upper[j] += a[j] * b[j];
        }
    }
    for j in 0..m - 1 {
        upper[j] *= -wm[j];
    }

    // Pass 2: eliminate rows 0..k from the top and rows k+1..m from the bottom; both
    // recurrences run in the same loop so their latencies overlap.
    // Top: factor_j = u_j / p_j, rhs_j = (r_j − u_{j−1} rhs_{j−1}) / p_j with
    // p_j = b_j − u_{j−1} factor_{j−1}.
    // Bottom: factor_j = u_{j−1} / q_j, rhs_j = (r_j − u_j rhs_{j+1}) / q_j with
    // q_j = b_j − u_j factor_{j+1}.
    let k = m / 2;
    let recip = |d: RealOf<S>| if d == zero { zero } else { one / d };
    let (mut top_f, mut top_r, mut top_u) = (zero, zero, zero);
    let (mut bot_f, mut bot_r, mut bot_u) = (zero, zero, zero);
    let steps = k.max(m - 1 - k);
    for s in 0..steps {
        if s < k {
            let j = s;
            let iv = recip(diag[j] - top_u * top_f);
            top_r = (rhs[j] - top_u * top_r) * iv;
            top_u = upper[j];
            top_f = top_u * iv;
            factor[j] = top_f;
            rhs[j] = top_r;
        }
        if s + 1 + k < m {
            let j = m - 1 - s;
            let iv = recip(diag[j] - bot_u * bot_f);
            bot_r = (rhs[j] - bot_u * bot_r) * iv;
            bot_u = upper[j - 1];
            bot_f = bot_u * iv;
            factor[j] = bot_f;
            rhs[j] = bot_r;
        }
    }
    // The middle row, with its neighbours expressed through it.
    let (mut p, mut r) = (diag[k], rhs[k]);
    if k > 0 {
        p -= upper[k - 1] * factor[k - 1];
        r -= upper[k - 1] * rhs[k - 1];
    }
    if k + 1 < m {
        p -= upper[k] * factor[k + 1];
        r -= upper[k] * rhs[k + 1];
    }
    let mid = r * recip(p);
    rhs[k] = mid;
    // Back substitution outwards: Δλ_j = rhs_j − factor_j Δλ_(neighbour towards k).
    let mut up = mid;
    for (r, &f) in rhs[..k].iter_mut().zip(&factor[..k]).rev() {
        up = *r - f * up;
        *r = up;
    }
    let mut down = mid;
    for (r, &f) in rhs[k + 1..].iter_mut().zip(&factor[k + 1..]) {
        down = *r - f * down;
        *r = down;
    }

    // Pass 3: multipliers and positions, `Δx_i = w_i (imp_i − imp_{i−1})` with
    // `imp_j = n_j Δλ_j`.
    {
        let lambda = &mut lambda[..m];
        for j in 0..m {
            lambda[j] += rhs[j];
        }
    }
    for c in 0..dim {
        let imp = &mut n[c][..m];
        for j in 0..m {
            imp[j] *= rhs[j];
        }
        let xc = &mut x[c][..m + 1];
        xc[0] += imp[0] * w[0];
        {
            let (xs, ws, a, b) = (&mut xc[1..m], &w[1..m], &imp[1..m], &imp[..m - 1]);
            for i in 0..m - 1 {
                xs[i] += (a[i] - b[i]) * ws[i];
            }
        }
        xc[m] += (zero - imp[m - 1]) * w[m];
    }
    // Scatter.
    for (i, &p) in idx.iter().enumerate() {
        let v = &mut ps.pos[p as usize];
        for (c, xc) in x.iter().enumerate().take(dim) {
            v.set(c, xc[i]);
        }
    }
    // Convergence, on the positions just written.
    for c in 0..dim {
        differences(&mut n[c][..m], &x[c][..m + 1]);
    }
    squared_lengths(len, n, dim);
    let two_tol = tolerance + tolerance;
    let mut violated = 0u32;
    for j in 0..m {
        let r2 = rest[j] * rest[j];
        let bad = (wa[j] + wb[j] != zero) & ((len[j] - r2).abs() > two_tol * r2);
        violated += u32::from(bad);
    }
    violated == 0
}
