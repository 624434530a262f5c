//! Ready-made rigs and target poses.
//!
//! All coordinates are metres, `y` up, the character facing `+x`; masses total 70 kg,
//! split after the usual anthropometric tables (Dempster/Winter: head ≈ 8 %, trunk ≈ 50 %,
//! each arm ≈ 5 %, each leg ≈ 16 %). Everything is built in the target scalar type from
//! decimal constants and [`Real`] arithmetic, so fixed-point rigs are bit-identical on
//! every machine.
//!
//! # `humanoid16` (2D, side view)
//!
//! ```text
//!        head ●                      16 nodes          bones (19)
//!             |                                        spine: pelvis–chest–neck–head
//!   shoulder ●●neck                                    shoulders: neck & chest (triangles)
//!           /  \                                       hips: pelvis & chest (triangles)
//!    elbow ●    ● chest                                arms: shoulder–elbow–hand
//!          |    |                                      legs: hip–knee–foot
//!     hand ●    ● pelvis (root)
//!               ● hips                                 limits (10): neck, spine, shoulders,
//!               |                                      elbows, hips, knees
//!          knee ●
//!               |
//!          foot ●
//! ```
//!
//! The sagittal (side) view is the one where a 2D ragdoll's joints have anatomical ranges:
//! knees and elbows are hinges in that plane. The torso is two rigid parts hinged at the
//! chest: the lower one (pelvis, chest, both hips) and the upper one (chest, neck, both
//! shoulders); the zig-zag placement (sacrum behind, sternum in front, neck behind) keeps
//! every triangle well shaped. Left and right limbs coincide at rest (they are side by
//! side in depth); there is no self-collision. Limits, as offsets from the rest angle
//! (counter-clockwise positive, i.e. forward for a limb swinging up in front):
//!
//! | joint | nodes `a–b–c` | range |
//! |---|---|---|
//! | neck | chest–neck–head | −40° … +40° |
//! | spine | pelvis–chest–neck | −45° (bend forward) … +20° |
//! | shoulder | neck–shoulder–elbow | −50° (extension) … +135° (flexion) |
//! | elbow | shoulder–elbow–hand | −2° … +145° |
//! | hip | pelvis–hip–knee | −20° (extension) … +120° (flexion) |
//! | knee | hip–knee–foot | −145° … +2° |
//!
//! Masses (kg): head 5, neck 2.5, chest 14.1, pelvis 12, shoulder 2.5, elbow 1.8,
//! hand 0.9, hip 6, knee 4.5, foot 2.5.
//!
//! # `humanoid16_stabilised` (2D muscle rig)
//!
//! `humanoid16` plus the two Shadow Fight 3 stabilisers (1 kg each, taken from chest and
//! pelvis so the total stays 70 kg, no ground collision): `stab_front` 0.4 m in front of
//! the chest, `stab_back` behind the body at knee height, each tied by edges to chest and
//! pelvis. 30 muscles hold every other node: each of neck, head, both elbows, hands,
//! knees and feet is pulled from both stabilisers and from one node across its joint.
//! [`humanoid16_poses`] gives the presets "stance" (fighting stance, lead foot forward),
//! "crouch" and "upright" (standing straight, feet a short step apart). A side-view body
//! stands only on feet that are apart: with both feet at one point it has no support
//! base, whatever its muscles do.
//!
//! # `humanoid3d` (3D, Jakobsen style, 26 particles)
//!
//! Rigid parts are particle clusters; joints share particles:
//!
//! | part | particles | joint to parent |
//! |---|---|---|
//! | lower torso | spine, pelvis, hip_l, hip_r (tetrahedron) | — |
//! | upper torso | spine, chest, neck, shoulder_l, shoulder_r | ball at `spine` |
//! | head | neck, head, nose (triangle) | ball at `neck` |
//! | upper arm | shoulder, elbow_in, elbow_out, elbow_ref | ball at `shoulder` |
//! | forearm | elbow_in, elbow_out, hand | hinge on `elbow_in–elbow_out` |
//! | thigh | hip, knee_in, knee_out, knee_ref | ball at `hip` |
//! | shin | knee_in, knee_out, foot | hinge on `knee_in–knee_out` |
//!
//! Swing cones (half-angle about the axis `a → joint`): spine 35° about pelvis → spine,
//! neck 45° about spine → neck, shoulders 110° about neck → shoulder (the rest arm hangs
//! 75° off that lateral-down axis), hips 95° about spine → hip. Twist ranges are the rest
//! twist ± a range, measured with reference particles as [`crate::SwingTwistLimit`]
//! defines them (parent reference against child reference):
//!
//! | joint | references | range |
//! |---|---|---|
//! | spine | `hip_l` against `shoulder_l` | ±35° |
//! | neck | `chest` against `nose` | ±70° |
//! | shoulder | `spine` against `elbow_ref` | ±70° (internal/external rotation of the arm) |
//! | hip | the other hip against `knee_ref` | ±45° (internal/external rotation of the leg) |
//!
//! The shoulder and hip references are 0.12–0.34 m off their bones' axes (the twist's
//! gradient grows as that distance shrinks). The twist projection moves all five
//! particles of a limit along the exact gradient of the twist, which keeps the large
//! shoulder and hip cones free of the energy a cruder projection would add (see
//! [`crate::SwingTwistLimit`]).
//!
//! The hinges need no twist limit; their flexion range is a cone whose axis comes from a
//! reference particle (`elbow_ref` behind the elbow, `knee_ref` in front of the knee)
//! placed so the axis points along the middle of the range (elbow 72.5° of flexion, knee
//! 70°): half-angles 74.5° and 72° give −2° … 147° and −2° … 142°. Masses (kg): head
//! 4.5, nose 0.5, neck 1.2, chest 10, shoulder 2.6, spine 7.5, pelvis 7.5, hip 5.5,
//! elbow particles 0.6 + 0.6 + 0.5 (reference), hand 0.9, knee particles 2.5 + 2.5 + 1.5,
//! foot 2.2.

