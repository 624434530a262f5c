//! Where a strike stops: the first bone of the opponent that the striking fist or foot
//! meets.
//!
//! A striking effector is a kinematic particle (infinite mass) moved along its IK path;
//! the body contacts can then push only what it meets. This module sweeps the effector's
//! sphere along the frame's motion against the opponent's bone capsules and ends the
//! motion at the first touch, let a few millimetres in so that the hit detection after the
//! step sees the touch.

use crate::SinewError;
use crate::math::{Real, Vector};
use crate::particle::{ParticleHandle, ParticleSet};
use crate::ragdoll::RigDef;
use crate::space::{RealOf, VecOf};

use super::FightSpace;
use super::strike::sweep_capsule;

fn bad(what: &'static str, reason: &'static str) -> SinewError {
    SinewError::InvalidParameter { what, reason, value: None }
}

/// How far (m) a kinematic effector is let into the body it meets: enough for the sweep
/// after the step to see the touch, little enough for the body contacts to push it out.
fn stop_depth<R: Real>() -> R {
    R::from_ratio(5, 1000)
}

/// Where a kinematic effector of radius `rf` moving from `x` to `to` stops against the
/// opponent's bones (`bones`, node indices into `nodes`): the first touch of the swept sphere on any bone's capsule, let
/// [`stop_depth`] in. A kinematic particle has infinite mass, so the body contacts can
/// push only the bones it meets; without this stop a strike's fist or foot, moving up to
/// 15 cm a frame, would go through a guard or a torso held by its drives, and the bodies
/// would overlap by as much.
pub(super) fn stop_at_body<S: FightSpace>(
    ps: &ParticleSet<S>,
    nodes: &[ParticleHandle],
    bones: &[([u32; 2], [RealOf<S>; 2])],
    x: VecOf<S>,
    to: VecOf<S>,
    rf: RealOf<S>,
) -> VecOf<S> {
    let q = |k: u32| ps.pos[nodes[k as usize].index()];
    let (path, len) = (to - x).normalize_and_length();
    let mut t = RealOf::<S>::ONE;
    for &([a, b], [ra, rb]) in bones {
        // The capsule's radius varies along it; the smaller end's is a conservative stop.
        if let Some(h) = sweep_capsule(x, to, rf, q(a), q(b), ra.min(rb)) {
            t = t.min(h.t);
        }
    }
    if t >= RealOf::<S>::ONE {
        return to;
    }
    let stop = (len * t + stop_depth::<RealOf<S>>()).min(len);
    x + path * stop
}

/// A rig's bones whose both ends collide, as node indices and end radii.
#[allow(clippy::type_complexity)]
pub(super) fn colliding_bones<S: FightSpace>(rig: &RigDef<S>) -> Result<Vec<([u32; 2], [RealOf<S>; 2])>, SinewError> {
    use crate::ragdoll::NodeRef;
    let at = |r: &NodeRef| -> Result<usize, SinewError> {
        match r {
            NodeRef::Index(i) if *i < rig.nodes.len() => Ok(*i),
            NodeRef::Name(n) => rig.node_index(n).ok_or(bad("fighter rig", "a bone names an unknown node")),
            NodeRef::Index(_) => Err(bad("fighter rig", "a bone's node index is out of range")),
        }
    };
    let mut out = Vec::new();
    for b in &rig.bones {
        let (i, j) = (at(&b.a)?, at(&b.b)?);
        let (ni, nj) = (&rig.nodes[i], &rig.nodes[j]);
        if ni.collides && nj.collides {
            let k = |v: usize| u32::try_from(v).map_err(|_| bad("fighter rig", "too many nodes"));
            out.push(([k(i)?, k(j)?], [ni.radius, nj.radius]));
        }
    }
    Ok(out)
}
