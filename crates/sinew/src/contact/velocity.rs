//! The velocity pass: dynamic friction and restitution on a substep's contacts.

use super::Contact;
use super::narrow::closest;
use super::span::EdgeContact;
use crate::arena::Arena;
use crate::collider::Collider;
use crate::constraint::SubstepContext;
use crate::math::{Real, Rotation, Vector};
use crate::particle::ParticleSet;
use crate::space::{RealOf, Space, VecOf};

/// What the velocity pass reads and writes.
pub(crate) struct VelocityPass<'a, S: Space> {
    pub particles: &'a mut ParticleSet<S>,
    pub colliders: &'a Arena<Collider<S>>,
    pub contacts: &'a [Contact<S>],
    pub edge_contacts: &'a [EdgeContact<S>],
    /// Per particle slot: zero outside the pass (see `ContactScratch::span_push`).
    pub span_push: &'a mut Vec<VecOf<S>>,
    /// The approach speed of resting contact at this substep.
    pub rest_speed: RealOf<S>,
    /// Out: the particles given a bounce (an outward restitution target) this substep.
    pub bounced: &'a mut Vec<u32>,
    /// With whole-body restitution: the tree-solved bodies, whose contacts are inelastic
    /// here (their bounce is the body's, [`crate::contact::bounce`]).
    pub whole_bodies: Option<&'a crate::constraint::tree::Trees<S>>,
}

/// Dynamic friction and restitution (Müller et al. 2020, "Detailed Rigid Body
/// Simulation with Extended Position Based Dynamics", §3.6), and what is left of the
/// normal velocity.
///
/// The normal velocity is set to the restitution target (0 for a resting or inelastic
/// contact) when the particle still approaches — but an outward normal velocity is kept,
/// less the part that pushed the particle out of a penetration it started the substep
/// in and the part its rope spans' contacts pushed it. The outward part left is
/// motion: a particle sliding over a convex curve moves along a chord, which leaves the
/// surface's tangent at the end point at half the angle turned, `vn = v²h/2R` outward.
/// Next substep its path rises above the surface by twice the tangent's rise, `v²h²/R`,
/// while gravity pulls it in by `g·cos θ·h²`: it leaves the surface when
/// `v²/R > g·cos θ`, as in the continuous problem. Zeroing `vn` (the inelastic contact
/// of Müller et al.) halves the rise, so a particle sliding off a round post left it at
/// ~70° instead of 48°, whatever the substep count, and the surface pushed with
/// `m(g cos θ − v²/2R)` instead of `m(g cos θ − v²/R)`, over-stating friction on
/// curves. The push out of a starting penetration (a particle spawned inside a shape,
/// one of two wedging colliders, one a collider moved into) is not motion and is
/// removed, as before; so is a span contact's push (a rope spawned inside a shape).
/// Span contacts have no velocity pass of their own: a rope particle pushed only by
/// its spans keeps that push as velocity (a rope spawned 1 cm inside a ball rises
/// ~1 cm above it).
///
/// The start's depth costs a distance query only for a contact left moving outward
/// faster than `Real::ROUNDING_SLOP / h` (0.5 mm/s at the default step in `f32`; in
/// fixed point the square of its coarse geometric epsilon), and only when the
/// collider moves or the start lies below the contact plane (which supports a static
/// collider's inflated shape, so a start above it was outside).
#[inline(never)] // a stage of the step (see the note in `World::step_with`)
pub(crate) fn velocity_pass<S: Space>(v: VelocityPass<'_, S>, ctx: &SubstepContext<RealOf<S>>, f0: RealOf<S>) {
    let VelocityPass {
        particles: ps,
        colliders,
        contacts,
        edge_contacts,
        span_push,
        rest_speed,
        bounced,
        whole_bodies,
    } = v;
    bounced.clear();
    let zero = RealOf::<S>::ZERO;
    // Below this approach speed (`rest_speed`) a bounce is suppressed: it is what gravity
    // adds in two substeps, i.e. resting contact, not an impact.
    // An outward velocity below this (a rounding's worth of displacement per substep)
    // is dropped without looking at where the substep started.
    let tiny = RealOf::<S>::ROUNDING_SLOP * ctx.inv_h;
    // What the span contacts pushed each particle (their share of the contact point's
    // correction: `w_a·g_a/Σw·g²` of it for end `a`), summed only when a contact first
    // needs it (rare: most substeps leave no outward velocity to look at).
    let spans = !edge_contacts.is_empty();
    let mut pushes_summed = false;
    let sum_pushes = |span_push: &mut Vec<VecOf<S>>, inv_mass: &[RealOf<S>]| {
        if span_push.len() < inv_mass.len() {
            span_push.resize(inv_mass.len(), VecOf::<S>::ZERO);
        }
        for c in edge_contacts {
            let (a, b) = (c.a as usize, c.b as usize);
            let (ga, gb) = (RealOf::<S>::ONE - c.t, c.t);
            let (wa, wb) = (inv_mass[a], inv_mass[b]);
            let w = ga * ga * wa + gb * gb * wb;
            if c.dn > zero && w > zero {
                let s = c.dn / w;
                span_push[a] += c.normal * (wa * ga * s);
                span_push[b] += c.normal * (wb * gb * s);
            }
        }
    };
    for c in contacts {
        if c.dn <= zero {
            continue;
        }
        let k = c.particle as usize;
        let mut v = ps.vel[k];
        let vrel = v - c.v_col;
        let vn = c.normal.dot(vrel);
        let vt = vrel - c.normal * vn;
        let (t, lt) = vt.normalize_and_length();
        if lt > zero && c.mu_d > zero {
            v -= t * (c.mu_d * c.dn * ctx.inv_h).min(lt);
        }
        let own = whole_bodies.is_none_or(|t| !t.holds(k));
        let e = if -c.vn_pre <= rest_speed || !own { zero } else { c.restitution };
        let target = (-e * c.vn_pre).max(zero);
        if target > zero {
            bounced.push(c.particle);
        }
        let mut kept = target;
        if vn > target + tiny {
            let xp = ps.prev[k];
            let depth = match colliders.values[c.collider as usize].as_ref() {
                Some(col) if col.is_moving() || c.normal.dot(xp) < c.d => {
                    let (p0, r0) = col.pose_at(f0);
                    (ps.radius[k] - closest(&col.shape, r0.inverse_rotate(xp - p0)).distance).max(zero)
                }
                _ => zero,
            };
            let pushed = if spans {
                if !pushes_summed {
                    sum_pushes(span_push, &ps.inv_mass);
                    pushes_summed = true;
                }
                c.normal.dot(span_push[k]).max(zero)
            } else {
                zero
            };
            kept = (vn - (depth + pushed) * ctx.inv_h).max(target);
        }
        v += c.normal * (kept - vn);
        ps.vel[k] = v;
    }
    if pushes_summed {
        for c in edge_contacts {
            span_push[c.a as usize] = VecOf::<S>::ZERO;
            span_push[c.b as usize] = VecOf::<S>::ZERO;
        }
    }
}