//!
//! # `humanoid3d_stabilised` (3D muscle rig)
//!
//! `humanoid3d` plus a toe on each foot and four stabiliser nodes.
//!
//! **Toes.** A standing body of point masses on two point feet has a line for support and
//! topples off it. Each toe (1 kg, taken from its foot) hangs on an edge from its foot and
//! is placed by muscles (below): an ankle, so the sole can stay
//! flat whatever the shin's slope, and two feet give four points of support.
//!
//! **Stabilisers** (0.5 kg each, taken from spine and pelvis so the total stays 70 kg, no
//! ground collision), each tied by edges to the four particles of the lower torso, so they
//! move with it: `stab_front` 0.45 m in front of the chest, `stab_back` behind the body at
//! knee height, `stab_left` and `stab_right` 0.45 m out to either side at the lower ribs.
//!
//! **Muscles.** A muscle fixes a distance, which in 3D leaves a node a sphere to move on;
//! three anchors not in line with it leave two mirror points, far apart, so the solve never
//! jumps between them. Every node outside the lower torso is pulled from the front and
//! back stabilisers, from the side stabiliser of its side (both for the midline: chest,
//! neck, head, nose) and, as in 2D, from one node across its joint (neck from pelvis, head
//! and nose from chest, shoulders from pelvis, elbow particles from chest, hands from
//! their shoulders, knee particles from pelvis, feet from their hips); each toe also from
//! both knee particles: 101 muscles.
//!
//! **Poses.** [`humanoid3d_poses`] gives "stance" (a fighting stance, lead foot forward,
//! fists low), "guard" (the stance with both fists up before the face), "crouch" and
//! "fallen" (lying on its back, knees up); the rest pose stands with arms down. A pose is
//! built by turning each rigid part about its joint (so the hinges stay hinges and every
//! edge keeps its length), standing ones with soles level and the lower foot on `y = 0`,
//! the centre of mass over the feet.

use crate::constraint::SwingTwistLimit;
use crate::math::{Quat, Real, Rot2, Rotation, Vector, Vector2, Vector3};
use crate::space::{Space2, Space3};

use super::pose::{Pose, TargetPose};
use super::rig::{NodeDef, RigDef, RigLimit};

fn r<R: Real>(v: f64) -> R {
    R::from_f64(v)
}

fn deg<R: Real>(d: f64) -> R {
    R::from_f64(d) * R::PI / R::from_i32(180)
}

fn v2<R: Real>(x: f64, y: f64) -> Vector2<R> {
    Vector2::new(r(x), r(y))
}

fn v3<R: Real>(x: f64, y: f64, z: f64) -> Vector3<R> {
    Vector3::new(r(x), r(y), r(z))
}

/// `(name, x, y, mass, radius)` of the 16 nodes.
const H16: [(&str, f64, f64, f64, f64); 16] = [
    ("head", 0.03, 1.66, 5.0, 0.11),
    ("neck", -0.01, 1.51, 2.5, 0.05),
    ("chest", 0.07, 1.30, 14.1, 0.10),
    ("pelvis", -0.04, 1.00, 12.0, 0.09),
    ("shoulder_l", -0.03, 1.43, 2.5, 0.05),
    ("elbow_l", -0.05, 1.15, 1.8, 0.04),
    ("hand_l", -0.01, 0.89, 0.9, 0.045),
    ("shoulder_r", -0.03, 1.43, 2.5, 0.05),
    ("elbow_r", -0.05, 1.15, 1.8, 0.04),
    ("hand_r", -0.01, 0.89, 0.9, 0.045),
    ("hip_l", 0.04, 0.93, 6.0, 0.07),
    ("knee_l", 0.08, 0.51, 4.5, 0.05),
    ("foot_l", 0.04, 0.05, 2.5, 0.05),
    ("hip_r", 0.04, 0.93, 6.0, 0.07),
    ("knee_r", 0.08, 0.51, 4.5, 0.05),
    ("foot_r", 0.04, 0.05, 2.5, 0.05),
];

