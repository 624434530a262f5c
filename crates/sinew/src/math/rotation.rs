//! Rotations for collider poses: [`Rot2`] (a unit complex number) and [`Quat`].

use super::{Real, Vector, Vector2, Vector3};
use core::fmt::Debug;

/// A rotation of a 2D or 3D vector.
pub trait Rotation<R: Real, V: Vector<R>>:
    crate::state::SavedState + Copy + Clone + Debug + PartialEq + Send + Sync + 'static
{
    /// The identity rotation.
    const IDENTITY: Self;
    /// Rotates `v`.
    fn rotate(self, v: V) -> V;
    /// Rotates `v` by the inverse rotation.
    fn inverse_rotate(self, v: V) -> V;
    /// Composition: `self` applied after `o`.
    fn compose(self, o: Self) -> Self;
    /// Renormalises after accumulated rounding.
    fn renormalize(self) -> Self;
    /// Components for hashing and snapshots (`[cos, sin]` or `[x, y, z, w]`).
    fn components(self) -> [R; 4];
    /// Normalised linear interpolation toward `o` (`t` in `[0, 1]`), along the short way.
    fn nlerp(self, o: Self, t: R) -> Self;
}

/// A 2D rotation stored as `(cos θ, sin θ)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rot2<R> {
    /// cos θ.
    pub c: R,
    /// sin θ.
    pub s: R,
}

impl<R: Real> crate::state::SavedState for Rot2<R> {
    #[inline]
    fn hash_state(&self, h: &mut crate::state::StateHasher) {
        for c in self.components() {
            h.write_u64(c.hash_bits());
        }
    }
}

impl<R: Real> crate::state::SavedState for Quat<R> {
    #[inline]
    fn hash_state(&self, h: &mut crate::state::StateHasher) {
        for c in self.components() {
            h.write_u64(c.hash_bits());
        }
    }
}

impl<R: Real> Rot2<R> {
    /// Rotation by `angle` radians (counter-clockwise).
    #[must_use]
    pub fn from_angle(angle: R) -> Self {
        Self { c: angle.cos(), s: angle.sin() }
    }
    /// The angle in `(-π, π]`.
    #[must_use]
    pub fn angle(self) -> R {
        self.s.atan2(self.c)
    }
}

impl<R: Real> Default for Rot2<R> {
    fn default() -> Self {
        Self { c: R::ONE, s: R::ZERO }
    }
}

impl<R: Real> Rotation<R, Vector2<R>> for Rot2<R> {
    const IDENTITY: Self = Self { c: R::ONE, s: R::ZERO };

    #[inline]
    fn rotate(self, v: Vector2<R>) -> Vector2<R> {
        Vector2::new(self.c * v.x - self.s * v.y, self.s * v.x + self.c * v.y)
    }
    #[inline]
    fn inverse_rotate(self, v: Vector2<R>) -> Vector2<R> {
        Vector2::new(self.c * v.x + self.s * v.y, -self.s * v.x + self.c * v.y)
    }
    #[inline]
    fn compose(self, o: Self) -> Self {
        Self { c: self.c * o.c - self.s * o.s, s: self.s * o.c + self.c * o.s }
    }
    fn renormalize(self) -> Self {
        let len = (self.c * self.c + self.s * self.s).sqrt();
        if len > R::GEOMETRIC_EPSILON { Self { c: self.c / len, s: self.s / len } } else { Self::IDENTITY }
    }
    fn components(self) -> [R; 4] {
        [self.c, self.s, R::ZERO, R::ZERO]
    }
    fn nlerp(self, o: Self, t: R) -> Self {
        if self == o {
            return self;
        }
        Self { c: self.c + (o.c - self.c) * t, s: self.s + (o.s - self.s) * t }.renormalize()
    }
}

/// A unit quaternion `(x, y, z, w)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quat<R> {
    /// Vector part x.
    pub x: R,
    /// Vector part y.
    pub y: R,
    /// Vector part z.
    pub z: R,
    /// Scalar part.
    pub w: R,
}

