//! 3D joint limit for particle skeletons: a swing cone plus a twist range.
//!
//! A particle skeleton has no rotations, only bones between particles, so orientation
//! comes from *reference particles*: one rigidly tied to the parent bone and one to the
//! child bone (the frame particles of a Jakobsen-style ragdoll: shoulders for the chest,
//! hips for the pelvis, a side particle for a forearm).
//!
//! **Swing.** With the parent bone `u = x_b − x_a` and the child bone `v = x_c − x_b`,
//! the swing is the angle between them, `θ = atan2(|u × v|, u · v)`. Beyond the cone
//! half-angle the constraint is `C = θ − θ_max` with
//!
//! ```text
//! ∂θ/∂v = −(û − cosθ·v̂) / (|v|·sinθ),   ∂θ/∂u = −(v̂ − cosθ·û) / (|u|·sinθ)
//! ∇_c = ∂θ/∂v,  ∇_a = −∂θ/∂u,  ∇_b = ∂θ/∂u − ∂θ/∂v
//! ```
//!
//! **Twist.** With `P = r_p − x_b` and `Q = r_c − x_b` (joint to the parent and child
//! reference particles), the parent reference is made perpendicular to the parent bone and
//! carried onto the child bone by the swing, the shortest rotation `R` taking `û` to `v̂`
//! (about `û × v̂`, by `θ`):
//!
//! ```text
//! p  = P − û (û · P)                                  (⊥ û)
//! p′ = R p = p − ((v̂ · p) / s) (û + v̂),   s = 1 + û · v̂   (⊥ v̂, |p′| = |p|)
//! φ  = atan2(Q · (v̂ × p′), Q · p′)                     in (−π, π]
//! ```
//!
//! (`R` is the reflection in the plane normal to `û + v̂` followed by the reflection in the
//! plane normal to `v̂`; for `p ⊥ û` the product reduces to the line above.) `Q`'s
//! component along `v̂` drops out of both dot products, so the child reference needs no
//! projection. This is the twist of the swing-twist decomposition about the child bone:
//! `φ` is what is left of the child's rotation relative to the parent once the bone's swing
//! is undone along the shortest arc. The shortest arc is singular only at `θ = 180°`
//! (`s = 0`), the direction opposite the cone's axis, so a cone keeps the limit away from
//! it; the twist counts as undefined (and is not projected) where `s ≤ 1/64`, a swing above
//! about 170°, or where `p′` or the component of `Q` across `v̂` vanishes.
//!
//! `φ` depends on all five particles (through `û`, `v̂`, `P` and `Q`), and the projection
//! uses its exact gradient with respect to each. In reverse mode, from `x = Q · p′` and
//! `y = Q · (v̂ × p′)`, `r² = x² + y²`, `gₓ = −y/r²`, `g_y = x/r²`:
//!
//! ```text
//! ∂φ/∂Q  = gₓ p′ + g_y (v̂ × p′)
//! ḡ_p′   = gₓ Q + g_y (Q × v̂),          ḡ_v̂ = g_y (p′ × Q)        (direct terms)
//! t = (v̂ · p)/s,  η = ḡ_p′ · (û + v̂)
//! ḡ_p    = ḡ_p′ − (η/s) v̂
//! ḡ_v̂   += (η/s)(t û − p) − t ḡ_p′
//! ḡ_û    = (η t/s) v̂ − t ḡ_p′ − (û · P) ḡ_p − (û · ḡ_p) P
//! ∂φ/∂P  = ḡ_p − û (û · ḡ_p)
//! ∂φ/∂u  = (ḡ_û − û (û · ḡ_û)) / |u|,   ∂φ/∂v = (ḡ_v̂ − v̂ (v̂ · ḡ_v̂)) / |v|
//!
//! ∇_a = −∂φ/∂u,  ∇_c = ∂φ/∂v,  ∇_{r_p} = ∂φ/∂P,  ∇_{r_c} = ∂φ/∂Q,
//! ∇_b = ∂φ/∂u − ∂φ/∂v − ∂φ/∂P − ∂φ/∂Q
//! ```
//!
//! [`SwingTwistLimit::twist_gradient`] computes these; `tests/suite/swing_twist.rs` checks them
//! against central differences. Outside the range the constraint is `C = δ − h` above it
//! and `C = δ + h` below it, with `h` half the range and `δ` the deviation of `φ` from the
//! range's middle taken the short way round the circle, and the XPBD update is
//!
//! ```text
//! Δλ = (−C − α̃ λ) / (Σᵢ wᵢ |∇ᵢ|² + α̃),   Δxᵢ = wᵢ ∇ᵢ Δλ,   α̃ = α / h²
//! ```
//!
//! with the accumulated `λ` kept on the side that pushes `φ` back into the range.
//!
//! **Why the exact gradient matters.** `φ` does not change when the five particles are
//! moved or turned together, so `Σ ∇ᵢ = 0` and `Σ xᵢ × ∇ᵢ = 0`: the correction conserves
//! linear and angular momentum. Being along the gradient, it is the direction of an ideal
//! joint's constraint force, and the projection stops the motion that violates the limit
//! (an inelastic stop) without adding energy. A correction that moves only the reference
//! particles and the joint (the gradient with the bones held still) ignores how `φ` turns
//! with the bone directions; that error grows with the swing, and at the 95–110° cones of
//! a shoulder or hip it does work on the body: a tumbling `humanoid3d` with shoulder and
//! hip twist limits gained energy with it, and gains none with the exact gradient
//! (`tests/suite/swing_twist.rs`).