/// The signed 2D joint angle at `b` (as [`crate::AngleLimit`] measures it).
fn angle2<R: Real>(a: Vector2<R>, b: Vector2<R>, c: Vector2<R>) -> R {
    crate::AngleLimit::angle(a, b, c)
}

/// A 2D limit at `rest angle + [lo, hi]` degrees (`rest` false: `[lo, hi]` from
/// straight), clamped to `[−π, π]`.
fn limit2<R: Real>(rig: &RigDef<Space2<R>>, [a, b, c]: [&str; 3], lo: f64, hi: f64, rest: bool) -> RigLimit<R> {
    let p = |n: &str| rig.nodes[rig.node_index(n).unwrap_or(0)].position;
    let rest = if rest { angle2(p(a), p(b), p(c)) } else { R::ZERO };
    let min = (rest + deg(lo)).clamp(-R::PI, R::PI);
    let max = (rest + deg(hi)).clamp(-R::PI, R::PI);
    RigLimit::angle(a, b, c, min, max)
}

/// The 16-node 2D humanoid (see the module docs).
#[must_use]
pub fn humanoid16<R: Real>() -> RigDef<Space2<R>> {
    let mut rig = RigDef::new("humanoid16");
    for (name, x, y, m, rad) in H16 {
        rig.add_node(NodeDef::new(name, v2(x, y)).mass(r(m)).radius(r(rad)));
    }
    for (a, b) in [("pelvis", "chest"), ("chest", "neck"), ("neck", "head")] {
        rig.add_bone(a, b);
    }
    for s in ["l", "r"] {
        let n = |p: &str| format!("{p}_{s}");
        rig.add_bone(n("shoulder"), "neck");
        rig.add_bone(n("shoulder"), "chest");
        rig.add_bone(n("shoulder"), n("elbow"));
        rig.add_bone(n("elbow"), n("hand"));
        rig.add_bone(n("hip"), "pelvis");
        rig.add_bone(n("hip"), "chest");
        rig.add_bone(n("hip"), n("knee"));
        rig.add_bone(n("knee"), n("foot"));
    }
    let lim = [
        limit2(&rig, ["chest", "neck", "head"], -40.0, 40.0, true),
        limit2(&rig, ["pelvis", "chest", "neck"], -45.0, 20.0, true),
    ];
    rig.limits.extend(lim);
    for s in ["l", "r"] {
        let n = |p: &str| format!("{p}_{s}");
        let l = [
            limit2(&rig, ["neck", &n("shoulder"), &n("elbow")], -50.0, 135.0, true),
            limit2(&rig, [&n("shoulder"), &n("elbow"), &n("hand")], -2.0, 145.0, false),
            limit2(&rig, ["pelvis", &n("hip"), &n("knee")], -20.0, 120.0, true),
            limit2(&rig, [&n("hip"), &n("knee"), &n("foot")], -145.0, 2.0, false),
        ];
        rig.limits.extend(l);
    }
    rig.root = Some("pelvis".into());
    rig.head = Some("head".into());
    rig
}

/// `humanoid16` with two stabiliser nodes and 30 muscles: the Shadow Fight 3 muscle rig
/// (see the module docs).
#[must_use]
pub fn humanoid16_stabilised<R: Real>() -> RigDef<Space2<R>> {
    let mut rig = humanoid16::<R>();
    rig.name = "humanoid16_stabilised".into();
    for (name, m) in [("chest", 13.1), ("pelvis", 11.0)] {
        if let Some(i) = rig.node_index(name) {
            rig.nodes[i].mass = r(m);
        }
    }
    rig.add_node(NodeDef::new("stab_front", v2(0.47, 1.30)).mass(r(1.0)).collides(false));
    rig.add_node(NodeDef::new("stab_back", v2(-0.45, 0.60)).mass(r(1.0)).collides(false));
    for s in ["stab_front", "stab_back"] {
        rig.add_bone(s, "chest");
        rig.add_bone(s, "pelvis");
    }
    // (node, its anchor across the joint)
    let mut pulled: Vec<(String, String)> = vec![("neck".into(), "pelvis".into()), ("head".into(), "chest".into())];
    for s in ["l", "r"] {
        pulled.push((format!("elbow_{s}"), "chest".into()));
        pulled.push((format!("hand_{s}"), format!("shoulder_{s}")));
        pulled.push((format!("knee_{s}"), "pelvis".into()));
        pulled.push((format!("foot_{s}"), format!("hip_{s}")));
    }
    for (node, across) in pulled {
        rig.add_muscle("stab_front", node.as_str());
        rig.add_muscle("stab_back", node.as_str());
        rig.add_muscle(across, node);
    }
    rig
}

