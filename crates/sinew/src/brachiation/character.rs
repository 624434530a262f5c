//! The character: a [`SwingRig`] run along a [`Course`] by the ballistic planner (swing,
//! release at the planned angle, flight, grab, plan again), or by the sine-wave baseline
//! on the same course, with every grab recorded. The course's vines are ropes in the rig's
//! world ([`super::vine`]): a swing on a vine turns about the vine's top with the radius
//! vine + arm, and only its speed (not its direction) is set to the planned energy's.
//!
//! [`Brachiator::step`] advances one frame. Releases and grabs fall between frames, so a
//! frame is split at them: the world is stepped to the event's time (the release angle
//! reached at the current angular speed; the planned flight time), the event happens,
//! and the rest of the frame follows. At the release the launch is solved again from the
//! actual point and direction ([`super::planner::launch_from`]), so the flight starts from
//! where the centre of mass truly is; the launch speed's change against the swing's own
//! (the effort's remainder) is reported. Over the swing the character adds the planned
//! effort progressively: after each step the speed is set to the one the linearly ramped
//! energy gives at the current angle (this also cancels the integrator's small energy
//! drift, counted in the effort figures).
//!
//! With no plan from a swing the character pumps (see `pump.rs`: [`Phase::Pump`]).
//!
//! The state (the world, the plan, the phase, the RNG, the records) is hashed by
//! [`Brachiator::state_hash`]; the run is a pure function of the course, the definition
//! and the seed.

use super::course::Course;
use super::course::HandholdKind;
use super::planner::{self, Launch, NoPlan, Plan, PlannerDef, SwingState, Target};
use super::rig::SwingRig;
use super::rng::BrachRng;
use super::sine::SineSwing;
use super::vine;
use crate::SinewError;
use crate::math::{Real, Vector, Vector2};
use crate::rope::RopeHandle;
use crate::state::StateHasher;

/// How the character moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The ballistic planner on the two-point rig.
    Ballistic,
    /// The sine-wave baseline (kinematic).
    Sine,
}

/// What the character is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Swinging on a handhold toward a planned release.
    Swing,
    /// In the air toward a planned grab.
    Flight,
    /// Swinging on a handhold without a plan, adding or removing energy (bounded by the
    /// planner's `max_effort` per second) toward the energy a relaxed plan needs, and
    /// planning again as the swing turns forward.
    Pump,
    /// Hanging on a handhold with no plan (the planner found none, even relaxed).
    Stuck,
    /// Missed a grab (hand farther than the grab radius) and fell.
    Fallen,
    /// No handhold left ahead.
    Finished,
}

/// The character's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BrachiatorDef<R: Real> {
    /// The planner (arm, gravity, speed range, effort, ...).
    pub planner: PlannerDef<R>,
    /// Ballistic or sine.
    pub mode: Mode,
    /// Seed of the planner's sampling.
    pub seed: u64,
    /// World substeps per frame.
    pub substeps: u32,
    /// Starting arm angle on the first handhold (rad).
    pub start_angle: R,
    /// Starting tangential speed (m/s).
    pub start_speed: R,
    /// Largest hand-to-handhold distance a grab accepts (m).
    pub grab_radius: R,
    /// Frame length the run uses (s; the release's substep correction assumes it).
    pub frame: R,
}

impl<R: Real> BrachiatorDef<R> {
    /// Defaults: the default planner, ballistic, 16 substeps at 60 Hz, starting at −40°
    /// with 3 m/s, 5 cm grab radius (the learned controller's).
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Self {
            planner: PlannerDef::new(),
            mode: Mode::Ballistic,
            seed,
            substeps: 16,
            start_angle: R::from_f64(-40.0f64.to_radians()),
            start_speed: R::from_i32(3),
            grab_radius: R::from_f64(0.05),
            frame: R::from_ratio(1, 60),
        }
    }
}

