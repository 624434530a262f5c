//! Ropes sharing a load: the chains of ropes that end at the same particle, solved together.
//!
//! # Why
//! A rope's chain solve (`rope/chain.rs`) is exact for one rope, its attached ends' masses
//! included. Two ropes ending at one load (a crate hung in a V, a tripod, a rope between
//! two bodies with a second rope on one of them) are two such solves that meet at the
//! load: solved one after the other, each moves the load against the other's last
//! correction, a Gauss–Seidel iteration between chains whose coupling is the load's mass
//! against the ropes' (100 : 1 for 20 kg on two 200 g ropes). The load still comes to rest,
//! but each rope's tension read-out is the share it happened to take that substep: ±7 %
//! around the statics from frame to frame on a V, and a V whose load drops into the ropes
//! or whose hooks are pulled apart rang until it blew up.
//!
//! # The method: a Schur complement at the shared particles
//! Call the particles that end two or more ropes *hubs*. With every hub held still, each
//! rope is an ordinary chain with its hub ends fixed: its tridiagonal system
//! `A Δλ = r` (`rope/chain.rs`) is solved exactly in O(n). A hub's own motion `δ` enters
//! only its rope's end row, as the right-hand side `−u·δ` (`u` the end link's direction
//! pointing away from the rope: `n₀` at a start, `−n_{m−1}` at an end), so
//!
//! ```text
//! Δλ = z − Σ_e g_e (u_e·δ_{h(e)}),     z = A⁻¹ r,   g_e = A⁻¹ e_{ρ(e)}
//! ```
//!
//! over the rope's hub ends `e` (row `ρ(e)`, hub `h(e)`). A hub moves by the impulses of its
//! ropes, `m_h δ_h = Σ_{e at h} u_e Δλ_{ρ(e)}`; substituting gives one small symmetric
//! positive definite system for the hubs' motions alone,
//!
//! ```text
//! (m_h I) δ_h + Σ_{e at h} Σ_{e' of the same rope} u_e G_{e e'} u_{e'}ᵀ δ_{h(e')} = Σ_{e at h} u_e z_{ρ(e)}
//! ```
//!
//! with `G_{ee'} = g_{e'}[ρ(e)]` the entries of `A⁻¹` at the rope's end rows: `d × d` per
//! hub (`d` = 2 or 3), dense, solved by Gaussian elimination. Back in each rope,
//! `Δλ = z − Σ g_e (u_e·δ)` moves its particles as the chain solve does and the hubs move
//! by `δ`. That is the exact Newton step of the whole group — every rope and every hub,
//! each hub's mass in it — at the cost of one more tridiagonal solve per hub end; it is
//! repeated, re-linearised, until every link is within the fine tolerance (`rope/solve.rs`).
//! A loop (two ropes both ending at the same two bodies) is the same system with two hubs.
//!
//! The multipliers are the ropes' own, so the tension read-out (`rope/tension.rs`) and
//! tearing read the converged joint solve.
//!
//! # Limits
//! A group is solved this way when its hubs are movable (a pinned or kinematic particle
//! ending two ropes splits them into independent chains, which they then are), at most
//! [`MAX_HUBS`] of them, and every hub end's neighbour along its rope is a movable
//! particle that is not a hub (otherwise the rope's system with its hubs held has a
//! row without freedom). Otherwise, and for a rope in taut mode, the ropes are solved one
//! after the other as before. A grouped rope is not laid straight when fixed particles
//! hold it beyond its length (`rope/overstretch.rs`) nor replayed in pieces when Newton
//! does not converge (`rope/solve.rs`); tethers back it up then.

use super::Rope;
use super::chain::solve_tridiagonal;
use crate::arena::{Arena, RawHandle};
use crate::constraint::SubstepContext;
use crate::math::{Real, Vector};
use crate::particle::ParticleSet;
use crate::space::{RealOf, Space, VecOf};

/// Most hubs in one group solved together (the dense system is `3·MAX_HUBS` square).
pub(crate) const MAX_HUBS: usize = 8;

/// No hub at this end.
const NONE: u32 = u32::MAX;

