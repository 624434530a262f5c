//! The level-of-detail chain: the two-point state (centre of mass, hands) mapped up to a
//! 5-point rig (shoulders, hands, body) and a 14-point rig with two-bone IK, then to the
//! angles of display bones — each level constrained by the one below.
//!
//! * **Hand contact.** The 14-point hands are placed by two-bone IK from the shoulders to
//!   the two-point rig's hands (law of cosines: with upper arm `a`, forearm `b` and
//!   shoulder-to-target distance `d`, the shoulder's angle off the target line is
//!   `acos((a² + d² − b²) / 2ad)`), so they coincide wherever the target is in reach.
//! * **COM continuity.** The torso, head and legs are a rigid template along the torso
//!   axis (from the centre of mass toward the holding hand, else up); the template is
//!   translated until the 14 points' mass-weighted centre equals the two-point centre of
//!   mass (a fixed-point iteration: the arms move with the shoulders, so each pass
//!   shrinks the error by about the arms' share of the mass; four passes).
//! * **Display bones.** Each of the 13 bones' world angle, and each joint's angle relative
//!   to its parent bone.
//!
//! The arms are placed by the engine's two-bone IK ([`crate::ik::two_bone_2d`]).

use crate::ik::{Bend, two_bone_2d};
use crate::math::{Real, Vector, Vector2};

/// Names of the 14 points, in order.
pub const RIG14_NAMES: [&str; 14] = [
    "head",
    "neck",
    "chest",
    "pelvis",
    "shoulder_l",
    "elbow_l",
    "hand_l",
    "shoulder_r",
    "elbow_r",
    "hand_r",
    "knee_l",
    "foot_l",
    "knee_r",
    "foot_r",
];

/// The 13 bones as (parent point, child point); a bone's parent bone is the one ending
/// at its first point (or none for the spine's root, pelvis→chest).
pub const RIG14_BONES: [(usize, usize); 13] =
    [(3, 2), (2, 1), (1, 0), (2, 4), (4, 5), (5, 6), (2, 7), (7, 8), (8, 9), (3, 10), (10, 11), (3, 12), (12, 13)];

/// Parent bone of each bone (index into [`RIG14_BONES`]; `usize::MAX` for the root).
pub const RIG14_PARENT: [usize; 13] = [usize::MAX, 0, 1, 0, 3, 4, 0, 6, 7, usize::MAX, 9, usize::MAX, 11];

/// Mass fractions of the 14 points (normalised by their sum where used).
const MASS: [f64; 14] = [0.08, 0.02, 0.30, 0.20, 0.03, 0.04, 0.03, 0.03, 0.04, 0.03, 0.05, 0.03, 0.05, 0.03];

/// Dimensions of the rigs (m).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigDims<R: Real> {
    /// Centre of the template (torso origin) to chest, along the torso axis.
    pub chest: R,
    /// Chest to neck.
    pub neck: R,
    /// Neck to head.
    pub head: R,
    /// Origin to pelvis (backward along the axis).
    pub pelvis: R,
    /// Chest to each shoulder (across the axis; the shoulders sit `shoulder_up` above the chest).
    pub shoulder: R,
    /// Shoulders' offset along the axis from the chest.
    pub shoulder_up: R,
    /// Upper arm.
    pub upper_arm: R,
    /// Forearm.
    pub forearm: R,
    /// Thigh.
    pub thigh: R,
    /// Shin.
    pub shin: R,
}

impl<R: Real> RigDims<R> {
    /// A gibbon-like body for a 0.7 m two-point arm: arms 0.3 + 0.3 m, legs 0.18 + 0.18 m.
    #[must_use]
    pub fn new() -> Self {
        let f = R::from_f64;
        Self {
            chest: f(0.18),
            neck: f(0.08),
            head: f(0.12),
            pelvis: f(0.22),
            shoulder: f(0.05),
            shoulder_up: f(0.04),
            upper_arm: f(0.3),
            forearm: f(0.3),
            thigh: f(0.18),
            shin: f(0.18),
        }
    }

    /// Rest length of each bone of [`RIG14_BONES`].
    #[must_use]
    pub fn bone_lengths(&self) -> [R; 13] {
        let sh = (self.shoulder * self.shoulder + self.shoulder_up * self.shoulder_up).sqrt();
        [
            self.chest + self.pelvis,
            self.neck,
            self.head,
            sh,
            self.upper_arm,
            self.forearm,
            sh,
            self.upper_arm,
            self.forearm,
            self.thigh,
            self.shin,
            self.thigh,
            self.shin,
        ]
    }
}

impl<R: Real> Default for RigDims<R> {
    fn default() -> Self {
        Self::new()
    }
}

/// The 5-point rig: shoulders, hands (the two-point rig's) and body (the centre of mass).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rig5<R: Real> {
    /// Left and right shoulder.
    pub shoulders: [Vector2<R>; 2],
    /// Left and right hand.
    pub hands: [Vector2<R>; 2],
    /// The centre of mass.
    pub body: Vector2<R>,
}

/// The 14-point rig (points named by [`RIG14_NAMES`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rig14<R: Real> {
    /// The points.
    pub points: [Vector2<R>; 14],
}

