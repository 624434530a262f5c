//! Ropes: chains of particles solved exactly, colliding span by span.
//!
//! A rope is an ordered run of particles in the world (so anything can pin, drive, grab or
//! push any of them) plus rope-level state: rest lengths and tensions per segment, bending,
//! tethers, friction, tearing, reeling, wind and sleep. What makes it a *production* rope:
//!
//! - **No stretch under load.** All segments are solved together each substep with an
//!   exact O(n) tridiagonal solve (`rope/chain.rs`), not link by link; tethers to the nearest
//!   pinned particles (measured along the rope) back it up.
//! - **Spans collide, not just particles** ([`edge`]): each segment is a capsule of the
//!   rope's radius, so a rope cannot slip through a post thinner than its particle spacing
//!   or cut a box corner between two particles; the test is swept, so a fast span cannot
//!   cross a thin post or wall within a substep either.
//! - **Tension in newtons** per segment: the chain's Lagrange multipliers averaged over the
//!   step's substeps (`−mean λ/h²`, the impulse each segment carried over the frame; why
//!   not one substep's: `rope/tension.rs`), smooth from frame to frame; tearing reads it.
//! - **Attached ends**: a particle of the world (a load, a hand, a ragdoll node) can be a
//!   rope's end node ([`RopeDef::attach_start`]), its mass inside the exact chain solve, so
//!   a 10 kg load hangs from a 200 g rope with under 0.1 % stretch. Ropes that end at the
//!   same particle (a crate in a V, a tripod) are solved together with it (`rope/shared.rs`).
//! - **Grab anywhere**: by particle index or arc length; pin to a point or drive to a
//!   moving target; release with the hand's velocity.
//! - **Reel** at either end with no particle pool: the end segment's rest length changes
//!   continuously and particles are inserted or removed when it passes 1.5× or 0.5× the
//!   nominal segment length ([`World::set_rope_length`](crate::World::set_rope_length)).
//! - **Tearing** where tension exceeds a threshold, **cutting** anywhere; both pieces
//!   keep simulating as ropes of their own ([`World::cut_rope`](crate::World::cut_rope)).
//! - **Wind** (drag toward a wind velocity), per-rope gravity scale, **sleeping** at rest.
//! - A smooth **Catmull–Rom** curve through the particles for drawing ([`curve`]).
//!
//! ```
//! use sinew::prelude::*;
//!
//! // A 300 g rope hanging in a V between two hooks 2 m apart (damping settles it).
//! let mut world = World2::new(WorldDef::default().damping(2.0))?;
//! let v = vec![Vector2::new(-1.0, 0.0), Vector2::new(0.0, -1.0), Vector2::new(1.0, 0.0)];
//! let rope = world.add_rope(&RopeDef::along(v).mass(0.3).pin_start().pin_end())?;
//! fn settle(world: &mut World2) -> Result<(), SinewError> {
//!     for _ in 0..240 {
//!         world.step(1.0 / 60.0)?;
//!     }
//!     Ok(())
//! }
//! settle(&mut world)?;
//! let t = world.rope_tensions(rope)?; // newtons, per segment
//! assert!((t[0] - t[t.len() - 1]).abs() < 0.02 * t[0], "symmetric: both hooks pull alike");
//!
//! // Reel 0.5 m in at the end (particles go as the end segment shortens), then cut it in
//! // the middle: two ropes, each hanging from its hook.
//! world.set_rope_length(rope, RopeEnd::End, world.rope(rope)?.rest_length() - 0.5)?;
//! let middle = world.rope(rope)?.segment_count() / 2;
//! let piece = world.cut_rope(rope, middle)?.expect("the part after the cut");
//! settle(&mut world)?;
//! // The segment at each hook carries the weight of everything below the hook.
//! for (r, hook_end) in [(rope, RopeEnd::Start), (piece, RopeEnd::End)] {
//!     let (rope, ps) = (world.rope(r)?, world.particles());
//!     let hook = ps.mass(rope.end_particle(hook_end)).unwrap();
//!     let below = rope.particles().iter().filter_map(|&p| ps.mass(p)).sum::<f32>() - hook;
//!     let segment = if hook_end == RopeEnd::Start { 0 } else { rope.segment_count() - 1 };
//!     let top = world.rope_tension(r, segment)?;
//!     assert!((top - below * 9.81).abs() < 0.02 * below * 9.81, "{top} N for {below} kg");
//! }
//! # Ok::<(), SinewError>(())
//! ```