/// The groups of the step, and the buffers of their solve.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shared<S: Space> {
    /// Per rope (arena order): whether it is solved in a group.
    pub(crate) member: Vec<bool>,
    /// Each group's ropes (`ropes[rope_range]`) and hubs (`hubs[hub_range]`).
    groups: Vec<(u32, u32, u32, u32)>,
    /// Grouped ropes: handle, and the hub (index within its group) at each end.
    ropes: Vec<(RawHandle, [u32; 2])>,
    /// Hub particle slots.
    hubs: Vec<u32>,
    /// Attached movable rope ends: (particle slot, rope in arena order, end).
    ends: Vec<(u32, u32, u8)>,
    /// Union–find parents over the ropes (arena order).
    parent: Vec<u32>,
    /// Per rope: its group, while the groups are built.
    gid: Vec<u32>,
    /// Arena handles in arena order.
    handles: Vec<RawHandle>,
    /// Groups of two ropes meeting at one hub whose other ends are fixed (a V between two
    /// hooks): group, the two ropes (arena order) and their fixed ends' slots.
    paths: Vec<(u32, [u32; 2], [u32; 2])>,
    /// Hubs held for this iteration ([`Shared::hold`]): slot and inverse mass.
    held: Vec<(u32, RealOf<S>)>,
    /// Groups held for this iteration: group and its ropes' range end.
    held_groups: Vec<(u32, u32)>,
    // The solve's buffers.
    x: Vec<VecOf<S>>,
    w: Vec<RealOf<S>>,
    n: Vec<VecOf<S>>,
    diag: Vec<RealOf<S>>,
    upper: Vec<RealOf<S>>,
    rhs: Vec<RealOf<S>>,
    factor: Vec<RealOf<S>>,
    work: Vec<RealOf<S>>,
    /// Per grouped rope: `z`, `g_start`, `g_end` (each its segment count), one after the
    /// other, rope after rope.
    zg: Vec<RealOf<S>>,
    /// Per grouped rope: the directions `u` at its start and end.
    u: Vec<[VecOf<S>; 2]>,
    /// The hubs' dense system (row-major) and right-hand side, then `δ`.
    k: Vec<RealOf<S>>,
    b: Vec<RealOf<S>>,
}

fn root(parent: &mut [u32], mut i: u32) -> u32 {
    while parent[i as usize] != i {
        let p = parent[i as usize];
        parent[i as usize] = parent[p as usize];
        i = p;
    }
    i
}

