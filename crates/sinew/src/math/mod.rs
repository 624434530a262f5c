//! Numbers, vectors and rotations, generic over the scalar type.
//!
//! See [`Real`] for why the solver is written over a scalar trait, and [`Vector`] for how
//! one solver serves 2D and 3D.
//!
//! ```
//! use sinew::math::{Quat, Rot2};
//! use sinew::prelude::*;
//!
//! /// A small-angle pendulum's period, written once for every scalar.
//! fn period<R: Real>(length: R) -> R {
//!     R::TWO * R::PI * (length / R::from_f64(9.81)).sqrt()
//! }
//! assert!((period(1.0f32) - 2.006).abs() < 1e-3);
//! assert!((period(1.0f64) - 2.006).abs() < 1e-3);
//! // Fixed point: the same bits on every machine (Q32.32, exact square root).
//! let t = period(Fx::ONE);
//! assert!((t.to_f64() - 2.006).abs() < 1e-3);
//! assert_eq!(Fx::from_i32(9).sqrt(), Fx::from_i32(3));
//!
//! // Vectors: 2D and 3D, any scalar; the solver is written once over the `Vector` trait.
//! let v = Vector2::new(3.0, 4.0);
//! assert_eq!(v.length(), 5.0);
//! assert_eq!(Vector3::new(1.0, 0.0, 0.0).cross(Vector3::new(0.0, 1.0, 0.0)), Vector3::new(0.0, 0.0, 1.0));
//! // Rotations (collider poses): a unit complex number in 2D, a quaternion in 3D.
//! let quarter = std::f64::consts::FRAC_PI_2;
//! let r = Rot2::from_angle(quarter).rotate(Vector2::new(1.0, 0.0));
//! assert!((r - Vector2::new(0.0, 1.0)).length() < 1e-12);
//! let q = Quat::from_axis_angle(Vector3::new(0.0, 1.0, 0.0), quarter).rotate(Vector3::new(1.0, 0.0, 0.0));
//! assert!((q - Vector3::new(0.0, 0.0, -1.0)).length() < 1e-12);
//! ```

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
