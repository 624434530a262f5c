//! The velocity solve of restitution: the tree's rows with velocity errors as right-hand
//! side (see "Restitution" in [`crate::contact`]).

use super::{Piece, TreeSolver};
use crate::dim::{BaseSpace as Space, RealOf, VecOf};
use crate::math::{Real, Vector};
use crate::particle::ParticleSet;

impl<S: Space> TreeSolver<S> {
    /// The velocity solve of restitution (see "Restitution" in [`crate::contact`]): for
    /// the pieces holding a particle listed in `bouncing`, the rigid links' velocity rows
    /// `n_i·(v_a − v_b) = 0` solved exactly — the same matrix as the position solve, with
    /// the rows' velocity errors as right-hand side — with each particle in
    /// [`pushed`](Self::pushed) heavy along its contact normal, as in
    /// [`solve_after_contacts`](Self::solve_after_contacts). A heavy particle keeps the
    /// normal velocity the velocity pass gave it (to `1/κ`), and the rest of the body takes
    /// the velocity its bones allow. A bounce is a normal impulse, so a particle held by
    /// static friction is heavy along its normal only here: its tangential velocity is the
    /// bones' and the next substep's friction's (heavy in every direction, the knife-edge
    /// of static friction decided the bounce: the fixed-point and `f64` runs of
    /// `scenes/ragdolls_2d.json` parted by 1 cm within 0.5 s, against 0.3 mm so). One
    /// linear solve, no Newton steps; the links' multipliers (tension readouts) are left as
    /// they were.
    pub(crate) fn solve_velocities(&mut self, ps: &mut ParticleSet<S>, bouncing: &[u32]) {
        let zero = RealOf::<S>::ZERO;
        let z = VecOf::<S>::ZERO;
        let piece_of = |pieces: &[Piece<RealOf<S>>], node: u32| pieces.partition_point(|p| p.nodes.1 <= node);
        let mut any = false;
        for &k in bouncing {
            let Some(&node) = self.node_of.get(k as usize) else { continue };
            if node != u32::MAX {
                self.struck[piece_of(&self.pieces, node)] = true;
                any = true;
            }
        }
        if !any {
            return;
        }
        for &(k, normal, _) in &self.pushed {
            let Some(&node) = self.node_of.get(k as usize) else { continue };
            if node == u32::MAX || !self.struck[piece_of(&self.pieces, node)] {
                continue;
            }
            let h = &mut self.heavy[node as usize];
            *h = if *h == z { normal } else { (*h + normal).normalize_or_zero() };
        }
        let eps = RealOf::<S>::GEOMETRIC_EPSILON;
        for i in 0..self.pieces.len() {
            if !self.struck[i] {
                continue;
            }
            self.struck[i] = false;
            let piece = self.pieces[i];
            if !self.asleep[i] {
                for r in piece.rows.0 as usize..piece.rows.1 as usize {
                    let row = self.rows[r];
                    let (a, b) = (row.pa as usize, row.pb as usize);
                    let d = ps.pos[a] - ps.pos[b];
                    let l2 = d.length_squared();
                    if l2 <= eps * eps {
                        (self.n[r], self.c[r]) = (z, zero);
                        continue;
                    }
                    let n = d * l2.sqrt_recip().1;
                    self.n[r] = n;
                    self.c[r] = n.dot(ps.vel[a] - ps.vel[b]);
                }
                // The multipliers are the position solve's; `substitute` adds to them.
                let rows = piece.rows.0 as usize..piece.rows.1 as usize;
                self.saved_lambda.clear();
                self.saved_lambda.extend_from_slice(&self.lambda[rows.clone()]);
                self.eliminate(piece, RealOf::<S>::ZERO);
                self.substitute(piece);
                self.lambda[rows].copy_from_slice(&self.saved_lambda);
                for n in piece.nodes.0..piece.nodes.1 {
                    let k = self.node_slot[n as usize] as usize;
                    ps.vel[k] += self.dx[n as usize];
                }
            }
            let (n0, n1) = piece.nodes;
            self.heavy[n0 as usize..n1 as usize].iter_mut().for_each(|h| *h = z);
            self.stick[n0 as usize..n1 as usize].iter_mut().for_each(|h| *h = false);
        }
    }
}

impl<S: Space> TreeSolver<S> {
    /// The piece (tree-solved body) holding particle slot `k`.
    pub(crate) fn piece_of_slot(&self, k: usize) -> Option<u32> {
        let &node = self.node_of.get(k)?;
        if node == u32::MAX {
            return None;
        }
        Some(self.pieces.partition_point(|p| p.nodes.1 <= node) as u32)
    }

    /// The particle slots of piece `i` (its nodes).
    pub(crate) fn piece_slots(&self, i: u32) -> &[u32] {
        let (n0, n1) = self.pieces[i as usize].nodes;
        &self.node_slot[n0 as usize..n1 as usize]
    }
}
