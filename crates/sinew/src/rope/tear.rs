//! Tearing and cutting: a rope splits into two ropes that both keep simulating.
//!
//! Cutting segment `j` of a rope with particles `0 … n` leaves the particles `0 … j` as
//! the original rope and makes `j+1 … n` a new rope with the same material; the segment
//! itself (its rest length and multiplier) is dropped. Particles and their velocities are
//! untouched, so the pieces fly apart with the momentum they had. Tearing is a cut made
//! by the step when a segment's tension exceeds the rope's `tear_tension`.

use super::{Rope, RopeHandle};
use crate::SinewError;
use crate::arena::Arena;
use crate::sleep::Sleep;
use crate::space::Space;

/// Cuts segment `segment` (0-based from the start). Returns the handle of the new
/// piece (the part after the cut), or `None` when that part is a single particle,
/// which is then left as a free particle.
pub(crate) fn cut<S: Space>(
    ropes: &mut Arena<Rope<S>>,
    h: RopeHandle,
    segment: usize,
) -> Result<Option<RopeHandle>, SinewError> {
    let rope = ropes.get_mut(h.0).ok_or(SinewError::InvalidHandle { what: "rope", handle: Some(h.0) })?;
    if segment >= rope.rest.len() {
        return Err(SinewError::InvalidParameter { what: "rope segment", reason: "index out of range", value: None });
    }
    rope.sleep.wake();
    let tail_particles = rope.particles.split_off(segment + 1);
    let tail_idx = rope.idx.split_off(segment + 1);
    let mut tail_rest = rope.rest.split_off(segment);
    tail_rest.remove(0);
    let mut tail_lambda = rope.lambda.split_off(segment);
    tail_lambda.remove(0);
    let keep_bends = segment.saturating_sub(1).min(rope.bend_rest.len());
    let mut tail_bend_rest = rope.bend_rest.split_off(keep_bends);
    let mut tail_bend_lambda = rope.bend_lambda.split_off(keep_bends);
    // Bends spanning the cut (centred on particles `segment` and `segment + 1`) go; a cut
    // of the first segment has only the second (no bend is centred on an end particle).
    // (Dropping two there left the piece one bend short, and the solve indexed past it:
    // found by the scene fuzzer, fuzz/crashes/seed-393.json.)
    let drop = (if segment == 0 { 1 } else { 2 }).min(tail_bend_rest.len());
    tail_bend_rest.drain(..drop);
    tail_bend_lambda.drain(..drop);
    let piece = Rope {
        particles: tail_particles,
        idx: tail_idx,
        rest: tail_rest,
        lambda: tail_lambda,
        bend_rest: tail_bend_rest,
        bend_lambda: tail_bend_lambda,
        attached: [false, rope.attached[1]],
        ..rope.clone_material()
    };
    rope.attached[1] = false;
    // Both pieces start slack (their paths are found again by the switch).
    rope.taut.leave();
    let head_empty = rope.rest.is_empty();
    let piece_handle = if piece.rest.is_empty() { None } else { Some(RopeHandle(ropes.insert(piece))) };
    if head_empty {
        // The head is a lone particle: no longer a rope.
        ropes.remove(h.0);
    }
    Ok(piece_handle)
}

/// Takes particle `i` (counted from the start) out of rope `h`, for a particle that is being
/// removed from the world: an end particle takes its segment with it, an inner one splits
/// the rope in two around it (the part after it a new rope, as [`cut`] makes). A rope left
/// with a single particle is no rope any more and is removed (its particle stays, free).
/// Returns the new rope, if one was made.
pub(crate) fn detach<S: Space>(
    ropes: &mut Arena<Rope<S>>,
    h: RopeHandle,
    i: usize,
) -> Result<Option<RopeHandle>, SinewError> {
    let rope = ropes.get_mut(h.0).ok_or(SinewError::InvalidHandle { what: "rope", handle: Some(h.0) })?;
    let n = rope.particles.len();
    if i >= n {
        return Err(SinewError::InvalidParameter { what: "rope particle", reason: "index out of range", value: None });
    }
    rope.sleep.wake();
    rope.taut.leave();
    if n <= 2 {
        ropes.remove(h.0);
        return Ok(None);
    }
    if i == 0 || i == n - 1 {
        drop_end(rope, i == 0);
        // The rope's own particle next to it is the new end.
        rope.attached[usize::from(i != 0)] = false;
        return Ok(None);
    }
    // Inner: cut after it, then drop it from the head's end.
    let tail = cut(ropes, h, i)?;
    if let Some(head) = ropes.get_mut(h.0) {
        if head.particles.len() <= 2 {
            ropes.remove(h.0);
        } else {
            drop_end(head, false);
        }
    }
    Ok(tail)
}

/// Removes the first (`start`) or last particle of a rope of three or more, with its
/// segment and the bend centred next to it.
fn drop_end<S: Space>(rope: &mut Rope<S>, start: bool) {
    if start {
        rope.particles.remove(0);
        rope.idx.remove(0);
        rope.rest.remove(0);
        rope.lambda.remove(0);
        if !rope.bend_rest.is_empty() {
            rope.bend_rest.remove(0);
            rope.bend_lambda.remove(0);
        }
    } else {
        rope.particles.pop();
        rope.idx.pop();
        rope.rest.pop();
        rope.lambda.pop();
        rope.bend_rest.pop();
        rope.bend_lambda.pop();
    }
}

impl<S: Space> Rope<S> {
    /// A rope with this one's material and no particles.
    fn clone_material(&self) -> Self {
        Self {
            particles: Vec::new(),
            idx: Vec::new(),
            rest: Vec::new(),
            lambda: Vec::new(),
            bend_lambda: Vec::new(),
            bend_rest: Vec::new(),
            segment_length: self.segment_length,
            density: self.density,
            compliance: self.compliance,
            bend_compliance: self.bend_compliance,
            tethers: self.tethers,
            radius: self.radius,
            friction: self.friction,
            tear_tension: self.tear_tension,
            edge_collisions: self.edge_collisions,
            wind: self.wind,
            drag: self.drag,
            sleep: Sleep::default(),
            attached: [false, false],
            taut: super::taut::Taut { mode: self.taut.mode, ..Default::default() },
        }
    }
}
