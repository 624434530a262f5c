//! The world: particles, constraints and colliders, advanced by the XPBD substep loop.
//!
//! # One step
//! ```text
//! step(dt):
//!   drivers set kinematic targets for the end of the step
//!   broad phase rebuilt if colliders were added, removed or moved
//!   h = dt / substeps
//!   repeat substeps times:
//!     integrate     v = v·max(0, 1 − damping·h) + h·(g·s + f/m); x_prev = x; x += h·v
//!                   (driven particles move along their path instead)
//!     λ = 0 for every constraint
//!     repeat iterations times:
//!       project distances, bending, tethers, attachments, joint limits   (in that order,
//!                                                                        each in slot order)
//!       first iteration: detect contacts (the step's contact planes while a particle stays
//!                        near its start, see below; else swept, against colliders at
//!                        this substep's pose)
//!                        plus, for a particle in contact, speculative contacts with its
//!                        other colliders within half its radius
//!       project contacts with static friction (two on one particle: onto both at once)
//!     impact passes (WorldDef::impact_passes, off by default): the constraint groups a
//!                    contact struck (in 2D also the ragdolls left strained) project
//!                    their limits and contacts again, then (2D) each is solved at once
//!     v = (x − x_prev) / h
//!     velocity pass: dynamic friction and restitution on this substep's contacts; an
//!                    approaching normal velocity goes to the restitution target, an
//!                    outward one is kept less any push out of a starting penetration
//!                    (so particles leave curved surfaces where the normal force
//!                    vanishes; see `World::velocity_pass`)
//! ```
//!
//! Everything iterates in slot order over plain vectors, so a step is a pure function of
//! the world's state: the same inputs give bit-identical results on the same build, and,
//! in fixed point, on every machine.
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
//! [`WorldDef::plane_reuse`], 5 mm by default: a
//! 0.3 mm gap after sliding the whole 5 mm around a 4 cm post). A particle predicted to
//! move farther in the step (from its velocity and gravity), or that does move farther, or
//! that starts deeper in than `ε`, is tested against the shapes every substep as before.
//!
//! Rope spans (see `rope::edge`) get the same treatment: the span's deepest point `t`,
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
//! [`StepReport::regathered`] counts the particles that took a new anchor in a step.
//!
//! # Impacts
//!
//! Constraints are projected before contacts, once per substep (Gauss–Seidel). When a
//! ragdoll hits a wall at speed, the contacts stop the particles that touch it after the
//! bones were projected, and the bones only learn of it next substep: for that substep
//! they are compressed by about the distance the body moves in it (`v·h`: 2 cm at
//! 10 m/s and 8 substeps), 7 % worst strain on a humanoid thrown into a wall. More
//! iterations fix it everywhere at their full price, and converge slowly: the error travels
//! one bone per pass and the contacts and limits undo part of each (a humanoid dropped
//! 5 m still strains 3.6 % at 8 substeps × 4 iterations). The impact passes act only
//! where an impact happened: a contact that pushed a particle which came at the surface
//! faster than `max(8|g|h, 0.1 m/s)` — eight times the approach gravity gives a resting
//! particle in a substep — marks the particle's *group* (the distances and joint limits
//! connected to it through shared particles: one ragdoll). A resting contact's approach
//! is that `|g|h` whatever weight it carries; its push `dn` grows with the load, and a
//! first version that compared the push with `8|g|h²` fired every substep on a chain of 20
//! links resting across two boxes (as it would on anything riding a lift).
//!
//! Each pass projects a marked group's one-sided links and joint limits, then its
//! particles' contacts, and then — where the group's joint limits give rows for it
//! ([`JointLimit::DIRECT_ROWS`]: the 2D angle limit) — *solves* the group at once: its
//! links, the limits now beyond their range and the contacts its particles touch, one
//! Newton step of the linearised system (`constraint::group_solve`, a dense `LDLᵀ` with an
//! active set for contacts and limits, which only push), again from the new positions
//! while something is left beyond 0.5 % strain, 0.25° or 10 µm of depth (at most six
//! times). A particle the solve pushes into a collider it was clear of gets a contact then
//! and there. In 2D a ragdoll (a group with joint limits) is also marked when the
//! substep's projections left a rigid bone strained beyond 0.5 % or a joint 0.25° beyond
//! its limit: the strain of a body tumbling after an impact, or of a limb caught between
//! the ground and the body falling onto it, comes in substeps where no contact struck
//! anything. Measured (`examples/ragdoll_impact.rs`, its sweep tables) over 15 throws into
//! a wall (6–14 m/s, 3 s each) and 6 drops (3–7 m) of `humanoid16` at 8 substeps: mean
//! worst bone strain 11.0 % / 11.8 % without, 0.45 % / 0.47 % with one pass (largest
//! 0.50 %), mean joint-limit overshoot 0.1° (2.2° without); at 4 substeps 0.49 % / 0.49 %
//! (the single throw and drop then still move at 0.4 m/s after 5 s). Over those 21
//! scenes run for 5 s in `f64`, `f32` and fixed point (`examples/ragdoll_settle.rs`), one
//! pass at 8 substeps left 1 of 63 runs moving after 5 s (the plain projections 15 of 63,
//! 96 substeps 4 of 63). The strain tolerance is 0.5 %: with 0.25 % a ragdoll lying on
//! the ground, whose projections leave about 0.2 %, crossed it now and then, and each
//! solve that snapped it back kicked it (3 runs of 63 still moving, up to 1.0 m/s). The
//! re-projection alone (the passes before the direct solve) gave 7.2 % / 9.7 %.
//!
//! What the solve leaves out, and why it is off by default:
//! - Friction: the solve moves contact particles along their surfaces. A chain of 20 bare
//!   links resting across two boxes, 1.9 % long after the projections, slid off its
//!   supports when the strain marked it and the solve shortened it (measured at up to
//!   6 m/s; rows that held the sticking contacts in place made ragdolls tremble instead).
//!   So groups without joint limits are solved only in a substep a contact strikes them.
//! - 3D: with swing–twist limits' rows the solve left a resting `humanoid3d` trembling at
//!   about 1 m/s (with or without the limit rows, contacts or twist rows, at 8 and 16
//!   substeps), and without the strain marking a struck-only solve could blow up. 3D
//!   groups keep the re-projection: 24.4 % → 20.9 % mean worst strain over 15 wall throws
//!   at 8 substeps, 13.2 % → 9.8 % at 16.
//! - Cost: at least 3 µs per solved ragdoll per substep (a crowd's extra time over its
//!   ragdolls and substeps, as if every one were solved each substep). In a crowd (1000 ragdolls raining
//!   onto platforms at 4 substeps) most ragdolls stay strained, and one pass takes a frame
//!   from ~2 ms to ~14 ms. A few fighting-game ragdolls that must keep their bones through
//!   hits want 1.
//!
//! Only distances, joint limits and contacts take part: tethers, bending, attachments (a
//! grabbed ragdoll's pin), rope chains, span contacts and `step_with`'s custom
//! constraints (muscles) wait for the next substep, as before.

use crate::arena::Arena;
use crate::collider::{BroadPhase, Collider, ColliderDef, ColliderHandle, Proximity, Shape, ShapeQuery};
use crate::constraint::group_solve::{GroupSolver, RowOf};
use crate::constraint::{
    Attachment, AttachmentDef, AttachmentHandle, Bending, BendingDef, BendingHandle, Distance, DistanceDef,
    DistanceHandle, JointLimit, JointLimitHandle, LinkRows, SubstepContext, Tether, TetherDef, TetherHandle,
};
use crate::driver::{DriverDef, DriverHandle, KeyframeDriver};
use crate::math::{Real, Rotation, Vector};
use crate::particle::{ALIVE, AnchorInfo, COLLIDES, KINEMATIC, ParticleDef, ParticleHandle, ParticleSet, check_finite};
use crate::rope::Rope;
use crate::rope::api::{EdgeContact, EdgeScratch};
use crate::rope::chain::ChainScratch;
use crate::sleep::SleepGroup;
use crate::space::{RealOf, RotOf, Space, VecOf};
use crate::{Aabb, SinewError};

/// World settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldDef<S: Space> {
    /// Gravity (m/s²).
    pub gravity: VecOf<S>,
    /// Substeps per step (≥ 1). Default 8.
    pub substeps: u32,
    /// Constraint iterations per substep (≥ 1). Default 1.
    pub iterations: u32,
    /// Linear velocity damping rate (1/s), ≥ 0: each substep `v *= max(0, 1 − damping·h)`.
    pub damping: RealOf<S>,
    /// Default dynamic friction coefficient for contacts.
    pub friction: RealOf<S>,
    /// Default static friction coefficient; `None` = equal to `friction`.
    pub static_friction: Option<RealOf<S>>,
    /// Default restitution in `[0, 1]`.
    pub restitution: RealOf<S>,
    /// Order of the distance projections within a sweep. Default
    /// [`ConstraintOrder::Sequential`].
    pub constraint_order: ConstraintOrder,
    /// Longest step accepted (s); longer steps are clamped to it (documented safety clamp:
    /// a hitch of several frames must not explode the simulation). Default 0.1 s.
    pub max_time_step: RealOf<S>,
    /// Contact planes are reused across a step's substeps while a particle stays within
    /// this distance (m) of where the step started — and within half its radius — instead
    /// of testing the shapes again every substep (see "Contact planes" in the module docs).
    /// 0 tests every substep. Default 5 mm.
    pub plane_reuse: RealOf<S>,
    /// Extra passes per substep for the groups of constraints (a ragdoll, a chain of
    /// distances) that a contact struck in it — a contact pushed one of a group's
    /// particles that came at the surface faster than `max(8|g|h, 0.1 m/s)` (a resting
    /// particle's approach is gravity's `|g|h`, whatever weight its contact carries) — and,
    /// in 2D, for ragdolls the substep left with a bone strained beyond 0.5 % or a joint
    /// beyond its limit by 0.25°: the group's joint limits and contacts are projected
    /// again, then (2D) the group's links, violated limits and contacts are solved at
    /// once, this many times (see "Impacts" in the module docs). One pass holds a
    /// `humanoid16`'s bones within 0.5 % through 10 m/s impacts at 8 substeps. Default 0
    /// (off): it costs at least 3 µs per solved ragdoll per substep, right for a few
    /// fighting-game ragdolls, not for a crowd (a 1000-ragdoll rain: ~14 ms a frame
    /// against ~2 ms).
    pub impact_passes: u32,
}

impl<S: Space> Default for WorldDef<S> {
    fn default() -> Self {
        let mut g = VecOf::<S>::ZERO;
        g.set(1, RealOf::<S>::from_f64(-9.81));
        Self {
            gravity: g,
            substeps: 8,
            iterations: 1,
            damping: RealOf::<S>::ZERO,
            friction: RealOf::<S>::ZERO,
            static_friction: None,
            restitution: RealOf::<S>::ZERO,
            constraint_order: ConstraintOrder::Sequential,
            max_time_step: RealOf::<S>::from_ratio(1, 10),
            plane_reuse: RealOf::<S>::from_ratio(5, 1000),
            impact_passes: 0,
        }
    }
}

impl<S: Space> WorldDef<S> {
    /// The approach speed of resting contact at substep `h`: what gravity adds in two
    /// substeps, `2|g|h`. Below it an approach is resting contact, not an impact — no
    /// bounce, no strike plane, no impact pass.
    #[inline]
    pub(crate) fn rest_speed(&self, h: RealOf<S>) -> RealOf<S> {
        self.gravity.length() * h * RealOf::<S>::TWO
    }

    /// Checks every field; the world only ever holds a validated definition.
    pub fn validate(&self) -> Result<(), SinewError> {
        check_finite(self.gravity, "gravity")?;
        let zero = RealOf::<S>::ZERO;
        if self.substeps == 0 || self.substeps > 1024 {
            return Err(SinewError::InvalidParameter { what: "substeps", reason: "must be in 1..=1024" });
        }
        if self.iterations == 0 || self.iterations > 1024 {
            return Err(SinewError::InvalidParameter { what: "iterations", reason: "must be in 1..=1024" });
        }
        if self.impact_passes > 1024 {
            return Err(SinewError::InvalidParameter { what: "impact_passes", reason: "must be in 0..=1024" });
        }
        for (v, what) in [(self.damping, "damping"), (self.friction, "friction"), (self.plane_reuse, "plane_reuse")] {
            if !v.is_finite() || v < zero {
                return Err(SinewError::InvalidParameter { what, reason: "must be finite and ≥ 0" });
            }
        }
        if let Some(s) = self.static_friction
            && (!s.is_finite() || s < zero)
        {
            return Err(SinewError::InvalidParameter { what: "static_friction", reason: "must be finite and ≥ 0" });
        }
        if !self.restitution.is_finite() || self.restitution < zero || self.restitution > RealOf::<S>::ONE {
            return Err(SinewError::InvalidParameter { what: "restitution", reason: "must be in [0, 1]" });
        }
        if !self.max_time_step.is_finite() || !(self.max_time_step > zero) {
            return Err(SinewError::InvalidParameter { what: "max_time_step", reason: "must be > 0" });
        }
        Ok(())
    }
}

/// Independent constraint groups interleaved at a time by [`ConstraintOrder::Sequential`]:
/// enough to keep the CPU's divide and square-root units busy, few enough that the
/// block's particles stay in cache.
const INTERLEAVE: usize = 8;

/// With the direct solve, a group left with a rigid link strained by more than this
/// (0.5 %) after a substep's projections gets the impact passes (see "Impacts").
const IMPACT_STRAIN: (i32, i32) = (1, 200);
/// ... or with a joint beyond its limit by more than this (rad; 0.25°).
const IMPACT_OVERSHOOT: (i32, i32) = (1, 229);
/// Newton steps of an impact pass's direct solve of a group, at most (see
/// `World::solve_struck_groups`).
const GROUP_SOLVE_ROUNDS: usize = 6;
/// Contacts with a particle deeper than minus this (m; 10 µm: touching, within rounding)
/// are rows of a direct solve (one-sided: dropped if they would pull), and one left deeper
/// than this is solved again.
const GROUP_SOLVE_SLOP: (i32, i32) = (1, 100_000);

/// Steps of motion a particle's cached broad-phase box stretches ahead along its velocity
/// (see `Scratch::fat`): a longer box re-queries less often, at the price of a longer
/// cached list to filter each step.
const FAT_STEPS_AHEAD: i32 = 6;

/// How far (m) beyond its query box a particle with no collider within its margin looks for
/// colliders to widen its contact anchor's region (see "Contact anchors" in the module
/// docs): half the cached boxes' pad, so that a cached list usually holds that far.
const LONELY_PAD: (i32, i32) = (5, 100);

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

/// What a custom constraint callback (see [`World::step_with`]) can see and change.
pub struct SubstepSolver<'a, S: Space> {
    /// The particles (positions are mid-projection; velocities are from the last substep).
    pub particles: &'a mut ParticleSet<S>,
    /// Substep constants (`h`, `1/h`, `1/h²`).
    pub ctx: &'a SubstepContext<RealOf<S>>,
    /// Substep index within the step, from 0.
    pub substep: u32,
    /// Iteration index within the substep, from 0 (multipliers restart at 0).
    pub iteration: u32,
    /// Substeps in this step.
    pub substeps: u32,
}

