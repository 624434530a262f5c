//! 2D joint angle limit: the signed bend at a joint stays within `[min, max]`.
//!
//! For a parent bone `a → b` and a child bone `b → c`, with `u = x_b − x_a` and
//! `v = x_c − x_b`, the joint angle is `θ = atan2(u × v, u · v)` (0 = straight,
//! counter-clockwise positive). Outside the range the constraint is `C = θ − θ_limit`,
//! `θ_limit` the end of the range **nearer round the circle** (`θ` taken 2π further
//! when that end lies across ±π: a joint folded past ±π goes back the way it came, not
//! round through straight), with gradients (`perp(w) = (−w_y, w_x)`)
//!
//! ```text
//! ∇_a θ =  perp(u)/|u|²
//! ∇_c θ =  perp(v)/|v|²
//! ∇_b θ = −∇_a θ − ∇_c θ
//! ```
//!
//! which sum to zero, so the limit conserves linear momentum. It is one-sided: the
//! accumulated multiplier is clamped so it can only push back toward the range.

use super::{JointLimit, LimitRow, SubstepContext, xpbd_delta_lambda};
use crate::dim::Space2;
use crate::math::{Real, Vector, Vector2};
use crate::particle::{ParticleHandle, ParticleSet};

/// Definition of a 2D angle limit.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct AngleLimitDef<R> {
    /// Start of the parent bone.
    pub a: ParticleHandle,
    /// The joint (end of the parent bone, start of the child bone).
    pub b: ParticleHandle,
    /// End of the child bone.
    pub c: ParticleHandle,
    /// Minimum signed angle (rad), in `[-π, π]`.
    pub min: R,
    /// Maximum signed angle (rad), in `[min, π]`.
    pub max: R,
    /// Compliance (rad/(N·m)); 0 = hard limit.
    pub compliance: R,
}

impl<R: Real> AngleLimitDef<R> {
    /// A hard limit keeping the signed angle at `b` between `a–b` and `b–c` in
    /// `[min, max]` (rad).
    #[must_use]
    pub fn new(a: ParticleHandle, b: ParticleHandle, c: ParticleHandle, min: R, max: R) -> Self {
        Self { a, b, c, min, max, compliance: R::ZERO }
    }
    /// Sets the compliance (rad/(N·m)).
    #[must_use]
    pub fn compliance(mut self, compliance: R) -> Self {
        self.compliance = compliance;
        self
    }
}

/// A 2D angle limit (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AngleLimit<R> {
    pub(crate) idx: [u32; 3],
    /// Minimum angle (rad).
    pub min: R,
    /// Maximum angle (rad).
    pub max: R,
    /// Compliance.
    pub compliance: R,
    pub(crate) lambda: R,
    /// `(cos, sin)` of `min` and `max`, and whether the range spans more than π: lets the
    /// common case (joint inside its range) be decided with two cross products instead of
    /// an `atan2`.
    pub(crate) min_dir: Vector2<R>,
    pub(crate) max_dir: Vector2<R>,
    pub(crate) wide: bool,
}

crate::state::saved_state!(impl[R: Real] AngleLimit<R> { idx, min, max, compliance, lambda, min_dir, max_dir, wide });

impl<R: Real> AngleLimit<R> {
    /// Signed joint angle (rad) for the given positions.
    #[must_use]
    pub fn angle(xa: Vector2<R>, xb: Vector2<R>, xc: Vector2<R>) -> R {
        let u = xb - xa;
        let v = xc - xb;
        u.cross(v).atan2(u.dot(v))
    }

