//! The rope stages of a step: waking and wind at its start, the exact chain solve (with
//! bending and tethers) in every iteration, tearing and sleep at its end.

use super::chain::{ChainRef, ChainScratch, solve_chain};
use super::taut::solve::TautScratch;
use super::{Rope, RopeHandle};
use crate::arena::Arena;
use crate::collider::{Aabb, Collider};
use crate::constraint::{Bending, SubstepContext};
use crate::math::{Real, Vector};
use crate::particle::{KINEMATIC, ParticleSet};
use crate::space::{RealOf, Space, VecOf};

/// Most Newton steps of the chain solve per substep and iteration. Ropes in ordinary
/// motion take one; a rope pulled nearly straight at speed needs many (the linearisation
/// of a nearly straight chain is poor), and stopping Newton half-way can leave it worse
/// than one step would: on a 40-link rope whose ends are pulled apart at 5 m/s to 99 %
/// of its length, a cap of 4 leaves 3.5–7.5 % stretch, 8 leaves 14–29 %, 32 leaves
/// 0.09 % (f32, f64, fixed). The cap only costs where it is needed: the 14 m and
/// 100-rope benchmark scenes average 1.0–1.2 steps per substep either way.
const MAX_NEWTON_STEPS: u32 = 32;

/// The chain solve's aim for a rope whose particles differ in mass by more than
/// [`FINE_MASS_RATIO`] (a load on its end, a heavy attached body): every link within
/// `1/FINE_TOLERANCE` of its rest length (relative) or within the number type's rounding
/// slop (1 µm in `f32`, see `chain`). The coarse aim (10⁻³) leaves residuals whose
/// correction the next substep turns into radial speed, and the heavy particle carries
/// it: a 5 kg weight on a light 40-link rope rings by centimetres per second, its tension
/// by tens of newtons, and a heavy load stretches its rope by up to 0.1 %. On a rope of
/// even mass the same residual moves light particles against light ones and shows
/// neither in its motion nor in its tension, so it keeps the coarse aim: the fine one
/// costs 14–29 % more on the benchmark ropes (2026-12-04, callgrind).
const FINE_TOLERANCE: i32 = 100_000;

/// The chain solve's aim for a rope held by two or more fixed particles (pinned,
/// kinematic or grabbed; a bridge, a line between two posts, a rope between two moving
/// objects): every link within `1/HELD_TOLERANCE` of its rest length (relative), or within
/// the number type's rounding slop.
///
/// Such a rope with little slack hangs nearly straight, and a nearly straight chain turns
/// a link's length error `δ` into a sideways error `δ/θ`, `θ` the angle between its
/// links and the chord (`θ ≈ 4·sag/S`, a few hundredths at 10⁻⁴ of slack). The next
/// substep reads that error as velocity: at the fine aim (10⁻⁵) a 2 m, 40-link rope with
/// 10⁻⁴ of slack kept trembling at up to 0.15 m/s, at the coarse aim (10⁻³, which is
/// more than its slack) at 2–3.5 m/s with twice its sag. At 10⁻⁷ it comes to rest at its
/// sag (`f64` and fixed point; `f32`'s 1 µm rounding slop leaves 0.1–0.4 m/s there).
/// Newton converges fast on such a rope (1.2–1.3 steps per substep, 2026-12-06), and
/// a rope at rest falls asleep.
const HELD_TOLERANCE: i32 = 10_000_000;

/// The solve's guarantee: Newton steps go on (up to [`MAX_NEWTON_STEPS`]) until every
/// link is within `1/COARSE_TOLERANCE`, whether or not they still converge fast.
const COARSE_TOLERANCE: i32 = 1000;

/// Most Newton steps per substep and iteration once every link is within the coarse
/// tolerance. A 5 kg weight swinging on a 40-link, 200 g rope needs up to 8 (1.8 on
/// average) to reach the fine one.
const MAX_FINE_STEPS: u32 = 8;

