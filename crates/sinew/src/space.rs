//! Dimensions: the [`Space`] trait bundles a scalar, a vector, a rotation and the
//! dimension-specific shapes and joint limits, so that `World<S: Space>` is written once.
//!
//! | alias | dimension | scalar |
//! |---|---|---|
//! | [`Space2`]`<f32>` / [`Space3`]`<f32>` | 2D / 3D | `f32` (games) |
//! | [`Space2`]`<f64>` / [`Space3`]`<f64>` | 2D / 3D | `f64` (reference) |

use crate::collider::{ConvexHull, ConvexPolygon, ConvexShape};
use crate::constraint::{AngleLimit, JointLimit, SwingTwistLimit};
use crate::math::{Quat, Real, Rot2, Rotation, Vector, Vector2, Vector3};
use core::fmt::Debug;
use core::marker::PhantomData;

/// A simulation space: dimension plus scalar type.
pub trait Space: Copy + Clone + Debug + Default + PartialEq + Send + Sync + 'static {
    /// The scalar.
    type Real: Real;
    /// The position / velocity vector.
    type Vector: Vector<Self::Real>;
    /// Collider orientation.
    type Rotation: Rotation<Self::Real, Self::Vector>;
    /// The general convex collider: polygon in 2D, hull in 3D.
    type Convex: ConvexShape<Self>;
    /// The joint-limit constraint: signed angle range in 2D, swing cone + twist in 3D.
    type JointLimit: JointLimit<Self>;
    /// 2 or 3.
    const DIM: usize;
}

/// Two dimensions, x right, y up.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Space2<R>(PhantomData<R>);

/// Three dimensions, y up, right-handed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Space3<R>(PhantomData<R>);

impl<R: Real> Space for Space2<R> {
    type Real = R;
    type Vector = Vector2<R>;
    type Rotation = Rot2<R>;
    type Convex = ConvexPolygon<R>;
    type JointLimit = AngleLimit<R>;
    const DIM: usize = 2;
}

impl<R: Real> Space for Space3<R> {
    type Real = R;
    type Vector = Vector3<R>;
    type Rotation = Quat<R>;
    type Convex = ConvexHull<R>;
    type JointLimit = SwingTwistLimit<R>;
    const DIM: usize = 3;
}

/// Shorthand for the scalar of a space.
pub type RealOf<S> = <S as Space>::Real;
/// Shorthand for the vector of a space.
pub type VecOf<S> = <S as Space>::Vector;
/// Shorthand for the rotation of a space.
pub type RotOf<S> = <S as Space>::Rotation;
