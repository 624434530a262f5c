//! Joint limits for [`super::fabrik`]: what directions a bone may take relative to its
//! parent bone.
//!
//! A limit is a projection on unit directions, used both ways round: in FABRIK's backward
//! pass (root → tip) the parent bone is placed and the child's direction is projected
//! ([`IkLimit::clamp_child`]); in its forward pass (tip → root) the child is placed and the
//! parent's direction is projected ([`IkLimit::clamp_parent`]), so that both passes produce
//! poses inside the limits (Aristidou & Lasenby 2011, §4.2, "the joint restrictions are
//! enforced at each step of both stages"). The shapes are those of the simulation's own
//! joint limits: a signed angle range in 2D (as [`crate::AngleLimit`]), a swing cone in 3D
//! (as the swing part of [`crate::SwingTwistLimit`]) or a hinge.

use super::two_bone::unit_and_length;
use crate::math::{Real, Vector, Vector2, Vector3};

/// A joint limit on the direction of a bone relative to its parent's (both unit vectors).
pub trait IkLimit<R: Real, V: Vector<R>> {
    /// The admissible child direction nearest `child`, given the parent's direction.
    #[must_use]
    fn clamp_child(&self, parent: V, child: V) -> V;
    /// The admissible parent direction nearest `parent`, given the child's direction.
    #[must_use]
    fn clamp_parent(&self, child: V, parent: V) -> V;
    /// A rest direction of the child, given the parent's, where the limited solve restarts
    /// when it stalls (see [`crate::ik`], "Joint limits"); `attempt` counts the restarts
    /// from 1, so that a limit can offer different poses. By default the parent's direction
    /// projected into the limit (the straightest admissible child).
    #[must_use]
    fn rest(&self, parent: V, attempt: u32) -> V {
        let _ = attempt;
        self.clamp_child(parent, parent)
    }
}

/// No limit: any direction (what [`super::fabrik`] uses when given an empty limit list).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Free;

impl<R: Real, V: Vector<R>> IkLimit<R, V> for Free {
    #[inline]
    fn clamp_child(&self, _parent: V, child: V) -> V {
        child
    }
    #[inline]
    fn clamp_parent(&self, _child: V, parent: V) -> V {
        parent
    }
}

/// `v` turned by the angle whose `(cos, sin)` is `cs`.
#[inline]
fn turn<R: Real>(v: Vector2<R>, cs: Vector2<R>) -> Vector2<R> {
    Vector2::new(v.x * cs.x - v.y * cs.y, v.x * cs.y + v.y * cs.x)
}

/// True when `lo` is circularly nearer `theta` than `hi` is (radians, `theta` in `(−π, π]`).
#[inline]
fn nearest_bound<R: Real>(theta: R, lo: R, hi: R) -> bool {
    // Distance to each bound going round the circle the short way.
    let wrap = |x: R| {
        let two_pi = R::PI + R::PI;
        let mut y = x;
        if y > R::PI {
            y -= two_pi;
        }
        if y < -R::PI {
            y += two_pi;
        }
        y.abs()
    };
    wrap(theta - lo) <= wrap(theta - hi)
}

/// 2D limit: the signed joint angle `θ = atan2(u × v, u · v)` between the parent bone `u`
/// and the child bone `v` (0 = straight, counter-clockwise positive, as
/// [`crate::AngleLimit::angle`]) stays in `[min, max]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AngleRange<R> {
    /// Minimum angle (rad), in `[−π, π]`.
    pub min: R,
    /// Maximum angle (rad), in `[min, π]`.
    pub max: R,
    min_cs: Vector2<R>,
    max_cs: Vector2<R>,
}

