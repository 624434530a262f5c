//! Turning a [`SceneSpec`] into a [`World`], with every error naming its path in the file.

use crate::spec::{ColliderSpec, SceneSpec, ShapeSpec};
use crate::{SceneError, SceneSpace};
use sinew::{
    AttachmentDef, BendingDef, ColliderDef, DistanceDef, DriverDef, InteractionGroups, ParticleDef, ParticleHandle,
    Real, RealOf, Shape, Space, TetherDef, VecOf, Vector, World, WorldDef,
};

/// A built scene: the world plus what the runner needs to report and draw it.
#[derive(Clone, Debug)]
pub struct BuiltScene<S: Space> {
    /// The world.
    pub world: World<S>,
    /// Particles in scene order.
    pub particles: Vec<ParticleHandle>,
    /// Fixed time step (s).
    pub dt: f64,
    /// Links to draw (scene particle indices).
    pub links: Vec<(usize, usize)>,
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

/// A vector of the scene's dimension.
pub(crate) fn vector<S: Space>(path: &str, v: &[f64]) -> Result<VecOf<S>, SceneError> {
    if v.len() != S::DIM {
        return Err(err(path, format!("must have {} components, found {}", S::DIM, v.len())));
    }
    for (i, c) in v.iter().enumerate() {
        finite(&format!("{path}[{i}]"), *c)?;
    }
    Ok(VecOf::<S>::from_f64_slice(v))
}

pub(crate) fn real<S: Space>(v: f64) -> RealOf<S> {
    RealOf::<S>::from_f64(v)
}

/// Particle index check.
pub(crate) fn index(path: &str, i: i64, handles: &[ParticleHandle]) -> Result<ParticleHandle, SceneError> {
    if i < 0 || i as usize >= handles.len() {
        return Err(err(path, format!("particle index {i} out of range (scene has {} particles)", handles.len())));
    }
    Ok(handles[i as usize])
}

fn sinew_err(path: &str, e: sinew::SinewError) -> SceneError {
    err(path, e.to_string())
}

pub(crate) fn build<S: SceneSpace>(spec: &SceneSpec) -> Result<BuiltScene<S>, SceneError> {
    let mut def = WorldDef::<S>::default();
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
            d.mass = real::<S>(non_negative(&format!("{path}.mass"), m)?);
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

    let mut links = Vec::new();
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
        links.push((c.a as usize, c.b as usize));
    }
    for (i, t) in spec.tethers.iter().enumerate() {
        let path = format!("tethers[{i}]");
        let particle = index(&format!("{path}.particle"), t.particle, &handles)?;
        let anchor = index(&format!("{path}.anchor"), t.anchor, &handles)?;
        let length = match t.length {
            Some(l) => Some(real::<S>(non_negative(&format!("{path}.length"), l)?)),
            None => None,
        };
        world.add_tether(&TetherDef { particle, anchor, length }).map_err(|e| sinew_err(&path, e))?;
    }
    for (i, b) in spec.bendings.iter().enumerate() {
        let path = format!("bendings[{i}]");
        let d = BendingDef::<S> {
            a: index(&format!("{path}.a"), b.a, &handles)?,
            b: index(&format!("{path}.b"), b.b, &handles)?,
            c: index(&format!("{path}.c"), b.c, &handles)?,
            compliance: real::<S>(non_negative(&format!("{path}.compliance"), b.compliance.unwrap_or(0.0))?),
            rest: None,
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
        let def = DriverDef::<S> {
            particle,
            keys,
            release: d.release.unwrap_or(false),
            release_mass: real::<S>(release_mass),
        };
        world.add_driver(&def).map_err(|e| sinew_err(&path, e))?;
    }

    Ok(BuiltScene { world, particles: handles, dt, links })
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
