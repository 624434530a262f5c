//! Fixed-point square roots: a tabulated reciprocal-root seed, Goldschmidt iterations,
//! and an exact correction step, so [`super::Fx::sqrt`] is correctly rounded.

/// `1/√μ` in Q.40 (rounded down) at `μ = (16k + c)/2¹³`, i.e. at `u = c/16` in the seed
/// interval `k` (compile time only).
pub(super) const fn rsqrt_node_q40(k: usize, c: u128) -> i128 {
    ((1u128 << 93) / (16 * k as u128 + c)).isqrt() as i128
}

/// Piecewise-quadratic seed for `1/√μ` on `[¼, 1)`: 384 intervals `[k/512, (k+1)/512)`,
/// `k = 128..512` (the top 9 bits of the normalised mantissa, used directly as the index:
/// entries below 128 are unused, which saves a subtraction and a bounds check).
///
/// On each interval `1/√μ ≈ A + B·u + C·u²`, `u ∈ [0, 1)` the position in the interval:
/// the quadratic interpolating at `u = 1/16, ½, 15/16` (close to the Chebyshev nodes
/// 0.067, 0.5, 0.933, so the error nearly equioscillates), with a relative error below
/// 2⁻²⁷ (measured 2⁻²⁷·⁶⁵, worst at `μ = ¼`; see the tests). `A` is Q2.62; `B` and `C`
/// are Q.30, so that their products with `u` and `u²` (both Q0.32) are Q2.62 without a
/// shift. Structure of arrays, 6 KiB of which 4.5 KiB are used: each look-up is one load
/// per array, scaled by the addressing mode (an array of structures, one cache line per
/// look-up, measured 1 % slower).
pub(super) struct RsqrtSeed {
    a: [u64; 512],
    b: [i32; 512],
    c: [i32; 512],
}

pub(super) const RSQRT_SEED: RsqrtSeed = {
    let mut t = RsqrtSeed { a: [0; 512], b: [0; 512], c: [0; 512] };
    let mut k = 128;
    while k < 512 {
        let (y0, y1, y2) = (rsqrt_node_q40(k, 1), rsqrt_node_q40(k, 8), rsqrt_node_q40(k, 15));
        // Nodes at s = −7/16, 0, 7/16: B = (y₂ − y₀)/(7/8), C = (y₀ + y₂ − 2y₁)/(2·(7/16)²).
        let b = (y2 - y0) * 8 / 7;
        let c = (y0 + y2 - 2 * y1) * 128 / 49;
        // In terms of u = s + ½: A − B/2 + C/4 + (B − C)·u + C·u².
        let a = y1 - b / 2 + c / 4;
        let b = b - c;
        t.a[k] = (a << 22) as u64;
        t.b[k] = ((b + (1 << 9)) >> 10) as i32;
        t.c[k] = ((c + (1 << 9)) >> 10) as i32;
        k += 1;
    }
    t
};

/// `y ≈ 1/√μ` in Q2.62 from [`RSQRT_SEED`], for `m = μ·2⁶⁴ ∈ [2⁶², 2⁶⁴)`.
#[inline(always)]
pub(super) const fn rsqrt_seed(m: u64) -> u64 {
    // Interval index (the top 9 bits) and u, the position in it (the next 32 bits, Q0.32).
    let i = (m >> 55) as usize;
    let u = (m >> 23) as u32 as u64;
    let u2 = ((u * u) >> 32) as i64;
    let u = u as i64;
    let t = &RSQRT_SEED;
    // y ≤ 2 + ε fits a u64 in Q2.62, but not necessarily an i64.
    t.a[i].wrapping_add_signed(t.c[i] as i64 * u2 + t.b[i] as i64 * u)
}

/// The high word of the 128-bit product.
#[inline(always)]
pub(super) const fn mulhi(a: u64, b: u64) -> u64 {
    ((a as u128 * b as u128) >> 64) as u64
}

