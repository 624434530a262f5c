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
//! exactly in O(n). Its pivots `p_j = b_j − u_{j−1}²/p_{j−1}` form a serial chain of
//! divisions; in floating point they are taken instead as ratios of continuants
//! `θ_j = b_j θ_{j−1} − u_{j−1}² θ_{j−2}` (a linear recurrence, rescaled by powers of two),
//! and the eliminated right-hand side is carried as `s_j = r'_j θ_j`
//! (`s_j = θ_{j−1} r_j − u_{j−1} s_{j−1}`, linear too), which leaves two multiply-subtracts
//! per row and no division on the serial path; the divisions follow in one vectorised
//! pass (for diagonals within `2^±20`; beyond, and in fixed point, whose range cannot
//! afford continuants, the Thomas form). Positions then move by
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
use crate::space::{RealOf, Space, VecOf};

/// The links of one chain: particle slots (`n + 1`), rest lengths and multipliers (`n`).
pub(crate) struct ChainRef<'a, S: Space> {
    pub idx: &'a [u32],
    pub rest: &'a [RealOf<S>],
    pub lambda: &'a mut [RealOf<S>],
    pub compliance: RealOf<S>,
    /// The substep's first step: the multipliers restart from 0 (XPBD with substeps), so
    /// their old values are not read and the step's `Δλ` overwrites them — which spares
    /// zeroing every rope's multipliers before each substep.
    pub fresh: bool,
}

/// Reusable buffers for [`solve_chain`] (sized to the longest rope).
///
/// Positions and directions are kept per component (structure of arrays): every pass
/// except the elimination is then a plain loop over contiguous slices, which the compiler
/// turns into SIMD for `f32` and `f64` (square roots and divisions four or eight at a time).
#[derive(Clone, Debug, Default)]
pub(crate) struct ChainScratch<S: Space> {
    /// Positions per component (`m + 1` each; the third unused in 2D).
    x: [Vec<RealOf<S>>; 3],
    /// Unit directions `n_j` per component (`m` each).
    n: [Vec<RealOf<S>>; 3],
    /// Inverse masses (`m + 1`).
    w: Vec<RealOf<S>>,
    /// Link lengths.
    len: Vec<RealOf<S>>,
    /// Reciprocal link lengths (0 for a link with no freedom).
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
    /// Scratch of the elimination and back substitution (`2m`).
    work: Vec<RealOf<S>>,
    /// Per rope (in arena order), worked out at the start of each step: whether its
    /// movable particles differ in mass enough for the fine tolerance (`rope::solve`).
    pub(crate) uneven: Vec<bool>,
    /// Per rope, likewise: whether two or more of its particles are fixed (it can be held
    /// beyond its length, `rope::overstretch`).
    pub(crate) fixed_twice: Vec<bool>,
    /// The particles `rope::overstretch` holds during one rope's solve, with their inverse
    /// masses.
    pub(crate) held: super::overstretch::Held<RealOf<S>>,
    /// The world's gravity (`rope::overstretch` weighs a stretch it holds straight).
    pub(crate) gravity: VecOf<S>,
    /// `rope::solve`'s piecewise fallback: each particle's slot, motion this substep and
    /// end position (kept for its capacity).
    pub(crate) pieces: Vec<(usize, VecOf<S>, VecOf<S>)>,
    /// The ropes that share a load, solved together (`rope::shared`).
    pub(crate) shared: super::shared::Shared<S>,
}

// The per-link passes below index equal-length slices (`&a[..m]`, `&b[1..=m]`): with the
// lengths known, the bounds checks go and the loops vectorise; chains of `zip` adapters
// did not. `three` is a constant of each instantiation, so 2D code has no third component.

/// Per-component positions, `[x, y, z]` (`z` empty-use in 2D).
type Comps<'a, R> = [&'a [R]; 3];

/// `l2_j = |x_j − x_{j+1}|²` of every link.
#[allow(clippy::needless_range_loop)]
#[inline(always)] // (also into `solve_chain_avx2`, see `math::wide`)
fn squared_lengths<R: Real>(three: bool, x: Comps<'_, R>, l2: &mut [R]) {
    let m = l2.len();
    let (a0, b0, a1, b1) = (&x[0][..m], &x[0][1..=m], &x[1][..m], &x[1][1..=m]);
    let (a2, b2) = (&x[2][..m], &x[2][1..=m]);
    for j in 0..m {
        let d0 = a0[j] - b0[j];
        let d1 = a1[j] - b1[j];
        let mut s = d0 * d0 + d1 * d1;
        if three {
            let d2 = a2[j] - b2[j];
            s += d2 * d2;
        }
        l2[j] = s;
    }
}

