//! The limited solve of [`super::fabrik`] ([`LimitSolver::ProjectedDls`]): damped least
//! squares on the joint rotations, each step projected back into the joint limits, joints
//! held at a limit left out of the next step, and a restart from the limits' rest pose when
//! the residual stalls (see the module docs of [`crate::ik`], "Joint limits", for the
//! method, its maths and its sources).
//!
//! Written once against [`Vector`]: the step needs only dot products, the solve of a
//! `DIM × DIM` symmetric positive definite system (conjugate gradients, exact after `DIM`
//! steps) and rotations built from two reflections, so the same code runs 2D and 3D chains
//! in `f32`, `f64` and fixed point.

use super::fabrik::{Fabrik, dir_or, first_axis};
use super::limits::IkLimit;
use super::two_bone::unit_and_length;
use crate::math::{Real, Vector};

/// How [`super::fabrik`] solves a chain that has joint limits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LimitSolver {
    /// Damped least squares on the joint rotations, each step projected into the limits,
    /// with an active set and restarts on a stall (the default: in the tests it converges
    /// on every one of 1000 targets that random limit-respecting poses reach, 2D and 3D).
    #[default]
    ProjectedDls,
    /// FABRIK's own passes with the limits applied in both (Aristidou & Lasenby 2011,
    /// §4.2): cheap, but stalls on a good share of reachable targets (about a third with
    /// the tests' 2D ranges); kept for comparison.
    Passes,
}

/// The damping `λ` of each step, as a fraction of the chain's length.
const DAMPING: (i32, i32) = (4, 100);
/// The largest rotation of one joint in one step (rad).
const MAX_STEP: (i32, i32) = (4, 10);
/// A restart when the residual has not halved over this many steps.
const STALL_WINDOW: usize = 3;
/// At most this many restarts per solve.
const MAX_RESTARTS: u32 = 4;

/// The end of a chain whose bone `i` points along `dirs[i]` from `root`.
#[inline]
fn end_of<R: Real, V: Vector<R>>(root: V, dirs: &[V], lengths: &[R]) -> V {
    dirs.iter().zip(lengths).fold(root, |p, (u, l)| p + *u * *l)
}

/// `x` turned by the rotation that takes the unit `a` to the unit `b` in their plane (two
/// reflections: in the plane normal to the bisector of `a` and `b`, then in the plane normal
/// to `b`; for `a = −b` a half turn about any normal).
#[inline]
fn turn_by<R: Real, V: Vector<R>>(x: V, a: V, b: V) -> V {
    let m = dir_or(a + b, a.any_orthogonal());
    let y = x - m * (R::TWO * m.dot(x));
    y - b * (R::TWO * b.dot(y))
}

/// Projects the directions into the limits, root to tip (the backward pass's projection):
/// `dirs[i]` about `dirs[i − 1]` (bone 0 about `base`, unconstrained without one). Marks in
/// `held` the joints the projection moved (they sit on a limit).
fn project<R: Real, V: Vector<R>, L: IkLimit<R, V>>(dirs: &mut [V], limits: &[L], base: Option<V>, held: &mut [bool]) {
    let mut parent = base;
    for (i, u) in dirs.iter_mut().enumerate() {
        if let Some(p) = parent {
            let c = limits[i].clamp_child(p, *u);
            held[i] = c != *u;
            *u = c;
        } else {
            held[i] = false;
        }
        parent = Some(*u);
    }
}

/// The rest pose of attempt `attempt` (1, 2, …): each bone at its limit's
/// [`IkLimit::rest`] direction about its parent (bone 0 about `base`, or kept without one).
fn rest_pose<R: Real, V: Vector<R>, L: IkLimit<R, V>>(dirs: &mut [V], limits: &[L], base: Option<V>, attempt: u32) {
    let mut parent = base;
    for (i, u) in dirs.iter_mut().enumerate() {
        if let Some(p) = parent {
            *u = limits[i].rest(p, attempt);
        }
        parent = Some(*u);
    }
}

