//! Aimed strikes: where a blow lands on the head, how the limb gets there, and when it
//! touches.
//!
//! # The aim (seed 001: "no two hits look alike")
//!
//! The head of the target is the capsule from its neck node to its head node (radius
//! `r`, the head node's). With `û = (head − neck)/|head − neck|` and `ô` the unit direction
//! from the axis toward the attacker (the attacker's shoulder with its `û` component
//! removed, one Gram–Schmidt step), the **chin** and the **temple** are the points of the
//! capsule's surface that face the attacker at fractions `c` and `t` of the neck–head
//! segment,
//!
//! ```text
//! chin   = neck + c·(head − neck) + r·ô          temple = neck + t·(head − neck) + r·ô
//! ```
//!
//! ([`AimDef::chin`] 0.35, [`AimDef::temple`] 1 by default: the chin 10 cm below the
//! head node's centre, the temple level with it; both on the capsule's cylinder, so the
//! surface normal at every aim is `ô`). An aim is a fraction `s ∈ [0, 1]` along
//! chin → temple, drawn from an [`AimDistribution`] (uniform, or any distribution given by
//! its quantile function as a table), and in 3D a lateral offset `ℓ` uniform in
//! `[−spread, spread]` along `l̂ = ô × û`. The point is recomputed from the head's particles
//! every frame, so it moves with the head (and the strike leads it by the head's velocity
//! times the frame, so that it is there when the head is):
//!
//! ```text
//! aim = chin + s·(temple − chin) + ℓ·l̂
//! ```
//!
//! # The generator
//!
//! [`FightRng`] is xorshift64* (Vigna 2016) seeded through SplitMix64: its state is one
//! `u64`, a draw is integer shifts, xors and one wrapping multiply, and a uniform scalar is
//! the top 24 bits over `2²⁴` (`Real::from_i32(k) / Real::from_i32(2²⁴)`, exact in `f32`,
//! `f64` and Q32.32). No float ever enters the state, so a fixed-point bout draws the same
//! aims on every machine, and a snapshot restores the generator with the bout.
//!
//! # Reaching (two-bone IK)
//!
//! A strike follows its keyframed path (its move's pose track on the pose drive) until
//! the strike window opens with the aim within the limb's reach `l₁ + l₂` (plus a margin)
//! of its root (shoulder or hip). It then switches to IK: [`aim_ik`] solves the two-bone
//! chain from the root to the goal (law of cosines, bend side from the current middle
//! joint; see [`crate::ik`]), and the effector (fist or foot particle) is driven toward the
//! IK end as a **kinematic target** at the strike's speed `v`: each frame it moves `v·dt`
//! toward it (a punch follows through: it does not slow down at the goal, so the blow lands
//! at full speed, and the contact sweep finds where it touched). The goal is the aim point pushed out by the
//! effector's radius along `ô`, so the effector's surface meets the aim point.
//!
//! # Contact
//!
//! A blow is detected by sweeping the effector's sphere (radius `r_f`) along its motion of
//! the frame, `x(τ) = x₀ + τ(x₁ − x₀)`, against capsules (segment `ab`, radius `r`):
//! [`sweep_capsule`] returns the first `τ` with `dist(x(τ), ab) ≤ r + r_f`, found by 32
//! equal steps and 16 bisections (so no blow tunnels through a head at any speed), and the
//! contact point on the effector's surface `x(τ) + r_f·n̂`, with `n̂` toward the capsule's
//! axis. Most capsules a strike is swept against are far from its path (a fighter's
//! every bone, each frame); one whose box lies farther than `r + r_f` from the path's box
//! on some axis (with a margin well beyond rounding) cannot be touched, and is answered
//! `None` before the 32 steps, as the steps would have answered it.

use crate::SinewError;
use crate::collider::closest_on_segment;
use crate::ik::two_bone;
use crate::math::{Real, Vector};
use crate::state::{SavedState, StateHasher, saved_state};

/// The integer generator of the aims (xorshift64*, see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FightRng {
    state: u64,
}

impl SavedState for FightRng {
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(self.state);
    }
}

impl FightRng {
    /// A generator from any seed (mixed by SplitMix64, so seeds 0, 1, 2 … differ well).
    #[must_use]
    pub fn new(seed: u64) -> Self {
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        Self { state: if z == 0 { 0x2545_f491_4f6c_dd1d } else { z } }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `0..n` (0 when `n` is 0), by the multiply-shift range reduction.
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }

