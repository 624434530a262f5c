//! Exact tree solve: every rigid distance of a tree-shaped group at once, in O(n).
//!
//! # Why
//! Gauss–Seidel projects one bone at a time, and a correction travels one bone per pass:
//! a ragdoll struck at its hand learns of it at its feet several substeps later, and its
//! bones stretch meanwhile (a humanoid thrown into a wall: 3–6 % worst bone strain at the
//! default substeps). The rope's chain solve ([`crate::rope`]) shows the cure for a
//! chain; a skeleton is a tree, and a tree's constraint system, too, factors with no
//! fill-in (Baraff 1996, "Linear-time dynamics using Lagrange multipliers").
//!
//! # The method
//! One Newton step on the rigid links `C_i = |x_a − x_b| − L_i` (unit direction `n_i`,
//! `∇_a C_i = n_i`, `∇_b C_i = −n_i`) solves
//!
//! ```text
//! Σ_k J_ik Δx_k = −C_i,      Δx_k = W_k Σ_i J_ikᵀ Δλ_i          (J W Jᵀ Δλ = −C)
//! ```
//!
//! Root the group's graph (particles as vertices, links as edges) and eliminate from the
//! leaves. For a particle `q` whose descendants are eliminated, everything below it
//! answers an impulse `f` that its parent's links put on it with
//!
//! ```text
//! Δx_q = K_q (f + b_q),      K_q = (M_q + P_q)⁻¹
//! ```
//!
//! (`M_q = m_q I`, a `d × d` matrix per particle; at a leaf `P_q = 0`, `b_q = 0`, `K_q = w_q I`).
//! A link `i` from a particle `c` down to its child `q` then reads
//! `n_i·Δx_c − n_i·Δx_q = −C_i` with `Δx_q = K_q(−n_i Δλ_i + b_q)`, so
//!
//! ```text
//! s_i = n_iᵀ K_q n_i,   y_i = (−C_i + n_i·K_q b_q) / s_i,   Δλ_i = y_i − (n_i/s_i)·Δx_c
//! ```
//!
//! and its impulse `n_i Δλ_i` on `c` adds `n_i n_iᵀ/s_i` to `P_c` and `n_i y_i` to `b_c`:
//! `c` is now eliminated in turn. At the root (`f = 0`) `Δx_r = K_r b_r`, and one pass
//! back down gives every `Δλ_i` and `Δx_q`. Each link and particle is visited twice, with
//! a `d × d` inverse per particle (its `LDLᵀ`, so entries stay of the size of the
//! masses, which fixed point needs): O(n), exact up to rounding, with no iteration between
//! links — a correction at a hand reaches the feet in the same solve.
//!
//! **Loops.** Ragdoll torsos are rigid triangles and tetrahedra, not trees. The graph is
//! cut into its *blocks* (biconnected components, found by Tarjan's algorithm): a
//! block-cut tree whose blocks are either single links (bridges) or small loops. A loop
//! with `m ≤` `MAX_BLOCK_ROWS` links is one node of the elimination: with its members'
//! `K_q`, its rows give the dense `m × m` system `S = Σ_q J_q K_q J_qᵀ`, factored by `LDLᵀ`
//! (a pivot below `Real::GEOMETRIC_EPSILON` of its diagonal — 10⁻⁶ in fixed point — marks
//! a row dependent on the others — a
//! tetrahedron of five particles, for one — and gets no correction), and its root `c`
//! receives `P_c += J_cᵀ S⁻¹ J_c`, `b_c += J_cᵀ S⁻¹ ρ` with
//! `ρ = −C − Σ_q J_q K_q b_q`: the bridge formulas above with `m = 1`. A group with a larger
//! loop (a closed chain of many links, a grid) is not tree-solved; its links keep the
//! Gauss–Seidel projections.
//!
//! **Pins.** A pinned particle (`w = 0`: pinned, kinematic or asleep) cannot take a
//! correction. All of a group's pinned particles are one *ground* vertex, which is the
//! root (`Δx = 0`): one pin hangs a tree from it, two pins close a loop through the
//! ground (a block of the links between them, dense if small, else projected). The
//! plan is rebuilt when which particles are pinned changes.
//!
//! **Newton.** The linearised solve is repeated — re-linearised where it landed — until
//! every link is within 10⁻⁴ of its length or `MAX_NEWTON` steps have run (then, for a
//! loop folded through itself, which satisfies all its rows but a dropped dependent one,
//! its links are projected `FOLD_PASSES` times, as without the trees).
//!
//! *When to stop without measuring.* A step that solved every row's linearisation exactly
//! (no row without a direction, no dependent row dropped, no immovable particle in the
//! group) leaves each link `d' = d + δ` with `n·δ = −C`, so
//! `|d'|² = (|d| + n·δ)² + |δ⊥|² = L² + |δ⊥|²` and `|d'| − L ≤ |δ|²/L`. With
//! `|δ| ≤ 2 max|Δx|`, a step that moved no particle by more than `√(TOL·L_min²/8)` leaves
//! every link within half the tolerance, and the solve ends without measuring the links
//! again (same result, one pass over the rows fewer; most solves take one step).
//!
//! *Wild steps.* A linearised step that would move a particle farther than the piece's
//! shortest link `L_min` comes from a nearly singular system, not from the links' errors:
//! in the solve after contacts of a `humanoid16` crushed against the ground at 30 m/s, its
//! two hips (one point in 2D) both held by friction made two pairs of the pelvis block's
//! rows nearly equal, and a step asked a particle to move 1.24 m while no link was 6.6 cm
//! off; taken, it threw a node at 140 m/s. Such a step is not taken. If particles held by
//! static friction are heavy in every direction (the solve after contacts), the piece is
//! solved again with them heavy along their normals only. If the step is still wild, the
//! same linearisation is solved again **damped** (Levenberg–Marquardt): every row's
//! diagonal `J W Jᵀ` is raised by `μ`, as a compliance would raise it,
//!
//! ```text
//! (J W Jᵀ + μ 1) Δλ = −C,   Δx = W Jᵀ Δλ,
//! ```
//!
//! which leaves the well-determined directions (eigenvalues of `J W Jᵀ` much above `μ`)
//! nearly as they were and caps the motion along a nearly singular one at about `|C|·w/μ`
//! instead of `|C|·w/σ` for a tiny `σ`. `μ` starts at a tenth of the piece's mean
//! `w_a + w_b` and grows tenfold per retry, up to three; a damped step is taken when it
//! stays within `L_min`, and the piece's later steps keep that `μ` (they converge
//! linearly, by about `μ/(μ + σ)` a step, in the directions it damps). Three damped solves
//! at most per solve of a piece (all its wild steps together); past them a wild step (then
//! solved with the last `μ`, ten times the mean) is shortened to `L_min`. Every refused
//! solve counts as one of the piece's `MAX_NEWTON` Newton steps, and the multipliers keep
//! only the steps taken (a refused step's `Δλ` is taken back, a shortened one's scaled
//! with it), so `λ/h²` stays the tension of the motion made. A step within
//! `L_min` is taken as it is, so solves that never come near this are unchanged bit for
//! bit (every golden hash is). In that landing the second step asked 1.25 m; damped, it
//! moved 2.9 cm, and the solve ended with a link 2.7 cm off, which the projections after
//! the last Newton step and the next substeps take back. Before
//! the damping, steps shortened to `L_min` walked along the singular direction, sinking
//! the chest and neck 20–30 cm into the ground in one solve, and the body left the ground
//! at 68.5 m/s in `f32`; now 30.4 m/s (26.5 m/s, its fall, in `f64` and fixed point,
//! unchanged). Making the pushed particles light instead brought it
//! to 30.1 m/s but let nodes into the ground: 141 mm in the 1000-ragdoll rain against
//! 24 mm.
//!
//! *When not to solve at all.* A group whose links are all within 10⁻⁶ is left alone;
//! one with no collider within reach of any of its particles this step (in flight: the
//! contact gathering found no pair for them) is left alone while its links are within
//! the Newton tolerance 10⁻⁴, so a tumbling body costs a measurement per substep instead
//! of a Newton step (the bones' error comes from the prediction's straight-line motion,
//! `(ωh)²/2` a substep, and is taken back once it passes 10⁻⁴). Near colliders the
//! stricter 10⁻⁶ stays: there a leftover 10⁻⁴ turned into the trembling of resting bodies
//! (a `humanoid3d` at rest still moved at 5 cm/s after 5 s).
//!
//! Multipliers accumulate as in XPBD (`λ/h²` is each link's tension) and internal forces
//! come in equal and opposite pairs, so momentum is conserved to rounding.
//!
//! **In the step.** The world (`WorldDef::tree_solve`, on by default) solves the groups
//! that carry a joint limit — ragdolls — after the joint limits in each constraint
//! iteration (a limit's projection turns bones; the solve takes them back to length). A
//! chain of bare distances is left to the projections: the solve moves particles resting
//! on a surface along it, beyond what their friction allows (a chain bridging two boxes
//! slid off them).
//!
//! **Threads.** Separate groups share no movable particle, so the world's plan is kept in
//! shards of 16 groups, each a solver with its own buffers, solved side by side on rayon's
//! threads with the `parallel` feature (`shards`): each group computes the same bits
//! whichever thread solves it.
//!
//! **After contacts.** Contacts are projected after the bones, so a particle pushed out
//! of a wall leaves its bones short for the substep. `TreeSolver::solve_after_contacts`
//! solves the struck groups again with each pushed particle heavier along its contact
//! normal (`M_q = m_q (I + κ n nᵀ)`, `κ = CONTACT_HEAVY` = 10⁴), or in every direction
//! (`M_q = m_q (1 + κ) I`) when static friction holds it — its motion in the substep along
//! the surface within `μ_s` times its push, as the contact solve decides; without that a
//! resting body crept and trembled. The bones come back to their lengths by moving the
//! rest of the body (and sliding the sliding contacts), and a contact gives back at most
//! `1/κ` of the correction. Not exact: the joint limits are not in this solve (they
//! overshoot 10–20° on a hard impact's frames) and a particle that had no contact this
//! substep may be moved into a surface until the next.
//!
//! **Limit rows** (`WorldDef::limit_rows`, off by default). The violated joint limits,
//! and in the solve after contacts the contact planes a particle went inside, join the
//! bones as rows of the same solve (a Schur complement over a few tree solves, see
//! `extra`): bones and limits then hold together — a `humanoid16` thrown or dropped
//! keeps its limits within 1° — at `k + 2` tree solves per Newton step for a piece with
//! `k` violated rows, only on the frames that need it. 2D only for now (in 3D the
//! swing–twist rows held the limits but left thrown bodies moving).
//!
//! Measured (`tests/suite/ragdoll_tree.rs`, `examples/ragdoll_impact.rs`): every bone of
//! `humanoid16` within 0.01 % through 10 m/s wall throws and 5 m drops at 4 and 8
//! substeps, `humanoid3d` at 8.

