//! Fixed-point trigonometry kernels: range reduction by a 128-bit 2/π, Taylor
//! polynomials for sine and cosine in Q2.62, and a CORDIC arctangent.

use super::mul_q62;

/// `round(2/π · 2¹²⁸)`, for the range reduction of `sin`/`cos`.
pub(super) const TWO_OVER_PI_Q128: u128 = 0xa2f9_836e_4e44_1529_fc27_57d1_f534_ddc1;
/// `round(π/2 · 2⁶²)`.
pub(super) const FRAC_PI_2_Q62: i64 = 0x6487_ed51_10b4_611a;
/// `round(π · 2⁶²)`, fits an unsigned 64-bit word.
pub(super) const PI_Q62: u64 = 0xc90f_daa2_2168_c235;

/// `round(atan(2⁻ⁱ) · 2⁶²)` for `i = 0..=20`; from `i = 21` on, `atan(2⁻ⁱ)` rounds to
/// exactly `2⁻ⁱ` at this precision.
pub(super) const ATAN_POW2_Q62: [i64; 21] = [
    0x3243_f6a8_885a_308d,
    0x1dac_6705_61bb_4f69,
    0x0fad_bafc_9640_6eb1,
    0x07f5_6ea6_ab0b_db72,
    0x03fe_ab76_e59f_bd39,
    0x01ff_d55b_ba97_624b,
    0x00ff_faaa_dddb_94d6,
    0x007f_ff55_56ee_ea5d,
    0x003f_ffea_aab7_776e,
    0x001f_fffd_5555_bbbc,
    0x000f_ffff_aaaa_adde,
    0x0007_ffff_f555_556f,
    0x0003_ffff_feaa_aaab,
    0x0001_ffff_ffd5_5555,
    0x0000_ffff_ffff_aaab,
    0x0000_7fff_ffff_5555,
    0x0000_3fff_ffff_eaab,
    0x0000_1fff_ffff_fd55,
    0x0000_0fff_ffff_ffab,
    0x0000_07ff_ffff_fff5,
    0x0000_03ff_ffff_ffff,
];
/// Number of CORDIC iterations in `atan2`; the remaining angle (< 2⁻²¹) is finished with
/// one division, where `atan(t) = t` to within 2⁻⁶⁴.
pub(super) const CORDIC_STEPS: u32 = 22;

/// `round(2⁶² / n!)`, the Taylor coefficients of `sin`/`cos` in Q2.62.
pub(super) const fn inv_factorial_q62(n: u64) -> i64 {
    let mut f: u128 = 1;
    let mut k = 2;
    while k <= n {
        f *= k as u128;
        k += 1;
    }
    (((1u128 << 62) + f / 2) / f) as i64
}

/// Odd Taylor coefficients `1/1!, 1/3!, …, 1/13!` (Q2.62); truncation error of the sine
/// series on `|r| ≤ π/4` is below `r¹⁵/15! < 2·10⁻¹⁴`.
pub(super) const SIN_COEF: [i64; 7] = [
    inv_factorial_q62(1),
    inv_factorial_q62(3),
    inv_factorial_q62(5),
    inv_factorial_q62(7),
    inv_factorial_q62(9),
    inv_factorial_q62(11),
    inv_factorial_q62(13),
];
/// Even Taylor coefficients `1/0!, 1/2!, …, 1/14!` (Q2.62); truncation error of the
/// cosine series on `|r| ≤ π/4` is below `r¹⁶/16! < 2·10⁻¹⁵`.
pub(super) const COS_COEF: [i64; 8] = [
    inv_factorial_q62(0),
    inv_factorial_q62(2),
    inv_factorial_q62(4),
    inv_factorial_q62(6),
    inv_factorial_q62(8),
    inv_factorial_q62(10),
    inv_factorial_q62(12),
    inv_factorial_q62(14),
];

/// Sine (`cos = false`) or cosine (`cos = true`) of `r`, a Q2.62 angle in `[−π/4, π/4]`.
#[inline]
pub(super) const fn sin_or_cos_q62(r: i64, cos: bool) -> i64 {
    let z = mul_q62(r, r);
    if cos {
        let mut acc = COS_COEF[7];
        let mut i = 7;
        while i > 0 {
            i -= 1;
            acc = COS_COEF[i] - mul_q62(z, acc);
        }
        acc
    } else {
        let mut acc = SIN_COEF[6];
        let mut i = 6;
        while i > 0 {
            i -= 1;
            acc = SIN_COEF[i] - mul_q62(z, acc);
        }
        mul_q62(r, acc)
    }
}