/// One grab.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GrabRecord<R: Real> {
    /// Simulated time (s).
    pub time: R,
    /// Handhold index in the course.
    pub index: usize,
    /// Handhold position.
    pub handhold: Vector2<R>,
    /// Where the reaching hand was (at arm's length from the centre of mass toward the
    /// handhold, or at the handhold when closer).
    pub hand: Vector2<R>,
    /// Hand-to-handhold distance (m).
    pub hand_error: R,
    /// Kinetic energy kept.
    pub energy_kept: R,
    /// `|Δv|` of the centre of mass at the grab (m/s).
    pub com_velocity_jump: R,
    /// Speed just before (m/s).
    pub speed: R,
}

/// Figures of a run so far.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunStats<R: Real> {
    /// Grabs made.
    pub grabs: u32,
    /// Plans made.
    pub plans: u32,
    /// Plans whose residual fell under the tolerance within 10 iterations.
    pub converged: u32,
    /// Times the planner found no plan.
    pub no_plans: u32,
    /// The last no-plan reason.
    pub last_no_plan: Option<NoPlan>,
    /// Lowest and highest centre-of-mass speed seen at frame ends (m/s).
    pub speed: [R; 2],
    /// Lowest energy kept at a grab.
    pub worst_energy_kept: R,
    /// Largest `|Δv| / speed` at a grab.
    pub worst_jump_ratio: R,
    /// Largest hand-to-handhold distance at a grab (m).
    pub worst_hand_error: R,
    /// Sum of `|effort|` over swings (J/kg).
    pub effort: R,
    /// Largest `|effort|` of one swing (J/kg).
    pub worst_effort: R,
    /// Largest change of speed at a release against the swing's (m/s).
    pub worst_release_correction: R,
    /// Largest planner residual (m).
    pub worst_residual: R,
    /// Grabs of a vine.
    pub vine_grabs: u32,
    /// Releases from a vine.
    pub vine_releases: u32,
    /// Largest change of velocity at a release from a vine against the simulated swing's
    /// (m/s): how far the rope-and-arm swing strayed from the planner's `vine + L`
    /// pendulum (see [`super::vine`]).
    pub worst_vine_release_correction: R,
    /// Largest specific energy the swing's speed-setting restored over one vine swing
    /// beyond the plan's effort ramp (J/kg, summed frame by frame): what the vine's own
    /// motion took from (or gave to) the character's swing against the `vine + L`
    /// pendulum model.
    pub worst_vine_restored: R,
}

impl<R: Real> RunStats<R> {
    fn new() -> Self {
        Self {
            grabs: 0,
            plans: 0,
            converged: 0,
            no_plans: 0,
            last_no_plan: None,
            speed: [R::MAX, R::ZERO],
            worst_energy_kept: R::ONE,
            worst_jump_ratio: R::ZERO,
            worst_hand_error: R::ZERO,
            effort: R::ZERO,
            worst_effort: R::ZERO,
            worst_release_correction: R::ZERO,
            worst_residual: R::ZERO,
            vine_grabs: 0,
            vine_releases: 0,
            worst_vine_release_correction: R::ZERO,
            worst_vine_restored: R::ZERO,
        }
    }
}

