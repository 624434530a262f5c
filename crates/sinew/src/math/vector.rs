//! Small vectors generic over the scalar, and the [`Vector`] trait that lets the solver
//! run unchanged in 2D and 3D.
//!
//! The solver only needs what is common to both dimensions: sums, scaling, dot products,
//! lengths and per-component access (for boxes and bounding boxes). Dimension-specific
//! operations (the 2D perpendicular, the 3D cross product) live on the concrete types and
//! are only used by dimension-specific code (joint limits, polygons, hulls).

use super::Real;
use core::fmt::Debug;
use core::ops::{Add, AddAssign, Div, Index, Mul, MulAssign, Neg, Sub, SubAssign};

/// Operations the solver needs from a 2D or 3D vector ([`Vector2`], [`Vector3`]; sealed).
pub trait Vector<R: Real>:
    super::sealed::Sealed
    + crate::state::SavedState
    + Copy
    + Clone
    + Debug
    + Default
    + PartialEq
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Neg<Output = Self>
    + Mul<R, Output = Self>
    + Div<R, Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign<R>
    + Index<usize, Output = R>
{
    /// Number of components (2 or 3).
    const DIM: usize;
    /// The zero vector.
    const ZERO: Self;

    /// Dot product.
    fn dot(self, o: Self) -> R;
    /// Component `i` (0-based, `< DIM`).
    fn get(self, i: usize) -> R;
    /// Sets component `i`.
    fn set(&mut self, i: usize, v: R);
    /// All components equal to `v`.
    fn splat(v: R) -> Self;
    /// Component-wise product.
    fn mul_elem(self, o: Self) -> Self;
    /// Component-wise minimum.
    fn min_elem(self, o: Self) -> Self;
    /// Component-wise maximum.
    fn max_elem(self, o: Self) -> Self;
    /// Component-wise absolute value.
    fn abs_elem(self) -> Self;
    /// A unit vector orthogonal to `self` (any, deterministic); `self` need not be unit.
    fn any_orthogonal(self) -> Self;
    /// Components as `[x, y, z]` (`z` = 0 in 2D): field reads, no per-index `match` — for
    /// gathering into per-component arrays in hot loops.
    fn to_array3(self) -> [R; 3];
    /// Builds from `[x, y, z]` (`z` ignored in 2D).
    fn from_array3(a: [R; 3]) -> Self;
    /// The components of a slice of vectors as one flat slice (`x0, y0, [z0,] x1, …`), for
    /// element-wise loops the compiler vectorises (integration, velocity updates).
    fn flat(s: &[Self]) -> &[R];
    /// Mutable [`Vector::flat`].
    fn flat_mut(s: &mut [Self]) -> &mut [R];

    /// Squared length.
    #[inline]
    #[must_use]
    fn length_squared(self) -> R {
        self.dot(self)
    }
    /// Length.
    #[inline]
    #[must_use]
    fn length(self) -> R {
        self.dot(self).sqrt()
    }
    /// Unit vector and length; `(ZERO, 0)` when shorter than [`Real::GEOMETRIC_EPSILON`].
    #[inline]
    #[must_use]
    fn normalize_and_length(self) -> (Self, R) {
        let (len, inv) = self.dot(self).sqrt_recip();
        // One reciprocal, then multiplications: cheaper than dividing every component.
        if len > R::GEOMETRIC_EPSILON { (self * inv, len) } else { (Self::ZERO, R::ZERO) }
    }
    /// Unit vector, or zero when degenerate.
    #[inline]
    #[must_use]
    fn normalize_or_zero(self) -> Self {
        self.normalize_and_length().0
    }
    /// Distance to `o`.
    #[inline]
    #[must_use]
    fn distance(self, o: Self) -> R {
        (self - o).length()
    }
    /// Linear interpolation.
    #[inline]
    #[must_use]
    fn lerp(self, o: Self, t: R) -> Self {
        self + (o - self) * t
    }
    /// True when every component is finite.
    #[inline]
    fn is_finite(self) -> bool {
        (0..Self::DIM).all(|i| self.get(i).is_finite())
    }
    /// Builds from a slice of `f64` (length must be `DIM`; extra components are ignored,
    /// missing ones are 0).
    #[must_use]
    fn from_f64_slice(s: &[f64]) -> Self {
        let mut v = Self::ZERO;
        for (i, c) in s.iter().take(Self::DIM).enumerate() {
            v.set(i, R::from_f64(*c));
        }
        v
    }
    /// Components as `f64` (unused trailing components are 0).
    #[must_use]
    fn to_f64_array(self) -> [f64; 3] {
        let mut a = [0.0; 3];
        for (i, c) in a.iter_mut().enumerate().take(Self::DIM) {
            *c = self.get(i).to_f64();
        }
        a
    }
}

