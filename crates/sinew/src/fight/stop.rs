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

/// The opponent's bones where [`stop_chain`] sees them: ends, smaller radius, and a
/// bounding sphere (centre, radius + half length) for the cull.
#[derive(Clone, Copy)]
struct Placed<V, R> {
    ends: [V; 2],
    radius: R,
    centre: V,
    reach: R,
}

/// Opponent bones [`stop_chain`] places on the stack (a rig with more is checked
/// without the cull).
const PLACED: usize = 64;

/// How much the cull's bound is widened (m), so that rounding in it (in `f32` or fixed
/// point) can never drop a pair that the exact test would count.
fn cull_slack<R: Real>() -> R {
    R::from_ratio(1, 1000)
}

/// The deepest overlap (m) of bones `mine` (positions by `at`) with the opponent's bones
/// `theirs`, each at its smaller end radius, **where it exceeds `floor`**; otherwise
/// `floor`. So `max(exact, floor)`, bit for bit, while a pair whose bounding spheres are
/// too far apart to reach above the running maximum is skipped without its closest-points
/// test (the spheres bound the gap: `gap ≥ |cᵢ − cⱼ| − hᵢ − hⱼ` with `h` the half lengths).
/// With `stop_at_first`, it returns as soon as a pair exceeds `floor` (that pair's depth,
/// not necessarily the deepest).
fn depth_over<S: FightSpace>(
    mine: &[Bone<RealOf<S>>],
    at: impl Fn(u32) -> VecOf<S>,
    theirs: &[Placed<VecOf<S>, RealOf<S>>],
    floor: RealOf<S>,
    stop_at_first: bool,
) -> RealOf<S> {
    let (half, zero) = (RealOf::<S>::HALF, RealOf::<S>::ZERO);
    let mut deepest = floor;
    for &([a, b], [ra, rb]) in mine {
        let (pa, pb) = (at(a), at(b));
        let r = ra.min(rb);
        let (c, reach) = ((pa + pb) * half, r + (pb - pa).length() * half);
        for o in theirs {
            let bound = reach + o.reach - deepest + cull_slack::<RealOf<S>>();
            if bound <= zero || (c - o.centre).length_squared() >= bound * bound {
                continue;
            }
            let [qc, qd] = o.ends;
            let (s, t) = closest_params(pa, pb, qc, qd);
            let gap = (pa.lerp(pb, s) - qc.lerp(qd, t)).length();
            let d = r + o.radius - gap;
            if d > deepest {
                deepest = d;
                if stop_at_first {
                    return deepest;
                }
            }
        }
    }
    deepest
}

/// Where the effector of `chain`, moving from `x` to `to` this frame, stops so that no
/// bone of the limb sinks deeper than [`chain_tolerance`] into the opponent (`opp`, its
/// bones `opp_bones`), with the limb's depth now where it exceeds [`chain_tolerance`]
/// (else the tolerance; see the module docs).
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
    let [root, mid, _] = chain.joints;
    let (r, m) = (pos(root), pos(mid));
    // The opponent's bones placed once for every sample below.
    let zero = VecOf::<S>::ZERO;
    let blank = Placed { ends: [zero; 2], radius: RealOf::<S>::ZERO, centre: zero, reach: RealOf::<S>::ZERO };
    let mut placed = [blank; PLACED];
    let n = opp_bones.len();
    if n > PLACED {
        return stop_chain_unculled(chain, opp_bones, their, pos, x, to);
    }
    for (o, &([c, d], [rc, rd])) in placed.iter_mut().zip(opp_bones) {
        let (qc, qd) = (their(c), their(d));
        let radius = rc.min(rd);
        let reach = radius + (qd - qc).length() * RealOf::<S>::HALF;
        *o = Placed { ends: [qc, qd], radius, centre: (qc + qd) * RealOf::<S>::HALF, reach };
    }
    let theirs = &placed[..n];
    // Only whether the limb is deeper than the tolerance matters (the caller compares
    // `now` with twice it), so the depth below it is not worked out.
    let now = depth_over::<S>(chain.bones, pos, theirs, chain_tolerance(), false);
    let allowed = now;
    let at_s = |s: RealOf<S>| {
        let reach = Reach::new(chain, (r, m), x + (to - x) * s);
        depth_over::<S>(chain.bones, |k| reach.place(k, &pos), theirs, allowed, true) > allowed
    };
    (shorten(x, to, at_s), now)
}