/// `len_j`, `inv_j = 1/len_j` of every link (`inv` = 0 for a zero-length link).
#[inline(always)] // (also into `solve_chain_avx2`, see `math::wide`)
fn link_lengths<R: Real>(three: bool, x: Comps<'_, R>, len: &mut [R], inv: &mut [R]) {
    squared_lengths(three, x, len);
    for (l, i) in len.iter_mut().zip(inv.iter_mut()) {
        (*l, *i) = l.sqrt_recip();
    }
}

/// The matrix rows and unit directions from the link lengths. A link with no freedom
/// (both ends pinned) or no direction (coincident particles) becomes the row `Δλ = 0`;
/// its couplings vanish with it (they carry a factor `w` of a pinned end or a zero
/// direction).
#[allow(clippy::needless_range_loop, clippy::too_many_arguments)]
#[inline(always)] // (also into `solve_chain_avx2`, see `math::wide`)
fn rows<R: Real>(
    three: bool,
    x: Comps<'_, R>,
    w: &[R],
    rest: &[R],
    lambda: &[R],
    alpha_t: R,
    len: &[R],
    inv: &mut [R],
    diag: &mut [R],
    rhs: &mut [R],
    n: [&mut [R]; 3],
) -> u32 {
    let m = diag.len();
    let (zero, one, eps) = (R::ZERO, R::ONE, R::GEOMETRIC_EPSILON);
    let (wa, wb, rest, lam, len, inv, rhs) =
        (&w[..m], &w[1..=m], &rest[..m], &lambda[..m], &len[..m], &mut inv[..m], &mut rhs[..m]);
    // Every row as if free (branch-free, so it vectorises), then the rare rows without
    // freedom counted (vectorised) and, only if there are any, overwritten. A rigid chain
    // (`α̃ = 0`) has no multiplier term: the same values without reading `λ`.
    if alpha_t == zero {
        for j in 0..m {
            diag[j] = wa[j] + wb[j] + alpha_t;
            rhs[j] = rest[j] - len[j];
        }
    } else {
        for j in 0..m {
            diag[j] = wa[j] + wb[j] + alpha_t;
            rhs[j] = rest[j] - len[j] - alpha_t * lam[j];
        }
    }
    let mut stuck = 0u32;
    for j in 0..m {
        stuck += u32::from(!((wa[j] + wb[j] > zero) & (len[j] > eps)));
    }
    if stuck > 0 {
        for j in 0..m {
            if !((wa[j] + wb[j] > zero) & (len[j] > eps)) {
                (inv[j], diag[j], rhs[j]) = (zero, one, zero);
            }
        }
    }
    let [n0, n1, n2] = n;
    let (n0, n1, n2) = (&mut n0[..m], &mut n1[..m], &mut n2[..m]);
    let (a0, b0, a1, b1) = (&x[0][..m], &x[0][1..=m], &x[1][..m], &x[1][1..=m]);
    let (a2, b2) = (&x[2][..m], &x[2][1..=m]);
    let inv = &inv[..m];
    for j in 0..m {
        n0[j] = (a0[j] - b0[j]) * inv[j];
        n1[j] = (a1[j] - b1[j]) * inv[j];
        if three {
            n2[j] = (a2[j] - b2[j]) * inv[j];
        }
    }
    stuck
}

/// Off-diagonal `u_j = −w_{j+1} (n_j · n_{j+1})`.
#[allow(clippy::needless_range_loop)]
#[inline(always)] // (also into `solve_chain_avx2`, see `math::wide`)
fn couplings<R: Real>(three: bool, n: Comps<'_, R>, w: &[R], upper: &mut [R]) {
    let k = upper.len();
    let wm = &w[1..=k];
    let (a0, b0, a1, b1) = (&n[0][..k], &n[0][1..=k], &n[1][..k], &n[1][1..=k]);
    let (a2, b2) = (&n[2][..k], &n[2][1..=k]);
    for j in 0..k {
        let mut dot = a0[j] * b0[j] + a1[j] * b1[j];
        if three {
            dot += a2[j] * b2[j];
        }
        upper[j] = dot * -wm[j];
    }
}

