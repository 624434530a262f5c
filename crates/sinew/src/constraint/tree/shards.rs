//! The trees in shards, solved side by side on rayon's threads (feature `parallel`).
//!
//! # Why it is deterministic
//! Each piece of the plan (one connected group of movable particles: a ragdoll) is
//! solved from its own nodes' and rows' buffers and moves only its own particles; the
//! particles it only reads are pinned ones (its ground), which no piece writes (see
//! [`Positions`]). So a piece computes exactly the same whatever else runs at the same time
//! and in whatever order the pieces run. The pieces are cut into shards of
//! [`SHARD_PIECES`] consecutive pieces — a cut fixed by the plan, not by the thread
//! count — and each shard is a [`TreeSolver`] of its own (its buffers, its dense-block
//! scratch). The thread count only decides which thread solves which shard; one shard
//! (a world of a few ragdolls) is solved on the calling thread without rayon.
//!
//! Only the per-iteration solve ([`Trees::solve`]) runs in parallel; the solves after
//! contacts and of velocities (a few struck pieces a substep) go shard by shard on the
//! calling thread.

use super::TreeSolver;
use crate::arena::Arena;
use crate::constraint::Distance;
use crate::dim::{BaseSpace as Space, RealOf, VecOf};
use crate::particle::ParticleSet;

/// Pieces per shard: enough work per shard (16 `humanoid16` ragdolls, ~10 µs a solve) that
/// handing a shard to a thread costs little against it, and few enough that a crowd of a
/// few hundred splits evenly over the threads.
pub(crate) const SHARD_PIECES: usize = 16;

/// The tree plan of a world (see [`super`]), in shards of [`SHARD_PIECES`] pieces.
#[derive(Clone, Debug, Default)]
pub(crate) struct Trees<S: Space> {
    shards: Vec<TreeSolver<S>>,
    /// Per particle slot: its shard (`u32::MAX`: none).
    shard_of: Vec<u32>,
    /// Per distance slot: solved here (not projected).
    pub in_tree: Vec<bool>,
    /// The particles contacts pushed this substep: `(slot, normal, held by static
    /// friction)`, filled by the world before [`solve_after_contacts`](Self::solve_after_contacts)
    /// and [`solve_velocities`](Self::solve_velocities).
    pub pushed: Vec<(u32, VecOf<S>, bool)>,
    /// Per shard: the bouncing particles routed to it.
    bouncing: Vec<Vec<u32>>,
}

impl<S: Space> Trees<S> {
    /// Whether any group is tree-solved.
    pub(crate) fn is_empty(&self) -> bool {
        self.shards.iter().all(TreeSolver::is_empty)
    }

    /// Whether which particles are pinned changed since the plan was built.
    pub(crate) fn pins_changed(&self, ps: &ParticleSet<S>) -> bool {
        self.shards.first().is_some_and(|s| s.pins_changed(ps))
    }

    /// Builds the plan (see [`TreeSolver::build`]).
    pub(crate) fn build(
        &mut self,
        distances: &Arena<Distance<RealOf<S>>>,
        ps: &ParticleSet<S>,
        how: (bool, Option<&[bool]>),
    ) {
        TreeSolver::build_shards(&mut self.shards, SHARD_PIECES, distances, ps, how);
        self.shard_of.clear();
        self.shard_of.resize(ps.inv_mass.len(), u32::MAX);
        self.in_tree.clear();
        self.in_tree.resize(distances.values.len(), false);
        for (j, s) in self.shards.iter().enumerate() {
            for (k, &node) in s.node_of.iter().enumerate() {
                if node != u32::MAX {
                    self.shard_of[k] = j as u32;
                }
            }
            for (t, &mine) in self.in_tree.iter_mut().zip(&s.in_tree) {
                *t |= mine;
            }
        }
        self.bouncing.resize_with(self.shards.len(), Vec::new);
        self.bouncing.truncate(self.shards.len());
    }

    /// The masses of the step (see [`TreeSolver::prepare`]).
    pub(crate) fn prepare(&mut self, ps: &ParticleSet<S>) {
        self.shards.iter_mut().for_each(|s| s.prepare(ps));
    }

    /// Marks the pieces near a collider (see [`TreeSolver::mark_near`]).
    pub(crate) fn mark_near(&mut self, near: impl Iterator<Item = u32>) {
        self.shards.iter_mut().for_each(TreeSolver::clear_near);
        for k in near {
            if let Some(&j) = self.shard_of.get(k as usize).filter(|&&j| j != u32::MAX) {
                self.shards[j as usize].mark_near_one(k);
            }
        }
    }