macro_rules! impl_vector_ops {
    ($V:ident, $($f:ident),+) => {
        impl<R: Real> Add for $V<R> {
            type Output = Self;
            #[inline]
            fn add(self, o: Self) -> Self { $V { $($f: self.$f + o.$f),+ } }
        }
        impl<R: Real> Sub for $V<R> {
            type Output = Self;
            #[inline]
            fn sub(self, o: Self) -> Self { $V { $($f: self.$f - o.$f),+ } }
        }
        impl<R: Real> Neg for $V<R> {
            type Output = Self;
            #[inline]
            fn neg(self) -> Self { $V { $($f: -self.$f),+ } }
        }
        impl<R: Real> Mul<R> for $V<R> {
            type Output = Self;
            #[inline]
            fn mul(self, s: R) -> Self { $V { $($f: self.$f * s),+ } }
        }
        impl<R: Real> Div<R> for $V<R> {
            type Output = Self;
            #[inline]
            fn div(self, s: R) -> Self { $V { $($f: self.$f / s),+ } }
        }
        impl<R: Real> AddAssign for $V<R> {
            #[inline]
            fn add_assign(&mut self, o: Self) { $(self.$f += o.$f;)+ }
        }
        impl<R: Real> SubAssign for $V<R> {
            #[inline]
            fn sub_assign(&mut self, o: Self) { $(self.$f -= o.$f;)+ }
        }
        impl<R: Real> MulAssign<R> for $V<R> {
            #[inline]
            fn mul_assign(&mut self, s: R) { $(self.$f *= s;)+ }
        }
    };
}

/// The components of a slice of `V` as one slice of `R` (`N` per element).
///
/// # Safety
/// `V` must be `#[repr(C)]` with exactly `N` fields, all of type `R`. Size and alignment
/// are then checked at compile time (no padding), so `[V]` of length n is exactly `[R]`
/// of length `N·n`; the borrow is carried over.
#[inline]
unsafe fn components<V, R, const N: usize>(s: &[V]) -> &[R] {
    const { assert!(size_of::<V>() == N * size_of::<R>() && align_of::<V>() == align_of::<R>()) };
    // SAFETY: see the function's contract.
    unsafe { core::slice::from_raw_parts(s.as_ptr().cast::<R>(), N * s.len()) }
}

/// Mutable [`components`]; the exclusive borrow is carried over.
///
/// # Safety
/// As for [`components`].
#[inline]
unsafe fn components_mut<V, R, const N: usize>(s: &mut [V]) -> &mut [R] {
    const { assert!(size_of::<V>() == N * size_of::<R>() && align_of::<V>() == align_of::<R>()) };
    // SAFETY: see the function's contract.
    unsafe { core::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<R>(), N * s.len()) }
}

/// A 2D vector (x right, y up).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)] // `Vector::flat` relies on two `R`s laid out back to back
pub struct Vector2<R> {
    /// x component.
    pub x: R,
    /// y component.
    pub y: R,
}

/// A 3D vector (y up, right-handed).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)] // `Vector::flat` relies on three `R`s laid out back to back
pub struct Vector3<R> {
    /// x component.
    pub x: R,
    /// y component.
    pub y: R,
    /// z component.
    pub z: R,
}

impl_vector_ops!(Vector2, x, y);
impl_vector_ops!(Vector3, x, y, z);

impl<R: Real> crate::state::SavedState for Vector2<R> {
    #[inline]
    fn hash_state(&self, h: &mut crate::state::StateHasher) {
        h.write_u64(self.x.hash_bits());
        h.write_u64(self.y.hash_bits());
    }
}

impl<R: Real> crate::state::SavedState for Vector3<R> {
    #[inline]
    fn hash_state(&self, h: &mut crate::state::StateHasher) {
        h.write_u64(self.x.hash_bits());
        h.write_u64(self.y.hash_bits());
        h.write_u64(self.z.hash_bits());
    }
}

impl<R: Real> Vector2<R> {
    /// Builds a vector.
    #[inline]
    #[must_use]
    pub const fn new(x: R, y: R) -> Self {
        Self { x, y }
    }
    /// Builds from `f64` components.
    #[inline]
    #[must_use]
    pub fn from_f64(x: f64, y: f64) -> Self {
        Self { x: R::from_f64(x), y: R::from_f64(y) }
    }
    /// The vector rotated +90° (`(-y, x)`).
    #[inline]
    #[must_use]
    pub fn perp(self) -> Self {
        Self { x: -self.y, y: self.x }
    }
    /// 2D cross product (z of the 3D cross product).
    #[inline]
    #[must_use]
    pub fn cross(self, o: Self) -> R {
        self.x * o.y - self.y * o.x
    }
}

