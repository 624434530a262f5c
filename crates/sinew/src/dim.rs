//! Dimensions at their most basic: a scalar, a vector and a rotation, 2D or 3D.
//!
//! [`BaseSpace`] is what the particles, shapes and constraints are written against;
//! [`crate::Space`] adds the dimension-specific collider and joint-limit types and is what
//! a [`crate::World`] is generic over. They are split so that the modules below the world
//! import only downwards: `dim` ← `particle`, `collider` (adds [`crate::collider::ColliderSpace`]),
//! `constraint` (adds [`crate::constraint::JointSpace`]) ← `space` (binds them).

use crate::math::{Quat, Real, Rot2, Rotation, Vector, Vector2, Vector3};
use core::fmt::Debug;
use core::marker::PhantomData;

/// A dimension with a scalar type: the vector and rotation the solver computes with.
pub trait BaseSpace: Copy + Clone + Debug + Default + PartialEq + Send + Sync + 'static {
    /// The scalar.
    type Real: Real;
    /// The position / velocity vector.
    type Vector: Vector<Self::Real>;
    /// Collider orientation.
    type Rotation: Rotation<Self::Real, Self::Vector>;
    /// 2 or 3.
    const DIM: usize;
}

/// Two dimensions, x right, y up.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Space2<R>(PhantomData<R>);

/// Three dimensions, y up, right-handed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Space3<R>(PhantomData<R>);

impl<R: Real> BaseSpace for Space2<R> {
    type Real = R;
    type Vector = Vector2<R>;
    type Rotation = Rot2<R>;
    const DIM: usize = 2;
}

impl<R: Real> BaseSpace for Space3<R> {
    type Real = R;
    type Vector = Vector3<R>;
    type Rotation = Quat<R>;
    const DIM: usize = 3;
}

/// Shorthand for the scalar of a space.
pub type RealOf<S> = <S as BaseSpace>::Real;
/// Shorthand for the vector of a space.
pub type VecOf<S> = <S as BaseSpace>::Vector;
/// Shorthand for the rotation of a space.
pub type RotOf<S> = <S as BaseSpace>::Rotation;
