//! Joint limits and contact planes as extra rows of the exact tree solve.
//!
//! # Why
//! The tree solve holds the bones exactly, but the joint limits were projected one after
//! another around it: the solve that takes the bones back to their lengths turns joints
//! past their range again (10–20° on the frames of a hard impact), and the solve after
//! contacts, free to move every particle that no contact pushed, moves a node beside a
//! contact into the surface (up to ~5 mm at 4 substeps).
//!
//! # The method
//! The rows of a piece's violated limits and penetrated contact planes (`g_j`, with value
//! `c_j`; a limit's [`LimitRow`], a plane's `n·x − d` with gradient `n`) join its bones.
//! The tree solve is linear in its right-hand side: with an external impulse `F` on the
//! nodes (the elimination starts from `b_q = F_q` instead of 0) it gives
//!
//! ```text
//! Δx(μ) = Δx₀ + Σ_l μ_l D_l,     M Δx = F + Jᵀ Δλ,   J Δx = −C,   F = Σ_l g_l μ_l
//! ```
//!
//! where `Δx₀` is the bones' own step and `D_l` the response of the bones-held body to a
//! unit impulse `g_l` (a tree solve with `C = 0`). The rows then read
//! `g_j·Δx(μ) = −c_j`, a dense `k × k` system `A μ = r` with `A_jl = g_j·D_l` (symmetric
//! positive semi-definite: the rows' effective inverse mass with the bones held) and
//! `r_j = −c_j − g_j·Δx₀`, factored by `LDLᵀ` (a dependent row is dropped). The rows are
//! one-sided: a multiplier of the wrong sign (`μ_j c_j > 0`, the row would pull) drops its
//! row and the rest are solved again (an active set). A last tree solve with `C` and
//! `F = Σ g_l μ_l` gives the step, the bones' multipliers with it. The Newton steps of
//! the tree solve re-linearise bones and rows alike, until every bone is within 10⁻⁴
//! of its length and every row within [`ROW_TOL`].
//!
//! `k + 2` tree solves per Newton step, so this runs only for a piece with a limit more
//! than [`LIMIT_TRIGGER`] outside its range or a particle more than [`DEPTH_TRIGGER`]
//! inside a contact plane after the plain solve: the frames of an impact, not a crowd in
//! flight or at rest.
//!
//! Particles heavy along a contact normal (the solve after contacts) stay heavy, so a
//! limit turns the body about its contacts. A compliant limit (compliance > 0) is left
//! to its projection.
//!
//! The world turns this on with `WorldDef::limit_rows`, in 2D only: the 3D swing–twist
//! limit gives no rows here (with its swing and twist rows, a `humanoid3d` kept its
//! limits within 0.9° but thrown bodies still moved at 2–3 m/s after 5 s). What it does
//! not hold: a particle with no contact plane this substep (a fast one whose pair has
//! none) can still be moved inside a collider (0.6–1.1 mm measured).

use super::{GROUND, MAX_NEWTON, Piece, TOL, TreeSolver};
use crate::arena::Arena;
use crate::constraint::{JointLimitSolver, LimitRow};
use crate::dim::{BaseSpace as Space, RealOf, VecOf};
use crate::math::{Real, Vector};
use crate::particle::ParticleSet;

/// A limit part further outside its range than this (rad, about 0.9°) after the plain
/// solve brings the piece's rows into the solve.
const LIMIT_TRIGGER: (i32, i32) = (1, 64);
/// A particle deeper than this (m) inside a contact plane after the plain solve brings the
/// piece's rows into the solve.
const DEPTH_TRIGGER: (i32, i32) = (1, 100_000);
/// Rows within this of their bound (rad or m) are satisfied.
pub(crate) const ROW_TOL: (i32, i32) = (1, 100_000);
/// Most rows in one solve (further ones wait for the next Newton step).
const MAX_ROWS: usize = 24;

