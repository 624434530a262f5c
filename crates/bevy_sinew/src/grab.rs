//! Grabbing ropes and ragdolls with a hand (a mouse cursor, a character's hand, a
//! network input): the [`Grab`], [`MoveGrab`] and [`ReleaseGrab`] messages.
//!
//! ```
//! # use bevy_ecs::prelude::*;
//! # use bevy_math::Vec3;
//! use bevy_sinew::prelude::*;
//!
//! /// Drag whatever rope or ragdoll `target` is with the cursor at `cursor`.
//! fn drag(target: Entity, cursor: Vec3, pressed: bool, held: bool, mut grab: MessageWriter<Grab>,
//!         mut moved: MessageWriter<MoveGrab>, mut release: MessageWriter<ReleaseGrab>) {
//!     match (pressed, held) {
//!         (true, false) => { grab.write(Grab::nearest(target, cursor)); }
//!         (true, true) => { moved.write(MoveGrab { target, hand: cursor }); }
//!         (false, true) => { release.write(ReleaseGrab { target }); }
//!         (false, false) => {}
//!     }
//! }
//! ```
//!
//! A grab takes one particle of the target — a rope particle, a ragdoll node — and drives
//! it to the hand. Ropes are grabbed hard: the particle becomes kinematic and reaches the
//! hand at the end of each step, moving in a straight line substep by substep. Ragdoll
//! nodes are grabbed hard as well by default; with [`Grab::compliance`] > 0 the hand pulls
//! the node through a soft spring instead (m/N: how far it stretches per newton), and a
//! heavy body lags behind it. One grab per entity: grabbing a grabbed entity again moves
//! the grip.
//!
//! Releasing gives the particle its mass back with its last step's velocity — the hand's
//! — so a rope or body swung and let go is *thrown*. The plugin answers every release
//! with a [`GrabReleased`] message carrying that velocity.
//!
//! The messages are read in the prepare set of the plugin's schedule: a message written
//! in `Update` acts at the next fixed step. The hand's last position is used for every
//! step until the next [`MoveGrab`].

use bevy_ecs::prelude::*;
use bevy_math::Vec3;
use sinew::math::{Real, Vector};
use sinew::ragdoll::Grab as NodeGrab;
use sinew::{ParticleHandle, RealOf, RopePoint, SinewError, VecOf};

use crate::space::PluginSpace;
use crate::world::{ActiveGrab, Body, GrabKind, SinewWorld};

/// Which particle of the target a [`Grab`] takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GrabPoint {
    /// The particle nearest to the hand (ropes and ragdolls).
    Nearest,
    /// A rope's particle nearest to this distance along it from its start (m).
    RopeArcLength(f32),
    /// A rope's particle `i` from the start, or a ragdoll's node `i` in rig order.
    Index(usize),
}

/// Grab a rope or ragdoll entity with a hand at `hand` (a message; see the module docs).
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct Grab {
    /// The rope or ragdoll entity.
    pub target: Entity,
    /// Which particle.
    pub point: GrabPoint,
    /// Where the hand is (world position).
    pub hand: Vec3,
    /// 0 = hard; > 0 a soft grab of a ragdoll node (m/N). Ropes are always grabbed hard.
    pub compliance: f32,
}

impl Grab {
    /// A hard grab of the particle nearest to the hand.
    #[must_use]
    pub fn nearest(target: Entity, hand: Vec3) -> Self {
        Self { target, point: GrabPoint::Nearest, hand, compliance: 0.0 }
    }

    /// A hard grab of a given particle.
    #[must_use]
    pub fn at(target: Entity, point: GrabPoint, hand: Vec3) -> Self {
        Self { target, point, hand, compliance: 0.0 }
    }

    /// Makes the grab soft (ragdolls).
    #[must_use]
    pub fn compliance(mut self, compliance: f32) -> Self {
        self.compliance = compliance;
        self
    }
}

/// Move the hand of `target`'s grab.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct MoveGrab {
    /// The grabbed entity.
    pub target: Entity,
    /// Where the hand is now.
    pub hand: Vec3,
}

/// Let go of `target`.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct ReleaseGrab {
    /// The grabbed entity.
    pub target: Entity,
}

/// `target` was let go, leaving the hand with `velocity` (m/s).
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct GrabReleased {
    /// The entity that was grabbed.
    pub target: Entity,
    /// The grabbed particle's velocity as it was let go.
    pub velocity: Vec3,
}