impl<R: Real> AngleRange<R> {
    /// A range `[min, max]` (rad); the bounds are clamped to `[−π, π]` and swapped if given
    /// in the wrong order (NaN bounds, floats only, give the full circle).
    #[must_use]
    pub fn new(min: R, max: R) -> Self {
        let fix = |x: R, d: R| if x.is_finite() { x.clamp(-R::PI, R::PI) } else { d };
        let (a, b) = (fix(min, -R::PI), fix(max, R::PI));
        let (min, max) = if a <= b { (a, b) } else { (b, a) };
        Self { min, max, min_cs: Vector2::new(min.cos(), min.sin()), max_cs: Vector2::new(max.cos(), max.sin()) }
    }

    /// The bound nearest `theta`, as `(angle, (cos, sin))`, or `None` inside the range.
    #[inline]
    fn outside(&self, theta: R) -> Option<Vector2<R>> {
        if theta >= self.min && theta <= self.max {
            None
        } else if nearest_bound(theta, self.min, self.max) {
            Some(self.min_cs)
        } else {
            Some(self.max_cs)
        }
    }
}

impl<R: Real> IkLimit<R, Vector2<R>> for AngleRange<R> {
    #[inline]
    fn clamp_child(&self, parent: Vector2<R>, child: Vector2<R>) -> Vector2<R> {
        let theta = parent.cross(child).atan2(parent.dot(child));
        match self.outside(theta) {
            None => child,
            Some(cs) => turn(parent, cs),
        }
    }
    #[inline]
    fn clamp_parent(&self, child: Vector2<R>, parent: Vector2<R>) -> Vector2<R> {
        let theta = parent.cross(child).atan2(parent.dot(child));
        match self.outside(theta) {
            None => parent,
            // parent = child turned by −θ.
            Some(cs) => turn(child, Vector2::new(cs.x, -cs.y)),
        }
    }
    /// See [`AngleRange::rest_angle`].
    #[inline]
    fn rest(&self, parent: Vector2<R>, attempt: u32) -> Vector2<R> {
        let theta = self.rest_angle(attempt);
        turn(parent, Vector2::new(theta.cos(), theta.sin()))
    }
}

impl<R: Real> AngleRange<R> {
    /// The joint angle of a restart's rest pose: attempt 1 the middle of the range, 2 and 3
    /// a quarter and three quarters of the way from `min` to `max`, later attempts the
    /// straightest angle in range (0 clamped into it).
    #[must_use]
    pub fn rest_angle(&self, attempt: u32) -> R {
        let span = self.max - self.min;
        match attempt {
            1 => self.min + span * R::HALF,
            2 => self.min + span * R::from_ratio(1, 4),
            3 => self.min + span * R::from_ratio(3, 4),
            _ => R::ZERO.clamp(self.min, self.max),
        }
    }
}

/// A hinge of a 3D joint: the child bone turns about `axis` (world frame, unit; the caller
/// derives it from the body's frame each solve), the signed angle about it from the
/// parent's direction in `[min, max]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hinge<R> {
    /// The hinge axis (unit, world frame).
    pub axis: Vector3<R>,
    /// The angle range about the axis (right-hand rule).
    pub range: AngleRange<R>,
}

/// 3D limit: the child bone within a cone of half-angle `swing_max` about the parent bone's
/// direction (the swing of [`crate::SwingTwistLimit`]), or, with a hinge, in the plane
/// normal to the hinge axis at a signed angle within the hinge's range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cone<R> {
    /// The cone's half-angle (rad), in `[0, π]`.
    pub swing_max: R,
    cos_max: R,
    sin_max: R,
    /// An optional hinge, which replaces the cone.
    pub hinge: Option<Hinge<R>>,
}

impl<R: Real> Cone<R> {
    /// A cone of half-angle `swing_max` (rad, clamped to `[0, π]`; NaN gives π, no limit).
    #[must_use]
    pub fn new(swing_max: R) -> Self {
        let s = if swing_max.is_finite() { swing_max.clamp(R::ZERO, R::PI) } else { R::PI };
        Self { swing_max: s, cos_max: s.cos(), sin_max: s.sin(), hinge: None }
    }

