//! Colliders: static or kinematically moved shapes that particles collide with.
//!
//! A collider is a [`Shape`] placed by a position and a rotation. Colliders have no mass:
//! they push particles and are never pushed back (two-way coupling with rigid bodies is a
//! separate layer). They can be moved between steps with [`crate::World::set_collider_pose`];
//! the solver interpolates the pose across substeps, so a moving wall sweeps through the
//! particles instead of teleporting past them, and friction and restitution use the
//! surface velocity.
//!
//! | shape | 2D | 3D |
//! |---|---|---|
//! | [`HalfSpace`] | half-plane | half-space |
//! | [`Ball`] | circle | sphere |
//! | [`Cuboid`] | oriented box | oriented box |
//! | [`Capsule`] | stadium | capsule |
//! | convex | [`ConvexPolygon`] | [`ConvexHull`] |
//!
//! ```
//! use sinew::Rot2; // (not in the prelude, which leaves glam's and Bevy's names alone)
//! use sinew::prelude::*;
//!
//! // A 2 m plank (a box of half extents 1 m × 10 cm) tilted by 0.3 rad, and a 10 cm
//! // ball dropped on it: with friction 1 it stays where it lands (tan 0.3 < 1).
//! let mut world = World2::new(WorldDef::default().friction(1.0))?;
//! let plank = ColliderDef::new(Shape::cuboid(Vector2::new(1.0, 0.1))?).rotation(Rot2::from_angle(0.3));
//! let plank = world.add_collider(&plank)?;
//! let ball = world.add_particle(&ParticleDef::at(Vector2::new(0.0, 1.0)).radius(0.1))?;
//! for _ in 0..60 {
//!     world.step(1.0 / 60.0)?;
//! }
//! let p = world.particles().position(ball).unwrap();
//! let on_plank = world.collider(plank)?.closest_world(p); // signed distance, outward normal
//! assert!((on_plank.distance - 0.1).abs() < 1e-3, "resting one radius above the face");
//!
//! // Lift the plank 0.5 m over half a second: colliders move between steps, the solver
//! // sweeps them through the substeps, and the ball rides up on it.
//! for i in 1..=30 {
//!     let pose = Vector2::new(0.0, 0.5 * i as f32 / 30.0);
//!     world.set_collider_pose(plank, pose, Rot2::from_angle(0.3))?;
//!     world.step(1.0 / 60.0)?;
//! }
//! let lifted = world.particles().position(ball).unwrap();
//! assert!((lifted.y - p.y - 0.5).abs() < 0.01, "{lifted:?}");
//!
//! // Shapes answer the same queries in their own frame.
//! let circle = Shape::<Space2<f32>>::ball(0.5)?;
//! assert!((circle.closest(Vector2::new(2.0, 0.0)).distance - 1.5).abs() < 1e-6);
//! # Ok::<(), SinewError>(())
//! ```

mod ball;
mod broad_phase;
mod capsule;
mod convex_hull;
mod convex_polygon;
mod cuboid;
mod half_space;
mod shape;

pub use ball::Ball;
pub use broad_phase::Aabb;
pub(crate) use broad_phase::BroadPhase;
pub use capsule::Capsule;
pub use convex_hull::ConvexHull;
pub use convex_polygon::ConvexPolygon;
pub use cuboid::Cuboid;
pub use half_space::HalfSpace;
pub use shape::{
    ConvexError, ConvexShape, Proximity, RayHit, ShapeQuery, closest_on_segment, raycast_ball, raycast_capsule,
    raycast_planes,
};

use crate::SinewError;
use crate::arena::define_handle;
use crate::dim::{BaseSpace, RealOf, RotOf, Space2, Space3, VecOf};
use crate::math::{Real, Rotation, Vector};
use crate::particle::InteractionGroups;
use crate::state::{SavedState, StateHasher, saved_state};
use ColliderSpace as Space;

define_handle!(
    /// A collider in a [`crate::World`].
    ColliderHandle
);

/// A dimension with its general convex collider: [`ConvexPolygon`] in 2D, [`ConvexHull`] in
/// 3D (a layer of [`crate::Space`]).
pub trait ColliderSpace: BaseSpace {
    /// The general convex collider.
    type Convex: ConvexShape<Self>;
}