/// One extra row: its nodes (`u32::MAX`: a particle not moved by this piece), gradients,
/// value, and where it came from (a limit's slot and part, or a plane: `u32::MAX`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ExtraRow<S: Space> {
    nodes: [u32; 5],
    g: [VecOf<S>; 5],
    len: usize,
    c: RealOf<S>,
    limit: (u32, u32),
}

/// The rows' buffers (reused; no allocation once grown).
#[derive(Clone, Debug, Default)]
pub(crate) struct ExtraScratch<S: Space> {
    rows: Vec<ExtraRow<S>>,
    limit_rows: Vec<LimitRow<S>>,
    /// Per limit slot, per piece: `limit_slots[limit_range[p]]`.
    pub limit_range: Vec<(u32, u32)>,
    pub limit_slots: Vec<u32>,
    /// The contact planes of this substep: `(particle, normal, d)` (`n·x ≥ d`).
    pub planes: Vec<(u32, VecOf<S>, RealOf<S>)>,
    /// The planes are rows of this solve (the solve after contacts).
    use_planes: bool,
    /// The rows are solved at all (`WorldDef::limit_rows`).
    pub enabled: bool,
    /// `Δx₀`, then the responses `D_l`, each over the piece's nodes.
    base: Vec<VecOf<S>>,
    resp: Vec<VecOf<S>>,
    /// The dense system, its right-hand side, the multipliers, which rows are active.
    a: Vec<RealOf<S>>,
    work: Vec<RealOf<S>>,
    r: Vec<RealOf<S>>,
    mu: Vec<RealOf<S>>,
    active: Vec<bool>,
    saved_c: Vec<RealOf<S>>,
    saved_lambda: Vec<RealOf<S>>,
}

impl<S: Space> TreeSolver<S> {
    /// Sorts the world's joint limits by the piece they act on (`(slot, a particle slot)`
    /// for each); a limit on no piece is left to its projection.
    pub(crate) fn attach_limits(&mut self, limits: impl Iterator<Item = (u32, usize)>) {
        let x = &mut self.extra;
        x.limit_slots.clear();
        x.limit_range.clear();
        let mut by_piece: Vec<(u32, u32)> = limits
            .filter_map(|(slot, k)| {
                let node = *self.node_of.get(k)?;
                (node != u32::MAX).then(|| (self.pieces.partition_point(|p| p.nodes.1 <= node) as u32, slot))
            })
            .collect();
        by_piece.sort_unstable();
        let mut at = 0;
        for p in 0..self.pieces.len() as u32 {
            let start = at;
            while at < by_piece.len() && by_piece[at].0 == p {
                x.limit_slots.push(by_piece[at].1);
                at += 1;
            }
            x.limit_range.push((start as u32, at as u32));
        }
    }

    /// [`solve`](Self::solve) with limit rows (`WorldDef::limit_rows`): a tree with a joint
    /// limit beyond its trigger after the solve is solved again with its violated limits
    /// as rows (below). On the calling thread (the limits are the world's).
    pub(crate) fn solve_with_rows<L: JointLimitSolver<S>>(
        &mut self,
        ps: &mut ParticleSet<S>,
        first: bool,
        limits: &mut Arena<L>,
    ) {
        self.solve_each(ps, first, |t, ps, i| t.solve_rows_of(ps, limits, i, false));
    }

    /// Solves again the trees [`mark_struck`](Self::mark_struck) marked, with their pushed
    /// particles heavy. Then each with a joint limit or a contact plane (of
    /// `extra.planes`) beyond its trigger is solved again with them as rows (below).
    pub(crate) fn solve_struck_with_rows<L: JointLimitSolver<S>>(
        &mut self,
        ps: &mut ParticleSet<S>,
        limits: &mut Arena<L>,
    ) {
        self.solve_struck(ps, |t, ps, i| t.solve_rows_of(ps, limits, i, true));
    }

