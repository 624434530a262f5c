//! The small pieces of arithmetic a [pose drive](super::drive) runs on a part's particles:
//! the centre it turns about, its inertia, a 1–3 unknown linear solve and the rigid turn.

use crate::math::{Real, Vector};
use crate::particle::{ParticleHandle, ParticleSet};
use crate::space::{RealOf, RotOf, VecOf};

use super::frame::DriveSpace;

/// Where a part turns about, and whether it can turn.
pub(super) fn centre<S: DriveSpace>(ps: &ParticleSet<S>, nodes: &[ParticleHandle]) -> Option<VecOf<S>> {
    let zero = RealOf::<S>::ZERO;
    let (mut pinned, mut pin_at) = (0, VecOf::<S>::ZERO);
    let (mut m, mut mx) = (zero, VecOf::<S>::ZERO);
    for &h in nodes {
        let k = h.index();
        if ps.inv_mass[k] == zero {
            pinned += 1;
            pin_at = ps.pos[k];
        } else {
            m += ps.mass[k];
            mx += ps.pos[k] * ps.mass[k];
        }
    }
    match pinned {
        0 if m > zero => Some(mx / m),
        1 => Some(pin_at),
        _ => None,
    }
}

/// The inertia tensor of the part's free particles about `c`.
pub(super) fn inertia<S: DriveSpace>(ps: &ParticleSet<S>, nodes: &[ParticleHandle], c: VecOf<S>) -> S::Inertia {
    let mut i = S::inertia_zero();
    for &h in nodes {
        let k = h.index();
        if ps.inv_mass[k] != RealOf::<S>::ZERO {
            S::inertia_add(&mut i, ps.pos[k] - c, ps.mass[k]);
        }
    }
    i
}

/// Solves the `n × n` (≤ 3) system `m·x = b` by Gaussian elimination with partial
/// pivoting; `None` if singular. [`solve_n`] with `n` made a constant, so that the
/// elimination's loops unroll (the same operations in the same order).
pub(super) fn solve_small<R: Real>(m: [[R; 3]; 3], b: [R; 3], n: usize) -> Option<[R; 3]> {
    match n {
        1 => solve_n::<R, 1>(m, b),
        2 => solve_n::<R, 2>(m, b),
        _ => solve_n::<R, 3>(m, b),
    }
}

/// The leading `N × N` block of `m·x = b` (see [`solve_small`]).
#[allow(clippy::needless_range_loop)] // a dense 3 × 3 elimination reads best indexed
pub(super) fn solve_n<R: Real, const N: usize>(mut m: [[R; 3]; 3], mut b: [R; 3]) -> Option<[R; 3]> {
    let n = N;
    for c in 0..n {
        let mut piv = c;
        for r in c + 1..n {
            if m[r][c].abs() > m[piv][c].abs() {
                piv = r;
            }
        }
        if m[piv][c].abs() <= R::GEOMETRIC_EPSILON {
            return None;
        }
        m.swap(c, piv);
        b.swap(c, piv);
        for r in c + 1..n {
            let f = m[r][c] / m[c][c];
            for k in c..n {
                let v = m[c][k];
                m[r][k] -= f * v;
            }
            let v = b[c];
            b[r] -= f * v;
        }
    }
    let mut x = [R::ZERO; 3];
    for c in (0..n).rev() {
        let mut acc = b[c];
        for k in c + 1..n {
            acc -= m[c][k] * x[k];
        }
        x[c] = acc / m[c][c];
    }
    Some(x)
}

/// Turns the part's free particles by rotation vector `r` about `c`; the rotation, or
/// `None` when `r` is zero (nothing moved).
pub(super) fn turn<S: DriveSpace>(
    ps: &mut ParticleSet<S>,
    nodes: &[ParticleHandle],
    c: VecOf<S>,
    r: S::Angular,
) -> Option<RotOf<S>> {
    if r == S::angular_zero() {
        return None;
    }
    let q = S::exp(r);
    let m = S::rotator(q);
    for &h in nodes {
        let k = h.index();
        if ps.inv_mass[k] != RealOf::<S>::ZERO {
            ps.pos[k] = c + S::rotate_prepared(&m, ps.pos[k] - c);
        }
    }
    Some(q)
}
