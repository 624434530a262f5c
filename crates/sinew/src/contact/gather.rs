//! The once-per-step gathering: each colliding particle's collider pairs, with their
//! clearances and contact planes, around its contact anchor (see the module docs of
//! [`crate::contact`]).

use super::anchors::{ContactAnchors, Reach};
use super::cache::FatEntry;
use super::narrow::closest;
use super::{ContactParams, ContactScratch, Pair, Probe};
use crate::arena::Arena;
use crate::collider::{Aabb, BroadPhase, Collider};
use crate::math::{Real, Rotation, Vector};
use crate::particle::ParticleSet;
use crate::space::{RealOf, Space, VecOf};

/// Steps of motion a particle's cached broad-phase box stretches ahead along its velocity
/// (see [`super::cache::FatCache`]): a longer box re-queries less often, at the price of a
/// longer cached list to filter each step.
const FAT_STEPS_AHEAD: i32 = 6;

/// How far (m) beyond its query box a particle with no collider within its margin looks for
/// colliders to widen its contact anchor's region (see "Contact anchors" in the module
/// docs): half the cached boxes' pad, so that a cached list usually holds that far.
const LONELY_PAD: (i32, i32) = (5, 100);

/// What the gathering reads and writes.
pub(crate) struct Gather<'a, S: Space> {
    pub params: &'a ContactParams<RealOf<S>>,
    pub particles: &'a ParticleSet<S>,
    pub anchors: &'a mut ContactAnchors<S>,
    pub colliders: &'a Arena<Collider<S>>,
    pub broad_phase: &'a mut BroadPhase<VecOf<S>>,
    pub scratch: &'a mut ContactScratch<S>,
    /// The dynamic colliding particles (slots, ascending).
    pub colliding: &'a [u32],
    /// Per slot: the velocity each substep adds.
    pub dv: &'a [VecOf<S>],
    /// Per slot: how far beyond itself its rope spans reach.
    pub extra_reach: &'a [RealOf<S>],
}