/// `Δx_i = w_i (imp_i − imp_{i−1})` with `imp_j = n_j Δλ_j`, every component in one loop
/// (the multipliers and inverse masses are loaded once for all of them). Returns how many
/// particles moved farther than `√q` times the shorter of their links' rest lengths
/// (`|Δx_i|² > q·min(L_{i−1}², L_i²)`), counted without branches.
#[allow(clippy::needless_range_loop)]
#[inline(always)] // (also into `solve_chain_avx2`, see `math::wide`)
fn apply<R: Real>(three: bool, n: Comps<'_, R>, dl: &[R], w: &[R], rest: &[R], q: R, x: [&mut [R]; 3]) -> u32 {
    let m = dl.len();
    let zero = R::ZERO;
    let [x0, x1, x2] = x;
    let dims = if three { 3 } else { 2 };
    let (mut first, mut last) = (zero, zero);
    for (c, xc) in [&mut *x0, &mut *x1, &mut *x2].into_iter().enumerate().take(dims) {
        let (d0, dm) = (n[c][0] * dl[0] * w[0], (zero - n[c][m - 1] * dl[m - 1]) * w[m]);
        xc[0] += d0;
        xc[m] += dm;
        (first, last) = (first + d0 * d0, last + dm * dm);
    }
    let mut far = u32::from(first > q * rest[0] * rest[0]) + u32::from(last > q * rest[m - 1] * rest[m - 1]);
    let (ws, da, db) = (&w[1..m], &dl[1..m], &dl[..m - 1]);
    let (ra, rb) = (&rest[1..m], &rest[..m - 1]);
    let (xs0, xs1, xs2) = (&mut x0[1..m], &mut x1[1..m], &mut x2[1..m]);
    let (a0, b0, a1, b1) = (&n[0][1..m], &n[0][..m - 1], &n[1][1..m], &n[1][..m - 1]);
    let (a2, b2) = (&n[2][1..m], &n[2][..m - 1]);
    for i in 0..m - 1 {
        let d0 = (a0[i] * da[i] - b0[i] * db[i]) * ws[i];
        let d1 = (a1[i] * da[i] - b1[i] * db[i]) * ws[i];
        xs0[i] += d0;
        xs1[i] += d1;
        let mut moved = d0 * d0 + d1 * d1;
        if three {
            let d2 = (a2[i] * da[i] - b2[i] * db[i]) * ws[i];
            xs2[i] += d2;
            moved += d2 * d2;
        }
        let (la, lb) = (ra[i] * ra[i], rb[i] * rb[i]);
        let shorter = if la < lb { la } else { lb };
        far += u32::from(moved > q * shorter);
    }
    far
}

/// Where a chain stands after a Newton step (see [`solve_chain`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ChainStatus {
    /// Every link that can move is within the tolerance.
    pub converged: bool,
    /// Every link that can move is within the coarse tolerance (`tol_coarse`).
    pub coarse: bool,
}

/// Whether every link that can move is within `tol` (and `tol_coarse`) of its rest
/// length, without square roots: `|d² − L²| ≤ 2·tol·L²` (or `≤ 2·slop·L`, see below).
/// `l2` is scratch (one per link).
#[allow(clippy::needless_range_loop)]
#[inline(always)] // (also into `solve_chain_avx2`, see `math::wide`)
fn within_tolerance<R: Real>(
    three: bool,
    x: Comps<'_, R>,
    w: &[R],
    rest: &[R],
    (tol, tol_coarse): (R, R),
    l2: &mut [R],
) -> ChainStatus {
    let m = rest.len();
    let l2 = &mut l2[..m];
    squared_lengths(three, x, l2);
    let zero = R::ZERO;
    let (two_tol, two_coarse) = (tol + tol, tol_coarse + tol_coarse);
    // Below `ROUNDING_SLOP` (1 µm in `f32`) a link's error is the coordinates' rounding,
    // which no Newton step removes: `|d − L| ≤ slop` passes whatever `tol·L` is.
    let two_slop = R::ROUNDING_SLOP + R::ROUNDING_SLOP;
    let (wa, wb) = (&w[..m], &w[1..=m]);
    let (mut violated, mut coarse) = (0u32, 0u32);
    for j in 0..m {
        let r2 = rest[j] * rest[j];
        let off = (l2[j] - r2).abs();
        let free = wa[j] + wb[j] != zero;
        violated += u32::from(free & (off > two_tol * r2) & (off > two_slop * rest[j]));
        coarse += u32::from(free & (off > two_coarse * r2));
    }
    ChainStatus { converged: violated == 0, coarse: coarse == 0 }
}

