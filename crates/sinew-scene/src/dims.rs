//! What differs between 2D and 3D scenes: rotations, boxes, convex shapes and joint
//! limits.

use crate::build::{common_shape, err, finite, index, non_negative, positive, required, vector};
use crate::spec::{SceneSpec, ShapeSpec};
use crate::{SceneError, SceneRagdoll, SceneReal};
use sinew::ragdoll::{MuscleRagdoll, MuscleRagdollDef, RigSpace, SpawnDef, presets};
use sinew::{
    AngleLimitDef, ColliderDef, ParticleHandle, Quat, Real, Rot2, Rotation, Shape, Space2, Space3, SwingTwistLimitDef,
    Vector, World,
};

/// A space a scene can be built in.
pub trait SceneSpace: sinew::fight::FightSpace + RigSpace<Real: SceneReal> {
    /// The rig and drive parts of a fighter's `rig` key (`humanoid16` in 2D,
    /// `humanoid3d` in 3D).
    #[allow(clippy::type_complexity)]
    fn fighter_rig(
        path: &str,
        name: &str,
    ) -> Result<(sinew::RigDef<Self>, Vec<sinew::ragdoll::DrivePartDef<sinew::RealOf<Self>>>), SceneError>;
    /// Spawns the file's ragdolls (muscle ragdolls are the world's controllers; their
    /// handles are returned).
    fn add_ragdolls(
        spec: &SceneSpec,
        world: &mut World<Self>,
        handles: &mut Vec<ParticleHandle>,
        out: &mut Vec<SceneRagdoll>,
        muscles: &mut Vec<sinew::MuscleRagdollHandle<Self>>,
    ) -> Result<(), SceneError>;
    /// The rotation a ragdoll is spawned with: `angle` in 2D, `rotation` in 3D (the other
    /// dimension's key is an error naming its path).
    fn ragdoll_rotation(path: &str, r: &crate::spec::RagdollSpec) -> Result<sinew::RotOf<Self>, SceneError>;
    /// Builds the collider for a shape key.
    fn collider_def(path: &str, kind: &str, s: &ShapeSpec) -> Result<ColliderDef<Self>, SceneError>;
    /// Adds the joint limits of this dimension (and rejects those of the other).
    fn add_joint_limits(
        spec: &SceneSpec,
        world: &mut World<Self>,
        handles: &[ParticleHandle],
    ) -> Result<(), SceneError>;
}

/// The quaternion `[x, y, z, w]` at `{path}.rotation` (normalised), the identity if absent.
fn quaternion<R: Real>(path: &str, q: Option<&[f64]>) -> Result<Quat<R>, SceneError> {
    let Some(q) = q else { return Ok(Quat::IDENTITY) };
    let rp = format!("{path}.rotation");
    if q.len() != 4 {
        return Err(err(&rp, format!("must be a quaternion [x, y, z, w], found {} numbers", q.len())));
    }
    for (i, c) in q.iter().enumerate() {
        finite(&format!("{rp}[{i}]"), *c)?;
    }
    // Normalised here, in f64 and scaled by the largest component first, so that any
    // finite quaternion keeps its meaning: components of 10³⁰ would overflow f32's
    // squares (and the rotation become the identity) or saturate fixed point.
    let big = q.iter().fold(0.0f64, |m, c| m.max(c.abs()));
    let scaled: Vec<f64> = q.iter().map(|c| c / big).collect();
    let norm = scaled.iter().map(|c| c * c).sum::<f64>().sqrt();
    if big == 0.0 || norm * big < 1e-6 {
        return Err(err(&rp, "must not be a zero quaternion (its length is below 1e-6: no rotation to normalise)"));
    }
    let c = |i: usize| R::from_f64(scaled[i] / norm);
    Ok(Quat::from_xyzw(c(0), c(1), c(2), c(3)))
}

fn wrong_dim(path: &str, kind: &str, dim: usize) -> SceneError {
    err(path, format!("`{kind}` is not available in {dim}D scenes"))
}

