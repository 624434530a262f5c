//! Tension read-out: the force each segment carries, averaged over the step.
//!
//! # Why not the last substep's `−λ/h²`
//! The chain solve of a substep finds multipliers `λ` (m·kg, position impulses) that move
//! the predicted positions back onto the constraints; `−λ/h²` is the force they stand for
//! over that substep. Linearised about the substep's start `x₀`,
//!
//! ```text
//! A λ = −C(x₀) − J (h v + h² a)          A = J M⁻¹ Jᵀ
//! ```
//!
//! The physics is in `J (h v + h² a)`: the pull that keeps the particles on their curved,
//! falling paths. But one substep's multipliers also carry what is fast and carries no
//! load: the error `C(x₀)` the previous substep left, and the radial speed that correcting
//! it, or a light rope's unresolved transverse vibration (a 5 g particle under 50 N rings
//! at ~450 Hz, above what substeps of 1/480 s follow), gives the particles. Tiny in
//! length, huge in force: a residual of 10 µm in each of 40 links of a rope holding a 5 kg
//! weight is corrected by lifting the weight 400 µm, which at `h = 1/480 s` reads as
//! `5 kg · 400 µm / h² ≈ 460 N`, taken back the next substep with the opposite sign.
//!
//! # The read-out: the impulse of the step
//! The force a segment carries over the frame is the impulse it delivered divided by the
//! frame's length: with `n` substeps of length `h`,
//!
//! ```text
//! T̄ⱼ = −Σₛ λⱼ,ₛ / (h · n h) = −(mean over the substeps of λⱼ) / h²
//! ```
//!
//! The momentum it stands for is exact: on the rope's last particle (no other
//! constraint), `T̄ = m · (Δv/Δt − g)·n̂`, so what is fast cancels down to the change of
//! that fast speed over the *whole* step (`m·δv/Δt` instead of `m·δv/h` per substep):
//! with the chain converged to 10⁻⁵ of each link (see [`super::solve`]) a 5 kg weight
//! swinging on a 200 g, 40-segment rope reads the rigid pendulum's `m (g cos θ + v²/r)`
//! within 5 % every frame at 4 to 16 substeps, in `f32`, `f64` and fixed point
//! (`tests/suite/rope_tension.rs`).
//!
//! A rigid rope's chain solve adds each substep's multipliers onto the last (its rows never
//! read them; they restart at the step's first substep), a compliant rope's restart every
//! substep (its rows do read them) and are summed here; at the end of the step the sum
//! becomes the mean, kept where the multipliers were: [`crate::World::rope_tensions`] and
//! tearing read it, and snapshots save it.

use super::Rope;
use crate::arena::Arena;
use crate::math::Real;
use crate::space::{RealOf, Space};

/// A compliant rope's substep multipliers summed over the step, rope after rope (the
/// ropes are the same through a step: they are torn, reeled or cut only between steps).
/// A rigid rope's chain solve sums its own (`rope::solve`): its rows never read them.
#[derive(Clone, Debug, Default)]
pub(crate) struct TensionScratch<R> {
    sum: Vec<R>,
}

/// Start of a step: the compliant ropes' sums, zeroed.
pub(crate) fn begin<S: Space>(ropes: &Arena<Rope<S>>, sc: &mut TensionScratch<RealOf<S>>) {
    sc.sum.clear();
    for r in ropes.values().filter(|r| r.compliance > RealOf::<S>::ZERO && !r.taut.active) {
        sc.sum.extend(r.lambda.iter().map(|_| RealOf::<S>::ZERO));
    }
}

/// End of a substep: adds every awake compliant rope's multipliers to the step's sums.
pub(crate) fn accumulate<S: Space>(ropes: &Arena<Rope<S>>, sc: &mut TensionScratch<RealOf<S>>) {
    let mut sums = sc.sum.as_mut_slice();
    for r in ropes.values().filter(|r| r.compliance > RealOf::<S>::ZERO && !r.taut.active) {
        let (mine, rest) = sums.split_at_mut(r.lambda.len().min(sums.len()));
        sums = rest;
        if r.sleep.sleeping {
            continue;
        }
        for (s, &l) in mine.iter_mut().zip(&r.lambda) {
            *s += l;
        }
    }
}

/// End of a step of `substeps` substeps: every awake rope's multipliers become the mean of
/// its substeps' (see the module docs).
pub(crate) fn settle<S: Space>(ropes: &mut Arena<Rope<S>>, sc: &TensionScratch<RealOf<S>>, substeps: u32) {
    let inv = RealOf::<S>::ONE / RealOf::<S>::from_i32(substeps.max(1) as i32);
    let mut sums = sc.sum.as_slice();
    for r in ropes.values_mut() {
        if r.sleep.sleeping {
            if r.compliance > RealOf::<S>::ZERO && !r.taut.active {
                sums = &sums[r.lambda.len().min(sums.len())..];
            }
            continue;
        }
        if r.compliance > RealOf::<S>::ZERO && !r.taut.active {
            let (mine, rest) = sums.split_at(r.lambda.len().min(sums.len()));
            sums = rest;
            if mine.len() == r.lambda.len() {
                r.lambda.copy_from_slice(mine);
            }
        }
        for l in r.lambda.iter_mut() {
            *l *= inv;
        }
    }
}