    /// After the plain solve of piece `i`: if a limit of it (or, with `planes`, a contact
    /// plane) is beyond its trigger, the piece is solved again with its rows.
    pub(super) fn solve_rows_of<L: JointLimitSolver<S>>(
        &mut self,
        ps: &mut ParticleSet<S>,
        limits: &mut Arena<L>,
        i: usize,
        planes: bool,
    ) {
        let (l0, l1) = self.extra.limit_range.get(i).copied().unwrap_or((0, 0));
        if !self.extra.enabled || (l0 == l1 && !planes) {
            return;
        }
        self.extra.use_planes = planes;
        let trig = (
            RealOf::<S>::from_ratio(LIMIT_TRIGGER.0, LIMIT_TRIGGER.1),
            RealOf::<S>::from_ratio(DEPTH_TRIGGER.0, DEPTH_TRIGGER.1),
        );
        if self.gather_rows(ps, limits, i, trig) {
            self.solve_piece_rows(ps, limits, i);
        }
    }

    /// The piece's rows beyond `(limit, depth)` into `extra.rows`; whether there are any.
    fn gather_rows<L: JointLimitSolver<S>>(
        &mut self,
        ps: &ParticleSet<S>,
        limits: &Arena<L>,
        i: usize,
        (tol_limit, tol_depth): (RealOf<S>, RealOf<S>),
    ) -> bool {
        let x = &mut self.extra;
        x.rows.clear();
        let piece = self.pieces[i];
        let node = |k: u32| {
            let n = self.node_of.get(k as usize).copied().unwrap_or(u32::MAX);
            if n >= piece.nodes.0 && n < piece.nodes.1 { n } else { u32::MAX }
        };
        let (l0, l1) = x.limit_range.get(i).copied().unwrap_or((0, 0));
        for &slot in &x.limit_slots[l0 as usize..l1 as usize] {
            let Some(Some(l)) = limits.values.get(slot as usize) else { continue };
            if !l.outside(ps) {
                continue;
            }
            x.limit_rows.clear();
            l.violated_rows(ps, &mut x.limit_rows);
            for (part, lr) in x.limit_rows.iter().enumerate() {
                if lr.compliance > RealOf::<S>::ZERO || lr.c.abs() <= tol_limit || x.rows.len() == MAX_ROWS {
                    continue;
                }
                let mut row = ExtraRow {
                    nodes: [u32::MAX; 5],
                    g: [VecOf::<S>::ZERO; 5],
                    len: lr.len,
                    c: lr.c,
                    limit: (slot, part as u32),
                };
                for j in 0..lr.len {
                    row.nodes[j] = node(lr.particles[j]);
                    row.g[j] = lr.gradients[j];
                }
                x.rows.push(row);
            }
        }
        let planes = if x.use_planes { &x.planes[..] } else { &[] };
        for &(k, n, d) in planes {
            let nk = node(k);
            if nk == u32::MAX || x.rows.len() == MAX_ROWS {
                continue;
            }
            let c = n.dot(ps.pos[k as usize]) - d;
            if c < -tol_depth {
                let mut g = [VecOf::<S>::ZERO; 5];
                g[0] = n;
                x.rows.push(ExtraRow {
                    nodes: [nk, u32::MAX, u32::MAX, u32::MAX, u32::MAX],
                    g,
                    len: 1,
                    c,
                    limit: (u32::MAX, 0),
                });
            }
        }
        !x.rows.is_empty()
    }