impl<R: Real> ColliderSpace for Space2<R> {
    type Convex = ConvexPolygon<R>;
}

impl<R: Real> ColliderSpace for Space3<R> {
    type Convex = ConvexHull<R>;
}

/// A collision shape in its local frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape<S: Space> {
    /// Solid half-space `normal·x < offset`.
    HalfSpace(HalfSpace<VecOf<S>, RealOf<S>>),
    /// Circle / sphere.
    Ball(Ball<RealOf<S>>),
    /// Oriented box.
    Cuboid(Cuboid<VecOf<S>>),
    /// Capsule.
    Capsule(Capsule<VecOf<S>, RealOf<S>>),
    /// Convex polygon (2D) or hull (3D).
    Convex(S::Convex),
}

/// Hashes the shape by what defines it (for the convex shapes, their vertices: the rest is
/// computed from them).
impl<S: Space> SavedState for Shape<S> {
    fn hash_state(&self, h: &mut StateHasher) {
        match self {
            Shape::HalfSpace(s) => {
                h.write_u64(0);
                h.write(&s.normal);
                h.write(&s.offset);
            }
            Shape::Ball(s) => {
                h.write_u64(1);
                h.write(&s.radius);
            }
            Shape::Cuboid(s) => {
                h.write_u64(2);
                h.write(&s.half_extents);
            }
            Shape::Capsule(s) => {
                h.write_u64(3);
                h.write(&s.a);
                h.write(&s.b);
                h.write(&s.radius);
            }
            Shape::Convex(s) => {
                let v = s.vertices();
                h.write_u64(4 | ((v.len() as u64) << 8));
                for p in v {
                    h.write(p);
                }
            }
        }
    }
    fn heap_bytes(&self) -> usize {
        match self {
            Shape::Convex(s) => core::mem::size_of_val(s.vertices()),
            _ => 0,
        }
    }
}

fn positive_finite<R: Real>(v: R, what: &'static str) -> Result<R, SinewError> {
    if !v.is_finite() {
        Err(SinewError::NonFinite { what })
    } else if !(v > R::ZERO) {
        Err(SinewError::InvalidParameter { what, reason: "must be > 0", value: None })
    } else {
        Ok(v)
    }
}

impl<S: Space> Shape<S> {
    /// A half-space with free side `normal·x ≥ offset`. The normal is normalised; a zero or
    /// non-finite normal is an error.
    pub fn half_space(normal: VecOf<S>, offset: RealOf<S>) -> Result<Self, SinewError> {
        if !normal.is_finite() || !offset.is_finite() {
            return Err(SinewError::NonFinite { what: "half-space" });
        }
        let (n, len) = normal.normalize_and_length();
        if len == RealOf::<S>::ZERO {
            return Err(SinewError::InvalidParameter { what: "half-space normal", reason: "zero length", value: None });
        }
        // offset is measured along the given normal; rescale for the unit one.
        Ok(Self::HalfSpace(HalfSpace { normal: n, offset: offset / len }))
    }
    /// A ball of `radius` > 0.
    pub fn ball(radius: RealOf<S>) -> Result<Self, SinewError> {
        Ok(Self::Ball(Ball { radius: positive_finite(radius, "ball radius")? }))
    }
    /// A box with all half extents > 0.
    pub fn cuboid(half_extents: VecOf<S>) -> Result<Self, SinewError> {
        for i in 0..VecOf::<S>::DIM {
            positive_finite(half_extents.get(i), "box half extents")?;
        }
        Ok(Self::Cuboid(Cuboid { half_extents }))
    }
    /// A capsule around segment `a–b` (which may be zero-length: a ball) with `radius` > 0.
    pub fn capsule(a: VecOf<S>, b: VecOf<S>, radius: RealOf<S>) -> Result<Self, SinewError> {
        if !a.is_finite() || !b.is_finite() {
            return Err(SinewError::NonFinite { what: "capsule end" });
        }
        Ok(Self::Capsule(Capsule { a, b, radius: positive_finite(radius, "capsule radius")? }))
    }
    /// A convex polygon (2D) or the hull of `points` (3D).
    pub fn convex(points: &[VecOf<S>]) -> Result<Self, SinewError> {
        Ok(Self::Convex(S::Convex::from_points(points)?))
    }

