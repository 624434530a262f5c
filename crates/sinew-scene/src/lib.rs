//! JSON scene files for Sinew: parse, validate, build a world, run it, report frames.
//!
//! The format is documented in `docs/SCENE_FORMAT.md`. Loading never panics: every
//! problem (bad JSON, unknown key, wrong vector length, index out of range, NaN, negative
//! mass, zero-length normal, non-convex polygon, ...) is a [`SceneError`] that names the
//! path of the offending value in the file, e.g. `colliders[2].circle.radius: must be > 0`.
//!
//! A loaded scene is a boxed [`Simulation`], whatever its dimension and number type, so
//! tools can step, report and draw it (through [`sinew::debug_draw`]) without knowing
//! either.

#![warn(missing_docs)]

mod brachiator;
mod build;
mod dims;
mod draw;
mod fight;
mod limits;
pub mod spec;

pub use build::{BuiltScene, SceneRope};
pub use dims::SceneSpace;
pub use limits::SceneLimits;

use sinew::debug_draw::{DebugDraw, DebugDrawOptions};
use sinew::{Fx, Real, RealOf, Space2, Space3, VecOf, Vector};
use spec::{SceneSpec, ViewSpec};
use std::fmt::Write as _;

/// A scene that could not be loaded or run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SceneError {
    /// Path of the offending value (`colliders[2].circle.radius`), empty for the whole file.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for SceneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() { write!(f, "{}", self.message) } else { write!(f, "{}: {}", self.path, self.message) }
    }
}

impl std::error::Error for SceneError {}

/// Scalars a scene can run on, with their JSON number formatting.
pub trait SceneReal: Real {
    /// Appends the shortest decimal that reads back to the same value.
    fn write_json(self, out: &mut String);
}

