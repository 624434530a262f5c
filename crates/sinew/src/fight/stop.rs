//! Where a strike stops: the first bone of the opponent that the striking fist or foot
//! meets, or the first pose in which any bone of the striking limb would sink into the
//! opponent.
//!
//! A striking effector is a kinematic particle (infinite mass) moved along its IK path;
//! the body contacts can then push only what it meets. Two checks bound its motion of a
//! frame, from `x` to `x₁`:
//!
//! 1. **The effector** ([`stop_at_body`]): its sphere is swept along `x → x₁` against the
//!    opponent's bone capsules and the motion ends at the first touch, let a few
//!    millimetres in so that the hit detection after the step sees the touch.
//! 2. **The whole limb** ([`stop_chain`]): the kinematic effector pulls the rest of the
//!    limb after it through its bones, so an elbow or upper arm, which the body contacts
//!    would otherwise push out, is dragged into whatever it meets (a hook's upper arm into
//!    the opponent's torso). The limb's pose with the effector at `x(s) = x + s·(x₁ − x)`
//!    is predicted by the two-bone IK of the strike (root fixed, middle joint from
//!    [`aim_ik`], the other nodes of the upper part moving with the middle joint), and its
//!    depth into the opponent is the largest `rᵢ + rⱼ − dist(boneᵢ, boneⱼ)` over the
//!    limb's bones `i` and the opponent's bones `j` (each capsule at its smaller end
//!    radius). The step keeps the largest `s` (8 samples, then 8 bisections) at which that
//!    depth stays within [`chain_tolerance`] (or within the depth the limb already has, when
//!    the opponent moved into it): the strike is shortened, not bent through the body. The
//!    opponent's striking effector is taken where its target puts it at the end of the
//!    frame, once it has one: after every fighter has aimed, the bout checks each strike
//!    again against the others' targets (two fists crossing).

use crate::SinewError;
use crate::math::{Real, Vector};
use crate::particle::{ParticleHandle, ParticleSet};
use crate::ragdoll::RigDef;
use crate::space::{RealOf, VecOf};

use crate::contact::bodies::segment::closest_params;

use super::FightSpace;
use super::strike::{aim_ik, sweep_capsule};

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

/// How deep (m) a bone of the striking limb may be predicted into the opponent: a quarter
/// of the 2 cm the bouts are held to, the rest left for what the opponent does during the
/// step.
#[must_use]
pub(super) fn chain_tolerance<R: Real>() -> R {
    R::from_ratio(5, 1000)
}

/// A bone as node indices and end radii.
pub(super) type Bone<R> = ([u32; 2], [R; 2]);

/// The striking limb: its nodes (root, middle joint, effector; the rig's node indices),
/// bone lengths, and its bones (see the module docs).
pub(super) struct Chain<'a, S: FightSpace> {
    /// The fighter's particles.
    pub nodes: &'a [ParticleHandle],
    /// Root, middle joint, effector.
    pub joints: [u32; 3],
    /// Upper and lower bone lengths.
    pub lengths: [RealOf<S>; 2],
    /// The limb's colliding bones.
    pub bones: &'a [Bone<RealOf<S>>],
    /// The bend used when the middle joint lies on the line root → goal.
    pub bend: VecOf<S>,
}

/// The deepest overlap (m; negative when clear) of bones `mine` (positions by `at`) with
/// the opponent's bones `theirs` (positions by `their`), each at its smaller end radius.
fn depth<S: FightSpace>(
    mine: &[Bone<RealOf<S>>],
    at: impl Fn(u32) -> VecOf<S>,
    theirs: &[Bone<RealOf<S>>],
    their: impl Fn(u32) -> VecOf<S>,
) -> RealOf<S> {
    let mut deepest = -RealOf::<S>::MAX;
    for &([a, b], [ra, rb]) in mine {
        let (pa, pb) = (at(a), at(b));
        for &([c, d], [rc, rd]) in theirs {
            let (qc, qd) = (their(c), their(d));
            let (s, t) = closest_params(pa, pb, qc, qd);
            let gap = (pa.lerp(pb, s) - qc.lerp(qd, t)).length();
            deepest = deepest.max(ra.min(rb) + rc.min(rd) - gap);
        }
    }
    deepest
}

/// Where the effector of `chain`, moving from `x` to `to` this frame, stops so that no
/// bone of the limb sinks deeper than [`chain_tolerance`] into the opponent (`opp`, its
/// bones `opp_bones`), with the limb's depth now (see the module docs).
pub(super) fn stop_chain<S: FightSpace>(
    ps: &ParticleSet<S>,
    chain: &Chain<'_, S>,
    opp: &[ParticleHandle],
    opp_bones: &[Bone<RealOf<S>>],
    x: VecOf<S>,
    to: VecOf<S>,
) -> (VecOf<S>, RealOf<S>) {
    let pos = |k: u32| ps.pos[chain.nodes[k as usize].index()];
    // The opponent where it will be: its own striking effector at its target when it has
    // already been given one this frame.
    let their = |k: u32| {
        let i = opp[k as usize].index();
        ps.target[i].unwrap_or(ps.pos[i])
    };
    let [root, mid, end] = chain.joints;
    let (r, m) = (pos(root), pos(mid));
    let now = depth::<S>(chain.bones, pos, opp_bones, their);
    let allowed = now.max(chain_tolerance());
    // The limb's depth with the effector at x + s·(to − x): the IK's middle joint, the
    // upper part's other nodes carried with it.
    let at_s = |s: RealOf<S>| {
        let e = x + (to - x) * s;
        let (m1, _) = aim_ik(r, m, e, chain.lengths[0], chain.lengths[1], chain.bend);
        let place = |k: u32| {
            if k == root {
                r
            } else if k == end {
                e
            } else {
                pos(k) + (m1 - m)
            }
        };
        depth::<S>(chain.bones, place, opp_bones, their)
    };
    let one = RealOf::<S>::ONE;
    if at_s(one) <= allowed {
        return (to, now);
    }
    let steps = 8;
    let (mut lo, mut hi) = (RealOf::<S>::ZERO, one);
    for k in 1..=steps {
        let s = RealOf::<S>::from_ratio(k, steps);
        if at_s(s) > allowed {
            hi = s;
            break;
        }
        lo = s;
    }
    for _ in 0..8 {
        let s = (lo + hi) * RealOf::<S>::HALF;
        if at_s(s) > allowed {
            hi = s;
        } else {
            lo = s;
        }
    }
    (x + (to - x) * lo, now)
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
