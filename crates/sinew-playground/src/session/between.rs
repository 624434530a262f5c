//! The rope-between page (seed 003): a rope between two objects whose ends the mouse drags,
//! with a load hung from its middle, rebuilt from its sliders (segments, length, load), and
//! the automatic pull that runs both ends apart to 99 % of the rope's length and back.
//!
//! The load is the rope's middle particle made heavy (10 kg by default on the 300 g rope),
//! so it is in the rope's exact chain solve with every segment. (Two ropes attached to a
//! load particle, `RopeDef::attach_end`/`attach_start`, meet through it one chain after the
//! other: a 10 kg load dropped into them, or pulled up by the ends at 5 m/s, stretched them
//! by 2000–3000 %.) The dragged ends are the first rope's start and the last rope's end.

use super::Session;
use crate::catalog::SceneKind;
use sinew_scene::spec::SceneSpec;

/// The load the rope-between page hangs from its rope's middle when it opens (kg).
pub const DEFAULT_LOAD: f64 = 10.0;

/// The rope-between page's rebuild settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RopeSetup {
    /// Segments.
    pub segments: u32,
    /// Rest length between the two ends (m).
    pub length: f64,
    /// Mass of the middle particle (kg); 0: the rope's own.
    pub load: f64,
}

impl RopeSetup {
    /// The settings a scene file describes (its first rope's segments and length), with
    /// `load`.
    pub(super) fn of(spec: &SceneSpec, load: f64) -> Self {
        let r = spec.ropes.first();
        let segments = r.map_or(40, |r| r.segments.unwrap_or(40).clamp(1, 400)) as u32;
        let length = r.map_or(0.0, |r| polyline_length(&r.points));
        Self { segments, length: if length > 0.0 { length } else { 3.0 }, load }
    }
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

fn polyline_length(points: &[Vec<f64>]) -> f64 {
    points.windows(2).map(|w| w[0].iter().zip(&w[1]).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt()).sum()
}

impl Session {
    /// The two dragged ends (the first rope's start and the last rope's end, particle
    /// slots) and the rest length of rope between them (m). `None` without ropes.
    #[must_use]
    pub fn between_ends(&self) -> Option<(usize, usize, f64)> {
        let sim = self.sims.first()?;
        let ends = sim.rope_ends();
        let (&(a, _), &(_, b)) = (ends.first()?, ends.last()?);
        Some((a, b, sim.rope_lengths().iter().sum()))
    }

    /// Rebuilds the rope-between rope with `setup` (segments 1–400, length 0.2–20 m, load
    /// 0–100 kg), its ends 80 % of its length apart about the middle of the file's ends.
    pub fn set_rope(&mut self, setup: RopeSetup) {
        let segments = setup.segments.clamp(1, 400);
        let length = if setup.length.is_finite() { setup.length.clamp(0.2, 20.0) } else { 3.0 };
        let load = if setup.load.is_finite() { setup.load.clamp(0.0, 100.0) } else { 0.0 };
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
        // Laid as a V of the chosen length between its ends 80 % apart: without a load an
        // upward V (clear of anything below) that falls into its sag; with one, hanging
        // where the load rests, so that it does not drop and snap the rope taut.
        let rise = 0.5 * (length * length - (2.0 * half) * (2.0 * half)).max(0.0).sqrt();
        let mut peak = start.clone();
        peak[0] += half;
        peak[1] += if load > 0.0 { -rise } else { rise };
        r.points = vec![start, peak, end];
        r.segments = Some(i64::from(segments));
        r.segment_length = None;
        self.rope = RopeSetup { segments, length, load };
        self.reset();
    }

    /// The rope-between page's load slot: the middle particle of its rope.
    #[must_use]
    pub fn load_slot(&self) -> Option<usize> {
        let slots = self.sims.first()?.rope_slots(0);
        slots.get(slots.len() / 2).copied()
    }

    /// Gives the rope-between page's middle particle the load's mass in every world (after
    /// a build). A rope of one segment has no middle particle: nothing to load.
    pub(super) fn apply_load(&mut self) -> Result<(), String> {
        if self.kind() != Some(SceneKind::RopeBetween) || self.rope.load <= 0.0 {
            return Ok(());
        }
        let Some(slot) = self.load_slot() else { return Ok(()) };
        let slots = self.sims[0].rope_slots(0);
        if slots.first() == Some(&slot) || slots.last() == Some(&slot) {
            return Ok(());
        }
        for sim in &mut self.sims {
            sim.set_mass(slot, self.rope.load)?;
        }
        Ok(())
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

    /// `p` moved towards the other end when the hand holds one end of the rope-between
    /// page's rope, so that the ends stay within 99.5 % of the rope's length.
    fn keep_rope_length(&self, p: [f64; 3]) -> [f64; 3] {
        let Some((slot, _)) = self.hand else { return p };
        if self.kind() != Some(SceneKind::RopeBetween) {
            return p;
        }
        let Some((a, b, len)) = self.between_ends() else { return p };
        let other = match slot {
            s if s == a => b,
            s if s == b => a,
            _ => return p,
        };
        let Some(o) = self.sims[0].position(other) else { return p };
        let d = [p[0] - o[0], p[1] - o[1], p[2] - o[2]];
        let dist = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        let max = 0.995 * len;
        if dist > max {
            let s = max / dist;
            return [o[0] + d[0] * s, o[1] + d[1] * s, o[2] + d[2] * s];
        }
        p
    }

    /// Starts the automatic pull of the rope-between page: both ends apart to 99 % of the
    /// rope's length and back to 20 %, `cycles` times, each end at `speed` (m/s).
    pub fn start_pull(&mut self, speed: f64, cycles: u32) {
        let Some((a, b, _)) = self.between_ends() else { return };
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
    pub(super) fn advance_pull(&mut self, dt: f64) {
        let Some(mut pull) = self.pull else { return };
        let Some((a, b, length)) = self.between_ends() else { return };
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
}
