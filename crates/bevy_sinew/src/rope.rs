//! Ropes as components: [`SinewRope`] spawns one, [`RopePoints`] and [`RopeTension`] read
//! it back, a [`RopeAnchor`] ties an end to an entity.
//!
//! ```
//! # use bevy_ecs::prelude::*;
//! # use bevy_math::Vec3;
//! # use bevy_transform::components::Transform;
//! use bevy_sinew::prelude::*;
//!
//! fn spawn(mut commands: Commands) {
//!     // A crane's hook: the plugin reads its Transform, it never writes it.
//!     let hook = commands.spawn(Transform::from_xyz(0.0, 3.0, 0.0)).id();
//!     // A 2 m rope from the hook, 40 segments, 200 g; its start follows the hook.
//!     commands.spawn(
//!         SinewRope::between(Vec3::new(0.0, 3.0, 0.0), Vec3::new(0.0, 1.0, 0.0))
//!             .segments(40)
//!             .mass(0.2)
//!             .attach_start(RopeAnchor::new(hook)),
//!     );
//! }
//! ```
//!
//! # How an anchored end moves
//!
//! An anchored end is a *kinematic* particle: it has no mass of its own for the rope to
//! pull on, and before every world step the plugin sets its target to where the anchor
//! entity is (its `Transform`, plus the anchor's offset turned by the entity's
//! rotation). Within the step it moves there in a straight line, substep by substep, so
//! the rope feels a smooth motion and the end moves at the anchor's velocity. Move the
//! anchor entity in `FixedUpdate` (or before the fixed loop) and the rope follows it
//! within the same step. The anchor's `Transform` is read as a world transform: anchor
//! to top-level entities.
//!
//! # What is written back
//!
//! After each run of the plugin's schedule, [`RopePoints`] holds every particle's
//! position from the start to the end — the polyline to render, interpolated between the
//! last two steps when the rope entity has [`crate::TransformInterpolation`] — and
//! [`RopeTension`] each segment's tension (N). A rope entity with a [`RopeTensionLimit`]
//! also sends a [`RopeOverTension`] message whenever its most loaded segment is above
//! the limit after a step (to play a creak, or cut the rope with
//! `World::cut_rope`). A rope asleep at rest is not written again until it wakes.
//! [`SpawnedRope`] holds the rope's handle for calls into [`SinewWorld`]'s world.

use bevy_ecs::prelude::*;
use bevy_math::Vec3;
use bevy_transform::components::Transform;
use sinew::math::Real;
use sinew::{RopeDef, RopeEnd};

use crate::interpolation::TransformInterpolation;
use crate::space::PluginSpace;
use crate::world::SinewWorld;

/// A rope to spawn (a component; see the module docs). Positions are world positions.
///
/// The plugin reads it once, when it is added; change the rope afterwards through
/// [`SinewWorld`]. Despawning the entity (or removing this component) removes the rope.
#[derive(Component, Clone, Debug, PartialEq)]
#[require(RopePoints, RopeTension, SpawnedRope)]
pub struct SinewRope {
    /// The polyline the rope is laid along (≥ 2 points).
    pub points: Vec<Vec3>,
    /// Number of segments; `None` = one per 5 cm of length.
    pub segments: Option<usize>,
    /// Total mass (kg). Default 1.
    pub mass: f32,
    /// Radius (m). Default 1 cm.
    pub radius: f32,
    /// Stretch compliance (m/N); 0 = inextensible (the default).
    pub compliance: f32,
    /// Pin the start where it is.
    pub pin_start: bool,
    /// Pin the end where it is.
    pub pin_end: bool,
    /// Drive the start with an entity's transform.
    pub start_anchor: Option<RopeAnchor>,
    /// Drive the end with an entity's transform.
    pub end_anchor: Option<RopeAnchor>,
}

/// An entity a rope end follows, at `offset` in the entity's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RopeAnchor {
    /// The entity whose `Transform` the end follows.
    pub entity: Entity,
    /// Offset from the entity's origin, in its local frame.
    pub offset: Vec3,
}

impl RopeAnchor {
    /// The end at `entity`'s origin.
    #[must_use]
    pub fn new(entity: Entity) -> Self {
        Self { entity, offset: Vec3::ZERO }
    }

    /// The end at `offset` in the entity's frame.
    #[must_use]
    pub fn with_offset(mut self, offset: Vec3) -> Self {
        self.offset = offset;
        self
    }

    /// Where the end goes for an anchor entity at `t`.
    pub(crate) fn target(&self, t: &Transform) -> Vec3 {
        t.translation + t.rotation * self.offset
    }
}

