//! Turning a [`SceneSpec`] into a [`World`], with every error naming its path in the file.

use crate::spec::{ColliderSpec, SceneSpec, ShapeSpec};
use crate::{SceneError, SceneLimits, SceneRagdoll, SceneSpace};
use sinew::{
    AttachmentDef, BendingDef, ColliderDef, DistanceDef, DriverDef, InteractionGroups, ParticleDef, ParticleHandle,
    Real, RealOf, RopeDef, RopeEnd, RopeHandle, Shape, Space, TautMode, TetherDef, VecOf, Vector, World, WorldDef,
};

/// A built scene: the world plus what the runner needs to report it.
#[derive(Clone, Debug)]
pub struct BuiltScene<S: SceneSpace> {
    /// The world.
    pub world: World<S>,
    /// Particles by global index: the file's particles, then rope particles rope by rope,
    /// then particles created while running (reeling) in order of creation. Removed
    /// particles keep their index.
    pub particles: Vec<ParticleHandle>,
    /// Last known position per global index (what is reported for removed particles).
    pub last_pos: Vec<VecOf<S>>,
    /// Fixed time step (s).
    pub dt: f64,
    /// Ropes created by the file, with their reel schedules.
    pub ropes: Vec<SceneRope<S>>,
    /// Ragdolls created by the file (global index ranges and node names).
    pub ragdolls: Vec<SceneRagdoll>,
    /// Muscle ragdolls, stepped together with the world.
    pub muscles: Vec<sinew::MuscleRagdollHandle<S>>,
    /// The brachiating character (2D scenes only), stepped after the world.
    pub brachiator: Option<sinew::brachiation::Brachiator<RealOf<S>>>,
    /// Grabs the brachiator had made before the last step (the frame's new grabs follow).
    pub grabs_before: usize,
    /// The fighters' bout (`fighters` key), which steps the world.
    pub bout: Option<sinew::fight::BoutHandle<S>>,
    /// Particle slot → (generation, global index).
    slot_map: Vec<Option<(u32, usize)>>,
    /// Every rope's particles, rope after rope, as of the last [`BuiltScene::sync`]: while
    /// they stay the same (no reeling, tearing or new rope) there is nothing to register.
    synced_ropes: Vec<ParticleHandle>,
}

/// A rope from the scene file.
#[derive(Clone, Debug)]
pub struct SceneRope<S: Space> {
    /// Its handle (the first piece if it tears).
    pub handle: RopeHandle,
    /// `(time, rest length)` schedule.
    pub reel: Vec<(RealOf<S>, RealOf<S>)>,
    /// End the reel acts on.
    pub reel_end: RopeEnd,
    /// Whether its start and end are attached particles of the file.
    pub attached: [bool; 2],
}

/// [`BuiltScene::global_index`] on the scene's parts (so that callers can hold the world
/// while registering).
fn register<S: SceneSpace>(
    world: &World<S>,
    particles: &mut Vec<ParticleHandle>,
    last_pos: &mut Vec<VecOf<S>>,
    slot_map: &mut Vec<Option<(u32, usize)>>,
    h: ParticleHandle,
) -> usize {
    let slot = h.index();
    if let Some(Some((generation, g))) = slot_map.get(slot)
        && *generation == h.0.generation
    {
        return *g;
    }
    if slot_map.len() <= slot {
        slot_map.resize(slot + 1, None);
    }
    let g = particles.len();
    particles.push(h);
    last_pos.push(world.particles().position(h).unwrap_or(VecOf::<S>::ZERO));
    slot_map[slot] = Some((h.0.generation, g));
    g
}

impl<S: SceneSpace> BuiltScene<S> {
    /// Global index of a live particle, registering particles created while running.
    pub fn global_index(&mut self, h: ParticleHandle) -> usize {
        let Self { world, particles, last_pos, slot_map, .. } = self;
        register(world, particles, last_pos, slot_map, h)
    }

    /// Global index of a particle, if it has one.
    #[must_use]
    pub fn global_of(&self, h: ParticleHandle) -> Option<usize> {
        match self.slot_map.get(h.index()) {
            Some(Some((generation, g))) if *generation == h.0.generation => Some(*g),
            _ => None,
        }
    }