/// What happened during a step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepReport {
    /// The time step was longer than `max_time_step` and was clamped.
    pub clamped_dt: bool,
    /// Particles whose state became non-finite and were restored to their last finite
    /// state (should stay 0; non-zero means extreme input such as enormous forces).
    pub recovered_particles: u32,
    /// Particle contacts that pushed in the last substep, plus the span contacts generated
    /// in it (including those kept from the step's planes that were not violated).
    pub contacts: u32,
    /// Colliding particles that took a new contact anchor this step (their collider pairs
    /// gathered afresh); the others kept theirs (see "Contact anchors" in the module docs),
    /// a lonely one possibly moved to the particle without a query (not counted).
    pub regathered: u32,
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
struct Probe<R> {
    /// Particle slot.
    particle: u32,
    /// End of its pairs in `Scratch::pairs` (they start where the previous probe's end).
    pairs_end: u32,
    /// How far it may move this step before its candidates must be re-queried, squared.
    margin2: R,
}

/// A particle–collider pair gathered for a step (see `Scratch::pairs`).
#[derive(Clone, Copy, Debug)]
struct Pair<S: Space> {
    /// Collider slot.
    slot: u32,
    /// Squared clearance at the particle's contact anchor (0 for a moving collider).
    clear2: RealOf<S>,
    /// The contact plane at the contact anchor, `normal·x ≥ d` (world frame): the
    /// collider's supporting plane at its point nearest the particle, moved out by the
    /// particle's radius. Zero normal: none — a moving collider, a particle predicted to
    /// move farther than its reuse distance, or one deeper in than that.
    normal: VecOf<S>,
    d: RealOf<S>,
}

/// One particle slot's broad-phase cache (see `Scratch::fat`), in one record so that the
/// once-per-step gathering reads and writes one array per particle instead of five.
#[derive(Clone, Copy, Debug)]
struct FatEntry<S: Space> {
    /// The enlarged box the list was queried with.
    bx: Aabb<VecOf<S>>,
    /// The list's range in its step's list array.
    at: u32,
    len: u32,
    /// The gather that wrote the entry (`Scratch::gather_epoch`; 0: never). 32 bits keep
    /// the record at 32 bytes (two per cache line) for `f32` in 2D.
    epoch: u32,
    /// Half the side of this step's query box, centred on the particle's contact anchor.
    reach: RealOf<S>,
    /// The pairs' range in the step's pair array.
    pairs_at: u32,
    pairs_len: u32,
}

/// A simulation world. See the module docs for what one step does.
#[derive(Clone, Debug)]
pub struct World<S: Space> {
    pub(crate) def: WorldDef<S>,
    pub(crate) particles: ParticleSet<S>,
    pub(crate) colliders: Arena<Collider<S>>,
    pub(crate) distances: Arena<Distance<RealOf<S>>>,
    /// Distance slots grouped by colour (see [`World::colour_distances`]); rebuilt when
    /// distances are added or removed.
    distance_order: Vec<u32>,
    distance_order_dirty: bool,
    /// Every distance constraint is rigid ([`Distance::is_rigid`]) this step.
    distances_rigid: bool,
    /// `distance_order` as rows of independent links, projected together when every
    /// distance is rigid (see [`LinkRows`]); rebuilt with `distance_order`.
    link_rows: LinkRows<RealOf<S>>,
    /// Joint limits in projection order (slot indices); rebuilt with `distance_order`.
    limit_order: Vec<u32>,
    /// The groups of distances and joint limits connected through shared particles, for
    /// the impact passes; rebuilt with `distance_order`.
    groups: ConstraintGroups,
    /// The impact passes' direct solve (see [`crate::constraint::group_solve`]).
    group_solver: GroupSolver<S>,
    pub(crate) tethers: Arena<Tether<RealOf<S>>>,
    pub(crate) bendings: Arena<Bending<RealOf<S>>>,
    pub(crate) attachments: Arena<Attachment<S>>,
    pub(crate) limits: Arena<S::JointLimit>,
    pub(crate) drivers: Arena<KeyframeDriver<S>>,
    pub(crate) ropes: Arena<Rope<S>>,
    pub(crate) sleep_groups: Arena<SleepGroup>,
    pub(crate) contacts: Vec<Contact<S>>,
    pub(crate) edge_contacts: Vec<EdgeContact<S>>,
    pub(crate) edge_scratch: EdgeScratch<S>,
    pub(crate) rope_scratch: ChainScratch<S>,
    pub(crate) broad_phase: BroadPhase<VecOf<S>>,
    pub(crate) broad_phase_dirty: bool,
    /// The colliders changed (added, removed, restored): the next rebuild starts a new
    /// broad-phase generation.
    pub(crate) broad_phase_restructure: bool,
    /// Every collider's slot and whether it moved, as of the last broad-phase generation.
    moving_colliders: Vec<(u32, bool)>,
    pub(crate) time: RealOf<S>,
    pub(crate) step_count: u64,
    /// Substep length of the last step (for force read-outs).
    pub(crate) last_h: RealOf<S>,
    /// Per-step working memory (derived data; never part of the state).
    pub(crate) scratch: Scratch<S>,
}

/// Buffers rebuilt every step.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch<S: Space> {
    /// Velocity added per substep.
    dv: Vec<VecOf<S>>,
    /// Per particle slot, during the velocity pass: how far this substep's span contacts
    /// pushed it (zero outside the pass).
    span_push: Vec<VecOf<S>>,
    kinematic: Vec<u32>,
    dynamic_colliding: Vec<u32>,
    /// Per entry of `dynamic_colliding`, what the substeps' contact detection reads (see
    /// [`Probe`]).
    probes: Vec<Probe<RealOf<S>>>,
    /// Broad-phase results for a particle that left its gathered region mid-step.
    requery: Vec<u32>,
    /// The particle slots that left their gathered region this substep (re-queried): their
    /// rope spans are re-queried too (see `detect_edge_contacts`).
    pub(crate) left: Vec<u32>,
    /// Per entry of `dynamic_colliding` (CSR over `Probe::pairs_end`): the colliders it
    /// may touch this step (slot) with the squared clearance it had from each at the start
    /// of the step (0 for a moving collider). Distance to a shape is 1-Lipschitz, so while
    /// both ends of a substep's path stay closer than that to the start position the
    /// collider cannot touch the particle or be crossed by it, and the test is skipped.
    pairs: Vec<Pair<S>>,
    /// The previous step's `pairs`, which a particle that keeps its contact anchor copies.
    pairs_prev: Vec<Pair<S>>,
    /// Per particle slot: the gather epoch in which it last kept its contact anchor.
    kept: Vec<u32>,
    /// Colliding particles gathered afresh this step (see [`StepReport::regathered`]).
    regathered: u32,
    /// Per particle slot: for a colliding particle with no pairs this step (nothing
    /// within its margin — most of a swinging rope, a falling ragdoll), its squared margin;
    /// `MAX` for every other slot. Such particles get no probe: one branch-free pass over
    /// all slots per substep finds any that left their region instead.
    lonely2: Vec<RealOf<S>>,
    /// Per particle slot, this substep (at contact detection): how far (squared) the
    /// substep's path got from its contact anchor `a`, `max(|x − a|², |x_prev − a|²)`.
    pub(crate) reach2: Vec<RealOf<S>>,
    /// Per particle slot: the squared distance it may move from its contact anchor
    /// with its contact planes reused (see "Contact planes" in the module docs); 0: tests
    /// every substep.
    pub(crate) plane2: Vec<RealOf<S>>,
    /// Broad-phase results kept across steps (Box2D's "fat AABB" idea), per particle slot
    /// (see [`FatEntry`]): the enlarged box its candidates were last queried with and their
    /// range in `fat_next` (this step's lists; `fat_items` holds the previous step's).
    /// While the particle's query box stays inside that box and the broad phase has not
    /// been rebuilt (`fat_generation`), the cached list — a superset — is filtered instead
    /// of querying the grid again. Results are identical either way.
    fat: Vec<FatEntry<S>>,
    fat_items: Vec<u32>,
    fat_next: Vec<u32>,
    fat_generation: u64,
    /// Gathers so far: a `FatEntry` written by the current one is this step's, by the
    /// one before a list in `fat_items`.
    gather_epoch: u32,
    query_buf: Vec<u32>,
    /// Per particle slot: belongs to a sleeping rope or group.
    sleeping: Vec<bool>,
    /// Sleeping particles with their inverse masses, zeroed for the step.
    asleep: Vec<(u32, RealOf<S>)>,
    /// Per particle slot: extra broad-phase reach (m) — a rope span can touch colliders
    /// up to a segment away from its particles.
    pub(crate) extra_reach: Vec<RealOf<S>>,
}

impl<S: Space> World<S> {
    /// A world with the given settings.
    pub fn new(def: WorldDef<S>) -> Result<Self, SinewError> {
        def.validate()?;
        Ok(Self {
            def,
            particles: ParticleSet::default(),
            colliders: Arena::default(),
            distances: Arena::default(),
            distance_order: Vec::new(),
            distance_order_dirty: false,
            distances_rigid: false,
            link_rows: LinkRows::default(),
            limit_order: Vec::new(),
            group_solver: GroupSolver::default(),
            groups: ConstraintGroups::default(),
            tethers: Arena::default(),
            bendings: Arena::default(),
            attachments: Arena::default(),
            limits: Arena::default(),
            drivers: Arena::default(),
            ropes: Arena::default(),
            sleep_groups: Arena::default(),
            contacts: Vec::new(),
            edge_contacts: Vec::new(),
            edge_scratch: EdgeScratch::default(),
            rope_scratch: ChainScratch::default(),
            broad_phase: BroadPhase::default(),
            broad_phase_dirty: true,
            broad_phase_restructure: true,
            moving_colliders: Vec::new(),
            time: RealOf::<S>::ZERO,
            step_count: 0,
            last_h: RealOf::<S>::ZERO,
            scratch: Scratch::default(),
        })
    }

    /// Settings.
    #[must_use]
    pub fn def(&self) -> &WorldDef<S> {
        &self.def
    }

    /// Changes the settings (validated).
    pub fn set_def(&mut self, def: WorldDef<S>) -> Result<(), SinewError> {
        def.validate()?;
        self.distance_order_dirty |= def.constraint_order != self.def.constraint_order;
        // The impact passes' groups are only kept while the passes are on.
        self.distance_order_dirty |= (def.impact_passes > 0) != (self.def.impact_passes > 0);
        // What gathered pairs and span planes hold of the settings.
        if def.plane_reuse != self.def.plane_reuse || def.friction != self.def.friction {
            self.drop_contact_anchors();
        }
        self.def = def;
        Ok(())
    }

    /// Simulated time (s).
    #[must_use]
    pub fn time(&self) -> RealOf<S> {
        self.time
    }

    /// Steps taken.
    #[must_use]
    pub fn step_count(&self) -> u64 {
        self.step_count
    }

    /// The particles.
    #[must_use]
    pub fn particles(&self) -> &ParticleSet<S> {
        &self.particles
    }

    /// Mutable particles (positions, velocities, forces, pins, kinematic targets).
    pub fn particles_mut(&mut self) -> &mut ParticleSet<S> {
        &mut self.particles
    }

    // ----------------------------------------------------------------- particles

    /// Adds a particle.
    pub fn add_particle(&mut self, def: &ParticleDef<S>) -> Result<ParticleHandle, SinewError> {
        check_finite(def.position, "particle position")?;
        check_finite(def.velocity, "particle velocity")?;
        let zero = RealOf::<S>::ZERO;
        if !def.mass.is_finite() || def.mass < zero {
            return Err(SinewError::InvalidParameter { what: "particle mass", reason: "must be finite and ≥ 0" });
        }
        if !def.radius.is_finite() || def.radius < zero {
            return Err(SinewError::InvalidParameter { what: "particle radius", reason: "must be finite and ≥ 0" });
        }
        if !def.gravity_scale.is_finite() {
            return Err(SinewError::NonFinite { what: "particle gravity_scale" });
        }
        if let Some(f) = def.friction
            && (!f.is_finite() || f < zero)
        {
            return Err(SinewError::InvalidParameter { what: "particle friction", reason: "must be finite and ≥ 0" });
        }
        Ok(self.particles.insert(def))
    }

    /// Removes a particle and every constraint and driver that uses it.
    pub fn remove_particle(&mut self, h: ParticleHandle) -> Result<(), SinewError> {
        self.particles.check(h)?;
        let k = h.index();
        retain(&mut self.distances, |c| c.a as usize != k && c.b as usize != k);
        self.distance_order_dirty = true;
        retain(&mut self.tethers, |c| c.particle as usize != k && c.anchor as usize != k);
        retain(&mut self.bendings, |c| c.a as usize != k && c.b as usize != k && c.c as usize != k);
        retain(&mut self.attachments, |c| c.particle as usize != k);
        retain(&mut self.limits, |c| !c.particle_indices().contains(&k));
        retain(&mut self.drivers, |d| d.particle != h);
        self.particles.remove(h);
        Ok(())
    }

    // --------------------------------------------------------------- constraints

    /// Adds a distance constraint.
    pub fn add_distance(&mut self, def: &DistanceDef<S>) -> Result<DistanceHandle, SinewError> {
        self.particles.check(def.a)?;
        self.particles.check(def.b)?;
        if def.a == def.b {
            return Err(SinewError::InvalidParameter { what: "distance", reason: "particles must differ" });
        }
        let rest = match def.length {
            Some(l) => l,
            None => self.particles.pos[def.a.index()].distance(self.particles.pos[def.b.index()]),
        };
        check_params(&[
            (rest, "distance length"),
            (def.compliance, "distance compliance"),
            (def.damping, "distance damping"),
        ])?;
        let c = Distance::new(def.a.index(), def.b.index(), rest, def.compliance, def.damping, def.unilateral);
        self.distance_order_dirty = true;
        Ok(DistanceHandle(self.distances.insert(c)))
    }

    /// Removes a distance constraint.
    pub fn remove_distance(&mut self, h: DistanceHandle) -> Result<(), SinewError> {
        self.distance_order_dirty = true;
        self.distances.remove(h.0).map(|_| ()).ok_or(SinewError::InvalidHandle { what: "distance" })
    }

    /// A distance constraint.
    #[must_use]
    pub fn distance(&self, h: DistanceHandle) -> Option<&Distance<RealOf<S>>> {
        self.distances.get(h.0)
    }

    /// Mutable access to a distance constraint (rest length, compliance, damping).
    pub fn distance_mut(&mut self, h: DistanceHandle) -> Option<&mut Distance<RealOf<S>>> {
        self.distances.get_mut(h.0)
    }

    /// Tension (N) carried by a distance constraint in the last substep (positive = pulling).
    #[must_use]
    pub fn distance_tension(&self, h: DistanceHandle) -> Option<RealOf<S>> {
        let c = self.distances.get(h.0)?;
        Some(self.lambda_to_force(-c.lambda))
    }

