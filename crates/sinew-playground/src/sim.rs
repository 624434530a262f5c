//! A running scene as the playground needs it, whatever its dimension and number type.
//!
//! [`sinew_scene::Simulation`] steps, draws and hashes a scene; the playground also grabs
//! particles, changes the world's settings live, reads statistics and takes snapshots, which
//! need the typed world. [`Play<S>`] holds a [`BuiltScene<S>`] and implements the
//! object-safe [`Sim`] trait over it; [`load`] builds one from a parsed scene for any of the
//! six (dimension, scalar) pairs. Every input crosses as `f64` (`[x, y, z]`, z ignored in
//! 2D) and is checked for finiteness here: nothing the mouse does reaches the world as NaN.
//!
//! [`Sim`] repeats the stepping part of `Simulation`; having `Simulation` as its
//! supertrait would need a `sinew_scene::SceneSim` built from a `BuiltScene` outside
//! `sinew-scene`, which that crate does not offer.

use sinew::debug_draw::{DebugDraw, DebugDrawOptions};
use sinew::ragdoll::Grab;
use sinew::{
    Fx, ParticleHandle, Real, RealOf, RopePoint, Snapshot, Space, Space2, Space3, StepProfile, VecOf, Vector, World,
};
use sinew_scene::spec::SceneSpec;
use sinew_scene::{BuiltScene, SceneSpace};

/// World settings the playground's sliders change while the scene runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// Gravity along y (m/s², negative is down).
    pub gravity: f64,
    /// Substeps per step.
    pub substeps: u32,
    /// Constraint iterations per substep.
    pub iterations: u32,
    /// Velocity damping (1/s).
    pub damping: f64,
    /// Restitution of contacts.
    pub restitution: f64,
    /// Exact tree solve of ragdoll bones (`WorldDef::tree_solve`); off, bones are
    /// Gauss–Seidel projections and go rubbery at few iterations.
    pub tree_solve: bool,
}

/// What the stats panel and the plots show, measured after a step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stats {
    /// Kinetic energy of the dynamic particles (J).
    pub kinetic: f64,
    /// Gravitational potential energy of the dynamic particles (J, zero at the origin).
    pub potential: f64,
    /// Largest relative length error of a distance constraint or rope segment.
    pub worst_error: f64,
    /// Sum of `|length − rest|` over distance constraints and rope segments (m).
    pub total_error: f64,
    /// Speed of the first ragdoll's head node (m/s), if the scene has a ragdoll.
    pub head_speed: Option<f64>,
    /// Constraint passes per step: substeps × iterations.
    pub passes: u32,
    /// Live particles.
    pub particles: usize,
}

impl Stats {
    /// Kinetic plus potential energy (J).
    #[must_use]
    pub fn energy(&self) -> f64 {
        self.kinetic + self.potential
    }
}

/// A live particle, for picking: its slot, position, whether it is kinematic, its mass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pick {
    /// Particle slot (stable while the particle lives).
    pub slot: usize,
    /// Position (m).
    pub pos: [f64; 3],
    /// Pinned, driven or grabbed.
    pub kinematic: bool,
    /// Mass (kg; 0 for a particle created pinned).
    pub mass: f64,
}

