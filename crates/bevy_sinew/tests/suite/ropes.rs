//! Ropes spawned from components: anchored ends, tension, grabbing, removal, catenary.

use bevy_math::Vec3;
use bevy_sinew::prelude::*;
use bevy_transform::components::Transform;
use sinew::Space2;

use crate::common::{STEP, app, drain, run_steps, step_count};

type S2 = Space2<f32>;

#[test]
fn a_rope_anchored_to_a_moving_entity_follows_it() {
    let mut app = app::<S2>(STEP);
    let hook = app.world_mut().spawn(Transform::from_xyz(0.0, 3.0, 0.0)).id();
    let rope = app
        .world_mut()
        .spawn(
            SinewRope::between(Vec3::new(0.0, 3.0, 0.0), Vec3::new(0.0, 1.0, 0.0))
                .segments(20)
                .attach_start(RopeAnchor::new(hook)),
        )
        .id();
    // The hook moves right at 1 m/s for 2 s, one step per frame.
    run_steps::<S2>(&mut app, 1);
    for _ in 0..128 {
        app.world_mut().get_mut::<Transform>(hook).unwrap().translation.x += STEP as f32;
        let before = step_count::<S2>(&app);
        app.update();
        assert_eq!(step_count::<S2>(&app), before + 1, "one fixed step per frame of one step");
        let start = app.world().get::<RopePoints>(rope).unwrap().current[0];
        let hook_at = app.world().get::<Transform>(hook).unwrap().translation;
        assert!(
            (start - hook_at).length() < 1e-5,
            "the anchored end is at the hook after every step: {start} vs {hook_at}"
        );
    }
    let points = &app.world().get::<RopePoints>(rope).unwrap().current;
    assert_eq!(points.len(), 21);
    let hook_x = app.world().get::<Transform>(hook).unwrap().translation.x;
    assert!((hook_x - 2.0).abs() < 1e-4);
    let end = points[20];
    assert!(end.x > 1.0 && end.x < 2.5, "the free end was dragged along behind the hook: {end}");
    let length: f32 = points.windows(2).map(|w| w[0].distance(w[1])).sum();
    assert!((length - 2.0).abs() < 0.02, "the rope keeps its length while dragged: {length}");
}

#[test]
fn a_hanging_rope_reads_its_weight_as_tension_and_reports_overload() {
    let mut app = app::<S2>(STEP);
    let def =
        |x: f32| SinewRope::between(Vec3::new(x, 3.0, 0.0), Vec3::new(x, 1.0, 0.0)).segments(20).mass(1.0).pin_start();
    let loaded = app.world_mut().spawn((def(0.0), RopeTensionLimit(5.0))).id();
    let relaxed = app.world_mut().spawn((def(1.0), RopeTensionLimit(20.0))).id();
    run_steps::<S2>(&mut app, 128);
    let sim = app.world().resource::<SinewWorld<S2>>();
    let h = sim.rope(loaded).unwrap();
    let ps = sim.world().particles();
    let below_top: f32 = sim.world().rope(h).unwrap().particles()[1..].iter().filter_map(|&p| ps.mass(p)).sum();
    let tension = app.world().get::<RopeTension>(loaded).unwrap();
    assert_eq!(tension.0.len(), 20);
    let (segment, top) = tension.max().unwrap();
    assert_eq!(segment, 0, "the top segment carries the most");
    assert!((top - below_top * 9.81).abs() < 0.01 * below_top * 9.81, "top tension {top} N = weight below it");
    let over = drain::<RopeOverTension>(&mut app);
    assert!(!over.is_empty() && over.iter().all(|m| m.rope == loaded && m.segment == 0 && m.tension > 5.0));
    assert!(over.iter().all(|m| m.rope != relaxed), "a rope under its limit sends nothing");
}

#[test]
fn a_grabbed_rope_follows_the_hand_and_flies_off_with_its_velocity() {
    let mut app = app::<S2>(STEP);
    let rope =
        app.world_mut().spawn(SinewRope::between(Vec3::new(0.0, 3.0, 0.0), Vec3::new(2.0, 3.0, 0.0)).segments(20)).id();
    run_steps::<S2>(&mut app, 1);
    let mut hand = app.world().get::<RopePoints>(rope).unwrap().current[10];
    app.world_mut().write_message(Grab::nearest(rope, hand));
    app.update();
    assert!(app.world().resource::<SinewWorld<S2>>().is_grabbed(rope));
    // The hand moves up and right at (2, 2) m/s for half a second.
    let velocity = Vec3::new(2.0, 2.0, 0.0);
    for _ in 0..32 {
        hand += velocity * STEP as f32;
        app.world_mut().write_message(MoveGrab { target: rope, hand });
        app.update();
        let held = app.world().get::<RopePoints>(rope).unwrap().current[10];
        assert!((held - hand).length() < 1e-5, "the grabbed particle is at the hand");
    }
    app.world_mut().write_message(ReleaseGrab { target: rope });
    app.update();
    let released = drain::<GrabReleased>(&mut app);
    assert_eq!(released.len(), 1);
    assert_eq!(released[0].target, rope);
    assert!(
        (released[0].velocity - velocity).length() < 1e-2,
        "thrown at the hand's velocity: {}",
        released[0].velocity
    );
    assert!(!app.world().resource::<SinewWorld<S2>>().is_grabbed(rope));
}

