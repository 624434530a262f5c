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
//! # Dynamic anchors: the rope carries the entity
//!
//! [`RopeAnchor::dynamic`]`(entity, kg)` goes the other way. The plugin adds a particle of
//! `kg` where the entity is and makes it the rope's end (the library's
//! `RopeDef::attach_start` / `attach_end`): the rope pulls it and it pulls the rope, so a
//! rope can hold a crate, swing a lantern or tow a body. After each step the particle's
//! position is written to the entity's [`SimulatedPosition`] and from there to its
//! `Transform` (interpolated if the entity has [`crate::TransformInterpolation`]); the
//! plugin then owns the entity's translation (move the particle through [`SinewWorld`]
//! to teleport it). Ropes tied to one entity share its particle (the first rope's mass
//! counts); it leaves the world with the last rope that carries it.
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
use std::sync::Arc;

use sinew::math::Real;
use sinew::{ParticleDef, ParticleHandle, RealOf, RopeDef, RopeEnd};

use crate::hits::HitEvents;
use crate::interpolation::{SimulatedPosition, TransformInterpolation};
use crate::space::PluginSpace;
use crate::world::{Extras, RopeEntry, SinewWorld};

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

/// An entity a rope end is tied to (see the module docs): kinematic (the entity drags the
/// rope) or dynamic (the rope carries the entity).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RopeAnchor {
    /// The entity whose `Transform` the end follows (kinematic) or sets (dynamic).
    pub entity: Entity,
    /// Offset from the entity's origin, in its local frame (kinematic anchors only: a
    /// dynamic anchor ties the rope to the entity's origin).
    pub offset: Vec3,
    /// `None`: kinematic. `Some(kg)`: dynamic, the entity is a particle of this mass.
    pub mass: Option<f32>,
}

impl RopeAnchor {
    /// The end at `entity`'s origin, following it (kinematic).
    #[must_use]
    pub fn new(entity: Entity) -> Self {
        Self { entity, offset: Vec3::ZERO, mass: None }
    }

    /// The end carries `entity` as a particle of `kg` at its origin: the rope holds it,
    /// swings it, and the plugin writes the entity's `Transform` (dynamic). Ropes tied to
    /// the same entity share its particle (the first one's mass counts).
    #[must_use]
    pub fn dynamic(entity: Entity, kg: f32) -> Self {
        Self { entity, offset: Vec3::ZERO, mass: Some(kg) }
    }

