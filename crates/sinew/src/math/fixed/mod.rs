//! [`Fx`]: the bit-exact fixed-point scalar of the deterministic mode.
//!
//! Lockstep and rollback netcode need every peer to compute *the same bits* from the same
//! inputs. IEEE floats can give that only under conditions nobody controls across
//! compilers, CPUs and libm versions (fused multiply-add contraction, x87 extended
//! precision, vectorised reductions, `sin`/`sqrt` implementations, denormal flushing).
//! [`Fx`] is a two's-complement integer with an implied binary point, and every operation
//! below is defined as an integer computation with a documented rounding rule, so the
//! result depends on nothing but the inputs. No floating-point instruction is executed
//! by any arithmetic, square root or trigonometric function of this module; floats only
//! appear in the explicit conversions [`Fx::from_f64`], [`Fx::from_f32`], [`Fx::to_f64`]
//! and [`Fx::to_f32`], which are themselves exact bit manipulations or single IEEE
//! conversions (correctly rounded on every platform Rust supports).
//!
//! # Format: Q32.32
//!
//! A value is `bits / 2³²` with `bits` an `i64`:
//!
//! - **range** `[-2³¹, 2³¹ − 2⁻³²]`, about ±2.1·10⁹ m;
//! - **resolution** (one ULP, [`Fx::DELTA`]) `2⁻³² ≈ 2.33·10⁻¹⁰` m.
//!
//! Why 32 fractional bits: the solver runs at 60 Hz with 8 substeps, so `h = 1/480` s and
//! the per-substep position change due to gravity is `g·h² = 9.81 / 230 400 ≈ 4.26·10⁻⁵` m.
//! In Q32.32 that is about 183 000 ULPs, a relative resolution of `5.5·10⁻⁶`; in Q48.16 it
//! would be 2.8 ULPs (a 36 % quantisation error, objects would fall at visibly wrong
//! rates and slow contacts would stick), in Q40.24 about 700 ULPs (0.14 %). Velocity
//! increments `g·h ≈ 0.02` m/s and XPBD compliance terms `α/h²` are likewise resolved to
//! better than 10⁻⁵ relative. The 31 integer bits are far more than a character-physics
//! scene needs; the price is that *products* overflow early: `x·x` exceeds the range for
//! `|x| > 46 341`, so squared lengths saturate for distances above ~46 km.
//!
//! # Overflow policy: saturation
//!
//! The operators `+ - * /`, unary `-` and their `*Assign` forms never wrap. A result
//! outside the range becomes [`Fx::MAX`] or [`Fx::MIN`] according to the sign of the exact
//! result (so it stays as close as possible to the true value and keeps its sign). The
//! same holds for [`Fx::abs`] (`|MIN|` gives `MAX`) and the conversions. The `checked_*`
//! methods return `None` instead. Saturation is deterministic, so peers stay in sync
//! even in a scene that overflows; it only makes the simulation wrong, not divergent.
//!
//! Division by zero: `x / 0` is `MAX` for `x > 0`, `MIN` for `x < 0` and `0` for `0 / 0`
//! ([`Fx::checked_div`] returns `None`).
//!
//! # Rounding policy: to nearest
//!
//! Multiplication, division and [`Fx::from_f64`]/[`Fx::from_f32`] round the exact result
//! to the nearest representable value, ties to even (like IEEE 754's default). Truncation
//! would bias every product towards −∞ by half an ULP on average, which accumulates into
//! a systematic drift over thousands of substeps; round-to-nearest-even is unbiased.
//! [`Fx::sqrt`] is correctly rounded (ties cannot occur); [`Fx::sqrt_recip`] returns the
//! same root and a reciprocal within ½ ULP + 2⁻⁴ ULP (the nearest value bar one input in
//! millions). [`Fx::sin`] and [`Fx::cos`] are computed with about 60 bits of internal
//! precision and then rounded to nearest, so their error is within 0.5 ULP + 10⁻¹⁴;
//! [`Fx::atan2`] is within 0.5 ULP + 10⁻¹² (0.52 ULP right below the negative x axis, see
//! there). That is at most about 1.2·10⁻¹⁰ absolute, and (bar those 10⁻¹² and 10⁻¹⁴) the
//! nearest representable value.
//!
//! Addition and subtraction are exact (up to saturation).
//!
//! # Cost
//!
//! Measured against `f32` on x86-64 (AMD EPYC Zen 4, no `target-cpu` flags), in ns per
//! operation as independent operations / as a dependent chain (`f32` in brackets; its
//! independent figures are bounded by the benchmark loop at ~0.8 ns): add 0.5 / 0.4
//! (0.8 / 0.8), mul 1.5 / 2.0 (0.8 / 0.8), div 3.0 / 7.3 (0.8 / 3.8), sqrt 4.3 / 10.1
//! (1.4 / 4.8), `sqrt_recip` 6.1 / 10.1 to the root and 12.3 to the reciprocal (`sqrt`
//! and a division: 2.3 / 7.3), sin 15 / 26 (3.1 / 10), atan2 34 / 39 (9.2 / 23).
//! Multiplication is one 64×64→128-bit multiply plus rounding (with carry intrinsics on
//! x86-64); division uses the hardware divider (64-bit when `|self| < 1`, else
//! 128-by-64-bit); the square root and [`Fx::sqrt_recip`] use multiplications only. Range
//! checks are branches to a cold saturation path, never taken in a sane scene.

use super::Real;
#[cfg(any(test, feature = "fixed-interop"))]
use ::fixed::types::I32F32;
use core::fmt;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// A Q32.32 signed fixed-point number: 32 integer bits, 32 fractional bits, stored in an
/// `i64`, bit-exact on every platform.
///
/// - Range `[−2³¹, 2³¹ − 2⁻³²]` (±2.1·10⁹), resolution 2⁻³² ≈ 2.33·10⁻¹⁰.
/// - Operators saturate to [`Fx::MIN`]/[`Fx::MAX`] instead of wrapping (`checked_*`
///   methods report overflow); `x / 0` is `MAX`, `MIN` or 0 by the sign of `x`.
/// - Products, quotients and conversions from floats round to nearest, ties to even;
///   [`Fx::sqrt`] is correctly rounded; `sin`, `cos` and `atan2` are within ½ ULP + 10⁻¹².
/// - No floating-point instruction runs inside any operation.
///
/// Equality, ordering and hashing are those of the underlying bits, so they are total
/// and consistent (there is no NaN and no negative zero).
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Fx(i64);

/// Number of fractional bits.
const FRAC: u32 = 32;
/// Raw value of 1.
const ONE_BITS: i64 = 1 << FRAC;

mod format;
mod sqrt;
mod trig;

use sqrt::*;
use trig::*;

/// `a · b` for Q2.62 operands, truncated (the error, 2⁻⁶², is far below the output ULP).
#[inline(always)]
pub(super) const fn mul_q62(a: i64, b: i64) -> i64 {
    ((a as i128 * b as i128) >> 62) as i64
}

/// Rounds a Q2.62 value to Q32.32, to nearest (ties upwards, which cannot matter at the
/// precision of the trigonometric kernels).
#[inline(always)]
const fn q62_to_fx_bits(v: i64) -> i64 {
    (v + (1 << 29)) >> 30
}

/// The product `a · b / 2³²` rounded to nearest, ties to even: `(low, high)` where
/// `low` is the result if it fits in 64 bits, which is the case iff `high` (the bits
/// from 64 up of the rounding sum) is a sign-extended 32-bit value.
///
/// With `p = a·b = q·2³² + r` (`0 ≤ r < 2³²`), adds the bias `2³¹ − 1 + (q & 1)` before
/// truncating: the sum carries into `q` iff `r > 2³¹`, or `r = 2³¹` (a tie) and `q` is odd,
/// which is rounding half to even. `q & 1` is bit 32 of the low word, so the bias is
/// ready one operation after the multiplication. Cannot overflow: `|a · b| ≤ 2¹²⁶`.
///
/// This is the portable (and `const`) product; on x86-64 the `*` operator uses
/// `mul_x86_64`, which gives the same results with fewer instructions.
#[inline(always)]
const fn mul_round(a: i64, b: i64) -> (i64, i64) {
    let p = a as i128 * b as i128;
    let (lo, hi) = (p as u64, (p >> 64) as i64);
    let (lo, carry) = lo.overflowing_add(0x7fff_ffff + ((lo >> 32) & 1));
    let hi = hi + carry as i64;
    (((hi as u64) << 32 | lo >> 32) as i64, hi)
}

/// Whether `high` from [`mul_round`] means the rounded product fits in 64 bits.
#[inline(always)]
const fn mul_fits(high: i64) -> bool {
    high == high as i32 as i64
}

/// `MAX` if `sign ≥ 0`, else `MIN`: the value an overflowing operation saturates to.
///
/// Marked cold so that the overflow checks compile to (never taken, perfectly
/// predicted) branches rather than conditional moves: the result of `+`, `-` and `*`
/// then does not wait for the check. Inlined nevertheless (it is two instructions): an
/// out-of-line call would make the register allocator keep values alive across it in
/// the hot code (measured 1 % slower on the world step).
#[cold]
#[inline(always)]
const fn saturated(sign: i64) -> Fx {
    if sign < 0 { Fx::MIN } else { Fx::MAX }
}

/// `a · 2³² / b` rounded to nearest, ties to even; `None` when the result does not fit.
/// Requires `b != 0`.
#[inline]
const fn div_round(a: i64, b: i64) -> Option<i64> {
    let negative = (a ^ b) < 0;
    let na = a.unsigned_abs();
    let nb = b.unsigned_abs();
    if na >> 32 >= nb {
        return None; // quotient ≥ 2⁶⁴
    }
    // The quotient fits 64 bits. For |a| < 1 the dividend fits 64 bits too and a plain
    // 64-bit division does; otherwise a 128-by-64-bit division (on x86-64 the runtime
    // routine reduces to the hardware `div`; measured faster than a hand-written
    // two-digit long division).
    let (q, r) = if na >> 32 == 0 {
        let n = na << 32;
        (n / nb, n % nb)
    } else {
        let n = (na as u128) << 32;
        let q = (n / nb as u128) as u64; // < 2⁶⁴ by the check above
        (q, (n - q as u128 * nb as u128) as u64)
    };
    // Round half to even: up iff 2r > nb, or 2r = nb (an exact tie) and q is odd, i.e. iff
    // r + (q & 1) > nb − r (r < nb ≤ 2⁶³, so neither side overflows).
    let (q, carry) = q.overflowing_add((r + (q & 1) > nb - r) as u64);
    // The magnitude may reach 2⁶³ for a negative result, 2⁶³ − 1 for a positive one.
    if carry || q > i64::MAX as u64 + negative as u64 {
        return None;
    }
    let m = -(negative as i64);
    Some((q as i64 ^ m).wrapping_sub(m))
}