use super::{JointLimit, SubstepContext, xpbd_delta_lambda};
use crate::dim::Space3;
use crate::math::{Real, Vector, Vector3};
use crate::particle::{ParticleHandle, ParticleSet};

/// Definition of a swing-cone + twist limit.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct SwingTwistLimitDef<R> {
    /// Start of the parent bone.
    pub a: ParticleHandle,
    /// The joint.
    pub b: ParticleHandle,
    /// End of the child bone.
    pub c: ParticleHandle,
    /// Cone half-angle (rad) in `(0, π]`; π = no swing limit.
    pub swing_max: R,
    /// Reference particle rigidly attached to the parent bone (for twist); `None` = no
    /// twist limit.
    pub parent_ref: Option<ParticleHandle>,
    /// Reference particle rigidly attached to the child bone (for twist).
    pub child_ref: Option<ParticleHandle>,
    /// Twist range (rad), `-π ≤ min ≤ max ≤ π`.
    pub twist_min: R,
    /// Twist range end (rad).
    pub twist_max: R,
    /// Compliance; 0 = hard limit.
    pub compliance: R,
}

impl<R: Real> SwingTwistLimitDef<R> {
    /// A hard swing cone of half-angle `swing_max` (rad) for the bone `b–c` about the bone
    /// `a–b`, without a twist limit.
    #[must_use]
    pub fn new(a: ParticleHandle, b: ParticleHandle, c: ParticleHandle, swing_max: R) -> Self {
        Self {
            a,
            b,
            c,
            swing_max,
            parent_ref: None,
            child_ref: None,
            twist_min: -R::PI,
            twist_max: R::PI,
            compliance: R::ZERO,
        }
    }
    /// Sets the compliance (rad/(N·m); 0 = hard).
    #[must_use]
    pub fn compliance(mut self, compliance: R) -> Self {
        self.compliance = compliance;
        self
    }
    /// Adds a twist limit `[min, max]` (rad), measured between the reference particles
    /// `parent_ref` (beside the parent bone) and `child_ref` (beside the child bone).
    #[must_use]
    pub fn twist(mut self, parent_ref: ParticleHandle, child_ref: ParticleHandle, min: R, max: R) -> Self {
        (self.parent_ref, self.child_ref, self.twist_min, self.twist_max) =
            (Some(parent_ref), Some(child_ref), min, max);
        self
    }
}

/// A swing-cone + twist limit (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SwingTwistLimit<R> {
    pub(crate) idx: [u32; 3],
    pub(crate) refs: Option<[u32; 2]>,
    /// Cone half-angle (rad).
    pub swing_max: R,
    /// Twist minimum (rad).
    pub twist_min: R,
    /// Twist maximum (rad).
    pub twist_max: R,
    /// Compliance.
    pub compliance: R,
    pub(crate) lambda_swing: R,
    pub(crate) lambda_twist: R,
}

crate::state::saved_state!(impl[R: Real] SwingTwistLimit<R> { idx, refs, swing_max, twist_min, twist_max, compliance, lambda_swing, lambda_twist });

impl<R: Real> SwingTwistLimit<R> {
    /// Swing angle (rad) between the parent and child bones.
    #[must_use]
    pub fn swing(xa: Vector3<R>, xb: Vector3<R>, xc: Vector3<R>) -> R {
        let u = xb - xa;
        let v = xc - xb;
        u.cross(v).length().atan2(u.dot(v))
    }

