//! Rig definitions: a ragdoll described as data.
//!
//! A [`RigDef`] lists
//!
//! - **nodes** ([`NodeDef`]): point masses with a name, a rest-pose position, a mass, a
//!   collision radius and whether they touch colliders;
//! - **bones** ([`BoneDef`]): rigid distances between two nodes (the rest length is the
//!   rest-pose distance unless given), the edges of a Shadow Fight-style muscle rig;
//! - **joint limits** ([`RigLimit`]): a signed angle range in 2D, a swing cone and twist
//!   range in 3D, both in absolute radians as the world's constraints measure them;
//! - **muscles** ([`MuscleDef`]): node pairs whose distance a
//!   [`MuscleRagdoll`](super::MuscleRagdoll) drives toward the length of a target pose;
//! - the **root** (the node poses are measured from, usually the pelvis) and the **head**
//!   (for the head-speed statistic).
//!
//! Nodes are referred to by name or by index ([`NodeRef`]), whichever is handier when
//! writing the rig. [`RigDef::validate`] resolves every reference and checks every value,
//! and returns a [`RigError`] that says which item is wrong and why (an unknown name, a
//! duplicate name, an index out of range, a non-finite value, a bone between a node and
//! itself, a limit of the wrong dimension). Spawning validates again and converts the
//! error into a [`SinewError`], so a bad rig never reaches the solver.
//!
//! Lookups go through a sorted name table, never a hash map, so the same rig always
//! resolves the same way.

use crate::SinewError;
use crate::math::{Real, Vector};
use crate::space::{RealOf, Space, VecOf};

/// A reference to a node of a rig: its name or its index in [`RigDef::nodes`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeRef {
    /// By name.
    Name(String),
    /// By index.
    Index(usize),
}

impl From<&str> for NodeRef {
    #[inline]
    fn from(s: &str) -> Self {
        Self::Name(s.to_owned())
    }
}

impl From<String> for NodeRef {
    #[inline]
    fn from(s: String) -> Self {
        Self::Name(s)
    }
}

impl From<usize> for NodeRef {
    #[inline]
    fn from(i: usize) -> Self {
        Self::Index(i)
    }
}

impl core::fmt::Display for NodeRef {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Name(n) => write!(f, "\"{n}\""),
            Self::Index(i) => write!(f, "#{i}"),
        }
    }
}

/// A node: a point mass of the rig.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeDef<S: Space> {
    /// Unique, non-empty name.
    pub name: String,
    /// Rest-pose position (m), in the rig's frame (spawning places and scales it).
    pub position: VecOf<S>,
    /// Mass (kg), > 0.
    pub mass: RealOf<S>,
    /// Collision radius (m), ≥ 0 (scaled with the rig).
    pub radius: RealOf<S>,
    /// Whether the node collides with colliders (stabiliser nodes do not).
    pub collides: bool,
    /// Friction coefficient against colliders; `None` = the collider's or the world's.
    pub friction: Option<RealOf<S>>,
}

impl<S: Space> NodeDef<S> {
    /// A colliding 1 kg node of radius 0 at `position`.
    #[must_use]
    pub fn new(name: impl Into<String>, position: VecOf<S>) -> Self {
        Self {
            name: name.into(),
            position,
            mass: RealOf::<S>::ONE,
            radius: RealOf::<S>::ZERO,
            collides: true,
            friction: None,
        }
    }
    /// Sets the mass (kg).
    #[must_use]
    pub fn mass(mut self, mass: RealOf<S>) -> Self {
        self.mass = mass;
        self
    }
    /// Sets the collision radius (m).
    #[must_use]
    pub fn radius(mut self, radius: RealOf<S>) -> Self {
        self.radius = radius;
        self
    }
    /// Sets whether the node collides with colliders.
    #[must_use]
    pub fn collides(mut self, collides: bool) -> Self {
        self.collides = collides;
        self
    }
}

/// A bone (edge): a rigid distance between two nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct BoneDef<R> {
    /// First node.
    pub a: NodeRef,
    /// Second node.
    pub b: NodeRef,
    /// Rest length (m, at scale 1); `None` = the rest-pose distance.
    pub length: Option<R>,
    /// Compliance (m/N); 0 = rigid (the default).
    pub compliance: R,
}

