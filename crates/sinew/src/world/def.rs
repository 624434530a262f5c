//! World settings.

use crate::SinewError;
use crate::constraint::ConstraintOrder;
use crate::contact::ContactParams;
use crate::limits::Limits;
use crate::math::{Real, Vector};
use crate::particle::check_finite;
use crate::space::{RealOf, Space, VecOf};
use crate::state::{SavedState, StateHasher};

/// World settings (Box2D style: a small struct with defaults; set fields with the
/// builder methods, `WorldDef::default().substeps(4).friction(0.5)`, or by assignment).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
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
    /// of testing the shapes again every substep (see "Contact planes" in [`crate::contact`]).
    /// 0 tests every substep. Default 5 mm.
    pub plane_reuse: RealOf<S>,
    /// Extra passes per substep for the groups of constraints (a ragdoll, a chain of
    /// distances) that a contact struck in it — a contact pushed one of a group's
    /// particles that came at the surface faster than `max(8|g|h, 0.1 m/s)` (a resting
    /// particle's approach is gravity's `|g|h`, whatever weight its contact carries) — and,
    /// in 2D, for ragdolls the substep left with a bone strained beyond 0.5 % or a joint
    /// beyond its limit by 0.25°: the group's joint limits and contacts are projected
    /// again, then (2D) the group's links, violated limits and contacts are solved at
    /// once, this many times (see [`crate::impact`]). One pass holds a
    /// `humanoid16`'s bones within 0.5 % through 10 m/s impacts at 8 substeps. Default 0
    /// (off): it costs at least 3 µs per solved ragdoll per substep, right for a few
    /// fighting-game ragdolls, not for a crowd (a 1000-ragdoll rain: ~14 ms a frame
    /// against ~2 ms).
    pub impact_passes: u32,
    /// Solve every tree-shaped group of rigid distances (a ragdoll's bones, small loops
    /// such as its torso included) exactly each substep, and again after the contacts
    /// for the groups a contact pushed (see [`crate::constraint::tree`]); off, every link
    /// is a Gauss–Seidel projection. Default on in 2D (every bone within 0.01 % through
    /// throws and drops, against 7–52 % strain without; it costs 4.7× on a 1000-ragdoll
    /// rain, docs/BENCHMARKS.md). Off by default in 3D, where it is not yet ready to be
    /// what every user gets: a `humanoid3d` dropped in `f32` still moves at 4.9 cm/s
    /// after 5 s, and a 5 m drop at 4 substeps can fold its torso block inside out
    /// (bones then 2.9 % off); turn it on for exact 3D bones at 8 substeps or more.
    pub tree_solve: bool,
    /// With [`tree_solve`](Self::tree_solve), in 2D: the joint limits beyond their range,
    /// and in the solve after contacts the contact planes a particle went inside, as rows
    /// of the exact tree solve, so the bones and the limits hold together (see "Limit
    /// rows" in [`crate::constraint::tree`]). Default off: a `humanoid16` thrown or dropped
    /// then keeps its joint limits within 0.9° (against up to 21°), but a node beside a
    /// contact may go up to 0.6–1.1 mm into a wall for a frame, a ragdoll dropped flat
    /// rebounds less, and two ragdolls thrown at each other with body contacts
    /// interpenetrate deeper (README, known limits). Ignored in 3D, where swing–twist rows
    /// held the limits within 0.9° but left thrown bodies moving at 2–3 m/s after 5 s.
    /// Hashed only when on.
    pub limit_rows: bool,
    /// Whole-body restitution for tree-solved bodies (ragdolls): an impact ends with the
    /// body's centre of mass leaving at `e` times the speed it came in with, as far as its
    /// kinetic energy allows (see [`crate::contact::bounce`]). Default on; hashed only
    /// when off.
    pub body_restitution: bool,
    /// Contacts between bodies: particles as spheres, bones and rope spans as capsules, so
    /// ragdolls, ropes and particles of different bodies push each other (see
    /// [`crate::contact::bodies`]). Default off: existing worlds step exactly as before and
    /// keep their state hashes (the setting and the bodies are hashed only while it is
    /// on), and the cost (a broad phase per step, a segment test per nearby pair per
    /// iteration) is paid only by worlds that ask for it.
    pub body_contacts: bool,
    /// What the world may hold (particles, constraints, colliders, rope segments),
    /// checked before anything is added; see [`crate::limits`]. Left out of the state
    /// hash: limits never change what a step computes.
    pub limits: Limits,
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
            // On in 2D; off in 3D, see the field's docs.
            tree_solve: S::DIM == 2,
            limit_rows: false,
            body_restitution: true,
            body_contacts: false,
            limits: Limits::default(),
        }
    }
}

// Written out rather than by `saved_state!`: `body_contacts` is hashed only when on, so a
// world that never turns it on keeps the hash it had before the setting existed. The
// destructuring is exhaustive all the same.
impl<S: Space> SavedState for WorldDef<S> {
    fn hash_state(&self, h: &mut StateHasher) {
        let Self {
            gravity,
            substeps,
            iterations,
            damping,
            friction,
            static_friction,
            restitution,
            constraint_order,
            max_time_step,
            plane_reuse,
            impact_passes,
            tree_solve,
            limit_rows,
            body_restitution,
            body_contacts,
            limits,
        } = self;
        gravity.hash_state(h);
        substeps.hash_state(h);
        iterations.hash_state(h);
        damping.hash_state(h);
        friction.hash_state(h);
        static_friction.hash_state(h);
        restitution.hash_state(h);
        constraint_order.hash_state(h);
        max_time_step.hash_state(h);
        plane_reuse.hash_state(h);
        impact_passes.hash_state(h);
        tree_solve.hash_state(h);
        if *limit_rows {
            h.write_u64(0x11A1_7005);
        }
        if !*body_restitution {
            h.write_u64(0xB0_0B_CE_0F);
        }
        if *body_contacts {
            h.write_u64(0xB0D1_C0DE);
        }
        limits.hash_state(h);
    }
}

