//! The JSON scene format as serde structures (see `docs/SCENE_FORMAT.md`).
//!
//! Every struct denies unknown keys, so a typo is an error naming its path, not a
//! silently ignored setting. Vectors are plain arrays whose length is checked against
//! `dim` when the scene is built.

use serde::Deserialize;

/// A whole scene file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneSpec {
    /// 2 or 3.
    pub dim: u32,
    /// Free text.
    #[serde(default)]
    pub description: Option<String>,
    /// `"float"` (= `"f32"`, default), `"f32"`, `"f64"` or `"fixed"`.
    #[serde(default)]
    pub numeric: Option<String>,
    /// Gravity (m/s²); default `[0, -9.81(, 0)]`.
    #[serde(default)]
    pub gravity: Option<Vec<f64>>,
    /// Fixed time step (s); default 1/60.
    #[serde(default)]
    pub dt: Option<f64>,
    /// Substeps per step; default 8.
    #[serde(default)]
    pub substeps: Option<i64>,
    /// Iterations per substep; default 1.
    #[serde(default)]
    pub iterations: Option<i64>,
    /// Linear damping rate (1/s); default 0.
    #[serde(default)]
    pub damping: Option<f64>,
    /// Default friction; default 0.
    #[serde(default)]
    pub friction: Option<f64>,
    /// Default static friction; default = friction.
    #[serde(default)]
    pub static_friction: Option<f64>,
    /// Default restitution; default 0.
    #[serde(default)]
    pub restitution: Option<f64>,
    /// Contact-plane reuse distance (m); default 0.005.
    #[serde(default)]
    pub plane_reuse: Option<f64>,
    /// Impact passes per substep (`WorldDef::impact_passes`); default 0.
    #[serde(default)]
    pub impact_passes: Option<i64>,
    /// Exact tree solve of ragdolls' bones (`WorldDef::tree_solve`); default true in 2D,
    /// false in 3D.
    #[serde(default)]
    pub tree_solve: Option<bool>,
    /// Violated joint limits and contact planes as rows of the tree solve, 2D
    /// (`WorldDef::limit_rows`); default false.
    #[serde(default)]
    pub limit_rows: Option<bool>,
    /// Whole-body restitution of tree-solved bodies (`WorldDef::body_restitution`);
    /// default true.
    #[serde(default)]
    pub body_restitution: Option<bool>,
    /// Contacts between bodies: particles as spheres, bones and rope spans as capsules
    /// (`WorldDef::body_contacts`); default false.
    #[serde(default)]
    pub body_contacts: Option<bool>,
    /// Particles.
    #[serde(default)]
    pub particles: Vec<ParticleSpec>,
    /// Distance constraints.
    #[serde(default)]
    pub distances: Vec<DistanceSpec>,
    /// Tethers.
    #[serde(default)]
    pub tethers: Vec<TetherSpec>,
    /// Bending constraints.
    #[serde(default)]
    pub bendings: Vec<BendingSpec>,
    /// Attachments to fixed points.
    #[serde(default)]
    pub attachments: Vec<AttachmentSpec>,
    /// 2D angle limits.
    #[serde(default)]
    pub angle_limits: Vec<AngleLimitSpec>,
    /// 3D swing/twist limits.
    #[serde(default)]
    pub swing_twist_limits: Vec<SwingTwistSpec>,
    /// Colliders.
    #[serde(default)]
    pub colliders: Vec<ColliderSpec>,
    /// Keyframe drivers.
    #[serde(default)]
    pub drivers: Vec<DriverSpec>,
    /// Ropes (their particles are numbered after `particles`, rope by rope, start to end).
    #[serde(default)]
    pub ropes: Vec<RopeSpec>,
    /// Ragdolls (their particles are numbered after the ropes', ragdoll by ragdoll).
    #[serde(default)]
    pub ragdolls: Vec<RagdollSpec>,
    /// Fighters: driven ragdolls exchanging strikes (their particles are numbered after
    /// the ragdolls', fighter by fighter). At least two, or none.
    #[serde(default)]
    pub fighters: Vec<FighterSpec>,
    /// Moves added to (or, by name, replacing) the default fighting library.
    #[serde(default)]
    pub fight_moves: Vec<MoveSpec>,
    /// Seed of the aims drawn between temple and chin; default 1.
    #[serde(default)]
    pub fight_seed: Option<u64>,
    /// Whether the fighters' bodies collide with each other (`BoutDef::collide`); default
    /// on in 3D, off in 2D.
    #[serde(default)]
    pub fight_collide: Option<bool>,
    /// Rendering hints.
    #[serde(default)]
    pub view: Option<ViewSpec>,
    /// A brachiating character on a branch course (2D only; see `sinew::brachiation`).
    #[serde(default)]
    pub brachiator: Option<BrachiatorSpec>,
}