/// Broad phase once per step: each colliding particle gets the colliders near the region
/// it can reach this step (its box grown by twice the distance its velocity and forces
/// carry it in `dt`, plus 1 cm) around its contact anchor — kept from an earlier step when
/// that region still holds, else taken where the particle is (see "Contact anchors"). A
/// particle that leaves that region during the step (a hard constraint yank) is re-queried
/// in the substep where it happens.
#[inline(never)] // a stage of the step (see the note in `World::step_with`)
pub(crate) fn gather_candidates<S: Space>(g: Gather<'_, S>, dt: RealOf<S>) {
    let Gather { params, particles: ps, anchors, colliders, broad_phase, scratch: sc, colliding, dv, extra_reach } = g;
    sc.probes.clear();
    // Last step's pairs, which particles that keep their anchor copy.
    core::mem::swap(&mut sc.pairs, &mut sc.pairs_prev);
    sc.pairs.clear();
    // Entries of the last gather (epoch − 1) have their lists in the cache; older ones (a
    // particle pinned, asleep or removed in between) must query afresh.
    if sc.fat.next_epoch() {
        sc.kept.iter_mut().for_each(|e| *e = 0);
    }
    let epoch = sc.fat.epoch;
    sc.regathered = 0;
    if colliders.is_empty() {
        return; // (nothing reads the per-slot arrays below without colliders)
    }
    let n = ps.pos.len();
    sc.plane2.clear();
    sc.plane2.resize(n, RealOf::<S>::ZERO);
    sc.lonely2.clear();
    sc.lonely2.resize(n, RealOf::<S>::MAX);
    sc.kept.resize(n, 0);
    let zero = RealOf::<S>::ZERO;
    let nsub = RealOf::<S>::from_i32(params.substeps as i32);
    // The colliders of the broad phase's lists, looked up once per step instead of once
    // per particle: whether the slot is live and whether the collider moves (in buffers
    // kept across steps: a steady step allocates nothing).
    let moving_of = |slot: u32| colliders.values[slot as usize].as_ref().map(Collider::is_moving);
    let (mut unbounded, mut bounded) = (core::mem::take(&mut sc.unbounded), core::mem::take(&mut sc.bounded));
    let mut moving_boxes = core::mem::take(&mut sc.moving_boxes);
    unbounded.clear();
    unbounded.extend(broad_phase.unbounded.iter().map(|&slot| (slot, moving_of(slot))));
    bounded.clear();
    bounded.extend(broad_phase.bounded.iter().map(|&(slot, b)| ((slot, moving_of(slot)), b)));
    // The box around all bounded colliders' boxes (`None`: there are none).
    let bounded_box = bounded.iter().map(|&(_, b)| b).reduce(|u, b| u.union::<RealOf<S>>(&b));
    sc.fat.open(n, broad_phase.generation);
    // Like Box2D's predictive AABB, the cached box also stretches along the particle's
    // motion, over this many steps: a falling particle keeps its list for several steps
    // instead of re-querying every step.
    let ahead = dt * RealOf::<S>::from_i32(FAT_STEPS_AHEAD);
    // A moving half-space reaches everywhere: no anchor lasts while one moves. A moving
    // bounded collider ends the anchors whose regions its path (its swept box) comes near,
    // and invalidates the cached lists whose boxes it enters: the lists hold the colliders
    // that overlapped them when queried, the static ones' still do.
    let anchors_hold = !unbounded.iter().any(|&(_, m)| m == Some(true));
    moving_boxes.clear();
    moving_boxes.extend(bounded.iter().filter(|((_, m), _)| *m == Some(true)).map(|&(_, b)| b));
    let near_moving = |b: &Aabb<VecOf<S>>| moving_boxes.iter().any(|m| m.overlaps::<RealOf<S>>(b));
    let near_moving_dyn: &dyn Fn(&Aabb<VecOf<S>>) -> bool = &near_moving;
    let min_margin = RealOf::<S>::from_ratio(1, 100);
    for &k in colliding {
        let k = k as usize;
        // Speeds bounded by the sum of the components' magnitudes (≥ the length, no square
        // root): a slightly larger, still safe reach.
        let l1 = |v: VecOf<S>| (0..S::DIM).fold(zero, |a, i| a + v.get(i).abs());
        // Twice the distance its velocity and forces carry it this step.
        let motion = (l1(ps.vel[k]) + l1(dv[k]) * nsub) * dt * RealOf::<S>::TWO;
        let extra = extra_reach.get(k).copied().unwrap_or(RealOf::<S>::ZERO);
        let (x0, r) = (ps.pos[k], ps.radius[k]);
        // Contact planes: within `plane_reuse` and half the radius of the anchor; none for
        // a particle whose predicted motion this step already goes farther.
        let eps = params.plane_reuse.min(r * RealOf::<S>::HALF);
        let predicted = (l1(ps.vel[k]) + l1(dv[k]) * nsub * RealOf::<S>::HALF) * dt;
        let plane_ok = predicted < eps.min(motion + min_margin);
        // An anchor with pairs is kept only for a particle that hardly moves (a quarter of
        // ε per step): its planes' normals are the anchor's, so on a curve a slowly sliding
        // particle would feel a normal that lags by its whole travel since then instead of
        // one step's.
        let slow = l1(ps.vel[k]) * dt * RealOf::<S>::from_i32(4) <= eps;
        let reach = Reach { motion, extra, eps, predicted, plane_ok, slow, radius: r };
        let near = if moving_boxes.is_empty() { None } else { Some(near_moving_dyn) };
        let kept = anchors.hold(k, x0, &reach, anchors_hold, near);
        if kept.is_some() {
            sc.kept[k] = epoch;
        }
        if let Some(kept) = kept
            && kept.lonely
        {
            // Nothing within the region: nothing to gather.
            sc.plane2[k] = if plane_ok { eps.min(kept.region).sq() } else { zero };
            sc.lonely2[k] = kept.region.sq();
            continue;
        }
        // The anchor and the margin the pairs are gathered for.
        let (x, margin) = match kept {
            Some(kept) => (anchors.pos[k], kept.region),
            None => (x0, motion + min_margin),
        };
        let reuse = eps.min(margin);
        sc.plane2[k] = if plane_ok { reuse.sq() } else { zero };
        let reach = margin + r + extra;
        let mv = VecOf::<S>::splat(reach);
        let q = Aabb { min: x - mv, max: x + mv };
        let last = sc.fat.last(k);
        let entry = sc.fat.entries[k];
        // Last step's pairs hold a moving collider that has left the query box since (one
        // still in it ended the anchor): gathered afresh, without it.
        let moved_away = !moving_boxes.is_empty() && last && {
            let old = entry.pairs_at as usize..(entry.pairs_at + entry.pairs_len) as usize;
            sc.pairs_prev.get(old).is_some_and(|ps| {
                ps.iter().any(|p| colliders.values[p.slot as usize].as_ref().is_some_and(|c| c.is_moving()))
            })
        };
        if kept.is_some() && last && entry.reach == reach && !moved_away {
            // The anchor's pairs as gathered last step: the same query box, the same
            // candidates, the same pairs.
            let start = sc.fat.carry(k);
            let pairs_at = sc.pairs.len() as u32;
            let old = entry.pairs_at as usize..(entry.pairs_at + entry.pairs_len) as usize;
            sc.pairs.extend_from_slice(&sc.pairs_prev[old]);
            let e = &mut sc.fat.entries[k];
            (e.at, e.epoch, e.pairs_at) = (start, epoch, pairs_at);
            sc.probes.push(Probe { particle: k as u32, pairs_end: sc.pairs.len() as u32, margin2: margin.sq() });
            continue;
        }
        let groups = ps.groups[k];
        let pairs_at = sc.pairs.len() as u32;
        // A query box clear of every bounded collider's box has no candidates: no query and
        // an empty list.
        let near_bounded = bounded_box.is_some_and(|b| b.overlaps(&q));
        let (start, end) = if near_bounded {
            let motion = ps.vel[k] * ahead;
            sc.fat.list(k, &q, motion, last, &near_moving, broad_phase, &mut sc.query_buf)
        } else {
            // An empty list, and a box that holds no query: the next gather queries.
            sc.fat.entries[k].bx = Aabb { min: x, max: x };
            (0, 0)
        };
        let e = &mut sc.fat.entries[k];
        (e.at, e.len, e.epoch, e.reach) = (start, end - start, epoch, reach);
        // The pairs to test in the substeps, with their clearance: the half-spaces, then
        // this step's candidates — the cached ones that overlap the query box, in the broad
        // phase's (sorted) order, exactly what a query with `q` returns. A collider farther
        // than the margin cannot be reached without first leaving the gathered region
        // (which re-queries), so it is dropped here. `consider` returns the clearance
        // (`MAX` for a collider the particle ignores, 0 for a moving one).
        let pairs = &mut sc.pairs;
        let mut consider = |(slot, moving): Live| {
            let Some((col, moving)) = live(colliders, slot, moving) else { return RealOf::<S>::MAX };
            if !groups.test(col.groups) {
                return RealOf::<S>::MAX;
            }
            if moving {
                pairs.push(Pair { slot, clear2: zero, normal: VecOf::<S>::ZERO, d: zero });
                return zero;
            }
            let local = col.rotation.inverse_rotate(x - col.position);
            let prox = closest(&col.shape, local);
            // Less a hair for the rounding in the distance query.
            let clear = prox.distance - r - RealOf::<S>::GEOMETRIC_EPSILON;
            // A plane only for a particle near the surface: one deeper in is pushed out
            // substep by substep, along the nearest surface at each. Only for a particle
            // that may use it (`plane2` > 0): a falling particle's pairs skip rotating the
            // normal.
            let planar = plane_ok & (prox.distance >= r - reuse);
            let normal = if planar { col.rotation.rotate(prox.normal) } else { VecOf::<S>::ZERO };
            let d = normal.dot(x) - (prox.distance - r);
            // Kept or not without a branch (which side a particle is on is hard to
            // predict): pushed, then cut off again when too far.
            let before = pairs.len();
            pairs.push(Pair { slot, clear2: clear.max(zero).sq(), normal, d });
            pairs.truncate(before + usize::from(clear <= margin));
            clear
        };
        // The least clearance of a half-space, and of a bounded collider less the extra
        // reach (for a particle left without pairs).
        let mut nearest = RealOf::<S>::MAX;
        for &u in &unbounded {
            nearest = nearest.min(consider(u));
        }
        for &b in &sc.fat.next[start as usize..end as usize] {
            let (col, bb) = bounded[b as usize];
            if bb.overlaps(&q) {
                nearest = nearest.min(consider(col) - extra);
            }
        }
        let pairs_end = sc.pairs.len() as u32;
        let e = &mut sc.fat.entries[k];
        (e.pairs_at, e.pairs_len) = (pairs_at, pairs_end - pairs_at);
        let lonely = pairs_end == pairs_at;
        let mut region = margin;
        if !lonely {
            sc.probes.push(Probe { particle: k as u32, pairs_end, margin2: margin.sq() });
        } else {
            sc.lonely2[k] = margin.sq();
            if kept.is_none() && nearest < zero {
                // No region at all (never kept: a rope particle whose spans reach a
                // collider it is itself clear of): nothing beyond to look for, and the
                // planes of this step's margin, as for a particle with pairs. (Its planes'
                // reuse used to be `min(ε, region)²` here, the square of a negative region
                // — a reuse distance beyond ε for its spans.)
                region = nearest;
            } else if kept.is_none() {
                // Nothing within the margin: the anchor's region reaches as far as the
                // colliders allow — the nearest half-space, and the bounded colliders less
                // the extra reach (the particle's rope spans lie within it, and a particle
                // that keeps such an anchor lists no candidates for them) — distance being
                // 1-Lipschitz. Beyond the query box: the box around every bounded collider
                // if the query box missed it, else the colliders a little farther out. An
                // anchor with a wide region lasts many steps for a falling or swinging
                // particle.
                let lonely_region = LonelyRegion {
                    x,
                    q,
                    radius: r,
                    extra,
                    margin,
                    motion,
                    groups,
                    entry: &sc.fat.entries[k],
                    listed: &sc.fat.next[start as usize..end as usize],
                    bounded: &bounded,
                    colliders,
                    bounded_box,
                    near_bounded,
                };
                let beyond = lonely_region.beyond(broad_phase, &mut sc.query_buf);
                region = nearest.min(beyond);
                if !near_bounded {
                    // (Beyond the margin on every side: this step may use it too.)
                    region = region.max(margin);
                    sc.lonely2[k] = region.sq();
                }
                // As when the anchor is kept: a function of the anchor alone.
                sc.plane2[k] = if plane_ok { eps.min(region).sq() } else { zero };
            }
        }
        if kept.is_none() {
            sc.regathered += 1;
            anchors.take(k, x, region, extra, plane_ok, lonely);
        }
    }
    (sc.unbounded, sc.bounded, sc.moving_boxes) = (unbounded, bounded, moving_boxes);
}