    /// Converts a multiplier of the last substep into a force (N): `λ / h²`.
    #[must_use]
    pub fn lambda_to_force(&self, lambda: RealOf<S>) -> RealOf<S> {
        if self.last_h == RealOf::<S>::ZERO { RealOf::<S>::ZERO } else { lambda / (self.last_h * self.last_h) }
    }

    /// Adds a tether.
    pub fn add_tether(&mut self, def: &TetherDef<S>) -> Result<TetherHandle, SinewError> {
        self.particles.check(def.particle)?;
        self.particles.check(def.anchor)?;
        if def.particle == def.anchor {
            return Err(SinewError::InvalidParameter { what: "tether", reason: "particles must differ" });
        }
        let len = match def.length {
            Some(l) => l,
            None => self.particles.pos[def.particle.index()].distance(self.particles.pos[def.anchor.index()]),
        };
        check_params(&[(len, "tether length")])?;
        Ok(TetherHandle(self.tethers.insert(Tether::new(def.particle.index(), def.anchor.index(), len))))
    }

    /// Removes a tether.
    pub fn remove_tether(&mut self, h: TetherHandle) -> Result<(), SinewError> {
        self.tethers.remove(h.0).map(|_| ()).ok_or(SinewError::InvalidHandle { what: "tether" })
    }

    /// Adds a bending constraint.
    pub fn add_bending(&mut self, def: &BendingDef<S>) -> Result<BendingHandle, SinewError> {
        for h in [def.a, def.b, def.c] {
            self.particles.check(h)?;
        }
        if def.a == def.b || def.b == def.c || def.a == def.c {
            return Err(SinewError::InvalidParameter { what: "bending", reason: "particles must differ" });
        }
        let p = &self.particles.pos;
        let rest = def.rest.unwrap_or_else(|| Bending::measure(p[def.a.index()], p[def.b.index()], p[def.c.index()]));
        check_params(&[(rest, "bending rest"), (def.compliance, "bending compliance")])?;
        let c = Bending::new(def.a.index(), def.b.index(), def.c.index(), rest, def.compliance);
        Ok(BendingHandle(self.bendings.insert(c)))
    }

    /// Removes a bending constraint.
    pub fn remove_bending(&mut self, h: BendingHandle) -> Result<(), SinewError> {
        self.bendings.remove(h.0).map(|_| ()).ok_or(SinewError::InvalidHandle { what: "bending" })
    }

    /// Adds an attachment to a world-space target.
    pub fn add_attachment(&mut self, def: &AttachmentDef<S>) -> Result<AttachmentHandle, SinewError> {
        self.particles.check(def.particle)?;
        check_finite(def.target, "attachment target")?;
        check_params(&[
            (def.length, "attachment length"),
            (def.compliance, "attachment compliance"),
            (def.damping, "attachment damping"),
        ])?;
        Ok(AttachmentHandle(self.attachments.insert(Attachment::new(def.particle.index(), def))))
    }

    /// Moves an attachment's target.
    pub fn set_attachment_target(&mut self, h: AttachmentHandle, target: VecOf<S>) -> Result<(), SinewError> {
        check_finite(target, "attachment target")?;
        let a = self.attachments.get_mut(h.0).ok_or(SinewError::InvalidHandle { what: "attachment" })?;
        a.target = target;
        Ok(())
    }

    /// Force (N) an attachment applied in the last substep, toward its target.
    #[must_use]
    pub fn attachment_force(&self, h: AttachmentHandle) -> Option<VecOf<S>> {
        let a = self.attachments.get(h.0)?;
        if self.last_h == RealOf::<S>::ZERO {
            return Some(VecOf::<S>::ZERO);
        }
        Some(a.force(&SubstepContext::new(self.last_h)))
    }

    /// Removes an attachment.
    pub fn remove_attachment(&mut self, h: AttachmentHandle) -> Result<(), SinewError> {
        self.attachments.remove(h.0).map(|_| ()).ok_or(SinewError::InvalidHandle { what: "attachment" })
    }

    /// Adds a joint limit ([`crate::AngleLimitDef`] in 2D, [`crate::SwingTwistLimitDef`] in 3D).
    pub fn add_joint_limit(
        &mut self,
        def: &<S::JointLimit as JointLimit<S>>::Def,
    ) -> Result<JointLimitHandle, SinewError> {
        let l = S::JointLimit::from_def(def, &self.particles)?;
        self.distance_order_dirty = true;
        Ok(JointLimitHandle(self.limits.insert(l)))
    }

    /// A joint limit.
    #[must_use]
    pub fn joint_limit(&self, h: JointLimitHandle) -> Option<&S::JointLimit> {
        self.limits.get(h.0)
    }

    /// Removes a joint limit.
    pub fn remove_joint_limit(&mut self, h: JointLimitHandle) -> Result<(), SinewError> {
        self.distance_order_dirty = true;
        self.limits.remove(h.0).map(|_| ()).ok_or(SinewError::InvalidHandle { what: "joint limit" })
    }

    /// Largest joint-limit violation (rad) over all limits.
    #[must_use]
    pub fn max_joint_violation(&self) -> RealOf<S> {
        self.limits.values().map(|l| l.violation(&self.particles)).fold(RealOf::<S>::ZERO, |a, b| a.max(b))
    }

    /// Iterates distance constraints.
    pub fn distances(&self) -> impl Iterator<Item = (DistanceHandle, &Distance<RealOf<S>>)> {
        self.distances.iter().map(|(h, c)| (DistanceHandle(h), c))
    }

    /// Sum over distance constraints of `|length − rest|` (m): the total constraint error.
    #[must_use]
    pub fn total_distance_error(&self) -> RealOf<S> {
        let p = &self.particles.pos;
        let mut e = RealOf::<S>::ZERO;
        for c in self.distances.values() {
            let (a, b) = c.indices();
            let l = p[a].distance(p[b]);
            if !(c.unilateral && l < c.rest) {
                e += (l - c.rest).abs();
            }
        }
        e
    }

    // ------------------------------------------------------------------ drivers

    /// Adds a keyframe driver; the particle is pinned and placed on the path at the
    /// current time.
    pub fn add_driver(&mut self, def: &DriverDef<S>) -> Result<DriverHandle, SinewError> {
        self.particles.check(def.particle)?;
        let d = KeyframeDriver::from_def(def)?;
        if !d.relative {
            let p = d.sample(self.time);
            self.particles.pin(def.particle)?;
            self.particles.set_position(def.particle, p)?;
        }
        Ok(DriverHandle(self.drivers.insert(d)))
    }

    /// Removes a driver (the particle stays pinned where it is).
    pub fn remove_driver(&mut self, h: DriverHandle) -> Result<(), SinewError> {
        self.drivers.remove(h.0).map(|_| ()).ok_or(SinewError::InvalidHandle { what: "driver" })
    }

    // ---------------------------------------------------------------- colliders

    /// Adds a collider.
    pub fn add_collider(&mut self, def: &ColliderDef<S>) -> Result<ColliderHandle, SinewError> {
        let c = Collider::from_def(def)?;
        (self.broad_phase_dirty, self.broad_phase_restructure) = (true, true);
        self.drop_contact_anchors();
        Ok(ColliderHandle(self.colliders.insert(c)))
    }

    /// Removes a collider.
    pub fn remove_collider(&mut self, h: ColliderHandle) -> Result<(), SinewError> {
        (self.broad_phase_dirty, self.broad_phase_restructure) = (true, true);
        self.drop_contact_anchors();
        self.colliders.remove(h.0).map(|_| ()).ok_or(SinewError::InvalidHandle { what: "collider" })
    }

    /// A collider.
    #[must_use]
    pub fn collider(&self, h: ColliderHandle) -> Option<&Collider<S>> {
        self.colliders.get(h.0)
    }

    /// Iterates colliders.
    pub fn colliders(&self) -> impl Iterator<Item = (ColliderHandle, &Collider<S>)> {
        self.colliders.iter().map(|(h, c)| (ColliderHandle(h), c))
    }

    /// Moves a collider. The next step sweeps it from its old pose to this one, so the
    /// particles it meets are pushed, not tunnelled, and feel its surface velocity.
    pub fn set_collider_pose(
        &mut self,
        h: ColliderHandle,
        position: VecOf<S>,
        rotation: RotOf<S>,
    ) -> Result<(), SinewError> {
        check_finite(position, "collider position")?;
        let rotation = rotation.renormalize();
        if !rotation.components().iter().all(|c| c.is_finite()) {
            return Err(SinewError::NonFinite { what: "collider rotation" });
        }
        let c = self.colliders.get_mut(h.0).ok_or(SinewError::InvalidHandle { what: "collider" })?;
        c.position = position;
        c.rotation = rotation;
        // Contact anchors near its path are dropped at the next gathering (see "Contact
        // anchors" in the module docs); the rest stay.
        self.broad_phase_dirty = true;
        Ok(())
    }

    /// Forgets every particle's contact anchor (see "Contact anchors" in the module docs):
    /// the colliders or the settings the pairs were gathered with changed.
    fn drop_contact_anchors(&mut self) {
        self.particles.anchor_info.iter_mut().for_each(|a| a.flags = 0);
    }

    /// Marks everything derived from the state (broad phase, constraint order, contacts)
    /// for rebuilding; used after a restore.
    pub(crate) fn invalidate_derived(&mut self) {
        (self.broad_phase_dirty, self.broad_phase_restructure) = (true, true);
        self.distance_order_dirty = true;
        self.contacts.clear();
    }

    // --------------------------------------------------------------------- step

    /// Advances the world by `dt` seconds.
    ///
    /// `dt` must be finite and positive (else [`SinewError::InvalidTimeStep`] and nothing
    /// changes); a `dt` above `max_time_step` is clamped to it and reported.
    pub fn step(&mut self, dt: RealOf<S>) -> Result<StepReport, SinewError> {
        self.step_with(dt, &mut |_: &mut SubstepSolver<'_, S>| {})
    }

    /// Like [`World::step`], with user constraints: `custom` runs in every constraint
    /// iteration of every substep, after the world's own constraints and before contacts.
    /// It receives the particles and the substep constants and projects whatever it
    /// likes (muscle rigs, game-specific constraints) — deterministic as long as it is.
    pub fn step_with(
        &mut self,
        dt: RealOf<S>,
        custom: &mut dyn FnMut(&mut SubstepSolver<'_, S>),
    ) -> Result<StepReport, SinewError> {
        let zero = RealOf::<S>::ZERO;
        if !dt.is_finite() || !(dt > zero) {
            return Err(SinewError::InvalidTimeStep);
        }
        let mut report = StepReport::default();
        let dt = if dt > self.def.max_time_step {
            report.clamped_dt = true;
            self.def.max_time_step
        } else {
            dt
        };
        let t_end = self.time + dt;
        self.update_drivers(t_end);
        let any_moving = self.colliders.values().any(|c| c.is_moving());
        if self.broad_phase_dirty || any_moving {
            // A new generation (every cached list of colliders invalid) only when the
            // colliders or the set of those that move changed: while the same colliders
            // keep moving, the static ones' lists stay valid (see "Contact anchors").
            let moving = || self.colliders.iter().map(|(h, c)| (h.index, c.is_moving()));
            let restructure = self.broad_phase_restructure || !moving().eq(self.moving_colliders.iter().copied());
            if restructure {
                let now: Vec<(u32, bool)> = moving().collect();
                self.moving_colliders = now;
            }
            let slots = self.colliders.capacity_slots();
            let n = self.def.substeps;
            let boxes = self.colliders.iter().map(|(h, c)| (h.index, c.swept_aabb(n)));
            self.broad_phase.rebuild::<RealOf<S>>(boxes, slots, restructure);
            self.broad_phase_dirty = any_moving;
            self.broad_phase_restructure = false;
        }

        // The phases called below are `#[inline(never)]`: inlined, they made this one huge
        // function whose registers spilled across all of them; out of line, each loop gets
        // its own allocation (about 2.5% faster on the 1000-ragdoll benchmark, for a
        // handful of calls per substep).
        let n = self.def.substeps;
        let nr = RealOf::<S>::from_i32(n as i32);
        let h = dt / nr;
        let ctx = SubstepContext::new(h);
        self.ropes_begin_step();
        self.sleep_begin_step();
        self.prepare_step(h);
        if self.distance_order_dirty {
            self.order_distances();
        }
        // All links rigid (a crowd of ragdolls): the rows take their denominators straight
        // from the particles; else every link is prepared and projected on its own.
        self.distances_rigid = self.link_rows.fill(&self.distances, &self.particles);
        if !self.distances_rigid {
            for c in self.distances.values_mut() {
                c.prepare(&self.particles, &ctx);
            }
        }
        self.gather_candidates(dt);
        self.gather_edge_candidates();
        for s in 0..n {
            let f0 = RealOf::<S>::from_i32(s as i32) / nr;
            let f1 = RealOf::<S>::from_i32(s as i32 + 1) / nr;
            self.integrate(h, f1);
            for it in 0..self.def.iterations {
                self.solve_ropes(&ctx, it == 0);
                self.solve_constraints(&ctx, it == 0);
                custom(&mut SubstepSolver {
                    particles: &mut self.particles,
                    ctx: &ctx,
                    substep: s,
                    iteration: it,
                    substeps: n,
                });
                if it == 0 {
                    self.detect_contacts(f0, f1, h);
                    self.detect_edge_contacts(f1);
                }
                self.solve_contacts(h);
                self.solve_edge_contacts();
            }
            let impacts = self.def.impact_passes > 0 && !self.groups.of.is_empty();
            if self.distances_rigid && s + 1 == n {
                // The links' multipliers: the last substep's, for the force readouts (the
                // impact passes take those of the groups they re-project).
                self.link_rows.store_lambdas(&mut self.distances);
            }
            if impacts {
                self.impact_passes(&ctx, h);
            }
            self.update_velocities(&ctx);
            self.velocity_pass(&ctx, f0);
        }
        let acted = self.contacts.iter().filter(|c| c.dn > RealOf::<S>::ZERO).count();
        report.contacts = (acted + self.edge_contacts.len()) as u32;
        report.regathered = self.scratch.regathered;
        report.recovered_particles = self.recover_non_finite();
        for &(k, w) in &self.scratch.asleep {
            self.particles.inv_mass[k as usize] = w;
        }

        // End of step: forces are per step, targets are reached exactly, colliders settle.
        let ps = &mut self.particles;
        ps.force.iter_mut().for_each(|f| *f = VecOf::<S>::ZERO);
        for &k in &self.scratch.kinematic {
            if let Some(t) = ps.target[k as usize].take() {
                ps.pos[k as usize] = t;
            }
        }
        for c in self.colliders.values_mut() {
            c.prev_position = c.position;
            c.prev_rotation = c.rotation;
        }
        self.time = t_end;
        self.step_count += 1;
        self.last_h = h;
        self.ropes_end_step();
        self.sleep_end_step();
        Ok(report)
    }

    fn update_drivers(&mut self, t_end: RealOf<S>) {
        let now = self.time;
        // Release in the step that would spend more than half its length past the last
        // key, so accumulated rounding in the clock (30 × 1/60 ≠ 0.5 exactly) cannot make
        // the throw a whole step late.
        let half_step = (t_end - now) * RealOf::<S>::HALF;
        let mut grabbed = Vec::new();
        for d in self.drivers.values_mut() {
            if d.done || !self.particles.contains(d.particle) {
                continue;
            }
            if d.relative && d.origin.is_none() {
                if now + half_step < d.start_time() {
                    continue; // not grabbed yet
                }
                d.origin = self.particles.position(d.particle);
                let _ = self.particles.pin(d.particle);
                grabbed.push(d.particle.index());
            }
            if d.release && now + half_step >= d.end_time() {
                // Ignore errors: the handle was checked just above and release_mass > 0.
                let _ = self.particles.release(d.particle, d.release_velocity(), d.release_mass);
                d.done = true;
                continue;
            }
            let _ = self.particles.set_kinematic_target(d.particle, d.target(t_end));
        }
        for slot in grabbed {
            self.wake_ropes_with_slot(slot);
        }
    }

    /// Sets the order in which distance constraints are projected (see [`ConstraintOrder`]).
    fn order_distances(&mut self) {
        match self.def.constraint_order {
            ConstraintOrder::Sequential => self.interleave_distances(),
            ConstraintOrder::Coloured => self.colour_distances(),
        }
        self.link_rows.build(&self.distance_order, &self.distances);
        if self.def.impact_passes > 0 {
            self.build_groups();
        } else {
            self.groups = ConstraintGroups::default();
        }
    }

    /// The constraint groups for the impact passes (see [`ConstraintGroups`]).
    fn build_groups(&mut self) {
        let n = self.particles.pos.len();
        let dist = self.distance_items();
        let lims: Vec<(u32, Vec<usize>)> = self.limits.iter().map(|(h, l)| (h.index, l.particle_indices())).collect();
        self.groups.build(n, &dist, &lims);
    }

    /// Every distance constraint as (slot, its two particle slots), in slot order.
    fn distance_items(&self) -> Vec<(u32, [usize; 2])> {
        self.distances
            .iter()
            .map(|(h, c)| {
                let (a, b) = c.indices();
                (h.index, [a, b])
            })
            .collect()
    }

    /// Slot order within each connected group of distance constraints, groups interleaved
    /// (see [`interleaved_order`]).
    fn interleave_distances(&mut self) {
        let n = self.particles.pos.len();
        let items = self.distance_items();
        interleaved_order(n, &items, &mut self.distance_order);
        self.order_limits();
        self.distance_order_dirty = false;
    }

    /// Joint limits in slot order within each group of limits sharing particles, groups
    /// interleaved (see [`interleaved_order`]); plain slot order with the coloured option.
    fn order_limits(&mut self) {
        let n = self.particles.pos.len();
        if self.def.constraint_order == ConstraintOrder::Sequential {
            let items: Vec<(u32, Vec<usize>)> =
                self.limits.iter().map(|(h, l)| (h.index, l.particle_indices())).collect();
            interleaved_order(n, &items, &mut self.limit_order);
        } else {
            self.limit_order.clear();
            self.limit_order.extend(self.limits.iter().map(|(h, _)| h.index));
        }
    }

    /// Orders the distance constraints by a greedy graph colouring: within a colour no two
    /// constraints share a particle, so their projections are independent and the CPU can
    /// overlap them (a chain solved link after link is one long dependency chain of square
    /// roots and divisions). Across colours the sweep is still Gauss–Seidel. Colours are
    /// assigned in slot order, so the order is deterministic; past 64 colours the rest go
    /// in one final sequential group.
    fn colour_distances(&mut self) {
        let mut used = vec![0u64; self.particles.pos.len()];
        let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); 65];
        for (h, c) in self.distances.iter() {
            let (a, b) = c.indices();
            let free = !(used[a] | used[b]);
            let colour = free.trailing_zeros() as usize;
            if colour < 64 {
                used[a] |= 1 << colour;
                used[b] |= 1 << colour;
            }
            buckets[colour.min(64)].push(h.index);
        }
        self.distance_order.clear();
        for b in buckets {
            self.distance_order.extend(b);
        }
        self.order_limits();
        self.distance_order_dirty = false;
    }