/// A brachiating character: `{"course": ..., "speed": [min, max], "planner": "ballistic"
/// | "sine", "seed": N}`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrachiatorSpec {
    /// The course: generated (`seed`, `length`) or explicit (`branches`).
    pub course: CourseSpec,
    /// Speed range `[min, max]` (m/s; default `[1.5, 9]`).
    pub speed: Option<Vec<f64>>,
    /// `"ballistic"` (default) or `"sine"`.
    pub planner: Option<String>,
    /// The planner's seed (default 1).
    pub seed: Option<u64>,
    /// Arm length (m; default 0.7).
    pub arm: Option<f64>,
}

/// A brachiation course.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CourseSpec {
    /// Seed of a generated course.
    pub seed: Option<u64>,
    /// Length of a generated course (m).
    pub length: Option<f64>,
    /// Explicit branches, each `{"from": [x, y], "to": [x, y]}`.
    pub branches: Option<Vec<BranchSpec>>,
    /// Handhold spacing along explicit branches (m; default 1).
    pub spacing: Option<f64>,
}

/// An explicit branch.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BranchSpec {
    /// One end.
    pub from: Vec<f64>,
    /// The other end.
    pub to: Vec<f64>,
}

/// A fighter.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FighterSpec {
    /// `"humanoid16"` (2D) or `"humanoid3d"` (3D).
    pub rig: String,
    /// Where the rig's origin goes (m).
    pub origin: Vec<f64>,
    /// The direction it faces (its horizontal part).
    pub facing: Vec<f64>,
    /// Move names played in a loop, or `{"random": seed}`. Default `{"random": k + 1}`.
    #[serde(default)]
    pub moves: Option<MovesSpec>,
    /// Damage (sum of hit impulses, N·s) that knocks it out; default 120.
    #[serde(default)]
    pub ko_threshold: Option<f64>,
}

/// A fighter's moves.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum MovesSpec {
    /// Names, in a loop.
    Script(Vec<String>),
    /// Drawn by a seeded generator.
    Random(RandomMovesSpec),
}

/// `{"random": seed}`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RandomMovesSpec {
    /// The seed.
    pub random: u64,
}

/// A move: keyframed sagittal angles of drive parts, optionally a strike.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveSpec {
    /// Unique name.
    pub name: String,
    /// Keyframes, the first at time 0.
    pub keys: Vec<KeyframeSpec>,
    /// The strike, if it is one.
    #[serde(default)]
    pub strike: Option<StrikeSpec>,
    /// A block (forearms up before the head); default false.
    #[serde(default)]
    pub blocking: Option<bool>,
    /// Forward step at mid-move (m); default 0.
    #[serde(default)]
    pub lunge: Option<f64>,
}

/// A keyframe.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyframeSpec {
    /// Time from the move's start (s).
    pub t: f64,
    /// Part name → sagittal angle (degrees) relative to its parent.
    pub targets: std::collections::BTreeMap<String, f64>,
}

/// A strike.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StrikeSpec {
    /// `"hand_l"`, `"hand_r"`, `"foot_l"` or `"foot_r"`.
    pub effector: String,
    /// Window `[from, to]` (s).
    pub window: Vec<f64>,
    /// Effector speed in the IK phase (m/s).
    pub speed: f64,
    /// `"head"` or `"torso"`; default head.
    #[serde(default)]
    pub zone: Option<String>,
    /// Contact area (m²); default 0.005.
    #[serde(default)]
    pub area: Option<f64>,
    /// Authored impulse (N·s) replacing the impact model's.
    #[serde(default)]
    pub impulse: Option<f64>,
}

