//! Numbers, vectors and rotations, generic over the scalar type.
//!
//! See [`Real`] for why the solver is written over a scalar trait, and [`Vector`] for how
//! one solver serves 2D and 3D.

mod fixed;
mod real;
mod rotation;
mod vector;

pub use fixed::Fx;
pub use real::Real;
pub use rotation::{Quat, Rot2, Rotation};
pub use vector::{Vector, Vector2, Vector3};