/// The running character (see the module docs).
#[derive(Clone, Debug)]
pub struct Brachiator<R: Real> {
    /// The two-point rig and its world.
    pub rig: SwingRig<R>,
    /// The course.
    pub course: Course<R>,
    /// Parameters.
    pub def: BrachiatorDef<R>,
    /// What it is doing.
    pub phase: Phase,
    /// The handhold held (course index), if any.
    pub holding: Option<usize>,
    /// Which hand holds or last held (0 or 1).
    pub hand: usize,
    /// The current plan (swing and flight).
    pub plan: Option<Plan<R>>,
    /// Course index of the plan's target.
    pub target: Option<usize>,
    /// The flight under way: launch (exact parabola) and its start point.
    pub launch: Option<(Launch<R>, Vector2<R>)>,
    /// Time into the flight (s).
    pub flight_elapsed: R,
    /// Swing start: angle and specific energy at the grab.
    pub swing_start: (R, R),
    /// Simulated time (s).
    pub time: R,
    /// Every grab so far.
    pub grabs: Vec<GrabRecord<R>>,
    /// Figures so far.
    pub stats: RunStats<R>,
    /// The planner's RNG.
    pub rng: BrachRng,
    /// Sine mode: the current segment and the time into it.
    pub sine: Option<(SineSwing<R>, R)>,
    /// Pump phase: the specific energy aimed at (J/kg, relative to the handhold).
    pub pump_target: R,
    /// Pump phase: frames since the last planning attempt.
    pub pump_frames: u32,
    /// Frames spent pumping (figures).
    pub pump_total: u32,
    /// Frames spent pumping on the handhold held now (bounded by `PUMP_LIMIT`).
    pub pump_here: u32,
    /// Each handhold's vine rope in the rig's world (`None` on a branch).
    pub vines: Vec<Option<RopeHandle>>,
    /// Energy restored over the current vine swing (J/kg; see
    /// [`RunStats::worst_vine_restored`]).
    pub vine_restored: R,
    /// The effort ramp's fraction at the last frame's end on a vine.
    pub vine_frac: R,
}

pub(super) fn angle_of<R: Real>(d: Vector2<R>) -> R {
    d.x.atan2(-d.y)
}

impl<R: Real> Brachiator<R> {
    /// A character hanging from the course's first handhold.
    ///
    /// # Errors
    /// For an empty course or bad parameters.
    pub fn new(course: Course<R>, def: BrachiatorDef<R>) -> Result<Self, SinewError> {
        let p = &def.planner;
        let ok = |x: R| x.is_finite() && x > R::ZERO;
        if !ok(p.arm) || !ok(p.gravity) || !ok(p.speed[0]) || !(p.speed[1] > p.speed[0]) || !p.speed[1].is_finite() {
            return Err(SinewError::parameter(
                "brachiator",
                "arm, gravity and speed range must be finite and > 0",
                p.arm.to_f64(),
            ));
        }
        if !ok(def.frame)
            || def.substeps == 0
            || def.substeps > 1000
            || !def.start_angle.is_finite()
            || !def.start_speed.is_finite()
        {
            return Err(SinewError::parameter(
                "brachiator",
                "frame, substeps or start state invalid",
                def.frame.to_f64(),
            ));
        }
        let Some(first) = course.handholds.first().map(|h| h.position) else {
            return Err(SinewError::parameter("course", "has no handhold", 0.0));
        };
        let a = def.start_angle;
        let com = first + Vector2::new(a.sin(), -a.cos()) * p.arm;
        let mut rig = SwingRig::new(com, p.gravity, def.substeps)?;
        let vines = vine::add_vines(&mut rig.world, &course)?;
        let mut me = Self {
            rig: rig.clone(),
            course,
            def,
            phase: Phase::Swing,
            holding: Some(0),
            hand: 0,
            plan: None,
            target: None,
            launch: None,
            flight_elapsed: R::ZERO,
            swing_start: (a, R::ZERO),
            time: R::ZERO,
            grabs: Vec::new(),
            stats: RunStats::new(),
            rng: BrachRng::new(def.seed),
            sine: None,
            pump_target: R::ZERO,
            pump_frames: 0,
            pump_total: 0,
            pump_here: 0,
            vines,
            vine_restored: R::ZERO,
            vine_frac: R::ZERO,
        };
        match def.mode {
            Mode::Ballistic => {
                rig.place(com, Vector2::new(a.cos(), a.sin()) * def.start_speed)?;
                match me.vines.first().copied().flatten() {
                    Some(r) => rig.grab_particle(rig.world.rope(r)?.end())?,
                    None => rig.grab(first)?,
                };
                me.rig = rig;
                me.after_grab(0);
            }
            Mode::Sine => {
                me.rig = rig;
                me.sine = Some((me.sine_segment(0), R::ZERO));
                me.place_sine()?;
            }
        }
        Ok(me)
    }