    /// Signed distance and normal in the local frame.
    #[inline]
    #[must_use]
    pub fn closest(&self, p: VecOf<S>) -> Proximity<RealOf<S>, VecOf<S>> {
        match self {
            Self::HalfSpace(s) => ShapeQuery::<S>::closest(s, p),
            Self::Ball(s) => ShapeQuery::<S>::closest(s, p),
            Self::Cuboid(s) => ShapeQuery::<S>::closest(s, p),
            Self::Capsule(s) => ShapeQuery::<S>::closest(s, p),
            Self::Convex(s) => s.closest(p),
        }
    }

    /// Swept entry test in the local frame (see [`ShapeQuery::raycast`]).
    #[inline]
    #[must_use]
    pub fn raycast(&self, from: VecOf<S>, to: VecOf<S>, inflate: RealOf<S>) -> Option<RayHit<RealOf<S>, VecOf<S>>> {
        match self {
            Self::HalfSpace(s) => ShapeQuery::<S>::raycast(s, from, to, inflate),
            Self::Ball(s) => ShapeQuery::<S>::raycast(s, from, to, inflate),
            Self::Cuboid(s) => ShapeQuery::<S>::raycast(s, from, to, inflate),
            Self::Capsule(s) => ShapeQuery::<S>::raycast(s, from, to, inflate),
            Self::Convex(s) => s.raycast(from, to, inflate),
        }
    }

    /// Farthest point along `dir` in the local frame.
    #[must_use]
    pub fn support(&self, dir: VecOf<S>) -> VecOf<S> {
        match self {
            Self::HalfSpace(s) => ShapeQuery::<S>::support(s, dir),
            Self::Ball(s) => ShapeQuery::<S>::support(s, dir),
            Self::Cuboid(s) => ShapeQuery::<S>::support(s, dir),
            Self::Capsule(s) => ShapeQuery::<S>::support(s, dir),
            Self::Convex(s) => s.support(dir),
        }
    }

    /// A lower bound on how deep a point can be inside the shape (its inradius, or an
    /// under-estimate of it). A particle that moved less than this in a substep cannot
    /// have crossed the shape's middle, so the nearest surface is the one it came through
    /// and the swept test can be skipped.
    #[must_use]
    pub fn min_half_thickness(&self) -> RealOf<S> {
        match self {
            Self::HalfSpace(_) => RealOf::<S>::MAX,
            Self::Ball(b) => b.radius,
            Self::Capsule(c) => c.radius,
            Self::Cuboid(c) => {
                let mut m = c.half_extents.get(0);
                for i in 1..VecOf::<S>::DIM {
                    m = m.min(c.half_extents.get(i));
                }
                m
            }
            Self::Convex(c) => {
                let vs = c.vertices();
                let mut centroid = VecOf::<S>::ZERO;
                for &v in vs {
                    centroid += v;
                }
                centroid = centroid / RealOf::<S>::from_i32(vs.len().max(1) as i32);
                // Depth of the centroid below the nearest face bounds the inradius from below.
                let depth = -c.closest(centroid).distance;
                depth.max(RealOf::<S>::ZERO)
            }
        }
    }

    /// Local bounding box; `None` for half-spaces.
    #[must_use]
    pub fn local_aabb(&self) -> Option<(VecOf<S>, VecOf<S>)> {
        match self {
            Self::HalfSpace(s) => ShapeQuery::<S>::local_aabb(s),
            Self::Ball(s) => ShapeQuery::<S>::local_aabb(s),
            Self::Cuboid(s) => ShapeQuery::<S>::local_aabb(s),
            Self::Capsule(s) => ShapeQuery::<S>::local_aabb(s),
            Self::Convex(s) => s.local_aabb(),
        }
    }
}