    /// Per-step particle data: the velocity each substep adds (gravity and forces; zero for
    /// pinned and removed particles, so the substep loops need no branches), the list of
    /// kinematic particles, and the start positions.
    #[inline(never)] // a phase of the step (see the note in `step_with`)
    fn prepare_step(&mut self, h: RealOf<S>) {
        let mut sleeping = core::mem::take(&mut self.scratch.sleeping);
        let mut extra = core::mem::take(&mut self.scratch.extra_reach);
        self.rope_particle_flags(&mut sleeping, &mut extra);
        self.mark_sleeping_groups(&mut sleeping);
        self.scratch.sleeping = sleeping;
        self.scratch.extra_reach = extra;
        let ps = &mut self.particles;
        let sc = &mut self.scratch;
        let g = self.def.gravity;
        let n = ps.pos.len();
        // The velocity change of every slot in one branch-free pass; the slots that get
        // none (removed, kinematic, asleep — few) are zeroed below.
        sc.dv.clear();
        sc.dv.extend(
            ps.gravity_scale.iter().zip(&ps.force).zip(&ps.inv_mass).map(|((&gs, &f), &w)| (g * gs + f * w) * h),
        );
        sc.dv.resize(n, VecOf::<S>::ZERO);
        sc.kinematic.clear();
        sc.dynamic_colliding.clear();
        sc.asleep.clear();
        for k in 0..n {
            let flags = ps.flags[k];
            let dynamic = (flags & (ALIVE | KINEMATIC) == ALIVE) & !sc.sleeping[k];
            if dynamic & (flags & COLLIDES != 0) {
                sc.dynamic_colliding.push(k as u32);
                continue;
            }
            // No contacts this step: the anchor is where the step starts (what span contacts
            // measure a kinematic rope particle's motion from), and none is kept.
            ps.anchor[k] = ps.pos[k];
            ps.anchor_info[k].flags = 0;
            if dynamic {
                continue;
            }
            sc.dv[k] = VecOf::<S>::ZERO;
            if flags & ALIVE == 0 {
                continue;
            }
            if flags & KINEMATIC != 0 {
                sc.kinematic.push(k as u32);
            } else {
                // Asleep: no gravity, no contacts, and immovable for this step (constraint
                // corrections must not nudge it awake); the inverse mass comes back at
                // the end of the step.
                sc.asleep.push((k as u32, ps.inv_mass[k]));
            }
        }
        for &(k, _) in &self.scratch.asleep {
            self.particles.inv_mass[k as usize] = RealOf::<S>::ZERO;
        }
        self.particles.step_start.copy_from_slice(&self.particles.pos);
    }

    crate::math::wide::wide_phase!(
        fn integrate / integrate_avx2 / integrate_body(&mut self, h: RealOf<S>, f1: RealOf<S>)
    );

    /// Symplectic Euler prediction; kinematic particles follow their path to fraction `f1`.
    #[inline(always)]
    fn integrate_body(&mut self, h: RealOf<S>, f1: RealOf<S>) {
        let ps = &mut self.particles;
        let keep = (RealOf::<S>::ONE - self.def.damping * h).max(RealOf::<S>::ZERO);
        // Damp the velocity carried over, not the acceleration of this substep: a body at
        // rest on a spring then settles exactly where the spring balances gravity.
        let damp = keep != RealOf::<S>::ONE;
        // Component-wise over flat slices (the same operations per component as on vectors,
        // so the same results), which the compiler turns into SIMD.
        let x = S::Vector::flat_mut(&mut ps.pos);
        let xp = S::Vector::flat_mut(&mut ps.prev);
        let v = S::Vector::flat_mut(&mut ps.vel);
        let dv = S::Vector::flat(&self.scratch.dv);
        for (((x, xp), v), dv) in x.iter_mut().zip(xp.iter_mut()).zip(v.iter_mut()).zip(dv.iter()) {
            let mut vv = *v;
            if damp {
                vv *= keep;
            }
            vv += *dv;
            *v = vv;
            *xp = *x;
            *x += vv * h;
        }
        for &k in &self.scratch.kinematic {
            let k = k as usize;
            ps.pos[k] = match ps.target[k] {
                Some(t) => ps.step_start[k].lerp(t, f1),
                None => ps.prev[k],
            };
        }
    }

    #[inline(never)] // a phase of the step (see the note in `step_with`)
    fn solve_constraints(&mut self, ctx: &SubstepContext<RealOf<S>>, first: bool) {
        let ps = &mut self.particles;
        let zero = RealOf::<S>::ZERO;
        // Multipliers restart at 0 every substep (XPBD with substeps, one pass each).
        if self.distances_rigid {
            // All links rigid (a crowd of ragdolls): rows of independent links, projected
            // together (the same results as one after another).
            self.link_rows.solve(ps, first);
        } else {
            for &slot in &self.distance_order {
                if let Some(c) = self.distances.values[slot as usize].as_mut() {
                    if first {
                        c.lambda = zero;
                    }
                    c.solve(ps, ctx);
                }
            }
        }
        for c in self.bendings.values_mut() {
            if first {
                c.lambda = zero;
            }
            c.solve(ps, ctx);
        }
        for c in self.tethers.values() {
            c.solve(ps, ctx);
        }
        for c in self.attachments.values_mut() {
            if first {
                c.lambda = VecOf::<S>::ZERO;
            }
            c.solve(ps, ctx);
        }
        for &slot in &self.limit_order {
            if let Some(c) = self.limits.values[slot as usize].as_mut() {
                if first {
                    c.reset();
                }
                c.solve(ps, ctx);
            }
        }
    }

