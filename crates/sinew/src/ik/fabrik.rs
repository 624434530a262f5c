//! FABRIK (Aristidou & Lasenby 2011) on an n-joint chain with optional joint limits,
//! written once for 2D and 3D (see the module docs of [`crate::ik`] for the method); a chain
//! with limits is handed to [`super::dls`] unless [`LimitSolver::Passes`] is asked for.

use super::dls::{self, LimitSolver};
use super::limits::{Free, IkLimit};
use super::two_bone::unit_and_length;
use crate::math::{Real, Vector};

/// Settings of a FABRIK solve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fabrik<R> {
    /// At most this many iterations (one forward and one backward pass each; with limits
    /// and [`LimitSolver::ProjectedDls`], one damped least-squares step each).
    pub max_iterations: u32,
    /// Stop when the end is within this distance of the target (m).
    pub tolerance: R,
    /// Before iterating on a chain without limits, pose it so that its end is already on
    /// the target where one cheap step can do it: turn the whole chain about the root so
    /// that its chord (root → end) points at the target, after first straightening it just
    /// enough (each bone's direction blended toward the chord) when the target is farther
    /// than the end is now. See [`crate::ik`], "Reach matching". Off: plain FABRIK.
    pub reach_match: bool,
    /// How a chain with joint limits is solved (see [`crate::ik`], "Joint limits"); a chain
    /// without limits always runs FABRIK's passes.
    pub limit_solver: LimitSolver,
}

impl<R: Real> Fabrik<R> {
    /// `max_iterations` iterations at most, stopping within `tolerance` (m) of the target.
    #[must_use]
    pub fn new(max_iterations: u32, tolerance: R) -> Self {
        Self { max_iterations, tolerance, reach_match: true, limit_solver: LimitSolver::ProjectedDls }
    }

    /// The same settings with reach matching on or off (plain FABRIK).
    #[must_use]
    pub fn reach_match(mut self, on: bool) -> Self {
        self.reach_match = on;
        self
    }

    /// The same settings with another solver for chains with joint limits.
    #[must_use]
    pub fn limit_solver(mut self, solver: LimitSolver) -> Self {
        self.limit_solver = solver;
        self
    }
}

impl<R: Real> Default for Fabrik<R> {
    /// 20 iterations, 1 mm, reach matching on, limits by [`LimitSolver::ProjectedDls`].
    fn default() -> Self {
        Self::new(20, R::from_ratio(1, 1000))
    }
}

/// What a FABRIK solve did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FabrikReport<R> {
    /// Iterations run (0 when the end was already within the tolerance, or on invalid input).
    pub iterations: u32,
    /// Distance from the end joint to the target after the solve (m); [`Real::MAX`] on
    /// invalid input.
    pub residual: R,
    /// True when `residual ≤ tolerance`.
    pub converged: bool,
    /// True when the reach-matching step ([`Fabrik::reach_match`]) moved the chain before
    /// the iterations (it then often leaves none to do).
    pub reach_matched: bool,
    /// Restarts of the limited solve ([`LimitSolver::ProjectedDls`]) from the limits' rest
    /// pose after a stall; 0 for the other solves.
    pub restarts: u32,
    /// False when the input was refused and the joints left unchanged: fewer than two
    /// joints, `lengths.len() ≠ joints.len() − 1`, a limit list neither empty nor one per
    /// bone, or a non-finite target, joint or length (floats only).
    pub valid: bool,
}

/// The bone lengths of a chain: `|joints[i+1] − joints[i]|` (empty for fewer than 2 joints).
#[must_use]
pub fn bone_lengths<R: Real, V: Vector<R>>(joints: &[V]) -> Vec<R> {
    joints.windows(2).map(|w| w[0].distance(w[1])).collect()
}

/// Unit direction of `v`, or `fallback` when `v` is (nearly) zero.
#[inline]
pub(super) fn dir_or<R: Real, V: Vector<R>>(v: V, fallback: V) -> V {
    let u = unit_and_length(v).0;
    if u == V::ZERO { fallback } else { u }
}

/// A unit vector along the first axis (the fallback direction of a degenerate chain).
#[inline]
pub(super) fn first_axis<R: Real, V: Vector<R>>() -> V {
    let mut v = V::ZERO;
    v.set(0, R::ONE);
    v
}

/// FABRIK without joint limits: moves `joints[1..]` so that the last joint reaches
/// `target`, `joints[0]` (the root) fixed and every bone `i` (from joint `i` to `i + 1`)
/// of length `lengths[i]`. A target out of reach (farther than the chain's length) gives
/// the chain straight toward it in one step, as in the paper. See [`fabrik`].
pub fn fabrik_free<R: Real, V: Vector<R>>(
    joints: &mut [V],
    lengths: &[R],
    target: V,
    settings: &Fabrik<R>,
) -> FabrikReport<R> {
    fabrik::<R, V, Free>(joints, lengths, target, &[], None, settings)
}