crate::math::wide::wide_fn!(
    /// One Newton step on the chain `idx[0] – idx[1] – …` with rest lengths `rest` and
    /// multipliers `lambda` (accumulated within the substep). Returns whether every link that
    /// can move is within `tolerance` (relative) of its rest length *after* the step, measured
    /// without square roots: `|d² − L²| ≤ 2·tol·L²` (`d² − L² ≈ 2L·C` for small `C`).
    ///
    /// Three passes, so only the elimination is serial:
    /// 1. per link (independent, vectorised): direction, violation, row of the matrix;
    /// 2. the elimination, from both ends towards the middle at once ("burn at both ends"):
    ///    two independent recurrences, so the CPU overlaps them and the serial latency per
    ///    link halves; then the middle row and the back substitution outwards;
    /// 3. per particle: `Δx_i = w_i (n_i Δλ_i − n_{i−1} Δλ_{i−1})`, each particle written once.
    ///
    /// On x86-64 CPUs with AVX2 the same code runs compiled for AVX2 (see
    /// [`crate::math::wide`]): twice the SIMD width in the per-link passes, the same results
    /// bit for bit.
    pub(crate) fn solve_chain / solve_chain_avx2 / solve_chain_body<S: Space>(
        chain: ChainRef<'_, S>,
        ps: &mut ParticleSet<S>,
        ctx: &SubstepContext<RealOf<S>>,
        scratch: &mut ChainScratch<S>,
        tolerance: (RealOf<S>, RealOf<S>),
    ) -> ChainStatus
);