    /// Twist angle (rad) in `(−π, π]`, or `None` when it is undefined (see the module docs:
    /// a bone or reference vector of zero length, or a swing within about 10° of 180°).
    #[must_use]
    pub fn twist(xa: Vector3<R>, xb: Vector3<R>, xc: Vector3<R>, rp: Vector3<R>, rc: Vector3<R>) -> Option<R> {
        TwistForward::new(xa, xb, xc, rp, rc).map(|f| f.phi)
    }

    /// Twist angle `φ` and its exact gradient with respect to the five particles it depends
    /// on, in the order `[a, b, c, parent_ref, child_ref]` (see the module docs for the
    /// derivation). The gradients sum to zero and `Σ xᵢ × ∇ᵢ = 0`: `φ` does not change
    /// when the five particles are moved or turned together. `None` when the twist is
    /// undefined (as for [`Self::twist`]).
    #[must_use]
    pub fn twist_gradient(
        xa: Vector3<R>,
        xb: Vector3<R>,
        xc: Vector3<R>,
        rp: Vector3<R>,
        rc: Vector3<R>,
    ) -> Option<(R, [Vector3<R>; 5])> {
        TwistForward::new(xa, xb, xc, rp, rc).map(|f| (f.phi, f.gradient()))
    }

    /// Signed twist error: how far `φ` is outside `[twist_min, twist_max]` (0 inside),
    /// measured the short way round the circle from the middle of the range.
    fn twist_error(&self, phi: R) -> R {
        let two_pi = R::PI + R::PI;
        let mid = (self.twist_min + self.twist_max) * R::HALF;
        let half = (self.twist_max - self.twist_min) * R::HALF;
        let mut d = phi - mid;
        if d > R::PI {
            d -= two_pi;
        } else if d <= -R::PI {
            d += two_pi;
        }
        if d > half {
            d - half
        } else if d < -half {
            d + half
        } else {
            R::ZERO
        }
    }

    /// Projects the swing row; returns the two bones' directions and lengths when it
    /// measured them and moved nothing (the twist row then reuses them: the same
    /// positions, the same operations).
    fn solve_swing(&mut self, p: &mut ParticleSet<Space3<R>>, ctx: &SubstepContext<R>) -> Option<Bones<R>> {
        if self.swing_max >= R::PI {
            return None;
        }
        let [a, b, c] = self.idx.map(|i| i as usize);
        let u = p.pos[b] - p.pos[a];
        let v = p.pos[c] - p.pos[b];
        let (uh, lu) = u.normalize_and_length();
        let (vh, lv) = v.normalize_and_length();
        if lu == R::ZERO || lv == R::ZERO {
            return None;
        }
        let cos = uh.dot(vh);
        let sin = uh.cross(vh).length();
        let theta = sin.atan2(cos);
        let cval = theta - self.swing_max;
        if cval <= R::ZERO || sin <= R::GEOMETRIC_EPSILON {
            return Some(Bones { uh, lu, vh, lv });
        }
        let dv = -(uh - vh * cos) / (lv * sin);
        let du = -(vh - uh * cos) / (lu * sin);
        let (ga, gb, gc) = (-du, du - dv, dv);
        let (wa, wb, wc) = (p.inv_mass[a], p.inv_mass[b], p.inv_mass[c]);
        let w_grad2 = wa * ga.length_squared() + wb * gb.length_squared() + wc * gc.length_squared();
        let alpha_t = self.compliance * ctx.inv_h2;
        let mut dl = xpbd_delta_lambda(cval, w_grad2, self.lambda_swing, alpha_t, R::ZERO, R::ZERO);
        if self.lambda_swing + dl > R::ZERO {
            dl = -self.lambda_swing;
        }
        self.lambda_swing += dl;
        p.pos[a] += ga * (wa * dl);
        p.pos[b] += gb * (wb * dl);
        p.pos[c] += gc * (wc * dl);
        None
    }