    /// Centre of mass.
    #[must_use]
    pub fn com(&self) -> Vector2<R> {
        self.rig.com_position()
    }

    /// Centre of mass velocity.
    #[must_use]
    pub fn com_velocity(&self) -> Vector2<R> {
        self.rig.com_velocity()
    }

    /// The two hands: the holding one at its handhold; a free one reaching toward the
    /// plan's handhold (at most an arm's length from the centre of mass) or, with nothing
    /// to reach for, hanging half an arm below the centre of mass.
    #[must_use]
    pub fn hands(&self) -> [Vector2<R>; 2] {
        let c = self.com();
        let l = self.def.planner.arm;
        let reach = |t: Vector2<R>| {
            let (d, len) = (t - c).normalize_and_length();
            if len <= l { t } else { c + d * l }
        };
        let hang = c + Vector2::new(R::ZERO, -l * R::HALF);
        let free = self.target.map_or(hang, |t| reach(self.handhold_position(t)));
        let held = self.holding.map_or(hang, |i| self.handhold_position(i));
        let mut out = [held, free];
        if self.hand == 1 {
            out.swap(0, 1);
        }
        out
    }

    /// Which handhold each hand holds.
    #[must_use]
    pub fn holding(&self) -> [Option<usize>; 2] {
        let mut out = [self.holding, None];
        if self.hand == 1 {
            out.swap(0, 1);
        }
        out
    }

    /// Where handhold `i` is now: a branch point, or a vine's end particle (it swings).
    #[must_use]
    pub fn handhold_position(&self, i: usize) -> Vector2<R> {
        let rope = self.vines.get(i).copied().flatten().and_then(|r| self.rig.world.rope(r).ok());
        match rope.and_then(|r| self.rig.world.particles().position(r.end())) {
            Some(p) => p,
            None => self.course.handholds.get(i).map_or(Vector2::new(R::ZERO, R::ZERO), |h| h.position),
        }
    }

    /// The planner's view of handhold `i` (see [`super::vine`] for a vine's).
    #[must_use]
    pub fn target_of(&self, i: usize) -> Target<R> {
        let h = &self.course.handholds[i];
        let arm = self.def.planner.arm;
        match h.kind {
            HandholdKind::Branch => Target { pivot: h.position, radius: arm, grab_angle: None },
            HandholdKind::Vine => {
                Target { pivot: h.top, radius: vine::vine_length(&self.course, i) + arm, grab_angle: Some(R::ZERO) }
            }
        }
    }

    pub(super) fn candidates(&self, from: usize) -> (Vec<Target<R>>, usize) {
        let n = self.def.planner.lookahead.max(1) + 1;
        let start = from + 1;
        let end = (start + n).min(self.course.handholds.len());
        let list = (start..end).map(|i| self.target_of(i)).collect();
        (list, start)
    }

    /// Plans from the current swing on handhold `index`.
    fn after_grab(&mut self, index: usize) {
        let Target { pivot: h, radius, .. } = self.target_of(index);
        let c = self.com();
        let v = self.com_velocity();
        let ang = angle_of(c - h);
        let t = Vector2::new(ang.cos(), ang.sin());
        let speed = v.dot(t);
        let g = self.def.planner.gravity;
        self.swing_start = (ang, v.length_squared() * R::HALF + g * (c.y - h.y));
        self.holding = Some(index);
        self.pump_here = 0;
        self.vine_restored = R::ZERO;
        self.vine_frac = R::ZERO;
        let (list, start) = self.candidates(index);
        if list.is_empty() {
            self.phase = Phase::Finished;
            self.plan = None;
            self.target = None;
            return;
        }
        let state = SwingState { handhold: h, angle: ang, speed, radius };
        self.try_plan(&state, &list, start, false);
    }

