//! The playground's state without a window: which scene runs, the clock (pause, single
//! step, slow motion), the mouse hand, the sliders' settings, statistics and their history.
//!
//! Everything the UI does goes through [`Session`]'s methods, in world coordinates, so the
//! tests drive it directly (and through egui in `tests/`). A scene is one [`Sim`], or two
//! for the determinism page (the same file in `f32` and in fixed point), which then receive
//! the same input: a drag grabs the same particle slot in both.

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

/// The rope-between page's rebuild settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RopeSetup {
    /// Segments.
    pub segments: u32,
    /// Rest length (m).
    pub length: f64,
}

/// The automatic pull of the rope-between page: both ends apart to 99 % of the rope's
/// length and back together at a fixed speed each.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pull {
    /// Speed of each end (m/s).
    pub speed: f64,
    /// Apart (true) or together.
    pub apart: bool,
    /// Half the current distance between the ends (m).
    pub half: f64,
    /// Midpoint of the ends.
    pub center: [f64; 3],
    /// Cycles (apart and together) still to run.
    pub cycles: u32,
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
        let rope = spec.ropes.first().map_or(RopeSetup { segments: 40, length: 3.0 }, |r| RopeSetup {
            segments: r.segments.unwrap_or(40).clamp(1, 400) as u32,
            length: polyline_length(&r.points),
        });
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

    /// Rebuilds the rope-between rope with `setup` (segments 1–400, length 0.2–20 m), its ends
    /// 80 % of its length apart about the middle of the file's ends.
    pub fn set_rope(&mut self, setup: RopeSetup) {
        let segments = setup.segments.clamp(1, 400);
        let length = if setup.length.is_finite() { setup.length.clamp(0.2, 20.0) } else { 3.0 };
        let Some(r) = self.spec.ropes.first_mut() else { return };
        let (a, b) = match (r.points.first(), r.points.last()) {
            (Some(a), Some(b)) => (a.clone(), b.clone()),
            _ => return,
        };
        let mid: Vec<f64> = a.iter().zip(&b).map(|(x, y)| 0.5 * (x + y)).collect();
        let half = 0.4 * length;
        let mut start = mid.clone();
        let mut end = mid;
        start[0] -= half;
        end[0] += half;
        // Laid as an upward V of the chosen length between its ends 80 % apart (clear of
        // anything below), it falls into its sag.
        let rise = 0.5 * (length * length - (2.0 * half) * (2.0 * half)).max(0.0).sqrt();
        let mut peak = start.clone();
        peak[0] += half;
        peak[1] += rise;
        r.points = vec![start, peak, end];
        r.segments = Some(i64::from(segments));
        r.segment_length = None;
        self.rope = RopeSetup { segments, length };
        self.reset();
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

    /// Moves the hand to `p` (world). On the rope-between page an end is kept within
    /// 99.5 % of the rope's length of the other end: both are held, so the rope cannot pull
    /// the other object along.
    pub fn drag_to(&mut self, p: [f64; 3]) {
        if !p.iter().all(|c| c.is_finite()) {
            return;
        }
        let p = self.keep_rope_length(p);
        if let Some((_, target)) = &mut self.hand {
            *target = p;
        }
    }

    /// `p` moved towards the other end of the held rope end's rope so that the ends stay
    /// within 99.5 % of the rope's length (rope-between page only).
    fn keep_rope_length(&self, p: [f64; 3]) -> [f64; 3] {
        let Some((slot, _)) = self.hand else { return p };
        if self.kind() != Some(SceneKind::RopeBetween) {
            return p;
        }
        let sim = &self.sims[0];
        let lengths = sim.rope_lengths();
        for (k, &(a, b)) in sim.rope_ends().iter().enumerate() {
            let other = if slot == a {
                b
            } else if slot == b {
                a
            } else {
                continue;
            };
            let (Some(o), Some(&len)) = (sim.position(other), lengths.get(k)) else { continue };
            let d = [p[0] - o[0], p[1] - o[1], p[2] - o[2]];
            let dist = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            let max = 0.995 * len;
            if dist > max {
                let s = max / dist;
                return [o[0] + d[0] * s, o[1] + d[1] * s, o[2] + d[2] * s];
            }
        }
        p
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

    /// Starts the automatic pull of the rope-between page: both ends apart to 99 % of the
    /// rope's length and back to 20 %, `cycles` times, each end at `speed` (m/s).
    pub fn start_pull(&mut self, speed: f64, cycles: u32) {
        let Some(&(a, b)) = self.sims[0].rope_ends().first() else { return };
        let (Some(pa), Some(pb)) = (self.sims[0].position(a), self.sims[0].position(b)) else { return };
        self.release();
        for sim in &mut self.sims {
            sim.release_all();
            sim.grab(a, pa);
            sim.grab(b, pb);
        }
        let center = [0.5 * (pa[0] + pb[0]), 0.5 * (pa[1] + pb[1]), 0.5 * (pa[2] + pb[2])];
        let half = 0.5 * ((pb[0] - pa[0]).powi(2) + (pb[1] - pa[1]).powi(2) + (pb[2] - pa[2]).powi(2)).sqrt();
        self.pull = Some(Pull { speed, apart: true, half, center, cycles: cycles.max(1) });
        self.pull_worst = 0.0;
    }

    /// Moves the pulled ends by one step; ends the pull after its cycles.
    fn advance_pull(&mut self, dt: f64) {
        let Some(mut pull) = self.pull else { return };
        let Some(&(a, b)) = self.sims[0].rope_ends().first() else { return };
        let length = self.sims[0].rope_lengths().first().copied().unwrap_or(1.0);
        let (far, near) = (0.495 * length, 0.1 * length);
        if pull.apart {
            pull.half = (pull.half + pull.speed * dt).min(far);
            if pull.half >= far {
                pull.apart = false;
            }
        } else {
            pull.half = (pull.half - pull.speed * dt).max(near);
            if pull.half <= near {
                pull.apart = true;
                pull.cycles -= 1;
            }
        }
        let c = pull.center;
        for sim in &mut self.sims {
            sim.move_grab(a, [c[0] - pull.half, c[1], c[2]]);
            sim.move_grab(b, [c[0] + pull.half, c[1], c[2]]);
        }
        self.pull = (pull.cycles > 0).then_some(pull);
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

fn polyline_length(points: &[Vec<f64>]) -> f64 {
    points.windows(2).map(|w| w[0].iter().zip(&w[1]).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt()).sum()
}
