//! Quiet substeps: a test, cheaper than the contact update it spares, that no contact of a
//! 2D taut rope can change in a substep.
//!
//! A substep's contact update (`taut/solve.rs`, `update_contacts`) unwraps, sweeps both ends
//! and repairs the end spans (`taut/wrap.rs`): about 12 k instructions among 50 colliders,
//! most of it finding that nothing changes — a swinging load moves a few millimetres a
//! substep while its end span stays clear of every other obstacle. The update reads the
//! path at four positions of the ends: the start at `s₀` (where the substep started) or
//! `s₁` (its prediction), the end at `e₁` or swept from `e₀` to `e₁`. The test bounds
//! what those can do from the path at `(s₁, e₁)` alone, which the update computes anyway,
//! and the motions `δₛ = |s₁ − s₀|`, `δₑ = |e₁ − e₀|`:
//!
//! - **Turns.** The direction of the span from a circle `(c, ρ)` to a point `p` at
//!   distance `D` from `c` (tangent length `T = √(D² − ρ²)`) is `atan2(p − c) ± asin(ρ/D)`,
//!   whose gradient in `p` is at most `(1 + |ρ|/T)/D`. Moving `p` by `δ` turns the span by
//!   at most `Δ = δ(1 + |ρ|/T)/D` with `D`, `T` taken at the nearest, `D − δ`. Every unwrap
//!   sees the end at `e₁`, so only the first contact's turn moves, by at most `Δₛ`; a
//!   contact whose turn exceeds `Δₛ` (and, on a sharp corner, stays below `π − Δₛ`) keeps
//!   it. Turns are continuous over laps, each counted from the contact's last turn to
//!   within a half turn: the first contact's is counted at `s₀` and at `s₁` alike while it
//!   lies more than `Δₛ` inside that half turn. A wrong-side test `(d_in + d_out) × ĥ · side < 0` moves by at most the chord
//!   `|d′ − d| ≤ Δₛ`. Consecutive contacts on one shape on opposite sides (an S-bend)
//!   depend on the contacts alone.
//! - **Sweeps.** A sweep adds a feature only when some span of it — from the pivot to a
//!   point between `e₀` and `e₁` — touches the feature's circle. Every such span lies
//!   within `δₚ + δₑ` of the reference end span (`δₚ` the pivot's travel: `|ρ|·Δₑ` along
//!   its circle, or `δₛ` when the pivot is the start), so a feature whose circle is
//!   farther than that from the reference span (plus the sweep's touching tolerance of
//!   `10⁻⁵` rad along the span, plus a rounding margin of 1 mm and `10⁻⁴` of the
//!   coordinates) cannot be added. The start's sweep likewise.
//! - **Repairs** see the path at `(s₁, e₁)` itself: the test asks the repair's own
//!   decision ([`super::wrap::detour`]) of every shape near the two end spans.
//!
//! Moving colliders near the path make the update repair every span: such substeps are
//! never quiet. A quiet substep keeps the path at `(s₁, e₁)` as the update would have
//! left it (every stage would have found nothing), so the two give the same numbers: the
//! turns' raw angles are the same and their laps the same (above), the split and the
//! pivots are computed the same way.

use super::Wrap;
use super::cache::ColliderCache;
use super::geometry::{Feature, Node, Path, cross};
use super::wrap::detour;
use crate::arena::Arena;
use crate::collider::{Aabb, Collider, closest_on_segment};
use crate::dim::BaseSpace;
use crate::math::{Real, Vector};
use crate::space::Space;

/// The sweeps' touching tolerance (rad), as `1/…` (see `first_hit` in `taut/wrap.rs`: a
/// feature up to `10⁻⁵` rad behind a span counts as touched), doubled.
const TOUCHING: i32 = 50_000;

/// Margin on angles (rad, as `1/…`) for the rounding of turns measured on reversed or
/// moved paths, well above `f32`'s.
const ANGLE_MARGIN: i32 = 10_000;

/// The ends' motion over the substep: where the start and the end were at its start.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EndsFrom<V> {
    pub s0: V,
    pub e0: V,
}

