//! Analytic two-bone IK: the law of cosines in the bend plane (see the module docs of
//! [`crate::ik`] for the derivation).
//!
//! The core, [`two_bone`], is written once against [`Vector`]: it takes the unit bend
//! direction (perpendicular to the root → target line). The dimensions differ only in how
//! that direction is chosen: a side ([`Bend`]) in 2D ([`two_bone_2d`]), a pole point in 3D
//! ([`two_bone_3d`]).

use crate::math::{Real, Vector, Vector2, Vector3};

/// How a two-bone solve ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reach {
    /// The end lies on the target (up to rounding).
    Reached,
    /// The target is farther than `l1 + l2`: the chain lies straight toward it.
    TooFar,
    /// The target is nearer than `|l1 − l2|`: the chain is folded, its end toward the target
    /// at distance `|l1 − l2|` from the root.
    TooClose,
    /// The input was degenerate (the target at the root, a non-finite input); the answer is
    /// the documented fallback of [`two_bone`], finite and with the bone lengths kept.
    Degenerate,
}

/// A two-bone solution: where the middle joint (elbow, knee) and the end (hand, foot) go.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoBone<V> {
    /// The middle joint.
    pub mid: V,
    /// The end of the second bone.
    pub end: V,
    /// Whether the target was reached, and if not why.
    pub reach: Reach,
}

/// Which way a 2D chain bends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Bend {
    /// Joint angle at the middle joint in `[0, π]`, counter-clockwise positive (the sign
    /// convention of [`crate::AngleLimit::angle`]): the middle joint lies to the right of
    /// the root → target line (an elbow of a figure facing +x with the hand raised).
    #[default]
    CounterClockwise,
    /// Joint angle in `[−π, 0]`: the middle joint lies to the left of the line (a knee).
    Clockwise,
}

/// Unit vector and length of `v`; `(ZERO, 0)` when degenerate.
///
/// Floats: [`Vector::normalize_and_length`] (zero below [`Real::GEOMETRIC_EPSILON`]). Fixed
/// point: `v` is first divided by its largest component, then normalised, and its length
/// scaled back. The plain normalisation squares the components, and a square of a short
/// vector keeps few bits in Q32.32 (|v|² = 5.6e-5 m² of a 7.5 mm vector is known to
/// 2.3e-10 absolute, 4e-6 relative): a two-bone elbow posed with such a direction had its
/// bone length wrong by 3e-7 L. After the division the squared length is at least 1 and
/// the direction is good to a few ULP whatever the length; only the zero vector is
/// degenerate.
#[inline]
#[must_use]
pub(super) fn unit_and_length<R: Real, V: Vector<R>>(v: V) -> (V, R) {
    if R::FLOATING {
        return v.normalize_and_length();
    }
    let m = (0..V::DIM).fold(R::ZERO, |m, i| m.max(v.get(i).abs()));
    if m == R::ZERO {
        return (V::ZERO, R::ZERO);
    }
    let (u, l) = (v / m).normalize_and_length();
    (u, l * m)
}

/// Replaces a NaN, infinite or negative length by 0 (a degenerate bone, documented).
#[inline]
fn sane_length<R: Real>(l: R) -> R {
    if l.is_finite() && l > R::ZERO { l } else { R::ZERO }
}

/// Two-bone IK in any dimension, given the bend direction.
///
/// `root` is the fixed first joint, `l1` and `l2` the bone lengths, `bend` a unit vector
/// perpendicular to `dir` (the unit root → target direction) on the side the middle joint
/// goes to, and `dir`/`dist` the direction and distance of the target from the root. With
/// `d = clamp(dist, |l1 − l2|, l1 + l2)`:
///
/// ```text
/// a = (l1² − l2² + d²) / (2d)      (projection of the middle joint on dir)
/// h = √((l1 − a)(l1 + a))          (its distance from the line; factored against cancellation)
/// mid = root + a·dir + h·bend,     end = root + d·dir
/// ```
///
/// Lengths that are negative or NaN are taken as 0. `d = 0` (only possible when
/// `l1 = l2`) gives `a = 0`: the middle joint at `root + l1·bend` and the end back at the
/// root. The caller guarantees `dir` and `bend` are unit and orthogonal (the 2D and 3D
/// front ends do).
#[must_use]
#[inline]
pub fn two_bone<R: Real, V: Vector<R>>(root: V, dir: V, dist: R, bend: V, l1: R, l2: R) -> (V, V) {
    let (l1, l2) = (sane_length(l1), sane_length(l2));
    let d = dist.clamp((l1 - l2).abs(), l1 + l2);
    // a = (l1² − l2² + d²)/(2d), written as (d + (l1 − l2)(l1 + l2)/d)/2, which keeps the
    // squares' magnitude out of fixed point's range for long chains.
    let a = if d > R::ZERO { (d + (l1 - l2) * (l1 + l2) / d) * R::HALF } else { R::ZERO };
    let a = a.clamp(-l1, l1);
    let h = ((l1 - a) * (l1 + a)).max(R::ZERO).sqrt();
    (root + dir * a + bend * h, root + dir * d)
}