impl<R: Real> Default for Quat<R> {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl<R: Real> Quat<R> {
    /// Builds from components and normalises; a zero quaternion becomes the identity.
    #[must_use]
    pub fn from_xyzw(x: R, y: R, z: R, w: R) -> Self {
        Self { x, y, z, w }.renormalize()
    }
    /// Rotation of `angle` radians about the unit `axis`.
    #[must_use]
    pub fn from_axis_angle(axis: Vector3<R>, angle: R) -> Self {
        let h = angle * R::HALF;
        let s = h.sin();
        let a = axis.normalize_or_zero();
        Self { x: a.x * s, y: a.y * s, z: a.z * s, w: h.cos() }.renormalize()
    }
    /// The shortest rotation taking unit vector `a` onto unit vector `b`.
    #[must_use]
    pub fn from_rotation_arc(a: Vector3<R>, b: Vector3<R>) -> Self {
        let d = a.dot(b);
        if d < -R::ONE + R::from_f64(1e-6) {
            // Opposite: rotate π about any orthogonal axis.
            let axis = a.any_orthogonal();
            return Self { x: axis.x, y: axis.y, z: axis.z, w: R::ZERO };
        }
        let c = a.cross(b);
        Self { x: c.x, y: c.y, z: c.z, w: R::ONE + d }.renormalize()
    }
    fn vec(self) -> Vector3<R> {
        Vector3::new(self.x, self.y, self.z)
    }
}

impl<R: Real> Rotation<R, Vector3<R>> for Quat<R> {
    const IDENTITY: Self = Self { x: R::ZERO, y: R::ZERO, z: R::ZERO, w: R::ONE };

    #[inline]
    fn rotate(self, v: Vector3<R>) -> Vector3<R> {
        // v' = v + 2w(q×v) + 2 q×(q×v)
        let q = self.vec();
        let t = q.cross(v) * R::TWO;
        v + t * self.w + q.cross(t)
    }
    #[inline]
    fn inverse_rotate(self, v: Vector3<R>) -> Vector3<R> {
        Self { x: -self.x, y: -self.y, z: -self.z, w: self.w }.rotate(v)
    }
    fn compose(self, o: Self) -> Self {
        Self {
            w: self.w * o.w - self.x * o.x - self.y * o.y - self.z * o.z,
            x: self.w * o.x + self.x * o.w + self.y * o.z - self.z * o.y,
            y: self.w * o.y - self.x * o.z + self.y * o.w + self.z * o.x,
            z: self.w * o.z + self.x * o.y - self.y * o.x + self.z * o.w,
        }
    }
    fn renormalize(self) -> Self {
        let len = (self.x * self.x + self.y * self.y + self.z * self.z + self.w * self.w).sqrt();
        if len > R::GEOMETRIC_EPSILON {
            Self { x: self.x / len, y: self.y / len, z: self.z / len, w: self.w / len }
        } else {
            Self::IDENTITY
        }
    }
    fn components(self) -> [R; 4] {
        [self.x, self.y, self.z, self.w]
    }
    fn nlerp(self, o: Self, t: R) -> Self {
        if self == o {
            return self;
        }
        let dot = self.x * o.x + self.y * o.y + self.z * o.z + self.w * o.w;
        let o = if dot < R::ZERO { Self { x: -o.x, y: -o.y, z: -o.z, w: -o.w } } else { o };
        Self {
            x: self.x + (o.x - self.x) * t,
            y: self.y + (o.y - self.y) * t,
            z: self.z + (o.z - self.z) * t,
            w: self.w + (o.w - self.w) * t,
        }
        .renormalize()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotations_round_trip() {
        let r = Rot2::<f64>::from_angle(0.7);
        let v = Vector2::new(0.3, -1.2);
        let w = r.inverse_rotate(r.rotate(v));
        assert!((w - v).length() < 1e-12);
        assert!((r.angle() - 0.7).abs() < 1e-12);

        let q = Quat::<f64>::from_axis_angle(Vector3::new(1.0, 2.0, 3.0), 1.1);
        let v = Vector3::new(0.5, -0.2, 2.0);
        assert!((q.inverse_rotate(q.rotate(v)) - v).length() < 1e-12);
        let z = Quat::<f64>::from_axis_angle(Vector3::new(0.0, 0.0, 1.0), core::f64::consts::FRAC_PI_2)
            .rotate(Vector3::new(1.0, 0.0, 0.0));
        assert!((z - Vector3::new(0.0, 1.0, 0.0)).length() < 1e-12);
    }

    #[test]
    fn rotation_arc_maps_a_onto_b() {
        let a = Vector3::<f64>::new(1.0, 0.0, 0.0);
        let b = Vector3::<f64>::new(0.0, 0.6, 0.8);
        assert!((Quat::from_rotation_arc(a, b).rotate(a) - b).length() < 1e-12);
        assert!((Quat::from_rotation_arc(a, -a).rotate(a) + a).length() < 1e-12);
    }
}

/// Conversions to and from glam's rotations (`glam` feature): [`Quat`] ↔ `glam::Quat` /
/// `glam::DQuat`, [`Rot2`] ↔ `glam::Mat2` / `glam::DMat2` (the rotation matrix, columns
/// `(cos θ, sin θ)` and `(−sin θ, cos θ)`; a matrix that is not a rotation is taken by its
/// first column's direction).
#[cfg(feature = "glam")]
mod glam_interop {
    use super::{Quat, Rot2};

