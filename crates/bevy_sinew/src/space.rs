//! The bridge between Bevy's `f32` math and a Sinew world's own scalar and dimension.
//!
//! Bevy describes every position as a `Vec3` of `f32` (2D games use x and y and leave z
//! for draw order); a Sinew world computes in [`Space2`] or [`Space3`] over `f32`, `f64`
//! or the bit-exact [`Fx`](sinew::Fx). [`PluginSpace`] converts between the two through
//! `f64` arrays — never through glam, whose version Bevy and Sinew need not share — and
//! names the humanoid rig of the dimension, so that one generic plugin serves all six
//! worlds.
//!
//! The conversions are exact where they can be: every `f32` is an `f64`, and `f64` to
//! [`Fx`](sinew::Fx) rounds the same way on every machine, so a fixed-point world fed
//! from Bevy transforms stays deterministic across machines. In 2D, z is dropped on the
//! way in and written as 0 on the way out (writeback keeps an entity's own z, see
//! [`crate::interpolation`]).

use bevy_math::{EulerRot, Quat, Vec3};
use sinew::math::{Real, Vector};
use sinew::ragdoll::{RigDef, RigSpace, presets};
use sinew::{RotOf, Space2, Space3, VecOf};

use crate::muscle::MuscleRigDef;

/// A Sinew space the plugin can run: 2D or 3D over `f32`, `f64` or `Fx`.
///
/// Implemented for every [`Space2`]`<R>` and [`Space3`]`<R>`; you never implement it.
pub trait PluginSpace: RigSpace {
    /// A Bevy position or direction in the world's vector type (z dropped in 2D).
    #[must_use]
    fn vector(v: Vec3) -> VecOf<Self> {
        let r = |c: f32| Self::Real::from_f64(f64::from(c));
        VecOf::<Self>::from_array3([r(v.x), r(v.y), r(v.z)])
    }

    /// A world vector as a Bevy `Vec3` (z = 0 in 2D).
    #[must_use]
    fn to_vec3(v: VecOf<Self>) -> Vec3 {
        // `to_array3` reads fields (z = 0 in 2D): this runs for every written-back particle.
        let [x, y, z] = v.to_array3().map(|c| c.to_f64() as f32);
        Vec3::new(x, y, z)
    }

    /// A Bevy rotation in the world's rotation type (in 2D, the rotation about z).
    #[must_use]
    fn rotation(q: Quat) -> RotOf<Self>;

    /// The rig of [`crate::RagdollRig::Humanoid`]: `humanoid16` in 2D, `humanoid3d` in 3D.
    #[must_use]
    fn humanoid() -> RigDef<Self>;

    /// The rig and presets of [`crate::MuscleRig::Humanoid`]: `humanoid16_stabilised` and
    /// its poses in 2D; none in 3D (the library has no 3D muscle rig).
    #[must_use]
    fn muscle_humanoid() -> Option<MuscleRigDef<Self>>;
}

impl<R: Real> PluginSpace for Space2<R> {
    fn rotation(q: Quat) -> RotOf<Self> {
        let (about_z, _, _) = q.to_euler(EulerRot::ZYX);
        sinew::Rot2::from_angle(R::from_f64(f64::from(about_z)))
    }

    fn humanoid() -> RigDef<Self> {
        presets::humanoid16::<R>()
    }

    fn muscle_humanoid() -> Option<MuscleRigDef<Self>> {
        let poses = presets::humanoid16_poses::<R>().into_iter().map(|(n, p)| (n.to_owned(), p)).collect();
        Some(MuscleRigDef { rig: presets::humanoid16_stabilised::<R>(), poses })
    }
}

impl<R: Real> PluginSpace for Space3<R> {
    fn rotation(q: Quat) -> RotOf<Self> {
        let c = |v: f32| R::from_f64(f64::from(v));
        sinew::Quat::from_xyzw(c(q.x), c(q.y), c(q.z), c(q.w))
    }

    fn humanoid() -> RigDef<Self> {
        presets::humanoid3d::<R>()
    }

    fn muscle_humanoid() -> Option<MuscleRigDef<Self>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sinew::Fx;
    use sinew::math::Rotation;

    #[test]
    fn positions_round_trip_through_every_scalar() {
        let v = Vec3::new(1.5, -2.25, 3.0);
        assert_eq!(Space3::<f32>::to_vec3(Space3::<f32>::vector(v)), v);
        assert_eq!(Space3::<Fx>::to_vec3(Space3::<Fx>::vector(v)), v);
        assert_eq!(Space2::<f64>::to_vec3(Space2::<f64>::vector(v)), Vec3::new(1.5, -2.25, 0.0), "2D drops z");
    }

    #[test]
    fn a_2d_rotation_is_the_angle_about_z() {
        let r = Space2::<f64>::rotation(Quat::from_rotation_z(0.5));
        let turned = r.rotate(sinew::Vector2::new(1.0, 0.0));
        assert!((turned.x - 0.5f64.cos()).abs() < 1e-6 && (turned.y - 0.5f64.sin()).abs() < 1e-6);
    }
}
