//! The order of the constraint sweep: distances and joint limits in slot order within each
//! group of constraints sharing particles, groups interleaved (or a graph colouring), and
//! the rows of independent links a crowd of rigid links is projected in.

use super::JointSpace as Space;
use super::groups::{find, join};
use super::tree::Trees;
use super::{Distance, JointLimit, LinkRows};
use crate::arena::Arena;
use crate::dim::RealOf;
use crate::math::Real;
use crate::particle::ParticleSet;

/// Independent constraint groups interleaved at a time by [`ConstraintOrder::Sequential`]:
/// enough to keep the CPU's divide and square-root units busy, few enough that the
/// block's particles stay in cache.
const INTERLEAVE: usize = 8;

/// The order of the Gauss–Seidel sweep over distance constraints.
///
/// The trade-off, measured in `docs/BENCHMARKS.md`: a chain projected link after link from
/// its pinned end carries the pin's correction down the whole chain in one sweep, but
/// every projection waits for the previous one (a serial chain of square roots and
/// divisions). Colouring the constraint graph makes the projections within a colour
/// independent, so the CPU overlaps them — about 3× the throughput on a rope — at the
/// cost of slower propagation (a correction crosses two links per sweep).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ConstraintOrder {
    /// Creation (slot) order: best convergence for chains built from a pinned end.
    ///
    /// Constraint groups that share no particle (separate ragdolls, chains, cloths) are
    /// interleaved a few groups at a time: each group keeps its own order, so every
    /// particle sees its projections in creation order and the result is bit for bit the
    /// one of plain slot order, but neighbouring projections no longer wait for each other.
    #[default]
    Sequential,
    /// Greedy graph colouring: independent projections, highest throughput.
    Coloured,
}

impl crate::state::SavedState for ConstraintOrder {
    fn hash_state(&self, h: &mut crate::state::StateHasher) {
        h.write_u64(*self as u64);
    }
}

/// The projection order of a world's distances and joint limits, rebuilt when
/// constraints are added or removed (derived data: a function of the constraints alone).
#[derive(Clone, Debug)]
pub(crate) struct ConstraintOrdering<S: Space> {
    /// Distance slots in projection order (those the trees solve left out).
    pub distances: Vec<u32>,
    /// Joint-limit slots in projection order.
    pub limits: Vec<u32>,
    /// `distances` as rows of independent links, projected together when every distance
    /// is rigid (see [`LinkRows`]).
    pub link_rows: LinkRows<RealOf<S>>,
    /// The tree-shaped groups of rigid links, solved exactly (see [`super::tree`]).
    pub trees: Trees<S>,
    /// Constraints were added or removed (or the order setting changed) since the build.
    pub dirty: bool,
}

impl<S: Space> Default for ConstraintOrdering<S> {
    fn default() -> Self {
        Self {
            distances: Vec::new(),
            limits: Vec::new(),
            link_rows: LinkRows::default(),
            trees: Trees::default(),
            dirty: false,
        }
    }
}

impl<S: Space> ConstraintOrdering<S> {
    /// Rebuilds the order of `distances` and `limits` over the particles' slots, with the
    /// trees of rigid links if `trees` is on.
    pub fn build(
        &mut self,
        (order, trees): (ConstraintOrder, bool),
        particles: &ParticleSet<S>,
        distances: &Arena<Distance<RealOf<S>>>,
        limits: &Arena<S::JointLimit>,
    ) {
        let particle_slots = particles.pos.len();
        match order {
            ConstraintOrder::Sequential => {
                interleaved_order(particle_slots, &distance_items(distances), &mut self.distances);
                let items: Vec<(u32, Vec<usize>)> =
                    limits.iter().map(|(h, l)| (h.index, l.particle_indices())).collect();
                interleaved_order(particle_slots, &items, &mut self.limits);
            }
            ConstraintOrder::Coloured => {
                colour(particle_slots, distances, &mut self.distances);
                self.limits.clear();
                self.limits.extend(limits.iter().map(|(h, _)| h.index));
            }
        }
        // Trees only for ragdolls (groups with joint limits), see `super::tree`.
        let mut limited = vec![false; particle_slots];
        for l in limits.values() {
            for k in l.particle_indices() {
                if let Some(x) = limited.get_mut(k) {
                    *x = true;
                }
            }
        }
        self.trees.build(distances, particles, (trees, Some(&limited)));
        // (A rebuild of the order, not a steady step: it may allocate.)
        let firsts: Vec<(u32, usize)> =
            limits.iter().filter_map(|(h, l)| l.particle_indices().first().map(|&k| (h.index, k))).collect();
        self.trees.attach_limits(&firsts);
        let in_tree = &self.trees.in_tree;
        self.distances.retain(|&s| !in_tree.get(s as usize).copied().unwrap_or(false));
        self.link_rows.build(&self.distances, distances);
        self.dirty = false;
    }
}

