//! The world's saved state: one value holding everything a step reads that it does not
//! rebuild (see [`crate::state`] for what that buys).

use super::def::WorldDef;
use crate::arena::Arena;
use crate::collider::Collider;
use crate::constraint::{Attachment, Bending, Distance, Tether};
use crate::contact::anchors::ContactAnchors;
use crate::contact::bodies::BodyState;
use crate::contact::bounce::BodyImpacts;
use crate::controller::Controller;
use crate::driver::KeyframeDriver;
use crate::math::Real;
use crate::particle::ParticleSet;
use crate::rope::Rope;
use crate::sleep::SleepGroup;
use crate::space::{RealOf, Space};
use crate::state::{SavedState, StateHasher, saved_state};

/// Everything a world's next step depends on. A snapshot is a copy of it; the state hash
/// walks all of it; restore puts it back and rebuilds the rest.
///
/// A field added here must be added to the `saved_state!` list below, or the crate does
/// not compile: nothing can be left out of snapshots or the hash by forgetting it.
#[derive(Clone, Debug)]
pub(crate) struct WorldState<S: Space> {
    /// Settings.
    pub def: WorldDef<S>,
    /// Particles: positions, velocities, masses, pins, forces, targets, filters, slots.
    pub particles: ParticleSet<S>,
    /// Per particle slot: its contact anchor (which steps gather collider pairs afresh).
    pub anchors: ContactAnchors<S>,
    /// Bodies (who collides with whom in body contacts); hashed only while those are on.
    pub bodies: BodyState,
    /// Colliders, with their poses at the start of the step (which give their velocity).
    pub colliders: Arena<Collider<S>>,
    pub distances: Arena<Distance<RealOf<S>>>,
    pub tethers: Arena<Tether<RealOf<S>>>,
    pub bendings: Arena<Bending<RealOf<S>>>,
    pub attachments: Arena<Attachment<S>>,
    pub limits: Arena<S::JointLimit>,
    /// Keyframe drivers and their progress.
    pub drivers: Arena<KeyframeDriver<S>>,
    /// Ropes: rest lengths, multipliers, material, sleep.
    pub ropes: Arena<Rope<S>>,
    pub sleep_groups: Arena<SleepGroup>,
    /// Controllers (muscle ragdolls, drives, planners), in the order they act.
    pub controllers: Arena<Box<dyn Controller<S>>>,
    /// Simulated time (s), summed with [`ClockCarry`]'s compensation.
    pub time: RealOf<S>,
    /// What the clock's sum has rounded away so far.
    pub time_carry: ClockCarry<RealOf<S>>,
    /// Steps taken.
    pub step_count: u64,
    /// Substep length of the last step (force read-outs: `λ/h²`).
    pub last_h: RealOf<S>,
    /// Whole-body impacts in progress (see [`crate::contact::bounce`]); hashed only when any.
    pub impacts: BodyImpacts<S>,
}

saved_state!(impl[S: Space] WorldState<S> {
    def, particles, anchors, bodies, colliders, distances, tethers, bendings, attachments, limits, drivers, ropes,
    sleep_groups, controllers, time, time_carry, step_count, last_h, impacts,
});

/// The rounding error of the world's clock not yet added back (Kahan's compensated
/// summation): `time += dt` in `f32` drifted 2 s over 10⁵ steps of 1/60 s (1668.66 s for
/// 1666.67 s); compensated, it stays within one rounding of the exact sum of the steps
/// taken. Always 0 in fixed point, whose sums are exact. Hashed only when non-zero, so a
/// fixed-point world's state hash is what it was with a plain clock.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct ClockCarry<R>(pub R);

impl<R: Real> ClockCarry<R> {
    /// `time + dt`, compensated; the new carry is kept.
    pub fn add(&mut self, time: R, dt: R) -> R {
        let y = dt - self.0;
        let t = time + y;
        self.0 = (t - time) - y;
        t
    }
}

impl<R: Real> SavedState for ClockCarry<R> {
    fn hash_state(&self, h: &mut StateHasher) {
        if self.0 != R::ZERO {
            h.write(&self.0);
        }
    }
}

