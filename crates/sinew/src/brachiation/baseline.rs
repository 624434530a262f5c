//! The sine-wave baseline run on a course: the character's centre of mass follows
//! [`super::sine::SineSwing`] segments kinematically, handhold to handhold, each transfer
//! recorded as a grab (its energy kept and velocity jump are the baseline's figures).

use super::character::{Brachiator, GrabRecord, Phase};
use super::sine::{self, SineSwing};
use crate::SinewError;
use crate::math::{Real, Vector};

impl<R: Real> Brachiator<R> {
    pub(super) fn sine_segment(&self, k: usize) -> SineSwing<R> {
        let l = self.def.planner.arm;
        let v = (self.def.planner.speed[0] + self.def.planner.speed[1]) * R::HALF;
        let hs = &self.course.handholds;
        let amp = |i: usize| {
            let dx = match (hs.get(i), hs.get(i + 1)) {
                (Some(a), Some(b)) => b.position.x - a.position.x,
                _ => l,
            };
            sine::amplitude(dx, l)
        };
        let next = hs.get(k + 1).map(|h| (h.position, amp(k + 1)));
        SineSwing::new(hs[k].position, amp(k), next, l, v)
    }

    pub(super) fn place_sine(&mut self) -> Result<(), SinewError> {
        if let Some((seg, t)) = self.sine {
            let (p, v, leaping) = seg.sample(t);
            self.rig.place(p, v)?;
            if leaping {
                self.holding = None;
            }
        }
        Ok(())
    }

    pub(super) fn step_sine(&mut self, dt: R) -> Result<(), SinewError> {
        let Some((seg, t)) = self.sine else { return Ok(()) };
        let k = self.holding.or(self.target.map(|t| t.saturating_sub(1))).unwrap_or(0);
        let mut t = t + dt;
        self.time += dt;
        let (_, _, leaping) = seg.sample(t.min(seg.duration()));
        let next = k + 1;
        self.target = (next < self.course.handholds.len()).then_some(next);
        if leaping {
            self.holding = None;
        }
        if t >= seg.duration() {
            let Some(n) = self.target else {
                self.phase = Phase::Finished;
                self.sine = Some((seg, seg.duration()));
                return self.place_sine();
            };
            let (pe, ve, _) = seg.sample(seg.duration());
            let nseg = self.sine_segment(n);
            t -= seg.duration();
            let (_, v0, _) = nseg.sample(R::ZERO);
            let hpos = self.course.handholds[n].position;
            let dist = (hpos - pe).length();
            let l = self.def.planner.arm;
            let ke0 = ve.length_squared();
            let rec = GrabRecord {
                time: self.time - t,
                index: n,
                handhold: hpos,
                hand: hpos,
                hand_error: (dist - l).max(R::ZERO),
                energy_kept: if ke0 > R::ZERO { v0.length_squared() / ke0 } else { R::ONE },
                com_velocity_jump: (v0 - ve).length(),
                speed: ve.length(),
            };
            self.record(rec);
            self.holding = Some(n);
            self.hand ^= 1;
            self.target = (n + 1 < self.course.handholds.len()).then_some(n + 1);
            self.sine = Some((nseg, t.min(nseg.duration())));
        } else {
            self.sine = Some((seg, t));
        }
        self.place_sine()
    }
}
