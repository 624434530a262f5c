//! Procedural brachiation: a gibbon-style swinging character driven by a ballistic
//! planner, after the "Gibbon: Beyond the Trees" method (a two-point swing rig, grabs
//! with the arm perpendicular to the velocity, a stochastic iterative planner, and a
//! level-of-detail chain of rigs).
//!
//! # The two-point rig and why a perpendicular grab keeps all energy
//!
//! The character is reduced to its centre of mass `c` (a particle of a [`crate::World`]) and
//! one hand `h` on a handhold; the arm is a rigid distance constraint of length `L`
//! between `c` and the (pinned) handhold. Swinging is then a pendulum: with the angle
//! `ψ` of the arm measured from straight down (positive forward),
//! `c = h + L (sin ψ, −cos ψ)`, and the specific energy
//! `e = ½ s² − g L cos ψ` is conserved, so falling speed turns into forward speed:
//! `s(θ)² = s(ψ₀)² + 2 g L (cos θ − cos ψ₀)`.
//!
//! Grabbing is an inelastic event: the rigid arm applies an impulse along itself and so
//! removes the radial component of the velocity and keeps the tangential one. With the
//! velocity `v` at angle `φ` off the perpendicular to the arm, the tangential part is
//! `|v| cos φ` and the kinetic energy kept is `cos² φ`: a grab with the velocity exactly
//! perpendicular to the arm (`φ = 0`) loses nothing, and the swing that follows
//! continues the flight without a jump in velocity. [`rig::SwingRig::grab`] applies
//! exactly that impulse and reports the fraction kept.
//!
//! # The ballistic planner
//!
//! Between grabs the centre of mass flies a parabola
//! `c(t) = c₀ + s d t + ½ g t²`. Released at angle `θ` of the current swing, the launch
//! point is `c₀(θ) = h₀ + L (sin θ, −cos θ)` and the launch direction the pendulum's
//! tangent `d = (cos θ, sin θ)`. To grab the next handhold `h₁` with the arm at angle
//! `β`, the flight must pass through `q(β) = h₁ + L (sin β, −cos β)` with its velocity
//! along `(cos β, sin β)` — perpendicular to the arm. For a parabola between two points
//! `Δ = q − c₀ = (X, Y)` the mean slope is the mean of the end slopes, so the condition is
//! `tan θ + tan β = 2 Y / X`, and the launch speed follows in closed form,
//! `s² = g X² / (2 cos θ (X sin θ − Y cos θ))`, with flight time `X / (s cos θ)`.
//! [`planner`] samples grab angles `β` with a seeded integer RNG, solves the release
//! angle by Newton's method (`c₀` moves with `θ`, so the condition is solved, not read
//! off), scores each candidate (arc height, momentum change over the swing, speeds inside
//! `[min, max]`, effort) and returns the best or an explicit [`planner::NoPlan`].
//! Where the natural pendulum speed at release differs from the launch speed, the
//! character adds or removes the difference over the swing (its effort, bounded and
//! reported).
//!
//! # The course, the character, the baseline, the rigs
//!
//! [`course`] generates endless branch courses (branches, gaps, vines) and the learned
//! brachiation controller's handhold distribution from a seed; [`vine`] hangs each vine in
//! the rig's world as a rope of the rope module, which the planner sees as a pendulum of
//! radius vine + arm about the vine's top; [`character::Brachiator`] runs the character along
//! a course (swing, release, flight, grab; with no plan from a swing it keeps swinging,
//! pumping or braking within a bounded effort, and plans again each forward half-swing:
//! `pump.rs`) or runs the sine-wave baseline ([`sine`], run by `baseline.rs`) on
//! the same course; [`lod`] maps the two-point state up to a 5-point rig and a 14-point
//! rig with two-bone IK and display-bone angles.
//!
//! Everything is generic over the scalar ([`crate::Real`]): in fixed point the course,
//! the plans and the run are bit-exact on every machine.

mod baseline;
pub mod character;
pub mod course;
pub mod lod;
pub mod planner;
mod pump;
pub mod rig;
pub mod rng;
pub mod sine;
pub mod vine;

pub use character::{Brachiator, BrachiatorDef, GrabRecord, Mode, Phase, RunStats};
pub use course::{Course, CourseDef, Handhold, HandholdKind};
pub use lod::{Rig5, Rig14, RigDims};

pub use planner::{NoPlan, Plan, PlannerDef, SwingState, Target};
pub use rig::{GrabReport, SwingRig};
pub use rng::BrachRng;