    /// Projects the twist row; `bones`: the bones as the swing row measured them, if the
    /// particles have not moved since.
    fn solve_twist(&mut self, p: &mut ParticleSet<Space3<R>>, ctx: &SubstepContext<R>, bones: Option<Bones<R>>) {
        let Some(refs) = self.refs else { return };
        let [a, b, c] = self.idx.map(|i| i as usize);
        let [rp, rc] = refs.map(|i| i as usize);
        let ids = [a, b, c, rp, rc];
        // The angle first: within the range (the usual case) the gradient is not needed.
        let bones = bones.or_else(|| Bones::new(p.pos[a], p.pos[b], p.pos[c]));
        let Some(fwd) = bones.and_then(|bones| TwistForward::from_bones(bones, p.pos[b], p.pos[rp], p.pos[rc])) else {
            return;
        };
        let cval = self.twist_error(fwd.phi);
        if cval == R::ZERO {
            return;
        }
        let grads = fwd.gradient();
        let mut w_grad2 = R::ZERO;
        for (&i, g) in ids.iter().zip(&grads) {
            w_grad2 += p.inv_mass[i] * g.length_squared();
        }
        let alpha_t = self.compliance * ctx.inv_h2;
        let mut dl = xpbd_delta_lambda(cval, w_grad2, self.lambda_twist, alpha_t, R::ZERO, R::ZERO);
        // One-sided: the multiplier keeps the sign that pushes φ back into the range.
        let nl = self.lambda_twist + dl;
        if (cval < R::ZERO && nl < R::ZERO) || (cval > R::ZERO && nl > R::ZERO) {
            dl = -self.lambda_twist;
        }
        self.lambda_twist += dl;
        for (&i, g) in ids.iter().zip(&grads) {
            let wi = p.inv_mass[i];
            p.pos[i] += *g * (wi * dl);
        }
    }
}

/// The forward pass of [`SwingTwistLimit::twist_gradient`]: the twist angle and what its
/// reverse pass (the gradient) reuses, so that a limit within its range pays for the angle
/// only. The same operations in the same order as computing both at once.
struct TwistForward<R: Real> {
    phi: R,
    uh: Vector3<R>,
    lu: R,
    vh: Vector3<R>,
    lv: R,
    pr: Vector3<R>,
    qr: Vector3<R>,
    s: R,
    pu: R,
    p: Vector3<R>,
    w: Vector3<R>,
    t: R,
    pp: Vector3<R>,
    e2: Vector3<R>,
    x: R,
    y: R,
    r2: R,
}

/// The parent bone `u = x_b − x_a` and the child bone `v = x_c − x_b` as unit vectors and
/// lengths (both lengths non-zero).
#[derive(Clone, Copy)]
struct Bones<R: Real> {
    uh: Vector3<R>,
    lu: R,
    vh: Vector3<R>,
    lv: R,
}

impl<R: Real> Bones<R> {
    fn new(xa: Vector3<R>, xb: Vector3<R>, xc: Vector3<R>) -> Option<Self> {
        let (uh, lu) = (xb - xa).normalize_and_length();
        let (vh, lv) = (xc - xb).normalize_and_length();
        if lu == R::ZERO || lv == R::ZERO {
            return None;
        }
        Some(Self { uh, lu, vh, lv })
    }
}

impl<R: Real> TwistForward<R> {
    fn new(xa: Vector3<R>, xb: Vector3<R>, xc: Vector3<R>, rp: Vector3<R>, rc: Vector3<R>) -> Option<Self> {
        Self::from_bones(Bones::new(xa, xb, xc)?, xb, rp, rc)
    }

    fn from_bones(bones: Bones<R>, xb: Vector3<R>, rp: Vector3<R>, rc: Vector3<R>) -> Option<Self> {
        let Bones { uh, lu, vh, lv } = bones;
        let (pr, qr) = (rp - xb, rc - xb);
        // The swing's shortest arc is singular at 180°; 1 + cos θ = 1/64 is a swing of ≈ 170°.
        let s = R::ONE + uh.dot(vh);
        if s <= R::from_ratio(1, 64) {
            return None;
        }
        // Forward: p ⊥ û, carried to p′ ⊥ v̂; φ = atan2(Q·(v̂ × p′), Q·p′).
        let pu = uh.dot(pr);
        let p = pr - uh * pu;
        let w = uh + vh;
        let t = vh.dot(p) / s;
        let pp = p - w * t;
        let e2 = vh.cross(pp);
        let (x, y) = (qr.dot(pp), qr.dot(e2));
        let r2 = x * x + y * y;
        let eps2 = R::GEOMETRIC_EPSILON * R::GEOMETRIC_EPSILON;
        if pp.length_squared() <= eps2 || r2 <= eps2 * pp.length_squared() {
            return None;
        }
        let phi = y.atan2(x);
        Some(Self { phi, uh, lu, vh, lv, pr, qr, s, pu, p, w, t, pp, e2, x, y, r2 })
    }

