//! Contacts between particles (and rope spans) and colliders: found once per step, tested
//! every substep, projected with friction, then a velocity pass for dynamic friction and
//! restitution.
//!
//! The stages are the world's internals (its public API is [`crate::World`]); this
//! module's docs describe the method.
//!
//! | stage | file | when |
//! |---|---|---|
//! | contact anchors (saved state) | `anchors.rs` | once per step, in the gathering |
//! | broad-phase cache (a pure cache) | `cache.rs` | once per step |
//! | gathering: pairs, clearances, contact planes | `gather.rs` | once per step |
//! | narrow phase: swept tests, speculative contacts | `narrow.rs` | every substep |
//! | projection with static friction | `solve.rs` | every iteration |
//! | rope span contacts | `span.rs` | gathered once per step, tested and solved every substep |
//! | dynamic friction and restitution | `velocity.rs` | after every substep |
//! | contacts between bodies (opt-in) | `bodies/` | pairs once per step, projected every iteration |
//!
//! # Contact planes
//!
//! Most contacts in a game scene are resting ones: a rope lying on the ground and draped
//! over posts, ragdolls on a floor. Testing their shapes every substep finds the same
//! contact again and again. So, like Box2D's and Obi's contacts computed once per step,
//! each particle–collider pair gets a *plane* at the start of the step: with `q` the
//! collider's point nearest the particle's start position `x₀`, `n` the outward normal
//! there and `r` the particle radius,
//!
//! ```text
//! n·x ≥ d,   d = n·q + r = n·x₀ − (dist(x₀) − r)
//! ```
//!
//! The plane through `q` is a supporting plane of the convex shape (the whole shape lies
//! behind it), so a particle held on its front side cannot penetrate — reusing it never
//! lets anything through; its only error is a gap where the surface curves away under a
//! particle that slides (`s²/2R` after sliding `s` over a radius `R`, the rounded corner of
//! the inflated shape for a particle at a box corner). Each substep then costs one dot
//! product per pair instead of a distance query, for as long as the particle stays within
//! `ε = min(plane_reuse, r/2)` of `x₀` (and within its gathered margin, ≥ 1 cm;
//! [`crate::WorldDef::plane_reuse`], 5 mm by default: a
//! 0.3 mm gap after sliding the whole 5 mm around a 4 cm post). A particle predicted to
//! move farther in the step (from its velocity and gravity), or that does move farther, or
//! that starts deeper in than `ε`, is tested against the shapes every substep as before.
//!
//! Rope spans (`span.rs`, geometry in [`crate::rope::edge`]) get the same treatment: the span's deepest point `t`,
//! normal `n` and plane are found once per step, looked for `ε` beyond the contact reach
//! (every point of the span moves at most `ε` while both ends do, and the distance to a
//! shape is 1-Lipschitz, so a span clear by more cannot touch), and each substep keeps
//! `n·((1 − t)·x_a + t·x_b) ≥ d`. A span that turns while it slides is held at a point up
//! to `ε` from its true deepest point. As it starts at most `ε` deep in the inflated shape
//! (a deeper one is tested every substep) and no point of it moves more than `ε`, its
//! centre line stays at least `r − 2ε ≥ 0` from the shape: it never enters the shape
//! proper, let alone cuts through a post.
//!
//! # Contact anchors
//!
//! The planes and clearances above are measured from a point, the particle's *contact
//! anchor*, and hold while the particle stays within a distance of it: `ε` for the
//! planes, its gathered margin for the pairs. Nothing ties that point to the start of
//! the step. A particle at rest on its colliders (a rope lying over posts and boxes, a
//! ragdoll on a floor) would gather the same pairs and planes again every step, so it
//! keeps its anchor, and its pairs, while the step's predicted reach from where it is now
//! stays inside the anchor's region (and, with planes, within `ε` of the anchor) —
//! `|x₀ − a| + reach ≤ region` — and it moves less than `ε/4` per step. Rope spans whose
//! two ends kept their anchors and pairs keep their step planes and candidates too (they
//! are measured between the ends' anchors). Everything the substeps test is measured from
//! the anchor, so reuse is as exact as within one step: a supporting plane never lets a
//! particle in, and leaving the region re-queries. What changes is how stale a plane's
//! normal may be. Within a step a sliding particle's plane lags by that step's travel; an
//! anchor kept across steps would lag by the particle's whole travel since it was taken,
//! which on a curve holds a slowly sliding particle back (a particle sliding off a post
//! from 0.1 m/s fell 5.2 % behind per-substep tests instead of 4.5 %) — hence the `ε/4`
//! rule, which leaves particles in motion to a fresh anchor every step.
//!
//! A particle with no collider within its margin gets an anchor whose region reaches as
//! far as the colliders allow, less its radius and, for bounded colliders, its rope
//! spans' extra reach (kept, such an anchor lists no candidates for the spans): to the
//! nearest half-space and the box around all bounded colliders when its query box misses
//! that box — a falling particle then keeps the anchor for as many steps as it takes to
//! come within that distance — and otherwise to the bounded colliders within 5 cm of its
//! query box (for a particle moving less than that per step). When such a particle is
//! still well inside its region but has drifted farther than `ε` from the anchor (the
//! planes' bound, which applies to its spans), the anchor moves to it and its region
//! shrinks by the distance moved (and by a rounding margin relative to the sizes, or the
//! roundings of a far drift would add up) — every collider was at least `region` from the
//! old anchor, so at least `region − |x₀ − a|` from the new one — instead of gathering
//! afresh: a slowly swinging stretch of rope used to take a fresh anchor every two or
//! three steps. A rope span keeps last step's items only when both its ends kept anchors
//! with pairs.
//!
//! Anchors are state, not caches: which steps gather afresh depends on them, so
//! snapshots store them and the state hash covers them, and a restored world steps
//! exactly as the original did (it recomputes the pairs of a kept anchor from the
//! anchor). Adding or removing a collider, or changing the plane distance or the
//! friction, drops every anchor. A moving collider ends only the anchors whose query boxes
//! (the region grown by the radius and the spans' reach) its path this step — its swept
//! box — overlaps, and a kept anchor whose last pairs held a moving collider gathers them
//! afresh; the broad phase's cached lists stay valid while the same colliders keep moving
//! (each is checked against the moving colliders' boxes before use), and only a change of
//! which colliders move starts a new broad-phase generation. A moving half-space reaches
//! everywhere: while one moves no anchor is kept.
//! [`crate::StepReport::regathered`] counts the particles that took a new anchor in a step.
//!
//! # Restitution
//!
//! Restitution acts at the velocity level after the position solve (Müller et al. 2020,
//! "Detailed Rigid Body Simulation with Extended Position Based Dynamics", §3.6): a
//! contact that approached faster than resting contact (`2|g|h`) leaves with
//! `v_n = −e·v̄_n`, `v̄_n` its normal velocity before the substep's solve. For a lone
//! particle that is the whole story. A particle bound by rigid bones is not alone: set on
//! that particle only, the bounce is undone by the next substep's bone solve, which
//! shares it with the rest of the body inelastically (a `humanoid16` dropped flat from
//! 4 m with friction 0.6 and damping 0.3 rebounded 0.15 m at e = 0.5 and 0.25 m at
//! e = 0.8, 4 substeps; 0.23 m and 0.71 m now). So, in a substep where
//! some contact of a tree-solved body (`crate::constraint::tree`) bounces, the body's
//! bone rows are solved again at the velocity level, `n_i·(v_a − v_b) = 0`, with the same
//! exact tree solve and every particle a contact pushed heavy along its normal (a bounce
//! is a normal impulse; static friction acts on positions in the next substep): those
//! keep the normal velocity the pass gave them, and the rest of the body takes the
//! velocity its bones allow. That is Newton's law of restitution at each contact with
//! the body's bones as rigid links between them. It is the path of
//! `WorldDef::body_restitution(false)`; by default a tree-solved body bounces as a whole
//! instead ([`bounce`]: its contacts are inelastic and the impact ends with its centre of
//! mass leaving at `e` times its approach speed, as far as its kinetic energy allows — a
//! `humanoid16` dropped flat from 4 m rises 0.97 m at e = 0.5 and 2.46 m at e = 0.8,
//! `e²h` = 0.98 m and 2.5 m).
//!
//! The per-contact path is exact, up to a loss of first order in the substep (the position solve of the substeps
//! around an impact is inelastic): a rigid body landing on one contact at a time. A
//! tilted rigid triangle bouncing with e = 1 keeps its kinetic energy to 1.4 % (10°) and
//! 5 % (30°) at 8 substeps, 0.5 % and 1.2 % at 32 (it lost 50–80 % before, at any substep
//! count). Not exact: contacts of one substep are treated as equalities (never checked
//! for pulling); a contact that bounced earlier is free when the next one lands; and joint
//! limits stay inelastic projections, which take much of the bounce of a body that lands
//! part by part and folds: a `humanoid16` dropped flat from 4 m rises 0.32 m at e = 0.5
//! and 0.70 m at e = 0.8 on this path (4 substeps), against `e²h` = 0.98 m and 2.5 m,
//! which is why the whole-body bounce is the default. The velocity solve acts only on tree-solved bodies
//! (groups of rigid links with a joint limit, see `crate::constraint::tree`); a chain of
//! bare distances keeps the per-particle bounce.