    /// After a step: registers new rope particles and records positions.
    pub fn sync(&mut self) {
        let Self { world, particles, last_pos, slot_map, synced_ropes, .. } = self;
        let mut same = true;
        let mut at = 0;
        for (_, r) in world.ropes() {
            let hs = r.particles();
            same &= synced_ropes.get(at..at + hs.len()) == Some(hs);
            at += hs.len();
        }
        if !(same && at == synced_ropes.len()) {
            synced_ropes.clear();
            for (_, r) in world.ropes() {
                for &h in r.particles() {
                    register(world, particles, last_pos, slot_map, h);
                }
                synced_ropes.extend_from_slice(r.particles());
            }
        }
        for (g, &h) in particles.iter().enumerate() {
            if let Some(p) = world.particles().position(h) {
                last_pos[g] = p;
            }
        }
    }

    /// Applies the reel schedules for time `t` (before stepping to it).
    /// Errors name the rope's reel (`ropes[2].reel`).
    pub fn apply_reels(&mut self, t: RealOf<S>) -> Result<(), SceneError> {
        for (i, r) in self.ropes.iter().enumerate() {
            if r.reel.is_empty() || self.world.rope(r.handle).is_err() {
                continue;
            }
            let len = sample_schedule(&r.reel, t);
            self.world
                .set_rope_length(r.handle, r.reel_end, len)
                .map_err(|e| sinew_err(&format!("ropes[{i}].reel"), e))?;
        }
        Ok(())
    }
}

fn sample_schedule<R: Real>(keys: &[(R, R)], t: R) -> R {
    if t <= keys[0].0 {
        return keys[0].1;
    }
    for w in keys.windows(2) {
        if t <= w[1].0 {
            let f = (t - w[0].0) / (w[1].0 - w[0].0);
            return w[0].1 + (w[1].1 - w[0].1) * f;
        }
    }
    keys[keys.len() - 1].1
}

pub(crate) fn err(path: impl Into<String>, message: impl Into<String>) -> SceneError {
    SceneError { path: path.into(), message: message.into() }
}

pub(crate) fn finite(path: &str, v: f64) -> Result<f64, SceneError> {
    if v.is_finite() { Ok(v) } else { Err(err(path, "must be a finite number")) }
}

pub(crate) fn non_negative(path: &str, v: f64) -> Result<f64, SceneError> {
    if finite(path, v)? < 0.0 { Err(err(path, "must be ≥ 0")) } else { Ok(v) }
}

pub(crate) fn positive(path: &str, v: f64) -> Result<f64, SceneError> {
    if finite(path, v)? <= 0.0 { Err(err(path, "must be > 0")) } else { Ok(v) }
}

/// The largest coordinate (and velocity, and every other vector component) a fixed-point
/// scene may hold, 2¹⁴: differences up to 2¹⁵ square to 2³⁰, within Q32.32's ±2³¹ with a
/// factor 2 to spare.
pub(crate) const FIXED_COORDINATE_RANGE: f64 = 16384.0;

/// A vector of the scene's dimension.
pub(crate) fn vector<S: Space>(path: &str, v: &[f64]) -> Result<VecOf<S>, SceneError> {
    if v.len() != S::DIM {
        return Err(err(path, format!("must have {} components, found {}", S::DIM, v.len())));
    }
    for (i, c) in v.iter().enumerate() {
        finite(&format!("{path}[{i}]"), *c)?;
        if !RealOf::<S>::FLOATING && c.abs() > FIXED_COORDINATE_RANGE {
            return Err(err(
                format!("{path}[{i}]"),
                format!(
                    "{c} is outside ±{FIXED_COORDINATE_RANGE}, the range of fixed-point coordinates (the solver squares \
                     their differences, which must stay within Q32.32's ±2³¹); use \"f32\" or \"f64\" for larger worlds"
                ),
            ));
        }
    }
    Ok(VecOf::<S>::from_f64_slice(v))
}

pub(crate) fn real<S: Space>(v: f64) -> RealOf<S> {
    RealOf::<S>::from_f64(v)
}

/// A mass ≥ 0 that keeps its meaning in the scene's number type: one that rounds to 0
/// (below 2⁻³³ kg in fixed point) would pin its particle, one whose inverse overflows (a
/// denormal `f32`, 2⁻³² kg in fixed point) would freeze or launch it.
pub(crate) fn mass<S: Space>(path: &str, m: f64) -> Result<RealOf<S>, SceneError> {
    let r = real::<S>(non_negative(path, m)?);
    let inv = RealOf::<S>::ONE / r;
    if m > 0.0 && (r <= RealOf::<S>::ZERO || !inv.is_finite() || inv >= RealOf::<S>::MAX) {
        let name = RealOf::<S>::NAME;
        return Err(err(
            path,
            format!(
                "{m:e} kg is too small for {name}: it rounds to 0 or its inverse overflows (a mass of 0 pins a particle)"
            ),
        ));
    }
    Ok(r)
}

