//! Orientations of rig parts made of particles: the geometry a pose drive needs.
//!
//! A particle rig has no rigid bodies, so a body part's orientation is *measured* from its
//! particles, every time it is needed:
//!
//! - **2D**: two particles `a`, `b` give the angle `θ = atan2(d_y, d_x)` of `d = x_b − x_a`
//!   (a [`Rot2`] `(d_x, d_y)/|d|`);
//! - **3D, a triangle** `a, b, c` (head–nose–neck, hip–hip–pelvis): Gram–Schmidt gives an
//!   orthonormal frame
//!
//!   ```text
//!   e₁ = (x_b − x_a)/|x_b − x_a|,   e₂ = normalise((x_c − x_a) − e₁(e₁·(x_c − x_a))),   e₃ = e₁ × e₂
//!   ```
//!
//!   whose matrix `F = [e₁ e₂ e₃]` becomes a quaternion (Shepperd's method: the largest of
//!   `w, x, y, z` is taken from the diagonal, the others from sums and differences of
//!   off-diagonal terms, so no square root of a small number is taken);
//! - **3D, a bone** (two particles): only its direction `d` is defined; the frame is the
//!   shortest rotation from the x axis to `d` and a drive acts only on its *swing* (the
//!   two axes perpendicular to the bone).
//!
//! A part's orientation is reported **relative to its rest frame**: `q = F · F_rest⁻¹`, so
//! it is the identity in the pose the drive was built in, and a target orientation is a
//! rotation away from that pose.
//!
//! Rotations are compared through their **rotation vector** (the logarithm map): for a
//! unit quaternion `(v, w)` with `w ≥ 0`, `r = v/|v| · 2·atan2(|v|, w)` (`2v` when `|v|`
//! is below rounding); in 2D simply the angle. The error of a part is the rotation
//! vector of `q_goal · q⁻¹`, the rotation that takes the part to its goal. Its angular
//! velocity is measured from the particles' velocities about its centre of mass,
//! `ω = I⁻¹ Σ mᵢ rᵢ × vᵢ` with the inertia tensor `I = Σ mᵢ (|rᵢ|² 1 − rᵢ rᵢᵀ)` (in 2D
//! `ω = Σ mᵢ rᵢ × vᵢ / Σ mᵢ|rᵢ|²`). Every operation here is `+ − × ÷ √ atan2 sin cos`,
//! so it is exact and identical on every CPU in fixed point.

use crate::math::{Quat, Real, Rot2, Rotation, Vector, Vector2, Vector3};
use crate::space::{RealOf, RotOf, Space2, Space3, VecOf};
use crate::state::SavedState;
use core::fmt::Debug;

use super::RigSpace;

/// How a 3D part's orientation error is split into the drive's rows (2D parts have one
/// axis and ignore it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DriveAxes {
    /// The seed's form `T = q·r·a₁ + p·w·a₂` on each axis of the **parent's** frame: the
    /// error's rotation vector `r` is projected on the parent's `x`, `y`, `z` axes and each
    /// component is its own spring-damper (the default).
    #[default]
    PerAxis,
    /// Swing–twist: the error `q_e` is split as `q_e = swing · twist` with the twist about
    /// the part's first axis (from its first frame particle to its second; the neck–head
    /// line of a head); the twist row's gains are scaled by the part's `twist_scale`, the
    /// swing's two components (on axes perpendicular to the twist axis) keep the part's
    /// gains.
    SwingTwist,
}

impl SavedState for DriveAxes {
    fn hash_state(&self, h: &mut crate::state::StateHasher) {
        h.write_u64(*self as u64);
    }
}

/// One scalar spring-damper of a part's drive: the axis it turns about (unit), the angle
/// from the part to its goal about it (rad), and a gain multiplier.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row<A, R> {
    /// Unit axis (2D: `1`).
    pub axis: A,
    /// Angle (rad) from the current orientation to the goal about `axis`.
    pub error: R,
    /// Gain multiplier (1, or the twist scale on a swing–twist drive's twist row).
    pub scale: R,
}

