//! The scalar abstraction the whole solver is written over.
//!
//! Sinew's solver source exists once. It is generic over a [`Real`] scalar so that the
//! same code runs in `f32` (games), `f64` (reference and tests) and in a bit-exact
//! fixed-point type (lockstep and rollback netcode). The trait therefore only offers what
//! can be computed *exactly the same way on every CPU* for the fixed-point type:
//! the four operations, square root, and a small set of trigonometric functions that the
//! fixed-point implementation evaluates with integer arithmetic.
//!
//! Rules the solver follows so that the fixed-point build stays exact:
//! - constants come from [`Real::from_f64`] / [`Real::from_ratio`] at set-up time, never from
//!   float arithmetic inside the step;
//! - no `f64` round trips inside the step ([`Real::to_f64`] is for output only);
//! - divisions go through [`Real::safe_div`] or are guarded, so a zero denominator has a
//!   defined result.

use core::fmt::{Debug, Display};
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// A real-number type the solver can run on: `f32`, `f64` or [`crate::math::Fx`] (sealed:
/// these three only).
pub trait Real:
    super::sealed::Sealed
    + crate::state::SavedState
    + Copy
    + Clone
    + Debug
    + Display
    + Default
    + PartialEq
    + PartialOrd
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
{
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// 2.
    const TWO: Self;
    /// 0.5.
    const HALF: Self;
    /// π.
    const PI: Self;
    /// The largest finite value.
    const MAX: Self;
    /// A length below which a direction is considered undefined (degenerate geometry).
    /// About 1e-9 m in `f64`, 1e-6 m in `f32`, a few ULPs in fixed point.
    const GEOMETRIC_EPSILON: Self;
    /// A displacement below which a change of position is taken for rounding: 1e-6 m in
    /// `f32`, 1e-9 m in `f64` (their geometric epsilons) and 2⁻²⁴ m (256 ULPs, the square
    /// of its geometric epsilon) in fixed point, whose coarse epsilon (2⁻¹² m) would hide
    /// real motion. The contact velocity pass ignores outward speeds below it per substep
    /// (near the origin: it is absolute, not relative to the coordinates' size).
    const ROUNDING_SLOP: Self;
    /// Short name used in docs, scene files and benchmark labels (`"f32"`, `"f64"`, `"fixed"`).
    const NAME: &'static str;
    /// True for floating point. Its wide exponent range lets a few algorithms take a route
    /// with a shorter dependency chain that fixed point's range cannot afford (e.g. the
    /// rope's tridiagonal solve by continuants, [`crate::rope`]).
    const FLOATING: bool;
    /// The largest coordinate (and velocity, and other vector component) the API accepts:
    /// unbounded (`MAX`) in floating point; 2¹⁴ = 16384 in fixed point, where the solver
    /// squares differences of coordinates (up to 2¹⁵, squared 2³⁰) and Q32.32 holds ±2³¹.
    /// A position, velocity or target beyond it is an error, not a silent saturation.
    const COORDINATE_RANGE: Self;

    /// Converts from `f64`, rounding to nearest. Types that cannot represent non-finite
    /// values map NaN to 0 and saturate infinities; callers validate user input before
    /// converting.
    fn from_f64(v: f64) -> Self;
    /// Converts to `f64` (exact for `f32` and `f64`; for fixed point exact below 2²¹ in
    /// magnitude and correctly rounded above).
    fn to_f64(self) -> f64;
    /// Exact conversion of a small integer.
    fn from_i32(v: i32) -> Self;
    /// `num / den` computed in the target type (exact where the type allows).
    #[inline]
    fn from_ratio(num: i32, den: i32) -> Self {
        Self::from_i32(num) / Self::from_i32(den)
    }

    /// Square root; 0 for negative input.
    fn sqrt(self) -> Self;
    /// `(√x, 1/√x)` for `x > 0`; `(0, 0)` for `x ≤ 0`. Normalising a vector needs both, and
    /// a type can compute them together faster than a root and a division (fixed point
    /// does). Deterministic like every other operation, not necessarily correctly rounded.
    #[inline]
    fn sqrt_recip(self) -> (Self, Self) {
        if self > Self::ZERO {
            let s = self.sqrt();
            (s, if s == Self::ZERO { Self::ZERO } else { Self::ONE / s })
        } else {
            (Self::ZERO, Self::ZERO)
        }
    }
    /// Absolute value.
    fn abs(self) -> Self;
    /// Sine (radians).
    fn sin(self) -> Self;
    /// Cosine (radians).
    fn cos(self) -> Self;
    /// Four-quadrant arc tangent of `self / x`, in `(-π, π]`; 0 for (0, 0).
    fn atan2(self, x: Self) -> Self;
    /// True unless NaN or infinite (always true for fixed point).
    fn is_finite(self) -> bool;
    /// Stable bit pattern used by the canonical state hash. `-0.0` and `0.0` hash alike.
    fn hash_bits(self) -> u64;

    /// Minimum of two values.
    #[inline]
    #[must_use]
    fn min(self, o: Self) -> Self {
        if o < self { o } else { self }
    }
    /// Maximum of two values.
    #[inline]
    #[must_use]
    fn max(self, o: Self) -> Self {
        if o > self { o } else { self }
    }
    /// Clamps into `[lo, hi]`.
    #[inline]
    #[must_use]
    fn clamp(self, lo: Self, hi: Self) -> Self {
        self.max(lo).min(hi)
    }
    /// `self / den`, or `fallback` when `|den|` is below [`Real::GEOMETRIC_EPSILON`]².
    #[inline]
    #[must_use]
    fn safe_div(self, den: Self, fallback: Self) -> Self {
        if den == Self::ZERO { fallback } else { self / den }
    }
    /// `1 / self`, or 0 when `self` is 0 (used for inverse masses: mass 0 = pinned).
    #[inline]
    #[must_use]
    fn recip_or_zero(self) -> Self {
        if self == Self::ZERO { Self::ZERO } else { Self::ONE / self }
    }
    /// Square.
    #[inline]
    #[must_use]
    fn sq(self) -> Self {
        self * self
    }
    /// -1, 0 or 1.
    #[inline]
    #[must_use]
    fn signum0(self) -> Self {
        if self > Self::ZERO {
            Self::ONE
        } else if self < Self::ZERO {
            -Self::ONE
        } else {
            Self::ZERO
        }
    }
    /// Arc cosine for input clamped to `[-1, 1]`, via `atan2(√(1−x²), x)`.
    #[inline]
    #[must_use]
    fn acos_clamped(self) -> Self {
        let x = self.clamp(-Self::ONE, Self::ONE);
        (Self::ONE - x * x).max(Self::ZERO).sqrt().atan2(x)
    }
}

