//! Reeling: changing a rope's length at runtime, at either end, with no particle pool.
//!
//! The end segment absorbs every change of length: its rest length grows or shrinks
//! continuously (so the rope is pulled in or paid out smoothly, with no jump in any rest
//! length). When it passes 1.5× the nominal segment length a particle is inserted on it,
//! splitting it into a nominal segment and the remainder; when it drops below 0.5× (and
//! the rope has more than one segment) the particle next to the end is removed and its
//! two segments merge. Inserted particles get the interpolated position and velocity of
//! the segment they split, so nothing pops.

use super::{Rope, RopeEnd, RopeHandle, RopeHost};
use crate::SinewError;
use crate::math::{Real, Vector};
use crate::particle::ParticleDef;
use crate::space::{RealOf, Space};

/// Sets a rope's total rest length (m) by lengthening or shortening the segment at
/// `end`, inserting or removing particles as needed. Lengths below 1 mm are clamped
/// to 1 mm (a rope cannot vanish into its winch).
pub(crate) fn set_length<S: Space>(
    host: &mut impl RopeHost<S>,
    h: RopeHandle,
    end: RopeEnd,
    length: RealOf<S>,
) -> Result<(), SinewError> {
    if !length.is_finite() {
        return Err(SinewError::NonFinite { what: "rope length" });
    }
    let min_len = RealOf::<S>::from_ratio(1, 1000);
    let length = length.max(min_len);
    let rope = rope_mut(host, h)?;
    rope.sleep.wake();
    let current = rope.rest_length();
    let change = length - current;
    // A taut rope reeled at its start pays out (or takes in) on its start side.
    if end == RopeEnd::Start {
        rope.taut.split = (rope.taut.split + change).max(RealOf::<S>::ZERO);
    }
    // Taking in more than the end segment holds: merge segments into it first, so the
    // whole change lands (a clamp at the end segment would lose the rest of it).
    loop {
        let rope = rope_mut(host, h)?;
        let last = rope.rest.len() - 1;
        let j = if end == RopeEnd::Start { 0 } else { last };
        if rope.rest.len() > 1 && rope.rest[j] + change < rope.segment_length * RealOf::<S>::HALF {
            merge_end_segment(host, h, end)?;
        } else {
            rope.rest[j] = (rope.rest[j] + change).max(min_len);
            break;
        }
    }
    // Split or merge until the end segment is within [0.5, 1.5] × nominal.
    for _ in 0..10_000 {
        let rope = rope_mut(host, h)?;
        let nominal = rope.segment_length;
        let last = rope.rest.len() - 1;
        let j = if end == RopeEnd::Start { 0 } else { last };
        if rope.rest[j] > nominal * RealOf::<S>::from_ratio(3, 2) {
            split_end_segment(host, h, end)?;
        } else if rope.rest[j] < nominal * RealOf::<S>::HALF && rope.rest.len() > 1 {
            merge_end_segment(host, h, end)?;
        } else {
            break;
        }
    }
    Ok(())
}

/// Inserts a particle on the end segment, a nominal length in from its inner end.
fn split_end_segment<S: Space>(host: &mut impl RopeHost<S>, h: RopeHandle, end: RopeEnd) -> Result<(), SinewError> {
    let rope = rope_mut(host, h)?;
    let last = rope.rest.len() - 1;
    // Segment j joins the end particle `e` and the inner particle `i`.
    let (j, e, i) = if end == RopeEnd::Start { (0, 0, 1) } else { (last, last + 1, last) };
    let (pe, pi) = (rope.particles[e], rope.particles[i]);
    let nominal = rope.segment_length;
    let rest_j = rope.rest[j];
    let frac = nominal / rest_j; // from the inner particle toward the end
    let (mass, radius, friction) = (rope.density * nominal, rope.radius, rope.friction);
    let ps = host.particles();
    let (xe, xi) = (ps.pos[pe.index()], ps.pos[pi.index()]);
    let (ve, vi) = (ps.vel[pi.index()], ps.vel[pe.index()]);
    let mut def = ParticleDef::<S>::at(xi.lerp(xe, frac));
    def.velocity = ve.lerp(vi, frac);
    def.mass = mass;
    def.radius = radius;
    def.friction = friction;
    def.gravity_scale = ps.gravity_scale[pi.index()];
    def.groups = ps.groups[pi.index()];
    let q = host.add_particle(&def)?;
    let rope = rope_mut(host, h)?;
    let zero = RealOf::<S>::ZERO;
    if end == RopeEnd::Start {
        rope.particles.insert(1, q);
        rope.idx.insert(1, q.index() as u32);
        rope.rest[0] = rest_j - nominal;
        rope.rest.insert(1, nominal);
        rope.lambda.insert(1, zero);
        if rope.rest.len() >= 2 {
            rope.bend_rest.insert(0, zero);
            rope.bend_lambda.insert(0, zero);
        }
    } else {
        rope.particles.insert(last + 1, q);
        rope.idx.insert(last + 1, q.index() as u32);
        rope.rest[last] = nominal;
        rope.rest.push(rest_j - nominal);
        rope.lambda.push(zero);
        if rope.rest.len() >= 2 {
            rope.bend_rest.push(zero);
            rope.bend_lambda.push(zero);
        }
    }
    refresh_bend_rest(host, h)
}

/// Removes the particle next to the end and merges its two segments.
fn merge_end_segment<S: Space>(host: &mut impl RopeHost<S>, h: RopeHandle, end: RopeEnd) -> Result<(), SinewError> {
    let rope = rope_mut(host, h)?;
    let last = rope.rest.len() - 1;
    let removed = if end == RopeEnd::Start {
        let p = rope.particles.remove(1);
        rope.idx.remove(1);
        let r0 = rope.rest.remove(0);
        rope.rest[0] += r0;
        rope.lambda.remove(0);
        p
    } else {
        let p = rope.particles.remove(last);
        rope.idx.remove(last);
        let r = rope.rest.pop().unwrap_or(RealOf::<S>::ZERO);
        rope.rest[last - 1] += r;
        rope.lambda.pop();
        p
    };
    if !rope.bend_rest.is_empty() {
        if end == RopeEnd::Start {
            rope.bend_rest.remove(0);
            rope.bend_lambda.remove(0);
        } else {
            rope.bend_rest.pop();
            rope.bend_lambda.pop();
        }
    }
    // The removed particle belongs to no other constraint of the rope.
    host.remove_rope_particle(removed)?;
    refresh_bend_rest(host, h)
}

/// Bending rest values follow a straight rest shape for reeled ropes.
fn refresh_bend_rest<S: Space>(host: &mut impl RopeHost<S>, h: RopeHandle) -> Result<(), SinewError> {
    let rope = rope_mut(host, h)?;
    let n = rope.idx.len().saturating_sub(2);
    rope.bend_rest.resize(n, RealOf::<S>::ZERO);
    rope.bend_lambda.resize(n, RealOf::<S>::ZERO);
    Ok(())
}

/// The rope behind `h`.
pub(crate) fn rope_mut<S: Space>(host: &mut impl RopeHost<S>, h: RopeHandle) -> Result<&mut Rope<S>, SinewError> {
    host.ropes_mut().get_mut(h.0).ok_or(SinewError::InvalidHandle { what: "rope", handle: Some(h.0) })
}
