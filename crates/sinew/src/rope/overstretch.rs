//! A rope held beyond its length: laid straight instead of fought over.
//!
//! # Why
//! Between two fixed particles (pinned, kinematic or grabbed: inverse mass 0) a rope of
//! rest length `S` cannot span a distance `d > S`: its distance constraints have no
//! solution. The chain solve's Newton step then solves a system that is singular along
//! the chord (`Σλ` moves nothing when both ends are fixed) and carries no transverse
//! stiffness in a straight line, so each substep throws the inner particles across the
//! line and back: a 2 m rope reeled to 1.4 m between two pins moved at 140 m/s, and
//! giving it a compliance (1 µm/N) made it worse (580 m/s).
//!
//! # What happens instead
//! Before each chain solve, every stretch of the rope between two consecutive fixed
//! particles `a` and `b` whose distance exceeds the rest length between them is laid on
//! the segment `a → b`, each particle at the fraction of the rest length before it
//! (every link stretched by the same factor `d/S`), and held there for the solve (its
//! particles act as fixed; the rest of the rope is solved as usual against them). The
//! stretch then moves with its ends: its particles' velocities are the interpolation of
//! `a`'s and `b`'s.
//!
//! A stretch within 10⁻⁵ of its length (a rope made exactly as long as the distance
//! between its pins) is laid straight the same way: it cannot sag and jittered.
//!
//! Its tension is the force that holds that stretch: a compliant rope (compliance `α`
//! per segment, m/N) pulled by `e = d − S` over `n` segments carries `T = e / (n α)`;
//! a rigid one cannot be stretched by any finite force, and reads [`OVERSTRETCHED_TENSION`]
//! (so a rope with a `tear_tension` tears, as a real rope pulled apart by immovable ends
//! would). Both are what the tension read-out (`rope::tension`) and tearing see.

use super::Rope;
use crate::constraint::SubstepContext;
use crate::math::{Real, Vector};
use crate::particle::ParticleSet;
use crate::space::{RealOf, Space, VecOf};

/// Tension (N) a rigid rope reads while fixed particles hold it beyond its length: far
/// above any rope's tear tension in a game (10 MN, a steel cable of ~5 cm), so such a
/// rope tears if it can, and finite (frame output and the fixed-point range need a
/// number).
pub const OVERSTRETCHED_TENSION: f64 = 1.0e7;

/// Slack (relative) below which a stretch between fixed particles is laid straight too:
/// a rope of exactly its chord's length (`RopeDef::between(a, b)` pinned at both ends)
/// cannot sag at all and jittered at 4 m/s; one with 10⁻⁴ slack (1.2 cm of sag on 2 m) at
/// 0.9 m/s; from 10⁻³ it hangs still.
const SLACK: i32 = 100_000;

/// What [`hold`] holds during one rope's solve.
#[derive(Clone, Debug, Default)]
pub(crate) struct Held<R> {
    /// Held particles (slot, inverse mass).
    particles: Vec<(u32, R)>,
    /// Held stretches: links `first..end` and their tension (N).
    stretches: Vec<(u32, u32, R)>,
}

/// Lays every over-stretched stretch of `r` straight between its fixed ends (see the module
/// docs) and makes its inner particles fixed for the chain solve, remembering them in
/// `held` (give them back with [`release`]). Returns whether any stretch was laid.
pub(crate) fn hold<S: Space>(
    r: &Rope<S>,
    ps: &mut ParticleSet<S>,
    gravity: VecOf<S>,
    held: &mut Held<RealOf<S>>,
) -> bool {
    let zero = RealOf::<S>::ZERO;
    held.particles.clear();
    held.stretches.clear();
    let mut a = None::<usize>;
    let mut rest = zero;
    for i in 0..r.idx.len() {
        if i > 0 {
            rest += r.rest[i - 1];
        }
        if ps.inv_mass[r.idx[i] as usize] != zero {
            continue;
        }
        if let Some(ia) = a
            && i > ia + 1
        {
            lay(r, ps, (ia, i), rest, gravity, held);
        }
        a = Some(i);
        rest = zero;
    }
    !held.particles.is_empty()
}