/// The rows of one part (at most three).
pub type Rows<A, R> = ([Row<A, R>; 3], usize);

/// A [`RigSpace`] whose parts a pose drive can orient and turn: [`Space2`] and
/// [`Space3`] (see the module docs for the geometry).
pub trait DriveSpace: RigSpace {
    /// An angular quantity: an angle or angular velocity (2D: a scalar; 3D: a vector).
    type Angular: Copy + Debug + PartialEq + Send + Sync + SavedState + 'static;
    /// Frame particles a part needs for a full orientation (2 in 2D, 3 in 3D).
    const FULL_FRAME: usize;
    /// The zero angular quantity.
    fn angular_zero() -> Self::Angular;
    /// `a · b` (2D: the product).
    fn angular_dot(a: Self::Angular, b: Self::Angular) -> RealOf<Self>;
    /// `a · s`.
    fn angular_scale(a: Self::Angular, s: RealOf<Self>) -> Self::Angular;
    /// `a + b`.
    fn angular_add(a: Self::Angular, b: Self::Angular) -> Self::Angular;
    /// Whether every component is finite.
    fn angular_is_finite(a: Self::Angular) -> bool;
    /// The inverse rotation.
    fn inverse(q: RotOf<Self>) -> RotOf<Self>;
    /// An angular quantity turned by `q` (2D: unchanged).
    fn rotate_angular(q: RotOf<Self>, a: Self::Angular) -> Self::Angular;
    /// The absolute frame of points `p` (2 or 3): see the module docs. `None` when the
    /// points are degenerate (coincident, or collinear for a triangle).
    fn frame(p: &[VecOf<Self>]) -> Option<RotOf<Self>>;
    /// The rotation vector (logarithm) of `q`.
    fn log(q: RotOf<Self>) -> Self::Angular;
    /// The rotation by rotation vector `r` (exponential).
    fn exp(r: Self::Angular) -> RotOf<Self>;
    /// A rotation prepared for turning several points (3D: its matrix, nine products a
    /// point where the quaternion takes two cross products).
    type Rotator: Copy;
    /// Prepares `q` for [`Self::rotate_prepared`].
    fn rotator(q: RotOf<Self>) -> Self::Rotator;
    /// `v` turned by the prepared rotation (`q.rotate(v)` up to rounding; 2D: exactly).
    fn rotate_prepared(r: &Self::Rotator, v: VecOf<Self>) -> VecOf<Self>;
    /// An inertia tensor about a point (2D: the polar moment; 3D: its six entries).
    type Inertia: Copy;
    /// The zero tensor.
    fn inertia_zero() -> Self::Inertia;
    /// Adds a point mass `m` at offset `r`: `I += m (|r|² 1 − r rᵀ)` (2D: `m|r|²`).
    fn inertia_add(i: &mut Self::Inertia, r: VecOf<Self>, m: RealOf<Self>);
    /// `I⁻¹ a`. Where `I` is singular (a 3D bone: no inertia about its own line) it falls
    /// back to `a / (aᵀ I a)`, and to zero if that vanishes too.
    fn inertia_solve(i: &Self::Inertia, a: Self::Angular) -> Self::Angular {
        Self::inertia_apply(&Self::inertia_prepare(i), a)
    }
    /// What `I⁻¹ a` needs of `I` whatever `a` is (3D: the inverse, when it is well
    /// conditioned), so
    /// that a tensor solved for several axes is prepared once; [`Self::inertia_apply`] then
    /// gives exactly [`Self::inertia_solve`]'s result.
    type InertiaSolver: Copy;
    /// Prepares `I` for [`Self::inertia_apply`].
    fn inertia_prepare(i: &Self::Inertia) -> Self::InertiaSolver;
    /// `I⁻¹ a` from a prepared tensor (bit for bit [`Self::inertia_solve`]).
    fn inertia_apply(s: &Self::InertiaSolver, a: Self::Angular) -> Self::Angular;
    /// Angular velocity `I⁻¹ Σ mᵢ rᵢ × vᵢ` from offsets `r` (about the centre of mass),
    /// velocities `v` and masses `m`; zero where the inertia is singular.
    fn angular_velocity(r: &[VecOf<Self>], v: &[VecOf<Self>], m: &[RealOf<Self>]) -> Self::Angular;
    /// The drive rows (see [`DriveAxes`]) from the part's orientation `q`, its goal
    /// `goal`, the parent's orientation `parent` (axes of the per-axis form) and the
    /// part's rest direction `rest_dir` (twist axis; the bone of a 3D two-particle part).
    fn rows(
        q: RotOf<Self>,
        goal: RotOf<Self>,
        parent: RotOf<Self>,
        rest_dir: VecOf<Self>,
        full: bool,
        axes: DriveAxes,
        twist_scale: RealOf<Self>,
    ) -> Rows<Self::Angular, RealOf<Self>>;
}

