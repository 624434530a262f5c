//! The playground's state without a window: which scene runs, the clock (pause, single
//! step, slow motion), the mouse hand, the sliders' settings, statistics and their history.
//!
//! Everything the UI does goes through [`Session`]'s methods, in world coordinates, so the
//! tests drive it directly (and through egui in `tests/`). A scene is one [`Sim`], or two
//! for the determinism page (the same file in `f32` and in fixed point), which then receive
//! the same input: a drag grabs the same particle slot in both.

mod between;

pub use between::{DEFAULT_LOAD, Pull, RopeSetup};

use crate::catalog::{SceneKind, scene_text};
use crate::history::{History, Sample};
use crate::sim::{self, Params, Sim, Stats};
use sinew::StepProfile;
use sinew_scene::spec::SceneSpec;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

/// Where the scene came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A menu scene.
    Menu(SceneKind),
    /// A file (command line or the path field).
    File(String),
}

/// Largest number of fixed steps one frame may run (the rest of the time is dropped, so a
/// slow frame does not snowball).
const MAX_STEPS_PER_FRAME: u32 = 4;

/// The playground's state (see the module docs).
pub struct Session {
    /// Where the scene came from.
    pub source: Source,
    /// The parsed scene (edited by the rope-between sliders).
    pub spec: SceneSpec,
    /// The running worlds: one, or `f32` and fixed point on the determinism page.
    pub sims: Vec<Box<dyn Sim>>,
    /// A label per world.
    pub labels: Vec<String>,
    /// Paused.
    pub paused: bool,
    /// Simulated seconds per real second (1 normal, 0.25 slow motion).
    pub time_scale: f64,
    /// The settings the sliders show (applied to every world).
    pub params: Params,
    /// Rope-between rebuild settings.
    pub rope: RopeSetup,
    /// An automatic pull in progress (rope-between page).
    pub pull: Option<Pull>,
    /// Worst rope segment stretch seen during the current pull.
    pub pull_worst: f64,
    /// Statistics of the first world after the last frame.
    pub stats: Stats,
    /// Per-stage time of the last frame's steps (first world), summed over its steps.
    pub profile: StepProfile,
    /// Steps the last frame ran.
    pub steps_last_frame: u32,
    /// Wall time of the last frame's physics (ms).
    pub physics_ms: f64,
    /// Plots' history.
    pub history: History,
    /// The last error (a rejected setting, a failed step).
    pub error: Option<String>,
    /// The mouse hand: `(slot, target)`.
    hand: Option<(usize, [f64; 3])>,
    accumulator: f64,
    /// Determinism page: each frame's hashes of the first run, to check re-simulations.
    hash_log: BTreeMap<u64, Vec<u64>>,
    /// Frames re-simulated after a rollback that matched / did not match the first run.
    pub resim: (u64, u64),
    /// Frame of the last snapshot.
    pub saved_frame: Option<u64>,
}

fn substitute_numeric(spec: &SceneSpec, numeric: &str) -> SceneSpec {
    let mut s = spec.clone();
    s.numeric = Some(numeric.to_string());
    s
}

impl Session {
    /// Opens a menu scene.
    pub fn open(kind: SceneKind) -> Result<Self, String> {
        let text = scene_text(kind)?;
        let spec = sinew_scene::parse(&text).map_err(|e| format!("{}: {e}", kind.file_name()))?;
        Self::from_spec(Source::Menu(kind), spec)
    }

    /// Opens a scene file.
    pub fn open_file(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let spec = sinew_scene::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        Self::from_spec(Source::File(path.display().to_string()), spec)
    }

    fn from_spec(source: Source, spec: SceneSpec) -> Result<Self, String> {
        let load = if source == Source::Menu(SceneKind::RopeBetween) { DEFAULT_LOAD } else { 0.0 };
        let rope = RopeSetup::of(&spec, load);
        let mut s = Self {
            source,
            spec,
            sims: Vec::new(),
            labels: Vec::new(),
            paused: false,
            time_scale: 1.0,
            params: Params {
                gravity: -9.81,
                substeps: 8,
                iterations: 1,
                damping: 0.0,
                restitution: 0.0,
                tree_solve: true,
            },
            rope,
            pull: None,
            pull_worst: 0.0,
            stats: Stats::default(),
            profile: StepProfile::default(),
            steps_last_frame: 0,
            physics_ms: 0.0,
            history: History::default(),
            error: None,
            hand: None,
            accumulator: 0.0,
            hash_log: BTreeMap::new(),
            resim: (0, 0),
            saved_frame: None,
        };
        s.build(false)?;
        Ok(s)
    }