impl<S: Space> WorldDef<S> {
    /// Sets the gravity (m/s²).
    #[must_use]
    pub fn gravity(mut self, gravity: VecOf<S>) -> Self {
        self.gravity = gravity;
        self
    }
    /// Sets the substeps per step.
    #[must_use]
    pub fn substeps(mut self, substeps: u32) -> Self {
        self.substeps = substeps;
        self
    }
    /// Sets the constraint iterations per substep.
    #[must_use]
    pub fn iterations(mut self, iterations: u32) -> Self {
        self.iterations = iterations;
        self
    }
    /// Sets the linear velocity damping rate (1/s).
    #[must_use]
    pub fn damping(mut self, damping: RealOf<S>) -> Self {
        self.damping = damping;
        self
    }
    /// Sets the default dynamic friction coefficient.
    #[must_use]
    pub fn friction(mut self, friction: RealOf<S>) -> Self {
        self.friction = friction;
        self
    }
    /// Sets the default static friction coefficient.
    #[must_use]
    pub fn static_friction(mut self, static_friction: RealOf<S>) -> Self {
        self.static_friction = Some(static_friction);
        self
    }
    /// Sets the default restitution.
    #[must_use]
    pub fn restitution(mut self, restitution: RealOf<S>) -> Self {
        self.restitution = restitution;
        self
    }
    /// Sets the order of the distance projections.
    #[must_use]
    pub fn constraint_order(mut self, order: ConstraintOrder) -> Self {
        self.constraint_order = order;
        self
    }
    /// Sets the longest step accepted (s).
    #[must_use]
    pub fn max_time_step(mut self, max_time_step: RealOf<S>) -> Self {
        self.max_time_step = max_time_step;
        self
    }
    /// Sets the contact planes' reuse distance (m).
    #[must_use]
    pub fn plane_reuse(mut self, plane_reuse: RealOf<S>) -> Self {
        self.plane_reuse = plane_reuse;
        self
    }
    /// Sets the impact passes per substep.
    #[must_use]
    pub fn impact_passes(mut self, impact_passes: u32) -> Self {
        self.impact_passes = impact_passes;
        self
    }

    /// Turns the exact tree solve of rigid distances on or off.
    #[must_use]
    pub fn tree_solve(mut self, on: bool) -> Self {
        self.tree_solve = on;
        self
    }

    /// Turns whole-body restitution on or off (see [`WorldDef::body_restitution`]).
    #[must_use]
    pub fn body_restitution(mut self, on: bool) -> Self {
        self.body_restitution = on;
        self
    }

    /// Turns the joint limits and contact planes as rows of the tree solve on or off (see
    /// [`WorldDef::limit_rows`]).
    #[must_use]
    pub fn limit_rows(mut self, on: bool) -> Self {
        self.limit_rows = on;
        self
    }

    /// Turns contacts between bodies on or off (see [`WorldDef::body_contacts`]).
    #[must_use]
    pub fn body_contacts(mut self, on: bool) -> Self {
        self.body_contacts = on;
        self
    }

    /// Sets what the world may hold (see [`crate::limits`]).
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// What the contact stages read of the settings, for substeps of length `h`.
    pub(crate) fn contact_params(&self, h: RealOf<S>) -> ContactParams<RealOf<S>> {
        ContactParams {
            substeps: self.substeps,
            friction: self.friction,
            static_friction: self.static_friction,
            restitution: self.restitution,
            plane_reuse: self.plane_reuse,
            rest_speed: self.rest_speed(h),
        }
    }

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
            return Err(SinewError::InvalidParameter {
                what: "substeps",
                reason: "must be in 1..=1024",
                value: Some(f64::from(self.substeps)),
            });
        }
        if self.iterations == 0 || self.iterations > 1024 {
            return Err(SinewError::InvalidParameter {
                what: "iterations",
                reason: "must be in 1..=1024",
                value: Some(f64::from(self.iterations)),
            });
        }
        if self.impact_passes > 1024 {
            return Err(SinewError::InvalidParameter {
                what: "impact_passes",
                reason: "must be in 0..=1024",
                value: Some(f64::from(self.impact_passes)),
            });
        }
        for (v, what) in [(self.damping, "damping"), (self.friction, "friction"), (self.plane_reuse, "plane_reuse")] {
            if !v.is_finite() || v < zero {
                return Err(SinewError::InvalidParameter {
                    what,
                    reason: "must be finite and ≥ 0",
                    value: Some(v.to_f64()),
                });
            }
        }
        if let Some(s) = self.static_friction
            && (!s.is_finite() || s < zero)
        {
            return Err(SinewError::InvalidParameter {
                what: "static_friction",
                reason: "must be finite and ≥ 0",
                value: Some(s.to_f64()),
            });
        }
        if !self.restitution.is_finite() || self.restitution < zero || self.restitution > RealOf::<S>::ONE {
            return Err(SinewError::InvalidParameter {
                what: "restitution",
                reason: "must be in [0, 1]",
                value: Some(self.restitution.to_f64()),
            });
        }
        if !self.max_time_step.is_finite() || !(self.max_time_step > zero) {
            return Err(SinewError::InvalidParameter {
                what: "max_time_step",
                reason: "must be > 0",
                value: Some(self.max_time_step.to_f64()),
            });
        }
        Ok(())
    }
}
