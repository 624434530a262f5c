//! The factorisation of one piece: per node `K = (M + P)⁻¹`, elimination from the leaves
//! to the root (loops as dense blocks) and back substitution (the method is in the module
//! docs of [`super`]).

use super::{Block, CONTACT_HEAVY, GROUND, Piece, Sym, TreeSolver};
use crate::dim::{BaseSpace as Space, RealOf, VecOf};
use crate::math::{Real, Vector};

impl<S: Space> TreeSolver<S> {
    /// `K = (M + P)⁻¹` of node `q` and `e = K b`.
    pub(super) fn finish_node(&mut self, q: usize) {
        let (w, h) = (self.w[q], self.heavy[q]);
        let z = VecOf::<S>::ZERO;
        if !self.node_inner[q] && h == z {
            self.k[q] = Sym([w, w, w, RealOf::<S>::ZERO, RealOf::<S>::ZERO, RealOf::<S>::ZERO]);
            // `b` is the external impulse of the rows' solve (zero otherwise).
            self.e[q] = self.b[q] * w;
            return;
        }
        let m = self.m[q];
        let mut a = self.p[q];
        for d in 0..VecOf::<S>::DIM {
            a.0[d] += m;
        }
        if h != z {
            let heavy = m * RealOf::<S>::from_i32(CONTACT_HEAVY);
            if self.stick[q] {
                for d in 0..VecOf::<S>::DIM {
                    a.0[d] += heavy;
                }
            } else {
                a.add_outer(h, h, heavy);
            }
        }
        self.k[q] = a.inverse(VecOf::<S>::DIM);
        self.e[q] = self.k[q].mul(self.b[q]);
    }

    /// The elimination from the leaves: each block's `y`, `X`, and its root's `P`, `b`.
    /// `damping`: the Levenberg–Marquardt `μ` added to every row's diagonal (zero but for
    /// a wild step, module docs).
    pub(super) fn eliminate(&mut self, piece: Piece<RealOf<S>>, damping: RealOf<S>) {
        let zero = RealOf::<S>::ZERO;
        let z = VecOf::<S>::ZERO;
        for n in piece.nodes.0 as usize..piece.nodes.1 as usize {
            self.p[n] = Sym::zero();
            self.b[n] = self.fext[n];
        }
        for bi in piece.blocks.0..piece.blocks.1 {
            let blk = self.blocks[bi as usize];
            for mi in blk.members.0..blk.members.1 {
                self.finish_node(self.members[mi as usize] as usize);
            }
            let (r0, r1) = (blk.rows.0 as usize, blk.rows.1 as usize);
            if r1 - r0 == 1 {
                // A bridge: the scalar formulas (the signs ±1 applied by negation,
                // which is what a product with ±1 gives, bit for bit).
                let row = self.rows[r0];
                let (q, down) = if row.na == blk.root { (row.nb, true) } else { (row.na, false) };
                let sign = |v: VecOf<S>| if down { -v } else { v };
                let n = self.n[r0];
                let s = n.dot(self.k[q as usize].mul(n)) + damping;
                if s > zero && n != z {
                    let d = n.dot(self.e[q as usize]);
                    let rho = -self.c[r0] - if down { -d } else { d };
                    let inv = RealOf::<S>::ONE / s;
                    self.y[r0] = rho * inv;
                    // J_c = −sign·n.
                    self.x[r0] = n * if down { inv } else { -inv };
                } else {
                    (self.y[r0], self.x[r0]) = (zero, z);
                    self.exact = false;
                }
                if blk.root != GROUND {
                    let c = blk.root as usize;
                    let jc = -sign(n);
                    self.p[c].add_outer_unit(jc, self.x[r0]);
                    self.b[c] += jc * self.y[r0];
                }
            } else {
                self.eliminate_loop(blk, damping);
            }
        }
        if piece.root != GROUND {
            let r = piece.root as usize;
            self.finish_node(r);
        }
    }