/// A running scene (object-safe; see the module docs).
pub trait Sim {
    /// 2 or 3.
    fn dim(&self) -> usize;
    /// `"f32"`, `"f64"` or `"fixed"`.
    fn numeric(&self) -> &'static str;
    /// The fixed step (s).
    fn dt(&self) -> f64;
    /// Simulated time (s).
    fn time(&self) -> f64;
    /// Steps taken.
    fn frame(&self) -> u64;
    /// Advances one fixed step.
    fn step(&mut self) -> Result<(), String>;
    /// Draws the world into a debug-draw back end.
    fn draw(&self, out: &mut dyn DebugDraw, opts: &DebugDrawOptions);
    /// A point the camera keeps in view, for scenes whose subject travels (the
    /// brachiating character's centre of mass); `None` for the rest.
    fn follow(&self) -> Option<[f64; 3]> {
        None
    }
    /// Every live particle.
    fn picks(&self) -> Vec<Pick>;
    /// Grabs particle `slot` and drives it kinematically towards `target` (a rope
    /// particle is taken through the rope, which wakes it). Several particles can be held
    /// at once (a particle already held is taken again). False if it cannot be grabbed.
    fn grab(&mut self, slot: usize, target: [f64; 3]) -> bool;
    /// Moves a held particle's target (call every step while dragging).
    fn move_grab(&mut self, slot: usize, target: [f64; 3]);
    /// Lets go of `slot`: the particle keeps the hand's velocity (a throw); a particle
    /// that was pinned before the grab stays pinned where it is.
    fn release(&mut self, slot: usize);
    /// Lets go of everything held.
    fn release_all(&mut self);
    /// Slots of the held particles.
    fn held(&self) -> Vec<usize>;
    /// Position of particle `slot`.
    fn position(&self, slot: usize) -> Option<[f64; 3]>;
    /// The live settings.
    fn params(&self) -> Params;
    /// Changes the live settings (an error for values the world rejects).
    fn set_params(&mut self, p: &Params) -> Result<(), String>;
    /// Statistics of the current state.
    fn stats(&self) -> Stats;
    /// Remembers the current state (a snapshot).
    fn save(&mut self);
    /// Goes back to the remembered state; false if there is none.
    fn restore(&mut self) -> bool;
    /// The world's state hash.
    fn state_hash(&self) -> u64;
    /// Per-stage timing of steps on or off.
    fn set_profiling(&mut self, on: bool);
    /// Where the last step's time went.
    fn profile(&self) -> StepProfile;
    /// Hits the muscle ragdolls (or, without any, the nearest particle) at `at` with
    /// `impulse` (N·s); the muscles then start recovering. False if nothing was hit.
    fn punch(&mut self, at: [f64; 3], impulse: [f64; 3]) -> bool;
    /// Every particle position and velocity is finite.
    fn is_finite(&self) -> bool;
    /// Worst `|length / rest − 1|` over all rope segments (0 without ropes).
    fn rope_worst_stretch(&self) -> f64;
    /// Rest length of each rope (m).
    fn rope_lengths(&self) -> Vec<f64>;
    /// Slots of each rope's first and last particle.
    fn rope_ends(&self) -> Vec<(usize, usize)>;
    /// Slots of rope `k`'s particles, start to end (empty if there is no such rope).
    fn rope_slots(&self, k: usize) -> Vec<usize>;
    /// Sets particle `slot`'s mass (kg; positive and finite).
    fn set_mass(&mut self, slot: usize, mass: f64) -> Result<(), String>;
}

/// A scene on `World<S>` with the playground's grab and snapshot.
pub struct Play<S: SceneSpace> {
    scene: BuiltScene<S>,
    held: Vec<Held>,
    saved: Option<Snapshot<S>>,
}

/// How a particle is held.
#[derive(Clone, Copy, Debug)]
enum Held {
    /// A rope particle taken with `World::grab_rope`; `was_pinned` keeps pins pinned.
    Rope { particle: ParticleHandle, was_pinned: bool },
    /// Any other particle, a hard [`Grab`].
    Other(Grab),
}

impl Held {
    fn particle(&self) -> ParticleHandle {
        match *self {
            Held::Rope { particle, .. } => particle,
            Held::Other(g) => g.particle(),
        }
    }
}

fn vec_of<S: SceneSpace>(p: [f64; 3]) -> Option<VecOf<S>> {
    p.iter().all(|c| c.is_finite() && c.abs() < 1e6).then(|| VecOf::<S>::from_f64_slice(&p))
}