impl<R: Real> Vector3<R> {
    /// Builds a vector.
    #[inline]
    #[must_use]
    pub const fn new(x: R, y: R, z: R) -> Self {
        Self { x, y, z }
    }
    /// Builds from `f64` components.
    #[inline]
    #[must_use]
    pub fn from_f64(x: f64, y: f64, z: f64) -> Self {
        Self { x: R::from_f64(x), y: R::from_f64(y), z: R::from_f64(z) }
    }
    /// Cross product.
    #[inline]
    #[must_use]
    pub fn cross(self, o: Self) -> Self {
        Self { x: self.y * o.z - self.z * o.y, y: self.z * o.x - self.x * o.z, z: self.x * o.y - self.y * o.x }
    }
}

impl<R: Real> Index<usize> for Vector2<R> {
    type Output = R;
    #[inline]
    fn index(&self, i: usize) -> &R {
        match i {
            0 => &self.x,
            _ => &self.y,
        }
    }
}

impl<R: Real> Index<usize> for Vector3<R> {
    type Output = R;
    #[inline]
    fn index(&self, i: usize) -> &R {
        match i {
            0 => &self.x,
            1 => &self.y,
            _ => &self.z,
        }
    }
}

impl<R: Real> Vector<R> for Vector2<R> {
    const DIM: usize = 2;
    const ZERO: Self = Self { x: R::ZERO, y: R::ZERO };

    #[inline]
    fn dot(self, o: Self) -> R {
        self.x * o.x + self.y * o.y
    }
    #[inline]
    fn get(self, i: usize) -> R {
        self[i]
    }
    #[inline]
    fn set(&mut self, i: usize, v: R) {
        match i {
            0 => self.x = v,
            _ => self.y = v,
        }
    }
    #[inline]
    fn splat(v: R) -> Self {
        Self { x: v, y: v }
    }
    #[inline]
    fn mul_elem(self, o: Self) -> Self {
        Self { x: self.x * o.x, y: self.y * o.y }
    }
    #[inline]
    fn min_elem(self, o: Self) -> Self {
        Self { x: self.x.min(o.x), y: self.y.min(o.y) }
    }
    #[inline]
    fn max_elem(self, o: Self) -> Self {
        Self { x: self.x.max(o.x), y: self.y.max(o.y) }
    }
    #[inline]
    fn abs_elem(self) -> Self {
        Self { x: self.x.abs(), y: self.y.abs() }
    }
    #[inline]
    fn any_orthogonal(self) -> Self {
        let p = self.perp().normalize_or_zero();
        if p == Self::ZERO { Self { x: R::ONE, y: R::ZERO } } else { p }
    }
    #[inline]
    fn to_array3(self) -> [R; 3] {
        [self.x, self.y, R::ZERO]
    }
    #[inline]
    fn from_array3(a: [R; 3]) -> Self {
        Self { x: a[0], y: a[1] }
    }
    #[inline]
    fn flat(s: &[Self]) -> &[R] {
        // SAFETY: `Vector2` is `#[repr(C)]` with two fields, all `R`.
        unsafe { components::<Self, R, 2>(s) }
    }
    #[inline]
    fn flat_mut(s: &mut [Self]) -> &mut [R] {
        // SAFETY: as in `flat`.
        unsafe { components_mut::<Self, R, 2>(s) }
    }
}

impl<R: Real> Vector<R> for Vector3<R> {
    const DIM: usize = 3;
    const ZERO: Self = Self { x: R::ZERO, y: R::ZERO, z: R::ZERO };

