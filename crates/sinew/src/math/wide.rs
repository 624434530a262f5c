//! Wider SIMD where the CPU has it, with the same results bit for bit.
//!
//! The solver's per-element passes (the rope chain's link rows and position updates, the
//! world's integration and velocity update) are plain loops over slices that the compiler
//! vectorises. The baseline x86-64 target gives it 128-bit SSE registers; a CPU with AVX2
//! has 256-bit ones, twice the lanes. These functions are therefore compiled twice, once
//! for the baseline and once with `#[target_feature(enable = "avx2")]`, and [`avx2`] picks
//! one at run time. Measured on the 101-particle rope swing: 6.08 → 5.53 µs per step; on
//! the 14 m rope scene about 4 % of its frame. (Compiling *every* phase for AVX2 gained
//! nothing measurable beyond these.)
//!
//! # Why the results do not change
//! Only AVX2 is enabled, not FMA: Rust never fuses `a*b + c` on its own, so every
//! multiplication and addition rounds exactly as in the baseline build, and IEEE 754
//! makes `+ − × ÷ √` correctly rounded at any vector width. The loops hold no floating
//! point reductions whose order a wider vector would change (their sums are integer
//! counts). So a float world steps to the same bits on a CPU with or without AVX2
//! (`chain::tests::the_avx2_chain_solve_matches_the_baseline_bit_for_bit` and
//! `tests::the_avx2_builds_step_a_rope_world_to_the_same_bits` check it), and fixed point,
//! integer arithmetic, is exact either way.

/// Whether this CPU has AVX2 (detected once, then a cached load).
#[cfg(target_arch = "x86_64")]
#[inline]
#[must_use]
pub(crate) fn avx2() -> bool {
    #[cfg(test)]
    if BASELINE_ONLY.with(core::cell::Cell::get) {
        return false;
    }
    std::is_x86_feature_detected!("avx2")
}

/// Defines a phase of the step that runs compiled for AVX2 on CPUs that have it: the
/// method `$name` (never inlined, see the note in `World::step_with`) picks at run time
/// between its baseline build and `$avx`, the same `$body` compiled with
/// `#[target_feature(enable = "avx2")]`. `$body` holds the code, `#[inline(always)]` so
/// that each build gets its own copy.
macro_rules! wide_phase {
    (
        $vis:vis fn $name:ident / $avx:ident / $body:ident
        (&mut self $(, $arg:ident : $ty:ty)* $(,)?) $(-> $ret:ty)?
    ) => {
        #[inline(never)] // a phase of the step (see the note in `World::step_with`)
        $vis fn $name(&mut self $(, $arg: $ty)*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            if $crate::math::wide::avx2() {
                // SAFETY: the CPU has AVX2 (checked at run time just above).
                return unsafe { self.$avx($($arg),*) };
            }
            self.$body($($arg),*)
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        fn $avx(&mut self $(, $arg: $ty)*) $(-> $ret)? {
            self.$body($($arg),*)
        }
    };
}
pub(crate) use wide_phase;

/// [`wide_phase`] for a free function generic over one type: `$name` picks at run time
/// between its baseline build and `$avx`, the same `$body` compiled for AVX2. Its
/// attributes (docs) go to `$name`.
macro_rules! wide_fn {
    (
        $(#[$attr:meta])*
        $vis:vis fn $name:ident / $avx:ident / $body:ident <$g:ident: $bound:path>
        ($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty
    ) => {
        $(#[$attr])*
        $vis fn $name<$g: $bound>($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            if $crate::math::wide::avx2() {
                // SAFETY: the CPU has AVX2 (checked at run time just above).
                return unsafe { $avx($($arg),*) };
            }
            $body($($arg),*)
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        fn $avx<$g: $bound>($($arg: $ty),*) -> $ret {
            $body($($arg),*)
        }
    };
}
pub(crate) use wide_fn;

#[cfg(test)]
thread_local! {
    /// Tests: run this thread on the baseline builds only.
    static BASELINE_ONLY: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

#[cfg(test)]
mod tests {
    use crate::math::{Real, Vector};
    use crate::space::{RealOf, Space, Space2, Space3, VecOf};
    use crate::{ColliderDef, ParticleDef, RopeDef, Shape, World, WorldDef};

    /// A rope pinned at one end and dropped across a post and a box onto the ground, next
    /// to a falling particle: its state hash after 120 steps (by then the last step has
    /// 25–56 contacts, so contacts, span contacts and the chain solve all run).
    fn rope_scene_hash<S: Space>(baseline_only: bool) -> u64 {
        super::BASELINE_ONLY.with(|b| b.set(baseline_only));
        let r = |v: f64| RealOf::<S>::from_f64(v);
        let v = |x: f64, y: f64| VecOf::<S>::from_f64_slice(&[x, y, 0.1 * x]);
        let mut w = World::<S>::new(WorldDef::default()).unwrap();
        let ground = Shape::half_space(v(0.0, 1.0).normalize_or_zero(), r(0.0)).unwrap();
        w.add_collider(&ColliderDef::new(ground)).unwrap();
        let post = Shape::capsule(v(0.0, 0.0), v(0.0, 0.8), r(0.04)).unwrap();
        w.add_collider(&ColliderDef::new(post).position(v(1.0, 0.0))).unwrap();
        let block = Shape::cuboid(VecOf::<S>::splat(r(0.25))).unwrap();
        w.add_collider(&ColliderDef::new(block).position(v(2.2, 0.25))).unwrap();
        let rope = RopeDef::between(v(-0.5, 1.5), v(3.5, 1.5)).segments(80).mass(r(0.4)).radius(r(0.01));
        w.add_rope(&rope.pin_start()).unwrap();
        w.add_particle(&ParticleDef::at(v(0.5, 2.0)).radius(r(0.05))).unwrap();
        for _ in 0..120 {
            w.step(r(1.0 / 60.0)).unwrap();
        }
        super::BASELINE_ONLY.with(|b| b.set(false));
        w.state_hash()
    }

    /// A whole world steps to the same bits with the AVX2 builds as without them (on a
    /// CPU without AVX2 both runs take the baseline and the test checks nothing more).
    #[test]
    fn the_avx2_builds_step_a_rope_world_to_the_same_bits() {
        assert_eq!(rope_scene_hash::<Space2<f32>>(true), rope_scene_hash::<Space2<f32>>(false));
        assert_eq!(rope_scene_hash::<Space3<f32>>(true), rope_scene_hash::<Space3<f32>>(false));
        assert_eq!(rope_scene_hash::<Space3<f64>>(true), rope_scene_hash::<Space3<f64>>(false));
    }
}