/// Every distance constraint as (slot, its two particle slots), in slot order.
pub(crate) fn distance_items<R: Real>(distances: &Arena<Distance<R>>) -> Vec<(u32, [usize; 2])> {
    distances
        .iter()
        .map(|(h, c)| {
            let (a, b) = c.indices();
            (h.index, [a, b])
        })
        .collect()
}

/// Orders the distance constraints by a greedy graph colouring: within a colour no two
/// constraints share a particle, so their projections are independent and the CPU can
/// overlap them (a chain solved link after link is one long dependency chain of square
/// roots and divisions). Across colours the sweep is still Gauss–Seidel. Colours are
/// assigned in slot order, so the order is deterministic; past 64 colours the rest go in
/// one final sequential group.
fn colour<R: Real>(particle_slots: usize, distances: &Arena<Distance<R>>, out: &mut Vec<u32>) {
    let mut used = vec![0u64; particle_slots];
    let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); 65];
    for (h, c) in distances.iter() {
        let (a, b) = c.indices();
        let free = !(used[a] | used[b]);
        let colour = free.trailing_zeros() as usize;
        if colour < 64 {
            used[a] |= 1 << colour;
            used[b] |= 1 << colour;
        }
        buckets[colour.min(64)].push(h.index);
    }
    out.clear();
    for b in buckets {
        out.extend(b);
    }
}

/// An order for constraints `(slot, particles)` given in slot order: slot order within
/// each group of constraints connected through shared particles, groups interleaved in
/// blocks of [`INTERLEAVE`] (round-robin over the block's groups, one constraint of each
/// in turn). Groups share no particle, so the interleaving changes no result — every
/// particle sees its projections in slot order — it only lets the CPU overlap the
/// projections of different groups (within a group each waits for the previous one).
/// Groups are numbered by their first constraint, so the order is deterministic.
pub(crate) fn interleaved_order<P: AsRef<[usize]>>(particle_slots: usize, items: &[(u32, P)], out: &mut Vec<u32>) {
    // Union–find over particle slots.
    let mut parent: Vec<u32> = (0..particle_slots as u32).collect();
    for (_, ps) in items {
        join(&mut parent, ps.as_ref());
    }
    // Groups in order of first appearance, each in slot order; a constraint with no
    // particle is a group of its own.
    let mut group_of_root = vec![u32::MAX; particle_slots];
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for (slot, ps) in items {
        let slot = *slot;
        let g = match ps.as_ref().first() {
            Some(&p) => {
                let root = find(&mut parent, p as u32) as usize;
                if group_of_root[root] == u32::MAX {
                    group_of_root[root] = groups.len() as u32;
                    groups.push(Vec::new());
                }
                group_of_root[root] as usize
            }
            None => {
                groups.push(Vec::new());
                groups.len() - 1
            }
        };
        groups[g].push(slot);
    }
    out.clear();
    for block in groups.chunks(INTERLEAVE) {
        let longest = block.iter().map(Vec::len).max().unwrap_or(0);
        for i in 0..longest {
            out.extend(block.iter().filter_map(|g| g.get(i)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::interleaved_order;

    #[test]
    fn interleaving_keeps_each_group_in_slot_order_and_alternates_groups() {
        // Three chains over particles 0–3, 4–6 and 7–8, their links created one chain after
        // the other (slots 0–2, 3–4, 5), then a link joining particle 3 to 9 (slot 6,
        // first group) and a constraint on no particle (slot 7).
        let items: Vec<(u32, Vec<usize>)> = vec![
            (0, vec![0, 1]),
            (1, vec![1, 2]),
            (2, vec![2, 3]),
            (3, vec![4, 5]),
            (4, vec![5, 6]),
            (5, vec![7, 8]),
            (6, vec![3, 9]),
            (7, vec![]),
        ];
        let mut out = Vec::new();
        interleaved_order(10, &items, &mut out);
        assert_eq!(out, vec![0, 3, 5, 7, 1, 4, 2, 6]);
        // Every slot exactly once.
        let mut sorted = out.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..8).collect::<Vec<u32>>());
    }

    #[test]
    fn interleaving_blocks_hold_eight_groups() {
        // Ten independent two-link chains: the first eight alternate, then the last two.
        let items: Vec<(u32, [usize; 2])> = (0..20u32)
            .map(|s| {
                let base = (s / 2 * 3) as usize;
                (s, [base + (s % 2) as usize, base + 1 + (s % 2) as usize])
            })
            .collect();
        let mut out = Vec::new();
        interleaved_order(30, &items, &mut out);
        let first: Vec<u32> = (0..8).map(|g| 2 * g).chain((0..8).map(|g| 2 * g + 1)).collect();
        assert_eq!(&out[..16], &first[..]);
        assert_eq!(&out[16..], &[16, 18, 17, 19]);
    }
}