#[test]
fn despawning_a_rope_entity_removes_its_rope() {
    let mut app = app::<S2>(STEP);
    let rope = app.world_mut().spawn(SinewRope::between(Vec3::ZERO, Vec3::X).segments(4)).id();
    run_steps::<S2>(&mut app, 2);
    assert_eq!(app.world().resource::<SinewWorld<S2>>().world().ropes().count(), 1);
    app.world_mut().despawn(rope);
    let steps = step_count::<S2>(&app);
    run_steps::<S2>(&mut app, steps + 1);
    let sim = app.world().resource::<SinewWorld<S2>>();
    assert_eq!(sim.world().ropes().count(), 0);
    assert_eq!(sim.rope(rope), None);
}

#[test]
fn a_rope_hung_between_two_pins_sags_to_the_catenary_within_1_percent() {
    let mut app = app::<S2>(STEP);
    // Damping lets the swing die out; the rest shape does not depend on it.
    app.insert_resource(SinewSettings { damping: 2.0, ..Default::default() });
    // 3 m of rope between pins 2 m apart, laid out as a V.
    let (half_span, length) = (1.0f64, 3.0f64);
    let drop = ((length / 2.0).powi(2) - half_span * half_span).sqrt() as f32;
    let rope = app
        .world_mut()
        .spawn(
            SinewRope::along(vec![
                Vec3::new(-1.0, 3.0, 0.0),
                Vec3::new(0.0, 3.0 - drop, 0.0),
                Vec3::new(1.0, 3.0, 0.0),
            ])
            .segments(60)
            .pin_start()
            .pin_end(),
        )
        .id();
    run_steps::<S2>(&mut app, 5 * 64);
    let points = &app.world().get::<RopePoints>(rope).unwrap().current;
    let lowest = points.iter().map(|p| p.y).fold(f32::MAX, f32::min);
    let sag = 3.0 - f64::from(lowest);
    // The catenary y = a·cosh(x/a) through the pins has length 2a·sinh(d/a) = L (d the
    // half span); its sag is a·(cosh(d/a) − 1). Solve for a by bisection.
    let (mut lo, mut hi) = (0.01f64, 100.0f64);
    for _ in 0..200 {
        let a = 0.5 * (lo + hi);
        if 2.0 * a * (half_span / a).sinh() > length { lo = a } else { hi = a }
    }
    let a = 0.5 * (lo + hi);
    let expected = a * ((half_span / a).cosh() - 1.0);
    assert!((sag - expected).abs() < 0.01 * expected, "sag {sag:.4} m against the catenary's {expected:.4} m");
}

/// A pin, and a `kg` entity hung from it by a 1 m rope of 50 g laid along `points` (the
/// last point is where the entity starts).
fn hung(app: &mut bevy_app::App, points: Vec<Vec3>, kg: f32) -> (bevy_ecs::entity::Entity, bevy_ecs::entity::Entity) {
    let load = app.world_mut().spawn(Transform::from_translation(*points.last().unwrap())).id();
    let rope = app
        .world_mut()
        .spawn(SinewRope::along(points).segments(20).mass(0.05).pin_start().attach_end(RopeAnchor::dynamic(load, kg)))
        .id();
    (load, rope)
}

#[test]
fn a_10_kg_entity_on_a_rope_settles_at_the_ropes_length_below_the_pin() {
    let mut app = app::<S2>(STEP);
    app.insert_resource(SinewSettings { damping: 1.0, ..Default::default() });
    // 1 m of rope: 0.6 m across, then 0.4 m down; the load starts beside the pin.
    let pin = Vec3::new(0.0, 3.0, 0.0);
    let (load, rope) = hung(&mut app, vec![pin, Vec3::new(0.6, 3.0, 0.0), Vec3::new(0.6, 2.6, 0.0)], 10.0);
    run_steps::<S2>(&mut app, 12 * 64);
    let at = app.world().get::<Transform>(load).unwrap().translation;
    assert!((pin.y - at.y - 1.0).abs() < 0.005, "hangs 1 m below the pin (±5 mm): {} m", pin.y - at.y);
    assert!(at.x.abs() < 0.005, "straight below it: x = {}", at.x);
    let sim = app.world().resource::<SinewWorld<S2>>();
    let p = sim.body(load).expect("the load is a particle");
    assert_eq!(sim.world().particles().mass(p), Some(10.0));
    assert_eq!(
        at,
        sim.world().particles().position(p).map(|x| Vec3::new(x.x, x.y, 0.0)).unwrap(),
        "its transform is its particle"
    );
    // The rope carries its weight: top tension (10 kg + 50 g)·g, averaged over a second
    // (a step's reading in f32 wanders by about 2 % with the load's millimetre jitter).
    let mut top = 0.0;
    for step in 1..=64 {
        run_steps::<S2>(&mut app, 12 * 64 + step);
        top += app.world().get::<RopeTension>(rope).unwrap().0[0] / 64.0;
    }
    assert!((top - 10.05 * 9.81).abs() < 0.01 * 10.05 * 9.81, "top tension {top} N");
    // Despawning the rope lets go of the load: its particle leaves the world.
    app.world_mut().despawn(rope);
    let steps = step_count::<S2>(&app);
    run_steps::<S2>(&mut app, steps + 1);
    let sim = app.world().resource::<SinewWorld<S2>>();
    assert!(sim.body(load).is_none() && sim.world().particles().is_empty());
}