/// The common core of [`sqrt_round`] and [`sqrt_recip_raw`], for `0 < x < 2⁶³`:
/// `(e, g, h)` with `m = x·2ᵉ ∈ [2⁶², 2⁶⁴)` (`e` even), `μ = m/2⁶⁴ ∈ [¼, 1)`, and the
/// estimates `g ≈ √μ · 2⁵⁹` and `h ≈ 1/√μ · 2⁵⁹`.
///
/// Multiplications only (no division): a piecewise-quadratic seed `y ≈ 1/√μ` (relative
/// error `ε < 2⁻²⁷`, [`RSQRT_SEED`]), then one Goldschmidt step: with `g₀ = μy` and
/// `h₀ = y/2`, `g₁ = g₀(1 + ρ)` and `h₁ = h₀(1 + ρ)` where `ρ = ½ − g₀h₀`. Both carry the
/// seed's error `ε`, and the step turns it into about `−(3/2)ε²`, below 2⁻⁵³, plus the
/// truncations of the fixed-point products (a few units of 2⁻⁵⁹): both estimates have a
/// relative error below 2⁻⁵² (measured: below 2⁻⁵⁴).
///
/// The formats are chosen so that every product is the high word of a 64×64-bit one
/// (no shifts on the critical path): `y` is Q2.62, `g₀ = hi(m·y)` Q2.62,
/// `F = 1 + ρ = 3/2 − g₀h₀` Q3.61 (as `3·2⁶⁰ − hi(g₀·y)`, since `y = 2h₀`), and then
/// `hi(g₀·F) = g₁·2⁵⁹`, `hi(y·F) = 2h₁·2⁵⁹`. Latency: about 33 cycles from `x` to `g`.
#[inline(always)]
pub(super) const fn sqrt_goldschmidt(x: u64) -> (u32, u64, u64) {
    // m = x·4ᵏ ∈ [2⁶², 2⁶⁴), i.e. μ = m/2⁶⁴ ∈ [¼, 1). (Counting the zeros of x/2, which
    // may be 0, makes LLVM emit `bsr` into a freshly zeroed register on x86-64 without
    // `lzcnt`; with the known non-zero x it reuses a register and creates a false
    // dependency that serialises consecutive square roots: 17 → 9 ns/op.)
    let e = ((x >> 1).leading_zeros() - 1) & !1;
    let m = x << e;
    let y = rsqrt_seed(m);
    // One Goldschmidt step.
    let g = mulhi(m, y);
    let f = (3 << 60) - mulhi(g, y);
    (e, mulhi(g, f), mulhi(y, f))
}

/// Rounds `g ≈ √μ · 2⁵⁹` from [`sqrt_goldschmidt`] to the raw root `√(x·2³²)`, correctly:
/// `r = ⌊(g + ½·2ˢ) / 2ˢ⌋` with `s = 11 + e/2`.
///
/// `g` is within 2⁻⁵² relative, i.e. 2⁷ units, of the exact `√μ · 2⁵⁹` (`g < 2⁵⁹`). So
/// when the discarded bits of `g + ½·2ˢ` lie more than 2⁹ units away from a multiple of
/// 2ˢ (a rounding boundary), the exact value rounds the same way and `r` is the correctly
/// rounded root: four instructions decide it. Otherwise (a fraction 2¹⁰/2ˢ of the
/// inputs: 2⁻¹⁶ for roots near 1, at most ½ for the very largest values) the out-of-line
/// [`sqrt_checked`] verifies `r` exactly. Either way the result does not wait for the
/// test, which only steers a predictable branch.
#[inline(always)]
pub(super) const fn sqrt_finish(x: u64, e: u32, g: u64) -> u64 {
    // √(x·2³²) = √μ · 2^(48 − e/2) = g · 2^(−11 − e/2).
    let half = 1024 << (e / 2);
    let t = g + half;
    if (t + (1 << 9)) & (2 * half - 1) < 1 << 10 {
        return sqrt_checked(x, t >> (11 + e / 2));
    }
    t >> (11 + e / 2)
}