    #[inline]
    fn dot(self, o: Self) -> R {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    #[inline]
    fn get(self, i: usize) -> R {
        self[i]
    }
    #[inline]
    fn set(&mut self, i: usize, v: R) {
        match i {
            0 => self.x = v,
            1 => self.y = v,
            _ => self.z = v,
        }
    }
    #[inline]
    fn splat(v: R) -> Self {
        Self { x: v, y: v, z: v }
    }
    #[inline]
    fn mul_elem(self, o: Self) -> Self {
        Self { x: self.x * o.x, y: self.y * o.y, z: self.z * o.z }
    }
    #[inline]
    fn min_elem(self, o: Self) -> Self {
        Self { x: self.x.min(o.x), y: self.y.min(o.y), z: self.z.min(o.z) }
    }
    #[inline]
    fn max_elem(self, o: Self) -> Self {
        Self { x: self.x.max(o.x), y: self.y.max(o.y), z: self.z.max(o.z) }
    }
    #[inline]
    fn abs_elem(self) -> Self {
        Self { x: self.x.abs(), y: self.y.abs(), z: self.z.abs() }
    }
    #[inline]
    fn any_orthogonal(self) -> Self {
        // Cross with the axis least aligned with self (deterministic choice).
        let a = self.abs_elem();
        let axis = if a.x <= a.y && a.x <= a.z {
            Self::new(R::ONE, R::ZERO, R::ZERO)
        } else if a.y <= a.z {
            Self::new(R::ZERO, R::ONE, R::ZERO)
        } else {
            Self::new(R::ZERO, R::ZERO, R::ONE)
        };
        let o = self.cross(axis).normalize_or_zero();
        if o == Self::ZERO { Self::new(R::ONE, R::ZERO, R::ZERO) } else { o }
    }
    #[inline]
    fn to_array3(self) -> [R; 3] {
        [self.x, self.y, self.z]
    }
    #[inline]
    fn from_array3(a: [R; 3]) -> Self {
        Self { x: a[0], y: a[1], z: a[2] }
    }
    #[inline]
    fn flat(s: &[Self]) -> &[R] {
        // SAFETY: `Vector3` is `#[repr(C)]` with three fields, all `R`.
        unsafe { components::<Self, R, 3>(s) }
    }
    #[inline]
    fn flat_mut(s: &mut [Self]) -> &mut [R] {
        // SAFETY: as in `flat`.
        unsafe { components_mut::<Self, R, 3>(s) }
    }
}

#[cfg(feature = "glam")]
mod glam_interop {
    use super::{Vector2, Vector3};

    impl From<glam::Vec2> for Vector2<f32> {
        fn from(v: glam::Vec2) -> Self {
            Self::new(v.x, v.y)
        }
    }
    impl From<Vector2<f32>> for glam::Vec2 {
        fn from(v: Vector2<f32>) -> Self {
            glam::Vec2::new(v.x, v.y)
        }
    }
    impl From<glam::Vec3> for Vector3<f32> {
        fn from(v: glam::Vec3) -> Self {
            Self::new(v.x, v.y, v.z)
        }
    }
    impl From<Vector3<f32>> for glam::Vec3 {
        fn from(v: Vector3<f32>) -> Self {
            glam::Vec3::new(v.x, v.y, v.z)
        }
    }
    impl From<glam::DVec2> for Vector2<f64> {
        fn from(v: glam::DVec2) -> Self {
            Self::new(v.x, v.y)
        }
    }
    impl From<Vector2<f64>> for glam::DVec2 {
        fn from(v: Vector2<f64>) -> Self {
            glam::DVec2::new(v.x, v.y)
        }
    }
    impl From<glam::DVec3> for Vector3<f64> {
        fn from(v: glam::DVec3) -> Self {
            Self::new(v.x, v.y, v.z)
        }
    }
    impl From<Vector3<f64>> for glam::DVec3 {
        fn from(v: Vector3<f64>) -> Self {
            glam::DVec3::new(v.x, v.y, v.z)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "glam")]
    #[test]
    fn glam_conversions_round_trip() {
        let v = Vector3::<f32>::new(1.0, -2.0, 3.5);
        let g: glam::Vec3 = v.into();
        assert_eq!(Vector3::<f32>::from(g), v);
        let d = Vector2::<f64>::new(0.25, 4.0);
        let gd: glam::DVec2 = d.into();
        assert_eq!(gd, glam::DVec2::new(0.25, 4.0));
        assert_eq!(Vector2::<f64>::from(gd), d);
    }

    #[test]
    fn cross_and_perp_follow_the_right_hand_rule() {
        let x = Vector3::<f64>::new(1.0, 0.0, 0.0);
        let y = Vector3::<f64>::new(0.0, 1.0, 0.0);
        assert_eq!(x.cross(y), Vector3::new(0.0, 0.0, 1.0));
        let a = Vector2::<f64>::new(1.0, 0.0);
        assert_eq!(a.perp(), Vector2::new(0.0, 1.0));
        assert_eq!(a.cross(a.perp()), 1.0);
    }

    #[test]
    fn degenerate_vectors_normalize_to_zero() {
        assert_eq!(Vector3::<f32>::ZERO.normalize_or_zero(), Vector3::ZERO);
        let o = Vector3::<f64>::new(0.0, 0.0, 2.0).any_orthogonal();
        assert!((o.length() - 1.0).abs() < 1e-12);
        assert_eq!(o.dot(Vector3::new(0.0, 0.0, 1.0)), 0.0);
    }
}