/// Heaviest over lightest movable particle of a rope above which it is solved to the
/// fine tolerance.
const FINE_MASS_RATIO: i32 = 8;

/// Whether the rope's movable particles differ in mass by more than [`FINE_MASS_RATIO`].
/// Also whether two or more of them are fixed (inverse mass 0), which is when the rope can
/// be held beyond its length (`rope::overstretch`).
fn uneven_masses<S: Space>(idx: &[u32], ps: &ParticleSet<S>) -> (bool, bool) {
    let zero = RealOf::<S>::ZERO;
    let (mut lo, mut hi) = (zero, zero);
    let mut fixed = 0u32;
    for &k in idx {
        let w = ps.inv_mass[k as usize];
        fixed += u32::from(w == zero);
        if w > zero {
            if lo == zero || w < lo {
                lo = w;
            }
            if w > hi {
                hi = w;
            }
        }
    }
    (hi > lo * RealOf::<S>::from_i32(FINE_MASS_RATIO), fixed >= 2)
}

/// Rope work at the start of a step: wake ropes that are touched (a force, a driven
/// particle, a moving collider nearby, wind). (The drag itself acts every substep,
/// [`apply_drag`].)
#[inline(never)] // a stage of the step (see the note in `World::step_with`)
pub(crate) fn begin_step<S: Space>(
    ropes: &mut Arena<Rope<S>>,
    ps: &mut ParticleSet<S>,
    colliders: &Arena<Collider<S>>,
    substeps: u32,
    chain: &mut ChainScratch<S>,
) {
    if ropes.is_empty() {
        return;
    }
    chain.uneven.clear();
    chain.fixed_twice.clear();
    for r in ropes.values() {
        let (uneven, fixed_twice) = uneven_masses(&r.idx, ps);
        chain.uneven.push(uneven);
        chain.fixed_twice.push(fixed_twice);
    }
    chain.shared.plan(ropes, ps);
    let zero = RealOf::<S>::ZERO;
    // Wake checks need the moving colliders only when some rope sleeps.
    let any_sleeping = ropes.values().any(|r| r.sleep.sleeping);
    let moving: Vec<_> = if !any_sleeping {
        Vec::new()
    } else {
        colliders.values().filter(|c| c.is_moving()).filter_map(|c| c.swept_aabb(substeps)).collect()
    };
    let moving_unbounded = any_sleeping && colliders.values().any(|c| c.is_moving() && c.shape.local_aabb().is_none());
    for r in ropes.values_mut() {
        let (pad, drag) = (VecOf::<S>::splat(r.radius + r.segment_length), r.drag);
        let idx = &r.idx;
        r.sleep.wake_if_touched(idx, ps, || {
            let near_moving = moving_unbounded || {
                let (mut lo, mut hi) = (ps.pos[idx[0] as usize], ps.pos[idx[0] as usize]);
                for &k in idx {
                    lo = lo.min_elem(ps.pos[k as usize]);
                    hi = hi.max_elem(ps.pos[k as usize]);
                }
                let bb = Aabb { min: lo - pad, max: hi + pad };
                moving.iter().any(|m| m.overlaps::<RealOf<S>>(&bb))
            };
            near_moving || drag > zero
        });
    }
}

/// Wind drag for one substep of length `h`, implicit: the drag force `c·(w − v)` taken at
/// the substep's end velocity, `v' = v + (h·c/m)·(w − v')`, that is
/// `v' = (v + k·w) / (1 + k)` with `k = c·h/m`. `v'` lies between `v` and the wind `w`
/// whatever `k` is, so drag never overshoots the wind and is stable at any
/// `drag · dt / m` (the explicit force once a step flipped the rope between two shapes
/// beyond `k = 2`). Kinematic, pinned and sleeping particles are left alone.
#[inline(never)] // a stage of the substep
pub(crate) fn apply_drag<S: Space>(ropes: &Arena<Rope<S>>, ps: &mut ParticleSet<S>, h: RealOf<S>) {
    let (zero, one) = (RealOf::<S>::ZERO, RealOf::<S>::ONE);
    for r in ropes.values() {
        if !(r.drag > zero) || r.sleep.sleeping {
            continue;
        }
        let ch = r.drag * h;
        for &k in &r.idx {
            let k = k as usize;
            let w = ps.inv_mass[k];
            if ps.flags[k] & KINEMATIC != 0 || !(w > zero) {
                continue;
            }
            let a = ch * w;
            ps.vel[k] = (ps.vel[k] + r.wind * a) / (one + a);
        }
    }
}

