//! Constraint behaviour beyond the headline physics tests: drive and release, attachments,
//! joint limits, bending, and rejection of bad input.

use sinew::prelude::*;
use sinew::{DVec2, DVec3, Vec2, World};

#[test]
fn driven_particle_follows_keys_and_is_thrown_on_release() {
    let mut w = World2d::new(WorldDef::default()).unwrap();
    let p = w.add_particle(&ParticleDef::at(DVec2::new(0.0, 0.0))).unwrap();
    let keys = vec![(0.0, DVec2::new(0.0, 0.0)), (0.5, DVec2::new(1.0, 1.0))];
    w.add_driver(&DriverDef::new(p, keys).release_at_end(1.0)).unwrap();
    for _ in 0..15 {
        w.step(1.0 / 60.0).unwrap();
    }
    // Mid-path at t = 0.25 s, exactly on the line, moving at the path speed.
    let x = w.particles().position(p).unwrap();
    assert!((x - DVec2::new(0.5, 0.5)).length() < 1e-9, "{x:?}");
    let v = w.particles().velocity(p).unwrap();
    assert!((v - DVec2::new(2.0, 2.0)).length() < 1e-9, "{v:?}");
    for _ in 15..30 {
        w.step(1.0 / 60.0).unwrap();
    }
    // Released at t = 0.5 s with (2, 2) m/s; then ballistic for 0.5 s.
    for _ in 0..30 {
        w.step(1.0 / 60.0).unwrap();
    }
    let x = w.particles().position(p).unwrap();
    let expected = DVec2::new(1.0 + 2.0 * 0.5, 1.0 + 2.0 * 0.5 - 0.5 * 9.81 * 0.25);
    assert!((x - expected).length() < 0.02, "{x:?} vs {expected:?}");
    assert!(!w.particles().is_kinematic(p));
}

#[test]
fn attachment_force_reads_the_weight_it_holds() {
    let mut w = World2d::new(WorldDef::default().damping(2.0)).unwrap();
    let p = w.add_particle(&ParticleDef::at(DVec2::new(0.0, 0.0)).mass(3.0)).unwrap();
    let a = w.add_attachment(&AttachmentDef::new(p, DVec2::new(0.0, 0.0))).unwrap();
    for _ in 0..120 {
        w.step(1.0 / 60.0).unwrap();
    }
    let f = w.attachment_force(a).unwrap();
    assert!((f.y.abs() - 3.0 * 9.81).abs() < 1e-6 * 30.0, "{f:?}");
    assert!(w.particles().position(p).unwrap().length() < 1e-9);
}

#[test]
fn angle_limits_hold_a_2d_chain_under_gravity() {
    let mut w = World2d::new(WorldDef::default()).unwrap();
    let mut hs = Vec::new();
    for i in 0..6 {
        let m = if i < 2 { 0.0 } else { 1.0 };
        hs.push(w.add_particle(&ParticleDef::at(DVec2::new(i as f64 * 0.3, 0.0)).mass(m)).unwrap());
    }
    for i in 0..5 {
        w.add_distance(&DistanceDef::new(hs[i], hs[i + 1])).unwrap();
    }
    let limit = 20f64.to_radians();
    for i in 0..4 {
        w.add_joint_limit(&{
            let mut d = AngleLimitDef::new(hs[i], hs[i + 1], hs[i + 2], -limit, limit);
            d.compliance = 0.0;
            d
        })
        .unwrap();
    }
    let mut worst: f64 = 0.0;
    for _ in 0..300 {
        w.step(1.0 / 60.0).unwrap();
        worst = worst.max(w.max_joint_violation());
    }
    // A free chain would hang straight down (90° at the first joint); the limits keep
    // every joint within 20°, beyond it by at most the 2° the ragdoll requirements allow
    // (Gauss–Seidel residual while gravity, links and limits compete each substep).
    assert!(worst < 2f64.to_radians(), "worst violation {}°", worst.to_degrees());
    let tip = w.particles().position(hs[5]).unwrap();
    assert!(tip.y < -0.3, "chain should sag within its limits: {tip:?}");
}