impl<R: Real> DriveSpace for Space2<R> {
    type Angular = R;
    const FULL_FRAME: usize = 2;
    fn angular_zero() -> R {
        R::ZERO
    }
    fn angular_dot(a: R, b: R) -> R {
        a * b
    }
    fn angular_scale(a: R, s: R) -> R {
        a * s
    }
    fn angular_add(a: R, b: R) -> R {
        a + b
    }
    fn angular_is_finite(a: R) -> bool {
        a.is_finite()
    }
    fn inverse(q: Rot2<R>) -> Rot2<R> {
        Rot2 { c: q.c, s: -q.s }
    }
    fn rotate_angular(_: Rot2<R>, a: R) -> R {
        a
    }
    fn frame(p: &[Vector2<R>]) -> Option<Rot2<R>> {
        let (d, len) = (*p.get(1)? - *p.first()?).normalize_and_length();
        (len > R::GEOMETRIC_EPSILON).then_some(Rot2 { c: d.x, s: d.y })
    }
    fn log(q: Rot2<R>) -> R {
        q.angle()
    }
    fn exp(r: R) -> Rot2<R> {
        Rot2::from_angle(r)
    }
    type Rotator = Rot2<R>;
    fn rotator(q: Rot2<R>) -> Rot2<R> {
        q
    }
    fn rotate_prepared(r: &Rot2<R>, v: Vector2<R>) -> Vector2<R> {
        r.rotate(v)
    }
    type Inertia = R;
    fn inertia_zero() -> R {
        R::ZERO
    }
    fn inertia_add(i: &mut R, r: Vector2<R>, m: R) {
        *i += m * r.length_squared();
    }
    type InertiaSolver = R;
    fn inertia_prepare(i: &R) -> R {
        *i
    }
    fn inertia_apply(i: &R, a: R) -> R {
        a.safe_div(*i, R::ZERO)
    }
    fn angular_velocity(r: &[Vector2<R>], v: &[Vector2<R>], m: &[R]) -> R {
        let (mut l, mut i) = (R::ZERO, R::ZERO);
        for ((r, v), &m) in r.iter().zip(v).zip(m) {
            l += m * r.cross(*v);
            i += m * r.length_squared();
        }
        l.safe_div(i, R::ZERO)
    }
    fn rows(q: Rot2<R>, goal: Rot2<R>, _: Rot2<R>, _: Vector2<R>, _: bool, _: DriveAxes, _: R) -> Rows<R, R> {
        let e = goal.compose(Self::inverse(q)).angle();
        let row = Row { axis: R::ONE, error: e, scale: R::ONE };
        ([row; 3], 1)
    }
}