pub(crate) mod anchors;
pub mod bodies;
pub mod bounce;
pub(crate) mod cache;
pub(crate) mod gather;
pub(crate) mod narrow;
pub(crate) mod solve;
pub(crate) mod span;
pub(crate) mod velocity;

use crate::collider::Aabb;
use crate::math::Real;
use crate::space::{RealOf, Space, VecOf};
use cache::FatCache;

/// The settings the contact stages read, taken from the world's definition once per step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactParams<R> {
    /// Substeps per step.
    pub substeps: u32,
    /// Default dynamic friction.
    pub friction: R,
    /// Default static friction (`None`: the dynamic one).
    pub static_friction: Option<R>,
    /// Default restitution.
    pub restitution: R,
    /// Contact planes' reuse distance (m).
    pub plane_reuse: R,
    /// The approach speed of resting contact at this step's substep, `2|g|h`.
    pub rest_speed: R,
}

impl<R: Real> ContactParams<R> {
    /// A substep's approach below this is resting contact.
    #[inline]
    pub fn rest_move(&self, h: R) -> R {
        self.rest_speed * h
    }
}

/// A particle–collider contact for one substep: keep `n·x ≥ d`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Contact<S: Space> {
    pub particle: u32,
    pub collider: u32,
    pub normal: VecOf<S>,
    pub d: RealOf<S>,
    /// Accumulated normal correction (m) this substep.
    pub dn: RealOf<S>,
    /// Normal velocity before the solve (for restitution).
    pub vn_pre: RealOf<S>,
    /// Collider surface velocity at the contact.
    pub v_col: VecOf<S>,
    pub mu_s: RealOf<S>,
    pub mu_d: RealOf<S>,
    pub restitution: RealOf<S>,
}