impl Fx {
    /// Number of fractional bits (32).
    pub const FRAC_BITS: u32 = FRAC;
    /// 0.
    pub const ZERO: Self = Self(0);
    /// 1.
    pub const ONE: Self = Self(ONE_BITS);
    /// 2.
    pub const TWO: Self = Self(2 * ONE_BITS);
    /// 0.5.
    pub const HALF: Self = Self(ONE_BITS / 2);
    /// −1.
    pub const NEG_ONE: Self = Self(-ONE_BITS);
    /// The smallest positive value, one ULP: 2⁻³² ≈ 2.33·10⁻¹⁰.
    pub const DELTA: Self = Self(1);
    /// The largest value, 2³¹ − 2⁻³² ≈ 2.1·10⁹.
    pub const MAX: Self = Self(i64::MAX);
    /// The smallest (most negative) value, −2³¹.
    pub const MIN: Self = Self(i64::MIN);
    /// π rounded to nearest (`13 493 037 705 / 2³²`, 0.48 ULP above π).
    pub const PI: Self = Self(13_493_037_705);
    /// π/2 rounded to nearest.
    pub const FRAC_PI_2: Self = Self(6_746_518_852);
    /// 2π rounded to nearest.
    pub const TAU: Self = Self(26_986_075_409);
    /// 2⁻¹² ≈ 2.44·10⁻⁴ (a quarter of a millimetre): the length below which a direction is
    /// treated as undefined.
    ///
    /// Lengths are computed as `√(x² + y² + z²)`, and the squares are rounded to the ULP
    /// (2⁻³²), so near zero a computed length only has about 16 significant fractional
    /// bits: each square carries an error up to ½ ULP, the sum up to 1.5 ULP, which makes
    /// the relative error of a length `ℓ` up to `1.5·2⁻³² / (2ℓ²)`. At `ℓ = 2⁻¹²` that is
    /// 0.3 %, so a direction `v / ℓ` accepted by this threshold has unit length within
    /// 0.3 %. A threshold of a few ULPs (say 2⁻²⁸) would accept lengths whose square has
    /// underflowed to one or two ULPs (directions off by 40 % or more), and its square
    /// would be 0. `GEOMETRIC_EPSILON²` = 2⁻²⁴ = 256 ULPs is still well resolved.
    pub const GEOMETRIC_EPSILON: Self = Self(1 << 20);

    /// The value whose raw two's-complement representation is `bits` (value `bits / 2³²`).
    #[inline]
    #[must_use]
    pub const fn from_bits(bits: i64) -> Self {
        Self(bits)
    }

    /// The raw representation: `self · 2³²` as an `i64`.
    #[inline]
    #[must_use]
    pub const fn to_bits(self) -> i64 {
        self.0
    }

    /// The integer `v`, exactly (every `i32` is representable).
    #[inline]
    #[must_use]
    pub const fn from_int(v: i32) -> Self {
        Self((v as i64) << FRAC)
    }

    /// `num / den` rounded to nearest (ties to even); saturates like `/`, so `den = 0`
    /// gives `MAX`, `MIN` or 0.
    #[inline]
    #[must_use]
    pub const fn from_ratio(num: i32, den: i32) -> Self {
        Self::from_int(num).saturating_div(Self::from_int(den))
    }

    /// Converts from `f64`, rounding to nearest (ties to even), saturating to
    /// `MIN`/`MAX` (infinities included); NaN gives 0.
    ///
    /// Implemented on the IEEE 754 bit pattern with integer operations only, so the result
    /// does not depend on the floating-point unit, its rounding mode or denormal handling.
    #[must_use]
    pub const fn from_f64(v: f64) -> Self {
        let bits = v.to_bits();
        let negative = bits >> 63 != 0;
        let exp = ((bits >> 52) & 0x7ff) as i32;
        let man = bits & ((1 << 52) - 1);
        if exp == 0x7ff {
            // NaN → 0, ±∞ → saturate.
            return if man != 0 {
                Self::ZERO
            } else if negative {
                Self::MIN
            } else {
                Self::MAX
            };
        }
        if exp == 0 {
            // Zero or subnormal (< 2⁻¹⁰²²): rounds to 0.
            return Self::ZERO;
        }
        // |v| = m · 2^(exp − 1075), so the raw magnitude is m · 2^(exp − 1043).
        let m = man | (1 << 52);
        let e = exp - 1043;
        let mag: u64 = if e >= 0 {
            if e > 10 {
                // ≥ 2⁶³: out of range (or exactly −2³¹ = MIN, which saturation gives too).
                return if negative { Self::MIN } else { Self::MAX };
            }
            m << e
        } else {
            let s = -e;
            if s > 53 {
                0 // |v| < ¼ ULP
            } else {
                let q = m >> s;
                let rem = m & ((1 << s) - 1);
                let half = 1 << (s - 1);
                q + (rem > half || (rem == half && q & 1 == 1)) as u64
            }
        };
        if negative {
            // mag ≤ 2⁶³; −2⁶³ wraps to exactly i64::MIN.
            Self((mag as i64).wrapping_neg())
        } else if mag > i64::MAX as u64 {
            Self::MAX
        } else {
            Self(mag as i64)
        }
    }

    /// Converts from `f32` (widened exactly to `f64`, then [`Fx::from_f64`]).
    #[inline]
    #[must_use]
    pub const fn from_f32(v: f32) -> Self {
        Self::from_f64(v as f64)
    }

    /// Converts to `f64`: exact when `|self| < 2²¹` (53 significant bits), otherwise
    /// correctly rounded to nearest. For output and diagnostics only.
    #[inline]
    #[must_use]
    pub const fn to_f64(self) -> f64 {
        // One correctly rounded integer conversion, then an exact power-of-two scaling.
        self.0 as f64 * (1.0 / 4_294_967_296.0)
    }

    /// Converts to `f32`, correctly rounded to nearest.
    #[inline]
    #[must_use]
    pub const fn to_f32(self) -> f32 {
        self.0 as f32 * (1.0 / 4_294_967_296.0)
    }

    /// The same value as the `fixed` crate's `I32F32` (identical representation).
    /// Public with the `fixed-interop` feature only: a public `fixed` type in the API makes
    /// rustdoc list the `fixed` and `az` crates' blanket conversion traits on every type
    /// of this crate.
    #[inline]
    #[must_use]
    #[cfg(feature = "fixed-interop")]
    pub const fn to_fixed(self) -> I32F32 {
        I32F32::from_bits(self.0)
    }

    /// From the `fixed` crate's `I32F32` (identical representation; `fixed-interop`
    /// feature).
    #[inline]
    #[must_use]
    #[cfg(feature = "fixed-interop")]
    pub const fn from_fixed(v: I32F32) -> Self {
        Self(v.to_bits())
    }

    /// `self + rhs`, or `None` on overflow.
    #[inline]
    #[must_use]
    pub const fn checked_add(self, rhs: Self) -> Option<Self> {
        match self.0.checked_add(rhs.0) {
            Some(v) => Some(Self(v)),
            None => None,
        }
    }

    /// `self − rhs`, or `None` on overflow.
    #[inline]
    #[must_use]
    pub const fn checked_sub(self, rhs: Self) -> Option<Self> {
        match self.0.checked_sub(rhs.0) {
            Some(v) => Some(Self(v)),
            None => None,
        }
    }

    /// `self · rhs` rounded to nearest (ties to even), or `None` on overflow.
    #[inline]
    #[must_use]
    pub const fn checked_mul(self, rhs: Self) -> Option<Self> {
        let (r, high) = mul_round(self.0, rhs.0);
        if mul_fits(high) { Some(Self(r)) } else { None }
    }

    /// `self / rhs` rounded to nearest (ties to even), or `None` when `rhs` is 0 or the
    /// quotient overflows.
    #[inline]
    #[must_use]
    pub const fn checked_div(self, rhs: Self) -> Option<Self> {
        if rhs.0 == 0 {
            return None;
        }
        match div_round(self.0, rhs.0) {
            Some(v) => Some(Self(v)),
            None => None,
        }
    }

    /// `self + rhs`, saturating to `MIN`/`MAX` (the `+` operator).
    #[inline]
    #[must_use]
    pub const fn saturating_add(self, rhs: Self) -> Self {
        match self.0.checked_add(rhs.0) {
            Some(v) => Self(v),
            None => saturated(self.0),
        }
    }

    /// `self − rhs`, saturating to `MIN`/`MAX` (the `-` operator).
    #[inline]
    #[must_use]
    pub const fn saturating_sub(self, rhs: Self) -> Self {
        match self.0.checked_sub(rhs.0) {
            Some(v) => Self(v),
            None => saturated(self.0),
        }
    }

    /// `self · rhs` rounded to nearest (ties to even), saturating to `MIN`/`MAX` (the `*`
    /// operator).
    #[inline]
    #[must_use]
    pub const fn saturating_mul(self, rhs: Self) -> Self {
        let (r, high) = mul_round(self.0, rhs.0);
        if mul_fits(high) { Self(r) } else { saturated(high) }
    }

    /// `self / rhs` rounded to nearest (ties to even), saturating to `MIN`/`MAX` (the `/`
    /// operator). Division by zero gives `MAX` for positive `self`, `MIN` for negative
    /// `self` and 0 for 0.
    #[inline]
    #[must_use]
    pub const fn saturating_div(self, rhs: Self) -> Self {
        if rhs.0 != 0 {
            if let Some(v) = div_round(self.0, rhs.0) {
                return Self(v);
            }
        } else if self.0 == 0 {
            return Self::ZERO;
        }
        if (self.0 ^ rhs.0) < 0 { Self::MIN } else { Self::MAX }
    }