    /// Newton steps on piece `i` with its bones and rows (module docs).
    fn solve_piece_rows<L: JointLimitSolver<S>>(&mut self, ps: &mut ParticleSet<S>, limits: &mut Arena<L>, i: usize) {
        let piece = self.pieces[i];
        let tol = RealOf::<S>::from_ratio(TOL.0, TOL.1);
        let row_tol = RealOf::<S>::from_ratio(ROW_TOL.0, ROW_TOL.1);
        for step in 0..MAX_NEWTON {
            if step > 0 && !self.gather_rows(ps, limits, i, (row_tol, row_tol)) {
                // Rows hold: the bones alone, as the plain solve does.
                if self.linearise(ps, piece.rows, tol) {
                    self.newton_steps += 1;
                    self.eliminate(piece, RealOf::<S>::ZERO);
                    self.substitute(piece);
                    self.apply(ps, piece);
                    continue;
                }
                return;
            }
            self.linearise(ps, piece.rows, tol);
            self.newton_steps += 1;
            self.step_with_rows(piece);
            // The limits' multipliers (force readouts; only for limits whose parts are
            // numbered for a direct solve, `JointLimitSolver::DIRECT_ROWS`).
            for (j, row) in self.extra.rows.iter().enumerate() {
                if L::DIRECT_ROWS
                    && row.limit.0 != u32::MAX
                    && let Some(Some(l)) = limits.values.get_mut(row.limit.0 as usize)
                {
                    l.add_row_lambda(row.limit.1 as usize, self.extra.mu[j]);
                }
            }
            self.apply(ps, piece);
        }
    }

    /// `Δx` of the piece's nodes onto the particles.
    fn apply(&self, ps: &mut ParticleSet<S>, piece: Piece<RealOf<S>>) {
        let (n0, n1) = (piece.nodes.0 as usize, piece.nodes.1 as usize);
        for (&k, &dx) in self.node_slot[n0..n1].iter().zip(&self.dx[n0..n1]) {
            ps.pos[k as usize] += dx;
        }
    }

    /// The impulse of row `j` times `s` onto `fext`.
    fn push_row(&mut self, j: usize, s: RealOf<S>) {
        let row = self.extra.rows[j];
        for p in 0..row.len {
            let n = row.nodes[p];
            if n != u32::MAX && n != GROUND {
                self.fext[n as usize] += row.g[p] * s;
            }
        }
    }

    /// `g_j · v` over the row's nodes, `v` indexed from the piece's first node.
    fn row_dot(&self, j: usize, v: &[VecOf<S>], n0: u32) -> RealOf<S> {
        let row = &self.extra.rows[j];
        let mut s = RealOf::<S>::ZERO;
        for p in 0..row.len {
            let n = row.nodes[p];
            if n != u32::MAX {
                s += row.g[p].dot(v[(n - n0) as usize]);
            }
        }
        s
    }