/// The elbow and hand for an arm `a`, `b` from `root` toward `target` (the engine's
/// two-bone IK, [`crate::ik::two_bone_2d`]), the elbow to the side `bend` (±1: `+1` puts it
/// on the left of the shoulder → hand line, counter-clockwise from it).
fn two_bone<R: Real>(root: Vector2<R>, target: Vector2<R>, a: R, b: R, bend: R) -> (Vector2<R>, Vector2<R>) {
    // `Bend::Clockwise` is the joint bending clockwise: its middle joint lies on the left.
    let side = if bend > R::ZERO { Bend::Clockwise } else { Bend::CounterClockwise };
    let arm = two_bone_2d(root, target, a, b, side);
    (arm.mid, arm.end)
}

impl<R: Real> Rig14<R> {
    /// The mass-weighted centre of the points.
    #[must_use]
    pub fn com(&self) -> Vector2<R> {
        let mut c = Vector2::new(R::ZERO, R::ZERO);
        let mut total = R::ZERO;
        for (p, m) in self.points.iter().zip(MASS) {
            let m = R::from_f64(m);
            c += *p * m;
            total += m;
        }
        c / total
    }

    /// Each bone's world angle (rad, `atan2` of parent→child).
    #[must_use]
    pub fn bone_angles(&self) -> [R; 13] {
        let mut out = [R::ZERO; 13];
        for (o, (a, b)) in out.iter_mut().zip(RIG14_BONES) {
            let d = self.points[b] - self.points[a];
            *o = d.y.atan2(d.x);
        }
        out
    }

    /// Each joint's angle: the bone's world angle minus its parent bone's, wrapped to
    /// `(−π, π]` (the root bones keep their world angle).
    #[must_use]
    pub fn joint_angles(&self) -> [R; 13] {
        let w = self.bone_angles();
        let mut out = w;
        for (i, o) in out.iter_mut().enumerate() {
            let p = RIG14_PARENT[i];
            if p != usize::MAX {
                let mut a = w[i] - w[p];
                let tau = R::PI * R::TWO;
                if a > R::PI {
                    a -= tau;
                } else if !(a > -R::PI) {
                    a += tau;
                }
                *o = a;
            }
        }
        out
    }

    /// Bone lengths as placed.
    #[must_use]
    pub fn bone_lengths(&self) -> [R; 13] {
        let mut out = [R::ZERO; 13];
        for (o, (a, b)) in out.iter_mut().zip(RIG14_BONES) {
            *o = (self.points[b] - self.points[a]).length();
        }
        out
    }
}

/// Maps the two-point state up the chain: `com`, the hands `[left, right]`, which of them
/// holds, and the velocity (the legs trail it). Returns the 5-point and 14-point rigs.
#[must_use]
pub fn chain<R: Real>(
    com: Vector2<R>,
    hands: [Vector2<R>; 2],
    holding: [bool; 2],
    velocity: Vector2<R>,
    dims: &RigDims<R>,
) -> (Rig5<R>, Rig14<R>) {
    let up = Vector2::new(R::ZERO, R::ONE);
    let axis = match holding {
        [true, true] => (hands[0] + hands[1]) * R::HALF - com,
        [true, false] => hands[0] - com,
        [false, true] => hands[1] - com,
        [false, false] => up,
    };
    let u = {
        let n = axis.normalize_or_zero();
        if n.length_squared() > R::ZERO { n } else { up }
    };
    let p = Vector2::new(-u.y, u.x);
    // Legs trail the motion a little: a direction between straight down along the body
    // and against the velocity.
    let trail = (-u * R::TWO - velocity * R::from_f64(0.05)).normalize_or_zero();
    let trail = if trail.length_squared() > R::ZERO { trail } else { -u };
    let spread = R::from_f64(0.25);
    let rot = |v: Vector2<R>, a: R| {
        let (s, c) = (a.sin(), a.cos());
        Vector2::new(v.x * c - v.y * s, v.x * s + v.y * c)
    };
    let place = |o: Vector2<R>| {
        let mut q = [o; 14];
        q[2] = o + u * dims.chest;
        q[1] = q[2] + u * dims.neck;
        q[0] = q[1] + u * dims.head;
        q[3] = o - u * dims.pelvis;
        q[4] = q[2] + u * dims.shoulder_up - p * dims.shoulder;
        q[7] = q[2] + u * dims.shoulder_up + p * dims.shoulder;
        // Elbows bend away from the direction of travel (+x), as a brachiator's do.
        let bend = if p.x > R::ZERO { -R::ONE } else { R::ONE };
        let (el, hl) = two_bone(q[4], hands[0], dims.upper_arm, dims.forearm, bend);
        let (er, hr) = two_bone(q[7], hands[1], dims.upper_arm, dims.forearm, bend);
        q[5] = el;
        q[6] = hl;
        q[8] = er;
        q[9] = hr;
        let dl = rot(trail, spread);
        let dr = rot(trail, -spread);
        q[10] = q[3] + dl * dims.thigh;
        q[11] = q[10] + rot(dl, -spread) * dims.shin;
        q[12] = q[3] + dr * dims.thigh;
        q[13] = q[12] + rot(dr, spread) * dims.shin;
        Rig14 { points: q }
    };
    let mut o = com;
    let mut rig = place(o);
    for _ in 0..6 {
        o += com - rig.com();
        rig = place(o);
    }
    let q = rig.points;
    (Rig5 { shoulders: [q[4], q[7]], hands: [q[6], q[9]], body: com }, rig)
}