    macro_rules! quat {
        ($r:ty, $g:ty) => {
            impl From<$g> for Quat<$r> {
                fn from(q: $g) -> Self {
                    Self { x: q.x, y: q.y, z: q.z, w: q.w }
                }
            }
            impl From<Quat<$r>> for $g {
                fn from(q: Quat<$r>) -> Self {
                    <$g>::from_xyzw(q.x, q.y, q.z, q.w)
                }
            }
        };
    }
    quat!(f32, glam::Quat);
    quat!(f64, glam::DQuat);

    macro_rules! rot2 {
        ($r:ty, $m:ty, $v:ty) => {
            impl From<$m> for Rot2<$r> {
                fn from(m: $m) -> Self {
                    let (c, s) = (m.x_axis.x, m.x_axis.y);
                    let l = (c * c + s * s).sqrt();
                    if l > 0.0 { Self { c: c / l, s: s / l } } else { Self { c: 1.0, s: 0.0 } }
                }
            }
            impl From<Rot2<$r>> for $m {
                fn from(r: Rot2<$r>) -> Self {
                    <$m>::from_cols(<$v>::new(r.c, r.s), <$v>::new(-r.s, r.c))
                }
            }
        };
    }
    rot2!(f32, glam::Mat2, glam::Vec2);
    rot2!(f64, glam::DMat2, glam::DVec2);

    #[cfg(test)]
    mod tests {
        use super::super::{Quat, Rot2, Rotation};
        use crate::math::Vector3;

        #[test]
        fn glam_rotations_convert_and_rotate_alike() {
            let q = Quat::<f32>::from_axis_angle(Vector3::new(0.0, 1.0, 0.0), 0.7);
            let g: glam::Quat = q.into();
            let v = glam::Vec3::new(1.0, 2.0, 3.0);
            let a: glam::Vec3 = q.rotate(Vector3::from(v)).into();
            assert!((a - g * v).length() < 1e-6);
            assert_eq!(Quat::<f32>::from(g), q);
            let r = Rot2::<f64>::from_angle(0.3);
            let m: glam::DMat2 = r.into();
            assert!((m * glam::DVec2::X - glam::DVec2::new(0.3f64.cos(), 0.3f64.sin())).length() < 1e-12);
            assert!((Rot2::<f64>::from(m).angle() - 0.3).abs() < 1e-12);
        }
    }
}