mod extra;
mod factor;
mod shards;
mod sym;
mod velocity;

use sym::Sym;

pub(crate) use shards::{Positions, Trees};

use super::Distance;
use super::blocks::Planner;
use super::groups::{find, join};
use crate::arena::Arena;
use crate::dim::{BaseSpace as Space, RealOf, VecOf};
use crate::math::{Real, Vector};
use crate::particle::ParticleSet;

/// Largest loop (biconnected block) solved densely as one node of the tree; a group with a
/// larger one is projected instead. (A `humanoid3d` torso: 10 links.)
pub(crate) const MAX_BLOCK_ROWS: usize = 16;

/// Newton steps per solve at most.
pub(crate) const MAX_NEWTON: usize = 8;
/// Damped solves per solve of a piece (all its wild steps together) before a wild step
/// is shortened instead (module docs, "Wild steps").
const MAX_DAMPED: usize = 3;

/// Gauss–Seidel passes over a group whose Newton steps did not converge (a folded loop).
const FOLD_PASSES: usize = 8;

/// How much heavier a particle pushed by a contact is along the contact's normal in the
/// solve after contacts.
pub(crate) const CONTACT_HEAVY: i32 = 10_000;

/// Target of the Newton steps: every link within this fraction of its length.
const TOL: (i32, i32) = (1, 10_000);
/// A group near a collider (see [`TreeSolver::mark_near`]) with every link within this
/// fraction of its length is not solved; one near none is not solved within [`TOL`].
const SKIP: (i32, i32) = (1, 1_000_000);