fn deg<R: Real>(path: &str, v: f64) -> Result<R, SceneError> {
    Ok(R::from_f64(finite(path, v)?.to_radians()))
}

/// An oriented box (same keys in 2D and 3D; the rotation is parsed by the caller).
fn cuboid_def<S: SceneSpace>(path: &str, s: &ShapeSpec, rot: sinew::RotOf<S>) -> Result<ColliderDef<S>, SceneError> {
    let c = vector::<S>(&format!("{path}.center"), required(path, "center", &s.center)?)?;
    let h = vector::<S>(&format!("{path}.half_extents"), required(path, "half_extents", &s.half_extents)?)?;
    for i in 0..S::DIM {
        positive(&format!("{path}.half_extents[{i}]"), h.get(i).to_f64())?;
    }
    let shape = Shape::cuboid(h).map_err(|e| err(path, e.to_string()))?;
    Ok(ColliderDef::new(shape).position(c).rotation(rot))
}

/// A convex polygon (2D) or hull (3D) from `points`, placed at `position`.
fn convex_def<S: SceneSpace>(path: &str, s: &ShapeSpec, rot: sinew::RotOf<S>) -> Result<ColliderDef<S>, SceneError> {
    let pts = required(path, "points", &s.points)?;
    let mut v = Vec::with_capacity(pts.len());
    for (i, p) in pts.iter().enumerate() {
        v.push(vector::<S>(&format!("{path}.points[{i}]"), p)?);
    }
    let pos = match &s.position {
        Some(p) => vector::<S>(&format!("{path}.position"), p)?,
        None => sinew::VecOf::<S>::ZERO,
    };
    let shape = Shape::convex(&v).map_err(|e| err(format!("{path}.points"), e.to_string()))?;
    Ok(ColliderDef::new(shape).position(pos).rotation(rot))
}

/// Spawns one ragdoll spec (shared by both dimensions once the rig is chosen).
#[allow(clippy::too_many_arguments)]
fn spawn_ragdoll<S: SceneSpace>(
    path: &str,
    r: &crate::spec::RagdollSpec,
    rig: &sinew::RigDef<S>,
    pose: Option<sinew::Pose<S>>,
    muscle_presets: Option<&[sinew::TargetPose<S::Real>]>,
    world: &mut World<S>,
    handles: &mut Vec<ParticleHandle>,
    out: &mut Vec<SceneRagdoll>,
    muscles: &mut Vec<sinew::MuscleRagdollHandle<S>>,
) -> Result<(), SceneError> {
    let origin = vector::<S>(&format!("{path}.origin"), &r.origin)?;
    let scale = positive(&format!("{path}.scale"), r.scale.unwrap_or(1.0))?;
    let velocity = match &r.velocity {
        Some(v) => vector::<S>(&format!("{path}.velocity"), v)?,
        None => sinew::VecOf::<S>::ZERO,
    };
    let scale = S::Real::from_f64(scale);
    let rot = S::ragdoll_rotation(path, r)?;
    let state = match pose {
        Some(p) => {
            let pose = p.transformed(origin, rot, scale);
            let n = pose.len();
            let mut st = SpawnDef::at_rest(pose).with_scale(scale);
            st.velocities = vec![velocity; n];
            st
        }
        None => SpawnDef::from_rig(rig, origin, rot, scale, velocity),
    };
    let e = |e: sinew::SinewError| crate::build::sinew_err(path, e);
    let hit = match &r.impulse {
        Some(imp) => Some((
            vector::<S>(&format!("{path}.impulse.at"), &imp.at)?,
            vector::<S>(&format!("{path}.impulse.impulse"), &imp.impulse)?,
        )),
        None => None,
    };
    let hit_err = |x: sinew::SinewError| err(format!("{path}.impulse"), x.to_string());
    let nodes = match muscle_presets {
        Some(p) => {
            let m = MuscleRagdoll::spawn(world, rig, &MuscleRagdollDef::default(), p, &state).map_err(e)?;
            if let Some((at, j)) = hit {
                m.apply_impulse_at(world, at, j).map_err(hit_err)?;
            }
            let nodes = world.controller(m).map_err(e)?.nodes().to_vec();
            muscles.push(m);
            nodes
        }
        None => {
            let rd = sinew::Ragdoll::spawn_with(world, rig, &state).map_err(e)?;
            if let Some((at, j)) = hit {
                rd.apply_impulse_at(world, at, j).map_err(hit_err)?;
            }
            rd.nodes().to_vec()
        }
    };
    let first = handles.len();
    handles.extend_from_slice(&nodes);
    let bones = rig.resolve().map(|r| r.bones.iter().map(|&(a, b, _, _)| (a, b)).collect()).unwrap_or_default();
    out.push(SceneRagdoll {
        first_index: first,
        count: nodes.len(),
        names: rig.nodes.iter().map(|n| n.name.clone()).collect(),
        bones,
    });
    Ok(())
}

