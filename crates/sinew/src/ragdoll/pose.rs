//! Poses: where the nodes are, how fast they move when physics takes over, and what the
//! muscles aim for.
//!
//! # Entering physics from animation
//!
//! An animated character has no velocities, only poses. Switching it to physics with zero
//! velocity makes it stop dead and then fall, which reads as a glitch. Two consecutive
//! animation poses `P₀` (time `t − dt`) and `P₁` (time `t`) give each node the velocity of
//! its motion by a backward difference,
//!
//! ```text
//! vᵢ = (P₁ᵢ − P₀ᵢ) / dt
//! ```
//!
//! which is exact for motion that is linear over the frame and first-order accurate
//! otherwise — the same estimate Verlet integration carries implicitly in `x − x_prev`.
//! [`SpawnDef::from_animation`] builds that state; a punch that turns into a ragdoll keeps
//! its swing.
//!
//! # Target poses and the pose distance
//!
//! A muscle rig does not aim for node positions (that would pin the body in space) but
//! for **lengths**: a [`TargetPose`] holds one length per muscle. Lengths are invariant
//! under translation and rotation, so a target pose holds the body's shape wherever it
//! lies. Choosing the preset nearest to the current pose uses the root-mean-square length
//! difference over the `n` muscles,
//!
//! ```text
//! d(ℓ, p) = √( Σᵢ (ℓᵢ − pᵢ)² / n )
//! ```
//!
//! (metres: "on average each muscle is this far from its preset length"), which needs no
//! alignment of the two poses because both are already frame-free. Ties go to the lower
//! index, so the choice is deterministic.

use crate::SinewError;
use crate::math::{Real, Rotation, Vector};
use crate::particle::ParticleHandle;
use crate::space::{RealOf, RotOf, Space, VecOf};
use crate::world::World;

use super::rig::{RigDef, RigError, RigItem};

/// Node positions of a rig (one per node, in [`RigDef::nodes`] order).
#[derive(Clone, Debug, PartialEq)]
pub struct Pose<S: Space> {
    /// Positions (m).
    pub positions: Vec<VecOf<S>>,
}

impl<S: Space> Pose<S> {
    /// A pose from positions.
    #[must_use]
    pub fn new(positions: Vec<VecOf<S>>) -> Self {
        Self { positions }
    }

    /// The rig's rest pose.
    #[must_use]
    pub fn rest(rig: &RigDef<S>) -> Self {
        Self { positions: rig.rest_positions() }
    }

    /// The pose scaled by `scale` about the rig origin, rotated, then moved to `origin`:
    /// `p′ = origin + rotation·(scale·p)`.
    #[must_use]
    pub fn transformed(&self, origin: VecOf<S>, rotation: RotOf<S>, scale: RealOf<S>) -> Self {
        Self { positions: self.positions.iter().map(|&p| origin + rotation.rotate(p * scale)).collect() }
    }

    /// The current positions of `nodes` in `world`.
    pub fn from_world(world: &World<S>, nodes: &[ParticleHandle]) -> Result<Self, SinewError> {
        let ps = world.particles();
        let positions = nodes
            .iter()
            .map(|&h| ps.position(h).ok_or(SinewError::InvalidHandle { what: "ragdoll node", handle: Some(h.0) }))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { positions })
    }

    /// Number of nodes.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// True when the pose has no nodes.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Positions relative to node `root` (`None` when out of range).
    #[must_use]
    pub fn relative_to(&self, root: usize) -> Option<Vec<VecOf<S>>> {
        let r = *self.positions.get(root)?;
        Some(self.positions.iter().map(|&p| p - r).collect())
    }

    /// Per-node velocities `(next − self) / dt` (see the module docs).
    pub fn velocities_to(&self, next: &Self, dt: RealOf<S>) -> Result<Vec<VecOf<S>>, SinewError> {
        if !dt.is_finite() || !(dt > RealOf::<S>::ZERO) {
            return Err(SinewError::InvalidTimeStep { dt: dt.to_f64() });
        }
        if next.positions.len() != self.positions.len() {
            return Err(SinewError::InvalidParameter {
                what: "pose",
                reason: "poses have different node counts",
                value: None,
            });
        }
        let inv = RealOf::<S>::ONE / dt;
        let v: Vec<_> = self.positions.iter().zip(&next.positions).map(|(&a, &b)| (b - a) * inv).collect();
        if v.iter().all(|x| x.is_finite()) { Ok(v) } else { Err(SinewError::NonFinite { what: "pose velocity" }) }
    }

    /// The length of every muscle of `rig` in this pose.
    pub fn muscle_lengths(&self, rig: &RigDef<S>) -> Result<Vec<RealOf<S>>, RigError> {
        let r = rig.resolve()?;
        self.check_len(rig.node_count())?;
        Ok(r.muscles.iter().map(|&(a, b, _)| self.positions[a].distance(self.positions[b])).collect())
    }

    pub(crate) fn check_len(&self, nodes: usize) -> Result<(), RigError> {
        if self.positions.len() != nodes {
            return Err(RigError::Invalid { item: RigItem::Pose, reason: "pose must have one position per node" });
        }
        if !self.positions.iter().all(|p| p.is_finite()) {
            return Err(RigError::NonFinite { item: RigItem::Pose, field: "pose position" });
        }
        Ok(())
    }
}

