//! The branch world: handholds on branches and vines, gaps between branches, and the
//! ground, in 2D (x forward, y up).
//!
//! A [`Course`] is a list of handholds sorted by `x`, each on a branch (a segment) or at
//! the end of a vine, and a ground height. Courses come from a seed
//! ([`Course::generate`]: branches of varying length and pitch separated by gaps, some
//! handholds hanging from vines), from the handhold distribution of the learned
//! brachiation controller of Reda, Ling and van de Panne (SIGGRAPH 2022;
//! [`Course::learned`]: 30 handholds, 0.5–3 m apart, the line between consecutive ones
//! pitched within ±15°), or from explicit branches ([`Course::from_branches`]). All
//! randomness is the integer [`BrachRng`], so a seed gives the same course on every
//! machine and, in fixed point, bit for bit.
//!
//! A vine hangs from a short branch above a gap, its lower end (the handhold) 0.2–0.5 m
//! above the branch before the gap; in the character's world it is a rope of the rope
//! module ([`super::vine`]).

use super::rng::BrachRng;
use crate::SinewError;
use crate::math::{Real, Vector2};

/// What a handhold hangs from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandholdKind {
    /// A point on a branch segment.
    Branch,
    /// The lower end of a vine hanging from the point `top` of the handhold.
    Vine,
}

/// One handhold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Handhold<R: Real> {
    /// Where the hand holds (m).
    pub position: Vector2<R>,
    /// Branch point or vine end.
    pub kind: HandholdKind,
    /// The branch this handhold lies on (index into [`Course::branches`]), or the branch
    /// its vine hangs from.
    pub branch: usize,
    /// For a vine: where it hangs from (else equal to `position`).
    pub top: Vector2<R>,
}

/// A branch: a straight segment between two points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Branch<R: Real> {
    /// Back end (smaller x).
    pub a: Vector2<R>,
    /// Front end.
    pub b: Vector2<R>,
}

/// Parameters of a generated course (lengths in metres, angles in radians).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CourseDef<R: Real> {
    /// The course's seed.
    pub seed: u64,
    /// Length along x to fill (m).
    pub length: R,
    /// Branch length range.
    pub branch_length: [R; 2],
    /// Spacing of handholds along a branch.
    pub spacing: [R; 2],
    /// Gap between branches (horizontal, from the last handhold of one to the first of
    /// the next).
    pub gap: [R; 2],
    /// Largest pitch of a branch (rad).
    pub pitch: R,
    /// Height of the first branch, and the band the course stays in around it.
    pub height: R,
    /// Half-height of the band the branches stay in.
    pub band: R,
    /// Ground height.
    pub ground: R,
    /// One branch in `vine_every` ends in a vine (0: none).
    pub vine_every: u32,
    /// Vine length range.
    pub vine_length: [R; 2],
}

impl<R: Real> CourseDef<R> {
    /// Defaults for a gibbon-sized character (arm 0.7 m): branches 2–6 m, handholds
    /// 0.6–1.4 m apart, gaps 1.5–2.6 m, pitch up to 12°, a vine in every third gap.
    #[must_use]
    pub fn new(seed: u64, length: R) -> Self {
        let f = R::from_f64;
        Self {
            seed,
            length,
            branch_length: [f(2.0), f(6.0)],
            spacing: [f(0.6), f(1.4)],
            gap: [f(1.5), f(2.6)],
            pitch: f(0.21),
            height: f(6.0),
            band: f(1.5),
            ground: R::ZERO,
            vine_every: 3,
            vine_length: [f(0.3), f(0.8)],
        }
    }
}

/// A branch world (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Course<R: Real> {
    /// Handholds in course order (increasing x).
    pub handholds: Vec<Handhold<R>>,
    /// Branch segments.
    pub branches: Vec<Branch<R>>,
    /// Ground height (m).
    pub ground: R,
}

