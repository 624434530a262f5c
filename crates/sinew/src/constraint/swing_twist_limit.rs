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
//! **Twist.** The parent reference vector `p` (from the joint to the parent reference
//! particle, made perpendicular to `û`) is carried onto the child bone by the shortest
//! rotation taking `û` to `v̂` (the swing), and compared with the child reference vector
//! `q` (perpendicular to `v̂`): `φ = atan2(v̂ · (p′ × q), p′ · q)`. Outside `[min, max]` the
//! correction turns the two reference particles about the child bone with gradients
//! `∇_{r_c} = (v̂ × q)/|q|²` and `∇_{r_p} = −(v̂ × p′)/|p′|²`, and `∇_b` balancing both so
//! that linear momentum is conserved.

use super::{JointLimit, SubstepContext, xpbd_delta_lambda};
use crate::math::{Quat, Real, Rotation, Vector, Vector3};
use crate::particle::{ParticleHandle, ParticleSet};
use crate::space::Space3;

/// Definition of a swing-cone + twist limit.
#[derive(Clone, Copy, Debug, PartialEq)]
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

impl<R: Real> SwingTwistLimit<R> {
    /// Swing angle (rad) between the parent and child bones.
    #[must_use]
    pub fn swing(xa: Vector3<R>, xb: Vector3<R>, xc: Vector3<R>) -> R {
        let u = xb - xa;
        let v = xc - xb;
        u.cross(v).length().atan2(u.dot(v))
    }

    /// Twist angle (rad), or `None` when a frame is degenerate.
    #[must_use]
    pub fn twist(xa: Vector3<R>, xb: Vector3<R>, xc: Vector3<R>, rp: Vector3<R>, rc: Vector3<R>) -> Option<R> {
        Self::twist_frame(xa, xb, xc, rp, rc).map(|f| f.0)
    }

    /// (φ, v̂, p′, q) for the twist projection.
    #[allow(clippy::type_complexity)]
    fn twist_frame(
        xa: Vector3<R>,
        xb: Vector3<R>,
        xc: Vector3<R>,
        rp: Vector3<R>,
        rc: Vector3<R>,
    ) -> Option<(R, Vector3<R>, Vector3<R>, Vector3<R>)> {
        let uh = (xb - xa).normalize_or_zero();
        let vh = (xc - xb).normalize_or_zero();
        if uh == Vector3::ZERO || vh == Vector3::ZERO {
            return None;
        }
        let p = rp - xb;
        let p = p - uh * p.dot(uh);
        let q = rc - xb;
        let q = q - vh * q.dot(vh);
        let swing = Quat::from_rotation_arc(uh, vh);
        let pp = swing.rotate(p);
        let pp = pp - vh * pp.dot(vh);
        let eps2 = R::GEOMETRIC_EPSILON * R::GEOMETRIC_EPSILON;
        if pp.length_squared() <= eps2 || q.length_squared() <= eps2 {
            return None;
        }
        let phi = vh.dot(pp.cross(q)).atan2(pp.dot(q));
        Some((phi, vh, pp, q))
    }

    fn solve_swing(&mut self, p: &mut ParticleSet<Space3<R>>, ctx: &SubstepContext<R>) {
        if self.swing_max >= R::PI {
            return;
        }
        let [a, b, c] = self.idx.map(|i| i as usize);
        let u = p.pos[b] - p.pos[a];
        let v = p.pos[c] - p.pos[b];
        let (uh, lu) = u.normalize_and_length();
        let (vh, lv) = v.normalize_and_length();
        if lu == R::ZERO || lv == R::ZERO {
            return;
        }
        let cos = uh.dot(vh);
        let sin = uh.cross(vh).length();
        let theta = sin.atan2(cos);
        let cval = theta - self.swing_max;
        if cval <= R::ZERO || sin <= R::GEOMETRIC_EPSILON {
            return;
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
    }

    fn solve_twist(&mut self, p: &mut ParticleSet<Space3<R>>, ctx: &SubstepContext<R>) {
        let Some([rp, rc]) = self.refs.map(|r| r.map(|i| i as usize)) else { return };
        let [a, b, c] = self.idx.map(|i| i as usize);
        let Some((phi, vh, pp, q)) = Self::twist_frame(p.pos[a], p.pos[b], p.pos[c], p.pos[rp], p.pos[rc]) else {
            return;
        };
        let (cval, lower) = if phi < self.twist_min {
            (phi - self.twist_min, true)
        } else if phi > self.twist_max {
            (phi - self.twist_max, false)
        } else {
            return;
        };
        let g_rc = vh.cross(q) / q.length_squared();
        let g_rp = -vh.cross(pp) / pp.length_squared();
        let g_b = -(g_rc + g_rp);
        let (wrp, wrc, wb) = (p.inv_mass[rp], p.inv_mass[rc], p.inv_mass[b]);
        let w_grad2 = wrc * g_rc.length_squared() + wrp * g_rp.length_squared() + wb * g_b.length_squared();
        let alpha_t = self.compliance * ctx.inv_h2;
        let mut dl = xpbd_delta_lambda(cval, w_grad2, self.lambda_twist, alpha_t, R::ZERO, R::ZERO);
        let nl = self.lambda_twist + dl;
        if (lower && nl < R::ZERO) || (!lower && nl > R::ZERO) {
            dl = -self.lambda_twist;
        }
        self.lambda_twist += dl;
        p.pos[rc] += g_rc * (wrc * dl);
        p.pos[rp] += g_rp * (wrp * dl);
        p.pos[b] += g_b * (wb * dl);
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

    fn solve(&mut self, p: &mut ParticleSet<Space3<R>>, ctx: &SubstepContext<R>) {
        self.solve_swing(p, ctx);
        self.solve_twist(p, ctx);
    }

    fn reset(&mut self) {
        self.lambda_swing = R::ZERO;
        self.lambda_twist = R::ZERO;
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
            let t = (self.twist_min - phi).max(phi - self.twist_max).max(R::ZERO);
            worst = worst.max(t);
        }
        worst
    }

    fn multipliers(&self) -> Vec<R> {
        vec![self.lambda_swing, self.lambda_twist]
    }

    fn hash_into(&self, h: &mut crate::snapshot::StateHasher) {
        h.write_u64(u64::from(self.idx[1]));
        h.write_real(self.swing_max);
        h.write_real(self.lambda_swing);
        h.write_real(self.lambda_twist);
    }
}