/// FABRIK with joint limits: as [`fabrik_free`], each bone's direction kept within its
/// limit relative to its parent bone's.
///
/// `limits` is empty (no limits) or has one limit per bone: `limits[i]` constrains bone `i`
/// relative to bone `i − 1`, and `limits[0]` constrains bone 0 relative to `base` (the
/// direction of the bone the chain hangs from, e.g. the clavicle for an arm); with `base`
/// `None`, `limits[0]` is not used. With limits the solve is chosen by
/// [`Fabrik::limit_solver`]: by default ([`LimitSolver::ProjectedDls`]) damped least-squares
/// steps on the joint rotations, each projected into the limits, with restarts from the
/// limits' rest poses on a stall (a Jacobian method, not FABRIK; see [`crate::ik`], "Joint
/// limits"); or FABRIK's passes ([`LimitSolver::Passes`]): a forward pass (end to target,
/// joints pulled toward it, each parent bone's direction projected into its limit about the
/// child bone just placed) and a backward pass (root back in place, each child bone
/// projected into its limit about its parent). Either way the returned pose satisfies every
/// limit and every bone length, up to rounding, and counts its steps in `max_iterations`;
/// with limits a target may be unreachable and the report then says how near the chain
/// came. A joint that lands on its neighbour keeps the neighbour's bone direction (or +x):
/// no NaN.
///
/// Invalid input (see [`FabrikReport::valid`]) leaves the joints unchanged.
pub fn fabrik<R: Real, V: Vector<R>, L: IkLimit<R, V>>(
    joints: &mut [V],
    lengths: &[R],
    target: V,
    limits: &[L],
    base: Option<V>,
    settings: &Fabrik<R>,
) -> FabrikReport<R> {
    let n = joints.len();
    let invalid = FabrikReport {
        iterations: 0,
        residual: R::MAX,
        converged: false,
        reach_matched: false,
        restarts: 0,
        valid: false,
    };
    if n < 2 || lengths.len() != n - 1 || !(limits.is_empty() || limits.len() == n - 1) || !target.is_finite() {
        return invalid;
    }
    if joints.iter().any(|j| !j.is_finite()) || lengths.iter().any(|l| !l.is_finite() || *l < R::ZERO) {
        return invalid;
    }
    let base = base.map(|b| unit_and_length(b).0).filter(|b| *b != V::ZERO);
    let tol = settings.tolerance.max(R::ZERO);
    let root = joints[0];
    let residual = joints[n - 1].distance(target);
    if residual <= tol {
        return FabrikReport {
            iterations: 0,
            residual,
            converged: true,
            reach_matched: false,
            restarts: 0,
            valid: true,
        };
    }
    if limits.is_empty() {
        let total = lengths.iter().fold(R::ZERO, |s, l| s + *l);
        let (dir, dist) = unit_and_length(target - root);
        if dist >= total {
            // Out of reach: every bone straight toward the target (Aristidou & Lasenby,
            // Algorithm 1, first branch); the iterations could only approach this.
            let dir = if dir == V::ZERO { first_axis() } else { dir };
            for i in 0..n - 1 {
                joints[i + 1] = joints[i] + dir * lengths[i];
            }
            let residual = joints[n - 1].distance(target);
            return FabrikReport {
                iterations: 1,
                residual,
                converged: residual <= tol,
                reach_matched: false,
                restarts: 0,
                valid: true,
            };
        }
    }
    if !limits.is_empty() && settings.limit_solver == LimitSolver::ProjectedDls {
        let out = dls::solve(joints, lengths, target, limits, base, settings);
        return FabrikReport {
            iterations: out.iterations,
            residual: out.residual,
            converged: out.residual <= tol,
            reach_matched: false,
            restarts: out.restarts,
            valid: true,
        };
    }
    let mut residual = residual;
    let mut reach_matched = false;
    if limits.is_empty() && settings.reach_match {
        reach_match(joints, lengths, target);
        residual = joints[n - 1].distance(target);
        reach_matched = true;
        if residual <= tol {
            return FabrikReport { iterations: 0, residual, converged: true, reach_matched, restarts: 0, valid: true };
        }
    }
    let mut iterations = 0;
    while iterations < settings.max_iterations {
        iterations += 1;
        // Forward pass: the end on the target, each joint pulled onto the line toward its
        // (already placed) child at the bone's length.
        joints[n - 1] = target;
        let mut child_dir: Option<V> = None;
        for i in (0..n - 1).rev() {
            let fallback = child_dir.unwrap_or_else(first_axis);
            let mut u = dir_or(joints[i + 1] - joints[i], fallback);
            if let (Some(c), Some(lim)) = (child_dir, limits.get(i + 1)) {
                u = lim.clamp_parent(c, u);
            }
            joints[i] = joints[i + 1] - u * lengths[i];
            child_dir = Some(u);
        }
        // Backward pass: the root back in place, each joint placed from its parent.
        joints[0] = root;
        let mut parent_dir = base;
        for i in 0..n - 1 {
            let fallback = parent_dir.unwrap_or_else(first_axis);
            let mut u = dir_or(joints[i + 1] - joints[i], fallback);
            if let (Some(p), Some(lim)) = (parent_dir, limits.get(i)) {
                u = lim.clamp_child(p, u);
            }
            joints[i + 1] = joints[i] + u * lengths[i];
            parent_dir = Some(u);
        }
        residual = joints[n - 1].distance(target);
        if residual <= tol {
            break;
        }
    }
    FabrikReport { iterations, residual, converged: residual <= tol, reach_matched, restarts: 0, valid: true }
}