/// Particle index check.
pub(crate) fn index(path: &str, i: i64, handles: &[ParticleHandle]) -> Result<ParticleHandle, SceneError> {
    if i < 0 || i as usize >= handles.len() {
        return Err(err(path, format!("particle index {i} out of range (scene has {} particles)", handles.len())));
    }
    Ok(handles[i as usize])
}

/// A world's error at `path`; a limit the world enforces is the scene's (its
/// [`crate::SceneLimits`] became the world's limits).
pub(crate) fn sinew_err(path: &str, e: sinew::SinewError) -> SceneError {
    match e {
        sinew::SinewError::LimitExceeded { what, limit, requested } => {
            err(path, format!("{requested} {what} in the scene would exceed its limit of {limit} (SceneLimits)"))
        }
        e => err(path, e.to_string()),
    }
}

pub(crate) fn build<S: SceneSpace>(spec: &SceneSpec, limits: &SceneLimits) -> Result<BuiltScene<S>, SceneError> {
    let mut def = WorldDef::<S>::default();
    def.limits = limits.world_limits();
    if let Some(g) = &spec.gravity {
        def.gravity = vector::<S>("gravity", g)?;
    } else {
        let mut g = VecOf::<S>::ZERO;
        g.set(1, real::<S>(-9.81));
        def.gravity = g;
    }
    let dt = match spec.dt {
        Some(dt) => positive("dt", dt)?,
        None => 1.0 / 60.0,
    };
    if dt > 1.0 {
        return Err(err("dt", "must be ≤ 1 s (a physics step longer than a second is not a simulation)"));
    }
    def.max_time_step = real::<S>(dt.max(0.1));
    if let Some(n) = spec.substeps {
        if !(1..=1024).contains(&n) {
            return Err(err("substeps", "must be an integer in 1..=1024"));
        }
        def.substeps = n as u32;
    }
    if let Some(n) = spec.iterations {
        if !(1..=1024).contains(&n) {
            return Err(err("iterations", "must be an integer in 1..=1024"));
        }
        def.iterations = n as u32;
    }
    if let Some(n) = spec.impact_passes {
        if !(0..=1024).contains(&n) {
            return Err(err("impact_passes", "must be an integer in 0..=1024"));
        }
        def.impact_passes = n as u32;
    }
    if let Some(on) = spec.tree_solve {
        def.tree_solve = on;
    }
    if let Some(on) = spec.limit_rows {
        def.limit_rows = on;
    }
    if let Some(on) = spec.body_restitution {
        def.body_restitution = on;
    }
    if let Some(on) = spec.body_contacts {
        def.body_contacts = on;
    }
    if let Some(d) = spec.plane_reuse {
        def.plane_reuse = real::<S>(non_negative("plane_reuse", d)?);
    }
    if let Some(d) = spec.damping {
        def.damping = real::<S>(non_negative("damping", d)?);
    }
    if let Some(f) = spec.friction {
        def.friction = real::<S>(non_negative("friction", f)?);
    }
    if let Some(f) = spec.static_friction {
        def.static_friction = Some(real::<S>(non_negative("static_friction", f)?));
    }
    if let Some(e) = spec.restitution {
        if !(0.0..=1.0).contains(&finite("restitution", e)?) {
            return Err(err("restitution", "must be in [0, 1]"));
        }
        def.restitution = real::<S>(e);
    }
    let mut world = World::new(def).map_err(|e| sinew_err("", e))?;

    let mut handles = Vec::with_capacity(spec.particles.len());
    for (i, p) in spec.particles.iter().enumerate() {
        let path = format!("particles[{i}]");
        let mut d = ParticleDef::<S>::at(vector::<S>(&format!("{path}.pos"), &p.pos)?);
        if let Some(v) = &p.vel {
            d.velocity = vector::<S>(&format!("{path}.vel"), v)?;
        }
        if let Some(m) = p.mass {
            d.mass = mass::<S>(&format!("{path}.mass"), m)?;
        }
        if let Some(r) = p.radius {
            d.radius = real::<S>(non_negative(&format!("{path}.radius"), r)?);
        }
        d.pinned = p.pinned.unwrap_or(false);
        if let Some(g) = p.gravity_scale {
            d.gravity_scale = real::<S>(finite(&format!("{path}.gravity_scale"), g)?);
        }
        if let Some(f) = p.friction {
            d.friction = Some(real::<S>(non_negative(&format!("{path}.friction"), f)?));
        }
        if p.collides == Some(false) {
            d.groups = InteractionGroups::NONE;
        }
        handles.push(world.add_particle(&d).map_err(|e| sinew_err(&path, e))?);
    }

    let mut ropes = Vec::new();
    let file_particles = handles.len();
    for (i, r) in spec.ropes.iter().enumerate() {
        let path = format!("ropes[{i}]");
        let scene_rope = rope::<S>(&path, r, &mut world, &handles[..file_particles])?;
        // The rope's own particles (attached ends are the file's, indexed already).
        let own = world.rope(scene_rope.handle).map(|r| r.particles()).unwrap_or(&[]);
        let start = usize::from(scene_rope.attached[0]);
        let end = own.len().saturating_sub(usize::from(scene_rope.attached[1])).max(start);
        handles.extend_from_slice(&own[start..end]);
        ropes.push(scene_rope);
    }

    let mut ragdolls = Vec::new();
    let mut muscles = Vec::new();
    S::add_ragdolls(spec, &mut world, &mut handles, &mut ragdolls, &mut muscles)?;
    let bout = match crate::fight::add_fighters(spec, &mut world)? {
        Some((h, nodes)) => {
            for n in nodes {
                handles.extend_from_slice(&n);
            }
            Some(h)
        }
        None => None,
    };

    for (i, c) in spec.distances.iter().enumerate() {
        let path = format!("distances[{i}]");
        let a = index(&format!("{path}.a"), c.a, &handles)?;
        let b = index(&format!("{path}.b"), c.b, &handles)?;
        if a == b {
            return Err(err(&path, "a and b must be different particles"));
        }
        let mut d = DistanceDef::<S>::new(a, b);
        if let Some(l) = c.length {
            d.length = Some(real::<S>(non_negative(&format!("{path}.length"), l)?));
        }
        if let Some(x) = c.compliance {
            d.compliance = real::<S>(non_negative(&format!("{path}.compliance"), x)?);
        }
        if let Some(x) = c.damping {
            d.damping = real::<S>(non_negative(&format!("{path}.damping"), x)?);
        }
        d.unilateral = c.unilateral.unwrap_or(false);
        world.add_distance(&d).map_err(|e| sinew_err(&path, e))?;
    }
    for (i, t) in spec.tethers.iter().enumerate() {
        let path = format!("tethers[{i}]");
        let particle = index(&format!("{path}.particle"), t.particle, &handles)?;
        let anchor = index(&format!("{path}.anchor"), t.anchor, &handles)?;
        let length = match t.length {
            Some(l) => Some(real::<S>(non_negative(&format!("{path}.length"), l)?)),
            None => None,
        };
        world
            .add_tether(&{
                let mut d = TetherDef::new(particle, anchor);
                d.length = length;
                d
            })
            .map_err(|e| sinew_err(&path, e))?;
    }
    for (i, b) in spec.bendings.iter().enumerate() {
        let path = format!("bendings[{i}]");
        let d = {
            let mut d = BendingDef::<S>::new(
                index(&format!("{path}.a"), b.a, &handles)?,
                index(&format!("{path}.b"), b.b, &handles)?,
                index(&format!("{path}.c"), b.c, &handles)?,
            );
            d.compliance = real::<S>(non_negative(&format!("{path}.compliance"), b.compliance.unwrap_or(0.0))?);
            d.rest = None;
            d
        };
        world.add_bending(&d).map_err(|e| sinew_err(&path, e))?;
    }
    for (i, a) in spec.attachments.iter().enumerate() {
        let path = format!("attachments[{i}]");
        let mut d = AttachmentDef::<S>::new(
            index(&format!("{path}.particle"), a.particle, &handles)?,
            vector::<S>(&format!("{path}.target"), &a.target)?,
        );
        d.length = real::<S>(non_negative(&format!("{path}.length"), a.length.unwrap_or(0.0))?);
        d.compliance = real::<S>(non_negative(&format!("{path}.compliance"), a.compliance.unwrap_or(0.0))?);
        d.damping = real::<S>(non_negative(&format!("{path}.damping"), a.damping.unwrap_or(0.0))?);
        world.add_attachment(&d).map_err(|e| sinew_err(&path, e))?;
    }
    S::add_joint_limits(spec, &mut world, &handles)?;

    for (i, c) in spec.colliders.iter().enumerate() {
        let (kind, body) = c.parts();
        let path = format!("colliders[{i}].{kind}");
        let def = collider::<S>(&path, c, body)?;
        world.add_collider(&def).map_err(|e| sinew_err(&path, e))?;
    }

    for (i, d) in spec.drivers.iter().enumerate() {
        let path = format!("drivers[{i}]");
        let particle = index(&format!("{path}.particle"), d.particle, &handles)?;
        if d.keys.is_empty() {
            return Err(err(format!("{path}.keys"), "needs at least one key"));
        }
        let mut keys = Vec::with_capacity(d.keys.len());
        for (k, (t, p)) in d.keys.iter().enumerate() {
            let kp = format!("{path}.keys[{k}]");
            let t = finite(&format!("{kp}[0]"), *t)?;
            if k > 0 && t <= d.keys[k - 1].0 {
                return Err(err(format!("{kp}[0]"), "key times must be strictly increasing"));
            }
            keys.push((real::<S>(t), vector::<S>(&format!("{kp}[1]"), p)?));
        }
        let release_mass = positive(&format!("{path}.release_mass"), d.release_mass.unwrap_or(1.0))?;
        let mut def = DriverDef::<S>::new(particle, keys);
        def.release = d.release.unwrap_or(false);
        def.release_mass = real::<S>(release_mass);
        def.relative = d.relative.unwrap_or(false);
        world.add_driver(&def).map_err(|e| sinew_err(&path, e))?;
    }

    let last_pos = handles.iter().map(|&h| world.particles().position(h).unwrap_or(VecOf::<S>::ZERO)).collect();
    let mut built = BuiltScene {
        world,
        particles: Vec::new(),
        last_pos: Vec::new(),
        dt,
        ropes,
        ragdolls,
        muscles,
        bout,
        slot_map: Vec::new(),
        synced_ropes: Vec::new(),
        brachiator: None,
        grabs_before: 0,
    };
    if let Some(b) = &spec.brachiator {
        if S::DIM != 2 {
            return Err(err("brachiator", "a brachiator needs a 2D scene (\"dim\": 2)"));
        }
        built.brachiator = Some(crate::brachiator::build::<RealOf<S>>(b, dt)?);
    }
    for h in handles {
        built.global_index(h);
    }
    built.last_pos = last_pos;
    Ok(built)
}