/// The body of [`solve_chain`] (one copy per build).
#[inline(always)]
fn solve_chain_body<S: Space>(
    chain: ChainRef<'_, S>,
    ps: &mut ParticleSet<S>,
    ctx: &SubstepContext<RealOf<S>>,
    scratch: &mut ChainScratch<S>,
    tolerance: (RealOf<S>, RealOf<S>),
) -> ChainStatus {
    let ChainRef { idx, rest, lambda, compliance, fresh } = chain;
    let m = rest.len();
    let zero = RealOf::<S>::ZERO;
    if m == 0 || idx.len() != m + 1 || lambda.len() != m {
        return ChainStatus { converged: true, coarse: true };
    }
    let three = S::DIM == 3;
    let alpha_t = compliance * ctx.inv_h2;
    if fresh && alpha_t != zero {
        lambda.fill(zero); // (a rigid chain's rows do not read them)
    }
    let sc = scratch;
    for c in 0..3 {
        sc.x[c].resize(m + 1, zero);
        sc.n[c].resize(m, zero);
    }
    for v in [&mut sc.len, &mut sc.inv, &mut sc.diag, &mut sc.upper, &mut sc.rhs, &mut sc.factor] {
        v.resize(m, zero);
    }
    sc.w.resize(m + 1, zero);
    sc.work.resize(2 * m, zero);
    let [x0, x1, x2] = &mut sc.x;
    let (x0, x1, x2) = (&mut x0[..m + 1], &mut x1[..m + 1], &mut x2[..m + 1]);
    let [n0, n1, n2] = &mut sc.n;
    let (n0, n1, n2) = (&mut n0[..m], &mut n1[..m], &mut n2[..m]);
    let w = &mut sc.w[..m + 1];
    let (diag, rhs, factor) = (&mut sc.diag[..m], &mut sc.rhs[..m], &mut sc.factor[..m]);
    let upper = &mut sc.upper[..m - 1];

    // Gather (field reads: no per-component `match`). A rope's particles usually sit in
    // consecutive slots (reeling and tearing can break that): then the gather and scatter
    // walk a slice instead of looking up every index.
    let base = idx[0];
    let contiguous = idx.iter().zip(base..).fold(0u32, |acc, (&p, want)| acc | (p ^ want)) == 0
        && (base as usize) + m < ps.pos.len();
    if contiguous {
        // Over the positions' flat components: the loop walks two pointers instead of
        // indexing three arrays per particle (the 101-particle swing's gather took 8 % of
        // its step).
        let b = base as usize;
        let f = S::Vector::flat(&ps.pos[b..=b + m]);
        if three {
            for (((c, a0), a1), a2) in f.chunks_exact(3).zip(x0.iter_mut()).zip(x1.iter_mut()).zip(x2.iter_mut()) {
                (*a0, *a1, *a2) = (c[0], c[1], c[2]);
            }
        } else {
            for ((c, a0), a1) in f.chunks_exact(2).zip(x0.iter_mut()).zip(x1.iter_mut()) {
                (*a0, *a1) = (c[0], c[1]);
            }
        }
        w.copy_from_slice(&ps.inv_mass[b..=b + m]);
    } else {
        for (i, &p) in idx.iter().enumerate() {
            let a = ps.pos[p as usize].to_array3();
            x0[i] = a[0];
            x1[i] = a[1];
            if three {
                x2[i] = a[2];
            }
            w[i] = ps.inv_mass[p as usize];
        }
    }

    // Pass 1: lengths, directions, the matrix.
    link_lengths(three, [x0, x1, x2], &mut sc.len[..m], &mut sc.inv[..m]);
    let stuck =
        rows(three, [x0, x1, x2], w, rest, lambda, alpha_t, &sc.len[..m], &mut sc.inv[..m], diag, rhs, [n0, n1, n2]);
    couplings(three, [n0, n1, n2], w, upper);

    // Pass 2: the tridiagonal solve; `rhs` becomes `Δλ`.
    solve_tridiagonal(diag, upper, rhs, factor, &mut sc.work[..2 * m]);

    // Pass 3: multipliers and positions.
    if fresh {
        // `0 + Δλ`, as accumulating onto zeroed multipliers would give (−0 becomes +0).
        for (l, d) in lambda.iter_mut().zip(rhs.iter()) {
            *l = zero + *d;
        }
    } else {
        for (l, d) in lambda.iter_mut().zip(rhs.iter()) {
            *l += *d;
        }
    }
    let q = tolerance.0 * RealOf::<S>::from_ratio(1, 4);
    let far = apply(three, [n0, n1, n2], rhs, w, rest, q, [x0, x1, x2]);
    // Scatter.
    if contiguous {
        let b = base as usize;
        let f = S::Vector::flat_mut(&mut ps.pos[b..=b + m]);
        if three {
            for (((c, a0), a1), a2) in f.chunks_exact_mut(3).zip(x0.iter()).zip(x1.iter()).zip(x2.iter()) {
                (c[0], c[1], c[2]) = (*a0, *a1, *a2);
            }
        } else {
            for ((c, a0), a1) in f.chunks_exact_mut(2).zip(x0.iter()).zip(x1.iter()) {
                (c[0], c[1]) = (*a0, *a1);
            }
        }
    } else {
        for (i, &p) in idx.iter().enumerate() {
            let z = if three { x2[i] } else { zero };
            ps.pos[p as usize] = S::Vector::from_array3([x0[i], x1[i], z]);
        }
    }
    // Convergence. A rigid chain's step solves the linearised links exactly, so each link
    // ends with `n_j·d_j = L_j` (its old direction `n_j`, new difference `d_j`) and
    // `|d_j|² − L_j² = |Δd_⊥|² ≤ |Δd_j|² ≤ (|Δx_j| + |Δx_{j+1}|)²`: if no particle moved
    // more than `√(tol/4)·L` the chain is within the tolerance (`|d² − L²| ≤ tol·L²`, half
    // the bound below) without measuring a link — the usual case, where a step moves
    // particles by far less than a link. Otherwise (a rope snapping taut, a compliant
    // rope, a link with no freedom) measure every link on the positions just written.
    // The exact solve needs a non-singular system: with at most one immovable particle
    // (pinned, driven or asleep) it is — from a movable end, `Wᵢ Jᵀ Δλ = 0` forces every
    // `Δλ` to 0 link by link. With two (a rope between two anchors) a straight stretch
    // between them is singular and its step leaves links unsolved, so it is measured.
    // (Nearly immovable particles — mass ratios beyond ~10⁶ within a chain, in `f32` —
    // make a nearly singular system whose pivots cancel; such a chain can pass the
    // shortcut a little outside the tolerance. Ratios that large are outside what the
    // solver is built for; see `continuant_range`.)
    let anchored = w.iter().fold(0u32, |n, &wi| n + u32::from(wi == zero));
    if far == 0 && stuck == 0 && anchored <= 1 && alpha_t == zero {
        return ChainStatus { converged: true, coarse: true };
    }
    within_tolerance(three, [x0, x1, x2], w, rest, tolerance, &mut sc.len[..m])
}

