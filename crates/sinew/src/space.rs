//! Dimensions: the [`Space`] trait bundles a scalar, a vector, a rotation and the
//! dimension-specific shapes and joint limits, so that `World<S: Space>` is written once.
//!
//! | space | dimension | scalar | convex collider | joint limit |
//! |---|---|---|---|---|
//! | [`Space2`]`<f32>` / `<f64>` / `<Fx>` | 2D | games / reference / bit-exact | [`crate::ConvexPolygon`] | [`crate::AngleLimit`] |
//! | [`Space3`]`<f32>` / `<f64>` / `<Fx>` | 3D | games / reference / bit-exact | [`crate::ConvexHull`] | [`crate::SwingTwistLimit`] |
//!
//! `Space` is three layers (so that the modules below the world import only downwards):
//! [`BaseSpace`] (scalar, vector, rotation: what particles and constraints need, in
//! `crate::dim`), [`ColliderSpace`] (adds the convex shape, declared by the colliders) and
//! [`JointSpace`] (adds the joint limit, declared by the constraints). `Space` is every
//! type that is all three; you never implement it.

pub use crate::collider::ColliderSpace;
pub use crate::constraint::JointSpace;
pub use crate::dim::{BaseSpace, RealOf, RotOf, Space2, Space3, VecOf};

/// A simulation space: dimension plus scalar type, with the dimension's convex collider
/// and joint limit ([`Space2`] and [`Space3`] over `f32`, `f64` or [`crate::Fx`]).
pub trait Space: ColliderSpace + JointSpace {}

impl<S: ColliderSpace + JointSpace> Space for S {}