impl SceneReal for f32 {
    fn write_json(self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
}

impl SceneReal for f64 {
    fn write_json(self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
}

impl SceneReal for Fx {
    fn write_json(self, out: &mut String) {
        // Exact below 2²¹ m (Q32.32 → f64), printed as the shortest f64 decimal.
        let _ = write!(out, "{}", self.to_f64());
    }
}

/// A ragdoll from the scene file: its nodes are global particles
/// `first_index .. first_index + count`, named after the rig's nodes.
#[derive(Clone, Debug)]
pub struct SceneRagdoll {
    /// Global index of its first node.
    pub first_index: usize,
    /// Number of nodes.
    pub count: usize,
    /// Node names in order.
    pub names: Vec<String>,
    /// Bones as node index pairs.
    pub bones: Vec<(usize, usize)>,
}

/// A running scene, whatever its dimension and number type. `Send`, so that separate
/// scenes can be stepped on separate threads (`sinew bench --worlds`).
pub trait Simulation: Send {
    /// 2 or 3.
    fn dim(&self) -> usize;
    /// `"f32"`, `"f64"` or `"fixed"`.
    fn numeric(&self) -> &'static str;
    /// The fixed time step (s).
    fn dt(&self) -> f64;
    /// Frames stepped so far.
    fn frame(&self) -> u64;
    /// Simulated time (s).
    fn time(&self) -> f64;
    /// Advances one fixed step.
    fn step(&mut self) -> Result<(), SceneError>;
    /// Turns per-stage timing of the world's steps on or off.
    fn set_profiling(&mut self, on: bool);
    /// Where the last step's time went (zero unless profiling is on).
    fn profile(&self) -> sinew::StepProfile;
    /// Appends this frame's JSON line (without the newline). A value that is not finite
    /// (JSON has no NaN or infinity) is an error naming it (`ropes[0].tension[3]`); what
    /// was appended before it is then not a complete line.
    fn write_frame_json(&self, out: &mut String) -> Result<(), SceneError>;
    /// Draws the current state into a debug-draw back end (see [`sinew::debug_draw`]):
    /// the world's `debug_draw`, plus the edges of muscle ragdolls (which live outside the
    /// world) as distances.
    fn debug_draw(&self, out: &mut dyn DebugDraw, opts: &DebugDrawOptions);
    /// Particle positions by global index (`[x, y, 0]` in 2D), as `write_frame_json`
    /// prints them: the last known position for removed particles.
    fn positions(&self) -> Vec<[f64; 3]>;
    /// Rendering hints from the file.
    fn view(&self) -> Option<&ViewSpec>;
    /// Number of particles in scene order (including those added by later features).
    fn particle_count(&self) -> usize;
    /// Canonical hash of the world state (see `sinew::snapshot`).
    fn state_hash(&self) -> u64;
}

/// A scene running on `World<S>`.
pub struct SceneSim<S: SceneSpace> {
    /// The built scene (world and bookkeeping).
    pub scene: BuiltScene<S>,
    view: Option<ViewSpec>,
}

/// Appends `v`, or fails naming `path` when it is not finite.
fn json_number<R: SceneReal>(out: &mut String, v: R, path: impl FnOnce() -> String) -> Result<(), SceneError> {
    if !v.is_finite() {
        return Err(SceneError {
            path: path(),
            message: format!("is {} in the output: not printed (JSON has no such number)", v.to_f64()),
        });
    }
    v.write_json(out);
    Ok(())
}

impl<S: SceneSpace> SceneSim<S> {
    fn write_vec(out: &mut String, v: VecOf<S>, path: impl Fn() -> String) -> Result<(), SceneError> {
        out.push('[');
        for i in 0..S::DIM {
            if i > 0 {
                out.push(',');
            }
            json_number(out, v.get(i), || format!("{}[{i}]", path()))?;
        }
        out.push(']');
        Ok(())
    }
}

impl<S: SceneSpace> SceneSim<S> {
    /// The frame line's `fighters` and `hits`.
    fn write_fighters(&self, out: &mut String, h: sinew::fight::BoutHandle<S>) -> Result<(), SceneError> {
        let w = &self.scene.world;
        let e = |e: sinew::SinewError| SceneError { path: "fighters".into(), message: e.to_string() };
        let b = w.controller(h).map_err(e)?;
        out.push_str(",\"fighters\":[");
        for k in 0..b.fighter_count() {
            if k > 0 {
                out.push(',');
            }
            out.push_str("{\"indices\":[");
            for (i, p) in b.nodes(k).map_err(e)?.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let g = self.scene.global_of(*p).map_or(-1, |g| g as i64);
                let _ = write!(out, "{g}");
            }
            let _ = write!(out, "],\"state\":\"{}\"", b.state(k).map_err(e)?.name());
            out.push_str(",\"move\":");
            let m = b.current_move(k).map_err(e)?.unwrap_or("");
            let _ = write!(out, "{}", serde_json::Value::String(m.to_owned()));
            out.push_str(",\"damage\":");
            json_number(out, b.damage(k).map_err(e)?, || format!("fighters[{k}].damage"))?;
            out.push('}');
        }
        out.push_str("],\"hits\":[");
        for (k, hit) in b.hits().iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            let target = b.drive(hit.target as usize).map_err(e)?;
            let part = w.controller(target).map_err(e)?.part_name(hit.part as usize).unwrap_or("").to_owned();
            let _ = write!(out, "{{\"attacker\":{},\"target\":{},\"part\":", hit.attacker, hit.target);
            let _ = write!(out, "{}", serde_json::Value::String(part));
            out.push_str(",\"point\":");
            Self::write_vec(out, hit.point, || format!("hits[{k}].point"))?;
            out.push_str(",\"force\":");
            json_number(out, hit.force, || format!("hits[{k}].force"))?;
            out.push_str(",\"impulse\":");
            json_number(out, hit.impulse, || format!("hits[{k}].impulse"))?;
            let _ = write!(out, ",\"zone\":\"{}\",\"blocked\":{}}}", hit.zone.name(), hit.blocked);
        }
        out.push(']');
        Ok(())
    }
}

impl<S: SceneSpace> BuiltScene<S> {
    /// Runs one frame of the scene: the reels, then the world — through the fighters'
    /// bout when the scene has one (it plays their moves and steps the world) — then the
    /// brachiating character, then the particle table's sync. What `sinew simulate` and
    /// the playground run each frame.
    pub fn step_frame(&mut self) -> Result<(), SceneError> {
        let dt = RealOf::<S>::from_f64(self.dt);
        let t_end = self.world.time() + dt;
        self.apply_reels(t_end)?;
        // (Muscle ragdolls are controllers of the world: it steps them. A bout steps the
        // world itself, after playing the fighters' moves.)
        match self.bout {
            Some(b) => {
                b.step(&mut self.world, dt)
                    .map_err(|e| SceneError { path: "fighters".into(), message: e.to_string() })?;
            }
            None => {
                let result = self.world.step(dt);
                result.map_err(|e| SceneError { path: "dt".into(), message: e.to_string() })?;
            }
        }
        if let Some(b) = &mut self.brachiator {
            self.grabs_before = b.grabs.len();
            b.step(dt).map_err(|e| SceneError { path: "brachiator".into(), message: e.to_string() })?;
        }
        self.sync();
        Ok(())
    }

