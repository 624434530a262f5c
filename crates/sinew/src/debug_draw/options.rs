//! What [`World::debug_draw`](crate::World::debug_draw) draws.

use super::TensionScale;

/// What [`World::debug_draw`](crate::World::debug_draw) draws. `#[non_exhaustive]`: start from
/// [`DebugDrawOptions::default`] (or [`DebugDrawOptions::none`]) and set fields.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct DebugDrawOptions {
    /// Particles (pins included). On by default.
    pub particles: bool,
    /// Also the free particles of ropes (their vertices) as particles. Off by default.
    pub rope_particles: bool,
    /// Distance constraints: links, ragdoll bones. On by default.
    pub distances: bool,
    /// Tether constraints (`World::add_tether`; a rope's built-in tethers are not drawn).
    /// Off by default: they run across the links they back up.
    pub tethers: bool,
    /// Ropes, coloured by tension. On by default.
    pub ropes: bool,
    /// Contacts of the last substep (point and normal). On by default.
    pub contacts: bool,
    /// Collider shapes. On by default.
    pub colliders: bool,
    /// Joint limits (2D: the allowed angle sector at the joint; 3D: the swing cone). On
    /// by default.
    pub joint_limits: bool,
    /// Sleeping particles and ropes faded towards grey and flagged. On by default.
    pub sleeping: bool,
    /// The rope tension colour scale.
    pub tension_scale: TensionScale,
    /// Length of contact normal arrows (m). 0.1 by default.
    pub contact_normal_length: f64,
}

impl Default for DebugDrawOptions {
    /// Everything but tethers and rope particles; tensions 0.1 N – 1 kN; 10 cm normals.
    fn default() -> Self {
        Self {
            particles: true,
            rope_particles: false,
            distances: true,
            tethers: false,
            ropes: true,
            contacts: true,
            colliders: true,
            joint_limits: true,
            sleeping: true,
            tension_scale: TensionScale::default(),
            contact_normal_length: 0.1,
        }
    }
}

impl DebugDrawOptions {
    /// Nothing at all (set the parts wanted).
    #[must_use]
    pub fn none() -> Self {
        Self {
            particles: false,
            rope_particles: false,
            distances: false,
            tethers: false,
            ropes: false,
            contacts: false,
            colliders: false,
            joint_limits: false,
            sleeping: false,
            ..Self::default()
        }
    }
}