    /// Broad phase once per step: each colliding particle gets the colliders near the
    /// region it can reach this step (its box grown by twice the distance its velocity and
    /// forces carry it in `dt`, plus 1 cm) around its contact anchor — kept
    /// from an earlier step when that region still holds, else taken where the particle is
    /// (see "Contact anchors" in the module docs). A particle that leaves that region
    /// during the step (a hard constraint yank) is re-queried in the substep where it
    /// happens.
    #[inline(never)] // a phase of the step (see the note in `step_with`)
    fn gather_candidates(&mut self, dt: RealOf<S>) {
        let sc = &mut self.scratch;
        sc.probes.clear();
        // Last step's pairs, which particles that keep their anchor copy.
        core::mem::swap(&mut sc.pairs, &mut sc.pairs_prev);
        sc.pairs.clear();
        // Entries of the last gather (epoch − 1) have their lists in `fat_items`; older
        // ones (a particle pinned, asleep or removed in between) must query afresh.
        if sc.gather_epoch == u32::MAX {
            // Wrapping round (after 2³² steps): forget every entry rather than let one
            // written 2³² gathers ago pass for last step's.
            sc.gather_epoch = 0;
            sc.fat.iter_mut().for_each(|e| e.epoch = 0);
            sc.kept.iter_mut().for_each(|e| *e = 0);
        }
        let prev_epoch = sc.gather_epoch;
        sc.gather_epoch += 1;
        let epoch = sc.gather_epoch;
        sc.regathered = 0;
        if self.colliders.is_empty() {
            return; // (nothing reads the per-slot arrays below without colliders)
        }
        sc.plane2.clear();
        sc.plane2.resize(self.particles.pos.len(), RealOf::<S>::ZERO);
        sc.lonely2.clear();
        sc.lonely2.resize(self.particles.pos.len(), RealOf::<S>::MAX);
        sc.kept.resize(self.particles.pos.len(), 0);
        let ps = &mut self.particles;
        let zero = RealOf::<S>::ZERO;
        let nsub = RealOf::<S>::from_i32(self.def.substeps as i32);
        // The colliders of the broad phase's lists, looked up once per step instead of
        // once per particle: the collider (if its slot is live) and whether it moves.
        let lookup = |slot: u32| {
            let col = self.colliders.values[slot as usize].as_ref();
            (slot, col.map(|c| (c, c.is_moving())))
        };
        let unbounded: Vec<_> = self.broad_phase.unbounded.iter().map(|&slot| lookup(slot)).collect();
        let bounded: Vec<_> = self.broad_phase.bounded.iter().map(|&(slot, b)| (lookup(slot), b)).collect();
        // The box around all bounded colliders' boxes (`None`: there are none).
        let bounded_box = bounded.iter().map(|&(_, b)| b).reduce(|u, b| u.union::<RealOf<S>>(&b));
        // Cached broad-phase lists (see `Scratch::fat`): valid while the broad phase is
        // the one they were queried from. The pad is Box2D's AABB margin, 10 cm.
        let fat_valid = sc.fat_generation == self.broad_phase.generation;
        sc.fat_generation = self.broad_phase.generation;
        let fat_pad = VecOf::<S>::splat(RealOf::<S>::from_ratio(1, 10));
        // Like Box2D's predictive AABB, the cached box also stretches along the particle's
        // motion, over this many steps: a falling particle keeps its list for several
        // steps instead of re-querying every step.
        let ahead = dt * RealOf::<S>::from_i32(FAT_STEPS_AHEAD);
        let zero_box = Aabb { min: VecOf::<S>::ZERO, max: VecOf::<S>::ZERO };
        let empty = FatEntry::<S> { bx: zero_box, at: 0, len: 0, epoch: 0, reach: zero, pairs_at: 0, pairs_len: 0 };
        sc.fat.resize(ps.pos.len(), empty);
        core::mem::swap(&mut sc.fat_items, &mut sc.fat_next);
        sc.fat_next.clear();
        // A moving half-space reaches everywhere: no anchor lasts while one moves. A moving
        // bounded collider ends the anchors whose regions its path (its swept box) comes
        // near, and invalidates the cached lists whose boxes it enters: the lists hold the
        // colliders that overlapped them when queried, the static ones' still do.
        let anchors_hold = !unbounded.iter().any(|&(_, c)| c.is_some_and(|c| c.1));
        let moving_boxes: Vec<Aabb<VecOf<S>>> =
            bounded.iter().filter(|((_, c), _)| c.is_some_and(|c| c.1)).map(|&(_, b)| b).collect();
        let near_moving = |b: &Aabb<VecOf<S>>| moving_boxes.iter().any(|m| m.overlaps::<RealOf<S>>(b));
        let min_margin = RealOf::<S>::from_ratio(1, 100);
        let rounding = RealOf::<S>::from_f64(2f64.powi(-20)); // (relative, see below)
        for &k in &sc.dynamic_colliding {
            let k = k as usize;
            // Speeds bounded by the sum of the components' magnitudes (≥ the length, no
            // square root): a slightly larger, still safe reach.
            let l1 = |v: VecOf<S>| (0..S::DIM).fold(zero, |a, i| a + v.get(i).abs());
            // Twice the distance its velocity and forces carry it this step.
            let motion = (l1(ps.vel[k]) + l1(sc.dv[k]) * nsub) * dt * RealOf::<S>::TWO;
            let extra = sc.extra_reach.get(k).copied().unwrap_or(RealOf::<S>::ZERO);
            let (x0, r) = (ps.pos[k], ps.radius[k]);
            // Contact planes: within `plane_reuse` and half the radius of the anchor; none
            // for a particle whose predicted motion this step already goes farther.
            let eps = self.def.plane_reuse.min(r * RealOf::<S>::HALF);
            let predicted = (l1(ps.vel[k]) + l1(sc.dv[k]) * nsub * RealOf::<S>::HALF) * dt;
            let plane_ok = predicted < eps.min(motion + min_margin);
            // Keep the anchor (see "Contact anchors" in the module docs) while the step's
            // reach from here stays inside its region and, with planes, within ε of it.
            let mut info = ps.anchor_info[k];
            // An anchor with pairs is kept only for a particle that hardly moves (a quarter
            // of ε per step): its planes' normals are the anchor's, so on a curve a slowly
            // sliding particle would feel a normal that lags by its whole travel since
            // then instead of one step's.
            let slow = l1(ps.vel[k]) * dt * RealOf::<S>::from_i32(4) <= eps;
            let lonely = info.flags & AnchorInfo::<RealOf<S>>::LONELY != 0;
            let (region, d2) = (info.region, (x0 - ps.anchor[k]).length_squared());
            let held = anchors_hold
                && info.flags & AnchorInfo::<RealOf<S>>::ANCHORED != 0
                && (slow || lonely)
                && info.extra == extra
                && (region >= motion && d2 <= (region - motion).sq())
                && (moving_boxes.is_empty() || {
                    // No moving collider's path near the region (its query box).
                    let reach = VecOf::<S>::splat(info.region + r + extra);
                    !near_moving(&Aabb { min: ps.anchor[k] - reach, max: ps.anchor[k] + reach })
                });
            let planes_hold = (info.flags & AnchorInfo::<RealOf<S>>::PLANES != 0) == plane_ok
                && (!plane_ok || (eps >= predicted && d2 <= (eps - predicted).sq()));
            let mut keep = held && planes_hold;
            if held && !planes_hold && lonely {
                // A lonely anchor whose region still holds the step but whose planes do not
                // (the particle drifted farther than ε from it, or its speed crossed the
                // planes' threshold) moves here, its region less the distance moved (see
                // "Contact anchors"), instead of gathering afresh. Less, too, the rounding
                // of the subtraction and the root relative to the sizes (`f32` rounds by
                // 2⁻²⁴ of them): a particle drifting far from the origin moves its anchor
                // every step, and a fixed margin let the roundings add up (3 m over 1 km
                // of drift towards a half-space in `f32`). Then kept like any lonely anchor.
                let d = d2.sqrt();
                let moved = region - d - (region + d) * rounding - RealOf::<S>::ROUNDING_SLOP;
                if moved >= motion {
                    let planes = if plane_ok { AnchorInfo::<RealOf<S>>::PLANES } else { 0 };
                    let flags = AnchorInfo::<RealOf<S>>::ANCHORED | AnchorInfo::<RealOf<S>>::LONELY | planes;
                    info = AnchorInfo { region: moved, extra, flags };
                    (ps.anchor[k], ps.anchor_info[k]) = (x0, info);
                    keep = true;
                }
            }
            if keep {
                sc.kept[k] = epoch;
            }
            if keep && lonely {
                // Nothing within the region: nothing to gather.
                sc.plane2[k] = if plane_ok { eps.min(info.region).sq() } else { zero };
                sc.lonely2[k] = info.region.sq();
                continue;
            }
            // The anchor and the margin the pairs are gathered for.
            let (x, margin) = if keep { (ps.anchor[k], info.region) } else { (x0, motion + min_margin) };
            let reuse = eps.min(margin);
            sc.plane2[k] = if plane_ok { reuse.sq() } else { zero };
            let reach = margin + r + extra;
            let mv = VecOf::<S>::splat(reach);
            let q = Aabb { min: x - mv, max: x + mv };
            let entry = &mut sc.fat[k];
            let last = fat_valid && entry.epoch == prev_epoch && prev_epoch != 0;
            // Last step's pairs hold a moving collider that has left the query box since
            // (one still in it ended the anchor): gathered afresh, without it.
            let moved_away = !moving_boxes.is_empty() && last && {
                let old = entry.pairs_at as usize..(entry.pairs_at + entry.pairs_len) as usize;
                sc.pairs_prev.get(old).is_some_and(|ps| {
                    ps.iter().any(|p| self.colliders.values[p.slot as usize].as_ref().is_some_and(|c| c.is_moving()))
                })
            };
            if keep && last && entry.reach == reach && !moved_away {
                // The anchor's pairs as gathered last step: the same query box, the same
                // candidates, the same pairs.
                let start = sc.fat_next.len() as u32;
                sc.fat_next.extend_from_slice(&sc.fat_items[entry.at as usize..(entry.at + entry.len) as usize]);
                let pairs_at = sc.pairs.len() as u32;
                let old = entry.pairs_at as usize..(entry.pairs_at + entry.pairs_len) as usize;
                sc.pairs.extend_from_slice(&sc.pairs_prev[old]);
                (entry.at, entry.epoch, entry.pairs_at) = (start, epoch, pairs_at);
                sc.probes.push(Probe { particle: k as u32, pairs_end: sc.pairs.len() as u32, margin2: margin.sq() });
                continue;
            }
            let groups = ps.groups[k];
            let pairs_at = sc.pairs.len() as u32;
            // A query box clear of every bounded collider's box has no candidates: no query
            // and an empty list.
            let near_bounded = bounded_box.is_some_and(|b| b.overlaps(&q));
            let (start, end) = if near_bounded {
                let cached = last && entry.bx.contains(&q) && !near_moving(&entry.bx);
                let start = sc.fat_next.len() as u32;
                if cached {
                    sc.fat_next.extend_from_slice(&sc.fat_items[entry.at as usize..(entry.at + entry.len) as usize]);
                } else {
                    let motion = ps.vel[k] * ahead;
                    let fat = Aabb {
                        min: q.min - fat_pad + motion.min_elem(VecOf::<S>::ZERO),
                        max: q.max + fat_pad + motion.max_elem(VecOf::<S>::ZERO),
                    };
                    self.broad_phase.query::<RealOf<S>>(&fat, &mut sc.query_buf);
                    sc.fat_next.extend_from_slice(&sc.query_buf);
                    entry.bx = fat;
                }
                (start, sc.fat_next.len() as u32)
            } else {
                // An empty list, and a box that holds no query: the next gather queries.
                entry.bx = Aabb { min: x, max: x };
                (0, 0)
            };
            (entry.at, entry.len, entry.epoch, entry.reach) = (start, end - start, epoch, reach);
            // The pairs to test in the substeps, with their clearance: the half-spaces,
            // then this step's candidates — the cached ones that overlap the query box, in
            // the broad phase's (sorted) order, exactly what a query with `q` returns. A
            // collider farther than the margin cannot be reached without first leaving
            // the gathered region (which re-queries), so it is dropped here. `consider`
            // returns the clearance (`MAX` for a collider the particle ignores, 0 for a
            // moving one).
            let mut consider = |(slot, col): (u32, Option<(&Collider<S>, bool)>)| {
                let Some((col, moving)) = col else { return RealOf::<S>::MAX };
                if !groups.test(col.groups) {
                    return RealOf::<S>::MAX;
                }
                if moving {
                    sc.pairs.push(Pair { slot, clear2: zero, normal: VecOf::<S>::ZERO, d: zero });
                    return zero;
                }
                let local = col.rotation.inverse_rotate(x - col.position);
                let prox = closest(&col.shape, local);
                // Less a hair for the rounding in the distance query.
                let clear = prox.distance - r - RealOf::<S>::GEOMETRIC_EPSILON;
                // A plane only for a particle near the surface: one deeper in is pushed out
                // substep by substep, along the nearest surface at each.
                // Only for a particle that may use it (`plane2` > 0): a falling particle's
                // pairs skip rotating the normal.
                let planar = plane_ok & (prox.distance >= r - reuse);
                let normal = if planar { col.rotation.rotate(prox.normal) } else { VecOf::<S>::ZERO };
                let d = normal.dot(x) - (prox.distance - r);
                // Kept or not without a branch (which side a particle is on is hard to
                // predict): pushed, then cut off again when too far.
                let before = sc.pairs.len();
                sc.pairs.push(Pair { slot, clear2: clear.max(zero).sq(), normal, d });
                sc.pairs.truncate(before + usize::from(clear <= margin));
                clear
            };
            // The least clearance of a half-space, and of a bounded collider less the extra
            // reach (for a particle left without pairs).
            let mut nearest = RealOf::<S>::MAX;
            for &u in &unbounded {
                nearest = nearest.min(consider(u));
            }
            let fat_list = start as usize..end as usize;
            for &b in &sc.fat_next[fat_list.clone()] {
                let (col, bb) = bounded[b as usize];
                if bb.overlaps(&q) {
                    nearest = nearest.min(consider(col) - extra);
                }
            }
            let pairs_end = sc.pairs.len() as u32;
            (entry.pairs_at, entry.pairs_len) = (pairs_at, pairs_end - pairs_at);
            let mut region = margin;
            if pairs_end == pairs_at {
                sc.lonely2[k] = margin.sq();
                if !keep && nearest < zero {
                    // No region at all (never kept: a rope particle whose spans reach a
                    // collider it is itself clear of): nothing beyond to look for, and the
                    // planes of this step's margin, as for a particle with pairs. (Its
                    // planes' reuse used to be `min(ε, region)²` here, the square of a
                    // negative region — a reuse distance beyond ε for its spans.)
                    region = nearest;
                } else if !keep {
                    // Nothing within the margin: the anchor's region reaches as far as the
                    // colliders allow — the nearest half-space, and the bounded colliders
                    // less the extra reach (the particle's rope spans lie within it, and
                    // a particle that keeps such an anchor lists no candidates for them) —
                    // distance being 1-Lipschitz. Beyond the query box: the box around
                    // every bounded collider if the query box missed it, else the colliders
                    // a little farther out. An anchor with a wide region lasts many steps
                    // for a falling or swinging particle.
                    let pad = RealOf::<S>::from_ratio(LONELY_PAD.0, LONELY_PAD.1);
                    let beyond = if near_bounded && motion >= pad {
                        // Too fast to keep an anchor whose region reaches `pad` farther.
                        margin
                    } else if near_bounded {
                        // The colliders whose boxes overlap the query box grown by
                        // `LONELY_PAD`, and that box's boundary: the cached list holds them if
                        // its box holds that one, else a query finds them — the same set
                        // either way, so the region is a function of the state.
                        let g = Aabb { min: q.min - VecOf::<S>::splat(pad), max: q.max + VecOf::<S>::splat(pad) };
                        let cached = entry.bx.contains::<RealOf<S>>(&g);
                        if !cached {
                            self.broad_phase.query::<RealOf<S>>(&g, &mut sc.query_buf);
                        }
                        let listed = if cached { &sc.fat_next[fat_list] } else { &sc.query_buf[..] };
                        // (Less a hair for the rounding of the boxes, as the distance queries'.)
                        let mut m = margin + pad - RealOf::<S>::GEOMETRIC_EPSILON;
                        for &b in listed {
                            let ((_, col), bb) = bounded[b as usize];
                            if !bb.overlaps(&g) || bb.overlaps(&q) {
                                continue;
                            }
                            m = m.min(match col {
                                Some((col, moving)) if groups.test(col.groups) => {
                                    if moving {
                                        zero
                                    } else {
                                        let local = col.rotation.inverse_rotate(x - col.position);
                                        closest(&col.shape, local).distance - r - RealOf::<S>::GEOMETRIC_EPSILON - extra
                                    }
                                }
                                _ => RealOf::<S>::MAX,
                            });
                        }
                        m
                    } else {
                        bounded_box.map_or(RealOf::<S>::MAX, |b| {
                            let out = (b.min - x).max_elem(x - b.max);
                            (0..S::DIM).fold(zero, |m, i| m.max(out.get(i)))
                                - r
                                - extra
                                - RealOf::<S>::GEOMETRIC_EPSILON
                        })
                    };
                    region = nearest.min(beyond);
                    if !near_bounded {
                        // (Beyond the margin on every side: this step may use it too.)
                        region = region.max(margin);
                        sc.lonely2[k] = region.sq();
                    }
                    // As when the anchor is kept: a function of the anchor alone.
                    sc.plane2[k] = if plane_ok { eps.min(region).sq() } else { zero };
                }
            } else {
                sc.probes.push(Probe { particle: k as u32, pairs_end, margin2: margin.sq() });
            }
            if !keep {
                sc.regathered += 1;
                ps.anchor[k] = x;
                let lonely = if pairs_end == pairs_at { AnchorInfo::<RealOf<S>>::LONELY } else { 0 };
                let planes = if plane_ok { AnchorInfo::<RealOf<S>>::PLANES } else { 0 };
                ps.anchor_info[k] =
                    AnchorInfo { region, extra, flags: AnchorInfo::<RealOf<S>>::ANCHORED | planes | lonely };
            }
        }
    }

    /// The current gather's epoch and the broad phase's generation: what per-step lists
    /// derived from the gathering are valid for.
    #[inline]
    pub(crate) fn gather_stamp(&self) -> (u32, u64) {
        (self.scratch.gather_epoch, self.broad_phase.generation)
    }

    /// Whether particle slot `k` kept its contact anchor and, with it, its pairs and
    /// candidate list (an anchor with something in its region) in this step's gathering.
    #[inline]
    pub(crate) fn anchor_kept_with_pairs(&self, k: usize) -> bool {
        self.scratch.kept.get(k) == Some(&self.scratch.gather_epoch)
            && self.particles.anchor_info[k].flags & AnchorInfo::<RealOf<S>>::LONELY == 0
    }

    /// How far particle slot `k` may move from its contact anchor with its contact
    /// planes reused (see "Contact planes" in the module docs), squared; 0: none.
    #[inline]
    pub(crate) fn plane_reuse2(&self, k: usize) -> RealOf<S> {
        self.scratch.plane2.get(k).copied().unwrap_or(RealOf::<S>::ZERO)
    }

    /// Appends the broad-phase entries (indices into its bounded list) gathered this step
    /// for particle slot `k`: the cached entries that overlap its query box, which is
    /// exactly what a broad-phase query with that box returns.
    pub(crate) fn bounded_candidates_of(&self, k: usize, out: &mut Vec<u32>) {
        let sc = &self.scratch;
        let Some(e) = sc.fat.get(k) else { return };
        if e.epoch != sc.gather_epoch || e.epoch == 0 {
            return;
        }
        // The query box of the gathering, around the particle's contact anchor.
        let (x, mv) = (self.particles.anchor[k], VecOf::<S>::splat(e.reach));
        let q = Aabb { min: x - mv, max: x + mv };
        let bounded = &self.broad_phase.bounded;
        let cached = &sc.fat_next[e.at as usize..(e.at + e.len) as usize];
        out.extend(cached.iter().copied().filter(|&b| bounded[b as usize].1.overlaps(&q)));
    }