/// Per particle slot: whether it belongs to a sleeping rope (the step skips it), and
/// how far beyond itself its spans reach (the broad phase grows its box by that).
pub(crate) fn particle_flags<S: Space>(
    ropes: &Arena<Rope<S>>,
    n: usize,
    sleeping: &mut Vec<bool>,
    extra_reach: &mut Vec<RealOf<S>>,
) {
    sleeping.clear();
    sleeping.resize(n, false);
    extra_reach.clear();
    extra_reach.resize(n, RealOf::<S>::ZERO);
    for r in ropes.values() {
        let last = r.idx.len().saturating_sub(1);
        for (i, &k) in r.idx.iter().enumerate() {
            let k = k as usize;
            // A taut rope's interior is laid along its path at the end of the step: for
            // the step it is still, like a sleeping rope's.
            sleeping[k] = r.sleep.sleeping || (r.taut.active && i > 0 && i < last);
            if r.taut.active {
                continue;
            }
            if r.edge_collisions {
                let left = if i > 0 { r.rest[i - 1] } else { RealOf::<S>::ZERO };
                let right = r.rest.get(i).copied().unwrap_or(RealOf::<S>::ZERO);
                extra_reach[k] = left.max(right);
            }
        }
    }
}

/// What the taut ropes' solve needs beside the ropes: the colliders they wrap, the
/// world's default friction (capstan), their working memory.
pub(crate) type TautInputs<'a, S> = (&'a Arena<Collider<S>>, RealOf<S>, &'a mut TautScratch<VecOf<S>, RealOf<S>>);