/// What a substep's contact update starts from: `wraps` the contacts, `nodes` and `path`
/// the path through them at the ends' predicted positions, `from` where the ends were,
/// `sharp` the rope's radius (a contact of that radius is a corner).
#[derive(Clone, Copy, Debug)]
pub(crate) struct QuietQuery<'a, V, R> {
    pub wraps: &'a [Wrap<R>],
    pub nodes: &'a [Node<V, R>],
    pub path: &'a Path<V, R>,
    pub from: EndsFrom<V>,
    pub sharp: R,
}

/// Whether the contact update of this substep would change nothing (see the module docs)
/// for the substep `query`; `near` holds the features near the end spans as last gathered
/// (per rope, `owner` the rope's end particles). Needs the cache valid for this step and
/// rope radius.
pub(crate) fn holds<S: Space + BaseSpace<Vector = V, Real = R>, R: Real, V: Vector<R>>(
    query: QuietQuery<'_, V, R>,
    cache: &mut ColliderCache<V, R>,
    colliders: &Arena<Collider<S>>,
    (near, owner): (&mut Near<V, R>, (u32, u32)),
) -> bool {
    let QuietQuery { wraps, nodes, path, from, sharp } = query;
    let n = wraps.len();
    if nodes.len() != n + 2 || path.ends.len() != n + 1 || path.turns.len() != n {
        return false;
    }
    let (s1, e1) = (nodes[0].center, nodes[n + 1].center);
    let EndsFrom { s0, e0 } = from;
    let (ds, de) = ((s1 - s0).length(), (e1 - e0).length());
    let size = |pts: &[V]| pts.iter().fold(R::ZERO, |m, p| (0..V::DIM).fold(m, |m, i| m.max(p.get(i).abs())));
    let size_ends = size(&[s0, s1, e0, e1]);
    let angle_margin = R::from_ratio(1, ANGLE_MARGIN);
    // How far the spans next to the ends can turn.
    let (Some(turn_s), Some(turn_e)) = (turn_bound(nodes[1], s1, ds), turn_bound(nodes[n], e1, de)) else {
        return false;
    };
    // Unwraps: every turn stays positive, a sharp one below a half turn, every contact on
    // its shape's side.
    for (i, &t) in path.turns.iter().enumerate() {
        let moves = if i == 0 { turn_s } else { R::ZERO } + angle_margin;
        let node = nodes[i + 1];
        if !(t > moves) || (node.rho.abs() <= sharp && !(t < R::PI - moves)) {
            return false;
        }
        // The first contact's turn is counted in laps from its last turn at `s₀` (by the
        // update's first unwrap) and at `s₁` (here): the same lap only while it stays
        // farther than `Δₛ` from the half turn where the count rounds the other way (a
        // start teleported round a post leaves its last turn far behind).
        if i == 0 && !((t - wraps[0].turn).abs() < R::PI - moves) {
            return false;
        }
        let h = node.hub - node.center;
        if h.length_squared() > R::GEOMETRIC_EPSILON * R::GEOMETRIC_EPSILON {
            let b = path.dirs[i] + path.dirs[i + 1];
            if !(cross(b, h.normalize_and_length().0) * node.side > moves) {
                return false;
            }
        }
    }
    if wraps.windows(2).any(|w| w[0].collider == w[1].collider && w[0].side != w[1].side) {
        return false;
    }
    // Sweeps and repairs of the two end spans. The end's pivot is the last contact's
    // touching point (it slides along the circle as the span turns) or the start.
    let pivot_e = if n > 0 { nodes[n].rho.abs() * turn_e } else { ds };
    let pivot_s = if n > 0 { nodes[1].rho.abs() * turn_s } else { R::ZERO };
    let spans = [(0, pivot_s + ds, wraps.first()), (n, pivot_e + de, wraps.last())];
    let spans = if n == 0 { &spans[..1] } else { &spans[..] };
    // Per end span: its ends, direction and length, how far a feature must stay, its own
    // contact, and the box its features are gathered from.
    let mut tests = [None, None];
    for (k, &(j, reach, own)) in spans.iter().enumerate() {
        // (With no contact the one span is both ends': it must stay clear of both motions.)
        let reach = if n == 0 { reach.max(pivot_e + de) } else { reach };
        let (a, b) = path.ends[j];
        let (d, len) = (b - a).normalize_and_length();
        if !(len > R::GEOMETRIC_EPSILON) {
            return false;
        }
        // (At least the repair's margin for its boxes, whose size counts the span's ends.)
        let margin = R::from_ratio(1, 1000) + size_ends.max(size(&[a, b])) * R::from_ratio(1, 10_000);
        let clear = reach + (len + reach) / R::from_i32(TOUCHING) + margin;
        let pad = V::splat(clear + sharp);
        let bounds = Aabb { min: a.min_elem(b) - pad, max: a.max_elem(b) + pad };
        tests[k] = Some((j, (a, b), (d, len), clear, own.map(|w| (w.collider, w.feature)), bounds));
    }
    let lists = near.slot(owner).lists(owner, cache, colliders, tests.map(|t| t.map(|t| t.5)));
    tests.iter().zip(lists).all(|(test, features)| {
        let Some((j, (a, b), (d, len), clear, own, _)) = *test else { return true };
        // Every feature but the span's own contact clear of every span the sweep can draw.
        let clear_of_all = features.iter().all(|f| {
            Some((f.collider, f.index)) == own || {
                let (q, _) = closest_on_segment(f.center, a, b);
                (f.center - q).length() - f.radius > clear
            }
        });
        // The repair's decision, shape by shape (the features come grouped by collider).
        clear_of_all
            && features.chunk_by(|x, y| x.collider == y.collider).all(|g| detour(a, (d, len), g, wraps, j).is_none())
    })
}