impl<R: SceneReal> SceneSpace for Space2<R> {
    fn fighter_rig(
        path: &str,
        name: &str,
    ) -> Result<(sinew::RigDef<Self>, Vec<sinew::ragdoll::DrivePartDef<R>>), SceneError> {
        match name {
            "humanoid16" => Ok((presets::humanoid16::<R>(), sinew::ragdoll::drive_parts::humanoid16_parts())),
            "humanoid3d" => Err(err(path, "\"humanoid3d\" needs a 3D scene")),
            _ => Err(err(path, format!("unknown rig {name:?}: 2D fighters are \"humanoid16\""))),
        }
    }
    fn add_ragdolls(
        spec: &SceneSpec,
        world: &mut World<Self>,
        handles: &mut Vec<ParticleHandle>,
        out: &mut Vec<SceneRagdoll>,
        muscles: &mut Vec<sinew::MuscleRagdollHandle<Self>>,
    ) -> Result<(), SceneError> {
        for (i, r) in spec.ragdolls.iter().enumerate() {
            let path = format!("ragdolls[{i}]");
            let muscled = r.muscles.unwrap_or(false);
            let pose =
                |rig: &sinew::RigDef<Self>, default: Option<&str>| -> Result<Option<sinew::Pose<Self>>, SceneError> {
                    let Some(name) = r.pose.as_deref().or(default) else { return Ok(None) };
                    let all = presets::humanoid16_poses::<R>();
                    let Some((_, p)) = all.into_iter().find(|(n, _)| *n == name) else {
                        return Err(err(
                            format!("{path}.pose"),
                            format!("unknown pose `{name}` (stance, crouch, upright)"),
                        ));
                    };
                    // The poses are for the stabilised rig, whose first nodes are the plain
                    // rig's; the plain rig takes those.
                    let n = rig.nodes.len().min(p.positions.len());
                    Ok(Some(sinew::Pose::new(p.positions[..n].to_vec())))
                };
            match (r.preset.as_str(), muscled) {
                ("humanoid16", false) => {
                    let rig = presets::humanoid16::<R>();
                    let p = pose(&rig, None)?;
                    spawn_ragdoll(&path, r, &rig, p, None, world, handles, out, muscles)?
                }
                ("humanoid16", true) => {
                    let targets = presets::humanoid16_targets::<R>();
                    let rig = presets::humanoid16_stabilised::<R>();
                    let p = pose(&rig, Some("stance"))?;
                    spawn_ragdoll(&path, r, &rig, p, Some(&targets), world, handles, out, muscles)?
                }
                (other, _) => {
                    return Err(err(
                        format!("{path}.preset"),
                        format!("unknown 2D preset `{other}` (expected \"humanoid16\")"),
                    ));
                }
            }
        }
        Ok(())
    }

    fn ragdoll_rotation(path: &str, r: &crate::spec::RagdollSpec) -> Result<Rot2<R>, SceneError> {
        if r.rotation.is_some() {
            return Err(err(format!("{path}.rotation"), "2D ragdolls take `angle` (radians)"));
        }
        let angle = finite(&format!("{path}.angle"), r.angle.unwrap_or(0.0))?;
        Ok(Rot2::from_angle(R::from_f64(angle)))
    }