/// Splits `|x|` (raw Q32.32 magnitude) into a quadrant `q` (mod 4) and a remainder
/// `r ∈ [−π/4, π/4]` (Q2.62) with `|x| = q·π/2 + r`.
///
/// `|x|·2/π` is computed exactly enough with a 128-bit approximation of `2/π` (error
/// below 2⁻¹²⁸, so at most 2⁻⁹⁷ quarter turns for `|x| < 2³¹`), keeping 64 fractional
/// bits of quarter turns: the remainder is accurate to about 2⁻⁶² rad whatever the
/// magnitude of `x`, with no loss of precision for large angles.
#[inline]
pub(super) const fn reduce_quadrant(ax: u64) -> (u32, i64) {
    let c_hi = (TWO_OVER_PI_Q128 >> 64) as u64;
    let c_lo = TWO_OVER_PI_Q128 as u64;
    // |x|·(2/π)·2¹⁶⁰ = ax·c_hi·2⁶⁴ + ax·c_lo; keep it divided by 2⁶⁴ (< 2¹²⁷, no overflow).
    let s = ax as u128 * c_hi as u128 + ((ax as u128 * c_lo as u128) >> 64);
    // Quarter turns with 64 fractional bits: integer part in bits 96.., fraction 32..96.
    let quarters = (s >> 96) as u32;
    let frac = (s >> 32) as u64;
    // Round to the nearest quadrant: a fraction ≥ ½ becomes negative, one more quarter.
    let q = quarters.wrapping_add((frac >> 63) as u32) & 3;
    let f = frac as i64; // quarter turns in Q0.64, in [−½, ½)
    let r = ((f as i128 * FRAC_PI_2_Q62 as i128) >> 64) as i64;
    (q, r)
}

/// `atan(ay / ax)` in Q2.62 (within `[0, π/2]`) for non-zero magnitudes.
#[inline]
pub(super) const fn atan_first_quadrant_q62(ay: u64, ax: u64) -> u64 {
    // Scale so the larger operand lies in [2⁶⁰, 2⁶¹): the CORDIC gain (≤ 1.65) times √2
    // then keeps every intermediate below 2⁶³.
    let m = if ay > ax { ay } else { ax };
    // Zeros of m/2 (see `sqrt_goldschmidt` for why not of m).
    let lz = (m >> 1).leading_zeros() - 1;
    let (mut x, mut y) = if lz >= 3 {
        ((ax << (lz - 3)) as i64, (ay << (lz - 3)) as i64)
    } else {
        ((ax >> (3 - lz)) as i64, (ay >> (3 - lz)) as i64)
    };
    // Vectoring mode: rotate (x, y) towards the x axis by ±atan(2⁻ⁱ), accumulating the
    // rotation in z. Branch-free: `d` is 0 when y ≥ 0 and −1 when y < 0, and
    // `(v ^ d) − d` is `v` or `−v`.
    let mut z: i64 = 0;
    let mut i = 0;
    while i < CORDIC_STEPS {
        let d = y >> 63;
        let xs = x >> i;
        let ys = y >> i;
        let a = if i < ATAN_POW2_Q62.len() as u32 { ATAN_POW2_Q62[i as usize] } else { 1 << (62 - i) };
        x += (ys ^ d) - d;
        y -= (xs ^ d) - d;
        z += (a ^ d) - d;
        i += 1;
    }
    // Now |y| ≤ x·2⁻²¹ (up to rounding), so atan(y/x) = y/x within 2⁻⁶⁴. With x ≥ 2⁶⁰ and
    // |y| < 2⁴², (y·2²⁰)/(x·2⁻²⁰) is y/x in Q40 with ~40 significant bits.
    let t = (y << 20) / (x >> 20);
    let z = z + (t << 22);
    // Rounding can leave z a few units of 2⁻⁶² outside [0, π/2].
    if z < 0 {
        0
    } else if z > FRAC_PI_2_Q62 {
        FRAC_PI_2_Q62 as u64
    } else {
        z as u64
    }
}