impl SinewRope {
    /// A rope along the straight line `a → b`.
    #[must_use]
    pub fn between(a: Vec3, b: Vec3) -> Self {
        Self::along(vec![a, b])
    }

    /// A rope along a polyline.
    #[must_use]
    pub fn along(points: Vec<Vec3>) -> Self {
        Self {
            points,
            segments: None,
            mass: 1.0,
            radius: 0.01,
            compliance: 0.0,
            pin_start: false,
            pin_end: false,
            start_anchor: None,
            end_anchor: None,
        }
    }

    /// Sets the number of segments.
    #[must_use]
    pub fn segments(mut self, n: usize) -> Self {
        self.segments = Some(n);
        self
    }

    /// Sets the total mass (kg).
    #[must_use]
    pub fn mass(mut self, kg: f32) -> Self {
        self.mass = kg;
        self
    }

    /// Sets the radius (m).
    #[must_use]
    pub fn radius(mut self, r: f32) -> Self {
        self.radius = r;
        self
    }

    /// Sets the stretch compliance (m/N).
    #[must_use]
    pub fn compliance(mut self, c: f32) -> Self {
        self.compliance = c;
        self
    }

    /// Pins the start where it is.
    #[must_use]
    pub fn pin_start(mut self) -> Self {
        self.pin_start = true;
        self
    }

    /// Pins the end where it is.
    #[must_use]
    pub fn pin_end(mut self) -> Self {
        self.pin_end = true;
        self
    }

    /// Drives the start with an entity (it starts there, replacing the first point).
    #[must_use]
    pub fn attach_start(mut self, anchor: RopeAnchor) -> Self {
        self.start_anchor = Some(anchor);
        self
    }

    /// Drives the end with an entity (it starts there, replacing the last point).
    #[must_use]
    pub fn attach_end(mut self, anchor: RopeAnchor) -> Self {
        self.end_anchor = Some(anchor);
        self
    }

    /// The library's definition of this rope, with the anchored ends placed at
    /// `start` / `end` (where their entities are) and pinned.
    #[must_use]
    pub fn rope_def<S: PluginSpace>(&self, start: Option<Vec3>, end: Option<Vec3>) -> RopeDef<S> {
        let mut points: Vec<_> = self.points.iter().map(|&p| S::vector(p)).collect();
        if let (Some(s), Some(first)) = (start, points.first_mut()) {
            *first = S::vector(s);
        }
        if let (Some(e), Some(last)) = (end, points.last_mut()) {
            *last = S::vector(e);
        }
        let r = |v: f32| S::Real::from_f64(f64::from(v));
        let mut def = RopeDef::along(points).mass(r(self.mass)).radius(r(self.radius)).compliance(r(self.compliance));
        if let Some(n) = self.segments {
            def = def.segments(n);
        }
        if self.pin_start || self.start_anchor.is_some() {
            def = def.pin_start();
        }
        if self.pin_end || self.end_anchor.is_some() {
            def = def.pin_end();
        }
        def
    }
}

/// The rope spawned for this entity's [`SinewRope`] (filled in by the plugin; also in
/// [`SinewWorld::rope`]).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpawnedRope(Option<sinew::RopeHandle>);

impl SpawnedRope {
    /// The rope, once the prepare systems have spawned it.
    #[must_use]
    pub fn handle(&self) -> Option<sinew::RopeHandle> {
        self.0
    }
}

/// A rope's particle positions from start to end (written back; see the module docs).
#[derive(Component, Clone, Debug, Default, PartialEq)]
pub struct RopePoints {
    /// What to render: `current`, or between `previous` and `current` when the rope is
    /// interpolated.
    pub points: Vec<Vec3>,
    /// The positions after the last step.
    pub current: Vec<Vec3>,
    /// The positions after the step before it.
    pub previous: Vec<Vec3>,
}

/// Each segment's tension (N, positive when pulled) in the last step (written back).
#[derive(Component, Clone, Debug, Default, PartialEq)]
pub struct RopeTension(pub Vec<f32>);

impl RopeTension {
    /// The most loaded segment and its tension, if the rope has segments.
    #[must_use]
    pub fn max(&self) -> Option<(usize, f32)> {
        self.0.iter().copied().enumerate().max_by(|a, b| a.1.total_cmp(&b.1))
    }
}

/// Send [`RopeOverTension`] when a segment of this rope pulls harder than this (N).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct RopeTensionLimit(pub f32);

/// A rope's most loaded segment went over its [`RopeTensionLimit`] in the last step.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct RopeOverTension {
    /// The rope entity.
    pub rope: Entity,
    /// The segment (0 = at the start).
    pub segment: usize,
    /// Its tension (N).
    pub tension: f32,
}