    /// Draws the scene: the world's debug drawing and the brachiating character's rig.
    pub fn draw(&self, out: &mut dyn DebugDraw, opts: &DebugDrawOptions) {
        draw::draw(self, out, opts);
    }
}

impl<S: SceneSpace> Simulation for SceneSim<S> {
    fn dim(&self) -> usize {
        S::DIM
    }
    fn numeric(&self) -> &'static str {
        RealOf::<S>::NAME
    }
    fn dt(&self) -> f64 {
        self.scene.dt
    }
    fn frame(&self) -> u64 {
        self.scene.world.step_count()
    }
    fn time(&self) -> f64 {
        self.scene.world.time().to_f64()
    }
    fn step(&mut self) -> Result<(), SceneError> {
        self.scene.step_frame()
    }
    fn set_profiling(&mut self, on: bool) {
        self.scene.world.set_profiling(on);
    }
    fn profile(&self) -> sinew::StepProfile {
        *self.scene.world.profile()
    }
    fn write_frame_json(&self, out: &mut String) -> Result<(), SceneError> {
        let w = &self.scene.world;
        let _ = write!(out, "{{\"frame\":{},\"time\":", w.step_count());
        json_number(out, w.time(), || "time".into())?;
        out.push_str(",\"particles\":[");
        for (i, p) in self.scene.last_pos.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            Self::write_vec(out, *p, || format!("particles[{i}]"))?;
        }
        out.push(']');
        if !self.scene.ropes.is_empty() {
            out.push_str(",\"ropes\":[");
            let mut first = true;
            for (r, (h, rope)) in w.ropes().enumerate() {
                if !first {
                    out.push(',');
                }
                first = false;
                out.push_str("{\"indices\":[");
                for (k, &p) in rope.particles().iter().enumerate() {
                    if k > 0 {
                        out.push(',');
                    }
                    let g = self.scene.global_of(p).map_or(-1, |g| g as i64);
                    let _ = write!(out, "{g}");
                }
                out.push_str("],\"length\":");
                json_number(out, rope.rest_length(), || format!("ropes[{r}].length"))?;
                out.push_str(",\"tension\":[");
                for (k, t) in w.rope_tensions(h).unwrap_or_default().into_iter().enumerate() {
                    if k > 0 {
                        out.push(',');
                    }
                    json_number(out, t, || format!("ropes[{r}].tension[{k}]"))?;
                }
                let _ = write!(out, "],\"mode\":\"{}\",\"path\":[", if rope.is_taut() { "taut" } else { "slack" });
                for (k, p) in w.rope_path(h).unwrap_or_default().into_iter().enumerate() {
                    if k > 0 {
                        out.push(',');
                    }
                    Self::write_vec(out, p, || format!("ropes[{r}].path[{k}]"))?;
                }
                out.push_str("]}");
            }
            out.push(']');
        }
        if !self.scene.ragdolls.is_empty() {
            out.push_str(",\"ragdolls\":[");
            for (k, r) in self.scene.ragdolls.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                out.push_str("{\"indices\":[");
                for i in 0..r.count {
                    if i > 0 {
                        out.push(',');
                    }
                    let _ = write!(out, "{}", r.first_index + i);
                }
                out.push_str("],\"names\":[");
                for (i, n) in r.names.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    let _ = write!(out, "{}", serde_json::Value::String(n.clone()));
                }
                out.push_str("]}");
            }
            out.push(']');
        }
        if let Some(b) = &self.scene.brachiator {
            brachiator::write_json(b, self.scene.grabs_before, out)?;
        }
        if let Some(b) = self.scene.bout {
            self.write_fighters(out, b)?;
        }
        let _ = write!(out, ",\"hash\":\"{:016x}\"}}", self.state_hash());
        Ok(())
    }
    fn debug_draw(&self, out: &mut dyn DebugDraw, opts: &DebugDrawOptions) {
        self.scene.draw(out, opts);
    }
    fn positions(&self) -> Vec<[f64; 3]> {
        self.scene.last_pos.iter().map(|p| p.to_f64_array()).collect()
    }
    fn view(&self) -> Option<&ViewSpec> {
        self.view.as_ref()
    }
    fn particle_count(&self) -> usize {
        self.scene.world.particles().len()
    }
    fn state_hash(&self) -> u64 {
        // The whole world's, muscle ragdolls (its controllers) included, and the
        // brachiator's (its own world, plan and records) mixed in when there is one.
        match &self.scene.brachiator {
            None => self.scene.world.state_hash(),
            Some(b) => {
                let mut h = sinew::StateHasher::default();
                h.write_u64(self.scene.world.state_hash());
                h.write_u64(b.state_hash());
                h.finish()
            }
        }
    }
}

