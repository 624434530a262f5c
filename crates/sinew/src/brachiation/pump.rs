//! Extra swings: pumping when no plan exists.
//!
//! A swing's state may admit no flight at full arm's length within the speed range and the
//! effort (a close handhold after a fast swing, a long rising gap after a slow one). Then,
//! as a gibbon does, the character stays on the handhold and swings back and forth
//! ([`Phase::Pump`]), adding or removing energy at most `max_effort` J/kg a second, and
//! plans again as the swing turns forward (every 6 frames while it moves forward, and so
//! at the back turn itself), so each half-swing offers new release opportunities from a
//! new energy.
//!
//! The energy aimed at is, first, that of a plain swing of amplitude `a` (at rest at its
//! back turn, `e = −g L cos a`, `a` in 20°–80° by 10°) from whose back turn the real
//! planner, as it plans while pumping (lowest speed 0), finds a flight: the best-scored
//! amplitude wins. Pumped to that energy, the character passes exactly that state at the
//! next back turn and plans there. Failing that, the aim is the energy a relaxed plan (any
//! speed up to twice the range, ten times the effort) needs from the current swing or from
//! a back turn at −45°, −70°, −25° or −85°; never below a 15° swing's, so the swing keeps
//! turning forward; aimed again once reached without a plan.
//!
//! Energy is added or removed only while the centre of mass is below the handhold: a swing
//! braked over the top could come to rest exactly above the handhold and balance there
//! (the arm is rigid), which is how a looping swing used to get stuck.
//!
//! Only the real planner's plan is ever flown, so every grab still keeps ≥ 99 % of the
//! energy. After `PUMP_LIMIT` frames (60 s) on one handhold without a plan the character is
//! [`Phase::Stuck`]; the frames spent pumping are reported (`pump_total`).

use super::character::{Brachiator, Phase, angle_of};
use super::planner::{self, NoPlan, PlannerDef, SwingState, Target};
use crate::SinewError;
use crate::math::{Real, Vector, Vector2};

/// Frames the character may pump on one handhold (60 s at 60 Hz) before it counts as
/// stuck.
const PUMP_LIMIT: u32 = 3600;

impl<R: Real> Brachiator<R> {
    /// No plan from `state`: pumps toward the energy a plan needs, or gets stuck.
    pub(super) fn no_plan(
        &mut self,
        e: NoPlan,
        state: &SwingState<R>,
        list: &[Target<R>],
        def: &PlannerDef<R>,
        pumping: bool,
    ) {
        let def = *def;
        self.stats.last_no_plan = Some(e);
        self.plan = None;
        self.target = None;
        // A relaxed plan (any speed, ten times the effort) says which way to pump.
        let relaxed =
            PlannerDef { speed: [R::ZERO, def.speed[1] * R::TWO], max_effort: def.max_effort * R::from_i32(10), ..def };
        let g = def.gravity;
        let energy = |s: &SwingState<R>| s.speed * s.speed * R::HALF - g * s.radius * s.angle.cos();
        // From this swing, or else from a swing turning at its back (at rest at
        // −a): the energy a relaxed plan from there needs is the one to pump to.
        let mut goal = None;
        if e != NoPlan::NoHandholdAhead {
            // First choice: the amplitude of a plain swing from whose back turn (at
            // rest at −a) the real planner, as it plans while pumping, finds a
            // flight; the best-scored amplitude wins. Pumping to that swing's own
            // energy puts the character at exactly that state at the next back turn.
            let pump_def = PlannerDef { speed: [R::ZERO, def.speed[1]], ..def };
            let mut best: Option<(R, R)> = None;
            for deg in [20, 30, 40, 50, 60, 70, 80] {
                let a = -R::from_i32(deg) * R::PI / R::from_i32(180);
                let back = SwingState { angle: a, speed: R::ZERO, ..*state };
                if let Ok(p) = planner::plan_to(&back, list, &pump_def, &mut self.rng) {
                    if best.is_none_or(|b| p.score < b.0) {
                        best = Some((p.score, energy(&back)));
                    }
                }
            }
            goal = best.map(|b| b.1);
        }
        if goal.is_none() && e != NoPlan::NoHandholdAhead {
            if let Ok(p) = planner::plan_to(state, list, &relaxed, &mut self.rng) {
                goal = Some(energy(state) + p.effort);
            }
            for deg in [45, 70, 25, 85] {
                if goal.is_some() {
                    break;
                }
                let a = -R::from_i32(deg) * R::PI / R::from_i32(180);
                let back = SwingState { angle: a, speed: R::ZERO, ..*state };
                if let Ok(p) = planner::plan_to(&back, list, &relaxed, &mut self.rng) {
                    goal = Some(energy(&back) + p.effort);
                }
            }
        }
        // Never aim below a 15° swing: the swing must keep turning forward to
        // plan again.
        let floor = -g * state.radius * R::from_f64(15.0f64.to_radians().cos());
        match goal.map(|t| t.max(floor)) {
            Some(target) if self.pump_here <= PUMP_LIMIT => {
                // Aim again once the aim is reached and still no plan is found.
                if !pumping || (energy(state) - self.pump_target).abs() < R::from_f64(0.05) {
                    self.pump_target = target;
                }
                self.pump_frames = 0;
                self.phase = Phase::Pump;
            }
            _ => {
                self.stats.no_plans += 1;
                self.phase = Phase::Stuck;
            }
        }
    }

    /// One pumping frame's energy change and, as the swing turns forward, a new plan.
    pub(super) fn pump_phase(&mut self, dt: R) -> Result<(), SinewError> {
        let Some(i) = self.holding else { return Ok(()) };
        if self.pump_here > PUMP_LIMIT {
            self.stats.no_plans += 1;
            self.phase = Phase::Stuck;
            return Ok(());
        }
        let Target { pivot: h, radius, .. } = self.target_of(i);
        let c = self.com();
        let v = self.com_velocity();
        let ang = angle_of(c - h);
        let t = Vector2::new(ang.cos(), ang.sin());
        let w = v.dot(t);
        let g = self.def.planner.gravity;
        let e = v.length_squared() * R::HALF + g * (c.y - h.y);
        // Energy is added or removed only while the centre of mass is below the handhold:
        // braking a swing over the top could leave it balanced at rest above the handhold.
        let below = c.y < h.y;
        let rate = if below { self.def.planner.max_effort * dt } else { R::ZERO };
        let de = (self.pump_target - e).clamp(-rate, rate);
        let s2 = (e + de - g * (c.y - h.y)) * R::TWO;
        let sign = if w < R::ZERO { -R::ONE } else { R::ONE };
        self.rig.world.particles_mut().set_velocity(self.rig.com, t * (s2.max(R::ZERO).sqrt() * sign))?;
        self.stats.effort += de.abs();
        self.pump_total += 1;
        self.pump_here += 1;
        self.pump_frames += 1;
        if w > R::ZERO && self.pump_frames >= 6 {
            self.pump_frames = 0;
            let v = self.com_velocity();
            let state = SwingState { handhold: h, angle: ang, speed: v.dot(t), radius };
            self.swing_start = (ang, v.length_squared() * R::HALF + g * (c.y - h.y));
            let (list, start) = self.candidates(i);
            self.try_plan(&state, &list, start, true);
        }
        Ok(())
    }
}