/// Prepare: spawns the ropes of newly added [`SinewRope`]s.
pub(crate) fn spawn_ropes<S: PluginSpace>(
    mut sim: ResMut<SinewWorld<S>>,
    mut ropes: Query<(Entity, &SinewRope, &mut SpawnedRope), Added<SinewRope>>,
    anchors: Query<&Transform>,
) {
    for (entity, rope, mut spawned) in &mut ropes {
        let at = |a: &Option<RopeAnchor>| a.and_then(|a| anchors.get(a.entity).ok().map(|t| a.target(t)));
        let def = rope.rope_def::<S>(at(&rope.start_anchor), at(&rope.end_anchor));
        match sim.world.add_rope(&def) {
            Ok(h) => {
                sim.ropes.insert(entity, h);
                spawned.0 = Some(h);
            }
            Err(e) => log::error!("bevy_sinew: rope of {entity} not spawned: {e}"),
        }
    }
}

/// Prepare: removes the ropes whose entity or component is gone.
pub(crate) fn remove_ropes<S: PluginSpace>(mut sim: ResMut<SinewWorld<S>>, mut removed: RemovedComponents<SinewRope>) {
    for entity in removed.read() {
        sim.grabs.remove(&entity);
        if let Some(h) = sim.ropes.remove(&entity) {
            // A rope cut in the world may already be gone; nothing else to undo.
            let _ = sim.world.remove_rope(h);
        }
    }
}

/// Prepare: where every anchored rope end must be at the end of the coming step(s).
pub(crate) fn drive_anchors<S: PluginSpace>(
    mut sim: ResMut<SinewWorld<S>>,
    ropes: Query<(Entity, &SinewRope)>,
    anchors: Query<&Transform>,
) {
    let sim = &mut *sim;
    sim.drives.clear();
    for (entity, rope) in &ropes {
        let Some(h) = sim.ropes.get(&entity).copied() else { continue };
        let Ok(r) = sim.world.rope(h) else { continue };
        for (anchor, end) in [(&rope.start_anchor, RopeEnd::Start), (&rope.end_anchor, RopeEnd::End)] {
            let Some(anchor) = anchor else { continue };
            if let Ok(t) = anchors.get(anchor.entity) {
                sim.drives.push((r.end_particle(end), S::vector(anchor.target(t))));
            }
        }
    }
}

/// Writeback: [`RopePoints`], [`RopeTension`] and [`RopeOverTension`].
pub(crate) fn write_ropes<S: PluginSpace>(
    mut sim: ResMut<SinewWorld<S>>,
    mut ropes: Query<(
        Entity,
        &SpawnedRope,
        &mut RopePoints,
        &mut RopeTension,
        Option<&RopeTensionLimit>,
        Has<TransformInterpolation>,
    )>,
    mut over: MessageWriter<RopeOverTension>,
) {
    let restored = sim.restored;
    if sim.steps_last_run == 0 && !restored {
        return;
    }
    let sim = &mut *sim;
    let mut tensions = Vec::new();
    for (entity, spawned, mut points, mut tension, limit, interpolated) in &mut ropes {
        let Some((h, rope)) = spawned.0.and_then(|h| Some((h, sim.world.rope(h).ok()?))) else { continue };
        let (points, tension) = (&mut *points, &mut *tension);
        let at_rest = rope.is_sleeping() && points.previous == points.current && !points.current.is_empty();
        if !at_rest || restored {
            write_rope::<S>(&sim.world, h, points, tension, interpolated, restored, &mut tensions);
        }
        if let (Some(limit), Some((segment, t))) = (limit, tension.max())
            && t > limit.0
        {
            over.write(RopeOverTension { rope: entity, segment, tension: t });
        }
    }
}

/// One rope's points (the last two steps) and tensions.
fn write_rope<S: PluginSpace>(
    world: &sinew::World<S>,
    h: sinew::RopeHandle,
    points: &mut RopePoints,
    tension: &mut RopeTension,
    interpolated: bool,
    restored: bool,
    scratch: &mut Vec<sinew::RealOf<S>>,
) {
    let Ok(rope) = world.rope(h) else { return };
    let ps = world.particles();
    std::mem::swap(&mut points.previous, &mut points.current);
    points.current.clear();
    points.current.extend(rope.particles().iter().filter_map(|&p| ps.position(p)).map(S::to_vec3));
    if restored || points.previous.len() != points.current.len() {
        points.previous.clone_from(&points.current);
    }
    if !interpolated {
        points.points.clone_from(&points.current);
    }
    if world.rope_tensions_into(h, scratch).is_ok() {
        tension.0.clear();
        tension.0.extend(scratch.iter().map(|t| t.to_f64() as f32));
    }
}