/// Keys each shape accepts besides the common friction / restitution overrides.
fn allowed_keys(kind: &str) -> &'static [&'static str] {
    match kind {
        "circle" | "sphere" => &["center", "radius"],
        "plane" => &["normal", "offset"],
        "box" => &["center", "half_extents", "angle", "rotation"],
        "capsule" => &["a", "b", "radius"],
        "polygon" => &["points", "position", "angle"],
        "hull" => &["points", "position", "rotation"],
        _ => &[],
    }
}

fn present_keys(s: &ShapeSpec) -> Vec<&'static str> {
    let mut k = Vec::new();
    let mut push = |present: bool, name: &'static str| {
        if present {
            k.push(name);
        }
    };
    push(s.center.is_some(), "center");
    push(s.radius.is_some(), "radius");
    push(s.normal.is_some(), "normal");
    push(s.offset.is_some(), "offset");
    push(s.half_extents.is_some(), "half_extents");
    push(s.angle.is_some(), "angle");
    push(s.rotation.is_some(), "rotation");
    push(s.a.is_some(), "a");
    push(s.b.is_some(), "b");
    push(s.points.is_some(), "points");
    push(s.position.is_some(), "position");
    k
}

pub(crate) fn required<'a, T>(path: &str, key: &str, v: &'a Option<T>) -> Result<&'a T, SceneError> {
    v.as_ref().ok_or_else(|| err(format!("{path}.{key}"), "is required"))
}

