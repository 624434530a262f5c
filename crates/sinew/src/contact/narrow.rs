//! The narrow phase: swept particle–collider tests in each substep, against the pairs
//! gathered for the step (or the step's contact planes, see the module docs of
//! [`crate::contact`]).

use super::anchors::ContactAnchors;
use super::{Contact, ContactParams, ContactScratch, Probe};
use crate::arena::Arena;
use crate::collider::{Aabb, BroadPhase, Collider, Proximity, Shape, ShapeQuery};
use crate::math::{Real, Rotation, Vector};
use crate::particle::ParticleSet;
use crate::space::{RealOf, Space, VecOf};

/// What the substep's contact detection reads and writes.
pub(crate) struct Detect<'a, S: Space> {
    pub params: &'a ContactParams<RealOf<S>>,
    pub particles: &'a ParticleSet<S>,
    pub anchors: &'a ContactAnchors<S>,
    pub colliders: &'a Arena<Collider<S>>,
    pub broad_phase: &'a mut BroadPhase<VecOf<S>>,
    pub scratch: &'a mut ContactScratch<S>,
    pub contacts: &'a mut Vec<Contact<S>>,
}

/// Swept particle–collider tests for the substep `[f0, f1]` of the step.
#[inline(never)] // a stage of the step (see the note in `World::step_with`)
pub(crate) fn detect_contacts<S: Space>(d: Detect<'_, S>, f0: RealOf<S>, f1: RealOf<S>, h: RealOf<S>) {
    let Detect { params, particles: ps, anchors, colliders, broad_phase, scratch: sc, contacts } = d;
    contacts.clear();
    sc.left.clear();
    if colliders.is_empty() {
        return;
    }
    // Every slot's reach this substep, in one pass without branches (read here and by
    // the span contacts).
    sc.reach2.clear();
    sc.reach2.extend(ps.pos.iter().zip(&ps.prev).zip(&anchors.pos).map(|((&x, &xp), &x0)| {
        let (a, b) = ((x - x0).length_squared(), (xp - x0).length_squared());
        if a > b { a } else { b }
    }));
    let inv_h = RealOf::<S>::ONE / h;
    let rest_move = params.rest_speed * h;
    let test = ContactTest { particles: ps, params, f0, f1, inv_h, rest_move };
    let (pos, prev) = (&ps.pos[..], &ps.prev[..]);
    // A particle that left the region gathered for this step: its swept box is
    // queried now.
    let mut requery = |k: usize, buf: &mut Vec<u32>, contacts: &mut Vec<Contact<S>>| {
        let (x, xp) = (pos[k], prev[k]);
        let groups = ps.groups[k];
        let mut test_any = |slot: u32| {
            if let Some(col) = colliders.values[slot as usize].as_ref()
                && groups.test(col.groups)
            {
                test.test(k, slot, col, contacts);
            }
        };
        for &slot in &broad_phase.unbounded {
            test_any(slot);
        }
        let r = VecOf::<S>::splat(ps.radius[k]);
        let q = Aabb { min: x.min_elem(xp) - r, max: x.max_elem(xp) + r };
        broad_phase.query::<RealOf<S>>(&q, buf);
        for &b in buf.iter() {
            test_any(broad_phase.bounded[b as usize].0);
        }
    };
    // Particles without pairs: only whether one left its region (rare), in one pass
    // without branches, then a search for which.
    let reach2 = &sc.reach2[..pos.len()];
    let lonely = &sc.lonely2[..pos.len()];
    if reach2.iter().zip(lonely).fold(false, |any, (&r2, &m2)| any | (r2 > m2)) {
        for (k, (&r2, &m2)) in reach2.iter().zip(lonely).enumerate() {
            if r2 > m2 {
                requery(k, &mut sc.requery, contacts);
                sc.left.push(k as u32);
            }
        }
    }
    let mut lo = 0;
    for &Probe { particle: k, pairs_end, margin2 } in &sc.probes {
        let k = k as usize;
        let pairs = &sc.pairs[lo..pairs_end as usize];
        lo = pairs_end as usize;
        let x = pos[k];
        let reach2 = reach2[k];
        let first = contacts.len();
        'probe: {
            if reach2 <= sc.plane2[k] {
                // Still near the anchor: its contact planes (see the module docs).
                for p in pairs {
                    if p.normal == VecOf::<S>::ZERO {
                        if reach2 >= p.clear2
                            && let Some(col) = colliders.values[p.slot as usize].as_ref()
                        {
                            test.test(k, p.slot, col, contacts);
                        }
                    } else if p.normal.dot(x) < p.d
                        && let Some(col) = colliders.values[p.slot as usize].as_ref()
                    {
                        contacts.push(test.contact(k, p.slot, col, p.normal, p.d, VecOf::<S>::ZERO));
                    }
                }
                break 'probe;
            }
            if reach2 > margin2 {
                requery(k, &mut sc.requery, contacts);
                sc.left.push(k as u32);
                break 'probe;
            }
            // The gathered pairs passed the group filter; their colliders exist all step.
            for p in pairs {
                if reach2 < p.clear2 {
                    continue;
                }
                if let Some(col) = colliders.values[p.slot as usize].as_ref() {
                    test.test(k, p.slot, col, contacts);
                }
            }
        }
        // A particle in contact with one collider and near another: the other's plane
        // too, inactive unless the push out of the first drives the particle into it
        // (see `solve_contacts`). Without it a particle in a narrow V finds one wall
        // per substep, and the walls' alternating pushes walk it up and out of the V.
        if contacts.len() > first && pairs.len() > 1 {
            // Distance is 1-Lipschitz: a pair whose clearance at the anchor exceeds the
            // distance moved since by half a radius cannot be that near.
            let (moved, near) = (reach2.sqrt(), ps.radius[k] * RealOf::<S>::HALF);
            for p in pairs {
                if contacts[first..].iter().any(|c| c.collider == p.slot)
                    || (p.clear2 > RealOf::<S>::ZERO && p.clear2.sqrt() - moved >= near)
                {
                    continue;
                }
                // The step's plane only while the particle is within its reuse distance.
                let normal = if reach2 <= sc.plane2[k] { p.normal } else { VecOf::<S>::ZERO };
                if let Some(col) = colliders.values[p.slot as usize].as_ref()
                    && let Some(c) = test.speculative(k, p.slot, col, normal, p.d)
                {
                    contacts.push(c);
                }
            }
        }
    }
}

