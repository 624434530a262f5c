//! Hello, rope: a 2D rope with a 5 kg weight hanging from a hook, stepped at a fixed 60 Hz
//! by a game that renders at 144 Hz. It reads the tension of the top segment in newtons
//! (the weight of everything below it), then a hand grabs the rope in the middle, takes it
//! off the hook, swings it and lets go: the rope flies (its centre of mass on a parabola)
//! and lands on the ground.
//!
//! ```sh
//! cargo run --release -p sinew --example hello_rope
//! ```

use sinew::prelude::*;

/// The game's frame time: it renders at 144 Hz; physics steps at 60 Hz whatever that is.
const FRAME: f32 = 1.0 / 144.0;
const DT: f32 = 1.0 / 60.0;
const G: f32 = 9.81;

fn main() -> Result<(), SinewError> {
    // A 2D world in f32 (8 substeps × 1 iteration by default) with friction, over the ground.
    let mut world = World2::new(WorldDef::default().friction(0.6))?;
    world.add_collider(&ColliderDef::new(Shape::half_space(Vector2::new(0.0, 1.0), 0.0)?))?;

    // A 2 m, 200 g rope of 40 segments hanging from a hook at 3 m; its end particle is the
    // 5 kg weight.
    let def = RopeDef::between(Vector2::new(0.0, 3.0), Vector2::new(0.0, 1.0)).segments(40).mass(0.2).pin_start();
    let rope = world.add_rope(&def)?;
    let (hook, weight) = (world.rope(rope)?.start(), world.rope(rope)?.end());
    world.particles_mut().set_mass(weight, 5.0)?;

    // Hang for 2 s.
    let mut stepper = FixedStepper::new(DT, 4);
    while world.time() < 2.0 {
        frame(&mut world, &mut stepper, |_| Ok(()))?;
    }

    // The top segment holds every particle below the hook: (rope + weight)·g.
    let hanging: f32 = world.rope(rope)?.particles()[1..].iter().filter_map(|&p| world.particles().mass(p)).sum();
    let top = world.rope_tension(rope, 0)?;
    println!("top segment: {top:.2} N; (rope + weight)·g = {hanging:.3} kg × {G} = {:.2} N", hanging * G);
    assert!((top - hanging * G).abs() < 0.01 * hanging * G, "the top segment carries the load");

    // A hand grabs the rope in the middle (1 m along it) and takes it off the hook.
    let hand = world.grab_rope(rope, RopePoint::ArcLength(1.0))?;
    world.release_particle(hook)?;
    let grip = world.particles().position(hand).expect("a live particle");
    // It swings forward and up for 0.4 s, speeding up at 15 m/s², and lets go. A game
    // sets a driven particle's target before every fixed step, for the end of that step:
    // the particle moves there smoothly, substep by substep.
    let (swing_start, swing) = (world.time(), 0.4);
    let path = |t: f32| grip + Vector2::new(1.0, 1.0).normalize_or_zero() * (7.5 * t * t);
    while world.time() < swing_start + swing - 1e-4 {
        frame(&mut world, &mut stepper, |w| {
            let t = (w.time() + DT - swing_start).min(swing);
            w.particles_mut().set_kinematic_target(hand, path(t))
        })?;
    }
    world.release_particle(hand)?; // it keeps the hand's velocity: its last step's motion
    let hand_v = world.particles().velocity(hand).expect("a live particle");
    let last_step = (path(swing) - path(swing - DT)) / DT;
    println!("let go at t = {:.2} s, the hand moving at {:.2} m/s", world.time(), hand_v.length());
    assert!((hand_v - last_step).length() < 0.01, "the rope leaves with the hand's velocity");

    // In flight nothing but gravity acts on the rope as a whole, so its centre of mass
    // flies a parabola whatever the rope does around it: x₀ + v₀t − ½g·t(t + h), the
    // integrator's exact version of x₀ + v₀t − ½gt² at substeps of h = 1/480 s. (Within
    // 2 cm a second: f32 positions a few metres out are exact to 0.24 µm, and a velocity
    // is a substep's displacement over h, so velocities carry ~1e-4 m/s of rounding that
    // adds up; in `World2d` (f64) the parabola holds to a micrometre.)
    let (x0, v0, t0) =
        (center_of_mass(&world, rope)?, momentum(&world, rope)? / total_mass(&world, rope)?, world.time());
    let radius = world.rope(rope)?.radius();
    let h = DT / world.def().substeps as f32;
    let (mut touched, mut landed) = (None, None);
    while world.time() < t0 + 4.0 {
        frame(&mut world, &mut stepper, |_| Ok(()))?;
        let t = world.time() - t0;
        if touched.is_none() && lowest(&world, rope)? < radius + 1e-3 {
            touched = Some(t);
        }
        let p = world.particles().position(weight).expect("a live particle");
        if landed.is_none() && p.y < radius + 1e-3 {
            landed = Some((t, p.x));
        }
        if touched.is_none() {
            let expected = x0 + v0 * t + Vector2::new(0.0, -0.5 * G * t * (t + h));
            let off = (center_of_mass(&world, rope)? - expected).length();
            assert!(off <= 1e-4 + 0.02 * t, "in flight the centre of mass is {off} m off its parabola");
        }
    }
    let (touched, (t, x)) = (touched.expect("the rope came down"), landed.expect("the weight came down"));
    println!(
        "the rope first touched the ground {touched:.2} s after the throw; the weight landed at {t:.2} s, x = {x:.2} m"
    );
    let rest = world.particles().position(weight).expect("a live particle");
    println!(
        "at rest: weight at x = {:.2} m; rope {} (lowest particle {:.1} mm above the ground)",
        rest.x,
        if world.rope(rope)?.is_sleeping() { "asleep" } else { "awake" },
        (lowest(&world, rope)? - radius) * 1000.0
    );
    assert!(rest.x > 1.5, "thrown forward");
    assert!(world.rope(rope)?.is_sleeping(), "come to rest on the ground");
    assert!(lowest(&world, rope)? > radius - 1e-3, "lying on the ground, not in it");
    Ok(())
}