pub(crate) mod chain;
pub mod curve;
pub mod edge;
pub mod overstretch;
pub(crate) mod reel;
pub(crate) mod shared;
pub(crate) mod solve;
pub mod taut;
pub(crate) mod tear;
pub(crate) mod tension;

use crate::SinewError;
use crate::arena::{Arena, define_handle};
use crate::constraint::Bending;
use crate::math::{Real, Vector};
use crate::particle::{ParticleDef, ParticleHandle, ParticleSet};
use crate::sleep::Sleep;
use crate::space::{RealOf, Space, VecOf};
use crate::state::saved_state;
pub use taut::{TautMode, Wrap};

define_handle!(
    /// A rope in a [`crate::World`].
    RopeHandle
);

/// Which end of a rope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RopeEnd {
    /// The first particle.
    Start,
    /// The last particle.
    End,
}

/// A point on a rope: a particle index along it, or an arc length from the start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RopePoint<R> {
    /// Particle `i` counted from the start (0-based).
    Index(usize),
    /// Distance along the rope's rest length from the start (m); the nearest particle.
    ArcLength(R),
}

/// Definition of a rope (Box2D-style definition struct with builder methods).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct RopeDef<S: Space> {
    /// Polyline the rope is laid along (≥ 2 points, m).
    pub points: Vec<VecOf<S>>,
    /// Number of segments; `None` = from `segment_length`.
    pub segments: Option<usize>,
    /// Target segment length (m) when `segments` is `None`. Default 5 cm.
    pub segment_length: RealOf<S>,
    /// Total mass (kg) spread over the particles by the length each represents.
    pub mass: RealOf<S>,
    /// Rope radius (m): particles and spans collide with it.
    pub radius: RealOf<S>,
    /// Stretch compliance (m/N); 0 = inextensible.
    pub compliance: RealOf<S>,
    /// Bending compliance; `None` = no bending resistance (a limp rope).
    pub bend_compliance: Option<RealOf<S>>,
    /// Tethers to the nearest pinned particles (along the rope).
    pub tethers: bool,
    /// Friction coefficient against colliders (particles and spans).
    pub friction: Option<RealOf<S>>,
    /// Tear where a segment's tension exceeds this (N); `None` = never.
    pub tear_tension: Option<RealOf<S>>,
    /// Multiplier on world gravity.
    pub gravity_scale: RealOf<S>,
    /// Pin the first particle.
    pub pin_start: bool,
    /// Pin the last particle.
    pub pin_end: bool,
    /// Spans collide with colliders (not only particles). Default on.
    pub edge_collisions: bool,
    /// A particle of the world to be the rope's first node instead of a new one (a load,
    /// a hand, a ragdoll node): the rope starts at its position (replacing
    /// `points[0]`), and its mass takes part in the rope's exact chain solve, so a load
    /// of any mass hangs without stretching the rope. The particle keeps its own mass,
    /// radius and constraints; removing the rope leaves it in the world.
    pub attach_start: Option<ParticleHandle>,
    /// The same for the rope's last node (replacing the last point).
    pub attach_end: Option<ParticleHandle>,
    /// When the rope uses the taut representation ([`taut`]); default
    /// [`TautMode::Never`].
    pub taut: TautMode,
}

impl<S: Space> Default for RopeDef<S> {
    fn default() -> Self {
        Self {
            points: Vec::new(),
            segments: None,
            segment_length: RealOf::<S>::from_ratio(1, 20),
            mass: RealOf::<S>::ONE,
            radius: RealOf::<S>::from_ratio(1, 100),
            compliance: RealOf::<S>::ZERO,
            bend_compliance: None,
            tethers: true,
            friction: None,
            tear_tension: None,
            gravity_scale: RealOf::<S>::ONE,
            pin_start: false,
            pin_end: false,
            edge_collisions: true,
            attach_start: None,
            attach_end: None,
            taut: TautMode::Never,
        }
    }
}