impl<R: Real> BoneDef<R> {
    /// A rigid bone between `a` and `b` at their rest-pose distance.
    #[must_use]
    pub fn new(a: impl Into<NodeRef>, b: impl Into<NodeRef>) -> Self {
        Self { a: a.into(), b: b.into(), length: None, compliance: R::ZERO }
    }
}

/// The twist part of a 3D joint limit: two reference nodes, one rigidly tied to the parent
/// body and one to the child body, and the allowed range of the child's rotation about
/// its bone (see [`crate::SwingTwistLimit`]).
#[derive(Clone, Debug, PartialEq)]
pub struct TwistDef<R> {
    /// Reference node rigidly attached to the parent body.
    pub parent_ref: NodeRef,
    /// Reference node rigidly attached to the child body.
    pub child_ref: NodeRef,
    /// Minimum twist (rad), ≥ −π.
    pub min: R,
    /// Maximum twist (rad), ≤ π.
    pub max: R,
}

/// A joint limit of a rig, on the bones `a → b` (parent) and `b → c` (child).
///
/// Angles are absolute, in the convention of the world's constraints: in 2D the signed
/// angle `atan2(u × v, u · v)` between `u = x_b − x_a` and `v = x_c − x_b` (0 = straight,
/// counter-clockwise positive), in 3D the swing angle between `u` and `v` and the twist
/// of the child reference about `v`. Presets compute them as "rest angle + anatomical
/// range".
#[derive(Clone, Debug, PartialEq)]
pub enum RigLimit<R> {
    /// 2D signed angle range ([`crate::AngleLimitDef`]).
    Angle {
        /// Start of the parent bone.
        a: NodeRef,
        /// The joint.
        b: NodeRef,
        /// End of the child bone.
        c: NodeRef,
        /// Minimum angle (rad), `−π ≤ min ≤ max`.
        min: R,
        /// Maximum angle (rad), `≤ π`.
        max: R,
        /// Compliance; 0 = hard.
        compliance: R,
    },
    /// 3D swing cone and optional twist range ([`crate::SwingTwistLimitDef`]).
    SwingTwist {
        /// Start of the parent bone (any node of the parent body: its direction to `b`
        /// is the cone's axis).
        a: NodeRef,
        /// The joint.
        b: NodeRef,
        /// End of the child bone.
        c: NodeRef,
        /// Cone half-angle (rad), in `(0, π]`.
        swing_max: R,
        /// Twist range with its reference nodes; `None` = swing only (a hinge made of two
        /// shared nodes needs no twist limit).
        twist: Option<TwistDef<R>>,
        /// Compliance; 0 = hard.
        compliance: R,
    },
}

impl<R: Real> RigLimit<R> {
    /// A hard 2D angle limit.
    #[must_use]
    pub fn angle(a: impl Into<NodeRef>, b: impl Into<NodeRef>, c: impl Into<NodeRef>, min: R, max: R) -> Self {
        Self::Angle { a: a.into(), b: b.into(), c: c.into(), min, max, compliance: R::ZERO }
    }

    /// A hard 3D swing cone without twist limit.
    #[must_use]
    pub fn swing(a: impl Into<NodeRef>, b: impl Into<NodeRef>, c: impl Into<NodeRef>, swing_max: R) -> Self {
        Self::SwingTwist { a: a.into(), b: b.into(), c: c.into(), swing_max, twist: None, compliance: R::ZERO }
    }

    /// Adds a twist range to a swing limit (no effect on a 2D angle limit).
    #[must_use]
    pub fn with_twist(mut self, parent_ref: impl Into<NodeRef>, child_ref: impl Into<NodeRef>, min: R, max: R) -> Self {
        if let Self::SwingTwist { twist, .. } = &mut self {
            *twist = Some(TwistDef { parent_ref: parent_ref.into(), child_ref: child_ref.into(), min, max });
        }
        self
    }

    /// The joint node.
    #[must_use]
    pub fn joint(&self) -> &NodeRef {
        match self {
            Self::Angle { b, .. } | Self::SwingTwist { b, .. } => b,
        }
    }
}