/// The ground vertex (all of a group's pinned particles).
const GROUND: u32 = u32::MAX;

/// One link of a tree plan.
#[derive(Clone, Copy, Debug)]
struct Row<R> {
    /// Distance slot.
    slot: u32,
    /// Particle slots of its ends.
    pa: u32,
    pb: u32,
    /// Nodes of its ends ([`GROUND`] for a pinned end).
    na: u32,
    nb: u32,
    /// Places of its ends among its block's members (`u16::MAX`: the block's root).
    ma: u16,
    mb: u16,
    rest: R,
}

/// A block of the elimination: its root node (or [`GROUND`]), its rows and the nodes it
/// eliminates (its members: every node of the block but the root).
#[derive(Clone, Copy, Debug)]
struct Block {
    root: u32,
    rows: (u32, u32),
    members: (u32, u32),
}

/// A connected group solved as a tree: ranges of nodes, rows and blocks (blocks in
/// elimination order, leaves first), and its root node (or [`GROUND`]).
#[derive(Clone, Copy, Debug)]
struct Piece<R> {
    nodes: (u32, u32),
    rows: (u32, u32),
    blocks: (u32, u32),
    root: u32,
    /// A Newton step that moved no particle by more than `√settle` leaves every link
    /// within the tolerance (module docs, "Newton"): `TOL · L_min² / 8`.
    settle: R,
    /// The longest step a Newton step may take, squared: `L_min²` (module docs, "Wild
    /// steps").
    reach: R,
}