    /// Swept particle–collider tests for the substep `[f0, f1]` of the step.
    #[inline(never)] // a phase of the step (see the note in `step_with`)
    fn detect_contacts(&mut self, f0: RealOf<S>, f1: RealOf<S>, h: RealOf<S>) {
        self.contacts.clear();
        self.scratch.left.clear();
        if self.colliders.is_empty() {
            return;
        }
        // Every slot's reach this substep, in one pass without branches (read here and by
        // the span contacts).
        let ps = &self.particles;
        self.scratch.reach2.clear();
        self.scratch.reach2.extend(ps.pos.iter().zip(&ps.prev).zip(&ps.anchor).map(|((&x, &xp), &x0)| {
            let (a, b) = ((x - x0).length_squared(), (xp - x0).length_squared());
            if a > b { a } else { b }
        }));
        let inv_h = RealOf::<S>::ONE / h;
        let sc = &mut self.scratch;
        let ps = &self.particles;
        let rest_move = self.def.rest_speed(h) * h;
        let test = ContactTest { particles: ps, def: &self.def, f0, f1, inv_h, rest_move };
        let contacts = &mut self.contacts;
        let (pos, prev) = (&ps.pos[..], &ps.prev[..]);
        // A particle that left the region gathered for this step: its swept box is
        // queried now.
        let mut requery = |k: usize, buf: &mut Vec<u32>, contacts: &mut Vec<Contact<S>>| {
            let (x, xp) = (pos[k], prev[k]);
            let groups = ps.groups[k];
            let mut test_any = |slot: u32| {
                if let Some(col) = self.colliders.values[slot as usize].as_ref()
                    && groups.test(col.groups)
                {
                    test.test(k, slot, col, contacts);
                }
            };
            for &slot in &self.broad_phase.unbounded {
                test_any(slot);
            }
            let r = VecOf::<S>::splat(ps.radius[k]);
            let q = Aabb { min: x.min_elem(xp) - r, max: x.max_elem(xp) + r };
            self.broad_phase.query::<RealOf<S>>(&q, buf);
            for &b in buf.iter() {
                test_any(self.broad_phase.bounded[b as usize].0);
            }
        };
        // Particles without pairs: only whether one left its region (rare), in one pass
        // without branches, then a search for which.
        let reach2 = &sc.reach2[..pos.len()];
        let lonely = &sc.lonely2[..pos.len()];
        if reach2.iter().zip(lonely).fold(false, |any, (&r2, &m2)| any | (r2 > m2)) {
            for (k, (&r2, &m2)) in reach2.iter().zip(lonely).enumerate() {
                if r2 > m2 {
                    requery(k, &mut sc.requery, contacts);
                    sc.left.push(k as u32);
                }
            }
        }
        let mut lo = 0;
        for &Probe { particle: k, pairs_end, margin2 } in &sc.probes {
            let k = k as usize;
            let pairs = &sc.pairs[lo..pairs_end as usize];
            lo = pairs_end as usize;
            let x = pos[k];
            let reach2 = reach2[k];
            let first = contacts.len();
            'probe: {
                if reach2 <= sc.plane2[k] {
                    // Still near the anchor: its contact planes (see the module docs).
                    for p in pairs {
                        if p.normal == VecOf::<S>::ZERO {
                            if reach2 >= p.clear2
                                && let Some(col) = self.colliders.values[p.slot as usize].as_ref()
                            {
                                test.test(k, p.slot, col, contacts);
                            }
                        } else if p.normal.dot(x) < p.d
                            && let Some(col) = self.colliders.values[p.slot as usize].as_ref()
                        {
                            contacts.push(test.contact(k, p.slot, col, p.normal, p.d, VecOf::<S>::ZERO));
                        }
                    }
                    break 'probe;
                }
                if reach2 > margin2 {
                    requery(k, &mut sc.requery, contacts);
                    sc.left.push(k as u32);
                    break 'probe;
                }
                // The gathered pairs passed the group filter; their colliders exist all step.
                for p in pairs {
                    if reach2 < p.clear2 {
                        continue;
                    }
                    if let Some(col) = self.colliders.values[p.slot as usize].as_ref() {
                        test.test(k, p.slot, col, contacts);
                    }
                }
            }
            // A particle in contact with one collider and near another: the other's plane
            // too, inactive unless the push out of the first drives the particle into it
            // (see `solve_contacts`). Without it a particle in a narrow V finds one wall
            // per substep, and the walls' alternating pushes walk it up and out of the V.
            if contacts.len() > first && pairs.len() > 1 {
                // Distance is 1-Lipschitz: a pair whose clearance at the anchor exceeds the
                // distance moved since by half a radius cannot be that near.
                let (moved, near) = (reach2.sqrt(), ps.radius[k] * RealOf::<S>::HALF);
                for p in pairs {
                    if contacts[first..].iter().any(|c| c.collider == p.slot)
                        || (p.clear2 > RealOf::<S>::ZERO && p.clear2.sqrt() - moved >= near)
                    {
                        continue;
                    }
                    // The step's plane only while the particle is within its reuse distance.
                    let normal = if reach2 <= sc.plane2[k] { p.normal } else { VecOf::<S>::ZERO };
                    if let Some(col) = self.colliders.values[p.slot as usize].as_ref()
                        && let Some(c) = test.speculative(k, p.slot, col, normal, p.d)
                    {
                        contacts.push(c);
                    }
                }
            }
        }
    }

    /// Pushes particles out of colliders; static friction cancels tangential motion while
    /// it is below `μ_s` times the normal correction (Coulomb's cone on positions).
    ///
    /// A particle with two contacts this substep (its contacts are consecutive; the second
    /// often speculative, see `detect_contacts`) is moved the least distance that
    /// satisfies both — onto one plane if that clears the other, else onto both
    /// (`Δx = μ_a n_a + μ_b n_b`, from their 2×2 Gram system). Projected one after the
    /// other, a particle in a narrow V would be pushed by each wall into the other and
    /// walk up and out of the V. Nearly opposite planes (a gap narrower than the particle:
    /// no point satisfies both) and three or more contacts are projected one at a time.
    #[inline(never)] // a phase of the step (see the note in `step_with`)
    fn solve_contacts(&mut self, h: RealOf<S>) {
        solve_contacts_of(&mut self.particles, &mut self.contacts, h, |_| true);
    }
    /// The impact passes (see "Impacts" in the module docs): the groups of constraints a
    /// contact struck this substep (in 2D also the ragdolls left strained) are projected
    /// again, then their contacts, then (2D) each is solved at once.
    #[inline(never)] // a phase of the step (see the note in `step_with`)
    fn impact_passes(&mut self, ctx: &SubstepContext<RealOf<S>>, h: RealOf<S>) {
        // An impact: the contact pushed a particle that came at the surface faster than
        // gravity brings a resting particle in eight substeps (a resting particle's
        // approach is gravity's `|g|h`, whatever weight its contact carries), and at
        // least 0.1 m/s (zero gravity).
        let struck = (self.def.rest_speed(h) * RealOf::<S>::from_i32(4)).max(RealOf::<S>::from_ratio(1, 10));
        let direct = <S::JointLimit as JointLimit<S>>::DIRECT_ROWS;
        let gs = &mut self.groups;
        gs.stamp = gs.stamp.wrapping_add(1);
        if gs.stamp == 0 {
            gs.mark.iter_mut().for_each(|m| *m = 0);
            gs.stamp = 1;
        }
        gs.hit.clear();
        for c in &self.contacts {
            if c.dn > RealOf::<S>::ZERO
                && c.vn_pre < -struck
                && let Some(&g) = gs.of.get(c.particle as usize)
                && g != u32::MAX
                && gs.mark[g as usize] != gs.stamp
            {
                gs.mark[g as usize] = gs.stamp;
                gs.hit.push(g);
            }
        }
        if direct {
            // With the direct solve, so is a ragdoll (a group with joint limits) that this
            // substep's projections left with a rigid link strained or a joint beyond its
            // limit: a body tumbling after an impact, or a limb between the ground and the
            // body falling onto it (its contact struck nothing: the particle on the ground
            // was at rest). Not a chain of bare links: friction is not part of the solve,
            // and a chain resting across two boxes, its links 1.9 % long after the
            // projections, slid off them when the solve shortened it (measured; see
            // `group_solve`).
            let strain = RealOf::<S>::from_ratio(IMPACT_STRAIN.0, IMPACT_STRAIN.1);
            let overshoot = RealOf::<S>::from_ratio(IMPACT_OVERSHOOT.0, IMPACT_OVERSHOOT.1);
            let ps = &self.particles;
            for g in 0..gs.mark.len() {
                if gs.mark[g] == gs.stamp || gs.lim_at[g] == gs.lim_at[g + 1] {
                    continue;
                }
                let strained = gs.dist[gs.dist_at[g] as usize..gs.dist_at[g + 1] as usize].iter().any(|&slot| {
                    self.distances.values[slot as usize].as_ref().is_some_and(|c| {
                        let (a, b) = c.indices();
                        c.is_rigid() && ((ps.pos[a] - ps.pos[b]).length() - c.rest).abs() > strain * c.rest
                    })
                });
                let bent = || {
                    gs.lim[gs.lim_at[g] as usize..gs.lim_at[g + 1] as usize].iter().any(|&slot| {
                        self.limits.values[slot as usize].as_ref().is_some_and(|l| l.violation(ps) > overshoot)
                    })
                };
                if strained || bent() {
                    gs.mark[g] = gs.stamp;
                    gs.hit.push(g as u32);
                }
            }
        }
        if gs.hit.is_empty() {
            return;
        }
        if self.distances_rigid {
            // The struck groups' links as the rows left them: their multipliers (the
            // projections below continue from them) and their denominators (the rows
            // compute those without preparing the links).
            for &g in &self.groups.hit {
                let g = g as usize;
                let slots = &self.groups.dist[self.groups.dist_at[g] as usize..self.groups.dist_at[g + 1] as usize];
                self.link_rows.store_lambdas_of(slots, &mut self.distances);
                for &slot in slots {
                    if let Some(c) = self.distances.values[slot as usize].as_mut() {
                        c.prepare(&self.particles, ctx);
                    }
                }
            }
        }
        if direct {
            // The struck groups' contacts, by group (`of_hit`: a group's place in `hit`).
            let gs = &mut self.groups;
            gs.of_hit.resize(gs.mark.len(), u32::MAX);
            for (i, &g) in gs.hit.iter().enumerate() {
                gs.of_hit[g as usize] = i as u32;
            }
            gs.hit_contacts.iter_mut().for_each(Vec::clear);
            gs.hit_contacts.resize_with(gs.hit.len().max(gs.hit_contacts.len()), Vec::new);
            for (i, c) in self.contacts.iter().enumerate() {
                if let Some(&g) = gs.of.get(c.particle as usize)
                    && g != u32::MAX
                    && gs.mark[g as usize] == gs.stamp
                {
                    gs.hit_contacts[gs.of_hit[g as usize] as usize].push(i as u32);
                }
            }
        }
        for _ in 0..self.def.impact_passes {
            // The groups' links (only the one-sided ones with the direct solve) and joint
            // limits, then their contacts (with friction), projected; then, with the
            // direct solve, each group solved at once.
            let ps = &mut self.particles;
            for &g in &self.groups.hit {
                let g = g as usize;
                let (d0, d1) = (self.groups.dist_at[g] as usize, self.groups.dist_at[g + 1] as usize);
                for &slot in &self.groups.dist[d0..d1] {
                    if let Some(c) = self.distances.values[slot as usize].as_mut()
                        && (c.unilateral || !direct)
                    {
                        c.solve(ps, ctx);
                    }
                }
                let (l0, l1) = (self.groups.lim_at[g] as usize, self.groups.lim_at[g + 1] as usize);
                for &slot in &self.groups.lim[l0..l1] {
                    if let Some(c) = self.limits.values[slot as usize].as_mut() {
                        c.solve(ps, ctx);
                    }
                }
            }
            let gs = &self.groups;
            let struck = |k: usize| gs.of.get(k).is_some_and(|&g| g != u32::MAX && gs.mark[g as usize] == gs.stamp);
            solve_contacts_of(&mut self.particles, &mut self.contacts, h, struck);
            if direct {
                self.solve_struck_groups(ctx, h);
            }
        }
    }

    /// Each struck group's bilateral links, the joint limits now beyond their range and
    /// its particles' contacts now violated, solved together (see
    /// [`crate::constraint::group_solve`]); again from the new positions while a solve
    /// left a rigid link strained beyond [`IMPACT_STRAIN`], a limit beyond
    /// [`IMPACT_OVERSHOOT`] or a contact deeper than [`GROUP_SOLVE_SLOP`] (the solve
    /// linearises at the positions it starts from, and can bend a joint it did not hold
    /// or push a particle into a collider), at most [`GROUP_SOLVE_ROUNDS`] times.
    fn solve_struck_groups(&mut self, ctx: &SubstepContext<RealOf<S>>, h: RealOf<S>) {
        let strain = RealOf::<S>::from_ratio(IMPACT_STRAIN.0, IMPACT_STRAIN.1);
        let overshoot = RealOf::<S>::from_ratio(IMPACT_OVERSHOOT.0, IMPACT_OVERSHOOT.1);
        let slop = RealOf::<S>::from_ratio(GROUP_SOLVE_SLOP.0, GROUP_SOLVE_SLOP.1);
        let (mut direct, mut dist, mut lims, mut lim_rows) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let hit = core::mem::take(&mut self.groups.hit);
        for (hi, &g) in hit.iter().enumerate() {
            let (g, gs) = (g as usize, &self.groups);
            dist.clear();
            dist.extend_from_slice(&gs.dist[gs.dist_at[g] as usize..gs.dist_at[g + 1] as usize]);
            lims.clear();
            lims.extend_from_slice(&gs.lim[gs.lim_at[g] as usize..gs.lim_at[g + 1] as usize]);
            for round in 0..GROUP_SOLVE_ROUNDS {
                let sv = &mut self.group_solver;
                sv.clear();
                direct.clear();
                lim_rows.clear();
                for &slot in &dist {
                    if let Some(c) = self.distances.values[slot as usize].as_ref()
                        && !c.unilateral
                        && sv.link(&self.particles, (c.a, c.b), c.rest, (c.compliance * ctx.inv_h2, c.lambda))
                    {
                        direct.push(slot);
                    }
                }
                let mut unsettled = sv.max_rigid_strain() > strain;
                for &slot in &lims {
                    if let Some(l) = self.limits.values[slot as usize].as_ref() {
                        let before = sv.limit_rows.len();
                        l.violated_rows(&self.particles, &mut sv.limit_rows);
                        unsettled |= sv.limit_rows[before..].iter().any(|r| r.c.abs() > overshoot);
                        lim_rows.extend((0..sv.limit_rows.len() - before).map(|part| (slot, part)));
                    }
                }
                sv.add_limit_rows(ctx.inv_h2);
                for &i in &self.groups.hit_contacts[hi] {
                    let c = &self.contacts[i as usize];
                    // A contact the particle touches or nearly touches: one that is not
                    // in the system can be pushed in by the solve (the active set drops
                    // it again if it would pull).
                    let depth = c.d - c.normal.dot(self.particles.pos[c.particle as usize]);
                    if depth > -slop {
                        sv.contact(&self.particles, c.particle, c.normal, c.d);
                        unsettled |= depth > slop;
                    }
                }
                // After the first round, only for what the last one left.
                if round > 0 && !unsettled {
                    break;
                }
                let (distances, limits) = (&mut self.distances, &mut self.limits);
                let solved = sv.solve(&mut self.particles, |of, dl| match of {
                    RowOf::Link(i) => {
                        if let Some(c) = distances.values[direct[i as usize] as usize].as_mut() {
                            c.lambda += dl;
                        }
                    }
                    RowOf::Limit(i) => {
                        let (slot, part) = lim_rows[i as usize];
                        if let Some(l) = limits.values[slot as usize].as_mut() {
                            l.add_row_lambda(part, dl);
                        }
                    }
                    RowOf::Contact => {}
                });
                if !solved {
                    // Too large a group for the dense solve: its links projected once more
                    // instead (the pass skipped them).
                    for &slot in &direct {
                        if let Some(c) = self.distances.values[slot as usize].as_mut() {
                            c.solve(&mut self.particles, ctx);
                        }
                    }
                    break;
                }
                self.contacts_made_by_solve(hi, &dist, h);
            }
        }
        self.groups.hit = hit;
    }

    /// A direct solve moves a group's particles by up to its bones' strain, after this
    /// substep's contacts were found: a particle it pushed into a collider its pairs list
    /// (one that was clear at detection) gets a contact now, which the next round of the
    /// solve and the passes after it hold. Like the solve's pushes, it adds nothing to a
    /// contact's push `dn`, which the velocity pass's friction and restitution act on:
    /// with the solve's pushes counted there, resting ragdolls shook (0.4–0.6 m/s after
    /// 5 s, measured), so the velocity pass sees only what the projections pushed.
    fn contacts_made_by_solve(&mut self, hi: usize, dist: &[u32], h: RealOf<S>) {
        let sc = &self.scratch;
        let ps = &self.particles;
        let test = ContactTest {
            particles: ps,
            def: &self.def,
            f0: RealOf::<S>::ONE,
            f1: RealOf::<S>::ONE,
            inv_h: RealOf::<S>::ONE / h,
            rest_move: self.def.rest_speed(h) * h,
        };
        let mut seen = [u32::MAX; 2];
        for &slot in dist {
            let Some(c) = self.distances.values[slot as usize].as_ref() else { continue };
            for k in [c.a, c.b] {
                // (Each link's ends: a particle shared by consecutive links is looked at once.)
                if seen.contains(&k) {
                    continue;
                }
                seen = [seen[1], k];
                let Ok(at) = sc.probes.binary_search_by_key(&k, |p| p.particle) else { continue };
                let lo = if at == 0 { 0 } else { sc.probes[at - 1].pairs_end as usize };
                let (x, r) = (ps.pos[k as usize], ps.radius[k as usize]);
                for pair in &sc.pairs[lo..sc.probes[at].pairs_end as usize] {
                    let Some(col) = self.colliders.values[pair.slot as usize].as_ref() else { continue };
                    let listed = self.groups.hit_contacts[hi].iter().any(|&i| {
                        self.contacts[i as usize].particle == k && self.contacts[i as usize].collider == pair.slot
                    });
                    if listed || col.is_moving() {
                        continue;
                    }
                    let lx = col.rotation.inverse_rotate(x - col.position);
                    let prox = closest(&col.shape, lx);
                    if prox.distance >= r || prox.normal == VecOf::<S>::ZERO {
                        continue;
                    }
                    let n = col.rotation.rotate(prox.normal);
                    let q = col.position + col.rotation.rotate(lx - prox.normal * (prox.distance - r));
                    self.groups.hit_contacts[hi].push(self.contacts.len() as u32);
                    self.contacts.push(test.contact(k as usize, pair.slot, col, n, n.dot(q), VecOf::<S>::ZERO));
                }
            }
        }
    }

    crate::math::wide::wide_phase!(
        fn update_velocities / update_velocities_avx2 / update_velocities_body(
            &mut self,
            ctx: &SubstepContext<RealOf<S>>,
        )
    );

    /// `v = (x − x_prev)/h` for every slot (pinned and removed particles give 0 or their
    /// driven velocity).
    #[inline(always)]
    fn update_velocities_body(&mut self, ctx: &SubstepContext<RealOf<S>>) {
        let ps = &mut self.particles;
        let v = S::Vector::flat_mut(&mut ps.vel);
        for ((v, x), xp) in v.iter_mut().zip(S::Vector::flat(&ps.pos)).zip(S::Vector::flat(&ps.prev)) {
            *v = (*x - *xp) * ctx.inv_h;
        }
    }

    crate::math::wide::wide_phase!(
        fn recover_non_finite / recover_non_finite_avx2 / recover_non_finite_body(&mut self) -> u32
    );

    /// Once per step: a particle whose state became non-finite (only possible from extreme
    /// input such as forces near the float maximum) is put back where the step started,
    /// at rest, so NaN never spreads through later steps.
    #[inline(always)]
    fn recover_non_finite_body(&mut self) -> u32 {
        let ps = &mut self.particles;
        // The usual case, all finite, in one pass over the flat components without early
        // exits (which the compiler turns into SIMD).
        let flat = |v: &[VecOf<S>]| S::Vector::flat(v).iter().fold(true, |ok, c| ok & c.is_finite());
        if flat(&ps.pos) & flat(&ps.vel) {
            return 0;
        }
        let mut recovered = 0;
        for k in 0..ps.pos.len() {
            if !(ps.pos[k].is_finite() && ps.vel[k].is_finite()) {
                ps.anchor_info[k].flags = 0;
                ps.pos[k] = ps.step_start[k];
                ps.prev[k] = ps.step_start[k];
                ps.vel[k] = VecOf::<S>::ZERO;
                recovered += 1;
            }
        }
        recovered
    }

    /// Dynamic friction and restitution (Müller et al. 2020, "Detailed Rigid Body
    /// Simulation with Extended Position Based Dynamics", §3.6), and what is left of the
    /// normal velocity.
    ///
    /// The normal velocity is set to the restitution target (0 for a resting or inelastic
    /// contact) when the particle still approaches — but an outward normal velocity is kept,
    /// less the part that pushed the particle out of a penetration it started the substep
    /// in and the part its rope spans' contacts pushed it. The outward part left is
    /// motion: a particle sliding over a convex curve moves along a chord, which leaves the
    /// surface's tangent at the end point at half the angle turned, `vn = v²h/2R` outward.
    /// Next substep its path rises above the surface by twice the tangent's rise, `v²h²/R`,
    /// while gravity pulls it in by `g·cos θ·h²`: it leaves the surface when
    /// `v²/R > g·cos θ`, as in the continuous problem. Zeroing `vn` (the inelastic contact
    /// of Müller et al.) halves the rise, so a particle sliding off a round post left it at
    /// ~70° instead of 48°, whatever the substep count, and the surface pushed with
    /// `m(g cos θ − v²/2R)` instead of `m(g cos θ − v²/R)`, over-stating friction on
    /// curves. The push out of a starting penetration (a particle spawned inside a shape,
    /// one of two wedging colliders, one a collider moved into) is not motion and is
    /// removed, as before; so is a span contact's push (a rope spawned inside a shape).
    /// Span contacts have no velocity pass of their own: a rope particle pushed only by
    /// its spans keeps that push as velocity (a rope spawned 1 cm inside a ball rises
    /// ~1 cm above it).
    ///
    /// The start's depth costs a distance query only for a contact left moving outward
    /// faster than `Real::ROUNDING_SLOP / h` (0.5 mm/s at the default step in `f32`; in
    /// fixed point the square of its coarse geometric epsilon), and only when the
    /// collider moves or the start lies below the contact plane (which supports a static
    /// collider's inflated shape, so a start above it was outside).
    #[inline(never)] // a phase of the step (see the note in `step_with`)
    fn velocity_pass(&mut self, ctx: &SubstepContext<RealOf<S>>, f0: RealOf<S>) {
        let ps = &mut self.particles;
        let zero = RealOf::<S>::ZERO;
        // Below this approach speed a bounce is suppressed: it is what gravity adds in two
        // substeps, i.e. resting contact, not an impact.
        let rest_speed = self.def.rest_speed(ctx.h);
        // An outward velocity below this (a rounding's worth of displacement per substep)
        // is dropped without looking at where the substep started.
        let tiny = RealOf::<S>::ROUNDING_SLOP * ctx.inv_h;
        // What the span contacts pushed each particle (their share of the contact point's
        // correction: `w_a·g_a/Σw·g²` of it for end `a`), summed only when a contact first
        // needs it (rare: most substeps leave no outward velocity to look at).
        let spans = !self.edge_contacts.is_empty();
        let mut pushes_summed = false;
        let span_push = &mut self.scratch.span_push;
        let edge_contacts = &self.edge_contacts;
        let sum_pushes = |span_push: &mut Vec<VecOf<S>>, inv_mass: &[RealOf<S>]| {
            if span_push.len() < inv_mass.len() {
                span_push.resize(inv_mass.len(), VecOf::<S>::ZERO);
            }
            for c in edge_contacts {
                let (a, b) = (c.a as usize, c.b as usize);
                let (ga, gb) = (RealOf::<S>::ONE - c.t, c.t);
                let (wa, wb) = (inv_mass[a], inv_mass[b]);
                let w = ga * ga * wa + gb * gb * wb;
                if c.dn > zero && w > zero {
                    let s = c.dn / w;
                    span_push[a] += c.normal * (wa * ga * s);
                    span_push[b] += c.normal * (wb * gb * s);
                }
            }
        };
        for c in &self.contacts {
            if c.dn <= zero {
                continue;
            }
            let k = c.particle as usize;
            let mut v = ps.vel[k];
            let vrel = v - c.v_col;
            let vn = c.normal.dot(vrel);
            let vt = vrel - c.normal * vn;
            let (t, lt) = vt.normalize_and_length();
            if lt > zero && c.mu_d > zero {
                v -= t * (c.mu_d * c.dn * ctx.inv_h).min(lt);
            }
            let e = if -c.vn_pre <= rest_speed { zero } else { c.restitution };
            let target = (-e * c.vn_pre).max(zero);
            let mut kept = target;
            if vn > target + tiny {
                let xp = ps.prev[k];
                let depth = match self.colliders.values[c.collider as usize].as_ref() {
                    Some(col) if col.is_moving() || c.normal.dot(xp) < c.d => {
                        let (p0, r0) = col.pose_at(f0);
                        (ps.radius[k] - closest(&col.shape, r0.inverse_rotate(xp - p0)).distance).max(zero)
                    }
                    _ => zero,
                };
                let pushed = if spans {
                    if !pushes_summed {
                        sum_pushes(span_push, &ps.inv_mass);
                        pushes_summed = true;
                    }
                    c.normal.dot(span_push[k]).max(zero)
                } else {
                    zero
                };
                kept = (vn - (depth + pushed) * ctx.inv_h).max(target);
            }
            v += c.normal * (kept - vn);
            ps.vel[k] = v;
        }
        if pushes_summed {
            for c in edge_contacts {
                span_push[c.a as usize] = VecOf::<S>::ZERO;
                span_push[c.b as usize] = VecOf::<S>::ZERO;
            }
        }
    }
}

