//! The fighting layer: aimed strikes, impact forces, moves as data and two fighters
//! exchanging blows, on top of [pose drives](crate::ragdoll::PoseDrive) and
//! [two-bone IK](crate::ik).
//!
//! - [`strike`]: a seeded integer RNG ([`FightRng`]), the aim point drawn between temple
//!   and chin of the target's head ([`AimDef`], [`HeadFrame`]), the two-bone IK that
//!   drives the fist or foot to it, and swept contact of the effector against capsules;
//! - [`impact`](mod@impact): the impulse and force of a blow from the contact area, the relative
//!   velocity and the strike's acceleration (or an authored value);
//! - [`moves`]: moves as data (keyframed part targets, the active limb, the strike window),
//!   with a default library (stance, guard, jab, cross, hook, kick, block, hit-react);
//! - [`fighter`]: [`Bout`], a [`Controller`](crate::Controller) holding every fighter's
//!   state (so snapshots, restore and the state hash cover it), and
//!   [`BoutHandle::step`], which plays the moves, aims the strikes, detects and applies the
//!   hits and steps the world.
//!
//! Everything is generic over [`FightSpace`] (2D [`Space2`], 3D [`Space3`]) and the scalar
//! (`f32`, `f64`, [`Fx`](crate::Fx)); the RNG holds only integers, so a bout in fixed point
//! is bit-exact on every machine.
//!
//! # Sagittal angles
//!
//! Moves are authored as angles (rad) in the fighter's sagittal plane, relative to each
//! part's parent, measured from the rig's build pose: positive turns a hanging arm forward
//! and up, bends the elbow, swings the thigh forward; negative bends the knee. A fighter
//! facing `+x` in 2D uses them as they are; one facing `−x` is built from the mirrored rig
//! and negates them; in 3D the angle turns about the fighter's lateral axis (the world `z`
//! axis turned by its facing).

pub mod fighter;
pub mod impact;
pub mod moves;
mod stop;
pub mod strike;

pub use fighter::{Bout, BoutDef, BoutHandle, FighterDef, FighterState, HitEvent, Hits, MoveList};
pub use impact::{Impact, ImpactDef, impact};
pub use moves::{Effector, MoveDef, TargetZone, default_moves};
pub use strike::{AimDef, AimDistribution, AimPoint, FightRng, HeadFrame, SweepHit, aim_ik, approach, sweep_capsule};

use crate::math::{Quat, Real, Rotation, Vector, Vector2, Vector3};
use crate::ragdoll::{DriveSpace, RigDef, RigLimit};
use crate::space::{RealOf, Space2, Space3, VecOf};

/// A space fighters live in: how a rig faces its opponent and how a sagittal angle
/// becomes a rotation (see the module docs).
pub trait FightSpace: DriveSpace {
    /// The rig (built facing `+x`) turned to face `facing` (2D: mirrored in `x` when
    /// `facing.x < 0`; 3D: turned about `y`).
    fn face_rig(rig: &RigDef<Self>, facing: VecOf<Self>) -> RigDef<Self>;
    /// A sagittal angle (rad) as an angular quantity for a fighter facing `facing`.
    fn sagittal(angle: RealOf<Self>, facing: VecOf<Self>) -> Self::Angular;
    /// A unit vector perpendicular to both `axis` and `out` (3D: `out × axis`; 2D: zero).
    fn lateral(axis: VecOf<Self>, out: VecOf<Self>) -> VecOf<Self>;
    /// The horizontal unit facing of `facing` (`None` when it has no horizontal part).
    fn horizontal(facing: VecOf<Self>) -> Option<VecOf<Self>>;
}

impl<R: Real> FightSpace for Space2<R> {
    fn face_rig(rig: &RigDef<Self>, facing: VecOf<Self>) -> RigDef<Self> {
        let mut out = rig.clone();
        if facing.x < R::ZERO {
            for n in &mut out.nodes {
                n.position.x = -n.position.x;
            }
            for l in &mut out.limits {
                if let RigLimit::Angle { min, max, .. } = l {
                    let (lo, hi) = (-*max, -*min);
                    *min = lo;
                    *max = hi;
                }
            }
        }
        out
    }
    fn sagittal(angle: R, facing: Vector2<R>) -> R {
        if facing.x < R::ZERO { -angle } else { angle }
    }
    fn lateral(_axis: Vector2<R>, _out: Vector2<R>) -> Vector2<R> {
        Vector2::ZERO
    }
    fn horizontal(facing: Vector2<R>) -> Option<Vector2<R>> {
        if facing.x == R::ZERO { None } else { Some(Vector2::new(facing.x.signum0(), R::ZERO)) }
    }
}

/// The turn about `y` that takes `+x` to the horizontal direction of `facing`.
fn yaw<R: Real>(facing: Vector3<R>) -> Quat<R> {
    let angle = (-facing.z).atan2(facing.x);
    Quat::from_axis_angle(Vector3::new(R::ZERO, R::ONE, R::ZERO), angle)
}

impl<R: Real> FightSpace for Space3<R> {
    fn face_rig(rig: &RigDef<Self>, facing: Vector3<R>) -> RigDef<Self> {
        let q = yaw(facing);
        let mut out = rig.clone();
        for n in &mut out.nodes {
            n.position = q.rotate(n.position);
        }
        out
    }
    fn sagittal(angle: R, facing: Vector3<R>) -> Vector3<R> {
        yaw(facing).rotate(Vector3::new(R::ZERO, R::ZERO, angle))
    }
    fn lateral(axis: Vector3<R>, out: Vector3<R>) -> Vector3<R> {
        out.cross(axis).normalize_or_zero()
    }
    fn horizontal(facing: Vector3<R>) -> Option<Vector3<R>> {
        let h = Vector3::new(facing.x, R::ZERO, facing.z);
        let n = h.normalize_or_zero();
        (n != Vector3::ZERO).then_some(n)
    }
}