/// Energy, constraint error and counts of a world (any dimension and scalar).
fn world_stats<T: Space>(w: &World<T>) -> Stats {
    let ps = w.particles();
    let g = w.def().gravity.to_f64_array();
    let mut s = Stats::default();
    for h in ps.handles() {
        let (Some(m), Some(x), Some(v)) = (ps.mass(h), ps.position(h), ps.velocity(h)) else { continue };
        if ps.is_kinematic(h) {
            continue;
        }
        let (m, x, v) = (m.to_f64(), x.to_f64_array(), v.to_f64_array());
        s.kinetic += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        s.potential -= m * (g[0] * x[0] + g[1] * x[1] + g[2] * x[2]);
    }
    let pos = ps.positions();
    let mut add = |a: VecOf<T>, b: VecOf<T>, rest: f64| {
        let len = a.distance(b).to_f64();
        let e = (len - rest).abs();
        s.total_error += e;
        if rest > 0.0 {
            s.worst_error = s.worst_error.max(e / rest);
        }
    };
    for (_, d) in w.distances() {
        let (a, b) = d.indices();
        add(pos[a], pos[b], d.rest.to_f64());
    }
    for (_, r) in w.ropes() {
        for (k, pair) in r.particles().windows(2).enumerate() {
            let rest = r.rest_lengths().get(k).map_or(0.0, |l| l.to_f64());
            add(pos[pair[0].index()], pos[pair[1].index()], rest);
        }
    }
    s.passes = w.def().substeps * w.def().iterations;
    s.particles = ps.len();
    s
}

impl<S: SceneSpace> Play<S> {
    /// Wraps a built scene.
    #[must_use]
    pub fn new(scene: BuiltScene<S>) -> Self {
        Self { scene, held: Vec::new(), saved: None }
    }

    /// The built scene (the world and its bookkeeping).
    #[must_use]
    pub fn scene(&self) -> &BuiltScene<S> {
        &self.scene
    }

    fn handle(&self, slot: usize) -> Option<ParticleHandle> {
        self.scene.world.particles().handle_at(slot)
    }

    fn rope_index_of(&self, h: ParticleHandle) -> Option<(sinew::RopeHandle, usize)> {
        self.scene.world.ropes().find_map(|(rh, r)| r.particles().iter().position(|&p| p == h).map(|i| (rh, i)))
    }

    /// Head node of the first ragdoll with a node named "head".
    fn head(&self) -> Option<ParticleHandle> {
        let r = self.scene.ragdolls.iter().find(|r| r.names.iter().any(|n| n == "head"))?;
        let k = r.names.iter().position(|n| n == "head")?;
        self.scene.particles.get(r.first_index + k).copied()
    }
}