/// The tree plan of a world's rigid distances (derived from the constraints and which
/// particles are pinned) and the solve's buffers.
#[derive(Clone, Debug, Default)]
pub(crate) struct TreeSolver<S: Space> {
    pieces: Vec<Piece<RealOf<S>>>,
    blocks: Vec<Block>,
    members: Vec<u32>,
    rows: Vec<Row<RealOf<S>>>,
    /// Per node: its particle slot; whether some block has it as root (not a leaf).
    node_slot: Vec<u32>,
    node_inner: Vec<bool>,
    /// Per particle slot: its node (`u32::MAX`: none).
    node_of: Vec<u32>,
    /// Per distance slot: solved here (not projected).
    pub in_tree: Vec<bool>,
    /// The particles the plan's shape depends on, with whether each was pinned.
    watch: Vec<(u32, bool)>,
    // --- per-solve buffers
    /// Per node: `w`, `m = 1/w`, the contact normal making it heavy (zero: none), `P`,
    /// `b`, `K`, `K b`, `Δx`, the impulse from its parent block.
    w: Vec<RealOf<S>>,
    m: Vec<RealOf<S>>,
    heavy: Vec<VecOf<S>>,
    /// Per node: held by static friction (heavy in every direction).
    stick: Vec<bool>,
    p: Vec<Sym<RealOf<S>>>,
    b: Vec<VecOf<S>>,
    k: Vec<Sym<RealOf<S>>>,
    e: Vec<VecOf<S>>,
    dx: Vec<VecOf<S>>,
    f: Vec<VecOf<S>>,
    /// Per row: `n`, `C`, `y`, `X` (`S⁻¹ J_c`), `λ`.
    n: Vec<VecOf<S>>,
    c: Vec<RealOf<S>>,
    y: Vec<RealOf<S>>,
    x: Vec<VecOf<S>>,
    lambda: Vec<RealOf<S>>,
    /// A dense block's matrix.
    dense: Vec<RealOf<S>>,
    /// The particles contacts pushed this substep: `(slot, normal, held by static
    /// friction)`, filled by the world before [`solve_after_contacts`](Self::solve_after_contacts).
    pub pushed: Vec<(u32, VecOf<S>, bool)>,
    /// Per piece: asleep this step (every particle immovable), not solved.
    asleep: Vec<bool>,
    /// Pieces struck by a contact this substep.
    struck: Vec<bool>,
    /// Per piece: some particle has a collider within its reach this step.
    near: Vec<bool>,
    /// Per piece: some particle immovable this step, others not (a linearised step
    /// may then leave rows unsolved).
    partial: Vec<bool>,
    /// The current Newton step solves every row's linearisation (no row without a
    /// direction, no dependent row dropped, no singular pivot).
    exact: bool,
    /// Newton steps taken since the counter was last read (tests and benchmarks).
    pub newton_steps: u64,
    /// The multipliers of a piece kept through a velocity solve.
    saved_lambda: Vec<RealOf<S>>,
    /// Per node: an external impulse the elimination starts from (zero but in the
    /// rows' solve of `extra`).
    fext: Vec<VecOf<S>>,
    /// Joint limits and contact planes as rows of the solve (see `extra`).
    pub(crate) extra: extra::ExtraScratch<S>,
}

impl<S: Space> TreeSolver<S> {
    /// Whether any group is tree-solved.
    pub(crate) fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// Whether which particles are pinned changed since the plan was built (the plan must
    /// then be rebuilt).
    pub(crate) fn pins_changed(&self, ps: &ParticleSet<S>) -> bool {
        let zero = RealOf::<S>::ZERO;
        self.watch.iter().any(|&(k, pinned)| ps.inv_mass.get(k as usize).is_none_or(|&w| (w == zero) != pinned))
    }

    /// Builds the plan for the rigid links of `distances` (none when `enabled` is false);
    /// with `limited` (per particle slot: a joint limit acts on it), only for the groups
    /// that have a joint limit — ragdolls, not bare chains (see the module docs).
    #[cfg(test)]
    pub(crate) fn build(
        &mut self,
        distances: &Arena<Distance<RealOf<S>>>,
        ps: &ParticleSet<S>,
        how: (bool, Option<&[bool]>),
    ) {
        let mut one = vec![core::mem::take(self)];
        Self::build_shards(&mut one, usize::MAX, distances, ps, how);
        *self = one.pop().unwrap_or_default();
    }

    /// Empties the plan (for `slots` particle slots and `distances` distance slots).
    fn reset(&mut self, slots: usize, distances: usize) {
        self.pieces.clear();
        self.blocks.clear();
        self.members.clear();
        self.rows.clear();
        self.node_slot.clear();
        self.node_inner.clear();
        self.watch.clear();
        self.node_of.clear();
        self.node_of.resize(slots, u32::MAX);
        self.in_tree.clear();
        self.in_tree.resize(distances, false);
    }