/// How far (m, as `1/…`) on every side beyond the box a substep asks for the features
/// near an end span are gathered (Box2D's fat boxes): an end that moves less than that in
/// a step gathers once per step (the collider cache is rebuilt every step) instead of at
/// every substep.
const FAT_PAD: i32 = 10;

/// Ropes whose features near their end spans are kept at once ([`Near`]); more taut ropes
/// than this in a world take turns and gather more often.
const NEAR_SLOTS: usize = 8;

/// The features near the end spans of the last few ropes tested, a [`NearSlot`] each.
#[derive(Clone, Debug, Default)]
pub(crate) struct Near<V, R> {
    slots: Vec<NearSlot<V, R>>,
    /// The slot taken next when a rope has none (the oldest).
    next: usize,
}

impl<V, R> Near<V, R> {
    /// The slot of the rope `owner` (the oldest one when it has none).
    fn slot(&mut self, owner: (u32, u32)) -> &mut NearSlot<V, R> {
        let k = match self.slots.iter().position(|s| s.owner.is_some_and(|(o, _)| o == owner)) {
            Some(k) => k,
            None if self.slots.len() < NEAR_SLOTS => {
                self.slots.push(NearSlot { owner: None, fat: [None, None], lists: [Vec::new(), Vec::new()] });
                self.slots.len() - 1
            }
            None => {
                let k = self.next;
                self.next = (k + 1) % NEAR_SLOTS;
                k
            }
        };
        &mut self.slots[k]
    }
}

/// The features near a rope's two end spans, gathered for boxes padded by [`FAT_PAD`]
/// and reused while the box a substep asks for stays inside (a superset of the features
/// is as good for the test: every test on a feature is one it must pass, and a shape
/// outside the repair's box is one it neither cuts nor straddles). Tied to the rope and to
/// the collider cache's build, so a new step gathers afresh.
#[derive(Clone, Debug, Default)]
struct NearSlot<V, R> {
    owner: Option<((u32, u32), u64)>,
    fat: [Option<Aabb<V>>; 2],
    lists: [Vec<Feature<V, R>>; 2],
}

impl<R: Real, V: Vector<R>> NearSlot<V, R> {
    /// The features near the boxes `bounds` (`None`: no such span) for the rope `owner`.
    fn lists<S: Space + BaseSpace<Vector = V, Real = R>>(
        &mut self,
        owner: (u32, u32),
        cache: &mut ColliderCache<V, R>,
        colliders: &Arena<Collider<S>>,
        bounds: [Option<Aabb<V>>; 2],
    ) -> [&[Feature<V, R>]; 2] {
        let key = Some((owner, cache.generation()));
        if self.owner != key {
            self.owner = key;
            self.fat = [None, None];
        }
        let pad = V::splat(R::from_ratio(1, FAT_PAD));
        let mut stale = [false; 2];
        for k in 0..2 {
            let Some(b) = bounds[k] else { continue };
            if self.fat[k].is_some_and(|f| f.contains::<R>(&b)) {
                continue;
            }
            stale[k] = true;
            self.fat[k] = Some(Aabb { min: b.min - pad, max: b.max + pad });
            self.lists[k].clear();
        }
        for (k, list) in self.lists.iter_mut().enumerate() {
            if let (true, Some(b)) = (stale[k], self.fat[k]) {
                cache.gather(colliders, &b, list, |_, _| {});
            }
        }
        [&self.lists[0], &self.lists[1]]
    }
}