impl<S: Space> Shared<S> {
    /// Start of a step: finds the groups (see the module docs). Allocates only while
    /// its buffers grow.
    pub(crate) fn plan(&mut self, ropes: &Arena<Rope<S>>, ps: &ParticleSet<S>) {
        let zero = RealOf::<S>::ZERO;
        self.member.clear();
        self.groups.clear();
        self.ropes.clear();
        self.hubs.clear();
        self.ends.clear();
        self.handles.clear();
        self.paths.clear();
        for (i, (h, r)) in ropes.iter().enumerate() {
            self.member.push(false);
            self.handles.push(h);
            if r.taut.active || r.sleep.sleeping {
                continue;
            }
            let last = r.idx.len() - 1;
            for (e, at) in [(0u8, 0), (1, last)] {
                let k = r.idx[at];
                if r.attached[e as usize] && ps.inv_mass[k as usize] > zero {
                    self.ends.push((k, i as u32, e));
                }
            }
        }
        if self.ends.len() < 2 {
            return;
        }
        self.ends.sort_unstable();
        let n = self.member.len();
        self.parent.clear();
        self.parent.extend(0..n as u32);
        // After the sort the ends at one particle are consecutive: a run of two or more
        // is a hub.
        let mut any = false;
        for run in self.ends.chunk_by(|a, b| a.0 == b.0).filter(|run| run.len() >= 2) {
            any = true;
            let a = root(&mut self.parent, run[0].1);
            for end in &run[1..] {
                let b = root(&mut self.parent, end.1);
                self.parent[b as usize] = a;
            }
        }
        if !any {
            return;
        }
        // Ropes by group (in the order of their roots), each hub once.
        self.gid.clear();
        self.gid.resize(n, NONE);
        for run in self.ends.chunk_by(|a, b| a.0 == b.0).filter(|run| run.len() >= 2) {
            for end in run {
                self.member[end.1 as usize] = true;
            }
        }
        for r in 0..n {
            if !self.member[r] {
                continue;
            }
            let g = root(&mut self.parent, r as u32) as usize;
            if self.gid[g] == NONE {
                self.gid[g] = self.groups.len() as u32;
                self.groups.push((0, 0, 0, 0));
            }
        }
        // Lay out each group: its ropes, then its hubs.
        for g in 0..self.groups.len() {
            let (r0, h0) = (self.ropes.len() as u32, self.hubs.len() as u32);
            for r in 0..n {
                if self.member[r] && self.gid[root(&mut self.parent, r as u32) as usize] == g as u32 {
                    self.ropes.push((self.handles[r], [NONE; 2]));
                }
            }
            for run in self.ends.chunk_by(|a, b| a.0 == b.0).filter(|run| run.len() >= 2) {
                if self.gid[root(&mut self.parent, run[0].1) as usize] != g as u32 {
                    continue;
                }
                let hub = self.hubs.len() as u32 - h0;
                self.hubs.push(run[0].0);
                for &(_, rr, end) in run {
                    let h = self.handles[rr as usize];
                    if let Some(m) = self.ropes[r0 as usize..].iter_mut().find(|m| m.0 == h) {
                        m.1[end as usize] = hub;
                    }
                }
            }
            self.groups[g] = (r0, self.ropes.len() as u32, h0, self.hubs.len() as u32);
        }
        // Groups the method does not take (see the module docs) go back to one rope at a
        // time.
        for g in 0..self.groups.len() {
            let (r0, r1, h0, h1) = self.groups[g];
            let mut ok = (h1 - h0) as usize <= MAX_HUBS;
            for &(h, hubs) in &self.ropes[r0 as usize..r1 as usize] {
                let Some(r) = ropes.get(h) else {
                    ok = false;
                    continue;
                };
                let last = r.idx.len() - 1;
                for (e, next) in [(0, 1), (1, last.saturating_sub(1))] {
                    if hubs[e] == NONE {
                        continue;
                    }
                    let nb = r.idx[next] as usize;
                    let is_hub = self.hubs[h0 as usize..h1 as usize].contains(&(nb as u32));
                    ok &= last >= 1 && ps.inv_mass[nb] > zero && !is_hub;
                }
            }
            if !ok {
                for &(h, _) in &self.ropes[r0 as usize..r1 as usize] {
                    if let Some(i) = self.handles.iter().position(|&x| x == h) {
                        self.member[i] = false;
                    }
                }
                self.groups[g].1 = r0; // (no ropes: skipped)
                continue;
            }
            // A V between two fixed ends: two ropes, one hub, the far ends fixed.
            if r1 - r0 == 2 && h1 - h0 == 1 {
                let mut far = [0u32; 2];
                let mut order = [0u32; 2];
                let mut fixed = true;
                for (k, &(h, hubs)) in self.ropes[r0 as usize..r1 as usize].iter().enumerate() {
                    let Some(r) = ropes.get(h) else { continue };
                    let slot = if hubs[0] == NONE { r.idx[0] } else { r.idx[r.idx.len() - 1] };
                    fixed &= (hubs[0] == NONE) != (hubs[1] == NONE) && ps.inv_mass[slot as usize] == zero;
                    far[k] = slot;
                    order[k] = self.handles.iter().position(|&x| x == h).unwrap_or(0) as u32;
                }
                if fixed {
                    self.paths.push((g as u32, order, far));
                }
            }
        }
    }

    /// Before an iteration's chain solves: a V between two fixed ends (see `paths`) pulled
    /// to its length or beyond cannot be solved (the straight chain's system is singular
    /// along it; `rope/overstretch.rs`): its hub is laid on the line between the fixed
    /// ends at its place along the ropes' rest lengths, moving with them, and held (inverse
    /// mass 0) for the iteration, and its two ropes go back to the one-rope solve as ropes
    /// held at both ends (`fixed_twice`, so each is laid straight and reads its tension
    /// as such a rope does). [`Shared::release`] gives the hub its mass back.
    pub(crate) fn hold(&mut self, ropes: &Arena<Rope<S>>, ps: &mut ParticleSet<S>, fixed_twice: &mut [bool]) {
        self.held.clear();
        self.held_groups.clear();
        let zero = RealOf::<S>::ZERO;
        let slack = RealOf::<S>::ONE - RealOf::<S>::from_ratio(1, 100_000);
        for &(g, order, far) in &self.paths {
            let (r0, r1, h0, _) = self.groups[g as usize];
            if r1 == r0 {
                continue;
            }
            let hub = self.hubs[h0 as usize] as usize;
            let mut rest = [zero; 2];
            for k in 0..2 {
                if let Some(r) = ropes.get(self.handles[order[k] as usize]) {
                    rest[k] = r.rest_length();
                }
            }
            let total = rest[0] + rest[1];
            let (xa, xb) = (ps.pos[far[0] as usize], ps.pos[far[1] as usize]);
            let d = (xb - xa).length();
            if !(d >= total * slack) || !(total > zero) {
                continue;
            }
            let f = rest[0] / total;
            let (va, vb) = (ps.vel[far[0] as usize], ps.vel[far[1] as usize]);
            ps.pos[hub] = xa + (xb - xa) * f;
            ps.vel[hub] = va + (vb - va) * f;
            self.held.push((hub as u32, ps.inv_mass[hub]));
            ps.inv_mass[hub] = zero;
            for k in order {
                self.member[k as usize] = false;
                if let Some(x) = fixed_twice.get_mut(k as usize) {
                    *x = true;
                }
            }
            self.groups[g as usize].1 = r0;
            self.held_groups.push((g, r1));
        }
    }