    /// A hinge about `axis` (normalised here; a zero axis gives a plain cone of π) with the
    /// signed angle in `[min, max]`.
    #[must_use]
    pub fn hinge(axis: Vector3<R>, min: R, max: R) -> Self {
        let axis = unit_and_length(axis).0;
        let mut c = Self::new(R::PI);
        if axis != Vector3::ZERO {
            c.hinge = Some(Hinge { axis, range: AngleRange::new(min, max) });
        }
        c
    }

    /// The direction within the cone about `about` nearest `v` (both unit).
    #[inline]
    fn cone(&self, about: Vector3<R>, v: Vector3<R>) -> Vector3<R> {
        let c = about.dot(v);
        if c >= self.cos_max {
            return v;
        }
        // The cone's edge in the plane of `about` and `v`.
        let mut w = unit_and_length(v - about * c).0;
        if w == Vector3::ZERO {
            w = about.any_orthogonal();
        }
        about * self.cos_max + w * self.sin_max
    }

    /// Hinge projection: `v` turned into the hinge plane, at a joint angle within the
    /// hinge's range from `from` (projected into the plane). `reverse` false: `from` is the
    /// parent, `v` the child; true (the forward pass): `from` is the child, `v` the parent,
    /// and the joint angle is minus the angle from `from` to `v`.
    #[inline]
    fn hinged(h: &Hinge<R>, from: Vector3<R>, v: Vector3<R>, reverse: bool) -> Vector3<R> {
        let a = h.axis;
        let f = unit_and_length(from - a * a.dot(from)).0;
        let vp = unit_and_length(v - a * a.dot(v)).0;
        if f == Vector3::ZERO {
            // The reference lies along the axis: only the plane can be enforced.
            return if vp == Vector3::ZERO { a.any_orthogonal() } else { vp };
        }
        let vp = if vp == Vector3::ZERO { f } else { vp };
        let mut theta = a.dot(f.cross(vp)).atan2(f.dot(vp));
        if reverse {
            theta = -theta;
        }
        let cs = match h.range.outside(theta) {
            None => return vp,
            Some(cs) => cs,
        };
        // Rodrigues about the axis (f ⟂ a): f cos θ + (a × f) sin θ, θ negated in reverse.
        let s = if reverse { -cs.y } else { cs.y };
        f * cs.x + a.cross(f) * s
    }
}

impl<R: Real> IkLimit<R, Vector3<R>> for Cone<R> {
    #[inline]
    fn clamp_child(&self, parent: Vector3<R>, child: Vector3<R>) -> Vector3<R> {
        match &self.hinge {
            Some(h) => Self::hinged(h, parent, child, false),
            None => self.cone(parent, child),
        }
    }
    #[inline]
    fn clamp_parent(&self, child: Vector3<R>, parent: Vector3<R>) -> Vector3<R> {
        match &self.hinge {
            Some(h) => Self::hinged(h, child, parent, true),
            None => self.cone(child, parent),
        }
    }
    /// A cone: attempt 1 straight on (the cone's axis), 2 and 3 bent by half the cone's
    /// angle toward and away from [`Vector::any_orthogonal`] of the parent's direction (a
    /// chain of such bones curls), later attempts straight again. A hinge: in the hinge's
    /// plane at [`AngleRange::rest_angle`] from the parent's direction (projected into it).
    #[inline]
    fn rest(&self, parent: Vector3<R>, attempt: u32) -> Vector3<R> {
        match &self.hinge {
            None if attempt == 2 || attempt == 3 => {
                let half = self.swing_max * R::HALF;
                let o = parent.any_orthogonal();
                let o = if attempt == 2 { o } else { -o };
                parent * half.cos() + o * half.sin()
            }
            None => parent,
            Some(h) => {
                let a = h.axis;
                let f = unit_and_length(parent - a * a.dot(parent)).0;
                if f == Vector3::ZERO {
                    return a.any_orthogonal();
                }
                let theta = h.range.rest_angle(attempt);
                f * theta.cos() + a.cross(f) * theta.sin()
            }
        }
    }
}