    /// Plans from `state`; on failure, pumps toward a relaxed plan's energy or gets stuck.
    pub(super) fn try_plan(&mut self, state: &SwingState<R>, list: &[Target<R>], start: usize, pumping: bool) {
        let mut def = self.def.planner;
        if pumping {
            // From a pumping swing the speed passes through zero at the turns.
            def.speed[0] = R::ZERO;
        }
        match planner::plan_to(state, list, &def, &mut self.rng) {
            Ok(mut p) => {
                p.target += start;
                self.stats.plans += 1;
                if p.iterations <= 10 && p.residual < self.def.planner.tolerance {
                    self.stats.converged += 1;
                }
                self.stats.worst_residual = self.stats.worst_residual.max(p.residual);
                self.stats.effort += p.effort.abs();
                self.stats.worst_effort = self.stats.worst_effort.max(p.effort.abs());
                self.target = Some(p.target);
                self.plan = Some(p);
                self.phase = Phase::Swing;
            }
            Err(e) => {
                self.no_plan(e, state, list, &def, pumping);
            }
        }
    }

    fn world_step(&mut self, dt: R) -> Result<(), SinewError> {
        if dt > R::from_f64(1e-6) {
            if self.vines.iter().any(Option::is_some) {
                self.rig.step_part(dt, self.def.frame)?;
            } else {
                self.rig.step(dt)?;
            }
        }
        self.time += dt;
        Ok(())
    }

    /// Sets the swing speed to the ramped energy's at the current angle.
    fn pump(&mut self) -> Result<(), SinewError> {
        let (Some(p), Some(i)) = (self.plan, self.holding) else { return Ok(()) };
        let h = self.target_of(i).pivot;
        let c = self.com();
        let v = self.com_velocity();
        let ang = angle_of(c - h);
        let (a0, e0) = self.swing_start;
        let span = p.release_angle - a0;
        let frac = if span > R::from_f64(1e-6) { ((ang - a0) / span).clamp(R::ZERO, R::ONE) } else { R::ONE };
        let e = e0 + p.effort * frac;
        let s2 = (e - self.def.planner.gravity * (c.y - h.y)) * R::TWO;
        let s = s2.max(R::ZERO).sqrt();
        let t = Vector2::new(ang.cos(), ang.sin());
        let sign = if v.dot(t) < R::ZERO { -R::ONE } else { R::ONE };
        // On a vine the swing's direction is the simulation's (the rope and the arm bend
        // a little off the model's straight line): only the speed is set.
        let on_vine = self.vines.get(i).copied().flatten().is_some();
        let dir = if on_vine { v.normalize_or_zero() } else { t * sign };
        let dir = if dir.length_squared() > R::ZERO { dir } else { t * sign };
        if on_vine {
            // The simulated swing's energy against the model's at the last frame's end.
            let sim = v.length_squared() * R::HALF + self.def.planner.gravity * (c.y - h.y);
            self.vine_restored += (e0 + p.effort * self.vine_frac - sim).abs();
            self.vine_frac = frac;
            let s = &mut self.stats;
            s.worst_vine_restored = s.worst_vine_restored.max(self.vine_restored);
        }
        self.rig.world.particles_mut().set_velocity(self.rig.com, dir * s)
    }

    fn release(&mut self) -> Result<(), SinewError> {
        let (Some(p), Some(i)) = (self.plan, self.holding) else { return Ok(()) };
        let h = self.target_of(i).pivot;
        let c = self.com();
        let v = self.com_velocity();
        let ang = angle_of(c - h);
        match planner::launch_from(c, ang, (p.handhold, p.grab_radius), p.grab_angle, &self.def.planner) {
            Some(l) => {
                let corr = (l.velocity.length() - v.length()).abs();
                self.stats.worst_release_correction = self.stats.worst_release_correction.max(corr);
                if self.vines.get(i).copied().flatten().is_some() {
                    let s = &mut self.stats;
                    s.vine_releases += 1;
                    s.worst_vine_release_correction = s.worst_vine_release_correction.max((l.velocity - v).length());
                }
                let hsub = self.rig.substep(self.def.frame);
                self.rig.release(l.velocity, hsub)?;
                self.launch = Some((l, c));
                self.flight_elapsed = R::ZERO;
                self.holding = None;
                self.hand ^= 1;
                self.phase = Phase::Flight;
            }
            None => {
                self.stats.no_plans += 1;
                self.stats.last_no_plan = Some(NoPlan::Unreachable);
                self.plan = None;
                self.target = None;
                self.phase = Phase::Stuck;
            }
        }
        Ok(())
    }