/// Definition of a collider (a shape with defaults; builder methods for the rest).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ColliderDef<S: Space> {
    /// The shape.
    pub shape: Shape<S>,
    /// Position of the local origin (m).
    pub position: VecOf<S>,
    /// Orientation.
    pub rotation: RotOf<S>,
    /// Dynamic friction coefficient; `None` = the world default.
    pub friction: Option<RealOf<S>>,
    /// Static friction coefficient; `None` = equal to the dynamic one.
    pub static_friction: Option<RealOf<S>>,
    /// Restitution in `[0, 1]`; `None` = the world default.
    pub restitution: Option<RealOf<S>>,
    /// Collision filter.
    pub groups: InteractionGroups,
}

impl<S: Space> ColliderDef<S> {
    /// A collider with `shape` at the origin.
    #[must_use]
    pub fn new(shape: Shape<S>) -> Self {
        Self {
            shape,
            position: VecOf::<S>::ZERO,
            rotation: RotOf::<S>::IDENTITY,
            friction: None,
            static_friction: None,
            restitution: None,
            groups: InteractionGroups::ALL,
        }
    }
    /// Sets the position.
    #[must_use]
    pub fn position(mut self, p: VecOf<S>) -> Self {
        self.position = p;
        self
    }
    /// Sets the rotation.
    #[must_use]
    pub fn rotation(mut self, r: RotOf<S>) -> Self {
        self.rotation = r;
        self
    }
    /// Sets the friction coefficient (static and dynamic).
    #[must_use]
    pub fn friction(mut self, mu: RealOf<S>) -> Self {
        self.friction = Some(mu);
        self
    }
    /// Sets the restitution.
    #[must_use]
    pub fn restitution(mut self, e: RealOf<S>) -> Self {
        self.restitution = Some(e);
        self
    }
    /// Sets the static friction coefficient.
    #[must_use]
    pub fn static_friction(mut self, mu: RealOf<S>) -> Self {
        self.static_friction = Some(mu);
        self
    }
    /// Sets the collision filter.
    #[must_use]
    pub fn groups(mut self, groups: InteractionGroups) -> Self {
        self.groups = groups;
        self
    }
}

/// A collider in a world.
#[derive(Clone, Debug, PartialEq)]
pub struct Collider<S: Space> {
    /// The shape.
    pub shape: Shape<S>,
    pub(crate) position: VecOf<S>,
    pub(crate) rotation: RotOf<S>,
    /// Pose at the start of the current step (for swept motion and surface velocity).
    pub(crate) prev_position: VecOf<S>,
    pub(crate) prev_rotation: RotOf<S>,
    /// Dynamic friction coefficient, if overridden.
    pub friction: Option<RealOf<S>>,
    /// Static friction coefficient, if overridden.
    pub static_friction: Option<RealOf<S>>,
    /// Restitution, if overridden.
    pub restitution: Option<RealOf<S>>,
    /// Collision filter.
    pub groups: InteractionGroups,
    /// Cached [`Shape::min_half_thickness`].
    pub(crate) half_thickness: RealOf<S>,
}

saved_state!(impl[S: Space] Collider<S> {
    shape, position, rotation, prev_position, prev_rotation, friction, static_friction, restitution, groups,
    half_thickness,
});

impl<S: Space> Collider<S> {
    pub(crate) fn from_def(d: &ColliderDef<S>) -> Result<Self, SinewError> {
        crate::particle::check_coordinates(d.position, "collider position")?;
        let rot = d.rotation.renormalize();
        if !rot.components().iter().all(|c| c.is_finite()) {
            return Err(SinewError::NonFinite { what: "collider rotation" });
        }
        for (v, what) in [(d.friction, "collider friction"), (d.static_friction, "collider static friction")] {
            if let Some(v) = v
                && (!v.is_finite() || v < RealOf::<S>::ZERO)
            {
                return Err(SinewError::InvalidParameter { what, reason: "must be finite and ≥ 0", value: None });
            }
        }
        if let Some(e) = d.restitution
            && (!e.is_finite() || e < RealOf::<S>::ZERO || e > RealOf::<S>::ONE)
        {
            return Err(SinewError::InvalidParameter {
                what: "collider restitution",
                reason: "must be in [0, 1]",
                value: None,
            });
        }
        Ok(Self {
            shape: d.shape.clone(),
            position: d.position,
            rotation: rot,
            prev_position: d.position,
            prev_rotation: rot,
            friction: d.friction,
            static_friction: d.static_friction,
            restitution: d.restitution,
            groups: d.groups,
            half_thickness: d.shape.min_half_thickness(),
        })
    }