    /// `−self`, saturating (`−MIN` is `MAX`); the unary `-` operator.
    #[inline]
    #[must_use]
    pub const fn saturating_neg(self) -> Self {
        match self.0.checked_neg() {
            Some(v) => Self(v),
            None => Self::MAX,
        }
    }

    /// Absolute value, saturating (`|MIN|` is `MAX`).
    #[inline]
    #[must_use]
    pub const fn abs(self) -> Self {
        Self(self.0.saturating_abs())
    }

    /// The smaller of two values.
    #[inline]
    #[must_use]
    pub const fn min(self, o: Self) -> Self {
        if o.0 < self.0 { o } else { self }
    }

    /// The larger of two values.
    #[inline]
    #[must_use]
    pub const fn max(self, o: Self) -> Self {
        if o.0 > self.0 { o } else { self }
    }

    /// `self` clamped into `[lo, hi]`; like [`Real::clamp`], `hi` wins if `lo > hi` (never
    /// panics, unlike [`Ord::clamp`]).
    #[inline]
    #[must_use]
    pub const fn clamp(self, lo: Self, hi: Self) -> Self {
        self.max(lo).min(hi)
    }

    /// Square root, correctly rounded to nearest; 0 for negative input.
    ///
    /// Computed as the rounded integer square root of `bits · 2³²` (a 95-bit integer),
    /// estimated with multiplications only (a table seed and one Goldschmidt step) whose
    /// error bound proves the rounding, or else verified exactly (ties are impossible).
    #[inline]
    #[must_use]
    pub const fn sqrt(self) -> Self {
        if self.0 <= 0 {
            return Self::ZERO;
        }
        Self(sqrt_round(self.0 as u64) as i64)
    }

    /// `(√x, 1/√x)` computed together, faster than [`Fx::sqrt`] followed by a division;
    /// `(0, 0)` for `x ≤ 0`.
    ///
    /// The root is correctly rounded (identical to [`Fx::sqrt`]). The reciprocal comes
    /// from the same multiplication-only iteration, without a division, and is within
    /// ½ ULP + 2⁻⁴ ULP of `1/√x`: the nearest representable value, or (measured: once in
    /// 2·10⁶ random inputs, 0.5000006 ULP away) its neighbour. Deterministic like every
    /// operation of this type: integers only, the same bits on every platform. It cannot
    /// overflow: it is largest at `x = DELTA`, where it is exactly 2¹⁶.
    ///
    /// About 1.5× the cost of [`Fx::sqrt`] alone, half the cost of `sqrt` and a division.
    #[inline]
    #[must_use]
    pub const fn sqrt_recip(self) -> (Self, Self) {
        if self.0 <= 0 {
            return (Self::ZERO, Self::ZERO);
        }
        let (s, r) = sqrt_recip_raw(self.0 as u64);
        (Self(s as i64), Self(r as i64))
    }

    /// Sine (radians). Error within 0.5 ULP + 10⁻¹⁴; exactly odd (`sin(−x) = −sin(x)`).
    ///
    /// `|x|` is reduced to a quadrant and a remainder in `[−π/4, π/4]` with a 128-bit
    /// `2/π` (so large angles lose no accuracy), then a Taylor polynomial is evaluated in
    /// Q2.62.
    #[inline]
    #[must_use]
    pub const fn sin(self) -> Self {
        let (q, r) = reduce_quadrant(self.0.unsigned_abs());
        let v = q62_to_fx_bits(sin_or_cos_q62(r, q & 1 == 1));
        let v = if q >= 2 { -v } else { v };
        Self(if self.0 < 0 { -v } else { v })
    }

    /// Cosine (radians). Error within 0.5 ULP + 10⁻¹⁴; exactly even.
    #[inline]
    #[must_use]
    pub const fn cos(self) -> Self {
        // cos x = sin(x + π/2): one quadrant further.
        let (q, r) = reduce_quadrant(self.0.unsigned_abs());
        let q = (q + 1) & 3;
        let v = q62_to_fx_bits(sin_or_cos_q62(r, q & 1 == 1));
        Self(if q >= 2 { -v } else { v })
    }

    /// `(sin x, cos x)`, identical to calling [`Fx::sin`] and [`Fx::cos`] but sharing the
    /// range reduction.
    #[inline]
    #[must_use]
    pub const fn sin_cos(self) -> (Self, Self) {
        let (q, r) = reduce_quadrant(self.0.unsigned_abs());
        let s = q62_to_fx_bits(sin_or_cos_q62(r, false));
        let c = q62_to_fx_bits(sin_or_cos_q62(r, true));
        let (sin, cos) = match q {
            0 => (s, c),
            1 => (c, -s),
            2 => (-s, -c),
            _ => (-c, s),
        };
        (Self(if self.0 < 0 { -sin } else { sin }), Self(cos))
    }

    /// Four-quadrant arc tangent of `self / x` (`self` is the y coordinate), in
    /// `(−π, π]`; `atan2(0, 0)` is 0. Error within 0.5 ULP + 10⁻¹². Exact on the axes
    /// (`0`, `±FRAC_PI_2`, `PI`).
    ///
    /// The result is never below `−PI + DELTA`: `Fx::PI` is 0.48 ULP above π, so `−PI`
    /// itself lies outside `(−π, π]`; `atan2(0, x < 0)` gives `PI`, and just below the
    /// negative x axis the result is clamped to `−PI + DELTA` (error up to 0.52 ULP).
    ///
    /// Evaluated with 22 CORDIC vectoring steps on the operands normalised to 61 bits
    /// (shifts and adds only), finished by `atan(t) ≈ t` for the remaining `t < 2⁻²¹`.
    #[inline]
    #[must_use]
    pub const fn atan2(self, x: Self) -> Self {
        let (y, x) = (self.0, x.0);
        if y == 0 && x == 0 {
            return Self::ZERO;
        }
        let (ay, ax) = (y.unsigned_abs(), x.unsigned_abs());
        // θ = atan(ay/ax) ∈ [0, π/2] in Q2.62; exact on the axes.
        let theta = if ay == 0 {
            0
        } else if ax == 0 {
            FRAC_PI_2_Q62 as u64
        } else {
            atan_first_quadrant_q62(ay, ax)
        };
        // Fold into the right half-plane / quadrant, magnitude in [0, π] (u64 Q62).
        let mag = if x < 0 { PI_Q62 - theta } else { theta };
        let mag = ((mag + (1 << 29)) >> 30) as i64;
        if y < 0 {
            // Keep the result inside (−π, π]: −PI is 0.48 ULP below −π.
            let m = if mag >= Self::PI.0 { Self::PI.0 - 1 } else { mag };
            Self(-m)
        } else {
            Self(mag)
        }
    }
}

impl fmt::Debug for Fx {
    /// Same as [`Display`](fmt::Display): the decimal value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl From<i32> for Fx {
    /// Exact.
    #[inline]
    fn from(v: i32) -> Self {
        Self::from_int(v)
    }
}

#[cfg(feature = "fixed-interop")]
impl From<I32F32> for Fx {
    /// Same bits.
    #[inline]
    fn from(v: I32F32) -> Self {
        Self::from_fixed(v)
    }
}

#[cfg(feature = "fixed-interop")]
impl From<Fx> for I32F32 {
    /// Same bits.
    #[inline]
    fn from(v: Fx) -> Self {
        v.to_fixed()
    }
}

impl Add for Fx {
    type Output = Self;
    /// Exact sum, saturating on overflow.
    #[inline]
    fn add(self, rhs: Self) -> Self {
        self.saturating_add(rhs)
    }
}

impl Sub for Fx {
    type Output = Self;
    /// Exact difference, saturating on overflow.
    #[inline]
    fn sub(self, rhs: Self) -> Self {
        self.saturating_sub(rhs)
    }
}

impl Mul for Fx {
    type Output = Self;
    /// Product rounded to nearest (ties to even), saturating on overflow.
    #[inline]
    fn mul(self, rhs: Self) -> Self {
        #[cfg(target_arch = "x86_64")]
        return mul_x86_64(self, rhs);
        #[cfg(not(target_arch = "x86_64"))]
        return self.saturating_mul(rhs);
    }
}

/// [`Fx::saturating_mul`] with the rounding carry chain spelled out with the `adc`
/// intrinsics, which LLVM does not find on its own: `bt` moves bit 32 of the product (the
/// parity of the truncated result) into the carry flag, `adc $0x7fffffff` on the low 32
/// bits produces the rounding carry, and a second `adc` adds bits 32..64 and that carry to
/// the high word shifted into place.
///
/// The range check is conservative so that the final addition cannot overflow: the high
/// word `hi` of the product must lie in `[−2³¹, 2³¹ − 1)`, which bounds the result by
/// `(2³¹ − 2)·2³² + 2³² < 2⁶³` (and it is at least `−2⁶³`). Products of magnitude
/// `≥ 2³¹ − 1` (near saturation) take the exact portable path instead. Eight
/// instructions after the multiplication (two of them the range check) against twelve
/// for the portable code, and one cycle less latency (7 cycles), for the same result (the
/// tests compare both on every kind of input, ties and overflow boundaries included).
/// Worth 9 % on the world step.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn mul_x86_64(a: Fx, b: Fx) -> Fx {
    use core::arch::x86_64::{_addcarry_u32, _addcarry_u64};
    let p = a.0 as i128 * b.0 as i128;
    let (lo, hi) = (p as u64, (p >> 64) as i64);
    if (hi as u64).wrapping_add(1 << 31) >= 0xffff_ffff {
        return mul_slow(a, b);
    }
    let (mut low_word, mut r) = (0, 0);
    // Safe functions since Rust 1.87 (no pointers, no target feature beyond the
    // baseline); the `unsafe` blocks keep older compilers happy.
    #[allow(unused_unsafe)]
    let up = unsafe { _addcarry_u32(((lo >> 32) & 1) as u8, lo as u32, 0x7fff_ffff, &mut low_word) };
    #[allow(unused_unsafe)]
    unsafe {
        _addcarry_u64(up, (hi as u64) << 32, lo >> 32, &mut r)
    };
    Fx(r as i64)
}