    /// A loop block: `S = Σ_q J_q K_q J_qᵀ` by `LDLᵀ`, `y = S⁻¹ρ`, `X = S⁻¹J_c`.
    ///
    /// Each row touches two nodes, so `S` is built row by row from the row's own ends
    /// (in the order of the block's members) and the earlier rows that share one.
    pub(super) fn eliminate_loop(&mut self, blk: Block, damping: RealOf<S>) {
        let zero = RealOf::<S>::ZERO;
        let z = VecOf::<S>::ZERO;
        let (r0, r1) = (blk.rows.0 as usize, blk.rows.1 as usize);
        let m = r1 - r0;
        self.dense.clear();
        self.dense.resize(m * m, zero);
        let rows = &self.rows[r0..r1];
        let ns = &self.n[r0..r1];
        for (i, (ri, &ni)) in rows.iter().zip(ns).enumerate() {
            let mut rho = -self.c[r0 + i];
            let mut ends = [(ri.na, ri.ma, ni), (ri.nb, ri.mb, -ni)];
            if ri.mb < ri.ma {
                ends.swap(0, 1);
            }
            let dense = &mut self.dense[i * m..=i * m + i];
            for (q, at, gi) in ends {
                if at == u16::MAX || gi == z {
                    continue;
                }
                let q = q as usize;
                rho -= gi.dot(self.e[q]);
                let kg = self.k[q].mul(gi);
                for ((rj, &nj), d) in rows.iter().zip(ns).zip(dense.iter_mut()) {
                    let gj = if rj.na as usize == q {
                        nj
                    } else if rj.nb as usize == q {
                        -nj
                    } else {
                        continue;
                    };
                    *d += gj.dot(kg);
                }
            }
            self.y[r0 + i] = rho;
            self.x[r0 + i] = if blk.root == GROUND {
                z
            } else if ri.na == blk.root {
                ni
            } else if ri.nb == blk.root {
                -ni
            } else {
                z
            };
        }
        // The Levenberg–Marquardt damping of a wild step (zero otherwise).
        if damping > zero {
            for i in 0..m {
                self.dense[i * m + i] += damping;
            }
        }
        // LDLᵀ in place (D on the diagonal, L below), dependent rows dropped.
        let a = &mut self.dense;
        let rel =
            if RealOf::<S>::FLOATING { RealOf::<S>::GEOMETRIC_EPSILON } else { RealOf::<S>::from_ratio(1, 1_000_000) };
        for j in 0..m {
            let (above, rest) = a.split_at_mut(j * m + m);
            let mut d = above[j * m + j];
            let floor = d * rel;
            for k in 0..j {
                let l = above[j * m + k];
                d -= l * l * above[k * m + k];
            }
            let d = if d > floor {
                d
            } else {
                self.exact = false;
                zero
            };
            above[j * m + j] = d;
            let inv = if d > zero { RealOf::<S>::ONE / d } else { zero };
            let row_j = &above[j * m..j * m + j];
            for row_i in rest.chunks_exact_mut(m) {
                let mut v = row_i[j];
                for (k, &ljk) in row_j.iter().enumerate() {
                    v -= row_i[k] * ljk * above[k * m + k];
                }
                row_i[j] = v * inv;
            }
        }
        // Solve for `y` and the columns of `X` at once (`L`, `D`, `Lᵀ`).
        let (y, x) = (&mut self.y[r0..r1], &mut self.x[r0..r1]);
        for i in 0..m {
            let (mut v, mut u) = (y[i], x[i]);
            let row_i = &a[i * m..i * m + i];
            for (k, &l) in row_i.iter().enumerate() {
                v -= l * y[k];
                u -= x[k] * l;
            }
            (y[i], x[i]) = (v, u);
        }
        for i in 0..m {
            let d = a[i * m + i];
            let inv = if d > zero { RealOf::<S>::ONE / d } else { zero };
            y[i] *= inv;
            x[i] *= inv;
        }
        for i in (0..m).rev() {
            let (mut v, mut u) = (y[i], x[i]);
            for k in i + 1..m {
                let l = a[k * m + i];
                v -= l * y[k];
                u -= x[k] * l;
            }
            (y[i], x[i]) = (v, u);
        }
        if blk.root != GROUND {
            let c = blk.root as usize;
            for (i, ri) in self.rows[r0..r1].iter().enumerate() {
                let jc = if ri.na == blk.root {
                    self.n[r0 + i]
                } else if ri.nb == blk.root {
                    -self.n[r0 + i]
                } else {
                    continue;
                };
                self.p[c].add_outer_unit(jc, self.x[r0 + i]);
                self.b[c] += jc * self.y[r0 + i];
            }
        }
    }

    /// The pass back from the root: every `Δλ` (left in `y`) and `Δx`.
    pub(super) fn substitute(&mut self, piece: Piece<RealOf<S>>) {
        let z = VecOf::<S>::ZERO;
        if piece.root != GROUND {
            let r = piece.root as usize;
            self.dx[r] = self.e[r];
        }
        for bi in (piece.blocks.0..piece.blocks.1).rev() {
            let blk = self.blocks[bi as usize];
            let dxc = if blk.root == GROUND { z } else { self.dx[blk.root as usize] };
            for mi in blk.members.0..blk.members.1 {
                self.f[self.members[mi as usize] as usize] = z;
            }
            for r in blk.rows.0 as usize..blk.rows.1 as usize {
                let dl = self.y[r] - self.x[r].dot(dxc);
                self.lambda[r] += dl;
                // Kept for a step refused or shortened (`TreeSolver::take_back`).
                self.y[r] = dl;
                let row = self.rows[r];
                let n = self.n[r] * dl;
                if row.na != blk.root {
                    self.f[row.na as usize] += n;
                }
                if row.nb != blk.root {
                    self.f[row.nb as usize] -= n;
                }
            }
            for mi in blk.members.0..blk.members.1 {
                let q = self.members[mi as usize] as usize;
                self.dx[q] = self.k[q].mul(self.f[q]) + self.e[q];
            }
        }
    }
}