/// A muscle: a node pair whose distance is driven toward a target pose's length.
#[derive(Clone, Debug, PartialEq)]
pub struct MuscleDef<R> {
    /// First node.
    pub a: NodeRef,
    /// Second node.
    pub b: NodeRef,
    /// Relative strength (≥ 0, default 1): the muscle's compliance is the rig-wide
    /// compliance divided by `strength × envelope` (0 = limp).
    pub strength: R,
}

impl<R: Real> MuscleDef<R> {
    /// A muscle of strength 1 between `a` and `b`.
    #[must_use]
    pub fn new(a: impl Into<NodeRef>, b: impl Into<NodeRef>) -> Self {
        Self { a: a.into(), b: b.into(), strength: R::ONE }
    }
}

/// A ragdoll rig: nodes, bones, joint limits and muscles (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct RigDef<S: Space> {
    /// Name (for messages and debugging).
    pub name: String,
    /// Nodes, in particle creation order.
    pub nodes: Vec<NodeDef<S>>,
    /// Bones (rigid distances).
    pub bones: Vec<BoneDef<RealOf<S>>>,
    /// Joint limits.
    pub limits: Vec<RigLimit<RealOf<S>>>,
    /// Muscles (used by [`MuscleRagdoll`](super::MuscleRagdoll); ignored by a plain
    /// [`Ragdoll`](super::Ragdoll)).
    pub muscles: Vec<MuscleDef<RealOf<S>>>,
    /// Root node (pose measurements are taken relative to it); `None` = node 0.
    pub root: Option<NodeRef>,
    /// Head node (for the head-speed statistic); `None` = no head.
    pub head: Option<NodeRef>,
}

impl<S: Space> Default for RigDef<S> {
    fn default() -> Self {
        Self {
            name: String::new(),
            nodes: Vec::new(),
            bones: Vec::new(),
            limits: Vec::new(),
            muscles: Vec::new(),
            root: None,
            head: None,
        }
    }
}

/// Which item of a rig an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RigItem {
    /// The rig as a whole.
    Rig,
    /// `nodes[i]`.
    Node(usize),
    /// `bones[i]`.
    Bone(usize),
    /// `limits[i]`.
    Limit(usize),
    /// `muscles[i]`.
    Muscle(usize),
    /// The root reference.
    Root,
    /// The head reference.
    Head,
    /// A pose or per-node list handed to a rig function.
    Pose,
}

impl core::fmt::Display for RigItem {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Rig => write!(f, "rig"),
            Self::Node(i) => write!(f, "node {i}"),
            Self::Bone(i) => write!(f, "bone {i}"),
            Self::Limit(i) => write!(f, "limit {i}"),
            Self::Muscle(i) => write!(f, "muscle {i}"),
            Self::Root => write!(f, "root"),
            Self::Head => write!(f, "head"),
            Self::Pose => write!(f, "pose"),
        }
    }
}

/// A rig validation error, naming the item and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RigError {
    /// The rig has no nodes.
    NoNodes,
    /// Two nodes share a name (indices of the first and second one).
    DuplicateName {
        /// The name.
        name: String,
        /// First node with it.
        first: usize,
        /// Second node with it.
        second: usize,
    },
    /// A node has an empty name.
    EmptyName {
        /// The node.
        node: usize,
    },
    /// A reference names no node.
    UnknownName {
        /// Where the reference is.
        item: RigItem,
        /// The name.
        name: String,
    },
    /// A reference's index is not below the node count.
    IndexOutOfRange {
        /// Where the reference is.
        item: RigItem,
        /// The index.
        index: usize,
        /// Number of nodes.
        nodes: usize,
    },
    /// A value is NaN or infinite.
    NonFinite {
        /// Where.
        item: RigItem,
        /// Which field.
        field: &'static str,
    },
    /// A value is out of its range, or the item is inconsistent.
    Invalid {
        /// Where.
        item: RigItem,
        /// Why.
        reason: &'static str,
    },
}