/// The rope constraints for one iteration: the exact chain solve, bending, tethers.
#[inline(never)] // a stage of the step (see the note in `World::step_with`)
pub(crate) fn solve_ropes<S: Space>(
    ropes: &mut Arena<Rope<S>>,
    ps: &mut ParticleSet<S>,
    scratch: &mut ChainScratch<S>,
    ctx: &SubstepContext<RealOf<S>>,
    (first, first_substep): (bool, bool),
    (colliders, friction, taut): TautInputs<'_, S>,
) {
    let zero = RealOf::<S>::ZERO;
    let coarse_tol = RealOf::<S>::from_ratio(1, COARSE_TOLERANCE);
    let fine_tol = RealOf::<S>::from_ratio(1, FINE_TOLERANCE);
    let held_tol = RealOf::<S>::from_ratio(1, HELD_TOLERANCE);
    // A V of two ropes pulled to its length between fixed ends: its hub held, its ropes
    // solved one by one as ropes held at both ends (`rope::shared`).
    let mut shared = core::mem::take(&mut scratch.shared);
    shared.hold(ropes, ps, &mut scratch.fixed_twice);
    scratch.shared = shared;
    for (i, r) in ropes.values_mut().enumerate() {
        if r.sleep.sleeping || scratch.shared.member.get(i).copied().unwrap_or(false) {
            continue;
        }
        if r.taut.active {
            if first {
                super::taut::solve::update_contacts(r, ps, colliders, taut);
            }
            super::taut::solve::solve(r, ps, colliders, friction, taut, first);
            continue;
        }
        // A compliant rope's multipliers restart at 0 every substep (XPBD with substeps):
        // the chain solve's first step overwrites them (`ChainRef::fresh`). A rigid
        // chain's rows never read them, so its multipliers add up over the whole step
        // instead, which is what the tension read-out wants (`rope::tension`): fresh
        // only at the step's first substep.
        if first && !r.bend_lambda.is_empty() {
            r.bend_lambda.iter_mut().for_each(|l| *l = zero);
        }
        let fine = if scratch.fixed_twice.get(i).copied().unwrap_or(false) {
            held_tol
        } else if scratch.uneven.get(i).copied().unwrap_or(false) {
            fine_tol
        } else {
            coarse_tol
        };
        let tolerance = (fine, coarse_tol);
        let fresh = first && (first_substep || r.compliance > zero);
        // A stretch held beyond its length by fixed particles is laid straight and held
        // for the solve (`rope::overstretch`); particles can be pinned or grabbed between
        // steps only, so the step's start tells which ropes have two fixed particles.
        let mut held = core::mem::take(&mut scratch.held);
        let holds = scratch.fixed_twice.get(i).copied().unwrap_or(false)
            && super::overstretch::hold(r, ps, scratch.gravity, &mut held);
        let mut coarse = newton(r, ps, scratch, ctx, tolerance, fresh).0;
        if !coarse && first && r.compliance == zero {
            coarse = solve_in_pieces(r, ps, scratch, ctx, tolerance, fresh);
        }
        if holds {
            super::overstretch::release(r, ps, ctx, &held, first);
        }
        scratch.held = held;
        bend_and_tether(r, ps, ctx, coarse);
    }
    // The ropes that share a load: their chains and the load solved together.
    if scratch.shared.any() {
        let mut shared = core::mem::take(&mut scratch.shared);
        let tolerance = (held_tol, coarse_tol);
        let coarse =
            shared.solve(ropes, ps, ctx, tolerance, (first, first_substep), (MAX_NEWTON_STEPS, MAX_FINE_STEPS));
        for h in shared.grouped() {
            if let Some(r) = ropes.get_mut(h) {
                if first && !r.bend_lambda.is_empty() {
                    r.bend_lambda.iter_mut().for_each(|l| *l = zero);
                }
                bend_and_tether(r, ps, ctx, coarse);
            }
        }
        scratch.shared = shared;
    }
    let mut shared = core::mem::take(&mut scratch.shared);
    shared.release(ps, &mut scratch.fixed_twice);
    scratch.shared = shared;
}

/// What follows a rope's chain solve: bending, and tethers unless the chain ended within
/// the coarse tolerance (`coarse`).
fn bend_and_tether<S: Space>(r: &mut Rope<S>, ps: &mut ParticleSet<S>, ctx: &SubstepContext<RealOf<S>>, coarse: bool) {
    if let Some(bc) = r.bend_compliance {
        for (j, w) in r.idx.windows(3).enumerate() {
            let mut c = Bending::new(w[0] as usize, w[1] as usize, w[2] as usize, r.bend_rest[j], bc);
            c.lambda = r.bend_lambda[j];
            c.solve(ps, ctx);
            r.bend_lambda[j] = c.lambda;
        }
    }
    // Tethers are the safety net for a chain solve that stopped short of its
    // tolerance (a rope yanked harder than 32 Newton steps can follow, or a
    // compliant rope). A converged chain already holds every tether: each link is
    // within the tolerance, so every arc is too.
    if r.tethers && !coarse {
        solve_rope_tethers(r, ps);
    }
}