    /// Current position.
    #[must_use]
    pub fn position(&self) -> VecOf<S> {
        self.position
    }
    /// Current rotation.
    #[must_use]
    pub fn rotation(&self) -> RotOf<S> {
        self.rotation
    }
    /// True when the collider moved since the start of the current step.
    #[must_use]
    pub fn is_moving(&self) -> bool {
        self.position != self.prev_position || self.rotation != self.prev_rotation
    }

    /// Pose at fraction `t` of the current step.
    #[inline]
    pub(crate) fn pose_at(&self, t: RealOf<S>) -> (VecOf<S>, RotOf<S>) {
        if !self.is_moving() {
            return (self.position, self.rotation);
        }
        (self.prev_position.lerp(self.position, t), self.prev_rotation.nlerp(self.rotation, t))
    }

    /// World-space bounding box over the whole step's motion, for a step of `substeps`
    /// substeps: the shape's boxes at the step's start and end, and, if it turns, at every
    /// substep's pose ([`Collider::pose_at`], where contacts test it) — an off-centre part
    /// of a turning shape moves on an arc and can leave the two ends' boxes in between (a
    /// paddle turning from −60° to 60° reaches 0.6 m along the axis at 0° where neither
    /// end's box reaches 0.4 m). `None` for half-spaces.
    pub(crate) fn swept_aabb(&self, substeps: u32) -> Option<Aabb<VecOf<S>>> {
        let (lo, hi) = self.shape.local_aabb()?;
        let mut b = world_aabb::<S>(lo, hi, self.position, self.rotation);
        if self.is_moving() {
            b = b.union(&world_aabb::<S>(lo, hi, self.prev_position, self.prev_rotation));
            if self.rotation != self.prev_rotation {
                // (A translation alone stays within the two ends' boxes.)
                let n = substeps.max(1) as i32;
                for s in 1..n {
                    let (p, r) = self.pose_at(RealOf::<S>::from_ratio(s, n));
                    b = b.union(&world_aabb::<S>(lo, hi, p, r));
                }
            }
        }
        Some(b)
    }

    /// Signed distance and world normal from a world point at the current pose.
    #[must_use]
    pub fn closest_world(&self, p: VecOf<S>) -> Proximity<RealOf<S>, VecOf<S>> {
        let local = self.rotation.inverse_rotate(p - self.position);
        let prox = self.shape.closest(local);
        Proximity { distance: prox.distance, normal: self.rotation.rotate(prox.normal) }
    }
}

/// Bounding box of a local box `lo..hi` under a pose.
pub(crate) fn world_aabb<S: Space>(lo: VecOf<S>, hi: VecOf<S>, pos: VecOf<S>, rot: RotOf<S>) -> Aabb<VecOf<S>> {
    let half = (hi - lo) * RealOf::<S>::HALF;
    let center = pos + rot.rotate((hi + lo) * RealOf::<S>::HALF);
    let mut ext = VecOf::<S>::ZERO;
    for j in 0..VecOf::<S>::DIM {
        let mut e = VecOf::<S>::ZERO;
        e.set(j, RealOf::<S>::ONE);
        ext += rot.rotate(e).abs_elem() * half.get(j);
    }
    Aabb { min: center - ext, max: center + ext }
}

/// Friction of a contact between a body (particle or rope) and a collider: the geometric
/// mean of their coefficients, either one alone, or the world's default.
#[inline]
pub(crate) fn mix_friction<R: Real>(body: Option<R>, collider: Option<R>, default: R) -> R {
    match (body, collider) {
        (Some(x), Some(y)) => (x * y).sqrt(),
        (Some(x), None) | (None, Some(x)) => x,
        (None, None) => default,
    }
}