    /// Builds the plan for the rigid links of `distances` (none when `enabled` is false;
    /// with `limited`, only the groups with a joint limit), into consecutive shards of at
    /// most `per_shard` pieces each (the groups in the same order: shard `j` holds pieces
    /// `j·per_shard..`). At least one shard is left; the first holds the watch list of
    /// [`pins_changed`](Self::pins_changed), each its own pieces' `node_of` and `in_tree`.
    pub(crate) fn build_shards(
        shards: &mut Vec<Self>,
        per_shard: usize,
        distances: &Arena<Distance<RealOf<S>>>,
        ps: &ParticleSet<S>,
        (enabled, limited): (bool, Option<&[bool]>),
    ) {
        let zero = RealOf::<S>::ZERO;
        let slots = ps.inv_mass.len();
        shards.truncate(1);
        if shards.is_empty() {
            shards.push(Self::default());
        }
        shards[0].reset(slots, distances.values.len());
        if !enabled {
            shards[0].finish_plan();
            return;
        }
        let pinned = |k: usize| ps.inv_mass.get(k).is_none_or(|&w| w == zero);
        // Rigid links with a movable end, in slot order.
        let links: Vec<(u32, usize, usize, RealOf<S>)> = distances
            .iter()
            .filter(|(_, c)| c.is_rigid())
            .map(|(h, c)| {
                let (a, b) = c.indices();
                (h.index, a, b, c.rest)
            })
            .filter(|&(_, a, b, _)| a != b && a < slots && b < slots && !(pinned(a) && pinned(b)))
            .collect();
        let mut seen = vec![false; slots];
        for &(_, a, b, _) in &links {
            for k in [a, b] {
                if !seen[k] {
                    seen[k] = true;
                    shards[0].watch.push((k as u32, pinned(k)));
                }
            }
        }
        // Groups of movable particles joined by links between movable particles.
        let mut parent: Vec<u32> = (0..slots as u32).collect();
        for &(_, a, b, _) in &links {
            if !pinned(a) && !pinned(b) {
                join(&mut parent, &[a, b]);
            }
        }
        let mover = |a: usize, b: usize| if pinned(a) { b } else { a };
        // Links grouped (counting sort, stable: groups by first link, links in slot order).
        let mut group_of_root = vec![u32::MAX; slots];
        let mut group_of_link = Vec::with_capacity(links.len());
        let mut at: Vec<u32> = vec![0];
        for &(_, a, b, _) in &links {
            let root = find(&mut parent, mover(a, b) as u32) as usize;
            if group_of_root[root] == u32::MAX {
                group_of_root[root] = at.len() as u32 - 1;
                at.push(0);
            }
            let g = group_of_root[root] as usize;
            at[g + 1] += 1;
            group_of_link.push(g);
        }
        for g in 1..at.len() {
            at[g] += at[g - 1];
        }
        let mut fill = at.clone();
        let mut sorted = vec![0usize; links.len()];
        for (i, &g) in group_of_link.iter().enumerate() {
            sorted[fill[g] as usize] = i;
            fill[g] += 1;
        }
        let mut planner = Planner::default();
        let mut edges: Vec<(u32, usize, usize, RealOf<S>)> = Vec::new();
        for g in at.windows(2) {
            let group = &sorted[g[0] as usize..g[1] as usize];
            if let Some(limited) = limited {
                let has = |k: usize| limited.get(k).copied().unwrap_or(false);
                if !group.iter().any(|&i| has(links[i].1) || has(links[i].2)) {
                    continue;
                }
            }
            edges.clear();
            edges.extend(group.iter().map(|&i| links[i]));
            if shards.last().is_some_and(|s| s.pieces.len() >= per_shard) {
                let mut next = Self::default();
                next.reset(slots, distances.values.len());
                shards.push(next);
            }
            if let Some(shard) = shards.last_mut() {
                shard.add_piece(&mut planner, &edges, &pinned);
            }
        }
        shards.iter_mut().for_each(Self::finish_plan);
    }

    /// Sizes the solve's buffers for the planned nodes and rows.
    fn finish_plan(&mut self) {
        let zero = RealOf::<S>::ZERO;
        let nodes = self.node_slot.len();
        let rows = self.rows.len();
        let z = VecOf::<S>::ZERO;
        self.w.resize(nodes, zero);
        self.m.resize(nodes, zero);
        self.heavy.clear();
        self.heavy.resize(nodes, z);
        self.stick.clear();
        self.stick.resize(nodes, false);
        self.p.resize(nodes, Sym::zero());
        self.b.resize(nodes, z);
        self.k.resize(nodes, Sym::zero());
        self.e.resize(nodes, z);
        self.dx.resize(nodes, z);
        self.f.resize(nodes, z);
        self.fext.clear();
        self.fext.resize(nodes, z);
        self.n.resize(rows, z);
        self.c.resize(rows, zero);
        self.y.resize(rows, zero);
        self.x.resize(rows, z);
        self.lambda.clear();
        self.lambda.resize(rows, zero);
        self.struck.clear();
        self.struck.resize(self.pieces.len(), false);
    }

    /// Plans one connected group of links (or leaves it to the projections if it has a
    /// loop of more than [`MAX_BLOCK_ROWS`] links).
    fn add_piece(
        &mut self,
        planner: &mut Planner,
        edges: &[(u32, usize, usize, RealOf<S>)],
        pinned: &impl Fn(usize) -> bool,
    ) {
        // Local vertices: 0 is the ground, then the movable particles by first appearance.
        let mut local = core::mem::take(&mut planner.local);
        local.clear();
        let local_of = &mut planner.local_of;
        let mut index = |k: usize| -> u32 {
            if pinned(k) {
                return 0;
            }
            if local_of.len() <= k {
                local_of.resize(k + 1, 0);
            }
            if local_of[k] == 0 {
                local.push(k);
                local_of[k] = local.len() as u32;
            }
            local_of[k]
        };
        let mut ends = core::mem::take(&mut planner.ends);
        ends.clear();
        ends.extend(edges.iter().map(|&(_, a, b, _)| (index(a), index(b))));
        for &k in &local {
            planner.local_of[k] = 0;
        }
        let grounded = ends.iter().any(|&(a, b)| a == 0 || b == 0);
        let root = if grounded { 0 } else { 1 };
        let connected = planner.blocks(local.len() + 1, &ends, root);
        let blocks = core::mem::take(&mut planner.out);
        let fits = blocks.iter().all(|&(_, e0, e1)| (e1 - e0) as usize <= MAX_BLOCK_ROWS);
        if connected && fits {
            self.plan_piece(&local, edges, &ends, (&blocks, &planner.out_edges), root);
        }
        (planner.local, planner.ends, planner.out) = (local, ends, blocks);
    }