impl<S: Space> RopeDef<S> {
    /// A rope along the straight line `a → b`.
    #[must_use]
    pub fn between(a: VecOf<S>, b: VecOf<S>) -> Self {
        Self { points: vec![a, b], ..Self::default() }
    }
    /// A rope along a polyline.
    #[must_use]
    pub fn along(points: Vec<VecOf<S>>) -> Self {
        Self { points, ..Self::default() }
    }
    /// Sets the segment count.
    #[must_use]
    pub fn segments(mut self, n: usize) -> Self {
        self.segments = Some(n);
        self
    }
    /// Sets the target segment length.
    #[must_use]
    pub fn segment_length(mut self, l: RealOf<S>) -> Self {
        self.segments = None;
        self.segment_length = l;
        self
    }
    /// Sets the total mass.
    #[must_use]
    pub fn mass(mut self, m: RealOf<S>) -> Self {
        self.mass = m;
        self
    }
    /// Sets the radius.
    #[must_use]
    pub fn radius(mut self, r: RealOf<S>) -> Self {
        self.radius = r;
        self
    }
    /// Pins the start.
    #[must_use]
    pub fn pin_start(mut self) -> Self {
        self.pin_start = true;
        self
    }
    /// Pins the end.
    #[must_use]
    pub fn pin_end(mut self) -> Self {
        self.pin_end = true;
        self
    }
    /// Sets the bending compliance.
    #[must_use]
    pub fn bend_compliance(mut self, c: RealOf<S>) -> Self {
        self.bend_compliance = Some(c);
        self
    }
    /// Sets the tear threshold (N).
    #[must_use]
    pub fn tear_tension(mut self, t: RealOf<S>) -> Self {
        self.tear_tension = Some(t);
        self
    }
    /// Sets the friction coefficient.
    #[must_use]
    pub fn friction(mut self, mu: RealOf<S>) -> Self {
        self.friction = Some(mu);
        self
    }
    /// Turns tethers on or off.
    #[must_use]
    pub fn tethers(mut self, on: bool) -> Self {
        self.tethers = on;
        self
    }

    /// Sets the stretch compliance (m/N; 0 = inextensible).
    #[must_use]
    pub fn compliance(mut self, c: RealOf<S>) -> Self {
        self.compliance = c;
        self
    }
    /// Sets the multiplier on world gravity.
    #[must_use]
    pub fn gravity_scale(mut self, s: RealOf<S>) -> Self {
        self.gravity_scale = s;
        self
    }
    /// Makes an existing particle the rope's first node (see [`RopeDef::attach_start`]).
    #[must_use]
    pub fn attach_start(mut self, p: ParticleHandle) -> Self {
        self.attach_start = Some(p);
        self
    }
    /// Makes an existing particle the rope's last node (see [`RopeDef::attach_end`]).
    #[must_use]
    pub fn attach_end(mut self, p: ParticleHandle) -> Self {
        self.attach_end = Some(p);
        self
    }
    /// Sets the taut mode ([`taut`]).
    #[must_use]
    pub fn taut(mut self, mode: TautMode) -> Self {
        self.taut = mode;
        self
    }
    /// Turns span collisions on or off (particles collide either way).
    #[must_use]
    pub fn edge_collisions(mut self, on: bool) -> Self {
        self.edge_collisions = on;
        self
    }