    /// Solves every tree; `first`: the substep's first iteration. Shards side by side on
    /// the current rayon pool when there are several (and the `parallel` feature is on).
    pub(crate) fn solve<L: crate::constraint::JointLimitSolver<S>>(
        &mut self,
        ps: &mut ParticleSet<S>,
        first: bool,
        limits: &mut Arena<L>,
    ) {
        if self.limit_rows() {
            // The rows read and write the world's joint limits: one shard after another.
            self.shards.iter_mut().for_each(|s| s.solve_with_rows(ps, first, limits));
            return;
        }
        each_shard(&mut self.shards, ps, |s, view| s.solve(view, first), |s, ps| s.solve(ps, first));
    }

    /// Turns the limit rows (`WorldDef::limit_rows`, see `extra`) on or off.
    pub(crate) fn set_limit_rows(&mut self, on: bool) {
        self.shards.iter_mut().for_each(|s| s.extra.enabled = on);
    }

    /// Whether the limit rows are on.
    pub(crate) fn limit_rows(&self) -> bool {
        self.shards.first().is_some_and(|s| s.extra.enabled)
    }

    /// Sorts the world's joint limits by the piece they act on, shard by shard (see
    /// `TreeSolver::attach_limits`; a shard keeps the limits of its own pieces).
    pub(crate) fn attach_limits(&mut self, limits: &[(u32, usize)]) {
        self.shards.iter_mut().for_each(|s| s.attach_limits(limits.iter().copied()));
    }

    /// The solve after contacts with limit rows, one shard after another: each shard's
    /// struck trees are marked, `planes` gives the shard its contact planes (see
    /// `TreeSolver::solve_struck_with_rows`), and they are solved with their rows.
    pub(crate) fn solve_after_contacts_with_rows<L: crate::constraint::JointLimitSolver<S>>(
        &mut self,
        ps: &mut ParticleSet<S>,
        limits: &mut Arena<L>,
        mut planes: impl FnMut(&mut TreeSolver<S>),
    ) {
        self.route_pushed();
        for s in &mut self.shards {
            if s.mark_struck() {
                planes(s);
                s.solve_struck_with_rows(ps, limits);
            }
        }
    }

    /// Routes [`pushed`](Self::pushed) to the shards (in its order).
    fn route_pushed(&mut self) {
        for s in &mut self.shards {
            s.pushed.clear();
        }
        for &(k, n, stick) in &self.pushed {
            if let Some(&j) = self.shard_of.get(k as usize).filter(|&&j| j != u32::MAX) {
                self.shards[j as usize].pushed.push((k, n, stick));
            }
        }
    }

    /// Solves again the trees a contact pushed (see [`TreeSolver::solve_after_contacts`]).
    pub(crate) fn solve_after_contacts(&mut self, ps: &mut ParticleSet<S>) {
        self.route_pushed();
        let struck = |s: &TreeSolver<S>| !s.pushed.is_empty();
        each_shard(
            &mut self.shards,
            ps,
            |s, view| {
                if struck(s) {
                    s.solve_after_contacts(view);
                }
            },
            |s, ps| {
                if struck(s) {
                    s.solve_after_contacts(ps);
                }
            },
        );
    }

    /// The velocity solve of restitution (see [`TreeSolver::solve_velocities`]).
    pub(crate) fn solve_velocities(&mut self, ps: &mut ParticleSet<S>, bouncing: &[u32]) {
        self.route_pushed();
        self.bouncing.iter_mut().for_each(Vec::clear);
        for &k in bouncing {
            if let Some(&j) = self.shard_of.get(k as usize).filter(|&&j| j != u32::MAX) {
                self.bouncing[j as usize].push(k);
            }
        }
        for (s, b) in self.shards.iter_mut().zip(&self.bouncing) {
            if !b.is_empty() {
                s.solve_velocities(ps, b);
            }
        }
    }

    /// Whether particle slot `k` belongs to a tree-solved body.
    #[inline]
    pub(crate) fn holds(&self, k: usize) -> bool {
        self.shard_of.get(k).is_some_and(|&j| j != u32::MAX)
    }

    /// The tree-solved body particle slot `k` belongs to: `(shard, piece)`.
    pub(crate) fn body_of(&self, k: usize) -> Option<(u32, u32)> {
        let j = *self.shard_of.get(k).filter(|&&j| j != u32::MAX)?;
        Some((j, self.shards[j as usize].piece_of_slot(k)?))
    }

    /// The particle slots of body `b` (from [`body_of`](Self::body_of)).
    pub(crate) fn body_slots(&self, b: (u32, u32)) -> &[u32] {
        self.shards[b.0 as usize].piece_slots(b.1)
    }

