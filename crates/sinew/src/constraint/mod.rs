//! Constraints, one file per type, all solved with XPBD (Macklin, Müller, Chentanez 2016).
//!
//! # The method
//! Each constraint is a scalar function `C(x) = 0` (or `C(x) ≥ 0` / `≤ 0` for one-sided
//! constraints) of a few particle positions, with a *compliance* `α` (inverse stiffness,
//! m/N for a distance) and optional damping `β`. Every substep of length `h`, with the
//! multiplier `λ` reset to 0, one projection computes
//!
//! ```text
//! α̃ = α / h²,   γ = α·β / h
//! Δλ = (−C − α̃·λ − γ·∇C·(x − x_prev)) / ((1 + γ)·Σ wᵢ|∇Cᵢ|² + α̃)
//! λ += Δλ,      xᵢ += wᵢ·∇Cᵢ·Δλ
//! ```
//!
//! where `wᵢ = 1/mᵢ` (0 for pinned particles). Because `α̃` scales with `1/h²`, the
//! stiffness that results does not depend on the substep or iteration count — the point of
//! XPBD — and `λ / h²` is the constraint force in newtons. Small steps with one iteration
//! each beat many iterations of one big step (Macklin et al. 2019, "Small Steps in Physics
//! Simulation"), so the default is 8 substeps × 1 iteration.
//!
//! Sign convention: for a distance-like constraint, `C > 0` means stretched, `λ < 0` then,
//! and the reported tension `−λ/h²` is positive.
//!
//! # Example
//!
//! ```
//! use sinew::prelude::*;
//!
//! // A 2 kg weight on a soft 1 m link (compliance α = 1 mm/N) under a pin: it settles
//! // α·m·g = 19.6 mm lower, and the link's tension reads its weight, m·g.
//! let mut world = World2d::new(WorldDef::default().damping(5.0))?; // damping settles it
//! let pin = world.add_particle(&ParticleDef::at(Vector2::new(0.0, 0.0)).mass(0.0))?;
//! let bob = world.add_particle(&ParticleDef::at(Vector2::new(0.0, -1.0)).mass(2.0))?;
//! let link = world.add_distance(&DistanceDef::new(pin, bob).compliance(1e-3))?; // rest: as placed
//! for _ in 0..180 {
//!     world.step(1.0 / 60.0)?;
//! }
//! let stretch = -world.particles().position(bob).unwrap().y - 1.0;
//! assert!((stretch - 1e-3 * 2.0 * 9.81).abs() < 1e-4, "{stretch} m");
//! assert!((world.distance_tension(link)? - 2.0 * 9.81).abs() < 0.01);
//!
//! // Compliance 0 is rigid; a unilateral distance only pulls (a rope link); a tether only
//! // stops a particle from going farther than its length from an anchor.
//! world.set_distance_compliance(link, 0.0)?;
//! world.step(1.0 / 60.0)?;
//! assert!((world.particles().position(bob).unwrap().y + 1.0).abs() < 1e-6);
//! # Ok::<(), SinewError>(())
//! ```

mod angle_limit;
mod attachment;
mod bending;
pub(crate) mod blocks;
mod distance;
pub(crate) mod group_solve;
pub(crate) mod groups;
mod link_rows;
pub(crate) mod order;
pub(crate) mod sweep;
mod swing_twist_limit;
mod tether;
pub mod tree;

pub use angle_limit::{AngleLimit, AngleLimitDef};
pub use attachment::{Attachment, AttachmentDef, AttachmentHandle};
pub use bending::{Bending, BendingDef, BendingHandle};
pub use distance::{Distance, DistanceDef, DistanceHandle};
pub use order::ConstraintOrder;
pub use swing_twist_limit::{SwingTwistLimit, SwingTwistLimitDef};
pub use tether::{Tether, TetherDef, TetherHandle};

pub(crate) use link_rows::LinkRows;

use crate::arena::define_handle;
use crate::dim::{BaseSpace as Space, Space2, Space3};
use crate::math::Real;
use crate::particle::ParticleSet;

define_handle!(
    /// A joint limit ([`AngleLimit`] in 2D, [`SwingTwistLimit`] in 3D) in a [`crate::World`].
    JointLimitHandle
);

/// A dimension with its joint limit: [`AngleLimit`] in 2D, [`SwingTwistLimit`] in 3D (a
/// layer of [`crate::Space`]).
pub trait JointSpace: Space {
    /// The joint-limit constraint.
    type JointLimit: JointLimit<Self>;
}

impl<R: Real> JointSpace for Space2<R> {
    type JointLimit = AngleLimit<R>;
}

impl<R: Real> JointSpace for Space3<R> {
    type JointLimit = SwingTwistLimit<R>;
}