/// [`World::solve_contacts`] for the contacts of the particles `keep` accepts.
#[inline(always)]
fn solve_contacts_of<S: Space>(
    ps: &mut ParticleSet<S>,
    contacts: &mut [Contact<S>],
    h: RealOf<S>,
    keep: impl Fn(usize) -> bool,
) {
    let zero = RealOf::<S>::ZERO;
    let friction = |ps: &mut ParticleSet<S>, c: &Contact<S>| {
        let k = c.particle as usize;
        if c.mu_s > zero {
            let disp = ps.pos[k] - ps.prev[k] - c.v_col * h;
            let tangential = disp - c.normal * c.normal.dot(disp);
            if tangential.length_squared() < (c.mu_s * c.dn).sq() {
                ps.pos[k] -= tangential;
            }
        }
    };
    let one_by_one = |ps: &mut ParticleSet<S>, c: &mut Contact<S>| {
        let k = c.particle as usize;
        let depth = c.d - c.normal.dot(ps.pos[k]);
        if depth > zero {
            ps.pos[k] += c.normal * depth;
            c.dn += depth;
            friction(ps, c);
        }
    };
    let cs = contacts;
    let mut i = 0;
    while i < cs.len() {
        let k = cs[i].particle;
        if !keep(k as usize) {
            i += 1;
            continue;
        }
        let pair = i + 1 < cs.len() && cs[i + 1].particle == k && (i + 2 == cs.len() || cs[i + 2].particle != k);
        if !pair {
            // One contact (or a run of three or more, one at a time).
            one_by_one(ps, &mut cs[i]);
            i += 1;
            continue;
        }
        let (a, b) = cs.split_at_mut(i + 1);
        let (ca, cb) = (&mut a[i], &mut b[0]);
        let x = ps.pos[k as usize];
        let (na, nb) = (ca.normal, cb.normal);
        let (ea, eb) = (ca.d - na.dot(x), cb.d - nb.dot(x));
        let c = na.dot(nb);
        // The least move `Δx` with `n_a·Δx ≥ e_a` and `n_b·Δx ≥ e_b`.
        let det = RealOf::<S>::ONE - c * c;
        let (ma, mb) = if ea <= zero && eb <= zero {
            (zero, zero)
        } else if ea > zero && ea * c >= eb {
            (ea, zero) // onto `a` clears `b`
        } else if eb > zero && eb * c >= ea {
            (zero, eb) // onto `b` clears `a`
        } else if det > RealOf::<S>::GEOMETRIC_EPSILON {
            ((ea - c * eb) / det, (eb - c * ea) / det)
        } else {
            (-RealOf::<S>::ONE, zero) // no point satisfies both: one after the other
        };
        if ma < zero || mb < zero {
            one_by_one(ps, ca);
            one_by_one(ps, cb);
        } else {
            ps.pos[k as usize] += na * ma + nb * mb;
            ca.dn += ma;
            cb.dn += mb;
            if ma > zero {
                friction(ps, ca);
            }
            if mb > zero {
                friction(ps, cb);
            }
        }
        i += 2;
    }
}

/// What a particle–collider contact test reads, borrowed apart from the contact list it
/// appends to (so the substep loop can hold the particle arrays while it tests).
struct ContactTest<'a, S: Space> {
    particles: &'a ParticleSet<S>,
    def: &'a WorldDef<S>,
    f0: RealOf<S>,
    f1: RealOf<S>,
    inv_h: RealOf<S>,
    /// [`WorldDef::rest_speed`] times `h`: a substep's approach below it is resting contact.
    rest_move: RealOf<S>,
}