impl core::fmt::Display for RigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NoNodes => write!(f, "rig has no nodes"),
            Self::DuplicateName { name, first, second } => {
                write!(f, "nodes {first} and {second} are both named \"{name}\"")
            }
            Self::EmptyName { node } => write!(f, "node {node} has an empty name"),
            Self::UnknownName { item, name } => write!(f, "{item}: no node is named \"{name}\""),
            Self::IndexOutOfRange { item, index, nodes } => {
                write!(f, "{item}: node index {index} is out of range (the rig has {nodes} nodes)")
            }
            Self::NonFinite { item, field } => write!(f, "{item}: {field} is not finite"),
            Self::Invalid { item, reason } => write!(f, "{item}: {reason}"),
        }
    }
}

impl std::error::Error for RigError {}

impl From<RigError> for SinewError {
    fn from(e: RigError) -> Self {
        match e {
            RigError::NoNodes => SinewError::InvalidParameter { what: "rig", reason: "no nodes", value: None },
            RigError::DuplicateName { .. } => {
                SinewError::InvalidParameter { what: "rig node name", reason: "duplicate name", value: None }
            }
            RigError::EmptyName { .. } => {
                SinewError::InvalidParameter { what: "rig node name", reason: "empty name", value: None }
            }
            RigError::UnknownName { .. } => SinewError::InvalidParameter {
                what: "rig node reference",
                reason: "no node has that name",
                value: None,
            },
            RigError::IndexOutOfRange { .. } => {
                SinewError::InvalidParameter { what: "rig node reference", reason: "index out of range", value: None }
            }
            RigError::NonFinite { field, .. } => SinewError::NonFinite { what: field },
            RigError::Invalid { reason, .. } => SinewError::InvalidParameter { what: "rig", reason, value: None },
        }
    }
}

/// A joint limit with its nodes resolved to indices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ResolvedLimit<R> {
    /// 2D angle range `[min, max]` at `nodes[1]`.
    Angle {
        /// `[a, b, c]`.
        nodes: [usize; 3],
        /// Minimum (rad).
        min: R,
        /// Maximum (rad).
        max: R,
        /// Compliance.
        compliance: R,
    },
    /// 3D swing cone and optional twist range.
    SwingTwist {
        /// `[a, b, c]`.
        nodes: [usize; 3],
        /// Cone half-angle (rad).
        swing_max: R,
        /// `([parent_ref, child_ref], min, max)`.
        twist: Option<([usize; 2], R, R)>,
        /// Compliance.
        compliance: R,
    },
}

/// A rig with every reference resolved to a node index and every value checked; what
/// spawning works from. Obtained from [`RigDef::resolve`].
#[derive(Clone, Debug, PartialEq)]
pub struct ResolvedRig<R> {
    /// `(a, b, rest length at scale 1, compliance)` per bone.
    pub bones: Vec<(usize, usize, R, R)>,
    /// Joint limits.
    pub limits: Vec<ResolvedLimit<R>>,
    /// `(a, b, strength)` per muscle.
    pub muscles: Vec<(usize, usize, R)>,
    /// Root node index.
    pub root: usize,
    /// Head node index.
    pub head: Option<usize>,
}

impl<S: Space> RigDef<S> {
    /// An empty rig called `name`.
    #[must_use]
    pub fn new(name: impl Into<String>) -> Self {
        Self { name: name.into(), ..Self::default() }
    }

    /// Adds a node and returns its index.
    pub fn add_node(&mut self, node: NodeDef<S>) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// Adds a rigid bone between two nodes at their rest-pose distance.
    pub fn add_bone(&mut self, a: impl Into<NodeRef>, b: impl Into<NodeRef>) {
        self.bones.push(BoneDef::new(a, b));
    }

    /// Adds a joint limit.
    pub fn add_limit(&mut self, limit: RigLimit<RealOf<S>>) {
        self.limits.push(limit);
    }

    /// Adds a muscle of strength 1.
    pub fn add_muscle(&mut self, a: impl Into<NodeRef>, b: impl Into<NodeRef>) {
        self.muscles.push(MuscleDef::new(a, b));
    }