    /// The menu scene shown, if any.
    #[must_use]
    pub fn kind(&self) -> Option<SceneKind> {
        match self.source {
            Source::Menu(k) => Some(k),
            Source::File(_) => None,
        }
    }

    /// Builds the worlds from the spec, with the slider settings when `keep_params` (else
    /// the file's become the sliders').
    fn build(&mut self, keep_params: bool) -> Result<(), String> {
        let specs: Vec<(String, SceneSpec)> = if self.kind() == Some(SceneKind::Determinism) {
            vec![
                ("f32".to_string(), substitute_numeric(&self.spec, "f32")),
                ("fixed point".to_string(), substitute_numeric(&self.spec, "fixed")),
            ]
        } else {
            vec![(String::new(), self.spec.clone())]
        };
        let mut sims = Vec::new();
        let mut labels = Vec::new();
        for (label, spec) in specs {
            let mut sim = sim::load(&spec)?;
            sim.set_profiling(true);
            labels.push(if label.is_empty() { sim.numeric().to_string() } else { label });
            sims.push(sim);
        }
        self.sims = sims;
        self.labels = labels;
        self.hand = None;
        self.pull = None;
        self.accumulator = 0.0;
        self.hash_log.clear();
        self.resim = (0, 0);
        self.saved_frame = None;
        if !keep_params {
            self.params = self.sims[0].params();
        }
        let p = self.params;
        for sim in &mut self.sims {
            sim.set_params(&p)?;
        }
        self.apply_load()?;
        self.save();
        self.stats = self.sims[0].stats();
        Ok(())
    }

    /// Starts the scene again from its file (the sliders keep their settings). The Drop
    /// button of the ragdoll page.
    pub fn reset(&mut self) {
        if let Err(e) = self.build(true) {
            self.error = Some(e);
        }
        self.history.clear();
    }

    /// Changes the settings of every world; a rejected value leaves them as they were.
    pub fn set_params(&mut self, p: Params) {
        let old = self.params;
        for sim in &mut self.sims {
            if let Err(e) = sim.set_params(&p) {
                self.error = Some(e);
                for s in &mut self.sims {
                    let _ = s.set_params(&old);
                }
                return;
            }
        }
        self.params = p;
    }

    /// Saves a snapshot of every world (the determinism page's rollback point).
    pub fn save(&mut self) {
        for sim in &mut self.sims {
            sim.save();
        }
        self.saved_frame = Some(self.sims[0].frame());
    }

    /// Restores every world to the last snapshot; re-simulated frames are then checked
    /// against the hashes of the first run ([`Session::resim`]).
    pub fn rollback(&mut self) -> bool {
        self.hand = None;
        self.pull = None;
        // Every world restores (no short circuit).
        let ok = self.sims.iter_mut().map(|s| s.restore()).filter(|&r| !r).count() == 0;
        self.resim = (0, 0);
        self.stats = self.sims[0].stats();
        ok
    }

    /// Hashes of every world.
    #[must_use]
    pub fn hashes(&self) -> Vec<u64> {
        self.sims.iter().map(|s| s.state_hash()).collect()
    }

    /// Presses the mouse at `p` (world) in world `view`: takes the nearest particle within
    /// `radius` (m) in every world. Returns whether one was taken.
    pub fn press(&mut self, view: usize, p: [f64; 3], radius: f64) -> bool {
        let Some(slot) = self.nearest(view, p, radius) else { return false };
        self.press_slot(slot, p)
    }

    /// Takes particle `slot` in every world, its hand at `p`.
    pub fn press_slot(&mut self, slot: usize, p: [f64; 3]) -> bool {
        self.release();
        self.pull = None;
        let mut any = false;
        for sim in &mut self.sims {
            any |= sim.grab(slot, p);
        }
        if any {
            self.hand = Some((slot, p));
        }
        any
    }