impl crate::state::SavedState for f32 {
    #[inline]
    fn hash_state(&self, h: &mut crate::state::StateHasher) {
        h.write_u64(Real::hash_bits(*self));
    }
}

impl crate::state::SavedState for f64 {
    #[inline]
    fn hash_state(&self, h: &mut crate::state::StateHasher) {
        h.write_u64(Real::hash_bits(*self));
    }
}

macro_rules! impl_float_real {
    ($t:ty, $eps:expr, $name:expr, $atan2:path) => {
        impl Real for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const TWO: Self = 2.0;
            const HALF: Self = 0.5;
            const PI: Self = core::f64::consts::PI as $t;
            const MAX: Self = <$t>::MAX;
            const GEOMETRIC_EPSILON: Self = $eps;
            const ROUNDING_SLOP: Self = $eps;
            const NAME: &'static str = $name;
            const FLOATING: bool = true;
            const COORDINATE_RANGE: Self = <$t>::MAX;

            #[inline]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn from_i32(v: i32) -> Self {
                v as $t
            }
            #[inline]
            fn sqrt(self) -> Self {
                if self > 0.0 { <$t>::sqrt(self) } else { 0.0 }
            }
            /// Branch-free (selects, not jumps), so loops over it vectorise: a root of
            /// `max(x, 0)` (NaN → 0) and a reciprocal computed unconditionally (1/0 = ∞
            /// is harmless in floating point) and masked to 0. Same values as the default.
            #[inline]
            fn sqrt_recip(self) -> (Self, Self) {
                let s = <$t>::sqrt(self.max(0.0));
                let r = 1.0 / s;
                (s, if s > 0.0 { r } else { 0.0 })
            }
            #[inline]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline]
            fn sin(self) -> Self {
                <$t>::sin(self)
            }
            #[inline]
            fn cos(self) -> Self {
                <$t>::cos(self)
            }
            #[inline]
            fn atan2(self, x: Self) -> Self {
                // `+ 0.0` turns −0 into +0 (and changes nothing else): the angle of
                // (−1, −0) is then π, inside the contract's (−π, π], in f32 and f64 alike.
                if self == 0.0 && x == 0.0 { 0.0 } else { $atan2(self + 0.0, x) }
            }
            #[inline]
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            #[inline]
            fn hash_bits(self) -> u64 {
                // Fold -0.0 onto 0.0 so that equal values hash equal.
                let v = if self == 0.0 { 0.0 } else { self };
                v.to_bits() as u64
            }
            #[inline]
            fn min(self, o: Self) -> Self {
                <$t>::min(self, o)
            }
            #[inline]
            fn max(self, o: Self) -> Self {
                <$t>::max(self, o)
            }
        }
    };
}