/// Lays the stretch `ia..=ib` (fixed ends, rest length `rest` between them) straight if
/// it is held beyond its length, or within [`SLACK`] of it.
fn lay<S: Space>(
    r: &Rope<S>,
    ps: &mut ParticleSet<S>,
    (ia, ib): (usize, usize),
    rest: RealOf<S>,
    gravity: VecOf<S>,
    held: &mut Held<RealOf<S>>,
) {
    let zero = RealOf::<S>::ZERO;
    let (sa, sb) = (r.idx[ia] as usize, r.idx[ib] as usize);
    let (xa, xb) = (ps.pos[sa], ps.pos[sb]);
    let chord = xb - xa;
    let d = chord.length();
    let taut = rest * (RealOf::<S>::ONE - RealOf::<S>::from_ratio(1, SLACK));
    if d <= taut || !d.is_finite() || rest <= zero {
        return;
    }
    let unit = chord * RealOf::<S>::ONE.safe_div(d, zero);
    let (va, vb) = (ps.vel[sa], ps.vel[sb]);
    let (mut along, mut weight) = (zero, zero);
    for j in ia + 1..ib {
        along += r.rest[j - 1];
        let f = along / rest;
        let k = r.idx[j] as usize;
        ps.pos[k] = xa + chord * f;
        ps.vel[k] = va + (vb - va) * f;
        held.particles.push((k as u32, ps.inv_mass[k]));
        // The particle's weight across the chord (what would make the stretch sag).
        let g = gravity * ps.gravity_scale[k];
        weight += (g - unit * g.dot(unit)).length() * ps.mass[k];
        ps.inv_mass[k] = zero;
    }
    let tension = if d > rest {
        let links = RealOf::<S>::from_i32((ib - ia) as i32);
        let rigid = RealOf::<S>::from_f64(OVERSTRETCHED_TENSION);
        if r.compliance > zero { ((d - rest) / (links * r.compliance)).min(rigid) } else { rigid }
    } else {
        // An inextensible string of length S over a chord d sags by s = √(3 S (S − d) / 8)
        // (a shallow parabola) and carries T = W S / (8 s) under a weight W spread evenly
        // across the chord; below [`SLACK`] the stretch is held straight and reads the
        // tension it would have at that slack.
        let slack = (rest - d).max(rest * RealOf::<S>::from_ratio(1, SLACK));
        let sag = (RealOf::<S>::from_i32(3) * rest * slack / RealOf::<S>::from_i32(8)).sqrt();
        (weight * rest).safe_div(RealOf::<S>::from_i32(8) * sag, zero)
    };
    held.stretches.push((ia as u32, ib as u32, tension));
}