/// The exact product for [`mul_x86_64`]'s rare operands (inlined like [`saturated`]).
#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(always)]
fn mul_slow(a: Fx, b: Fx) -> Fx {
    a.saturating_mul(b)
}

impl Div for Fx {
    type Output = Self;
    /// Quotient rounded to nearest (ties to even), saturating on overflow and on division
    /// by zero (see [`Fx::saturating_div`]).
    #[inline]
    fn div(self, rhs: Self) -> Self {
        self.saturating_div(rhs)
    }
}

impl Neg for Fx {
    type Output = Self;
    /// Negation, saturating (`−MIN` is `MAX`).
    #[inline]
    fn neg(self) -> Self {
        self.saturating_neg()
    }
}

impl AddAssign for Fx {
    #[inline]
    fn add_assign(&mut self, rhs: Self) {
        *self = *self + rhs;
    }
}

impl SubAssign for Fx {
    #[inline]
    fn sub_assign(&mut self, rhs: Self) {
        *self = *self - rhs;
    }
}

impl MulAssign for Fx {
    #[inline]
    fn mul_assign(&mut self, rhs: Self) {
        *self = *self * rhs;
    }
}

impl DivAssign for Fx {
    #[inline]
    fn div_assign(&mut self, rhs: Self) {
        *self = *self / rhs;
    }
}

impl crate::state::SavedState for Fx {
    #[inline]
    fn hash_state(&self, h: &mut crate::state::StateHasher) {
        h.write_u64(Real::hash_bits(*self));
    }
}

impl Real for Fx {
    const ZERO: Self = Fx::ZERO;
    const ONE: Self = Fx::ONE;
    const TWO: Self = Fx::TWO;
    const HALF: Self = Fx::HALF;
    const PI: Self = Fx::PI;
    const MAX: Self = Fx::MAX;
    const GEOMETRIC_EPSILON: Self = Fx::GEOMETRIC_EPSILON;
    const ROUNDING_SLOP: Self = Fx(256);
    const NAME: &'static str = "fixed";
    const FLOATING: bool = false;
    const COORDINATE_RANGE: Self = Fx(16384 << 32);

    #[inline]
    fn from_f64(v: f64) -> Self {
        Fx::from_f64(v)
    }
    #[inline]
    fn to_f64(self) -> f64 {
        Fx::to_f64(self)
    }
    #[inline]
    fn from_i32(v: i32) -> Self {
        Fx::from_int(v)
    }
    #[inline]
    fn from_ratio(num: i32, den: i32) -> Self {
        Fx::from_ratio(num, den)
    }
    #[inline]
    fn sqrt(self) -> Self {
        Fx::sqrt(self)
    }
    #[inline]
    fn sqrt_recip(self) -> (Self, Self) {
        Fx::sqrt_recip(self)
    }
    #[inline]
    fn abs(self) -> Self {
        Fx::abs(self)
    }
    #[inline]
    fn sin(self) -> Self {
        Fx::sin(self)
    }
    #[inline]
    fn cos(self) -> Self {
        Fx::cos(self)
    }
    #[inline]
    fn atan2(self, x: Self) -> Self {
        Fx::atan2(self, x)
    }
    #[inline]
    fn is_finite(self) -> bool {
        true
    }
    #[inline]
    fn hash_bits(self) -> u64 {
        self.0 as u64
    }
    #[inline]
    fn min(self, o: Self) -> Self {
        Fx::min(self, o)
    }
    #[inline]
    fn max(self, o: Self) -> Self {
        Fx::max(self, o)
    }
    #[inline]
    fn clamp(self, lo: Self, hi: Self) -> Self {
        Fx::clamp(self, lo, hi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::f64::consts::{FRAC_PI_2, PI, TAU};
    use core::hint::black_box;

    /// Deterministic 64-bit LCG (Knuth's MMIX constants), high bits out.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let x = self.0;
            x ^ (x >> 29)
        }
        /// Raw bits spread over all magnitudes: a random value shifted right by 0..63.
        fn raw(&mut self) -> i64 {
            let shift = self.next() % 64;
            (self.next() as i64) >> shift
        }
        /// A value in `[-limit, limit]` (inclusive of fractional bits).
        fn within(&mut self, limit: f64) -> Fx {
            let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
            Fx::from_f64((2.0 * u - 1.0) * limit)
        }
    }

    /// `num / den` rounded to nearest, ties to even, with exact integer arithmetic.
    fn ref_round_div(num: i128, den: i128) -> i128 {
        let (num, den) = if den < 0 { (-num, -den) } else { (num, den) };
        let q = num.div_euclid(den);
        let r = num.rem_euclid(den);
        if 2 * r > den || (2 * r == den && q & 1 == 1) { q + 1 } else { q }
    }

    fn saturate(v: i128) -> i64 {
        v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
    }

    fn ref_mul(a: i64, b: i64) -> i128 {
        // Exact rational rounding, independent of the implementation's tie trick.
        ref_round_div(a as i128 * b as i128, 1 << 32)
    }

    fn ref_div(a: i64, b: i64) -> i128 {
        ref_round_div((a as i128) << 32, b as i128)
    }

    fn fx(v: f64) -> Fx {
        Fx::from_f64(v)
    }

    const ULP: f64 = 1.0 / 4_294_967_296.0;

    #[test]
    fn constants() {
        assert_eq!(Fx::ONE.to_bits(), 1 << 32);
        assert_eq!(Fx::TWO.to_f64(), 2.0);
        assert_eq!(Fx::HALF.to_f64(), 0.5);
        assert_eq!(Fx::NEG_ONE, -Fx::ONE);
        assert_eq!(Fx::DELTA.to_f64(), ULP);
        assert_eq!(Fx::MAX.to_bits(), i64::MAX);
        assert_eq!(Fx::MIN.to_bits(), i64::MIN);
        // Nearest representable values: the f64 constants are accurate to ~1e-16, far
        // closer than the distance of π·2³² etc. from a rounding tie.
        assert_eq!(Fx::PI, fx(PI));
        assert_eq!(Fx::FRAC_PI_2, fx(FRAC_PI_2));
        assert_eq!(Fx::TAU, fx(TAU));
        assert!((Fx::PI.to_f64() - PI).abs() <= ULP / 2.0);
        // The `fixed` crate's constant is truncated; ours is rounded up.
        assert_eq!(Fx::PI.to_bits(), I32F32::PI.to_bits() + 1);
        assert_eq!(Fx::GEOMETRIC_EPSILON.to_f64(), 2f64.powi(-12));
        assert_eq!((Fx::GEOMETRIC_EPSILON * Fx::GEOMETRIC_EPSILON).to_bits(), 256);
        assert_eq!(<Fx as Real>::ROUNDING_SLOP, Fx::GEOMETRIC_EPSILON * Fx::GEOMETRIC_EPSILON);
        assert_eq!(<Fx as Real>::NAME, "fixed");
        assert_eq!(Fx::default(), Fx::ZERO);
        assert_eq!(<Fx as Real>::PI, Fx::PI);
        assert_eq!(<Fx as Real>::MAX, Fx::MAX);
    }

    #[test]
    fn conversions_from_f64() {
        assert_eq!(fx(f64::NAN), Fx::ZERO);
        assert_eq!(fx(-f64::NAN), Fx::ZERO);
        assert_eq!(fx(f64::INFINITY), Fx::MAX);
        assert_eq!(fx(f64::NEG_INFINITY), Fx::MIN);
        assert_eq!(fx(1e300), Fx::MAX);
        assert_eq!(fx(-1e300), Fx::MIN);
        assert_eq!(fx(2147483648.0), Fx::MAX);
        assert_eq!(fx(-2147483648.0), Fx::MIN);
        assert_eq!(fx(-2147483647.5).to_bits(), -(2147483647i64 << 32) - (1 << 31));
        assert_eq!(fx(2147483647.9999999998), Fx::MAX);
        assert_eq!(fx(-0.0), Fx::ZERO);
        assert_eq!(fx(f64::MIN_POSITIVE), Fx::ZERO);
        assert_eq!(fx(5e-324), Fx::ZERO);
        assert_eq!(fx(1.5).to_bits(), 3 << 31);
        assert_eq!(fx(-1.5).to_bits(), -(3 << 31));
        // Ties to even at half an ULP.
        assert_eq!(fx(0.5 * ULP), Fx::ZERO);
        assert_eq!(fx(1.5 * ULP).to_bits(), 2);
        assert_eq!(fx(2.5 * ULP).to_bits(), 2);
        assert_eq!(fx(-1.5 * ULP).to_bits(), -2);
        assert_eq!(fx(-2.5 * ULP).to_bits(), -2);
        assert_eq!(fx(0.5 * ULP * (1.0 + f64::EPSILON)).to_bits(), 1);
        assert_eq!(fx(0.25 * ULP), Fx::ZERO);
        assert_eq!(Fx::from_f32(1.25), fx(1.25));
        assert_eq!(Fx::from_f32(f32::NAN), Fx::ZERO);
        // Against the float reference: exact scaling by 2³², IEEE round-half-even,
        // saturating cast.
        let mut g = Lcg(1);
        for _ in 0..200_000 {
            let e = (g.next() % 80) as i32 - 50;
            let v = f64::from_bits((g.next() >> 12) | 0x3ff0_0000_0000_0000) * 2f64.powi(e);
            let v = if g.next() & 1 == 0 { v } else { -v };
            let expect = (v * 4_294_967_296.0).round_ties_even() as i64;
            assert_eq!(fx(v).to_bits(), expect, "{v:e}");
            assert_eq!(<Fx as Real>::from_f64(v).to_bits(), expect);
        }
    }