impl_float_real!(f32, 1e-6, "f32", atan2_f32);
impl_float_real!(f64, 1e-9, "f64", f64::atan2);

/// Four-quadrant arc tangent in `f32`, within 2 ulp of π (about 3·10⁻⁷ rad) of the exact
/// value, without the C library: one division and a short polynomial, a few times faster
/// than `atan2f` (joint limits call it for every joint outside its range, every substep)
/// and the same on every platform, unlike the libm it replaces.
///
/// Cephes' `atanf` method: fold into the first octant (`a = min/max ∈ [0, 1]`), reduce
/// `a > tan(π/8)` to `(a − 1)/(a + 1)` around π/4 — computed as `(min − max)/(min + max)`,
/// so there is still only one division — and evaluate the odd minimax polynomial for
/// `atan` on `[−tan(π/8), tan(π/8)]`; then unfold by the signs and the larger component.
/// NaN in, NaN out; infinities give the limits (`±∞, ±∞` the diagonal angles).
#[inline]
fn atan2_f32(y: f32, x: f32) -> f32 {
    use core::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI};
    let (ax, ay) = (x.abs(), y.abs());
    let (mn, mx) = if ay > ax { (ax, ay) } else { (ay, ax) };
    // Near the top of the range `mn + mx` below would overflow: a quarter of both (exact)
    // has the same ratios.
    let (mn, mx) = if mx > 1e38 { (mn * 0.25, mx * 0.25) } else { (mn, mx) };
    let (t, base) = if mx.is_infinite() {
        // ∞/∞ and finite/∞ have no ratio; their limits are the diagonal and the axis
        // (NaN against ∞ stays NaN).
        (if mn.is_nan() { mn } else { 0.0 }, if mn.is_infinite() { FRAC_PI_4 } else { 0.0 })
    } else if mn > 0.414_213_57 * mx {
        ((mn - mx) / (mn + mx), FRAC_PI_4)
    } else {
        (mn / mx, 0.0)
    };
    let z = t * t;
    let r = base + ((((8.053_744_5e-2 * z - 1.387_768_6e-1) * z + 1.997_771_1e-1) * z - 3.333_295e-1) * z * t + t);
    let r = if ay > ax { FRAC_PI_2 - r } else { r };
    let r = if x < 0.0 { PI - r } else { r };
    if y < 0.0 { -r } else { r }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generic_identities<R: Real>() {
        assert_eq!(R::from_i32(3) * R::from_i32(4), R::from_i32(12));
        assert_eq!(R::from_i32(-4).sqrt(), R::ZERO);
        assert!((R::from_i32(9).sqrt() - R::from_i32(3)).abs().to_f64() < 1e-6);
        let (s, r) = R::from_i32(4).sqrt_recip();
        assert!((s.to_f64() - 2.0).abs() < 1e-6 && (r.to_f64() - 0.5).abs() < 1e-6);
        assert_eq!(R::ZERO.sqrt_recip(), (R::ZERO, R::ZERO));
        assert_eq!((-R::ONE).sqrt_recip(), (R::ZERO, R::ZERO));
        assert_eq!(R::ONE.safe_div(R::ZERO, R::from_i32(7)), R::from_i32(7));
        assert_eq!(R::ZERO.recip_or_zero(), R::ZERO);
        assert!((R::ONE.atan2(R::ONE).to_f64() - core::f64::consts::FRAC_PI_4).abs() < 1e-6);
        assert_eq!(R::ZERO.atan2(R::ZERO), R::ZERO);
        assert!((R::ZERO.acos_clamped().to_f64() - core::f64::consts::FRAC_PI_2).abs() < 1e-6);
        assert!((R::from_i32(2).acos_clamped().to_f64()).abs() < 1e-6);
    }

    #[test]
    fn the_f32_arc_tangent_matches_the_f64_one_within_a_few_ulp() {
        // Every quadrant, both octants of each, the axes, the octant boundary tan(π/8)
        // and magnitudes from 1e-30 to 1e30.
        let mut worst = 0.0f64;
        for i in 0..20_000 {
            let angle = -std::f64::consts::PI + (i as f64 + 0.5) * std::f64::consts::TAU / 20_000.0;
            for scale in [1e-30, 1e-3, 1.0, 7.5, 1e30] {
                let (y, x) = ((angle.sin() * scale) as f32, (angle.cos() * scale) as f32);
                let exact = (y as f64).atan2(x as f64);
                worst = worst.max((Real::atan2(y, x) as f64 - exact).abs());
            }
        }
        assert!(worst < 6e-7, "worst error {worst:e} rad");
        let cases: [(f32, f32, f32); 5] =
            [(0.0, 1.0, 0.0), (1.0, 0.0, 90.0), (0.0, -1.0, 180.0), (-1.0, 0.0, -90.0), (1.0, 1.0, 45.0)];
        for (y, x, deg) in cases {
            assert!((Real::atan2(y, x).to_degrees() - deg).abs() < 1e-5, "atan2({y}, {x})");
        }
        let inf = f32::INFINITY;
        assert!((Real::atan2(inf, inf) - core::f32::consts::FRAC_PI_4).abs() < 1e-7);
        assert!((Real::atan2(-inf, -inf) + 3.0 * core::f32::consts::FRAC_PI_4).abs() < 1e-6);
        assert!(
            (Real::atan2(1.0, inf)).abs() < 1e-7 && (Real::atan2(inf, 1.0) - core::f32::consts::FRAC_PI_2).abs() < 1e-7
        );
        assert!(Real::atan2(f32::NAN, 1.0).is_nan());
        assert!(Real::atan2(f32::NAN, inf).is_nan() && Real::atan2(f32::NAN, -inf).is_nan());
        assert!(Real::atan2(1.0, f32::NAN).is_nan());
        // Near the top of the range (the octant fold's sum would overflow).
        let (y, x) = (3e38f32, 2e38f32);
        assert!((Real::atan2(y, x) as f64 - (y as f64).atan2(x as f64)).abs() < 6e-7);
        // (−1, −0) is π in both float types: the contract's interval is (−π, π].
        assert_eq!(Real::atan2(-0.0f32, -1.0), core::f32::consts::PI);
        assert_eq!(Real::atan2(-0.0f64, -1.0), core::f64::consts::PI);
        assert_eq!(Real::atan2(0.0f32, 0.0), 0.0);
    }

    #[test]
    fn float_reals_obey_the_contract() {
        generic_identities::<f32>();
        generic_identities::<f64>();
        assert_eq!((-0.0f64).hash_bits(), 0.0f64.hash_bits());
    }
}