/// A particle.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParticleSpec {
    /// Position (m).
    pub pos: Vec<f64>,
    /// Velocity (m/s).
    #[serde(default)]
    pub vel: Option<Vec<f64>>,
    /// Mass (kg); 0 pins. Default 1.
    #[serde(default)]
    pub mass: Option<f64>,
    /// Radius (m); default 0.
    #[serde(default)]
    pub radius: Option<f64>,
    /// Pinned while keeping its mass for a later release.
    #[serde(default)]
    pub pinned: Option<bool>,
    /// Gravity multiplier; default 1.
    #[serde(default)]
    pub gravity_scale: Option<f64>,
    /// Friction against colliders.
    #[serde(default)]
    pub friction: Option<f64>,
    /// Collides with colliders; default true.
    #[serde(default)]
    pub collides: Option<bool>,
}

/// A distance constraint.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DistanceSpec {
    /// First particle index.
    pub a: i64,
    /// Second particle index.
    pub b: i64,
    /// Rest length (m); default the initial distance.
    #[serde(default)]
    pub length: Option<f64>,
    /// Compliance (m/N); default 0.
    #[serde(default)]
    pub compliance: Option<f64>,
    /// Damping (N·s/m); default 0.
    #[serde(default)]
    pub damping: Option<f64>,
    /// Pull-only.
    #[serde(default)]
    pub unilateral: Option<bool>,
}

/// A tether.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TetherSpec {
    /// Constrained particle.
    pub particle: i64,
    /// Anchor particle.
    pub anchor: i64,
    /// Maximum distance; default the initial distance.
    #[serde(default)]
    pub length: Option<f64>,
}

/// A bending constraint.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BendingSpec {
    /// First particle.
    pub a: i64,
    /// Middle particle.
    pub b: i64,
    /// Last particle.
    pub c: i64,
    /// Compliance; default 0.
    #[serde(default)]
    pub compliance: Option<f64>,
}

/// An attachment.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttachmentSpec {
    /// Particle.
    pub particle: i64,
    /// Target point.
    pub target: Vec<f64>,
    /// Allowed distance; default 0.
    #[serde(default)]
    pub length: Option<f64>,
    /// Compliance; default 0.
    #[serde(default)]
    pub compliance: Option<f64>,
    /// Damping; default 0.
    #[serde(default)]
    pub damping: Option<f64>,
}

/// A 2D angle limit (degrees in the file).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AngleLimitSpec {
    /// Parent bone start.
    pub a: i64,
    /// Joint.
    pub b: i64,
    /// Child bone end.
    pub c: i64,
    /// Minimum angle (degrees).
    pub min_deg: f64,
    /// Maximum angle (degrees).
    pub max_deg: f64,
    /// Compliance; default 0.
    #[serde(default)]
    pub compliance: Option<f64>,
}

/// A 3D swing-cone + twist limit (degrees in the file).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwingTwistSpec {
    /// Parent bone start.
    pub a: i64,
    /// Joint.
    pub b: i64,
    /// Child bone end.
    pub c: i64,
    /// Cone half-angle (degrees).
    pub swing_deg: f64,
    /// Parent reference particle.
    #[serde(default)]
    pub parent_ref: Option<i64>,
    /// Child reference particle.
    #[serde(default)]
    pub child_ref: Option<i64>,
    /// Twist range start (degrees).
    #[serde(default)]
    pub twist_min_deg: Option<f64>,
    /// Twist range end (degrees).
    #[serde(default)]
    pub twist_max_deg: Option<f64>,
    /// Compliance; default 0.
    #[serde(default)]
    pub compliance: Option<f64>,
}

/// A collider: exactly one shape key.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
pub enum ColliderSpec {
    /// 2D circle.
    Circle(ShapeSpec),
    /// 3D sphere.
    Sphere(ShapeSpec),
    /// Half-plane / half-space.
    Plane(ShapeSpec),
    /// Oriented box.
    Box(ShapeSpec),
    /// Capsule.
    Capsule(ShapeSpec),
    /// 2D convex polygon.
    Polygon(ShapeSpec),
    /// 3D convex hull.
    Hull(ShapeSpec),
}

