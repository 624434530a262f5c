//! The brachiation module's seeded random numbers: xorshift64* (Vigna 2016) on integers
//! only, turned into scalars by an exact integer ratio, so the same seed gives the same
//! course and the same plans in `f32`, `f64` and fixed point alike (up to the scalar's
//! rounding of that ratio) and bit for bit on every machine.

use crate::math::Real;

/// A xorshift64* generator (a seed of 0 is replaced by a fixed odd constant).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BrachRng(pub u64);

impl BrachRng {
    /// A generator from a seed (any value; 0 is mapped to a non-zero state).
    #[must_use]
    pub fn new(seed: u64) -> Self {
        // Scramble the seed (splitmix64 finaliser) so seeds 1, 2, 3 give unrelated streams.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Self(if z == 0 { 0x2545_F491_4F6C_DD1D } else { z })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `[0, 1)` with 24 bits: `k / 2²⁴` for an integer `k`, built from integers.
    pub fn unit<R: Real>(&mut self) -> R {
        let k = (self.next_u64() >> 40) as i32; // 24 bits
        R::from_i32(k) / R::from_i32(1 << 24)
    }

    /// Uniform in `[lo, hi)`.
    pub fn range<R: Real>(&mut self, lo: R, hi: R) -> R {
        lo + (hi - lo) * self.unit::<R>()
    }
}