    /// Appends a planned piece: its nodes, rows and blocks (`(root vertex, edge range)`
    /// into `block_edges`, in elimination order).
    fn plan_piece(
        &mut self,
        local: &[usize],
        edges: &[(u32, usize, usize, RealOf<S>)],
        ends: &[(u32, u32)],
        (blocks, block_edges): (&[(u32, u32, u32)], &[u32]),
        root: u32,
    ) {
        let base = self.node_slot.len() as u32;
        let node = |v: u32| if v == 0 { GROUND } else { base + v - 1 };
        for &k in local {
            self.node_of[k] = self.node_slot.len() as u32;
            self.node_slot.push(k as u32);
            self.node_inner.push(false);
        }
        let (r0, b0) = (self.rows.len() as u32, self.blocks.len() as u32);
        let mut min_rest = edges.first().map_or(RealOf::<S>::ZERO, |e| e.3);
        for &(u, e0, e1) in blocks {
            let u = &u;
            let rows0 = self.rows.len() as u32;
            let members0 = self.members.len() as u32;
            for &e in &block_edges[e0 as usize..e1 as usize] {
                let (slot, a, b, rest) = edges[e as usize];
                let (na, nb) = (node(ends[e as usize].0), node(ends[e as usize].1));
                let mut at = [u16::MAX; 2];
                for (v, at) in [na, nb].into_iter().zip(&mut at) {
                    if v == node(*u) {
                        continue;
                    }
                    let mine = &self.members[members0 as usize..];
                    *at = match mine.iter().position(|&m| m == v) {
                        Some(i) => i as u16,
                        None => {
                            let i = mine.len() as u16;
                            self.members.push(v);
                            i
                        }
                    };
                }
                self.rows.push(Row { slot, pa: a as u32, pb: b as u32, na, nb, ma: at[0], mb: at[1], rest });
                self.in_tree[slot as usize] = true;
                min_rest = min_rest.min(rest);
            }
            if *u != 0 {
                self.node_inner[node(*u) as usize] = true;
            }
            let root = node(*u);
            let (rows1, members1) = (self.rows.len() as u32, self.members.len() as u32);
            self.blocks.push(Block { root, rows: (rows0, rows1), members: (members0, members1) });
        }
        self.pieces.push(Piece {
            nodes: (base, self.node_slot.len() as u32),
            rows: (r0, self.rows.len() as u32),
            blocks: (b0, self.blocks.len() as u32),
            root: node(root),
            settle: min_rest.sq() * RealOf::<S>::from_ratio(TOL.0, TOL.1 * 8),
            reach: min_rest.sq(),
        });
    }

    /// The masses of the step (`w` and `1/w` per node).
    /// A piece is asleep (skipped) when all its particles are immovable this step.
    pub(crate) fn prepare(&mut self, ps: &ParticleSet<S>) {
        let zero = RealOf::<S>::ZERO;
        for (i, &k) in self.node_slot.iter().enumerate() {
            let w = ps.inv_mass[k as usize];
            self.w[i] = w;
            self.m[i] = if w > zero { RealOf::<S>::ONE / w } else { zero };
        }
        self.asleep.clear();
        self.partial.clear();
        for p in &self.pieces {
            let w = &self.w[p.nodes.0 as usize..p.nodes.1 as usize];
            let still = w.iter().filter(|&&w| w == zero).count();
            self.asleep.push(still == w.len());
            self.partial.push(still > 0 && still < w.len());
        }
    }

    /// No piece near a collider (before [`mark_near_one`](Self::mark_near_one)): the
    /// pieces with a particle marked are near a collider this step (from the contact
    /// gathering); the others are in flight.
    pub(crate) fn clear_near(&mut self) {
        self.near.clear();
        self.near.resize(self.pieces.len(), false);
    }

    /// Marks the piece of particle slot `k` (if any) near a collider.
    pub(crate) fn mark_near_one(&mut self, k: u32) {
        let Some(&node) = self.node_of.get(k as usize) else { return };
        if node != u32::MAX {
            let piece = self.pieces.partition_point(|p| p.nodes.1 <= node);
            self.near[piece] = true;
        }
    }

    /// Solves every tree; `first`: the substep's first iteration (multipliers restart).
    pub(crate) fn solve<P: Positions<S>>(&mut self, ps: &mut P, first: bool) {
        self.solve_each(ps, first, |_, _, _| {});
    }

    /// [`solve`](Self::solve), calling `after` on each piece right after its solve (the
    /// limit rows of `extra`).
    pub(super) fn solve_each<P: Positions<S>>(
        &mut self,
        ps: &mut P,
        first: bool,
        mut after: impl FnMut(&mut Self, &mut P, usize),
    ) {
        if first {
            self.lambda.iter_mut().for_each(|l| *l = RealOf::<S>::ZERO);
        }
        let (fine, tol) = (RealOf::<S>::from_ratio(SKIP.0, SKIP.1), RealOf::<S>::from_ratio(TOL.0, TOL.1));
        for i in 0..self.pieces.len() {
            if !self.asleep[i] {
                let skip = if self.near.get(i).copied().unwrap_or(true) { fine } else { tol };
                self.solve_piece(ps, i, skip);
                after(self, ps, i);
            }
        }
    }

