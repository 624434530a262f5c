//! Driven parts of the preset rigs, for [`PoseDrive`](super::PoseDrive).
//!
//! Each part is a group of nodes held rigid by the rig's bones, so it has an orientation:
//!
//! | rig | part | nodes (frame first) | parent |
//! |---|---|---|---|
//! | `humanoid16` | `torso` | pelvis, chest, hips | world |
//! | | `chest` | chest, neck, shoulders | `torso` |
//! | | `head` | neck, head | `chest` |
//! | | `upper_arm_l/r`, `forearm_l/r` | shoulder, elbow / elbow, hand | `chest` / upper arm |
//! | | `thigh_l/r`, `shin_l/r` | hip, knee / knee, foot | `torso` / thigh |
//! | `humanoid3d` | `pelvis` | pelvis, hip_l, hip_r, spine | world |
//! | | `chest` | spine, neck, shoulder_l, chest, shoulder_r | `pelvis` |
//! | | `head` | neck, head, nose | `chest` |
//! | | `upper_arm_l/r` | shoulder, elbow_in, elbow_out, elbow_ref | `chest` |
//! | | `forearm_l/r` | elbow_in, hand, elbow_out | upper arm |
//! | | `thigh_l/r` | hip, knee_in, knee_out, knee_ref | `pelvis` |
//! | | `shin_l/r` | knee_in, foot, knee_out | thigh |
//!
//! The root (`torso`, `pelvis`) is driven relative to the world, which keeps the body
//! upright; every other part relative to its parent. Gains are the default (2 Hz,
//! critically damped).

use crate::math::Real;

use super::drive::DrivePartDef;

/// Driven parts of [`humanoid16`](super::presets::humanoid16) (see the module docs).
#[must_use]
pub fn humanoid16_parts<R: Real>() -> Vec<DrivePartDef<R>> {
    let mut out = vec![
        DrivePartDef::new("torso", &["pelvis", "chest", "hip_l", "hip_r"]),
        DrivePartDef::new("chest", &["chest", "neck", "shoulder_l", "shoulder_r"]).parent("torso"),
        DrivePartDef::new("head", &["neck", "head"]).parent("chest"),
    ];
    for s in ["l", "r"] {
        let n = |p: &str| format!("{p}_{s}");
        out.push(DrivePartDef::new(n("upper_arm"), &[&n("shoulder"), &n("elbow")]).parent("chest"));
        out.push(DrivePartDef::new(n("forearm"), &[&n("elbow"), &n("hand")]).parent(&n("upper_arm")));
        out.push(DrivePartDef::new(n("thigh"), &[&n("hip"), &n("knee")]).parent("torso"));
        out.push(DrivePartDef::new(n("shin"), &[&n("knee"), &n("foot")]).parent(&n("thigh")));
    }
    out
}

/// Driven parts of [`humanoid3d`](super::presets::humanoid3d) (see the module docs).
#[must_use]
pub fn humanoid3d_parts<R: Real>() -> Vec<DrivePartDef<R>> {
    let mut out = vec![
        DrivePartDef::new("pelvis", &["pelvis", "hip_l", "hip_r", "spine"]),
        DrivePartDef::new("chest", &["spine", "neck", "shoulder_l", "chest", "shoulder_r"]).parent("pelvis"),
        DrivePartDef::new("head", &["neck", "head", "nose"]).parent("chest"),
    ];
    for s in ["l", "r"] {
        let n = |p: &str| format!("{p}_{s}");
        let (sh, ei, eo, er, hand) = (n("shoulder"), n("elbow_in"), n("elbow_out"), n("elbow_ref"), n("hand"));
        let (hip, ki, ko, kr, foot) = (n("hip"), n("knee_in"), n("knee_out"), n("knee_ref"), n("foot"));
        out.push(DrivePartDef::new(n("upper_arm"), &[&sh, &ei, &eo, &er]).parent("chest"));
        out.push(DrivePartDef::new(n("forearm"), &[&ei, &hand, &eo]).parent(&n("upper_arm")));
        out.push(DrivePartDef::new(n("thigh"), &[&hip, &ki, &ko, &kr]).parent("pelvis"));
        out.push(DrivePartDef::new(n("shin"), &[&ki, &foot, &ko]).parent(&n("thigh")));
    }
    out
}