/// Gives the held particles their inverse masses back and, when `add_tension` (once per
/// substep: after the chain solve of its first iteration), adds the held stretches'
/// tension to their links' multipliers (one substep's worth, `λ = −T h²`, see
/// `rope::tension`; the solve leaves a link between two fixed particles at `Δλ = 0`).
pub(crate) fn release<S: Space>(
    r: &mut Rope<S>,
    ps: &mut ParticleSet<S>,
    ctx: &SubstepContext<RealOf<S>>,
    held: &Held<RealOf<S>>,
    add_tension: bool,
) {
    if add_tension {
        let h2 = RealOf::<S>::ONE.safe_div(ctx.inv_h2, RealOf::<S>::ZERO);
        for &(first, end, t) in &held.stretches {
            for l in &mut r.lambda[first as usize..end as usize] {
                *l -= t * h2;
            }
        }
    }
    for &(k, w) in &held.particles {
        ps.inv_mass[k as usize] = w;
    }
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;
    use crate::{RopeDef, World};

    /// A 40-segment, 2 m rope pinned at both ends, reeled to `reel` of its length:
    /// (fastest particle over the last 3 s, tension of a middle segment, segments).
    fn pinned_and_reeled<R: Real>(reel: f64, compliance: f64, tear: Option<f64>) -> (f64, f64, usize, bool) {
        let mut w = World::<Space2<R>>::new(WorldDef::default()).unwrap();
        let v = |x: f64, y: f64| Vector2::<R>::from_f64(x, y);
        let mut def = RopeDef::between(v(0.0, 0.0), v(2.0, 0.0))
            .segments(40)
            .mass(R::from_f64(0.2))
            .pin_start()
            .pin_end()
            .tethers(false)
            .compliance(R::from_f64(compliance));
        if let Some(t) = tear {
            def = def.tear_tension(R::from_f64(t));
        }
        let h = w.add_rope(&def).unwrap();
        w.set_rope_length(h, RopeEnd::End, R::from_f64(2.0 * reel)).unwrap();
        let mut fastest: f64 = 0.0;
        let segments = |w: &World<Space2<R>>| w.ropes().map(|(_, r)| r.segment_count()).sum::<usize>();
        let before = segments(&w);
        for f in 0..300 {
            w.step(R::from_f64(1.0 / 60.0)).unwrap();
            if segments(&w) < before {
                return (fastest, 0.0, 0, true);
            }
            if f >= 120 {
                for &p in w.rope(h).unwrap().particles() {
                    fastest = fastest.max(w.particles().velocity(p).unwrap().length().to_f64());
                    assert!(w.particles().position(p).unwrap().length().is_finite());
                }
            }
        }
        let n = w.rope(h).unwrap().segment_count();
        (fastest, w.rope_tension(h, n / 2).unwrap().to_f64(), n, false)
    }

    #[test]
    fn a_rigid_rope_reeled_in_between_two_pins_lies_still_and_straight() {
        for reel in [0.7, 0.95, 0.999, 1.0] {
            let (v, t, _, _) = pinned_and_reeled::<f64>(reel, 0.0, None);
            assert!(v < 1e-6, "reel {reel}: particles move at {v} m/s");
            if reel < 1.0 {
                assert!((t - super::OVERSTRETCHED_TENSION).abs() < 1.0, "reel {reel}: tension {t} N");
            } else {
                // Exactly the chord's length: read as 10⁻⁵ slack, sag √(3·2·2e-5/8) = 3.87 mm,
                // T = W S / (8 s) with W = 39/40 of the rope's weight (the pins hold the rest).
                let want = 0.2 * 39.0 / 40.0 * 9.81 * 2.0 / (8.0 * (3.0f64 * 2.0 * 2e-5 / 8.0).sqrt());
                assert!((t - want).abs() < 1e-3 * want, "exact length: tension {t} N, want {want} N");
            }
            let (v, _, _, _) = pinned_and_reeled::<f32>(reel, 0.0, None);
            assert!(v < 1e-3, "f32, reel {reel}: particles move at {v} m/s");
            let (v, _, _, _) = pinned_and_reeled::<crate::Fx>(reel, 0.0, None);
            assert!(v < 1e-3, "fixed, reel {reel}: particles move at {v} m/s");
        }
    }

    /// A 2 m, 40-segment, 200 g rope pinned at both ends 2 m apart, `slack` (relative)
    /// longer than that: (fastest particle over frames 300–600, deepest sag over them).
    fn pinned_with_slack<R: Real>(slack: f64) -> (f64, f64) {
        let mut w = World::<Space2<R>>::new(WorldDef::default()).unwrap();
        let v = |x: f64, y: f64| Vector2::<R>::from_f64(x, y);
        let def = RopeDef::between(v(0.0, 0.0), v(2.0, 0.0))
            .segments(40)
            .mass(R::from_f64(0.2))
            .pin_start()
            .pin_end()
            .tethers(false);
        let h = w.add_rope(&def).unwrap();
        w.set_rope_length(h, RopeEnd::End, R::from_f64(2.0 * (1.0 + slack))).unwrap();
        let (mut fastest, mut sag) = (0.0f64, 0.0f64);
        for f in 0..600 {
            w.step(R::from_f64(1.0 / 60.0)).unwrap();
            if f >= 300 {
                for &p in w.rope(h).unwrap().particles() {
                    fastest = fastest.max(w.particles().velocity(p).unwrap().length().to_f64());
                    sag = sag.max(-w.particles().position(p).unwrap().y.to_f64());
                }
            }
        }
        (fastest, sag)
    }

    #[test]
    fn a_rope_with_little_slack_between_two_pins_hangs_still_at_its_sag() {
        // A shallow string of length S between points d apart sags s = √(3 S (S − d) / 8):
        // with S − d = 2·slack·(2 m), s = √(1.5·slack) m. Before the held tolerance, the
        // rope at 10⁻⁴ trembled at 2–3.5 m/s with twice that sag.
        for slack in [3e-5, 1e-4, 3e-4] {
            let want = (1.5f64 * slack).sqrt();
            let (v, sag) = pinned_with_slack::<f64>(slack);
            assert!(v < 1e-3, "f64, slack {slack}: particles move at {v} m/s");
            assert!((sag - want).abs() < 0.02 * want, "f64, slack {slack}: sag {sag} m, want {want} m");
            let (v, sag) = pinned_with_slack::<crate::Fx>(slack);
            assert!(v < 0.05, "fixed, slack {slack}: particles move at {v} m/s");
            assert!((sag - want).abs() < 0.02 * want, "fixed, slack {slack}: sag {sag} m, want {want} m");
            // f32: its 1 µm rounding slop, read sideways through the nearly straight
            // chain, leaves the rope trembling at 0.1–0.4 m/s (see `HELD_TOLERANCE`); its
            // sag stays within 25 %.
            let (v, sag) = pinned_with_slack::<f32>(slack);
            assert!(v < 1.0, "f32, slack {slack}: particles move at {v} m/s");
            assert!((sag - want).abs() < 0.25 * want, "f32, slack {slack}: sag {sag} m, want {want} m");
        }
    }

    #[test]
    fn a_compliant_rope_held_beyond_its_length_carries_stretch_over_compliance() {
        // 2 m reeled to 1.9 m between pins 2 m apart: e = 0.1 m over n segments of
        // compliance 1e-4 m/N each: T = 0.1 / (n · 1e-4).
        let (v, t, n, _) = pinned_and_reeled::<f64>(0.95, 1e-4, None);
        assert!(v < 1e-6, "particles move at {v} m/s");
        let want = 0.1 / (n as f64 * 1e-4);
        assert!((t - want).abs() < 1e-3 * want, "tension {t} N, want {want} N ({n} segments)");
    }

    #[test]
    fn a_rigid_rope_with_a_tear_tension_reeled_beyond_its_pins_tears() {
        let (_, _, _, torn) = pinned_and_reeled::<f64>(0.9, 0.0, Some(5000.0));
        assert!(torn, "a rope that cannot reach its pins tears");
    }
}