/// One damped least-squares step (see the module docs of [`crate::ik`]): the joint
/// rotations that move the end toward `target` (joints in `held` left out), then the
/// projection into the limits.
#[allow(clippy::too_many_arguments)]
fn step<R: Real, V: Vector<R>, L: IkLimit<R, V>>(
    root: V,
    dirs: &mut [V],
    lengths: &[R],
    inv_total: R,
    target: V,
    limits: &[L],
    base: Option<V>,
    held: &mut [bool],
    lever: &mut [V],
) {
    let m = dirs.len();
    // Levers a_i = (end − p_i)/L, tip to root.
    let mut acc = V::ZERO;
    for i in (0..m).rev() {
        acc += dirs[i] * (lengths[i] * inv_total);
        lever[i] = acc;
    }
    let (r_hat, r_len) = unit_and_length(target - end_of(root, dirs, lengths));
    if r_hat == V::ZERO {
        return;
    }
    let lambda = R::from_ratio(DAMPING.0, DAMPING.1);
    let c = lever.iter().zip(held.iter()).filter(|(_, h)| !**h).fold(lambda * lambda, |s, (a, _)| s + a.dot(*a));
    // M v = c v − Σ a_i (a_i · v) over the free joints: J Jᵀ + λ² I in units of L.
    let mv = |v: V| lever.iter().zip(held.iter()).filter(|(_, h)| !**h).fold(v * c, |o, (a, _)| o - *a * a.dot(v));
    // Conjugate gradients on M y = r̂ (exact after DIM steps; stops early on a residual at
    // rounding level, or a vanishing curvature).
    let slop = if R::FLOATING { R::ROUNDING_SLOP * R::ROUNDING_SLOP } else { R::ROUNDING_SLOP };
    let (mut y, mut res) = (V::ZERO, r_hat);
    let (mut p, mut rr) = (res, res.dot(res));
    for _ in 0..V::DIM {
        if rr <= slop {
            break;
        }
        let mp = mv(p);
        let den = p.dot(mp);
        if den <= R::ZERO {
            break;
        }
        let alpha = rr / den;
        y += p * alpha;
        res -= mp * alpha;
        let rr_next = res.dot(res);
        p = res + p * (rr_next / rr);
        rr = rr_next;
    }
    // y for the true residual (units of 1/L): Jᵀ y gives each joint's rotation ωᵢ = aᵢ × y,
    // which moves the end by |aᵢ|² y⊥ — the part of y normal to aᵢ. Turn the subchain about
    // joint i by |ωᵢ| = |aᵢ| |y⊥| (at most MAX_STEP) in the plane of aᵢ and y⊥; tip first.
    let y = y * (r_len * inv_total);
    let max_step = R::from_ratio(MAX_STEP.0, MAX_STEP.1);
    for i in (0..m).rev() {
        if held[i] {
            continue;
        }
        let (a_hat, a_len) = unit_and_length(lever[i]);
        if a_hat == V::ZERO {
            continue;
        }
        let (w, w_len) = unit_and_length(y - a_hat * a_hat.dot(y));
        if w == V::ZERO {
            continue;
        }
        let phi = (a_len * w_len).min(max_step);
        let b = a_hat * phi.cos() + w * phi.sin();
        for u in &mut dirs[i..] {
            *u = dir_or(turn_by(*u, a_hat, b), *u);
        }
    }
    project(dirs, limits, base, held);
}

/// What [`solve`] did: iterations, residual, restarts.
pub(super) struct DlsOutcome<R> {
    pub iterations: u32,
    pub residual: R,
    pub restarts: u32,
}

/// Projected damped least squares with restarts on the chain `joints` (root fixed): the
/// best pose found (smallest residual, every limit held) is written back.
pub(super) fn solve<R: Real, V: Vector<R>, L: IkLimit<R, V>>(
    joints: &mut [V],
    lengths: &[R],
    target: V,
    limits: &[L],
    base: Option<V>,
    settings: &Fabrik<R>,
) -> DlsOutcome<R> {
    let n = joints.len();
    let m = n - 1;
    let root = joints[0];
    let tol = settings.tolerance.max(R::ZERO);
    let total = lengths.iter().fold(R::ZERO, |s, l| s + *l);
    let inv_total = if total > R::ZERO { R::ONE / total } else { R::ONE };
    // Bone directions of the start, projected into the limits.
    let mut dirs: Vec<V> = Vec::with_capacity(m);
    let mut prev = base.unwrap_or_else(first_axis);
    for i in 0..m {
        prev = dir_or(joints[i + 1] - joints[i], prev);
        dirs.push(prev);
    }
    let mut held = vec![false; m];
    let mut lever = vec![V::ZERO; m];
    project(&mut dirs, limits, base, &mut held);
    let mut residual = end_of(root, &dirs, lengths).distance(target);
    let mut best = (residual, dirs.clone());
    let mut history: Vec<R> = vec![residual];
    let (mut iterations, mut restarts, mut attempt) = (0, 0, 0);
    // The rest poses restarted from: a limit that offers no new one (a cone is straight at
    // every attempt) ends the restarts rather than repeat a pose.
    let mut tried: Vec<Vec<V>> = Vec::new();
    let mut rest = dirs.clone();
    while residual > tol && iterations < settings.max_iterations {
        iterations += 1;
        step(root, &mut dirs, lengths, inv_total, target, limits, base, &mut held, &mut lever);
        residual = end_of(root, &dirs, lengths).distance(target);
        if residual < best.0 {
            best.0 = residual;
            best.1.copy_from_slice(&dirs);
        }
        if residual <= tol {
            break;
        }
        history.push(residual);
        let h = history.len();
        if h > STALL_WINDOW && residual > history[h - 1 - STALL_WINDOW] * R::HALF && attempt < MAX_RESTARTS {
            // Stalled (a pose the limits make hard to leave): start again from a rest pose.
            attempt += 1;
            rest.copy_from_slice(&dirs);
            rest_pose(&mut rest, limits, base, attempt);
            if tried.contains(&rest) {
                attempt = MAX_RESTARTS;
                continue;
            }
            tried.push(rest.clone());
            restarts += 1;
            dirs.copy_from_slice(&rest);
            held.iter_mut().for_each(|h| *h = false);
            residual = end_of(root, &dirs, lengths).distance(target);
            if residual < best.0 {
                best.0 = residual;
                best.1.copy_from_slice(&dirs);
            }
            history.clear();
            history.push(residual);
        }
    }
    for i in 0..m {
        joints[i + 1] = joints[i] + best.1[i] * lengths[i];
    }
    DlsOutcome { iterations, residual: joints[n - 1].distance(target), restarts }
}