    /// Uniform in `[0, 1)` on a grid of `2⁻²⁴`.
    pub fn unit<R: Real>(&mut self) -> R {
        let k = (self.next_u64() >> 40) as i32;
        R::from_i32(k) / R::from_i32(1 << 24)
    }

    /// Uniform in `[lo, hi)`.
    pub fn range<R: Real>(&mut self, lo: R, hi: R) -> R {
        lo + (hi - lo) * self.unit::<R>()
    }
}

/// The distribution of the aim along chin → temple (`s ∈ [0, 1]`).
#[derive(Clone, Debug, PartialEq)]
pub enum AimDistribution<R> {
    /// Uniform on `[0, 1]`.
    Uniform,
    /// Given by its quantile function: `n ≥ 2` non-decreasing values in `[0, 1]` at equal
    /// steps of probability `0, 1/(n−1), …, 1`, interpolated linearly (a piecewise-uniform
    /// density).
    Quantiles(Vec<R>),
}

impl<R: Real> SavedState for AimDistribution<R> {
    fn hash_state(&self, h: &mut StateHasher) {
        match self {
            Self::Uniform => h.write_u64(0),
            Self::Quantiles(q) => {
                h.write_u64(1);
                q.hash_state(h);
            }
        }
    }
    fn heap_bytes(&self) -> usize {
        match self {
            Self::Uniform => 0,
            Self::Quantiles(q) => q.heap_bytes(),
        }
    }
}

impl<R: Real> AimDistribution<R> {
    /// Checks a quantile table (see [`AimDistribution::Quantiles`]).
    pub fn validate(&self) -> Result<(), SinewError> {
        let Self::Quantiles(q) = self else { return Ok(()) };
        if q.len() < 2 {
            return Err(bad("aim quantiles", "need at least 2 values"));
        }
        if q.iter().any(|v| !v.is_finite()) {
            return Err(SinewError::NonFinite { what: "aim quantiles" });
        }
        if q.iter().any(|&v| v < R::ZERO || v > R::ONE) || q.windows(2).any(|w| w[1] < w[0]) {
            return Err(bad("aim quantiles", "must be non-decreasing values in [0, 1]"));
        }
        Ok(())
    }

    /// The quantile of probability `u ∈ [0, 1]`.
    #[must_use]
    pub fn quantile(&self, u: R) -> R {
        let u = u.clamp(R::ZERO, R::ONE);
        match self {
            Self::Uniform => u,
            Self::Quantiles(q) if q.len() >= 2 => {
                let n = i32::try_from(q.len() - 1).unwrap_or(i32::MAX);
                let x = u * R::from_i32(n);
                let mut k = 0usize;
                while k + 2 < q.len() && R::from_i32(i32::try_from(k + 1).unwrap_or(i32::MAX)) <= x {
                    k += 1;
                }
                let f = x - R::from_i32(i32::try_from(k).unwrap_or(i32::MAX));
                q[k] + (q[k + 1] - q[k]) * f.clamp(R::ZERO, R::ONE)
            }
            Self::Quantiles(_) => u,
        }
    }

    /// The cumulative distribution function at `s` (the inverse of [`Self::quantile`];
    /// for the goodness-of-fit test of the hit points).
    #[must_use]
    pub fn cdf(&self, s: R) -> R {
        match self {
            Self::Uniform => s.clamp(R::ZERO, R::ONE),
            Self::Quantiles(q) if q.len() >= 2 => {
                let n = R::from_i32(i32::try_from(q.len() - 1).unwrap_or(i32::MAX));
                if s <= q[0] {
                    return R::ZERO;
                }
                for k in 0..q.len() - 1 {
                    if s < q[k + 1] {
                        let f = (s - q[k]).safe_div(q[k + 1] - q[k], R::ZERO);
                        return (R::from_i32(i32::try_from(k).unwrap_or(i32::MAX)) + f) / n;
                    }
                }
                R::ONE
            }
            Self::Quantiles(_) => s.clamp(R::ZERO, R::ONE),
        }
    }
}

