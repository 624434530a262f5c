//! Hello, ragdoll: a 2D `humanoid16` ragdoll standing on the ground is grabbed by its
//! right hand (a player's cursor, say), dragged up and forward for half a second and
//! thrown. It prints the throw, the flight and where the body comes to rest, and the
//! worst bone strain on the way, once with the world's defaults (whose exact tree solve
//! holds the bones within 0.01 %) and once with `WorldDef::impact_passes(1)` as well,
//! which also solves the joint limits and contacts of a struck ragdoll at once.
//!
//! ```sh
//! cargo run --release -p sinew --example hello_ragdoll
//! ```

use sinew::Rot2; // (the prelude leaves out names that glam and Bevy use: Rot2, Quat, Vec2, ...)
use sinew::prelude::*;
use sinew::ragdoll::presets;

const DT: f32 = 1.0 / 60.0;

fn main() -> Result<(), SinewError> {
    let plain = throw(WorldDef::default())?;
    let solved = throw(WorldDef::default().impact_passes(1))?;
    for (name, r) in [("defaults        ", &plain), ("impact_passes(1)", &solved)] {
        println!(
            "{name}: worst bone strain {:.2} % while dragged, {:.2} % in flight and landing, {:.3} % at rest",
            r.strain_dragged * 100.0,
            r.strain_landing * 100.0,
            r.strain_at_rest * 100.0
        );
    }
    // One impact pass solves a strained ragdoll's bones, joint limits and contacts at once.
    assert!(solved.strain_dragged < 0.01 && solved.strain_landing < 0.01, "bones within 1 % with the pass");
    assert!(solved.limit_overshoot < 2f32.to_radians(), "joints within 2° of their limits with the pass");
    // Either way the body ends at rest with its bones at their lengths (within 1 %: the
    // worst is a short shoulder bone, squeezed a few tenths of a millimetre between the
    // ground and the body's weight).
    assert!(plain.strain_at_rest < 0.01 && solved.strain_at_rest < 0.01, "bones back within 1 %");
    Ok(())
}

/// Worst bone strains (|length − rest| / rest) and joint-limit overshoot (rad) of a throw.
struct Strains {
    strain_dragged: f32,
    strain_landing: f32,
    strain_at_rest: f32,
    limit_overshoot: f32,
}

fn throw(def: WorldDef<Space2<f32>>) -> Result<Strains, SinewError> {
    println!("--- impact_passes = {}", def.impact_passes);
    // A world with friction on the ground, and the ragdoll standing on it in its rest pose
    // (the rig's feet are at y = 0). `SpawnDef` can also take any animation pose with
    // velocities (`SpawnDef::from_animation`).
    let mut world = World2::new(def.friction(0.6))?;
    world.add_collider(&ColliderDef::new(Shape::half_space(Vector2::new(0.0, 1.0), 0.0)?))?;
    let rig = presets::humanoid16::<f32>();
    let standing = SpawnDef::from_rig(&rig, Vector2::ZERO, Rot2::IDENTITY, 1.0, Vector2::ZERO);
    let ragdoll = Ragdoll::spawn_with(&mut world, &rig, &standing)?;

    // A hard grab (compliance 0): the hand node goes exactly where the cursor goes. The
    // cursor moves up and forward for 0.5 s, speeding up, then lets go.
    let hand = rig.node_index("hand_r").expect("humanoid16 has a right hand");
    let start = world.particles().position(ragdoll.nodes()[hand]).expect("a live node");
    let cursor = |t: f32| start + Vector2::new(3.0 * t * t, 0.6 * t + 3.0 * t * t);
    let grab = ragdoll.grab(&mut world, hand, start, 0.0)?;
    let mut worst = Strains { strain_dragged: 0.0, strain_landing: 0.0, strain_at_rest: 0.0, limit_overshoot: 0.0 };
    for frame in 1..=30 {
        ragdoll.move_grab(&mut world, &grab, cursor(frame as f32 * DT))?; // where it is at the step's end
        world.step(DT)?;
        let stats = ragdoll.stats(&world)?;
        worst.strain_dragged = worst.strain_dragged.max(stats.max_bone_strain);
        worst.limit_overshoot = worst.limit_overshoot.max(stats.max_limit_violation);
    }
    // Letting go throws the hand with the cursor's velocity over the last step.
    let v = ragdoll.release(&mut world, grab)?;
    let expected = (cursor(0.5) - cursor(0.5 - DT)) / DT;
    println!("thrown at ({:.2}, {:.2}) m/s by the hand, {:.2} m/s", v.x, v.y, v.length());
    assert!((v - expected).length() < 1e-3, "the throw keeps the cursor's velocity");

    // The flight: until a node touches the ground. Then it tumbles and comes to rest;
    // after a second below 1 cm/s the world puts it to sleep.
    let released = world.time();
    let (mut apex, mut landed, mut asleep) = (0.0f32, None, None);
    while world.time() < released + 8.0 && asleep.is_none() {
        world.step(DT)?;
        let stats = ragdoll.stats(&world)?;
        worst.strain_landing = worst.strain_landing.max(stats.max_bone_strain);
        worst.limit_overshoot = worst.limit_overshoot.max(stats.max_limit_violation);
        let com = ragdoll.center_of_mass(&world)?;
        let on_ground = ragdoll.nodes().iter().any(|&n| {
            let (p, r) = (world.particles().position(n), world.particles().radius(n));
            p.zip(r).is_some_and(|(p, r)| p.y < r + 0.01)
        });
        if landed.is_none() {
            apex = apex.max(com.y);
            if on_ground {
                landed = Some((world.time() - released, com.x));
            }
        }
        if ragdoll.is_sleeping(&world) {
            asleep = Some(world.time() - released);
        }
    }
    let (flight, x_land) = landed.expect("it came down");
    println!(
        "flight: {flight:.2} s, centre of mass up to {apex:.2} m; first touch with its centre of mass at x = {x_land:.2} m"
    );
    let asleep = asleep.expect("it came to rest within 8 s");
    let com = ragdoll.center_of_mass(&world)?;
    println!("at rest (asleep) {asleep:.2} s after the throw, centre of mass at ({:.2}, {:.2}) m", com.x, com.y);
    worst.strain_at_rest = ragdoll.stats(&world)?.max_bone_strain;

    assert!(flight > 0.2 && apex > 1.2, "it flew: feet off the ground, centre of mass above its standing height");
    assert!(com.x > 1.0 && com.y < 0.3, "it lies on the ground ahead of where it stood");
    for &n in ragdoll.nodes() {
        let (p, r) = (world.particles().position(n).expect("a live node"), world.particles().radius(n).unwrap_or(0.0));
        assert!(p.y > r - 1e-3, "no node inside the ground");
    }
    Ok(worst)
}
