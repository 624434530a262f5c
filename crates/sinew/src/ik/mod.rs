//! Inverse kinematics: where the joints of a chain go so that its end reaches a target.
//!
//! Two solvers, both generic over the scalar (`f32`, `f64`, [`crate::Fx`]; in fixed point
//! every call gives the same bits on every machine, since only `+ − × ÷ √ sin cos atan2` of
//! [`Real`](crate::Real) are used) and written once against [`Vector`](crate::Vector) where
//! the math is the same in 2D and 3D:
//!
//! - [`two_bone_2d`] / [`two_bone_3d`]: the closed form for an arm or a leg (law of
//!   cosines; a bend side in 2D, a pole point in 3D);
//! - [`fabrik`] / [`fabrik_free`]: chains of any length, with per-joint limits
//!   ([`AngleRange`] in 2D, [`Cone`] with an optional hinge in 3D). Without limits this is
//!   FABRIK; with limits it is by default a projected damped least-squares solve
//!   ([`LimitSolver::ProjectedDls`], "Joint limits" below), FABRIK's own limited passes
//!   being kept as [`LimitSolver::Passes`].
//!
//! Range in fixed point: Q32.32 holds ±2³¹, and squared distances must fit, so keep
//! `|target − root|` and the chain's length below ~2¹⁵ m (directions are normalised after
//! dividing by the largest component, so short vectors keep their precision).
//!
//! They work on plain slices of positions; [`ParticleChain`] reads a chain of particles out
//! of a [`ParticleSet`](crate::particle::ParticleSet) (a world's, through
//! `World::particles`) and writes a solution back as kinematic targets or a teleport.
//! Nothing here steps a simulation: a solution is a pose, which a caller can also hand to
//! pose drives as targets.
//!
//! # Theory
//!
//! ## Two bones
//!
//! A chain `root → mid → end` with bone lengths `l1`, `l2` and a target at distance `d`
//! from the root along the unit direction `t̂`. The end can reach exactly the points with
//! `|l1 − l2| ≤ d ≤ l1 + l2` (triangle inequality), so `d` is first clamped into that
//! annulus: beyond `l1 + l2` the clamped solution is the straight chain toward the target
//! (the nearest reachable point), below `|l1 − l2|` the fully folded one. In the triangle
//! (root, mid, end) the law of cosines gives the middle joint's projection `a` on `t̂` and
//! its distance `h` from the line:
//!
//! ```text
//! l2² = l1² + d² − 2 d a     ⇒   a = (l1² − l2² + d²) / (2d)
//! h² = l1² − a² = (l1 − a)(l1 + a)
//! mid = root + a t̂ + h b̂,       end = root + d t̂
//! ```
//!
//! where `b̂ ⟂ t̂` is the unit bend direction. Both bone lengths hold by construction
//! (`|mid − root|² = a² + h² = l1²`, `|end − mid|² = (d − a)² + h² = l2²`) and the end is
//! exactly at the clamped target; the only freedom left is `b̂`. In 2D it is one of the two
//! normals of `t̂`, chosen by a sign ([`Bend`]); in 3D it is a circle's worth, fixed by a
//! pole point `P`: `b̂` is the part of `P − root` orthogonal to `t̂` (one Gram–Schmidt step),
//! so the middle joint lies in the plane through root, target and pole, on the pole's side.
//! `h` is computed from the factored form so that near full extension (`a → l1`) it does
//! not lose digits to cancellation.
//!
//! ## FABRIK
//!
//! Forward And Backward Reaching Inverse Kinematics (A. Aristidou and J. Lasenby,
//! "FABRIK: A fast, iterative solver for the Inverse Kinematics problem", *Graphical
//! Models* 73(5), 2011). For joints `p₀ … p_{n−1}`, root `p₀` fixed, bone lengths
//! `lᵢ = |p_{i+1} − pᵢ|`, target `t`, one iteration is two passes of "move a joint to the
//! point at the bone's length on the line toward its neighbour":
//!
//! ```text
//! forward:   p_{n−1} ← t;   for i = n−2 … 0:  pᵢ ← p_{i+1} + lᵢ · (pᵢ − p_{i+1}) / |pᵢ − p_{i+1}|
//! backward:  p₀ ← root;     for i = 0 … n−2:  p_{i+1} ← pᵢ + lᵢ · (p_{i+1} − pᵢ) / |p_{i+1} − pᵢ|
//! ```
//!
//! Each step is the exact projection of one joint onto the sphere (circle) of radius `lᵢ`
//! about its neighbour, so after every pass every bone has its length up to rounding (one
//! normalisation and one multiply-add per bone), and the chain is never stretched as
//! Jacobian methods' linearised steps stretch it. Iterations stop when `|p_{n−1} − t|` is at
//! most the tolerance or at the iteration cap; the report gives both. A target beyond the
//! chain's total length is answered directly by the straight chain toward it (the paper's
//! first branch).
//!
//! ## Reach matching
//!
//! Plain FABRIK straightens a bent chain slowly: for targets beyond ~0.92 of the length of
//! a 10-joint chain bent 10° at every joint it needs more than 20 iterations to come within
//! 1e-3 of the length (measured: 878 of 1000 random reachable targets in 2D, 820 in 3D;
//! `tests/suite/ik.rs`), and a target behind the chain's curl is slow too. Without limits
//! this crate therefore first poses the chain by a cheap exact step ([`Fabrik::reach_match`],
//! on by default): with `c` the unit chord (root → end) of the current pose and `d` the
//! target's distance, if `d` exceeds the chord's length every bone direction `uᵢ` is replaced
//! by `(uᵢ + s c)/|uᵢ + s c|`, the reach `|Σ lᵢ uᵢ(s)|` growing from the chord's length at
//! `s = 0` to the full length as `s → ∞`; `s` is found by bisection (the reach is
//! continuous, so the bisection lands on `d`). Then the whole chain turns about the root so
//! that its chord points at the target, which puts the end on the target. The turn is built
//! from two reflections (`x ↦ x − 2n(n·x)`, in the planes normal to the bisector of the two
//! directions and to the target direction), so the same code turns 2D and 3D chains. The
//! pose keeps the chain's shape as far as the reach allows; FABRIK's iterations then only
//! polish (measured mean 1.1–1.3 iterations, at most 7). A nearly straight chain (chord over
//! 99 % of the length) aimed at a nearer target is left alone: turned onto the line to the
//! target, FABRIK's passes could not bend it.
//!
//! ## Joint limits
//!
//! The limit shapes: in 2D a signed angle range `θ = atan2(u × v, u · v) ∈ [min, max]`
//! between the parent bone `u` and the child bone `v` (the convention of
//! [`AngleLimit`](crate::AngleLimit)), projected by turning the reference bone by the nearer
//! bound; in 3D a cone `∠(u, v) ≤ swing_max` (the swing of
//! [`SwingTwistLimit`](crate::SwingTwistLimit)), projected onto the cone's edge in the plane
//! of the two bones, or a hinge: the bone projected into the plane normal to a world axis,
//! the signed angle about the axis clamped into a range ([`IkLimit`]).
//!
//! **FABRIK's passes** (paper §4.2, [`LimitSolver::Passes`]): in the backward pass, after the
//! parent bone `u_{i−1}` is placed, the child's direction `uᵢ` is replaced by the nearest
//! admissible one ([`IkLimit::clamp_child`]); in the forward pass the parent's direction is
//! projected about the child bone just placed ([`IkLimit::clamp_parent`]). It is cheap, but
//! with limits FABRIK has no convergence proof and in practice stalls: on a 10-joint chain
//! and 1000 targets reached by random limit-respecting poses it converged (1e-3·L in ≤ 20
//! iterations) for 672 with 2D ranges of −20°…70° (stuck at up to 0.6·L: a pose the
//! limits make hard to leave) and 876 with 3D cones of 40° (slow: worst 1.1e-2·L).
//!
//! **Projected damped least squares** ([`LimitSolver::ProjectedDls`], the default; a
//! Jacobian method, not FABRIK). With bone directions `uᵢ`, joints `pᵢ`, end
//! `e = p₀ + Σ lᵢ uᵢ` and target `t`, turning the bones `i …` about `pᵢ` by a small rotation
//! `ωᵢ` moves the end by `ωᵢ × aᵢ`, with the lever `aᵢ = e − pᵢ` (in 2D `ωᵢ` is a scalar and
//! `ωᵢ × aᵢ = ωᵢ a⊥ᵢ`). Damped least squares (C. W. Wampler, "Manipulator inverse kinematic
//! solutions based on vector formulations and damped least-squares methods", *IEEE Trans.
//! SMC* 16(1), 1986; Y. Nakamura and H. Hanafusa, "Inverse kinematic solutions with
//! singularity robustness for robot manipulator control", *J. Dyn. Sys. Meas. Control*
//! 108(3), 1986; survey: S. R. Buss, "Introduction to inverse kinematics with Jacobian
//! transpose, pseudoinverse and damped least squares methods", 2004) takes the step
//!
//! ```text
//! ω = Jᵀ (J Jᵀ + λ² I)⁻¹ r,   r = t − e,   J Jᵀ = Σᵢ (|aᵢ|² I − aᵢ aᵢᵀ)   (2D and 3D alike)
//! ```
//!
//! so with `y` the solution of the `DIM × DIM` symmetric positive definite system
//! `(Σᵢ (|aᵢ|² I − aᵢ aᵢᵀ) + λ² I) y = r` (conjugate gradients, exact after `DIM` steps),
//! each joint turns by `ωᵢ = aᵢ × y`: by the angle `φᵢ = |aᵢ| |y⊥ᵢ|`, `y⊥ᵢ` the part of `y`
//! normal to `aᵢ`, in the plane of `aᵢ` and `y⊥ᵢ` — a rotation written with dot products
//! only (two reflections), so the code is the same in 2D and 3D. `λ = 0.04·L` keeps the
//! step bounded near a straight (singular) chain, and `φᵢ ≤ 0.4 rad` keeps it within the
//! linearisation; joints are turned tip first. Then the limits: the directions are projected
//! root to tip by [`IkLimit::clamp_child`] (the backward pass's projection), so every pose
//! satisfies every limit. A joint the projection moved sits on a limit and would waste the
//! next step pushing into it: it is left out of the next step's Jacobian, its column
//! dropped, so that the free joints take the motion (the clamping loop of P. Baerlocher and
//! R. Boulic, "An inverse kinematics architecture enforcing an arbitrary number of strict
//! priority levels", *The Visual Computer* 20(6), 2004), and reconsidered the step after.
//! Near a solution the step is Gauss–Newton's and the residual falls quadratically.
//!
//! Limits leave local minima (a chain curled the wrong way round cannot uncurl within its
//! ranges by small steps). When the residual has not halved over 3 steps the solve restarts
//! from a rest pose of the limits ([`IkLimit::rest`]: for ranges and hinges the middle of
//! each range, then a quarter and three quarters of the way, then the straightest angle; for
//! cones the straight chain, then curls of half the cone each way), at most 4 times, never
//! twice from the same pose, inside the same iteration budget; the pose with the smallest
//! residual is returned. Measured on the tests' 10-joint chains, 1000 targets reached by
//! random limit-respecting poses, 20 iterations, 1e-3·L: 1000/1000 with the 2D ranges
//! (mean 4.3 iterations, at most 16) and 1000/1000 with the 3D cones (mean 6.0, at most 12),
//! limits held to 1e-15 rad and bone lengths to 1e-16·L; on ten further random limit sets
//! 998–1000 of 1000 (`tests/suite/ik.rs`). No convergence proof: the report's residual is
//! what to read.
//!
//! Cost: FABRIK is `O(n)` per iteration, one square root (and with limits an `atan2` or two
//! in 2D) per bone per pass. A damped least-squares step is `O(n²)` vector operations (each
//! joint's turn is applied to the bones beyond it) plus one sine and cosine per joint.

mod dls;
mod fabrik;
mod limits;
mod particles;
mod two_bone;

pub use dls::LimitSolver;
pub use fabrik::{Fabrik, FabrikReport, bone_lengths, fabrik, fabrik_free};
pub use limits::{AngleRange, Cone, Free, Hinge, IkLimit};
pub use particles::ParticleChain;
pub use two_bone::{Bend, Reach, TwoBone, two_bone, two_bone_2d, two_bone_3d};