/// A colliding particle as the substeps' contact detection sees it: one record, one
/// memory stream.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Probe<R> {
    /// Particle slot.
    pub particle: u32,
    /// End of its pairs in `ContactScratch::pairs` (they start where the previous probe's
    /// end).
    pub pairs_end: u32,
    /// How far it may move this step before its candidates must be re-queried, squared.
    pub margin2: R,
}

/// A particle–collider pair gathered for a step (see `ContactScratch::pairs`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pair<S: Space> {
    /// Collider slot.
    pub slot: u32,
    /// Squared clearance at the particle's contact anchor (0 for a moving collider).
    pub clear2: RealOf<S>,
    /// The contact plane at the contact anchor, `normal·x ≥ d` (world frame): the
    /// collider's supporting plane at its point nearest the particle, moved out by the
    /// particle's radius. Zero normal: none — a moving collider, a particle predicted to
    /// move farther than its reuse distance, or one deeper in than that.
    pub normal: VecOf<S>,
    pub d: RealOf<S>,
}

/// The contact stages' per-step working memory (derived data; never part of the state).
#[derive(Clone, Debug, Default)]
pub(crate) struct ContactScratch<S: Space> {
    /// Per particle slot, during the velocity pass: how far this substep's span contacts
    /// pushed it (zero outside the pass).
    pub span_push: Vec<VecOf<S>>,
    /// Per colliding particle with pairs, what the substeps' contact detection reads (see
    /// [`Probe`]).
    pub probes: Vec<Probe<RealOf<S>>>,
    /// Broad-phase results for a particle that left its gathered region mid-step.
    pub requery: Vec<u32>,
    /// The particle slots that left their gathered region this substep (re-queried): their
    /// rope spans are re-queried too (see [`span`]).
    pub left: Vec<u32>,
    /// Per probe (CSR over `Probe::pairs_end`): the colliders it may touch this step
    /// (slot) with the squared clearance it had from each at the start of the step (0 for
    /// a moving collider). Distance to a shape is 1-Lipschitz, so while both ends of a
    /// substep's path stay closer than that to the start position the collider cannot
    /// touch the particle or be crossed by it, and the test is skipped.
    pub pairs: Vec<Pair<S>>,
    /// The previous step's `pairs`, which a particle that keeps its contact anchor copies.
    pub pairs_prev: Vec<Pair<S>>,
    /// Per particle slot: the gather epoch in which it last kept its contact anchor.
    pub kept: Vec<u32>,
    /// Colliding particles gathered afresh this step (see [`crate::StepReport::regathered`]).
    pub regathered: u32,
    /// Per particle slot: for a colliding particle with no pairs this step (nothing
    /// within its margin — most of a swinging rope, a falling ragdoll), its squared margin;
    /// `MAX` for every other slot. Such particles get no probe: one branch-free pass over
    /// all slots per substep finds any that left their region instead.
    pub lonely2: Vec<RealOf<S>>,
    /// Per particle slot, this substep (at contact detection): how far (squared) the
    /// substep's path got from its contact anchor `a`, `max(|x − a|², |x_prev − a|²)`.
    pub reach2: Vec<RealOf<S>>,
    /// Per particle slot: the squared distance it may move from its contact anchor with
    /// its contact planes reused (see "Contact planes" in the module docs); 0: tests every
    /// substep.
    pub plane2: Vec<RealOf<S>>,
    /// Broad-phase results kept across steps (see [`FatCache`]).
    pub fat: FatCache<S>,
    pub query_buf: Vec<u32>,
    /// The gathering's view of the broad phase's half-spaces and bounded colliders, and the
    /// boxes of the moving ones (rebuilt each step, kept for their capacity).
    pub unbounded: Vec<gather::Live>,
    pub bounded: Vec<gather::Bounded<S>>,
    pub moving_boxes: Vec<Aabb<VecOf<S>>>,
    /// The particles the velocity pass gave a bounce this substep.
    pub bounced: Vec<u32>,
}