fn collider<S: SceneSpace>(path: &str, c: &ColliderSpec, s: &ShapeSpec) -> Result<ColliderDef<S>, SceneError> {
    let (kind, _) = c.parts();
    let allowed = allowed_keys(kind);
    for key in present_keys(s) {
        if !allowed.contains(&key) {
            return Err(err(
                format!("{path}.{key}"),
                format!("is not a key of `{kind}` (allowed: {})", allowed.join(", ")),
            ));
        }
    }
    let mut def = S::collider_def(path, kind, s)?;
    if let Some(f) = s.friction {
        def.friction = Some(real::<S>(non_negative(&format!("{path}.friction"), f)?));
    }
    if let Some(f) = s.static_friction {
        def.static_friction = Some(real::<S>(non_negative(&format!("{path}.static_friction"), f)?));
    }
    if let Some(e) = s.restitution {
        if !(0.0..=1.0).contains(&finite(&format!("{path}.restitution"), e)?) {
            return Err(err(format!("{path}.restitution"), "must be in [0, 1]"));
        }
        def.restitution = Some(real::<S>(e));
    }
    Ok(def)
}

/// Shapes common to both dimensions.
pub(crate) fn common_shape<S: Space>(
    path: &str,
    kind: &str,
    s: &ShapeSpec,
) -> Result<Option<ColliderDef<S>>, SceneError> {
    let shape_err = |e: sinew::SinewError| err(path, e.to_string());
    Ok(Some(match kind {
        "circle" | "sphere" => {
            let center = vector::<S>(&format!("{path}.center"), required(path, "center", &s.center)?)?;
            let r = positive(&format!("{path}.radius"), *required(path, "radius", &s.radius)?)?;
            ColliderDef::new(Shape::ball(real::<S>(r)).map_err(shape_err)?).position(center)
        }
        "plane" => {
            let n = vector::<S>(&format!("{path}.normal"), required(path, "normal", &s.normal)?)?;
            if n.length() == RealOf::<S>::ZERO || n.length_squared() < real::<S>(1e-12) {
                return Err(err(format!("{path}.normal"), "must not be zero-length"));
            }
            let off = finite(&format!("{path}.offset"), *required(path, "offset", &s.offset)?)?;
            ColliderDef::new(Shape::half_space(n, real::<S>(off)).map_err(shape_err)?)
        }
        "capsule" => {
            let a = vector::<S>(&format!("{path}.a"), required(path, "a", &s.a)?)?;
            let b = vector::<S>(&format!("{path}.b"), required(path, "b", &s.b)?)?;
            let r = positive(&format!("{path}.radius"), *required(path, "radius", &s.radius)?)?;
            ColliderDef::new(Shape::capsule(a, b, real::<S>(r)).map_err(shape_err)?)
        }
        _ => return Ok(None),
    }))
}