impl<S: SceneSpace> Sim for Play<S> {
    fn dim(&self) -> usize {
        S::DIM
    }
    fn numeric(&self) -> &'static str {
        RealOf::<S>::NAME
    }
    fn dt(&self) -> f64 {
        self.scene.dt
    }
    fn time(&self) -> f64 {
        self.scene.world.time().to_f64()
    }
    fn frame(&self) -> u64 {
        self.scene.world.step_count()
    }
    fn step(&mut self) -> Result<(), String> {
        // The scene's own frame: reels, the fighters' bout or the world, the brachiator.
        self.scene.step_frame().map_err(|e| e.to_string())
    }
    fn draw(&self, out: &mut dyn DebugDraw, opts: &DebugDrawOptions) {
        self.scene.draw(out, opts);
    }
    fn follow(&self) -> Option<[f64; 3]> {
        let c = self.scene.brachiator.as_ref()?.com();
        Some([c.x.to_f64(), c.y.to_f64(), 0.0])
    }
    fn picks(&self) -> Vec<Pick> {
        let ps = self.scene.world.particles();
        ps.handles()
            .filter_map(|h| {
                let pos = ps.position(h)?.to_f64_array();
                let mass = ps.mass(h).map_or(0.0, |m| m.to_f64());
                Some(Pick { slot: h.index(), pos, kinematic: ps.is_kinematic(h), mass })
            })
            .collect()
    }
    fn grab(&mut self, slot: usize, target: [f64; 3]) -> bool {
        self.release(slot);
        let (Some(h), Some(t)) = (self.handle(slot), vec_of::<S>(target)) else { return false };
        let was_pinned = self.scene.world.particles().is_kinematic(h);
        let held = if let Some((rope, i)) = self.rope_index_of(h) {
            let Ok(p) = self.scene.world.grab_rope(rope, RopePoint::Index(i)) else { return false };
            if self.scene.world.particles_mut().set_kinematic_target(p, t).is_err() {
                return false;
            }
            Held::Rope { particle: p, was_pinned }
        } else {
            match Grab::start(&mut self.scene.world, h, t, RealOf::<S>::ZERO) {
                Ok(g) => Held::Other(g),
                Err(_) => return false,
            }
        };
        self.held.push(held);
        true
    }
    fn move_grab(&mut self, slot: usize, target: [f64; 3]) {
        let Some(t) = vec_of::<S>(target) else { return };
        let Some(k) = self.held.iter().position(|h| h.particle().index() == slot) else { return };
        let ok = match self.held[k] {
            Held::Rope { particle, .. } => self.scene.world.particles_mut().set_kinematic_target(particle, t),
            Held::Other(g) => g.move_to(&mut self.scene.world, t),
        };
        if ok.is_err() {
            self.held.remove(k);
        }
    }
    fn release(&mut self, slot: usize) {
        let Some(k) = self.held.iter().position(|h| h.particle().index() == slot) else { return };
        let held = self.held.remove(k);
        // A particle removed meanwhile (a torn rope) has nothing to release: ignore.
        let _ = match held {
            Held::Rope { was_pinned: true, particle } => {
                // Keep it pinned where the hand left it.
                let at = self.scene.world.particles().position(particle);
                match at {
                    Some(p) => self.scene.world.particles_mut().set_kinematic_target(particle, p),
                    None => Ok(()),
                }
            }
            Held::Rope { particle, .. } => self.scene.world.release_particle(particle),
            Held::Other(g) => g.release(&mut self.scene.world).map(|_| ()),
        };
    }
    fn release_all(&mut self) {
        for slot in self.held() {
            self.release(slot);
        }
    }
    fn held(&self) -> Vec<usize> {
        self.held.iter().map(|h| h.particle().index()).collect()
    }
    fn position(&self, slot: usize) -> Option<[f64; 3]> {
        let h = self.handle(slot)?;
        self.scene.world.particles().position(h).map(Vector::to_f64_array)
    }
    fn params(&self) -> Params {
        let d = self.scene.world.def();
        Params {
            gravity: d.gravity.get(1).to_f64(),
            substeps: d.substeps,
            iterations: d.iterations,
            damping: d.damping.to_f64(),
            restitution: d.restitution.to_f64(),
            tree_solve: d.tree_solve,
        }
    }
    fn set_params(&mut self, p: &Params) -> Result<(), String> {
        let mut d = *self.scene.world.def();
        let finite = [p.gravity, p.damping, p.restitution].iter().all(|v| v.is_finite());
        if !finite {
            return Err("settings must be finite".into());
        }
        d.gravity.set(1, RealOf::<S>::from_f64(p.gravity));
        d.substeps = p.substeps;
        d.iterations = p.iterations;
        d.damping = RealOf::<S>::from_f64(p.damping);
        d.restitution = RealOf::<S>::from_f64(p.restitution);
        d.tree_solve = p.tree_solve;
        self.scene.world.set_def(d).map_err(|e| e.to_string())
    }
    fn stats(&self) -> Stats {
        // A brachiation scene's character lives in a world of its own (the two-point rig and
        // the vines' ropes); the scene's world is empty. Its statistics are that world's.
        let mut s = match &self.scene.brachiator {
            Some(b) => world_stats(&b.rig.world),
            None => world_stats(&self.scene.world),
        };
        let ps = self.scene.world.particles();
        s.head_speed = self.head().and_then(|h| ps.velocity(h)).map(|v| v.length().to_f64());
        s
    }
    fn save(&mut self) {
        self.saved = Some(self.scene.world.snapshot());
    }
    fn restore(&mut self) -> bool {
        let Some(s) = &self.saved else { return false };
        self.held.clear();
        self.scene.world.restore(s);
        self.scene.sync();
        true
    }
    fn state_hash(&self) -> u64 {
        self.scene.world.state_hash()
    }
    fn set_profiling(&mut self, on: bool) {
        self.scene.world.set_profiling(on);
    }
    fn profile(&self) -> StepProfile {
        *self.scene.world.profile()
    }
    fn punch(&mut self, at: [f64; 3], impulse: [f64; 3]) -> bool {
        let (Some(p), Some(j)) = (vec_of::<S>(at), vec_of::<S>(impulse)) else { return false };
        let muscles = self.scene.muscles.clone();
        let mut hit = false;
        for m in muscles {
            if m.apply_impulse_at(&mut self.scene.world, p, j).is_ok() {
                let _ = m.enter_physics(&mut self.scene.world);
                hit = true;
            }
        }
        if hit {
            return true;
        }
        let nearest = self.picks().into_iter().filter(|q| !q.kinematic).min_by(|a, b| {
            let d = |q: &Pick| (0..3).map(|i| (q.pos[i] - at[i]).powi(2)).sum::<f64>();
            d(a).total_cmp(&d(b))
        });
        match nearest.and_then(|q| self.handle(q.slot)) {
            Some(h) => self.scene.world.particles_mut().apply_impulse(h, j).is_ok(),
            None => false,
        }
    }
    fn is_finite(&self) -> bool {
        let ps = self.scene.world.particles();
        let ok = |v: &VecOf<S>| v.to_f64_array().iter().all(|c| c.is_finite());
        ps.positions().iter().all(ok) && ps.velocities().iter().all(ok)
    }
    fn rope_worst_stretch(&self) -> f64 {
        let w = &self.scene.world;
        let pos = w.particles().positions();
        let mut worst: f64 = 0.0;
        for (_, r) in w.ropes() {
            for (k, pair) in r.particles().windows(2).enumerate() {
                let rest = r.rest_lengths().get(k).map_or(0.0, |l| l.to_f64());
                if rest > 0.0 {
                    let len = pos[pair[0].index()].distance(pos[pair[1].index()]).to_f64();
                    worst = worst.max((len / rest - 1.0).abs());
                }
            }
        }
        worst
    }
    fn rope_lengths(&self) -> Vec<f64> {
        self.scene.world.ropes().map(|(_, r)| r.rest_length().to_f64()).collect()
    }
    fn rope_ends(&self) -> Vec<(usize, usize)> {
        self.scene.world.ropes().map(|(_, r)| (r.start().index(), r.end().index())).collect()
    }
    fn rope_slots(&self, k: usize) -> Vec<usize> {
        let rope = self.scene.world.ropes().nth(k);
        rope.map(|(_, r)| r.particles().iter().map(|p| p.index()).collect()).unwrap_or_default()
    }
    fn set_mass(&mut self, slot: usize, mass: f64) -> Result<(), String> {
        let h = self.handle(slot).ok_or_else(|| format!("no particle {slot}"))?;
        if !(mass.is_finite() && mass > 0.0) {
            return Err(format!("mass {mass}: must be positive and finite"));
        }
        self.scene.world.particles_mut().set_mass(h, RealOf::<S>::from_f64(mass)).map_err(|e| e.to_string())
    }
}