    fn grab(&mut self) -> Result<(), SinewError> {
        let Some(ti) = self.target else { return Ok(()) };
        let hpos = self.handhold_position(ti);
        let c = self.com();
        let l = self.def.planner.arm;
        let (d, dist) = (hpos - c).normalize_and_length();
        let hand = if dist <= l { hpos } else { c + d * l };
        let err = (dist - l).abs();
        self.launch = None;
        if err > self.def.grab_radius {
            self.phase = Phase::Fallen;
            self.plan = None;
            self.target = None;
            return Ok(());
        }
        let r = match self.vines.get(ti).copied().flatten() {
            Some(rope) => {
                self.stats.vine_grabs += 1;
                self.rig.world.wake_rope(rope)?;
                let end = self.rig.world.rope(rope)?.end();
                self.rig.grab_particle(end)?
            }
            None => self.rig.grab(hpos)?,
        };
        let rec = GrabRecord {
            time: self.time,
            index: ti,
            handhold: hpos,
            hand,
            hand_error: err,
            energy_kept: r.energy_kept,
            com_velocity_jump: r.com_velocity_jump,
            speed: r.speed_before,
        };
        self.record(rec);
        self.after_grab(ti);
        Ok(())
    }

    pub(super) fn record(&mut self, rec: GrabRecord<R>) {
        let s = &mut self.stats;
        s.grabs += 1;
        s.worst_energy_kept = s.worst_energy_kept.min(rec.energy_kept);
        let ratio = if rec.speed > R::ZERO { rec.com_velocity_jump / rec.speed } else { R::ZERO };
        s.worst_jump_ratio = s.worst_jump_ratio.max(ratio);
        s.worst_hand_error = s.worst_hand_error.max(rec.hand_error);
        self.grabs.push(rec);
    }

    /// Advances one frame of `dt` seconds (see the module docs).
    ///
    /// # Errors
    /// For a bad time step (`dt` must be finite and positive, at most 1 s).
    pub fn step(&mut self, dt: R) -> Result<(), SinewError> {
        if !dt.is_finite() || !(dt > R::ZERO) || dt > R::ONE {
            return Err(SinewError::InvalidTimeStep { dt: dt.to_f64() });
        }
        match self.def.mode {
            Mode::Ballistic => self.step_ballistic(dt)?,
            Mode::Sine => self.step_sine(dt)?,
        }
        let sp = self.com_velocity().length();
        self.stats.speed = [self.stats.speed[0].min(sp), self.stats.speed[1].max(sp)];
        Ok(())
    }