/// Where strikes aim on a head (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct AimDef<R> {
    /// The distribution of `s` along chin → temple.
    pub distribution: AimDistribution<R>,
    /// Half-width (m) of the uniform lateral spread (3D only). Default 0.02.
    pub spread: R,
    /// Fraction of the neck → head segment at the chin. Default 0.35.
    pub chin: R,
    /// Fraction of the neck → head segment at the temple, ≤ 1 (on the capsule's
    /// cylinder, where the surface normal is `ô`). Default 1 (the head node's height).
    pub temple: R,
}

saved_state!(impl[R: Real] AimDef<R> { distribution, spread, chin, temple });

impl<R: Real> Default for AimDef<R> {
    fn default() -> Self {
        Self {
            distribution: AimDistribution::Uniform,
            spread: R::from_ratio(1, 50),
            chin: R::from_ratio(35, 100),
            temple: R::ONE,
        }
    }
}

impl<R: Real> AimDef<R> {
    /// Checks the settings.
    pub fn validate(&self) -> Result<(), SinewError> {
        self.distribution.validate()?;
        for (what, v) in [("aim spread", self.spread), ("aim chin", self.chin), ("aim temple", self.temple)] {
            if !v.is_finite() {
                return Err(SinewError::NonFinite { what });
            }
        }
        if self.spread < R::ZERO {
            return Err(bad("aim spread", "must be ≥ 0"));
        }
        if self.temple <= self.chin || self.chin < R::ZERO || self.temple > R::ONE {
            return Err(bad("aim temple", "need 0 ≤ chin < temple ≤ 1"));
        }
        Ok(())
    }

    /// Draws an aim.
    pub fn sample(&self, rng: &mut FightRng) -> AimPoint<R> {
        let along = self.distribution.quantile(rng.unit::<R>());
        let lateral = rng.range(-self.spread, self.spread);
        AimPoint { along, lateral }
    }
}

/// An aim on a head: `along ∈ [0, 1]` from chin to temple and a lateral offset (m).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct AimPoint<R> {
    /// Fraction from chin (0) to temple (1).
    pub along: R,
    /// Lateral offset (m, 3D).
    pub lateral: R,
}

saved_state!(impl[R: Real] AimPoint<R> { along, lateral });

/// Chin, temple and the directions of a head facing an attacker (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeadFrame<V> {
    /// The chin point (on the surface, facing the attacker).
    pub chin: V,
    /// The temple point.
    pub temple: V,
    /// Unit direction from the head's axis toward the attacker.
    pub out: V,
    /// Unit lateral direction (3D; zero in 2D).
    pub side: V,
}

impl<V> HeadFrame<V> {
    /// The frame of the head capsule `neck → head` (radius `r`) facing `toward`, with the
    /// lateral direction from `lateral(axis, out)`. `None` if the capsule is degenerate
    /// or `toward` lies on its axis.
    pub fn new<R: Real>(neck: V, head: V, r: R, toward: V, def: &AimDef<R>, lateral: impl Fn(V, V) -> V) -> Option<Self>
    where
        V: Vector<R>,
    {
        let axis = head - neck;
        let u = axis.normalize_or_zero();
        if u == V::ZERO {
            return None;
        }
        let mid = neck + axis * def.chin.lerp_to(def.temple);
        let d = toward - mid;
        let o = (d - u * d.dot(u)).normalize_or_zero();
        if o == V::ZERO {
            return None;
        }
        Some(Self {
            chin: neck + axis * def.chin + o * r,
            temple: neck + axis * def.temple + o * r,
            out: o,
            side: lateral(u, o),
        })
    }

    /// The world point of an aim.
    pub fn point<R: Real>(&self, aim: AimPoint<R>) -> V
    where
        V: Vector<R>,
    {
        self.chin + (self.temple - self.chin) * aim.along + self.side * aim.lateral
    }

    /// The fraction along chin → temple of the projection of `p` (unclamped).
    pub fn along<R: Real>(&self, p: V) -> R
    where
        V: Vector<R>,
    {
        let d = self.temple - self.chin;
        (p - self.chin).dot(d).safe_div(d.length_squared(), R::ZERO)
    }
}

/// The midpoint helper of [`HeadFrame::new`].
trait Mid: Sized {
    fn lerp_to(self, o: Self) -> Self;
}

impl<R: Real> Mid for R {
    fn lerp_to(self, o: Self) -> Self {
        (self + o) * R::HALF
    }
}