    #[test]
    fn display_is_the_shortest_decimal_that_reads_back_and_matches_the_fixed_crate() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let check = |bits: i64| {
            let (ours, theirs) = (Fx::from_bits(bits), I32F32::from_bits(bits));
            assert_eq!(format!("{ours}"), format!("{theirs}"), "bits {bits:#x}");
            assert_eq!(format!("{ours:.3}"), format!("{theirs:.3}"), "bits {bits:#x}");
            assert_eq!(format!("{ours:.0}"), format!("{theirs:.0}"), "bits {bits:#x}");
            assert_eq!(format!("{ours:>12.5}"), format!("{theirs:>12.5}"), "bits {bits:#x}");
            assert_eq!(format!("{ours:+}"), format!("{theirs:+}"), "bits {bits:#x}");
        };
        for bits in [0, 1, -1, 1 << 31, -(1 << 31), 3 << 30, i64::MAX, i64::MIN, 0x1_0000_0000, -0x1_8000_0000] {
            check(bits);
        }
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            check(seed as i64);
            check((seed as i64) >> 20);
        }
    }

    #[test]
    fn conversions_to_float_and_ints() {
        let mut g = Lcg(2);
        for _ in 0..100_000 {
            // |x| < 2²¹: exact round trip through f64.
            let x = Fx::from_bits(g.raw() >> 10);
            assert_eq!(fx(x.to_f64()), x);
            assert_eq!(x.to_f64(), x.to_bits() as f64 / 4_294_967_296.0);
            assert_eq!(x.to_f32(), x.to_f64() as f32);
        }
        assert_eq!(Fx::MAX.to_f64(), 2147483648.0);
        assert_eq!(Fx::MIN.to_f64(), -2147483648.0);
        for v in [0, 1, -1, 7, i32::MAX, i32::MIN, 123_456] {
            assert_eq!(Fx::from_int(v).to_f64(), v as f64);
            assert_eq!(Fx::from(v), Fx::from_int(v));
            assert_eq!(<Fx as Real>::from_i32(v), Fx::from_int(v));
        }
        #[cfg(feature = "fixed-interop")]
        {
            let f = I32F32::from_num(3.25);
            assert_eq!(Fx::from(f).to_f64(), 3.25);
            assert_eq!(I32F32::from(Fx::from(f)), f);
        }
        assert_eq!(Fx::from_ratio(1, 3).to_bits(), ref_round_div(1 << 32, 3) as i64);
        assert_eq!(Fx::from_ratio(-2, 3).to_bits(), ref_round_div(-2 << 32, 3) as i64);
        assert_eq!(<Fx as Real>::from_ratio(1, 480).to_bits(), ref_round_div(1 << 32, 480) as i64);
        assert_eq!(Fx::from_ratio(1, 0), Fx::MAX);
        assert_eq!(Fx::from_ratio(i32::MIN, -1), Fx::MAX);
    }

    #[test]
    fn add_sub_exact_and_saturating() {
        let mut g = Lcg(3);
        for _ in 0..200_000 {
            let (a, b) = (g.raw(), g.raw());
            let (x, y) = (Fx::from_bits(a), Fx::from_bits(b));
            let sum = a as i128 + b as i128;
            let diff = a as i128 - b as i128;
            assert_eq!((x + y).to_bits(), saturate(sum));
            assert_eq!((x - y).to_bits(), saturate(diff));
            assert_eq!(x.checked_add(y).map(Fx::to_bits), i64::try_from(sum).ok());
            assert_eq!(x.checked_sub(y).map(Fx::to_bits), i64::try_from(diff).ok());
            let mut z = x;
            z += y;
            assert_eq!(z, x + y);
            z -= y;
            assert_eq!(z, (x + y) - y);
        }
        assert_eq!(Fx::MAX + Fx::DELTA, Fx::MAX);
        assert_eq!(Fx::MIN - Fx::DELTA, Fx::MIN);
        assert_eq!(Fx::MIN + Fx::MIN, Fx::MIN);
        assert_eq!(Fx::MAX - Fx::MIN, Fx::MAX);
        assert_eq!(Fx::MAX.checked_add(Fx::DELTA), None);
        assert_eq!(Fx::MIN.checked_sub(Fx::DELTA), None);
        assert_eq!(-Fx::MIN, Fx::MAX);
        assert_eq!(-Fx::MAX, Fx::from_bits(i64::MIN + 1));
        assert_eq!(Fx::MIN.abs(), Fx::MAX);
        assert_eq!(<Fx as Real>::abs(fx(-2.5)), fx(2.5));
    }

    #[test]
    fn mul_rounds_to_nearest_even_and_saturates() {
        let mut g = Lcg(4);
        for _ in 0..300_000 {
            let (a, b) = (g.raw(), g.raw());
            let (x, y) = (Fx::from_bits(a), Fx::from_bits(b));
            let exact = ref_mul(a, b);
            assert_eq!((x * y).to_bits(), saturate(exact), "{a} * {b}");
            assert_eq!(x.checked_mul(y).map(Fx::to_bits), i64::try_from(exact).ok());
            assert_eq!(x * y, y * x);
            let mut z = x;
            z *= y;
            assert_eq!(z, x * y);
        }
        // Against f64 on moderate values (f64 product error ≤ 2⁻⁵³ relative).
        for _ in 0..100_000 {
            let (x, y) = (g.within(1000.0), g.within(1000.0));
            let p = x.to_f64() * y.to_f64();
            assert!(((x * y).to_f64() - p).abs() <= ULP / 2.0 + p.abs() * 2f64.powi(-52));
        }
        // Exact ties: ½ ULP → 0, 1½ → 2, 2½ → 2, and symmetric for negatives.
        let d = Fx::DELTA;
        assert_eq!(d * Fx::HALF, Fx::ZERO);
        assert_eq!(Fx::from_bits(3) * Fx::HALF, Fx::from_bits(2));
        assert_eq!(Fx::from_bits(5) * Fx::HALF, Fx::from_bits(2));
        assert_eq!(Fx::from_bits(-3) * Fx::HALF, Fx::from_bits(-2));
        assert_eq!(Fx::from_bits(-5) * Fx::HALF, Fx::from_bits(-2));
        assert_eq!(Fx::from_bits(-1) * Fx::HALF, Fx::ZERO);
        // Not truncation: 0.75 ULP rounds up, −0.75 ULP rounds to −1.
        assert_eq!(Fx::from_bits(3) * fx(0.25), Fx::from_bits(1));
        assert_eq!(Fx::from_bits(-3) * fx(0.25), Fx::from_bits(-1));
        // No drift: a long chain of multiplications stays within a random walk of the
        // exact value, where truncation loses about ½ ULP per step.
        let k = fx(0.999_998_765_432_1);
        let (mut v, mut truncated, mut exact) = (Fx::ONE, Fx::ONE, 1.0f64);
        for _ in 0..10_000 {
            v *= k;
            truncated = Fx::from_bits(((truncated.to_bits() as i128 * k.to_bits() as i128) >> 32) as i64);
            exact *= k.to_f64();
        }
        let err = ((v.to_f64() - exact) / ULP).abs();
        let err_truncated = ((truncated.to_f64() - exact) / ULP).abs();
        assert!(err < 100.0 && err_truncated > 4_000.0, "{err} {err_truncated}");
        // Saturation.
        assert_eq!(Fx::MAX * Fx::TWO, Fx::MAX);
        assert_eq!(Fx::MAX * -Fx::TWO, Fx::MIN);
        assert_eq!(Fx::MIN * Fx::MIN, Fx::MAX);
        assert_eq!(Fx::MIN * Fx::NEG_ONE, Fx::MAX);
        assert_eq!(Fx::MIN * Fx::ONE, Fx::MIN);
        assert_eq!(fx(50_000.0) * fx(50_000.0), Fx::MAX);
        assert_eq!(fx(-50_000.0) * fx(50_000.0), Fx::MIN);
        assert_eq!(fx(46_340.0) * fx(46_340.0), fx(2_147_395_600.0));
        assert_eq!(Fx::MAX.checked_mul(Fx::TWO), None);
        assert_eq!(Fx::MIN.checked_mul(Fx::NEG_ONE), None);
        assert_eq!(Fx::MIN.checked_mul(Fx::ONE), Some(Fx::MIN));
        assert_eq!(Fx::MAX.checked_mul(Fx::DELTA), Some(Fx::from_bits(1 << 31)));
        // Ties at the edge of the range: 1.5 · a = MAX + ½ rounds to the even 2⁶³ (out of
        // range), −MAX − ½ rounds to the even MIN (in range).
        let a = Fx::from_bits(6_148_914_691_236_517_205);
        let three_halves = Fx::from_bits(3 << 31);
        assert_eq!(a.checked_mul(three_halves), None);
        assert_eq!(a * three_halves, Fx::MAX);
        assert_eq!((-a).checked_mul(three_halves), Some(Fx::MIN));
        assert_eq!(Fx::MAX * Fx::HALF, Fx::from_bits(1 << 62));
        assert_eq!(Fx::MIN * Fx::HALF, Fx::from_bits(-(1 << 62)));
    }

    /// The `*` operator (on x86-64 a separate implementation) against the portable
    /// `saturating_mul` and the exact reference, on products near the overflow boundary
    /// (where the fast path hands over to the exact one) and on exact ties.
    #[test]
    fn mul_operator_matches_portable_product() {
        let check = |a: i64, b: i64| {
            let (x, y) = (Fx::from_bits(a), Fx::from_bits(b));
            let expected = saturate(ref_mul(a, b));
            assert_eq!((x * y).to_bits(), expected, "{a} * {b}");
            assert_eq!(x.saturating_mul(y).to_bits(), expected, "{a} * {b}");
        };
        let mut g = Lcg(5);
        // Products a·b within a few |a| of ±2⁹⁵ ± {0, 2³¹, 2⁶³, 2⁶⁴, 2⁶⁵}: results around
        // ±2³¹ with every nearby high word of the 128-bit product.
        for _ in 0..20_000 {
            let a = ((g.next() >> 1) >> (g.next() % 31)) as i64 | 1 << 32;
            let a = if g.next() & 1 == 0 { a } else { -a };
            for t in [0, 1i128 << 31, 1 << 63, 1 << 64, 1 << 65, -(1 << 31), -(1 << 63), -(1 << 64)] {
                for target in [(1i128 << 95) + t, -(1i128 << 95) + t] {
                    let b = target / a as i128;
                    for d in -3..=3 {
                        let b = (b + d).clamp(i64::MIN as i128, i64::MAX as i128) as i64;
                        check(a, b);
                    }
                }
            }
        }
        // Ties (low word ½ ULP) with even and odd truncated results, both signs.
        for _ in 0..20_000 {
            let a = (g.next() as i64) >> (g.next() % 40);
            for b in [1 << 31, 3 << 31, -(1 << 31), -(3 << 31), 5 << 31] {
                check(a, b);
                check(a | 1, b);
                check(a & !1, b);
            }
        }
        for a in [i64::MAX, i64::MIN, i64::MAX - 1, i64::MIN + 1, 6_148_914_691_236_517_205, 1, -1, 0] {
            for b in [i64::MAX, i64::MIN, 1 << 32, -(1 << 32), (1 << 32) + 1, (1 << 32) - 1, 1 << 31, 3 << 31, 2, -2] {
                check(a, b);
            }
        }
    }

    #[test]
    fn div_rounds_to_nearest_even_and_saturates() {
        let mut g = Lcg(6);
        for _ in 0..300_000 {
            let (a, b) = (g.raw(), g.raw());
            let (x, y) = (Fx::from_bits(a), Fx::from_bits(b));
            if b == 0 {
                continue;
            }
            let exact = ref_div(a, b);
            assert_eq!((x / y).to_bits(), saturate(exact), "{a} / {b}");
            assert_eq!(x.checked_div(y).map(Fx::to_bits), i64::try_from(exact).ok());
            let mut z = x;
            z /= y;
            assert_eq!(z, x / y);
        }
        for _ in 0..100_000 {
            let (x, y) = (g.within(1000.0), g.within(10.0));
            if y == Fx::ZERO {
                continue;
            }
            let q = x.to_f64() / y.to_f64();
            if q.abs() < 1e9 {
                assert!(((x / y).to_f64() - q).abs() <= ULP / 2.0 + q.abs() * 2f64.powi(-52));
            }
        }
        // Ties to even and rounding (not truncation).
        assert_eq!(Fx::DELTA / Fx::TWO, Fx::ZERO);
        assert_eq!(Fx::from_bits(3) / Fx::TWO, Fx::from_bits(2));
        assert_eq!(Fx::from_bits(5) / Fx::TWO, Fx::from_bits(2));
        assert_eq!(Fx::from_bits(-3) / Fx::TWO, Fx::from_bits(-2));
        assert_eq!(Fx::from_bits(-5) / -Fx::TWO, Fx::from_bits(2));
        assert_eq!(Fx::ONE / fx(3.0), Fx::from_bits(1_431_655_765));
        assert_eq!(Fx::TWO / fx(3.0), Fx::from_bits(2_863_311_531));
        assert_eq!(-Fx::TWO / fx(3.0), Fx::from_bits(-2_863_311_531));
        // Division by zero.
        assert_eq!(Fx::ONE / Fx::ZERO, Fx::MAX);
        assert_eq!(Fx::DELTA / Fx::ZERO, Fx::MAX);
        assert_eq!(-Fx::ONE / Fx::ZERO, Fx::MIN);
        assert_eq!(Fx::ZERO / Fx::ZERO, Fx::ZERO);
        assert_eq!(Fx::ONE.checked_div(Fx::ZERO), None);
        assert_eq!(Fx::ZERO.checked_div(Fx::ZERO), None);
        // Overflow.
        assert_eq!(Fx::MAX / Fx::HALF, Fx::MAX);
        assert_eq!(Fx::MAX / -Fx::HALF, Fx::MIN);
        assert_eq!(Fx::MIN / Fx::NEG_ONE, Fx::MAX);
        assert_eq!(Fx::MIN / Fx::ONE, Fx::MIN);
        assert_eq!(Fx::MIN / -Fx::DELTA, Fx::MAX);
        assert_eq!(Fx::ONE / Fx::DELTA, Fx::MAX);
        assert_eq!(-Fx::ONE / Fx::DELTA, Fx::MIN);
        assert_eq!(fx(-0.5) / Fx::DELTA, Fx::MIN);
        assert_eq!(Fx::MIN.checked_div(Fx::NEG_ONE), None);
        assert_eq!(Fx::MIN.checked_div(Fx::ONE), Some(Fx::MIN));
        assert_eq!(Fx::MAX.checked_div(Fx::HALF), None);
        // Real helpers built on division.
        assert_eq!(Fx::ONE.safe_div(Fx::ZERO, fx(7.0)), fx(7.0));
        assert_eq!(Fx::ZERO.recip_or_zero(), Fx::ZERO);
        assert_eq!(fx(4.0).recip_or_zero(), fx(0.25));
    }

    /// `r` is the correctly rounded root of `x`: `(r − ½)² < n ≤ (r + ½)²` with
    /// `n = x·2³²`, i.e. `r² − r < n ≤ r² + r` in integers.
    fn assert_sqrt_rounded(x: i64) {
        let r = Fx::from_bits(x).sqrt().to_bits() as i128;
        let n = (x as i128) << 32;
        assert!(r * r - r < n && n <= r * r + r, "sqrt of {x} gave {r}");
    }

    #[test]
    fn integer_sqrt_kernels_are_exact() {
        let check = |x: u64| {
            let n = (x as u128) << 32;
            let r = n.isqrt();
            let expected = (r + (n - r * r > r) as u128) as u64;
            assert_eq!(sqrt_round(x), expected, "x = {x}");
            assert_eq!(sqrt_exact(x), expected, "x = {x}");
        };
        // Every seed-interval boundary at every normalisation shift, neighbours and
        // midpoints.
        for shift in 0..=62 {
            for i in 128u64..=512 {
                let b = (i << 55) >> shift;
                for x in [b.wrapping_sub(1), b, b + 1, b + ((1 << 54) >> shift)] {
                    if x > 0 && x < 1 << 63 {
                        check(x);
                    }
                }
            }
        }
        for x in 1..100_000 {
            check(x);
        }
        let mut g = Lcg(11);
        for _ in 0..1_000_000 {
            check((g.next() >> 1 >> (g.next() % 63)).max(1));
        }
        // Roots next to a rounding boundary: n = k² + k and k² + k + 1 (√n just below and
        // just above k + ½), and perfect squares, for raw values of every magnitude.
        for _ in 0..100_000 {
            let k = (g.next() >> (17 + g.next() % 47)) as u128;
            for n in [k * k, k * k + k, k * k + k + 1] {
                let x = (n >> 32) as u64;
                for x in [x.saturating_sub(1), x, x + 1] {
                    if x > 0 && x < 1 << 63 {
                        check(x);
                    }
                }
            }
        }
    }

    #[test]
    fn sqrt_is_correctly_rounded() {
        let mut g = Lcg(7);
        for _ in 0..300_000 {
            let x = g.raw().saturating_abs();
            if x == 0 {
                continue;
            }
            assert_sqrt_rounded(x);
            let f = Fx::from_bits(x);
            // Within one ULP of the f64 root (which is accurate to 2⁻⁵³ relative).
            let reference = f.to_f64().sqrt();
            assert!((f.sqrt().to_f64() - reference).abs() <= ULP + reference * 2f64.powi(-52));
        }
        for x in [1, 2, 3, 4, 5, (1 << 32) - 1, 1 << 32, (1 << 32) + 1, i64::MAX, i64::MAX - 1, 1 << 62] {
            assert_sqrt_rounded(x);
        }
        for k in 1..2000i32 {
            let v = Fx::from_int(k);
            assert_eq!((v * v).sqrt(), v);
            assert_sqrt_rounded((v * v).to_bits() + 1);
            assert_sqrt_rounded((v * v).to_bits() - 1);
        }
        assert_eq!(Fx::ZERO.sqrt(), Fx::ZERO);
        assert_eq!(fx(-4.0).sqrt(), Fx::ZERO);
        assert_eq!(Fx::MIN.sqrt(), Fx::ZERO);
        assert_eq!(fx(2.0).sqrt(), Fx::from_bits(6_074_001_000));
        assert_eq!(Fx::DELTA.sqrt(), Fx::from_bits(1 << 16));
        assert_eq!(Fx::MAX.sqrt().to_bits(), 199_032_864_766_430); // √2³¹ · 2³², rounded
        assert_eq!(<Fx as Real>::sqrt(fx(9.0)), fx(3.0));
    }

    /// `v²·m / 2⁶⁴` for `v < 2⁶³`, `m < 2⁶⁴`, without overflow (`v² = a₁·2⁶⁴ + a₀`).
    fn sq_times_m_hi(v: u64, m: u64) -> i128 {
        let a = v as u128 * v as u128;
        let m = m as u128;
        ((a >> 64) * m + (((a as u64) as u128 * m) >> 64)) as i128
    }

    /// Relative errors `(ε_y, ε_g, ε_h)` of the seed and of the Goldschmidt estimates for
    /// the raw value `x`, measured exactly with integers: `y²μ = (1 + ε_y)²` with `y` in
    /// Q2.62, `g² = μ·2¹¹⁸·(1 + ε_g)²` and `h²μ = 2¹¹⁸·(1 + ε_h)²`.
    fn goldschmidt_errors(x: u64) -> (f64, f64, f64) {
        let (e, g, h) = sqrt_goldschmidt(x);
        let m = x << e;
        let y = rsqrt_seed(m);
        let ey = (sq_times_m_hi(y, m) - (1 << 124)) as f64 / 2f64.powi(125);
        let eg = ((g as u128 * g as u128) as i128 - ((m as i128) << 54)) as f64 / (2.0 * ((m as u128) << 54) as f64);
        let eh = (sq_times_m_hi(h, m) - (1 << 118)) as f64 / 2f64.powi(119);
        (ey, eg, eh)
    }

    #[test]
    fn goldschmidt_estimates_are_accurate() {
        let mut worst = [0.0f64; 3];
        let mut check = |x: u64| {
            let (ey, eg, eh) = goldschmidt_errors(x);
            for (w, e) in worst.iter_mut().zip([ey, eg, eh]) {
                *w = w.max(e.abs());
            }
        };
        // Every seed-interval boundary at every normalisation shift, and neighbours.
        for shift in 0..=62 {
            for i in 128u64..=512 {
                let b = (i << 55) >> shift;
                for x in [b.wrapping_sub(1), b, b + 1, b + (1 << 54 >> shift)] {
                    if x > 0 && x < 1 << 63 {
                        check(x);
                    }
                }
            }
        }
        let mut g = Lcg(12);
        for _ in 0..1_000_000 {
            check((g.next() >> 1 >> (g.next() % 63)).max(1));
        }
        let [ey, eg, eh] = worst;
        assert!(ey < 2f64.powi(-27), "seed error {ey:e}");
        assert!(eg < 2f64.powi(-52) && eh < 2f64.powi(-52), "g {eg:e}, h {eh:e}");
        eprintln!("worst: seed 2^{:.2}, g 2^{:.2}, h 2^{:.2}", ey.log2(), eg.log2(), eh.log2());
    }

    /// Error of the reciprocal from `sqrt_recip` for the raw value `x`, in ULPs: with
    /// `r` its raw value and `R = 2⁴⁸/√x` the exact one, `r − R = (r²x − 2⁹⁶)/((r + R)·x)`,
    /// whose numerator is computed exactly.
    fn recip_error_ulps(x: i64) -> f64 {
        let r = Fx::from_bits(x).sqrt_recip().1.to_bits() as u64;
        let d = (r as u128 * r as u128 * x as u128) as i128 - (1i128 << 96);
        let exact = 2f64.powi(48) / (x as f64).sqrt();
        d as f64 / ((r as f64 + exact) * x as f64)
    }

    /// Whether the raw reciprocal `r` is the nearest value to `2⁴⁸/√x`, exactly:
    /// `|r − R| ≤ ½ ⇔ (2r − 1)²·x ≤ 2⁹⁸ ≤ (2r + 1)²·x`.
    fn recip_is_nearest(x: i64, r: i64) -> bool {
        let (x, r) = (x as u128, r as u128);
        (2 * r - 1) * (2 * r - 1) * x <= 1 << 98 && 1 << 98 <= (2 * r + 1) * (2 * r + 1) * x
    }

    /// `sqrt_recip` against `sqrt` and the exact reciprocal; returns the error in ULPs.
    fn check_sqrt_recip(x: i64) -> f64 {
        let v = Fx::from_bits(x);
        let (s, r) = v.sqrt_recip();
        assert_eq!(s, v.sqrt(), "root of {x}");
        assert_eq!(<Fx as Real>::sqrt_recip(v), (s, r));
        let err = recip_error_ulps(x);
        assert!(err.abs() <= 0.5 + 1.0 / 16.0, "1/√ of {x}: {r} is {err} ULP off");
        // Against the f64 reference too (accurate to 2⁻⁵² relative).
        let reference = 1.0 / v.to_f64().sqrt();
        assert!((r.to_f64() - reference).abs() <= 0.5625 * ULP + reference * 2f64.powi(-51), "1/√ of {x}");
        err
    }

    #[test]
    fn sqrt_recip_is_accurate() {
        let (mut worst, mut not_nearest, mut total) = (0.0f64, 0, 0);
        let mut check = |x: i64| {
            let err = check_sqrt_recip(x);
            worst = worst.max(err.abs());
            let r = Fx::from_bits(x).sqrt_recip().1.to_bits();
            not_nearest += !recip_is_nearest(x, r) as u32;
            total += 1;
        };
        // Tiny values (from one ULP), huge values (up to MAX), every seed-interval boundary
        // at every normalisation shift, and random values of every magnitude.
        for x in 1..100_000 {
            check(x);
        }
        for x in (i64::MAX - 100_000)..=i64::MAX {
            check(x);
        }
        for shift in 0..=62 {
            for i in 128u64..=512 {
                let b = (i << 55) >> shift;
                for x in [b.wrapping_sub(1), b, b + 1] {
                    if x > 0 && x < 1 << 63 {
                        check(x as i64);
                    }
                }
            }
        }
        let mut g = Lcg(13);
        for _ in 0..1_000_000 {
            let x = g.raw().saturating_abs();
            if x > 0 {
                check(x);
            }
        }
        // Exact squares: the root is exact, the reciprocal the nearest value to 1/k.
        for k in 1..3000i32 {
            let v = Fx::from_int(k);
            let (s, r) = (v * v).sqrt_recip();
            assert_eq!(s, v);
            assert_eq!(r, Fx::ONE / v, "1/√{}", k * k);
            check((v * v).to_bits());
        }
        // Powers of 4: root and reciprocal both exact, from 2⁻³² to 2³⁰.
        for j in -16..=15 {
            let (s, r) = Fx::from_bits(1 << (32 + 2 * j)).sqrt_recip();
            assert_eq!((s.to_bits(), r.to_bits()), (1 << (32 + j), 1 << (32 - j)), "4^{j}");
        }
        assert!(worst <= 0.5 + 1.0 / 16.0, "worst {worst} ULP");
        assert!(not_nearest * 100_000 < total, "{not_nearest} of {total} not nearest");
        // Edge cases: one ULP (the largest reciprocal, exactly 2¹⁶: no overflow), MAX,
        // zero and negatives.
        assert_eq!(Fx::DELTA.sqrt_recip(), (Fx::from_bits(1 << 16), Fx::from_int(1 << 16)));
        let (s, r) = Fx::MAX.sqrt_recip();
        assert_eq!(s.to_bits(), 199_032_864_766_430);
        assert_eq!(r.to_bits(), 92_682); // 2⁴⁸/√(2⁶³ − 1) = 92 681.9
        assert_eq!(Fx::ZERO.sqrt_recip(), (Fx::ZERO, Fx::ZERO));
        assert_eq!((-Fx::DELTA).sqrt_recip(), (Fx::ZERO, Fx::ZERO));
        assert_eq!(Fx::MIN.sqrt_recip(), (Fx::ZERO, Fx::ZERO));
        assert_eq!(fx(4.0).sqrt_recip(), (fx(2.0), fx(0.5)));
        assert_eq!(fx(2.0).sqrt_recip(), (fx(2.0).sqrt(), Fx::ONE / fx(2.0).sqrt()));
    }

    /// Allowed trig error against the f64 reference: half an ULP of rounding plus slack for
    /// the kernels and the reference itself.
    const TRIG_TOL: f64 = ULP / 2.0 + 1e-12;

    fn check_sin_cos(x: Fx) -> f64 {
        let xf = x.to_f64();
        let (s, c) = (x.sin(), x.cos());
        assert_eq!(x.sin_cos(), (s, c));
        let es = (s.to_f64() - xf.sin()).abs();
        let ec = (c.to_f64() - xf.cos()).abs();
        assert!(es <= TRIG_TOL, "sin({xf}) = {s}, expected {}", xf.sin());
        assert!(ec <= TRIG_TOL, "cos({xf}) = {c}, expected {}", xf.cos());
        // Symmetry is exact (−MIN saturates, so MIN is not mirrored).
        if x != Fx::MIN {
            assert_eq!((-x).sin(), -s);
            assert_eq!((-x).cos(), c);
        }
        es.max(ec)
    }

    #[test]
    fn sin_cos_dense_sweep() {
        // Every 2⁻¹² rad over [−16, 16], plus an odd-offset grid so that the low bits vary.
        let mut worst = 0.0f64;
        for k in -(16 << 12)..=(16 << 12) {
            worst = worst.max(check_sin_cos(Fx::from_bits(k << 20)));
            worst = worst.max(check_sin_cos(Fx::from_bits((k << 20) + 0x5_4321)));
        }
        assert!(worst <= TRIG_TOL);
        assert!(worst < 1e-8);
        // Small angles: sin x = x (x³/6 < ½ ULP), cos x = 1 (x²/2 < ½ ULP).
        for k in 0..1_000 {
            let x = Fx::from_bits(k * 37);
            assert_eq!(x.sin(), x);
            assert_eq!(x.cos(), Fx::ONE);
        }
    }

    #[test]
    fn sin_cos_large_angles() {
        let mut g = Lcg(8);
        for _ in 0..200_000 {
            // Low 11 bits clear so that the f64 reference receives the exact angle.
            let x = Fx::from_bits(g.raw() & !0x7ff);
            check_sin_cos(x);
        }
        for v in [1e3, 1e5, 1e6, 1e7, 1e8, 1e9, 2e9, 2147483647.0] {
            check_sin_cos(fx(v));
            check_sin_cos(fx(-v));
        }
        check_sin_cos(Fx::MIN);
        // MAX has 63 significant bits; compare with its f64 neighbours' bracket.
        let s = Fx::MAX.sin().to_f64();
        assert!((s - 2147483648.0f64.sin()).abs() < 1e-8);
    }

    #[test]
    fn sin_cos_quadrant_boundaries() {
        // Multiples of π/2 (the nearest fixed value to each, and its neighbours).
        for k in -64i32..=64 {
            let b = fx(k as f64 * FRAC_PI_2);
            for d in -3..=3 {
                check_sin_cos(b + Fx::from_bits(d));
            }
            let (s, c) = b.sin_cos();
            let (es, ec) = match k.rem_euclid(4) {
                0 => (0.0, 1.0),
                1 => (1.0, 0.0),
                2 => (0.0, -1.0),
                _ => (-1.0, 0.0),
            };
            assert!((s.to_f64() - es).abs() <= 2.0 * ULP, "sin at {k}·π/2");
            assert!((c.to_f64() - ec).abs() <= 2.0 * ULP, "cos at {k}·π/2");
        }
        assert_eq!(Fx::FRAC_PI_2.sin(), Fx::ONE);
        assert_eq!(Fx::PI.cos(), Fx::NEG_ONE);
        assert_eq!(Fx::ZERO.sin(), Fx::ZERO);
        assert_eq!(Fx::ZERO.cos(), Fx::ONE);
        assert_eq!(Fx::TAU.cos(), Fx::ONE);
        // Octant boundaries, where the reduction switches between the two polynomials.
        for k in -32i32..=32 {
            let b = fx((2 * k + 1) as f64 * core::f64::consts::FRAC_PI_4);
            for d in -3..=3 {
                check_sin_cos(b + Fx::from_bits(d));
            }
        }
        // sin² + cos² = 1 to a few ULPs.
        let mut g = Lcg(9);
        for _ in 0..50_000 {
            let (s, c) = g.within(100.0).sin_cos();
            assert!((s * s + c * c - Fx::ONE).abs() <= Fx::from_bits(3));
        }
    }

    fn check_atan2(y: Fx, x: Fx) {
        let a = y.atan2(x);
        assert!(a > -Fx::PI && a <= Fx::PI, "atan2({y}, {x}) = {a} out of range");
        let reference = y.to_f64().atan2(x.to_f64());
        let err = (a.to_f64() - reference).abs();
        // Next to the negative x axis, −PI is excluded: up to 0.52 ULP allowed there.
        let tol = if reference < -PI + ULP { ULP } else { TRIG_TOL };
        assert!(err <= tol, "atan2({y}, {x}) = {a}, expected {reference}");
    }

    #[test]
    fn atan2_axes_and_diagonals() {
        for m in [Fx::DELTA, Fx::HALF, Fx::ONE, fx(123.456), Fx::MAX, Fx::MIN] {
            let p = m.abs();
            assert_eq!(Fx::ZERO.atan2(p), Fx::ZERO);
            assert_eq!(Fx::ZERO.atan2(-p), Fx::PI);
            assert_eq!(p.atan2(Fx::ZERO), Fx::FRAC_PI_2);
            assert_eq!((-p).atan2(Fx::ZERO), -Fx::FRAC_PI_2);
            assert_eq!(p.atan2(p), fx(core::f64::consts::FRAC_PI_4));
            assert_eq!(p.atan2(-p), fx(3.0 * core::f64::consts::FRAC_PI_4));
            assert_eq!((-p).atan2(-p), -fx(3.0 * core::f64::consts::FRAC_PI_4));
            assert_eq!((-p).atan2(p), -fx(core::f64::consts::FRAC_PI_4));
        }
        assert_eq!(Fx::ZERO.atan2(Fx::ZERO), Fx::ZERO);
        assert_eq!(Fx::MIN.atan2(Fx::MIN), -fx(3.0 * core::f64::consts::FRAC_PI_4));
        assert_eq!(Fx::MAX.atan2(Fx::MIN), fx(3.0 * core::f64::consts::FRAC_PI_4));
        assert_eq!(<Fx as Real>::atan2(Fx::ONE, Fx::ONE), fx(core::f64::consts::FRAC_PI_4));
        // Just below the negative x axis: close to −π but never −PI.
        assert_eq!((-Fx::DELTA).atan2(Fx::NEG_ONE), -Fx::PI + Fx::DELTA);
        assert_eq!((-Fx::DELTA).atan2(Fx::MIN), -Fx::PI + Fx::DELTA);
        assert_eq!(Fx::DELTA.atan2(Fx::MIN), Fx::PI);
        // Extreme aspect ratios.
        check_atan2(Fx::DELTA, Fx::MAX);
        check_atan2(Fx::MAX, Fx::DELTA);
        check_atan2(-Fx::DELTA, Fx::MAX);
        check_atan2(Fx::MIN, -Fx::DELTA);
    }

    #[test]
    fn atan2_all_quadrants() {
        let mut g = Lcg(10);
        let mut worst = 0.0f64;
        for _ in 0..300_000 {
            // Magnitudes from one ULP to the whole range; ≤ 53 significant bits so the f64
            // reference sees the exact operands.
            let y = Fx::from_bits(g.raw() & !0x7ff | 1 << 11);
            let x = Fx::from_bits(g.raw() & !0x7ff);
            check_atan2(y, x);
            let (y, x) = (Fx::from_bits(g.raw() >> 12), Fx::from_bits(g.raw() >> 12));
            check_atan2(y, x);
            let a = y.atan2(x);
            worst = worst.max((a.to_f64() - y.to_f64().atan2(x.to_f64())).abs());
        }
        assert!(worst < 1e-8);
        // A dense circle.
        for k in 0..20_000 {
            let t = k as f64 / 20_000.0 * TAU - PI;
            check_atan2(fx(t.sin()), fx(t.cos()));
            check_atan2(fx(1e-6 * t.sin()), fx(1e-6 * t.cos()));
            check_atan2(fx(1e6 * t.sin()), fx(1e6 * t.cos()));
        }
        // acos via the trait's default.
        assert!((Fx::ZERO.acos_clamped().to_f64() - FRAC_PI_2).abs() <= ULP);
        assert_eq!(Fx::TWO.acos_clamped(), Fx::ZERO);
        assert_eq!((-Fx::TWO).acos_clamped(), Fx::PI);
    }

    #[test]
    fn usable_in_const_context() {
        const ROOT2: Fx = Fx::from_int(2).sqrt();
        const THIRD: Fx = Fx::from_ratio(1, 3);
        const G: Fx = Fx::from_f64(9.81);
        const SC: (Fx, Fx) = Fx::FRAC_PI_2.sin_cos();
        const ANGLE: Fx = Fx::ONE.atan2(Fx::NEG_ONE);
        const PRODUCT: Fx = G.saturating_mul(THIRD);
        const ROOT_RECIP: (Fx, Fx) = Fx::from_int(2).sqrt_recip();
        // Compile-time evaluation gives the same bits as run time.
        assert_eq!(ROOT2, black_box(Fx::from_int(2)).sqrt());
        assert_eq!(THIRD, black_box(Fx::ONE) / black_box(fx(3.0)));
        assert_eq!(G, fx(black_box(9.81)));
        assert_eq!(SC, black_box(Fx::FRAC_PI_2).sin_cos());
        assert_eq!(ANGLE, black_box(Fx::ONE).atan2(Fx::NEG_ONE));
        assert_eq!(PRODUCT, black_box(G) * THIRD);
        assert_eq!(ROOT_RECIP, black_box(Fx::from_int(2)).sqrt_recip());
    }

    #[test]
    fn min_max_clamp_order_hash() {
        let (a, b) = (fx(-1.5), fx(2.0));
        assert_eq!(a.min(b), a);
        assert_eq!(a.max(b), b);
        assert_eq!(<Fx as Real>::min(b, a), a);
        assert_eq!(<Fx as Real>::max(a, b), b);
        assert_eq!(fx(5.0).clamp(a, b), b);
        assert_eq!(fx(-5.0).clamp(a, b), a);
        assert_eq!(Fx::ZERO.clamp(a, b), Fx::ZERO);
        // Same convention as `Real::clamp` for an empty interval: `hi` wins.
        assert_eq!(Fx::ZERO.clamp(b, a), a);
        assert_eq!(<Fx as Real>::clamp(Fx::ZERO, b, a), a);
        assert!(a < b && Fx::MIN < Fx::MAX && Fx::ZERO < Fx::DELTA);
        assert_eq!(a.cmp(&b), core::cmp::Ordering::Less);
        assert_eq!(fx(-1.0).hash_bits(), (-(1i64 << 32)) as u64);
        assert_eq!(Fx::ZERO.hash_bits(), 0);
        assert!(Fx::MIN.is_finite());
        assert_eq!(fx(-3.0).signum0(), Fx::NEG_ONE);
        assert_eq!(fx(0.25).sq(), fx(0.0625));
    }

    #[test]
    fn formatting() {
        assert_eq!(format!("{}", fx(1.5)), "1.5");
        assert_eq!(format!("{:?}", fx(-2.25)), "-2.25");
        assert_eq!(format!("{:.3}", fx(0.1)), "0.100");
        assert_eq!(format!("{}", Fx::DELTA), "0.0000000002");
        assert_eq!(format!("{}", Fx::MIN), "-2147483648");
        assert_eq!(format!("{:?}", [Fx::ONE, Fx::ZERO]), "[1, 0]");
    }

    /// `g·h²` with `h` the 8-substep, 60 Hz step must be resolved (the reason for 32
    /// fractional bits).
    #[test]
    fn gravity_step_is_resolved() {
        let g = fx(9.81);
        let h = Fx::from_ratio(1, 480);
        let exact = 9.81 / (480.0 * 480.0);
        for v in [g * h * h, g * (h * h), (g * h) * h] {
            assert!(((v.to_f64() - exact) / exact).abs() < 1e-3, "{v} vs {exact}");
            assert!(((v.to_f64() - exact) / exact).abs() < 1e-4);
        }
        assert!((g * h * h).to_bits() > 180_000);
    }

    /// A fixed sequence of every operation; the final bits (and a hash of every
    /// intermediate) are literals, so any platform, compiler or refactoring difference
    /// fails here. The literals were reproduced independently with a big-integer model of
    /// the documented semantics (exact rationals rounded half-to-even, correctly rounded
    /// `sqrt`/`sin`/`cos`/`atan2` at 300-bit precision).
    #[test]
    fn golden_sequence() {
        let mut acc = Fx::from_ratio(1, 3);
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut seq = Lcg(42);
        for i in 0..2_000 {
            let v = Fx::from_bits((seq.next() as i64) >> 30); // about ±8
            acc = match i % 9 {
                0 => acc + v,
                1 => acc * v + Fx::HALF,
                2 => acc / (v.abs() + Fx::ONE),
                3 => (acc.abs() + v.abs()).sqrt() - v,
                4 => acc.sin() * Fx::from_int(3) + v.cos(),
                5 => acc.atan2(v) * v,
                6 => acc - v * v,
                7 => Fx::from_f64(acc.to_f64() * 0.75) + Fx::from_ratio(7, 11),
                _ => acc.clamp(-Fx::from_int(1000), Fx::from_int(1000)) / Fx::from_int(7),
            };
            h = (h ^ acc.hash_bits()).wrapping_mul(0x100_0000_01b3);
        }
        assert_eq!((acc.to_bits(), h), (2_547_565_280, 0x8558_4b66_2c3c_e466), "acc = {acc}");
    }
}
