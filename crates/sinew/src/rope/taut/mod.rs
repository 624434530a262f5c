//! The taut rope: a straight polyline that bends only round obstacles, for a rope pulled
//! tight (a grappling hook, a rope dragged round posts), and the switch between it and
//! the particle rope.
//!
//! # Why a second representation
//! A stretched particle rope wrapped round a post fights itself: corrections propagate
//! slowly along the chain, a corner falls between two particles, and every frame the
//! contact and the chain solve undo each other's work, so the rope jitters and slides
//! over corners whatever the iteration count. A taut rope has no such freedom to use: it
//! is the shortest path between its ends round the obstacles, and only its ends and its
//! contacts are state.
//!
//! # The path
//! Start end → contacts → end end. A contact is a feature of a collider (a corner of a
//! box or polygon, a ball, a capsule cap; see `taut/geometry.rs`) wrapped on a side. Between
//! contacts the rope is a straight span, the common tangent of the two features; at a
//! contact it follows the feature's arc. Contacts are gained by sweeping the end spans
//! over the features as the ends move and lost when the turn at a contact reverses
//! (`taut/wrap.rs`). A substep in which the ends' motion provably cannot change a contact
//! (every turn farther from reversing, every other feature farther from the end spans,
//! than the motion can reach) skips those stages (`taut/quiet.rs`), with the same result.
//!
//! # Holding: the length constraint
//! The path's length `ℓ = Σ spans + Σ r·θ` may not exceed the rope's length `L`. Its
//! gradient with respect to an end is the unit direction of that end's span (the arc's
//! change cancels the tangent's), so the taut rope acts on its ends as a distance
//! constraint to their pivots: a dynamic end swings from the last contact like a pendulum
//! (the grappling hook), and its multiplier is the rope's tension.
//!
//! With contacts the rope is split at them into a start side of length `a₀` and an end
//! side `a₁ = L − ℓ_inner − a₀`, each a max-distance constraint of its end to its pivot.
//! Rope slides round the contacts from one side to the other by the **capstan law**: with
//! `k = e^{Σ μᵢ θᵢ}` over the contacts, the sides' tensions satisfy `T_high ≤ k·T_low`,
//! else rope slips toward the high side until equality. In multiplier form
//! (`T ∝ C/w`, `C` a side's violation, `w` its end's inverse mass), a slip `δ` from the
//! start side to the end side solves
//!
//! ```text
//! (C₁ − δ)·w₀ = k·(C₀ + δ)·w₁   ⇒   δ = (C₁·w₀ − k·C₀·w₁) / (w₀ + k·w₁)
//! ```
//!
//! (a slack side, `C < 0`, gives its slack first). Frictionless (`k = 1`) this is one
//! constraint over the whole path: two masses over a post move as Atwood's machine, with
//! its tension `2g·m₀m₁/(m₀ + m₁)`. A pinned end (`w = 0`) holds any tension.
//!
//! **Direction of the correction (SHAKE).** An end is moved back to its length along its
//! span's direction *at the substep's start*, `d₀ = (x₀ − p₀)/|x₀ − p₀|` (`p₀` its pivot
//! then), by the distance `s` that makes the span `|x − p − s·d₀|` exactly as long as its
//! side allows — not along the span's current direction. This is SHAKE (Ryckaert,
//! Ciccotti and Berendsen 1977: the constraint force along the constraint's gradient at
//! the step's start), which with the position-based (symplectic Euler) prediction keeps
//! a swing's energy: projecting along the current direction instead, the usual
//! position-based projection, takes out of a pendulum a fraction of its energy
//! proportional to the substep (a 2 m, 20° swing lost 2.9 % per swing at 8 substeps and
//! 0.75 % at 32; with `d₀` it changes by under 0.01 % per swing from 1 to 32 substeps,
//! `rope_taut::the_grappling_hook_keeps_its_energy_per_swing_at_every_substep_count`).
//! Where `d₀` cannot reach the length (an end swung nearly a right angle in a substep:
//! `sin θ > 1 − C/|x − p|`) or outside a step (the switch's own solves), the current
//! direction is used. The pivots at a substep's start come from the path through the
//! contacts at the ends' start positions; in 3D, where that path is relaxed (contacts
//! slide along edges), a substep after the step's first takes them from the path its
//! predecessor's last iteration solved (before that iteration's correction), unless the
//! end contacts changed; without contacts an end's pivot is the other end's start.
//!
//! The rope's own mass is not simulated while taut (it is light next to what it holds):
//! its particles are laid along the path at the end of each step, with the velocity of
//! that motion.
//!
//! # Switching
//! [`TautMode::Auto`]: a slack rope goes taut when its string-pulled path (`taut/wrap.rs`) is at
//! least `L·(1 − 10⁻³)` long and no particle is more than 1 mm from where the path would
//! put it (so the switch moves nothing visibly), its interior particles are free (none
//! pinned, grabbed or attached) and weigh less than a tenth of its free ends. It goes slack
//! again when the path is shorter than `L·(1 − 5·10⁻³)` (hysteresis) or an interior
//! particle is grabbed: the particles are already on the path, with their velocities,
//! and the spare length makes them sag from there. [`TautMode::Always`] keeps the path
//! shortest whatever the slack (`L` is then a maximum); [`TautMode::Never`] (the default)
//! keeps the particle rope.
//!
//! # 3D
//! The same method with 3D features (`taut/solid.rs`): box and hull edges, on which a
//! contact slides to keep the path locally shortest (equal angles with the edge in and
//! out), balls wrapped on great-circle arcs and capsules on helices (`taut/path3.rs`),
//! and the sweep, unwrap and repair of `taut/wrap3.rs`. Limits: a rope over a capsule's
//! cap is wrapped on the cap's ball at one point of the axis, which can let a span cut the
//! capsule's side; an edge is sharp (moved out by the rope's radius), so a particle rope
//! lying round it is up to `0.3·r` from the taut path and the switch to taut may move it
//! that much (plus the 1 mm of 2D) where the path has a contact (in the open, 1 mm).