    fn collider_def(path: &str, kind: &str, s: &ShapeSpec) -> Result<ColliderDef<Self>, SceneError> {
        if let Some(d) = common_shape::<Self>(path, kind, s)? {
            if kind == "sphere" {
                return Err(wrong_dim(path, "sphere", 2));
            }
            return Ok(d);
        }
        let angle = R::from_f64(finite(&format!("{path}.angle"), s.angle.unwrap_or(0.0))?);
        let rot = Rot2::from_angle(angle);
        match kind {
            "box" => {
                if s.rotation.is_some() {
                    return Err(err(format!("{path}.rotation"), "2D boxes take `angle` (radians)"));
                }
                cuboid_def::<Self>(path, s, rot)
            }
            "polygon" => convex_def::<Self>(path, s, rot),
            "hull" => Err(wrong_dim(path, "hull", 2)),
            _ => Err(err(path, format!("unknown shape `{kind}`"))),
        }
    }

    fn add_joint_limits(
        spec: &SceneSpec,
        world: &mut World<Self>,
        handles: &[ParticleHandle],
    ) -> Result<(), SceneError> {
        if !spec.swing_twist_limits.is_empty() {
            return Err(err("swing_twist_limits", "swing-twist limits are for 3D scenes; use angle_limits in 2D"));
        }
        for (i, l) in spec.angle_limits.iter().enumerate() {
            let path = format!("angle_limits[{i}]");
            let d = {
                let mut d = AngleLimitDef::new(
                    index(&format!("{path}.a"), l.a, handles)?,
                    index(&format!("{path}.b"), l.b, handles)?,
                    index(&format!("{path}.c"), l.c, handles)?,
                    deg(&format!("{path}.min_deg"), l.min_deg)?,
                    deg(&format!("{path}.max_deg"), l.max_deg)?,
                );
                d.compliance = R::from_f64(non_negative(&format!("{path}.compliance"), l.compliance.unwrap_or(0.0))?);
                d
            };
            world.add_joint_limit(&d).map_err(|e| crate::build::sinew_err(&path, e))?;
        }
        Ok(())
    }
}

impl<R: SceneReal> SceneSpace for Space3<R> {
    fn fighter_rig(
        path: &str,
        name: &str,
    ) -> Result<(sinew::RigDef<Self>, Vec<sinew::ragdoll::DrivePartDef<R>>), SceneError> {
        match name {
            "humanoid3d" => Ok((presets::humanoid3d::<R>(), sinew::ragdoll::drive_parts::humanoid3d_parts())),
            "humanoid16" => Err(err(path, "\"humanoid16\" needs a 2D scene")),
            _ => Err(err(path, format!("unknown rig {name:?}: 3D fighters are \"humanoid3d\""))),
        }
    }
    fn add_ragdolls(
        spec: &SceneSpec,
        world: &mut World<Self>,
        handles: &mut Vec<ParticleHandle>,
        out: &mut Vec<SceneRagdoll>,
        muscles: &mut Vec<sinew::MuscleRagdollHandle<Self>>,
    ) -> Result<(), SceneError> {
        for (i, r) in spec.ragdolls.iter().enumerate() {
            let path = format!("ragdolls[{i}]");
            let muscled = r.muscles.unwrap_or(false);
            let pose =
                |rig: &sinew::RigDef<Self>, default: Option<&str>| -> Result<Option<sinew::Pose<Self>>, SceneError> {
                    let Some(name) = r.pose.as_deref().or(default) else { return Ok(None) };
                    let all = presets::humanoid3d_poses::<R>();
                    let Some((_, p)) = all.into_iter().find(|(n, _)| *n == name) else {
                        return Err(err(
                            format!("{path}.pose"),
                            format!("unknown pose `{name}` (stance, guard, crouch, fallen)"),
                        ));
                    };
                    // The poses are for the stabilised rig, whose first nodes are the plain
                    // rig's; the plain rig takes those.
                    let n = rig.nodes.len().min(p.positions.len());
                    Ok(Some(sinew::Pose::new(p.positions[..n].to_vec())))
                };
            match (r.preset.as_str(), muscled) {
                ("humanoid3d", false) => {
                    let rig = presets::humanoid3d::<R>();
                    let p = pose(&rig, None)?;
                    spawn_ragdoll(&path, r, &rig, p, None, world, handles, out, muscles)?
                }
                ("humanoid3d", true) => {
                    let targets = presets::humanoid3d_targets::<R>();
                    let rig = presets::humanoid3d_stabilised::<R>();
                    let p = pose(&rig, Some("stance"))?;
                    spawn_ragdoll(&path, r, &rig, p, Some(&targets), world, handles, out, muscles)?
                }
                (other, _) => {
                    return Err(err(
                        format!("{path}.preset"),
                        format!("unknown 3D preset `{other}` (expected \"humanoid3d\")"),
                    ));
                }
            }
        }
        Ok(())
    }

