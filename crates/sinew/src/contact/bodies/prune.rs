//! Pruning before the broad phase: boxes that can meet no other body stay out of the grid.
//!
//! A primitive *alone* (one body, without self-collision) meets only primitives that share
//! no body with it ([`super`], "Who collides"), and each of those lies in the box around
//! its own body's primitives. So an alone primitive whose box overlaps no other body's box
//! has no pair, and leaving it out of the grid changes nothing in the (sorted) pair list —
//! only the work: two fighters' bodies overlap where they meet, and the rest of each
//! body (legs, the far arm) crowds the grid's cells for nothing. Every other primitive
//! (two bodies, or a self-colliding body) is kept. With more than [`PRUNE_MAX_BODIES`]
//! bodies (a pile of particles, each its own body), or a box that is not finite, nothing
//! is pruned.

use crate::collider::Aabb;
use crate::math::{Real, Vector};

use super::Prim;
use super::sweep::NO_GROUP;

/// Above this many bodies nothing is pruned (the per-body boxes are searched linearly).
pub(crate) const PRUNE_MAX_BODIES: usize = 8;

/// Fills `kept` with the primitives that may have a pair (increasing) and returns whether
/// any was left out; `false` leaves the grid to take every box.
pub(crate) fn prune<R: Real, V: Vector<R>>(
    prims: &[Prim],
    boxes: &[Aabb<V>],
    alone: &[u32],
    body_boxes: &mut Vec<(u32, Aabb<V>)>,
    kept: &mut Vec<u32>,
) -> bool {
    body_boxes.clear();
    kept.clear();
    for (p, b) in prims.iter().zip(boxes) {
        if !(b.min.is_finite() && b.max.is_finite()) {
            return false;
        }
        for (n, &body) in p.bodies.iter().enumerate() {
            if n == 1 && body == p.bodies[0] {
                break;
            }
            if let Some((_, bb)) = body_boxes.iter_mut().find(|(id, _)| *id == body) {
                *bb = bb.union(b);
            } else if body_boxes.len() < PRUNE_MAX_BODIES {
                body_boxes.push((body, *b));
            } else {
                return false;
            }
        }
    }
    for (k, (b, &a)) in boxes.iter().zip(alone).enumerate() {
        let keep = a == NO_GROUP || body_boxes.iter().any(|(id, bb)| *id != a && bb.overlaps(b));
        if keep {
            kept.push(k as u32);
        }
    }
    kept.len() < boxes.len()
}