impl ColliderSpec {
    /// The shape key and its body.
    #[must_use]
    pub fn parts(&self) -> (&'static str, &ShapeSpec) {
        match self {
            Self::Circle(s) => ("circle", s),
            Self::Sphere(s) => ("sphere", s),
            Self::Plane(s) => ("plane", s),
            Self::Box(s) => ("box", s),
            Self::Capsule(s) => ("capsule", s),
            Self::Polygon(s) => ("polygon", s),
            Self::Hull(s) => ("hull", s),
        }
    }
}

/// The body of a collider. Which keys are required or allowed depends on the shape; the
/// builder checks that and names the offending key.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShapeSpec {
    /// Circle, sphere, box: centre.
    #[serde(default)]
    pub center: Option<Vec<f64>>,
    /// Circle, sphere, capsule: radius.
    #[serde(default)]
    pub radius: Option<f64>,
    /// Plane: normal.
    #[serde(default)]
    pub normal: Option<Vec<f64>>,
    /// Plane: offset.
    #[serde(default)]
    pub offset: Option<f64>,
    /// Box: half extents.
    #[serde(default)]
    pub half_extents: Option<Vec<f64>>,
    /// 2D box, polygon: rotation (radians).
    #[serde(default)]
    pub angle: Option<f64>,
    /// 3D box, hull: quaternion `[x, y, z, w]`.
    #[serde(default)]
    pub rotation: Option<Vec<f64>>,
    /// Capsule: first end.
    #[serde(default)]
    pub a: Option<Vec<f64>>,
    /// Capsule: second end.
    #[serde(default)]
    pub b: Option<Vec<f64>>,
    /// Polygon, hull: points.
    #[serde(default)]
    pub points: Option<Vec<Vec<f64>>>,
    /// Polygon, hull: translation applied to the points; default 0.
    #[serde(default)]
    pub position: Option<Vec<f64>>,
    /// Friction coefficient override.
    #[serde(default)]
    pub friction: Option<f64>,
    /// Static friction override.
    #[serde(default)]
    pub static_friction: Option<f64>,
    /// Restitution override.
    #[serde(default)]
    pub restitution: Option<f64>,
}

/// A keyframe driver.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriverSpec {
    /// Driven particle index.
    pub particle: i64,
    /// `[time, position]` keys.
    pub keys: Vec<(f64, Vec<f64>)>,
    /// Release after the last key.
    #[serde(default)]
    pub release: Option<bool>,
    /// Mass given on release to a mass-0 particle (kg); default 1.
    #[serde(default)]
    pub release_mass: Option<f64>,
    /// Grab: the particle stays free until the first key's time, then is taken where it
    /// is and moved by the keys' offsets from the first key. Default false.
    #[serde(default)]
    pub relative: Option<bool>,
}

/// Rendering hints.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewSpec {
    /// Lower-left corner of the 2D view (m), or the 3D bounding region's minimum.
    #[serde(default)]
    pub min: Option<Vec<f64>>,
    /// Upper-right corner.
    #[serde(default)]
    pub max: Option<Vec<f64>>,
    /// 3D camera yaw (degrees about y); default 30.
    #[serde(default)]
    pub yaw_deg: Option<f64>,
    /// 3D camera pitch (degrees); default 20.
    #[serde(default)]
    pub pitch_deg: Option<f64>,
}