/// `r` if it is the correctly rounded root of the raw value `x`, else the exact root.
///
/// `r` is correctly rounded iff `(r − ½)² < n < (r + ½)²` with `n = x·2³²`, i.e. in
/// integers `−r < n − r² ≤ r`. `r` is within one of the true root (the estimate is within
/// 2⁻⁴ ULP of it even for the largest roots, 2⁴⁷·⁵), so `|n − r²| < 2r + 1 < 2⁴⁹`: the
/// difference is exact in wrapping 64-bit arithmetic. It is off by one only for a root
/// extremely close to a rounding boundary (about 1 in 100 000 random inputs), and then
/// [`sqrt_exact`] recomputes it.
#[cold]
#[inline(never)]
pub(super) const fn sqrt_checked(x: u64, r: u64) -> u64 {
    // d = n − r², and −r < d ≤ r ⇔ 0 ≤ d + r − 1 < 2r (as unsigned: negatives wrap high).
    let d = (x << 32).wrapping_sub(r.wrapping_mul(r));
    if d.wrapping_add(r - 1) >= 2 * r { sqrt_exact(x) } else { r }
}

/// `√(x · 2³²)` rounded to nearest, for `0 < x < 2⁶³`: the raw square root of the raw
/// value `x`.
///
/// Multiplications only (no division): normalise to `μ ∈ [¼, 1)`, seed `1/√μ` from a
/// table, refine `√μ` with one Goldschmidt step ([`sqrt_goldschmidt`]) and round, with
/// an exact verification where the rounding is in doubt ([`sqrt_finish`]).
#[inline(always)]
pub(super) const fn sqrt_round(x: u64) -> u64 {
    let (e, g, _) = sqrt_goldschmidt(x);
    sqrt_finish(x, e, g)
}

/// `(√(x · 2³²), 2⁴⁸/√x)` for `0 < x < 2⁶³`: the raw square root of the raw value `x`
/// (correctly rounded, identical to [`sqrt_round`]) and the raw value of its reciprocal,
/// `2³²/√(x/2³²)`, from the same Goldschmidt step (no division).
///
/// The raw reciprocal is `1/√μ · 2^(16 + e/2) = h · 2^(e/2 − 43)`, rounded to nearest.
/// `h` is accurate to 2⁻⁵² relative and the reciprocal is at most 2⁴⁸ raw (2¹⁶ at
/// `x = 1`), so the rounded reciprocal is within ½ ULP + 2⁻⁴ ULP of the exact value: the
/// nearest representable value or, extremely rarely, its neighbour (measured: 1 in 2·10⁶
/// random inputs, at most 0.5000006 ULP away).
#[inline(always)]
pub(super) const fn sqrt_recip_raw(x: u64) -> (u64, u64) {
    let (e, g, h) = sqrt_goldschmidt(x);
    // Rounded shift by 43 − e/2 ∈ [12, 43], as a shift by one less, an increment and a
    // halving: one cycle longer than adding the rounding constant first, but two
    // instructions shorter, and the reciprocal is rarely on the critical path.
    // (Signed shifts: a result LLVM knows to be non-negative makes it multiply it with
    // `mul` and a sign correction, three instructions instead of one `imul`.)
    let inv = (((h as i64) >> (42 - e / 2)) + 1) >> 1;
    (sqrt_finish(x, e, g), inv as u64)
}

/// `√(x · 2³²)` rounded to nearest, for `0 < x < 2⁶³`, the slow and obviously exact way:
/// `u128::isqrt` gives `r = ⌊√n⌋`, and `√n ≥ r + ½ ⇔ n ≥ r² + r + ¼ ⇔ n − r² > r` (ties
/// are impossible).
#[cold]
#[inline(never)]
pub(super) const fn sqrt_exact(x: u64) -> u64 {
    let n = (x as u128) << 32;
    let r = n.isqrt();
    (r + (n - r * r > r) as u128) as u64
}