/// The reach of a chain whose bone `i` points along `dir_or(uᵢ + s·c, c)`.
#[inline]
fn blended_reach<R: Real, V: Vector<R>>(dirs: &[V], lengths: &[R], c: V, s: R) -> V {
    dirs.iter().zip(lengths).fold(V::ZERO, |acc, (u, l)| acc + dir_or(*u + c * s, c) * *l)
}

/// `x` reflected in the plane through the origin normal to the unit vector `n`.
#[inline]
fn reflect<R: Real, V: Vector<R>>(x: V, n: V) -> V {
    x - n * (R::TWO * n.dot(x))
}

/// Reach matching (see [`Fabrik::reach_match`]): straighten the chain just enough (if the
/// target is farther than the end), then turn it rigidly about the root so that the end
/// points at the target (not when the target is nearer and the chain nearly straight). The
/// target is within the chain's length (checked by the caller).
fn reach_match<R: Real, V: Vector<R>>(joints: &mut [V], lengths: &[R], target: V) {
    let n = joints.len();
    let root = joints[0];
    let (b, d) = unit_and_length(target - root);
    if b == V::ZERO {
        return;
    }
    let mut dirs: Vec<V> = Vec::with_capacity(n - 1);
    let mut prev = first_axis::<R, V>();
    for i in 0..n - 1 {
        prev = dir_or(joints[i + 1] - joints[i], prev);
        dirs.push(prev);
    }
    let chord = blended_reach(&dirs, lengths, first_axis(), R::ZERO);
    let c = dir_or(chord, b);
    let reach = chord.length();
    let total = lengths.iter().fold(R::ZERO, |s, l| s + *l);
    if reach >= d && reach * R::from_ratio(100, 99) >= total {
        // A chain straighter than 99 % of its length, turned to point at a nearer target,
        // would lie (nearly) on the line to it, where FABRIK's passes keep it: leave it.
        return;
    }
    if reach < d {
        // The reach grows from |chord| (s = 0) toward the full length (s → ∞, every bone
        // along c): bracket s by doubling, then bisect (continuity is enough for the
        // bisection to land on the target distance; the bracket is capped at 2²⁰, where
        // every bone is within 1e-6 rad of c, as fixed point's range requires).
        let (mut lo, mut hi) = (R::ZERO, R::ONE);
        let cap = R::from_i32(1 << 20);
        while blended_reach(&dirs, lengths, c, hi).length() < d && hi < cap {
            lo = hi;
            hi *= R::TWO;
        }
        for _ in 0..48 {
            let mid = (lo + hi) * R::HALF;
            if mid <= lo || mid >= hi {
                break;
            }
            if blended_reach(&dirs, lengths, c, mid).length() < d {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        for u in &mut dirs {
            *u = dir_or(*u + c * hi, c);
        }
    }
    // Turn the chord onto the target direction: two reflections (in the plane normal to the
    // bisector m of a and b, then in the plane normal to b) make the rotation by the angle
    // between them about a × b, in any dimension (a = −b: any m ⟂ a, a half turn).
    let a = dir_or(blended_reach(&dirs, lengths, c, R::ZERO), b);
    let m = dir_or(a + b, a.any_orthogonal());
    for i in 0..n - 1 {
        let u = reflect(reflect(dirs[i], m), b);
        joints[i + 1] = joints[i] + u * lengths[i];
    }
}