    /// Marks the trees whose particles a contact pushed this substep (listed in
    /// [`pushed`](Self::pushed)), each pushed particle heavy along its normal, or in every
    /// direction if static friction holds it; whether any was struck.
    pub(crate) fn mark_struck(&mut self) -> bool {
        let mut any = false;
        for &(k, normal, stick) in &self.pushed {
            let Some(&node) = self.node_of.get(k as usize) else { continue };
            if node == u32::MAX {
                continue;
            }
            let h = &mut self.heavy[node as usize];
            // Two contacts: heavy along their sum (the corner's bisector).
            *h = if *h == VecOf::<S>::ZERO { normal } else { (*h + normal).normalize_or_zero() };
            self.stick[node as usize] |= stick;
            let piece = self.pieces.partition_point(|p| p.nodes.1 <= node);
            self.struck[piece] = true;
            any = true;
        }
        any
    }

    /// Whether particle `k` belongs to a tree [`mark_struck`](Self::mark_struck) marked.
    pub(crate) fn is_struck(&self, k: u32) -> bool {
        match self.node_of.get(k as usize) {
            Some(&node) if node != u32::MAX => self.struck[self.pieces.partition_point(|p| p.nodes.1 <= node)],
            _ => false,
        }
    }

    /// Solves again the trees whose particles a contact pushed this substep (listed in
    /// [`pushed`](Self::pushed)), each pushed particle heavy along its normal, or in every
    /// direction if static friction holds it.
    pub(crate) fn solve_after_contacts<P: Positions<S>>(&mut self, ps: &mut P) {
        if self.mark_struck() {
            self.solve_struck(ps, |_, _, _| {});
        }
    }

    /// Solves again the trees [`mark_struck`](Self::mark_struck) marked, calling `after`
    /// on each right after its solve (the limit rows of `extra`), then makes their pushed
    /// particles light again.
    pub(super) fn solve_struck<P: Positions<S>>(
        &mut self,
        ps: &mut P,
        mut after: impl FnMut(&mut Self, &mut P, usize),
    ) {
        for i in 0..self.pieces.len() {
            if self.struck[i] {
                self.struck[i] = false;
                if !self.asleep[i] {
                    self.solve_piece(ps, i, RealOf::<S>::from_ratio(SKIP.0, SKIP.1));
                    after(self, ps, i);
                }
                let (n0, n1) = self.pieces[i].nodes;
                self.heavy[n0 as usize..n1 as usize].iter_mut().for_each(|h| *h = VecOf::<S>::ZERO);
                self.stick[n0 as usize..n1 as usize].iter_mut().for_each(|h| *h = false);
            }
        }
    }

    /// Writes the multipliers back to the links.
    pub(crate) fn store_lambdas(&self, distances: &mut Arena<Distance<RealOf<S>>>) {
        for (r, &l) in self.rows.iter().zip(&self.lambda) {
            if let Some(Some(c)) = distances.values.get_mut(r.slot as usize) {
                c.lambda = l;
            }
        }
    }

    /// Newton steps on one piece until its links are within [`TOL`] (none if they are
    /// within `skip`).
    fn solve_piece<P: Positions<S>>(&mut self, ps: &mut P, i: usize, skip: RealOf<S>) {
        let piece = self.pieces[i];
        let tol = RealOf::<S>::from_ratio(TOL.0, TOL.1);
        // The Levenberg–Marquardt `μ` (module docs, "Wild steps") and the damped solves so far.
        let (mut damping, mut damped) = (RealOf::<S>::ZERO, 0);
        for step in 0..=MAX_NEWTON {
            let off = self.linearise(ps, piece.rows, if step == 0 { skip } else { tol });
            if !off {
                return;
            }
            if step == MAX_NEWTON {
                // Not converging: a loop folded through itself (a tetrahedron turned
                // inside out satisfies every row but its dropped, dependent one), which
                // no linearised step undoes. Projections of each link, as without the
                // trees, walk it out over the substeps.
                for _ in 0..FOLD_PASSES {
                    self.project(ps, piece.rows);
                }
                return;
            }
            self.newton_steps += 1;
            self.eliminate(piece, damping);
            self.substitute(piece);
            let (n0, n1) = (piece.nodes.0 as usize, piece.nodes.1 as usize);
            // A step that would move a particle farther than the piece's shortest link
            // comes from a nearly singular system (module docs, "Wild steps").
            let far = self.dx[n0..n1].iter().fold(RealOf::<S>::ZERO, |m, d| m.max(d.length_squared()));
            let mut scale = None;
            if far > piece.reach {
                if self.stick[n0..n1].iter().any(|&s| s) {
                    // Solved after contacts: the particles static friction holds, heavy
                    // in every direction, are what made it singular (two held at one
                    // point); solved again with them heavy along their normals only.
                    self.stick[n0..n1].iter_mut().for_each(|s| *s = false);
                    self.take_back(piece.rows, RealOf::<S>::ONE);
                    continue;
                }
                // Else the same linearisation is solved again damped (Levenberg–Marquardt:
                // every row's diagonal raised by `μ`, which leaves the well-determined
                // directions nearly as they were and caps the nearly singular ones), `μ`
                // from a tenth of the rows' mean `w_a + w_b` up by ten each time; past
                // that, the step is taken shortened to `reach`.
                if damped < MAX_DAMPED {
                    damped += 1;
                    damping = if damping > RealOf::<S>::ZERO {
                        damping * RealOf::<S>::from_i32(10)
                    } else {
                        self.mean_row_weight(ps, piece.rows) / RealOf::<S>::from_i32(10)
                    };
                    self.take_back(piece.rows, RealOf::<S>::ONE);
                    continue;
                }
                self.exact = false;
                let s = (piece.reach / far).sqrt();
                self.take_back(piece.rows, RealOf::<S>::ONE - s);
                scale = Some(s);
            } else if damping > RealOf::<S>::ZERO {
                // A damped step solves the rows only in part.
                self.exact = false;
            }
            for (&k, &dx) in self.node_slot[n0..n1].iter().zip(&self.dx[n0..n1]) {
                ps.add(k as usize, scale.map_or(dx, |s| dx * s));
            }
            // The step solved every row's linearisation exactly and moved nothing far
            // (`far`: a shortened step is not exact): every link is within the tolerance
            // without measuring (module docs).
            if self.exact && !self.partial[i] && far <= piece.settle {
                return;
            }
        }
    }