/// The twist of the rotation `qe` (`w ≥ 0`) about the unit axis `d`: its angle
/// `2·atan2(p, w)` (`p = v·d`) and its rotation `exp(d·angle)`, computed without the sine
/// and cosine as the projection `(p·d, w)` normalised. Where the projection is too short
/// to normalise (a half-turn error about an axis across `d`; in fixed point `p²` and `w²`
/// may round to 0) the rotation is `exp` of the angle.
fn twist_about<R: Real>(qe: Quat<R>, d: Vector3<R>) -> (R, Quat<R>) {
    let p = Vector3::new(qe.x, qe.y, qe.z).dot(d);
    let angle = R::TWO * p.atan2(qe.w);
    let n = (p * p + qe.w * qe.w).sqrt();
    let twist = if n > R::GEOMETRIC_EPSILON {
        Quat::from_xyzw(d.x * (p / n), d.y * (p / n), d.z * (p / n), qe.w / n)
    } else {
        <Space3<R> as DriveSpace>::exp(d * angle)
    };
    (angle, twist)
}

/// Shepperd's method: the quaternion of the orthonormal frame with columns `e1, e2, e3`.
fn quat_from_frame<R: Real>(e1: Vector3<R>, e2: Vector3<R>, e3: Vector3<R>) -> Quat<R> {
    let (m00, m10, m20) = (e1.x, e1.y, e1.z);
    let (m01, m11, m21) = (e2.x, e2.y, e2.z);
    let (m02, m12, m22) = (e3.x, e3.y, e3.z);
    let (one, quarter) = (R::ONE, R::from_ratio(1, 4));
    let tr = m00 + m11 + m22;
    // (`s ≥ 2` in every branch: one reciprocal, then products.)
    let (x, y, z, w);
    if tr > R::ZERO {
        let s = (tr + one).sqrt() * R::TWO;
        let inv = one / s;
        w = s * quarter;
        x = (m21 - m12) * inv;
        y = (m02 - m20) * inv;
        z = (m10 - m01) * inv;
    } else if m00 > m11 && m00 > m22 {
        let s = (one + m00 - m11 - m22).sqrt() * R::TWO;
        let inv = one / s;
        w = (m21 - m12) * inv;
        x = s * quarter;
        y = (m01 + m10) * inv;
        z = (m02 + m20) * inv;
    } else if m11 > m22 {
        let s = (one + m11 - m00 - m22).sqrt() * R::TWO;
        let inv = one / s;
        w = (m02 - m20) * inv;
        x = (m01 + m10) * inv;
        y = s * quarter;
        z = (m12 + m21) * inv;
    } else {
        let s = (one + m22 - m00 - m11).sqrt() * R::TWO;
        let inv = one / s;
        w = (m10 - m01) * inv;
        x = (m02 + m20) * inv;
        y = (m12 + m21) * inv;
        z = s * quarter;
    }
    Quat::from_xyzw(x, y, z, w)
}

/// A 3D inertia tensor prepared for `I⁻¹ a` ([`DriveSpace::inertia_prepare`]): the
/// symmetric inverse `adj(I)/det I` (`xx, yy, zz, xy, xz, yz`) when it is well
/// conditioned, else `I` itself for the `a / (aᵀ I a)` fallback. A part is solved with
/// six products `I⁻¹a` (three rows, part and parent), so the inverse is formed once: each
/// product is then nine multiplications instead of three cross products and a division.
#[derive(Clone, Copy, Debug)]
pub struct InertiaSolver3<R> {
    m: [R; 6],
    invertible: bool,
}