/// Classifies a distance against the reachable annulus `[|l1 − l2|, l1 + l2]`.
#[inline]
fn reach_of<R: Real>(dist: R, l1: R, l2: R) -> Reach {
    let (l1, l2) = (sane_length(l1), sane_length(l2));
    if dist > l1 + l2 {
        Reach::TooFar
    } else if dist < (l1 - l2).abs() {
        Reach::TooClose
    } else {
        Reach::Reached
    }
}

/// Two-bone IK in 2D: the middle joint and end of a chain `root → mid → end` with bone
/// lengths `l1`, `l2`, the end at `target` when reachable, the bend side chosen by `bend`.
///
/// Unreachable targets give the chain straight toward the target; targets nearer than
/// `|l1 − l2|` the chain folded with its end toward the target. Degenerate input, never a
/// panic or a NaN: a target at the root (nearer than [`Real::GEOMETRIC_EPSILON`]) solves
/// toward +x; a non-finite `root` or `target` (floats only) returns both joints at `root`
/// (or at the origin if `root` is not finite) with [`Reach::Degenerate`].
#[must_use]
pub fn two_bone_2d<R: Real>(root: Vector2<R>, target: Vector2<R>, l1: R, l2: R, bend: Bend) -> TwoBone<Vector2<R>> {
    if !Vector::is_finite(root) || !Vector::is_finite(target) {
        let r = if Vector::is_finite(root) { root } else { Vector2::ZERO };
        return TwoBone { mid: r, end: r, reach: Reach::Degenerate };
    }
    let (dir, dist) = unit_and_length(target - root);
    let (dir, reach) =
        if dist > R::ZERO { (dir, reach_of(dist, l1, l2)) } else { (Vector2::new(R::ONE, R::ZERO), Reach::Degenerate) };
    // perp(dir) is dir turned +90°: a middle joint on that side bends clockwise.
    let side = match bend {
        Bend::CounterClockwise => -dir.perp(),
        Bend::Clockwise => dir.perp(),
    };
    let (mid, end) = two_bone(root, dir, dist, side, l1, l2);
    TwoBone { mid, end, reach }
}

/// Two-bone IK in 3D: as [`two_bone_2d`], the bend plane being the plane through `root`,
/// `target` and the `pole` point, the middle joint on the pole's side of the root → target
/// line (the usual "pole vector" of animation tools, given as a point: an elbow's pole
/// behind and below the shoulder, a knee's in front of the leg).
///
/// Degenerate input: a target at the root solves toward +x; a pole on the root → target
/// line (or at the root) gives no plane, and the middle joint then bends along
/// `dir.any_orthogonal()` (a fixed, deterministic choice) with [`Reach::Degenerate`]; a
/// non-finite input (floats only) returns both joints at `root` (or the origin).
#[must_use]
pub fn two_bone_3d<R: Real>(
    root: Vector3<R>,
    target: Vector3<R>,
    pole: Vector3<R>,
    l1: R,
    l2: R,
) -> TwoBone<Vector3<R>> {
    if !Vector::is_finite(root) || !Vector::is_finite(target) || !Vector::is_finite(pole) {
        let r = if Vector::is_finite(root) { root } else { Vector3::ZERO };
        return TwoBone { mid: r, end: r, reach: Reach::Degenerate };
    }
    let (dir, dist) = unit_and_length(target - root);
    let (dir, mut reach) = if dist > R::ZERO {
        (dir, reach_of(dist, l1, l2))
    } else {
        (Vector3::new(R::ONE, R::ZERO, R::ZERO), Reach::Degenerate)
    };
    // The pole's component across the line (Gram–Schmidt) is the bend direction.
    let p = pole - root;
    let mut side = unit_and_length(p - dir * p.dot(dir)).0;
    if side == Vector3::ZERO {
        side = dir.any_orthogonal();
        reach = Reach::Degenerate;
    }
    let (mid, end) = two_bone(root, dir, dist, side, l1, l2);
    TwoBone { mid, end, reach }
}