    /// True for a dynamic anchor.
    #[must_use]
    pub fn is_dynamic(&self) -> bool {
        self.mass.is_some()
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
    /// `start` / `end` (where their entities are); the kinematic ones pinned (the
    /// plugin attaches the dynamic ones to their entities' particles).
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
        let kinematic = |a: &Option<RopeAnchor>| a.is_some_and(|a| !a.is_dynamic());
        if self.pin_start || kinematic(&self.start_anchor) {
            def = def.pin_start();
        }
        if self.pin_end || kinematic(&self.end_anchor) {
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
    pub(crate) fn new(h: sinew::RopeHandle) -> Self {
        Self(Some(h))
    }

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

/// What [`spawn_ropes`] reads of a new rope entity.
type NewRope<'a> = (
    Entity,
    Ref<'a, SinewRope>,
    &'a mut SpawnedRope,
    Has<TransformInterpolation>,
    Option<&'a RopeTensionLimit>,
    Option<&'a HitEvents>,
);

/// Prepare: spawns the ropes of newly added [`SinewRope`]s (and the particles of their
/// dynamic anchors).
pub(crate) fn spawn_ropes<S: PluginSpace>(
    mut commands: Commands,
    mut sim: ResMut<SinewWorld<S>>,
    mut ropes: Query<NewRope, Added<SinewRope>>,
    anchors: Query<&Transform>,
) {
    let sim = &mut *sim;
    for (entity, rope, mut spawned, interpolated, tension_limit, hits) in &mut ropes {
        if sim.map.ropes.get(&entity).is_some_and(|r| spawned.0 == Some(r.handle)) {
            continue; // put back by a restore: already in the world
        }
        let at = |a: &Option<RopeAnchor>| a.and_then(|a| anchors.get(a.entity).ok().map(|t| a.target(t)));
        let (start, end) = (at(&rope.start_anchor), at(&rope.end_anchor));
        let mut def = rope.rope_def::<S>(start, end);
        let carried = [(rope.start_anchor, start), (rope.end_anchor, end)].map(|(a, p)| {
            a.filter(RopeAnchor::is_dynamic).zip(p).map(|(a, p)| body_for(sim, &mut commands, &a, p, rope.radius))
        });
        match carried {
            [Some(Err(e)), _] | [_, Some(Err(e))] => {
                log::error!("bevy_sinew: rope of {entity} not spawned: its anchor's particle: {e}");
                drop_uncarried(sim, &mut commands, &rope);
                continue;
            }
            [s, e] => {
                if let Some(Ok(p)) = s {
                    def = def.attach_start(p);
                }
                if let Some(Ok(p)) = e {
                    def = def.attach_end(p);
                }
            }
        }
        match sim.world.add_rope(&def) {
            Ok(h) => {
                let extras = Extras { interpolated, tension_limit: tension_limit.copied(), hits: hits.copied() };
                sim.map.ropes.insert(entity, RopeEntry { handle: h, spec: Arc::new(SinewRope::clone(&rope)), extras });
                spawned.0 = Some(h);
            }
            Err(e) => {
                log::error!("bevy_sinew: rope of {entity} not spawned: {e}");
                drop_uncarried(sim, &mut commands, &rope);
            }
        }
    }
}

/// Removes the particles of `rope`'s dynamic anchors that no rope of the map carries (a
/// removed rope's, or one that failed to spawn).
fn drop_uncarried<S: PluginSpace>(sim: &mut SinewWorld<S>, commands: &mut Commands, rope: &SinewRope) {
    let dynamic = |r: &SinewRope| [r.start_anchor, r.end_anchor].into_iter().flatten().filter(RopeAnchor::is_dynamic);
    for anchor in dynamic(rope) {
        if sim.map.ropes.values().any(|r| dynamic(&r.spec).any(|a| a.entity == anchor.entity)) {
            continue;
        }
        if let Some(p) = sim.map.bodies.remove(&anchor.entity) {
            let _ = sim.world.remove_particle(p);
            if let Ok(mut e) = commands.get_entity(anchor.entity) {
                e.remove::<SimulatedPosition>();
            }
        }
    }
}

/// The particle that carries a dynamic anchor's entity, at `at`: its own, or a new one.
fn body_for<S: PluginSpace>(
    sim: &mut SinewWorld<S>,
    commands: &mut Commands,
    anchor: &RopeAnchor,
    at: Vec3,
    radius: f32,
) -> Result<ParticleHandle, sinew::SinewError> {
    if let Some(&p) = sim.map.bodies.get(&anchor.entity) {
        return Ok(p);
    }
    let r = |v: f32| RealOf::<S>::from_f64(f64::from(v));
    let kg = anchor.mass.unwrap_or(1.0);
    let p = sim.world.add_particle(&ParticleDef::at(S::vector(at)).mass(r(kg)).radius(r(radius)))?;
    sim.map.bodies.insert(anchor.entity, p);
    commands.entity(anchor.entity).insert(SimulatedPosition::at(at));
    Ok(p)
}

/// Prepare: removes the ropes whose entity or component is gone (and the particles of
/// dynamic anchors no rope carries any more).
pub(crate) fn remove_ropes<S: PluginSpace>(
    mut commands: Commands,
    mut sim: ResMut<SinewWorld<S>>,
    mut removed: RemovedComponents<SinewRope>,
    present: Query<(), With<SinewRope>>,
) {
    let sim = &mut *sim;
    for entity in removed.read() {
        if present.contains(entity) {
            continue; // the component was put back (a restore)
        }
        sim.map.grabs.remove(&entity);
        let Some(gone) = sim.map.ropes.remove(&entity) else { continue };
        // A rope cut in the world may already be gone; nothing else to undo.
        let _ = sim.world.remove_rope(gone.handle);
        drop_uncarried(sim, &mut commands, &gone.spec);
    }
}

/// Prepare: where every kinematically anchored rope end must be at the end of the coming
/// step(s).
pub(crate) fn drive_anchors<S: PluginSpace>(
    mut sim: ResMut<SinewWorld<S>>,
    ropes: Query<(Entity, &SinewRope)>,
    anchors: Query<&Transform>,
) {
    let sim = &mut *sim;
    sim.drives.clear();
    for (entity, rope) in &ropes {
        if rope.start_anchor.is_none() && rope.end_anchor.is_none() {
            continue;
        }
        let Some(h) = sim.map.ropes.get(&entity).map(|r| r.handle) else { continue };
        let Ok(r) = sim.world.rope(h) else { continue };
        for (anchor, end) in [(&rope.start_anchor, RopeEnd::Start), (&rope.end_anchor, RopeEnd::End)] {
            let Some(anchor) = anchor.filter(|a| !a.is_dynamic()) else { continue };
            if let Ok(t) = anchors.get(anchor.entity) {
                sim.drives.push((r.end_particle(end), S::vector(anchor.target(t))));
            }
        }
    }
}

/// Writeback: the [`SimulatedPosition`] of entities carried by ropes.
pub(crate) fn write_bodies<S: PluginSpace>(sim: Res<SinewWorld<S>>, mut carried: Query<&mut SimulatedPosition>) {
    if (sim.steps_last_run == 0 && !sim.restored) || sim.map.bodies.is_empty() {
        return;
    }
    let ps = sim.world.particles();
    for (&entity, &p) in &sim.map.bodies {
        if let (Ok(mut at), Some(x)) = (carried.get_mut(entity), ps.position(p)) {
            at.advance(S::to_vec3(x), sim.restored);
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
        // Only for ropes with a limit: the search reads every segment.
        if let Some(limit) = limit
            && let Some((segment, t)) = tension.max()
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
    // A live rope's particles are live: index the position slice directly.
    let positions = ps.positions();
    points.current.extend(rope.particles().iter().filter_map(|p| positions.get(p.index())).map(|&x| S::to_vec3(x)));
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