/// The two-bone IK pose `(mid, end)` of a limb from `root` to `goal` (bone lengths `l1`,
/// `l2`; bend toward the current middle joint `mid`, or `fallback_bend` when it lies on
/// the line): the end on the goal when reachable, straight toward it otherwise.
pub fn aim_ik<R: Real, V: Vector<R>>(root: V, mid: V, goal: V, l1: R, l2: R, fallback_bend: V) -> (V, V) {
    let (dir, dist) = (goal - root).normalize_and_length();
    if dir == V::ZERO {
        return (mid, root);
    }
    let m = mid - root;
    let mut bend = (m - dir * m.dot(dir)).normalize_or_zero();
    if bend == V::ZERO {
        bend = (fallback_bend - dir * fallback_bend.dot(dir)).normalize_or_zero();
    }
    if bend == V::ZERO {
        bend = dir.any_orthogonal().normalize_or_zero();
    }
    two_bone(root, dir, dist, bend, l1, l2)
}

/// The first touch of a swept sphere on a capsule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepHit<R, V> {
    /// Fraction of the sweep at the touch.
    pub t: R,
    /// The sphere's centre at the touch.
    pub centre: V,
    /// The contact point on the sphere's surface, toward the capsule's axis.
    pub point: V,
    /// Unit normal from the capsule's axis toward the sphere.
    pub normal: V,
}

/// The first touch of a sphere of radius `rf` moving from `from` to `to` on the capsule
/// `ab` of radius `r` (see the module docs); `None` if it stays clear.
pub fn sweep_capsule<R: Real, V: Vector<R>>(from: V, to: V, rf: R, a: V, b: V, r: R) -> Option<SweepHit<R, V>> {
    let reach = r + rf;
    // Boxes apart on some axis by more than the reach: no point of the path is within
    // it (module docs). A negative reach is left to the steps (they square it).
    let margin = reach + reach * R::from_ratio(1, 64) + R::from_ratio(1, 1000);
    let (lo_p, hi_p) = (from.min_elem(to), from.max_elem(to));
    let (lo_c, hi_c) = (a.min_elem(b), a.max_elem(b));
    if reach >= R::ZERO && (0..V::DIM).any(|i| lo_p.get(i) - hi_c.get(i) > margin || lo_c.get(i) - hi_p.get(i) > margin)
    {
        return None;
    }
    let inside = |t: R| {
        let x = from + (to - from) * t;
        (x - closest_on_segment(x, a, b).0).length_squared() <= reach * reach
    };
    let steps = 32;
    let (mut lo, mut hi) = (R::ZERO, None);
    if inside(R::ZERO) {
        hi = Some(R::ZERO);
    } else {
        for k in 1..=steps {
            let t = R::from_ratio(k, steps);
            if inside(t) {
                hi = Some(t);
                lo = R::from_ratio(k - 1, steps);
                break;
            }
        }
    }
    let mut hi = hi?;
    if hi > R::ZERO {
        for _ in 0..16 {
            let m = (lo + hi) * R::HALF;
            if inside(m) {
                hi = m;
            } else {
                lo = m;
            }
        }
    }
    let centre = from + (to - from) * hi;
    let (q, _) = closest_on_segment(centre, a, b);
    let mut normal = (centre - q).normalize_or_zero();
    if normal == V::ZERO {
        normal = (from - to).normalize_or_zero();
    }
    Some(SweepHit { t: hi, centre, point: centre - normal * rf, normal })
}

fn bad(what: &'static str, reason: &'static str) -> SinewError {
    SinewError::InvalidParameter { what, reason, value: None }
}

/// Where an effector at `x` heads for a goal `goal` on a surface of outward normal `out`:
/// straight to the goal once it is in front of it (inside the cone of half-angle 30°
/// about `out` from the goal), else to the point `back` in front of the goal first — so
/// the last part of every strike comes in along `−out` and the first touch is at the goal
/// (see the module docs).
pub fn approach<R: Real, V: Vector<R>>(x: V, goal: V, out: V, back: R) -> V {
    let e = x - goal;
    let a = e.dot(out);
    let lateral = (e - out * a).length();
    // tan 30° ≈ 0.577
    if a > R::ZERO && lateral <= a * R::from_ratio(577, 1000) { goal } else { goal + out * back }
}