impl<S: Space> ContactTest<'_, S> {
    /// Tests particle `k` against collider `col` (in slot `slot`; groups already checked)
    /// and appends the contact, if any, to `out`.
    #[inline]
    fn test(&self, k: usize, slot: u32, col: &Collider<S>, out: &mut Vec<Contact<S>>) {
        let (f0, f1, inv_h) = (self.f0, self.f1, self.inv_h);
        let ps = self.particles;
        let (x, xp, r) = (ps.pos[k], ps.prev[k], ps.radius[k]);
        let (p1, r1) = col.pose_at(f1);
        let lx = r1.inverse_rotate(x - p1);
        let prox = closest(&col.shape, lx);
        let moving = col.is_moving();
        if prox.distance >= r && !moving && (x - xp).length_squared() <= r * r {
            return; // clear of the shape and too slow to have passed through it
        }
        let lxp = if moving {
            let (p0, r0) = col.pose_at(f0);
            r0.inverse_rotate(xp - p0)
        } else {
            r1.inverse_rotate(xp - p1)
        };
        let zero = RealOf::<S>::ZERO;
        // Where the substep's path `lxp → lx` entered the shape: the contact normal and
        // the point the particle must be held at. From outside the inflated shape, its
        // entry into it. From a start that touches it — a resting particle sits on the
        // inflated surface, within rounding either side — that ray starts inside and finds
        // nothing, so the entry into the shape inflated by half the radius is taken,
        // held on the parallel plane half a radius farther out (a supporting plane of the
        // fully inflated shape): a particle resting on a plank and yanked through it in
        // one substep is stopped, while one sliding along a face or leaving it never
        // enters the half-inflated shape. (A path that enters the half-inflated shape
        // enters the fully inflated one too, so the second ray can only hit from a
        // touching start.)
        let half = r * RealOf::<S>::HALF;
        let entry = || {
            col.shape.raycast(lxp, lx, r).map(|hit| (hit.normal, lxp + (lx - lxp) * hit.fraction)).or_else(|| {
                col.shape
                    .raycast(lxp, lx, half)
                    .map(|hit| (hit.normal, lxp + (lx - lxp) * hit.fraction + hit.normal * half))
            })
        };
        let hit = if prox.distance < r {
            // Penetrating now. If the path entered the shape during the substep, the
            // contact plane comes from where it entered (robust for thin walls); otherwise
            // from the nearest surface. Only a move longer than the shape's half thickness
            // can have crossed its middle and made the nearest surface the wrong one;
            // shorter moves skip the raycast.
            let moved2 = (lx - lxp).length_squared();
            let may_cross = moved2 > zero && col.half_thickness < RealOf::<S>::MAX && moved2 >= col.half_thickness.sq();
            // Pushed out along the nearest surface's normal `n` by the depth `δ`, the
            // particle's substep velocity `v` gains `Δv = δ/h` along `n`, and its speed
            // grows when `δ > −2·(v·n)·h`. That happens when the path grazed a corner or a
            // curve (went in on one side, on its way out on another): the push then speeds
            // it up, and energy appears. If the path approached the surface where it
            // started faster than resting contact does, it hit that surface: the plane
            // where it entered (from outside) or the supporting plane where it started
            // (from touching) is taken instead. It stops the approach, as a contact at the
            // moment of impact would. Flat faces never qualify (from outside, the depth is
            // at most the approach). A particle sliding over a curve of radius `R` does
            // "approach" its start's tangent plane, by `v²h²/2R` per substep, but sliding
            // needs `v² < gR` so that stays below the rest move `2g·h²` and it keeps the
            // nearest surface's plane — which is what makes it leave where the normal
            // force vanishes.
            let along = (lx - lxp).dot(prox.normal);
            let speeds_up = r - prox.distance > -(along + along);
            let arrived = || {
                let start = closest(&col.shape, lxp);
                if !(-(lx - lxp).dot(start.normal) > self.rest_move) || start.normal == VecOf::<S>::ZERO {
                    return None;
                }
                col.shape
                    .raycast(lxp, lx, r)
                    .map(|hit| (hit.normal, lxp + (lx - lxp) * hit.fraction))
                    .or_else(|| Some((start.normal, lxp - start.normal * (start.distance - r))))
            };
            match if may_cross {
                entry()
            } else if speeds_up {
                arrived()
            } else {
                None
            } {
                Some(hit) => Some(hit),
                None => Some((prox.normal, lx - prox.normal * (prox.distance - r))),
            }
        } else if (lx - lxp).length_squared() > r * r {
            // Outside at the end but moving fast: did the path pass through?
            entry()
        } else {
            None
        };
        let Some((nl, ql)) = hit else { return };
        let n = r1.rotate(nl);
        let qw = p1 + r1.rotate(ql);
        let v_col = if moving {
            let (p0, r0) = col.pose_at(f0);
            (qw - (p0 + r0.rotate(ql))) * inv_h
        } else {
            VecOf::<S>::ZERO
        };
        out.push(self.contact(k, slot, col, n, n.dot(qw), v_col));
    }

    /// A speculative contact of particle `k` with the static collider `col` (slot `slot`)
    /// when the particle is within half its radius of touching it: the step's plane
    /// (`normal`, `d`) if the pair has one in force (`normal` zero otherwise), else the
    /// supporting plane at the nearest surface point. It acts only if something pushes the
    /// particle into it this substep.
    #[inline]
    fn speculative(
        &self,
        k: usize,
        slot: u32,
        col: &Collider<S>,
        normal: VecOf<S>,
        d: RealOf<S>,
    ) -> Option<Contact<S>> {
        if col.is_moving() {
            return None;
        }
        let ps = self.particles;
        let (x, r) = (ps.pos[k], ps.radius[k]);
        let near = r * RealOf::<S>::HALF;
        if normal != VecOf::<S>::ZERO {
            return (normal.dot(x) < d + near).then(|| self.contact(k, slot, col, normal, d, VecOf::<S>::ZERO));
        }
        let lx = col.rotation.inverse_rotate(x - col.position);
        let prox = closest(&col.shape, lx);
        if prox.distance >= r + near || prox.normal == VecOf::<S>::ZERO {
            return None;
        }
        let n = col.rotation.rotate(prox.normal);
        let q = col.position + col.rotation.rotate(lx - prox.normal * (prox.distance - r));
        Some(self.contact(k, slot, col, n, n.dot(q), VecOf::<S>::ZERO))
    }

    /// The contact of particle `k` with collider `col` (in slot `slot`) on the plane
    /// `n·x ≥ d`, whose surface moves at `v_col`.
    #[inline]
    fn contact(
        &self,
        k: usize,
        slot: u32,
        col: &Collider<S>,
        n: VecOf<S>,
        d: RealOf<S>,
        v_col: VecOf<S>,
    ) -> Contact<S> {
        let ps = self.particles;
        let mu_d = crate::collider::mix_friction(ps.friction[k], col.friction, self.def.friction);
        let mu_s = col.static_friction.or(self.def.static_friction).unwrap_or(mu_d).max(mu_d);
        let restitution = col.restitution.unwrap_or(self.def.restitution);
        Contact {
            particle: k as u32,
            collider: slot,
            normal: n,
            d,
            dn: RealOf::<S>::ZERO,
            vn_pre: n.dot(ps.vel[k] - v_col),
            v_col,
            mu_s,
            mu_d,
            restitution,
        }
    }
}

/// The groups of constraints connected through shared particles (a ragdoll, a chain of
/// distances), for the impact passes: per particle slot its group (`u32::MAX`: none),
/// and per group its distance and joint-limit slots in slot order (compressed rows).
#[derive(Clone, Debug, Default)]
struct ConstraintGroups {
    of: Vec<u32>,
    dist_at: Vec<u32>,
    dist: Vec<u32>,
    lim_at: Vec<u32>,
    lim: Vec<u32>,
    /// Per group: the stamp of the last substep it was struck in.
    mark: Vec<u32>,
    stamp: u32,
    /// The groups struck this substep.
    hit: Vec<u32>,
    /// Per group: its place in `hit` (valid for the groups marked this substep).
    of_hit: Vec<u32>,
    /// Per struck group (as in `hit`): its particles' contacts.
    hit_contacts: Vec<Vec<u32>>,
}

impl ConstraintGroups {
    fn build<P: AsRef<[usize]>>(&mut self, particle_slots: usize, dist: &[(u32, [usize; 2])], lims: &[(u32, P)]) {
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
fn find(parent: &mut [u32], mut k: u32) -> u32 {
    while parent[k as usize] != k {
        let up = parent[parent[k as usize] as usize];
        parent[k as usize] = up;
        k = up;
    }
    k
}

/// Union–find: puts all of `ps` in one set, the smallest root as its root (deterministic).
fn join(parent: &mut [u32], ps: &[usize]) {
    let Some(&first) = ps.first() else { return };
    for &p in &ps[1..] {
        let (ra, rb) = (find(parent, first as u32), find(parent, p as u32));
        if ra != rb {
            parent[ra.max(rb) as usize] = ra.min(rb);
        }
    }
}

/// An order for constraints `(slot, particles)` given in slot order: slot order within
/// each group of constraints connected through shared particles, groups interleaved in
/// blocks of [`INTERLEAVE`] (round-robin over the block's groups, one constraint of each
/// in turn). Groups share no particle, so the interleaving changes no result — every
/// particle sees its projections in slot order — it only lets the CPU overlap the
/// projections of different groups (within a group each waits for the previous one).
/// Groups are numbered by their first constraint, so the order is deterministic.
fn interleaved_order<P: AsRef<[usize]>>(particle_slots: usize, items: &[(u32, P)], out: &mut Vec<u32>) {
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

/// [`Shape::closest`] with the half-space case inlined: the shape of most scenes' floors,
/// queried for every particle every step and for every particle resting on it every
/// substep. Same code, same results.
#[inline]
fn closest<S: Space>(shape: &Shape<S>, p: VecOf<S>) -> Proximity<RealOf<S>, VecOf<S>> {
    match shape {
        Shape::HalfSpace(s) => ShapeQuery::<S>::closest(s, p),
        _ => shape.closest(p),
    }
}

fn retain<T>(arena: &mut Arena<T>, keep: impl Fn(&T) -> bool) {
    let dead: Vec<_> = arena.iter().filter(|(_, v)| !keep(v)).map(|(h, _)| h).collect();
    for h in dead {
        arena.remove(h);
    }
}

fn check_params<R: Real>(vals: &[(R, &'static str)]) -> Result<(), SinewError> {
    for &(v, what) in vals {
        if !v.is_finite() {
            return Err(SinewError::NonFinite { what });
        }
        if v < R::ZERO {
            return Err(SinewError::InvalidParameter { what, reason: "must be ≥ 0" });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::interleaved_order;

    /// The step's contact planes (module docs, "Contact planes"): kept for a slow particle
    /// near a surface, at that surface's supporting plane; not for one predicted to move
    /// farther than the reuse distance, nor for one deep inside.
    #[test]
    fn contact_planes_are_kept_for_slow_particles_near_a_surface_only() {
        use crate::collider::{ColliderDef, Shape};
        use crate::math::Vector2;
        use crate::particle::ParticleDef;
        use crate::space::Space2;
        let v = Vector2::<f64>::new;
        let mut w = super::World::<Space2<f64>>::new(super::WorldDef::default()).unwrap();
        w.add_collider(&ColliderDef::new(Shape::cuboid(v(1.0, 0.5)).unwrap())).unwrap();
        let r = 0.05;
        let resting = w.add_particle(&ParticleDef::at(v(0.0, 0.5 + r)).radius(r)).unwrap();
        let fast = w.add_particle(&ParticleDef::at(v(0.5, 0.5 + r)).radius(r).velocity(v(1.0, 0.0))).unwrap();
        let deep = w.add_particle(&ParticleDef::at(v(-0.5, 0.3)).radius(r)).unwrap();
        w.step(1.0 / 60.0).unwrap();
        let sc = &w.scratch;
        let pairs_of = |k: usize| {
            let i = sc.probes.iter().position(|p| p.particle as usize == k).unwrap();
            let lo = if i == 0 { 0 } else { sc.probes[i - 1].pairs_end as usize };
            &sc.pairs[lo..sc.probes[i].pairs_end as usize]
        };
        // Resting: 5 mm of reuse (below r/2 and the gathered margin), on the top face.
        assert_eq!(sc.plane2[resting.index()], 0.005f64 * 0.005);
        let p = pairs_of(resting.index())[0];
        assert_eq!(p.normal, v(0.0, 1.0));
        assert!((p.d - (0.5 + r)).abs() < 1e-15, "{}", p.d);
        // Fast: 1 m/s covers 17 mm in the step, more than 5 mm: tested every substep.
        assert_eq!(sc.plane2[fast.index()], 0.0);
        // Deep inside (20 cm below the top face, past r/2): no plane, pushed out substep
        // by substep.
        assert!(sc.plane2[deep.index()] > 0.0);
        assert_eq!(pairs_of(deep.index())[0].normal, v(0.0, 0.0));
    }

    /// A resting particle keeps its contact anchor and last step's pairs; a moving
    /// collider among those pairs that has since left the query box is not copied on
    /// (the `moved_away` guard of `gather_candidates`): the particle gathers afresh, and
    /// its pairs list only what is near. (Without the guard the far collider stays in the
    /// particle's pairs, tested every substep, for as long as it keeps moving.)
    #[test]
    fn a_moving_collider_that_left_is_dropped_from_a_resting_particles_pairs() {
        use crate::collider::{ColliderDef, Shape};
        use crate::math::{Rot2, Rotation, Vector, Vector2};
        use crate::particle::ParticleDef;
        use crate::space::Space2;
        let v = Vector2::<f64>::new;
        let mut w = super::World::<Space2<f64>>::new(super::WorldDef::default()).unwrap();
        let ground = w.add_collider(&ColliderDef::new(Shape::cuboid(v(5.0, 0.5)).unwrap())).unwrap();
        let ball = w.add_collider(&ColliderDef::new(Shape::ball(0.05).unwrap()).position(v(0.3, 0.6))).unwrap();
        let r = 0.05;
        let p = w.add_particle(&ParticleDef::at(v(0.0, 0.5 + r)).radius(r)).unwrap();
        let slots_of = |w: &super::World<Space2<f64>>| {
            let sc = &w.scratch;
            let i = sc.probes.iter().position(|q| q.particle as usize == p.index()).unwrap();
            let lo = if i == 0 { 0 } else { sc.probes[i - 1].pairs_end as usize };
            sc.pairs[lo..sc.probes[i].pairs_end as usize].iter().map(|q| q.slot).collect::<Vec<_>>()
        };
        // The ball sways 1.2–1.6 cm from the particle resting on the ground beside it.
        for f in 0..60 {
            let x = 0.1 + 0.005 * f64::from(f % 2);
            w.set_collider_pose(ball, v(x, 0.6), Rot2::IDENTITY).unwrap();
            w.step(1.0 / 60.0).unwrap();
        }
        assert!(slots_of(&w).contains(&ball.0.index), "the swaying ball is a candidate: {:?}", slots_of(&w));
        // Then it moves away, 20 m and beyond, still moving every step.
        for f in 0..5 {
            w.set_collider_pose(ball, v(20.0 + 0.01 * f64::from(f), 0.6), Rot2::IDENTITY).unwrap();
            w.step(1.0 / 60.0).unwrap();
        }
        assert_eq!(slots_of(&w), vec![ground.0.index], "only the ground is near");
        let speed = w.particles().velocity(p).unwrap().length();
        assert!(speed < 1e-3, "the particle rests: {speed} m/s");
    }

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
