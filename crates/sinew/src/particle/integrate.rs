//! The particle stages of a step: what every substep adds to each velocity, the
//! prediction (symplectic Euler), the velocity update `v = (x − x_prev)/h`, and the
//! recovery of a particle whose state went non-finite.

use super::{ALIVE, COLLIDES, KINEMATIC, ParticleSet};
use crate::dim::{BaseSpace as Space, RealOf, VecOf};
use crate::math::{Real, Vector};

/// What the prediction stage works out once per step (derived data, never saved).
#[derive(Clone, Debug, Default)]
pub(crate) struct Prediction<S: Space> {
    /// Per slot: the velocity added each substep (gravity and forces; zero for pinned,
    /// asleep and removed particles, so the substep loops need no branches).
    pub dv: Vec<VecOf<S>>,
    /// Kinematic (pinned or driven) particles.
    pub kinematic: Vec<u32>,
    /// Dynamic particles that collide (ascending).
    pub dynamic_colliding: Vec<u32>,
    /// Sleeping particles with their inverse masses, zeroed for the step.
    pub asleep: Vec<(u32, RealOf<S>)>,
    /// Per slot: belongs to a sleeping rope or group.
    pub sleeping: Vec<bool>,
    /// Per slot: extra broad-phase reach (m) — a rope span can touch colliders up to a
    /// segment away from its particles.
    pub extra_reach: Vec<RealOf<S>>,
    /// The particles that get no contacts this step (not dynamic and colliding).
    pub released: Vec<u32>,
}

impl<S: Space> Prediction<S> {
    /// Per-step particle data: the velocity each substep adds, the lists of kinematic,
    /// dynamic colliding and sleeping particles, and the start positions. `sleeping` must
    /// be filled first. The particles that get no contacts this step go to `released` (so
    /// the caller can let go of their contact anchors). Sleeping particles are
    /// made immovable for the step (constraint corrections must not nudge them awake);
    /// [`Prediction::wake_masses`] gives their masses back.
    #[inline(never)] // a stage of the step (see the note in `World::step_with`)
    pub fn prepare(&mut self, ps: &mut ParticleSet<S>, gravity: VecOf<S>, h: RealOf<S>) {
        let n = ps.pos.len();
        // The velocity change of every slot in one branch-free pass; the slots that get
        // none (removed, kinematic, asleep — few) are zeroed below.
        self.dv.clear();
        self.dv.extend(
            ps.gravity_scale.iter().zip(&ps.force).zip(&ps.inv_mass).map(|((&gs, &f), &w)| (gravity * gs + f * w) * h),
        );
        self.dv.resize(n, VecOf::<S>::ZERO);
        self.kinematic.clear();
        self.dynamic_colliding.clear();
        self.asleep.clear();
        self.released.clear();
        // Room for every slot in each list up front: a step whose lists reach a new length
        // (a body falling asleep particle by particle) allocates nothing.
        self.kinematic.reserve(n);
        self.dynamic_colliding.reserve(n);
        self.asleep.reserve(n);
        self.released.reserve(n);
        for k in 0..n {
            let flags = ps.flags[k];
            let dynamic = (flags & (ALIVE | KINEMATIC) == ALIVE) & !self.sleeping[k];
            if dynamic & (flags & COLLIDES != 0) {
                self.dynamic_colliding.push(k as u32);
                continue;
            }
            self.released.push(k as u32);
            if dynamic {
                continue;
            }
            self.dv[k] = VecOf::<S>::ZERO;
            if flags & ALIVE == 0 {
                continue;
            }
            if flags & KINEMATIC != 0 {
                self.kinematic.push(k as u32);
            } else {
                // Asleep: no gravity, no contacts, and immovable for this step.
                self.asleep.push((k as u32, ps.inv_mass[k]));
            }
        }
        for &(k, _) in &self.asleep {
            ps.inv_mass[k as usize] = RealOf::<S>::ZERO;
        }
        ps.step_start.copy_from_slice(&ps.pos);
    }