    /// How far `θ ∈ (−π, π]` is outside `[min, max]`, measured to the **nearer** end round
    /// the circle: `(C, lower)` with `C = θ − θ_end` (`θ` shifted by 2π when the nearer
    /// end is reached across ±π), `lower` when that end is `min`; `None` inside. A joint
    /// folded past ±π (an elbow bent through the upper arm) is brought back the few
    /// degrees it went past, not turned the long way round through straight: measured
    /// plainly, an elbow limited to `[0, 150°]` and folded to 190° reads −170°, 170°
    /// below `min`, and its projection swung the forearm across 0.6 m in one substep.
    #[inline]
    fn outside_by(&self, theta: R) -> Option<(R, bool)> {
        let two_pi = R::PI + R::PI;
        if theta < self.min {
            let above = theta + two_pi - self.max;
            Some(if above < self.min - theta { (above, false) } else { (theta - self.min, true) })
        } else if theta > self.max {
            let below = theta - two_pi - self.min;
            Some(if -below < theta - self.max { (below, true) } else { (theta - self.max, false) })
        } else {
            None
        }
    }

    /// Projects a limit found outside its range (`u`, `v`: the bones; `dir`: the bend's
    /// direction `(u·v, u×v)`); bones shorter than the geometric epsilon are skipped.
    #[inline(never)]
    fn project(
        &mut self,
        p: &mut ParticleSet<Space2<R>>,
        ctx: &SubstepContext<R>,
        u: Vector2<R>,
        v: Vector2<R>,
        dir: Vector2<R>,
    ) {
        let [a, b, c] = self.idx.map(|i| i as usize);
        let (lu2, lv2) = (u.length_squared(), v.length_squared());
        let eps2 = R::GEOMETRIC_EPSILON * R::GEOMETRIC_EPSILON;
        if lu2 <= eps2 || lv2 <= eps2 {
            return;
        }
        let theta = dir.y.atan2(dir.x);
        // One-sided: λ ≥ 0 at the `min` end (C < 0), λ ≤ 0 at the `max` end (C > 0).
        let Some((cval, lower)) = self.outside_by(theta) else {
            return; // on the boundary within rounding
        };
        let ga = u.perp() / lu2;
        let gc = v.perp() / lv2;
        let gb = -(ga + gc);
        let (wa, wb, wc) = (p.inv_mass[a], p.inv_mass[b], p.inv_mass[c]);
        let w_grad2 = wa * ga.length_squared() + wb * gb.length_squared() + wc * gc.length_squared();
        let alpha_t = self.compliance * ctx.inv_h2;
        let mut dl = xpbd_delta_lambda(cval, w_grad2, self.lambda, alpha_t, R::ZERO, R::ZERO);
        let new_lambda = self.lambda + dl;
        if (lower && new_lambda < R::ZERO) || (!lower && new_lambda > R::ZERO) {
            dl = -self.lambda;
        }
        self.lambda += dl;
        p.pos[a] += ga * (wa * dl);
        p.pos[b] += gb * (wb * dl);
        p.pos[c] += gc * (wc * dl);
    }
}

impl<R: Real> JointLimit<Space2<R>> for AngleLimit<R> {
    type Def = AngleLimitDef<R>;

    fn from_def(d: &Self::Def, p: &ParticleSet<Space2<R>>) -> Result<Self, crate::SinewError> {
        for h in [d.a, d.b, d.c] {
            p.check(h)?;
        }
        if d.a == d.b || d.b == d.c || d.a == d.c {
            return Err(crate::SinewError::InvalidParameter {
                what: "angle limit",
                reason: "particles must differ",
                value: None,
            });
        }
        if !(d.min.is_finite() && d.max.is_finite() && d.compliance.is_finite()) {
            return Err(crate::SinewError::NonFinite { what: "angle limit" });
        }
        if d.min > d.max || d.min < -R::PI || d.max > R::PI || d.compliance < R::ZERO {
            return Err(crate::SinewError::InvalidParameter {
                what: "angle limit",
                reason: "need -π ≤ min ≤ max ≤ π and compliance ≥ 0",
                value: None,
            });
        }
        Ok(Self {
            idx: [d.a.index() as u32, d.b.index() as u32, d.c.index() as u32],
            min: d.min,
            max: d.max,
            compliance: d.compliance,
            lambda: R::ZERO,
            min_dir: Vector2::new(d.min.cos(), d.min.sin()),
            max_dir: Vector2::new(d.max.cos(), d.max.sin()),
            wide: d.max - d.min > R::PI,
        })
    }

