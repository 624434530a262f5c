//! Vines: ropes of the rope module hanging in the character's world.
//!
//! Each vine of the course is a [`crate::rope`] rope in the swing rig's own world, pinned
//! where it hangs from (`top`) and free at its lower end (the handhold): a slack particle
//! chain solved by the rope's exact chain solve, with tethers to the pinned top. The hand
//! grabs the vine's end particle: the arm becomes a rigid distance constraint between the
//! centre of mass and that particle, so while held the character swings on the rope and
//! the arm together; after the release the vine swings on by itself and is drawn as the
//! rope's particles.
//!
//! # The planner's model of a vine, and why it holds
//!
//! The vine's particles are light against the character (`VINE_MASS`, 5 % of its mass in
//! all), so the vine's lower end is nearly a massless joint. A massless joint pulled by two
//! links is in equilibrium only when the links are in line, so under tension the vine and
//! the arm form one straight link from the top to the centre of mass, and the swing is a
//! pendulum of radius `vine + L` about the vine's top. The planner therefore sees a vine as
//! a [`super::planner::Target`] whose pivot is the top and whose radius is `vine + L`.
//!
//! At rest the vine hangs straight down, so the one grab that puts the vine and the arm in
//! line is at angle 0, the centre of mass straight below the vine's end with its velocity
//! horizontal (perpendicular to both): the flight's apex. Any other grab angle would leave
//! the chain bent and slack, and the character would fall until it straightened with a
//! jerk (an inelastic loss). So a vine target has the grab angle fixed at 0. From the
//! vine, the next release is planned on the `vine + L` pendulum and, as on a branch,
//! re-solved at the release from where the centre of mass truly is; the difference of the
//! simulated swing from the model (the vine's mass, the chain's small bend) shows in the
//! release correction, reported per vine release (`RunStats::worst_vine_release_correction`)
//! and bounded by the tests.

use super::course::{Course, HandholdKind};
use crate::SinewError;
use crate::math::{Real, Vector};
use crate::rope::{RopeDef, RopeHandle};
use crate::space::Space2;
use crate::world::World;

/// A vine's mass per kilogram of the character (kg/kg).
pub const VINE_MASS: f64 = 0.05;
/// A vine's segment length (m).
pub const VINE_SEGMENT: f64 = 0.1;

/// Adds every vine of `course` to `world` as a rope pinned at its top; the result holds
/// each handhold's rope (`None` for a branch handhold).
///
/// # Errors
/// From the world (limits, bad values).
pub fn add_vines<R: Real>(
    world: &mut World<Space2<R>>,
    course: &Course<R>,
) -> Result<Vec<Option<RopeHandle>>, SinewError> {
    let mut out = Vec::with_capacity(course.handholds.len());
    for h in &course.handholds {
        out.push(match h.kind {
            HandholdKind::Branch => None,
            HandholdKind::Vine => {
                let len = (h.top - h.position).length();
                let segments = ((len / R::from_f64(VINE_SEGMENT)).to_f64().ceil() as usize).clamp(2, 64);
                let def =
                    RopeDef::between(h.top, h.position).segments(segments).mass(R::from_f64(VINE_MASS)).pin_start();
                Some(world.add_rope(&def)?)
            }
        });
    }
    Ok(out)
}

/// The length of the vine of a handhold (0 for a branch handhold).
#[must_use]
pub fn vine_length<R: Real>(course: &Course<R>, index: usize) -> R {
    course.handholds.get(index).map_or(R::ZERO, |h| match h.kind {
        HandholdKind::Branch => R::ZERO,
        HandholdKind::Vine => (h.top - h.position).length(),
    })
}
