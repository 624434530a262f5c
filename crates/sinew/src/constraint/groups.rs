//! The groups of constraints connected through shared particles (a ragdoll, a chain of
//! distances): what the impact passes act on (see [`crate::impact`]).

use super::JointSpace as Space;
use super::{Distance, JointLimit};
use crate::arena::Arena;
use crate::dim::RealOf;

/// The groups of constraints connected through shared particles (a ragdoll, a chain of
/// distances), for the impact passes: per particle slot its group (`u32::MAX`: none),
/// and per group its distance and joint-limit slots in slot order (compressed rows).
#[derive(Clone, Debug, Default)]
pub(crate) struct ConstraintGroups {
    pub of: Vec<u32>,
    pub dist_at: Vec<u32>,
    pub dist: Vec<u32>,
    pub lim_at: Vec<u32>,
    pub lim: Vec<u32>,
    /// Per group: the stamp of the last substep it was struck in.
    pub mark: Vec<u32>,
    pub stamp: u32,
    /// The groups struck this substep.
    pub hit: Vec<u32>,
    /// Per group: its place in `hit` (valid for the groups marked this substep).
    pub of_hit: Vec<u32>,
    /// Per struck group (as in `hit`): its particles' contacts.
    pub hit_contacts: Vec<Vec<u32>>,
}

impl ConstraintGroups {
    /// Rebuilds the groups of a world's distances and joint limits over `particle_slots`.
    pub fn rebuild<S: Space>(
        &mut self,
        particle_slots: usize,
        distances: &Arena<Distance<RealOf<S>>>,
        limits: &Arena<S::JointLimit>,
    ) {
        let dist = super::order::distance_items(distances);
        let lims: Vec<(u32, Vec<usize>)> = limits.iter().map(|(h, l)| (h.index, l.particle_indices())).collect();
        self.build(particle_slots, &dist, &lims);
    }

    pub fn build<P: AsRef<[usize]>>(&mut self, particle_slots: usize, dist: &[(u32, [usize; 2])], lims: &[(u32, P)]) {
        let mut parent: Vec<u32> = (0..particle_slots as u32).collect();
        for (_, ps) in dist {
            join(&mut parent, ps);
        }
        for (_, ps) in lims {
            join(&mut parent, ps.as_ref());
        }
        // Groups numbered by their first constraint (distances first), so deterministic.
        let mut id_of_root = vec![u32::MAX; particle_slots];
        let mut next = 0u32;
        let mut group_of = |p: usize, parent: &mut Vec<u32>| {
            let root = find(parent, p as u32) as usize;
            if id_of_root[root] == u32::MAX {
                id_of_root[root] = next;
                next += 1;
            }
            id_of_root[root]
        };
        let dg: Vec<u32> = dist.iter().map(|(_, ps)| group_of(ps[0], &mut parent)).collect();
        let lg: Vec<u32> =
            lims.iter().map(|(_, ps)| ps.as_ref().first().map_or(u32::MAX, |&p| group_of(p, &mut parent))).collect();
        let groups = next as usize;
        self.of = (0..particle_slots)
            .map(|p| {
                let root = find(&mut parent, p as u32) as usize;
                id_of_root[root]
            })
            .collect();
        let rows = |items: &[(u32, u32)], at: &mut Vec<u32>, out: &mut Vec<u32>| {
            at.clear();
            at.resize(groups + 1, 0);
            for &(_, g) in items {
                at[g as usize + 1] += 1;
            }
            for g in 0..groups {
                at[g + 1] += at[g];
            }
            let mut fill = at.clone();
            out.clear();
            out.resize(items.len(), 0);
            for &(slot, g) in items {
                out[fill[g as usize] as usize] = slot;
                fill[g as usize] += 1;
            }
        };
        let di: Vec<(u32, u32)> = dist.iter().zip(&dg).map(|(&(slot, _), &g)| (slot, g)).collect();
        let li: Vec<(u32, u32)> =
            lims.iter().zip(&lg).filter(|&(_, &g)| g != u32::MAX).map(|((slot, _), &g)| (*slot, g)).collect();
        rows(&di, &mut self.dist_at, &mut self.dist);
        rows(&li, &mut self.lim_at, &mut self.lim);
        self.mark.clear();
        self.mark.resize(groups, 0);
        self.stamp = 0;
    }
}

/// Union–find over particle slots: the root of `k` (with path halving).
pub(crate) fn find(parent: &mut [u32], mut k: u32) -> u32 {
    while parent[k as usize] != k {
        let up = parent[parent[k as usize] as usize];
        parent[k as usize] = up;
        k = up;
    }
    k
}

/// Union–find: puts all of `ps` in one set, the smallest root as its root (deterministic).
pub(crate) fn join(parent: &mut [u32], ps: &[usize]) {
    let Some(&first) = ps.first() else { return };
    for &p in &ps[1..] {
        let (ra, rb) = (find(parent, first as u32), find(parent, p as u32));
        if ra != rb {
            parent[ra.max(rb) as usize] = ra.min(rb);
        }
    }
}