    /// End of the step: sleeping particles get their inverse masses back.
    pub fn wake_masses(&self, ps: &mut ParticleSet<S>) {
        for &(k, w) in &self.asleep {
            ps.inv_mass[k as usize] = w;
        }
    }
}

impl<S: Space> ParticleSet<S> {
    crate::math::wide::wide_phase!(
        pub(crate) fn integrate / integrate_avx2 / integrate_body(
            &mut self,
            prediction: &Prediction<S>,
            damping: RealOf<S>,
            h: RealOf<S>,
            f1: RealOf<S>,
        )
    );

    /// Symplectic Euler prediction with damping `v *= max(0, 1 − damping·h)`; kinematic
    /// particles follow their path to fraction `f1` of the step.
    #[inline(always)]
    fn integrate_body(&mut self, prediction: &Prediction<S>, damping: RealOf<S>, h: RealOf<S>, f1: RealOf<S>) {
        let keep = (RealOf::<S>::ONE - damping * h).max(RealOf::<S>::ZERO);
        // Damp the velocity carried over, not the acceleration of this substep: a body at
        // rest on a spring then settles exactly where the spring balances gravity.
        let damp = keep != RealOf::<S>::ONE;
        // Component-wise over flat slices (the same operations per component as on vectors,
        // so the same results), which the compiler turns into SIMD.
        let x = S::Vector::flat_mut(&mut self.pos);
        let xp = S::Vector::flat_mut(&mut self.prev);
        let v = S::Vector::flat_mut(&mut self.vel);
        let dv = S::Vector::flat(&prediction.dv);
        for (((x, xp), v), dv) in x.iter_mut().zip(xp.iter_mut()).zip(v.iter_mut()).zip(dv.iter()) {
            let mut vv = *v;
            if damp {
                vv *= keep;
            }
            vv += *dv;
            *v = vv;
            *xp = *x;
            *x += vv * h;
        }
        for &k in &prediction.kinematic {
            let k = k as usize;
            self.pos[k] = match self.target[k] {
                Some(t) => self.step_start[k].lerp(t, f1),
                None => self.prev[k],
            };
        }
    }

    crate::math::wide::wide_phase!(
        pub(crate) fn update_velocities / update_velocities_avx2 / update_velocities_body(
            &mut self,
            inv_h: RealOf<S>,
        )
    );

    /// `v = (x − x_prev)/h` for every slot (pinned and removed particles give 0 or their
    /// driven velocity).
    #[inline(always)]
    fn update_velocities_body(&mut self, inv_h: RealOf<S>) {
        let v = S::Vector::flat_mut(&mut self.vel);
        for ((v, x), xp) in v.iter_mut().zip(S::Vector::flat(&self.pos)).zip(S::Vector::flat(&self.prev)) {
            *v = (*x - *xp) * inv_h;
        }
    }

    crate::math::wide::wide_phase!(
        pub(crate) fn recover_non_finite / recover_non_finite_avx2 / recover_non_finite_body(
            &mut self,
            recovered: &mut Vec<u32>,
        )
    );

    /// Once per step: a particle whose state became non-finite (only possible from extreme
    /// input such as forces near the float maximum) is put back where the step started, at
    /// rest, so NaN never spreads through later steps. Its slot goes to `recovered`.
    #[inline(always)]
    fn recover_non_finite_body(&mut self, recovered: &mut Vec<u32>) {
        // The usual case, all finite, in one pass over the flat components without early
        // exits (which the compiler turns into SIMD).
        let flat = |v: &[VecOf<S>]| S::Vector::flat(v).iter().fold(true, |ok, c| ok & c.is_finite());
        if flat(&self.pos) & flat(&self.vel) {
            return;
        }
        for k in 0..self.pos.len() {
            if !(self.pos[k].is_finite() && self.vel[k].is_finite()) {
                self.pos[k] = self.step_start[k];
                self.prev[k] = self.step_start[k];
                self.vel[k] = VecOf::<S>::ZERO;
                recovered.push(k as u32);
            }
        }
    }
}