    fn ragdoll_rotation(path: &str, r: &crate::spec::RagdollSpec) -> Result<Quat<R>, SceneError> {
        if r.angle.is_some() {
            return Err(err(format!("{path}.angle"), "3D ragdolls take `rotation` as a quaternion [x, y, z, w]"));
        }
        quaternion::<R>(path, r.rotation.as_deref())
    }

    fn collider_def(path: &str, kind: &str, s: &ShapeSpec) -> Result<ColliderDef<Self>, SceneError> {
        if let Some(d) = common_shape::<Self>(path, kind, s)? {
            if kind == "circle" {
                return Err(wrong_dim(path, "circle", 3));
            }
            return Ok(d);
        }
        if s.angle.is_some() {
            return Err(err(format!("{path}.angle"), "3D shapes take `rotation` as a quaternion [x, y, z, w]"));
        }
        let rot = quaternion::<R>(path, s.rotation.as_deref())?;
        match kind {
            "box" => cuboid_def::<Self>(path, s, rot),
            "hull" => convex_def::<Self>(path, s, rot),
            "polygon" => Err(wrong_dim(path, "polygon", 3)),
            _ => Err(err(path, format!("unknown shape `{kind}`"))),
        }
    }

    fn add_joint_limits(
        spec: &SceneSpec,
        world: &mut World<Self>,
        handles: &[ParticleHandle],
    ) -> Result<(), SceneError> {
        if !spec.angle_limits.is_empty() {
            return Err(err("angle_limits", "angle limits are for 2D scenes; use swing_twist_limits in 3D"));
        }
        for (i, l) in spec.swing_twist_limits.iter().enumerate() {
            let path = format!("swing_twist_limits[{i}]");
            let opt = |key: &str, v: Option<i64>| -> Result<Option<ParticleHandle>, SceneError> {
                v.map(|i| index(&format!("{path}.{key}"), i, handles)).transpose()
            };
            let d = {
                let mut d = SwingTwistLimitDef::new(
                    index(&format!("{path}.a"), l.a, handles)?,
                    index(&format!("{path}.b"), l.b, handles)?,
                    index(&format!("{path}.c"), l.c, handles)?,
                    deg(&format!("{path}.swing_deg"), l.swing_deg)?,
                );
                d.parent_ref = opt("parent_ref", l.parent_ref)?;
                d.child_ref = opt("child_ref", l.child_ref)?;
                d.twist_min = deg(&format!("{path}.twist_min_deg"), l.twist_min_deg.unwrap_or(-180.0))?;
                d.twist_max = deg(&format!("{path}.twist_max_deg"), l.twist_max_deg.unwrap_or(180.0))?;
                d.compliance = R::from_f64(non_negative(&format!("{path}.compliance"), l.compliance.unwrap_or(0.0))?);
                d
            };
            world.add_joint_limit(&d).map_err(|e| crate::build::sinew_err(&path, e))?;
        }
        Ok(())
    }
}
