//! The constraint sweep: one Gauss–Seidel pass over a world's constraints per iteration,
//! in the order of [`super::order`] (projected distances, bending, attachments, joint
//! limits, then the exact trees of [`super::tree`] and the tethers).

use super::JointSpace as Space;
use super::order::ConstraintOrdering;
use super::{Attachment, Bending, Distance, JointLimitSolver, SubstepContext, Tether};
use crate::arena::Arena;
use crate::dim::{RealOf, VecOf};
use crate::math::{Real, Vector};
use crate::particle::ParticleSet;

/// The constraints a sweep projects.
pub(crate) struct Sweep<'a, S: Space> {
    pub distances: &'a mut Arena<Distance<RealOf<S>>>,
    pub bendings: &'a mut Arena<Bending<RealOf<S>>>,
    pub tethers: &'a Arena<Tether<RealOf<S>>>,
    pub attachments: &'a mut Arena<Attachment<S>>,
    pub limits: &'a mut Arena<S::JointLimit>,
    pub order: &'a mut ConstraintOrdering<S>,
    /// Every distance is rigid this step: they are projected as rows of independent links.
    pub distances_rigid: bool,
}

#[inline(never)] // a stage of the step (see the note in `World::step_with`)
pub(crate) fn solve<S: Space>(c: Sweep<'_, S>, ps: &mut ParticleSet<S>, ctx: &SubstepContext<RealOf<S>>, first: bool) {
    let Sweep { distances, bendings, tethers, attachments, limits, order, distances_rigid } = c;
    let zero = RealOf::<S>::ZERO;
    // Multipliers restart at 0 every substep (XPBD with substeps, one pass each).
    if distances_rigid {
        // All links rigid (a crowd of ragdolls): rows of independent links, projected
        // together (the same results as one after another).
        order.link_rows.solve(ps, first);
    } else {
        for &slot in &order.distances {
            if let Some(c) = distances.values[slot as usize].as_mut() {
                if first {
                    c.lambda = zero;
                }
                c.solve(ps, ctx);
            }
        }
    }
    for c in bendings.values_mut() {
        if first {
            c.lambda = zero;
        }
        c.solve(ps, ctx);
    }
    for c in attachments.values_mut() {
        if first {
            c.lambda = VecOf::<S>::ZERO;
        }
        c.solve(ps, ctx);
    }
    for &slot in &order.limits {
        if let Some(c) = limits.values[slot as usize].as_mut() {
            if first {
                c.reset();
            }
            c.solve(ps, ctx);
        }
    }
    // Tree-shaped groups of rigid links last, exactly (see `super::tree`): the limits'
    // corrections turn bones, and the solve takes them back to their lengths.
    order.trees.solve(ps, first, limits);
    // Tethers last: a tether is a guarantee (no particle beyond its reach).
    for c in tethers.values() {
        c.solve(ps, ctx);
    }
}