/// How far (rad) the direction of the span between `node` and a point `p` can turn while
/// the point moves by `delta` (see the module docs); `None` when the point may come within
/// the node's circle.
fn turn_bound<R: Real, V: Vector<R>>(node: Node<V, R>, p: V, delta: R) -> Option<R> {
    let rho = node.rho.abs();
    let d = (p - node.center).length() - delta;
    let t2 = d * d - rho * rho;
    if !(d > R::GEOMETRIC_EPSILON && t2 > R::GEOMETRIC_EPSILON * R::GEOMETRIC_EPSILON) {
        return None;
    }
    Some(delta * (R::ONE + rho / t2.sqrt()) / d)
}

#[cfg(test)]
thread_local! {
    /// Tests only: whether a quiet substep also runs the whole update on a copy and
    /// records whether the two agree (`tests` below), and the tally (agreed, disagreed,
    /// agreed with contacts and a moving start).
    static CHECK: core::cell::Cell<(bool, u64, u64, u64)> = const { core::cell::Cell::new((false, 0, 0, 0)) };
}

/// Tests only: whether quiet substeps are checked against the whole update.
#[cfg(test)]
pub(crate) fn checking() -> bool {
    CHECK.with(|c| c.get().0)
}

/// Tests only: a quiet substep's result agreed with the whole update's (or not);
/// `moved` whether it had contacts and its start moved.
#[cfg(test)]
pub(crate) fn record(agreed: bool, moved: bool) {
    CHECK.with(|c| {
        let (on, a, d, m) = c.get();
        let m = m + u64::from(agreed && moved);
        c.set(if agreed { (on, a + 1, d, m) } else { (on, a, d + 1, m) });
    });
}

#[cfg(test)]
mod tests {
    use super::{CHECK, turn_bound};
    use crate::collider::{ColliderDef, Shape};
    use crate::math::{Real, Rot2, Vector, Vector2};
    use crate::particle::ParticleDef;
    use crate::rope::taut::geometry::{Node, tangent};
    use crate::rope::{RopeDef, TautMode};
    use crate::space::Space2;
    use crate::world::{World, WorldDef};