    /// Number of nodes.
    #[inline]
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Index of the node called `name` (first one if names repeat; validation rejects that).
    #[must_use]
    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }

    /// Total mass (kg).
    #[must_use]
    pub fn total_mass(&self) -> RealOf<S> {
        self.nodes.iter().fold(RealOf::<S>::ZERO, |m, n| m + n.mass)
    }

    /// Rest-pose positions of the nodes.
    #[must_use]
    pub fn rest_positions(&self) -> Vec<VecOf<S>> {
        self.nodes.iter().map(|n| n.position).collect()
    }

    /// Checks the whole rig (see the module docs).
    pub fn validate(&self) -> Result<(), RigError> {
        self.resolve().map(|_| ())
    }

    /// Validates the rig and resolves every node reference to an index.
    pub fn resolve(&self) -> Result<ResolvedRig<RealOf<S>>, RigError> {
        let names = self.name_table()?;
        let zero = RealOf::<S>::ZERO;
        for (i, n) in self.nodes.iter().enumerate() {
            let item = RigItem::Node(i);
            if !n.position.is_finite() {
                return Err(RigError::NonFinite { item, field: "node position" });
            }
            if !n.mass.is_finite() {
                return Err(RigError::NonFinite { item, field: "node mass" });
            }
            if !(n.mass > zero) {
                return Err(RigError::Invalid { item, reason: "node mass must be > 0" });
            }
            if !n.radius.is_finite() {
                return Err(RigError::NonFinite { item, field: "node radius" });
            }
            if n.radius < zero {
                return Err(RigError::Invalid { item, reason: "node radius must be ≥ 0" });
            }
            if let Some(f) = n.friction {
                if !f.is_finite() {
                    return Err(RigError::NonFinite { item, field: "node friction" });
                }
                if f < zero {
                    return Err(RigError::Invalid { item, reason: "node friction must be ≥ 0" });
                }
            }
        }
        let look = |item: RigItem, r: &NodeRef| self.lookup(&names, item, r);

        let mut bones = Vec::with_capacity(self.bones.len());
        for (i, b) in self.bones.iter().enumerate() {
            let item = RigItem::Bone(i);
            let (ia, ib) = (look(item, &b.a)?, look(item, &b.b)?);
            if ia == ib {
                return Err(RigError::Invalid { item, reason: "a bone needs two different nodes" });
            }
            let rest = match b.length {
                Some(l) => l,
                None => self.nodes[ia].position.distance(self.nodes[ib].position),
            };
            if !rest.is_finite() {
                return Err(RigError::NonFinite { item, field: "bone length" });
            }
            if !(rest > RealOf::<S>::GEOMETRIC_EPSILON) {
                return Err(RigError::Invalid { item, reason: "bone length must be > 0 (coincident nodes?)" });
            }
            check_compliance(item, b.compliance)?;
            bones.push((ia, ib, rest, b.compliance));
        }

        let pi = RealOf::<S>::PI;
        let mut limits = Vec::with_capacity(self.limits.len());
        for (i, l) in self.limits.iter().enumerate() {
            let item = RigItem::Limit(i);
            let r = match l {
                RigLimit::Angle { a, b, c, min, max, compliance } => {
                    if S::DIM != 2 {
                        return Err(RigError::Invalid { item, reason: "an angle limit needs a 2D rig" });
                    }
                    let nodes = distinct3(item, [look(item, a)?, look(item, b)?, look(item, c)?])?;
                    if !(min.is_finite() && max.is_finite()) {
                        return Err(RigError::NonFinite { item, field: "angle limit range" });
                    }
                    if *min < -pi || *max > pi || min > max {
                        return Err(RigError::Invalid { item, reason: "need -π ≤ min ≤ max ≤ π" });
                    }
                    check_compliance(item, *compliance)?;
                    ResolvedLimit::Angle { nodes, min: *min, max: *max, compliance: *compliance }
                }
                RigLimit::SwingTwist { a, b, c, swing_max, twist, compliance } => {
                    if S::DIM != 3 {
                        return Err(RigError::Invalid { item, reason: "a swing-twist limit needs a 3D rig" });
                    }
                    let nodes = distinct3(item, [look(item, a)?, look(item, b)?, look(item, c)?])?;
                    if !swing_max.is_finite() {
                        return Err(RigError::NonFinite { item, field: "swing limit" });
                    }
                    if !(*swing_max > zero) || *swing_max > pi {
                        return Err(RigError::Invalid { item, reason: "need 0 < swing_max ≤ π" });
                    }
                    check_compliance(item, *compliance)?;
                    let twist = match twist {
                        None => None,
                        Some(t) => {
                            let refs = [look(item, &t.parent_ref)?, look(item, &t.child_ref)?];
                            if !(t.min.is_finite() && t.max.is_finite()) {
                                return Err(RigError::NonFinite { item, field: "twist range" });
                            }
                            if t.min < -pi || t.max > pi || t.min > t.max {
                                return Err(RigError::Invalid {
                                    item, reason: "need -π ≤ twist min ≤ max ≤ π"
                                });
                            }
                            if refs[0] == refs[1] || refs.contains(&nodes[1]) {
                                return Err(RigError::Invalid {
                                    item,
                                    reason: "twist reference nodes must differ from each other and the joint",
                                });
                            }
                            Some((refs, t.min, t.max))
                        }
                    };
                    ResolvedLimit::SwingTwist { nodes, swing_max: *swing_max, twist, compliance: *compliance }
                }
            };
            limits.push(r);
        }

        let mut muscles = Vec::with_capacity(self.muscles.len());
        for (i, m) in self.muscles.iter().enumerate() {
            let item = RigItem::Muscle(i);
            let (ia, ib) = (look(item, &m.a)?, look(item, &m.b)?);
            if ia == ib {
                return Err(RigError::Invalid { item, reason: "a muscle needs two different nodes" });
            }
            if !m.strength.is_finite() {
                return Err(RigError::NonFinite { item, field: "muscle strength" });
            }
            if m.strength < zero {
                return Err(RigError::Invalid { item, reason: "muscle strength must be ≥ 0" });
            }
            muscles.push((ia, ib, m.strength));
        }
        let root = match &self.root {
            Some(r) => look(RigItem::Root, r)?,
            None => 0,
        };
        let head = match &self.head {
            Some(r) => Some(look(RigItem::Head, r)?),
            None => None,
        };
        Ok(ResolvedRig { bones, limits, muscles, root, head })
    }

    /// Sorted `(name, index)` table; rejects empty and duplicate names.
    fn name_table(&self) -> Result<Vec<(&str, usize)>, RigError> {
        if self.nodes.is_empty() {
            return Err(RigError::NoNodes);
        }
        let mut t: Vec<(&str, usize)> = self.nodes.iter().enumerate().map(|(i, n)| (n.name.as_str(), i)).collect();
        if let Some(&(_, i)) = t.iter().find(|(n, _)| n.is_empty()) {
            return Err(RigError::EmptyName { node: i });
        }
        // Stable sort keeps equal names in index order, so the error names the first pair.
        t.sort_by(|x, y| x.0.cmp(y.0));
        if let Some(w) = t.windows(2).find(|w| w[0].0 == w[1].0) {
            let (first, second) = (w[0].1.min(w[1].1), w[0].1.max(w[1].1));
            return Err(RigError::DuplicateName { name: w[0].0.to_owned(), first, second });
        }
        Ok(t)
    }

    fn lookup(&self, names: &[(&str, usize)], item: RigItem, r: &NodeRef) -> Result<usize, RigError> {
        match r {
            NodeRef::Index(i) if *i < self.nodes.len() => Ok(*i),
            NodeRef::Index(i) => Err(RigError::IndexOutOfRange { item, index: *i, nodes: self.nodes.len() }),
            NodeRef::Name(n) => names
                .binary_search_by(|(k, _)| (*k).cmp(n.as_str()))
                .map(|p| names[p].1)
                .map_err(|_| RigError::UnknownName { item, name: n.clone() }),
        }
    }
}

fn check_compliance<R: Real>(item: RigItem, c: R) -> Result<(), RigError> {
    if !c.is_finite() {
        return Err(RigError::NonFinite { item, field: "compliance" });
    }
    if c < R::ZERO {
        return Err(RigError::Invalid { item, reason: "compliance must be ≥ 0" });
    }
    Ok(())
}

fn distinct3(item: RigItem, n: [usize; 3]) -> Result<[usize; 3], RigError> {
    if n[0] == n[1] || n[1] == n[2] || n[0] == n[2] {
        return Err(RigError::Invalid { item, reason: "a joint limit needs three different nodes" });
    }
    Ok(n)
}