    /// One linearised step of bones and rows: leaves `dx` and the bones' `λ` updated and
    /// the rows' multipliers in `extra.mu`.
    fn step_with_rows(&mut self, piece: Piece<RealOf<S>>) {
        let zero = RealOf::<S>::ZERO;
        let z = VecOf::<S>::ZERO;
        let (n0, n1) = (piece.nodes.0 as usize, piece.nodes.1 as usize);
        let (r0, r1) = (piece.rows.0 as usize, piece.rows.1 as usize);
        let nn = n1 - n0;
        let k = self.extra.rows.len();
        // Δx₀: the bones alone (their multipliers restored after).
        let mut saved_lambda = core::mem::take(&mut self.extra.saved_lambda);
        saved_lambda.clear();
        saved_lambda.extend_from_slice(&self.lambda[r0..r1]);
        self.fext[n0..n1].iter_mut().for_each(|f| *f = z);
        self.eliminate(piece, RealOf::<S>::ZERO);
        self.substitute(piece);
        let mut base = core::mem::take(&mut self.extra.base);
        base.clear();
        base.extend_from_slice(&self.dx[n0..n1]);
        // D_l: unit impulses of the rows with the bones held (C = 0).
        let mut saved_c = core::mem::take(&mut self.extra.saved_c);
        saved_c.clear();
        saved_c.extend_from_slice(&self.c[r0..r1]);
        self.c[r0..r1].iter_mut().for_each(|c| *c = zero);
        let mut resp = core::mem::take(&mut self.extra.resp);
        resp.clear();
        for l in 0..k {
            self.push_row(l, RealOf::<S>::ONE);
            self.eliminate(piece, RealOf::<S>::ZERO);
            self.substitute(piece);
            resp.extend_from_slice(&self.dx[n0..n1]);
            self.fext[n0..n1].iter_mut().for_each(|f| *f = z);
        }
        self.c[r0..r1].copy_from_slice(&saved_c);
        self.lambda[r0..r1].copy_from_slice(&saved_lambda);
        // A μ = r.
        let x = &mut self.extra;
        x.a.clear();
        x.r.clear();
        x.active.clear();
        x.active.resize(k, true);
        (x.saved_lambda, x.saved_c) = (saved_lambda, saved_c);
        for j in 0..k {
            let r = -self.extra.rows[j].c - self.row_dot(j, &base, n0 as u32);
            self.extra.r.push(r);
            for l in 0..k {
                let a = self.row_dot(j, &resp[l * nn..(l + 1) * nn], n0 as u32);
                self.extra.a.push(a);
            }
        }
        (self.extra.base, self.extra.resp) = (base, resp);
        // The active set: rows that would pull are dropped, the rest solved again.
        for _ in 0..=k {
            self.solve_active(k);
            let x = &mut self.extra;
            let mut dropped = false;
            for j in 0..k {
                if x.active[j] && x.mu[j] * x.rows[j].c > zero {
                    x.active[j] = false;
                    dropped = true;
                }
            }
            if !dropped {
                break;
            }
        }
        for j in 0..k {
            if !self.extra.active[j] {
                self.extra.mu[j] = zero;
            }
        }
        // The step: bones with C, rows' impulses F = Σ g μ.
        for j in 0..k {
            let mu = self.extra.mu[j];
            self.push_row(j, mu);
        }
        self.eliminate(piece, RealOf::<S>::ZERO);
        self.substitute(piece);
        self.fext[n0..n1].iter_mut().for_each(|f| *f = z);
    }

    /// `μ` of the active rows from `A μ = r` (`LDLᵀ` of the active block, a pivot below
    /// `rel` of its diagonal dropped); inactive rows get 0.
    fn solve_active(&mut self, k: usize) {
        let zero = RealOf::<S>::ZERO;
        let x = &mut self.extra;
        let rel =
            if RealOf::<S>::FLOATING { RealOf::<S>::GEOMETRIC_EPSILON } else { RealOf::<S>::from_ratio(1, 1_000_000) };
        x.work.clear();
        x.work.extend_from_slice(&x.a);
        x.mu.clear();
        x.mu.extend_from_slice(&x.r);
        let a = &mut x.work;
        for j in 0..k {
            if !x.active[j] {
                x.mu[j] = zero;
                continue;
            }
            let mut d = a[j * k + j];
            let floor = d * rel;
            for m in 0..j {
                if x.active[m] {
                    let l = a[j * k + m];
                    d -= l * l * a[m * k + m];
                }
            }
            let d = if d > floor { d } else { zero };
            a[j * k + j] = d;
            let inv = if d > zero { RealOf::<S>::ONE / d } else { zero };
            for i in j + 1..k {
                if !x.active[i] {
                    continue;
                }
                let mut v = a[i * k + j];
                for m in 0..j {
                    if x.active[m] {
                        v -= a[i * k + m] * a[j * k + m] * a[m * k + m];
                    }
                }
                a[i * k + j] = v * inv;
            }
        }
        let mu = &mut x.mu;
        for i in 0..k {
            if !x.active[i] {
                continue;
            }
            let mut v = mu[i];
            for m in 0..i {
                if x.active[m] {
                    v -= a[i * k + m] * mu[m];
                }
            }
            mu[i] = v;
        }
        for i in 0..k {
            let d = a[i * k + i];
            mu[i] = if x.active[i] && d > zero { mu[i] / d } else { zero };
        }
        for i in (0..k).rev() {
            if !x.active[i] {
                continue;
            }
            let mut v = mu[i];
            for m in i + 1..k {
                if x.active[m] {
                    v -= a[m * k + i] * mu[m];
                }
            }
            mu[i] = v;
        }
    }
}