/// Solves the symmetric tridiagonal system with diagonal `diag` (`m`), off-diagonal `upper`
/// (`m − 1`) and right-hand side `rhs` (`m ≥ 1`, overwritten by the solution); `factor`
/// (`m`) and `work` (`2m`) are scratch. Rows `0..k` are eliminated from the top and rows
/// `k+1..m` from the bottom (`k = m/2`); both recurrences run in the same loop so their
/// latencies overlap. A zero pivot gives a zero row (cannot happen for the chain's
/// diagonally dominant matrix; kept so that degenerate input yields no NaN).
#[inline]
pub(super) fn solve_tridiagonal<R: Real>(diag: &[R], upper: &[R], rhs: &mut [R], factor: &mut [R], work: &mut [R]) {
    let m = diag.len();
    let k = m / 2;
    if R::FLOATING && continuant_range(diag) {
        eliminate_by_continuants(diag, upper, rhs, factor, work, k);
    } else {
        eliminate(diag, upper, rhs, factor, k);
    }
    let (zero, one) = (R::ZERO, R::ONE);
    let recip = |d: R| if d == zero { zero } else { one / d };
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
    if R::FLOATING {
        back_substitute_by_pairs(rhs, factor, work, k, mid);
        return;
    }
    // Back substitution outwards, both halves in one loop (two independent recurrences):
    // Δλ_j = rhs_j − factor_j Δλ_(neighbour towards k).
    let (mut up, mut down) = (mid, mid);
    let (above, below) = rhs.split_at_mut(k);
    let below = &mut below[1..];
    let (f_above, f_below) = (&factor[..k], &factor[k + 1..]);
    let (na, nb) = (above.len(), below.len());
    for s in 0..na.max(nb) {
        if s < na {
            let j = na - 1 - s;
            up = above[j] - f_above[j] * up;
            above[j] = up;
        }
        if s < nb {
            down = below[s] - f_below[s] * down;
            below[s] = down;
        }
    }
}

/// The back substitution `x_j = r_j − f_j x_(j±1)` (towards the middle row `k`, whose
/// value is `mid`) two rows at a time: `x_j = (r_j − f_j r_(j±1)) + (f_j f_(j±1)) x_(j±2)`,
/// with both bracketed terms computed beforehand in vectorised passes. Rows of either
/// parity then form their own recurrence, so four chains (two per half) run side by side
/// and the serial path is one multiply-add per two rows instead of per row.
#[allow(clippy::needless_range_loop)]
#[inline]
fn back_substitute_by_pairs<R: Real>(rhs: &mut [R], factor: &[R], work: &mut [R], k: usize, mid: R) {
    let m = rhs.len();
    let (g, ff) = work[..2 * m].split_at_mut(m);
    // Above: rows 0..k, towards k. Pair terms for j + 1 < k.
    if k >= 2 {
        let (r0, r1, f0, f1) = (&rhs[..k - 1], &rhs[1..k], &factor[..k - 1], &factor[1..k]);
        let (g, ff) = (&mut g[..k - 1], &mut ff[..k - 1]);
        for j in 0..k - 1 {
            g[j] = r0[j] - f0[j] * r1[j];
            ff[j] = f0[j] * f1[j];
        }
    }
    // Below: rows k+1..m, towards k. Pair terms for j − 1 > k.
    if m >= k + 3 {
        let n = m - (k + 2);
        let (r0, r1, f0, f1) = (&rhs[k + 2..], &rhs[k + 1..m - 1], &factor[k + 2..], &factor[k + 1..m - 1]);
        let (g, ff) = (&mut g[k + 2..], &mut ff[k + 2..]);
        for j in 0..n {
            g[j] = r0[j] - f0[j] * r1[j];
            ff[j] = f0[j] * f1[j];
        }
    }
    // The rows next to the middle take one step; then every chain steps by two.
    let (mut a_odd, mut a_even) = (mid, mid); // above: x_(k−1−2t), x_(k−2t)
    let (mut b_odd, mut b_even) = (mid, mid); // below: x_(k+1+2t), x_(k+2t)
    if k >= 1 {
        a_odd = rhs[k - 1] - factor[k - 1] * mid;
        rhs[k - 1] = a_odd;
    }
    if k + 1 < m {
        b_odd = rhs[k + 1] - factor[k + 1] * mid;
        rhs[k + 1] = b_odd;
    }
    let na = k.saturating_sub(1); // rows k−2 down to 0
    let nb = m.saturating_sub(k + 2); // rows k+2 up to m−1
    let pairs = na.max(nb).div_ceil(2);
    for t in 0..pairs {
        let s = 2 * t;
        if s + 1 < na {
            let (j0, j1) = (k - 2 - s, k - 3 - s);
            a_even = g[j0] + ff[j0] * a_even;
            a_odd = g[j1] + ff[j1] * a_odd;
            rhs[j0] = a_even;
            rhs[j1] = a_odd;
        } else if s < na {
            let j0 = k - 2 - s;
            a_even = g[j0] + ff[j0] * a_even;
            rhs[j0] = a_even;
        }
        if s + 1 < nb {
            let (j0, j1) = (k + 2 + s, k + 3 + s);
            b_even = g[j0] + ff[j0] * b_even;
            b_odd = g[j1] + ff[j1] * b_odd;
            rhs[j0] = b_even;
            rhs[j1] = b_odd;
        } else if s < nb {
            let j0 = k + 2 + s;
            b_even = g[j0] + ff[j0] * b_even;
            rhs[j0] = b_even;
        }
    }
}

