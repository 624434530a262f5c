//! Projecting particle–collider contacts, with static friction.

use super::Contact;
use crate::math::{Real, Vector};
use crate::particle::ParticleSet;
use crate::space::{RealOf, Space};

/// Pushes particles out of colliders; static friction cancels tangential motion while
/// it is below `μ_s` times the normal correction (Coulomb's cone on positions).
///
/// A particle with two contacts this substep (its contacts are consecutive; the second
/// often speculative, see `detect_contacts`) is moved the least distance that
/// satisfies both — onto one plane if that clears the other, else onto both
/// (`Δx = μ_a n_a + μ_b n_b`, from their 2×2 Gram system). Projected one after the
/// other, a particle in a narrow V would be pushed by each wall into the other and
/// walk up and out of the V. Nearly opposite planes (a gap narrower than the particle:
/// no point satisfies both) and three or more contacts are projected one at a time.
#[inline(never)] // a stage of the step (see the note in `World::step_with`)
pub(crate) fn solve_contacts<S: Space>(ps: &mut ParticleSet<S>, contacts: &mut [Contact<S>], h: RealOf<S>) {
    solve_contacts_of(ps, contacts, h, |_| true);
}

/// [`solve_contacts`] for the contacts of the particles `keep` accepts (the impact passes
/// project the contacts of the groups they act on).
#[inline(always)]
pub(crate) fn solve_contacts_of<S: Space>(
    ps: &mut ParticleSet<S>,
    contacts: &mut [Contact<S>],
    h: RealOf<S>,
    keep: impl Fn(usize) -> bool,
) {
    let zero = RealOf::<S>::ZERO;
    let friction = |ps: &mut ParticleSet<S>, c: &Contact<S>| {
        let k = c.particle as usize;
        if c.mu_s > zero {
            let disp = ps.pos[k] - ps.prev[k] - c.v_col * h;
            let tangential = disp - c.normal * c.normal.dot(disp);
            if tangential.length_squared() < (c.mu_s * c.dn).sq() {
                ps.pos[k] -= tangential;
            }
        }
    };
    let one_by_one = |ps: &mut ParticleSet<S>, c: &mut Contact<S>| {
        let k = c.particle as usize;
        let depth = c.d - c.normal.dot(ps.pos[k]);
        if depth > zero {
            ps.pos[k] += c.normal * depth;
            c.dn += depth;
            friction(ps, c);
        }
    };
    let cs = contacts;
    let mut i = 0;
    while i < cs.len() {
        let k = cs[i].particle;
        if !keep(k as usize) {
            i += 1;
            continue;
        }
        let pair = i + 1 < cs.len() && cs[i + 1].particle == k && (i + 2 == cs.len() || cs[i + 2].particle != k);
        if !pair {
            // One contact (or a run of three or more, one at a time).
            one_by_one(ps, &mut cs[i]);
            i += 1;
            continue;
        }
        let (a, b) = cs.split_at_mut(i + 1);
        let (ca, cb) = (&mut a[i], &mut b[0]);
        let x = ps.pos[k as usize];
        let (na, nb) = (ca.normal, cb.normal);
        let (ea, eb) = (ca.d - na.dot(x), cb.d - nb.dot(x));
        let c = na.dot(nb);
        // The least move `Δx` with `n_a·Δx ≥ e_a` and `n_b·Δx ≥ e_b`.
        let det = RealOf::<S>::ONE - c * c;
        let (ma, mb) = if ea <= zero && eb <= zero {
            (zero, zero)
        } else if ea > zero && ea * c >= eb {
            (ea, zero) // onto `a` clears `b`
        } else if eb > zero && eb * c >= ea {
            (zero, eb) // onto `b` clears `a`
        } else if det > RealOf::<S>::GEOMETRIC_EPSILON {
            ((ea - c * eb) / det, (eb - c * ea) / det)
        } else {
            (-RealOf::<S>::ONE, zero) // no point satisfies both: one after the other
        };
        if ma < zero || mb < zero {
            one_by_one(ps, ca);
            one_by_one(ps, cb);
        } else {
            ps.pos[k as usize] += na * ma + nb * mb;
            ca.dn += ma;
            cb.dn += mb;
            if ma > zero {
                friction(ps, ca);
            }
            if mb > zero {
                friction(ps, cb);
            }
        }
        i += 2;
    }
}