    /// Nearest particle to `p` within `radius` in world `view` (2D distance in 2D).
    #[must_use]
    pub fn nearest(&self, view: usize, p: [f64; 3], radius: f64) -> Option<usize> {
        let sim = self.sims.get(view)?;
        let dims = sim.dim();
        let d2 = |q: [f64; 3]| (0..dims).map(|i| (q[i] - p[i]).powi(2)).sum::<f64>();
        let best = sim.picks().into_iter().min_by(|a, b| d2(a.pos).total_cmp(&d2(b.pos)))?;
        (d2(best.pos) <= radius * radius).then_some(best.slot)
    }

    /// Lets go of the hand's particle (a throw with its velocity).
    pub fn release(&mut self) {
        if let Some((slot, _)) = self.hand.take() {
            for sim in &mut self.sims {
                sim.release(slot);
            }
        }
    }

    /// The held particle and its hand.
    #[must_use]
    pub fn hand(&self) -> Option<(usize, [f64; 3])> {
        self.hand
    }

    /// Hits the figure: at `at` (world) with `impulse` (N·s), or at its chest from the
    /// right with 40 N·s when `at` is `None`.
    pub fn punch(&mut self, at: Option<[f64; 3]>, impulse: Option<[f64; 3]>) {
        let chest = self.sims[0]
            .picks()
            .into_iter()
            .map(|p| p.pos)
            .max_by(|a, b| a[1].total_cmp(&b[1]))
            .map_or([0.0, 1.3, 0.0], |head| [head[0], head[1] - 0.35, head[2]]);
        let at = at.unwrap_or(chest);
        let j = impulse.unwrap_or([if at[0] >= chest[0] { -40.0 } else { 40.0 }, 0.0, 0.0]);
        for sim in &mut self.sims {
            sim.punch(at, j);
        }
    }

    /// Runs one frame of `real_dt` seconds: the steps the clock owes (none when paused).
    pub fn frame(&mut self, real_dt: f64) {
        let dt = self.sims[0].dt();
        let mut steps = 0;
        if !self.paused && real_dt.is_finite() && real_dt > 0.0 {
            self.accumulator += real_dt.min(0.25) * self.time_scale;
            steps = ((self.accumulator / dt).floor() as u32).min(MAX_STEPS_PER_FRAME);
            self.accumulator = (self.accumulator - f64::from(steps) * dt).clamp(0.0, dt);
        }
        self.run_steps(steps, real_dt);
    }

    /// Runs exactly one step (paused or not).
    pub fn single_step(&mut self) {
        self.run_steps(1, 0.0);
    }

    fn run_steps(&mut self, steps: u32, real_dt: f64) {
        let t0 = Instant::now();
        let mut profile = StepProfile::default();
        let dt = self.sims[0].dt();
        for _ in 0..steps {
            self.advance_pull(dt);
            if let Some((slot, target)) = self.hand {
                for sim in &mut self.sims {
                    sim.move_grab(slot, target);
                }
            }
            for sim in &mut self.sims {
                if let Err(e) = sim.step() {
                    self.error = Some(e);
                }
            }
            profile += self.sims[0].profile();
            if self.pull.is_some() {
                self.pull_worst = self.pull_worst.max(self.sims[0].rope_worst_stretch());
            }
            self.log_hashes();
        }
        self.physics_ms = t0.elapsed().as_secs_f64() * 1e3;
        self.steps_last_frame = steps;
        self.profile = profile;
        self.stats = self.sims[0].stats();
        self.history.push(Sample {
            time: self.sims[0].time(),
            energy: self.stats.energy(),
            worst_error: self.stats.worst_error,
            frame_ms: real_dt * 1e3,
            physics_ms: self.physics_ms,
        });
    }

    /// Determinism page: logs this frame's hashes, or compares them with the logged ones
    /// after a rollback.
    fn log_hashes(&mut self) {
        if self.sims.len() < 2 {
            return;
        }
        let frame = self.sims[0].frame();
        let hashes = self.hashes();
        match self.hash_log.get(&frame) {
            Some(first) if *first == hashes => self.resim.0 += 1,
            Some(_) => self.resim.1 += 1,
            None => {
                self.hash_log.insert(frame, hashes);
            }
        }
        // Keep the last 10 s.
        while self.hash_log.len() > 600 {
            self.hash_log.pop_first();
        }
        if frame % 120 == 0 {
            self.save();
        }
    }

    /// Every world is finite (no NaN or infinity in positions and velocities).
    #[must_use]
    pub fn is_finite(&self) -> bool {
        self.sims.iter().all(|s| s.is_finite())
    }
}