/// A joint folded past ±π is brought back to the nearer end of its range, round the fold,
/// not the long way through straight: an elbow limited to [0°, 150°] and folded to 190°
/// (θ reads −170°) is projected to 150° (one substep of 10 iterations, which converge the
/// linearised projection), its hand moving 40° of arc; the mirror, [−150°, 0°] folded to
/// 170°, to −150°. Before the nearer-end rule, the projection turned the first 170° to 0°
/// (a forearm swung 0.6 m in one substep in the 1000-ragdoll rain).
#[test]
fn a_joint_folded_past_its_limit_goes_back_round_the_fold() {
    // (range in degrees, folded to, where the hand must end): past `max` across +π, and
    // the mirror, past `min` across −π.
    for (min, max, fold, end) in [(0.0f64, 150.0f64, 190.0, 150.0), (-150.0, 0.0, 170.0, -150.0)] {
        let def = WorldDef::default().gravity(DVec2::ZERO).substeps(1).iterations(10);
        let mut w = World2d::new(def).unwrap();
        let a = w.add_particle(&ParticleDef::at(DVec2::new(-1.0, 0.0)).mass(0.0)).unwrap();
        let b = w.add_particle(&ParticleDef::at(DVec2::new(0.0, 0.0)).mass(0.0)).unwrap();
        let f = f64::to_radians(fold);
        let c = w.add_particle(&ParticleDef::at(DVec2::new(f.cos(), f.sin()))).unwrap();
        w.add_distance(&DistanceDef::new(b, c)).unwrap();
        w.add_joint_limit(&AngleLimitDef::new(a, b, c, min.to_radians(), max.to_radians())).unwrap();
        w.step(1e-4).unwrap();
        let x = w.particles().position(c).unwrap();
        let angle = x.y.atan2(x.x).to_degrees();
        assert!((angle - end).abs() < 0.5, "range [{min}, {max}]°, folded to {fold}°: the hand at {angle:.2}°");
    }
}

#[test]
fn swing_cone_and_twist_limits_hold_in_3d() {
    let mut w = World3d::new(WorldDef::default().gravity(DVec3::new(0.0, -9.81, 0.0))).unwrap();
    // Parent bone a→b pinned horizontally, child bone b→c free with a reference particle.
    let a = w.add_particle(&ParticleDef::at(DVec3::new(-1.0, 0.0, 0.0)).mass(0.0)).unwrap();
    let b = w.add_particle(&ParticleDef::at(DVec3::new(0.0, 0.0, 0.0)).mass(0.0)).unwrap();
    let rp = w.add_particle(&ParticleDef::at(DVec3::new(0.0, 0.0, 0.3)).mass(0.0)).unwrap();
    let c = w.add_particle(&ParticleDef::at(DVec3::new(1.0, 0.0, 0.0))).unwrap();
    let rc = w.add_particle(&ParticleDef::at(DVec3::new(0.5, 0.0, 0.3)).mass(0.2)).unwrap();
    w.add_distance(&DistanceDef::new(b, c)).unwrap();
    w.add_distance(&DistanceDef::new(b, rc)).unwrap();
    w.add_distance(&DistanceDef::new(c, rc)).unwrap();
    // Twist the child reference hard.
    w.particles_mut().set_velocity(rc, DVec3::new(0.0, -6.0, -3.0)).unwrap();
    let cone = 30f64.to_radians();
    let tw = 15f64.to_radians();
    w.add_joint_limit(&{
        let mut d = SwingTwistLimitDef::new(a, b, c, cone);
        d.parent_ref = Some(rp);
        d.child_ref = Some(rc);
        d.twist_min = -tw;
        d.twist_max = tw;
        d.compliance = 0.0;
        d
    })
    .unwrap();
    let mut worst: f64 = 0.0;
    for _ in 0..240 {
        w.step(1.0 / 60.0).unwrap();
        worst = worst.max(w.max_joint_violation());
    }
    assert!(worst < 2f64.to_radians(), "worst violation {}°", worst.to_degrees());
    let ps = w.particles();
    let swing =
        sinew::SwingTwistLimit::swing(ps.position(a).unwrap(), ps.position(b).unwrap(), ps.position(c).unwrap());
    assert!(swing > cone - 2f64.to_radians(), "gravity should pull the child to the cone edge: {}", swing.to_degrees());
}