/// The limb's pose with its effector at `e`, as [`stop_chain`] predicts it: the root
/// where it is, the middle joint where [`aim_ik`] puts it, and the upper part's other
/// nodes carried with the middle joint.
struct Reach<S: FightSpace> {
    root: u32,
    end: u32,
    r: VecOf<S>,
    e: VecOf<S>,
    /// The middle joint's move.
    shift: VecOf<S>,
}

impl<S: FightSpace> Reach<S> {
    /// The pose for root and middle joint at `(r, m)` now and the effector at `e`.
    fn new(chain: &Chain<'_, S>, (r, m): (VecOf<S>, VecOf<S>), e: VecOf<S>) -> Self {
        let (m1, _) = aim_ik(r, m, e, chain.lengths[0], chain.lengths[1], chain.bend);
        Self { root: chain.joints[0], end: chain.joints[2], r, e, shift: m1 - m }
    }

    /// Where node `k`, now at `pos(k)`, is in this pose.
    #[inline]
    fn place(&self, k: u32, pos: &impl Fn(u32) -> VecOf<S>) -> VecOf<S> {
        if k == self.root {
            self.r
        } else if k == self.end {
            self.e
        } else {
            pos(k) + self.shift
        }
    }
}

/// The largest `s` (8 samples, then 8 bisections) at which `too_deep(s)` is false, as the
/// point `x + s·(to − x)`; `to` itself when it is not too deep.
fn shorten<V: Vector<R>, R: Real>(x: V, to: V, too_deep: impl Fn(R) -> bool) -> V {
    let one = R::ONE;
    if !too_deep(one) {
        return to;
    }
    let steps = 8;
    let (mut lo, mut hi) = (R::ZERO, one);
    for k in 1..=steps {
        let s = R::from_ratio(k, steps);
        if too_deep(s) {
            hi = s;
            break;
        }
        lo = s;
    }
    for _ in 0..8 {
        let s = (lo + hi) * R::HALF;
        if too_deep(s) {
            hi = s;
        } else {
            lo = s;
        }
    }
    x + (to - x) * lo
}

/// [`stop_chain`] for an opponent with more than [`PLACED`] bones: every pair tested.
fn stop_chain_unculled<S: FightSpace>(
    chain: &Chain<'_, S>,
    opp_bones: &[Bone<RealOf<S>>],
    their: impl Fn(u32) -> VecOf<S>,
    pos: impl Fn(u32) -> VecOf<S>,
    x: VecOf<S>,
    to: VecOf<S>,
) -> (VecOf<S>, RealOf<S>) {
    let depth = |at: &dyn Fn(u32) -> VecOf<S>| {
        let mut deepest = -RealOf::<S>::MAX;
        for &([a, b], [ra, rb]) in chain.bones {
            let (pa, pb) = (at(a), at(b));
            for &([c, d], [rc, rd]) in opp_bones {
                let (qc, qd) = (their(c), their(d));
                let (s, t) = closest_params(pa, pb, qc, qd);
                let gap = (pa.lerp(pb, s) - qc.lerp(qd, t)).length();
                deepest = deepest.max(ra.min(rb) + rc.min(rd) - gap);
            }
        }
        deepest
    };
    let [root, mid, _] = chain.joints;
    let (r, m) = (pos(root), pos(mid));
    let allowed = depth(&pos).max(chain_tolerance());
    let too_deep = |s: RealOf<S>| {
        let reach = Reach::new(chain, (r, m), x + (to - x) * s);
        depth(&|k| reach.place(k, &pos)) > allowed
    };
    (shorten(x, to, too_deep), allowed)
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