    /// After an iteration's chain solves: gives the hubs [`Shared::hold`] held their
    /// inverse masses back and their ropes back to the group.
    pub(crate) fn release(&mut self, ps: &mut ParticleSet<S>, fixed_twice: &mut [bool]) {
        if self.held.is_empty() {
            return;
        }
        for &(slot, w) in &self.held {
            ps.inv_mass[slot as usize] = w;
        }
        self.held.clear();
        for &(g, r1) in &self.held_groups {
            self.groups[g as usize].1 = r1;
            let (r0, r1, _, _) = self.groups[g as usize];
            for &(h, _) in &self.ropes[r0 as usize..r1 as usize] {
                if let Some(i) = self.handles.iter().position(|&x| x == h) {
                    self.member[i] = true;
                    if let Some(x) = fixed_twice.get_mut(i) {
                        *x = false;
                    }
                }
            }
        }
        self.held_groups.clear();
    }

    /// Whether there are groups to solve.
    pub(crate) fn any(&self) -> bool {
        self.groups.iter().any(|g| g.1 > g.0)
    }

    /// The groups' ropes (handles), for what follows their chain solve.
    pub(crate) fn grouped(&self) -> impl Iterator<Item = RawHandle> + '_ {
        self.groups.iter().flat_map(|&(r0, r1, _, _)| self.ropes[r0 as usize..r1 as usize].iter().map(|m| m.0))
    }

    /// Newton steps on every group until converged (as `rope::solve::newton` for one
    /// rope). Returns whether every grouped link ended within the coarse tolerance.
    pub(crate) fn solve(
        &mut self,
        ropes: &mut Arena<Rope<S>>,
        ps: &mut ParticleSet<S>,
        ctx: &SubstepContext<RealOf<S>>,
        tolerance: (RealOf<S>, RealOf<S>),
        first: (bool, bool),
        (max_steps, max_fine): (u32, u32),
    ) -> bool {
        let mut all = true;
        for g in 0..self.groups.len() {
            let (r0, r1, _, _) = self.groups[g];
            if r1 == r0 {
                continue;
            }
            let compliant = self.ropes[r0 as usize..r1 as usize]
                .iter()
                .any(|m| ropes.get(m.0).is_some_and(|r| r.compliance > RealOf::<S>::ZERO));
            let mut coarse = false;
            for step in 0..max_steps {
                let (converged, c) = self.step(g, ropes, ps, ctx, tolerance, (step == 0 && first.0, first.1));
                coarse = c;
                if converged || compliant || (coarse && step + 1 >= max_fine) {
                    break;
                }
            }
            all &= coarse;
        }
        all
    }

    /// One Newton step of group `g` (see the module docs). Returns whether every link is
    /// within `tolerance.0` and `tolerance.1` afterwards.
    #[allow(clippy::too_many_lines)]
    fn step(
        &mut self,
        g: usize,
        ropes: &mut Arena<Rope<S>>,
        ps: &mut ParticleSet<S>,
        ctx: &SubstepContext<RealOf<S>>,
        tolerance: (RealOf<S>, RealOf<S>),
        (first, first_substep): (bool, bool),
    ) -> (bool, bool) {
        let (zero, one) = (RealOf::<S>::ZERO, RealOf::<S>::ONE);
        let eps = RealOf::<S>::GEOMETRIC_EPSILON;
        let d = S::DIM;
        let (r0, r1, h0, h1) = self.groups[g];
        let (r0, r1, h0, h1) = (r0 as usize, r1 as usize, h0 as usize, h1 as usize);
        let nh = (h1 - h0) * d;
        self.k.clear();
        self.k.resize(nh * nh, zero);
        self.b.clear();
        self.b.resize(nh, zero);
        for (hi, &slot) in self.hubs[h0..h1].iter().enumerate() {
            let m = one / ps.inv_mass[slot as usize];
            for c in 0..d {
                self.k[(hi * d + c) * nh + hi * d + c] = m;
            }
        }
        self.zg.clear();
        self.u.clear();
        // Pass 1, rope by rope with its hubs held: z, g, u, and the hubs' system.
        for ri in r0..r1 {
            let (h, hubs) = self.ropes[ri];
            let Some(r) = ropes.get(h) else { continue };
            let m = r.rest.len();
            let fresh = first && (first_substep || r.compliance > zero);
            self.rows(r, ps, hubs, ctx, fresh);
            let base = self.zg.len();
            self.zg.resize(base + 3 * m, zero);
            self.zg[base..base + m].copy_from_slice(&self.rhs[..m]);
            solve_tridiagonal(
                &self.diag[..m],
                &self.upper[..m - 1],
                &mut self.zg[base..base + m],
                &mut self.factor[..m],
                &mut self.work[..2 * m],
            );
            let rows = [0, m - 1];
            for e in 0..2 {
                if hubs[e] == NONE {
                    continue;
                }
                let o = base + (1 + e) * m;
                self.zg[o + rows[e]] = one;
                solve_tridiagonal(
                    &self.diag[..m],
                    &self.upper[..m - 1],
                    &mut self.zg[o..o + m],
                    &mut self.factor[..m],
                    &mut self.work[..2 * m],
                );
            }
            let u = [self.n[0], -self.n[m - 1]];
            self.u.push(u);
            for e in 0..2 {
                if hubs[e] == NONE {
                    continue;
                }
                let he = hubs[e] as usize;
                let ze = self.zg[base + rows[e]];
                for c in 0..d {
                    self.b[he * d + c] += u[e].get(c) * ze;
                }
                for f in 0..2 {
                    if hubs[f] == NONE {
                        continue;
                    }
                    let hf = hubs[f] as usize;
                    let gef = self.zg[base + (1 + f) * m + rows[e]];
                    for a in 0..d {
                        for bb in 0..d {
                            self.k[(he * d + a) * nh + hf * d + bb] += u[e].get(a) * u[f].get(bb) * gef;
                        }
                    }
                }
            }
        }
        // The hubs' motions: Gaussian elimination (the system is symmetric positive
        // definite: no pivoting); `b` becomes `δ`.
        for c in 0..nh {
            let p = self.k[c * nh + c];
            if !(p > eps * eps) {
                continue;
            }
            for rr in c + 1..nh {
                let f = self.k[rr * nh + c] / p;
                if f == zero {
                    continue;
                }
                for j in c..nh {
                    let v = self.k[c * nh + j];
                    self.k[rr * nh + j] -= f * v;
                }
                let v = self.b[c];
                self.b[rr] -= f * v;
            }
        }
        for c in (0..nh).rev() {
            let p = self.k[c * nh + c];
            let mut s = self.b[c];
            for j in c + 1..nh {
                s -= self.k[c * nh + j] * self.b[j];
            }
            self.b[c] = if p > eps * eps { s / p } else { zero };
        }
        let delta = |b: &[RealOf<S>], hub: usize| {
            let mut v = VecOf::<S>::ZERO;
            for c in 0..d {
                v.set(c, b[hub * d + c]);
            }
            v
        };
        // Pass 2, rope by rope: Δλ, multipliers and positions (hubs excluded).
        let mut off = 0;
        for (k, ri) in (r0..r1).enumerate() {
            let (h, hubs) = self.ropes[ri];
            let Some(r) = ropes.get_mut(h) else { continue };
            let m = r.rest.len();
            let fresh = first && (first_substep || r.compliance > zero);
            self.gather(r, ps, hubs);
            self.directions(m);
            let u = self.u[k];
            for j in 0..m {
                let mut dl = self.zg[off + j];
                for e in 0..2 {
                    if hubs[e] != NONE {
                        dl -= self.zg[off + (1 + e) * m + j] * u[e].dot(delta(&self.b, hubs[e] as usize));
                    }
                }
                self.rhs[j] = dl;
                r.lambda[j] = if fresh { zero + dl } else { r.lambda[j] + dl };
            }
            off += 3 * m;
            for i in 0..=m {
                let wi = self.w[i];
                if wi == zero {
                    continue;
                }
                let mut dx = VecOf::<S>::ZERO;
                if i < m {
                    dx += self.n[i] * self.rhs[i];
                }
                if i > 0 {
                    dx -= self.n[i - 1] * self.rhs[i - 1];
                }
                let k = r.idx[i] as usize;
                ps.pos[k] += dx * wi;
            }
        }
        for (hi, &slot) in self.hubs[h0..h1].iter().enumerate() {
            ps.pos[slot as usize] += delta(&self.b, hi);
        }
        // Convergence: every free link measured.
        let (two_tol, two_coarse) = (tolerance.0 + tolerance.0, tolerance.1 + tolerance.1);
        let two_slop = RealOf::<S>::ROUNDING_SLOP + RealOf::<S>::ROUNDING_SLOP;
        let (mut converged, mut coarse) = (true, true);
        for ri in r0..r1 {
            let Some(r) = ropes.get(self.ropes[ri].0) else { continue };
            for (j, &l) in r.rest.iter().enumerate() {
                let (a, b) = (r.idx[j] as usize, r.idx[j + 1] as usize);
                if ps.inv_mass[a] + ps.inv_mass[b] == zero {
                    continue;
                }
                let (l2, r2) = ((ps.pos[a] - ps.pos[b]).length_squared(), l * l);
                let off = (l2 - r2).abs();
                converged &= !(off > two_tol * r2 && off > two_slop * l);
                coarse &= !(off > two_coarse * r2);
            }
        }
        (converged, coarse)
    }

    /// The rope's positions and inverse masses into the buffers, its hub ends held.
    fn gather(&mut self, r: &Rope<S>, ps: &ParticleSet<S>, hubs: [u32; 2]) {
        let m = r.rest.len();
        self.x.clear();
        self.w.clear();
        for &k in &r.idx {
            self.x.push(ps.pos[k as usize]);
            self.w.push(ps.inv_mass[k as usize]);
        }
        if hubs[0] != NONE {
            self.w[0] = RealOf::<S>::ZERO;
        }
        if hubs[1] != NONE {
            self.w[m] = RealOf::<S>::ZERO;
        }
    }

    /// Unit directions `n_j` of the gathered rope's `m` links (zero for a link without
    /// freedom or direction) and their lengths in `factor`.
    fn directions(&mut self, m: usize) {
        let (zero, eps) = (RealOf::<S>::ZERO, RealOf::<S>::GEOMETRIC_EPSILON);
        self.n.clear();
        for v in [&mut self.diag, &mut self.rhs] {
            if v.len() < m {
                v.resize(m, zero);
            }
        }
        for j in 0..m {
            let (dir, len) = (self.x[j] - self.x[j + 1]).normalize_and_length();
            let free = self.w[j] + self.w[j + 1] > zero && len > eps;
            self.n.push(if free { dir } else { VecOf::<S>::ZERO });
            self.diag[j] = len;
        }
    }

    /// The rope's tridiagonal system with its hub ends held (`chain`'s rows).
    fn rows(&mut self, r: &Rope<S>, ps: &ParticleSet<S>, hubs: [u32; 2], ctx: &SubstepContext<RealOf<S>>, fresh: bool) {
        let (zero, one, eps) = (RealOf::<S>::ZERO, RealOf::<S>::ONE, RealOf::<S>::GEOMETRIC_EPSILON);
        let m = r.rest.len();
        for v in [&mut self.diag, &mut self.upper, &mut self.rhs, &mut self.factor] {
            v.resize(m.max(1), zero);
        }
        self.work.resize(2 * m, zero);
        self.gather(r, ps, hubs);
        self.directions(m);
        let alpha_t = r.compliance * ctx.inv_h2;
        for j in 0..m {
            let len = self.diag[j];
            let lam = if fresh { zero } else { r.lambda[j] };
            if self.w[j] + self.w[j + 1] > zero && len > eps {
                self.diag[j] = self.w[j] + self.w[j + 1] + alpha_t;
                self.rhs[j] = r.rest[j] - len - alpha_t * lam;
            } else {
                (self.diag[j], self.rhs[j]) = (one, zero);
            }
        }
        for j in 0..m.saturating_sub(1) {
            self.upper[j] = -(self.w[j + 1] * self.n[j].dot(self.n[j + 1]));
        }
    }
}
