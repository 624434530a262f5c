//! Wider SIMD where the CPU has it, with the same results bit for bit.
//!
//! The solver's per-element passes (the rope chain's link rows and position updates) are
//! plain loops over slices that the compiler vectorises. The baseline x86-64 target gives
//! it 128-bit SSE registers; a CPU with AVX2 has 256-bit ones, twice the lanes. The hot
//! functions are therefore compiled twice, once for the baseline and once with
//! `#[target_feature(enable = "avx2")]`, and [`avx2`] picks one at run time.
//!
//! # Why the results do not change
//! Only AVX2 is enabled, not FMA: Rust never fuses `a*b + c` on its own, so every
//! multiplication and addition rounds exactly as in the baseline build, and IEEE 754
//! makes `+ − × ÷ √` correctly rounded at any vector width. The loops hold no floating
//! point reductions whose order a wider vector would change (their sums are integer
//! counts). So a float world steps to the same bits on a CPU with or without AVX2
//! (`chain::tests::the_avx2_chain_solve_matches_the_baseline_bit_for_bit` checks it), and
//! fixed point, integer arithmetic, is exact either way.

/// Whether this CPU has AVX2 (detected once, then a cached load).
#[cfg(target_arch = "x86_64")]
#[inline]
#[must_use]
pub(crate) fn avx2() -> bool {
    std::is_x86_feature_detected!("avx2")
}
