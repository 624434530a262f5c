//! Numbers, vectors and rotations, generic over the scalar type.
//!
//! See [`Real`] for why the solver is written over a scalar trait, and [`Vector`] for how
//! one solver serves 2D and 3D.

mod fixed;
mod real;
mod rotation;
mod vector;
pub(crate) mod wide;

/// Seals [`Real`] and [`Vector`]: the solver's guarantees (fixed point's bit-exactness, the
/// algorithms chosen by [`Real::FLOATING`], the flat component views of [`Vector::flat`])
/// are made for the types here, so no other crate can implement them — which also lets
/// them grow methods without breaking anyone.
pub(crate) mod sealed {
    /// Implemented for `f32`, `f64`, [`super::Fx`], [`super::Vector2`] and [`super::Vector3`].
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for super::Fx {}
    impl<R> Sealed for super::Vector2<R> {}
    impl<R> Sealed for super::Vector3<R> {}
}

pub use fixed::Fx;
pub use real::Real;
pub use rotation::{Quat, Rot2, Rotation};
pub use vector::{Vector, Vector2, Vector3};
