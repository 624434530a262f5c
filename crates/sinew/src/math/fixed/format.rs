//! Decimal formatting of [`Fx`]: the exact value's shortest decimal that reads back to
//! the same bits, or correctly rounded to a requested precision.

use super::Fx;
use core::fmt;

impl fmt::Display for Fx {
    /// The exact decimal value, shortest form that converts back to the same bits;
    /// precision flags (`{:.3}`) are honoured with correct rounding (ties to even), width
    /// and sign flags as for integers.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mag = self.0.unsigned_abs();
        let (mut int, frac) = (mag >> 32, u128::from(mag & 0xFFFF_FFFF));
        let digits = match f.precision() {
            Some(p) => {
                // frac·10^p / 2³² rounded; past 32 digits the expansion is exact (zeros).
                let q = p.min(32) as u32;
                let scale = 10u128.pow(q);
                // (To whole units the tie goes to the even integer part.)
                let mut d = if q == 0 {
                    round_shr32(frac + (u128::from(int & 1) << 32)) - u128::from(int & 1)
                } else {
                    round_shr32(frac * scale)
                };
                if d == scale {
                    (int, d) = (int + 1, 0);
                }
                let mut s = if q == 0 { String::new() } else { format!("{d:0w$}", w = q as usize) };
                s.extend(core::iter::repeat_n('0', p - q as usize));
                s
            }
            None => shortest_fraction(frac),
        };
        let text = if digits.is_empty() { format!("{int}") } else { format!("{int}.{digits}") };
        f.pad_integral(self.0 >= 0, "", &text)
    }
}

/// `x / 2³²` rounded to nearest, ties to even.
fn round_shr32(x: u128) -> u128 {
    let (q, r) = (x >> 32, x & 0xFFFF_FFFF);
    let half = 1u128 << 31;
    if r > half || (r == half && q & 1 == 1) { q + 1 } else { q }
}

/// The fewest decimal digits of `frac / 2³²` that read back (rounding to nearest) to the
/// same 32-bit fraction; empty for 0. At most 32 digits: that many represent it exactly.
fn shortest_fraction(frac: u128) -> String {
    if frac == 0 {
        return String::new();
    }
    for n in 1..=32u32 {
        let scale = 10u128.pow(n);
        let d = round_shr32(frac * scale);
        if d < scale && reads_back(d, scale, frac) {
            let s = format!("{d:0w$}", w = n as usize);
            return s.trim_end_matches('0').to_string();
        }
    }
    // (Unreachable: 32 digits hold frac / 2³² exactly.)
    format!("{:032}", (frac * 10u128.pow(32)) >> 32).trim_end_matches('0').to_string()
}

/// Whether the decimal `d / scale` rounds (to nearest, ties to even) to `frac / 2³²`.
fn reads_back(d: u128, scale: u128, frac: u128) -> bool {
    let x = d << 32;
    let (q, r) = (x / scale, x % scale);
    let twice = 2 * r;
    let back = if twice > scale || (twice == scale && q & 1 == 1) { q + 1 } else { q };
    back == frac
}