    /// Checks the definition; returns the particle positions along the polyline, whose
    /// first and last points are `ends` where given (the attached particles' positions).
    /// The rope's points before any are made: `ends` replace the attached ends, and a rope
    /// whose segments would take the world's `(segments, limit)` past
    /// [`crate::Limits::rope_segments`] is refused before its points are allocated.
    pub(crate) fn layout(
        &self,
        ends: [Option<VecOf<S>>; 2],
        (segments, limit): (usize, usize),
    ) -> Result<Vec<VecOf<S>>, SinewError> {
        let zero = RealOf::<S>::ZERO;
        if (self.attach_start.is_some() && self.pin_start) || (self.attach_end.is_some() && self.pin_end) {
            return Err(SinewError::InvalidParameter {
                what: "rope attach",
                reason: "an attached end cannot also be pinned (pin the attached particle instead)",
                value: None,
            });
        }
        if self.attach_start.is_some() && self.attach_start == self.attach_end {
            return Err(SinewError::InvalidParameter {
                what: "rope attach",
                reason: "the same particle at both ends",
                value: None,
            });
        }
        if self.points.len() < 2 {
            return Err(SinewError::InvalidParameter {
                what: "rope points",
                reason: "at least 2 points are needed",
                value: None,
            });
        }
        for &p in &self.points {
            crate::particle::check_coordinates(p, "rope points")?;
        }
        let mut points = self.points.clone();
        let last = points.len() - 1;
        if let Some(p) = ends[0] {
            points[0] = p;
        }
        if let Some(p) = ends[1] {
            points[last] = p;
        }
        let mut total = zero;
        for w in points.windows(2) {
            total += (w[1] - w[0]).length();
        }
        if !(total > RealOf::<S>::GEOMETRIC_EPSILON) {
            return Err(SinewError::InvalidParameter {
                what: "rope points",
                reason: "the polyline has zero length",
                value: None,
            });
        }
        for (v, what) in [
            (self.mass, "rope mass"),
            (self.radius, "rope radius"),
            (self.compliance, "rope compliance"),
            (self.gravity_scale, "rope gravity_scale"),
        ] {
            if !v.is_finite() {
                return Err(SinewError::NonFinite { what });
            }
        }
        if !(self.mass > zero) {
            return Err(SinewError::InvalidParameter {
                what: "rope mass",
                reason: "must be > 0",
                value: Some(self.mass.to_f64()),
            });
        }
        if self.radius < zero || self.compliance < zero {
            return Err(SinewError::InvalidParameter {
                what: "rope radius/compliance",
                reason: "must be ≥ 0",
                value: Some(self.radius.min(self.compliance).to_f64()),
            });
        }
        for (v, what) in [(self.bend_compliance, "rope bend_compliance"), (self.friction, "rope friction")] {
            if let Some(v) = v
                && (!v.is_finite() || v < zero)
            {
                return Err(SinewError::InvalidParameter {
                    what,
                    reason: "must be finite and ≥ 0",
                    value: Some(v.to_f64()),
                });
            }
        }
        if let Some(t) = self.tear_tension
            && (!t.is_finite() || !(t > zero))
        {
            return Err(SinewError::InvalidParameter {
                what: "rope tear_tension",
                reason: "must be > 0",
                value: Some(t.to_f64()),
            });
        }
        let n = match self.segments {
            Some(n) => n,
            None => {
                if !self.segment_length.is_finite() || !(self.segment_length > zero) {
                    return Err(SinewError::InvalidParameter {
                        what: "rope segment_length",
                        reason: "must be > 0",
                        value: Some(self.segment_length.to_f64()),
                    });
                }
                let k = (total / self.segment_length).to_f64().round();
                k.max(1.0) as usize
            }
        };
        if n == 0 || n > 100_000 {
            return Err(SinewError::InvalidParameter {
                what: "rope segments",
                reason: "must be in 1..=100000",
                value: Some(n as f64),
            });
        }
        crate::Limits::check("rope segments", segments, n, limit)?;
        // Resample the polyline at n + 1 evenly spaced arc lengths.
        let step = total / RealOf::<S>::from_i32(n as i32);
        let mut out = Vec::with_capacity(n + 1);
        let mut seg = 0;
        let mut seg_start = zero;
        let mut seg_len = (points[1] - points[0]).length();
        for i in 0..=n {
            let s = if i == n { total } else { step * RealOf::<S>::from_i32(i as i32) };
            while seg + 2 < points.len() && s > seg_start + seg_len {
                seg_start += seg_len;
                seg += 1;
                seg_len = (points[seg + 1] - points[seg]).length();
            }
            let t = if seg_len > zero { ((s - seg_start) / seg_len).clamp(zero, RealOf::<S>::ONE) } else { zero };
            out.push(points[seg].lerp(points[seg + 1], t));
        }
        Ok(out)
    }
}