/// A rope.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RopeSpec {
    /// Polyline the rope is laid along.
    pub points: Vec<Vec<f64>>,
    /// Segment count (default: from `segment_length`).
    #[serde(default)]
    pub segments: Option<i64>,
    /// Target segment length (m) when `segments` is absent; default 0.05.
    #[serde(default)]
    pub segment_length: Option<f64>,
    /// Total mass (kg); default 1.
    #[serde(default)]
    pub mass: Option<f64>,
    /// Radius (m); default 0.01.
    #[serde(default)]
    pub radius: Option<f64>,
    /// `"start"`, `"end"` and particle indices along the rope to pin.
    #[serde(default)]
    pub pin: Vec<serde_json::Value>,
    /// Stretch compliance (m/N); default 0.
    #[serde(default)]
    pub compliance: Option<f64>,
    /// Bending compliance; `null`/absent = no bending resistance.
    #[serde(default)]
    pub bend_compliance: Option<f64>,
    /// Tethers to pinned particles; default true.
    #[serde(default)]
    pub tethers: Option<bool>,
    /// Friction coefficient.
    #[serde(default)]
    pub friction: Option<f64>,
    /// Tear threshold (N); `null`/absent = never tears.
    #[serde(default)]
    pub tear_tension: Option<f64>,
    /// `[time, rest length]` schedule, interpolated linearly.
    #[serde(default)]
    pub reel: Option<Vec<(f64, f64)>>,
    /// End the reel acts on: `"start"` (default) or `"end"`.
    #[serde(default)]
    pub reel_end: Option<String>,
    /// Gravity multiplier; default 1.
    #[serde(default)]
    pub gravity_scale: Option<f64>,
    /// Wind velocity (m/s).
    #[serde(default)]
    pub wind: Option<Vec<f64>>,
    /// Drag toward the wind (N·s/m per particle); default 0.
    #[serde(default)]
    pub drag: Option<f64>,
    /// Spans collide (default true).
    #[serde(default)]
    pub edge_collisions: Option<bool>,
    /// Initial velocity of every rope particle (m/s): a thrown rope.
    #[serde(default)]
    pub velocity: Option<Vec<f64>>,
    /// Particles of the file (`particles` indices) the rope's ends are attached to: each
    /// becomes that end's node, its mass in the rope's exact solve (a heavy load hangs
    /// without stretching the rope); the rope starts/ends at its position.
    #[serde(default)]
    pub attach: Option<RopeAttachSpec>,
    /// When the rope is a taut polyline round its obstacles instead of particles:
    /// `"never"` (default), `"auto"` (taut when pulled straight, slack when rope is left
    /// over) or `"always"`.
    #[serde(default)]
    pub taut: Option<String>,
}

/// Which particles of the file a rope's ends are attached to (either key optional).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RopeAttachSpec {
    /// Index into the file's `particles` for the rope's first node.
    #[serde(default)]
    pub start: Option<i64>,
    /// Index into the file's `particles` for the rope's last node.
    #[serde(default)]
    pub end: Option<i64>,
}

/// A ragdoll from a preset rig.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RagdollSpec {
    /// `"humanoid16"` (2D) or `"humanoid3d"` (3D).
    pub preset: String,
    /// Where the rig's origin goes (m).
    pub origin: Vec<f64>,
    /// Size multiplier; default 1.
    #[serde(default)]
    pub scale: Option<f64>,
    /// 2D: the rig turned by this angle (radians, counter-clockwise) about its origin,
    /// e.g. `1.5708` to drop a figure lying flat. Default 0.
    #[serde(default)]
    pub angle: Option<f64>,
    /// 3D: the rig turned by this quaternion `[x, y, z, w]` (normalised) about its origin.
    /// Default the identity.
    #[serde(default)]
    pub rotation: Option<Vec<f64>>,
    /// Initial velocity of every node (m/s).
    #[serde(default)]
    pub velocity: Option<Vec<f64>>,
    /// Shadow Fight 3 muscle ragdoll (`humanoid16` in 2D, `humanoid3d` in 3D): edges,
    /// muscles toward the nearest preset pose, strength envelope, stabiliser nodes.
    /// Default false.
    #[serde(default)]
    pub muscles: Option<bool>,
    /// A hit at spawn: an impulse (N·s) applied at a world point.
    #[serde(default)]
    pub impulse: Option<ImpulseSpec>,
    /// Start pose: a preset pose of the rig (`humanoid16`: "stance", "crouch",
    /// "upright"; `humanoid3d`: "stance", "guard", "crouch", "fallen"; on y = 0 before
    /// `origin` is added). Default: the rest pose, or "stance" for muscle ragdolls.
    #[serde(default)]
    pub pose: Option<String>,
}

/// An impulse at a point.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImpulseSpec {
    /// World point (m); the nearest bone takes the hit.
    pub at: Vec<f64>,
    /// Impulse (N·s).
    pub impulse: Vec<f64>,
}