/// One rendered frame: the fixed steps the frame's time is worth, `input` before each.
fn frame(
    world: &mut World2,
    stepper: &mut FixedStepper<f32>,
    mut input: impl FnMut(&mut World2) -> Result<(), SinewError>,
) -> Result<(), SinewError> {
    for _ in 0..stepper.advance(FRAME) {
        input(world)?;
        world.step(stepper.dt())?;
    }
    Ok(())
}

fn total_mass(world: &World2, rope: RopeHandle) -> Result<f32, SinewError> {
    Ok(world.rope(rope)?.particles().iter().filter_map(|&p| world.particles().mass(p)).sum())
}

fn momentum(world: &World2, rope: RopeHandle) -> Result<Vector2<f32>, SinewError> {
    let ps = world.particles();
    let m = world.rope(rope)?.particles().iter().filter_map(|&p| Some(ps.velocity(p)? * ps.mass(p)?));
    Ok(m.fold(Vector2::ZERO, |a, b| a + b))
}

fn center_of_mass(world: &World2, rope: RopeHandle) -> Result<Vector2<f32>, SinewError> {
    let ps = world.particles();
    let m = world.rope(rope)?.particles().iter().filter_map(|&p| Some(ps.position(p)? * ps.mass(p)?));
    Ok(m.fold(Vector2::ZERO, |a, b| a + b) / total_mass(world, rope)?)
}

fn lowest(world: &World2, rope: RopeHandle) -> Result<f32, SinewError> {
    let ps = world.particles();
    Ok(world.rope(rope)?.particles().iter().filter_map(|&p| ps.position(p)).map(|p| p.y).fold(f32::MAX, f32::min))
}