/// Thomas elimination of rows `0..k` from the top and `k+1..m` from the bottom, leaving
/// `factor_j` (the multiple of the neighbour towards `k` to subtract) and the eliminated
/// right-hand side in `rhs`.
///
/// Top: `p_j = b_j − u_{j−1} factor_{j−1}`, `factor_j = u_j / p_j`,
/// `rhs_j = (r_j − u_{j−1} rhs_{j−1}) / p_j`; the bottom mirrors it. The pivot recurrence
/// runs through a division, so each row waits ~20 cycles for the previous one.
fn eliminate<R: Real>(diag: &[R], upper: &[R], rhs: &mut [R], factor: &mut [R], k: usize) {
    let m = diag.len();
    let (zero, one) = (R::ZERO, R::ONE);
    let recip = |d: R| if d == zero { zero } else { one / d };
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
}

/// Whether every diagonal lies in `[2⁻²⁰, 2²⁰]`, the range in which
/// [`eliminate_by_continuants`] cannot overflow or underflow (its products `b·θ` and
/// `u²·θ`, with `|u| ≤ b` and the minors kept within `2^±60`, stay inside `f32`'s normal
/// range). Inverse masses of 1 µg–1 Mg particles and compliances up to ~4 m/N at the
/// default step are inside; anything outside takes [`eliminate`], exact at every scale.
/// One branch-free pass over the diagonal (NaN fails it too).
fn continuant_range<R: Real>(diag: &[R]) -> bool {
    let (lo, hi) = (R::from_f64(2f64.powi(-20)), R::from_f64(2f64.powi(20)));
    diag.iter().fold(true, |ok, &b| ok & (b >= lo) & (b <= hi))
}