/// Per-substep constants shared by every projection.
#[derive(Clone, Copy, Debug)]
pub struct SubstepContext<R> {
    /// Substep length `h` (s).
    pub h: R,
    /// `1 / h`.
    pub inv_h: R,
    /// `1 / h²`.
    pub inv_h2: R,
}

impl<R: Real> SubstepContext<R> {
    /// Context for a substep of length `h > 0`.
    #[must_use]
    pub fn new(h: R) -> Self {
        let inv_h = R::ONE / h;
        Self { h, inv_h, inv_h2: inv_h * inv_h }
    }
}

/// The dimension-specific joint limit stored by a world: [`AngleLimit`] in 2D,
/// [`SwingTwistLimit`] in 3D. (Its solver methods live in a sealed supertrait: a world's
/// limits are built from their definitions and solved by the world only.)
pub trait JointLimit<S: Space>:
    solver::JointLimitSolver<S> + crate::state::SavedState + core::fmt::Debug + Send + Sync + 'static
{
    /// The definition used to create it.
    type Def: Clone + core::fmt::Debug;
    /// Builds the limit from its definition, given the current particle positions.
    fn from_def(def: &Self::Def, particles: &ParticleSet<S>) -> Result<Self, crate::SinewError>;
    /// Particle slot indices the limit reads and writes.
    fn particle_indices(&self) -> Vec<usize>;
    /// How far outside its allowed range the joint is now (radians, 0 when inside).
    fn violation(&self, particles: &ParticleSet<S>) -> S::Real;
    /// Multipliers (for read-outs).
    fn multipliers(&self) -> Vec<S::Real>;
}

/// The solver side of a joint limit, sealed: public so that [`JointLimit`] can name it,
/// in a private module so that no one outside the crate can call or implement it.
pub(crate) mod solver {
    use super::SubstepContext;
    use crate::dim::BaseSpace as Space;
    use crate::particle::ParticleSet;

    /// How the world projects and directly solves a joint limit.
    pub trait JointLimitSolver<S: Space> {
        /// Projects the limit once.
        fn solve(&mut self, particles: &mut ParticleSet<S>, ctx: &SubstepContext<S::Real>);
        /// Resets the multipliers at the start of a substep.
        fn reset(&mut self);
        /// Whether the world's impact passes solve groups with limits of this kind
        /// directly (their links, violated limits and contacts at once, see `group_solve`)
        /// rather than by extra Gauss–Seidel projections; the limit must then give its rows
        /// through [`violated_rows`](Self::violated_rows).
        const DIRECT_ROWS: bool = false;
        /// The parts of the limit outside their range now, as rows of a direct solve; none
        /// by default.
        fn violated_rows(&self, _particles: &ParticleSet<S>, _out: &mut Vec<LimitRow<S>>) {}
        /// Whether the limit may be outside its range now (a cheap test; `true` sends the
        /// tree solve to [`violated_rows`](Self::violated_rows)).
        fn outside(&self, _particles: &ParticleSet<S>) -> bool {
            true
        }
        /// Adds `dl` to the multiplier of the `part`-th row
        /// [`violated_rows`](Self::violated_rows) gave (after the direct solve).
        fn add_row_lambda(&mut self, _part: usize, _dl: S::Real) {}
    }

    /// One part of a joint limit outside its range, as a row of a direct solve: the
    /// particles it moves, the gradient of its constraint `C` at each, `C` itself (negative
    /// below the range, positive above it) and its compliance.
    #[derive(Clone, Copy, Debug)]
    pub struct LimitRow<S: Space> {
        /// Particle slots (the first `len`).
        pub particles: [u32; 5],
        /// `∇C` at each particle.
        pub gradients: [S::Vector; 5],
        /// Particles in the row (at most 5).
        pub len: usize,
        /// `C`: how far outside the range (rad).
        pub c: S::Real,
        /// Compliance (rad/(N·m)).
        pub compliance: S::Real,
        /// The multiplier this part has accumulated in the substep.
        pub lambda: S::Real,
    }
}

pub(crate) use solver::{JointLimitSolver, LimitRow};

/// The XPBD update for one scalar constraint; returns `Δλ`.
///
/// `c` constraint value, `w_grad2` = Σ wᵢ|∇Cᵢ|², `lambda` current multiplier,
/// `alpha_t` = α/h², `gamma` = αβ/h, `c_dot_h` = ∇C·(x − x_prev).
#[inline]
pub(crate) fn xpbd_delta_lambda<R: Real>(c: R, w_grad2: R, lambda: R, alpha_t: R, gamma: R, c_dot_h: R) -> R {
    let denom = (R::ONE + gamma) * w_grad2 + alpha_t;
    if denom == R::ZERO {
        return R::ZERO;
    }
    (-c - alpha_t * lambda - gamma * c_dot_h) / denom
}