/// Parses scene text (JSON). Errors name the path of the offending value.
pub fn parse(text: &str) -> Result<SceneSpec, SceneError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let path = if path == "." { String::new() } else { path };
        SceneError { path, message: inner.to_string() }
    })
}

/// Builds a runnable simulation from a parsed scene, under the default [`SceneLimits`].
pub fn instantiate(spec: &SceneSpec) -> Result<Box<dyn Simulation>, SceneError> {
    instantiate_with(spec, &SceneLimits::default())
}

/// Builds a runnable simulation from a parsed scene under `limits`: a scene that asks for
/// more is rejected before anything is allocated, naming the path and the limit.
pub fn instantiate_with(spec: &SceneSpec, limits: &SceneLimits) -> Result<Box<dyn Simulation>, SceneError> {
    limits::check(spec, limits)?;
    let numeric = spec.numeric.as_deref().unwrap_or("float");
    let view = spec.view.clone();
    macro_rules! make {
        ($s:ty) => {{
            let scene = build::build::<$s>(spec, limits)?;
            Ok(Box::new(SceneSim::<$s> { scene, view }) as Box<dyn Simulation>)
        }};
    }
    match (spec.dim, numeric) {
        (2, "float" | "f32") => make!(Space2<f32>),
        (3, "float" | "f32") => make!(Space3<f32>),
        (2, "f64") => make!(Space2<f64>),
        (3, "f64") => make!(Space3<f64>),
        (2, "fixed") => make!(Space2<Fx>),
        (3, "fixed") => make!(Space3<Fx>),
        (2 | 3, other) => Err(SceneError {
            path: "numeric".into(),
            message: format!("unknown number type `{other}` (expected \"float\", \"f32\", \"f64\" or \"fixed\")"),
        }),
        (d, _) => Err(SceneError { path: "dim".into(), message: format!("must be 2 or 3, found {d}") }),
    }
}

/// Parses and builds scene text (default [`SceneLimits`]).
pub fn load_str(text: &str) -> Result<Box<dyn Simulation>, SceneError> {
    load_str_with(text, &SceneLimits::default())
}

/// Parses and builds scene text under `limits`.
pub fn load_str_with(text: &str, limits: &SceneLimits) -> Result<Box<dyn Simulation>, SceneError> {
    let spec = parse(text)?;
    if spec.numeric.as_deref() == Some("fixed") {
        limits::check_fixed_numbers(text)?;
    }
    instantiate_with(&spec, limits)
}

/// Reads, parses and builds a scene file. The error path is prefixed by nothing; the
/// caller prints the file name.
pub fn load_file(path: &std::path::Path) -> Result<Box<dyn Simulation>, SceneError> {
    load_file_with(path, &SceneLimits::default())
}

/// [`load_file`] under `limits`; a file larger than [`SceneLimits::file_bytes`] is not read.
pub fn load_file_with(path: &std::path::Path, limits: &SceneLimits) -> Result<Box<dyn Simulation>, SceneError> {
    let cannot =
        |e: std::io::Error| SceneError { path: String::new(), message: format!("cannot read {}: {e}", path.display()) };
    let size = std::fs::metadata(path).map_err(cannot)?.len();
    if size > limits.file_bytes {
        return Err(SceneError {
            path: String::new(),
            message: format!(
                "file of {size} bytes exceeds the limit of {} (SceneLimits::file_bytes)",
                limits.file_bytes
            ),
        });
    }
    let text = std::fs::read_to_string(path).map_err(cannot)?;
    load_str_with(&text, limits)
}

/// Builds a typed world from a parsed scene (for library users and tests that want the
/// world itself rather than a boxed [`Simulation`]), under the default [`SceneLimits`].
pub fn build_typed<S: SceneSpace>(spec: &SceneSpec) -> Result<BuiltScene<S>, SceneError> {
    build_typed_with(spec, &SceneLimits::default())
}

/// [`build_typed`] under `limits`.
pub fn build_typed_with<S: SceneSpace>(spec: &SceneSpec, limits: &SceneLimits) -> Result<BuiltScene<S>, SceneError> {
    limits::check(spec, limits)?;
    if spec.dim as usize != S::DIM {
        return Err(SceneError {
            path: "dim".into(),
            message: format!("scene is {}D, expected {}D", spec.dim, S::DIM),
        });
    }
    build::build::<S>(spec, limits)
}