    /// Takes `part` of the last step's `Δλ` (left in `y` by `substitute`) back out of the
    /// multipliers of rows `r0..r1`: all of a step refused, `1 − s` of a step shortened to
    /// `s` of itself, so that `λ` (the links' tensions) counts only the motion taken.
    fn take_back(&mut self, (r0, r1): (u32, u32), part: RealOf<S>) {
        for (l, &dl) in self.lambda[r0 as usize..r1 as usize].iter_mut().zip(&self.y[r0 as usize..r1 as usize]) {
            *l -= dl * part;
        }
    }

    /// The mean of `w_a + w_b` over rows `r0..r1` (the scale of the Levenberg–Marquardt
    /// damping).
    fn mean_row_weight<P: Positions<S>>(&self, ps: &P, (r0, r1): (u32, u32)) -> RealOf<S> {
        let sum = self.rows[r0 as usize..r1 as usize]
            .iter()
            .fold(RealOf::<S>::ZERO, |acc, r| acc + ps.inv_mass(r.pa as usize) + ps.inv_mass(r.pb as usize));
        sum / RealOf::<S>::from_i32((r1 - r0).max(1) as i32)
    }

    /// One Gauss–Seidel projection of each row (rigid links).
    fn project<P: Positions<S>>(&mut self, ps: &mut P, (r0, r1): (u32, u32)) {
        let (zero, eps) = (RealOf::<S>::ZERO, RealOf::<S>::GEOMETRIC_EPSILON);
        for r in r0 as usize..r1 as usize {
            let row = self.rows[r];
            let (a, b) = (row.pa as usize, row.pb as usize);
            let (wa, wb) = (ps.inv_mass(a), ps.inv_mass(b));
            let d = ps.pos(a) - ps.pos(b);
            let l2 = d.length_squared();
            if wa + wb == zero || l2 <= eps * eps {
                continue;
            }
            let (len, inv) = l2.sqrt_recip();
            let dl = (row.rest - len) / (wa + wb);
            self.lambda[r] += dl;
            let n = d * inv;
            // An immovable end is not written (it may be another piece's ground too:
            // see `Positions`); its correction would be zero.
            if wa > zero {
                ps.add(a, n * (wa * dl));
            }
            if wb > zero {
                ps.sub(b, n * (wb * dl));
            }
        }
    }

    /// Directions and violations of the rows at the current positions; whether any row
    /// is off by more than `tol` of its length.
    fn linearise<P: Positions<S>>(&mut self, ps: &P, (r0, r1): (u32, u32), tol: RealOf<S>) -> bool {
        let (zero, eps) = (RealOf::<S>::ZERO, RealOf::<S>::GEOMETRIC_EPSILON);
        let mut off = false;
        self.exact = true;
        for r in r0 as usize..r1 as usize {
            let row = self.rows[r];
            let d = ps.pos(row.pa as usize) - ps.pos(row.pb as usize);
            let l2 = d.length_squared();
            if l2 <= eps * eps {
                // No direction: the row takes no correction this step.
                (self.n[r], self.c[r]) = (VecOf::<S>::ZERO, zero);
                self.exact = false;
                continue;
            }
            let (len, inv) = l2.sqrt_recip();
            let c = len - row.rest;
            self.n[r] = d * inv;
            self.c[r] = c;
            off |= c.abs() > tol * row.rest + RealOf::<S>::ROUNDING_SLOP;
        }
        off
    }
}

#[cfg(test)]
mod tests;