/// Prepare: starts, moves and ends grabs.
pub(crate) fn handle_grabs<S: PluginSpace>(
    mut sim: ResMut<SinewWorld<S>>,
    mut grabs: MessageReader<Grab>,
    mut moves: MessageReader<MoveGrab>,
    mut releases: MessageReader<ReleaseGrab>,
    mut released: MessageWriter<GrabReleased>,
) {
    let sim = &mut *sim;
    for g in grabs.read() {
        if let Some(old) = sim.map.grabs.remove(&g.target) {
            let _ = release::<S>(sim, old.kind);
        }
        match start::<S>(sim, g) {
            Ok(Some(kind)) => {
                sim.map.grabs.insert(g.target, ActiveGrab { kind, hand: S::vector(g.hand) });
            }
            Ok(None) => log::warn!("bevy_sinew: grab of {}: not a rope or ragdoll of this plugin", g.target),
            Err(e) => log::error!("bevy_sinew: grab of {} failed: {e}", g.target),
        }
    }
    for m in moves.read() {
        if let Some(active) = sim.map.grabs.get_mut(&m.target) {
            active.hand = S::vector(m.hand);
        }
    }
    for r in releases.read() {
        if let Some(active) = sim.map.grabs.remove(&r.target) {
            match release::<S>(sim, active.kind) {
                Ok(v) => {
                    released.write(GrabReleased { target: r.target, velocity: S::to_vec3(v) });
                }
                Err(e) => log::error!("bevy_sinew: release of {} failed: {e}", r.target),
            }
        }
    }
}

/// Starts a grab; `None` when the target is neither a rope nor a ragdoll of this world.
fn start<S: PluginSpace>(sim: &mut SinewWorld<S>, g: &Grab) -> Result<Option<GrabKind>, SinewError> {
    let hand = S::vector(g.hand);
    if let Some(h) = sim.map.ropes.get(&g.target).map(|r| r.handle) {
        let point = match g.point {
            GrabPoint::Nearest => RopePoint::Index(nearest(sim, sim.world.rope(h)?.particles(), hand)),
            GrabPoint::RopeArcLength(s) => RopePoint::ArcLength(RealOf::<S>::from_f64(f64::from(s))),
            GrabPoint::Index(i) => RopePoint::Index(i),
        };
        let p = sim.world.grab_rope(h, point)?;
        sim.world.particles_mut().set_kinematic_target(p, hand)?;
        return Ok(Some(GrabKind::Rope(p)));
    }
    let Some(entry) = sim.map.ragdolls.get(&g.target) else { return Ok(None) };
    let node = match g.point {
        GrabPoint::Index(i) => i,
        GrabPoint::Nearest | GrabPoint::RopeArcLength(_) => nearest(sim, entry.body.nodes(&sim.world), hand),
    };
    let compliance = RealOf::<S>::from_f64(f64::from(g.compliance));
    let grab = match &entry.body {
        Body::Plain(ragdoll, _) => ragdoll.grab(&mut sim.world, node, hand, compliance)?,
        Body::Muscle(h, _) => h.grab(&mut sim.world, node, hand, compliance)?,
    };
    Ok(Some(GrabKind::Ragdoll(grab)))
}

/// Index of the particle of `ps` nearest to `hand` (0 if none is alive).
fn nearest<S: PluginSpace>(sim: &SinewWorld<S>, ps: &[ParticleHandle], hand: VecOf<S>) -> usize {
    let positions = sim.world.particles();
    let d = |p: &ParticleHandle| positions.position(*p).map_or(f64::INFINITY, |x| (x - hand).length().to_f64());
    ps.iter().enumerate().min_by(|a, b| d(a.1).total_cmp(&d(b.1))).map_or(0, |(i, _)| i)
}

/// Lets go; returns the particle's velocity.
fn release<S: PluginSpace>(sim: &mut SinewWorld<S>, kind: GrabKind) -> Result<VecOf<S>, SinewError> {
    match kind {
        GrabKind::Rope(p) => {
            let v = sim.world.particles().velocity(p).unwrap_or(VecOf::<S>::ZERO);
            sim.world.release_particle(p)?;
            Ok(v)
        }
        GrabKind::Ragdoll(g) => g.release(&mut sim.world),
    }
}

/// Before each step: every hand's grab to where the hand is.
pub(crate) fn drive_grabs<S: PluginSpace>(sim: &mut SinewWorld<S>) -> Result<(), SinewError> {
    for active in sim.map.grabs.values() {
        match active.kind {
            GrabKind::Rope(p) => sim.world.particles_mut().set_kinematic_target(p, active.hand)?,
            GrabKind::Ragdoll(g) => NodeGrab::move_to(&g, &mut sim.world, active.hand)?,
        }
    }
    Ok(())
}