/// Newton steps of the chain solve until converged (see `chain`): usually one. The first
/// step always runs (it also carries the multipliers, i.e. the tension read-out); further
/// steps while some link is off by more than its aim (`tolerance.0`), up to
/// `MAX_FINE_STEPS` once every link is within the coarse one (a chain whose rounding floor
/// lies above the fine tolerance, `f32` far from the origin, then costs a bounded number
/// of steps); outside the coarse tolerance they go on up to `MAX_NEWTON_STEPS` (a rope
/// snapping taut converges slowly). A compliant rope takes one step: its links are meant
/// to stretch. Returns whether every link ended within the coarse tolerance, and the
/// steps taken.
fn newton<S: Space>(
    r: &mut Rope<S>,
    ps: &mut ParticleSet<S>,
    scratch: &mut ChainScratch<S>,
    ctx: &SubstepContext<RealOf<S>>,
    tolerance: (RealOf<S>, RealOf<S>),
    fresh: bool,
) -> (bool, u32) {
    let zero = RealOf::<S>::ZERO;
    let mut coarse = false;
    let mut steps = 0;
    for step in 0..MAX_NEWTON_STEPS {
        steps = step + 1;
        let chain = ChainRef {
            idx: &r.idx,
            rest: &r.rest,
            lambda: &mut r.lambda,
            compliance: r.compliance,
            fresh: fresh && step == 0,
        };
        let status = solve_chain(chain, ps, ctx, scratch, tolerance);
        coarse = status.coarse;
        if status.converged || r.compliance > zero || (coarse && step + 1 >= MAX_FINE_STEPS) {
            break;
        }
    }
    (coarse, steps)
}

/// Most pieces [`solve_in_pieces`] cuts a substep's motion into.
const MAX_PIECES: u32 = 256;

/// The fallback for a rigid chain that Newton could not bring within the coarse tolerance
/// in [`MAX_NEWTON_STEPS`]: the substep's motion of the rope (each particle's `h·v`, a
/// driven particle's path) is replayed from the substep's start in pieces, each moving no
/// particle more than half the shortest rest length beside it, with a chain solve after
/// each. Newton converges from a link stretched by half its length in a few steps; from
/// one stretched 20 times — a hand whipped at 50 m/s on a rope of 5 mm segments moves 21
/// segment lengths in a substep, and the whip's wave moves its particles faster still —
/// not in 32, and such a rope was left stretched to 13 times its length. Costs nothing
/// while the solve converges; when it does not, at most [`PIECES_BUDGET`] Newton steps
/// on the pieces (or [`PIECES_FAILED`] pieces that do not converge) and one more run for
/// what is left.
/// Returns whether the chain ended within the coarse tolerance.
fn solve_in_pieces<S: Space>(
    r: &mut Rope<S>,
    ps: &mut ParticleSet<S>,
    scratch: &mut ChainScratch<S>,
    ctx: &SubstepContext<RealOf<S>>,
    tolerance: (RealOf<S>, RealOf<S>),
    fresh: bool,
) -> bool {
    let (zero, half) = (RealOf::<S>::ZERO, RealOf::<S>::HALF);
    // Each particle's motion this substep: from `prev` to the driven target, or `h·v`.
    let mut worst = zero;
    let mut moves = core::mem::take(&mut scratch.pieces);
    moves.clear();
    for (i, &k) in r.idx.iter().enumerate() {
        let k = k as usize;
        let d = if ps.flags[k] & KINEMATIC != 0 {
            ps.pos[k] - ps.prev[k]
        } else if ps.inv_mass[k] > zero {
            ps.vel[k] * ctx.h
        } else {
            VecOf::<S>::ZERO
        };
        let left = if i > 0 { r.rest[i - 1] } else { r.rest[0] };
        let reach = left.min(r.rest.get(i).copied().unwrap_or(left)) * half;
        if reach > zero {
            worst = worst.max(d.length() / reach);
        }
        moves.push((k, d, ps.pos[k]));
    }
    // The smallest count ≥ worst, in the scalar's own arithmetic (no float in the
    // fixed-point path).
    let mut n = 2;
    while n < MAX_PIECES && RealOf::<S>::from_i32(n as i32) < worst {
        n += 1;
    }
    let pieces = RealOf::<S>::from_i32(n as i32);
    for &(k, _, _) in &moves {
        ps.pos[k] = ps.prev[k];
    }
    let mut coarse = false;
    let (mut j, mut spent, mut failed) = (0, 0, 0);
    while j < n {
        // Pieces that keep failing are not helping (a load no substep could hold: 10⁹
        // m/s² of gravity, a collider pushing the rope through itself): past
        // `PIECES_FAILED` of them, or `PIECES_BUDGET` Newton steps, the rest of the motion
        // goes in one, so that such a rope costs a bounded number of chain solves.
        let helping = spent < PIECES_BUDGET && failed < PIECES_FAILED;
        let step = if helping { 1 } else { n - j };
        j += step;
        let f = RealOf::<S>::from_i32(step as i32) / pieces;
        for &(k, d, end) in &moves {
            ps.pos[k] = if j == n && ps.flags[k] & KINEMATIC != 0 { end } else { ps.pos[k] + d * f };
        }
        let (ok, steps) = newton(r, ps, scratch, ctx, tolerance, fresh && j == step);
        (coarse, spent, failed) = (ok, spent + steps, failed + u32::from(!ok));
    }
    scratch.pieces = moves;
    coarse
}