impl<S: Space> WorldState<S> {
    /// An empty world with settings `def`.
    pub fn new(def: WorldDef<S>) -> Self {
        Self {
            def,
            particles: ParticleSet::default(),
            anchors: ContactAnchors::default(),
            bodies: BodyState { enabled: def.body_contacts, ..BodyState::default() },
            colliders: Arena::default(),
            distances: Arena::default(),
            tethers: Arena::default(),
            bendings: Arena::default(),
            attachments: Arena::default(),
            limits: Arena::default(),
            drivers: Arena::default(),
            ropes: Arena::default(),
            sleep_groups: Arena::default(),
            controllers: Arena::default(),
            time: RealOf::<S>::ZERO,
            time_carry: ClockCarry::default(),
            step_count: 0,
            last_h: RealOf::<S>::ZERO,
            impacts: BodyImpacts::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::WorldState;
    use crate::collider::{ColliderDef, Shape};
    use crate::constraint::{AngleLimitDef, AttachmentDef, BendingDef, DistanceDef, TetherDef};
    use crate::driver::DriverDef;
    use crate::math::{Fx, Rot2, Rotation, Vector2};
    use crate::particle::ParticleDef;
    use crate::ragdoll::{MuscleRagdoll, MuscleRagdollDef, SpawnDef, presets};
    use crate::rope::RopeDef;
    use crate::space::Space2;
    use crate::world::{World, WorldDef};

    type W = World<Space2<Fx>>;

    fn x(a: f64, b: f64) -> Vector2<Fx> {
        Vector2::from_f64(a, b)
    }

    /// A world with something in every part of its state.
    fn rich_world() -> W {
        let mut w = W::new(WorldDef::default().friction(Fx::from_f64(0.5)).body_contacts(true)).unwrap();
        w.add_collider(&ColliderDef::new(Shape::half_space(x(0.0, 1.0), Fx::ZERO).unwrap())).unwrap();
        let paddle =
            w.add_collider(&ColliderDef::new(Shape::cuboid(x(0.3, 0.05)).unwrap()).position(x(3.0, 0.5))).unwrap();
        let p: Vec<_> = (0..5)
            .map(|i| {
                w.add_particle(&ParticleDef::at(x(-3.0 + 0.2 * f64::from(i), 1.0)).radius(Fx::from_f64(0.02))).unwrap()
            })
            .collect();
        w.add_distance(&DistanceDef::new(p[0], p[1])).unwrap();
        w.add_tether(&TetherDef::new(p[1], p[2])).unwrap();
        w.add_bending(&BendingDef::new(p[1], p[2], p[3])).unwrap();
        w.add_attachment(&AttachmentDef::new(p[3], x(-2.0, 2.0))).unwrap();
        w.add_joint_limit(&AngleLimitDef::new(p[0], p[1], p[2], Fx::from_f64(-0.5), Fx::from_f64(0.5))).unwrap();
        w.add_driver(&DriverDef::new(p[4], vec![(Fx::ZERO, x(-2.0, 1.0)), (Fx::ONE, x(-1.0, 1.5))])).unwrap();
        w.add_rope(&RopeDef::between(x(0.0, 1.0), x(1.0, 1.0)).segments(10)).unwrap();
        w.add_sleep_group(&p[..2]).unwrap();
        let rig = presets::humanoid16_stabilised::<Fx>();
        let pose = presets::humanoid16_poses::<Fx>()[0].1.transformed(x(-6.0, 0.0), Rot2::IDENTITY, Fx::ONE);
        MuscleRagdoll::spawn(
            &mut w,
            &rig,
            &MuscleRagdollDef::default(),
            &presets::humanoid16_targets(),
            &SpawnDef::at_rest(pose),
        )
        .unwrap();
        for f in 0..20 {
            w.set_collider_pose(paddle, x(3.0, 0.5), Rot2::from_angle(Fx::from_f64(0.05 * f64::from(f)))).unwrap();
            w.step(Fx::from_f64(1.0 / 60.0)).unwrap();
        }
        w
    }

    /// Changes field `field` of the state (in declaration order) a little; false past the
    /// last. The destructuring is exhaustive: a field added to [`WorldState`] does not
    /// compile here until it is given a change (and so a check below).
    fn perturb(st: &mut WorldState<Space2<Fx>>, field: usize) -> bool {
        let WorldState {
            def,
            particles,
            anchors,
            bodies,
            colliders,
            distances,
            tethers,
            bendings,
            attachments,
            limits,
            drivers,
            ropes,
            sleep_groups,
            controllers,
            time,
            time_carry,
            step_count,
            last_h,
            impacts,
        } = st;
        let ulp = Fx::from_bits(1);
        let first = |n: usize| n; // (the first live slot of each arena is slot 0 here)
        match field {
            0 => def.plane_reuse += ulp,
            1 => particles.vel[first(3)].x += ulp,
            2 => anchors.info[first(3)].region += ulp,
            3 => bodies.next += 1,
            4 => colliders.values[first(1)].as_mut().unwrap().prev_position.y += ulp,
            5 => distances.values[first(0)].as_mut().unwrap().lambda += ulp,
            6 => tethers.values[first(0)].as_mut().unwrap().length += ulp,
            7 => bendings.values[first(0)].as_mut().unwrap().lambda += ulp,
            8 => attachments.values[first(0)].as_mut().unwrap().lambda.x += ulp,
            9 => limits.values[first(0)].as_mut().unwrap().lambda += ulp,
            10 => drivers.values[first(0)].as_mut().unwrap().release = true,
            11 => ropes.values[first(0)].as_mut().unwrap().lambda[4] += ulp,
            12 => sleep_groups.values[first(0)].as_mut().unwrap().sleep.calm_steps += 1,
            13 => {
                let m = controllers.values[first(0)].as_mut().unwrap();
                let m = m.as_any_mut().downcast_mut::<MuscleRagdoll<Space2<Fx>>>().unwrap();
                m.select_preset(1).unwrap();
            }
            14 => *time += ulp,
            15 => time_carry.0 += ulp,
            16 => *step_count += 1,
            17 => *last_h += ulp,
            18 => impacts.0.push(crate::contact::bounce::BodyImpact {
                key: 0,
                v_in: Vector2::new(Fx::ZERO, Fx::ZERO),
                v_surface: Vector2::new(Fx::ZERO, Fx::ZERO),
                normal: Vector2::new(Fx::ZERO, Fx::ZERO),
                e: Fx::ZERO,
                energy: Fx::ZERO,
                age: 0,
            }),
            _ => return false,
        }
        true
    }

    /// Two worlds that differ in one field of the saved state only hash differently, and
    /// restoring the first's snapshot into the second makes them equal again — for every
    /// field. Fails (or does not compile) if a field of the state is left out of the
    /// snapshot or the hash.
    #[test]
    fn every_field_of_the_saved_state_is_in_the_snapshot_and_the_hash() {
        let w = rich_world();
        let (snap, h0) = (w.snapshot(), w.state_hash());
        let mut fields = 0;
        loop {
            let mut other = w.clone();
            if !perturb(&mut other.state, fields) {
                break;
            }
            assert_ne!(other.state_hash(), h0, "field {fields} of the state is not in the hash");
            other.restore(&snap);
            assert_eq!(other.state_hash(), h0, "field {fields} of the state is not restored");
            fields += 1;
        }
        assert_eq!(fields, 19, "every field of WorldState has a check");
        // And restored, it steps as the original does.
        let (mut a, mut b) = (w.clone(), w);
        let mut c = a.clone();
        perturb(&mut c.state, 13);
        c.restore(&snap);
        for _ in 0..30 {
            a.step(Fx::from_f64(1.0 / 60.0)).unwrap();
            b.step(Fx::from_f64(1.0 / 60.0)).unwrap();
            c.step(Fx::from_f64(1.0 / 60.0)).unwrap();
        }
        assert_eq!(a.state_hash(), b.state_hash());
        assert_eq!(c.state_hash(), b.state_hash());
    }
}