/// Builds a scene for its dimension and number type (`numeric`: absent or `"float"`/`"f32"`,
/// `"f64"`, `"fixed"`).
pub fn load(spec: &SceneSpec) -> Result<Box<dyn Sim>, String> {
    fn make<S: SceneSpace + 'static>(spec: &SceneSpec) -> Result<Box<dyn Sim>, String> {
        let scene = sinew_scene::build_typed::<S>(spec).map_err(|e| e.to_string())?;
        Ok(Box::new(Play::new(scene)))
    }
    match (spec.dim, spec.numeric.as_deref().unwrap_or("float")) {
        (2, "float" | "f32") => make::<Space2<f32>>(spec),
        (3, "float" | "f32") => make::<Space3<f32>>(spec),
        (2, "f64") => make::<Space2<f64>>(spec),
        (3, "f64") => make::<Space3<f64>>(spec),
        (2, "fixed") => make::<Space2<Fx>>(spec),
        (3, "fixed") => make::<Space3<Fx>>(spec),
        (2 | 3, other) => Err(format!("numeric: unknown number type `{other}`")),
        (d, _) => Err(format!("dim: must be 2 or 3, found {d}")),
    }
}

/// Parses scene text and builds it.
pub fn load_str(text: &str) -> Result<(SceneSpec, Box<dyn Sim>), String> {
    let spec = sinew_scene::parse(text).map_err(|e| e.to_string())?;
    let sim = load(&spec)?;
    Ok((spec, sim))
}