/// Two-bone IK in 2D: where the middle joint goes so that `root → mid` is `l1` and
/// `mid → end` is `l2` with the end as near `target` as reachable. `ccw` chooses the bend:
/// true for a counter-clockwise joint angle (elbow), false for clockwise (knee).
fn ik2<R: Real>(root: Vector2<R>, target: Vector2<R>, l1: R, l2: R, ccw: bool) -> (Vector2<R>, Vector2<R>) {
    let (dir, d) = (target - root).normalize_and_length();
    let d = d.clamp((l1 - l2).abs(), l1 + l2);
    let a = (l1 * l1 - l2 * l2 + d * d) / (R::TWO * d);
    let h = (l1 * l1 - a * a).max(R::ZERO).sqrt();
    let side = if ccw { -dir.perp() } else { dir.perp() };
    (root + dir * a + side * h, root + dir * d)
}

/// How to pose `humanoid16_stabilised` (degrees, metres).
struct PoseSpec {
    pelvis: (f64, f64),
    lean: f64,
    spine: f64,
    neck: f64,
    /// Hands relative to their shoulders: (left, right).
    hands: [(f64, f64); 2],
    /// Feet x (y is the foot radius): (left, right).
    feet: [f64; 2],
}

fn build_pose<R: Real>(rig: &RigDef<Space2<R>>, s: &PoseSpec) -> Pose<Space2<R>> {
    let rest = rig.rest_positions();
    let ix = |n: &str| rig.node_index(n).unwrap_or(0);
    let mut p = rest.clone();
    let pelvis = v2::<R>(s.pelvis.0, s.pelvis.1);
    let r_low = Rot2::from_angle(deg::<R>(s.lean));
    let r_up = Rot2::from_angle(deg::<R>(s.lean + s.spine));
    let r_head = Rot2::from_angle(deg::<R>(s.lean + s.spine + s.neck));
    let rp = rest[ix("pelvis")];
    for n in ["pelvis", "chest", "hip_l", "hip_r", "stab_front", "stab_back"] {
        p[ix(n)] = pelvis + r_low.rotate(rest[ix(n)] - rp);
    }
    let (chest, rc) = (p[ix("chest")], rest[ix("chest")]);
    for n in ["neck", "shoulder_l", "shoulder_r"] {
        p[ix(n)] = chest + r_up.rotate(rest[ix(n)] - rc);
    }
    p[ix("head")] = p[ix("neck")] + r_head.rotate(rest[ix("head")] - rest[ix("neck")]);
    let len = |a: &str, b: &str| rest[ix(a)].distance(rest[ix(b)]);
    for (k, side) in ["l", "r"].iter().enumerate() {
        let (sh, el, ha) = (format!("shoulder_{side}"), format!("elbow_{side}"), format!("hand_{side}"));
        let target = p[ix(&sh)] + v2(s.hands[k].0, s.hands[k].1);
        let (e, h) = ik2(p[ix(&sh)], target, len(&sh, &el), len(&el, &ha), true);
        p[ix(&el)] = e;
        p[ix(&ha)] = h;
        let (hi, kn, ft) = (format!("hip_{side}"), format!("knee_{side}"), format!("foot_{side}"));
        let foot_r = rig.nodes[ix(&ft)].radius;
        let target = Vector2::new(r::<R>(s.feet[k]), foot_r);
        let (kk, f) = ik2(p[ix(&hi)], target, len(&hi, &kn), len(&kn, &ft), false);
        p[ix(&kn)] = kk;
        p[ix(&ft)] = f;
    }
    Pose::new(p)
}

/// Target poses of [`humanoid16_stabilised`]: "stance", "crouch", "upright" (node
/// positions, feet on the ground at `y = 0`).
#[must_use]
pub fn humanoid16_poses<R: Real>() -> Vec<(&'static str, Pose<Space2<R>>)> {
    let rig = humanoid16_stabilised::<R>();
    let stance = PoseSpec {
        pelvis: (0.0, 0.90),
        lean: -8.0,
        spine: -5.0,
        neck: 10.0,
        hands: [(0.30, 0.08), (0.22, 0.12)],
        feet: [0.30, -0.26],
    };
    let crouch = PoseSpec {
        pelvis: (0.0, 0.66),
        lean: -25.0,
        spine: -10.0,
        neck: 25.0,
        hands: [(0.32, 0.0), (0.25, 0.05)],
        feet: [0.30, -0.24],
    };
    let upright = PoseSpec {
        pelvis: (0.0, 0.99),
        lean: 0.0,
        spine: 0.0,
        neck: 0.0,
        hands: [(0.06, -0.52), (0.0, -0.53)],
        feet: [0.15, -0.09],
    };
    vec![
        ("stance", build_pose(&rig, &stance)),
        ("crouch", build_pose(&rig, &crouch)),
        ("upright", build_pose(&rig, &upright)),
    ]
}