#[test]
fn bad_input_is_rejected_not_propagated() {
    let mut w = World2d::new(WorldDef::default()).unwrap();
    assert!(w.add_particle(&ParticleDef::at(DVec2::new(f64::NAN, 0.0))).is_err());
    assert!(w.add_particle(&ParticleDef::at(DVec2::new(0.0, 0.0)).mass(-1.0)).is_err());
    assert!(w.add_particle(&ParticleDef::at(DVec2::new(0.0, 0.0)).radius(f64::INFINITY)).is_err());
    let p = w.add_particle(&ParticleDef::at(DVec2::new(0.0, 0.0))).unwrap();
    assert!(w.particles_mut().apply_force(p, DVec2::new(f64::NAN, 0.0)).is_err());
    assert!(w.particles_mut().set_velocity(p, DVec2::new(0.0, f64::INFINITY)).is_err());
    assert!(w.add_distance(&DistanceDef::new(p, p)).is_err());
    assert!(Shape::<Space2<f64>>::half_space(DVec2::new(0.0, 0.0), 1.0).is_err());
    assert!(Shape::<Space2<f64>>::ball(0.0).is_err());
    assert!(Shape::<Space2<f64>>::cuboid(DVec2::new(1.0, -1.0)).is_err());
    assert!(Shape::<Space3<f64>>::capsule(DVec3::new(0.0, 0.0, 0.0), DVec3::new(1.0, 0.0, 0.0), f64::NAN).is_err());
    assert_eq!(w.step(0.0), Err(SinewError::InvalidTimeStep { dt: 0.0 }));
    assert_eq!(w.step(-1.0), Err(SinewError::InvalidTimeStep { dt: -1.0 }));
    assert!(matches!(w.step(f64::NAN), Err(SinewError::InvalidTimeStep { dt }) if dt.is_nan()));
    // Errors name the value and the handle.
    let e = w.add_particle(&ParticleDef::at(DVec2::ZERO).mass(-2.0)).unwrap_err();
    assert_eq!(
        e,
        SinewError::InvalidParameter { what: "particle mass", reason: "must be finite and ≥ 0", value: Some(-2.0) }
    );
    assert_eq!(e.to_string(), "invalid particle mass -2: must be finite and ≥ 0");
    let gone = w.add_particle(&ParticleDef::at(DVec2::ZERO)).unwrap();
    w.remove_particle(gone).unwrap();
    let e = w.add_distance(&DistanceDef::new(p, gone)).unwrap_err();
    assert_eq!(e, SinewError::InvalidHandle { what: "particle", handle: Some(gone.0) });
    assert!(e.to_string().starts_with(&format!("particle handle {}v0 ", gone.index())), "{e}");
    assert!(World2d::new(WorldDef::default().substeps(0)).is_err());
    assert!(World2d::new(WorldDef::default().restitution(2.0)).is_err());
    for plane_reuse in [-0.001, f64::NAN, f64::INFINITY] {
        assert!(World2d::new(WorldDef::default().plane_reuse(plane_reuse)).is_err(), "{plane_reuse}");
    }
    // An absurd step is clamped and reported, not exploded.
    let report = w.step(1e6).unwrap();
    assert!(report.clamped_dt);
    assert!(w.particles().position(p).unwrap().is_finite());
    // A removed particle's handle is stale.
    w.remove_particle(p).unwrap();
    assert!(w.particles().position(p).is_none());
    assert!(w.particles_mut().set_position(p, DVec2::new(0.0, 0.0)).is_err());
    let q = w.add_particle(&ParticleDef::at(DVec2::new(1.0, 0.0))).unwrap();
    assert_eq!(q.index(), p.index(), "slot reused");
    assert!(w.particles().position(p).is_none(), "old handle must not alias the new particle");
}

#[test]
fn enormous_forces_do_not_spread_nan() {
    let mut w = World2::new(WorldDef::default()).unwrap();
    let a = w.add_particle(&ParticleDef::at(Vec2::new(0.0, 0.0)).mass(0.0)).unwrap();
    let b = w.add_particle(&ParticleDef::at(Vec2::new(1.0, 0.0))).unwrap();
    let c = w.add_particle(&ParticleDef::at(Vec2::new(2.0, 0.0))).unwrap();
    w.add_distance(&DistanceDef::new(a, b)).unwrap();
    w.add_distance(&DistanceDef::new(b, c)).unwrap();
    // A force the number type cannot add (its acceleration's square overflows f32) is
    // refused, and changes nothing ...
    let e = w.particles_mut().apply_force(c, Vec2::new(f32::MAX, f32::MAX)).unwrap_err();
    assert!(e.to_string().contains("too large"), "{e}");
    // ... and the largest it takes does not spread NaN through the constraints.
    w.particles_mut().apply_force(c, Vec2::new(1e18, 1e18)).unwrap();
    w.step(1.0 / 60.0).unwrap();
    for h in [a, b, c] {
        assert!(w.particles().position(h).unwrap().is_finite());
        assert!(w.particles().velocity(h).unwrap().is_finite());
    }
}