pub(crate) mod cache;
pub(crate) mod geometry;
pub(crate) mod path3;
pub(crate) mod quiet;
pub(crate) mod solid;
pub(crate) mod solve;
pub(crate) mod wrap;
pub(crate) mod wrap3;

use crate::arena::RawHandle;
use crate::collider::ColliderHandle;
use crate::math::Real;
use crate::state::{SavedState, StateHasher, saved_state};

/// When a rope uses the taut representation (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TautMode {
    /// Always the particle rope (the default).
    #[default]
    Never,
    /// Taut when pulled straight between obstacles, slack when rope is left over.
    Auto,
    /// Always taut: the shortest path, its length at most the rope's.
    Always,
}

impl SavedState for TautMode {
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(*self as u64);
    }
}

impl TautMode {
    /// The scene-file name: `"never"`, `"auto"` or `"always"`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Never => "never",
            Self::Auto => "auto",
            Self::Always => "always",
        }
    }
}

/// A contact of a taut rope: a collider's feature wrapped on a side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wrap<R> {
    pub(crate) collider: RawHandle,
    pub(crate) feature: u32,
    /// `+1`: the rope turns left (counter-clockwise) round it; `−1`: right.
    pub(crate) side: i32,
    /// Turn at the contact in its wrap direction (rad), continuous over laps.
    pub(crate) turn: R,
    /// 3D: where the contact sits along its edge or axis (`0…1`); 0 in 2D.
    pub(crate) at: R,
    /// 3D, round shapes: the unit normal of the plane the rope wraps in, oriented so that
    /// the rope turns positively about it (zero until first computed, and in 2D). It keeps
    /// the side of the wrap, as `side` does in 2D.
    pub(crate) normal: [R; 3],
}

saved_state!(impl[R: Real] Wrap<R> { collider, feature, side, turn, at, normal });