/// The same elimination as [`eliminate`] for floating point, with the pivots from
/// continuants so that no division sits on the serial path.
///
/// The pivots are ratios `p_j = θ_j / θ_{j−1}` of the leading principal minors, which obey
/// the *linear* three-term recurrence `θ_j = b_j θ_{j−1} − u_{j−1}² θ_{j−2}` (θ₋₁ = 1,
/// θ₋₂ = 0): one multiply-subtract per row instead of a division. The eliminated
/// right-hand side `r'_j = (r_j − u_{j−1} r'_{j−1}) / p_j` is carried the same way, as
/// `s_j = r'_j θ_j`, which obeys `s_j = θ_{j−1} r_j − u_{j−1} s_{j−1}`. The serial loop
/// then holds two multiply-subtracts per row and no division; the divisions
/// (`1/p_j = θ_{j−1}/θ_j`, `factor_j = u_j/p_j`, `r'_j = s_j/θ_j`) follow in one
/// vectorised pass over the stored minors (21 % faster than dividing inside the loop on a
/// 280-row chain). The minors grow or shrink geometrically, so the carried values are
/// rescaled by 2⁶⁰ when they leave `[2⁻⁶⁰, 2⁶⁰]` (a power of two: the ratios are
/// unchanged; the values stored for a row are those before its rescale); the diagonal is
/// kept within `2^±20` by [`continuant_range`], so one rescale per row keeps every product
/// finite. The matrix `J M⁻¹ Jᵀ + α̃` is positive definite, so every minor and pivot is
/// positive (`p_j ≥ w_{j+1} + α̃`); the subtraction loses what Thomas' `b_j − u²/p` loses,
/// no more. A zero minor (singular leading block) restarts the recurrence with that row
/// dropped, exactly as the zero-pivot guard of [`eliminate`] does.
#[allow(clippy::needless_range_loop)]
fn eliminate_by_continuants<R: Real>(
    diag: &[R],
    upper: &[R],
    rhs: &mut [R],
    factor: &mut [R],
    work: &mut [R],
    k: usize,
) {
    let m = diag.len();
    let (zero, one) = (R::ZERO, R::ONE);
    let (hi, lo) = (R::from_f64(2f64.powi(60)), R::from_f64(2f64.powi(-60)));
    let (before, theta) = work[..2 * m].split_at_mut(m);
    // The squared couplings, vectorised, in `factor` until the last pass overwrites it.
    for (q, &u) in factor[..m - 1].iter_mut().zip(upper) {
        *q = u * u;
    }
    // Carried per end: θ_{j−1}, θ_{j−2} and s_{j−1}. Stored per row: θ_{j−1}, θ_j and
    // (in `rhs`) s_j.
    let (mut t1, mut t2, mut ts) = (one, zero, zero);
    let (mut b1, mut b2, mut bs) = (one, zero, zero);
    // One row of either end: `u` couples it to the row eliminated before it, `uu = u²`.
    let step =
        |j: usize, u: R, uu: R, t1: &mut R, t2: &mut R, s: &mut R, rhs: &mut [R], before: &mut [R], theta: &mut [R]| {
            let th = diag[j] * *t1 - uu * *t2;
            let sj = *t1 * rhs[j] - u * *s;
            (before[j], theta[j], rhs[j]) = (*t1, th, sj);
            (*t1, *t2, *s) = (th, *t1, sj);
            let a = th.abs();
            if !((a <= hi) & (a >= lo)) {
                // Rare: rescale by a power of two (the ratios are unchanged), or restart
                // after a zero minor with that row dropped.
                if th == zero {
                    (*t1, *t2, *s) = (one, zero, zero);
                } else if a > hi {
                    (*t1, *t2, *s) = (th * lo, *t2 * lo, sj * lo);
                } else if a < lo {
                    (*t1, *t2, *s) = (th * hi, *t2 * hi, sj * hi);
                }
            }
        };
    let steps = k.max(m - 1 - k);
    for s in 0..steps {
        if s < k {
            let (u, uu) = if s > 0 { (upper[s - 1], factor[s - 1]) } else { (zero, zero) };
            step(s, u, uu, &mut t1, &mut t2, &mut ts, rhs, before, theta);
        }
        if s + 1 + k < m {
            let j = m - 1 - s;
            let (u, uu) = if j + 1 < m { (upper[j], factor[j]) } else { (zero, zero) };
            step(j, u, uu, &mut b1, &mut b2, &mut bs, rhs, before, theta);
        }
    }
    // The divisions, vectorised: `1/p_j = θ_{j−1}/θ_j`, `factor_j = u_j/p_j` (the coupling
    // towards the middle) and the eliminated right-hand side `s_j/θ_j`; a zero minor
    // gives a zero row.
    let inv = |t: R| if t == zero { zero } else { one / t };
    {
        let (f, r, b, t, u) = (&mut factor[..k], &mut rhs[..k], &before[..k], &theta[..k], &upper[..k]);
        for j in 0..k {
            let iv = inv(t[j]);
            f[j] = u[j] * b[j] * iv;
            r[j] *= iv;
        }
    }
    if k + 1 < m {
        let (f, r, b, t, u) =
            (&mut factor[k + 1..m], &mut rhs[k + 1..m], &before[k + 1..m], &theta[k + 1..m], &upper[k..m - 1]);
        for j in 0..m - k - 1 {
            let iv = inv(t[j]);
            f[j] = u[j] * b[j] * iv;
            r[j] *= iv;
        }
    }
}

#[cfg(test)]
mod tests;