/// [`humanoid16_poses`] as muscle target poses of [`humanoid16_stabilised`].
#[must_use]
pub fn humanoid16_targets<R: Real>() -> Vec<TargetPose<R>> {
    let rig = humanoid16_stabilised::<R>();
    humanoid16_poses::<R>().into_iter().filter_map(|(n, p)| TargetPose::from_pose(n, &rig, &p).ok()).collect()
}

/// `(name, x, y, z, mass, radius)` of the 3D humanoid's nodes, except the two hinge
/// reference particles per side which are computed.
const H3D: [(&str, f64, f64, f64, f64, f64); 16] = [
    ("head", 0.02, 1.66, 0.0, 4.5, 0.10),
    ("nose", 0.12, 1.64, 0.0, 0.5, 0.03),
    ("neck", -0.01, 1.50, 0.0, 1.2, 0.05),
    ("chest", 0.08, 1.32, 0.0, 10.0, 0.10),
    ("shoulder_l", 0.0, 1.44, -0.18, 2.6, 0.05),
    ("shoulder_r", 0.0, 1.44, 0.18, 2.6, 0.05),
    ("spine", -0.02, 1.14, 0.0, 7.5, 0.09),
    ("pelvis", -0.06, 1.00, 0.0, 7.5, 0.09),
    ("hip_l", 0.03, 0.93, -0.10, 5.5, 0.08),
    ("hip_r", 0.03, 0.93, 0.10, 5.5, 0.08),
    ("elbow_in_l", -0.02, 1.16, -0.165, 0.6, 0.035),
    ("elbow_out_l", -0.02, 1.16, -0.235, 0.6, 0.035),
    ("hand_l", -0.02, 0.90, -0.20, 0.9, 0.045),
    ("knee_in_l", 0.05, 0.51, -0.05, 2.5, 0.05),
    ("knee_out_l", 0.05, 0.51, -0.15, 2.5, 0.05),
    ("foot_l", 0.03, 0.06, -0.10, 2.2, 0.06),
];

fn mirror<R: Real>(v: Vector3<R>) -> Vector3<R> {
    Vector3::new(v.x, v.y, -v.z)
}

/// A 3D swing-twist limit with the twist range `rest twist ± range` (degrees).
fn swing_twist<R: Real>(
    rig: &RigDef<Space3<R>>,
    [a, b, c]: [&str; 3],
    swing: f64,
    [pr, cr]: [&str; 2],
    range: f64,
) -> RigLimit<R> {
    let p = |n: &str| rig.nodes[rig.node_index(n).unwrap_or(0)].position;
    let rest = SwingTwistLimit::twist(p(a), p(b), p(c), p(pr), p(cr)).unwrap_or(R::ZERO);
    let lo = (rest - deg(range)).clamp(-R::PI, R::PI);
    let hi = (rest + deg(range)).clamp(-R::PI, R::PI);
    RigLimit::swing(a, b, c, deg(swing)).with_twist(pr, cr, lo, hi)
}