impl<R: Real> Wrap<R> {
    /// The collider wrapped.
    #[must_use]
    pub fn collider(&self) -> ColliderHandle {
        ColliderHandle(self.collider)
    }
    /// Which feature. 2D: vertex index of a box or polygon, cap 0/1 of a capsule, 0 of a
    /// ball. 3D: edge index of a box (`4·axis + signs`: the edge along local axis `axis`,
    /// bit 0 of `signs` the sign of the next axis, bit 1 of the one after) or of a hull
    /// (in the order of its edges), 0 of a ball or capsule.
    #[must_use]
    pub fn feature(&self) -> u32 {
        self.feature
    }
    /// 3D: where the contact sits along its edge or capsule axis, `0…1` (it slides to keep
    /// the path shortest); 0 in 2D.
    #[must_use]
    pub fn along(&self) -> R {
        self.at
    }
    /// 2D: `+1` when the rope turns left (counter-clockwise) round it, `−1` right; 0 in 3D.
    #[must_use]
    pub fn side(&self) -> i32 {
        self.side
    }
    /// How far the rope turns round it (rad; more than 2π for laps round a round post).
    #[must_use]
    pub fn turn(&self) -> R {
        self.turn
    }
}

/// A rope's taut state (part of [`super::Rope`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Taut<R> {
    /// The mode asked for.
    pub mode: TautMode,
    /// Whether the rope is taut now.
    pub active: bool,
    /// Contacts from start to end.
    pub wraps: Vec<Wrap<R>>,
    /// Rope on the start side of the first contact (m); meaningless without contacts.
    pub split: R,
    /// Per side (start, end), the multipliers summed over the step (tension read-out).
    pub lambda: [R; 2],
    /// Per side, the point the end's span left from at the substep's start (its pivot:
    /// the other end without contacts, else the first or last contact's touching point),
    /// for the length constraint's direction ("Holding" in the module docs). Set at each
    /// substep's start, `None` between steps; a working value, not state (a snapshot is
    /// taken between steps).
    pub pivots: Option<[[R; 3]; 2]>,
    /// 3D: the pivots of the path the last iteration solved, which the next substep of
    /// the same step starts from (so that it need not relax its start's path again);
    /// `None` between steps.
    pub carry: Option<[[R; 3]; 2]>,
}

// By hand rather than `saved_state!`: `pivots` and `carry` are `None` between steps,
// where a hash or a snapshot is taken, and hashing a `None` would change every rope's hash.
impl<R: Real> SavedState for Taut<R> {
    fn hash_state(&self, h: &mut StateHasher) {
        let Self { mode, active, wraps, split, lambda, pivots, carry } = self;
        mode.hash_state(h);
        active.hash_state(h);
        wraps.hash_state(h);
        split.hash_state(h);
        lambda.hash_state(h);
        for p in [pivots, carry].into_iter().flatten() {
            p.hash_state(h);
        }
    }
    fn heap_bytes(&self) -> usize {
        self.wraps.heap_bytes()
    }
    fn copy_from(&mut self, o: &Self) {
        let Self { mode, active, wraps, split, lambda, pivots, carry } = self;
        *mode = o.mode;
        *active = o.active;
        wraps.copy_from(&o.wraps);
        *split = o.split;
        *lambda = o.lambda;
        *pivots = o.pivots;
        *carry = o.carry;
    }
}

impl<R: Real> Taut<R> {
    /// Back to the particle rope (its particles stay where the path put them).
    pub(crate) fn leave(&mut self) {
        self.active = false;
        self.wraps.clear();
        self.lambda = [R::ZERO; 2];
        self.pivots = None;
        self.carry = None;
    }
}

/// The rope is taut when its string-pulled path is at least `L·(1 − 1/ENTER)` long.
pub(crate) const ENTER: i32 = 1000;
/// A taut rope goes slack when its path is shorter than `L·(1 − 1/LEAVE)`.
pub(crate) const LEAVE: i32 = 200;
/// Most distance (m, as a ratio) a particle may be moved by the switch to taut.
pub(crate) const MAX_SNAP: (i32, i32) = (1, 1000);