/// A rope in a world.
#[derive(Clone, Debug, PartialEq)]
pub struct Rope<S: Space> {
    /// Particles from start to end.
    pub(crate) particles: Vec<ParticleHandle>,
    /// Slot indices of `particles` (cached for the solver).
    pub(crate) idx: Vec<u32>,
    /// Rest length per segment (m).
    pub(crate) rest: Vec<RealOf<S>>,
    /// Chain multipliers of the last substep.
    pub(crate) lambda: Vec<RealOf<S>>,
    /// Bending multipliers and rest values (triples `i, i+1, i+2`).
    pub(crate) bend_lambda: Vec<RealOf<S>>,
    pub(crate) bend_rest: Vec<RealOf<S>>,
    /// Nominal segment length for reeling (m).
    pub(crate) segment_length: RealOf<S>,
    /// Mass per metre (kg/m) for particles created by reeling.
    pub(crate) density: RealOf<S>,
    /// Stretch compliance.
    pub(crate) compliance: RealOf<S>,
    /// Bending compliance.
    pub(crate) bend_compliance: Option<RealOf<S>>,
    /// Tethers on.
    pub(crate) tethers: bool,
    /// Rope radius (m).
    pub(crate) radius: RealOf<S>,
    /// Friction override.
    pub(crate) friction: Option<RealOf<S>>,
    /// Tear threshold (N).
    pub(crate) tear_tension: Option<RealOf<S>>,
    /// Spans collide.
    pub(crate) edge_collisions: bool,
    /// Wind velocity (m/s) the rope is dragged toward.
    pub(crate) wind: VecOf<S>,
    /// Drag coefficient per particle (N·s/m) toward `wind`; 0 = no wind.
    pub(crate) drag: RealOf<S>,
    /// Sleep (see [`crate::sleep`]): a sleeping rope is skipped by the solver until
    /// something wakes it.
    pub(crate) sleep: Sleep,
    /// Whether the first and last particles are attached particles of the world (not the
    /// rope's own: removing the rope leaves them). A rope with an attached end never
    /// sleeps: its sleep would freeze a particle that other bodies move.
    pub(crate) attached: [bool; 2],
    /// The taut representation's state ([`taut`]).
    pub(crate) taut: taut::Taut<RealOf<S>>,
}

saved_state!(impl[S: Space] Rope<S> {
    particles, idx, rest, lambda, bend_lambda, bend_rest, segment_length, density, compliance, bend_compliance,
    tethers, radius, friction, tear_tension, edge_collisions, wind, drag, sleep, attached, taut,
});

/// What rope edits (reeling, cutting, removing a particle) need from the world that holds
/// the rope's particles: implemented by [`crate::World`], so the rope module never names
/// the world.
pub(crate) trait RopeHost<S: Space> {
    /// The particles.
    fn particles(&self) -> &ParticleSet<S>;
    /// Adds a particle (validated).
    fn add_particle(&mut self, def: &ParticleDef<S>) -> Result<ParticleHandle, SinewError>;
    /// Removes a particle and what names it, except its rope (the caller edits that).
    fn remove_rope_particle(&mut self, p: ParticleHandle) -> Result<(), SinewError>;
    /// The ropes.
    fn ropes_mut(&mut self) -> &mut Arena<Rope<S>>;
}