fn rope<S: Space>(
    path: &str,
    r: &crate::spec::RopeSpec,
    world: &mut World<S>,
    file_particles: &[ParticleHandle],
) -> Result<SceneRope<S>, SceneError> {
    let mut points = Vec::with_capacity(r.points.len());
    for (k, p) in r.points.iter().enumerate() {
        points.push(vector::<S>(&format!("{path}.points[{k}]"), p)?);
    }
    if points.len() < 2 {
        return Err(err(format!("{path}.points"), "needs at least 2 points"));
    }
    let mut def = RopeDef::<S>::along(points);
    if let Some(n) = r.segments {
        if !(1..=100_000).contains(&n) {
            return Err(err(format!("{path}.segments"), "must be an integer in 1..=100000"));
        }
        def.segments = Some(n as usize);
    }
    if let Some(l) = r.segment_length {
        if r.segments.is_some() {
            return Err(err(format!("{path}.segment_length"), "give either `segments` or `segment_length`"));
        }
        def.segment_length = real::<S>(positive(&format!("{path}.segment_length"), l)?);
    }
    if let Some(m) = r.mass {
        def.mass = mass::<S>(&format!("{path}.mass"), positive(&format!("{path}.mass"), m)?)?;
    }
    if let Some(x) = r.radius {
        def.radius = real::<S>(non_negative(&format!("{path}.radius"), x)?);
    }
    if let Some(x) = r.compliance {
        def.compliance = real::<S>(non_negative(&format!("{path}.compliance"), x)?);
    }
    if let Some(x) = r.bend_compliance {
        def.bend_compliance = Some(real::<S>(non_negative(&format!("{path}.bend_compliance"), x)?));
    }
    if let Some(x) = r.friction {
        def.friction = Some(real::<S>(non_negative(&format!("{path}.friction"), x)?));
    }
    if let Some(x) = r.tear_tension {
        def.tear_tension = Some(real::<S>(positive(&format!("{path}.tear_tension"), x)?));
    }
    if let Some(x) = r.gravity_scale {
        def.gravity_scale = real::<S>(finite(&format!("{path}.gravity_scale"), x)?);
    }
    def.tethers = r.tethers.unwrap_or(true);
    def.edge_collisions = r.edge_collisions.unwrap_or(true);
    let mut pin_indices = Vec::new();
    for (k, p) in r.pin.iter().enumerate() {
        let pp = format!("{path}.pin[{k}]");
        match p {
            serde_json::Value::String(s) if s == "start" => def.pin_start = true,
            serde_json::Value::String(s) if s == "end" => def.pin_end = true,
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) if i >= 0 => pin_indices.push((pp, i as usize)),
                _ => return Err(err(pp, "must be \"start\", \"end\" or a particle index ≥ 0")),
            },
            _ => return Err(err(pp, "must be \"start\", \"end\" or a particle index ≥ 0")),
        }
    }
    if let Some(a) = &r.attach {
        if let Some(i) = a.start {
            def.attach_start = Some(index(&format!("{path}.attach.start"), i, file_particles)?);
        }
        if let Some(i) = a.end {
            def.attach_end = Some(index(&format!("{path}.attach.end"), i, file_particles)?);
        }
    }
    def.taut = match r.taut.as_deref() {
        None | Some("never") => TautMode::Never,
        Some("auto") => TautMode::Auto,
        Some("always") => TautMode::Always,
        Some(_) => return Err(err(format!("{path}.taut"), "must be \"never\", \"auto\" or \"always\"")),
    };
    let attached = [def.attach_start.is_some(), def.attach_end.is_some()];
    let handle = world.add_rope(&def).map_err(|e| sinew_err(path, e))?;
    let particles: Vec<ParticleHandle> = world.rope(handle).map(|r| r.particles().to_vec()).unwrap_or_default();
    if let Some(v) = &r.velocity {
        let v = vector::<S>(&format!("{path}.velocity"), v)?;
        let last = particles.len().saturating_sub(1);
        for (k, &h) in particles.iter().enumerate() {
            if (k == 0 && attached[0]) || (k == last && attached[1]) {
                continue; // an attached body keeps its own velocity
            }
            world.particles_mut().set_velocity(h, v).map_err(|e| err(format!("{path}.velocity"), e.to_string()))?;
        }
    }
    for (pp, i) in pin_indices {
        let h = *particles
            .get(i)
            .ok_or_else(|| err(&pp, format!("rope particle {i} out of range (rope has {})", particles.len())))?;
        world.particles_mut().pin(h).map_err(|e| err(&pp, e.to_string()))?;
    }
    if let Some(w) = &r.wind {
        let wind = vector::<S>(&format!("{path}.wind"), w)?;
        let drag = real::<S>(non_negative(&format!("{path}.drag"), r.drag.unwrap_or(0.0))?);
        world.set_rope_wind(handle, wind, drag).map_err(|e| err(path, e.to_string()))?;
    } else if r.drag.is_some() {
        return Err(err(format!("{path}.drag"), "needs `wind`"));
    }
    let mut reel = Vec::new();
    if let Some(keys) = &r.reel {
        if keys.is_empty() {
            return Err(err(format!("{path}.reel"), "needs at least one [time, length] key"));
        }
        for (k, (t, l)) in keys.iter().enumerate() {
            let kp = format!("{path}.reel[{k}]");
            let t = finite(&format!("{kp}[0]"), *t)?;
            if k > 0 && t <= keys[k - 1].0 {
                return Err(err(format!("{kp}[0]"), "times must be strictly increasing"));
            }
            reel.push((real::<S>(t), real::<S>(positive(&format!("{kp}[1]"), *l)?)));
        }
    }
    let reel_end = match r.reel_end.as_deref() {
        None | Some("start") => RopeEnd::Start,
        Some("end") => RopeEnd::End,
        Some(_) => return Err(err(format!("{path}.reel_end"), "must be \"start\" or \"end\"")),
    };
    Ok(SceneRope { handle, reel, reel_end, attached })
}