/// The 26-particle 3D humanoid (see the module docs).
#[must_use]
pub fn humanoid3d<R: Real>() -> RigDef<Space3<R>> {
    let mut rig = RigDef::new("humanoid3d");
    // Left-side nodes are in the table; right-side limb nodes mirror them.
    for (name, x, y, z, m, rad) in H3D {
        rig.add_node(NodeDef::new(name, v3(x, y, z)).mass(r(m)).radius(r(rad)));
    }
    for name in ["elbow_in", "elbow_out", "hand", "knee_in", "knee_out", "foot"] {
        let i = rig.node_index(&format!("{name}_l")).unwrap_or(0);
        let n = rig.nodes[i].clone();
        rig.add_node(NodeDef { name: format!("{name}_r"), position: mirror(n.position), ..n });
    }
    // Hinge reference particles: 0.1 m from the inner hinge particle, opposite to the
    // child bone's direction at mid-range, so the cone's axis is the middle of the range.
    let (elbow_mid, knee_mid) = (deg::<R>(72.5), deg::<R>(70.0));
    let d_elbow = Vector3::new(elbow_mid.sin(), -elbow_mid.cos(), R::ZERO);
    let d_knee = Vector3::new(-knee_mid.sin(), -knee_mid.cos(), R::ZERO);
    let tenth = R::from_ratio(1, 10);
    for s in ["l", "r"] {
        let ein = rig.nodes[rig.node_index(&format!("elbow_in_{s}")).unwrap_or(0)].position;
        let kin = rig.nodes[rig.node_index(&format!("knee_in_{s}")).unwrap_or(0)].position;
        rig.add_node(NodeDef::new(format!("elbow_ref_{s}"), ein - d_elbow * tenth).mass(r(0.5)).radius(r(0.03)));
        rig.add_node(NodeDef::new(format!("knee_ref_{s}"), kin - d_knee * tenth).mass(r(1.5)).radius(r(0.04)));
    }
    // Head, upper torso (5 particles, 10 bones), lower torso (tetrahedron).
    let bones = [
        ("neck", "head"),
        ("neck", "nose"),
        ("head", "nose"),
        ("neck", "chest"),
        ("neck", "shoulder_l"),
        ("neck", "shoulder_r"),
        ("chest", "shoulder_l"),
        ("chest", "shoulder_r"),
        ("shoulder_l", "shoulder_r"),
        ("spine", "chest"),
        ("spine", "neck"),
        ("spine", "shoulder_l"),
        ("spine", "shoulder_r"),
        ("spine", "pelvis"),
        ("spine", "hip_l"),
        ("spine", "hip_r"),
        ("pelvis", "hip_l"),
        ("pelvis", "hip_r"),
        ("hip_l", "hip_r"),
    ];
    for (a, b) in bones {
        rig.add_bone(a, b);
    }
    for s in ["l", "r"] {
        let n = |p: &str| format!("{p}_{s}");
        for (root, jin, jout, rf, end) in [
            ("shoulder", "elbow_in", "elbow_out", "elbow_ref", "hand"),
            ("hip", "knee_in", "knee_out", "knee_ref", "foot"),
        ] {
            // Upper part: tetrahedron root, in, out, ref. Lower part: triangle in, out, end.
            for (a, b) in
                [(root, jin), (root, jout), (jin, jout), (rf, root), (rf, jin), (rf, jout), (jin, end), (jout, end)]
            {
                rig.add_bone(n(a), n(b));
            }
        }
    }
    let lim = [
        swing_twist(&rig, ["pelvis", "spine", "neck"], 35.0, ["hip_l", "shoulder_l"], 35.0),
        swing_twist(&rig, ["spine", "neck", "head"], 45.0, ["chest", "nose"], 70.0),
    ];
    rig.limits.extend(lim);
    for s in ["l", "r"] {
        let n = |p: &str| format!("{p}_{s}");
        let other = if s == "l" { "hip_r" } else { "hip_l" };
        let l = [
            swing_twist(&rig, ["neck", &n("shoulder"), &n("elbow_out")], 110.0, ["spine", &n("elbow_ref")], 70.0),
            RigLimit::swing(n("elbow_ref"), n("elbow_in"), n("hand"), deg(74.5)),
            swing_twist(&rig, ["spine", &n("hip"), &n("knee_out")], 95.0, [other, &n("knee_ref")], 45.0),
            RigLimit::swing(n("knee_ref"), n("knee_in"), n("foot"), deg(72.0)),
        ];
        rig.limits.extend(l);
    }
    rig.root = Some("pelvis".into());
    rig.head = Some("head".into());
    rig
}