#[test]
fn relative_driver_grabs_where_the_particle_is_and_moves_it_by_the_key_offsets() {
    let mut w = World2d::new(WorldDef::default()).unwrap();
    let p = w.add_particle(&ParticleDef::at(DVec2::new(3.0, 5.0))).unwrap();
    let keys = vec![(0.5, DVec2::new(0.0, 0.0)), (1.0, DVec2::new(0.0, 1.0))];
    w.add_driver(&{
        let mut d = DriverDef::new(p, keys);
        d.release = false;
        d.release_mass = 1.0;
        d.relative = true;
        d
    })
    .unwrap();
    for _ in 0..30 {
        w.step(1.0 / 60.0).unwrap();
    }
    // Free fall until the grab at 0.5 s ...
    let grabbed = w.particles().position(p).unwrap();
    assert!(grabbed.y < 5.0 - 1.0, "fell before the grab: {grabbed:?}");
    for _ in 30..60 {
        w.step(1.0 / 60.0).unwrap();
    }
    // ... then lifted 1 m from where it was caught.
    let x = w.particles().position(p).unwrap();
    assert!((x - (grabbed + DVec2::new(0.0, 1.0))).length() < 0.05, "{x:?} vs {grabbed:?}");
    assert!(w.particles().is_kinematic(p));
}

/// The sequential order interleaves constraint groups that share no particle (see
/// `ConstraintOrder::Sequential`); that must change no result. Six ragdolls (bones and
/// joint limits) thrown together onto a ground, against each one alone in its own world:
/// the same positions, bit for bit, every frame — in f32, where a reordering of dependent
/// projections would show at once.
#[test]
fn interleaved_constraint_groups_move_bit_for_bit_as_they_would_alone() {
    use sinew::math::Vector2;
    use sinew::ragdoll::{Ragdoll, presets};
    type V = Vector2<f32>;
    type S = Space2<f32>;
    let rig = presets::humanoid16::<f32>();
    let world = || {
        let mut w = World::<Space2<f32>>::new(WorldDef::default().friction(0.5)).unwrap();
        w.add_collider(&ColliderDef::new(Shape::half_space(V::new(0.0, 1.0), 0.0).unwrap())).unwrap();
        w
    };
    let launch =
        |i: usize| (V::new(i as f32 * 0.9, 1.5 + 0.3 * i as f32), V::new(4.0 - i as f32, 2.0 - 0.7 * i as f32));
    let mut together = world();
    let all: Vec<Ragdoll<S>> = (0..6)
        .map(|i| {
            let (at, v) = launch(i);
            Ragdoll::spawn(&mut together, &rig, at, 1.0, v).unwrap()
        })
        .collect();
    let mut alone: Vec<(World<S>, Ragdoll<S>)> = (0..6)
        .map(|i| {
            let mut w = world();
            let (at, v) = launch(i);
            let r = Ragdoll::spawn(&mut w, &rig, at, 1.0, v).unwrap();
            (w, r)
        })
        .collect();
    let pos = |w: &World<S>, r: &Ragdoll<S>| -> Vec<V> {
        r.nodes().iter().map(|&p| w.particles().position(p).unwrap()).collect()
    };
    let mut moved = 0.0f32;
    for frame in 0..120 {
        together.step(1.0 / 60.0).unwrap();
        for (i, (w, r)) in alone.iter_mut().enumerate() {
            w.step(1.0 / 60.0).unwrap();
            assert!(pos(&together, &all[i]) == pos(w, r), "frame {frame}: ragdoll {i} differs");
        }
        moved = moved.max((pos(&together, &all[0])[0] - launch(0).0).length());
    }
    assert!(moved > 0.5, "the ragdolls hardly moved: {moved} m");
}