/// Newton steps [`solve_in_pieces`] may spend on its pieces before it does the rest of
/// the motion in one.
const PIECES_BUDGET: u32 = 16 * MAX_NEWTON_STEPS;

/// Pieces that may fail to converge before [`solve_in_pieces`] does the rest in one (the
/// 2000-segment whip in fixed point has one now and then, and is held with 2 but not 1; a
/// rope under a load nothing holds fails every one). With it, such a rope costs at most
/// four times the Newton steps of a substep without the fallback.
const PIECES_FAILED: u32 = 2;

/// End of a step whose substeps were `h` long: the ropes to tear (rope, segment) — the
/// first segment whose tension `−λ/h²` exceeds its rope's threshold — for the world to cut.
pub(crate) fn overloaded<S: Space>(ropes: &Arena<Rope<S>>, sub_h: RealOf<S>) -> Vec<(RopeHandle, usize)> {
    let mut tears = Vec::new();
    for (h, r) in ropes.iter() {
        if let Some(limit) = r.tear_tension
            && let Some(j) = (0..r.lambda.len()).find(|&j| -r.lambda[j] / (sub_h * sub_h) > limit)
        {
            tears.push((RopeHandle(h), j));
        }
    }
    tears
}

/// End of a step: ropes moved from outside wake; calm ropes without wind fall asleep
/// (see [`crate::sleep`]).
pub(crate) fn settle<S: Space>(ropes: &mut Arena<Rope<S>>, ps: &mut ParticleSet<S>) {
    for r in ropes.values_mut() {
        // Not with an attached end: sleeping makes the rope's particles immovable, and an
        // attached one belongs to a body that other constraints move.
        // Nor while taut: its interior is laid along the path, not simulated.
        let may_sleep = r.drag == RealOf::<S>::ZERO && r.attached == [false, false] && !r.taut.active;
        r.sleep.settle(&r.idx, ps, may_sleep);
    }
}

/// Tethers from every free particle to the nearest pinned particle along the rope on
/// each side, with the rest length between them (long-range attachments).
fn solve_rope_tethers<S: Space>(r: &Rope<S>, ps: &mut ParticleSet<S>) {
    let n = r.idx.len();
    let zero = RealOf::<S>::ZERO;
    // Forward pass: nearest pin before i; backward pass: nearest pin after i.
    for dir in [false, true] {
        let mut anchor: Option<usize> = None;
        let mut arc = zero;
        for s in 0..n {
            let i = if dir { n - 1 - s } else { s };
            let k = r.idx[i] as usize;
            if let Some(ai) = anchor {
                let seg = if dir { r.rest[i] } else { r.rest[i - 1] };
                arc += seg;
                if ps.inv_mass[k] > zero {
                    let anchor_pos = ps.pos[r.idx[ai] as usize];
                    let d = ps.pos[k] - anchor_pos;
                    if d.length_squared() > arc * arc {
                        let (nv, len) = d.normalize_and_length();
                        ps.pos[k] -= nv * (len - arc);
                    }
                }
            }
            if ps.inv_mass[k] == zero {
                anchor = Some(i);
                arc = zero;
            }
        }
    }
}