#[test]
fn a_10_kg_entity_on_a_rope_swings_as_a_pendulum_within_2_percent() {
    let mut app = app::<S2>(STEP);
    let (length, theta) = (1.0f64, 10f64.to_radians());
    let pin = Vec3::new(0.0, 3.0, 0.0);
    let start = pin + Vec3::new((length * theta.sin()) as f32, -(length * theta.cos()) as f32, 0.0);
    let (load, _) = hung(&mut app, vec![pin, start], 10.0);
    // Upward crossings of x = 0 (left to right), linearly interpolated in time.
    let mut crossings = Vec::new();
    let mut last_x = f64::from(start.x);
    for step in 1..=10 * 64 {
        run_steps::<S2>(&mut app, step);
        let x = f64::from(app.world().get::<Transform>(load).unwrap().translation.x);
        if last_x < 0.0 && x >= 0.0 {
            crossings.push((step as f64 - 1.0 + last_x / (last_x - x)) * STEP);
        }
        last_x = x;
    }
    assert!(crossings.len() >= 4, "it swings: {crossings:?}");
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    // 2π√(L/g), with the finite-amplitude factor 1 + θ₀²/16 (0.2 % at 10°); the rope's
    // 50 g against 10 kg changes it by under 0.05 %.
    let expected = 2.0 * std::f64::consts::PI * (length / 9.81).sqrt() * (1.0 + theta * theta / 16.0);
    assert!((period - expected).abs() < 0.02 * expected, "period {period:.4} s against {expected:.4} s");
}

#[test]
fn a_rope_carrying_an_entity_despawned_after_a_snapshot_carries_it_again_on_restore() {
    let pin = Vec3::new(0.0, 3.0, 0.0);
    let build = || {
        let mut app = app::<S2>(STEP);
        let (load, rope) = hung(&mut app, vec![pin, Vec3::new(0.5, 3.0, 0.0), Vec3::new(0.5, 2.5, 0.0)], 10.0);
        (app, load, rope)
    };
    let (mut untouched, untouched_load, _) = build();
    run_steps::<S2>(&mut untouched, 80);
    let (mut app, load, rope) = build();
    run_steps::<S2>(&mut app, 30);
    let snapshot = app.world().resource::<SinewWorld<S2>>().snapshot();
    app.world_mut().despawn(rope);
    run_steps::<S2>(&mut app, 40);
    assert!(app.world().resource::<SinewWorld<S2>>().body(load).is_none(), "let go");
    app.world_mut().resource_mut::<SinewWorld<S2>>().restore(&snapshot);
    run_steps::<S2>(&mut app, 80);
    let sim = app.world().resource::<SinewWorld<S2>>();
    assert_eq!(sim.state_hash(), untouched.world().resource::<SinewWorld<S2>>().state_hash());
    assert!(sim.body(load).is_some(), "carried again");
    assert_eq!(
        app.world().get::<Transform>(load).unwrap().translation,
        untouched.world().get::<Transform>(untouched_load).unwrap().translation,
        "and written back"
    );
}

#[test]
fn a_rope_that_cannot_spawn_leaves_no_anchor_particle_behind() {
    let mut app = app::<S2>(STEP);
    let load = app.world_mut().spawn(Transform::from_xyz(0.0, 2.0, 0.0)).id();
    // Both ends on one entity: the library refuses the same particle at both ends.
    let both = RopeAnchor::dynamic(load, 1.0);
    let rope = app.world_mut().spawn(SinewRope::between(Vec3::ZERO, Vec3::X).attach_start(both).attach_end(both)).id();
    run_steps::<S2>(&mut app, 2);
    let sim = app.world().resource::<SinewWorld<S2>>();
    assert_eq!(sim.rope(rope), None, "logged, not spawned");
    assert!(sim.body(load).is_none() && sim.world().particles().is_empty(), "and nothing left in the world");
    assert!(app.world().get::<SimulatedPosition>(load).is_none());
}