    /// Writes the multipliers back to the links.
    pub(crate) fn store_lambdas(&self, distances: &mut Arena<Distance<RealOf<S>>>) {
        self.shards.iter().for_each(|s| s.store_lambdas(distances));
    }
}

/// The particles' positions as the solve reads and moves them: a [`ParticleSet`] on the
/// calling thread, or a shard's view of one while shards are solved side by side
/// (the shards of this module).
pub(crate) trait Positions<S: Space> {
    fn pos(&self, k: usize) -> VecOf<S>;
    fn inv_mass(&self, k: usize) -> RealOf<S>;
    fn add(&mut self, k: usize, d: VecOf<S>);
    fn sub(&mut self, k: usize, d: VecOf<S>);
}

impl<S: Space> Positions<S> for ParticleSet<S> {
    #[inline]
    fn pos(&self, k: usize) -> VecOf<S> {
        self.pos[k]
    }
    #[inline]
    fn inv_mass(&self, k: usize) -> RealOf<S> {
        self.inv_mass[k]
    }
    #[inline]
    fn add(&mut self, k: usize, d: VecOf<S>) {
        self.pos[k] += d;
    }
    #[inline]
    fn sub(&mut self, k: usize, d: VecOf<S>) {
        self.pos[k] -= d;
    }
}

/// Runs `parallel` on every shard side by side with a shared view of the particles (when
/// there are several shards, the pool has several threads and the `parallel` feature is
/// on), else `serial` on each in order. Both must compute the same: they are one generic
/// function called with either view.
fn each_shard<S: Space>(
    shards: &mut [TreeSolver<S>],
    ps: &mut ParticleSet<S>,
    #[cfg_attr(not(feature = "parallel"), allow(unused_variables))] parallel: impl Fn(
        &mut TreeSolver<S>,
        &mut Shared<'_, S>,
    ) + Sync
    + Send,
    serial: impl Fn(&mut TreeSolver<S>, &mut ParticleSet<S>),
) {
    #[cfg(feature = "parallel")]
    if shards.len() > 1 && rayon::current_num_threads() > 1 {
        use rayon::prelude::*;
        let shared = Shared::new(ps);
        shards.par_iter_mut().with_max_len(1).for_each(|s| {
            let mut view = shared;
            parallel(s, &mut view);
        });
        return;
    }
    for s in shards {
        serial(s, ps);
    }
}

/// A shard's view of the particles while shards are solved side by side: positions read
/// and moved through a pointer shared by the threads.
///
/// Sound because the pieces' particle sets are disjoint: a movable particle belongs to
/// exactly one piece (pieces are the connected groups of links between movable
/// particles), a piece moves only its own particles (`TreeSolver::solve_piece` adds its
/// nodes' steps; `TreeSolver::project` writes an end only if it is movable now, and one
/// movable now was movable when the plan was built, or the plan would have been rebuilt:
/// `pins_changed`), and the other particles a piece reads are its pinned ground, which no
/// piece writes. The set itself is borrowed mutably for the whole parallel solve, so
/// nothing else touches it meanwhile.
pub(crate) struct Shared<'a, S: Space> {
    pos: *mut VecOf<S>,
    len: usize,
    inv_mass: &'a [RealOf<S>],
}

impl<S: Space> Clone for Shared<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Space> Copy for Shared<'_, S> {}

// SAFETY: see the type's docs: threads write disjoint elements, and read only elements
// no thread writes or that they write themselves.
unsafe impl<S: Space> Send for Shared<'_, S> {}
// SAFETY: as above.
unsafe impl<S: Space> Sync for Shared<'_, S> {}

#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
impl<'a, S: Space> Shared<'a, S> {
    fn new(ps: &'a mut ParticleSet<S>) -> Self {
        let len = ps.pos.len();
        let pos = ps.pos.as_mut_ptr();
        Self { pos, len, inv_mass: &ps.inv_mass }
    }
}

impl<S: Space> Positions<S> for Shared<'_, S> {
    #[inline]
    fn pos(&self, k: usize) -> VecOf<S> {
        assert!(k < self.len);
        // SAFETY: in bounds; no other thread writes element `k` (type docs).
        unsafe { *self.pos.add(k) }
    }
    #[inline]
    fn inv_mass(&self, k: usize) -> RealOf<S> {
        self.inv_mass[k]
    }
    #[inline]
    fn add(&mut self, k: usize, d: VecOf<S>) {
        assert!(k < self.len);
        // SAFETY: in bounds; element `k` is this piece's alone (type docs).
        unsafe { *self.pos.add(k) += d }
    }
    #[inline]
    fn sub(&mut self, k: usize, d: VecOf<S>) {
        assert!(k < self.len);
        // SAFETY: as in `add`.
        unsafe { *self.pos.add(k) -= d }
    }
}