    /// The gradient of `φ` (reverse pass), in the order `[a, b, c, parent_ref, child_ref]`.
    fn gradient(&self) -> [Vector3<R>; 5] {
        let Self { uh, lu, vh, lv, pr, qr, s, pu, p, w, t, pp, e2, x, y, r2, .. } = *self;
        // Reverse: ∂φ/∂x = −y/r², ∂φ/∂y = x/r².
        let (gx, gy) = (-y / r2, x / r2);
        let g_q = pp * gx + e2 * gy;
        let g_pp = qr * gx + qr.cross(vh) * gy;
        let mut g_vh = pp.cross(qr) * gy;
        // p′ = p − t·w with t = (v̂·p)/s, s = 1 + û·v̂, w = û + v̂.
        let eta = g_pp.dot(w);
        let g_p = g_pp - vh * (eta / s);
        g_vh += (uh * t - p) * (eta / s) - g_pp * t;
        let mut g_uh = vh * (eta * t / s) - g_pp * t;
        // p = P − û(û·P).
        let g_pr = g_p - uh * uh.dot(g_p);
        g_uh -= g_p * pu + pr * uh.dot(g_p);
        // Unit vectors: ∂û/∂u = (I − ûûᵀ)/|u|.
        let g_u = (g_uh - uh * uh.dot(g_uh)) / lu;
        let g_v = (g_vh - vh * vh.dot(g_vh)) / lv;
        [-g_u, g_u - g_v - g_pr - g_q, g_v, g_pr, g_q]
    }
}

impl<R: Real> JointLimit<Space3<R>> for SwingTwistLimit<R> {
    type Def = SwingTwistLimitDef<R>;

    fn from_def(d: &Self::Def, p: &ParticleSet<Space3<R>>) -> Result<Self, crate::SinewError> {
        for h in [d.a, d.b, d.c] {
            p.check(h)?;
        }
        if d.a == d.b || d.b == d.c || d.a == d.c {
            return Err(crate::SinewError::InvalidParameter {
                what: "swing-twist limit",
                reason: "particles must differ",
                value: None,
            });
        }
        let finite = [d.swing_max, d.twist_min, d.twist_max, d.compliance].iter().all(|v| v.is_finite());
        if !finite {
            return Err(crate::SinewError::NonFinite { what: "swing-twist limit" });
        }
        if !(d.swing_max > R::ZERO)
            || d.twist_min > d.twist_max
            || d.twist_min < -R::PI
            || d.twist_max > R::PI
            || d.compliance < R::ZERO
        {
            return Err(crate::SinewError::InvalidParameter {
                what: "swing-twist limit",
                reason: "need 0 < swing_max, -π ≤ twist_min ≤ twist_max ≤ π, compliance ≥ 0",
                value: None,
            });
        }
        let refs = match (d.parent_ref, d.child_ref) {
            (Some(rp), Some(rc)) => {
                p.check(rp)?;
                p.check(rc)?;
                Some([rp.index() as u32, rc.index() as u32])
            }
            (None, None) => None,
            _ => {
                return Err(crate::SinewError::InvalidParameter {
                    what: "swing-twist limit",
                    reason: "a twist limit needs both reference particles",
                    value: None,
                });
            }
        };
        Ok(Self {
            idx: [d.a.index() as u32, d.b.index() as u32, d.c.index() as u32],
            refs,
            swing_max: d.swing_max,
            twist_min: d.twist_min,
            twist_max: d.twist_max,
            compliance: d.compliance,
            lambda_swing: R::ZERO,
            lambda_twist: R::ZERO,
        })
    }

    fn particle_indices(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.idx.iter().map(|&i| i as usize).collect();
        if let Some(r) = self.refs {
            v.extend(r.iter().map(|&i| i as usize));
        }
        v
    }

    fn violation(&self, p: &ParticleSet<Space3<R>>) -> R {
        let [a, b, c] = self.idx.map(|i| i as usize);
        let swing = Self::swing(p.pos[a], p.pos[b], p.pos[c]);
        let mut worst = (swing - self.swing_max).max(R::ZERO);
        if let Some([rp, rc]) = self.refs.map(|r| r.map(|i| i as usize))
            && let Some(phi) = Self::twist(p.pos[a], p.pos[b], p.pos[c], p.pos[rp], p.pos[rc])
        {
            worst = worst.max(self.twist_error(phi).abs());
        }
        worst
    }

    fn multipliers(&self) -> Vec<R> {
        vec![self.lambda_swing, self.lambda_twist]
    }
}

impl<R: Real> super::solver::JointLimitSolver<Space3<R>> for SwingTwistLimit<R> {
    fn solve(&mut self, p: &mut ParticleSet<Space3<R>>, ctx: &SubstepContext<R>) {
        let bones = self.solve_swing(p, ctx);
        self.solve_twist(p, ctx, bones);
    }

    fn reset(&mut self) {
        self.lambda_swing = R::ZERO;
        self.lambda_twist = R::ZERO;
    }
}