/// A collider of the broad phase's lists as the gathering sees it: its slot, and whether
/// it moves (`None`: the slot is not live).
pub(crate) type Live = (u32, Option<bool>);

/// A bounded collider as the gathering sees it, with its broad-phase box.
pub(crate) type Bounded<S> = (Live, Aabb<VecOf<S>>);

/// The collider of a [`Live`] entry, and whether it moves.
#[inline]
fn live<S: Space>(colliders: &Arena<Collider<S>>, slot: u32, moving: Option<bool>) -> Option<(&Collider<S>, bool)> {
    let moving = moving?;
    colliders.values[slot as usize].as_ref().map(|c| (c, moving))
}

/// What a fresh anchor with nothing within its margin needs to know to reach farther.
struct LonelyRegion<'a, S: Space> {
    x: VecOf<S>,
    q: Aabb<VecOf<S>>,
    radius: RealOf<S>,
    extra: RealOf<S>,
    margin: RealOf<S>,
    motion: RealOf<S>,
    groups: crate::particle::InteractionGroups,
    entry: &'a FatEntry<S>,
    listed: &'a [u32],
    bounded: &'a [Bounded<S>],
    colliders: &'a Arena<Collider<S>>,
    bounded_box: Option<Aabb<VecOf<S>>>,
    near_bounded: bool,
}