/// What a particle–collider contact test reads, borrowed apart from the contact list it
/// appends to (so the substep loop can hold the particle arrays while it tests).
pub(crate) struct ContactTest<'a, S: Space> {
    pub particles: &'a ParticleSet<S>,
    pub params: &'a ContactParams<RealOf<S>>,
    pub f0: RealOf<S>,
    pub f1: RealOf<S>,
    pub inv_h: RealOf<S>,
    /// The resting-contact approach speed times `h`: a substep's approach below it is
    /// resting contact.
    pub rest_move: RealOf<S>,
}

impl<S: Space> ContactTest<'_, S> {
    /// Tests particle `k` against collider `col` (in slot `slot`; groups already checked)
    /// and appends the contact, if any, to `out`.
    #[inline]
    pub fn test(&self, k: usize, slot: u32, col: &Collider<S>, out: &mut Vec<Contact<S>>) {
        let (f0, f1, inv_h) = (self.f0, self.f1, self.inv_h);
        let ps = self.particles;
        let (x, xp, r) = (ps.pos[k], ps.prev[k], ps.radius[k]);
        let (p1, r1) = col.pose_at(f1);
        let lx = r1.inverse_rotate(x - p1);
        let prox = closest(&col.shape, lx);
        let moving = col.is_moving();
        if prox.distance >= r && !moving && (x - xp).length_squared() <= r * r {
            return; // clear of the shape and too slow to have passed through it
        }
        let lxp = if moving {
            let (p0, r0) = col.pose_at(f0);
            r0.inverse_rotate(xp - p0)
        } else {
            r1.inverse_rotate(xp - p1)
        };
        let zero = RealOf::<S>::ZERO;
        // Where the substep's path `lxp → lx` entered the shape: the contact normal and
        // the point the particle must be held at. From outside the inflated shape, its
        // entry into it. From a start that touches it — a resting particle sits on the
        // inflated surface, within rounding either side — that ray starts inside and finds
        // nothing, so the entry into the shape inflated by half the radius is taken,
        // held on the parallel plane half a radius farther out (a supporting plane of the
        // fully inflated shape): a particle resting on a plank and yanked through it in
        // one substep is stopped, while one sliding along a face or leaving it never
        // enters the half-inflated shape. (A path that enters the half-inflated shape
        // enters the fully inflated one too, so the second ray can only hit from a
        // touching start.)
        let half = r * RealOf::<S>::HALF;
        let entry = || {
            col.shape.raycast(lxp, lx, r).map(|hit| (hit.normal, lxp + (lx - lxp) * hit.fraction)).or_else(|| {
                col.shape
                    .raycast(lxp, lx, half)
                    .map(|hit| (hit.normal, lxp + (lx - lxp) * hit.fraction + hit.normal * half))
            })
        };
        let hit = if prox.distance < r {
            // Penetrating now. If the path entered the shape during the substep, the
            // contact plane comes from where it entered (robust for thin walls); otherwise
            // from the nearest surface. Only a move longer than the shape's half thickness
            // can have crossed its middle and made the nearest surface the wrong one;
            // shorter moves skip the raycast.
            let moved2 = (lx - lxp).length_squared();
            let may_cross = moved2 > zero && col.half_thickness < RealOf::<S>::MAX && moved2 >= col.half_thickness.sq();
            // Pushed out along the nearest surface's normal `n` by the depth `δ`, the
            // particle's substep velocity `v` gains `Δv = δ/h` along `n`, and its speed
            // grows when `δ > −2·(v·n)·h`. That happens when the path grazed a corner or a
            // curve (went in on one side, on its way out on another): the push then speeds
            // it up, and energy appears. If the path approached the surface where it
            // started faster than resting contact does, it hit that surface: the plane
            // where it entered (from outside) or the supporting plane where it started
            // (from touching) is taken instead. It stops the approach, as a contact at the
            // moment of impact would. Flat faces never qualify (from outside, the depth is
            // at most the approach). A particle sliding over a curve of radius `R` does
            // "approach" its start's tangent plane, by `v²h²/2R` per substep, but sliding
            // needs `v² < gR` so that stays below the rest move `2g·h²` and it keeps the
            // nearest surface's plane — which is what makes it leave where the normal
            // force vanishes.
            let along = (lx - lxp).dot(prox.normal);
            let speeds_up = r - prox.distance > -(along + along);
            let arrived = || {
                let start = closest(&col.shape, lxp);
                if !(-(lx - lxp).dot(start.normal) > self.rest_move) || start.normal == VecOf::<S>::ZERO {
                    return None;
                }
                col.shape
                    .raycast(lxp, lx, r)
                    .map(|hit| (hit.normal, lxp + (lx - lxp) * hit.fraction))
                    .or_else(|| Some((start.normal, lxp - start.normal * (start.distance - r))))
            };
            match if may_cross {
                entry()
            } else if speeds_up {
                arrived()
            } else {
                None
            } {
                Some(hit) => Some(hit),
                None => Some((prox.normal, lx - prox.normal * (prox.distance - r))),
            }
        } else if (lx - lxp).length_squared() > r * r {
            // Outside at the end but moving fast: did the path pass through?
            entry()
        } else {
            None
        };
        let Some((nl, ql)) = hit else { return };
        let n = r1.rotate(nl);
        let qw = p1 + r1.rotate(ql);
        let v_col = if moving {
            let (p0, r0) = col.pose_at(f0);
            (qw - (p0 + r0.rotate(ql))) * inv_h
        } else {
            VecOf::<S>::ZERO
        };
        out.push(self.contact(k, slot, col, n, n.dot(qw), v_col));
    }

    /// A speculative contact of particle `k` with the static collider `col` (slot `slot`)
    /// when the particle is within half its radius of touching it: the step's plane
    /// (`normal`, `d`) if the pair has one in force (`normal` zero otherwise), else the
    /// supporting plane at the nearest surface point. It acts only if something pushes the
    /// particle into it this substep.
    #[inline]
    pub fn speculative(
        &self,
        k: usize,
        slot: u32,
        col: &Collider<S>,
        normal: VecOf<S>,
        d: RealOf<S>,
    ) -> Option<Contact<S>> {
        if col.is_moving() {
            return None;
        }
        let ps = self.particles;
        let (x, r) = (ps.pos[k], ps.radius[k]);
        let near = r * RealOf::<S>::HALF;
        if normal != VecOf::<S>::ZERO {
            return (normal.dot(x) < d + near).then(|| self.contact(k, slot, col, normal, d, VecOf::<S>::ZERO));
        }
        let lx = col.rotation.inverse_rotate(x - col.position);
        let prox = closest(&col.shape, lx);
        if prox.distance >= r + near || prox.normal == VecOf::<S>::ZERO {
            return None;
        }
        let n = col.rotation.rotate(prox.normal);
        let q = col.position + col.rotation.rotate(lx - prox.normal * (prox.distance - r));
        Some(self.contact(k, slot, col, n, n.dot(q), VecOf::<S>::ZERO))
    }

    /// The contact of particle `k` with collider `col` (in slot `slot`) on the plane
    /// `n·x ≥ d`, whose surface moves at `v_col`.
    #[inline]
    pub fn contact(
        &self,
        k: usize,
        slot: u32,
        col: &Collider<S>,
        n: VecOf<S>,
        d: RealOf<S>,
        v_col: VecOf<S>,
    ) -> Contact<S> {
        let ps = self.particles;
        let mu_d = crate::collider::mix_friction(ps.friction[k], col.friction, self.params.friction);
        let mu_s = col.static_friction.or(self.params.static_friction).unwrap_or(mu_d).max(mu_d);
        let restitution = col.restitution.unwrap_or(self.params.restitution);
        Contact {
            particle: k as u32,
            collider: slot,
            normal: n,
            d,
            dn: RealOf::<S>::ZERO,
            vn_pre: n.dot(ps.vel[k] - v_col),
            v_col,
            mu_s,
            mu_d,
            restitution,
        }
    }
}

/// [`Shape::closest`] with the half-space case inlined: the shape of most scenes' floors,
/// queried for every particle every step and for every particle resting on it every
/// substep. Same code, same results.
#[inline]
pub(crate) fn closest<S: Space>(shape: &Shape<S>, p: VecOf<S>) -> Proximity<RealOf<S>, VecOf<S>> {
    match shape {
        Shape::HalfSpace(s) => ShapeQuery::<S>::closest(s, p),
        _ => shape.closest(p),
    }
}