    fn particle_indices(&self) -> Vec<usize> {
        self.idx.iter().map(|&i| i as usize).collect()
    }

    fn violation(&self, p: &ParticleSet<Space2<R>>) -> R {
        let [a, b, c] = self.idx.map(|i| i as usize);
        let theta = Self::angle(p.pos[a], p.pos[b], p.pos[c]);
        self.outside_by(theta).map_or(R::ZERO, |(c, _)| c.abs())
    }

    fn multipliers(&self) -> Vec<R> {
        vec![self.lambda]
    }
}

impl<R: Real> super::solver::JointLimitSolver<Space2<R>> for AngleLimit<R> {
    const DIRECT_ROWS: bool = true;

    /// The inside test is inlined into the world's sweep (most limits are within range in
    /// most substeps); the projection is an out-of-line call.
    #[inline]
    fn solve(&mut self, p: &mut ParticleSet<Space2<R>>, ctx: &SubstepContext<R>) {
        let [a, b, c] = self.idx.map(|i| i as usize);
        let (xa, xb, xc) = (p.pos[a], p.pos[b], p.pos[c]);
        let u = xb - xa;
        let v = xc - xb;
        // Inside the range (the usual case)? The bend's direction (u·v, u×v) lies between
        // the range's end directions: counter-clockwise of `min`, clockwise of `max`.
        // Both sides are evaluated, no short circuit: fewer branches. Degenerate bones are
        // only looked for when the joint is outside (the projection skips them); inside,
        // nothing is done either way.
        let dir = Vector2::new(u.dot(v), u.cross(v));
        let after_min = self.min_dir.cross(dir) >= R::ZERO;
        let before_max = dir.cross(self.max_dir) >= R::ZERO;
        let inside = if self.wide { after_min | before_max } else { after_min & before_max };
        if inside {
            return;
        }
        self.project(p, ctx, u, v, dir);
    }

    fn reset(&mut self) {
        self.lambda = R::ZERO;
    }

    fn violated_rows(&self, p: &ParticleSet<Space2<R>>, out: &mut Vec<LimitRow<Space2<R>>>) {
        let [a, b, c] = self.idx.map(|i| i as usize);
        let (u, v) = (p.pos[b] - p.pos[a], p.pos[c] - p.pos[b]);
        let (lu2, lv2) = (u.length_squared(), v.length_squared());
        let eps2 = R::GEOMETRIC_EPSILON * R::GEOMETRIC_EPSILON;
        if lu2 <= eps2 || lv2 <= eps2 {
            return;
        }
        let theta = u.cross(v).atan2(u.dot(v));
        let Some((cval, _)) = self.outside_by(theta) else { return };
        // The gradients of `project_outside`.
        let (ga, gc) = (u.perp() / lu2, v.perp() / lv2);
        let zero = Vector2::new(R::ZERO, R::ZERO);
        out.push(LimitRow {
            particles: [self.idx[0], self.idx[1], self.idx[2], 0, 0],
            gradients: [ga, -(ga + gc), gc, zero, zero],
            len: 3,
            c: cval,
            compliance: self.compliance,
            lambda: self.lambda,
        });
    }

    #[inline]
    fn outside(&self, p: &ParticleSet<Space2<R>>) -> bool {
        let [a, b, c] = self.idx.map(|i| i as usize);
        let (u, v) = (p.pos[b] - p.pos[a], p.pos[c] - p.pos[b]);
        let dir = Vector2::new(u.dot(v), u.cross(v));
        let after_min = self.min_dir.cross(dir) >= R::ZERO;
        let before_max = dir.cross(self.max_dir) >= R::ZERO;
        !(if self.wide { after_min | before_max } else { after_min & before_max })
    }

    fn add_row_lambda(&mut self, _part: usize, dl: R) {
        self.lambda += dl;
    }
}