impl<S: Space> LonelyRegion<'_, S> {
    /// How far the region may reach beyond the query box (see the caller).
    fn beyond(&self, broad_phase: &mut BroadPhase<VecOf<S>>, query_buf: &mut Vec<u32>) -> RealOf<S> {
        let zero = RealOf::<S>::ZERO;
        let Self { x, q, radius: r, extra, margin, motion, groups, .. } = *self;
        let pad = RealOf::<S>::from_ratio(LONELY_PAD.0, LONELY_PAD.1);
        if self.near_bounded && motion >= pad {
            // Too fast to keep an anchor whose region reaches `pad` farther.
            return margin;
        }
        if !self.near_bounded {
            return self.bounded_box.map_or(RealOf::<S>::MAX, |b| {
                let out = (b.min - x).max_elem(x - b.max);
                (0..S::DIM).fold(zero, |m, i| m.max(out.get(i))) - r - extra - RealOf::<S>::GEOMETRIC_EPSILON
            });
        }
        // The colliders whose boxes overlap the query box grown by `LONELY_PAD`, and that
        // box's boundary: the cached list holds them if its box holds that one, else a
        // query finds them — the same set either way, so the region is a function of the
        // state.
        let g = Aabb { min: q.min - VecOf::<S>::splat(pad), max: q.max + VecOf::<S>::splat(pad) };
        let cached = self.entry.bx.contains::<RealOf<S>>(&g);
        if !cached {
            broad_phase.query::<RealOf<S>>(&g, query_buf);
        }
        let listed = if cached { self.listed } else { &query_buf[..] };
        // (Less a hair for the rounding of the boxes, as the distance queries'.)
        let mut m = margin + pad - RealOf::<S>::GEOMETRIC_EPSILON;
        for &b in listed {
            let ((slot, moving), bb) = self.bounded[b as usize];
            if !bb.overlaps(&g) || bb.overlaps(&q) {
                continue;
            }
            m = m.min(match live(self.colliders, slot, moving) {
                Some((col, moving)) if groups.test(col.groups) => {
                    if moving {
                        zero
                    } else {
                        let local = col.rotation.inverse_rotate(x - col.position);
                        closest(&col.shape, local).distance - r - RealOf::<S>::GEOMETRIC_EPSILON - extra
                    }
                }
                _ => RealOf::<S>::MAX,
            });
        }
        m
    }
}