    fn step_ballistic(&mut self, dt: R) -> Result<(), SinewError> {
        let eps = R::from_f64(1e-6);
        let mut left = dt;
        for _ in 0..8 {
            if !(left > eps) {
                if left > R::ZERO {
                    self.time += left;
                }
                break;
            }
            match self.phase {
                Phase::Swing => {
                    let (Some(p), Some(i)) = (self.plan, self.holding) else { break };
                    let h = self.target_of(i).pivot;
                    let c = self.com();
                    let ang = angle_of(c - h);
                    let w = self.com_velocity().dot(Vector2::new(ang.cos(), ang.sin())) / p.swing_radius;
                    let tau = if ang >= p.release_angle && w > R::ZERO {
                        R::ZERO
                    } else if w > R::from_f64(1e-3) {
                        (p.release_angle - ang) / w
                    } else {
                        R::MAX
                    };
                    if tau <= left {
                        self.world_step(tau)?;
                        left -= tau;
                        self.pump()?;
                        self.release()?;
                    } else {
                        self.world_step(left)?;
                        left = R::ZERO;
                        self.pump()?;
                    }
                }
                Phase::Flight => {
                    let Some((l, _)) = self.launch else { break };
                    let tau = (l.flight_time - self.flight_elapsed).max(R::ZERO);
                    if tau <= left {
                        self.world_step(tau)?;
                        left -= tau;
                        self.grab()?;
                    } else {
                        self.world_step(left)?;
                        self.flight_elapsed += left;
                        left = R::ZERO;
                    }
                }
                Phase::Pump => {
                    self.world_step(left)?;
                    let d = left;
                    left = R::ZERO;
                    self.pump_phase(d)?;
                }
                Phase::Stuck | Phase::Fallen | Phase::Finished => {
                    self.world_step(left)?;
                    left = R::ZERO;
                }
            }
        }
        Ok(())
    }

    /// The planned flight for drawing: points of the parabola from the release point to
    /// the grab (`n + 1` points), or the planned one from the swing's release angle.
    #[must_use]
    pub fn planned_arc(&self, n: usize) -> Vec<Vector2<R>> {
        let g = Vector2::new(R::ZERO, -self.def.planner.gravity);
        let (c0, v0, t) = match (self.launch, self.plan, self.holding) {
            (Some((l, c0)), _, _) => (c0, l.velocity, l.flight_time),
            (None, Some(p), Some(i)) => {
                let h = self.target_of(i).pivot;
                let th = p.release_angle;
                let c0 = h + Vector2::new(th.sin(), -th.cos()) * p.swing_radius;
                (c0, Vector2::new(th.cos(), th.sin()) * p.release_speed, p.flight_time)
            }
            _ => return Vec::new(),
        };
        let n = n.max(1);
        (0..=n)
            .map(|k| {
                let s = t * R::from_i32(k as i32) / R::from_i32(n as i32);
                c0 + v0 * s + g * (s * s * R::HALF)
            })
            .collect()
    }

    /// The hash of the whole state: the world's and the character's own.
    #[must_use]
    pub fn state_hash(&self) -> u64 {
        let mut h = StateHasher::default();
        h.write_u64(self.rig.world.state_hash());
        h.write_u64(self.phase as u64);
        h.write_u64(self.holding.map_or(u64::MAX, |i| i as u64));
        h.write_u64(self.hand as u64);
        h.write_u64(self.target.map_or(u64::MAX, |i| i as u64));
        h.write_u64(self.rng.0);
        h.write_u64(self.time.hash_bits());
        h.write_u64(self.flight_elapsed.hash_bits());
        h.write_u64(self.swing_start.0.hash_bits());
        h.write_u64(self.swing_start.1.hash_bits());
        if let Some(p) = self.plan {
            for x in [p.release_angle, p.release_speed, p.grab_angle, p.flight_time, p.effort, p.residual] {
                h.write_u64(x.hash_bits());
            }
        }
        if let Some((l, c0)) = self.launch {
            for x in [l.velocity.x, l.velocity.y, l.grab_angle, l.flight_time, c0.x, c0.y] {
                h.write_u64(x.hash_bits());
            }
        }
        if let Some((s, t)) = self.sine {
            for x in [s.amplitude, s.half_period, s.leap_time, t] {
                h.write_u64(x.hash_bits());
            }
        }
        h.write_u64(self.pump_target.hash_bits());
        h.write_u64(u64::from(self.pump_frames));
        h.write_u64(u64::from(self.pump_here));
        h.write_u64(self.grabs.len() as u64);
        for g in &self.grabs {
            for x in [g.time, g.energy_kept, g.com_velocity_jump, g.hand_error] {
                h.write_u64(x.hash_bits());
            }
        }
        h.finish()
    }
}