/// `humanoid3d` with toes, four stabiliser nodes and 101 muscles: the muscle rig in 3D
/// (see the module docs).
#[must_use]
pub fn humanoid3d_stabilised<R: Real>() -> RigDef<Space3<R>> {
    let mut rig = humanoid3d::<R>();
    rig.name = "humanoid3d_stabilised".into();
    for (name, m) in [("spine", 6.5), ("pelvis", 6.5)] {
        if let Some(i) = rig.node_index(name) {
            rig.nodes[i].mass = r(m);
        }
    }
    let stabs = [
        ("stab_front", v3::<R>(0.45, 1.30, 0.0)),
        ("stab_back", v3(-0.45, 0.60, 0.0)),
        ("stab_left", v3(-0.02, 1.20, -0.45)),
        ("stab_right", v3(-0.02, 1.20, 0.45)),
    ];
    for (name, at) in stabs {
        rig.add_node(NodeDef::new(name, at).mass(r(0.5)).collides(false));
        for torso in ["spine", "pelvis", "hip_l", "hip_r"] {
            rig.add_bone(name, torso);
        }
    }
    // A point foot gives a standing body two points of support, a line it topples
    // off: each foot gets a toe on an edge from the foot, placed by two muscles from the
    // knee (an ankle: the sole stays flat on the ground whatever the shin's slope).
    for s in ["l", "r"] {
        let (foot, z) = (format!("foot_{s}"), if s == "l" { -0.10 } else { 0.10 });
        let toe = format!("toe_{s}");
        rig.add_node(NodeDef::new(toe.as_str(), v3(0.19, 0.04, z)).mass(r(1.0)).radius(r(0.04)));
        rig.add_bone(toe.as_str(), foot.as_str());
        rig.add_muscle(format!("knee_in_{s}"), toe.as_str());
        rig.add_muscle(format!("knee_out_{s}"), toe.as_str());
        if let Some(i) = rig.node_index(&foot) {
            rig.nodes[i].mass = r(1.2);
        }
    }
    let mut pulled: Vec<(String, [&str; 2], &str)> = Vec::new();
    for (node, across) in [("chest", ""), ("neck", "pelvis"), ("head", "chest"), ("nose", "chest")] {
        pulled.push((node.into(), ["stab_left", "stab_right"], across));
    }
    for s in ["l", "r"] {
        let side = if s == "l" { "stab_left" } else { "stab_right" };
        let shoulder = if s == "l" { "shoulder_l" } else { "shoulder_r" };
        let hip = if s == "l" { "hip_l" } else { "hip_r" };
        for (node, across) in [
            ("shoulder", "pelvis"),
            ("elbow_in", "chest"),
            ("elbow_out", "chest"),
            ("elbow_ref", "chest"),
            ("hand", shoulder),
            ("knee_in", "pelvis"),
            ("knee_out", "pelvis"),
            ("knee_ref", "pelvis"),
            ("foot", hip),
            ("toe", ""),
        ] {
            pulled.push((format!("{node}_{s}"), [side, ""], across));
        }
    }
    for (node, sides, across) in pulled {
        for anchor in ["stab_front", "stab_back", sides[0], sides[1], across] {
            if !anchor.is_empty() {
                rig.add_muscle(anchor, node.as_str());
            }
        }
    }
    rig
}

/// How to pose `humanoid3d_stabilised` (degrees; rotations about `+z` turn a limb that
/// hangs down forward, about `+x` turn the left limbs out to the left).
struct PoseSpec3 {
    /// The pelvis's `x` and `z` (standing poses stand on the lower foot).
    pelvis: (f64, f64),
    /// The whole body turned about `+z` (90: lying on its back).
    body: f64,
    /// Forward lean of the lower torso, further bend of the upper torso, nod of the head.
    lean: f64,
    spine: f64,
    neck: f64,
    /// Per side (left, right): shoulder flexion, shoulder abduction, elbow flexion.
    arms: [(f64, f64, f64); 2],
    /// Per side: hip flexion, hip abduction, knee flexion.
    legs: [(f64, f64, f64); 2],
}

fn rz<R: Real>(d: f64) -> Quat<R> {
    Quat::from_axis_angle(Vector3::new(R::ZERO, R::ZERO, R::ONE), deg(d))
}

fn rx<R: Real>(d: f64) -> Quat<R> {
    Quat::from_axis_angle(Vector3::new(R::ONE, R::ZERO, R::ZERO), deg(d))
}