impl<R: Real> DriveSpace for Space3<R> {
    type Angular = Vector3<R>;
    const FULL_FRAME: usize = 3;
    fn angular_zero() -> Vector3<R> {
        Vector3::ZERO
    }
    fn angular_dot(a: Vector3<R>, b: Vector3<R>) -> R {
        a.dot(b)
    }
    fn angular_scale(a: Vector3<R>, s: R) -> Vector3<R> {
        a * s
    }
    fn angular_add(a: Vector3<R>, b: Vector3<R>) -> Vector3<R> {
        a + b
    }
    fn angular_is_finite(a: Vector3<R>) -> bool {
        a.is_finite()
    }
    fn inverse(q: Quat<R>) -> Quat<R> {
        Quat { x: -q.x, y: -q.y, z: -q.z, w: q.w }
    }
    fn rotate_angular(q: Quat<R>, a: Vector3<R>) -> Vector3<R> {
        q.rotate(a)
    }
    fn frame(p: &[Vector3<R>]) -> Option<Quat<R>> {
        let a = *p.first()?;
        let (e1, len) = (*p.get(1)? - a).normalize_and_length();
        if len <= R::GEOMETRIC_EPSILON {
            return None;
        }
        let Some(&c) = p.get(2) else {
            return Some(Quat::from_rotation_arc(Vector3::new(R::ONE, R::ZERO, R::ZERO), e1));
        };
        let ac = c - a;
        let (e2, len2) = (ac - e1 * e1.dot(ac)).normalize_and_length();
        if len2 <= R::GEOMETRIC_EPSILON {
            return None;
        }
        Some(quat_from_frame(e1, e2, e1.cross(e2)))
    }
    fn log(q: Quat<R>) -> Vector3<R> {
        let q = if q.w < R::ZERO { Quat { x: -q.x, y: -q.y, z: -q.z, w: -q.w } } else { q };
        let v = Vector3::new(q.x, q.y, q.z);
        let s = v.length();
        if s <= R::GEOMETRIC_EPSILON {
            return v * R::TWO;
        }
        v * (R::TWO * s.atan2(q.w) / s)
    }
    fn exp(r: Vector3<R>) -> Quat<R> {
        // (r̂ sin(θ/2), cos(θ/2)) with θ = |r|: one root and one division for r̂·sin(θ/2)
        // = r·(sin(θ/2)/θ), then renormalised against the sine's and cosine's rounding
        // (two roots in all, where normalising the axis twice took three).
        let angle = r.length();
        if angle <= R::GEOMETRIC_EPSILON {
            return Quat::from_xyzw(r.x * R::HALF, r.y * R::HALF, r.z * R::HALF, R::ONE);
        }
        let h = angle * R::HALF;
        let s = h.sin() / angle;
        Quat::from_xyzw(r.x * s, r.y * s, r.z * s, h.cos()).renormalize()
    }
    type Rotator = [Vector3<R>; 3];
    fn rotator(q: Quat<R>) -> [Vector3<R>; 3] {
        // The rows of the rotation matrix of a unit quaternion.
        let (one, two) = (R::ONE, R::TWO);
        let (x, y, z, w) = (q.x, q.y, q.z, q.w);
        [
            Vector3::new(one - two * (y * y + z * z), two * (x * y - w * z), two * (x * z + w * y)),
            Vector3::new(two * (x * y + w * z), one - two * (x * x + z * z), two * (y * z - w * x)),
            Vector3::new(two * (x * z - w * y), two * (y * z + w * x), one - two * (x * x + y * y)),
        ]
    }
    fn rotate_prepared(m: &[Vector3<R>; 3], v: Vector3<R>) -> Vector3<R> {
        Vector3::new(m[0].dot(v), m[1].dot(v), m[2].dot(v))
    }
    type Inertia = [R; 6];
    fn inertia_zero() -> [R; 6] {
        [R::ZERO; 6]
    }
    fn inertia_add(i: &mut [R; 6], r: Vector3<R>, m: R) {
        let r2 = r.length_squared();
        i[0] += m * (r2 - r.x * r.x);
        i[1] += m * (r2 - r.y * r.y);
        i[2] += m * (r2 - r.z * r.z);
        i[3] -= m * r.x * r.y;
        i[4] -= m * r.x * r.z;
        i[5] -= m * r.y * r.z;
    }
    type InertiaSolver = InertiaSolver3<R>;
    fn inertia_prepare(i: &[R; 6]) -> InertiaSolver3<R> {
        let [ixx, iyy, izz, ixy, ixz, iyz] = *i;
        // Cofactors of the symmetric tensor; det I along its first row.
        let cxx = iyy * izz - iyz * iyz;
        let cyy = ixx * izz - ixz * ixz;
        let czz = ixx * iyy - ixy * ixy;
        let cxy = ixz * iyz - ixy * izz;
        let cxz = ixy * iyz - ixz * iyy;
        let cyz = ixy * ixz - ixx * iyz;
        let det = ixx * cxx + ixy * cxy + ixz * cxz;
        let tr = ixx + iyy + izz;
        let invertible = det.abs() > R::from_f64(1e-6) * tr * tr * tr && det != R::ZERO;
        if !invertible {
            return InertiaSolver3 { m: *i, invertible };
        }
        // Each cofactor divided (not multiplied by 1/det): in fixed point a tiny
        // determinant's reciprocal could leave the range where the quotients do not.
        let m = [cxx / det, cyy / det, czz / det, cxy / det, cxz / det, cyz / det];
        InertiaSolver3 { m, invertible }
    }
    fn inertia_apply(s: &InertiaSolver3<R>, a: Vector3<R>) -> Vector3<R> {
        let [xx, yy, zz, xy, xz, yz] = s.m;
        let ma = Vector3::new(
            xx * a.x + xy * a.y + xz * a.z,
            xy * a.x + yy * a.y + yz * a.z,
            xz * a.x + yz * a.y + zz * a.z,
        );
        if s.invertible {
            return ma;
        }
        let aia = a.dot(ma);
        if aia > R::ZERO { a / aia } else { Vector3::ZERO }
    }
    fn angular_velocity(r: &[Vector3<R>], v: &[Vector3<R>], m: &[R]) -> Vector3<R> {
        // I ω = L with I = Σ m (|r|² 1 − r rᵀ), solved by Cramer's rule.
        let mut l = Vector3::ZERO;
        let [mut ixx, mut iyy, mut izz, mut ixy, mut ixz, mut iyz] = [R::ZERO; 6];
        for ((r, v), &m) in r.iter().zip(v).zip(m) {
            l += r.cross(*v) * m;
            let r2 = r.length_squared();
            ixx += m * (r2 - r.x * r.x);
            iyy += m * (r2 - r.y * r.y);
            izz += m * (r2 - r.z * r.z);
            ixy -= m * r.x * r.y;
            ixz -= m * r.x * r.z;
            iyz -= m * r.y * r.z;
        }
        let c0 = Vector3::new(ixx, ixy, ixz);
        let c1 = Vector3::new(ixy, iyy, iyz);
        let c2 = Vector3::new(ixz, iyz, izz);
        let det = c0.dot(c1.cross(c2));
        if det.abs() <= R::GEOMETRIC_EPSILON {
            return Vector3::ZERO;
        }
        Vector3::new(l.dot(c1.cross(c2)), c0.dot(l.cross(c2)), c0.dot(c1.cross(l))) / det
    }
    fn rows(
        q: Quat<R>,
        goal: Quat<R>,
        parent: Quat<R>,
        rest_dir: Vector3<R>,
        full: bool,
        axes: DriveAxes,
        twist_scale: R,
    ) -> Rows<Vector3<R>, R> {
        let one = R::ONE;
        let zero_row = Row { axis: Vector3::ZERO, error: R::ZERO, scale: R::ZERO };
        let mut out = [zero_row; 3];
        // The part's rest direction now (unused by the per-axis rows of a full frame).
        let d = || q.rotate(rest_dir).normalize_or_zero();
        if !full {
            let d = d();
            // A bone: swing only, from its direction to the goal's.
            let g = goal.rotate(rest_dir).normalize_or_zero();
            let (n, s) = d.cross(g).normalize_and_length();
            let swing = if s > R::GEOMETRIC_EPSILON { n * s.atan2(d.dot(g)) } else { Vector3::ZERO };
            let u = d.any_orthogonal().normalize_or_zero();
            let v = d.cross(u);
            out[0] = Row { axis: u, error: swing.dot(u), scale: one };
            out[1] = Row { axis: v, error: swing.dot(v), scale: one };
            return (out, 2);
        }
        let qe = goal.compose(Self::inverse(q));
        match axes {
            DriveAxes::PerAxis => {
                let r = Self::log(qe);
                let ex = [
                    Vector3::new(one, R::ZERO, R::ZERO),
                    Vector3::new(R::ZERO, one, R::ZERO),
                    Vector3::new(R::ZERO, R::ZERO, one),
                ];
                for (k, e) in ex.into_iter().enumerate() {
                    let a = parent.rotate(e);
                    out[k] = Row { axis: a, error: r.dot(a), scale: one };
                }
            }
            DriveAxes::SwingTwist => {
                let d = d();
                let qe = if qe.w < R::ZERO { Quat { x: -qe.x, y: -qe.y, z: -qe.z, w: -qe.w } } else { qe };
                let (twist_angle, twist) = twist_about(qe, d);
                let swing = Self::log(qe.compose(Self::inverse(twist)));
                let u = d.any_orthogonal().normalize_or_zero();
                let v = d.cross(u);
                out[0] = Row { axis: d, error: twist_angle, scale: twist_scale };
                out[1] = Row { axis: u, error: swing.dot(u), scale: one };
                out[2] = Row { axis: v, error: swing.dot(v), scale: one };
            }
        }
        (out, 3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_triangle_frame_round_trips_through_its_quaternion() {
        let q = Quat::<f64>::from_axis_angle(Vector3::new(0.3, -1.0, 0.5), 2.2);
        let p = [Vector3::new(0.0, 0.0, 0.0), Vector3::new(1.0, 0.0, 0.0), Vector3::new(0.4, 2.0, 0.0)];
        let rp: Vec<_> = p.iter().map(|&x| q.rotate(x)).collect();
        let f = <Space3<f64> as DriveSpace>::frame(&rp).unwrap();
        let err = <Space3<f64> as DriveSpace>::log(f.compose(<Space3<f64> as DriveSpace>::inverse(q)));
        assert!(err.length() < 1e-12, "{err:?}");
        let r = Vector3::new(0.2, -0.4, 1.1);
        let back = <Space3<f64> as DriveSpace>::log(<Space3<f64> as DriveSpace>::exp(r));
        assert!((back - r).length() < 1e-12);
    }

    /// A small deterministic generator for the tests below (xorshift64*).
    struct Gen(u64);
    impl Gen {
        fn f(&mut self) -> f64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        }
        fn v(&mut self) -> Vector3<f64> {
            Vector3::new(self.f(), self.f(), self.f())
        }
        fn q(&mut self) -> Quat<f64> {
            Quat::from_xyzw(self.f(), self.f(), self.f(), self.f()).renormalize()
        }
    }

    type S3 = Space3<f64>;

    #[test]
    fn a_prepared_inverse_inertia_solves_as_cramers_rule_does() {
        let mut g = Gen(0x9e37_79b9_7f4a_7c15);
        let mut fallbacks = 0;
        for case in 0..2000 {
            // Three to six point masses; every tenth case two on a line through the point
            // (a bone about its centre: singular about its line).
            let mut i = S3::inertia_zero();
            if case % 10 == 0 {
                let dir = g.v();
                for _ in 0..2 {
                    S3::inertia_add(&mut i, dir * (0.3 * g.f()), 0.5 + g.f().abs() * 4.0);
                }
            } else {
                for _ in 0..3 + case % 4 {
                    S3::inertia_add(&mut i, g.v() * 0.3, 0.5 + g.f().abs() * 4.0);
                }
            }
            let a = g.v().normalize_or_zero();
            let got = S3::inertia_apply(&S3::inertia_prepare(&i), a);
            // Cramer's rule on the columns, and the fallback a / (aᵀ I a) where it is singular.
            let [ixx, iyy, izz, ixy, ixz, iyz] = i;
            let (c0, c1, c2) = (Vector3::new(ixx, ixy, ixz), Vector3::new(ixy, iyy, iyz), Vector3::new(ixz, iyz, izz));
            let det = c0.dot(c1.cross(c2));
            let tr = ixx + iyy + izz;
            let want = if det.abs() > 1e-6 * tr * tr * tr {
                Vector3::new(a.dot(c1.cross(c2)), c0.dot(a.cross(c2)), c0.dot(c1.cross(a))) / det
            } else {
                fallbacks += 1;
                a / a.dot(Vector3::new(c0.dot(a), c1.dot(a), c2.dot(a)))
            };
            assert!((got - want).length() <= 1e-9 * want.length(), "case {case}: {got:?} vs {want:?}");
        }
        assert!(fallbacks >= 150, "the singular fallback tested ({fallbacks} cases)");
    }

    #[test]
    fn exp_turns_by_the_angle_about_the_axis() {
        let mut g = Gen(7);
        for scale in [1e-4, 1e-2, 1.0, 3.0] {
            for _ in 0..500 {
                let r = g.v() * scale;
                let want = Quat::from_axis_angle(r.normalize_or_zero(), r.length());
                let got = S3::exp(r);
                assert!(
                    (Vector3::new(got.x - want.x, got.y - want.y, got.z - want.z)).length() + (got.w - want.w).abs()
                        < 1e-12,
                    "{r:?}"
                );
            }
        }
    }

    #[test]
    fn the_twist_by_projection_is_exp_of_the_twist_angle() {
        let mut g = Gen(11);
        let check = |qe: Quat<f64>, d: Vector3<f64>| {
            let qe = if qe.w < 0.0 { Quat::from_xyzw(-qe.x, -qe.y, -qe.z, -qe.w) } else { qe };
            let (angle, twist) = twist_about(qe, d);
            let want = S3::exp(d * angle);
            assert!(
                (Vector3::new(twist.x - want.x, twist.y - want.y, twist.z - want.z)).length()
                    + (twist.w - want.w).abs()
                    < 1e-12,
                "{qe:?} {d:?}"
            );
            // The swing left is perpendicular to d: the twist took all of the turn about it.
            let swing = qe.compose(S3::inverse(twist));
            assert!(Vector3::new(swing.x, swing.y, swing.z).dot(d).abs() < 1e-12, "{qe:?} {d:?}");
        };
        for _ in 0..2000 {
            check(g.q(), g.v().normalize_or_zero());
        }
        // A half turn about an axis across d: the projection vanishes (the exp fallback).
        let d = Vector3::new(0.0, 0.0, 1.0);
        check(Quat::from_axis_angle(Vector3::new(1.0, 0.0, 0.0), std::f64::consts::PI), d);
        check(Quat::from_xyzw(0.6, 0.8, 1e-13, 1e-13).renormalize(), d);
    }

    #[test]
    fn a_prepared_rotation_turns_points_as_the_quaternion_does() {
        let mut g = Gen(13);
        for _ in 0..2000 {
            let (q, v) = (g.q(), g.v() * 2.0);
            let got = S3::rotate_prepared(&S3::rotator(q), v);
            assert!((got - q.rotate(v)).length() < 1e-12, "{q:?} {v:?}");
        }
        // 2D: the same rotation, bit for bit.
        let q = Rot2::from_angle(0.7);
        let v = Vector2::new(0.3, -1.1);
        assert_eq!(
            <Space2<f64> as DriveSpace>::rotate_prepared(&<Space2<f64> as DriveSpace>::rotator(q), v),
            q.rotate(v)
        );
    }

    #[test]
    fn the_angular_velocity_of_a_spinning_cluster_is_recovered() {
        let w = Vector3::new(0.5, -2.0, 1.0);
        let r = [Vector3::new(0.1, 0.0, 0.3), Vector3::new(-0.2, 0.4, 0.0), Vector3::new(0.0, -0.1, -0.2)];
        let v: Vec<_> = r.iter().map(|&r| w.cross(r)).collect();
        let got = <Space3<f64> as DriveSpace>::angular_velocity(&r, &v, &[1.0, 2.0, 3.0]);
        assert!((got - w).length() < 1e-9, "{got:?}");
    }
}