impl<R: Real> Course<R> {
    /// A course along `def.length` metres from `def.seed` (see the module docs).
    ///
    /// # Errors
    /// [`SinewError::InvalidParameter`] for a non-finite or non-positive length or
    /// ranges that are empty or negative.
    pub fn generate(def: &CourseDef<R>) -> Result<Self, SinewError> {
        let ok_range = |r: [R; 2]| r[0].is_finite() && r[1].is_finite() && r[0] > R::ZERO && !(r[1] < r[0]);
        if !def.length.is_finite() || !(def.length > R::ZERO) || def.length > R::from_i32(100_000) {
            return Err(SinewError::parameter(
                "course length",
                "must be finite, > 0 and at most 100 km",
                def.length.to_f64(),
            ));
        }
        for (what, r) in [
            ("branch length", def.branch_length),
            ("spacing", def.spacing),
            ("gap", def.gap),
            ("vine length", def.vine_length),
        ] {
            if !ok_range(r) {
                return Err(SinewError::parameter(what, "range must be finite, positive and ordered", r[0].to_f64()));
            }
        }
        if !def.pitch.is_finite() || def.pitch < R::ZERO || def.pitch > R::from_f64(1.2) {
            return Err(SinewError::parameter("pitch", "must be within [0, 1.2] rad", def.pitch.to_f64()));
        }
        let mut rng = BrachRng::new(def.seed);
        let mut course = Self { handholds: Vec::new(), branches: Vec::new(), ground: def.ground };
        let mut x = R::ZERO;
        let mut y = def.height;
        let mut gap_index = 0u32;
        while x < def.length {
            let len = rng.range(def.branch_length[0], def.branch_length[1]);
            let pitch = rng.range(-def.pitch, def.pitch);
            // Keep the course inside its band: pitch back toward the middle at the edges.
            let pitch = if y > def.height + def.band {
                -pitch.abs()
            } else if y < def.height - def.band {
                pitch.abs()
            } else {
                pitch
            };
            let dir = Vector2::new(pitch.cos(), pitch.sin());
            let a = Vector2::new(x, y);
            let b = a + dir * len;
            let bi = course.branches.len();
            course.branches.push(Branch { a, b });
            let mut t = R::ZERO;
            while t <= len {
                let p = a + dir * t;
                course.handholds.push(Handhold { position: p, kind: HandholdKind::Branch, branch: bi, top: p });
                t += rng.range(def.spacing[0], def.spacing[1]);
            }
            let last = course.handholds.last().map_or(a, |h| h.position);
            gap_index += 1;
            let mut gap = rng.range(def.gap[0], def.gap[1]);
            if def.vine_every > 0 && gap_index % def.vine_every == 0 {
                // A vine hanging over the middle of the gap from a short branch above it,
                // its end 0.2–0.5 m above the branch just left: the character reaches it
                // at the top of its flight (see the `vine` module).
                let vl = rng.range(def.vine_length[0], def.vine_length[1]);
                let rise = rng.range(R::from_f64(0.2), R::HALF);
                let top = last + Vector2::new(gap * R::HALF, vl + rise);
                let p = top - Vector2::new(R::ZERO, vl);
                course
                    .branches
                    .push(Branch { a: top - Vector2::new(R::HALF, R::ZERO), b: top + Vector2::new(R::HALF, R::ZERO) });
                course.handholds.push(Handhold { position: p, kind: HandholdKind::Vine, branch: bi + 1, top });
                gap = rng.range(def.gap[0], def.gap[1]) * R::HALF + R::HALF;
                x = p.x + gap;
                y = last.y + rng.range(-R::HALF, R::HALF);
            } else {
                x = last.x + gap;
                y = last.y + rng.range(-R::HALF, R::HALF);
            }
        }
        Ok(course)
    }

    /// The learned brachiation controller's distribution: `count` handholds, consecutive
    /// ones `0.5–3 m` apart along a line pitched uniformly within `±15°`, starting at
    /// `(0, height)`.
    #[must_use]
    pub fn learned(seed: u64, count: usize, height: R) -> Self {
        let mut rng = BrachRng::new(seed);
        let mut p = Vector2::new(R::ZERO, height);
        let mut course = Self { handholds: Vec::with_capacity(count), branches: Vec::new(), ground: R::ZERO };
        let max_pitch = R::PI / R::from_i32(12); // 15°
        for i in 0..count {
            if i > 0 {
                let d = rng.range(R::HALF, R::from_i32(3));
                let a = rng.range(-max_pitch, max_pitch);
                p += Vector2::new(a.cos(), a.sin()) * d;
            }
            course.handholds.push(Handhold { position: p, kind: HandholdKind::Branch, branch: i, top: p });
            let w = R::from_f64(0.15);
            course.branches.push(Branch { a: p - Vector2::new(w, R::ZERO), b: p + Vector2::new(w, R::ZERO) });
        }
        course
    }

    /// A course of explicit branches, each with handholds every `spacing` metres
    /// (from its back end `a`); the handholds are sorted by x.
    ///
    /// # Errors
    /// [`SinewError::InvalidParameter`] for a non-positive spacing, a non-finite point or
    /// more than 100 000 handholds.
    pub fn from_branches(branches: &[Branch<R>], spacing: R, ground: R) -> Result<Self, SinewError> {
        if !spacing.is_finite() || !(spacing > R::from_f64(0.05)) {
            return Err(SinewError::parameter("handhold spacing", "must be finite and > 5 cm", spacing.to_f64()));
        }
        let mut course = Self { handholds: Vec::new(), branches: Vec::new(), ground };
        for (bi, br) in branches.iter().enumerate() {
            if !(br.a.x.is_finite() && br.a.y.is_finite() && br.b.x.is_finite() && br.b.y.is_finite()) {
                return Err(SinewError::NonFinite { what: "branch point" });
            }
            let (a, b) = if br.b.x < br.a.x { (br.b, br.a) } else { (br.a, br.b) };
            course.branches.push(Branch { a, b });
            let d = b - a;
            let len = crate::math::Vector::length(d);
            let dir = crate::math::Vector::normalize_or_zero(d);
            let mut t = R::ZERO;
            loop {
                let p = a + dir * t.min(len);
                course.handholds.push(Handhold { position: p, kind: HandholdKind::Branch, branch: bi, top: p });
                if course.handholds.len() > 100_000 {
                    return Err(SinewError::parameter("handhold count", "at most 100 000", 100_000.0));
                }
                if !(t < len) {
                    break;
                }
                t += spacing;
            }
        }
        // Insertion sort by x (stable, deterministic, no float keys to total-order).
        let hs = &mut course.handholds;
        for i in 1..hs.len() {
            let mut j = i;
            while j > 0 && hs[j].position.x < hs[j - 1].position.x {
                hs.swap(j, j - 1);
                j -= 1;
            }
        }
        Ok(course)
    }
}