impl<S: Space> Rope<S> {
    /// Builds a rope from its definition: its particles along `def.points` (each created by
    /// `add_particle`, except the attached ends `ends`: handle and position, checked by the
    /// caller), the chain, bending rest values and material.
    pub(crate) fn build(
        def: &RopeDef<S>,
        ends: [Option<(ParticleHandle, VecOf<S>)>; 2],
        segments: (usize, usize),
        mut add_particle: impl FnMut(&ParticleDef<S>) -> Result<ParticleHandle, SinewError>,
    ) -> Result<Self, SinewError> {
        let pts = def.layout(ends.map(|e| e.map(|(_, p)| p)), segments)?;
        let n = pts.len() - 1;
        let mut rest = Vec::with_capacity(n);
        let mut total = RealOf::<S>::ZERO;
        for w in pts.windows(2) {
            let l = (w[1] - w[0]).length();
            rest.push(l);
            total += l;
        }
        let density = def.mass / total;
        // Each particle carries half of each adjacent segment; an attached end carries its
        // own mass, and the rope's own particles share the rope's whole mass.
        let share = |i: usize| {
            let left = if i > 0 { rest[i - 1] } else { RealOf::<S>::ZERO };
            let right = if i < n { rest[i] } else { RealOf::<S>::ZERO };
            left + right
        };
        let attached_at = |i: usize| {
            if i == 0 {
                ends[0]
            } else if i == n {
                ends[1]
            } else {
                None
            }
        };
        let own_length = (0..=n)
            .filter(|&i| attached_at(i).is_none())
            .fold(RealOf::<S>::ZERO, |a, i| a + share(i) * RealOf::<S>::HALF);
        // (Without attachments exactly `density`, as the shares sum to `total` only up to
        // rounding.)
        let attached_any = ends.iter().any(Option::is_some);
        let own_density = if attached_any && own_length > RealOf::<S>::ZERO { def.mass / own_length } else { density };
        let mut particles = Vec::with_capacity(n + 1);
        for (i, &p) in pts.iter().enumerate() {
            if let Some((h, _)) = attached_at(i) {
                particles.push(h);
                continue;
            }
            let mut pd = ParticleDef::<S>::at(p);
            pd.mass = own_density * share(i) * RealOf::<S>::HALF;
            pd.radius = def.radius;
            pd.gravity_scale = def.gravity_scale;
            pd.friction = def.friction;
            pd.pinned = (i == 0 && def.pin_start) || (i == n && def.pin_end);
            particles.push(add_particle(&pd)?);
        }
        let idx = particles.iter().map(|h| h.index() as u32).collect();
        let bend_rest: Vec<RealOf<S>> =
            pts.windows(3).map(|w| Bending::<RealOf<S>>::measure(w[0], w[1], w[2])).collect();
        Ok(Rope {
            particles,
            idx,
            lambda: vec![RealOf::<S>::ZERO; n],
            bend_lambda: vec![RealOf::<S>::ZERO; bend_rest.len()],
            bend_rest,
            rest,
            segment_length: total / RealOf::<S>::from_i32(n as i32),
            density,
            compliance: def.compliance,
            bend_compliance: def.bend_compliance,
            tethers: def.tethers,
            radius: def.radius,
            friction: def.friction,
            tear_tension: def.tear_tension,
            edge_collisions: def.edge_collisions,
            wind: VecOf::<S>::ZERO,
            drag: RealOf::<S>::ZERO,
            sleep: Sleep::default(),
            attached: [ends[0].is_some(), ends[1].is_some()],
            taut: taut::Taut { mode: def.taut, ..Default::default() },
        })
    }
}

