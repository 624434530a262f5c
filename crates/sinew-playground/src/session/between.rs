//! The rope-between page (seed 003): a rope between two objects whose ends the mouse drags,
//! rebuilt from its sliders (segments, length, a load hung from its middle), and the
//! automatic pull that runs both ends apart to 99 % of the rope's length and back.
//!
//! With a load the page's rope is two ropes in the scene: the first from object A to the
//! load, the second from the load to object B, each attached to the load's particle (scene
//! key `"attach"`, `RopeDef::attach_end`/`attach_start`), so the load's mass is in both
//! ropes' exact chain solves and the two chains meet through it. The dragged ends are the
//! first rope's start and the last rope's end, and "the rope's length" is the sum of the
//! ropes' rest lengths.

use super::Session;
use crate::catalog::SceneKind;
use sinew_scene::spec::{ParticleSpec, RopeAttachSpec, SceneSpec};

/// The rope-between page's rebuild settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RopeSetup {
    /// Segments (of both ropes together when there is a load).
    pub segments: u32,
    /// Rest length between the two ends (m).
    pub length: f64,
    /// Mass hung from the middle (kg); 0: none.
    pub load: f64,
}

/// Radius of the load's particle (m).
const LOAD_RADIUS: f64 = 0.08;

impl RopeSetup {
    /// The settings a scene file describes: its ropes' segments and lengths summed, the
    /// load the first rope's end is attached to.
    pub(super) fn of(spec: &SceneSpec) -> Self {
        let segments = spec.ropes.iter().map(|r| r.segments.unwrap_or(40).clamp(1, 400)).sum::<i64>();
        let length = spec.ropes.iter().map(|r| polyline_length(&r.points)).sum::<f64>();
        let load = spec
            .ropes
            .first()
            .filter(|_| spec.ropes.len() >= 2)
            .and_then(|r| r.attach.as_ref()?.end)
            .and_then(|i| spec.particles.get(usize::try_from(i).ok()?)?.mass)
            .unwrap_or(0.0);
        Self { segments: segments.clamp(1, 400) as u32, length: if length > 0.0 { length } else { 3.0 }, load }
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
    /// With a load the page's file particles are replaced by the load alone.
    pub fn set_rope(&mut self, setup: RopeSetup) {
        let length = if setup.length.is_finite() { setup.length.clamp(0.2, 20.0) } else { 3.0 };
        let load = if setup.load.is_finite() { setup.load.clamp(0.0, 100.0) } else { 0.0 };
        let segments = setup.segments.clamp(if load > 0.0 { 2 } else { 1 }, 400);
        let (Some(first), Some(last)) = (self.spec.ropes.first(), self.spec.ropes.last()) else { return };
        let (Some(a), Some(b)) = (first.points.first(), last.points.last()) else { return };
        if a.len() != b.len() || a.len() < 2 {
            return;
        }
        let rope_mass = self.spec.ropes.iter().map(|r| r.mass).sum::<Option<f64>>();
        let template = first.clone();
        let mid: Vec<f64> = a.iter().zip(b).map(|(x, y)| 0.5 * (x + y)).collect();
        let half = 0.4 * length;
        let (mut start, mut end) = (mid.clone(), mid);
        start[0] -= half;
        end[0] += half;
        // Laid as an upward V of the chosen length between its ends 80 % apart (clear of
        // anything below), it falls into its sag.
        let rise = 0.5 * (length * length - (2.0 * half) * (2.0 * half)).max(0.0).sqrt();
        let mut peak = start.clone();
        peak[0] += half;
        peak[1] += rise;
        let mut rope = template;
        rope.segment_length = None;
        rope.attach = None;
        if load > 0.0 {
            let left = segments / 2;
            let share = |n: u32| rope_mass.map(|m| m * f64::from(n) / f64::from(segments));
            let mut r0 = rope.clone();
            r0.points = vec![start, peak.clone()];
            r0.segments = Some(i64::from(left));
            r0.mass = share(left);
            r0.pin = vec!["start".into()];
            r0.attach = Some(RopeAttachSpec { start: None, end: Some(0) });
            let mut r1 = rope;
            r1.points = vec![peak.clone(), end];
            r1.segments = Some(i64::from(segments - left));
            r1.mass = share(segments - left);
            r1.pin = vec!["end".into()];
            r1.attach = Some(RopeAttachSpec { start: Some(0), end: None });
            let particle = serde_json::json!({ "pos": peak, "mass": load, "radius": LOAD_RADIUS });
            let Ok(particle) = serde_json::from_value::<ParticleSpec>(particle) else { return };
            self.spec.ropes = vec![r0, r1];
            self.spec.particles = vec![particle];
        } else {
            rope.points = vec![start, peak, end];
            rope.segments = Some(i64::from(segments));
            rope.mass = rope_mass;
            rope.pin = vec!["start".into(), "end".into()];
            self.spec.ropes = vec![rope];
            self.spec.particles.clear();
        }
        self.rope = RopeSetup { segments, length, load };
        self.reset();
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
