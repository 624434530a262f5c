//! Debug drawing on Bevy's gizmos (feature `gizmos`): the whole world — colliders, ropes
//! coloured by tension, bones, joint limits, particles, contacts — every frame.
//!
//! Sinew's world describes itself to any [`DebugDraw`] back end as primitives in world
//! coordinates (see [`sinew::debug_draw`]); [`GizmoDraw`] is such a back end that turns
//! them into gizmo lines. It draws what the library sends as segments (the library's
//! default bodies break circles, spheres, capsules, arcs and arrows into segments), in
//! the primitive's colour, so a Bevy app sees the same picture as Sinew's playground.
//!
//! Add [`SinewGizmosPlugin`] after the [`crate::SinewPlugin`] of the same space, in an
//! app that has Bevy's `GizmoPlugin` (part of `DefaultPlugins`); the
//! [`SinewDebugDraw`] resource switches it and chooses what is drawn.
//!
//! ```ignore
//! app.add_plugins((DefaultPlugins, Sinew2dPlugin::default(), SinewGizmosPlugin::<Space2<f32>>::default()));
//! ```

use core::marker::PhantomData;

use bevy_app::prelude::*;
use bevy_color::Color;
use bevy_ecs::prelude::*;
use bevy_gizmos::gizmos::Gizmos;
use bevy_math::Vec3;
use sinew::debug_draw::{DebugDraw, DebugDrawOptions, Style};

use crate::space::PluginSpace;
use crate::world::SinewWorld;

/// What the gizmos draw (a resource).
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct SinewDebugDraw {
    /// Draw at all. Default on.
    pub enabled: bool,
    /// Which parts of the world (Sinew's options; particles, ropes, colliders, ...).
    pub options: DebugDrawOptions,
}

impl Default for SinewDebugDraw {
    fn default() -> Self {
        Self { enabled: true, options: DebugDrawOptions::default() }
    }
}

/// Draws the world of the [`crate::SinewPlugin`]`<S>` with gizmos each frame.
pub struct SinewGizmosPlugin<S: PluginSpace>(PhantomData<fn() -> S>);

impl<S: PluginSpace> Default for SinewGizmosPlugin<S> {
    fn default() -> Self {
        Self(PhantomData)
    }
}

impl<S: PluginSpace> Plugin for SinewGizmosPlugin<S> {
    fn build(&self, app: &mut App) {
        app.init_resource::<SinewDebugDraw>().add_systems(PostUpdate, draw::<S>);
    }
}

/// A [`DebugDraw`] back end drawing into a frame's gizmos.
pub struct GizmoDraw<'a, 'w, 's> {
    /// The gizmos drawn into.
    pub gizmos: &'a mut Gizmos<'w, 's>,
}

fn point(p: [f64; 3]) -> Vec3 {
    Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32)
}

impl DebugDraw for GizmoDraw<'_, '_, '_> {
    fn segment(&mut self, a: [f64; 3], b: [f64; 3], style: &Style) {
        let c = style.color;
        self.gizmos.line(point(a), point(b), Color::srgba_u8(c.r, c.g, c.b, c.a));
    }
}

fn draw<S: PluginSpace>(sim: Res<SinewWorld<S>>, settings: Res<SinewDebugDraw>, mut gizmos: Gizmos) {
    if settings.enabled {
        sim.world().debug_draw(&mut GizmoDraw { gizmos: &mut gizmos }, &settings.options);
    }
}