impl<S: Space> Rope<S> {
    /// Whether that end is a particle of the world attached to the rope
    /// ([`RopeDef::attach_start`]), not one of the rope's own.
    #[must_use]
    pub fn is_attached(&self, end: RopeEnd) -> bool {
        self.attached[usize::from(end == RopeEnd::End)]
    }
    /// Particles from start to end.
    #[must_use]
    pub fn particles(&self) -> &[ParticleHandle] {
        &self.particles
    }
    /// Number of segments.
    #[must_use]
    pub fn segment_count(&self) -> usize {
        self.rest.len()
    }
    /// Rest length per segment (m).
    #[must_use]
    pub fn rest_lengths(&self) -> &[RealOf<S>] {
        &self.rest
    }
    /// Total rest length (m).
    #[must_use]
    pub fn rest_length(&self) -> RealOf<S> {
        self.rest.iter().fold(RealOf::<S>::ZERO, |a, &b| a + b)
    }
    /// The first particle.
    #[must_use]
    pub fn start(&self) -> ParticleHandle {
        self.particles[0]
    }
    /// The last particle (the end a weight usually hangs from).
    #[must_use]
    pub fn end(&self) -> ParticleHandle {
        self.particles[self.particles.len() - 1]
    }
    /// The particle at one end.
    #[must_use]
    pub fn end_particle(&self, end: RopeEnd) -> ParticleHandle {
        match end {
            RopeEnd::Start => self.start(),
            RopeEnd::End => self.end(),
        }
    }
    /// Rope radius (m).
    #[must_use]
    pub fn radius(&self) -> RealOf<S> {
        self.radius
    }
    /// Stretch compliance (m/N); 0 = inextensible.
    #[must_use]
    pub fn compliance(&self) -> RealOf<S> {
        self.compliance
    }
    /// Bending compliance (`None`: limp).
    #[must_use]
    pub fn bend_compliance(&self) -> Option<RealOf<S>> {
        self.bend_compliance
    }
    /// Whether tethers back up the chain.
    #[must_use]
    pub fn has_tethers(&self) -> bool {
        self.tethers
    }
    /// Friction override against colliders.
    #[must_use]
    pub fn friction(&self) -> Option<RealOf<S>> {
        self.friction
    }
    /// Tear threshold (N).
    #[must_use]
    pub fn tear_tension(&self) -> Option<RealOf<S>> {
        self.tear_tension
    }
    /// Whether spans collide (not only particles).
    #[must_use]
    pub fn edge_collisions(&self) -> bool {
        self.edge_collisions
    }
    /// Wind velocity (m/s) and drag coefficient (N·s/m per particle).
    #[must_use]
    pub fn wind(&self) -> (VecOf<S>, RealOf<S>) {
        (self.wind, self.drag)
    }
    /// Nominal segment length (m): reeling inserts and removes particles around it.
    #[must_use]
    pub fn segment_length(&self) -> RealOf<S> {
        self.segment_length
    }
    /// The taut mode asked for ([`taut`]).
    #[must_use]
    pub fn taut_mode(&self) -> TautMode {
        self.taut.mode
    }
    /// Whether the rope is taut now (a polyline round its contacts) rather than slack
    /// (its particles).
    #[must_use]
    pub fn is_taut(&self) -> bool {
        self.taut.active
    }
    /// The taut path's contacts from start to end (empty when slack).
    #[must_use]
    pub fn wraps(&self) -> &[Wrap<RealOf<S>>] {
        &self.taut.wraps
    }
    /// True while asleep.
    #[must_use]
    pub fn is_sleeping(&self) -> bool {
        self.sleep.sleeping
    }
    /// Particle index nearest to arc length `s` from the start.
    #[must_use]
    pub fn index_at_arc_length(&self, s: RealOf<S>) -> usize {
        let mut acc = RealOf::<S>::ZERO;
        for (i, &r) in self.rest.iter().enumerate() {
            if s < acc + r * RealOf::<S>::HALF {
                return i;
            }
            acc += r;
        }
        self.rest.len()
    }
    /// Resolves a [`RopePoint`] to a particle index along the rope.
    pub fn resolve(&self, p: RopePoint<RealOf<S>>) -> Result<usize, SinewError> {
        match p {
            RopePoint::Index(i) if i < self.particles.len() => Ok(i),
            RopePoint::Index(_) => Err(SinewError::InvalidParameter {
                what: "rope point",
                reason: "particle index out of range",
                value: None,
            }),
            RopePoint::ArcLength(s) if s.is_finite() => Ok(self.index_at_arc_length(s)),
            RopePoint::ArcLength(_) => Err(SinewError::NonFinite { what: "rope arc length" }),
        }
    }
}