    /// A small deterministic generator (xorshift) for the scene and the kicks.
    struct Rng(u64);
    impl Rng {
        fn range(&mut self, lo: f64, hi: f64) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            lo + (hi - lo) * ((self.0 >> 11) as f64 / (1u64 << 53) as f64)
        }
    }

    /// Runs a load swinging on a taut rope among boxes, balls, capsules and triangles,
    /// kicked at random, and a second rope whose end a hand drags about, with every quiet
    /// substep checked against the whole update; returns (quiet substeps that agreed,
    /// those that did not, those that agreed with contacts and a moving start, substeps
    /// in all).
    fn swing_among_shapes<R: Real>(seed: u64, frames: usize) -> (u64, u64, u64, u64) {
        let v = |x: f64, y: f64| Vector2::<R>::from_f64(x, y);
        let mut rng = Rng(seed);
        // (8 substeps, the default.)
        let mut w = World::<Space2<R>>::new(WorldDef::default().substeps(8)).unwrap();
        for i in 0..4 {
            for j in 0..3 {
                let c = v(-2.25 + 1.5 * i as f64, -1.5 + 1.5 * j as f64);
                let s = rng.range(0.1, 0.3);
                let shape = match (i + j) % 4 {
                    0 => Shape::cuboid(v(s, 0.7 * s)).unwrap(),
                    1 => Shape::ball(R::from_f64(s)).unwrap(),
                    2 => Shape::capsule(v(-s, 0.0), v(s, 0.0), R::from_f64(0.4 * s)).unwrap(),
                    _ => Shape::convex(&[v(-s, -s), v(s, -0.5 * s), v(0.0, s)]).unwrap(),
                };
                let rot = Rot2::from_angle(R::from_f64(rng.range(0.0, 3.0)));
                w.add_collider(&ColliderDef::new(shape).position(c).rotation(rot)).unwrap();
            }
        }
        let load = w.add_particle(&ParticleDef::at(v(-0.75, -2.6)).mass(R::from_f64(5.0)).radius(R::from_f64(0.05)));
        let load = load.unwrap();
        let swing = RopeDef::between(v(-0.75, 2.6), v(-0.75, -2.6)).segments(50).pin_start().attach_end(load);
        w.add_rope(&swing.taut(TautMode::Always)).unwrap();
        // Both ends driven, fast: the start's turn bound and the sweeps' clearance count.
        let dragged = RopeDef::along(vec![v(3.2, 2.8), v(3.2, -2.8)]).segments(40).pin_start().pin_end();
        let h = w.add_rope(&dragged.taut(TautMode::Always)).unwrap();
        let hands = [w.rope(h).unwrap().start(), w.rope(h).unwrap().end()];
        let mut at = [(3.2, 2.8), (3.2, -2.8)];
        let mut vel = [(0.0, 0.0); 2];
        CHECK.with(|c| c.set((true, 0, 0, 0)));
        for f in 0..frames {
            if f % 20 == 0 {
                w.particles_mut().set_velocity(load, v(rng.range(-9.0, 9.0), rng.range(-3.0, 9.0))).unwrap();
                for v in &mut vel {
                    *v = (rng.range(-8.0, 8.0), rng.range(-8.0, 8.0));
                }
            }
            if f % 50 == 25 {
                // The start teleported (its contacts' last turns left behind).
                at[0] = (rng.range(-3.6, 3.6), rng.range(-3.0, 3.0));
                w.particles_mut().set_position(hands[0], v(at[0].0, at[0].1)).unwrap();
            }
            for k in 0..2 {
                at[k] = ((at[k].0 + vel[k].0 / 60.0).clamp(-3.6, 3.6), (at[k].1 + vel[k].1 / 60.0).clamp(-3.0, 3.0));
                w.particles_mut().set_kinematic_target(hands[k], v(at[k].0, at[k].1)).unwrap();
            }
            w.step(R::from_f64(1.0 / 60.0)).unwrap();
        }
        let (_, agreed, disagreed, moved) = CHECK.with(|c| c.replace((false, 0, 0, 0)));
        (agreed, disagreed, moved, (frames * 2 * 8) as u64)
    }

    #[test]
    fn a_quiet_substep_leaves_the_contacts_as_the_whole_update_does() {
        let runs = [
            ("f64", swing_among_shapes::<f64>(0x9e37_79b9_7f4a_7c15, 3000)),
            ("f64 b", swing_among_shapes::<f64>(0x2545_f491_4f6c_dd1d, 3000)),
            ("f32", swing_among_shapes::<f32>(7, 3000)),
            ("fixed", swing_among_shapes::<crate::Fx>(11, 1500)),
        ];
        for (name, (agreed, disagreed, moved, all)) in runs {
            assert_eq!(disagreed, 0, "{name}: {disagreed} quiet substeps would have changed the contacts");
            // (The test checks something only if most substeps are quiet, many of them
            // with contacts and a moving start.)
            assert!(agreed * 5 >= all * 4, "{name}: only {agreed} of {all} substeps quiet");
            assert!(moved * 4 >= all, "{name}: only {moved} of {all} quiet with contacts and a moving start");
        }
    }

    /// The bound on how far a span from a circle to a point turns as the point moves
    /// (module docs, "Turns"): over 100 000 random circles, points and moves, the
    /// tangent's direction never turns farther; and it is not loose by more than a few
    /// times where the move is small.
    #[test]
    fn a_span_to_a_moved_point_turns_no_farther_than_the_bound() {
        let mut rng = Rng(0x51_7cc1_b727_220a);
        let mut tightest = f64::MAX;
        for _ in 0..100_000 {
            let c = Vector2::<f64>::new(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0));
            let rho = if rng.range(0.0, 1.0) < 0.2 { 0.0 } else { rng.range(-0.5, 0.5) };
            let node = Node { center: c, rho, side: rho.signum(), hub: c };
            let a = rng.range(0.0, 6.3);
            let p = c + Vector2::new(a.cos(), a.sin()) * (rho.abs() + rng.range(0.01, 3.0));
            let delta = rng.range(0.0, 0.3);
            let Some(bound) = turn_bound(node, p, delta) else { continue };
            let b = rng.range(0.0, 6.3);
            let q = p + Vector2::new(b.cos(), b.sin()) * (delta * rng.range(0.0, 1.0).sqrt());
            let dir = |x: Vector2<f64>| tangent(c, rho, x, 0.0).unwrap().2;
            let (d0, d1) = (dir(p), dir(q));
            let turned = (d0.x * d1.y - d0.y * d1.x).atan2(d0.dot(d1)).abs();
            assert!(turned <= bound * (1.0 + 1e-9) + 1e-12, "turned {turned} > bound {bound}");
            if delta > 1e-3 && (q - p).length() > 0.9 * delta {
                tightest = tightest.min(bound / turned.max(1e-300));
            }
        }
        assert!(tightest < 3.0, "the bound is never within 3x of a turn ({tightest})");
    }

    /// A start teleported round a post between steps leaves its contact's last turn about
    /// a half turn from the new one: where the substep's start and prediction fall on the
    /// two sides of that half turn the update counts the turn a lap apart from the path at
    /// the prediction, so the substep is not quiet; a little farther inside it is.
    #[test]
    fn a_turn_a_half_turn_from_its_last_is_not_quiet() {
        use super::Near;
        use crate::rope::taut::Wrap;
        use crate::rope::taut::cache::ColliderCache;
        use crate::rope::taut::geometry::Path;
        use crate::rope::taut::wrap::nodes;
        let mut w = World::<Space2<f64>>::new(WorldDef::default()).unwrap();
        let post = w.add_collider(&ColliderDef::new(Shape::ball(0.3).unwrap())).unwrap();
        let colliders = &w.state.colliders;
        let mut cache = ColliderCache::default();
        cache.build(colliders, 0.01);
        let e1 = Vector2::new(0.0, -3.0);
        // From the start at the upper left over the post to the end below: wrapped right
        // (clockwise) round it.
        let wrap = |turn: f64| Wrap { collider: post.0, feature: 0, side: -1, turn, at: 0.0, normal: [0.0; 3] };
        let raw_at = |s: Vector2<f64>| {
            let mut ws = vec![wrap(0.0)];
            let mut ns = Vec::new();
            nodes::<Space2<f64>>(s, e1, &mut ws, colliders, 0.01, &mut ns);
            let mut path = Path::default();
            path.compute(&ns, |_| 0.0);
            path.turns[0]
        };
        let s1 = Vector2::new(-2.0, 1.0);
        let raw = raw_at(s1);
        assert!(raw > 0.5, "the rope turns {raw} rad at the post");
        let quiet_with = |last: f64, s0: Vector2<f64>| {
            let mut ws = vec![wrap(last)];
            let mut ns = Vec::new();
            nodes::<Space2<f64>>(s1, e1, &mut ws, colliders, 0.01, &mut ns);
            let mut path = Path::default();
            path.compute(&ns, |_| last);
            let mut near = Near::default();
            let query = super::QuietQuery {
                wraps: &ws,
                nodes: &ns,
                path: &path,
                from: super::EndsFrom { s0, e0: e1 },
                sharp: 0.01,
            };
            super::holds(query, &mut cache.clone(), colliders, (&mut near, (0, 1)))
        };
        let s0 = s1 + Vector2::new(0.0, 0.02);
        let pi = std::f64::consts::PI;
        // The last turn a half turn (and a hair) above the new one: the start's move of
        // 2 cm turns it far more than the hair.
        assert!(!quiet_with(raw + pi - 1e-3, s0), "a half turn from the last turn, quiet");
        assert!(!quiet_with(raw - pi + 1e-3, s0), "a half turn below the last turn, quiet");
        // Well inside the half turn, and with the start still: quiet.
        assert!(quiet_with(raw + 0.5, s0), "half a radian from the last turn, not quiet");
        assert!(quiet_with(raw, s1), "the start still, not quiet");
    }
}
