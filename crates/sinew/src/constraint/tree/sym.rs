//! Symmetric `d × d` matrices of the tree solve: a particle's `K = (M + P)⁻¹` and the
//! blocks `P` its eliminated children add (see the parent module).

use crate::math::{Real, Vector};

/// A symmetric `d × d` matrix: `[xx, yy, zz, xy, xz, yz]` (the `z` entries unused in 2D).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Sym<R>(pub(super) [R; 6]);

/// The place of entry `(k, l)` in [`Sym`].
const fn at(k: usize, l: usize) -> usize {
    match (k, l) {
        (0, 0) => 0,
        (1, 1) => 1,
        (2, 2) => 2,
        (0, 1) | (1, 0) => 3,
        (0, 2) | (2, 0) => 4,
        _ => 5,
    }
}

impl<R: Real> Sym<R> {
    pub(super) fn zero() -> Self {
        Self([R::ZERO; 6])
    }
    pub(super) fn get(&self, k: usize, l: usize) -> R {
        self.0[at(k, l)]
    }
    /// `self += s·(u vᵀ + v uᵀ)/2`.
    pub(super) fn add_outer<V: Vector<R>>(&mut self, u: V, v: V, s: R) {
        for k in 0..V::DIM {
            for l in k..V::DIM {
                let x =
                    if k == l { u.get(k) * v.get(k) } else { (u.get(k) * v.get(l) + u.get(l) * v.get(k)) * R::HALF };
                self.0[at(k, l)] += x * s;
            }
        }
    }
    /// `self += (u vᵀ + v uᵀ)/2`.
    pub(super) fn add_outer_unit<V: Vector<R>>(&mut self, u: V, v: V) {
        for k in 0..V::DIM {
            for l in k..V::DIM {
                let x =
                    if k == l { u.get(k) * v.get(k) } else { (u.get(k) * v.get(l) + u.get(l) * v.get(k)) * R::HALF };
                self.0[at(k, l)] += x;
            }
        }
    }
    pub(super) fn mul<V: Vector<R>>(&self, v: V) -> V {
        let mut o = V::ZERO;
        for k in 0..V::DIM {
            let mut s = R::ZERO;
            for l in 0..V::DIM {
                s += self.get(k, l) * v.get(l);
            }
            o.set(k, s);
        }
        o
    }
    /// The inverse of a positive definite matrix, from its `LDLᵀ` (`A⁻¹ = Σ_k g_k g_kᵀ/d_k`
    /// over the rows `g_k` of `L⁻¹`); a pivot that is not positive counts as infinite.
    pub(super) fn inverse(&self, dim: usize) -> Self {
        let (zero, one) = (R::ZERO, R::ONE);
        let a = |k, l| self.get(k, l);
        let rc = |d: R| if d > zero { one / d } else { zero };
        let d0 = a(0, 0);
        let i0 = rc(d0);
        let l10 = a(0, 1) * i0;
        let d1 = a(1, 1) - l10 * a(0, 1);
        let i1 = rc(d1);
        // Rows of L⁻¹ (lower unit triangular): g₀ = (1, 0, 0), g₁ = (−l₁₀, 1, 0),
        // g₂ = (g₂₀, −l₂₁, 1). The products with the zeros and ones of those rows are
        // left out (a compiler may not drop them in floating point, and each is a full
        // multiplication in fixed point); the rest are summed in the same order.
        let mut o = Self::zero();
        if dim == 3 {
            let l20 = a(0, 2) * i0;
            let t = a(1, 2) - l20 * a(0, 1);
            let l21 = t * i1;
            let d2 = a(2, 2) - l20 * a(0, 2) - l21 * t;
            let i2 = rc(d2);
            let (g20, g21) = (l10 * l21 - l20, -l21);
            o.0[at(0, 0)] = i0 + l10 * l10 * i1 + g20 * g20 * i2;
            o.0[at(0, 1)] = -l10 * i1 + g20 * g21 * i2;
            o.0[at(0, 2)] = g20 * i2;
            o.0[at(1, 1)] = i1 + g21 * g21 * i2;
            o.0[at(1, 2)] = g21 * i2;
            o.0[at(2, 2)] = i2;
        } else {
            o.0[at(0, 0)] = i0 + l10 * l10 * i1;
            o.0[at(0, 1)] = -l10 * i1;
            o.0[at(1, 1)] = i1;
        }
        o
    }
}