/// The state a ragdoll enters physics with: node positions in world space, per-node
/// velocities and the scale the rig's lengths and radii are multiplied by.
#[derive(Clone, Debug, PartialEq)]
pub struct SpawnDef<S: Space> {
    /// World-space node positions.
    pub pose: Pose<S>,
    /// Per-node velocities (m/s); empty = at rest.
    pub velocities: Vec<VecOf<S>>,
    /// Scale (> 0) applied to bone rest lengths, muscle target lengths and radii. Masses
    /// are not scaled.
    pub scale: RealOf<S>,
}

impl<S: Space> SpawnDef<S> {
    /// The rig's rest pose, scaled, rotated and placed at `origin`, every node moving at
    /// `velocity`.
    #[must_use]
    pub fn from_rig(
        rig: &RigDef<S>,
        origin: VecOf<S>,
        rotation: RotOf<S>,
        scale: RealOf<S>,
        velocity: VecOf<S>,
    ) -> Self {
        let pose = Pose::rest(rig).transformed(origin, rotation, scale);
        let velocities = vec![velocity; pose.len()];
        Self { pose, velocities, scale }
    }

    /// A pose at rest, at scale 1.
    #[must_use]
    pub fn at_rest(pose: Pose<S>) -> Self {
        Self { pose, velocities: Vec::new(), scale: RealOf::<S>::ONE }
    }

    /// Entering physics from animation: positions from `current`, velocities from the
    /// backward difference with `previous` over `dt` (see the module docs). Scale 1.
    pub fn from_animation(previous: &Pose<S>, current: &Pose<S>, dt: RealOf<S>) -> Result<Self, SinewError> {
        let velocities = previous.velocities_to(current, dt)?;
        Ok(Self { pose: current.clone(), velocities, scale: RealOf::<S>::ONE })
    }

    /// Sets the scale.
    #[must_use]
    pub fn with_scale(mut self, scale: RealOf<S>) -> Self {
        self.scale = scale;
        self
    }

    pub(crate) fn check(&self, nodes: usize) -> Result<(), RigError> {
        self.pose.check_len(nodes)?;
        if !self.velocities.is_empty() && self.velocities.len() != nodes {
            return Err(RigError::Invalid { item: RigItem::Pose, reason: "need one velocity per node (or none)" });
        }
        if !self.velocities.iter().all(|v| v.is_finite()) {
            return Err(RigError::NonFinite { item: RigItem::Pose, field: "node velocity" });
        }
        if !self.scale.is_finite() {
            return Err(RigError::NonFinite { item: RigItem::Pose, field: "scale" });
        }
        if !(self.scale > RealOf::<S>::ZERO) {
            return Err(RigError::Invalid { item: RigItem::Pose, reason: "scale must be > 0" });
        }
        Ok(())
    }

    pub(crate) fn velocity(&self, i: usize) -> VecOf<S> {
        self.velocities.get(i).copied().unwrap_or(VecOf::<S>::ZERO)
    }
}

/// A muscle target pose: one length per muscle of a rig (at scale 1).
#[derive(Clone, Debug, PartialEq)]
pub struct TargetPose<R> {
    /// Name ("stance", "crouch", ...).
    pub name: String,
    /// Target length of each muscle (m), in [`RigDef::muscles`] order.
    pub lengths: Vec<R>,
}

crate::state::saved_state!(impl[R: Real] TargetPose<R> { name, lengths });

impl<R: Real> TargetPose<R> {
    /// The muscle lengths of `pose`.
    pub fn from_pose<S: Space<Real = R>>(
        name: impl Into<String>,
        rig: &RigDef<S>,
        pose: &Pose<S>,
    ) -> Result<Self, RigError> {
        Ok(Self { name: name.into(), lengths: pose.muscle_lengths(rig)? })
    }

    /// RMS length difference to `lengths` (see the module docs); `None` when the counts
    /// differ or there are no muscles.
    #[must_use]
    pub fn distance(&self, lengths: &[R]) -> Option<R> {
        pose_distance(&self.lengths, lengths)
    }

    /// Index and distance of the preset nearest to `lengths` (ties: lowest index); `None`
    /// for an empty list or mismatched counts.
    #[must_use]
    pub fn nearest(presets: &[Self], lengths: &[R]) -> Option<(usize, R)> {
        let mut best: Option<(usize, R)> = None;
        for (i, p) in presets.iter().enumerate() {
            let d = p.distance(lengths)?;
            if best.is_none_or(|(_, bd)| d < bd) {
                best = Some((i, d));
            }
        }
        best
    }
}

/// RMS difference between two equally long lists of lengths: `√(Σ (aᵢ − bᵢ)² / n)`.
#[must_use]
pub fn pose_distance<R: Real>(a: &[R], b: &[R]) -> Option<R> {
    if a.len() != b.len() || a.is_empty() {
        return None;
    }
    let mut s = R::ZERO;
    for (&x, &y) in a.iter().zip(b) {
        s += (x - y).sq();
    }
    let n = i32::try_from(a.len()).ok()?;
    Some((s / R::from_i32(n)).sqrt())
}