fn build_pose3<R: Real>(rig: &RigDef<Space3<R>>, s: &PoseSpec3) -> Pose<Space3<R>> {
    let rest = rig.rest_positions();
    let ix = |n: &str| rig.node_index(n).unwrap_or(0);
    let mut p = rest.clone();
    // Moves the part `nodes` rigidly: `pivot` (already placed) stays, the rest turn by `q`.
    let part = |p: &mut Vec<Vector3<R>>, pivot: &str, q: Quat<R>, nodes: &[&str]| {
        let (at, r0) = (p[ix(pivot)], rest[ix(pivot)]);
        for n in nodes {
            p[ix(n)] = at + q.rotate(rest[ix(n)] - r0);
        }
    };
    let body = rz::<R>(s.body);
    let standing = s.body.abs() < 1.0;
    let low = body.compose(rz(-s.lean));
    let lower = ["spine", "hip_l", "hip_r", "stab_front", "stab_back", "stab_left", "stab_right"];
    part(&mut p, "pelvis", low, &lower);
    let up = low.compose(rz(-s.spine));
    part(&mut p, "spine", up, &["chest", "neck", "shoulder_l", "shoulder_r"]);
    part(&mut p, "neck", up.compose(rz(-s.neck)), &["head", "nose"]);
    for (k, side) in ["l", "r"].into_iter().enumerate() {
        let out = if side == "l" { 1.0 } else { -1.0 };
        let n = |x: &str| format!("{x}_{side}");
        let (flex, abd, elbow) = s.arms[k];
        let arm = up.compose(rz(flex)).compose(rx(out * abd));
        part(&mut p, &n("shoulder"), arm, &[&n("elbow_in"), &n("elbow_out"), &n("elbow_ref"), &n("hand")]);
        part(&mut p, &n("elbow_in"), arm.compose(rz(elbow)), &[&n("hand")]);
        let (flex, abd, knee) = s.legs[k];
        let thigh = low.compose(rz(flex)).compose(rx(out * abd));
        part(&mut p, &n("hip"), thigh, &[&n("knee_in"), &n("knee_out"), &n("knee_ref"), &n("foot")]);
        let shin = thigh.compose(rz(-knee));
        part(&mut p, &n("knee_in"), shin, &[&n("foot")]);
        // The toe: the sole level and facing the way the body faces when standing, turned
        // with the shin (the ankle at rest) when lying.
        let sole = if standing { body } else { shin };
        part(&mut p, &n("foot"), sole, &[&n("toe")]);
    }
    if standing {
        // Both heels on the ground: the whole body pitched (about `z`) until the line
        // between the heels is level, then the soles levelled again at the ankles.
        let (hl, hr) = (p[ix("foot_l")], p[ix("foot_r")]);
        let (a, b) = if hl.x <= hr.x { (hl, hr) } else { (hr, hl) };
        let pitch = Quat::from_axis_angle(Vector3::new(R::ZERO, R::ZERO, R::ONE), -(b.y - a.y).atan2(b.x - a.x));
        for x in p.iter_mut() {
            *x = pitch.rotate(*x);
        }
        for side in ["l", "r"] {
            part(&mut p, &format!("foot_{side}"), body, &[&format!("toe_{side}")]);
        }
    }
    // Standing: the soles on the ground; lying: the lowest colliding node.
    let lowest = |names: &mut dyn Iterator<Item = usize>| {
        names.map(|i| p[i].y - rig.nodes[i].radius).fold(R::from_i32(1000), |a, b| a.min(b))
    };
    let ground = if standing {
        lowest(&mut ["foot_l", "foot_r", "toe_l", "toe_r"].into_iter().map(ix))
    } else {
        lowest(&mut (0..p.len()).filter(|&i| rig.nodes[i].collides))
    };
    let pelvis = p[ix("pelvis")];
    let shift = Vector3::new(r::<R>(s.pelvis.0) - pelvis.x, -ground, r::<R>(s.pelvis.1) - pelvis.z);
    Pose::new(p.into_iter().map(|x| x + shift).collect())
}

/// Target poses of [`humanoid3d_stabilised`]: "stance", "guard", "crouch", "fallen" (node
/// positions, on the ground at `y = 0`).
#[must_use]
pub fn humanoid3d_poses<R: Real>() -> Vec<(&'static str, Pose<Space3<R>>)> {
    let rig = humanoid3d_stabilised::<R>();
    let stance = PoseSpec3 {
        pelvis: (0.0, 0.0),
        body: 0.0,
        lean: 8.0,
        spine: 5.0,
        neck: -10.0,
        arms: [(35.0, 15.0, 80.0), (25.0, 15.0, 95.0)],
        legs: [(20.0, 8.0, 30.0), (-15.0, 8.0, 5.0)],
    };
    let guard = PoseSpec3 { arms: [(55.0, 20.0, 130.0), (45.0, 20.0, 135.0)], ..stance };
    let crouch = PoseSpec3 {
        lean: 25.0,
        spine: 10.0,
        neck: -30.0,
        arms: [(35.0, 15.0, 80.0), (30.0, 15.0, 90.0)],
        legs: [(85.0, 12.0, 110.0), (85.0, 12.0, 110.0)],
        ..stance
    };
    let fallen = PoseSpec3 {
        pelvis: (0.0, 0.0),
        body: 90.0,
        lean: 0.0,
        spine: 0.0,
        neck: 0.0,
        arms: [(10.0, 30.0, 20.0), (10.0, 30.0, 20.0)],
        legs: [(40.0, 8.0, 70.0), (40.0, 8.0, 70.0)],
    };
    vec![
        ("stance", build_pose3(&rig, &stance)),
        ("guard", build_pose3(&rig, &guard)),
        ("crouch", build_pose3(&rig, &crouch)),
        ("fallen", build_pose3(&rig, &fallen)),
    ]
}

/// [`humanoid3d_poses`] as muscle target poses of [`humanoid3d_stabilised`].
#[must_use]
pub fn humanoid3d_targets<R: Real>() -> Vec<TargetPose<R>> {
    let rig = humanoid3d_stabilised::<R>();
    humanoid3d_poses::<R>().into_iter().filter_map(|(n, p)| TargetPose::from_pose(n, &rig, &p).ok()).collect()
}
